/*
 * MSM on G1 and G2: Pippenger with signed window digits and XYZZ buckets,
 * bases and scalars resident on the device. One generic body for both
 * groups, instantiated by msm.cu (G1) and msm_g2.cu (G2) so that the two
 * compile in parallel.
 *
 * Witness scalars are mostly 0 and 1 (a 32GiB partition's aux: 51 % zero,
 * 47 % one, 1.3 % other), so msm() first decides how to treat them:
 *  - sample (msm_sample): 2048 evenly spaced scalars; if more than 7/8 are
 *    neither 0 nor 1 the scalars are dense (MSM H: uniform) and the dense
 *    Pippenger below runs on all n, as before. A context with a memory cap
 *    (czk_cuda_set_msm_cap) skips the sample and always compacts.
 *  - compaction (msm_classify, one pass over the scalars): the indices of
 *    the ones are written from the front of one n-entry list and those of
 *    the others from its back (block-aggregated atomics, warp ballots; the
 *    order inside each list does not matter, the sum is the same), zeros are
 *    dropped. The ones go to a batch-addition kernel (msm_sum_list: equal
 *    shares per thread, XYZZ += affine, partial sums reduced by block), the
 *    others to the Pippenger core as an index list: digits from
 *    scalars[idx[k]] and the index list itself as the sort's values, so the
 *    accumulation reads bases[idx] directly and nothing is gathered. The
 *    window size is chosen for the number of others, not n; with a cap the
 *    others run in pieces of at most cap points (sums of smaller MSMs).
 * Cost model for the choice (H200, 2^27 G1): a dense run sorts n keys per
 * window (≈ 21 ps per key per window, 13 windows) and accumulates the m
 * non-trivial digits (≈ 460 ps each); compaction costs one read of the
 * scalars (≈ 8 ps per scalar) and then sorts only m. Compaction wins as soon
 * as (n − m)/n > 8/(13·21) ≈ 3 %; the sample's 7/8 keeps uniform scalars off
 * that extra pass with a wide margin (its error is ±1 % at 2048 samples),
 * and a wrong guess only costs time. Expected at 32GiB (1.2–1.7 M others,
 * 16–62 M ones): L ≈ 25 ms of ones + ≈ 15 ms of Pippenger, A the same, B_G1
 * ≈ 7 + 12 ms, B_G2 ≈ 20 + 30 ms (were 246 / 226 / 102 / 187 ms).
 *
 * Pippenger (sppark's structure, spec/gpu-prover.md §3, with the differences noted):
 *  1. digits: each scalar leaves Montgomery form; a scalar above (r−1)/2 is
 *     replaced by r − s with the point negated, so it has 254 bits; it is
 *     recoded into W = ⌈255/c⌉ signed digits in [−2^(c−1), 2^(c−1)]. Zero
 *     scalars give zero digits (skipped from here on); on the dense path
 *     scalars equal to one are flagged and get zero digits too (step 6 sums
 *     them). Key per window = |digit|·2 + sign (0 for a zero digit). The
 *     digits of all W windows are made in one pass (4·W bytes a point: 7 GB
 *     at 2^27), except where that would leave no room for the second window
 *     slot of the batch-affine path: then two windows at a time (1 GB at
 *     2^27), each pair before its sorts, the scalars read once per pair
 *     (CZK_CUDA_MSM_DIGITS = all / 1 / 2 forces a choice).
 *  2. per window: radix sort of (key, point index) pairs over c+1 bits (CUB),
 *     which groups the point indices by bucket; bucket bounds in the sorted array.
 *  3. accumulation: each bucket's run is cut into equal chunks of at most L
 *     points (chunk_len: about G::CHUNK, so that buckets of average size split
 *     evenly; a bucket that holds most points, as with repeated scalars,
 *     still spreads over many threads); one thread sums a chunk into an
 *     XYZZ partial by mixed additions. (sppark: one thread per bucket.)
 *  4. bucket sums: a bucket with few chunks is summed by one thread, one with
 *     many by a whole block.
 *     With ctx->msm_acc = CZK_CUDA_MSM_ACC_AFFINE (4) or _HYBRID (5; the
 *     default _AUTO (6) takes it on G1 from 2^22 points, XYZZ below, where
 *     the hybrid measured slower, and on G2 from 2^ctx->msm_g2_affine_log
 *     points, CZK_CUDA_MSM_G2_AFFINE_LOG, never by default (bench/GPU.md,
 *     twelfth run: 0.70× at 2^25 dense, but slower below 2^22 and on the
 *     32GiB witness's 1.2 M others of B G2);
 *     XYZZ chunks where its buffers do not fit the device): steps 3 and 4
 *     are instead the batch-affine levels of
 *     msm_affine.cuh (each bucket halved by affine pair additions with one
 *     batch inversion per level, to 1 point, or to at most 8 then XYZZ), one
 *     host synchronisation per window for the largest bucket; from 2^22
 *     points two windows are in flight, on two streams.
 *  5. window sum Σ_b (b+1)·bucket_b: buckets split into segments of 64; each
 *     thread runs the running-sum trick over its segment, adds lo·(segment
 *     sum) for the segment's offset, and one block per window adds the
 *     segment results. (sppark finishes this on the host.) With the window
 *     sums by levels (ctx->msm_wsum; auto: MSM H) steps 3–5 are instead
 *     msm_affine.cuh's ba_state::window_sum (buckets to one point, the split
 *     T_h, U_l by the same levels, running sums over the split), and the
 *     windows fill the 255 bits (12: 9 × 21 + 3 × 22 bits), the top one's
 *     buckets cut to what its digits can reach.
 *  6. dense path, scalars equal to one: a batch-addition kernel sums their bases.
 *  7. host: the W window sums are combined by Horner's rule (each window's
 *     width in doublings) with blst, plus the sum of step 6.
 * The window size c minimises W(c)·(1.1·n + 16·2^(c−1)) (accumulation plus
 * bucket reduction, weights fitted to H200 sweeps) over 6..22 (22 for the
 * hybrid above 2^26 points, measured), unless CZK_CUDA_MSM_C fixes it;
 * CZK_CUDA_MSM_CHUNK sets the target chunk length (benchmarks; both read when
 * the context is made: ctx->msm_c, ctx->msm_chunk).
 */
#ifndef CZK_CUDA_MSM_CUH
#define CZK_CUDA_MSM_CUH

#include "ctx.cuh"
#include "group.cuh"
#include "msm_affine.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <math.h>
#include <memory>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <type_traits>

namespace czkg {

namespace {

constexpr uint32_t SMALL_CHUNKS = 8;        /* buckets with more chunks are summed by a block */
constexpr uint32_t SEGMENT_THREADS = 65536; /* running-sum threads per window (about) */

__device__ __forceinline__ fr ld_fr(const fr *p) {
    return ld_vec(p);
}

/* Digits of windows [w0, w1) of scalars[idx ? idx[i] : i], i < n, window w to keys[(w − w0)·n +
 * i] (the windows below w0 are recoded for their carry only); windows from wide_from on are c + 1
 * bits wide, the others c. With dense, scalars equal to one get zero digits, and are flagged in
 * ones where ones != NULL. */
__global__ void msm_digits(const fr *scalars, const uint32_t *idx, uint32_t n, unsigned c,
                           unsigned wide_from, unsigned w0, unsigned w1, uint32_t *keys, bool dense,
                           uint8_t *ones) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fr s = ld_fr(scalars + (idx ? idx[i] : i));
    bool one = dense && s.is_one();
    bool skip = one || s.is_zero();
    if (ones) ones[i] = one;
    uint32_t k[8];
    uint32_t neg = 0;
    fr x = s.from_mont();
    {
        /* neg = x > (r−1)/2, i.e. (r−1)/2 − x borrows */
        carry_chain cc;
        (void)cc.sub_cc(fr_params::half(0), x.v[0]);
#pragma unroll
        for (int j = 1; j < 8; j++)
            (void)cc.subc_cc(fr_params::half(j), x.v[j]);
        neg = cc.subc(0, 0) & 1;
    }
    x = x.cneg(neg); /* r − x on canonical limbs */
#pragma unroll
    for (int j = 0; j < 8; j++)
        k[j] = skip ? 0 : x.v[j];
    uint32_t carry = 0;
#pragma unroll 1
    for (unsigned w = 0; w < w1; w++) {
        const unsigned cw = w >= wide_from ? c + 1 : c;
        const uint32_t mask = (1u << cw) - 1, half = 1u << (cw - 1);
        uint32_t d = (k[0] & mask) + carry;
#pragma unroll
        for (int j = 0; j < 7; j++)
            k[j] = __funnelshift_r(k[j], k[j + 1], cw);
        k[7] >>= cw;
        uint32_t mag, sgn;
        if (d > half) {
            mag = (1u << cw) - d;
            sgn = 1;
            carry = 1;
        } else {
            mag = d;
            sgn = 0;
            carry = 0;
        }
        if (w >= w0) keys[(size_t)(w - w0) * n + i] = mag ? (mag << 1) | (sgn ^ neg) : 0;
    }
}

__global__ void msm_iota(uint32_t *v, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = i;
}

/* start/end (exclusive) of bucket b = |digit| − 1 in the sorted keys; untouched if empty. */
__global__ void msm_bounds(const uint32_t *sk, uint32_t n, uint32_t *start, uint32_t *end) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t m = sk[i] >> 1;
    if (!m) return;
    uint32_t prev = i ? sk[i - 1] >> 1 : 0;
    uint32_t next = i + 1 < n ? sk[i + 1] >> 1 : 0;
    if (prev != m) start[m - 1] = i;
    if (next != m) end[m - 1] = i + 1;
}

