/* CZK_TEST_LABELS: unit */
/*
 * The engine and the Lagrange form of H and L (srs.lagrange; groth16.h,
 * czk_params_lagrange), on the CPU backend with the test kind's keys in
 * srs.param_cache:
 *   - the form's file there (czk_params_lagrange_file_name of the keys'
 *     vk, made from the keys' toxic waste) is attached when the SRS loads
 *     (logged, and the status snapshot's srs entry says so) and the jobs'
 *     proofs verify against inputs computed here;
 *   - srs.lagrange = false leaves it out;
 *   - a form made from other keys is left out, naming why, and the jobs
 *     still complete;
 *   - a form with the right vk digest but the points of other keys is
 *     used — and every proof fails its verification inside the engine, so
 *     none leaves it (the jobs fail naming the verification).
 */
#include "etest.h"

#define LOG 8 /* circuit id "test-8" */
#define SEED 4242

ET_KEYS_GROUP(LOG, SEED)

static et_lines g_log;

static bool log_has(const char *s) {
    return et_lines_has(&g_log, s);
}

static czk_engine *start(bool lagrange) {
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.lagrange = lagrange;
    et_lines_init(&g_log, &o);
    return et_start(&o);
}

/* The test kind's shape of 2^LOG constraints. */
static czk_shape *shape_of(void) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    unsigned log = LOG;
    czk_assert_ok(czk_cs_run(cs, et_circuit, &log, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    return s;
}

/* The form from the toxic waste of czk_test_keys(seed), written under the name of vk's keys. */
static void write_form(uint64_t seed, const czk_vk *vk, char *path, size_t cap) {
    czk_shape *s = shape_of();
    czk_err err;
    czk_params_lagrange *lf;
    czk_assert_ok(czk_test_lagrange(&lf, s, seed, NULL, &err), &err);
    char name[CZK_LAGRANGE_NAME_MAX];
    czk_params_lagrange_file_name(name, vk);
    snprintf(path, cap, "%s/%s", g_dir, name);
    czk_assert_ok(czk_params_lagrange_write(lf, vk, path, NULL, &err), &err);
    czk_params_lagrange_free(lf);
    czk_shape_free(s);
}

static void run_jobs(czk_engine *e, uint64_t seed0, czk_job_state want) {
    char ids[2][CZK_JOB_ID_MAX];
    char payload[64];
    for (int k = 0; k < 2; k++) {
        snprintf(payload, sizeof payload, "seed=%llu partitions=2 log=%d",
                 (unsigned long long)(seed0 + k), LOG);
        et_submit(e, ids[k], NULL, CZK_PRIORITY_UNSPECIFIED, payload);
    }
    for (int k = 0; k < 2; k++) {
        czk_job_result r = et_await(e, ids[k]);
        if (want == CZK_JOB_COMPLETED) {
            et_verify(&g_keys->vk, &r, seed0 + k, 2, LOG);
        } else {
            assert_int_equal(r.state, want);
            if (!strstr(r.error, "verif")) fail_msg("job %d: %s", k, r.error);
        }
        czk_job_result_free(&r);
    }
}

/* Whether the status snapshot says test-LOG's form is attached. */
static bool status_lagrange(czk_engine *e) {
    czk_engine_status *s = et_status(e);
    int found = -1;
    for (size_t i = 0; i < s->num_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, "test-8")) found = s->srs[i].lagrange;
    czk_engine_status_free(s);
    assert_int_not_equal(found, -1);
    return found == 1;
}

static void test_attached(void **state) {
    (void)state;
    char path[1024];
    write_form(SEED, &g_keys->vk, path, sizeof path);
    czk_engine *e = start(true);
    run_jobs(e, 31, CZK_JOB_COMPLETED);
    char want[1200];
    snprintf(want, sizeof want, "srs test-%d: Lagrange form %s attached", LOG, path);
    assert_true(log_has(want));
    assert_true(status_lagrange(e));
    czk_engine_destroy(e);
    /* switched off: the same jobs without it */
    e = start(false);
    run_jobs(e, 41, CZK_JOB_COMPLETED);
    assert_false(log_has("Lagrange form"));
    assert_false(status_lagrange(e));
    czk_engine_destroy(e);
    unlink(path);
}

static void test_other_keys(void **state) {
    (void)state;
    /* a form of other keys, under this vk's name but with its own vk: left out */
    char od[256];
    czk_test_tmpdir(od, sizeof od, "engine-other");
    czk_params *other = et_make_keys(od, LOG, SEED + 1);
    char name[CZK_LAGRANGE_NAME_MAX], path[1024], tmp[1024];
    write_form(SEED + 1, &other->vk, tmp, sizeof tmp);
    czk_params_lagrange_file_name(name, &g_keys->vk);
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    assert_int_equal(rename(tmp, path), 0);
    czk_test_rm_rf(od);
    czk_params_free(other);
    czk_engine *e = start(true);
    run_jobs(e, 51, CZK_JOB_COMPLETED);
    assert_true(log_has("left out: lagrange form "));
    assert_true(log_has("made from other parameters (its vk digest differs)"));
    assert_false(log_has("attached"));
    assert_false(status_lagrange(e));
    czk_engine_destroy(e);
    unlink(path);
}

static void test_wrong_points(void **state) {
    (void)state;
    /* other keys' points labelled with this vk: attached, and no proof gets out */
    char path[1024];
    write_form(SEED + 2, &g_keys->vk, path, sizeof path);
    czk_engine *e = start(true);
    run_jobs(e, 61, CZK_JOB_FAILED);
    assert_true(log_has("attached"));
    czk_engine_destroy(e);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attached),
        cmocka_unit_test(test_other_keys),
        cmocka_unit_test(test_wrong_points),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
