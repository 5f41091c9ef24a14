/*
 * czk — SnapDeals (EmptySectorUpdate): the update circuit of one partition
 * for every sector size, its public inputs and challenges, the bincode
 * PartitionProof it is proved from, and the pre-check of those proofs
 * (rust-fil-proofs v28 storage-proofs-update src/{circuit,gadgets,constants,
 * challenges,vanilla,compound}.rs, the plain variant filecoin-proofs and
 * Curio use, not the "poseidon" one; neptune hash_type.rs; spec
 * post-snap.md §2–§4).
 *
 * An update proves that a sealed CC sector (TreeR old, comm_r_old =
 * Poseidon-2(comm_c, root_r_old)) now holds the data of comm_d_new, each
 * replica node encoded as
 *   replica_new[c] = replica_old[c] + data[c] · rho(c_high),
 *   phi = H(comm_d_new, comm_r_old), rho(high) = H(phi, high),
 * H = Poseidon-2 with HashType::Custom(CType::Arbitrary(1)) (domain tag
 * 2^40, czk_poseidon_constants_custom), c_high the top h bits of the node
 * index, and comm_r_new = Poseidon-2(comm_c, root_r_new).
 *
 * The circuit of partition k (EmptySectorUpdateCircuit::synthesize), in order:
 *   1. k_and_h_select allocated and inputized; partition_bits + 6 bits
 *      allocated (AllocatedBit, LE) with Σ 2^i·bit_i · ONE = k_and_h_select;
 *      the partition bits packed (pack_bits) into `partition`;
 *   2. comm_r_old, comm_d_new, comm_r_new allocated and inputized, in that
 *      order (4 inputs after ONE);
 *   3. phi = H(comm_d_new, comm_r_old) (311 constraints);
 *   4. comm_c, root_r_old, root_r_new, the apex leafs and the partition
 *      path's siblings allocated;
 *   5. Poseidon-2(comm_c, root_r_old) · ONE = comm_r_old, then the same for
 *      root_r_new and comm_r_new (TreeR hash2, 312 each);
 *   6. the apex tree: SHA-256 hash2 (Sha256Function::hash2_circuit, 45,379)
 *      row by row over the apex leafs up to its root, then
 *      por_no_challenge_input from that root along the partition bits and
 *      path to comm_d_new;
 *   7. gen_challenge_bits: b = challenge_bits − partition_bits random bits
 *      per challenge, ⌊254/b⌋ per digest; for digest j, digest_index = k ·
 *      digests + j (1 constraint), digest = H(comm_r_new, digest_index),
 *      its 255 bits LE with one binary-decomposition constraint; chunks of b
 *      bits, each followed by the partition bits, are the challenges;
 *   8. per challenge: c_high = the top h bits packed for each h of hs, each
 *      times its h_select bit, summed (13 constraints); rho = H(phi,
 *      c_high); leaf_r_old, leaf_d_new allocated; leaf_r_new = leaf_r_old +
 *      leaf_d_new · rho (2); the TreeR old path's siblings, its PoR to
 *      root_r_old; the TreeR new path's siblings, its PoR from leaf_r_new
 *      to root_r_new; the apex leaf selected by the challenge bits below
 *      the partition bits (select, apex_leafs − 1 picks); the TreeD
 *      siblings below the apex leafs and the SHA-256 PoR from leaf_d_new to
 *      the selected apex leaf. Every PoR is por_no_challenge_input over the
 *      challenge's own bits (czk_por_no_challenge_input).
 * After the circuit czk_cs_run() adds one input · 0 = 0 per input (5).
 *
 * Upstream's asserted counts (synthesized, tests/circuit.rs): 1KiB
 * 1,248,389; 2KiB 1,705,039; 4KiB 2,165,109; 8KiB 2,620,359; 16KiB
 * 6,300,021; 32KiB 6,760,091; 32GiB 81,049,499 per partition.
 */
#ifndef CZK_SNAP_H
#define CZK_SNAP_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/keys.h"
#include "czk/por.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_SNAP_HS 6u     /* the h values hard-coded in the circuit */
#define CZK_SNAP_INPUTS 5u /* ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new */
/* neptune CType::Arbitrary(1): POSEIDON_CONSTANTS_GEN_RANDOMNESS (constants.rs) */
#define CZK_SNAP_GEN_RANDOMNESS_ID 1u

