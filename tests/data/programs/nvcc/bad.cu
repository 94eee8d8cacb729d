// bad.cu - does not compile: line 5 names nothing declared
#include <cuda_runtime.h>
int main()
{
    return undeclared;
}
