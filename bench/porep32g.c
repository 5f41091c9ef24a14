/*
 * One PoRep partition at full size through the CUDA backend: the device
 * time of a 32GiB partition (issue "device time per 32GiB partition") and,
 * with real keys, a partition proof that verifies. With --kind window-post
 * or winning-post the same for one FallbackPoSt partition (issue
 * "WinningPoSt and WindowPoSt": 125,279,217 constraints for a 32GiB
 * WindowPoSt partition, the same device path).
 *
 *   bench_porep32g [--sector-size 32GiB] [--c1 FILE] [--params FILE | --setup]
 *                  [--kind porep|window-post|winning-post] [--sectors N]
 *                  [--reps N] [--json FILE] [--commit ID] [--threads T] [--pageable]
 *                  [--no-pack] [--lagrange SEED] [--also "VAR=v VAR2=w"]...
 *
 * --setup makes real TEST keys in memory on the GPU (czk_setup_with on
 * czk_setup_backend_cuda, toxic waste from seed 1), so that the proofs verify
 * without a key file: a 32GiB WindowPoSt key set is 57 GB, which does not fit
 * beside anything else on the 64 GiB disk of the lent H200. PoSt inputs are
 * made here: --sectors sparse test sectors (default 4; WinningPoSt one) of
 * the size (czk_seal_post_vanilla, randomness 5a 61 68 …, byte 31 masked,
 * sector numbers 7, 8, …), their bincode vanilla proofs parsed and
 * pre-checked as the kind does at intake, the witness filled from them as
 * prove_with_vanilla does (the last sector repeated up to the partition's
 * 2349), the public inputs of partition 0 (API V1_2 for WindowPoSt).
 *
 * Steps, each timed: the shape (shape cache, recorded the first time:
 * ~50 s and 8.3 GiB for 32GiB), the C1 (--c1, else a sparse one made here:
 * czk_seal_generate, registered proof V1_1 of the size, miner 1000, sector
 * 7, ticket 01…, seed 02…, random 1 — what scripts/gpu-check.sh makes with
 * `czk gen-vanilla --sparse`), the witness of partition 0 (PoRep: one
 * thread; PoSt: its sectors on the pool), the keys (--params: a .params
 * file, e.g. from `czk setup --backend cuda`; else random distinct
 * subgroup points made on the device, so the proof cannot verify but the
 * work is the same), load() (keys and shape made
 * resident), the witness copied into the backend's page-locked memory (as
 * the engine's witness buffers are; --pageable keeps it in malloc'ed memory,
 * the upload then goes through the staging ring at about a third of the
 * speed), the witness packed as the engine's synthesis worker packs it
 * (czk_witness_pack into a block of czk_witness_packed_bytes in the same
 * kind of memory, once on one thread and once on the pool, both timed; the
 * backend then uploads the packed form and expands it on the device; a
 * witness with more others than the room, as WindowPoSt's, stays unpacked;
 * --no-pack uploads the full witness, the path before the packed upload),
 * with --lagrange SEED the Lagrange form of H and L (groth16.h,
 * czk_params_lagrange) made from seed SEED's toxic waste on the GPU (the
 * keys' seed: 1 for --setup and gpu-check's keys32g) and attached before
 * load(), so that SpMV skips c, H takes four transforms and MSM h the N
 * coset values (json porep32g_lagrange, porep32g_lagrange_s),
 * then one warm-up and --reps timed proofs (default 3) with the
 * five MSMs concurrent (the default) and --reps with them one after another
 * (czk_backend_cuda_set_serial_msm), each phase the median. With --params every proof
 * is pairing-checked against public inputs derived as the chain does
 * (czk_porep_chain_inputs). Last, the pipelined run: two threads prove --reps
 * partitions each at once (concurrent MSMs), so that one partition's upload,
 * SpMV and H run beside the other's MSMs as the engine's two GPU workers do
 * (src/cuda/backend.cu, the MSM stage); the period is that wall over the
 * 2·reps partitions (porep32g_period_ms). Each --also setting (up to 8;
 * "VAR=v VAR2=w", set in the environment in turn, so later settings build
 * on earlier ones) then repeats load, witness memory and proofs on a fresh
 * backend and prints its table; the json is the recorded run's. The shape,
 * keys, witness and Lagrange form are made once (an A/B of CUDA knobs
 * without ≈ 80 s of reading and making per setting).
 *
 * The phases are czk_prove_timings: upload (witness to the device), SpMV
 * (a, b, c on the device, and the gathers of the compacted scalars), H (6
 * NTTs and the pointwise steps; 4 and one with --lagrange), the five MSMs (in the concurrent runs
 * each MSM's own wall time, so they overlap), assembly (host). The partition wall is czk_prove's,
 * host checks included.
 *
 * --json writes the figures scripts/gpu-check.sh merges into
 * gpu-latest.json: porep32g_partition_ms (concurrent wall, median),
 * porep32g_upload_ms, porep32g_spmv_ms, porep32g_h_ms, porep32g_msm_h_ms,
 * porep32g_msm_witness_ms (L + A + B1 + B2, serial), porep32g_serial_ms,
 * porep32g_witness_s, porep32g_load_s, porep32g_params_read_s,
 * porep32g_witness_pinned (1: page-locked), porep32g_packed (1: the packed
 * upload), porep32g_pack_ms (packing on the pool; porep32g_pack1_ms on one
 * thread), porep32g_packed_mb (codes + others), porep32g_verified (proofs
 * pairing-checked; 0 with random keys); with a
 * PoSt kind the same keys begin wpost32g_ / winning32g_ (the size's tag for
 * other sizes is not in the name: the json's *_sector says it).
 */
