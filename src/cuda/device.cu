/*
 * Device discovery, the context (stream, events, NTT tables), device memory
 * and timing. Any runtime error during discovery (no driver, no device) means
 * zero devices; everywhere else CUDA errors become czk_status (ctx.cuh).
 */
#include "ctx.cuh"
#include "cuda/internal.h"

#include <stdlib.h>
#include <string.h>

namespace czkg {

czk_status cuda_fail(czk_err *err, cudaError_t e, const char *step) {
    czk_status st = e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE;
    (void)cudaGetLastError(); /* clear it where it is not sticky */
    return czk_errf(err, st, "%s: %s (%s)", step, cudaGetErrorName(e), cudaGetErrorString(e));
}

} // namespace czkg

using namespace czkg;

extern "C" int czk_cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" bool czk_cuda_built(void) {
    return true;
}

extern "C" czk_status czk_cuda_device_identity(int device, czk_device_identity *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    int n = czk_cuda_device_count();
    if (device < 0 || device >= n)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "identify: device %d of %d", device, n);
    cudaDeviceProp prop;
    CZK_CU(cudaGetDeviceProperties(&prop, device), "identify: properties of device %d", device);
    /* at most what fits (and never past prop.name, which need not end in a NUL) */
    constexpr size_t name_max =
        sizeof out->name - 1 < sizeof prop.name ? sizeof out->name - 1 : sizeof prop.name;
    snprintf(out->name, sizeof out->name, "%.*s", (int)name_max, prop.name);
    /* nvidia-smi's form: GPU-8-4-4-4-12 hex digits of the 16 bytes in order */
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", u[i]);
    snprintf(out->uuid, sizeof out->uuid, "GPU-%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
             hex + 16, hex + 20);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.0",
             (unsigned)prop.pciDomainID, (unsigned)prop.pciBusID, (unsigned)prop.pciDeviceID);
    out->vram_total_bytes = (uint64_t)prop.totalGlobalMem;
    return CZK_OK;
}

/* Tunable `var`: unset or empty leaves *out; names[k] sets values[k]; anything else is
 * CZK_ERR_INVALID_ARG "ctx_create: VAR=value is not a, b or c". */
static czk_status env_choice(const char *var, const char *const *names, const int *values,
                             int count, int *out, czk_err *err) {
    const char *v = getenv(var);
    if (!v || !*v) return CZK_OK;
    char list[160] = "";
    for (int k = 0; k < count; k++) {
        if (!strcmp(v, names[k])) {
            *out = values[k];
            return CZK_OK;
        }
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s",
                 k == 0           ? ""
                 : k + 1 == count ? " or "
                                  : ", ",
                 names[k]);
    }
    return czk_errf(err, CZK_ERR_INVALID_ARG, "ctx_create: %s=%s is not %s", var, v, list);
}

extern "C" czk_status czk_cuda_env_range(const char *who, const char *var, long lo, long hi,
                                         long *out, czk_err *err) {
    const char *v = getenv(var);
    if (!v || !*v) return CZK_OK;
    char *e = NULL;
    long x = strtol(v, &e, 10);
    if (*e || x < lo || x > hi)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: %s=%s is not in %ld..%ld", who, var, v, lo,
                        hi);
    *out = x;
    return CZK_OK;
}

