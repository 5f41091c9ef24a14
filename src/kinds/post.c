/*
 * WinningPoSt and WindowPoSt as proof kinds: one descriptor each over the
 * FallbackPoSt circuit of src/post (include/czk/post.h).
 *
 * Intake (parse, on the submitting thread) takes the request as Curio sends
 * it (spec post-snap.md §4): registered_proof (RegisteredPoStProof 0-4
 * Winning, 5-9 Window V1, 10-14 Window V1_2 = FFI "V1_1"; an id of the other
 * kind is refused naming both), randomness (a canonical Fr: Curio masks
 * byte 31 with 0x3f; an unmasked value is refused, never masked),
 * partition_index, and vanilla_proofs: WinningPoSt exactly one
 * FallbackPoStSectorProof of 66 inclusion proofs, WindowPoSt one per sector
 * of this partition, 1..window_sectors of them (Curio sends the
 * partition's own sectors). Each blob is parsed against the shape's TreeR
 * and the partition is pre-checked (czk_post_precheck_on, its sectors in
 * parallel on the kind's own threads: comm_r =
 * Poseidon-2(comm_c, comm_r_last), every path hashes to comm_r_last and
 * opens the challenged leaf), so a bad sector refuses the request, the job
 * FAILED with that sector's id in the message (Curio declares it faulty and
 * retries without it), before any GPU work and never as a SNARK that fails
 * verification.
 *
 * One partition per job. Its circuit is built from the sectors sent, as
 * upstream's prove_with_vanilla builds it (index 0 into them: not cuzk's
 * chunks(...).nth(partition_index), which finds nothing for index ≥ 1); the
 * public inputs use partition_index for the challenge indices
 * (czk_post_public_inputs, k = partition_index; WinningPoSt: 66 copies of
 * its sector, k = 0). The proof is the 192-byte Groth16 proof cuzk returns
 * for a PoSt partition (the engine's default assembly), verified against
 * the VK before it leaves.
 *
 * Circuits: "winning-<tag>" and "wpost-<tag>" (cuzk's winning-32g and
 * wpost-32g, for every size: 2k, 8m, 512m, 32g, 64g; czk_kind_circuit_id).
 * Keys: the v28 .params file of the circuit in param_cache, or czk's test
 * keys of it there (czk_post_find_key, czk_post_key_names). The shape comes
 * from the shape cache (srs.shape_cache: post-v28-<window|winning>-<size>.shape),
 * recorded there the first time.
 */
#include "czk/kinds.h"

#include "czk/post.h"
#include "kinds/common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct post_ctx {
    czk_post_kind kind;
    char *shape_cache; /* NULL: no cache */
    pthread_mutex_t mu;
    czk_pool *pool; /* the pre-check's threads (one per CPU), made for the first partition of
                       several sectors; NULL until then, or if they cannot be had */
} post_ctx;

/* The pre-check's pool (NULL: check on this thread). */
static czk_pool *intake_pool(post_ctx *c) {
    pthread_mutex_lock(&c->mu);
    if (!c->pool && czk_cpu_count() > 1) c->pool = czk_pool_create(0, NULL);
    czk_pool *p = c->pool;
    pthread_mutex_unlock(&c->mu);
    return p;
}

typedef struct post_job {
    czk_post_proof proof;
    czk_post_config cfg;
    uint8_t randomness[32];
    uint64_t k; /* partition index of the challenge derivation (Winning: 0) */
    czk_post_vanilla **v;
    size_t n;
    czk_post_pub_sector *pub; /* the public inputs' sectors (Winning: 66 copies) */
    size_t npub;
} post_job;

static const char *kind_name(czk_post_kind k) {
    return k == CZK_POST_WINNING ? "winning-post" : "window-post";
}

static const char *kind_title(czk_post_kind k) {
    return k == CZK_POST_WINNING ? "WinningPoSt" : "WindowPoSt";
}

static czk_kind_id kind_id(czk_post_kind k) {
    return k == CZK_POST_WINNING ? CZK_KIND_WINNING_POST : CZK_KIND_WINDOW_POST;
}

