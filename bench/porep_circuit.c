/*
 * PoRep circuit benchmark: one partition of the StackedDRG circuit recorded
 * (RECORD: the CSR shape and densities, once per sector size) and its blank
 * witness generated (WITNESS with all-zero values: the aux assignment a
 * prover computes per partition; zeros take the same path as real values
 * through every gadget), for a 2KiB partition (2 challenges) and for the
 * top level plus one challenge of 32GiB and 64GiB (a whole partition has 18
 * challenges: about 18× the per-challenge part). With `whole`, also a whole
 * 32GiB partition, once (about 9 GiB of memory). One row per (circuit,
 * mode): constraints and aux, the best of `reps` runs in CPU time and wall
 * time, and the rate; then the process's peak resident set. Runs are
 * single-threaded.
 *
 *   bench_porep_circuit [reps] [whole]
 */
#include "czk/porep_circuit.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>

static void row(const char *name, const char *mode, uint64_t n, uint32_t aux, double cpu,
                double wall, double rate, const char *unit) {
    char nb[32];
    if (n)
        snprintf(nb, sizeof nb, "%llu", (unsigned long long)n);
    else
        snprintf(nb, sizeof nb, "-");
    printf("| %-24s | %-8s | %11s | %11u | %8.3f | %8.3f | %6.2f M %-8s |\n", name, mode, nb, aux,
           cpu, wall, rate / 1e6, unit);
}

static int bench(const char *name, const czk_porep_config *cfg, int reps) {
    czk_err err;
    double best_cpu = 1e30, best_wall = 1e30;
    uint64_t n = 0;
    uint32_t aux = 0;
    for (int r = 0; r < reps; r++) {
        czk_shape *sh = NULL;
        double c0 = czk_cpu_now(), w0 = czk_now();
        if (czk_porep_record(&sh, cfg, NULL, &err)) {
            fprintf(stderr, "record %s: %s\n", name, err.msg);
            return 1;
        }
        double c1 = czk_cpu_now(), w1 = czk_now();
        if (c1 - c0 < best_cpu) best_cpu = c1 - c0;
        if (w1 - w0 < best_wall) best_wall = w1 - w0;
        n = sh->num_constraints;
        aux = sh->num_aux;
        czk_shape_free(sh);
    }
    row(name, "RECORD", n, aux, best_cpu, best_wall, (double)n / best_cpu, "constr/s");
    best_cpu = best_wall = 1e30;
    for (int r = 0; r < reps; r++) {
        czk_witness w;
        double c0 = czk_cpu_now(), w0 = czk_now();
        if (czk_porep_witness_generate(&w, cfg, NULL, NULL, &err)) {
            fprintf(stderr, "witness %s: %s\n", name, err.msg);
            return 1;
        }
        double c1 = czk_cpu_now(), w1 = czk_now();
        if (c1 - c0 < best_cpu) best_cpu = c1 - c0;
        if (w1 - w0 < best_wall) best_wall = w1 - w0;
        aux = w.num_aux;
        czk_witness_free(&w);
    }
    row(name, "WITNESS", 0, aux, best_cpu, best_wall, (double)aux / best_cpu, "aux/s");
    return 0;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    if (reps < 1) reps = 1;
    struct utsname u;
    uname(&u);
    printf("bench_porep_circuit: best of %d, %s %s, 1 thread\n\n", reps, u.sysname, u.machine);
    printf("| %-24s | %-8s | %11s | %11s | %8s | %8s | %17s |\n", "circuit", "mode", "constraints",
           "aux", "cpu s", "wall s", "rate (cpu)");
    printf("|%s|%s|%s|%s|%s|%s|%s|\n", "--------------------------", "----------", "-------------",
           "-------------", "----------", "----------", "-------------------");
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, &czk_porep_shapes[0]);
    if (bench("2KiB partition", &cfg, reps)) return 1;
    czk_porep_config_for_shape(&cfg, &czk_porep_shapes[3]);
    cfg.challenges = 1;
    if (bench("32GiB top + 1 challenge", &cfg, reps)) return 1;
    czk_porep_config_for_shape(&cfg, &czk_porep_shapes[4]);
    cfg.challenges = 1;
    if (bench("64GiB top + 1 challenge", &cfg, reps)) return 1;
    if (argc > 2 && !strcmp(argv[2], "whole")) {
        czk_porep_config_for_shape(&cfg, &czk_porep_shapes[3]);
        if (bench("32GiB partition", &cfg, 1)) return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\npeak RSS: %.2f GiB\n", (double)ru.ru_maxrss / (1024.0 * 1024.0));
    return 0;
}
