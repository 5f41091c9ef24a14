/*
 * NTT over Fr on the device, and the Groth16 H computation.
 *
 * Algorithm: radix-2 decimation in time (Cooley–Tukey) on bit-reversed input,
 * so a transform is one in-place bit-reversal pass (by 16×16 tiles through
 * shared memory, so that reads and writes are 512-byte runs) followed by
 * ⌈log_n/10⌉ passes of up to 10 stages each (2^27: 9 + 9 + 9). A pass loads
 * groups of 2^ks elements (stride 2^s0, s0 = stages already done) into shared memory
 * and runs its stages there with twiddles from one 512-entry table
 * (ω_1024^j). Between passes the four-step "twist" multiplies element (f, m)
 * of a sub-transform by ω_M^(f·rev(m)), M = 2^(s0+ks); with it each pass is a
 * plain transform of its groups (derivation: Cooley–Tukey with N = 2^s0 ·
 * 2^ks on the blocks already transformed). Powers of ω_{2^28} and of the coset
 * generator come from two tables of 2^14 entries each (x^e = lo[e mod 2^14] ·
 * hi[e / 2^14]), built on the host with blst at context creation; a twist
 * with M <= 2^18 reads one table of ω_M^e instead (made on the device on first
 * use and kept in the context), which saves a multiplication per element.
 * That is CZK_CUDA_NTT_TWIST=split; the default, direct, reads every twist
 * from a half table ω_M^e, e < M/2, negated for e >= M/2 (ω_M^(M/2) = −1):
 * 2^26 entries (2 GiB) per direction for the last pass of 2^27, falling back
 * to split where the allocation fails.
 * Butterflies whose twiddle is 1 skip the multiplication where a whole warp
 * shares it (the first stages of a pass: ~7% of the multiplications). With
 * CZK_CUDA_NTT_RADIX=4 a pass runs its stages two at a time (ntt_stage_pair:
 * four elements of a thread through both stages in registers, half the
 * shared-memory traffic and barriers), but its 72–80 registers leave three
 * blocks an SM instead of four, and it measured slower (bench/GPU.md,
 * twentieth run: NTT 2^27 44.35 ms against 44.0, the Lagrange form's H 180.0
 * against 175.3 on an H100); radix 2, one stage at a time, is the default.
 *
 * Scalings are folded into the passes: 1/N and the coset factor g^i into the
 * bit-reversal pass (they act on the input), g^−i into the last pass's store
 * (it acts on the output). In H, coset_fft(ifft(x)) is one inverse transform
 * whose last pass multiplies by g^i, then a plain forward transform. H takes
 * six transforms, not bellperson's seven: h = icoset_fft((A·B − C)·z_inv) =
 * z_inv·(icoset_fft(A·B) − ifft(c)) by linearity (icoset_fft(coset_fft(y)) = y),
 * so c gets only its inverse transform (scaled by z_inv/N) and is subtracted
 * after the final one (CZK_CUDA_H_TRANSFORMS=7: the seven, for comparison).
 *
 * DIF order (natural input, bit-reversed output, no bit-reversal pass): the
 * same passes transposed and in reverse order (the DFT matrix is symmetric;
 * a DIT pass is twist·stages, its transpose stages^T·twist with
 * Gentleman–Sande butterflies). czk_cuda_h with CZK_CUDA_H_ORDER=paired (the
 * default) runs the iffts of a and b as DIF (1/N at the first load, g^rev(i)
 * at the last store: position i holds coefficient rev(i)) and their coset
 * ffts as DIT without the bit reversal, so only c's ifft (its coefficients
 * are subtracted in natural order) and the final coset inverse transform
 * have one; natural runs every transform natural to natural.
 *
 * Semantics are bellperson's EvaluationDomain (src/domain.rs) as czk_ntt
 * (include/czk/ntt.h) states them; sppark's NTT (spec/gpu-prover.md §3) has
 * the same pass structure (shared-memory stages, inter-kernel twists).
 */
#include "ctx.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace czkg {

namespace {

/*
 * Elements per pass block in shared memory: 1024 (33 KiB, 256 threads).
 * 2048 (66 KiB, 512 threads: runs of four consecutive elements instead of
 * two in the strided passes) measured slower on the H200: NTT 2^27 48.26 ms
 * against 45.05 (bench/GPU.md run 4).
 */
constexpr int NTT_BLOCK = 1024;
template <int BE> constexpr int ntt_threads() {
    return BE / 4;
}
template <int BE> constexpr size_t ntt_smem() {
    return 8 * (BE + BE / 32) * sizeof(uint32_t);
}
constexpr int TABLE_BITS = 14;

template <class F = fr> __device__ __forceinline__ F ld_fr(const fr *p) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
    uint4 a = q[0], b = q[1];
    F r;
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
    r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
    return r;
}
template <class F> __device__ __forceinline__ void st_fr(fr *p, const F &r) {
    uint4 *q = reinterpret_cast<uint4 *>(p);
    q[0] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
    q[1] = make_uint4(r.v[4], r.v[5], r.v[6], r.v[7]);
}

/* Pre-scaling of the bit-reversal pass. */
enum { SCALE_NONE = 0, SCALE_CONST = 1, SCALE_POWERS = 2 };

template <class F>
__device__ __forceinline__ F pre_scale(F x, int mode, const F &c, const fr *lo, const fr *hi,
                                       uint32_t i) {
    if (mode == SCALE_CONST) return x * c;
    if (mode == SCALE_POWERS) return x * (ld_fr<F>(lo + (i & 0x3fff)) * ld_fr<F>(hi + (i >> 14)));
    return x;
}

/*
 * In-place bit-reversal permutation, x[i] scaled first: by c (SCALE_CONST) or
 * by base^i from the tables (SCALE_POWERS) with i the input (natural) index.
 * One thread per pair (sizes below 2^8).
 */
template <class F>
__global__ void ntt_bitrev(fr *data, unsigned log_n, int mode, F c, const fr *lo, const fr *hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (1u << log_n)) return;
    uint32_t j = __brev(i) >> (32 - log_n);
    if (i > j) return;
    F xi = pre_scale(ld_fr<F>(data + i), mode, c, lo, hi, i);
    F xj = pre_scale(ld_fr<F>(data + j), mode, c, lo, hi, j);
    st_fr(data + i, xj);
    if (i != j) st_fr(data + j, xi);
}

/*
 * The same permutation by tiles (log_n >= 8): index i = (a, b, c) with a the
 * top 4 bits, c the low 4 bits; (a, b, c) moves to (rev c, rev b, rev a), so
 * the 16×16 tile of one b maps onto the tile of rev b, transposed. One block
 * per pair {b, rev b} loads both tiles (16 contiguous elements per row) into
 * shared memory and writes each into the other's place; rows padded to 17
 * against bank conflicts.
 */
