/* Stand-ins for the CUDA backend's entry points in a build without CUDA. */
#include "czk/cuda.h"

#ifndef CZK_HAVE_CUDA
int czk_cuda_device_count(void) {
    return 0;
}
bool czk_cuda_built(void) {
    return false;
}
#endif
