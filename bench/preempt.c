/*
 * bench_preempt: how long a WinningPoSt waits when the device is busy with
 * PoRep (issue "WinningPoSt and WindowPoSt", "priority that holds under
 * load": a WINNING_POST submitted while 32GiB PoRep partitions occupy the
 * GPU must take the device at the next partition boundary — target ≤ 2 s
 * to its device start, ≤ 5 s in all — and the PoRep jobs continue after it,
 * keeping their finished partitions).
 *
 *   bench_preempt --c1 FILE --param-cache DIR [--sector-size S]
 *                 [--backend cpu|cuda] [--porep N] [--inject K]
 *                 [--sector-num N --miner-id N] [--config FILE]
 *
 * The engine runs in this process with the PoRep and PoSt kinds
 * (czk_kinds_register_porep, czk_kinds_register_post). Keys of both come
 * from DIR (Filecoin's or czk's test keys: `czk setup` and `czk setup
 * --kind winning-post`). The WinningPoSt input is made here: a test sector
 * of the size (sealed for 2KiB–512MiB, sparse for 32/64GiB,
 * czk_seal_post_vanilla) proved for a fixed randomness.
 *
 * Steps: the PoRep circuit is preloaded and one WinningPoSt proved alone
 * (which loads its keys; its times are the unloaded figures). Then N PoRep
 * jobs (default 2) of the C1 are submitted at once, and K WinningPoSt
 * proofs (default 3) are submitted one after another while PoRep work is
 * on the device: each one after the device has finished 2 more PoRep
 * partitions since the previous injection. Per injection the table gives
 * the time from submit to its synthesis start, to its device start
 * (GPU_START of its partition), and to its result, and how many PoRep
 * partitions started on the device between its submit and its own device
 * start (1 at most when the priority holds: the one already running, or
 * the one whose witness was already queued when there are two GPU
 * workers). Every proof is verified by the engine before it is returned;
 * the PoRep jobs must all complete. Times are the engine's TIMELINE
 * milliseconds.
 */
#define _GNU_SOURCE /* memmem */
#include "czk/cuda.h"
#include "czk/engine.h"
#include "czk/kinds.h"
#include "czk/porep_c1.h"
#include "czk/post.h"
#include "czk/seal.h"
#include "util/time.h"

#include <getopt.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INJECT 16

/* What the event hook collects: per WinningPoSt job its milestones, and the
 * device starts of PoRep partitions. */
typedef struct watch {
    pthread_mutex_t mu;
    char win_ids[MAX_INJECT + 1][CZK_JOB_ID_MAX];
    long long submit[MAX_INJECT + 1], synth[MAX_INJECT + 1], gpu[MAX_INJECT + 1],
        done[MAX_INJECT + 1];
    long long porep_gpu_start[4096]; /* ms of each PoRep partition's GPU_START */
    int porep_starts;
    int porep_ends;
    int porep_done; /* PoRep jobs finished */
} watch;

static int win_index(watch *w, const char *job) {
    for (int i = 0; i <= MAX_INJECT; i++)
        if (w->win_ids[i][0] && !strcmp(w->win_ids[i], job)) return i;
    return -1;
}

static void on_event(void *ctx, const czk_engine_event *ev) {
    watch *w = ctx;
    pthread_mutex_lock(&w->mu);
    int i = win_index(w, ev->job_id);
    long long ms = (long long)ev->ms;
    if (i >= 0) {
        if (ev->type == CZK_EV_JOB_SUBMIT) w->submit[i] = ms;
        if (ev->type == CZK_EV_SYNTH_START && w->synth[i] < 0) w->synth[i] = ms;
        if (ev->type == CZK_EV_GPU_START && w->gpu[i] < 0) w->gpu[i] = ms;
        if (ev->type == CZK_EV_JOB_DONE) w->done[i] = ms;
    } else if (!strncmp(ev->job_id, "porep-", 6)) {
        if (ev->type == CZK_EV_GPU_START && w->porep_starts < 4096)
            w->porep_gpu_start[w->porep_starts++] = ms;
        if (ev->type == CZK_EV_GPU_END) w->porep_ends++;
        if (ev->type == CZK_EV_JOB_DONE) w->porep_done++;
    }
    pthread_mutex_unlock(&w->mu);
}

static void quiet(void *ctx, const char *level, const char *line) {
    (void)ctx;
    if (!strcmp(level, "error") || !strcmp(level, "warn")) fprintf(stderr, "engine: %s\n", line);
}

static _Noreturn void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_preempt: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = n > 0 ? malloc((size_t)n) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

/* cuzk's envelope {"SectorNum","Phase1Out","SectorSize"} around a raw C1 (an
 * envelope is passed through). */
