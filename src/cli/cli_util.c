/*
 * Helpers shared by the PoRep subcommands (setup, prove, verify): reading
 * files, telling a raw C1 from a cuzk envelope, sizes and numbers on the
 * command line, wall time and peak memory.
 */
#include "cli/cli.h"
#include "czk/cuda.h"
#include "czk/groth16.h"
#include "util/proc.h"
#include "util/time.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double czk_cli_now(void) {
    return czk_now();
}

unsigned czk_cli_witness_workers(bool use_cuda, uint32_t partitions) {
    long half = sysconf(_SC_NPROCESSORS_ONLN) / 2;
    unsigned pw = half < 2 ? 2 : half > 18 ? 18 : (unsigned)half;
    if (use_cuda && pw > 4) pw = 4;
    return partitions && pw > partitions ? partitions : pw;
}

uint64_t czk_cli_peak_rss(void) {
    return czk_proc_status_bytes(0, "VmHWM");
}

bool czk_cli_parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

uint64_t czk_cli_parse_size(const char *s) {
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcasecmp(s, czk_porep_shapes[i].name)) return czk_porep_shapes[i].sector_size;
    char *end = NULL;
    errno = 0;
    if (!*s || s[0] == '-') return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return 0;
    unsigned shift = 0;
    if (!strcasecmp(end, "k") || !strcasecmp(end, "kib"))
        shift = 10;
    else if (!strcasecmp(end, "m") || !strcasecmp(end, "mib"))
        shift = 20;
    else if (!strcasecmp(end, "g") || !strcasecmp(end, "gib"))
        shift = 30;
    else if (*end)
        return 0;
    if (v > (UINT64_MAX >> shift)) return 0;
    return (uint64_t)v << shift;
}

/* Settings of this run from the environment, read once by main (czk_cli_env_init). */
static czk_cli_env g_env = {.c1_max = CZK_CLI_C1_MAX_DEFAULT};

int czk_cli_env_init(void) {
    const char *v = getenv("CZK_C1_MAX_SIZE");
    if (v && *v) {
        uint64_t b = czk_cli_parse_size(v);
        if (b < 4096)
            return czk_cli_fail("env",
                                "CZK_C1_MAX_SIZE=%s: expected a size of at least 4096 "
                                "bytes (\"1073741824\", \"1GiB\", \"512MiB\")",
                                v);
        g_env.c1_max = b;
    }
    return CZK_EXIT_OK;
}

const czk_cli_env *czk_cli_env_get(void) {
    return &g_env;
}

/* "1 GiB", "512 MiB", "4097 bytes": the cap as the message names it. */
static void size_words(char *out, size_t cap, uint64_t b) {
    if (b >= (1ull << 30) && b % (1ull << 30) == 0)
        snprintf(out, cap, "%llu GiB", (unsigned long long)(b >> 30));
    else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
        snprintf(out, cap, "%llu MiB", (unsigned long long)(b >> 20));
    else
        snprintf(out, cap, "%llu bytes", (unsigned long long)b);
}

/* The whole file, refused once it holds more than max bytes (knob: what raises max, or NULL). */
static int read_capped(const char *cmd, const char *path, uint64_t max, const char *knob,
                       uint8_t **out, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return czk_cli_fail(cmd, "cannot open %s: %s", path, strerror(errno));
    char words[64];
    size_words(words, sizeof words, max);
    struct stat sb;
    if (!fstat(fileno(f), &sb) && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > max) {
        fclose(f);
        return czk_cli_fail(cmd, "%s: %llu bytes, over the C1 size cap of %s%s%s", path,
                            (unsigned long long)sb.st_size, words, knob ? "; " : "",
                            knob ? knob : "");
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            if ((uint64_t)n > max) break; /* read max + 1 bytes: over the cap */
            uint64_t want = cap ? (uint64_t)cap * 2 : 1 << 20;
            if (want > max + 1) want = max + 1;
            uint8_t *b = want <= SIZE_MAX ? realloc(buf, (size_t)want) : NULL;
            if (!b) {
                free(buf);
                fclose(f);
                return czk_cli_fail(cmd, "%s: out of memory", path);
            }
            buf = b;
            cap = (size_t)want;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f), e = errno; /* fread's reason (a directory: EISDIR) */
    fclose(f);
    if (bad) {
        free(buf);
        return czk_cli_fail(cmd, "cannot read %s: %s", path, strerror(e));
    }
    if ((uint64_t)n > max) {
        free(buf);
        return czk_cli_fail(cmd, "%s: more than the C1 size cap of %s%s%s", path, words,
                            knob ? "; " : "", knob ? knob : "");
    }
    *out = buf;
    *len = n;
    return CZK_EXIT_OK;
}

