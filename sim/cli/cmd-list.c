/* cmd-list.c - `memsim list`: the built-in kernels. */
#include "config.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "problem.h"
#include "report.h"

int
ms_cmd_list (int argc, char **argv)
{
  g_autofree char *format_text = NULL;
  gboolean all = FALSE, params = FALSE;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_text, "Output format: text or json",
      "FORMAT" },
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all, "Include the emulator's test kernels", NULL },
    { "params", 0, 0, G_OPTION_ARG_NONE, &params, "Show each kernel's parameters", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- list the built-in kernels");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  MsFormat format;
  if (ms_parse_command_line (ctx, &argc, &argv, &format_text, &format) != 0)
    return 2;
  if (argc > 1)
    {
      ms_error ("list takes no arguments; try `memsim list --help`");
      return 2;
    }

  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_array (b);
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    {
      if (!all && strcmp ((*k)->family, "test") == 0)
        continue;
      if (format == MS_FORMAT_JSON)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, (*k)->name);
          json_builder_set_member_name (b, "family");
          json_builder_add_string_value (b, (*k)->family);
          json_builder_set_member_name (b, "origin");
          json_builder_add_string_value (b, (*k)->origin);
          json_builder_set_member_name (b, "description");
          json_builder_add_string_value (b, (*k)->description);
          json_builder_set_member_name (b, "block");
          json_builder_begin_array (b);
          for (int d = 0; d < 3; d++)
            json_builder_add_int_value (b, MAX ((*k)->block[d], 1u));
          json_builder_end_array (b);
          json_builder_set_member_name (b, "params");
          json_builder_begin_array (b);
          for (const MsParamSpec *s = (*k)->params; s && s->name; s++)
            {
              json_builder_begin_object (b);
              json_builder_set_member_name (b, "name");
              json_builder_add_string_value (b, s->name);
              json_builder_set_member_name (b, "default");
              json_builder_add_int_value (b, s->def);
              json_builder_set_member_name (b, "min");
              json_builder_add_int_value (b, s->min);
              json_builder_set_member_name (b, "max");
              json_builder_add_int_value (b, s->max);
              json_builder_set_member_name (b, "help");
              json_builder_add_string_value (b, s->help);
              if (s->choices)
                {
                  json_builder_set_member_name (b, "choices");
                  json_builder_begin_array (b);
                  for (gint64 v = s->min; v <= s->max; v++)
                    json_builder_add_string_value (b, ms_param_choice_name (s, v));
                  json_builder_end_array (b);
                }
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
          json_builder_end_object (b);
          continue;
        }
      g_string_append_printf (out, "%-26s %-10s %s\n%26s %10s from %s\n", (*k)->name,
                              (*k)->family, (*k)->description, "", "", (*k)->origin);
      for (const MsParamSpec *s = (*k)->params; params && s && s->name; s++)
        if (s->choices)
          {
            g_autofree char *names = g_strjoinv ("|", (char **) s->choices);
            g_string_append_printf (out, "%26s %10s -p %s=%s  %s (default %s)\n", "", "",
                                    s->name, names, s->help,
                                    ms_param_choice_name (s, s->def));
          }
        else
          g_string_append_printf (out, "%26s %10s -p %s=N  %s (default %" G_GINT64_FORMAT
                                  ", %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ")\n",
                                  "", "", s->name, s->help, s->def, s->min, s->max);
    }
  json_builder_end_array (b);
  if (format == MS_FORMAT_JSON)
    {
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      ms_report_append_json (root, out);
    }
  else if (format == MS_FORMAT_CSV)
    {
      ms_error ("list supports --format text or json");
      return 2;
    }
  if (!ms_write_output (NULL, out, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  return 0;
}
