/*
 * SnapDeals sector sizes (storage-proofs-update constants.rs:
 * ALLOWED_SECTOR_SIZES, partition_count, challenge_count, apex_leaf_count,
 * hs, h_default, validate_tree_r_shape; rust-filecoin-proofs-api
 * registry.rs RegisteredUpdateProof; parameters.json; spec post-snap.md
 * §2.1). The table holds the derived values literally; tests/snap/shapes.c
 * derives them again from the rules.
 */
#include "czk/snap.h"

#include <stddef.h>

#define HS_TEST                                                                                    \
    { 1, 1, 1, 1, 1, 1 }
#define HS_PROD                                                                                    \
    { 7, 8, 9, 10, 11, 12 }

const czk_snap_shape czk_snap_shapes[CZK_SNAP_SHAPE_COUNT] = {
    {"1KiB", 1ull << 10, 1ull << 5, 8, 4, 0, 1, 10, 8, 5, 0, 3, HS_TEST, 1, -1, NULL},
    {"2KiB", 2ull << 10, 1ull << 6, 8, 0, 0, 1, 10, 8, 6, 0, 3, HS_TEST, 1, 0,
     "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194"},
    {"4KiB", 4ull << 10, 1ull << 7, 8, 2, 0, 1, 10, 8, 7, 0, 3, HS_TEST, 1, -1, NULL},
    {"8KiB", 8ull << 10, 1ull << 8, 8, 4, 0, 1, 10, 8, 8, 0, 3, HS_TEST, 1, -1, NULL},
    {"16KiB", 16ull << 10, 1ull << 9, 8, 8, 0, 2, 10, 128, 9, 1, 7, HS_TEST, 1, -1, NULL},
    {"32KiB", 32ull << 10, 1ull << 10, 8, 8, 2, 2, 10, 128, 10, 1, 7, HS_TEST, 1, -1, NULL},
    {"8MiB", 8ull << 20, 1ull << 18, 8, 0, 0, 4, 10, 128, 18, 2, 7, HS_PROD, 10, 1,
     "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63"},
    {"16MiB", 16ull << 20, 1ull << 19, 8, 2, 0, 4, 10, 128, 19, 2, 7, HS_PROD, 10, -1, NULL},
    {"512MiB", 512ull << 20, 1ull << 24, 8, 0, 0, 16, 86, 128, 24, 4, 7, HS_PROD, 10, 2,
     "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c"},
    {"32GiB", 32ull << 30, 1ull << 30, 8, 8, 0, 16, 86, 128, 30, 4, 7, HS_PROD, 10, 3,
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"},
    {"64GiB", 64ull << 30, 1ull << 31, 8, 8, 2, 16, 86, 128, 31, 4, 7, HS_PROD, 10, 4,
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"},
};

const czk_snap_shape *czk_snap_shape_for_size(uint64_t sector_size) {
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++)
        if (czk_snap_shapes[i].sector_size == sector_size) return &czk_snap_shapes[i];
    return NULL;
}

czk_status czk_snap_proof_lookup(uint64_t registered_proof, const czk_snap_shape **out,
                                 czk_err *err) {
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++)
        if (czk_snap_shapes[i].registered_proof >= 0 &&
            (uint64_t)czk_snap_shapes[i].registered_proof == registered_proof) {
            *out = &czk_snap_shapes[i];
            return CZK_OK;
        }
    return czk_errf(err, CZK_ERR_UNSUPPORTED,
                    "registered update proof %llu: known are 0-4 (StackedDrg 2KiB, 8MiB, 512MiB, "
                    "32GiB, 64GiB V1)",
                    (unsigned long long)registered_proof);
}

static bool in_table(const czk_snap_shape *s) {
    return s >= czk_snap_shapes && s < czk_snap_shapes + CZK_SNAP_SHAPE_COUNT;
}

czk_status czk_snap_trees(const czk_snap_shape *s, czk_por_tree *tree_r, czk_por_tree *tree_d,
                          czk_err *err) {
    if (!in_table(s))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "SnapDeals: not a shape of czk_snap_shapes");
    czk_por_tree r;
    czk_status st = czk_por_tree_for_leaves(&r, CZK_POR_POSEIDON, s->nodes, s->base_arity,
                                            s->sub_arity, s->top_arity, err);
    if (st) return st;
    if (tree_r) *tree_r = r;
    if (tree_d) *tree_d = (czk_por_tree){CZK_POR_SHA256, 2, s->challenge_bits, 0, 0};
    return CZK_OK;
}

czk_status czk_snap_h_select(const czk_snap_shape *s, unsigned h, uint64_t *out, czk_err *err) {
    for (unsigned i = 0; i < CZK_SNAP_HS; i++)
        if (s->hs[i] == h) {
            *out = 1ull << i; /* the first position, as upstream's `position` */
            return CZK_OK;
        }
    return czk_errf(err, CZK_ERR_INVALID_ARG,
                    "SnapDeals %s: h %u is not one of the sector size's hs (%u..%u)", s->name, h,
                    s->hs[0], s->hs[CZK_SNAP_HS - 1]);
}
