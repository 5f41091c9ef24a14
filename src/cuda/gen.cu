/*
 * Test and benchmark inputs made on the device: uniform Fr elements and
 * distinct G1/G2 bases. Making 2^27 points on the host takes far too long;
 * here the host makes two tables of 2^14 multiples, A_j = (j+1)·Q1 and
 * B_j = (j+1)·Q2, and the device forms P_i = A_(i mod 2^14) + B_(i / 2^14)
 * with one mixed addition each and converts to affine with one inversion per
 * 16 points (Montgomery's batch trick). P_i = ((lo+1)·q1 + (hi+1)·q2)·G:
 * distinct unless q1/q2 is a ratio of small integers, which a random seed
 * never gives.
 */
#include "ctx.cuh"
#include "group.cuh"

#include <stdlib.h>
#include <string.h>

namespace czkg {

namespace {

constexpr unsigned TABLE_BITS = 14;
constexpr int BATCH = 16;

__host__ __device__ __forceinline__ uint64_t mix64(uint64_t z) { /* splitmix64 finalizer */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Rejection sampling: 255 random bits until the value is below r, then to Montgomery form. */
__global__ void gen_fr(fr *out, uint32_t n, uint64_t seed) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr x;
#pragma unroll 1
    for (uint64_t attempt = 0;; attempt++) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint64_t w =
                mix64(seed + 0x9e3779b97f4a7c15ull * (((uint64_t)i << 12) + attempt * 4 + j + 1));
            if (j == 3) w &= 0x7fffffffffffffffull;
            x.v[2 * j] = (uint32_t)w;
            x.v[2 * j + 1] = (uint32_t)(w >> 32);
        }
        carry_chain cc;
        (void)cc.sub_cc(x.v[0], fr_params::m(0));
#pragma unroll
        for (int j = 1; j < 8; j++)
            (void)cc.subc_cc(x.v[j], fr_params::m(j));
        if (cc.subc(0, 0)) break; /* borrow: x < r */
    }
    out[i] = x.to_mont();
}

/* Not inlined: it is called twice per point, and code size costs compile time. */
template <class G>
__device__ __noinline__ typename G::X table_sum(const typename G::A *ta, const typename G::A *tb,
                                                uint32_t i) {
    typename G::X p = G::X::from_affine(ld_vec(ta + (i & ((1u << TABLE_BITS) - 1))));
    p.add_affine(ld_vec(tb + (i >> TABLE_BITS)));
    return p;
}

template <class G>
__global__ void __launch_bounds__(G::THREADS)
    gen_bases(const typename G::A *ta, const typename G::A *tb, uint32_t n, typename G::A *out) {
    using F = typename G::F;
    using X = typename G::X;
    uint64_t i0 = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * BATCH;
    if (i0 >= n) return;
    int cnt = (int)min((uint64_t)BATCH, n - i0);
    F pref[BATCH];
    F acc = F::one();
#pragma unroll 1
    for (int k = 0; k < cnt; k++) {
        X p = table_sum<G>(ta, tb, (uint32_t)(i0 + k));
        pref[k] = acc;
        acc = acc * p.ZZZ;
    }
    F inv = acc.inv();
#pragma unroll 1
    for (int k = cnt - 1; k >= 0; k--) {
        X p = table_sum<G>(ta, tb, (uint32_t)(i0 + k));
        F zinv = inv * pref[k];
        inv = inv * p.ZZZ;
        st_vec(out + i0 + k, p.to_affine_with(zinv));
    }
}

/* Host glue to blst per group. */
inline void h_mul(blst_p1 *o, const blst_p1 *p, const czk_fr *k) {
    czk_g1_mul(o, p, k);
}
inline void h_mul(blst_p2 *o, const blst_p2 *p, const czk_fr *k) {
    czk_g2_mul(o, p, k);
}
inline const blst_p1 *h_gen(blst_p1 *) {
    return blst_p1_generator();
}
inline const blst_p2 *h_gen(blst_p2 *) {
    return blst_p2_generator();
}
inline void h_add(blst_p1 *o, const blst_p1 *a, const blst_p1 *b) {
    blst_p1_add_or_double(o, a, b);
}
inline void h_add(blst_p2 *o, const blst_p2 *a, const blst_p2 *b) {
    blst_p2_add_or_double(o, a, b);
}
inline void h_to_affine(blst_p1_affine *o, const blst_p1 *p, size_t n) {
    const blst_p1 *pts[2] = {p, nullptr};
    blst_p1s_to_affine(o, pts, n);
}
inline void h_to_affine(blst_p2_affine *o, const blst_p2 *p, size_t n) {
    const blst_p2 *pts[2] = {p, nullptr};
    blst_p2s_to_affine(o, pts, n);
}

