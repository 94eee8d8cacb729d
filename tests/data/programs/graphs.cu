// graphs.cu - CUDA graphs and the runtime's stream extras, each checked
// against a value worked out by hand; prints "graphs: all checks passed".
#include <cstdio>
#include <cstdlib>

__global__ void add(float *a, float v) { a[threadIdx.x] += v; }

static int failures = 0;
static void check(bool ok, const char *what)
{
    if (!ok) {
        printf("FAILED: %s\n", what);
        failures++;
    }
}

static float seen = -1;
static void CUDART_CB host_fn(void *p) { seen = *(float *)p; }
static int callbacks = 0;
static void CUDART_CB callback(cudaStream_t, cudaError_t e, void *) { callbacks += e == cudaSuccess; }

int main()
{
    float *d, h = -1;
    cudaMalloc(&d, 32 * sizeof(float));
    cudaMemset(d, 0, 32 * sizeof(float));
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, -1);
    int prio = 0;
    cudaStreamGetPriority(s2, &prio);
    check(prio == -1, "stream priority");
    // flags kept, as cudaStreamGetFlags gives them back; an unknown flag refused
    cudaStream_t s3, s4;
    unsigned flags = 7;
    check(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking) == cudaSuccess
              && cudaStreamGetFlags(s3, &flags) == cudaSuccess && flags == cudaStreamNonBlocking,
          "stream flags");
    check(cudaStreamCreateWithFlags(&s4, 0x10) == cudaErrorInvalidValue, "unknown stream flag");
    cudaGetLastError();
    cudaStreamDestroy(s3);

    // device attributes: the properties' own values, and the facts of
    // compute capability 9.0 (the CUDA Programming Guide's table of
    // technical specifications: 32 threads a warp, 1 024 a block, 64 K
    // registers and 228 KB of shared memory an SM, 1 KB reserved a block)
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    struct { cudaDeviceAttr a; int want; const char *what; } attrs[] = {
        {cudaDevAttrMultiProcessorCount, prop.multiProcessorCount, "SMs"},
        {cudaDevAttrL2CacheSize, prop.l2CacheSize, "L2 size"},
        {cudaDevAttrMaxThreadsPerMultiProcessor, prop.maxThreadsPerMultiProcessor, "threads an SM"},
        {cudaDevAttrGlobalMemoryBusWidth, prop.memoryBusWidth, "bus width"},
        {cudaDevAttrWarpSize, 32, "warp size"},
        {cudaDevAttrMaxThreadsPerBlock, 1024, "threads a block"},
        {cudaDevAttrComputeCapabilityMajor, 9, "compute capability"},
        {cudaDevAttrComputeCapabilityMinor, 0, "compute capability (minor)"},
        {cudaDevAttrMaxRegistersPerMultiprocessor, 65536, "registers an SM"},
        {cudaDevAttrMaxSharedMemoryPerMultiprocessor, 228 * 1024, "shared memory an SM"},
        {cudaDevAttrReservedSharedMemoryPerBlock, 1024, "reserved shared memory"},
        {cudaDevAttrCooperativeLaunch, 1, "cooperative launch"},
        {cudaDevAttrStreamPrioritiesSupported, 1, "stream priorities"},
    };
    for (auto &t : attrs) {
        int v = -1;
        check(cudaDeviceGetAttribute(&v, t.a, 0) == cudaSuccess && v == t.want, t.what);
    }

    // a capture over two streams: s2's memset joins through events
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);
    cudaGraph_t g;
    cudaGraphExec_t x;
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(s2, fork, 0);
    add<<<1, 32, 0, s1>>>(d, 1.0f);                  // d[i] += 1
    cudaMemsetAsync(d, 0, sizeof(float), s2);         // d[0] = 0
    cudaEventRecord(join, s2);
    cudaStreamWaitEvent(s1, join, 0);
    add<<<1, 32, 0, s1>>>(d, 2.0f);                  // d[i] += 2
    cudaMemcpyAsync(&h, d + 1, sizeof(float), cudaMemcpyDefault, s1);
    cudaLaunchHostFunc(s1, host_fn, &h);
    cudaStreamEndCapture(s1, &g);
    size_t n = 0;
    cudaGraphGetNodes(g, NULL, &n);
    check(n >= 6, "captured nodes");
    check(h == -1, "nothing ran while capturing");
    cudaGraphInstantiate(&x, g, 0);
    cudaGraphLaunch(x, s1);                           // d[1] = 3
    cudaStreamSynchronize(s1);
    check(h == 3 && seen == 3, "first launch of the captured graph");
    cudaGraphLaunch(x, s1);                           // d[1] = 6
    cudaStreamSynchronize(s1);
    check(h == 6 && seen == 6, "second launch of the captured graph");

    // a graph built by hand: an allocation node, a memset, a kernel, a copy
    cudaGraph_t m;
    cudaGraphCreate(&m, 0);
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = 32 * sizeof(float);
    cudaGraphNode_t alloc, set, kern, copy;
    cudaGraphAddMemAllocNode(&alloc, m, NULL, 0, &ap);
    float *p = (float *)ap.dptr;
    cudaMemsetParams sp = {};
    sp.dst = p;
    sp.value = 0;
    sp.elementSize = 4;
    sp.width = 32;
    sp.height = 1;
    cudaGraphAddMemsetNode(&set, m, &alloc, 1, &sp);
    float v = 5.0f;
    void *args[] = {&p, &v};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)add;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&kern, m, &set, 1, &kp);
    v = 100.0f;                                      // the node copied 5
    float out[32];
    cudaGraphAddMemcpyNode1D(&copy, m, &kern, 1, out, p, sizeof out, cudaMemcpyDeviceToHost);
    cudaGraphNode_t rec, bad;
    cudaEvent_t done;
    cudaEventCreate(&done);
    check(cudaGraphAddEventRecordNode(&rec, m, &copy, 1, done) == cudaSuccess, "event record node");
    check(cudaGraphAddEventWaitNode(&bad, m, &copy, 1, NULL) == cudaErrorInvalidValue,
          "an event node without its event");
    cudaGetLastError();
    cudaGraphExec_t mx;
    cudaGraphInstantiate(&mx, m, 0);
    cudaGraphLaunch(mx, s1);
    cudaStreamSynchronize(s1);
    check(out[0] == 5 && out[31] == 5, "a graph built by hand");
    check(cudaEventQuery(done) == cudaSuccess, "the graph recorded its event");
    cudaFree(p);                                      // the node's memory stays for the next launch
    cudaGraphLaunch(mx, s1);
    cudaStreamSynchronize(s1);
    check(out[7] == 5, "a graph's allocation again");

    // stream-ordered allocation, host registration, callbacks
    float *q = NULL;
    cudaMallocAsync(&q, 32 * sizeof(float), s1);
    check(q != NULL, "cudaMallocAsync");
    cudaFreeAsync(q, s1);
    float *mine = (float *)calloc(32, sizeof(float));
    check(cudaHostRegister(mine, 32 * sizeof(float), 0) == cudaSuccess, "cudaHostRegister");
    add<<<1, 32>>>(mine, 4.0f);                       // the program's own memory
    cudaDeviceSynchronize();
    check(mine[31] == 4, "a kernel on registered memory");
    cudaHostUnregister(mine);
    cudaStreamAddCallback(s1, callback, NULL, 0);
    check(callbacks == 1, "stream callback");
    if (failures == 0)
        printf("graphs: all checks passed\n");
    return failures != 0;
}
