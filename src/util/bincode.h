/*
 * A reader of bincode 1.x as filecoin-proofs writes vanilla proofs (PoSt
 * FallbackPoStSectorProof, SnapDeals PartitionProof; spec post-snap.md §3):
 * little-endian integers, a u64 length before every Vec, a u32 tag before
 * an enum's fields, fixed arrays ([u8; 32]) raw. Nothing is copied: byte
 * arrays are pointers into the input, which must outlive what is read.
 *
 * Every read names the field it reads (a printf format, formatted only on
 * failure), so that an error says where: "bincode sectors[0].comm_c: needs
 * 32 bytes at offset 44, 7 left". Internal to czk (not installed).
 */
#ifndef CZK_UTIL_BINCODE_H
#define CZK_UTIL_BINCODE_H

#include "czk/common.h"

typedef struct czk_bincode {
    const uint8_t *data;
    size_t len, pos; /* pos: bytes read so far */
} czk_bincode;

static inline void czk_bincode_init(czk_bincode *r, const uint8_t *data, size_t len) {
    r->data = data;
    r->len = data ? len : 0;
    r->pos = 0;
}

/* Bytes not read yet. */
static inline size_t czk_bincode_left(const czk_bincode *r) {
    return r->len - r->pos;
}

/*
 * Integers (u8, u32, u64, little-endian) and a fixed array of n bytes
 * (*out points into the input).
 * Returns: CZK_OK; CZK_ERR_TRUNCATED "bincode <field>: needs <n> bytes at
 *   offset <pos>, <left> left" (nothing is consumed).
 */
CZK_NODISCARD czk_status czk_bincode_u8(czk_bincode *r, uint8_t *out, czk_err *err,
                                        const char *field, ...) CZK_PRINTF(4, 5) CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_bincode_u32(czk_bincode *r, uint32_t *out, czk_err *err,
                                         const char *field, ...) CZK_PRINTF(4, 5) CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_bincode_u64(czk_bincode *r, uint64_t *out, czk_err *err,
                                         const char *field, ...) CZK_PRINTF(4, 5) CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_bincode_array(czk_bincode *r, size_t n, const uint8_t **out,
                                           czk_err *err, const char *field, ...) CZK_PRINTF(5, 6)
    CZK_NONNULL(1, 3);

/*
 * A Vec's length (u64), bounded: at most `max` elements, and no more than
 * the bytes left can hold at `min_elem` bytes each (0: no such check), so
 * that a corrupt length fails here instead of allocating.
 * Returns: CZK_OK; CZK_ERR_TRUNCATED (as above); CZK_ERR_FORMAT "bincode
 *   <field>: length <n> is more than <max>" or "... length <n> needs at
 *   least <n·min_elem> bytes, <left> left".
 */
CZK_NODISCARD czk_status czk_bincode_len(czk_bincode *r, uint64_t max, size_t min_elem,
                                         uint64_t *out, czk_err *err, const char *field, ...)
    CZK_PRINTF(6, 7) CZK_NONNULL(1, 4);

/*
 * A length-prefixed byte vector (Vec<u8>: u64 length, then the bytes) of at
 * most max bytes; *out points into the input, *n its length.
 * Returns: as czk_bincode_len, and CZK_ERR_TRUNCATED when the bytes are short.
 */
CZK_NODISCARD czk_status czk_bincode_bytes(czk_bincode *r, uint64_t max, const uint8_t **out,
                                           size_t *n, czk_err *err, const char *field, ...)
    CZK_PRINTF(6, 7) CZK_NONNULL(1, 3, 4);

/*
 * The input is read to its end.
 * Returns: CZK_OK; CZK_ERR_FORMAT "bincode <what>: <n> bytes after the end
 *   (offset <pos> of <len>)".
 */
CZK_NODISCARD czk_status czk_bincode_end(const czk_bincode *r, czk_err *err, const char *what, ...)
    CZK_PRINTF(3, 4) CZK_NONNULL(1);

#endif
