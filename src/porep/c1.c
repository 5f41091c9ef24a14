/*
 * The C1 in memory: its arena, the registered-proof names, the shape check
 * and the JSON writer.
 *
 * A czk_c1 and everything it points to live in one arena: a list of
 * zero-filled chunks (1 MiB, or larger for a larger request) handed out by a
 * bump pointer and released together by czk_c1_free(). A 32GiB C1 is about
 * 10 MB in memory (180 vanilla proofs of ≈ 55 KB), so a dozen chunks.
 *
 * The writer reproduces serde_json::to_vec of filecoin-proofs-api's
 * SealCommitPhase1Output (rust-filecoin-proofs-api src/seal.rs,
 * storage-proofs-porep stacked/vanilla/{params,column,column_proof,
 * labeling_proof,encoding_proof}.rs, storage-proofs-core merkle/proof.rs):
 * compact, fields in declaration order, Vec<u8>/[u8; 32]/Fr reprs as
 * arrays of integers, unit enum variants as strings, Column's PhantomData
 * as null, and the #[serde(skip)] PhantomData fields of PathElement,
 * LabelingProof and EncodingProof absent.
 */
#include "porep/c1_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL_PARENTS 37u /* storage-proofs-porep TOTAL_PARENTS */

/* ---- arena ---- */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
} arena_chunk;

struct czk_arena {
    arena_chunk *head;
};

#define ARENA_CHUNK (1u << 20)

static void *arena_alloc(czk_arena *a, size_t bytes) {
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes == 0) bytes = 16;
    arena_chunk *c = a->head;
    if (!c || c->cap - c->used < bytes) {
        size_t cap = bytes > ARENA_CHUNK ? bytes : ARENA_CHUNK;
        if (cap > SIZE_MAX - sizeof(arena_chunk)) return NULL;
        c = calloc(1, sizeof(arena_chunk) + cap);
        if (!c) return NULL;
        c->cap = cap;
        /* A large one-off request gets its own chunk behind the current one. */
        if (a->head && bytes > ARENA_CHUNK) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    void *p = c->data + c->used;
    c->used += bytes;
    return p;
}