/*
 * A sector size of the update circuit (constants.rs; spec §2.1). Every
 * value follows from `nodes` as upstream derives it: partitions 1 (≤ 8KiB
 * of nodes), 2 (≤ 32KiB), 4 (≤ 16MiB), else 16; challenges 10 (≤ 16MiB),
 * else 86; apex leafs 8 (≤ 8KiB), else 128; hs [1; 6] (≤ 32KiB), else
 * [7..12]; h_default = hs[3]; the TreeR shape of validate_tree_r_shape.
 */
typedef struct czk_snap_shape {
    const char *name; /* "1KiB" ... "64GiB" */
    uint64_t sector_size;
    uint64_t nodes;
    unsigned base_arity, sub_arity, top_arity; /* TreeR (Poseidon); TreeD is binary SHA-256 */
    unsigned partitions;
    unsigned challenges;                                /* per partition */
    unsigned apex_leafs;                                /* per partition */
    unsigned challenge_bits, partition_bits, apex_bits; /* log2 of nodes, partitions, apex_leafs */
    unsigned hs[CZK_SNAP_HS];
    unsigned h_default;
    int registered_proof; /* RegisteredUpdateProof 0..4; -1: one of upstream's test sizes */
    const char *param_id; /* v28 parameter id (SHA-256 of the PublicParams identifier); NULL for
                             test sizes */
} czk_snap_shape;

#define CZK_SNAP_SHAPE_COUNT 11
/*
 * ALLOWED_SECTOR_SIZES in order: the test sizes 1KiB, 2KiB (also a
 * production size), 4KiB, 8KiB, 16KiB, 32KiB, then 8MiB, 16MiB (test),
 * 512MiB, 32GiB, 64GiB.
 */
extern const czk_snap_shape czk_snap_shapes[CZK_SNAP_SHAPE_COUNT];

/* The shape of a sector size in bytes (any of the 11), or NULL. */
const czk_snap_shape *czk_snap_shape_for_size(uint64_t sector_size);

/*
 * RegisteredUpdateProof id 0..4 (StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1;
 * Curio sends the same numbers, proofs-api version V1_1_0).
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED for another id (*out untouched).
 */
CZK_NODISCARD czk_status czk_snap_proof_lookup(uint64_t registered_proof,
                                               const czk_snap_shape **out, czk_err *err)
    CZK_NONNULL(2);

/*
 * The shape's trees: TreeR (Poseidon, its base-sub-top arities) and TreeD
 * (SHA-256, binary, challenge_bits levels); either may be NULL.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for a shape not of the table.
 */
CZK_NODISCARD czk_status czk_snap_trees(const czk_snap_shape *s, czk_por_tree *tree_r,
                                        czk_por_tree *tree_d, czk_err *err) CZK_NONNULL(1);

/*
 * h_select = 1 << (the position of h in hs) (constants.rs h_select).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "h <h> is not one of the sector
 *   size's hs" (*out untouched).
 */
CZK_NODISCARD czk_status czk_snap_h_select(const czk_snap_shape *s, unsigned h, uint64_t *out,
                                           czk_err *err) CZK_NONNULL(1, 3);

/* ---- public inputs and randomness ---- */

/* What the verifier of partition k knows. Commitments are 32-byte LE. */
typedef struct czk_snap_public {
    uint64_t k; /* the partition index */
    unsigned h; /* one of the shape's hs; Curio's is h_default */
    uint8_t comm_r_old[32];
    uint8_t comm_d_new[32]; /* TreeD root (SHA-256, top 2 bits clear) */
    uint8_t comm_r_new[32];
} czk_snap_public;

/*
 * circuit.rs PublicInputs::to_vec, ONE excluded: k_and_h_select = k |
 * h_select << partition_bits, comm_r_old, comm_d_new, comm_r_new.
 * Out: out[4].
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (k ≥ partitions, h not in hs);
 *   CZK_ERR_FR_RANGE naming the commitment that is not a canonical Fr.
 */
