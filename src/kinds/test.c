/*
 * The test proof kind: a small multi-partition circuit, so that CI can run
 * the whole pipeline (interleaving across jobs, priorities, cancellation,
 * failures, verification) in seconds on the CPU backend.
 *
 * Each partition proves a chain x_{i+1} = x_i·(x_i + 1) + (i + 1) of
 * 2^log − 3 steps, one constraint per step: x_i · (x_i + ONE) = x_{i+1} −
 * (i+1)·ONE. Its start x_0 (derived from the payload's seed and the
 * partition index) and its end are the two public inputs, so with the three
 * input constraints the circuit has exactly 2^log constraints, every aux
 * variable in A and B (dense, like most of PoRep's). The payload is text so
 * that tests can write jobs by hand; the knobs fail=, corrupt= and
 * synth_ms= make a partition fail in synthesis, produce a proof that does
 * not verify, or synthesize slowly (polling cancel), to exercise the
 * engine's failure, verification and cancellation paths.
 *
 * Keys: "test-<log>". They are read from <param_cache>/czk-test-<log>.params
 * when that file exists (the SRS cache's file path), else made by
 * czk_setup from a fixed toxic seed (cheap at these sizes).
 */
#include "czk/kinds.h"

#include "czk/groth16.h"
#include "czk/r1cs.h"
#include "kinds/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define TEST_MAX_PARTITIONS 64
#define TEST_MIN_LOG 6
#define TEST_MAX_LOG 20

typedef struct test_job {
    uint64_t seed;
    unsigned partitions, log;
    int fail, corrupt;
    unsigned synth_ms;
    czk_fr x0[TEST_MAX_PARTITIONS], xn[TEST_MAX_PARTITIONS];
} test_job;

typedef struct chain_ctx {
    const czk_fr *x0, *xn; /* NULL: zero values (recording) */
    uint32_t steps;
} chain_ctx;

static czk_status chain_fn(czk_cs *cs, void *vctx) {
    const chain_ctx *c = vctx;
    bool rec = czk_cs_records(cs), vals = czk_cs_has_values(cs) && c->x0;
    czk_fr x = vals ? *c->x0 : czk_fr_zero;
    czk_var xv = czk_cs_alloc_input(cs, vals ? c->x0 : NULL);
    czk_var out = czk_cs_alloc_input(cs, vals ? c->xn : NULL);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, cc = CZK_LC_INIT;
    for (uint32_t i = 0; i < c->steps; i++) {
        czk_fr ci, next;
        czk_fr_from_u64(&ci, (uint64_t)i + 1);
        if (vals) {
            czk_fr_add(&next, &x, &czk_fr_one);
            czk_fr_mul(&next, &next, &x);
            czk_fr_add(&next, &next, &ci);
        }
        czk_var nv = i + 1 == c->steps ? out : czk_cs_alloc(cs, vals ? &next : NULL);
        if (rec) {
            czk_fr mci;
            czk_fr_sub(&mci, &czk_fr_zero, &ci);
            czk_lc_clear(&a);
            czk_lc_clear(&b);
            czk_lc_clear(&cc);
            czk_lc_add_var(cs, &a, xv);
            czk_lc_add_var(cs, &b, xv);
            czk_lc_add_var(cs, &b, CZK_VAR_ONE);
            czk_lc_add_var(cs, &cc, nv);
            czk_lc_add(cs, &cc, CZK_VAR_ONE, &mci);
            czk_cs_enforce(cs, &a, &b, &cc);
        }
        if (vals) x = next;
        xv = nv;
    }
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&cc);
    return czk_cs_status(cs);
}

static void chain_native(czk_fr *xn, const czk_fr *x0, uint32_t steps) {
    czk_fr x = *x0, t, ci;
    for (uint32_t i = 0; i < steps; i++) {
        czk_fr_from_u64(&ci, (uint64_t)i + 1);
        czk_fr_add(&t, &x, &czk_fr_one);
        czk_fr_mul(&t, &t, &x);
        czk_fr_add(&x, &t, &ci);
    }
    *xn = x;
}

