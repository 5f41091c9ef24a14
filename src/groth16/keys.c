/*
 * Keys and shapes on disk (keys.h): the parameter cache directory, key
 * lookup by the Filecoin name then the test-key name, czk's cache
 * directory and the shape cache. Circuit-neutral: a kind passes the names
 * of its circuit's files.
 */
#include "czk/keys.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

czk_status czk_param_cache_dir(char *out, size_t cap, czk_err *err) {
    const char *env = getenv("FIL_PROOFS_PARAMETER_CACHE");
    const char *dir = env && *env ? env : "/var/tmp/filecoin-proof-parameters";
    int n = snprintf(out, cap, "%s", dir);
    if (n < 0 || (size_t)n >= cap)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "parameter cache directory too long: %s", dir);
    return CZK_OK;
}

czk_status czk_key_find(char *path, size_t cap, czk_key_kind *kind, const char *dir,
                        const char *filecoin_name, const char *test_name, const char *ext,
                        const char *what, czk_err *err) {
    const char *names[2] = {filecoin_name, test_name};
    for (int i = 0; i < 2; i++) {
        int n = snprintf(path, cap, "%s/%s%s", dir, names[i], ext);
        if (n < 0 || (size_t)n >= cap)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "key path too long: %s/%s%s", dir, names[i],
                            ext);
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (kind) *kind = i ? CZK_KEY_TEST : CZK_KEY_FILECOIN;
            return CZK_OK;
        }
    }
    return czk_errf(err, CZK_ERR_IO, "no %s key for %s in %s (looked for %s%s and %s%s)", ext, what,
                    dir, filecoin_name, ext, test_name, ext);
}

/* mkdir -p; false on failure. */
static bool make_dirs(const char *path) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0755) && errno != EEXIST) return false;
            buf[i] = c;
        }
    return true;
}

czk_status czk_shape_cache_load(czk_shape **out, bool *recorded, const char *name,
                                uint32_t num_inputs, const char *cache_dir,
                                czk_shape_record_fn record, void *record_ctx, czk_err *err) {
    *out = NULL;
    if (recorded) *recorded = false;
    char dir[PATH_MAX], path[PATH_MAX + 64];
    bool cached = cache_dir && *cache_dir && strlen(cache_dir) < sizeof dir;
    if (cached) {
        snprintf(dir, sizeof dir, "%s", cache_dir);
        int n = snprintf(path, sizeof path, "%s/%s.shape", dir, name);
        cached = n > 0 && (size_t)n < sizeof path;
    }
    if (cached) {
        czk_err e;
        if (czk_shape_read(out, path, &e) == CZK_OK) {
            if ((*out)->num_inputs == num_inputs) return CZK_OK;
            czk_shape_free(*out);
            *out = NULL;
        }
    }
    czk_status st = record(record_ctx, out, err);
    if (st) return st;
    if (recorded) *recorded = true;
    if (cached && make_dirs(dir)) {
        czk_err e;
        if (czk_shape_write(*out, path, &e)) { /* a cache that cannot be written is no error */
        }
    }
    return CZK_OK;
}
