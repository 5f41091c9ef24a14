/* Declarations shared by the files of src/groth16 (not public). */
#ifndef CZK_GROTH16_INTERNAL_H
#define CZK_GROTH16_INTERNAL_H

#include "czk/groth16.h"
#include "util/time.h"

#include <blake2.h>
#include <sys/stat.h>
#include <time.h>

/* Page-aligned (4096 B) allocation for point vectors; NULL on failure. 0 bytes gives a
 * valid pointer. */
void *czk_g16_alloc(size_t bytes);
void czk_g16_free(void *p);

/* Monotonic seconds. */
static inline double czk_g16_now(void) {
    return czk_now();
}

/* Lower-case hex of n bytes into out (2n + 1 chars with the NUL). */
void czk_g16_hex(char *out, const uint8_t *in, size_t n);

/*
 * Per-group operations, so that one body serves G1 and G2 (parameter
 * vectors, writing). enc = uncompressed encoding size, aff = sizeof affine.
 */
typedef struct czk_g16_group {
    const char *name;
    size_t enc, aff;
    czk_status (*decode)(void *out, const uint8_t *in, size_t len, czk_err *err);
    czk_status (*decode_trusted)(void *out, const uint8_t *in, size_t len, czk_err *err);
    bool (*is_inf)(const void *p);
    bool (*in_group)(const void *p);
    void (*serialize)(uint8_t *out, const void *p);
} czk_g16_group;

extern const czk_g16_group czk_g16_g1, czk_g16_g2;

/*
 * Stamp cache (params_stamp.c). The directory: opts' stamp_dir, else
 * $CZK_CACHE_DIR/stamps, else $HOME/.cache/czk/stamps (NULL if none of them
 * is set). czk_g16_stamp_lookup finds the stamp of the open file fd (at
 * path, with st its fstat) before it is read: by its content key (format
 * 3; *current true), else by its path (formats 2 and 1, which count only
 * when path, size, mtime, device and inode equal st). Returns NONE if there
 * is none; else the digests it holds (PLAIN: a format-1 stamp, the plain
 * BLAKE2b-512; TREE: tree digests). czk_g16_stamp_write records a format-3
 * stamp of fd's content with the tree digest, keeping the other digests of
 * that content key it held (false if it could not).
 */
typedef enum czk_g16_stamp_kind {
    CZK_G16_STAMP_NONE = 0,
    CZK_G16_STAMP_PLAIN,
    CZK_G16_STAMP_TREE,
} czk_g16_stamp_kind;

/* Tree digests one format-3 stamp keeps: files of the same size and first 64 KiB (e.g. a key
 * file and a copy damaged after its vk) each keep theirs, the most recent first. */
#define CZK_G16_STAMP_DIGESTS 4

/* The digests a stamp holds (a path stamp: one). */
typedef struct czk_g16_stamp_digests {
    uint8_t d[CZK_G16_STAMP_DIGESTS][64];
    unsigned n;
} czk_g16_stamp_digests;

/* Whether digest is one of c's. */
bool czk_g16_stamp_has(const czk_g16_stamp_digests *c, const uint8_t digest[64]);

bool czk_g16_stamp_dir(char *out, size_t cap, const char *stamp_dir);
czk_g16_stamp_kind czk_g16_stamp_lookup(const char *dir, int fd, const char *path,
                                        const struct stat *st, czk_g16_stamp_digests *digests,
                                        bool *current);
bool czk_g16_stamp_write(const char *dir, int fd, const struct stat *st, const uint8_t tree[64]);
/* A stamp for the file at path as it is now, in stamp_dir (NULL: the default); false: none. */
bool czk_g16_stamp_file(const char *path, const char *stamp_dir, const uint8_t tree[64]);

/* ---- pieces.c: files in CZK_TREE_PIECE_BYTES pieces ---- */

/* Hasher (and writer) threads of a reader or writer: half the CPUs, 1 to 8. */
unsigned czk_g16_hash_threads(void);