__global__ void msm_chunk_count(const uint32_t *start, const uint32_t *end, uint32_t B, uint32_t L,
                                uint32_t *cnt) {
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < B) cnt[b] = (end[b] - start[b] + L - 1) / L;
}

__global__ void msm_chunk_desc(const uint32_t *start, const uint32_t *end, const uint32_t *cnt,
                               const uint32_t *off, uint32_t B, uint2 *desc, uint32_t *total) {
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    uint32_t c = cnt[b], o = off[b], s = start[b], e = end[b];
    const uint64_t len = e - s; /* equal parts: chunk lengths in a warp stay close */
    for (uint32_t k = 0; k < c; k++)
        desc[o + k] = make_uint2(s + (uint32_t)(len * k / c), s + (uint32_t)(len * (k + 1) / c));
    if (b == B - 1) *total = o + c;
}

/* Copy of one point from global to shared memory without registers (cp.async, sm_80+). */
template <class A> __device__ __forceinline__ void copy_async(A *dst_shared, const A *src) {
    static_assert(sizeof(A) % 16 == 0, "16-byte multiple");
    uint32_t d = (uint32_t)__cvta_generic_to_shared(dst_shared);
    const char *sp = reinterpret_cast<const char *>(src);
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 16); k++)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d + 16 * k), "l"(sp + 16 * k)
                     : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ __forceinline__ void copy_async_wait() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}

/*
 * One thread per chunk: XYZZ sum of its (signed) points, over the field F
 * (G's field with a chosen multiplication form; same layout). THREADS/MINB
 * set the register budget (occupancy against spills). PF: how the next
 * point is fetched while the current one is added: 0 not at all, 1 into
 * registers, 2 into shared memory by cp.async (no registers held).
 */
template <class F, int THREADS, int MINB, int PF>
__global__ void __launch_bounds__(THREADS, MINB)
    msm_accumulate(const affine<F> *__restrict__ bases, const uint32_t *__restrict__ sk,
                   const uint32_t *__restrict__ sidx, const uint2 *__restrict__ desc,
                   const uint32_t *total, xyzz<F> *partial) {
    using A = affine<F>;
    using X = xyzz<F>;
    __shared__ __align__(16) A slot[PF == 2 ? THREADS : 1];
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= *total) return;
    uint2 d = desc[t];
    uint32_t i = d.x;
    A p = ld_vec(bases + sidx[i]);
    if (sk[i] & 1) p = p.neg();
    X acc = X::from_affine(p);
    if (++i < d.y) {
        if (PF == 2) {
            A *my = &slot[threadIdx.x];
            copy_async(my, bases + sidx[i]);
#pragma unroll 1
            for (; i < d.y; i++) {
                uint32_t qs = sk[i] & 1;
                copy_async_wait();
                A q = *my;
                if (i + 1 < d.y) copy_async(my, bases + sidx[i + 1]);
                if (qs) q = q.neg();
                acc.add_affine(q);
            }
        } else if (PF == 1) {
            A next = ld_vec(bases + sidx[i]);
            uint32_t nsign = sk[i] & 1;
#pragma unroll 1
            for (; i < d.y; i++) {
                A q = next;
                uint32_t qs = nsign;
                if (i + 1 < d.y) { /* fetch the next point while this one is added */
                    next = ld_vec(bases + sidx[i + 1]);
                    nsign = sk[i + 1] & 1;
                }
                if (qs) q = q.neg();
                acc.add_affine(q);
            }
        } else {
#pragma unroll 1
            for (; i < d.y; i++) {
                A q = ld_vec(bases + sidx[i]);
                if (sk[i] & 1) q = q.neg();
                acc.add_affine(q);
            }
        }
    }
    st_vec(partial + t, acc);
}

template <class G>
__global__ void __launch_bounds__(G::THREADS)
    msm_bucket_sum(const typename G::X *partial, const uint32_t *cnt, const uint32_t *off,
                   uint32_t B, typename G::X *bucket, uint32_t *big, uint32_t *big_count) {
    using X = typename G::X;
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    uint32_t c = cnt[b], o = off[b];
    if (c > SMALL_CHUNKS) {
        big[atomicAdd(big_count, 1u)] = b;
        return;
    }
    if (c <= 1) { /* the common case: one chunk, or an empty bucket */
        st_vec(bucket + b, c ? ld_vec(partial + o) : X::inf());
        return;
    }
    X acc = ld_vec(partial + o);
#pragma unroll 1
    for (uint32_t k = 1; k < c; k++)
        acc.add(ld_vec(partial + o + k));
    st_vec(bucket + b, acc);
}

/* Buckets with many chunks: one block each (grid-stride over the list). */
template <class G>
__global__ void __launch_bounds__(G::THREADS)
    msm_bucket_sum_big(const typename G::X *partial, const uint32_t *cnt, const uint32_t *off,
                       typename G::X *bucket, const uint32_t *big, const uint32_t *big_count) {
    using X = typename G::X;
    uint32_t nbig = *big_count;
#pragma unroll 1
    for (uint32_t k = blockIdx.x; k < nbig; k += gridDim.x) {
        uint32_t b = big[k], c = cnt[b], o = off[b];
        X acc = X::inf();
#pragma unroll 1
        for (uint32_t j = threadIdx.x; j < c; j += G::THREADS)
            acc.add(ld_vec(partial + o + j));
        acc = block_sum<X, G::THREADS>(acc);
        if (threadIdx.x == 0) st_vec(bucket + b, acc);
    }
}

/*
 * Thread t of a window: Σ_{b in segment} (b+1)·bucket_b for the segment
 * [lo, lo+len): running sums give Σ (b−lo+1)·bucket_b, plus lo·Σ bucket_b.
 */
template <class G>
__global__ void __launch_bounds__(G::THREADS)
    msm_running_sum(const typename G::X *bucket, uint32_t B, uint32_t seg_len,
                    typename G::X *seg_out) {
    using X = typename G::X;
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t lo = t * seg_len;
    if (lo >= B) return;
    X run = X::inf(), acc = X::inf();
#pragma unroll 1
    for (uint32_t b = lo + seg_len; b-- > lo;) {
        run.add(ld_vec(bucket + b));
        acc.add(run);
    }
    acc.add(run.mul_small(lo));
    st_vec(seg_out + t, acc);
}

/* out[g] = Σ_{j < per} in[g·per + j], one block per group. */
template <class G>
__global__ void __launch_bounds__(G::THREADS)
    msm_reduce_groups(const typename G::X *in, uint32_t per, typename G::X *out) {
    using X = typename G::X;
    X acc = X::inf();
    const typename G::X *base = in + (size_t)blockIdx.x * per;
#pragma unroll 1
    for (uint32_t j = threadIdx.x; j < per; j += G::THREADS)
        acc.add(ld_vec(base + j));
    acc = block_sum<X, G::THREADS>(acc);
    if (threadIdx.x == 0) st_vec(out + blockIdx.x, acc);
}

/* Batch addition of the bases whose scalar is one; one partial sum per block. */
template <class G>
__global__ void __launch_bounds__(G::THREADS)
    msm_ones(const typename G::A *__restrict__ bases, const uint8_t *__restrict__ ones, uint32_t n,
             uint32_t per_thread, typename G::X *out) {
    using X = typename G::X;
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t begin = (uint64_t)t * per_thread, end = begin + per_thread;
    if (end > n) end = n;
    X acc = X::inf();
#pragma unroll 1
    for (uint64_t i = begin; i < end; i++)
        if (ones[i]) acc = add_affine_call(acc, ld_vec(bases + i));
    acc = block_sum<X, G::THREADS>(acc);
    if (threadIdx.x == 0) st_vec(out + blockIdx.x, acc);
}

