/*
 * Helpers of the PoRep end-to-end tests (tests/porep/e2e_*.c): the czk
 * command (CZK_TEST_CLI, set by ctest) run with its output captured, the
 * test-key directory shared with scripts/demo.sh, files and C1 edits.
 *
 * Test keys are expensive (a Groth16 setup of the 2KiB circuit, about a
 * minute of 2 cores): the fixture test porep.e2e_keys makes them once in
 * $CZK_CACHE_DIR/test-keys (default ~/.cache/czk/test-keys), outside the
 * repository, where `czk setup` keeps keys that exist; the file names carry
 * the shape (czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.*).
 */
#ifndef CZK_TESTS_POREP_E2E_UTIL_H
#define CZK_TESTS_POREP_E2E_UTIL_H

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "czk/groth16.h"
#include "czk/porep_c1.h"
#include "util/cache.h"

/* $CZK_CACHE_DIR/test-keys, else $HOME/.cache/czk/test-keys (czk_cache_dir), else
 * /tmp/czk-test-keys. */
static inline void e2e_keys_dir(char *out, size_t cap) {
    if (!czk_cache_dir(out, cap, "test-keys")) snprintf(out, cap, "/tmp/czk-test-keys");
}

/*
 * Runs `czk ARGS` in dir with stdout and stderr captured into *out and *err
 * (malloc'ed; may be NULL to drop them); returns the exit status.
 */
static inline int e2e_czk(const char *dir, const char *args, char **out, char **err) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char o[1100], e[1100];
    snprintf(o, sizeof o, "%s/czk.stdout", dir);
    snprintf(e, sizeof e, "%s/czk.stderr", dir);
    size_t cap = strlen(dir) + strlen(cli) + strlen(args) + strlen(o) + strlen(e) + 64;
    char *cmd = malloc(cap);
    assert_non_null(cmd);
    snprintf(cmd, cap, "cd '%s' && '%s' %s >'%s' 2>'%s'", dir, cli, args, o, e);
    int rc = system(cmd);
    free(cmd);
    assert_true(rc != -1 && WIFEXITED(rc));
    char *so = czk_test_slurp(o, NULL), *se = czk_test_slurp(e, NULL);
    assert_true(so && se);
    /* shown in the test log */
    fprintf(stderr, "$ czk %s  (exit %d)\n%s%s", args, WEXITSTATUS(rc), so, se);
    if (out)
        *out = so;
    else
        free(so);
    if (err)
        *err = se;
    else
        free(se);
    return WEXITSTATUS(rc);
}

/* Replaces the first `from` in dir/rel by `to` and writes the text to dir/out_rel (rel must
 * hold it): a request file with one field changed. */
static inline void e2e_edit(const char *dir, const char *rel, const char *out_rel, const char *from,
                            const char *to) {
    char in[1200], outp[1200];
    snprintf(in, sizeof in, "%s/%s", dir, rel);
    snprintf(outp, sizeof outp, "%s/%s", dir, out_rel);
    size_t n = 0;
    char *t = czk_test_slurp(in, &n);
    assert_non_null(t);
    char *p = strstr(t, from);
    if (!p) fail_msg("%s holds no '%s'", rel, from);
    size_t a = (size_t)(p - t), fl = strlen(from), tl = strlen(to);
    char *o = malloc(n - fl + tl + 1);
    assert_non_null(o);
    memcpy(o, t, a);
    memcpy(o + a, to, tl);
    memcpy(o + a + tl, p + fl, n - a - fl + 1);
    czk_test_write(outp, o, n - fl + tl);
    free(o);
    free(t);
}

/* Parses a C1 file (raw JSON). */
static inline czk_c1 *e2e_c1_read(const char *path) {
    size_t n = 0;
    char *b = czk_test_slurp(path, &n);
    assert_non_null(b);
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_c1_parse(&c1, (const uint8_t *)b, n, &err), &err);
    free(b);
    return c1;
}

/*
 * A cache directory of its own at `cache`, for commands run with CZK_CACHE_DIR=cache:
 * test-keys/ holds the fixture's 2KiB keys of keys_dir as hard links (other paths, so that a
 * stamp keyed by path would not find them; a symbolic link where the file system refuses),
 * stamps/ and shapes/ are the real cache's (symbolic links). The keys' content stamp is made
 * first, by an encoded read of the original (which rewrites a stamp of its path left by an
 * older czk), so that a read through the link can find it by content.
 * Returns: whether the keys are hard links (copies, as far as stamps go).
 */
static inline bool e2e_keys_elsewhere(const char *cache, const char *keys_dir) {
    static const char NAME[] = "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB";
    char real[600], from[1400], to[1400];
    if (!czk_cache_dir(real, sizeof real, NULL)) fail_msg("neither CZK_CACHE_DIR nor HOME is set");
    snprintf(to, sizeof to, "%s/test-keys", cache);
    assert_int_equal(mkdir(cache, 0700), 0);
    assert_int_equal(mkdir(to, 0700), 0);
    bool linked = true;
    for (int k = 0; k < 2; k++) {
        const char *ext = k ? ".vk" : ".params";
        snprintf(from, sizeof from, "%s/%s%s", keys_dir, NAME, ext);
        snprintf(to, sizeof to, "%s/test-keys/%s%s", cache, NAME, ext);
        if (link(from, to)) {
            linked = false;
            assert_int_equal(symlink(from, to), 0);
        }
    }
    const char *sub[2] = {"stamps", "shapes"};
    for (int k = 0; k < 2; k++) {
        snprintf(from, sizeof from, "%s/%s", real, sub[k]);
        snprintf(to, sizeof to, "%s/%s", cache, sub[k]);
        assert_int_equal(symlink(from, to), 0);
    }
    snprintf(from, sizeof from, "%s/%s.params", keys_dir, NAME);
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    assert_non_null(pool);
    czk_params_read_opts o = {.flags = CZK_PARAMS_ENCODED, .pool = pool};
    czk_params *pa = NULL;
    czk_assert_ok(czk_params_read(&pa, from, &o, NULL, &err), &err);
    czk_params_free(pa);
    czk_pool_destroy(pool);
    return linked;
}

static inline void e2e_c1_write(const czk_c1 *c1, const char *path) {
    char *j = NULL;
    size_t n = 0;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &j, &n, &err), &err);
    czk_test_write(path, j, n);
    free(j);
}

#endif
