/*
 * FallbackPoSt challenges and public inputs (storage-proofs-post
 * fallback/utils.rs get_challenge_index, vanilla.rs
 * generate_leaf_challenge_inner, compound.rs generate_public_inputs;
 * spec post-snap.md §1.3).
 *
 * A challenged leaf is SHA-256(randomness ‖ sector_id ‖ challenge_index),
 * both u64 little-endian, its first 8 bytes read as a u64 LE, mod the
 * sector's nodes. The challenge index of API 1.0 runs over the whole
 * partition list (sector_index · challenges + n, sector_index = k ·
 * sectors_per_partition + i); API 1.2 (the grindability fix) uses n alone.
 *
 * The inputs of partition k are computed from that partition's sectors
 * only, as Curio sends them; k enters only through the challenge index.
 */
#include "czk/post.h"

#include "util/digest.h"

#include <string.h>

uint64_t czk_post_challenge_index(czk_post_api api, uint64_t sector_index, unsigned challenges,
                                  unsigned n) {
    if (api >= CZK_POST_API_1_2) return n;
    return sector_index * challenges + n;
}

static void put_u64_le(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t czk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                 uint64_t challenge_index, uint64_t nodes) {
    uint8_t msg[48], h[32];
    memcpy(msg, randomness, 32);
    put_u64_le(msg + 32, sector_id);
    put_u64_le(msg + 40, challenge_index);
    czk_sha256_digest(h, msg, sizeof msg);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | h[i];
    return nodes ? v % nodes : 0;
}

czk_status czk_post_randomness_check(const uint8_t randomness[32], czk_err *err) {
    czk_fr x;
    if (czk_fr_from_bytes(&x, randomness, NULL) == CZK_OK) return CZK_OK;
    return czk_errf(err, CZK_ERR_FR_RANGE,
                    "PoSt randomness is not a canonical Fr (byte 31 is 0x%02x; Curio masks it "
                    "with 0x3f before sending): refused, not masked",
                    randomness[31]);
}

/* The checks both entry points share. */
static czk_status check_args(const czk_post_config *cfg, czk_post_api api,
                             const uint8_t randomness[32], size_t nsectors, const char *what,
                             czk_err *err) {
    czk_status st = czk_post_config_check(cfg, NULL, err);
    if (st) return st;
    if (api != CZK_POST_API_1_0 && api != CZK_POST_API_1_2)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: unknown API version %d", what, (int)api);
    if (nsectors == 0 || nsectors > cfg->sectors)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: %zu sectors for a partition of %u", what,
                        nsectors, cfg->sectors);
    return czk_post_randomness_check(randomness, err);
}

czk_status czk_post_challenges(uint64_t *out, const czk_post_config *cfg, czk_post_api api,
                               const uint8_t randomness[32], const czk_post_pub_sector *sectors,
                               size_t nsectors, uint64_t k, czk_err *err) {
    czk_status st = check_args(cfg, api, randomness, nsectors, "post challenges", err);
    if (st) return st;
    for (size_t i = 0; i < nsectors; i++)
        for (unsigned n = 0; n < cfg->challenges; n++) {
            uint64_t idx = czk_post_challenge_index(api, k * cfg->sectors + i, cfg->challenges, n);
            out[i * cfg->challenges + n] =
                czk_post_leaf_challenge(randomness, sectors[i].sector_id, idx, cfg->nodes);
        }
    return CZK_OK;
}

czk_status czk_post_public_inputs(czk_fr *out, const czk_post_config *cfg, czk_post_api api,
                                  const uint8_t randomness[32], const czk_post_pub_sector *sectors,
                                  size_t nsectors, uint64_t k, czk_err *err) {
    czk_status st = check_args(cfg, api, randomness, nsectors, "post public inputs", err);
    if (st) return st;
    size_t per = 1 + (size_t)cfg->challenges;
    for (size_t i = 0; i < nsectors; i++) {
        czk_fr *o = out + i * per;
        if (czk_fr_from_bytes(o, sectors[i].comm_r, NULL))
            return czk_errf(err, CZK_ERR_FR_RANGE,
                            "post public inputs: comm_r of sector %llu is not below r",
                            (unsigned long long)sectors[i].sector_id);
        for (unsigned n = 0; n < cfg->challenges; n++) {
            uint64_t idx = czk_post_challenge_index(api, k * cfg->sectors + i, cfg->challenges, n);
            czk_fr_from_u64(&o[1 + n], czk_post_leaf_challenge(randomness, sectors[i].sector_id,
                                                               idx, cfg->nodes));
        }
    }
    /* fewer sectors than the partition holds: the last block repeated */
    for (size_t i = nsectors; i < cfg->sectors; i++)
        memcpy(out + i * per, out + (nsectors - 1) * per, per * sizeof *out);
    return CZK_OK;
}

void czk_post_winning_sectors(czk_post_pub_sector *out, const czk_post_pub_sector *sector) {
    for (unsigned i = 0; i < CZK_POST_WINNING_CHALLENGES; i++)
        out[i] = *sector;
}
