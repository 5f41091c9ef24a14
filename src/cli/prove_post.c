/*
 * `czk prove --kind window-post|winning-post|snap --request FILE --out FILE`:
 * a PoSt partition or a SnapDeals update proved through the engine in this
 * process, as `czk prove` proves a PoRep C1 (the same engine, stages and
 * backend choice; only the request differs) and as the daemon proves
 * Curio's WINDOW_POST_PARTITION, WINNING_POST and SNAP_DEALS_UPDATE
 * requests.
 *
 * The output is checked first; the request file is read (post_args.c) and
 * its vanilla proofs parsed against the shape (PoSt: their sector ids and
 * comm_r held to the request's); an engine is made from the command line
 * (gpus.backend and gpus.devices from --backend/--device, synthesis.threads
 * and gpus.gpu_threads from --threads, srs.param_cache from --param-cache,
 * or from the folder of --params, which must be the file the key search
 * finds there, since the engine finds keys by name) and the PoSt and
 * SnapDeals kinds registered (czk_kinds_register_post,
 * czk_kinds_register_snap; with --no-shape-cache czk_kind_post and
 * czk_kind_snap without a shape cache, so every load records the shape). The
 * request goes in as Curio sends it; the kind's intake parses every blob and
 * pre-checks it, so one bad sector (PoSt) or partition (SnapDeals: partition
 * and challenge) refuses the request naming it (exit 1) before any key is
 * read. Then the circuit is loaded (keys on the key search path: Filecoin's
 * v28 file or czk's test keys; the shape from the shape cache), the
 * partitions are synthesized, proved and each verified against its public
 * inputs before they are handed out; only verified proofs are written: 192
 * bytes per partition (SnapDeals 32GiB: 16 × 192), in partition order.
 */
#include "cli/cli.h"
#include "czk/cuda.h"
#include "czk/engine.h"
#include "czk/kinds.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "prove"
#define JOB_ID "czk-prove-request"

static const char USAGE[] =
    "usage: czk prove --kind window-post|winning-post|snap --request FILE --out FILE\n"
    "                 [--params FILE | --param-cache DIR] [--threads T]\n"
    "                 [--no-shape-cache] [--backend auto|cpu|cuda] [--device N]\n\n"
    "Proves one PoSt partition (WindowPoSt), a WinningPoSt or a SnapDeals update\n"
    "(every partition) through the proving engine in this process and writes the\n"
    "proof, verified first: 192 bytes per partition, in partition order.\n\n"
    "  --kind KIND        window-post, winning-post or snap (the request's own kind)\n"
    "  --request FILE     the request: PoSt (czk gen-vanilla --post writes it):\n"
    "                     kind, registered_proof, miner_id, randomness (a canonical\n"
    "                     Fr), partition_index, the sectors and their vanilla\n"
    "                     proofs (bincode FallbackPoStSectorProof files or base64);\n"
    "                     snap (czk gen-vanilla --snap --out-dir writes update.json):\n"
    "                     registered_proof (RegisteredUpdateProof 0-4), miner_id,\n"
    "                     sector_number, comm_r_old, comm_d_new, comm_r_new and one\n"
    "                     bincode PartitionProof per partition\n"
    "  --out FILE         where to write the proof (checked before any work starts)\n"
    "  --params FILE      the .params file to use: the engine finds keys by name,\n"
    "                     so FILE must be named as the key search below names it\n"
    "                     (its .vk beside it); its folder is searched first\n"
    "  --param-cache DIR  where the keys are (default $FIL_PROOFS_PARAMETER_CACHE,\n"
    "                     else /var/tmp/filecoin-proof-parameters, then czk's test\n"
    "                     keys): Filecoin's v28 file name first, then czk's test keys\n"
    "                     (czk setup --kind)\n"
    "  --threads T        threads (default: all CPUs)\n"
    "  --no-shape-cache   record the circuit instead of using $CZK_CACHE_DIR/shapes\n"

    "  --backend B        cuda, cpu, or auto (default: cuda when this czk has it and\n"
    "                     a GPU is present, else cpu)\n"
    "  --device N         the CUDA device (default 0)\n\n"
    "exit status: 0 proved, 1 the request is refused (a bad field, or a vanilla\n"
    "proof fails the pre-check: the sector, or the partition and challenge, is\n"
    "named), 2 usage, I/O or other error\n";

static void on_log(void *ctx, const char *level, const char *line) {
    (void)ctx;
    if (!strcmp(level, "warn")) fprintf(stderr, "czk %s: engine: %s\n", CMD, line);
}

/* "job czk-prove-request: payload refused by kind window-post: window-post: X" -> "X" (and
 * the same for snap-update). */
