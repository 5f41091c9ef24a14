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

template <class F> __device__ __forceinline__ void mul_chains(F *io) {
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

template <class F> __global__ void __launch_bounds__(256) mul_rate(F *io) {
    mul_chains(io);
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

/* Two chains of one thread in two forms (the same values): FA's multiplication on x[0], FB's on
 * x[1], so one thread's instruction stream interleaves the two pipes' work. */
template <class FA, class FB> __global__ void __launch_bounds__(256) mul_rate_mix(FA *io) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    FA x0 = io[t + 1], y0 = io[t];
    FB x1, y1;
    memcpy(&x1, &io[t + 2], sizeof x1);
    memcpy(&y1, &io[t], sizeof y1);
#pragma unroll 1
    for (int i = 0; i < ITERS; i++) {
        x0 = x0 * y0;
        x1 = x1 * y1;
    }
    FA s;
    memcpy(&s, &x1, sizeof s);
    io[t] = x0 + s;
}

/* Even warps in form FA, odd warps in form FB (two pipes fed by different warps). */
template <class FA, class FB> __global__ void __launch_bounds__(256) mul_rate_wmix(FA *io) {
    if ((threadIdx.x >> 5) & 1)
        mul_chains<FB>((FB *)io);
    else
        mul_chains<FA>(io);
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
    "fp_mul_wide",     "fp_mul_chain", "fp_mul_eo",      "fp_mul_call", "fp_mul_eo_call",
    "fr_mul_wide",     "fr_mul_eo",    "fp_sqr_eo",      "fp_sqr_mul",  "g1_madd_call",
    "g1_madd_eo_call", "g1_madd_eo",   "g1_madd_eo_sqr", "fp_mul_f64",  "fr_mul_f64",
    "fp_mul_mix",      "fr_mul_mix",   "fp_mul_wmix",    "fr_mul_wmix", "g1_madd_f64",
    "fr_mul_eo_low",   "fp_mul_ka",    "g1_madd_ka_sqr"};
/* Rows before FIRST_MADD count field operations (CHAINS per thread and iteration). */
constexpr int FIRST_MADD = 9;
/* Field rows after the madd rows (the FP64 forms, field_f64.cuh), then a madd row (LAST_MADD),
 * then field rows again, then the last row: a madd row (G1_MADD_KA). */
constexpr int FIRST_F64 = 13, LAST_MADD = 19, G1_MADD_KA = 22;

namespace {
template <class F> void launch_mul(unsigned blocks, unsigned threads, cudaStream_t s, void *p) {
    mul_rate<F><<<blocks, threads, 0, s>>>((F *)p);
}
template <class F> void launch_sqr(unsigned blocks, unsigned threads, cudaStream_t s, void *p) {
    sqr_rate<F><<<blocks, threads, 0, s>>>((F *)p);
}
template <class FA, class FB>
void launch_mix(unsigned blocks, unsigned threads, cudaStream_t s, void *p, bool by_warp) {
    if (by_warp)
        mul_rate_wmix<FA, FB><<<blocks, threads, 0, s>>>((FA *)p);
    else
        mul_rate_mix<FA, FB><<<blocks, threads, 0, s>>>((FA *)p);
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
            case 13:
                launch_mul<fp_k<MUL_F64>>(blocks, threads, s, bfp.p);
                break;
            case 14:
                launch_mul<fr_k<MUL_F64>>(blocks, threads, s, bfr.p);
                break;
            case 15:
                launch_mix<fp_k<MUL_EO>, fp_k<MUL_F64>>(blocks, threads, s, bfp.p, false);
                break;
            case 16:
                launch_mix<fr_k<MUL_EO>, fr_k<MUL_F64>>(blocks, threads, s, bfr.p, false);
                break;
            case 17:
                launch_mix<fp_k<MUL_EO>, fp_k<MUL_F64>>(blocks, threads, s, bfp.p, true);
                break;
            case 18:
                launch_mix<fr_k<MUL_EO>, fr_k<MUL_F64>>(blocks, threads, s, bfr.p, true);
                break;
            case 19:
                launch_madd<fp_k<MUL_F64>>(blocks, threads, s, pts.p, out.p);
                break;
            case 20:
                launch_mul<fr_k<MUL_EO_LOW>>(blocks, threads, s, bfr.p);
                break;
            case 21:
                launch_mul<fp_k<MUL_KA>>(blocks, threads, s, bfp.p);
                break;
            case G1_MADD_KA:
                launch_madd<fp_k<MUL_KA, SQR_EO>>(blocks, threads, s, pts.p, out.p);
                break;
            }
            CZK_LAUNCH("rates: kernel %d", k);
            CZK_CU(cudaEventRecord(ctx->ev_stop, s), "rates: event");
            CZK_CU(cudaEventSynchronize(ctx->ev_stop), "rates: wait");
        }
        float ms = 0;
        CZK_CU(cudaEventElapsedTime(&ms, ctx->ev_start, ctx->ev_stop), "rates: elapsed");
        const bool field = k < FIRST_MADD || (k >= FIRST_F64 && k != LAST_MADD && k != G1_MADD_KA);
        double ops = (double)total * ITERS * (field ? CHAINS : 1);
        rates[k] = ops / (ms * 1e-3);
    }
    return CZK_OK;
}

