/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 900 */
/* CZK_TEST_FIXTURES_SETUP: post_2kib_inputs */
/*
 * Fixture of the daemon's PoSt tests with a client czk did not write
 * (rpc.python_client): 2KiB WindowPoSt and WinningPoSt test keys in
 * $CZK_CACHE_DIR/test-keys under czk's test-key names (post2k_fixture.h:
 * made once, kept), and beside them, in post-2KiB-inputs/, the vanilla
 * proofs of three requests as Curio would send them, with manifest.json
 * naming each request's fields and blob files:
 *   window-v1    WindowPoSt V1 (registered proof 5), partition 1, sectors 7 and 9;
 *   window-v1_2  WindowPoSt V1_2 (10), partition 3, sector 11;
 *   winning      WinningPoSt (0), sector 7.
 * The test checks that every blob parses against the 2KiB tree and every
 * partition passes the vanilla pre-check.
 *
 * Run as `test_rpc_post_inputs verify NAME PROOF_FILE`, it is the client's
 * verifier: the 192 bytes in PROOF_FILE checked against the test .vk with
 * the public inputs of request NAME (czk_post_public_inputs from its
 * blobs, randomness and partition index); exit 0 when they verify, 1 when
 * not, 2 on a usage or input error.
 */
#include "post2k_fixture.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t RND_HEX[] = "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100";

typedef struct req {
    const char *name;
    czk_post_kind kind;
    uint64_t registered_proof;
    uint32_t k;
    unsigned n;
    uint64_t sectors[2];
} req;

static const req REQS[] = {
    {"window-v1", CZK_POST_WINDOW, 5, 1, 2, {7, 9}},
    {"window-v1_2", CZK_POST_WINDOW, 10, 3, 1, {11, 0}},
    {"winning", CZK_POST_WINNING, 0, 0, 1, {7, 0}},
};
#define NREQS (sizeof REQS / sizeof REQS[0])

static void dirs(char keys[600], char inputs[700]) {
    czk_post2k_keys_dir(keys, 600);
    snprintf(inputs, 700, "%s/post-2KiB-inputs", keys);
}

static void blob_path(char *out, size_t cap, const char *inputs, const req *r, unsigned i) {
    snprintf(out, cap, "%s/%s-%llu.vproof", inputs, r->name, (unsigned long long)r->sectors[i]);
}

static void randomness(uint8_t rnd[32]) {
    for (int i = 0; i < 32; i++) {
        unsigned v;
        sscanf((const char *)RND_HEX + 2 * i, "%2x", &v);
        rnd[i] = (uint8_t)v;
    }
}

/* The parsed blobs of a request from inputs/ (NULL entries on a read or parse failure). */
static czk_status read_blobs(czk_post_vanilla **v, const char *inputs, const req *r, czk_err *err) {
    czk_post_config cfg;
    czk_post2k_config(&cfg, r->kind);
    czk_por_tree t;
    czk_status st = czk_post_config_check(&cfg, &t, err);
    for (unsigned i = 0; !st && i < r->n; i++) {
        char p[800];
        blob_path(p, sizeof p, inputs, r, i);
        size_t len = 0;
        char *b = czk_test_slurp(p, &len);
        if (!b) return czk_errf(err, CZK_ERR_IO, "cannot read %s", p);
        st = czk_post_vanilla_parse(&v[i], (const uint8_t *)b, len, &t, 0, err);
        free(b);
    }
    return st;
}

