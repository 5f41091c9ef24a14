/* CZK_TEST_LABELS: unit */
/* SHA-256 and BLAKE2b wrappers (util/digest.h) and the porep layer's ChaCha against published vectors. */
#include "support.h"

#include <string.h>

#include <blst_aux.h>

#include "porep/hash.h"
#include "util/digest.h"

static void test_sha256(void **state) {
    (void)state;
    /* FIPS 180-4 example "abc". */
    uint8_t want[32], got[32];
    czk_test_hex(want, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    czk_sha256_digest(got, "abc", 3);
    assert_memory_equal(got, want, 32);
    /* Every length 0..300, fed in uneven pieces, against blst's one-shot SHA-256. */
    uint8_t msg[300];
    for (int i = 0; i < 300; i++)
        msg[i] = (uint8_t)(i * 7 + 3);
    for (size_t len = 0; len <= sizeof msg; len++) {
        czk_sha256_stream *c;
        czk_err err;
        czk_assert_ok(czk_sha256_stream_new(&c, &err), &err);
        czk_bytes parts[300];
        size_t np = 0;
        for (size_t at = 0, step = 1; at < len; at += step, step = step * 3 % 71 + 1) {
            size_t n = step < len - at ? step : len - at;
            czk_sha256_stream_update(c, msg + at, n);
            parts[np++] = (czk_bytes){msg + at, n};
        }
        czk_sha256_stream_finish(c, got);
        blst_sha256(want, msg, len);
        assert_memory_equal(got, want, 32);
        czk_sha256_parts(got, parts, np);
        assert_memory_equal(got, want, 32);
    }
    /* parts larger than the stack buffer */
    static uint8_t big[10000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 13);
    czk_sha256_parts(got, (const czk_bytes[]){{big, 5000}, {big + 5000, 5000}}, 2);
    blst_sha256(want, big, sizeof big);
    assert_memory_equal(got, want, 32);
}

static void test_blake2b(void **state) {
    (void)state;
    uint8_t want[64], got[64];
    /* RFC 7693 Appendix A: BLAKE2b-512("abc"). */
    czk_test_hex(want, 64,
                 "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                 "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
    czk_blake2b(got, 64, "abc", 3, NULL, 0);
    assert_memory_equal(got, want, 64);
    /* Python hashlib.blake2b(bytes(128)): exactly one full block. */
    czk_test_hex(want, 64,
                 "865939e120e6805438478841afb739ae4250cf372653078a065cdcfffca4caf7"
                 "98e6d462b65d658fc165782640eded70963449ae1500fb0f24981d7727e22c41");
    uint8_t zeros[128] = {0};
    czk_blake2b(got, 64, zeros, 128, NULL, 0);
    assert_memory_equal(got, want, 64);
    /* Python hashlib.blake2b(bytes(range(200)), digest_size=32, key=b"filecoin.io|...|Selection").
     */
    static const char *key = "filecoin.io|PoRep|1|Synthetic|1|Selection";
    uint8_t msg[200];
    for (int i = 0; i < 200; i++)
        msg[i] = (uint8_t)i;
    czk_test_hex(want, 32, "e475e158f24352a0f42741a9e4d59db1db188eaa3261842c8a219886790ea5e2");
    czk_blake2b(got, 32, msg, 200, key, strlen(key));
    assert_memory_equal(got, want, 32);
    /* Python hashlib.blake2b(b"", digest_size=32, key=b"k"): the key block is the last block. */
    czk_test_hex(want, 32, "490b6c8300eb23464bd2f9ca37c036be5091da14ddbeafab424c4c0a1f9eaac5");
    czk_blake2b(got, 32, "", 0, "k", 1);
    assert_memory_equal(got, want, 32);
}

static void test_chacha(void **state) {
    (void)state;
    /* RFC 8439 §2.3.2: key 00..1f, nonce 000000090000004a00000000, counter 1. */
    uint32_t key[8], nonce[3] = {0x09000000, 0x4a000000, 0}, w[16];
    uint8_t kb[32], got[64], want[64];
    for (int i = 0; i < 32; i++)
        kb[i] = (uint8_t)i;
    for (int i = 0; i < 8; i++)
        key[i] = czk_load_le32(kb + 4 * i);
    czk_chacha_block(w, key, 1, nonce, 20);
    for (int i = 0; i < 16; i++)
        czk_store_le32(got + 4 * i, w[i]);
    czk_test_hex(want, 64,
                 "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                 "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e");
    assert_memory_equal(got, want, 64);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_blake2b),
        cmocka_unit_test(test_chacha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
