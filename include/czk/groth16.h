/*
 * czk — Groth16 keys, parameter files, proofs and verification.
 *
 * The proving system is Groth16 (Groth, "On the Size of Pairing-based
 * Non-interactive Arguments", EUROCRYPT 2016, eprint 2016/260) over
 * BLS12-381, with bellperson's conventions (spec: gpu-prover.md §1 and §4,
 * porep-circuit.md §5), so that czk reads Filecoin's .params/.vk files, and
 * writes and verifies the same 192-byte proofs.
 *
 * Parameter files (bellperson src/groth16/mod.rs, VerifyingKey::write and
 * Parameters::write; no magic, no header, big-endian):
 *
 *   vk      alpha_g1 (96) beta_g1 (96) beta_g2 (192) gamma_g2 (192)
 *           delta_g1 (96) delta_g2 (192)                        864 bytes
 *   ic      u32 count, count × G1 (96)
 *   h       u32 count, count × G1      τ^i·Z(τ)/δ for i < N−1 (N = domain size)
 *   l       u32 count, count × G1      (β·u_j(τ) + α·v_j(τ) + w_j(τ))/δ per aux j
 *   a       u32 count, count × G1      u_j(τ) for every input, then for A-dense aux
 *   b_g1    u32 count, count × G1      v_j(τ) for B-dense inputs, then B-dense aux
 *   b_g2    u32 count, count × G2 (192)  the same in G2
 *
 * A .vk file is the first two blocks only. Points are uncompressed in the
 * zcash encoding (include/czk/ec.h: Fp big-endian, Fp2 as c1 ‖ c0).
 *
 * Reading validates every point: coordinates below p, on the curve, in the
 * prime-order subgroup, not infinity (parameters never hold infinity;
 * bellperson's generator filters it out). Each defect is reported with its
 * own status and a message that names the section (vk, ic, h, l, a, b_g1,
 * b_g2) and the point's index in it:
 *
 *   CZK_ERR_TRUNCATED        the file ends inside a section, or a length
 *                            prefix claims more points than the file holds
 *   CZK_ERR_FORMAT           a length prefix that no generator writes (ic
 *                            empty, h not 2^k − 1, a shorter than ic or longer
 *                            than ic + l, b_g1 longer than ic + l, b_g2 not
 *                            equal to b_g1), or bytes after the last section
 *   CZK_ERR_EC_INFINITY      a point at infinity (or an infinity flag with
 *                            non-zero bytes)
 *   CZK_ERR_EC_FLAGS, CZK_ERR_EC_FP_RANGE, CZK_ERR_EC_NOT_ON_CURVE,
 *   CZK_ERR_EC_NOT_IN_GROUP  as include/czk/ec.h decodes a point
 *   CZK_ERR_IO               open, read or stat failed
 *   CZK_ERR_NOMEM            the point vectors cannot be allocated
 *
 * The subgroup check dominates validation (~95% of it). It can be skipped
 * for the five large vectors when the file is known good:
 *   - its plain digest (BLAKE2b-512 of the whole file; the first 32 hex
 *     characters, as parameters.json records them; porep-circuit.md §1) is
 *     one of the published v28 Filecoin digests, or
 *   - a stamp written after an earlier full validation (or a published
 *     digest, or by czk's own setup) matches it: the stamp cache is a
 *     directory of small text files keyed by content, not by path: each
 *     is named by SHA-256 of a file's size and first 64 KiB and holds the
 *     size and the tree digest of the whole file (format 3,
 *     src/groth16/params_stamp.c). The tree digest of the bytes read now
 *     must equal the stamp's, wherever the file lies: keys copied or moved
 *     to another directory keep their stamp (with the stamp directory).
 * Digests. The plain digest runs on one thread (libb2: ~0.8–1 GB/s, ~50 s
 * for a 44 GiB file), so stamps carry the tree digest instead
 * (czk_tree_digest: 64 MiB pieces hashed in parallel). A read computes the
 * tree digest always and the plain one only when no stamp is found for the
 * file's size and beginning (its first read: the published-digest check
 * needs it); both run on threads of their own while the file is read and
 * decoded. Every successful read except one trusted by a matching format-3
 * stamp writes one, so the second read of a file, Filecoin's included,
 * hashes in parallel only. Stamps of czk before format 3 (keyed by the
 * absolute path, counting only while path, size, mtime, device and inode
 * are the file's: format 2 with the tree digest, format 1 with the plain
 * one) still count for that path; a match is rewritten in format 3.
 * On-curve and range checks are never skipped, and the vk and ic blocks
 * are always checked in full.
 *
 * Files are read with read(2) into anonymous, page-aligned memory (not
 * mmap), so that the vectors can later be pinned for the GPU.
 *
 * Encoded vectors (CZK_PARAMS_ENCODED). Decoding is what a trusted read
 * spends its time on (~0.84 µs per G1 point per thread for the range and
 * on-curve checks and the conversion to Montgomery form: ~30 s for 47 GB
 * on 16 threads). With the flag, a read of a file whose trust needs no
 * decoding — a stamp with the tree digest (format 3 for its content, or
 * format 2 for its path) that equals the tree digest of the bytes read
 * now — leaves the five large
 * vectors as they are in the file: h, l, a, b_g1 and b_g2 receive the
 * uncompressed zcash encodings of their points (96 bytes per G1 point, 192
 * per G2 point: the sizes of czk_g1_affine and czk_g2_affine) in the same
 * page-aligned arrays, and params->encoded is true. The file's pieces are
 * then read in parallel on the pool (pread(2) straight into the arrays;
 * each 64 MiB piece hashed for the tree digest by the thread that read
 * it), at the rate of the page cache or the disk and of the hashing (a
 * few GB/s per thread). vk and ic are always decoded and checked in full.
 * Without such a stamp (a first read, a format-1 stamp, a file trusted by
 * its published digest, CZK_PARAMS_FULL_CHECK, CZK_PARAMS_NO_STAMP), or
 * when the stamp's digest differs from the bytes read, the vectors are
 * decoded and checked as without the flag (then encoded is false): callers
 * handle both. czk_params_decode (memory) ignores the flag.
 *
 * Encoded vectors are decoded on first use, so no consumer sees encoded
 * bytes by accident: everything that reads host points (the CPU backend,
 * the CUDA backend when it streams or pins the vectors,
 * czk_prove_finalize with deferred sums, czk_params_write) first calls
 * czk_params_decode_vectors, which decodes them in place once, with the
 * reader's checks and messages (the decoding's time and errors move from
 * the read to that first use). A backend that decodes on the device
 * (include/czk/cuda.h, czk_cuda_params_device_decode) uploads the
 * encoded bytes as they are instead. czk_params_check_lengths and
 * czk_params_check_shape read only lengths and work on either form.
 */
#ifndef CZK_GROTH16_H
#define CZK_GROTH16_H

#include "czk/common.h"
#include "czk/ec.h"
#include "czk/ff.h"
#include "czk/pool.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- keys ---- */

/* The verifying key. ic has ic_len points: IC_0 for ONE, then one per public input. */
typedef struct czk_vk {
    czk_g1_affine alpha_g1, beta_g1;
    czk_g2_affine beta_g2, gamma_g2;
    czk_g1_affine delta_g1;
    czk_g2_affine delta_g2;
    czk_g1_affine *ic;
    uint32_t ic_len;
} czk_vk;

/*
 * Proving parameters: the vk and the five query vectors. The vectors are
 * page-aligned (4096 B) allocations owned by the struct; czk_params_free()
 * releases them.
 *
 * encoded: the five vectors hold their points' file encodings, not
 * decoded points (CZK_PARAMS_ENCODED, "Encoded vectors" above); `lazy` is
 * the reader's state for decoding them (a lock, the first decoding
 * error), NULL otherwise. Both are set only by czk_params_read; encoded
 * and the vectors' contents change only inside czk_params_decode_vectors,
 * so read `encoded` where the vectors themselves may be read. Parameters
 * made otherwise (czk_setup, by hand) leave both zero. A shallow copy of
 * the struct shares `lazy` but not `encoded`: decode before copying, and
 * never free a copy.
 */