/* Scalars neither 0 nor 1 among `samples` evenly spaced ones (one block). */
__global__ void msm_sample(const fr *scalars, uint32_t n, uint32_t samples, uint32_t *others) {
    __shared__ uint32_t total;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    uint32_t cnt = 0;
    for (uint32_t k = threadIdx.x; k < samples; k += blockDim.x) {
        fr x = ld_fr(scalars + (uint32_t)((uint64_t)k * n / samples));
        cnt += !x.is_zero() && !x.is_one();
    }
    atomicAdd(&total, cnt);
    __syncthreads();
    if (threadIdx.x == 0) *others = total;
}

constexpr int CL_THREADS = 256, CL_ITEMS = 8, CL_WARPS = CL_THREADS / 32;

/*
 * Compaction: indices of the scalars equal to one go to list[0 .. counts[0]), those of the
 * scalars neither 0 nor 1 to list[n − counts[1] .. n) (from the back); zeros are dropped.
 * A block takes CL_THREADS·CL_ITEMS consecutive scalars (coalesced reads), counts by warp
 * ballots, reserves its places with one atomic per list and writes.
 */
__global__ void __launch_bounds__(CL_THREADS)
    msm_classify(const fr *__restrict__ scalars, uint32_t n, uint32_t *__restrict__ list,
                 uint32_t *counts) {
    __shared__ uint32_t mask[2][CL_ITEMS][CL_WARPS], off[2][CL_ITEMS][CL_WARPS], base[2];
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint64_t first = (uint64_t)blockIdx.x * CL_THREADS * CL_ITEMS;
    uint32_t cls = 0; /* 2 bits per item: 0 zero (or past n), 1 one, 2 other */
#pragma unroll
    for (int it = 0; it < CL_ITEMS; it++) {
        uint64_t i = first + (uint64_t)it * CL_THREADS + threadIdx.x;
        uint32_t k = 0;
        if (i < n) {
            fr x = ld_fr(scalars + i);
            k = x.is_zero() ? 0 : x.is_one() ? 1 : 2;
        }
        uint32_t m1 = __ballot_sync(0xffffffffu, k == 1), m2 = __ballot_sync(0xffffffffu, k == 2);
        if (lane == 0) mask[0][it][warp] = m1, mask[1][it][warp] = m2;
        cls |= k << (2 * it);
    }
    __syncthreads();
    if (threadIdx.x < 2) { /* one thread per list: offsets in (item, warp) order, then reserve */
        const int l = threadIdx.x;
        uint32_t sum = 0;
        for (int it = 0; it < CL_ITEMS; it++)
            for (int w = 0; w < CL_WARPS; w++) {
                off[l][it][w] = sum;
                sum += __popc(mask[l][it][w]);
            }
        base[l] = sum ? atomicAdd(&counts[l], sum) : 0;
    }
    __syncthreads();
    const uint32_t below = (1u << lane) - 1;
#pragma unroll
    for (int it = 0; it < CL_ITEMS; it++) {
        uint32_t k = (cls >> (2 * it)) & 3;
        if (!k) continue;
        const int l = (int)k - 1;
        uint32_t pos = base[l] + off[l][it][warp] + __popc(mask[l][it][warp] & below);
        uint32_t i = (uint32_t)(first + (uint64_t)it * CL_THREADS + threadIdx.x);
        list[l ? n - 1 - pos : pos] = i;
    }
}

/*
 * Batch addition over an index list: thread t sums bases[list[k]] for k = t, t + stride, ...
 * (XYZZ += affine over F, G's field with a chosen multiplication form) into partial[t].
 */
template <class F, int THREADS, int MINB>
__global__ void __launch_bounds__(THREADS, MINB)
    msm_sum_list(const affine<F> *__restrict__ bases, const uint32_t *__restrict__ list,
                 uint32_t count, xyzz<F> *partial) {
    using X = xyzz<F>;
    const uint32_t t = blockIdx.x * THREADS + threadIdx.x, stride = gridDim.x * THREADS;
    X acc = X::inf();
#pragma unroll 1
    for (uint32_t k = t; k < count; k += stride)
        acc.add_affine(ld_vec(bases + list[k]));
    st_vec(partial + t, acc);
}

template <class G>
__global__ void msm_to_jacobian(const typename G::X *in, uint32_t n, typename G::J *out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i].to_jacobian();
}

/* G's field with multiplication form K and Fp squaring form S (same layout as G::F). */
template <class G, int K, int S> struct field_k;
template <int K, int S> struct field_k<g1, K, S> { using F = mont<with_mul<fp_params, K, S>>; };
template <int K, int S> struct field_k<g2, K, S> {
    using F = fp2_t<mont<with_mul<fp_params, K, S>>>;
};

/* One accumulation variant: forms, block size, minimum blocks per SM, prefetch. */
template <class G, int K, int S, int T, int M, int PF>
void launch_acc(unsigned blocks64, cudaStream_t s, const typename G::A *bases, const uint32_t *sk,
                const uint32_t *sidx, const uint2 *desc, const uint32_t *total,
                typename G::X *partial) {
    using F = typename field_k<G, K, S>::F;
    static_assert(sizeof(F) == sizeof(typename G::F), "layout");
    msm_accumulate<F, T, M, PF><<<(blocks64 * 64 + T - 1) / T, T, 0, s>>>(
        (const affine<F> *)bases, sk, sidx, desc, total, (xyzz<F> *)partial);
}

/*
 * Accumulation variants (ctx->msm_acc, CZK_CUDA_MSM_ACC 0..3; entry 0 is the
 * default; 4 and 5 are the G1 batch-affine paths, msm_affine.cuh, and give G2
 * variant 0): multiplication form K, Fp squaring form S, block size T, minimum
 * blocks per SM M, prefetch PF.
 * G1: 0 MUL_EO + sqr_eo, no prefetch; 1 the same squaring by mul_eo (the
 * default before sqr_eo); 2 MUL_EO + sqr_eo with cp.async; 3 MUL_EO_CALL +
 * sqr_eo (called) with cp.async. Expected for 0 against 1: madd-2008-s's two
 * squarings at 456 instead of 588 IMAD (field.cuh) make an addition ≈ 4.5 %
 * fewer IMAD, so accumulation ≈ 805 → ≈ 770 ms and MSM 2^27 ≈ 886 → ≈ 850 ms,
 * if the kernel stays IMAD-bound and does not spill. The batch addition
 * (msm_sum_list) takes variant 0's forms; the other kernels (bucket and
 * running sums, msm_ones) use fp's, which squares by multiplication.
 * G2: the Fp2 squaring (c0 + c1)(c0 − c1), 2·c0·c1 holds no Fp squaring, so S
 * changes no G2 accumulation code; 1 is 0 again (the same kernel: a repeat
 * of the default), 2 cp.async, 3 register prefetch.
 * H200 2026-11-29, 2^27 G1 / 2^25 G2, equal chunks, before sqr_eo
 * (bench/GPU.md run 3; a repeated default differed by < 0.1 ms): G1 with
 * MUL_EO inline 885.7 ms without prefetch, 895.7 with cp.async, 907.7 with
 * MUL_EO_CALL (with the older wide form, inline code had been the slower one:
 * instruction cache) — old MUL_CALL 1331 (run 2); G2 (Fp2 products called,
 * their three Fp products inline) 838.0 without prefetch, 843.0 cp.async,
 * 856.5 register prefetch (spills at 255 registers); 3 blocks/SM (170
 * registers) was 972 and wide products 1364 (run 2).
 */
template <class G> struct acc_variants;
template <> struct acc_variants<g1> {
    static constexpr int K[4] = {MUL_EO, MUL_EO, MUL_EO, MUL_EO_CALL};
    static constexpr int S[4] = {SQR_EO, SQR_MUL, SQR_EO, SQR_EO};
    static constexpr int T[4] = {384, 384, 384, 384}, M[4] = {1, 1, 1, 1}, PF[4] = {0, 0, 2, 2};
};
template <> struct acc_variants<g2> {
    static constexpr int K[4] = {MUL_EO, MUL_EO, MUL_EO, MUL_EO};
    static constexpr int S[4] = {SQR_EO, SQR_EO, SQR_EO, SQR_EO};
    static constexpr int T[4] = {128, 128, 128, 128}, M[4] = {1, 1, 1, 1}, PF[4] = {0, 0, 2, 1};
};
constexpr int ACC_VARIANTS = 4;
static_assert(ACC_VARIANTS == CZK_CUDA_MSM_ACC_VARIANTS, "internal.h names the count");

