/*
 * Test sectors and test keys for tests and benchmarks (no cmocka: bench/
 * includes it too). Header-only.
 *
 *   czk_test_seal   a sector sealed by czk_seal_generate and its C1. The
 *                   default sector (NULL) is the one of scripts/demo.sh
 *                   and the benchmarks: StackedDrg2KiBV1_1 (id 5), miner
 *                   1000, sector 1, ticket 01…, seed 01…, random data of
 *                   seed 1. A czk_test_sector names its registered proof
 *                   (0 is StackedDrg2KiBV1) and the other fields it wants
 *                   changed; the fields left 0 keep those defaults.
 *   czk_test_keys   Groth16 TEST keys of a shape: czk_setup from the toxic
 *                   waste of czk_rng seed `seed`, the same keys for the
 *                   same shape and seed (`czk setup --seed` makes these).
 *   czk_test_lagrange  their Lagrange form from the same toxic waste
 *                   (`czk setup --seed --lagrange` makes it).
 *   czk_test_mkdirs mkdir -p (where fixtures keep keys).
 *
 * Builders kept apart on purpose: tests/porep/c1_sector.h seals from first
 * principles without src/seal (its independence is what the pre-check and
 * parser tests check against); tests/seal/ tests czk_seal_generate itself
 * and fills its requests by hand.
 */
#ifndef CZK_TEST_SECTOR_H
#define CZK_TEST_SECTOR_H

#include "czk/groth16.h"
#include "czk/porep_c1.h"
#include "czk/seal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

typedef struct czk_test_sector {
    uint64_t registered_proof; /* as given (0: StackedDrg2KiBV1) */
    uint64_t miner_id;         /* 0: 1000 */
    uint64_t sector_num;       /* 0: 1 */
    uint8_t ticket, seed;      /* every byte of the ticket / seed; 0: 1 */
    uint64_t data_seed;        /* random data of this seed; 0: 1 */
    bool sparse;               /* czk_seal_request.sparse */
} czk_test_sector;

/* The czk_seal_request of s (NULL: the default sector). */
static inline void czk_test_seal_request(czk_seal_request *r, const czk_test_sector *s) {
    static const czk_test_sector demo = {.registered_proof = 5}; /* StackedDrg2KiBV1_1 */
    if (!s) s = &demo;
    memset(r, 0, sizeof *r);
    r->registered_proof = s->registered_proof;
    r->miner_id = s->miner_id ? s->miner_id : 1000;
    r->sector_num = s->sector_num ? s->sector_num : 1;
    memset(r->ticket, s->ticket ? s->ticket : 1, 32);
    memset(r->seed, s->seed ? s->seed : 1, 32);
    r->data_kind = CZK_SEAL_DATA_RANDOM;
    r->random_seed = s->data_seed ? s->data_seed : 1;
    r->sparse = s->sparse;
}

/* Seals s (NULL: the default sector) into *out (czk_c1_free). */
CZK_NODISCARD static inline czk_status czk_test_seal(czk_c1 **out, const czk_test_sector *s,
                                                     czk_pool *pool, czk_err *err) {
    czk_seal_request r;
    czk_test_seal_request(&r, s);
    return czk_seal_generate(out, NULL, &r, pool, err);
}

/* TEST keys of shape from the toxic waste of czk_rng seed `seed` into *out (czk_params_free). */
CZK_NODISCARD static inline czk_status czk_test_keys(czk_params **out, const czk_shape *shape,
                                                     uint64_t seed, czk_pool *pool, czk_err *err) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic toxic;
    czk_status st = czk_toxic_random(&toxic, &rng, err);
    return st ? st : czk_setup(out, shape, &toxic, pool, err);
}

/* The Lagrange form of czk_test_keys(…, seed, …)'s keys (the same toxic waste) on the CPU setup
 * backend, into *out (czk_params_lagrange_free). */
CZK_NODISCARD static inline czk_status czk_test_lagrange(czk_params_lagrange **out,
                                                         const czk_shape *shape, uint64_t seed,
                                                         czk_pool *pool, czk_err *err) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic toxic;
    czk_setup_backend sb;
    czk_status st = czk_toxic_random(&toxic, &rng, err);
    if (!st) st = czk_setup_backend_cpu(&sb, pool, err);
    if (st) return st;
    st = czk_setup_lagrange(out, shape, &toxic, &sb, pool, err);
    czk_setup_backend_release(&sb);
    return st;
}

/* mkdir -p of a path (modified in place and restored); false on failure. */
static inline bool czk_test_mkdirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        bool ok = !mkdir(path, 0755) || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return !mkdir(path, 0755) || errno == EEXIST;
}

#endif
