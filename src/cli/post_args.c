/*
 * PoSt and SnapDeals requests as files: the JSON that `czk gen-vanilla
 * --post` and `czk gen-vanilla --snap --out-dir` write and `czk prove`,
 * `czk verify` and `czk bench` read with --kind window-post, winning-post
 * or snap, and the key lookup of their circuits (Filecoin's v28 name
 * first, then czk's test keys, as for PoRep).
 *
 * A request file carries the SubmitProofRequest fields Curio sets for the
 * two kinds (spec post-snap.md §4) plus the public values of its sectors:
 *
 *   {"kind": "window-post", "registered_proof": 10, "sector_size": 2048,
 *    "miner_id": 1000, "randomness": "<64 hex digits>", "partition_index": 0,
 *    "sectors": [{"sector_id": 7, "comm_r": "<64 hex>"}, ...],
 *    "vanilla_proof_files": ["sector-7.vproof", ...]}
 *
 * with "vanilla_proofs": ["<base64>", ...] (the JSON array of base64 blobs
 * Go's encoding/json makes of a [][]byte) in place of the file names when
 * the blobs travel inside. File names are relative to the request's
 * directory. The blobs are bincode FallbackPoStSectorProofs, one per sector
 * in partition order (WinningPoSt: exactly one). `sectors` gives what a
 * verifier knows without the vanilla proofs (sector ids and comm_r); when
 * both are present they must agree.
 *
 * A SnapDeals request carries the fields Curio's ProveUpdateCuzk sets:
 *
 *   {"kind": "snap", "registered_proof": 0, "sector_size": 2048,
 *    "miner_id": 1000, "sector_number": 12, "h": 1, "partitions": 1,
 *    "comm_r_old": "<64 hex>", "comm_d_new": "<64 hex>",
 *    "comm_r_new": "<64 hex>", "vanilla_proof_files": ["partition-0.vproof"]}
 *
 * registered_proof is the RegisteredUpdateProof (0-4); h and partitions
 * (optional) must be the size's h_default and partition count (what Curio
 * proves); the blobs are the bincode PartitionProofs in partition order
 * (or "vanilla_proofs", base64, as for PoSt). The commitments are what a
 * verifier knows. The text is read with yajl's tree API (a request is
 * small: 2349 sectors are a few hundred KiB of names), every key checked,
 * unknown keys refused.
 */
#include "cli/cli.h"
#include "czk/keys.h"
#include "util/json.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

const char *czk_cli_post_kind_name(czk_post_kind k) {
    return k == CZK_POST_WINNING ? "winning-post" : "window-post";
}

bool czk_cli_post_kind_parse(const char *s, czk_post_kind *out) {
    if (!strcmp(s, "window-post"))
        *out = CZK_POST_WINDOW;
    else if (!strcmp(s, "winning-post"))
        *out = CZK_POST_WINNING;
    else
        return false;
    return true;
}

const char *czk_cli_req_kind_name(czk_kind_id k) {
    switch (k) {
    case CZK_KIND_WINNING_POST:
        return "winning-post";
    case CZK_KIND_WINDOW_POST:
        return "window-post";
    case CZK_KIND_SNAP_UPDATE:
        return "snap";
    default:
        return "?";
    }
}

bool czk_cli_req_kind_parse(const char *s, czk_kind_id *out) {
    czk_post_kind pk;
    if (czk_cli_post_kind_parse(s, &pk))
        *out = pk == CZK_POST_WINNING ? CZK_KIND_WINNING_POST : CZK_KIND_WINDOW_POST;
    else if (!strcmp(s, "snap"))
        *out = CZK_KIND_SNAP_UPDATE;
    else
        return false;
    return true;
}

const char *czk_cli_req_title(const czk_cli_post_req *r) {
    return r->kind == CZK_KIND_SNAP_UPDATE    ? "SnapDeals"
           : r->kind == CZK_KIND_WINNING_POST ? "WinningPoSt"
                                              : "WindowPoSt";
}

const char *czk_cli_req_size_name(const czk_cli_post_req *r) {
    return r->snap ? r->snap->name : r->proof.shape->name;
}

unsigned czk_cli_req_partitions(const czk_cli_post_req *r) {
    return r->snap ? r->snap->partitions : 1;
}

int czk_cli_post_kind_arg(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--request") || !strncmp(a, "--request=", 10)) return 1;
        const char *v = !strncmp(a, "--kind=", 7) ? a + 7
                        : !strcmp(a, "--kind")    ? (i + 1 < argc ? argv[i + 1] : "")
                                                  : NULL;
        if (v && strcmp(v, "porep")) return 1;
    }
    return 0;
}

