/* CZK_TEST_LABELS: unit */
/*
 * The packed witness (czk_witness_pack) against a naive packing written here
 * (one value at a time, codes set bit by bit, the others appended in order):
 * codes and others byte for byte on random witnesses of all three classes
 * (zeros, ones, others, with others one bit away from zero and from one), at
 * sizes around the 32-value words and the 2^16-value chunks, with 1 to 40
 * inputs (the word where the inputs end and the aux begin), serially and on a
 * pool; no others; others exactly filling the room; more others than the room
 * (not packed, serially and on a pool, and the buffer still packs the next
 * witness); codes too small; no values; the sizes of czk_witness_packed_bytes
 * and the layout of czk_witness_packed_place.
 */
#include "support.h"

#include "mixed_witness.h"

#include "czk/pool.h"
#include "czk/r1cs.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static czk_fr value_of(unsigned k) {
    return mw_value(k, &rng_state);
}

static uint64_t rnd(void) {
    return mw_rand(&rng_state);
}

typedef struct wit {
    czk_witness w;
    czk_fr *z; /* inputs ‖ aux, one array (w's arrays point into it) */
} wit;

/* A witness of ni inputs and na aux (mw_fill's mix: zero_ppm, other_ppm). */
static wit make(uint32_t ni, uint32_t na, uint32_t zero_ppm, uint32_t other_ppm) {
    wit t;
    uint64_t n = (uint64_t)ni + na;
    t.z = malloc((n ? n : 1) * sizeof(czk_fr));
    assert_non_null(t.z);
    t.w = mw_witness(t.z, ni, na, zero_ppm, other_ppm, &rng_state);
    return t;
}

/* Naive packing of z (n values) into codes (⌈n/32⌉ words, cleared here) and others; returns the
 * count of others. */
static uint64_t naive_pack(const czk_fr *z, uint64_t n, uint64_t *codes, czk_fr *others) {
    uint64_t m = 0;
    memset(codes, 0, (n + 31) / 32 * 8);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t c;
        if (!memcmp(&z[i], &czk_fr_zero, sizeof(czk_fr)))
            c = 0;
        else if (!memcmp(&z[i], &czk_fr_one, sizeof(czk_fr)))
            c = 1;
        else {
            c = 2;
            others[m++] = z[i];
        }
        codes[i / 32] |= c << (2 * (i % 32));
    }
    return m;
}

/* A packed buffer for n values (czk_witness_packed_bytes / _place), in *block. */
static czk_witness_packed room(uint64_t n, void **block) {
    *block = malloc(czk_witness_packed_bytes(n) + 1);
    assert_non_null(*block);
    czk_witness_packed p;
    czk_witness_packed_place(&p, *block, n);
    return p;
}

/* Packs t into a fresh room on pool and compares with the naive packing. */
static void check_one(const wit *t, czk_pool *pool) {
    uint64_t n = (uint64_t)t->w.num_inputs + t->w.num_aux, words = (n + 31) / 32;
    void *block;
    czk_witness_packed p = room(n, &block);
    uint64_t *codes = malloc(words * 8 + 8);
    czk_fr *others = malloc((n + 1) * sizeof(czk_fr));
    assert_non_null(codes);
    assert_non_null(others);
    uint64_t m = naive_pack(t->z, n, codes, others);
    bool fits = m <= p.others_cap;
    assert_int_equal(czk_witness_pack(&p, &t->w, pool), fits);
    if (fits) {
        assert_int_equal(p.n, n);
        assert_int_equal(p.num_others, m);
        assert_memory_equal(p.codes, codes, words * 8);
        if (m) assert_memory_equal(p.others, others, m * sizeof(czk_fr));
    } else {
        assert_int_equal(p.n, 0);
    }
    free(codes);
    free(others);
    free(block);
}

static void test_sizes(void **state) {
    (void)state;
    assert_int_equal(czk_witness_packed_bytes(0), 0);
    assert_int_equal(czk_witness_packed_bytes(1), 40);
    assert_int_equal(czk_witness_packed_bytes(32), 40);
    assert_int_equal(czk_witness_packed_bytes(33), 80);
    /* a 32GiB PoRep partition's z: 1.25 bytes a value */
    assert_int_equal(czk_witness_packed_bytes(130278869ull), 4071215ull * 40);
    uint64_t block[16];
    czk_witness_packed p;
    czk_witness_packed_place(&p, block, 65);
    assert_ptr_equal(p.codes, block);
    assert_ptr_equal(p.others, (czk_fr *)(block + 3));
    assert_int_equal(p.codes_cap, 3);
    assert_int_equal(p.others_cap, 3);
    assert_int_equal(p.n, 0);
    assert_int_equal(p.num_others, 0);
}

