/*
 * Throughput runs (include/czk/bench.h): the run loop, the in-process
 * runner, and config assignments through the engine's TOML parser.
 */
#include "czk/bench.h"
#include "czk/cuda.h" /* czk_cuda_provider */
#include "czk/kinds.h"
#include "util/proc.h"
#include "util/time.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void czk_bench_runner_destroy(czk_bench_runner *r) {
    if (!r) return;
    if (r->ops && r->ops->destroy) r->ops->destroy(r->self);
    r->ops = NULL;
    r->self = NULL;
}

/* ---- the in-process runner ---- */

typedef struct inproc {
    czk_engine *e;
    czk_engine_config cfg;
    bool verbose;
    pthread_mutex_t mu;
    czk_tl tl;
    czk_status tl_err;      /* an event could not be kept */
    uint64_t lagrange_seed; /* the make_lagrange hook's seed (czk_bench_inprocess_with) */
} inproc;

static void inproc_event(void *ctx, const czk_engine_event *ev) {
    inproc *p = ctx;
    pthread_mutex_lock(&p->mu);
    if (!p->tl_err) p->tl_err = czk_tl_add_line(&p->tl, ev->line, NULL);
    pthread_mutex_unlock(&p->mu);
}

static void inproc_log(void *ctx, const char *level, const char *line) {
    inproc *p = ctx;
    if (p->verbose || !strcmp(level, "error") || !strcmp(level, "warn"))
        fprintf(stderr, "\r\033[Kczk engine %s: %s\n", level, line);
}

static czk_status inproc_prove(void *self, const czk_proof_request *req, czk_job_result *out,
                               czk_err *err) {
    inproc *p = self;
    char id[CZK_JOB_ID_MAX];
    memset(out, 0, sizeof *out);
    czk_submit_info si;
    czk_status st = czk_engine_submit(p->e, req, id, &si, err);
    if (st && si.refused) {
        /* the kind refused the payload at intake: a FAILED proof, not a runner error */
        out->state = CZK_JOB_FAILED;
        out->error_code = st;
        snprintf(out->error, sizeof out->error, "%s", err ? err->msg : "refused at intake");
        return CZK_OK;
    }
    if (st) return st;
    st = czk_engine_await(p->e, id, -1, out, err);
    return st;
}

static void inproc_begin(void *self) {
    inproc *p = self;
    pthread_mutex_lock(&p->mu);
    p->tl.n = 0;
    p->tl.lines = 0;
    p->tl_err = CZK_OK;
    pthread_mutex_unlock(&p->mu);
}

static czk_status inproc_timeline(void *self, czk_tl *tl, czk_err *err) {
    inproc *p = self;
    czk_status st = CZK_OK;
    pthread_mutex_lock(&p->mu);
    if (p->tl_err) st = czk_errf(err, p->tl_err, "bench: engine events were lost (out of memory)");
    for (size_t i = 0; !st && i < p->tl.n; i++) {
        if (tl->n == tl->cap) {
            size_t cap = tl->cap ? 2 * tl->cap : 256;
            czk_tl_event *v = realloc(tl->ev, cap * sizeof *v);
            if (!v) {
                st = czk_errf(err, CZK_ERR_NOMEM, "bench: timeline");
                break;
            }
            tl->ev = v;
            tl->cap = cap;
        }
        tl->ev[tl->n] = p->tl.ev[i];
        tl->ev[tl->n++].seq = ++tl->lines;
    }
    pthread_mutex_unlock(&p->mu);
    return st;
}

static uint64_t inproc_peak_rss(void *self) {
    (void)self;
    return czk_proc_status_bytes(0, "VmHWM");
}

