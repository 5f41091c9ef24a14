/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * The engine with gpus.backend = "cuda" and no backend factory. On a machine
 * with a GPU: jobs of the test kind (several partitions, two GPU workers
 * sharing device 0) are proved by the CUDA backend with the keys resident,
 * and every partition proof verifies against public inputs recomputed here
 * (tests/engine/etest.h: the chain evaluated natively, keys made by the
 * test); eviction unloads the keys. Without a GPU (CI): "cuda" is refused
 * with CZK_ERR_UNSUPPORTED and a message saying why, and "auto" falls back
 * to the CPU pseudo-device.
 */
#include "../engine/etest.h"

#include "czk/cuda.h"

static void cuda_opts(czk_engine_opts *o, const char *backend) {
    et_opts(o, NULL, 0);
    o->make_backend = NULL; /* gpus.backend decides */
    o->backend_ctx = NULL;
    snprintf(o->config.backend, sizeof o->config.backend, "%s", backend);
}

static void test_no_gpu(void **state) {
    (void)state;
    if (czk_cuda_device_count() > 0) skip();
    czk_engine_opts o;
    cuda_opts(&o, "cuda");
    czk_engine *e = NULL;
    czk_err err;
    assert_int_equal(czk_engine_create(&e, &o, &err), CZK_ERR_UNSUPPORTED);
    assert_null(e);
    assert_non_null(strstr(err.msg, "gpus.backend = \"cuda\""));
    assert_non_null(
        strstr(err.msg, czk_cuda_built() ? "no CUDA device found" : "this build has no CUDA"));
    cuda_opts(&o, "auto");
    e = et_start(&o);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 1);
    assert_string_equal(s->devices[0].name, "cpu");
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

static void test_cuda_jobs(void **state) {
    (void)state;
    if (czk_cuda_device_count() == 0) skip();
    char dir[600];
    czk_test_tmpdir(dir, sizeof dir, "engine");
    czk_params *k = et_make_keys(dir, 12, 17);
    czk_engine_opts o;
    cuda_opts(&o, "cuda");
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", dir);
    o.config.devices[0] = 0;
    o.config.num_devices = 1;
    czk_engine *e = et_start(&o);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 1);
    assert_int_equal(s->devices[0].ordinal, 0);
    assert_string_equal(s->devices[0].name, "cuda");
    czk_engine_status_free(s);
    char a[CZK_JOB_ID_MAX], b[CZK_JOB_ID_MAX];
    et_submit(e, a, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=41 partitions=3 log=12");
    et_submit(e, b, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=42 partitions=2 log=12");
    czk_job_result r = et_await(e, a);
    et_verify(&k->vk, &r, 41, 3, 12);
    czk_job_result_free(&r);
    r = et_await(e, b);
    et_verify(&k->vk, &r, 42, 2, 12);
    czk_job_result_free(&r);
    s = et_wait_idle(e);
    assert_true(s->num_srs >= 1);
    assert_true(s->srs[0].device_bytes > 0); /* the keys went to the device */
    czk_engine_status_free(s);
    czk_err err;
    for (int i = 0; i < 200; i++) {
        bool was;
        if (!czk_engine_evict(e, "test-12", &was, NULL, &err)) break;
        usleep(5000);
    }
    czk_engine_destroy(e);
    czk_params_free(k);
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_cuda_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
