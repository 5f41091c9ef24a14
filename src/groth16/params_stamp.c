/*
 * Stamps: the memory of an earlier full validation of a parameter file.
 *
 * A stamp is a small text file in the stamp directory, named by SHA-256 of
 * the parameter file's absolute path (realpath), holding that path, the
 * file's size, mtime (ns), device, inode and its full BLAKE2b-512 digest.
 * It counts only if every line equals what the file shows now: the digest
 * of the bytes just read is the real key (a changed file has another
 * digest, whatever its mtime says); path, size, mtime and inode make sure
 * the stamp is this file's. A stamp is written to a temporary name and
 * renamed, so a reader never sees half of one. Whoever can write the stamp
 * directory can make czk skip the subgroup check, as whoever can write the
 * parameter file can replace it: the directory is the user's own cache
 * (mode 0700).
 */
#define _GNU_SOURCE /* mkostemp */
#include "groth16/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool czk_g16_stamp_dir(char *out, size_t cap, const char *stamp_dir) {
    int n;
    const char *env;
    if (stamp_dir)
        n = snprintf(out, cap, "%s", stamp_dir);
    else if ((env = getenv("CZK_CACHE_DIR")) && *env)
        n = snprintf(out, cap, "%s/stamps", env);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(out, cap, "%s/.cache/czk/stamps", env);
    else
        return false;
    return n > 0 && (size_t)n < cap;
}

/* The stamp's file name and the text it must hold. */
static bool stamp_text(const char *dir, const char *path, const struct stat *st,
                       const uint8_t blake2b[64], char *file, size_t file_cap, char *text,
                       size_t text_cap) {
    char abs[PATH_MAX];
    if (!realpath(path, abs)) return false;
    uint8_t h[32];
    blst_sha256(h, (const uint8_t *)abs, strlen(abs));
    char hx[65], dx[129];
    czk_g16_hex(hx, h, 32);
    czk_g16_hex(dx, blake2b, 64);
    int n = snprintf(file, file_cap, "%s/%s.stamp", dir, hx);
    if (n < 0 || (size_t)n >= file_cap) return false;
    n = snprintf(text, text_cap,
                 "czk params stamp 1\npath %s\nsize %llu\nmtime_ns %lld\ndev %llu\nino %llu\n"
                 "blake2b512 %s\n",
                 abs, (unsigned long long)st->st_size,
                 (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec,
                 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino, dx);
    return n > 0 && (size_t)n < text_cap;
}

#define TEXT_CAP (PATH_MAX + 512)

bool czk_g16_stamp_matches(const char *dir, const char *path, const struct stat *st,
                           const uint8_t blake2b[64]) {
    char file[PATH_MAX + 80], *want = malloc(TEXT_CAP), *have = malloc(TEXT_CAP + 1);
    bool ok = false;
    if (want && have && stamp_text(dir, path, st, blake2b, file, sizeof file, want, TEXT_CAP)) {
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            size_t got = 0;
            ssize_t r;
            while (got < TEXT_CAP + 1 && ((r = read(fd, have + got, TEXT_CAP + 1 - got)) > 0 ||
                                          (r < 0 && errno == EINTR)))
                if (r > 0) got += (size_t)r;
            close(fd);
            ok = got == strlen(want) && memcmp(have, want, got) == 0;
        }
    }
    free(want);
    free(have);
    return ok;
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
                         const uint8_t blake2b[64]) {
    char file[PATH_MAX + 80], tmp[PATH_MAX + 96], *text = malloc(TEXT_CAP);
    bool ok = false;
    if (text && stamp_text(dir, path, st, blake2b, file, sizeof file, text, TEXT_CAP) &&
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
