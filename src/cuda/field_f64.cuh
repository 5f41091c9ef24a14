/*
 * Montgomery multiplication on the FP64 pipe (field.cuh's MUL_F64 form).
 *
 * Hopper has a full-rate FP64 pipe (64 DFMA per SM and clock, like the 64
 * IMAD of the integer multiplier: spec/perf-anchors.md §4) that the 32-bit
 * limb forms leave idle. Here an operand is split into D limbs of LB bits
 * held exactly as doubles (Fp: 8 × 48 bits = 384, Fr: 5 × 52 = 260), and a
 * limb product a·b < 2^(2·LB) is taken apart exactly by two FMAs (Emmart,
 * Zheng, Weems, "Faster Modular Exponentiation Using Double Precision
 * Floating Point Arithmetic on the GPU", ARITH 2018):
 *   t = fma_rz(a, b, C)        C = 2^(LB+52): t = C + ⌊a·b/2^LB⌋·2^LB, so the
 *                              bit pattern of t is bits(C) + hi
 *   l = fma(a, b, (C + 2^52) − t)   = 2^52 + (a·b mod 2^LB), exact, so
 *                              bits(l) = bits(2^52) + lo
 * and the bit patterns are summed as 64-bit integers into columns (the
 * constant parts bits(C), bits(2^52) taken off once per column by the
 * accumulators' start values). 3 FP64 operations and two 64-bit integer
 * additions a limb product, against 2 IMAD (lo, hi) a 32-bit product in the
 * integer forms: 64 + 64 products for Fp instead of 144 + 144.
 *
 * Reduction: row k of the product, then the Montgomery round of column k
 * (CIOS order, so that few columns are live): the digit q = (T_k·p') mod 2^w
 * (w = LB, the last one w = RB − LB·(D−1): 48 for Fr) by the same split,
 * q·p added into the columns, the column carried into the next. For a
 * full-width round only the high half of q·p_0 is formed: the low half is
 * whatever makes T_k a multiple of 2^LB, so the carry is ⌈T_k / 2^LB⌉. The
 * radix is R = 2^(32N) (RB = 384, 256), the integer forms' own, so values,
 * tables and keys need no conversion: the form is a drop-in for mul_eo.
 * Bounds (a, b < 2m, m < 2^(RB−1)): T < 4m² + m·R, T/R < 2m·(2m/R) + m < 2m
 * for Fp (m < R/8); the result is reduced once like the other forms' and is
 * fully reduced. Each column holds at most 4D terms below 2^52: < 2^57.
 *
 * Measured (bench/GPU.md, fourteenth run, H100 SXM; sm_90 like the H200):
 * slower than the even/odd integer form, so no kernel uses it; it stays as
 * a rates row (bench_gpu) and a tested base for other limb designs. Fp
 * 2.32e10 products/s against mul_eo's 2.68e10 (876 instructions a product:
 * 264 DFMA, 156 DADD, 316 IADD3; the even/odd form 452, of them 314 IMAD),
 * Fr 5.31e10 against 5.15e10; one chain of each form in a thread 2.66e10 /
 * 5.64e10, alternate warps 2.55e10 / 5.52e10 — the two pipes do not add up.
 * The batch-affine backward pass with its products on this form (1, 2, 3 or
 * all 5 of a pair's) ran 543–632 ms against 391 at 2^27 (172–178 registers
 * against 128: one block of 256 per SM instead of two), the NTT 2^27 47.7
 * ms against 44.1.
 *
 * On the host (tests without a GPU) the two FMAs are emulated exactly with
 * 128-bit integers, so field.cuh's host checks run this code too; the
 * floating-point facts it rests on (fma_rz(a, b, 2^E) = 2^E + ⌊ab/2^(E−52)⌋
 * ·2^(E−52) for ab < 2^E; the subtraction and the second FMA exact) are
 * checked against the host's own IEEE fma and rounding modes by
 * czk_cuda_f64_fma_check (host_check.cu).
 */
#ifndef CZK_CUDA_FIELD_F64_CUH
#define CZK_CUDA_FIELD_F64_CUH

#include <stdint.h>
#ifndef __CUDA_ARCH__
#include <math.h>
#include <string.h>
#endif

