/*
 * Poseidon constants, generated as neptune's `PoseidonConstants::new()`
 * (Strength::Standard, HashType::MerkleTree) derives them:
 *
 *   1. Round constants from the Grain LFSR in self-shrinking mode (Poseidon
 *      paper appendix; neptune round_constants.rs, after the reference
 *      generate_parameters_grain.sage). 80 init bits, MSB-first fields:
 *      field = 1 (2 bits), sbox = 1 (4), n = 255 (12), t (12), RF (10),
 *      RP (10), then 30 ones. Feedback b62 ⊕ b51 ⊕ b38 ⊕ b23 ⊕ b13 ⊕ b0; the
 *      first 160 outputs are discarded. Output bits come in pairs (a, b):
 *      b is kept when a = 1. A constant is 255 bits, MSB first (7 bits, then
 *      31 bytes), rejected and redrawn when >= r.
 *   2. MDS: the Cauchy matrix M[i][j] = 1/(i + (t + j)) (mds.rs).
 *   3. Compressed round constants (preprocessing.rs, all RP partial rounds
 *      preprocessed): keys of a round are moved back through the matrix
 *      before it (M⁻¹·rk), and the partial rounds' keys are folded backwards
 *      so that each partial round keeps a single key for element 0.
 *   4. Sparse factorisation (mds.rs factor_to_sparse_matrices, applied to
 *      Mᵀ = M): repeatedly write curr = M'·M'' with M'' sparse (first row
 *      and column dense, identity elsewhere), replace curr by M·M', RP times;
 *      the last curr is the pre-sparse matrix P and the M'' list, reversed,
 *      gives S_0..S_{RP−1}.
 *
 * Matrix inverses are unique, so plain Gauss–Jordan elimination gives the
 * same values as neptune's elimination. Every arity is generated once,
 * under its own pthread_once, into one allocation that is never freed.
 */
#include "czk/poseidon.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Supported arities and their partial-round counts (neptune round_numbers.rs:
 * calc_round_numbers(t, true) for t = arity + 1, listed in its tests). */
static const unsigned ARITIES[] = {2, 4, 8, 11, 16, 24, 36};
static const unsigned PARTIAL_ROUNDS[] = {55, 56, 57, 57, 59, 59, 60};
#define NUM_ARITIES (sizeof ARITIES / sizeof ARITIES[0])

static int arity_slot(unsigned arity) {
    for (unsigned k = 0; k < NUM_ARITIES; k++)
        if (ARITIES[k] == arity) return (int)k;
    return -1;
}

bool czk_poseidon_arity_supported(unsigned arity) {
    return arity_slot(arity) >= 0;
}

/* ---- Grain LFSR ---- */

typedef struct grain {
    uint8_t s[80]; /* circular: bit i of the state is s[(head + i) % 80] */
    unsigned head;
} grain;

static unsigned grain_step(grain *g) {
    static const unsigned TAPS[6] = {62, 51, 38, 23, 13, 0};
    unsigned b = 0;
    for (int i = 0; i < 6; i++)
        b ^= g->s[(g->head + TAPS[i]) % 80];
    g->s[g->head] = (uint8_t)b; /* drop bit 0, append the new bit as bit 79 */
    g->head = (g->head + 1) % 80;
    return b;
}

static void grain_put(grain *g, unsigned *n, unsigned bits, unsigned value) {
    for (unsigned i = bits; i-- > 0;)
        g->s[(*n)++] = (value >> i) & 1;
}

static void grain_init(grain *g, unsigned t, unsigned rf, unsigned rp) {
    unsigned n = 0;
    grain_put(g, &n, 2, 1);    /* field: GF(p) */
    grain_put(g, &n, 4, 1);    /* S-box: x^alpha */
    grain_put(g, &n, 12, 255); /* field size in bits */
    grain_put(g, &n, 12, t);
    grain_put(g, &n, 10, rf);
    grain_put(g, &n, 10, rp);
    grain_put(g, &n, 30, 0x3fffffffu);
    g->head = 0;
    for (int i = 0; i < 160; i++)
        grain_step(g);
}

