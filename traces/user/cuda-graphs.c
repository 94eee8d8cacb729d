/* cuda-graphs.c - CUDA graphs for users' programs: graphs built node by
 * node or captured from streams, instantiated and launched.
 *
 * Assumptions (memsim's runtime is synchronous, cuda-runtime.c):
 *   - launching a graph runs its nodes one after the other, in an order
 *     that respects every dependency (the order they were added in where
 *     the dependencies allow: a capture's own order);
 *   - a capture records the work issued to the capturing stream, and to
 *     the streams that waited on an event recorded in the capture, instead
 *     of running it; its nodes depend on the stream's previous node;
 *   - a graph's memory (allocation nodes, captured cudaMallocAsync) is
 *     allocated when the node is made, at the address the node reports,
 *     and stays until the program frees it or ends: free nodes do nothing;
 *   - a conditional node runs its body graph as its handle's value says
 *     when the node's turn comes (if, while, switch); the value is what
 *     device code's cudaGraphSetConditional set last, the handle's default
 *     at each launch where it asked for that (cudaGraphCondAssignDefault);
 *   - external semaphores and copies of CUDA arrays are not run: adding
 *     one fails with cudaErrorNotSupported.
 */
#include "config.h"

#ifdef MS_CUDA_RUNTIME_API_H
#include MS_CUDA_RUNTIME_API_H
#define MS_RENAME(f) __typeof__ (f) f __asm__ ("memsim_" #f);
/* the functions defined here */
MS_RENAME (cudaGraphCreate) MS_RENAME (cudaGraphDestroy) MS_RENAME (cudaGraphAddKernelNode)
MS_RENAME (cudaGraphKernelNodeGetParams) MS_RENAME (cudaGraphKernelNodeSetParams)
MS_RENAME (cudaGraphAddMemcpyNode) MS_RENAME (cudaGraphAddMemcpyNode1D)
MS_RENAME (cudaGraphAddMemsetNode) MS_RENAME (cudaGraphAddHostNode)
MS_RENAME (cudaGraphHostNodeGetParams) MS_RENAME (cudaGraphAddChildGraphNode)
MS_RENAME (cudaGraphAddEmptyNode) MS_RENAME (cudaGraphAddMemAllocNode)
MS_RENAME (cudaGraphAddMemFreeNode) MS_RENAME (cudaGraphAddEventRecordNode)
MS_RENAME (cudaGraphAddEventWaitNode) MS_RENAME (cudaGraphAddNode) MS_RENAME (cudaGraphClone)
MS_RENAME (cudaGraphNodeGetType) MS_RENAME (cudaGraphGetNodes) MS_RENAME (cudaGraphGetRootNodes)
MS_RENAME (cudaGraphAddDependencies) MS_RENAME (cudaGraphInstantiate)
MS_RENAME (cudaGraphInstantiateWithFlags) MS_RENAME (cudaGraphExecKernelNodeSetParams)
MS_RENAME (cudaGraphExecHostNodeSetParams) MS_RENAME (cudaGraphExecUpdate)
MS_RENAME (cudaGraphLaunch) MS_RENAME (cudaGraphUpload) MS_RENAME (cudaGraphExecDestroy)
MS_RENAME (cudaGraphDebugDotPrint) MS_RENAME (cudaStreamBeginCapture)
MS_RENAME (cudaStreamBeginCaptureToGraph) MS_RENAME (cudaStreamEndCapture)
MS_RENAME (cudaStreamIsCapturing) MS_RENAME (cudaStreamGetCaptureInfo)
MS_RENAME (cudaStreamUpdateCaptureDependencies) MS_RENAME (cudaThreadExchangeStreamCaptureMode)
MS_RENAME (cudaDeviceGraphMemTrim) MS_RENAME (cudaDeviceGetGraphMemAttribute)
MS_RENAME (cudaDeviceSetGraphMemAttribute) MS_RENAME (cudaGraphConditionalHandleCreate)
/* cuda-runtime.c's, called here */
MS_RENAME (cudaMemcpy) MS_RENAME (cudaEventRecord)

#include <string.h>

#include "cuda-runtime.h"
#include "cuda-runtime-private.h"
#include "emulator.h"

struct CUgraphNode_st {
  enum cudaGraphNodeType type;
  guint index;               /* in its graph */
  GPtrArray *deps;           /* the nodes it depends on */
  union {
    struct {
      const void *func;
      dim3 grid, block;
      size_t shared;
      guint8 *bytes;         /* the parameter block, as the PTX lays it out */
      void **args;           /* pointers into it, one a parameter */
      guint n_args;
    } kernel;
    struct cudaMemcpy3DParms copy;
    struct cudaMemsetParams set;
    struct cudaHostNodeParams host;
    struct CUgraph_st *child;
    cudaEvent_t event;
    struct {
      void *ptr;
      size_t bytes;
    } mem;
    struct {
      cudaGraphConditionalHandle handle;
      enum cudaGraphConditionalNodeType type;
      guint size;
      struct CUgraph_st **bodies;   /* size of them (owned): phGraph_out */
    } cond;
  };
};

struct CUgraph_st {
  GPtrArray *nodes;          /* owned */
};

struct CUgraphExec_st {
  struct CUgraph_st *graph;  /* a copy of the graph instantiated, or updated */
  GPtrArray *order;          /* its nodes in the order they run */
};

static struct {
  GHashTable *graphs;        /* the program's graphs (owned) */
  GHashTable *bodies;        /* conditional nodes' body graphs (their nodes own them) */
  GHashTable *conds;         /* conditional handles -> Cond (owned) */
  GHashTable *execs;         /* ... and executable graphs (owned) */
  GHashTable *streams;       /* a capturing stream -> its Capture */
  GHashTable *events;        /* an event recorded in a capture -> its Capture */
  guint64 captures;          /* captures begun */
  guint64 graph_memory;      /* bytes of the graphs' allocation nodes */
} g;

/* A conditional handle's value (cudaGraphConditionalHandleCreate). */
typedef struct {
  guint32 value, initial;
  gboolean assign_default;   /* the initial value at each launch */
} Cond;

typedef struct {
  struct CUgraph_st *graph;
  guint64 id;
  gboolean own_graph;        /* begun with cudaStreamBeginCapture: EndCapture hands it over */
  GHashTable *last;          /* stream -> its last node in the capture */
} Capture;

/* ------------------------------------------------------------ nodes */

static void
node_free (gpointer p)
{
  struct CUgraphNode_st *n = p;
  if (n->type == cudaGraphNodeTypeKernel)
    {
      g_free (n->kernel.bytes);
      g_free (n->kernel.args);
    }
  g_ptr_array_unref (n->deps);
  g_free (n);
}

