/* CZK_TEST_LABELS: unit */
/*
 * The bincode reader on a byte vector written here by hand: a small
 * FallbackPoStSectorProof-shaped record (spec post-snap.md §3: u64 ids and
 * Vec lengths little-endian, u32 enum tags, [u8; 32] raw) followed by a u8
 * and a Vec<u8>. The expected values are the ones written into the bytes;
 * every cut of the vector fails naming the field it cuts (CZK_ERR_TRUNCATED,
 * or CZK_ERR_FORMAT where a Vec length no longer fits the bytes left), a
 * length beyond its bound or beyond the bytes left is CZK_ERR_FORMAT naming
 * the field, and a byte after the end is refused.
 */
#include "support.h"

#include "util/bincode.h"

#include <stdio.h>
#include <string.h>

/* The vector: offsets in the comments. */
static size_t build(uint8_t *b) {
    size_t n = 0;
#define BYTES(...)                                                                                 \
    do {                                                                                           \
        const uint8_t v_[] = {__VA_ARGS__};                                                        \
        memcpy(b + n, v_, sizeof v_);                                                              \
        n += sizeof v_;                                                                            \
    } while (0)
#define FILL32(x)                                                                                  \
    do {                                                                                           \
        memset(b + n, x, 32);                                                                      \
        n += 32;                                                                                   \
    } while (0)
    BYTES(0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11); /* 0 sector_id 0x1122334455667788 */
    FILL32(0xc1);                                          /* 8 comm_r */
    BYTES(1, 0, 0, 0, 0, 0, 0, 0);                         /* 40 sectors: 1 */
    BYTES(1, 0, 0, 0, 0, 0, 0, 0);                         /* 48 inclusion_proofs: 1 */
    BYTES(1, 0, 0, 0);                                     /* 56 tag 1 = Sub */
    BYTES(2, 0, 0, 0, 0, 0, 0, 0);                         /* 60 base_path: 2 elements */
    BYTES(1, 0, 0, 0, 0, 0, 0, 0);                         /* 68 [0].hashes: 1 */
    FILL32(0xd0);                                          /* 76 [0].hashes[0] */
    BYTES(5, 0, 0, 0, 0, 0, 0, 0);                         /* 108 [0].index 5 */
    BYTES(1, 0, 0, 0, 0, 0, 0, 0);                         /* 116 [1].hashes: 1 */
    FILL32(0xd1);                                          /* 124 [1].hashes[0] */
    BYTES(0, 1, 0, 0, 0, 0, 0, 0);                         /* 156 [1].index 256 */
    BYTES(1, 0, 0, 0, 0, 0, 0, 0);                         /* 164 sub_path: 1 element */
    BYTES(0, 0, 0, 0, 0, 0, 0, 0);                         /* 172 [0].hashes: none */
    BYTES(3, 0, 0, 0, 0, 0, 0, 0);                         /* 180 [0].index 3 */
    FILL32(0xe0);                                          /* 188 root */
    FILL32(0xe1);                                          /* 220 leaf */
    FILL32(0xf0);                                          /* 252 comm_c */
    FILL32(0xf1);                                          /* 284 comm_r_last */
    BYTES(0xfe);                                           /* 316 a u8 */
    BYTES(3, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 'c');          /* 317 a Vec<u8> "abc" */
    return n;                                              /* 328 */
#undef BYTES
#undef FILL32
}

typedef struct elem {
    uint64_t nhashes;
    const uint8_t *hash; /* the first, or NULL */
    uint64_t index;
} elem;

typedef struct decoded {
    uint64_t sector_id;
    const uint8_t *comm_r, *root, *leaf, *comm_c, *comm_r_last;
    uint64_t nsectors, nproofs, nbase, nsub;
    uint32_t tag;
    elem base[2], sub[1];
    uint8_t flag;
    const uint8_t *bytes;
    size_t nbytes;
} decoded;