static czk_status ctx_init(czk_cuda_ctx *ctx, int device, czk_err *err) {
    CZK_CU(cudaSetDevice(device), "ctx_create: select device %d", device);
    cudaDeviceProp prop;
    CZK_CU(cudaGetDeviceProperties(&prop, device), "ctx_create: device properties");
    ctx->sm_count = prop.multiProcessorCount;
    snprintf(ctx->describe, sizeof ctx->describe, "%.200s, %d SMs, %.1f GiB, sm_%d%d", prop.name,
             prop.multiProcessorCount, (double)prop.totalGlobalMem / (1u << 30), prop.major,
             prop.minor);
    CZK_CU(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking), "ctx_create: stream");
    CZK_CU(cudaEventCreate(&ctx->ev_start), "ctx_create: event");
    CZK_CU(cudaEventCreate(&ctx->ev_stop), "ctx_create: event");
    CZK_CU(cudaStreamCreateWithFlags(&ctx->stream2, cudaStreamNonBlocking),
           "ctx_create: second stream");
    CZK_CU(cudaEventCreateWithFlags(&ctx->ev_fork, cudaEventDisableTiming), "ctx_create: event");
    CZK_CU(cudaEventCreateWithFlags(&ctx->ev_join, cudaEventDisableTiming), "ctx_create: event");
    /* Keep freed temporaries in the stream-ordered pool between calls. */
    cudaMemPool_t pool;
    CZK_CU(cudaDeviceGetDefaultMemPool(&pool, device), "ctx_create: memory pool");
    uint64_t keep = UINT64_MAX;
    CZK_CU(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
           "ctx_create: memory pool threshold");
    const char *c = getenv("CZK_CUDA_MSM_C");
    if (c && *c) {
        int v = atoi(c);
        if (v < 6 || v > 22)
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "ctx_create: CZK_CUDA_MSM_C=%s is not in 6..22", c);
        ctx->msm_c = v;
    }
    const char *ch = getenv("CZK_CUDA_MSM_CHUNK"); /* benchmark knob: target chunk length */
    if (ch && *ch) {
        int v = atoi(ch);
        if (v < 1 || v > 65536)
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "ctx_create: CZK_CUDA_MSM_CHUNK=%s is not in 1..65536", ch);
        ctx->msm_chunk = (uint32_t)v;
    }
    /* bench/GPU.md: the hybrid took a 32GiB partition from 1.45 to 1.28 s (sixth run), but below
     * 2^22 points it is slower than XYZZ (2^20: 34.0 against 23.7 ms; 2^21: 45.5 against 27.2) */
    ctx->msm_acc = CZK_CUDA_MSM_ACC_AUTO;
    static const char *const twist[] = {"direct", "split"}, *const order[] = {"paired", "natural"};
    static const char *const slots[] = {"1", "2"}, *const transforms[] = {"6", "7"};
    static const char *const digits[] = {"all", "1", "2"}, *const fuse[] = {"1", "0"};
    static const char *const radix[] = {"2", "4"};
    static const char *const strips[] = {"contiguous", "interleaved"};
    static const int strips_v[] = {1, 32};
    static const int twist_v[] = {0, 1}, order_v[] = {0, 1}, slots_v[] = {1, 2},
                     transforms_v[] = {6, 7}, digits_v[] = {64, 1, 2}, fuse_v[] = {1, 0},
                     radix_v[] = {2, 4};
    /* accumulation: 0..3 XYZZ forms, 4 batch-affine, 5 hybrid, 6 auto (internal.h) */
    static const char *const acc[] = {"xyzz", "affine", "hybrid", "auto", "0", "1",
                                      "2",    "3",      "4",      "5",    "6"};
    static const int acc_v[] = {0, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6};
    static_assert(CZK_CUDA_MSM_ACC_AFFINE == 4 && CZK_CUDA_MSM_ACC_HYBRID == 5 &&
                      CZK_CUDA_MSM_ACC_AUTO == 6,
                  "acc_v names the variants by number");
    ctx->h_transforms = 6;
    ctx->h_fuse = 1;
    /* bench/GPU.md twentieth run (H100, each radix its own kernels): radix 2 NTT 2^27 43.96 ms
     * against 44.35, the Lagrange form's H 175.26 against 180.01 */
    ctx->ntt_radix = 2;
    /* bench/GPU.md twenty-fourth run (H200, the 32GiB partition): contiguous MSM H 627-628 ms,
     * wall 1003-1004; interleaved 637-638 ms, wall 1014. The twenty-second run (H100, bench_gpu)
     * found the reverse: MSM G1 2^27 705.5 ms contiguous, 678.2 interleaved. The default is the
     * target card's. */
    int strip_group = 1;
    czk_status st;
    if ((st = env_choice("CZK_CUDA_MSM_ACC", acc, acc_v, 11, &ctx->msm_acc, err)) ||
        (st = env_choice("CZK_CUDA_NTT_TWIST", twist, twist_v, 2, &ctx->ntt_twist, err)) ||
        (st = env_choice("CZK_CUDA_H_ORDER", order, order_v, 2, &ctx->h_order, err)) ||
        /* benchmark knobs: 1 = one window at a time, 2 = two at every size (unset: two from
         * 2^22); 7 = bellperson's sequence of transforms in H */
        (st = env_choice("CZK_CUDA_MSM_SLOTS", slots, slots_v, 2, &ctx->msm_slots, err)) ||
        (st = env_choice("CZK_CUDA_H_TRANSFORMS", transforms, transforms_v, 2, &ctx->h_transforms,
                         err)) ||
        /* benchmark knob: 0 = the Lagrange form's H with its passes separate (ntt.cu) */
        (st = env_choice("CZK_CUDA_H_FUSE", fuse, fuse_v, 2, &ctx->h_fuse, err)) ||
        /* benchmark knob: 4 = two NTT stages per round through shared memory (ntt.cu; slower) */
        (st = env_choice("CZK_CUDA_NTT_RADIX", radix, radix_v, 2, &ctx->ntt_radix, err)) ||
        /* contiguous = a batch-affine strip's outputs consecutive (default), interleaved = over
         * a warp's strips (msm_affine.cuh ba_strip_span; faster on an H100) */
        (st = env_choice("CZK_CUDA_MSM_STRIPS", strips, strips_v, 2, &strip_group, err)))
        return st;
    ctx->msm_strip_group = (uint32_t)strip_group;
    /* benchmark knob: eo = the NTT passes with the generic even/odd reduction instead of Fr's
     * mul_eo_low (field.cuh; bench/GPU.md twenty-fifth run) */
    static const char *const ntt_mul[] = {"low", "eo"};
    static const int ntt_mul_v[] = {0, 1};
    int nm = 0;
    if ((st = env_choice("CZK_CUDA_NTT_MUL", ntt_mul, ntt_mul_v, 2, &nm, err))) return st;
    if (nm && ctx->ntt_radix == 4)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "ctx_create: CZK_CUDA_NTT_MUL=eo runs with CZK_CUDA_NTT_RADIX=2 only");
    ctx->ntt_mul_eo = nm != 0;
    /* the window sums by levels (bench/GPU.md twenty-sixth run): auto = above 2^26 points on
     * the hybrid; and their windows (0: 12 there) */
    static const char *const wsum[] = {"auto", "running", "levels"};
    static const int wsum_v[] = {CZK_CUDA_MSM_WSUM_AUTO, CZK_CUDA_MSM_WSUM_RUNNING,
                                 CZK_CUDA_MSM_WSUM_LEVELS};
    if ((st = env_choice("CZK_CUDA_MSM_WSUM", wsum, wsum_v, 3, &ctx->msm_wsum, err))) return st;
    /* benchmark knob: G1's batch-affine backward passes with Karatsuba's product (ka: in the two
     * products of each addition, ka4: in all four, held to two blocks an SM; msm_affine.cuh
     * ba_backward_launch) */
    static const char *const mul[] = {"eo", "ka", "ka4"};
    static const int mul_v[] = {0, 1, 2};
    if ((st = env_choice("CZK_CUDA_MSM_MUL", mul, mul_v, 3, &ctx->msm_mul, err))) return st;
    long wn = 0;
    if ((st = czk_cuda_env_range("ctx_create", "CZK_CUDA_MSM_WINDOWS", 11, 42, &wn, err)))
        return st;
    ctx->msm_windows = (unsigned)wn;
    /* benchmark knob: the digits of all windows up front, or 1 / 2 windows at a time (unset: all,
     * or two at a time where that lets the second window slot fit) */
    int dg = 0;
    if ((st = env_choice("CZK_CUDA_MSM_DIGITS", digits, digits_v, 3, &dg, err))) return st;
    ctx->msm_digit_group = (unsigned)dg;
    /* never: bench/GPU.md twelfth run, slower on the 32GiB B2's others (+16 ms) and below 2^22
     * points; 0.79× at 2^22, 0.70× at 2^25 dense, which no proof kind runs */
    long v = 32;
    if ((st = czk_cuda_env_range("ctx_create", "CZK_CUDA_MSM_G2_AFFINE_LOG", 10, 32, &v, err)))
        return st;
    ctx->msm_g2_affine_log = (unsigned)v;
    /* benchmark knobs: the sparse path's others (the witness MSMs' Pippenger) alone */
    ctx->msm_sparse_acc = -1;
    if ((st = env_choice("CZK_CUDA_MSM_SPARSE_ACC", acc, acc_v, 11, &ctx->msm_sparse_acc, err)))
        return st;
    v = 0;
    if ((st = czk_cuda_env_range("ctx_create", "CZK_CUDA_MSM_SPARSE_C", 6, 22, &v, err))) return st;
    ctx->msm_sparse_c = (int)v;
    /* benchmark knob: the sparse path's ones by XYZZ batch addition or the batch-affine levels */
    static const char *const ones_n[] = {"xyzz", "affine"};
    static const int ones_v[] = {0, 1};
    int ones = 0;
    if ((st = env_choice("CZK_CUDA_MSM_ONES", ones_n, ones_v, 2, &ones, err))) return st;
    ctx->msm_ones_affine = ones != 0;
    const char *lg = getenv("CZK_CUDA_MSM_LOG"); /* benchmarks: what the large MSMs chose */
    ctx->msm_log = lg && !strcmp(lg, "1");
    return ntt_tables_init(ctx, err);
}

