/*
 * The bincode reader (bincode.h): bounds checked at every read, the field
 * named in every error.
 */
#include "util/bincode.h"

#include <stdarg.h>
#include <stdio.h>

/* "bincode <field>: <msg>" with the field formatted from fmt/ap. */
static czk_status failv(czk_err *err, czk_status code, const char *fmt, va_list ap,
                        const char *msgfmt, ...) CZK_PRINTF(5, 6);
static czk_status failv(czk_err *err, czk_status code, const char *fmt, va_list ap,
                        const char *msgfmt, ...) {
    char field[256], msg[256];
    vsnprintf(field, sizeof field, fmt ? fmt : "value", ap);
    va_list mp;
    va_start(mp, msgfmt);
    vsnprintf(msg, sizeof msg, msgfmt, mp);
    va_end(mp);
    return czk_errf(err, code, "bincode %s: %s", field, msg);
}

/* n bytes at pos, or CZK_ERR_TRUNCATED naming the field. */
static czk_status take(czk_bincode *r, size_t n, const uint8_t **p, czk_err *err, const char *fmt,
                       va_list ap) {
    if (czk_bincode_left(r) < n)
        return failv(err, CZK_ERR_TRUNCATED, fmt, ap, "needs %zu bytes at offset %zu, %zu left", n,
                     r->pos, czk_bincode_left(r));
    *p = r->data + r->pos;
    r->pos += n;
    return CZK_OK;
}

static uint64_t le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

#define READ_INT(type, bytes)                                                                      \
    const uint8_t *p = NULL;                                                                       \
    va_list ap;                                                                                    \
    va_start(ap, field);                                                                           \
    czk_status st = take(r, bytes, &p, err, field, ap);                                            \
    va_end(ap);                                                                                    \
    if (!st) *out = (type)le(p, bytes);                                                            \
    return st

czk_status czk_bincode_u8(czk_bincode *r, uint8_t *out, czk_err *err, const char *field, ...) {
    READ_INT(uint8_t, 1);
}

czk_status czk_bincode_u32(czk_bincode *r, uint32_t *out, czk_err *err, const char *field, ...) {
    READ_INT(uint32_t, 4);
}

czk_status czk_bincode_u64(czk_bincode *r, uint64_t *out, czk_err *err, const char *field, ...) {
    READ_INT(uint64_t, 8);
}

czk_status czk_bincode_array(czk_bincode *r, size_t n, const uint8_t **out, czk_err *err,
                             const char *field, ...) {
    va_list ap;
    va_start(ap, field);
    czk_status st = take(r, n, out, err, field, ap);
    va_end(ap);
    return st;
}

/* The length at pos, checked; pos moves past it only when it is good. */
static czk_status read_len(czk_bincode *r, uint64_t max, size_t min_elem, uint64_t *out,
                           czk_err *err, const char *fmt, va_list ap) {
    size_t at = r->pos;
    const uint8_t *p = NULL;
    va_list a2;
    va_copy(a2, ap);
    czk_status st = take(r, 8, &p, err, fmt, a2);
    va_end(a2);
    if (st) return st;
    uint64_t n = le(p, 8);
    size_t left = czk_bincode_left(r);
    if (n > max)
        st = failv(err, CZK_ERR_FORMAT, fmt, ap, "length %llu is more than %llu",
                   (unsigned long long)n, (unsigned long long)max);
    else if (min_elem && n > left / min_elem)
        st = failv(err, CZK_ERR_FORMAT, fmt, ap, "length %llu needs at least %llu bytes, %zu left",
                   (unsigned long long)n, (unsigned long long)n * min_elem, left);
    if (st) {
        r->pos = at;
        return st;
    }
    *out = n;
    return CZK_OK;
}

czk_status czk_bincode_len(czk_bincode *r, uint64_t max, size_t min_elem, uint64_t *out,
                           czk_err *err, const char *field, ...) {
    va_list ap;
    va_start(ap, field);
    czk_status st = read_len(r, max, min_elem, out, err, field, ap);
    va_end(ap);
    return st;
}

czk_status czk_bincode_bytes(czk_bincode *r, uint64_t max, const uint8_t **out, size_t *n,
                             czk_err *err, const char *field, ...) {
    size_t at = r->pos;
    uint64_t len;
    va_list ap;
    va_start(ap, field);
    czk_status st = read_len(r, max, 0, &len, err, field, ap);
    va_end(ap);
    if (st) return st;
    va_start(ap, field);
    st = take(r, (size_t)len, out, err, field, ap);
    va_end(ap);
    if (st) {
        r->pos = at;
        return st;
    }
    *n = (size_t)len;
    return CZK_OK;
}

czk_status czk_bincode_end(const czk_bincode *r, czk_err *err, const char *what, ...) {
    if (!czk_bincode_left(r)) return CZK_OK;
    va_list ap;
    va_start(ap, what);
    czk_status st =
        failv(err, CZK_ERR_FORMAT, what, ap, "%zu bytes after the end (offset %zu of %zu)",
              czk_bincode_left(r), r->pos, r->len);
    va_end(ap);
    return st;
}