void czk_cli_post_req_free(czk_cli_post_req *r) {
    for (size_t i = 0; i < r->n; i++) {
        if (r->files) free(r->files[i]);
        if (r->blobs) free(r->blobs[i]);
    }
    free(r->files);
    free(r->blobs);
    free(r->blob_len);
    free(r->sectors);
    memset(r, 0, sizeof *r);
}

int czk_cli_post_proof_arg(const char *cmd, czk_post_kind kind, const char *size_arg,
                           const char *proof_arg, czk_post_proof *out) {
    const czk_post_shape *shape = NULL;
    czk_err err;
    if (size_arg) {
        uint64_t bytes = czk_cli_parse_size(size_arg);
        if (!(shape = bytes ? czk_post_shape_for_size(bytes) : NULL))
            return czk_cli_fail(cmd,
                                "--sector-size: no PoSt sector size '%s' (2KiB, 8MiB, 512MiB, "
                                "32GiB, 64GiB)",
                                size_arg);
    }
    uint64_t id;
    if (!shape && !proof_arg) {
        return czk_cli_fail(cmd, "--sector-size or --registered-proof is required");
    } else if (!proof_arg) {
        id = (uint64_t)(shape - czk_post_shapes) + (kind == CZK_POST_WINNING ? 0 : 10);
    } else if (!czk_cli_parse_u64(proof_arg, &id)) {
        return czk_cli_fail(cmd, "--registered-proof takes a RegisteredPoStProof number, not '%s'",
                            proof_arg);
    }
    if (czk_post_proof_lookup(id, out, &err))
        return czk_cli_fail(cmd, "--registered-proof: %s", err.msg);
    if (out->kind != kind)
        return czk_cli_fail(cmd, "registered proof %llu is a %s proof, not %s",
                            (unsigned long long)id, czk_cli_post_kind_name(out->kind),
                            czk_cli_post_kind_name(kind));
    if (shape && out->shape != shape)
        return czk_cli_fail(cmd, "registered proof %llu is for %s sectors, not %s",
                            (unsigned long long)id, out->shape->name, shape->name);
    return CZK_EXIT_OK;
}

int czk_cli_snap_proof_arg(const char *cmd, const char *size_arg, const char *proof_arg,
                           bool test_sizes, int refused, const czk_snap_shape **out) {
    const czk_snap_shape *shape = NULL;
    czk_err err;
    if (!size_arg && !proof_arg)
        return czk_cli_fail(cmd, "--sector-size or --registered-proof is required");
    if (size_arg) {
        uint64_t bytes = czk_cli_parse_size(size_arg);
        if (!bytes) return czk_cli_fail(cmd, "--sector-size takes a size, not '%s'", size_arg);
        shape = czk_snap_shape_for_size(bytes);
        if (!shape || (!test_sizes && shape->registered_proof < 0)) {
            czk_cli_fail(cmd,
                         "no SnapDeals sector size of %llu bytes (2KiB, 8MiB, 512MiB, 32GiB, "
                         "64GiB%s)",
                         (unsigned long long)bytes,
                         test_sizes ? "; tests 1KiB, 4KiB, 8KiB, 16KiB, 32KiB, 16MiB" : "");
            return refused;
        }
    }
    if (proof_arg) {
        uint64_t id;
        if (!czk_cli_parse_u64(proof_arg, &id))
            return czk_cli_fail(cmd, "--registered-proof takes a number, not '%s'", proof_arg);
        const czk_snap_shape *ps;
        if (czk_snap_proof_lookup(id, &ps, &err)) {
            czk_cli_fail(cmd, "%s", err.msg);
            return refused;
        }
        if (shape && ps != shape) {
            czk_cli_fail(cmd, "registered update proof %llu is for %s sectors, not %s",
                         (unsigned long long)id, ps->name, shape->name);
            return refused;
        }
        shape = ps;
    }
    *out = shape;
    return CZK_EXIT_OK;
}

/* ---- reading ---- */

typedef struct rd {
    const char *cmd, *path;
    char dir[PATH_MAX]; /* of the request file, for relative names */
    char why[600];      /* a refusal's reason */
} rd;

/* Refused: the reason, for the caller to print; returns false. */
static bool no(rd *d, const char *fmt, ...) CZK_PRINTF(2, 3);
static bool no(rd *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->why, sizeof d->why, fmt, ap);
    va_end(ap);
    return false;
}

