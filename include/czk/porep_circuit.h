/*
 * czk — the StackedDRG PoRep circuit of one partition (rust-fil-proofs v28
 * storage-proofs-porep stacked/circuit/proof.rs StackedCircuit::synthesize
 * and params.rs Proof::synthesize; spec/porep-circuit.md §3), and its public
 * inputs (StackedCompound::generate_public_inputs; spec §2).
 *
 * The circuit is written once against the r1cs API and runs in every mode:
 * RECORD (the shape, with no witness: all values zero, as bellperson's blank
 * circuit), WITNESS (the assignment of a partition) and CHECK. It emits the
 * same R1CS as rust-fil-proofs, allocation for allocation and constraint for
 * constraint (counts, spec §1):
 *
 *   top level (571 constraints, 571 aux, 3 inputs):
 *     replica_id: alloc, inputize, to_bits_le (255 bits), reverse_bit_numbering
 *     comm_d: alloc, inputize; comm_r: alloc, inputize
 *     comm_r_last: alloc; comm_c: alloc
 *     comm_r · ONE = Poseidon2(comm_c, comm_r_last)
 *   per challenge ("challenge_<i>", 18 inputs):
 *     data_leaf: alloc; PoR (SHA-256, TreeD) of data_leaf into comm_d
 *     6 DRG then 8 expander parent columns: L rows alloc, Poseidon-L hash,
 *       PoR (Poseidon, TreeC) of the hash into comm_c
 *     challenge: 64 bits (UInt64), packed into one input
 *     labels, layer 1..L: each DRG row (layer l) and, from layer 2, each
 *       expander row (layer l − 1) decomposed (to_bits_le, bit-reversed per
 *       byte); 37 parents (layer 1: the 6 six times, then the first;
 *       later: the 14 twice, then the first 9); create_label
 *     encode: enc = label_L + data_leaf; PoR (TreeR) of enc into comm_r_last
 *     column hash Poseidon-L(labels); PoR (TreeC) of it into comm_c
 * After the circuit czk_cs_run() adds one input·0 = 0 per input.
 *
 * Every configuration upstream can build is accepted, so that rust-fil-proofs'
 * own test circuits can be recorded as well as the five sector sizes.
 */
#ifndef CZK_POREP_CIRCUIT_H
#define CZK_POREP_CIRCUIT_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/gadgets.h"
#include "czk/por.h"
#include "czk/porep_graph.h"
#include "czk/porep_shapes.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parents per node: 6 DRG (BASE_DEGREE) then 8 expander (EXP_DEGREE). */
#define CZK_POREP_CIRCUIT_PARENTS 14u
/* Public inputs per challenge, and before the challenges (ONE excluded). */
#define CZK_POREP_INPUTS_PER_CHALLENGE 18u
#define CZK_POREP_INPUTS_TOP 3u

/*
 * The circuit's configuration.
 *   nodes       sector nodes (sector size / 32), a power of two ≥ 2;
 *               TreeD is a binary SHA-256 tree over them.
 *   layers      L ≥ 2; the column hash is Poseidon of arity L (upstream uses
 *               2 and 11; any arity czk_poseidon_arity_supported() accepts).
 *   challenges  challenges synthesized: the partition's challenge count for
 *               the real circuit; fewer (even 0) to record parts of it, e.g.
 *               the top level plus one challenge of a 32GiB partition.
 *   base/sub/top_arity  TreeC/TreeR shape (8-0-0, 8-8-0, 8-8-2 in Filecoin;
 *               see czk_por_tree_for_leaves).
 */
typedef struct czk_porep_config {
    uint64_t nodes;
    unsigned layers;
    unsigned challenges;
    unsigned base_arity, sub_arity, top_arity;
} czk_porep_config;

/* The configuration of one partition of a sector shape (challenges =
 * shape->challenges_per_partition). */
void czk_porep_config_for_shape(czk_porep_config *out, const czk_porep_shape *shape)
    CZK_NONNULL(1, 2);

/* The configuration of one partition of a registered proof: its shape's, with the
 * proof's challenges per partition (interactive or non-interactive). */
void czk_porep_config_for_proof(czk_porep_config *out, const czk_porep_proof *proof)
    CZK_NONNULL(1, 2);

/*
 * Checks a configuration and derives its trees: TreeD (SHA-256, binary,
 * log2(nodes) levels) and TreeC/TreeR (Poseidon, the configured arities).
 * tree_d / tree_rc may be NULL.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG naming the bad field.
 */
CZK_NODISCARD czk_status czk_porep_config_check(const czk_porep_config *cfg, czk_por_tree *tree_d,
                                                czk_por_tree *tree_rc, czk_err *err) CZK_NONNULL(1);

/* Inputs of the circuit, ONE included: 1 + 3 + 18·challenges. */
uint32_t czk_porep_num_inputs(const czk_porep_config *cfg) CZK_NONNULL(1);

