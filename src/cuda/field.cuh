/*
 * BLS12-381 field arithmetic for the CUDA kernels: Fp (381-bit, 12×u32 limbs),
 * Fr (255-bit, 8×u32 limbs), both in Montgomery form, and Fp2 = Fp[u]/(u² + 1).
 *
 * Layout: a value is its Montgomery representative x·R mod m (R = 2^384 for
 * Fp, 2^256 for Fr) as little-endian u32 limbs. That is byte for byte blst's
 * blst_fp / blst_fr (little-endian u64 limbs) on a little-endian host, so host
 * buffers of blst_fp, blst_fr, blst_p1_affine, blst_p2_affine upload without
 * conversion. fp2 is blst_fp2 (c0, c1).
 *
 * Multiplication is CIOS Montgomery multiplication (Koç, Acar, Kaliski,
 * "Analyzing and comparing Montgomery multiplication algorithms", 1996), in
 * interchangeable forms (all compiled for the tests and the microbenchmark;
 * a parameter struct's MUL picks the one operator* uses):
 *   MUL_WIDE    rows of 32×32→64 multiply-adds in plain C++ (u64 accumulators);
 *               nvcc turns each into one IMAD.WIDE.U32 plus a 64-bit add.
 *   MUL_CHAIN   rows as PTX carry chains: mad.lo.cc / madc.hi.cc into one
 *               accumulator, the product row then the reduction row.
 *   MUL_EO      rows as two independent carry chains, products a_j·b_i with
 *               j even in one accumulator and j odd in another (sppark's
 *               mont_t structure); every product half is one mad/madc.
 *   MUL_CALL    MUL_WIDE as a called (not inlined) function.
 *   MUL_EO_CALL MUL_EO as a called function.
 *   MUL_EO_LOW  MUL_EO where the modulus's low limbs are 1 and 2^32 − 1 (Fr):
 *               the reduction's products by them and q's multiplication by
 *               M0 = −1 become additions (mul_eo_low), 224 IMADs instead of
 *               264 a product. Fr's default: +7.5 % isolated, NTT 2^27 −1.4 %,
 *               the Lagrange form's H −1.9 ms on an H100 (bench/GPU.md,
 *               twenty-fifth run; the passes are not bound by the IMAD pipe).
 *   MUL_F64     limbs of 48 (Fp) / 52 (Fr) bits as doubles on the FP64 pipe
 *               (field_f64.cuh): 64 + 64 limb products for Fp; measured
 *               slower than MUL_EO (0.87× Fp, 1.03× Fr), used by no kernel.
 *   MUL_KA      mul_ka: Karatsuba's product (one level, halves of N/2 limbs:
 *               108 products for Fp instead of 144, each a lo/hi pair of
 *               mad in mul_eo's even/odd chains), then Montgomery's REDC on
 *               the 2N-limb product by eo_round's rounds without their
 *               product row (the 144 reduction products of mul_eo, every
 *               wide multiply-add's register pair aligned, no moves).
 *               PTX multiply-adds a product 520 against mul_eo's 592 (−12 %);
 *               registers +14 alone, +24 with two chains a thread (ptxas,
 *               sm_90). Fp only (m < 2^(32N−3)). G1's batch-affine backward
 *               passes under CZK_CUDA_MSM_MUL (msm_affine.cuh); not yet
 *               measured on a GPU (bench/GPU.md, "Karatsuba's product").
 * Squaring has its own forms (a parameter struct's SQR picks the one sqr() uses):
 *   SQR_MUL     a·a by the multiplication above.
 *   SQR_EO      sqr_eo: CIOS rounds in the even/odd structure whose product
 *               row i holds only a_i·a_i and 2·a_i·a_j for j > i, so the
 *               products are N(N+1)/2 instead of N² (78 against 144 for Fp);
 *               the reduction rows are those of mul_eo. Needs m < 2^(32N−3)
 *               (Fp, not Fr).
 * Outputs are fully reduced (< m). Every function is __host__ __device__: on
 * the host the PTX carry chains run on an emulated carry flag, so the same
 * code is checked against blst on machines without a GPU (tests/cuda/host.c).
 */
#ifndef CZK_CUDA_FIELD_CUH
#define CZK_CUDA_FIELD_CUH

#include <stdint.h>

#define CZK_HD __host__ __device__ __forceinline__
/* For code off the hot paths: one copy per kernel instead of one per call site. */
#define CZK_HD_NOINLINE __host__ __device__ __noinline__

/*
 * Fp: MUL_EO_CALL. A point addition holds 10–14 Fp multiplications; inlined
 * they are a lot of code (the wide form's inlined addition, ~100 KB, ran from
 * L2 instead of the instruction cache), so G1 code calls its multiplication;
 * the MSM accumulation kernel alone inlines the even/odd form, measured
 * faster there (msm.cuh, acc_variants). Fp2
 * multiplications are themselves calls and inline their three Fp products
 * (nested calls made the G2 MSM 5× slower). Fr: MUL_EO_LOW (MUL_EO until
 * bench/GPU.md's twenty-fifth run).
 * H200, 2026-11-29 (bench_gpu rates): Fp 2.67e10/s even/odd against 1.70e10
 * wide and 1.74e10 single-chain; Fr 5.12e10/s even/odd against 3.95e10 wide;
 * G1 xyzz+affine 2.29e9/s with MUL_EO_CALL against 1.62e9 with MUL_CALL.
 */
#ifndef CZK_CUDA_MUL_FP
#define CZK_CUDA_MUL_FP MUL_EO_CALL
#endif
#ifndef CZK_CUDA_MUL_FR
#define CZK_CUDA_MUL_FR MUL_EO_LOW
#endif
/*
 * Fp squaring of fp (the called form: everything but the MSM accumulation
 * and batch addition, whose variants pick their own forms, msm.cuh): SQR_MUL,
 * the squaring by mul_call. SQR_EO there (sqr_call) raised the registers of
 * kernels that call xyzz::add (ptxas -v, sm_90: msm_running_sum<g1> 128 →
 * 152, msm_bucket_sum<g1> 128 → 144: half the blocks per SM at 256 threads)
 * for ≈ 1/14 of their products; sqr_eo inlined into the called point
 * formulas kept 128 but tripled xyzz::dbl's code.
 * Expected of SQR_EO from multiply-add counts (the limit here: 2.67e10
 * mul/s × 588 mad ≈ 60 per SM clock at 1.98 GHz, of sm_90's 64 IMAD):
 * sqr_eo 456 mad (PTX) against mul_eo's 588, a squaring ≈ 1.29× the
 * multiplication rate; madd-2008-s (8 mul + 2 sqr) ≈ 4.5 % fewer.
 * Fr: SQR_MUL (its modulus is above sqr_eo's bound).
 */