static bool get_u64(rd *d, yajl_val v, const char *name, uint64_t *out) {
    const char *t = YAJL_IS_NUMBER(v) ? v->u.number.r : NULL;
    if (!t || !czk_json_u64(t, strlen(t), out))
        return no(d, "%s must be an unsigned integer", name);
    return true;
}

static bool get_hex32(rd *d, yajl_val v, const char *name, uint8_t out[32]) {
    if (!YAJL_IS_STRING(v) || !czk_cli_parse_hex32(v->u.string, out))
        return no(d, "%s must be 32 bytes as 64 hex digits", name);
    return true;
}

/* The array under key (NULL when absent); refused if it is not one. */
static bool get_array(rd *d, yajl_val v, const char *name, yajl_val *out) {
    *out = NULL;
    if (!v) return true;
    if (!YAJL_IS_ARRAY(v) || !v->u.array.len) return no(d, "%s must be a non-empty array", name);
    *out = v;
    return true;
}

static const char *const KEYS[] = {
    "kind",    "registered_proof",    "sector_size",    "miner_id", "randomness", "partition_index",
    "sectors", "vanilla_proof_files", "vanilla_proofs", NULL};

static bool read_sectors(rd *d, czk_cli_post_req *r, yajl_val a) {
    if (!(r->sectors = calloc(r->n, sizeof *r->sectors))) return no(d, "out of memory");
    for (size_t i = 0; i < r->n; i++) {
        yajl_val s = a->u.array.values[i];
        char name[64];
        snprintf(name, sizeof name, "sectors[%zu]", i);
        if (!YAJL_IS_OBJECT(s)) return no(d, "%s must be an object", name);
        bool id = false, cr = false;
        for (size_t k = 0; k < s->u.object.len; k++) {
            const char *key = s->u.object.keys[k];
            yajl_val v = s->u.object.values[k];
            char f[96];
            snprintf(f, sizeof f, "%s.%s", name, key);
            if (!strcmp(key, "sector_id")) {
                if (!get_u64(d, v, f, &r->sectors[i].sector_id)) return false;
                id = true;
            } else if (!strcmp(key, "comm_r")) {
                if (!get_hex32(d, v, f, r->sectors[i].comm_r)) return false;
                cr = true;
            } else {
                return no(d, "%s: unknown key '%s' (sector_id, comm_r)", name, key);
            }
        }
        if (!id || !cr) return no(d, "%s needs %s", name, id ? "comm_r" : "sector_id");
    }
    return true;
}

static czk_status grow_sink(void *ctx, const uint8_t *buf, size_t len) {
    struct sink {
        uint8_t *b;
        size_t n, cap;
    } *s = ctx;
    if (s->n + len > s->cap) {
        size_t cap = (s->n + len) * 2;
        uint8_t *b = realloc(s->b, cap);
        if (!b) return CZK_ERR_NOMEM;
        s->b = b;
        s->cap = cap;
    }
    memcpy(s->b + s->n, buf, len);
    s->n += len;
    return CZK_OK;
}

/* The vanilla proofs: files read, or the embedded base64 decoded. CZK_EXIT_OK, refused
 * (d->why set, returns -1) or an I/O error (printed, CZK_EXIT_ERROR). */
static int read_blobs(rd *d, czk_cli_post_req *r, yajl_val files, yajl_val b64) {
    if (!(r->blobs = calloc(r->n, sizeof *r->blobs)) ||
        !(r->blob_len = calloc(r->n, sizeof *r->blob_len)))
        return czk_cli_fail(d->cmd, "out of memory");
    for (size_t i = 0; i < r->n; i++) {
        if (files) {
            int rc = czk_cli_read_file(d->cmd, r->files[i], &r->blobs[i], &r->blob_len[i]);
            if (rc) return rc;
            continue;
        }
        yajl_val v = b64->u.array.values[i];
        struct {
            uint8_t *b;
            size_t n, cap;
        } s = {NULL, 0, 0};
        char why[200];
        czk_status st = czk_json_b64_decode((const unsigned char *)v->u.string, strlen(v->u.string),
                                            grow_sink, &s, why, sizeof why);
        if (st) {
            free(s.b);
            if (st == CZK_ERR_NOMEM) return czk_cli_fail(d->cmd, "out of memory");
            no(d, "vanilla_proofs[%zu]: %s", i, why);
            return -1;
        }
        r->blobs[i] = s.b;
        r->blob_len[i] = s.n;
    }
    return CZK_EXIT_OK;
}

/*
 * The vanilla proofs parsed against the shape's tree (the engine parses
 * its own copy again at intake); their sector ids and comm_r are the
 * sectors' when the request has none, else must equal them.
 */
