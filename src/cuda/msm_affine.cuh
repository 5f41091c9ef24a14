/*
 * Batch-affine bucket accumulation for the G1 Pippenger of msm.cuh, selected
 * by CZK_CUDA_MSM_ACC = 4 ("affine") or 5 ("hybrid"; the default, 6 "auto",
 * takes it from 2^22 points since the 32GiB engine run of bench/GPU.md "Sixth
 * run": 1.45 -> 1.28 s per partition, and XYZZ below, where it is faster);
 * 0 ("xyzz") selects the XYZZ chunks (msm_accumulate), which also serve an
 * MSM whose level buffers do not fit in device memory (≈ 100 bytes a point).
 *
 * After a window's sort the points of bucket b are the run [start_b, end_b)
 * of the sorted indices. Instead of one thread summing a chunk of the run in
 * XYZZ coordinates, the run is halved level by level by affine additions of
 * adjacent points: at level l bucket b holds m_l = ⌈m_0/2^l⌉ points, and
 * points 2j, 2j+1 make its output j (an odd last point is passed on). A
 * bucket takes part while m_l > K; once it holds at most K points, one
 * thread sums them in XYZZ (ba_final, at most K − 1 mixed additions), and the
 * window sum runs as before (msm_running_sum). K = 1 (variant 4) halves to
 * one point; K = 8 (variant 5, the hybrid) stops three levels earlier, where
 * levels are small and their fixed cost (launches, the inversion's latency)
 * outweighs the cheaper additions (K = 2 with c = 22 above 2^26 points,
 * where the buckets hold 4× fewer: msm.cuh). With the window sums by levels
 * (ba_state::window_sum, below) K = 1 and the running sum is replaced by the
 * split T_h, U_l, made by the same levels.
 *
 * One level, all buckets of the window at once:
 *  1. count (ba_outputs): ⌈m_l/2⌉ outputs for a bucket taking part, else 0;
 *     exclusive sum (CUB) → out_start[b]; out_start[B] = the level's outputs.
 *  2. forward (ba_forward): thread t owns a strip of T outputs that crosses
 *     bucket boundaries freely, so a bucket of any size (one that holds
 *     every point, with repeated scalars) spreads evenly over threads.
 *     CZK_CUDA_MSM_STRIPS=contiguous (the default) gives thread t the
 *     outputs tT .. tT + T − 1. =interleaved makes the strips of a warp
 *     one group: lane j of group w takes the outputs w·32T + j + 32k, so
 *     that at each step the 32 lanes take 32 consecutive outputs and their
 *     loads of sorted indices, keys and bucket bounds are coalesced
 *     (ba_strip_span). Measured both ways: on an H100 interleaved is
 *     faster (bench/GPU.md twenty-second run, MSM G1 2^27 705.5 → 678.2
 *     ms), on an H200 slower (twenty-fourth run, the 32GiB partition's MSM
 *     H 627 → 638 ms); the default is the H200's. Per output
 *     the denominator d of λ and the running product c_k = d_0···d_k
 *     (Montgomery's trick) go to pre[k·S + t] (coalesced over a warp);
 *     c_{n−1} is the strip's total.
 *  3. inversion (ba_inv_kernel): the strip totals of the whole level are
 *     inverted together: each thread takes a run of totals, a block-wide
 *     product scan, ONE inversion per block (inv_binary, field.cuh), then
 *     back-substitution. At 2^27 that is one inversion for ≈ 1.3 · 10^5
 *     additions, so its multiplications vanish; its latency (~0.1 ms on
 *     one thread) is a fixed cost per level.
 *  4. backward (ba_backward): the strip in reverse: 1/d_k = (1/c_k)·c_{k−1},
 *     1/c_{k−1} = (1/c_k)·d_k; λ, x3 = λ² − x1 − x2, y3 = λ(x1 − x3) − y1;
 *     the result goes to the next level's buffer at its output position, or
 *     to fin[b·K + j] once the bucket is done.
 * Exceptional pairs are decided the same way in steps 2 and 4 (ba_case) and
 * put d = 1 into the product: P + O = P, O + Q = Q, P + P = 2P with λ =
 * 3x²/(2y), P + (−P) = O, a point with y = 0 (never in G1) doubled = O, an
 * odd last point passed on. O is (0, 0) as in the bases (blst's convention;
 * (0, 0) is not on the curve). No denominator is zero, so no product is.
 *
 * Multiplications per pair (M a multiplication, S a squaring; even/odd forms
 * inline, sqr_eo ≈ 0.78 M): forward 1 M (c_k); backward 2 M (the trick),
 * 1 M (λ), 1 S (λ²), 1 M (y3): 5 M + 1 S ≈ 5.8 M per addition, plus ≈ 3/T M
 * for the totals' inversion (T = 32 at 2^27) — against madd-2008-s's 8 M +
 * 2 S ≈ 9.6 M (≈ 10.8 M-equivalents measured with its additions, bench/GPU.md).
 * A doubling costs 1 S more. At 2^27, c = 20: 1.74e9 additions ≈ 1.0e10 M,
 * ≈ 0.38 s at 2.67e10 M/s (XYZZ accumulation now: 0.805 s).
 *
 * Memory traffic per pair: forward reads both x (2 · 48 B) and writes c_k
 * (48 B); backward reads c_{k−1} (48 B) and both points (2 · 96 B) and
 * writes the result (96 B): 480 B (level 0 reads the bases through the
 * sorted indices, + 16 B of index and key). A window's levels hold ≈ n
 * pairs (n/2 + n/4 + ...): at 2^27, c = 20 (13 windows of 2^19 buckets of
 * ≈ 256 points) ≈ 2^27 · 496 B = 67 GB per window, 870 GB per MSM, ≈ 0.22–
 * 0.25 s at 3.5–4 TB/s: below the multiplications, not far. The XYZZ path
 * reads 96 B per addition (0.17 TB per MSM). So T is chosen for enough
 * threads per level (≥ 1024 per SM) and at most 32 (T only sets how many
 * totals the inversion takes; the traffic per pair does not depend on it),
 * and pre is laid out [k][t] so that a warp's c_k accesses are contiguous.
 * Device memory at 2^27: the two level buffers (n/2 + B and n/4 + B points,
 * 9.8 GB), pre (n/2 · 48 B, 3.2 GB), fin (B·K·96 B: 50 / 400 MB).
 *
 * Tried and dropped (bench/GPU.md, eleventh run): issuing the next output's
 * loads before this output's arithmetic in either pass. It costs registers
 * (forward 80 → 106, backward 128 → 204) and so blocks per SM, and lost at
 * 2^27: forward one ahead 637 → 655 ms, backward one ahead → 744 ms. Nor
 * does an L2 prefetch of level 0's bases 2–8 outputs ahead in the forward
 * pass, which holds no registers (twentieth run, H100: forward 177 → 257–272
 * ms): the pass is bound by the requests in flight, and the prefetch adds
 * requests. Nor a third more warps: the kernel held to 64 registers, four
 * blocks an SM instead of three, with ba_den's exceptional pairs out of line
 * (24 bytes spilled; twenty-third run, H100: forward 164 → 170 ms, MSM G1 2^27
 * 678.2 → 681.9; removed after it, commit 17f4732 has it).
 *
 * The per-thread bodies are __host__ __device__ and run on the host in
 * czk_cuda_msm_affine_emulate (msm_affine.cu; tests without a GPU).
 */
