/*
 * czk — R1CS gadgets with bellperson-exact constraint systems: Boolean,
 * UInt32 with MultiEq, SHA-256, AllocatedNum, multipack, insertion, and the
 * two SHA-256 compositions of Filecoin's PoRep (TreeD node, label).
 *
 * Every gadget emits, for the same inputs, exactly the R1CS that bellperson
 * 0.27 (bellpepper-core / bellpepper gadgets) and rust-fil-proofs v28 emit:
 * the same aux and input allocations in the same order, the same constraints
 * in the same order, the same coefficients after merging. Sources:
 * spec/porep-circuit.md §4.1–4.7 and the upstream files named at each
 * declaration (lurk-lab/bellpepper crates/bellpepper-core/src/gadgets/
 * {boolean,num}.rs, crates/bellpepper/src/gadgets/{uint32,multieq,sha256,
 * multipack}.rs; filecoin-project/rust-fil-proofs storage-proofs-core/src/
 * gadgets/{insertion,constraint,uint64}.rs, util.rs, filecoin-hashers/src/
 * sha256.rs, storage-proofs-porep/src/stacked/circuit/create_label.rs).
 *
 * Modes (include/czk/r1cs.h). In RECORD and CHECK modes the gadgets build
 * linear combinations and enforce them. In WITNESS mode (czk_cs_records()
 * false) they build none and call no czk_cs_enforce(): they compute the values
 * natively and only allocate the aux (and input) values, in the order the
 * R1CS has them; czk_cs_num_aux() and czk_cs_num_inputs() equal the recorded
 * shape's, czk_cs_num_constraints() does not count the gadgets' constraints.
 * The SHA-256 gadget then runs the compression on 32-bit words (values,
 * constant and negation masks), not bit by bit.
 *
 * Values. The cs stores only the assignment, so every gadget object carries
 * its own value (bool, u32, Fr). In RECORD mode values are meaningless
 * (computed from zeros) except for constants, which are exact in every mode:
 * constant folding depends only on which bits are constants and their values,
 * never on witness values, so all three modes produce the same structure.
 *
 * Errors. Gadgets record failures in the cs (sticky, czk_cs_fail): a bad
 * argument is CZK_ERR_INVALID_ARG / CZK_ERR_UNSUPPORTED naming the gadget; out
 * of memory is CZK_ERR_NOMEM. Functions returning czk_status return the cs's
 * status after the call; the others return a well-formed (constant false /
 * zero) result after a failure. czk_cs_run() returns the first failure.
 * After a failure the cs ignores further work, so circuit code may check
 * once at the end.
 *
 * Namespaces (CHECK-mode error reports) pushed by the gadgets: "boolean",
 * "xor", "and", "and_not", "nor", "ch", "maj" (one constraint each),
 * "multieq <k>", "w extension <i>", "compression round <i>", "new h<i>",
 * "block <i>", "unpacking", "packing", "pick", "inputize", "equal", "add".
 */
#ifndef CZK_GADGETS_H
#define CZK_GADGETS_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fr::NUM_BITS and Fr::CAPACITY of BLS12-381's scalar field. */
#define CZK_FR_NUM_BITS 255u
#define CZK_FR_CAPACITY 254u

/* ------------------------------------------------------------------------ */
/* Boolean (bellpepper-core gadgets/boolean.rs; spec §4.1)                   */
/* ------------------------------------------------------------------------ */

typedef enum czk_bool_kind {
    CZK_BOOL_CONST = 0, /* Boolean::Constant(value) */
    CZK_BOOL_IS = 1,    /* Boolean::Is(var): the value is var's */
    CZK_BOOL_NOT = 2,   /* Boolean::Not(var): the value is 1 − var's */
} czk_bool_kind;

/*
 * A Boolean: a constant, or an AllocatedBit `var` seen as is or negated.
 * `value` is the Boolean's own value (for NOT, the negation of var's value);
 * exact for CONST in every mode, for IS/NOT when the cs has values.
 * lc(Constant true) = ONE, lc(Constant false) = 0, lc(Is v) = v,
 * lc(Not v) = ONE − v.
 */
typedef struct czk_bool {
    czk_var var;   /* IS / NOT: the AllocatedBit; CONST: 0 */
    uint8_t kind;  /* czk_bool_kind */
    uint8_t value; /* 0 or 1 */
    uint16_t reserved;
} czk_bool;

