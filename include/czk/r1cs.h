/*
 * czk — rank-1 constraint systems with bellperson/bellpepper semantics.
 *
 * A circuit is one C function, czk_circuit_fn, run against a czk_cs in one of
 * three modes (spec: porep-circuit.md §4.2, §5; gpu-prover.md §1):
 *
 *   CZK_CS_RECORD   builds the shape: CSR matrices A, B, C over the columns
 *                   [inputs | aux], density bitmaps, counts. Values are not
 *                   needed (a "blank" circuit, like bellperson's generator);
 *                   whatever the gadgets compute is ignored.
 *   CZK_CS_WITNESS  stores only the input and aux values. Gadgets skip every
 *                   linear combination: they test czk_cs_records() and build
 *                   none when it is false. czk_cs_enforce() is a no-op.
 *   CZK_CS_CHECK    records and stores values, evaluates each constraint as it
 *                   is enforced, and remembers the first unsatisfied one by
 *                   index and namespace path (tests).
 *
 * Variables: inputs and aux are two index spaces, each numbered in allocation
 * order. Input 0 is ONE, allocated by czk_cs_run() before the circuit runs.
 * After the circuit, czk_cs_run() appends one constraint input_i · 0 = 0 per
 * input, ONE included, in input order (as bellperson's prover and generator
 * do), so constraints n = synthesized + inputs.
 *
 * Linear combinations merge terms of one variable by adding coefficients;
 * a term whose merged coefficient is zero is skipped when evaluating, is not
 * stored in the shape and does not set density (bellpepper-core lc.rs,
 * eval_with_trackers).
 *
 * Errors are sticky: the first failure (out of memory, cancellation, a
 * gadget's czk_cs_fail()) is kept in the cs, later calls become no-ops, and
 * czk_cs_run() returns it. Gadget code therefore need not check every call.
 */
#ifndef CZK_R1CS_H
#define CZK_R1CS_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/pool.h"
#ifdef __cplusplus /* C++ before C++23 has no <stdatomic.h>; std::atomic<int> has the same layout  \
                    */
#include <atomic>
typedef std::atomic<int> atomic_int;
#else
#include <stdatomic.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A variable: bit 31 set = input, clear = aux; the low 31 bits are its index. */
typedef uint32_t czk_var;
#define CZK_VAR_INPUT_BIT 0x80000000u
#define CZK_VAR_ONE ((czk_var)CZK_VAR_INPUT_BIT)
static inline czk_var czk_var_input(uint32_t i) {
    return i | CZK_VAR_INPUT_BIT;
}
static inline czk_var czk_var_aux(uint32_t i) {
    return i;
}
static inline bool czk_var_is_input(czk_var v) {
    return (v & CZK_VAR_INPUT_BIT) != 0;
}
static inline uint32_t czk_var_index(czk_var v) {
    return v & ~CZK_VAR_INPUT_BIT;
}

typedef enum czk_cs_mode {
    CZK_CS_RECORD,
    CZK_CS_WITNESS,
    CZK_CS_CHECK,
} czk_cs_mode;

typedef struct czk_cs czk_cs;

/* A linear combination Σ coeff·var. Terms may repeat until normalized. */
typedef struct czk_term {
    czk_var var;
    uint32_t reserved;
    czk_fr coeff;
} czk_term;

typedef struct czk_lc {
    czk_term *terms;
    uint32_t len, cap;
} czk_lc;

#define CZK_LC_INIT                                                                                \
    { NULL, 0, 0 }

/* Frees the terms; the lc is empty and reusable afterwards. */
void czk_lc_free(czk_lc *lc);
/* Empties the lc, keeping its storage. */
static inline void czk_lc_clear(czk_lc *lc) {
    lc->len = 0;
}
/*
 * Linear-combination building (src/r1cs/lc.c). The lc's storage grows as
 * needed (doubling, from 8 terms). None returns a status: a failure is
 * recorded in cs (sticky, czk_cs_status) and the lc is left as it was; once
 * cs has failed, these do nothing. cs may be NULL (a failure then goes
 * unreported and the term is not added).
 * czk_lc_add: lc += coeff·v (coeff NULL = 1); terms of one variable are not
 *   merged here (czk_lc_normalize, czk_cs_enforce do that).
 * czk_lc_add_var / czk_lc_sub_var: lc += v, lc −= v.
 * czk_lc_add_lc: dst += scale·src (scale NULL = 1); dst may be src.
 * czk_lc_copy: dst = src (dst's old terms dropped; nothing if dst == src).
 * Failures: CZK_ERR_NOMEM "out of memory growing the linear combination
 *   (...)"; CZK_ERR_INVALID_ARG "linear combination has 2^32 - 1 terms".
 */