static const char *reason(const char *msg, const char *kind) {
    char tag[40];
    snprintf(tag, sizeof tag, "%s: ", kind);
    size_t n = strlen(tag);
    const char *p = strstr(msg, tag);
    while (p && strstr(p + n, tag))
        p = strstr(p + n, tag);
    return p ? p + n : msg;
}

/* The request in one line: "2KiB WindowPoSt, registered proof 5 (API 1.0), partition 1, 2
 * sectors: 7 9" / "2KiB SnapDeals update, registered update proof 0, miner 1000, sector 12,
 * 1 partition". */
static void print_request(const char *path, const czk_cli_post_req *r) {
    if (r->snap) {
        printf("request: %s: %s SnapDeals update, registered update proof %d, miner %llu, sector "
               "%llu, %u partition%s\n",
               path, r->snap->name, r->snap->registered_proof, (unsigned long long)r->miner_id,
               (unsigned long long)r->sector_number, r->snap->partitions,
               r->snap->partitions == 1 ? "" : "s");
        return;
    }
    printf("request: %s: %s %s, registered proof %llu (API %s), partition %u, %zu sector%s:", path,
           r->proof.shape->name, czk_cli_req_title(r), (unsigned long long)r->proof.id,
           r->proof.api == CZK_POST_API_1_2 ? "1.2" : "1.0", r->partition_index, r->n,
           r->n == 1 ? "" : "s");
    for (size_t i = 0; i < r->n && i < 16; i++)
        printf(" %llu", (unsigned long long)r->sectors[i].sector_id);
    printf("%s\n", r->n > 16 ? " ..." : "");
}

/* The PoSt and SnapDeals kinds, with the engine's shape cache or (!shape_cache) none. */
static czk_status register_kinds(czk_engine *e, bool shape_cache, czk_err *err) {
    if (shape_cache) {
        czk_status st = czk_kinds_register_post(e, err);
        return st ? st : czk_kinds_register_snap(e, err);
    }
    static const czk_kind_id POST[2] = {CZK_KIND_WINNING_POST, CZK_KIND_WINDOW_POST};
    for (int i = 0; i < 3; i++) {
        czk_proof_kind k;
        czk_status st =
            i < 2 ? czk_kind_post(&k, POST[i], NULL, err) : czk_kind_snap(&k, NULL, err);
        if (st) return st;
        if ((st = czk_engine_register_kind(e, &k, err))) {
            if (k.destroy) k.destroy(k.ctx); /* not taken */
            return st;
        }
    }
    return CZK_OK;
}