#ifndef CZK_CUDA_SQR_FP
#define CZK_CUDA_SQR_FP SQR_MUL
#endif

#include "field_f64.cuh"

namespace czkg {

enum {
    MUL_WIDE = 0,
    MUL_CHAIN = 1,
    MUL_EO = 2,
    MUL_CALL = 3,
    MUL_EO_CALL = 4,
    MUL_F64 = 5,
    MUL_EO_LOW = 6,
    MUL_KA = 7
};
enum { SQR_MUL = 0, SQR_EO = 1 };

/*
 * One PTX carry flag. On the device each method is one instruction that reads
 * and/or writes CC.CF (asm volatile keeps them in order); on the host `cf`
 * plays the flag. *_cc methods write the flag; the others only read it.
 */
struct carry_chain {
#ifndef __CUDA_ARCH__
    uint32_t cf = 0;
#endif
    // clang-format off
#ifdef __CUDA_ARCH__
#define CZK_ASM3(op)                                                                               \
    uint32_t r;                                                                                    \
    asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                                    \
    return r;
#define CZK_ASM4(op)                                                                               \
    uint32_t r;                                                                                    \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                        \
    return r;
    __device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) { CZK_ASM3("add.cc.u32") }
    __device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) { CZK_ASM3("addc.cc.u32") }
    __device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) { CZK_ASM3("addc.u32") }
    __device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) { CZK_ASM3("sub.cc.u32") }
    __device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) { CZK_ASM3("subc.cc.u32") }
    __device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) { CZK_ASM3("subc.u32") }
    __device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
        CZK_ASM4("mad.lo.cc.u32")
    }
    __device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
        CZK_ASM4("madc.lo.cc.u32")
    }
    __device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
        CZK_ASM4("mad.hi.cc.u32")
    }
    __device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
        CZK_ASM4("madc.hi.cc.u32")
    }
    __device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
        CZK_ASM4("madc.hi.u32")
    }
#undef CZK_ASM3
#undef CZK_ASM4
    // clang-format on
#else
    inline uint32_t add_cc(uint32_t a, uint32_t b) {
        return put((uint64_t)a + b);
    }
    inline uint32_t addc_cc(uint32_t a, uint32_t b) {
        return put((uint64_t)a + b + cf);
    }
    inline uint32_t addc(uint32_t a, uint32_t b) {
        return a + b + cf;
    }
    inline uint32_t sub_cc(uint32_t a, uint32_t b) {
        return bput((uint64_t)a - b);
    }
    inline uint32_t subc_cc(uint32_t a, uint32_t b) {
        return bput((uint64_t)a - b - cf);
    }
    inline uint32_t subc(uint32_t a, uint32_t b) {
        return a - b - cf;
    }
    inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
        return put((uint64_t)(uint32_t)((uint64_t)a * b) + c);
    }
    inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
        return put((uint64_t)(uint32_t)((uint64_t)a * b) + c + cf);
    }
    inline uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
        return put((((uint64_t)a * b) >> 32) + c);
    }
    inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
        return put((((uint64_t)a * b) >> 32) + c + cf);
    }
    inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
        return (uint32_t)((((uint64_t)a * b) >> 32) + c + cf);
    }

  private:
    inline uint32_t put(uint64_t s) {
        cf = (uint32_t)(s >> 32);
        return (uint32_t)s;
    }
    inline uint32_t bput(uint64_t s) {
        cf = (uint32_t)(s >> 63);
        return (uint32_t)s;
    }
#endif
};