void czk_lc_add(czk_cs *cs, czk_lc *lc, czk_var v, const czk_fr *coeff);
void czk_lc_add_var(czk_cs *cs, czk_lc *lc, czk_var v);
void czk_lc_sub_var(czk_cs *cs, czk_lc *lc, czk_var v);
void czk_lc_add_lc(czk_cs *cs, czk_lc *dst, const czk_lc *src, const czk_fr *scale);
void czk_lc_copy(czk_cs *cs, czk_lc *dst, const czk_lc *src);
/*
 * dst += scale·src (scale NULL = 1; dst must not be src), by one merge of
 * the two term lists from their ends: when both are normalized
 * (czk_lc_normalize's form) the result is normalized too, in
 * O(dst + src) steps instead of a sort. Otherwise every term still goes in
 * once (or summed with a term of the same variable) and the result is the
 * same linear combination, only perhaps not normal. A zero scale adds
 * nothing. Failures: those of czk_lc_add_lc (dst is then unchanged).
 */
void czk_lc_merge(czk_cs *cs, czk_lc *dst, const czk_lc *src, const czk_fr *scale);
/*
 * Sorts by variable (inputs before aux, each by index) and merges repeated
 * variables by adding coefficients; zero results are dropped (bellpepper-core
 * lc.rs). In place, never fails, never allocates (insertion sort for nearly
 * sorted lcs, qsort past a budget of moves).
 */
void czk_lc_normalize(czk_lc *lc);

/*
 * 2^k in Fr for k < 256 (Montgomery form; a static table made once,
 * thread-safe; NULL for k >= 256), and −1 (Montgomery form).
 */
const czk_fr *czk_fr_pow2(unsigned k);
extern const czk_fr czk_fr_minus_one;

/*
 * Creates a constraint system (src/r1cs/cs.c).
 * Args: mode    CZK_CS_RECORD, CZK_CS_WITNESS or CZK_CS_CHECK.
 *       cancel  may be NULL; else polled every 4096 allocations and
 *               constraints, and at the start and end of czk_cs_run; once
 *               it reads non-zero the cs fails with CZK_ERR_CANCELLED.
 *               Must outlive the cs.
 * Returns: the cs (czk_cs_free); NULL with err CZK_ERR_INVALID_ARG (an
 *   unknown mode) or CZK_ERR_NOMEM.
 */
czk_cs *czk_cs_create(czk_cs_mode mode, const atomic_int *cancel, czk_err *err);
/*
 * Frees the cs and what it still owns: not a shape or witness taken from it,
 * nor the caller's witness buffers. NULL is allowed.
 */
void czk_cs_free(czk_cs *cs);
/*
 * Optional capacity hints (e.g. from a recorded shape) to avoid regrowth:
 * values for inputs and aux (not with caller's witness buffers), row
 * pointers for constraints. An allocation failure fails the cs (sticky
 * CZK_ERR_NOMEM); a cs that has failed is left alone.
 */
void czk_cs_reserve(czk_cs *cs, uint32_t inputs, uint32_t aux, uint32_t constraints);

/*
 * WITNESS mode: store the assignment in the caller's arrays instead of
 * arrays of the cs's own, so that one pair of buffers (e.g. page-locked
 * memory from czk_backend_ops.host_alloc) serves partition after partition.
 * The arrays are written, never grown, reallocated or freed by the cs.
 * Args: inputs  room for in_cap values (in_cap >= 1: ONE is input 0);
 *       aux     room for aux_cap values (may be NULL when aux_cap is 0).
 * Call once, after czk_cs_create and before czk_cs_run. A circuit that
 * allocates more than a capacity is run to its end without storing the
 * excess, then czk_cs_run fails with CZK_ERR_INVALID_ARG "witness buffers
 * too small: the circuit has I inputs and A aux, the buffers hold X and Y";
 * nothing is written past either array. czk_cs_take_witness then gives a
 * witness whose inputs and aux are these arrays: the caller still owns them,
 * so it must not be passed to czk_witness_free.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (not WITNESS mode, called twice or
 *   after variables exist, NULL or empty arrays).
 */
