/*
 * SnapDeals test inputs: a sector key (a sealed CC sector), new data
 * encoded into it as storage-proofs-update vanilla.rs encode_into does, and
 * the partition proofs prove_all_partitions / prove_inner write
 * (include/czk/seal.h czk_seal_snap_vanilla; spec post-snap.md §2, §3).
 *
 * The challenges of an update depend on comm_r_new, the root of the
 * encoded replica, so a sparse tree over the challenged leaves (as the
 * sparse PoRep and PoSt sectors use) cannot be built before them. The
 * sparse mode here makes every tree periodic instead: the sector key is a
 * block of pseudo-random replica nodes repeated, the data a block
 * repeated, and since rho is the same over each region of 2^(bits − h)
 * nodes, the new replica is periodic inside each region (seal_tree's
 * regioned storage). All three trees are then exact, at a cost of
 * O(2^h · block) hashes, and every opening is a true Merkle proof.
 */
#include "seal/seal_internal.h"

#include "czk/snap.h"
#include "util/digest.h"

#include <stdlib.h>
#include <string.h>

#define SNAP_BLOCK 1024u /* nodes of a sparse sector's periodic blocks */

typedef struct update {
    const czk_snap_shape *shape;
    const czk_porep_shape *pshape;
    seal_sector s; /* full mode: the sealed sector key (s.tr is TreeR old) */
    seal_tree tr_old, td, tr_new;
    seal_sector nd;          /* the new data (nd.data, nd.data_nodes) */
    uint8_t *old_block;      /* sparse: the sector key's block */
    uint8_t *new_leaves;     /* full: the new replica; sparse: regions × block */
    czk_fr *rho;             /* 2^h */
    unsigned shift;          /* node index >> shift = its rho's index */
    uint64_t block, regions; /* sparse */
} update;

static void update_free(update *u) {
    seal_sector_free(&u->s);
    seal_sector_free(&u->nd);
    seal_tree_free(&u->tr_old);
    seal_tree_free(&u->td);
    seal_tree_free(&u->tr_new);
    free(u->old_block);
    free(u->new_leaves);
    free(u->rho);
}

static void stage(const czk_seal_request *req, const char *name) {
    if (req->on_stage) req->on_stage(req->stage_arg, name);
}

/* Poseidon-2 (the TreeR hash2) of comm_c and a TreeR root: comm_r. */
static czk_status comm_r_of(uint8_t out[32], const uint8_t comm_c[32], const uint8_t root[32],
                            czk_err *err) {
    czk_fr in[2], h;
    czk_fr_from_bytes_reduce(&in[0], comm_c);
    czk_fr_from_bytes_reduce(&in[1], root);
    czk_status st = czk_poseidon_hash(&h, in, 2, err);
    if (!st) czk_fr_to_bytes(out, &h);
    return st;
}

/* encode_into over nodes [begin, end): new = old + data · rho(node >> shift). */
struct encode_job {
    const update *u;
    const uint8_t *old, *data;
    uint64_t old_n, data_n; /* periods (full: the sector) */
    uint64_t per_region;    /* sparse: output node i is region i / block */
};

static void encode_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct encode_job *j = arg;
    for (size_t i = begin; i < end; i++) {
        uint64_t node = j->per_region ? (i / j->per_region) * (j->u->shape->nodes / j->u->regions) +
                                            i % j->per_region
                                      : i;
        czk_fr a, d;
        czk_fr_from_bytes_reduce(&a, j->old + 32 * (node % j->old_n));
        czk_fr_from_bytes_reduce(&d, j->data + 32 * (node % j->data_n));
        czk_fr_mul(&d, &d, &j->u->rho[node >> j->u->shift]);
        czk_fr_add(&a, &a, &d);
        czk_fr_to_bytes(j->u->new_leaves + 32 * (uint64_t)i, &a);
    }
}

