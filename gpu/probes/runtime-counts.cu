// runtime-counts.cu - what the device runtime's own code adds to Nsight
// Compute's counters: printf with 0, 1 and 3 int arguments from 1, 8 and
// 32 lanes of one warp, from 4 warps, twice in a row; other argument
// types and counts, longer formats; malloc and free from 1 and 32 lanes.  One launch per case; profile each with
//   ncu --clock-control none --metrics smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,...
#include <cstdio>
#include <cstring>

template <int ARGS> __global__ void
print (int lanes, int times)
{
  int lane = threadIdx.x % 32;
  for (int t = 0; t < times; t++)
    if (lane < lanes)
      {
        if (ARGS == 0)
          printf ("x\n");
        else if (ARGS == 1)
          printf ("%d\n", lane);
        else
          printf ("%d %d %d\n", lane, t, (int) blockIdx.x);
      }
}

// CASE: the format and arguments of each other case, from `lanes` lanes
__global__ void
print_case (int c, int lanes)
{
  int lane = threadIdx.x % 32;
  if (lane >= lanes)
    return;
  double d = lane * 0.5;
  long long l = lane;
  switch (c)
    {
    case 0: printf ("%f\n", d); break;
    case 1: printf ("%lld\n", l); break;
    case 2: printf ("%s\n", "abc"); break;
    case 3: printf ("%c%c\n", 'a' + lane, 'b'); break;
    case 4: printf ("%d %d %d %d %d %d\n", lane, 1, 2, 3, 4, 5); break;
    case 5: printf ("100%%\n"); break;
    case 6: printf ("a format of sixty-four characters, no argument, one newline\n"); break;
    case 7: printf ("%d %f %d\n", lane, d, lane); break;
    case 8: printf ("%p\n", (void *) &d); break;
    }
}

__global__ void
alloc (int lanes, int bytes, int **keep)
{
  int lane = threadIdx.x % 32;
  if (lane < lanes)
    {
      int *p = (int *) malloc (bytes);
      if (p)
        p[0] = lane;
      keep[threadIdx.x] = p;
      free (p);
    }
}

int
main ()
{
  int **keep;
  cudaMalloc (&keep, 1024 * sizeof (int *));
  const int lanes[] = { 1, 8, 32 };
  for (int l : lanes) print<0><<<1, 32>>> (l, 1);
  for (int l : lanes) print<1><<<1, 32>>> (l, 1);
  for (int l : lanes) print<3><<<1, 32>>> (l, 1);
  print<3><<<1, 128>>> (8, 1);
  print<3><<<4, 32>>> (8, 1);
  print<3><<<1, 32>>> (8, 2);
  for (int c = 0; c < 9; c++) print_case<<<1, 32>>> (c, 1);
  print_case<<<1, 32>>> (6, 16);
  print_case<<<1, 32>>> (7, 16);
  for (int l : lanes) alloc<<<1, 32>>> (l, 16, keep);
  alloc<<<1, 32>>> (32, 4096, keep);
  cudaDeviceSynchronize ();
  fprintf (stderr, "runtime-counts: done\n");
  return 0;
}
