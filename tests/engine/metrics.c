/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * Status and metrics: the Prometheus text is parsed here by an independent
 * reader of the text exposition format 0.0.4 (every line a HELP, TYPE or
 * sample line; metric and label names by the format's grammar; label values
 * with only \\, \" and \n escapes; values as floats or +Inf/-Inf/NaN; one
 * TYPE per family, before its samples; the samples of a family together; no
 * sample twice). Counters must equal what the test ran (proofs completed,
 * failed and cancelled per kind, cuzk's names and czk's), the duration
 * histogram's buckets must be cumulative, end in +Inf, and hold, per bound,
 * the number of completed jobs whose await reported total_ms at or below it;
 * _count = completed proofs, _sum = the sum of those total_ms. While jobs
 * run, the snapshot must list every unfinished partition exactly once, its
 * per-kind queues must add up to it, busy workers must match the partitions
 * they hold, and the metrics gauges must say the same. A device backend that
 * reports VRAM and keeps parameters on the device shows VRAM and tier HOT
 * (one that holds only the shape and streams the parameters: WARM);
 * the CPU backend shows no VRAM and tier WARM.
 */
#include "etest.h"
#include "czk/httpstatus.h" /* czk_metrics_* */

#include <ctype.h>
#include <errno.h>
#include <math.h>

/* ---- a reader of the exposition format ---- */

typedef struct prom_sample {
    char name[128];
    char labels[512]; /* the text between the braces, as written ("" for none) */
    double value;
} prom_sample;

typedef struct prom_family {
    char name[128];
    char type[16];
    bool help;
} prom_family;

typedef struct prom {
    prom_sample *s;
    size_t n, cap;
    prom_family f[128];
    size_t nf;
} prom;

static bool name_ok(const char *p, size_t n, bool colon) {
    if (!n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        bool ok = isalpha((unsigned char)c) || c == '_' || (colon && c == ':') ||
                  (i > 0 && isdigit((unsigned char)c));
        if (!ok) return false;
    }
    return true;
}

static prom_family *family_of(prom *p, const char *name) {
    for (size_t i = 0; i < p->nf; i++)
        if (!strcmp(p->f[i].name, name)) return &p->f[i];
    return NULL;
}

/* The family a sample name belongs to, by the TYPEs seen. */
static prom_family *family_of_sample(prom *p, const char *name) {
    prom_family *f = family_of(p, name);
    if (f) return f;
    static const char *const suffixes[] = {"_bucket", "_sum", "_count"};
    for (int i = 0; i < 3; i++) {
        size_t nl = strlen(name), sl = strlen(suffixes[i]);
        if (nl <= sl || strcmp(name + nl - sl, suffixes[i])) continue;
        char base[128];
        snprintf(base, sizeof base, "%.*s", (int)(nl - sl), name);
        f = family_of(p, base);
        if (f && (!strcmp(f->type, "histogram") || (i > 0 && !strcmp(f->type, "summary"))))
            return f;
    }
    return NULL;
}

static bool value_ok(const char *v, double *out) {
    if (!strcmp(v, "+Inf")) return *out = INFINITY, true;
    if (!strcmp(v, "-Inf")) return *out = -INFINITY, true;
    if (!strcmp(v, "NaN")) return *out = NAN, true;
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    return *v && !*end && !errno && !isspace((unsigned char)*v);
}

/* Label pairs name="value" separated by commas; names unique. */
static bool labels_ok(const char *l, size_t n) {
    char seen[16][64];
    int ns = 0;
    size_t i = 0;
    while (i < n) {
        size_t st = i;
        while (i < n && l[i] != '=')
            i++;
        if (i >= n || !name_ok(l + st, i - st, false) || i - st >= 64) return false;
        for (int k = 0; k < ns; k++)
            if (strlen(seen[k]) == i - st && !memcmp(seen[k], l + st, i - st)) return false;
        if (ns == 16) return false;
        snprintf(seen[ns++], 64, "%.*s", (int)(i - st), l + st);
        i++;
        if (i >= n || l[i] != '"') return false;
        i++;
        while (i < n && l[i] != '"') {
            if (l[i] == '\n') return false;
            if (l[i] == '\\') {
                if (i + 1 >= n || (l[i + 1] != '\\' && l[i + 1] != '"' && l[i + 1] != 'n'))
                    return false;
                i++;
            }
            i++;
        }
        if (i >= n) return false;
        i++; /* closing quote */
        if (i < n) {
            if (l[i] != ',') return false;
            i++;
        }
    }
    return true;
}

