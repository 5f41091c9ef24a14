/* CZK_TEST_LABELS: unit */
/*
 * FallbackPoSt challenges and public inputs against values computed for
 * this test outside czk, with Python's hashlib.sha256 following spec
 * post-snap.md §1.3 (leaf = u64 LE of the first 8 bytes of
 * SHA256(randomness ‖ sector_id u64 LE ‖ challenge_index u64 LE) mod
 * nodes; challenge_index V1 (k·sectors + i)·challenges + n, V1_2 n):
 *
 *   r = sha256(b"czk post test randomness"), r[31] &= 0x3f
 *     = a3f79982…83a6f100
 *   def leaf(sid, idx, nodes):
 *       h = hashlib.sha256(r + struct.pack('<Q', sid) + struct.pack('<Q', idx)).digest()
 *       return struct.unpack('<Q', h[:8])[0] % nodes
 *
 * Also: the layout of generate_public_inputs (per sector comm_r then its
 * leaves; the last sector's block repeated to fill the partition; 66
 * copies for WinningPoSt), the registered proof table (proofs-api registry
 * ids 0-14), and the refusals (a non-canonical randomness, a comm_r ≥ r,
 * too many sectors).
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/post.h"

static const char *const rand_hex =
    "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100";

static const czk_post_shape *shape(const char *name) {
    for (int i = 0; i < CZK_POST_SHAPE_COUNT; i++)
        if (!strcmp(czk_post_shapes[i].name, name)) return &czk_post_shapes[i];
    fail_msg("no shape %s", name);
    return NULL;
}

static czk_post_config config(czk_post_kind kind, const char *name) {
    czk_post_config c;
    czk_post_config_for(&c, kind, shape(name));
    return c;
}

static void pub(czk_post_pub_sector *s, uint64_t id, uint8_t fill) {
    s->sector_id = id;
    memset(s->comm_r, fill, 32);
    s->comm_r[31] = 0x0f;
}

static void check_challenges(czk_post_kind kind, const char *name, czk_post_api api,
                             const uint64_t *ids, size_t n, uint64_t k, const uint64_t *expect) {
    uint8_t r[32];
    czk_test_hex(r, 32, rand_hex);
    czk_post_config cfg = config(kind, name);
    czk_post_pub_sector s[2];
    for (size_t i = 0; i < n; i++)
        pub(&s[i], ids[i], 0x11);
    uint64_t got[2 * CZK_POST_WINDOW_CHALLENGES];
    czk_err err;
    czk_assert_ok(czk_post_challenges(got, &cfg, api, r, s, n, k, &err), &err);
    for (size_t i = 0; i < n * cfg.challenges; i++)
        if (got[i] != expect[i])
            fail_msg("%s challenge %zu: %llu, expected %llu", name, i, (unsigned long long)got[i],
                     (unsigned long long)expect[i]);
}

static void test_challenge_index(void **state) {
    (void)state;
    /* V1: (k·sectors + i)·challenges + n; V1_2: n */
    assert_int_equal(czk_post_challenge_index(CZK_POST_API_1_0, 0, 10, 3), 3);
    assert_int_equal(czk_post_challenge_index(CZK_POST_API_1_0, 1 * 2349 + 5, 10, 7), 23547);
    assert_int_equal(czk_post_challenge_index(CZK_POST_API_1_2, 1 * 2349 + 5, 10, 7), 7);
    assert_int_equal(czk_post_challenge_index(CZK_POST_API_1_0, 65, 1, 0), 65);
}

static void test_challenges_python(void **state) {
    (void)state;
    const uint64_t ids79[2] = {7, 9};
    static const uint64_t w2k_v1_k0[20] = {28, 34, 10, 43, 18, 51, 43, 33, 52, 6,
                                           52, 55, 20, 36, 1,  0,  20, 38, 43, 23};
    check_challenges(CZK_POST_WINDOW, "2KiB", CZK_POST_API_1_0, ids79, 2, 0, w2k_v1_k0);
    static const uint64_t w2k_v1_k3[10] = {30, 39, 17, 4, 30, 16, 39, 27, 18, 2};
    check_challenges(CZK_POST_WINDOW, "2KiB", CZK_POST_API_1_0, ids79, 1, 3, w2k_v1_k3);
    /* V1_2: the same for any k */
    static const uint64_t w2k_v12[20] = {28, 34, 10, 43, 18, 51, 43, 33, 52, 6,
                                         31, 46, 22, 58, 53, 14, 45, 29, 44, 56};
    check_challenges(CZK_POST_WINDOW, "2KiB", CZK_POST_API_1_2, ids79, 2, 3, w2k_v12);
    check_challenges(CZK_POST_WINDOW, "2KiB", CZK_POST_API_1_2, ids79, 2, 0, w2k_v12);
    const uint64_t ids1000[2] = {1000, 1001};
    static const uint64_t w32_v1_k1[20] = {30417203,  803164877, 930445208, 135979503, 742573169,
                                           440957749, 660509736, 652022656, 33347842,  698286800,
                                           441455563, 423048926, 497393824, 744863318, 575082265,
                                           407287029, 900968580, 746173591, 26933369,  945346405};
    check_challenges(CZK_POST_WINDOW, "32GiB", CZK_POST_API_1_0, ids1000, 2, 1, w32_v1_k1);
    static const uint64_t w32_v12[10] = {392938512,  200675873, 107207477, 667694219, 671127237,
                                         1031963803, 219297895, 156492284, 570897228, 335212556};
    check_challenges(CZK_POST_WINDOW, "32GiB", CZK_POST_API_1_2, ids1000, 1, 5, w32_v12);
    /* 64GiB: mod 2^31, sector index 1 of partition 0 */
    uint8_t r[32];
    czk_test_hex(r, 32, rand_hex);
    static const uint64_t w64[10] = {1545929675, 890144534,  1616578925, 2122332663, 1627578205,
                                     1864797298, 2030136722, 317564311,  512190356,  294632301};
    for (unsigned n = 0; n < 10; n++)
        assert_int_equal(
            czk_post_leaf_challenge(r, 0x1122334455667788ull,
                                    czk_post_challenge_index(CZK_POST_API_1_0, 1, 10, n),
                                    shape("64GiB")->nodes),
            w64[n]);
}

