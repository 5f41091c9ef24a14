/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * Proof kinds are plug-ins: an engine serves exactly the kinds registered
 * with it. A kind written here (not built into czk: "power", id 42, x^8 in
 * seven constraints, default priority HIGH) is registered, served and
 * proves; its name and metric label come out of the status snapshot and
 * the Prometheus text; its srs.preload circuit loads once it is
 * registered; its ctx is destroyed with the engine. An engine without it
 * refuses its id (and any unregistered one) as CZK_ERR_UNSUPPORTED, from
 * czk_engine_kind_served and from czk_engine_submit alike, naming the
 * kinds it does serve. The proofs are checked here against x and x^8
 * computed natively.
 */
#include "etest.h"
#include "czk/httpstatus.h" /* czk_metrics_* */

#define POWER_KIND ((czk_kind_id)42)
#define POWER_STEPS 7 /* y = x^8: t1 = x·x, t_{i+1} = t_i·x, y = t_7 */

typedef struct power_job {
    czk_fr x[2], y[2]; /* partition k proves x[k]^8 = y[k] */
} power_job;

typedef struct power_vals {
    const czk_fr *x, *y; /* NULL: recording */
} power_vals;

static czk_status power_circuit(czk_cs *cs, void *ctx) {
    const power_vals *v = ctx;
    bool vals = czk_cs_has_values(cs) && v->x;
    czk_var x = czk_cs_alloc_input(cs, vals ? v->x : NULL);
    czk_var y = czk_cs_alloc_input(cs, vals ? v->y : NULL);
    czk_fr t = vals ? *v->x : czk_fr_zero;
    czk_var tv = x;
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    for (int i = 0; i < POWER_STEPS; i++) {
        czk_fr next;
        if (vals) czk_fr_mul(&next, &t, v->x);
        czk_var nv = i + 1 == POWER_STEPS ? y : czk_cs_alloc(cs, vals ? &next : NULL);
        if (czk_cs_records(cs)) {
            czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
            czk_lc_add_var(cs, &a, tv);
            czk_lc_add_var(cs, &b, x);
            czk_lc_add_var(cs, &c, nv);
            czk_cs_enforce(cs, &a, &b, &c);
        }
        if (vals) t = next;
        tv = nv;
    }
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    return czk_cs_status(cs);
}

static czk_shape *power_shape(czk_err *err) {
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, err);
    if (!cs) return NULL;
    power_vals v = {NULL, NULL};
    czk_shape *shape = NULL;
    if (czk_cs_run(cs, power_circuit, &v, err) || czk_cs_take_shape(cs, &shape, err)) shape = NULL;
    czk_cs_free(cs);
    return shape;
}

/* The kind's keys: a setup from a fixed seed (the test makes the same ones for its vk). */
static czk_status power_params(czk_params **out, const czk_shape *shape, czk_err *err) {
    czk_rng rng;
    czk_rng_seed(&rng, 4242);
    czk_toxic t;
    czk_status st = czk_toxic_random(&t, &rng, err);
    return st ? st : czk_setup(out, shape, &t, NULL, err);
}

/* payload "x=<u64>": partitions prove x and x + 1 */
static czk_status power_parse(void *ctx, const czk_proof_request *req, void **job,
                              czk_kind_job_info *info, czk_err *err) {
    (void)ctx;
    char text[32];
    size_t n = req->vanilla_proof_len < sizeof text - 1 ? req->vanilla_proof_len : sizeof text - 1;
    memcpy(text, req->vanilla_proof ? (const char *)req->vanilla_proof : "", n);
    text[n] = 0;
    unsigned long long x;
    char tail;
    if (sscanf(text, "x=%llu%c", &x, &tail) != 1)
        return czk_errf(err, CZK_ERR_FORMAT, "power payload: '%s' is not x=<u64>", text);
    power_job *j = calloc(1, sizeof *j);
    if (!j) return czk_errf(err, CZK_ERR_NOMEM, "power: out of memory");
    for (int k = 0; k < 2; k++) {
        czk_fr_from_u64(&j->x[k], x + (unsigned)k);
        j->y[k] = j->x[k];
        for (int i = 0; i < POWER_STEPS; i++)
            czk_fr_mul(&j->y[k], &j->y[k], &j->x[k]);
    }
    info->num_partitions = 2;
    info->num_public_inputs = 2;
    snprintf(info->circuit_id, sizeof info->circuit_id, "power-8");
    *job = j;
    return CZK_OK;
}

static czk_status power_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                   const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                   czk_err *err) {
    (void)ctx, (void)shape, (void)pool;
    power_job *j = job;
    czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, cancel, err);
    if (!cs) return err && err->code ? err->code : CZK_ERR_NOMEM;
    power_vals v = {&j->x[k], &j->y[k]};
    czk_status st =
        czk_cs_set_witness_buffers(cs, out->inputs, out->num_inputs, out->aux, out->num_aux, err);
    if (!st) st = czk_cs_run(cs, power_circuit, &v, err);
    if (!st) st = czk_cs_take_witness(cs, out, err);
    czk_cs_free(cs);
    return st;
}

