/*
 * `czk prove --c1 FILE --out FILE [...]`: PoRep C2 on a GPU (CUDA backend) or the CPU.
 *
 * The steps, each timed: parse the C1 (raw JSON or cuzk envelope), the
 * vanilla pre-check (with replica_id recomputed when the sector number and
 * miner id are known), the keys (looked up in the parameter cache: the v28
 * Filecoin file first, then czk's test keys; or --params), the partition
 * R1CS (shape cache), the backend (--backend: CUDA with the keys made
 * resident or pinned, or the CPU) and, where the device holds the keys and
 * matrices, the host copies freed (czk_porep_c2_load: ~44 GiB of keys and
 * 8.3 GiB of matrices at 32GiB), all reported as "ready" with the resident
 * set; then per partition the witness (on a thread of its own, made while
 * the previous partition is on the device: czk_porep_c2_prove_ex), the
 * device part (upload, SpMV, NTT, five MSMs), randomization and a pairing
 * check of the new proof against public inputs derived as the chain
 * derives them, one line each. Only verified proofs are written: 192 bytes
 * per partition, partition 0 first.
 */
#include "cli/cli.h"
#include "czk/cuda.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "util/proc.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "prove"

static const char USAGE[] =
    "usage: czk prove --c1 FILE --out FILE [--params FILE | --param-cache DIR]\n"
    "                 [--sector-num N --miner-id N] [--threads T] [--no-shape-cache]\n"
    "                 [--backend auto|cpu|cuda] [--device N] [--witnesses N]\n\n"
    "Proves a PoRep C1 (commit phase 2) on a GPU or the CPU and writes the proofs,\n"
    "192 bytes per partition. Every proof is verified before it is written.\n\n"
    "  --c1 FILE          the C1: SealCommitPhase1Output JSON, or cuzk's envelope\n"
    "                     {\"SectorNum\",\"Phase1Out\",\"SectorSize\"}\n"
    "  --out FILE         where to write the proofs\n"
    "  --params FILE      the .params file to use\n"
    "  --param-cache DIR  where to look for it (default $FIL_PROOFS_PARAMETER_CACHE,\n"
    "                     else /var/tmp/filecoin-proof-parameters): Filecoin's v28\n"
    "                     file name first, then czk's test keys (czk setup)\n"
    "  --sector-num N     the sector number (an envelope carries it)\n"
    "  --miner-id N       the miner actor id (N of f0N); with the sector number,\n"
    "                     replica_id is recomputed and checked\n"
    "  --threads T        threads (default: all CPUs)\n"
    "  --no-shape-cache   record the circuit instead of using $CZK_CACHE_DIR/shapes\n"
    "  --backend B        cuda (the GPU; keys made resident in its memory when they\n"
    "                     fit, else pinned and streamed), cpu, or auto (default: cuda\n"
    "                     when this czk has it and a GPU is present, else cpu)\n"
    "  --device N         the CUDA device (default 0)\n"
    "  --witnesses N      witness buffers: 2 (default) makes the next partition's\n"
    "                     witness while one is on the device; 1 one after another\n\n"
    "Prints the keys used, the time to be ready (keys read, shape, device upload),\n"
    "one line per partition and the time of each phase. exit status: 0 proved,\n"
    "1 the C1 is refused (parse or pre-check; the reason is printed), 2 usage,\n"
    "I/O or other error\n";

static const char *trust_name(czk_params_trust t) {
    return t == CZK_TRUST_STAMP   ? "stamp of an earlier full check"
           : t == CZK_TRUST_KNOWN ? "published v28 digest"
                                  : "every point checked now";
}

/* Writes n bytes to path through a temporary file and a rename. */
static int write_out(const char *path, const uint8_t *b, size_t n) {
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return czk_cli_fail(CMD, "--out path too long");
    FILE *f = fopen(tmp, "wb");
    if (!f) return czk_cli_fail(CMD, "cannot create %s: %s", tmp, strerror(errno));
    bool ok = fwrite(b, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path)) {
        int e = errno;
        unlink(tmp);
        return czk_cli_fail(CMD, "cannot write %s: %s", path, strerror(e));
    }
    return CZK_EXIT_OK;
}

