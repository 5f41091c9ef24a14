/*
 * `czk bench`: throughput runs at a chosen concurrency against the engine in
 * this process or a daemon, sweeps over configuration values, and the
 * run's timeline drawn as SVG (include/czk/bench.h; cuzk-bench `batch`,
 * cuzk-engine.md §5).
 */
#include "cli/cli.h"
#include "czk/bench.h"
#include "czk/kinds.h"
#include "czk/httpstatus.h" /* czk_daemon_config: [daemon] of --config */
#include "czk/porep_shapes.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f) {
    fprintf(
        f, "usage: czk bench (--addr ADDR | --in-process [--config FILE]) -c COUNT -j CONCURRENCY\n"
           "                 (--c1 FILE... | --kind test [--test-payload TEXT] |\n"
           "                  --kind window-post|winning-post|snap --request FILE...)\n"
           "                 [options]\n\n"
           "Proves COUNT requests with CONCURRENCY in flight and prints, per proof, the wall,\n"
           "queue, synthesis and GPU times, then a summary: s/proof (total wall / completed),\n"
           "steady s/proof (the interval between results after the first CONCURRENCY),\n"
           "synthesis and GPU time per partition, GPU busy %%, idle gaps (total and per proof),\n"
           "peak RSS and the configuration used.\n\n"
           "  --addr ADDR           a czk daemon (host:port or unix:PATH)\n"
           "  --in-process          an engine in this process\n"
           "  --config FILE         its configuration (cuzk.toml keys; default: defaults)\n"
           "  --set KEY=VALUE       a configuration value over --config (repeatable)\n"
           "  -c, --count N         proofs to make (default 3)\n"
           "  -j, --concurrency N   proofs in flight (default 1)\n"
           "  --c1 FILE...          PoRep C1 JSON files or cuzk envelopes, used round-robin\n"
           "  --miner-id N          miner id of the C1s: with the sector number, replica_id\n"
           "                        is recomputed and checked at intake\n"
           "  --sector-num N        sector number of raw C1s (an envelope carries its own);\n"
           "                        without both ids the C1's replica_id is trusted and the\n"
           "                        output says so (as czk prove)\n"
           "  --kind test           the engine's test circuit instead of PoRep\n"
           "  --test-payload TEXT   its payload without seed (default \"partitions=4 log=10\")\n"
           "  --kind window-post|winning-post --request FILE...\n"
           "                        PoSt requests (czk gen-vanilla --post writes them), used\n"
           "                        round-robin; one partition each\n"
           "  --kind snap --request FILE...\n"
           "                        SnapDeals updates (czk gen-vanilla --snap --out-dir\n"
           "                        writes update.json), used round-robin; all partitions\n"
           "                        of each (16 for 32GiB), interleaved across proofs\n"
           "  --sweep KEY=V1,V2...  in-process: one run per combination of values (several\n"
           "                        KEY=... words form a grid), one row per configuration\n"
           "  --svg FILE            draw the run's timeline (a sweep: FILE-<n>.svg per row)\n"
           "  --timeline-file FILE  with --addr: the daemon's logging.timeline_file, read for\n"
           "                        busy %%, idle gaps and per-partition times\n"
           "  --no-preload          do not load the SRS before the clock starts\n"
           "  --warmup N            N proofs before the clock starts, not counted (default 0;\n"
           "                        the engine measures a circuit's memory on its first one)\n"
           "  --progress / --no-progress  the progress bar (default: when stderr is a terminal)\n"
           "  --lagrange-seed N     in-process, TEST keys of `czk setup --seed N`: where no\n"
           "                        Lagrange form file is found (srs.lagrange), make the form\n"
           "                        in memory at load from that seed's toxic waste (for disks\n"
           "                        that hold the keys but not their form)\n"
           "  --verbose             engine log lines of every level\n");
}

#define MAX_INPUTS 64
#define MAX_SWEEP 8
#define MAX_SETS 32

typedef struct input {
    const char *path;
    char *env; /* the envelope sent */
    size_t env_len;
    uint64_t sector_num, sector_size, registered_proof;
    bool ids; /* sector number and miner id known: the request carries the miner id */
    const char *circuit_id;
} input;

typedef struct opts {
    const char *addr, *config, *svg, *kind, *test_payload, *timeline_file;
    const char *request[MAX_INPUTS]; /* PoSt request files */
    size_t n_request;
    bool in_process, preload, verbose;
    int progress; /* -1 auto */
    uint64_t count, concurrency, miner_id, sector_num, warmup;
    bool have_miner, have_sector;
    uint64_t lagrange_seed; /* --lagrange-seed (have_lagrange_seed) */
    bool have_lagrange_seed;
    const char *c1[MAX_INPUTS];
    size_t n_c1;
    const char *sets[MAX_SETS];
    size_t n_sets;
    const char *sweep[MAX_SWEEP];
    size_t n_sweep;
} opts;

/* ---- requests ---- */