#include "czk/bench.h"
#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"
#include "czk/post.h"
#include "czk/r1cs.h"
#include "czk/seal.h"
#include "sector.h"
#include "util/proc.h"
#include "util/time.h"

#include <getopt.h>
#include <pthread.h>
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
/* One thread of the pipelined run: `reps` proofs, each pairing-checked when pvk is given. */
typedef struct pipe_arg {
    czk_backend *be;
    const czk_params *params;
    const czk_shape *shape;
    const czk_witness *w;
    const czk_pvk *pvk;
    const czk_fr *inputs;
    size_t ninputs;
    int reps, verified;
    czk_status st;
    czk_err err;
} pipe_arg;

static void *pipe_run(void *arg) {
    pipe_arg *a = arg;
    for (int i = 0; i < a->reps && !a->st; i++) {
        czk_proof proof;
        czk_prove_timings tm;
        memset(&tm, 0, sizeof tm);
        a->st = czk_prove(a->be, a->params, a->shape, a->w, 1, NULL, NULL, &proof, &tm, &a->err);
        if (!a->st && a->pvk) {
            a->st = czk_verify(a->pvk, &proof, a->inputs, a->ninputs, &a->err);
            a->verified += !a->st;
        }
    }
    return NULL;
}

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

/* An --also setting, "VAR=v VAR2=w": each variable set, or with set = false only checked (a word
 * without '=' exits with status 2). */
static void apply_setting(const char *setting, bool set) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", setting);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            fprintf(stderr, "bench_porep32g: --also: '%s' is not VAR=value\n", tok);
            exit(2);
        }
        *eq = 0;
        if (set && setenv(tok, eq + 1, 1)) die("--also: setenv", NULL);
    }
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
    "upload (witness)", "SpMV + gathers", "H (NTTs 2^k)",    "MSM H",           "MSM L", "MSM A",
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

/* A PoSt partition's witness and public inputs, from sparse test sectors made here. */
typedef struct post_input {
    czk_post_config cfg;
    czk_post_proof proof;
    czk_witness w;
    czk_fr *inputs; /* ONE first */
    size_t ninputs; /* ONE excluded */
    double t_vanilla, t_witness;
} post_input;

