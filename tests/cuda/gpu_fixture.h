/*
 * The GPU tests' shared fixture: one CUDA context on device 0 and a host
 * pool for the CPU reference, made by setup() when a GPU is present; tests
 * start with NEED_GPU(), which skips them on a machine without one.
 * Include once per test program, inside #ifdef CZK_HAVE_CUDA.
 */
#ifndef CZK_TESTS_CUDA_GPU_FIXTURE_H
#define CZK_TESTS_CUDA_GPU_FIXTURE_H

#include "czk/cuda.h"
#include "czk/pool.h"

static czk_cuda_ctx *ctx;
static czk_pool *pool;

static int setup(void **state) {
    (void)state;
    if (czk_cuda_device_count() == 0) return 0;
    czk_err err;
    if (czk_cuda_ctx_create(&ctx, 0, &err) != CZK_OK) {
        print_error("ctx_create: %s\n", err.msg);
        return -1;
    }
    print_message("device: %s\n", czk_cuda_ctx_describe(ctx));
    pool = czk_pool_create(czk_cpu_count(), &err);
    return pool ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    czk_cuda_ctx_destroy(ctx);
    czk_pool_destroy(pool);
    return 0;
}

#define NEED_GPU()                                                                                 \
    do {                                                                                           \
        if (!ctx) skip();                                                                          \
    } while (0)

#endif
