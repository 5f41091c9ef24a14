/*
 * The `czk` command: one function per subcommand, argv as after the
 * subcommand name (argv[0] is the subcommand). Exit status: 0 success or
 * positive answer, 1 negative answer (proof invalid, input refused), 2 usage,
 * I/O or internal error. Errors go to stderr as one line naming what is wrong.
 */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include "czk/common.h"
#include "czk/engine.h"
#include "czk/porep_c1.h"
#include "czk/porep_shapes.h"
#include "czk/post.h"
#include "czk/snap.h"
#include <limits.h>
#include <stdio.h>

enum { CZK_EXIT_OK = 0, CZK_EXIT_NO = 1, CZK_EXIT_ERROR = 2 };

typedef struct czk_cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} czk_cli_command;

int czk_cmd_selftest(int argc, char **argv);
int czk_cmd_check_c1(int argc, char **argv);
int czk_cmd_circuit_info(int argc, char **argv);
int czk_cmd_setup(int argc, char **argv);
int czk_cmd_lagrange(int argc, char **argv);
int czk_cmd_timeline(int argc, char **argv);
int czk_cmd_prove(int argc, char **argv);
int czk_cmd_verify(int argc, char **argv);
int czk_cmd_gen_vanilla(int argc, char **argv);
int czk_cmd_daemon(int argc, char **argv); /* daemon.c (gRPC: CZK_RPC) */
int czk_cmd_client(int argc, char **argv); /* client.c (gRPC: CZK_RPC) */
int czk_cmd_bench(int argc, char **argv);  /* bench.c; --addr needs CZK_RPC */

/* Prints "czk <cmd>: <message>" to stderr; returns CZK_EXIT_ERROR. */
int czk_cli_fail(const char *cmd, const char *fmt, ...) CZK_PRINTF(2, 3);
/* True if argv holds -h or --help. */
int czk_cli_wants_help(int argc, char **argv);

/* ---- gen_vanilla_snap.c: `czk gen-vanilla --snap` ---- */
struct czk_seal_request;
struct czk_pool;
/*
 * The SnapDeals half of gen-vanilla, after gen_vanilla.c parsed the sector
 * key's options into req (its data settings are the new data's): writes
 * the partition proofs to out (a JSON array of base64 blobs, as Curio
 * stores them) and/or out_dir (partition-<k>.vproof bincode files and
 * update.json). h = 0: the size's default. Returns a CZK_EXIT_ code.
 */
int czk_cli_gen_vanilla_snap(const struct czk_seal_request *req, unsigned h, const char *out,
                             const char *out_dir, struct czk_pool *pool);
void czk_cli_gen_vanilla_snap_help(FILE *f);

/* ---- cli_util.c ---- */
/* Monotonic wall seconds. */
double czk_cli_now(void);
/* Peak resident memory of this process in bytes (VmHWM), 0 if unknown. */
uint64_t czk_cli_peak_rss(void);
/* The synthesis workers of a one-job engine (czk prove) without --witnesses: half the CPUs,
 * 2..18, at most 4 on the GPU (the 32GiB sweep of bench/GPU.md "Third run" kept the H200 busy
 * with 4; each worker more is one more witness buffer to page-lock before "ready"), at most
 * `partitions` when that is not 0. */
unsigned czk_cli_witness_workers(bool use_cuda, uint32_t partitions);
/* A decimal u64 (no sign, no spaces); false if it is not one. */
bool czk_cli_parse_u64(const char *s, uint64_t *out);
/* "2048", "2KiB", "32GiB", "2k"... -> bytes; 0 if unparsable. */
uint64_t czk_cli_parse_size(const char *s);
/* Reads a whole file into *out (malloc'ed). CZK_EXIT_OK, or prints the
 * error as `czk <cmd>: ...` and returns CZK_EXIT_ERROR. */