/* Modulus parameters: limbs of m, R mod m (one), R² mod m, m − 2, and −1/m mod 2^32. */
struct fp_params {
    static constexpr int N = 12;
    static constexpr int F64_LB = 48; /* MUL_F64: 8 limbs of 48 bits (field_f64.cuh) */
    static constexpr int MUL = CZK_CUDA_MUL_FP;
    static constexpr int SQR = CZK_CUDA_SQR_FP;
    static constexpr uint32_t M0 = 0xfffcfffdu;
    CZK_HD static constexpr uint32_t m(int i) {
        constexpr uint32_t v[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                    0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                    0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return v[i];
    }
    CZK_HD static constexpr uint32_t one(int i) {
        constexpr uint32_t v[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                    0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                    0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return v[i];
    }
    CZK_HD static constexpr uint32_t r2(int i) {
        constexpr uint32_t v[12] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6,
                                    0x4c95b6d5, 0x8de5476c, 0x939d83c0, 0x67eb88a9,
                                    0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
        return v[i];
    }
    CZK_HD static constexpr uint32_t m_minus_2(int i) {
        return i == 0 ? m(0) - 2 : m(i);
    }
};

struct fr_params {
    static constexpr int N = 8;
    static constexpr int F64_LB = 52; /* MUL_F64: 5 limbs of 52 bits (field_f64.cuh) */
    static constexpr int MUL = CZK_CUDA_MUL_FR;
    static constexpr int SQR = SQR_MUL;
    static constexpr uint32_t M0 = 0xffffffffu;
    CZK_HD static constexpr uint32_t m(int i) {
        constexpr uint32_t v[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return v[i];
    }
    CZK_HD static constexpr uint32_t one(int i) {
        constexpr uint32_t v[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return v[i];
    }
    CZK_HD static constexpr uint32_t r2(int i) {
        constexpr uint32_t v[8] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                                   0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
        return v[i];
    }
    /* r − 2 = ...fffffffe ffffffff (the low limb of r is 1). */
    CZK_HD static constexpr uint32_t m_minus_2(int i) {
        return i == 0 ? 0xffffffffu : (i == 1 ? 0xfffffffeu : m(i));
    }
    /* (r − 1)/2: scalars above it are negated before signed-digit recoding. */
    CZK_HD static constexpr uint32_t half(int i) {
        constexpr uint32_t v[8] = {0x80000000, 0x7fffffff, 0x7fff2dff, 0xa9ded201,
                                   0x04d0ec02, 0x199cec04, 0x94cebea4, 0x39f6d3a9};
        return v[i];
    }
};

template <class P> struct mont {
    using params = P;
    static constexpr int N = P::N;
    uint32_t v[N];

    CZK_HD static mont zero() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = 0;
        return r;
    }
    CZK_HD static mont one() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = P::one(i);
        return r;
    }
    CZK_HD static mont modulus_r2() {
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = P::r2(i);
        return r;
    }
    CZK_HD bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i];
        return acc == 0;
    }
    CZK_HD bool is_one() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i] ^ P::one(i);
        return acc == 0;
    }
    CZK_HD friend bool operator==(const mont &a, const mont &b) {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= a.v[i] ^ b.v[i];
        return acc == 0;
    }
    CZK_HD friend bool operator!=(const mont &a, const mont &b) {
        return !(a == b);
    }

    /* t − m if t >= m, else t (t < 2m). */
    CZK_HD static void reduce_once(uint32_t t[N]) {
        uint32_t u[N];
        carry_chain k;
        u[0] = k.sub_cc(t[0], P::m(0));
#pragma unroll
        for (int i = 1; i < N; i++)
            u[i] = k.subc_cc(t[i], P::m(i));
        uint32_t borrow = k.subc(0, 0); /* 0 or 0xffffffff */
#pragma unroll
        for (int i = 0; i < N; i++)
            t[i] = borrow ? t[i] : u[i];
    }

    CZK_HD friend mont operator+(const mont &a, const mont &b) {
        mont r;
        carry_chain k;
        r.v[0] = k.add_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.v[i] = k.addc_cc(a.v[i], b.v[i]);
        r.v[N - 1] = k.addc(a.v[N - 1], b.v[N - 1]); /* a + b < 2m < 2^(32N): no carry out */
        reduce_once(r.v);
        return r;
    }
    /*
     * a + b without the reduction (< 2m). A valid multiplication input only
     * where m < 2^(32N−3) (Fp, not Fr): then a, b < 2m give a·b/R + m < 1.5m
     * before the final subtraction, and every CIOS intermediate stays < 3m.
     */
    CZK_HD static mont add_nr(const mont &a, const mont &b) {
        mont r;
        carry_chain k;
        r.v[0] = k.add_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.v[i] = k.addc_cc(a.v[i], b.v[i]);
        r.v[N - 1] = k.addc(a.v[N - 1], b.v[N - 1]);
        return r;
    }
    CZK_HD friend mont operator-(const mont &a, const mont &b) {
        mont r;
        carry_chain k;
        r.v[0] = k.sub_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++)
            r.v[i] = k.subc_cc(a.v[i], b.v[i]);
        uint32_t borrow = k.subc(0, 0);
        /* add m back where a < b */
        carry_chain k2;
        r.v[0] = k2.add_cc(r.v[0], P::m(0) & borrow);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.v[i] = k2.addc_cc(r.v[i], P::m(i) & borrow);
        r.v[N - 1] = k2.addc(r.v[N - 1], P::m(N - 1) & borrow);
        return r;
    }
    CZK_HD mont dbl() const {
        return *this + *this;
    }
    CZK_HD mont neg() const {
        return zero() - *this;
    }
    /* −x where flag, x otherwise. */
    CZK_HD mont cneg(bool flag) const {
        mont n = neg();
        mont r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = flag ? n.v[i] : v[i];
        return r;
    }

    /* CIOS with 64-bit accumulators: one IMAD.WIDE.U32 + 64-bit add per 32×32 product. */
    CZK_HD static mont mul_wide(const mont &a, const mont &b) {
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j <= N; j++)
            t[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint64_t c = 0;
#pragma unroll
            for (int j = 0; j < N; j++) {
                uint64_t s = (uint64_t)a.v[j] * b.v[i] + t[j] + c;
                t[j] = (uint32_t)s;
                c = s >> 32;
            }
            /* T + a·b_i < 2^(32(N+1)) because T < 2m and m < 2^(32N−1). */
            t[N] = (uint32_t)c;
            uint32_t q = t[0] * P::M0;
            uint64_t s = (uint64_t)q * P::m(0) + t[0];
            c = s >> 32;
#pragma unroll
            for (int j = 1; j < N; j++) {
                s = (uint64_t)q * P::m(j) + t[j] + c;
                t[j - 1] = (uint32_t)s;
                c = s >> 32;
            }
            /* the shifted sum is < 2m < 2^(32N): its top limb takes no further carry */
            t[N - 1] = t[N] + (uint32_t)c;
        }
        mont r;
#pragma unroll
        for (int j = 0; j < N; j++)
            r.v[j] = t[j];
        reduce_once(r.v);
        return r;
    }

    /* CIOS as PTX carry chains: per b_i a lo row and a hi row, then the same for q·m. */
    CZK_HD static mont mul_chain(const mont &a, const mont &b) {
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j <= N; j++)
            t[j] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            uint32_t bi = b.v[i];
            {
                carry_chain k;
                t[0] = k.mad_lo_cc(a.v[0], bi, t[0]);
#pragma unroll
                for (int j = 1; j < N; j++)
                    t[j] = k.madc_lo_cc(a.v[j], bi, t[j]);
                t[N] = k.addc(0, 0); /* t[N] is 0 at the start of each round */
            }
            {
                carry_chain k;
                t[1] = k.mad_hi_cc(a.v[0], bi, t[1]);
#pragma unroll
                for (int j = 1; j < N - 1; j++)
                    t[j + 1] = k.madc_hi_cc(a.v[j], bi, t[j + 1]);
                t[N] = k.madc_hi_cc(a.v[N - 1], bi, t[N]); /* no carry out: sum < 2^(32(N+1)) */
            }
            uint32_t q = t[0] * P::M0;
            uint32_t top;
            {
                carry_chain k;
                t[0] = k.mad_lo_cc(q, P::m(0), t[0]); /* becomes 0 */
#pragma unroll
                for (int j = 1; j < N; j++)
                    t[j] = k.madc_lo_cc(q, P::m(j), t[j]);
                top = k.addc(t[N], 0);
            }
            {
                carry_chain k;
                t[0] = k.mad_hi_cc(q, P::m(0), t[1]);
#pragma unroll
                for (int j = 1; j < N - 1; j++)
                    t[j] = k.madc_hi_cc(q, P::m(j), t[j + 1]);
                t[N - 1] = k.madc_hi_cc(q, P::m(N - 1), top); /* sum/2^32 < 2m: fits N limbs */
                t[N] = 0;
            }
        }
        mont r;
