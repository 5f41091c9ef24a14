/*
 * SnapDeals (EmptySectorUpdate) as a proof kind: one descriptor over the
 * update circuit of src/snap (include/czk/snap.h).
 *
 * Intake (parse, on the submitting thread) takes the request as Curio's
 * ProveUpdateCuzk sends it (spec post-snap.md §4): registered_proof
 * (RegisteredUpdateProof 0-4: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB),
 * sector_size (0 or the registered proof's), comm_r_old (the sector key's
 * comm_r), comm_d_new and comm_r_new (raw 32-byte commitments; all-zero
 * ones are refused as missing), sector_number and miner_id (carried: the
 * update circuit constrains neither), and vanilla_proofs: one bincode
 * PartitionProof per partition, in partition order, exactly the size's
 * partition count (16 for 512MiB and up). Every blob is parsed against the
 * shape (czk_snap_vanilla_parse) and pre-checked with the request's
 * commitments (czk_snap_precheck: the TreeR roots against comm_r_old and
 * comm_r_new through comm_c, each challenge's three paths, the encoding
 * leaf_r_new = leaf_r_old + leaf_d_new · rho, the apex tree against
 * comm_d_new), the partitions in parallel on the kind's own threads; a bad
 * one refuses the request naming the first bad partition and its
 * challenge, before any key is read or GPU work done, and never as a
 * SNARK that fails verification.
 *
 * One engine partition per update partition: the engine's synthesis
 * workers and GPU queue interleave them with other jobs' partitions, as
 * PoRep's. Partition k's witness is the circuit with k and h = h_default
 * (what Curio proves with), written into the engine's buffers
 * (czk_snap_witness_generate_into); its public inputs are
 * czk_snap_public_inputs of the request's commitments, so every partition
 * proof is checked against the VK before the result leaves. The result is
 * the partition proofs concatenated in order (the engine's default
 * assembly): 16 × 192 = 3,072 bytes for 32GiB, as cuzk returns them.
 *
 * Circuits "snap-<tag>" (cuzk's snap-32g and snap-64g, for every size: 2k,
 * 8m, 512m, 32g, 64g; czk_kind_circuit_id). Keys: the v28
 * empty-sector-update .params file of the size, or czk's test keys of it,
 * on the key search path from param_cache (czk_snap_find_key); the shape
 * through the shape cache (srs.shape_cache: snap-v28-<size>.shape),
 * recorded there the first time.
 */
#include "czk/kinds.h"

#include "czk/snap.h"
#include "kinds/common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ME "snap-update"

typedef struct snap_ctx {
    char *shape_cache; /* NULL: no cache */
    pthread_mutex_t mu;
    czk_pool *pool; /* the pre-check's threads (one per CPU), made for the first job of several
                       partitions; NULL until then, or if they cannot be had */
} snap_ctx;

typedef struct snap_job {
    const czk_snap_shape *shape;
    czk_snap_public pub;  /* k set per partition */
    czk_snap_vanilla **v; /* shape->partitions */
    unsigned n;
} snap_job;

/* The pre-check's pool (NULL: check on this thread). */
static czk_pool *intake_pool(snap_ctx *c) {
    pthread_mutex_lock(&c->mu);
    if (!c->pool && czk_cpu_count() > 1) c->pool = czk_pool_create(0, NULL);
    czk_pool *p = c->pool;
    pthread_mutex_unlock(&c->mu);
    return p;
}

/* The shape of circuit id "snap-<tag>", or NULL. */
static const czk_snap_shape *shape_for_id(const char *id) {
    uint64_t size = czk_kinds_id_size(id, "snap-");
    return size ? czk_snap_shape_for_size(size) : NULL;
}

static void snap_job_free(void *ctx, void *job) {
    (void)ctx;
    snap_job *j = job;
    if (!j) return;
    for (unsigned k = 0; k < j->n; k++)
        czk_snap_vanilla_free(j->v[k]);
    free(j->v);
    free(j);
}

static bool all_zero(const uint8_t b[32]) {
    for (int i = 0; i < 32; i++)
        if (b[i]) return false;
    return true;
}

