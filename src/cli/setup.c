/*
 * `czk setup`: Groth16 test keys.
 *
 *   czk setup --sector-size SIZE [--registered-proof ID] [--out-dir DIR]
 *             [--seed N] [--threads T] [--backend auto|cpu|cuda] [--device N]
 *             [--force] [--no-shape-cache]
 *       keys for one PoRep partition of a sector size: the shape comes from
 *       the shape cache (or is recorded), the files are named
 *       czk_porep_test_key_name() ("czk-test-v28-stacked-proof-of-
 *       replication-8-0-0-2KiB.params" / ".vk") so that they cannot be taken
 *       for Filecoin's ceremony files, in DIR (default: czk's test keys,
 *       czk_cache_dir("test-keys"), which every command and the daemon
 *       search: keys.h). Existing keys whose .vk fits the shape are kept
 *       unless --force.
 *   czk setup --kind window-post|winning-post --sector-size SIZE [--registered-proof ID]
 *             [--out-dir DIR] [...]
 *       keys for the PoSt circuit (one WindowPoSt partition, or WinningPoSt)
 *       of a sector size (its shape through the shape cache,
 *       czk_post_shape_load_in), named
 *       czk_post_key_names() ("czk-test-v28-proof-of-spacetime-fallback-
 *       window-8-0-0-2KiB.params" / ".vk"), in DIR as above.
 *   czk setup --kind snap --sector-size SIZE [--registered-proof ID] [...]
 *       keys for one SnapDeals update partition (every partition shares the
 *       circuit; its shape through the shape cache, czk_snap_shape_load_in),
 *       named czk_snap_key_names() ("czk-test-v28-empty-sector-update-
 *       8-8-0-32GiB.params" / ".vk"), in DIR as above.
 *   czk setup --shape FILE --out PREFIX [--seed N] [--threads T] [--backend B] [--device N]
 *       keys for a recorded shape (a czk_shape_write file): PREFIX.params
 *       and PREFIX.vk.
 *
 * Both stream the .params file (czk_setup_write: bellperson's layout,
 * vector by vector, never the whole file in memory) and stamp it: its
 * points are multiples of the generators, so the first read can skip the
 * subgroup pass. The fixed-base products run on the GPU (--backend cuda;
 * auto picks it when this czk has CUDA and a GPU is present) or on the
 * CPU; both give the same files byte for byte. With --seed the toxic waste
 * comes from a seeded generator, so the same seed and shape give the same
 * files; without it, from getrandom. The keys are for tests: whoever knows
 * the seed can forge proofs. With --lagrange the Lagrange form of the H
 * and L queries (groth16.h, czk_params_lagrange) is made from the same
 * toxic waste on the same backend and written beside the .params as
 * czk_params_lagrange_file_name() names it, where the engine finds it.
 * The phases are printed as they end, with the
 * peak RSS at the end; inside them, the progress of each vector's points on
 * stderr (a redrawn line on a terminal, else a line per 10 points).
 */
#include "cli/cli.h"
#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/keys.h"
#include "czk/porep_prove.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CMD "setup"

