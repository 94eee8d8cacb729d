MemcpyHtoD,0x00007f0000000000,4096
MemcpyHtoD,0xzz,5
kernel-1.traceg
