/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * The SRS cache under a tight budget, and device residency.
 *
 * With room for one circuit's keys only, loading a second waits (it never
 * over-commits) while the first is held or has not been idle for
 * memory.eviction_min_idle; an explicit eviction, or an idle time of 0,
 * lets it in (the first is evicted, LRU). A budget too small for a
 * circuit's keys fails the load with CZK_ERR_NOMEM. Eviction takes the
 * entry that served the lower priority first, the least recently used
 * among equals.
 *
 * A backend that takes the parameters onto its "device" (here: its own
 * copy of h, l, a and b_g1) lets the engine free those host vectors: the
 * status shows them as device bytes, the host budget shrinks to ic and
 * b_g2 (kept for the CPU's G2 MSM in finalization), proofs still verify,
 * and eviction asks the backend to unload. With two such devices each gets
 * its own copy (two loads, device_mask 0b11, the host vectors freed since
 * both hold them) and partitions run on both; when the second has no room
 * (its load says CZK_ERR_NOMEM) the first still holds its copy, the host
 * keeps the vectors for the second (device_mask 0b01, tier HOT) and proofs
 * from both verify.
 */
#include "etest.h"

#include <sys/stat.h>

static char g_dir[256];
static czk_params *g_k6, *g_k7, *g_k8;

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "engine");
    g_k6 = et_make_keys(g_dir, 6, 6);
    g_k7 = et_make_keys(g_dir, 7, 7);
    g_k8 = et_make_keys(g_dir, 8, 8);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_params_free(g_k6);
    czk_params_free(g_k7);
    czk_params_free(g_k8);
    czk_test_rm_rf(g_dir);
    return 0;
}

static uint64_t host_bytes(const czk_params *p) {
    return 96ull * (p->vk.ic_len + p->h_len + p->l_len + p->a_len + p->b_g1_len) +
           192ull * p->b_g2_len;
}

