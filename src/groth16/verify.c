/*
 * Groth16 verification (bellperson src/groth16/verifier.rs, and its
 * verify_proofs_batch for many proofs).
 *
 * One proof: e(A, B) = e(α, β) · e(acc, γ) · e(C, δ), acc = Σ in_i·IC_i,
 * in_0 = 1. The right side's last two pairings take −acc and −C so that
 *   f = ML(A, B) · ML(−acc, γ) · ML(−C, δ)
 * needs one final exponentiation, and FE(f) is compared with the prepared
 * e(α, β). γ and δ are fixed per vk, so their Miller-loop lines are
 * precomputed (blst_precompute_lines).
 *
 * A batch: with random r_j, Σ_j r_j·(the equation of proof j) in the
 * exponent gives
 *   Π_j ML(r_j·A_j, B_j) · ML(−(Σ r_j)·α, β) · ML(−Σ r_j·acc_j, γ) · ML(−Σ r_j·C_j, δ)
 * whose final exponentiation must be 1; Σ_j r_j·acc_j is one MSM over IC with
 * scalars Σ_j r_j·in_{j,i}. The Miller loops of the proofs run on the pool.
 */
#include "czk/groth16.h"
#include "czk/msm.h"

#include <stdlib.h>
#include <string.h>

czk_status czk_pvk_prepare(czk_pvk *out, const czk_vk *vk, czk_err *err) {
    memset(out, 0, sizeof *out);
    if (vk->ic_len == 0 || !vk->ic) return czk_errf(err, CZK_ERR_INVALID_ARG, "vk: empty ic");
    if (czk_g1_affine_is_inf(&vk->alpha_g1) || czk_g2_affine_is_inf(&vk->beta_g2) ||
        czk_g2_affine_is_inf(&vk->gamma_g2) || czk_g2_affine_is_inf(&vk->delta_g2))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "vk: alpha, beta, gamma or delta is infinity");
    out->ic = malloc((size_t)vk->ic_len * sizeof *out->ic);
    if (!out->ic) return czk_errf(err, CZK_ERR_NOMEM, "vk: out of memory");
    memcpy(out->ic, vk->ic, (size_t)vk->ic_len * sizeof *out->ic);
    out->ic_len = vk->ic_len;
    out->alpha_g1 = vk->alpha_g1;
    blst_fp12 f;
    blst_miller_loop(&f, &vk->beta_g2, &vk->alpha_g1);
    blst_final_exp(&out->alpha_beta, &f);
    blst_precompute_lines(out->beta_lines, &vk->beta_g2);
    blst_precompute_lines(out->gamma_lines, &vk->gamma_g2);
    blst_precompute_lines(out->delta_lines, &vk->delta_g2);
    return CZK_OK;
}

void czk_pvk_free(czk_pvk *pvk) {
    if (!pvk) return;
    free(pvk->ic);
    pvk->ic = NULL;
    pvk->ic_len = 0;
}

/* out = Σ scalars[i]·points[i], by the bit-aware MSM (public inputs are often 0 or 1). */
static czk_status g1_msm(blst_p1 *out, const czk_g1_affine *points, const czk_fr *scalars, size_t n,
                         czk_pool *pool, czk_err *err) {
    czk_status st = czk_msm_g1(out, points, scalars, n, pool, err);
    return st ? czk_err_wrap(err, "verify") : CZK_OK;
}

/* f *= ML(−p, lines); infinity contributes 1. */
static void ml_neg_lines(blst_fp12 *f, const blst_fp6 lines[68], const blst_p1 *p) {
    if (blst_p1_is_inf(p)) return;
    blst_p1 n = *p;
    blst_p1_cneg(&n, 1);
    blst_p1_affine a;
    blst_p1_to_affine(&a, &n);
    blst_fp12 t;
    blst_miller_loop_lines(&t, lines, &a);
    blst_fp12_mul(f, f, &t);
}

static czk_status check_proof_points(const czk_proof *p, size_t j, czk_err *err) {
    if (czk_g1_affine_is_inf(&p->a) || czk_g2_affine_is_inf(&p->b) || czk_g1_affine_is_inf(&p->c))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "verify: proof %zu has a point at infinity", j);
    return CZK_OK;
}