static void arena_destroy(czk_arena *a) {
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

czk_c1 *czk_c1_create(uint32_t registered_proof, uint32_t num_partitions,
                      uint32_t challenges_per_partition, czk_err *err) {
    if (!czk_registered_proof_name(registered_proof)) {
        czk_errf(err, CZK_ERR_INVALID_ARG, "c1: registered proof %u is not 0..19",
                 registered_proof);
        return NULL;
    }
    uint64_t n = (uint64_t)num_partitions * challenges_per_partition;
    if (n > ((uint64_t)1 << 24)) {
        czk_errf(err, CZK_ERR_INVALID_ARG, "c1: %u partitions of %u challenges is too many",
                 num_partitions, challenges_per_partition);
        return NULL;
    }
    czk_arena *a = calloc(1, sizeof *a);
    czk_c1 *c1 = a ? arena_alloc(a, sizeof *c1) : NULL;
    czk_vanilla_proof *proofs = c1 ? arena_alloc(a, n * sizeof *proofs) : NULL;
    if (!proofs) {
        if (a) arena_destroy(a);
        czk_errf(err, CZK_ERR_NOMEM, "c1: out of memory for %llu vanilla proofs",
                 (unsigned long long)n);
        return NULL;
    }
    c1->registered_proof = registered_proof;
    c1->num_partitions = num_partitions;
    c1->challenges_per_partition = challenges_per_partition;
    c1->proofs = proofs;
    c1->arena = a;
    return c1;
}

void *czk_c1_alloc(czk_c1 *c1, size_t bytes) {
    return arena_alloc(c1->arena, bytes);
}

void czk_c1_free(czk_c1 *c1) {
    if (c1) arena_destroy(c1->arena); /* c1 itself lives in the arena */
}

uint64_t czk_merkle_proof_leaf_index(const czk_merkle_proof *p) {
    uint64_t idx = 0, mul = 1;
    uint32_t n = p->num_levels < CZK_MERKLE_MAX_LEVELS ? p->num_levels : CZK_MERKLE_MAX_LEVELS;
    for (uint32_t l = 0; l < n; l++) {
        idx += p->index[l] * mul;
        mul *= p->arity[l];
    }
    return idx;
}

/* ---- names ---- */

static const char *const PROOF_NAMES[20] = {
    "StackedDrg2KiBV1",
    "StackedDrg8MiBV1",
    "StackedDrg512MiBV1",
    "StackedDrg32GiBV1",
    "StackedDrg64GiBV1",
    "StackedDrg2KiBV1_1",
    "StackedDrg8MiBV1_1",
    "StackedDrg512MiBV1_1",
    "StackedDrg32GiBV1_1",
    "StackedDrg64GiBV1_1",
    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
};

const char *const czk_c1_variant_names[CZK_POREP_SHAPE_COUNT] = {
    "StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1",
    "StackedDrg64GiBV1"};

const char *czk_registered_proof_name(uint32_t id) {
    return id < 20 ? PROOF_NAMES[id] : NULL;
}

int czk_registered_proof_from_name(const char *name) {
    for (int i = 0; i < 20; i++)
        if (!strcmp(name, PROOF_NAMES[i])) return i;
    return -1;
}

const char *czk_c1_variant_name(const czk_porep_shape *shape) {
    return czk_c1_variant_names[shape - czk_porep_shapes];
}

/* ---- domains ---- */

/* r, little-endian bytes. */
static const uint8_t FR_MODULUS[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

bool czk_domain_is_canonical(const czk_domain *d) {
    for (int i = 31; i >= 0; i--)
        if (d->b[i] != FR_MODULUS[i]) return d->b[i] < FR_MODULUS[i];
    return false; /* equal to r */
}

bool czk_domain_is_zero(const czk_domain *d) {
    uint8_t acc = 0;
    for (int i = 0; i < 32; i++)
        acc |= d->b[i];
    return acc == 0;
}

/* ---- shape ---- */

czk_merkle_kind czk_c1_tree_levels(const czk_porep_shape *s, uint32_t levels[3]) {
    uint64_t leaves = s->nodes;
    if (s->tree_sub_arity) leaves /= s->tree_sub_arity;
    if (s->tree_top_arity) leaves /= s->tree_top_arity;
    uint32_t base = 0;
    while (leaves > 1) {
        leaves /= s->tree_base_arity;
        base++;
    }
    levels[0] = base;
    levels[1] = s->tree_sub_arity ? 1 : 0;
    levels[2] = s->tree_top_arity ? 1 : 0;
    return s->tree_top_arity   ? CZK_MERKLE_TOP
           : s->tree_sub_arity ? CZK_MERKLE_SUB
                               : CZK_MERKLE_SINGLE;
}

static const char *const KIND_NAMES[3] = {"Single", "Sub", "Top"};
static const char *const PART_NAMES[3] = {"base_proof", "sub_proof", "top_proof"};

void czk_c1_level_path(char *out, size_t cap, const char *prefix, const czk_merkle_proof *p,
                       uint32_t level) {
    unsigned kind = p->kind <= CZK_MERKLE_TOP ? p->kind : 0;
    uint32_t part = 0, j = level;
    while (part < 2 && j >= p->levels_in_part[part]) {
        j -= p->levels_in_part[part];
        part++;
    }
    snprintf(out, cap, "%s.data.%s.%s.path[%u]", prefix, KIND_NAMES[kind],
             kind == CZK_MERKLE_SINGLE ? "path" : PART_NAMES[part], j);
}

void czk_c1_proof_path(char *out, size_t cap, const czk_c1 *c1, uint32_t k, uint32_t i) {
    czk_porep_proof pr;
    const char *v = "?";
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, NULL) == CZK_OK)
        v = czk_c1_variant_name(pr.shape);
    snprintf(out, cap, "vanilla_proofs.%s[%u][%u]", v, k, i);
}