static void row(const char *name, double s) {
    printf("  %-32s %9.3f\n", name, s);
}

static double gib(uint64_t b) {
    return (double)b / (double)(1ull << 30);
}

static void partition_line(void *ctx, const czk_porep_partition_report *r) {
    (void)ctx;
    const czk_prove_timings *t = &r->p;
    printf("partition %u/%u: witness %.3f s (device waited %.3f s); upload %.3f, SpMV %.3f, NTT "
           "%.3f, MSM h %.3f l %.3f a %.3f b_g1 %.3f b_g2 %.3f, assemble %.3f, device+finalize "
           "%.3f; verify %.3f; at %.3f s\n",
           r->k + 1, r->partitions, r->witness, r->witness_wait, t->upload, t->spmv, t->ntt,
           t->msm_h, t->msm_l, t->msm_a, t->msm_b1, t->msm_b2, t->assemble, t->total, r->verify,
           r->wall);
    fflush(stdout);
}

int czk_cmd_prove(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    enum {
        O_C1 = 256,
        O_OUT,
        O_PARAMS,
        O_CACHE,
        O_SECTOR,
        O_MINER,
        O_THREADS,
        O_NO_SHAPE_CACHE,
        O_BACKEND,
        O_DEVICE,
        O_WITNESSES
    };
    static const struct option LONG[] = {{"c1", required_argument, NULL, O_C1},
                                         {"out", required_argument, NULL, O_OUT},
                                         {"params", required_argument, NULL, O_PARAMS},
                                         {"param-cache", required_argument, NULL, O_CACHE},
                                         {"sector-num", required_argument, NULL, O_SECTOR},
                                         {"miner-id", required_argument, NULL, O_MINER},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"no-shape-cache", no_argument, NULL, O_NO_SHAPE_CACHE},
                                         {"backend", required_argument, NULL, O_BACKEND},
                                         {"device", required_argument, NULL, O_DEVICE},
                                         {"witnesses", required_argument, NULL, O_WITNESSES},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *c1_path = NULL, *out_path = NULL, *params_arg = NULL, *cache_arg = NULL;
    uint64_t sector = 0, miner = 0, threads = 0, device = 0, witnesses = 2;
    const char *backend_arg = "auto";
    bool have_sector = false, have_miner = false, use_shape_cache = true;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        uint64_t n;
        switch (ch) {
        case O_C1:
            c1_path = v;
            break;
        case O_OUT:
            out_path = v;
            break;
        case O_PARAMS:
            params_arg = v;
            break;
        case O_CACHE:
            cache_arg = v;
            break;
        case O_NO_SHAPE_CACHE:
            use_shape_cache = false;
            break;
        case O_BACKEND:
            if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "cuda"))
                return czk_cli_fail(CMD, "--backend takes auto, cpu or cuda, not '%s'", v);
            backend_arg = v;
            break;
        case O_DEVICE:
            if (!czk_cli_parse_u64(v, &device) || device > 1023)
                return czk_cli_fail(CMD, "--device takes a CUDA device number, not '%s'", v);
            break;
        case O_WITNESSES:
            if (!czk_cli_parse_u64(v, &witnesses) || witnesses < 1 || witnesses > 8)
                return czk_cli_fail(CMD, "--witnesses takes 1 to 8, not '%s'", v);
            break;
        case O_SECTOR:
        case O_MINER:
        case O_THREADS:
            if (!czk_cli_parse_u64(v, &n))
                return czk_cli_fail(CMD, "--%s takes a number, not '%s'",
                                    ch == O_SECTOR  ? "sector-num"
                                    : ch == O_MINER ? "miner-id"
                                                    : "threads",
                                    v);
            if (ch == O_SECTOR) {
                sector = n;
                have_sector = true;
            } else if (ch == O_MINER) {
                miner = n;
                have_miner = true;
            } else if (n > 4096) {
                return czk_cli_fail(CMD, "--threads %llu is too many", (unsigned long long)n);
            } else {
                threads = n;
            }
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
    if (!c1_path || !out_path) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--c1 and --out are required");
    }
    if (params_arg && cache_arg)
        return czk_cli_fail(CMD, "--params and --param-cache exclude each other");
    bool use_cuda = !strcmp(backend_arg, "cuda") ||
                    (!strcmp(backend_arg, "auto") && czk_cuda_device_count() > 0);
    if (use_cuda && (int)device >= czk_cuda_device_count()) {
        return czk_cli_fail(CMD, "--backend cuda: %s",
                            !czk_cuda_built()              ? "this czk was built without CUDA"
                            : czk_cuda_device_count() == 0 ? "no CUDA device (no GPU or no driver)"
                                                           : "--device is not a CUDA device here");
    }

    double t_start = czk_cli_now(), t0;
    int rc = CZK_EXIT_ERROR;
    czk_err err;
    czk_status st;
    uint8_t *buf = NULL, *proofs = NULL;
    size_t len = 0;
    czk_c1 *c1 = NULL;
    czk_pool *pool = NULL;
    czk_params *params = NULL;
    czk_pvk *pvk = NULL;
    czk_shape *shape = NULL;
    czk_porep_graph *graph = NULL;
    czk_backend be = {0};

    if ((rc = czk_cli_read_c1(CMD, c1_path, &buf, &len))) return rc;
    rc = CZK_EXIT_ERROR;
    t0 = czk_cli_now();
    bool env = false;
    uint64_t env_sector = 0;
    st = czk_cli_parse_c1(&c1, &env, &env_sector, buf, len, &err);
    double t_parse = czk_cli_now() - t0;
    free(buf);
    if (st) {
        fprintf(stderr, "czk %s: %s: refused: %s\n", CMD, c1_path, err.msg);
        return st == CZK_ERR_NOMEM ? CZK_EXIT_ERROR : CZK_EXIT_NO;
    }
    if (env) {
        if (have_sector && sector != env_sector) {
            fprintf(stderr,
                    "czk %s: %s: refused: the envelope's SectorNum %llu is not --sector-num %llu\n",
                    CMD, c1_path, (unsigned long long)env_sector, (unsigned long long)sector);
            rc = CZK_EXIT_NO;
            goto out;
        }
        sector = env_sector;
        have_sector = true;
    }
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("c1: %s: %s C1 of %s (registered proof %u), %s sector, %u partition%s x %u challenges\n",
           c1_path, env ? "enveloped" : "raw", czk_registered_proof_name(c1->registered_proof),
           c1->registered_proof, pr.shape->name, c1->num_partitions,
           c1->num_partitions == 1 ? "" : "s", c1->challenges_per_partition);
    fflush(stdout);

    if (!(pool = czk_pool_create((unsigned)threads, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }

    /* pre-check, and the replica_id the public inputs use */
    t0 = czk_cli_now();
    if ((st = czk_c1_graph(&graph, c1, pool, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    double t_graph = czk_cli_now() - t0;
    bool ids = have_sector && have_miner;
    czk_precheck_opts po = {
        .have_ids = ids, .sector_num = sector, .miner_id = miner, .graph = graph};
    t0 = czk_cli_now();
    st = czk_c1_precheck(c1, &po, pool, &err);
    double t_precheck = czk_cli_now() - t0;
    if (st) {
        fprintf(stderr, "czk %s: %s: refused at pre-check: %s\n", CMD, c1_path, err.msg);
        rc = st == CZK_ERR_NOMEM || st == CZK_ERR_INTERNAL ? CZK_EXIT_ERROR : CZK_EXIT_NO;
        goto out;
    }
    uint8_t replica_id[32];
    memcpy(replica_id, c1->replica_id.b, 32);
    if (ids) {
        printf(
            "pre-check: %u vanilla proofs verified; replica_id matches miner f0%llu, sector %llu\n",
            c1->num_partitions * c1->challenges_per_partition, (unsigned long long)miner,
            (unsigned long long)sector);
    } else {
        printf("pre-check: %u vanilla proofs verified; replica_id NOT checked (needs --sector-num "
               "and --miner-id): the C1's own is used\n",
               c1->num_partitions * c1->challenges_per_partition);
    }

    /* keys */
    char ppath[PATH_MAX];
    czk_porep_key_kind kind = CZK_POREP_KEY_TEST;
    const char *kind_name = "given with --params";
    if (params_arg) {
        snprintf(ppath, sizeof ppath, "%s", params_arg);
    } else {
        char dir[PATH_MAX];
        if (cache_arg)
            snprintf(dir, sizeof dir, "%s", cache_arg);
        else if ((st = czk_porep_param_cache_dir(dir, sizeof dir, &err))) {
            czk_cli_fail(CMD, "%s", err.msg);
            goto out;
        }
        if ((st = czk_porep_find_key(ppath, sizeof ppath, &kind, dir, pr.shape, ".params", &err))) {
            czk_cli_fail(CMD, "%s (czk setup --sector-size %s --out-dir DIR makes test keys)",
                         err.msg, pr.shape->name);
            goto out;
        }
        kind_name = kind == CZK_POREP_KEY_FILECOIN
                        ? "Filecoin v28 parameters"
                        : "czk TEST keys (valid only with their own .vk)";
    }
    czk_cli_progress prog;
    czk_cli_progress_init(&prog, CMD);
    czk_params_read_opts ro = {
        .flags = use_cuda && czk_cuda_params_device_decode() ? CZK_PARAMS_ENCODED : 0,
        .pool = pool,
        .progress = czk_cli_progress_fn,
        .progress_ctx = &prog};
    czk_params_read_info ri;
    t0 = czk_cli_now();
    st = czk_params_read(&params, ppath, &ro, &ri, &err);
    czk_cli_progress_end(&prog);
    double t_params = czk_cli_now() - t0;
    if (st) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("keys: %s (%s)\n      %.2f GB read in %.2f s; subgroup membership: %s%s\n", ppath,
           kind_name, (double)ri.bytes / 1e9, t_params, trust_name(ri.trust),
           params->encoded ? "; encoded (decoded on the GPU)" : "");
    if (!(pvk = malloc(sizeof *pvk)) || czk_pvk_prepare(pvk, &params->vk, &err)) {
        if (!pvk) czk_errf(&err, CZK_ERR_NOMEM, "out of memory");
        free(pvk);
        pvk = NULL;
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }

    /* shape */
    bool recorded = false;
    t0 = czk_cli_now();
    if ((st = czk_porep_shape_load(&shape, &recorded, pr.shape, use_shape_cache, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    double t_shape = czk_cli_now() - t0;
    printf("shape: %llu constraints, %u inputs, %u aux (%s)\n",
           (unsigned long long)shape->num_constraints, shape->num_inputs, shape->num_aux,
           recorded ? "recorded now" : "shape cache");
    if ((st = czk_params_check_shape(params, shape, &err))) {
        czk_cli_fail(CMD, "%s: the keys are not for this circuit: %s", ppath, err.msg);
        goto out;
    }
    fflush(stdout);

    /* the backend: the GPU (keys made resident or pinned) or the CPU */
    czk_porep_c2_load_info li;
    memset(&li, 0, sizeof li);
    if (use_cuda) {
        if ((st = czk_backend_cuda(&be, (int)device, pool, 0, &err))) {
            czk_cli_fail(CMD, "--backend cuda: %s", err.msg);
            goto out;
        }
        if ((st = czk_porep_c2_load(&be, params, shape, &li, &err))) {
            czk_cli_fail(CMD, "device %llu: %s", (unsigned long long)device, err.msg);
            goto out;
        }
        printf("backend: cuda, device %llu: %s (%.3f s)\n", (unsigned long long)device,
               li.no_room        ? "keys stay in host memory and stream (no room on the device)"
               : li.device_bytes ? "keys resident in device memory"
                                 : "keys pinned in host memory and streamed",
               li.seconds);
        if (li.device_bytes)
            printf("         %.2f GiB on the device; host copies freed: %.2f GiB (%s%s%s%s%s%s)\n",
                   gib(li.device_bytes), gib(li.freed_bytes), li.dropped & CZK_SRS_H ? " h" : "",
                   li.dropped & CZK_SRS_L ? " l" : "", li.dropped & CZK_SRS_A ? " a" : "",
                   li.dropped & CZK_SRS_B_G1 ? " b_g1" : "",
                   li.dropped & CZK_SRS_B_G2 ? " b_g2" : "",
                   li.shape_dropped ? ", shape matrices" : ", shape matrices kept (host SpMV)");
    } else if ((st = czk_backend_cpu(&be, pool, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    } else {
        printf("backend: cpu, %u threads\n", czk_pool_threads(pool));
    }
    double t_ready = czk_cli_now() - t_start;
    printf("ready in %.3f s: keys %.3f s (%s), shape %.3f s, device upload %.3f s; resident "
           "set %.2f GiB (peak %.2f GiB)\n",
           t_ready, t_params, trust_name(ri.trust), t_shape, li.seconds,
           gib(czk_proc_status_bytes(0, "VmRSS")), gib(czk_cli_peak_rss()));
    fflush(stdout);
    size_t nbytes = (size_t)c1->num_partitions * CZK_PROOF_BYTES;
    if (!(proofs = malloc(nbytes))) {
        czk_cli_fail(CMD, "out of memory");
        goto out;
    }
    czk_porep_c2_timings tm;
    memset(&tm, 0, sizeof tm);
    czk_porep_c2_opts copts = {.witnesses = (unsigned)witnesses, .on_partition = partition_line};
    double t_prove = czk_cli_now();
    st = czk_porep_c2_prove_ex(proofs, c1, replica_id, graph, params, pvk, shape, &be, pool, &copts,
                               &tm, &err);
    t_prove = czk_cli_now() - t_prove;
    if (st) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if ((rc = write_out(out_path, proofs, nbytes))) goto out;

    printf("phase                           seconds\n");
    row("parse C1", t_parse);
    row("graph", t_graph);
    row("pre-check", t_precheck);
    row("read params", t_params);
    row("shape", t_shape);
    row("device upload", li.seconds);
    row("ready", t_ready);
    row("public inputs", tm.inputs);
    row("witness (its own thread)", tm.p.witness);
    row("  device waited for witnesses", tm.witness_wait);
    row("upload (witness)", tm.p.upload);
    row("SpMV (a, b, c)", tm.p.spmv);
    row("NTT (H)", tm.p.ntt);
    row("MSM h (G1)", tm.p.msm_h);
    row("MSM l (G1)", tm.p.msm_l);
    row("MSM a (G1)", tm.p.msm_a);
    row("MSM b_g1 (G1)", tm.p.msm_b1);
    row("MSM b_g2 (G2)", tm.p.msm_b2);
    row("assemble (r, s)", tm.p.assemble);
    row("verify", tm.verify);
    row("proving (all partitions, wall)", t_prove);
    row("total", czk_cli_now() - t_start);
    printf("per partition: %.3f s wall (%u partition%s, %u witness buffer%s%s)\n",
           c1->num_partitions ? t_prove / c1->num_partitions : 0.0, c1->num_partitions,
           c1->num_partitions == 1 ? "" : "s", tm.witness_buffers,
           tm.witness_buffers == 1 ? "" : "s", tm.witness_buffers_pinned ? ", page-locked" : "");
    printf("peak RSS: %.1f MiB; threads: %u\n", (double)czk_cli_peak_rss() / (1 << 20),
           czk_pool_threads(pool));
    printf("wrote %s: %zu bytes, %u partition proof%s, each verified\n", out_path, nbytes,
           c1->num_partitions, c1->num_partitions == 1 ? "" : "s");
    rc = fflush(stdout) ? czk_cli_fail(CMD, "writing the output failed") : CZK_EXIT_OK;
out:
    czk_backend_release(&be);
    free(proofs);
    czk_porep_graph_destroy(graph);
    czk_shape_free(shape);
    if (pvk) {
        czk_pvk_free(pvk);
        free(pvk);
    }
    czk_params_free(params);
    czk_pool_destroy(pool);
    czk_c1_free(c1);
    return rc;
}