static bool check_blobs(rd *d, czk_cli_post_req *r, bool have_sectors) {
    czk_post_config cfg;
    czk_post_config_for(&cfg, r->proof.kind, r->proof.shape);
    czk_por_tree tree;
    czk_err err;
    if (czk_post_config_check(&cfg, &tree, &err)) return no(d, "%s", err.msg);
    unsigned challenges = r->proof.kind == CZK_POST_WINNING ? CZK_POST_WINNING_CHALLENGES
                                                            : CZK_POST_WINDOW_CHALLENGES;
    if (!have_sectors && !(r->sectors = calloc(r->n, sizeof *r->sectors)))
        return no(d, "out of memory");
    for (size_t i = 0; i < r->n; i++) {
        char where[PATH_MAX + 32];
        if (r->files)
            snprintf(where, sizeof where, "%s", r->files[i]);
        else
            snprintf(where, sizeof where, "vanilla_proofs[%zu]", i);
        czk_post_vanilla *v = NULL;
        if (czk_post_vanilla_parse(&v, r->blobs[i], r->blob_len[i], &tree, challenges, &err))
            return no(d, "%s: %s", where, err.msg);
        czk_post_pub_sector *s = &r->sectors[i];
        bool ok = true;
        if (!have_sectors) {
            s->sector_id = v->sector_id;
            memcpy(s->comm_r, v->comm_r, 32);
        } else if (s->sector_id != v->sector_id) {
            ok = no(d, "%s is the vanilla proof of sector %llu; sectors[%zu] is sector %llu", where,
                    (unsigned long long)v->sector_id, i, (unsigned long long)s->sector_id);
        } else if (memcmp(s->comm_r, v->comm_r, 32)) {
            ok = no(d, "sector %llu: the comm_r of %s differs from sectors[%zu].comm_r",
                    (unsigned long long)s->sector_id, where, i);
        }
        czk_post_vanilla_free(v);
        if (!ok) return false;
    }
    return true;
}

/* The root object's values by key into v[i] for keys[i] (NULL-terminated list); an unknown
 * key is refused, naming the known ones. */
static bool take_keys(rd *d, yajl_val root, const char *const *keys, yajl_val *v) {
    for (size_t k = 0; k < root->u.object.len; k++) {
        const char *key = root->u.object.keys[k];
        size_t j = 0;
        while (keys[j] && strcmp(keys[j], key))
            j++;
        if (keys[j]) {
            v[j] = root->u.object.values[k];
            continue;
        }
        char known[400] = "";
        for (size_t i = 0, n = 0; keys[i] && n < sizeof known; i++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "", keys[i]);
        return no(d, "unknown key '%s' (%s)", key, known);
    }
    return true;
}

/* vanilla_proof_files or vanilla_proofs (not both), each a non-empty array of strings: *vp
 * the one given (NULL: neither), *files_out / *b64_out as get_array sets them. */
static bool take_blobs(rd *d, yajl_val files, yajl_val b64, unsigned need, yajl_val *files_out,
                       yajl_val *b64_out, yajl_val *vp) {
    if (!get_array(d, files, "vanilla_proof_files", files_out) ||
        !get_array(d, b64, "vanilla_proofs", b64_out))
        return false;
    if (files && b64)
        return no(d, "vanilla_proof_files and vanilla_proofs exclude each other (files or "
                     "embedded base64)");
    *vp = files ? files : b64;
    if ((need & CZK_CLI_POST_BLOBS) && !*vp)
        return no(d, "vanilla_proof_files (or vanilla_proofs) is missing");
    for (size_t i = 0; *vp && i < (*vp)->u.array.len; i++)
        if (!YAJL_IS_STRING((*vp)->u.array.values[i]))
            return no(d, "%s[%zu] must be a string",
                      files ? "vanilla_proof_files" : "vanilla_proofs", i);
    return true;
}