static czk_status path(czk_bincode *r, const char *name, elem *out, uint64_t *n, uint64_t max,
                       czk_err *err) {
    czk_status st = czk_bincode_len(r, max, 16, n, err, "sectors[0].inclusion_proofs[0].%s", name);
    for (uint64_t i = 0; !st && i < *n; i++) {
        st = czk_bincode_len(r, 15, 32, &out[i].nhashes, err,
                             "sectors[0].inclusion_proofs[0].%s[%llu].hashes", name,
                             (unsigned long long)i);
        out[i].hash = NULL;
        for (uint64_t h = 0; !st && h < out[i].nhashes; h++) {
            const uint8_t *p;
            st = czk_bincode_array(r, 32, &p, err,
                                   "sectors[0].inclusion_proofs[0].%s[%llu].hashes[%llu]", name,
                                   (unsigned long long)i, (unsigned long long)h);
            if (!st && !h) out[i].hash = p;
        }
        if (!st)
            st = czk_bincode_u64(r, &out[i].index, err,
                                 "sectors[0].inclusion_proofs[0].%s[%llu].index", name,
                                 (unsigned long long)i);
    }
    return st;
}

/* The record above, one sector of one Sub proof (enough for these bytes). */
static czk_status decode(const uint8_t *b, size_t len, decoded *d, czk_err *err) {
    memset(d, 0, sizeof *d);
    czk_bincode r;
    czk_bincode_init(&r, b, len);
    czk_status st = czk_bincode_u64(&r, &d->sector_id, err, "sector_id");
    if (!st) st = czk_bincode_array(&r, 32, &d->comm_r, err, "comm_r");
    if (!st) st = czk_bincode_len(&r, 1, 0, &d->nsectors, err, "sectors");
    if (!st) st = czk_bincode_len(&r, 1, 4, &d->nproofs, err, "sectors[0].inclusion_proofs");
    if (!st) st = czk_bincode_u32(&r, &d->tag, err, "sectors[0].inclusion_proofs[0] (tag)");
    if (!st) st = path(&r, "base_path", d->base, &d->nbase, 2, err);
    if (!st) st = path(&r, "sub_path", d->sub, &d->nsub, 1, err);
    if (!st) st = czk_bincode_array(&r, 32, &d->root, err, "sectors[0].inclusion_proofs[0].root");
    if (!st) st = czk_bincode_array(&r, 32, &d->leaf, err, "sectors[0].inclusion_proofs[0].leaf");
    if (!st) st = czk_bincode_array(&r, 32, &d->comm_c, err, "sectors[0].comm_c");
    if (!st) st = czk_bincode_array(&r, 32, &d->comm_r_last, err, "sectors[0].comm_r_last");
    if (!st) st = czk_bincode_u8(&r, &d->flag, err, "flag");
    if (!st) st = czk_bincode_bytes(&r, 16, &d->bytes, &d->nbytes, err, "note");
    if (!st) st = czk_bincode_end(&r, err, "sector proof");
    return st;
}

static bool all(const uint8_t *p, uint8_t v) {
    for (int i = 0; i < 32; i++)
        if (p[i] != v) return false;
    return true;
}

static void test_decode(void **state) {
    (void)state;
    uint8_t b[400];
    size_t n = build(b);
    assert_int_equal(n, 328);
    decoded d;
    czk_err err;
    czk_assert_ok(decode(b, n, &d, &err), &err);
    assert_true(d.sector_id == 0x1122334455667788ull);
    assert_true(all(d.comm_r, 0xc1));
    assert_int_equal(d.nsectors, 1);
    assert_int_equal(d.nproofs, 1);
    assert_int_equal(d.tag, 1);
    assert_int_equal(d.nbase, 2);
    assert_int_equal(d.base[0].nhashes, 1);
    assert_true(all(d.base[0].hash, 0xd0));
    assert_int_equal(d.base[0].index, 5);
    assert_int_equal(d.base[1].nhashes, 1);
    assert_true(all(d.base[1].hash, 0xd1));
    assert_int_equal(d.base[1].index, 256);
    assert_int_equal(d.nsub, 1);
    assert_int_equal(d.sub[0].nhashes, 0);
    assert_null(d.sub[0].hash);
    assert_int_equal(d.sub[0].index, 3);
    assert_true(all(d.root, 0xe0) && all(d.leaf, 0xe1));
    assert_true(all(d.comm_c, 0xf0) && all(d.comm_r_last, 0xf1));
    assert_int_equal(d.flag, 0xfe);
    assert_int_equal(d.nbytes, 3);
    assert_memory_equal(d.bytes, "abc", 3);
    /* pointers into the input, no copies */
    assert_ptr_equal(d.comm_c, b + 252);
    assert_ptr_equal(d.bytes, b + 325);
}

