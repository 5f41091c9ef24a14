/*
 * `czk lagrange`: the Lagrange form of a key set's H and L queries
 * (include/czk/groth16.h, czk_params_lagrange), derived from the keys' own
 * points, for keys whose toxic waste nobody has — Filecoin's ceremony
 * keys. (Test keys get theirs from `czk setup --lagrange`, much faster.)
 *
 *   czk lagrange --sector-size SIZE [--registered-proof ID] [--param-cache DIR]
 *                [--out-dir DIR] [--threads T] [--force] [--backend auto|cpu|cuda] [--device N]
 *       the PoRep keys of a size, found on the key search path (keys.h:
 *       --param-cache, the parameter cache, czk's test keys; Filecoin's
 *       name first), with the shape from the shape cache;
 *   czk lagrange --shape FILE --params FILE [--out-dir DIR] [--threads T] [--force]
 *       a recorded shape (czk_shape_write) and its keys.
 *
 * The form is written as czk_params_lagrange_file_name() names it
 * ("czk-lagrange-<vk digest>.bin") beside the .params, or in --out-dir,
 * where the engine (srs.lagrange) finds it on the key search path. An
 * existing form of those keys is kept unless --force. The work is two NTTs
 * over G1 of the domain's 2^k points (2^(k−1)·k products by 255-bit scalars
 * each) — on the GPU (czk_cuda_g1_ntt, --backend auto picks it where there
 * is one; minutes at 32GiB's 2^27, estimated, unmeasured) or the CPU
 * threads (czk_g1_ntt_cpu: about a second at 2^12, hours at 2^27 on a
 * 16-core host) — and C's columns on the CPU (czk_params_lagrange_derive_with);
 * both give the same file.
 */
#include "cli/cli.h"
#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "lagrange"

static const char USAGE[] =
    "usage: czk lagrange --sector-size SIZE [--registered-proof ID] [--param-cache DIR]\n"
    "                    [--out-dir DIR] [--threads T] [--force] [--backend auto|cpu|cuda]\n"
    "                    [--device N]\n"
    "       czk lagrange --shape FILE --params FILE [--out-dir DIR] [--threads T] [--force]\n"
    "                    [--backend auto|cpu|cuda] [--device N]\n\n"
    "Derives the Lagrange form of a key set's H and L queries from the keys' points\n"
    "(two NTTs over G1: on the GPU where there is one, else the CPU: hours at\n"
    "32GiB) and writes it as\n"
    "czk-lagrange-<vk digest>.bin beside the .params (or in --out-dir), where the\n"
    "engine attaches it (srs.lagrange): the prover then skips C's SpMV and two of\n"
    "H's six NTTs, with the same proofs. Test keys: `czk setup --lagrange` instead.\n\n"
    "  --sector-size SIZE     PoRep keys of a size (2KiB ... 64GiB), found on the key\n"
    "                         search path (--param-cache DIR first)\n"
    "  --registered-proof ID  RegisteredSealProof id 0..19 (picks the size)\n"
    "  --shape FILE           a recorded shape (czk_shape_write) ...\n"
    "  --params FILE          ... and its keys\n"
    "  --out-dir DIR          where to write it (default: the .params' directory)\n"
    "  --threads T            threads (default: all CPUs)\n"
    "  --force                derive it again when it exists\n"
    "  --backend B            the NTTs over G1 on cuda, cpu, or auto (default: cuda\n"
    "                         when this czk has CUDA and a GPU is present); the same\n"
    "                         file either way\n"
    "  --device N             the CUDA device (default 0)\n";

