/*
 * Stamps: the memory of an earlier full validation of a parameter file.
 *
 * A stamp is a small text file in the stamp directory that says "bytes with
 * this tree digest were checked in full". It is keyed by the file's content,
 * not by where the file lies, so that keys copied or moved to another
 * directory (or another machine's cache, with the stamp directory) keep
 * their stamp: format 3 is named by its key, SHA-256 of the file's size (8
 * bytes, little-endian) and its first min(size, 64 KiB) bytes (the vk, whose
 * delta points differ for every setup, and the ic), and holds
 *
 *   czk params stamp 3
 *   size 1114707768
 *   head-sha256 <64 hex digits: the key>
 *   blake2b512-tree64m <128 hex digits>
 *
 * with up to CZK_G16_STAMP_DIGESTS digest lines, the most recent first:
 * The key only finds the stamp before the read (and so tells the reader
 * that the tree digest alone is needed, and that an encoded read may trust
 * the file); the tree digest of the bytes read now is what counts: a file
 * with the same beginning and size but other bytes later does not match,
 * is checked in full and gets its digest added to the stamp of that key
 * (the oldest beyond the limit dropped), so that a key file and a copy of
 * it damaged after its first 64 KiB do not evict each other's stamp.
 *
 * Stamps of czk before format 3 were keyed by the absolute path (the file
 * named by SHA-256 of realpath) and hold path, size, mtime (ns), device,
 * inode and a digest: format 2 the tree digest, format 1 (first line
 * "czk params stamp 1", last "blake2b512 <the plain digest>") the plain
 * BLAKE2b-512. They still count for the file at that path when every line
 * equals what the file shows now; the reader then computes the digest the
 * stamp holds, and a match is rewritten in format 3. A stamp is written to
 * a temporary name and renamed, so a reader never sees half of one.
 * Whoever can write the stamp directory can make czk skip the subgroup
 * check, as whoever can write the parameter file can replace it: the
 * directory is the user's own cache (mode 0700).
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

#define HEAD_BYTES (64u << 10)

bool czk_g16_stamp_dir(char *out, size_t cap, const char *stamp_dir) {
    if (!stamp_dir) return czk_cache_dir(out, cap, "stamps");
    int n = snprintf(out, cap, "%s", stamp_dir);
    return n > 0 && (size_t)n < cap;
}

/* The content key of the open file fd of `size` bytes, as 64 hex digits; false if unreadable. */
static bool content_key(int fd, uint64_t size, char hx[65]) {
    size_t n = size < HEAD_BYTES ? (size_t)size : HEAD_BYTES, got = 0;
    uint8_t *buf = malloc(8 + (n ? n : 1)), h[32];
    if (!buf) return false;
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)(size >> (8 * i));
    while (got < n) {
        ssize_t r = pread(fd, buf + 8 + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got == n) {
        blst_sha256(h, buf, 8 + n);
        czk_g16_hex(hx, h, 32);
    }
    free(buf);
    return got == n;
}

/* Format 3: the stamp's file name and its text up to the digest line. */
static bool content_head(const char *dir, int fd, const struct stat *st, char *file,
                         size_t file_cap, char *text, size_t text_cap) {
    char key[65];
    if (!content_key(fd, (uint64_t)st->st_size, key)) return false;
    int n = snprintf(file, file_cap, "%s/%s.stamp", dir, key);
    if (n < 0 || (size_t)n >= file_cap) return false;
    n = snprintf(text, text_cap, "czk params stamp 3\nsize %llu\nhead-sha256 %s\n",
                 (unsigned long long)st->st_size, key);
    return n > 0 && (size_t)n < text_cap;
}