typedef struct reqs {
    const opts *o;
    input in[MAX_INPUTS];
    size_t n_in;
    char **test; /* per proof payload (test kind) */
    size_t n_test;
    czk_cli_post_req post[MAX_INPUTS]; /* PoSt and SnapDeals kinds (post_args.c) */
    size_t n_post;
    char post_circuit[CZK_CIRCUIT_ID_MAX];
} reqs;

static czk_status make_request(void *ctx, size_t i, czk_proof_request *r, czk_err *err) {
    reqs *q = ctx;
    (void)err;
    memset(r, 0, sizeof *r);
    if (q->test) {
        r->miner_id = q->o->have_miner ? q->o->miner_id : 1000;
        r->kind = CZK_KIND_TEST;
        r->vanilla_proof = (const uint8_t *)q->test[i];
        r->vanilla_proof_len = strlen(q->test[i]);
        return CZK_OK;
    }
    if (q->n_post) {
        czk_cli_post_request(r, &q->post[i % q->n_post]);
        return CZK_OK;
    }
    const input *in = &q->in[i % q->n_in];
    r->kind = CZK_KIND_POREP_C2;
    r->miner_id = in->ids ? q->o->miner_id : 0; /* 0: the C1's replica_id is trusted */
    r->vanilla_proof = (const uint8_t *)in->env;
    r->vanilla_proof_len = in->env_len;
    r->sector_number = in->sector_num;
    r->sector_size = in->sector_size;
    r->registered_proof = in->registered_proof;
    return CZK_OK;
}

static const char *porep_circuit_id(uint64_t sector_size) {
    static const struct {
        uint64_t size;
        const char *id;
    } IDS[] = {{2048, "porep-2k"},
               {8ull << 20, "porep-8m"},
               {512ull << 20, "porep-512m"},
               {32ull << 30, "porep-32g"},
               {64ull << 30, "porep-64g"}};
    for (size_t i = 0; i < sizeof IDS / sizeof IDS[0]; i++)
        if (IDS[i].size == sector_size) return IDS[i].id;
    return NULL;
}

static int load_inputs(reqs *q) {
    const opts *o = q->o;
    for (size_t k = 0; k < o->n_c1; k++) {
        input *in = &q->in[q->n_in++];
        in->path = o->c1[k];
        uint8_t *buf;
        size_t len;
        if (czk_cli_read_c1("bench", in->path, &buf, &len)) return CZK_EXIT_ERROR;
        czk_c1 *c1 = NULL;
        bool env = false;
        uint64_t sn = o->sector_num;
        czk_err err;
        if (czk_cli_parse_c1(&c1, &env, &sn, buf, len, &err)) {
            free(buf);
            return czk_cli_fail("bench", "%s: %s", in->path, err.msg);
        }
        czk_porep_proof pp;
        if (czk_porep_proof_lookup(c1->registered_proof, &pp, &err)) {
            czk_c1_free(c1);
            free(buf);
            return czk_cli_fail("bench", "%s: %s", in->path, err.msg);
        }
        in->sector_num = env || o->have_sector ? sn : 0;
        /* replica_id is recomputed and checked only with both ids, as czk prove does */
        in->ids = (env || o->have_sector) && o->have_miner;
        in->sector_size = pp.shape->sector_size;
        in->registered_proof = c1->registered_proof;
        in->circuit_id = porep_circuit_id(in->sector_size);
        czk_c1_free(c1);
        if (env) {
            in->env = (char *)buf;
            in->env_len = len;
            continue;
        }
        int rc = czk_cli_envelope("bench", &in->env, &in->env_len, buf, len, in->sector_num,
                                  in->sector_size);
        free(buf);
        if (rc) return rc;
    }
    return CZK_EXIT_OK;
}

/* The PoSt or SnapDeals requests; all of one circuit (the one preloaded). */
static int load_post(reqs *q) {
    const opts *o = q->o;
    for (size_t k = 0; k < o->n_request; k++) {
        czk_cli_post_req *r = &q->post[k];
        int rc =
            czk_cli_post_req_read(r, "bench", o->request[k], CZK_CLI_POST_BLOBS, CZK_EXIT_ERROR);
        if (rc) return rc;
        q->n_post++;
        if (strcmp(czk_cli_req_kind_name(r->kind), o->kind))
            return czk_cli_fail("bench", "%s: a %s request, not --kind %s", o->request[k],
                                czk_cli_req_kind_name(r->kind), o->kind);
        if (r->proof.shape != q->post[0].proof.shape || r->snap != q->post[0].snap)
            return czk_cli_fail("bench", "%s: %s sectors; %s has %s (one circuit per run)",
                                o->request[k], czk_cli_req_size_name(r), o->request[0],
                                czk_cli_req_size_name(&q->post[0]));
    }
    czk_err err;
    czk_proof_request pr;
    czk_cli_post_request(&pr, &q->post[0]);
    if (czk_kind_circuit_id(q->post_circuit, pr.kind, pr.sector_size, &err))
        return czk_cli_fail("bench", "%s", err.msg);
    return CZK_EXIT_OK;
}

