/*
 * Streaming JSON helpers (json.h) over yajl 2.1 and OpenSSL's base64.
 */
#include "util/json.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

czk_status czk_json_stream_init(czk_json_stream *s, const yajl_callbacks *cb, void *ctx,
                                const char *what, czk_status *st, czk_json_path_fn path,
                                czk_err *err) {
    memset(s, 0, sizeof *s);
    s->what = what;
    s->st = st;
    s->err = err;
    s->path = path;
    s->ctx = ctx;
    s->h = yajl_alloc(cb, NULL, ctx);
    if (!s->h) return czk_errf(err, CZK_ERR_NOMEM, "%s: out of memory", what);
    yajl_config(s->h, yajl_dont_validate_strings, 1);
    return CZK_OK;
}

void czk_json_stream_free(czk_json_stream *s) {
    if (s->h) yajl_free(s->h);
    s->h = NULL;
}

/* A yajl status as the parser's status, naming the byte and the path. */
static czk_status stream_status(czk_json_stream *s, yajl_status ys, const uint8_t *chunk,
                                size_t len, bool at_end) {
    if (ys == yajl_status_error && !*s->st) {
        /* at the end, yajl has parsed a space of its own: the error is at the end */
        size_t at = s->fed + (at_end ? 0 : yajl_get_bytes_consumed(s->h));
        unsigned char *m = yajl_get_error(s->h, 0, chunk, len);
        char path[400], msg[200];
        s->path(s->ctx, path, sizeof path);
        snprintf(msg, sizeof msg, "%s", m ? (const char *)m : "parse error");
        size_t ml = strlen(msg);
        while (ml && (msg[ml - 1] == '\n' || msg[ml - 1] == ' '))
            msg[--ml] = 0;
        *s->st = czk_errf(s->err, CZK_ERR_FORMAT, "%s: invalid JSON at byte %zu (in %s): %s",
                          s->what, at, path, msg);
        if (m) yajl_free_error(s->h, m);
    } else if (ys != yajl_status_ok && !*s->st) {
        *s->st = czk_errf(s->err, CZK_ERR_INTERNAL, "%s: parse cancelled", s->what);
    }
    return *s->st;
}

czk_status czk_json_stream_feed(czk_json_stream *s, const uint8_t *buf, size_t len) {
    if (*s->st) return *s->st;
    yajl_status ys = yajl_parse(s->h, buf, len);
    czk_status st = stream_status(s, ys, buf, len, false);
    s->fed += len;
    return st;
}

czk_status czk_json_stream_finish(czk_json_stream *s, bool done) {
    if (*s->st) return *s->st;
    czk_status st = stream_status(s, yajl_complete_parse(s->h), NULL, 0, true);
    if (!st && !done)
        st = *s->st = czk_errf(s->err, CZK_ERR_FORMAT, "%s: the JSON text ends early", s->what);
    return st;
}

bool czk_json_u64(const char *s, size_t n, uint64_t *out) {
    if (n == 0 || n > 20 || (n > 1 && s[0] == '0')) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) return false;
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool czk_json_key_is(const unsigned char *key, size_t len, const char *name) {
    return len == strlen(name) && !memcmp(key, name, len);
}

void czk_json_key_text(char out[68], const unsigned char *key, size_t len) {
    size_t kl = len < 63 ? len : 63;
    memcpy(out, key, kl);
    snprintf(out + kl, 68 - kl, "%s", len > kl ? "..." : "");
}

czk_status czk_json_b64_decode(const unsigned char *s, size_t n, czk_json_sink_fn sink, void *ctx,
                               char *why, size_t whycap) {
    why[0] = 0;
    if (n % 4 != 0) {
        snprintf(why, whycap, "base64 length %zu is not a multiple of 4", n);
        return CZK_ERR_FORMAT;
    }
    size_t pad = 0;
    while (pad < 2 && pad < n && s[n - 1 - pad] == '=')
        pad++;
    /* EVP_DecodeBlock skips white space around its input and reads '=' as
     * zero bits anywhere; standard base64 allows neither. */
    const void *eq = n > pad ? memchr(s, '=', n - pad) : NULL;
    if (eq) {
        snprintf(why, whycap, "'=' inside the base64 text (byte %zu)",
                 (size_t)((const unsigned char *)eq - s));
        return CZK_ERR_FORMAT;
    }
    enum { CHUNK = 65536 }; /* base64 characters per piece, a multiple of 4 */
    uint8_t *buf = malloc(CHUNK / 4 * 3);
    if (!buf) {
        snprintf(why, whycap, "out of memory");
        return CZK_ERR_NOMEM;
    }
    czk_status st = CZK_OK;
    for (size_t off = 0; !st && off < n; off += CHUNK) {
        size_t m = n - off < CHUNK ? n - off : CHUNK;
        const unsigned char *c = s + off;
        if (c[0] <= ' ' || c[m - 1] <= ' ') {
            snprintf(why, whycap, "not standard base64 (byte %zu is white space)",
                     off + (c[0] <= ' ' ? 0 : m - 1));
            st = CZK_ERR_FORMAT;
            break;
        }
        int got = EVP_DecodeBlock(buf, c, (int)m);
        if (got != (int)(m / 4 * 3)) {
            snprintf(why, whycap,
                     "not standard base64 (a character outside A-Z a-z 0-9 + / in bytes "
                     "%zu..%zu)",
                     off, off + m - 1);
            st = CZK_ERR_FORMAT;
            break;
        }
        st = sink(ctx, buf, (size_t)got - (off + m == n ? pad : 0));
    }
    free(buf);
    return st;
}