CZK_NODISCARD czk_status czk_cs_set_witness_buffers(czk_cs *cs, czk_fr *inputs, uint32_t in_cap,
                                                    czk_fr *aux, uint32_t aux_cap, czk_err *err)
    CZK_NONNULL(1);

/* The mode the cs was created with. */
czk_cs_mode czk_cs_get_mode(const czk_cs *cs);
/* True in RECORD and CHECK: gadgets build linear combinations and enforce. */
bool czk_cs_records(const czk_cs *cs);
/* True in WITNESS and CHECK: values are stored. */
bool czk_cs_has_values(const czk_cs *cs);

/*
 * A new aux / input variable, numbered in allocation order, with the given
 * value (ignored when !has_values; NULL means zero).
 * Returns: the variable; CZK_VAR_ONE when the cs has failed, or fails here
 *   (sticky: CZK_ERR_NOMEM, CZK_ERR_CANCELLED, CZK_ERR_UNSUPPORTED past
 *   2^31 − 1 variables of the kind). With caller's witness buffers that are
 *   full the variable is still made and its value dropped (czk_cs_run then
 *   fails, see czk_cs_set_witness_buffers).
 */
czk_var czk_cs_alloc(czk_cs *cs, const czk_fr *value);
czk_var czk_cs_alloc_input(czk_cs *cs, const czk_fr *value);

/*
 * Enforces A·B = C as constraint number czk_cs_num_constraints(): copies and
 * normalizes the three lcs (callers' lcs are unchanged; NULL means an empty
 * lc) and appends them as rows of A, B, C; in CHECK mode evaluates them and
 * remembers the first unsatisfied constraint (not a failure). In WITNESS
 * mode it only counts. Failures are sticky in cs: CZK_ERR_INVALID_ARG
 * "constraint K (ns): A uses aux I, but only N are allocated";
 * CZK_ERR_NOMEM; CZK_ERR_CANCELLED; CZK_ERR_UNSUPPORTED (more than 2^32 − 2
 * distinct coefficients, or 2^64 − 1 constraints).
 */
void czk_cs_enforce(czk_cs *cs, const czk_lc *a, const czk_lc *b, const czk_lc *c);

/*
 * Namespaces: named scopes for error reports (bellpepper's namespace()).
 * Only counted unless mode is CHECK; there the printf-formatted name is
 * appended to the path ("a/b/c"). Pushes and pops must pair: a pop without
 * a push fails the cs with CZK_ERR_INVALID_ARG, as does czk_cs_run with
 * namespaces left open; CZK_ERR_NOMEM (CHECK mode) is sticky too.
 */
void czk_cs_push_ns(czk_cs *cs, const char *fmt, ...) CZK_PRINTF(2, 3);
void czk_cs_pop_ns(czk_cs *cs);

/*
 * Records a failure with its printf-formatted message (sticky; the first
 * one wins, later ones are dropped); czk_cs_run returns it. A NULL cs or
 * code CZK_OK records nothing.
 * Returns: code.
 */
czk_status czk_cs_fail(czk_cs *cs, czk_status code, const char *fmt, ...) CZK_PRINTF(3, 4);
/* The sticky failure's code: CZK_OK while nothing failed. */
czk_status czk_cs_status(const czk_cs *cs);

/* Counters so far (ONE included in inputs; finalization included after run).
 * In WITNESS mode the constraint count is the number of czk_cs_enforce calls
 * made, which is 0 for gadgets that skip them there. */
uint32_t czk_cs_num_inputs(const czk_cs *cs);
uint32_t czk_cs_num_aux(const czk_cs *cs);
uint64_t czk_cs_num_constraints(const czk_cs *cs);

typedef czk_status (*czk_circuit_fn)(czk_cs *cs, void *ctx);