#pragma unroll
        for (int j = 0; j < N; j++)
            r.v[j] = t[j];
        reduce_once(r.v);
        return r;
    }

    /*
     * One CIOS round of mul_eo. T = Σ E[k]·W^k + Σ O[k]·W^(k−1) (W = 2^32,
     * O[0] = 0) on entry; the products a_j·b_i with j even go into E (lo at
     * limb j, hi at j+1) and those with j odd into O shifted down two limbs,
     * so each row is one mad.lo/madc.hi carry chain per array and the two
     * chains are independent. After adding q·m the low limb E[0] is 0, and
     * T/W = Σ O[k]·W^k + Σ E[k]·W^(k−1): the arrays swap roles next round.
     * Bounds (CIOS, a, b < m < W^N/2): T·W < 2m·W < W^(N+1), so no chain
     * carries out of the top limb of O.
     */
    template <bool LOW = false>
    CZK_HD static void eo_round(uint32_t E[N], uint32_t O[N], const mont &a, uint32_t bi,
                                bool first) {
        if (first) {
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                E[j] = a.v[j] * bi;
                E[j + 1] = (uint32_t)(((uint64_t)a.v[j] * bi) >> 32);
                O[j] = a.v[j + 1] * bi;
                O[j + 1] = (uint32_t)(((uint64_t)a.v[j + 1] * bi) >> 32);
            }
        } else {
            carry_chain k; /* O[1] is at limb 0: merge it into E[0], carry into limb 1 = new O[0] */
            E[0] = k.add_cc(E[0], O[1]);
#pragma unroll
            for (int j = 0; j < N - 2; j += 2) {
                O[j] = k.madc_lo_cc(a.v[j + 1], bi, O[j + 2]);
                O[j + 1] = k.madc_hi_cc(a.v[j + 1], bi, O[j + 3]);
            }
            O[N - 2] = k.madc_lo_cc(a.v[N - 1], bi, 0);
            O[N - 1] = k.madc_hi(a.v[N - 1], bi, 0);
            carry_chain k2;
            E[0] = k2.mad_lo_cc(a.v[0], bi, E[0]);
            E[1] = k2.madc_hi_cc(a.v[0], bi, E[1]);
#pragma unroll
            for (int j = 2; j < N; j += 2) {
                E[j] = k2.madc_lo_cc(a.v[j], bi, E[j]);
                E[j + 1] = k2.madc_hi_cc(a.v[j], bi, E[j + 1]);
            }
            O[N - 1] = k2.addc(O[N - 1], 0); /* limb N */
        }
        /* one carry flag on the device: the O chain ends before the E chain starts */
        carry_chain k3, k4;
        if constexpr (LOW) {
            /* m = …·W² + (W − 1)·W + 1 and M0 = −1 (mul_eo_low): q = −E[0] mod W, q·1 is q and
             * q·(W − 1) = (q − 1)·W + (W − q) for q > 0 (0 for q = 0), where W − q is E[0] and
             * q − 1 is ~E[0]: ALU additions instead of five IMADs a round */
            static_assert(P::m(0) == 1u && P::m(1) == 0xffffffffu && P::M0 == 0xffffffffu,
                          "mul_eo_low needs a modulus = 1 − W mod W² (Fr)");
            const uint32_t e0 = E[0], q = 0u - e0, h1 = e0 ? ~e0 : 0u;
            O[0] = k3.add_cc(O[0], e0);
            O[1] = k3.addc_cc(O[1], h1);
            reduce_odd(O, q, k3);
            E[0] = k4.add_cc(e0, q); /* becomes 0, carry e0 != 0 */
            E[1] = k4.addc_cc(E[1], 0u);
            reduce_even(E, O, q, k4);
            return;
        }
        const uint32_t q = E[0] * P::M0;
        O[0] = k3.mad_lo_cc(q, P::m(1), O[0]);
        O[1] = k3.madc_hi_cc(q, P::m(1), O[1]);
        reduce_odd(O, q, k3);
        E[0] = k4.mad_lo_cc(q, P::m(0), E[0]); /* becomes 0 */
        E[1] = k4.madc_hi_cc(q, P::m(0), E[1]);
        reduce_even(E, O, q, k4);
    }

    /* eo_round's reduction row q·m from limb 2 on, after its first two limbs in each chain: the
     * odd limbs of m into O (ends the chain k3), the even ones into E (k4, whose carry out of the
     * top goes to O[N − 1]). */
    CZK_HD static void reduce_odd(uint32_t O[N], uint32_t q, carry_chain &k3) {
#pragma unroll
        for (int j = 2; j < N - 2; j += 2) {
            O[j] = k3.madc_lo_cc(q, P::m(j + 1), O[j]);
            O[j + 1] = k3.madc_hi_cc(q, P::m(j + 1), O[j + 1]);
        }
        O[N - 2] = k3.madc_lo_cc(q, P::m(N - 1), O[N - 2]);
        O[N - 1] = k3.madc_hi(q, P::m(N - 1), O[N - 1]);
    }
    CZK_HD static void reduce_even(uint32_t E[N], uint32_t O[N], uint32_t q, carry_chain &k4) {
#pragma unroll
        for (int j = 2; j < N; j += 2) {
            E[j] = k4.madc_lo_cc(q, P::m(j), E[j]);
            E[j + 1] = k4.madc_hi_cc(q, P::m(j), E[j + 1]);
        }
        O[N - 1] = k4.addc(O[N - 1], 0);
    }

    /* The value of the even/odd layout, Σ x[k]·W^k + Σ y[k]·W^(k−1) with y[0] = 0, as N limbs
     * (the caller's bound keeps it below W^N): mul_eo's, sqr_eo's and mul_ka's last step. */
    CZK_HD static void eo_value(uint32_t r[N], const uint32_t x[N], const uint32_t y[N]) {
        carry_chain k;
        r[0] = k.add_cc(x[0], y[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            r[j] = k.addc_cc(x[j], y[j + 1]);
        r[N - 1] = k.addc(x[N - 1], 0);
    }

    /*
     * CIOS with even/odd accumulators (the structure of sppark's mont_t):
     * two independent carry chains per row, every 32×32 product half one
     * mad/madc instruction. N even.
     */
    template <bool LOW = false> CZK_HD static mont mul_eo(const mont &a, const mont &b) {
        static_assert(N % 2 == 0, "even limb count");
        uint32_t x[N], y[N];
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            eo_round<LOW>(x, y, a, b.v[i], i == 0);
            eo_round<LOW>(y, x, a, b.v[i + 1], false);
        }
        mont r;
        eo_value(r.v, x, y);
        reduce_once(r.v);
        return r;
    }

    /*
     * mul_eo for a modulus whose low limbs are 1 and W − 1 (Fr: r = …ffffffff00000001, so M0 =
     * −1/r mod W = W − 1): each reduction row's q is −E[0] and its products by m's two low limbs
     * are additions of E[0] and ~E[0] (eo_round<true>), 224 instead of 264 multiply-adds a
     * product. Same result as mul_eo.
     */
    CZK_HD static mont mul_eo_low(const mont &a, const mont &b) {
        return mul_eo<true>(a, b);
    }

    /*
     * mul_ka's half product: Z = x·y for x, y of H = N/2 limbs, 2H limbs, by rows of two
     * carry chains, products a_j·b_i with j even then j odd, each product's lo and hi halves
     * adjacent in its chain (mul_eo's pairs). Before row i the sum is x·(y mod W^i) < W^(H+i),
     * so limb H + i is still 0 and takes the even chain's carry, and the odd chain ends without
     * one.
     */
    CZK_HD static void ka_half(uint32_t Z[N], const uint32_t x[N / 2], const uint32_t y[N / 2]) {
        constexpr int H = N / 2;
#pragma unroll
        for (int i = 0; i < H; i++) {
            const uint32_t yi = y[i];
            if (i == 0) {
#pragma unroll
                for (int j = 0; j < H; j += 2) {
                    Z[j] = x[j] * yi;
                    Z[j + 1] = (uint32_t)(((uint64_t)x[j] * yi) >> 32);
                }
                Z[H] = 0;
            } else {
                carry_chain k;
                Z[i] = k.mad_lo_cc(x[0], yi, Z[i]);
                Z[i + 1] = k.madc_hi_cc(x[0], yi, Z[i + 1]);
#pragma unroll
                for (int j = 2; j < H; j += 2) {
                    Z[i + j] = k.madc_lo_cc(x[j], yi, Z[i + j]);
                    Z[i + j + 1] = k.madc_hi_cc(x[j], yi, Z[i + j + 1]);
                }
                Z[i + H] = k.addc(0, 0);
            }
            carry_chain k2;
            Z[i + 1] = k2.mad_lo_cc(x[1], yi, Z[i + 1]);
            Z[i + 2] = k2.madc_hi_cc(x[1], yi, Z[i + 2]);
#pragma unroll
            for (int j = 3; j < H; j += 2) {
                Z[i + j] = k2.madc_lo_cc(x[j], yi, Z[i + j]);
                Z[i + j + 1] = j == H - 1 ? k2.madc_hi(x[j], yi, Z[i + j + 1])
                                          : k2.madc_hi_cc(x[j], yi, Z[i + j + 1]);
            }
        }
    }

    /* mul_ka's s = x_L + x_H (halves of N/2 limbs); returns the carry out (0 or 1). */
    CZK_HD static uint32_t ka_sum(uint32_t s[N / 2], const uint32_t x[N]) {
        carry_chain k;
        s[0] = k.add_cc(x[0], x[N / 2]);
#pragma unroll
        for (int j = 1; j < N / 2; j++)
            s[j] = k.addc_cc(x[j], x[N / 2 + j]);
        return k.addc(0, 0);
    }

    /*
     * One round of mul_ka's reduction in eo_round's layout (T = Σ E[k]·W^k + Σ O[k]·W^(k−1),
     * O[0] = 0; first: O is all 0): q from limb 0 = E[0] + O[1], T += q·m, T /= W (the arrays swap
     * roles). T < W^N + W·m < W^(N+1) before each division, so no chain carries out of the top.
     */
    CZK_HD static void redc_round(uint32_t E[N], uint32_t O[N], bool first) {
        uint32_t q;
        if (first) {
            q = E[0] * P::M0;
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                O[j] = q * P::m(j + 1);
                O[j + 1] = (uint32_t)(((uint64_t)q * P::m(j + 1)) >> 32);
            }
        } else {
            carry_chain k; /* O[1] is at limb 0: merge it, carry into limb 1 = new O[0] */
            const uint32_t e0 = k.add_cc(E[0], O[1]);
            q = e0 * P::M0;
            E[0] = e0;
#pragma unroll
            for (int j = 0; j < N - 2; j += 2) {
                O[j] = k.madc_lo_cc(q, P::m(j + 1), O[j + 2]);
                O[j + 1] = k.madc_hi_cc(q, P::m(j + 1), O[j + 3]);
            }
            O[N - 2] = k.madc_lo_cc(q, P::m(N - 1), 0);
            O[N - 1] = k.madc_hi(q, P::m(N - 1), 0);
        }
        carry_chain k4;
        E[0] = k4.mad_lo_cc(q, P::m(0), E[0]); /* becomes 0 */
        E[1] = k4.madc_hi_cc(q, P::m(0), E[1]);
        reduce_even(E, O, q, k4);
    }

    /*
     * Karatsuba's product (one level) and a separate Montgomery reduction: T = a·b from three
     * half products, L = a_L·b_L, Hh = a_H·b_H, M = (a_L + a_H)(b_L + b_H) (halves of N/2 limbs;
     * the sums' carries c_a, c_b add c_a·s_b + c_b·s_a at limb N/2), so 3·(N/2)² products
     * instead of N² (Fp: 108 against 144, each one lo/hi pair of mad). The middle term
     * D = a_L·b_H + a_H·b_L = M − L − Hh < 2·W^(N/2)·(2m/W^(N/2)) < W^N is taken mod W^N, which
     * drops c_a·c_b·W^N and every borrow. T = L + D·W^(N/2) + Hh·W^N.
     * Reduction (Montgomery's REDC, T_low and T_high its N-limb halves): q_i from the low
     * limbs only, R' = (T_low + Q·m)/W^N by N rounds of redc_round (eo_round's layout and
     * chains without the product row), then a·b/R ≡ R' + T_high: R' ≤ m and
     * T_high < 4m²/W^N < m/2, so the sum is below 2m and reduce_once finishes it. Needs
     * a, b < 2m and m < W^N/8 (Fp, like sqr_eo; not Fr). Same result as mul_eo.
     */
    CZK_HD static mont mul_ka(const mont &a, const mont &b) {
        static_assert(N % 4 == 0, "halves of an even limb count");
        static_assert(P::m(N - 1) < (1u << 29), "mul_ka needs m < 2^(32N-3)");
        constexpr int H = N / 2;
        /* in an order that keeps few values live: the sums and their carries' term, then
         * D = M + that, then D −= L (L becomes T's low half), then D −= Hh */
        uint32_t sa[H], sb[H];
        const uint32_t ca = ka_sum(sa, a.v), cb = ka_sum(sb, b.v);
        uint32_t cs[H]; /* c_a·s_b + c_b·s_a mod W^H */
        {
            const uint32_t ma = 0u - ca, mb = 0u - cb;
            carry_chain k;
            cs[0] = k.add_cc(sb[0] & ma, sa[0] & mb);
#pragma unroll
            for (int j = 1; j < H - 1; j++)
                cs[j] = k.addc_cc(sb[j] & ma, sa[j] & mb);
            cs[H - 1] = k.addc(sb[H - 1] & ma, sa[H - 1] & mb);
        }
        uint32_t D[N], x[N], y[N];
        mont hh; /* Hh, then T_high */
        ka_half(D, sa, sb);
        {
            carry_chain k; /* + cs·W^H mod W^N */
            D[H] = k.add_cc(D[H], cs[0]);
#pragma unroll
            for (int j = 1; j < H - 1; j++)
                D[H + j] = k.addc_cc(D[H + j], cs[j]);
            D[N - 1] = k.addc(D[N - 1], cs[H - 1]);
        }
        ka_half(x, a.v, b.v);  /* L, T's low half */
        (void)plain_sub(D, x); /* mod W^N: the borrow is dropped */
        ka_half(hh.v, a.v + H, b.v + H);
        (void)plain_sub(D, hh.v);
        /* T = L + D·W^H + Hh·W^N: x the low half, hh the high half (< W^N) */
        {
            carry_chain k;
            x[H] = k.add_cc(x[H], D[0]);
#pragma unroll
            for (int j = 1; j < H; j++)
                x[H + j] = k.addc_cc(x[H + j], D[j]);
#pragma unroll
            for (int j = 0; j < H; j++)
                hh.v[j] = k.addc_cc(hh.v[j], D[H + j]);
#pragma unroll
            for (int j = H; j < N - 1; j++)
                hh.v[j] = k.addc_cc(hh.v[j], 0);
            hh.v[N - 1] = k.addc(hh.v[N - 1], 0);
        }
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            redc_round(x, y, i == 0);
            redc_round(y, x, false);
        }
        mont r;
        eo_value(r.v, x, y); /* R' ≤ m */
        r = add_nr(r, hh);   /* + T_high: below 2m */
        reduce_once(r.v);
        return r;
    }

    /*
     * Round i of sqr_eo: CIOS round i with the product row a_i·D_i, where
     * D_i = Σ_{j>=i} D_i[j]·W^j is a_i·W^i + 2·Σ_{j>i} a_j·W^j (the
     * products below the diagonal are counted twice above it: Σ_i a_i·D_i·W^i
     * = a²). D_i[i] = a_i, D_i[i+1] = a_{i+1}·2 mod W, and D_i[j] = d[j] =
     * 2·a_j + a_{j−1}/2^31 mod W above; 2a < W^N, so there is no limb N.
     * Row i starts at limb i: products with j even go into E (lo at limb j),
     * odd into O, as in eo_round. On entry (i > 0) the arrays hold the
     * previous round's T/W with the roles swapped by the caller (E[k] at
     * limb k, O[k] at limb k−1, O[0] = 0). eo_round's layout (O[k] at limb
     * k+1) is reached without arithmetic: O moves down two places (register
     * renaming in unrolled code) and its top two limbs start at 0; its old
     * O[1], at limb 0, is added to E[0] by the first instruction of the odd
     * reduction chain, whose first madc takes that carry at limb 1 (the
     * product row adds nothing at limb 0). q reads the plain sum.
     * Bounds (a < 2m, m < W^N/8): the rows up to i sum to l² + 2·l·h·W^(i+1)
     * for a = l + h·W^(i+1), l < W^(i+1), so T·W < (2a + m)·W < W^(N+1)
     * before each division and no chain carries out of the top limb of O;
     * the result is < a²/W^N + m < 1.5m.
     */
    CZK_HD static void sqr_round(uint32_t E[N], uint32_t O[N], const mont &a, const uint32_t d[N],
                                 int i) {
        uint32_t o1 = 0;
        if (i > 0) {
            o1 = O[1];
#pragma unroll
            for (int k = 0; k < N - 2; k++)
                O[k] = O[k + 2];
            O[N - 2] = 0;
            O[N - 1] = 0;
        }
        const uint32_t ai = a.v[i];
        /* even j >= i: E[j], E[j+1]; the carry out of limb N−1 goes to O[N−1] (limb N) */
        uint32_t ce = 0;
        if (i == 0) {
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                uint32_t dj = j == 0 ? ai : d[j];
                E[j] = ai * dj;
                E[j + 1] = (uint32_t)(((uint64_t)ai * dj) >> 32);
            }
        } else if (i < N - 1) {
            carry_chain k;
            const int j0 = i + (i & 1);
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                if (j < j0) continue;
                uint32_t dj = j == i ? ai : (j == i + 1 ? a.v[j] << 1 : d[j]);
                E[j] = j == j0 ? k.mad_lo_cc(ai, dj, E[j]) : k.madc_lo_cc(ai, dj, E[j]);
                E[j + 1] = k.madc_hi_cc(ai, dj, E[j + 1]);
            }
            ce = k.addc(0, 0);
        }
        /* odd j >= i: O[j−1], O[j] (limbs j, j+1); O[N−1] is 0 here, it takes ce */
        if (i == 0) {
#pragma unroll
            for (int j = 1; j < N; j += 2) {
                uint32_t dj = j == 1 ? a.v[1] << 1 : d[j];
                O[j - 1] = ai * dj;
                O[j] = (uint32_t)(((uint64_t)ai * dj) >> 32);
            }
        } else {
            carry_chain k;
            const int j0 = i + 1 - (i & 1);
#pragma unroll
            for (int j = 1; j < N; j += 2) {
                if (j < j0) continue;
                uint32_t dj = j == i ? ai : (j == i + 1 ? a.v[j] << 1 : d[j]);
                O[j - 1] = j == j0 ? k.mad_lo_cc(ai, dj, O[j - 1]) : k.madc_lo_cc(ai, dj, O[j - 1]);
                O[j] = j == N - 1 ? k.madc_hi(ai, dj, ce) : k.madc_hi_cc(ai, dj, O[j]);
            }
        }
        /* reduction: eo_round's, the odd chain opened by the merge of limb 0 */
        const uint32_t q = (E[0] + o1) * P::M0;
        carry_chain k3;
        if (i > 0) {
            E[0] = k3.add_cc(E[0], o1);
            O[0] = k3.madc_lo_cc(q, P::m(1), O[0]);
        } else {
            O[0] = k3.mad_lo_cc(q, P::m(1), O[0]);
        }
        O[1] = k3.madc_hi_cc(q, P::m(1), O[1]);
