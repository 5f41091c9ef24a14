/*
 * `czk prove --c1 FILE --out FILE [...]`: PoRep C2 through the engine, as a
 * job of one proof on an engine in this process (the stages, pools and
 * backend choice of `czk daemon` and `czk bench --in-process`), so that a
 * speed-up or a fix of the engine lands here too.
 *
 * The steps: the output is checked first (a temporary file is created next
 * to it, so that a proof is never made for a path that cannot be written);
 * the C1 is read and parsed (raw JSON or cuzk's envelope, the option group
 * shared with `czk verify`: cli/c1_args.c); an engine is made from the
 * command line (no configuration file: gpus.backend and gpus.devices from
 * --backend/--device, synthesis.threads and gpus.gpu_threads from
 * --threads, synthesis.partition_workers from --witnesses) and the PoRep
 * kind registered with this command's loader (--params or the key search
 * path of keys.h: --param-cache, the parameter cache, czk's test keys; the
 * shape cache unless --no-shape-cache; the key-read progress on stderr).
 * The C1 goes in as cuzk's envelope; the engine's intake parses it and
 * pre-checks every vanilla proof, with replica_id recomputed when the
 * sector number and miner id are known, before any key is read. Then the
 * circuit is loaded (keys, shape, device upload, witness buffers: "ready"),
 * each partition runs through synthesis, the GPU worker and the finalizer,
 * one line each as it is finalized (from the engine's timeline, with the
 * phases of its device part), and the assembled proof is verified against
 * public inputs derived as the chain derives them before it is handed out.
 * Only verified proofs are written: 192 bytes per partition, partition 0
 * first. The phase table at the end comes from the job's result and its
 * timeline.
 */
#include "cli/cli.h"
#include "czk/cuda.h"
#include "czk/engine.h"
#include "czk/keys.h"
#include "czk/kinds.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/timeline.h"
#include "util/proc.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "prove"
#define JOB_ID "czk-prove"

static const char USAGE[] =
    "usage: czk prove --c1 FILE --out FILE [--params FILE | --param-cache DIR]\n"
    "                 [--sector-num N (--miner-id N | --prover-id HEX)] [--threads T]\n"
    "                 [--no-shape-cache] [--backend auto|cpu|cuda] [--device N]\n"
    "                 [--witnesses N]\n\n"
    "Proves a PoRep C1 (commit phase 2) on a GPU or the CPU, through the proving\n"
    "engine in this process, and writes the proofs, 192 bytes per partition.\n"
    "Every proof is verified before it is written.\n\n"
    "  --c1 FILE          the C1: SealCommitPhase1Output JSON, or cuzk's envelope\n"
    "                     {\"SectorNum\",\"Phase1Out\",\"SectorSize\"}\n"
    "  --out FILE         where to write the proofs (checked before any work starts)\n"
    "  --params FILE      the .params file to use\n"
    "  --param-cache DIR  look there first; then in $FIL_PROOFS_PARAMETER_CACHE\n"
    "                     (else /var/tmp/filecoin-proof-parameters), then in czk's\n"
    "                     test keys ($CZK_CACHE_DIR/test-keys, else\n"
    "                     ~/.cache/czk/test-keys, where czk setup writes); in each,\n"
    "                     Filecoin's v28 file name first, then czk's test-key name\n"
    "  --sector-num N     the sector number (an envelope carries it)\n"
    "  --miner-id N       the miner actor id (N of f0N); with the sector number,\n"
    "                     replica_id is recomputed and checked\n"
    "  --prover-id HEX    instead of --miner-id: the 32-byte prover id\n"
    "  --threads T        threads (default: all CPUs)\n"
    "  --no-shape-cache   record the circuit instead of using $CZK_CACHE_DIR/shapes\n"
    "  --backend B        cuda (the GPU; keys made resident in its memory when they\n"
    "                     fit, else pinned and streamed), cpu, or auto (default: cuda\n"
    "                     when this czk has it and a GPU is present, else cpu)\n"
    "  --device N         the CUDA device (default 0)\n"
    "  --witnesses N      partitions whose witnesses are made at once, each while\n"
    "                     earlier ones are on the device (synthesis.partition_workers;\n"
    "                     default: the engine's, half the CPUs, 2..18, at most 4 on\n"
    "                     the GPU; each holds a whole witness, 4.2 GB at 32GiB)\n\n"
    "Prints the keys used, the time to be ready (keys read, shape, device upload),\n"
    "one line per partition and the time of each phase. exit status: 0 proved,\n"
    "1 the C1 is refused (parse or pre-check; the reason is printed), 2 usage,\n"
    "I/O or other error\n\n"
    "PoSt, SnapDeals: czk prove --kind window-post|winning-post|snap --request FILE --out FILE\n"
    "(czk prove --kind window-post --help)\n";

static const char *trust_name(czk_params_trust t) {
    return t == CZK_TRUST_STAMP   ? "stamp of an earlier full check"
           : t == CZK_TRUST_KNOWN ? "published v28 digest"
                                  : "every point checked now";
}

