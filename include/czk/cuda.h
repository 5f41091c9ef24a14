/*
 * czk — the CUDA backend's C ABI (src/cuda).
 *
 * A build without CUDA, or a machine without a GPU or driver, reports zero
 * devices and czk proves on the CPU. The runtime is linked statically, so the
 * binary starts without libcuda.so.1.
 */
#ifndef CZK_CUDA_H
#define CZK_CUDA_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Usable CUDA devices; 0 without CUDA support, driver or GPU (never fails). */
int czk_cuda_device_count(void);
/* Whether this build contains the CUDA backend. */
bool czk_cuda_built(void);

#ifdef __cplusplus
}
#endif
#endif
