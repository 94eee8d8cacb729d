/* site.h - a static source location of memory accesses: one LD/ST/atomic
 * macro expansion in a kernel, or one site of an imported trace.
 *
 * Plain C without GLib: kernel sources include it through kernel.h.  The
 * one definition of MsSite; sim/stream/access.h adds the site table.
 */
#ifndef MEMSIM_SITE_H
#define MEMSIM_SITE_H

typedef struct MsSite MsSite;
#define MS_SITE_ACQUIRE 2
struct MsSite {
  const char *file;   /* source file name, e.g. "transpose.cu" */
  int line;           /* 1-based source line (0: unknown, e.g. an imported trace) */
  int order;          /* textual order within the file (__COUNTER__); the
                       * emulator runs lanes waiting at the smallest first */
  int id;             /* dense index in the site table, -1 before first use */
  int ordered;        /* a load or store with a memory order (PTX .acquire,
                       * .release, .relaxed: a flag a barrier of cooperative
                       * groups spins on): like an atomic, it does not race
                       * with atomics or with other such accesses;
                       * MS_SITE_ACQUIRE: an acquire, which the race check
                       * takes as a barrier (what was written before it is
                       * ordered before what follows) */
  int compiled;       /* its records are the instructions as compiled (device
                       * code run from its PTX and SASS): the models infer
                       * nothing the compiler may have done to them (an
                       * atomic's warp aggregation) */
  int reduction;      /* device code run from its PTX: an atomic whose result
                       * the code never reads, which ptxas makes a RED; its
                       * global records are counted as reductions (MS_OP_RED,
                       * sim/stream/reduction.h) */
  int async_copy;     /* device code run from its PTX: cp.async's read of
                       * global memory (LDGSTS), a global load record whose
                       * requests and sectors the GPU counts among the global
                       * loads' but not its instruction
                       * (smsp__sass_inst_executed_op_ldgsts.sum, not
                       * ..._op_global_ld.sum); its copy to shared memory is
                       * no record (the GPU counts no shared store) */
  const struct MsSite *twin;  /* device code run from its PTX: the same
                       * instruction in the kernel's other build (its quick
                       * one, or its optimised one that replaces it while it
                       * runs), which takes the same id (ms_site_register), or
                       * NULL */
  const char *inner;  /* device code run from its PTX, inlined: "FILE:LINE"
                       * (basename) of its accesses' own lines, where `line`
                       * is their call's, tab-separated; the SASS's line
                       * marks name both (innermost first), so its
                       * instructions are told from those of other accesses
                       * inlined at the call; else NULL */
};

#endif /* MEMSIM_SITE_H */
