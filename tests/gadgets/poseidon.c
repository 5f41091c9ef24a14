/* CZK_TEST_LABELS: unit */
/*
 * Poseidon constants and native hash: the generated tables against the
 * supra_seal constant files (sha256 literals), the Grain output against the
 * Poseidon authors' reference script output kept in neptune, neptune's hash
 * test vectors, and the optimized schedule against a plain HADES permutation
 * written here, also with neptune's custom domain tags.
 */
#include "support.h"

#include "czk/poseidon.h"

#include <blst_aux.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex_of(char *out, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static const czk_poseidon_constants *get(unsigned arity) {
    czk_err err;
    const czk_poseidon_constants *pc = czk_poseidon_constants_get(arity, &err);
    if (!pc) fail_msg("arity %u: %s", arity, err.msg);
    return pc;
}

/* sha256 over elements as 32-byte little-endian words, Montgomery form
 * (montgomery = true, the supra_seal file encoding) or canonical. */
static void sha256_of(char hex[65], const czk_fr *v, size_t n, bool montgomery) {
    uint8_t *buf = malloc(n * 32);
    assert_non_null(buf);
    for (size_t i = 0; i < n; i++) {
        if (montgomery) {
            for (int l = 0; l < 4; l++)
                for (int j = 0; j < 8; j++)
                    buf[32 * i + 8 * l + j] = (uint8_t)(v[i].l[l] >> (8 * j));
        } else {
            czk_fr_to_bytes(buf + 32 * i, &v[i]);
        }
    }
    uint8_t md[32];
    blst_sha256(md, buf, n * 32);
    free(buf);
    hex_of(hex, md, 32);
}

/*
 * The sha256 of supra_seal's poseidon/constants/constants_{2,4,8,11}
 * (c2ff1acf; fixtures/poseidon/README.md), whose layout is crc ‖ M ‖ P ‖ S_k,
 * 32-byte LE Montgomery. Element counts and partial rounds from the same
 * README (and spec §4.9).
 */