/* `verify NAME PROOF`: 0 verified, 1 not, 2 usage or input error. */
static int verify_main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s verify NAME PROOF_FILE\n", argv[0]);
        return 2;
    }
    const req *r = NULL;
    for (size_t i = 0; i < NREQS; i++)
        if (!strcmp(REQS[i].name, argv[2])) r = &REQS[i];
    if (!r) {
        fprintf(stderr, "verify: no request %s\n", argv[2]);
        return 2;
    }
    char keys[600], inputs[700], vkp[900], name[CZK_POST_KEY_NAME_MAX];
    dirs(keys, inputs);
    czk_post_key_names(r->kind, czk_post_shape_for_size(2048), NULL, name);
    snprintf(vkp, sizeof vkp, "%s/%s.vk", keys, name);
    czk_err err;
    czk_vk vk;
    czk_post_vanilla *v[2] = {NULL, NULL};
    size_t plen = 0;
    char *pb = czk_test_slurp(argv[3], &plen);
    if (!pb || plen != CZK_PROOF_BYTES || czk_vk_read(&vk, vkp, &err) ||
        read_blobs(v, inputs, r, &err)) {
        fprintf(stderr, "verify: %s\n",
                !pb                       ? "cannot read the proof"
                : plen != CZK_PROOF_BYTES ? "the proof is not 192 bytes"
                                          : err.msg);
        return 2;
    }
    czk_post_config cfg;
    czk_post2k_config(&cfg, r->kind);
    czk_post_proof pp;
    uint8_t rnd[32];
    randomness(rnd);
    czk_post_pub_sector pub[CZK_POST_WINNING_CHALLENGES];
    for (unsigned i = 0; i < r->n; i++) {
        pub[i].sector_id = v[i]->sector_id;
        memcpy(pub[i].comm_r, v[i]->comm_r, 32);
        czk_post_vanilla_free(v[i]);
    }
    size_t np = r->n;
    if (r->kind == CZK_POST_WINNING) {
        czk_post_winning_sectors(pub, &pub[0]);
        np = CZK_POST_WINNING_CHALLENGES;
    }
    size_t ni = czk_post_num_inputs(&cfg) - 1;
    czk_fr *in = malloc(ni * sizeof *in);
    czk_pvk pvk;
    czk_proof proof;
    czk_status st = !in ? czk_errf(&err, CZK_ERR_NOMEM, "out of memory")
                        : czk_post_proof_lookup(r->registered_proof, &pp, &err);
    if (!st) st = czk_post_public_inputs(in, &cfg, pp.api, rnd, pub, np, r->k, &err);
    if (!st) st = czk_pvk_prepare(&pvk, &vk, &err);
    int rc = st ? 2 : 0;
    if (!st) { /* a proof that does not decode or does not verify: not verified */
        if ((st = czk_proof_decode(&proof, (const uint8_t *)pb, &err)) == CZK_OK)
            st = czk_verify(&pvk, &proof, in, ni, &err);
        if (st) rc = 1;
        czk_pvk_free(&pvk);
    }
    free(in);
    free(pb);
    czk_vk_free(&vk);
    printf("%s: %s\n", r->name, st ? err.msg : "verified");
    return rc;
}

static void test_inputs(void **state) {
    (void)state;
    char keys[600], inputs[700];
    dirs(keys, inputs);
    czk_err err;
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    for (int kind = CZK_POST_WINNING; kind <= CZK_POST_WINDOW; kind++) {
        czk_vk vk;
        bool made = false;
        czk_assert_ok(czk_post2k_keys(&vk, &made, keys, (czk_post_kind)kind, pool, &err), &err);
        fprintf(stderr, "%s keys %s in %s\n",
                kind == CZK_POST_WINNING ? "WinningPoSt" : "WindowPoSt", made ? "made" : "kept",
                keys);
        czk_vk_free(&vk);
    }
    assert_true(czk_test_mkdirs(inputs));
    uint8_t rnd[32];
    randomness(rnd);
    char mp[800];
    snprintf(mp, sizeof mp, "%s/manifest.json", inputs);
    char json[4096];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"randomness\": \"%s\", \"requests\": [",
                                (const char *)RND_HEX);
    for (size_t q = 0; q < NREQS; q++) {
        const req *r = &REQS[q];
        czk_post_proof pp;
        czk_assert_ok(czk_post_proof_lookup(r->registered_proof, &pp, &err), &err);
        n +=
            (size_t)snprintf(json + n, sizeof json - n,
                             "%s{\"name\": \"%s\", \"proof_kind\": %d, \"registered_proof\": %llu, "
                             "\"partition_index\": %u, \"sector_size\": 2048, \"blobs\": [",
                             q ? ", " : "", r->name, r->kind == CZK_POST_WINNING ? 4 : 3,
                             (unsigned long long)r->registered_proof, r->k);
        for (unsigned i = 0; i < r->n; i++) {
            uint8_t *b = NULL;
            size_t len = 0;
            uint64_t index = r->kind == CZK_POST_WINDOW ? (uint64_t)r->k * 2 + i : 0;
            czk_assert_ok(
                czk_post2k_blob(&b, &len, r->kind, pp.api, rnd, r->sectors[i], index, pool, &err),
                &err);
            char p[800];
            blob_path(p, sizeof p, inputs, r, i);
            czk_test_write(p, b, len);
            free(b);
            n += (size_t)snprintf(json + n, sizeof json - n, "%s\"%s\"", i ? ", " : "",
                                  strrchr(p, '/') + 1);
        }
        n += (size_t)snprintf(json + n, sizeof json - n, "]}");
        /* as the daemon will see them: parsed against the tree, the partition pre-checked */
        czk_post_vanilla *v[2] = {NULL, NULL};
        czk_assert_ok(read_blobs(v, inputs, r, &err), &err);
        czk_post_config cfg;
        czk_post2k_config(&cfg, r->kind);
        czk_assert_ok(czk_post_precheck((const czk_post_vanilla *const *)v, r->n, &cfg, r->kind,
                                        pp.api, rnd, r->k, NULL, &err),
                      &err);
        for (unsigned i = 0; i < r->n; i++)
            czk_post_vanilla_free(v[i]);
    }
    n += (size_t)snprintf(json + n, sizeof json - n, "]}\n");
    assert_true(n < sizeof json);
    czk_test_write(mp, json, n);
    czk_pool_destroy(pool);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "verify")) return verify_main(argc, argv);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inputs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
