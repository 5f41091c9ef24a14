/*
 * SnapDeals keys and shapes on disk: the file names of the update
 * circuit's keys (Filecoin's v28 ceremony name with the parameter id of
 * parameters.json, spec post-snap.md appendix; and czk's test-key name),
 * their lookup on the key search path (keys.h czk_key_find) and the
 * partition circuit's recorded shape through the shape cache
 * (czk_shape_cache_load). The one place these names are made: the
 * SnapDeals kind (src/kinds/snap.c) and the commands that make or read its
 * keys use it.
 */
#include "czk/snap.h"

#include <stdio.h>

czk_status czk_snap_key_names(const czk_snap_shape *s, char filecoin[CZK_SNAP_KEY_NAME_MAX],
                              char test[CZK_SNAP_KEY_NAME_MAX], czk_err *err) {
    if (filecoin) filecoin[0] = 0;
    if (test) test[0] = 0;
    if (s->registered_proof < 0 || !s->param_id)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "SnapDeals %s: a test size of upstream's, with no parameter file (keys "
                        "exist for 2KiB, 8MiB, 512MiB, 32GiB, 64GiB)",
                        s->name);
    if (filecoin)
        snprintf(filecoin, CZK_SNAP_KEY_NAME_MAX,
                 "v28-empty-sector-update-merkletree-poseidon_hasher-%u-%u-%u-%s", s->base_arity,
                 s->sub_arity, s->top_arity, s->param_id);
    if (test)
        snprintf(test, CZK_SNAP_KEY_NAME_MAX, "czk-test-v28-empty-sector-update-%u-%u-%u-%s",
                 s->base_arity, s->sub_arity, s->top_arity, s->name);
    return CZK_OK;
}

czk_status czk_snap_find_key(char *path, size_t cap, czk_key_kind *found, const char *dir,
                             const czk_snap_shape *s, const char *ext, czk_err *err) {
    char names[2][CZK_SNAP_KEY_NAME_MAX], what[64];
    czk_status st = czk_snap_key_names(s, names[0], names[1], err);
    if (st) return st;
    snprintf(what, sizeof what, "SnapDeals of %s sectors", s->name);
    return czk_key_find(path, cap, found, dir, names[0], names[1], ext, what, err);
}

static czk_status record_shape(void *ctx, czk_shape **out, czk_err *err) {
    const czk_snap_shape *s = ctx;
    czk_status st = czk_snap_record(out, s, NULL, err);
    if (st) czk_err_wrap(err, "recording the SnapDeals %s partition circuit", s->name);
    return st;
}

czk_status czk_snap_shape_load_in(czk_shape **out, bool *recorded, const czk_snap_shape *s,
                                  const char *cache_dir, czk_err *err) {
    char name[64];
    snprintf(name, sizeof name, "snap-v28-%s", s->name);
    return czk_shape_cache_load(out, recorded, name, CZK_SNAP_INPUTS, cache_dir, record_shape,
                                (void *)s, err);
}