static void row(const char *name, double s) {
    printf("  %-36s %9.3f\n", name, s);
}

static double gib(uint64_t b) {
    return (double)b / (double)(1ull << 30);
}

/* ---- what the engine reports: the loader's results and the job's timeline ---- */

typedef struct part {
    bool seen;
    long long synth_ms, gpu_ms, queue_ms, fin_ms;
    long long queued_at; /* GPU_QUEUE ms, -1 none */
    double phase[9];     /* upload spmv ntt msm_h msm_l msm_a msm_b1 msm_b2 assemble (s) */
} part;

static const char *const PHASE_KEYS[9] = {"upload_us", "spmv_us",   "ntt_us",
                                          "msm_h_us",  "msm_l_us",  "msm_a_us",
                                          "msm_b1_us", "msm_b2_us", "assemble_us"};

typedef struct prove_run {
    const czk_cli_c1_args *args;
    const czk_porep_shape *shape;
    bool use_cuda, use_shape_cache;
    double t_start;
    czk_proof_kind base; /* the PoRep kind whose intake and synthesis this root uses */

    /* the loader (the engine's loader thread; read after czk_engine_preload returned) */
    czk_cli_progress prog;
    czk_params_progress_fn engine_progress;
    void *engine_progress_ctx;
    char key_path[PATH_MAX];
    const char *key_kind;
    bool key_missing, loaded, encoded, recorded;
    czk_params_read_info ri;
    double t_params, t_shape;
    uint64_t constraints;
    uint32_t num_inputs, num_aux;

    /* events (engine threads), under mu */
    pthread_mutex_t mu;
    czk_tl tl;
    bool tl_lost;
    long long load_ms, witness_buffers, witness_buffers_ms, ready_ms, done_ms, last_fin_ms;
    part *parts;
    size_t n_parts;
    uint32_t partitions;
    bool ready_printed;
    /* the status line on a terminal (stderr), under mu: what is being done now */
    bool tty, drawn;
    int n_synth, n_device, n_fin, n_done;
    char *pending; /* partition lines finished before the ready line was printed */
    size_t pending_len;
} prove_run;

/* The value of " key=<digits>" in a TIMELINE line; -1 if absent. */
static long long field(const char *line, const char *key) {
    size_t kl = strlen(key);
    for (const char *p = strstr(line, key); p; p = strstr(p + 1, key))
        if ((p == line || p[-1] == ' ' || p[-1] == ',') && p[kl] == '=' && p[kl + 1] >= '0' &&
            p[kl + 1] <= '9')
            return strtoll(p + kl + 1, NULL, 10);
    return -1;
}

static part *part_of(prove_run *r, int k) {
    if (k < 0 || k > 100000) return NULL;
    if ((size_t)k >= r->n_parts) {
        size_t n = (size_t)k + 16;
        part *p = realloc(r->parts, n * sizeof *p);
        if (!p) return NULL;
        for (size_t i = r->n_parts; i < n; i++)
            p[i] = (part){.queued_at = -1};
        r->parts = p;
        r->n_parts = n;
    }
    r->parts[k].seen = true;
    return &r->parts[k];
}

/*
 * The status line (a terminal only; the caller holds mu): between the phase lines on stdout,
 * one line on stderr says what is going on — the shape, the device upload and witness buffers
 * before "ready", then how many partitions are done, in synthesis and on the device. A phase
 * line clears it first and it is drawn again after.
 */