static struct CUgraph_st *
graph_new (void)
{
  struct CUgraph_st *graph = g_new0 (struct CUgraph_st, 1);
  graph->nodes = g_ptr_array_new_with_free_func (node_free);
  return graph;
}

static void graph_free (gpointer p);

static void
graph_clear_node (struct CUgraphNode_st *n)
{
  if (n->type == cudaGraphNodeTypeGraph)
    graph_free (n->child);
  if (n->type == cudaGraphNodeTypeConditional)
    {
      for (guint i = 0; i < n->cond.size; i++)
        {
          if (g.bodies != NULL)
            g_hash_table_remove (g.bodies, n->cond.bodies[i]);
          graph_free (n->cond.bodies[i]);
        }
      g_free (n->cond.bodies);
    }
}

static void
graph_free (gpointer p)
{
  struct CUgraph_st *graph = p;
  for (guint i = 0; i < graph->nodes->len; i++)
    graph_clear_node (graph->nodes->pdata[i]);
  g_ptr_array_unref (graph->nodes);
  g_free (graph);
}

/* The program's graphs, conditional nodes' bodies and the graphs that
 * captures are making (cudaStreamGetCaptureInfo hands them out). */
static gboolean
graph_known (cudaGraph_t graph)
{
  if (graph == NULL || g.graphs == NULL)
    return FALSE;
  if (g_hash_table_contains (g.graphs, graph) || g_hash_table_contains (g.bodies, graph))
    return TRUE;
  GHashTableIter it;
  gpointer c;
  g_hash_table_iter_init (&it, g.streams);
  while (g_hash_table_iter_next (&it, NULL, &c))
    if (((Capture *) c)->graph == graph)
      return TRUE;
  return FALSE;
}

/* A node of `type` added to graph after deps; NULL if a dependency is no
 * node of graph. */
static struct CUgraphNode_st *
node_add (struct CUgraph_st *graph, enum cudaGraphNodeType type,
          const cudaGraphNode_t *deps, size_t n_deps)
{
  for (size_t i = 0; i < n_deps; i++)
    if (deps[i] == NULL || deps[i]->index >= graph->nodes->len
        || graph->nodes->pdata[deps[i]->index] != deps[i])
      return NULL;
  struct CUgraphNode_st *n = g_new0 (struct CUgraphNode_st, 1);
  n->type = type;
  n->index = graph->nodes->len;
  n->deps = g_ptr_array_new ();
  for (size_t i = 0; i < n_deps; i++)
    g_ptr_array_add (n->deps, deps[i]);
  g_ptr_array_add (graph->nodes, n);
  return n;
}

/* A kernel node's parameters: copied into a block of the kernel's layout,
 * as CUDA copies them when the node is made. */