static uint32_t steps_for(unsigned log) {
    return (1u << log) - 3u;
}

/* "test-<log>" -> log, or 0. */
static unsigned circuit_log(const char *id) {
    unsigned log;
    char tail;
    if (sscanf(id, "test-%u%c", &log, &tail) != 1) return 0;
    char canon[CZK_CIRCUIT_ID_MAX];
    snprintf(canon, sizeof canon, "test-%u", log);
    if (strcmp(canon, id) || log < TEST_MIN_LOG || log > TEST_MAX_LOG) return 0;
    return log;
}

static bool kv_u64(const char *v, uint64_t *out) {
    if (!*v) return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || *v == '-') return false;
    *out = x;
    return true;
}

static czk_status test_parse(void *ctx, const czk_proof_request *req, void **job,
                             czk_kind_job_info *info, czk_err *err) {
    (void)ctx;
    size_t len = req->vanilla_proof ? req->vanilla_proof_len : 0;
    if (len > 1024) return czk_errf(err, CZK_ERR_FORMAT, "test payload: longer than 1024 bytes");
    char text[1025];
    memcpy(text, req->vanilla_proof ? (const char *)req->vanilla_proof : "", len);
    text[len] = 0;
    test_job *j = calloc(1, sizeof *j);
    if (!j) return czk_errf(err, CZK_ERR_NOMEM, "test payload: out of memory");
    j->partitions = 4;
    j->log = 10;
    j->fail = j->corrupt = -1;
    bool have_seed = false;
    char *save = NULL;
    for (char *tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
        char *eq = strchr(tok, '=');
        uint64_t v;
        if (!eq || !kv_u64(eq + 1, &v)) {
            free(j);
            return czk_errf(err, CZK_ERR_FORMAT, "test payload: '%s' is not key=<unsigned>", tok);
        }
        *eq = 0;
        if (!strcmp(tok, "seed"))
            j->seed = v, have_seed = true;
        else if (!strcmp(tok, "partitions") && v >= 1 && v <= TEST_MAX_PARTITIONS)
            j->partitions = (unsigned)v;
        else if (!strcmp(tok, "log") && v >= TEST_MIN_LOG && v <= TEST_MAX_LOG)
            j->log = (unsigned)v;
        else if (!strcmp(tok, "fail") && v < TEST_MAX_PARTITIONS)
            j->fail = (int)v;
        else if (!strcmp(tok, "corrupt") && v < TEST_MAX_PARTITIONS)
            j->corrupt = (int)v;
        else if (!strcmp(tok, "synth_ms") && v <= 60000)
            j->synth_ms = (unsigned)v;
        else {
            free(j);
            *eq = '='; /* the whole token in the message */
            return czk_errf(err, CZK_ERR_FORMAT,
                            "test payload: unknown key or value out of range: %s", tok);
        }
    }
    if (!have_seed) {
        free(j);
        return czk_errf(err, CZK_ERR_FORMAT, "test payload: seed=<u64> is required");
    }
    for (unsigned k = 0; k < j->partitions; k++) {
        czk_rng rng;
        czk_rng_seed(&rng, j->seed * 1000003u + k);
        czk_status st = czk_fr_random(&j->x0[k], &rng, err);
        if (st) {
            free(j);
            return st;
        }
        chain_native(&j->xn[k], &j->x0[k], steps_for(j->log));
    }
    info->num_partitions = j->partitions;
    info->num_public_inputs = 2;
    snprintf(info->circuit_id, sizeof info->circuit_id, "test-%u", j->log);
    *job = j;
    return CZK_OK;
}

