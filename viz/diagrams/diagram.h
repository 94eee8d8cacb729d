/* diagram.h - lecture diagrams of warp accesses, drawn with Graphviz.
 *
 * Four kinds, one file each, all producing DOT text (deterministic: the
 * same input gives the same bytes, no pointers, no timestamps):
 *   banks    (viz-banks.c)   one shared access: lanes -> words -> banks,
 *                            the n-way conflict degree of every bank,
 *                            broadcasts, the phases of 8- and 16-byte
 *                            accesses;
 *   sectors  (viz-sectors.c) one global access: lanes -> addresses ->
 *                            32-byte sectors grouped in 128-byte lines
 *                            (cc13: the half-warps' 32/64/128-byte
 *                            transactions), bytes used versus fetched,
 *                            the efficiency;
 *   tile     (viz-tile.c)    a shared array drawn as a grid coloured by
 *                            bank, padding columns marked, the cells one
 *                            warp access touches highlighted with their
 *                            lane numbers;
 *   lines    (viz-lines.c)   a kernel's per-source-line summary, a bar and
 *                            a heat cell per line.
 * (The viz- prefix keeps object names apart from sim/banks.o in
 * libmemsim.a.)  viz-style.c holds what they share.
 * viz-render.c turns DOT into SVG (Graphviz's core renderer: text stays text),
 * PNG or PDF (the cairo plugin) in-process through libgvc, in the plug-in
 * memsim-graphviz.so (viz-graphviz.c: one thread at a time, Graphviz is not
 * thread-safe), which only the commands that render load.
 *
 * Only compiled when configure found libgvc (HAVE_GRAPHVIZ).
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "arch.h"
#include "launch.h"
#include "stats.h"

G_BEGIN_DECLS

#define MS_DIAGRAM_ERROR (ms_diagram_error_quark ())
GQuark ms_diagram_error_quark (void);

typedef enum {
  MS_DIAGRAM_ERROR_FORMAT,   /* unknown output format or kind */
  MS_DIAGRAM_ERROR_INPUT,    /* the access does not fit the diagram */
  MS_DIAGRAM_ERROR_RENDER,   /* Graphviz failed */
} MsDiagramError;

typedef enum {
  MS_DIAGRAM_BANKS,
  MS_DIAGRAM_SECTORS,
  MS_DIAGRAM_TILE,
  MS_DIAGRAM_LINES,
} MsDiagramKind;

typedef enum {
  MS_DIAGRAM_SVG,
  MS_DIAGRAM_PNG,
  MS_DIAGRAM_PDF,
  MS_DIAGRAM_DOT,
} MsDiagramFormat;

/* "banks", "sectors", "tile" or "lines". */
gboolean ms_diagram_kind_parse (const char *text, MsDiagramKind *kind, GError **error);
const char *ms_diagram_kind_name (MsDiagramKind kind);

/* The format from the file name's extension: .svg, .png, .pdf or .dot
 * (case-insensitive); anything else is an error naming the choices. */
gboolean ms_diagram_format_from_path (const char *file, MsDiagramFormat *format,
                                      GError **error);

/* What a diagram's title says about where the access comes from. */
typedef struct {
  const char *kernel;        /* "transpose_shared" */
  const char *params;        /* "width=64 height=64", or NULL */
  const char *file;          /* kernel source file, "transpose.cu" */
  int line;                  /* source line of the access (0: none) */
  const char *source;        /* that line's text, or NULL */
  const MsArch *arch;
  guint block, warp;         /* the warp drawn */
  guint instance;            /* which execution of the line by that warp */
  guint executions;          /* how many times that warp executed the line */
  /* names of the global buffers, for addresses: buffer i of a virtual
   * address (MS_VADDR_BUFFER) is buffer_names[i] */
  const char *const *buffer_names;
  guint n_buffers;
  const MsRunInfo *run;      /* source lines of the sites (NULL: the built-in
                              * kernels' embedded sources) */
} MsDiagramInfo;

/* A shared array for the tile kind: rows x (cols + pad) elements of
 * elem_bytes each, row-major, element [0][0] at byte `base` of the block's
 * shared window.  The last `pad` columns are padding (drawn marked). */
typedef struct {
  const char *name;          /* "tile" */
  guint64 base;
  guint rows, cols, pad;
  guint elem_bytes;
  guint flat;                /* > 0: a 1-D array of `flat` elements, drawn
                              * in rows of `cols` */
} MsTileShape;

/* Each appends a complete DOT graph to `dot`. */
void ms_diagram_banks (const MsDiagramInfo *info, const MsWarpAccess *a, GString *dot);
void ms_diagram_sectors (const MsDiagramInfo *info, const MsWarpAccess *a, GString *dot);
/* Fails (MS_DIAGRAM_ERROR_INPUT) when the access touches bytes outside the
 * array or the array is too large to draw (more than 128 x 128 cells). */
gboolean ms_diagram_tile (const MsDiagramInfo *info, const MsWarpAccess *a,
                          const MsTileShape *tile, GString *dot, GError **error);
/* info->line, when not 0, is the line drawn highlighted. */
void ms_diagram_lines (const MsDiagramInfo *info, const MsStats *stats, GString *dot);

/* Finds the shape of the shared array a source line of `kernel` reads or
 * writes, from the kernel source (embedded in memsim).  The kernel's
 * SHARED_ARRAY/SHARED_ARRAY2 declarations are evaluated with the file's
 * integer #defines (a trailing `+ k` in the column count is k pad columns)
 * and placed one after the other as the emulator allocates them; the array
 * is the first `NAME[` on the line that names one of them, or, for a line
 * outside the kernel (a helper reached through a pointer), the one that
 * holds every byte of access `a` (may be NULL).  Fills *tile; its name
 * points into *name_out (free with g_free). */
gboolean ms_tile_shape_from_source (const char *file, const char *kernel, int line,
                                    const MsWarpAccess *a, MsTileShape *tile, char **name_out,
                                    GError **error);
/* --tile ROWSxCOLS[+PAD], e.g. "32x32+1" (32 rows of 33 elements, the last
 * one padding). */
gboolean ms_tile_shape_parse (const char *text, MsTileShape *tile, GError **error);

/* Renders DOT text to the format; for MS_DIAGRAM_DOT returns the text as
 * is.  Serialised by a lock: Graphviz is not thread-safe.  Graphviz's
 * errors fail the call; its warnings (a label too big for its cell, ...)
 * are returned in *warnings (one line, NULL when none; may be NULL). */
gboolean ms_diagram_render (const char *dot, MsDiagramFormat format, GBytes **out,
                            char **warnings, GError **error);
/* Whether ms_diagram_render can render the format: SVG, PNG and PDF need
 * the plug-in memsim-graphviz.so (loaded here; a one-line error when it
 * is missing). */
gboolean ms_diagram_render_ready (MsDiagramFormat format, GError **error);

G_END_DECLS