int czk_cli_read_file(const char *cmd, const char *path, uint8_t **out, size_t *len);
/*
 * The default cap on a C1 file's size, 1 GiB. The largest C1 is a 64GiB
 * NI-PoRep one: 126 partitions of 18 challenges (spec/post-snap.md §1)
 * where a 64GiB interactive C1 has 10; a 10-partition 64GiB C1 is ≈ 38 MB
 * of JSON (tests/porep/c1_large.c; every Domain an array of 32 integers),
 * so the NI one is ≈ 480 MB, ≈ 640 MB as base64 in cuzk's envelope: the cap
 * is 2.2× and 1.6× those, and below every .params file (the smallest, 2KiB,
 * is 1,114,707,768 bytes), which is refused by its size before any read.
 */
#define CZK_CLI_C1_MAX_DEFAULT (1ull << 30)
/* Settings a command takes from the environment, read once (czk_cli_env_init). */
typedef struct czk_cli_env {
    uint64_t c1_max; /* CZK_C1_MAX_SIZE: the C1 size cap in bytes ("2GiB" too) */
} czk_cli_env;
/* Reads the environment's settings; main calls it once. CZK_EXIT_OK, or prints
 * the error (naming the variable) and returns CZK_EXIT_ERROR. */
int czk_cli_env_init(void);
const czk_cli_env *czk_cli_env_get(void);
/* czk_cli_read_file for a C1: refused, with a message naming the cap and
 * CZK_C1_MAX_SIZE, once it is larger than czk_cli_env_get()->c1_max (a regular
 * file by its size, before reading; a pipe or device once it has given
 * that many bytes). */
int czk_cli_read_c1(const char *cmd, const char *path, uint8_t **out, size_t *len);
/*
 * A command's --out file, checked before any work and written through a
 * temporary file beside it (PATH.tmp.PID, renamed on commit), so that a bad
 * path fails at once and a failed write leaves no partial file.
 * czk_cli_out_open: CZK_EXIT_OK, or prints "CMD: --out PATH is a directory"
 *   / "--out PATH: cannot create a file there (...); nothing was <nothing>"
 *   and returns CZK_EXIT_ERROR. czk_cli_out_commit writes b[0..n) and
 *   renames (CZK_EXIT_ERROR naming the path on a failure, the temporary
 *   removed); czk_cli_out_drop removes an uncommitted temporary (any state).
 */
typedef struct czk_cli_out {
    const char *cmd, *path;
    char tmp[PATH_MAX];
    FILE *f;
} czk_cli_out;
int czk_cli_out_open(czk_cli_out *o, const char *cmd, const char *path, const char *nothing);
int czk_cli_out_commit(czk_cli_out *o, const uint8_t *b, size_t n);
void czk_cli_out_drop(czk_cli_out *o);
/* The values of --backend (auto, cpu or cuda: *backend = v) and --device (a CUDA device number,
 * 0..1023: *device). CZK_EXIT_OK, or prints "--backend takes auto, cpu or cuda, not 'v'" /
 * "--device takes a CUDA device number, not 'v'" and returns CZK_EXIT_ERROR. */
int czk_cli_backend_arg(const char *cmd, const char *v, const char **backend);
int czk_cli_device_arg(const char *cmd, const char *v, uint64_t *device);
/* --backend auto|cpu|cuda and --device N: *use_cuda (cuda, or auto with a GPU present).
 * CZK_EXIT_OK, or prints why CUDA cannot be used ("this czk was built without CUDA", "no
 * CUDA device", "--device is not a CUDA device here") and returns CZK_EXIT_ERROR. */
int czk_cli_backend_pick(const char *cmd, const char *backend, uint64_t device, bool *use_cuda);
/* Why czk_cli_backend_pick chose the CPU for --backend `backend`: "--backend cpu", "auto: this
 * czk was built without CUDA" or "auto: no CUDA device found (no GPU or no driver)". */
const char *czk_cli_cpu_reason(const char *backend);
/* mkdir -p dir. CZK_EXIT_OK, or prints "cannot create DIR: ..." and returns CZK_EXIT_ERROR. */
int czk_cli_mkdir_p(const char *cmd, const char *dir);
/* Parses a raw C1 JSON, or cuzk's envelope (told apart by the first key;
 * then *envelope is set and *sector_num is its SectorNum). */