int czk_cli_out_open(czk_cli_out *o, const char *cmd, const char *path, const char *nothing) {
    memset(o, 0, sizeof o[0]);
    o->cmd = cmd;
    o->path = path;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return czk_cli_fail(cmd, "--out %s is a directory (give a file name)", path);
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof o->tmp)
        return czk_cli_fail(cmd, "--out path too long");
    if (!(o->f = fopen(o->tmp, "wbx"))) {
        int e = errno;
        o->tmp[0] = 0;
        return czk_cli_fail(cmd,
                            "--out %s: cannot create a file there (%s.tmp.%ld: %s); nothing was %s",
                            path, path, (long)getpid(), strerror(e), nothing);
    }
    return CZK_EXIT_OK;
}

int czk_cli_out_commit(czk_cli_out *o, const uint8_t *b, size_t n) {
    bool ok = fwrite(b, 1, n, o->f) == n;
    ok = (fclose(o->f) == 0) && ok;
    o->f = NULL;
    if (!ok || rename(o->tmp, o->path)) {
        int e = errno;
        unlink(o->tmp);
        o->tmp[0] = 0;
        return czk_cli_fail(o->cmd, "cannot write %s: %s", o->path, strerror(e));
    }
    o->tmp[0] = 0;
    return CZK_EXIT_OK;
}

void czk_cli_out_drop(czk_cli_out *o) {
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = 0;
}

int czk_cli_backend_arg(const char *cmd, const char *v, const char **backend) {
    if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "cuda"))
        return czk_cli_fail(cmd, "--backend takes auto, cpu or cuda, not '%s'", v);
    *backend = v;
    return CZK_EXIT_OK;
}

int czk_cli_device_arg(const char *cmd, const char *v, uint64_t *device) {
    if (!czk_cli_parse_u64(v, device) || *device > 1023)
        return czk_cli_fail(cmd, "--device takes a CUDA device number, not '%s'", v);
    return CZK_EXIT_OK;
}

int czk_cli_backend_pick(const char *cmd, const char *backend, uint64_t device, bool *use_cuda) {
    int n = czk_cuda_device_count();
    *use_cuda = !strcmp(backend, "cuda") || (!strcmp(backend, "auto") && n > 0);
    if (*use_cuda && (int)device >= n)
        return czk_cli_fail(cmd, "--backend cuda: %s",
                            !czk_cuda_built() ? "this czk was built without CUDA"
                            : n == 0          ? "no CUDA device (no GPU or no driver)"
                                              : "--device is not a CUDA device here");
    return CZK_EXIT_OK;
}

const char *czk_cli_cpu_reason(const char *backend) {
    if (!strcmp(backend, "cpu")) return "--backend cpu";
    return !czk_cuda_built() ? "auto: this czk was built without CUDA"
                             : "auto: no CUDA device found (no GPU or no driver)";
}

