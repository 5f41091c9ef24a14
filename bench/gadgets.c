/*
 * Gadget benchmark: the SHA-256 gadget per compression in WITNESS mode (the
 * per-proof hot path: word-level compression, aux values only) and in RECORD
 * and CHECK mode (Boolean gadgets with linear combinations), a full PoRep
 * label (20 blocks, spec §3.2) and a TreeD node (hash_multi_leaf of two
 * AllocatedNums) in each mode. Prints one table row per (circuit, mode):
 * constraints and aux of the circuit, the best time of `reps` runs, time per
 * SHA-256 block, and constraints (or aux, in WITNESS mode) per second.
 * Times are process CPU time (see czk_cpu_now()).
 *
 *   bench_gadgets [reps]
 */
#include "czk/gadgets.h"
#include "czk/porep_circuit.h" /* czk_create_label */
#include "util/time.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

/* Process CPU time: the runs are single-threaded, and on a shared machine
 * wall time also counts the waits for a core. Page faults of the growing
 * assignment are included (kernel time). */
typedef struct bench_ctx {
    int kind;          /* 0: chained compressions; 1: label; 2: TreeD node */
    unsigned blocks;   /* kind 0: compressions */
    uint8_t msg[4096]; /* message bytes */
    czk_fr fr[16];
} bench_ctx;

static czk_status chain_circuit(czk_cs *cs, bench_ctx *c) {
    czk_bool in[512];
    for (unsigned i = 0; i < 512; i++)
        in[i] = czk_bit_alloc(cs, (c->msg[i / 8] >> (7 - i % 8)) & 1);
    czk_u32 st[8];
    for (unsigned i = 0; i < 8; i++)
        czk_u32_constant(&st[i], czk_sha256_iv[i]);
    /* block 0 from the constant IV, then variable states */
    for (unsigned b = 0; b < c->blocks; b++)
        czk_sha256_compression(cs, in, st, st);
    return czk_cs_status(cs);
}

static czk_status label_circuit(czk_cs *cs, bench_ctx *c) {
    /* as in the PoRep circuit (layer > 1): rbn(to_bits_le) of replica_id and
     * of 14 parent rows, expanded to 37; the challenge an allocated UInt64 */
    static czk_bool rows[14][256];
    czk_bool id[256], node[64], tmp[CZK_FR_NUM_BITS];
    czk_num x = czk_num_alloc(cs, &c->fr[0]);
    czk_status st = czk_num_to_bits_le(cs, &x, tmp);
    czk_reverse_bit_numbering(id, tmp, CZK_FR_NUM_BITS);
    czk_bits_alloc_u64_le(cs, 123456789, 64, node);
    for (unsigned k = 0; k < 14 && st == CZK_OK; k++) {
        czk_num r = czk_num_alloc(cs, &c->fr[1 + k]);
        st = czk_num_to_bits_le(cs, &r, tmp);
        czk_reverse_bit_numbering(rows[k], tmp, CZK_FR_NUM_BITS);
    }
    const czk_bool *parents[CZK_LABEL_PARENTS];
    for (unsigned k = 0; k < CZK_LABEL_PARENTS; k++)
        parents[k] = rows[k % 14];
    czk_u32 layer;
    czk_u32_constant(&layer, 5);
    czk_num out;
    if (st == CZK_OK) st = czk_create_label(cs, id, 256, &layer, node, parents, 256, &out);
    return st;
}

static czk_status node_circuit(czk_cs *cs, bench_ctx *c) {
    czk_num leaves[2] = {czk_num_alloc(cs, &c->fr[0]), czk_num_alloc(cs, &c->fr[1])}, out;
    return czk_sha256_hash_multi_leaf(cs, leaves, 2, &out);
}

static czk_status circuit(czk_cs *cs, void *p) {
    bench_ctx *c = p;
    switch (c->kind) {
    case 0:
        return chain_circuit(cs, c);
    case 1:
        return label_circuit(cs, c);
    default:
        return node_circuit(cs, c);
    }
}

static const char *mode_name[] = {"RECORD", "WITNESS", "CHECK"};
static bool warm; /* freed assignments stay in the heap (mallopt), see main() */

