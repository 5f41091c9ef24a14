/*
 * One PoRep partition at full size through the CUDA backend: the device
 * time of a 32GiB partition (issue "device time per 32GiB partition") and,
 * with real keys, a partition proof that verifies.
 *
 *   bench_porep32g [--sector-size 32GiB] [--c1 FILE] [--params FILE]
 *                  [--reps N] [--json FILE] [--commit ID] [--threads T]
 *
 * Steps, each timed: the shape (shape cache, recorded the first time:
 * ~50 s and 8.3 GiB for 32GiB), the C1 (--c1, else a sparse one made here:
 * czk_seal_generate, registered proof V1_1 of the size, miner 1000, sector
 * 7, ticket 01…, seed 02…, random 1 — what scripts/gpu-check.sh makes with
 * `czk gen-vanilla --sparse`), the witness of partition 0 (one thread), the
 * keys (--params: a .params file, e.g. from `czk setup --backend cuda`;
 * else random distinct subgroup points made on the device, so the proof
 * cannot verify but the work is the same), load() (keys and shape made
 * resident), then one warm-up and --reps timed proofs (default 3) with the
 * five MSMs concurrent (the default) and --reps with them one after another
 * (czk_backend_cuda_set_serial_msm), each phase the median. With --params every proof
 * is pairing-checked against public inputs derived as the chain does
 * (czk_porep_chain_inputs).
 *
 * The phases are czk_prove_timings: upload (witness to the device), SpMV
 * (a, b, c on the device, and the gathers of the compacted scalars), H (7
 * NTTs and the pointwise steps), the five MSMs (in the concurrent runs each
 * MSM's own wall time, so they overlap), assembly (host). The partition
 * wall is czk_prove's, host checks included.
 *
 * --json writes the figures scripts/gpu-check.sh merges into
 * gpu-latest.json: porep32g_partition_ms (concurrent wall, median),
 * porep32g_upload_ms, porep32g_spmv_ms, porep32g_h_ms, porep32g_msm_h_ms,
 * porep32g_msm_witness_ms (L + A + B1 + B2, serial), porep32g_serial_ms,
 * porep32g_witness_s, porep32g_load_s, porep32g_params_read_s,
 * porep32g_verified (proofs pairing-checked; 0 with random keys).
 */
