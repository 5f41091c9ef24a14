/*
 * What the files of src/snap share (private to the layer).
 */
#ifndef CZK_SNAP_INTERNAL_H
#define CZK_SNAP_INTERNAL_H

#include "czk/gadgets.h"
#include "czk/poseidon.h"
#include "czk/snap.h"

/* POSEIDON_CONSTANTS_GEN_RANDOMNESS: arity 2, Custom(Arbitrary(1)). */
CZK_NODISCARD czk_status snap_gen_randomness(czk_poseidon_constants *pc, czk_err *err);

/* gen_challenge_bits' layout: random bits per challenge, challenges per digest, digests. */
void snap_challenge_layout(const czk_snap_shape *s, unsigned *bits, unsigned *per_digest,
                           unsigned *digests);

/*
 * czk_snap_synthesize with only the first `bodies` challenges' bodies (step
 * 8); everything before them complete. bodies ≥ challenges is the circuit.
 * Out: *rows1, *aux1 (may be NULL): the cs's constraints and aux right
 *      after the first body.
 */
CZK_NODISCARD czk_status snap_synthesize_bodies(czk_cs *cs, const czk_snap_shape *s,
                                                const czk_snap_public *pub,
                                                const czk_snap_vanilla *v, unsigned bodies,
                                                uint64_t *rows1, uint32_t *aux1);

#endif
