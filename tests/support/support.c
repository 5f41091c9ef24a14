#define _GNU_SOURCE /* nftw */
#include "support.h"
#include "czk/r1cs.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void czk_test_hex(uint8_t *out, size_t len, const char *hex) {
    if (strlen(hex) != 2 * len)
        fail_msg("hex literal of %zu chars, expected %zu", strlen(hex), 2 * len);
    for (size_t i = 0; i < len; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) fail_msg("bad hex literal %s", hex);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
}

void czk_test_fr_from_hex_be(czk_fr *out, const char *hex) {
    uint8_t be[32], le[32];
    czk_test_hex(be, 32, hex);
    for (int i = 0; i < 32; i++)
        le[i] = be[31 - i];
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(out, le, &err), &err);
}

void czk_test_tmpdir(char *out, size_t cap, const char *tag) {
    const char *base = getenv("TMPDIR");
    int n = snprintf(out, cap, "%s/czk-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    if (n < 0 || (size_t)n >= cap) fail_msg("temporary directory name does not fit %zu bytes", cap);
    if (!mkdtemp(out)) fail_msg("mkdtemp %s: %s", out, strerror(errno));
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

void czk_test_rm_rf(const char *dir) {
    if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
        fail_msg("removing %s: %s", dir, strerror(errno));
}

char *czk_test_slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t n = 0, cap = 1 << 16;
    char *b = malloc(cap);
    assert_non_null(b);
    for (size_t r; (r = fread(b + n, 1, cap - n - 1, f)) > 0;) {
        n += r;
        if (cap - n - 1 == 0) {
            b = realloc(b, cap *= 2);
            assert_non_null(b);
        }
    }
    assert_false(ferror(f));
    fclose(f);
    b[n] = 0;
    if (len) *len = n;
    return b;
}

uint8_t *czk_test_read(const char *path, size_t *len) {
    char *b = czk_test_slurp(path, len);
    if (!b) fail_msg("cannot read %s: %s", path, strerror(errno));
    return (uint8_t *)b;
}

void czk_test_write(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot create %s: %s", path, strerror(errno));
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

int czk_test_cli(const char *env, const char *args, const char *redir, char *out, size_t cap) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    size_t len =
        strlen(cli) + strlen(args) + (env ? strlen(env) : 0) + (redir ? strlen(redir) : 0) + 16;
    char *cmd = malloc(len);
    assert_non_null(cmd);
    snprintf(cmd, len, "%s '%s' %s %s", env ? env : "", cli, args, redir ? redir : "");
    FILE *p = popen(cmd, "r");
    free(cmd);
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    while (fgetc(p) != EOF) /* the rest, unread, so that the command is not cut off */
        ;
    int st = pclose(p);
    assert_true(st != -1 && WIFEXITED(st));
    return WEXITSTATUS(st);
}

void czk_test_cli_expect(const char *env, const char *args, int code, const char *substr) {
    static char out[1 << 16];
    int rc = czk_test_cli(env, args, "2>&1", out, sizeof out);
    if (rc != code || !strstr(out, substr))
        fail_msg("%s czk %s: expected exit %d with \"%s\", got %d:\n%s", env ? env : "", args, code,
                 substr, rc, out);
}

unsigned long long czk_test_value(const char *out, const char *key) {
    size_t kl = strlen(key);
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (!strncmp(p, key, kl) && p[kl] == ':' && p[kl + 1] == ' ')
            return strtoull(p + kl + 2, NULL, 10);
    fail_msg("no line '%s: ' in:\n%s", key, out);
    return 0;
}

void czk_test_assert_counts_equal(const czk_shape_counts *a, const czk_shape_counts *b) {
    assert_int_equal(a->constraints, b->constraints);
    assert_int_equal(a->synthesized_constraints, b->synthesized_constraints);
    assert_int_equal(a->inputs, b->inputs);
    assert_int_equal(a->aux, b->aux);
    for (int m = 0; m < 3; m++)
        assert_int_equal(a->nnz[m], b->nnz[m]);
    assert_int_equal(a->a_aux, b->a_aux);
    assert_int_equal(a->b_input, b->b_input);
    assert_int_equal(a->b_aux, b->b_aux);
}