typedef struct czk_params_lazy czk_params_lazy;
typedef struct czk_params_lagrange czk_params_lagrange;
typedef struct czk_params {
    czk_vk vk;
    czk_g1_affine *h, *l, *a, *b_g1;
    czk_g2_affine *b_g2;
    uint32_t h_len, l_len, a_len, b_g1_len, b_g2_len;
    bool encoded;
    czk_params_lazy *lazy;
    czk_params_lagrange *lagrange; /* NULL, or the Lagrange form below (owned, freed with it) */
} czk_params;

/* A proof: A ∈ G1, B ∈ G2, C ∈ G1, affine. */
typedef struct czk_proof {
    czk_g1_affine a;
    czk_g2_affine b;
    czk_g1_affine c;
} czk_proof;

#define CZK_PROOF_BYTES 192
#define CZK_VK_FIXED_BYTES 864 /* the six points before ic_len */

/* Frees the vk's ic and clears it (NULL or a zeroed vk is fine). */
void czk_vk_free(czk_vk *vk);
/* Frees the parameters and everything they own (NULL is fine). */
void czk_params_free(czk_params *params);

/*
 * The Lagrange form of the H and L queries: H in four transforms, not six.
 *
 * The prover's H sum is Σ_{i<N−1} h_i·H_i with H_i = [τ^i·Z(τ)/δ]₁ and
 * h = (icoset_fft(A·B) − ifft(c))·zinv, zinv = 1/(g^N − 1), where A, B are
 * the coset values of a, b (the six-transform H of src/groth16/prove.c).
 * Both terms are linear in their vectors, so with bases made once from H
 *   h[j]  = zinv/N · Σ_{i<N−1} ω^(−ij)·g^(−i)·H_i   (j < N: icoset_fft's rows),
 *   H″[j] = −zinv/N · Σ_{i<N−1} ω^(−ij)·H_i          (ifft's rows),
 * the sum is Σ_j (A·B)_j·h[j] + Σ_j c_j·H″[j], and c = C·z moves into the
 * witness's sums: Σ_j c_j·H″[j] = Σ_k z_k·W_k, W_k = Σ_j C[j][k]·H″[j].
 * So l[k] = L_k + W_(ni+k) for each aux k and w_in[k] = W_k for each input
 * (inputs have no L point; the prover adds Σ z_k·w_in[k]). The prover
 * then needs a, b only (no c), their iNTT and coset NTT (four transforms)
 * and one pointwise product; its H and L sums differ from the standard
 * path's, their total (and so the proof, for the same r, s) does not.
 * g = CZK_FR_GENERATOR, ω = czk_fr_root_of_unity(log_n), N = 2^log_n.
 * Source: czk's own; the identity holds for any witness, satisfied or not.
 */
struct czk_params_lagrange {
    uint32_t log_n;      /* domain of the shape: czk_domain_log(num_constraints) */
    uint32_t num_inputs; /* ONE included */
    uint32_t num_aux;
    czk_g1_affine *h;    /* 2^log_n points, indexed by coset position j */
    czk_g1_affine *l;    /* num_aux points: L_k + W_(ni+k) */
    czk_g1_affine *w_in; /* num_inputs points: W_k */
};

/*
 * Makes the Lagrange form of params for shape from the points of H and L
 * (any parameters, a ceremony's included): two NTTs over G1 of 2^log_n
 * points (N/2·log_n scalar products, on the pool), then W by C's columns.
 * Args:    pool: runs the work (NULL: this thread).
 * In:      params: held host vectors h and l (decoded here if encoded);
 *          shape: the circuit params were made for.
 * Out:     *out: the form (czk_params_lagrange_free); NULL on failure.
 * Returns: CZK_OK; CZK_ERR_MISMATCH (lengths that do not fit the shape,
 *          czk_params_check_shape's message); CZK_ERR_INVALID_ARG (h or l
 *          not held on the host: dropped for a device copy); CZK_ERR_NOMEM;
 *          czk_params_decode_vectors' errors.
 * Cost:    ≈ 2·(N/2)·log_n G1 products by 255-bit scalars: seconds at
 *          2^12 on one core, hours at 2^27 on a CPU (a GPU's job there).
 */
CZK_NODISCARD czk_status czk_params_lagrange_derive(czk_params_lagrange **out,
                                                    const czk_params *params,
                                                    const czk_shape *shape, czk_pool *pool,
                                                    czk_err *err) CZK_NONNULL(1, 2, 3);

/*
 * The scaled NTT over G1 the derivation runs twice:
 *   out[j] = Σ_{i<N} ρ^(ij)·x_i,  x_i = c·step^i·in[i] for i < n_used, infinity for
 *   n_used <= i < N = 2^log_n.
 * In:  in: n_used affine points (host memory); c, step, rho: Fr (Montgomery
 *      form; rho an N-th root of unity).
 * Out: out: N affine points (host memory; infinity all-zero).
 * Returns: CZK_OK; CZK_ERR_NOMEM; a device's errors.
 * czk_g1_ntt_cpu: on the pool ctx (a czk_pool *, NULL: this thread):
 *   radix 2 in place, 2^(log_n−1)·log_n products by 255-bit scalars
 *   (blst), then one batch conversion. A GPU's: czk_cuda_g1_ntt (cuda.h).
 */
typedef czk_status (*czk_g1_ntt_fn)(void *ctx, czk_g1_affine *out, const czk_g1_affine *in,
                                    size_t n_used, unsigned log_n, const czk_fr *c,
                                    const czk_fr *step, const czk_fr *rho, czk_err *err);
CZK_NODISCARD czk_status czk_g1_ntt_cpu(void *pool, czk_g1_affine *out, const czk_g1_affine *in,
                                        size_t n_used, unsigned log_n, const czk_fr *c,
                                        const czk_fr *step, const czk_fr *rho, czk_err *err);
/*
 * czk_params_lagrange_derive with the two NTTs on `ntt` (ctx passed to it);
 * the rest (W by C's columns, L + W, the conversions) on the pool. The
 * points are the same whatever runs the NTTs.
 */
CZK_NODISCARD czk_status czk_params_lagrange_derive_with(czk_params_lagrange **out,
                                                         const czk_params *params,
                                                         const czk_shape *shape, czk_g1_ntt_fn ntt,
                                                         void *ntt_ctx, czk_pool *pool,
                                                         czk_err *err) CZK_NONNULL(1, 2, 3, 4);
/* Frees a Lagrange form (NULL is fine). */
void czk_params_lagrange_free(czk_params_lagrange *lagrange);
/*
 * The form's file: a machine's cache of it, not an interchange format (the
 * points as this build holds them in memory: blst's affine structs, 96
 * bytes each, native byte order). Layout: a 512-byte header — magic
 * "CZKLAGR1", u32 version 1, u32 log_n, u32 inputs, u32 aux (little-endian),
 * at 24 the BLAKE2b-512 of the encoded vk of the parameters it was made
 * from (czk_vk_encode), at 88, 152, 216 the tree digests (czk_tree_digest)
 * of h, l and w_in, at 448 the BLAKE2b-512 of the header's first 448
 * bytes — then h, l, w_in. The name it is looked up by in a parameter
 * cache: czk_params_lagrange_file_name, "czk-lagrange-" and the first 32
 * hex characters of the vk digest, ".bin".
 * czk_params_lagrange_write: writes lagrange (made from params whose vk is
 *   vk) to path (a temporary file synced and renamed into place; the
 *   digests on the pool). Returns: CZK_OK; CZK_ERR_INVALID_ARG (a vector
 *   not held); CZK_ERR_IO naming the step and file (nothing left under
 *   path); CZK_ERR_NOMEM.
 * czk_params_lagrange_read: reads path for parameters with verifying key
 *   vk and shape; every byte is checked against the header's digests.
 *   Out: *out (czk_params_lagrange_free); NULL on failure.
 *   Returns: CZK_OK; CZK_ERR_IO (open, read); CZK_ERR_FORMAT (magic,
 *   version, a checksum or digest mismatch naming the vector, trailing
 *   bytes); CZK_ERR_TRUNCATED; CZK_ERR_MISMATCH (another vk: "made from
 *   other parameters", or counts that do not fit the shape); CZK_ERR_NOMEM.
 */