/*
 * Allocates ONE, runs fn(cs, ctx), then appends the input_i · 0 = 0
 * constraints and, in RECORD and CHECK, builds the densities (bellperson's
 * prover and generator; spec porep-circuit.md §5).
 * Returns: CZK_OK; else the first failure: the cs's sticky error with its
 *   message (CZK_ERR_NOMEM, CZK_ERR_CANCELLED, CZK_ERR_INVALID_ARG for
 *   variables added before the run, unpaired namespaces or witness buffers
 *   too small, a gadget's czk_cs_fail); fn's own non-OK return when fn
 *   recorded none, as "the circuit returned CZK_ERR_..." (fn's own message,
 *   if it wrote one elsewhere, is not carried); or in CHECK mode
 *   CZK_ERR_UNSATISFIED naming the first unsatisfied constraint by index and
 *   namespace path ("constraint 17 (sha256/block 0/ch 3) is not satisfied";
 *   "top level" when no namespace was open). After CZK_OK or
 *   CZK_ERR_UNSATISFIED the shape and witness can be taken; after another
 *   failure neither can. A cs runs once (CZK_ERR_INVALID_ARG "a constraint
 *   system runs only once" the second time).
 */
CZK_NODISCARD czk_status czk_cs_run(czk_cs *cs, czk_circuit_fn fn, void *ctx, czk_err *err);

/*
 * A circuit of a prefix and `count` parts that repeat (the PoSt sectors):
 * prefix(cs, ctx), then part(cs, ctx, i) for i = 0 .. count − 1, stopping
 * at the first failure — run as that one circuit, whose shape and witness
 * are those of the serial run, byte for byte. The contract that lets it be
 * faster: every part allocates its own variables and emits the same rows,
 * whatever its index and values (ONE, the prefix's variables and its own are
 * all it reads; the variables it makes are those of part 0 shifted by i
 * times a part's counts), and part may run on several threads at once with
 * the same ctx (WITNESS mode), each in a cs of its own.
 *   RECORD   parts 0 and 1 run in cs; when part 1's rows are part 0's shifted
 *            (same counts, columns, coefficients, row lengths), parts 2 ..
 *            are written as copies of part 0 shifted, on the pool's threads,
 *            instead of being run (so nothing they would do by their index
 *            alone, failing included, happens); otherwise they run in cs one
 *            by one.
 *   WITNESS  part 0 runs in cs; parts 1 .. run on the pool's threads, each
 *            storing its values at its place in cs's arrays. A part that
 *            allocates other counts than part 0 (or leaves a namespace open)
 *            makes parts 1 .. run again in cs one by one; otherwise the
 *            first failure in part order is the run's (as serially).
 *   CHECK    serially, as one circuit.
 * The shape's column rewrite and densities are computed on the pool too.
 * Args: parts  prefix may be NULL; count may be 0 (then prefix alone).
 *       pool   NULL: all serially on the calling thread.
 * Returns: as czk_cs_run (a part's non-OK return without a recorded
 *   failure is "the circuit returned ...").
 */
typedef czk_status (*czk_part_fn)(czk_cs *cs, void *ctx, uint64_t part);
typedef struct czk_cs_parts {
    czk_circuit_fn prefix; /* may be NULL */
    czk_part_fn part;      /* may be NULL when count is 0 */
    uint64_t count;
    void *ctx;
} czk_cs_parts;
CZK_NODISCARD czk_status czk_cs_run_parts(czk_cs *cs, const czk_cs_parts *parts, czk_pool *pool,
                                          czk_err *err) CZK_NONNULL(1, 2);

/* CHECK mode: index of the first unsatisfied constraint, or UINT64_MAX. */
uint64_t czk_cs_first_unsatisfied(const czk_cs *cs);
/* CHECK mode: the namespace path ("a/b/c", "" at the top level) that was
 * current when the first unsatisfied constraint was enforced; NULL if none.
 * Owned by the cs. */
const char *czk_cs_first_unsatisfied_path(const czk_cs *cs);

/* ---- the recorded shape ---- */

/*
 * One matrix in CSR form over columns [inputs | aux] (aux j is column
 * num_inputs + j). Row k holds constraint k's terms with non-zero merged
 * coefficients, sorted by column. Coefficients are stored by reference into
 * the shape's table of distinct values (Filecoin's matrices hold ~722 M
 * non-zeros but few distinct coefficients), so a non-zero costs 8 bytes
 * (column + coefficient index) plus the row pointers.
 */
typedef struct czk_csr {
    uint64_t *row_ptr; /* num_constraints + 1 entries */
    uint32_t *col;     /* nnz entries */
    uint32_t *coeff;   /* nnz entries, indexes into czk_shape.coeffs */
    uint64_t nnz;
} czk_csr;

/* Density bitmap: bit i (word i/64, bit i%64) set iff variable i is present. */
typedef struct czk_bitmap {
    uint64_t *words;
    uint64_t len; /* bits */
    uint64_t popcount;
} czk_bitmap;