static void test_tables_equal_supra_seal_files(void **state) {
    (void)state;
    static const struct {
        unsigned arity, rp;
        size_t elements;
        const char *sha256;
    } want[] = {
        {2, 55, 372, "c41d7cd3b2ba28ae887a38f81bac9351270f005400748d37210c9b566f9da416"},
        {4, 56, 650, "6509aff40161052b84d6401c4887e7fca124bd92cfd479c2e45e1bc1126b9d92"},
        {8, 57, 1260, "b814f78a11c131128fb62e1b0bd517f8c8d10ecabaf6acdfde5294e867f9f404"},
        {11, 57, 1752, "1826150ebfe44dcc63e146d1379e8bb9b877b0f67bb7fa0377f984429fac3682"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const czk_poseidon_constants *pc = get(want[k].arity);
        const unsigned t = want[k].arity + 1;
        assert_int_equal(pc->arity, want[k].arity);
        assert_int_equal(pc->width, t);
        assert_int_equal(pc->full_rounds, 8);
        assert_int_equal(pc->partial_rounds, want[k].rp);
        assert_int_equal(pc->table_len, want[k].elements);
        /* Serialize from the separate blocks, in the file's order. */
        const size_t n_crc = 8 * t + pc->partial_rounds, n_mat = (size_t)t * t;
        const size_t n_sparse = (size_t)pc->partial_rounds * (2 * t - 1);
        assert_int_equal(n_crc + 2 * n_mat + n_sparse, want[k].elements);
        czk_fr *all = malloc(want[k].elements * sizeof *all);
        assert_non_null(all);
        memcpy(all, pc->crc, n_crc * sizeof *all);
        memcpy(all + n_crc, pc->mds, n_mat * sizeof *all);
        memcpy(all + n_crc + n_mat, pc->pre_sparse, n_mat * sizeof *all);
        memcpy(all + n_crc + 2 * n_mat, pc->sparse, n_sparse * sizeof *all);
        char got[65];
        sha256_of(got, all, want[k].elements, true);
        assert_string_equal(got, want[k].sha256);
        assert_memory_equal(all, pc->table, want[k].elements * sizeof *all);
        free(all);
    }
}

/* First three crc values of constants_2, canonical (fixtures README and
 * spec §4.9). */
static void test_first_round_constants_arity2(void **state) {
    (void)state;
    const char *want[3] = {
        "669f064bfa3ae17a23bd51861dbb4a24501eac92a2758b36a7320a009d6ed3d8",
        "0a61a8defbacca36e4537ff2c84fa66ceee67c9645ac27346e72ab842b9d3f15",
        "21e9cefa24b89d09f91b1e8a45df275b17292b4e1aaa49301e234771128165d5",
    };
    const czk_poseidon_constants *pc = get(2);
    for (int i = 0; i < 3; i++) {
        czk_fr w;
        czk_test_fr_from_hex_be(&w, want[i]);
        assert_true(czk_fr_eq(&pc->crc[i], &w));
        assert_true(czk_fr_eq(&pc->round_constants[i], &w)); /* crc starts with rk(0) */
    }
}

/*
 * Grain output for t = 9, RF = 8, RP = 57: neptune
 * parameters/round_constants-1-1-255-9-8-57-73EDA7…00000001.txt, produced by
 * the Poseidon authors' create_rcs_grain.sage. 585 constants; the sha256 of
 * their canonical 32-byte LE encodings was computed with Python from that
 * file; first and last two values copied from it.
 */
static void test_grain_matches_reference_script(void **state) {
    (void)state;
    const czk_poseidon_constants *pc = get(8);
    const size_t n = (size_t)(8 + 57) * 9;
    assert_int_equal(n, 585);
    char got[65];
    sha256_of(got, pc->round_constants, n, false);
    assert_string_equal(got, "9a4a743575f0eaf285c93d73f8adaf4e7ef4042c2445b42bddaf1a64e5face72");
    static const struct {
        size_t index;
        const char *hex;
    } spot[] = {
        {0, "6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"},
        {1, "0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39"},
        {583, "5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60"},
        {584, "3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c"},
    };
    for (size_t i = 0; i < sizeof spot / sizeof spot[0]; i++) {
        czk_fr w;
        czk_test_fr_from_hex_be(&w, spot[i].hex);
        assert_true(czk_fr_eq(&pc->round_constants[spot[i].index], &w));
    }
}

static const unsigned ALL_ARITIES[] = {2, 4, 8, 11, 16, 24, 36};
#define NUM_ALL (sizeof ALL_ARITIES / sizeof ALL_ARITIES[0])

/* M[i][j]·(i + t + j) = 1 (the Cauchy definition, spec §4.9). */
static void test_mds_is_cauchy(void **state) {
    (void)state;
    for (size_t k = 0; k < NUM_ALL; k++) {
        const czk_poseidon_constants *pc = get(ALL_ARITIES[k]);
        const unsigned t = pc->width;
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++) {
                czk_fr d, p;
                czk_fr_from_u64(&d, (uint64_t)i + t + j);
                czk_fr_mul(&p, &pc->mds[i * t + j], &d);
                assert_true(czk_fr_is_one(&p));
            }
        czk_fr tag;
        czk_fr_from_u64(&tag, (UINT64_C(1) << ALL_ARITIES[k]) - 1);
        assert_true(czk_fr_eq(&pc->domain_tag, &tag));
    }
}

/*
 * Plain Poseidon (HADES): for each of the RF + RP rounds add the round's t
 * Grain constants, apply x^5 to every element (full rounds: the first and
 * last RF/2) or to element 0 (partial rounds), then state = M·state. This is
 * neptune's hash_correct, independent of crc, P and S_k.
 */