constexpr int BR_BITS = 4, BR_SIDE = 1 << BR_BITS, BR_PITCH = BR_SIDE + 1;
template <class F>
__global__ void __launch_bounds__(256)
    ntt_bitrev_tiled(fr *data, unsigned log_n, int mode, F c, const fr *lo, const fr *hi) {
    __shared__ uint32_t s1[8][BR_SIDE * BR_PITCH], s2[8][BR_SIDE * BR_PITCH];
    const unsigned mb = log_n - 2 * BR_BITS;
    const uint32_t b = blockIdx.x;
    const uint32_t b2 = mb ? __brev(b) >> (32 - mb) : 0;
    if (b > b2) return;
    const unsigned tid = threadIdx.x, ta = tid >> BR_BITS, tc = tid & (BR_SIDE - 1);
    const uint32_t i1 = (ta << (log_n - BR_BITS)) | (b << BR_BITS) | tc;
    const uint32_t i2 = (ta << (log_n - BR_BITS)) | (b2 << BR_BITS) | tc;
    F x1 = ld_fr<F>(data + i1), x2;
    if (b != b2) x2 = ld_fr<F>(data + i2);
    x1 = pre_scale(x1, mode, c, lo, hi, i1);
    const unsigned at = ta * BR_PITCH + tc;
#pragma unroll
    for (int w = 0; w < 8; w++)
        s1[w][at] = x1.v[w];
    if (b != b2) {
        x2 = pre_scale(x2, mode, c, lo, hi, i2);
#pragma unroll
        for (int w = 0; w < 8; w++)
            s2[w][at] = x2.v[w];
    }
    __syncthreads();
    /* destination (ta, ·, tc) takes source (rev tc, ·, rev ta) of the partner tile */
    const unsigned from =
        (__brev(tc) >> (32 - BR_BITS)) * BR_PITCH + (__brev(ta) >> (32 - BR_BITS));
    F y1, y2;
#pragma unroll
    for (int w = 0; w < 8; w++)
        y1.v[w] = s1[w][from];
    st_fr(data + i2, y1); /* tile b lands on tile rev b */
    if (b != b2) {
#pragma unroll
        for (int w = 0; w < 8; w++)
            y2.v[w] = s2[w][from];
        st_fr(data + i1, y2);
    }
}

/* Shared-memory slot of element e: one word of padding per 32 (strided butterflies hit distinct
 * banks). */
__device__ __forceinline__ unsigned padded(unsigned e) {
    return e + (e >> 5);
}

/* Element slot `at` of shared memory (word-major, sm[w][at]) to registers, and back. */
template <class F, int BE>
__device__ __forceinline__ F sm_get(uint32_t (*sm)[BE + BE / 32], unsigned at) {
    F x;
#pragma unroll
    for (int w = 0; w < 8; w++)
        x.v[w] = sm[w][at];
    return x;
}
template <class F, int BE>
__device__ __forceinline__ void sm_put(uint32_t (*sm)[BE + BE / 32], unsigned at, const F &x) {
#pragma unroll
    for (int w = 0; w < 8; w++)
        sm[w][at] = x.v[w];
}

/*
 * One pass of KS radix-2 DIT stages over groups of 2^KS elements with stride
 * 2^s0. Element (group (hi, lo), m) lives at hi·2^(s0+KS) + m·2^s0 + lo.
 * Shared memory holds G groups (consecutive group ids, so consecutive lo:
 * coalesced when s0 > 0), word-major (sm[w][e], padded) so that a warp
 * reading consecutive elements hits distinct banks.
 * Stages with fewer than 32 twiddles (h < 32) give each warp butterflies of
 * one twiddle index j, so the ones with j = 0 (factor 1) skip the
 * multiplication as whole warps; later stages give a warp consecutive j.
 * post_lo/post_hi, when non-null, multiply output i by post^i.
 */
/*
 * The twist factor of element (lo, m) of a pass with stride 2^s0: ω_M^(lo·rev(m)),
 * M = 2^(s0+KS), lo·rev(m) < M. From a direct table of M entries (half_log = 0),
 * from a half table of M/2 entries (half_log = log M − 1; ω_M^(e+M/2) = −ω_M^e),
 * or from the two 2^14-entry tables of ω_{2^28} (tw_direct null).
 */
template <int KS, class F>
__device__ __forceinline__ F twist_factor(uint32_t lo, unsigned m, unsigned s0, const fr *tw_lo,
                                          const fr *tw_hi, const fr *tw_direct, unsigned half_log) {
    uint32_t rm = __brev(m) >> (32 - KS);
    uint32_t ex = lo * rm;
    if (tw_direct) {
        if (half_log == 0) return ld_fr<F>(tw_direct + ex);
        F y = ld_fr<F>(tw_direct + (ex & ((1u << half_log) - 1)));
        return y.cneg((ex >> half_log) != 0);
    }
    ex <<= 28 - s0 - KS;
    return ld_fr<F>(tw_lo + (ex & 0x3fff)) * ld_fr<F>(tw_hi + (ex >> 14));
}

/*
 * Work item b of stage t (h = 2^(t−1)) whose item is the 2^LR elements pos + k·h, k < 2^LR (LR = 1:
 * a butterfly, ntt_stage; LR = 2: a radix-4 quad, ntt_stage_pair): its twiddle index j < h and
 * pos. log_items: log2 of the stage's items (E / 2^LR). Uniform (h < 32, the same for the whole
 * block): b = (j, g, k), so that a warp shares j; otherwise b = (g, rest) with consecutive j.
 */
template <int KS, int LR>
__device__ __forceinline__ unsigned stage_item(unsigned b, int t, unsigned log_items, bool uniform,
                                               unsigned &j) {
    constexpr unsigned GS = 1u << KS;
    if (uniform) {                                    /* pos = g·GS + k·2^LR·h + j */
        const unsigned per_log = log_items - (t - 1); /* items per twiddle index */
        j = b >> per_log;
        const unsigned rest = b & ((1u << per_log) - 1);
        const unsigned g = rest >> (KS - t - LR + 1), k = rest & ((1u << (KS - t - LR + 1)) - 1);
        return g * GS + (k << (t + LR - 1)) + j;
    }
    const unsigned g = b >> (KS - LR), q = b & (GS / (1u << LR) - 1);
    j = q & ((1u << (t - 1)) - 1);
    return g * GS + ((q >> (t - 1)) << (t + LR - 1)) + j;
}

/*
 * Stage t of a pass on the E = G·2^KS elements in shared memory (sm[w][padded(e)], group g at
 * g·2^KS), followed by a block barrier: DIT (Cooley–Tukey, twiddle on v before the butterfly) or
 * DIF (Gentleman–Sande, twiddle on the difference), twiddles ω_1024^j from w1024 (that table's
 * direction).
 */
