/*
 * `czk selftest`: quick known-answer checks of every layer that exists,
 * each printed as it runs. Expected values are literals from independent
 * sources (named beside each).
 */
#include "cli/cli.h"
#include "czk/ec.h"
#include "czk/ff.h"
#include "czk/ntt.h"

#include "czk/msm.h"
#include "czk/porep_graph.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/poseidon.h"

#include <stdio.h>
#include <string.h>

typedef struct check {
    const char *name;
    bool (*run)(char *why, size_t whylen);
} check;

static void hex(char *out, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* ω_32 = 7^((r−1)/2^32), computed with Python's pow (big-endian hex). */
static bool check_root_of_unity(char *why, size_t whylen) {
    czk_fr w;
    if (czk_fr_root_of_unity(&w, 32, NULL)) return false;
    uint8_t le[32], be[32];
    czk_fr_to_bytes(le, &w);
    for (int i = 0; i < 32; i++) be[i] = le[31 - i];
    char got[65];
    hex(got, be, 32);
    const char *want = "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b";
    if (strcmp(got, want)) {
        snprintf(why, whylen, "omega_32 = %s, expected %s", got, want);
        return false;
    }
    return true;
}

/* Compressed generators: the zcash BLS12-381 serialization spec's values. */
static bool check_generators(char *why, size_t whylen) {
    uint8_t g1[48], g2[96];
    czk_g1_compress(g1, blst_p1_affine_generator());
    czk_g2_compress(g2, blst_p2_affine_generator());
    char h1[97], h2[193];
    hex(h1, g1, 48);
    hex(h2, g2, 96);
    const char *w1 = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
    const char *w2 = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                     "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
    if (strcmp(h1, w1) || strcmp(h2, w2)) {
        snprintf(why, whylen, "generator encodings differ from the zcash spec values");
        return false;
    }
    czk_g1_affine p;
    czk_g2_affine q;
    if (czk_g1_decode(&p, g1, 48, NULL) || !blst_p1_affine_is_equal(&p, blst_p1_affine_generator()) ||
        czk_g2_decode(&q, g2, 96, NULL) || !blst_p2_affine_is_equal(&q, blst_p2_affine_generator())) {
        snprintf(why, whylen, "generators do not decode back to themselves");
        return false;
    }
    return true;
}

/*
 * NTT: forward of [1, 2, 3, 4] against Python's
 * [sum(x[j]*pow(ω_4, i*j, r) for j in range(4)) % r for i in range(4)], ω_4 = ω_32^(2^30),
 * then a 2^8 inverse(forward(x)) round trip on seeded random data.
 */
static bool check_ntt(char *why, size_t whylen) {
    static const char *want[4] = {
        "000000000000000000000000000000000000000000000000000000000000000a",
        "73eda753299d7d4718963e6b1d9bce637bb7a3fe13f85bfefffdfffeffffffff",
        "73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffeffffffff",
        "00000000000000011aa3999cec0609a1d8060004ec0600000001fffffffffffe",
    };
    czk_err err;
    czk_fr x[256], y[256];
    for (int i = 0; i < 4; i++) czk_fr_from_u64(&x[i], (uint64_t)i + 1);
    if (czk_ntt(x, 2, CZK_NTT_FORWARD, NULL, &err)) {
        snprintf(why, whylen, "%s", err.msg);
        return false;
    }
    for (int i = 0; i < 4; i++) {
        uint8_t le[32], be[32];
        czk_fr_to_bytes(le, &x[i]);
        for (int k = 0; k < 32; k++) be[k] = le[31 - k];
        char got[65];
        hex(got, be, 32);
        if (strcmp(got, want[i])) {
            snprintf(why, whylen, "forward([1,2,3,4])[%d] = %s, expected %s", i, got, want[i]);
            return false;
        }
    }
    czk_rng rng;
    czk_rng_seed(&rng, 8);
    for (int i = 0; i < 256; i++) {
        if (czk_fr_random(&x[i], &rng, &err)) {
            snprintf(why, whylen, "%s", err.msg);
            return false;
        }
        y[i] = x[i];
    }
    if (czk_ntt(y, 8, CZK_NTT_FORWARD, NULL, &err) || czk_ntt(y, 8, CZK_NTT_INVERSE, NULL, &err)) {
        snprintf(why, whylen, "%s", err.msg);
        return false;
    }
    for (int i = 0; i < 256; i++) {
        if (!czk_fr_eq(&x[i], &y[i])) {
            snprintf(why, whylen, "2^8 inverse(forward(x)) differs from x at %d", i);
            return false;
        }
    }
    return true;
}

/*
 * MSM of 64 G1 points b_i = (i+1)·G with scalars 0, 1 and random ones
 * against the same sum taken in Fr: Σ s_i·b_i = (Σ s_i·(i+1))·G.
 */
static bool check_msm(char *why, size_t whylen) {
    enum { N = 64 };
    blst_p1 jac[N];
    blst_p1_affine bases[N];
    czk_fr s[N], sum = czk_fr_zero;
    czk_rng rng;
    czk_rng_seed(&rng, 64);
    jac[0] = *blst_p1_generator();
    for (int i = 1; i < N; i++) blst_p1_add_or_double(&jac[i], &jac[i - 1], &jac[0]);
    const blst_p1 *ptrs[2] = {jac, NULL};
    blst_p1s_to_affine(bases, ptrs, N);
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            s[i] = czk_fr_zero;
        else if (i % 3 == 1)
            s[i] = czk_fr_one;
        else if (czk_fr_random(&s[i], &rng, NULL))
            return false;
        czk_fr k, sk;
        czk_fr_from_u64(&k, (uint64_t)i + 1);
        czk_fr_mul(&sk, &s[i], &k);
        czk_fr_add(&sum, &sum, &sk);
    }
    blst_scalar b;
    blst_scalar_from_fr(&b, &sum);
    blst_p1 want, got, plain;
    blst_p1_mult(&want, blst_p1_generator(), b.b, 255);
    czk_err err;
    if (czk_msm_g1(&got, bases, s, N, NULL, &err) ||
        czk_msm_g1_plain(&plain, bases, s, N, NULL, &err)) {
        snprintf(why, whylen, "%s", err.msg);
        return false;
    }
    if (!blst_p1_is_equal(&got, &want) || !blst_p1_is_equal(&plain, &want)) {
        snprintf(why, whylen, "MSM%s differs from the sum taken in Fr",
                 blst_p1_is_equal(&got, &want) ? " (plain)" : "");
        return false;
    }
    return true;
}

