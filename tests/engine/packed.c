/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * The packed witness in the engine: with a device backend that offers
 * host_alloc (here the CPU backend with malloc'ed "page-locked" blocks), the
 * synthesis worker packs every witness into its buffer's room
 * (czk_witness_pack) and the device part gets it as czk_witness.packed.
 * A kind written here ("bits", id 43: x and eight copies of its 64 bits,
 * booleanity and the sum checked, and eight multiples of x, so ones, zeros
 * and a few others) packs; the backend expands what it gets naively and
 * compares it with the witness byte for byte, and the proofs verify (the
 * engine checks each one). The test kind's witness (a chain of field
 * elements, nearly all others) does not fit the room: it goes unpacked and
 * proves as before. The SYNTH_END events say which (packed=1 / 0), the
 * buffer's size in the status is the witness plus the room
 * (czk_witness_packed_bytes). With the CPU backend (no host_alloc) nothing
 * is packed and the buffers are the witness's size.
 */
#include "engine/internal.h"
#include "etest.h"
#include "host_blocks.h"

#define BITS_KIND ((czk_kind_id)43)
#define BITS_COPIES 8

ET_KEYS_GROUP(8, 4301)

/* ---- the bits kind ---- */

typedef struct bits_job {
    uint64_t x[2]; /* partition k: x + k */
} bits_job;

static czk_status bits_circuit(czk_cs *cs, void *ctx) {
    const uint64_t *xv = ctx; /* NULL: recording */
    bool vals = czk_cs_has_values(cs) && xv;
    czk_fr x = czk_fr_zero;
    if (vals) czk_fr_from_u64(&x, *xv);
    czk_var xvar = czk_cs_alloc_input(cs, vals ? &x : NULL);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT, sum = CZK_LC_INIT;
    czk_fr minus_one;
    czk_fr_sub(&minus_one, &czk_fr_zero, &czk_fr_one);
    for (unsigned r = 0; r < BITS_COPIES; r++) {
        czk_lc_clear(&sum);
        czk_fr pow = czk_fr_one;
        for (unsigned i = 0; i < 64; i++) {
            czk_fr bit = (vals && (*xv >> i & 1)) ? czk_fr_one : czk_fr_zero;
            czk_var bv = czk_cs_alloc(cs, vals ? &bit : NULL);
            if (czk_cs_records(cs)) { /* b · (1 − b) = 0 */
                czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
                czk_lc_add_var(cs, &a, bv);
                czk_lc_add_var(cs, &b, CZK_VAR_ONE);
                czk_lc_add(cs, &b, bv, &minus_one);
                czk_cs_enforce(cs, &a, &b, &c);
                czk_lc_add(cs, &sum, bv, &pow);
            }
            czk_fr_add(&pow, &pow, &pow);
        }
        czk_fr m, t = czk_fr_zero;
        czk_fr_from_u64(&m, r + 2);
        if (vals) czk_fr_mul(&t, &x, &m);
        czk_var tv = czk_cs_alloc(cs, vals ? &t : NULL);
        if (czk_cs_records(cs)) {
            czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
            czk_lc_add_var(cs, &b, CZK_VAR_ONE); /* Σ 2^i b_i · 1 = x */
            czk_lc_add_var(cs, &c, xvar);
            czk_cs_enforce(cs, &sum, &b, &c);
            czk_lc_clear(&b), czk_lc_clear(&c); /* x · (r + 2) = t */
            czk_lc_add_var(cs, &a, xvar);
            czk_lc_add(cs, &b, CZK_VAR_ONE, &m);
            czk_lc_add_var(cs, &c, tv);
            czk_cs_enforce(cs, &a, &b, &c);
        }
    }
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c), czk_lc_free(&sum);
    return czk_cs_status(cs);
}

static czk_status bits_parse(void *ctx, const czk_proof_request *req, void **job,
                             czk_kind_job_info *info, czk_err *err) {
    (void)ctx;
    char text[32];
    size_t n = req->vanilla_proof_len < sizeof text - 1 ? req->vanilla_proof_len : sizeof text - 1;
    memcpy(text, req->vanilla_proof ? (const char *)req->vanilla_proof : "", n);
    text[n] = 0;
    unsigned long long x;
    if (sscanf(text, "x=%llu", &x) != 1)
        return czk_errf(err, CZK_ERR_FORMAT, "bits payload: '%s' is not x=<u64>", text);
    bits_job *j = calloc(1, sizeof *j);
    if (!j) return czk_errf(err, CZK_ERR_NOMEM, "bits: out of memory");
    for (int k = 0; k < 2; k++)
        j->x[k] = x + (unsigned)k;
    info->num_partitions = 2;
    info->num_public_inputs = 1;
    snprintf(info->circuit_id, sizeof info->circuit_id, "bits-1");
    *job = j;
    return CZK_OK;
}