static char *envelope(const uint8_t *c1, size_t len, uint64_t sector_num, uint64_t sector_size,
                      size_t *out_len) {
    size_t i = 0;
    while (i < len && (c1[i] == ' ' || c1[i] == '\n' || c1[i] == '\t' || c1[i] == '\r')) i++;
    if (len - i > 12 && memmem(c1, len < 4096 ? len : 4096, "\"Phase1Out\"", 11)) {
        char *copy = malloc(len);
        if (copy) memcpy(copy, c1, len);
        *out_len = len;
        return copy;
    }
    size_t b64 = 4 * ((len + 2) / 3);
    char *out = malloc(b64 + 128);
    if (!out) return NULL;
    int n = snprintf(out, 128, "{\"SectorNum\":%llu,\"Phase1Out\":\"", (unsigned long long)sector_num);
    EVP_EncodeBlock((unsigned char *)out + n, c1, (int)len);
    n += (int)b64;
    n += snprintf(out + n, 96, "\",\"SectorSize\":%llu}", (unsigned long long)sector_size);
    *out_len = (size_t)n;
    return out;
}

/* RegisteredSealProof V1_1 of a size (the sealing of the PoSt test sector) and
 * the WinningPoSt registered proof (0..4). */
static int seal_and_winning_ids(uint64_t size, uint64_t *seal, uint64_t *winning) {
    static const uint64_t SIZES[5] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (uint64_t k = 0; k < 5; k++)
        if (SIZES[k] == size) {
            *seal = 5 + k; /* StackedDrg2KiBV1_1 = 5 ... 64GiBV1_1 = 9 */
            *winning = k;  /* StackedDrgWinning2KiBV1 = 0 ... 64GiB = 4 */
            return 0;
        }
    return -1;
}