static czk_status test_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                  const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                  czk_err *err) {
    (void)ctx;
    (void)pool;
    test_job *j = job;
    for (unsigned slept = 0; slept < j->synth_ms; slept += 5) {
        if (cancel && atomic_load(cancel))
            return czk_errf(err, CZK_ERR_CANCELLED, "test partition %u: cancelled", k);
        struct timespec ts = {0, 5 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if ((int)k == j->fail)
        return czk_errf(err, CZK_ERR_FORMAT, "test partition %u: bad input (payload fail=%u)", k,
                        k);
    (void)shape;
    chain_ctx c = {&j->x0[k], &j->xn[k], steps_for(j->log)};
    return czk_cs_witness_into(out, chain_fn, &c, cancel, err); /* into the engine's buffers */
}

static czk_status test_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx;
    (void)err;
    test_job *j = job;
    out[0] = j->x0[k];
    out[1] = j->xn[k];
    if ((int)k == j->corrupt) czk_fr_add(&out[1], &out[1], &czk_fr_one);
    return CZK_OK;
}

static void params_path(char *out, size_t cap, const char *dir, unsigned log) {
    snprintf(out, cap, "%s/czk-test-%u.params", dir && *dir ? dir : ".", log);
}

static czk_status test_load(void *ctx, const char *id, const char *param_cache, czk_pool *pool,
                            const atomic_int *cancel, czk_params_progress_fn progress,
                            void *progress_ctx, czk_params **params, czk_shape **shape,
                            czk_err *err) {
    (void)ctx;
    *params = NULL;
    *shape = NULL;
    unsigned log = circuit_log(id);
    if (!log) return czk_errf(err, CZK_ERR_INVALID_ARG, "test kind: bad circuit id '%s'", id);
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, cancel, err);
    if (!cs) return err && err->code ? err->code : CZK_ERR_NOMEM;
    chain_ctx c = {NULL, NULL, steps_for(log)};
    czk_status st = czk_cs_run(cs, chain_fn, &c, err);
    if (!st) st = czk_cs_take_shape(cs, shape, err);
    czk_cs_free(cs);
    if (st) return st;
    char path[CZK_ENGINE_PATH_MAX + 64];
    params_path(path, sizeof path, param_cache, log);
    struct stat sb;
    if (!stat(path, &sb)) {
        czk_params_read_opts o = {CZK_PARAMS_NO_STAMP, NULL, pool, progress, progress_ctx};
        st = czk_params_read(params, path, &o, NULL, err);
    } else {
        czk_toxic t;
        czk_rng rng;
        czk_rng_seed(&rng, 0x7e57c0deu + log);
        st = czk_toxic_random(&t, &rng, err);
        if (!st) st = czk_setup(params, *shape, &t, pool, err);
    }
    if (st) {
        czk_shape_free(*shape);
        *shape = NULL;
    }
    return st;
}

static uint64_t test_bytes(void *ctx, const char *id, const char *param_cache) {
    (void)ctx;
    unsigned log = circuit_log(id);
    char path[CZK_ENGINE_PATH_MAX + 64];
    params_path(path, sizeof path, param_cache, log);
    return log ? czk_kinds_file_bytes(path) : 0;
}

static bool test_owns(void *ctx, const char *id) {
    (void)ctx;
    return circuit_log(id) != 0;
}

static void test_job_free(void *ctx, void *job) {
    (void)ctx;
    free(job);
}

static const czk_proof_kind TEST = {
    .id = CZK_KIND_TEST,
    .name = "test",
    .metric_label = "test",
    .default_priority = CZK_PRIORITY_NORMAL,
    .parse = test_parse,
    .synthesize = test_synthesize,
    .public_inputs = test_inputs,
    .load_circuit = test_load,
    .circuit_bytes = test_bytes,
    .owns_circuit = test_owns,
    .job_free = test_job_free,
};

czk_status czk_kind_test(czk_proof_kind *out, czk_err *err) {
    (void)err;
    *out = TEST;
    return CZK_OK;
}

czk_status czk_kinds_register_test(czk_engine *e, czk_err *err) {
    return czk_kinds_register(e, &TEST, err);
}
