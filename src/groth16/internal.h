/* Declarations shared by the files of src/groth16 (not public). */
#ifndef CZK_GROTH16_INTERNAL_H
#define CZK_GROTH16_INTERNAL_H

#include "czk/groth16.h"

#include <blake2.h>
#include <sys/stat.h>
#include <time.h>

/* Page-aligned (4096 B) allocation for point vectors; NULL on failure. 0 bytes gives a
 * valid pointer. */
void *czk_g16_alloc(size_t bytes);
void czk_g16_free(void *p);

/* Monotonic seconds. */
static inline double czk_g16_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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
 * is set). czk_g16_stamp_matches says whether a stamp for this file, as
 * stat'ed and hashed now, exists; czk_g16_stamp_write records one (false if
 * it could not).
 */
bool czk_g16_stamp_dir(char *out, size_t cap, const char *stamp_dir);
bool czk_g16_stamp_matches(const char *dir, const char *path, const struct stat *st,
                           const uint8_t blake2b[64]);
bool czk_g16_stamp_write(const char *dir, const char *path, const struct stat *st,
                         const uint8_t blake2b[64]);

#endif