static void status_draw(prove_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status_draw(prove_run *r, const char *fmt, ...) {
    if (!r->tty) return;
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\rczk %s: %s (%.0f s)\033[K", CMD, text, czk_cli_now() - r->t_start);
    fflush(stderr);
    r->drawn = true;
}

static void status_clear(prove_run *r) {
    if (!r->drawn) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    r->drawn = false;
}

static void status_proving(prove_run *r) {
    if (r->ready_printed && r->n_done < (int)r->partitions)
        status_draw(r,
                    "proving: %d of %u partition%s done, %d in synthesis, %d on the device, "
                    "%d finalizing",
                    r->n_done, r->partitions, r->partitions == 1 ? "" : "s", r->n_synth,
                    r->n_device, r->n_fin);
}

static void emit_line(prove_run *r, const char *line) {
    if (r->ready_printed) {
        status_clear(r);
        fputs(line, stdout);
        fflush(stdout);
        return;
    }
    size_t n = strlen(line);
    char *p = realloc(r->pending, r->pending_len + n + 1);
    if (!p) return;
    memcpy(p + r->pending_len, line, n + 1);
    r->pending = p;
    r->pending_len += n;
}

static void partition_line(prove_run *r, int k, const part *p) {
    const double *ph = p->phase;
    char line[600];
    snprintf(line, sizeof line,
             "partition %d/%u: witness %.3f s, gpu queue %.3f s; upload %.3f, SpMV %.3f, NTT %.3f, "
             "MSM h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f, assemble %.3f; device %.3f s, "
             "finalize %.3f s; at %.3f s\n",
             k + 1, r->partitions, (double)p->synth_ms / 1e3, (double)p->queue_ms / 1e3, ph[0],
             ph[1], ph[2], ph[3], ph[4], ph[5], ph[6], ph[7], ph[8], (double)p->gpu_ms / 1e3,
             (double)p->fin_ms / 1e3, czk_cli_now() - r->t_start);
    emit_line(r, line);
}

static void on_event(void *ctx, const czk_engine_event *ev) {
    prove_run *r = ctx;
    pthread_mutex_lock(&r->mu);
    if (!r->tl_lost && czk_tl_add_line(&r->tl, ev->line, NULL)) r->tl_lost = true;
    long long ms = (long long)ev->ms;
    bool ours = !strcmp(ev->job_id, JOB_ID);
    part *p = ours ? part_of(r, ev->partition) : NULL;
    switch (ev->type) {
    case CZK_EV_SRS_LOAD_END:
        r->load_ms = field(ev->line, "load_ms");
        r->witness_buffers = field(ev->line, "witness_buffers");
        r->witness_buffers_ms = field(ev->line, "witness_buffers_ms");
        r->ready_ms = ms;
        break;
    case CZK_EV_SYNTH_START:
        if (p) r->n_synth++;
        break;
    case CZK_EV_SYNTH_END:
        if (p) p->synth_ms = field(ev->line, "synth_ms"), r->n_synth -= r->n_synth > 0;
        break;
    case CZK_EV_GPU_START:
        if (p) r->n_device++;
        break;
    case CZK_EV_GPU_QUEUE:
        if (p) p->queued_at = ms;
        break;
    case CZK_EV_GPU_PICKUP:
        if (p && p->queued_at >= 0) p->queue_ms += ms - p->queued_at, p->queued_at = -1;
        break;
    case CZK_EV_GPU_END:
        if (p) p->gpu_ms += field(ev->line, "gpu_ms"), r->n_device -= r->n_device > 0;
        break;
    case CZK_EV_FINALIZE_START:
        if (p) r->n_fin++;
        break;
    case CZK_EV_FINALIZE_END:
        if (p) {
            r->n_fin -= r->n_fin > 0;
            p->fin_ms = field(ev->line, "finalize_ms");
            for (int i = 0; i < 9; i++) {
                long long us = field(ev->line, PHASE_KEYS[i]);
                p->phase[i] = us < 0 ? 0.0 : (double)us / 1e6;
            }
            r->last_fin_ms = ms;
            r->n_done++;
            partition_line(r, ev->partition, p);
        }
        break;
    case CZK_EV_JOB_DONE:
        if (ours) r->done_ms = ms;
        break;
    default:
        break;
    }
    if (p) status_proving(r);
    pthread_mutex_unlock(&r->mu);
}

static void on_log(void *ctx, const char *level, const char *line) {
    (void)ctx;
    /* errors reach this command through the job (its result, or the load's status) */
    if (!strcmp(level, "warn")) fprintf(stderr, "czk %s: engine: %s\n", CMD, line);
}

/* ---- the PoRep kind of this composition root: the engine's, with this command's loader ---- */

static void load_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    prove_run *r = ctx;
    czk_cli_progress_fn(&r->prog, stage, done, total);
    r->engine_progress(r->engine_progress_ctx, stage, done, total);
}

static czk_status kind_load(void *ctx, const char *id, const char *dir, czk_pool *pool,
                            const atomic_int *cancel, czk_params_progress_fn progress,
                            void *progress_ctx, czk_params **params, czk_shape **shape,
                            czk_err *err) {
    prove_run *r = ctx;
    (void)id;
    (void)dir; /* the keys are where --params says, else on the key search path */
    (void)cancel;
    *params = NULL;
    *shape = NULL;
    czk_status st =
        czk_cli_c1_key(r->key_path, sizeof r->key_path, &r->key_kind, r->args, r->shape, err);
    pthread_mutex_lock(&r->mu);
    status_clear(r);
    pthread_mutex_unlock(&r->mu);
    if (st) {
        r->key_missing = true;
        return st;
    }
    r->engine_progress = progress;
    r->engine_progress_ctx = progress_ctx;
    czk_cli_progress_init(&r->prog, CMD);
    czk_params_read_opts ro = {
        .flags = r->use_cuda && czk_cuda_params_device_decode() ? CZK_PARAMS_ENCODED : 0,
        .pool = pool,
        .progress = load_progress,
        .progress_ctx = r};
    double t0 = czk_cli_now();
    st = czk_params_read(params, r->key_path, &ro, &r->ri, err);
    czk_cli_progress_end(&r->prog);
    r->t_params = czk_cli_now() - t0;
    if (st) return st;
    r->encoded = (*params)->encoded;
    pthread_mutex_lock(&r->mu);
    status_draw(r, "keys read; the circuit's shape (from the cache, else recorded: ~1 min at "
                   "32GiB) ...");
    pthread_mutex_unlock(&r->mu);
    t0 = czk_cli_now();
    st = czk_porep_shape_load(shape, &r->recorded, r->shape, r->use_shape_cache, err);
    r->t_shape = czk_cli_now() - t0;
    pthread_mutex_lock(&r->mu);
    status_draw(r, "%switness buffers%s ...", r->use_cuda ? "device upload, " : "",
                r->use_cuda ? " (page-locked)" : "");
    pthread_mutex_unlock(&r->mu);
    if (st) {
        czk_params_free(*params);
        *params = NULL;
        return st;
    }
    r->constraints = (*shape)->num_constraints;
    r->num_inputs = (*shape)->num_inputs;
    r->num_aux = (*shape)->num_aux;
    if ((st = czk_params_check_shape(*params, *shape, err))) {
        czk_err_wrap(err, "%s: the keys are not for this circuit", r->key_path);
        czk_params_free(*params);
        czk_shape_free(*shape);
        *params = NULL;
        *shape = NULL;
        return st;
    }
    r->loaded = true;
    return CZK_OK;
}

static uint64_t kind_bytes(void *ctx, const char *id, const char *dir) {
    prove_run *r = ctx;
    (void)id;
    (void)dir;
    char path[PATH_MAX];
    const char *kn;
    struct stat sb;
    if (czk_cli_c1_key(path, sizeof path, &kn, r->args, r->shape, NULL) || stat(path, &sb))
        return 0;
    return (uint64_t)sb.st_size;
}

static bool kind_owns(void *ctx, const char *id) {
    prove_run *r = ctx;
    return r->base.owns_circuit(r->base.ctx, id);
}

static czk_status kind_parse(void *ctx, const czk_proof_request *req, void **job,
                             czk_kind_job_info *info, czk_err *err) {
    prove_run *r = ctx;
    return r->base.parse(r->base.ctx, req, job, info, err);
}

static czk_status kind_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                  const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                  czk_err *err) {
    prove_run *r = ctx;
    return r->base.synthesize(r->base.ctx, job, k, shape, cancel, pool, out, err);
}

