/*
 * The test-sector generator: seal_pre_commit_phase1/2 and seal_commit_phase1
 * of rust-fil-proofs (filecoin-proofs api/seal.rs, storage-proofs-porep
 * stacked/vanilla/proof.rs), written from the public algorithm.
 *
 * Full mode keeps everything in memory: the padded data and TreeD, every
 * layer's labels, the column hashes and TreeC, the replica and TreeR. The
 * stages run one after the other; each is parallel on the pool except the
 * labeling, whose layers are a dependency chain (see labels.c).
 *
 * Sparse mode builds what the challenges touch. TreeD must be known before
 * the challenges (comm_d → replica_id → challenges), so the data is a block
 * of BLOCK nodes repeated over the sector: TreeD's levels above the block
 * are hashes of equal children, and its root and every path cost O(BLOCK).
 * Then, per challenged node c (every partition) and its 14 parents, one
 * column of `layers` labels: parents' labels are keyed pseudo-random values
 * (seal_fill), and c's labels are computed layer by layer, nodes in
 * increasing order, from its parents' labels — so a challenged node that is
 * also a parent of another challenge has the same, computed, column in both
 * proofs (DRG parents are smaller nodes of the same layer, expander parents
 * nodes of the previous layer, both final by then). TreeC and TreeR are
 * sparse trees (tree.c) over those columns and over the challenged replica
 * nodes, so all proofs open one set of roots.
 *
 * Both modes then build the vanilla proofs exactly as prove_layers does.
 */
#include "seal/seal_internal.h"

#include "util/digest.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPARSE_BLOCK 1024u /* nodes in the repeated data block of a sparse sector */
#define RANDOM_CHUNK (127u * 4096u)

static void stage(const czk_seal_request *req, const char *name) {
    if (req->on_stage) req->on_stage(req->stage_arg, name);
}

void seal_sector_free(seal_sector *s) {
    seal_tree_free(&s->td);
    seal_tree_free(&s->tc);
    seal_tree_free(&s->tr);
    if (s->g) czk_porep_graph_destroy(s->g);
    free(s->data);
    free(s->labels);
    free(s->colhash);
    free(s->replica);
    free(s->col_nodes);
    free(s->col_rows);
    free(s->challenges);
    free(s->uniq);
}

/* ---- data ---- */

czk_status seal_make_data(seal_sector *s, const czk_seal_request *req, uint64_t nodes,
                          czk_err *err) {
    s->data_nodes = nodes;
    s->data = calloc(nodes, 32);
    if (!s->data)
        return czk_errf(err, CZK_ERR_NOMEM, "sector data: %llu bytes",
                        (unsigned long long)nodes * 32);
    uint64_t cap = nodes / 4 * 127; /* unpadded capacity */
    if (req->data_kind == CZK_SEAL_DATA_ZERO) return CZK_OK;
    uint8_t *chunk = malloc(RANDOM_CHUNK);
    if (!chunk) return czk_errf(err, CZK_ERR_NOMEM, "sector data chunk");
    czk_rng rng;
    czk_rng_seed(&rng, req->random_seed);
    for (uint64_t off = 0; off < cap; off += RANDOM_CHUNK) {
        size_t n = cap - off < RANDOM_CHUNK ? (size_t)(cap - off) : RANDOM_CHUNK;
        if (req->data_kind == CZK_SEAL_DATA_RANDOM) {
            czk_status st = czk_random_bytes(&rng, chunk, n, err);
            if (st != CZK_OK) {
                free(chunk);
                return st;
            }
        } else {
            memset(chunk, 0, n);
            if (off < req->data_len) {
                size_t have = req->data_len - off < n ? (size_t)(req->data_len - off) : n;
                memcpy(chunk, req->data + off, have);
            }
        }
        czk_fr32_pad(s->data + off / 127 * 128, chunk, n);
    }
    free(chunk);
    return CZK_OK;
}

/* ---- full mode ---- */

struct col_job {
    const seal_sector *s;
    const czk_poseidon_constants *pc;
};

static void column_hash_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct col_job *j = arg;
    const seal_sector *s = j->s;
    czk_fr rows[CZK_POSEIDON_MAX_ARITY], h;
    for (size_t v = begin; v < end; v++) {
        for (unsigned l = 0; l < s->layers; l++)
            czk_fr_from_bytes_reduce(&rows[l], s->labels + ((uint64_t)l * s->nodes + v) * 32);
        czk_poseidon_hash_with(j->pc, &h, rows);
        czk_fr_to_bytes(s->colhash + 32 * (uint64_t)v, &h);
    }
}

