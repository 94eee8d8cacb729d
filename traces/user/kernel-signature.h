/* kernel-signature.h - a user's kernel as the host compiler sees it: the
 * parameters' C types and the layout of the file's structs, read from the
 * DWARF of nvcc's host build (-g) with elfutils' libdw.
 *
 * The PTX of a kernel has only _param_N and sizes; the host side of nvcc's
 * build defines the kernel's launch stub, named after the PTX's .entry,
 * with the declared parameter types (typedefs, const,
 * pointers, structs), so the types come from the compiler, not from a
 * reading of the source.  The stub's parameters are named __parN, so the
 * names come from elsewhere (the PTX program reads them from the
 * declaration its line table points at).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct MsKernelSignature MsKernelSignature;

/* Opens the debug information of the ELF file at path.  NULL with a
 * one-line MS_USER_ERROR when it has none libdw can read. */
MsKernelSignature *ms_kernel_signature_open (const char *path, GError **error);
void ms_kernel_signature_free (MsKernelSignature *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsKernelSignature, ms_kernel_signature_free)

typedef struct {
  char *type;   /* as C writes it: "const float *", "real *", "int", "Particle *" */
  char kind;    /* 'p' pointer, 'f' floating point, 'i' integer, bool or enum,
                   's' anything else (a struct or a reference) */
} MsKernelParamType;

/* The parameter types of the kernel whose .entry is `mangled` (its launch
 * stub's), a GArray of MsKernelParamType
 * (free with ms_kernel_param_types_free), or NULL if the debug information
 * defines no such function. */
GArray *ms_kernel_signature_params (MsKernelSignature *s, const char *mangled);
void ms_kernel_param_types_free (GArray *types);

/* How to fill one scalar of a struct: at byte offset `offset`, `size`
 * bytes of kind 'f' (floating point), 'i' (signed) or 'u' (unsigned). */
typedef struct {
  guint offset, size;
  char kind;
} MsUserField;

/* The size and scalar fields of the struct (or class, typedef of one)
 * named `name`; FALSE if there is none.  fields: a GArray of MsUserField,
 * in offset order. */
gboolean ms_kernel_signature_struct (MsKernelSignature *s, const char *name, gsize *size,
                                     GArray *fields);

G_END_DECLS