/* The fields of a PoSt request's root object; false (refused) with d->why. */
static bool read_post_fields(rd *d, czk_cli_post_req *r, yajl_val root, unsigned need,
                             yajl_val *files_out, yajl_val *b64_out, yajl_val *sectors_out) {
    yajl_val f[9] = {NULL};
    if (!take_keys(d, root, KEYS, f)) return false;
    yajl_val kind = f[0], rp = f[1], size = f[2], miner = f[3], rnd = f[4], part = f[5],
             sectors = f[6], files = f[7], b64 = f[8];
    czk_post_kind pk;
    if (!czk_cli_post_kind_parse(kind->u.string, &pk)) return false; /* read_fields checked */
    uint64_t id, v;
    czk_err err;
    if (!rp) return no(d, "registered_proof is missing");
    if (!get_u64(d, rp, "registered_proof", &id)) return false;
    if (czk_post_proof_lookup(id, &r->proof, &err)) return no(d, "%s", err.msg);
    r->kind = pk == CZK_POST_WINNING ? CZK_KIND_WINNING_POST : CZK_KIND_WINDOW_POST;
    if (r->proof.kind != pk)
        return no(d, "registered_proof %llu is a %s proof, the kind is %s", (unsigned long long)id,
                  czk_cli_post_kind_name(r->proof.kind), kind->u.string);
    if (size) {
        if (!get_u64(d, size, "sector_size", &v)) return false;
        if (v != r->proof.shape->sector_size)
            return no(d, "sector_size %llu: registered_proof %llu is for %s sectors (%llu bytes)",
                      (unsigned long long)v, (unsigned long long)id, r->proof.shape->name,
                      (unsigned long long)r->proof.shape->sector_size);
    }
    if (!miner) return no(d, "miner_id is missing");
    if (!get_u64(d, miner, "miner_id", &r->miner_id)) return false;
    if (!rnd) return no(d, "randomness is missing");
    if (!get_hex32(d, rnd, "randomness", r->randomness)) return false;
    if (czk_post_randomness_check(r->randomness, &err)) return no(d, "randomness: %s", err.msg);
    if (part) {
        if (!get_u64(d, part, "partition_index", &v)) return false;
        if (v > UINT32_MAX)
            return no(d, "partition_index %llu is too large", (unsigned long long)v);
        if (v && pk == CZK_POST_WINNING)
            return no(d, "partition_index is %llu: WinningPoSt has one partition, 0",
                      (unsigned long long)v);
        r->partition_index = (uint32_t)v;
    }
    yajl_val vp;
    if (!get_array(d, sectors, "sectors", sectors_out) ||
        !take_blobs(d, files, b64, need, files_out, b64_out, &vp))
        return false;
    if ((need & CZK_CLI_POST_SECTORS) && !sectors)
        return no(d, "sectors (sector_id and comm_r of each) is missing");
    if (!sectors && !vp) return no(d, "neither sectors nor vanilla proofs are given");
    size_t n = sectors ? sectors->u.array.len : vp->u.array.len;
    if (sectors && vp && vp->u.array.len != n)
        return no(d, "%zu sectors but %zu vanilla proofs", n, vp->u.array.len);
    size_t max = pk == CZK_POST_WINNING ? 1 : r->proof.shape->window_sectors;
    if (n > max)
        return no(d, "%zu sectors: a %s %s partition holds %s%zu", n, r->proof.shape->name,
                  pk == CZK_POST_WINNING ? "WinningPoSt" : "WindowPoSt",
                  pk == CZK_POST_WINNING ? "exactly " : "at most ", max);
    r->n = n;
    return true;
}

static const char *const SNAP_KEYS[] = {"kind",       "registered_proof",    "sector_size",
                                        "miner_id",   "sector_number",       "h",
                                        "partitions", "comm_r_old",          "comm_d_new",
                                        "comm_r_new", "vanilla_proof_files", "vanilla_proofs",
                                        NULL};