int czk_cli_mkdir_p(const char *cmd, const char *dir) {
    char mk[PATH_MAX];
    if (!*dir) return czk_cli_fail(cmd, "the directory name is empty");
    if (snprintf(mk, sizeof mk, "%s", dir) >= (int)sizeof mk)
        return czk_cli_fail(cmd, "directory name too long: %s", dir);
    for (char *c = mk + 1;; c++)
        if (*c == '/' || !*c) {
            char end = *c;
            *c = 0;
            if (mkdir(mk, 0755) && errno != EEXIST)
                return czk_cli_fail(cmd, "cannot create %s: %s", mk, strerror(errno));
            if (!(*c = end)) break;
        }
    return CZK_EXIT_OK;
}

int czk_cli_read_file(const char *cmd, const char *path, uint8_t **out, size_t *len) {
    return read_capped(cmd, path, SIZE_MAX - 1, NULL, out, len);
}

int czk_cli_read_c1(const char *cmd, const char *path, uint8_t **out, size_t *len) {
    return read_capped(cmd, path, g_env.c1_max, "CZK_C1_MAX_SIZE raises it", out, len);
}

/* True if the JSON text's first key is one of the cuzk envelope's. */
static bool is_envelope(const uint8_t *b, size_t n) {
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    if (i >= n || b[i] != '{') return false;
    i++;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    static const char *const keys[] = {"\"SectorNum\"", "\"Phase1Out\"", "\"SectorSize\""};
    for (int k = 0; k < 3; k++)
        if (n - i >= strlen(keys[k]) && !memcmp(b + i, keys[k], strlen(keys[k]))) return true;
    return false;
}

czk_status czk_cli_parse_c1(czk_c1 **out, bool *envelope, uint64_t *sector_num, const uint8_t *buf,
                            size_t len, czk_err *err) {
    *envelope = is_envelope(buf, len);
    if (!*envelope) return czk_c1_parse(out, buf, len, err);
    uint64_t size = 0;
    return czk_c1_parse_envelope(out, sector_num, &size, buf, len, err);
}

