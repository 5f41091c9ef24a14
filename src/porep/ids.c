/*
 * Sealing identifiers and PoRep challenges: prover_id, replica_id, and the
 * interactive, synthetic and non-interactive challenge sets of
 * storage-proofs-porep stacked/vanilla/challenges.rs (v28 / 87348a7).
 *
 * Every challenge is bigint_to_challenge(): a 256-bit little-endian value
 * reduced mod (nodes − 1), plus one, so node 0 is never challenged.
 */
#include "czk/porep_graph.h"

#include "porep/hash.h"
#include "util/digest.h"

#include <string.h>

void czk_porep_prover_id(uint8_t out[32], uint64_t miner_id) {
    memset(out, 0, 32);
    int i = 0;
    do {
        uint8_t b = miner_id & 0x7f;
        miner_id >>= 7;
        out[i++] = (uint8_t)(b | (miner_id ? 0x80 : 0));
    } while (miner_id);
}

void czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                          const uint8_t ticket[32], const uint8_t comm_d[32],
                          const uint8_t porep_id[32]) {
    uint8_t sid[8];
    czk_store_be64(sid, sector_id);
    czk_sha256_parts(out,
                     (const czk_bytes[]){{prover_id, 32}, {sid, 8}, {ticket, 32}, {comm_d, 32},
                                         {porep_id, 32}},
                     5);
    out[31] &= 0x3f;
}

/* (LE 256-bit value mod (nodes − 1)) + 1; nodes in 2..2^32. */
static uint64_t to_challenge(const uint8_t v[32], uint64_t nodes) {
    uint64_t m = nodes - 1, rem = 0;
    for (int limb = 3; limb >= 0; limb--)
        rem = (uint64_t)((((unsigned __int128)rem << 64) | czk_load_le64(v + 8 * limb)) % m);
    return rem + 1;
}

static czk_status check_nodes_k(uint64_t nodes, unsigned k, czk_err *err) {
    /* challenges.rs asserts sector_nodes < 2^32 (debug) and takes k as u8. */
    if (nodes < 2 || nodes > ((uint64_t)1 << 32))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep challenges: %llu nodes, want 2..2^32",
                        (unsigned long long)nodes);
    if (k > 255)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep challenges: partition %u > 255", k);
    return CZK_OK;
}

czk_status czk_porep_interactive_challenges(uint64_t *out, uint64_t nodes,
                                            const uint8_t replica_id[32], const uint8_t seed[32],
                                            unsigned cpp, unsigned k, czk_err *err) {
    czk_status st = check_nodes_k(nodes, k, err);
    if (st != CZK_OK) return st;
    for (unsigned i = 0; i < cpp; i++) {
        uint8_t jb[4], h[32];
        czk_store_le32(jb, (uint32_t)((uint64_t)cpp * k + i));
        czk_sha256_parts(h, (const czk_bytes[]){{replica_id, 32}, {seed, 32}, {jb, 4}}, 3);
        out[i] = to_challenge(h, nodes);
    }
    return CZK_OK;
}

czk_status czk_porep_ni_challenges(uint64_t *out, uint64_t nodes, const uint8_t replica_id[32],
                                   const uint8_t comm_r[32], unsigned cpp, unsigned k,
                                   czk_err *err) {
    static const char TAG[] = "filecoin.io|PoRep|1|NonInteractive|1";
    czk_status st = check_nodes_k(nodes, k, err);
    if (st != CZK_OK) return st;
    for (unsigned i = 0; i < cpp; i++) {
        uint8_t jb[4], h[32];
        czk_store_le32(jb, (uint32_t)((uint64_t)cpp * k + i));
        czk_sha256_parts(h,
                         (const czk_bytes[]){{TAG, sizeof TAG - 1}, {replica_id, 32}, {comm_r, 32},
                                             {jb, 4}},
                         4);
        out[i] = to_challenge(h, nodes);
    }
    return CZK_OK;
}

/* ---- synthetic PoRep ---- */

#define SYNTH_DEFAULT_COUNT ((uint64_t)1 << 18)

uint64_t czk_porep_synth_count(uint64_t nodes) {
    return nodes < SYNTH_DEFAULT_COUNT ? nodes : SYNTH_DEFAULT_COUNT;
}

/* ChaCha20 of the chacha20 crate: key from keyed BLAKE2b-256, nonce "synth-porep\0". */
static void synth_key(uint32_t key[8], const char *tag, const uint8_t a[32], const uint8_t b[32]) {
    uint8_t k[32];
    uint8_t ab[64];
    memcpy(ab, a, 32);
    memcpy(ab + 32, b, 32);
    czk_blake2b(k, 32, ab, 64, tag, strlen(tag));
    for (int i = 0; i < 8; i++)
        key[i] = czk_load_le32(k + 4 * i);
}

static const uint8_t SYNTH_NONCE[12] = "synth-porep";

