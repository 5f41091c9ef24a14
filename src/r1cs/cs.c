/*
 * The constraint system that circuits run against, in three modes.
 *
 * RECORD appends each constraint's normalized terms to three growing CSR
 * matrices. While the circuit runs, inputs and aux are allocated interleaved,
 * so a column cannot be placed in [inputs | aux] yet: the matrices hold the
 * tagged czk_var, and one pass at the end of czk_cs_run() rewrites every
 * column to its final place (aux j -> num_inputs + j) and computes the
 * density bitmaps from the finished matrices (a bit is set iff the variable
 * has a non-zero merged coefficient in that matrix somewhere; zero terms were
 * dropped by normalization, so presence is exactly that). Coefficients are
 * interned in an open-addressing hash table of distinct values: a non-zero
 * costs 8 bytes (u32 column, u32 coefficient index). Large arrays grow by
 * realloc, which glibc serves with mremap for big blocks, so growth moves no
 * bytes and the peak stays at the final size (plus untouched capacity).
 *
 * WITNESS stores values only, in arrays of its own or in arrays the caller
 * gave (czk_cs_set_witness_buffers: a 32GiB partition's 4.2 GB assignment is
 * written into memory that is already mapped and page-locked, instead of
 * growing a fresh block page fault by page fault). Given arrays are never
 * grown: an allocation past their end is counted but not stored, and the run
 * fails at its end naming both counts and both capacities. CHECK does both
 * and evaluates every constraint as it is enforced, keeping the first
 * unsatisfied one and the namespace path at that moment (namespaces are
 * formatted only in this mode).
 *
 * Errors are sticky (the first wins); the cancel flag is polled every 4096
 * allocations and constraints.
 */
#include "r1cs_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLL_MASK 4095u
#define MAX_VARS 0x7fffffffu /* 31-bit indices */
#define COEFF_ONE 0u         /* interned first */
#define COEFF_MINUS_ONE 1u

typedef struct rec_mat {
    uint64_t *row_ptr; /* rp_cap entries, num_constraints + 1 used */
    uint64_t rp_cap;
    uint32_t *col;   /* tagged czk_var until finalization, then the column */
    uint32_t *coeff; /* index into coeffs */
    uint64_t nnz, cap;
} rec_mat;

struct czk_cs {
    czk_cs_mode mode;
    const atomic_int *cancel;
    czk_err err; /* sticky: err.code != CZK_OK once failed */
    uint32_t ops;
    bool ran, finalized, shape_taken, witness_taken;

    uint32_t num_inputs, num_aux;
    uint64_t num_constraints;

    czk_fr *in_vals, *aux_vals;
    uint64_t in_cap, aux_cap;
    bool external; /* in_vals, aux_vals are the caller's (never grown or freed) */
    bool overflow; /* an allocation did not fit the caller's arrays */

    rec_mat m[3];
    czk_fr *coeffs;
    uint32_t num_coeffs, coeffs_cap;
    uint32_t *slots; /* coefficient index + 1, 0 = empty */
    uint32_t slot_mask;
    czk_bitmap dens[3]; /* a_aux, b_input, b_aux (after finalization) */

    czk_lc tmp[3];

    /* namespaces */
    uint32_t depth, marks_len, marks_cap;
    uint32_t *marks; /* path length before each push (CHECK only) */
    char *path;
    size_t path_len, path_cap;

    uint64_t first_unsat;
    char *unsat_path;

    czk_pool *pool; /* czk_cs_run_parts: finalization's threads (NULL: this one) */
};

czk_status czk_cs_fail(czk_cs *cs, czk_status code, const char *fmt, ...) {
    if (!cs || code == CZK_OK || cs->err.code != CZK_OK) return code;
    cs->err.code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs->err.msg, sizeof cs->err.msg, fmt, ap);
    va_end(ap);
    return code;
}

void czk_cs_oom(czk_cs *cs, const char *what) {
    if (!cs) return;
    czk_cs_fail(cs, CZK_ERR_NOMEM,
                "out of memory growing the %s (%u inputs, %u aux, %llu constraints so far)", what,
                cs->num_inputs, cs->num_aux, (unsigned long long)cs->num_constraints);
}

czk_status czk_cs_status(const czk_cs *cs) {
    return cs->err.code;
}
czk_cs_mode czk_cs_get_mode(const czk_cs *cs) {
    return cs->mode;
}
bool czk_cs_records(const czk_cs *cs) {
    return cs->mode != CZK_CS_WITNESS;
}
bool czk_cs_has_values(const czk_cs *cs) {
    return cs->mode != CZK_CS_RECORD;
}
uint32_t czk_cs_num_inputs(const czk_cs *cs) {
    return cs->num_inputs;
}
uint32_t czk_cs_num_aux(const czk_cs *cs) {
    return cs->num_aux;
}
uint64_t czk_cs_num_constraints(const czk_cs *cs) {
    return cs->num_constraints;
}
uint64_t czk_cs_first_unsatisfied(const czk_cs *cs) {
    return cs->first_unsat;
}
const char *czk_cs_first_unsatisfied_path(const czk_cs *cs) {
    return cs->unsat_path;
}

