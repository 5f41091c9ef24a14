/*
 * PoRep C2 as a proof kind.
 *
 * Intake (parse, on the submitting thread): cuzk's envelope
 * {"SectorNum", "Phase1Out": base64 of the C1 JSON, "SectorSize"} is decoded
 * and the C1 parsed in one streaming pass (czk_c1_parse_envelope), then the
 * vanilla proofs are pre-checked (czk_c1_precheck: every path, label and
 * encoding, and replica_id against the sector number and miner id when the
 * request carries a miner id), so that a bad C1 fails at once with the
 * partition, challenge and field named, instead of as an unsatisfied
 * circuit minutes later. Every sector size is accepted (cuzk took 32GiB
 * only); the circuit id names the shape: porep-2k, porep-8m, porep-512m,
 * porep-32g, porep-64g. Non-interactive PoRep uses the same circuit with
 * more partitions.
 *
 * Synthesis of partition k points the circuit's witness at the parsed C1
 * (its Domain arrays and path indices have the circuit's layout, so nothing
 * is copied) and runs the StackedDRG circuit in WITNESS mode with the job's
 * cancel flag. The public inputs for verification are derived as the chain
 * derives them (challenges from replica_id and seed, parents from the
 * graph), not read from the proofs.
 *
 * Keys: the v28 .params file of the shape in param_cache (the published
 * files are recognized by digest and skip the subgroup pass). The shape is
 * read from the shape cache that `czk circuit-info` fills,
 * $CZK_CACHE_DIR/shapes/porep-v28-<size>.shape (default ~/.cache/czk), or
 * recorded and stored there (two minutes and 9 GiB for 32GiB).
 */
#include "engine/internal.h"

#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_graph.h"
#include "czk/porep_precheck.h"
#include "czk/porep_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    const char *shape, *id;
} IDS[] = {{"2KiB", "porep-2k"},
           {"8MiB", "porep-8m"},
           {"512MiB", "porep-512m"},
           {"32GiB", "porep-32g"},
           {"64GiB", "porep-64g"}};

static const czk_porep_shape *shape_for_id(const char *id) {
    for (size_t i = 0; i < sizeof IDS / sizeof IDS[0]; i++)
        if (!strcmp(id, IDS[i].id))
            for (unsigned s = 0; s < CZK_POREP_SHAPE_COUNT; s++)
                if (!strcmp(czk_porep_shapes[s].name, IDS[i].shape)) return &czk_porep_shapes[s];
    return NULL;
}

static const char *id_for_shape(const czk_porep_shape *s) {
    for (size_t i = 0; i < sizeof IDS / sizeof IDS[0]; i++)
        if (!strcmp(s->name, IDS[i].shape)) return IDS[i].id;
    return NULL;
}

typedef struct porep_job {
    czk_c1 *c1;
    czk_porep_graph *graph;
    czk_porep_config cfg;
} porep_job;

static void porep_job_free(void *ctx, void *job) {
    (void)ctx;
    porep_job *j = job;
    if (!j) return;
    czk_c1_free(j->c1);
    czk_porep_graph_destroy(j->graph);
    free(j);
}

static czk_status porep_parse(void *ctx, const czk_proof_request *req, void **job,
                              czk_kind_job_info *info, czk_err *err) {
    (void)ctx;
    if (!req->vanilla_proof || !req->vanilla_proof_len)
        return czk_errf(err, CZK_ERR_FORMAT, "porep-c2: vanilla_proof (the C1 envelope) is empty");
    porep_job *j = calloc(1, sizeof *j);
    if (!j) return czk_errf(err, CZK_ERR_NOMEM, "porep-c2: out of memory");
    uint64_t sector_num = 0, sector_size = 0;
    czk_status st = czk_c1_parse_envelope(&j->c1, &sector_num, &sector_size, req->vanilla_proof,
                                          req->vanilla_proof_len, err);
    czk_porep_proof proof;
    if (!st) st = czk_porep_proof_lookup(j->c1->registered_proof, &proof, err);
    if (!st && req->sector_size && req->sector_size != proof.shape->sector_size)
        st = czk_errf(err, CZK_ERR_FORMAT,
                      "porep-c2: the request says sector size %llu, the C1 is %s (%llu)",
                      (unsigned long long)req->sector_size, proof.shape->name,
                      (unsigned long long)proof.shape->sector_size);
    const char *cid = st ? NULL : id_for_shape(proof.shape);
    if (!st && !cid)
        st = czk_errf(err, CZK_ERR_UNSUPPORTED, "porep-c2: no circuit id for sector size %s",
                      proof.shape->name);
    if (!st) st = czk_c1_graph(&j->graph, j->c1, NULL, err);
    if (!st) {
        czk_precheck_opts o = {req->miner_id != 0, sector_num, req->miner_id, j->graph};
        if ((st = czk_c1_precheck(j->c1, &o, NULL, err))) czk_err_wrap(err, "porep-c2 pre-check");
    }
    if (st) {
        porep_job_free(NULL, j);
        return st;
    }
    czk_porep_config_for_shape(&j->cfg, proof.shape);
    info->num_partitions = j->c1->num_partitions;
    info->num_public_inputs = czk_c1_num_public_inputs(j->c1);
    snprintf(info->circuit_id, sizeof info->circuit_id, "%s", cid);
    *job = j;
    return CZK_OK;
}

static void path_from(czk_porep_path *out, const czk_merkle_proof *p) {
    out->positions = (uint32_t *)p->index;
    out->siblings = (uint8_t *)p->siblings;
}

static void column_from(czk_porep_column *out, const czk_column_proof *c) {
    out->rows = (uint8_t *)c->rows;
    path_from(&out->path, &c->inclusion);
}

