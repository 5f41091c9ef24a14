/*
 * PoRep C2 (porep_prove.h): the witness of a partition from a C1, public
 * inputs as the chain derives them, key and shape lookup, and the
 * prove-then-verify loop over partitions.
 *
 * The witness is a view of the C1: a parsed czk_merkle_proof already holds
 * its path leaf to root (base levels, then sub, then top), its positions as
 * u32 and its siblings as consecutive 32-byte Domain values, and a column
 * its rows as consecutive Domains — exactly the circuit's czk_porep_path and
 * czk_porep_column layout — so only pointers are set. The structure is
 * checked against the shape first (czk_c1_check_shape, then each path
 * against the circuit's own trees), so that a C1 built in memory cannot
 * send the circuit past the end of an array.
 *
 * Proving is a two-stage pipeline over the partitions: a witness thread
 * makes partition k + 1's witness (one core, 2.9-4.1 s at 32GiB) while this
 * thread runs partition k on the device (~1-2.5 s), so that at 32GiB the
 * device waits only for the first witness. At most `witnesses` (2) are
 * alive, each in a buffer allocated once (page-locked by the backend where
 * it can) and reused; every proof is verified against inputs derived from
 * the C1's commitments, seed and replica_id and the parent graph before the
 * call returns it. Expected at 32GiB on the H200: per partition
 * max(witness, device) instead of witness + device, i.e. ~3-4 s instead of
 * ~6 s today, and ~10 × device time once the witness is the shorter one.
 */
#include "czk/porep_prove.h"

#include "czk/cuda.h"
#include "czk/keys.h"
#include "czk/porep_precheck.h"
#include "porep/c1_internal.h"
#include "util/hostmem.h"
#include "util/time.h"
#include "util/cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    return czk_now();
}

/* ---- witness ---- */

/* A C1 path against a circuit tree: same levels, same arity per level. */
static czk_status check_path(const czk_merkle_proof *p, const czk_por_tree *t, uint32_t k,
                             uint32_t i, const char *what, czk_err *err) {
    unsigned levels = czk_por_tree_levels(t);
    if (p->num_levels != levels || levels > CZK_MERKLE_MAX_LEVELS)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "partition %u, challenge %u: %s has %u levels, the circuit %u", k, i, what,
                        p->num_levels, levels);
    for (unsigned l = 0; l < levels; l++)
        if (p->arity[l] != czk_por_tree_arity(t, l))
            return czk_errf(err, CZK_ERR_FORMAT,
                            "partition %u, challenge %u: %s level %u has arity %u, the circuit %u",
                            k, i, what, l, p->arity[l], czk_por_tree_arity(t, l));
    return CZK_OK;
}

static void set_path(czk_porep_path *out, const czk_merkle_proof *p) {
    /* The circuit only reads through these pointers (porep_circuit.h). */
    out->positions = (uint32_t *)p->index;
    out->siblings = (uint8_t *)p->siblings;
}

/* The registered proof of a C1 (CZK_ERR_FORMAT if unknown). */
static czk_status resolve(const czk_c1 *c1, czk_porep_proof *pr, czk_err *err) {
    if (czk_porep_proof_lookup(c1->registered_proof, pr, NULL) != CZK_OK)
        return czk_errf(err, CZK_ERR_FORMAT, "registered_proof: unknown id %u",
                        c1->registered_proof);
    return CZK_OK;
}