/* Parses text; fails the test naming the first bad line. */
static void prom_parse(const char *text, prom *p) {
    memset(p, 0, sizeof *p);
    const char *line = text;
    size_t lineno = 0;
    char last_family[128] = "";
    char closed[128][128];
    size_t nclosed = 0;
    assert_true(strlen(text) > 0);
    assert_int_equal(text[strlen(text) - 1], '\n');
    while (*line) {
        lineno++;
        const char *nl = strchr(line, '\n');
        assert_non_null(nl);
        size_t len = (size_t)(nl - line);
        char buf[1024];
        if (len >= sizeof buf) {
            fail_msg("line %zu too long", lineno);
            return;
        }
        memcpy(buf, line, len);
        buf[len] = 0;
        if (!len) fail_msg("line %zu is empty", lineno);
        if (buf[0] == '#') {
            char kw[8], name[128];
            int off = 0;
            if (sscanf(buf, "# %7s %127s %n", kw, name, &off) < 2 || !off)
                fail_msg("line %zu: bad comment: %s", lineno, buf);
            if (!name_ok(name, strlen(name), true)) fail_msg("line %zu: bad name %s", lineno, name);
            prom_family *f = family_of(p, name);
            if (!strcmp(kw, "TYPE")) {
                const char *t = buf + off;
                if (strcmp(t, "counter") && strcmp(t, "gauge") && strcmp(t, "histogram") &&
                    strcmp(t, "summary") && strcmp(t, "untyped"))
                    fail_msg("line %zu: bad type %s", lineno, t);
                if (f && f->type[0]) fail_msg("line %zu: second TYPE for %s", lineno, name);
                if (!f) {
                    assert_true(p->nf < 128);
                    f = &p->f[p->nf++];
                    snprintf(f->name, sizeof f->name, "%s", name);
                }
                snprintf(f->type, sizeof f->type, "%s", t);
            } else if (!strcmp(kw, "HELP")) {
                for (const char *q = buf + off; *q; q++)
                    if (*q == '\\' && q[1] != '\\' && q[1] != 'n')
                        fail_msg("line %zu: bad escape in HELP", lineno);
                if (!f) {
                    assert_true(p->nf < 128);
                    f = &p->f[p->nf++];
                    snprintf(f->name, sizeof f->name, "%s", name);
                }
                if (f->help) fail_msg("line %zu: second HELP for %s", lineno, name);
                f->help = true;
            }
            /* other comments are allowed by the format; czk writes none */
            else
                fail_msg("line %zu: unexpected comment %s", lineno, buf);
        } else {
            prom_sample s;
            memset(&s, 0, sizeof s);
            size_t i = 0;
            while (i < len && buf[i] != '{' && buf[i] != ' ')
                i++;
            if (!name_ok(buf, i, true) || i >= sizeof s.name)
                fail_msg("line %zu: bad metric name: %s", lineno, buf);
            memcpy(s.name, buf, i);
            if (buf[i] == '{') {
                /* the closing brace: the first '}' outside a quoted value */
                size_t j = i + 1;
                bool q = false;
                for (; j < len; j++) {
                    if (q && buf[j] == '\\') {
                        j++;
                        continue;
                    }
                    if (buf[j] == '"') q = !q;
                    if (!q && buf[j] == '}') break;
                }
                if (j >= len) fail_msg("line %zu: no closing brace", lineno);
                if (!labels_ok(buf + i + 1, j - i - 1))
                    fail_msg("line %zu: bad labels: %s", lineno, buf);
                snprintf(s.labels, sizeof s.labels, "%.*s", (int)(j - i - 1), buf + i + 1);
                i = j + 1;
            }
            if (buf[i] != ' ') fail_msg("line %zu: no space before the value", lineno);
            char *v = buf + i + 1, *sp = strchr(v, ' ');
            if (sp) { /* an optional timestamp: an integer */
                *sp = 0;
                char *end;
                (void)strtoll(sp + 1, &end, 10);
                if (*end || end == sp + 1) fail_msg("line %zu: bad timestamp", lineno);
            }
            if (!value_ok(v, &s.value)) fail_msg("line %zu: bad value '%s'", lineno, v);
            prom_family *f = family_of_sample(p, s.name);
            if (!f || !f->type[0]) fail_msg("line %zu: sample %s without TYPE", lineno, s.name);
            if (!f->help) fail_msg("line %zu: sample %s without HELP", lineno, s.name);
            if (!strcmp(f->type, "histogram") && strstr(s.name, "_bucket") &&
                !strstr(s.labels, "le=\""))
                fail_msg("line %zu: bucket without le", lineno);
            if (strcmp(f->name, last_family)) {
                for (size_t k = 0; k < nclosed; k++)
                    if (!strcmp(closed[k], f->name))
                        fail_msg("line %zu: samples of %s are not together", lineno, f->name);
                if (last_family[0]) {
                    assert_true(nclosed < 128);
                    snprintf(closed[nclosed++], 128, "%s", last_family);
                }
                snprintf(last_family, sizeof last_family, "%s", f->name);
            }
            for (size_t k = 0; k < p->n; k++)
                if (!strcmp(p->s[k].name, s.name) && !strcmp(p->s[k].labels, s.labels))
                    fail_msg("line %zu: sample %s{%s} twice", lineno, s.name, s.labels);
            if (p->n == p->cap) {
                p->cap = p->cap ? 2 * p->cap : 256;
                p->s = realloc(p->s, p->cap * sizeof *p->s);
                assert_non_null(p->s);
            }
            p->s[p->n++] = s;
        }
        line = nl + 1;
    }
}