/* Self-shrinking: pairs (a, b), output b when a = 1. */
static unsigned grain_bit(grain *g) {
    while (!grain_step(g))
        grain_step(g);
    return grain_step(g);
}

static void grain_field_element(grain *g, czk_fr *out) {
    for (;;) {
        uint8_t be[32], le[32];
        for (int i = 0; i < 32; i++) {
            unsigned bits = i == 0 ? 7 : 8, x = 0; /* 255 = 7 + 31·8 */
            for (unsigned k = 0; k < bits; k++)
                x = (x << 1) | grain_bit(g);
            be[i] = (uint8_t)x;
        }
        for (int i = 0; i < 32; i++)
            le[i] = be[31 - i];
        if (czk_fr_from_bytes(out, le, NULL) == CZK_OK) return;
    }
}

/* ---- small dense matrices, row-major n×n ---- */

/* out = a·b (out distinct from a and b). */
static void mat_mul(czk_fr *out, const czk_fr *a, const czk_fr *b, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            czk_fr acc = czk_fr_zero, p;
            for (unsigned k = 0; k < n; k++) {
                czk_fr_mul(&p, &a[i * n + k], &b[k * n + j]);
                czk_fr_add(&acc, &acc, &p);
            }
            out[i * n + j] = acc;
        }
}

/* out = m·v, v a column vector (neptune left_apply_matrix). */
static void mat_apply_left(czk_fr *out, const czk_fr *m, const czk_fr *v, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        czk_fr acc = czk_fr_zero, p;
        for (unsigned j = 0; j < n; j++) {
            czk_fr_mul(&p, &m[i * n + j], &v[j]);
            czk_fr_add(&acc, &acc, &p);
        }
        out[i] = acc;
    }
}

/* out = in⁻¹ by Gauss–Jordan; `a` is n·n scratch. False if singular. */
static bool mat_inv(czk_fr *out, const czk_fr *in, czk_fr *a, unsigned n) {
    memcpy(a, in, (size_t)n * n * sizeof *a);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            out[i * n + j] = i == j ? czk_fr_one : czk_fr_zero;
    for (unsigned c = 0; c < n; c++) {
        unsigned p = c;
        while (p < n && czk_fr_is_zero(&a[p * n + c]))
            p++;
        if (p == n) return false;
        if (p != c)
            for (unsigned j = 0; j < n; j++) {
                czk_fr x = a[p * n + j], y = out[p * n + j];
                a[p * n + j] = a[c * n + j], out[p * n + j] = out[c * n + j];
                a[c * n + j] = x, out[c * n + j] = y;
            }
        czk_fr inv;
        czk_fr_inv(&inv, &a[c * n + c]);
        for (unsigned j = 0; j < n; j++) {
            czk_fr_mul(&a[c * n + j], &a[c * n + j], &inv);
            czk_fr_mul(&out[c * n + j], &out[c * n + j], &inv);
        }
        for (unsigned r = 0; r < n; r++) {
            if (r == c || czk_fr_is_zero(&a[r * n + c])) continue;
            czk_fr f = a[r * n + c], p2;
            for (unsigned j = 0; j < n; j++) {
                czk_fr_mul(&p2, &f, &a[c * n + j]);
                czk_fr_sub(&a[r * n + j], &a[r * n + j], &p2);
                czk_fr_mul(&p2, &f, &out[c * n + j]);
                czk_fr_sub(&out[r * n + j], &out[r * n + j], &p2);
            }
        }
    }
    return true;
}

/* ---- generation ---- */

typedef struct slot {
    czk_poseidon_constants c;
    czk_status status;
    czk_fr *mem;
} slot;

static slot SLOTS[NUM_ARITIES];
static pthread_once_t ONCE[NUM_ARITIES] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                           PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                           PTHREAD_ONCE_INIT};
_Static_assert(NUM_ARITIES == 7, "one PTHREAD_ONCE_INIT and one init_slot_k per arity");