CZK_NODISCARD czk_status czk_cli_parse_c1(czk_c1 **out, bool *envelope, uint64_t *sector_num,
                                          const uint8_t *buf, size_t len, czk_err *err);
/*
 * After getopt_long (optstring starting with ':', opterr 0) returned ch ':'
 * or '?': prints usage to stderr and one line naming the option ("--c1 needs
 * a value", "--no-shape-cache takes no value", "unknown option --bogus");
 * returns CZK_EXIT_ERROR. longopts is the table given to getopt_long.
 */
struct option;
int czk_cli_getopt_fail(const char *cmd, const char *usage, int ch, char **argv,
                        const struct option *longopts);
/* Lower-case hex of n bytes (2n + 1 chars with the NUL). */
void czk_cli_hex(char *out, const uint8_t *b, size_t n);

/* 32 bytes from 64 hex digits (an optional 0x first); false if s is not that. */
bool czk_cli_parse_hex32(const char *s, uint8_t out[32]);

/* ---- c1_args.c: the option group of `czk prove` and `czk verify` ---- */

/* getopt_long values of the group; CZK_CLI_C1_LONGOPTS(key) puts its entries in a table:
 * --c1 FILE, --<key> FILE ("params" or "vk"), --param-cache DIR, --sector-num N,
 * --miner-id N, --prover-id HEX. */
enum {
    CZK_CLI_O_C1 = 0x1000,
    CZK_CLI_O_KEY,
    CZK_CLI_O_CACHE,
    CZK_CLI_O_SECTOR,
    CZK_CLI_O_MINER,
    CZK_CLI_O_PROVER,
};
#define CZK_CLI_C1_LONGOPTS(key)                                                                   \
    {"c1", required_argument, NULL, CZK_CLI_O_C1}, {key, required_argument, NULL, CZK_CLI_O_KEY},  \
        {"param-cache", required_argument, NULL, CZK_CLI_O_CACHE},                                 \
        {"sector-num", required_argument, NULL, CZK_CLI_O_SECTOR},                                 \
        {"miner-id", required_argument, NULL, CZK_CLI_O_MINER}, {                                  \
        "prover-id", required_argument, NULL, CZK_CLI_O_PROVER                                     \
    }

typedef struct czk_cli_c1_args {
    const char *cmd, *key_opt, *key_ext; /* "prove", "params", ".params" */
    const char *c1_path, *key_path, *cache_dir;
    uint64_t sector, miner;
    uint8_t prover_id[32];
    bool have_sector, have_miner, have_prover;
} czk_cli_c1_args;

void czk_cli_c1_args_init(czk_cli_c1_args *a, const char *cmd, const char *key_opt,
                          const char *key_ext) CZK_NONNULL(1, 2, 3, 4);
/* One getopt_long result: false if ch is not the group's; else true with *rc 0 (taken) or
 * the exit status after the error was printed ("--sector-num takes a number, not 'x'"). */
bool czk_cli_c1_opt(czk_cli_c1_args *a, int ch, const char *v, int *rc) CZK_NONNULL(1, 4);
/* After the options: --<key> and --param-cache, --prover-id and --miner-id exclude each other. */
int czk_cli_c1_args_check(const czk_cli_c1_args *a) CZK_NONNULL(1);

/* A C1 as loaded by czk_cli_c1_load. */
typedef struct czk_cli_c1 {
    czk_c1 *c1;
    bool envelope;   /* the file was cuzk's envelope */
    uint64_t sector; /* --sector-num, or the envelope's SectorNum */
    bool have_sector;
    czk_porep_proof proof; /* its registered proof */
    uint8_t *bytes;        /* the file as read (keep_bytes), else NULL */
    size_t len;
    double parse_s;
} czk_cli_c1;