/* The request's fields other than the blobs, into j. */
static czk_status check_fields(const czk_proof_request *req, snap_job *j, czk_err *err) {
    czk_status st = czk_snap_proof_lookup(req->registered_proof, &j->shape, err);
    if (st) return czk_err_wrap(err, ME ": registered_proof");
    const czk_snap_shape *s = j->shape;
    if (req->sector_size && req->sector_size != s->sector_size)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        ME ": the request says sector size %llu, registered_proof %llu is for %s "
                           "sectors (%llu)",
                        (unsigned long long)req->sector_size,
                        (unsigned long long)req->registered_proof, s->name,
                        (unsigned long long)s->sector_size);
    static const char *const NAMES[3] = {"comm_r_old", "comm_d_new", "comm_r_new"};
    const uint8_t *comms[3] = {req->comm_r_old, req->comm_d_new, req->comm_r_new};
    for (int i = 0; i < 3; i++)
        if (all_zero(comms[i]))
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            ME ": %s is missing (32 zero bytes); a SnapDeals update needs "
                               "comm_r_old, comm_d_new and comm_r_new",
                            NAMES[i]);
    size_t n = req->num_vanilla_proofs;
    if (n != s->partitions)
        return czk_errf(err, CZK_ERR_FORMAT,
                        ME ": vanilla_proofs holds %zu blobs; a %s update takes %u (one bincode "
                           "PartitionProof per partition, in order)%s",
                        n, s->name, s->partitions,
                        n == 0 && req->vanilla_proof_len
                            ? "; vanilla_proof is set, but SnapDeals blobs go in vanilla_proofs"
                            : "");
    for (size_t k = 0; k < n; k++)
        if (!req->vanilla_proofs[k] || !req->vanilla_proofs_len[k])
            return czk_errf(err, CZK_ERR_FORMAT, ME ": vanilla_proofs[%zu] is empty", k);
    j->pub.h = s->h_default; /* Curio's (SectorUpdateConfig) */
    memcpy(j->pub.comm_r_old, req->comm_r_old, 32);
    memcpy(j->pub.comm_d_new, req->comm_d_new, 32);
    memcpy(j->pub.comm_r_new, req->comm_r_new, 32);
    /* the commitments as the circuit takes them: canonical Fr */
    czk_fr in[4];
    if ((st = czk_snap_public_inputs(in, s, &j->pub, err))) return czk_err_wrap(err, ME);
    return CZK_OK;
}

/* Parse and pre-check of partitions [begin, end): each its own status and message. */
typedef struct par_check {
    const czk_proof_request *req;
    snap_job *j;
    czk_status *st;
    czk_err *errs;
} par_check;

static void check_one(par_check *p, size_t k) {
    snap_job *j = p->j;
    czk_snap_public pub = j->pub;
    pub.k = k;
    czk_status st = czk_snap_vanilla_parse(&j->v[k], p->req->vanilla_proofs[k],
                                           p->req->vanilla_proofs_len[k], j->shape, k, &p->errs[k]);
    if (!st) st = czk_snap_precheck(j->v[k], j->shape, &pub, &p->errs[k]);
    p->st[k] = st;
}

static void par_check_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    for (size_t k = begin; k < end; k++)
        check_one(arg, k);
}

static czk_status check_partitions(snap_ctx *c, const czk_proof_request *req, snap_job *j,
                                   czk_err *err) {
    unsigned n = j->shape->partitions;
    czk_status *st = calloc(n, sizeof *st);
    czk_err *errs = calloc(n, sizeof *errs);
    if (!st || !errs || !(j->v = calloc(n, sizeof *j->v))) {
        free(st);
        free(errs);
        return czk_errf(err, CZK_ERR_NOMEM, ME ": out of memory");
    }
    j->n = n;
    par_check p = {req, j, st, errs};
    czk_pool *pool = n > 1 ? intake_pool(c) : NULL;
    if (pool)
        czk_pool_for(pool, n, 1, par_check_fn, &p);
    else
        par_check_fn(&p, 0, n, 0);
    czk_status res = CZK_OK;
    for (unsigned k = 0; k < n && !res; k++)
        if (st[k]) /* the first bad partition in order; its message names it */
            res = czk_errf(err, st[k], ME ": %s", errs[k].msg);
    free(st);
    free(errs);
    return res;
}

