/*
 * Native Poseidon, neptune's optimized schedule (poseidon.rs
 * hash_optimized_static; spec/porep-circuit.md §4.9): round keys are the
 * compressed constants, added after each S-box; the 4th full round is
 * followed by the pre-sparse matrix P and each partial round by its sparse
 * matrix S_k, so a partial round costs one S-box and 2t − 1 products.
 */
#include "czk/poseidon.h"

static inline void sbox(czk_fr *x) {
    czk_fr x2, x4;
    czk_fr_sqr(&x2, x);
    czk_fr_sqr(&x4, &x2);
    czk_fr_mul(x, x, &x4);
}

/* e = e·mat (row vector times t×t row-major matrix). */
static void product(czk_fr *e, const czk_fr *mat, unsigned t) {
    czk_fr out[CZK_POSEIDON_MAX_WIDTH], p;
    for (unsigned j = 0; j < t; j++) {
        czk_fr_mul(&out[j], &e[0], &mat[j]);
        for (unsigned i = 1; i < t; i++) {
            czk_fr_mul(&p, &e[i], &mat[i * t + j]);
            czk_fr_add(&out[j], &out[j], &p);
        }
    }
    for (unsigned j = 0; j < t; j++)
        e[j] = out[j];
}

/* new_0 = Σ e_i·w_hat[i]; new_j = e_j + e_0·v_rest[j − 1]. */
static void sparse_product(czk_fr *e, const czk_fr *s, unsigned t) {
    const czk_fr *w_hat = s, *v_rest = s + t;
    czk_fr e0 = e[0], acc, p;
    czk_fr_mul(&acc, &e[0], &w_hat[0]);
    for (unsigned i = 1; i < t; i++) {
        czk_fr_mul(&p, &e[i], &w_hat[i]);
        czk_fr_add(&acc, &acc, &p);
        czk_fr_mul(&p, &e0, &v_rest[i - 1]);
        czk_fr_add(&e[i], &e[i], &p);
    }
    e[0] = acc;
}

void czk_poseidon_hash_with(const czk_poseidon_constants *pc, czk_fr *out, const czk_fr *preimage) {
    const unsigned t = pc->width, half = pc->full_rounds / 2;
    const czk_fr *k = pc->crc;
    czk_fr e[CZK_POSEIDON_MAX_WIDTH];
    e[0] = pc->domain_tag;
    for (unsigned i = 1; i < t; i++)
        e[i] = preimage[i - 1];
    for (unsigned i = 0; i < t; i++)
        czk_fr_add(&e[i], &e[i], k++);
    for (unsigned r = 0; r < half; r++) {
        for (unsigned i = 0; i < t; i++) {
            sbox(&e[i]);
            czk_fr_add(&e[i], &e[i], k++);
        }
        product(e, r + 1 == half ? pc->pre_sparse : pc->mds, t);
    }
    for (unsigned r = 0; r < pc->partial_rounds; r++) {
        sbox(&e[0]);
        czk_fr_add(&e[0], &e[0], k++);
        sparse_product(e, pc->sparse + (size_t)r * (2 * t - 1), t);
    }
    for (unsigned r = 1; r < half; r++) {
        for (unsigned i = 0; i < t; i++) {
            sbox(&e[i]);
            czk_fr_add(&e[i], &e[i], k++);
        }
        product(e, pc->mds, t);
    }
    for (unsigned i = 0; i < t; i++)
        sbox(&e[i]);
    product(e, pc->mds, t);
    *out = e[1];
}

czk_status czk_poseidon_hash(czk_fr *out, const czk_fr *preimage, unsigned arity, czk_err *err) {
    czk_err e;
    const czk_poseidon_constants *pc = czk_poseidon_constants_get(arity, &e);
    if (!pc) {
        if (err) *err = e;
        return e.code;
    }
    czk_poseidon_hash_with(pc, out, preimage);
    return CZK_OK;
}