static void replica_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const seal_sector *s = arg;
    const uint8_t *last = s->labels + (uint64_t)(s->layers - 1) * s->nodes * 32;
    for (size_t v = begin; v < end; v++) {
        czk_fr a, b;
        czk_fr_from_bytes_reduce(&a, last + 32 * (uint64_t)v);
        czk_fr_from_bytes_reduce(&b, s->data + 32 * (uint64_t)v);
        czk_fr_add(&a, &a, &b);
        czk_fr_to_bytes(s->replica + 32 * (uint64_t)v, &a);
    }
}

static uint64_t phys_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
}

static czk_status seal_full(seal_sector *s, const czk_seal_request *req, czk_pool *pool,
                            czk_err *err) {
    const czk_porep_shape *sh = s->proof.shape;
    /* data + TreeD + layers + column hashes + replica + TreeC/TreeR upper levels */
    double need = (double)sh->sector_size * (4.3 + s->layers);
    if (need > 0.85 * (double)phys_memory())
        return czk_errf(err, CZK_ERR_UNSUPPORTED,
                        "a full %s sector needs about %.0f GiB of memory (%u layers kept), this "
                        "machine has %.0f GiB; use a sparse sector",
                        sh->name, need / (1u << 30), s->layers, (double)phys_memory() / (1u << 30));
    czk_status st;
    stage(req, "data");
    if ((st = seal_make_data(s, req, s->nodes, err)) != CZK_OK) return st;
    stage(req, "tree_d");
    seal_tree_init_d(&s->td, sh->log2_nodes);
    if ((st = seal_tree_build_dense(&s->td, s->data, s->nodes, pool, err)) != CZK_OK) return st;
    seal_tree_root(&s->td, s->comm_d);
    uint8_t prover_id[32];
    czk_porep_prover_id(prover_id, req->miner_id);
    czk_porep_replica_id(s->replica_id, prover_id, req->sector_num, req->ticket, s->comm_d,
                         s->proof.porep_id);

    stage(req, "labels");
    s->labels = malloc((size_t)s->layers * s->nodes * 32);
    if (!s->labels) return czk_errf(err, CZK_ERR_NOMEM, "labels: %u layers", s->layers);
    if ((st = czk_seal_labels(s->labels, s->g, s->replica_id, s->layers, pool, err)) != CZK_OK)
        return st;

    stage(req, "tree_c");
    struct col_job cj = {s, czk_poseidon_constants_get(s->layers, err)};
    if (!cj.pc) return err ? err->code : CZK_ERR_INTERNAL;
    s->colhash = malloc((size_t)s->nodes * 32);
    if (!s->colhash) return czk_errf(err, CZK_ERR_NOMEM, "column hashes");
    czk_pool_for(pool, (size_t)s->nodes, 256, column_hash_range, &cj);
    seal_tree_init_rc(&s->tc, sh);
    if ((st = seal_tree_build_dense(&s->tc, s->colhash, s->nodes, pool, err)) != CZK_OK) return st;

    stage(req, "tree_r");
    s->replica = malloc((size_t)s->nodes * 32);
    if (!s->replica) return czk_errf(err, CZK_ERR_NOMEM, "replica");
    czk_pool_for(pool, (size_t)s->nodes, 4096, replica_range, s);
    seal_tree_init_rc(&s->tr, sh);
    return seal_tree_build_dense(&s->tr, s->replica, s->nodes, pool, err);
}

/* ---- sparse mode ---- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t sort_unique(uint64_t *v, size_t n) {
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[m - 1]) v[m++] = v[i];
    return m;
}

/* Index of `node` in the sorted set (it must be present). */
static size_t find_node(const uint64_t *v, size_t n, uint64_t node) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static czk_status all_challenges(seal_sector *s, czk_err *err, const uint8_t *seed) {
    unsigned P = s->proof.partitions, cpp = s->proof.challenges_per_partition;
    s->challenges = malloc(sizeof(uint64_t) * P * cpp);
    if (!s->challenges) return czk_errf(err, CZK_ERR_NOMEM, "challenges");
    for (unsigned k = 0; k < P; k++) {
        czk_status st = czk_porep_challenges(s->challenges + (size_t)k * cpp, &s->proof,
                                             s->replica_id, seed, s->comm_r, k, err);
        if (st != CZK_OK) return st;
    }
    return CZK_OK;
}

