/*
 * Keys and shapes on disk (keys.h): the parameter cache directory, the key
 * search path (the caller's directory, the parameter cache, czk's test
 * keys) and the lookup along it by the Filecoin name then the test-key
 * name, with a message that lists what the directories do hold; czk's
 * cache directory and the shape cache. Circuit-neutral: a kind passes the
 * names of its circuit's files.
 */
#include "czk/keys.h"

#include "util/cache.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
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

/* Adds dir without its trailing slashes ("/" stays), unless the path holds it already. */
static czk_status path_add(czk_key_path *p, const char *dir, czk_err *err) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n >= CZK_KEY_DIR_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "key directory too long: %s", dir);
    char d[CZK_KEY_DIR_MAX];
    memcpy(d, dir, n);
    d[n] = 0;
    struct stat a, b;
    bool have = stat(d, &a) == 0;
    for (unsigned i = 0; i < p->n; i++)
        if (!strcmp(p->dir[i], d) ||
            (have && stat(p->dir[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))
            return CZK_OK;
    memcpy(p->dir[p->n++], d, n + 1);
    return CZK_OK;
}

czk_status czk_key_path_get(czk_key_path *out, const char *dir, czk_err *err) {
    out->n = 0;
    char buf[CZK_KEY_DIR_MAX];
    czk_status st = dir && *dir ? path_add(out, dir, err) : CZK_OK;
    if (!st) st = czk_param_cache_dir(buf, sizeof buf, err);
    if (!st) st = path_add(out, buf, err);
    if (!st && czk_cache_dir(buf, sizeof buf, "test-keys")) st = path_add(out, buf, err);
    return st;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* snprintf at msg + *len, *len kept below cap (the text cut where it does not fit). */
static void put(char *msg, size_t cap, size_t *len, const char *fmt, ...) CZK_PRINTF(4, 5);
static void put(char *msg, size_t cap, size_t *len, const char *fmt, ...) {
    if (*len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* The sorted names of the regular files in dir that end in ext (*n of them; free each). */
static char **files_with(const char *dir, const char *ext, size_t *n) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL;
    size_t cap = 0, el = strlen(ext);
    for (struct dirent *de; (de = readdir(d));) {
        size_t nl = strlen(de->d_name);
        char full[CZK_KEY_DIR_MAX + 256];
        struct stat sb;
        if (de->d_name[0] == '.' || nl <= el || strcmp(de->d_name + nl - el, ext) ||
            snprintf(full, sizeof full, "%s/%s", dir, de->d_name) >= (int)sizeof full ||
            stat(full, &sb) || !S_ISREG(sb.st_mode))
            continue;
        if (*n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        if (!(names[*n] = strdup(de->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(names, *n, sizeof *names, cmp_names);
    return names;
}

/*
 * Appends what the search path holds that ends in ext: "; found there: a.params, b.params (in
 * DIR1); c.params (in DIR2)" while it fits, "and N more" for the rest, or "; found no .params
 * file there".
 */
static void found_hint(char *msg, size_t cap, size_t *len, const czk_key_path *p, const char *ext) {
    size_t total = 0, shown = 0;
    for (unsigned i = 0; i < p->n; i++) {
        size_t n, here = 0;
        char **names = files_with(p->dir[i], ext, &n);
        for (size_t k = 0; k < n; k++) {
            /* this name with its separator, the directory once, and "and 999 more" */
            size_t need = strlen(names[k]) + strlen(p->dir[i]) + 40;
            if (shown == total && *len + need < cap) {
                put(msg, cap, len, "%s%s",
                    !shown ? "; found there: "
                    : here ? ", "
                           : "; ",
                    names[k]);
                shown++;
                here++;
            }
            total++;
            free(names[k]);
        }
        free(names);
        if (here) put(msg, cap, len, " (in %s)", p->dir[i]);
    }
    if (!total)
        put(msg, cap, len, "; found no %s file there", ext);
    else if (shown < total)
        put(msg, cap, len, "%sand %zu more", shown ? ", " : "; found there: ", total - shown);
}

czk_status czk_key_find(char *path, size_t cap, czk_key_kind *kind, const char *dir,
                        const char *filecoin_name, const char *test_name, const char *ext,
                        const char *what, czk_err *err) {
    czk_key_path p;
    czk_status st = czk_key_path_get(&p, dir, err);
    if (st) return st;
    const char *names[2] = {filecoin_name, test_name};
    for (unsigned d = 0; d < p.n; d++)
        for (int i = 0; i < 2; i++) {
            int n = snprintf(path, cap, "%s/%s%s", p.dir[d], names[i], ext);
            if (n < 0 || (size_t)n >= cap)
                return czk_errf(err, CZK_ERR_INVALID_ARG, "key path too long: %s/%s%s", p.dir[d],
                                names[i], ext);
            struct stat sb;
            if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
                if (kind) *kind = i ? CZK_KEY_TEST : CZK_KEY_FILECOIN;
                return CZK_OK;
            }
        }
    if (!err) return CZK_ERR_IO;
    char msg[sizeof err->msg];
    size_t len = 0;
    put(msg, sizeof msg, &len, "no %s key for %s in ", ext, what);
    for (unsigned d = 0; d < p.n; d++) {
        struct stat sb;
        put(msg, sizeof msg, &len, "%s%s%s",
            d == 0         ? ""
            : d + 1 == p.n ? " or "
                           : ", ",
            p.dir[d], stat(p.dir[d], &sb) ? " (absent)" : "");
    }
    put(msg, sizeof msg, &len, " (looked for %s%s and %s%s)", filecoin_name, ext, test_name, ext);
    found_hint(msg, sizeof msg, &len, &p, ext);
    return czk_errf(err, CZK_ERR_IO, "%s", msg);
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
