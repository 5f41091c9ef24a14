/*
 * `czk verify --c1 FILE --proof FILE [...]`: checks a PoRep C2 output as the
 * chain does. The public inputs come from the C1's comm_d, comm_r, seed and
 * ticket, the registered proof's porep_id and the parent graph: replica_id
 * is recomputed from the miner id and sector number when both are given
 * (else the C1's own is taken, and the output says so), the challenges are
 * derived from it and the seed, and the parents from the graph. Nothing is
 * read from the vanilla proofs. Each partition's proof is decoded with
 * every check and verified against the vk.
 */
#include "cli/cli.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "verify"

static const char USAGE[] =
    "usage: czk verify --c1 FILE --proof FILE [--vk FILE | --param-cache DIR]\n"
    "                  [--sector-num N --miner-id N]\n\n"
    "Verifies PoRep C2 proofs (192 bytes per partition) against the public\n"
    "inputs of the C1's sector, derived as the chain derives them.\n\n"
    "  --c1 FILE          the C1 (SealCommitPhase1Output JSON or cuzk envelope):\n"
    "                     its comm_d, comm_r, seed, ticket and registered proof\n"
    "  --proof FILE       the proofs (czk prove --out)\n"
    "  --vk FILE          the verifying key to use\n"
    "  --param-cache DIR  where to look for it (default $FIL_PROOFS_PARAMETER_CACHE,\n"
    "                     else /var/tmp/filecoin-proof-parameters): Filecoin's v28\n"
    "                     .vk first, then czk's test keys\n"
    "  --sector-num N     the sector number (an envelope carries it)\n"
    "  --miner-id N       the miner actor id; with the sector number replica_id is\n"
    "                     recomputed (without them, the C1's replica_id is trusted)\n\n"
    "exit status: 0 every proof is valid, 1 a proof is invalid or does not decode,\n"
    "2 usage, I/O or other error\n";