template <class G, int V>
void launch_acc_v(unsigned blocks64, cudaStream_t s, const typename G::A *bases, const uint32_t *sk,
                  const uint32_t *sidx, const uint2 *desc, const uint32_t *total,
                  typename G::X *partial) {
    using W = acc_variants<G>;
    launch_acc<G, W::K[V], W::S[V], W::T[V], W::M[V], W::PF[V]>(blocks64, s, bases, sk, sidx, desc,
                                                                total, partial);
}

template <class G>
void launch_accumulate(int v, unsigned blocks64, cudaStream_t s, const typename G::A *bases,
                       const uint32_t *sk, const uint32_t *sidx, const uint2 *desc,
                       const uint32_t *total, typename G::X *partial) {
    switch (v) {
    case 1:
        return launch_acc_v<G, 1>(blocks64, s, bases, sk, sidx, desc, total, partial);
    case 2:
        return launch_acc_v<G, 2>(blocks64, s, bases, sk, sidx, desc, total, partial);
    case 3:
        return launch_acc_v<G, 3>(blocks64, s, bases, sk, sidx, desc, total, partial);
    default:
        return launch_acc_v<G, 0>(blocks64, s, bases, sk, sidx, desc, total, partial);
    }
}

/* The batch addition's configuration: accumulation variant 0's forms and block. */
template <class G> struct sum_cfg {
    using W = acc_variants<G>;
    using F = typename field_k<G, W::K[0], W::S[0]>::F;
    static constexpr int T = W::T[0], M = W::M[0];
};

/* Host-side group operations on blst points. */
inline void host_dbl(blst_p1 *p) {
    blst_p1_double(p, p);
}
inline void host_dbl(blst_p2 *p) {
    blst_p2_double(p, p);
}
inline void host_add(blst_p1 *p, const blst_p1 *q) {
    blst_p1_add_or_double(p, p, q);
}
inline void host_add(blst_p2 *p, const blst_p2 *q) {
    blst_p2_add_or_double(p, p, q);
}

/* Per-phase wall time when ctx->profile is set (each phase waits for the device). */
struct phase_clock {
    bool on;
    cudaStream_t s;
    double t0, acc[8] = {0};
    static double now() {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    }
    void start() {
        if (on) (void)cudaStreamSynchronize(s), t0 = now();
    }
    void stop(int k) {
        if (on) (void)cudaStreamSynchronize(s), acc[k] += now() - t0;
    }
};

/*
 * Chunk length limit L for n points in B buckets. A bucket of len points
 * becomes ⌈len/L⌉ equal chunks. L is the average bucket size over the number
 * of parts it should make, plus 3σ (len is ~Poisson), so nearly every bucket
 * splits into the same number of parts of nearly equal length: the threads
 * of a warp then finish together. (Cutting at 128 points left a short
 * remainder per bucket: at 2^27 points in 2^19 buckets, half the buckets
 * made 128 + 128 + a few.) Parts: the average over `target` points, but at
 * least enough for min_chunks threads per window (small MSMs fill the GPU)
 * and at most one per 16 points. Heavy buckets (repeated scalars) still
 * split into many chunks.
 */
uint32_t chunk_len(uint32_t n, uint32_t B, uint32_t target, double min_chunks) {
    double avg = (double)n / B;
    double parts = floor(avg / target + 0.5);
    double fill = ceil(min_chunks / B);
    if (parts < fill) parts = fill;
    if (parts > floor(avg / 16)) parts = floor(avg / 16);
    if (parts < 1) parts = 1;
    double L = (avg + 3.0 * sqrt(avg)) / parts;
    return L < 1 ? 1 : (uint32_t)ceil(L);
}

unsigned windows_for(unsigned c) {
    return (255 + c - 1) / c;
}

unsigned choose_c(size_t n) {
    unsigned best = 6;
    double best_cost = 0;
    for (unsigned c = 6; c <= 22; c++) {
        double cost = windows_for(c) * (1.1 * (double)n + 16.0 * (double)(1u << (c - 1)));
        if (c == 6 || cost < best_cost) best = c, best_cost = cost;
    }
    return best;
}

/* Window sums (device, J) to the host point: Horner over the windows (window w width[w] bits
 * wide) plus host[nwin]. */
template <class G>
void horner(typename G::host_point *out, const typename G::J *host, unsigned nwin,
            const unsigned *width) {
    typename G::host_point acc, t;
    memcpy(&acc, &host[nwin - 1], sizeof acc);
    for (int w = (int)nwin - 2; w >= 0; w--) {
        for (unsigned k = 0; k < width[w]; k++)
            host_dbl(&acc);
        memcpy(&t, &host[w], sizeof t);
        host_add(&acc, &t);
    }
    memcpy(&t, &host[nwin], sizeof t);
    host_add(&acc, &t);
    *out = acc;
}

/*
 * Pippenger over n points: point k has scalar scalars[idx ? idx[k] : k] and base
 * bases[idx ? idx[k] : k]. Without idx (the dense path) scalars equal to one are flagged and
 * summed by msm_ones; with idx every listed scalar goes through the windows. *c_used: c.
 */
