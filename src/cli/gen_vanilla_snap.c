/*
 * `czk gen-vanilla --snap`: SnapDeals test inputs. gen_vanilla.c parses the
 * sector key's options (size, registered seal proof, miner, sector number,
 * ticket, --sparse) and the data options, which here describe the new
 * data; this file updates the sector (czk_seal_snap_vanilla: a really
 * sealed CC sector key for 2KiB-512MiB, a periodic one with --sparse) and
 * writes its partition proofs in the forms Curio has them: the JSON array
 * of standard base64 blobs that ReadSnapVanillaProof returns and cuzk is
 * sent as vanilla_proofs, and the raw bincode PartitionProof of each
 * partition with a request file naming them and the update's commitments
 * (update.json, read by czk prove/verify/bench --kind snap; post_args.c;
 * spec post-snap.md §3, §4).
 */
#include "cli/cli.h"
#include "czk/seal.h"
#include "czk/snap.h"
#include "util/time.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

static const char *const CMD = "gen-vanilla";

void czk_cli_gen_vanilla_snap_help(FILE *f) {
    fprintf(f,
            "usage: czk gen-vanilla --snap --sector-size SIZE (--out FILE | --out-dir DIR)\n"
            "                       [options]\n\n"
            "SnapDeals (EmptySectorUpdate) test inputs: seals a CC sector (the sector key)\n"
            "with czk's own SDR implementation, encodes new data into it as\n"
            "storage-proofs-update's encode_into does (replica_new = replica_old +\n"
            "data * rho(node's top h bits)), and writes every partition's vanilla proof\n"
            "(bincode PartitionProof: comm_c, apex leafs, per challenge the openings of\n"
            "TreeR old, TreeD new and TreeR new).\n\n"
            "  --sector-size SIZE       2KiB, 8MiB, 512MiB (full); 32GiB, 64GiB (--sparse)\n"
            "  --registered-proof ID    RegisteredSealProof of the sector key (default the\n"
            "                           V1_1 id of the size); the update proof is\n"
            "                           RegisteredUpdateProof 0-4 of the size\n"
            "  --miner-id N, --sector-num N, --ticket HEX   the sector key, as without --snap\n"
            "  --data FILE              the new data (unpadded, at most size*127/128 bytes)\n"
            "  --random SEED            pseudo-random new data from the u64 SEED\n"
            "                           (without either the new data is zero)\n"
            "  --h H                    high bits per rho (default: the size's h_default, 1 for\n"
            "                           2KiB, 10 for the others: what Curio proves with)\n"
            "  --sparse                 a periodic sector key and data (seconds for 64GiB);\n"
            "                           FOR BENCHMARKS ONLY: every proof verifies, but the\n"
            "                           sector key was not sealed\n"
            "  --out FILE               the JSON array of base64 blobs, one per partition\n"
            "                           ('-' for stdout)\n"
            "  --out-dir DIR            DIR/partition-<k>.vproof (bincode) and DIR/update.json,\n"
            "                           the request of czk prove|verify|bench --kind snap\n"
            "                           --request (registered update proof, miner, sector,\n"
            "                           h, comm_r_old, comm_d_new, comm_r_new as hex, the\n"
            "                           files)\n"
            "  --threads N, -v          as without --snap\n\n"
            "Every partition is parsed and pre-checked before anything is written. A\n"
            "summary line (partitions, comm_r_old, comm_d_new, comm_r_new, bytes, seconds)\n"
            "goes to stderr. The output is deterministic for fixed inputs.\n");
}

/* ["<base64>", ...]\n */
static char *json_array(const czk_seal_snap *u, size_t *len) {
    size_t cap = 4;
    for (unsigned k = 0; k < u->partitions; k++)
        cap += 4 * ((u->lens[k] + 2) / 3) + 4;
    char *j = malloc(cap + 1);
    if (!j) return NULL;
    size_t n = 0;
    j[n++] = '[';
    for (unsigned k = 0; k < u->partitions; k++) {
        if (k) j[n++] = ',';
        j[n++] = '"';
        n += (size_t)EVP_EncodeBlock((unsigned char *)j + n, u->blobs[k], (int)u->lens[k]);
        j[n++] = '"';
    }
    j[n++] = ']';
    j[n++] = '\n';
    *len = n;
    return j;
}

static int write_path(const char *path, const void *b, size_t n, const char *nothing) {
    if (!strcmp(path, "-")) {
        bool bad = fwrite(b, 1, n, stdout) != n;
        return bad || fflush(stdout) ? czk_cli_fail(CMD, "writing to stdout failed") : CZK_EXIT_OK;
    }
    czk_cli_out o;
    int rc = czk_cli_out_open(&o, CMD, path, nothing);
    return rc ? rc : czk_cli_out_commit(&o, b, n);
}

/* DIR/partition-<k>.vproof and DIR/update.json: the request file of `czk prove --kind snap`
 * (post_args.c), naming the files. */
