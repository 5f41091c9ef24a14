/* CZK_TEST_LABELS: unit */
/*
 * Fr32 padding and comm_d (TreeD root).
 * Sources: rust-fil-proofs fr32/src/reader.rs tests (sealing-vectors.md §F);
 * sealing-vectors.md §E (CC comm_d of every level, published as prefixes
 * except 32GiB; the full values were computed with Python hashlib, level k =
 * SHA256(level k−1 ‖ level k−1) with byte 31 &= 0x3f, and agree with every
 * published prefix), and curio treed_build_test.go (byte 0 = 01).
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/seal.h"

static void check_pad(const uint8_t *in, size_t n, const char *want_hex) {
    size_t want_len = strlen(want_hex) / 2;
    assert_int_equal(czk_fr32_padded_len(n), want_len);
    uint8_t *want = malloc(want_len + 1), *got = malloc(want_len + 1);
    assert_non_null(want);
    assert_non_null(got);
    czk_test_hex(want, want_len, want_hex);
    got[want_len] = 0xa5; /* no write past the padded length */
    czk_fr32_pad(got, in, n);
    assert_memory_equal(got, want, want_len);
    assert_int_equal(got[want_len], 0xa5);
    free(want);
    free(got);
}

static void test_fr32(void **state) {
    (void)state;
    uint8_t ff[127];
    memset(ff, 0xff, sizeof ff);
    /* reader.rs test_simple_single: 32×ff -> ff×31, 3f, 03, zeros (64 bytes). */
    check_pad(ff, 32,
              "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff3f"
              "0300000000000000000000000000000000000000000000000000000000000000");
    /* test_simple_127: 127×ff -> 128 bytes, [31] = 3f, [32] = ff. */
    uint8_t out[128];
    assert_int_equal(czk_fr32_padded_len(127), 128);
    czk_fr32_pad(out, ff, 127);
    assert_int_equal(out[31], 0x3f);
    assert_int_equal(out[32], 0xff);
    for (int i = 0; i < 4; i++)
        assert_int_equal(out[32 * i + 31], 0x3f);
    /* test_simple_short: 30×03 -> the data then two zero bytes. */
    uint8_t three[30];
    memset(three, 3, sizeof three);
    check_pad(three, 30,
              "030303030303030303030303030303030303030303030303030303030303"
              "0000");
    /* test_exotic: every asserted byte (0..68) agrees; the whole output by a
     * bit-by-bit Python implementation of the same rule. */
    uint8_t exotic[72];
    for (int i = 0; i < 31; i++) {
        exotic[i] = (uint8_t)(i + 1);
        exotic[32 + i] = (uint8_t)(i + 1);
    }
    exotic[31] = exotic[63] = 0xff;
    exotic[64] = exotic[65] = exotic[66] = 9;
    exotic[67] = 0xff;
    check_pad(exotic, 68,
              "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f3f"
              "07080c1014181c2024282c3034383c4044484c5054585c6064686c7074787c3c"
              "9f9090f00f000000000000000000000000000000000000000000000000000000");
    /* (i·37 + 11) mod 256 for 130 bytes (Python, bit-by-bit). */
    uint8_t pat[130];
    for (int i = 0; i < 130; i++)
        pat[i] = (uint8_t)(i * 37 + 11);
    check_pad(pat, 130,
              "0b30557a9fc4e90e33587da2c7ec11365b80a5caef14395e83a8cdf2173c6106"
              "ae42d76bfc9025ba4ee377089d31c65aef8314a93dd266fb8f20b549de720718"
              "b20457a9fb4d90e23487d92b7ec01265b7095caef04295e7398cde2073c5172a"
              "f13a448dd61f69b2fb044e97e02973bcc50e58a1ea337d86cf1862abf43d4710"
              "668bb00000000000000000000000000000000000000000000000000000000000");
    assert_int_equal(czk_fr32_padded_len(0), 0);
}

/* sealing-vectors.md §E: log2(nodes) -> CC comm_d (prefix published; full value by Python). */
static const struct {
    unsigned level;
    const char *hex;
} CC[] = {
    {2, "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"},  /* 128B */
    {6, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"},  /* 2KiB */
    {7, "08c47b38ee13bc43f41b915c0eed9911a26086b3ed62401bf9d58b8d19dff624"},  /* 4KiB */
    {9, "f9226160c8f927bfdcc418cdf203493146008eaefb7d02194d5e548189005108"},  /* 16KiB */
    {10, "2c1a964bb90b59ebfe0f6da29ad65ae3e417724a8f7c11745a40cac1e5e74011"}, /* 32KiB */
    {18, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"}, /* 8MiB */
    {19, "a2247508285850965b7e334b3127b0c042b1d046dc54402137627cd8799ce13a"}, /* 16MiB */
    {24, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"}, /* 512MiB */
    {25, "ccc3c012f5b05e811a2bbfdd0f6833b84275b47bf229c0052a82484f3c1a5b3d"}, /* 1GiB */
    {30, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e"}, /* 32GiB (in full) */
    {31, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02"}, /* 64GiB */
};

static void test_cc_comm_d(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof CC / sizeof CC[0]; i++) {
        uint8_t want[32], got[32];
        czk_test_hex(want, 32, CC[i].hex);
        czk_seal_zero_comm_d(got, CC[i].level);
        assert_memory_equal(got, want, 32);
    }
}

/* The tree over real buffers: zero sectors and byte 0 = 01 (curio treed_build_test.go). */
static void test_tree_d_root(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    static const struct {
        unsigned level;
        const char *zero, *one;
    } v[] = {
        {6, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833",
         "ea995c54784720b449fc92b070adb6cf6635c2619a7a5e0054a24e88f252ec0d"},
        {18, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c",
         "23404a8880f9cbc72039cb8614359c2834845570fe95190bbd4d934142e8252c"},
    };
    for (size_t i = 0; i < 2; i++) {
        uint64_t nodes = (uint64_t)1 << v[i].level;
        uint8_t *data = calloc(nodes, 32), want[32], got[32];
        assert_non_null(data);
        czk_test_hex(want, 32, v[i].zero);
        czk_assert_ok(czk_seal_tree_d_root(got, data, nodes, pool, &err), &err);
        assert_memory_equal(got, want, 32);
        data[0] = 1;
        czk_test_hex(want, 32, v[i].one);
        czk_assert_ok(czk_seal_tree_d_root(got, data, nodes, NULL, &err), &err);
        assert_memory_equal(got, want, 32);
        free(data);
    }
    uint8_t d[96] = {0}, r[32];
    assert_int_equal(czk_seal_tree_d_root(r, d, 3, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_seal_tree_d_root(r, d, 1, NULL, &err), CZK_ERR_INVALID_ARG);
    czk_pool_destroy(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fr32),
        cmocka_unit_test(test_cc_comm_d),
        cmocka_unit_test(test_tree_d_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
