/*
 * The recorded shape: freeing, size, comparison, and a, b, c = A·z, B·z, C·z
 * (sparse matrix-vector products over rows, split across the pool).
 *
 * Coefficients are indices into the shape's table; the evaluation looks up
 * which indices hold 1 and −1 once and adds or subtracts z directly for
 * those (most of Filecoin's non-zeros), multiplying only for the rest.
 */
#include "r1cs_internal.h"

#include <stdlib.h>
#include <string.h>

void czk_shape_free(czk_shape *s) {
    if (!s) return;
    for (int i = 0; i < 3; i++) {
        free(s->m[i].row_ptr);
        free(s->m[i].col);
        free(s->m[i].coeff);
    }
    free(s->coeffs);
    free(s->a_aux.words);
    free(s->b_input.words);
    free(s->b_aux.words);
    free(s);
}

static uint64_t bitmap_words(const czk_bitmap *b) {
    return (b->len + 63) / 64;
}

uint64_t czk_shape_bytes(const czk_shape *s) {
    uint64_t bytes = sizeof *s;
    for (int i = 0; i < 3; i++)
        bytes += (s->num_constraints + 1) * sizeof(uint64_t) + s->m[i].nnz * 2 * sizeof(uint32_t);
    bytes += (uint64_t)s->num_coeffs * sizeof(czk_fr);
    bytes += 8 * (bitmap_words(&s->a_aux) + bitmap_words(&s->b_input) + bitmap_words(&s->b_aux));
    return bytes;
}

static bool mem_eq(const void *x, const void *y, uint64_t n) {
    return n == 0 || memcmp(x, y, n) == 0;
}

static bool bitmap_eq(const czk_bitmap *x, const czk_bitmap *y) {
    return x->len == y->len && x->popcount == y->popcount &&
           mem_eq(x->words, y->words, bitmap_words(x) * 8);
}

bool czk_shape_equal(const czk_shape *x, const czk_shape *y) {
    if (x->num_inputs != y->num_inputs || x->num_aux != y->num_aux ||
        x->num_constraints != y->num_constraints)
        return false;
    bool same_table = x->num_coeffs == y->num_coeffs &&
                      mem_eq(x->coeffs, y->coeffs, (uint64_t)x->num_coeffs * sizeof(czk_fr));
    for (int i = 0; i < 3; i++) {
        const czk_csr *a = &x->m[i], *b = &y->m[i];
        if (a->nnz != b->nnz) return false;
        if (!mem_eq(a->row_ptr, b->row_ptr, (x->num_constraints + 1) * sizeof(uint64_t)) ||
            !mem_eq(a->col, b->col, a->nnz * sizeof(uint32_t)))
            return false;
        if (same_table) {
            if (!mem_eq(a->coeff, b->coeff, a->nnz * sizeof(uint32_t))) return false;
        } else {
            for (uint64_t k = 0; k < a->nnz; k++)
                if (!czk_fr_eq(&x->coeffs[a->coeff[k]], &y->coeffs[b->coeff[k]])) return false;
        }
    }
    return bitmap_eq(&x->a_aux, &y->a_aux) && bitmap_eq(&x->b_input, &y->b_input) &&
           bitmap_eq(&x->b_aux, &y->b_aux);
}

typedef struct eval_job {
    const czk_shape *s;
    const czk_witness *w;
    czk_fr *out[3];
    uint32_t one, minus_one; /* coefficient indices, UINT32_MAX if absent */
} eval_job;

static void eval_rows(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const eval_job *j = arg;
    const czk_shape *s = j->s;
    const czk_fr *in = j->w->inputs, *aux = j->w->aux;
    uint32_t ni = s->num_inputs;
    for (int mi = 0; mi < 3; mi++) {
        czk_fr *out = j->out[mi];
        if (!out) continue;
        const czk_csr *m = &s->m[mi];
        for (size_t r = begin; r < end; r++) {
            czk_fr acc = czk_fr_zero;
            for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
                uint32_t col = m->col[k], ci = m->coeff[k];
                const czk_fr *z = col < ni ? &in[col] : &aux[col - ni];
                if (ci == j->one) {
                    czk_fr_add(&acc, &acc, z);
                } else if (ci == j->minus_one) {
                    czk_fr_sub(&acc, &acc, z);
                } else {
                    czk_fr t;
                    czk_fr_mul(&t, z, &s->coeffs[ci]);
                    czk_fr_add(&acc, &acc, &t);
                }
            }
            out[r] = acc;
        }
    }
}

czk_status czk_shape_eval(const czk_shape *s, const czk_witness *w, czk_fr *a, czk_fr *b, czk_fr *c,
                          czk_pool *pool, czk_err *err) {
    if (w->num_inputs != s->num_inputs || w->num_aux != s->num_aux)
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "witness has %u inputs and %u aux, the shape %u inputs and %u aux",
                        w->num_inputs, w->num_aux, s->num_inputs, s->num_aux);
    eval_job j = {.s = s, .w = w, .out = {a, b, c}, .one = UINT32_MAX, .minus_one = UINT32_MAX};
    for (uint32_t i = 0; i < s->num_coeffs; i++) {
        if (j.one == UINT32_MAX && czk_fr_eq(&s->coeffs[i], &czk_fr_one)) j.one = i;
        if (j.minus_one == UINT32_MAX && czk_fr_eq(&s->coeffs[i], &czk_fr_minus_one))
            j.minus_one = i;
    }
    czk_pool_for(pool, (size_t)s->num_constraints, 4096, eval_rows, &j);
    return CZK_OK;
}

void czk_shape_counts_of(czk_shape_counts *out, const czk_shape *sh) {
    out->constraints = sh->num_constraints;
    out->inputs = sh->num_inputs;
    out->synthesized_constraints = sh->num_constraints - sh->num_inputs;
    out->aux = sh->num_aux;
    for (int m = 0; m < 3; m++)
        out->nnz[m] = sh->m[m].nnz;
    out->a_aux = sh->a_aux.popcount;
    out->b_input = sh->b_input.popcount;
    out->b_aux = sh->b_aux.popcount;
}

void czk_shape_counts_extrapolate(czk_shape_counts *out, const czk_shape_counts *c1,
                                  const czk_shape_counts *c2, uint64_t n) {
#define EXTRA(f) out->f = c1->f + n * (c2->f - c1->f)
    EXTRA(constraints);
    EXTRA(synthesized_constraints);
    EXTRA(inputs);
    EXTRA(aux);
    EXTRA(nnz[0]);
    EXTRA(nnz[1]);
    EXTRA(nnz[2]);
    EXTRA(a_aux);
    EXTRA(b_input);
    EXTRA(b_aux);
#undef EXTRA
}