static czk_status kind_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    prove_run *r = ctx;
    return r->base.public_inputs(r->base.ctx, job, k, out, err);
}

static czk_status kind_assemble(void *ctx, void *job, const czk_proof *proofs, uint32_t n,
                                uint8_t **out, size_t *out_len, czk_err *err) {
    prove_run *r = ctx;
    return r->base.assemble(r->base.ctx, job, proofs, n, out, out_len, err);
}

static void kind_job_free(void *ctx, void *job) {
    prove_run *r = ctx;
    r->base.job_free(r->base.ctx, job);
}

static void kind_destroy(void *ctx) {
    prove_run *r = ctx;
    if (r->base.destroy) r->base.destroy(r->base.ctx);
}

/*
 * KIND REGISTRATION (composition root): `czk prove` serves PoRep C2 and
 * the PoSt kinds. A new engine serves no kind; these are the registrations:
 * the PoRep kind's descriptor (czk_kind_porep, src/kinds/porep.c) with its
 * circuit loader replaced by kind_load above, then the PoSt kinds as they
 * come (czk_kinds_register_post).
 */
static czk_status register_kinds(czk_engine *e, prove_run *r, czk_err *err) {
    czk_status st = czk_kind_porep(&r->base, NULL, err); /* kind_load reads the shape */
    if (st) return st;
    czk_proof_kind k = r->base;
    k.ctx = r;
    k.parse = kind_parse;
    k.synthesize = kind_synthesize;
    k.public_inputs = kind_inputs;
    k.load_circuit = kind_load;
    k.circuit_bytes = kind_bytes;
    k.owns_circuit = kind_owns;
    k.assemble = r->base.assemble ? kind_assemble : NULL;
    k.job_free = kind_job_free;
    k.destroy = kind_destroy;
    st = czk_engine_register_kind(e, &k, err);
    if (st && r->base.destroy) r->base.destroy(r->base.ctx);
    if (!st) st = czk_kinds_register_post(e, err);
    return st;
}

/* ---- the command ---- */

/*
 * The engine's configuration, from the command line. One job of P
 * partitions never needs more synthesis or GPU workers than P, and each
 * worker the pipeline can hold means a witness buffer filled before the
 * circuit is ready (4.2 GB at 32GiB, page-locked on the GPU: 1.5-3 s each):
 * without --witnesses the synthesis workers are the engine's default (half
 * the CPUs, 2..18: config.c) capped at P, and one partition gets one GPU
 * worker and a GPU queue of one. On the GPU the default is at most 4
 * synthesis workers and one GPU worker (the queue then holds 2): the 32GiB
 * sweep of bench/GPU.md ("Third run") kept the H200 100 % busy with 4
 * workers and with one GPU worker, and each buffer fewer is 4.2 GB and
 * ~2 s less before the first partition (13 buffers took 30 s to page-lock).
 */
