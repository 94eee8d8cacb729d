// scale.h - what host.cpp calls in kernels.cu
void launchScale(float *x, float factor, int n);
