/*
 * TEMPORARY: minimal czk_c1_create / czk_c1_alloc / czk_c1_free for the
 * test-sector generator until branch `c1` (which owns include/czk/porep_c1.h
 * and implements these with the parser and JSON writer) lands on main.
 * Delete this file when merging `c1`.
 */
#include "czk/porep_c1.h"

#include <stdlib.h>

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} arena_block;

struct czk_arena {
    arena_block *head;
};

void *czk_c1_alloc(czk_c1 *c1, size_t bytes) {
    bytes = (bytes + 15) & ~(size_t)15;
    arena_block *b = c1->arena->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > ((size_t)1 << 20) ? bytes : ((size_t)1 << 20);
        arena_block *nb = calloc(1, sizeof *nb + cap);
        if (!nb) return NULL;
        nb->cap = cap;
        nb->next = b;
        c1->arena->head = b = nb;
    }
    void *p = b->data + b->used;
    b->used += bytes;
    return p;
}

czk_c1 *czk_c1_create(uint32_t registered_proof, uint32_t num_partitions,
                      uint32_t challenges_per_partition, czk_err *err) {
    czk_c1 *c1 = calloc(1, sizeof *c1);
    if (c1) c1->arena = calloc(1, sizeof *c1->arena);
    if (c1 && c1->arena) {
        c1->registered_proof = registered_proof;
        c1->num_partitions = num_partitions;
        c1->challenges_per_partition = challenges_per_partition;
        c1->proofs = czk_c1_alloc(c1, sizeof(czk_vanilla_proof) * (size_t)num_partitions *
                                          challenges_per_partition);
        if (c1->proofs) return c1;
    }
    czk_c1_free(c1);
    czk_errf(err, CZK_ERR_NOMEM, "c1: out of memory");
    return NULL;
}

void czk_c1_free(czk_c1 *c1) {
    if (!c1) return;
    if (c1->arena) {
        for (arena_block *b = c1->arena->head, *n; b; b = n) {
            n = b->next;
            free(b);
        }
        free(c1->arena);
    }
    free(c1);
}

/* ---- TEMPORARY JSON writer (serde_json compact, struct field order) ---- */

#include <stdio.h>
#include <string.h>

typedef struct jbuf {
    char *p;
    size_t n, cap;
    bool oom;
} jbuf;