static void engine_config(czk_engine_config *c, bool use_cuda, uint64_t device, uint64_t threads,
                          uint64_t witnesses, uint32_t partitions, const czk_cli_c1_args *a) {
    czk_engine_config_default(c);
    snprintf(c->backend, sizeof c->backend, "%s", use_cuda ? "cuda" : "cpu");
    if (use_cuda) {
        c->devices[0] = (int)device;
        c->num_devices = 1;
    }
    c->threads = c->gpu_threads = (unsigned)threads;
    c->partition_workers =
        witnesses ? (unsigned)witnesses : czk_cli_witness_workers(use_cuda, partitions);
    if (use_cuda) c->gpu_workers_per_device = 1;
    if (partitions == 1) {
        c->gpu_workers_per_device = 1;
        c->max_gpu_queue_depth = 1;
    }
    snprintf(c->log_level, sizeof c->log_level, "warn");
    if (a->cache_dir) snprintf(c->param_cache, sizeof c->param_cache, "%s", a->cache_dir);
    /* --params FILE: the key search path begins at FILE's directory, where the engine finds
     * the keys' Lagrange form (srs.lagrange) beside them; the keys themselves come from FILE */
    if (a->key_path) {
        const char *slash = strrchr(a->key_path, '/');
        size_t n = !slash ? 1 : slash == a->key_path ? 1 : (size_t)(slash - a->key_path);
        if (n < sizeof c->param_cache)
            snprintf(c->param_cache, sizeof c->param_cache, "%.*s", (int)n,
                     slash ? a->key_path : ".");
    }
}

/* "job czk-prove: payload refused by kind porep-c2: porep-c2: pre-check: partition 0, ..."
 * -> "partition 0, ..." (the line already says it was refused at pre-check). */
static const char *intake_reason(const char *msg) {
    static const char P[] = "pre-check: ";
    const char *p = strstr(msg, P);
    return p ? p + sizeof P - 1 : msg;
}