/* crc (neptune compress_round_constants with partial_preprocessed = RP). */
static void compress(czk_fr *crc, const czk_fr *rk, const czk_fr *minv, unsigned t, unsigned rp,
                     czk_fr *acc, czk_fr *tmp) {
    const unsigned half = CZK_POSEIDON_FULL_ROUNDS / 2;
    czk_fr *o = crc;
    memcpy(o, rk, t * sizeof *o); /* round 0's keys are added before any S-box */
    o += t;
    for (unsigned r = 1; r < half; r++, o += t)
        mat_apply_left(o, minv, rk + (size_t)r * t, t);
    /* Fold the partial rounds' keys backwards from round half + RP. The
     * single key left for partial round p is written at o + t + p. */
    czk_fr *partial = o + t;
    const unsigned final_round = half + rp;
    memcpy(acc, rk + (size_t)final_round * t, t * sizeof *acc);
    for (unsigned i = 0; i < rp; i++) {
        mat_apply_left(tmp, minv, acc, t);
        partial[rp - 1 - i] = tmp[0];
        tmp[0] = czk_fr_zero;
        const czk_fr *prev = rk + (size_t)(final_round - i - 1) * t;
        for (unsigned j = 0; j < t; j++)
            czk_fr_add(&acc[j], &prev[j], &tmp[j]);
    }
    mat_apply_left(o, minv, acc, t);
    o += t + rp;
    for (unsigned r = 1; r < half; r++, o += t)
        mat_apply_left(o, minv, rk + (size_t)(final_round + r) * t, t);
}

/* P and S_k (neptune factor_to_sparse_matrixes(transpose(M), RP)). */
static bool factor(czk_fr *pre_sparse, czk_fr *sparse, const czk_fr *m, unsigned t, unsigned rp,
                   czk_fr *scratch) {
    const unsigned n = t - 1;
    czk_fr *base = scratch, *curr = base + t * t, *prime = curr + t * t;
    czk_fr *hat = prime + t * t, *hat_inv = hat + n * n, *work = hat_inv + n * n;
    czk_fr *w = work + n * n, *w_hat = w + n;
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++)
            base[i * t + j] = m[j * t + i];
    memcpy(curr, base, (size_t)t * t * sizeof *curr);
    for (unsigned k = 0; k < rp; k++) {
        for (unsigned i = 0; i < n; i++) {
            for (unsigned j = 0; j < n; j++)
                hat[i * n + j] = curr[(i + 1) * t + j + 1];
            w[i] = curr[(i + 1) * t];
        }
        if (!mat_inv(hat_inv, hat, work, n)) return false;
        mat_apply_left(w_hat, hat_inv, w, n);
        /* M'' = [[curr00, v], [w_hat, I]]; stored reversed. */
        czk_fr *s = sparse + (size_t)(rp - 1 - k) * (2 * t - 1);
        s[0] = curr[0];
        memcpy(s + 1, w_hat, n * sizeof *s);
        memcpy(s + t, curr + 1, n * sizeof *s); /* v_rest = curr[0][1..] */
        /* M' = [[1, 0], [0, curr minor]]; curr = base·M'. */
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++)
                prime[i * t + j] = i == 0 ? (j == 0 ? czk_fr_one : czk_fr_zero)
                                          : (j == 0 ? czk_fr_zero : curr[i * t + j]);
        mat_mul(curr, base, prime, t);
    }
    memcpy(pre_sparse, curr, (size_t)t * t * sizeof *curr);
    return true;
}

