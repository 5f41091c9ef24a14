/*
 * czk — common declarations: status codes, error messages, attributes.
 *
 * Every fallible czk function returns a czk_status and, on failure, fills a
 * caller-provided czk_err with one line that names what is wrong (the file
 * section, index, JSON path, ... as the layer knows it). A NULL czk_err is
 * allowed everywhere: the code is still returned, the message is dropped.
 * czk never aborts on bad input.
 */
#ifndef CZK_COMMON_H
#define CZK_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_NODISCARD __attribute__((warn_unused_result))
#define CZK_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#define CZK_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * Status codes. Each failure kind that a caller (or a test) may need to tell
 * apart has its own code; the message says the rest.
 */
typedef enum czk_status {
    CZK_OK = 0,
    CZK_ERR_INVALID_ARG,      /* a parameter is out of its documented range */
    CZK_ERR_NOMEM,            /* an allocation failed */
    CZK_ERR_IO,               /* a read, write, open or mmap failed */
    CZK_ERR_INTERNAL,         /* an invariant broke: a bug, reported not aborted */
    CZK_ERR_UNSUPPORTED,      /* valid request that czk does not support (yet) */
    CZK_ERR_CANCELLED,        /* the work was cancelled */
    CZK_ERR_TIMEOUT,          /* a wait ran out */

    /* field and curve encodings (ff, ec) */
    CZK_ERR_FR_RANGE = 100,   /* 32-byte value >= r */
    CZK_ERR_EC_LENGTH,        /* encoding of the wrong length */
    CZK_ERR_EC_FLAGS,         /* flag bits not valid for this length */
    CZK_ERR_EC_FP_RANGE,      /* a coordinate >= p */
    CZK_ERR_EC_INFINITY,      /* infinity flag with non-zero bytes */
    CZK_ERR_EC_NOT_ON_CURVE,  /* the point does not satisfy the curve equation */
    CZK_ERR_EC_NOT_IN_GROUP,  /* on the curve, outside the prime-order subgroup */
    CZK_ERR_EC_NO_POINT,      /* compressed x has no y on the curve */

    /* files and formats */
    CZK_ERR_FORMAT = 200,     /* malformed file or message: bad magic, length, checksum */
    CZK_ERR_TRUNCATED,        /* input ends early */
    CZK_ERR_MISMATCH,         /* well formed, but not for this shape / circuit / job */

    /* proving */
    CZK_ERR_UNSATISFIED = 300, /* a constraint does not hold */
    CZK_ERR_VERIFY,            /* a proof does not verify */

    /* devices */
    CZK_ERR_DEVICE = 400,      /* a GPU call or kernel failed (driver, launch, fault); the
                                  engine takes it from a backend as that device's failure */
} czk_status;

/* A one-line error message; `code` repeats the returned status. */
typedef struct czk_err {
    czk_status code;
    char msg[512];
} czk_err;

/*
 * Sets err (if non-NULL) to `code` and the printf-formatted message, cut to
 * fit czk_err.msg (511 bytes and the NUL); a message already there is
 * replaced. Defined in src/util/err.c.
 * Returns: `code`, so that
 *   `return czk_errf(err, CZK_ERR_IO, "open %s: %s", p, strerror(e));`
 *   reads as one statement.
 */
czk_status czk_errf(czk_err *err, czk_status code, const char *fmt, ...) CZK_PRINTF(3, 4);

/*
 * Prefixes an existing message with context: "context: old message"; the
 * old message is cut where the whole does not fit czk_err.msg (if the
 * context alone fills it, the old message is dropped).
 * Returns: err->code; CZK_OK (message untouched) if err is NULL or its code
 *   is CZK_OK.
 */
czk_status czk_err_wrap(czk_err *err, const char *fmt, ...) CZK_PRINTF(2, 3);

/*
 * A static name for a status code, e.g. "CZK_ERR_EC_NOT_IN_GROUP";
 * "CZK_ERR_?" for a value that is no czk_status. Never NULL, never freed.
 */
const char *czk_status_name(czk_status code);

/* Clears err to CZK_OK and an empty message; a NULL err is ignored. */
void czk_err_clear(czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