/* Grows *p (elements of `size` bytes, capacity *cap) to hold `need`. */
static bool grow(void **p, uint64_t *cap, uint64_t need, size_t size) {
    if (need <= *cap) return true;
    uint64_t c = *cap < 1024 ? 1024 : *cap * 2;
    if (c < need) c = need;
    if (c > SIZE_MAX / size) return false;
    void *q = realloc(*p, c * size);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static inline void poll_cancel(czk_cs *cs) {
    if ((++cs->ops & POLL_MASK) == 0 && cs->cancel &&
        atomic_load_explicit(cs->cancel, memory_order_relaxed))
        czk_cs_fail(cs, CZK_ERR_CANCELLED, "cancelled after %u inputs, %u aux, %llu constraints",
                    cs->num_inputs, cs->num_aux, (unsigned long long)cs->num_constraints);
}

/* ---- coefficient interning ---- */

static inline uint32_t coeff_hash(const czk_fr *c) {
    uint64_t h =
        (c->l[0] ^ (c->l[1] << 1) ^ (c->l[2] << 2) ^ (c->l[3] << 3)) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

static bool slots_rebuild(czk_cs *cs, uint32_t nslots) {
    uint32_t *s = calloc(nslots, sizeof *s);
    if (!s) return false;
    uint32_t mask = nslots - 1;
    for (uint32_t i = 0; i < cs->num_coeffs; i++) {
        uint32_t h = coeff_hash(&cs->coeffs[i]) & mask;
        while (s[h])
            h = (h + 1) & mask;
        s[h] = i + 1;
    }
    free(cs->slots);
    cs->slots = s;
    cs->slot_mask = mask;
    return true;
}

/* Index of c in the table (added if new), UINT32_MAX on failure (cs failed). */
static uint32_t intern(czk_cs *cs, const czk_fr *c) {
    if (czk_fr_eq(c, &czk_fr_one)) return COEFF_ONE;
    if (czk_fr_eq(c, &czk_fr_minus_one)) return COEFF_MINUS_ONE;
    uint32_t h = coeff_hash(c) & cs->slot_mask;
    for (;;) {
        uint32_t s = cs->slots[h];
        if (!s) break;
        if (czk_fr_eq(&cs->coeffs[s - 1], c)) return s - 1;
        h = (h + 1) & cs->slot_mask;
    }
    if (cs->num_coeffs == UINT32_MAX - 1) {
        czk_cs_fail(cs, CZK_ERR_UNSUPPORTED, "more than 2^32 - 2 distinct coefficients");
        return UINT32_MAX;
    }
    if (cs->num_coeffs == cs->coeffs_cap) {
        uint64_t cap = cs->coeffs_cap;
        if (!grow((void **)&cs->coeffs, &cap, (uint64_t)cs->num_coeffs + 1, sizeof *cs->coeffs)) {
            czk_cs_oom(cs, "coefficient table");
            return UINT32_MAX;
        }
        cs->coeffs_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    uint32_t idx = cs->num_coeffs++;
    cs->coeffs[idx] = *c;
    if ((uint64_t)cs->num_coeffs * 2 > (uint64_t)cs->slot_mask + 1) {
        if (cs->slot_mask >= 0x7fffffffu || !slots_rebuild(cs, (cs->slot_mask + 1) * 2)) {
            czk_cs_oom(cs, "coefficient hash table");
            return UINT32_MAX;
        }
    } else {
        cs->slots[h] = idx + 1;
    }
    return idx;
}

/* ---- create / free ---- */

czk_cs *czk_cs_create(czk_cs_mode mode, const atomic_int *cancel, czk_err *err) {
    if (mode != CZK_CS_RECORD && mode != CZK_CS_WITNESS && mode != CZK_CS_CHECK) {
        czk_errf(err, CZK_ERR_INVALID_ARG, "unknown constraint system mode %d", (int)mode);
        return NULL;
    }
    czk_cs *cs = calloc(1, sizeof *cs);
    if (!cs) goto oom;
    cs->mode = mode;
    cs->cancel = cancel;
    cs->first_unsat = UINT64_MAX;
    if (czk_cs_records(cs)) {
        for (int i = 0; i < 3; i++) {
            if (!grow((void **)&cs->m[i].row_ptr, &cs->m[i].rp_cap, 1, sizeof(uint64_t))) goto oom;
            cs->m[i].row_ptr[0] = 0;
        }
        cs->slot_mask = 63;
        cs->slots = calloc(64, sizeof *cs->slots);
        cs->coeffs = malloc(16 * sizeof *cs->coeffs);
        if (!cs->slots || !cs->coeffs) goto oom;
        cs->coeffs_cap = 16;
        cs->coeffs[COEFF_ONE] = czk_fr_one;
        cs->coeffs[COEFF_MINUS_ONE] = czk_fr_minus_one;
        cs->num_coeffs = 2;
        if (!slots_rebuild(cs, 64)) goto oom;
    }
    return cs;
oom:
    czk_cs_free(cs);
    czk_errf(err, CZK_ERR_NOMEM, "out of memory creating a constraint system");
    return NULL;
}

void czk_cs_free(czk_cs *cs) {
    if (!cs) return;
    if (!cs->external) {
        free(cs->in_vals);
        free(cs->aux_vals);
    }
    for (int i = 0; i < 3; i++) {
        free(cs->m[i].row_ptr);
        free(cs->m[i].col);
        free(cs->m[i].coeff);
        free(cs->dens[i].words);
        czk_lc_free(&cs->tmp[i]);
    }
    free(cs->coeffs);
    free(cs->slots);
    free(cs->marks);
    free(cs->path);
    free(cs->unsat_path);
    free(cs);
}

void czk_cs_reserve(czk_cs *cs, uint32_t inputs, uint32_t aux, uint32_t constraints) {
    if (cs->err.code) return;
    bool ok = true;
    if (czk_cs_has_values(cs) && !cs->external) {
        ok &= grow((void **)&cs->in_vals, &cs->in_cap, inputs, sizeof(czk_fr));
        ok &= grow((void **)&cs->aux_vals, &cs->aux_cap, aux, sizeof(czk_fr));
    }
    if (czk_cs_records(cs))
        for (int i = 0; i < 3; i++)
            ok &= grow((void **)&cs->m[i].row_ptr, &cs->m[i].rp_cap, (uint64_t)constraints + 1,
                       sizeof(uint64_t));
    if (!ok) czk_cs_oom(cs, "reserved arrays");
}

czk_status czk_cs_set_witness_buffers(czk_cs *cs, czk_fr *inputs, uint32_t in_cap, czk_fr *aux,
                                      uint32_t aux_cap, czk_err *err) {
    if (cs->mode != CZK_CS_WITNESS)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "witness buffers: only a WITNESS-mode constraint system takes them");
    if (cs->ran || cs->num_inputs || cs->num_aux || cs->external)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "witness buffers: set them once, before the circuit runs");
    if (!inputs || !in_cap || (!aux && aux_cap))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "witness buffers: %s (room for ONE at least, and aux for %u values)",
                        !inputs   ? "no inputs array"
                        : !in_cap ? "no room for inputs"
                                  : "no aux array",
                        aux_cap);
    free(cs->in_vals);
    free(cs->aux_vals);
    cs->in_vals = inputs;
    cs->aux_vals = aux;
    cs->in_cap = in_cap;
    cs->aux_cap = aux_cap;
    cs->external = true;
    return CZK_OK;
}