/* The value of name{labels}; fails if absent. */
static double pv(const prom *p, const char *name, const char *labels) {
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->s[i].name, name) && !strcmp(p->s[i].labels, labels)) return p->s[i].value;
    fail_msg("no sample %s{%s}", name, labels);
    return NAN;
}

static bool has(const prom *p, const char *name) {
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->s[i].name, name)) return true;
    return false;
}

static const char *ptype(prom *p, const char *name) {
    prom_family *f = family_of(p, name);
    return f ? f->type : "";
}

static void metrics_of(czk_engine *e, prom *p) {
    char *m;
    czk_err err;
    czk_assert_ok(czk_metrics_text(e, &m, &err), &err);
    if (getenv("CZK_TEST_VERBOSE")) fputs(m, stderr);
    prom_parse(m, p);
    free(m);
}

/* ---- the reader refuses what it must (so that passing means something) ---- */

static void test_reader_refuses(void **state) {
    (void)state;
    /* each of these breaks one rule; the checks the reader makes, applied by hand */
    assert_false(name_ok("1abc", 4, true));
    assert_false(name_ok("a-b", 3, true));
    assert_true(name_ok("a:b_1", 5, true));
    assert_false(name_ok("a:b", 3, false));
    assert_false(labels_ok("a=\"x\",a=\"y\"", 11));
    assert_false(labels_ok("a=\"x\\t\"", 7));
    assert_false(labels_ok("a=x", 3));
    assert_false(labels_ok("a=\"x\"b=\"y\"", 10));
    assert_true(labels_ok("a=\"x\\\"y\\\\\",b=\"\"", 15));
    double v;
    assert_false(value_ok("1,5", &v));
    assert_false(value_ok("", &v));
    assert_true(value_ok("+Inf", &v) && isinf(v));
    assert_true(value_ok("1.5e3", &v) && v == 1500);
    /* a well-formed document is read whole */
    prom p;
    prom_parse("# HELP x_total a counter\n# TYPE x_total counter\nx_total 3\n"
               "# HELP h a histogram\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
               "h_bucket{le=\"+Inf\"} 2\nh_sum 3.5\nh_count 2\n",
               &p);
    assert_int_equal(p.n, 5);
    assert_true(pv(&p, "x_total", "") == 3);
    assert_true(pv(&p, "h_bucket", "le=\"+Inf\"") == 2);
    assert_string_equal(ptype(&p, "h"), "histogram");
    free(p.s);
}

/* ---- counters and the histogram against what the test ran ---- */

