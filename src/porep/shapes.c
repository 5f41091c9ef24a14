/*
 * The sector-shape table and the registered-proof map (see
 * include/czk/porep_shapes.h for the sources of every column).
 */
#include "czk/porep_shapes.h"

#include "porep/hash.h"

#include <stdio.h>
#include <string.h>

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

/* Test sizes: 2 challenges in 1 partition; NI 26 in 13. Production: 176 in 10 (18 each); NI 2253
 * in 126 (18 each). */
#define SMALL_CHALLENGES                                                                           \
    .min_challenges = 2, .partitions = 1, .challenges_per_partition = 2, .ni_min_challenges = 26,  \
    .ni_partitions = 13, .ni_challenges_per_partition = 2
#define LARGE_CHALLENGES                                                                           \
    .min_challenges = 176, .partitions = 10, .challenges_per_partition = 18,                       \
    .ni_min_challenges = 2253, .ni_partitions = 126, .ni_challenges_per_partition = 18

const czk_porep_shape czk_porep_shapes[CZK_POREP_SHAPE_COUNT] = {
    {
        .name = "2KiB",
        .sector_size = 2 * KIB,
        .nodes = 64,
        .log2_nodes = 6,
        .layers = 2,
        SMALL_CHALLENGES,
        .tree_base_arity = 8,
        .tree_sub_arity = 0,
        .tree_top_arity = 0,
        .column_arity = 2,
        .proof_ids = {0, 5, 10, 15},
        .param_id = "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
        .params_cid = "QmWceMgnWYLopMuM4AoGMvGEau7tNe5UK83XFjH5V9B17h",
        .vk_cid = "QmamahpFCstMUqHi2qGtVoDnRrsXhid86qsfvoyCTKJqHr",
        .parent_cache_id =
            {"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
             "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b"},
        .parent_cache_digest = {"3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
                                "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
    },
    {
        .name = "8MiB",
        .sector_size = 8 * MIB,
        .nodes = 1ULL << 18,
        .log2_nodes = 18,
        .layers = 2,
        SMALL_CHALLENGES,
        .tree_base_arity = 8,
        .tree_sub_arity = 0,
        .tree_top_arity = 0,
        .column_arity = 2,
        .proof_ids = {1, 6, 11, 16},
        .param_id = "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
        .params_cid = "QmPXAPPuQtuQz7Zz3MHMAMEtsYwqM1o9H1csPLeiMUQwZH",
        .vk_cid = "QmYCuipFyvVW1GojdMrjK1JnMobXtT4zRCZs1CGxjizs99",
        .parent_cache_id =
            {"v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
             "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5"},
        .parent_cache_digest = {"a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce",
                                "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab"},
    },
    {
        .name = "512MiB",
        .sector_size = 512 * MIB,
        .nodes = 1ULL << 24,
        .log2_nodes = 24,
        .layers = 2,
        SMALL_CHALLENGES,
        .tree_base_arity = 8,
        .tree_sub_arity = 0,
        .tree_top_arity = 0,
        .column_arity = 2,
        .proof_ids = {2, 7, 12, 17},
        .param_id = "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
        .params_cid = "QmYBpTt7LWNAWr1JXThV5VxX7wsQFLd1PHrGYVbrU1EZjC",
        .vk_cid = "QmWionkqH2B6TXivzBSQeSyBxojaiAFbzhjtwYRrfwd8nH",
        .parent_cache_id =
            {"v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42",
             "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34"},
        .parent_cache_digest = {"3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5",
                                "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a"},
    },
    {
        .name = "32GiB",
        .sector_size = 32 * GIB,
        .nodes = 1ULL << 30,
        .log2_nodes = 30,
        .layers = 11,
        LARGE_CHALLENGES,
        .tree_base_arity = 8,
        .tree_sub_arity = 8,
        .tree_top_arity = 0,
        .column_arity = 11,
        .proof_ids = {3, 8, 13, 18},
        .param_id = "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
        .params_cid = "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ",
        .vk_cid = "Qmf93EMrADXAK6CyiSfE8xx45fkMfR3uzKEPCvZC1n2kzb",
        .parent_cache_id =
            {"v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13",
             "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117"},
        .parent_cache_digest = {"3c4f9841fcc75aed8c695800e58d08480629f25af3a2aefd81904181d75cc0b6",
                                "93deeac5e3052b6927467d4b2641bb782f05491de18d510147c93eeedd8672da"},
    },
    {
        .name = "64GiB",
        .sector_size = 64 * GIB,
        .nodes = 1ULL << 31,
        .log2_nodes = 31,
        .layers = 11,
        LARGE_CHALLENGES,
        .tree_base_arity = 8,
        .tree_sub_arity = 8,
        .tree_top_arity = 2,
        .column_arity = 11,
        .proof_ids = {4, 9, 14, 19},
        .param_id = "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
        .params_cid = "QmS7ye6Ri2MfFzCkcUJ7FQ6zxDKuJ6J6B8k5PN7wzSR9sX",
        .vk_cid = "QmehSmC6BhrgRZakPDta2ewoH9nosNzdjCqQRXsNFNUkLN",
        .parent_cache_id =
            {"v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6",
             "v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b"},
        .parent_cache_digest = {"2778a732ad46a7dc18e0564dfdf59fd321dcde74ab476fd6d3c4e6735d7cd89c",
                                "2698b74eb2606b55b98d8b095e18b6320b47f46e00075956d48640ccd1641b03"},
    },
};

const czk_porep_shape *czk_porep_shape_for_size(uint64_t sector_size) {
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (czk_porep_shapes[i].sector_size == sector_size) return &czk_porep_shapes[i];
    return NULL;
}

void czk_porep_id(uint8_t out[32], uint64_t registered_proof) {
    memset(out, 0, 32);
    czk_store_le64(out, registered_proof);
    czk_store_le64(out + 8, 0); /* registry.rs nonce(): 0 for every proof */
}

czk_status czk_porep_proof_lookup(uint64_t registered_proof, czk_porep_proof *out, czk_err *err) {
    /* registry.rs: ids come in groups of five, one per shape, in shape order. */
    if (registered_proof >= 4 * CZK_POREP_SHAPE_COUNT)
        return czk_errf(err, CZK_ERR_UNSUPPORTED,
                        "registered seal proof %llu: not a StackedDrg id (0..19)",
                        (unsigned long long)registered_proof);
    unsigned group = (unsigned)(registered_proof / CZK_POREP_SHAPE_COUNT);
    const czk_porep_shape *s = &czk_porep_shapes[registered_proof % CZK_POREP_SHAPE_COUNT];
    out->id = registered_proof;
    out->shape = s;
    out->api = group == 0 ? CZK_POREP_API_1_0 : group == 1 ? CZK_POREP_API_1_1 : CZK_POREP_API_1_2;
    out->kind = group < 2    ? CZK_POREP_INTERACTIVE
                : group == 2 ? CZK_POREP_SYNTHETIC
                             : CZK_POREP_NON_INTERACTIVE;
    out->partitions = group == 3 ? s->ni_partitions : s->partitions;
    out->challenges_per_partition =
        group == 3 ? s->ni_challenges_per_partition : s->challenges_per_partition;
    czk_porep_id(out->porep_id, registered_proof);
    return CZK_OK;
}

czk_status czk_porep_param_file_name(char *out, size_t cap, const czk_porep_shape *shape,
                                     const char *ext, czk_err *err) {
    int n = snprintf(out, cap,
                     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-%u-%u-%u-"
                     "sha256_hasher-%s%s",
                     shape->tree_base_arity, shape->tree_sub_arity, shape->tree_top_arity,
                     shape->param_id, ext);
    if (n < 0 || (size_t)n >= cap)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "param file name: %d bytes do not fit in %zu",
                        n + 1, cap);
    return CZK_OK;
}
