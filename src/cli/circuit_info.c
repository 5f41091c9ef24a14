/*
 * `czk circuit-info [--kind porep|window-post|winning-post|snap] --sector-size SIZE
 * [--registered-proof ID] [--no-cache]`: the R1CS of one partition of a
 * proof kind and sector size, as `key: value` lines:
 * counts, non-zeros, densities, the evaluation domain and the lengths of the
 * five vectors of the Groth16 .params file (spec/porep-circuit.md §1 "Size
 * formulas", §5).
 *
 * The shape is recorded (seconds for the small sizes, about two minutes and
 * 9 GiB for 32GiB/64GiB) and kept in the shape cache,
 * $CZK_CACHE_DIR/shapes/porep-v28-<size>.shape (CZK_CACHE_DIR defaults to
 * ~/.cache/czk; czk_porep_shape_load); later runs read it back. A cache file
 * that does not load is recorded again and replaced.
 *
 * WindowPoSt and WinningPoSt (FallbackPoSt) partitions are counted, not
 * recorded whole: their sectors repeat one sub-circuit, so czk_post_count
 * records one and two sectors and extrapolates (milliseconds, a few MiB,
 * even for the 125 M constraints of a 32GiB WindowPoSt partition).
 * SnapDeals (EmptySectorUpdate) partitions likewise: czk_snap_count records
 * the shared part and two challenges (seconds, a few hundred MiB for
 * 32GiB); upstream's test sizes (1KiB, 4KiB, 8KiB, 16KiB, 32KiB, 16MiB)
 * are accepted by --sector-size too.
 */
#include "cli/cli.h"
#include "czk/porep_circuit.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"
#include "czk/post.h"
#include "czk/snap.h"

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
    fprintf(f, "usage: czk circuit-info [--kind KIND] --sector-size SIZE [--registered-proof ID]\n"
               "                        [--no-cache]\n"
               "prints the R1CS of one partition as key: value lines:\n"
               "  constraints, inputs, aux, nnz_a, nnz_b, nnz_c, a_aux_density,\n"
               "  b_input_density, b_aux_density, domain, and the .params vector lengths\n"
               "  params_h (domain - 1), params_l (aux), params_a (inputs + a_aux),\n"
               "  params_b_g1 and params_b_g2 (b_input + b_aux).\n"
               "  (PoSt kinds also: sectors_per_partition, challenges_per_sector and\n"
               "  synthesized_constraints, upstream's count without the one constraint\n"
               "  per input that the prover adds)\n"
               "  (snap also: partitions, challenges_per_partition, apex_leafs, h_default and\n"
               "  synthesized_constraints)\n"
               "  --kind KIND             porep (StackedDRG v28, the default), window-post,\n"
               "                          winning-post (FallbackPoSt) or snap (SnapDeals,\n"
               "                          EmptySectorUpdate: one partition)\n"
               "  --sector-size SIZE      bytes (2048, 34359738368) or 2KiB, 8MiB, 512MiB,\n"
               "                          32GiB, 64GiB; snap also upstream's test sizes 1KiB,\n"
               "                          4KiB, 8KiB, 16KiB, 32KiB, 16MiB\n"
               "  --registered-proof ID   RegisteredSealProof id 0..19 (porep),\n"
               "                          RegisteredPoStProof id 0..4 (winning-post), 5..14\n"
               "                          (window-post) or RegisteredUpdateProof 0..4 (snap);\n"
               "                          alone it picks the sector size, with --sector-size\n"
               "                          both must agree\n"
               "  --no-cache              record the shape, neither reading nor writing the\n"
               "                          cache ($CZK_CACHE_DIR/shapes, default ~/.cache/czk;\n"
               "                          PoSt kinds use no cache)\n"
               "exit status: 0 printed, 1 no such sector size or proof id, 2 usage or other "
               "error\n");
}

/* Loads the shape from the cache or records (and caches) it. */
static int get_shape(const czk_porep_shape *s, bool use_cache, czk_shape **out) {
    czk_err err;
    bool recorded = false;
    double t0 = czk_cli_now();
    if (czk_porep_shape_load(out, &recorded, s, use_cache, &err))
        return czk_cli_fail(CMD, "%s", err.msg);
    if (recorded)
        fprintf(stderr, "czk %s: recorded the %s partition circuit in %.1f s\n", CMD, s->name,
                czk_cli_now() - t0);
    return CZK_EXIT_OK;
}

/* The lines every counted kind prints after its own, from the counts. */
static void print_counts(const czk_shape_counts *c) {
    uint64_t domain = 1;
    while (domain < c->constraints)
        domain <<= 1;
    printf("constraints: %llu\n", (unsigned long long)c->constraints);
    printf("synthesized_constraints: %llu\n", (unsigned long long)c->synthesized_constraints);
    printf("inputs: %llu\n", (unsigned long long)c->inputs);
    printf("aux: %llu\n", (unsigned long long)c->aux);
    printf("nnz_a: %llu\n", (unsigned long long)c->nnz[0]);
    printf("nnz_b: %llu\n", (unsigned long long)c->nnz[1]);
    printf("nnz_c: %llu\n", (unsigned long long)c->nnz[2]);
    printf("a_aux_density: %llu\n", (unsigned long long)c->a_aux);
    printf("b_input_density: %llu\n", (unsigned long long)c->b_input);
    printf("b_aux_density: %llu\n", (unsigned long long)c->b_aux);
    printf("domain: %llu\n", (unsigned long long)domain);
    printf("params_h: %llu\n", (unsigned long long)(domain - 1));
    printf("params_l: %llu\n", (unsigned long long)c->aux);
    printf("params_a: %llu\n", (unsigned long long)(c->inputs + c->a_aux));
    printf("params_b_g1: %llu\n", (unsigned long long)(c->b_input + c->b_aux));
    printf("params_b_g2: %llu\n", (unsigned long long)(c->b_input + c->b_aux));
}