CZK_NODISCARD czk_status czk_snap_public_inputs(czk_fr out[4], const czk_snap_shape *s,
                                                const czk_snap_public *pub, czk_err *err)
    CZK_NONNULL(1, 2, 3);

/*
 * vanilla.rs phi = H(comm_d_new, comm_r_old) and rho(high) = H(phi, high),
 * H = Poseidon-2 of POSEIDON_CONSTANTS_GEN_RANDOMNESS.
 * Returns: CZK_OK; CZK_ERR_FR_RANGE (a commitment ≥ r); the Poseidon
 *   constants' errors.
 */
CZK_NODISCARD czk_status czk_snap_phi(czk_fr *phi, const uint8_t comm_d_new[32],
                                      const uint8_t comm_r_old[32], czk_err *err)
    CZK_NONNULL(1, 2, 3);
CZK_NODISCARD czk_status czk_snap_rho(czk_fr *rho, const czk_fr *phi, uint64_t high, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * challenges.rs Challenges::new(nodes, comm_r_new, k): the challenged
 * nodes of partition k, all in k's 1/partitions of the sector: digest j
 * (digest index k · digests + j) gives ⌊254/b⌋ challenges of b =
 * challenge_bits − partition_bits bits each, read LE from its bits, with k
 * above them.
 * Out: out[s->challenges].
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (k ≥ partitions); CZK_ERR_FR_RANGE
 *   (comm_r_new ≥ r).
 */
CZK_NODISCARD czk_status czk_snap_challenges(uint64_t *out, const czk_snap_shape *s,
                                             const uint8_t comm_r_new[32], uint64_t k, czk_err *err)
    CZK_NONNULL(1, 2, 3);

/* ---- vanilla proofs (bincode PartitionProof) ---- */

/* One ChallengeProof: the openings of the challenged node in the three trees. */
typedef struct czk_snap_challenge_proof {
    czk_por_proof r_old; /* TreeR old (sector key) */
    czk_por_proof d_new; /* TreeD new (the data) */
    czk_por_proof r_new; /* TreeR new (the updated replica) */
} czk_snap_challenge_proof;

/*
 * One parsed PartitionProof<TreeR> (vanilla.rs; spec §3): comm_c [u8; 32],
 * apex_leafs Vec<[u8; 32]>, challenge_proofs Vec<ChallengeProof>, each
 * {proof_r_old, proof_d_new, proof_r_new} a MerkleProof (czk_por_proof_read):
 * TreeR's variant for the two replica trees, Single of challenge_bits
 * levels of one sibling for TreeD.
 */
typedef struct czk_snap_vanilla {
    const czk_snap_shape *shape; /* the shape it was parsed against */
    uint8_t comm_c[32];
    unsigned apex_count;
    uint8_t (*apex_leafs)[32];
    unsigned challenges;
    czk_snap_challenge_proof *proofs;
} czk_snap_vanilla;

/*
 * Parses one partition's blob and checks it against the shape: the apex
 * leafs and challenge proofs the circuit takes (apex_leafs, challenges),
 * each MerkleProof of its tree, every 32-byte value a canonical Fr, nothing
 * after the end. Nothing is allocated before the blob is known to fit.
 * k only names the partition in errors: "SnapDeals partition 3: challenge
 * 17: proof_d_new: path[4].index is 2, the arity is 2".
 * Returns: CZK_OK; CZK_ERR_TRUNCATED; CZK_ERR_FORMAT; CZK_ERR_MISMATCH (a
 *   count or tree of another shape); CZK_ERR_FR_RANGE; CZK_ERR_NOMEM;
 *   CZK_ERR_INVALID_ARG (a shape not of the table). Free with
 *   czk_snap_vanilla_free.
 */
CZK_NODISCARD czk_status czk_snap_vanilla_parse(czk_snap_vanilla **out, const uint8_t *data,
                                                size_t len, const czk_snap_shape *s, uint64_t k,
                                                czk_err *err) CZK_NONNULL(1, 4);
void czk_snap_vanilla_free(czk_snap_vanilla *v);

/*
 * The pre-check of partition pub->k, before any GPU work, with every check
 * the circuit will make so that a bad partition is refused by name instead
 * of proving to a SNARK that fails verification (vanilla.rs
 * EmptySectorUpdate::verify and more):
 *   Poseidon-2(comm_c, root_r_old) = comm_r_old and Poseidon-2(comm_c,
 *   root_r_new) = comm_r_new, the roots being challenge 0's; then per
 *   challenge j, with c its challenged node (czk_snap_challenges):
 *   each of the three paths hashes from its leaf to its root and opens c,
 *   its roots are root_r_old, comm_d_new and root_r_new;
 *   leaf_r_new = leaf_r_old + leaf_d_new · rho(c >> (challenge_bits − h));
 *   the TreeD node at the apex-leaf row is the apex leaf
 *   (c >> (challenge_bits − partition_bits − apex_bits)) mod apex_leafs,
 *   and the TreeD path above the apex tree is challenge 0's;
 * and the apex tree's root, along challenge 0's partition path, is
 * comm_d_new.
 * Returns: CZK_OK; CZK_ERR_VERIFY "SnapDeals partition <k>: challenge <j>
 *   (node <c>): leaf_r_new is not leaf_r_old + leaf_d_new · rho" (or what
 *   else fails; partition-wide checks name no challenge);
 *   CZK_ERR_INVALID_ARG (k, h); CZK_ERR_FR_RANGE (a public commitment);
 *   CZK_ERR_MISMATCH (a vanilla proof parsed against another shape).
 */
CZK_NODISCARD czk_status czk_snap_precheck(const czk_snap_vanilla *v, const czk_snap_shape *s,
                                           const czk_snap_public *pub, czk_err *err)
    CZK_NONNULL(1, 2, 3);

/* ---- synthesis and counts ---- */

/*
 * Synthesizes partition pub->k's circuit into cs (any mode).
 * In:  pub, v  the public values and the partition's vanilla proof, both
 *              NULL for all-zero values (RECORD: the blank circuit; k = 0,
 *              h = h_default). The circuit derives every challenge from
 *              comm_r_new itself; v's paths give leaves and siblings, and
 *              root_r_old / root_r_new are challenge 0's roots.
 * Returns: the cs's status; CZK_ERR_INVALID_ARG (k, h, a shape not of the
 *   table, only one of pub and v), CZK_ERR_MISMATCH (v of another shape),
 *   CZK_ERR_FR_RANGE (a public commitment ≥ r). Every failure is also
 *   recorded in cs.
 */
CZK_NODISCARD czk_status czk_snap_synthesize(czk_cs *cs, const czk_snap_shape *s,
                                             const czk_snap_public *pub, const czk_snap_vanilla *v)
    CZK_NONNULL(1, 2);

/* A czk_circuit_fn: ctx is a czk_snap_circuit. */
typedef struct czk_snap_circuit {
    const czk_snap_shape *shape;
    const czk_snap_public *pub; /* may be NULL (with vanilla) */
    const czk_snap_vanilla *vanilla;
} czk_snap_circuit;
czk_status czk_snap_circuit_fn(czk_cs *cs, void *ctx);

/* Records the blank circuit's shape (RECORD mode, finalization included);
 * free with czk_shape_free. Returns: CZK_OK; czk_snap_synthesize's and
 * czk_cs_run's errors. */
CZK_NODISCARD czk_status czk_snap_record(czk_shape **out, const czk_snap_shape *s,
                                         const atomic_int *cancel, czk_err *err) CZK_NONNULL(1, 2);

/* The assignment of a partition (WITNESS mode); free with czk_witness_free.
 * Returns: as czk_snap_record. */
CZK_NODISCARD czk_status czk_snap_witness_generate(czk_witness *out, const czk_snap_shape *s,
                                                   const czk_snap_public *pub,
                                                   const czk_snap_vanilla *v,
                                                   const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2, 3, 4);

/*
 * The same into the caller's arrays (czk_cs_witness_into: the engine's
 * reused, page-locked witness buffers): buf->inputs and buf->aux must hold
 * the shape's counts.
 * Returns: as czk_snap_witness_generate; czk_cs_witness_into's errors
 *   (arrays too small).
 */
CZK_NODISCARD czk_status czk_snap_witness_generate_into(czk_witness *buf, const czk_snap_shape *s,
                                                        const czk_snap_public *pub,
                                                        const czk_snap_vanilla *v,
                                                        const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2, 3, 4);

/*
 * The counts of a partition's circuit without recording it whole: the
 * challenges are alike (each allocates its own variables and reads only
 * what came before the first), so the circuit is recorded once with the
 * bodies of its first two challenges (everything before them complete);
 * c2 are that shape's counts, c1 those of its prefix up to the end of the
 * first body (rows, aux and non-zeros counted, densities scanned), and the
 * result is czk_shape_counts_extrapolate(c1, c2, challenges − 1). A 32GiB
 * partition (81 M constraints) records 7.7 M: 3.5 s and 0.5 GiB here.
 * Tests hold it to whole recordings.
 * Returns: CZK_OK; czk_snap_record's errors.
 */
CZK_NODISCARD czk_status czk_snap_count(czk_shape_counts *out, const czk_snap_shape *s,
                                        czk_err *err) CZK_NONNULL(1, 2);

/* ---- keys and shapes on disk (src/snap/keys.c) ---- */

#define CZK_SNAP_KEY_NAME_MAX 160 /* a key file name without extension, NUL included */

/*
 * The two file names (without extension) of the keys of the update circuit
 * of a production size (registered_proof ≥ 0), the one place they are made:
 *   filecoin  the v28 ceremony name, "v28-empty-sector-update-merkletree-
 *             poseidon_hasher-<base>-<sub>-<top>-<param id>" (parameters.json;
 *             spec post-snap.md appendix), e.g. "v28-empty-sector-update-
 *             merkletree-poseidon_hasher-8-8-0-3b7f44a9…9d18" for 32GiB;
 *   test      czk's test keys (`czk setup --kind snap`, known toxic waste),
 *             "czk-test-v28-empty-sector-update-<base>-<sub>-<top>-<size>",
 *             e.g. "czk-test-v28-empty-sector-update-8-8-0-32GiB".
 * Out: filecoin, test (each may be NULL): CZK_SNAP_KEY_NAME_MAX bytes.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for one of upstream's test sizes (no
 *   parameter file exists for them; both names "").
 */
CZK_NODISCARD czk_status czk_snap_key_names(const czk_snap_shape *s,
                                            char filecoin[CZK_SNAP_KEY_NAME_MAX],
                                            char test[CZK_SNAP_KEY_NAME_MAX], czk_err *err)
    CZK_NONNULL(1);

/*
 * Finds the key file of the update circuit of `s` on the key search path
 * that starts at dir (czk_key_find): the Filecoin name + ext first, then
 * the test-key name + ext, in each directory.
 * Out: path (at most cap bytes with the NUL); found (may be NULL): which name.
 * Returns: CZK_OK; CZK_ERR_IO "no <ext> key for SnapDeals of 32GiB sectors
 *   in ... (looked for ...)"; CZK_ERR_INVALID_ARG (a test size, a path that
 *   does not fit).
 */
CZK_NODISCARD czk_status czk_snap_find_key(char *path, size_t cap, czk_key_kind *found,
                                           const char *dir, const czk_snap_shape *s,
                                           const char *ext, czk_err *err) CZK_NONNULL(1, 5, 6);

/*
 * The R1CS of a partition of `s` through the shape cache
 * (czk_shape_cache_load): <cache_dir>/snap-v28-<size>.shape, or recorded
 * (czk_snap_record, the blank circuit: the same for every partition) and
 * written there.
 * Args: cache_dir  NULL or "": record, neither read nor write a cache.
 * Out: *out (czk_shape_free); *recorded (may be NULL): true if recorded now.
 * Returns: CZK_OK; czk_snap_record's errors.
 */
CZK_NODISCARD czk_status czk_snap_shape_load_in(czk_shape **out, bool *recorded,
                                                const czk_snap_shape *s, const char *cache_dir,
                                                czk_err *err) CZK_NONNULL(1, 3);

#ifdef __cplusplus
}
#endif
#endif