/* Makes room for value number n (cap entries now); false: not stored (caller's arrays are
 * full: counted as overflow, reported at the end of the run) or out of memory (cs failed). */
static bool value_room(czk_cs *cs, czk_fr **vals, uint64_t *cap, uint32_t n, const char *what) {
    if (n < *cap) return true;
    if (cs->external) {
        cs->overflow = true;
        return false;
    }
    if (!grow((void **)vals, cap, (uint64_t)n + 1, sizeof(czk_fr))) czk_cs_oom(cs, what);
    return n < *cap;
}

/* ---- variables ---- */

czk_var czk_cs_alloc(czk_cs *cs, const czk_fr *value) {
    if (cs->err.code) return CZK_VAR_ONE;
    poll_cancel(cs);
    if (cs->num_aux == MAX_VARS) {
        czk_cs_fail(cs, CZK_ERR_UNSUPPORTED, "more than 2^31 - 1 aux variables");
        return CZK_VAR_ONE;
    }
    if (czk_cs_has_values(cs)) {
        if (value_room(cs, &cs->aux_vals, &cs->aux_cap, cs->num_aux, "aux assignment"))
            cs->aux_vals[cs->num_aux] = value ? *value : czk_fr_zero;
        else if (cs->err.code)
            return CZK_VAR_ONE;
    }
    return czk_var_aux(cs->num_aux++);
}

czk_var czk_cs_alloc_input(czk_cs *cs, const czk_fr *value) {
    if (cs->err.code) return CZK_VAR_ONE;
    poll_cancel(cs);
    if (cs->num_inputs == MAX_VARS) {
        czk_cs_fail(cs, CZK_ERR_UNSUPPORTED, "more than 2^31 - 1 inputs");
        return CZK_VAR_ONE;
    }
    if (czk_cs_has_values(cs)) {
        if (value_room(cs, &cs->in_vals, &cs->in_cap, cs->num_inputs, "input assignment"))
            cs->in_vals[cs->num_inputs] = value ? *value : czk_fr_zero;
        else if (cs->err.code)
            return CZK_VAR_ONE;
    }
    return czk_var_input(cs->num_inputs++);
}

/* ---- namespaces ---- */

void czk_cs_push_ns(czk_cs *cs, const char *fmt, ...) {
    cs->depth++;
    if (cs->mode != CZK_CS_CHECK || cs->err.code) return;
    if (cs->marks_len == cs->marks_cap) {
        uint64_t cap = cs->marks_cap;
        if (!grow((void **)&cs->marks, &cap, (uint64_t)cs->marks_len + 1, sizeof *cs->marks)) {
            czk_cs_oom(cs, "namespace stack");
            return;
        }
        cs->marks_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    size_t need = cs->path_len + 1 + (size_t)n + 1;
    if (need > cs->path_cap) {
        size_t cap = cs->path_cap ? cs->path_cap : 256;
        while (cap < need)
            cap *= 2;
        char *p = realloc(cs->path, cap);
        if (!p) {
            czk_cs_oom(cs, "namespace path");
            return;
        }
        cs->path = p;
        cs->path_cap = cap;
    }
    cs->marks[cs->marks_len++] = (uint32_t)cs->path_len;
    if (cs->path_len) cs->path[cs->path_len++] = '/';
    va_start(ap, fmt);
    vsnprintf(cs->path + cs->path_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cs->path_len += (size_t)n;
    cs->path[cs->path_len] = 0;
}

void czk_cs_pop_ns(czk_cs *cs) {
    if (cs->depth == 0) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "czk_cs_pop_ns without a matching czk_cs_push_ns");
        return;
    }
    cs->depth--;
    if (cs->marks_len > cs->depth) {
        cs->path_len = cs->marks[--cs->marks_len];
        cs->path[cs->path_len] = 0;
    }
}

static const char *ns_path(const czk_cs *cs) {
    return cs->path_len ? cs->path : "";
}

/* ---- constraints ---- */

/* True if lc is already normalized: strictly increasing keys, no zero coefficient. */
static bool lc_is_normal(const czk_lc *lc) {
    const czk_term *t = lc->terms;
    for (uint32_t i = 0; i < lc->len; i++) {
        if (czk_fr_is_zero(&t[i].coeff)) return false;
        if (i && czk_var_key(t[i - 1].var) >= czk_var_key(t[i].var)) return false;
    }
    return true;
}

