/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * The PoSt kinds through the engine (CPU pseudo-device), at 2KiB with test
 * keys in param_cache under czk's test-key names (post2k_fixture.h: made
 * once in $CZK_CACHE_DIR/test-keys) and vanilla proofs of really sealed
 * sectors:
 *   - WindowPoSt V1 (registered proof 5), partition 1 with two sectors, and
 *     V1_2 (id 10), partition 3 with one sector; WinningPoSt (id 0): each
 *     COMPLETED with 192 bytes that verify, here, against the VK the test
 *     made, with public inputs from czk_post_public_inputs for the request's
 *     partition index and API version (and do not verify for another index
 *     or version): the engine built the circuit from the sectors sent and
 *     used k only in the challenges;
 *   - default priorities (HIGH, CRITICAL), names, metric labels, circuit ids
 *     (wpost-2k, winning-2k), the status's per-kind counters and the
 *     Prometheus label;
 *   - refused at submit, the job FAILED and counted: one sector's vanilla
 *     proof tampered (the message names that sector id), an unmasked
 *     randomness, a registered proof of the other kind (both named), an
 *     unknown one, a sector size that differs, blob counts out of range, a
 *     truncated blob (named by its index).
 */
#include "etest.h"
#include "post2k_fixture.h"

#include "czk/httpstatus.h" /* czk_metrics_text */

static char g_dir[600];
static czk_vk g_win, g_wnd; /* WinningPoSt, WindowPoSt test keys */
static czk_pool *g_pool;
static uint8_t g_rnd[32];
static czk_engine *g_e;

static int group_setup(void **state) {
    (void)state;
    czk_err err;
    g_pool = czk_pool_create(2, &err);
    if (!g_pool) return -1;
    czk_post2k_keys_dir(g_dir, sizeof g_dir);
    czk_test_hex(g_rnd, 32, "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100");
    if (czk_post2k_keys(&g_wnd, NULL, g_dir, CZK_POST_WINDOW, g_pool, &err) ||
        czk_post2k_keys(&g_win, NULL, g_dir, CZK_POST_WINNING, g_pool, &err)) {
        fprintf(stderr, "keys: %s\n", err.msg);
        return -1;
    }
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    g_e = et_start(&o);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_engine_destroy(g_e);
    czk_vk_free(&g_win);
    czk_vk_free(&g_wnd);
    czk_pool_destroy(g_pool);
    return 0;
}

typedef struct blobs {
    uint8_t *b[4];
    size_t len[4];
    size_t n;
} blobs;

static void blobs_free(blobs *b) {
    for (size_t i = 0; i < b->n; i++)
        free(b->b[i]);
    b->n = 0;
}

static void blob_add(blobs *b, czk_post_kind kind, czk_post_api api, uint64_t num,
                     uint64_t sector_index) {
    czk_err err;
    czk_assert_ok(czk_post2k_blob(&b->b[b->n], &b->len[b->n], kind, api, g_rnd, num, sector_index,
                                  g_pool, &err),
                  &err);
    b->n++;
}

static void request(czk_proof_request *r, czk_kind_id kind, uint64_t proof, uint32_t k,
                    const blobs *b) {
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->sector_size = 2048;
    r->registered_proof = proof;
    r->miner_id = 1000;
    r->partition_index = k;
    memcpy(r->randomness, g_rnd, 32);
    r->vanilla_proofs = (const uint8_t *const *)b->b;
    r->vanilla_proofs_len = b->len;
    r->num_vanilla_proofs = b->n;
}