struct sparse_col_job {
    const seal_sector *s;
    const czk_poseidon_constants *pc;
    uint8_t *out;
};

static void sparse_column_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct sparse_col_job *j = arg;
    unsigned L = j->s->layers;
    for (size_t i = begin; i < end; i++) {
        czk_fr rows[CZK_POSEIDON_MAX_ARITY], h;
        for (unsigned l = 0; l < L; l++)
            czk_fr_from_bytes_reduce(&rows[l], j->s->col_rows + (i * L + l) * 32);
        czk_poseidon_hash_with(j->pc, &h, rows);
        czk_fr_to_bytes(j->out + 32 * i, &h);
    }
}

static czk_status seal_sparse(seal_sector *s, const czk_seal_request *req, czk_pool *pool,
                              czk_err *err) {
    const czk_porep_shape *sh = s->proof.shape;
    czk_status st;
    if (s->proof.kind != CZK_POREP_INTERACTIVE)
        return czk_errf(err, CZK_ERR_UNSUPPORTED,
                        "sparse sectors need interactive challenges: proof %llu draws them from "
                        "comm_r, which a sparse sector derives from its challenges",
                        (unsigned long long)s->proof.id);
    if (req->data_kind == CZK_SEAL_DATA_BYTES)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "sparse sectors take zero or random data, not caller bytes");
    stage(req, "tree_d");
    uint64_t block = s->nodes < SPARSE_BLOCK ? s->nodes : SPARSE_BLOCK;
    if ((st = seal_make_data(s, req, block, err)) != CZK_OK) return st;
    seal_tree_init_d(&s->td, sh->log2_nodes);
    if ((st = seal_tree_build_dense(&s->td, s->data, block, pool, err)) != CZK_OK) return st;
    seal_tree_root(&s->td, s->comm_d);
    uint8_t prover_id[32];
    czk_porep_prover_id(prover_id, req->miner_id);
    czk_porep_replica_id(s->replica_id, prover_id, req->sector_num, req->ticket, s->comm_d,
                         s->proof.porep_id);
    /* The fill key: every pseudo-random value of this sector derives from it. */
    uint8_t km[15 + 32 + 8];
    memcpy(km, "czk-seal-sparse", 15);
    memcpy(km + 15, s->replica_id, 32);
    for (int i = 0; i < 8; i++)
        km[47 + i] = (uint8_t)(req->random_seed >> (8 * i));
    czk_sha256_digest(s->key, km, sizeof km);

    stage(req, "challenges");
    if ((st = all_challenges(s, err, req->seed)) != CZK_OK) return st;
    size_t nch = (size_t)s->proof.partitions * s->proof.challenges_per_partition;
    uint64_t *chal = s->uniq = malloc(sizeof(uint64_t) * (nch ? nch : 1));
    s->col_nodes = malloc(sizeof(uint64_t) * nch * (1 + CZK_POREP_DEGREE));
    if (!chal || !s->col_nodes) return czk_errf(err, CZK_ERR_NOMEM, "sparse columns");
    memcpy(chal, s->challenges, sizeof(uint64_t) * nch);
    size_t nc = sort_unique(chal, nch), m = 0;
    for (size_t i = 0; i < nc; i++) {
        uint32_t par[CZK_POREP_DEGREE];
        if ((st = czk_porep_graph_parents(s->g, chal[i], par, err)) != CZK_OK) return st;
        s->col_nodes[m++] = chal[i];
        for (unsigned k = 0; k < CZK_POREP_DEGREE; k++)
            s->col_nodes[m++] = par[k];
    }
    s->ncols = sort_unique(s->col_nodes, m);

    stage(req, "labels");
    unsigned L = s->layers;
    s->col_rows = malloc(s->ncols * L * 32);
    if (!s->col_rows) return czk_errf(err, CZK_ERR_NOMEM, "sparse column rows");
    for (size_t i = 0; i < s->ncols; i++)
        for (unsigned l = 0; l < L; l++)
            seal_fill(s->col_rows + (i * L + l) * 32, s->key, TAG_LABEL, s->col_nodes[i], l + 1);
    uint8_t parents[CZK_SEAL_LABEL_PARENTS * 32];
    for (unsigned l = 1; l <= L; l++) {
        unsigned deg = l == 1 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
        for (size_t i = 0; i < nc; i++) {
            uint32_t par[CZK_POREP_DEGREE];
            if ((st = czk_porep_graph_parents(s->g, chal[i], par, err)) != CZK_OK) return st;
            for (unsigned q = 0; q < CZK_SEAL_LABEL_PARENTS; q++) {
                unsigned k = q % deg;
                unsigned row = k < CZK_POREP_BASE_DEGREE ? l - 1 : l - 2;
                size_t ci = find_node(s->col_nodes, s->ncols, par[k]);
                memcpy(parents + 32 * q, s->col_rows + (ci * L + row) * 32, 32);
            }
            size_t ci = find_node(s->col_nodes, s->ncols, chal[i]);
            czk_seal_label(s->col_rows + (ci * L + l - 1) * 32, s->replica_id, l, chal[i], parents);
        }
    }

    stage(req, "tree_c");
    const czk_poseidon_constants *pc = czk_poseidon_constants_get(L, err);
    uint8_t *hashes = malloc(s->ncols * 32);
    if (!pc || !hashes) {
        free(hashes);
        return pc    ? czk_errf(err, CZK_ERR_NOMEM, "column hashes")
               : err ? err->code
                     : CZK_ERR_INTERNAL;
    }
    struct sparse_col_job scj = {s, pc, hashes};
    czk_pool_for(pool, s->ncols, 8, sparse_column_range, &scj);
    seal_tree_init_rc(&s->tc, sh);
    st = seal_tree_build_sparse(&s->tc, s->col_nodes, hashes, s->ncols, s->key, TAG_TREE_C, pool,
                                err);
    free(hashes);
    if (st != CZK_OK) return st;

    stage(req, "tree_r");
    uint8_t *rep = malloc(nc * 32 + 32);
    if (!rep) return czk_errf(err, CZK_ERR_NOMEM, "replica nodes");
    for (size_t i = 0; i < nc; i++) {
        size_t ci = find_node(s->col_nodes, s->ncols, chal[i]);
        czk_fr a, b;
        czk_fr_from_bytes_reduce(&a, s->col_rows + (ci * L + L - 1) * 32);
        czk_fr_from_bytes_reduce(&b, s->data + 32 * (chal[i] % s->data_nodes));
        czk_fr_add(&a, &a, &b);
        czk_fr_to_bytes(rep + 32 * i, &a);
    }
    seal_tree_init_rc(&s->tr, sh);
    st = seal_tree_build_sparse(&s->tr, chal, rep, nc, s->key, TAG_TREE_R, pool, err);
    free(rep);
    return st;
}