czk_status czk_verify(const czk_pvk *pvk, const czk_proof *proof, const czk_fr *inputs,
                      size_t num_inputs, czk_err *err) {
    if (num_inputs + 1 != pvk->ic_len)
        return czk_errf(err, CZK_ERR_MISMATCH, "verify: %zu public inputs, the vk takes %u",
                        num_inputs, pvk->ic_len - 1);
    czk_status st = check_proof_points(proof, 0, err);
    if (st) return st;
    blst_p1 acc;
    blst_p1_from_affine(&acc, &pvk->ic[0]);
    if (num_inputs) {
        blst_p1 s;
        if ((st = g1_msm(&s, pvk->ic + 1, inputs, num_inputs, NULL, err))) return st;
        blst_p1_add_or_double(&acc, &acc, &s);
    }
    blst_fp12 f, r;
    blst_miller_loop(&f, &proof->b, &proof->a);
    ml_neg_lines(&f, pvk->gamma_lines, &acc);
    blst_p1 c;
    blst_p1_from_affine(&c, &proof->c);
    ml_neg_lines(&f, pvk->delta_lines, &c);
    blst_final_exp(&r, &f);
    if (!blst_fp12_is_equal(&r, &pvk->alpha_beta))
        return czk_errf(err, CZK_ERR_VERIFY, "verify: the pairing equation does not hold");
    return CZK_OK;
}

/* Per-worker products of Π ML(r_j·A_j, B_j). */
typedef struct batch_job {
    const czk_proof *proofs;
    const czk_fr *r;
    blst_fp12 *acc; /* one per worker, start at 1 */
} batch_job;

static void batch_fn(void *arg, size_t b, size_t e, unsigned worker) {
    batch_job *j = arg;
    for (size_t i = b; i < e; i++) {
        blst_p1 p;
        blst_p1_from_affine(&p, &j->proofs[i].a);
        czk_g1_mul(&p, &p, &j->r[i]);
        blst_p1_affine a;
        blst_p1_to_affine(&a, &p);
        blst_fp12 t;
        blst_miller_loop(&t, &j->proofs[i].b, &a);
        blst_fp12_mul(&j->acc[worker], &j->acc[worker], &t);
    }
}

czk_status czk_verify_batch(const czk_pvk *pvk, const czk_proof *proofs, size_t n,
                            const czk_fr *inputs, size_t num_inputs, czk_pool *pool, czk_err *err) {
    if (num_inputs + 1 != pvk->ic_len)
        return czk_errf(err, CZK_ERR_MISMATCH, "verify: %zu public inputs, the vk takes %u",
                        num_inputs, pvk->ic_len - 1);
    if (n == 0) return CZK_OK;
    czk_status st = CZK_OK;
    for (size_t j = 0; j < n && !st; j++)
        st = check_proof_points(&proofs[j], j, err);
    if (st) return st;
    unsigned nt = czk_pool_threads(pool);
    czk_fr *r = malloc(n * sizeof *r);
    czk_fr *ics = calloc(pvk->ic_len, sizeof *ics); /* Σ_j r_j·in_{j,i}; ics[0] = Σ r_j */
    czk_g1_affine *cs = malloc(n * sizeof *cs);
    blst_fp12 *acc = malloc(nt * sizeof *acc);
    if (!r || !ics || !cs || !acc) {
        st = czk_errf(err, CZK_ERR_NOMEM, "verify: out of memory for a batch of %zu", n);
        goto out;
    }
    for (size_t j = 0; j < n && !st; j++) {
        do {
            st = czk_fr_random(&r[j], NULL, err);
        } while (!st && czk_fr_is_zero(&r[j]));
        if (st) break;
        czk_fr_add(&ics[0], &ics[0], &r[j]);
        for (size_t i = 0; i < num_inputs; i++) {
            czk_fr t;
            czk_fr_mul(&t, &r[j], &inputs[j * num_inputs + i]);
            czk_fr_add(&ics[i + 1], &ics[i + 1], &t);
        }
        cs[j] = proofs[j].c;
    }
    if (st) goto out;
    for (unsigned t = 0; t < nt; t++)
        acc[t] = *blst_fp12_one();
    batch_job job = {.proofs = proofs, .r = r, .acc = acc};
    czk_pool_for(pool, n, 1, batch_fn, &job);
    blst_fp12 f = acc[0];
    for (unsigned t = 1; t < nt; t++)
        blst_fp12_mul(&f, &f, &acc[t]);

    blst_p1 p;
    blst_p1_from_affine(&p, &pvk->alpha_g1);
    czk_g1_mul(&p, &p, &ics[0]);
    ml_neg_lines(&f, pvk->beta_lines, &p);
    if ((st = g1_msm(&p, pvk->ic, ics, pvk->ic_len, pool, err))) goto out;
    ml_neg_lines(&f, pvk->gamma_lines, &p);
    if ((st = g1_msm(&p, cs, r, n, pool, err))) goto out;
    ml_neg_lines(&f, pvk->delta_lines, &p);
    blst_fp12 res;
    blst_final_exp(&res, &f);
    if (!blst_fp12_is_one(&res))
        st = czk_errf(err, CZK_ERR_VERIFY,
                      "verify: the batch of %zu proofs does not verify (at least one is invalid)",
                      n);
out:
    free(r);
    free(ics);
    free(cs);
    free(acc);
    return st;
}