/* Keystream bytes [off, off + len) of ChaCha20(key, SYNTH_NONCE); the caller bounds off + len. */
static void synth_stream(uint8_t *out, const uint32_t key[8], uint64_t off, size_t len) {
    uint32_t nonce[3] = {czk_load_le32(SYNTH_NONCE), czk_load_le32(SYNTH_NONCE + 4),
                         czk_load_le32(SYNTH_NONCE + 8)};
    while (len) {
        uint32_t w[16];
        uint8_t blk[64];
        czk_chacha_block(w, key, (uint32_t)(off / 64), nonce, 20);
        for (int i = 0; i < 16; i++)
            czk_store_le32(blk + 4 * i, w[i]);
        size_t at = off % 64, take = 64 - at < len ? 64 - at : len;
        memcpy(out, blk + at, take);
        out += take;
        off += take;
        len -= take;
    }
}

static czk_status check_synth(uint64_t nodes, uint64_t *num_synth, czk_err *err) {
    if (nodes < 2 || nodes > ((uint64_t)1 << 32))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "synthetic challenges: %llu nodes, want 2..2^32",
                        (unsigned long long)nodes);
    if (*num_synth == 0) *num_synth = czk_porep_synth_count(nodes);
    /* SynthChallengeGenerator::new asserts num_synth < 2^32; seeks are u32 byte offsets. */
    if (*num_synth >= ((uint64_t)1 << 27))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "synthetic challenges: %llu synthetic challenges pass the u32 keystream "
                        "offset",
                        (unsigned long long)*num_synth);
    return CZK_OK;
}

static uint64_t synth_one(const uint32_t key[8], uint64_t nodes, uint64_t i) {
    uint8_t v[32];
    synth_stream(v, key, i * 32, 32);
    return to_challenge(v, nodes);
}

czk_status czk_porep_synth_challenge(uint64_t *out, uint64_t nodes, const uint8_t replica_id[32],
                                     const uint8_t comm_r[32], uint64_t num_synth, uint64_t i,
                                     czk_err *err) {
    czk_status st = check_synth(nodes, &num_synth, err);
    if (st != CZK_OK) return st;
    if (i >= num_synth)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "synthetic challenge %llu of %llu",
                        (unsigned long long)i, (unsigned long long)num_synth);
    uint32_t key[8];
    synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
    *out = synth_one(key, nodes, i);
    return CZK_OK;
}

czk_status czk_porep_synth_challenges(uint64_t *out, uint64_t nodes, const uint8_t replica_id[32],
                                      const uint8_t comm_r[32], const uint8_t seed[32],
                                      uint64_t num_synth, unsigned cpp, unsigned k, czk_err *err) {
    czk_status st = check_synth(nodes, &num_synth, err);
    if (st == CZK_OK) st = check_nodes_k(nodes, k, err);
    if (st != CZK_OK) return st;
    uint64_t first = (uint64_t)k * cpp;
    if ((first + cpp) * 4 > UINT32_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "synthetic challenges: selection offset passes the u32 keystream offset");
    uint32_t gen[8], sel[8];
    synth_key(gen, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
    synth_key(sel, "filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
    for (unsigned i = 0; i < cpp; i++) {
        uint8_t b[4];
        synth_stream(b, sel, (first + i) * 4, 4);
        out[i] = synth_one(gen, nodes, czk_load_le32(b) % num_synth);
    }
    return CZK_OK;
}

czk_status czk_porep_challenges(uint64_t *out, const czk_porep_proof *proof,
                                const uint8_t replica_id[32], const uint8_t *seed,
                                const uint8_t *comm_r, unsigned k, czk_err *err) {
    if (k >= proof->partitions)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep challenges: partition %u of %u", k,
                        proof->partitions);
    uint64_t nodes = proof->shape->nodes;
    unsigned cpp = proof->challenges_per_partition;
    switch (proof->kind) {
    case CZK_POREP_INTERACTIVE:
        if (!seed) break;
        return czk_porep_interactive_challenges(out, nodes, replica_id, seed, cpp, k, err);
    case CZK_POREP_SYNTHETIC:
        if (!seed || !comm_r) break;
        return czk_porep_synth_challenges(out, nodes, replica_id, comm_r, seed, 0, cpp, k, err);
    case CZK_POREP_NON_INTERACTIVE:
        if (!comm_r) break;
        return czk_porep_ni_challenges(out, nodes, replica_id, comm_r, cpp, k, err);
    }
    return czk_errf(err, CZK_ERR_INVALID_ARG, "porep challenges: proof %llu needs %s",
                    (unsigned long long)proof->id,
                    proof->kind == CZK_POREP_INTERACTIVE ? "the seed"
                    : proof->kind == CZK_POREP_SYNTHETIC ? "the seed and comm_r"
                                                         : "comm_r");
}