static void jput(jbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1 << 16;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void js(jbuf *b, const char *s) {
    jput(b, s, strlen(s));
}
static void ju(jbuf *b, unsigned long long v) {
    char t[24];
    jput(b, t, (size_t)snprintf(t, sizeof t, "%llu", v));
}
static void jdom(jbuf *b, const czk_domain *d) {
    char t[32 * 4 + 2];
    size_t n = 0;
    t[n++] = '[';
    for (int i = 0; i < 32; i++) {
        if (i) t[n++] = ',';
        unsigned v = d->b[i];
        if (v >= 100) t[n++] = (char)('0' + v / 100);
        if (v >= 10) t[n++] = (char)('0' + v / 10 % 10);
        t[n++] = (char)('0' + v % 10);
    }
    t[n++] = ']';
    jput(b, t, n);
}
static void jpath(jbuf *b, const czk_merkle_proof *p, uint32_t from, uint32_t count, size_t *s) {
    js(b, "{\"path\":[");
    for (uint32_t l = from; l < from + count; l++) {
        if (l > from) js(b, ",");
        js(b, "{\"hashes\":[");
        for (unsigned k = 0; k + 1u < p->arity[l]; k++) {
            if (k) js(b, ",");
            jdom(b, &p->siblings[(*s)++]);
        }
        js(b, "],\"index\":");
        ju(b, p->index[l]);
        js(b, "}");
    }
    js(b, "]}");
}
static void jmerkle(jbuf *b, const czk_merkle_proof *p) {
    size_t s = 0;
    const uint32_t *c = p->levels_in_part;
    if (p->kind == CZK_MERKLE_SINGLE) {
        js(b, "{\"data\":{\"Single\":{\"root\":");
        jdom(b, &p->root);
        js(b, ",\"leaf\":");
        jdom(b, &p->leaf);
        js(b, ",\"path\":");
        jpath(b, p, 0, c[0], &s);
        js(b, "}}}");
        return;
    }
    js(b, p->kind == CZK_MERKLE_SUB ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                    : "{\"data\":{\"Top\":{\"base_proof\":");
    jpath(b, p, 0, c[0], &s);
    js(b, ",\"sub_proof\":");
    jpath(b, p, c[0], c[1], &s);
    if (p->kind == CZK_MERKLE_TOP) {
        js(b, ",\"top_proof\":");
        jpath(b, p, c[0] + c[1], c[2], &s);
    }
    js(b, ",\"root\":");
    jdom(b, &p->root);
    js(b, ",\"leaf\":");
    jdom(b, &p->leaf);
    js(b, "}}}");
}
static void jcolumn(jbuf *b, const czk_column_proof *c) {
    js(b, "{\"column\":{\"index\":");
    ju(b, c->index);
    js(b, ",\"rows\":[");
    for (uint32_t r = 0; r < c->num_rows; r++) {
        if (r) js(b, ",");
        jdom(b, &c->rows[r]);
    }
    js(b, "],\"_h\":null},\"inclusion_proof\":");
    jmerkle(b, &c->inclusion);
    js(b, "}");
}
static void jlabel(jbuf *b, const czk_labeling_proof *l) {
    js(b, "{\"parents\":[");
    for (uint32_t i = 0; i < l->num_parents; i++) {
        if (i) js(b, ",");
        jdom(b, &l->parents[i]);
    }
    js(b, "],\"layer_index\":");
    ju(b, l->layer_index);
    js(b, ",\"node\":");
    ju(b, l->node);
    js(b, "}");
}

static const char *const SIZE_NAMES[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};

czk_status czk_c1_to_json(const czk_c1 *c1, char **out, size_t *out_len, czk_err *err) {
    if (c1->registered_proof >= 20)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "c1: registered proof %u", c1->registered_proof);
    static const char *const SUFFIX[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                          "V1_2_Feat_NonInteractivePoRep"};
    const char *size = SIZE_NAMES[c1->registered_proof % 5];
    jbuf b = {0};
    js(&b, "{\"registered_proof\":\"StackedDrg");
    js(&b, size);
    js(&b, SUFFIX[c1->registered_proof / 5]);
    js(&b, "\",\"vanilla_proofs\":{\"StackedDrg");
    js(&b, size);
    js(&b, "V1\":[");
    for (uint32_t k = 0; k < c1->num_partitions; k++) {
        if (k) js(&b, ",");
        js(&b, "[");
        for (uint32_t i = 0; i < c1->challenges_per_partition; i++) {
            const czk_vanilla_proof *v = &c1->proofs[(size_t)k * c1->challenges_per_partition + i];
            if (i) js(&b, ",");
            js(&b, "{\"comm_d_proofs\":");
            jmerkle(&b, &v->comm_d_proof);
            js(&b, ",\"comm_r_last_proof\":");
            jmerkle(&b, &v->comm_r_last_proof);
            js(&b, ",\"replica_column_proofs\":{\"c_x\":");
            jcolumn(&b, &v->c_x);
            js(&b, ",\"drg_parents\":[");
            for (int j = 0; j < 6; j++) {
                if (j) js(&b, ",");
                jcolumn(&b, &v->drg_parents[j]);
            }
            js(&b, "],\"exp_parents\":[");
            for (int j = 0; j < 8; j++) {
                if (j) js(&b, ",");
                jcolumn(&b, &v->exp_parents[j]);
            }
            js(&b, "]},\"labeling_proofs\":[");
            for (uint32_t l = 0; l < v->num_labeling; l++) {
                if (l) js(&b, ",");
                jlabel(&b, &v->labeling[l]);
            }
            js(&b, "],\"encoding_proof\":");
            jlabel(&b, &v->encoding);
            js(&b, "}");
        }
        js(&b, "]");
    }
    js(&b, "]},\"comm_r\":");
    jdom(&b, &c1->comm_r);
    js(&b, ",\"comm_d\":");
    jdom(&b, &c1->comm_d);
    js(&b, ",\"replica_id\":");
    jdom(&b, &c1->replica_id);
    js(&b, ",\"seed\":");
    jdom(&b, &c1->seed);
    js(&b, ",\"ticket\":");
    jdom(&b, &c1->ticket);
    js(&b, "}");
    if (b.oom) {
        free(b.p);
        return czk_errf(err, CZK_ERR_NOMEM, "c1 json");
    }
    *out = b.p;
    *out_len = b.n;
    return CZK_OK;
}
