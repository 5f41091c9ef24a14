/*
 * `czk gen-vanilla --post window|winning`: the PoSt vanilla proofs of test
 * sectors and the request that proves them (post_args.c's JSON).
 *
 * Each sector is sealed as `czk gen-vanilla` seals a PoRep test sector
 * (czk's own SDR, full for 2KiB-512MiB; --sparse builds only the
 * challenged leaves, for 32GiB/64GiB benchmarks), then its bincode
 * FallbackPoStSectorProof is made for the randomness as the vanilla prover
 * makes it (czk_seal_post_vanilla): WindowPoSt sector i of partition K is
 * sector index K · sectors_per_partition + i (the V1 challenge indices),
 * WinningPoSt is one sector with 66 challenges. The randomness must be a
 * canonical Fr, as the chain's (Curio masks byte 31 with 0x3f): anything
 * else is refused, never masked.
 */
#include "cli/cli.h"
#include "czk/seal.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "gen-vanilla"
#define MAX_SECTORS 2349u /* the largest WindowPoSt partition (32GiB) */

static const char USAGE[] =
    "usage: czk gen-vanilla --post window|winning --sector-size SIZE\n"
    "                       --sector-num N[,N-M...] --randomness HEX --out DIR [options]\n\n"
    "Seals test sectors (czk's own SDR) and writes their PoSt vanilla proofs\n"
    "(bincode FallbackPoStSectorProof, DIR/sector-<N>.vproof) and DIR/request.json,\n"
    "the request that `czk prove --request` proves and `czk verify --request` checks.\n\n"
    "  --post window|winning    WindowPoSt (one partition of up to 2 sectors at\n"
    "                           2KiB-512MiB, 2349 at 32GiB, 2300 at 64GiB) or\n"
    "                           WinningPoSt (one sector)\n"
    "  --sector-size SIZE       2KiB, 8MiB, 512MiB (sealed); 32GiB, 64GiB (--sparse only)\n"
    "  --registered-proof ID    RegisteredPoStProof: 0-4 Winning, 5-9 Window V1,\n"
    "                           10-14 Window V1_2 (FFI V1_1); default: Winning's, or\n"
    "                           Window V1_2 of the size\n"
    "  --sector-num N[,N...]    the sectors, in partition order (distinct; N-M is a\n"
    "                           range: 1-2349 fills a 32GiB partition)\n"
    "  --randomness HEX         32 bytes, 64 hex digits: a canonical Fr (byte 31 at\n"
    "                           most 0x3f as Curio masks it; anything else is refused)\n"
    "  --partition K            WindowPoSt partition index (default 0): sector i is\n"
    "                           sector index K * sectors_per_partition + i\n"
    "  --miner-id N             prover f0<N> (default 1000)\n"
    "  --random SEED            pseudo-random sector data (default: empty, CC)\n"
    "  --sparse                 build only what the challenges touch (seconds for 64GiB).\n"
    "                           FOR BENCHMARKS ONLY: no real sector has these proofs\n"
    "  --embed                  the vanilla proofs inside request.json as base64 (the\n"
    "                           JSON array of base64 blobs) instead of .vproof files\n"
    "  --threads N              threads (default: all CPUs)\n"
    "  --out DIR                where to write them (made if missing)\n\n"
    "The output is deterministic for fixed inputs.\n";

/* "7,9,12" or "1-2349" (ranges and numbers, comma-separated) -> nums (distinct). False with
 * a message in why. */
static bool parse_nums(const char *s, uint64_t *nums, size_t *n, char *why, size_t wl) {
    *n = 0;
    const char *p = s;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        char w[48];
        uint64_t lo, hi;
        if (!l || l >= sizeof w) {
            snprintf(why, wl, "--sector-num '%s': an empty or overlong item", s);
            return false;
        }
        memcpy(w, p, l);
        w[l] = 0;
        char *dash = strchr(w, '-');
        if (dash) *dash = 0;
        bool ok = czk_cli_parse_u64(w, &lo);
        hi = lo;
        if (ok && dash) ok = czk_cli_parse_u64(dash + 1, &hi);
        if (!ok || hi < lo) {
            snprintf(why, wl,
                     "--sector-num takes numbers and ranges N-M separated by commas, "
                     "not '%s'",
                     s);
            return false;
        }
        for (uint64_t v = lo;; v++) {
            for (size_t i = 0; i < *n; i++)
                if (nums[i] == v) {
                    snprintf(why, wl, "--sector-num: sector %llu is given twice",
                             (unsigned long long)v);
                    return false;
                }
            if (*n == MAX_SECTORS) {
                snprintf(why, wl, "--sector-num: more than %u sectors", MAX_SECTORS);
                return false;
            }
            nums[(*n)++] = v;
            if (v == hi) break;
        }
        if (!c) return true;
        p = c + 1;
    }
}

