/*
 * The FallbackPoSt circuit of one partition (storage-proofs-post
 * fallback/circuit.rs FallbackPoStCircuit::synthesize and Sector::synthesize;
 * spec post-snap.md §1.2), written once against the r1cs API for every cs
 * mode, and its counts.
 *
 * Each sector is independent: it allocates its own commitments, inputizes
 * its comm_r, and proves its challenged leaves into its own comm_r_last, so
 * the R1CS of a partition is the R1CS of one sector repeated. That is what
 * czk_post_count uses to give the counts of a 125 M-constraint WindowPoSt
 * partition from the recordings of one and two sectors, and what the
 * recording and the witness use: the sectors are the parts of
 * czk_cs_run_parts (r1cs.h), recorded as sectors 0 and 1 plus shifted copies
 * of sector 0 (a sector's rows depend on nothing but the configuration: in
 * RECORD there is no witness, and its index only names its namespace), and
 * synthesized as witnesses on a pool, each sector into its place. The
 * serial run (czk_post_synthesize, czk_post_circuit_fn) gives the same shape
 * and assignment byte for byte; tests/post/circuit_parts.c holds them to it.
 *
 * Order matters to the last allocation (the Groth16 key fixes every
 * variable's column and every constraint's row); the namespaces are
 * upstream's, for CHECK reports.
 */
#include "czk/post.h"

#include "czk/gadgets.h"
#include "czk/poseidon.h"

#include <stdlib.h>
#include <string.h>

czk_status czk_post_config_check(const czk_post_config *cfg, czk_por_tree *tree, czk_err *err) {
    if (cfg->sectors == 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "post circuit: no sectors per partition");
    if (cfg->challenges == 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "post circuit: no challenges per sector");
    /* 1 + sectors·(1 + challenges) inputs must fit the cs's 31-bit indices. */
    if ((uint64_t)cfg->sectors * (1u + (uint64_t)cfg->challenges) >= (1ull << 30))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "post circuit: %u sectors × %u challenges",
                        cfg->sectors, cfg->challenges);
    czk_por_tree t;
    czk_status st = czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, cfg->nodes, cfg->base_arity,
                                            cfg->sub_arity, cfg->top_arity, err);
    if (st) {
        czk_err_wrap(err, "post circuit TreeR");
        return st;
    }
    if (tree) *tree = t;
    return CZK_OK;
}

uint32_t czk_post_num_inputs(const czk_post_config *cfg) {
    return 1 + cfg->sectors * (1 + cfg->challenges);
}

/* ---- witness storage ---- */

czk_status czk_post_witness_alloc(czk_post_witness **out, const czk_post_config *cfg,
                                  czk_err *err) {
    czk_por_tree t;
    czk_status st = czk_post_config_check(cfg, &t, err);
    if (st) return st;
    size_t S = cfg->sectors, C = cfg->challenges;
    size_t levels = czk_por_tree_levels(&t), nsib = czk_por_tree_siblings(&t);
    size_t head = sizeof(czk_post_witness) + S * sizeof(czk_post_sector);
    size_t per = C * (sizeof(czk_post_path) + 64 + 32 * nsib + 4 * levels) + 8;
    size_t total = ((head + 15) & ~(size_t)15) + S * per;
    czk_post_witness *w = calloc(1, total);
    if (!w) return czk_errf(err, CZK_ERR_NOMEM, "post witness of %zu bytes", total);
    w->config = *cfg;
    w->sectors = (czk_post_sector *)(w + 1);
    uint8_t *p = (uint8_t *)w + ((head + 15) & ~(size_t)15);
    for (size_t i = 0; i < S; i++) {
        czk_post_sector *s = &w->sectors[i];
        s->paths = (czk_post_path *)p; /* 8-aligned: per is a multiple of 4, see below */
        p += C * sizeof(czk_post_path);
        s->leaves = (uint8_t(*)[32])p;
        p += 32 * C;
        s->roots = (uint8_t(*)[32])p;
        p += 32 * C;
        for (size_t j = 0; j < C; j++) {
            s->paths[j].siblings = p;
            p += 32 * nsib;
        }
        for (size_t j = 0; j < C; j++) {
            s->paths[j].positions = (uint32_t *)p;
            p += 4 * levels;
        }
        /* keep the next sector's path array 8-aligned */
        size_t mis = (uintptr_t)p & 7;
        if (mis) p += 8 - mis;
    }
    *out = w;
    return CZK_OK;
}

void czk_post_witness_free(czk_post_witness *w) {
    free(w);
}

/* ---- synthesis ---- */