#ifndef CZK_CUDA_MSM_AFFINE_CUH
#define CZK_CUDA_MSM_AFFINE_CUH

#include "ctx.cuh"
#include "group.cuh"

#include <cub/device/device_scan.cuh>

#include <string.h>

namespace czkg {

/* The path's Fp: the even/odd multiplication and squaring inline (accumulation variant 0's). */
using ba_fp = mont<with_mul<fp_params, MUL_EO, SQR_EO>>;
/* The same with Karatsuba's product (mul_ka), for G1's backward passes under CZK_CUDA_MSM_MUL
 * (ba_backward_launch, ba_run_mul). */
using ba_fp_ka = mont<with_mul<fp_params, MUL_KA, SQR_EO>>;
/* G2's: Fp2 over it (Karatsuba, three of ba_fp's products; the inversion by the norm). */
using ba_fp2 = fp2_t<ba_fp>;

namespace {

constexpr uint32_t BA_THREADS = 256; /* forward / backward blocks */
constexpr uint32_t BA_MAX_STRIP = 32;
constexpr uint32_t BA_THREADS_PER_SM = 1024; /* wanted per level (T smaller below that) */

/* The inversion's block: two scan arrays of F in shared memory (≤ 24 KB). */
template <class F> constexpr uint32_t ba_inv_threads() {
    return sizeof(F) <= 48 ? 256 : 128;
}

/* ⌈m/2^l⌉: the points of a bucket of m at level l. */
CZK_HD uint32_t ba_at(uint32_t m, uint32_t l) {
    return (uint32_t)(((uint64_t)m + (1ull << l) - 1) >> l);
}

/* Levels until a bucket of m points holds at most K (K >= 1). */
CZK_HD uint32_t ba_levels(uint32_t m, uint32_t K) {
    uint32_t l = 0;
    while (ba_at(m, l) > K)
        l++;
    return l;
}

/* Outputs of a bucket of m0 points at level l: ⌈m_l/2⌉ while it takes part, else 0. */
CZK_HD uint32_t ba_outputs(uint32_t m0, uint32_t K, uint32_t l) {
    uint32_t m = ba_at(m0, l);
    return m > K ? (m + 1) / 2 : 0;
}

/*
 * The bucket of output o (o < os[B]): the largest b < B with os[b] <= o. A
 * bucket without outputs starts where the next one does, so the largest
 * such b is the one that has output o. ba_find_in searches [lo, hi) only
 * (os[lo] <= o, and the answer below hi).
 */
CZK_HD uint32_t ba_find_in(const uint32_t *os, uint32_t lo, uint32_t hi, uint32_t o) {
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (os[mid] <= o)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

CZK_HD uint32_t ba_find(const uint32_t *os, uint32_t B, uint32_t o) {
    return ba_find_in(os, 0, B, o);
}

/* Output o's bucket given b, an earlier output's bucket: a few steps up, then a search. */
CZK_HD uint32_t ba_up(const uint32_t *os, uint32_t B, uint32_t b, uint32_t o) {
    for (int k = 0; k < 3; k++) {
        if (o < os[b + 1]) return b; /* os[b] <= o < os[B], so b + 1 <= B */
        b++;
    }
    return ba_find_in(os, b, B, o);
}

/* Output o's bucket given b, a later output's bucket. */
CZK_HD uint32_t ba_down(const uint32_t *os, uint32_t b, uint32_t o) {
    for (int k = 0; k < 3; k++) {
        if (os[b] <= o) return b;
        b--; /* os[0] = 0 <= o, so b > 0 here */
    }
    return ba_find_in(os, 0, b + 1, o);
}

/*
 * Strip t's outputs: o_k = o0 + k·G for k < n (n = 0: none). Strips come in
 * groups of G: group w holds the outputs [w·G·T, (w + 1)·G·T) and its strip j
 * those ≡ j modulo G, so with G = 32 (one warp a group) the lanes of a warp
 * work on 32 consecutive outputs at each step and their loads of sorted
 * indices, keys and bucket bounds are coalesced. G = 1: strip t holds
 * [t·T, t·T + T).
 */
struct ba_span {
    uint32_t o0, n;
};
CZK_HD ba_span ba_strip_span(uint32_t total, uint32_t T, uint32_t G, uint32_t t) {
    const uint64_t first = (uint64_t)(t / G) * G * T + t % G;
    if (first >= total) return {0, 0};
    const uint64_t left = (total - first + G - 1) / G;
    return {(uint32_t)first, (uint32_t)(left < T ? left : T)};
}

/* Strips with outputs in a level of `total` (they are the first ones: the inversion's count). */
CZK_HD uint32_t ba_strips_used(uint32_t total, uint32_t T, uint32_t G) {
    const uint64_t per = (uint64_t)G * T, rem = total % per;
    return (uint32_t)(total / per * G + (rem < G ? rem : G));
}

/* Strips to launch for a level of at most `bound` outputs (whole groups). */
CZK_HD uint64_t ba_strips(uint64_t bound, uint32_t T, uint32_t G) {
    const uint64_t per = (uint64_t)G * T;
    return (bound + per - 1) / per * G;
}

/* One level of one window, as the forward and backward passes see it. */
template <class F> struct ba_level {
    const affine<F> *bases;       /* level 0 input: bases[sidx[i]], negated where skeys[i] & 1 */
    const uint32_t *sidx, *skeys; /* the window's sorted indices and keys */
    const affine<F> *in;          /* level >= 1 input: the previous level's outputs */
    affine<F> *out;               /* outputs of buckets still taking part, at their position */
    affine<F> *fin;               /* outputs of buckets done: fin[b·K + j] */
    const uint32_t *m0;           /* points per bucket before the levels */
    const uint32_t *in_start;     /* first input of bucket b (level 0: start_b) */
    const uint32_t *out_start;    /* first output of bucket b; [B]: the level's outputs */
    F *pre;                       /* running products, [k·S + t] */
    F *tot;                       /* strip totals, then their inverses */
    uint32_t B, K, level, T, S;   /* S: strips of the launch (ba_strips) */
    uint32_t G;                   /* strips a group (ba_strip_span) */
};

/* Output o of bucket b. */
struct ba_slot {
    uint32_t j; /* output index in the bucket */
    uint32_t i; /* its first input (position in the level's input) */
    bool pair;  /* a second input follows at i + 1 */
    bool done;  /* the bucket is done after this level: the output goes to fin */
};

template <class F> CZK_HD ba_slot ba_slot_of(const ba_level<F> &L, uint32_t b, uint32_t o) {
    ba_slot s;
    const uint32_t m = ba_at(L.m0[b], L.level);
    s.j = o - L.out_start[b];
    s.i = L.in_start[b] + 2 * s.j;
    s.pair = 2 * s.j + 1 < m;
    s.done = (m + 1) / 2 <= L.K;
    return s;
}

template <class F> CZK_HD affine<F> ba_point(const ba_level<F> &L, uint32_t i) {
    if (L.level == 0) {
        affine<F> p = ld_hd(L.bases + L.sidx[i]);
        return (L.skeys[i] & 1) ? p.neg() : p;
    }
    return ld_hd(L.in + i);
}

template <class F> CZK_HD F ba_x(const ba_level<F> &L, uint32_t i) {
    return ld_hd(L.level == 0 ? &L.bases[L.sidx[i]].x : &L.in[i].x);
}

enum { BA_ADD, BA_DBL, BA_LEFT, BA_RIGHT, BA_INF };

/* How p + q is formed, and the denominator d of λ (one where nothing is inverted). */
template <class F> CZK_HD int ba_case(const affine<F> &p, const affine<F> &q, F &d) {
    d = F::one();
    if (p.is_inf()) return BA_RIGHT;
    if (q.is_inf()) return BA_LEFT;
    if (p.x != q.x) {
        d = q.x - p.x;
        return BA_ADD;
    }
    if (p.y == q.y && !p.y.is_zero()) {
        d = p.y.dbl();
        return BA_DBL;
    }
    return BA_INF; /* q = −p, or y = 0 */
}

/* The forward pass's denominator: both x only, the points where x alone does not decide. */
template <class F> CZK_HD F ba_den(const ba_level<F> &L, const ba_slot &s) {
    if (!s.pair) return F::one();
    const F x1 = ba_x(L, s.i), x2 = ba_x(L, s.i + 1);
    if (x1 != x2 && !x1.is_zero() && !x2.is_zero()) return x2 - x1; /* ba_case's BA_ADD */
    F d;
    (void)ba_case(ba_point(L, s.i), ba_point(L, s.i + 1), d);
    return d;
}

/* p + q given the case and inv = 1/d. */
template <class F>
CZK_HD affine<F> ba_apply(int cs, const affine<F> &p, const affine<F> &q, const F &inv) {
    if (cs == BA_LEFT) return p;
    if (cs == BA_RIGHT) return q;
    if (cs == BA_INF) return {F::zero(), F::zero()};
    F num;
    if (cs == BA_ADD) {
        num = q.y - p.y;
    } else {
        F xx = p.x.sqr();
        num = xx + xx + xx;
    }
    const F lam = num * inv;
    affine<F> r;
    r.x = lam.sqr() - p.x - q.x; /* q.x = p.x when doubling */
    r.y = lam * (p.x - r.x) - p.y;
    return r;
}

/* Step 2 for strip t. */
template <class F> CZK_HD void ba_forward(const ba_level<F> &L, uint32_t t) {
    const ba_span sp = ba_strip_span(L.out_start[L.B], L.T, L.G, t);
    if (!sp.n) return;
    const uint32_t *os = L.out_start;
    uint32_t b = ba_find(os, L.B, sp.o0);
    F acc = F::one();
#pragma unroll 1
    for (uint32_t k = 0; k < sp.n; k++) {
        const uint32_t o = sp.o0 + k * L.G;
        if (k) b = ba_up(os, L.B, b, o);
        const F d = ba_den(L, ba_slot_of(L, b, o));
        acc = k ? acc * d : d;
        if (k + 1 < sp.n) st_hd(L.pre + (size_t)k * L.S + t, acc);
    }
    st_hd(L.tot + t, acc);
}

/*
 * ba_backward's running products (the strip's 1/d_k and 1/c_{k−1}): by F's product, or by
 * mul_eo where F is ba_fp_ka and ALL is false (CZK_CUDA_MSM_MUL=ka: Karatsuba's product in
 * ba_apply's two products only; in these two as well its registers spill, bench/GPU.md).
 */
template <bool ALL, class F> CZK_HD F ba_run_mul(const F &a, const F &b) {
    if constexpr (!ALL && std::is_same<F, ba_fp_ka>::value)
        return F::mul_eo(a, b);
    else
        return a * b;
}

/* Step 4 for strip t (L.tot[t] holds 1/c_{n−1}); ALL: ba_run_mul. */
template <class F, bool ALL = true> CZK_HD void ba_backward(const ba_level<F> &L, uint32_t t) {
    const ba_span sp = ba_strip_span(L.out_start[L.B], L.T, L.G, t);
    if (!sp.n) return;
    const uint32_t *os = L.out_start;
    uint32_t b = ba_find(os, L.B, sp.o0 + (sp.n - 1) * L.G);
    F inv_c = ld_hd(L.tot + t); /* 1/c_k */
#pragma unroll 1
    for (uint32_t k = sp.n; k-- > 0;) {
        const uint32_t o = sp.o0 + k * L.G;
        if (k + 1 < sp.n) b = ba_down(os, b, o);
        const ba_slot s = ba_slot_of(L, b, o);
        const affine<F> p = ba_point(L, s.i);
        affine<F> q = {F::zero(), F::zero()};
        F d = F::one();
        int cs = BA_LEFT;
        if (s.pair) {
            q = ba_point(L, s.i + 1);
            cs = ba_case(p, q, d);
        }
        const F inv = k ? ba_run_mul<ALL>(inv_c, ld_hd(L.pre + (size_t)(k - 1) * L.S + t)) : inv_c;
        if (k) inv_c = ba_run_mul<ALL>(inv_c, d);
        st_hd(s.done ? L.fin + (size_t)b * L.K + s.j : L.out + o, ba_apply(cs, p, q, inv));
    }
}

/* Step 3: thread tid of block g (of G, NT threads) takes the totals [lo, hi) of `count`. */
struct ba_run {
    uint32_t lo, hi;
};
CZK_HD ba_run ba_inv_run(uint32_t count, uint32_t G, uint32_t g, uint32_t NT, uint32_t tid) {
    const uint64_t blo = (uint64_t)count * g / G, bhi = (uint64_t)count * (g + 1) / G;
    const uint64_t len = bhi - blo, per = (len + NT - 1) / NT;
    const uint64_t a = tid * per < len ? tid * per : len,
                   e = (tid + 1) * per < len ? (tid + 1) * per : len;
    return {(uint32_t)(blo + a), (uint32_t)(blo + e)};
}

/* Running products of the run's totals into tmp; returns their product (one if empty). */
template <class F> CZK_HD F ba_inv_up(const F *tot, F *tmp, ba_run r) {
    F acc = F::one();
#pragma unroll 1
    for (uint32_t i = r.lo; i < r.hi; i++) {
        acc = i == r.lo ? tot[i] : acc * tot[i];
        tmp[i] = acc;
    }
    return acc;
}

/* The run's totals replaced by their inverses, given inv = 1/(their product). */
template <class F> CZK_HD void ba_inv_down(F *tot, const F *tmp, ba_run r, F inv) {
#pragma unroll 1
    for (uint32_t i = r.hi; i-- > r.lo;) {
        const F x = tot[i];
        tot[i] = i > r.lo ? inv * tmp[i - 1] : inv;
        inv = inv * x;
    }
}

/*
 * One Hillis–Steele step (distance off) of the block's inclusive prefix
 * (pre) and suffix (suf) products of the threads' run products: thread
 * tid's new values; all threads read before any writes.
 */
template <class F>
CZK_HD void ba_scan_step(const F *pre, const F *suf, uint32_t NT, uint32_t tid, uint32_t off, F &a,
                         F &s) {
    a = pre[tid];
    s = suf[tid];
    if (tid >= off) a = pre[tid - off] * a;
    if (tid + off < NT) s = s * suf[tid + off];
}

/* 1/R_tid from the finished scans and zi = 1/Π R: zi · Π_{t<tid} R_t · Π_{t>tid} R_t. */
template <class F>
CZK_HD F ba_scan_inv(const F *pre, const F *suf, uint32_t NT, uint32_t tid, const F &zi) {
    const F e = tid ? pre[tid - 1] : F::one();
    const F f = tid + 1 < NT ? suf[tid + 1] : F::one();
    return zi * e * f;
}

/* The level's input view of level 0 (the final pass reads small buckets from there). */
template <class F> struct ba_final_args {
    ba_level<F> L0; /* level 0: bases, sidx, skeys, m0, in_start = start_b */
    const affine<F> *fin;
};

/* The bucket's sum: its m_0 <= K points from the bases, or its ≤ K level outputs from fin. */
template <class F> CZK_HD xyzz<F> ba_final(const ba_final_args<F> &A, uint32_t b) {
    const ba_level<F> &L = A.L0;
    const uint32_t m = L.m0[b], K = L.K;
    xyzz<F> acc = xyzz<F>::inf();
    if (m <= K) {
#pragma unroll 1
        for (uint32_t j = 0; j < m; j++)
            acc.add_affine(ba_point(L, L.in_start[b] + j));
    } else {
        const uint32_t mf = ba_at(m, ba_levels(m, K));
#pragma unroll 1
        for (uint32_t j = 0; j < mf; j++)
            acc.add_affine(ld_hd(A.fin + (size_t)b * K + j));
    }
    return acc;
}

/*
 * The window sum by levels (msm.cuh, CZK_CUDA_MSM_WSUM=levels; bench/GPU.md "A lever designed,
 * not built" and the twenty-sixth run). With K = 1 every bucket ends as one affine point S_b (O
 * where empty). Over B = 2^e buckets, with b = h·2^k + l (k = ⌊e/2⌋, h < 2^(e−k), l < 2^k),
 *   Σ_b (b + 1)·S_b = 2^k·Σ_h h·T_h + Σ_l (l + 1)·U_l,
 *   T_h = Σ_l S_(h·2^k + l),   U_l = Σ_h S_(h·2^k + l).
 * T and U are plain sums of point sets, so the same levels make them: 2B inputs in 2^(e−k) + 2^k
 * groups of equal size, T's the runs of 2^k consecutive buckets, U's the buckets of one l through
 * a transposed index list (ba_tu_index). The split's levels stop where a group holds at most
 * BA_TU_K points (its last levels are small: their fixed costs, five launches and an inversion's
 * latency, outweigh their pairs); its running sums (ba_tu_sum, XYZZ, segments of BA_TU_SEG groups)
 * add those points, and run over the 2^(e−k) + 2^k groups only instead of all B buckets.
 */
constexpr uint32_t BA_TU_SEG = 8, BA_TU_K = 8;

/* Groups of the split of 2^e buckets: 2^(e−k) for T, then 2^k for U. */
CZK_HD uint32_t ba_tu_groups(uint32_t e) {
    return (1u << (e - e / 2)) + (1u << (e / 2));
}

/* Entry i < 2^(e+1) of the input list: T's buckets in order, then U's (group l: h·2^k + l). */
CZK_HD uint32_t ba_tu_index(uint32_t e, uint32_t i) {
    const uint32_t k = e / 2, ht = e - k;
    if (i < (1u << e)) return i;
    const uint32_t j = i - (1u << e);
    return ((j & ((1u << ht) - 1)) << k) | (j >> ht);
}

/* Group g's size and first entry. */
CZK_HD void ba_tu_group(uint32_t e, uint32_t g, uint32_t &m, uint32_t &first) {
    const uint32_t k = e / 2, nt = 1u << (e - k);
    if (g < nt)
        m = 1u << k, first = g << k;
    else
        m = nt, first = (1u << e) + (g - nt) * nt;
}

/* Running-sum threads of a window of 2^e buckets (T's segments, then U's). */
CZK_HD uint32_t ba_tu_threads(uint32_t e) {
    const uint32_t nt = 1u << (e - e / 2), nu = 1u << (e / 2);
    return (nt + BA_TU_SEG - 1) / BA_TU_SEG + (nu + BA_TU_SEG - 1) / BA_TU_SEG;
}

/* acc += group g's sum: its m <= BA_TU_K input points (S through the list), or the at most
 * BA_TU_K outputs of its levels, tfin[g·BA_TU_K + j]. */
template <class F>
CZK_HD void ba_tu_add(xyzz<F> &acc, const affine<F> *S, const affine<F> *tfin, uint32_t e,
                      uint32_t g) {
    uint32_t m, first;
    ba_tu_group(e, g, m, first);
    if (m <= BA_TU_K) {
#pragma unroll 1
        for (uint32_t j = 0; j < m; j++)
            acc.add_affine(ld_hd(S + ba_tu_index(e, first + j)));
        return;
    }
    const uint32_t mf = ba_at(m, ba_levels(m, BA_TU_K));
#pragma unroll 1
    for (uint32_t j = 0; j < mf; j++)
        acc.add_affine(ld_hd(tfin + (size_t)g * BA_TU_K + j));
}

/*
 * Thread t's share of the window sum (t < ba_tu_threads(e); inf beyond): for T's segment
 * [lo, hi), 2^k·Σ h·T_h (Σ (h − lo)·T_h by a running sum, plus lo·Σ T_h); for U's,
 * Σ (l + 1)·U_l (Σ (l − lo + 1)·U_l, plus lo·Σ U_l).
 */
template <class F>
CZK_HD xyzz<F> ba_tu_sum(const affine<F> *S, const affine<F> *tfin, uint32_t e, uint32_t t) {
    const uint32_t k = e / 2, nt = 1u << (e - k), nu = 1u << k;
    const uint32_t tt = (nt + BA_TU_SEG - 1) / BA_TU_SEG;
    const bool is_t = t < tt;
    const uint32_t count = is_t ? nt : nu, g0 = is_t ? 0 : nt;
    const uint32_t lo = (is_t ? t : t - tt) * BA_TU_SEG;
    xyzz<F> run = xyzz<F>::inf(), acc = xyzz<F>::inf();
    if (lo >= count) return acc;
    const uint32_t hi = lo + BA_TU_SEG < count ? lo + BA_TU_SEG : count;
#pragma unroll 1
    for (uint32_t i = hi; i-- > lo;) {
        ba_tu_add(run, S, tfin, e, g0 + i);
        if (!is_t || i > lo) acc.add(run);
    }
    acc.add(run.mul_small(lo));
    return is_t ? acc.mul_small(1u << k) : acc;
}

/* With K = 1, S_b of the buckets without levels (m_0 <= 1) into fin[b]: O, or the signed point. */
template <class F> CZK_HD void ba_bucket_point(const ba_level<F> &L0, uint32_t b) {
    const uint32_t m = L0.m0[b];
    if (m <= 1)
        st_hd(L0.fin + b, m ? ba_point(L0, L0.in_start[b]) : affine<F>{F::zero(), F::zero()});
}

/* ---- device kernels ---- */

__global__ void ba_sizes_kernel(const uint32_t *start, const uint32_t *end, uint32_t B,
                                uint32_t *m0, uint32_t *max_m) {
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t m = b < B ? end[b] - start[b] : 0;
    if (b < B) m0[b] = m;
    const uint32_t w = __reduce_max_sync(0xffffffffu, m); /* blockDim.x: a multiple of 32 */
    if ((threadIdx.x & 31) == 0 && w) atomicMax(max_m, w);
}

__global__ void ba_count_kernel(const uint32_t *m0, uint32_t B, uint32_t K, uint32_t level,
                                uint32_t *cnt) {
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b <= B) cnt[b] = b < B ? ba_outputs(m0[b], K, level) : 0;
}

template <class F> __global__ void __launch_bounds__(BA_THREADS) ba_forward_kernel(ba_level<F> L) {
    const uint32_t t = blockIdx.x * BA_THREADS + threadIdx.x;
    if (t < L.S) ba_forward(L, t);
}

template <class F, bool ALL = true>
__global__ void __launch_bounds__(BA_THREADS) ba_backward_kernel(ba_level<F> L) {
    const uint32_t t = blockIdx.x * BA_THREADS + threadIdx.x;
    if (t < L.S) ba_backward<F, ALL>(L, t);
}

/* The backward pass held to two blocks an SM (ka4: 128 registers, 36 bytes of spill stores and
 * 48 of loads a thread; ptxas, sm_90). */
template <class F>
__global__ void __launch_bounds__(BA_THREADS, 2) ba_backward_b2_kernel(ba_level<F> L) {
    const uint32_t t = blockIdx.x * BA_THREADS + threadIdx.x;
    if (t < L.S) ba_backward(L, t);
}

/*
 * The backward pass's launch. G1 under CZK_CUDA_MSM_MUL (ctx->msm_mul: 1 = ka, 2 = ka4) runs it
 * over ba_fp_ka, the same values in the same layout: Karatsuba's product, ≈ 12 % fewer multiply-
 * adds a product than mul_eo but more registers. ka: in ba_apply's two products (λ and y) only,
 * 128 registers and no spills; ka4: in all four, held to two blocks an SM (ptxas, sm_90: 158
 * registers unbounded, one block of 256 an SM). By a static count of sm_90's IMAD pipe, ka
 * −4.1 % and ka4 −2.6 % of the eo kernel's work, before ka4's spills (bench/GPU.md). Not measured
 * on a GPU yet; eo, the default, is the kernel as measured.
 */
template <class F> void ba_backward_launch(const ba_level<F> &L, int mul, cudaStream_t s) {
    const unsigned g = grid_for(L.S, BA_THREADS);
    if constexpr (std::is_same<F, ba_fp>::value) {
        if (mul) {
            static_assert(sizeof(ba_level<ba_fp_ka>) == sizeof(ba_level<F>), "layout");
            ba_level<ba_fp_ka> K;
            memcpy(&K, &L, sizeof K); /* the same pointers, to the same values */
            if (mul == 1)
                ba_backward_kernel<ba_fp_ka, false><<<g, BA_THREADS, 0, s>>>(K);
            else
                ba_backward_b2_kernel<ba_fp_ka><<<g, BA_THREADS, 0, s>>>(K);
            return;
        }
    }
    ba_backward_kernel<F><<<g, BA_THREADS, 0, s>>>(L);
}

/* Step 3 over the totals of the strips with outputs (ba_strips_used), gridDim.x blocks of NT
 * threads (every thread of a block). */
template <class F, uint32_t NT>
__global__ void __launch_bounds__(NT)
    ba_inv_kernel(F *tot, F *tmp, const uint32_t *total, uint32_t T, uint32_t G) {
    __shared__ F pre[NT], suf[NT];
    __shared__ F zi;
    const uint32_t tid = threadIdx.x, count = ba_strips_used(*total, T, G);
    const ba_run r = ba_inv_run(count, gridDim.x, blockIdx.x, NT, tid);
    const F v = ba_inv_up(tot, tmp, r);
    pre[tid] = v;
    suf[tid] = v;
    __syncthreads();
#pragma unroll 1
    for (uint32_t off = 1; off < NT; off <<= 1) {
        F a, s;
        ba_scan_step(pre, suf, NT, tid, off, a, s);
        __syncthreads();
        pre[tid] = a;
        suf[tid] = s;
        __syncthreads();
    }
    if (tid == 0) zi = pre[NT - 1].inv_binary();
    __syncthreads();
    ba_inv_down(tot, tmp, r, ba_scan_inv(pre, suf, NT, tid, zi));
}

template <class F>
__global__ void __launch_bounds__(BA_THREADS) ba_final_kernel(ba_final_args<F> A, xyzz<F> *bucket) {
    const uint32_t b = blockIdx.x * BA_THREADS + threadIdx.x;
    if (b < A.L0.B) st_vec(bucket + b, ba_final(A, b));
}

/* The window sum by levels: the split's input list (2^(e+1) entries) and its groups. */
__global__ void ba_tu_lists_kernel(uint32_t e, uint32_t *idx, uint32_t *m0, uint32_t *first) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (2u << e)) idx[i] = ba_tu_index(e, i);
    if (i < ba_tu_groups(e)) ba_tu_group(e, i, m0[i], first[i]);
}