static void test_truncated(void **state) {
    (void)state;
    uint8_t b[400];
    size_t n = build(b);
    decoded d;
    czk_err err;
    /* every cut fails: short of a field's bytes, or (where a Vec's elements have a minimum
     * size) a length the bytes left cannot hold */
    for (size_t cut = 0; cut < n; cut++) {
        czk_status st = decode(b, cut, &d, &err);
        assert_true(st == CZK_ERR_TRUNCATED || st == CZK_ERR_FORMAT);
        assert_int_equal(strncmp(err.msg, "bincode ", 8), 0);
        assert_non_null(
            strstr(err.msg, st == CZK_ERR_TRUNCATED ? " bytes at offset " : " needs at least "));
    }
    /* the field and the numbers, at a few cuts */
    assert_int_equal(decode(b, 4, &d, &err), CZK_ERR_TRUNCATED);
    assert_string_equal(err.msg, "bincode sector_id: needs 8 bytes at offset 0, 4 left");
    assert_int_equal(decode(b, 111, &d, &err), CZK_ERR_TRUNCATED);
    assert_string_equal(err.msg, "bincode sectors[0].inclusion_proofs[0].base_path[0].index: "
                                 "needs 8 bytes at offset 108, 3 left");
    assert_int_equal(decode(b, 270, &d, &err), CZK_ERR_TRUNCATED);
    assert_string_equal(err.msg,
                        "bincode sectors[0].comm_c: needs 32 bytes at offset 252, 18 left");
    assert_int_equal(decode(b, 327, &d, &err), CZK_ERR_TRUNCATED);
    assert_string_equal(err.msg, "bincode note: needs 3 bytes at offset 325, 2 left");
}

static void test_bad_lengths(void **state) {
    (void)state;
    uint8_t b[400];
    size_t n = build(b);
    decoded d;
    czk_err err;
    /* more sectors than the bound */
    b[40] = 2;
    assert_int_equal(decode(b, n, &d, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "bincode sectors: length 2 is more than 1");
    b[40] = 1;
    /* a hash count the bytes left cannot hold: 15 × 32 > 252 */
    b[68] = 15;
    assert_int_equal(decode(b, n, &d, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "bincode sectors[0].inclusion_proofs[0].base_path[0].hashes: "
                                 "length 15 needs at least 480 bytes, 252 left");
    b[68] = 1;
    /* a length with its top byte set */
    b[47] = 0x80;
    assert_int_equal(decode(b, n, &d, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "bincode sectors: length 9223372036854775809 is more than 1");
    b[47] = 0;
    /* a Vec<u8> longer than its bound */
    b[317] = 17;
    assert_int_equal(decode(b, n, &d, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "bincode note: length 17 is more than 16");
    b[317] = 3;
    /* a byte after the end */
    b[n] = 0;
    assert_int_equal(decode(b, n + 1, &d, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "bincode sector proof: 1 bytes after the end (offset 328 of 329)");
    czk_assert_ok(decode(b, n, &d, &err), &err);
}

/* A failed read consumes nothing: the same bytes read again succeed as another field. */
static void test_no_consume_on_failure(void **state) {
    (void)state;
    const uint8_t b[] = {0xff, 0, 0, 0, 0, 0, 0, 0, 1, 2};
    czk_bincode r;
    czk_bincode_init(&r, b, sizeof b);
    uint64_t len;
    czk_err err;
    assert_int_equal(czk_bincode_len(&r, 8, 0, &len, &err, "v"), CZK_ERR_FORMAT);
    assert_int_equal(r.pos, 0);
    const uint8_t *p;
    size_t pn;
    assert_int_equal(czk_bincode_bytes(&r, 1000, &p, &pn, &err, "v"), CZK_ERR_TRUNCATED);
    assert_string_equal(err.msg, "bincode v: needs 255 bytes at offset 8, 2 left");
    assert_int_equal(r.pos, 0);
    uint32_t u;
    czk_assert_ok(czk_bincode_u32(&r, &u, &err, "u"), &err);
    assert_int_equal(u, 255);
    assert_int_equal(czk_bincode_left(&r), 6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_bad_lengths),
        cmocka_unit_test(test_no_consume_on_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