/* The public inputs of a partition, from the blobs (as the verifier derives them). */
static czk_fr *inputs_of(const blobs *b, czk_post_kind kind, czk_post_api api, uint64_t k,
                         size_t *ni) {
    czk_post_config cfg;
    czk_post2k_config(&cfg, kind);
    czk_por_tree t;
    czk_err err;
    czk_assert_ok(czk_post_config_check(&cfg, &t, &err), &err);
    czk_post_pub_sector pub[CZK_POST_WINNING_CHALLENGES];
    for (size_t i = 0; i < b->n; i++) {
        czk_post_vanilla *v = NULL;
        czk_assert_ok(czk_post_vanilla_parse(&v, b->b[i], b->len[i], &t, 0, &err), &err);
        pub[i].sector_id = v->sector_id;
        memcpy(pub[i].comm_r, v->comm_r, 32);
        czk_post_vanilla_free(v);
    }
    size_t np = b->n;
    if (kind == CZK_POST_WINNING) {
        czk_post_winning_sectors(pub, &pub[0]);
        np = CZK_POST_WINNING_CHALLENGES;
    }
    *ni = czk_post_num_inputs(&cfg) - 1;
    czk_fr *in = malloc(*ni * sizeof *in);
    assert_non_null(in);
    czk_assert_ok(czk_post_public_inputs(in, &cfg, api, g_rnd, pub, np, k, &err), &err);
    return in;
}

/* Submits, checks the job's kind facts, awaits; verifies the 192 bytes against the test's VK. */
static void prove_verify(czk_kind_id kind, uint64_t proof, uint32_t k, const blobs *b,
                         const char *circuit, czk_priority prio) {
    czk_proof_request r;
    request(&r, kind, proof, k, b);
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_assert_ok(czk_engine_submit(g_e, &r, id, NULL, &err), &err);
    czk_job_info info;
    czk_assert_ok(czk_engine_job_info(g_e, id, &info, &err), &err);
    assert_int_equal(info.kind, kind);
    assert_int_equal(info.priority, prio);
    assert_int_equal(info.partitions, 1);
    assert_string_equal(info.circuit_id, circuit);
    czk_job_result res = et_await(g_e, id);
    if (res.state != CZK_JOB_COMPLETED) fail_msg("%s: %s", id, res.error);
    assert_int_equal(res.proof_len, CZK_PROOF_BYTES);

    czk_post_proof pp;
    czk_assert_ok(czk_post_proof_lookup(proof, &pp, &err), &err);
    czk_pvk pvk;
    czk_assert_ok(czk_pvk_prepare(&pvk, kind == CZK_KIND_WINNING_POST ? &g_win : &g_wnd, &err),
                  &err);
    czk_proof p;
    czk_assert_ok(czk_proof_decode(&p, res.proof, &err), &err);
    size_t ni;
    czk_fr *in = inputs_of(b, pp.kind, pp.api, k, &ni);
    czk_assert_ok(czk_verify(&pvk, &p, in, ni, &err), &err);
    free(in);
    if (pp.kind == CZK_POST_WINDOW) {
        /* the challenges of another partition index, or of the other API version: refused */
        in = inputs_of(b, pp.kind, pp.api, k + 1, &ni);
        assert_int_equal(czk_verify(&pvk, &p, in, ni, &err),
                         pp.api == CZK_POST_API_1_0 ? CZK_ERR_VERIFY : CZK_OK);
        free(in);
        in = inputs_of(b, pp.kind, pp.api == CZK_POST_API_1_0 ? CZK_POST_API_1_2 : CZK_POST_API_1_0,
                       k, &ni);
        assert_int_equal(czk_verify(&pvk, &p, in, ni, &err), CZK_ERR_VERIFY);
        free(in);
    }
    czk_pvk_free(&pvk);
    czk_job_result_free(&res);
}

static void test_window(void **state) {
    (void)state;
    blobs b = {0};
    /* V1, partition 1 of a deadline with 2 sectors per partition: sector indices 2 and 3 */
    blob_add(&b, CZK_POST_WINDOW, CZK_POST_API_1_0, 7, 2);
    blob_add(&b, CZK_POST_WINDOW, CZK_POST_API_1_0, 9, 3);
    prove_verify(CZK_KIND_WINDOW_POST, 5, 1, &b, "wpost-2k", CZK_PRIORITY_HIGH);
    blobs_free(&b);
    /* V1_2 (FFI V1_1), partition 3, one sector (the partition padded with it) */
    blob_add(&b, CZK_POST_WINDOW, CZK_POST_API_1_2, 11, 6);
    prove_verify(CZK_KIND_WINDOW_POST, 10, 3, &b, "wpost-2k", CZK_PRIORITY_HIGH);
    blobs_free(&b);
}