namespace czkg {

CZK_HD uint64_t f64_bits(double x) {
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

CZK_HD double f64_of_bits(uint64_t u) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

CZK_HD double f64_of_words(uint32_t lo, uint32_t hi) {
#ifdef __CUDA_ARCH__
    return __hiloint2double((int)hi, (int)lo);
#else
    return f64_of_bits((uint64_t)hi << 32 | lo);
#endif
}

/*
 * fma(a, b, c) rounded toward zero, for c = 2^E and integers 0 <= a, b with
 * a·b < 2^E: 2^E + ⌊a·b / 2^(E−52)⌋·2^(E−52).
 */
CZK_HD double f64_fma_rz_pow2(double a, double b, double c) {
#ifdef __CUDA_ARCH__
    return __fma_rz(a, b, c);
#else
    int e;
    (void)frexp(c, &e); /* c = 0.5·2^e */
    const int ulp = e - 1 - 52;
    const unsigned __int128 p = (unsigned __int128)(uint64_t)a * (uint64_t)b;
    return ldexp((double)((1ull << 52) + (uint64_t)(p >> ulp)), ulp);
#endif
}

/* fma(a, b, c) where the exact value is an integer below 2^53 in magnitude (any rounding). */
CZK_HD double f64_fma_exact(double a, double b, double c) {
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    const __int128 v = (__int128)((unsigned __int128)(uint64_t)a * (uint64_t)b) + (__int128)c;
    return (double)(int64_t)v;
#endif
}

/* 2^e for 0 <= e < 1023, as a constant expression. */
CZK_HD constexpr double f64_pow2(int e) {
    return e == 0 ? 1.0 : 2.0 * f64_pow2(e - 1);
}

/* The MUL_F64 multiplication for the parameters P of field.cuh (N u32 limbs, F64_LB). */
template <class P> struct f64_mont {
    static constexpr int N = P::N;
    static constexpr int RB = 32 * N;                /* R = 2^RB */
    static constexpr int LB = P::F64_LB;             /* bits a double limb */
    static constexpr int D = (RB + LB - 1) / LB;     /* double limbs */
    static constexpr int W_LAST = RB - LB * (D - 1); /* the last round's digit width */
    static constexpr bool PARTIAL = W_LAST < LB;
    static constexpr uint64_t MASK = (1ull << LB) - 1;
    static constexpr uint32_t HI_MASK = (1u << (LB - 32)) - 1;
    static constexpr uint32_t EXP52 = 0x43300000u; /* high word of 2^52 */
    static constexpr double TWO52 = f64_pow2(52);
    static constexpr double C = f64_pow2(LB + 52);
    static constexpr double CD = C + TWO52;
    static constexpr uint64_t BITS_C = (uint64_t)(1023 + LB + 52) << 52;
    static constexpr uint64_t BITS_52 = (uint64_t)(1023 + 52) << 52;
    static_assert(LB > 32 && LB <= 52 && W_LAST > 32, "limb width");

    CZK_HD static constexpr uint64_t word(int i) {
        return i < N ? P::m(i) : 0;
    }
    /* Limb j of m (bits [LB·j, LB·j + LB)). */
    CZK_HD static constexpr uint64_t m_limb(int j) {
        const int g = LB * j, w = g / 32, o = g % 32;
        const uint64_t x = word(w) | word(w + 1) << 32;
        return ((x >> o) | (o ? word(w + 2) << (64 - o) : 0)) & MASK;
    }
    CZK_HD static constexpr double md(int j) {
        return (double)m_limb(j);
    }
    /* −1/m mod 2^LB (Newton's iteration from 1/m ≡ m mod 8 for odd m). */
    CZK_HD static constexpr uint64_t m_inv_neg() {
        const uint64_t m0 = word(0) | word(1) << 32;
        uint64_t x = m0;
        for (int i = 0; i < 6; i++)
            x *= 2 - m0 * x;
        return (0 - x) & MASK;
    }
    static constexpr double PINV = (double)m_inv_neg();

    /* Terms added into column k: i + j = k of a D×D table, and the rounds' (see mul). */
    CZK_HD static constexpr int diag(int k) {
        return k < 0 || k > 2 * D - 2 ? 0 : (k < 2 * D - 2 - k ? k : 2 * D - 2 - k) + 1;
    }
    CZK_HD static constexpr int span(int lo, int hi) {
        return hi >= lo ? hi - lo + 1 : 0;
    }
    CZK_HD static constexpr int imax(int a, int b) {
        return a > b ? a : b;
    }
    CZK_HD static constexpr int imin(int a, int b) {
        return a < b ? a : b;
    }
    /* Low halves in column k: products', rounds' q·m_j (j >= 1), the partial round's q·m_0. */
    CZK_HD static constexpr uint64_t n_lo(int k) {
        return (uint64_t)(diag(k) + span(imax(0, k - D + 1), imin(D - 1, k - 1)) +
                          (PARTIAL && k == D - 1 ? 1 : 0));
    }
    /* High halves in column k: the products' (i + j + 1 = k) and the rounds' (m + j + 1 = k). */
    CZK_HD static constexpr uint64_t n_hi(int k) {
        return (uint64_t)(diag(k - 1) + span(imax(0, k - D), imin(D - 1, k - 1)));
    }

    /* The D limbs of an N-word integer below 2^(LB·D), as exact doubles. */
    CZK_HD static void split(const uint32_t w[N], double d[D]) {
#pragma unroll
        for (int j = 0; j < D; j++) {
            const int g = LB * j, i = g / 32, o = g % 32;
            const uint32_t w0 = w[i], w1 = i + 1 < N ? w[i + 1] : 0, w2 = i + 2 < N ? w[i + 2] : 0;
            const uint32_t lo = o ? (w0 >> o) | (w1 << (32 - o)) : w0;
            const uint32_t hi = o ? (w1 >> o) | (w2 << (32 - o)) : w1;
            d[j] = f64_of_words(lo, (hi & HI_MASK) | EXP52) - TWO52;
        }
    }

    /* acc[k] += a·b's low half, acc[k + 1] += its high half (bit patterns). */
    CZK_HD static void mac(uint64_t *acc, int k, double a, double b) {
        const double t = f64_fma_rz_pow2(a, b, C);
        const double l = f64_fma_exact(a, b, CD - t);
        acc[k] += f64_bits(l);
        acc[k + 1] += f64_bits(t);
    }

    /*
     * r = a·b/R mod m, r < 2m (reduce once for < m); a, b < 2m (see the header). Row i of the
     * product (a_i·b into columns i .. i+D) then round i of the reduction, so only columns
     * i .. i+D are live: a column is complete when its round comes (the rows and rounds before
     * it are all that add to it).
     */
    CZK_HD static void mul(uint32_t r[N], const uint32_t aw[N], const uint32_t bw[N]) {
        double a[D], b[D];
        split(aw, a);
        split(bw, b);
        uint64_t acc[2 * D + 1];
#pragma unroll
        for (int k = 0; k <= 2 * D; k++)
            acc[k] = 0 - (n_lo(k) * BITS_52 + n_hi(k) * BITS_C);
#pragma unroll
        for (int k = 0; k < D; k++) {
#pragma unroll
            for (int j = 0; j < D; j++)
                mac(acc, k + j, a[k], b[j]);
            const bool part = PARTIAL && k == D - 1;
            const uint64_t v = acc[k];
            const double x =
                f64_of_words((uint32_t)v, ((uint32_t)(v >> 32) & HI_MASK) | EXP52) - TWO52;
            const double t = f64_fma_rz_pow2(x, PINV, C);
            uint64_t qb = f64_bits(f64_fma_exact(x, PINV, CD - t)); /* 2^52 + (x·p' mod 2^LB) */
            if (part) qb = (qb & ((1ull << W_LAST) - 1)) | BITS_52;
            const double q = f64_of_bits(qb) - TWO52;
            if (part) {
                mac(acc, k, q, md(0));
            } else {
                acc[k + 1] += f64_bits(f64_fma_rz_pow2(q, md(0), C));
            }
#pragma unroll
            for (int j = 1; j < D; j++)
                mac(acc, k + j, q, md(j));
            if (!part) acc[k + 1] += (acc[k] + MASK) >> LB; /* T_k + (q·m_0 mod 2^LB) ≡ 0 */
        }
        /* The result: columns K0.. normalised to LB bits, shifted right by S0 bits. */
        constexpr int K0 = PARTIAL ? D - 1 : D, S0 = PARTIAL ? W_LAST : 0, NL = 2 * D - K0;
        uint64_t nl[NL + 1];
        uint64_t carry = 0;
#pragma unroll
        for (int k = 0; k < NL; k++) {
            const uint64_t v = acc[K0 + k] + carry;
            nl[k] = v & MASK;
            carry = v >> LB;
        }
        nl[NL] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int g = S0 + 32 * i, m = g / LB, o = g % LB;
            r[i] = (uint32_t)((nl[m] >> o) | (o > LB - 32 ? nl[m + 1] << (LB - o) : 0));
        }
    }
};

} // namespace czkg

#endif