/* out[j] = (j+1)·k·G for j < count, affine. */
template <class G>
czk_status host_multiples(typename G::host_affine *out, size_t count, czk_rng *rng, czk_err *err) {
    using P = typename G::host_point;
    czk_fr k;
    czk_status st = czk_fr_random(&k, rng, err);
    if (st != CZK_OK) return st;
    P q, acc;
    h_mul(&q, h_gen((P *)nullptr), &k);
    P *tmp = (P *)malloc(count * sizeof(P));
    if (!tmp) return czk_errf(err, CZK_ERR_NOMEM, "random bases: host table of %zu points", count);
    acc = q;
    for (size_t j = 0; j < count; j++) {
        tmp[j] = acc;
        h_add(&acc, &acc, &q);
    }
    h_to_affine(out, tmp, count);
    free(tmp);
    return CZK_OK;
}

template <class G>
czk_status random_bases(czk_cuda_ctx *ctx, typename G::A *out, size_t n64, uint64_t seed,
                        czk_err *err) {
    using HA = typename G::host_affine;
    if (n64 >= (1ull << 31))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "random bases %s: n = %zu is not below 2^31",
                        G::name, n64);
    if (n64 == 0) return CZK_OK;
    CZK_CU(cudaSetDevice(ctx->device), "random bases %s: select device", G::name);
    const uint32_t n = (uint32_t)n64;
    const size_t na = (size_t)1 << TABLE_BITS, nb = (n + na - 1) >> TABLE_BITS;
    HA *h = (HA *)malloc((na + nb) * sizeof(HA));
    if (!h) return czk_errf(err, CZK_ERR_NOMEM, "random bases %s: host tables", G::name);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_status st = host_multiples<G>(h, na, &rng, err);
    if (st == CZK_OK) st = host_multiples<G>(h + na, nb, &rng, err);
    if (st != CZK_OK) {
        free(h);
        return st;
    }
    dev_buf<typename G::A> tab;
    cudaError_t e = tab.alloc(na + nb, ctx->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(tab.p, h, (na + nb) * sizeof(HA), cudaMemcpyHostToDevice, ctx->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->stream);
    free(h);
    CZK_CU(e, "random bases %s: upload tables", G::name);
    size_t threads = (n + BATCH - 1) / BATCH;
    gen_bases<G>
        <<<grid_for(threads, G::THREADS), G::THREADS, 0, ctx->stream>>>(tab.p, tab.p + na, n, out);
    CZK_LAUNCH("random bases %s: generate", G::name);
    CZK_CU(cudaStreamSynchronize(ctx->stream), "random bases %s: synchronize", G::name);
    return CZK_OK;
}

} // namespace

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_fr_random(czk_cuda_ctx *ctx, czk_fr *out, size_t n, uint64_t seed,
                                         czk_err *err) {
    if (n >= (1ull << 31))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "random fr: n = %zu is not below 2^31", n);
    if (n == 0) return CZK_OK;
    CZK_CU(cudaSetDevice(ctx->device), "random fr: select device");
    gen_fr<<<grid_for(n, 256), 256, 0, ctx->stream>>>((fr *)out, (uint32_t)n, mix64(seed));
    CZK_LAUNCH("random fr: generate");
    CZK_CU(cudaStreamSynchronize(ctx->stream), "random fr: synchronize");
    return CZK_OK;
}

extern "C" czk_status czk_cuda_g1_random_bases(czk_cuda_ctx *ctx, czk_g1_affine *out, size_t n,
                                               uint64_t seed, czk_err *err) {
    return random_bases<g1>(ctx, (g1::A *)out, n, seed, err);
}

extern "C" czk_status czk_cuda_g2_random_bases(czk_cuda_ctx *ctx, czk_g2_affine *out, size_t n,
                                               uint64_t seed, czk_err *err) {
    return random_bases<g2>(ctx, (g2::A *)out, n, seed, err);
}