void czk_cli_hex(char *out, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ---- parameter read progress ---- */

#define PROGRESS_PLAIN_AFTER_S 2.0
#define PROGRESS_REDRAW_S 0.1
#define PROGRESS_PLAIN_POINTS 10
#define PROGRESS_PLAIN_GAP_S 5.0
#define PROGRESS_PLAIN_MAX_S 30.0

void czk_cli_progress_init(czk_cli_progress *p, const char *cmd) {
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->tty = isatty(2) == 1;
    p->what = "loading keys";
    p->t0 = p->t_line = czk_cli_now();
    p->pct_line = -1;
}

/* " (X of Y GiB, N s)" or " (X of Y points, N s)" */
static void progress_amounts(char *out, size_t cap, const czk_cli_progress *p, uint64_t done,
                             uint64_t total, double secs) {
    double gib = 1024.0 * 1024.0 * 1024.0;
    if (p->points)
        snprintf(out, cap, "(%llu of %llu points, %.0f s)", (unsigned long long)done,
                 (unsigned long long)total, secs);
    else
        snprintf(out, cap, "(%.1f of %.1f GiB, %.0f s)", (double)done / gib, (double)total / gib,
                 secs);
}

void czk_cli_progress_fn(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    czk_cli_progress *p = ctx;
    double now = czk_cli_now();
    if (!strncmp(stage, CZK_PARAMS_NOTICE, sizeof CZK_PARAMS_NOTICE - 1)) {
        /* why every point is checked now, and how long it takes: always shown, once */
        fprintf(stderr, "%sczk %s: keys: %s\n", p->tty && p->drawn ? "\r\033[K" : "", p->cmd,
                stage);
        p->drawn = false;
        fflush(stderr);
        return;
    }
    int pct = total ? (int)(done * 100 / total) : 100;
    bool sub = !strncmp(stage, "subgroup ", 9);
    if (sub != p->subgroup || (p->points && !done)) { /* a pass (a setup phase) begins */
        p->subgroup = sub;
        p->pct_line = -1;
    }
    char amounts[96];
    progress_amounts(amounts, sizeof amounts, p, done, total, now - p->t0);
    if (p->tty) {
        if (p->drawn && now - p->t_draw < PROGRESS_REDRAW_S && done && done < total) return;
        p->t_draw = now;
        p->drawn = true;
        if (!total) /* a step that counts nothing: its name */
            fprintf(stderr, "\rczk %s: %s: %s ...\033[K", p->cmd, p->what, stage);
        else
            fprintf(stderr, "\rczk %s: %s: %s %3d %% %s\033[K", p->cmd, p->what, stage, pct,
                    amounts);
    } else if (total) {
        /* a line per 10 points at most every 5 s, and at least every 30 s while it moves */
        int from = p->pct_line < 0 ? 0 : p->pct_line;
        bool step = pct - from >= PROGRESS_PLAIN_POINTS && now - p->t_line >= PROGRESS_PLAIN_GAP_S;
        bool slow = pct > p->pct_line && now - p->t_line >= PROGRESS_PLAIN_MAX_S;
        if (now - p->t0 < PROGRESS_PLAIN_AFTER_S || !(step || slow)) return;
        p->pct_line = pct;
        p->t_line = now;
        fprintf(stderr, "czk %s: %s: %s %d %% %s\n", p->cmd, p->what, stage, pct, amounts);
    }
    fflush(stderr);
}

void czk_cli_progress_end(czk_cli_progress *p) {
    if (p->tty && p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}

int czk_cli_getopt_fail(const char *cmd, const char *usage, int ch, char **argv,
                        const struct option *longopts) {
    fputs(usage, stderr);
    /* glibc: optopt is the option's val when it was recognized (missing or
       unwanted value), 0 for an unknown long option, the letter for an
       unknown short one; optind has moved past the offending word */
    const char *name = NULL;
    for (const struct option *o = longopts; optopt && o->name; o++)
        if (!o->flag && o->val == optopt) name = o->name;
    if (ch == ':') {
        if (name) return czk_cli_fail(cmd, "--%s needs a value", name);
        return czk_cli_fail(cmd, "-%c needs a value", optopt);
    }
    if (name) return czk_cli_fail(cmd, "--%s takes no value", name);
    if (optopt) return czk_cli_fail(cmd, "unknown option -%c", optopt);
    const char *w = argv[optind - 1];
    size_t n = strcspn(w, "=");
    return czk_cli_fail(cmd, "unknown option %.*s", (int)n, w);
}

int czk_cli_porep_proof_arg(const char *cmd, const char *size_arg, const char *proof_arg,
                            const czk_porep_shape **out) {
    const czk_porep_shape *ps = NULL;
    if (size_arg) {
        uint64_t bytes = czk_cli_parse_size(size_arg);
        if (!bytes) return czk_cli_fail(cmd, "--sector-size takes a size, not '%s'", size_arg);
        if (!(ps = czk_porep_shape_for_size(bytes)))
            return czk_cli_fail(cmd,
                                "no PoRep sector size of %llu bytes (2KiB, 8MiB, 512MiB, 32GiB, "
                                "64GiB)",
                                (unsigned long long)bytes);
    }
    if (proof_arg) {
        uint64_t id;
        czk_porep_proof pr;
        czk_err e;
        if (!czk_cli_parse_u64(proof_arg, &id))
            return czk_cli_fail(cmd, "--registered-proof takes a number, not '%s'", proof_arg);
        if (czk_porep_proof_lookup(id, &pr, &e)) return czk_cli_fail(cmd, "%s", e.msg);
        if (ps && pr.shape != ps)
            return czk_cli_fail(cmd, "registered proof %llu is for %s sectors, not %s",
                                (unsigned long long)id, pr.shape->name, ps->name);
        ps = pr.shape;
    }
    *out = ps;
    return CZK_EXIT_OK;
}
