/*
 * Throughput microbenchmarks: field multiplications (each Montgomery form)
 * and G1 mixed additions (with three multiplication forms), each thread
 * running independent dependency chains. For choosing the forms (field.cuh).
 */
#include "cuda/internal.h"
#include "ctx.cuh"
#include "group.cuh"

namespace czkg {

namespace {

constexpr int ITERS = 256;
constexpr int CHAINS = 2;

template <class F> __global__ void __launch_bounds__(256) mul_rate(F *io) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    F x[CHAINS], y = io[t];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        x[c] = io[t + c + 1];
#pragma unroll 1
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            x[c] = x[c] * y;
    }
    F s = x[0];
#pragma unroll
    for (int c = 1; c < CHAINS; c++)
        s = s + x[c];
    io[t] = s;
}

template <class F>
__global__ void __launch_bounds__(256) madd_rate(const affine<F> *pts, xyzz<F> *out) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    xyzz<F> acc = xyzz<F>::from_affine(ld_vec(pts + (t & 1023)));
#pragma unroll 1
    for (int i = 0; i < ITERS; i++)
        acc.add_affine(ld_vec(pts + ((t + 7 * i + 1) & 1023)));
    st_vec(out + t, acc);
}

template <int K> using fp_k = mont<with_mul<fp_params, K>>;
template <int K> using fr_k = mont<with_mul<fr_params, K>>;

} // namespace

} // namespace czkg

using namespace czkg;

extern "C" const char *const czk_cuda_rate_names[CZK_CUDA_NRATES] = {
    "fp_mul_wide",  "fp_mul_chain",  "fp_mul_rolled", "fp_mul_call",    "fr_mul_wide",
    "fr_mul_chain", "fr_mul_rolled", "g1_madd_wide",  "g1_madd_rolled", "g1_madd_call"};

extern "C" czk_status czk_cuda_rates(czk_cuda_ctx *ctx, double rates[CZK_CUDA_NRATES],
                                     czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "rates: select device");
    const unsigned blocks = 8 * ctx->sm_count, threads = 256, total = blocks * threads;
    cudaStream_t s = ctx->stream;
    dev_buf<fp> bfp;
    dev_buf<fr> bfr;
    dev_buf<g1::A> pts;
    dev_buf<g1::X> out;
    CZK_CU(bfp.alloc(total + CHAINS + 1, s), "rates: allocate");
    CZK_CU(bfr.alloc(total + CHAINS + 1, s), "rates: allocate");
    CZK_CU(out.alloc(total, s), "rates: allocate");
    CZK_CU(pts.alloc(1024, s), "rates: allocate");
    /* Inputs: reduced values (all limbs equal, below the top limb of p and r); generated points. */
    CZK_CU(cudaMemsetAsync(bfp.p, 0x11, (total + CHAINS + 1) * sizeof(fp), s), "rates: fill");
    CZK_CU(cudaMemsetAsync(bfr.p, 0x22, (total + CHAINS + 1) * sizeof(fr), s), "rates: fill");
    czk_status st = czk_cuda_g1_random_bases(ctx, (czk_g1_affine *)pts.p, 1024, 5, err);
    if (st != CZK_OK) return st;
    for (int k = 0; k < CZK_CUDA_NRATES; k++) {
        for (int rep = 0; rep < 2; rep++) { /* the first run warms up */
            CZK_CU(cudaEventRecord(ctx->ev_start, s), "rates: event");
            switch (k) {
            case 0:
                mul_rate<fp_k<MUL_WIDE>><<<blocks, threads, 0, s>>>((fp_k<MUL_WIDE> *)bfp.p);
                break;
            case 1:
                mul_rate<fp_k<MUL_CHAIN>><<<blocks, threads, 0, s>>>((fp_k<MUL_CHAIN> *)bfp.p);
                break;
            case 2:
                mul_rate<fp_k<MUL_ROLLED>><<<blocks, threads, 0, s>>>((fp_k<MUL_ROLLED> *)bfp.p);
                break;
            case 3:
                mul_rate<fp_k<MUL_CALL>><<<blocks, threads, 0, s>>>((fp_k<MUL_CALL> *)bfp.p);
                break;
            case 4:
                mul_rate<fr_k<MUL_WIDE>><<<blocks, threads, 0, s>>>((fr_k<MUL_WIDE> *)bfr.p);
                break;
            case 5:
                mul_rate<fr_k<MUL_CHAIN>><<<blocks, threads, 0, s>>>((fr_k<MUL_CHAIN> *)bfr.p);
                break;
            case 6:
                mul_rate<fr_k<MUL_ROLLED>><<<blocks, threads, 0, s>>>((fr_k<MUL_ROLLED> *)bfr.p);
                break;
            case 7:
                madd_rate<fp_k<MUL_WIDE>><<<blocks, threads, 0, s>>>(
                    (const affine<fp_k<MUL_WIDE>> *)pts.p, (xyzz<fp_k<MUL_WIDE>> *)out.p);
                break;
            case 8:
                madd_rate<fp_k<MUL_ROLLED>><<<blocks, threads, 0, s>>>(
                    (const affine<fp_k<MUL_ROLLED>> *)pts.p, (xyzz<fp_k<MUL_ROLLED>> *)out.p);
                break;
            case 9:
                madd_rate<fp_k<MUL_CALL>><<<blocks, threads, 0, s>>>(
                    (const affine<fp_k<MUL_CALL>> *)pts.p, (xyzz<fp_k<MUL_CALL>> *)out.p);
                break;
            }
            CZK_LAUNCH("rates: kernel %d", k);
            CZK_CU(cudaEventRecord(ctx->ev_stop, s), "rates: event");
            CZK_CU(cudaEventSynchronize(ctx->ev_stop), "rates: wait");
        }
        float ms = 0;
        CZK_CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop), "rates: elapsed");
        double ops = (double)total * ITERS * (k < 7 ? CHAINS : 1);
        rates[k] = ops / (ms * 1e-3);
    }
    return CZK_OK;
}