int czk_cmd_lagrange(int argc, char **argv) {
    enum {
        O_SIZE = 256,
        O_PROOF,
        O_CACHE,
        O_SHAPE,
        O_PARAMS,
        O_DIR,
        O_THREADS,
        O_FORCE,
        O_BACKEND,
        O_DEVICE
    };
    static const struct option LONG[] = {{"sector-size", required_argument, NULL, O_SIZE},
                                         {"registered-proof", required_argument, NULL, O_PROOF},
                                         {"param-cache", required_argument, NULL, O_CACHE},
                                         {"shape", required_argument, NULL, O_SHAPE},
                                         {"params", required_argument, NULL, O_PARAMS},
                                         {"out-dir", required_argument, NULL, O_DIR},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"force", no_argument, NULL, O_FORCE},
                                         {"backend", required_argument, NULL, O_BACKEND},
                                         {"device", required_argument, NULL, O_DEVICE},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *size_arg = NULL, *proof_arg = NULL, *cache = NULL, *shape_path = NULL,
               *params_arg = NULL, *dir_arg = NULL, *backend_arg = "auto";
    uint64_t threads = 0, device = 0;
    bool force = false;
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        switch (ch) {
        case O_SIZE:
            size_arg = optarg;
            break;
        case O_PROOF:
            proof_arg = optarg;
            break;
        case O_CACHE:
            cache = optarg;
            break;
        case O_SHAPE:
            shape_path = optarg;
            break;
        case O_PARAMS:
            params_arg = optarg;
            break;
        case O_DIR:
            dir_arg = optarg;
            break;
        case O_THREADS:
            if (!czk_cli_parse_u64(optarg, &threads) || threads > 4096)
                return czk_cli_fail(CMD, "--threads takes a number, not '%s'", optarg);
            break;
        case O_FORCE:
            force = true;
            break;
        case O_BACKEND:
            if (czk_cli_backend_arg(CMD, optarg, &backend_arg)) return CZK_EXIT_ERROR;
            break;
        case O_DEVICE:
            if (czk_cli_device_arg(CMD, optarg, &device)) return CZK_EXIT_ERROR;
            break;
        case 'h':
            fputs(USAGE, stdout);
            return CZK_EXIT_OK;
        default:
            return czk_cli_getopt_fail(CMD, USAGE, ch, argv, LONG);
        }
    }
    if (optind < argc)
        return czk_cli_fail(CMD, "unexpected argument '%s'\n%s", argv[optind], USAGE);
    bool porep = size_arg || proof_arg;
    if (porep ? (shape_path || params_arg) : (!shape_path || !params_arg || cache))
        return czk_cli_fail(CMD,
                            "give --sector-size (or --registered-proof), or --shape with "
                            "--params\n%s",
                            USAGE);
    const czk_porep_shape *ps = NULL;
    int arc = czk_cli_porep_proof_arg(CMD, size_arg, proof_arg, &ps);
    if (arc) return arc;
    bool use_cuda;
    if (czk_cli_backend_pick(CMD, backend_arg, device, &use_cuda)) return CZK_EXIT_ERROR;
    czk_err err;
    char pp[PATH_MAX];
    if (porep) {
        if (czk_porep_find_key(pp, sizeof pp, NULL, cache, ps, ".params", &err))
            return czk_cli_fail(CMD, "%s", err.msg);
    } else if (snprintf(pp, sizeof pp, "%s", params_arg) >= (int)sizeof pp) {
        return czk_cli_fail(CMD, "--params too long");
    }
    double t0 = czk_cli_now();
    czk_pool *pool = czk_pool_create((unsigned)threads, &err);
    if (!pool) return czk_cli_fail(CMD, "%s", err.msg);
    czk_shape *shape = NULL;
    czk_params *params = NULL;
    czk_params_lagrange *lf = NULL;
    czk_cuda_ctx *cctx = NULL;
    int rc = CZK_EXIT_ERROR;
    czk_params_read_opts ro = {.pool = pool};
    czk_status st = czk_params_read(&params, pp, &ro, NULL, &err);
    if (st) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    double t_read = czk_cli_now() - t0;
    st = porep ? czk_porep_shape_load(&shape, NULL, ps, true, &err)
               : czk_shape_read(&shape, shape_path, &err);
    if (!st && (st = czk_params_check_shape(params, shape, &err)))
        czk_err_wrap(&err, "%s: the keys are not for this circuit", pp);
    if (st) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    char dir[PATH_MAX], name[CZK_LAGRANGE_NAME_MAX], path[PATH_MAX + CZK_LAGRANGE_NAME_MAX + 2];
    if (dir_arg) {
        snprintf(dir, sizeof dir, "%s", dir_arg);
        if ((rc = czk_cli_mkdir_p(CMD, dir))) goto out;
        rc = CZK_EXIT_ERROR;
    } else {
        const char *slash = strrchr(pp, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - pp) : 1, slash ? pp : ".");
    }
    czk_params_lagrange_file_name(name, &params->vk);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!force && access(path, F_OK) == 0) {
        printf("lagrange: %s exists (the form of %s); kept (--force derives it again)\n", path, pp);
        rc = CZK_EXIT_OK;
        goto out;
    }
    unsigned lg = czk_domain_log(shape->num_constraints);
    if (use_cuda && (st = czk_cuda_ctx_create(&cctx, (int)device, &err))) {
        czk_cli_fail(CMD, "--backend cuda: %s", err.msg);
        goto out;
    }
    printf("lagrange: keys %s (read in %.1f s), %llu constraints, %u inputs, %u aux; two NTTs "
           "over G1 of 2^%u points (%s) and C's %llu non-zeros, %u threads\n",
           pp, t_read, (unsigned long long)shape->num_constraints, shape->num_inputs,
           shape->num_aux, lg, use_cuda ? "GPU" : "CPU", (unsigned long long)shape->m[2].nnz,
           czk_pool_threads(pool));
    fflush(stdout);
    double t1 = czk_cli_now();
    if ((st = use_cuda ? czk_params_lagrange_derive_with(&lf, params, shape, czk_cuda_g1_ntt, cctx,
                                                         pool, &err)
                       : czk_params_lagrange_derive(&lf, params, shape, pool, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    double t_derive = czk_cli_now() - t1;
    if ((st = czk_params_lagrange_write(lf, &params->vk, path, pool, &err))) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("wrote %s (h %llu, l %u, w_in %u points): derived in %.1f s, total %.1f s; peak RSS "
           "%.0f MiB\n",
           path, (unsigned long long)1 << lf->log_n, lf->num_aux, lf->num_inputs, t_derive,
           czk_cli_now() - t0, (double)czk_cli_peak_rss() / (1 << 20));
    rc = CZK_EXIT_OK;
out:
    if (cctx) czk_cuda_ctx_destroy(cctx);
    czk_params_lagrange_free(lf);
    czk_params_free(params);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
    return rc;
}