/* One Merkle proof against its tree: kind, levels per part, arity per level. */
static czk_status check_merkle(const czk_merkle_proof *p, const char *prefix, const char *tree,
                               czk_merkle_kind kind, const uint32_t levels[3],
                               const unsigned arity[3], czk_err *err) {
    if (p->kind != kind)
        return czk_errf(err, CZK_ERR_FORMAT, "%s.data: a %s proof, the %s needs %s", prefix,
                        KIND_NAMES[p->kind <= 2 ? p->kind : 0], tree, KIND_NAMES[kind]);
    uint32_t l = 0;
    for (unsigned part = 0; part < 3; part++) {
        if (p->levels_in_part[part] != levels[part]) {
            const char *pn = kind == CZK_MERKLE_SINGLE ? "path" : PART_NAMES[part];
            return czk_errf(err, CZK_ERR_FORMAT, "%s.data.%s.%s.path: %u levels, the %s has %u",
                            prefix, KIND_NAMES[kind], pn, p->levels_in_part[part], tree,
                            levels[part]);
        }
        for (uint32_t j = 0; j < levels[part]; j++, l++) {
            if (p->arity[l] != arity[part]) {
                char lp[400];
                czk_c1_level_path(lp, sizeof lp, prefix, p, l);
                return czk_errf(err, CZK_ERR_FORMAT,
                                "%s.hashes: %u hashes, the %s needs %u (arity %u)", lp,
                                p->arity[l] - 1u, tree, arity[part] - 1, arity[part]);
            }
        }
    }
    return CZK_OK;
}

static czk_status check_domains_count(uint32_t n, uint32_t want, const char *path, const char *what,
                                      czk_err *err) {
    if (n != want)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %u %s, expected %u", path, n, what, want);
    return CZK_OK;
}

czk_status czk_c1_check_shape(const czk_c1 *c1, int variant, czk_err *err) {
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, NULL) != CZK_OK)
        return czk_errf(err, CZK_ERR_FORMAT, "registered_proof: unknown id %u",
                        c1->registered_proof);
    const czk_porep_shape *s = pr.shape;
    const char *rp = PROOF_NAMES[c1->registered_proof];
    if (variant >= 0 && &czk_porep_shapes[variant] != s)
        return czk_errf(err, CZK_ERR_FORMAT, "vanilla_proofs: variant %s does not match %s (%s)",
                        czk_c1_variant_names[variant], rp, czk_c1_variant_name(s));
    if (c1->num_partitions != pr.partitions)
        return czk_errf(err, CZK_ERR_FORMAT, "vanilla_proofs.%s: %u partitions, %s has %u",
                        czk_c1_variant_name(s), c1->num_partitions, rp, pr.partitions);
    if (c1->challenges_per_partition != pr.challenges_per_partition)
        return czk_errf(
            err, CZK_ERR_FORMAT, "vanilla_proofs.%s[0]: %u challenges, %s has %u per partition",
            czk_c1_variant_name(s), c1->challenges_per_partition, rp, pr.challenges_per_partition);
    uint32_t d_levels[3] = {s->log2_nodes, 0, 0}, r_levels[3];
    const unsigned d_arity[3] = {2, 0, 0};
    const unsigned r_arity[3] = {s->tree_base_arity, s->tree_sub_arity, s->tree_top_arity};
    czk_merkle_kind r_kind = czk_c1_tree_levels(s, r_levels);
    char tree_d[64], tree_r[64], tree_c[64];
    snprintf(tree_d, sizeof tree_d, "%s TreeD", s->name);
    snprintf(tree_r, sizeof tree_r, "%s TreeR", s->name);
    snprintf(tree_c, sizeof tree_c, "%s TreeC", s->name);
    char pp[160], fp[300];
    czk_status st;
    for (uint32_t k = 0; k < c1->num_partitions; k++) {
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++) {
            const czk_vanilla_proof *v = &c1->proofs[(size_t)k * c1->challenges_per_partition + i];
            czk_c1_proof_path(pp, sizeof pp, c1, k, i);
            snprintf(fp, sizeof fp, "%s.comm_d_proofs", pp);
            if ((st = check_merkle(&v->comm_d_proof, fp, tree_d, CZK_MERKLE_SINGLE, d_levels,
                                   d_arity, err)))
                return st;
            snprintf(fp, sizeof fp, "%s.comm_r_last_proof", pp);
            if ((st = check_merkle(&v->comm_r_last_proof, fp, tree_r, r_kind, r_levels, r_arity,
                                   err)))
                return st;
            for (unsigned c = 0; c < 15; c++) {
                const czk_column_proof *cp = c == 0   ? &v->c_x
                                             : c <= 6 ? &v->drg_parents[c - 1]
                                                      : &v->exp_parents[c - 7];
                if (c == 0)
                    snprintf(fp, sizeof fp, "%s.replica_column_proofs.c_x", pp);
                else
                    snprintf(fp, sizeof fp, "%s.replica_column_proofs.%s[%u]", pp,
                             c <= 6 ? "drg_parents" : "exp_parents", c <= 6 ? c - 1 : c - 7);
                char rp2[340];
                snprintf(rp2, sizeof rp2, "%s.column.rows", fp);
                if ((st = check_domains_count(cp->num_rows, s->layers, rp2, "rows", err)))
                    return st;
                snprintf(rp2, sizeof rp2, "%s.inclusion_proof", fp);
                if ((st =
                         check_merkle(&cp->inclusion, rp2, tree_c, r_kind, r_levels, r_arity, err)))
                    return st;
            }
            snprintf(fp, sizeof fp, "%s.labeling_proofs", pp);
            if ((st = check_domains_count(v->num_labeling, s->layers, fp, "labeling proofs", err)))
                return st;
            for (uint32_t l = 0; l < v->num_labeling; l++) {
                snprintf(fp, sizeof fp, "%s.labeling_proofs[%u].parents", pp, l);
                if ((st = check_domains_count(v->labeling[l].num_parents, TOTAL_PARENTS, fp,
                                              "parents", err)))
                    return st;
            }
            snprintf(fp, sizeof fp, "%s.encoding_proof.parents", pp);
            if ((st = check_domains_count(v->encoding.num_parents, TOTAL_PARENTS, fp, "parents",
                                          err)))
                return st;
        }
    }
    return CZK_OK;
}