/* Boolean::constant(b). No allocation, no constraint. */
static inline czk_bool czk_bool_constant(bool b) {
    czk_bool r = {0, CZK_BOOL_CONST, (uint8_t)b, 0};
    return r;
}

/* Boolean::not: Constant(b) -> Constant(!b), Is(v) <-> Not(v). No constraint. */
static inline czk_bool czk_bool_not(czk_bool a) {
    if (a.kind == CZK_BOOL_IS)
        a.kind = CZK_BOOL_NOT;
    else if (a.kind == CZK_BOOL_NOT)
        a.kind = CZK_BOOL_IS;
    a.value ^= 1;
    return a;
}

/* Whether a is a Constant (its value then exact in every mode). */
static inline bool czk_bool_is_constant(czk_bool a) {
    return a.kind == CZK_BOOL_CONST;
}

/*
 * lc += coeff·lc(b) (coeff NULL = 1; Boolean::lc). A no-op for
 * Constant(false). Failures (CZK_ERR_NOMEM) are sticky in cs.
 */
void czk_bool_lc(czk_cs *cs, czk_lc *lc, czk_bool b, const czk_fr *coeff) CZK_NONNULL(1, 2);

/*
 * AllocatedBit::alloc: one aux with value (0/1), then (ONE − v)·v = 0.
 * Returns: Is(v) (Is(ONE) once the cs has failed: czk_cs_alloc).
 */
czk_bool czk_bit_alloc(czk_cs *cs, bool value) CZK_NONNULL(1);

/*
 * AllocatedBit::and / nor: a new aux c, then a·b = c, resp.
 * (ONE − a)·(ONE − b) = c. a and b must be Is (allocated, not negated), as in
 * storage-proofs insert_8.
 * Returns: Is(c); Constant(false) with CZK_ERR_INVALID_ARG "AllocatedBit::and
 *   (nor): operands must be allocated and not negated" recorded in cs
 *   otherwise.
 */
czk_bool czk_bit_and(czk_cs *cs, czk_bool a, czk_bool b) CZK_NONNULL(1);
czk_bool czk_bit_nor(czk_cs *cs, czk_bool a, czk_bool b) CZK_NONNULL(1);

/*
 * Boolean::xor / and / or with constant folding (spec §4.1):
 *   xor: a Constant(false) operand returns the other; Constant(true) returns
 *        NOT of the other; Is with Not: AllocatedBit::xor(is, not's var) as
 *        Not; both Is or both Not: AllocatedBit::xor(a, b) as Is, whose
 *        constraint is (2a)·b = a + b − c.
 *   and: false -> Constant(false); true -> the other; Is∧Not ->
 *        and_not(is, not) (a·(ONE − b) = c); Not∧Not -> nor; Is∧Is -> and.
 *   or:  not(and(not a, not b)).
 * Each allocation is followed by its one constraint.
 * Returns: the result Boolean (constant where folded); failures sticky in cs.
 */
czk_bool czk_bool_xor(czk_cs *cs, czk_bool a, czk_bool b) CZK_NONNULL(1);
czk_bool czk_bool_and(czk_cs *cs, czk_bool a, czk_bool b) CZK_NONNULL(1);
czk_bool czk_bool_or(czk_cs *cs, czk_bool a, czk_bool b) CZK_NONNULL(1);

/*
 * Boolean::sha256_ch (a∧b ⊕ ¬a∧c) and Boolean::sha256_maj (a∧b ⊕ a∧c ⊕ b∧c),
 * with bellpepper's case analysis in its exact order (spec §4.1). General
 * case: ch allocates ch, then (lc b − lc c)·(lc a) = ch − lc c; maj allocates
 * maj, then bc = and(b, c), then (2·lc bc − lc b − lc c)·(lc a) = lc bc − maj.
 * Returns: the result Boolean (constant where folded); failures sticky in cs.
 */
czk_bool czk_bool_sha256_ch(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c) CZK_NONNULL(1);
czk_bool czk_bool_sha256_maj(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c) CZK_NONNULL(1);