static uint64_t file_bytes(unsigned log) {
    char path[400];
    snprintf(path, sizeof path, "%s/czk-test-%u.params", g_dir, log);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

static czk_engine *start(ev_log *log, uint64_t budget, uint64_t min_idle_ms) {
    czk_engine_opts o;
    et_opts(&o, log, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.total_budget = budget;
    o.config.eviction_min_idle_ms = min_idle_ms;
    return et_start(&o);
}

static const czk_engine_srs_status *find_srs(const czk_engine_status *s, const char *id) {
    for (size_t i = 0; i < s->num_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, id)) return &s->srs[i];
    return NULL;
}

static void test_tight_budget(void **state) {
    (void)state;
    czk_err err;
    /* learn what test-6 takes (keys + shape) */
    czk_engine *e = start(NULL, 1ull << 30, 0);
    czk_assert_ok(czk_engine_preload(e, "test-6", true, NULL, NULL, &err), &err);
    czk_engine_status *s = et_status(e);
    uint64_t s6 = s->budget_used - s->budget_witness_buffers; /* not its prefilled buffers */
    assert_int_equal(s->budget_srs, host_bytes(g_k6));
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    /* room for test-6, and for test-7's file less one byte (test-6's prefilled buffers take
     * some of it, and are freed first when test-7 asks) */
    uint64_t budget = s6 + file_bytes(7) - 1;
    ev_log log;
    e = start(&log, budget, 3600 * 1000);
    czk_assert_ok(czk_engine_preload(e, "test-6", true, NULL, NULL, &err), &err);
    czk_assert_ok(czk_engine_preload(e, "test-7", false, NULL, NULL, &err), &err);
    usleep(300000);
    s = et_status(e);
    const czk_engine_srs_status *x6 = find_srs(s, "test-6"), *x7 = find_srs(s, "test-7");
    assert_non_null(x6);
    assert_non_null(x7);
    assert_int_equal(x6->tier, CZK_SRS_WARM); /* host memory (CPU backend) */
    assert_int_equal(x7->tier, CZK_SRS_COLD); /* still on disk: waiting for room (test-6 is
                                                 not idle long) */
    assert_string_equal(x6->load_stage, "");  /* loaded: no read in progress */
    assert_int_equal(x6->load_percent, 0);
    assert_string_equal(x7->load_stage, ""); /* waiting for room: the read has not begun */
    assert_true(s->budget_used <= budget);
    czk_engine_status_free(s);
    assert_int_equal(ev_count(&log, CZK_EV_SRS_LOAD_START, "-"), 1);
    bool was;
    uint64_t freed;
    czk_assert_ok(czk_engine_evict(e, "test-6", &was, &freed, &err), &err);
    assert_true(was);
    assert_int_equal(freed, s6);
    czk_assert_ok(czk_engine_preload(e, "test-7", true, NULL, NULL, &err), &err);
    s = et_status(e);
    assert_int_equal(s->num_srs, 1);
    assert_string_equal(s->srs[0].circuit_id, "test-7");
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
    /* idle time 0: memory is short, test-6 is idle, so it is evicted for test-7 */
    e = start(&log, budget, 0);
    czk_assert_ok(czk_engine_preload(e, "test-6", true, NULL, NULL, &err), &err);
    czk_assert_ok(czk_engine_preload(e, "test-7", true, NULL, NULL, &err), &err);
    const ev_rec *ev = ev_find(&log, CZK_EV_SRS_EVICT, "-", -2, 0);
    assert_true(ev_has(ev, "circuit=test-6"));
    s = et_status(e);
    assert_int_equal(s->num_srs, 1);
    assert_string_equal(s->srs[0].circuit_id, "test-7");
    czk_engine_status_free(s);
    /* a job on test-6 now waits until test-7 (idle) is evicted in turn, then proves */
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=3 partitions=1 log=6");
    czk_job_result r = et_await(e, id);
    if (r.state == CZK_JOB_COMPLETED) {
        et_verify(&g_k6->vk, &r, 3, 1, 6);
    } else {
        /* the working memory of a partition did not fit beside test-6's keys: refused, named */
        assert_int_equal(r.error_code, CZK_ERR_NOMEM);
        assert_non_null(strstr(r.error, "admission"));
    }
    czk_job_result_free(&r);
    czk_engine_destroy(e);
    free(log.v);
    /* a budget smaller than the keys: refused */
    e = start(NULL, file_bytes(7) - 1, 0);
    assert_int_equal(czk_engine_preload(e, "test-7", true, NULL, NULL, &err), CZK_ERR_NOMEM);
    assert_non_null(strstr(err.msg, "nothing left to evict"));
    czk_engine_destroy(e);
}

/*
 * With room for two circuits, loading a third evicts the one that served the lower priority,
 * not the least recently used: test-6 (held by a CRITICAL job, idle the longest) stays,
 * test-7 (a LOW job of the test kind, whose default is NORMAL: it served NORMAL) goes.
 */
static void test_evict_by_priority(void **state) {
    (void)state;
    czk_err err;
    uint64_t sz[2]; /* keys + shape of test-6 and test-7, each loaded alone */
    for (unsigned log = 6; log <= 7; log++) {
        czk_engine *e = start(NULL, 1ull << 30, 0);
        char id[16];
        snprintf(id, sizeof id, "test-%u", log);
        czk_assert_ok(czk_engine_preload(e, id, true, NULL, NULL, &err), &err);
        czk_engine_status *s = et_status(e);
        sz[log - 6] = s->budget_used - s->budget_witness_buffers;
        czk_engine_status_free(s);
        czk_engine_destroy(e);
    }
    ev_log log;
    czk_engine *e = start(&log, sz[0] + sz[1] + file_bytes(8) - 1, 0);
    char a[CZK_JOB_ID_MAX], b[CZK_JOB_ID_MAX];
    et_submit(e, a, NULL, CZK_PRIORITY_CRITICAL, "seed=71 partitions=1 log=6");
    czk_job_result r = et_await(e, a);
    et_verify(&g_k6->vk, &r, 71, 1, 6);
    czk_job_result_free(&r);
    et_submit(e, b, NULL, CZK_PRIORITY_LOW, "seed=72 partitions=1 log=7");
    r = et_await(e, b);
    et_verify(&g_k7->vk, &r, 72, 1, 7);
    czk_job_result_free(&r);
    assert_int_equal(ev_count(&log, CZK_EV_SRS_EVICT, "-"), 0); /* both fit */
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    const ev_rec *ev = ev_find(&log, CZK_EV_SRS_EVICT, "-", -2, 0);
    assert_true(ev_has(ev, "circuit=test-7"));
    czk_engine_status *s = et_status(e);
    assert_non_null(find_srs(s, "test-6"));
    assert_non_null(find_srs(s, "test-8"));
    assert_null(find_srs(s, "test-7"));
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
}

/* ---- a backend with a "device": its own copy of h, l, a, b_g1 ---- */

typedef struct dev_be {
    czk_backend cpu;
    const czk_params *owner; /* the host params it was loaded for */
    czk_params dev;          /* shallow: the device copies of the four vectors */
    int loads, unloads;
    bool no_room; /* its load says CZK_ERR_NOMEM: it reads the host vectors */
    int proved;   /* device parts it ran */
} dev_be;

static czk_status dev_sums(void *self, const czk_params *p, const czk_shape *s,
                           const czk_witness *w, size_t count, czk_msm_sums *out,
                           czk_prove_timings *t, czk_err *err) {
    (void)self, (void)p, (void)s, (void)w, (void)count, (void)out, (void)t;
    return czk_errf(err, CZK_ERR_INTERNAL, "dev backend: sums is not used by the engine");
}

static czk_status dev_device(void *self, const czk_params *p, const czk_shape *s,
                             const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                             unsigned *deferred, czk_prove_timings *t, czk_err *err) {
    dev_be *b = self;
    b->proved++;
    if (b->no_room) {
        if (!p->h || !p->l || !p->a || !p->b_g1)
            return czk_errf(err, CZK_ERR_INTERNAL, "dev backend: host vectors dropped under it");
        return czk_prove_device(&b->cpu, p, s, w, lock, out, deferred, t, err);
    }
    if (p != b->owner)
        return czk_errf(err, CZK_ERR_INTERNAL, "dev backend: params not resident as loaded");
    czk_params v = *p;
    v.h = b->dev.h;
    v.l = b->dev.l;
    v.a = b->dev.a;
    v.b_g1 = b->dev.b_g1;
    return czk_prove_device(&b->cpu, &v, s, w, lock, out, deferred, t, err);
}

static void *dup_vec(const void *p, size_t n) {
    void *q = malloc(n ? n : 1);
    assert_non_null(q);
    memcpy(q, p, n);
    return q;
}

static czk_status dev_load(void *self, const czk_params *p, const czk_shape *s, unsigned *drop,
                           uint64_t *bytes, czk_err *err) {
    (void)s;
    dev_be *b = self;
    b->loads++;
    if (b->no_room) return czk_errf(err, CZK_ERR_NOMEM, "dev backend: no room");
    b->owner = p;
    b->dev.h = dup_vec(p->h, p->h_len * sizeof *p->h);
    b->dev.l = dup_vec(p->l, p->l_len * sizeof *p->l);
    b->dev.a = dup_vec(p->a, p->a_len * sizeof *p->a);
    b->dev.b_g1 = dup_vec(p->b_g1, p->b_g1_len * sizeof *p->b_g1);
    *drop = CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1;
    *bytes = 96ull * (p->h_len + p->l_len + p->a_len + p->b_g1_len);
    return CZK_OK;
}

static void dev_unload(void *self, const czk_params *p) {
    dev_be *b = self;
    if (b->no_room && !b->owner) return; /* it holds nothing */
    assert_ptr_equal(p, b->owner);
    b->unloads++;
    free(b->dev.h), free(b->dev.l), free(b->dev.a), free(b->dev.b_g1);
    memset(&b->dev, 0, sizeof b->dev);
    b->owner = NULL;
}

static dev_be *g_devs[2]; /* those made for the test's engine, by ordinal */
#define g_dev g_devs[0]
static bool g_no_room[2];

static void dev_destroy(void *self) {
    dev_be *b = self;
    czk_backend_release(&b->cpu);
    free(b);
}

static const czk_backend_ops DEV_OPS = {"dev",      dev_sums, dev_destroy, dev_device, dev_load,
                                        dev_unload, NULL,     NULL,        NULL};

static czk_status dev_factory(void *ctx, int device, czk_pool *pool, czk_backend *out,
                              czk_err *err) {
    (void)ctx;
    assert_true(device == 0 || device == 1);
    dev_be *b = calloc(1, sizeof *b);
    b->no_room = g_no_room[device];
    assert_non_null(b);
    czk_status st = czk_backend_cpu(&b->cpu, pool, err);
    if (st) return st;
    out->ops = &DEV_OPS;
    out->self = b;
    g_devs[device] = b;
    return CZK_OK;
}

static void test_device_resident(void **state) {
    (void)state;
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    snprintf(o.config.backend, sizeof o.config.backend, "cuda");
    o.config.devices[0] = 0;
    o.config.num_devices = 1;
    o.make_backend = dev_factory;
    czk_engine *e = et_start(&o);
    czk_err err;
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    assert_int_equal(g_dev->loads, 1);
    const czk_params *p = g_k8;
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 1);
    assert_int_equal(s->devices[0].ordinal, 0);
    assert_string_equal(s->devices[0].name, "dev");
    assert_int_equal(s->srs[0].tier, CZK_SRS_HOT); /* in device memory */
    assert_int_equal(s->srs[0].device_bytes,
                     96ull * (p->h_len + p->l_len + p->a_len + p->b_g1_len));
    assert_int_equal(s->srs[0].size_bytes, 96ull * p->vk.ic_len + 192ull * p->b_g2_len);
    assert_int_equal(s->budget_srs, s->srs[0].size_bytes);
    czk_engine_status_free(s);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=81 partitions=3 log=8");
    czk_job_result r = et_await(e, id);
    et_verify(&g_k8->vk, &r, 81, 3, 8);
    czk_job_result_free(&r);
    czk_engine_status_free(et_wait_idle(e));
    for (int i = 0; i < 200; i++) {
        bool was;
        if (!czk_engine_evict(e, "test-8", &was, NULL, &err)) break;
        usleep(5000); /* the job lets go of its keys once its last partition is out */
    }
    assert_int_equal(g_dev->unloads, 1);
    czk_engine_destroy(e);
}

