/*
 * PoRep C2 as a proof kind.
 *
 * Intake (parse, on the submitting thread): cuzk's envelope
 * {"SectorNum", "Phase1Out": base64 of the C1 JSON, "SectorSize"} is decoded
 * and the C1 parsed in one streaming pass (czk_c1_parse_envelope), then the
 * request is resolved once into the job's context (czk_porep_job_open: the
 * registered proof's entry, the circuit configuration, the graph,
 * replica_id, and the C1 checked against its shape and pre-checked: every
 * path, label and encoding, and replica_id against the sector number and
 * miner id when the request carries a miner id), so that a bad C1 is
 * refused at submit with the partition, challenge and field named, instead
 * of failing as an unsatisfied circuit minutes later. Every sector size is
 * accepted (cuzk took 32GiB only); the circuit id names the shape:
 * porep-2k, porep-8m, porep-512m, porep-32g, porep-64g. Non-interactive
 * PoRep uses the same circuit with more partitions.
 *
 * Synthesis of partition k points the circuit's witness at the job's C1
 * (czk_porep_job_witness: nothing is copied, nothing looked up again) and
 * runs the StackedDRG circuit in WITNESS mode with the job's cancel flag,
 * into the engine's reused witness buffer (czk_porep_witness_generate_into).
 * The public inputs for verification are derived as the chain derives them
 * (czk_porep_job_inputs, with the job's replica_id: recomputed from the
 * miner and sector when the request has a miner id), never read from the
 * proofs.
 *
 * Keys: the v28 .params file of the shape in param_cache, or czk's test keys
 * of the shape there (czk_porep_find_key; the published files are
 * recognized by digest and skip the subgroup pass). The shape comes from
 * the shape cache, srs.shape_cache (czk_porep_shape_load_in; the kind's ctx), recorded
 * there the first time (two minutes and 9 GiB for 32GiB).
 * The prove layer (porep_prove.h) does the same steps in one call for
 * `czk prove`; the engine takes them apart to run them in its stages.
 */
#include "czk/kinds.h"

#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_graph.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"
#include "kinds/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shape of circuit id "porep-<tag>" (czk_kind_circuit_id), or NULL. */
static const czk_porep_shape *shape_for_id(const char *id) {
    uint64_t size = czk_kinds_id_size(id, "porep-");
    return size ? czk_porep_shape_for_size(size) : NULL;
}

static void porep_job_free(void *ctx, void *job) {
    (void)ctx;
    czk_porep_job_free(job);
}

static czk_status porep_parse(void *ctx, const czk_proof_request *req, void **job,
                              czk_kind_job_info *info, czk_err *err) {
    (void)ctx;
    if (!req->vanilla_proof || !req->vanilla_proof_len)
        return czk_errf(err, CZK_ERR_FORMAT, "porep-c2: vanilla_proof (the C1 envelope) is empty");
    czk_c1 *c1 = NULL;
    uint64_t sector_num = 0, sector_size = 0;
    czk_status st = czk_c1_parse_envelope(&c1, &sector_num, &sector_size, req->vanilla_proof,
                                          req->vanilla_proof_len, err);
    if (st) return st;
    /* the envelope's SectorSize is the C1's (czk_c1_parse_envelope checks it) */
    const czk_porep_shape *es = czk_porep_shape_for_size(sector_size);
    if (req->sector_size && req->sector_size != sector_size) {
        czk_c1_free(c1);
        return czk_errf(err, CZK_ERR_FORMAT,
                        "porep-c2: the request says sector size %llu, the C1 is %s (%llu)",
                        (unsigned long long)req->sector_size, es ? es->name : "?",
                        (unsigned long long)sector_size);
    }
    /* the request resolved once: registered proof, shape check, graph, pre-check, replica_id */
    czk_porep_job *j = NULL;
    czk_porep_job_opts o = {req->miner_id != 0, sector_num, req->miner_id, true};
    if ((st = czk_porep_job_open(&j, c1, &o, NULL, err))) return czk_err_wrap(err, "porep-c2");
    if ((st = czk_kind_circuit_id(info->circuit_id, CZK_KIND_POREP_C2, j->proof.shape->sector_size,
                                  err))) {
        czk_porep_job_free(j);
        return czk_err_wrap(err, "porep-c2");
    }
    info->num_partitions = j->c1->num_partitions;
    info->num_public_inputs = j->num_inputs;
    *job = j;
    return CZK_OK;
}

static czk_status porep_synthesize(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                                   const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                                   czk_err *err) {
    (void)ctx;
    (void)shape;
    (void)pool;
    const czk_porep_job *j = job;
    czk_porep_witness *w = NULL;
    czk_status st = czk_porep_job_witness(&w, j, k, err);
    if (!st) st = czk_porep_witness_generate_into(out, &w->config, w, cancel, err);
    czk_porep_witness_free(w);
    return st;
}

static czk_status porep_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx;
    return czk_porep_job_inputs(out, job, k, err);
}

static czk_status porep_load(void *ctx, const char *id, const char *dir, czk_pool *pool,
                             const atomic_int *cancel, czk_params_progress_fn progress,
                             void *progress_ctx, czk_params **params, czk_shape **shape,
                             czk_err *err) {
    (void)cancel;
    *params = NULL;
    *shape = NULL;
    const czk_porep_shape *s = shape_for_id(id);
    if (!s) return czk_errf(err, CZK_ERR_INVALID_ARG, "porep-c2: unknown circuit id '%s'", id);
    char path[CZK_ENGINE_PATH_MAX + 300];
    czk_status st = czk_porep_find_key(path, sizeof path, NULL, dir, s, ".params", err);
    if (st) return st;
    if ((st = czk_kinds_read_params(params, path, pool, progress, progress_ctx, err))) return st;
    if ((st = czk_porep_shape_load_in(shape, NULL, s, ctx, err))) {
        czk_params_free(*params);
        *params = NULL;
    }
    return st;
}

static uint64_t porep_bytes(void *ctx, const char *id, const char *dir) {
    (void)ctx;
    const czk_porep_shape *s = shape_for_id(id);
    char path[CZK_ENGINE_PATH_MAX + 300];
    if (!s || czk_porep_find_key(path, sizeof path, NULL, dir, s, ".params", NULL)) return 0;
    return czk_kinds_file_bytes(path);
}

static bool porep_owns(void *ctx, const char *id) {
    (void)ctx;
    return shape_for_id(id) != NULL;
}

static const czk_proof_kind POREP = {
    .id = CZK_KIND_POREP_C2,
    .name = "porep-c2",
    .metric_label = "porep_c2",
    .default_priority = CZK_PRIORITY_NORMAL,
    .parse = porep_parse,
    .synthesize = porep_synthesize,
    .public_inputs = porep_inputs,
    .load_circuit = porep_load,
    .circuit_bytes = porep_bytes,
    .owns_circuit = porep_owns,
    .job_free = porep_job_free,
    .destroy = free, /* ctx: the shape cache directory, or NULL */
};

czk_status czk_kind_porep(czk_proof_kind *out, const char *shape_cache, czk_err *err) {
    *out = POREP;
    if (shape_cache && *shape_cache && !(out->ctx = strdup(shape_cache)))
        return czk_errf(err, CZK_ERR_NOMEM, "porep-c2: out of memory");
    return CZK_OK;
}

czk_status czk_kinds_register_porep(czk_engine *e, czk_err *err) {
    czk_proof_kind k;
    czk_status st = czk_kind_porep(&k, czk_engine_get_config(e)->shape_cache, err);
    return st ? st : czk_kinds_register(e, &k, err);
}
