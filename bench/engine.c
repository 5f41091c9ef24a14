/*
 * bench_engine [jobs] [partitions] [log2 constraints]: the proving engine on
 * the CPU backend (one pseudo-device) with the test proof kind, for
 * synthesis workers pw ∈ {1, 2} and GPU workers per device gw ∈ {1, 2}.
 * Each row submits `jobs` jobs at once (keys loaded before the clock starts)
 * and waits for all; s/proof = wall / jobs (cuzk-bench's definition), device
 * busy = time the device lock was held / wall. Defaults: 4 jobs of 4
 * partitions of 2^12 constraints. Threads: synthesis.threads 1,
 * gpus.gpu_threads = online CPUs. CZK_BENCH_TIMELINE=PREFIX writes each
 * row's TIMELINE lines to PREFIX-pw<pw>-gw<gw>.log (for `czk timeline`).
 */
#include "czk/engine.h"
#include "czk/kinds.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void quiet(void *ctx, const char *level, const char *line) {
    (void)ctx;
    if (!strcmp(level, "error")) fprintf(stderr, "engine: %s\n", line);
}

int main(int argc, char **argv) {
    unsigned jobs = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
    unsigned parts = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
    unsigned lg = argc > 3 ? (unsigned)atoi(argv[3]) : 12;
    if (!jobs || jobs > 64 || !parts || parts > 64 || lg < 6 || lg > 20) {
        fprintf(stderr, "usage: bench_engine [jobs 1..64] [partitions 1..64] [log 6..20]\n");
        return 2;
    }
    printf(
        "engine, CPU backend, test kind: %u jobs × %u partitions × 2^%u constraints, %u CPUs\n\n",
        jobs, parts, lg, czk_cpu_count());
    printf("| pw | gw | wall s | s/proof | device busy %% | synthesis ms/partition | device "
           "ms/partition |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (unsigned pw = 1; pw <= 2; pw++)
        for (unsigned gw = 1; gw <= 2; gw++) {
            czk_engine_opts o;
            czk_engine_opts_default(&o);
            snprintf(o.config.backend, sizeof o.config.backend, "cpu");
            snprintf(o.config.param_cache, sizeof o.config.param_cache, "/nonexistent");
            o.config.partition_workers = pw;
            o.config.gpu_workers_per_device = gw;
            o.config.threads = 1;
            const char *tl = getenv("CZK_BENCH_TIMELINE"); /* one file per row */
            if (tl)
                snprintf(o.config.timeline_file, sizeof o.config.timeline_file, "%s-pw%u-gw%u.log",
                         tl, pw, gw);
            o.log = quiet;
            czk_engine *e;
            czk_err err;
            if (czk_engine_create(&e, &o, &err) || czk_kinds_register_test(e, &err)) {
                fprintf(stderr, "engine: %s\n", err.msg);
                return 1;
            }
            char cid[32];
            snprintf(cid, sizeof cid, "test-%u", lg);
            if (czk_engine_preload(e, cid, true, NULL, NULL, &err)) {
                fprintf(stderr, "preload: %s\n", err.msg);
                return 1;
            }
            char ids[64][CZK_JOB_ID_MAX];
            double t0 = czk_now();
            for (unsigned j = 0; j < jobs; j++) {
                char p[128];
                snprintf(p, sizeof p, "seed=%u partitions=%u log=%u", 100 + j, parts, lg);
                czk_proof_request r;
                memset(&r, 0, sizeof r);
                r.kind = CZK_KIND_TEST;
                r.vanilla_proof = (const uint8_t *)p;
                r.vanilla_proof_len = strlen(p);
                if (czk_engine_submit(e, &r, ids[j], NULL, &err)) {
                    fprintf(stderr, "submit: %s\n", err.msg);
                    return 1;
                }
            }
            double synth = 0, dev = 0, total;
            for (unsigned j = 0; j < jobs; j++) {
                czk_job_result res;
                if (czk_engine_await(e, ids[j], -1, &res, &err) || res.state != CZK_JOB_COMPLETED) {
                    fprintf(stderr, "job %s: %s %s\n", ids[j], czk_job_state_name(res.state),
                            res.error);
                    return 1;
                }
                synth += (double)res.synthesis_ms;
                dev += (double)res.gpu_compute_ms;
                czk_job_result_free(&res);
            }
            double wall = czk_now() - t0;
            czk_engine_status *s;
            if (czk_engine_status_get(e, &s, &err)) return 1;
            uint64_t busy = s->devices[0].busy_ms;
            czk_engine_status_free(s);
            total = (double)jobs * parts;
            printf("| %u | %u | %.2f | %.3f | %.1f | %.1f | %.1f |\n", pw, gw, wall, wall / jobs,
                   100.0 * (double)busy / 1000.0 / wall, synth / total, dev / total);
            czk_engine_destroy(e);
        }
    return 0;
}