template <int KS, class F, int BE, bool DIF>
__device__ __forceinline__ void ntt_stage(uint32_t (*sm)[BE + BE / 32], unsigned E,
                                          unsigned log_half, unsigned tid, const fr *w1024,
                                          const int t) {
    constexpr int NTT_THREADS = ntt_threads<BE>();
    const unsigned h = 1u << (t - 1);
    const bool uniform = h < 32 && (E / 2) >= 32 * h; /* same for the whole block */
    for (unsigned b = tid; b < E / 2; b += NTT_THREADS) {
        unsigned j;
        const unsigned pos = stage_item<KS, 1>(b, t, log_half, uniform, j);
        const unsigned pu = padded(pos), pv = padded(pos + h);
        F u = sm_get<F, BE>(sm, pu), v = sm_get<F, BE>(sm, pv);
        const bool mul = t > 1 && (!uniform || j != 0);
        F s, d;
        if (!DIF) {
            if (mul) v = v * ld_fr<F>(w1024 + (j << (10 - t)));
            s = u + v, d = u - v;
        } else {
            s = u + v, d = u - v;
            if (mul) d = d * ld_fr<F>(w1024 + (j << (10 - t)));
        }
        sm_put<F, BE>(sm, pu, s);
        sm_put<F, BE>(sm, pv, d);
    }
    __syncthreads();
}

/*
 * Stages t and t + 1 (h = 2^(t−1)) at once, radix 4: a thread takes the four elements pos + k·h,
 * k < 4, of one twiddle index j < h into registers and runs both stages' butterflies there (DIT:
 * stage t on (0,1) and (2,3) with ω_{2^t}^j, then stage t + 1 on (0,2) with ω_{2^(t+1)}^j and
 * (1,3) with ω_{2^(t+1)}^(j+h); DIF: the same transposed, stage t + 1 first), so the elements go
 * through shared memory once per two stages instead of twice and the block waits at one barrier
 * instead of two. Same multiplications; as in ntt_stage, a factor ω^0 is skipped where a whole warp
 * shares j (h < 32).
 */
template <int KS, class F, int BE, bool DIF>
__device__ __forceinline__ void ntt_stage_pair(uint32_t (*sm)[BE + BE / 32], unsigned E,
                                               unsigned log_half, unsigned tid, const fr *w1024,
                                               const int t) {
    constexpr int NTT_THREADS = ntt_threads<BE>();
    const unsigned h = 1u << (t - 1);
    const unsigned log_quads = log_half - 1; /* E/4 quads a stage pair */
    const bool uniform = h < 32 && (E / 4) >= 32 * h;
    for (unsigned b = tid; b < E / 4; b += NTT_THREADS) {
        unsigned j;
        const unsigned pos = stage_item<KS, 2>(b, t, log_quads, uniform, j);
        unsigned at[4];
        F x[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            at[k] = padded(pos + k * h);
            x[k] = sm_get<F, BE>(sm, at[k]);
        }
        const bool mul_t = t > 1 && (!uniform || j != 0); /* ω_{2^t}^j */
        const bool mul_t1 = !uniform || j != 0;           /* ω_{2^(t+1)}^j */
        const fr *wt = w1024 + (j << (10 - t));           /* ω_{2^t}^j */
        const fr *wt1 = w1024 + (j << (9 - t));           /* ω_{2^(t+1)}^j */
        const fr *wt1h = w1024 + ((j + h) << (9 - t));    /* ω_{2^(t+1)}^(j+h) */
        F s, d;
        if (!DIF) {
            if (mul_t) {
                const F w = ld_fr<F>(wt);
                x[1] = x[1] * w;
                x[3] = x[3] * w;
            }
            s = x[0] + x[1], d = x[0] - x[1], x[0] = s, x[1] = d;
            s = x[2] + x[3], d = x[2] - x[3], x[2] = s, x[3] = d;
            if (mul_t1) x[2] = x[2] * ld_fr<F>(wt1);
            x[3] = x[3] * ld_fr<F>(wt1h);
            s = x[0] + x[2], d = x[0] - x[2], x[0] = s, x[2] = d;
            s = x[1] + x[3], d = x[1] - x[3], x[1] = s, x[3] = d;
        } else {
            s = x[0] + x[2], d = x[0] - x[2], x[0] = s, x[2] = d;
            s = x[1] + x[3], d = x[1] - x[3], x[1] = s, x[3] = d;
            if (mul_t1) x[2] = x[2] * ld_fr<F>(wt1);
            x[3] = x[3] * ld_fr<F>(wt1h);
            s = x[0] + x[1], d = x[0] - x[1], x[0] = s, x[1] = d;
            s = x[2] + x[3], d = x[2] - x[3], x[2] = s, x[3] = d;
            if (mul_t) {
                const F w = ld_fr<F>(wt);
                x[1] = x[1] * w;
                x[3] = x[3] * w;
            }
        }
#pragma unroll
        for (int k = 0; k < 4; k++)
            sm_put<F, BE>(sm, at[k], x[k]);
    }
    __syncthreads();
}

/*
 * The KS stages of a pass (see ntt_stage), in order (DIT 1..KS, DIF KS..1); with R4, two at a
 * time where they pair (ntt_stage_pair; an odd stage alone last for DIT, first for DIF).
 */
template <int KS, class F, int BE, bool DIF, bool R4>
__device__ __forceinline__ void ntt_stages(uint32_t (*sm)[BE + BE / 32], unsigned E,
                                           unsigned log_half, unsigned tid, const fr *w1024) {
    if constexpr (KS >= 2 && R4) {
        if (DIF && (KS & 1)) ntt_stage<KS, F, BE, DIF>(sm, E, log_half, tid, w1024, KS);
#pragma unroll
        for (int tt = 0; tt < KS / 2; tt++) {
            const int t = DIF ? (KS & ~1) - 1 - 2 * tt : 1 + 2 * tt; /* the pair (t, t + 1) */
            ntt_stage_pair<KS, F, BE, DIF>(sm, E, log_half, tid, w1024, t);
        }
        if (!DIF && (KS & 1)) ntt_stage<KS, F, BE, DIF>(sm, E, log_half, tid, w1024, KS);
    } else {
#pragma unroll
        for (int tt = 1; tt <= KS; tt++)
            ntt_stage<KS, F, BE, DIF>(sm, E, log_half, tid, w1024, DIF ? KS + 1 - tt : tt);
    }
}

/* x·post^e from the two 2^14-entry tables of post's powers, e = i or rev(i) over log_n bits. */
template <class F>
__device__ __forceinline__ F post_scale(F x, uint32_t idx, unsigned log_n, int post_rev,
                                        const fr *post_lo, const fr *post_hi) {
    uint32_t pe = post_rev ? __brev(idx) >> (32 - log_n) : idx;
    return x * (ld_fr<F>(post_lo + (pe & 0x3fff)) * ld_fr<F>(post_hi + (pe >> 14)));
}

/* The store of a pass: x to data[idx], or with mul_into x·mul_into[idx] to mul_into[idx]. */
template <class F>
__device__ __forceinline__ void pass_store(fr *data, fr *mul_into, uint32_t idx, F x) {
    if (mul_into) {
        st_fr(mul_into + idx, x * ld_fr<F>(mul_into + idx));
        return;
    }
    st_fr(data + idx, x);
}