extern "C" czk_status czk_cuda_ctx_create(czk_cuda_ctx **out, int device, czk_err *err) {
    *out = NULL;
    int n = czk_cuda_device_count();
    if (device < 0 || device >= n)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "ctx_create: device %d of %d", device, n);
    czk_cuda_ctx *ctx = (czk_cuda_ctx *)calloc(1, sizeof *ctx);
    if (!ctx) return czk_errf(err, CZK_ERR_NOMEM, "ctx_create: host memory");
    ctx->device = device;
    czk_status st = ctx_init(ctx, device, err);
    if (st != CZK_OK) {
        czk_cuda_ctx_destroy(ctx);
        return st;
    }
    *out = ctx;
    return CZK_OK;
}

extern "C" void czk_cuda_ctx_destroy(czk_cuda_ctx *ctx) {
    if (!ctx) return;
    (void)cudaSetDevice(ctx->device);
    if (ctx->stream) (void)cudaStreamSynchronize(ctx->stream);
    if (ctx->stream2) (void)cudaStreamSynchronize(ctx->stream2);
    staging_free(ctx);
    ntt_tables_free(ctx);
    if (ctx->ev_start) (void)cudaEventDestroy(ctx->ev_start);
    if (ctx->ev_stop) (void)cudaEventDestroy(ctx->ev_stop);
    if (ctx->ev_fork) (void)cudaEventDestroy(ctx->ev_fork);
    if (ctx->ev_join) (void)cudaEventDestroy(ctx->ev_join);
    if (ctx->stream) (void)cudaStreamDestroy(ctx->stream);
    if (ctx->stream2) (void)cudaStreamDestroy(ctx->stream2);
    /* Give pooled temporaries back to the device. */
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, ctx->device) == cudaSuccess)
        (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
    free(ctx);
}