static czk_status bits_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                  const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                  czk_err *err) {
    (void)ctx, (void)shape, (void)pool;
    return czk_cs_witness_into(out, bits_circuit, &((bits_job *)job)->x[k], cancel, err);
}

static czk_status bits_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx, (void)err;
    czk_fr_from_u64(&out[0], ((bits_job *)job)->x[k]);
    return CZK_OK;
}

static czk_status bits_load(void *ctx, const char *id, const char *param_cache, czk_pool *pool,
                            const atomic_int *cancel, czk_params_progress_fn progress,
                            void *progress_ctx, czk_params **params, czk_shape **shape,
                            czk_err *err) {
    (void)ctx, (void)param_cache, (void)pool, (void)progress, (void)progress_ctx;
    *params = NULL;
    if (strcmp(id, "bits-1")) return czk_errf(err, CZK_ERR_INVALID_ARG, "bits: no circuit %s", id);
    czk_status st = czk_cs_record(shape, bits_circuit, NULL, cancel, err);
    if (!st) st = czk_test_keys(params, *shape, 4302, NULL, err);
    if (st) {
        czk_shape_free(*shape);
        *shape = NULL;
    }
    return st;
}

static bool bits_owns(void *ctx, const char *id) {
    (void)ctx;
    return !strcmp(id, "bits-1");
}

static void bits_job_free(void *ctx, void *job) {
    (void)ctx;
    free(job);
}

static void bits_register(czk_engine *e) {
    czk_proof_kind k;
    memset(&k, 0, sizeof k);
    k.id = BITS_KIND;
    k.name = "bits";
    k.metric_label = "bits";
    k.default_priority = CZK_PRIORITY_NORMAL;
    k.parse = bits_parse;
    k.synthesize = bits_synthesize;
    k.public_inputs = bits_inputs;
    k.load_circuit = bits_load;
    k.owns_circuit = bits_owns;
    k.job_free = bits_job_free;
    czk_err err;
    czk_assert_ok(czk_engine_register_kind(e, &k, &err), &err);
}

/* ---- a backend with host_alloc that checks the packed form it gets ---- */

typedef struct chk_be {
    czk_backend cpu;
    host_blocks hb;
    pthread_mutex_t mu;
    int packed, unpacked, wrong;
} chk_be;

static chk_be g_chk;

/* Whether p expands (naively: one value at a time) to w's z = inputs ‖ aux. */
static bool expands_to(const czk_witness_packed *p, const czk_witness *w) {
    uint64_t n = (uint64_t)w->num_inputs + w->num_aux, m = 0;
    if (p->n != n) return false;
    for (uint64_t i = 0; i < n; i++) {
        const czk_fr *v = i < w->num_inputs ? &w->inputs[i] : &w->aux[i - w->num_inputs];
        unsigned code = (unsigned)(p->codes[i / 32] >> (2 * (i % 32))) & 3;
        const czk_fr *want = code == 0 ? &czk_fr_zero : code == 1 ? &czk_fr_one : &p->others[m++];
        if (code == 3 || memcmp(v, want, sizeof *v)) return false;
    }
    return m == p->num_others;
}

static czk_status chk_sums(void *self, const czk_params *p, const czk_shape *s,
                           const czk_witness *w, size_t count, czk_msm_sums *out,
                           czk_prove_timings *t, czk_err *err) {
    chk_be *b = self;
    return b->cpu.ops->sums(b->cpu.self, p, s, w, count, out, t, err);
}

static czk_status chk_device(void *self, const czk_params *p, const czk_shape *s,
                             const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                             unsigned *deferred, czk_prove_timings *t, czk_err *err) {
    chk_be *b = self;
    bool ok = !w->packed || expands_to(w->packed, w);
    pthread_mutex_lock(&b->mu);
    if (w->packed)
        b->packed++;
    else
        b->unpacked++;
    if (!ok) b->wrong++;
    pthread_mutex_unlock(&b->mu);
    return czk_prove_device(&b->cpu, p, s, w, lock, out, deferred, t, err);
}

static void *chk_alloc(void *self, size_t bytes) {
    return hb_alloc(&((chk_be *)self)->hb, bytes);
}

static void chk_free(void *self, void *p, size_t bytes) {
    hb_free(&((chk_be *)self)->hb, p, bytes);
}

static void chk_destroy(void *self) {
    czk_backend_release(&((chk_be *)self)->cpu);
}

static const czk_backend_ops CHK_OPS = {"packed-check", chk_sums, chk_destroy, chk_device, NULL,
                                        NULL,           NULL,     chk_alloc,   chk_free};