/*
 * Reader of an open file of `size` bytes. czk_g16_reader_get: the bytes
 * [off, off + n) of the file (n <= 16 MiB), valid until the next call;
 * calls must come with non-decreasing off, each range starting where the
 * last ended or later. The file is read ahead in pieces on a thread of its
 * own; every piece is hashed for the tree digest and, with plain, for the
 * plain BLAKE2b-512. czk_g16_reader_finish: complete = every byte was
 * asked for; then it waits for the hashers and fills tree (and plain),
 * else it stops them. It frees the reader (the fd stays open). Errors:
 * CZK_ERR_IO / CZK_ERR_TRUNCATED (the read), CZK_ERR_NOMEM.
 */
typedef struct czk_g16_reader czk_g16_reader;
czk_status czk_g16_reader_open(czk_g16_reader **out, int fd, uint64_t size, bool plain,
                               czk_err *err);
czk_status czk_g16_reader_get(czk_g16_reader *r, uint64_t off, size_t n, const uint8_t **out,
                              czk_err *err);
czk_status czk_g16_reader_finish(czk_g16_reader *r, bool complete, uint8_t tree[64],
                                 uint8_t plain[64], czk_err *err);

/*
 * A raw read of a whole file on the pool, for encoded vectors
 * (CZK_PARAMS_ENCODED). The segments tile [0, size) in file order; a
 * segment receives its bytes at dst by pread(2), or, with `have`, already
 * holds them there (read before; only hashed). The file is cut into
 * CZK_TREE_PIECE_BYTES pieces that the pool's threads claim in order;
 * each thread preads its piece in 1 MiB steps and hashes every step while
 * it is in its cache, so tree receives the tree digest of the bytes read.
 * progress (may be NULL) is called on the calling thread, between its
 * pieces, with the length of the longest prefix of the file read so far
 * (increasing). Errors: CZK_ERR_IO (the read), CZK_ERR_TRUNCATED (the file
 * ended before `size`: it changed), CZK_ERR_NOMEM; for several, the one of
 * the lowest piece.
 */
typedef struct czk_g16_seg {
    uint64_t off, len;
    uint8_t *dst;
    bool have;
} czk_g16_seg;
typedef void (*czk_g16_seg_progress_fn)(void *ctx, uint64_t done);
czk_status czk_g16_read_segments(int fd, uint64_t size, const czk_g16_seg *seg, size_t nseg,
                                 czk_pool *pool, czk_g16_seg_progress_fn progress, void *ctx,
                                 uint8_t tree[64], czk_err *err);

/*
 * Writer of a file of exactly `total` bytes at path (through a temporary
 * file next to it, renamed on close). czk_g16_writer_reserve gives the
 * space for the next bytes at *p: *rest bytes (>= 1) are left in the current
 * piece, and CZK_G16_WRITER_SLACK more may be written past them, so that
 * whole points fit (write at most ⌈rest/size⌉ points of `size` <= 192
 * bytes, and no more than the file still needs); czk_g16_writer_commit(n)
 * says that n bytes were written there. _put copies bytes in. _close
 * checks that total bytes came, waits for the writes, syncs, renames and
 * fills tree (the tree digest; may be NULL); _abort removes the temporary
 * file. Both free the writer. alloc/release (may be NULL: malloc) give the
 * piece buffers, e.g. page-locked memory that a GPU copies into.
 */
#define CZK_G16_WRITER_SLACK 256u
typedef void *(*czk_g16_host_alloc_fn)(void *ctx, size_t bytes);
typedef void (*czk_g16_host_free_fn)(void *ctx, void *p, size_t bytes);
typedef struct czk_g16_writer czk_g16_writer;
czk_status czk_g16_writer_open(czk_g16_writer **out, const char *path, uint64_t total,
                               czk_g16_host_alloc_fn alloc, czk_g16_host_free_fn release,
                               void *actx, czk_err *err);