static int bench(const char *name, bench_ctx *c, unsigned blocks, czk_cs_mode mode, int reps) {
    double best = 1e30;
    uint64_t cons = 0;
    uint32_t aux = 0;
    for (int r = 0; r < reps; r++) {
        czk_err err;
        czk_cs *cs = czk_cs_create(mode, NULL, &err);
        if (!cs) {
            fprintf(stderr, "czk_cs_create: %s\n", err.msg);
            return 1;
        }
        double t0 = czk_cpu_now();
        czk_status st = czk_cs_run(cs, circuit, c, &err);
        double t = czk_cpu_now() - t0;
        if (st != CZK_OK) {
            fprintf(stderr, "%s %s: %s\n", name, mode_name[mode], err.msg);
            czk_cs_free(cs);
            return 1;
        }
        if (t < best) best = t;
        cons = czk_cs_num_constraints(cs) - czk_cs_num_inputs(cs);
        aux = czk_cs_num_aux(cs);
        czk_cs_free(cs);
    }
    /* WITNESS mode emits no constraint: its rate is aux values per second */
    bool wit = mode == CZK_CS_WITNESS;
    double rate = (wit ? (double)aux : (double)cons) / best;
    char cs_txt[32];
    snprintf(cs_txt, sizeof cs_txt, "%llu", (unsigned long long)cons);
    printf("| %-28s | %-7s | %9s | %9u | %10.3f | %10.0f | %6.2f M%s/s |\n", name,
           warm ? "WIT/warm" : mode_name[mode], wit ? "-" : cs_txt, aux, best * 1e3,
           best * 1e9 / blocks, rate / 1e6, wit ? "aux " : "cons");
    return 0;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1) reps = 1;
    struct utsname u;
    uname(&u);
    char cpu[256] = "?";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                char *p = strchr(line, ':');
                if (p) snprintf(cpu, sizeof cpu, "%s", p + 2);
                cpu[strcspn(cpu, "\n")] = 0;
                break;
            }
        fclose(f);
    }
    time_t tt = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&tt));
    printf("bench_gadgets: %s, %s %s, %s, best of %d, 1 thread\n\n", cpu, u.sysname, u.machine,
           date, reps);
    printf("| circuit                      | mode    | constr.   | aux       | cpu ms     | "
           "ns/block   | rate          |\n");
    printf("|------------------------------|---------|-----------|-----------|------------|--------"
           "----|---------------|\n");

    static bench_ctx c;
    czk_rng rng;
    czk_rng_seed(&rng, 7);
    if (czk_random_bytes(&rng, c.msg, sizeof c.msg, NULL) != CZK_OK) return 1;
    for (int i = 0; i < 16; i++)
        if (czk_fr_random(&c.fr[i], &rng, NULL) != CZK_OK) return 1;

    int rc = 0;
    for (int mode = CZK_CS_RECORD; mode <= CZK_CS_CHECK; mode++) {
        c.kind = 0;
        c.blocks = 64;
        rc |= bench("sha256 compression x64", &c, 64, (czk_cs_mode)mode, reps);
    }
    for (int mode = CZK_CS_RECORD; mode <= CZK_CS_CHECK; mode++) {
        c.kind = 1;
        rc |= bench("label (20 blocks)", &c, 20, (czk_cs_mode)mode, reps);
    }
    for (int mode = CZK_CS_RECORD; mode <= CZK_CS_CHECK; mode++) {
        c.kind = 2;
        rc |= bench("TreeD node (2 blocks)", &c, 2, (czk_cs_mode)mode, reps);
    }
    /* WITNESS again with freed memory kept in the heap, so that the best run
     * writes into pages faulted by an earlier one: the gadgets' own cost,
     * without the kernel's first-touch page faults of a fresh assignment
     * (32 bytes per aux, ~one fault per 128 aux). Small assignments (TreeD)
     * are warm in both settings: glibc reuses their freed heap blocks. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    warm = true;
    c.kind = 0;
    rc |= bench("sha256 compression x64", &c, 64, CZK_CS_WITNESS, reps + 1);
    c.kind = 1;
    rc |= bench("label (20 blocks)", &c, 20, CZK_CS_WITNESS, reps + 1);
    return rc;
}
