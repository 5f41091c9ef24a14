/*
 * `czk verify --kind window-post|winning-post|snap --request FILE --proof
 * FILE`: checks a PoSt or SnapDeals proof as the chain does. The public
 * inputs come from the request's public values only (post_args.c), never
 * from vanilla proofs: PoSt, FallbackPoStCompound::generate_public_inputs
 * for partition k = partition_index over the partition's sectors (registered
 * proof, randomness, each sector's id and comm_r; czk_post_public_inputs;
 * WinningPoSt over 66 copies of its one sector); SnapDeals, per partition k
 * the update's PublicInputs (k_and_h_select with h_default, comm_r_old,
 * comm_d_new, comm_r_new; czk_snap_public_inputs), as
 * EmptySectorUpdateCompound::verify checks each partition proof. Each
 * 192-byte partition proof is decoded with every check and verified
 * against the .vk; the first that fails is named.
 */
#include "cli/cli.h"
#include "czk/groth16.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "verify"

static const char USAGE[] =
    "usage: czk verify --kind window-post|winning-post|snap --request FILE --proof FILE\n"
    "                  [--vk FILE | --param-cache DIR]\n\n"
    "Verifies a PoSt proof (192 bytes) against the public inputs of the request's\n"
    "sectors (sector ids and comm_r), randomness and partition index, or a SnapDeals\n"
    "proof (192 bytes per partition) against the update's commitments, as the chain\n"
    "derives them.\n\n"
    "  --kind KIND        window-post, winning-post or snap (the request's own kind)\n"
    "  --request FILE     the request (czk gen-vanilla --post, --snap --out-dir write\n"
    "                     it): PoSt kind, registered_proof, randomness,\n"
    "                     partition_index, sectors; snap registered_proof, comm_r_old,\n"
    "                     comm_d_new, comm_r_new (the vanilla proofs are not read)\n"
    "  --proof FILE       the proof (czk prove --out)\n"
    "  --vk FILE          the verifying key to use\n"
    "  --param-cache DIR  where to look for it (default $FIL_PROOFS_PARAMETER_CACHE,\n"
    "                     else /var/tmp/filecoin-proof-parameters): Filecoin's v28\n"
    "                     .vk first, then czk's test keys\n\n"
    "exit status: 0 the proof is valid, 1 it is invalid or does not decode,\n"
    "2 usage, I/O or other error (a request that is wrong included)\n";

czk_status czk_cli_req_inputs(czk_fr **out, size_t *n, const czk_cli_post_req *r, unsigned k,
                              czk_err *err) {
    if (r->snap) {
        czk_snap_public pub = {.k = k, .h = r->snap->h_default};
        memcpy(pub.comm_r_old, r->comm_r_old, 32);
        memcpy(pub.comm_d_new, r->comm_d_new, 32);
        memcpy(pub.comm_r_new, r->comm_r_new, 32);
        *n = CZK_SNAP_INPUTS - 1;
        if (!(*out = malloc(*n * sizeof **out)))
            return czk_errf(err, CZK_ERR_NOMEM, "out of memory for %zu public inputs", *n);
        czk_status st = czk_snap_public_inputs(*out, r->snap, &pub, err);
        if (st) {
            free(*out);
            *out = NULL;
        }
        return st;
    }
    if (k)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "a PoSt request is one partition, not %u", k + 1);
    czk_post_config cfg;
    czk_post_config_for(&cfg, r->proof.kind, r->proof.shape);
    *n = czk_post_num_inputs(&cfg) - 1;
    czk_post_pub_sector win[CZK_POST_WINNING_CHALLENGES];
    const czk_post_pub_sector *s = r->sectors;
    size_t ns = r->n;
    if (r->proof.kind == CZK_POST_WINNING) {
        czk_post_winning_sectors(win, &r->sectors[0]);
        s = win;
        ns = CZK_POST_WINNING_CHALLENGES;
    }
    if (!(*out = malloc(*n * sizeof **out)))
        return czk_errf(err, CZK_ERR_NOMEM, "out of memory for %zu public inputs", *n);
    czk_status st = czk_post_public_inputs(*out, &cfg, r->proof.api, r->randomness, s, ns,
                                           r->partition_index, err);
    if (st) {
        free(*out);
        *out = NULL;
    }
    return st;
}

