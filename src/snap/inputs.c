/*
 * SnapDeals public inputs, randomness and challenges (storage-proofs-update
 * circuit.rs PublicInputs, vanilla.rs phi / rho, challenges.rs; spec
 * post-snap.md §2.2, §2.3). Every hash here is Poseidon-2 with neptune's
 * HashType::Custom(CType::Arbitrary(1)), whose only difference from the
 * TreeR hash is its domain tag 2^40 (czk_poseidon_constants_custom).
 */
#include "snap/internal.h"

#include <string.h>

czk_status snap_gen_randomness(czk_poseidon_constants *pc, czk_err *err) {
    return czk_poseidon_constants_custom(pc, 2, CZK_SNAP_GEN_RANDOMNESS_ID, err);
}

static czk_status hash2(czk_fr *out, const czk_fr *a, const czk_fr *b, czk_err *err) {
    czk_poseidon_constants pc;
    czk_status st = snap_gen_randomness(&pc, err);
    if (st) return st;
    czk_fr in[2] = {*a, *b};
    czk_poseidon_hash_with(&pc, out, in);
    return CZK_OK;
}

static czk_status commitment(czk_fr *out, const uint8_t b[32], const char *what, czk_err *err) {
    if (czk_fr_from_bytes(out, b, NULL) == CZK_OK) return CZK_OK;
    return czk_errf(err, CZK_ERR_FR_RANGE, "SnapDeals %s is not a canonical Fr (byte 31 is 0x%02x)",
                    what, b[31]);
}

czk_status czk_snap_phi(czk_fr *phi, const uint8_t comm_d_new[32], const uint8_t comm_r_old[32],
                        czk_err *err) {
    czk_fr d, r;
    czk_status st;
    if ((st = commitment(&d, comm_d_new, "comm_d_new", err)) ||
        (st = commitment(&r, comm_r_old, "comm_r_old", err)))
        return st;
    return hash2(phi, &d, &r, err);
}

czk_status czk_snap_rho(czk_fr *rho, const czk_fr *phi, uint64_t high, czk_err *err) {
    czk_fr h;
    czk_fr_from_u64(&h, high);
    return hash2(rho, phi, &h, err);
}

void snap_challenge_layout(const czk_snap_shape *s, unsigned *bits, unsigned *per_digest,
                           unsigned *digests) {
    unsigned b = s->challenge_bits - s->partition_bits;
    unsigned per = CZK_FR_CAPACITY / b;
    *bits = b;
    *per_digest = per;
    *digests = (s->challenges + per - 1) / per;
}

czk_status czk_snap_challenges(uint64_t *out, const czk_snap_shape *s, const uint8_t comm_r_new[32],
                               uint64_t k, czk_err *err) {
    if (k >= s->partitions)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "SnapDeals %s: partition %llu of %u", s->name,
                        (unsigned long long)k, s->partitions);
    czk_fr r;
    czk_status st = commitment(&r, comm_r_new, "comm_r_new", err);
    if (st) return st;
    unsigned b, per, digests;
    snap_challenge_layout(s, &b, &per, &digests);
    for (unsigned j = 0, n = 0; j < digests; j++) {
        czk_fr idx, d;
        czk_fr_from_u64(&idx, k * digests + j);
        if ((st = hash2(&d, &r, &idx, err))) return st;
        uint64_t limbs[4];
        czk_fr_to_u64s(limbs, &d);
        for (unsigned i = 0; i < per && n < s->challenges; i++, n++) {
            uint64_t c = 0;
            for (unsigned t = 0; t < b; t++) {
                unsigned bit = i * b + t;
                c |= ((limbs[bit / 64] >> (bit % 64)) & 1) << t;
            }
            out[n] = c | k << b;
        }
    }
    return CZK_OK;
}

czk_status czk_snap_public_inputs(czk_fr out[4], const czk_snap_shape *s,
                                  const czk_snap_public *pub, czk_err *err) {
    if (pub->k >= s->partitions)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "SnapDeals %s: partition %llu of %u", s->name,
                        (unsigned long long)pub->k, s->partitions);
    uint64_t h_select;
    czk_status st = czk_snap_h_select(s, pub->h, &h_select, err);
    if (st) return st;
    czk_fr_from_u64(&out[0], pub->k | h_select << s->partition_bits);
    if ((st = commitment(&out[1], pub->comm_r_old, "comm_r_old", err)) ||
        (st = commitment(&out[2], pub->comm_d_new, "comm_d_new", err)) ||
        (st = commitment(&out[3], pub->comm_r_new, "comm_r_new", err)))
        return st;
    return CZK_OK;
}