/*
 * n ≤ 64 allocated bits of `value`, least significant first (bellpepper
 * u64_into_boolean_vec_le for n = 64; storage-proofs UInt64::alloc). The
 * PoRep challenge (UInt64) is these 64 bits; its pack_into_input is
 * czk_pack_into_inputs(cs, bits, 64) (1 input, 1 constraint), its to_bits_be
 * the bits reversed. Out: out[n], each Is.
 * n > 64: CZK_ERR_INVALID_ARG recorded in cs and out[n] all Constant(false).
 */
void czk_bits_alloc_u64_le(czk_cs *cs, uint64_t value, unsigned n, czk_bool *out) CZK_NONNULL(1, 4);

/*
 * 8·len allocated bits of `bytes`, byte by byte; within a byte most
 * significant bit first when msb_first (storage-proofs util
 * bytes_into_boolean_vec_be), else least significant first
 * (bytes_into_boolean_vec). bytes may be NULL in RECORD mode (zeros).
 * Out: out[8·len], each Is.
 */
void czk_bits_alloc_bytes(czk_cs *cs, const uint8_t *bytes, size_t len, bool msb_first,
                          czk_bool *out) CZK_NONNULL(1, 5);

/* ------------------------------------------------------------------------ */
/* UInt32 and MultiEq (bellpepper gadgets/uint32.rs, multieq.rs; spec §4.4)  */
/* ------------------------------------------------------------------------ */

/* 32 Booleans, least significant first, and the word's value. */
typedef struct czk_u32 {
    czk_bool bits[32];
    uint32_t value;
} czk_u32;

/*
 * UInt32 construction and rewiring (bellpepper gadgets/uint32.rs). None
 * fails except through the Boolean operations, whose failures are sticky
 * in cs.
 * czk_u32_constant: UInt32::constant, 32 constant bits.
 */
void czk_u32_constant(czk_u32 *out, uint32_t value) CZK_NONNULL(1);
/* UInt32::alloc: 32 AllocatedBits, least significant first. */
void czk_u32_alloc(czk_cs *cs, czk_u32 *out, uint32_t value) CZK_NONNULL(1, 2);
/* UInt32::from_bits_be / into_bits_be: bits[0] is the most significant. */
void czk_u32_from_bits_be(czk_u32 *out, const czk_bool bits[32]) CZK_NONNULL(1, 2);
void czk_u32_to_bits_be(const czk_u32 *x, czk_bool bits[32]) CZK_NONNULL(1, 2);
/* Rewiring only: rotate right; shift right filling with Constant(false); by is taken mod 32. */
void czk_u32_rotr(czk_u32 *out, const czk_u32 *x, unsigned by) CZK_NONNULL(1, 2);
void czk_u32_shr(czk_u32 *out, const czk_u32 *x, unsigned by) CZK_NONNULL(1, 2);
/* Bitwise Boolean::xor, sha256_ch, sha256_maj, bit 0 first. out may alias. */
void czk_u32_xor(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b)
    CZK_NONNULL(1, 2, 3, 4);
void czk_u32_sha256_ch(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
                       const czk_u32 *c) CZK_NONNULL(1, 2, 3, 4, 5);
void czk_u32_sha256_maj(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
                        const czk_u32 *c) CZK_NONNULL(1, 2, 3, 4, 5);

/*
 * MultiEq: batches equalities lhs = rhs of num_bits-bit quantities into one
 * constraint lhs_acc·ONE = rhs_acc, each new pair scaled by 2^bits_used.
 * Before a pair is added, if 254 ≤ bits_used + num_bits, the accumulation is
 * emitted first. czk_multieq_finish() emits what remains (bellperson's Drop)
 * and frees the storage. Initialise with CZK_MULTIEQ_INIT. In WITNESS mode
 * nothing is accumulated or emitted.
 */
typedef struct czk_multieq {
    czk_lc lhs, rhs, one;
    uint32_t bits_used;
    uint32_t ops; /* constraints emitted so far (namespace "multieq <ops>") */
} czk_multieq;

#define CZK_MULTIEQ_INIT                                                                           \
    { CZK_LC_INIT, CZK_LC_INIT, CZK_LC_INIT, 0, 0 }

