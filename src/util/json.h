/*
 * Streaming JSON for every kind's parsers (the PoRep C1 parser,
 * src/porep/c1_json.c, is one): a yajl handle fed in chunks whose syntax
 * errors name the byte offset and where the schema was, strict unsigned
 * integers, object keys, and standard base64 decoded piece by piece into a
 * sink (a JSON string holding another document, as cuzk's envelope holds
 * the C1). A parser keeps its schema: the callbacks, its frames, its paths.
 * Internal to czk (not installed).
 */
#ifndef CZK_UTIL_JSON_H
#define CZK_UTIL_JSON_H

#include "czk/common.h"

#include <yajl/yajl_parse.h>

/* Where a parser is, for a syntax error's message ("vanilla_proofs.X[0][1]"). */
typedef void (*czk_json_path_fn)(void *ctx, char *out, size_t cap);

/*
 * One document, fed in chunks through yajl to the parser's callbacks.
 * `st` is the parser's own status: a callback that fails sets it (and the
 * error) and returns 0; the stream then reports that status.
 */
typedef struct czk_json_stream {
    yajl_handle h;
    size_t fed; /* bytes fed before the current chunk */
    const char *what;
    czk_status *st;
    czk_err *err;
    czk_json_path_fn path;
    void *ctx;
} czk_json_stream;

/*
 * Starts a stream: callbacks cb with ctx, `what` names the document in
 * messages ("C1 JSON", "envelope"). yajl's UTF-8 check of strings is off:
 * callers compare strings with ASCII tables or decode them (base64), which
 * refuses anything else.
 * Returns: CZK_OK; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_json_stream_init(czk_json_stream *s, const yajl_callbacks *cb,
                                              void *ctx, const char *what, czk_status *st,
                                              czk_json_path_fn path, czk_err *err)
    CZK_NONNULL(1, 2, 4, 5, 6);
/*
 * Feeds len bytes. Returns: CZK_OK; the parser's status; CZK_ERR_FORMAT
 * "<what>: invalid JSON at byte <n> (in <path>): <yajl's reason>".
 */
CZK_NODISCARD czk_status czk_json_stream_feed(czk_json_stream *s, const uint8_t *buf, size_t len)
    CZK_NONNULL(1);
/* Ends the text. done: the parser saw its complete value (else CZK_ERR_FORMAT "<what>:
 * the JSON text ends early"). Returns: as czk_json_stream_feed. */
CZK_NODISCARD czk_status czk_json_stream_finish(czk_json_stream *s, bool done) CZK_NONNULL(1);
void czk_json_stream_free(czk_json_stream *s);

/* A JSON number as an unsigned integer: plain decimal digits (no sign, fraction, exponent
 * or leading zero), within 64 bits. */
bool czk_json_u64(const char *s, size_t n, uint64_t *out);

/* key (len bytes, not NUL-terminated) is name. */
bool czk_json_key_is(const unsigned char *key, size_t len, const char *name) CZK_NONNULL(3);

/* key as a C string for a message (at most 63 bytes, then "..."). */
void czk_json_key_text(char out[68], const unsigned char *key, size_t len);

/* Receives decoded bytes (czk_json_b64_decode); a failure stops the decoding. */
typedef czk_status (*czk_json_sink_fn)(void *ctx, const uint8_t *buf, size_t len);

/*
 * Decodes standard padded base64 (RFC 4648 §4: no white space, no URL
 * alphabet, '=' only at the end) in pieces of 48 KiB (OpenSSL
 * EVP_DecodeBlock), each handed to sink, so the decoded text is never held
 * whole.
 * Out: why (whycap bytes): for CZK_ERR_FORMAT, what is wrong with the text
 *      ("base64 length 5 is not a multiple of 4", "'=' inside the base64 text
 *      (byte 8)", "not standard base64 (byte 0 is white space)", "not
 *      standard base64 (a character outside A-Z a-z 0-9 + / in bytes
 *      0..65535)"); "" otherwise.
 * Returns: CZK_OK; CZK_ERR_FORMAT (the text); CZK_ERR_NOMEM; the sink's status.
 */
CZK_NODISCARD czk_status czk_json_b64_decode(const unsigned char *s, size_t n,
                                             czk_json_sink_fn sink, void *ctx, char *why,
                                             size_t whycap) CZK_NONNULL(3, 5);

#endif