static void inproc_describe(void *self, FILE *f) {
    const inproc *p = self;
    const czk_engine_config *c = &p->cfg;
    char devs[256] = "";
    size_t k = 0;
    for (unsigned i = 0; i < c->num_devices && k < sizeof devs - 12; i++)
        k += (size_t)snprintf(devs + k, sizeof devs - k, "%s%d", i ? "," : "", c->devices[i]);
    fprintf(f, "  runner = in-process\n");
    czk_engine_status *st = NULL;
    czk_err err;
    if (czk_engine_status_get(p->e, &st, &err)) st = NULL;
    /* on CPU pseudo-devices only, say what the figures named after the GPU stage are */
    bool cpu_only = st && st->num_devices;
    for (size_t i = 0; st && i < st->num_devices; i++)
        if (st->devices[i].ordinal >= 0) cpu_only = false;
    fprintf(f, "  gpus.backend = %s%s\n", c->backend,
            cpu_only ? " (no GPU in use: the figures named gpu above are the proving stage on "
                       "this host's cores)"
                     : "");
    fprintf(f, "  gpus.devices = [%s]%s\n", devs, c->num_devices ? "" : " (all found)");
    fprintf(f, "  gpus.gpu_workers_per_device = %u\n", c->gpu_workers_per_device);
    fprintf(f, "  gpus.finalize_workers = %u\n", c->finalize_workers);
    fprintf(f, "  gpus.gpu_threads = %u%s\n", c->gpu_threads, c->gpu_threads ? "" : " (all)");
    fprintf(f, "  synthesis.partition_workers = %u%s\n", c->partition_workers,
            c->partition_workers ? "" : " (auto: half the CPUs, 2..18)");
    fprintf(f, "  synthesis.threads = %u%s\n", c->threads, c->threads ? "" : " (all)");
    if (c->max_gpu_queue_depth == CZK_GPU_QUEUE_AUTO)
        fprintf(f, "  pipeline.max_gpu_queue_depth = auto (%u: 2 per GPU worker)\n",
                st ? st->gpu_queue_limit : 0);
    else
        fprintf(f, "  pipeline.max_gpu_queue_depth = %u%s\n", c->max_gpu_queue_depth,
                c->max_gpu_queue_depth ? "" : " (no limit)");
    double gib = (double)(1ull << 30);
    if (c->total_budget)
        fprintf(f, "  memory.total_budget = %.2f GiB\n", (double)c->total_budget / gib);
    else
        fprintf(f, "  memory.total_budget = auto: %.2f GiB (%s)\n",
                st ? (double)st->budget_total / gib : 0.0, st ? st->budget_source : "?");
    fprintf(f, "  srs.param_cache = %s\n", c->param_cache);
    for (size_t i = 0; st && i < st->num_srs; i++) {
        const czk_engine_srs_status *x = &st->srs[i];
        if (x->tier == CZK_SRS_COLD) continue;
        fprintf(f,
                "  srs %s: %s, host %.2f GiB, device %.2f GiB, shape %.2f GiB%s%s; witness "
                "buffers %u (%u page-locked) of %.2f GiB; partition %.2f GiB\n",
                x->circuit_id, czk_srs_tier_name(x->tier), (double)x->size_bytes / gib,
                (double)x->device_bytes / gib, (double)x->shape_bytes / gib,
                x->shape_on_devices ? " (matrices on the devices)" : "",
                x->lagrange ? ", Lagrange form attached" : "", x->witness_buffers,
                x->witness_buffers_pinned, (double)x->witness_buffer_bytes / gib,
                (double)x->partition_bytes / gib);
    }
    czk_engine_status_free(st);
}