/* neptune src/poseidon.rs hash_values (lurk-lab/neptune@ef8a821f): Standard
 * strength, MerkleTree tag, preimage [0, 1]; canonical LE u64 limbs. */
static bool check_poseidon(char *why, size_t whylen) {
    static const uint64_t want[4] = {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161,
                                     0x396508d75e76a56b};
    czk_fr pre[2], out;
    czk_fr_from_u64(&pre[0], 0);
    czk_fr_from_u64(&pre[1], 1);
    czk_err err;
    if (czk_poseidon_hash(&out, pre, 2, &err)) {
        snprintf(why, whylen, "%s", err.msg);
        return false;
    }
    uint64_t got[4];
    czk_fr_to_u64s(got, &out);
    if (memcmp(got, want, sizeof want)) {
        snprintf(why, whylen, "Poseidon-2([0, 1]) high limb %016llx, expected %016llx",
                 (unsigned long long)got[3], (unsigned long long)want[3]);
        return false;
    }
    return true;
}

/*
 * PoRep public inputs of a 2KiB V1_1 sector (miner f01000, sector 1, ticket
 * and seed 01…01, the empty sector's comm_d), as the chain derives them:
 * replica_id and the two challenges against Python's hashlib
 * (sha256(prover_id ‖ sector BE ‖ ticket ‖ comm_d ‖ porep_id), top bits
 * cleared; sha256(replica_id ‖ seed ‖ j LE u32) mod 63 + 1), the graph
 * against parent_cache.json's SHA-256 of the 2KiB V1_1 parent cache, and the
 * input layout of spec §2 (c, 14 parents, c, c, c per challenge).
 */