static bool var_in_range(czk_cs *cs, czk_var v, int which) {
    uint32_t idx = czk_var_index(v);
    bool input = czk_var_is_input(v);
    if (idx < (input ? cs->num_inputs : cs->num_aux)) return true;
    czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                "constraint %llu (%s): %c uses %s %u, but only %u are allocated",
                (unsigned long long)cs->num_constraints, ns_path(cs), "ABC"[which],
                input ? "input" : "aux", idx, input ? cs->num_inputs : cs->num_aux);
    return false;
}

/* Appends lc (normalized) as row num_constraints of matrix `which`; in CHECK
 * mode also evaluates it into *val. */
static bool emit(czk_cs *cs, int which, const czk_lc *lc, czk_fr *val) {
    rec_mat *m = &cs->m[which];
    uint64_t need = m->nnz + lc->len;
    if (need > m->cap) {
        uint64_t c1 = m->cap, c2 = m->cap;
        if (!grow((void **)&m->col, &c1, need, sizeof(uint32_t)) ||
            !grow((void **)&m->coeff, &c2, need, sizeof(uint32_t))) {
            czk_cs_oom(cs, "constraint matrices");
            return false;
        }
        m->cap = c1 < c2 ? c1 : c2;
    }
    bool check = cs->mode == CZK_CS_CHECK;
    czk_fr acc = czk_fr_zero;
    uint64_t k = m->nnz;
    for (uint32_t i = 0; i < lc->len; i++) {
        const czk_term *t = &lc->terms[i];
        if (!var_in_range(cs, t->var, which)) return false;
        uint32_t ci = intern(cs, &t->coeff);
        if (ci == UINT32_MAX) return false;
        m->col[k] = t->var;
        m->coeff[k] = ci;
        k++;
        if (check) {
            const czk_fr *x = czk_var_is_input(t->var) ? &cs->in_vals[czk_var_index(t->var)]
                                                       : &cs->aux_vals[czk_var_index(t->var)];
            if (ci == COEFF_ONE) {
                czk_fr_add(&acc, &acc, x);
            } else {
                czk_fr p;
                czk_fr_mul(&p, x, &t->coeff);
                czk_fr_add(&acc, &acc, &p);
            }
        }
    }
    m->nnz = k;
    if (val) *val = acc;
    return true;
}

void czk_cs_enforce(czk_cs *cs, const czk_lc *a, const czk_lc *b, const czk_lc *c) {
    if (cs->err.code) return;
    poll_cancel(cs);
    if (cs->num_constraints == UINT64_MAX - 1) {
        czk_cs_fail(cs, CZK_ERR_UNSUPPORTED, "too many constraints");
        return;
    }
    if (cs->mode == CZK_CS_WITNESS) {
        cs->num_constraints++;
        return;
    }
    uint64_t k = cs->num_constraints;
    for (int i = 0; i < 3; i++) {
        rec_mat *m = &cs->m[i];
        if (k + 2 > m->rp_cap && !grow((void **)&m->row_ptr, &m->rp_cap, k + 2, sizeof(uint64_t))) {
            czk_cs_oom(cs, "row pointers");
            return;
        }
    }
    static const czk_lc empty = CZK_LC_INIT;
    const czk_lc *in[3] = {a ? a : &empty, b ? b : &empty, c ? c : &empty};
    czk_fr v[3];
    for (int i = 0; i < 3; i++) {
        const czk_lc *lc = in[i];
        if (!lc_is_normal(lc)) {
            czk_lc_copy(cs, &cs->tmp[i], lc);
            if (cs->err.code) return;
            czk_lc_normalize(&cs->tmp[i]);
            lc = &cs->tmp[i];
        }
        if (!emit(cs, i, lc, &v[i])) return;
        cs->m[i].row_ptr[k + 1] = cs->m[i].nnz;
    }
    if (cs->mode == CZK_CS_CHECK && cs->first_unsat == UINT64_MAX) {
        czk_fr ab;
        czk_fr_mul(&ab, &v[0], &v[1]);
        if (!czk_fr_eq(&ab, &v[2])) {
            cs->first_unsat = k;
            free(cs->unsat_path);
            cs->unsat_path = strdup(ns_path(cs));
            if (!cs->unsat_path) czk_cs_oom(cs, "namespace path");
        }
    }
    cs->num_constraints = k + 1;
}

/* ---- run and finalization ---- */

static bool bitmap_alloc(czk_bitmap *bm, uint64_t bits) {
    bm->len = bits;
    bm->popcount = 0;
    bm->words = calloc(bits ? (bits + 63) / 64 : 1, sizeof(uint64_t));
    return bm->words != NULL;
}

typedef struct fin_job {
    czk_cs *cs;
    int mi;
    bool shared; /* other threads set bits of the same bitmaps */
} fin_job;

/* Sets bit idx (atomically when the bitmap is shared, and only when it is not set yet). */
static inline void bit_set(uint64_t *words, uint32_t idx, bool shared) {
    uint64_t b = 1ull << (idx & 63), *w = &words[idx >> 6];
    if (!shared)
        *w |= b;
    else if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & b))
        __atomic_fetch_or(w, b, __ATOMIC_RELAXED);
}

/* Non-zeros [begin, end) of matrix mi: tagged variable -> column, density bits. */
static void fin_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const fin_job *j = arg;
    czk_cs *cs = j->cs;
    int mi = j->mi;
    bool sh = j->shared;
    uint32_t ni = cs->num_inputs, *col = cs->m[mi].col;
    uint64_t *da = cs->dens[0].words, *dbi = cs->dens[1].words, *dba = cs->dens[2].words;
    for (size_t k = begin; k < end; k++) {
        czk_var v = col[k];
        uint32_t idx = czk_var_index(v);
        if (czk_var_is_input(v)) {
            col[k] = idx;
            if (mi == 1) bit_set(dbi, idx, sh);
        } else {
            col[k] = ni + idx;
            if (mi == 0) bit_set(da, idx, sh);
            if (mi == 1) bit_set(dba, idx, sh);
        }
    }
}