typedef struct czk_shape {
    uint32_t num_inputs; /* ONE included */
    uint32_t num_aux;
    uint64_t num_constraints; /* finalization included */
    czk_csr m[3];             /* A, B, C */
    czk_fr *coeffs;           /* distinct coefficients, Montgomery form */
    uint32_t num_coeffs;
    czk_bitmap a_aux;   /* aux with a non-zero A coefficient somewhere */
    czk_bitmap b_input; /* inputs with a non-zero B coefficient */
    czk_bitmap b_aux;   /* aux with a non-zero B coefficient */
} czk_shape;

/*
 * The witness of one circuit: a view of two arrays. Who owns them is the
 * producer's contract: czk_cs_take_witness of a cs with its own arrays (and
 * czk_porep_witness_generate) hands over malloc'ed arrays, released with
 * czk_witness_free; a witness written into caller-provided buffers
 * (czk_cs_set_witness_buffers, czk_porep_witness_generate_into, the engine's
 * witness pool) only points into them and is never passed to czk_witness_free.
 * packed, where not NULL, holds the same values in the packed form below
 * (czk_witness_pack of this witness): a backend may read it instead of
 * inputs and aux (the CUDA backend uploads it, src/cuda/backend.cu); whoever
 * changes a value after packing sets it to NULL. Its memory is the packer's;
 * czk_witness_free leaves it alone.
 */
typedef struct czk_witness_packed czk_witness_packed;
typedef struct czk_witness {
    czk_fr *inputs; /* num_inputs, inputs[0] = 1 */
    czk_fr *aux;    /* num_aux */
    uint32_t num_inputs, num_aux;
    const czk_witness_packed *packed; /* NULL: none */
} czk_witness;

/*
 * A witness packed for upload: z = inputs ‖ aux as 2 bits a value — 0 zero,
 * 1 one (czk_fr_one, Montgomery form), 2 any other value — and the other
 * values in z's order. A PoRep witness is about 51 % zeros, 47 % ones and
 * 1–2 % others, so its packed form is ≈ 2 % of its bytes (a 32GiB
 * partition: 4.2 GB → ≈ 33 MB of codes + ≈ 40–55 MB of others).
 * Value i's code is bits 2·(i mod 32) and 2·(i mod 32) + 1 of codes[i / 32]
 * (little-endian words, so a word's 32 codes lie in value order); codes past
 * n are 0; code 3 does not occur. Expanding it gives z back byte for byte.
 * The arrays are the caller's (czk_witness_packed_place lays them out in
 * one block of czk_witness_packed_bytes(n)); czk_witness_pack fills them.
 */
struct czk_witness_packed {
    uint64_t *codes;     /* codes_cap words */
    czk_fr *others;      /* others_cap values */
    uint64_t codes_cap;  /* words: at least ⌈n / 32⌉ to pack n values */
    uint64_t others_cap; /* values: more others than this are not packed */
    uint64_t n;          /* values packed (num_inputs + num_aux); 0: not packed */
    uint64_t num_others; /* others[0 .. num_others) */
};

/*
 * Bytes of a block that holds the packed form of any n values with room for
 * ⌈n / 32⌉ others (3.1 % of them; a witness with more is not packed, as
 * WindowPoSt's dense ones): 8 bytes of codes and 32 of others per 32 values,
 * 1.25 bytes a value (3.9 % of the witness). Never fails.
 */
uint64_t czk_witness_packed_bytes(uint64_t n);

/*
 * Lays out p's arrays in block (czk_witness_packed_bytes(n) bytes, 8-byte
 * aligned): codes first, then the others; caps set, nothing packed (n = 0).
 * Never fails.
 */
void czk_witness_packed_place(czk_witness_packed *p, void *block, uint64_t n) CZK_NONNULL(1, 2);

/*
 * Packs w's z = inputs ‖ aux into p's arrays: codes and others as described
 * above. A memory-bound pass over the witness (reads its 32 bytes a value
 * once), then a copy of the others (bench/RESULTS.md "Packed witness").
 * In:     w     the witness.
 * In/Out: p     arrives laid out (czk_witness_packed_place, or codes, others
 *               and their caps set by the caller); returns packed.
 * Args:   pool  chunks of at least 2^16 values on its threads (NULL: the
 *               calling thread).
 * Returns: true with p->n = num_inputs + num_aux and p->num_others set;
 *   false (p->n = 0: nothing packed, the codes and others undefined) when z
 *   has more others than p->others_cap, more values than 32·codes_cap, or
 *   no values at all. Never fails otherwise.
 */