static czk_status snap_parse(void *ctx, const czk_proof_request *req, void **job,
                             czk_kind_job_info *info, czk_err *err) {
    snap_job *j = calloc(1, sizeof *j);
    if (!j) return czk_errf(err, CZK_ERR_NOMEM, ME ": out of memory");
    czk_status st = check_fields(req, j, err);
    if (!st) st = check_partitions(ctx, req, j, err);
    if (!st && (st = czk_kind_circuit_id(info->circuit_id, CZK_KIND_SNAP_UPDATE,
                                         j->shape->sector_size, err)))
        czk_err_wrap(err, ME);
    if (st) {
        snap_job_free(ctx, j);
        return st;
    }
    info->num_partitions = j->shape->partitions;
    info->num_public_inputs = CZK_SNAP_INPUTS - 1;
    *job = j;
    return CZK_OK;
}

static czk_status snap_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                  const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                  czk_err *err) {
    (void)ctx;
    (void)shape;
    (void)pool;
    const snap_job *j = job;
    czk_snap_public pub = j->pub;
    pub.k = k;
    return czk_snap_witness_generate_into(out, j->shape, &pub, j->v[k], cancel, err);
}

static czk_status snap_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx;
    const snap_job *j = job;
    czk_snap_public pub = j->pub;
    pub.k = k;
    return czk_snap_public_inputs(out, j->shape, &pub, err);
}

static czk_status snap_load(void *ctx, const char *id, const char *dir, czk_pool *pool,
                            const atomic_int *cancel, czk_params_progress_fn progress,
                            void *progress_ctx, czk_params **params, czk_shape **shape,
                            czk_err *err) {
    const snap_ctx *c = ctx;
    (void)cancel;
    *params = NULL;
    *shape = NULL;
    const czk_snap_shape *s = shape_for_id(id);
    if (!s) return czk_errf(err, CZK_ERR_INVALID_ARG, ME ": unknown circuit id '%s'", id);
    char path[CZK_ENGINE_PATH_MAX + CZK_SNAP_KEY_NAME_MAX + 16];
    czk_status st = czk_snap_find_key(path, sizeof path, NULL, dir, s, ".params", err);
    if (st) return st;
    if ((st = czk_kinds_read_params(params, path, pool, progress, progress_ctx, err))) return st;
    if ((st = czk_snap_shape_load_in(shape, NULL, s, c->shape_cache, err))) {
        czk_params_free(*params);
        *params = NULL;
    }
    return st;
}

static uint64_t snap_bytes(void *ctx, const char *id, const char *dir) {
    (void)ctx;
    const czk_snap_shape *s = shape_for_id(id);
    char path[CZK_ENGINE_PATH_MAX + CZK_SNAP_KEY_NAME_MAX + 16];
    if (!s || czk_snap_find_key(path, sizeof path, NULL, dir, s, ".params", NULL)) return 0;
    return czk_kinds_file_bytes(path);
}

static bool snap_owns(void *ctx, const char *id) {
    (void)ctx;
    return shape_for_id(id) != NULL;
}

static void snap_destroy(void *ctx) {
    snap_ctx *c = ctx;
    if (!c) return;
    czk_pool_destroy(c->pool);
    pthread_mutex_destroy(&c->mu);
    free(c->shape_cache);
    free(c);
}

static const czk_proof_kind SNAP = {
    .id = CZK_KIND_SNAP_UPDATE,
    .name = "snap-update",
    .metric_label = "snap_update",
    .default_priority = CZK_PRIORITY_NORMAL,
    .parse = snap_parse,
    .synthesize = snap_synthesize,
    .public_inputs = snap_inputs,
    .load_circuit = snap_load,
    .circuit_bytes = snap_bytes,
    .owns_circuit = snap_owns,
    .job_free = snap_job_free,
    .destroy = snap_destroy,
};

czk_status czk_kind_snap(czk_proof_kind *out, const char *shape_cache, czk_err *err) {
    memset(out, 0, sizeof *out);
    snap_ctx *c = calloc(1, sizeof *c);
    if (!c || (shape_cache && *shape_cache && !(c->shape_cache = strdup(shape_cache)))) {
        free(c);
        return czk_errf(err, CZK_ERR_NOMEM, ME ": out of memory");
    }
    pthread_mutex_init(&c->mu, NULL);
    *out = SNAP;
    out->ctx = c;
    return CZK_OK;
}

czk_status czk_kinds_register_snap(czk_engine *e, czk_err *err) {
    czk_proof_kind k;
    czk_status st = czk_kind_snap(&k, czk_engine_get_config(e)->shape_cache, err);
    return st ? st : czk_kinds_register(e, &k, err);
}