#define CZK_LAGRANGE_NAME_MAX 64
void czk_params_lagrange_file_name(char out[CZK_LAGRANGE_NAME_MAX], const czk_vk *vk)
    CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_params_lagrange_write(const czk_params_lagrange *lagrange,
                                                   const czk_vk *vk, const char *path,
                                                   czk_pool *pool, czk_err *err)
    CZK_NONNULL(1, 2, 3);
CZK_NODISCARD czk_status czk_params_lagrange_read(czk_params_lagrange **out, const char *path,
                                                  const czk_vk *vk, const czk_shape *shape,
                                                  czk_pool *pool, czk_err *err)
    CZK_NONNULL(1, 2, 3, 4);

/*
 * Whether lagrange fits shape (log_n, inputs and aux): CZK_OK, else
 * CZK_ERR_MISMATCH naming the first count that differs. Reads counts only.
 */
CZK_NODISCARD czk_status czk_params_lagrange_check(const czk_params_lagrange *lagrange,
                                                   const czk_shape *shape, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * Frees the host vectors of params named by mask (CZK_SRS_H, CZK_SRS_L,
 * CZK_SRS_A, CZK_SRS_B_G1, CZK_SRS_B_G2; other bits are ignored) and sets
 * them to NULL, once a backend's device copy has taken their place
 * (host_droppable of czk_backend_ops.load). vk and vk.ic always stay. With
 * a Lagrange form attached, CZK_SRS_H and CZK_SRS_L free its h and l too
 * (the device copies are the form's then); its w_in stays.
 * Returns: the CZK_SRS_* bits of the vectors it freed (those of mask that
 *          were held).
 * In/Out:  params:      the parameters (lengths stay as they were).
 * Out:     freed_bytes: NULL, or the bytes of the freed vectors added to it.
 * Source:  czk's own (the SRS cache of src/engine/srs.c, czk_porep_c2_load).
 */
unsigned czk_params_drop_host(czk_params *params, unsigned mask, uint64_t *freed_bytes)
    CZK_NONNULL(1);

/*
 * Encoded sizes in bytes of a vk / params file with these lengths:
 * CZK_VK_FIXED_BYTES + 4 + 96·ic_len for the vk, then five u32 lengths and
 * 96 bytes per G1 point of h, l, a, b_g1 and 192 per G2 point of b_g2.
 * Never fail.
 */
uint64_t czk_vk_encoded_size(uint32_t ic_len);
uint64_t czk_params_encoded_size(const czk_params *params);

/* ---- reading and writing parameter files ---- */

/* Read flags. */
#define CZK_PARAMS_FULL_CHECK 1u /* subgroup-check everything; ignore stamps and known digests */
#define CZK_PARAMS_NO_STAMP 2u   /* neither use nor write stamps */
#define CZK_PARAMS_ENCODED 4u    /* leave the five vectors encoded when a stamp trusts the file */

/* How a file's subgroup membership was established. */
typedef enum czk_params_trust {
    CZK_TRUST_CHECKED = 0, /* every point subgroup-checked now */
    CZK_TRUST_STAMP,       /* a stamp from an earlier full check matched */
    CZK_TRUST_KNOWN,       /* the digest is a published Filecoin v28 digest */
} czk_params_trust;

/*
 * Progress of a read, reported in bytes of the file (czk_params_decode: of
 * the buffer). Called on the thread that called czk_params_read /
 * czk_params_decode, never concurrently, between pieces of work:
 *
 *   - The reading pass (stage "vk", "ic", "h", "l", "a", "b_g1", "b_g2": the
 *     section being read and checked) reports done_bytes = the bytes read
 *     and decoded so far (range and on-curve checks; with
 *     CZK_PARAMS_FULL_CHECK also the subgroup check). An encoded read
 *     (CZK_PARAMS_ENCODED) reads pieces in parallel: as the part of the
 *     file read without a gap grows, it reports every section end it
 *     passes and then its end, with the stage of the section it lies in.
 *   - When the subgroup check runs as a pass of its own after the digest
 *     (neither a known digest nor a stamp; "Reading validates every point"
 *     above), that pass reports stages "subgroup h", "subgroup l",
 *     "subgroup a", "subgroup b_g1", "subgroup b_g2", with done_bytes = the
 *     end in the file of the points checked so far. It starts again from the
 *     offset of section h; within each pass done_bytes never decreases.
 *     Just before that pass comes one notice: a call whose stage begins
 *     with CZK_PARAMS_NOTICE ("full check: ") and says why the pass runs
 *     (no stamp for these bytes and no published digest, a stamp for
 *     other bytes, stamps off) and about how long it will take here
 *     ("... about 7 min on 2 threads, once ..."), done_bytes = the offset
 *     of section h. A caller logs it (the engine, czk prove do); it is no
 *     stage of the load.
 *
 * total_bytes is the file size in every call and done_bytes <= total_bytes.
 * Calls come at the end of every section and, inside a section, between
 * its 16 MiB pieces at most once per 1 % of total_bytes, so a 47 GiB file
 * gives about two hundred calls per pass. Each pass ends with a call with done_bytes ==
 * total_bytes, so the last call of a successful read has it too. On failure the calls just stop.
 * The callback must not call back into the reader and should return quickly (it delays reading).
 */
typedef void (*czk_params_progress_fn)(void *ctx, const char *stage, uint64_t done_bytes,
                                       uint64_t total_bytes);

/* The stage prefix of the notice before a subgroup pass (czk_params_progress_fn). */
#define CZK_PARAMS_NOTICE "full check: "

typedef struct czk_params_read_opts {
    unsigned flags;                  /* CZK_PARAMS_* */
    const char *stamp_dir;           /* NULL: $CZK_CACHE_DIR/stamps, else $HOME/.cache/czk/stamps */
    czk_pool *pool;                  /* decoding and checks run on it (NULL: this thread) */
    czk_params_progress_fn progress; /* NULL: no progress reports */
    void *progress_ctx;              /* passed to progress */
} czk_params_read_opts;

/* What a read found out (filled on success). */
typedef struct czk_params_read_info {
    czk_params_trust trust;
    bool has_blake2b;        /* the plain digest was computed (see "Digests" above) */
    uint8_t blake2b[64];     /* BLAKE2b-512 of the whole file (zero without has_blake2b) */
    char digest[33];         /* its first 32 hex characters (parameters.json's "digest"), or "" */
    uint8_t tree[64];        /* the tree digest of the file (czk_tree_digest) */
    const char *known;       /* for CZK_TRUST_KNOWN, the published file's name, else NULL */
    bool stamp_written;      /* a new stamp was recorded */
    uint64_t bytes;          /* file size */
    double seconds_read;     /* reading + range/on-curve decoding (wall); encoded: reading and
                                the tree digest of the parallel read */
    double seconds_hash;     /* digest wall time beyond the read (waiting for the hashers) */
    double seconds_subgroup; /* the subgroup pass (0 when skipped) */
} czk_params_read_info;

/*
 * Reads and validates a .params file (layout and checks above).
 * Args: opts may be NULL (defaults: stamps on, serial), info may be NULL.
 * Out: *out  the parameters (czk_params_free); NULL on failure.
 *      info  filled on success.
 * Returns: CZK_OK; one of the statuses above, the message naming the
 *   section and point index. A failure to write a stamp is not an
 *   error (info->stamp_written stays false).
 */
CZK_NODISCARD czk_status czk_params_read(czk_params **out, const char *path,
                                         const czk_params_read_opts *opts,
                                         czk_params_read_info *info, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * The same from memory (fuzzing, tests): no stamps; both digests are
 * computed; the known-digest rule applies unless CZK_PARAMS_FULL_CHECK.
 * In: buf, len  a whole .params file, not kept.
 * Out, Returns: as czk_params_read (no stamp errors).
 */
CZK_NODISCARD czk_status czk_params_decode(czk_params **out, const uint8_t *buf, size_t len,
                                           const czk_params_read_opts *opts,
                                           czk_params_read_info *info, czk_err *err) CZK_NONNULL(1);

/*
 * Decodes encoded vectors (params->encoded) in place on the host, once:
 * every point of h, l, a, b_g1 and b_g2 still held (a vector freed by its
 * owner, NULL, is skipped) is range- and on-curve-checked and converted
 * to blst's affine form, on the pool, with the reader's statuses and
 * messages (CZK_ERR_EC_FLAGS, _FP_RANGE, _NOT_ON_CURVE, _NOT_IN_GROUP for
 * blst's (0, ±2), _INFINITY; "params: section l, point 17: G1 point: not
 * on the curve", the lowest failing index of the first failing section).
 * No subgroup check: encoded params come only from a stamp-trusted file.
 * Parameters that are not encoded return CZK_OK at once. Safe to call
 * from several threads at once (one decodes, the others wait for it);
 * params is const because only the representation changes, as for a
 * lazily filled cache: consumers holding const params call it.
 * Returns: CZK_OK (params->encoded is then false), or the first defect's
 *   status; a failure is final: the vectors stay partly decoded, encoded
 *   stays true and every later call returns the same error (free the
 *   parameters).
 */
CZK_NODISCARD czk_status czk_params_decode_vectors(const czk_params *params, czk_pool *pool,
                                                   czk_err *err) CZK_NONNULL(1);

/*
 * The reader's verdict on one point of an encoded vector, for a backend
 * that decodes on the device and must name a defect as the host does:
 * `vector` is one CZK_SRS_* bit (h, l, a, b_g1, b_g2), index < its length.
 * Reads the host bytes only (params must be encoded and the vector held).
 * Returns: CZK_OK if the point decodes with czk_params_decode_vectors'
 *   checks, else its status and message ("params: section b_g2, point 3:
 *   G2 point: coordinate bytes 48..95 are not below the field modulus
 *   p"); after a failed czk_params_decode_vectors (the vectors partly
 *   decoded) that failure, for any point; CZK_ERR_INVALID_ARG for params
 *   that are not encoded, a vector not held or an index out of range.
 */
CZK_NODISCARD czk_status czk_params_check_encoded_point(const czk_params *params, unsigned vector,
                                                        size_t index, czk_err *err) CZK_NONNULL(1);

/*
 * Reads a .vk file (or, czk_vk_decode, the vk and ic of a buffer that must
 * end there). Every point is checked in full (subgroup included).
 * Out: *out  owns out->ic on success (czk_vk_free); zeroed on failure.
 * Returns: CZK_OK; as czk_params_read for sections vk and ic (the message
 *   prefixed "vk <path>: " / "vk: "): CZK_ERR_IO, CZK_ERR_TRUNCATED,
 *   CZK_ERR_FORMAT (bytes after ic), the CZK_ERR_EC_* of a bad point,
 *   CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_vk_read(czk_vk *out, const char *path, czk_err *err) CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_vk_decode(czk_vk *out, const uint8_t *buf, size_t len, czk_err *err)
    CZK_NONNULL(1);

/*
 * Writes a .vk / .params file byte for byte as bellperson does
 * (VerifyingKey::write, Parameters::write). The file is written under a
 * temporary name in the same directory and renamed into place. Encoded
 * params are decoded first (czk_params_decode_vectors). pool: the encoding
 * (NULL: this thread).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG naming the first point at infinity
 *   (none may be); CZK_ERR_IO (the temporary file, a write, the rename;
 *   nothing is left under path); CZK_ERR_NOMEM; czk_params_decode_vectors'
 *   errors.
 * czk_vk_encode: Out: out  czk_vk_encoded_size(vk->ic_len) bytes; never
 *   fails (infinity points are encoded as such).
 */
CZK_NODISCARD czk_status czk_vk_write(const czk_vk *vk, const char *path, czk_err *err)
    CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_params_write(const czk_params *params, const char *path,
                                          czk_pool *pool, czk_err *err) CZK_NONNULL(1, 2);
void czk_vk_encode(uint8_t *out, const czk_vk *vk) CZK_NONNULL(1, 2);

/*
 * czk_params_write, then a stamp for the file just written (the stamp a full
 * validation would record; see "Reading validates every point" above), so
 * that its first czk_params_read skips the subgroup pass. Only for
 * parameters whose points the caller computed itself as multiples of the
 * generators (czk_setup), which are subgroup members by construction. The
 * tree digest is taken over the bytes as they are written.
 * Args: stamp_dir as czk_params_read_opts.stamp_dir (NULL: the default);
 *       stamped (may be NULL): set true if the stamp was written.
 * Returns: as czk_params_write; a stamp that cannot be written is not an
 *   error (*stamped stays false).
 */
CZK_NODISCARD czk_status czk_params_write_stamped(const czk_params *params, const char *path,
                                                  const char *stamp_dir, bool *stamped,
                                                  czk_pool *pool, czk_err *err) CZK_NONNULL(1, 2);

/*
 * Checks the five vector lengths against what a circuit needs before
 * proving starts: h = N − 1 for its domain, l = #aux, a = #inputs + A-dense
 * aux, b_g1 = b_g2 = B-dense inputs + B-dense aux, and ic = #inputs (pass
 * UINT64_MAX for a length not to check).
 * Returns: CZK_OK, or CZK_ERR_MISMATCH naming the first section that differs.
 */
CZK_NODISCARD czk_status czk_params_check_lengths(const czk_params *params, uint64_t ic, uint64_t h,
                                                  uint64_t l, uint64_t a, uint64_t b, czk_err *err)
    CZK_NONNULL(1);

/*
 * The published v28 Filecoin parameter file whose digest (32 lower-case
 * hex characters) this is, e.g. "v28-stacked-proof-of-replication-...-8-8-0-
 * sha256_hasher-82a357d2....params"; NULL if none.
 * Source: parameters.json (porep-circuit.md §1).
 */
const char *czk_params_known_digest(const char *digest_hex32);

/*
 * The tree digest of stamps: the data is cut into consecutive pieces of
 * CZK_TREE_PIECE_BYTES = 2^26 bytes (64 MiB; the last piece shorter, none
 * for empty data), each piece is hashed with BLAKE2b-512 (64-byte digest,
 * no key), and the tree digest is BLAKE2b-512 of the concatenation of the
 * piece digests in order. In Python:
 *   d = b"".join(hashlib.blake2b(data[i:i + 2**26]).digest()
 *                for i in range(0, len(data), 2**26))
 *   tree = hashlib.blake2b(d).digest()
 * It is not the plain digest that parameters.json publishes. The pieces
 * are hashed on the pool. Returns CZK_OK or CZK_ERR_NOMEM.
 */
#define CZK_TREE_PIECE_BYTES ((uint64_t)1 << 26)
CZK_NODISCARD czk_status czk_tree_digest(uint8_t out[64], const void *data, size_t len,
                                         czk_pool *pool, czk_err *err) CZK_NONNULL(1);

/* ---- proofs ---- */

/*
 * 192 bytes: A compressed (48) ‖ B compressed (96) ‖ C compressed (48),
 * as bellperson's Proof::write. Never fails; the points should not be
 * infinity (such an encoding is refused by czk_proof_decode).
 */
void czk_proof_encode(uint8_t out[CZK_PROOF_BYTES], const czk_proof *proof) CZK_NONNULL(1, 2);

/*
 * Decodes a 192-byte proof with every check (flags, range, on curve,
 * subgroup). Infinity is refused (CZK_ERR_EC_INFINITY), as bellperson's
 * Proof::read does.
 * Out: *out  the proof; unspecified on failure.
 * Returns: CZK_OK; the first failing point's CZK_ERR_EC_* status (ec.h),
 *   the message naming it and its bytes ("proof: B (bytes 48..143): ...");
 *   CZK_ERR_EC_INFINITY for a point at infinity.
 */
CZK_NODISCARD czk_status czk_proof_decode(czk_proof *out, const uint8_t in[CZK_PROOF_BYTES],
                                          czk_err *err) CZK_NONNULL(1, 2);

/* ---- verification ---- */

/*
 * A verifying key prepared for pairings: e(α, β) and the Miller-loop lines
 * of β, γ and δ, with a copy of IC. Build once per vk. The struct is
 * ~60 KB (three tables of 68 Fp6 lines): keep it on the heap where stacks
 * are small.
 */
typedef struct czk_pvk {
    blst_fp12 alpha_beta; /* e(α₁, β₂) after the final exponentiation */
    blst_fp6 beta_lines[68], gamma_lines[68], delta_lines[68];
    czk_g1_affine alpha_g1;
    czk_g1_affine *ic;
    uint32_t ic_len;
} czk_pvk;

/* Returns CZK_OK, CZK_ERR_INVALID_ARG (a vk point at infinity, empty ic) or CZK_ERR_NOMEM. */
CZK_NODISCARD czk_status czk_pvk_prepare(czk_pvk *out, const czk_vk *vk, czk_err *err)
    CZK_NONNULL(1, 2);
/* Frees pvk->ic and clears ic and ic_len (the struct is the caller's). NULL is fine. */
void czk_pvk_free(czk_pvk *pvk);

/*
 * Verifies one proof against the public inputs (without ONE: inputs[i] is
 * the value of input i+1): e(A, B) = e(α, β) · e(Σ_{i≥0} in_i·IC_i, γ) · e(C, δ)
 * with in_0 = 1, checked as one product of Miller loops and one final
 * exponentiation. The proof's points must be subgroup members (as
 * czk_proof_decode guarantees).
 * Returns: CZK_OK, CZK_ERR_VERIFY if the equation fails, CZK_ERR_MISMATCH if
 *   num_inputs + 1 != ic_len, CZK_ERR_INVALID_ARG for a proof point at infinity.
 */
CZK_NODISCARD czk_status czk_verify(const czk_pvk *pvk, const czk_proof *proof,
                                    const czk_fr *inputs, size_t num_inputs, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * Verifies n proofs at once by a random linear combination (as bellperson's
 * verify_proofs_batch): with random non-zero r_j (getrandom),
 *   Π_j e(r_j·A_j, B_j) = e((Σ r_j)·α, β) · e(Σ_j r_j·acc_j, γ) · e(Σ_j r_j·C_j, δ).
 * n Miller loops plus three with prepared lines, one final exponentiation.
 * inputs holds n × num_inputs values, proof j's at inputs[j·num_inputs].
 * A batch that holds an invalid proof fails except with probability ~1/r;
 * it does not say which proof is bad (verify them one by one for that).
 * Returns as czk_verify (CZK_OK for n = 0), or CZK_ERR_IO if getrandom fails.
 */
CZK_NODISCARD czk_status czk_verify_batch(const czk_pvk *pvk, const czk_proof *proofs, size_t n,
                                          const czk_fr *inputs, size_t num_inputs, czk_pool *pool,
                                          czk_err *err) CZK_NONNULL(1);

/* ---- setup (test keys) ---- */

/*
 * The toxic waste of a setup. Anyone who knows it can forge proofs: keys
 * made from it are for tests and benchmarks only (Filecoin's keys come from
 * the phase-2 ceremony).
 */
typedef struct czk_toxic {
    czk_fr alpha, beta, gamma, delta, tau;
} czk_toxic;

/*
 * Draws non-zero α, β, γ, δ, τ from rng (NULL: getrandom), czk_fr_random
 * each, redrawn while zero.
 * Returns: CZK_OK; CZK_ERR_IO if getrandom fails (out partly written).
 */
CZK_NODISCARD czk_status czk_toxic_random(czk_toxic *out, czk_rng *rng, czk_err *err)
    CZK_NONNULL(1);

/*
 * Parameters for a recorded shape from the toxic waste, laid out exactly as
 * bellperson's generator (src/groth16/generator.rs) lays them out, with the
 * standard generators G1, G2 as bases. With n = shape->num_constraints, the
 * domain N = 2^⌈log2 n⌉ and u_j, v_j, w_j the QAP polynomials of column j of
 * A, B, C (evaluated at τ through the Lagrange basis of the domain, i.e.
 * the inverse NTT of the powers of τ):
 *   h_i  = τ^i·Z(τ)/δ·G1, i < N−1, Z(τ) = τ^N − 1
 *   ic_j = (β·u_j + α·v_j + w_j)/γ·G1 for inputs, l_j the same over δ for aux
 *   a    = u_j·G1 for every input, then for aux with A density
 *   b_g1, b_g2 = v_j·G1, v_j·G2 for inputs with B density, then aux with B density
 *   vk   = α·G1, β·G1, β·G2, γ·G2, δ·G1, δ·G2
 * czk_setup computes the products with fixed-base window tables of G1 and
 * G2 on the pool (the CPU setup backend below).
 * Returns: CZK_OK and *out; CZK_ERR_INVALID_ARG if an aux variable is in no
 *   constraint (its l point would be infinity; bellperson refuses it too),
 *   if a density bit is set for a column whose polynomial vanishes at τ, or
 *   if a toxic value is zero; CZK_ERR_UNSUPPORTED for a domain above 2^28;
 *   CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_setup(czk_params **out, const czk_shape *shape, const czk_toxic *toxic,
                                   czk_pool *pool, czk_err *err) CZK_NONNULL(1, 2, 3);

/*
 * Where a setup's fixed-base products k·G are computed (the CPU, a GPU:
 * include/czk/cuda.h, czk_setup_backend_cuda). The scalars are the common
 * code's (one code path for every backend); a backend only multiplies the
 * generators, so all backends give the same points (the affine point k·G is
 * unique) and the same files byte for byte.
 *
 *   g1(self, out, k, n, err) / g2(...)
 *       out[i] = k[i]·G1 (G2) for i < n, affine in blst's layout
 *       (czk_g1_affine / czk_g2_affine); a zero k[i] gives the all-zero
 *       affine (infinity). k and out are host memory; n may be a whole
 *       vector (up to 2^28): the backend splits it. Required.
 *   g1_enc(self, out, k, n, err) / g2_enc(...)
 *       The same written as uncompressed zcash encodings (96 / 192 bytes
 *       per point, as czk_g1_serialize / czk_g2_serialize; infinity is 0x40
 *       then zeros). NULL: the common code encodes g1's output on the pool.
 *   intt(self, data, log_n, err)
 *       The inverse NTT (czk_ntt's CZK_NTT_INVERSE) of 2^log_n host
 *       elements in place, 1 <= log_n <= 28. NULL: czk_ntt on the pool.
 *   host_alloc(self, bytes) / host_free(self, p, bytes)
 *       Host memory that g1_enc / g2_enc write into fastest (page-locked
 *       for a GPU's copies), for czk_setup_write's piece buffers; NULL or a
 *       NULL result: malloc.
 *   destroy(self)  releases the backend (may be NULL).
 * Each returns CZK_OK or a status naming the failure (CZK_ERR_NOMEM,
 * CZK_ERR_DEVICE, ...). A backend is used by one thread at a time.
 */
typedef struct czk_setup_ops {
    const char *name;
    czk_status (*g1)(void *self, czk_g1_affine *out, const czk_fr *k, size_t n, czk_err *err);
    czk_status (*g2)(void *self, czk_g2_affine *out, const czk_fr *k, size_t n, czk_err *err);
    czk_status (*g1_enc)(void *self, uint8_t *out, const czk_fr *k, size_t n, czk_err *err);
    czk_status (*g2_enc)(void *self, uint8_t *out, const czk_fr *k, size_t n, czk_err *err);
    czk_status (*intt)(void *self, czk_fr *data, unsigned log_n, czk_err *err);
    void *(*host_alloc)(void *self, size_t bytes);
    void (*host_free)(void *self, void *p, size_t bytes);
    void (*destroy)(void *self);
} czk_setup_ops;

typedef struct czk_setup_backend {
    const czk_setup_ops *ops;
    void *self;
} czk_setup_backend;

/*
 * The CPU setup backend: signed-window fixed-base tables of G1 and G2
 * (w = 13: 21 windows of 4,096 points; src/groth16/fixed_base.h) and
 * batched affine sums on the pool (which must outlive the backend).
 * Out: *out  the backend (czk_setup_backend_release).
 * Returns: CZK_OK; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_setup_backend_cpu(czk_setup_backend *out, czk_pool *pool, czk_err *err)
    CZK_NONNULL(1);
/* Releases a setup backend (calls ops->destroy; NULL ops is fine). */
void czk_setup_backend_release(czk_setup_backend *b);

/*
 * Wall seconds of a setup's phases. Streaming (czk_setup_write): each
 * vector's time covers its products and handing them to the writer,
 * waits for free write buffers included; the writer hashes and writes on
 * threads of its own meanwhile, and `write` is what is left of that after
 * the last vector (the last pieces, fdatasync, rename).
 */
typedef struct czk_setup_timings {
    double lagrange; /* powers of τ, their inverse NTT (the Lagrange basis at τ), h's scalars */
    double qap;      /* u, v, w at τ: A, B, C transposed by column and summed */
    double scalars;  /* the ic, l, a, b scalars and their checks */
    double vk, ic, h, l, a, b_g1, b_g2; /* products (and writing) per vector */
    double write;                       /* czk_setup_write: the rest of the writes, sync */
    double stamp;                       /* czk_setup_write: the stamp */
    double total;
} czk_setup_timings;

/*
 * Progress of czk_setup_with / czk_setup_write: called on the calling
 * thread as each phase ends ("lagrange", "qap", "scalars", "vk", "ic", "h",
 * "l", "a", "b_g1", "b_g2", "write", "stamp"), with its wall seconds and the
 * number of points it made (0 for the phases that make none).
 */
typedef void (*czk_setup_phase_fn)(void *ctx, const char *phase, double seconds, uint64_t points);

/*
 * Progress inside the phases of czk_setup_with / czk_setup_write, on the
 * calling thread: as the setup begins ("lagrange", done 0, total 0: the
 * scalars, then "qap", count nothing), as each vector's phase begins ("ic",
 * "h", "l", "a", "b_g1", "b_g2": done 0, total its points), and for the
 * vectors czk_setup_write streams to the file after each piece of their
 * points (done of total).
 */
typedef void (*czk_setup_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

typedef struct czk_setup_opts {
    const char *stamp_dir;          /* czk_setup_write: as czk_params_read_opts.stamp_dir */
    bool no_stamp;                  /* czk_setup_write: write no stamp */
    czk_setup_phase_fn phase;       /* NULL: no reports */
    void *phase_ctx;                /* passed to phase and progress */
    czk_setup_timings *timings;     /* NULL, or filled (zeroed first) */
    czk_setup_progress_fn progress; /* NULL: no progress reports */
} czk_setup_opts;

/*
 * czk_setup with the products on `backend` (the scalars on `pool`), into
 * memory. opts may be NULL. Returns as czk_setup, or the backend's status.
 */
CZK_NODISCARD czk_status czk_setup_with(czk_params **out, const czk_shape *shape,
                                        const czk_toxic *toxic, const czk_setup_backend *backend,
                                        czk_pool *pool, const czk_setup_opts *opts, czk_err *err)
    CZK_NONNULL(1, 2, 3, 4);

/*
 * The Lagrange form (czk_params_lagrange) of the parameters czk_setup_with
 * makes from the same shape and toxic waste, from the toxic waste itself:
 * the form's scalars (two inverse NTTs of scaled powers of τ, C's column
 * sums of the second, L's scalars plus them), then one product k·G each on
 * `backend` (a GPU's where given: 2^log_n + aux + inputs points). The
 * points equal czk_params_lagrange_derive's of those parameters without
 * its G1 NTTs: the way test keys get their form at every size.
 * In/Out/Returns: as czk_setup_with (its refusals, before any product).
 */
CZK_NODISCARD czk_status czk_setup_lagrange(czk_params_lagrange **out, const czk_shape *shape,
                                            const czk_toxic *toxic,
                                            const czk_setup_backend *backend, czk_pool *pool,
                                            czk_err *err) CZK_NONNULL(1, 2, 3, 4);

/*
 * The same parameters streamed into the .params file `path`, never held in
 * memory whole: the scalars of one vector are computed on the pool, the
 * backend makes its points piece by piece (encoded where it can), and the
 * piece writer hashes and writes them in file order (vk, ic, h, l, a, b_g1,
 * b_g2) on threads of its own. The file is byte for byte what
 * czk_params_write(czk_setup(...)) writes; it is written under a temporary
 * name (its size reserved first, so a full disk fails at once), synced and
 * renamed, then stamped with the tree digest computed on the way unless
 * opts->no_stamp (as czk_params_write_stamped). Host memory beyond the
 * shape: u, v, w (3 × 32 bytes per variable), one vector's scalars (32
 * bytes per point), the Lagrange basis until u, v, w are made (32·N) and
 * about 1 GiB of piece buffers.
 * Out: vk (may be NULL): the verifying key, owning its ic (czk_vk_free),
 *      for the .vk file (czk_vk_write); stamped (may be NULL): whether the
 *      stamp was written.
 * Returns: as czk_setup_with; CZK_ERR_IO for the file (nothing is left
 *   under path then). A stamp that cannot be written is not an error.
 */
CZK_NODISCARD czk_status czk_setup_write(const char *path, czk_vk *vk, bool *stamped,
                                         const czk_shape *shape, const czk_toxic *toxic,
                                         const czk_setup_backend *backend, czk_pool *pool,
                                         const czk_setup_opts *opts, czk_err *err)
    CZK_NONNULL(1, 4, 5, 6);

/*
 * The domain size exponent bellperson uses for n constraints: ⌈log2 n⌉ (0 for
 * n <= 1; bellperson EvaluationDomain::from_coeffs). Never fails.
 */
unsigned czk_domain_log(uint64_t n);

/*
 * Checks the parameter lengths against a shape (czk_params_check_lengths
 * with ic = #inputs, h = N−1, l = #aux, a = #inputs + popcount(a_aux),
 * b = popcount(b_input) + popcount(b_aux)).
 * Returns: CZK_OK; CZK_ERR_MISMATCH naming the section ("params: section h
 *   holds N points, the circuit needs M"), or a shape above 2^32
 *   constraints.
 */
CZK_NODISCARD czk_status czk_params_check_shape(const czk_params *params, const czk_shape *shape,
                                                czk_err *err) CZK_NONNULL(1, 2);

/* ---- proving ---- */

/*
 * The five multi-scalar products of one circuit, before randomization
 * (gpu-prover.md §1, "MSMs"):
 *   h  = Σ_{i<N−1} h_i·params.h[i]            (h_i: the quotient's coefficients)
 *   l  = Σ aux_j·params.l[j]
 *   a  = Σ in_i·params.a[i] + Σ_{j∈A-dense} aux_j·params.a[..]
 *   b1 = Σ_{B-dense} z_j·params.b_g1[..],  b2 = the same over params.b_g2
 */
typedef struct czk_msm_sums {
    czk_g1 h, l, a, b1;
    czk_g2 b2;
} czk_msm_sums;

/* Wall seconds per phase, summed over the circuits of a call. */
typedef struct czk_prove_timings {
    double witness; /* czk_prove_circuits only: running the circuits in WITNESS mode */
    double spmv;    /* a, b, c = A·z, B·z, C·z */
    double ntt;     /* the quotient H: 3 iNTT, 2 coset NTT, pointwise, coset iNTT, subtraction */
    double msm_h, msm_l, msm_a, msm_b1, msm_b2;
    double assemble; /* randomization with r, s and conversion to affine */
    double total;
    double upload; /* witness (and host-computed a, b, c) copied to the device; not in spmv */
} czk_prove_timings;

/*
 * A prover backend: everything between witnesses and the five sums, for a
 * batch of circuits of one shape. A backend may keep the parameters and the
 * shape resident (on a GPU) between calls; the common code (czk_prove) does
 * the randomization and assembly, so every backend gives the same proof bytes
 * for the same r and s.
 *
 *   sums(self, params, shape, w, count, out, timings, err)
 *       Computes out[k] for witness w[k], k < count. params and shape are the
 *       same objects on every call of one czk_prover. timings (never NULL) is
 *       added to. Returns CZK_OK or a status naming the failure.
 *   destroy(self)  releases the backend (may be NULL).
 */
typedef struct czk_device_lock czk_device_lock;

typedef struct czk_backend_ops {
    const char *name;
    czk_status (*sums)(void *self, const czk_params *params, const czk_shape *shape,
                       const czk_witness *w, size_t count, czk_msm_sums *out,
                       czk_prove_timings *timings, czk_err *err);
    void (*destroy)(void *self);
    /*
     * Optional members for the engine's split pipeline (NULL: not offered;
     * see czk_prove_device below).
     *
     *   device(self, params, shape, w, lock, out, deferred, timings, err)
     *       The device part of one circuit: fills out's sums except those
     *       whose CZK_SUM_* bits it sets in *deferred (set it to 0 first;
     *       the caller computes those on the CPU, czk_prove_finalize).
     *       Takes lock (never NULL; czk_device_lock_acquire/release) only
     *       around work that must own the device, and may do host-side
     *       preparation outside it, so that several workers can share one
     *       device. Stops at its checkpoints when lock->cancel is set
     *       (czk_device_lock: CZK_ERR_CANCELLED). Called by several threads
     *       at once.
     *   load(self, params, shape, host_droppable, device_bytes, err)
     *       Makes params (and the shape) resident on the device for later
     *       device() calls with the same objects. *host_droppable: CZK_SRS_*
     *       bits of host vectors the device part will no longer read (the
     *       caller may free them; vectors needed for deferred sums stay);
     *       *device_bytes: device memory now taken. CZK_ERR_NOMEM when the
     *       device has no room and nothing changed (params stay in host
     *       memory; device() streams them). A backend that instead pins
     *       the host vectors for faster streaming (cudaHostRegister)
     *       returns CZK_OK with *device_bytes 0 and *host_droppable 0.
     *   unload(self, params)  drops what load made resident.
     *   mem_info(self, total, free, err)
     *       The device's memory in bytes (for status pages). Called from any
     *       thread, also while device() runs. NULL: not reported (the CPU
     *       backend has no device memory).
     *   host_alloc(self, bytes) / host_free(self, p, bytes)
     *       Host memory that the backend reads fastest (page-locked for a
     *       GPU's DMA engine), for buffers that callers reuse across calls
     *       (witnesses): a witness whose inputs and aux lie in such memory
     *       is uploaded at full PCIe speed. host_alloc returns NULL when it
     *       cannot (the caller then uses malloc); host_free releases exactly
     *       what host_alloc returned, with the same size. Either may be
     *       called from any thread. Both NULL: not offered (use malloc).
     *       Allocating page-locked memory is slow (about 0.3 s per GiB):
     *       allocate once, reuse.
     */
    czk_status (*device)(void *self, const czk_params *params, const czk_shape *shape,
                         const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                         unsigned *deferred, czk_prove_timings *timings, czk_err *err);
    czk_status (*load)(void *self, const czk_params *params, const czk_shape *shape,
                       unsigned *host_droppable, uint64_t *device_bytes, czk_err *err);
    void (*unload)(void *self, const czk_params *params);
    czk_status (*mem_info)(void *self, uint64_t *total_bytes, uint64_t *free_bytes, czk_err *err);
    void *(*host_alloc)(void *self, size_t bytes);
    void (*host_free)(void *self, void *p, size_t bytes);
} czk_backend_ops;

typedef struct czk_backend {
    const czk_backend_ops *ops;
    void *self;
} czk_backend;

/*
 * The CPU backend (bellperson's native prover): czk_shape_eval, czk_ntt and
 * the bit-aware czk_msm_g1/g2 on the pool; H in six transforms instead of
 * bellperson's seven (the same coefficients: src/groth16/prove.c). The pool
 * must outlive the backend.
 * Out: *out  the backend (czk_backend_release).
 * Returns: CZK_OK; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_backend_cpu(czk_backend *out, czk_pool *pool, czk_err *err)
    CZK_NONNULL(1);

/* Releases a backend (calls ops->destroy) and clears it; NULL or NULL ops is fine. */
void czk_backend_release(czk_backend *b);

/*
 * Which card a device is, as the status pages show it (GetStatus, /status).
 *   name              the card's name ("NVIDIA H200"; a CPU pseudo-device:
 *                     "cpu pseudo-device K").
 *   uuid              "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form
 *                     nvidia-smi -L prints and CUDA_VISIBLE_DEVICES accepts;
 *                     "" when there is none (a pseudo-device).
 *   pci_bus_id        "0000:17:00.0" (domain:bus:device.function, as
 *                     nvidia-smi prints it); "" when there is none.
 *   vram_total_bytes  the card's memory; 0 when there is none.
 */
typedef struct czk_device_identity {
    char name[96];
    char uuid[48];
    char pci_bus_id[32];
    uint64_t vram_total_bytes;
} czk_device_identity;

/*
 * A kind of device backend as a composition root hands it to the engine
 * (czk_engine_opts.gpu; the CUDA backend's is czk_cuda_provider in
 * include/czk/cuda.h): the engine makes and asks devices only through it.
 *   name, label      the gpus.backend value that asks for it ("cuda") and its
 *                    name in messages ("CUDA").
 *   built()          whether this build has the backend (false: stand-ins).
 *   device_count()   devices present (0 without a GPU or its driver).
 *   make(...)        the backend of device ordinal `device` (czk_backend_release);
 *                    vram_budget_bytes as gpus.vram_budget (0: the device's).
 *   shape_resident(b, params)  whether b holds the CSR arrays of the shape
 *                    loaded with params on its device (so the host copy may go).
 *   identify(device, out, err)  (may be NULL: the engine then names a device
 *                    by its backend) which card device index `device` is;
 *                    CZK_OK, or the status of the query (out zeroed).
 * Device indices are the runtime's (0 .. device_count() − 1): for CUDA those
 * left by CUDA_VISIBLE_DEVICES, in the order CUDA_DEVICE_ORDER gives
 * (FASTEST_FIRST by default, PCI_BUS_ID as nvidia-smi numbers them).
 */
typedef struct czk_backend_provider {
    const char *name;
    const char *label;
    bool (*built)(void);
    int (*device_count)(void);
    czk_status (*make)(czk_backend *out, int device, czk_pool *pool, uint64_t vram_budget_bytes,
                       czk_err *err);
    bool (*shape_resident)(const czk_backend *b, const czk_params *params);
    czk_status (*identify)(int device, czk_device_identity *out, czk_err *err);
} czk_backend_provider;

/*
 * Proves count circuits of one shape from their witnesses with the
 * backend, then randomizes each (bellperson prover/native.rs):
 *   A = α₁ + a + r·δ₁
 *   B = β₂ + b2 + s·δ₂
 *   C = s·a + r·b1 + r·s·δ₁ + s·α₁ + r·β₁ + h + l
 * r and s hold count values each, or are NULL: then fresh random values
 * (getrandom) are drawn per circuit. Pass zeros to get bellperson's
 * non-randomized proofs.
 * Checks first that the parameters fit the shape (czk_params_check_shape)
 * and that every witness has the shape's input and aux counts with
 * inputs[0] = 1.
 * Returns: CZK_OK and out[0..count); CZK_ERR_MISMATCH; the backend's status.
 * timings may be NULL.
 */
CZK_NODISCARD czk_status czk_prove(const czk_backend *backend, const czk_params *params,
                                   const czk_shape *shape, const czk_witness *w, size_t count,
                                   const czk_fr *r, const czk_fr *s, czk_proof *out,
                                   czk_prove_timings *timings, czk_err *err)
    CZK_NONNULL(1, 2, 3, 8);

/*
 * Runs circuit(cs, ctx[k]) in WITNESS mode for k < count, the circuits in
 * parallel on `pool` (one circuit per task; NULL: one after another), timed
 * as `witness`, then czk_prove. The circuit must record `shape` (same
 * counts) and be safe to run on several threads at once with different ctx.
 * The witnesses are freed before returning.
 * Returns: CZK_OK; the first failing circuit's czk_cs_run status, prefixed
 *   "prove: witness of circuit K: "; CZK_ERR_NOMEM; czk_prove's errors.
 */
CZK_NODISCARD czk_status czk_prove_circuits(const czk_backend *backend, const czk_params *params,
                                            const czk_shape *shape, czk_circuit_fn circuit,
                                            void *const *ctx, size_t count, const czk_fr *r,
                                            const czk_fr *s, czk_proof *out,
                                            czk_prove_timings *timings, czk_pool *pool,
                                            czk_err *err) CZK_NONNULL(1, 2, 3, 4, 9);

/* ---- split proving (the engine: device part, then finalize part) ---- */

/*
 * The lock of one device, shared by the workers of that device, and the
 * cancel flag of the job whose circuit is proved under it. acquire and
 * release are the engine's (they also time the device work and emit its
 * events); a backend calls them through czk_device_lock_acquire/release
 * around each section that must own the device, never nested.
 * cancel (may be NULL): the job's cancel flag. A backend reads it
 * (czk_device_lock_cancelled) at its checkpoints — once it holds the
 * device, and after each phase: witness upload, SpMV, H (its NTTs), each
 * MSM — and when it is set stops there: it releases what it holds and
 * returns CZK_ERR_CANCELLED "prove: cancelled after <phase>", its sums
 * undefined. So a cancelled job leaves the device within one phase (one
 * kernel or MSM), not at the end of the circuit.
 */
struct czk_device_lock {
    void (*acquire)(void *ctx);
    void (*release)(void *ctx);
    void *ctx;
    const atomic_int *cancel;
};

static inline void czk_device_lock_acquire(const czk_device_lock *l) {
    if (l && l->acquire) l->acquire(l->ctx);
}
static inline void czk_device_lock_release(const czk_device_lock *l) {
    if (l && l->release) l->release(l->ctx);
}
/* Whether l's job was cancelled (false without a lock or a flag). */
static inline bool czk_device_lock_cancelled(const czk_device_lock *l) {
#ifdef __cplusplus
    return l && l->cancel && l->cancel->load(std::memory_order_relaxed) != 0;
#else
    return l && l->cancel && atomic_load_explicit(l->cancel, memory_order_relaxed) != 0;
#endif
}

/* Sums a device part may leave to the finalizer (bits of *deferred). */
#define CZK_SUM_B2 1u /* the G2 MSM of B (bellperson's b_g2, CPU in supraseal) */

/* Host vectors of czk_params (bits of host_droppable). */
#define CZK_SRS_H 1u
#define CZK_SRS_L 2u
#define CZK_SRS_A 4u
#define CZK_SRS_B_G1 8u
#define CZK_SRS_B_G2 16u

/*
 * The device part of one circuit: ops->device when the backend has it,
 * else ops->sums (count 1) with the whole call under the lock and nothing
 * deferred. The witness must have the shape's counts and inputs[0] = 1
 * (CZK_ERR_MISMATCH otherwise); params must fit the shape (checked once by
 * the caller, czk_params_check_shape).
 * Out: *sums      the sums not deferred; *deferred  the CZK_SUM_* bits left
 *                 to czk_prove_finalize (0 first).
 * Returns: CZK_OK; CZK_ERR_MISMATCH (the witness); CZK_ERR_CANCELLED (lock's
 *   cancel flag was set: the backend stopped at a checkpoint, or a backend
 *   without ops->device was not started); the backend's status.
 * timings may be NULL.
 */
CZK_NODISCARD czk_status czk_prove_device(const czk_backend *backend, const czk_params *params,
                                          const czk_shape *shape, const czk_witness *w,
                                          const czk_device_lock *lock, czk_msm_sums *sums,
                                          unsigned *deferred, czk_prove_timings *timings,
                                          czk_err *err) CZK_NONNULL(1, 2, 3, 4, 6, 7);

/*
 * The finalize part: computes the deferred sums on the CPU (CZK_SUM_B2:
 * czk_msm_g2 over the B-dense inputs ‖ aux of w with params->b_g2, on pool),
 * then randomizes and assembles as czk_prove does (czk_proof_assemble).
 * r, s NULL: fresh random values. The same r, s give the same proof as
 * czk_prove with any backend.
 * In/Out: sums  the device part's; the deferred ones filled here.
 * Out: *out     the proof.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (unknown deferred bits);
 *   CZK_ERR_MISMATCH (the witness, or B-dense count against b_g2's
 *   length); czk_params_decode_vectors' and czk_msm_g2's errors;
 *   CZK_ERR_NOMEM; CZK_ERR_IO (getrandom). timings may be NULL.
 */
CZK_NODISCARD czk_status czk_prove_finalize(const czk_params *params, const czk_shape *shape,
                                            const czk_witness *w, czk_msm_sums *sums,
                                            unsigned deferred, const czk_fr *r, const czk_fr *s,
                                            czk_proof *out, czk_pool *pool,
                                            czk_prove_timings *timings, czk_err *err)
    CZK_NONNULL(1, 2, 3, 4, 8);

/*
 * The randomization and assembly step alone (czk_prove's formulas above, then
 * affine; used by czk_prove; exposed for backends' tests). Never fails.
 */
void czk_proof_assemble(czk_proof *out, const czk_vk *vk, const czk_msm_sums *sums, const czk_fr *r,
                        const czk_fr *s) CZK_NONNULL(1, 2, 3, 4, 5);

#ifdef __cplusplus
}
#endif
#endif