bool czk_witness_pack(czk_witness_packed *p, const czk_witness *w, czk_pool *pool)
    CZK_NONNULL(1, 2);

/*
 * After a RECORD or CHECK run (CZK_OK or CZK_ERR_UNSATISFIED): moves the
 * shape out of the cs, its arrays shrunk to size.
 * Out: *out  the shape (czk_shape_free); NULL on failure.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (WITNESS mode, not run to completion,
 *   already taken); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_cs_take_shape(czk_cs *cs, czk_shape **out, czk_err *err);
/*
 * After a WITNESS or CHECK run (CZK_OK or CZK_ERR_UNSATISFIED): moves the
 * assignment out of the cs.
 * Out: *out  malloc'ed arrays shrunk to size (czk_witness_free), or the
 *            caller's buffers given with czk_cs_set_witness_buffers (still
 *            the caller's); all zero on failure.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (RECORD mode, not run to completion,
 *   already taken).
 */
CZK_NODISCARD czk_status czk_cs_take_witness(czk_cs *cs, czk_witness *out, czk_err *err);

/*
 * Runs fn(cs, ctx) in WITNESS mode into the caller's arrays (the engine's
 * reused witness buffers): a czk_cs_create with `cancel`,
 * czk_cs_set_witness_buffers, czk_cs_run, czk_cs_take_witness, in one call.
 * In/Out: buf  arrives with buf->inputs and buf->aux pointing at arrays of
 *              buf->num_inputs and buf->num_aux values, and returns with the
 *              same arrays and the witness's counts (never pass it to
 *              czk_witness_free); unchanged on failure.
 * Returns: CZK_OK; the errors of those four calls (CZK_ERR_INVALID_ARG for
 *   arrays too small names which; CZK_ERR_CANCELLED; fn's status).
 */