#pragma unroll
        for (int j = 2; j < N - 2; j += 2) {
            O[j] = k3.madc_lo_cc(q, P::m(j + 1), O[j]);
            O[j + 1] = k3.madc_hi_cc(q, P::m(j + 1), O[j + 1]);
        }
        O[N - 2] = k3.madc_lo_cc(q, P::m(N - 1), O[N - 2]);
        O[N - 1] = k3.madc_hi(q, P::m(N - 1), O[N - 1]);
        carry_chain k4;
        E[0] = k4.mad_lo_cc(q, P::m(0), E[0]); /* becomes 0 */
        E[1] = k4.madc_hi_cc(q, P::m(0), E[1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
            E[j] = k4.madc_lo_cc(q, P::m(j), E[j]);
            E[j + 1] = k4.madc_hi_cc(q, P::m(j), E[j + 1]);
        }
        O[N - 1] = k4.addc(O[N - 1], 0);
    }

    /*
     * a² by CIOS rounds of sqr_round (the even/odd structure of mul_eo): 78
     * product and 144 reduction multiply-adds for Fp (mul_eo: 144 + 144).
     * Inputs below 2m like mul_eo's (add_nr).
     */
    CZK_HD static mont sqr_eo(const mont &a) {
        static_assert(N % 2 == 0, "even limb count");
        static_assert(P::m(N - 1) < (1u << 29), "sqr_eo needs m < 2^(32N-3)");
        uint32_t d[N]; /* 2a mod W^N by limbs, d[j] for j >= 2 */
        d[0] = d[1] = 0;
#pragma unroll
        for (int j = 2; j < N; j++)
            d[j] = (a.v[j] << 1) | (a.v[j - 1] >> 31);
        uint32_t x[N] = {0}, y[N] = {0}; /* round 0 writes all (the host compiler cannot tell) */
#pragma unroll
        for (int i = 0; i < N; i += 2) {
            sqr_round(x, y, a, d, i);
            sqr_round(y, x, a, d, i + 1);
        }
        mont r;
        eo_value(r.v, x, y); /* as in mul_eo */
        reduce_once(r.v);
        return r;
    }

    /* Montgomery multiplication on the FP64 pipe (field_f64.cuh); a, b < 2m for Fp, < m for Fr. */
    CZK_HD static mont mul_f64(const mont &a, const mont &b) {
        mont r;
        f64_mont<P>::mul(r.v, a.v, b.v);
        reduce_once(r.v);
        return r;
    }

    /* The inline form of P::MUL (what a called form runs inside). */
    CZK_HD static mont mul_inline(const mont &a, const mont &b) {
        if (P::MUL == MUL_F64) return mul_f64(a, b);
        if (P::MUL == MUL_CHAIN) return mul_chain(a, b);
        if (P::MUL == MUL_EO || P::MUL == MUL_EO_CALL) return mul_eo(a, b);
        if constexpr (P::MUL == MUL_EO_LOW) return mul_eo_low(a, b);
        if constexpr (P::MUL == MUL_KA) return mul_ka(a, b);
        return mul_wide(a, b);
    }
    CZK_HD_NOINLINE static mont mul_call(mont a, mont b) {
        return mul_inline(a, b);
    }

    CZK_HD friend mont operator*(const mont &a, const mont &b) {
        if (P::MUL == MUL_CALL || P::MUL == MUL_EO_CALL) return mul_call(a, b);
        return mul_inline(a, b);
    }
    CZK_HD mont &operator*=(const mont &b) {
        return *this = *this * b;
    }
    CZK_HD mont &operator+=(const mont &b) {
        return *this = *this + b;
    }
    CZK_HD mont &operator-=(const mont &b) {
        return *this = *this - b;
    }
    /* P::SQR: SQR_EO inline, or called where P::MUL is a called form; SQR_MUL is x·x. */
    CZK_HD static mont sqr_inline(const mont &a) {
        if constexpr (P::SQR == SQR_EO)
            return sqr_eo(a);
        else
            return mul_inline(a, a);
    }
    CZK_HD_NOINLINE static mont sqr_call(mont a) {
        return sqr_inline(a);
    }
    CZK_HD mont sqr() const {
        if constexpr (P::SQR == SQR_EO) {
            if (P::MUL == MUL_CALL || P::MUL == MUL_EO_CALL) return sqr_call(*this);
            return sqr_eo(*this);
        } else {
            return *this * *this;
        }
    }

    /* Montgomery form from the canonical integer, and back. */
    CZK_HD mont to_mont() const {
        return *this * modulus_r2();
    }
    CZK_HD mont from_mont() const {
        mont one_plain = zero();
        one_plain.v[0] = 1;
        return *this * one_plain;
    }

    /* 1/x by Fermat (x^(m−2)); the inverse of zero is zero. */
    CZK_HD_NOINLINE mont inv() const {
        mont r = one();
#pragma unroll 1
        for (int i = N - 1; i >= 0; i--) {
            uint32_t e = P::m_minus_2(i);
#pragma unroll 1
            for (int bit = 31; bit >= 0; bit--) {
                r = r.sqr();
                if ((e >> bit) & 1) r = r * *this;
            }
        }
        return r;
    }

    /*
     * 1/x by the binary extended Euclidean algorithm (Menezes, van Oorschot,
     * Vanstone, Handbook of Applied Cryptography, Alg. 14.61 with Note 14.64
     * for an odd modulus), the Montgomery factors fixed at the end: on the
     * representative X = xR (u = X, t = m at first) it keeps x1·X ≡ u and
     * x2·X ≡ t (mod m), halving x1, x2 as u, t are halved and subtracting
     * the smaller of u, t from the larger, until u or t is 1; then X^(−1) =
     * x^(−1)·R^(−1), and one Montgomery product with R³ gives x^(−1)·R. The
     * inverse of zero is zero. Variable time (public data only: the MSM's
     * batch inversions). About 2·log2(m) halvings and as many subtractions
     * of N limbs: on one GPU thread an estimated ~4× shorter latency than
     * inv()'s ~470 dependent multiplications, which a batch inversion waits
     * for.
     */
    CZK_HD_NOINLINE mont inv_binary() const {
        if (is_zero()) return zero();
        mont m, x1 = zero(), x2 = zero(); /* x1, x2: plain residues below m */
        uint32_t u[N], t[N], w[N];        /* t: the algorithm's v */
#pragma unroll
        for (int i = 0; i < N; i++) {
            u[i] = v[i];
            t[i] = m.v[i] = P::m(i);
        }
        x1.v[0] = 1;
#pragma unroll 1
        while (!plain_is_one(u) && !plain_is_one(t)) {
#pragma unroll 1
            while (!(u[0] & 1)) {
                shr1(u);
                x1 = half_mod(x1, m);
            }
#pragma unroll 1
            while (!(t[0] & 1)) {
                shr1(t);
                x2 = half_mod(x2, m);
            }
#pragma unroll
            for (int i = 0; i < N; i++)
                w[i] = u[i];
            if (plain_sub(w, t)) { /* u < t */
                (void)plain_sub(t, u);
                x2 = x2 - x1;
            } else {
#pragma unroll
                for (int i = 0; i < N; i++)
                    u[i] = w[i];
                x1 = x1 - x2;
            }
        }
        return (plain_is_one(u) ? x1 : x2) * (modulus_r2() * modulus_r2()); /* R²·R²/R = R³ */
    }
    /* Helpers of inv_binary (and plain_sub of mul_ka) on plain N-limb integers. */
    CZK_HD static bool plain_is_one(const uint32_t a[N]) {
        uint32_t acc = a[0] ^ 1;
#pragma unroll
        for (int i = 1; i < N; i++)
            acc |= a[i];
        return acc == 0;
    }
    CZK_HD static void shr1(uint32_t a[N]) {
#pragma unroll
        for (int i = 0; i < N - 1; i++)
            a[i] = (a[i] >> 1) | (a[i + 1] << 31);
        a[N - 1] >>= 1;
    }
    /* a −= b; returns the borrow */
    CZK_HD static uint32_t plain_sub(uint32_t a[N], const uint32_t b[N]) {
        carry_chain k;
        a[0] = k.sub_cc(a[0], b[0]);
#pragma unroll
        for (int i = 1; i < N; i++)
            a[i] = k.subc_cc(a[i], b[i]);
        return k.subc(0, 0) & 1;
    }
    /* x/2 mod m for x < m: (x + m)/2 when x is odd (x + m < 2m < 2^(32N), no carry out) */
    CZK_HD static mont half_mod(mont x, const mont &m) {
        if (x.v[0] & 1) x = add_nr(x, m);
        shr1(x.v);
        return x;
    }
};

