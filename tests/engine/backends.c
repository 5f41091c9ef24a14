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
 *
 * Device identity: each device's status names its card as the provider's
 * identify() tells it (name, UUID, PCI bus id, VRAM), in the order of
 * gpus.devices; an index there that the provider does not have fails the
 * engine's creation naming it and every device found (and
 * CUDA_VISIBLE_DEVICES when set). gpus.cpu_devices makes that many CPU
 * pseudo-devices, each its own backend, named "cpu pseudo-device K", no UUID.
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
static czk_status fake_identify(int device, czk_device_identity *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    if (device < 0 || device >= g_count)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "fake: no device %d", device);
    snprintf(out->name, sizeof out->name, "Fake GPU %d", device);
    snprintf(out->uuid, sizeof out->uuid, "GPU-%08x-1111-2222-3333-444444444444", device);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "0000:%02x:00.0", 0x17 + device);
    out->vram_total_bytes = (uint64_t)(device + 1) << 30;
    return CZK_OK;
}
static const czk_backend_provider FAKE = {"fake",    "FAKE", fake_built,   fake_count,
                                          fake_make, NULL,   fake_identify};

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

static void expect_refused_with(czk_engine_opts *o, czk_status code, const char *msg) {
    czk_engine *e = NULL;
    czk_err err;
    assert_int_equal(czk_engine_create(&e, o, &err), code);
    assert_null(e);
    if (!strstr(err.msg, msg)) fail_msg("got '%s', want '%s'", err.msg, msg);
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

static void test_identity(void **state) {
    (void)state;
    czk_engine_opts o;
    g_built = true, g_count = 2;
    opts(&o, "fake", &FAKE);
    o.config.devices[0] = 1, o.config.devices[1] = 0; /* in this order */
    o.config.num_devices = 2;
    czk_engine *e = et_start_bare(&o);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 2);
    for (int i = 0; i < 2; i++) {
        const czk_engine_device_status *d = &s->devices[i];
        int card = 1 - i;
        char want[64];
        assert_int_equal(d->index, i);
        assert_int_equal(d->ordinal, card);
        snprintf(want, sizeof want, "Fake GPU %d", card);
        assert_string_equal(d->identity.name, want);
        snprintf(want, sizeof want, "GPU-%08x-1111-2222-3333-444444444444", card);
        assert_string_equal(d->identity.uuid, want);
        snprintf(want, sizeof want, "0000:%02x:00.0", 0x17 + card);
        assert_string_equal(d->identity.pci_bus_id, want);
        assert_int_equal(d->identity.vram_total_bytes, (uint64_t)(card + 1) << 30);
        assert_string_equal(d->name, "cpu-slow"); /* the backend */
        assert_false(d->failed);
    }
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    assert_int_equal(g_made, 2);

    /* an index that does not exist: refused, naming it and the devices found */
    unsetenv("CUDA_VISIBLE_DEVICES");
    opts(&o, "fake", &FAKE);
    o.config.devices[0] = 0, o.config.devices[1] = 3;
    o.config.num_devices = 2;
    expect_refused_with(&o, CZK_ERR_INVALID_ARG,
                        "engine: gpus.devices names device 3, which does not exist: FAKE finds 2 "
                        "devices (0 Fake GPU 0 GPU-00000000-1111-2222-3333-444444444444 "
                        "0000:17:00.0, 1 Fake GPU 1 GPU-00000001-1111-2222-3333-444444444444 "
                        "0000:18:00.0)");
    assert_int_equal(g_made, 0); /* checked before any backend is made */
    setenv("CUDA_VISIBLE_DEVICES", "GPU-00000001", 1);
    opts(&o, "auto", &FAKE);
    o.config.devices[0] = -1;
    o.config.num_devices = 1;
    expect_refused_with(&o, CZK_ERR_INVALID_ARG,
                        "names device -1, which does not exist: FAKE finds 2 devices (0 Fake GPU "
                        "0");
    expect_refused_with(&o, CZK_ERR_INVALID_ARG,
                        "0000:18:00.0); CUDA_VISIBLE_DEVICES=GPU-00000001");
    unsetenv("CUDA_VISIBLE_DEVICES");
    g_count = 0; /* no device at all */
    opts(&o, "fake", &FAKE);
    o.config.devices[0] = 0;
    o.config.num_devices = 1;
    expect_refused(&o, "gpus.backend = \"fake\": no FAKE device found");
}

static void test_pseudo_devices(void **state) {
    (void)state;
    czk_engine_opts o;
    opts(&o, "cpu", &FAKE);
    o.config.cpu_devices = 3;
    czk_engine *e = et_start_bare(&o);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 3);
    assert_int_equal(s->gpu_workers, 3 * o.config.gpu_workers_per_device);
    for (int k = 0; k < 3; k++) {
        const czk_engine_device_status *d = &s->devices[k];
        char want[64];
        snprintf(want, sizeof want, "cpu pseudo-device %d", k);
        assert_int_equal(d->index, k);
        assert_int_equal(d->ordinal, -1 - k);
        assert_string_equal(d->name, "cpu");
        assert_string_equal(d->identity.name, want);
        assert_string_equal(d->identity.uuid, "");
        assert_string_equal(d->identity.pci_bus_id, "");
        assert_int_equal(d->identity.vram_total_bytes, 0);
        assert_false(d->vram_known);
    }
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    assert_int_equal(g_made, 0);
    opts(&o, "cpu", &FAKE);
    o.config.cpu_devices = 0;
    expect_refused_with(&o, CZK_ERR_INVALID_ARG, "gpus.cpu_devices = 0: 1..64");
    /* one pseudo-device (the default): ordinal -1 as before */
    opts(&o, "cpu", NULL);
    e = et_start_bare(&o);
    s = et_status(e);
    assert_int_equal(s->num_devices, 1);
    assert_int_equal(s->devices[0].ordinal, -1);
    assert_string_equal(s->devices[0].identity.name, "cpu pseudo-device 0");
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_pseudo_devices),
        cmocka_unit_test(test_provider_makes_devices),
        cmocka_unit_test(test_fallback_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
