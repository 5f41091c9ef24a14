/*
 * `czk circuit-info --sector-size SIZE [--registered-proof ID] [--no-cache]`:
 * the R1CS of one PoRep partition of a sector size, as `key: value` lines:
 * counts, non-zeros, densities, the evaluation domain and the lengths of the
 * five vectors of the Groth16 .params file (spec/porep-circuit.md §1 "Size
 * formulas", §5).
 *
 * The shape is recorded (seconds for the small sizes, about two minutes and
 * 9 GiB for 32GiB/64GiB) and kept in the shape cache,
 * $CZK_CACHE_DIR/shapes/porep-v28-<size>.shape (CZK_CACHE_DIR defaults to
 * ~/.cache/czk); later runs read it back. A cache file that does not load is
 * recorded again and replaced.
 */
#include "cli/cli.h"
#include "czk/porep_circuit.h"
#include "czk/porep_shapes.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define CMD "circuit-info"

static void usage(FILE *f) {
    fprintf(f, "usage: czk circuit-info --sector-size SIZE [--registered-proof ID] [--no-cache]\n"
               "prints the R1CS of one PoRep (StackedDRG v28) partition as key: value lines:\n"
               "  constraints, inputs, aux, nnz_a, nnz_b, nnz_c, a_aux_density,\n"
               "  b_input_density, b_aux_density, domain, and the .params vector lengths\n"
               "  params_h (domain - 1), params_l (aux), params_a (inputs + a_aux),\n"
               "  params_b_g1 and params_b_g2 (b_input + b_aux).\n"
               "  --sector-size SIZE      bytes (2048, 34359738368) or 2KiB, 8MiB, 512MiB,\n"
               "                          32GiB, 64GiB\n"
               "  --registered-proof ID   RegisteredSealProof id 0..19; alone it picks the\n"
               "                          sector size, with --sector-size both must agree\n"
               "  --no-cache              record the shape, neither reading nor writing the\n"
               "                          cache ($CZK_CACHE_DIR/shapes, default ~/.cache/czk)\n"
               "exit status: 0 printed, 1 no such sector size or proof id, 2 usage or other "
               "error\n");
}

/* "2048", "2KiB", "32GiB", "2k"... -> bytes; 0 if unparsable. */
static uint64_t parse_size(const char *s) {
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcasecmp(s, czk_porep_shapes[i].name)) return czk_porep_shapes[i].sector_size;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || s[0] == '-') return 0;
    unsigned shift = 0;
    if (!strcasecmp(end, "k") || !strcasecmp(end, "kib"))
        shift = 10;
    else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib"))
        shift = 20;
    else if (!strcasecmp(end, "g") || !strcasecmp(end, "gib"))
        shift = 30;
    else if (*end)
        return 0;
    if (v > (UINT64_MAX >> shift)) return 0;
    return (uint64_t)v << shift;
}

/* mkdir -p; false on failure. */
static bool make_dirs(const char *path) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0755) && errno != EEXIST) return false;
            buf[i] = c;
        }
    return true;
}

/* The cache directory, or false if there is none (no HOME, path too long). */
static bool cache_dir(char *out, size_t cap) {
    const char *base = getenv("CZK_CACHE_DIR");
    int n;
    if (base && *base) {
        n = snprintf(out, cap, "%s/shapes", base);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home) return false;
        n = snprintf(out, cap, "%s/.cache/czk/shapes", home);
    }
    return n > 0 && (size_t)n < cap;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Loads the shape from the cache or records (and caches) it. */
static int get_shape(const czk_porep_shape *s, bool use_cache, czk_shape **out) {
    char dir[PATH_MAX], path[PATH_MAX + 64];
    czk_err err;
    bool cached = use_cache && cache_dir(dir, sizeof dir);
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, s);
    if (cached) {
        snprintf(path, sizeof path, "%s/porep-v28-%s.shape", dir, s->name);
        czk_status st = czk_shape_read(out, path, &err);
        if (st == CZK_OK && (*out)->num_inputs == czk_porep_num_inputs(&cfg)) return CZK_EXIT_OK;
        if (st == CZK_OK) {
            fprintf(stderr, "czk %s: ignoring the cached shape %s: %u inputs, not %u\n", CMD, path,
                    (*out)->num_inputs, czk_porep_num_inputs(&cfg));
            czk_shape_free(*out);
            *out = NULL;
        } else if (st != CZK_ERR_IO) {
            fprintf(stderr, "czk %s: ignoring the cached shape: %s\n", CMD, err.msg);
        }
    }
    fprintf(stderr, "czk %s: recording the %s partition circuit...\n", CMD, s->name);
    double t0 = seconds();
    czk_status st = czk_porep_record(out, &cfg, NULL, &err);
    if (st) return czk_cli_fail(CMD, "recording the %s circuit: %s", s->name, err.msg);
    fprintf(stderr, "czk %s: recorded in %.1f s\n", CMD, seconds() - t0);
    if (cached) {
        if (!make_dirs(dir))
            fprintf(stderr, "czk %s: not caching: cannot create %s: %s\n", CMD, dir,
                    strerror(errno));
        else if (czk_shape_write(*out, path, &err))
            fprintf(stderr, "czk %s: not caching: %s\n", CMD, err.msg);
    }
    return CZK_EXIT_OK;
}

