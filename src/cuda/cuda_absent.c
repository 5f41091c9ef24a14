/*
 * Stand-ins for the CUDA backend's entry points (include/czk/cuda.h) in a
 * build without CUDA: cmake/cuda.cmake builds the layer czk_cuda from this
 * file alone when nvcc is absent or CZK_CUDA=OFF.
 */
#include "czk/cuda.h"

#include <string.h>

#define NO_CUDA(what) czk_errf(err, CZK_ERR_UNSUPPORTED, "%s: this build has no CUDA backend", what)

int czk_cuda_device_count(void) {
    return 0;
}
bool czk_cuda_params_device_decode(void) {
    return false;
}
czk_status czk_cuda_decode_points(czk_cuda_ctx *ctx, void *points, size_t n, unsigned group,
                                  uint64_t *bad, czk_err *err) {
    (void)ctx, (void)points, (void)n, (void)group;
    *bad = UINT64_MAX;
    return NO_CUDA("decode_points");
}
czk_status czk_cuda_decode_host_check(unsigned group, const uint8_t *enc, size_t n, czk_err *err) {
    (void)group, (void)enc, (void)n;
    return NO_CUDA("decode_host_check");
}
bool czk_cuda_built(void) {
    return false;
}
czk_status czk_cuda_device_identity(int device, czk_device_identity *out, czk_err *err) {
    (void)device;
    memset(out, 0, sizeof *out);
    return NO_CUDA("identify");
}
czk_status czk_cuda_ctx_create(czk_cuda_ctx **out, int device, czk_err *err) {
    (void)device;
    *out = NULL;
    return NO_CUDA("ctx_create");
}
void czk_cuda_ctx_destroy(czk_cuda_ctx *ctx) {
    (void)ctx;
}
const char *czk_cuda_ctx_describe(const czk_cuda_ctx *ctx) {
    (void)ctx;
    return "no CUDA";
}
czk_status czk_cuda_alloc(czk_cuda_ctx *ctx, void **dptr, size_t bytes, czk_err *err) {
    (void)ctx, (void)bytes;
    *dptr = NULL;
    return NO_CUDA("alloc");
}
void czk_cuda_free(czk_cuda_ctx *ctx, void *dptr) {
    (void)ctx, (void)dptr;
}
czk_status czk_cuda_upload(czk_cuda_ctx *ctx, void *dst, const void *src, size_t bytes,
                           czk_err *err) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_CUDA("upload");
}
czk_status czk_cuda_download(czk_cuda_ctx *ctx, void *dst, const void *src, size_t bytes,
                             czk_err *err) {
    (void)ctx, (void)dst, (void)src, (void)bytes;
    return NO_CUDA("download");
}
czk_status czk_cuda_ntt(czk_cuda_ctx *ctx, czk_fr *data, unsigned log_n, czk_ntt_kind kind,
                        czk_err *err) {
    (void)ctx, (void)data, (void)log_n, (void)kind;
    return NO_CUDA("ntt");
}
czk_status czk_cuda_h(czk_cuda_ctx *ctx, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n,
                      czk_err *err) {
    (void)ctx, (void)a, (void)b, (void)c, (void)log_n;
    return NO_CUDA("h");
}
czk_status czk_cuda_msm_g1(czk_cuda_ctx *ctx, czk_g1 *out, const czk_g1_affine *bases,
                           const czk_fr *scalars, size_t n, czk_err *err) {
    (void)ctx, (void)out, (void)bases, (void)scalars, (void)n;
    return NO_CUDA("msm_g1");
}
czk_status czk_cuda_msm_g2(czk_cuda_ctx *ctx, czk_g2 *out, const czk_g2_affine *bases,
                           const czk_fr *scalars, size_t n, czk_err *err) {
    (void)ctx, (void)out, (void)bases, (void)scalars, (void)n;
    return NO_CUDA("msm_g2");
}
czk_status czk_cuda_fr_random(czk_cuda_ctx *ctx, czk_fr *out, size_t n, uint64_t seed,
                              czk_err *err) {
    (void)ctx, (void)out, (void)n, (void)seed;
    return NO_CUDA("fr_random");
}
czk_status czk_cuda_g1_random_bases(czk_cuda_ctx *ctx, czk_g1_affine *out, size_t n, uint64_t seed,
                                    czk_err *err) {
    (void)ctx, (void)out, (void)n, (void)seed;
    return NO_CUDA("g1_random_bases");
}
czk_status czk_cuda_g2_random_bases(czk_cuda_ctx *ctx, czk_g2_affine *out, size_t n, uint64_t seed,
                                    czk_err *err) {
    (void)ctx, (void)out, (void)n, (void)seed;
    return NO_CUDA("g2_random_bases");
}
czk_status czk_cuda_timer_start(czk_cuda_ctx *ctx, czk_err *err) {
    (void)ctx;
    return NO_CUDA("timer_start");
}
czk_status czk_cuda_timer_stop(czk_cuda_ctx *ctx, double *ms, czk_err *err) {
    (void)ctx;
    *ms = 0;
    return NO_CUDA("timer_stop");
}
uint64_t czk_cuda_shape_device_bytes(const czk_shape *shape) {
    (void)shape;
    return 0;
}
czk_status czk_cuda_shape_upload(czk_cuda_ctx *ctx, czk_cuda_shape **out, const czk_shape *shape,
                                 czk_err *err) {
    (void)ctx, (void)shape;
    *out = NULL;
    return NO_CUDA("shape_upload");
}
void czk_cuda_shape_free(czk_cuda_ctx *ctx, czk_cuda_shape *dshape) {
    (void)ctx, (void)dshape;
}
czk_status czk_cuda_spmv(czk_cuda_ctx *ctx, const czk_cuda_shape *dshape, const czk_fr *z,
                         czk_fr *a, czk_fr *b, czk_fr *c, size_t n, czk_err *err) {
    (void)ctx, (void)dshape, (void)z, (void)a, (void)b, (void)c, (void)n;
    return NO_CUDA("spmv");
}
czk_status czk_backend_cuda(czk_backend *out, int device, czk_pool *pool,
                            uint64_t vram_budget_bytes, czk_err *err) {
    (void)device, (void)pool, (void)vram_budget_bytes;
    out->ops = NULL;
    out->self = NULL;
    return NO_CUDA("backend_cuda");
}
czk_status czk_backend_cuda_residency(const czk_backend *b, const czk_params *params,
                                      czk_cuda_residency *out, czk_err *err) {
    (void)b, (void)params;
    memset(out, 0, sizeof *out);
    return NO_CUDA("backend_cuda_residency");
}
czk_status czk_backend_cuda_set_serial_msm(const czk_backend *b, bool serial, czk_err *err) {
    (void)b, (void)serial;
    return NO_CUDA("backend_cuda_set_serial_msm");
}

