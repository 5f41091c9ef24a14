/*
 * czk — the vanilla pre-check of a C1, and the public inputs of its
 * partitions.
 *
 * The pre-check runs before synthesis and refuses a C1 whose vanilla proofs
 * would not give a satisfiable circuit, naming the partition, the challenge
 * and the field. It re-does storage-proofs-porep's vanilla verification
 * (stacked/vanilla/params.rs Proof::verify, ReplicaColumnProof::verify,
 * column_proof.rs, labeling_proof.rs, encoding_proof.rs;
 * storage-proofs-core merkle/proof.rs) plus what the circuit takes from the
 * C1 beyond it (spec porep-circuit.md §3.1, §3.2):
 *
 *   - replica_id = SHA256(prover_id ‖ sector BE u64 ‖ ticket ‖ comm_d ‖
 *     porep_id), top 2 bits cleared (only when the sector number and miner
 *     id are given: the C1 does not carry them);
 *   - comm_c = the root of partition 0, challenge 0's c_x inclusion proof,
 *     comm_r_last = the root of its comm_r_last_proof, and
 *     comm_r = Poseidon2(comm_c, comm_r_last); every column proof's root is
 *     comm_c, every comm_r_last_proof's root is comm_r_last (the circuit of
 *     each partition takes both roots from its first challenge);
 *   - per partition k and challenge i, with c the i-th challenge of k as the
 *     chain derives it (czk_porep_challenges: from replica_id and seed,
 *     synthetic, or from comm_r for non-interactive PoRep):
 *       labeling_proofs[l].node = encoding_proof.node = c, layer_index = l + 1
 *         (encoding_proof: layers);
 *       comm_d_proofs: leaf index c, root comm_d, its SHA-256 path verifies
 *         (TreeD node = SHA256(left ‖ right), byte 31 &= 0x3f);
 *       comm_r_last_proof: leaf index c, its Poseidon path verifies (TreeR,
 *         arities base/sub/top of the shape);
 *       c_x: column.index = leaf index = c; drg_parents[j], exp_parents[j]:
 *         column.index = leaf index = parent j (6 + j) of c in the graph
 *         (czk_porep_graph_parents); each column's Poseidon hash (arity =
 *         layers) is its inclusion proof's leaf, and the path verifies;
 *       labeling_proofs[l].parents are the 37 parent labels the circuit uses:
 *         layer 1: the 6 DRG rows of layer 1, cycled; layer l > 1: the 6 DRG
 *         rows of layer l and the 8 expander rows of layer l − 1, cycled
 *         (params.rs Proof::from_parts); encoding_proof.parents are those of
 *         the last layer;
 *       the label SHA256(replica_id ‖ layer BE u32 ‖ c BE u64 ‖ 20 zero bytes
 *         ‖ 37 parents), byte 31 &= 0x3f (labeling_proof.rs create_label),
 *         equals c_x.column.rows[l];
 *       comm_r_last_proof.leaf = c_x.column.rows[layers − 1] + comm_d_proofs.leaf
 *         in Fr (encoding_proof.rs, encode()).
 * The shape (czk_c1_parse's checks) is checked again, for C1s built in
 * memory.
 *
 * Errors are deterministic: the challenges are checked in parallel, and the
 * failure of the lowest (partition, challenge) is reported.
 */
#ifndef CZK_POREP_PRECHECK_H
#define CZK_POREP_PRECHECK_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/pool.h"
#include "czk/porep_c1.h"
#include "czk/porep_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Builds the parent graph a C1's sector was sealed with: nodes of its
 * shape, porep_id and API version of its registered proof. Runs on pool
 * (NULL = this thread).
 * Returns: CZK_OK (*out set; free with czk_porep_graph_destroy);
 *   CZK_ERR_FORMAT (unknown registered proof); czk_porep_graph_create's errors.
 */
CZK_NODISCARD czk_status czk_c1_graph(czk_porep_graph **out, const czk_c1 *c1, czk_pool *pool,
                                      czk_err *err) CZK_NONNULL(1, 2);

typedef struct czk_precheck_opts {
    bool have_ids;       /* check replica_id against sector_num and miner_id */
    uint64_t sector_num; /* the sector number */
    uint64_t miner_id;   /* the miner actor id N of f0N (prover_id = LEB128(N)) */
    /* The C1's graph (czk_c1_graph), or NULL to build it here. */
    const czk_porep_graph *graph;
} czk_precheck_opts;

/*
 * Runs the pre-check above on `pool` (NULL = this thread), one task per
 * challenge.
 * In:  c1    a parsed (or built) C1.
 *      opts  may be NULL: no replica_id check, graph built here.
 * Returns: CZK_OK;
 *   CZK_ERR_FORMAT   the shape does not match the registered proof (JSON path);
 *   CZK_ERR_MISMATCH replica_id differs from the one recomputed from the
 *                    sector number and miner id;
 *   CZK_ERR_VERIFY   a vanilla proof is inconsistent: "partition K, challenge
 *                    I (node C): <field> <what>", e.g. "partition 0,
 *                    challenge 1 (node 37): drg_parents[3].inclusion_proof
 *                    does not verify against comm_c";
 *   CZK_ERR_NOMEM, or the graph's errors.
 */
CZK_NODISCARD czk_status czk_c1_precheck(const czk_c1 *c1, const czk_precheck_opts *opts,
                                         czk_pool *pool, czk_err *err) CZK_NONNULL(1);

/*
 * Public inputs of one partition, ONE excluded: 3 + 18 · challenges per
 * partition (czk_porep_num_inputs − 1); 0 for an unknown registered proof.
 */
uint32_t czk_c1_num_public_inputs(const czk_c1 *c1) CZK_NONNULL(1);

/*
 * The public inputs of partition k in StackedCompound::generate_public_inputs
 * order (spec porep-circuit.md §2), derived as the chain derives them, not
 * read from the vanilla proofs: replica_id, comm_d, comm_r (each the Fr of
 * its 32 LE bytes), then for each challenge c of partition k
 * (czk_porep_challenges): c (TreeD path index), its 6 DRG parents, its 8
 * expander parents (TreeC path indices, from the graph), c (the UInt64
 * challenge), c (TreeR path index), c (TreeC path index of c_x), each
 * Fr::from(u64). Input 0 of the circuit, ONE, is not included: out[j] is
 * circuit input j + 1, and out is the verifier's input slice (ic[1..]).
 * It derives the challenges from the C1's kind, replica_id, seed and comm_r
 * and hands them to the circuit layer's czk_porep_public_inputs_graph
 * (porep_circuit.h), which packs the values.
 * In:  graph  the C1's graph (czk_c1_graph), or NULL to build it here.
 * Out: out    czk_c1_num_public_inputs(c1) values (Montgomery form).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (k ≥ partitions); CZK_ERR_FORMAT
 *   (unknown registered proof); CZK_ERR_FR_RANGE (replica_id, comm_d or
 *   comm_r ≥ r); CZK_ERR_MISMATCH (graph of another size); CZK_ERR_NOMEM;
 *   czk_porep_public_inputs_graph's errors.
 */
CZK_NODISCARD czk_status czk_c1_public_inputs(czk_fr *out, const czk_c1 *c1,
                                              const czk_porep_graph *graph, unsigned k,
                                              czk_err *err) CZK_NONNULL(1, 2);

#ifdef __cplusplus
}
#endif
#endif