static cudaError_t
kernel_set (struct CUgraphNode_st *n, const void *func, dim3 grid, dim3 block, size_t shared,
            void **args, void **extra)
{
  if (extra != NULL)
    return ms_cuda_fail (cudaErrorNotSupported);
  const MsPtxKernel *k = ms_cuda_kernel (func);
  if (k == NULL)
    return ms_cuda_fail (cudaErrorInvalidDeviceFunction);
  if (k->n_params > 0 && args == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  guint8 *bytes;
  void **ptrs;
  if (!ms_cuda_kernel_params (k, args, &bytes, &ptrs))
    return ms_cuda_fail (cudaErrorInvalidValue);
  if (n->type == cudaGraphNodeTypeKernel)
    {
      g_free (n->kernel.bytes);
      g_free (n->kernel.args);
    }
  n->type = cudaGraphNodeTypeKernel;
  n->kernel.func = func;
  n->kernel.grid = grid;
  n->kernel.block = block;
  n->kernel.shared = shared;
  n->kernel.bytes = bytes;
  n->kernel.args = ptrs;
  n->kernel.n_args = k->n_params;
  return cudaSuccess;
}

static cudaError_t
copy_check (const struct cudaMemcpy3DParms *p)
{
  if (p == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  if (p->srcArray != NULL || p->dstArray != NULL)
    return ms_cuda_fail (cudaErrorNotSupported);
  return cudaSuccess;
}

static struct CUgraph_st *graph_copy (const struct CUgraph_st *graph);

/* n's parameters into copy (made by node_add), the child graph cloned. */
static void
node_copy_params (struct CUgraphNode_st *copy, const struct CUgraphNode_st *n)
{
  GPtrArray *deps = copy->deps;
  guint index = copy->index;
  *copy = *n;
  copy->deps = deps;
  copy->index = index;
  if (n->type == cudaGraphNodeTypeKernel)
    {
      const MsPtxKernel *k = ms_cuda_kernel (n->kernel.func);
      gsize bytes = MAX (k ? k->param_bytes : 1, 1);
      copy->kernel.bytes = g_memdup2 (n->kernel.bytes, bytes);
      copy->kernel.args = g_new0 (void *, n->kernel.n_args + 1);
      for (guint i = 0; i < n->kernel.n_args; i++)
        copy->kernel.args[i] = copy->kernel.bytes
                               + ((guint8 *) n->kernel.args[i] - n->kernel.bytes);
    }
  else if (n->type == cudaGraphNodeTypeGraph)
    copy->child = graph_copy (n->child);
  else if (n->type == cudaGraphNodeTypeConditional)
    {
      copy->cond.bodies = g_new0 (struct CUgraph_st *, n->cond.size);
      for (guint i = 0; i < n->cond.size; i++)
        copy->cond.bodies[i] = graph_copy (n->cond.bodies[i]);
    }
}

/* A deep copy: the nodes, their dependencies and child graphs. */
static struct CUgraph_st *
graph_copy (const struct CUgraph_st *graph)
{
  struct CUgraph_st *copy = graph_new ();
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const struct CUgraphNode_st *n = graph->nodes->pdata[i];
      struct CUgraphNode_st *c = node_add (copy, n->type, NULL, 0);
      node_copy_params (c, n);
      for (guint d = 0; d < n->deps->len; d++)
        g_ptr_array_add (c->deps,
                         copy->nodes->pdata[((struct CUgraphNode_st *) n->deps->pdata[d])->index]);
    }
  return copy;
}

/* ------------------------------------------------------------ running */

static cudaError_t graph_run (const struct CUgraph_st *graph, const GPtrArray *order);

/* The nodes in an order that respects their dependencies: the order they
 * were added in where it can (Kahn's algorithm, lowest index first). */
static GPtrArray *
graph_order (const struct CUgraph_st *graph)
{
  guint n = graph->nodes->len;
  g_autofree guint *waiting = g_new0 (guint, MAX (n, 1));
  g_autofree gboolean *done = g_new0 (gboolean, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    waiting[i] = ((struct CUgraphNode_st *) graph->nodes->pdata[i])->deps->len;
  GPtrArray *order = g_ptr_array_new ();
  while (order->len < n)
    {
      guint i = 0;
      while (i < n && (done[i] || waiting[i] > 0))
        i++;
      if (i == n)
        break;   /* a cycle: cudaGraphAddDependencies lets none be made */
      done[i] = TRUE;
      struct CUgraphNode_st *ready = graph->nodes->pdata[i];
      g_ptr_array_add (order, ready);
      for (guint j = 0; j < n; j++)
        {
          const struct CUgraphNode_st *m = graph->nodes->pdata[j];
          for (guint d = 0; d < m->deps->len; d++)
            if (m->deps->pdata[d] == ready)
              waiting[j]--;
        }
    }
  return order;
}

static cudaError_t
memset_run (const struct cudaMemsetParams *p)
{
  for (size_t y = 0; y < MAX (p->height, 1); y++)
    {
      guint8 *row = (guint8 *) p->dst + y * p->pitch;
      for (size_t x = 0; x < p->width; x++)
        memcpy (row + x * p->elementSize, &p->value, p->elementSize);   /* little-endian */
    }
  ms_cuda_memory_written (p->dst, p->pitch * (MAX (p->height, 1) - 1) + p->width * p->elementSize);
  ms_cuda_clock_set (p->width * p->elementSize * MAX (p->height, 1));
  return cudaSuccess;
}

static cudaError_t
copy_run (const struct cudaMemcpy3DParms *p)
{
  const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
  for (size_t z = 0; z < MAX (p->extent.depth, 1); z++)
    for (size_t y = 0; y < MAX (p->extent.height, 1); y++)
      {
        const guint8 *from = (const guint8 *) s->ptr
                             + ((p->srcPos.z + z) * MAX (s->ysize, 1) + p->srcPos.y + y) * s->pitch
                             + p->srcPos.x;
        guint8 *to = (guint8 *) d->ptr
                     + ((p->dstPos.z + z) * MAX (d->ysize, 1) + p->dstPos.y + y) * d->pitch
                     + p->dstPos.x;
        cudaError_t e = ms_cuda_copy_untimed (to, from, p->extent.width, p->kind);
        if (e != cudaSuccess)
          return e;
      }
  ms_cuda_clock_copy (d->ptr, s->ptr,
                      p->extent.width * MAX (p->extent.height, 1) * MAX (p->extent.depth, 1), 0,
                      TRUE);
  return cudaSuccess;
}

static cudaError_t
body_run (const struct CUgraph_st *body)
{
  g_autoptr (GPtrArray) order = graph_order (body);
  return graph_run (body, order);
}

/* A conditional node: the body its handle's value picks, now (a while
 * node's again each time its body leaves the value non-zero). */
static cudaError_t
conditional_run (const struct CUgraphNode_st *n)
{
  const Cond *c = g_hash_table_lookup (g.conds, GSIZE_TO_POINTER (n->cond.handle));
  switch (n->cond.type)
    {
    case cudaGraphCondTypeIf:
      if (c->value != 0)
        return body_run (n->cond.bodies[0]);
      return n->cond.size == 2 ? body_run (n->cond.bodies[1]) : cudaSuccess;
    case cudaGraphCondTypeWhile:
      while (__atomic_load_n (&c->value, __ATOMIC_RELAXED) != 0)
        {
          cudaError_t e = body_run (n->cond.bodies[0]);
          if (e != cudaSuccess)
            return e;
        }
      return cudaSuccess;
    default:   /* switch */
      return c->value < n->cond.size ? body_run (n->cond.bodies[c->value]) : cudaSuccess;
    }
}

static cudaError_t
node_run (const struct CUgraphNode_st *n)
{
  switch (n->type)
    {
    case cudaGraphNodeTypeKernel:
      return ms_cuda_launch (n->kernel.func, n->kernel.grid, n->kernel.block, n->kernel.args,
                             n->kernel.shared);
    case cudaGraphNodeTypeMemcpy:
      return copy_run (&n->copy);
    case cudaGraphNodeTypeMemset:
      return memset_run (&n->set);
    case cudaGraphNodeTypeHost:
      n->host.fn (n->host.userData);
      return cudaSuccess;
    case cudaGraphNodeTypeGraph:
      return body_run (n->child);
    case cudaGraphNodeTypeConditional:
      return conditional_run (n);
    case cudaGraphNodeTypeEventRecord:
      return cudaEventRecord (n->event, NULL);
    default:   /* empty, event wait, memory allocation and free */
      return cudaSuccess;
    }
}

static cudaError_t
graph_run (const struct CUgraph_st *graph, const GPtrArray *order)
{
  if (order->len < graph->nodes->len)
    return ms_cuda_fail (cudaErrorInvalidValue);
  for (guint i = 0; i < order->len; i++)
    {
      cudaError_t e = node_run (order->pdata[i]);
      if (e != cudaSuccess)
        return e;
    }
  return cudaSuccess;
}

/* ------------------------------------------------------------ graphs */

static void
registry (void)
{
  if (g.graphs != NULL)
    return;
  g.graphs = g_hash_table_new_full (NULL, NULL, graph_free, NULL);
  g.bodies = g_hash_table_new (NULL, NULL);
  g.conds = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g.execs = g_hash_table_new (NULL, NULL);
  g.streams = g_hash_table_new (NULL, NULL);
  g.events = g_hash_table_new (NULL, NULL);
}

static void
exec_free (gpointer p)
{
  struct CUgraphExec_st *x = p;
  graph_free (x->graph);
  g_ptr_array_unref (x->order);
  g_free (x);
}

void
ms_graph_end (void)
{
  if (g.graphs == NULL)
    return;
  g_hash_table_destroy (g.graphs);
  g_hash_table_destroy (g.bodies);
  g_hash_table_destroy (g.conds);
  ms_emulator_graph_conditionals (NULL);
  GHashTableIter it;
  gpointer x;
  g_hash_table_iter_init (&it, g.execs);
  while (g_hash_table_iter_next (&it, &x, NULL))
    exec_free (x);
  g_hash_table_destroy (g.execs);
  g_hash_table_iter_init (&it, g.streams);
  GHashTable *freed = g_hash_table_new (NULL, NULL);
  while (g_hash_table_iter_next (&it, NULL, &x))
    if (g_hash_table_add (freed, x))
      {
        Capture *c = x;
        g_hash_table_destroy (c->last);
        g_free (c);
      }
  g_hash_table_destroy (freed);
  g_hash_table_destroy (g.streams);
  g_hash_table_destroy (g.events);
  memset (&g, 0, sizeof g);
}

cudaError_t
cudaGraphCreate (cudaGraph_t *graph, unsigned flags)
{
  MS_CUDA_LOCKED;
  if (graph == NULL || flags != 0)
    return ms_cuda_fail (cudaErrorInvalidValue);
  registry ();
  *graph = graph_new ();
  g_hash_table_add (g.graphs, *graph);
  return cudaSuccess;
}

cudaError_t
cudaGraphDestroy (cudaGraph_t graph)
{
  MS_CUDA_LOCKED;
  if (!graph_known (graph))
    return ms_cuda_fail (cudaErrorInvalidValue);
  g_hash_table_remove (g.graphs, graph);
  return cudaSuccess;
}

/* The start of every cudaGraphAdd*Node: a node of graph after deps, or
 * NULL with the error in *e. */
static struct CUgraphNode_st *
add_begin (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t n_deps,
           enum cudaGraphNodeType type, cudaError_t *e)
{
  struct CUgraphNode_st *n = NULL;
  if (node != NULL && graph_known (graph) && (deps != NULL || n_deps == 0))
    n = node_add (graph, type, deps, n_deps);
  *e = n ? cudaSuccess : ms_cuda_fail (cudaErrorInvalidValue);
  if (node != NULL)
    *node = n;
  return n;
}

/* Takes back the node add_begin made (its parameters were bad). */
static cudaError_t
add_undo (cudaGraphNode_t *node, cudaGraph_t graph, cudaError_t e)
{
  struct CUgraphNode_st *n = *node;
  n->type = cudaGraphNodeTypeEmpty;
  g_ptr_array_remove_index (graph->nodes, n->index);
  *node = NULL;
  return e;
}

cudaError_t
cudaGraphAddKernelNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                        size_t n_deps, const struct cudaKernelNodeParams *p)
{
  MS_CUDA_LOCKED;
  cudaError_t e;
  struct CUgraphNode_st *n = p ? add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeEmpty, &e)
                               : NULL;
  if (p == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  if (n == NULL)
    return e;
  e = kernel_set (n, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams,
                  p->extra);
  return e == cudaSuccess ? e : add_undo (node, graph, e);
}

cudaError_t
cudaGraphKernelNodeGetParams (cudaGraphNode_t node, struct cudaKernelNodeParams *p)
{
  MS_CUDA_LOCKED;
  if (node == NULL || p == NULL || node->type != cudaGraphNodeTypeKernel)
    return ms_cuda_fail (cudaErrorInvalidValue);
  *p = (struct cudaKernelNodeParams) { (void *) node->kernel.func, node->kernel.grid,
                                       node->kernel.block, (unsigned) node->kernel.shared,
                                       node->kernel.args, NULL };
  return cudaSuccess;
}

cudaError_t
cudaGraphKernelNodeSetParams (cudaGraphNode_t node, const struct cudaKernelNodeParams *p)
{
  MS_CUDA_LOCKED;
  if (node == NULL || p == NULL || node->type != cudaGraphNodeTypeKernel)
    return ms_cuda_fail (cudaErrorInvalidValue);
  return kernel_set (node, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams,
                     p->extra);
}

cudaError_t
cudaGraphAddMemcpyNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                        size_t n_deps, const struct cudaMemcpy3DParms *p)
{
  MS_CUDA_LOCKED;
  cudaError_t e = copy_check (p);
  if (e != cudaSuccess)
    return e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeMemcpy, &e);
  if (n != NULL)
    n->copy = *p;
  return e;
}

