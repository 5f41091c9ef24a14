/*
 * The device arithmetic (field.cuh, curve.cuh) run on the host against blst.
 * Every template is __host__ __device__ and the PTX carry chains have a host
 * emulation, so this checks the formulas, the limb layout and both Montgomery
 * multiplications without a GPU (tests/cuda/host.c runs it in CI). The GPU
 * tests then check that the device build computes the same.
 */
#include "cuda/internal.h"
#include "curve.cuh"

#include <blst.h>
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
        if (!same(E, fp::mul_call(a, b)))
            return czk_errf(err, CZK_ERR_INTERNAL, "fp mul_call round %u", it);
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
        blst_fp_cneg(&E, &A, true);
        if (!same(E, a.neg())) return czk_errf(err, CZK_ERR_INTERNAL, "fp neg round %u", it);
    }
    return CZK_OK;
}

czk_status check_fr(rng64 &r, unsigned rounds, czk_err *err) {
    for (unsigned it = 0; it < rounds; it++) {
        fr a = it < 4 ? special<fr>(it) : random_elem<fr>(r);
        fr b = it < 4 ? special<fr>((it + 1) & 3) : random_elem<fr>(r);
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

/* Per-group glue to blst, so that the check below is written once. */
struct g1_ops {
    using F = fp;
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

} // namespace

extern "C" czk_status czk_cuda_host_check(uint64_t seed, unsigned rounds, czk_err *err) {
    rng64 r{seed};
    czk_status st;
    if ((st = check_fp(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fr(r, rounds, err)) != CZK_OK) return st;
    if ((st = check_fp2(r, rounds, err)) != CZK_OK) return st;
    unsigned crounds = rounds / 64 + 1;
    if ((st = check_curve<g1_ops>(r, crounds, "g1", err)) != CZK_OK) return st;
    if ((st = check_curve<g2_ops>(r, crounds, "g2", err)) != CZK_OK) return st;
    return CZK_OK;
}
