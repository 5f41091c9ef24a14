/* Device discovery. Any runtime error (no driver, no device) means zero devices. */
#include "czk/cuda.h"

#include <cuda_runtime.h>

extern "C" int czk_cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" bool czk_cuda_built(void) { return true; }