int czk_cmd_prove(int argc, char **argv) {
    if (czk_cli_post_kind_arg(argc, argv)) return czk_cmd_prove_post(argc, argv); /* prove_post.c */
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    enum { O_OUT = 256, O_THREADS, O_NO_SHAPE_CACHE, O_BACKEND, O_DEVICE, O_WITNESSES, O_KIND };
    static const struct option LONG[] = {CZK_CLI_C1_LONGOPTS("params"),
                                         {"out", required_argument, NULL, O_OUT},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"no-shape-cache", no_argument, NULL, O_NO_SHAPE_CACHE},
                                         {"backend", required_argument, NULL, O_BACKEND},
                                         {"device", required_argument, NULL, O_DEVICE},
                                         {"witnesses", required_argument, NULL, O_WITNESSES},
                                         {"kind", required_argument, NULL, O_KIND},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    czk_cli_c1_args a;
    czk_cli_c1_args_init(&a, CMD, "params", ".params");
    const char *out_path = NULL;
    uint64_t threads = 0, device = 0, witnesses = 0;
    const char *backend_arg = "auto";
    bool use_shape_cache = true;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch, rc;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        if (czk_cli_c1_opt(&a, ch, v, &rc)) {
            if (rc) return rc;
            continue;
        }
        switch (ch) {
        case O_OUT:
            out_path = v;
            break;
        case O_NO_SHAPE_CACHE:
            use_shape_cache = false;
            break;
        case O_BACKEND:
            if (czk_cli_backend_arg(CMD, v, &backend_arg)) return CZK_EXIT_ERROR;
            break;
        case O_DEVICE:
            if (czk_cli_device_arg(CMD, v, &device)) return CZK_EXIT_ERROR;
            break;
        case O_WITNESSES:
            if (!czk_cli_parse_u64(v, &witnesses) || witnesses < 1 || witnesses > 64)
                return czk_cli_fail(CMD, "--witnesses takes 1 to 64, not '%s'", v);
            break;
        case O_THREADS:
            if (!czk_cli_parse_u64(v, &threads))
                return czk_cli_fail(CMD, "--threads takes a number, not '%s'", v);
            if (threads > 4096)
                return czk_cli_fail(CMD, "--threads %llu is too many", (unsigned long long)threads);
            break;
        case O_KIND: /* porep: any other kind went to prove_post.c */
            break;
        case 'h':
            fputs(USAGE, stdout);
            return CZK_EXIT_OK;
        default:
            return czk_cli_getopt_fail(CMD, USAGE, ch, argv, LONG);
        }
    }
    if (optind < argc) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "unexpected argument '%s'", argv[optind]);
    }
    if (!a.c1_path || !out_path) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--c1 and --out are required");
    }
    if ((rc = czk_cli_c1_args_check(&a))) return rc;
    bool use_cuda;
    if (czk_cli_backend_pick(CMD, backend_arg, device, &use_cuda)) return CZK_EXIT_ERROR;

    /* the output first: no proof is made for a path that cannot be written */
    czk_cli_out of;
    if ((rc = czk_cli_out_open(&of, CMD, out_path, "proved"))) return rc;

    prove_run r;
    memset(&r, 0, sizeof r);
    r.args = &a;
    r.use_cuda = use_cuda;
    r.use_shape_cache = use_shape_cache;
    r.t_start = czk_cli_now();
    r.tty = isatty(2) == 1;
    r.load_ms = r.witness_buffers = r.witness_buffers_ms = r.ready_ms = r.done_ms = -1;
    r.last_fin_ms = -1;
    pthread_mutex_init(&r.mu, NULL);
    czk_tl_init(&r.tl);
    czk_engine *e = NULL;
    czk_job_result res;
    memset(&res, 0, sizeof res);
    char *env = NULL;
    size_t env_len = 0;
    czk_err err;
    czk_status st;
    rc = CZK_EXIT_ERROR;

    /* the C1 */
    czk_cli_c1 in;
    if ((rc = czk_cli_c1_load(&in, &a, CZK_EXIT_NO, true))) goto out;
    rc = CZK_EXIT_ERROR;
    const czk_c1 *c1 = in.c1;
    r.shape = in.proof.shape;
    r.partitions = c1->num_partitions;
    uint32_t nvanilla = c1->num_partitions * c1->challenges_per_partition;
    printf("c1: %s: %s C1 of %s (registered proof %u), %s sector, %u partition%s x %u challenges\n",
           a.c1_path, in.envelope ? "enveloped" : "raw",
           czk_registered_proof_name(c1->registered_proof), c1->registered_proof,
           in.proof.shape->name, c1->num_partitions, c1->num_partitions == 1 ? "" : "s",
           c1->challenges_per_partition);
    fflush(stdout);
    /* replica_id: the engine's intake checks it for a miner id; a prover id (or miner f00,
       which a request cannot carry) is checked here */
    bool ids = czk_cli_c1_ids(&a, &in);
    uint64_t req_miner = ids && a.have_miner ? a.miner : 0;
    char ids_text[160];
    czk_cli_c1_ids_text(ids_text, sizeof ids_text, &a, in.sector);
    if (ids && !req_miner) {
        uint8_t prover[32], rid[32];
        czk_cli_c1_prover_id(prover, &a);
        czk_porep_replica_id(rid, prover, in.sector, c1->ticket.b, c1->comm_d.b, in.proof.porep_id);
        if (memcmp(rid, c1->replica_id.b, 32)) {
            fprintf(stderr,
                    "czk %s: %s: refused at pre-check: replica_id: the C1's is not that of %s\n",
                    CMD, a.c1_path, ids_text);
            rc = CZK_EXIT_NO;
            goto out;
        }
    }
    if (in.envelope) {
        env = (char *)in.bytes;
        env_len = in.len;
        in.bytes = NULL;
    } else if ((rc = czk_cli_envelope(CMD, &env, &env_len, in.bytes, in.len, in.sector,
                                      in.proof.shape->sector_size))) {
        goto out;
    }
    rc = CZK_EXIT_ERROR;
    free(in.bytes); /* the engine parses its own copy from the envelope */
    in.bytes = NULL;

    /* the engine, from the command line */
    czk_engine_opts eo;
    czk_engine_opts_default(&eo);
    engine_config(&eo.config, use_cuda, device, threads, witnesses, c1->num_partitions, &a);
    eo.gpu = &czk_cuda_provider; /* BACKEND REGISTRATION (composition root): --backend cuda */
    eo.on_event = on_event;
    eo.event_ctx = &r;
    eo.log = on_log;
    if ((st = czk_engine_create(&e, &eo, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if ((st = register_kinds(e, &r, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }

    /* intake: the engine parses the envelope and pre-checks every vanilla proof */
    czk_proof_request req;
    memset(&req, 0, sizeof req);
    req.request_id = JOB_ID;
    req.kind = CZK_KIND_POREP_C2;
    req.sector_size = in.proof.shape->sector_size;
    req.registered_proof = c1->registered_proof;
    req.vanilla_proof = (const uint8_t *)env;
    req.vanilla_proof_len = env_len;
    req.sector_number = in.sector;
    req.miner_id = req_miner;
    char job[CZK_JOB_ID_MAX];
    double t0 = czk_cli_now();
    czk_submit_info si;
    if ((st = czk_engine_submit(e, &req, job, &si, &err))) {
        /* the kind refused the C1 at intake (pre-check): exit 1, as a refused proof */
        if (si.refused) {
            fprintf(stderr, "czk %s: %s: refused at pre-check: %s\n", CMD, a.c1_path,
                    intake_reason(err.msg));
            rc = CZK_EXIT_NO;
        } else {
            czk_cli_fail(CMD, "%s", err.msg);
        }
        goto out;
    }
    double t_intake = czk_cli_now() - t0;
    free(env);
    env = NULL;
    czk_job_info ji;
    if ((st = czk_engine_job_info(e, job, &ji, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (ji.state == CZK_JOB_FAILED) {
        czk_err aerr;
        if (czk_engine_await(e, job, 0, &res, &aerr) != CZK_OK)
            snprintf(res.error, sizeof res.error, "%s", aerr.msg);
        bool intake = ji.partitions == 0;
        fprintf(stderr, "czk %s: %s: %s: %s\n", CMD, a.c1_path,
                intake ? "refused at pre-check" : "failed", intake_reason(res.error));
        rc = intake && res.error_code != CZK_ERR_NOMEM && res.error_code != CZK_ERR_INTERNAL
                 ? CZK_EXIT_NO
                 : CZK_EXIT_ERROR;
        goto out;
    }
    if (ids)
        printf("pre-check: %u vanilla proofs verified; replica_id matches %s\n", nvanilla,
               ids_text);
    else
        printf("pre-check: %u vanilla proofs verified; replica_id NOT checked (needs --sector-num "
               "and --miner-id): the C1's own is used\n",
               nvanilla);
    fflush(stdout);

    /* ready: keys, shape, device upload, witness buffers */
    uint64_t load_ms = 0;
    st = czk_engine_preload(e, ji.circuit_id, true, NULL, &load_ms, &err);
    if (st) {
        char tk[PATH_MAX];
        if (r.key_missing && czk_cache_dir(tk, sizeof tk, "test-keys"))
            czk_cli_fail(CMD, "%s\n(`czk setup --sector-size %s` makes TEST keys in %s)", err.msg,
                         in.proof.shape->name, tk);
        else
            czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    pthread_mutex_lock(&r.mu);
    status_clear(&r);
    pthread_mutex_unlock(&r.mu);
    printf("keys: %s (%s)\n      %.2f GB read in %.2f s; subgroup membership: %s%s\n", r.key_path,
           r.key_kind, (double)r.ri.bytes / 1e9, r.t_params, trust_name(r.ri.trust),
           r.encoded ? "; encoded (decoded on the GPU)" : "");
    printf("shape: %llu constraints, %u inputs, %u aux (%s)\n", (unsigned long long)r.constraints,
           r.num_inputs, r.num_aux, r.recorded ? "recorded now" : "shape cache");
    czk_engine_status *es = NULL;
    if (czk_engine_status_get(e, &es, &err)) es = NULL;
    const czk_engine_srs_status *srs = NULL;
    unsigned synth_workers = es ? es->synth_workers : 0;
    for (size_t i = 0; es && i < es->num_srs; i++)
        if (!strcmp(es->srs[i].circuit_id, ji.circuit_id)) srs = &es->srs[i];
    pthread_mutex_lock(&r.mu);
    double wb_s = r.witness_buffers_ms > 0 ? (double)r.witness_buffers_ms / 1e3 : 0.0;
    pthread_mutex_unlock(&r.mu);
    double upload = (double)load_ms / 1e3 - r.t_params - r.t_shape - wb_s;
    if (upload < 0) upload = 0;
    if (use_cuda) {
        bool resident = srs && srs->device_bytes;
        printf("backend: cuda, device %llu: %s (%.3f s)\n", (unsigned long long)device,
               resident ? "keys resident in device memory"
                        : "keys in host memory, streamed (pinned where the device allowed it)",
               upload);
        if (resident)
            printf("         %.2f GiB on the device; in host memory %.2f GiB of keys, %.2f GiB "
                   "of shape%s\n",
                   gib(srs->device_bytes), gib(srs->size_bytes), gib(srs->shape_bytes),
                   srs->shape_on_devices ? " (its matrices only on the device)"
                                         : " (matrices kept: host SpMV)");
    } else {
        printf("backend: cpu, %ld threads (%s)\n",
               threads ? (long)threads : sysconf(_SC_NPROCESSORS_ONLN),
               czk_cli_cpu_reason(backend_arg));
    }
    if (srs && srs->lagrange)
        printf("         Lagrange form of H and L attached: SpMV without C, H in four "
               "transforms\n");
    czk_engine_status_free(es);
    double t_ready = czk_cli_now() - r.t_start;
    printf("ready in %.3f s: keys %.3f s (%s), shape %.3f s, device upload %.3f s; resident "
           "set %.2f GiB (peak %.2f GiB)\n",
           t_ready, r.t_params, trust_name(r.ri.trust), r.t_shape, upload,
           gib(czk_proc_status_bytes(0, "VmRSS")), gib(czk_cli_peak_rss()));
    pthread_mutex_lock(&r.mu);
    r.ready_printed = true;
    if (r.pending) fputs(r.pending, stdout);
    fflush(stdout);
    status_proving(&r);
    pthread_mutex_unlock(&r.mu);

    /* the proof: every partition through synthesis, device and finalizer, then verified */
    /* on a terminal the status line's clock moves once a second while a phase runs */
    while ((st = czk_engine_await(e, job, r.tty ? 1000 : -1, &res, &err)) == CZK_ERR_TIMEOUT) {
        pthread_mutex_lock(&r.mu);
        status_proving(&r);
        pthread_mutex_unlock(&r.mu);
    }
    pthread_mutex_lock(&r.mu);
    status_clear(&r);
    r.tty = false; /* nothing more is drawn */
    pthread_mutex_unlock(&r.mu);
    if (st) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (res.state != CZK_JOB_COMPLETED) {
        czk_cli_fail(CMD, "%s",
                     res.state == CZK_JOB_FAILED ? res.error : czk_job_state_name(res.state));
        goto out;
    }
    size_t nbytes = (size_t)c1->num_partitions * CZK_PROOF_BYTES;
    if (res.proof_len != nbytes) {
        czk_cli_fail(CMD, "the engine returned %zu proof bytes, expected %zu", res.proof_len,
                     nbytes);
        goto out;
    }
    if ((rc = czk_cli_out_commit(&of, res.proof, nbytes))) goto out;
    rc = CZK_EXIT_ERROR;

    /* the phase table, from the job's result and its timeline */
    uint32_t bufs = 0, pinned = 0;
    if (!czk_engine_status_get(e, &es, &err)) {
        for (size_t i = 0; i < es->num_srs; i++)
            if (!strcmp(es->srs[i].circuit_id, ji.circuit_id)) {
                bufs = es->srs[i].witness_buffers;
                pinned = es->srs[i].witness_buffers_pinned;
            }
        czk_engine_status_free(es);
    }
    czk_engine_destroy(e); /* all its threads have stopped: r is ours alone */
    e = NULL;
    double sum[9] = {0}, synth = 0, queue = 0, fin = 0;
    for (size_t k = 0; k < r.n_parts; k++) {
        if (!r.parts[k].seen) continue;
        for (int i = 0; i < 9; i++)
            sum[i] += r.parts[k].phase[i];
        synth += (double)r.parts[k].synth_ms / 1e3;
        queue += (double)r.parts[k].queue_ms / 1e3;
        fin += (double)r.parts[k].fin_ms / 1e3;
    }
    czk_tl_summary ts;
    bool have_ts = !r.tl_lost && czk_tl_analyze(&r.tl, &ts, &err) == CZK_OK;
    double verify_s = r.done_ms >= 0 && r.last_fin_ms >= 0 && r.done_ms >= r.last_fin_ms
                          ? (double)(r.done_ms - r.last_fin_ms) / 1e3
                          : 0.0;
    double proving = r.done_ms >= 0 && r.ready_ms >= 0 && r.done_ms >= r.ready_ms
                         ? (double)(r.done_ms - r.ready_ms) / 1e3
                         : 0.0;
    printf("phase                                 seconds\n");
    row("parse C1", in.parse_s);
    row("intake (graph, pre-check)", t_intake);
    row("read params", r.t_params);
    row("shape", r.t_shape);
    row("device upload", upload);
    row("witness buffers", wb_s);
    row("ready", t_ready);
    row("witness (synthesis workers)", synth);
    row("  waited in the GPU queue", queue);
    if (have_ts) row("  device idle between partitions", (double)ts.gap_total_ms / 1e3);
    row("upload (witness)", sum[0]);
    row("SpMV (a, b, c)", sum[1]);
    row("NTT (H)", sum[2]);
    row("MSM h (G1)", sum[3]);
    row("MSM l (G1)", sum[4]);
    row("MSM a (G1)", sum[5]);
    row("MSM b_g1 (G1)", sum[6]);
    row("MSM b_g2 (G2)", sum[7]);
    row("assemble (r, s)", sum[8]);
    row("device (lock held)", (double)res.gpu_compute_ms / 1e3);
    row("finalize", fin);
    row("verify (public inputs, pairings)", verify_s);
    row("proving (all partitions, wall)", proving);
    row("total", czk_cli_now() - r.t_start);
    if (have_ts) czk_tl_summary_free(&ts);
    printf("per partition: %.3f s wall (%u partition%s, %u synthesis worker%s, %u witness "
           "buffer%s, %u page-locked)\n",
           c1->num_partitions ? proving / c1->num_partitions : 0.0, c1->num_partitions,
           c1->num_partitions == 1 ? "" : "s", synth_workers, synth_workers == 1 ? "" : "s", bufs,
           bufs == 1 ? "" : "s", pinned);
    printf("peak RSS: %.1f MiB; threads: %ld\n", (double)czk_cli_peak_rss() / (1 << 20),
           threads ? (long)threads : sysconf(_SC_NPROCESSORS_ONLN));
    printf("wrote %s: %zu bytes, %u partition proof%s, each verified\n", out_path, nbytes,
           c1->num_partitions, c1->num_partitions == 1 ? "" : "s");
    rc = fflush(stdout) ? czk_cli_fail(CMD, "writing the output failed") : CZK_EXIT_OK;
out:
    czk_engine_destroy(e);
    czk_cli_out_drop(&of);
    czk_job_result_free(&res);
    free(env);
    czk_cli_c1_free(&in);
    czk_tl_free(&r.tl);
    free(r.parts);
    free(r.pending);
    pthread_mutex_destroy(&r.mu);
    return rc;
}