/*
 * czk_multieq_enforce_equal: num_bits in 1..253 (else CZK_ERR_INVALID_ARG
 * recorded in cs). The lcs are copied (scaled); the callers' stay theirs.
 * czk_multieq_finish: after the last pair; m is empty and reusable
 * afterwards. Failures (CZK_ERR_NOMEM) are sticky in cs.
 */
void czk_multieq_enforce_equal(czk_cs *cs, czk_multieq *m, unsigned num_bits, const czk_lc *lhs,
                               const czk_lc *rhs) CZK_NONNULL(1, 2, 4, 5);
void czk_multieq_finish(czk_cs *cs, czk_multieq *m) CZK_NONNULL(1, 2);

/*
 * UInt32::addmany: the sum of n operands mod 2^32, 2 ≤ n ≤ 10.
 * If every operand bit is a constant: a constant result, nothing emitted.
 * Otherwise k = bitlen(n·(2^32 − 1)) result bits (33 for n = 2, 34 for 3–4,
 * 35 for 5–8, 36 for 9–10) are allocated, each with its boolean constraint,
 * holding the bits of the full sum; then
 * czk_multieq_enforce_equal(k, Σ_ops Σ_i 2^i·lc(bit_i), Σ_i 2^i·r_i).
 * The first 32 bits are the result. out may alias an operand.
 * n outside 2..10: CZK_ERR_INVALID_ARG "UInt32::addmany: N operands, must be
 * 2..10" recorded in cs and out the constant 0.
 */
void czk_u32_addmany(czk_cs *cs, czk_multieq *m, const czk_u32 *ops, unsigned n, czk_u32 *out)
    CZK_NONNULL(1, 2, 3, 5);

/* ------------------------------------------------------------------------ */
/* SHA-256 (bellpepper gadgets/sha256.rs; spec §4.5)                         */
/* ------------------------------------------------------------------------ */

/* The SHA-256 initial hash value H0..H7 (FIPS 180-4 §5.3.3). */
extern const uint32_t czk_sha256_iv[8];

/*
 * sha256_compression_function: w[0..16] from the 512 input bits (each 32-bit
 * chunk most significant bit first), the 48 message-schedule additions, 64
 * rounds with the deferred additions of a and e, the 8 final additions, and
 * one MultiEq over the whole compression, flushed after h7 (spec §4.5).
 * In WITNESS mode the words are processed 32 bits at a time.
 * In:  in[512], state[8] (e.g. the constant IV or a previous output).
 * Out: out[8] (may alias state). Failures are sticky in cs.
 */
void czk_sha256_compression(czk_cs *cs, const czk_bool in[512], const czk_u32 state[8],
                            czk_u32 out[8]) CZK_NONNULL(1, 2, 3, 4);

/*
 * sha256: pads the message (Constant(true), Constant(false)s to 448 mod 512,
 * the 64-bit big-endian bit length as constants), then one compression per
 * 512-bit block from the constant IV (namespace "block <i>").
 * In:  in[nbits], nbits a multiple of 8 (else CZK_ERR_INVALID_ARG).
 * Out: out[256]: the digest's bytes in order, each most significant bit
 *      first (UInt32::into_bits_be of H0..H7).
 * Returns: the cs's status (CZK_ERR_INVALID_ARG "sha256: N input bits, not a
 *   whole number of bytes").
 */
CZK_NODISCARD czk_status czk_sha256(czk_cs *cs, const czk_bool *in, size_t nbits, czk_bool out[256])
    CZK_NONNULL(1, 4);

/*
 * sha256_block_no_padding: one compression of in[512] from the constant IV.
 * Out: out[256] as czk_sha256's. Failures are sticky in cs.
 */
void czk_sha256_block_no_padding(czk_cs *cs, const czk_bool in[512], czk_bool out[256])
    CZK_NONNULL(1, 2, 3);

/* ------------------------------------------------------------------------ */
/* AllocatedNum (bellpepper-core gadgets/num.rs; storage-proofs              */
/* constraint.rs; spec §4.2)                                                 */
/* ------------------------------------------------------------------------ */

/* A variable (aux or input) with its value. */
typedef struct czk_num {
    czk_var var;
    czk_fr value;
} czk_num;

/*
 * AllocatedNum::alloc / alloc_input: one aux / input, no constraint.
 * Returns: the num (value NULL = zero; czk_cs_alloc's CZK_VAR_ONE once the
 *   cs has failed).
 */
