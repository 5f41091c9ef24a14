/*
 * Declarations shared by the files of src/r1cs (not public).
 */
#ifndef CZK_R1CS_INTERNAL_H
#define CZK_R1CS_INTERNAL_H

#include "czk/r1cs.h"

/* The shape file's byte order is little-endian, the same as the host's. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "czk assumes a little-endian host");

/* The sort key of a variable: inputs (by index) before aux (by index). */
static inline uint32_t czk_var_key(czk_var v) {
    return v ^ CZK_VAR_INPUT_BIT;
}

/* Records an out-of-memory failure in cs (NULL cs: nothing). */
void czk_cs_oom(czk_cs *cs, const char *what);

/* Grows lc to hold at least `need` terms; false (and cs failed) on OOM. */
bool czk_lc_reserve(czk_cs *cs, czk_lc *lc, uint32_t need);

/*
 * A 64-bit checksum of `len` bytes. Four lanes, each absorbing one 64-bit
 * word per step with a bijective round, combined by bijective steps: any
 * change confined to one aligned 8-byte word (so any flipped byte) always
 * changes the result; other changes are missed with probability ~2^-64.
 */
uint64_t czk_hash64(const void *data, size_t len, uint64_t seed);

/*
 * czk_shape_decode with the checksums (header and regions) optionally not
 * verified: every structural and semantic check still runs. For the fuzz
 * target, which could not otherwise get past the checksums.
 */
CZK_NODISCARD czk_status czk_shape_decode_ex(czk_shape **out, const uint8_t *buf, size_t len,
                                             bool verify_checksums, czk_err *err);

/*
 * How czk_shape_read splits its work (czk_shape_read is all zeros); tests make the pieces
 * small so that a small file takes every parallel path. The result and every error are
 * those of a serial read, whatever the values.
 */
typedef struct czk_shape_read_opts {
    unsigned threads;    /* 0: the online CPUs, at most 32 (one for a file under 32 MiB) */
    size_t piece_bytes;  /* the regions are read in pieces of this size (0: 32 MiB) */
    uint64_t scan_rows;  /* rows per range of the matrix checks (0: ⌈n / 64⌉, >= 16384) */
    uint64_t scan_words; /* density words per range of their comparison (0: 4096) */
} czk_shape_read_opts;

CZK_NODISCARD czk_status czk_shape_read_ex(czk_shape **out, const char *path,
                                           const czk_shape_read_opts *opts, czk_err *err);

/* Encodes a shape as the file's bytes into a malloc'd buffer (tests, fuzz corpus). */
CZK_NODISCARD czk_status czk_shape_encode(const czk_shape *shape, uint8_t **out, size_t *out_len,
                                          czk_err *err);

#endif
