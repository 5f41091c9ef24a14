/*
 * bench_c1: C1 intake cost (czk_c1_parse, czk_c1_parse_envelope, czk_c1_to_json).
 *
 *   bench_c1 [registered_proof] [runs]   generate a C1 of that proof's shape
 *                                        (default 8, StackedDrg32GiBV1_1) with
 *                                        random canonical values, write it and
 *                                        its cuzk envelope to $TMPDIR, then
 *                                        measure each in a fresh process
 *   bench_c1 gen FILE [registered_proof] write the JSON only (FILE) and its
 *                                        envelope (FILE.env)
 *   bench_c1 parse FILE [runs]           parse FILE (raw C1 or envelope, by
 *                                        its first key), print one table row
 * The default mode also times the pre-check of consistent 2KiB C1s.
 *
 * The parse row gives the file size, the best wall time and its CPU time
 * over `runs` parses (the file already read into memory), and the peak RSS
 * of the process (VmHWM: the file buffer, the parser and the parsed C1),
 * as MiB and as a multiple of the file size. The random C1 has the shape of
 * a real one (path lengths, arities, 37 labeling parents), so its JSON has
 * the size of a real one: byte values are uniform, like hashes.
 */
#include "../tests/porep/c1_sector.h" /* ts_random_c1 */
#include "czk/porep_c1.h"
#include "czk/porep_precheck.h"
#include "czk/porep_shapes.h"
#include "util/time.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* VmHWM (peak RSS) or VmRSS of this process, KiB. */
static long proc_kib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == ':') v = strtol(line + kl + 1, NULL, 10);
    fclose(f);
    return v;
}

static int write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

/* Writes the C1 JSON to path and its cuzk envelope to path.env. */
static int gen(const char *path, uint32_t id, int table) {
    czk_c1 *c1 = ts_random_c1(id, 0x9e3779b97f4a7c15ull);
    if (!c1) {
        fprintf(stderr, "bench_c1: could not build a random C1 for proof %u\n", id);
        return 2;
    }
    char *json;
    size_t len;
    czk_err err;
    double t0 = (1e3 * czk_now()), c0 = cpu_ms();
    if (czk_c1_to_json(c1, &json, &len, &err)) {
        fprintf(stderr, "bench_c1: %s\n", err.msg);
        return 2;
    }
    double t1 = (1e3 * czk_now()), c1t = cpu_ms();
    if (table)
        printf("| czk_c1_to_json | %s | %.1f | %.1f | %.1f | - | - |\n",
               czk_registered_proof_name(id), len / 1048576.0, t1 - t0, c1t - c0);
    czk_c1_free(c1);
    if (write_file(path, json, len)) {
        fprintf(stderr, "bench_c1: cannot write %s\n", path);
        return 2;
    }
    /* Envelope: {"SectorNum":N,"Phase1Out":"<base64>","SectorSize":S}. */
    size_t b64 = 4 * ((len + 2) / 3);
    char *env = malloc(b64 + 128);
    if (!env) return 2;
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(id, &pr, &err)) return 2;
    int h = sprintf(env, "{\"SectorNum\":4242,\"Phase1Out\":\"");
    int enc = EVP_EncodeBlock((unsigned char *)env + h, (const unsigned char *)json, (int)len);
    int t = sprintf(env + h + enc, "\",\"SectorSize\":%llu}",
                    (unsigned long long)pr.shape->sector_size);
    char envpath[4096];
    snprintf(envpath, sizeof envpath, "%s.env", path);
    int rc = write_file(envpath, env, (size_t)(h + enc + t)) ? 2 : 0;
    free(env);
    free(json);
    return rc;
}

