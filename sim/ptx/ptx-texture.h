/* ptx-texture.h - the C a texture or surface instruction of PTX becomes
 * (tex, suld.b, sust.b): one lane statement calling the emulator's fetch,
 * load or store (sim/emulator/texture.h). */
#pragma once

#include <glib.h>

#include "ptx.h"

G_BEGIN_DECLS

/* Whether op is a texture or surface instruction (tex, tld4, txq, suld,
 * sust, sured, suq): ms_ptx_texture_lanes makes its code or says why not. */
gboolean ms_ptx_texture_op (const char *op);

/* Appends to body the lane statement (lane L, registers R<n>[L]) of i, an
 * instruction of f; FALSE with *why (static) for a form memsim does not
 * run, body unchanged. */
gboolean ms_ptx_texture_lanes (const MsPtxFunc *f, const MsPtxInsn *i, GString *body,
                               const char **why);

G_END_DECLS