/* Partition k's witness of a C1 already checked against its shape, whose proof is pr. */
static czk_status witness_of(czk_porep_witness **out, const czk_porep_proof *pr, const czk_c1 *c1,
                             unsigned k, czk_err *err) {
    *out = NULL;
    if (k >= c1->num_partitions)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "witness: partition %u of %u", k,
                        c1->num_partitions);
    czk_porep_config cfg;
    czk_porep_config_for_proof(&cfg, pr);
    czk_por_tree td, trc;
    czk_status st = czk_porep_config_check(&cfg, &td, &trc, err);
    if (st) return st;
    if (c1->challenges_per_partition != cfg.challenges)
        return czk_errf(err, CZK_ERR_FORMAT, "witness: %u challenges per partition, the circuit %u",
                        c1->challenges_per_partition, cfg.challenges);

    const czk_vanilla_proof *v = &c1->proofs[(size_t)k * c1->challenges_per_partition];
    for (unsigned i = 0; i < cfg.challenges; i++) {
        const czk_vanilla_proof *p = &v[i];
        if ((st = check_path(&p->comm_d_proof, &td, k, i, "comm_d_proofs", err)) ||
            (st = check_path(&p->comm_r_last_proof, &trc, k, i, "comm_r_last_proof", err)) ||
            (st = check_path(&p->c_x.inclusion, &trc, k, i, "c_x.inclusion_proof", err)))
            return st;
        for (unsigned j = 0; j < CZK_POREP_CIRCUIT_PARENTS; j++) {
            const czk_column_proof *col = j < 6 ? &p->drg_parents[j] : &p->exp_parents[j - 6];
            char what[48];
            snprintf(what, sizeof what, "%s[%u].inclusion_proof",
                     j < 6 ? "drg_parents" : "exp_parents", j < 6 ? j : j - 6);
            if ((st = check_path(&col->inclusion, &trc, k, i, what, err))) return st;
            if (col->num_rows != cfg.layers || !col->rows)
                return czk_errf(err, CZK_ERR_FORMAT,
                                "partition %u, challenge %u: %s has %u rows, the circuit %u", k, i,
                                what, col->num_rows, cfg.layers);
        }
        if (p->num_labeling < 1 || !p->labeling)
            return czk_errf(err, CZK_ERR_FORMAT,
                            "partition %u, challenge %u: no labeling proof (the challenge)", k, i);
    }

    czk_porep_witness *w = calloc(1, sizeof *w + cfg.challenges * sizeof *w->challenges);
    if (!w) return czk_errf(err, CZK_ERR_NOMEM, "witness: out of memory");
    w->config = cfg;
    w->challenges = (czk_porep_challenge_proof *)(w + 1);
    memcpy(w->replica_id, c1->replica_id.b, 32);
    memcpy(w->comm_d, c1->comm_d.b, 32);
    memcpy(w->comm_r, c1->comm_r.b, 32);
    memcpy(w->comm_c, v[0].c_x.inclusion.root.b, 32);
    memcpy(w->comm_r_last, v[0].comm_r_last_proof.root.b, 32);
    for (unsigned i = 0; i < cfg.challenges; i++) {
        const czk_vanilla_proof *p = &v[i];
        czk_porep_challenge_proof *c = &w->challenges[i];
        c->challenge = p->labeling[0].node;
        memcpy(c->data_leaf, p->comm_d_proof.leaf.b, 32);
        set_path(&c->comm_d_path, &p->comm_d_proof);
        for (unsigned j = 0; j < CZK_POREP_CIRCUIT_PARENTS; j++) {
            const czk_column_proof *src = j < 6 ? &p->drg_parents[j] : &p->exp_parents[j - 6];
            czk_porep_column *dst = j < 6 ? &c->drg_parents[j] : &c->exp_parents[j - 6];
            dst->rows = (uint8_t *)src->rows;
            set_path(&dst->path, &src->inclusion);
        }
        set_path(&c->comm_r_last_path, &p->comm_r_last_proof);
        set_path(&c->comm_c_path, &p->c_x.inclusion);
    }
    *out = w;
    return CZK_OK;
}

czk_status czk_porep_witness_from_c1(czk_porep_witness **out, const czk_c1 *c1, unsigned k,
                                     czk_err *err) {
    *out = NULL;
    czk_porep_proof pr;
    czk_status st = resolve(c1, &pr, err);
    if (!st) st = czk_c1_check_shape(c1, -1, err);
    return st ? st : witness_of(out, &pr, c1, k, err);
}

/* ---- public inputs ---- */

czk_status czk_porep_chain_replica_id(uint8_t out[32], const czk_c1 *c1, uint64_t sector_num,
                                      uint64_t miner_id, czk_err *err) {
    czk_porep_proof pr;
    czk_status st = resolve(c1, &pr, err);
    if (st) return st;
    uint8_t prover_id[32];
    czk_porep_prover_id(prover_id, miner_id);
    czk_porep_replica_id(out, prover_id, sector_num, c1->ticket.b, c1->comm_d.b, pr.porep_id);
    return CZK_OK;
}

