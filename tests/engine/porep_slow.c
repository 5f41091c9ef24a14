/* CZK_TEST_LABELS: slow */
/* CZK_TEST_TIMEOUT: 3600 */
/*
 * A whole PoRep C2 through the engine: a 2KiB sector sealed by the test,
 * Groth16 keys for the 2KiB partition circuit made by the test (record,
 * czk_setup, written under the v28 file name into param_cache), the job
 * submitted as Curio would, and the 192-byte proof checked here against the
 * test's own verifying key with public inputs from the porep layer
 * (czk_c1_public_inputs), not from the engine. Minutes on two cores (the
 * setup of a 2.7 M-constraint circuit); label slow.
 */
#include "porep_intake.h"

#include "czk/porep_circuit.h"
#include "czk/porep_precheck.h"
#include "czk/porep_shapes.h"

static void test_porep_2k(void **state) {
    (void)state;
    /* CZK_TEST_PARAMS_DIR: keep the keys there and use them again when present */
    char dir[256], cache[300];
    const char *keep = getenv("CZK_TEST_PARAMS_DIR");
    if (keep && *keep)
        snprintf(dir, sizeof dir, "%s", keep);
    else
        czk_test_tmpdir(dir, sizeof dir, "engine");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("CZK_CACHE_DIR", cache, 1); /* the engine's shape cache, and stamps */
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    assert_non_null(pool);
    const czk_porep_shape *s = czk_porep_shape_for_size(2048);
    char name[256], path[700], vkpath[700];
    czk_assert_ok(czk_porep_param_file_name(name, sizeof name, s, ".params", &err), &err);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    czk_assert_ok(czk_porep_param_file_name(name, sizeof name, s, ".vk", &err), &err);
    snprintf(vkpath, sizeof vkpath, "%s/%s", dir, name);
    czk_vk vk;
    if (czk_vk_read(&vk, vkpath, &err) || access(path, R_OK)) {
        czk_porep_config cfg;
        czk_porep_config_for_shape(&cfg, s);
        czk_shape *shape;
        czk_assert_ok(czk_porep_record(&shape, &cfg, NULL, &err), &err);
        czk_params *params;
        czk_assert_ok(czk_test_keys(&params, shape, 2048, pool, &err), &err);
        czk_assert_ok(czk_params_write_stamped(params, path, NULL, NULL, pool, &err), &err);
        czk_assert_ok(czk_vk_write(&params->vk, vkpath, &err), &err);
        czk_params_free(params);
        czk_shape_free(shape);
        czk_assert_ok(czk_vk_read(&vk, vkpath, &err), &err);
    }

    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", dir);
    o.config.threads = 0;
    o.config.gpu_threads = 0;
    o.config.total_budget = 16ull << 30; /* the 2KiB keys alone take 1.1 GB */
    czk_engine *e = et_start(&o);
    czk_c1 *c1 = pi_seal_2k();
    size_t len;
    char *env = pi_envelope(c1, &len);
    czk_proof_request r;
    pi_request(&r, env, len);
    r.request_id = "porep-1000-7";
    char id[CZK_JOB_ID_MAX];
    czk_assert_ok(czk_engine_submit(e, &r, id, NULL, &err), &err);
    czk_job_result res;
    czk_assert_ok(czk_engine_await(e, id, -1, &res, &err), &err);
    if (res.state != CZK_JOB_COMPLETED) fail_msg("job failed: %s", res.error);
    assert_int_equal(res.proof_len, CZK_PROOF_BYTES);
    fprintf(stderr, "porep-2k: synthesis %llu ms, device %llu ms, total %llu ms\n",
            (unsigned long long)res.synthesis_ms, (unsigned long long)res.gpu_compute_ms,
            (unsigned long long)res.total_ms);
    uint32_t ni = czk_c1_num_public_inputs(c1);
    czk_fr *in = malloc(ni * sizeof *in);
    czk_assert_ok(czk_c1_public_inputs(in, c1, NULL, 0, &err), &err);
    czk_proof p;
    czk_assert_ok(czk_proof_decode(&p, res.proof, &err), &err);
    czk_pvk *pvk = calloc(1, sizeof *pvk);
    czk_assert_ok(czk_pvk_prepare(pvk, &vk, &err), &err);
    czk_assert_ok(czk_verify(pvk, &p, in, ni, &err), &err);
    czk_fr_add(&in[5], &in[5], &czk_fr_one);
    assert_int_equal(czk_verify(pvk, &p, in, ni, &err), CZK_ERR_VERIFY);
    czk_pvk_free(pvk);
    free(pvk);
    free(in);
    czk_job_result_free(&res);
    free(env);
    czk_c1_free(c1);
    czk_engine_destroy(e);
    czk_vk_free(&vk);
    czk_pool_destroy(pool);
    if (!keep || !*keep) czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_porep_2k),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