static int make_test_payloads(reqs *q) {
    const opts *o = q->o;
    q->n_test = o->count > o->warmup ? o->count : o->warmup; /* the warm-up uses them too */
    q->test = calloc(q->n_test, sizeof *q->test);
    if (!q->test) return czk_cli_fail("bench", "out of memory");
    for (size_t i = 0; i < q->n_test; i++) {
        size_t n = strlen(o->test_payload) + 32;
        q->test[i] = malloc(n);
        if (!q->test[i]) return czk_cli_fail("bench", "out of memory");
        snprintf(q->test[i], n, "seed=%zu %s", i + 1, o->test_payload);
    }
    return CZK_EXIT_OK;
}

static void reqs_free(reqs *q) {
    for (size_t i = 0; i < q->n_in; i++)
        free(q->in[i].env);
    for (size_t i = 0; i < q->n_post; i++)
        czk_cli_post_req_free(&q->post[i]);
    for (size_t i = 0; q->test && i < q->n_test; i++)
        free(q->test[i]);
    free(q->test);
}

/* Which inputs have their replica_id checked at intake, and which are trusted. */
static void print_replica_ids(const reqs *q) {
    size_t trusted = 0;
    for (size_t i = 0; i < q->n_in; i++)
        trusted += !q->in[i].ids;
    if (trusted < q->n_in)
        printf("replica_id: recomputed and checked for miner f0%llu:",
               (unsigned long long)q->o->miner_id);
    for (size_t i = 0; trusted < q->n_in && i < q->n_in; i++)
        if (q->in[i].ids)
            printf(" %s (sector %llu)", q->in[i].path, (unsigned long long)q->in[i].sector_num);
    if (trusted < q->n_in) printf("\n");
    if (!trusted) return;
    printf("replica_id: the C1's own, NOT checked (needs --miner-id, and --sector-num for a raw "
           "C1):");
    for (size_t i = 0; i < q->n_in; i++)
        if (!q->in[i].ids) printf(" %s", q->in[i].path);
    printf("\n");
}

/* ---- progress ---- */

typedef struct progress {
    bool bar;   /* a bar redrawn in place on stderr */
    bool lines; /* else plain progress lines on stderr */
    bool rows;  /* per proof rows on stdout */
    const char *label;
} progress;

static void fmt_dur(char *out, size_t cap, double s) {
    if (s < 0) s = 0;
    if (s < 90)
        snprintf(out, cap, "%.0fs", s);
    else if (s < 5400)
        snprintf(out, cap, "%.0fm%02.0fs", floor(s / 60), fmod(s, 60));
    else
        snprintf(out, cap, "%.0fh%02.0fm", floor(s / 3600), floor(fmod(s, 3600) / 60));
}