/* The public inputs of partition k (the one derivation: every entry point comes here). */
static czk_status inputs_of(czk_fr *out, const czk_porep_proof *pr, const czk_c1 *c1,
                            const uint8_t replica_id[32], const czk_porep_graph *graph, unsigned k,
                            czk_err *err) {
    if (k >= pr->partitions)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "public inputs: partition %u of %u", k,
                        pr->partitions);
    czk_porep_config cfg;
    czk_porep_config_for_proof(&cfg, pr);
    uint64_t *ch = malloc((cfg.challenges + 1) * sizeof *ch);
    if (!ch) return czk_errf(err, CZK_ERR_NOMEM, "public inputs: out of memory");
    czk_porep_graph *own = NULL;
    czk_status st = czk_porep_challenges(ch, pr, replica_id, c1->seed.b, c1->comm_r.b, k, err);
    if (!st && !graph && !(st = czk_c1_graph(&own, c1, NULL, err))) graph = own;
    if (!st)
        st = czk_porep_public_inputs_graph(out, &cfg, graph, replica_id, c1->comm_d.b, c1->comm_r.b,
                                           ch, err);
    czk_porep_graph_destroy(own);
    free(ch);
    return st;
}

czk_status czk_porep_chain_inputs(czk_fr *out, const czk_c1 *c1, const uint8_t replica_id[32],
                                  const czk_porep_graph *graph, unsigned k, czk_err *err) {
    czk_porep_proof pr;
    czk_status st = resolve(c1, &pr, err);
    return st ? st : inputs_of(out, &pr, c1, replica_id, graph, k, err);
}

/* ---- one request, resolved once ---- */

void czk_porep_job_free(czk_porep_job *j) {
    if (!j) return;
    czk_c1_free(j->c1);
    czk_porep_graph_destroy(j->graph);
    free(j);
}

czk_status czk_porep_job_open(czk_porep_job **out, czk_c1 *c1, const czk_porep_job_opts *opts,
                              czk_pool *pool, czk_err *err) {
    *out = NULL;
    czk_porep_job *j = calloc(1, sizeof *j);
    if (!j) {
        czk_c1_free(c1);
        return czk_errf(err, CZK_ERR_NOMEM, "porep job: out of memory");
    }
    j->c1 = c1;
    czk_status st = resolve(c1, &j->proof, err);
    if (!st) st = czk_c1_check_shape(c1, -1, err);
    if (!st)
        st = czk_porep_graph_create(&j->graph, j->proof.shape->nodes, j->proof.porep_id,
                                    j->proof.api, pool, err);
    if (!st && opts->precheck) {
        czk_precheck_opts o = {opts->have_ids, opts->sector_num, opts->miner_id, j->graph};
        if ((st = czk_c1_precheck_resolved(c1, &j->proof, &o, pool, err)))
            czk_err_wrap(err, "pre-check");
    }
    if (!st) {
        czk_porep_config_for_proof(&j->config, &j->proof);
        j->num_inputs = czk_porep_num_inputs(&j->config) - 1;
        if (opts->have_ids) {
            uint8_t prover_id[32];
            czk_porep_prover_id(prover_id, opts->miner_id);
            czk_porep_replica_id(j->replica_id, prover_id, opts->sector_num, c1->ticket.b,
                                 c1->comm_d.b, j->proof.porep_id);
        } else {
            memcpy(j->replica_id, c1->replica_id.b, 32);
        }
    }
    if (st) {
        czk_porep_job_free(j);
        return st;
    }
    *out = j;
    return CZK_OK;
}

czk_status czk_porep_job_witness(czk_porep_witness **out, const czk_porep_job *j, unsigned k,
                                 czk_err *err) {
    return witness_of(out, &j->proof, j->c1, k, err);
}

czk_status czk_porep_job_inputs(czk_fr *out, const czk_porep_job *j, unsigned k, czk_err *err) {
    return inputs_of(out, &j->proof, j->c1, j->replica_id, j->graph, k, err);
}

