/*
 * `czk gen-vanilla`: seal a test sector with czk's own implementation of the
 * SDR algorithm and write its C1 (seal_commit_phase1 output) as JSON, or
 * build a sparse C1 of any shape for benchmarks (include/czk/seal.h).
 * With --snap the sealed sector is a sector key and the SnapDeals partition
 * proofs of an update are written instead (gen_vanilla_snap.c).
 */
#include "cli/cli.h"
#include "czk/seal.h"
#include "util/time.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const CMD = "gen-vanilla";

static void help(FILE *f) {
    fprintf(f,
            "usage: czk gen-vanilla --sector-size SIZE --out FILE [options]\n\n"
            "Seals a test sector with czk's own SDR implementation (rust-fil-proofs v28\n"
            "algorithm) and writes its commit-phase-1 output (C1) as JSON.\n\n"
            "  --sector-size SIZE       2KiB, 8MiB, 512MiB (full); 32GiB, 64GiB (--sparse only)\n"
            "  --registered-proof ID    RegisteredSealProof id 0..19 (default: the V1_1 id of\n"
            "                           the size: 5, 6, 7, 8, 9)\n"
            "  --miner-id N             prover f0<N> (default 1000)\n"
            "  --sector-num N           sector number (default 1)\n"
            "  --ticket HEX             32-byte ticket, 64 hex digits (default 0101...01)\n"
            "  --seed HEX               32-byte interactive seed, 64 hex digits (default\n"
            "                           0101...01; check-c1 and cuzk refuse an all-zero seed)\n"
            "  --data FILE              unpadded piece data (at most size*127/128 bytes,\n"
            "                           zero-extended); without --data or --random the sector\n"
            "                           is empty (CC, all zeros)\n"
            "  --random SEED            pseudo-random data from the u64 SEED\n"
            "  --sparse                 build only what the challenges touch (seconds for\n"
            "                           32GiB). FOR BENCHMARKS ONLY: every vanilla proof\n"
            "                           verifies against one set of roots, but the labels of\n"
            "                           non-challenged nodes and untouched subtrees are\n"
            "                           pseudo-random, so no real sector has this C1; data\n"
            "                           is a repeated 1,024-node block; interactive proofs only\n"
            "  --threads N              threads (default: all CPUs)\n"
            "  --out FILE               where to write the C1 JSON ('-' for stdout)\n"
            "  -v, --verbose            print each stage with its time on stderr\n"
            "  --snap                   SnapDeals: seal the sector as a CC sector key, encode\n"
            "                           the --data / --random data into it (default: zero\n"
            "                           data) and write its partition proofs (czk gen-vanilla\n"
            "                           --snap --help)\n\n"
            "The output is deterministic for fixed inputs. A summary line (comm_d, comm_r,\n"
            "replica_id, seconds) goes to stderr.\n\n"
            "PoSt vanilla proofs and their request: czk gen-vanilla --post window|winning\n"
            "(czk gen-vanilla --post window --help).\n");
}

static bool parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static bool parse_hex32(const char *s, uint8_t out[32]) {
    if (!s || strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + k];
            unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                         : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                         : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                : 16u;
            if (d > 15) return false;
            v = v << 4 | d;
        }
        out[i] = (uint8_t)v;
    }
    return true;
}

static const czk_porep_shape *parse_size(const char *s) {
    for (unsigned i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcmp(s, czk_porep_shapes[i].name)) return &czk_porep_shapes[i];
    uint64_t bytes;
    return parse_u64(s, &bytes) ? czk_porep_shape_for_size(bytes) : NULL;
}

typedef struct stage_log {
    bool verbose;
    double t0, last;
    const char *name;
} stage_log;

static void on_stage(void *arg, const char *stage) {
    stage_log *l = arg;
    double t = czk_now();
    if (l->verbose && l->name)
        fprintf(stderr, "czk gen-vanilla: %-10s %8.2f s\n", l->name, t - l->last);
    l->name = stage;
    l->last = t;
}

