/*
 * bench_seal: the test-sector generator (czk_seal_generate + the C1 JSON),
 * per stage, wall and process CPU time, and the peak RSS of each run.
 *
 *   bench_seal [threads] [SPEC...]
 *
 * SPEC is SIZE or SIZE:sparse (SIZE as czk_porep_shapes[].name); default
 * "2KiB 8MiB 32GiB:sparse". Each SPEC runs in its own child process so that
 * its peak RSS is its own. Random data (seed 1), V1_1 proof of the size,
 * miner 1000, sector 1, ticket and seed 01…01 (gen-vanilla's defaults). With
 * BENCH_SEAL_OUT set to a folder, each C1 is also written there as
 * <size>[_sparse].json (not timed), e.g. for `czk check-c1`.
 */
#include "czk/seal.h"
#include "sector.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STAGES 16

typedef struct timing {
    int n;
    const char *name[MAX_STAGES];
    double wall[MAX_STAGES], cpu[MAX_STAGES];
    double t_wall, t_cpu;
} timing;

static void on_stage(void *arg, const char *stage) {
    timing *t = arg;
    double w = czk_now(), c = czk_cpu_now();
    if (t->n > 0) {
        t->wall[t->n - 1] = w - t->t_wall;
        t->cpu[t->n - 1] = c - t->t_cpu;
    }
    t->t_wall = w;
    t->t_cpu = c;
    if (stage && t->n < MAX_STAGES) t->name[t->n++] = stage;
}

/* Runs one spec; prints one table row plus the stage breakdown. */
static int run_spec(const char *spec, unsigned threads) {
    char size[32];
    snprintf(size, sizeof size, "%s", spec);
    char *colon = strchr(size, ':');
    bool sparse = colon && !strcmp(colon + 1, "sparse");
    if (colon) *colon = 0;
    const czk_porep_shape *sh = NULL;
    for (unsigned i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcmp(size, czk_porep_shapes[i].name)) sh = &czk_porep_shapes[i];
    if (!sh) {
        fprintf(stderr, "bench_seal: unknown size %s\n", size);
        return 2;
    }
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) return 2;
    timing t = {0};
    czk_seal_request req;
    czk_test_seal_request(
        &req, &(czk_test_sector){.registered_proof = sh->proof_ids[1], .sparse = sparse});
    req.on_stage = on_stage;
    req.stage_arg = &t;
    double w0 = czk_now(), c0 = czk_cpu_now();
    czk_c1 *c1 = NULL;
    czk_status st = czk_seal_generate(&c1, NULL, &req, pool, &err);
    char *json = NULL;
    size_t len = 0;
    if (st == CZK_OK) {
        on_stage(&t, "json");
        st = czk_c1_to_json(c1, &json, &len, &err);
    }
    on_stage(&t, NULL);
    double w = czk_now() - w0, c = czk_cpu_now() - c0;
    const char *dir = getenv("BENCH_SEAL_OUT");
    if (st == CZK_OK && dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s%s.json", dir, sh->name, sparse ? "_sparse" : "");
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(json, 1, len, f) != len)
            fprintf(stderr, "bench_seal: cannot write %s\n", path);
        if (f) fclose(f);
    }
    czk_c1_free(c1);
    free(json);
    czk_pool_destroy(pool);
    if (st != CZK_OK) {
        fprintf(stderr, "bench_seal %s: %s\n", spec, err.msg);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("| %s%s | %u | %.2f | %.2f | %.1f | %.1f |", sh->name, sparse ? " sparse" : "", threads,
           w, c, (double)ru.ru_maxrss / 1024.0, (double)len / (1 << 20));
    printf(" ");
    for (int i = 0; i < t.n; i++)
        printf("%s%s %.2f/%.2f", i ? ", " : "", t.name[i], t.wall[i], t.cpu[i]);
    printf(" |\n");
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    if (!threads) threads = czk_cpu_count();
    static const char *defaults[] = {"2KiB", "8MiB", "32GiB:sparse"};
    const char **specs = argc > 2 ? (const char **)argv + 2 : defaults;
    int n = argc > 2 ? argc - 2 : 3;
    printf("| sector | threads | wall s | CPU s | peak RSS MiB | C1 MiB | stages: wall/CPU s |\n");
    printf("|---|---:|---:|---:|---:|---:|---|\n");
    fflush(stdout);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) _exit(run_spec(specs[i], threads));
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
            rc = 1;
    }
    return rc;
}