static int parse(const char *path, int runs) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench_c1: cannot open %s\n", path);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)size);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "bench_c1: cannot read %s\n", path);
        return 2;
    }
    fclose(f);
    bool env = size > 13 && !memcmp(buf, "{\"SectorNum\"", 12);
    long rss0 = proc_kib("VmRSS");
    double best = 1e300, best_cpu = 0;
    czk_err err;
    for (int r = 0; r < runs; r++) {
        czk_c1 *c1;
        uint64_t sn, ss;
        double t0 = (1e3 * czk_now()), c0 = cpu_ms();
        czk_status st = env ? czk_c1_parse_envelope(&c1, &sn, &ss, buf, (size_t)size, &err)
                            : czk_c1_parse(&c1, buf, (size_t)size, &err);
        double t1 = (1e3 * czk_now()), c1t = cpu_ms();
        if (st) {
            fprintf(stderr, "bench_c1: %s\n", err.msg);
            return 2;
        }
        if (t1 - t0 < best) {
            best = t1 - t0;
            best_cpu = c1t - c0;
        }
        czk_c1_free(c1);
    }
    long hwm = proc_kib("VmHWM");
    printf("| %s | %s | %.1f | %.1f | %.1f | %.1f (%.1f before) | %.2f |\n",
           env ? "czk_c1_parse_envelope" : "czk_c1_parse", path, size / 1048576.0, best, best_cpu,
           hwm / 1024.0, rss0 / 1024.0, hwm * 1024.0 / (double)size);
    free(buf);
    return 0;
}

/*
 * The pre-check of consistent 2KiB C1s sealed by the test builder (a 32GiB
 * sector cannot be sealed here): V1_1 (2 challenges) and NI (26), best of
 * `runs`, on 1 thread and on all CPUs.
 */
static int precheck_rows(int runs) {
    static const uint8_t ticket[32] = {1}, seed[32] = {2};
    static const uint32_t ids[] = {5, 15};
    printf("\n| pre-check | challenges | threads | best wall ms | CPU ms "
           "|\n|---|---:|---:|---:|---:|\n");
    for (size_t j = 0; j < sizeof ids / sizeof ids[0]; j++) {
        ts_sector s;
        if (!ts_seal(&s, ids[j], 1000, 1, ticket, seed, 3, NULL, NULL)) return 2;
        czk_c1 *c1 = ts_c1(&s);
        if (!c1) return 2;
        for (unsigned t = 1; t <= 2; t++) {
            czk_err err;
            czk_pool *pool = czk_pool_create(t == 1 ? 1 : 0, &err);
            if (!pool) return 2;
            czk_precheck_opts o = {
                .have_ids = true, .sector_num = 1, .miner_id = 1000, .graph = s.graph};
            double best = 1e300, best_cpu = 0;
            for (int r = 0; r <= runs; r++) { /* run 0 warms up (Poseidon constants) */
                double t0 = (1e3 * czk_now()), c0 = cpu_ms();
                if (czk_c1_precheck(c1, &o, pool, &err)) {
                    fprintf(stderr, "bench_c1: %s\n", err.msg);
                    return 2;
                }
                double t1 = (1e3 * czk_now()), c1t = cpu_ms();
                if (r && t1 - t0 < best) {
                    best = t1 - t0;
                    best_cpu = c1t - c0;
                }
            }
            printf("| %s | %u | %u | %.2f | %.2f |\n", czk_registered_proof_name(ids[j]),
                   c1->num_partitions * c1->challenges_per_partition, czk_pool_threads(pool), best,
                   best_cpu);
            czk_pool_destroy(pool);
        }
        czk_c1_free(c1);
        ts_free(&s);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "gen"))
        return gen(argv[2], argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 8, 0);
    if (argc >= 3 && !strcmp(argv[1], "parse")) return parse(argv[2], argc > 3 ? atoi(argv[3]) : 3);
    if (argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9')) {
        fprintf(stderr, "usage: bench_c1 [registered_proof] [runs] | gen FILE [id] | parse FILE "
                        "[runs]\n");
        return 2;
    }
    uint32_t id = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 8;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[1024], envpath[1100], cmd[8192];
    snprintf(path, sizeof path, "%s/bench_c1_%d.json", tmp, (int)getpid());
    snprintf(envpath, sizeof envpath, "%s.env", path);
    printf("| step | file | MiB | best wall ms | CPU ms | peak RSS MiB | peak RSS / file |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    int rc = gen(path, id, 1);
    fflush(stdout);
    char self[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (rc == 0 && n > 0) {
        self[n] = 0;
        snprintf(cmd, sizeof cmd, "'%s' parse '%s' %d && '%s' parse '%s' %d", self, path, runs,
                 self, envpath, runs);
        rc = system(cmd) == 0 ? 0 : 2;
    }
    unlink(path);
    unlink(envpath);
    fflush(stdout);
    if (rc == 0) rc = precheck_rows(runs);
    return rc;
}