static void init_slot(unsigned k) {
    slot *s = &SLOTS[k];
    const unsigned a = ARITIES[k], t = a + 1, rf = CZK_POSEIDON_FULL_ROUNDS, rp = PARTIAL_ROUNDS[k];
    const size_t n_crc = (size_t)rf * t + rp, n_mat = (size_t)t * t,
                 n_sparse = (size_t)rp * (2 * t - 1);
    const size_t n_table = n_crc + 2 * n_mat + n_sparse, n_rk = (size_t)(rf + rp) * t;
    const size_t n_scratch = 4 * n_mat + 3 * n_mat + 2 * (size_t)t;
    czk_fr *mem = malloc((n_table + n_rk + n_mat + n_scratch) * sizeof *mem);
    if (!mem) {
        s->status = CZK_ERR_NOMEM;
        return;
    }
    czk_fr *crc = mem, *m = crc + n_crc, *p = m + n_mat, *sp = p + n_mat, *rk = sp + n_sparse;
    czk_fr *minv = rk + n_rk, *scratch = minv + n_mat;

    grain g;
    grain_init(&g, t, rf, rp);
    for (size_t i = 0; i < n_rk; i++)
        grain_field_element(&g, &rk[i]);

    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            czk_fr x;
            czk_fr_from_u64(&x, (uint64_t)i + t + j);
            czk_fr_inv(&m[i * t + j], &x);
        }
    if (!mat_inv(minv, m, scratch, t)) {
        free(mem);
        s->status = CZK_ERR_INTERNAL;
        return;
    }
    compress(crc, rk, minv, t, rp, scratch, scratch + t);
    if (!factor(p, sp, m, t, rp, scratch)) {
        free(mem);
        s->status = CZK_ERR_INTERNAL;
        return;
    }

    s->mem = mem;
    s->c.arity = a;
    s->c.width = t;
    s->c.full_rounds = rf;
    s->c.partial_rounds = rp;
    czk_fr_from_u64(&s->c.domain_tag, (UINT64_C(1) << a) - 1);
    s->c.round_constants = rk;
    s->c.crc = crc;
    s->c.mds = m;
    s->c.pre_sparse = p;
    s->c.sparse = sp;
    s->c.table = crc;
    s->c.table_len = n_table;
    s->status = CZK_OK;
}

#define INIT_SLOT(k)                                                                               \
    static void init_slot_##k(void) {                                                              \
        init_slot(k);                                                                              \
    }
INIT_SLOT(0)
INIT_SLOT(1)
INIT_SLOT(2)
INIT_SLOT(3)
INIT_SLOT(4)
INIT_SLOT(5)
INIT_SLOT(6)
static void (*const INIT[NUM_ARITIES])(void) = {init_slot_0, init_slot_1, init_slot_2, init_slot_3,
                                                init_slot_4, init_slot_5, init_slot_6};

const czk_poseidon_constants *czk_poseidon_constants_get(unsigned arity, czk_err *err) {
    int k = arity_slot(arity);
    if (k < 0) {
        czk_errf(err, CZK_ERR_UNSUPPORTED,
                 "poseidon: arity %u is not supported (2, 4, 8, 11, 16, 24, 36 are)", arity);
        return NULL;
    }
    if (pthread_once(&ONCE[k], INIT[k]) != 0) {
        czk_errf(err, CZK_ERR_INTERNAL, "poseidon: pthread_once failed for arity %u", arity);
        return NULL;
    }
    switch (SLOTS[k].status) {
    case CZK_OK:
        return &SLOTS[k].c;
    case CZK_ERR_NOMEM:
        czk_errf(err, CZK_ERR_NOMEM, "poseidon: out of memory generating the arity-%u constants",
                 arity);
        return NULL;
    default:
        czk_errf(err, CZK_ERR_INTERNAL,
                 "poseidon: a matrix of the arity-%u constants is not invertible", arity);
        return NULL;
    }
}

czk_status czk_poseidon_constants_custom(czk_poseidon_constants *out, unsigned arity, uint64_t id,
                                         czk_err *err) {
    if (id < 1 || id > 256)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "poseidon: custom hash type id %llu, must be 1..256",
                        (unsigned long long)id);
    czk_err e;
    const czk_poseidon_constants *pc = czk_poseidon_constants_get(arity, &e);
    if (!pc) {
        if (err) *err = e;
        return e.code;
    }
    *out = *pc;
    czk_fr_from_u64(&out->domain_tag, id << 40);
    return CZK_OK;
}
