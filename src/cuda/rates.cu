/*
 * Throughput microbenchmarks: field multiplications and Fp squarings
 * (Montgomery forms of field.cuh) and G1 mixed additions (four forms), each
 * thread running independent dependency chains. For choosing the forms
 * (field.cuh). The squaring rows run the same chains as the multiplication
 * rows with x = x² in place of x = x·y: fp_sqr_eo is sqr_eo, fp_sqr_mul the
 * squaring by mul_eo (the same code as fp_mul_eo; the pair reads without
 * another row's noise). The madd rows square by multiplication except
 * g1_madd_eo_sqr (MUL_EO and sqr_eo inline: MSM accumulation variant 0;
 * g1_madd_eo is variant 1, the kernel before sqr_eo).
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

template <class F> __global__ void __launch_bounds__(256) sqr_rate(F *io) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    F x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        x[c] = io[t + c];
#pragma unroll 1
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            x[c] = x[c].sqr();
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

template <int K, int S = SQR_MUL> using fp_k = mont<with_mul<fp_params, K, S>>;
template <int K> using fr_k = mont<with_mul<fr_params, K>>;

} // namespace

} // namespace czkg

using namespace czkg;

extern "C" const char *const czk_cuda_rate_names[CZK_CUDA_NRATES] = {
    "fp_mul_wide",     "fp_mul_chain", "fp_mul_eo",     "fp_mul_call", "fp_mul_eo_call",
    "fr_mul_wide",     "fr_mul_eo",    "fp_sqr_eo",     "fp_sqr_mul",  "g1_madd_call",
    "g1_madd_eo_call", "g1_madd_eo",   "g1_madd_eo_sqr"};
/* Rows before FIRST_MADD count field operations (CHAINS per thread and iteration). */
constexpr int FIRST_MADD = 9;

namespace {
template <class F> void launch_mul(unsigned blocks, unsigned threads, cudaStream_t s, void *p) {
    mul_rate<F><<<blocks, threads, 0, s>>>((F *)p);
}
template <class F> void launch_sqr(unsigned blocks, unsigned threads, cudaStream_t s, void *p) {
    sqr_rate<F><<<blocks, threads, 0, s>>>((F *)p);
}
template <class F>
void launch_madd(unsigned blocks, unsigned threads, cudaStream_t s, const void *pts, void *out) {
    madd_rate<F><<<blocks, threads, 0, s>>>((const affine<F> *)pts, (xyzz<F> *)out);
}
} // namespace

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
                launch_mul<fp_k<MUL_WIDE>>(blocks, threads, s, bfp.p);
                break;
            case 1:
                launch_mul<fp_k<MUL_CHAIN>>(blocks, threads, s, bfp.p);
                break;
            case 2:
                launch_mul<fp_k<MUL_EO>>(blocks, threads, s, bfp.p);
                break;
            case 3:
                launch_mul<fp_k<MUL_CALL>>(blocks, threads, s, bfp.p);
                break;
            case 4:
                launch_mul<fp_k<MUL_EO_CALL>>(blocks, threads, s, bfp.p);
                break;
            case 5:
                launch_mul<fr_k<MUL_WIDE>>(blocks, threads, s, bfr.p);
                break;
            case 6:
                launch_mul<fr_k<MUL_EO>>(blocks, threads, s, bfr.p);
                break;
            case 7:
                launch_sqr<fp_k<MUL_EO, SQR_EO>>(blocks, threads, s, bfp.p);
                break;
            case 8:
                launch_sqr<fp_k<MUL_EO, SQR_MUL>>(blocks, threads, s, bfp.p);
                break;
            case 9:
                launch_madd<fp_k<MUL_CALL>>(blocks, threads, s, pts.p, out.p);
                break;
            case 10:
                launch_madd<fp_k<MUL_EO_CALL>>(blocks, threads, s, pts.p, out.p);
                break;
            case 11:
                launch_madd<fp_k<MUL_EO>>(blocks, threads, s, pts.p, out.p);
                break;
            case 12:
                launch_madd<fp_k<MUL_EO, SQR_EO>>(blocks, threads, s, pts.p, out.p);
                break;
            }
            CZK_LAUNCH("rates: kernel %d", k);
            CZK_CU(cudaEventRecord(ctx->ev_stop, s), "rates: event");
            CZK_CU(cudaEventSynchronize(ctx->ev_stop), "rates: wait");
        }
        float ms = 0;
        CZK_CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop), "rates: elapsed");
        double ops = (double)total * ITERS * (k < FIRST_MADD ? CHAINS : 1);
        rates[k] = ops / (ms * 1e-3);
    }
    return CZK_OK;
}
