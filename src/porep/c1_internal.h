/*
 * Internal helpers shared by the C1 parser, writer, shape check and
 * pre-check (src/porep/c1*.c, precheck.c).
 */
#ifndef CZK_POREP_C1_INTERNAL_H
#define CZK_POREP_C1_INTERNAL_H

#include "czk/porep_c1.h"
#include "czk/porep_precheck.h"
#include "czk/porep_shapes.h"

/* The five VanillaSealProof variant keys, in czk_porep_shapes[] order. */
extern const char *const czk_c1_variant_names[CZK_POREP_SHAPE_COUNT];

/* The variant key of a shape ("StackedDrg32GiBV1"). */
const char *czk_c1_variant_name(const czk_porep_shape *shape);

/* True iff the 32 LE bytes are a canonical Fr (value < r). */
bool czk_domain_is_canonical(const czk_domain *d);
bool czk_domain_is_zero(const czk_domain *d);

/*
 * The levels of a TreeR/TreeC path of `shape`: base levels (arity
 * tree_base_arity), then one sub level and one top level where the shape
 * has them. levels[0..3] gets the count of each part; returns the kind.
 */
czk_merkle_kind czk_c1_tree_levels(const czk_porep_shape *shape, uint32_t levels[3]);

/*
 * Appends the JSON path of level `level` of merkle proof p, whose own path
 * is `prefix`, to out: "<prefix>.data.Sub.base_proof.path[3]".
 */
void czk_c1_level_path(char *out, size_t cap, const char *prefix, const czk_merkle_proof *p,
                       uint32_t level);

/*
 * Checks a parsed or built C1 against the shape of its registered proof:
 * partition and challenge counts, Merkle path kinds, level counts and
 * arities, rows and labeling counts, 37 parents. `variant` is the
 * vanilla_proofs key's shape index (0..4), or -1 to skip that check.
 * Returns: CZK_OK or CZK_ERR_FORMAT with the JSON path of the first mismatch.
 */
czk_status czk_c1_check_shape(const czk_c1 *c1, int variant, czk_err *err);

/*
 * czk_c1_precheck of a C1 already checked against its shape
 * (czk_c1_check_shape), whose registered proof is `proof`.
 */
czk_status czk_c1_precheck_resolved(const czk_c1 *c1, const czk_porep_proof *proof,
                                    const czk_precheck_opts *opts, czk_pool *pool, czk_err *err);

/*
 * The root that p's path gives for p's leaf: per level, the node inserted
 * among the siblings at its position, then SHA-256 of the pair with byte 31
 * &= 0x3f (sha: TreeD) or Poseidon of the level's arity (TreeR/TreeC).
 * Returns false if a value is ≥ r (Poseidon), an arity is unsupported, or a
 * position is not below its arity.
 */
bool czk_c1_merkle_root(const czk_merkle_proof *p, bool sha, czk_domain *out);

/* JSON path of proof (k, i): "vanilla_proofs.StackedDrg2KiBV1[k][i]". */
void czk_c1_proof_path(char *out, size_t cap, const czk_c1 *c1, uint32_t k, uint32_t i);

#endif
