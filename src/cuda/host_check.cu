/*
 * The device arithmetic (field.cuh, curve.cuh) run on the host against blst.
 * Every template is __host__ __device__ and the PTX carry chains have a host
 * emulation, so this checks the formulas, the limb layout, every Montgomery
 * multiplication and squaring form without a GPU (tests/cuda/host.c runs it
 * in CI). The GPU tests then check that the device build computes the same.
 */
#include "cuda/internal.h"
#include "curve.cuh"

#include <blst.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

using namespace czkg;

namespace {

struct rng64 {
    uint64_t s;
    uint64_t next() { /* splitmix64 */
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

/* A random reduced Montgomery representative (top limb masked below the modulus). */
template <class F> F random_elem(rng64 &r) {
    F x;
    for (int i = 0; i < F::N; i++)
        x.v[i] = (uint32_t)r.next();
    x.v[F::N - 1] &= F::N == 12 ? 0x0fffffffu : 0x3fffffffu;
    return x;
}

/* 0, one, −1 and the largest reduced representative m − 1 (raw limbs). */
template <class F> F special(int k) {
    F x = F::zero();
    if (k == 1) x = F::one();
    if (k == 2) x = F::zero() - F::one();
    if (k == 3) {
        for (int i = 0; i < F::N; i++)
            x.v[i] = F::params::m(i);
        x.v[0] -= 1; /* the low limb of p and r is odd */
    }
    return x;
}

template <class A, class B> void to_blst(A *dst, const B &src) {
    static_assert(sizeof(A) == sizeof(B), "layout");
    memcpy(dst, &src, sizeof src);
}
template <class A, class B> B from_blst(const A &src) {
    static_assert(sizeof(A) == sizeof(B), "layout");
    B b;
    memcpy(&b, &src, sizeof b);
    return b;
}
template <class B, class A> B bitcast(const A &src) {
    static_assert(sizeof(A) == sizeof(B), "layout");
    B b;
    memcpy(&b, &src, sizeof b);
    return b;
}
template <class A, class B> bool same(const A &a, const B &b) {
    static_assert(sizeof(A) == sizeof(B), "layout");
    return memcmp(&a, &b, sizeof a) == 0;
}

czk_status check_fp(rng64 &r, unsigned rounds, czk_err *err) {
    for (unsigned it = 0; it < rounds; it++) {
        fp a = it < 4 ? special<fp>(it) : random_elem<fp>(r);
        fp b = it < 4 ? special<fp>((it + 1) & 3) : random_elem<fp>(r);
        blst_fp A, B, E;
        to_blst(&A, a);
        to_blst(&B, b);
        blst_fp_mul(&E, &A, &B);
        if (!same(E, fp::mul_wide(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_wide round %u", it);
        if (!same(E, fp::mul_chain(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_chain round %u", it);
        if (!same(E, fp::mul_eo(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_eo round %u", it);
        if (!same(E, fp::mul_ka(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_ka round %u", it);
        if (!same(E, fp::mul_call(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_call round %u", it);
        if (!same(E, fp::mul_f64(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_f64 round %u", it);
        /* the FP64 form takes inputs below 2p (add_nr), like mul_eo */
        if (!same(fp::mul_eo(fp::add_nr(a, fp::one().neg()), b),
                  fp::mul_f64(fp::add_nr(a, fp::one().neg()), b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_f64 of an input above p, round %u", it);
        blst_fp_add(&E, &A, &B);
        if (!same(E, a + b)) return czk_errf(err, CZK_ERR_INTERNAL, "fp add round %u", it);
        blst_fp_sub(&E, &A, &B);
        if (!same(E, a - b)) return czk_errf(err, CZK_ERR_INTERNAL, "fp sub round %u", it);
        blst_fp_sqr(&E, &A);
        if (!same(E, a.sqr())) return czk_errf(err, CZK_ERR_INTERNAL, "fp sqr round %u", it);
        if (it < 64) { /* inversion is slow on the host: fewer rounds */
            blst_fp_inverse(&E, &A);
            if (!same(E, a.inv())) return czk_errf(err, CZK_ERR_INTERNAL, "fp inv round %u", it);
        }
        if (it < 256) { /* the binary inversion (batch-affine MSM), specials included */
            blst_fp_inverse(&E, &A);
            if (!same(E, a.inv_binary()))
                return czk_errf(err, CZK_ERR_INTERNAL, "fp inv_binary round %u", it);
        }
        blst_fp_cneg(&E, &A, true);
        if (!same(E, a.neg())) return czk_errf(err, CZK_ERR_INTERNAL, "fp neg round %u", it);
    }
    return CZK_OK;
}

/* Hex of a field element, most significant limb first (messages). */
template <class F> const char *hex(const F &x, char *buf) {
    char *p = buf;
    for (int i = F::N - 1; i >= 0; i--)
        p += snprintf(p, 9, "%08x", x.v[i]);
    return buf;
}

using fp_sqr_eo = mont<with_mul<fp_params, MUL_EO, SQR_EO>>;
using fp_sqr_mul = mont<with_mul<fp_params, MUL_EO, SQR_MUL>>;
using fp_sqr_eo_call = mont<with_mul<fp_params, MUL_EO_CALL, SQR_EO>>;

/*
 * Squaring inputs: k < SQR_SPECIAL are edge values (0, 1, R mod p, R² mod p,
 * p − 1, p − 2, p − 2^32, all-ones limbs below p's top limb, 2^(32k) − 1,
 * 2^381 − 1 and values in [p, 2p), which sqr_eo accepts like mul_eo: p, p + 1,
 * 2p − 1 and p + all-ones low limbs); others random below 2p. *reduced: the
 * input is below p.
 */
constexpr unsigned SQR_SPECIAL = 20;
bool below(const fp &x, const fp &p) {
    carry_chain k;
    (void)k.sub_cc(x.v[0], p.v[0]);
    for (int i = 1; i < 12; i++)
        (void)k.subc_cc(x.v[i], p.v[i]);
    return k.subc(0, 0) != 0;
}
fp sqr_input(rng64 &r, unsigned k, bool *reduced) {
    fp x = fp::zero(), p;
    for (int i = 0; i < 12; i++)
        p.v[i] = fp_params::m(i);
    *reduced = true;
    switch (k) {
    case 0:
        break;
    case 1:
        x.v[0] = 1;
        break;
    case 2:
        x = fp::one();
        break;
    case 3:
        x = fp::modulus_r2();
        break;
    case 4:
        x = p, x.v[0] -= 1;
        break;
    case 5:
        x = p, x.v[0] -= 2;
        break;
    case 6: /* p − 2^32 */
        x = p, x.v[1] -= 1;
        break;
    case 7:
        for (int i = 0; i < 11; i++)
            x.v[i] = 0xffffffffu;
        x.v[11] = p.v[11] - 1;
        break;
    case 8:
        x.v[0] = 0xffffffffu;
        break;
    case 9:
        for (int i = 0; i < 6; i++)
            x.v[i] = 0xffffffffu;
        break;
    case 10:
        for (int i = 0; i < 11; i++)
            x.v[i] = 0xffffffffu;
        break;
    case 11:
        for (int i = 0; i < 11; i++)
            x.v[i] = 0xffffffffu;
        x.v[11] = 0x1fffffffu; /* 2^381 − 1 > p */
        *reduced = false;
        break;
    case 12:
        x = p, *reduced = false;
        break;
    case 13:
        x = p, x.v[0] += 1, *reduced = false;
        break;
    case 14:
        x = fp::add_nr(p, p), x.v[0] -= 1, *reduced = false;
        break;
    case 15:
        x = p;
        for (int i = 0; i < 11; i++)
            x.v[i] = 0xffffffffu;
        *reduced = false;
        break;
    case 16:
        x = fp::add_nr(p, fp::one()), *reduced = false;
        break;
    case 17:
        for (int i = 0; i < 12; i++)
            x.v[i] = 0xaaaaaaaau;
        x.v[11] = 0x0aaaaaaau;
        break;
    case 18:
        for (int i = 0; i < 12; i++)
            x.v[i] = (i & 1) ? 0xffffffffu : 0;
        x.v[11] = 0;
        break;
    case 19:
        for (int i = 0; i < 12; i++)
            x.v[i] = (i & 1) ? 0 : 0xffffffffu;
        break;
    default:
        for (int i = 0; i < 12; i++)
            x.v[i] = (uint32_t)r.next();
        x.v[11] %= fp::add_nr(p, p).v[11]; /* below 2p's top limb: below 2p */
        *reduced = below(x, p);
        break;
    }
    return x;
}

/*
 * Squaring forms against blst_fp_sqr (of the input reduced mod p) and
 * against mul_eo(a, a), on the edge values and random inputs below 2p.
 */
czk_status check_fp_sqr(rng64 &r, unsigned rounds, czk_err *err) {
    fp p;
    for (int i = 0; i < 12; i++)
        p.v[i] = fp_params::m(i);
    for (unsigned it = 0; it < rounds + SQR_SPECIAL; it++) {
        bool reduced;
        fp a = sqr_input(r, it, &reduced);
        if (reduced != below(a, p))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp sqr: input %u is %s p, not as listed", it,
                            reduced ? "not below" : "below");
        fp a_red = a;
        if (!reduced) {
            carry_chain k; /* a − p without the add-back: a >= p */
            a_red.v[0] = k.sub_cc(a.v[0], p.v[0]);
            for (int i = 1; i < 12; i++)
                a_red.v[i] = k.subc_cc(a.v[i], p.v[i]);
        }
        blst_fp A, E;
        to_blst(&A, a_red);
        blst_fp_sqr(&E, &A);
        fp e = from_blst<blst_fp, fp>(E);
        const fp_sqr_eo ae = bitcast<fp_sqr_eo>(a);
        const fp_sqr_mul am = bitcast<fp_sqr_mul>(a);
        const fp_sqr_eo_call ac = bitcast<fp_sqr_eo_call>(a);
        struct {
            const char *name;
            fp got;
        } forms[] = {
            {"sqr_eo", fp::sqr_eo(a)},
            {"sqr (MUL_EO, SQR_EO)", bitcast<fp>(ae.sqr())},
            {"sqr (MUL_EO_CALL, SQR_EO: sqr_call)", bitcast<fp>(ac.sqr())},
            {"sqr (MUL_EO, SQR_MUL)", bitcast<fp>(am.sqr())},
            {"sqr (fp)", a.sqr()},
            {"mul_eo(a, a)", fp::mul_eo(a, a)},
        };
        for (const auto &f : forms)
            if (!(f.got == e)) {
                char h1[100], h2[100], h3[100];
                return czk_errf(err, CZK_ERR_INTERNAL, "fp %s of %s (round %u): %s, expected %s",
                                f.name, hex(a, h1), it, hex(f.got, h2), hex(e, h3));
            }
    }
    return CZK_OK;
}

/*
 * mul_ka (Karatsuba's product, REDC apart) against blst_fp_mul of the inputs reduced mod p: a
 * pair whose product's high half carries into its top limb, every pair of the squaring's edge
 * values (inputs up to 2p − 1, limbs all ones, halves whose sums carry or not), then random
 * pairs below 2p.
 */
czk_status check_fp_mul_ka(rng64 &r, unsigned rounds, czk_err *err) {
    fp p;
    for (int i = 0; i < 12; i++)
        p.v[i] = fp_params::m(i);
    auto reduce = [&](fp x, bool reduced) {
        if (!reduced) {
            carry_chain k; /* x − p without the add-back: x >= p */
            x.v[0] = k.sub_cc(x.v[0], p.v[0]);
            for (int i = 1; i < 12; i++)
                x.v[i] = k.subc_cc(x.v[i], p.v[i]);
        }
        return x;
    };
    /* a_H·b_H = 2^352 − 2^176 (limbs 6..10 all ones) and a carry into it from the middle term
     * (a_L = b_L = 2^192 − 1): T's high half carries into its top limb */
    fp xa = fp::zero(), xb = fp::zero();
    for (int i = 0; i < 6; i++)
        xa.v[i] = xb.v[i] = 0xffffffffu;
    xa.v[11] = 1u << 16;
    for (int i = 6; i < 11; i++)
        xb.v[i] = 0xffffffffu;
    xb.v[11] = 0xffffu;
    const unsigned pairs = SQR_SPECIAL * SQR_SPECIAL, crafted = 2;
    for (unsigned it = 0; it < crafted + pairs + rounds; it++) {
        bool ra = true, rb = true;
        fp a = it == 0 ? xa : xb, b = it == 0 ? xb : xa;
        if (it >= crafted) {
            const unsigned k = it - crafted;
            a = sqr_input(r, k < pairs ? k / SQR_SPECIAL : SQR_SPECIAL, &ra);
            b = sqr_input(r, k < pairs ? k % SQR_SPECIAL : SQR_SPECIAL, &rb);
        }
        blst_fp A, B, E;
        to_blst(&A, reduce(a, ra));
        to_blst(&B, reduce(b, rb));
        blst_fp_mul(&E, &A, &B);
        const fp got = fp::mul_ka(a, b), e = from_blst<blst_fp, fp>(E);
        if (!(got == e)) {
            char h1[100], h2[100], h3[100], h4[100];
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "fp mul_ka of %s and %s (round %u): %s, expected %s", hex(a, h1),
                            hex(b, h2), it, hex(got, h3), hex(e, h4));
        }
    }
    return CZK_OK;
}

czk_status check_fr(rng64 &r, unsigned rounds, czk_err *err) {
    for (unsigned it = 0; it < rounds; it++) {
        fr a = it < 4 ? special<fr>(it) : random_elem<fr>(r);
        fr b = it < 4 ? special<fr>((it + 1) & 3) : random_elem<fr>(r);
        if (it >= 4 && it < 12) { /* low limbs 0: reduction rows with q = 0 (mul_eo_low's h1) */
            for (unsigned i = 0; i < it - 3; i++)
                b.v[i] = 0;
            if (it & 1) a.v[0] = 0;
        }
        blst_fr A, B, E;
        to_blst(&A, a);
        to_blst(&B, b);
        blst_fr_mul(&E, &A, &B);
        if (!same(E, fr::mul_wide(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fr mul_wide round %u", it);
        if (!same(E, fr::mul_chain(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fr mul_chain round %u", it);
        if (!same(E, fr::mul_eo(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fr mul_eo round %u", it);
        if (!same(E, fr::mul_eo_low(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fr mul_eo_low round %u", it);
        if (!same(E, fr::mul_f64(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fr mul_f64 round %u", it);
        blst_fr_add(&E, &A, &B);
        if (!same(E, a + b)) return czk_errf(err, CZK_ERR_INTERNAL, "fr add round %u", it);
        blst_fr_sub(&E, &A, &B);
        if (!same(E, a - b)) return czk_errf(err, CZK_ERR_INTERNAL, "fr sub round %u", it);
        /* canonical form: blst_uint64_from_fr gives the integer limbs */
        uint64_t canon[4];
        blst_uint64_from_fr(canon, &A);
        fr c = a.from_mont();
        if (memcmp(canon, c.v, 32) != 0)
            return czk_errf(err, CZK_ERR_INTERNAL, "fr from_mont round %u", it);
        if (!(c.to_mont() == a)) return czk_errf(err, CZK_ERR_INTERNAL, "fr to_mont round %u", it);
        if (it < 64) {
            blst_fr_inverse(&E, &A);
            if (!same(E, a.inv())) return czk_errf(err, CZK_ERR_INTERNAL, "fr inv round %u", it);
            if (!same(E, a.inv_binary()))
                return czk_errf(err, CZK_ERR_INTERNAL, "fr inv_binary round %u", it);
        }
    }
    return CZK_OK;
}

czk_status check_fp2(rng64 &r, unsigned rounds, czk_err *err) {
    for (unsigned it = 0; it < rounds; it++) {
        fp2 a = {random_elem<fp>(r), random_elem<fp>(r)};
        fp2 b = {random_elem<fp>(r), random_elem<fp>(r)};
        blst_fp2 A, B, E;
        to_blst(&A, a);
        to_blst(&B, b);
        blst_fp2_mul(&E, &A, &B);
        if (!same(E, a * b)) return czk_errf(err, CZK_ERR_INTERNAL, "fp2 mul round %u", it);
        blst_fp2_sqr(&E, &A);
        if (!same(E, a.sqr())) return czk_errf(err, CZK_ERR_INTERNAL, "fp2 sqr round %u", it);
        blst_fp2_add(&E, &A, &B);
        if (!same(E, a + b)) return czk_errf(err, CZK_ERR_INTERNAL, "fp2 add round %u", it);
        blst_fp2_sub(&E, &A, &B);
        if (!same(E, a - b)) return czk_errf(err, CZK_ERR_INTERNAL, "fp2 sub round %u", it);
        if (it < 16) {
            blst_fp2_inverse(&E, &A);
            if (!same(E, a.inv())) return czk_errf(err, CZK_ERR_INTERNAL, "fp2 inv round %u", it);
        }
    }
    return CZK_OK;
}

/* Fp2 over both Fp squaring forms against blst (the Fp2 inverse squares in Fp). */
template <class F2>
czk_status check_fp2_form(rng64 &r, unsigned rounds, const char *name, czk_err *err) {
    for (unsigned it = 0; it < rounds; it++) {
        fp2 a0 = {random_elem<fp>(r), random_elem<fp>(r)};
        if (it == 0) a0 = {fp::zero() - fp::one(), fp::zero() - fp::one()};
        if (it == 1) a0 = {fp::one(), fp::zero()};
        const F2 a = bitcast<F2>(a0);
        blst_fp2 A, E;
        to_blst(&A, a);
        blst_fp2_sqr(&E, &A);
        if (!same(E, a.sqr()))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp2 (%s) sqr round %u", name, it);
        blst_fp2_mul(&E, &A, &A);
        if (!same(E, a * a))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp2 (%s) mul(a, a) round %u", name, it);
        if (it < 8) {
            blst_fp2_inverse(&E, &A);
            if (!same(E, a.inv()))
                return czk_errf(err, CZK_ERR_INTERNAL, "fp2 (%s) inv round %u", name, it);
        }
    }
    return CZK_OK;
}

/* Per-group glue to blst, so that the check below is written once. */
struct g1_ops {
    using F = fp;
    template <class B> using field = B;
    using P = blst_p1;
    using A = blst_p1_affine;
    static void mult(P *o, const P *p, const uint8_t *k) {
        blst_p1_mult(o, p, k, 255);
    }
    static const P *gen() {
        return blst_p1_generator();
    }
    static void add(P *o, const P *a, const P *b) {
        blst_p1_add_or_double(o, a, b);
    }
    static void dbl(P *o, const P *a) {
        blst_p1_double(o, a);
    }
    static void to_aff(A *o, const P *p) {
        blst_p1_to_affine(o, p);
    }
    static bool eq(const P *a, const P *b) {
        return blst_p1_is_equal(a, b);
    }
};
struct g2_ops {
    using F = fp2;
    template <class B> using field = fp2_t<B>;
    using P = blst_p2;
    using A = blst_p2_affine;
    static void mult(P *o, const P *p, const uint8_t *k) {
        blst_p2_mult(o, p, k, 255);
    }
    static const P *gen() {
        return blst_p2_generator();
    }
    static void add(P *o, const P *a, const P *b) {
        blst_p2_add_or_double(o, a, b);
    }
    static void dbl(P *o, const P *a) {
        blst_p2_double(o, a);
    }
    static void to_aff(A *o, const P *p) {
        blst_p2_to_affine(o, p);
    }
    static bool eq(const P *a, const P *b) {
        return blst_p2_is_equal(a, b);
    }
};

template <class G>
czk_status check_curve(rng64 &r, unsigned rounds, const char *name, czk_err *err) {
    using F = typename G::F;
    using X = xyzz<F>;
    typedef typename G::P P;
    typedef typename G::A A;
    for (unsigned it = 0; it < rounds; it++) {
        uint8_t k1[32], k2[32];
        for (int i = 0; i < 32; i++) {
            k1[i] = (uint8_t)r.next();
            k2[i] = (uint8_t)r.next();
        }
        k1[31] &= 0x3f;
        k2[31] &= 0x3f;
        P p, q, e, got;
        A pa, qa;
        G::mult(&p, G::gen(), k1);
        G::mult(&q, G::gen(), k2);
        G::to_aff(&pa, &p);
        G::to_aff(&qa, &q);
        affine<F> dp = from_blst<A, affine<F>>(pa), dq = from_blst<A, affine<F>>(qa);

        /* mixed add of two different points */
        X s = X::from_affine(dp);
        s.add_affine(dq);
        G::add(&e, &p, &q);
        to_blst(&got, s.to_jacobian());
        if (!G::eq(&e, &got)) return czk_errf(err, CZK_ERR_INTERNAL, "%s madd round %u", name, it);
        /* mixed add of a point to itself: doubling */
        X d = X::from_affine(dp);
        d.add_affine(dp);
        G::dbl(&e, &p);
        to_blst(&got, d.to_jacobian());
        if (!G::eq(&e, &got))
            return czk_errf(err, CZK_ERR_INTERNAL, "%s madd-double round %u", name, it);
        /* mixed add of the opposite point: infinity */
        X z = X::from_affine(dp);
        z.add_affine(dp.neg());
        if (!z.is_inf())
            return czk_errf(err, CZK_ERR_INTERNAL, "%s madd-opposite round %u", name, it);
        /* infinity handling on both sides */
        X i1 = X::inf();
        i1.add_affine(dp);
        i1.add_affine(affine<F>{F::zero(), F::zero()});
        to_blst(&got, i1.to_jacobian());
        if (!G::eq(&p, &got))
            return czk_errf(err, CZK_ERR_INTERNAL, "%s madd-infinity round %u", name, it);
        /* full xyzz add: (p+q) + 2p, with non-trivial ZZ on both sides */
        X t = s;
        t.add(d);
        P pq, p2;
        G::add(&pq, &p, &q);
        G::dbl(&p2, &p);
        G::add(&e, &pq, &p2);
        to_blst(&got, t.to_jacobian());
        if (!G::eq(&e, &got)) return czk_errf(err, CZK_ERR_INTERNAL, "%s add round %u", name, it);
        /* full add of equal points (doubling) and opposite points (infinity) */
        X u = s;
        u.add(s);
        G::dbl(&e, &pq);
        to_blst(&got, u.to_jacobian());
        if (!G::eq(&e, &got))
            return czk_errf(err, CZK_ERR_INTERNAL, "%s add-double round %u", name, it);
        X w = s;
        w.add(s.neg());
        if (!w.is_inf())
            return czk_errf(err, CZK_ERR_INTERNAL, "%s add-opposite round %u", name, it);
        /* dbl of a projective point */
        X v = s.dbl();
        to_blst(&got, v.to_jacobian());
        if (!G::eq(&e, &got)) return czk_errf(err, CZK_ERR_INTERNAL, "%s dbl round %u", name, it);
        /* small multiple: 1000003·(p+q) */
        X m = s.mul_small(1000003u);
        uint8_t k3[32] = {0};
        k3[0] = 0x43, k3[1] = 0x42, k3[2] = 0x0f; /* 1000003 = 0x0f4243 */
        G::mult(&e, &pq, k3);
        to_blst(&got, m.to_jacobian());
        if (!G::eq(&e, &got))
            return czk_errf(err, CZK_ERR_INTERNAL, "%s mul_small round %u", name, it);
        /* to affine (Fermat inversion), and jacobian -> xyzz */
        A ea;
        G::to_aff(&ea, &pq);
        affine<F> sa = s.to_affine();
        if (!same(ea, sa))
            return czk_errf(err, CZK_ERR_INTERNAL, "%s to_affine round %u", name, it);
        X back = X::from_jacobian(from_blst<P, jacobian<F>>(pq));
        to_blst(&got, back.to_jacobian());
        if (!G::eq(&pq, &got))
            return czk_errf(err, CZK_ERR_INTERNAL, "%s from_jacobian round %u", name, it);
    }
    return CZK_OK;
}

/*
 * The xyzz formulas over the field with sqr_eo (the MSM accumulation's
 * default) and with squarings by multiplication (the previous kernel):
 * chains of mixed additions (with a point added to itself: dbl_affine),
 * full additions and doublings give the same coordinates in both, and the
 * same affine point as blst.
 */
template <class G>
czk_status check_curve_forms(rng64 &r, unsigned rounds, const char *name, czk_err *err) {
    using Fn = typename G::template field<fp_sqr_eo>;
    using Fo = typename G::template field<fp_sqr_mul>;
    using Xn = xyzz<Fn>;
    using Xo = xyzz<Fo>;
    typedef typename G::P P;
    typedef typename G::A A;
    constexpr int PTS = 6;
    for (unsigned it = 0; it < rounds; it++) {
        P pts[PTS], e;
        A aff[PTS];
        for (int j = 0; j < PTS; j++) {
            uint8_t k[32];
            for (int i = 0; i < 32; i++)
                k[i] = (uint8_t)r.next();
            k[31] &= 0x3f;
            G::mult(&pts[j], G::gen(), k);
            G::to_aff(&aff[j], &pts[j]);
        }
        /* acc = p0 + p1 + p1 + p2 + ... (madd, madd of an equal point: dbl_affine) */
        Xn an = Xn::from_affine(bitcast<affine<Fn>>(aff[0]));
        Xo ao = Xo::from_affine(bitcast<affine<Fo>>(aff[0]));
        P ref = pts[0];
        for (int j = 1; j < PTS; j++) {
            an.add_affine(bitcast<affine<Fn>>(aff[j]));
            ao.add_affine(bitcast<affine<Fo>>(aff[j]));
            G::add(&ref, &ref, &pts[j]);
        }
        Xn dn = Xn::from_affine(bitcast<affine<Fn>>(aff[1]));
        Xo d_o = Xo::from_affine(bitcast<affine<Fo>>(aff[1]));
        dn.add_affine(bitcast<affine<Fn>>(aff[1])); /* 2·p1 by dbl_affine */
        d_o.add_affine(bitcast<affine<Fo>>(aff[1]));
        an.add(dn); /* full addition */
        ao.add(d_o);
        G::dbl(&e, &pts[1]);
        G::add(&ref, &ref, &e);
        an = an.dbl(); /* doubling of a projective point */
        ao = ao.dbl();
        G::dbl(&ref, &ref);
        Xn tn = an;
        tn.add(an); /* full addition of equal points: dbl */
        Xo to = ao;
        to.add(ao);
        G::dbl(&e, &ref);
        if (!same(an, ao) || !same(dn, d_o) || !same(tn, to))
            return czk_errf(
                err, CZK_ERR_INTERNAL,
                "%s xyzz with sqr_eo and with squaring by mul differ (round %u: sum %d, "
                "dbl_affine %d, add-double %d)",
                name, it, !same(an, ao), !same(dn, d_o), !same(tn, to));
        A ea, ee;
        G::to_aff(&ea, &ref);
        G::to_aff(&ee, &e);
        affine<Fn> sn = an.to_affine(), un = tn.to_affine();
        affine<Fo> so = ao.to_affine(), uo = to.to_affine();
        if (!same(ea, sn) || !same(ea, so) || !same(ee, un) || !same(ee, uo))
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "%s xyzz forms against blst differ (round %u: sum with sqr_eo %d, "
                            "with squaring by mul %d; doubled sum with sqr_eo %d, by mul %d)",
                            name, it, !same(ea, sn), !same(ea, so), !same(ee, un), !same(ee, uo));
    }
    return CZK_OK;
}

} // namespace

/*
 * The floating-point facts field_f64.cuh rests on, checked against this
 * host's IEEE fma (libm, correctly rounded in the current rounding mode)
 * rather than the exact-integer emulation the host build of the form uses:
 * for integers a, b < 2^LB and C = 2^(LB+52), fma rounded toward zero of
 * a·b + C is C + ⌊a·b/2^LB⌋·2^LB (the emulation's value); (C + 2^52) − t is
 * exact; fma(a, b, that) is exactly 2^52 + (a·b mod 2^LB) in any rounding
 * mode; and the bit patterns are bits(C) + hi and bits(2^52) + lo.
 */
template <int LB> bool check_f64_split(rng64 &r, unsigned rounds, unsigned *bad_round) {
    const double C = ldexp(1.0, LB + 52), two52 = ldexp(1.0, 52);
    const uint64_t mask = (1ull << LB) - 1;
    unsigned rounded_up = 0; /* fma to nearest above the toward-zero one: the modes took effect */
    for (unsigned it = 0; it < rounds; it++) {
        uint64_t ai = r.next() & mask, bi = r.next() & mask;
        if (it < 4) ai = bi = mask - it; /* the largest limbs */
        if (it == 4) ai = 0;
        const volatile double a = (double)ai, b = (double)bi;
        const unsigned __int128 p = (unsigned __int128)ai * bi;
        const uint64_t hi = (uint64_t)(p >> LB), lo = (uint64_t)p & mask;
        const int mode = fegetround();
        fesetround(FE_TOWARDZERO);
        const double t = fma(a, b, C);
        fesetround(mode);
        const double s = (C + two52) - t;
        rounded_up += fma(a, b, C) > t;
        double l[2];
        fesetround(FE_TONEAREST);
        l[0] = fma(a, b, s);
        fesetround(FE_UPWARD);
        l[1] = fma(a, b, s);
        fesetround(mode);
        const bool ok = t == f64_fma_rz_pow2(a, b, C) && f64_bits(t) == f64_bits(C) + hi &&
                        l[0] == l[1] && l[0] == f64_fma_exact(a, b, s) &&
                        f64_bits(l[0]) == f64_bits(two52) + lo &&
                        s == two52 - (double)hi * ldexp(1.0, LB);
        if (!ok) {
            *bad_round = it;
            return false;
        }
    }
    *bad_round = rounds;
    return rounds < 64 || rounded_up > rounds / 4;
}

extern "C" czk_status czk_cuda_host_check(uint64_t seed, unsigned rounds, czk_err *err) {
    rng64 r{seed};
    czk_status st;
    unsigned bad = 0;
    if (!check_f64_split<48>(r, rounds, &bad))
        return czk_errf(err, CZK_ERR_INTERNAL, "f64 limb split (48-bit limbs) round %u", bad);
    if (!check_f64_split<52>(r, rounds, &bad))
        return czk_errf(err, CZK_ERR_INTERNAL, "f64 limb split (52-bit limbs) round %u", bad);
    if ((st = check_fp(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fp_sqr(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fp_mul_ka(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fr(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fp2(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fp2_form<fp2_t<fp_sqr_eo>>(r, rounds / 4 + 2, "sqr_eo", err)) != CZK_OK)
        return st;
    if ((st = check_fp2_form<fp2_t<fp_sqr_mul>>(r, rounds / 4 + 2, "sqr by mul", err)) != CZK_OK)
        return st;
    unsigned crounds = rounds / 64 + 1;
    if ((st = check_curve<g1_ops>(r, crounds, "g1", err)) != CZK_OK) return st;
    if ((st = check_curve<g2_ops>(r, crounds, "g2", err)) != CZK_OK) return st;
    if ((st = check_curve_forms<g1_ops>(r, crounds, "g1", err)) != CZK_OK) return st;
    if ((st = check_curve_forms<g2_ops>(r, crounds, "g2", err)) != CZK_OK) return st;
    return CZK_OK;
}