static void post_make(post_input *pi, czk_post_kind kind, const czk_post_shape *sh, unsigned nsec,
                      czk_pool *pool) {
    czk_err err;
    uint64_t id = kind == CZK_POST_WINNING ? 0 : 10; /* Winning / Window V1_2 of 2KiB ... */
    for (unsigned s = 0; s < CZK_POST_SHAPE_COUNT; s++)
        if (&czk_post_shapes[s] == sh) id += s;
    if (czk_post_proof_lookup(id, &pi->proof, &err)) die("registered PoSt proof", &err);
    czk_post_config_for(&pi->cfg, kind, sh);
    czk_por_tree tree;
    if (czk_post_config_check(&pi->cfg, &tree, &err)) die("PoSt configuration", &err);
    if (kind == CZK_POST_WINNING) nsec = 1;
    if (!nsec || nsec > pi->cfg.sectors) die("--sectors out of range for the partition", NULL);
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++)
        rnd[i] = (uint8_t)(0x5a + 7 * i);
    rnd[31] &= 0x3f;
    czk_post_vanilla **v = calloc(nsec, sizeof *v);
    czk_post_pub_sector *pub = calloc(CZK_POST_WINNING_CHALLENGES + nsec, sizeof *pub);
    if (!v || !pub) die("host memory", NULL);
    uint64_t seal_id = 0; /* StackedDrg V1_1 of the size: 5 + shape index */
    for (unsigned s = 0; s < CZK_POST_SHAPE_COUNT; s++)
        if (&czk_post_shapes[s] == sh) seal_id = 5 + s;
    double t = czk_now();
    for (unsigned i = 0; i < nsec; i++) {
        czk_seal_request sr = {.registered_proof = seal_id,
                               .miner_id = 1000,
                               .sector_num = 7 + i,
                               .data_kind = CZK_SEAL_DATA_ZERO,
                               .sparse = sh->sector_size > (512ull << 20)};
        memset(sr.ticket, 1, 32);
        memset(sr.seed, 2, 32);
        uint8_t *blob;
        size_t len;
        if (czk_seal_post_vanilla(&blob, &len, NULL, &sr, kind, pi->proof.api, rnd, i, pool, &err))
            die("PoSt test sector", &err);
        if (czk_post_vanilla_parse(&v[i], blob, len, &tree,
                                   kind == CZK_POST_WINNING ? CZK_POST_WINNING_CHALLENGES
                                                            : CZK_POST_WINDOW_CHALLENGES,
                                   &err))
            die("PoSt vanilla proof", &err);
        free(blob);
        pub[i].sector_id = v[i]->sector_id;
        memcpy(pub[i].comm_r, v[i]->comm_r, 32);
    }
    if (czk_post_precheck((const czk_post_vanilla *const *)v, nsec, &pi->cfg, kind, pi->proof.api,
                          rnd, 0, NULL, &err))
        die("PoSt pre-check", &err);
    pi->t_vanilla = czk_now() - t;
    czk_post_witness *pw;
    if (czk_post_witness_alloc(&pw, &pi->cfg, &err) ||
        czk_post_witness_fill(pw, (const czk_post_vanilla *const *)v, nsec, kind, &err))
        die("PoSt witness fill", &err);
    t = czk_now();
    if (czk_post_witness_generate(&pi->w, &pi->cfg, pw, pool, NULL, &err))
        die("PoSt witness", &err);
    pi->t_witness = czk_now() - t;
    size_t npub = nsec;
    if (kind == CZK_POST_WINNING) {
        czk_post_winning_sectors(pub + 1, &pub[0]);
        memmove(pub, pub + 1, CZK_POST_WINNING_CHALLENGES * sizeof *pub);
        npub = CZK_POST_WINNING_CHALLENGES;
    }
    pi->ninputs = czk_post_num_inputs(&pi->cfg) - 1;
    if (!(pi->inputs = calloc(pi->ninputs + 1, sizeof *pi->inputs))) die("host memory", NULL);
    if (czk_post_public_inputs(pi->inputs, &pi->cfg, pi->proof.api, rnd, pub, npub, 0, &err))
        die("PoSt public inputs", &err);
    printf("%s: %u sector%s (%s) in %.1f s, vanilla proofs pre-checked; witness (%u threads) in "
           "%.2f s\n",
           kind == CZK_POST_WINNING ? "WinningPoSt" : "WindowPoSt", nsec, nsec == 1 ? "" : "s",
           sh->sector_size > (512ull << 20) ? "sparse" : "sealed", pi->t_vanilla,
           czk_pool_threads(pool), pi->t_witness);
    czk_post_witness_free(pw);
    for (unsigned i = 0; i < nsec; i++)
        czk_post_vanilla_free(v[i]);
    free(v);
    free(pub);
}

/* Real TEST keys in memory, their products on the GPU. */
static czk_params *setup_params(const czk_shape *shape, czk_pool *pool, double *secs) {
    czk_err err;
    czk_setup_backend sb;
    if (czk_setup_backend_cuda(&sb, 0, &err)) die("setup backend", &err);
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    czk_toxic toxic;
    czk_params *p = NULL;
    double t = czk_now();
    if (czk_toxic_random(&toxic, &rng, &err) ||
        czk_setup_with(&p, shape, &toxic, &sb, pool, NULL, &err))
        die("setup", &err);
    *secs = czk_now() - t;
    memset(&toxic, 0, sizeof toxic);
    czk_setup_backend_release(&sb);
    return p;
}