static const char USAGE[] =
    "usage: czk setup [--kind KIND] --sector-size SIZE [--registered-proof ID]\n"
    "                 [--out-dir DIR] [--seed N] [--threads T]\n"
    "                 [--backend auto|cpu|cuda] [--device N] [--force] [--no-shape-cache]\n"
    "                 [--lagrange]\n"
    "       czk setup --shape FILE --out PREFIX [--seed N] [--threads T]\n"
    "                 [--backend auto|cpu|cuda] [--device N]\n\n"
    "Writes Groth16 TEST keys (.params and .vk; whoever knows the toxic waste can\n"
    "forge proofs with them) and stamps the .params file as checked.\n\n"
    "  --sector-size SIZE     PoRep keys for one partition: 2KiB, 8MiB, 512MiB,\n"
    "                         32GiB, 64GiB (or bytes), named\n"
    "                         czk-test-v28-stacked-proof-of-replication-<tree>-<size>\n"
    "  --kind KIND            porep (the default), window-post (one WindowPoSt\n"
    "                         partition), winning-post or snap (one SnapDeals update\n"
    "                         partition): PoSt keys are named\n"
    "                         czk-test-v28-proof-of-spacetime-fallback-<window|winning>-\n"
    "                         <tree>-<size>, SnapDeals keys\n"
    "                         czk-test-v28-empty-sector-update-<tree>-<size>\n"
    "  --registered-proof ID  RegisteredSealProof id 0..19, or with a PoSt kind\n"
    "                         RegisteredPoStProof 0..4 (winning), 5..14 (window), with\n"
    "                         snap RegisteredUpdateProof 0..4 (picks the size)\n"
    "  --out-dir DIR          where to write them (default: czk's test keys,\n"
    "                         $CZK_CACHE_DIR/test-keys, else ~/.cache/czk/test-keys,\n"
    "                         where czk prove, verify, bench and daemon also look)\n"
    "  --force                remake keys that exist\n"
    "  --no-shape-cache       record the circuit instead of using the shape cache\n"
    "  --shape FILE           a recorded shape (czk_shape_write)...\n"
    "  --out PREFIX           ...written to PREFIX.params and PREFIX.vk\n"
    "  --seed N               toxic waste from a seeded generator (reproducible files)\n"
    "  --threads T            threads (default: all CPUs)\n"
    "  --backend B            cuda (fixed-base products on the GPU), cpu, or auto\n"
    "                         (default: cuda when this czk has CUDA and a GPU is\n"
    "                         present); the files are the same either way\n"
    "  --device N             the CUDA device (default 0)\n"
    "  --lagrange             also write the Lagrange form of H and L (czk-lagrange-<vk\n"
    "                         digest>.bin beside the .params), from the same toxic\n"
    "                         waste: the prover then skips c and two of H's six NTTs\n";

/* Keys in place: both files exist and the .vk has the shape's input count. */
static bool keys_present(const char *pp, const char *vp, uint32_t inputs) {
    struct stat sb;
    if (stat(pp, &sb) || !S_ISREG(sb.st_mode)) return false;
    czk_vk vk;
    if (czk_vk_read(&vk, vp, NULL)) return false;
    bool ok = vk.ic_len == inputs;
    czk_vk_free(&vk);
    return ok;
}

/* A phase ended: its line on stdout, after the progress line (stderr, a terminal) is erased. */
static void print_phase(void *ctx, const char *phase, double seconds, uint64_t points) {
    czk_cli_progress_end(ctx);
    if (!strcmp(phase, "scalars")) return; /* summed over the vectors: in the final line */
    if (points > 6)
        printf("  %-8s %8.2f s  %11llu points  %7.1f M/s\n", phase, seconds,
               (unsigned long long)points, seconds > 0 ? (double)points / seconds / 1e6 : 0.0);
    else
        printf("  %-8s %8.2f s\n", phase, seconds);
    fflush(stdout);
}