/* Two devices: each its own copy, or one copy and the host's for the device without room. */
static void two_devices(bool second_has_room) {
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    snprintf(o.config.backend, sizeof o.config.backend, "cuda");
    o.config.devices[0] = 0;
    o.config.devices[1] = 1;
    o.config.num_devices = 2;
    o.config.gpu_workers_per_device = 1;
    o.make_backend = dev_factory;
    g_no_room[0] = false;
    g_no_room[1] = !second_has_room;
    czk_engine *e = et_start(&o);
    czk_err err;
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    assert_int_equal(g_devs[0]->loads, 1);
    assert_int_equal(g_devs[1]->loads, 1);
    const czk_params *p = g_k8;
    uint64_t one = 96ull * (p->h_len + p->l_len + p->a_len + p->b_g1_len);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 2);
    assert_int_equal(s->srs[0].tier, CZK_SRS_HOT);
    assert_int_equal(s->srs[0].device_mask, second_has_room ? 3u : 1u);
    assert_int_equal(s->srs[0].device_bytes, second_has_room ? 2 * one : one);
    /* the host keeps h, l, a, b_g1 only for a device that reads them from there */
    assert_int_equal(s->srs[0].size_bytes,
                     96ull * p->vk.ic_len + 192ull * p->b_g2_len + (second_has_room ? 0 : one));
    czk_engine_status_free(s);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=82 partitions=8 log=8");
    czk_job_result r = et_await(e, id);
    et_verify(&g_k8->vk, &r, 82, 8, 8);
    czk_job_result_free(&r);
    assert_int_equal(g_devs[0]->proved + g_devs[1]->proved, 8);
    assert_true(g_devs[0]->proved >= 1 && g_devs[1]->proved >= 1);
    czk_engine_status_free(et_wait_idle(e));
    for (int i = 0; i < 200; i++) {
        bool was;
        if (!czk_engine_evict(e, "test-8", &was, NULL, &err)) break;
        usleep(5000); /* the job lets go of its keys once its last partition is out */
    }
    assert_int_equal(g_devs[0]->unloads, 1);
    assert_int_equal(g_devs[1]->unloads, second_has_room ? 1 : 0);
    czk_engine_destroy(e);
}

static void test_two_devices_resident(void **state) {
    (void)state;
    two_devices(true);
    two_devices(false);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tight_budget),
        cmocka_unit_test(test_evict_by_priority),
        cmocka_unit_test(test_device_resident),
        cmocka_unit_test(test_two_devices_resident),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
