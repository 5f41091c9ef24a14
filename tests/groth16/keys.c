/* CZK_TEST_LABELS: unit */
/*
 * keys.h on a scratch directory: the parameter cache directory from
 * FIL_PROOFS_PARAMETER_CACHE (or filecoin-proofs' default), czk's cache
 * directory from CZK_CACHE_DIR (or ~/.cache/czk), a key found by its
 * Filecoin name before its test-key name and a message naming both when
 * neither is there, and the shape cache: recorded once, then read back
 * (the recorder is not called again), recorded again for another input
 * count, and never touched with use_cache false.
 */
#include "support.h"

#include "czk/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void rm_rf(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void touch(const char *dir, const char *name) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
}

static void test_dirs(void **state) {
    (void)state;
    char out[256];
    czk_err err;
    setenv("FIL_PROOFS_PARAMETER_CACHE", "/some/params", 1);
    czk_assert_ok(czk_param_cache_dir(out, sizeof out, &err), &err);
    assert_string_equal(out, "/some/params");
    assert_int_equal(czk_param_cache_dir(out, 5, &err), CZK_ERR_INVALID_ARG);
    setenv("FIL_PROOFS_PARAMETER_CACHE", "", 1);
    czk_assert_ok(czk_param_cache_dir(out, sizeof out, &err), &err);
    assert_string_equal(out, "/var/tmp/filecoin-proof-parameters");
    setenv("CZK_CACHE_DIR", "/c", 1);
    assert_true(czk_cache_dir(out, sizeof out, "shapes"));
    assert_string_equal(out, "/c/shapes");
    unsetenv("CZK_CACHE_DIR");
    setenv("HOME", "/home/u", 1);
    assert_true(czk_cache_dir(out, sizeof out, "stamps"));
    assert_string_equal(out, "/home/u/.cache/czk/stamps");
    assert_false(czk_cache_dir(out, 8, "stamps"));
}

static void test_key_find(void **state) {
    (void)state;
    char dir[] = "/tmp/czk-keys-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[700];
    czk_key_kind kind;
    czk_err err;
    assert_int_equal(
        czk_key_find(path, sizeof path, &kind, dir, "fil", "tst", ".vk", "c sectors", &err),
        CZK_ERR_IO);
    char want[700];
    snprintf(want, sizeof want, "no .vk key for c sectors in %s (looked for fil.vk and tst.vk)",
             dir);
    assert_string_equal(err.msg, want);
    touch(dir, "tst.vk");
    czk_assert_ok(czk_key_find(path, sizeof path, &kind, dir, "fil", "tst", ".vk", "c", &err),
                  &err);
    assert_int_equal(kind, CZK_KEY_TEST);
    snprintf(want, sizeof want, "%s/tst.vk", dir);
    assert_string_equal(path, want);
    touch(dir, "fil.vk");
    czk_assert_ok(czk_key_find(path, sizeof path, &kind, dir, "fil", "tst", ".vk", "c", &err),
                  &err);
    assert_int_equal(kind, CZK_KEY_FILECOIN);
    snprintf(want, sizeof want, "%s/fil.vk", dir);
    assert_string_equal(path, want);
    assert_int_equal(czk_key_find(path, 10, NULL, dir, "fil", "tst", ".vk", "c", &err),
                     CZK_ERR_INVALID_ARG);
    rm_rf(dir);
}

/* A recorder: x · x = y with `inputs` public inputs, counting its calls. */
typedef struct rec {
    int calls;
    unsigned inputs;
} rec;

static czk_status circuit(czk_cs *cs, void *ctx) {
    const rec *r = ctx;
    czk_var x = czk_cs_alloc_input(cs, NULL);
    for (unsigned i = 1; i < r->inputs; i++)
        (void)czk_cs_alloc_input(cs, NULL);
    czk_var y = czk_cs_alloc(cs, NULL);
    czk_lc a = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, x);
    czk_lc_add_var(cs, &c, y);
    czk_cs_enforce(cs, &a, &a, &c);
    czk_lc_free(&a), czk_lc_free(&c);
    return czk_cs_status(cs);
}

static czk_status record(void *ctx, czk_shape **out, czk_err *err) {
    rec *r = ctx;
    r->calls++;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, err);
    if (!cs) return CZK_ERR_NOMEM;
    czk_status st = czk_cs_run(cs, circuit, r, err);
    if (!st) st = czk_cs_take_shape(cs, out, err);
    czk_cs_free(cs);
    return st;
}

static void test_shape_cache(void **state) {
    (void)state;
    char dir[] = "/tmp/czk-shapes-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[64];
    snprintf(sub, sizeof sub, "%s/deeper", dir);
    setenv("CZK_CACHE_DIR", sub, 1);
    char shapes[128];
    assert_true(czk_cache_dir(shapes, sizeof shapes, "shapes")); /* the default cache */
    rec r = {0, 2};
    czk_shape *s;
    bool recorded;
    czk_err err;
    /* ONE plus two inputs */
    czk_assert_ok(czk_shape_cache_load(&s, &recorded, "toy", 3, shapes, record, &r, &err), &err);
    assert_true(recorded);
    assert_int_equal(r.calls, 1);
    assert_int_equal(s->num_inputs, 3);
    czk_shape_free(s);
    char file[128];
    snprintf(file, sizeof file, "%s/shapes/toy.shape", sub);
    assert_int_equal(access(file, R_OK), 0);
    czk_assert_ok(czk_shape_cache_load(&s, &recorded, "toy", 3, shapes, record, &r, &err), &err);
    assert_false(recorded);
    assert_int_equal(r.calls, 1);
    assert_int_equal(s->num_inputs, 3);
    assert_int_equal(s->num_constraints, 1 + 3); /* x·x = y, and one per input (ONE included) */
    czk_shape_free(s);
    /* the cached file has 3 inputs; a circuit of 4 is recorded again and replaces it */
    r.inputs = 3;
    czk_assert_ok(czk_shape_cache_load(&s, &recorded, "toy", 4, shapes, record, &r, &err), &err);
    assert_true(recorded);
    assert_int_equal(r.calls, 2);
    assert_int_equal(s->num_inputs, 4);
    czk_shape_free(s);
    czk_assert_ok(czk_shape_cache_load(&s, &recorded, "toy", 4, shapes, record, &r, &err), &err);
    assert_false(recorded);
    czk_shape_free(s);
    /* no cache: recorded, nothing written */
    czk_assert_ok(czk_shape_cache_load(&s, &recorded, "other", 4, NULL, record, &r, &err), &err);
    assert_true(recorded);
    assert_int_equal(r.calls, 3);
    czk_shape_free(s);
    snprintf(file, sizeof file, "%s/shapes/other.shape", sub);
    assert_int_not_equal(access(file, F_OK), 0);
    unsetenv("CZK_CACHE_DIR");
    rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dirs),
        cmocka_unit_test(test_key_find),
        cmocka_unit_test(test_shape_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