/*
 * DIF = true runs the transposed pass (the DFT matrix is symmetric, so the
 * transposed network with the passes in reverse order maps natural input to
 * bit-reversed output): no twist at the load, stages KS..1 with
 * Gentleman–Sande butterflies (u, v) -> (u + v, (u − v)·w), the twist at the
 * store. pre_on multiplies every input by pre_c at the load; post_rev takes
 * post^rev(i) (rev over log_n bits) instead of post^i; mul_into (non-null)
 * stores the output multiplied by mul_into's element into mul_into instead.
 */
template <int KS, class F, int BE, bool DIF, bool R4>
__global__ void __launch_bounds__(ntt_threads<BE>())
    ntt_pass(fr *data, unsigned log_n, unsigned s0, const fr *w1024, const fr *tw_lo,
             const fr *tw_hi, const fr *tw_direct, unsigned half_log, const fr *post_lo,
             const fr *post_hi, int post_rev, fr pre_c, int pre_on, fr *mul_into) {
    constexpr int GS = 1 << KS;
    constexpr int NTT_THREADS = ntt_threads<BE>();
    extern __shared__ uint32_t ntt_sm[];
    uint32_t(*sm)[BE + BE / 32] = reinterpret_cast<uint32_t(*)[BE + BE / 32]>(ntt_sm);
    const unsigned groups_total = 1u << (log_n - KS);
    const unsigned G = min((unsigned)(BE / GS), groups_total);
    const unsigned log_g = __ffs(G) - 1; /* G is a power of two: shifts, not divisions */
    const unsigned E = G * GS;
    const unsigned log_half = __ffs(E / 2) - 1; /* E/2 butterflies per stage, a power of two */
    const uint32_t lo_mask = (1u << s0) - 1;
    const unsigned tid = threadIdx.x;

    for (unsigned e = tid; e < E; e += NTT_THREADS) {
        unsigned g, m;
        if (s0 == 0) {
            g = e >> KS;
            m = e & (GS - 1);
        } else {
            g = e & (G - 1);
            m = e >> log_g;
        }
        uint32_t gid = blockIdx.x * G + g;
        uint32_t lo = gid & lo_mask, hi = gid >> s0;
        uint32_t idx = (hi << (s0 + KS)) | (m << s0) | lo;
        F x = ld_fr<F>(data + idx);
        if (!DIF && s0 > 0)
            x = x * twist_factor<KS, F>(lo, m, s0, tw_lo, tw_hi, tw_direct, half_log);
        if (DIF && pre_on) x = x * ld_fr<F>(&pre_c);
        sm_put<F, BE>(sm, padded(g * GS + m), x);
    }
    __syncthreads();

    ntt_stages<KS, F, BE, DIF, R4>(sm, E, log_half, tid, w1024);

    for (unsigned e = tid; e < E; e += NTT_THREADS) {
        unsigned g, m;
        if (s0 == 0) {
            g = e >> KS;
            m = e & (GS - 1);
        } else {
            g = e & (G - 1);
            m = e >> log_g;
        }
        uint32_t gid = blockIdx.x * G + g;
        uint32_t lo = gid & lo_mask, hi = gid >> s0;
        uint32_t idx = (hi << (s0 + KS)) | (m << s0) | lo;
        F x = sm_get<F, BE>(sm, padded(g * GS + m));
        if (DIF && s0 > 0)
            x = x * twist_factor<KS, F>(lo, m, s0, tw_lo, tw_hi, tw_direct, half_log);
        if (post_lo) x = post_scale(x, idx, log_n, post_rev, post_lo, post_hi);
        pass_store(data, mul_into, idx, x);
    }
}

/*
 * The last pass of an inverse DIF transform and the first of a forward DIT transform in one
 * kernel (both cover stages 0..KS−1 of groups of 2^KS consecutive elements, s0 = 0, no twist):
 * load, DIF stages with w_inv, each element times post^rev(i) (the coset factor, with whatever
 * scaling the caller folded into post_hi), DIT stages with w_fwd, store (pass_store). The
 * element goes through shared memory once instead of twice.
 */
template <int KS, class F, int BE, bool R4>
__global__ void __launch_bounds__(ntt_threads<BE>())
    ntt_pass_pair(fr *data, unsigned log_n, const fr *w_inv, const fr *w_fwd, const fr *post_lo,
                  const fr *post_hi, fr *mul_into) {
    constexpr int GS = 1 << KS;
    constexpr int NTT_THREADS = ntt_threads<BE>();
    extern __shared__ uint32_t ntt_sm[];
    uint32_t(*sm)[BE + BE / 32] = reinterpret_cast<uint32_t(*)[BE + BE / 32]>(ntt_sm);
    const unsigned G = min((unsigned)(BE / GS), 1u << (log_n - KS));
    const unsigned E = G * GS;
    const unsigned log_half = __ffs(E / 2) - 1;
    const unsigned tid = threadIdx.x;
    for (unsigned e = tid; e < E; e += NTT_THREADS) {
        const uint32_t idx = ((blockIdx.x * G + (e >> KS)) << KS) | (e & (GS - 1));
        sm_put<F, BE>(sm, padded(e), ld_fr<F>(data + idx));
    }
    __syncthreads();
    ntt_stages<KS, F, BE, true, R4>(sm, E, log_half, tid, w_inv);
    for (unsigned e = tid; e < E; e += NTT_THREADS) {
        const uint32_t idx = ((blockIdx.x * G + (e >> KS)) << KS) | (e & (GS - 1));
        const unsigned at = padded(e);
        sm_put<F, BE>(sm, at, post_scale(sm_get<F, BE>(sm, at), idx, log_n, 1, post_lo, post_hi));
    }
    __syncthreads();
    ntt_stages<KS, F, BE, false, R4>(sm, E, log_half, tid, w_fwd);
    for (unsigned e = tid; e < E; e += NTT_THREADS) {
        const uint32_t idx = ((blockIdx.x * G + (e >> KS)) << KS) | (e & (GS - 1));
        pass_store(data, mul_into, idx, sm_get<F, BE>(sm, padded(e)));
    }
}

/* a <- (a·b − c)·z_inv (seven transforms) */
__global__ void h_pointwise(fr *a, const fr *b, const fr *c, size_t n, fr z_inv) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    st_fr(a + i, (ld_fr(a + i) * ld_fr(b + i) - ld_fr(c + i)) * z_inv);
}

/* a <- a·b (six transforms: z_inv is already in a) */
__global__ void h_product(fr *a, const fr *b, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    st_fr(a + i, ld_fr(a + i) * ld_fr(b + i));
}

/* a <- a − c (six transforms: the coefficients of c, scaled by z_inv, subtracted last) */
__global__ void h_subtract(fr *a, const fr *c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    st_fr(a + i, ld_fr(a + i) - ld_fr(c + i));
}

typedef void (*pass_fn)(fr *, unsigned, unsigned, const fr *, const fr *, const fr *, const fr *,
                        unsigned, const fr *, const fr *, int, fr, int, fr *);
typedef void (*pair_fn)(fr *, unsigned, const fr *, const fr *, const fr *, const fr *, fr *);