#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"
#include "czk/r1cs.h"
#include "czk/seal.h"
#include "sector.h"
#include "util/proc.h"
#include "util/time.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CZK_HAVE_CUDA

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_porep32g: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static double gib(uint64_t b) {
    return (double)b / (double)(1ull << 30);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Random distinct subgroup points made on the device, downloaded into a host vector. */
static void *device_points(czk_cuda_ctx *ctx, size_t n, bool g2, uint64_t seed) {
    size_t sz = g2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
    void *d = NULL, *h = malloc(n * sz + 1);
    czk_err err;
    if (!h) die("host memory for random keys", NULL);
    if (czk_cuda_alloc(ctx, &d, n * sz, &err)) die("device memory for random keys", &err);
    czk_status st = g2 ? czk_cuda_g2_random_bases(ctx, d, n, seed, &err)
                       : czk_cuda_g1_random_bases(ctx, d, n, seed, &err);
    if (st || czk_cuda_download(ctx, h, d, n * sz, &err)) die("random keys", &err);
    czk_cuda_free(ctx, d);
    return h;
}

static czk_params *random_params(const czk_shape *shape) {
    czk_err err;
    czk_cuda_ctx *ctx;
    if (czk_cuda_ctx_create(&ctx, 0, &err)) die("cuda context", &err);
    czk_params *p = calloc(1, sizeof *p);
    if (!p) die("host memory", NULL);
    unsigned lg = czk_domain_log(shape->num_constraints);
    p->h_len = (uint32_t)((1ull << lg) - 1);
    p->l_len = shape->num_aux;
    p->a_len = (uint32_t)(shape->num_inputs + shape->a_aux.popcount);
    p->b_g1_len = p->b_g2_len = (uint32_t)(shape->b_input.popcount + shape->b_aux.popcount);
    p->h = device_points(ctx, p->h_len, false, 11);
    p->l = device_points(ctx, p->l_len, false, 12);
    p->a = device_points(ctx, p->a_len, false, 13);
    p->b_g1 = device_points(ctx, p->b_g1_len, false, 14);
    p->b_g2 = device_points(ctx, p->b_g2_len, true, 15);
    czk_g1_affine *g1 = device_points(ctx, 4, false, 16);
    czk_g2_affine *g2 = device_points(ctx, 4, true, 17);
    p->vk.alpha_g1 = g1[0];
    p->vk.beta_g1 = g1[1];
    p->vk.delta_g1 = g1[2];
    p->vk.beta_g2 = g2[0];
    p->vk.gamma_g2 = g2[1];
    p->vk.delta_g2 = g2[2];
    p->vk.ic_len = shape->num_inputs;
    if (!(p->vk.ic = malloc(p->vk.ic_len * sizeof *p->vk.ic))) die("host memory", NULL);
    for (uint32_t i = 0; i < p->vk.ic_len; i++)
        p->vk.ic[i] = g1[3];
    free(g1);
    free(g2);
    czk_cuda_ctx_destroy(ctx);
    return p;
}

/* Shares of zero, one and other values among the aux values (all, or those set in bm). */
static void scalar_mix(const char *name, const czk_witness *w, const czk_bitmap *bm) {
    uint64_t z = 0, o = 0, x = 0;
    for (uint32_t i = 0; i < w->num_aux; i++) {
        if (bm && !((bm->words[i / 64] >> (i % 64)) & 1)) continue;
        if (czk_fr_is_zero(&w->aux[i]))
            z++;
        else if (czk_fr_is_one(&w->aux[i]))
            o++;
        else
            x++;
    }
    double n = (double)(z + o + x);
    printf("  %-8s %11llu values: %.2f %% zero, %.2f %% one, %.2f %% other (%llu)\n", name,
           (unsigned long long)(z + o + x), 100.0 * (double)z / n, 100.0 * (double)o / n,
           100.0 * (double)x / n, (unsigned long long)x);
}

enum { PH_UPLOAD, PH_SPMV, PH_H, PH_MSM_H, PH_L, PH_A, PH_B1, PH_B2, PH_ASM, PH_WALL, NPH };
static const char *const PH_NAME[NPH] = {
    "upload (witness)", "SpMV + gathers", "H (7 NTTs 2^k)",  "MSM H",           "MSM L", "MSM A",
    "MSM B G1",         "MSM B G2 (G2)",  "assembly (host)", "partition (wall)"};

typedef struct run_set {
    double v[NPH][16];
    double med[NPH];
    int n;
} run_set;

static void record(run_set *rs, const czk_prove_timings *t, double wall) {
    double x[NPH] = {t->upload, t->spmv,   t->ntt,    t->msm_h,    t->msm_l,
                     t->msm_a,  t->msm_b1, t->msm_b2, t->assemble, wall};
    for (int k = 0; k < NPH; k++)
        rs->v[k][rs->n] = x[k];
    rs->n++;
}

static void finish(run_set *rs) {
    for (int k = 0; k < NPH; k++)
        rs->med[k] = median(rs->v[k], rs->n);
}

int main(int argc, char **argv) {
    const char *size_arg = "32GiB", *c1_path = NULL, *params_path = NULL, *json = NULL,
               *commit = "unknown";
    int reps = 3;
    unsigned threads = 0;
    static const struct option LONG[] = {
        {"sector-size", required_argument, NULL, 's'}, {"c1", required_argument, NULL, 'c'},
        {"params", required_argument, NULL, 'p'},      {"reps", required_argument, NULL, 'r'},
        {"json", required_argument, NULL, 'j'},        {"commit", required_argument, NULL, 'm'},
        {"threads", required_argument, NULL, 't'},     {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", LONG, NULL)) != -1) {
        switch (ch) {
        case 's':
            size_arg = optarg;
            break;
        case 'c':
            c1_path = optarg;
            break;
        case 'p':
            params_path = optarg;
            break;
        case 'r':
            reps = atoi(optarg);
            break;
        case 'j':
            json = optarg;
            break;
        case 'm':
            commit = optarg;
            break;
        case 't':
            threads = (unsigned)atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: bench_porep32g [--sector-size S] [--c1 FILE] [--params FILE] "
                            "[--reps N] [--json FILE] [--commit ID] [--threads T]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 16) {
        fprintf(stderr, "bench_porep32g: --reps takes 1..16\n");
        return 2;
    }
    if (czk_cuda_device_count() == 0) {
        fprintf(stderr, "bench_porep32g: no CUDA device\n");
        return 2;
    }
    uint64_t bytes = 0;
    {
        char *end;
        double v = strtod(size_arg, &end);
        uint64_t mul = !strcmp(end, "KiB")   ? 1ull << 10
                       : !strcmp(end, "MiB") ? 1ull << 20
                       : !strcmp(end, "GiB") ? 1ull << 30
                       : !*end               ? 1
                                             : 0;
        bytes = (uint64_t)v * mul;
    }
    const czk_porep_shape *ps = czk_porep_shape_for_size(bytes);
    if (!ps) {
        fprintf(stderr, "bench_porep32g: no PoRep sector size '%s'\n", size_arg);
        return 2;
    }
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) die("pool", &err);
    double T0 = czk_now(), t;
    printf("bench_porep32g: %s partition, %u threads, commit %s\n", ps->name,
           czk_pool_threads(pool), commit);

    /* shape */
    czk_shape *shape;
    bool recorded = false;
    t = czk_now();
    if (czk_porep_shape_load(&shape, &recorded, ps, true, &err)) die("shape", &err);
    double t_shape = czk_now() - t;
    printf("shape %s in %.1f s: %llu constraints, %u inputs, %u aux, a_aux %llu, b_aux %llu, "
           "nnz %llu/%llu/%llu, %.2f GiB\n",
           recorded ? "recorded" : "read", t_shape, (unsigned long long)shape->num_constraints,
           shape->num_inputs, shape->num_aux, (unsigned long long)shape->a_aux.popcount,
           (unsigned long long)shape->b_aux.popcount, (unsigned long long)shape->m[0].nnz,
           (unsigned long long)shape->m[1].nnz, (unsigned long long)shape->m[2].nnz,
           gib(czk_shape_bytes(shape)));
    fflush(stdout);

    /* C1 */
    czk_c1 *c1 = NULL;
    t = czk_now();
    if (c1_path) {
        FILE *f = fopen(c1_path, "rb");
        if (!f) die("open --c1", NULL);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc((size_t)len + 1);
        if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) die("read --c1", NULL);
        fclose(f);
        if (czk_c1_parse(&c1, buf, (size_t)len, &err)) die("parse --c1", &err);
        free(buf);
    } else {
        czk_test_sector ts = {.sector_num = 7, .seed = 2, .sparse = true};
        for (uint64_t id = 0; id < 20; id++) { /* the V1_1 interactive proof of the size */
            czk_porep_proof pr;
            if (!czk_porep_proof_lookup(id, &pr, NULL) && pr.shape == ps &&
                pr.api == CZK_POREP_API_1_1 && pr.kind == CZK_POREP_INTERACTIVE)
                ts.registered_proof = id;
        }
        if (!ts.registered_proof) die("no V1_1 interactive proof of the size", NULL);
        if (czk_test_seal(&c1, &ts, pool, &err)) die("sparse C1", &err);
    }
    printf("C1 (%s) in %.1f s: %u partitions\n", c1_path ? c1_path : "sparse, made here",
           czk_now() - t, c1->num_partitions);

    /* witness of partition 0 */
    czk_porep_witness *pw;
    czk_witness w;
    if (czk_porep_witness_from_c1(&pw, c1, 0, &err)) die("witness_from_c1", &err);
    t = czk_now();
    if (czk_porep_witness_generate(&w, &pw->config, pw, NULL, &err)) die("witness", &err);
    double t_witness = czk_now() - t;
    printf("witness of partition 0 (one thread) in %.2f s\n", t_witness);
    scalar_mix("aux", &w, NULL);
    scalar_mix("A-dense", &w, &shape->a_aux);
    scalar_mix("B-dense", &w, &shape->b_aux);
    fflush(stdout);

    /* keys */
    czk_params *params = NULL;
    double t_read = 0;
    t = czk_now();
    if (params_path) {
        czk_params_read_opts o = {.flags = czk_cuda_params_device_decode() ? CZK_PARAMS_ENCODED : 0,
                                  .pool = pool};
        czk_params_read_info info;
        if (czk_params_read(&params, params_path, &o, &info, &err)) die("--params", &err);
        t_read = czk_now() - t;
        printf("keys %s read in %.1f s (%.1f GiB, %s; read %.1f s, digest wait %.1f s, "
               "subgroup %.1f s%s)\n",
               params_path, t_read, gib(info.bytes),
               info.trust == CZK_TRUST_STAMP   ? "stamp"
               : info.trust == CZK_TRUST_KNOWN ? "known digest"
                                               : "checked",
               info.seconds_read, info.seconds_hash, info.seconds_subgroup,
               params->encoded ? "; encoded, decoded at load" : "");
    } else {
        params = random_params(shape);
        printf("random keys made on the device in %.1f s (the proof cannot verify)\n",
               czk_now() - t);
    }
    if (czk_params_check_shape(params, shape, &err)) die("keys against the shape", &err);
    fflush(stdout);

    czk_pvk *pvk = NULL;
    czk_fr *inputs = NULL;
    size_t ninputs = czk_c1_num_public_inputs(c1);
    if (params_path) {
        pvk = calloc(1, sizeof *pvk);
        inputs = calloc(ninputs + 1, sizeof *inputs);
        if (!pvk || !inputs) die("host memory", NULL);
        if (czk_pvk_prepare(pvk, &params->vk, &err)) die("vk", &err);
        t = czk_now();
        if (czk_porep_chain_inputs(inputs, c1, c1->replica_id.b, NULL, 0, &err))
            die("public inputs", &err);
        printf("public inputs of partition 0 in %.1f s\n", czk_now() - t);
    }

    /* backend, load */
    czk_backend be;
    if (czk_backend_cuda(&be, 0, pool, 0, &err)) die("cuda backend", &err);
    unsigned drop = 0;
    uint64_t dev = 0;
    t = czk_now();
    if (be.ops->load && be.ops->load(be.self, params, shape, &drop, &dev, &err)) die("load", &err);
    double t_load = czk_now() - t;
    czk_cuda_residency res;
    if (czk_backend_cuda_residency(&be, params, &res, &err)) die("residency", &err);
    uint64_t vram_total = 0, vram_free = 0;
    if (be.ops->mem_info) (void)be.ops->mem_info(be.self, &vram_total, &vram_free, &err);
    printf("load in %.1f s: params %s, shape %s, %.1f GiB on the device (%.1f of %.1f GiB in "
           "use)\n",
           t_load,
           res.params_resident ? "resident"
           : res.pinned        ? "pinned"
                               : "host",
           res.shape_resident ? "resident" : "host", gib(res.device_bytes),
           gib(vram_total - vram_free), gib(vram_total));
    fflush(stdout);

    /* proofs */
    run_set conc = {0}, ser = {0};
    int verified = 0;
    printf("\n%-6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "run", "wall", "upload", "spmv", "H",
           "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2", "verify");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && czk_backend_cuda_set_serial_msm(&be, true, &err))
            die("serial MSMs", &err);
        for (int i = -(pass == 0); i < reps; i++) { /* i = -1: warm-up */
            czk_prove_timings tm;
            memset(&tm, 0, sizeof tm);
            czk_proof proof;
            double w0 = czk_now();
            if (czk_prove(&be, params, shape, &w, 1, NULL, NULL, &proof, &tm, &err))
                die("prove", &err);
            double wall = czk_now() - w0, tv = 0;
            const char *ok = "-";
            if (pvk) {
                double v0 = czk_now();
                czk_status st = czk_verify(pvk, &proof, inputs, ninputs, &err);
                tv = czk_now() - v0;
                if (st) die("the partition proof does not verify", &err);
                verified++;
                ok = "ok";
            }
            char name[16];
            snprintf(name, sizeof name, "%s%d", pass ? "ser" : i < 0 ? "warm" : "conc", i);
            printf("%-6s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %6s%3.0fms\n", name,
                   wall, tm.upload, tm.spmv, tm.ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b1,
                   tm.msm_b2, ok, tv * 1e3);
            fflush(stdout);
            if (i >= 0) record(pass ? &ser : &conc, &tm, wall);
        }
    }
    finish(&conc);
    finish(&ser);

    double witness_msm = ser.med[PH_L] + ser.med[PH_A] + ser.med[PH_B1] + ser.med[PH_B2];
    printf("\n%s partition, median of %d (seconds)\n", ps->name, reps);
    printf("| %-20s | %10s | %10s |\n", "phase", "serial", "concurrent");
    printf("|%s|%s|%s|\n", "----------------------", "------------", "------------");
    for (int k = 0; k < NPH; k++)
        printf("| %-20s | %10.3f | %10.3f |\n", PH_NAME[k], ser.med[k], conc.med[k]);
    printf("| %-20s | %10.3f | %10s |\n", "MSM L+A+B1+B2", witness_msm, "");
    printf("proofs pairing-checked: %d%s\n", verified, pvk ? "" : " (random keys)");
    printf("peak RSS %.1f GiB, whole run %.1f s\n", gib(czk_proc_status_bytes(0, "VmHWM")),
           czk_now() - T0);
    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) die("--json", NULL);
        fprintf(f,
                "{\n  \"porep32g_commit\": \"%s\",\n  \"porep32g_sector\": \"%s\",\n"
                "  \"porep32g_partition_ms\": %.1f,\n  \"porep32g_upload_ms\": %.1f,\n"
                "  \"porep32g_spmv_ms\": %.1f,\n  \"porep32g_h_ms\": %.1f,\n"
                "  \"porep32g_msm_h_ms\": %.1f,\n  \"porep32g_msm_l_ms\": %.1f,\n"
                "  \"porep32g_msm_a_ms\": %.1f,\n  \"porep32g_msm_b1_ms\": %.1f,\n"
                "  \"porep32g_msm_b2_ms\": %.1f,\n  \"porep32g_msm_witness_ms\": %.1f,\n"
                "  \"porep32g_serial_ms\": %.1f,\n  \"porep32g_witness_s\": %.2f,\n"
                "  \"porep32g_load_s\": %.1f,\n  \"porep32g_params_read_s\": %.1f,\n"
                "  \"porep32g_reps\": %d,\n  \"porep32g_verified\": %d\n}\n",
                commit, ps->name, conc.med[PH_WALL] * 1e3, conc.med[PH_UPLOAD] * 1e3,
                ser.med[PH_SPMV] * 1e3, ser.med[PH_H] * 1e3, ser.med[PH_MSM_H] * 1e3,
                ser.med[PH_L] * 1e3, ser.med[PH_A] * 1e3, ser.med[PH_B1] * 1e3,
                ser.med[PH_B2] * 1e3, witness_msm * 1e3, ser.med[PH_WALL] * 1e3, t_witness, t_load,
                t_read, reps, verified);
        fclose(f);
    }
    czk_backend_release(&be);
    if (pvk) czk_pvk_free(pvk);
    free(pvk);
    free(inputs);
    czk_params_free(params);
    czk_witness_free(&w);
    czk_porep_witness_free(pw);
    czk_c1_free(c1);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
    return 0;
}

#else
#include <stdio.h>
int main(void) {
    fprintf(stderr, "bench_porep32g: this czk was built without CUDA\n");
    return 2;
}
#endif
