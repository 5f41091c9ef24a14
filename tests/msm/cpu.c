/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * CPU MSM (czk_msm_g1/g2 and the _plain variants) against independent sums:
 *   - a naive double-and-add written here, one point at a time, over the
 *     canonical bits of each scalar (czk_fr_to_u64s), sizes 1 ... 2^10;
 *   - Fr arithmetic: with bases b_i = k_i·G, Σ s_i·b_i = (Σ s_i·k_i)·G;
 *   - czk_msm_*_plain (blst's Pippenger on every scalar) for 2^10 ... 2^16,
 *     uniform, all-zero, all-one and 0/1-heavy scalars, with no pool and
 *     pools of 1, 2, 3 and 24 threads;
 *   - edge cases: n = 0, infinity bases, repeated and opposite bases among
 *     the scalars equal to 1 (the doubling and cancelling branches of batch
 *     addition), scalars 2 and r − 1, bad arguments.
 */
#include "support.h"

#include "czk/msm.h"
#include "czk/pool.h"

#include <stdlib.h>
#include <string.h>

/* Scalar distributions. */
enum kind { UNIFORM, BITS, ZERO, ONE, SPECIAL };
static const char *KIND_NAME[] = {"uniform", "0/1-heavy", "all-zero", "all-one", "special"};

/*
 * NULL, 1, 2, 3 and 24 threads. 24 threads (oversubscribed here) make the
 * front end cut 2^13 points into several ranges as well as windows.
 */
#define NPOOLS 5
static const unsigned POOL_THREADS[NPOOLS] = {0, 1, 2, 3, 24};
static czk_pool *POOLS[NPOOLS];

static int setup(void **state) {
    (void)state;
    czk_err err;
    for (unsigned t = 1; t < NPOOLS; t++) {
        POOLS[t] = czk_pool_create(POOL_THREADS[t], &err);
        if (!POOLS[t]) return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (unsigned t = 1; t < NPOOLS; t++)
        czk_pool_destroy(POOLS[t]);
    return 0;
}

static void random_fr(czk_fr *out, czk_rng *rng) {
    czk_err err;
    czk_assert_ok(czk_fr_random(out, rng, &err), &err);
}

/* BITS: 45 % zero, 45 % one, 10 % uniform. SPECIAL: 0, 1, 2, r − 1 and uniform mixed. */
static czk_fr *make_scalars(size_t n, enum kind kind, czk_rng *rng) {
    czk_fr *s = malloc((n ? n : 1) * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        unsigned pick = (unsigned)(czk_rng_u64(rng) % 100);
        switch (kind) {
        case UNIFORM:
            random_fr(&s[i], rng);
            break;
        case ZERO:
            s[i] = czk_fr_zero;
            break;
        case ONE:
            s[i] = czk_fr_one;
            break;
        case BITS:
            if (pick < 45)
                s[i] = czk_fr_zero;
            else if (pick < 90)
                s[i] = czk_fr_one;
            else
                random_fr(&s[i], rng);
            break;
        case SPECIAL:
            if (pick < 20)
                s[i] = czk_fr_zero;
            else if (pick < 50)
                s[i] = czk_fr_one;
            else if (pick < 60)
                czk_fr_from_u64(&s[i], 2);
            else if (pick < 70)
                czk_fr_neg(&s[i], &czk_fr_one); /* r − 1 */
            else if (pick < 80)
                czk_fr_from_u64(&s[i], czk_rng_u64(rng) & 0xffff);
            else
                random_fr(&s[i], rng);
            break;
        }
    }
    return s;
}

/*
 * Per group: random bases (P_{i+1} = P_i + Q_{i mod 16} from random
 * multiples of the generator, batch-normalized), the naive sum, and the
 * comparisons. One body for G1 and G2.
 */
#define TEST_GROUP(g, point, affine)                                                               \
    static void g##_random_point(point *out, czk_rng *rng) {                                       \
        czk_fr k;                                                                                  \
        blst_scalar b;                                                                             \
        random_fr(&k, rng);                                                                        \
        blst_scalar_from_fr(&b, &k);                                                               \
        point##_mult(out, point##_generator(), b.b, 255);                                          \
    }                                                                                              \
                                                                                                   \
    static affine *g##_bases(size_t n, czk_rng *rng) {                                             \
        point q[16], *jac = malloc((n ? n : 1) * sizeof *jac);                                     \
        affine *out = malloc((n ? n : 1) * sizeof *out);                                           \
        assert_non_null(jac);                                                                      \
        assert_non_null(out);                                                                      \
        for (int i = 0; i < 16; i++)                                                               \
            g##_random_point(&q[i], rng);                                                          \
        if (n) g##_random_point(&jac[0], rng);                                                     \
        for (size_t i = 1; i < n; i++)                                                             \
            point##_add_or_double(&jac[i], &jac[i - 1], &q[i % 16]);                               \
        const point *ptrs[2] = {jac, NULL};                                                        \
        if (n) point##s_to_affine(out, ptrs, n);                                                   \
        free(jac);                                                                                 \
        return out;                                                                                \
    }                                                                                              \
                                                                                                   \
    /* Σ s_i·b_i by double-and-add over the canonical bits of each s_i. */                       \
    static void g##_naive(point *out, const affine *bases, const czk_fr *s, size_t n) {            \
        memset(out, 0, sizeof *out);                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            uint64_t limbs[4];                                                                     \
            czk_fr_to_u64s(limbs, &s[i]);                                                          \
            point b, acc;                                                                          \
            point##_from_affine(&b, &bases[i]);                                                    \
            memset(&acc, 0, sizeof acc);                                                           \
            for (int bit = 255; bit >= 0; bit--) {                                                 \
                point##_double(&acc, &acc);                                                        \
                if (limbs[bit / 64] >> (bit % 64) & 1) point##_add_or_double(&acc, &acc, &b);      \
            }                                                                                      \
            point##_add_or_double(out, out, &acc);                                                 \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void g##_assert_eq(const point *got, const point *want, const char *what, size_t n,     \
                              enum kind kind, unsigned pool) {                                     \
        if (!point##_is_equal(got, want))                                                          \
            fail_msg("%s: %s n=%zu %s scalars, pool of %u threads (0: NULL): sums differ", #g,     \
                     what, n, KIND_NAME[kind], POOL_THREADS[pool]);                                \
    }                                                                                              \
                                                                                                   \
    /* czk_msm_<g> == naive for n points; pool index t (0 = NULL). */                              \
    static void g##_check_naive(size_t n, enum kind kind, unsigned t, czk_rng *rng) {              \
        affine *bases = g##_bases(n, rng);                                                         \
        czk_fr *s = make_scalars(n, kind, rng);                                                    \
        point want, got;                                                                           \
        czk_err err;                                                                               \
        g##_naive(&want, bases, s, n);                                                             \
        czk_assert_ok(czk_msm_##g(&got, bases, s, n, POOLS[t], &err), &err);                       \
        g##_assert_eq(&got, &want, "front end vs naive", n, kind, t);                              \
        czk_assert_ok(czk_msm_##g##_plain(&got, bases, s, n, POOLS[t], &err), &err);               \
        g##_assert_eq(&got, &want, "plain vs naive", n, kind, t);                                  \
        free(bases);                                                                               \
        free(s);                                                                                   \
    }                                                                                              \
                                                                                                   \
    /* czk_msm_<g> with the pools in `pools` (bit t: POOLS[t]) == czk_msm_<g>_plain (2 threads).   \
     */                                                                                            \
    static void g##_check_plain(size_t n, enum kind kind, unsigned pools, const affine *bases,     \
                                czk_rng *rng) {                                                    \
        czk_fr *s = make_scalars(n, kind, rng);                                                    \
        point want, got;                                                                           \
        czk_err err;                                                                               \
        czk_assert_ok(czk_msm_##g##_plain(&want, bases, s, n, POOLS[2], &err), &err);              \
        for (unsigned t = 0; t < NPOOLS; t++) {                                                    \
            if (!(pools >> t & 1)) continue;                                                       \
            czk_assert_ok(czk_msm_##g(&got, bases, s, n, POOLS[t], &err), &err);                   \
            g##_assert_eq(&got, &want, "front end vs plain", n, kind, t);                          \
        }                                                                                          \
        if (kind == ZERO) assert_true(point##_is_inf(&got));                                       \
        free(s);                                                                                   \
    }                                                                                              \
                                                                                                   \
    /* Bases k_i·G with k_i = 1, 2, 3, ...: the MSM is (Σ s_i·k_i)·G, summed in Fr. */         \
    static void g##_check_fr(size_t n, enum kind kind, unsigned t, czk_rng *rng) {                 \
        point *jac = malloc(n * sizeof *jac);                                                      \
        affine *bases = malloc(n * sizeof *bases);                                                 \
        assert_non_null(jac);                                                                      \
        assert_non_null(bases);                                                                    \
        jac[0] = *point##_generator();                                                             \
        for (size_t i = 1; i < n; i++)                                                             \
            point##_add_or_double(&jac[i], &jac[i - 1], &jac[0]);                                  \
        const point *ptrs[2] = {jac, NULL};                                                        \
        point##s_to_affine(bases, ptrs, n);                                                        \
        czk_fr *s = make_scalars(n, kind, rng), sum = czk_fr_zero;                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            czk_fr k, sk;                                                                          \
            czk_fr_from_u64(&k, i + 1);                                                            \
            czk_fr_mul(&sk, &s[i], &k);                                                            \
            czk_fr_add(&sum, &sum, &sk);                                                           \
        }                                                                                          \
        blst_scalar b;                                                                             \
        blst_scalar_from_fr(&b, &sum);                                                             \
        point want, got;                                                                           \
        point##_mult(&want, point##_generator(), b.b, 255);                                        \
        czk_err err;                                                                               \
        czk_assert_ok(czk_msm_##g(&got, bases, s, n, POOLS[t], &err), &err);                       \
        g##_assert_eq(&got, &want, "front end vs Fr sum", n, kind, t);                             \
        free(jac);                                                                                 \
        free(bases);                                                                               \
        free(s);                                                                                   \
    }                                                                                              \
                                                                                                   \
    /*                                                                                             \
     * Infinity bases, a base repeated and a base next to its negation, most                       \
     * scalars 1: checks the front end and plain against the naive sum.                            \
     */                                                                                            \
    static void g##_check_edges(size_t n, unsigned t, czk_rng *rng) {                              \
        affine *bases = g##_bases(n, rng);                                                         \
        czk_fr *s = make_scalars(n, SPECIAL, rng);                                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (i % 7 == 3) memset(&bases[i], 0, sizeof bases[i]);                                 \
            if (i % 11 == 5) bases[i] = bases[0];                                                  \
            if (i % 13 == 6) {                                                                     \
                point p;                                                                           \
                point##_from_affine(&p, &bases[1]);                                                \
                point##_cneg(&p, 1);                                                               \
                point##_to_affine(&bases[i], &p);                                                  \
            }                                                                                      \
            if (i % 3 == 0) s[i] = czk_fr_one;                                                     \
        }                                                                                          \
        if (n > 1) s[0] = s[1] = czk_fr_one;                                                       \
        /* neighbours among the ones: P, P (doubling) and P, −P (cancelling) */                  \
        for (size_t i = 2; i + 1 < n; i += 9) {                                                    \
            point p;                                                                               \
            point##_from_affine(&p, &bases[i]);                                                    \
            point##_cneg(&p, i % 2);                                                               \
            point##_to_affine(&bases[i + 1], &p);                                                  \
            s[i] = s[i + 1] = czk_fr_one;                                                          \
        }                                                                                          \
        point want, got;                                                                           \
        czk_err err;                                                                               \
        g##_naive(&want, bases, s, n);                                                             \
        czk_assert_ok(czk_msm_##g(&got, bases, s, n, POOLS[t], &err), &err);                       \
        g##_assert_eq(&got, &want, "front end vs naive (edge bases)", n, SPECIAL, t);              \
        czk_assert_ok(czk_msm_##g##_plain(&got, bases, s, n, POOLS[t], &err), &err);               \
        g##_assert_eq(&got, &want, "plain vs naive (edge bases)", n, SPECIAL, t);                  \
        /* all bases at infinity */                                                                \
        memset(bases, 0, n * sizeof *bases);                                                       \
        czk_assert_ok(czk_msm_##g(&got, bases, s, n, POOLS[t], &err), &err);                       \
        assert_true(point##_is_inf(&got));                                                         \
        czk_assert_ok(czk_msm_##g##_plain(&got, bases, s, n, POOLS[t], &err), &err);               \
        assert_true(point##_is_inf(&got));                                                         \
        free(bases);                                                                               \
        free(s);                                                                                   \
    }                                                                                              \
                                                                                                   \
    /* n = 0 gives infinity; NULL arguments are refused. */                                        \
    static void g##_check_args(void) {                                                             \
        point out;                                                                                 \
        memset(&out, 0xa5, sizeof out);                                                            \
        czk_err err;                                                                               \
        czk_assert_ok(czk_msm_##g(&out, NULL, NULL, 0, POOLS[2], &err), &err);                     \
        assert_true(point##_is_inf(&out));                                                         \
        memset(&out, 0xa5, sizeof out);                                                            \
        czk_assert_ok(czk_msm_##g##_plain(&out, NULL, NULL, 0, NULL, &err), &err);                 \
        assert_true(point##_is_inf(&out));                                                         \
        czk_fr s = czk_fr_one;                                                                     \
        memset(&out, 0xa5, sizeof out);                                                            \
        assert_int_equal(czk_msm_##g(&out, NULL, &s, 1, NULL, &err), CZK_ERR_INVALID_ARG);         \
        assert_non_null(strstr(err.msg, "bases"));                                                 \
        assert_true(point##_is_inf(&out));                                                         \
        assert_int_equal(czk_msm_##g##_plain(NULL, NULL, &s, 1, NULL, &err), CZK_ERR_INVALID_ARG); \
        assert_non_null(strstr(err.msg, "out"));                                                   \
        /* scratch for 2^61 scalars does not fit in size_t: refused before any read */             \
        affine base;                                                                               \
        memset(&base, 0, sizeof base);                                                             \
        memset(&out, 0xa5, sizeof out);                                                            \
        assert_int_equal(czk_msm_##g##_plain(&out, &base, &s, SIZE_MAX / 8, POOLS[2], &err),       \
                         CZK_ERR_NOMEM);                                                           \
        assert_non_null(strstr(err.msg, "scratch"));                                               \
        assert_true(point##_is_inf(&out));                                                         \
    }

TEST_GROUP(g1, blst_p1, blst_p1_affine)
TEST_GROUP(g2, blst_p2, blst_p2_affine)

/* Sizes around blst's table-method limit (64 G1 / 32 G2 points) and the tile sizes. */
static void test_g1_naive(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 11);
    static const size_t sizes[] = {1, 2, 3, 4, 5, 17, 33, 64, 65, 130, 1024, 257};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        g1_check_naive(sizes[i], SPECIAL, (unsigned)(i % 4), &rng);
        g1_check_naive(sizes[i], i % 2 ? UNIFORM : BITS, 3 - (unsigned)(i % 4), &rng);
    }
}

static void test_g2_naive(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 12);
    static const size_t sizes[] = {1, 2, 3, 5, 17, 32, 33, 65, 257, 130, 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        g2_check_naive(sizes[i], SPECIAL, (unsigned)(i % 4), &rng);
        g2_check_naive(sizes[i], i % 2 ? UNIFORM : BITS, 3 - (unsigned)(i % 4), &rng);
    }
}

static void test_fr_sum(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 13);
    g1_check_fr(1, UNIFORM, 0, &rng);
    g1_check_fr(3000, BITS, 3, &rng);
    g1_check_fr(1 << 12, UNIFORM, 2, &rng);
    g1_check_fr(5000, ONE, 3, &rng);
    g2_check_fr(2, SPECIAL, 1, &rng);
    g2_check_fr(1 << 11, BITS, 2, &rng);
    g2_check_fr(1 << 11, UNIFORM, 3, &rng);
}

/* Pool sets for g*_check_plain: bit t selects POOLS[t]. */
#define ALL_POOLS 0x1fu

static void test_g1_plain(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 14);
    blst_p1_affine *bases = g1_bases(1 << 16, &rng);
    static const unsigned pools_2_13[] = {
        [UNIFORM] = 0x15, [BITS] = ALL_POOLS, [ZERO] = ALL_POOLS, [ONE] = 0x8, [SPECIAL] = 0xa};
    for (enum kind k = UNIFORM; k <= SPECIAL; k++) {
        g1_check_plain(1 << 10, k, ALL_POOLS, bases, &rng);
        g1_check_plain(1 << 13, k, pools_2_13[k], bases, &rng);
    }
    g1_check_plain(1 << 16, BITS, 1u << 0 | 1u << 3, bases, &rng);
    g1_check_plain(1, UNIFORM, ALL_POOLS, bases, &rng);
    g1_check_plain(1, ONE, ALL_POOLS, bases, &rng);
    free(bases);
}

static void test_g2_plain(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 15);
    blst_p2_affine *bases = g2_bases(1 << 13, &rng);
    for (enum kind k = UNIFORM; k <= SPECIAL; k++)
        g2_check_plain(1 << 10, k, k == UNIFORM ? 0x9 : ALL_POOLS, bases, &rng);
    g2_check_plain(1 << 13, UNIFORM, 1u << 3, bases, &rng);
    g2_check_plain(1 << 13, BITS, 1u << 0 | 1u << 2, bases, &rng);
    g2_check_plain(1 << 13, ZERO, ALL_POOLS, bases, &rng);
    g2_check_plain(1, UNIFORM, ALL_POOLS, bases, &rng);
    free(bases);
}

static void test_edges(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 16);
    g1_check_edges(40, 0, &rng);
    g1_check_edges(300, 3, &rng);
    g1_check_edges(2100, 2, &rng); /* two batch-addition tasks of ones */
    g2_check_edges(20, 1, &rng);
    g2_check_edges(300, 3, &rng);
    g1_check_args();
    g2_check_args();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_g1_naive), cmocka_unit_test(test_g2_naive),
        cmocka_unit_test(test_fr_sum),   cmocka_unit_test(test_g1_plain),
        cmocka_unit_test(test_g2_plain), cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