/* Rewrites tagged variables into [inputs | aux] columns; computes densities (on cs->pool). */
static bool finalize_shape(czk_cs *cs) {
    for (int i = 0; i < 3; i++) {
        if (!bitmap_alloc(&cs->dens[i], i == 1 ? cs->num_inputs : cs->num_aux)) {
            czk_cs_oom(cs, "density bitmaps");
            return false;
        }
    }
    for (int mi = 0; mi < 3; mi++) {
        uint64_t grain = 1u << 20;
        fin_job j = {cs, mi, czk_pool_threads(cs->pool) > 1 && cs->m[mi].nnz > grain};
        czk_pool_for(cs->pool, cs->m[mi].nnz, grain, fin_range, &j);
    }
    for (int i = 0; i < 3; i++) {
        czk_bitmap *bm = &cs->dens[i];
        uint64_t pc = 0;
        for (uint64_t w = 0; w < (bm->len + 63) / 64; w++)
            pc += (uint64_t)__builtin_popcountll(bm->words[w]);
        bm->popcount = pc;
    }
    return true;
}

/* ---- circuits of parts ---- */

/* A non-OK return of a circuit's function that recorded no failure fails cs. */
static void returned(czk_cs *cs, czk_status st) {
    if (st != CZK_OK && !cs->err.code)
        czk_cs_fail(cs, st, "the circuit returned %s", czk_status_name(st));
}

static void parts_serial(czk_cs *cs, const czk_cs_parts *p, uint64_t from) {
    for (uint64_t i = from; i < p->count && !cs->err.code; i++)
        returned(cs, p->part(cs, p->ctx, i));
}

/* Where a cs stands: counts, matrix sizes, namespace depth. */
typedef struct cs_mark {
    uint32_t in, aux, depth;
    uint64_t k, nnz[3];
} cs_mark;

static cs_mark mark_of(const czk_cs *cs) {
    cs_mark m = {cs->num_inputs, cs->num_aux, cs->depth, cs->num_constraints, {0, 0, 0}};
    for (int i = 0; i < 3; i++)
        m.nnz[i] = cs->m[i].nnz;
    return m;
}

/* One part's step: from m0 (before part 0) to m1 (after it); the totals of `count` parts. */
typedef struct part_step {
    cs_mark m0, d, total;
} part_step;

/* False when m2 (after part 1) is not m1 + the step, or the totals leave the cs's limits. */
static bool step_of(part_step *s, const cs_mark *m0, const cs_mark *m1, const cs_mark *m2,
                    uint64_t count) {
    s->m0 = *m0;
    cs_mark d = {m1->in - m0->in, m1->aux - m0->aux, 0, m1->k - m0->k, {0, 0, 0}};
    for (int i = 0; i < 3; i++)
        d.nnz[i] = m1->nnz[i] - m0->nnz[i];
    s->d = d;
    if (m0->depth != m1->depth || (m2 && m1->depth != m2->depth)) return false;
    if (m2 && (m2->in - m1->in != d.in || m2->aux - m1->aux != d.aux || m2->k - m1->k != d.k))
        return false;
    for (int i = 0; i < 3; i++)
        if (m2 && m2->nnz[i] - m1->nnz[i] != d.nnz[i]) return false;
    /* totals, each checked against its limit before it is formed */
    if ((d.in && count > (MAX_VARS - m0->in) / d.in) ||
        (d.aux && count > (MAX_VARS - m0->aux) / d.aux))
        return false;
    /* constraints: the parts' and one per input after them, under 2^64 − 2 */
    uint64_t in_total = m0->in + count * d.in;
    if (d.k && count > (UINT64_MAX / 2 - m0->k) / d.k) return false;
    s->total = (cs_mark){(uint32_t)in_total,
                         (uint32_t)(m0->aux + count * d.aux),
                         m0->depth,
                         m0->k + count * d.k,
                         {0, 0, 0}};
    for (int i = 0; i < 3; i++) {
        if (d.nnz[i] && count > (UINT64_MAX / 2 - m0->nnz[i]) / d.nnz[i]) return false;
        s->total.nnz[i] = m0->nnz[i] + count * d.nnz[i];
    }
    return true;
}

/* A tagged variable of part 0 (made after m0) as part q's; ONE and the prefix's stay. */
static inline uint32_t shift_var(uint32_t v, const part_step *s, uint64_t q) {
    if (v & CZK_VAR_INPUT_BIT)
        return (v & ~CZK_VAR_INPUT_BIT) >= s->m0.in ? v + (uint32_t)(q * s->d.in) : v;
    return v >= s->m0.aux ? v + (uint32_t)(q * s->d.aux) : v;
}

/* RECORD: whether part 1's rows are part 0's shifted by one part. */
static bool part1_shifted(const czk_cs *cs, const part_step *s) {
    for (int mi = 0; mi < 3; mi++) {
        const rec_mat *m = &cs->m[mi];
        uint64_t b0 = s->m0.nnz[mi], b1 = b0 + s->d.nnz[mi];
        for (uint64_t e = 0; e < s->d.nnz[mi]; e++)
            if (m->col[b1 + e] != shift_var(m->col[b0 + e], s, 1) ||
                m->coeff[b1 + e] != m->coeff[b0 + e])
                return false;
        const uint64_t *r0 = m->row_ptr + s->m0.k, *r1 = r0 + s->d.k;
        for (uint64_t j = 1; j <= s->d.k; j++)
            if (r1[j] - b1 != r0[j] - b0) return false;
    }
    return true;
}