CZK_NODISCARD czk_status czk_cs_witness_into(czk_witness *buf, czk_circuit_fn fn, void *ctx,
                                             const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * Runs fn(cs, ctx) once in RECORD mode (czk_cs_record) or WITNESS mode into
 * malloc'ed arrays (czk_cs_witness): czk_cs_create with `cancel`, czk_cs_run,
 * czk_cs_take_shape / czk_cs_take_witness, czk_cs_free, in one call — what
 * every circuit's record and witness functions do (porep, post, snap).
 * Out: *out  the shape (czk_shape_free) / the assignment (czk_witness_free);
 *            untouched on failure.
 * Returns: CZK_OK; the errors of those calls (CZK_ERR_NOMEM, CZK_ERR_CANCELLED,
 *   fn's status).
 */
CZK_NODISCARD czk_status czk_cs_record(czk_shape **out, czk_circuit_fn fn, void *ctx,
                                       const atomic_int *cancel, czk_err *err) CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_cs_witness(czk_witness *out, czk_circuit_fn fn, void *ctx,
                                        const atomic_int *cancel, czk_err *err) CZK_NONNULL(1, 2);

/*
 * czk_cs_record, czk_cs_witness and czk_cs_witness_into of a circuit of
 * parts (czk_cs_run_parts on `pool`, NULL: the calling thread alone).
 * Out, Returns: as those.
 */
CZK_NODISCARD czk_status czk_cs_record_parts(czk_shape **out, const czk_cs_parts *parts,
                                             czk_pool *pool, const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_cs_witness_parts(czk_witness *out, const czk_cs_parts *parts,
                                              czk_pool *pool, const atomic_int *cancel,
                                              czk_err *err) CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_cs_witness_parts_into(czk_witness *buf, const czk_cs_parts *parts,
                                                   czk_pool *pool, const atomic_int *cancel,
                                                   czk_err *err) CZK_NONNULL(1, 2);

/* Frees a shape and its arrays. NULL is allowed. */
void czk_shape_free(czk_shape *shape);
/*
 * Frees a witness's own (malloc'ed) arrays and clears it; not for one in
 * caller buffers. NULL is allowed.
 */
void czk_witness_free(czk_witness *w);

/*
 * Bytes the shape's arrays occupy in memory: the struct, row pointers,
 * 8 bytes per non-zero (column and coefficient index), the coefficient
 * table and the bitmaps.
 */
uint64_t czk_shape_bytes(const czk_shape *shape);

/*
 * True iff both shapes hold the same counts, matrices (the same coefficient
 * values, whichever table indices they have) and densities. Never fails.
 */
bool czk_shape_equal(const czk_shape *x, const czk_shape *y);

/*
 * The size of an R1CS as its shape gives it: what `czk circuit-info`
 * prints and the Groth16 key's vector lengths follow from.
 */
typedef struct czk_shape_counts {
    uint64_t constraints;             /* n: finalization (one per input) included */
    uint64_t synthesized_constraints; /* constraints - inputs: upstream's count */
    uint64_t inputs;                  /* ONE included */
    uint64_t aux;
    uint64_t nnz[3];                /* A, B, C */
    uint64_t a_aux, b_input, b_aux; /* density popcounts */
} czk_shape_counts;

/* The counts of a recorded shape. */
void czk_shape_counts_of(czk_shape_counts *out, const czk_shape *shape) CZK_NONNULL(1, 2);

/*
 * Every field c1 + n·(c2 − c1): the counts of a circuit with n + 1 copies
 * of a part, from recordings with one (c1) and two (c2) copies. Exact when
 * each copy allocates its own variables and emits the same rows, reading
 * only variables made before the first copy (the PoSt sectors, the
 * SnapDeals challenges); the counting functions that use it are held to
 * whole recordings by their tests.
 */
void czk_shape_counts_extrapolate(czk_shape_counts *out, const czk_shape_counts *c1,
                                  const czk_shape_counts *c2, uint64_t n) CZK_NONNULL(1, 2, 3);

/*
 * SpMV: a[k] = <A_k, z>, b[k] = <B_k, z>, c[k] = <C_k, z> for
 * k < num_constraints, with z = (inputs, aux) (bellperson's
 * eval_with_trackers on the recorded rows).
 * In:  w        a witness with the shape's num_inputs and num_aux.
 * Out: a, b, c  num_constraints elements each (any may be NULL to skip it).
 * Args: pool    rows in chunks of 4096 on its threads; NULL: the calling
 *               thread.
 * Returns: CZK_OK; CZK_ERR_MISMATCH "witness has I inputs and A aux, the
 *   shape ..." (nothing written).
 */
CZK_NODISCARD czk_status czk_shape_eval(const czk_shape *shape, const czk_witness *w, czk_fr *a,
                                        czk_fr *b, czk_fr *c, czk_pool *pool, czk_err *err);

/*
 * Writes / reads a shape file (czk's own format, version 1, layout at the
 * top of src/r1cs/shape_file.c): magic "CZKSHAPE", format version, counts,
 * the matrices, coefficient table and densities, a checksum per region and
 * one over the header. czk_shape_read reads, checksums and checks on a pool
 * of threads of its own (the online CPUs, at most 32; one for a file under
 * 32 MiB), with the result and errors of a serial read; it checks everything
 * the prover relies on (coefficients non-zero and below r, row pointers,
 * columns strictly increasing and in range, the finalization rows, the
 * densities).
 * czk_shape_write: writes "<path>.tmp", fsyncs it and renames it onto path.
 *   Returns: CZK_OK; CZK_ERR_IO naming the step (open, write, fsync, close,
 *   rename) and path; CZK_ERR_INVALID_ARG (counts that overflow the format);
 *   CZK_ERR_NOMEM.
 * czk_shape_read: Out: *out (czk_shape_free); NULL on failure.
 *   Returns: CZK_OK; CZK_ERR_IO (open, stat, read, not a regular file);
 *   CZK_ERR_TRUNCATED (shorter than the header or the counts say);
 *   CZK_ERR_FORMAT naming what is wrong (bad magic, version, a checksum
 *   mismatch with its region, a count, an index, trailing bytes);
 *   CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_shape_write(const czk_shape *shape, const char *path, czk_err *err);
CZK_NODISCARD czk_status czk_shape_read(czk_shape **out, const char *path, czk_err *err);
/*
 * czk_shape_read from memory (fuzzing, tests): buf holds len bytes of a
 * shape file, not kept. Out, Returns: as czk_shape_read (no CZK_ERR_IO;
 *   CZK_ERR_INVALID_ARG for a NULL buf with len > 0).
 */
CZK_NODISCARD czk_status czk_shape_decode(czk_shape **out, const uint8_t *buf, size_t len,
                                          czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
