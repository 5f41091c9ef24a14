/*
 * bench_porep: PoRep C2 on the CPU, by phase.
 *
 *   bench_porep 2kib [threads [full]]
 *       The 2KiB main job in four child processes (so that each peak RSS is
 *       its own): (1) test-key setup from the cached shape (czk_setup, then
 *       czk_params_write_stamped into $BENCH_POREP_DIR or /tmp); (2) the
 *       first read of those keys (the stamp from the setup: no subgroup
 *       pass) and a second read; (3) with `full`, a read with every point
 *       subgroup-checked (CZK_PARAMS_FULL_CHECK: the cost without a stamp,
 *       ~10 M points; long); (4) a 2KiB C1 (czk_seal_generate, miner 1000,
 *       sector 1), its pre-check, and its proof (czk_porep_c2_prove:
 *       witness, SpMV, NTT, each MSM, assembly, the verification before the
 *       proof leaves), then czk_porep_c2_verify.
 *   bench_porep read FILE [threads]
 *       One read of a .params file with every point subgroup-checked
 *       (CZK_PARAMS_FULL_CHECK): what a first read costs without a stamp or
 *       a published digest.
 *   bench_porep witness32 [threads]
 *       WITNESS mode for one whole 32GiB partition (18 challenges, 130 M
 *       aux): a sparse 32GiB C1 (czk_seal_generate, sparse), then for
 *       partition 0 czk_porep_witness_from_c1 + czk_porep_witness_generate.
 *
 * Each row: wall seconds and the process CPU seconds (all threads) of the
 * phase; peak RSS is the child's VmHWM.
 */
#include "czk/groth16.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/seal.h"
#include "sector.h"
#include "util/proc.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double peak_mib(void) {
    return (double)czk_proc_status_bytes(0, "VmHWM") / (1 << 20);
}

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_porep: %s: %s\n", what, err->msg);
    exit(1);
}

static void row(const char *phase, double w, double c) {
    if (c >= 0)
        printf("| %s | %.3f | %.3f |\n", phase, w, c);
    else
        printf("| %s | %.3f | – |\n", phase, w);
    fflush(stdout);
}

/* Runs fn in a child process; its rows go to stdout. */
static void in_child(void (*fn)(void *), void *arg) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        fn(arg);
        fflush(stdout);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "bench_porep: a child failed\n");
        exit(1);
    }
}

typedef struct ctx {
    unsigned threads;
    char params[512];
    bool full;
} ctx;

static void do_setup(void *arg) {
    ctx *x = arg;
    czk_err err;
    const czk_porep_shape *ps = czk_porep_shape_for_size(2048);
    czk_pool *pool = czk_pool_create(x->threads, &err);
    if (!pool) die("pool", &err);
    czk_shape *shape = NULL;
    bool recorded;
    double w = czk_now(), c = czk_cpu_now();
    if (czk_porep_shape_load(&shape, &recorded, ps, true, &err)) die("shape", &err);
    row(recorded ? "shape (recorded)" : "shape (from the shape cache)", czk_now() - w,
        czk_cpu_now() - c);
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    czk_toxic toxic;
    czk_params *params = NULL;
    if (czk_toxic_random(&toxic, &rng, &err)) die("toxic", &err);
    w = czk_now(), c = czk_cpu_now();
    if (czk_setup(&params, shape, &toxic, pool, &err)) die("setup", &err);
    row("setup: czk_setup (10.2 M G1 + 0.69 M G2 fixed-base products)", czk_now() - w,
        czk_cpu_now() - c);
    bool stamped = false;
    w = czk_now(), c = czk_cpu_now();
    if (czk_params_write_stamped(params, x->params, NULL, &stamped, pool, &err)) die("write", &err);
    row(stamped ? "setup: write .params (1.11 GB) + stamp" : "setup: write .params (NOT stamped)",
        czk_now() - w, czk_cpu_now() - c);
    printf("| setup: peak RSS | %.0f MiB | |\n", peak_mib());
    czk_params_free(params);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
}