static double median(double *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

typedef struct porep_job {
    czk_engine *e;
    char id[CZK_JOB_ID_MAX];
    czk_job_result r;
    czk_status st;
    czk_err err;
} porep_job;

static void *await_porep(void *arg) {
    porep_job *p = arg;
    p->st = czk_engine_await(p->e, p->id, -1, &p->r, &p->err);
    return NULL;
}

int main(int argc, char **argv) {
    const char *c1_path = NULL, *cache = NULL, *size_arg = "32GiB", *backend = "cuda",
               *config = NULL;
    unsigned nporep = 2, ninject = 3;
    uint64_t sector_num = 1, miner_id = 1000;
    static const struct option LONG[] = {
        {"c1", required_argument, NULL, 'c'},         {"param-cache", required_argument, NULL, 'p'},
        {"sector-size", required_argument, NULL, 's'}, {"backend", required_argument, NULL, 'b'},
        {"porep", required_argument, NULL, 'n'},      {"inject", required_argument, NULL, 'k'},
        {"sector-num", required_argument, NULL, 'S'}, {"miner-id", required_argument, NULL, 'M'},
        {"config", required_argument, NULL, 'f'},     {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", LONG, NULL)) != -1) {
        switch (ch) {
        case 'c': c1_path = optarg; break;
        case 'p': cache = optarg; break;
        case 's': size_arg = optarg; break;
        case 'b': backend = optarg; break;
        case 'n': nporep = (unsigned)atoi(optarg); break;
        case 'k': ninject = (unsigned)atoi(optarg); break;
        case 'S': sector_num = strtoull(optarg, NULL, 10); break;
        case 'M': miner_id = strtoull(optarg, NULL, 10); break;
        case 'f': config = optarg; break;
        default:
            fprintf(stderr, "usage: bench_preempt --c1 FILE --param-cache DIR [--sector-size S] "
                            "[--backend cpu|cuda] [--porep N] [--inject K] [--sector-num N "
                            "--miner-id N] [--config FILE]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    czk_err err;
    char *end;
    uint64_t size = strtoull(size_arg, &end, 10);
    size *= !strcmp(end, "KiB") ? 1ull << 10 : !strcmp(end, "MiB") ? 1ull << 20
          : !strcmp(end, "GiB") ? 1ull << 30 : 0;
    uint64_t seal_id, win_id;
    if (!c1_path || !cache || !nporep || nporep > 16 || !ninject || ninject > MAX_INJECT ||
        seal_and_winning_ids(size, &seal_id, &win_id)) {
        fprintf(stderr, "bench_preempt: --c1 and --param-cache are required; --porep 1..16, "
                        "--inject 1..%d, a PoRep sector size (2KiB 8MiB 512MiB 32GiB 64GiB)\n",
                MAX_INJECT);
        return 2;
    }

    /* The inputs: the PoRep envelope and one WinningPoSt blob. */
    size_t c1_len, env_len;
    uint8_t *c1 = slurp(c1_path, &c1_len);
    if (!c1) die(c1_path, NULL);
    char *env = envelope(c1, c1_len, sector_num, size, &env_len);
    free(c1);
    if (!env) die("envelope", NULL);
    uint8_t randomness[32];
    for (int i = 0; i < 32; i++) randomness[i] = (uint8_t)(0x5a + 7 * i);
    randomness[31] &= 0x3f;
    czk_seal_request sr = {.registered_proof = seal_id, .miner_id = miner_id, .sector_num = 7,
                           .data_kind = CZK_SEAL_DATA_ZERO, .sparse = size > (512ull << 20)};
    memset(sr.ticket, 3, 32);
    memset(sr.seed, 4, 32);
    uint8_t *blob;
    size_t blob_len;
    double t = czk_now();
    if (czk_seal_post_vanilla(&blob, &blob_len, NULL, &sr, CZK_POST_WINNING, CZK_POST_API_1_0,
                              randomness, 0, NULL, &err))
        die("WinningPoSt test sector", &err);
    printf("bench_preempt: %s, backend %s, %u PoRep jobs, %u WinningPoSt injections; "
           "WinningPoSt vanilla proof %zu bytes (%s sector, %.1f s)\n",
           size_arg, backend, nporep, ninject, blob_len, sr.sparse ? "sparse" : "sealed",
           czk_now() - t);

    /* The engine. */
    watch w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    for (int i = 0; i <= MAX_INJECT; i++) w.submit[i] = w.synth[i] = w.gpu[i] = w.done[i] = -1;
    czk_engine_opts o;
    czk_engine_opts_default(&o);
    if (config && czk_engine_config_load(&o.config, config, NULL, NULL, &err)) die(config, &err);
    snprintf(o.config.backend, sizeof o.config.backend, "%s", backend);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", cache);
    o.gpu = &czk_cuda_provider;
    o.on_event = on_event;
    o.event_ctx = &w;
    o.log = quiet;
    czk_engine *e;
    if (czk_engine_create(&e, &o, &err) || czk_kinds_register_porep(e, &err) ||
        czk_kinds_register_post(e, &err))
        die("engine", &err);
    uint64_t load_ms = 0;
    char porep_cid[CZK_CIRCUIT_ID_MAX];
    if (czk_kind_circuit_id(porep_cid, CZK_KIND_POREP_C2, size, &err) ||
        czk_engine_preload(e, porep_cid, true, NULL, &load_ms, &err))
        die("preload", &err);
    printf("PoRep keys ready in %.1f s\n", load_ms / 1e3);

    czk_proof_request win = {.kind = CZK_KIND_WINNING_POST, .sector_size = size,
                             .registered_proof = win_id, .miner_id = miner_id};
    const uint8_t *blobs[1] = {blob};
    size_t lens[1] = {blob_len};
    win.vanilla_proofs = blobs;
    win.vanilla_proofs_len = lens;
    win.num_vanilla_proofs = 1;
    memcpy(win.randomness, randomness, 32);

    /* Alone first (its keys load here): index MAX_INJECT. */
    char id[CZK_JOB_ID_MAX];
    snprintf(w.win_ids[MAX_INJECT], CZK_JOB_ID_MAX, "winning-alone");
    win.request_id = w.win_ids[MAX_INJECT];
    czk_job_result r;
    if (czk_engine_submit(e, &win, id, NULL, &err)) die("WinningPoSt submit", &err);
    if (czk_engine_await(e, id, -1, &r, &err) || r.state != CZK_JOB_COMPLETED) {
        fprintf(stderr, "bench_preempt: WinningPoSt alone: %s\n",
                r.state == CZK_JOB_FAILED ? r.error : err.msg);
        return 1;
    }
    printf("WinningPoSt alone: %llu ms in all (keys %llu ms, synthesis %llu ms, device %llu ms), "
           "%zu proof bytes, verified\n",
           (unsigned long long)r.total_ms, (unsigned long long)r.srs_load_ms,
           (unsigned long long)r.synthesis_ms, (unsigned long long)r.gpu_compute_ms, r.proof_len);
    czk_job_result_free(&r);

    /* Again alone, keys loaded: the unloaded latency. */
    pthread_mutex_lock(&w.mu);
    snprintf(w.win_ids[MAX_INJECT], CZK_JOB_ID_MAX, "winning-alone-2");
    w.submit[MAX_INJECT] = w.synth[MAX_INJECT] = w.gpu[MAX_INJECT] = w.done[MAX_INJECT] = -1;
    pthread_mutex_unlock(&w.mu);
    win.request_id = w.win_ids[MAX_INJECT];
    if (czk_engine_submit(e, &win, id, NULL, &err)) die("WinningPoSt submit", &err);
    if (czk_engine_await(e, id, -1, &r, &err) || r.state != CZK_JOB_COMPLETED) {
        fprintf(stderr, "bench_preempt: WinningPoSt alone (2): %s\n",
                r.state == CZK_JOB_FAILED ? r.error : err.msg);
        return 1;
    }
    pthread_mutex_lock(&w.mu);
    long long alone_gpu = w.gpu[MAX_INJECT] - w.submit[MAX_INJECT],
              alone_total = w.done[MAX_INJECT] - w.submit[MAX_INJECT];
    pthread_mutex_unlock(&w.mu);
    printf("WinningPoSt alone, keys loaded: device start %lld ms after submit, result %lld ms "
           "(synthesis %llu ms, device %llu ms)\n\n",
           alone_gpu, alone_total, (unsigned long long)r.synthesis_ms,
           (unsigned long long)r.gpu_compute_ms);
    czk_job_result_free(&r);

    /* Under load. */
    porep_job pj[16];
    pthread_t th[16];
    czk_proof_request pr = {.kind = CZK_KIND_POREP_C2, .sector_size = size,
                            .vanilla_proof = (const uint8_t *)env, .vanilla_proof_len = env_len,
                            .sector_number = sector_num, .miner_id = miner_id};
    double t0 = czk_now();
    for (unsigned i = 0; i < nporep; i++) {
        char rid[64];
        snprintf(rid, sizeof rid, "porep-%u", i);
        pr.request_id = rid;
        pj[i].e = e;
        if (czk_engine_submit(e, &pr, pj[i].id, NULL, &err)) die("PoRep submit", &err);
        pthread_create(&th[i], NULL, await_porep, &pj[i]);
    }
    int base = 0;
    int before[MAX_INJECT];
    unsigned injected = 0;
    for (unsigned k = 0; k < ninject; k++) {
        bool over = false;
        for (;;) { /* 2 more PoRep partitions finished on the device, PoRep still running */
            pthread_mutex_lock(&w.mu);
            int ends = w.porep_ends;
            over = w.porep_done >= (int)nporep;
            pthread_mutex_unlock(&w.mu);
            if (ends >= base + 2 || over) break;
            usleep(2000);
        }
        if (over) {
            printf("the PoRep jobs ended after %u injection%s (more PoRep jobs give more)\n", k,
                   k == 1 ? "" : "s");
            break;
        }
        injected++;
        pthread_mutex_lock(&w.mu);
        base = w.porep_ends;
        before[k] = w.porep_starts;
        snprintf(w.win_ids[k], CZK_JOB_ID_MAX, "winning-%u", k);
        pthread_mutex_unlock(&w.mu);
        win.request_id = w.win_ids[k];
        if (czk_engine_submit(e, &win, id, NULL, &err)) die("WinningPoSt submit", &err);
        if (czk_engine_await(e, id, -1, &r, &err) || r.state != CZK_JOB_COMPLETED) {
            fprintf(stderr, "bench_preempt: WinningPoSt %u: %s\n", k,
                    r.state == CZK_JOB_FAILED ? r.error : err.msg);
            return 1;
        }
        czk_job_result_free(&r);
    }
    int failed = 0;
    for (unsigned i = 0; i < nporep; i++) {
        pthread_join(th[i], NULL);
        if (pj[i].st || pj[i].r.state != CZK_JOB_COMPLETED) {
            fprintf(stderr, "bench_preempt: PoRep job %s: %s\n", pj[i].id,
                    pj[i].st ? pj[i].err.msg : pj[i].r.error);
            failed++;
        }
        czk_job_result_free(&pj[i].r);
    }
    double wall = czk_now() - t0;

    printf("| injection | to synthesis ms | to device ms | result ms | PoRep partitions started "
           "on the device in between |\n|---|---|---|---|---|\n");
    double dv[MAX_INJECT], tv[MAX_INJECT];
    ninject = injected;
    for (unsigned k = 0; k < ninject; k++) {
        int between = 0;
        for (int i = before[k]; i < w.porep_starts; i++)
            if (w.porep_gpu_start[i] >= w.submit[k] && w.porep_gpu_start[i] < w.gpu[k]) between++;
        dv[k] = (double)(w.gpu[k] - w.submit[k]);
        tv[k] = (double)(w.done[k] - w.submit[k]);
        printf("| %u | %lld | %lld | %lld | %d |\n", k, w.synth[k] - w.submit[k],
               w.gpu[k] - w.submit[k], w.done[k] - w.submit[k], between);
    }
    printf("\nWinningPoSt under load: median %.0f ms to the device, %.0f ms to the result "
           "(alone: %lld / %lld ms); %u PoRep jobs %s in %.1f s, %d PoRep partitions on the "
           "device\n",
           median(dv, (int)ninject), median(tv, (int)ninject), alone_gpu, alone_total, nporep,
           failed ? "NOT all completed" : "all completed and verified", wall, w.porep_starts);
    czk_engine_destroy(e);
    free(env);
    free(blob);
    return failed ? 1 : 0;
}