/* ---- keys and shapes ---- */

czk_status czk_porep_param_cache_dir(char *out, size_t cap, czk_err *err) {
    return czk_param_cache_dir(out, cap, err);
}

czk_status czk_porep_test_key_name(char *out, size_t cap, const czk_porep_shape *shape,
                                   const char *ext, czk_err *err) {
    int n = snprintf(out, cap, "czk-test-v28-stacked-proof-of-replication-%u-%u-%u-%s%s",
                     shape->tree_base_arity, shape->tree_sub_arity, shape->tree_top_arity,
                     shape->name, ext);
    if (n < 0 || (size_t)n >= cap)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "test key name does not fit %zu bytes", cap);
    return CZK_OK;
}

czk_status czk_porep_find_key(char *path, size_t cap, czk_porep_key_kind *kind, const char *dir,
                              const czk_porep_shape *shape, const char *ext, czk_err *err) {
    char names[2][256], what[48];
    czk_status st = czk_porep_param_file_name(names[0], sizeof names[0], shape, "", err);
    if (!st) st = czk_porep_test_key_name(names[1], sizeof names[1], shape, "", err);
    if (st) return st;
    snprintf(what, sizeof what, "%s sectors", shape->name);
    czk_key_kind k;
    st = czk_key_find(path, cap, &k, dir, names[0], names[1], ext, what, err);
    if (!st && kind) *kind = k == CZK_KEY_TEST ? CZK_POREP_KEY_TEST : CZK_POREP_KEY_FILECOIN;
    return st;
}

static czk_status record_shape(void *ctx, czk_shape **out, czk_err *err) {
    const czk_porep_shape *s = ctx;
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, s);
    czk_status st = czk_porep_record(out, &cfg, NULL, err);
    if (st) czk_err_wrap(err, "recording the %s partition circuit", s->name);
    return st;
}

czk_status czk_porep_shape_load(czk_shape **out, bool *recorded, const czk_porep_shape *s,
                                bool use_cache, czk_err *err) {
    char dir[PATH_MAX];
    bool cached = use_cache && czk_cache_dir(dir, sizeof dir, "shapes");
    return czk_porep_shape_load_in(out, recorded, s, cached ? dir : NULL, err);
}

czk_status czk_porep_shape_load_in(czk_shape **out, bool *recorded, const czk_porep_shape *s,
                                   const char *cache_dir, czk_err *err) {
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, s);
    char name[64];
    snprintf(name, sizeof name, "porep-v28-%s", s->name);
    return czk_shape_cache_load(out, recorded, name, czk_porep_num_inputs(&cfg), cache_dir,
                                record_shape, (void *)s, err);
}

/* ---- C2 ---- */

czk_status czk_porep_c2_load(const czk_backend *be, czk_params *params, czk_shape *shape,
                             czk_porep_c2_load_info *info, czk_err *err) {
    czk_porep_c2_load_info tmp;
    czk_porep_c2_load_info *in = info ? info : &tmp;
    memset(in, 0, sizeof *in);
    double t0 = now();
    if (!be->ops->load) {
        in->seconds = now() - t0;
        return CZK_OK;
    }
    unsigned drop = 0;
    uint64_t dev = 0;
    czk_err lerr;
    czk_status st = be->ops->load(be->self, params, shape, &drop, &dev, &lerr);
    if (st == CZK_ERR_NOMEM) { /* no room on the device: everything stays */
        in->no_room = true;
        in->seconds = now() - t0;
        return CZK_OK;
    }
    if (st) {
        if (err) *err = lerr;
        return czk_err_wrap(err, "loading the keys onto the device");
    }
    in->loaded = true;
    in->device_bytes = dev;
    /* the host vectors the device part no longer reads (vk and ic always stay) */
    in->dropped |= czk_params_drop_host(params, drop, &in->freed_bytes);
    /* the CSR arrays, where the SpMV runs from the device's own copy */
    czk_cuda_residency res;
    czk_err rerr;
    if (!czk_backend_cuda_residency(be, params, &res, &rerr) && res.shape_resident) {
        for (int m = 0; m < 3; m++) {
            czk_csr *c = &shape->m[m];
            if (!c->row_ptr) continue;
            in->freed_bytes +=
                (shape->num_constraints + 1) * sizeof(uint64_t) + c->nnz * 2 * sizeof(uint32_t);
            free(c->row_ptr);
            free(c->col);
            free(c->coeff);
            c->row_ptr = NULL;
            c->col = c->coeff = NULL;
        }
        in->shape_dropped = true;
    }
    in->seconds = now() - t0;
    return CZK_OK;
}

