/* CZK_TEST_LABELS: unit */
/*
 * keys.h on a scratch directory: the parameter cache directory from
 * FIL_PROOFS_PARAMETER_CACHE (or filecoin-proofs' default), czk's cache
 * directory from CZK_CACHE_DIR (or ~/.cache/czk), the key search path (the
 * given directory, the parameter cache, the test keys) and a key found
 * along it by its Filecoin name before its test-key name, with a message
 * naming the directories, both names and the keys that are there when
 * neither is found, and the shape cache: recorded once, then read back
 * (the recorder is not called again), recorded again for another input
 * count, and never touched with use_cache false.
 */
#include "support.h"

#include "czk/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* <dir>/<sub>, made. */
static void subdir(char *out, size_t cap, const char *dir, const char *sub) {
    snprintf(out, cap, "%s/%s", dir, sub);
    assert_int_equal(mkdir(out, 0700), 0);
}

/*
 * The key search path: the given directory, then FIL_PROOFS_PARAMETER_CACHE, then
 * $CZK_CACHE_DIR/test-keys; in each the Filecoin name before the test name; the message when
 * nothing is found names every directory (an absent one marked), both names and the files of
 * that extension the directories hold.
 */
static void test_key_find(void **state) {
    (void)state;
    char dir[] = "/tmp/czk-keys-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char given[64], params[64], cache[64], tk[80], absent[80];
    subdir(given, sizeof given, dir, "given");
    subdir(params, sizeof params, dir, "params");
    subdir(cache, sizeof cache, dir, "cache");
    snprintf(tk, sizeof tk, "%s/test-keys", cache);
    snprintf(absent, sizeof absent, "%s/absent", dir);
    setenv("FIL_PROOFS_PARAMETER_CACHE", params, 1);
    setenv("CZK_CACHE_DIR", cache, 1);
    char path[700], want[700];
    czk_key_kind kind;
    czk_err err;

    /* the path: given (trailing slash dropped), parameter cache, test keys; each once */
    czk_key_path kp;
    snprintf(want, sizeof want, "%s/", given);
    czk_assert_ok(czk_key_path_get(&kp, want, &err), &err);
    assert_int_equal(kp.n, 3);
    assert_string_equal(kp.dir[0], given);
    assert_string_equal(kp.dir[1], params);
    assert_string_equal(kp.dir[2], tk);
    czk_assert_ok(czk_key_path_get(&kp, NULL, &err), &err);
    assert_int_equal(kp.n, 2);
    assert_string_equal(kp.dir[0], params);
    czk_assert_ok(czk_key_path_get(&kp, params, &err), &err); /* named twice: once */
    assert_int_equal(kp.n, 2);
    snprintf(want, sizeof want, "%s/../params", given); /* the same directory by another name */
    czk_assert_ok(czk_key_path_get(&kp, want, &err), &err);
    assert_int_equal(kp.n, 2);

    /* nothing anywhere: every directory named, the absent one marked, nothing found */
    assert_int_equal(
        czk_key_find(path, sizeof path, &kind, given, "fil", "tst", ".vk", "c sectors", &err),
        CZK_ERR_IO);
    snprintf(want, sizeof want,
             "no .vk key for c sectors in %s, %s or %s (absent) (looked for fil.vk and tst.vk); "
             "found no .vk file there",
             given, params, tk);
    assert_string_equal(err.msg, want);

    /* the test keys' directory is searched without being named */
    assert_int_equal(mkdir(tk, 0700), 0);
    touch(tk, "tst.vk");
    czk_assert_ok(czk_key_find(path, sizeof path, &kind, NULL, "fil", "tst", ".vk", "c", &err),
                  &err);
    assert_int_equal(kind, CZK_KEY_TEST);
    snprintf(want, sizeof want, "%s/tst.vk", tk);
    assert_string_equal(path, want);
    /* a Filecoin key in the parameter cache comes before it, the given directory before both */
    touch(params, "fil.vk");
    czk_assert_ok(czk_key_find(path, sizeof path, &kind, given, "fil", "tst", ".vk", "c", &err),
                  &err);
    assert_int_equal(kind, CZK_KEY_FILECOIN);
    snprintf(want, sizeof want, "%s/fil.vk", params);
    assert_string_equal(path, want);
    touch(given, "tst.vk");
    czk_assert_ok(czk_key_find(path, sizeof path, &kind, given, "fil", "tst", ".vk", "c", &err),
                  &err);
    assert_int_equal(kind, CZK_KEY_TEST);
    snprintf(want, sizeof want, "%s/tst.vk", given);
    assert_string_equal(path, want);
    /* within one directory the Filecoin name first */
    touch(given, "fil.vk");
    czk_assert_ok(czk_key_find(path, sizeof path, &kind, given, "fil", "tst", ".vk", "c", &err),
                  &err);
    assert_int_equal(kind, CZK_KEY_FILECOIN);
    assert_int_equal(czk_key_find(path, 10, NULL, given, "fil", "tst", ".vk", "c", &err),
                     CZK_ERR_INVALID_ARG);

    /* another circuit's keys: the message lists what is there, sorted, per directory (other
     * extensions, hidden files and directories left out) */
    touch(given, "b.vk");
    touch(given, ".hidden.vk");
    touch(given, "b.params");
    snprintf(path, sizeof path, "%s/dir.vk", given);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(czk_key_find(path, sizeof path, NULL, absent, "x", "y", ".vk", "z", &err),
                     CZK_ERR_IO);
    snprintf(want, sizeof want,
             "no .vk key for z in %s (absent), %s or %s (looked for x.vk and y.vk); found there: "
             "fil.vk (in %s); tst.vk (in %s)",
             absent, params, tk, params, tk);
    assert_string_equal(err.msg, want);
    assert_int_equal(czk_key_find(path, sizeof path, NULL, given, "x", "y", ".vk", "z", &err),
                     CZK_ERR_IO);
    snprintf(want, sizeof want,
             "found there: b.vk, fil.vk, tst.vk (in %s); fil.vk (in %s); tst.vk (in %s)", given,
             params, tk);
    assert_non_null(strstr(err.msg, want));
    /* more than the message holds: the count of the rest */
    for (int i = 0; i < 40; i++) {
        char name[64];
        snprintf(name, sizeof name, "many-keys-of-another-circuit-%02d.vk", i);
        touch(given, name);
    }
    assert_int_equal(czk_key_find(path, sizeof path, NULL, given, "x", "y", ".vk", "z", &err),
                     CZK_ERR_IO);
    assert_non_null(strstr(err.msg, "found there: b.vk, fil.vk, many-keys-of-another-circuit-00"));
    const char *more = strstr(err.msg, " more");
    assert_non_null(more);
    assert_string_equal(more, " more");
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    unsetenv("CZK_CACHE_DIR");
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