static int write_dir(const char *dir, const czk_seal_snap *u, const czk_seal_request *req,
                     const czk_snap_shape *s) {
    char path[PATH_MAX], names[CZK_SEAL_SNAP_MAX_PARTITIONS][32];
    const char *np[CZK_SEAL_SNAP_MAX_PARTITIONS];
    int rc = czk_cli_mkdir_p(CMD, dir);
    if (rc) return rc;
    for (unsigned k = 0; k < u->partitions; k++) {
        snprintf(names[k], sizeof names[k], "partition-%u.vproof", k);
        np[k] = names[k];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= (int)sizeof path)
            return czk_cli_fail(CMD, "--out-dir path too long");
        if ((rc = write_path(path, u->blobs[k], u->lens[k], "written"))) return rc;
    }
    czk_cli_post_req r;
    memset(&r, 0, sizeof r);
    r.kind = CZK_KIND_SNAP_UPDATE;
    r.snap = s;
    r.miner_id = req->miner_id;
    r.sector_number = req->sector_num;
    r.h = u->h;
    memcpy(r.comm_r_old, u->comm_r_old, 32);
    memcpy(r.comm_d_new, u->comm_d_new, 32);
    memcpy(r.comm_r_new, u->comm_r_new, 32);
    r.n = u->partitions;
    if (snprintf(path, sizeof path, "%s/update.json", dir) >= (int)sizeof path)
        return czk_cli_fail(CMD, "--out-dir path too long");
    return czk_cli_post_req_write(CMD, path, &r, np, false); /* r borrows nothing to free */
}

int czk_cli_gen_vanilla_snap(const czk_seal_request *req, unsigned h, const char *out,
                             const char *out_dir, czk_pool *pool) {
    double t0 = czk_now();
    czk_seal_snap_request sr;
    memset(&sr, 0, sizeof sr);
    sr.sector = *req; /* the sector key: a CC sector */
    sr.sector.data_kind = CZK_SEAL_DATA_ZERO;
    sr.sector.data = NULL;
    sr.sector.data_len = 0;
    sr.data_kind = req->data_kind;
    sr.data = req->data;
    sr.data_len = req->data_len;
    sr.random_seed = req->random_seed;
    sr.h = h;
    czk_porep_proof pr;
    czk_err err;
    if (czk_porep_proof_lookup(req->registered_proof, &pr, &err))
        return czk_cli_fail(CMD, "%s", err.msg);
    const czk_snap_shape *s = czk_snap_shape_for_size(pr.shape->sector_size);
    if (!s || s->registered_proof < 0)
        return czk_cli_fail(CMD, "no SnapDeals update proof for %s sectors", pr.shape->name);
    czk_seal_snap u;
    if (czk_seal_snap_vanilla(&u, &sr, pool, &err)) return czk_cli_fail(CMD, "%s", err.msg);
    /* every partition parsed and pre-checked before it is written */
    int rc = CZK_EXIT_OK;
    for (unsigned k = 0; k < u.partitions && !rc; k++) {
        czk_snap_vanilla *v = NULL;
        czk_snap_public pub = {.k = k, .h = u.h};
        memcpy(pub.comm_r_old, u.comm_r_old, 32);
        memcpy(pub.comm_d_new, u.comm_d_new, 32);
        memcpy(pub.comm_r_new, u.comm_r_new, 32);
        if (czk_snap_vanilla_parse(&v, u.blobs[k], u.lens[k], s, k, &err) ||
            czk_snap_precheck(v, s, &pub, &err))
            rc = czk_cli_fail(CMD, "internal error: the proof written does not check: %s", err.msg);
        czk_snap_vanilla_free(v);
    }
    size_t jlen = 0, total = 0;
    for (unsigned k = 0; k < u.partitions; k++)
        total += u.lens[k];
    if (!rc && out) {
        char *j = json_array(&u, &jlen);
        rc = j ? write_path(out, j, jlen, "written")
               : czk_cli_fail(CMD, "out of memory for the JSON of %zu bytes", total);
        free(j);
    }
    if (!rc && out_dir) rc = write_dir(out_dir, &u, req, s);
    if (!rc) {
        char r_old[65], d_new[65], r_new[65];
        czk_cli_hex(r_old, u.comm_r_old, 32);
        czk_cli_hex(d_new, u.comm_d_new, 32);
        czk_cli_hex(r_new, u.comm_r_new, 32);
        fprintf(stderr,
                "czk gen-vanilla: snap %s%s update proof %d: %u partition%s, h %u: comm_r_old %s "
                "comm_d_new %s comm_r_new %s, %zu bytes of vanilla proofs, %.2f s\n",
                s->name, req->sparse ? " sparse" : "", s->registered_proof, u.partitions,
                u.partitions == 1 ? "" : "s", u.h, r_old, d_new, r_new, total, czk_now() - t0);
    }
    czk_seal_snap_free(&u);
    return rc;
}
