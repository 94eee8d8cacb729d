/* plugin.h - memsim's optional parts, loaded only by the commands that
 * need them: the GPU back-end (memsim-gpu.so: the CUDA runtime, CUPTI and
 * the kernels' nvcc builds; gpu/backend-cuda.c) and Graphviz rendering
 * (memsim-graphviz.so; viz/diagrams/viz-graphviz.c).  Linked into memsim,
 * their libraries cost every command, `trace` included, about 2 ms of
 * dynamic loading (docs/performance.md, "Start-up").
 *
 * Plug-in NAME is the file memsim-NAME.so, looked for in $MEMSIM_PLUGIN_DIR
 * when set, else, for a program run from the build tree (not from the
 * installed bindir), the build tree, else the installed $(pkglibdir).  It
 * exports ms_plugin_version (PACKAGE_VERSION: a plug-in of another build is
 * refused) and its interface.  Here, at the bottom of the tree, so that any
 * stage may load one.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The address of `symbol` in plug-in `name` ("gpu"), opened once and kept
 * for the process; NULL with a one-line error that says what to do when
 * the file is missing or cannot be loaded (what `what` names: "the GPU
 * back-end").  Thread-safe. */
gconstpointer ms_plugin_symbol (const char *name, const char *what, const char *symbol,
                                GError **error);

G_END_DECLS
