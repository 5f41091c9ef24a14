/*
 * `czk setup --shape FILE --out PREFIX [--seed N] [--threads T]`: test keys
 * for a recorded shape (a czk_shape_write file). Writes PREFIX.params and
 * PREFIX.vk in bellperson's layout. With --seed the toxic waste comes from
 * a seeded generator, so the same seed and shape give the same files byte
 * for byte; without it, from getrandom. The keys are for tests: whoever
 * knows the seed can forge proofs.
 */
#include "cli/cli.h"
#include "czk/groth16.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: czk setup --shape FILE --out PREFIX [--seed N] [--threads T]\n"
               "writes PREFIX.params and PREFIX.vk: Groth16 test keys for the shape.\n"
               "  --seed N     toxic waste from a seeded generator (reproducible files)\n"
               "  --threads T  threads (default: all CPUs)\n");
}

int czk_cmd_setup(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        usage(stdout);
        return CZK_EXIT_OK;
    }
    const char *shape_path = NULL, *out = NULL;
    bool seeded = false;
    unsigned long long seed = 0;
    unsigned long threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(argv[i], "--shape") && v) {
            shape_path = v;
        } else if (!strcmp(argv[i], "--out") && v) {
            out = v;
        } else if (!strcmp(argv[i], "--seed") && v) {
            seed = strtoull(v, &end, 10);
            if (!*v || *end) return czk_cli_fail("setup", "--seed takes a number, not '%s'", v);
            seeded = true;
        } else if (!strcmp(argv[i], "--threads") && v) {
            threads = strtoul(v, &end, 10);
            if (!*v || *end || threads > 4096)
                return czk_cli_fail("setup", "--threads takes a number, not '%s'", v);
        } else {
            usage(stderr);
            return CZK_EXIT_ERROR;
        }
        i++;
    }
    if (!shape_path || !out) {
        usage(stderr);
        return CZK_EXIT_ERROR;
    }
    char pp[PATH_MAX], vp[PATH_MAX];
    if (snprintf(pp, sizeof pp, "%s.params", out) >= (int)sizeof pp ||
        snprintf(vp, sizeof vp, "%s.vk", out) >= (int)sizeof vp)
        return czk_cli_fail("setup", "--out too long");
    czk_err err;
    czk_shape *shape = NULL;
    czk_params *params = NULL;
    czk_pool *pool = czk_pool_create((unsigned)threads, &err);
    if (!pool) return czk_cli_fail("setup", "%s", err.msg);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic toxic;
    czk_status st = czk_shape_read(&shape, shape_path, &err);
    if (!st) st = czk_toxic_random(&toxic, seeded ? &rng : NULL, &err);
    if (!st) st = czk_setup(&params, shape, &toxic, pool, &err);
    if (!st) st = czk_params_write(params, pp, pool, &err);
    if (!st) st = czk_vk_write(&params->vk, vp, &err);
    if (!st)
        printf("wrote %s (h %u, l %u, a %u, b %u) and %s (ic %u)\n", pp, params->h_len,
               params->l_len, params->a_len, params->b_g1_len, vp, params->vk.ic_len);
    memset(&toxic, 0, sizeof toxic);
    czk_params_free(params);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
    if (st) return czk_cli_fail("setup", "%s", err.msg);
    return CZK_EXIT_OK;
}