template <class G>
czk_status pippenger(czk_cuda_ctx *ctx, typename G::host_point *out, const typename G::A *bases,
                     const fr *scalars, const uint32_t *idx, uint32_t n, unsigned *c_used,
                     czk_err *err) {
    using X = typename G::X;
    using J = typename G::J;
    const char *nm = G::name;
    memset(out, 0, sizeof *out); /* infinity (Z = 0) */
    if (n == 0) return CZK_OK;
    const bool dense = idx == nullptr;
    /* batch-affine accumulation (msm_affine.cuh; G1 over ba_fp, G2 over ba_fp2): buckets halved
     * while above ba_k points. Auto: G1 from 2^22 points, G2 from 2^ctx->msm_g2_affine_log. */
    constexpr bool is_g1 = std::is_same<G, g1>::value;
    using BF = typename std::conditional<is_g1, ba_fp, ba_fp2>::type;
    const unsigned auto_log = is_g1 ? 22u : ctx->msm_g2_affine_log;
    const bool hybrid =
        ctx->msm_acc == CZK_CUDA_MSM_ACC_HYBRID ||
        (ctx->msm_acc == CZK_CUDA_MSM_ACC_AUTO && auto_log < 32 && n >= (1ull << auto_log));
    /* Above 2^26 points (MSM H of the 32GiB kinds, 2^27 − 1) the hybrid takes c = 22 unless
     * CZK_CUDA_MSM_C sets c, and K = 2 unless K is set (at c = 20, K = 4 and 8 measured equal:
     * twelfth run): the cost model's c = 20 (with K = 8) fits XYZZ's buckets, and c = 22, K = 4
     * measured 1.9 % faster at 2^27 and 10 ms faster in the partition's MSM stage, K = 2 another
     * 4 ms there (bench/GPU.md, twelfth, thirteenth and nineteenth runs; 2^28, 64GiB, unmeasured).
     * Should the level buffers not fit, the XYZZ fallback below keeps c = 22 (≈ 7 % more work
     * than its own choice, by the model). */
    const bool big_hybrid = hybrid && n > (1u << 26);
    unsigned c = ctx->msm_c ? (unsigned)ctx->msm_c : big_hybrid ? 22u : choose_c(n);
    unsigned nwin = windows_for(c), wide = 0; /* the last `wide` windows are c + 1 bits wide */
    uint32_t ba_k = ctx->msm_acc == CZK_CUDA_MSM_ACC_AFFINE ? 1
                    : hybrid                                ? (ctx->msm_hybrid_k ? ctx->msm_hybrid_k
                                                               : big_hybrid      ? 2
                                                                                 : 8)
                                                            : 0;
    /* The window sums by levels (msm_affine.cuh ba_state::window_sum; CZK_CUDA_MSM_WSUM, auto:
     * above 2^26 points on the hybrid, MSM H): K = 1, and windows that use all 255 bits:
     * ctx->msm_windows of them (default 12: 9 × 21 + 3 × 22 bits) unless CZK_CUDA_MSM_C fixes c.
     * bench/GPU.md twenty-sixth run, H100, MSM G1 2^27: 12 windows 685–686 ms, 11 (9 × 23 +
     * 2 × 24) 695, 13 721, 14 767, c = 22 by levels 698, the running sums 703.5 (the split costs
     * ≈ 2B pairs a window, so wider windows lose what their fewer level pairs gain). A top window
     * whose digits cannot fill its buckets gets fewer. */
    bool by_levels = ba_k && (ctx->msm_wsum == CZK_CUDA_MSM_WSUM_LEVELS ||
                              (ctx->msm_wsum == CZK_CUDA_MSM_WSUM_AUTO && big_hybrid));
    if (by_levels) {
        ba_k = 1;
        if (!ctx->msm_c && (ctx->msm_windows || big_hybrid)) {
            nwin = ctx->msm_windows ? ctx->msm_windows : 12;
            c = 255 / nwin;
            wide = 255 - nwin * c;
        }
    }
    uint32_t B = 1u << (c + (wide ? 1 : 0) - 1); /* the widest window's */
    cudaStream_t s = ctx->stream;
    /* Its level buffers first (≈ 13 GB at 2^27 on G1, 100 bytes a point, twice that on G2): where
     * the device has no room for them this MSM runs with the XYZZ chunks instead (the same sum;
     * msm_last says which). */
    std::unique_ptr<ba_state<BF>> ba;
    static_assert(sizeof(affine<BF>) == sizeof(typename G::A), "layout");
    static_assert(sizeof(xyzz<BF>) == sizeof(X), "layout");
    if (ba_k) {
        ba.reset(new (std::nothrow) ba_state<BF>());
        czk_status st = ba ? ba->init(ctx, n, B, ba_k, by_levels, nm, err)
                           : czk_errf(err, CZK_ERR_NOMEM, "msm_%s affine: host memory", nm);
        if (st == CZK_ERR_NOMEM) {
            ba.reset(); /* its buffers go back to the pool */
            ba_k = 0;
            if (err) err->code = CZK_OK, err->msg[0] = 0;
            if (by_levels) { /* the XYZZ chunks with the running sums, windows as without */
                by_levels = false;
                c = ctx->msm_c ? (unsigned)ctx->msm_c : big_hybrid ? 22u : choose_c(n);
                nwin = windows_for(c), wide = 0;
                B = 1u << (c - 1);
            }
        } else if (st) {
            return st;
        }
    }
    *c_used = c;
    unsigned width[64], wlog[64]; /* window w's bits, log2 of its buckets (nwin <= 43) */
    for (unsigned w = 0, off = 0; w < nwin; off += width[w], w++) {
        width[w] = w + wide >= nwin ? c + 1 : c;
        wlog[w] = width[w] - 1;
        /* |digit| <= 2^(width − 1); the top window's <= 2^(254 − its offset) (the scalars are at
         * most (r − 1)/2 < 2^254 after the sign): with the sums by levels its buckets are cut */
        if (by_levels && w + 1 == nwin && 254 - off < wlog[w]) wlog[w] = 254 - off;
    }
    const unsigned wlog_max = c + (wide ? 1 : 0) - 1; /* B = 2^wlog_max */
    /* running sums: 2..64 buckets per thread (enough threads, short serial chains); by levels:
     * the split's segments of the widest window (ba_tu_threads) */
    uint32_t seg_len = B / SEGMENT_THREADS;
    seg_len = seg_len < 2 ? (B < 2 ? B : 2) : (seg_len > 64 ? 64 : seg_len);
    const uint32_t nseg = by_levels ? ba_tu_threads(wlog_max) : B / seg_len;
    const uint32_t nseg2 = !by_levels && nseg > 1024 ? nseg / 1024 : 0; /* first level, if any */
    const uint32_t L =
        chunk_len(n, B, ctx->msm_chunk ? ctx->msm_chunk : G::CHUNK, 2.0 * ctx->sm_count * 384);
    const uint32_t max_chunks = ba_k ? 1 : n / L + (n < B ? n : B) + 1;
    ctx->msm_last.affine_k = ba_k;
    ctx->msm_last.windows = nwin;
    ctx->msm_last.window_sums_by_levels = by_levels;

    dev_buf<uint32_t> keys, skeys, sidx, iota, start, end, cnt, off, big, counters;
    dev_buf<uint8_t> ones;
    dev_buf<uint2> desc;
    dev_buf<X> partial, bucket, seg, wins;
    dev_buf<J> jac;
    /* The digits of all windows (4·nwin bytes a point, 7 GB at 2^27) go to the caller's scratch
     * memory where it holds them (czk_cuda_set_msm_scratch: MSM H in a circuit gets the dead b
     * and c of H, 8.6 GB at 32GiB), else to a buffer of their own. Where slot 1 (below) is wanted
     * and would not fit beside that buffer, they are made two windows at a time instead, before
     * those windows' sorts (the scalars read once per pair: +17 ms at 2^27, bench/GPU.md twelfth
     * run, about what slot 1 gains). */
    constexpr uint64_t SLOT_RESERVE = 8ull << 30;
    /* slot 1's bytes a point: level buffers (n/2 + n/4 points), running products (n/2), sorted
     * arrays and sort space: 120 on G1, 216 on G2 */
    constexpr uint64_t SLOT_PER_POINT = 3 * sizeof(affine<BF>) / 4 + sizeof(BF) / 2 + 24;
    const bool want_two =
        ba_k && !ctx->profile && (ctx->msm_slots == 2 || (ctx->msm_slots == 0 && n >= (1u << 22)));
    const uint64_t all_keys = 4ull * nwin * n;
    unsigned group = nwin; /* windows whose digits are made together */
    if (ctx->msm_digit_group)
        group = ctx->msm_digit_group < nwin ? ctx->msm_digit_group : nwin;
    else if (want_two && ctx->msm_scratch_bytes < all_keys &&
             device_free_bytes(ctx->device) <
                 (4ull * nwin + 20 + SLOT_PER_POINT) * n + SLOT_RESERVE)
        group = 2 < nwin ? 2 : nwin;
    ctx->msm_last.digit_group = group;
    uint32_t *kp = (uint32_t *)ctx->msm_scratch; /* the digits: scratch, or keys */
    if (ctx->msm_scratch_bytes < 4ull * group * n) {
        CZK_CU(keys.alloc((size_t)group * n, s), "msm_%s: allocate digits (%u windows × %u)", nm,
               group, n);
        kp = keys.p;
    }
    ctx->msm_last.digits_in_scratch = kp != keys.p;
    CZK_CU(skeys.alloc(n, s), "msm_%s: allocate sorted keys", nm);
    CZK_CU(sidx.alloc(n, s), "msm_%s: allocate sorted indices", nm);
    if (dense) CZK_CU(iota.alloc(n, s), "msm_%s: allocate indices", nm);
    CZK_CU(start.alloc(B, s), "msm_%s: allocate bucket bounds", nm);
    CZK_CU(end.alloc(B, s), "msm_%s: allocate bucket bounds", nm);
    CZK_CU(cnt.alloc(B, s), "msm_%s: allocate chunk counts", nm);
    CZK_CU(off.alloc(B, s), "msm_%s: allocate chunk offsets", nm);
    CZK_CU(big.alloc(B, s), "msm_%s: allocate bucket list", nm);
    CZK_CU(counters.alloc(2, s), "msm_%s: allocate counters", nm);
    if (dense) CZK_CU(ones.alloc(n, s), "msm_%s: allocate ones flags", nm);
    CZK_CU(desc.alloc(max_chunks, s), "msm_%s: allocate chunks", nm);
    CZK_CU(partial.alloc(max_chunks, s), "msm_%s: allocate partial sums", nm);
    CZK_CU(bucket.alloc(by_levels ? 1 : B, s), "msm_%s: allocate buckets", nm);
    CZK_CU(seg.alloc((size_t)nwin * nseg, s), "msm_%s: allocate segment sums", nm);
    dev_buf<X> seg2;
    CZK_CU(seg2.alloc((size_t)nwin * (nseg2 ? nseg2 : 1), s), "msm_%s: allocate segment sums", nm);

    const unsigned ones_blocks = (unsigned)(4 * ctx->sm_count);
    const uint32_t ones_per_thread =
        (n + ones_blocks * G::THREADS - 1) / (ones_blocks * G::THREADS);
    CZK_CU(wins.alloc(nwin + 1 + ones_blocks, s), "msm_%s: allocate window sums", nm);
    CZK_CU(jac.alloc(nwin + 1, s), "msm_%s: allocate results", nm);
    const uint32_t *values = dense ? (const uint32_t *)iota.p : idx;

    size_t sort_bytes = 0, scan_bytes = 0;
    CZK_CU(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (const uint32_t *)kp, skeys.p,
                                           values, sidx.p, n, 0, (int)wlog_max + 2, s),
           "msm_%s: sort size", nm);
    CZK_CU(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, cnt.p, off.p, B, s),
           "msm_%s: scan size", nm);
    const size_t temp_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    dev_buf<uint8_t> temp;
    CZK_CU(temp.alloc(temp_bytes, s), "msm_%s: allocate sort space (%zu bytes)", nm, sort_bytes);

    /*
     * Two windows in flight on the batch-affine path: window w runs on slot w & 1 (slot 1 on
     * ctx->stream2, with its own sorted arrays, bounds, buckets, sort space and level buffers,
     * ≈ 15 GB more at 2^27), so that one window's forward passes (memory-bound), inversions (one
     * thread's latency) and sort fill the SMs beside the other's backward passes (bound by the
     * multiplications). Slot 1 only where it fits (else one slot, as before), not when profiling
     * (the phase clock waits on one stream), and not for small MSMs (n < 2^22). Slot 1 needs
     * ≈ 120 bytes a point (level buffers ≈ 100, sorted arrays 8, sort space); it is taken only
     * with SLOT_RESERVE left beyond that, the room the concurrent witness MSMs of a circuit need
     * (backend.cu: ≈ 2 GB each at 32GiB, with their memory cap).
     */
    struct slot {
        dev_buf<uint32_t> skeys, sidx, start, end;
        dev_buf<X> bucket;
        dev_buf<uint8_t> temp;
        ba_state<BF> ba;
    };
    std::unique_ptr<slot> two; /* null: one slot */
    if (want_two && (ctx->msm_slots == 2 ||
                     device_free_bytes(ctx->device) >= SLOT_PER_POINT * n + SLOT_RESERVE)) {
        two.reset(new (std::nothrow) slot());
        czk_err e2;
        const bool ok =
            two && two->ba.init(ctx, n, B, ba_k, by_levels, nm, &e2) == CZK_OK &&
            two->skeys.alloc(n, s) == cudaSuccess && two->sidx.alloc(n, s) == cudaSuccess &&
            two->start.alloc(B, s) == cudaSuccess && two->end.alloc(B, s) == cudaSuccess &&
            two->bucket.alloc(by_levels ? 1 : B, s) == cudaSuccess &&
            two->temp.alloc(temp_bytes, s) == cudaSuccess;
        (void)cudaGetLastError(); /* a failed allocation: one slot */
        if (!ok) two.reset();     /* its buffers go back to the pool */
    }
    const bool use_two = two != nullptr;
    ctx->msm_last.slots = use_two ? 2 : 1;
    /* on any return, stream2 is idle before slot 1's buffers are freed (stream-ordered on s) */
    struct stream_join {
        cudaStream_t s2;
        ~stream_join() {
            if (s2) (void)cudaStreamSynchronize(s2);
        }
    } join{use_two ? ctx->stream2 : nullptr};

    /* digits made a group at a time with two slots: made on s after stream2's last sort
     * (ev_sorted), and stream2's sorts after them (ev_digits) */
    struct event_pair {
        cudaEvent_t e[2] = {nullptr, nullptr};
        ~event_pair() {
            for (cudaEvent_t x : e)
                if (x) (void)cudaEventDestroy(x);
        }
    } gev;
    const bool grouped_two = use_two && group < nwin;
    if (grouped_two)
        for (cudaEvent_t &x : gev.e)
            CZK_CU(cudaEventCreateWithFlags(&x, cudaEventDisableTiming), "msm_%s: event", nm);
    cudaEvent_t ev_sorted = gev.e[0], ev_digits = gev.e[1];

    phase_clock pc{ctx->profile != 0, s, 0};
    pc.start();
    msm_digits<<<grid_for(n, 256), 256, 0, s>>>(scalars, idx, n, c, nwin - wide, 0, group, kp,
                                                dense, dense ? ones.p : nullptr);
    CZK_LAUNCH("msm_%s: digits", nm);
    if (dense) {
        msm_iota<<<grid_for(n, 256), 256, 0, s>>>(iota, n);
        CZK_LAUNCH("msm_%s: indices", nm);
    }
    pc.stop(0);

    if (use_two) { /* slot 1 starts after the digits (and the allocations on s) */
        CZK_CU(cudaEventRecord(ctx->ev_fork, s), "msm_%s: fork", nm);
        CZK_CU(cudaStreamWaitEvent(ctx->stream2, ctx->ev_fork, 0), "msm_%s: fork", nm);
    }
    for (unsigned w = 0; w < nwin; w++) {
        const bool one = !use_two || (w & 1) == 0;
        cudaStream_t ws = one ? s : ctx->stream2;
        uint32_t *w_skeys = one ? skeys.p : two->skeys.p, *w_sidx = one ? sidx.p : two->sidx.p;
        uint32_t *w_start = one ? start.p : two->start.p, *w_end = one ? end.p : two->end.p;
        X *w_bucket = one ? bucket.p : two->bucket.p;
        uint8_t *w_temp = one ? temp.p : two->temp.p;
        if (w && w % group == 0) { /* the next group's digits, over the last group's */
            if (grouped_two)
                CZK_CU(cudaStreamWaitEvent(s, ev_sorted, 0), "msm_%s: wait for slot 1", nm);
            pc.start();
            const unsigned w1 = w + group < nwin ? w + group : nwin;
            msm_digits<<<grid_for(n, 256), 256, 0, s>>>(scalars, idx, n, c, nwin - wide, w, w1, kp,
                                                        dense, nullptr);
            CZK_LAUNCH("msm_%s: digits of windows %u..%u", nm, w, w1 - 1);
            pc.stop(0);
            if (grouped_two) CZK_CU(cudaEventRecord(ev_digits, s), "msm_%s: digits made", nm);
        }
        if (grouped_two && !one)
            CZK_CU(cudaStreamWaitEvent(ws, ev_digits, 0), "msm_%s: wait for the digits", nm);
        pc.start();
        CZK_CU(cub::DeviceRadixSort::SortPairs(w_temp, sort_bytes,
                                               (const uint32_t *)kp + (size_t)(w % group) * n,
                                               w_skeys, values, w_sidx, n, 0, (int)wlog[w] + 2, ws),
               "msm_%s: sort window %u", nm, w);
        pc.stop(1);
        if (grouped_two && !one) CZK_CU(cudaEventRecord(ev_sorted, ws), "msm_%s: sorted", nm);
        pc.start();
        const uint32_t Bw = 1u << wlog[w]; /* B but in a cut top window */
        CZK_CU(cudaMemsetAsync(w_start, 0, Bw * sizeof(uint32_t), ws), "msm_%s: clear bounds", nm);
        CZK_CU(cudaMemsetAsync(w_end, 0, Bw * sizeof(uint32_t), ws), "msm_%s: clear bounds", nm);
        msm_bounds<<<grid_for(n, 256), 256, 0, ws>>>(w_skeys, n, w_start, w_end);
        CZK_LAUNCH("msm_%s: bucket bounds, window %u", nm, w);
        if (ba_k) {
            pc.stop(2);
            /* phases 3 (levels) and 4 (bucket sums) */
            ba_state<BF> *wba = one ? ba.get() : &two->ba;
            czk_status st =
                by_levels ? wba->window_sum(ws, (const affine<BF> *)bases, w_skeys, w_sidx, w_start,
                                            w_end, wlog[w], nseg,
                                            (xyzz<BF> *)(seg.p + (size_t)w * nseg), pc, nm, w, err)
                          : wba->window(ws, (const affine<BF> *)bases, w_skeys, w_sidx, w_start,
                                        w_end, (xyzz<BF> *)w_bucket, pc, nm, w, err);
            if (st) return st;
        } else {
            CZK_CU(cudaMemsetAsync(counters, 0, 2 * sizeof(uint32_t), s), "msm_%s: clear counters",
                   nm);
            msm_chunk_count<<<grid_for(B, 256), 256, 0, s>>>(start, end, B, L, cnt);
            CZK_LAUNCH("msm_%s: chunk counts, window %u", nm, w);
            CZK_CU(cub::DeviceScan::ExclusiveSum(temp.p, scan_bytes, cnt.p, off.p, B, s),
                   "msm_%s: chunk offsets, window %u", nm, w);
            msm_chunk_desc<<<grid_for(B, 256), 256, 0, s>>>(start, end, cnt, off, B, desc,
                                                            counters.p);
            CZK_LAUNCH("msm_%s: chunks, window %u", nm, w);
            pc.stop(2);
            pc.start();
            launch_accumulate<G>(ctx->msm_acc, grid_for(max_chunks, 64), s, bases, skeys, sidx,
                                 desc, counters.p, partial);
            CZK_LAUNCH("msm_%s: accumulate, window %u", nm, w);
            pc.stop(3);
            pc.start();
            msm_bucket_sum<G><<<grid_for(B, G::THREADS), G::THREADS, 0, s>>>(
                partial, cnt, off, B, bucket, big, counters.p + 1);
            CZK_LAUNCH("msm_%s: bucket sums, window %u", nm, w);
            msm_bucket_sum_big<G><<<2 * ctx->sm_count, G::THREADS, 0, s>>>(
                partial, cnt, off, bucket, big, counters.p + 1);
            CZK_LAUNCH("msm_%s: large bucket sums, window %u", nm, w);
            pc.stop(4);
        }
        if (by_levels) continue; /* its window sum is in seg */
        pc.start();
        msm_running_sum<G>
            <<<grid_for(nseg, 128), 128, 0, ws>>>(w_bucket, B, seg_len, seg + (size_t)w * nseg);
        CZK_LAUNCH("msm_%s: running sums, window %u", nm, w);
        pc.stop(5);
    }
    if (use_two) { /* the window sums wait for slot 1; so do the frees of its buffers on s */
        CZK_CU(cudaEventRecord(ctx->ev_join, ctx->stream2), "msm_%s: join", nm);
        CZK_CU(cudaStreamWaitEvent(s, ctx->ev_join, 0), "msm_%s: join", nm);
    }
    pc.start();
    if (nseg2) { /* nseg = nseg2 · 1024, nseg2 <= 1024 */
        msm_reduce_groups<G><<<nwin * nseg2, G::THREADS, 0, s>>>(seg, 1024, seg2);
        CZK_LAUNCH("msm_%s: segment sums", nm);
        msm_reduce_groups<G><<<nwin, G::THREADS, 0, s>>>(seg2, nseg2, wins);
    } else {
        msm_reduce_groups<G><<<nwin, G::THREADS, 0, s>>>(seg, nseg, wins);
    }
    CZK_LAUNCH("msm_%s: window sums", nm);
    if (dense) {
        msm_ones<G>
            <<<ones_blocks, G::THREADS, 0, s>>>(bases, ones, n, ones_per_thread, wins + nwin + 1);
        CZK_LAUNCH("msm_%s: batch addition of ones", nm);
        msm_reduce_groups<G><<<1, G::THREADS, 0, s>>>(wins + nwin + 1, ones_blocks, wins + nwin);
        CZK_LAUNCH("msm_%s: sum of ones", nm);
    } else {
        CZK_CU(cudaMemsetAsync(wins + nwin, 0, sizeof(X), s), "msm_%s: no ones", nm); /* inf */
    }
    msm_to_jacobian<G><<<1, 64, 0, s>>>(wins, nwin + 1, jac);
    CZK_LAUNCH("msm_%s: to jacobian", nm);

    J host[64]; /* nwin + 1 <= 44 */
    CZK_CU(cudaMemcpyAsync(host, jac, (nwin + 1) * sizeof(J), cudaMemcpyDeviceToHost, s),
           "msm_%s: download window sums", nm);
    CZK_CU(cudaStreamSynchronize(s), "msm_%s: synchronize", nm);
    pc.stop(6);
    if (pc.on)
        fprintf(stderr,
                "msm_%s n=%u%s c=%u windows=%u%s: digits %.2f, sort %.2f, chunking %.2f, "
                "accumulate %.2f, bucket sums %.2f, running sums %.2f, final %.2f ms\n",
                nm, n, dense ? "" : " (compacted)", c, nwin,
                ba_k == 1 ? " batch-affine"
                : ba_k    ? " hybrid"
                          : "",
                pc.acc[0], pc.acc[1], pc.acc[2], pc.acc[3], pc.acc[4], pc.acc[5], pc.acc[6]);
    if (ctx->msm_log && n >= (1u << 22))
        fprintf(stderr,
                "msm_%s n=%u%s c=%u windows=%u (%u of c + 1 bits): %s (K = %u)%s%s, %u slot%s, "
                "digits %u windows at a time\n",
                nm, n, dense ? "" : " (compacted)", c, nwin, wide,
                ba_k == 1 ? "batch-affine"
                : ba_k    ? "hybrid"
                          : "xyzz",
                ba_k, by_levels ? ", window sums by levels" : "",
                !ba_k || !is_g1     ? ""
                : ctx->msm_mul == 1 ? ", backward passes' additions by mul_ka"
                : ctx->msm_mul == 2 ? ", backward passes by mul_ka (two blocks an SM)"
                                    : "",
                use_two ? 2u : 1u, use_two ? "s" : "", group);
    if (pc.on && ba)
        fprintf(stderr,
                "msm_%s levels: counts+offsets %.2f, forward %.2f, inversion %.2f, backward "
                "%.2f ms\n",
                nm, ba->t_pass[0], ba->t_pass[1], ba->t_pass[2], ba->t_pass[3]);
    horner<G>(out, host, nwin, width);
    return CZK_OK;
}