static void test_counters(void **state) {
    (void)state;
    czk_engine_opts o;
    et_opts(&o, NULL, 2);
    czk_engine *e = et_start(&o);
    czk_err err;
    /* before any proof: all zero, and valid */
    prom p;
    metrics_of(e, &p);
    assert_true(pv(&p, "cuzk_proofs_completed_total", "") == 0);
    assert_true(pv(&p, "czk_proof_duration_seconds_count", "proof_kind=\"test\"") == 0);
    assert_true(pv(&p, "czk_proof_duration_seconds_bucket", "proof_kind=\"test\",le=\"+Inf\"") ==
                0);
    free(p.s);

    enum { NOK = 3 };
    char ok[NOK][CZK_JOB_ID_MAX], bad[CZK_JOB_ID_MAX], gone[CZK_JOB_ID_MAX];
    static const char *const payload[NOK] = {"seed=1 partitions=2 log=7",
                                             "seed=2 partitions=1 log=7 synth_ms=120",
                                             "seed=3 partitions=3 log=7"};
    for (int i = 0; i < NOK; i++)
        et_submit(e, ok[i], NULL, CZK_PRIORITY_UNSPECIFIED, payload[i]);
    et_submit(e, bad, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=4 partitions=2 log=7 fail=1");
    et_submit(e, gone, NULL, CZK_PRIORITY_LOW, "seed=5 partitions=2 log=7 synth_ms=5000");
    bool was;
    czk_assert_ok(czk_engine_cancel(e, gone, &was, &err), &err);
    uint64_t total_ms[NOK];
    double sum = 0;
    for (int i = 0; i < NOK; i++) {
        czk_job_result r = et_await(e, ok[i]);
        assert_int_equal(r.state, CZK_JOB_COMPLETED);
        total_ms[i] = r.total_ms;
        sum += (double)r.total_ms / 1000.0;
        czk_job_result_free(&r);
    }
    czk_job_result r = et_await(e, bad);
    assert_int_equal(r.state, CZK_JOB_FAILED);
    czk_job_result_free(&r);
    r = et_await(e, gone);
    assert_int_equal(r.state, CZK_JOB_CANCELLED);
    czk_job_result_free(&r);
    czk_engine_status_free(et_wait_idle(e));

    metrics_of(e, &p);
    /* cuzk's names */
    assert_string_equal(ptype(&p, "cuzk_proofs_completed_total"), "counter");
    assert_true(pv(&p, "cuzk_proofs_completed_total", "") == NOK);
    assert_true(pv(&p, "cuzk_proofs_failed_total", "") == 1);
    assert_true(pv(&p, "cuzk_proofs_completed", "proof_kind=\"test\"") == NOK);
    assert_true(pv(&p, "cuzk_proofs_failed", "proof_kind=\"test\"") == 1);
    static const char *const cuzk_kinds[] = {"porep_c2", "snap_update", "window_post",
                                             "winning_post"};
    for (int i = 0; i < 4; i++) {
        char l[64];
        snprintf(l, sizeof l, "proof_kind=\"%s\"", cuzk_kinds[i]);
        assert_true(pv(&p, "cuzk_proofs_completed", l) == 0);
        assert_true(pv(&p, "cuzk_proofs_failed", l) == 0);
    }
    assert_true(pv(&p, "cuzk_proof_duration_seconds_count", "") == NOK);
    assert_true(fabs(pv(&p, "cuzk_proof_duration_seconds_sum", "") - sum) < 1e-9);
    assert_true(pv(&p, "cuzk_queue_depth", "") == 0);
    assert_true(pv(&p, "cuzk_running_jobs", "") == 0);
    assert_true(pv(&p, "cuzk_gpu_workers", "") == 2);
    assert_true(pv(&p, "cuzk_uptime_seconds", "") >= 0);
    /* czk's per kind and outcome */
    assert_string_equal(ptype(&p, "czk_proofs_total"), "counter");
    assert_true(pv(&p, "czk_proofs_total", "proof_kind=\"test\",status=\"completed\"") == NOK);
    assert_true(pv(&p, "czk_proofs_total", "proof_kind=\"test\",status=\"failed\"") == 1);
    assert_true(pv(&p, "czk_proofs_total", "proof_kind=\"test\",status=\"cancelled\"") == 1);
    assert_true(pv(&p, "czk_proofs_total", "proof_kind=\"porep_c2\",status=\"completed\"") == 0);
    /* the histogram: bounds ascending to +Inf, counts cumulative and equal to the number of
     * jobs whose reported total_ms is within the bound */
    assert_string_equal(ptype(&p, "czk_proof_duration_seconds"), "histogram");
    double prev_le = -1, prev_n = 0;
    int buckets = 0;
    for (size_t i = 0; i < p.n; i++) {
        const prom_sample *s = &p.s[i];
        if (strcmp(s->name, "czk_proof_duration_seconds_bucket") ||
            strncmp(s->labels, "proof_kind=\"test\",", 18))
            continue;
        const char *le = strstr(s->labels, "le=\"") + 4;
        char lebuf[32];
        snprintf(lebuf, sizeof lebuf, "%.*s", (int)(strchr(le, '"') - le), le);
        double bound;
        assert_true(value_ok(lebuf, &bound));
        assert_true(bound > prev_le);
        assert_true(s->value >= prev_n);
        int want = 0;
        for (int k = 0; k < NOK; k++)
            want += (double)total_ms[k] / 1000.0 <= bound;
        assert_true(s->value == want);
        prev_le = bound;
        prev_n = s->value;
        buckets++;
    }
    assert_int_equal(buckets, CZK_DURATION_BUCKETS + 1);
    assert_true(isinf(prev_le));
    assert_true(prev_n == NOK);
    assert_true(pv(&p, "czk_proof_duration_seconds_count", "proof_kind=\"test\"") == NOK);
    assert_true(fabs(pv(&p, "czk_proof_duration_seconds_sum", "proof_kind=\"test\"") - sum) < 1e-9);
    assert_true(pv(&p, "czk_proof_duration_seconds_count", "proof_kind=\"porep_c2\"") == 0);
    /* partitions: 2 + 1 + 3 proved; the failed job's partition 0 may or may not have been */
    double synth = pv(&p, "czk_partitions_synthesized_total", "");
    assert_true(synth >= 6 && synth <= 7);
    double proved = pv(&p, "czk_partitions_proved_total", "");
    assert_true(proved >= 6 && proved <= 7);
    assert_true(pv(&p, "czk_gpu_partitions_proved_total", "device=\"-1\"") == proved);
    assert_true(pv(&p, "czk_verify_failures_total", "") == 0);
    /* pipeline empty, workers idle */
    static const char *const stages[] = {"synth_queue", "synthesis",      "gpu_queue",
                                         "device",      "finalize_queue", "finalize"};
    for (int i = 0; i < 6; i++) {
        char l[64];
        snprintf(l, sizeof l, "stage=\"%s\"", stages[i]);
        assert_true(pv(&p, "czk_partitions", l) == 0);
    }
    assert_true(pv(&p, "czk_workers", "role=\"synthesis\"") == 2);
    assert_true(pv(&p, "czk_workers", "role=\"gpu\"") == 2);
    assert_true(pv(&p, "czk_workers", "role=\"finalize\"") == 2);
    assert_true(pv(&p, "czk_workers_busy", "role=\"gpu\"") == 0);
    /* GPU busy: the pseudo-device held its lock at least 2 ms per proved partition */
    double ratio = pv(&p, "czk_gpu_busy_ratio", "device=\"-1\",name=\"cpu-slow\"");
    assert_true(ratio > 0 && ratio <= 1);
    assert_true(pv(&p, "czk_gpu_busy_seconds_total", "device=\"-1\"") >= 0.002 * proved);
    assert_false(has(&p, "czk_gpu_vram_bytes")); /* the CPU backend reports none */
    /* memory: the configured budget; the test circuit's keys in host memory */
    assert_true(pv(&p, "czk_memory_budget_bytes", "part=\"total\"") == (double)(1ull << 30));
    czk_engine_status *s = et_status(e);
    assert_true(pv(&p, "czk_memory_budget_bytes", "part=\"srs\"") == (double)s->budget_srs);
    assert_true(pv(&p, "czk_memory_budget_bytes", "part=\"witness_buffers\"") ==
                (double)s->budget_witness_buffers);
    assert_true(pv(&p, "czk_memory_budget_info", "source=\"memory.total_budget\"") == 1);
    assert_true(s->budget_srs > 0);
    assert_int_equal(s->num_srs, 1);
    assert_int_equal(s->srs[0].tier, CZK_SRS_WARM);
    assert_true(pv(&p, "czk_srs_bytes", "circuit_id=\"test-7\",tier=\"WARM\",part=\"host\"") ==
                (double)s->srs[0].size_bytes);
    assert_true(pv(&p, "czk_process_resident_bytes", "") > 0);
    assert_true(pv(&p, "czk_memory_total_bytes", "") > 0);
    /* the snapshot's counters agree */
    assert_int_equal(s->proofs_completed, NOK);
    assert_int_equal(s->proofs_failed, 1);
    assert_int_equal(s->proofs_cancelled, 1);
    assert_int_equal(s->num_partitions, 0);
    assert_int_equal(s->num_queues, 0);
    assert_int_equal(s->num_workers, 6);
    bool found = false;
    for (size_t i = 0; i < s->num_kinds; i++) {
        const czk_engine_kind_counters *c = &s->kinds[i];
        if (c->kind != CZK_KIND_TEST) continue;
        found = true;
        assert_int_equal(c->completed, NOK);
        assert_int_equal(c->failed, 1);
        assert_int_equal(c->cancelled, 1);
        uint64_t n = 0;
        for (size_t b = 0; b <= CZK_DURATION_BUCKETS; b++)
            n += c->duration_buckets[b];
        assert_int_equal(n, NOK);
    }
    assert_true(found);
    czk_engine_status_free(s);
    free(p.s);
    czk_engine_destroy(e);
}

/* ---- partitions in flight ---- */

static void test_in_flight(void **state) {
    (void)state;
    czk_engine_opts o;
    et_opts(&o, NULL, 30);
    czk_engine *e = et_start(&o);
    char a[CZK_JOB_ID_MAX], b[CZK_JOB_ID_MAX];
    et_submit(e, a, "job-a", CZK_PRIORITY_HIGH, "seed=11 partitions=4 log=7 synth_ms=150");
    et_submit(e, b, "job-b", CZK_PRIORITY_NORMAL, "seed=12 partitions=3 log=7 synth_ms=150");
    int seen_busy = 0, seen_device = 0;
    for (int round = 0; round < 200; round++) {
        czk_engine_status *s = et_status(e);
        czk_job_info ia, ib;
        czk_err err;
        bool done_a = czk_engine_job_info(e, a, &ia, &err) || ia.state == CZK_JOB_COMPLETED;
        bool done_b = czk_engine_job_info(e, b, &ib, &err) || ib.state == CZK_JOB_COMPLETED;
        /* every listed partition once, of a known job, in range */
        for (size_t i = 0; i < s->num_partitions; i++) {
            const czk_engine_partition_status *p = &s->partitions[i];
            assert_true(!strcmp(p->job_id, "job-a") || !strcmp(p->job_id, "job-b"));
            assert_int_equal(p->kind, CZK_KIND_TEST);
            assert_int_equal(p->partitions, !strcmp(p->job_id, "job-a") ? 4 : 3);
            assert_true(p->partition < p->partitions);
            assert_true(p->stage < CZK_STAGE_COUNT);
            assert_int_equal(p->worker < 0, p->stage == CZK_STAGE_SYNTH_QUEUE ||
                                                p->stage == CZK_STAGE_GPU_QUEUE ||
                                                p->stage == CZK_STAGE_FINALIZE_QUEUE);
            if (p->stage == CZK_STAGE_DEVICE) {
                assert_int_equal(p->device, -1);
                seen_device++;
            }
            for (size_t k = 0; k < i; k++)
                assert_false(!strcmp(s->partitions[k].job_id, p->job_id) &&
                             s->partitions[k].partition == p->partition);
        }
        /* queues add up to the list; the stage totals to the pipeline counts */
        uint32_t listed = 0, pending = 0, synth = 0;
        for (size_t i = 0; i < s->num_partitions; i++) {
            listed++;
            pending += s->partitions[i].stage == CZK_STAGE_SYNTH_QUEUE;
            synth += s->partitions[i].stage == CZK_STAGE_SYNTHESIS;
        }
        uint32_t qsum = 0;
        for (size_t i = 0; i < s->num_queues; i++) {
            const czk_engine_queue_status *q = &s->queues[i];
            assert_int_equal(q->kind, CZK_KIND_TEST);
            assert_int_equal(q->in_progress, q->synthesizing + q->gpu_queue + q->on_device +
                                                 q->finalize_queue + q->finalizing);
            assert_int_equal(q->pending, pending);
            assert_int_equal(q->synthesizing, synth);
            assert_int_equal(q->synthesizing, s->synthesizing);
            assert_int_equal(q->gpu_queue, s->gpu_queue);
            assert_int_equal(q->on_device, s->on_device);
            assert_int_equal(q->jobs_queued + q->jobs_running, s->jobs_queued + s->jobs_running);
            qsum += q->pending + q->in_progress;
        }
        assert_int_equal(qsum, listed);
        assert_int_equal(s->synth_queue, pending);
        /* busy workers hold exactly the listed partitions that have a worker */
        uint32_t held = 0, busy = 0;
        for (size_t i = 0; i < s->num_partitions; i++)
            held += s->partitions[i].worker >= 0;
        for (size_t i = 0; i < s->num_workers; i++) {
            const czk_engine_worker_status *w = &s->workers[i];
            if (!w->busy) continue;
            busy++;
            bool match = false;
            for (size_t k = 0; k < s->num_partitions && !match; k++) {
                const czk_engine_partition_status *p = &s->partitions[k];
                bool role_ok =
                    (w->role == CZK_WORKER_SYNTHESIS && p->stage == CZK_STAGE_SYNTHESIS) ||
                    (w->role == CZK_WORKER_GPU && p->stage == CZK_STAGE_DEVICE) ||
                    (w->role == CZK_WORKER_FINALIZE &&
                     (p->stage == CZK_STAGE_FINALIZE || p->stage == CZK_STAGE_ASSEMBLY));
                match = role_ok && p->worker == w->index && !strcmp(p->job_id, w->job_id) &&
                        p->partition == w->partition;
            }
            assert_true(match);
        }
        assert_int_equal(busy, held);
        if (busy) seen_busy++;
        /* the metrics of this moment are valid and agree on totals */
        prom p;
        char *m;
        czk_assert_ok(czk_metrics_format(s, &m, &err), &err);
        prom_parse(m, &p);
        free(m);
        assert_true(pv(&p, "cuzk_queue_depth", "") == s->jobs_queued + s->jobs_running);
        double parts = 0;
        for (size_t i = 0; i < p.n; i++)
            if (!strcmp(p.s[i].name, "czk_queue_partitions")) parts += p.s[i].value;
        assert_true(parts == listed);
        free(p.s);
        czk_engine_status_free(s);
        if (done_a && done_b) break;
        usleep(20000);
    }
    assert_true(seen_busy > 0);
    assert_true(seen_device > 0);
    czk_job_result r = et_await(e, a);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    czk_job_result_free(&r);
    r = et_await(e, b);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    czk_job_result_free(&r);
    czk_engine_destroy(e);
}

/* ---- a device that reports VRAM and keeps the parameters ---- */

typedef struct vram_be {
    czk_backend cpu;
    const czk_params *loaded;
    unsigned drop; /* what load() reports droppable: 0 = the parameters streamed from the host
                      (the 1 MiB on the device is the shape's), all five = on the device */
} vram_be;

static czk_status vram_sums(void *self, const czk_params *p, const czk_shape *s,
                            const czk_witness *w, size_t count, czk_msm_sums *out,
                            czk_prove_timings *t, czk_err *err) {
    vram_be *b = self;
    return b->cpu.ops->sums(b->cpu.self, p, s, w, count, out, t, err);
}
static czk_status vram_device(void *self, const czk_params *p, const czk_shape *s,
                              const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                              unsigned *deferred, czk_prove_timings *t, czk_err *err) {
    vram_be *b = self;
    return czk_prove_device(&b->cpu, p, s, w, lock, out, deferred, t, err);
}
/* Says it holds 1 MiB on the device; reports b->drop droppable. */
static czk_status vram_load(void *self, const czk_params *p, const czk_shape *s, unsigned *drop,
                            uint64_t *bytes, czk_err *err) {
    (void)s, (void)err;
    vram_be *b = self;
    b->loaded = p;
    *drop = b->drop;
    *bytes = 1u << 20;
    return CZK_OK;
}
static void vram_unload(void *self, const czk_params *p) {
    vram_be *b = self;
    if (b->loaded == p) b->loaded = NULL;
}
#define VRAM_TOTAL 85899345920ull /* 80 GiB */
static czk_status vram_info(void *self, uint64_t *total, uint64_t *free_bytes, czk_err *err) {
    (void)err;
    vram_be *b = self;
    *total = VRAM_TOTAL;
    *free_bytes = VRAM_TOTAL - (b->loaded ? 1u << 20 : 0);
    return CZK_OK;
}
static void vram_destroy(void *self) {
    vram_be *b = self;
    czk_backend_release(&b->cpu);
    free(b);
}
/* a name with a quote and a backslash: the label must be escaped */
static const czk_backend_ops VRAM_OPS = {"fake\"gpu\\1", vram_sums, vram_destroy,
                                         vram_device,    vram_load, vram_unload,
                                         vram_info,      NULL,      NULL};

static czk_status vram_factory(void *ctx, int device, czk_pool *pool, czk_backend *out,
                               czk_err *err) {
    (void)device;
    vram_be *b = calloc(1, sizeof *b);
    if (!b) return czk_errf(err, CZK_ERR_NOMEM, "vram backend");
    b->drop = *(const unsigned *)ctx;
    czk_status st = czk_backend_cpu(&b->cpu, pool, err);
    if (st) {
        free(b);
        return st;
    }
    out->ops = &VRAM_OPS;
    out->self = b;
    return CZK_OK;
}

static void test_vram_and_tiers(void **state) {
    (void)state;
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.backend, sizeof o.config.backend, "cuda");
    o.config.devices[0] = 3;
    o.config.num_devices = 1;
    o.make_backend = vram_factory;
    unsigned drop = 0; /* parameters streamed from host memory, the shape on the device */
    o.backend_ctx = &drop;
    czk_engine *e = et_start(&o);
    czk_err err;
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_devices, 1);
    assert_true(s->devices[0].vram_known);
    assert_int_equal(s->devices[0].vram_total_bytes, VRAM_TOTAL);
    assert_int_equal(s->devices[0].vram_free_bytes, VRAM_TOTAL);
    czk_engine_status_free(s);
    czk_assert_ok(czk_engine_preload(e, "test-7", true, NULL, NULL, &err), &err);
    s = et_status(e);
    assert_int_equal(s->num_srs, 1);
    /* device memory held, but the parameters are read from the host: WARM */
    assert_int_equal(s->srs[0].tier, CZK_SRS_WARM);
    assert_int_equal(s->srs[0].device_bytes, 1u << 20);
    assert_int_equal(s->srs[0].device_mask, 0);
    assert_int_equal(s->devices[0].vram_free_bytes, VRAM_TOTAL - (1u << 20));
    czk_engine_status_free(s);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=21 partitions=2 log=7");
    czk_job_result r = et_await(e, id);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    czk_job_result_free(&r);
    prom p;
    metrics_of(e, &p);
    assert_true(pv(&p, "czk_gpu_vram_bytes", "device=\"3\",kind=\"total\"") == (double)VRAM_TOTAL);
    assert_true(pv(&p, "czk_gpu_vram_bytes", "device=\"3\",kind=\"free\"") ==
                (double)(VRAM_TOTAL - (1u << 20)));
    double ratio = pv(&p, "czk_gpu_busy_ratio", "device=\"3\",name=\"fake\\\"gpu\\\\1\"");
    assert_true(ratio >= 0 && ratio <= 1);
    assert_true(pv(&p, "czk_srs_bytes", "circuit_id=\"test-7\",tier=\"WARM\",part=\"device\"") ==
                (double)(1u << 20));
    assert_true(pv(&p, "czk_gpu_partitions_proved_total", "device=\"3\"") == 2);
    free(p.s);
    czk_engine_destroy(e);

    /* the parameters on the device (every host vector droppable): HOT */
    drop = CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1 | CZK_SRS_B_G2;
    e = et_start(&o);
    czk_assert_ok(czk_engine_preload(e, "test-7", true, NULL, NULL, &err), &err);
    s = et_status(e);
    assert_int_equal(s->srs[0].tier, CZK_SRS_HOT);
    assert_string_equal(czk_srs_tier_name(s->srs[0].tier), "HOT");
    assert_int_equal(s->srs[0].device_bytes, 1u << 20);
    assert_int_equal(s->srs[0].device_mask, 1);
    czk_engine_status_free(s);
    metrics_of(e, &p);
    assert_true(pv(&p, "czk_srs_bytes", "circuit_id=\"test-7\",tier=\"HOT\",part=\"device\"") ==
                (double)(1u << 20));
    free(p.s);
    czk_engine_destroy(e);
}

