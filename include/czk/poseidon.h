/*
 * czk — Poseidon over Fr in neptune's legacy form: the hash of Filecoin's
 * PoRep trees and columns (TreeC/TreeR octrees: arity 8; column hashes:
 * arity 11; arity 2 and 4 in other trees and tests).
 *
 * Sources: spec/porep-circuit.md §4.9; lurk-lab/neptune (formerly
 * filecoin-project/neptune) src/round_constants.rs, round_numbers.rs, mds.rs,
 * matrix.rs, preprocessing.rs, poseidon.rs (`PoseidonConstants::new()`,
 * Strength::Standard, HashType::MerkleTree) and src/circuit.rs
 * (`circuit::poseidon_hash`). The Poseidon paper is Grassi, Khovratovich,
 * Rechberger, Roy, Schofnegger, "Poseidon: A New Hash Function for
 * Zero-Knowledge Proof Systems", USENIX Security 2021.
 *
 * Parameters, for arity a (width t = a + 1):
 *   - S-box x^5; RF = 8 full rounds (4 + 4); RP partial rounds: 55 (a = 2),
 *     56 (4), 57 (8, 11), 59 (16, 24), 60 (36) (neptune round_numbers.rs,
 *     128-bit security, security margin applied);
 *   - state = [domain tag, preimage...], tag = 2^a − 1 (MerkleTree);
 *   - the digest is state[1] after the permutation.
 * Supported arities: 2, 4, 8, 11, 16, 24, 36. Other arities are refused with
 * CZK_ERR_UNSUPPORTED.
 *
 * Constants are generated in C on first use of an arity (Grain LFSR round
 * constants, Cauchy MDS matrix, compressed round constants, sparse
 * factorisation), once per process and thread-safely (pthread_once), and
 * stay valid until exit. They equal element for element the supra_seal
 * tables `poseidon/constants/constants_{2,4,8,11}` (tests check sha256).
 */
#ifndef CZK_POSEIDON_H
#define CZK_POSEIDON_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_POSEIDON_FULL_ROUNDS 8u
#define CZK_POSEIDON_MAX_ARITY 36u
#define CZK_POSEIDON_MAX_WIDTH (CZK_POSEIDON_MAX_ARITY + 1u)

/*
 * The constants of one arity. All elements are Fr in Montgomery form.
 *
 *   round_constants  (RF + RP)·t Grain LFSR outputs, round r's keys at r·t
 *                    (the unoptimized schedule: add keys, S-box, M·state).
 *   crc              RF·t + RP compressed round constants (neptune
 *                    preprocessing.rs, every partial round preprocessed):
 *                    rk(0), M⁻¹·rk(1..3), M⁻¹·acc, the RP partial keys,
 *                    M⁻¹·rk(4 + RP + 1 .. 4 + RP + 3).
 *   mds              M, t×t row-major, M[i][j] = 1/(i + t + j). Symmetric.
 *   pre_sparse       P, t×t row-major: the matrix after the 4th full round.
 *   sparse           RP sparse matrices S_k, 2t − 1 elements each:
 *                    w_hat (t) ‖ v_rest (t − 1). After partial round k the
 *                    state becomes new_0 = Σ_i e_i·w_hat[i],
 *                    new_j = e_j + e_0·v_rest[j − 1].
 *   table            crc ‖ mds ‖ pre_sparse ‖ sparse, consecutive: exactly
 *                    the layout of supra_seal's constants_<arity> files
 *                    (spec §4.9), table_len = (8t + RP) + 2t² + RP·(2t − 1).
 *
 * Matrices act on the state as a row vector: new_j = Σ_i e_i·Mat[i][j].
 */
typedef struct czk_poseidon_constants {
    unsigned arity;
    unsigned width;          /* t = arity + 1 */
    unsigned full_rounds;    /* RF = 8 */
    unsigned partial_rounds; /* RP */
    czk_fr domain_tag;       /* 2^arity − 1 (MerkleTree; see czk_poseidon_constants_custom) */
    const czk_fr *round_constants;
    const czk_fr *crc;
    const czk_fr *mds;
    const czk_fr *pre_sparse;
    const czk_fr *sparse;
    const czk_fr *table;
    size_t table_len;
} czk_poseidon_constants;

/* True iff arity is one of 2, 4, 8, 11, 16, 24, 36. */
bool czk_poseidon_arity_supported(unsigned arity);

/*
 * The constants of `arity`, generated on the first call for that arity
 * (milliseconds for arity ≤ 11; arity 36 takes longest) and shared after.
 * Thread-safe; the result lives until the process exits; never free it.
 *
 * Returns: the constants, or NULL with err set: CZK_ERR_UNSUPPORTED for an
 *          arity not listed above; CZK_ERR_NOMEM if the first generation
 *          could not allocate (then every later call for that arity fails
 *          the same way); CZK_ERR_INTERNAL if a matrix is not invertible
 *          (a bug).
 */
const czk_poseidon_constants *czk_poseidon_constants_get(unsigned arity, czk_err *err);