int main(int argc, char **argv) {
    const char *size_arg = "32GiB", *c1_path = NULL, *params_path = NULL, *json = NULL,
               *commit = "unknown";
    const char *kind_arg = "porep";
    int reps = 3;
    unsigned threads = 0, nsec = 4;
    bool do_setup = false, pageable = false, no_pack = false;
    long lagrange_seed = -1; /* --lagrange SEED: the Lagrange form from that seed's toxic waste */
    const char *also[8];     /* --also SETTING: a run per setting after the recorded one */
    size_t n_also = 0;
    static const struct option LONG[] = {{"sector-size", required_argument, NULL, 's'},
                                         {"c1", required_argument, NULL, 'c'},
                                         {"params", required_argument, NULL, 'p'},
                                         {"reps", required_argument, NULL, 'r'},
                                         {"json", required_argument, NULL, 'j'},
                                         {"commit", required_argument, NULL, 'm'},
                                         {"threads", required_argument, NULL, 't'},
                                         {"kind", required_argument, NULL, 'k'},
                                         {"sectors", required_argument, NULL, 'n'},
                                         {"setup", no_argument, NULL, 'S'},
                                         {"pageable", no_argument, NULL, 'P'},
                                         {"no-pack", no_argument, NULL, 'N'},
                                         {"lagrange", required_argument, NULL, 'L'},
                                         {"also", required_argument, NULL, 'A'},
                                         {NULL, 0, NULL, 0}};
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
        case 'k':
            kind_arg = optarg;
            break;
        case 'n':
            nsec = (unsigned)atoi(optarg);
            break;
        case 'S':
            do_setup = true;
            break;
        case 'P':
            pageable = true;
            break;
        case 'N':
            no_pack = true;
            break;
        case 'L':
            lagrange_seed = atol(optarg);
            break;
        case 'A':
            if (n_also == sizeof also / sizeof also[0] || strlen(optarg) >= 512) {
                fprintf(stderr, "bench_porep32g: --also: at most 8 settings of < 512 bytes\n");
                return 2;
            }
            apply_setting(optarg, false);
            also[n_also++] = optarg;
            break;
        default:
            fprintf(stderr, "usage: bench_porep32g [--sector-size S] [--c1 FILE] [--params FILE | "
                            "--setup] [--kind porep|window-post|winning-post] [--sectors N] "
                            "[--reps N] [--json FILE] [--commit ID] [--threads T] [--pageable] "
                            "[--no-pack] [--lagrange SEED] [--also \"VAR=v ...\"]...\n");
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
    int post = !strcmp(kind_arg, "window-post")    ? CZK_POST_WINDOW
               : !strcmp(kind_arg, "winning-post") ? CZK_POST_WINNING
                                                   : 0;
    if (!post && strcmp(kind_arg, "porep")) {
        fprintf(stderr, "bench_porep32g: --kind takes porep, window-post or winning-post\n");
        return 2;
    }
    const czk_porep_shape *ps = post ? NULL : czk_porep_shape_for_size(bytes);
    const czk_post_shape *psh = post ? czk_post_shape_for_size(bytes) : NULL;
    if (!ps && !psh) {
        fprintf(stderr, "bench_porep32g: no %s sector size '%s'\n", kind_arg, size_arg);
        return 2;
    }
    if (post && c1_path) {
        fprintf(stderr, "bench_porep32g: --c1 is for --kind porep\n");
        return 2;
    }
    const char *size_name = ps ? ps->name : psh->name;
    const char *jp = post == CZK_POST_WINDOW    ? "wpost32g"
                     : post == CZK_POST_WINNING ? "winning32g"
                                                : "porep32g"; /* json key prefix */
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) die("pool", &err);
    double T0 = czk_now(), t;
    printf("bench_porep32g: %s %s partition, %u threads, commit %s\n", size_name, kind_arg,
           czk_pool_threads(pool), commit);

    /* shape */
    czk_shape *shape;
    bool recorded = post != 0;
    post_input pi;
    memset(&pi, 0, sizeof pi);
    t = czk_now();
    if (post) {
        czk_post_config_for(&pi.cfg, (czk_post_kind)post, psh);
        if (czk_post_record(&shape, &pi.cfg, pool, NULL, &err)) die("shape", &err);
    } else if (czk_porep_shape_load(&shape, &recorded, ps, true, &err))
        die("shape", &err);
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
    czk_porep_witness *pw = NULL;
    czk_witness w;
    double t_witness;
    t = czk_now();
    if (post) {
        post_make(&pi, (czk_post_kind)post, psh, nsec, pool);
        w = pi.w;
        t_witness = pi.t_witness;
        goto keys;
    }
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
    if (czk_porep_witness_from_c1(&pw, c1, 0, &err)) die("witness_from_c1", &err);
    t = czk_now();
    if (czk_porep_witness_generate(&w, &pw->config, pw, NULL, &err)) die("witness", &err);
    t_witness = czk_now() - t;
    printf("witness of partition 0 (one thread) in %.2f s\n", t_witness);