/* A one-dimensional copy as a 3D one: one row of `bytes`. */
static struct cudaMemcpy3DParms
copy_1d (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  struct cudaMemcpy3DParms p = { 0 };
  p.srcPtr = (struct cudaPitchedPtr) { (void *) src, bytes, bytes, 1 };
  p.dstPtr = (struct cudaPitchedPtr) { dst, bytes, bytes, 1 };
  p.extent = (struct cudaExtent) { bytes, 1, 1 };
  p.kind = kind;
  return p;
}

cudaError_t
cudaGraphAddMemcpyNode1D (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                          size_t n_deps, void *dst, const void *src, size_t bytes,
                          enum cudaMemcpyKind kind)
{
  struct cudaMemcpy3DParms p = copy_1d (dst, src, bytes, kind);
  return cudaGraphAddMemcpyNode (node, graph, deps, n_deps, &p);
}

static cudaError_t
memset_check (const struct cudaMemsetParams *p)
{
  if (p == NULL || p->dst == NULL
      || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
      || (p->height > 1 && p->pitch < p->width * p->elementSize))
    return ms_cuda_fail (cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t
cudaGraphAddMemsetNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                        size_t n_deps, const struct cudaMemsetParams *p)
{
  MS_CUDA_LOCKED;
  cudaError_t e = memset_check (p);
  if (e != cudaSuccess)
    return e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeMemset, &e);
  if (n != NULL)
    n->set = *p;
  return e;
}

cudaError_t
cudaGraphAddHostNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                      size_t n_deps, const struct cudaHostNodeParams *p)
{
  MS_CUDA_LOCKED;
  if (p == NULL || p->fn == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  cudaError_t e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeHost, &e);
  if (n != NULL)
    n->host = *p;
  return e;
}

cudaError_t
cudaGraphHostNodeGetParams (cudaGraphNode_t node, struct cudaHostNodeParams *p)
{
  MS_CUDA_LOCKED;
  if (node == NULL || p == NULL || node->type != cudaGraphNodeTypeHost)
    return ms_cuda_fail (cudaErrorInvalidValue);
  *p = node->host;
  return cudaSuccess;
}

cudaError_t
cudaGraphAddChildGraphNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                            size_t n_deps, cudaGraph_t child)
{
  MS_CUDA_LOCKED;
  if (!graph_known (child) || child == graph)
    return ms_cuda_fail (cudaErrorInvalidValue);
  cudaError_t e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeGraph, &e);
  if (n != NULL)
    n->child = graph_copy (child);
  return e;
}

cudaError_t
cudaGraphAddEmptyNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                       size_t n_deps)
{
  MS_CUDA_LOCKED;
  cudaError_t e;
  add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeEmpty, &e);
  return e;
}