/*
 * neptune's HashType::Custom(CType::Arbitrary(id)) (hash_type.rs): the
 * constants of `arity` with the domain tag id·2^40 in place of 2^arity − 1.
 * That is all the hash type changes: round numbers, round constants and the
 * MDS matrix depend on the arity and strength alone
 * (new_with_strength_and_type), and the custom types are not padded
 * (apply_padding pads ConstantLength and Encryption only), so the digest is
 * still state[1] and the circuit has the same constraints, with another
 * constant folded into its first round. storage-proofs-update's
 * POSEIDON_CONSTANTS_GEN_RANDOMNESS is arity 2, id 1 (tag 2^40): phi, rho
 * and the challenge digests of SnapDeals (include/czk/snap.h).
 * Out: *out, whose tables are those of czk_poseidon_constants_get(arity)
 *      (shared, valid until exit; *out itself is the caller's).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for an id outside 1..256 (neptune
 *   asserts that range); czk_poseidon_constants_get's errors.
 */
CZK_NODISCARD czk_status czk_poseidon_constants_custom(czk_poseidon_constants *out, unsigned arity,
                                                       uint64_t id, czk_err *err) CZK_NONNULL(1);

/*
 * Native hash with the optimized schedule (neptune hash_optimized_static;
 * spec §4.9): state = [tag, preimage...]; add crc[0..t]; 4 full rounds
 * (x^5 then the next t crc values; then M, or P after the 4th); RP partial
 * rounds (x^5 + next crc value on element 0; then S_k); 3 full rounds with
 * keys and M; a terminal full round without keys, then M; out = state[1].
 *
 * In:  pc        constants from czk_poseidon_constants_get.
 *      preimage  pc->arity elements.
 * Out: out       the digest (may alias preimage).
 */
void czk_poseidon_hash_with(const czk_poseidon_constants *pc, czk_fr *out, const czk_fr *preimage)
    CZK_NONNULL(1, 2, 3);

/*
 * The same, looking the constants up by arity.
 * Returns: CZK_OK, or czk_poseidon_constants_get's errors (out untouched).
 */
CZK_NODISCARD czk_status czk_poseidon_hash(czk_fr *out, const czk_fr *preimage, unsigned arity,
                                           czk_err *err) CZK_NONNULL(1, 2);

/*
 * The R1CS gadget: neptune's legacy `circuit::poseidon_hash` (spec §4.9),
 * constraint for constraint, in the same order, with the same aux
 * allocations and the same linear combinations (after merging), so that the
 * shape equals bellperson's:
 *
 *   first full round   element 0 (the tag) is folded in as a constant;
 *                      each input l gets 3 constraints:
 *                      (l + pre)(l + pre) = l2, l2·l2 = l4,
 *                      (l + pre)·l4 = l5 − post·ONE;
 *   full rounds 1..3   each element gets 4 constraints:
 *                      lc·ONE = v, v·v = l2, l2·l2 = l4, v·l4 = l5 − key·ONE;
 *   partial rounds     the same 4 constraints, on element 0 only;
 *   final full rounds  as full rounds 1..3;
 *   terminal round     the same without key: v·l4 = l5;
 *   (matrix products between rounds only rewrite linear combinations)
 *   result             lc(state[1])·ONE = out.
 *
 * Constraints = aux = 3·arity + 4·(7t + RP) + 1: 311 (arity 2), 377 (4),
 * 505 (8), 598 (11), 761 (16), 1009 (24), 1385 (36).
 *
 * In RECORD and CHECK modes the linear combinations are built and enforced;
 * in WITNESS mode (czk_cs_records() false) none is built and only the aux
 * values are computed, natively (czk_cs_enforce still sees each constraint,
 * with empty combinations, so the cs's constraint counter matches).
 *
 * In:  cs            the constraint system (any mode).
 *      inputs        arity allocated variables (inputs or aux), the preimage.
 *      input_values  their arity values; required when czk_cs_has_values(cs)
 *                    (WITNESS, CHECK), may be NULL in RECORD mode (zeros are
 *                    used). They must equal the values the cs holds for
 *                    `inputs`; CHECK mode reports a constraint of the first
 *                    full round as unsatisfied otherwise.
 *      arity         2, 4, 8, 11, 16, 24 or 36.
 * Out: out           the aux variable holding the digest (NULL: not wanted).
 *      out_value     its value (NULL: not wanted; in RECORD mode without
 *                    input values, the hash of zeros).
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED (bad arity), CZK_ERR_INVALID_ARG
 *          (input_values NULL while the cs holds values), or another
 *          czk_poseidon_constants_get error. Each failure is also recorded in
 *          the cs (sticky), as is any failure of the cs itself (out of
 *          memory, cancellation), which is returned as well.
 */
CZK_NODISCARD czk_status czk_poseidon_circuit(czk_cs *cs, const czk_var *inputs,
                                              const czk_fr *input_values, unsigned arity,
                                              czk_var *out, czk_fr *out_value) CZK_NONNULL(1, 2);

/*
 * czk_poseidon_circuit with explicit constants (from czk_poseidon_constants_get
 * or czk_poseidon_constants_custom): pc->arity inputs, the same constraints
 * and allocations; only pc->domain_tag differs between hash types.
 * Returns: as czk_poseidon_circuit.
 */
CZK_NODISCARD czk_status czk_poseidon_circuit_with(czk_cs *cs, const czk_poseidon_constants *pc,
                                                   const czk_var *inputs,
                                                   const czk_fr *input_values, czk_var *out,
                                                   czk_fr *out_value) CZK_NONNULL(1, 2, 3);

#ifdef __cplusplus
}
#endif
#endif