/* The new data, comm_d_new, phi and the rhos (both modes). */
static czk_status data_and_rhos(update *u, const czk_seal_snap_request *req, czk_seal_snap *out,
                                uint64_t data_nodes, czk_pool *pool, czk_err *err) {
    czk_seal_request dreq = req->sector;
    dreq.data_kind = req->data_kind;
    dreq.data = req->data;
    dreq.data_len = req->data_len;
    dreq.random_seed = req->random_seed;
    stage(&req->sector, "new_data");
    czk_status st = seal_make_data(&u->nd, &dreq, data_nodes, err);
    if (st) return st;
    stage(&req->sector, "tree_d_new");
    seal_tree_init_d(&u->td, u->shape->challenge_bits);
    if ((st = seal_tree_build_dense(&u->td, u->nd.data, data_nodes, pool, err))) return st;
    seal_tree_root(&u->td, out->comm_d_new);
    czk_fr phi;
    if ((st = czk_snap_phi(&phi, out->comm_d_new, out->comm_r_old, err))) return st;
    size_t nr = (size_t)1 << out->h;
    u->rho = malloc(nr * sizeof *u->rho);
    if (!u->rho) return czk_errf(err, CZK_ERR_NOMEM, "SnapDeals rhos");
    for (size_t r = 0; r < nr; r++)
        if ((st = czk_snap_rho(&u->rho[r], &phi, r, err))) return st;
    u->shift = u->shape->challenge_bits - out->h;
    return CZK_OK;
}

static czk_status full(update *u, const czk_seal_snap_request *req, czk_seal_snap *out,
                       czk_pool *pool, czk_err *err) {
    czk_seal_request sreq = req->sector;
    sreq.sparse = false;
    czk_status st = seal_sector_make(&u->s, &sreq, pool, err);
    if (st) return st;
    /* the sector key is all the update needs: drop the layers and TreeC */
    free(u->s.labels);
    free(u->s.colhash);
    u->s.labels = u->s.colhash = NULL;
    seal_tree_free(&u->s.tc);
    memcpy(out->comm_c, u->s.comm_c, 32);
    memcpy(out->root_r_old, u->s.comm_r_last, 32);
    memcpy(out->comm_r_old, u->s.comm_r, 32);
    uint64_t n = u->shape->nodes;
    if ((st = data_and_rhos(u, req, out, n, pool, err))) return st;
    stage(&req->sector, "encode");
    u->new_leaves = malloc(32 * n);
    if (!u->new_leaves) return czk_errf(err, CZK_ERR_NOMEM, "SnapDeals replica");
    struct encode_job j = {u, u->s.replica, u->nd.data, n, n, 0};
    czk_pool_for(pool, (size_t)n, 4096, encode_range, &j);
    stage(&req->sector, "tree_r_new");
    seal_tree_init_rc(&u->tr_new, u->pshape);
    return seal_tree_build_dense(&u->tr_new, u->new_leaves, n, pool, err);
}

static czk_status sparse(update *u, const czk_seal_snap_request *req, czk_seal_snap *out,
                         czk_pool *pool, czk_err *err) {
    if (req->data_kind == CZK_SEAL_DATA_BYTES)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "sparse SnapDeals sectors take zero or random data, not caller bytes");
    const czk_seal_request *sr = &req->sector;
    uint64_t region = u->shape->nodes >> out->h;
    u->regions = (uint64_t)1 << out->h;
    u->block = region < SNAP_BLOCK ? region : SNAP_BLOCK;
    uint8_t key[32], km[20 + 24];
    memcpy(km, "czk-seal-snap-sparse", 20);
    for (int i = 0; i < 8; i++) {
        km[20 + i] = (uint8_t)(sr->miner_id >> (8 * i));
        km[28 + i] = (uint8_t)(sr->sector_num >> (8 * i));
        km[36 + i] = (uint8_t)(sr->random_seed >> (8 * i));
    }
    czk_sha256_digest(key, km, sizeof km);
    stage(sr, "sector_key");
    u->old_block = malloc(32 * u->block);
    if (!u->old_block) return czk_errf(err, CZK_ERR_NOMEM, "SnapDeals sector key");
    for (uint64_t i = 0; i < u->block; i++)
        seal_fill(u->old_block + 32 * i, key, TAG_SNAP_OLD, i, 0);
    seal_tree_init_rc(&u->tr_old, u->pshape);
    czk_status st = seal_tree_build_dense(&u->tr_old, u->old_block, u->block, pool, err);
    if (st) return st;
    seal_fill(out->comm_c, key, TAG_SNAP_COMM_C, 0, 0);
    seal_tree_root(&u->tr_old, out->root_r_old);
    if ((st = comm_r_of(out->comm_r_old, out->comm_c, out->root_r_old, err))) return st;
    if ((st = data_and_rhos(u, req, out, u->block, pool, err))) return st;
    stage(sr, "encode");
    uint64_t n = u->regions * u->block;
    u->new_leaves = malloc(32 * n);
    if (!u->new_leaves) return czk_errf(err, CZK_ERR_NOMEM, "SnapDeals replica blocks");
    struct encode_job j = {u, u->old_block, u->nd.data, u->block, u->block, u->block};
    czk_pool_for(pool, (size_t)n, 1024, encode_range, &j);
    stage(sr, "tree_r_new");
    seal_tree_init_rc(&u->tr_new, u->pshape);
    return seal_tree_build_regions(&u->tr_new, u->new_leaves, u->block, u->regions, pool, err);
}

