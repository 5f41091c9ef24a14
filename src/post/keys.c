/*
 * PoSt keys and shapes on disk: the file names of a FallbackPoSt circuit's
 * keys (Filecoin's v28 ceremony name, with the parameter id of
 * parameters.json, spec post-snap.md appendix; and czk's test-key name),
 * their lookup in a parameter cache (keys.h czk_key_find) and the circuit's
 * recorded shape through the shape cache (czk_shape_cache_load). The one
 * place these names are made: the PoSt kinds (src/kinds/post.c) and the
 * commands that make or read PoSt keys use it.
 */
#include "czk/post.h"

#include "czk/keys.h"

#include <stdio.h>

static const char *kind_word(czk_post_kind kind) {
    return kind == CZK_POST_WINNING ? "winning" : "window";
}

void czk_post_key_names(czk_post_kind kind, const czk_post_shape *shape,
                        char filecoin[CZK_POST_KEY_NAME_MAX], char test[CZK_POST_KEY_NAME_MAX]) {
    if (filecoin)
        snprintf(filecoin, CZK_POST_KEY_NAME_MAX,
                 "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-%u-%u-%u-%s",
                 shape->base_arity, shape->sub_arity, shape->top_arity,
                 kind == CZK_POST_WINNING ? shape->winning_param_id : shape->window_param_id);
    if (test)
        snprintf(test, CZK_POST_KEY_NAME_MAX,
                 "czk-test-v28-proof-of-spacetime-fallback-%s-%u-%u-%u-%s", kind_word(kind),
                 shape->base_arity, shape->sub_arity, shape->top_arity, shape->name);
}

czk_status czk_post_find_key(char *path, size_t cap, czk_key_kind *found, const char *dir,
                             czk_post_kind kind, const czk_post_shape *shape, const char *ext,
                             czk_err *err) {
    char names[2][CZK_POST_KEY_NAME_MAX], what[64];
    czk_post_key_names(kind, shape, names[0], names[1]);
    snprintf(what, sizeof what, "%sPoSt of %s sectors",
             kind == CZK_POST_WINNING ? "Winning" : "Window", shape->name);
    return czk_key_find(path, cap, found, dir, names[0], names[1], ext, what, err);
}

typedef struct record_ctx {
    czk_post_config cfg;
    const char *what;
} record_ctx;

/* On threads of its own: the online CPUs (one when no thread can be started). */
static czk_status record_shape(void *ctx, czk_shape **out, czk_err *err) {
    const record_ctx *r = ctx;
    czk_pool *pool = r->cfg.sectors > 2 ? czk_pool_create(0, NULL) : NULL;
    czk_status st = czk_post_record(out, &r->cfg, pool, NULL, err);
    czk_pool_destroy(pool);
    if (st) czk_err_wrap(err, "recording the %s circuit", r->what);
    return st;
}

czk_status czk_post_shape_load_in(czk_shape **out, bool *recorded, czk_post_kind kind,
                                  const czk_post_shape *shape, const char *cache_dir,
                                  czk_err *err) {
    char name[64];
    snprintf(name, sizeof name, "post-v28-%s-%s", kind_word(kind), shape->name);
    record_ctx r = {.what = name};
    czk_post_config_for(&r.cfg, kind, shape);
    return czk_shape_cache_load(out, recorded, name, czk_post_num_inputs(&r.cfg), cache_dir,
                                record_shape, &r, err);
}