/* The xyzz point dev[0] to the host: to Jacobian in jac[0], downloaded, the stream waited for. */
template <class G>
czk_status sum_to_host(cudaStream_t s, typename G::host_point *out, const typename G::X *dev,
                       typename G::J *jac, const char *nm, czk_err *err) {
    using J = typename G::J;
    msm_to_jacobian<G><<<1, 64, 0, s>>>(dev, 1, jac);
    CZK_LAUNCH("msm_%s: to jacobian", nm);
    J host;
    CZK_CU(cudaMemcpyAsync(&host, jac, sizeof(J), cudaMemcpyDeviceToHost, s),
           "msm_%s: download the sum of ones", nm);
    CZK_CU(cudaStreamSynchronize(s), "msm_%s: synchronize", nm);
    static_assert(sizeof(J) == sizeof *out, "layout");
    memcpy(out, &host, sizeof host);
    return CZK_OK;
}

/* Σ bases[list[k]], k < count (batch addition, msm_sum_list), to the host. */
template <class G>
czk_status sum_list(czk_cuda_ctx *ctx, typename G::host_point *out, const typename G::A *bases,
                    const uint32_t *list, uint32_t count, czk_err *err) {
    using X = typename G::X;
    using J = typename G::J;
    using C = sum_cfg<G>;
    using F = typename C::F;
    static_assert(sizeof(F) == sizeof(typename G::F), "layout");
    const char *nm = G::name;
    memset(out, 0, sizeof *out);
    if (count == 0) return CZK_OK;
    cudaStream_t s = ctx->stream;
    int per_sm = 0;
    CZK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, msm_sum_list<F, C::T, C::M>, C::T,
                                                         0),
           "msm_%s: occupancy of the batch addition", nm);
    uint32_t blocks = (uint32_t)(per_sm > 0 ? per_sm : 1) * (uint32_t)ctx->sm_count;
    uint32_t need = (count + C::T - 1) / C::T;
    if (blocks > need) blocks = need;
    dev_buf<X> partial, sums;
    dev_buf<J> jac;
    CZK_CU(partial.alloc((size_t)blocks * C::T, s), "msm_%s: allocate batch-addition sums", nm);
    CZK_CU(sums.alloc(blocks + 1, s), "msm_%s: allocate batch-addition sums", nm);
    CZK_CU(jac.alloc(1, s), "msm_%s: allocate result", nm);
    msm_sum_list<F, C::T, C::M>
        <<<blocks, C::T, 0, s>>>((const affine<F> *)bases, list, count, (xyzz<F> *)partial.p);
    CZK_LAUNCH("msm_%s: batch addition of %u ones", nm, count);
    msm_reduce_groups<G><<<blocks, G::THREADS, 0, s>>>(partial, C::T, sums.p + 1);
    CZK_LAUNCH("msm_%s: batch-addition sums", nm);
    msm_reduce_groups<G><<<1, G::THREADS, 0, s>>>(sums.p + 1, blocks, sums.p);
    CZK_LAUNCH("msm_%s: sum of ones", nm);
    return sum_to_host<G>(s, out, sums, jac, nm, err);
}

