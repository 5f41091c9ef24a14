/*
 * `czk setup`: Groth16 test keys.
 *
 *   czk setup --sector-size SIZE [--registered-proof ID] [--out-dir DIR]
 *             [--seed N] [--threads T] [--force] [--no-shape-cache]
 *       keys for one PoRep partition of a sector size: the shape comes from
 *       the shape cache (or is recorded), the files are named
 *       czk_porep_test_key_name() ("czk-test-v28-stacked-proof-of-
 *       replication-8-0-0-2KiB.params" / ".vk") so that they cannot be taken
 *       for Filecoin's ceremony files, in DIR (default: the parameter cache,
 *       $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters),
 *       where `czk prove` and `czk verify` look. Existing keys whose .vk
 *       fits the shape are kept unless --force.
 *   czk setup --shape FILE --out PREFIX [--seed N] [--threads T]
 *       keys for a recorded shape (a czk_shape_write file): PREFIX.params
 *       and PREFIX.vk.
 *
 * Both write bellperson's layout and stamp the .params file
 * (czk_params_write_stamped): its points are multiples of the generators,
 * so the first read can skip the subgroup pass. With --seed the toxic waste
 * comes from a seeded generator, so the same seed and shape give the same
 * files byte for byte; without it, from getrandom. The keys are for tests:
 * whoever knows the seed can forge proofs.
 */
#include "cli/cli.h"
#include "czk/groth16.h"
#include "czk/porep_prove.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CMD "setup"

static void usage(FILE *f) {
    fprintf(f, "usage: czk setup --sector-size SIZE [--registered-proof ID] [--out-dir DIR]\n"
               "                 [--seed N] [--threads T] [--force] [--no-shape-cache]\n"
               "       czk setup --shape FILE --out PREFIX [--seed N] [--threads T]\n\n"
               "Writes Groth16 TEST keys (.params and .vk; whoever knows the toxic waste can\n"
               "forge proofs with them) and stamps the .params file as checked.\n\n"
               "  --sector-size SIZE     PoRep keys for one partition: 2KiB, 8MiB, 512MiB,\n"
               "                         32GiB, 64GiB (or bytes), named\n"
               "                         czk-test-v28-stacked-proof-of-replication-<tree>-<size>\n"
               "  --registered-proof ID  RegisteredSealProof id 0..19 (picks the size)\n"
               "  --out-dir DIR          where to write them (default: the parameter cache,\n"
               "                         $FIL_PROOFS_PARAMETER_CACHE or\n"
               "                         /var/tmp/filecoin-proof-parameters)\n"
               "  --force                remake keys that exist\n"
               "  --no-shape-cache       record the circuit instead of using the shape cache\n"
               "  --shape FILE           a recorded shape (czk_shape_write)...\n"
               "  --out PREFIX           ...written to PREFIX.params and PREFIX.vk\n"
               "  --seed N               toxic waste from a seeded generator (reproducible files)\n"
               "  --threads T            threads (default: all CPUs)\n");
}

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