/*
 * The pipeline of czk_porep_c2_prove_ex: slots of witness buffers passed
 * between the witness thread (FREE -> READY) and the device loop (READY ->
 * FREE), partition k in slot k % n, under one mutex.
 */
typedef enum { SLOT_FREE, SLOT_READY } slot_state;

typedef struct c2_slot {
    slot_state state;
    uint32_t k;
    void *block; /* inputs, then aux */
    size_t bytes;
    bool pinned; /* from the backend's host_alloc */
    czk_witness w;
    czk_status st;
    czk_err err;
    double secs;
} c2_slot;

typedef struct c2_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    c2_slot *slot;
    unsigned n;
    bool stop;         /* the device loop gave up: the witness thread ends */
    atomic_int cancel; /* stops a synthesis in progress at the same time */
    const czk_c1 *c1;
    const czk_porep_proof *proof; /* c1's, resolved once (its shape checked once) */
    const czk_shape *shape;
    const czk_backend *be;
} c2_pipe;

static void *witness_main(void *arg) {
    c2_pipe *p = arg;
    for (uint32_t k = 0; k < p->c1->num_partitions; k++) {
        c2_slot *sl = &p->slot[k % p->n];
        pthread_mutex_lock(&p->mu);
        while (sl->state != SLOT_FREE && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        bool stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (stop) break;
        double t0 = now();
        czk_err_clear(&sl->err);
        czk_status st = CZK_OK;
        if (!sl->block) { /* first use: allocated here, while the device proves the previous */
            const czk_backend *be = p->be;
            if (be->ops->host_alloc && (sl->block = be->ops->host_alloc(be->self, sl->bytes)))
                sl->pinned = true;
            else if (!(sl->block = czk_hostmem_alloc(sl->bytes)))
                st = czk_errf(&sl->err, CZK_ERR_NOMEM,
                              "cannot allocate a witness buffer of %zu bytes", sl->bytes);
        }
        czk_porep_witness *pw = NULL;
        czk_witness w = {0};
        if (sl->block)
            w = (czk_witness){sl->block, (czk_fr *)sl->block + p->shape->num_inputs,
                              p->shape->num_inputs, p->shape->num_aux, NULL};
        if (!st) st = witness_of(&pw, p->proof, p->c1, k, &sl->err);
        if (!st) st = czk_porep_witness_generate_into(&w, &pw->config, pw, &p->cancel, &sl->err);
        czk_porep_witness_free(pw);
        pthread_mutex_lock(&p->mu);
        sl->k = k;
        sl->w = w;
        sl->st = st;
        sl->secs = now() - t0;
        sl->state = SLOT_READY;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (st) break; /* the device loop reports it */
    }
    return NULL;
}

static void slot_free_block(const czk_backend *be, c2_slot *sl) {
    if (!sl->block) return;
    if (sl->pinned)
        be->ops->host_free(be->self, sl->block, sl->bytes);
    else
        czk_hostmem_free(sl->block, sl->bytes);
    sl->block = NULL;
}

czk_status czk_porep_c2_prove(uint8_t *out, const czk_c1 *c1, const uint8_t replica_id[32],
                              const czk_porep_graph *graph, const czk_params *params,
                              const czk_pvk *pvk, const czk_shape *shape,
                              const czk_backend *backend, czk_pool *pool,
                              czk_porep_c2_timings *timings, czk_err *err) {
    return czk_porep_c2_prove_ex(out, c1, replica_id, graph, params, pvk, shape, backend, pool,
                                 NULL, timings, err);
}

czk_status czk_porep_c2_prove_ex(uint8_t *out, const czk_c1 *c1, const uint8_t replica_id[32],
                                 const czk_porep_graph *graph, const czk_params *params,
                                 const czk_pvk *pvk, const czk_shape *shape,
                                 const czk_backend *backend, czk_pool *pool,
                                 const czk_porep_c2_opts *opts, czk_porep_c2_timings *timings,
                                 czk_err *err) {
    static const czk_porep_c2_opts defaults = {0};
    const czk_porep_c2_opts *o = opts ? opts : &defaults;
    czk_porep_c2_timings tl;
    memset(&tl, 0, sizeof tl);
    czk_porep_c2_timings *t = timings ? timings : &tl;
    double t_call = now();
    czk_porep_proof pr;
    czk_status st = resolve(c1, &pr, err);
    if (!st) st = czk_c1_check_shape(c1, -1, err);
    if (st) return st;
    czk_porep_config cfg;
    czk_porep_config_for_proof(&cfg, &pr);
    uint32_t ninputs = czk_porep_num_inputs(&cfg) - 1;
    if (pvk->ic_len != ninputs + 1)
        return czk_errf(err, CZK_ERR_MISMATCH, "prove: the vk has %u inputs, the C1's circuit %u",
                        pvk->ic_len, ninputs + 1);
    unsigned nbuf = o->witnesses ? o->witnesses : 2;
    if (nbuf > 8)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "prove: %u witness buffers (at most 8)", nbuf);
    if (nbuf > c1->num_partitions) nbuf = c1->num_partitions ? c1->num_partitions : 1;
    st = czk_params_check_shape(params, shape, err);
    if (st) return st;
    czk_fr *inputs = malloc((size_t)ninputs * sizeof *inputs);
    c2_pipe p = {.n = nbuf, .c1 = c1, .proof = &pr, .shape = shape, .be = backend};
    p.slot = calloc(nbuf, sizeof *p.slot);
    if (!inputs || !p.slot) {
        free(inputs);
        free(p.slot);
        return czk_errf(err, CZK_ERR_NOMEM, "prove: out of memory");
    }
    /* the buffers: allocated by the witness thread at first use (page-locked where the backend
     * offers it; ~0.3 s per GiB), reused for every later partition */
    for (unsigned i = 0; i < nbuf; i++)
        p.slot[i].bytes = ((size_t)shape->num_inputs + shape->num_aux) * sizeof(czk_fr);
    czk_porep_graph *own = NULL;
    double t0 = now();
    if (!st && !graph && !(st = czk_c1_graph(&own, c1, pool, err))) graph = own;
    t->inputs += now() - t0;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_t th;
    bool started = false;
    if (!st) {
        started = pthread_create(&th, NULL, witness_main, &p) == 0;
        if (!started) st = czk_errf(err, CZK_ERR_NOMEM, "prove: cannot start the witness thread");
    }
    for (uint32_t k = 0; k < c1->num_partitions && !st; k++) {
        c2_slot *sl = &p.slot[k % nbuf];
        double tw = now();
        pthread_mutex_lock(&p.mu);
        while (sl->state != SLOT_READY)
            pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
        czk_porep_partition_report rep = {.k = k, .partitions = c1->num_partitions};
        rep.witness_wait = now() - tw;
        rep.witness = sl->secs;
        t->witness_wait += rep.witness_wait;
        t->p.witness += sl->secs;
        if ((st = sl->st)) {
            if (err) *err = sl->err;
            czk_err_wrap(err, "partition %u: witness", k);
            break;
        }
        czk_msm_sums sums;
        unsigned deferred = 0;
        czk_proof proof;
        st = czk_prove_device(backend, params, shape, &sl->w, NULL, &sums, &deferred, &rep.p, err);
        if (!st)
            st = czk_prove_finalize(params, shape, &sl->w, &sums, deferred, o->r ? &o->r[k] : NULL,
                                    o->s ? &o->s[k] : NULL, &proof, pool, &rep.p, err);
        if (st) {
            czk_err_wrap(err, "partition %u", k);
            break;
        }
        /* the buffer is free for partition k + nbuf */
        pthread_mutex_lock(&p.mu);
        sl->state = SLOT_FREE;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        t0 = now();
        st = inputs_of(inputs, &pr, c1, replica_id, graph, k, err);
        t->inputs += now() - t0;
        if (st) {
            czk_err_wrap(err, "partition %u", k);
            break;
        }
        t0 = now();
        st = czk_verify(pvk, &proof, inputs, ninputs, err);
        rep.verify = now() - t0;
        t->verify += rep.verify;
        if (st) {
            czk_err_wrap(err, "partition %u: the new proof does not verify, so it is not written",
                         k);
            break;
        }
        czk_proof_encode(out + (size_t)k * CZK_PROOF_BYTES, &proof);
        double *src[] = {&rep.p.spmv,  &rep.p.ntt,    &rep.p.msm_h,  &rep.p.msm_l,
                         &rep.p.msm_a, &rep.p.msm_b1, &rep.p.msm_b2, &rep.p.assemble,
                         &rep.p.total, &rep.p.upload};
        double *dst[] = {&t->p.spmv,   &t->p.ntt,    &t->p.msm_h,    &t->p.msm_l, &t->p.msm_a,
                         &t->p.msm_b1, &t->p.msm_b2, &t->p.assemble, &t->p.total, &t->p.upload};
        for (size_t i = 0; i < sizeof src / sizeof src[0]; i++)
            *dst[i] += *src[i];
        rep.wall = now() - t_call;
        if (o->on_partition) o->on_partition(o->ctx, &rep);
    }
    if (started) {
        pthread_mutex_lock(&p.mu);
        p.stop = true;
        atomic_store(&p.cancel, 1);
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        pthread_join(th, NULL);
    }
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    for (unsigned i = 0; i < nbuf; i++) {
        t->witness_buffers += p.slot[i].block != NULL;
        t->witness_buffers_pinned += p.slot[i].pinned;
        slot_free_block(backend, &p.slot[i]);
    }
    free(p.slot);
    czk_porep_graph_destroy(own);
    free(inputs);
    return st;
}