static void on_done(void *ctx, const czk_bench_row *row, size_t done, size_t count,
                    double elapsed) {
    progress *p = ctx;
    if (p->bar) fputs("\r\033[K", stderr);
    if (p->rows) {
        printf("%5zu  %-28s %-10s %9.3f %9llu %10llu %9llu\n", row->index, row->job_id,
               czk_job_state_name(row->state), row->wall_s, (unsigned long long)row->queue_ms,
               (unsigned long long)row->synthesis_ms, (unsigned long long)row->gpu_ms);
        if (row->state != CZK_JOB_COMPLETED && row->error[0])
            printf("       error: %s\n", row->error);
        fflush(stdout);
    }
    double sp = elapsed / (double)done, eta = sp * (double)(count - done);
    char e[32], t[32];
    fmt_dur(e, sizeof e, eta);
    fmt_dur(t, sizeof t, elapsed);
    if (p->bar) {
        enum { W = 30 };
        char bar[W + 1];
        size_t fill = done * W / count;
        for (size_t i = 0; i < W; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[W] = 0;
        if (done < count)
            fprintf(stderr, "%s[%s] %zu/%zu  %.2f s/proof  elapsed %s  ETA %s", p->label, bar, done,
                    count, sp, t, e);
        fflush(stderr);
    } else if (p->lines) {
        fprintf(stderr, "%sprogress %zu/%zu, %.3f s/proof so far, elapsed %s, ETA %s\n", p->label,
                done, count, sp, t, e);
    }
}

/* ---- printing ---- */

static void print_summary(const czk_bench_result *r, czk_bench_runner *runner, const char *svg) {
    printf("\nsummary\n");
    printf("  %-22s %zu (completed %zu, failed %zu)\n", "proofs", r->count, r->completed,
           r->failed);
    printf("  %-22s %.3f s (first submit to last result)\n", "wall", r->wall_s);
    if (r->completed)
        printf("  %-22s %.3f (wall / completed)\n", "s/proof", r->s_per_proof);
    else
        printf("  %-22s - (none completed)\n", "s/proof");
    if (r->steady_s_per_proof > 0)
        printf("  %-22s %.3f (interval between results after the first %u, the ramp)\n",
               "steady s/proof", r->steady_s_per_proof, r->steady_after);
    const char *unit = r->per_partition ? "partition" : "proof";
    if (r->per_partition) {
        printf("  %-22s avg %.1f ms (min %.0f, max %.0f; %zu partition%s)\n", "synthesis/partition",
               r->synthesis_avg_ms, r->tl.synth.min, r->tl.synth.max, r->tl.synth.n,
               r->tl.synth.n == 1 ? "" : "s");
        printf("  %-22s avg %.1f ms (min %.0f, max %.0f; %zu partition%s)\n", "gpu/partition",
               r->gpu_avg_ms, r->tl.gpu.min, r->tl.gpu.max, r->tl.gpu.n,
               r->tl.gpu.n == 1 ? "" : "s");
    } else {
        printf("  synthesis/%-12s avg %.1f ms (sum over partitions; no timeline)\n", unit,
               r->synthesis_avg_ms);
        printf("  gpu/%-18s avg %.1f ms (sum over partitions; no timeline)\n", unit, r->gpu_avg_ms);
    }
    double busy;
    uint64_t gaps;
    if (czk_bench_busy(r, &busy, &gaps)) {
        printf("  %-22s %.1f %% (device lock held over the span of device work)\n", "gpu busy",
               busy);
        printf("  %-22s total %llu ms in %llu gaps, per proof %.1f ms\n", "idle gaps",
               (unsigned long long)gaps, (unsigned long long)r->tl.gaps,
               r->completed ? (double)gaps / (double)r->completed : 0.0);
    } else {
        printf("  %-22s - (no timeline from this runner%s)\n", "gpu busy",
               runner->ops->timeline ? "" : "; --timeline-file reads the daemon's");
        printf("  %-22s - (no timeline from this runner)\n", "idle gaps");
    }
    if (r->peak_rss)
        printf("  %-22s %.2f GiB\n", "peak RSS", (double)r->peak_rss / (double)(1ull << 30));
    else
        printf("  %-22s - (unknown for this runner)\n", "peak RSS");
    if (svg) printf("  %-22s %s\n", "timeline svg", svg);
    printf("configuration\n");
    if (runner->ops->describe) runner->ops->describe(runner->self, stdout);
}

/* ---- the runner ---- */

static void warn_line(void *ctx, const char *msg) {
    (void)ctx;
    fprintf(stderr, "czk bench: warning: %s\n", msg);
}

/* Resets this process's peak RSS (VmHWM) so that each sweep row has its own. */
static void reset_peak_rss(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return;
    fputs("5", f);
    fclose(f);
}

/* The remote runner; src/cli/bench_remote.c. */
czk_status czk_bench_remote(czk_bench_runner *out, const char *addr, const char *preload,
                            const char *timeline_file, czk_err *err);

static int make_runner(czk_bench_runner *runner, const opts *o, const czk_engine_config *cfg,
                       const reqs *q) {
    czk_err err;
    const char *id = NULL;
    char tid[CZK_CIRCUIT_ID_MAX];
    if (o->preload) {
        if (q->test) {
            const char *l = strstr(o->test_payload, "log=");
            snprintf(tid, sizeof tid, "test-%u", l ? (unsigned)atoi(l + 4) : 10u);
            id = tid;
        } else if (q->n_in) {
            id = q->in[0].circuit_id;
        } else if (q->n_post) {
            id = q->post_circuit;
        }
    }
    if (o->addr) {
        if (czk_bench_remote(runner, o->addr, id, o->timeline_file, &err))
            return czk_cli_fail("bench", "--addr %s: %s", o->addr, err.msg);
        return CZK_EXIT_OK;
    }
    if (czk_bench_inprocess_with(runner, cfg, o->verbose,
                                 o->have_lagrange_seed ? &o->lagrange_seed : NULL, &err))
        return czk_cli_fail("bench", "engine: %s", err.msg);
    uint64_t ms = 0;
    if (id && czk_bench_inprocess_preload(runner, id, &ms, &err))
        fprintf(stderr, "czk bench: warning: preload %s: %s (the proofs will say more)\n", id,
                err.msg);
    else if (id)
        fprintf(stderr, "czk bench: %s loaded in %llu ms (before the clock starts)\n", id,
                (unsigned long long)ms);
    return CZK_EXIT_OK;
}

static void svg_name(char *out, size_t cap, const char *svg, size_t n, bool sweep) {
    if (!sweep) {
        snprintf(out, cap, "%s", svg);
        return;
    }
    size_t l = strlen(svg);
    if (l > 4 && !strcmp(svg + l - 4, ".svg"))
        snprintf(out, cap, "%.*s-%zu.svg", (int)(l - 4), svg, n);
    else
        snprintf(out, cap, "%s-%zu.svg", svg, n);
}

/* One run: returns CZK_EXIT_*; fills *res. */
static int run_once(const opts *o, const czk_engine_config *cfg, reqs *q, const char *id_prefix,
                    bool rows, const char *label, const char *svg, czk_bench_result *res,
                    bool print) {
    czk_bench_runner runner = {0};
    memset(res, 0, sizeof *res);
    int rc = make_runner(&runner, o, cfg, q);
    if (rc) return rc;
    if (o->warmup) {
        /* the first proofs of a circuit pay for measuring its memory (admission waits) */
        char wid[140];
        snprintf(wid, sizeof wid, "%s-w", id_prefix);
        czk_bench_plan wp = {(size_t)o->warmup,
                             (unsigned)(o->concurrency < o->warmup ? o->concurrency : o->warmup),
                             wid,
                             make_request,
                             q,
                             NULL,
                             NULL};
        czk_bench_result wr;
        czk_err werr;
        czk_status wst = czk_bench_run(&runner, &wp, &wr, &werr);
        if (wst || wr.failed) {
            const char *why = wst ? werr.msg : "failed";
            for (size_t i = 0; !wst && i < wr.count; i++)
                if (wr.rows[i].state != CZK_JOB_COMPLETED) {
                    why = wr.rows[i].error[0] ? wr.rows[i].error
                                              : czk_job_state_name(wr.rows[i].state);
                    break;
                }
            rc = czk_cli_fail("bench", "warm-up: %s", why);
            czk_bench_result_free(&wr);
            czk_bench_runner_destroy(&runner);
            return rc;
        }
        fprintf(stderr, "%sczk bench: %llu warm-up proofs in %.3f s (not counted)\n", label,
                (unsigned long long)o->warmup, wr.wall_s);
        czk_bench_result_free(&wr);
    }
    bool tty = isatty(2) == 1;
    progress pr = {o->progress == 1 || (o->progress < 0 && tty), o->progress < 0 && !tty, rows,
                   label};
    czk_bench_plan plan = {
        (size_t)o->count, (unsigned)o->concurrency, id_prefix, make_request, q, on_done, &pr};
    if (rows) {
        printf("czk bench: %s, %llu proof%s, %llu in flight, ", o->addr ? o->addr : "in-process",
               (unsigned long long)o->count, o->count == 1 ? "" : "s",
               (unsigned long long)o->concurrency);
        if (q->test) {
            printf("test kind (%s)\n", o->test_payload);
        } else if (q->n_post) {
            printf("%s (%s) requests:", o->kind, q->post_circuit);
            for (size_t i = 0; i < q->n_post; i++)
                if (q->post[i].snap)
                    printf(" %s (registered update proof %d, %zu partition%s)", o->request[i],
                           q->post[i].snap->registered_proof, q->post[i].n,
                           q->post[i].n == 1 ? "" : "s");
                else
                    printf(" %s (registered proof %llu, partition %u, %zu sector%s)", o->request[i],
                           (unsigned long long)q->post[i].proof.id, q->post[i].partition_index,
                           q->post[i].n, q->post[i].n == 1 ? "" : "s");
            printf("\n");
        } else {
            printf("inputs:");
            for (size_t i = 0; i < q->n_in; i++)
                printf(" %s (%s)", q->in[i].path, q->in[i].circuit_id ? q->in[i].circuit_id : "?");
            printf("\n");
            print_replica_ids(q);
        }
    }
    if (rows)
        printf("%5s  %-28s %-10s %9s %9s %10s %9s\n", "proof", "job", "state", "wall s", "queue ms",
               "synth ms", "gpu ms");
    if (pr.bar) {
        fprintf(stderr, "%s[%s] 0/%llu  starting", label, "..............................",
                (unsigned long long)o->count);
        fflush(stderr);
    }
    czk_err err;
    czk_status st = czk_bench_run(&runner, &plan, res, &err);
    if (pr.bar) fputs("\r\033[K", stderr);
    if (st) rc = czk_cli_fail("bench", "%s", err.msg);
    bool svg_ok = false;
    if (svg && runner.ops->timeline) {
        czk_tl tl;
        czk_tl_init(&tl);
        char title[256];
        snprintf(title, sizeof title, "czk bench: %llu proofs, %llu in flight, %.3f s/proof",
                 (unsigned long long)o->count, (unsigned long long)o->concurrency,
                 res->s_per_proof);
        czk_tl_svg_opts so = {0, title};
        if (runner.ops->timeline(runner.self, &tl, &err) || czk_tl_svg_file(&tl, svg, &so, &err))
            rc = czk_cli_fail("bench", "--svg %s: %s", svg, err.msg);
        else
            svg_ok = true;
        czk_tl_free(&tl);
    } else if (svg) {
        rc = czk_cli_fail("bench", "--svg: this runner gives no timeline");
    }
    if (print) print_summary(res, &runner, svg_ok ? svg : NULL);
    czk_bench_runner_destroy(&runner);
    return rc;
}

/* ---- sweeps ---- */

typedef struct axis {
    char key[128];
    char *vals[32];
    size_t n;
} axis;

static int parse_sweep(const opts *o, axis *ax) {
    for (size_t a = 0; a < o->n_sweep; a++) {
        const char *s = o->sweep[a], *eq = strchr(s, '=');
        if (!eq || eq == s || (size_t)(eq - s) >= sizeof ax[a].key || !eq[1])
            return czk_cli_fail("bench", "--sweep '%s': expected KEY=V1,V2,...", s);
        snprintf(ax[a].key, sizeof ax[a].key, "%.*s", (int)(eq - s), s);
        ax[a].n = 0;
        const char *p = eq + 1;
        while (*p) {
            const char *c = strchr(p, ',');
            size_t l = c ? (size_t)(c - p) : strlen(p);
            if (!l || ax[a].n == 32)
                return czk_cli_fail("bench", "--sweep '%s': empty value or more than 32", s);
            ax[a].vals[ax[a].n] = strndup(p, l);
            if (!ax[a].vals[ax[a].n++]) return czk_cli_fail("bench", "out of memory");
            p += l + (c ? 1 : 0);
        }
    }
    return CZK_EXIT_OK;
}

static int run_sweep(const opts *o, const czk_engine_config *base, reqs *q, const char *prefix) {
    axis ax[MAX_SWEEP];
    memset(ax, 0, sizeof ax);
    int rc = parse_sweep(o, ax);
    size_t total = 1;
    for (size_t a = 0; !rc && a < o->n_sweep; a++)
        total *= ax[a].n;
    /* every point is checked before any run */
    czk_engine_config *cfgs = rc ? NULL : calloc(total, sizeof *cfgs);
    if (!rc && !cfgs) rc = czk_cli_fail("bench", "out of memory");
    for (size_t g = 0; !rc && g < total; g++) {
        cfgs[g] = *base;
        size_t rest = g;
        for (size_t a = o->n_sweep; !rc && a-- > 0;) {
            size_t v = rest % ax[a].n;
            rest /= ax[a].n;
            char as[512];
            snprintf(as, sizeof as, "%s=%s", ax[a].key, ax[a].vals[v]);
            czk_err err;
            if (czk_bench_config_set(&cfgs[g], as, warn_line, NULL, &err))
                rc = czk_cli_fail("bench", "--sweep %s: %s", as, err.msg);
        }
    }
    if (!rc) {
        printf("sweep: %zu configurations, %llu proofs each, %llu in flight, in-process\n", total,
               (unsigned long long)o->count, (unsigned long long)o->concurrency);
        for (size_t a = 0; a < o->n_sweep; a++)
            printf("%-*s  ", (int)(strlen(ax[a].key) > 6 ? strlen(ax[a].key) : 6), ax[a].key);
        printf("%4s %4s %9s %9s %10s %9s %6s %9s %10s %8s\n", "done", "fail", "wall s", "s/proof",
               "synth ms", "gpu ms", "busy%", "gaps ms", "gap/proof", "RSS GiB");
        fflush(stdout);
    }
    for (size_t g = 0; !rc && g < total; g++) {
        char label[64], id[120], svg[1100];
        snprintf(label, sizeof label, "[%zu/%zu] ", g + 1, total);
        snprintf(id, sizeof id, "%s-s%zu", prefix, g);
        if (o->svg) svg_name(svg, sizeof svg, o->svg, g + 1, true);
        reset_peak_rss();
        czk_bench_result res;
        int r1 = run_once(o, &cfgs[g], q, id, false, label, o->svg ? svg : NULL, &res, false);
        size_t rest = g;
        size_t idx[MAX_SWEEP];
        for (size_t a = o->n_sweep; a-- > 0;) {
            idx[a] = rest % ax[a].n;
            rest /= ax[a].n;
        }
        for (size_t a = 0; a < o->n_sweep; a++)
            printf("%-*s  ", (int)(strlen(ax[a].key) > 6 ? strlen(ax[a].key) : 6),
                   ax[a].vals[idx[a]]);
        double busy = -1;
        uint64_t gaps = 0;
        bool hb = czk_bench_busy(&res, &busy, &gaps);
        printf("%4zu %4zu %9.3f %9.3f %10.1f %9.1f ", res.completed, res.failed, res.wall_s,
               res.s_per_proof, res.synthesis_avg_ms, res.gpu_avg_ms);
        if (hb)
            printf("%6.1f %9llu %10.1f", busy, (unsigned long long)gaps,
                   res.completed ? (double)gaps / (double)res.completed : 0.0);
        else
            printf("%6s %9s %10s", "-", "-", "-");
        printf(" %8.2f\n", (double)res.peak_rss / (double)(1ull << 30));
        fflush(stdout);
        czk_bench_result_free(&res);
        if (r1) rc = r1;
    }
    if (!rc) {
        printf("(synth ms and gpu ms per partition; busy%% and gaps from the engine's "
               "timeline; RSS = peak of this process during the row)\nconfiguration (besides "
               "the swept keys)\n");
        const czk_engine_config *c = base;
        printf("  gpus.backend = %s\n  gpus.finalize_workers = %u\n  synthesis.threads = %u\n"
               "  gpus.gpu_threads = %u\n  srs.param_cache = %s\n",
               c->backend, c->finalize_workers, c->threads, c->gpu_threads, c->param_cache);
    }
    free(cfgs);
    for (size_t a = 0; a < MAX_SWEEP; a++)
        for (size_t v = 0; v < ax[a].n; v++)
            free(ax[a].vals[v]);
    return rc;
}

/* ---- the command ---- */

int czk_cmd_bench(int argc, char **argv) {
    enum {
        O_ADDR = 256,
        O_INPROC,
        O_CONFIG,
        O_SET,
        O_C1,
        O_MINER,
        O_SECTOR,
        O_KIND,
        O_TPAY,
        O_SWEEP,
        O_SVG,
        O_NOPRE,
        O_PROG,
        O_NOPROG,
        O_VERB,
        O_WARM,
        O_TLF,
        O_REQUEST,
        O_LSEED
    };
    static const struct option LONG[] = {{"addr", required_argument, NULL, O_ADDR},
                                         {"in-process", no_argument, NULL, O_INPROC},
                                         {"config", required_argument, NULL, O_CONFIG},
                                         {"set", required_argument, NULL, O_SET},
                                         {"count", required_argument, NULL, 'c'},
                                         {"concurrency", required_argument, NULL, 'j'},
                                         {"c1", required_argument, NULL, O_C1},
                                         {"miner-id", required_argument, NULL, O_MINER},
                                         {"sector-num", required_argument, NULL, O_SECTOR},
                                         {"kind", required_argument, NULL, O_KIND},
                                         {"test-payload", required_argument, NULL, O_TPAY},
                                         {"sweep", required_argument, NULL, O_SWEEP},
                                         {"svg", required_argument, NULL, O_SVG},
                                         {"no-preload", no_argument, NULL, O_NOPRE},
                                         {"progress", no_argument, NULL, O_PROG},
                                         {"no-progress", no_argument, NULL, O_NOPROG},
                                         {"verbose", no_argument, NULL, O_VERB},
                                         {"warmup", required_argument, NULL, O_WARM},
                                         {"timeline-file", required_argument, NULL, O_TLF},
                                         {"request", required_argument, NULL, O_REQUEST},
                                         {"lagrange-seed", required_argument, NULL, O_LSEED},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    opts o = {0};
    o.count = 3;
    o.concurrency = 1;
    o.preload = true;
    o.progress = -1;
    o.kind = "porep";
    o.test_payload = "partitions=4 log=10";
    int list = 0; /* the option whose list free words extend: O_C1, O_REQUEST or O_SWEEP */
    optind = 1;
    opterr = 0;
    int c;
    /* "-" first: free words come back as option 1, so that --c1 A B and --sweep K=.. K2=..
       take the words that follow them */
    while ((c = getopt_long(argc, argv, "-c:j:h", LONG, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case 1:
            if (list == O_C1) {
                if (o.n_c1 == MAX_INPUTS) return czk_cli_fail("bench", "more than 64 --c1 files");
                o.c1[o.n_c1++] = a;
            } else if (list == O_REQUEST) {
                if (o.n_request == MAX_INPUTS)
                    return czk_cli_fail("bench", "more than 64 --request files");
                o.request[o.n_request++] = a;
            } else if (list == O_SWEEP) {
                if (o.n_sweep == MAX_SWEEP) return czk_cli_fail("bench", "more than 8 sweep keys");
                o.sweep[o.n_sweep++] = a;
            } else {
                usage(stderr);
                return czk_cli_fail("bench", "unexpected argument '%s'", a);
            }
            continue;
        case O_C1:
            if (o.n_c1 == MAX_INPUTS) return czk_cli_fail("bench", "more than 64 --c1 files");
            o.c1[o.n_c1++] = a;
            list = O_C1;
            continue;
        case O_SWEEP:
            if (o.n_sweep == MAX_SWEEP) return czk_cli_fail("bench", "more than 8 sweep keys");
            o.sweep[o.n_sweep++] = a;
            list = O_SWEEP;
            continue;
        case O_REQUEST:
            if (o.n_request == MAX_INPUTS)
                return czk_cli_fail("bench", "more than 64 --request files");
            o.request[o.n_request++] = a;
            list = O_REQUEST;
            continue;
        default:
            break;
        }
        list = 0;
        switch (c) {
        case O_ADDR:
            o.addr = a;
            break;
        case O_INPROC:
            o.in_process = true;
            break;
        case O_CONFIG:
            o.config = a;
            break;
        case O_SET:
            if (o.n_sets == MAX_SETS) return czk_cli_fail("bench", "more than 32 --set");
            o.sets[o.n_sets++] = a;
            break;
        case 'c':
            if (!czk_cli_parse_u64(a, &o.count) || !o.count || o.count > 1000000)
                return czk_cli_fail("bench", "-c: expected 1..1000000 proofs, got '%s'", a);
            break;
        case 'j':
            if (!czk_cli_parse_u64(a, &o.concurrency) || !o.concurrency || o.concurrency > 4096)
                return czk_cli_fail("bench", "-j: expected 1..4096, got '%s'", a);
            break;
        case O_MINER:
            if (!czk_cli_parse_u64(a, &o.miner_id))
                return czk_cli_fail("bench", "--miner-id: not a number: '%s'", a);
            o.have_miner = true;
            break;
        case O_SECTOR:
            if (!czk_cli_parse_u64(a, &o.sector_num))
                return czk_cli_fail("bench", "--sector-num: not a number: '%s'", a);
            o.have_sector = true;
            break;
        case O_KIND:
            if (strcmp(a, "porep") && strcmp(a, "test") && strcmp(a, "window-post") &&
                strcmp(a, "winning-post") && strcmp(a, "snap"))
                return czk_cli_fail("bench",
                                    "--kind: expected porep, test, window-post, winning-post or "
                                    "snap, got '%s'",
                                    a);
            o.kind = a;
            break;
        case O_TPAY:
            o.test_payload = a;
            break;
        case O_SVG:
            o.svg = a;
            break;
        case O_NOPRE:
            o.preload = false;
            break;
        case O_PROG:
            o.progress = 1;
            break;
        case O_NOPROG:
            o.progress = 0;
            break;
        case O_VERB:
            o.verbose = true;
            break;
        case O_TLF:
            o.timeline_file = a;
            break;
        case O_WARM:
            if (!czk_cli_parse_u64(a, &o.warmup) || o.warmup > 1000)
                return czk_cli_fail("bench", "--warmup: expected 0..1000, got '%s'", a);
            break;
        case O_LSEED:
            if (!czk_cli_parse_u64(a, &o.lagrange_seed))
                return czk_cli_fail("bench", "--lagrange-seed takes a number, not '%s'", a);
            o.have_lagrange_seed = true;
            break;
        case 'h':
            usage(stdout);
            return CZK_EXIT_OK;
        default:
            usage(stderr);
            return czk_cli_fail("bench", "unknown option or missing value: %s", argv[optind - 1]);
        }
    }
    if (!!o.addr == o.in_process) {
        usage(stderr);
        return czk_cli_fail("bench", "give exactly one of --addr ADDR and --in-process");
    }
    if (o.have_lagrange_seed && !o.in_process)
        return czk_cli_fail("bench", "--lagrange-seed is for --in-process (a daemon finds its "
                                     "forms as files)");
    if (o.timeline_file && !o.addr)
        return czk_cli_fail("bench", "--timeline-file is for --addr (in-process runs see the "
                                     "events directly)");
    if (o.addr && (o.config || o.n_sets || o.n_sweep))
        return czk_cli_fail("bench", "--config, --set and --sweep need --in-process");
    czk_kind_id rk;
    bool test = !strcmp(o.kind, "test"), post = czk_cli_req_kind_parse(o.kind, &rk);
    if (post ? (o.n_c1 || !o.n_request) : o.n_request)
        return czk_cli_fail("bench",
                            post ? "--kind %s takes --request FILE... (no --c1)"
                                 : "--request is for --kind window-post, winning-post or snap",
                            o.kind);
    if (!post && test == (o.n_c1 > 0))
        return czk_cli_fail("bench", test ? "--kind test takes no --c1"
                                          : "give --c1 FILE... (or --kind test)");
    czk_engine_config cfg;
    czk_engine_config_default(&cfg);
    czk_err err;
    czk_daemon_config daemon; /* [daemon] of a shared cuzk.toml: read, not used in process */
    czk_daemon_config_default(&daemon);
    czk_config_table daemon_table = czk_daemon_config_table(&daemon);
    if (o.config && czk_config_load(&cfg, &daemon_table, 1, o.config, warn_line, NULL, &err))
        return czk_cli_fail("bench", "--config %s: %s", o.config, err.msg);
    for (size_t i = 0; i < o.n_sets; i++)
        if (czk_bench_config_set(&cfg, o.sets[i], warn_line, NULL, &err))
            return czk_cli_fail("bench", "--set %s: %s", o.sets[i], err.msg);
    reqs q = {.o = &o};
    int rc = test ? make_test_payloads(&q) : post ? load_post(&q) : load_inputs(&q);
    if (rc) {
        reqs_free(&q);
        return rc;
    }
    /* a request id no earlier run used: the engine hands a stored result back for a known id */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "bench-%lx%04lx-%d", (unsigned long)ts.tv_sec,
             (unsigned long)(ts.tv_nsec / 100000) & 0xffff, (int)getpid());
    if (o.n_sweep) {
        rc = run_sweep(&o, &cfg, &q, prefix);
    } else {
        czk_bench_result res;
        rc = run_once(&o, &cfg, &q, prefix, true, "", o.svg, &res, true);
        if (!rc && res.failed) rc = CZK_EXIT_NO;
        czk_bench_result_free(&res);
    }
    reqs_free(&q);
    return rc;
}