static char *read_file(const char *path, size_t max, size_t *len, char *why, size_t wl) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, wl, "open %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    bool bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        snprintf(why, wl, "read %s: %s", path, buf ? "I/O error" : "out of memory");
        free(buf);
        return NULL;
    }
    if (n > max) {
        snprintf(why, wl, "%s: more than the sector's %zu unpadded bytes", path, max);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static void hex(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

int czk_cmd_gen_vanilla(int argc, char **argv) {
    for (int i = 1; i < argc; i++) /* PoSt vanilla proofs: gen_vanilla_post.c */
        if (!strcmp(argv[i], "--post") || !strncmp(argv[i], "--post=", 7))
            return czk_cmd_gen_vanilla_post(argc, argv);
    bool snap = false;
    for (int i = 1; i < argc; i++)
        snap |= !strcmp(argv[i], "--snap");
    if (czk_cli_wants_help(argc, argv)) {
        (snap ? czk_cli_gen_vanilla_snap_help : help)(stdout);
        return CZK_EXIT_OK;
    }
    const char *out_dir = NULL;
    uint64_t snap_h = 0;
    const czk_porep_shape *shape = NULL;
    const char *out_path = NULL, *data_path = NULL;
    uint64_t proof_id = UINT64_MAX, threads = 0;
    bool have_random = false, verbose = false;
    czk_seal_request req;
    memset(&req, 0, sizeof req);
    req.miner_id = 1000;
    req.sector_num = 1;
    memset(req.ticket, 1, sizeof req.ticket);
    memset(req.seed, 1, sizeof req.seed);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true, takes = true;
        if (!strcmp(a, "--sector-size"))
            ok = (shape = v ? parse_size(v) : NULL) != NULL;
        else if (!strcmp(a, "--registered-proof"))
            ok = parse_u64(v, &proof_id);
        else if (!strcmp(a, "--miner-id"))
            ok = parse_u64(v, &req.miner_id);
        else if (!strcmp(a, "--sector-num"))
            ok = parse_u64(v, &req.sector_num);
        else if (!strcmp(a, "--ticket"))
            ok = parse_hex32(v, req.ticket);
        else if (!strcmp(a, "--seed"))
            ok = parse_hex32(v, req.seed);
        else if (!strcmp(a, "--data"))
            ok = (data_path = v) != NULL;
        else if (!strcmp(a, "--random"))
            ok = have_random = parse_u64(v, &req.random_seed);
        else if (!strcmp(a, "--threads"))
            ok = parse_u64(v, &threads) && threads <= 1024;
        else if (!strcmp(a, "--out"))
            ok = (out_path = v) != NULL;
        else if (!strcmp(a, "--sparse"))
            req.sparse = true, takes = false;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
            verbose = true, takes = false;
        else if (!strcmp(a, "--snap"))
            takes = false;
        else if (snap && !strcmp(a, "--h"))
            ok = parse_u64(v, &snap_h) && snap_h > 0 && snap_h <= 64;
        else if (snap && !strcmp(a, "--out-dir"))
            ok = (out_dir = v) != NULL;
        else
            return czk_cli_fail(CMD, "unknown option '%s' (czk gen-vanilla --help)", a);
        if (!ok)
            return czk_cli_fail(CMD, "%s: bad or missing value%s%s", a, v ? " " : "", v ? v : "");
        if (takes) i++;
    }
    if (!shape)
        return czk_cli_fail(CMD, "--sector-size is required (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
    if (!out_path && !out_dir)
        return czk_cli_fail(CMD, snap ? "--out or --out-dir is required" : "--out is required");
    if (data_path && have_random)
        return czk_cli_fail(CMD, "--data and --random exclude each other");
    req.registered_proof = proof_id == UINT64_MAX ? shape->proof_ids[1] : proof_id;
    czk_porep_proof pr;
    czk_err err;
    if (czk_porep_proof_lookup(req.registered_proof, &pr, &err) != CZK_OK)
        return czk_cli_fail(CMD, "%s", err.msg);
    if (pr.shape != shape)
        return czk_cli_fail(CMD, "registered proof %llu is a %s proof, not %s",
                            (unsigned long long)req.registered_proof, pr.shape->name, shape->name);
    char why[512];
    char *data = NULL;
    if (data_path) {
        data =
            read_file(data_path, (size_t)(shape->nodes / 4 * 127), &req.data_len, why, sizeof why);
        if (!data) return czk_cli_fail(CMD, "%s", why);
        req.data_kind = CZK_SEAL_DATA_BYTES;
        req.data = (const uint8_t *)data;
    } else if (have_random) {
        req.data_kind = CZK_SEAL_DATA_RANDOM;
    }
    czk_pool *pool = czk_pool_create((unsigned)threads, &err);
    if (!pool) {
        free(data);
        return czk_cli_fail(CMD, "%s", err.msg);
    }
    stage_log log = {verbose, czk_now(), 0, NULL};
    log.last = log.t0;
    req.on_stage = on_stage;
    req.stage_arg = &log;
    if (snap) {
        int rc = czk_cli_gen_vanilla_snap(&req, (unsigned)snap_h, out_path, out_dir, pool);
        on_stage(&log, NULL);
        czk_pool_destroy(pool);
        free(data);
        return rc;
    }
    czk_c1 *c1 = NULL;
    czk_seal_result res;
    czk_status st = czk_seal_generate(&c1, &res, &req, pool, &err);
    czk_pool_destroy(pool);
    free(data);
    if (st != CZK_OK) return czk_cli_fail(CMD, "%s", err.msg);
    on_stage(&log, "json");
    char *json = NULL;
    size_t len = 0;
    st = czk_c1_to_json(c1, &json, &len, &err);
    czk_c1_free(c1);
    if (st != CZK_OK) return czk_cli_fail(CMD, "%s", err.msg);
    FILE *f = strcmp(out_path, "-") ? fopen(out_path, "wb") : stdout;
    if (!f) {
        free(json);
        return czk_cli_fail(CMD, "open %s: %s", out_path, strerror(errno));
    }
    bool bad = fwrite(json, 1, len, f) != len;
    bad |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
    free(json);
    if (bad) return czk_cli_fail(CMD, "write %s: %s", out_path, strerror(errno));
    on_stage(&log, NULL);
    char cd[65], cr[65], rid[65];
    hex(cd, res.comm_d);
    hex(cr, res.comm_r);
    hex(rid, res.replica_id);
    fprintf(
        stderr,
        "czk gen-vanilla: %s%s proof %llu: comm_d %s comm_r %s replica_id %s, %zu bytes, %.2f s\n",
        shape->name, req.sparse ? " sparse" : "", (unsigned long long)req.registered_proof, cd, cr,
        rid, len, czk_now() - log.t0);
    return CZK_EXIT_OK;
}