int czk_cmd_setup(int argc, char **argv) {
    enum {
        O_SHAPE = 256,
        O_OUT,
        O_SIZE,
        O_PROOF,
        O_DIR,
        O_SEED,
        O_THREADS,
        O_FORCE,
        O_NO_SHAPE_CACHE,
        O_BACKEND,
        O_DEVICE,
        O_KIND,
        O_LAGRANGE
    };
    static const struct option LONG[] = {{"shape", required_argument, NULL, O_SHAPE},
                                         {"out", required_argument, NULL, O_OUT},
                                         {"sector-size", required_argument, NULL, O_SIZE},
                                         {"registered-proof", required_argument, NULL, O_PROOF},
                                         {"out-dir", required_argument, NULL, O_DIR},
                                         {"seed", required_argument, NULL, O_SEED},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"force", no_argument, NULL, O_FORCE},
                                         {"lagrange", no_argument, NULL, O_LAGRANGE},
                                         {"no-shape-cache", no_argument, NULL, O_NO_SHAPE_CACHE},
                                         {"backend", required_argument, NULL, O_BACKEND},
                                         {"device", required_argument, NULL, O_DEVICE},
                                         {"kind", required_argument, NULL, O_KIND},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *shape_path = NULL, *out = NULL, *size_arg = NULL, *proof_arg = NULL,
               *dir_arg = NULL, *backend_arg = "auto";
    bool seeded = false, force = false, use_shape_cache = true, lagrange = false;
    czk_post_kind post = 0; /* 0: PoRep (or SnapDeals) */
    bool snap = false;
    uint64_t seed = 0, threads = 0, device = 0;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        switch (ch) {
        case O_SHAPE:
            shape_path = v;
            break;
        case O_OUT:
            out = v;
            break;
        case O_SIZE:
            size_arg = v;
            break;
        case O_PROOF:
            proof_arg = v;
            break;
        case O_DIR:
            dir_arg = v;
            break;
        case O_FORCE:
            force = true;
            break;
        case O_LAGRANGE:
            lagrange = true;
            break;
        case O_NO_SHAPE_CACHE:
            use_shape_cache = false;
            break;
        case O_SEED:
            if (!czk_cli_parse_u64(v, &seed))
                return czk_cli_fail(CMD, "--seed takes a number, not '%s'", v);
            seeded = true;
            break;
        case O_THREADS:
            if (!czk_cli_parse_u64(v, &threads) || threads > 4096)
                return czk_cli_fail(CMD, "--threads takes a number, not '%s'", v);
            break;
        case O_BACKEND:
            if (czk_cli_backend_arg(CMD, v, &backend_arg)) return CZK_EXIT_ERROR;
            break;
        case O_DEVICE:
            if (czk_cli_device_arg(CMD, v, &device)) return CZK_EXIT_ERROR;
            break;
        case O_KIND:
            snap = !strcmp(v, "snap");
            if (strcmp(v, "porep") && !snap && !czk_cli_post_kind_parse(v, &post))
                return czk_cli_fail(
                    CMD, "--kind takes porep, window-post, winning-post or snap, not '%s'", v);
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
    bool porep = size_arg || proof_arg;
    if (porep ? (shape_path || out) : (!shape_path || !out || dir_arg || force)) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, porep ? "--shape and --out go without --sector-size"
                                       : "--sector-size (or --registered-proof), or --shape "
                                         "with --out, is required");
    }
    bool use_cuda;
    if (czk_cli_backend_pick(CMD, backend_arg, device, &use_cuda)) return CZK_EXIT_ERROR;
    if ((post || snap) && !porep)
        return czk_cli_fail(CMD, "--kind %s needs --sector-size (or --registered-proof)",
                            snap ? "snap" : czk_cli_post_kind_name(post));
    const czk_porep_shape *ps = NULL;
    const czk_snap_shape *ss = NULL;
    czk_post_proof pp_post;
    if (post) {
        int rc = czk_cli_post_proof_arg(CMD, post, size_arg, proof_arg, &pp_post);
        if (rc) return rc;
    } else if (snap) {
        int rc = czk_cli_snap_proof_arg(CMD, size_arg, proof_arg, false, CZK_EXIT_ERROR, &ss);
        if (rc) return rc;
    } else if (porep) {
        int rc = czk_cli_porep_proof_arg(CMD, size_arg, proof_arg, &ps);
        if (rc) return rc;
    }

    char pp[PATH_MAX], vp[PATH_MAX];
    czk_err err;
    if (porep) {
        char dir[PATH_MAX], name[256];
        if (dir_arg)
            snprintf(dir, sizeof dir, "%s", dir_arg);
        else if (!czk_cache_dir(dir, sizeof dir, "test-keys"))
            return czk_cli_fail(CMD, "neither CZK_CACHE_DIR nor HOME is set: give --out-dir");
        if (post) czk_post_key_names(post, pp_post.shape, NULL, name);
        if (snap && czk_snap_key_names(ss, NULL, name, &err))
            return czk_cli_fail(CMD, "%s", err.msg);
        if ((!post && !snap && czk_porep_test_key_name(name, sizeof name, ps, "", &err)) ||
            snprintf(pp, sizeof pp, "%s/%s.params", dir, name) >= (int)sizeof pp ||
            snprintf(vp, sizeof vp, "%s/%s.vk", dir, name) >= (int)sizeof vp)
            return czk_cli_fail(CMD, "--out-dir too long");
        if (!*dir) return czk_cli_fail(CMD, "--out-dir is empty");
        int rc = czk_cli_mkdir_p(CMD, dir);
        if (rc) return rc;
    } else if (snprintf(pp, sizeof pp, "%s.params", out) >= (int)sizeof pp ||
               snprintf(vp, sizeof vp, "%s.vk", out) >= (int)sizeof vp) {
        return czk_cli_fail(CMD, "--out too long");
    }

    double t0 = czk_cli_now(), t_shape = 0;
    czk_shape *shape = NULL;
    czk_status st;
    bool recorded = false;
    czk_post_config post_cfg;
    const char *size_name = post ? pp_post.shape->name : snap ? ss->name : ps ? ps->name : "";
    const char *circuit = post == CZK_POST_WINDOW ? "WindowPoSt partition"
                          : post                  ? "WinningPoSt"
                          : snap                  ? "SnapDeals update partition"
                                                  : "partition";
    if (porep) /* recording takes a while the first time (a minute for 32GiB): say so first */
        printf("setup: the %s %s circuit's shape (from the shape cache, else recorded now)...\n",
               size_name, circuit);
    char sc[PATH_MAX];
    bool cached = use_shape_cache && czk_cache_dir(sc, sizeof sc, "shapes");
    if (post) {
        czk_post_config_for(&post_cfg, post, pp_post.shape);
        st = czk_post_shape_load_in(&shape, &recorded, post, pp_post.shape, cached ? sc : NULL,
                                    &err);
    } else if (snap)
        st = czk_snap_shape_load_in(&shape, &recorded, ss, cached ? sc : NULL, &err);
    else if (porep)
        st = czk_porep_shape_load(&shape, &recorded, ps, use_shape_cache, &err);
    else
        st = czk_shape_read(&shape, shape_path, &err);
    if (st) return czk_cli_fail(CMD, "%s", err.msg);
    t_shape = czk_cli_now() - t0;
    if (porep && !force && keys_present(pp, vp, shape->num_inputs)) {
        printf("keys: %s and %s exist (TEST keys for %s%s); kept (--force remakes them%s)\n", pp,
               vp, size_name,
               post == CZK_POST_WINDOW ? " WindowPoSt"
               : post                  ? " WinningPoSt"
               : snap                  ? " SnapDeals"
                                       : "",
               lagrange ? ", and --lagrange needs their toxic waste: --force" : "");
        czk_shape_free(shape);
        return CZK_EXIT_OK;
    }
    czk_pool *pool = czk_pool_create((unsigned)threads, &err);
    if (!pool) {
        czk_shape_free(shape);
        return czk_cli_fail(CMD, "%s", err.msg);
    }
    czk_setup_backend be = {0};
    st = use_cuda ? czk_setup_backend_cuda(&be, (int)device, &err)
                  : czk_setup_backend_cpu(&be, pool, &err);
    if (st) {
        czk_shape_free(shape);
        czk_pool_destroy(pool);
        return czk_cli_fail(CMD, "--backend %s: %s", use_cuda ? "cuda" : "cpu", err.msg);
    }
    char what[200];
    if (post)
        snprintf(what, sizeof what, "%s %s circuit (%u sectors x %u challenge%s)",
                 pp_post.shape->name, post == CZK_POST_WINDOW ? "WindowPoSt" : "WinningPoSt",
                 post_cfg.sectors, post_cfg.challenges, post_cfg.challenges == 1 ? "" : "s");
    else if (snap)
        snprintf(what, sizeof what, "%s SnapDeals update partition circuit (%u challenges)",
                 ss->name, ss->challenges);
    else if (porep)
        snprintf(what, sizeof what, "%s partition circuit", ps->name);
    else
        snprintf(what, sizeof what, "%s", shape_path);
    printf("setup: %s, %llu constraints, %u inputs, %u aux (%s); backend %s", what,
           (unsigned long long)shape->num_constraints, shape->num_inputs, shape->num_aux,
           !porep     ? "shape file"
           : recorded ? "recorded now"
                      : "shape cache",
           be.ops->name);
    if (use_cuda) printf(" (device %llu)", (unsigned long long)device);
    printf(", %u threads%s%s%s\n", czk_pool_threads(pool), use_cuda ? "" : " (",
           use_cuda ? "" : czk_cli_cpu_reason(backend_arg), use_cuda ? "" : ")");
    printf("  %-8s %8.2f s\n", "shape", t_shape);
    fflush(stdout);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic toxic;
    bool stamped = false;
    czk_vk vk = {0};
    czk_setup_timings tm = {0};
    czk_cli_progress prog; /* inside the phases: a line on a terminal, else one per 10 % */
    czk_cli_progress_init(&prog, CMD);
    prog.what = "making keys";
    prog.points = true;
    czk_setup_opts so = {
        .phase = print_phase, .phase_ctx = &prog, .timings = &tm, .progress = czk_cli_progress_fn};
    st = czk_toxic_random(&toxic, seeded ? &rng : NULL, &err);
    if (!st) st = czk_setup_write(pp, &vk, &stamped, shape, &toxic, &be, pool, &so, &err);
    czk_cli_progress_end(&prog);
    double t1 = czk_cli_now();
    if (!st) st = czk_vk_write(&vk, vp, &err);
    double t_vk = czk_cli_now() - t1;
    if (!st) {
        uint64_t h = ((uint64_t)1 << czk_domain_log(shape->num_constraints)) - 1;
        printf("  %-8s %8.2f s  (all vectors' scalars)\n", "scalars", tm.scalars);
        printf("wrote %s (h %llu, l %u, a %llu, b %llu)%s\n  and %s (ic %u, %.2f s)\n", pp,
               (unsigned long long)h, shape->num_aux,
               (unsigned long long)(shape->num_inputs + shape->a_aux.popcount),
               (unsigned long long)(shape->b_input.popcount + shape->b_aux.popcount),
               stamped ? ", stamped as checked" : ", NOT stamped", vp, vk.ic_len, t_vk);
    }
    if (!st && lagrange) {
        /* the Lagrange form of H and L from the same toxic waste, beside the keys */
        char lp[PATH_MAX + CZK_LAGRANGE_NAME_MAX], name[CZK_LAGRANGE_NAME_MAX];
        czk_params_lagrange_file_name(name, &vk);
        const char *slash = strrchr(pp, '/');
        int dl = slash ? (int)(slash - pp) : 1;
        snprintf(lp, sizeof lp, "%.*s/%s", dl, slash ? pp : ".", name);
        double tl = czk_cli_now();
        czk_params_lagrange *lf = NULL;
        st = czk_setup_lagrange(&lf, shape, &toxic, &be, pool, &err);
        if (!st) st = czk_params_lagrange_write(lf, &vk, lp, pool, &err);
        if (!st)
            printf("wrote %s (the Lagrange form of H and L: h %llu, l %u, w_in %u; %.2f s)\n", lp,
                   (unsigned long long)1 << lf->log_n, lf->num_aux, lf->num_inputs,
                   czk_cli_now() - tl);
        czk_params_lagrange_free(lf);
    }
    if (!st)
        printf("time: shape %.1f s, setup %.1f s (write and stamp included), total %.1f s; "
               "peak RSS %.0f MiB\n",
               t_shape, tm.total, czk_cli_now() - t0, (double)czk_cli_peak_rss() / (1 << 20));
    memset(&toxic, 0, sizeof toxic);
    czk_vk_free(&vk);
    czk_setup_backend_release(&be);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
    if (st) return czk_cli_fail(CMD, "%s", err.msg);
    return CZK_EXIT_OK;
}
