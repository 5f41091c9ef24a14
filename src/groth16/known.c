/*
 * The published Filecoin v28 PoRep parameter digests: the first 32 hex
 * characters of BLAKE2b-512 of the whole file, as parameters.json records
 * them (rust-fil-proofs; the same table in lotus build/proof-params), copied
 * from porep-circuit.md §1. A file with one of these digests is the file
 * the trusted setup produced, so its points need no subgroup check.
 */
#include "czk/groth16.h"

#include <string.h>

#define V28 "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-"

static const struct {
    const char *digest, *name;
} KNOWN[] = {
    {"434fb1338ecfaf0f59256f30dde4968f", V28
     "8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params"},
    {"dc1ade9929ade1708238f155343044ac",
     V28 "8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk"},
    {"09e612e4eeb7a0eb95679a88404f960c", V28
     "8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params"},
    {"b687beb9adbd9dabe265a7e3620813e4",
     V28 "8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk"},
    {"6c77597eb91ab936c1cef4cf19eba1b3", V28
     "8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params"},
    {"065179da19fbe515507267677f02823e",
     V28 "8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk"},
    {"6a388072a518cf46ebd661f5cc46900a", V28
     "8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params"},
    {"0c7b4aac1c40fdb7eb82bc355b41addf",
     V28 "8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk"},
    {"1801f8a6e1b00bceb00cc27314bb5ce3", V28
     "8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params"},
    {"a89884252c04c298d0b3c81bfd884164",
     V28 "8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk"},
};

const char *czk_params_known_digest(const char *digest_hex32) {
    if (!digest_hex32) return NULL;
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (strncmp(KNOWN[i].digest, digest_hex32, 33) == 0) return KNOWN[i].name;
    return NULL;
}