/*
 * Reads and parses a->c1_path (raw C1 or envelope; an envelope's SectorNum
 * must equal --sector-num when both are given) and looks up its registered
 * proof. A C1 that does not parse or disagrees is printed as
 * "czk <cmd>: FILE: [refused: ]<reason>" and returns `refused` (prove 1,
 * verify 2); other errors CZK_EXIT_ERROR. Free with czk_cli_c1_free.
 */
int czk_cli_c1_load(czk_cli_c1 *out, const czk_cli_c1_args *a, int refused, bool keep_bytes)
    CZK_NONNULL(1, 2);
void czk_cli_c1_free(czk_cli_c1 *c) CZK_NONNULL(1);
/* True when replica_id can be recomputed: the sector number and a miner or prover id. */
bool czk_cli_c1_ids(const czk_cli_c1_args *a, const czk_cli_c1 *c) CZK_NONNULL(1, 2);
/* --prover-id, or the prover id of miner f0<--miner-id>. */
void czk_cli_c1_prover_id(uint8_t out[32], const czk_cli_c1_args *a) CZK_NONNULL(1, 2);
/* "miner f01000, sector 1" or "prover id <hex>, sector 1". */
void czk_cli_c1_ids_text(char *out, size_t cap, const czk_cli_c1_args *a, uint64_t sector)
    CZK_NONNULL(1, 3);
/*
 * The key file (a->key_ext) for shape: --<key> as given, else on the key
 * search path (czk_porep_find_key: --param-cache when given, the parameter
 * cache, czk's test keys) by Filecoin's v28 name, then czk's test-key name.
 * *kind_name says which ("czk TEST keys (...)", "Filecoin v28 verifying
 * key", "given with --vk"...).
 * Returns: CZK_OK; CZK_ERR_IO naming the directories, both names looked for
 *   and the keys found there; CZK_ERR_INVALID_ARG.
 */
CZK_NODISCARD czk_status czk_cli_c1_key(char *path, size_t cap, const char **kind_name,
                                        const czk_cli_c1_args *a, const czk_porep_shape *shape,
                                        czk_err *err) CZK_NONNULL(1, 3, 4, 5);
/* cuzk's envelope {"SectorNum","Phase1Out": base64 of the raw C1 JSON,"SectorSize"}
 * (*out malloc'ed, not NUL-terminated). CZK_EXIT_OK, or the error printed and
 * CZK_EXIT_ERROR. */
int czk_cli_envelope(const char *cmd, char **out, size_t *out_len, const uint8_t *c1_json,
                     size_t len, uint64_t sector_num, uint64_t sector_size);

/*
 * Progress of a parameter read on stderr (a czk_params_progress_fn, ctx a
 * czk_cli_progress set up by czk_cli_progress_init; with what and points
 * set, of other work counted in points: czk setup's). On a terminal one line
 * "czk <cmd>: loading keys: <stage> NN % (X of Y GiB)", redrawn in place at
 * most every 0.1 s and erased by czk_cli_progress_end. Otherwise a plain
 * line (with the seconds so far) per 10 points of each pass at most every
 * 5 s, and at least every 30 s while it advances, only once the read has
 * taken 2 s (a quick read prints nothing). The reader's notice before a
 * subgroup pass (CZK_PARAMS_NOTICE: why, and about how long) is always
 * printed, on a line of its own.
 */
typedef struct czk_cli_progress {
    const char *cmd;
    const char *what; /* the line's label: "loading keys" (init), or set after init */
    bool points;      /* amounts in points (czk setup), not bytes */
    bool tty, drawn, subgroup;
    int pct_line; /* percentage of the last plain line in this pass, -1 for none */
    double t0, t_draw, t_line;
} czk_cli_progress;
void czk_cli_progress_init(czk_cli_progress *p, const char *cmd) CZK_NONNULL(1, 2);
void czk_cli_progress_fn(void *ctx, const char *stage, uint64_t done_bytes, uint64_t total_bytes);
void czk_cli_progress_end(czk_cli_progress *p) CZK_NONNULL(1);