/* The fields of a SnapDeals request's root object; false (refused) with d->why. */
static bool read_snap_fields(rd *d, czk_cli_post_req *r, yajl_val root, unsigned need,
                             yajl_val *files_out, yajl_val *b64_out) {
    yajl_val v[12] = {NULL};
    if (!take_keys(d, root, SNAP_KEYS, v)) return false;
    yajl_val rp = v[1], size = v[2], miner = v[3], num = v[4], h = v[5], parts = v[6];
    uint64_t id, x;
    czk_err err;
    r->kind = CZK_KIND_SNAP_UPDATE;
    r->h = 0;
    if (!rp) return no(d, "registered_proof (the RegisteredUpdateProof, 0-4) is missing");
    if (!get_u64(d, rp, "registered_proof", &id)) return false;
    if (czk_snap_proof_lookup(id, &r->snap, &err)) return no(d, "%s", err.msg);
    const czk_snap_shape *s = r->snap;
    r->h = s->h_default;
    if (size) {
        if (!get_u64(d, size, "sector_size", &x)) return false;
        if (x != s->sector_size)
            return no(d, "sector_size %llu: registered update proof %llu is for %s sectors",
                      (unsigned long long)x, (unsigned long long)id, s->name);
    }
    if (miner && !get_u64(d, miner, "miner_id", &r->miner_id)) return false;
    if (num && !get_u64(d, num, "sector_number", &r->sector_number)) return false;
    if (h) {
        if (!get_u64(d, h, "h", &x)) return false;
        if (x != s->h_default)
            return no(d,
                      "h %llu: czk proves an update with the size's h_default (%u for %s), as "
                      "Curio does",
                      (unsigned long long)x, s->h_default, s->name);
    }
    if (parts) {
        if (!get_u64(d, parts, "partitions", &x)) return false;
        if (x != s->partitions)
            return no(d, "partitions %llu: a %s update has %u", (unsigned long long)x, s->name,
                      s->partitions);
    }
    static const char *const CN[3] = {"comm_r_old", "comm_d_new", "comm_r_new"};
    uint8_t *cv[3] = {r->comm_r_old, r->comm_d_new, r->comm_r_new};
    for (int i = 0; i < 3; i++) {
        if (!v[7 + i]) return no(d, "%s is missing", CN[i]);
        if (!get_hex32(d, v[7 + i], CN[i], cv[i])) return false;
    }
    czk_fr in[4];
    czk_snap_public pub = {.h = s->h_default};
    memcpy(pub.comm_r_old, r->comm_r_old, 32);
    memcpy(pub.comm_d_new, r->comm_d_new, 32);
    memcpy(pub.comm_r_new, r->comm_r_new, 32);
    if (czk_snap_public_inputs(in, s, &pub, &err)) return no(d, "%s", err.msg);
    yajl_val vp;
    if (!take_blobs(d, v[10], v[11], need, files_out, b64_out, &vp)) return false;
    if (vp && vp->u.array.len != s->partitions)
        return no(d, "%zu vanilla proofs: a %s update has %u partitions, one PartitionProof each",
                  vp->u.array.len, s->name, s->partitions);
    r->n = s->partitions;
    return true;
}

/* The root object's fields by its kind; false (refused) with d->why. */
static bool read_fields(rd *d, czk_cli_post_req *r, yajl_val root, unsigned need,
                        yajl_val *files_out, yajl_val *b64_out, yajl_val *sectors_out) {
    if (!YAJL_IS_OBJECT(root)) return no(d, "the request must be a JSON object");
    yajl_val kind = NULL;
    for (size_t i = 0; i < root->u.object.len; i++)
        if (!strcmp(root->u.object.keys[i], "kind")) kind = root->u.object.values[i];
    czk_kind_id k;
    if (!kind || !YAJL_IS_STRING(kind) || !czk_cli_req_kind_parse(kind->u.string, &k))
        return no(d, "kind must be \"window-post\", \"winning-post\" or \"snap\"");
    if (k == CZK_KIND_SNAP_UPDATE) return read_snap_fields(d, r, root, need, files_out, b64_out);
    return read_post_fields(d, r, root, need, files_out, b64_out, sectors_out);
}

/* The SnapDeals blobs parsed against the shape, each as the partition of its place. */
static bool check_snap_blobs(rd *d, czk_cli_post_req *r) {
    for (size_t k = 0; k < r->n; k++) {
        czk_snap_vanilla *v = NULL;
        czk_err err;
        bool ok = !czk_snap_vanilla_parse(&v, r->blobs[k], r->blob_len[k], r->snap, k, &err);
        czk_snap_vanilla_free(v);
        if (!ok) {
            if (r->files) return no(d, "%s: %s", r->files[k], err.msg);
            return no(d, "vanilla_proofs[%zu]: %s", k, err.msg);
        }
    }
    return true;
}