template <class F> __global__ void ba_bucket_point_kernel(ba_level<F> L0) {
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < L0.B) ba_bucket_point(L0, b);
}

/* part[t] = ba_tu_sum for t < parts (inf past the window's own threads). */
template <class F>
__global__ void ba_tu_sum_kernel(const affine<F> *S, const affine<F> *tfin, uint32_t e,
                                 uint32_t parts, xyzz<F> *part) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < parts) st_vec(part + t, ba_tu_sum(S, tfin, e, t));
}

/* ---- the host side ---- */

/* Points the outputs of level l can take (a bound from n alone): Σ ⌈m_0/2^(l+1)⌉ over the buckets
 * taking part, each with m_0 > K·2^l. */
inline uint64_t ba_bound(uint64_t n, uint64_t B, uint32_t K, uint32_t l) {
    uint64_t active = n / (((uint64_t)K << l) + 1);
    if (active > B) active = B;
    uint64_t b = (n >> (l + 1)) + active;
    return b < n ? b : n;
}

/* Strip length T for a level of `bound` outputs (forced: ctx->msm_strip). */
inline uint32_t ba_strip_len(uint64_t bound, int sm_count, uint32_t forced) {
    if (forced) return forced;
    uint64_t t = bound / ((uint64_t)(sm_count > 0 ? sm_count : 1) * BA_THREADS_PER_SM);
    return t < 1 ? 1 : t > BA_MAX_STRIP ? BA_MAX_STRIP : (uint32_t)t;
}