/* out[t] = in[t]·c, t < count */
__global__ void ntt_scale_table(fr *out, const fr *in, uint32_t count, fr c) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) st_fr(out + t, ld_fr(in + t) * c);
}

/* tab[e] = ω_{2^28}^(e·2^(28−k)) = ω_M^e for e < count (M = 2^k, count M or M/2) */
__global__ void ntt_twist_table(fr *tab, uint32_t count, unsigned k, const fr *lo, const fr *hi) {
    uint32_t e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) tab[e] = pow_table(lo, hi, e << (28 - k));
}

constexpr unsigned DIRECT_TWIST_MAX_LOG = 18; /* 8 MiB tables at most */

/*
 * The twist table for M = 2^k in direction inv, made on first use. With
 * CZK_CUDA_NTT_TWIST=direct (the default): a half table (ω_M^e, e < M/2; 2 GiB
 * for M = 2^27) for every k >= 2, *half_log = k − 1; where its allocation
 * fails, the split path below. With split: a full table for M <= 2^18
 * (*half_log = 0), above that null (the two-table twist).
 */
czk_status twist_table(czk_cuda_ctx *ctx, int inv, unsigned k, const fr **out, unsigned *half_log,
                       czk_err *err) {
    *out = nullptr;
    *half_log = 0;
    if (ctx->ntt_twist == 0 && k >= 2) {
        const uint32_t count = 1u << (k - 1);
        if (!ctx->twist_half[inv][k]) {
            if (cudaMalloc((void **)&ctx->twist_half[inv][k], (size_t)count * sizeof(fr)) !=
                cudaSuccess) {
                (void)cudaGetLastError(); /* not sticky: fall back to the split twist */
                ctx->twist_half[inv][k] = nullptr;
                goto split;
            }
            ntt_twist_table<<<grid_for(count, 256), 256, 0, ctx->stream>>>(
                ctx->twist_half[inv][k], count, k, ctx->omega_lo[inv], ctx->omega_hi[inv]);
            CZK_LAUNCH("ntt: half twist table 2^%u", k);
        }
        *out = ctx->twist_half[inv][k];
        *half_log = k - 1;
        return CZK_OK;
    }
split:
    if (k > DIRECT_TWIST_MAX_LOG) return CZK_OK;
    if (!ctx->twist[inv][k]) {
        CZK_CU(cudaMalloc((void **)&ctx->twist[inv][k], ((size_t)1 << k) * sizeof(fr)),
               "ntt: allocate twist table 2^%u", k);
        ntt_twist_table<<<grid_for((size_t)1 << k, 256), 256, 0, ctx->stream>>>(
            ctx->twist[inv][k], 1u << k, k, ctx->omega_lo[inv], ctx->omega_hi[inv]);
        CZK_LAUNCH("ntt: twist table 2^%u", k);
    }
    *out = ctx->twist[inv][k];
    return CZK_OK;
}

double now_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
/* The pass kernels by stage count; R4 is a template parameter, not a run-time flag, so that the
 * radix-2 kernels keep their own register count (the radix-4 stages need ≈ 20 more a thread).
 * F: fr (mul_eo_low), or fr_eo (CZK_CUDA_NTT_MUL=eo, radix 2 only: the generic reduction). */
using fr_eo = mont<with_mul<fr_params, MUL_EO>>;
template <int BE, bool DIF, bool R4, class F = fr> struct passes {
    static constexpr pass_fn P[11] = {nullptr,
                                      ntt_pass<1, F, BE, DIF, R4>,
                                      ntt_pass<2, F, BE, DIF, R4>,
                                      ntt_pass<3, F, BE, DIF, R4>,
                                      ntt_pass<4, F, BE, DIF, R4>,
                                      ntt_pass<5, F, BE, DIF, R4>,
                                      ntt_pass<6, F, BE, DIF, R4>,
                                      ntt_pass<7, F, BE, DIF, R4>,
                                      ntt_pass<8, F, BE, DIF, R4>,
                                      ntt_pass<9, F, BE, DIF, R4>,
                                      ntt_pass<10, F, BE, DIF, R4>};
};
template <int BE, bool R4, class F = fr> struct pair_passes {
    static constexpr pair_fn P[11] = {nullptr,
                                      ntt_pass_pair<1, F, BE, R4>,
                                      ntt_pass_pair<2, F, BE, R4>,
                                      ntt_pass_pair<3, F, BE, R4>,
                                      ntt_pass_pair<4, F, BE, R4>,
                                      ntt_pass_pair<5, F, BE, R4>,
                                      ntt_pass_pair<6, F, BE, R4>,
                                      ntt_pass_pair<7, F, BE, R4>,
                                      ntt_pass_pair<8, F, BE, R4>,
                                      ntt_pass_pair<9, F, BE, R4>,
                                      ntt_pass_pair<10, F, BE, R4>};
};

/* Blocks of a pass of ks stages over 2^log_n elements, BE elements (or one group) a block. */
template <int BE> unsigned pass_blocks(unsigned ks, unsigned log_n) {
    unsigned groups = 1u << (log_n - ks);
    unsigned per_block = (1u << ks) >= (unsigned)BE ? 1 : BE >> ks;
    if (per_block > groups) per_block = groups;
    return groups / per_block;
}

/* One pass of ks stages over 2^log_n elements with BE elements per block. */
template <int BE>
cudaError_t launch_pass(bool dif, unsigned ks, fr *data, unsigned log_n, unsigned s0,
                        const fr *w1024, const fr *tw_lo, const fr *tw_hi, const fr *direct,
                        unsigned half_log, const fr *post_lo, const fr *post_hi, int post_rev,
                        fr pre_c, int pre_on, cudaStream_t s, int r4, bool eo,
                        fr *mul_into = nullptr) {
    const pass_fn k =
        eo  ? (dif ? passes<BE, true, false, fr_eo>::P[ks] : passes<BE, false, false, fr_eo>::P[ks])
        : dif ? (r4 ? passes<BE, true, true>::P[ks] : passes<BE, true, false>::P[ks])
              : (r4 ? passes<BE, false, true>::P[ks] : passes<BE, false, false>::P[ks]);
    cudaError_t e = cudaFuncSetAttribute(
        (const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)ntt_smem<BE>());
    if (e != cudaSuccess) return e;
    k<<<pass_blocks<BE>(ks, log_n), ntt_threads<BE>(), ntt_smem<BE>(), s>>>(
        data, log_n, s0, w1024, tw_lo, tw_hi, direct, half_log, post_lo, post_hi, post_rev, pre_c,
        pre_on, mul_into);
    return cudaGetLastError();
}

/* ntt_pass_pair of ks stages over 2^log_n elements with BE elements per block. */
template <int BE>
cudaError_t launch_pass_pair(unsigned ks, fr *data, unsigned log_n, const fr *w_inv,
                             const fr *w_fwd, const fr *post_lo, const fr *post_hi, fr *mul_into,
                             int r4, bool eo, cudaStream_t s) {
    const pair_fn k = eo   ? pair_passes<BE, false, fr_eo>::P[ks]
                      : r4 ? pair_passes<BE, true>::P[ks]
                           : pair_passes<BE, false>::P[ks];
    cudaError_t e = cudaFuncSetAttribute(
        (const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)ntt_smem<BE>());
    if (e != cudaSuccess) return e;
    k<<<pass_blocks<BE>(ks, log_n), ntt_threads<BE>(), ntt_smem<BE>(), s>>>(
        data, log_n, w_inv, w_fwd, post_lo, post_hi, mul_into);
    return cudaGetLastError();
}

