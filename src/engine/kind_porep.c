/*
 * PoRep C2 as a proof kind (placeholder until the C1 intake is wired in).
 */
#include "engine/internal.h"

#include <string.h>

static czk_status porep_parse(void *ctx, const czk_proof_request *req, void **job,
                              czk_kind_job_info *info, czk_err *err) {
    (void)ctx;
    (void)req;
    (void)job;
    (void)info;
    return czk_errf(err, CZK_ERR_UNSUPPORTED, "porep-c2: not wired in yet");
}
static czk_status porep_synth(void *ctx, void *job, uint32_t k, const czk_shape *shape,
                              const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                              czk_err *err) {
    (void)ctx, (void)job, (void)k, (void)shape, (void)cancel, (void)pool, (void)out;
    return czk_errf(err, CZK_ERR_UNSUPPORTED, "porep-c2: not wired in yet");
}
static czk_status porep_inputs(void *ctx, void *job, uint32_t k, czk_fr *out, czk_err *err) {
    (void)ctx, (void)job, (void)k, (void)out;
    return czk_errf(err, CZK_ERR_UNSUPPORTED, "porep-c2: not wired in yet");
}
static czk_status porep_load(void *ctx, const char *id, const char *dir, czk_pool *pool,
                             const atomic_int *cancel, czk_params **params, czk_shape **shape,
                             czk_err *err) {
    (void)ctx, (void)id, (void)dir, (void)pool, (void)cancel, (void)params, (void)shape;
    return czk_errf(err, CZK_ERR_UNSUPPORTED, "porep-c2: not wired in yet");
}
static bool porep_owns(void *ctx, const char *id) {
    (void)ctx;
    static const char *const ids[] = {"porep-2k", "porep-8m", "porep-512m", "porep-32g",
                                      "porep-64g"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (!strcmp(id, ids[i])) return true;
    return false;
}

czk_status czk_kind_porep(czk_proof_kind *out, czk_err *err) {
    (void)err;
    memset(out, 0, sizeof *out);
    out->id = CZK_KIND_POREP_C2;
    out->name = "porep-c2";
    out->default_priority = czk_kind_default_priority(out->id);
    out->parse = porep_parse;
    out->synthesize = porep_synth;
    out->public_inputs = porep_inputs;
    out->load_circuit = porep_load;
    out->owns_circuit = porep_owns;
    return CZK_OK;
}