static bool check_porep_inputs(char *why, size_t whylen) {
    static const char *replica_hex =
        "3e75e87332cd5d60132c1f9f9a8362e2e4cf190b46f4fd636fd8864b842d170b";
    static const char *cache_hex =
        "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97";
    static const uint64_t challenges[2] = {8, 54};
    static const uint8_t comm_d[32] = {0xfc, 0x7e, 0x92, 0x82, 0x96, 0xe5, 0x16, 0xfa,
                                       0xad, 0xe9, 0x86, 0xb2, 0x8f, 0x92, 0xd4, 0x4a,
                                       0x4f, 0x24, 0xb9, 0x35, 0x48, 0x52, 0x23, 0x37,
                                       0x6a, 0x79, 0x90, 0x27, 0xbc, 0x18, 0xf8, 0x33};
    czk_err err;
    bool ok = false;
    czk_porep_graph *g = NULL;
    czk_c1 *c1 = czk_c1_create(5, 1, 2, &err);
    if (!c1) {
        snprintf(why, whylen, "%s", err.msg);
        return false;
    }
    memset(c1->ticket.b, 1, 32);
    memset(c1->seed.b, 1, 32);
    memcpy(c1->comm_d.b, comm_d, 32);
    c1->comm_r.b[0] = 7;
    uint8_t rid[32], digest[32];
    char got[65];
    czk_fr in[3 + 2 * 18], v;
    if (czk_porep_chain_replica_id(rid, c1, 1, 1000, &err)) goto fail;
    hex(got, rid, 32);
    if (strcmp(got, replica_hex)) {
        snprintf(why, whylen, "replica_id %s, expected %s", got, replica_hex);
        goto out;
    }
    memcpy(c1->replica_id.b, rid, 32);
    if (czk_c1_graph(&g, c1, NULL, &err) || czk_porep_graph_cache_digest(g, NULL, digest, &err))
        goto fail;
    hex(got, digest, 32);
    if (strcmp(got, cache_hex)) {
        snprintf(why, whylen, "parent cache SHA-256 %s, expected %s", got, cache_hex);
        goto out;
    }
    if (czk_porep_chain_inputs(in, c1, rid, g, 0, &err)) goto fail;
    if (czk_fr_from_bytes(&v, rid, NULL) || !czk_fr_eq(&in[0], &v) ||
        czk_fr_from_bytes(&v, comm_d, NULL) || !czk_fr_eq(&in[1], &v)) {
        snprintf(why, whylen, "inputs 1, 2 are not replica_id and comm_d");
        goto out;
    }
    for (unsigned i = 0; i < 2; i++) {
        const czk_fr *c = in + 3 + 18 * i;
        uint32_t par[14];
        if (czk_porep_graph_parents(g, challenges[i], par, &err)) goto fail;
        for (unsigned j = 0; j < 18; j++) {
            czk_fr_from_u64(&v, j == 0 || j >= 15 ? challenges[i] : par[j - 1]);
            if (!czk_fr_eq(&c[j], &v)) {
                snprintf(why, whylen, "challenge %u (node %llu): input %u is wrong", i,
                         (unsigned long long)challenges[i], 4 + 18 * i + j);
                goto out;
            }
        }
    }
    ok = true;
    goto out;
fail:
    snprintf(why, whylen, "%s", err.msg);
out:
    czk_porep_graph_destroy(g);
    czk_c1_free(c1);
    return ok;
}

static const check CHECKS[] = {
    {"ff: root of unity of order 2^32 (bellperson ROOT_OF_UNITY)", check_root_of_unity},
    {"ec: G1/G2 generator compressed encodings (zcash spec)", check_generators},
    {"ntt: forward of [1,2,3,4] (Python) and a 2^8 round trip", check_ntt},
    {"msm: 64-point G1 MSM with 0/1 scalars equals the sum taken in Fr", check_msm},
    {"gadgets: Poseidon arity 2 of [0, 1] (neptune hash_values)", check_poseidon},
    {"porep: 2KiB public inputs (replica_id, challenges: Python; graph: parent_cache.json)",
     check_porep_inputs},
};

int czk_cmd_selftest(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        printf("usage: czk selftest\n\nRuns quick known-answer checks of every layer and prints "
               "each check it makes.\nExit status 0 when all pass, 1 when any fails.\n");
        return CZK_EXIT_OK;
    }
    if (argc > 1) return czk_cli_fail("selftest", "unexpected argument '%s'", argv[1]);
    unsigned failed = 0, n = sizeof CHECKS / sizeof CHECKS[0];
    for (unsigned i = 0; i < n; i++) {
        char why[256] = "";
        bool ok = CHECKS[i].run(why, sizeof why);
        printf("%s  %s%s%s\n", ok ? "ok  " : "FAIL", CHECKS[i].name, ok ? "" : ": ", why);
        failed += !ok;
    }
    printf("selftest: %u of %u checks passed\n", n - failed, n);
    return failed ? CZK_EXIT_NO : CZK_EXIT_OK;
}
