/* CZK_TEST_LABELS: unit */
/*
 * util/json.h by itself, with a schema written here (an object of unsigned
 * integers): the stream's values arrive through the callbacks across chunk
 * boundaries, a syntax error names the byte and the path the parser
 * reports, a text that stops early is refused; strict integers; standard
 * base64 decoded across pieces (bytes known here, the text from OpenSSL's
 * encoder) and refused with the reason when it is not standard.
 */
#include "support.h"

#include "util/json.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

typedef struct toy {
    czk_status st;
    int depth;
    bool done;
    char key[16];
    uint64_t a, b;
} toy;

static int t_start(void *ctx) {
    ((toy *)ctx)->depth++;
    return 1;
}
static int t_end(void *ctx) {
    toy *t = ctx;
    if (--t->depth == 0) t->done = true;
    return 1;
}
static int t_key(void *ctx, const unsigned char *k, size_t n) {
    toy *t = ctx;
    snprintf(t->key, sizeof t->key, "%s", czk_json_key_is(k, n, "a") ? "a" : "b");
    return 1;
}
static int t_num(void *ctx, const char *s, size_t n) {
    toy *t = ctx;
    uint64_t v;
    if (!czk_json_u64(s, n, &v)) {
        t->st = CZK_ERR_FORMAT;
        return 0;
    }
    *(t->key[0] == 'a' ? &t->a : &t->b) = v;
    return 1;
}
static void t_path(void *ctx, char *out, size_t cap) {
    snprintf(out, cap, "toy.%s", ((toy *)ctx)->key);
}
static const yajl_callbacks CB = {
    .yajl_number = t_num, .yajl_start_map = t_start, .yajl_map_key = t_key, .yajl_end_map = t_end};

static czk_status run(const char *text, size_t chunk, toy *t, czk_err *err) {
    memset(t, 0, sizeof *t);
    czk_json_stream s;
    czk_status st = czk_json_stream_init(&s, &CB, t, "toy doc", &t->st, t_path, err);
    size_t n = strlen(text);
    for (size_t off = 0; !st && off < n; off += chunk)
        st = czk_json_stream_feed(&s, (const uint8_t *)text + off,
                                  n - off < chunk ? n - off : chunk);
    if (!st) st = czk_json_stream_finish(&s, t->done);
    czk_json_stream_free(&s);
    return st;
}

static void test_stream(void **state) {
    (void)state;
    toy t;
    czk_err err;
    for (size_t chunk = 1; chunk <= 40; chunk++) {
        czk_assert_ok(run("{\"a\": 1234567, \"b\": 18446744073709551615}", chunk, &t, &err), &err);
        assert_int_equal(t.a, 1234567);
        assert_true(t.b == UINT64_MAX);
    }
    assert_int_equal(run("{\"a\": 12,, \"b\": 3}", 100, &t, &err), CZK_ERR_FORMAT);
    /* yajl counts the offending byte (the second comma, at 9) as consumed */
    assert_string_equal(err.msg, "toy doc: invalid JSON at byte 10 (in toy.a): parse error: "
                                 "invalid object key (must be a string)");
    assert_int_equal(run("{\"a\": 12", 100, &t, &err), CZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "toy doc: invalid JSON at byte 8 (in toy.a)"));
    /* a value the schema refuses: the parser's status comes back */
    assert_int_equal(run("{\"a\": 012}", 100, &t, &err), CZK_ERR_FORMAT);
}

static void test_u64(void **state) {
    (void)state;
    uint64_t v;
    assert_true(czk_json_u64("0", 1, &v) && v == 0);
    assert_true(czk_json_u64("18446744073709551615", 20, &v) && v == UINT64_MAX);
    assert_false(czk_json_u64("18446744073709551616", 20, &v));
    assert_false(czk_json_u64("01", 2, &v));
    assert_false(czk_json_u64("-1", 2, &v));
    assert_false(czk_json_u64("1e3", 3, &v));
    assert_false(czk_json_u64("1.0", 3, &v));
    assert_false(czk_json_u64("", 0, &v));
    char k[68];
    czk_json_key_text(k, (const unsigned char *)"short", 5);
    assert_string_equal(k, "short");
    char longkey[100];
    memset(longkey, 'k', sizeof longkey);
    czk_json_key_text(k, (const unsigned char *)longkey, sizeof longkey);
    assert_int_equal(strlen(k), 66);
    assert_string_equal(k + 63, "...");
}

typedef struct sink {
    uint8_t *buf;
    size_t n, calls;
} sink;

static czk_status collect(void *ctx, const uint8_t *b, size_t n) {
    sink *s = ctx;
    memcpy(s->buf + s->n, b, n);
    s->n += n;
    s->calls++;
    return CZK_OK;
}

static czk_status stop(void *ctx, const uint8_t *b, size_t n) {
    (void)ctx, (void)b, (void)n;
    return CZK_ERR_VERIFY;
}

static void test_base64(void **state) {
    (void)state;
    uint8_t out[256];
    sink s = {out, 0, 0};
    char why[200];
    const char *hw = "aGVsbG8gd29ybGQ="; /* RFC 4648 alphabet: "hello world" */
    assert_int_equal(
        czk_json_b64_decode((const unsigned char *)hw, strlen(hw), collect, &s, why, sizeof why),
        CZK_OK);
    assert_int_equal(s.n, 11);
    assert_memory_equal(out, "hello world", 11);
    assert_string_equal(why, "");
    /* 100000 bytes: 133336 characters, three pieces of at most 65536 */
    size_t n = 100000;
    uint8_t *data = malloc(n), *back = malloc(n);
    char *text = malloc(4 * ((n + 2) / 3) + 1);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7 + i / 251);
    int tl = EVP_EncodeBlock((unsigned char *)text, data, (int)n);
    sink big = {back, 0, 0};
    assert_int_equal(czk_json_b64_decode((const unsigned char *)text, (size_t)tl, collect, &big,
                                         why, sizeof why),
                     CZK_OK);
    assert_int_equal(big.n, n);
    assert_int_equal(big.calls, 3);
    assert_memory_equal(back, data, n);
    /* the sink's failure stops it */
    assert_int_equal(
        czk_json_b64_decode((const unsigned char *)text, (size_t)tl, stop, NULL, why, sizeof why),
        CZK_ERR_VERIFY);
    assert_string_equal(why, "");
    free(data);
    free(back);
    free(text);
    static const struct {
        const char *text, *why;
    } bad[] = {{"YWJj=", "base64 length 5 is not a multiple of 4"},
               {"YW=j", "'=' inside the base64 text (byte 2)"},
               {" YWJ", "not standard base64 (byte 0 is white space)"},
               {"YW-j", "not standard base64 (a character outside A-Z a-z 0-9 + / in bytes 0..3)"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s.n = 0;
        assert_int_equal(czk_json_b64_decode((const unsigned char *)bad[i].text,
                                             strlen(bad[i].text), collect, &s, why, sizeof why),
                         CZK_ERR_FORMAT);
        assert_string_equal(why, bad[i].why);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream),
        cmocka_unit_test(test_u64),
        cmocka_unit_test(test_base64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