static void plain_poseidon(const czk_poseidon_constants *pc, czk_fr *out, const czk_fr *preimage) {
    const unsigned t = pc->width, rounds = pc->full_rounds + pc->partial_rounds;
    const unsigned half = pc->full_rounds / 2;
    czk_fr s[CZK_POSEIDON_MAX_WIDTH], n[CZK_POSEIDON_MAX_WIDTH];
    s[0] = pc->domain_tag;
    for (unsigned i = 1; i < t; i++)
        s[i] = preimage[i - 1];
    for (unsigned r = 0; r < rounds; r++) {
        bool full = r < half || r >= half + pc->partial_rounds;
        for (unsigned i = 0; i < t; i++) {
            czk_fr_add(&s[i], &s[i], &pc->round_constants[(size_t)r * t + i]);
            if (i == 0 || full) {
                czk_fr x = s[i];
                czk_fr_pow_u64(&s[i], &x, 5);
            }
        }
        for (unsigned i = 0; i < t; i++) {
            n[i] = czk_fr_zero;
            for (unsigned j = 0; j < t; j++) {
                czk_fr p;
                czk_fr_mul(&p, &pc->mds[i * t + j], &s[j]);
                czk_fr_add(&n[i], &n[i], &p);
            }
        }
        memcpy(s, n, t * sizeof *s);
    }
    *out = s[1];
}

/*
 * neptune src/poseidon.rs hash_values (lurk-lab/neptune@ef8a821f),
 * Strength::Standard, MerkleTree, preimage [0, 1, …, arity − 1], as LE u64
 * limbs of the canonical value. Arities 2–11 also in fixtures README and
 * spec §4.9.
 */
