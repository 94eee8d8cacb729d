/* ptx-lane-temps.h - registers that live inside one lane loop become
 * scalars of the lane (ptx-lane-temps.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Over a translated function's code (ptx-translate.c's text: registers
 * R<n> are arrays of the warp's 32 lanes, read and written as R<n>[L]
 * inside lane loops), finds the registers whose every reference lies in
 * one lane loop and whose first reference there writes the register, and
 * rewrites those references to T<n>, a scalar the function declares in
 * place of the array.  is_temp (n_regs entries) says which; returns how
 * many. */
guint ms_ptx_lane_temps (GString *code, guint n_regs, gboolean *is_temp);

G_END_DECLS
