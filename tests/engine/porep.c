/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * The PoRep proof kind's intake on a 2KiB sector sealed by the test:
 * the envelope is parsed and the vanilla proofs pre-checked at submit (one
 * partition, circuit porep-2k, default priority NORMAL); without the v28
 * parameter file in param_cache the job fails naming the file; a bad
 * envelope, a vanilla proof changed by one bit, the wrong miner id or
 * sector size are refused by the submit with the status that names the
 * defect (no job is kept; each counts as failed).
 * Proving a whole 2KiB partition needs its Groth16 keys (minutes to make on
 * two cores): engine.porep_slow does that.
 */
#include "porep_intake.h"

/* A request refused at intake: the submit returns the kind's status and message, no job. */
static czk_err submit_refused(czk_engine *e, const czk_proof_request *r, czk_status want) {
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_err_clear(&err);
    assert_int_equal(czk_engine_submit(e, r, id, NULL, &err), want);
    assert_int_equal(err.code, want);
    assert_string_equal(id, "");
    assert_non_null(strstr(err.msg, "payload refused by kind porep-c2"));
    return err;
}

static void test_intake(void **state) {
    (void)state;
    char dir[256];
    czk_test_tmpdir(dir, sizeof dir, "engine");
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", dir);
    /* the rest of the key search path there too: no key of this machine's caches is found */
    setenv("FIL_PROOFS_PARAMETER_CACHE", dir, 1);
    setenv("CZK_CACHE_DIR", dir, 1);
    czk_engine *e = et_start(&o);
    czk_c1 *c1 = pi_seal_2k();
    size_t len;
    char *env = pi_envelope(c1, &len);
    czk_proof_request r;
    pi_request(&r, env, len);
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_assert_ok(czk_engine_submit(e, &r, id, NULL, &err), &err);
    czk_job_info info;
    czk_assert_ok(czk_engine_job_info(e, id, &info, &err), &err);
    assert_int_equal(info.partitions, 1);
    assert_string_equal(info.circuit_id, "porep-2k");
    assert_int_equal(info.priority, CZK_PRIORITY_NORMAL);
    czk_job_result res = et_await(e, id);
    assert_int_equal(res.state, CZK_JOB_FAILED);
    assert_int_equal(res.error_code, CZK_ERR_IO);
    assert_non_null(strstr(res.error, "SRS porep-2k"));
    assert_non_null(strstr(res.error, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-"
                                      "8-0-0-sha256_hasher-"));
    czk_job_result_free(&res);
    /* the wrong miner: replica_id does not match */
    r.miner_id = 1001;
    czk_err rerr = submit_refused(e, &r, CZK_ERR_MISMATCH);
    assert_non_null(strstr(rerr.msg, "replica_id"));
    /* the request's sector size differs from the C1's */
    r.miner_id = 1000;
    r.sector_size = 8u << 20;
    rerr = submit_refused(e, &r, CZK_ERR_FORMAT);
    assert_non_null(strstr(rerr.msg, "sector size"));
    /* one bit of one sibling changed: the pre-check names it */
    c1->proofs[1].comm_d_proof.siblings[0].b[0] ^= 1;
    size_t len2;
    char *env2 = pi_envelope(c1, &len2);
    pi_request(&r, env2, len2);
    rerr = submit_refused(e, &r, CZK_ERR_VERIFY);
    assert_non_null(strstr(rerr.msg, "partition 0, challenge 1"));
    assert_non_null(strstr(rerr.msg, "comm_d"));
    /* not an envelope */
    pi_request(&r, "{\"SectorNum\":7}", 15);
    submit_refused(e, &r, CZK_ERR_FORMAT);
    pi_request(&r, "", 0);
    submit_refused(e, &r, CZK_ERR_FORMAT);
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->proofs_failed, 6);
    assert_int_equal(s->budget_used, 0);
    czk_engine_status_free(s);
    free(env);
    free(env2);
    czk_c1_free(c1);
    czk_engine_destroy(e);
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