/* ---- post_args.c: PoSt and SnapDeals requests (czk gen-vanilla --post and --snap
 * --out-dir write them; czk prove, verify and bench --kind window-post|winning-post|snap
 * read them) ---- */

/* "window-post" / "winning-post". */
const char *czk_cli_post_kind_name(czk_post_kind k);
/* The inverse; false for anything else. */
bool czk_cli_post_kind_parse(const char *s, czk_post_kind *out) CZK_NONNULL(1, 2);
/* "window-post", "winning-post", "snap" for CZK_KIND_WINDOW_POST, CZK_KIND_WINNING_POST,
 * CZK_KIND_SNAP_UPDATE ("?" for another id): the --kind words of the request kinds. */
const char *czk_cli_req_kind_name(czk_kind_id k);
/* The inverse; false for anything else (porep, test). */
bool czk_cli_req_kind_parse(const char *s, czk_kind_id *out) CZK_NONNULL(1, 2);
/* 1 if argv asks a request kind (--kind other than porep, or --request): the hook of the
 * PoRep commands (prove, verify) into their halves for request files; else 0. */
int czk_cli_post_kind_arg(int argc, char **argv);

/* The PoRep shape of --sector-size and/or --registered-proof (RegisteredSealProof 0..19; either
 * may be NULL, both: *out NULL). CZK_EXIT_OK, or the error printed ("no PoRep sector size of
 * 3072 bytes (...)", "registered proof 5 is for 2KiB sectors, not 32GiB") and CZK_EXIT_ERROR. */
int czk_cli_porep_proof_arg(const char *cmd, const char *size_arg, const char *proof_arg,
                            const czk_porep_shape **out) CZK_NONNULL(1, 4);
/* The registered proof of --sector-size and/or --registered-proof (not both NULL) for kind;
 * without an id, WinningPoSt's or WindowPoSt V1_2's of the size. CZK_EXIT_OK, or the error
 * printed ("registered proof 5 is a window-post proof, not winning-post") and CZK_EXIT_ERROR. */
int czk_cli_post_proof_arg(const char *cmd, czk_post_kind kind, const char *size_arg,
                           const char *proof_arg, czk_post_proof *out) CZK_NONNULL(1, 5);
/* The SnapDeals shape of --sector-size and/or --registered-proof (RegisteredUpdateProof 0-4;
 * not both NULL; with test_sizes also upstream's test sizes by --sector-size). CZK_EXIT_OK,
 * or the error printed and `refused` (no such size or id, or the two disagree) or
 * CZK_EXIT_ERROR (not a number or size). */
int czk_cli_snap_proof_arg(const char *cmd, const char *size_arg, const char *proof_arg,
                           bool test_sizes, int refused, const czk_snap_shape **out)
    CZK_NONNULL(1, 6);
/* A PoSt or SnapDeals request file (post_args.c describes the JSON). */
typedef struct czk_cli_post_req {
    czk_kind_id kind;     /* CZK_KIND_WINDOW_POST, CZK_KIND_WINNING_POST, CZK_KIND_SNAP_UPDATE */
    czk_post_proof proof; /* PoSt: registered_proof: kind, API version, shape */
    const czk_snap_shape *snap; /* SnapDeals: the registered update proof's shape; else NULL */
    uint64_t miner_id;
    uint8_t randomness[32];   /* PoSt: a canonical Fr (checked) */
    uint32_t partition_index; /* PoSt */
    uint64_t sector_number;   /* SnapDeals (carried, as Curio sends it) */
    unsigned h; /* SnapDeals: the update's h (read: always h_default, others are refused;
                   written: 0 = h_default) */
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32]; /* SnapDeals (canonical Fr) */
    size_t n;                     /* sectors of the partition (PoSt) or partitions (SnapDeals) */
    czk_post_pub_sector *sectors; /* PoSt: n (from the vanilla proofs when the file has none) */
    char **files;                 /* n vanilla proof files, as opened; NULL when embedded */
    uint8_t **blobs;              /* n vanilla proofs (CZK_CLI_POST_BLOBS) */
    size_t *blob_len;
} czk_cli_post_req;
/* "WindowPoSt", "WinningPoSt" or "SnapDeals"; the sector size's name ("2KiB"); the proof's
 * partitions (PoSt 1: a request is one partition; SnapDeals the size's 1, 4 or 16). */
