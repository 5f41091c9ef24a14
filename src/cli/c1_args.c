/*
 * The option group that `czk prove` and `czk verify` share — the C1, the
 * sector number and miner id (or prover id) that replica_id is recomputed
 * from, and where the key is (--params/--vk FILE or --param-cache DIR) —
 * and its loader: the C1 read and parsed once (raw JSON or cuzk's
 * envelope, whose SectorNum must agree with --sector-num), its registered
 * proof looked up, the key found by Filecoin's v28 name first, then czk's
 * test-key name. Also the cuzk envelope a C1 file travels in to the engine
 * (czk prove, czk bench).
 */
#include "cli/cli.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"

#include <getopt.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void czk_cli_c1_args_init(czk_cli_c1_args *a, const char *cmd, const char *key_opt,
                          const char *key_ext) {
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->key_opt = key_opt;
    a->key_ext = key_ext;
}

bool czk_cli_c1_opt(czk_cli_c1_args *a, int ch, const char *v, int *rc) {
    *rc = CZK_EXIT_OK;
    uint64_t n;
    switch (ch) {
    case CZK_CLI_O_C1:
        a->c1_path = v;
        return true;
    case CZK_CLI_O_KEY:
        a->key_path = v;
        return true;
    case CZK_CLI_O_CACHE:
        a->cache_dir = v;
        return true;
    case CZK_CLI_O_SECTOR:
    case CZK_CLI_O_MINER:
        if (!czk_cli_parse_u64(v, &n)) {
            *rc = czk_cli_fail(a->cmd, "--%s takes a number, not '%s'",
                               ch == CZK_CLI_O_SECTOR ? "sector-num" : "miner-id", v);
        } else if (ch == CZK_CLI_O_SECTOR) {
            a->sector = n;
            a->have_sector = true;
        } else {
            a->miner = n;
            a->have_miner = true;
        }
        return true;
    case CZK_CLI_O_PROVER:
        if (!czk_cli_parse_hex32(v, a->prover_id))
            *rc = czk_cli_fail(a->cmd, "--prover-id takes 32 bytes as 64 hex digits, not '%s'", v);
        else
            a->have_prover = true;
        return true;
    default:
        return false;
    }
}

int czk_cli_c1_args_check(const czk_cli_c1_args *a) {
    if (a->key_path && a->cache_dir)
        return czk_cli_fail(a->cmd, "--%s and --param-cache exclude each other", a->key_opt);
    if (a->have_prover && a->have_miner)
        return czk_cli_fail(a->cmd, "--prover-id and --miner-id exclude each other (the prover "
                                    "id of miner f0N is derived from N)");
    return CZK_EXIT_OK;
}

int czk_cli_c1_load(czk_cli_c1 *out, const czk_cli_c1_args *a, int refused, bool keep_bytes) {
    memset(out, 0, sizeof *out);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = czk_cli_read_c1(a->cmd, a->c1_path, &buf, &len);
    if (rc) return rc;
    czk_err err;
    uint64_t env_sector = 0;
    double t0 = czk_cli_now();
    czk_status st = czk_cli_parse_c1(&out->c1, &out->envelope, &env_sector, buf, len, &err);
    out->parse_s = czk_cli_now() - t0;
    if (keep_bytes) {
        out->bytes = buf;
        out->len = len;
    } else {
        free(buf);
    }
    if (st) {
        fprintf(stderr, "czk %s: %s: %s%s\n", a->cmd, a->c1_path,
                refused == CZK_EXIT_NO ? "refused: " : "", err.msg);
        czk_cli_c1_free(out);
        return st == CZK_ERR_NOMEM ? CZK_EXIT_ERROR : refused;
    }
    out->sector = a->sector;
    out->have_sector = a->have_sector;
    if (out->envelope) {
        if (a->have_sector && a->sector != env_sector) {
            fprintf(stderr,
                    "czk %s: %s: %sthe envelope's SectorNum %llu is not --sector-num %llu\n",
                    a->cmd, a->c1_path, refused == CZK_EXIT_NO ? "refused: " : "",
                    (unsigned long long)env_sector, (unsigned long long)a->sector);
            czk_cli_c1_free(out);
            return refused;
        }
        out->sector = env_sector;
        out->have_sector = true;
    }
    if (czk_porep_proof_lookup(out->c1->registered_proof, &out->proof, &err)) {
        czk_cli_c1_free(out);
        return czk_cli_fail(a->cmd, "%s: %s", a->c1_path, err.msg);
    }
    return CZK_EXIT_OK;
}