void launch_bitrev(fr *data, unsigned log_n, int mode, fr c, const fr *lo, const fr *hi,
                   cudaStream_t s) {
    if (log_n >= 2 * BR_BITS)
        ntt_bitrev_tiled<fr>
            <<<1u << (log_n - 2 * BR_BITS), 256, 0, s>>>(data, log_n, mode, c, lo, hi);
    else
        ntt_bitrev<fr>
            <<<grid_for((size_t)1 << log_n, 256), 256, 0, s>>>(data, log_n, mode, c, lo, hi);
}

fr host_fr(const czk_fr &x) {
    fr r;
    memcpy(&r, &x, sizeof r);
    return r;
}

/* Input and output order of ntt_run. */
enum ntt_order {
    ORDER_NN = 0, /* natural -> natural: bit reversal (with the pre-scale), then DIT passes */
    ORDER_RN = 1, /* bit-reversed -> natural: DIT passes only (pre_mode SCALE_NONE) */
    ORDER_NR = 2, /* natural -> bit-reversed: DIF passes (pre_mode SCALE_NONE or SCALE_CONST) */
};

/* Passes of a transform of 2^log_n: the DIT pass p covers stages s0_of[p] .. s0_of[p] +
 * ks_of[p] − 1 (DIF runs them in reverse order); returns the count (at most 3 for 2^28). */
unsigned plan_passes(unsigned log_n, unsigned ks_of[4], unsigned s0_of[4]) {
    const unsigned passes = (log_n + 9) / 10;
    unsigned s0 = 0;
    for (unsigned p = 0; p < passes; p++) {
        ks_of[p] = log_n / passes + (p < log_n % passes ? 1 : 0);
        s0_of[p] = s0;
        s0 += ks_of[p];
    }
    return passes;
}

/*
 * The transform behind every kind, in direction `inv`: input scaled first
 * (pre_mode), output i multiplied by post^i when post_lo is given, where i is
 * the output's storage index, or with post_rev (ORDER_NR only) by post^rev(i),
 * i.e. by post to the natural index of the value stored there. Only the
 * passes q_begin <= q < q_end (in the order they run) are launched, the bit
 * reversal with q = 0; the last pass of the transform stores its output
 * multiplied into mul_into (pass_store) where mul_into is given.
 */
czk_status ntt_run(czk_cuda_ctx *ctx, fr *data, unsigned log_n, int inv, int pre_mode, fr pre_c,
                   const fr *pre_lo, const fr *pre_hi, const fr *post_lo, const fr *post_hi,
                   const char *what, czk_err *err, ntt_order order = ORDER_NN,
                   bool post_rev = false, unsigned q_begin = 0, unsigned q_end = 4,
                   fr *mul_into = nullptr) {
    const bool prof = ctx->profile != 0;
    const bool dif = order == ORDER_NR;
    if ((order != ORDER_NN && pre_mode == SCALE_POWERS) || (order == ORDER_RN && pre_mode) ||
        (post_rev && !dif))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: unsupported order/scaling combination",
                        what);
    double t0 = prof ? (cudaStreamSynchronize(ctx->stream), now_ms()) : 0;
    if (order == ORDER_NN && q_begin == 0) {
        launch_bitrev(data, log_n, pre_mode, pre_c, pre_lo, pre_hi, ctx->stream);
        CZK_LAUNCH("%s 2^%u: bit reversal", what, log_n);
        if (prof) {
            CZK_CU(cudaStreamSynchronize(ctx->stream), "%s: synchronize", what);
            fprintf(stderr, "%s 2^%u: bit reversal %.3f ms", what, log_n, now_ms() - t0);
        }
    } else if (prof)
        fprintf(stderr, "%s 2^%u (%s)", what, log_n, dif ? "DIF" : "DIT, no bit reversal");
    unsigned ks_of[4], s0_of[4];
    const unsigned passes = plan_passes(log_n, ks_of, s0_of);
    for (unsigned q = q_begin; q < passes && q < q_end; q++) {
        const unsigned p = dif ? passes - 1 - q : q;
        const unsigned ks = ks_of[p], ps0 = s0_of[p];
        const bool first = q == 0, last = q + 1 == passes;
        const fr *direct = nullptr;
        unsigned half_log = 0;
        if (ps0 > 0) {
            czk_status st = twist_table(ctx, inv, ps0 + ks, &direct, &half_log, err);
            if (st != CZK_OK) return st;
        }
        if (prof) t0 = (cudaStreamSynchronize(ctx->stream), now_ms());
        const fr *plo = last ? post_lo : nullptr, *phi = last ? post_hi : nullptr;
        const int pre_on = dif && first && pre_mode == SCALE_CONST;
        CZK_CU(launch_pass<NTT_BLOCK>(dif, ks, data, log_n, ps0, ctx->w1024[inv],
                                      ctx->omega_lo[inv], ctx->omega_hi[inv], direct, half_log, plo,
                                      phi, post_rev ? 1 : 0, pre_c, pre_on, ctx->stream,
                                      ctx->ntt_radix == 4, ctx->ntt_mul_eo,
                                      last ? mul_into : nullptr),
               "%s 2^%u: pass %u (%u stages)", what, log_n, p, ks);
        if (prof) {
            CZK_CU(cudaStreamSynchronize(ctx->stream), "%s: synchronize", what);
            fprintf(stderr, ", pass %u (%u stages%s) %.3f ms", p, ks,
                    !direct    ? ""
                    : half_log ? ", half-table twist"
                               : ", direct twist",
                    now_ms() - t0);
        }
    }
    if (prof) fprintf(stderr, "\n");
    return CZK_OK;
}

czk_status ntt_kind(czk_cuda_ctx *ctx, fr *data, unsigned log_n, czk_ntt_kind kind, czk_err *err) {
    czk_fr n_inv;
    czk_fr_from_u64(&n_inv, (uint64_t)1 << log_n);
    czk_fr_inv(&n_inv, &n_inv);
    fr ninv = host_fr(n_inv), none = fr::one();
    switch (kind) {
    case CZK_NTT_FORWARD:
        return ntt_run(ctx, data, log_n, 0, SCALE_NONE, none, nullptr, nullptr, nullptr, nullptr,
                       "ntt", err);
    case CZK_NTT_INVERSE:
        return ntt_run(ctx, data, log_n, 1, SCALE_CONST, ninv, nullptr, nullptr, nullptr, nullptr,
                       "intt", err);
    case CZK_NTT_COSET_FORWARD:
        return ntt_run(ctx, data, log_n, 0, SCALE_POWERS, none, ctx->gen_lo[0], ctx->gen_hi[0],
                       nullptr, nullptr, "coset ntt", err);
    case CZK_NTT_COSET_INVERSE:
        return ntt_run(ctx, data, log_n, 1, SCALE_CONST, ninv, nullptr, nullptr, ctx->gen_lo[1],
                       ctx->gen_hi[1], "coset intt", err);
    }
    return czk_errf(err, CZK_ERR_INVALID_ARG, "ntt: unknown kind %d", (int)kind);
}