static void inproc_destroy(void *self) {
    inproc *p = self;
    if (!p) return;
    czk_engine_destroy(p->e);
    czk_tl_free(&p->tl);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static const czk_bench_runner_ops INPROC_OPS = {
    "in-process",    inproc_prove,    inproc_begin,   inproc_timeline,
    inproc_peak_rss, inproc_describe, inproc_destroy,
};

czk_status czk_bench_lagrange_from_seed(void *ctx, const czk_params *params, const czk_shape *shape,
                                        czk_params_lagrange **out, czk_err *err) {
    (void)params;
    *out = NULL;
    czk_rng rng;
    czk_rng_seed(&rng, *(const uint64_t *)ctx);
    czk_toxic toxic;
    czk_status st = czk_toxic_random(&toxic, &rng, err);
    if (st) return st;
    czk_pool *pool = czk_pool_create(0, err);
    if (!pool) return err && err->code ? err->code : CZK_ERR_NOMEM;
    czk_setup_backend sb = {0};
    st = czk_cuda_device_count() > 0 ? czk_setup_backend_cuda(&sb, 0, err)
                                     : czk_setup_backend_cpu(&sb, pool, err);
    if (!st) st = czk_setup_lagrange(out, shape, &toxic, &sb, pool, err);
    czk_setup_backend_release(&sb);
    czk_pool_destroy(pool);
    memset(&toxic, 0, sizeof toxic);
    return st;
}

czk_status czk_bench_inprocess(czk_bench_runner *out, const czk_engine_config *cfg, bool verbose,
                               czk_err *err) {
    return czk_bench_inprocess_with(out, cfg, verbose, NULL, err);
}

czk_status czk_bench_inprocess_with(czk_bench_runner *out, const czk_engine_config *cfg,
                                    bool verbose, const uint64_t *lagrange_seed, czk_err *err) {
    out->ops = NULL;
    out->self = NULL;
    inproc *p = calloc(1, sizeof *p);
    if (!p) return czk_errf(err, CZK_ERR_NOMEM, "bench: in-process runner");
    pthread_mutex_init(&p->mu, NULL);
    czk_tl_init(&p->tl);
    p->cfg = *cfg;
    p->verbose = verbose;
    czk_engine_opts o;
    czk_engine_opts_default(&o);
    o.config = *cfg;
    o.gpu = &czk_cuda_provider; /* the device backend gpus.backend may name */
    o.on_event = inproc_event;
    o.event_ctx = p;
    o.log = inproc_log;
    o.log_ctx = p;
    if (lagrange_seed) {
        p->lagrange_seed = *lagrange_seed;
        o.make_lagrange = czk_bench_lagrange_from_seed;
        o.lagrange_ctx = &p->lagrange_seed;
    }
    czk_status st = czk_engine_create(&p->e, &o, err);
    /* the kinds this runner proves: one line each */
    if (!st && (st = czk_kinds_register_porep(p->e, err)) == CZK_OK &&
        (st = czk_kinds_register_post(p->e, err)) == CZK_OK &&
        (st = czk_kinds_register_snap(p->e, err)) == CZK_OK)
        st = czk_kinds_register_test(p->e, err);
    if (st) {
        czk_engine_destroy(p->e);
        czk_tl_free(&p->tl);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return st;
    }
    out->ops = &INPROC_OPS;
    out->self = p;
    return CZK_OK;
}

czk_status czk_bench_inprocess_preload(czk_bench_runner *r, const char *circuit_id,
                                       uint64_t *load_ms, czk_err *err) {
    if (r->ops != &INPROC_OPS)
        return czk_errf(err, CZK_ERR_UNSUPPORTED, "bench: preload needs the in-process runner");
    inproc *p = r->self;
    return czk_engine_preload(p->e, circuit_id, true, NULL, load_ms, err);
}

/* ---- the run ---- */

typedef struct run {
    czk_bench_runner *r;
    const czk_bench_plan *plan;
    czk_bench_result *res;
    pthread_mutex_t mu;
    size_t next, done;
    double t0, last_end;
    czk_status st;
    czk_err err;
} run;

static void *client_main(void *arg) {
    run *R = arg;
    const czk_bench_plan *P = R->plan;
    for (;;) {
        pthread_mutex_lock(&R->mu);
        if (R->st || R->next >= P->count) {
            pthread_mutex_unlock(&R->mu);
            return NULL;
        }
        size_t i = R->next++;
        pthread_mutex_unlock(&R->mu);
        czk_bench_row *row = &R->res->rows[i];
        czk_proof_request req;
        memset(&req, 0, sizeof req);
        czk_err err = {0};
        czk_status st = P->request(P->request_ctx, i, &req, &err);
        char id[CZK_JOB_ID_MAX];
        snprintf(id, sizeof id, "%s-%zu", P->id_prefix ? P->id_prefix : "bench", i);
        req.request_id = id;
        czk_job_result jr;
        memset(&jr, 0, sizeof jr);
        double a = czk_now() - R->t0;
        if (!st) st = R->r->ops->prove(R->r->self, &req, &jr, &err);
        double b = czk_now() - R->t0;
        row->index = i;
        snprintf(row->job_id, sizeof row->job_id, "%s", jr.job_id[0] ? jr.job_id : id);
        row->start_s = a;
        row->end_s = b;
        row->wall_s = b - a;
        row->state = st ? CZK_JOB_UNKNOWN : jr.state;
        row->queue_ms = jr.queue_wait_ms;
        row->synthesis_ms = jr.synthesis_ms;
        row->gpu_ms = jr.gpu_compute_ms;
        row->total_ms = jr.total_ms;
        if (st)
            snprintf(row->error, sizeof row->error, "%s", err.msg);
        else if (jr.state != CZK_JOB_COMPLETED)
            snprintf(row->error, sizeof row->error, "%s", jr.error);
        czk_job_result_free(&jr);
        pthread_mutex_lock(&R->mu);
        if (st && !R->st) {
            R->st = st;
            R->err = err;
        }
        R->done++;
        if (b > R->last_end) R->last_end = b;
        if (P->on_done) P->on_done(P->done_ctx, row, R->done, P->count, b);
        pthread_mutex_unlock(&R->mu);
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* czk_bench_result.steady_s_per_proof for c in flight (0: too few results, or no memory). */
static double steady_interval(const czk_bench_result *res, unsigned c) {
    double *t = malloc(res->count * sizeof *t);
    if (!t) return 0;
    size_t m = 0;
    for (size_t i = 0; i < res->count; i++)
        if (res->rows[i].state == CZK_JOB_COMPLETED) t[m++] = res->rows[i].end_s;
    double v = 0;
    if (c >= 1 && m > c) {
        qsort(t, m, sizeof *t, cmp_double);
        v = (t[m - 1] - t[c - 1]) / (double)(m - c);
    }
    free(t);
    return v;
}

czk_status czk_bench_run(czk_bench_runner *r, const czk_bench_plan *plan, czk_bench_result *res,
                         czk_err *err) {
    memset(res, 0, sizeof *res);
    if (!r->ops || !r->ops->prove || !plan->request)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "bench: no runner or no request source");
    if (!plan->count || !plan->concurrency)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "bench: count and concurrency must be >= 1");
    if (plan->id_prefix && strlen(plan->id_prefix) > 100)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "bench: id prefix longer than 100 bytes");
    res->rows = calloc(plan->count, sizeof *res->rows);
    if (!res->rows) return czk_errf(err, CZK_ERR_NOMEM, "bench: %zu rows", plan->count);
    res->count = plan->count;
    unsigned j = plan->concurrency < plan->count ? plan->concurrency : (unsigned)plan->count;
    pthread_t *th = calloc(j, sizeof *th);
    if (!th) {
        czk_bench_result_free(res);
        return czk_errf(err, CZK_ERR_NOMEM, "bench: %u threads", j);
    }
    run R = {.r = r, .plan = plan, .res = res};
    pthread_mutex_init(&R.mu, NULL);
    if (r->ops->begin) r->ops->begin(r->self);
    R.t0 = czk_now();
    unsigned started = 0;
    for (; started < j; started++)
        if (pthread_create(&th[started], NULL, client_main, &R)) break;
    if (!started) {
        R.st = czk_errf(&R.err, CZK_ERR_INTERNAL, "bench: cannot start a client thread");
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&R.mu);
    res->wall_s = R.last_end;
    for (size_t i = 0; i < res->count; i++) {
        if (res->rows[i].state == CZK_JOB_COMPLETED)
            res->completed++;
        else
            res->failed++;
    }
    res->s_per_proof = res->completed ? res->wall_s / (double)res->completed : 0.0;
    res->steady_after = j;
    res->steady_s_per_proof = steady_interval(res, j);
    /* averages per proof from the results; per partition from the timeline when there is one */
    double syn = 0, gpu = 0;
    for (size_t i = 0; i < res->count; i++)
        if (res->rows[i].state == CZK_JOB_COMPLETED) {
            syn += (double)res->rows[i].synthesis_ms;
            gpu += (double)res->rows[i].gpu_ms;
        }
    if (res->completed) {
        res->synthesis_avg_ms = syn / (double)res->completed;
        res->gpu_avg_ms = gpu / (double)res->completed;
    }
    if (r->ops->timeline) {
        czk_tl tl;
        czk_tl_init(&tl);
        czk_err terr;
        if (!r->ops->timeline(r->self, &tl, &terr) && tl.n &&
            !czk_tl_analyze(&tl, &res->tl, &terr)) {
            res->have_timeline = true;
            if (res->tl.synth.n && res->tl.gpu.n) {
                res->per_partition = true;
                res->synthesis_avg_ms = czk_tl_stat_avg(&res->tl.synth);
                res->gpu_avg_ms = czk_tl_stat_avg(&res->tl.gpu);
            }
        }
        czk_tl_free(&tl);
    }
    if (r->ops->peak_rss) res->peak_rss = r->ops->peak_rss(r->self);
    if (R.st) {
        if (err) *err = R.err;
        return R.st;
    }
    return CZK_OK;
}