static czk_status chk_factory(void *ctx, int device, czk_pool *pool, czk_backend *out,
                              czk_err *err) {
    (void)ctx, (void)device;
    czk_status st = czk_backend_cpu(&g_chk.cpu, pool, err);
    if (st) return st;
    out->ops = &CHK_OPS;
    out->self = &g_chk;
    return CZK_OK;
}

/* ---- the tests ---- */

static czk_job_result submit_bits(czk_engine *e, char id[CZK_JOB_ID_MAX], const char *payload) {
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.kind = BITS_KIND;
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    czk_err err;
    czk_assert_ok(czk_engine_submit(e, &r, id, NULL, &err), &err);
    return et_await(e, id);
}

/* SYNTH_END events of job id holding `what`. */
static size_t synth_ends(ev_log *log, const char *id, const char *what) {
    size_t n = 0;
    pthread_mutex_lock(&log->mu);
    for (size_t i = 0; i < log->n; i++)
        n += log->v[i].type == CZK_EV_SYNTH_END && !strcmp(log->v[i].job, id) &&
             ev_has(&log->v[i], what);
    pthread_mutex_unlock(&log->mu);
    return n;
}

static uint64_t buffer_bytes(czk_engine *e, const char *circuit) {
    czk_engine_status *s = et_wait_idle(e);
    uint64_t bytes = 0;
    for (size_t i = 0; i < s->num_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, circuit)) bytes = s->srs[i].witness_buffer_bytes;
    czk_engine_status_free(s);
    return bytes;
}

static void test_packed_to_device(void **state) {
    (void)state;
    memset(&g_chk, 0, sizeof g_chk);
    pthread_mutex_init(&g_chk.mu, NULL);
    hb_init(&g_chk.hb);
    ev_log log;
    czk_engine_opts o;
    et_opts(&o, &log, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.threads = 3; /* the packing runs on the synthesis pool */
    o.make_backend = chk_factory;
    czk_engine *e = et_start(&o);
    bits_register(e);
    char bid[2][CZK_JOB_ID_MAX], tid[CZK_JOB_ID_MAX];
    /* x with bits of both kinds; and 0 and 1 (no other than the multiples) */
    const char *payload[2] = {"x=12345678901234567", "x=0"};
    for (int i = 0; i < 2; i++) {
        czk_job_result r = submit_bits(e, bid[i], payload[i]);
        assert_int_equal(r.state, CZK_JOB_COMPLETED); /* verified by the engine */
        assert_int_equal(r.proof_len, 2 * CZK_PROOF_BYTES);
        czk_job_result_free(&r);
        assert_int_equal(synth_ends(&log, bid[i], " packed=1"), 2);
    }
    et_submit(e, tid, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=7 partitions=3 log=8");
    czk_job_result r = et_await(e, tid);
    et_verify(&g_keys->vk, &r, 7, 3, 8);
    czk_job_result_free(&r);
    assert_int_equal(synth_ends(&log, tid, " packed=0"), 3); /* dense: not packed */
    assert_int_equal(synth_ends(&log, tid, " pack_ms="), 3);
    assert_int_equal(g_chk.packed, 4);
    assert_int_equal(g_chk.unpacked, 3);
    assert_int_equal(g_chk.wrong, 0);
    /* the buffers hold the witness and the room */
    const uint64_t n8 = 3 + 252, nb = 2 + BITS_COPIES * 65;
    assert_int_equal(buffer_bytes(e, "test-8"), n8 * 32 + czk_witness_packed_bytes(n8));
    assert_int_equal(buffer_bytes(e, "bits-1"), nb * 32 + czk_witness_packed_bytes(nb));
    czk_engine_destroy(e);
    assert_int_equal(g_chk.hb.frees, g_chk.hb.allocs);
    assert_int_equal(g_chk.hb.bad_frees, 0);
    free(log.v);
    pthread_mutex_destroy(&log.mu);
    pthread_mutex_destroy(&g_chk.mu);
    pthread_mutex_destroy(&g_chk.hb.mu);
}

/* The CPU backend (no host_alloc): nothing packed, buffers of the witness's size. */
static void test_cpu_not_packed(void **state) {
    (void)state;
    ev_log log;
    czk_engine_opts o;
    et_opts(&o, &log, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    czk_engine *e = et_start(&o);
    bits_register(e);
    char bid[CZK_JOB_ID_MAX];
    czk_job_result r = submit_bits(e, bid, "x=99");
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    czk_job_result_free(&r);
    assert_int_equal(synth_ends(&log, bid, "synth_ms="), 2);
    assert_int_equal(synth_ends(&log, bid, "pack"), 0);
    const uint64_t nb = 2 + BITS_COPIES * 65;
    assert_int_equal(buffer_bytes(e, "bits-1"), nb * 32);
    czk_engine_destroy(e);
    free(log.v);
    pthread_mutex_destroy(&log.mu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packed_to_device),
        cmocka_unit_test(test_cpu_not_packed),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