int czk_cmd_verify_post(int argc, char **argv) {
    enum { O_KIND = 256, O_REQUEST, O_PROOF, O_VK, O_CACHE };
    static const struct option LONG[] = {{"kind", required_argument, NULL, O_KIND},
                                         {"request", required_argument, NULL, O_REQUEST},
                                         {"proof", required_argument, NULL, O_PROOF},
                                         {"vk", required_argument, NULL, O_VK},
                                         {"param-cache", required_argument, NULL, O_CACHE},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *req_path = NULL, *proof_path = NULL, *vk_arg = NULL, *cache = NULL;
    czk_kind_id kind = CZK_KIND_UNSPECIFIED;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        const char *v = optarg;
        switch (ch) {
        case O_KIND:
            if (!czk_cli_req_kind_parse(v, &kind))
                return czk_cli_fail(CMD,
                                    "--kind takes porep (with --c1), window-post, winning-post or "
                                    "snap, not '%s'",
                                    v);
            break;
        case O_REQUEST:
            req_path = v;
            break;
        case O_PROOF:
            proof_path = v;
            break;
        case O_VK:
            vk_arg = v;
            break;
        case O_CACHE:
            cache = v;
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
    if (!req_path || !proof_path) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "--request and --proof are required");
    }
    if (vk_arg && cache) return czk_cli_fail(CMD, "--vk and --param-cache exclude each other");
    czk_cli_post_req r;
    int rc = czk_cli_post_req_read(&r, CMD, req_path, CZK_CLI_POST_SECTORS, CZK_EXIT_ERROR);
    if (rc) return rc;
    rc = CZK_EXIT_ERROR;
    uint8_t *proof = NULL;
    size_t plen = 0;
    czk_fr *in = NULL, *in_k = NULL; /* partition 0's inputs; partition k's */
    size_t nin = 0;
    czk_vk vk = {0};
    czk_pvk *pvk = NULL;
    czk_err err;
    char vpath[PATH_MAX];
    const char *kind_name;
    double t0 = czk_cli_now();
    unsigned parts = czk_cli_req_partitions(&r);
    if (kind && kind != r.kind) {
        czk_cli_fail(CMD, "%s: a %s request, not --kind %s", req_path,
                     czk_cli_req_kind_name(r.kind), czk_cli_req_kind_name(kind));
        goto out;
    }
    if ((rc = czk_cli_read_file(CMD, proof_path, &proof, &plen))) goto out;
    rc = CZK_EXIT_ERROR;
    if (czk_cli_req_key(vpath, sizeof vpath, &kind_name, vk_arg, cache, ".vk", &r, &err) ||
        czk_vk_read(&vk, vpath, &err)) {
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    printf("vk: %s (%s)\n", vpath, kind_name);
    if (czk_cli_req_inputs(&in, &nin, &r, 0, &err)) {
        czk_cli_fail(CMD, "%s: %s", req_path, err.msg);
        goto out;
    }
    if (vk.ic_len != nin + 1) {
        czk_cli_fail(CMD, "%s has %u inputs; the %s %s circuit has %zu", vpath, vk.ic_len,
                     czk_cli_req_size_name(&r), czk_cli_req_title(&r), nin + 1);
        goto out;
    }
    if (!(pvk = malloc(sizeof *pvk)) || czk_pvk_prepare(pvk, &vk, &err)) {
        if (!pvk) czk_errf(&err, CZK_ERR_NOMEM, "out of memory");
        free(pvk);
        pvk = NULL;
        czk_cli_fail(CMD, "%s", err.msg);
        goto out;
    }
    char what[160];
    if (r.snap)
        snprintf(what, sizeof what,
                 "%s SnapDeals update proof (registered update proof %d, %u partition%s)",
                 r.snap->name, r.snap->registered_proof, parts, parts == 1 ? "" : "s");
    else
        snprintf(what, sizeof what,
                 "%s %s proof (registered proof %llu, partition %u, %zu sector%s)",
                 r.proof.shape->name, czk_cli_req_title(&r), (unsigned long long)r.proof.id,
                 r.partition_index, r.n, r.n == 1 ? "" : "s");
    if (plen != (size_t)parts * CZK_PROOF_BYTES) {
        fprintf(stderr, "czk %s: %s: INVALID: %zu bytes, a %s %s proof has %u (%u x %u)\n", CMD,
                proof_path, plen, czk_cli_req_size_name(&r), czk_cli_req_title(&r),
                parts * CZK_PROOF_BYTES, parts, CZK_PROOF_BYTES);
        rc = CZK_EXIT_NO;
        goto out;
    }
    /* each partition's proof against its own public inputs; the first bad one is named */
    rc = CZK_EXIT_OK;
    for (unsigned k = 0; k < parts && rc == CZK_EXIT_OK; k++) {
        char part[48] = "";
        if (parts > 1) snprintf(part, sizeof part, "partition %u: ", k);
        czk_proof p;
        czk_status st;
        if (k && (st = czk_cli_req_inputs(&in_k, &nin, &r, k, &err))) {
            rc = czk_cli_fail(CMD, "%s: %s", req_path, err.msg);
        } else if (czk_proof_decode(&p, proof + (size_t)k * CZK_PROOF_BYTES, &err)) {
            fprintf(stderr, "czk %s: %s: INVALID: %sdoes not decode: %s\n", CMD, proof_path, part,
                    err.msg);
            rc = CZK_EXIT_NO;
        } else if ((st = czk_verify(pvk, &p, k ? in_k : in, nin, &err))) {
            if (st == CZK_ERR_VERIFY || st == CZK_ERR_INVALID_ARG) {
                fprintf(stderr, "czk %s: %s: INVALID: %s: %s%s\n", CMD, proof_path, what, part,
                        err.msg);
                rc = CZK_EXIT_NO;
            } else {
                rc = czk_cli_fail(CMD, "%s", err.msg);
            }
        }
        free(in_k);
        in_k = NULL;
    }
    if (rc == CZK_EXIT_OK) printf("valid: %s (%.3f s)\n", what, czk_cli_now() - t0);
out:
    if (pvk) {
        czk_pvk_free(pvk);
        free(pvk);
    }
    czk_vk_free(&vk);
    free(in);
    free(proof);
    czk_cli_post_req_free(&r);
    return rc;
}