static void do_read(void *arg) {
    ctx *x = arg;
    czk_err err;
    czk_pool *pool = czk_pool_create(x->threads, &err);
    if (!pool) die("pool", &err);
    czk_params_read_opts ro = {.pool = pool, .flags = x->full ? CZK_PARAMS_FULL_CHECK : 0};
    for (int i = 0; i < (x->full ? 1 : 2); i++) {
        czk_params *p = NULL;
        czk_params_read_info ri;
        double w = czk_now(), c = czk_cpu_now();
        if (czk_params_read(&p, x->params, &ro, &ri, &err)) die("read", &err);
        char name[160];
        snprintf(name, sizeof name, "read .params, %s (%s)",
                 x->full  ? "full check"
                 : i == 0 ? "first, after setup"
                          : "again",
                 ri.trust == CZK_TRUST_STAMP   ? "stamp: no subgroup pass"
                 : ri.trust == CZK_TRUST_KNOWN ? "known digest: no subgroup pass"
                                               : "every point subgroup-checked");
        row(name, czk_now() - w, czk_cpu_now() - c);
        czk_params_free(p);
    }
    czk_pool_destroy(pool);
}

static czk_c1 *gen(uint64_t proof, bool sparse, czk_pool *pool) {
    czk_test_sector ts = {.registered_proof = proof, .sparse = sparse};
    czk_c1 *c1 = NULL;
    czk_err err;
    if (czk_test_seal(&c1, &ts, pool, &err)) die("gen", &err);
    return c1;
}

static void do_prove(void *arg) {
    ctx *x = arg;
    czk_err err;
    czk_pool *pool = czk_pool_create(x->threads, &err);
    if (!pool) die("pool", &err);
    const czk_porep_shape *ps = czk_porep_shape_for_size(2048);
    double w = czk_now(), c = czk_cpu_now();
    czk_params *params = NULL;
    czk_params_read_opts ro = {.pool = pool};
    if (czk_params_read(&params, x->params, &ro, NULL, &err)) die("read", &err);
    row("read .params (stamped)", czk_now() - w, czk_cpu_now() - c);
    czk_shape *shape = NULL;
    w = czk_now(), c = czk_cpu_now();
    if (czk_porep_shape_load(&shape, NULL, ps, true, &err)) die("shape", &err);
    row("shape (from the shape cache)", czk_now() - w, czk_cpu_now() - c);
    czk_pvk *pvk = malloc(sizeof *pvk);
    if (!pvk || czk_pvk_prepare(pvk, &params->vk, &err)) die("pvk", &err);
    w = czk_now(), c = czk_cpu_now();
    czk_c1 *c1 = gen(5, false, pool);
    row("C1 (czk_seal_generate, 2KiB)", czk_now() - w, czk_cpu_now() - c);
    czk_porep_graph *g = NULL;
    if (czk_c1_graph(&g, c1, pool, &err)) die("graph", &err);
    czk_precheck_opts po = {.have_ids = true, .sector_num = 1, .miner_id = 1000, .graph = g};
    w = czk_now(), c = czk_cpu_now();
    if (czk_c1_precheck(c1, &po, pool, &err)) die("precheck", &err);
    row("pre-check (with replica_id)", czk_now() - w, czk_cpu_now() - c);
    czk_backend be;
    if (czk_backend_cpu(&be, pool, &err)) die("backend", &err);
    uint8_t proof[CZK_PROOF_BYTES];
    czk_porep_c2_timings t;
    memset(&t, 0, sizeof t);
    w = czk_now(), c = czk_cpu_now();
    if (czk_porep_c2_prove(proof, c1, c1->replica_id.b, g, params, pvk, shape, &be, pool, &t, &err))
        die("prove", &err);
    double pw = czk_now() - w, pc = czk_cpu_now() - c;
    row("prove: witness", t.p.witness, -1);
    row("prove: SpMV (a, b, c)", t.p.spmv, -1);
    row("prove: NTT (H, 2^22)", t.p.ntt, -1);
    row("prove: MSM h (G1, 4,194,303 full scalars)", t.p.msm_h, -1);
    row("prove: MSM l (G1, 2,685,673)", t.p.msm_l, -1);
    row("prove: MSM a (G1, 2,674,948)", t.p.msm_a, -1);
    row("prove: MSM b_g1 (G1, 685,522)", t.p.msm_b1, -1);
    row("prove: MSM b_g2 (G2, 685,522)", t.p.msm_b2, -1);
    row("prove: assemble (r, s)", t.p.assemble, -1);
    row("prove: verify before writing", t.verify, -1);
    row("prove: total (czk_porep_c2_prove)", pw, pc);
    w = czk_now(), c = czk_cpu_now();
    if (czk_porep_c2_verify(c1, c1->replica_id.b, g, pvk, proof, sizeof proof, NULL, &err))
        die("verify", &err);
    row("verify (czk_porep_c2_verify)", czk_now() - w, czk_cpu_now() - c);
    printf("| prove: peak RSS (params, shape, witness, prover) | %.0f MiB | |\n", peak_mib());
    czk_backend_release(&be);
    czk_porep_graph_destroy(g);
    czk_c1_free(c1);
    czk_pvk_free(pvk);
    free(pvk);
    czk_shape_free(shape);
    czk_params_free(params);
    czk_pool_destroy(pool);
}