static czk_status power_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx, (void)err;
    power_job *j = job;
    out[0] = j->x[k];
    out[1] = j->y[k];
    return CZK_OK;
}

static czk_status power_load(void *ctx, const char *id, const char *param_cache, czk_pool *pool,
                             const atomic_int *cancel, czk_params_progress_fn progress,
                             void *progress_ctx, czk_params **params, czk_shape **shape,
                             czk_err *err) {
    (void)ctx, (void)param_cache, (void)pool, (void)cancel, (void)progress, (void)progress_ctx;
    *params = NULL;
    if (strcmp(id, "power-8"))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "power: no circuit %s", id);
    if (!(*shape = power_shape(err))) return err && err->code ? err->code : CZK_ERR_NOMEM;
    czk_status st = power_params(params, *shape, err);
    if (st) {
        czk_shape_free(*shape);
        *shape = NULL;
    }
    return st;
}

static bool power_owns(void *ctx, const char *id) {
    (void)ctx;
    return !strcmp(id, "power-8");
}

static void power_job_free(void *ctx, void *job) {
    (void)ctx;
    free(job);
}

static void power_destroy(void *ctx) {
    ++*(int *)ctx;
}

static czk_proof_kind power_kind(int *destroyed) {
    czk_proof_kind k;
    memset(&k, 0, sizeof k);
    k.id = POWER_KIND;
    k.name = "power";
    k.metric_label = "power_kind";
    k.default_priority = CZK_PRIORITY_HIGH;
    k.ctx = destroyed;
    k.parse = power_parse;
    k.synthesize = power_synthesize;
    k.public_inputs = power_inputs;
    k.load_circuit = power_load;
    k.owns_circuit = power_owns;
    k.job_free = power_job_free;
    k.destroy = power_destroy;
    return k;
}

static czk_proof_request power_req(const char *payload) {
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.kind = POWER_KIND;
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    return r;
}

static bool has_line(const char *text, const char *line) {
    size_t n = strlen(line);
    for (const char *p = strstr(text, line); p; p = strstr(p + 1, line))
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n])) return true;
    return false;
}