static const char *prefix_of(czk_post_kind k) {
    return k == CZK_POST_WINNING ? "winning-" : "wpost-";
}

/* The shape of one of this kind's circuit ids, or NULL. */
static const czk_post_shape *shape_for_id(const post_ctx *c, const char *id) {
    uint64_t size = czk_kinds_id_size(id, prefix_of(c->kind));
    return size ? czk_post_shape_for_size(size) : NULL;
}

static void post_job_free(void *ctx, void *job) {
    (void)ctx;
    post_job *j = job;
    if (!j) return;
    for (size_t i = 0; i < j->n; i++)
        czk_post_vanilla_free(j->v[i]);
    free(j->v);
    free(j->pub);
    free(j);
}

/* The request's registered proof, checked against this kind and the sector size. */
static czk_status check_proof(const post_ctx *c, const czk_proof_request *req, czk_post_proof *out,
                              czk_err *err) {
    const char *me = kind_name(c->kind);
    czk_status st = czk_post_proof_lookup(req->registered_proof, out, err);
    if (st) return czk_err_wrap(err, "%s: registered_proof", me);
    if (out->kind != c->kind)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "%s: registered_proof %llu is a %s proof (%s sectors), not a %s one (%s)",
                        me, (unsigned long long)req->registered_proof, kind_title(out->kind),
                        out->shape->name, kind_title(c->kind),
                        c->kind == CZK_POST_WINNING ? "0-4" : "5-14");
    if (req->sector_size && req->sector_size != out->shape->sector_size)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "%s: the request says sector size %llu, registered_proof %llu is for %s "
                        "sectors (%llu)",
                        me, (unsigned long long)req->sector_size,
                        (unsigned long long)req->registered_proof, out->shape->name,
                        (unsigned long long)out->shape->sector_size);
    return CZK_OK;
}

/* Parses the vanilla proofs into j (counts checked first). */
static czk_status parse_vanilla(const post_ctx *c, const czk_proof_request *req, post_job *j,
                                czk_err *err) {
    const char *me = kind_name(c->kind);
    size_t n = req->num_vanilla_proofs;
    if (c->kind == CZK_POST_WINNING && n != 1)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "%s: vanilla_proofs holds %zu blobs; WinningPoSt takes exactly one "
                        "FallbackPoStSectorProof (of %u inclusion proofs)%s",
                        me, n, CZK_POST_WINNING_CHALLENGES,
                        n == 0 && req->vanilla_proof_len
                            ? "; vanilla_proof is set, but PoSt blobs go in vanilla_proofs"
                            : "");
    if (c->kind == CZK_POST_WINDOW && (n == 0 || n > j->cfg.sectors))
        return czk_errf(err, CZK_ERR_FORMAT,
                        "%s: vanilla_proofs holds %zu blobs; a %s WindowPoSt partition takes 1 to "
                        "%u (one FallbackPoStSectorProof per sector)%s",
                        me, n, j->proof.shape->name, j->cfg.sectors,
                        n == 0 && req->vanilla_proof_len
                            ? "; vanilla_proof is set, but PoSt blobs go in vanilla_proofs"
                            : "");
    czk_por_tree tree;
    czk_status st = czk_post_config_check(&j->cfg, &tree, err);
    if (st) return st;
    if (!(j->v = calloc(n, sizeof *j->v)))
        return czk_errf(err, CZK_ERR_NOMEM, "%s: out of memory", me);
    unsigned challenges =
        c->kind == CZK_POST_WINNING ? CZK_POST_WINNING_CHALLENGES : CZK_POST_WINDOW_CHALLENGES;
    for (size_t i = 0; i < n; i++) {
        if (!req->vanilla_proofs[i] || !req->vanilla_proofs_len[i])
            return czk_errf(err, CZK_ERR_FORMAT, "%s: vanilla_proofs[%zu] is empty", me, i);
        if ((st = czk_post_vanilla_parse(&j->v[i], req->vanilla_proofs[i],
                                         req->vanilla_proofs_len[i], &tree, challenges, err)))
            return czk_err_wrap(err, "%s: vanilla_proofs[%zu]", me, i);
        j->n = i + 1;
    }
    return CZK_OK;
}