int czk_cmd_gen_vanilla_post(int argc, char **argv) {
    enum {
        O_POST = 256,
        O_SIZE,
        O_PROOF,
        O_NUMS,
        O_RAND,
        O_PART,
        O_MINER,
        O_RANDOM,
        O_SPARSE,
        O_EMBED,
        O_THREADS,
        O_OUT
    };
    static const struct option LONG[] = {{"post", required_argument, NULL, O_POST},
                                         {"sector-size", required_argument, NULL, O_SIZE},
                                         {"registered-proof", required_argument, NULL, O_PROOF},
                                         {"sector-num", required_argument, NULL, O_NUMS},
                                         {"randomness", required_argument, NULL, O_RAND},
                                         {"partition", required_argument, NULL, O_PART},
                                         {"miner-id", required_argument, NULL, O_MINER},
                                         {"random", required_argument, NULL, O_RANDOM},
                                         {"sparse", no_argument, NULL, O_SPARSE},
                                         {"embed", no_argument, NULL, O_EMBED},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"out", required_argument, NULL, O_OUT},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    czk_post_kind kind = 0;
    const char *size_arg = NULL, *proof_arg = NULL, *nums_arg = NULL, *out_dir = NULL;
    uint64_t partition = 0, threads = 0, random_seed = 0;
    bool have_rand = false, have_random = false, sparse = false, embed = false;
    czk_cli_post_req r;
    memset(&r, 0, sizeof r);
    r.miner_id = 1000;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        switch (ch) {
        case O_POST:
            if (!strcmp(v, "window"))
                kind = CZK_POST_WINDOW;
            else if (!strcmp(v, "winning"))
                kind = CZK_POST_WINNING;
            else
                return czk_cli_fail(CMD, "--post takes window or winning, not '%s'", v);
            break;
        case O_SIZE:
            size_arg = v;
            break;
        case O_PROOF:
            proof_arg = v;
            break;
        case O_NUMS:
            nums_arg = v;
            break;
        case O_RAND:
            if (!czk_cli_parse_hex32(v, r.randomness))
                return czk_cli_fail(CMD, "--randomness takes 32 bytes as 64 hex digits, not '%s'",
                                    v);
            have_rand = true;
            break;
        case O_PART:
            if (!czk_cli_parse_u64(v, &partition) || partition > UINT32_MAX)
                return czk_cli_fail(CMD, "--partition takes a partition index, not '%s'", v);
            break;
        case O_MINER:
            if (!czk_cli_parse_u64(v, &r.miner_id))
                return czk_cli_fail(CMD, "--miner-id takes a number, not '%s'", v);
            break;
        case O_RANDOM:
            if (!czk_cli_parse_u64(v, &random_seed))
                return czk_cli_fail(CMD, "--random takes a number, not '%s'", v);
            have_random = true;
            break;
        case O_SPARSE:
            sparse = true;
            break;
        case O_EMBED:
            embed = true;
            break;
        case O_THREADS:
            if (!czk_cli_parse_u64(v, &threads) || threads > 1024)
                return czk_cli_fail(CMD, "--threads takes a number up to 1024, not '%s'", v);
            break;
        case O_OUT:
            out_dir = v;
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
    if (!kind || !nums_arg || !have_rand || !out_dir || (!size_arg && !proof_arg)) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--post, --sector-size (or --registered-proof), --sector-num, "
                                 "--randomness and --out are required");
    }
    czk_err err;
    if (czk_post_randomness_check(r.randomness, &err))
        return czk_cli_fail(CMD, "--randomness: %s", err.msg);
    int rc = czk_cli_post_proof_arg(CMD, kind, size_arg, proof_arg, &r.proof);
    if (rc) return rc;
    const czk_post_shape *shape = r.proof.shape;
    if (kind == CZK_POST_WINNING && partition)
        return czk_cli_fail(CMD, "--partition: WinningPoSt has one partition, 0");
    r.partition_index = (uint32_t)partition;
    const czk_porep_shape *seal_shape = czk_porep_shape_for_size(shape->sector_size);
    if (!seal_shape) return czk_cli_fail(CMD, "no PoRep shape seals %s sectors", shape->name);

    uint64_t *nums = malloc(MAX_SECTORS * sizeof *nums);
    if (!nums) return czk_cli_fail(CMD, "out of memory");
    char why[200];
    size_t n = 0;
    if (!parse_nums(nums_arg, nums, &n, why, sizeof why)) {
        free(nums);
        return czk_cli_fail(CMD, "%s", why);
    }
    size_t max = kind == CZK_POST_WINNING ? 1 : shape->window_sectors;
    if (n > max) {
        free(nums);
        return czk_cli_fail(CMD, "--sector-num: %zu sectors; a %s %s partition holds %s%zu", n,
                            shape->name, kind == CZK_POST_WINNING ? "WinningPoSt" : "WindowPoSt",
                            kind == CZK_POST_WINNING ? "exactly " : "at most ", max);
    }
    rc = czk_cli_mkdir_p(CMD, out_dir);
    czk_pool *pool = NULL;
    char **names = calloc(n, sizeof *names);
    r.n = n;
    r.sectors = calloc(n, sizeof *r.sectors);
    r.blobs = calloc(n, sizeof *r.blobs);
    r.blob_len = calloc(n, sizeof *r.blob_len);
    if (!rc && (!names || !r.sectors || !r.blobs || !r.blob_len))
        rc = czk_cli_fail(CMD, "out of memory");
    if (!rc && !(pool = czk_pool_create((unsigned)threads, &err)))
        rc = czk_cli_fail(CMD, "%s", err.msg);
    double t0 = czk_cli_now();
    for (size_t i = 0; !rc && i < n; i++) {
        czk_seal_request sr;
        memset(&sr, 0, sizeof sr);
        sr.registered_proof = seal_shape->proof_ids[1];
        sr.miner_id = r.miner_id;
        sr.sector_num = nums[i];
        memset(sr.ticket, 1, sizeof sr.ticket);
        memset(sr.seed, 1, sizeof sr.seed);
        sr.data_kind = have_random ? CZK_SEAL_DATA_RANDOM : CZK_SEAL_DATA_ZERO;
        sr.random_seed = random_seed;
        sr.sparse = sparse;
        uint64_t sector_index =
            kind == CZK_POST_WINNING ? 0 : partition * shape->window_sectors + i;
        czk_seal_result res;
        double ts = czk_cli_now();
        if (czk_seal_post_vanilla(&r.blobs[i], &r.blob_len[i], &res, &sr, kind, r.proof.api,
                                  r.randomness, sector_index, pool, &err)) {
            rc = czk_cli_fail(CMD, "sector %llu: %s", (unsigned long long)nums[i], err.msg);
            break;
        }
        r.sectors[i].sector_id = nums[i];
        memcpy(r.sectors[i].comm_r, res.comm_r, 32);
        char name[48], path[PATH_MAX], cr[65];
        snprintf(name, sizeof name, "sector-%llu.vproof", (unsigned long long)nums[i]);
        if (!(names[i] = strdup(name))) {
            rc = czk_cli_fail(CMD, "out of memory");
            break;
        }
        if (snprintf(path, sizeof path, "%s/%s", out_dir, name) >= (int)sizeof path) {
            rc = czk_cli_fail(CMD, "--out too long");
            break;
        }
        if (!embed) {
            FILE *f = fopen(path, "wb");
            bool bad = !f || fwrite(r.blobs[i], 1, r.blob_len[i], f) != r.blob_len[i];
            if (f) bad = fclose(f) != 0 || bad;
            if (bad) {
                rc = czk_cli_fail(CMD, "cannot write %s: %s", path, strerror(errno));
                break;
            }
        }
        czk_cli_hex(cr, res.comm_r, 32);
        fprintf(stderr, "czk %s: sector %llu (index %llu): comm_r %s, %zu bytes%s%s (%.2f s)\n",
                CMD, (unsigned long long)nums[i], (unsigned long long)sector_index, cr,
                r.blob_len[i], embed ? "" : " -> ", embed ? "" : path, czk_cli_now() - ts);
    }
    czk_pool_destroy(pool);
    char req_path[PATH_MAX];
    if (!rc &&
        snprintf(req_path, sizeof req_path, "%s/request.json", out_dir) >= (int)sizeof req_path)
        rc = czk_cli_fail(CMD, "--out too long");
    if (!rc) rc = czk_cli_post_req_write(CMD, req_path, &r, (const char *const *)names, embed);
    if (!rc)
        fprintf(stderr,
                "czk %s: %s%s registered proof %llu, partition %u, %zu sector%s: wrote %s "
                "(%.2f s)\n",
                CMD, shape->name, sparse ? " sparse" : "", (unsigned long long)r.proof.id,
                r.partition_index, n, n == 1 ? "" : "s", req_path, czk_cli_now() - t0);
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(nums);
    czk_cli_post_req_free(&r);
    return rc;
}