/* lo[t] = x^t, hi[t] = x^(t·2^14), t < 2^14, built on the host and uploaded. */
czk_status upload_power_tables(czk_cuda_ctx *ctx, const czk_fr &x, fr **lo, fr **hi, czk_err *err) {
    const size_t T = (size_t)1 << TABLE_BITS;
    czk_fr *h = (czk_fr *)malloc(2 * T * sizeof(czk_fr));
    if (!h) return czk_errf(err, CZK_ERR_NOMEM, "ntt tables: host memory");
    h[0] = czk_fr_one;
    for (size_t t = 1; t < T; t++)
        czk_fr_mul(&h[t], &h[t - 1], &x);
    czk_fr step;
    czk_fr_mul(&step, &h[T - 1], &x); /* x^(2^14) */
    h[T] = czk_fr_one;
    for (size_t t = 1; t < T; t++)
        czk_fr_mul(&h[T + t], &h[T + t - 1], &step);
    cudaError_t e = cudaMalloc((void **)lo, T * sizeof(fr));
    if (e == cudaSuccess) e = cudaMalloc((void **)hi, T * sizeof(fr));
    if (e == cudaSuccess) e = cudaMemcpy(*lo, h, T * sizeof(fr), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(*hi, h + T, T * sizeof(fr), cudaMemcpyHostToDevice);
    free(h);
    CZK_CU(e, "ntt tables: upload");
    return CZK_OK;
}

/* gen_hi[0] scaled by 1/N, N = 2^log_n (the coset factor's table with the 1/N of an inverse
 * transform folded in), made on first use and kept in the context. */
czk_status coset_hi_ninv(czk_cuda_ctx *ctx, unsigned log_n, const fr **out, czk_err *err) {
    if (!ctx->gen_hi_ninv[log_n]) {
        const uint32_t T = 1u << TABLE_BITS;
        czk_fr n_inv;
        czk_fr_from_u64(&n_inv, (uint64_t)1 << log_n);
        czk_fr_inv(&n_inv, &n_inv);
        CZK_CU(cudaMalloc((void **)&ctx->gen_hi_ninv[log_n], T * sizeof(fr)),
               "h: allocate the coset table 2^%u", log_n);
        ntt_scale_table<<<grid_for(T, 256), 256, 0, ctx->stream>>>(
            ctx->gen_hi_ninv[log_n], ctx->gen_hi[0], T, host_fr(n_inv));
        CZK_LAUNCH("h: coset table 2^%u", log_n);
    }
    *out = ctx->gen_hi_ninv[log_n];
    return CZK_OK;
}

/*
 * The Lagrange form's H with fused passes (ctx->h_fuse, paired order): a <- A·B with A, B the
 * coset evaluations of a and b as in czk_cuda_h, in three launches fewer per array and 2^(log_n+1)
 * multiplications fewer:
 *  - the inverse transform's 1/N rides in the coset factor's table (coset_hi_ninv) instead of a
 *    multiplication at its first load;
 *  - its last DIF pass and the forward transform's first DIT pass are one kernel
 *    (ntt_pass_pair: both work on the same groups of consecutive elements);
 *  - b's last pass multiplies its output into a (pass_store) instead of a separate product pass.
 * Same values as the separate passes (field arithmetic is exact).
 */
czk_status h_lagrange_fused(czk_cuda_ctx *ctx, fr *a, fr *b, unsigned log_n, czk_err *err) {
    const fr *hi = nullptr;
    czk_status st = coset_hi_ninv(ctx, log_n, &hi, err);
    if (st != CZK_OK) return st;
    unsigned ks_of[4], s0_of[4];
    const unsigned passes = plan_passes(log_n, ks_of, s0_of);
    fr *v[2] = {a, b};
    const char *names[2] = {"h: a", "h: b"};
    for (int k = 0; k < 2; k++) {
        fr *into = k == 1 ? a : nullptr;
        /* the inverse DIF passes but its last (none with one pass) */
        st = ntt_run(ctx, v[k], log_n, 1, SCALE_NONE, fr::one(), nullptr, nullptr, nullptr, nullptr,
                     names[k], err, ORDER_NR, false, 0, passes - 1);
        if (st != CZK_OK) return st;
        const double t0 = ctx->profile ? (cudaStreamSynchronize(ctx->stream), now_ms()) : 0;
        CZK_CU(launch_pass_pair<NTT_BLOCK>(ks_of[0], v[k], log_n, ctx->w1024[1], ctx->w1024[0],
                                           ctx->gen_lo[0], hi, passes == 1 ? into : nullptr,
                                           ctx->ntt_radix == 4, ctx->ntt_mul_eo, ctx->stream),
               "%s 2^%u: inverse last and forward first pass (%u stages)", names[k], log_n,
               ks_of[0]);
        if (ctx->profile) {
            CZK_CU(cudaStreamSynchronize(ctx->stream), "%s: synchronize", names[k]);
            fprintf(stderr, "%s 2^%u: inverse last + forward first pass (%u stages) %.3f ms\n",
                    names[k], log_n, ks_of[0], now_ms() - t0);
        }
        /* the forward DIT passes after its first (b's last into a) */
        st = ntt_run(ctx, v[k], log_n, 0, SCALE_NONE, fr::one(), nullptr, nullptr, nullptr, nullptr,
                     names[k], err, ORDER_RN, false, 1, passes, into);
        if (st != CZK_OK) return st;
    }
    return CZK_OK;
}

} // namespace

czk_status ntt_tables_init(czk_cuda_ctx *ctx, czk_err *err) {
    czk_fr w[2], g[2];
    czk_status st = czk_fr_root_of_unity(&w[0], 28, err);
    if (st != CZK_OK) return st;
    czk_fr_inv(&w[1], &w[0]);
    czk_fr_from_u64(&g[0], CZK_FR_GENERATOR);
    czk_fr_inv(&g[1], &g[0]);
    for (int d = 0; d < 2; d++) {
        if ((st = upload_power_tables(ctx, w[d], &ctx->omega_lo[d], &ctx->omega_hi[d], err)) !=
            CZK_OK)
            return st;
        if ((st = upload_power_tables(ctx, g[d], &ctx->gen_lo[d], &ctx->gen_hi[d], err)) != CZK_OK)
            return st;
        /* ω_1024 = ω_{2^28}^(2^18) */
        czk_fr w10 = w[d], h[512];
        for (int i = 0; i < 18; i++)
            czk_fr_sqr(&w10, &w10);
        h[0] = czk_fr_one;
        for (int j = 1; j < 512; j++)
            czk_fr_mul(&h[j], &h[j - 1], &w10);
        CZK_CU(cudaMalloc((void **)&ctx->w1024[d], sizeof h), "ntt tables: allocate");
        CZK_CU(cudaMemcpy(ctx->w1024[d], h, sizeof h, cudaMemcpyHostToDevice),
               "ntt tables: upload");
    }
    return CZK_OK;
}

