/*
 * 2KiB PoSt inputs for the engine and daemon tests: TEST keys of the
 * WindowPoSt and WinningPoSt circuits under czk's test-key names
 * (czk_post_key_names), and FallbackPoStSectorProof blobs of really sealed
 * test sectors (czk_seal_post_vanilla). Header-only (no cmocka: a tool may
 * include it).
 *
 *   keys    the shape recorded (czk_post_record), czk_test_keys of it
 *           (sector.h; seed 1 WindowPoSt, 2 WinningPoSt), written stamped
 *           as <dir>/<test name>.params and .vk; kept when they are there
 *           (the tests keep them in $CZK_CACHE_DIR/test-keys, beside the
 *           PoRep ones: made once per machine);
 *   blobs   sector `num` of miner 1000 sealed from random data of seed
 *           `num` (StackedDrg2KiBV1_1, ticket 11…), its vanilla proof for
 *           the randomness, API version and sector index asked.
 */
#ifndef CZK_TEST_POST2K_FIXTURE_H
#define CZK_TEST_POST2K_FIXTURE_H

#include "czk/groth16.h"
#include "czk/post.h"
#include "czk/seal.h"
#include "sector.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cache.h"

/* $CZK_CACHE_DIR/test-keys, else $HOME/.cache/czk/test-keys, else /tmp/czk-test-keys. */
static inline void czk_post2k_keys_dir(char *out, size_t cap) {
    if (!czk_cache_dir(out, cap, "test-keys")) snprintf(out, cap, "/tmp/czk-test-keys");
}

/* The WindowPoSt / WinningPoSt configuration of 2KiB sectors. */
static inline void czk_post2k_config(czk_post_config *cfg, czk_post_kind kind) {
    czk_post_config_for(cfg, kind, czk_post_shape_for_size(2048));
}

/*
 * The test keys of `kind`'s 2KiB circuit in dir: kept when its .params and a
 * .vk with this circuit's input count are there, else made (czk_test_keys)
 * and written with a stamp (czk_params_write_stamped: a reader trusts them
 * without the subgroup pass, as keys of czk's own setup). *vk: their
 * verifying key, read back from the .vk (czk_vk_free); made (may be NULL):
 * made now.
 */
CZK_NODISCARD static inline czk_status czk_post2k_keys(czk_vk *vk, bool *made, const char *dir,
                                                       czk_post_kind kind, czk_pool *pool,
                                                       czk_err *err) {
    const czk_post_shape *s = czk_post_shape_for_size(2048);
    char name[CZK_POST_KEY_NAME_MAX], pp[1200], vp[1200];
    czk_post_key_names(kind, s, NULL, name);
    snprintf(pp, sizeof pp, "%s/%s.params", dir, name);
    snprintf(vp, sizeof vp, "%s/%s.vk", dir, name);
    czk_post_config cfg;
    czk_post2k_config(&cfg, kind);
    if (made) *made = false;
    char d[1200];
    snprintf(d, sizeof d, "%s", dir);
    if (!czk_test_mkdirs(d)) return czk_errf(err, CZK_ERR_IO, "cannot make %s", dir);
    if (access(pp, R_OK) == 0 && czk_vk_read(vk, vp, err) == CZK_OK) {
        if (vk->ic_len == czk_post_num_inputs(&cfg)) return CZK_OK;
        czk_vk_free(vk);
    }
    czk_shape *shape = NULL;
    czk_params *p = NULL;
    czk_status st = czk_post_record(&shape, &cfg, NULL, NULL, err);
    if (!st) st = czk_test_keys(&p, shape, kind == CZK_POST_WINNING ? 2 : 1, pool, err);
    czk_shape_free(shape);
    if (!st) st = czk_params_write_stamped(p, pp, NULL, NULL, pool, err);
    if (!st) st = czk_vk_write(&p->vk, vp, err);
    czk_params_free(p);
    if (!st) st = czk_vk_read(vk, vp, err);
    if (!st && made) *made = true;
    return st;
}

/* The bincode vanilla proof of test sector `num` (*blob: free()). */
CZK_NODISCARD static inline czk_status czk_post2k_blob(uint8_t **blob, size_t *len,
                                                       czk_post_kind kind, czk_post_api api,
                                                       const uint8_t randomness[32], uint64_t num,
                                                       uint64_t sector_index, czk_pool *pool,
                                                       czk_err *err) {
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = 5; /* StackedDrg2KiBV1_1 */
    r.miner_id = 1000;
    r.sector_num = num;
    memset(r.ticket, 0x11, 32);
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = num;
    return czk_seal_post_vanilla(blob, len, NULL, &r, kind, api, randomness, sector_index, pool,
                                 err);
}

#endif