/* What every sector reads (read-only while sectors run, on several threads in WITNESS). */
typedef struct synth {
    const czk_post_config *cfg;
    const czk_post_witness *w;
    czk_por_tree tree;
} synth;

/* Fr of a witness value (NULL: zero); a value ≥ r fails the cs, naming it. */
static czk_num alloc_value(czk_cs *cs, const synth *s, const uint8_t *bytes, unsigned sector,
                           long ch, const char *what) {
    czk_fr v = czk_fr_zero;
    if (bytes && czk_fr_from_bytes(&v, bytes, NULL)) {
        v = czk_fr_zero;
        uint64_t id = s->w->sectors[sector].sector_id;
        if (ch < 0)
            czk_cs_fail(cs, CZK_ERR_FR_RANGE,
                        "post witness: sector %u (id %llu): %s is not below r", sector,
                        (unsigned long long)id, what);
        else
            czk_cs_fail(cs, CZK_ERR_FR_RANGE,
                        "post witness: sector %u (id %llu): challenge %ld: %s is not below r",
                        sector, (unsigned long long)id, ch, what);
    }
    czk_cs_push_ns(cs, "%s", what);
    czk_num n = czk_num_alloc(cs, &v);
    czk_cs_pop_ns(cs);
    return n;
}

/* Sector::synthesize; sib: room for one path's siblings. */
static czk_status sector(czk_cs *cs, const synth *s, unsigned i, czk_fr *sib) {
    const czk_post_sector *ws = s->w ? &s->w->sectors[i] : NULL;
    czk_num comm_r_last = alloc_value(cs, s, ws ? ws->comm_r_last : NULL, i, -1, "comm_r_last");
    czk_num comm_c = alloc_value(cs, s, ws ? ws->comm_c : NULL, i, -1, "comm_c");
    czk_num comm_r = alloc_value(cs, s, ws ? ws->comm_r : NULL, i, -1, "comm_r");
    czk_cs_push_ns(cs, "comm_r_input");
    czk_num_inputize(cs, &comm_r);
    czk_cs_pop_ns(cs);

    /* H(comm_c || comm_r_last) == comm_r */
    czk_var in[2] = {comm_c.var, comm_r_last.var};
    czk_fr vals[2] = {comm_c.value, comm_r_last.value};
    czk_num h;
    czk_cs_push_ns(cs, "H_comm_c_comm_r_last");
    czk_status st = czk_poseidon_circuit(cs, in, vals, 2, &h.var, &h.value);
    czk_cs_pop_ns(cs);
    if (st) return st;
    czk_cs_push_ns(cs, "enforce_comm_c_comm_r_last_hash_comm_r");
    czk_num_equal(cs, &comm_r, &h);
    czk_cs_pop_ns(cs);

    unsigned nsib = czk_por_tree_siblings(&s->tree);
    for (unsigned j = 0; j < s->cfg->challenges && st == CZK_OK; j++) {
        czk_cs_push_ns(cs, "challenge_inclusion_%u", j);
        czk_cs_push_ns(cs, "value");
        czk_num leaf = alloc_value(cs, s, ws ? ws->leaves[j] : NULL, i, j, "leaf");
        czk_cs_pop_ns(cs);
        czk_por_path path;
        const czk_por_path *pp = NULL;
        if (ws) {
            for (unsigned k = 0; k < nsib; k++)
                if (czk_fr_from_bytes(&sib[k], ws->paths[j].siblings + 32u * k, NULL)) {
                    czk_cs_pop_ns(cs);
                    return czk_cs_fail(cs, CZK_ERR_FR_RANGE,
                                       "post witness: sector %u (id %llu): challenge %u: sibling "
                                       "%u is not below r",
                                       i, (unsigned long long)ws->sector_id, j, k);
                }
            path.positions = ws->paths[j].positions;
            path.siblings = sib;
            pp = &path;
        }
        st = czk_por(cs, &s->tree, &leaf, &comm_r_last, pp, false, NULL);
        czk_cs_pop_ns(cs);
    }
    return st ? st : czk_cs_status(cs);
}

/* A czk_part_fn: sector i in its namespace "sector_<i>". */
static czk_status sector_part(czk_cs *cs, void *ctx, uint64_t i) {
    const synth *s = ctx;
    czk_fr *sib = malloc((czk_por_tree_siblings(&s->tree) + 1) * sizeof *sib);
    if (!sib) return czk_cs_fail(cs, CZK_ERR_NOMEM, "post circuit scratch");
    czk_cs_push_ns(cs, "sector_%u", (unsigned)i);
    czk_status st = sector(cs, s, (unsigned)i, sib);
    czk_cs_pop_ns(cs);
    free(sib);
    return st ? st : czk_cs_status(cs);
}