int czk_cmd_prove_post(int argc, char **argv) {
    enum {
        O_KIND = 256,
        O_REQUEST,
        O_OUT,
        O_PARAMS,
        O_CACHE,
        O_THREADS,
        O_NO_SHAPE_CACHE,
        O_BACKEND,
        O_DEVICE
    };
    static const struct option LONG[] = {{"kind", required_argument, NULL, O_KIND},
                                         {"request", required_argument, NULL, O_REQUEST},
                                         {"out", required_argument, NULL, O_OUT},
                                         {"params", required_argument, NULL, O_PARAMS},
                                         {"param-cache", required_argument, NULL, O_CACHE},
                                         {"no-shape-cache", no_argument, NULL, O_NO_SHAPE_CACHE},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"backend", required_argument, NULL, O_BACKEND},
                                         {"device", required_argument, NULL, O_DEVICE},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *req_path = NULL, *out_path = NULL, *cache = NULL, *params = NULL,
               *backend_arg = "auto";
    bool shape_cache = true;
    czk_kind_id kind = CZK_KIND_UNSPECIFIED;
    uint64_t threads = 0, device = 0;
    optind = 0;
    opterr = 0;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        switch (ch) {
        case O_KIND:
            if (!czk_cli_req_kind_parse(v, &kind))
                return czk_cli_fail(CMD,
                                    "--kind takes porep (with --c1), window-post, winning-post or "
                                    "snap, not '%s'",
                                    v);
            break;
        case O_REQUEST:
            req_path = v;
            break;
        case O_OUT:
            out_path = v;
            break;
        case O_PARAMS:
            params = v;
            break;
        case O_CACHE:
            cache = v;
            break;
        case O_NO_SHAPE_CACHE:
            shape_cache = false;
            break;
        case O_THREADS:
            if (!czk_cli_parse_u64(v, &threads) || threads > 4096)
                return czk_cli_fail(CMD, "--threads takes a number up to 4096, not '%s'", v);
            break;
        case O_BACKEND:
            if (czk_cli_backend_arg(CMD, v, &backend_arg)) return CZK_EXIT_ERROR;
            break;
        case O_DEVICE:
            if (czk_cli_device_arg(CMD, v, &device)) return CZK_EXIT_ERROR;
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
    if (!req_path || !out_path) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--request and --out are required");
    }
    if (params && cache) return czk_cli_fail(CMD, "--params and --param-cache exclude each other");
    char pdir[PATH_MAX];
    if (params) { /* its folder is searched first; the file itself is checked below */
        const char *slash = strrchr(params, '/');
        int len = !slash ? snprintf(pdir, sizeof pdir, ".")
                         : snprintf(pdir, sizeof pdir, "%.*s",
                                    slash == params ? 1 : (int)(slash - params), params);
        if (len < 0 || len >= (int)sizeof pdir) return czk_cli_fail(CMD, "--params path too long");
        if (access(params, R_OK)) return czk_cli_fail(CMD, "--params %s: cannot be read", params);
        cache = pdir;
    }
    bool use_cuda;
    if (czk_cli_backend_pick(CMD, backend_arg, device, &use_cuda)) return CZK_EXIT_ERROR;

    /* the output first: no proof is made for a path that cannot be written */
    czk_cli_out of;
    if ((rc = czk_cli_out_open(&of, CMD, out_path, "proved"))) return rc;
    czk_cli_post_req r;
    if ((rc = czk_cli_post_req_read(&r, CMD, req_path, CZK_CLI_POST_BLOBS, CZK_EXIT_NO))) {
        czk_cli_out_drop(&of);
        return rc;
    }
    rc = CZK_EXIT_ERROR;
    czk_engine *e = NULL;
    czk_job_result res;
    memset(&res, 0, sizeof res);
    czk_err err;
    czk_status st;
    double t_start = czk_cli_now();
    const char *title = czk_cli_req_title(&r);
    unsigned parts = czk_cli_req_partitions(&r);
    if (kind && kind != r.kind) {
        czk_cli_fail(CMD, "%s: a %s request, not --kind %s", req_path,
                     czk_cli_req_kind_name(r.kind), czk_cli_req_kind_name(kind));
        goto out;
    }
    print_request(req_path, &r);
    if (params) { /* the engine loads the key file the search finds: it must be this one */
        char found[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
        const char *fname = "";
        if (czk_cli_req_key(found, sizeof found, &fname, NULL, cache, ".params", &r, &err)) {
            czk_cli_fail(CMD, "--params %s: the engine finds keys by name: %s", params, err.msg);
            goto out;
        }
        if (!realpath(found, a) || !realpath(params, b) || strcmp(a, b)) {
            czk_cli_fail(CMD,
                         "--params %s: the engine finds keys by name, and the search for this "
                         "request's finds %s (%s), not that file",
                         params, found, fname);
            goto out;
        }
    }

    czk_engine_opts eo;
    czk_engine_opts_default(&eo);
    czk_engine_config *c = &eo.config;
    czk_engine_config_default(c);
    snprintf(c->backend, sizeof c->backend, "%s", use_cuda ? "cuda" : "cpu");
    if (use_cuda) {
        c->devices[0] = (int)device;
        c->num_devices = 1;
    }
    c->threads = c->gpu_threads = (unsigned)threads;
    if (parts == 1) { /* PoSt, SnapDeals 2KiB: one partition */
        c->partition_workers = 1;
        c->gpu_workers_per_device = 1;
        c->max_gpu_queue_depth = 1;
    } else { /* as czk prove for PoRep: half the CPUs (2..18, at most 4 and one GPU worker on
                the GPU) make witnesses while the device proves, at most one per partition (each
                holds a whole witness: 2.6 GB at 32GiB) */
        c->partition_workers = czk_cli_witness_workers(use_cuda, parts);
        if (use_cuda) c->gpu_workers_per_device = 1;
    }
    snprintf(c->log_level, sizeof c->log_level, "warn");
    /* the keys where czk prove and czk setup look (not the daemon's /data/zk/params) */
    if (cache && snprintf(c->param_cache, sizeof c->param_cache, "%s", cache) >=
                     (int)sizeof c->param_cache) {
        czk_cli_fail(CMD, "--param-cache path too long");
        goto out;
    }
    if (!cache && czk_param_cache_dir(c->param_cache, sizeof c->param_cache, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    eo.gpu = &czk_cuda_provider; /* BACKEND REGISTRATION (composition root): --backend cuda */
    eo.log = on_log;
    if ((st = czk_engine_create(&e, &eo, &err)) || /* KIND REGISTRATION: PoSt and SnapDeals */
        (st = register_kinds(e, shape_cache, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (!shape_cache) printf("shape: recorded at load (--no-shape-cache)\n");

    /* intake: the kind parses every blob and pre-checks the partition */
    czk_proof_request req;
    czk_cli_post_request(&req, &r);
    req.request_id = JOB_ID;
    char job[CZK_JOB_ID_MAX];
    double t0 = czk_cli_now();
    if ((st = czk_engine_submit(e, &req, job, NULL, &err))) {
        if (st != CZK_ERR_NOMEM && st != CZK_ERR_INTERNAL && st != CZK_ERR_IO) {
            char kname[CZK_KIND_NAME_MAX] = "";
            czk_err ke;
            if (czk_engine_kind_served(e, r.kind, kname, &ke)) kname[0] = 0;
            fprintf(stderr, "czk %s: %s: refused at pre-check: %s\n", CMD, req_path,
                    kname[0] ? reason(err.msg, kname) : err.msg);
            rc = CZK_EXIT_NO;
        } else {
            czk_cli_fail(CMD, "%s", err.msg);
        }
        goto out;
    }
    double t_intake = czk_cli_now() - t0;
    czk_job_info ji;
    if ((st = czk_engine_job_info(e, job, &ji, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("pre-check: %zu vanilla proof%s verified (%.3f s); circuit %s, %u partition%s\n", r.n,
           r.n == 1 ? "" : "s", t_intake, ji.circuit_id, ji.partitions,
           ji.partitions == 1 ? "" : "s");

    /* ready: keys and shape */
    char kpath[PATH_MAX];
    const char *kname = "";
    if (czk_cli_req_key(kpath, sizeof kpath, &kname, NULL, c->param_cache, ".params", &r, &err)) {
        czk_cli_fail(CMD,
                     "%s (czk setup --kind %s --sector-size %s makes test keys where this "
                     "command looks)",
                     err.msg, czk_cli_req_kind_name(r.kind), czk_cli_req_size_name(&r));
        goto out;
    }
    uint64_t load_ms = 0;
    if ((st = czk_engine_preload(e, ji.circuit_id, true, NULL, &load_ms, &err))) {
        czk_cli_fail(CMD, "%s: %s", kpath, err.msg);
        goto out;
    }
    printf("keys: %s (%s), ready in %.3f s\n", kpath, kname, (double)load_ms / 1e3);
    if ((st = czk_engine_await(e, job, -1, &res, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (res.state != CZK_JOB_COMPLETED) {
        bool refused = res.state == CZK_JOB_FAILED && res.error_code != CZK_ERR_NOMEM &&
                       res.error_code != CZK_ERR_INTERNAL && res.error_code != CZK_ERR_VERIFY &&
                       res.error_code != CZK_ERR_DEVICE && res.error_code != CZK_ERR_IO &&
                       ji.partitions == 0;
        fprintf(stderr, "czk %s: %s: %s: %s\n", CMD, req_path, refused ? "refused" : "failed",
                res.state == CZK_JOB_FAILED ? res.error : czk_job_state_name(res.state));
        rc = refused ? CZK_EXIT_NO : CZK_EXIT_ERROR;
        goto out;
    }
    if (res.proof_len != (size_t)parts * CZK_PROOF_BYTES) {
        czk_cli_fail(CMD, "the engine returned %zu proof bytes, expected %u x %d", res.proof_len,
                     parts, CZK_PROOF_BYTES);
        goto out;
    }
    if ((rc = czk_cli_out_commit(&of, res.proof, res.proof_len))) goto out;
    printf("proved: synthesis %.3f s, device %.3f s, total %.3f s (job %.3f s); backend %s%s%s%s; "
           "peak RSS %.0f MiB\n",
           (double)res.synthesis_ms / 1e3, (double)res.gpu_compute_ms / 1e3,
           czk_cli_now() - t_start, (double)res.total_ms / 1e3, use_cuda ? "cuda" : "cpu",
           use_cuda ? "" : " (", use_cuda ? "" : czk_cli_cpu_reason(backend_arg),
           use_cuda ? "" : ")", (double)czk_cli_peak_rss() / (1 << 20));
    if (parts > 1)
        printf("per partition: synthesis %.3f s, device %.3f s (%u partitions)\n",
               (double)res.synthesis_ms / 1e3 / parts, (double)res.gpu_compute_ms / 1e3 / parts,
               parts);
    if (r.snap)
        printf("wrote %s: %u x %d bytes, each partition verified against the %s public inputs\n",
               out_path, parts, CZK_PROOF_BYTES, title);
    else
        printf("wrote %s: %d bytes, verified against the %s public inputs (partition %u)\n",
               out_path, CZK_PROOF_BYTES, title, r.partition_index);
    rc = fflush(stdout) ? czk_cli_fail(CMD, "writing the output failed") : CZK_EXIT_OK;
out:
    czk_engine_destroy(e);
    czk_cli_out_drop(&of);
    czk_job_result_free(&res);
    czk_cli_post_req_free(&r);
    return rc;
}