keys:
    scalar_mix("aux", &w, NULL);
    scalar_mix("A-dense", &w, &shape->a_aux);
    scalar_mix("B-dense", &w, &shape->b_aux);
    fflush(stdout);

    /* keys */
    czk_params *params = NULL;
    double t_read = 0;
    t = czk_now();
    if (do_setup) {
        params = setup_params(shape, pool, &t_read);
        printf("TEST keys made in memory on the GPU in %.1f s (seed 1)\n", t_read);
    } else if (params_path) {
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
    double t_form = 0;
    if (lagrange_seed >= 0) {
        /* the Lagrange form of H and L (groth16.h): from the toxic waste of the keys' seed, the
         * products on the GPU; without the keys' toxic waste the proofs cannot verify */
        uint64_t seed = (uint64_t)lagrange_seed;
        t = czk_now();
        if (czk_bench_lagrange_from_seed(&seed, params, shape, &params->lagrange, &err))
            die("--lagrange", &err);
        t_form = czk_now() - t;
        printf("Lagrange form of H and L made on the GPU in %.1f s (seed %ld): SpMV without c, "
               "four transforms\n",
               t_form, lagrange_seed);
    }
    fflush(stdout);

    czk_pvk *pvk = NULL;
    czk_fr *inputs = NULL;
    size_t ninputs = post ? pi.ninputs : czk_c1_num_public_inputs(c1);
    if (params_path || do_setup) {
        pvk = calloc(1, sizeof *pvk);
        if (!pvk) die("host memory", NULL);
        if (czk_pvk_prepare(pvk, &params->vk, &err)) die("vk", &err);
    }
    if (pvk && post) {
        inputs = pi.inputs;
        pi.inputs = NULL;
    } else if (pvk) {
        inputs = calloc(ninputs + 1, sizeof *inputs);
        if (!inputs) die("host memory", NULL);
        t = czk_now();
        if (czk_porep_chain_inputs(inputs, c1, c1->replica_id.b, NULL, 0, &err))
            die("public inputs", &err);
        printf("public inputs of partition 0 in %.1f s\n", czk_now() - t);
    }

    /* The recorded run, then one run per --also setting (a fresh backend each: the variables are
     * read when its contexts are made), each with its own load, witness memory and proofs. */
    czk_witness wh = w; /* the one the generator made (freed last) */
    for (size_t si = 0; si <= n_also; si++) {
        if (si) {
            printf("\n== --also setting %zu: %s\n", si, also[si - 1]);
            apply_setting(also[si - 1], true);
        }
        /* backend, load */
        czk_backend be;
        if (czk_backend_cuda(&be, 0, pool, 0, &err)) { /* its message names the backend */
            char what[300];
            snprintf(what, sizeof what, "%s%s", si ? "--also " : "device 0",
                     si ? also[si - 1] : "");
            die(what, &err);
        }
        unsigned drop = 0;
        uint64_t dev = 0;
        t = czk_now();
        if (be.ops->load && be.ops->load(be.self, params, shape, &drop, &dev, &err))
            die("load", &err);
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

        /* the witness in the backend's page-locked memory, as the engine's witness buffers are
         * (src/engine/wpool.c), unless --pageable */
        void *pin = NULL;
        size_t pin_bytes = ((size_t)w.num_inputs + w.num_aux) * sizeof(czk_fr);
        if (!pageable && be.ops->host_alloc && (pin = be.ops->host_alloc(be.self, pin_bytes))) {
            w.inputs = (czk_fr *)pin;
            w.aux = w.inputs + w.num_inputs;
            memcpy(w.inputs, wh.inputs, (size_t)w.num_inputs * sizeof(czk_fr));
            if (w.num_aux) memcpy(w.aux, wh.aux, (size_t)w.num_aux * sizeof(czk_fr));
        }
        printf("witness: %s memory (%.2f GiB)\n", pin ? "page-locked" : "pageable", gib(pin_bytes));

        /* its packed form, made as the engine's synthesis worker makes it (src/engine/wpool.c): in
         * the same kind of memory, on one thread and on the pool; the backend uploads it instead */
        uint64_t nz = (uint64_t)w.num_inputs + w.num_aux;
        size_t pk_bytes = czk_witness_packed_bytes(nz);
        void *pk_block = NULL;
        bool pk_pinned = false, packed = false;
        czk_witness_packed pk;
        memset(&pk, 0, sizeof pk);
        double t_pack1 = 0, t_pack = 0, packed_mb = 0;
        if (!no_pack) {
            if (pin && (pk_block = be.ops->host_alloc(be.self, pk_bytes)))
                pk_pinned = true;
            else if (!(pk_block = malloc(pk_bytes)))
                die("host memory for the packed witness", NULL);
            memset(pk_block, 0, pk_bytes); /* touched, as the engine's buffers are */
            czk_witness_packed_place(&pk, pk_block, nz);
            t = czk_now();
            packed = czk_witness_pack(&pk, &w, NULL);
            t_pack1 = czk_now() - t;
            t = czk_now();
            packed = czk_witness_pack(&pk, &w, pool);
            t_pack = czk_now() - t;
            packed_mb =
                packed ? (double)((nz + 31) / 32 * 8 + pk.num_others * sizeof(czk_fr)) / 1e6 : 0;
            if (packed) {
                w.packed = &pk;
                printf("packed: %llu others, %.1f MB (codes %.1f + others %.1f; %.2f %% of the "
                       "witness) in %s memory, in %.1f ms on %u threads (%.1f ms on one)\n",
                       (unsigned long long)pk.num_others, packed_mb,
                       (double)(nz + 31) / 32 * 8 / 1e6,
                       (double)pk.num_others * sizeof(czk_fr) / 1e6,
                       100.0 * packed_mb * 1e6 / (double)pin_bytes,
                       pk_pinned ? "page-locked" : "pageable", t_pack * 1e3, czk_pool_threads(pool),
                       t_pack1 * 1e3);
            } else {
                printf(
                    "not packed: more others than the room (%llu) holds; in %.1f ms on %u threads "
                    "(%.1f ms on one); the full witness is uploaded\n",
                    (unsigned long long)pk.others_cap, t_pack * 1e3, czk_pool_threads(pool),
                    t_pack1 * 1e3);
            }
        } else {
            printf("not packed (--no-pack): the full witness is uploaded\n");
        }
        fflush(stdout);

        /* proofs */
        run_set conc = {0}, ser = {0};
        int verified = 0;
        printf("\n%-6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "run", "wall", "upload", "spmv",
               "H", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2", "verify");
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
                printf("%-6s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %6s%3.0fms\n",
                       name, wall, tm.upload, tm.spmv, tm.ntt, tm.msm_h, tm.msm_l, tm.msm_a,
                       tm.msm_b1, tm.msm_b2, ok, tv * 1e3);
                fflush(stdout);
                if (i >= 0) record(pass ? &ser : &conc, &tm, wall);
            }
        }
        finish(&conc);
        finish(&ser);

        /* pipelined: two threads prove at once, so one circuit's upload, SpMV and H run beside the
         * other's MSMs (backend.cu's MSM stage); the period is the wall over the proofs */
        double period = 0;
        if (czk_backend_cuda_set_serial_msm(&be, false, &err)) die("concurrent MSMs", &err);
        {
            pipe_arg pa[2];
            pthread_t th[2];
            double w0 = czk_now();
            for (int k = 0; k < 2; k++) {
                pa[k] = (pipe_arg){.be = &be,
                                   .params = params,
                                   .shape = shape,
                                   .w = &w,
                                   .pvk = pvk,
                                   .inputs = inputs,
                                   .ninputs = ninputs,
                                   .reps = reps};
                if (pthread_create(&th[k], NULL, pipe_run, &pa[k])) die("pipelined: thread", NULL);
            }
            for (int k = 0; k < 2; k++)
                pthread_join(th[k], NULL);
            double wall = czk_now() - w0;
            for (int k = 0; k < 2; k++)
                if (pa[k].st) die("pipelined prove", &pa[k].err);
            verified += pa[0].verified + pa[1].verified;
            period = wall / (2.0 * reps);
            printf("pipelined: %d proofs on 2 threads in %.3f s: %.3f s per partition\n", 2 * reps,
                   wall, period);
        }

        double witness_msm = ser.med[PH_L] + ser.med[PH_A] + ser.med[PH_B1] + ser.med[PH_B2];
        printf("\n%s %s partition, median of %d (seconds)\n", size_name, kind_arg, reps);
        printf("| %-20s | %10s | %10s |\n", "phase", "serial", "concurrent");
        printf("|%s|%s|%s|\n", "----------------------", "------------", "------------");
        for (int k = 0; k < NPH; k++)
            printf("| %-20s | %10.3f | %10.3f |\n", PH_NAME[k], ser.med[k], conc.med[k]);
        printf("| %-20s | %10.3f | %10s |\n", "MSM L+A+B1+B2", witness_msm, "");
        printf("| %-20s | %10s | %10.3f |\n", "period, 2 in flight", "", period);
        printf("proofs pairing-checked: %d%s\n", verified, pvk ? "" : " (random keys)");
        printf("peak RSS %.1f GiB, whole run %.1f s\n", gib(czk_proc_status_bytes(0, "VmHWM")),
               czk_now() - T0);
        if (json && si == 0) {
            FILE *f = fopen(json, "w");
            if (!f) die("--json", NULL);
            const struct {
                const char *key;
                double v;
                int prec;
            } F[] = {{"partition_ms", conc.med[PH_WALL] * 1e3, 1},
                     {"upload_ms", conc.med[PH_UPLOAD] * 1e3, 1},
                     {"spmv_ms", ser.med[PH_SPMV] * 1e3, 1},
                     {"h_ms", ser.med[PH_H] * 1e3, 1},
                     {"msm_h_ms", ser.med[PH_MSM_H] * 1e3, 1},
                     {"msm_l_ms", ser.med[PH_L] * 1e3, 1},
                     {"msm_a_ms", ser.med[PH_A] * 1e3, 1},
                     {"msm_b1_ms", ser.med[PH_B1] * 1e3, 1},
                     {"msm_b2_ms", ser.med[PH_B2] * 1e3, 1},
                     {"msm_witness_ms", witness_msm * 1e3, 1},
                     {"serial_ms", ser.med[PH_WALL] * 1e3, 1},
                     {"period_ms", period * 1e3, 1},
                     {"witness_s", t_witness, 2},
                     {"load_s", t_load, 1},
                     {do_setup ? "setup_s" : "params_read_s", t_read, 1},
                     {"witness_pinned", pin != NULL, 0},
                     {"packed", packed, 0},
                     {"pack_ms", t_pack * 1e3, 1},
                     {"pack1_ms", t_pack1 * 1e3, 1},
                     {"packed_mb", packed_mb, 1},
                     {"lagrange", params->lagrange != NULL, 0},
                     {"lagrange_s", t_form, 1},
                     {"reps", reps, 0},
                     {"verified", verified, 0}};
            fprintf(f, "{\n  \"%s_commit\": \"%s\",\n  \"%s_sector\": \"%s\"", jp, commit, jp,
                    size_name);
            for (size_t k = 0; k < sizeof F / sizeof F[0]; k++)
                fprintf(f, ",\n  \"%s_%s\": %.*f", jp, F[k].key, F[k].prec, F[k].v);
            fprintf(f, "\n}\n");
            fclose(f);
        }
        if (pin) be.ops->host_free(be.self, pin, pin_bytes);
        if (pk_pinned)
            be.ops->host_free(be.self, pk_block, pk_bytes);
        else
            free(pk_block);
        w = wh;
        czk_backend_release(&be);
    }
    if (pvk) czk_pvk_free(pvk);
    free(pvk);
    free(inputs);
    czk_params_free(params);
    czk_witness_free(&w);
    czk_porep_witness_free(pw);
    free(pi.inputs);
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