static bool config_equal(const czk_post_config *a, const czk_post_config *b) {
    return a->nodes == b->nodes && a->base_arity == b->base_arity && a->sub_arity == b->sub_arity &&
           a->top_arity == b->top_arity && a->sectors == b->sectors &&
           a->challenges == b->challenges;
}

/* The checks before the sectors, failing cs as the circuit does. */
static czk_status synth_init(czk_cs *cs, synth *s, const czk_post_config *cfg,
                             const czk_post_witness *w) {
    *s = (synth){.cfg = cfg, .w = w};
    czk_err e;
    if (czk_post_config_check(cfg, &s->tree, &e)) return czk_cs_fail(cs, e.code, "%s", e.msg);
    if (w && !config_equal(&w->config, cfg))
        return czk_cs_fail(cs, CZK_ERR_MISMATCH,
                           "post circuit: the witness was built for another configuration");
    return CZK_OK;
}

czk_status czk_post_synthesize(czk_cs *cs, const czk_post_config *cfg, const czk_post_witness *w) {
    synth s;
    czk_status st = synth_init(cs, &s, cfg, w);
    for (unsigned i = 0; i < cfg->sectors && st == CZK_OK; i++)
        st = sector_part(cs, &s, i);
    return st ? st : czk_cs_status(cs);
}

czk_status czk_post_circuit_fn(czk_cs *cs, void *ctx) {
    const czk_post_circuit *c = ctx;
    return czk_post_synthesize(cs, c->config, c->witness);
}

/* The circuit as parts: the checks (prefix), then the sectors. */
typedef struct parts_ctx {
    synth s;
    const czk_post_config *cfg;
} parts_ctx;

static czk_status parts_prefix(czk_cs *cs, void *ctx) {
    parts_ctx *p = ctx;
    return synth_init(cs, &p->s, p->cfg, p->s.w);
}

static czk_status parts_sector(czk_cs *cs, void *ctx, uint64_t i) {
    return sector_part(cs, &((parts_ctx *)ctx)->s, i);
}

static czk_cs_parts parts_of(parts_ctx *pc, const czk_post_config *cfg, const czk_post_witness *w) {
    *pc = (parts_ctx){.s = {.w = w}, .cfg = cfg};
    return (czk_cs_parts){parts_prefix, parts_sector, cfg->sectors, pc};
}

czk_status czk_post_record(czk_shape **out, const czk_post_config *cfg, czk_pool *pool,
                           const atomic_int *cancel, czk_err *err) {
    czk_status st = czk_post_config_check(cfg, NULL, err);
    if (st) return st;
    parts_ctx pc;
    czk_cs_parts parts = parts_of(&pc, cfg, NULL);
    return czk_cs_record_parts(out, &parts, pool, cancel, err);
}

czk_status czk_post_witness_generate(czk_witness *out, const czk_post_config *cfg,
                                     const czk_post_witness *w, czk_pool *pool,
                                     const atomic_int *cancel, czk_err *err) {
    czk_status st = czk_post_config_check(cfg, NULL, err);
    if (st) return st;
    parts_ctx pc;
    czk_cs_parts parts = parts_of(&pc, cfg, w);
    return czk_cs_witness_parts(out, &parts, pool, cancel, err);
}

czk_status czk_post_witness_generate_into(czk_witness *buf, const czk_post_config *cfg,
                                          const czk_post_witness *w, czk_pool *pool,
                                          const atomic_int *cancel, czk_err *err) {
    czk_status st = czk_post_config_check(cfg, NULL, err);
    if (st) return st;
    parts_ctx pc;
    czk_cs_parts parts = parts_of(&pc, cfg, w);
    return czk_cs_witness_parts_into(buf, &parts, pool, cancel, err);
}

/* ---- counts ---- */

void czk_post_counts_of_shape(czk_post_counts *out, const czk_shape *sh) {
    czk_shape_counts_of(out, sh);
}

czk_status czk_post_count(czk_post_counts *out, const czk_post_config *cfg, czk_err *err) {
    czk_status st = czk_post_config_check(cfg, NULL, err);
    if (st) return st;
    czk_post_counts c[2];
    for (unsigned k = 0; k < 2; k++) {
        czk_post_config one = *cfg;
        one.sectors = k + 1;
        czk_shape *sh = NULL;
        if ((st = czk_post_record(&sh, &one, NULL, NULL, err))) return st;
        czk_shape_counts_of(&c[k], sh);
        czk_shape_free(sh);
    }
    czk_shape_counts_extrapolate(out, &c[0], &c[1], cfg->sectors - 1);
    return CZK_OK;
}