/* ---- vanilla proofs ---- */

static void column_rows(const seal_sector *s, uint64_t node, uint8_t *rows) {
    if (s->labels) {
        for (unsigned l = 0; l < s->layers; l++)
            memcpy(rows + 32 * l, s->labels + ((uint64_t)l * s->nodes + node) * 32, 32);
    } else {
        size_t ci = find_node(s->col_nodes, s->ncols, node);
        memcpy(rows, s->col_rows + ci * s->layers * 32, (size_t)s->layers * 32);
    }
}

static czk_status column_proof(const seal_sector *s, uint64_t node, czk_column_proof *cp,
                               czk_c1 *c1, czk_err *err) {
    cp->index = (uint32_t)node;
    cp->num_rows = s->layers;
    cp->rows = czk_c1_alloc(c1, 32 * (size_t)s->layers);
    if (!cp->rows) return czk_errf(err, CZK_ERR_NOMEM, "column rows");
    column_rows(s, node, cp->rows[0].b);
    return seal_tree_proof(&s->tc, node, &cp->inclusion, c1, err);
}

static czk_status vanilla_proof(const seal_sector *s, uint64_t c, czk_vanilla_proof *vp, czk_c1 *c1,
                                czk_err *err) {
    czk_status st;
    if ((st = seal_tree_proof(&s->td, c, &vp->comm_d_proof, c1, err)) != CZK_OK) return st;
    if ((st = seal_tree_proof(&s->tr, c, &vp->comm_r_last_proof, c1, err)) != CZK_OK) return st;
    if ((st = column_proof(s, c, &vp->c_x, c1, err)) != CZK_OK) return st;
    uint32_t par[CZK_POREP_DEGREE];
    if ((st = czk_porep_graph_parents(s->g, c, par, err)) != CZK_OK) return st;
    for (unsigned k = 0; k < CZK_POREP_BASE_DEGREE; k++)
        if ((st = column_proof(s, par[k], &vp->drg_parents[k], c1, err)) != CZK_OK) return st;
    for (unsigned k = 0; k < CZK_POREP_EXP_DEGREE; k++)
        if ((st = column_proof(s, par[CZK_POREP_BASE_DEGREE + k], &vp->exp_parents[k], c1, err)) !=
            CZK_OK)
            return st;
    unsigned L = s->layers;
    vp->num_labeling = L;
    vp->labeling = czk_c1_alloc(c1, sizeof(czk_labeling_proof) * L);
    if (!vp->labeling) return czk_errf(err, CZK_ERR_NOMEM, "labeling proofs");
    for (unsigned l = 1; l <= L; l++) {
        czk_labeling_proof *lp = &vp->labeling[l - 1];
        unsigned deg = l == 1 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
        lp->layer_index = l;
        lp->node = c;
        lp->num_parents = CZK_SEAL_LABEL_PARENTS;
        lp->parents = czk_c1_alloc(c1, 32 * CZK_SEAL_LABEL_PARENTS);
        if (!lp->parents) return czk_errf(err, CZK_ERR_NOMEM, "labeling parents");
        for (unsigned q = 0; q < CZK_SEAL_LABEL_PARENTS; q++) {
            unsigned k = q % deg;
            lp->parents[q] = k < CZK_POREP_BASE_DEGREE
                                 ? vp->drg_parents[k].rows[l - 1]
                                 : vp->exp_parents[k - CZK_POREP_BASE_DEGREE].rows[l - 2];
        }
    }
    vp->encoding = vp->labeling[L - 1];
    vp->encoding.parents = czk_c1_alloc(c1, 32 * CZK_SEAL_LABEL_PARENTS);
    if (!vp->encoding.parents) return czk_errf(err, CZK_ERR_NOMEM, "encoding parents");
    memcpy(vp->encoding.parents, vp->labeling[L - 1].parents, 32 * CZK_SEAL_LABEL_PARENTS);
    return CZK_OK;
}