extern "C" const char *czk_cuda_ctx_describe(const czk_cuda_ctx *ctx) {
    return ctx->describe;
}

extern "C" czk_status czk_cuda_alloc(czk_cuda_ctx *ctx, void **dptr, size_t bytes, czk_err *err) {
    *dptr = NULL;
    CZK_CU(cudaSetDevice(ctx->device), "alloc: select device");
    cudaError_t e = cudaMalloc(dptr, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        /* The pool may hold freed temporaries: return them and try once more. */
        (void)cudaGetLastError();
        cudaMemPool_t pool;
        CZK_CU(cudaStreamSynchronize(ctx->stream), "alloc: synchronize");
        CZK_CU(cudaDeviceGetDefaultMemPool(&pool, ctx->device), "alloc: memory pool");
        CZK_CU(cudaMemPoolTrimTo(pool, 0), "alloc: trim memory pool");
        e = cudaMalloc(dptr, bytes ? bytes : 1);
    }
    CZK_CU(e, "alloc: %zu bytes", bytes);
    return CZK_OK;
}

extern "C" void czk_cuda_free(czk_cuda_ctx *ctx, void *dptr) {
    if (!dptr) return;
    (void)cudaSetDevice(ctx->device);
    (void)cudaStreamSynchronize(ctx->stream);
    (void)cudaFree(dptr);
    (void)cudaGetLastError();
}

extern "C" czk_status czk_cuda_upload(czk_cuda_ctx *ctx, void *dst, const void *src, size_t bytes,
                                      czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "upload: select device");
    CZK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, ctx->stream),
           "upload: %zu bytes", bytes);
    CZK_CU(cudaStreamSynchronize(ctx->stream), "upload: synchronize");
    return CZK_OK;
}

extern "C" czk_status czk_cuda_download(czk_cuda_ctx *ctx, void *dst, const void *src, size_t bytes,
                                        czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "download: select device");
    CZK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx->stream),
           "download: %zu bytes", bytes);
    CZK_CU(cudaStreamSynchronize(ctx->stream), "download: synchronize");
    return CZK_OK;
}

extern "C" czk_status czk_cuda_timer_start(czk_cuda_ctx *ctx, czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "timer: select device");
    CZK_CU(cudaEventRecord(ctx->ev_start, ctx->stream), "timer: record start");
    return CZK_OK;
}

extern "C" czk_status czk_cuda_timer_stop(czk_cuda_ctx *ctx, double *ms, czk_err *err) {
    CZK_CU(cudaEventRecord(ctx->ev_stop, ctx->stream), "timer: record stop");
    CZK_CU(cudaEventSynchronize(ctx->ev_stop), "timer: wait");
    float f = 0;
    CZK_CU(cudaEventElapsedTime(&f, ctx->ev_start, ctx->ev_stop), "timer: elapsed");
    *ms = f;
    return CZK_OK;
}