/* A list of count entries as B runs of len (the last shorter): keys 2·(run + 1), run bounds. */
__global__ void ones_runs_kernel(uint32_t count, uint32_t len, uint32_t B, uint32_t *keys,
                                 uint32_t *start, uint32_t *end) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) keys[i] = 2 * (i / len + 1);
    if (i < B) {
        const uint64_t lo = (uint64_t)i * len, hi = lo + len;
        start[i] = (uint32_t)(lo < count ? lo : count);
        end[i] = (uint32_t)(hi < count ? hi : count);
    }
}

/* Points a run of the batch-affine sum of ones, and the largest piece (the concurrent witness
 * MSMs' memory: ≈ 100 bytes a G1 point, ≈ 250 a G2 point at this size). */
constexpr uint32_t ONES_RUN = 4096, ONES_PIECE = 1u << 23, ONES_AFFINE_MIN = 1u << 16;

/*
 * Σ bases[list[k]], k < count, by the batch-affine levels (msm_affine.cuh; CZK_CUDA_MSM_ONES =
 * affine): the list cut into runs of ONES_RUN points taken as the buckets of one window (keys
 * 2·(run + 1), already in order, the list itself as the sorted indices), each run halved by
 * affine pair additions down to 4 points (≈ 6.8 Fp multiplications an addition instead of
 * XYZZ's ≈ 10.8; Fp2 ≈ 17 instead of 28), the run sums added by one block; in pieces of at most
 * ONES_PIECE points (or the context's memory cap, czk_cuda_set_msm_cap, where smaller). Written for
 * the 32GiB witness MSMs (L, A: ≈ 61 M ones, B: ≈ 16 M); not yet measured on a GPU (bench/GPU.md,
 * state after the fourteenth run, item 2).
 */