/* Formats 1 and 2 (by path): the stamp's file name and its text up to the digest line. */
static bool path_head(const char *dir, const char *path, const struct stat *st, unsigned version,
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

/* The digest line of each format (index: the format). */
static const char *const DIGEST_LINE[4] = {NULL, "blake2b512 ", "blake2b512-tree64m ",
                                           "blake2b512-tree64m "};

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The whole stamp file (at most TEXT_CAP bytes) into have; its length, 0 if none. */
static size_t read_stamp(const char *file, char *have) {
    size_t got = 0;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t r;
    while (got < TEXT_CAP &&
           ((r = read(fd, have + got, TEXT_CAP - got)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0) got += (size_t)r;
    close(fd);
    return got;
}

bool czk_g16_stamp_has(const czk_g16_stamp_digests *c, const uint8_t digest[64]) {
    for (unsigned i = 0; i < c->n; i++)
        if (!memcmp(c->d[i], digest, 64)) return true;
    return false;
}

/* have (got bytes) is the head `want` then digest lines of format v (exactly one for formats 1
 * and 2, 1..CZK_G16_STAMP_DIGESTS for format 3), each a digest and a newline: the digests into
 * out. */
static bool stamp_matches(const char *have, size_t got, const char *want, unsigned v,
                          czk_g16_stamp_digests *out) {
    size_t hl = strlen(want), dl = strlen(DIGEST_LINE[v]), line = dl + 129;
    if (got < hl + line || (got - hl) % line || memcmp(have, want, hl)) return false;
    unsigned n = (unsigned)((got - hl) / line);
    if (n > (v == 3 ? CZK_G16_STAMP_DIGESTS : 1u)) return false;
    for (unsigned k = 0; k < n; k++) {
        const char *l = have + hl + k * line;
        if (memcmp(l, DIGEST_LINE[v], dl) || l[line - 1] != '\n') return false;
        const char *hx = l + dl;
        for (unsigned i = 0; i < 64; i++) {
            int a = hexval(hx[2 * i]), b = hexval(hx[2 * i + 1]);
            if (a < 0 || b < 0) return false;
            out->d[k][i] = (uint8_t)(a << 4 | b);
        }
    }
    out->n = n;
    return true;
}

czk_g16_stamp_kind czk_g16_stamp_lookup(const char *dir, int fd, const char *path,
                                        const struct stat *st, czk_g16_stamp_digests *digest,
                                        bool *current) {
    char file[PATH_MAX + 80], *want = malloc(TEXT_CAP), *have = malloc(TEXT_CAP + 1);
    czk_g16_stamp_kind kind = CZK_G16_STAMP_NONE;
    *current = false;
    if (want && have && content_head(dir, fd, st, file, sizeof file, want, TEXT_CAP) &&
        stamp_matches(have, read_stamp(file, have), want, 3, digest)) {
        kind = CZK_G16_STAMP_TREE;
        *current = true;
    }
    /* a stamp of the path, from czk before format 3 */
    size_t got =
        kind || !want || !have || !path_head(dir, path, st, 2, file, sizeof file, want, TEXT_CAP)
            ? 0
            : read_stamp(file, have);
    for (unsigned v = 2; got && v >= 1; v--)
        if (path_head(dir, path, st, v, file, sizeof file, want, TEXT_CAP) &&
            stamp_matches(have, got, want, v, digest)) {
            kind = v == 2 ? CZK_G16_STAMP_TREE : CZK_G16_STAMP_PLAIN;
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

bool czk_g16_stamp_write(const char *dir, int fd, const struct stat *st, const uint8_t tree[64]) {
    enum { LINES = 200 * CZK_G16_STAMP_DIGESTS };
    char file[PATH_MAX + 80], tmp[PATH_MAX + 96], *text = malloc(TEXT_CAP + LINES), dx[129];
    char *have = malloc(TEXT_CAP + 1);
    bool ok = false;
    size_t hl;
    if (text && have && content_head(dir, fd, st, file, sizeof file, text, TEXT_CAP) &&
        make_dirs(dir) && snprintf(tmp, sizeof tmp, "%s.XXXXXX", file) < (int)sizeof tmp) {
        /* this digest first, then the others the stamp of this key holds */
        czk_g16_stamp_digests old = {.n = 0};
        if (!stamp_matches(have, read_stamp(file, have), text, 3, &old)) old.n = 0;
        hl = strlen(text);
        czk_g16_hex(dx, tree, 64);
        hl += (size_t)snprintf(text + hl, 200, "%s%s\n", DIGEST_LINE[3], dx);
        for (unsigned i = 0, kept = 1; i < old.n && kept < CZK_G16_STAMP_DIGESTS; i++)
            if (memcmp(old.d[i], tree, 64)) {
                czk_g16_hex(dx, old.d[i], 64);
                hl += (size_t)snprintf(text + hl, 200, "%s%s\n", DIGEST_LINE[3], dx);
                kept++;
            }
        int out = mkostemp(tmp, O_CLOEXEC);
        if (out >= 0) {
            size_t len = strlen(text), done = 0;
            ssize_t w;
            while (done < len &&
                   ((w = write(out, text + done, len - done)) > 0 || (w < 0 && errno == EINTR)))
                if (w > 0) done += (size_t)w;
            ok = close(out) == 0 && done == len && rename(tmp, file) == 0;
            if (!ok) unlink(tmp);
        }
    }
    free(text);
    free(have);
    return ok;
}
