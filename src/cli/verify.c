/*
 * `czk verify`: checks a PoRep C2 output as the chain does, in one of two
 * forms:
 *   --c1 FILE --proof FILE [...]   the public values from a C1 (its comm_d,
 *       comm_r, seed, ticket and registered proof; the option group shared
 *       with `czk prove`, cli/c1_args.c);
 *   --registered-proof ID --comm-r HEX --comm-d HEX --ticket HEX --seed HEX
 *   --sector-num N (--miner-id N | --prover-id HEX) --proof FILE [--vk FILE]
 *       without a C1, as filecoin-ffi's VerifySeal takes them.
 * The public inputs are derived from those values: replica_id is
 * recomputed from the prover id (the miner's, or given) and sector number
 * (with a C1 and without the ids, the C1's own is taken, and the output says
 * so), the challenges from it and the seed, the parents from the graph.
 * Nothing is read from vanilla proofs. Each partition's proof is decoded
 * with every check and verified against the vk.
 */
#include "cli/cli.h"
#include "czk/porep_graph.h"
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
    "                  [--sector-num N (--miner-id N | --prover-id HEX)]\n"
    "       czk verify --registered-proof ID --comm-r HEX --comm-d HEX --ticket HEX\n"
    "                  --seed HEX --sector-num N (--miner-id N | --prover-id HEX)\n"
    "                  --proof FILE [--vk FILE | --param-cache DIR]\n\n"
    "Verifies PoRep C2 proofs (192 bytes per partition) against the public\n"
    "inputs of the sector, derived as the chain derives them: from a C1, or\n"
    "from the values filecoin-ffi's VerifySeal takes.\n\n"
    "  --c1 FILE          the C1 (SealCommitPhase1Output JSON or cuzk envelope):\n"
    "                     its comm_d, comm_r, seed, ticket and registered proof\n"
    "  --proof FILE       the proofs (czk prove --out)\n"
    "  --vk FILE          the verifying key to use\n"
    "  --param-cache DIR  look there first; then in $FIL_PROOFS_PARAMETER_CACHE\n"
    "                     (else /var/tmp/filecoin-proof-parameters), then in czk's\n"
    "                     test keys ($CZK_CACHE_DIR/test-keys, else\n"
    "                     ~/.cache/czk/test-keys); in each, Filecoin's v28 .vk\n"
    "                     first, then czk's test-key name\n"
    "  --sector-num N     the sector number (an envelope carries it)\n"
    "  --miner-id N       the miner actor id; with the sector number replica_id is\n"
    "                     recomputed (with a C1 and without them, the C1's\n"
    "                     replica_id is trusted)\n"
    "  --prover-id HEX    instead of --miner-id: the 32-byte prover id\n"
    "Without a C1 (all required):\n"
    "  --registered-proof ID  RegisteredSealProof, a number 0..19 or its name\n"
    "                     (e.g. 5 or StackedDrg2KiBV1_1)\n"
    "  --comm-r HEX, --comm-d HEX, --ticket HEX, --seed HEX\n"
    "                     32 bytes each as 64 hex digits, in the byte order of the\n"
    "                     C1's arrays\n\n"
    "exit status: 0 every proof is valid, 1 a proof is invalid or does not decode,\n"
    "2 usage, I/O or other error\n\n"
    "PoSt, SnapDeals: czk verify --kind window-post|winning-post|snap --request FILE --proof FILE\n"
    "(czk verify --kind window-post --help)\n";