static void test_random(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(4, &err);
    assert_non_null(pool);
    const uint32_t ni[] = {1, 3, 31, 32, 40};
    const uint32_t na[] = {0, 1, 28, 31, 32, 33, 97, 1000, 65536 - 40, 65536 + 5, 3 * 65536 + 17};
    const uint32_t ppm[] = {0, 20000, 31000, 300000};
    rng_state = 1;
    for (size_t a = 0; a < sizeof ni / sizeof ni[0]; a++)
        for (size_t b = 0; b < sizeof na / sizeof na[0]; b++)
            for (size_t c = 0; c < sizeof ppm / sizeof ppm[0]; c++) {
                wit t = make(ni[a], na[b], (1000000 - ppm[c]) / 2, ppm[c]);
                check_one(&t, NULL);
                check_one(&t, pool);
                free(t.z);
            }
    czk_pool_destroy(pool);
}

/* A large witness of the PoRep mix (51 % zero, 47 % one, 2 % other) on a pool: many chunks. */
static void test_porep_mix(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(3, &err);
    assert_non_null(pool);
    rng_state = 7;
    uint32_t na = (1u << 20) + 7;
    wit t = make(2, na, 510000, 20000);
    check_one(&t, pool);
    check_one(&t, NULL);
    free(t.z);
    czk_pool_destroy(pool);
}

/* Others exactly filling the room pack; one more does not; the room packs again afterwards. */
static void test_room(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(4, &err);
    assert_non_null(pool);
    rng_state = 3;
    for (int use_pool = 0; use_pool < 2; use_pool++) {
        czk_pool *pl = use_pool ? pool : NULL;
        uint32_t na = 8 * 65536 + 9; /* 9 chunks of 2^16 values on the pool */
        uint64_t n = na + 1, cap = (n + 31) / 32;
        wit t = make(1, na, 500000, 0);
        for (uint64_t i = 0; i < n; i++)
            t.z[i] = value_of((unsigned)(rnd() % 2));
        for (uint64_t k = 0; k < cap; k++) /* cap others spread over the whole witness */
            t.z[k * (n / cap)] = value_of(2);
        void *block;
        czk_witness_packed p = room(n, &block);
        assert_int_equal(p.others_cap, cap);
        assert_true(czk_witness_pack(&p, &t.w, pl));
        assert_int_equal(p.num_others, cap);
        check_one(&t, pl);
        t.z[n - 1] = value_of(2); /* one more: the room is short by one */
        assert_false(czk_witness_pack(&p, &t.w, pl));
        assert_int_equal(p.n, 0);
        assert_int_equal(p.num_others, 0);
        for (uint64_t i = 0; i < n; i++) /* all others: a dense witness (WindowPoSt) */
            t.z[i] = value_of(2);
        assert_false(czk_witness_pack(&p, &t.w, pl));
        assert_int_equal(p.n, 0);
        for (uint64_t i = 0; i < n; i++) /* none: the same room packs it */
            t.z[i] = value_of((unsigned)(i % 2));
        assert_true(czk_witness_pack(&p, &t.w, pl));
        assert_int_equal(p.n, n);
        assert_int_equal(p.num_others, 0);
        check_one(&t, pl);
        free(block);
        free(t.z);
    }
    czk_pool_destroy(pool);
}

/* Codes too small for the witness, and a witness of no values: not packed. */
static void test_refused(void **state) {
    (void)state;
    rng_state = 5;
    wit t = make(1, 64, 500000, 0); /* 65 values: 3 words */
    void *block;
    czk_witness_packed p = room(64, &block); /* 2 words */
    assert_false(czk_witness_pack(&p, &t.w, NULL));
    assert_int_equal(p.n, 0);
    czk_witness none = {.inputs = t.z, .aux = t.z, .num_inputs = 0, .num_aux = 0};
    assert_false(czk_witness_pack(&p, &none, NULL));
    assert_int_equal(p.n, 0);
    free(block);
    free(t.z);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),     cmocka_unit_test(test_random),
        cmocka_unit_test(test_porep_mix), cmocka_unit_test(test_room),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
