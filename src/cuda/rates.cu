/*
 * Throughput microbenchmarks: field multiplications (both Montgomery forms)
 * and G1 mixed additions, each thread running independent dependency chains
 * so that the numbers are issue-bound rather than latency-bound.
 */
#include "cuda/internal.h"
#include "ctx.cuh"
#include "group.cuh"

namespace czkg {

namespace {

constexpr int ITERS = 256;
constexpr int CHAINS = 2;

template <class F, int VARIANT> __global__ void __launch_bounds__(256) mul_rate(F *io) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    F x[CHAINS], y = io[t];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) x[c] = io[t + c + 1];
#pragma unroll 1
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int c = 0; c < CHAINS; c++) x[c] = VARIANT ? F::mul_chain(x[c], y) : F::mul_wide(x[c], y);
    }
    F s = x[0];
#pragma unroll
    for (int c = 1; c < CHAINS; c++) s = s + x[c];
    io[t] = s;
}

__global__ void __launch_bounds__(256) madd_rate(const g1::A *pts, g1::X *out) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    g1::X acc = g1::X::from_affine(ld_vec(pts + (t & 1023)));
#pragma unroll 1
    for (int i = 0; i < ITERS; i++) acc.add_affine(ld_vec(pts + ((t + 7 * i + 1) & 1023)));
    st_vec(out + t, acc);
}

} // namespace

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_rates(czk_cuda_ctx *ctx, double rates[5], czk_err *err) {
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
    /* Inputs: random-looking reduced values; points from the base generator. */
    CZK_CU(cudaMemsetAsync(bfp.p, 0x11, (total + CHAINS + 1) * sizeof(fp), s), "rates: fill");
    CZK_CU(cudaMemsetAsync(bfr.p, 0x22, (total + CHAINS + 1) * sizeof(fr), s), "rates: fill");
    czk_status st = czk_cuda_g1_random_bases(ctx, (czk_g1_affine *)pts.p, 1024, 5, err);
    if (st != CZK_OK) return st;
    for (int k = 0; k < 5; k++) {
        for (int rep = 0; rep < 2; rep++) { /* the first run warms up */
            CZK_CU(cudaEventRecord(ctx->ev_start, s), "rates: event");
            switch (k) {
            case 0: mul_rate<fp, 0><<<blocks, threads, 0, s>>>(bfp.p); break;
            case 1: mul_rate<fp, 1><<<blocks, threads, 0, s>>>(bfp.p); break;
            case 2: mul_rate<fr, 0><<<blocks, threads, 0, s>>>(bfr.p); break;
            case 3: mul_rate<fr, 1><<<blocks, threads, 0, s>>>(bfr.p); break;
            case 4: madd_rate<<<blocks, threads, 0, s>>>(pts.p, out.p); break;
            }
            CZK_LAUNCH("rates: kernel %d", k);
            CZK_CU(cudaEventRecord(ctx->ev_stop, s), "rates: event");
            CZK_CU(cudaEventSynchronize(ctx->ev_stop), "rates: wait");
        }
        float ms = 0;
        CZK_CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop), "rates: elapsed");
        double ops = (double)total * ITERS * (k < 4 ? CHAINS : 1);
        rates[k] = ops / (ms * 1e-3);
    }
    return CZK_OK;
}