static czk_status porep_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                   const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                   czk_err *err) {
    (void)ctx;
    (void)shape;
    (void)pool;
    porep_job *j = job;
    const czk_c1 *c1 = j->c1;
    uint32_t cpp = c1->challenges_per_partition;
    if (k >= c1->num_partitions || cpp != j->cfg.challenges)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "porep-c2: partition %u of %u, %u challenges per partition (circuit %u)", k,
                        c1->num_partitions, cpp, j->cfg.challenges);
    czk_porep_witness w;
    memset(&w, 0, sizeof w);
    w.config = j->cfg;
    w.challenges = calloc(cpp, sizeof *w.challenges);
    if (!w.challenges) return czk_errf(err, CZK_ERR_NOMEM, "porep-c2: out of memory");
    const czk_vanilla_proof *vp = &c1->proofs[(size_t)k * cpp];
    memcpy(w.replica_id, c1->replica_id.b, 32);
    memcpy(w.comm_d, c1->comm_d.b, 32);
    memcpy(w.comm_r, c1->comm_r.b, 32);
    memcpy(w.comm_c, vp[0].c_x.inclusion.root.b, 32);
    memcpy(w.comm_r_last, vp[0].comm_r_last_proof.root.b, 32);
    for (uint32_t i = 0; i < cpp; i++) {
        czk_porep_challenge_proof *c = &w.challenges[i];
        const czk_vanilla_proof *p = &vp[i];
        c->challenge = p->num_labeling ? p->labeling[0].node : p->encoding.node;
        memcpy(c->data_leaf, p->comm_d_proof.leaf.b, 32);
        path_from(&c->comm_d_path, &p->comm_d_proof);
        for (int d = 0; d < 6; d++)
            column_from(&c->drg_parents[d], &p->drg_parents[d]);
        for (int d = 0; d < 8; d++)
            column_from(&c->exp_parents[d], &p->exp_parents[d]);
        path_from(&c->comm_r_last_path, &p->comm_r_last_proof);
        path_from(&c->comm_c_path, &p->c_x.inclusion);
    }
    czk_status st = czk_porep_witness_generate(out, &j->cfg, &w, cancel, err);
    free(w.challenges);
    return st;
}

static czk_status porep_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx;
    porep_job *j = job;
    return czk_c1_public_inputs(out, j->c1, j->graph, k, err);
}

static bool shape_cache_path(char *out, size_t cap, const czk_porep_shape *s) {
    const char *base = getenv("CZK_CACHE_DIR"), *home = getenv("HOME");
    int n;
    if (base && *base)
        n = snprintf(out, cap, "%s/shapes/porep-v28-%s.shape", base, s->name);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/czk/shapes/porep-v28-%s.shape", home, s->name);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

static void mkdir_parents(const char *path) {
    char d[2048];
    snprintf(d, sizeof d, "%s", path);
    for (char *p = d + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            (void)mkdir(d, 0755);
            *p = '/';
        }
}

static czk_status porep_load(void *ctx, const char *id, const char *dir, czk_pool *pool,
                             const atomic_int *cancel, czk_params **params, czk_shape **shape,
                             czk_err *err) {
    (void)ctx;
    *params = NULL;
    *shape = NULL;
    const czk_porep_shape *s = shape_for_id(id);
    if (!s) return czk_errf(err, CZK_ERR_INVALID_ARG, "porep-c2: unknown circuit id '%s'", id);
    char name[256], path[CZK_ENGINE_PATH_MAX + 300];
    czk_status st = czk_porep_param_file_name(name, sizeof name, s, ".params", err);
    if (st) return st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    czk_params_read_opts o = {0, NULL, pool};
    if ((st = czk_params_read(params, path, &o, NULL, err))) return st;
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, s);
    char spath[2048];
    bool cached = shape_cache_path(spath, sizeof spath, s);
    czk_err serr;
    if (cached && !czk_shape_read(shape, spath, &serr) &&
        (*shape)->num_inputs != czk_porep_num_inputs(&cfg)) {
        czk_shape_free(*shape);
        *shape = NULL;
    }
    if (!*shape) {
        st = czk_porep_record(shape, &cfg, cancel, err);
        if (!st && cached) {
            mkdir_parents(spath);
            if (czk_shape_write(*shape, spath, &serr)) { /* a cache: failing to write is fine */
            }
        }
    }
    if (st) {
        czk_params_free(*params);
        *params = NULL;
    }
    return st;
}

static uint64_t porep_bytes(void *ctx, const char *id, const char *dir) {
    (void)ctx;
    const czk_porep_shape *s = shape_for_id(id);
    char name[256], path[CZK_ENGINE_PATH_MAX + 300];
    struct stat sb;
    if (!s || czk_porep_param_file_name(name, sizeof name, s, ".params", NULL)) return 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) ? 0 : (uint64_t)sb.st_size;
}

static bool porep_owns(void *ctx, const char *id) {
    (void)ctx;
    return shape_for_id(id) != NULL;
}

czk_status czk_kind_porep(czk_proof_kind *out, czk_err *err) {
    (void)err;
    memset(out, 0, sizeof *out);
    out->id = CZK_KIND_POREP_C2;
    out->name = "porep-c2";
    out->default_priority = czk_kind_default_priority(out->id);
    out->parse = porep_parse;
    out->synthesize = porep_synthesize;
    out->public_inputs = porep_inputs;
    out->load_circuit = porep_load;
    out->circuit_bytes = porep_bytes;
    out->owns_circuit = porep_owns;
    out->job_free = porep_job_free;
    return CZK_OK;
}