typedef struct rep_job {
    czk_cs *cs;
    const part_step *s;
} rep_job;

/* Parts 2 + [begin, end): part 0's rows shifted. */
static void rep_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const rep_job *j = arg;
    const part_step *s = j->s;
    for (uint64_t q = 2 + (uint64_t)begin; q < 2 + (uint64_t)end; q++)
        for (int mi = 0; mi < 3; mi++) {
            rec_mat *m = &j->cs->m[mi];
            uint64_t b0 = s->m0.nnz[mi], n = s->d.nnz[mi], off = q * n;
            const uint32_t *sc = m->col + b0, *sk = m->coeff + b0;
            uint32_t *dc = m->col + b0 + off, *dk = m->coeff + b0 + off;
            for (uint64_t e = 0; e < n; e++)
                dc[e] = shift_var(sc[e], s, q);
            memcpy(dk, sk, n * sizeof *dk);
            const uint64_t *r0 = m->row_ptr + s->m0.k;
            uint64_t *rq = m->row_ptr + s->m0.k + q * s->d.k;
            for (uint64_t r = 1; r <= s->d.k; r++)
                rq[r] = r0[r] + off;
        }
}

/* RECORD: parts 0 and 1 run; the rest copied from part 0 when part 1 is part 0 shifted. */
static void parts_record(czk_cs *cs, const czk_cs_parts *p) {
    cs_mark m0 = mark_of(cs);
    returned(cs, p->part(cs, p->ctx, 0));
    if (cs->err.code || p->count == 1) return;
    cs_mark m1 = mark_of(cs);
    returned(cs, p->part(cs, p->ctx, 1));
    if (cs->err.code || p->count == 2) return;
    cs_mark m2 = mark_of(cs);
    part_step s;
    if (!step_of(&s, &m0, &m1, &m2, p->count) || !part1_shifted(cs, &s)) {
        parts_serial(cs, p, 2);
        return;
    }
    if (cs->cancel && atomic_load(cs->cancel)) {
        czk_cs_fail(cs, CZK_ERR_CANCELLED, "cancelled after %u inputs, %u aux, %llu constraints",
                    cs->num_inputs, cs->num_aux, (unsigned long long)cs->num_constraints);
        return;
    }
    /* room for every part and the finalization rows (one per input, in A) */
    uint64_t rows = s.total.k + s.total.in + 1;
    for (int mi = 0; mi < 3; mi++) {
        rec_mat *m = &cs->m[mi];
        uint64_t need = s.total.nnz[mi] + (mi == 0 ? s.total.in : 0), c1 = m->cap, c2 = m->cap;
        if (!grow((void **)&m->row_ptr, &m->rp_cap, rows, sizeof(uint64_t)) ||
            !grow((void **)&m->col, &c1, need, sizeof(uint32_t)) ||
            !grow((void **)&m->coeff, &c2, need, sizeof(uint32_t))) {
            czk_cs_oom(cs, "constraint matrices");
            return;
        }
        m->cap = c1 < c2 ? c1 : c2;
    }
    rep_job j = {cs, &s};
    czk_pool_for(cs->pool, p->count - 2, 0, rep_range, &j);
    cs->num_inputs = s.total.in;
    cs->num_aux = s.total.aux;
    cs->num_constraints = s.total.k;
    for (int mi = 0; mi < 3; mi++)
        cs->m[mi].nnz = s.total.nnz[mi];
}

typedef struct wit_job {
    czk_cs *cs;
    const czk_cs_parts *p;
    part_step s;
    pthread_mutex_t lock;
    uint64_t first;     /* the first part that failed or differs from part 0; UINT64_MAX: none */
    bool first_differs; /* it allocated other counts (or left a namespace open) */
    czk_err first_err;  /* else its failure */
} wit_job;

static void wit_failed(wit_job *j, uint64_t q, bool differs, const czk_err *e) {
    pthread_mutex_lock(&j->lock);
    if (q < j->first) {
        j->first = q;
        j->first_differs = differs;
        if (e) j->first_err = *e;
    }
    pthread_mutex_unlock(&j->lock);
}

/* Parts 1 + [begin, end), each in a WITNESS cs of its own that stores into cs's arrays at
 * the part's place (bounded by it: an allocation past it is counted, not stored). */
static void wit_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    wit_job *j = arg;
    const part_step *s = &j->s;
    for (uint64_t q = 1 + (uint64_t)begin; q < 1 + (uint64_t)end; q++) {
        pthread_mutex_lock(&j->lock);
        bool later = q > j->first; /* a part before it failed: the run ends there */
        pthread_mutex_unlock(&j->lock);
        if (later) continue;
        czk_err e;
        czk_cs *sub = czk_cs_create(CZK_CS_WITNESS, j->cs->cancel, &e);
        if (!sub) {
            wit_failed(j, q, false, &e);
            continue;
        }
        sub->ran = sub->external = true;
        sub->in_vals = j->cs->in_vals;
        sub->aux_vals = j->cs->aux_vals;
        sub->num_inputs = (uint32_t)(s->m0.in + q * s->d.in);
        sub->num_aux = (uint32_t)(s->m0.aux + q * s->d.aux);
        sub->num_constraints = s->m0.k + q * s->d.k;
        sub->in_cap = sub->num_inputs + (uint64_t)s->d.in;
        sub->aux_cap = sub->num_aux + (uint64_t)s->d.aux;
        sub->depth = s->m0.depth;
        returned(sub, j->p->part(sub, j->p->ctx, q));
        bool differs =
            sub->overflow ||
            (!sub->err.code &&
             (sub->num_inputs != sub->in_cap || sub->num_aux != sub->aux_cap ||
              sub->num_constraints != s->m0.k + (q + 1) * s->d.k || sub->depth != s->m0.depth));
        if (differs || sub->err.code) wit_failed(j, q, differs, &sub->err);
        czk_cs_free(sub);
    }
}