int czk_cmd_verify(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    enum { O_C1 = 256, O_PROOF, O_VK, O_CACHE, O_SECTOR, O_MINER };
    static const struct option LONG[] = {{"c1", required_argument, NULL, O_C1},
                                         {"proof", required_argument, NULL, O_PROOF},
                                         {"vk", required_argument, NULL, O_VK},
                                         {"param-cache", required_argument, NULL, O_CACHE},
                                         {"sector-num", required_argument, NULL, O_SECTOR},
                                         {"miner-id", required_argument, NULL, O_MINER},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *c1_path = NULL, *proof_path = NULL, *vk_arg = NULL, *cache_arg = NULL;
    uint64_t sector = 0, miner = 0;
    bool have_sector = false, have_miner = false;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        uint64_t n;
        switch (ch) {
        case O_C1:
            c1_path = v;
            break;
        case O_PROOF:
            proof_path = v;
            break;
        case O_VK:
            vk_arg = v;
            break;
        case O_CACHE:
            cache_arg = v;
            break;
        case O_SECTOR:
        case O_MINER:
            if (!czk_cli_parse_u64(v, &n))
                return czk_cli_fail(CMD, "--%s takes a number, not '%s'",
                                    ch == O_SECTOR ? "sector-num" : "miner-id", v);
            if (ch == O_SECTOR) {
                sector = n;
                have_sector = true;
            } else {
                miner = n;
                have_miner = true;
            }
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
    if (!c1_path || !proof_path) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--c1 and --proof are required");
    }
    if (vk_arg && cache_arg) return czk_cli_fail(CMD, "--vk and --param-cache exclude each other");

    int rc = CZK_EXIT_ERROR;
    czk_err err;
    czk_status st;
    uint8_t *buf = NULL, *proofs = NULL;
    size_t len = 0, plen = 0;
    czk_c1 *c1 = NULL;
    czk_vk vk = {0};
    czk_pvk *pvk = NULL;
    double t_start = czk_cli_now();

    if ((rc = czk_cli_read_c1(CMD, c1_path, &buf, &len))) return rc;
    rc = CZK_EXIT_ERROR;
    bool env = false;
    uint64_t env_sector = 0;
    st = czk_cli_parse_c1(&c1, &env, &env_sector, buf, len, &err);
    free(buf);
    if (st) return czk_cli_fail(CMD, "%s: %s", c1_path, err.msg);
    if (env) {
        if (have_sector && sector != env_sector) {
            czk_cli_fail(CMD, "the envelope's SectorNum %llu is not --sector-num %llu",
                         (unsigned long long)env_sector, (unsigned long long)sector);
            goto out;
        }
        sector = env_sector;
        have_sector = true;
    }
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if ((rc = czk_cli_read_file(CMD, proof_path, &proofs, &plen))) goto out;
    rc = CZK_EXIT_ERROR;

    char vpath[PATH_MAX];
    const char *kind_name = "given with --vk";
    if (vk_arg) {
        snprintf(vpath, sizeof vpath, "%s", vk_arg);
    } else {
        char dir[PATH_MAX];
        czk_porep_key_kind kind;
        if (cache_arg)
            snprintf(dir, sizeof dir, "%s", cache_arg);
        else if (czk_porep_param_cache_dir(dir, sizeof dir, &err)) {
            czk_cli_fail(CMD, "%s", err.msg);
            goto out;
        }
        if (czk_porep_find_key(vpath, sizeof vpath, &kind, dir, pr.shape, ".vk", &err)) {
            czk_cli_fail(CMD, "%s", err.msg);
            goto out;
        }
        kind_name = kind == CZK_POREP_KEY_FILECOIN ? "Filecoin v28 verifying key"
                                                   : "czk TEST verifying key";
    }
    if (czk_vk_read(&vk, vpath, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("vk: %s (%s)\n", vpath, kind_name);
    uint32_t ninputs = 3 + 18 * pr.challenges_per_partition;
    if (vk.ic_len != ninputs + 1) {
        czk_cli_fail(CMD, "%s has %u inputs; a %s partition has %u", vpath, vk.ic_len,
                     pr.shape->name, ninputs + 1);
        goto out;
    }
    if (!(pvk = malloc(sizeof *pvk)) || czk_pvk_prepare(pvk, &vk, &err)) {
        if (!pvk) czk_errf(&err, CZK_ERR_NOMEM, "out of memory");
        free(pvk);
        pvk = NULL;
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }

    uint8_t replica_id[32];
    if (have_sector && have_miner) {
        if (czk_porep_chain_replica_id(replica_id, c1, sector, miner, &err)) {
            czk_cli_fail(CMD, "%s", err.msg);
            goto out;
        }
        printf("replica_id: recomputed for miner f0%llu, sector %llu%s\n",
               (unsigned long long)miner, (unsigned long long)sector,
               memcmp(replica_id, c1->replica_id.b, 32) ? " (differs from the C1's)" : "");
    } else {
        memcpy(replica_id, c1->replica_id.b, 32);
        printf("replica_id: the C1's own, NOT recomputed (needs --sector-num and --miner-id)\n");
    }

    if (plen != (size_t)pr.partitions * CZK_PROOF_BYTES) {
        fprintf(stderr,
                "czk %s: %s: INVALID: %zu bytes, %s needs %u partition proofs of %u bytes\n", CMD,
                proof_path, plen, czk_registered_proof_name(c1->registered_proof), pr.partitions,
                CZK_PROOF_BYTES);
        rc = CZK_EXIT_NO;
        goto out;
    }
    uint32_t bad = UINT32_MAX;
    st = czk_porep_c2_verify(c1, replica_id, NULL, pvk, proofs, plen, &bad, &err);
    if (st == CZK_OK) {
        printf("valid: %u partition proof%s of %s (%.3f s)\n", pr.partitions,
               pr.partitions == 1 ? "" : "s", czk_registered_proof_name(c1->registered_proof),
               czk_cli_now() - t_start);
        rc = CZK_EXIT_OK;
    } else if (bad != UINT32_MAX) {
        fprintf(stderr, "czk %s: %s: INVALID: %s\n", CMD, proof_path, err.msg);
        rc = CZK_EXIT_NO;
    } else {
        czk_cli_fail(CMD, "%s", err.msg);
    }
out:
    if (pvk) {
        czk_pvk_free(pvk);
        free(pvk);
    }
    czk_vk_free(&vk);
    free(proofs);
    czk_c1_free(c1);
    return rc;
}
