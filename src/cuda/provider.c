/*
 * The CUDA backend as a czk_backend_provider (include/czk/groth16.h), the one
 * way the engine reaches it: the composition roots hand &czk_cuda_provider to
 * czk_engine_opts.gpu. Built in both forms of the layer (with CUDA, and over
 * the stand-ins of cuda_absent.c, where built() is false).
 */
#include "czk/cuda.h"

static bool shape_resident(const czk_backend *b, const czk_params *params) {
    czk_cuda_residency r;
    czk_err err;
    return !czk_backend_cuda_residency(b, params, &r, &err) && r.shape_resident;
}

const czk_backend_provider czk_cuda_provider = {
    .name = "cuda",
    .label = "CUDA",
    .built = czk_cuda_built,
    .device_count = czk_cuda_device_count,
    .make = czk_backend_cuda,
    .shape_resident = shape_resident,
    .identify = czk_cuda_device_identity,
};
