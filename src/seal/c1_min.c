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