const char *czk_cli_req_title(const czk_cli_post_req *r) CZK_NONNULL(1);
const char *czk_cli_req_size_name(const czk_cli_post_req *r) CZK_NONNULL(1);
unsigned czk_cli_req_partitions(const czk_cli_post_req *r) CZK_NONNULL(1);

enum { CZK_CLI_POST_SECTORS = 1, CZK_CLI_POST_BLOBS = 2 };

/*
 * Reads a request file. need: CZK_CLI_POST_SECTORS (the "sectors" array
 * is required of PoSt: verify), CZK_CLI_POST_BLOBS (the vanilla proofs are
 * read and parsed against the shape's tree, and their sector ids and comm_r
 * checked against "sectors"; a SnapDeals blob as the PartitionProof of its
 * place: prove, bench). A request that is wrong is
 * printed as "czk <cmd>: FILE: [refused: ]<reason naming the key, sector
 * or file>" and returns `refused`; I/O errors CZK_EXIT_ERROR. Free with
 * czk_cli_post_req_free (also after a failure).
 */
int czk_cli_post_req_read(czk_cli_post_req *out, const char *cmd, const char *path, unsigned need,
                          int refused) CZK_NONNULL(1, 2, 3);
void czk_cli_post_req_free(czk_cli_post_req *r) CZK_NONNULL(1);
/* The engine request of r (its kind, the fields Curio sets); it points into r (its blobs),
 * which must outlive it. */
void czk_cli_post_request(czk_proof_request *out, const czk_cli_post_req *r) CZK_NONNULL(1, 2);
/* Writes r as a request file: names[i] the vanilla proof files (relative to path's
 * directory), or with embed the blobs themselves as base64. CZK_EXIT_OK or the error
 * printed and CZK_EXIT_ERROR. */
int czk_cli_post_req_write(const char *cmd, const char *path, const czk_cli_post_req *r,
                           const char *const *names, bool embed) CZK_NONNULL(1, 2, 3);
/*
 * The key file (ext ".params" or ".vk") of the request's circuit: key_path
 * as given, else on the key search path from cache_dir (NULL:
 * czk_param_cache_dir) by Filecoin's v28 name, then czk's test-key name
 * (czk_post_find_key, czk_snap_find_key). *kind_name says which.
 * Returns: CZK_OK; CZK_ERR_IO naming both names looked for; CZK_ERR_INVALID_ARG.
 */
CZK_NODISCARD czk_status czk_cli_req_key(char *path, size_t cap, const char **kind_name,
                                         const char *key_path, const char *cache_dir,
                                         const char *ext, const czk_cli_post_req *r, czk_err *err)
    CZK_NONNULL(1, 3, 6, 7);

/* The public inputs (ONE excluded) of partition k of a request: PoSt (k = 0, the request's
 * one) from its sectors' ids and comm_r (czk_post_public_inputs, with partition_index;
 * WinningPoSt over 66 copies of its sector); SnapDeals from its commitments
 * (czk_snap_public_inputs of partition k, h_default).
 * Out: *out (n values, malloc'ed). Returns: those functions' errors; CZK_ERR_NOMEM. */
CZK_NODISCARD czk_status czk_cli_req_inputs(czk_fr **out, size_t *n, const czk_cli_post_req *r,
                                            unsigned k, czk_err *err) CZK_NONNULL(1, 2, 3);
/* The PoSt and SnapDeals halves of the commands (gen_vanilla_post.c; prove_post.c and
 * verify_post.c: every request kind). */
int czk_cmd_gen_vanilla_post(int argc, char **argv);
int czk_cmd_prove_post(int argc, char **argv);
int czk_cmd_verify_post(int argc, char **argv);

#endif