void czk_bench_result_free(czk_bench_result *r) {
    if (!r) return;
    free(r->rows);
    czk_tl_summary_free(&r->tl);
    memset(r, 0, sizeof *r);
}

/* ---- config assignments ---- */

typedef struct set_warn {
    czk_config_warn_fn warn;
    void *ctx;
    bool unknown;
    char first[256];
} set_warn;

static void set_warn_fn(void *ctx, const char *msg) {
    set_warn *w = ctx;
    if (strstr(msg, "unknown")) {
        if (!w->unknown) {
            snprintf(w->first, sizeof w->first, "%s", msg);
            char *ig = strstr(w->first, " (ignored)");
            if (ig) *ig = 0;
        }
        w->unknown = true;
        return;
    }
    if (w->warn) w->warn(w->ctx, msg);
}

/* A TOML integer, float or boolean as written on a command line. */
static bool toml_scalar(const char *v) {
    if (!strcmp(v, "true") || !strcmp(v, "false")) return true;
    const char *p = v;
    if (*p == '+' || *p == '-') p++;
    if (!*p) return false;
    bool digit = false, dot = false;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digit = true;
        else if (*p == '.' && !dot)
            dot = true;
        else if (*p != '_')
            return false;
    }
    return digit;
}

czk_status czk_bench_config_set(czk_engine_config *cfg, const char *assignment,
                                czk_config_warn_fn warn, void *warn_ctx, czk_err *err) {
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "'%s': expected section.key=value", assignment);
    size_t kl = (size_t)(eq - assignment);
    const char *v = eq + 1;
    for (size_t i = 0; i < kl; i++) {
        char ch = assignment[i];
        if (!(ch == '.' || ch == '_' || ch == '-' || (ch >= 'a' && ch <= 'z') ||
              (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            return czk_errf(err, CZK_ERR_INVALID_ARG, "'%s': a key is letters, digits, _ - .",
                            assignment);
    }
    size_t cap = kl + 2 * strlen(v) + 16;
    char *doc = malloc(cap);
    if (!doc) return czk_errf(err, CZK_ERR_NOMEM, "bench: config assignment");
    size_t n = (size_t)snprintf(doc, cap, "%.*s = ", (int)kl, assignment);
    if (toml_scalar(v) || v[0] == '[') {
        n += (size_t)snprintf(doc + n, cap - n, "%s\n", v);
    } else {
        doc[n++] = '"';
        for (const char *p = v; *p; p++) {
            if (*p == '"' || *p == '\\') doc[n++] = '\\';
            doc[n++] = *p;
        }
        doc[n++] = '"';
        doc[n++] = '\n';
        doc[n] = 0;
    }
    set_warn w = {warn, warn_ctx, false, ""};
    czk_status st = czk_engine_config_parse(cfg, doc, n, assignment, set_warn_fn, &w, err);
    free(doc);
    if (!st && w.unknown) {
        /* the parser's warning, without its "SOURCE:LINE:COL: " (the source is the assignment) */
        const char *why = strstr(w.first, "unknown");
        if (!why) why = w.first;
        if (!strncmp(why, "unknown table", 13))
            st = czk_errf(err, CZK_ERR_INVALID_ARG, "unknown key %.*s (%s)", (int)kl, assignment,
                          why);
        else
            st = czk_errf(err, CZK_ERR_INVALID_ARG, "%s", why);
    }
    return st;
}