template <class G>
czk_status sum_list_affine(czk_cuda_ctx *ctx, typename G::host_point *out,
                           const typename G::A *bases, const uint32_t *list, uint32_t count,
                           czk_err *err) {
    using X = typename G::X;
    using J = typename G::J;
    constexpr bool is_g1 = std::is_same<G, g1>::value;
    using BF = typename std::conditional<is_g1, ba_fp, ba_fp2>::type;
    static_assert(sizeof(affine<BF>) == sizeof(typename G::A), "layout");
    static_assert(sizeof(xyzz<BF>) == sizeof(X), "layout");
    const char *nm = G::name;
    memset(out, 0, sizeof *out);
    if (count == 0) return CZK_OK;
    cudaStream_t s = ctx->stream;
    uint32_t piece = count < ONES_PIECE ? count : ONES_PIECE;
    if (ctx->msm_cap && ctx->msm_cap < piece) piece = (uint32_t)ctx->msm_cap;
    const uint32_t Bmax = (piece + ONES_RUN - 1) / ONES_RUN;
    const uint32_t pieces = (count + piece - 1) / piece;
    dev_buf<uint32_t> keys, start, end;
    dev_buf<X> bucket, sums; /* sums[1 + p]: piece p's; sums[0]: all of them */
    dev_buf<J> jac;
    CZK_CU(keys.alloc(piece, s), "msm_%s: allocate the ones' keys", nm);
    CZK_CU(start.alloc(Bmax, s), "msm_%s: allocate the ones' runs", nm);
    CZK_CU(end.alloc(Bmax, s), "msm_%s: allocate the ones' runs", nm);
    CZK_CU(bucket.alloc(Bmax, s), "msm_%s: allocate the ones' run sums", nm);
    CZK_CU(sums.alloc((size_t)pieces + 1, s), "msm_%s: allocate the sums of ones", nm);
    CZK_CU(jac.alloc(1, s), "msm_%s: allocate the sum of ones", nm);
    ba_state<BF> ba;
    czk_status st;
    if ((st = ba.init(ctx, piece, Bmax, 4, false, nm, err))) return st;
    phase_clock pc{false, s, 0};
    for (uint32_t o = 0; o < count; o += piece) {
        const uint32_t len = count - o < piece ? count - o : piece;
        const uint32_t B = (len + ONES_RUN - 1) / ONES_RUN;
        ones_runs_kernel<<<grid_for(len, 256), 256, 0, s>>>(len, ONES_RUN, B, keys, start, end);
        CZK_LAUNCH("msm_%s: runs of %u ones", nm, len);
        ba.B = B; /* the piece's runs (the buffers were sized for Bmax) */
        if ((st = ba.window(s, (const affine<BF> *)bases, keys, list + o, start, end,
                            (xyzz<BF> *)bucket.p, pc, nm, 0, err)))
            return st;
        msm_reduce_groups<G><<<1, G::THREADS, 0, s>>>(bucket, B, sums.p + 1 + o / piece);
        CZK_LAUNCH("msm_%s: sum of %u runs of ones", nm, B);
    }
    msm_reduce_groups<G><<<1, G::THREADS, 0, s>>>(sums.p + 1, pieces, sums.p);
    CZK_LAUNCH("msm_%s: sum of %u pieces of ones", nm, pieces);
    return sum_to_host<G>(s, out, sums, jac, nm, err);
}

constexpr uint32_t SAMPLES = 2048;

template <class G>
czk_status msm(czk_cuda_ctx *ctx, typename G::host_point *out, const typename G::A *bases,
               const fr *scalars, size_t n64, czk_err *err) {
    const char *nm = G::name;
    memset(out, 0, sizeof *out); /* infinity (Z = 0) */
    czk_cuda_msm_info &info = ctx->msm_last;
    memset(&info, 0, sizeof info);
    if (n64 == 0) return CZK_OK;
    if (n64 >= (1ull << 31))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "msm_%s: n = %zu is not below 2^31", nm, n64);
    CZK_CU(cudaSetDevice(ctx->device), "msm_%s: select device", nm);
    const uint32_t n = (uint32_t)n64;
    cudaStream_t s = ctx->stream;
    dev_buf<uint32_t> counters; /* ones, others, sampled others */
    CZK_CU(counters.alloc(3, s), "msm_%s: allocate counters", nm);
    CZK_CU(cudaMemsetAsync(counters, 0, 3 * sizeof(uint32_t), s), "msm_%s: clear counters", nm);
    uint32_t cnt[3] = {0, 0, 0};
    bool sparse = ctx->msm_cap != 0;
    if (!sparse) {
        const uint32_t samples = n < SAMPLES ? n : SAMPLES;
        msm_sample<<<1, 256, 0, s>>>(scalars, n, samples, counters.p + 2);
        CZK_LAUNCH("msm_%s: sample the scalars", nm);
        CZK_CU(cudaMemcpyAsync(&cnt[2], counters.p + 2, 4, cudaMemcpyDeviceToHost, s),
               "msm_%s: download the sample", nm);
        CZK_CU(cudaStreamSynchronize(s), "msm_%s: synchronize", nm);
        sparse = (uint64_t)cnt[2] * 8 <= (uint64_t)samples * 7;
    }
    if (!sparse) return pippenger<G>(ctx, out, bases, scalars, nullptr, n, &info.c, err);
    info.sparse = true;
    dev_buf<uint32_t> list;
    CZK_CU(list.alloc(n, s), "msm_%s: allocate the index list (%u)", nm, n);
    msm_classify<<<grid_for(n, CL_THREADS * CL_ITEMS), CL_THREADS, 0, s>>>(scalars, n, list,
                                                                           counters);
    CZK_LAUNCH("msm_%s: classify the scalars", nm);
    CZK_CU(cudaMemcpyAsync(cnt, counters.p, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s),
           "msm_%s: download the counts", nm);
    CZK_CU(cudaStreamSynchronize(s), "msm_%s: synchronize", nm);
    const uint32_t n1 = cnt[0], m = cnt[1];
    if ((uint64_t)n1 + m > n)
        return czk_errf(err, CZK_ERR_INTERNAL, "msm_%s: %u ones and %u others among %u scalars", nm,
                        n1, m, n);
    info.ones = n1;
    info.others = m;
    typename G::host_point acc, part;
    memset(&acc, 0, sizeof acc);
    const bool ones_affine = ctx->msm_ones_affine && n1 >= ONES_AFFINE_MIN;
    info.ones_affine = ones_affine;
    czk_status st = ones_affine ? sum_list_affine<G>(ctx, &acc, bases, list, n1, err)
                                : sum_list<G>(ctx, &acc, bases, list, n1, err);
    if (st) return st;
    const uint32_t piece = ctx->msm_cap && ctx->msm_cap < m ? (uint32_t)ctx->msm_cap : m;
    /* the others' Pippenger under the sparse path's own accumulation and window size, where set
     * (CZK_CUDA_MSM_SPARSE_ACC / _C, benchmark knobs); the context's restored on every return */
    struct sparse_override {
        czk_cuda_ctx *ctx;
        int acc, c;
        ~sparse_override() {
            ctx->msm_acc = acc;
            ctx->msm_c = c;
        }
    } restore{ctx, ctx->msm_acc, ctx->msm_c};
    if (ctx->msm_sparse_acc >= 0) ctx->msm_acc = ctx->msm_sparse_acc;
    if (ctx->msm_sparse_c) ctx->msm_c = ctx->msm_sparse_c;
    for (uint32_t o = 0; o < m; o += piece) {
        uint32_t len = m - o < piece ? m - o : piece;
        if ((st =
                 pippenger<G>(ctx, &part, bases, scalars, list.p + (n - m) + o, len, &info.c, err)))
            return st;
        host_add(&acc, &part);
        info.pieces++;
    }
    *out = acc;
    return CZK_OK;
}

} // namespace

} // namespace czkg

#endif
