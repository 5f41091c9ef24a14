/* CZK_TEST_LABELS: slow */
/* CZK_TEST_TIMEOUT: 3600 */
/*
 * Whole WindowPoSt partitions of 32GiB (2349 sectors) and 64GiB (2300)
 * recorded with the sectors as parts on a pool of every CPU (czk_post_record),
 * and the 32GiB one also serially (czk_cs_record of czk_post_circuit_fn, every
 * sector synthesized: about 3 minutes on two cores), each ~12 GB, one at a
 * time. Expected values:
 *   - synthesized constraints: filecoin-proofs constants.rs comments
 *     (125,279,217 and 129,887,900); inputs incl. ONE and aux as
 *     tests/post/circuit_counts.c derives them (spec post-snap.md §1.2);
 *   - every other count as czk_post_count extrapolates it from 1 and 2 sectors;
 *   - 32GiB: the parts' shape equals the serial one, array by array (a 64-bit
 *     checksum of each array, czk_hash64, and the counts).
 */
#include "support.h"

#include <string.h>

#include "czk/pool.h"
#include "czk/post.h"
#include "r1cs/r1cs_internal.h"

/* Checksums of every array of the shape. */
typedef struct sums {
    uint64_t h[13];
    czk_shape_counts c;
} sums;

static sums sums_of(const czk_shape *s) {
    sums r;
    memset(&r, 0, sizeof r);
    r.h[0] = czk_hash64(s->coeffs, s->num_coeffs * sizeof(czk_fr), 0);
    for (int i = 0; i < 3; i++) {
        r.h[1 + 3 * i] = czk_hash64(s->m[i].row_ptr, (s->num_constraints + 1) * 8, 1);
        r.h[2 + 3 * i] = czk_hash64(s->m[i].col, s->m[i].nnz * 4, 2);
        r.h[3 + 3 * i] = czk_hash64(s->m[i].coeff, s->m[i].nnz * 4, 3);
    }
    const czk_bitmap *bm[3] = {&s->a_aux, &s->b_input, &s->b_aux};
    for (int i = 0; i < 3; i++)
        r.h[10 + i] = czk_hash64(bm[i]->words, (bm[i]->len + 63) / 64 * 8, 4);
    czk_shape_counts_of(&r.c, s);
    return r;
}

static sums whole(const char *size, bool serial, uint64_t synth, uint64_t inputs, uint64_t aux) {
    const czk_post_shape *shape = NULL;
    for (int i = 0; i < CZK_POST_SHAPE_COUNT; i++)
        if (!strcmp(czk_post_shapes[i].name, size)) shape = &czk_post_shapes[i];
    assert_non_null(shape);
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, shape);
    czk_err err;
    czk_shape *sh = NULL;
    czk_post_circuit c = {&cfg, NULL};
    czk_pool *pool = serial ? NULL : czk_pool_create(0, &err);
    if (serial)
        czk_assert_ok(czk_cs_record(&sh, czk_post_circuit_fn, &c, NULL, &err), &err);
    else
        czk_assert_ok(czk_post_record(&sh, &cfg, pool, NULL, &err), &err);
    czk_pool_destroy(pool);
    sums r = sums_of(sh);
    czk_shape_free(sh);
    assert_int_equal(r.c.synthesized_constraints, synth);
    assert_int_equal(r.c.inputs, inputs);
    assert_int_equal(r.c.aux, aux);
    czk_post_counts want;
    czk_assert_ok(czk_post_count(&want, &cfg, &err), &err);
    czk_test_assert_counts_equal(&r.c, &want);
    return r;
}

static void test_32gib(void **state) {
    (void)state;
    sums fast = whole("32GiB", false, 125279217, 25840, 126902376);
    sums slow = whole("32GiB", true, 125279217, 25840, 126902376);
    for (int i = 0; i < 13; i++)
        if (fast.h[i] != slow.h[i]) fail_msg("array %d differs from the serial recording", i);
}

static void test_64gib(void **state) {
    (void)state;
    (void)whole("64GiB", false, 129887900, 25301, 131500200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_32gib),
        cmocka_unit_test(test_64gib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