/* ---- entry point ---- */

czk_status seal_sector_make(seal_sector *s, const czk_seal_request *req, czk_pool *pool,
                            czk_err *err) {
    memset(s, 0, sizeof *s);
    czk_status st = czk_porep_proof_lookup(req->registered_proof, &s->proof, err);
    if (st != CZK_OK) return st;
    const czk_porep_shape *sh = s->proof.shape;
    s->nodes = sh->nodes;
    s->layers = sh->layers;
    if (req->data_kind == CZK_SEAL_DATA_BYTES && req->data_len > s->nodes / 4 * 127)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "data: %zu bytes, a %s sector holds at most %llu unpadded bytes",
                        req->data_len, sh->name, (unsigned long long)(s->nodes / 4 * 127));
    if (req->data_kind == CZK_SEAL_DATA_BYTES && req->data_len && !req->data)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "data: NULL with %zu bytes", req->data_len);
    stage(req, "graph");
    st = czk_porep_graph_create(&s->g, s->nodes, s->proof.porep_id, s->proof.api, pool, err);
    if (st == CZK_OK)
        st = req->sparse ? seal_sparse(s, req, pool, err) : seal_full(s, req, pool, err);
    if (st == CZK_OK) {
        seal_tree_root(&s->tc, s->comm_c);
        seal_tree_root(&s->tr, s->comm_r_last);
        czk_fr in[2], h;
        czk_fr_from_bytes_reduce(&in[0], s->comm_c);
        czk_fr_from_bytes_reduce(&in[1], s->comm_r_last);
        st = czk_poseidon_hash(&h, in, 2, err);
        if (st == CZK_OK) czk_fr_to_bytes(s->comm_r, &h);
    }
    return st;
}

static void copy_result(czk_seal_result *result, const seal_sector *s) {
    memcpy(result->comm_d, s->comm_d, 32);
    memcpy(result->comm_r, s->comm_r, 32);
    memcpy(result->comm_c, s->comm_c, 32);
    memcpy(result->comm_r_last, s->comm_r_last, 32);
    memcpy(result->replica_id, s->replica_id, 32);
}