static void test_registered_kind(void **state) {
    (void)state;
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.preload[0], sizeof o.config.preload[0], "power-8");
    o.config.num_preload = 1;
    czk_engine *e = et_start_bare(&o);
    czk_err err;
    char name[CZK_KIND_NAME_MAX] = "x";

    /* nothing is served yet, not even czk's own kinds */
    assert_int_equal(czk_engine_kind_served(e, CZK_KIND_TEST, name, &err), CZK_ERR_UNSUPPORTED);
    assert_string_equal(name, "");
    assert_string_equal(err.msg,
                        "proof kind 100 is not implemented in this engine (it serves no kind)");
    czk_proof_request r = power_req("x=3");
    char id[CZK_JOB_ID_MAX];
    assert_int_equal(czk_engine_submit(e, &r, id, NULL, &err), CZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "proof kind 42 is not implemented in this engine"));
    assert_int_equal(czk_engine_preload(e, "power-8", true, NULL, NULL, &err),
                     CZK_ERR_INVALID_ARG); /* no kind owns the circuit yet */

    /* a descriptor without a metric label is refused */
    int destroyed = 0;
    czk_proof_kind k = power_kind(&destroyed);
    k.metric_label = NULL;
    assert_int_equal(czk_engine_register_kind(e, &k, &err), CZK_ERR_INVALID_ARG);
    k = power_kind(&destroyed);
    czk_assert_ok(czk_engine_register_kind(e, &k, &err), &err);
    czk_assert_ok(czk_engine_kind_served(e, POWER_KIND, name, &err), &err);
    assert_string_equal(name, "power");
    assert_int_equal(czk_engine_kind_served(e, CZK_KIND_TEST, NULL, &err), CZK_ERR_UNSUPPORTED);
    assert_string_equal(err.msg,
                        "proof kind 100 is not implemented in this engine (it serves power (42))");
    assert_int_equal(czk_engine_kind_served(e, CZK_KIND_UNSPECIFIED, NULL, &err),
                     CZK_ERR_INVALID_ARG);

    /* srs.preload named its circuit: it loads now that its kind is registered */
    bool warm = false;
    for (int i = 0; i < 500 && !warm; i++) {
        czk_engine_status *s = et_status(e);
        for (size_t j = 0; j < s->num_srs; j++)
            warm |= !strcmp(s->srs[j].circuit_id, "power-8") && s->srs[j].tier == CZK_SRS_WARM;
        czk_engine_status_free(s);
        if (!warm) usleep(10000);
    }
    assert_true(warm);

    /* served: the kind's default priority, its circuit, its proofs */
    czk_assert_ok(czk_engine_submit(e, &r, id, NULL, &err), &err);
    czk_job_info info;
    czk_assert_ok(czk_engine_job_info(e, id, &info, &err), &err);
    assert_int_equal(info.priority, CZK_PRIORITY_HIGH);
    assert_int_equal(info.kind, POWER_KIND);
    assert_string_equal(info.circuit_id, "power-8");
    czk_job_result res = et_await(e, id);
    assert_int_equal(res.state, CZK_JOB_COMPLETED);
    assert_int_equal(res.kind, POWER_KIND);
    assert_int_equal(res.proof_len, 2 * CZK_PROOF_BYTES);
    czk_shape *shape = power_shape(&err);
    assert_non_null(shape);
    czk_params *params;
    czk_assert_ok(power_params(&params, shape, &err), &err);
    czk_pvk pvk;
    czk_assert_ok(czk_pvk_prepare(&pvk, &params->vk, &err), &err);
    for (unsigned q = 0; q < 2; q++) {
        /* x = 3 + q, y = x^8 as integers: 6561 and 65536 */
        czk_fr in[2];
        czk_fr_from_u64(&in[0], 3 + q);
        czk_fr_from_u64(&in[1], q ? 65536 : 6561);
        czk_proof p;
        czk_assert_ok(czk_proof_decode(&p, res.proof + (size_t)q * CZK_PROOF_BYTES, &err), &err);
        czk_assert_ok(czk_verify(&pvk, &p, in, 2, &err), &err);
        czk_fr_add(&in[1], &in[1], &czk_fr_one);
        assert_int_equal(czk_verify(&pvk, &p, in, 2, &err), CZK_ERR_VERIFY);
    }
    czk_job_result_free(&res);

    /* refused at intake: the submit says so with the kind's status and message */
    r = power_req("x=three");
    assert_int_equal(czk_engine_submit(e, &r, id, NULL, &err), CZK_ERR_FORMAT);
    assert_string_equal(id, "");
    assert_non_null(strstr(err.msg, "payload refused by kind power: power payload: 'x=three'"));

    /* its name and metric label, from the descriptor */
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->num_kinds, 1);
    assert_string_equal(s->kinds[0].name, "power");
    assert_string_equal(s->kinds[0].metric_label, "power_kind");
    assert_string_equal(czk_engine_status_kind_name(s, POWER_KIND), "power");
    assert_string_equal(czk_engine_status_kind_label(s, POWER_KIND), "power_kind");
    assert_string_equal(czk_engine_status_kind_name(s, CZK_KIND_POREP_C2), "unspecified");
    char *text;
    czk_assert_ok(czk_metrics_format(s, &text, &err), &err);
    assert_true(has_line(text, "cuzk_proofs_completed{proof_kind=\"power_kind\"} 1"));
    assert_true(has_line(text, "cuzk_proofs_failed{proof_kind=\"power_kind\"} 1"));
    assert_true(has_line(text, "cuzk_proofs_completed{proof_kind=\"porep_c2\"} 0"));
    assert_true(
        has_line(text, "czk_proofs_total{proof_kind=\"power_kind\",status=\"completed\"} 1"));
    assert_null(strstr(text, "proof_kind=\"test\""));
    free(text);
    czk_engine_status_free(s);
    czk_pvk_free(&pvk);
    czk_params_free(params);
    czk_shape_free(shape);
    assert_int_equal(destroyed, 0);
    czk_engine_destroy(e);
    assert_int_equal(destroyed, 1);
}

/* czk's kinds, each registered by its one line, are what the engine then serves. */
static void test_czk_kinds(void **state) {
    (void)state;
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    czk_engine *e = et_start_bare(&o);
    czk_err err;
    char name[CZK_KIND_NAME_MAX];
    czk_assert_ok(czk_kinds_register_test(e, &err), &err);
    czk_assert_ok(czk_engine_kind_served(e, CZK_KIND_TEST, name, &err), &err);
    assert_string_equal(name, "test");
    assert_int_equal(czk_engine_kind_served(e, CZK_KIND_POREP_C2, name, &err), CZK_ERR_UNSUPPORTED);
    assert_string_equal(err.msg,
                        "proof kind 1 is not implemented in this engine (it serves test (100))");
    czk_assert_ok(czk_kinds_register_porep(e, &err), &err);
    czk_assert_ok(czk_engine_kind_served(e, CZK_KIND_POREP_C2, name, &err), &err);
    assert_string_equal(name, "porep-c2");
    assert_int_equal(czk_engine_kind_served(e, CZK_KIND_WINDOW_POST, name, &err),
                     CZK_ERR_UNSUPPORTED);
    assert_string_equal(err.msg, "proof kind 3 is not implemented in this engine (it serves test "
                                 "(100), porep-c2 (1))");
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_kinds, 2);
    assert_string_equal(czk_engine_status_kind_label(s, CZK_KIND_POREP_C2), "porep_c2");
    assert_string_equal(czk_engine_status_kind_label(s, CZK_KIND_TEST), "test");
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered_kind),
        cmocka_unit_test(test_czk_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
