/*
 * What the kinds of src/kinds share (private to the layer): circuit ids by
 * sector size, the registration of a descriptor, and the read of a
 * circuit's .params file as every kind does it.
 */
#ifndef CZK_KINDS_COMMON_H
#define CZK_KINDS_COMMON_H

#include "czk/engine.h"

/*
 * The sector size of circuit id "<prefix><tag>" (tags as czk_kind_circuit_id
 * writes them: "2k", "8m", "512m", "32g", "64g"); 0 if id is not of that form.
 */
uint64_t czk_kinds_id_size(const char *id, const char *prefix);

/*
 * Registers a descriptor with the engine; on failure its destroy (if any)
 * releases its ctx, so a caller never leaks it.
 */
czk_status czk_kinds_register(czk_engine *e, const czk_proof_kind *k, czk_err *err);

/*
 * Reads a circuit's .params file as the engine's loaders do: the five
 * vectors left encoded where the GPU decodes them (a CPU engine decodes them
 * on first use), on `pool`, with the SRS cache's progress callback.
 * Returns: czk_params_read's.
 */
czk_status czk_kinds_read_params(czk_params **out, const char *path, czk_pool *pool,
                                 czk_params_progress_fn progress, void *progress_ctx, czk_err *err);

/* The size of a file in bytes, 0 if it cannot be stat'ed (circuit_bytes estimates). */
uint64_t czk_kinds_file_bytes(const char *path);

#endif
