/* CZK_TEST_LABELS: unit */
/*
 * The device backend a composition root hands the engine
 * (czk_engine_opts.gpu, a czk_backend_provider): with gpus.backend "auto" or
 * its name and devices present, the engine makes one device per ordinal
 * through provider->make and nothing else (the fake provider below counts its
 * calls); "auto" without devices, or without a provider, is the CPU
 * pseudo-device; a name no provider answers to, a provider whose build lacks
 * the backend, and one without devices are refused with a message that says
 * which.
 */
#include "etest.h"

static int g_made, g_last_ordinal;
static bool g_built = true;
static int g_count = 2;

static bool fake_built(void) {
    return g_built;
}
static int fake_count(void) {
    return g_count;
}
static czk_status fake_make(czk_backend *out, int device, czk_pool *pool, uint64_t vram,
                            czk_err *err) {
    (void)vram;
    g_made++;
    g_last_ordinal = device;
    return slow_factory(NULL, device, pool, out, err);
}
static const czk_backend_provider FAKE = {"fake", "FAKE", fake_built, fake_count, fake_make, NULL};

static void opts(czk_engine_opts *o, const char *backend, const czk_backend_provider *gpu) {
    et_opts(o, NULL, 0);
    o->make_backend = NULL; /* gpus.backend decides */
    o->gpu = gpu;
    snprintf(o->config.backend, sizeof o->config.backend, "%s", backend);
    g_made = 0;
    g_last_ordinal = -2;
}

static void expect_devices(czk_engine_opts *o, int n, const char *name) {
    czk_engine *e = et_start_bare(o);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(s->devices[i].name, name);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

static void expect_refused(czk_engine_opts *o, const char *msg) {
    czk_engine *e = NULL;
    czk_err err;
    assert_int_equal(czk_engine_create(&e, o, &err), CZK_ERR_UNSUPPORTED);
    assert_null(e);
    if (!strstr(err.msg, msg)) fail_msg("got '%s', want '%s'", err.msg, msg);
}

static void test_provider_makes_devices(void **state) {
    (void)state;
    czk_engine_opts o;
    g_built = true, g_count = 2;
    opts(&o, "auto", &FAKE);
    expect_devices(&o, 2, "cpu-slow");
    assert_int_equal(g_made, 2);
    assert_int_equal(g_last_ordinal, 1);
    opts(&o, "fake", &FAKE); /* by name, with gpus.devices */
    o.config.devices[0] = 1;
    o.config.num_devices = 1;
    expect_devices(&o, 1, "cpu-slow");
    assert_int_equal(g_made, 1);
    assert_int_equal(g_last_ordinal, 1);
    opts(&o, "cpu", &FAKE); /* "cpu" never asks the provider */
    expect_devices(&o, 1, "cpu");
    assert_int_equal(g_made, 0);
}

static void test_fallback_and_refusals(void **state) {
    (void)state;
    czk_engine_opts o;
    g_built = true, g_count = 0;
    opts(&o, "auto", &FAKE); /* no device: the CPU pseudo-device */
    expect_devices(&o, 1, "cpu");
    assert_int_equal(g_made, 0);
    opts(&o, "auto", NULL); /* no provider given */
    expect_devices(&o, 1, "cpu");
    opts(&o, "fake", &FAKE);
    expect_refused(&o, "gpus.backend = \"fake\": no FAKE device found");
    g_built = false, g_count = 2;
    opts(&o, "fake", &FAKE);
    expect_refused(&o, "gpus.backend = \"fake\": this build has no FAKE backend");
    opts(&o, "auto", &FAKE); /* not built: "auto" is the CPU */
    expect_devices(&o, 1, "cpu");
    assert_int_equal(g_made, 0);
    g_built = true;
    opts(&o, "cuda", &FAKE); /* a name the given provider does not answer to */
    expect_refused(&o, "gpus.backend = \"cuda\": no such backend was given to this engine");
    opts(&o, "cuda", NULL);
    expect_refused(&o, "gpus.backend = \"cuda\": no such backend was given to this engine");
    assert_int_equal(g_made, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_provider_makes_devices),
        cmocka_unit_test(test_fallback_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