czk_status czk_g16_writer_reserve(czk_g16_writer *w, uint8_t **p, size_t *rest, czk_err *err);
czk_status czk_g16_writer_commit(czk_g16_writer *w, size_t n, czk_err *err);
czk_status czk_g16_writer_put(czk_g16_writer *w, const void *data, size_t n, czk_err *err);
czk_status czk_g16_writer_close(czk_g16_writer *w, uint8_t tree[64], czk_err *err);
void czk_g16_writer_abort(czk_g16_writer *w);

/*
 * Writes the vk block (six points, ic count, ic) and returns CZK_OK, or
 * CZK_ERR_INVALID_ARG naming a point at infinity (params.c).
 */
czk_status czk_g16_write_vk(czk_g16_writer *w, const czk_vk *vk, czk_err *err);
/* A section's length prefix (big-endian u32). */
czk_status czk_g16_write_count(czk_g16_writer *w, uint32_t n, czk_err *err);
/*
 * Encodes n affine points of group g (czk_g16_g1/g2) from src into the
 * writer, on the pool. CZK_ERR_INVALID_ARG naming section `sec` and the
 * index (base + i) of the first point at infinity.
 */
czk_status czk_g16_write_points(czk_g16_writer *w, const czk_g16_group *g, const void *src,
                                size_t n, const char *sec, size_t base, czk_pool *pool,
                                czk_err *err);

/*
 * out[c] = Σ_k M[k][c]·lag[k] for every column c < num_inputs + num_aux of
 * matrix m of the shape (setup.c): the matrix transposed by a parallel
 * counting sort on the pool (atomic counts, atomic scatter: the order of
 * the terms inside a column is arbitrary, and field addition is exact).
 * CZK_ERR_INVALID_ARG for a column out of range, CZK_ERR_NOMEM.
 */
czk_status czk_g16_column_evals(const czk_shape *s, const czk_csr *m, const czk_fr *lag,
                                czk_fr *out, czk_pool *pool, czk_err *err);

/*
 * The matrix m of shape s by columns (the transposition of
 * czk_g16_column_evals, kept): column k's entries are [end[k−1] (0 for
 * k = 0), end[k]), each a row and an index into s->coeffs, in arbitrary
 * order. nv = inputs + aux columns. Same errors as czk_g16_column_evals.
 */
typedef struct czk_g16_columns {
    size_t nv;
    uint64_t *end;
    uint32_t *rows, *cidx;
} czk_g16_columns;
czk_status czk_g16_columns_make(czk_g16_columns *out, const czk_shape *s, const czk_csr *m,
                                czk_pool *pool, czk_err *err);
void czk_g16_columns_free(czk_g16_columns *c);

/*
 * params.c: whole-file writes. czk_g16_open_tmp makes path.tmp.XXXXXX (mode 0644);
 * czk_g16_write_full writes all n bytes (path names the file in errors);
 * czk_g16_close_rename syncs, closes and renames tmp onto path when st is CZK_OK, else (or on
 * its own failure) unlinks tmp; it returns st or its own CZK_ERR_IO.
 */
czk_status czk_g16_open_tmp(const char *path, char *tmp, size_t cap, int *fd, czk_err *err);
czk_status czk_g16_write_full(int fd, const uint8_t *p, size_t n, const char *path, czk_err *err);
czk_status czk_g16_close_rename(int fd, const char *tmp, const char *path, czk_status st,
                                czk_err *err);

/* lagrange.c: an empty Lagrange form for shape (vectors allocated, not filled; NULL: out of
 * memory), and out[i] = in[i] as affine for i < n on the pool (infinity included). */
czk_params_lagrange *czk_g16_lagrange_alloc(const czk_shape *shape);
/* BLAKE2b-512 of czk_vk_encode(vk) (all zero when out of memory: matches no file). */
void czk_params_lagrange_vk_digest(uint8_t out[64], const czk_vk *vk);
void czk_g16_to_affine(czk_g1_affine *out, const blst_p1 *in, size_t n, czk_pool *pool);

#endif