static void do_witness32(void *arg) {
    ctx *x = arg;
    czk_err err;
    czk_pool *pool = czk_pool_create(x->threads, &err);
    if (!pool) die("pool", &err);
    double w = czk_now(), c = czk_cpu_now();
    czk_c1 *c1 = gen(8, true, pool);
    row("sparse 32GiB C1 (czk_seal_generate)", czk_now() - w, czk_cpu_now() - c);
    printf("| after the C1: peak RSS | %.0f MiB | |\n", peak_mib());
    czk_porep_witness *pw = NULL;
    w = czk_now(), c = czk_cpu_now();
    if (czk_porep_witness_from_c1(&pw, c1, 0, &err)) die("witness_from_c1", &err);
    row("czk_porep_witness_from_c1 (partition 0)", czk_now() - w, czk_cpu_now() - c);
    czk_witness wit;
    w = czk_now(), c = czk_cpu_now();
    if (czk_porep_witness_generate(&wit, &pw->config, pw, NULL, &err)) die("witness", &err);
    row("WITNESS mode, one whole 32GiB partition", czk_now() - w, czk_cpu_now() - c);
    printf("| witness: %u inputs, %u aux (%.2f GiB of Fr) | | |\n", wit.num_inputs, wit.num_aux,
           (double)wit.num_aux * 32 / (1u << 30));
    printf("| peak RSS (C1 + witness) | %.0f MiB | |\n", peak_mib());
    czk_witness_free(&wit);
    czk_porep_witness_free(pw);
    czk_c1_free(c1);
    czk_pool_destroy(pool);
}

int main(int argc, char **argv) {
    bool read = argc > 2 && !strcmp(argv[1], "read");
    if (argc < 2 || (strcmp(argv[1], "2kib") && strcmp(argv[1], "witness32") && !read)) {
        fprintf(stderr, "usage: bench_porep 2kib [threads [full]] | read FILE [threads] | "
                        "witness32 [threads]\n");
        return 2;
    }
    ctx x = {0};
    x.threads = argc > 2 + read ? (unsigned)atoi(argv[2 + read]) : 0;
    printf("| phase | wall s | CPU s |\n|---|---:|---:|\n");
    if (read) {
        snprintf(x.params, sizeof x.params, "%s", argv[2]);
        x.full = true;
        in_child(do_read, &x);
        return 0;
    }
    if (!strcmp(argv[1], "witness32")) {
        in_child(do_witness32, &x);
        return 0;
    }
    const char *dir = getenv("BENCH_POREP_DIR");
    snprintf(x.params, sizeof x.params, "%s/bench-porep-2KiB.params", dir && *dir ? dir : "/tmp");
    in_child(do_setup, &x);
    in_child(do_read, &x);
    if (argc > 3 && !strcmp(argv[3], "full")) {
        x.full = true;
        in_child(do_read, &x);
        x.full = false;
    }
    in_child(do_prove, &x);
    unlink(x.params);
    return 0;
}