czk_status czk_seal_generate(czk_c1 **out, czk_seal_result *result, const czk_seal_request *req,
                             czk_pool *pool, czk_err *err) {
    *out = NULL;
    seal_sector s;
    czk_status st = seal_sector_make(&s, req, pool, err);
    if (st == CZK_OK && !s.challenges) {
        stage(req, "challenges");
        st = all_challenges(&s, err, req->seed);
    }
    czk_c1 *c1 = NULL;
    if (st == CZK_OK) {
        stage(req, "proofs");
        unsigned P = s.proof.partitions, cpp = s.proof.challenges_per_partition;
        c1 = czk_c1_create((uint32_t)s.proof.id, P, cpp, err);
        if (!c1) st = err ? err->code : CZK_ERR_NOMEM;
        for (size_t i = 0; st == CZK_OK && i < (size_t)P * cpp; i++)
            st = vanilla_proof(&s, s.challenges[i], &c1->proofs[i], c1, err);
    }
    if (st == CZK_OK) {
        memcpy(c1->comm_r.b, s.comm_r, 32);
        memcpy(c1->comm_d.b, s.comm_d, 32);
        memcpy(c1->replica_id.b, s.replica_id, 32);
        memcpy(c1->seed.b, req->seed, 32);
        memcpy(c1->ticket.b, req->ticket, 32);
        if (result) copy_result(result, &s);
        *out = c1;
    } else {
        czk_c1_free(c1);
    }
    seal_sector_free(&s);
    return st;
}

/* ---- PoSt vanilla proofs of a sealed sector ---- */

void seal_put(seal_blob *b, const void *x, size_t n) {
    if (b->nomem) return;
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 256;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->nomem = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, x, n);
    b->n += n;
}

void seal_put_u64(seal_blob *b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    seal_put(b, x, 8);
}

static void put_u32(seal_blob *b, uint32_t v) {
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    seal_put(b, x, 4);
}

/* The InclusionPath of levels [from, from + n) of the path of `leaf`. */
static void put_path(seal_blob *b, const seal_tree *t, uint64_t leaf, unsigned from, unsigned n) {
    uint64_t i = leaf;
    for (unsigned l = 0; l < from; l++)
        i /= t->arity[l];
    seal_put_u64(b, n);
    for (unsigned l = from; l < from + n; l++) {
        unsigned a = t->arity[l];
        uint64_t group = i / a;
        unsigned pos = (unsigned)(i % a);
        seal_put_u64(b, a - 1);
        for (unsigned k = 0; k < a; k++)
            if (k != pos) {
                uint8_t node[32];
                seal_tree_node(t, l, group * a + k, node);
                seal_put(b, node, 32);
            }
        seal_put_u64(b, pos);
        i = group;
    }
}

void seal_put_merkle(seal_blob *b, const seal_tree *t, uint64_t leaf) {
    uint8_t root[32], value[32];
    seal_tree_root(t, root);
    seal_tree_node(t, 0, leaf, value);
    put_u32(b, (uint32_t)t->kind);
    if (t->kind == CZK_MERKLE_SINGLE) {
        seal_put(b, root, 32);
        seal_put(b, value, 32);
        put_path(b, t, leaf, 0, t->parts[0]);
        return;
    }
    put_path(b, t, leaf, 0, t->parts[0]);
    put_path(b, t, leaf, t->parts[0], 1);
    if (t->kind == CZK_MERKLE_TOP) put_path(b, t, leaf, t->parts[0] + 1, 1);
    seal_put(b, root, 32);
    seal_put(b, value, 32);
}

/*
 * A sparse PoSt sector: PoSt challenges depend on the sector number and the
 * randomness only, so TreeR is a sparse tree over the challenged leaves
 * (pseudo-random replica values), comm_c a pseudo-random value and comm_r
 * = Poseidon-2(comm_c, comm_r_last). For benchmarks: such a sector has no
 * PoRep C1 and no data.
 */