int czk_cmd_verify(int argc, char **argv) {
    if (czk_cli_post_kind_arg(argc, argv))
        return czk_cmd_verify_post(argc, argv); /* verify_post.c */
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    enum { O_PROOF = 256, O_RP, O_COMM_R, O_COMM_D, O_TICKET, O_SEED, O_KIND };
    static const struct option LONG[] = {CZK_CLI_C1_LONGOPTS("vk"),
                                         {"proof", required_argument, NULL, O_PROOF},
                                         {"registered-proof", required_argument, NULL, O_RP},
                                         {"comm-r", required_argument, NULL, O_COMM_R},
                                         {"comm-d", required_argument, NULL, O_COMM_D},
                                         {"ticket", required_argument, NULL, O_TICKET},
                                         {"seed", required_argument, NULL, O_SEED},
                                         {"kind", required_argument, NULL, O_KIND},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const HEX_OPT[4] = {"comm-r", "comm-d", "ticket", "seed"};
    czk_cli_c1_args a;
    czk_cli_c1_args_init(&a, CMD, "vk", ".vk");
    const char *proof_path = NULL;
    czk_c1 pub; /* without a C1: its public values only */
    memset(&pub, 0, sizeof pub);
    czk_domain *hex_dst[4] = {&pub.comm_r, &pub.comm_d, &pub.ticket, &pub.seed};
    bool have_hex[4] = {false, false, false, false}, have_rp = false;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch, rc;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        if (czk_cli_c1_opt(&a, ch, v, &rc)) {
            if (rc) return rc;
            continue;
        }
        switch (ch) {
        case O_PROOF:
            proof_path = v;
            break;
        case O_RP: {
            uint64_t n;
            int id = czk_cli_parse_u64(v, &n) ? (n <= 19 ? (int)n : -1)
                                              : czk_registered_proof_from_name(v);
            if (id < 0 || !czk_registered_proof_name((uint32_t)id))
                return czk_cli_fail(CMD,
                                    "--registered-proof takes a RegisteredSealProof id 0..19 or "
                                    "its name (e.g. StackedDrg2KiBV1_1), not '%s'",
                                    v);
            pub.registered_proof = (uint32_t)id;
            have_rp = true;
            break;
        }
        case O_COMM_R:
        case O_COMM_D:
        case O_TICKET:
        case O_SEED: {
            int i = ch - O_COMM_R;
            if (!czk_cli_parse_hex32(v, hex_dst[i]->b))
                return czk_cli_fail(CMD, "--%s takes 32 bytes as 64 hex digits, not '%s'",
                                    HEX_OPT[i], v);
            have_hex[i] = true;
            break;
        }
        case O_KIND: /* porep: any other kind went to verify_post.c */
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
    bool public_form = have_rp || have_hex[0] || have_hex[1] || have_hex[2] || have_hex[3];
    if (a.c1_path && public_form)
        return czk_cli_fail(CMD, "--c1 gives the registered proof, comm_r, comm_d, ticket and "
                                 "seed: --registered-proof, --comm-r, --comm-d, --ticket and "
                                 "--seed are for verifying without a C1");
    if (!proof_path || (!a.c1_path && !public_form)) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--c1 and --proof are required (or, without a C1, "
                                 "--registered-proof, --comm-r, --comm-d, --ticket, --seed, "
                                 "--sector-num, --miner-id and --proof)");
    }
    if ((rc = czk_cli_c1_args_check(&a))) return rc;
    if (public_form) {
        char missing[200] = "";
        size_t m = 0;
        if (!have_rp) m += (size_t)snprintf(missing + m, sizeof missing - m, " --registered-proof");
        for (int i = 0; i < 4; i++)
            if (!have_hex[i])
                m += (size_t)snprintf(missing + m, sizeof missing - m, " --%s", HEX_OPT[i]);
        if (!a.have_sector) m += (size_t)snprintf(missing + m, sizeof missing - m, " --sector-num");
        if (!a.have_miner && !a.have_prover)
            snprintf(missing + m, sizeof missing - m, " --miner-id (or --prover-id)");
        if (missing[0]) {
            fputs(USAGE, stderr);
            return czk_cli_fail(CMD, "verifying without a C1 needs%s", missing);
        }
    }

    rc = CZK_EXIT_ERROR;
    czk_err err;
    czk_status st;
    uint8_t *proofs = NULL;
    size_t plen = 0;
    czk_cli_c1 in;
    memset(&in, 0, sizeof in);
    czk_vk vk = {0};
    czk_pvk *pvk = NULL;
    double t_start = czk_cli_now();
    const czk_c1 *c1 = &pub;
    czk_porep_proof pr;
    if (!public_form) {
        if ((rc = czk_cli_c1_load(&in, &a, CZK_EXIT_ERROR, false))) return rc;
        rc = CZK_EXIT_ERROR;
        c1 = in.c1;
        pr = in.proof;
    } else {
        if (czk_porep_proof_lookup(pub.registered_proof, &pr, &err))
            return czk_cli_fail(CMD, "--registered-proof: %s", err.msg);
        in.sector = a.sector;
        in.have_sector = true;
        pub.num_partitions = pr.partitions;
        pub.challenges_per_partition = pr.challenges_per_partition;
    }
    if ((rc = czk_cli_read_file(CMD, proof_path, &proofs, &plen))) goto out;
    rc = CZK_EXIT_ERROR;

    char vpath[PATH_MAX];
    const char *kind_name;
    if (czk_cli_c1_key(vpath, sizeof vpath, &kind_name, &a, pr.shape, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    if (czk_vk_read(&vk, vpath, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("vk: %s (%s)\n", vpath, kind_name);
    uint32_t ninputs = czk_c1_num_public_inputs(c1);
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
    if (czk_cli_c1_ids(&a, &in)) {
        uint8_t prover[32];
        czk_cli_c1_prover_id(prover, &a);
        czk_porep_replica_id(replica_id, prover, in.sector, c1->ticket.b, c1->comm_d.b,
                             pr.porep_id);
        char ids[160];
        czk_cli_c1_ids_text(ids, sizeof ids, &a, in.sector);
        printf("replica_id: recomputed for %s%s\n", ids,
               !public_form && memcmp(replica_id, c1->replica_id.b, 32) ? " (differs from the C1's)"
                                                                        : "");
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
    czk_cli_c1_free(&in);
    return rc;
}