/* The PoSt kinds: counted (czk_post_count), printed in the PoRep lines' order. */
static int post_info(czk_post_kind kind, const char *kind_arg, const char *size_arg,
                     const char *proof_arg) {
    const czk_post_shape *shape = NULL;
    if (size_arg) {
        uint64_t bytes = czk_cli_parse_size(size_arg);
        if (!bytes) return czk_cli_fail(CMD, "--sector-size takes a size, not '%s'", size_arg);
        shape = czk_post_shape_for_size(bytes);
        if (!shape) {
            czk_cli_fail(CMD,
                         "no PoSt sector size of %llu bytes (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
                         (unsigned long long)bytes);
            return CZK_EXIT_NO;
        }
    }
    czk_err err;
    czk_post_proof proof;
    if (proof_arg) {
        char *end = NULL;
        errno = 0;
        unsigned long long id = strtoull(proof_arg, &end, 10);
        if (!*proof_arg || *end || errno || proof_arg[0] == '-')
            return czk_cli_fail(CMD, "--registered-proof takes a number, not '%s'", proof_arg);
        if (czk_post_proof_lookup(id, &proof, &err)) {
            czk_cli_fail(CMD, "%s", err.msg);
            return CZK_EXIT_NO;
        }
        if (proof.kind != kind) {
            czk_cli_fail(CMD, "registered PoSt proof %llu is a %s proof, not %s", id,
                         proof.kind == CZK_POST_WINNING ? "winning-post" : "window-post", kind_arg);
            return CZK_EXIT_NO;
        }
        if (shape && proof.shape != shape) {
            czk_cli_fail(CMD, "registered PoSt proof %llu is for %s sectors, not %s", id,
                         proof.shape->name, shape->name);
            return CZK_EXIT_NO;
        }
        shape = proof.shape;
    }
    czk_post_config cfg;
    czk_post_config_for(&cfg, kind, shape);
    czk_post_counts c;
    if (czk_post_count(&c, &cfg, &err)) return czk_cli_fail(CMD, "%s", err.msg);
    printf("kind: %s\n", kind_arg);
    printf("sector_size: %llu\n", (unsigned long long)shape->sector_size);
    if (proof_arg) printf("registered_proof: %llu\n", (unsigned long long)proof.id);
    printf("sectors_per_partition: %u\n", cfg.sectors);
    printf("challenges_per_sector: %u\n", cfg.challenges);
    print_counts(&c);
    if (fflush(stdout) || ferror(stdout)) return czk_cli_fail(CMD, "writing the output failed");
    return CZK_EXIT_OK;
}

/* SnapDeals: counted (czk_snap_count). */
static int snap_info(const char *size_arg, const char *proof_arg) {
    const czk_snap_shape *shape = NULL;
    int rc = czk_cli_snap_proof_arg(CMD, size_arg, proof_arg, true, CZK_EXIT_NO, &shape);
    if (rc) return rc;
    czk_err err;
    czk_shape_counts c;
    if (czk_snap_count(&c, shape, &err)) return czk_cli_fail(CMD, "%s", err.msg);
    printf("kind: snap\n");
    printf("sector_size: %llu\n", (unsigned long long)shape->sector_size);
    if (shape->registered_proof >= 0) printf("registered_proof: %d\n", shape->registered_proof);
    printf("partitions: %u\n", shape->partitions);
    printf("challenges_per_partition: %u\n", shape->challenges);
    printf("apex_leafs: %u\n", shape->apex_leafs);
    printf("h_default: %u\n", shape->h_default);
    print_counts(&c);
    if (fflush(stdout) || ferror(stdout)) return czk_cli_fail(CMD, "writing the output failed");
    return CZK_EXIT_OK;
}

int czk_cmd_circuit_info(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        usage(stdout);
        return CZK_EXIT_OK;
    }
    const char *size_arg = NULL, *proof_arg = NULL, *kind_arg = NULL;
    bool use_cache = true;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--sector-size") && v) {
            size_arg = v;
            i++;
        } else if (!strcmp(argv[i], "--kind") && v) {
            kind_arg = v;
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
    if (kind_arg && !strcmp(kind_arg, "snap")) return snap_info(size_arg, proof_arg);
    if (kind_arg && strcmp(kind_arg, "porep")) {
        czk_post_kind kind;
        if (!strcmp(kind_arg, "window-post"))
            kind = CZK_POST_WINDOW;
        else if (!strcmp(kind_arg, "winning-post"))
            kind = CZK_POST_WINNING;
        else
            return czk_cli_fail(
                CMD, "--kind takes porep, window-post, winning-post or snap, not '%s'", kind_arg);
        return post_info(kind, kind_arg, size_arg, proof_arg);
    }
    const czk_porep_shape *shape = NULL;
    if (size_arg) {
        uint64_t bytes = czk_cli_parse_size(size_arg);
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