static void test_winning(void **state) {
    (void)state;
    blobs b = {0};
    blob_add(&b, CZK_POST_WINNING, CZK_POST_API_1_0, 7, 0);
    prove_verify(CZK_KIND_WINNING_POST, 0, 0, &b, "winning-2k", CZK_PRIORITY_CRITICAL);
    blobs_free(&b);
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

static void test_refused(void **state) {
    (void)state;
    czk_engine_status *s0 = et_status(g_e);
    uint64_t failed0 = s0->proofs_failed, refused0 = s0->proofs_refused;
    czk_engine_status_free(s0);
    blobs b = {0};
    blob_add(&b, CZK_POST_WINDOW, CZK_POST_API_1_0, 7, 0);
    blob_add(&b, CZK_POST_WINDOW, CZK_POST_API_1_0, 9, 1);
    czk_proof_request r;
    unsigned nref = 0;

    /* sector 9's proof tampered: one sibling hash changed (its low byte: still a canonical Fr) */
    request(&r, CZK_KIND_WINDOW_POST, 5, 0, &b);
    uint8_t *t = malloc(b.len[1]);
    memcpy(t, b.b[1], b.len[1]);
    t[b.len[1] - 64 - 200] ^= 1; /* inside the last inclusion proof's path */
    const uint8_t *tb[2] = {b.b[0], t};
    r.vanilla_proofs = tb;
    refused(&r, CZK_ERR_VERIFY,
            (const char *const[]){"sector 9", "does not verify", "window-post", NULL});
    nref++;
    free(t);

    /* randomness as Curio has it before masking byte 31 */
    request(&r, CZK_KIND_WINDOW_POST, 5, 0, &b);
    r.randomness[31] |= 0xc0;
    refused(&r, CZK_ERR_FR_RANGE, (const char *const[]){"randomness", "not a canonical Fr", NULL});
    nref++;

    /* a registered proof of the other kind, an unknown one, another sector size */
    request(&r, CZK_KIND_WINDOW_POST, 0, 0, &b);
    refused(&r, CZK_ERR_INVALID_ARG,
            (const char *const[]){"registered_proof 0", "WinningPoSt", "WindowPoSt", NULL});
    request(&r, CZK_KIND_WINDOW_POST, 15, 0, &b);
    refused(&r, CZK_ERR_UNSUPPORTED, (const char *const[]){"registered PoSt proof 15", NULL});
    request(&r, CZK_KIND_WINDOW_POST, 8, 0, &b); /* Window 32GiB V1 */
    refused(&r, CZK_ERR_INVALID_ARG,
            (const char *const[]){"sector size 2048", "32GiB", "registered_proof 8", NULL});
    nref += 3;

    /* blob counts and a truncated blob */
    blobs w = {0};
    blob_add(&w, CZK_POST_WINNING, CZK_POST_API_1_0, 7, 0);
    request(&r, CZK_KIND_WINNING_POST, 5, 0, &w);
    refused(&r, CZK_ERR_INVALID_ARG,
            (const char *const[]){"registered_proof 5", "WindowPoSt", "WinningPoSt", NULL});
    request(&r, CZK_KIND_WINNING_POST, 0, 0, &b); /* two blobs */
    refused(&r, CZK_ERR_FORMAT, (const char *const[]){"2 blobs", "exactly one", NULL});
    request(&r, CZK_KIND_WINNING_POST, 0, 1, &w);
    refused(&r, CZK_ERR_INVALID_ARG, (const char *const[]){"partition_index is 1", NULL});
    blobs three = b;
    three.b[2] = b.b[0];
    three.len[2] = b.len[0];
    three.n = 3;
    request(&r, CZK_KIND_WINDOW_POST, 5, 0, &three);
    refused(&r, CZK_ERR_FORMAT, (const char *const[]){"3 blobs", "1 to 2", NULL});
    request(&r, CZK_KIND_WINDOW_POST, 5, 0, &b);
    size_t lens[2] = {b.len[0], b.len[1] - 10};
    r.vanilla_proofs_len = lens;
    refused(&r, CZK_ERR_TRUNCATED, (const char *const[]){"vanilla_proofs[1]", NULL});
    /* a Winning blob (66 proofs) where Window expects 10 */
    request(&r, CZK_KIND_WINDOW_POST, 5, 0, &w);
    refused(&r, CZK_ERR_MISMATCH, (const char *const[]){"vanilla_proofs[0]", "sector 7", NULL});
    nref += 6;
    blobs_free(&w);
    blobs_free(&b);

    czk_engine_status *s = et_status(g_e);
    assert_int_equal(s->proofs_failed - failed0, nref);
    assert_int_equal(s->proofs_refused - refused0, nref); /* all at intake */
    czk_engine_status_free(s);
}

/* Runs last: the per-kind counters of the proofs above. */
static void test_status(void **state) {
    (void)state;
    czk_engine_status *s = et_status(g_e);
    const czk_engine_kind_counters *wnd = NULL, *win = NULL;
    for (size_t i = 0; i < s->num_kinds; i++) {
        if (s->kinds[i].kind == CZK_KIND_WINDOW_POST) wnd = &s->kinds[i];
        if (s->kinds[i].kind == CZK_KIND_WINNING_POST) win = &s->kinds[i];
    }
    assert_non_null(wnd);
    assert_non_null(win);
    assert_string_equal(wnd->name, "window-post");
    assert_string_equal(wnd->metric_label, "window_post");
    assert_string_equal(win->name, "winning-post");
    assert_string_equal(win->metric_label, "winning_post");
    assert_int_equal(wnd->completed, 2);
    assert_int_equal(win->completed, 1);
    assert_int_equal(wnd->failed, 8); /* test_refused: its Window requests */
    assert_int_equal(win->failed, 3);
    bool keys[2] = {false, false};
    for (size_t i = 0; i < s->num_srs; i++) {
        if (!strcmp(s->srs[i].circuit_id, "wpost-2k")) keys[0] = true;
        if (!strcmp(s->srs[i].circuit_id, "winning-2k")) keys[1] = true;
    }
    assert_true(keys[0] && keys[1]); /* in the SRS cache, beside each other */
    czk_engine_status_free(s);
    char *m = NULL;
    czk_err err;
    czk_assert_ok(czk_metrics_text(g_e, &m, &err), &err);
    assert_non_null(strstr(m, "cuzk_proofs_completed{proof_kind=\"window_post\"} 2\n"));
    assert_non_null(strstr(m, "cuzk_proofs_completed{proof_kind=\"winning_post\"} 1\n"));
    free(m);
    /* the kinds name each other's circuits in cuzk's scheme */
    char id[CZK_CIRCUIT_ID_MAX];
    czk_assert_ok(czk_kind_circuit_id(id, CZK_KIND_WINDOW_POST, 32ull << 30, &err), &err);
    assert_string_equal(id, "wpost-32g");
    czk_assert_ok(czk_kind_circuit_id(id, CZK_KIND_WINNING_POST, 64ull << 30, &err), &err);
    assert_string_equal(id, "winning-64g");
    czk_assert_ok(czk_kind_circuit_id(id, CZK_KIND_POREP_C2, 512ull << 20, &err), &err);
    assert_string_equal(id, "porep-512m");
    assert_int_equal(czk_kind_circuit_id(id, CZK_KIND_TEST, 2048, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_kind_circuit_id(id, CZK_KIND_WINDOW_POST, 4096, &err),
                     CZK_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_winning),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_status),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