void ntt_tables_free(czk_cuda_ctx *ctx) {
    for (int d = 0; d < 2; d++) {
        for (fr *p : ctx->twist[d])
            if (p) (void)cudaFree(p);
        for (fr *p : ctx->twist_half[d])
            if (p) (void)cudaFree(p);
        if (d == 0)
            for (fr *p : ctx->gen_hi_ninv)
                if (p) (void)cudaFree(p);
        fr *ps[] = {ctx->omega_lo[d], ctx->omega_hi[d], ctx->gen_lo[d], ctx->gen_hi[d],
                    ctx->w1024[d]};
        for (fr *p : ps)
            if (p) (void)cudaFree(p);
    }
}

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_ntt(czk_cuda_ctx *ctx, czk_fr *data, unsigned log_n,
                                   czk_ntt_kind kind, czk_err *err) {
    if (log_n < 1 || log_n > CZK_NTT_MAX_LOG)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "ntt: log_n %u not in 1..%u", log_n,
                        CZK_NTT_MAX_LOG);
    CZK_CU(cudaSetDevice(ctx->device), "ntt: select device");
    czk_status st = ntt_kind(ctx, (fr *)data, log_n, kind, err);
    if (st != CZK_OK) return st;
    CZK_CU(cudaStreamSynchronize(ctx->stream), "ntt 2^%u: synchronize", log_n);
    return CZK_OK;
}

extern "C" czk_status czk_cuda_h(czk_cuda_ctx *ctx, czk_fr *a, czk_fr *b, czk_fr *c, unsigned log_n,
                                 czk_err *err) {
    if (log_n < 1 || log_n > CZK_NTT_MAX_LOG)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "h: log_n %u not in 1..%u", log_n,
                        CZK_NTT_MAX_LOG);
    CZK_CU(cudaSetDevice(ctx->device), "h: select device");
    czk_fr n_inv, gn, z_inv;
    czk_fr_from_u64(&n_inv, (uint64_t)1 << log_n);
    czk_fr_inv(&n_inv, &n_inv);
    /* z_inv = (g^N − 1)^−1 */
    czk_fr g;
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    czk_fr_pow_u64(&gn, &g, (uint64_t)1 << log_n);
    czk_fr_sub(&gn, &gn, &czk_fr_one);
    czk_fr_inv(&z_inv, &gn);
    fr *v[3] = {(fr *)a, (fr *)b, (fr *)c};
    const char *names[3] = {"h: a", "h: b", "h: c"};
    /*
     * Six transforms (default): icoset_fft is linear and icoset_fft(coset_fft(ifft(c))) =
     * ifft(c), so h = icoset_fft(A·B)·z_inv − ifft(c)·z_inv with A, B the coset evaluations of
     * a and b; c needs only its inverse transform (natural order, scaled by z_inv/N) and z_inv
     * rides in a's first scaling. Seven (CZK_CUDA_H_TRANSFORMS=7): bellperson's sequence.
     */
    /* c NULL, the Lagrange form: A and B as below (their 1/N only), A·B, done (four) */
    const bool lagrange = c == nullptr;
    if (lagrange && ctx->h_fuse && ctx->h_order == 0) {
        czk_status st = h_lagrange_fused(ctx, (fr *)a, (fr *)b, log_n, err);
        if (st != CZK_OK) return st;
        CZK_CU(cudaStreamSynchronize(ctx->stream), "h 2^%u: synchronize", log_n);
        return CZK_OK;
    }
    const bool six = ctx->h_transforms != 7 && !lagrange;
    czk_fr a_scale = n_inv, c_scale;
    czk_fr_mul(&c_scale, &n_inv, &z_inv);
    if (six) a_scale = c_scale;
    for (int k = 0; k < (lagrange ? 2 : 3); k++) {
        czk_status st;
        const fr scale = host_fr(k == 0 ? a_scale : n_inv);
        if (six && k == 2) {
            st = ntt_run(ctx, v[k], log_n, 1, SCALE_CONST, host_fr(c_scale), nullptr, nullptr,
                         nullptr, nullptr, names[k], err);
            if (st != CZK_OK) return st;
            continue;
        }
        if (ctx->h_order == 0) {
            /* paired: coefficients·g^j land bit-reversed (DIF; position i holds coefficient
             * rev(i), scaled by g^rev(i)), the forward DIT takes them without a bit reversal */
            st = ntt_run(ctx, v[k], log_n, 1, SCALE_CONST, scale, nullptr, nullptr, ctx->gen_lo[0],
                         ctx->gen_hi[0], names[k], err, ORDER_NR, true);
            if (st != CZK_OK) return st;
            st = ntt_run(ctx, v[k], log_n, 0, SCALE_NONE, fr::one(), nullptr, nullptr, nullptr,
                         nullptr, names[k], err, ORDER_RN);
            if (st != CZK_OK) return st;
            continue;
        }
        /* natural: coset_fft(ifft(x)): the inverse transform's last pass multiplies by g^i */
        st = ntt_run(ctx, v[k], log_n, 1, SCALE_CONST, scale, nullptr, nullptr, ctx->gen_lo[0],
                     ctx->gen_hi[0], names[k], err);
        if (st != CZK_OK) return st;
        st = ntt_run(ctx, v[k], log_n, 0, SCALE_NONE, fr::one(), nullptr, nullptr, nullptr, nullptr,
                     names[k], err);
        if (st != CZK_OK) return st;
    }
    size_t n = (size_t)1 << log_n;
    if (lagrange) {
        h_product<<<grid_for(n, 256), 256, 0, ctx->stream>>>(v[0], v[1], n);
        CZK_LAUNCH("h 2^%u: pointwise", log_n);
        CZK_CU(cudaStreamSynchronize(ctx->stream), "h 2^%u: synchronize", log_n);
        return CZK_OK;
    }
    if (six)
        h_product<<<grid_for(n, 256), 256, 0, ctx->stream>>>(v[0], v[1], n);
    else
        h_pointwise<<<grid_for(n, 256), 256, 0, ctx->stream>>>(v[0], v[1], v[2], n, host_fr(z_inv));
    CZK_LAUNCH("h 2^%u: pointwise", log_n);
    czk_status st = ntt_kind(ctx, v[0], log_n, CZK_NTT_COSET_INVERSE, err);
    if (st != CZK_OK) return st;
    if (six) {
        h_subtract<<<grid_for(n, 256), 256, 0, ctx->stream>>>(v[0], v[2], n);
        CZK_LAUNCH("h 2^%u: subtract", log_n);
    }
    CZK_CU(cudaStreamSynchronize(ctx->stream), "h 2^%u: synchronize", log_n);
    return CZK_OK;
}