/* ---- writer ---- */

typedef struct jbuf {
    char *p;
    size_t len, cap;
    bool oom;
} jbuf;

/* Makes room for n more bytes; false (and oom set) if that fails. */
static bool jb_reserve(jbuf *b, size_t n) {
    if (b->oom) return false;
    if (b->cap - b->len >= n) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void jb_lit(jbuf *b, const char *s, size_t n) {
    if (!jb_reserve(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}
#define JB(b, s) jb_lit(b, s, sizeof(s) - 1)

static void jb_u64(jbuf *b, uint64_t v) {
    char t[24];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (!jb_reserve(b, (size_t)n)) return;
    while (n)
        b->p[b->len++] = t[--n];
}

static void jb_domain(jbuf *b, const czk_domain *d) {
    if (!jb_reserve(b, 32 * 4 + 2)) return;
    char *o = b->p + b->len;
    *o++ = '[';
    for (int i = 0; i < 32; i++) {
        unsigned v = d->b[i];
        if (v >= 100) {
            *o++ = (char)('0' + v / 100);
            *o++ = (char)('0' + v / 10 % 10);
        } else if (v >= 10) {
            *o++ = (char)('0' + v / 10);
        }
        *o++ = (char)('0' + v % 10);
        *o++ = ',';
    }
    o[-1] = ']';
    b->len = (size_t)(o - b->p);
}

static void jb_domains(jbuf *b, const czk_domain *d, uint32_t n) {
    JB(b, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i) JB(b, ",");
        jb_domain(b, &d[i]);
    }
    JB(b, "]");
}

/* InclusionPath {"path": [PathElement {"hashes", "index"}]} over levels [from, from + n). */
static void jb_ipath(jbuf *b, const czk_merkle_proof *p, uint32_t from, uint32_t n,
                     size_t sib_off) {
    JB(b, "{\"path\":[");
    for (uint32_t l = from; l < from + n; l++) {
        if (l > from) JB(b, ",");
        JB(b, "{\"hashes\":");
        uint32_t h = p->arity[l] ? p->arity[l] - 1u : 0;
        jb_domains(b, p->siblings + sib_off, h);
        sib_off += h;
        JB(b, ",\"index\":");
        jb_u64(b, p->index[l]);
        JB(b, "}");
    }
    JB(b, "]}");
}

static void jb_merkle(jbuf *b, const czk_merkle_proof *p) {
    size_t off[3];
    uint32_t from[3];
    size_t o = 0;
    uint32_t l = 0;
    for (unsigned part = 0; part < 3; part++) {
        off[part] = o;
        from[part] = l;
        for (uint32_t j = 0; j < p->levels_in_part[part]; j++, l++)
            o += p->arity[l] ? p->arity[l] - 1u : 0;
    }
    JB(b, "{\"data\":{");
    if (p->kind == CZK_MERKLE_SINGLE) {
        JB(b, "\"Single\":{\"root\":");
        jb_domain(b, &p->root);
        JB(b, ",\"leaf\":");
        jb_domain(b, &p->leaf);
        JB(b, ",\"path\":");
        jb_ipath(b, p, 0, p->levels_in_part[0], 0);
    } else {
        if (p->kind == CZK_MERKLE_SUB)
            JB(b, "\"Sub\":{\"base_proof\":");
        else
            JB(b, "\"Top\":{\"base_proof\":");
        jb_ipath(b, p, from[0], p->levels_in_part[0], off[0]);
        JB(b, ",\"sub_proof\":");
        jb_ipath(b, p, from[1], p->levels_in_part[1], off[1]);
        if (p->kind == CZK_MERKLE_TOP) {
            JB(b, ",\"top_proof\":");
            jb_ipath(b, p, from[2], p->levels_in_part[2], off[2]);
        }
        JB(b, ",\"root\":");
        jb_domain(b, &p->root);
        JB(b, ",\"leaf\":");
        jb_domain(b, &p->leaf);
    }
    JB(b, "}}}");
}

static void jb_column_proof(jbuf *b, const czk_column_proof *c) {
    JB(b, "{\"column\":{\"index\":");
    jb_u64(b, c->index);
    JB(b, ",\"rows\":");
    jb_domains(b, c->rows, c->num_rows);
    JB(b, ",\"_h\":null},\"inclusion_proof\":");
    jb_merkle(b, &c->inclusion);
    JB(b, "}");
}

static void jb_labeling(jbuf *b, const czk_labeling_proof *l) {
    JB(b, "{\"parents\":");
    jb_domains(b, l->parents, l->num_parents);
    JB(b, ",\"layer_index\":");
    jb_u64(b, l->layer_index);
    JB(b, ",\"node\":");
    jb_u64(b, l->node);
    JB(b, "}");
}

static void jb_proof(jbuf *b, const czk_vanilla_proof *v) {
    JB(b, "{\"comm_d_proofs\":");
    jb_merkle(b, &v->comm_d_proof);
    JB(b, ",\"comm_r_last_proof\":");
    jb_merkle(b, &v->comm_r_last_proof);
    JB(b, ",\"replica_column_proofs\":{\"c_x\":");
    jb_column_proof(b, &v->c_x);
    JB(b, ",\"drg_parents\":[");
    for (int i = 0; i < 6; i++) {
        if (i) JB(b, ",");
        jb_column_proof(b, &v->drg_parents[i]);
    }
    JB(b, "],\"exp_parents\":[");
    for (int i = 0; i < 8; i++) {
        if (i) JB(b, ",");
        jb_column_proof(b, &v->exp_parents[i]);
    }
    JB(b, "]},\"labeling_proofs\":[");
    for (uint32_t i = 0; i < v->num_labeling; i++) {
        if (i) JB(b, ",");
        jb_labeling(b, &v->labeling[i]);
    }
    JB(b, "],\"encoding_proof\":");
    jb_labeling(b, &v->encoding);
    JB(b, "}");
}

/* Checks what the writer relies on: the flattened paths are self-consistent. */
static czk_status check_writable(const czk_c1 *c1, czk_err *err) {
    for (size_t n = 0; n < (size_t)c1->num_partitions * c1->challenges_per_partition; n++) {
        const czk_vanilla_proof *v = &c1->proofs[n];
        const czk_merkle_proof *m[17] = {&v->comm_d_proof, &v->comm_r_last_proof,
                                         &v->c_x.inclusion};
        for (int i = 0; i < 6; i++)
            m[3 + i] = &v->drg_parents[i].inclusion;
        for (int i = 0; i < 8; i++)
            m[9 + i] = &v->exp_parents[i].inclusion;
        for (int i = 0; i < 17; i++) {
            const czk_merkle_proof *p = m[i];
            if (p->kind > CZK_MERKLE_TOP || p->num_levels > CZK_MERKLE_MAX_LEVELS ||
                (uint64_t)p->levels_in_part[0] + p->levels_in_part[1] + p->levels_in_part[2] !=
                    p->num_levels ||
                (p->kind == CZK_MERKLE_SINGLE && p->num_levels != p->levels_in_part[0]) ||
                (p->kind == CZK_MERKLE_SUB && p->levels_in_part[2] != 0))
                return czk_errf(err, CZK_ERR_INVALID_ARG,
                                "c1 to json: proof %zu, merkle proof %d: inconsistent levels", n,
                                i);
            for (uint32_t l = 0; l < p->num_levels; l++)
                if (p->arity[l] < 1 || p->arity[l] > CZK_MERKLE_MAX_ARITY ||
                    (p->arity[l] > 1 && !p->siblings))
                    return czk_errf(err, CZK_ERR_INVALID_ARG,
                                    "c1 to json: proof %zu, merkle proof %d: level %u arity %u", n,
                                    i, l, p->arity[l]);
        }
        if (v->num_labeling && !v->labeling)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "c1 to json: proof %zu: no labeling proofs",
                            n);
    }
    return CZK_OK;
}

czk_status czk_c1_to_json(const czk_c1 *c1, char **out, size_t *out_len, czk_err *err) {
    const char *name = czk_registered_proof_name(c1->registered_proof);
    czk_porep_proof pr;
    if (!name || czk_porep_proof_lookup(c1->registered_proof, &pr, NULL) != CZK_OK)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "c1 to json: registered proof %u unknown",
                        c1->registered_proof);
    czk_status st = check_writable(c1, err);
    if (st) return st;
    jbuf b = {0};
    JB(&b, "{\"registered_proof\":\"");
    jb_lit(&b, name, strlen(name));
    JB(&b, "\",\"vanilla_proofs\":{\"");
    const char *variant = czk_c1_variant_name(pr.shape);
    jb_lit(&b, variant, strlen(variant));
    JB(&b, "\":[");
    for (uint32_t k = 0; k < c1->num_partitions; k++) {
        if (k) JB(&b, ",");
        JB(&b, "[");
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++) {
            if (i) JB(&b, ",");
            jb_proof(&b, &c1->proofs[(size_t)k * c1->challenges_per_partition + i]);
        }
        JB(&b, "]");
    }
    JB(&b, "]},\"comm_r\":");
    jb_domain(&b, &c1->comm_r);
    JB(&b, ",\"comm_d\":");
    jb_domain(&b, &c1->comm_d);
    JB(&b, ",\"replica_id\":");
    jb_domain(&b, &c1->replica_id);
    JB(&b, ",\"seed\":");
    jb_domain(&b, &c1->seed);
    JB(&b, ",\"ticket\":");
    jb_domain(&b, &c1->ticket);
    JB(&b, "}");
    if (jb_reserve(&b, 1)) b.p[b.len] = 0; /* a NUL after the text, not counted */
    if (b.oom) {
        free(b.p);
        return czk_errf(err, CZK_ERR_NOMEM, "c1 to json: out of memory after %zu bytes", b.len);
    }
    *out = b.p;
    *out_len = b.len;
    return CZK_OK;
}