int czk_cli_post_req_read(czk_cli_post_req *out, const char *cmd, const char *path, unsigned need,
                          int refused) {
    memset(out, 0, sizeof *out);
    rd d = {.cmd = cmd, .path = path};
    const char *slash = strrchr(path, '/');
    snprintf(d.dir, sizeof d.dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(d.dir, sizeof d.dir, "/");
    uint8_t *text = NULL;
    size_t len = 0;
    int rc = czk_cli_read_file(cmd, path, &text, &len);
    if (rc) return rc;
    uint8_t *t = realloc(text, len + 1);
    if (!t) {
        free(text);
        return czk_cli_fail(cmd, "out of memory");
    }
    t[len] = 0;
    char yerr[256] = "";
    yajl_val root = memchr(t, 0, len) ? NULL : yajl_tree_parse((const char *)t, yerr, sizeof yerr);
    free(t);
    bool ok;
    yajl_val files = NULL, b64 = NULL, sectors = NULL;
    if (!root) {
        char *nl = strchr(yerr, '\n');
        if (nl) *nl = 0;
        ok = no(&d, "not JSON: %s", yerr[0] ? yerr : "a NUL byte in the text");
    } else {
        ok = read_fields(&d, out, root, need, &files, &b64, &sectors);
    }
    if (ok && sectors) ok = read_sectors(&d, out, sectors);
    if (ok && files) {
        if (!(out->files = calloc(out->n, sizeof *out->files))) {
            ok = no(&d, "out of memory");
        }
        for (size_t i = 0; ok && i < out->n; i++) {
            const char *f = files->u.array.values[i]->u.string;
            size_t n = strlen(d.dir) + strlen(f) + 2;
            if (!*f) {
                ok = no(&d, "vanilla_proof_files[%zu] is empty", i);
            } else if (!(out->files[i] = malloc(n))) {
                ok = no(&d, "out of memory");
            } else if (f[0] == '/') {
                snprintf(out->files[i], n, "%s", f);
            } else {
                snprintf(out->files[i], n, "%s/%s", d.dir, f);
            }
        }
    }
    rc = CZK_EXIT_OK;
    if (ok && (need & CZK_CLI_POST_BLOBS)) {
        rc = read_blobs(&d, out, files, b64);
        if (rc < 0) ok = false, rc = CZK_EXIT_OK;
        if (ok && !rc)
            ok = out->snap ? check_snap_blobs(&d, out) : check_blobs(&d, out, sectors != NULL);
    }
    yajl_tree_free(root);
    if (!ok) {
        fprintf(stderr, "czk %s: %s: %s%s\n", cmd, path, refused == CZK_EXIT_NO ? "refused: " : "",
                d.why);
        rc = !strcmp(d.why, "out of memory") ? CZK_EXIT_ERROR : refused;
    }
    if (rc) czk_cli_post_req_free(out);
    return rc;
}

void czk_cli_post_request(czk_proof_request *out, const czk_cli_post_req *r) {
    memset(out, 0, sizeof *out);
    out->kind = r->kind;
    out->vanilla_proofs = (const uint8_t *const *)r->blobs;
    out->vanilla_proofs_len = r->blob_len;
    out->num_vanilla_proofs = r->blobs ? r->n : 0;
    out->miner_id = r->miner_id;
    if (r->snap) {
        out->sector_size = r->snap->sector_size;
        out->registered_proof = (uint64_t)r->snap->registered_proof;
        out->sector_number = r->sector_number;
        memcpy(out->comm_r_old, r->comm_r_old, 32);
        memcpy(out->comm_d_new, r->comm_d_new, 32);
        memcpy(out->comm_r_new, r->comm_r_new, 32);
        return;
    }
    out->sector_size = r->proof.shape->sector_size;
    out->registered_proof = r->proof.id;
    memcpy(out->randomness, r->randomness, 32);
    out->partition_index = r->partition_index;
}

/* ---- writing ---- */

typedef struct jw {
    yajl_gen g;
    bool bad;
} jw;

static void w_ok(jw *j, yajl_gen_status s) {
    if (s != yajl_gen_status_ok) j->bad = true;
}

static void w_key(jw *j, const char *k) {
    w_ok(j, yajl_gen_string(j->g, (const unsigned char *)k, strlen(k)));
}

static void w_str(jw *j, const char *k, const char *v, size_t n) {
    if (k) w_key(j, k);
    w_ok(j, yajl_gen_string(j->g, (const unsigned char *)v, n));
}

static void w_u64(jw *j, const char *k, uint64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    w_key(j, k);
    w_ok(j, yajl_gen_number(j->g, b, (size_t)n));
}

static void w_hex(jw *j, const char *k, const uint8_t b[32]) {
    char h[65];
    czk_cli_hex(h, b, 32);
    w_str(j, k, h, 64);
}

int czk_cli_post_req_write(const char *cmd, const char *path, const czk_cli_post_req *r,
                           const char *const *names, bool embed) {
    jw j = {yajl_gen_alloc(NULL), false};
    if (!j.g) return czk_cli_fail(cmd, "out of memory");
    yajl_gen_config(j.g, yajl_gen_beautify, 1);
    w_ok(&j, yajl_gen_map_open(j.g));
    if (r->snap) {
        w_str(&j, "kind", "snap", 4);
        w_u64(&j, "registered_proof", (uint64_t)r->snap->registered_proof);
        w_u64(&j, "sector_size", r->snap->sector_size);
        w_u64(&j, "miner_id", r->miner_id);
        w_u64(&j, "sector_number", r->sector_number);
        w_u64(&j, "h", r->h ? r->h : r->snap->h_default);
        w_u64(&j, "partitions", r->snap->partitions);
        w_hex(&j, "comm_r_old", r->comm_r_old);
        w_hex(&j, "comm_d_new", r->comm_d_new);
        w_hex(&j, "comm_r_new", r->comm_r_new);
    } else {
        const char *k = czk_cli_post_kind_name(r->proof.kind);
        w_str(&j, "kind", k, strlen(k));
        w_u64(&j, "registered_proof", r->proof.id);
        w_u64(&j, "sector_size", r->proof.shape->sector_size);
        w_u64(&j, "miner_id", r->miner_id);
        w_hex(&j, "randomness", r->randomness);
        w_u64(&j, "partition_index", r->partition_index);
        w_key(&j, "sectors");
        w_ok(&j, yajl_gen_array_open(j.g));
        for (size_t i = 0; i < r->n; i++) {
            w_ok(&j, yajl_gen_map_open(j.g));
            w_u64(&j, "sector_id", r->sectors[i].sector_id);
            w_hex(&j, "comm_r", r->sectors[i].comm_r);
            w_ok(&j, yajl_gen_map_close(j.g));
        }
        w_ok(&j, yajl_gen_array_close(j.g));
    }
    w_key(&j, embed ? "vanilla_proofs" : "vanilla_proof_files");
    w_ok(&j, yajl_gen_array_open(j.g));
    for (size_t i = 0; i < r->n && !j.bad; i++) {
        if (!embed) {
            w_str(&j, NULL, names[i], strlen(names[i]));
            continue;
        }
        if (r->blob_len[i] > (size_t)INT32_MAX / 4 * 3) {
            yajl_gen_free(j.g);
            return czk_cli_fail(cmd, "vanilla proof %zu is too large to embed", i);
        }
        char *b = malloc(4 * ((r->blob_len[i] + 2) / 3) + 1);
        if (!b) {
            yajl_gen_free(j.g);
            return czk_cli_fail(cmd, "out of memory");
        }
        int n = EVP_EncodeBlock((unsigned char *)b, r->blobs[i], (int)r->blob_len[i]);
        w_str(&j, NULL, b, (size_t)n);
        free(b);
    }
    w_ok(&j, yajl_gen_array_close(j.g));
    w_ok(&j, yajl_gen_map_close(j.g));
    const unsigned char *buf = NULL;
    size_t n = 0;
    if (!j.bad) w_ok(&j, yajl_gen_get_buf(j.g, &buf, &n));
    int rc = CZK_EXIT_OK;
    if (j.bad) {
        rc = czk_cli_fail(cmd, "%s: the JSON generator refused a value", path);
    } else {
        FILE *f = fopen(path, "wb");
        bool bad = !f || fwrite(buf, 1, n, f) != n;
        if (f) bad = fclose(f) != 0 || bad;
        if (bad) rc = czk_cli_fail(cmd, "cannot write %s: %s", path, strerror(errno));
    }
    yajl_gen_free(j.g);
    return rc;
}

/* ---- keys ---- */

czk_status czk_cli_req_key(char *path, size_t cap, const char **kind_name, const char *key_path,
                           const char *cache_dir, const char *ext, const czk_cli_post_req *r,
                           czk_err *err) {
    bool vk = !strcmp(ext, ".vk");
    if (key_path) {
        int n = snprintf(path, cap, "%s", key_path);
        if (n < 0 || (size_t)n >= cap)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "--%s path too long", vk ? "vk" : "params");
        *kind_name = vk ? "given with --vk" : "given with --params";
        return CZK_OK;
    }
    char dir[4096];
    czk_status st;
    if (cache_dir) {
        int n = snprintf(dir, sizeof dir, "%s", cache_dir);
        if (n < 0 || (size_t)n >= sizeof dir)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "--param-cache path too long");
    } else if ((st = czk_param_cache_dir(dir, sizeof dir, err))) {
        return st;
    }
    czk_key_kind k;
    if ((st = r->snap
                  ? czk_snap_find_key(path, cap, &k, dir, r->snap, ext, err)
                  : czk_post_find_key(path, cap, &k, dir, r->proof.kind, r->proof.shape, ext, err)))
        return st;
    bool f = k == CZK_KEY_FILECOIN;
    *kind_name = vk ? (f ? "Filecoin v28 verifying key" : "czk TEST verifying key")
                    : (f ? "Filecoin v28 parameters" : "czk TEST keys (valid only with their .vk)");
    return CZK_OK;
}
