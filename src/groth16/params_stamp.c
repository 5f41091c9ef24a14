/*
 * Stamps: the memory of an earlier full validation of a parameter file.
 *
 * A stamp is a small text file in the stamp directory, named by SHA-256 of
 * the parameter file's absolute path (realpath), holding that path, the
 * file's size, mtime (ns), device, inode and its tree digest (format 2):
 *
 *   czk params stamp 2
 *   path /abs/path.params
 *   size 1114707768
 *   mtime_ns 1764620000123456789
 *   dev 2049
 *   ino 1234567
 *   blake2b512-tree64m <128 hex digits>
 *
 * It counts only if every line equals what the file shows now: the digest
 * of the bytes just read is the real key (a changed file has another
 * digest, whatever its mtime says); path, size, mtime and inode make sure
 * the stamp is this file's, and tell the reader before it starts which
 * digest it must compute. Format 1 (czk before the tree digest: first
 * line "czk params stamp 1", last "blake2b512 <the plain digest>") is still
 * recognized; the reader then computes the plain digest, and a match is
 * rewritten in format 2. A stamp is written to a temporary name and
 * renamed, so a reader never sees half of one. Whoever can write the stamp
 * directory can make czk skip the subgroup check, as whoever can write the
 * parameter file can replace it: the directory is the user's own cache
 * (mode 0700).
 */
#define _GNU_SOURCE /* mkostemp */
#include "czk/keys.h"
#include "groth16/internal.h"
#include "util/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool czk_g16_stamp_dir(char *out, size_t cap, const char *stamp_dir) {
    if (!stamp_dir) return czk_cache_dir(out, cap, "stamps");
    int n = snprintf(out, cap, "%s", stamp_dir);
    return n > 0 && (size_t)n < cap;
}

/*
 * The stamp's file name, and its text up to the digest line: the lines that must equal what the
 * file shows now (format 2; format 1 has "czk params stamp 1" first and the plain digest).
 */
static bool stamp_head(const char *dir, const char *path, const struct stat *st, unsigned version,
                       char *file, size_t file_cap, char *text, size_t text_cap) {
    char abs[PATH_MAX];
    if (!realpath(path, abs)) return false;
    uint8_t h[32];
    blst_sha256(h, (const uint8_t *)abs, strlen(abs));
    char hx[65];
    czk_g16_hex(hx, h, 32);
    int n = snprintf(file, file_cap, "%s/%s.stamp", dir, hx);
    if (n < 0 || (size_t)n >= file_cap) return false;
    n = snprintf(text, text_cap,
                 "czk params stamp %u\npath %s\nsize %llu\nmtime_ns %lld\ndev %llu\nino %llu\n",
                 version, abs, (unsigned long long)st->st_size,
                 (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec,
                 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
    return n > 0 && (size_t)n < text_cap;
}

#define TEXT_CAP (PATH_MAX + 512)

static const char *const DIGEST_LINE[3] = {NULL, "blake2b512 ", "blake2b512-tree64m "};

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

czk_g16_stamp_kind czk_g16_stamp_lookup(const char *dir, const char *path, const struct stat *st,
                                        uint8_t digest[64]) {
    char file[PATH_MAX + 80], *want = malloc(TEXT_CAP), *have = malloc(TEXT_CAP + 1);
    czk_g16_stamp_kind kind = CZK_G16_STAMP_NONE;
    size_t got = 0;
    if (want && have && stamp_head(dir, path, st, 2, file, sizeof file, want, TEXT_CAP)) {
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t r;
            while (got < TEXT_CAP &&
                   ((r = read(fd, have + got, TEXT_CAP - got)) > 0 || (r < 0 && errno == EINTR)))
                if (r > 0) got += (size_t)r;
            close(fd);
        }
    }
    for (unsigned v = 2; got && v >= 1; v--) {
        /* the head of format v, then its digest line, then the end of the file */
        if (!stamp_head(dir, path, st, v, file, sizeof file, want, TEXT_CAP)) break;
        size_t hl = strlen(want), dl = strlen(DIGEST_LINE[v]);
        if (got != hl + dl + 129 || memcmp(have, want, hl) ||
            memcmp(have + hl, DIGEST_LINE[v], dl) || have[got - 1] != '\n')
            continue;
        const char *hx = have + hl + dl;
        bool ok = true;
        for (unsigned i = 0; i < 64 && ok; i++) {
            int a = hexval(hx[2 * i]), b = hexval(hx[2 * i + 1]);
            ok = a >= 0 && b >= 0;
            digest[i] = (uint8_t)(a << 4 | (b & 15));
        }
        if (ok) kind = v == 2 ? CZK_G16_STAMP_TREE : CZK_G16_STAMP_PLAIN;
        break;
    }
    free(want);
    free(have);
    return kind;
}

/* mkdir -p with mode 0700 for what it creates. */
static bool make_dirs(const char *dir) {
    char p[PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof p) return false;
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != 0) continue;
        char c = p[i];
        p[i] = 0;
        if (mkdir(p, 0700) && errno != EEXIST) return false;
        p[i] = c;
    }
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

bool czk_g16_stamp_write(const char *dir, const char *path, const struct stat *st,
                         const uint8_t tree[64]) {
    char file[PATH_MAX + 80], tmp[PATH_MAX + 96], *text = malloc(TEXT_CAP + 200), dx[129];
    bool ok = false;
    czk_g16_hex(dx, tree, 64);
    size_t hl;
    if (text && stamp_head(dir, path, st, 2, file, sizeof file, text, TEXT_CAP) &&
        (hl = strlen(text), snprintf(text + hl, 200, "%s%s\n", DIGEST_LINE[2], dx) < 200) &&
        make_dirs(dir) && snprintf(tmp, sizeof tmp, "%s.XXXXXX", file) < (int)sizeof tmp) {
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd >= 0) {
            size_t len = strlen(text), done = 0;
            ssize_t w;
            while (done < len &&
                   ((w = write(fd, text + done, len - done)) > 0 || (w < 0 && errno == EINTR)))
                if (w > 0) done += (size_t)w;
            ok = close(fd) == 0 && done == len && rename(tmp, file) == 0;
            if (!ok) unlink(tmp);
        }
    }
    free(text);
    return ok;
}
