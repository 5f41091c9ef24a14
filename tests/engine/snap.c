/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * The SnapDeals kind (src/kinds/snap.c) through the engine's intake, on a
 * sparse 8MiB update (4 partitions; czk_seal_snap_vanilla) and a really
 * sealed 2KiB one; no proof is made here (snap.prove and rpc.python_client
 * prove 2KiB updates with the snap_2kib_keys fixture):
 *   - a good 8MiB request is accepted as one job of 4 partitions, circuit
 *     snap-8m, default priority NORMAL, kind "snap-update"; with no 8MiB
 *     keys on the key search path it FAILS naming both key names looked for
 *     (Filecoin's v28 empty-sector-update file with the parameter id of
 *     parameters.json, and czk's test-key name);
 *   - refused at submit, the job FAILED and counted, the message naming
 *     what is wrong: partition 2 tampered (one TreeR sibling of its last
 *     challenge: partition 2 and challenge 9 named), partitions 1 and 3
 *     tampered (partition 1, the first, named), the partitions out of order,
 *     the comm_r_new of another update, a missing or non-canonical
 *     commitment, a registered update proof that does not exist, a sector
 *     size that differs, blob counts other than the size's partitions, the
 *     blobs in vanilla_proof, a truncated blob (named by its partition);
 *   - the status names the kind with cuzk's metric label snap_update and
 *     counts its failures; circuit ids snap-2k ... snap-64g (cuzk's
 *     snap-32g, snap-64g).
 */
#include "etest.h"

#include "czk/seal.h"
#include "czk/snap.h"

static czk_pool *g_pool;
static czk_engine *g_e;
static czk_seal_snap g_u, g_u2; /* two updates of one sparse 8MiB sector key */

static void update(czk_seal_snap *u, uint64_t seed, uint64_t sector_size, bool sparse) {
    czk_porep_proof pr;
    czk_err err;
    czk_seal_snap_request r;
    memset(&r, 0, sizeof r);
    const czk_porep_shape *ps = czk_porep_shape_for_size(sector_size);
    assert_non_null(ps);
    r.sector.registered_proof = ps->proof_ids[1];
    czk_assert_ok(czk_porep_proof_lookup(r.sector.registered_proof, &pr, &err), &err);
    r.sector.miner_id = 1000;
    r.sector.sector_num = 12;
    memset(r.sector.ticket, 0x5a, 32);
    r.sector.sparse = sparse;
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = seed;
    czk_assert_ok(czk_seal_snap_vanilla(u, &r, g_pool, &err), &err);
}

static int group_setup(void **state) {
    (void)state;
    czk_err err;
    g_pool = czk_pool_create(2, &err);
    if (!g_pool) return -1;
    update(&g_u, 1, 8ull << 20, true);
    update(&g_u2, 2, 8ull << 20, true);
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    g_e = et_start(&o);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_engine_destroy(g_e);
    czk_seal_snap_free(&g_u);
    czk_seal_snap_free(&g_u2);
    czk_pool_destroy(g_pool);
    return 0;
}

/* The request Curio's ProveUpdateCuzk sends for update u (registered update proof id). */
static void request(czk_proof_request *r, const czk_seal_snap *u, uint64_t id,
                    uint64_t sector_size) {
    memset(r, 0, sizeof *r);
    r->kind = CZK_KIND_SNAP_UPDATE;
    r->sector_size = sector_size;
    r->registered_proof = id;
    r->sector_number = 12;
    r->miner_id = 1000;
    memcpy(r->comm_r_old, u->comm_r_old, 32);
    memcpy(r->comm_d_new, u->comm_d_new, 32);
    memcpy(r->comm_r_new, u->comm_r_new, 32);
    r->vanilla_proofs = (const uint8_t *const *)u->blobs;
    r->vanilla_proofs_len = u->lens;
    r->num_vanilla_proofs = u->partitions;
}

/* A refused request: its status, and every string of `want` (NULL-ended) in the message. */
static void refused(const czk_proof_request *r, czk_status code, const char *const *want) {
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_engine_submit(g_e, r, id, NULL, &err);
    if (st != code)
        fail_msg("expected %s, got %s: %s", czk_status_name(code), czk_status_name(st), err.msg);
    assert_string_equal(id, "");
    for (; *want; want++)
        if (!strstr(err.msg, *want)) fail_msg("'%s' not in: %s", *want, err.msg);
}

/* A copy of blob k with the low byte of its last challenge's proof_r_new's first sibling
 * changed (still a canonical Fr): the 8MiB layout ends with that TreeR proof, a Single one of
 * tag, root, leaf and 6 path elements of 7 hashes and an index (spec post-snap.md §3). */
static uint8_t *tampered(const czk_seal_snap *u, unsigned k) {
    uint8_t *t = malloc(u->lens[k]);
    assert_non_null(t);
    memcpy(t, u->blobs[k], u->lens[k]);
    size_t tree_r = 4 + 32 + 32 + 8 + 6 * (8 + 7 * 32 + 8);
    t[u->lens[k] - tree_r + 4 + 32 + 32 + 8 + 8] ^= 1;
    return t;
}

static void test_accepted(void **state) {
    (void)state;
    czk_proof_request r;
    request(&r, &g_u, 1, 8ull << 20);
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_assert_ok(czk_engine_submit(g_e, &r, id, NULL, &err), &err);
    czk_job_info info;
    czk_assert_ok(czk_engine_job_info(g_e, id, &info, &err), &err);
    assert_int_equal(info.kind, CZK_KIND_SNAP_UPDATE);
    assert_int_equal(info.priority, CZK_PRIORITY_NORMAL);
    assert_int_equal(info.partitions, 4);
    assert_string_equal(info.circuit_id, "snap-8m");
    czk_job_result res = et_await(g_e, id);
    assert_int_equal(res.state, CZK_JOB_FAILED);
    if (!strstr(res.error, "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                           "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params") ||
        !strstr(res.error, "czk-test-v28-empty-sector-update-8-0-0-8MiB.params") ||
        !strstr(res.error, "SnapDeals of 8MiB sectors"))
        fail_msg("the key lookup's message: %s", res.error);
    czk_job_result_free(&res);
}

static void test_refused(void **state) {
    (void)state;
    czk_engine_status *s0 = et_status(g_e);
    uint64_t failed0 = s0->proofs_failed, refused0 = s0->proofs_refused;
    czk_engine_status_free(s0);
    czk_proof_request r;
    unsigned nref = 0;
    const uint8_t *b[16];
    size_t len[16];

    /* partition 2 tampered; then 1 and 3: the first in order is named */
    request(&r, &g_u, 1, 0);
    memcpy(b, g_u.blobs, 4 * sizeof *b);
    uint8_t *t2 = tampered(&g_u, 2), *t1 = tampered(&g_u, 1), *t3 = tampered(&g_u, 3);
    b[2] = t2;
    r.vanilla_proofs = b;
    refused(&r, CZK_ERR_VERIFY,
            (const char *const[]){"snap-update", "SnapDeals partition 2 does not verify",
                                  "challenge 9", "proof_r_new", NULL});
    b[2] = g_u.blobs[2];
    b[1] = t1;
    b[3] = t3;
    refused(&r, CZK_ERR_VERIFY,
            (const char *const[]){"SnapDeals partition 1 does not verify", "challenge 9", NULL});
    free(t1);
    free(t2);
    free(t3);
    /* partitions 0 and 1 swapped: partition 0's blob is another partition's */
    memcpy(b, g_u.blobs, 4 * sizeof *b);
    memcpy(len, g_u.lens, 4 * sizeof *len);
    b[0] = g_u.blobs[1], b[1] = g_u.blobs[0];
    len[0] = g_u.lens[1], len[1] = g_u.lens[0];
    r.vanilla_proofs = b;
    r.vanilla_proofs_len = len;
    refused(&r, CZK_ERR_VERIFY, (const char *const[]){"SnapDeals partition 0", NULL});
    nref += 3;

    /* the commitments: another update's comm_r_new, missing, not canonical */
    request(&r, &g_u, 1, 0);
    memcpy(r.comm_r_new, g_u2.comm_r_new, 32);
    refused(&r, CZK_ERR_VERIFY, (const char *const[]){"SnapDeals partition 0 does not verify", NULL});
    request(&r, &g_u, 1, 0);
    memset(r.comm_d_new, 0, 32);
    refused(&r, CZK_ERR_INVALID_ARG, (const char *const[]){"comm_d_new is missing", NULL});
    request(&r, &g_u, 1, 0);
    memset(r.comm_r_old, 0xff, 32);
    refused(&r, CZK_ERR_FR_RANGE, (const char *const[]){"comm_r_old", NULL});
    nref += 3;

    /* the registered proof and the sector size */
    request(&r, &g_u, 7, 0);
    refused(&r, CZK_ERR_UNSUPPORTED,
            (const char *const[]){"registered_proof", "registered update proof 7", NULL});
    request(&r, &g_u, 1, 2048);
    refused(&r, CZK_ERR_INVALID_ARG,
            (const char *const[]){"sector size 2048", "registered_proof 1", "8MiB", NULL});
    request(&r, &g_u, 0, 0); /* 2KiB: one partition, 4 blobs */
    refused(&r, CZK_ERR_FORMAT, (const char *const[]){"4 blobs", "2KiB update takes 1", NULL});
    nref += 3;

    /* blob counts, the blobs in vanilla_proof, a truncated blob */
    request(&r, &g_u, 1, 0);
    r.num_vanilla_proofs = 3;
    refused(&r, CZK_ERR_FORMAT, (const char *const[]){"3 blobs", "8MiB update takes 4", NULL});
    request(&r, &g_u, 1, 0);
    r.num_vanilla_proofs = 0;
    r.vanilla_proof = g_u.blobs[0];
    r.vanilla_proof_len = g_u.lens[0];
    refused(&r, CZK_ERR_FORMAT,
            (const char *const[]){"0 blobs", "SnapDeals blobs go in vanilla_proofs", NULL});
    request(&r, &g_u, 1, 0);
    memcpy(len, g_u.lens, 4 * sizeof *len);
    len[3] -= 10;
    r.vanilla_proofs_len = len;
    refused(&r, CZK_ERR_FORMAT,
            (const char *const[]){"SnapDeals partition 3: challenge 9: proof_r_new", NULL});
    nref += 3;

    czk_engine_status *s = et_status(g_e);
    assert_int_equal(s->proofs_failed - failed0, nref);
    assert_int_equal(s->proofs_refused - refused0, nref); /* all at intake */
    czk_engine_status_free(s);
}

/* Runs last: the kind in the status, its counters; circuit ids. */
static void test_status(void **state) {
    (void)state;
    czk_engine_status *s = et_status(g_e);
    const czk_engine_kind_counters *k = NULL;
    for (size_t i = 0; i < s->num_kinds; i++)
        if (s->kinds[i].kind == CZK_KIND_SNAP_UPDATE) k = &s->kinds[i];
    assert_non_null(k);
    assert_string_equal(k->name, "snap-update");
    assert_string_equal(k->metric_label, "snap_update");
    assert_int_equal(k->completed, 0);
    assert_int_equal(k->failed, 1 + 12); /* test_accepted's (no keys) and test_refused's */
    czk_engine_status_free(s);
    char id[CZK_CIRCUIT_ID_MAX];
    czk_err err;
    static const struct {
        uint64_t size;
        const char *id;
    } IDS[] = {{2048, "snap-2k"},
               {8ull << 20, "snap-8m"},
               {512ull << 20, "snap-512m"},
               {32ull << 30, "snap-32g"},
               {64ull << 30, "snap-64g"}};
    for (size_t i = 0; i < sizeof IDS / sizeof IDS[0]; i++) {
        czk_assert_ok(czk_kind_circuit_id(id, CZK_KIND_SNAP_UPDATE, IDS[i].size, &err), &err);
        assert_string_equal(id, IDS[i].id);
    }
    assert_int_equal(czk_kind_circuit_id(id, CZK_KIND_SNAP_UPDATE, 1024, &err),
                     CZK_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_status),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