static czk_status post_parse(void *ctx, const czk_proof_request *req, void **job,
                             czk_kind_job_info *info, czk_err *err) {
    post_ctx *c = ctx;
    const char *me = kind_name(c->kind);
    post_job *j = calloc(1, sizeof *j);
    if (!j) return czk_errf(err, CZK_ERR_NOMEM, "%s: out of memory", me);
    czk_status st = check_proof(c, req, &j->proof, err);
    if (!st && c->kind == CZK_POST_WINNING && req->partition_index)
        st = czk_errf(err, CZK_ERR_INVALID_ARG,
                      "%s: partition_index is %u; WinningPoSt has one partition (0)", me,
                      req->partition_index);
    if (!st && (st = czk_post_randomness_check(req->randomness, err)))
        czk_err_wrap(err, "%s: randomness", me);
    if (!st) {
        memcpy(j->randomness, req->randomness, 32);
        j->k = c->kind == CZK_POST_WINDOW ? req->partition_index : 0;
        czk_post_config_for(&j->cfg, c->kind, j->proof.shape);
        st = parse_vanilla(c, req, j, err);
    }
    /* a 32GiB WindowPoSt partition is about 8 ms of Poseidon per sector on one core: the
     * sectors are checked in parallel */
    if (!st && (st = czk_post_precheck_on((const czk_post_vanilla *const *)j->v, j->n, &j->cfg,
                                          c->kind, j->proof.api, j->randomness, j->k,
                                          j->n > 1 ? intake_pool(c) : NULL, NULL, err)))
        czk_err_wrap(err, "%s: partition %llu", me, (unsigned long long)j->k);
    if (!st) {
        j->npub = c->kind == CZK_POST_WINNING ? CZK_POST_WINNING_CHALLENGES : j->n;
        if (!(j->pub = calloc(j->npub, sizeof *j->pub)))
            st = czk_errf(err, CZK_ERR_NOMEM, "%s: out of memory", me);
    }
    if (!st) {
        for (size_t i = 0; i < j->n; i++) {
            j->pub[i].sector_id = j->v[i]->sector_id;
            memcpy(j->pub[i].comm_r, j->v[i]->comm_r, 32);
        }
        if (c->kind == CZK_POST_WINNING) {
            czk_post_pub_sector one = j->pub[0];
            czk_post_winning_sectors(j->pub, &one); /* its 66 copies */
        }
        st = czk_kind_circuit_id(info->circuit_id, kind_id(c->kind), j->proof.shape->sector_size,
                                 err);
    }
    if (st) {
        post_job_free(ctx, j);
        return st;
    }
    info->num_partitions = 1;
    info->num_public_inputs = czk_post_num_inputs(&j->cfg) - 1;
    *job = j;
    return CZK_OK;
}

static czk_status post_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                  const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                  czk_err *err) {
    const post_ctx *c = ctx;
    (void)k;
    (void)shape;
    const post_job *j = job;
    czk_post_witness *w = NULL;
    czk_status st = czk_post_witness_alloc(&w, &j->cfg, err);
    if (!st)
        st = czk_post_witness_fill(w, (const czk_post_vanilla *const *)j->v, j->n, c->kind, err);
    if (!st) st = czk_post_witness_generate_into(out, &j->cfg, w, pool, cancel, err);
    czk_post_witness_free(w);
    return st;
}

static czk_status post_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx;
    (void)k;
    const post_job *j = job;
    return czk_post_public_inputs(out, &j->cfg, j->proof.api, j->randomness, j->pub, j->npub, j->k,
                                  err);
}