using fp = mont<fp_params>;
using fr = mont<fr_params>;

/* The same fields with other multiplication and squaring forms (variants, microbenchmarks). */
template <class P, int K, int S = P::SQR> struct with_mul : P {
    static constexpr int MUL = K;
    static constexpr int SQR = S;
};

/* Fp2 = Fp[u]/(u² + 1) over the Fp type B, blst_fp2 layout (c0, c1). */
template <class B> struct fp2_t {
    using fp2 = fp2_t;
    using fp = B;
    fp c0, c1;

    CZK_HD static fp2 zero() {
        return {fp::zero(), fp::zero()};
    }
    CZK_HD static fp2 one() {
        return {fp::one(), fp::zero()};
    }
    CZK_HD bool is_zero() const {
        return c0.is_zero() && c1.is_zero();
    }
    CZK_HD friend bool operator==(const fp2 &a, const fp2 &b) {
        return a.c0 == b.c0 && a.c1 == b.c1;
    }
    CZK_HD friend bool operator!=(const fp2 &a, const fp2 &b) {
        return !(a == b);
    }
    CZK_HD friend fp2 operator+(const fp2 &a, const fp2 &b) {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    CZK_HD friend fp2 operator-(const fp2 &a, const fp2 &b) {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    /*
     * Karatsuba: 3 Fp multiplications. Not inlined: G2 formulas hold dozens of
     * them, and inlining every one multiplies ptxas time (minutes per kernel)
     * for little gain; the three products inside still run interleaved.
     */
    CZK_HD_NOINLINE static fp2 mul(fp2 a, fp2 b) {
        fp t0 = fp::mul_inline(a.c0, b.c0); /* inlined here: nested calls ran G2 MSM 5× slower */
        fp t1 = fp::mul_inline(a.c1, b.c1);
        fp t2 = fp::mul_inline(fp::add_nr(a.c0, a.c1), fp::add_nr(b.c0, b.c1));
        return {t0 - t1, t2 - t0 - t1};
    }
    CZK_HD friend fp2 operator*(const fp2 &a, const fp2 &b) {
        return mul(a, b);
    }
    CZK_HD fp2 &operator*=(const fp2 &b) {
        return *this = *this * b;
    }
    CZK_HD fp2 &operator+=(const fp2 &b) {
        return *this = *this + b;
    }
    CZK_HD fp2 &operator-=(const fp2 &b) {
        return *this = *this - b;
    }
    /* (c0 + c1·u)² = (c0 + c1)(c0 − c1) + 2·c0·c1·u */
    CZK_HD fp2 sqr() const {
        return sqr_of(*this);
    }
    CZK_HD_NOINLINE static fp2 sqr_of(fp2 a) {
        fp t = fp::mul_inline(a.c0, a.c1);
        return {fp::mul_inline(fp::add_nr(a.c0, a.c1), a.c0 - a.c1), t + t};
    }
    CZK_HD fp2 dbl() const {
        return {c0.dbl(), c1.dbl()};
    }
    CZK_HD fp2 neg() const {
        return {c0.neg(), c1.neg()};
    }
    CZK_HD fp2 cneg(bool flag) const {
        return {c0.cneg(flag), c1.cneg(flag)};
    }
    /* 1/(c0 + c1·u) = (c0 − c1·u)/(c0² + c1²) */
    CZK_HD_NOINLINE fp2 inv() const {
        fp n = (c0.sqr() + c1.sqr()).inv();
        return {c0 * n, (c1 * n).neg()};
    }
    /* The same with Fp's binary inversion (one thread's latency; the batch-affine levels). */
    CZK_HD_NOINLINE fp2 inv_binary() const {
        fp n = (c0.sqr() + c1.sqr()).inv_binary();
        return {c0 * n, (c1 * n).neg()};
    }
};
using fp2 = fp2_t<fp>;

} // namespace czkg

#endif