/* WITNESS on a pool: part 0 runs in cs, parts 1 .. on the pool's threads. */
static void parts_witness(czk_cs *cs, const czk_cs_parts *p) {
    cs_mark m0 = mark_of(cs);
    returned(cs, p->part(cs, p->ctx, 0));
    if (cs->err.code || p->count == 1) return;
    cs_mark m1 = mark_of(cs);
    wit_job j = {.cs = cs, .p = p, .first = UINT64_MAX};
    if (!step_of(&j.s, &m0, &m1, NULL, p->count) ||
        (cs->external && (j.s.total.in > cs->in_cap || j.s.total.aux > cs->aux_cap))) {
        parts_serial(cs, p, 1); /* as serially: its limits' failures, the buffers' overflow */
        return;
    }
    if (!cs->external &&
        (!grow((void **)&cs->in_vals, &cs->in_cap, j.s.total.in, sizeof(czk_fr)) ||
         !grow((void **)&cs->aux_vals, &cs->aux_cap, j.s.total.aux, sizeof(czk_fr)))) {
        czk_cs_oom(cs, "assignment");
        return;
    }
    pthread_mutex_init(&j.lock, NULL);
    czk_pool_for(cs->pool, p->count - 1, 1, wit_range, &j);
    pthread_mutex_destroy(&j.lock);
    if (j.first == UINT64_MAX) {
        cs->num_inputs = j.s.total.in;
        cs->num_aux = j.s.total.aux;
        cs->num_constraints = j.s.total.k;
    } else if (j.first_differs) {
        parts_serial(cs, p, 1);
    } else {
        cs->err = j.first_err;
    }
}

czk_status czk_cs_run_parts(czk_cs *cs, const czk_cs_parts *p, czk_pool *pool, czk_err *err) {
    if (cs->ran) return czk_errf(err, CZK_ERR_INVALID_ARG, "a constraint system runs only once");
    cs->ran = true;
    if (p->count && !p->part)
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "a circuit of %llu parts without a part function",
                    (unsigned long long)p->count);
    if (cs->num_inputs || cs->num_aux || cs->num_constraints)
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                    "variables or constraints were added before czk_cs_run (ONE must be input 0)");
    if (cs->cancel && atomic_load(cs->cancel))
        czk_cs_fail(cs, CZK_ERR_CANCELLED, "cancelled before the circuit ran");
    cs->pool = pool;
    czk_cs_alloc_input(cs, &czk_fr_one);
    if (!cs->err.code && p->prefix) returned(cs, p->prefix(cs, p->ctx));
    if (!cs->err.code && p->count) {
        if (cs->mode == CZK_CS_RECORD)
            parts_record(cs, p);
        else if (cs->mode == CZK_CS_WITNESS && pool)
            parts_witness(cs, p);
        else
            parts_serial(cs, p, 0);
    }
    if (!cs->err.code && cs->depth)
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "%u namespaces pushed and not popped", cs->depth);
    if (!cs->err.code) {
        /* input_i · 0 = 0, in input order, ONE included (porep-circuit.md §5). */
        czk_lc *a = &cs->tmp[0];
        czk_lc none = CZK_LC_INIT;
        for (uint32_t i = 0; i < cs->num_inputs && !cs->err.code; i++) {
            czk_lc_clear(a);
            czk_lc_add(cs, a, czk_var_input(i), &czk_fr_one);
            czk_cs_enforce(cs, a, &none, &none);
        }
    }
    if (!cs->err.code && cs->cancel && atomic_load(cs->cancel))
        czk_cs_fail(cs, CZK_ERR_CANCELLED, "cancelled after %llu constraints",
                    (unsigned long long)cs->num_constraints);
    if (!cs->err.code && cs->overflow)
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                    "witness buffers too small: the circuit has %u inputs and %u aux, the "
                    "buffers hold %llu and %llu",
                    cs->num_inputs, cs->num_aux, (unsigned long long)cs->in_cap,
                    (unsigned long long)cs->aux_cap);
    if (!cs->err.code && czk_cs_records(cs)) finalize_shape(cs);
    cs->pool = NULL;
    if (cs->err.code) {
        if (err) *err = cs->err;
        return cs->err.code;
    }
    cs->finalized = true;
    if (cs->first_unsat != UINT64_MAX) {
        const char *path = cs->unsat_path;
        return czk_errf(err, CZK_ERR_UNSATISFIED, "constraint %llu (%s) is not satisfied",
                        (unsigned long long)cs->first_unsat, path && *path ? path : "top level");
    }
    return CZK_OK;
}

czk_status czk_cs_run(czk_cs *cs, czk_circuit_fn fn, void *ctx, czk_err *err) {
    czk_cs_parts p = {fn, NULL, 0, ctx};
    return czk_cs_run_parts(cs, &p, NULL, err);
}

/* ---- taking the results ---- */

/* realloc to the exact size; keeps the block if shrinking fails. */
static void *shrink(void *p, uint64_t n, size_t size) {
    if (!p) return NULL;
    if (n == 0) {
        free(p);
        return NULL;
    }
    void *q = realloc(p, n * size);
    return q ? q : p;
}