static const uint64_t win32[66] = {
    766612164, 331695501, 96988705,   64333792,  808394970,  428417948, 171584192, 864311802,
    840818271, 421266725, 471820577,  406905164, 912884179,  621260910, 372548382, 287337244,
    106092839, 576665028, 94045704,   680138254, 362577945,  459403965, 821294280, 545519431,
    570674705, 959436336, 773755032,  747753642, 663768287,  930297534, 331430789, 356620538,
    609675819, 861357874, 105159459,  432439130, 1044046253, 413157847, 410952718, 28499643,
    496239441, 636236326, 484950607,  974909578, 366680209,  413018552, 369466099, 598593597,
    968395793, 587957067, 513266366,  755575132, 1061374454, 524642187, 940244034, 256719819,
    896417676, 531483766, 1064578951, 550150382, 208020923,  916821233, 225346150, 403640702,
    554001172, 290673924};

static void assert_fr_u64(const czk_fr *x, uint64_t v) {
    czk_fr y;
    czk_fr_from_u64(&y, v);
    assert_true(czk_fr_eq(x, &y));
}

static void assert_fr_bytes(const czk_fr *x, const uint8_t b[32]) {
    uint8_t got[32];
    czk_fr_to_bytes(got, x);
    assert_memory_equal(got, b, 32);
}

static void test_public_inputs_window(void **state) {
    (void)state;
    uint8_t r[32];
    czk_test_hex(r, 32, rand_hex);
    czk_post_config cfg = config(CZK_POST_WINDOW, "2KiB");
    czk_post_pub_sector s[2];
    pub(&s[0], 7, 0xa1);
    pub(&s[1], 9, 0xb2);
    czk_fr in[22];
    czk_err err;
    assert_int_equal(czk_post_num_inputs(&cfg) - 1, 22);
    /* two sectors, V1, k = 0: comm_r(7), 10 leaves, comm_r(9), 10 leaves */
    static const uint64_t w2k_v1_k0[20] = {28, 34, 10, 43, 18, 51, 43, 33, 52, 6,
                                           52, 55, 20, 36, 1,  0,  20, 38, 43, 23};
    czk_assert_ok(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, r, s, 2, 0, &err), &err);
    for (int i = 0; i < 2; i++) {
        assert_fr_bytes(&in[11 * i], s[i].comm_r);
        for (int n = 0; n < 10; n++)
            assert_fr_u64(&in[11 * i + 1 + n], w2k_v1_k0[10 * i + n]);
    }
    /* one sector of partition 3: its block, then the same block again */
    static const uint64_t w2k_v1_k3[10] = {30, 39, 17, 4, 30, 16, 39, 27, 18, 2};
    czk_assert_ok(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, r, s, 1, 3, &err), &err);
    for (int i = 0; i < 2; i++) {
        assert_fr_bytes(&in[11 * i], s[0].comm_r);
        for (int n = 0; n < 10; n++)
            assert_fr_u64(&in[11 * i + 1 + n], w2k_v1_k3[n]);
    }
    /* a 32GiB partition of 3 sectors (V1_2): blocks 3..2348 repeat sector 2's */
    czk_post_config big = config(CZK_POST_WINDOW, "32GiB");
    size_t ninputs = czk_post_num_inputs(&big) - 1;
    assert_int_equal(ninputs, 25839);
    czk_fr *bin = malloc(ninputs * sizeof *bin);
    assert_non_null(bin);
    czk_post_pub_sector bs[3];
    pub(&bs[0], 1000, 0x01);
    pub(&bs[1], 1001, 0x02);
    pub(&bs[2], 1000, 0x03); /* an id may not repeat on chain; the inputs do not care */
    czk_assert_ok(czk_post_public_inputs(bin, &big, CZK_POST_API_1_2, r, bs, 3, 1, &err), &err);
    static const uint64_t w32_v12[10] = {392938512,  200675873, 107207477, 667694219, 671127237,
                                         1031963803, 219297895, 156492284, 570897228, 335212556};
    assert_fr_bytes(&bin[0], bs[0].comm_r);
    assert_fr_bytes(&bin[22], bs[2].comm_r);
    for (int n = 0; n < 10; n++) {
        assert_fr_u64(&bin[1 + n], w32_v12[n]);
        assert_fr_u64(&bin[23 + n], w32_v12[n]);
    }
    for (size_t i = 3; i < big.sectors; i++)
        assert_memory_equal(&bin[11 * i], &bin[22], 11 * sizeof *bin);
    free(bin);
}

