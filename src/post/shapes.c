/*
 * PoSt sector shapes and registered proofs (filecoin-proofs constants.rs
 * WINDOW_POST_SECTOR_COUNT, WINNING_POST_*; rust-filecoin-proofs-api
 * registry.rs RegisteredPoStProof and version(); parameters.json; spec
 * post-snap.md §1.1). The TreeR shapes are PoRep's: Poseidon 8-0-0 up to
 * 512MiB, 8-8-0 at 32GiB, 8-8-2 at 64GiB.
 */
#include "czk/post.h"

#include <stddef.h>

const czk_post_shape czk_post_shapes[CZK_POST_SHAPE_COUNT] = {
    {"2KiB", 2048ull, 64ull, 8, 0, 0, 2,
     "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
     "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e"},
    {"8MiB", 8ull << 20, 1ull << 18, 8, 0, 0, 2,
     "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9",
     "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331"},
    {"512MiB", 512ull << 20, 1ull << 24, 8, 0, 0, 2,
     "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
     "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781"},
    {"32GiB", 32ull << 30, 1ull << 30, 8, 8, 0, 2349,
     "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
     "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"},
    {"64GiB", 64ull << 30, 1ull << 31, 8, 8, 2, 2300,
     "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
     "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c"},
};

const czk_post_shape *czk_post_shape_for_size(uint64_t sector_size) {
    for (int i = 0; i < CZK_POST_SHAPE_COUNT; i++)
        if (czk_post_shapes[i].sector_size == sector_size) return &czk_post_shapes[i];
    return NULL;
}

czk_status czk_post_proof_lookup(uint64_t registered_proof, czk_post_proof *out, czk_err *err) {
    if (registered_proof > 14)
        return czk_errf(err, CZK_ERR_UNSUPPORTED,
                        "registered PoSt proof %llu: known are 0-4 (WinningPoSt), 5-9 (WindowPoSt "
                        "V1) and 10-14 (WindowPoSt V1_2, FFI V1_1)",
                        (unsigned long long)registered_proof);
    out->id = registered_proof;
    out->kind = registered_proof < 5 ? CZK_POST_WINNING : CZK_POST_WINDOW;
    out->api = registered_proof < 10 ? CZK_POST_API_1_0 : CZK_POST_API_1_2;
    out->shape = &czk_post_shapes[registered_proof % 5];
    return CZK_OK;
}

void czk_post_config_for(czk_post_config *out, czk_post_kind kind, const czk_post_shape *shape) {
    out->nodes = shape->nodes;
    out->base_arity = shape->base_arity;
    out->sub_arity = shape->sub_arity;
    out->top_arity = shape->top_arity;
    if (kind == CZK_POST_WINNING) {
        out->sectors = CZK_POST_WINNING_CHALLENGES; /* 66 / WINNING_POST_SECTOR_COUNT (1) */
        out->challenges = 1;
    } else {
        out->sectors = shape->window_sectors;
        out->challenges = CZK_POST_WINDOW_CHALLENGES;
    }
}
