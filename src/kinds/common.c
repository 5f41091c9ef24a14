/*
 * What czk's kinds share: circuit ids (cuzk's scheme, cuzk-engine.md §2:
 * porep-32g, wpost-32g, winning-32g, snap-32g, extended here to every sector
 * size),
 * the registration of a descriptor and the read of its .params file.
 */
#include "kinds/common.h"

#include "czk/cuda.h"
#include "czk/kinds.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    uint64_t size;
    const char *tag;
} TAGS[] = {{2048ull, "2k"},
            {8ull << 20, "8m"},
            {512ull << 20, "512m"},
            {32ull << 30, "32g"},
            {64ull << 30, "64g"}};

static const char *prefix_of(czk_kind_id kind) {
    switch (kind) {
    case CZK_KIND_POREP_C2:
        return "porep-";
    case CZK_KIND_WINDOW_POST:
        return "wpost-";
    case CZK_KIND_WINNING_POST:
        return "winning-";
    case CZK_KIND_SNAP_UPDATE:
        return "snap-";
    default:
        return NULL;
    }
}

czk_status czk_kind_circuit_id(char out[CZK_CIRCUIT_ID_MAX], czk_kind_id kind, uint64_t sector_size,
                               czk_err *err) {
    const char *prefix = prefix_of(kind);
    out[0] = 0;
    if (!prefix)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "circuit id: kind %d has no sector-size circuits",
                        (int)kind);
    for (size_t i = 0; i < sizeof TAGS / sizeof TAGS[0]; i++)
        if (TAGS[i].size == sector_size) {
            snprintf(out, CZK_CIRCUIT_ID_MAX, "%s%s", prefix, TAGS[i].tag);
            return CZK_OK;
        }
    return czk_errf(err, CZK_ERR_INVALID_ARG,
                    "circuit id: no %s circuit for sector size %llu (2KiB, 8MiB, 512MiB, 32GiB, "
                    "64GiB)",
                    prefix, (unsigned long long)sector_size);
}

uint64_t czk_kinds_id_size(const char *id, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(id, prefix, n)) return 0;
    for (size_t i = 0; i < sizeof TAGS / sizeof TAGS[0]; i++)
        if (!strcmp(id + n, TAGS[i].tag)) return TAGS[i].size;
    return 0;
}

czk_status czk_kinds_register(czk_engine *e, const czk_proof_kind *k, czk_err *err) {
    czk_status st = czk_engine_register_kind(e, k, err);
    if (st && k->destroy) k->destroy(k->ctx);
    return st;
}

czk_status czk_kinds_read_params(czk_params **out, const char *path, czk_pool *pool,
                                 czk_params_progress_fn progress, void *progress_ctx,
                                 czk_err *err) {
    czk_params_read_opts o = {czk_cuda_params_device_decode() ? CZK_PARAMS_ENCODED : 0, NULL, pool,
                              progress, progress_ctx};
    return czk_params_read(out, path, &o, NULL, err);
}

uint64_t czk_kinds_file_bytes(const char *path) {
    struct stat sb;
    return stat(path, &sb) ? 0 : (uint64_t)sb.st_size;
}