void czk_cli_c1_free(czk_cli_c1 *c) {
    czk_c1_free(c->c1);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

bool czk_cli_c1_ids(const czk_cli_c1_args *a, const czk_cli_c1 *c) {
    return c->have_sector && (a->have_miner || a->have_prover);
}

void czk_cli_c1_prover_id(uint8_t out[32], const czk_cli_c1_args *a) {
    if (a->have_prover)
        memcpy(out, a->prover_id, 32);
    else
        czk_porep_prover_id(out, a->miner);
}

void czk_cli_c1_ids_text(char *out, size_t cap, const czk_cli_c1_args *a, uint64_t sector) {
    if (a->have_prover) {
        char hex[65];
        czk_cli_hex(hex, a->prover_id, 32);
        snprintf(out, cap, "prover id %s, sector %llu", hex, (unsigned long long)sector);
    } else {
        snprintf(out, cap, "miner f0%llu, sector %llu", (unsigned long long)a->miner,
                 (unsigned long long)sector);
    }
}

czk_status czk_cli_c1_key(char *path, size_t cap, const char **kind_name, const czk_cli_c1_args *a,
                          const czk_porep_shape *shape, czk_err *err) {
    bool vk = !strcmp(a->key_ext, ".vk");
    if (a->key_path) {
        int n = snprintf(path, cap, "%s", a->key_path);
        if (n < 0 || (size_t)n >= cap)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "--%s path too long", a->key_opt);
        *kind_name = vk ? "given with --vk" : "given with --params";
        return CZK_OK;
    }
    czk_porep_key_kind kind;
    czk_status st = czk_porep_find_key(path, cap, &kind, a->cache_dir, shape, a->key_ext, err);
    if (st) return st;
    bool fil = kind == CZK_POREP_KEY_FILECOIN;
    *kind_name =
        vk ? (fil ? "Filecoin v28 verifying key" : "czk TEST verifying key")
           : (fil ? "Filecoin v28 parameters" : "czk TEST keys (valid only with their own .vk)");
    return CZK_OK;
}

bool czk_cli_parse_hex32(const char *s, uint8_t out[32]) {
    if (!s) return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    if (strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        int v = 0;
        for (int h = 0; h < 2; h++) {
            char c = s[2 * i + h];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0) return false;
            v = v * 16 + d;
        }
        out[i] = (uint8_t)v;
    }
    return true;
}

int czk_cli_envelope(const char *cmd, char **out, size_t *out_len, const uint8_t *c1_json,
                     size_t len, uint64_t sector_num, uint64_t sector_size) {
    *out = NULL;
    *out_len = 0;
    /* cuzk's envelope around the raw C1 JSON (cuzk-engine.md §2); EVP_EncodeBlock counts in int */
    if (len > (size_t)INT32_MAX / 4 * 3)
        return czk_cli_fail(cmd, "the C1 is too large (%zu bytes)", len);
    size_t cap = 4 * ((len + 2) / 3) + 128;
    char *env = malloc(cap);
    if (!env) return czk_cli_fail(cmd, "out of memory for the C1's envelope");
    int h =
        snprintf(env, cap, "{\"SectorNum\":%llu,\"Phase1Out\":\"", (unsigned long long)sector_num);
    int b = EVP_EncodeBlock((unsigned char *)env + h, c1_json, (int)len);
    int t = snprintf(env + h + b, cap - (size_t)(h + b), "\",\"SectorSize\":%llu}",
                     (unsigned long long)sector_size);
    *out = env;
    *out_len = (size_t)(h + b + t);
    return CZK_EXIT_OK;
}