int czk_cmd_circuit_info(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        usage(stdout);
        return CZK_EXIT_OK;
    }
    const char *size_arg = NULL, *proof_arg = NULL;
    bool use_cache = true;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--sector-size") && v) {
            size_arg = v;
            i++;
        } else if (!strcmp(argv[i], "--registered-proof") && v) {
            proof_arg = v;
            i++;
        } else if (!strcmp(argv[i], "--no-cache")) {
            use_cache = false;
        } else {
            usage(stderr);
            return CZK_EXIT_ERROR;
        }
    }
    if (!size_arg && !proof_arg) {
        usage(stderr);
        return CZK_EXIT_ERROR;
    }
    const czk_porep_shape *shape = NULL;
    if (size_arg) {
        uint64_t bytes = parse_size(size_arg);
        if (!bytes) return czk_cli_fail(CMD, "--sector-size takes a size, not '%s'", size_arg);
        shape = czk_porep_shape_for_size(bytes);
        if (!shape) {
            czk_cli_fail(CMD,
                         "no PoRep sector size of %llu bytes (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
                         (unsigned long long)bytes);
            return CZK_EXIT_NO;
        }
    }
    czk_porep_proof proof;
    if (proof_arg) {
        char *end = NULL;
        errno = 0;
        unsigned long long id = strtoull(proof_arg, &end, 10);
        if (!*proof_arg || *end || errno || proof_arg[0] == '-')
            return czk_cli_fail(CMD, "--registered-proof takes a number, not '%s'", proof_arg);
        czk_err err;
        if (czk_porep_proof_lookup(id, &proof, &err)) {
            czk_cli_fail(CMD, "%s", err.msg);
            return CZK_EXIT_NO;
        }
        if (shape && proof.shape != shape) {
            czk_cli_fail(CMD, "registered proof %llu is for %s sectors, not %s", id,
                         proof.shape->name, shape->name);
            return CZK_EXIT_NO;
        }
        shape = proof.shape;
    }

    czk_shape *sh = NULL;
    int rc = get_shape(shape, use_cache, &sh);
    if (rc) return rc;
    uint64_t domain = 1;
    while (domain < sh->num_constraints)
        domain <<= 1;
    printf("sector_size: %llu\n", (unsigned long long)shape->sector_size);
    unsigned partitions = proof_arg ? proof.partitions : shape->partitions;
    unsigned cpp = proof_arg ? proof.challenges_per_partition : shape->challenges_per_partition;
    if (proof_arg) printf("registered_proof: %llu\n", (unsigned long long)proof.id);
    printf("partitions: %u\n", partitions);
    printf("challenges_per_partition: %u\n", cpp);
    printf("layers: %u\n", shape->layers);
    printf("constraints: %llu\n", (unsigned long long)sh->num_constraints);
    printf("inputs: %u\n", sh->num_inputs);
    printf("aux: %u\n", sh->num_aux);
    printf("nnz_a: %llu\n", (unsigned long long)sh->m[0].nnz);
    printf("nnz_b: %llu\n", (unsigned long long)sh->m[1].nnz);
    printf("nnz_c: %llu\n", (unsigned long long)sh->m[2].nnz);
    printf("a_aux_density: %llu\n", (unsigned long long)sh->a_aux.popcount);
    printf("b_input_density: %llu\n", (unsigned long long)sh->b_input.popcount);
    printf("b_aux_density: %llu\n", (unsigned long long)sh->b_aux.popcount);
    printf("domain: %llu\n", (unsigned long long)domain);
    printf("params_h: %llu\n", (unsigned long long)(domain - 1));
    printf("params_l: %u\n", sh->num_aux);
    printf("params_a: %llu\n", (unsigned long long)(sh->num_inputs + sh->a_aux.popcount));
    printf("params_b_g1: %llu\n", (unsigned long long)(sh->b_input.popcount + sh->b_aux.popcount));
    printf("params_b_g2: %llu\n", (unsigned long long)(sh->b_input.popcount + sh->b_aux.popcount));
    czk_shape_free(sh);
    if (fflush(stdout) || ferror(stdout)) return czk_cli_fail(CMD, "writing the output failed");
    return CZK_EXIT_OK;
}