czk_num czk_num_alloc(czk_cs *cs, const czk_fr *value) CZK_NONNULL(1);
czk_num czk_num_alloc_input(czk_cs *cs, const czk_fr *value) CZK_NONNULL(1);

/* AllocatedNum::inputize: a new input j, then j·ONE = x. Returns: j. */
czk_var czk_num_inputize(czk_cs *cs, const czk_num *x) CZK_NONNULL(1, 2);

/*
 * AllocatedNum::to_bits_le (non-strict): 255 AllocatedBits of x's canonical
 * value, least significant first, each with its boolean constraint; then the
 * unpacking constraint 0·0 = Σ 2^i·bit_i − x (everything in C).
 * Out: out[255], each Is. Returns: the cs's status.
 */
CZK_NODISCARD czk_status czk_num_to_bits_le(czk_cs *cs, const czk_num *x,
                                            czk_bool out[CZK_FR_NUM_BITS]) CZK_NONNULL(1, 2, 3);

/* storage-proofs constraint::equal: a·ONE = b. Failures are sticky in cs. */
void czk_num_equal(czk_cs *cs, const czk_num *a, const czk_num *b) CZK_NONNULL(1, 2, 3);

/*
 * storage-proofs constraint::add (PoRep encode): alloc s = a + b, then
 * (a + b)·ONE = s. Returns: s.
 */
czk_num czk_num_add(czk_cs *cs, const czk_num *a, const czk_num *b) CZK_NONNULL(1, 2, 3);

/*
 * AllocatedNum::mul: alloc p = a·b, then a·b = p. Returns: p.
 */
czk_num czk_num_mul(czk_cs *cs, const czk_num *a, const czk_num *b) CZK_NONNULL(1, 2, 3);

/*
 * The sum of n ≤ 16 nums: alloc s = Σ terms, then (Σ terms)·ONE = s (the
 * SnapDeals c_high_selected). Returns: s; with n > 16, CZK_ERR_INVALID_ARG
 * recorded in cs and a zero num.
 */
czk_num czk_num_sum(czk_cs *cs, const czk_num *terms, unsigned n) CZK_NONNULL(1, 2);

/*
 * lc · ONE = x for an existing x (a binary decomposition of x, a value
 * defined linearly from others), in namespace ns. Nothing is done in
 * WITNESS mode. Failures are sticky in cs.
 */
void czk_lc_equal(czk_cs *cs, const czk_lc *lc, const czk_num *x, const char *ns)
    CZK_NONNULL(1, 2, 3, 4);

/* ------------------------------------------------------------------------ */
/* Multipack (bellpepper gadgets/multipack.rs; storage-proofs util.rs;       */
/* spec §4.3, §4.6)                                                          */
/* ------------------------------------------------------------------------ */

/*
 * pack_bits: num = Σ_{i < min(n, 254)} 2^i·lc(bits_i); alloc r, then
 * num·ONE = r. Returns: r.
 */
czk_num czk_pack_bits(czk_cs *cs, const czk_bool *bits, size_t n) CZK_NONNULL(1);

/*
 * pack_into_inputs: for each chunk of 254 bits (the last may be shorter), a
 * new input j, then num·ONE = j. Returns: the number of inputs allocated,
 * ⌈n/254⌉.
 */
size_t czk_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n) CZK_NONNULL(1);

/*
 * The value of pack_bits / one pack_into_inputs chunk, natively:
 * Σ_{i < min(n, 254)} 2^i·bits_i.value. Out: *out. Never fails.
 */
void czk_pack_value(czk_fr *out, const czk_bool *bits, size_t n) CZK_NONNULL(1);

/*
 * storage-proofs util::reverse_bit_numbering: pads with Constant(false) to a
 * multiple of 8, then reverses the bit order within each byte. No
 * constraint. Out: out[roundup(n, 8)] (must not alias in).
 * Returns: that length.
 */
size_t czk_reverse_bit_numbering(czk_bool *out, const czk_bool *in, size_t n) CZK_NONNULL(1);

/* ------------------------------------------------------------------------ */
/* Insertion (storage-proofs-core gadgets/insertion.rs; spec §4.7)           */
/* ------------------------------------------------------------------------ */