extern "C" czk_status czk_cuda_set_msm_c(czk_cuda_ctx *ctx, int c, czk_err *err) {
    if (c != 0 && (c < 6 || c > 22))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "set_msm_c: %d is not 0 or in 6..22", c);
    ctx->msm_c = c;
    return CZK_OK;
}

extern "C" void czk_cuda_set_msm_acc(czk_cuda_ctx *ctx, int variant) {
    ctx->msm_acc = variant;
}

extern "C" int czk_cuda_msm_acc(const czk_cuda_ctx *ctx) {
    return ctx->msm_acc;
}

extern "C" void czk_cuda_set_msm_ones_affine(czk_cuda_ctx *ctx, bool on) {
    ctx->msm_ones_affine = on;
}

extern "C" void czk_cuda_set_msm_mul(czk_cuda_ctx *ctx, int mul) {
    ctx->msm_mul = mul;
}

extern "C" void czk_cuda_set_msm_strip(czk_cuda_ctx *ctx, uint32_t strip) {
    ctx->msm_strip = strip;
}

extern "C" void czk_cuda_set_msm_strip_group(czk_cuda_ctx *ctx, uint32_t group) {
    if (group >= 1 && group <= 1024) ctx->msm_strip_group = group;
}

extern "C" uint32_t czk_cuda_msm_strip_group(const czk_cuda_ctx *ctx) {
    return ctx->msm_strip_group;
}

extern "C" void czk_cuda_set_msm_slots(czk_cuda_ctx *ctx, int slots) {
    if (slots >= 0 && slots <= 2) ctx->msm_slots = slots;
}

extern "C" void czk_cuda_set_msm_digit_group(czk_cuda_ctx *ctx, unsigned windows) {
    if (windows <= 64) ctx->msm_digit_group = windows;
}

extern "C" void czk_cuda_set_msm_wsum(czk_cuda_ctx *ctx, int mode) {
    if (mode >= CZK_CUDA_MSM_WSUM_AUTO && mode <= CZK_CUDA_MSM_WSUM_LEVELS) ctx->msm_wsum = mode;
}

extern "C" void czk_cuda_set_msm_windows(czk_cuda_ctx *ctx, unsigned windows) {
    if (windows == 0 || (windows >= 11 && windows <= 42)) ctx->msm_windows = windows;
}

extern "C" void czk_cuda_set_msm_scratch(czk_cuda_ctx *ctx, void *p, size_t bytes) {
    ctx->msm_scratch = p;
    ctx->msm_scratch_bytes = p ? bytes : 0;
}

extern "C" void czk_cuda_set_msm_sparse(czk_cuda_ctx *ctx, int acc, int c) {
    if (acc >= -1 && acc <= CZK_CUDA_MSM_ACC_AUTO) ctx->msm_sparse_acc = acc;
    if (c == 0 || (c >= 6 && c <= 22)) ctx->msm_sparse_c = c;
}

extern "C" void czk_cuda_set_msm_g2_affine_log(czk_cuda_ctx *ctx, unsigned log) {
    if (log >= 10 && log <= 32) ctx->msm_g2_affine_log = log;
}

extern "C" czk_status czk_cuda_ctx_set_priority(czk_cuda_ctx *ctx, bool high, czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "set_priority: select device %d", ctx->device);
    int least = 0, greatest = 0;
    CZK_CU(cudaDeviceGetStreamPriorityRange(&least, &greatest), "set_priority: priority range");
    const int prio = high ? greatest : least;
    cudaStream_t *streams[2] = {&ctx->stream, &ctx->stream2};
    for (int k = 0; k < 2; k++) {
        CZK_CU(cudaStreamSynchronize(*streams[k]), "set_priority: synchronize");
        cudaStream_t fresh;
        CZK_CU(cudaStreamCreateWithPriority(&fresh, cudaStreamNonBlocking, prio),
               "set_priority: stream of priority %d", prio);
        (void)cudaStreamDestroy(*streams[k]);
        *streams[k] = fresh;
    }
    return CZK_OK;
}

extern "C" void czk_cuda_set_msm_hybrid_k(czk_cuda_ctx *ctx, uint32_t k) {
    if (k == 0 || (k >= 2 && k <= 64)) ctx->msm_hybrid_k = k;
}

extern "C" void czk_cuda_set_msm_chunk(czk_cuda_ctx *ctx, uint32_t target) {
    ctx->msm_chunk = target;
}

extern "C" void czk_cuda_set_profile(czk_cuda_ctx *ctx, int on) {
    ctx->profile = on;
}