namespace czkg {
namespace {

/* A value below m (top limb masked), or m − 1 − (i mod 4) for the first inputs; Fp: below 2m
 * every other time (add_nr, the inputs fp2's Karatsuba gives). */
template <class F> __device__ F check_input(uint64_t seed, uint64_t i, int which) {
    F x;
    if (i < 64) {
#pragma unroll
        for (int k = 0; k < F::N; k++)
            x.v[k] = F::params::m(k);
        x.v[0] -= (uint32_t)((i >> (2 * which)) & 3) + 1;
        return x;
    }
#pragma unroll
    for (int k = 0; k < F::N; k++)
        x.v[k] = (uint32_t)splitmix64(seed ^ (i * 64 + k * 2 + which) * 0xd1342543de82ef95ull);
    x.v[F::N - 1] &= F::N == 12 ? 0x0fffffffu : 0x3fffffffu;
    if (F::N == 12 && ((i >> which) & 1)) {
        F m;
#pragma unroll
        for (int k = 0; k < F::N; k++)
            m.v[k] = F::params::m(k);
        x = F::add_nr(x, m);
    }
    return x;
}

template <class F, class FF>
__global__ void __launch_bounds__(256)
    form_check_kernel(uint64_t seed, uint64_t n, unsigned long long *bad) {
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const F a = check_input<F>(seed, i, 0), b = check_input<F>(seed, i, 1);
    const F e = F::mul_eo(a, b);
    FF af, bf;
    memcpy(&af, &a, sizeof af);
    memcpy(&bf, &b, sizeof bf);
    const FF f = af * bf;
    uint32_t diff = 0;
#pragma unroll
    for (int k = 0; k < F::N; k++)
        diff |= e.v[k] ^ f.v[k];
    if (diff) atomicAdd(bad, 1ull);
}

} // namespace

} // namespace czkg

extern "C" czk_status czk_cuda_mul_form_check(czk_cuda_ctx *ctx, uint64_t seed, uint64_t n,
                                              uint64_t bad[3], czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "form check: select device");
    cudaStream_t s = ctx->stream;
    dev_buf<unsigned long long> cnt;
    CZK_CU(cnt.alloc(3, s), "form check: allocate");
    CZK_CU(cudaMemsetAsync(cnt.p, 0, 3 * sizeof(unsigned long long), s), "form check: clear");
    const unsigned blocks = (unsigned)((n + 255) / 256);
    form_check_kernel<fp, fp_k<MUL_F64>><<<blocks, 256, 0, s>>>(seed, n, cnt.p);
    CZK_LAUNCH("form check: Fp, FP64");
    form_check_kernel<fr, fr_k<MUL_F64>><<<blocks, 256, 0, s>>>(seed, n, cnt.p + 1);
    CZK_LAUNCH("form check: Fr, FP64");
    form_check_kernel<fp, fp_k<MUL_KA>><<<blocks, 256, 0, s>>>(seed, n, cnt.p + 2);
    CZK_LAUNCH("form check: Fp, Karatsuba");
    unsigned long long h[3];
    CZK_CU(cudaMemcpyAsync(h, cnt.p, sizeof h, cudaMemcpyDeviceToHost, s), "form check: download");
    CZK_CU(cudaStreamSynchronize(s), "form check: wait");
    for (int k = 0; k < 3; k++)
        bad[k] = h[k];
    return CZK_OK;
}
