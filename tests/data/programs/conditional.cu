// conditional.cu - CUDA graphs' conditional nodes, each checked by the
// program against what CUDA documents: an if node with an else body, a
// while node whose body counts down (set by device code's
// cudaGraphSetConditional), its handle's default applied at every launch
// (cudaGraphCondAssignDefault), a switch node, and a while body filled by
// stream capture (tests/test-run.c, /run/conditional-graphs).  With an
// argument, a kernel sets a handle no graph made (memsim stops the run).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void set_if_odd(const int *x, cudaGraphConditionalHandle h)
{
    cudaGraphSetConditional(h, *x & 1);
}

__global__ void add(int *counter, int v) { atomicAdd(counter, v); }

__global__ void count_down(int *x, cudaGraphConditionalHandle h)
{
    if (--*x == 0)
        cudaGraphSetConditional(h, 0);
}

__global__ void set_value(const int *x, cudaGraphConditionalHandle h)
{
    cudaGraphSetConditional(h, *x);
}

static void kernel_node(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dep,
                        void *func, void **args)
{
    cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
    p.kernel.func = func;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(1);
    p.kernel.kernelParams = args;
    cudaGraphAddNode(node, graph, dep, NULL, dep ? 1 : 0, &p);
}

static cudaGraph_t *cond_node(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dep,
                              cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type,
                              unsigned size)
{
    cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    if (cudaGraphAddNode(node, graph, dep, NULL, dep ? 1 : 0, &p) != cudaSuccess)
        return NULL;
    return p.conditional.phGraph_out;
}

static int read(const int *d)
{
    int h;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    return h;
}

int main(int argc, char **argv)
{
    int *x, *counter, bad = 0;
    cudaMalloc(&x, sizeof(int));
    cudaMalloc(&counter, sizeof(int));
    if (argc > 1) {
        set_value<<<1, 1>>>(x, 12345);
        return cudaDeviceSynchronize() == cudaSuccess;
    }
    cudaGraphNode_t a, c, body;
    cudaGraphExec_t exec;

    // if x is odd: counter += 1, else counter += 100
    cudaGraph_t g1;
    cudaGraphCreate(&g1, 0);
    cudaGraphConditionalHandle h1;
    cudaGraphConditionalHandleCreate(&h1, g1);
    void *a1[] = {&x, &h1};
    kernel_node(&a, g1, NULL, (void *) set_if_odd, a1);
    cudaGraph_t *b1 = cond_node(&c, g1, &a, h1, cudaGraphCondTypeIf, 2);
    int one = 1, hundred = 100;
    void *then_args[] = {&counter, &one}, *else_args[] = {&counter, &hundred};
    kernel_node(&body, b1[0], NULL, (void *) add, then_args);
    kernel_node(&body, b1[1], NULL, (void *) add, else_args);
    cudaGraphInstantiate(&exec, g1, 0);
    cudaMemset(counter, 0, sizeof(int));
    for (int v = 0; v < 3; v++) {   // 0: else, 1: then, 2: else
        cudaMemcpy(x, &v, sizeof v, cudaMemcpyHostToDevice);
        cudaGraphLaunch(exec, 0);
    }
    bad += read(counter) != 201;
    cudaGraphExecDestroy(exec);

    // while (default 1 at every launch): x counts down to 0, counter += 1 each time
    cudaGraph_t g2;
    cudaGraphCreate(&g2, 0);
    cudaGraphConditionalHandle h2;
    cudaGraphConditionalHandleCreate(&h2, g2, 1, cudaGraphCondAssignDefault);
    cudaGraph_t *b2 = cond_node(&c, g2, NULL, h2, cudaGraphCondTypeWhile, 1);
    void *down_args[] = {&x, &h2};
    cudaGraphNode_t d;
    kernel_node(&d, b2[0], NULL, (void *) count_down, down_args);
    kernel_node(&body, b2[0], &d, (void *) add, then_args);
    cudaGraphInstantiate(&exec, g2, 0);
    cudaMemset(counter, 0, sizeof(int));
    for (int launch = 0; launch < 2; launch++) {
        int five = 5;
        cudaMemcpy(x, &five, sizeof five, cudaMemcpyHostToDevice);
        cudaGraphLaunch(exec, 0);
    }
    bad += read(counter) != 10;
    bad += read(x) != 0;
    cudaGraphExecDestroy(exec);

    // switch on x: body n adds 10^n; x = 4 runs no body
    cudaGraph_t g3;
    cudaGraphCreate(&g3, 0);
    cudaGraphConditionalHandle h3;
    cudaGraphConditionalHandleCreate(&h3, g3);
    void *a3[] = {&x, &h3};
    kernel_node(&a, g3, NULL, (void *) set_value, a3);
    cudaGraph_t *b3 = cond_node(&c, g3, &a, h3, cudaGraphCondTypeSwitch, 4);
    int tens[4] = {1, 10, 100, 1000};
    void *sw_args[4][2];
    for (int n = 0; n < 4; n++) {
        sw_args[n][0] = &counter;
        sw_args[n][1] = &tens[n];
        kernel_node(&body, b3[n], NULL, (void *) add, sw_args[n]);
    }
    cudaGraphInstantiate(&exec, g3, 0);
    cudaMemset(counter, 0, sizeof(int));
    for (int v = 0; v <= 4; v++) {
        cudaMemcpy(x, &v, sizeof v, cudaMemcpyHostToDevice);
        cudaGraphLaunch(exec, 0);
    }
    bad += read(counter) != 1111;
    cudaGraphExecDestroy(exec);

    // a while body filled by stream capture; a size the type does not allow
    cudaGraph_t g4;
    cudaGraphCreate(&g4, 0);
    cudaGraphConditionalHandle h4;
    cudaGraphConditionalHandleCreate(&h4, g4, 1, cudaGraphCondAssignDefault);
    bad += cond_node(&c, g4, NULL, h4, cudaGraphCondTypeWhile, 2) != NULL;
    cudaGraph_t *b4 = cond_node(&c, g4, NULL, h4, cudaGraphCondTypeWhile, 1);
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaStreamBeginCaptureToGraph(s, b4[0], NULL, NULL, 0, cudaStreamCaptureModeGlobal);
    count_down<<<1, 1, 0, s>>>(x, h4);
    add<<<1, 1, 0, s>>>(counter, 1);
    bad += cudaStreamEndCapture(s, NULL) != cudaSuccess;
    cudaGraphInstantiate(&exec, g4, 0);
    cudaMemset(counter, 0, sizeof(int));
    int three = 3;
    cudaMemcpy(x, &three, sizeof three, cudaMemcpyHostToDevice);
    cudaGraphLaunch(exec, 0);
    bad += read(counter) != 3;
    cudaGraphExecDestroy(exec);

    fprintf(stderr, bad ? "conditional: %d checks failed\n" : "conditional: all checks passed\n", bad);
    return bad != 0;
}