/* ---- names ---- */

static void test_names(void **state) {
    (void)state;
    assert_string_equal(czk_srs_tier_name(CZK_SRS_WARM), "WARM");
    assert_string_equal(czk_srs_tier_name(CZK_SRS_COLD), "COLD");
    assert_string_equal(czk_partition_stage_name(CZK_STAGE_DEVICE), "device");
    assert_string_equal(czk_partition_stage_name(CZK_STAGE_ASSEMBLY), "assembly");
    assert_string_equal(czk_partition_stage_name(CZK_STAGE_COUNT), "unknown");
    assert_string_equal(czk_worker_role_name(CZK_WORKER_FINALIZE), "finalize");
    /* bounds strictly ascending, the last finite one an hour, then +Inf */
    for (size_t i = 1; i < CZK_DURATION_BUCKETS; i++)
        assert_true(czk_duration_bucket_le(i) > czk_duration_bucket_le(i - 1));
    assert_true(czk_duration_bucket_le(CZK_DURATION_BUCKETS - 1) == 3600);
    assert_true(isinf(czk_duration_bucket_le(CZK_DURATION_BUCKETS)));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),          cmocka_unit_test(test_reader_refuses),
        cmocka_unit_test(test_counters),       cmocka_unit_test(test_in_flight),
        cmocka_unit_test(test_vram_and_tiers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