czk_status czk_cs_take_shape(czk_cs *cs, czk_shape **out, czk_err *err) {
    *out = NULL;
    if (!czk_cs_records(cs))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "a WITNESS-mode constraint system records no shape");
    if (!cs->finalized)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "the constraint system has not run to completion");
    if (cs->shape_taken) return czk_errf(err, CZK_ERR_INVALID_ARG, "the shape was already taken");
    czk_shape *s = calloc(1, sizeof *s);
    if (!s) return czk_errf(err, CZK_ERR_NOMEM, "out of memory taking the shape");
    s->num_inputs = cs->num_inputs;
    s->num_aux = cs->num_aux;
    s->num_constraints = cs->num_constraints;
    for (int i = 0; i < 3; i++) {
        rec_mat *m = &cs->m[i];
        s->m[i].row_ptr = shrink(m->row_ptr, cs->num_constraints + 1, sizeof(uint64_t));
        s->m[i].col = shrink(m->col, m->nnz, sizeof(uint32_t));
        s->m[i].coeff = shrink(m->coeff, m->nnz, sizeof(uint32_t));
        s->m[i].nnz = m->nnz;
        memset(m, 0, sizeof *m);
    }
    s->coeffs = shrink(cs->coeffs, cs->num_coeffs, sizeof(czk_fr));
    s->num_coeffs = cs->num_coeffs;
    cs->coeffs = NULL;
    cs->num_coeffs = cs->coeffs_cap = 0;
    s->a_aux = cs->dens[0];
    s->b_input = cs->dens[1];
    s->b_aux = cs->dens[2];
    memset(cs->dens, 0, sizeof cs->dens);
    cs->shape_taken = true;
    *out = s;
    return CZK_OK;
}

czk_status czk_cs_take_witness(czk_cs *cs, czk_witness *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    if (!czk_cs_has_values(cs))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "a RECORD-mode constraint system stores no values");
    if (!cs->finalized)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "the constraint system has not run to completion");
    if (cs->witness_taken)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "the witness was already taken");
    if (cs->external) { /* the caller's arrays: as given */
        out->inputs = cs->in_vals;
        out->aux = cs->aux_vals;
    } else {
        out->inputs = shrink(cs->in_vals, cs->num_inputs, sizeof(czk_fr));
        out->aux = shrink(cs->aux_vals, cs->num_aux, sizeof(czk_fr));
    }
    out->num_inputs = cs->num_inputs;
    out->num_aux = cs->num_aux;
    cs->in_vals = cs->aux_vals = NULL;
    cs->in_cap = cs->aux_cap = 0;
    cs->witness_taken = true;
    return CZK_OK;
}

czk_status czk_cs_witness_parts_into(czk_witness *buf, const czk_cs_parts *parts, czk_pool *pool,
                                     const atomic_int *cancel, czk_err *err) {
    czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, cancel, err);
    if (!cs) return err && err->code ? err->code : CZK_ERR_NOMEM;
    czk_witness got;
    czk_status st =
        czk_cs_set_witness_buffers(cs, buf->inputs, buf->num_inputs, buf->aux, buf->num_aux, err);
    if (!st) st = czk_cs_run_parts(cs, parts, pool, err);
    if (!st && !(st = czk_cs_take_witness(cs, &got, err))) *buf = got; /* same arrays, counts */
    czk_cs_free(cs);
    return st;
}

czk_status czk_cs_witness_into(czk_witness *buf, czk_circuit_fn fn, void *ctx,
                               const atomic_int *cancel, czk_err *err) {
    czk_cs_parts p = {fn, NULL, 0, ctx};
    return czk_cs_witness_parts_into(buf, &p, NULL, cancel, err);
}

/* One run in `mode`; the cs on success (the caller takes its result). */
static czk_status run_once(czk_cs **out, czk_cs_mode mode, const czk_cs_parts *parts,
                           czk_pool *pool, const atomic_int *cancel, czk_err *err) {
    czk_cs *cs = czk_cs_create(mode, cancel, err);
    if (!cs) return err && err->code ? err->code : CZK_ERR_NOMEM;
    czk_status st = czk_cs_run_parts(cs, parts, pool, err);
    if (st) {
        czk_cs_free(cs);
        return st;
    }
    *out = cs;
    return CZK_OK;
}

czk_status czk_cs_record_parts(czk_shape **out, const czk_cs_parts *parts, czk_pool *pool,
                               const atomic_int *cancel, czk_err *err) {
    czk_cs *cs = NULL;
    czk_status st = run_once(&cs, CZK_CS_RECORD, parts, pool, cancel, err);
    if (st) return st;
    st = czk_cs_take_shape(cs, out, err);
    czk_cs_free(cs);
    return st;
}

czk_status czk_cs_witness_parts(czk_witness *out, const czk_cs_parts *parts, czk_pool *pool,
                                const atomic_int *cancel, czk_err *err) {
    czk_cs *cs = NULL;
    czk_status st = run_once(&cs, CZK_CS_WITNESS, parts, pool, cancel, err);
    if (st) return st;
    st = czk_cs_take_witness(cs, out, err);
    czk_cs_free(cs);
    return st;
}

czk_status czk_cs_record(czk_shape **out, czk_circuit_fn fn, void *ctx, const atomic_int *cancel,
                         czk_err *err) {
    czk_cs_parts p = {fn, NULL, 0, ctx};
    return czk_cs_record_parts(out, &p, NULL, cancel, err);
}

czk_status czk_cs_witness(czk_witness *out, czk_circuit_fn fn, void *ctx, const atomic_int *cancel,
                          czk_err *err) {
    czk_cs_parts p = {fn, NULL, 0, ctx};
    return czk_cs_witness_parts(out, &p, NULL, cancel, err);
}

void czk_witness_free(czk_witness *w) {
    if (!w) return;
    free(w->inputs);
    free(w->aux);
    memset(w, 0, sizeof *w);
}