czk_status czk_porep_c2_verify(const czk_c1 *c1, const uint8_t replica_id[32],
                               const czk_porep_graph *graph, const czk_pvk *pvk,
                               const uint8_t *proofs, size_t len, uint32_t *bad_partition,
                               czk_err *err) {
    if (bad_partition) *bad_partition = UINT32_MAX;
    czk_porep_proof pr;
    czk_status st = resolve(c1, &pr, err);
    if (st) return st;
    if (len != (size_t)pr.partitions * CZK_PROOF_BYTES)
        return czk_errf(
            err, CZK_ERR_MISMATCH, "verify: %zu proof bytes, %s has %u partitions of %u bytes", len,
            czk_registered_proof_name(c1->registered_proof), pr.partitions, CZK_PROOF_BYTES);
    czk_porep_config cfg;
    czk_porep_config_for_proof(&cfg, &pr);
    uint32_t ninputs = czk_porep_num_inputs(&cfg) - 1;
    if (pvk->ic_len != ninputs + 1)
        return czk_errf(err, CZK_ERR_MISMATCH, "verify: the vk has %u inputs, the C1's circuit %u",
                        pvk->ic_len, ninputs + 1);
    czk_fr *inputs = malloc((size_t)ninputs * sizeof *inputs);
    if (!inputs) return czk_errf(err, CZK_ERR_NOMEM, "verify: out of memory");
    czk_porep_graph *own = NULL;
    if (!graph && !(st = czk_c1_graph(&own, c1, NULL, err))) graph = own;
    for (uint32_t k = 0; k < pr.partitions && !st; k++) {
        czk_proof proof;
        bool bad = true;
        st = czk_proof_decode(&proof, proofs + (size_t)k * CZK_PROOF_BYTES, err);
        if (!st) {
            bad = (st = inputs_of(inputs, &pr, c1, replica_id, graph, k, err)) == CZK_OK;
            if (!st) st = czk_verify(pvk, &proof, inputs, ninputs, err);
        }
        if (st) {
            if (bad && bad_partition) *bad_partition = k;
            czk_err_wrap(err, "partition %u", k);
        }
    }
    czk_porep_graph_destroy(own);
    free(inputs);
    return st;
}