cudaError_t
cudaGraphAddMemAllocNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                          size_t n_deps, struct cudaMemAllocNodeParams *p)
{
  MS_CUDA_LOCKED;
  if (p == NULL || p->bytesize == 0)
    return ms_cuda_fail (cudaErrorInvalidValue);
  void *ptr = NULL;
  cudaError_t e = ms_cuda_graph_malloc (&ptr, p->bytesize);
  if (e != cudaSuccess)
    return e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeMemAlloc, &e);
  if (n != NULL)
    {
      n->mem.ptr = p->dptr = ptr;
      n->mem.bytes = p->bytesize;
      g.graph_memory += p->bytesize;
    }
  return e;
}

cudaError_t
cudaGraphAddMemFreeNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t n_deps, void *ptr)
{
  MS_CUDA_LOCKED;
  if (ptr == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  cudaError_t e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeMemFree, &e);
  if (n != NULL)
    n->mem.ptr = ptr;
  return e;
}

/* An event record or wait node. */
static cudaError_t
add_event_node (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                size_t n_deps, cudaEvent_t event, enum cudaGraphNodeType type)
{
  MS_CUDA_LOCKED;
  if (event == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  cudaError_t e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, type, &e);
  if (n != NULL)
    n->event = event;
  return e;
}

cudaError_t
cudaGraphAddEventRecordNode (cudaGraphNode_t *node, cudaGraph_t graph,
                             const cudaGraphNode_t *deps, size_t n_deps, cudaEvent_t event)
{
  return add_event_node (node, graph, deps, n_deps, event, cudaGraphNodeTypeEventRecord);
}

cudaError_t
cudaGraphAddEventWaitNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                           size_t n_deps, cudaEvent_t event)
{
  return add_event_node (node, graph, deps, n_deps, event, cudaGraphNodeTypeWaitEvent);
}

/* The generic form: each type as its own function does it. */
/* A conditional node and its empty body graphs, which the program fills
 * (p->phGraph_out). */
static cudaError_t
add_conditional (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                 size_t n_deps, struct cudaConditionalNodeParams *p)
{
  MS_CUDA_LOCKED;
  registry ();
  guint most = p->type == cudaGraphCondTypeWhile ? 1 : p->type == cudaGraphCondTypeIf ? 2
               : p->type == cudaGraphCondTypeSwitch ? G_MAXUINT16 : 0;
  if (!g_hash_table_contains (g.conds, GSIZE_TO_POINTER (p->handle)) || p->size < 1
      || p->size > most)
    return ms_cuda_fail (cudaErrorInvalidValue);
  cudaError_t e;
  struct CUgraphNode_st *n = add_begin (node, graph, deps, n_deps, cudaGraphNodeTypeConditional, &e);
  if (n == NULL)
    return e;
  n->cond.handle = p->handle;
  n->cond.type = p->type;
  n->cond.size = p->size;
  n->cond.bodies = g_new0 (struct CUgraph_st *, p->size);
  for (guint i = 0; i < p->size; i++)
    {
      n->cond.bodies[i] = graph_new ();
      g_hash_table_add (g.bodies, n->cond.bodies[i]);
    }
  p->phGraph_out = n->cond.bodies;
  return cudaSuccess;
}

/* Device code's cudaGraphSetConditional (the emulator's hook; a launch's
 * workers may call it at once: the last store stays, as CUDA leaves
 * racing calls undefined). */
static gboolean
conditional_set (guint64 handle, guint32 value)
{
  Cond *c = g.conds ? g_hash_table_lookup (g.conds, GSIZE_TO_POINTER (handle)) : NULL;
  if (c == NULL)
    return FALSE;
  __atomic_store_n (&c->value, value, __ATOMIC_RELAXED);
  return TRUE;
}

cudaError_t
cudaGraphConditionalHandleCreate (cudaGraphConditionalHandle *handle, cudaGraph_t graph,
                                  unsigned initial, unsigned flags)
{
  MS_CUDA_LOCKED;
  if (handle == NULL || !graph_known (graph) || (flags & ~(unsigned) cudaGraphCondAssignDefault))
    return ms_cuda_fail (cudaErrorInvalidValue);
  Cond *c = g_new0 (Cond, 1);
  c->value = c->initial = initial;
  c->assign_default = (flags & cudaGraphCondAssignDefault) != 0;
  *handle = g_hash_table_size (g.conds) + 1;
  g_hash_table_insert (g.conds, GSIZE_TO_POINTER (*handle), c);
  ms_emulator_graph_conditionals (conditional_set);
  return cudaSuccess;
}

/* The handles of graph's conditional nodes (and their bodies' and child
 * graphs') that asked for it take their default value: a launch begins. */
static void
conditional_defaults (const struct CUgraph_st *graph)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const struct CUgraphNode_st *n = graph->nodes->pdata[i];
      if (n->type == cudaGraphNodeTypeGraph)
        conditional_defaults (n->child);
      if (n->type != cudaGraphNodeTypeConditional)
        continue;
      Cond *c = g_hash_table_lookup (g.conds, GSIZE_TO_POINTER (n->cond.handle));
      if (c->assign_default)
        c->value = c->initial;
      for (guint b = 0; b < n->cond.size; b++)
        conditional_defaults (n->cond.bodies[b]);
    }
}