static czk_status post_sparse(seal_sector *s, const czk_seal_request *req, const uint64_t *leaves,
                              unsigned n, czk_pool *pool, czk_err *err) {
    memset(s, 0, sizeof *s);
    czk_status st = czk_porep_proof_lookup(req->registered_proof, &s->proof, err);
    if (st) return st;
    s->nodes = s->proof.shape->nodes;
    uint8_t km[20 + 24];
    memcpy(km, "czk-seal-post-sparse", 20);
    for (int i = 0; i < 8; i++) {
        km[20 + i] = (uint8_t)(req->miner_id >> (8 * i));
        km[28 + i] = (uint8_t)(req->sector_num >> (8 * i));
        km[36 + i] = (uint8_t)(req->random_seed >> (8 * i));
    }
    czk_sha256_digest(s->key, km, sizeof km);
    s->uniq = malloc(sizeof(uint64_t) * n);
    uint8_t *vals = malloc(32u * n);
    if (!s->uniq || !vals) {
        free(vals);
        return czk_errf(err, CZK_ERR_NOMEM, "sparse PoSt leaves");
    }
    memcpy(s->uniq, leaves, sizeof(uint64_t) * n);
    size_t nu = sort_unique(s->uniq, n);
    for (size_t i = 0; i < nu; i++)
        seal_fill(vals + 32 * i, s->key, TAG_POST_LEAF, s->uniq[i], 0);
    stage(req, "tree_r");
    seal_tree_init_rc(&s->tr, s->proof.shape);
    st = seal_tree_build_sparse(&s->tr, s->uniq, vals, nu, s->key, TAG_TREE_R, pool, err);
    free(vals);
    if (st) return st;
    seal_fill(s->comm_c, s->key, TAG_POST_COMM_C, 0, 0);
    seal_tree_root(&s->tr, s->comm_r_last);
    czk_fr in[2], h;
    czk_fr_from_bytes_reduce(&in[0], s->comm_c);
    czk_fr_from_bytes_reduce(&in[1], s->comm_r_last);
    if ((st = czk_poseidon_hash(&h, in, 2, err))) return st;
    czk_fr_to_bytes(s->comm_r, &h);
    return CZK_OK;
}

czk_status czk_seal_post_vanilla(uint8_t **out, size_t *len, czk_seal_result *result,
                                 const czk_seal_request *req, czk_post_kind kind, czk_post_api api,
                                 const uint8_t randomness[32], uint64_t sector_index,
                                 czk_pool *pool, czk_err *err) {
    *out = NULL;
    *len = 0;
    if (kind != CZK_POST_WINNING && kind != CZK_POST_WINDOW)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "PoSt vanilla proof: unknown kind %d", (int)kind);
    czk_status st = czk_post_randomness_check(randomness, err);
    if (st) return st;
    czk_porep_proof proof;
    if ((st = czk_porep_proof_lookup(req->registered_proof, &proof, err))) return st;
    unsigned n =
        kind == CZK_POST_WINNING ? CZK_POST_WINNING_CHALLENGES : CZK_POST_WINDOW_CHALLENGES;
    uint64_t leaves[CZK_POST_WINNING_CHALLENGES];
    for (unsigned j = 0; j < n; j++) {
        uint64_t idx = kind == CZK_POST_WINNING ? czk_post_challenge_index(api, j, 1, 0)
                                                : czk_post_challenge_index(api, sector_index, n, j);
        leaves[j] = czk_post_leaf_challenge(randomness, req->sector_num, idx, proof.shape->nodes);
    }
    seal_sector s;
    st = req->sparse ? post_sparse(&s, req, leaves, n, pool, err)
                     : seal_sector_make(&s, req, pool, err);
    seal_blob b = {0};
    if (st == CZK_OK) {
        stage(req, "post");
        seal_put_u64(&b, req->sector_num);
        seal_put(&b, s.comm_r, 32);
        seal_put_u64(&b, 1); /* one SectorProof */
        seal_put_u64(&b, n);
        for (unsigned j = 0; j < n; j++)
            seal_put_merkle(&b, &s.tr, leaves[j]);
        seal_put(&b, s.comm_c, 32);
        seal_put(&b, s.comm_r_last, 32);
        if (b.nomem) st = czk_errf(err, CZK_ERR_NOMEM, "PoSt vanilla proof");
    }
    if (st == CZK_OK) {
        *out = b.p;
        *len = b.n;
        if (result) copy_result(result, &s);
    } else {
        free(b.p);
    }
    seal_sector_free(&s);
    return st;
}