/* ---- the witness of one partition ---- */

/*
 * One Merkle inclusion path, as the vanilla proof's PathElements give it:
 * for each level from the leaf up, the node's position among its siblings
 * (`index`, < arity) and the arity − 1 sibling hashes (`hashes`, in order),
 * each a 32-byte little-endian Domain value (a canonical Fr).
 */
typedef struct czk_porep_path {
    uint32_t *positions; /* levels entries */
    uint8_t *siblings;   /* 32 · Σ(arity − 1) bytes, level by level */
} czk_porep_path;

/* One parent column proof (ColumnProof): the rows and the TreeC path. */
typedef struct czk_porep_column {
    uint8_t *rows;       /* 32 · layers bytes: the node's labels in layers 1..L */
    czk_porep_path path; /* TreeC (comm_c) path of the column hash */
} czk_porep_column;

/* What the circuit reads of one vanilla Proof (spec §3.2, §6). */
typedef struct czk_porep_challenge_proof {
    uint64_t challenge;              /* labeling_proofs[0].node */
    uint8_t data_leaf[32];           /* comm_d_proofs.leaf */
    czk_porep_path comm_d_path;      /* comm_d_proofs path (TreeD) */
    czk_porep_column drg_parents[6]; /* replica_column_proofs.drg_parents */
    czk_porep_column exp_parents[8]; /* replica_column_proofs.exp_parents */
    czk_porep_path comm_r_last_path; /* comm_r_last_proof path (TreeR) */
    czk_porep_path comm_c_path;      /* replica_column_proofs.c_x.inclusion_proof path */
} czk_porep_challenge_proof;

/*
 * The witness of one partition. comm_r_last and comm_c are the roots of
 * vanilla proof [0]'s comm_r_last_proof and c_x inclusion proof. All 32-byte
 * values are little-endian canonical Fr (Domain) bytes; the circuit refuses
 * a value ≥ r with CZK_ERR_FR_RANGE.
 */
typedef struct czk_porep_witness {
    czk_porep_config config;
    uint8_t replica_id[32];
    uint8_t comm_d[32];
    uint8_t comm_r[32];
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
    czk_porep_challenge_proof *challenges; /* config.challenges entries */
} czk_porep_witness;

/*
 * Allocates a zeroed witness for `cfg` in one block: every array of every
 * path and column is sized for the configuration and ready to be filled
 * (levels and siblings from czk_porep_config_check's trees). Free with
 * czk_porep_witness_free.
 *
 * The circuit only reads through the pointers, so a filler may instead
 * point them at memory it owns (e.g. a parsed C1, whose 32-byte Domain
 * arrays and u32 path indices have exactly this layout) as long as that
 * memory outlives the synthesis.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (bad configuration); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_porep_witness_alloc(czk_porep_witness **out,
                                                 const czk_porep_config *cfg, czk_err *err)
    CZK_NONNULL(1, 2);
void czk_porep_witness_free(czk_porep_witness *w);

/* ---- synthesis ---- */

/*
 * Synthesizes the circuit into cs (the body that czk_cs_run() calls).
 * In:  cfg      the configuration (checked).
 *      w        the witness, or NULL for all-zero values (RECORD; a "blank"
 *               witness). If given, w->config must equal *cfg.
 * Returns: the cs's status; CZK_ERR_INVALID_ARG (configuration, a path
 *          position ≥ its arity), CZK_ERR_MISMATCH (w->config differs),
 *          CZK_ERR_FR_RANGE (a 32-byte value ≥ r, named), or a gadget's or
 *          the cs's failure. Every failure is also recorded in cs.
 */
CZK_NODISCARD czk_status czk_porep_synthesize(czk_cs *cs, const czk_porep_config *cfg,
                                              const czk_porep_witness *w) CZK_NONNULL(1, 2);

/* A czk_circuit_fn: ctx is a czk_porep_circuit. */
typedef struct czk_porep_circuit {
    const czk_porep_config *config;
    const czk_porep_witness *witness; /* may be NULL */
} czk_porep_circuit;
czk_status czk_porep_circuit_fn(czk_cs *cs, void *ctx);

/*
 * Records the shape of cfg's circuit (RECORD mode, finalization included).
 * `cancel` may be NULL. Free the result with czk_shape_free.
 * Returns: CZK_OK; the errors of czk_porep_synthesize and czk_cs_run.
 */
CZK_NODISCARD czk_status czk_porep_record(czk_shape **out, const czk_porep_config *cfg,
                                          const atomic_int *cancel, czk_err *err) CZK_NONNULL(1, 2);

/*
 * The assignment of one partition (WITNESS mode; w NULL = blank). Free with
 * czk_witness_free.
 * Returns: as czk_porep_record.
 */