static const uint64_t NEPTUNE_VECTORS[NUM_ALL][4] = {
    {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
    {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
    {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
    {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
    {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
    {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
    {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
};

static void test_neptune_vectors(void **state) {
    (void)state;
    for (size_t k = 0; k < NUM_ALL; k++) {
        const unsigned a = ALL_ARITIES[k];
        czk_fr pre[CZK_POSEIDON_MAX_ARITY], want, got, plain;
        for (unsigned i = 0; i < a; i++)
            czk_fr_from_u64(&pre[i], i);
        czk_fr_from_u64s(&want, NEPTUNE_VECTORS[k]);
        czk_err err;
        czk_assert_ok(czk_poseidon_hash(&got, pre, a, &err), &err);
        assert_true(czk_fr_eq(&got, &want));
        plain_poseidon(get(a), &plain, pre);
        assert_true(czk_fr_eq(&plain, &want));
    }
}

static void test_optimized_equals_plain_on_random_inputs(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 0x9053);
    czk_err err;
    for (size_t k = 0; k < NUM_ALL; k++) {
        const czk_poseidon_constants *pc = get(ALL_ARITIES[k]);
        for (int rep = 0; rep < 20; rep++) {
            czk_fr pre[CZK_POSEIDON_MAX_ARITY], a, b;
            for (unsigned i = 0; i < pc->arity; i++)
                czk_assert_ok(czk_fr_random(&pre[i], &rng, &err), &err);
            czk_poseidon_hash_with(pc, &a, pre);
            plain_poseidon(pc, &b, pre);
            assert_true(czk_fr_eq(&a, &b));
            /* out may alias the preimage */
            czk_poseidon_hash_with(pc, &pre[0], pre);
            assert_true(czk_fr_eq(&pre[0], &a));
        }
    }
}

/*
 * neptune HashType::Custom(CType::Arbitrary(id)) (hash_type.rs
 * test_domain_tags: the tag is id · 2^40, as u64 limbs [0x10000000000·id,
 * 0, 0, 0], for id 1..=256), otherwise the MerkleTree constants: the
 * optimized schedule with the custom tag equals the plain permutation
 * started from that tag, and differs from the MerkleTree hash.
 * storage-proofs-update's GEN_RANDOMNESS is arity 2, id 1; its published
 * challenge vectors are checked in tests/snap/inputs.c.
 */
static void test_custom_hash_type(void **state) {
    (void)state;
    czk_err err;
    czk_rng rng;
    czk_rng_seed(&rng, 0xc7e);
    for (uint64_t id = 1; id <= 256; id++) {
        czk_poseidon_constants pc;
        czk_assert_ok(czk_poseidon_constants_custom(&pc, 2, id, &err), &err);
        uint64_t limbs[4];
        czk_fr_to_u64s(limbs, &pc.domain_tag);
        assert_int_equal(limbs[0], 0x0000010000000000ull * id);
        assert_int_equal(limbs[1] | limbs[2] | limbs[3], 0);
        const czk_poseidon_constants *mt = get(2);
        assert_ptr_equal(pc.round_constants, mt->round_constants);
        assert_ptr_equal(pc.table, mt->table);
        assert_int_equal(pc.partial_rounds, mt->partial_rounds);
        if (id > 3 && id != 256) continue;
        czk_fr pre[2], a, b, m;
        for (int i = 0; i < 2; i++)
            czk_assert_ok(czk_fr_random(&pre[i], &rng, &err), &err);
        czk_poseidon_hash_with(&pc, &a, pre);
        plain_poseidon(&pc, &b, pre);
        assert_true(czk_fr_eq(&a, &b));
        czk_poseidon_hash_with(mt, &m, pre);
        assert_false(czk_fr_eq(&a, &m));
    }
    /* other arities too: the tag is the only difference */
    czk_poseidon_constants pc8;
    czk_assert_ok(czk_poseidon_constants_custom(&pc8, 8, 7, &err), &err);
    czk_fr pre[8], a, b;
    for (int i = 0; i < 8; i++)
        czk_fr_from_u64(&pre[i], (uint64_t)i);
    czk_poseidon_hash_with(&pc8, &a, pre);
    plain_poseidon(&pc8, &b, pre);
    assert_true(czk_fr_eq(&a, &b));
    /* ids outside 1..256 and bad arities are refused */
    czk_poseidon_constants x;
    assert_int_equal(czk_poseidon_constants_custom(&x, 2, 0, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "1..256"));
    assert_int_equal(czk_poseidon_constants_custom(&x, 2, 257, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_poseidon_constants_custom(&x, 3, 1, &err), CZK_ERR_UNSUPPORTED);
}

static void test_unsupported_arity(void **state) {
    (void)state;
    const unsigned bad[] = {0, 1, 3, 5, 9, 12, 37, 64, 1000, 0xffffffffu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        czk_err err;
        assert_false(czk_poseidon_arity_supported(bad[i]));
        assert_null(czk_poseidon_constants_get(bad[i], &err));
        assert_int_equal(err.code, CZK_ERR_UNSUPPORTED);
        assert_non_null(strstr(err.msg, "arity"));
        czk_fr pre[CZK_POSEIDON_MAX_ARITY] = {0}, out = czk_fr_one;
        assert_int_equal(czk_poseidon_hash(&out, pre, bad[i], NULL), CZK_ERR_UNSUPPORTED);
        assert_true(czk_fr_is_one(&out)); /* untouched */
    }
    for (size_t k = 0; k < NUM_ALL; k++)
        assert_true(czk_poseidon_arity_supported(ALL_ARITIES[k]));
}

/* Concurrent first use of one arity: every thread sees the same table. */
static void *race(void *arg) {
    *(const czk_poseidon_constants **)arg = czk_poseidon_constants_get(24, NULL);
    return NULL;
}

static void test_concurrent_first_use(void **state) {
    (void)state;
    enum { N = 8 };
    pthread_t th[N];
    const czk_poseidon_constants *got[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&th[i], NULL, race, &got[i]), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < N; i++) {
        assert_non_null(got[i]);
        assert_ptr_equal(got[i], got[0]);
    }
    assert_int_equal(got[0]->arity, 24);
    assert_int_equal(got[0]->partial_rounds, 59);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_first_use),
        cmocka_unit_test(test_tables_equal_supra_seal_files),
        cmocka_unit_test(test_first_round_constants_arity2),
        cmocka_unit_test(test_grain_matches_reference_script),
        cmocka_unit_test(test_mds_is_cauchy),
        cmocka_unit_test(test_neptune_vectors),
        cmocka_unit_test(test_optimized_equals_plain_on_random_inputs),
        cmocka_unit_test(test_custom_hash_type),
        cmocka_unit_test(test_unsupported_arity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