cudaError_t
cudaGraphAddNode (cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                  const cudaGraphEdgeData *edges, size_t n_deps, struct cudaGraphNodeParams *p)
{
  if (p == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  switch (p->type)
    {
    case cudaGraphNodeTypeKernel:
      {
        struct cudaKernelNodeParams k = { p->kernel.func, p->kernel.gridDim, p->kernel.blockDim,
                                          p->kernel.sharedMemBytes, p->kernel.kernelParams,
                                          p->kernel.extra };
        return cudaGraphAddKernelNode (node, graph, deps, n_deps, &k);
      }
    case cudaGraphNodeTypeMemcpy:
      return cudaGraphAddMemcpyNode (node, graph, deps, n_deps, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
      {
        struct cudaMemsetParams s = { p->memset.dst, p->memset.pitch, p->memset.value,
                                      p->memset.elementSize, p->memset.width, p->memset.height };
        return cudaGraphAddMemsetNode (node, graph, deps, n_deps, &s);
      }
    case cudaGraphNodeTypeHost:
      {
        struct cudaHostNodeParams h = { p->host.fn, p->host.userData };
        return cudaGraphAddHostNode (node, graph, deps, n_deps, &h);
      }
    case cudaGraphNodeTypeGraph:
      return cudaGraphAddChildGraphNode (node, graph, deps, n_deps, p->graph.graph);
    case cudaGraphNodeTypeEmpty:
      return cudaGraphAddEmptyNode (node, graph, deps, n_deps);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphAddEventRecordNode (node, graph, deps, n_deps, p->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphAddEventWaitNode (node, graph, deps, n_deps, p->eventWait.event);
    case cudaGraphNodeTypeMemAlloc:
      {
        struct cudaMemAllocNodeParams a = { p->alloc.poolProps, p->alloc.accessDescs,
                                            p->alloc.accessDescCount, p->alloc.bytesize, NULL };
        cudaError_t e = cudaGraphAddMemAllocNode (node, graph, deps, n_deps, &a);
        p->alloc.dptr = a.dptr;
        return e;
      }
    case cudaGraphNodeTypeMemFree:
      return cudaGraphAddMemFreeNode (node, graph, deps, n_deps, p->free.dptr);
    case cudaGraphNodeTypeConditional:
      return add_conditional (node, graph, deps, n_deps, &p->conditional);
    default:
      return ms_cuda_fail (cudaErrorNotSupported);
    }
}

cudaError_t
cudaGraphClone (cudaGraph_t *clone, cudaGraph_t graph)
{
  MS_CUDA_LOCKED;
  if (clone == NULL || !graph_known (graph))
    return ms_cuda_fail (cudaErrorInvalidValue);
  *clone = graph_copy (graph);
  g_hash_table_add (g.graphs, *clone);
  return cudaSuccess;
}

cudaError_t
cudaGraphNodeGetType (cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
  if (node == NULL || type == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  *type = node->type;
  return cudaSuccess;
}

/* The nodes of graph that pass `keep` (all when NULL), as CUDA lists them:
 * nodes NULL asks for the count alone. */
static cudaError_t
list_nodes (cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count, gboolean roots_only)
{
  MS_CUDA_LOCKED;
  if (count == NULL || !graph_known (graph))
    return ms_cuda_fail (cudaErrorInvalidValue);
  size_t k = 0;
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      struct CUgraphNode_st *n = graph->nodes->pdata[i];
      if (roots_only && n->deps->len > 0)
        continue;
      if (nodes != NULL && k < *count)
        nodes[k] = n;
      k++;
    }
  if (nodes == NULL || k < *count)
    *count = k;
  return cudaSuccess;
}

cudaError_t
cudaGraphGetNodes (cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
  return list_nodes (graph, nodes, count, FALSE);
}

cudaError_t
cudaGraphGetRootNodes (cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
  return list_nodes (graph, nodes, count, TRUE);
}

cudaError_t
cudaGraphAddDependencies (cudaGraph_t graph, const cudaGraphNode_t *from,
                          const cudaGraphNode_t *to, const cudaGraphEdgeData *edges, size_t n)
{
  MS_CUDA_LOCKED;
  if (!graph_known (graph) || (n > 0 && (from == NULL || to == NULL)))
    return ms_cuda_fail (cudaErrorInvalidValue);
  for (size_t i = 0; i < n; i++)
    g_ptr_array_add (to[i]->deps, from[i]);
  g_autoptr (GPtrArray) order = graph_order (graph);
  if (order->len < graph->nodes->len)   /* a cycle: take the edges back */
    {
      for (size_t i = n; i-- > 0;)
        g_ptr_array_remove_index (to[i]->deps, to[i]->deps->len - 1);
      return ms_cuda_fail (cudaErrorInvalidValue);
    }
  return cudaSuccess;
}

/* ------------------------------------------------------------ executable graphs */

cudaError_t
cudaGraphInstantiate (cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
  MS_CUDA_LOCKED;
  if (exec == NULL || !graph_known (graph))
    return ms_cuda_fail (cudaErrorInvalidValue);
  struct CUgraphExec_st *x = g_new0 (struct CUgraphExec_st, 1);
  x->graph = graph_copy (graph);
  x->order = graph_order (x->graph);
  g_hash_table_add (g.execs, x);
  *exec = x;
  return cudaSuccess;
}

cudaError_t
cudaGraphInstantiateWithFlags (cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
  return cudaGraphInstantiate (exec, graph, flags);
}

static gboolean
exec_known (cudaGraphExec_t exec)
{
  return exec != NULL && g.execs != NULL && g_hash_table_contains (g.execs, exec);
}

/* The node of exec made from node of its graph, or NULL. */
static struct CUgraphNode_st *
exec_node (cudaGraphExec_t exec, cudaGraphNode_t node)
{
  if (!exec_known (exec) || node == NULL || node->index >= exec->graph->nodes->len)
    return NULL;
  struct CUgraphNode_st *n = exec->graph->nodes->pdata[node->index];
  return n->type == node->type ? n : NULL;
}

cudaError_t
cudaGraphExecKernelNodeSetParams (cudaGraphExec_t exec, cudaGraphNode_t node,
                                  const struct cudaKernelNodeParams *p)
{
  MS_CUDA_LOCKED;
  struct CUgraphNode_st *n = exec_node (exec, node);
  if (n == NULL || p == NULL || n->type != cudaGraphNodeTypeKernel)
    return ms_cuda_fail (cudaErrorInvalidValue);
  return kernel_set (n, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams,
                     p->extra);
}

cudaError_t
cudaGraphExecHostNodeSetParams (cudaGraphExec_t exec, cudaGraphNode_t node,
                                const struct cudaHostNodeParams *p)
{
  MS_CUDA_LOCKED;
  struct CUgraphNode_st *n = exec_node (exec, node);
  if (n == NULL || p == NULL || p->fn == NULL || n->type != cudaGraphNodeTypeHost)
    return ms_cuda_fail (cudaErrorInvalidValue);
  n->host = *p;
  return cudaSuccess;
}

/* The graph's parameters into exec, where both have the same nodes of the
 * same types (CUDA's rule, simplified: the same order too). */
cudaError_t
cudaGraphExecUpdate (cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info)
{
  MS_CUDA_LOCKED;
  if (!exec_known (exec) || !graph_known (graph))
    return ms_cuda_fail (cudaErrorInvalidValue);
  if (info != NULL)
    memset (info, 0, sizeof *info);
  gboolean same = exec->graph->nodes->len == graph->nodes->len;
  for (guint i = 0; same && i < graph->nodes->len; i++)
    {
      const struct CUgraphNode_st *a = exec->graph->nodes->pdata[i], *b = graph->nodes->pdata[i];
      same = a->type == b->type && a->deps->len == b->deps->len
             && (a->type != cudaGraphNodeTypeKernel || a->kernel.func == b->kernel.func);
      if (!same && info != NULL)
        {
          info->result = a->type != b->type ? cudaGraphExecUpdateErrorNodeTypeChanged
                         : a->deps->len != b->deps->len ? cudaGraphExecUpdateErrorTopologyChanged
                                                         : cudaGraphExecUpdateErrorFunctionChanged;
          info->errorNode = (cudaGraphNode_t) b;
        }
    }
  if (!same)
    {
      if (info != NULL && info->result == cudaGraphExecUpdateSuccess)
        info->result = cudaGraphExecUpdateErrorTopologyChanged;
      return ms_cuda_fail (cudaErrorGraphExecUpdateFailure);
    }
  graph_free (exec->graph);
  g_ptr_array_unref (exec->order);
  exec->graph = graph_copy (graph);
  exec->order = graph_order (exec->graph);
  return cudaSuccess;
}

cudaError_t
cudaGraphLaunch (cudaGraphExec_t exec, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  if (!exec_known (exec))
    return ms_cuda_fail (cudaErrorInvalidValue);
  if (ms_graph_capturing (stream))   /* a launch captured: the graph as a child */
    return ms_cuda_fail (cudaErrorNotSupported);
  conditional_defaults (exec->graph);
  return graph_run (exec->graph, exec->order);
}

cudaError_t
cudaGraphUpload (cudaGraphExec_t exec, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return exec_known (exec) ? cudaSuccess : ms_cuda_fail (cudaErrorInvalidValue);
}

cudaError_t
cudaGraphExecDestroy (cudaGraphExec_t exec)
{
  MS_CUDA_LOCKED;
  if (!exec_known (exec))
    return ms_cuda_fail (cudaErrorInvalidValue);
  g_hash_table_remove (g.execs, exec);
  exec_free (exec);
  return cudaSuccess;
}

/* A Graphviz file of the graph's nodes and dependencies, as CUDA writes
 * one (simpler labels). */
cudaError_t
cudaGraphDebugDotPrint (cudaGraph_t graph, const char *path, unsigned flags)
{
  MS_CUDA_LOCKED;
  if (!graph_known (graph) || path == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  static const char *const names[] = { "kernel", "memcpy", "memset", "host", "graph", "empty",
                                       "wait event", "record event" };
  g_autoptr (GString) dot = g_string_new ("digraph graph {\n");
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const struct CUgraphNode_st *n = graph->nodes->pdata[i];
      g_string_append_printf (dot, "  n%u [label=\"%u: %s\"];\n", i, i,
                              (guint) n->type < G_N_ELEMENTS (names) ? names[n->type] : "memory");
      for (guint d = 0; d < n->deps->len; d++)
        g_string_append_printf (dot, "  n%u -> n%u;\n",
                                ((struct CUgraphNode_st *) n->deps->pdata[d])->index, i);
    }
  g_string_append (dot, "}\n");
  return g_file_set_contents (path, dot->str, (gssize) dot->len, NULL)
           ? cudaSuccess : ms_cuda_fail (cudaErrorInvalidValue);
}

/* ------------------------------------------------------------ stream capture */

static Capture *
capture_of (cudaStream_t stream)
{
  return stream != NULL && g.streams != NULL ? g_hash_table_lookup (g.streams, stream) : NULL;
}

gboolean
ms_graph_capturing (cudaStream_t stream)
{
  return capture_of (stream) != NULL;
}

static cudaError_t
capture_begin (cudaStream_t stream, struct CUgraph_st *graph, gboolean own)
{
  if (stream == NULL)   /* the legacy default stream cannot be captured */
    return ms_cuda_fail (cudaErrorStreamCaptureUnsupported);
  registry ();
  if (capture_of (stream) != NULL)
    return ms_cuda_fail (cudaErrorIllegalState);
  Capture *c = g_new0 (Capture, 1);
  c->graph = graph;
  c->own_graph = own;
  c->id = ++g.captures;
  c->last = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (g.streams, stream, c);
  return cudaSuccess;
}

cudaError_t
cudaStreamBeginCapture (cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
  MS_CUDA_LOCKED;
  registry ();
  return capture_begin (stream, graph_new (), TRUE);
}

cudaError_t
cudaStreamBeginCaptureToGraph (cudaStream_t stream, cudaGraph_t graph,
                               const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges,
                               size_t n_deps, enum cudaStreamCaptureMode mode)
{
  MS_CUDA_LOCKED;
  if (!graph_known (graph) || n_deps > 1)
    return ms_cuda_fail (cudaErrorInvalidValue);
  cudaError_t e = capture_begin (stream, graph, FALSE);
  if (e == cudaSuccess && n_deps == 1)
    g_hash_table_insert (capture_of (stream)->last, stream, deps[0]);
  return e;
}

cudaError_t
cudaStreamEndCapture (cudaStream_t stream, cudaGraph_t *graph)
{
  MS_CUDA_LOCKED;
  Capture *c = capture_of (stream);
  if (c == NULL)
    return ms_cuda_fail (cudaErrorIllegalState);
  /* (a capture into the program's graph may leave graph NULL) */
  if (graph == NULL && c->own_graph)
    return ms_cuda_fail (cudaErrorInvalidValue);
  /* every stream and event of the capture leaves it */
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, g.streams);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (v == c)
      g_hash_table_iter_remove (&it);
  g_hash_table_iter_init (&it, g.events);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (v == c)
      g_hash_table_iter_remove (&it);
  if (graph != NULL)
    *graph = c->graph;
  if (c->own_graph)
    g_hash_table_add (g.graphs, c->graph);
  g_hash_table_destroy (c->last);
  g_free (c);
  return cudaSuccess;
}

cudaError_t
cudaStreamIsCapturing (cudaStream_t stream, enum cudaStreamCaptureStatus *status)
{
  MS_CUDA_LOCKED;
  if (status == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  *status = capture_of (stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

cudaError_t
cudaStreamGetCaptureInfo (cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                          unsigned long long *id, cudaGraph_t *graph,
                          const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                          size_t *n_deps)
{
  MS_CUDA_LOCKED;
  Capture *c = capture_of (stream);
  if (status == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  *status = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (c == NULL)
    return cudaSuccess;
  if (id)
    *id = c->id;
  if (graph)
    *graph = c->graph;
  /* the stream's last node (the pointer lasts until the next call: CUDA's
   * lasts until the next capture call) */
  static cudaGraphNode_t one;
  one = g_hash_table_lookup (c->last, stream);
  if (deps)
    *deps = one ? &one : NULL;
  if (edges)
    *edges = NULL;
  if (n_deps)
    *n_deps = one ? 1 : 0;
  return cudaSuccess;
}

cudaError_t
cudaStreamUpdateCaptureDependencies (cudaStream_t stream, cudaGraphNode_t *deps,
                                     const cudaGraphEdgeData *edges, size_t n_deps,
                                     unsigned flags)
{
  MS_CUDA_LOCKED;
  Capture *c = capture_of (stream);
  if (c == NULL)
    return ms_cuda_fail (cudaErrorIllegalState);
  if (n_deps > 0 && deps == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  /* the stream's next node follows these: an empty node joins them */
  struct CUgraphNode_st *join = node_add (c->graph, cudaGraphNodeTypeEmpty, NULL, 0);
  struct CUgraphNode_st *last = g_hash_table_lookup (c->last, stream);
  if (flags == cudaStreamAddCaptureDependencies && last != NULL)
    g_ptr_array_add (join->deps, last);
  for (size_t i = 0; i < n_deps; i++)
    g_ptr_array_add (join->deps, deps[i]);
  g_hash_table_insert (c->last, stream, join);
  return cudaSuccess;
}

cudaError_t
cudaThreadExchangeStreamCaptureMode (enum cudaStreamCaptureMode *mode)
{
  return mode ? cudaSuccess : ms_cuda_fail (cudaErrorInvalidValue);
}

/* A node of the capture of stream, after the stream's last one. */
static struct CUgraphNode_st *
capture_node (cudaStream_t stream, enum cudaGraphNodeType type)
{
  Capture *c = capture_of (stream);
  struct CUgraphNode_st *last = g_hash_table_lookup (c->last, stream);
  struct CUgraphNode_st *n = node_add (c->graph, type, NULL, 0);
  if (last != NULL)
    g_ptr_array_add (n->deps, last);
  g_hash_table_insert (c->last, stream, n);
  return n;
}

cudaError_t
ms_graph_capture_kernel (cudaStream_t stream, const void *func, dim3 grid, dim3 block,
                         void **args, size_t shared)
{
  struct CUgraphNode_st *n = capture_node (stream, cudaGraphNodeTypeEmpty);
  return kernel_set (n, func, grid, block, shared, args, NULL);
}

cudaError_t
ms_graph_capture_memcpy (cudaStream_t stream, void *dst, const void *src, size_t bytes,
                         enum cudaMemcpyKind kind)
{
  capture_node (stream, cudaGraphNodeTypeMemcpy)->copy = copy_1d (dst, src, bytes, kind);
  return cudaSuccess;
}

cudaError_t
ms_graph_capture_memset (cudaStream_t stream, void *dst, int value, size_t bytes)
{
  struct cudaMemsetParams p = { dst, bytes, (unsigned) value & 0xff, 1, bytes, 1 };
  capture_node (stream, cudaGraphNodeTypeMemset)->set = p;
  return cudaSuccess;
}

cudaError_t
ms_graph_capture_host (cudaStream_t stream, cudaHostFn_t fn, void *data)
{
  struct cudaHostNodeParams p = { fn, data };
  capture_node (stream, cudaGraphNodeTypeHost)->host = p;
  return cudaSuccess;
}

cudaError_t
ms_graph_capture_alloc (cudaStream_t stream, void **ptr, size_t bytes)
{
  cudaError_t e = ms_cuda_graph_malloc (ptr, bytes);
  if (e != cudaSuccess)
    return e;
  struct CUgraphNode_st *n = capture_node (stream, cudaGraphNodeTypeMemAlloc);
  n->mem.ptr = *ptr;
  n->mem.bytes = bytes;
  g.graph_memory += bytes;
  return cudaSuccess;
}

cudaError_t
ms_graph_capture_free (cudaStream_t stream, void *ptr)
{
  capture_node (stream, cudaGraphNodeTypeMemFree)->mem.ptr = ptr;
  return cudaSuccess;
}

void
ms_graph_capture_record (cudaEvent_t event, cudaStream_t stream)
{
  Capture *c = capture_of (stream);
  if (c != NULL && event != NULL)
    {
      g_hash_table_insert (g.events, event, c);
      /* the event stands for the stream's last node so far */
      g_hash_table_insert (c->last, event, g_hash_table_lookup (c->last, stream));
    }
}

void
ms_graph_capture_wait (cudaStream_t stream, cudaEvent_t event)
{
  Capture *c = g.events && event ? g_hash_table_lookup (g.events, event) : NULL;
  if (c == NULL || stream == NULL)
    return;
  Capture *mine = capture_of (stream);
  if (mine != NULL && mine != c)
    return;   /* joining two captures: CUDA refuses; the first one stays */
  g_hash_table_insert (g.streams, stream, c);
  struct CUgraphNode_st *after = g_hash_table_lookup (c->last, event);
  struct CUgraphNode_st *last = g_hash_table_lookup (c->last, stream);
  if (after == NULL)
    return;
  if (last == NULL)
    g_hash_table_insert (c->last, stream, after);
  else
    {
      struct CUgraphNode_st *join = node_add (c->graph, cudaGraphNodeTypeEmpty, NULL, 0);
      g_ptr_array_add (join->deps, last);
      g_ptr_array_add (join->deps, after);
      g_hash_table_insert (c->last, stream, join);
    }
}

/* ------------------------------------------------------------ graphs' memory */

cudaError_t
cudaDeviceGraphMemTrim (int device)
{
  return device == 0 ? cudaSuccess : ms_cuda_fail (cudaErrorInvalidDevice);
}

cudaError_t
cudaDeviceGetGraphMemAttribute (int device, enum cudaGraphMemAttributeType attr, void *value)
{
  MS_CUDA_LOCKED;
  if (device != 0)
    return ms_cuda_fail (cudaErrorInvalidDevice);
  if (value == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  *(guint64 *) value = g.graph_memory;
  return cudaSuccess;
}

cudaError_t
cudaDeviceSetGraphMemAttribute (int device, enum cudaGraphMemAttributeType attr, void *value)
{
  MS_CUDA_LOCKED;
  if (device != 0)
    return ms_cuda_fail (cudaErrorInvalidDevice);
  if (value == NULL)
    return ms_cuda_fail (cudaErrorInvalidValue);
  if (attr == cudaGraphMemAttrUsedMemHigh || attr == cudaGraphMemAttrReservedMemHigh)
    return cudaSuccess;   /* resetting a high-water mark */
  return ms_cuda_fail (cudaErrorInvalidValue);
}
#endif /* MS_CUDA_RUNTIME_API_H */