/*
 * pick(cond, a, b) = a if cond else b: alloc c, then (b − a)·lc(cond) = b − c.
 * Returns: c.
 */
czk_num czk_pick(czk_cs *cs, czk_bool cond, const czk_num *a, const czk_num *b)
    CZK_NONNULL(1, 3, 4);

/*
 * storage-proofs insertion::select: the element of from[2^n] at the index
 * whose bits are bits[0..n] (least significant first), by halving: the bits
 * taken most significant first, each level pick(bit, upper half[j], lower
 * half[j]) for j < half (namespace "pick <level>, <j>"): 2^n − 1 picks.
 * n = 0 returns from[0] and emits nothing. The SnapDeals circuit selects an
 * apex leaf with it.
 * Returns: the selected num; with n > 10, CZK_ERR_INVALID_ARG recorded in cs
 *   and from[0].
 */
czk_num czk_select(czk_cs *cs, const czk_num *from, const czk_bool *bits, unsigned n)
    CZK_NONNULL(1, 2);

/*
 * insert: out = elements with `element` inserted at the position whose bits
 * are bits[0..nbits] (least significant first), for nbits = 1 (insert_2,
 * 2 constraints), 2 (insert_4, 8) or 3 (insert_8: nor(b0, b1), and(b0, b1),
 * then 20 picks; 22). The picks are emitted in upstream's order (spec §4.7).
 * insert_8 needs b0 and b1 to be Is (allocated, not negated).
 * In:  element; bits[nbits]; elements[2^nbits − 1].
 * Out: out[2^nbits].
 * Returns: the cs's status; CZK_ERR_UNSUPPORTED for other nbits (upstream's
 *          general `select` path is not used by Filecoin), CZK_ERR_INVALID_ARG
 *          for insert_8 bits that are not Is.
 */
CZK_NODISCARD czk_status czk_insert(czk_cs *cs, const czk_num *element, const czk_bool *bits,
                                    unsigned nbits, const czk_num *elements, czk_num *out)
    CZK_NONNULL(1, 2, 3, 5, 6);

/* ------------------------------------------------------------------------ */
/* PoRep SHA-256 compositions                                                */
/* ------------------------------------------------------------------------ */

/*
 * filecoin-hashers Sha256Function::hash_leaf_bits_circuit: each of left and
 * right padded with Constant(false) to a multiple of 8 and bit-reversed per
 * byte (reverse_bit_numbering), concatenated, hashed with czk_sha256; then
 * the digest's bits reversed per byte, the first 254 packed (pack_bits).
 * The result equals sha256(left ‖ right) read little-endian, top 2 bits of
 * the last byte cleared. Returns: the cs's status.
 */
CZK_NODISCARD czk_status czk_sha256_hash_leaf_bits(czk_cs *cs, const czk_bool *left, size_t nleft,
                                                   const czk_bool *right, size_t nright,
                                                   czk_num *out) CZK_NONNULL(1, 2, 4, 6);

/*
 * Sha256Function::hash_multi_leaf_circuit (TreeD node, spec §4.6): for each
 * leaf in order, to_bits_le (255 bits + unpacking constraint), padded with
 * Constant(false) and bit-reversed per byte; SHA-256 of the concatenation;
 * the digest bit-reversed per byte, 254 bits packed. n ≥ 1.
 * Returns: the cs's status.
 */
CZK_NODISCARD czk_status czk_sha256_hash_multi_leaf(czk_cs *cs, const czk_num *leaves, size_t n,
                                                    czk_num *out) CZK_NONNULL(1, 2, 4);

/*
 * Sha256Function::hash_circuit (filecoin-hashers sha256.rs), the end every
 * SHA-256 composition of Filecoin shares: czk_sha256 of msg[nbits], the
 * digest's bits reversed within each byte, the first 254 packed into one aux
 * (pack_bits). Used by the TreeD node hashes above and the PoRep label
 * (czk_create_label, include/czk/porep_circuit.h).
 * Returns: the cs's status.
 */
CZK_NODISCARD czk_status czk_sha256_hash_circuit(czk_cs *cs, const czk_bool *msg, size_t nbits,
                                                 czk_num *out) CZK_NONNULL(1, 4);

#ifdef __cplusplus
}
#endif
#endif
