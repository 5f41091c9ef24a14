/*
 * Short Weierstrass points y² = x³ + b over F = fp (G1) or fp2 (G2): one
 * generic body for both groups, instantiated as g1_* and g2_* below.
 *
 *   affine    (x, y), blst_p{1,2}_affine layout; (0, 0) is the point at infinity
 *             (blst's convention: it is not on the curve for either group).
 *   xyzz      (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ³ = ZZZ²; ZZ = 0 is
 *             infinity. Bucket accumulators of the MSM.
 *   jacobian  (X, Y, Z) with x = X/Z², y = Y/Z³; blst_p{1,2} layout, Z = 0 is
 *             infinity. What the host receives.
 *
 * Formulas: EFD, short Weierstrass a = 0, "xyzz" coordinates (Bernstein–Lange,
 * https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html): add-2008-s,
 * madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1. Additions detect equal and
 * opposite inputs and fall back to doubling / infinity, so any inputs are fine.
 */
#ifndef CZK_CUDA_CURVE_CUH
#define CZK_CUDA_CURVE_CUH

#include "field.cuh"

namespace czkg {

template <class F> struct affine {
    F x, y;
    CZK_HD bool is_inf() const {
        return x.is_zero() && y.is_zero();
    }
    CZK_HD affine neg() const {
        return {x, y.neg()};
    }
};

template <class F> struct jacobian { F X, Y, Z; };

template <class F> struct xyzz {
    F X, Y, ZZ, ZZZ;

    CZK_HD static xyzz inf() {
        return {F::zero(), F::zero(), F::zero(), F::zero()};
    }
    CZK_HD bool is_inf() const {
        return ZZ.is_zero();
    }
    CZK_HD static xyzz from_affine(const affine<F> &p) {
        if (p.is_inf()) return inf();
        return {p.x, p.y, F::one(), F::one()};
    }
    CZK_HD xyzz neg() const {
        return {X, Y.neg(), ZZ, ZZZ};
    }

    /* dbl-2008-s-1 (a = 0). */
    CZK_HD_NOINLINE xyzz dbl() const {
        if (is_inf()) return *this;
        F U = Y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = X * V;
        F X2 = X.sqr();
        F M = X2.dbl() + X2;
        xyzz r;
        r.X = M.sqr() - S.dbl();
        r.Y = M * (S - r.X) - W * Y;
        r.ZZ = V * ZZ;
        r.ZZZ = W * ZZZ;
        return r;
    }

    /* mdbl-2008-s-1: the double of an affine point (not infinity). */
    CZK_HD_NOINLINE static xyzz dbl_affine(const affine<F> &p) {
        F U = p.y.dbl();
        F V = U.sqr();
        F W = U * V;
        F S = p.x * V;
        F X2 = p.x.sqr();
        F M = X2.dbl() + X2;
        xyzz r;
        r.X = M.sqr() - S.dbl();
        r.Y = M * (S - r.X) - W * p.y;
        r.ZZ = V;
        r.ZZZ = W;
        return r;
    }

    /* this += q (madd-2008-s), q affine. */
    CZK_HD void add_affine(const affine<F> &q) {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = from_affine(q);
            return;
        }
        F U2 = q.x * ZZ;
        F S2 = q.y * ZZZ;
        F P = U2 - X;
        F R = S2 - Y;
        if (P.is_zero()) {
            if (R.is_zero())
                *this = dbl_affine(q);
            else
                *this = inf();
            return;
        }
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = X * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        Y = R * (Q - X3) - Y * PPP;
        X = X3;
        ZZ = ZZ * PP;
        ZZZ = ZZZ * PPP;
    }

    /* this += q (add-2008-s). */
    CZK_HD_NOINLINE void add(const xyzz &q) {
        if (q.is_inf()) return;
        if (is_inf()) {
            *this = q;
            return;
        }
        F U1 = X * q.ZZ;
        F U2 = q.X * ZZ;
        F S1 = Y * q.ZZZ;
        F S2 = q.Y * ZZZ;
        F P = U2 - U1;
        F R = S2 - S1;
        if (P.is_zero()) {
            if (R.is_zero())
                *this = dbl();
            else
                *this = inf();
            return;
        }
        F PP = P.sqr();
        F PPP = P * PP;
        F Q = U1 * PP;
        F X3 = R.sqr() - PPP - Q.dbl();
        Y = R * (Q - X3) - S1 * PPP;
        X = X3;
        ZZ = ZZ * q.ZZ * PP;
        ZZZ = ZZZ * q.ZZZ * PPP;
    }

    /* k·this for a small non-negative k (double-and-add, most significant bit first). */
    CZK_HD_NOINLINE xyzz mul_small(uint32_t k) const {
        xyzz r = inf();
        if (k == 0 || is_inf()) return r;
        int top = 31;
        while (!((k >> top) & 1))
            top--;
        r = *this;
#pragma unroll 1
        for (int b = top - 1; b >= 0; b--) {
            r = r.dbl();
            if ((k >> b) & 1) r.add(*this);
        }
        return r;
    }

    /* Jacobian with Z = ZZ: X·ZZ / ZZ² = X/ZZ and Y·ZZZ / ZZ³ = Y/ZZZ (ZZ³ = ZZZ²). */
    CZK_HD jacobian<F> to_jacobian() const {
        if (is_inf()) return {F::one(), F::one(), F::zero()};
        return {X * ZZ, Y * ZZZ, ZZ};
    }
    CZK_HD static xyzz from_jacobian(const jacobian<F> &p) {
        if (p.Z.is_zero()) return inf();
        F ZZ = p.Z.sqr();
        return {p.X, p.Y, ZZ, ZZ * p.Z};
    }

    /*
     * Affine given inv_zzz = 1/ZZZ (from a batch inversion): with t = ZZ/ZZZ,
     * t² = ZZ²/ZZZ² = 1/ZZ, so x = X·t², y = Y/ZZZ.
     */
    CZK_HD affine<F> to_affine_with(const F &inv_zzz) const {
        F t = ZZ * inv_zzz;
        return {X * t.sqr(), Y * inv_zzz};
    }
    CZK_HD affine<F> to_affine() const {
        if (is_inf()) return {F::zero(), F::zero()};
        return to_affine_with(ZZZ.inv());
    }
};

using g1_affine = affine<fp>;
using g1_xyzz = xyzz<fp>;
using g1_jacobian = jacobian<fp>;
using g2_affine = affine<fp2>;
using g2_xyzz = xyzz<fp2>;
using g2_jacobian = jacobian<fp2>;

} // namespace czkg

#endif