czk_status czk_backend_cuda_set_packed(const czk_backend *b, bool packed, czk_err *err) {
    (void)b, (void)packed;
    return NO_CUDA("backend_cuda_set_packed");
}

czk_status czk_backend_cuda_set_stream_chunk(const czk_backend *b, size_t points, czk_err *err) {
    (void)b, (void)points;
    return NO_CUDA("backend_cuda_set_stream_chunk");
}
czk_status czk_cuda_fb_create(czk_cuda_fb **out, czk_cuda_ctx *ctx, czk_err *err) {
    (void)ctx;
    *out = NULL;
    return NO_CUDA("fb_create");
}
void czk_cuda_fb_destroy(czk_cuda_fb *fb) {
    (void)fb;
}
czk_status czk_cuda_fb_g1(czk_cuda_fb *fb, void *out, const czk_fr *k, size_t n,
                          czk_cuda_fb_form form, czk_err *err) {
    (void)fb, (void)out, (void)k, (void)n, (void)form;
    return NO_CUDA("fb_g1");
}
czk_status czk_cuda_fb_g2(czk_cuda_fb *fb, void *out, const czk_fr *k, size_t n,
                          czk_cuda_fb_form form, czk_err *err) {
    (void)fb, (void)out, (void)k, (void)n, (void)form;
    return NO_CUDA("fb_g2");
}
czk_status czk_cuda_fb_host_check(unsigned group, const czk_fr *k, size_t n, czk_err *err) {
    (void)group, (void)k, (void)n;
    return NO_CUDA("fb_host_check");
}
czk_status czk_setup_backend_cuda(czk_setup_backend *out, int device, czk_err *err) {
    (void)device;
    out->ops = NULL;
    out->self = NULL;
    return NO_CUDA("setup_backend_cuda");
}
czk_status czk_cuda_g1_ntt(void *ctx, czk_g1_affine *out, const czk_g1_affine *in, size_t n_used,
                           unsigned log_n, const czk_fr *c, const czk_fr *step, const czk_fr *rho,
                           czk_err *err) {
    (void)ctx, (void)out, (void)in, (void)n_used, (void)log_n, (void)c, (void)step, (void)rho;
    return NO_CUDA("g1_ntt");
}