/* The batch-affine accumulation of one Pippenger run: buffers for all its windows. */
template <class F> struct ba_state {
    using A = affine<F>;
    uint32_t n = 0, B = 0, K = 0, strip = 0, group = 1;
    int sm_count = 0, mul = 0; /* mul: ctx->msm_mul (ba_backward_launch) */
    uint32_t tu_e = 64; /* the split the lists hold (64: none yet; window_sum) */
    dev_buf<A> buf[2], fin, tfin;
    dev_buf<F> pre, tot, tmp;
    dev_buf<uint32_t> m0, cnt, os[2], max_m, tidx, tkeys, tm0, tfirst;
    dev_buf<uint8_t> temp;
    size_t temp_bytes = 0;
    double t_pass[4] = {0}; /* profile (pc.on): counts + offsets, forward, inversion, backward ms */

    /* Buffers for up to n points in B buckets; with tu (the window sums by levels, K = 1), also
     * for the split's levels over 2B points in the groups of B buckets (B a power of two) and of
     * every smaller power. */
    czk_status init(czk_cuda_ctx *ctx, uint32_t n_, uint32_t B_, uint32_t K_, bool tu,
                    const char *nm, czk_err *err) {
        n = n_, B = B_, K = K_, strip = ctx->msm_strip, sm_count = ctx->sm_count;
        mul = ctx->msm_mul;
        group = ctx->msm_strip_group;
        cudaStream_t s = ctx->stream;
        uint32_t e = 0;
        while ((1u << e) < B)
            e++;
        const uint32_t G = tu ? ba_tu_groups(e) : 0; /* the most groups: e's */
        const uint32_t nb = B > G ? B : G;           /* counts and offsets: nb + 1 */
        uint64_t bufsz[2] = {1, 1}, pre_n = 1, tot_n = 1;
        /* every level of every window: with tu, windows of 2^f <= B buckets (a top window of
         * fewer) and their splits (the strips' rounding need not shrink with the bound) */
        for (uint32_t f = tu ? 0 : e; f <= e; f++)
            for (uint32_t stage = 0; stage < (tu ? 2u : 1u); stage++)
                for (uint32_t l = 0; l < 32; l++) {
                    const uint32_t Bf = tu ? 1u << f : B;
                    const uint64_t bd = stage ? ba_bound(2ull * Bf, ba_tu_groups(f), BA_TU_K, l)
                                              : ba_bound(n, Bf, K, l);
                    const uint32_t T = ba_strip_len(bd, sm_count, strip);
                    const uint64_t S = ba_strips(bd, T, group);
                    if (bd > bufsz[l & 1]) bufsz[l & 1] = bd;
                    if (S * T > pre_n) pre_n = S * T;
                    if (S > tot_n) tot_n = S;
                }
        CZK_CU(buf[0].alloc(bufsz[0], s), "msm_%s affine: allocate level buffer (%llu points)", nm,
               (unsigned long long)bufsz[0]);
        CZK_CU(buf[1].alloc(bufsz[1], s), "msm_%s affine: allocate level buffer (%llu points)", nm,
               (unsigned long long)bufsz[1]);
        CZK_CU(fin.alloc((size_t)B * K, s), "msm_%s affine: allocate bucket outputs", nm);
        CZK_CU(pre.alloc(pre_n, s), "msm_%s affine: allocate running products (%llu)", nm,
               (unsigned long long)pre_n);
        CZK_CU(tot.alloc(tot_n, s), "msm_%s affine: allocate strip totals", nm);
        CZK_CU(tmp.alloc(tot_n, s), "msm_%s affine: allocate strip totals", nm);
        CZK_CU(m0.alloc(B, s), "msm_%s affine: allocate bucket sizes", nm);
        CZK_CU(cnt.alloc((size_t)nb + 1, s), "msm_%s affine: allocate output counts", nm);
        CZK_CU(os[0].alloc((size_t)nb + 1, s), "msm_%s affine: allocate output offsets", nm);
        CZK_CU(os[1].alloc((size_t)nb + 1, s), "msm_%s affine: allocate output offsets", nm);
        CZK_CU(max_m.alloc(1, s), "msm_%s affine: allocate counter", nm);
        if (tu) {
            CZK_CU(tfin.alloc((size_t)G * BA_TU_K, s), "msm_%s affine: allocate the split's sums",
                   nm);
            CZK_CU(tidx.alloc(2ull * B, s), "msm_%s affine: allocate the split's list", nm);
            CZK_CU(tkeys.alloc(2ull * B, s), "msm_%s affine: allocate the split's signs", nm);
            CZK_CU(cudaMemsetAsync(tkeys, 0, 2ull * B * sizeof(uint32_t), s),
                   "msm_%s affine: clear the split's signs", nm);
            CZK_CU(tm0.alloc(G, s), "msm_%s affine: allocate the split's groups", nm);
            CZK_CU(tfirst.alloc(G, s), "msm_%s affine: allocate the split's groups", nm);
        }
        CZK_CU(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, cnt.p, os[0].p, nb + 1, s),
               "msm_%s affine: scan size", nm);
        CZK_CU(temp.alloc(temp_bytes, s), "msm_%s affine: allocate scan space", nm);
        return CZK_OK;
    }

    /*
     * `levels` levels on stream s over `np` input points in nb buckets (or groups) of m0b[b]
     * points from first[b] (level 0 reads pts[idx[i]], negated where keys[i] & 1): the buckets
     * that took part end with their ≤ Kl points in out_fin[b·Kl + j]. Timed per kernel into
     * t_pass when pc.on.
     */
    template <class PC>
    czk_status run_levels(cudaStream_t s, const A *pts, const uint32_t *keys, const uint32_t *idx,
                          const uint32_t *first, const uint32_t *m0b, uint32_t np, uint32_t nb,
                          uint32_t Kl, uint32_t levels, A *out_fin, PC &pc, const char *nm,
                          unsigned w, czk_err *err) {
        double tk = 0; /* the kernel split of the levels, when profiling */
        auto tick = [&](int k) {
            if (!pc.on) return;
            (void)cudaStreamSynchronize(s);
            const double t = pc.now();
            if (k >= 0) t_pass[k] += t - tk;
            tk = t;
        };
        for (uint32_t l = 0; l < levels; l++) {
            tick(-1);
            const uint64_t bd = ba_bound(np, nb, Kl, l);
            const uint32_t T = ba_strip_len(bd, sm_count, strip);
            const uint32_t S = (uint32_t)ba_strips(bd, T, group);
            ba_count_kernel<<<grid_for((size_t)nb + 1, 256), 256, 0, s>>>(m0b, nb, Kl, l, cnt);
            CZK_LAUNCH("msm_%s affine: output counts, window %u level %u", nm, w, l);
            CZK_CU(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, cnt.p, os[l & 1].p, nb + 1, s),
                   "msm_%s affine: output offsets, window %u level %u", nm, w, l);
            ba_level<F> L;
            L.bases = pts;
            L.sidx = idx;
            L.skeys = keys;
            L.in = l ? buf[(l - 1) & 1].p : nullptr;
            L.out = buf[l & 1];
            L.fin = out_fin;
            L.m0 = m0b;
            L.in_start = l ? os[(l - 1) & 1].p : first;
            L.out_start = os[l & 1];
            L.pre = pre;
            L.tot = tot;
            L.B = nb, L.K = Kl, L.level = l, L.T = T, L.S = S, L.G = group;
            tick(0);
            ba_forward_kernel<F><<<grid_for(S, BA_THREADS), BA_THREADS, 0, s>>>(L);
            CZK_LAUNCH("msm_%s affine: forward pass, window %u level %u", nm, w, l);
            tick(1);
            constexpr uint32_t NT = ba_inv_threads<F>();
            uint64_t g = (S + NT - 1) / NT, gmax = 4ull * (sm_count > 0 ? sm_count : 1);
            ba_inv_kernel<F, NT><<<(unsigned)(g < gmax ? g : gmax), NT, 0, s>>>(
                tot, tmp, os[l & 1].p + nb, T, group);
            CZK_LAUNCH("msm_%s affine: batch inversion, window %u level %u", nm, w, l);
            tick(2);
            ba_backward_launch(L, mul, s);
            CZK_LAUNCH("msm_%s affine: backward pass, window %u level %u", nm, w, l);
            tick(3);
        }
        return CZK_OK;
    }

    /* The window's bucket sizes into m0 and the levels its largest bucket needs (waits for s). */
    czk_status sizes(cudaStream_t s, const uint32_t *start, const uint32_t *end, uint32_t Bw,
                     uint32_t Kl, uint32_t *levels, const char *nm, unsigned w, czk_err *err) {
        CZK_CU(cudaMemsetAsync(max_m, 0, sizeof(uint32_t), s), "msm_%s affine: clear counter", nm);
        ba_sizes_kernel<<<grid_for(Bw, 256), 256, 0, s>>>(start, end, Bw, m0, max_m);
        CZK_LAUNCH("msm_%s affine: bucket sizes, window %u", nm, w);
        uint32_t mm = 0;
        CZK_CU(cudaMemcpyAsync(&mm, max_m.p, sizeof mm, cudaMemcpyDeviceToHost, s),
               "msm_%s affine: download the largest bucket", nm);
        CZK_CU(cudaStreamSynchronize(s), "msm_%s affine: synchronize", nm);
        *levels = ba_levels(mm, Kl);
        return CZK_OK;
    }

    /*
     * One window on stream s: bucket[b] = Σ of bucket b's signed points, from the sorted keys and
     * indices and the bucket bounds [start_b, end_b) (msm_bounds). Waits for s once (the largest
     * bucket sets the number of levels). The launches of the levels and the final pass are timed
     * as phases 3 and 4 of pc (whose stream is then s).
     */
    template <class PC>
    czk_status window(cudaStream_t s, const A *bases, const uint32_t *skeys, const uint32_t *sidx,
                      const uint32_t *start, const uint32_t *end, xyzz<F> *bucket, PC &pc,
                      const char *nm, unsigned w, czk_err *err) {
        uint32_t levels = 0;
        czk_status st = sizes(s, start, end, B, K, &levels, nm, w, err);
        if (st) return st;
        pc.start();
        st = run_levels(s, bases, skeys, sidx, start, m0.p, n, B, K, levels, fin.p, pc, nm, w, err);
        if (st) return st;
        pc.stop(3);
        pc.start();
        ba_final_args<F> fa;
        memset(&fa, 0, sizeof fa);
        fa.L0.bases = bases;
        fa.L0.sidx = sidx;
        fa.L0.skeys = skeys;
        fa.L0.m0 = m0;
        fa.L0.in_start = start;
        fa.L0.B = B;
        fa.L0.K = K;
        fa.fin = fin;
        ba_final_kernel<F><<<grid_for(B, BA_THREADS), BA_THREADS, 0, s>>>(fa, bucket);
        CZK_LAUNCH("msm_%s affine: bucket sums, window %u", nm, w);
        pc.stop(4);
        return CZK_OK;
    }

    /*
     * One window's sum by levels (init with tu; the window sum by levels above) on stream s: its
     * 2^e buckets (e <= log2 B) to one point each, the split's T and U by the same levels, then
     * part[t] for t < parts (>= ba_tu_threads(e)): shares whose sum is Σ_b (b + 1)·S_b. Waits for
     * s once. Phases 3 (the buckets' levels) and 4 (the rest) of pc.
     */
    template <class PC>
    czk_status window_sum(cudaStream_t s, const A *bases, const uint32_t *skeys,
                          const uint32_t *sidx, const uint32_t *start, const uint32_t *end,
                          uint32_t e, uint32_t parts, xyzz<F> *part, PC &pc, const char *nm,
                          unsigned w, czk_err *err) {
        const uint32_t Bw = 1u << e, G = ba_tu_groups(e);
        uint32_t levels = 0;
        czk_status st = sizes(s, start, end, Bw, 1, &levels, nm, w, err);
        if (st) return st;
        pc.start();
        st =
            run_levels(s, bases, skeys, sidx, start, m0.p, n, Bw, 1, levels, fin.p, pc, nm, w, err);
        if (st) return st;
        pc.stop(3);
        pc.start();
        ba_level<F> L0;
        memset(&L0, 0, sizeof L0);
        L0.bases = bases;
        L0.sidx = sidx;
        L0.skeys = skeys;
        L0.fin = fin;
        L0.m0 = m0;
        L0.in_start = start;
        L0.B = Bw, L0.K = 1;
        ba_bucket_point_kernel<F><<<grid_for(Bw, 256), 256, 0, s>>>(L0);
        CZK_LAUNCH("msm_%s affine: single-point buckets, window %u", nm, w);
        if (tu_e != e) { /* the lists of the split of 2^e (stream-ordered on s) */
            ba_tu_lists_kernel<<<grid_for(2ull * Bw, 256), 256, 0, s>>>(e, tidx, tm0, tfirst);
            CZK_LAUNCH("msm_%s affine: the split's lists, window %u", nm, w);
            tu_e = e;
        }
        const uint32_t k = e / 2, tl = ba_levels(1u << (k > e - k ? k : e - k), BA_TU_K);
        st = run_levels(s, fin.p, tkeys.p, tidx.p, tfirst.p, tm0.p, 2 * Bw, G, BA_TU_K, tl, tfin.p,
                        pc, nm, w, err);
        if (st) return st;
        ba_tu_sum_kernel<F><<<grid_for(parts, 64), 64, 0, s>>>(fin, tfin, e, parts, part);
        CZK_LAUNCH("msm_%s affine: the split's running sums, window %u", nm, w);
        pc.stop(4);
        return CZK_OK;
    }
};

} // namespace

} // namespace czkg

#endif