static czk_status post_load(void *ctx, const char *id, const char *dir, czk_pool *pool,
                            const atomic_int *cancel, czk_params_progress_fn progress,
                            void *progress_ctx, czk_params **params, czk_shape **shape,
                            czk_err *err) {
    const post_ctx *c = ctx;
    (void)cancel;
    *params = NULL;
    *shape = NULL;
    const czk_post_shape *s = shape_for_id(c, id);
    if (!s)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: unknown circuit id '%s'", kind_name(c->kind),
                        id);
    char path[CZK_ENGINE_PATH_MAX + CZK_POST_KEY_NAME_MAX + 16];
    czk_status st = czk_post_find_key(path, sizeof path, NULL, dir, c->kind, s, ".params", err);
    if (st) return st;
    if ((st = czk_kinds_read_params(params, path, pool, progress, progress_ctx, err))) return st;
    if ((st = czk_post_shape_load_in(shape, NULL, c->kind, s, c->shape_cache, err))) {
        czk_params_free(*params);
        *params = NULL;
    }
    return st;
}

static uint64_t post_bytes(void *ctx, const char *id, const char *dir) {
    const post_ctx *c = ctx;
    const czk_post_shape *s = shape_for_id(c, id);
    char path[CZK_ENGINE_PATH_MAX + CZK_POST_KEY_NAME_MAX + 16];
    if (!s || czk_post_find_key(path, sizeof path, NULL, dir, c->kind, s, ".params", NULL))
        return 0;
    return czk_kinds_file_bytes(path);
}

static bool post_owns(void *ctx, const char *id) {
    return shape_for_id(ctx, id) != NULL;
}

static void post_destroy(void *ctx) {
    post_ctx *c = ctx;
    if (!c) return;
    czk_pool_destroy(c->pool);
    pthread_mutex_destroy(&c->mu);
    free(c->shape_cache);
    free(c);
}

static const czk_proof_kind POST = {
    .parse = post_parse,
    .synthesize = post_synthesize,
    .public_inputs = post_inputs,
    .load_circuit = post_load,
    .circuit_bytes = post_bytes,
    .owns_circuit = post_owns,
    .job_free = post_job_free,
    .destroy = post_destroy,
};

czk_status czk_kind_post(czk_proof_kind *out, czk_kind_id id, const char *shape_cache,
                         czk_err *err) {
    memset(out, 0, sizeof *out);
    if (id != CZK_KIND_WINNING_POST && id != CZK_KIND_WINDOW_POST)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "PoSt kind: id %d is neither WINNING_POST (%d) nor WINDOW_POST_PARTITION "
                        "(%d)",
                        (int)id, (int)CZK_KIND_WINNING_POST, (int)CZK_KIND_WINDOW_POST);
    post_ctx *c = calloc(1, sizeof *c);
    if (!c || (shape_cache && *shape_cache && !(c->shape_cache = strdup(shape_cache)))) {
        free(c);
        return czk_errf(err, CZK_ERR_NOMEM, "PoSt kind: out of memory");
    }
    c->kind = id == CZK_KIND_WINNING_POST ? CZK_POST_WINNING : CZK_POST_WINDOW;
    pthread_mutex_init(&c->mu, NULL);
    *out = POST;
    out->id = id;
    out->name = kind_name(c->kind);
    out->metric_label = c->kind == CZK_POST_WINNING ? "winning_post" : "window_post";
    out->default_priority = c->kind == CZK_POST_WINNING ? CZK_PRIORITY_CRITICAL : CZK_PRIORITY_HIGH;
    out->ctx = c;
    return CZK_OK;
}

czk_status czk_kinds_register_post(czk_engine *e, czk_err *err) {
    static const czk_kind_id IDS[2] = {CZK_KIND_WINNING_POST, CZK_KIND_WINDOW_POST};
    const char *cache = czk_engine_get_config(e)->shape_cache;
    for (int i = 0; i < 2; i++) {
        czk_proof_kind k;
        czk_status st = czk_kind_post(&k, IDS[i], cache, err);
        if (!st) st = czk_kinds_register(e, &k, err);
        if (st) return st;
    }
    return CZK_OK;
}