int czk_cmd_setup(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        usage(stdout);
        return CZK_EXIT_OK;
    }
    const char *shape_path = NULL, *out = NULL, *size_arg = NULL, *proof_arg = NULL,
               *dir_arg = NULL;
    bool seeded = false, force = false, use_shape_cache = true;
    uint64_t seed = 0, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--force")) {
            force = true;
            continue;
        }
        if (!strcmp(a, "--no-shape-cache")) {
            use_shape_cache = false;
            continue;
        }
        if (!v) {
            usage(stderr);
            return CZK_EXIT_ERROR;
        }
        i++;
        if (!strcmp(a, "--shape")) {
            shape_path = v;
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else if (!strcmp(a, "--sector-size")) {
            size_arg = v;
        } else if (!strcmp(a, "--registered-proof")) {
            proof_arg = v;
        } else if (!strcmp(a, "--out-dir")) {
            dir_arg = v;
        } else if (!strcmp(a, "--seed")) {
            if (!czk_cli_parse_u64(v, &seed))
                return czk_cli_fail(CMD, "--seed takes a number, not '%s'", v);
            seeded = true;
        } else if (!strcmp(a, "--threads")) {
            if (!czk_cli_parse_u64(v, &threads) || threads > 4096)
                return czk_cli_fail(CMD, "--threads takes a number, not '%s'", v);
        } else {
            usage(stderr);
            return CZK_EXIT_ERROR;
        }
    }
    bool porep = size_arg || proof_arg;
    if (porep ? (shape_path || out) : (!shape_path || !out || dir_arg || force)) {
        usage(stderr);
        return CZK_EXIT_ERROR;
    }

    const czk_porep_shape *ps = NULL;
    if (porep) {
        if (size_arg) {
            uint64_t bytes = czk_cli_parse_size(size_arg);
            if (!bytes) return czk_cli_fail(CMD, "--sector-size takes a size, not '%s'", size_arg);
            if (!(ps = czk_porep_shape_for_size(bytes)))
                return czk_cli_fail(CMD,
                                    "no PoRep sector size of %llu bytes (2KiB, 8MiB, 512MiB, "
                                    "32GiB, 64GiB)",
                                    (unsigned long long)bytes);
        }
        if (proof_arg) {
            uint64_t id;
            czk_porep_proof pr;
            czk_err e;
            if (!czk_cli_parse_u64(proof_arg, &id))
                return czk_cli_fail(CMD, "--registered-proof takes a number, not '%s'", proof_arg);
            if (czk_porep_proof_lookup(id, &pr, &e)) return czk_cli_fail(CMD, "%s", e.msg);
            if (ps && pr.shape != ps)
                return czk_cli_fail(CMD, "registered proof %llu is for %s sectors, not %s",
                                    (unsigned long long)id, pr.shape->name, ps->name);
            ps = pr.shape;
        }
    }

    char pp[PATH_MAX], vp[PATH_MAX];
    czk_err err;
    if (porep) {
        char dir[PATH_MAX], name[256];
        if (dir_arg)
            snprintf(dir, sizeof dir, "%s", dir_arg);
        else if (czk_porep_param_cache_dir(dir, sizeof dir, &err))
            return czk_cli_fail(CMD, "%s", err.msg);
        if (czk_porep_test_key_name(name, sizeof name, ps, ".params", &err) ||
            snprintf(pp, sizeof pp, "%s/%s", dir, name) >= (int)sizeof pp ||
            czk_porep_test_key_name(name, sizeof name, ps, ".vk", &err) ||
            snprintf(vp, sizeof vp, "%s/%s", dir, name) >= (int)sizeof vp)
            return czk_cli_fail(CMD, "--out-dir too long");
        if (!*dir) return czk_cli_fail(CMD, "--out-dir is empty");
        char mk[PATH_MAX];
        snprintf(mk, sizeof mk, "%s", dir);
        for (char *c = mk + 1;; c++) /* mkdir -p */
            if (*c == '/' || !*c) {
                char end = *c;
                *c = 0;
                if (mkdir(mk, 0755) && errno != EEXIST)
                    return czk_cli_fail(CMD, "cannot create %s: %s", mk, strerror(errno));
                if (!(*c = end)) break;
            }
    } else if (snprintf(pp, sizeof pp, "%s.params", out) >= (int)sizeof pp ||
               snprintf(vp, sizeof vp, "%s.vk", out) >= (int)sizeof vp) {
        return czk_cli_fail(CMD, "--out too long");
    }

    double t0 = czk_cli_now(), t_shape = 0, t_setup = 0, t_write = 0;
    czk_shape *shape = NULL;
    czk_params *params = NULL;
    czk_status st;
    bool recorded = false;
    if (porep)
        st = czk_porep_shape_load(&shape, &recorded, ps, use_shape_cache, &err);
    else
        st = czk_shape_read(&shape, shape_path, &err);
    if (st) return czk_cli_fail(CMD, "%s", err.msg);
    t_shape = czk_cli_now() - t0;
    if (porep && !force && keys_present(pp, vp, shape->num_inputs)) {
        printf("keys: %s and %s exist (TEST keys for %s); kept (--force remakes them)\n", pp, vp,
               ps->name);
        czk_shape_free(shape);
        return CZK_EXIT_OK;
    }
    czk_pool *pool = czk_pool_create((unsigned)threads, &err);
    if (!pool) {
        czk_shape_free(shape);
        return czk_cli_fail(CMD, "%s", err.msg);
    }
    if (porep)
        printf("setup: %s partition circuit, %llu constraints, %u inputs, %u aux (%s); %u "
               "threads\n",
               ps->name, (unsigned long long)shape->num_constraints, shape->num_inputs,
               shape->num_aux, recorded ? "recorded now" : "shape cache", czk_pool_threads(pool));
    fflush(stdout);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic toxic;
    bool stamped = false;
    st = czk_toxic_random(&toxic, seeded ? &rng : NULL, &err);
    double t1 = czk_cli_now();
    if (!st) st = czk_setup(&params, shape, &toxic, pool, &err);
    t_setup = czk_cli_now() - t1;
    t1 = czk_cli_now();
    if (!st) st = czk_params_write_stamped(params, pp, NULL, &stamped, pool, &err);
    if (!st) st = czk_vk_write(&params->vk, vp, &err);
    t_write = czk_cli_now() - t1;
    if (!st) {
        printf("wrote %s (h %u, l %u, a %u, b %u)%s\n  and %s (ic %u)\n", pp, params->h_len,
               params->l_len, params->a_len, params->b_g1_len,
               stamped ? ", stamped as checked" : ", NOT stamped", vp, params->vk.ic_len);
        printf("time: shape %.1f s, setup %.1f s, write %.1f s, total %.1f s; peak RSS %.0f MiB\n",
               t_shape, t_setup, t_write, czk_cli_now() - t0,
               (double)czk_cli_peak_rss() / (1 << 20));
    }
    memset(&toxic, 0, sizeof toxic);
    czk_params_free(params);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
    if (st) return czk_cli_fail(CMD, "%s", err.msg);
    return CZK_EXIT_OK;
}