CZK_NODISCARD czk_status czk_porep_witness_generate(czk_witness *out, const czk_porep_config *cfg,
                                                    const czk_porep_witness *w,
                                                    const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * The same assignment written into the caller's buffers (so that one pair
 * of arrays serves partition after partition: no allocation, no page
 * faults; czk_cs_set_witness_buffers).
 * In:  buf->inputs, buf->aux  the arrays; buf->num_inputs, buf->num_aux
 *      their capacities in values (at least czk_porep_num_inputs(cfg) and
 *      the shape's aux count).
 * Out: buf->num_inputs, buf->num_aux  the witness's counts (the pointers
 *      stay); unchanged on failure. The caller keeps owning the arrays:
 *      never pass buf to czk_witness_free.
 * Returns: as czk_porep_witness_generate; CZK_ERR_INVALID_ARG "witness
 *   buffers too small: the circuit has I inputs and A aux, the buffers hold
 *   X and Y" when a capacity is short (nothing is written past the arrays).
 */
CZK_NODISCARD czk_status czk_porep_witness_generate_into(czk_witness *buf,
                                                         const czk_porep_config *cfg,
                                                         const czk_porep_witness *w,
                                                         const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);

/* ---- public inputs ---- */

/*
 * The public inputs of one partition in StackedCompound::generate_public_inputs
 * order (spec §2), input 0 (ONE) excluded: replica_id, comm_d, comm_r, then
 * per challenge c: c (TreeD path), the 6 DRG parents, the 8 expander parents
 * (TreeC paths), c (UInt64), c (TreeR path), c (TreeC path), each as
 * Fr::from(u64). That is 3 + 18·cfg->challenges values, equal to the
 * circuit's inputs 1.. for a valid witness.
 * In:  replica_id, comm_d, comm_r  32-byte LE canonical Fr values;
 *      challenges  cfg->challenges node indices (czk_porep_challenges);
 *      parents     14·cfg->challenges entries: per challenge its 14 parents
 *                  in cache order (6 DRG, then 8 expander;
 *                  czk_porep_graph_parents).
 * Out: out         3 + 18·cfg->challenges values.
 * Returns: CZK_OK; CZK_ERR_FR_RANGE (a value ≥ r); CZK_ERR_INVALID_ARG (a
 *          bad configuration, a challenge or parent ≥ nodes).
 */
CZK_NODISCARD czk_status czk_porep_public_inputs(czk_fr *out, const czk_porep_config *cfg,
                                                 const uint8_t replica_id[32],
                                                 const uint8_t comm_d[32], const uint8_t comm_r[32],
                                                 const uint64_t *challenges,
                                                 const uint32_t *parents, czk_err *err)
    CZK_NONNULL(1, 2, 3, 4, 5);

/*
 * The same, with each challenge's parents taken from `graph` (as upstream
 * does). graph must have cfg->nodes nodes.
 * Returns: as czk_porep_public_inputs; CZK_ERR_MISMATCH for a graph of
 *          another size; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_porep_public_inputs_graph(
    czk_fr *out, const czk_porep_config *cfg, const czk_porep_graph *graph,
    const uint8_t replica_id[32], const uint8_t comm_d[32], const uint8_t comm_r[32],
    const uint64_t *challenges, czk_err *err) CZK_NONNULL(1, 2, 3, 4, 5, 6);

/* The PoRep label's total parents (6 DRG + 8 expander, expanded to 37). */
#define CZK_LABEL_PARENTS 37u

/*
 * storage-proofs-porep create_label_circuit (spec §3.2 step 6, §4.6): the
 * message replica_id (padded with Constant(false) to 256 bits) ‖
 * layer.into_bits_be() ‖ node bits, most significant first ‖ Constant(false)
 * to 512 bits ‖ each parent (padded with Constant(false) to 256 bits), 9,984
 * bits in all; SHA-256 over it (20 blocks); the digest bit-reversed per byte,
 * the first 254 bits packed (pack_bits): the label.
 * In:  replica_id[id_bits], 32 ≤ id_bits ≤ 256;
 *      layer: a UInt32 (constant in PoRep);
 *      node_le[64]: the node as UInt64 bits, least significant first;
 *      parents[37]: each parent_bits ≤ 256 bits (in PoRep:
 *      reverse_bit_numbering(to_bits_le(row)), 256 bits).
 * Out: out: the label.
 * Returns: the cs's status; CZK_ERR_INVALID_ARG for bad lengths.
 */
CZK_NODISCARD czk_status czk_create_label(czk_cs *cs, const czk_bool *replica_id, size_t id_bits,
                                          const czk_u32 *layer, const czk_bool node_le[64],
                                          const czk_bool *const parents[CZK_LABEL_PARENTS],
                                          size_t parent_bits, czk_num *out)
    CZK_NONNULL(1, 2, 4, 5, 6, 8);

#ifdef __cplusplus
}
#endif
#endif