/* prove_inner: partition k's PartitionProof. */
static czk_status partition(const update *u, const czk_seal_snap *out, uint64_t k, seal_blob *b,
                            czk_err *err) {
    const czk_snap_shape *s = u->shape;
    const seal_tree *tr_old = u->s.tr.levels ? &u->s.tr : &u->tr_old;
    uint64_t c[128];
    if (s->challenges > sizeof c / sizeof c[0])
        return czk_errf(err, CZK_ERR_INTERNAL, "SnapDeals: %u challenges", s->challenges);
    czk_status st = czk_snap_challenges(c, s, out->comm_r_new, k, err);
    if (st) return st;
    unsigned below = s->challenge_bits - s->partition_bits - s->apex_bits;
    seal_put(b, out->comm_c, 32);
    seal_put_u64(b, s->apex_leafs);
    for (unsigned i = 0; i < s->apex_leafs; i++) {
        uint8_t node[32];
        seal_tree_node(&u->td, below, k * s->apex_leafs + i, node);
        seal_put(b, node, 32);
    }
    seal_put_u64(b, s->challenges);
    for (unsigned j = 0; j < s->challenges; j++) {
        seal_put_merkle(b, tr_old, c[j]);
        seal_put_merkle(b, &u->td, c[j]);
        seal_put_merkle(b, &u->tr_new, c[j]);
    }
    return b->nomem
               ? czk_errf(err, CZK_ERR_NOMEM, "SnapDeals partition %llu", (unsigned long long)k)
               : CZK_OK;
}

czk_status czk_seal_snap_vanilla(czk_seal_snap *out, const czk_seal_snap_request *req,
                                 czk_pool *pool, czk_err *err) {
    memset(out, 0, sizeof *out);
    czk_porep_proof proof;
    czk_status st = czk_porep_proof_lookup(req->sector.registered_proof, &proof, err);
    if (st) return st;
    update u;
    memset(&u, 0, sizeof u);
    u.pshape = proof.shape;
    u.shape = czk_snap_shape_for_size(proof.shape->sector_size);
    if (!u.shape || u.shape->registered_proof < 0)
        return czk_errf(err, CZK_ERR_UNSUPPORTED, "SnapDeals: no update proof for %s sectors",
                        proof.shape->name);
    out->partitions = u.shape->partitions;
    out->h = req->h ? req->h : u.shape->h_default;
    uint64_t hsel;
    if ((st = czk_snap_h_select(u.shape, out->h, &hsel, err))) return st;
    if (req->data_kind == CZK_SEAL_DATA_BYTES && req->data_len > u.shape->nodes / 4 * 127)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "new data: %zu bytes, a %s sector holds at most %llu unpadded bytes",
                        req->data_len, u.shape->name,
                        (unsigned long long)(u.shape->nodes / 4 * 127));
    st = req->sector.sparse ? sparse(&u, req, out, pool, err) : full(&u, req, out, pool, err);
    if (!st) {
        seal_tree_root(&u.tr_new, out->root_r_new);
        st = comm_r_of(out->comm_r_new, out->comm_c, out->root_r_new, err);
    }
    if (!st) stage(&req->sector, "partitions");
    for (unsigned k = 0; !st && k < out->partitions; k++) {
        seal_blob b = {0};
        st = partition(&u, out, k, &b, err);
        out->blobs[k] = b.p;
        out->lens[k] = b.n;
    }
    update_free(&u);
    if (st) czk_seal_snap_free(out);
    return st;
}

void czk_seal_snap_free(czk_seal_snap *s) {
    if (!s) return;
    for (unsigned k = 0; k < CZK_SEAL_SNAP_MAX_PARTITIONS; k++)
        free(s->blobs[k]);
    memset(s, 0, sizeof *s);
}