static void test_public_inputs_winning(void **state) {
    (void)state;
    uint8_t r[32];
    czk_test_hex(r, 32, rand_hex);
    czk_post_config cfg = config(CZK_POST_WINNING, "32GiB");
    assert_int_equal(cfg.sectors, 66);
    assert_int_equal(cfg.challenges, 1);
    czk_post_pub_sector one, s[CZK_POST_WINNING_CHALLENGES];
    pub(&one, 5, 0x5c);
    czk_post_winning_sectors(s, &one);
    czk_fr in[132];
    czk_err err;
    assert_int_equal(czk_post_num_inputs(&cfg), 133);
    czk_assert_ok(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, r, s, 66, 0, &err), &err);
    for (int i = 0; i < 66; i++) {
        assert_fr_bytes(&in[2 * i], one.comm_r);
        assert_fr_u64(&in[2 * i + 1], win32[i]);
    }
}

static void test_refusals(void **state) {
    (void)state;
    uint8_t r[32];
    czk_test_hex(r, 32, rand_hex);
    czk_post_config cfg = config(CZK_POST_WINDOW, "2KiB");
    czk_post_pub_sector s[3];
    pub(&s[0], 7, 0x11);
    pub(&s[1], 8, 0x22);
    pub(&s[2], 9, 0x33);
    czk_fr in[22];
    uint64_t ch[30];
    czk_err err;
    /* unmasked randomness (Curio's mask not applied) */
    uint8_t bad[32];
    memcpy(bad, r, 32);
    bad[31] |= 0xc0;
    assert_int_equal(czk_post_randomness_check(bad, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "PoSt randomness is not a canonical Fr"));
    assert_non_null(strstr(err.msg, "byte 31 is 0xc0"));
    assert_int_equal(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, bad, s, 2, 0, &err),
                     CZK_ERR_FR_RANGE);
    assert_int_equal(czk_post_challenges(ch, &cfg, CZK_POST_API_1_0, bad, s, 2, 0, &err),
                     CZK_ERR_FR_RANGE);
    /* the boundary: r itself is refused, r - 1 accepted (BLS12-381 scalar modulus, LE) */
    uint8_t m[32];
    czk_test_hex(m, 32, "01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
    assert_int_equal(czk_post_randomness_check(m, &err), CZK_ERR_FR_RANGE);
    m[0] = 0;
    czk_assert_ok(czk_post_randomness_check(m, &err), &err);
    /* more sectors than the partition holds, none */
    assert_int_equal(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, r, s, 3, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "3 sectors for a partition of 2"));
    assert_int_equal(czk_post_challenges(ch, &cfg, CZK_POST_API_1_0, r, s, 0, 0, &err),
                     CZK_ERR_INVALID_ARG);
    /* a comm_r ≥ r names its sector */
    memset(s[1].comm_r, 0xff, 32);
    assert_int_equal(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, r, s, 2, 0, &err),
                     CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "comm_r of sector 8"));
}

static void test_registered_proofs(void **state) {
    (void)state;
    static const char *const names[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    czk_err err;
    for (uint64_t id = 0; id < 15; id++) {
        czk_post_proof p;
        czk_assert_ok(czk_post_proof_lookup(id, &p, &err), &err);
        assert_int_equal(p.id, id);
        assert_int_equal(p.kind, id < 5 ? CZK_POST_WINNING : CZK_POST_WINDOW);
        assert_int_equal(p.api, id < 10 ? CZK_POST_API_1_0 : CZK_POST_API_1_2);
        assert_string_equal(p.shape->name, names[id % 5]);
    }
    czk_post_proof p;
    assert_int_equal(czk_post_proof_lookup(15, &p, &err), CZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "registered PoSt proof 15"));
    /* spec §1.1 parameter ids and window sector counts */
    assert_string_equal(shape("32GiB")->window_param_id,
                        "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc");
    assert_string_equal(shape("2KiB")->winning_param_id,
                        "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e");
    assert_int_equal(shape("32GiB")->window_sectors, 2349);
    assert_int_equal(shape("64GiB")->window_sectors, 2300);
    assert_int_equal(shape("512MiB")->window_sectors, 2);
    assert_null(czk_post_shape_for_size(4096));
    assert_ptr_equal(czk_post_shape_for_size(64ull << 30), shape("64GiB"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_challenge_index),
        cmocka_unit_test(test_challenges_python),
        cmocka_unit_test(test_public_inputs_window),
        cmocka_unit_test(test_public_inputs_winning),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_registered_proofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
