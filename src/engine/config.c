/*
 * The engine's configuration: cuzk.toml with cuzk's key names
 * (cuzk-engine.md §3), read through toml++ (config_toml.cc) and checked
 * here against one table of keys.
 *
 * Every key has a type; a value of another type is an error that names the
 * key with its line and column, never a silent default (cuzk falls back to
 * defaults on a bad size or duration; czk refuses). Unknown keys only warn,
 * so that a cuzk.toml with keys czk does not know still starts the daemon.
 * Sizes and durations take cuzk's forms ("5GiB", "626 MiB", "50GB", "20MB",
 * plain bytes; "5m", "300s", plain seconds), as strings or plain integers;
 * a bare number of bytes below 1 MiB is refused as a unit left out.
 * pipeline.max_parallel_synthesis, the key cuzk used for the number of
 * partitions synthesized at once, is read as an alias of
 * synthesis.partition_workers with a warning; when both are present the
 * canonical key wins.
 *
 * Tables another layer owns (the server's [daemon]) come as czk_config_table
 * descriptions (czk_config_parse): their keys are read by the same code, into
 * their own structs; the engine keeps no key of theirs.
 */
#include "engine/internal.h"
#include "engine/toml_shim.h"
#include "util/cache.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void czk_engine_config_default(czk_engine_config *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->param_cache, sizeof c->param_cache, "/data/zk/params");
    c->lagrange = true;
    c->total_budget = 0;
    c->safety_margin = 5ull << 30;
    c->eviction_min_idle_ms = 5 * 60 * 1000;
    c->gpu_threads = 0;
    c->gpu_workers_per_device = 2;
    c->cpu_devices = 1;
    c->finalize_workers = 2;
    snprintf(c->backend, sizeof c->backend, "auto");
    c->max_batch_size = 1;
    c->max_batch_wait_ms = 10000;
    c->sort_by_type = true;
    c->result_retention_ms = 10 * 60 * 1000;
    c->max_results = 1000;
    c->threads = 0;
    c->partition_workers = 0;
    c->pipeline_enabled = true;
    c->synthesis_lookahead = 1;
    c->synthesis_concurrency = 1;
    c->slot_size = 0;
    c->max_gpu_queue_depth = CZK_GPU_QUEUE_AUTO;
    snprintf(c->log_level, sizeof c->log_level, "info");
    c->timeline_keep = 4096;
}

/*
 * synthesis.partition_workers = 0: half the CPUs, 2..18. One worker makes one
 * partition's witness on one core; at 32GiB that is 1-3 s in a reused buffer
 * (bench_witness), so 8 workers on a 16-core host make several partitions per
 * second, more than one device proves (about one per second), while the
 * other half of the cores serves the GPU path, intake (C1 parse and
 * pre-check), finalization and verification. More workers would only hold
 * more 4.2 GB witness buffers (page-locked with a CUDA backend).
 */
void czk_engine_config_finish(czk_engine_config *c) {
    if (!c->shape_cache[0] && !czk_cache_dir(c->shape_cache, sizeof c->shape_cache, "shapes"))
        c->shape_cache[0] = 0; /* neither CZK_CACHE_DIR nor HOME: no shape cache */
    if (!c->partition_workers) {
        unsigned n = czk_cpu_count() / 2;
        c->partition_workers = n < 2 ? 2 : n > 18 ? 18 : n;
    }
}

/* ---- sizes and durations (cuzk config.rs parse_size / parse_duration) ---- */

static bool parse_u64(const char *s, size_t n, uint64_t *out) {
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (!n) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static bool ends_with(const char *s, size_t n, const char *suf) {
    size_t m = strlen(suf);
    return n >= m && !memcmp(s + n - m, suf, m);
}

czk_status czk_parse_size(const char *s, uint64_t *bytes, czk_err *err) {
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    static const struct {
        const char *suf;
        uint64_t mul;
    } units[] = {
        {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"GB", 1000000000ull}, {"MB", 1000000ull}};
    uint64_t mul = 1, v;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ends_with(s, n, units[i].suf)) {
            mul = units[i].mul;
            n -= strlen(units[i].suf);
            break;
        }
    if (!parse_u64(s, n, &v) || (v && mul > UINT64_MAX / v))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "'%s' is not a size (N, N GiB, N MiB, N GB or N MB)", s);
    *bytes = v * mul;
    return CZK_OK;
}

czk_status czk_parse_duration_ms(const char *s, uint64_t *ms, czk_err *err) {
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    uint64_t mul = 1000, v;
    if (ends_with(s, n, "m")) {
        mul = 60000;
        n--;
    } else if (ends_with(s, n, "s")) {
        n--;
    }
    if (!parse_u64(s, n, &v) || (v && mul > UINT64_MAX / v))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "'%s' is not a duration (N seconds, Ns or Nm)",
                        s);
    *ms = v * mul;
    return CZK_OK;
}

/* ---- the key table ---- */

typedef enum kt {
    K_STR,  /* string into a char array of `cap` bytes */
    K_UINT, /* unsigned (u32) */
    K_U64,  /* unsigned (u64) */
    K_BOOL,
    K_SIZE,    /* u64 bytes: string size or integer */
    K_BUDGET,  /* K_SIZE or "auto" (0) */
    K_DUR,     /* u64 ms: string duration or integer seconds */
    K_DEVICES, /* array of integers */
    K_PRELOAD, /* array of strings */
    K_DEPRECATED,
    K_ALIAS_PW,  /* pipeline.max_parallel_synthesis */
    K_ENUM,      /* string among `choices` */
    K_UINT_AUTO, /* K_UINT, or "auto" (CZK_GPU_QUEUE_AUTO) */
} kt;

typedef struct key {
    const char *name;
    kt type;
    size_t off, cap;
    const char *choices; /* K_ENUM: space-separated */
} key;

#define F(field) offsetof(czk_engine_config, field)
#define S(field) F(field), sizeof(((czk_engine_config *)0)->field)
static const key KEYS[] = {
    {"srs.param_cache", K_STR, S(param_cache), NULL},
    {"srs.shape_cache", K_STR, S(shape_cache), NULL},
    {"srs.preload", K_PRELOAD, 0, 0, NULL},
    {"srs.lagrange", K_BOOL, F(lagrange), 0, NULL},
    {"memory.total_budget", K_BUDGET, F(total_budget), 0, NULL},
    {"memory.safety_margin", K_SIZE, F(safety_margin), 0, NULL},
    {"memory.eviction_min_idle", K_DUR, F(eviction_min_idle_ms), 0, NULL},
    {"memory.pinned_budget", K_DEPRECATED, 0, 0, NULL},
    {"memory.working_memory_budget", K_DEPRECATED, 0, 0, NULL},
    {"gpus.devices", K_DEVICES, 0, 0, NULL},
    {"gpus.gpu_threads", K_UINT, F(gpu_threads), 0, NULL},
    {"gpus.gpu_workers_per_device", K_UINT, F(gpu_workers_per_device), 0, NULL},
    {"gpus.finalize_workers", K_UINT, F(finalize_workers), 0, NULL},
    {"gpus.backend", K_ENUM, S(backend), "auto cpu cuda"},
    {"gpus.vram_budget", K_BUDGET, F(vram_budget), 0, NULL},
    {"gpus.cpu_devices", K_UINT, F(cpu_devices), 0, NULL},
    {"scheduler.max_batch_size", K_UINT, F(max_batch_size), 0, NULL},
    {"scheduler.max_batch_wait_ms", K_U64, F(max_batch_wait_ms), 0, NULL},
    {"scheduler.sort_by_type", K_BOOL, F(sort_by_type), 0, NULL},
    {"scheduler.result_retention", K_DUR, F(result_retention_ms), 0, NULL},
    {"scheduler.max_results", K_UINT, F(max_results), 0, NULL},
    {"synthesis.threads", K_UINT, F(threads), 0, NULL},
    {"synthesis.partition_workers", K_UINT, F(partition_workers), 0, NULL},
    {"pipeline.enabled", K_BOOL, F(pipeline_enabled), 0, NULL},
    {"pipeline.synthesis_lookahead", K_UINT, F(synthesis_lookahead), 0, NULL},
    {"pipeline.synthesis_concurrency", K_UINT, F(synthesis_concurrency), 0, NULL},
    {"pipeline.max_parallel_synthesis", K_ALIAS_PW, 0, 0, NULL},
    {"pipeline.slot_size", K_UINT, F(slot_size), 0, NULL},
    {"pipeline.max_gpu_queue_depth", K_UINT_AUTO, F(max_gpu_queue_depth), 0, NULL},
    {"logging.level", K_ENUM, S(log_level), "error warn info debug trace"},
    {"logging.format", K_ENUM, S(log_format), " text json"}, /* "" allowed */
    {"logging.timeline_file", K_STR, S(timeline_file), NULL},
    {"logging.timeline_keep", K_UINT, F(timeline_keep), 0, NULL},
};
static const char *const TABLES[] = {"srs",       "memory",   "gpus",   "scheduler",
                                     "synthesis", "pipeline", "logging"};

typedef struct walk_ctx {
    czk_engine_config *cfg;
    const czk_config_table *tables; /* the other layers' */
    size_t num_tables;
    const char *source;
    czk_config_warn_fn warn;
    void *warn_ctx;
    bool pw_set;
    bool alias_set;
    unsigned alias;
} walk_ctx;

static void warnf(walk_ctx *w, const char *fmt, ...) CZK_PRINTF(2, 3);
static void warnf(walk_ctx *w, const char *fmt, ...) {
    if (!w->warn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    w->warn(w->warn_ctx, msg);
}

static czk_status type_err(walk_ctx *w, const char *k, const czk_tv *v, const char *want,
                           czk_err *err) {
    return czk_errf(err, CZK_ERR_INVALID_ARG, "%s:%u:%u: %s: expected %s, got %s", w->source,
                    v->line, v->col, k, want, czk_tv_type_name(v->type));
}

static czk_status range_err(walk_ctx *w, const char *k, const czk_tv *v, const char *what,
                            czk_err *err) {
    return czk_errf(err, CZK_ERR_INVALID_ARG, "%s:%u:%u: %s: %s", w->source, v->line, v->col, k,
                    what);
}

/*
 * A size written as a bare number is bytes; one below BARE_SIZE_MIN (1 MiB) is refused, since it
 * is most likely a unit left out (`memory.total_budget = 12` meant "12 GiB"): no proof fits in
 * it. With a unit ("12 MB") any size is taken as written; 0 keeps its meaning.
 */
#define BARE_SIZE_MIN (1ull << 20)

static bool is_bare_number(const char *s) {
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s)) return false;
    while (isdigit((unsigned char)*s))
        s++;
    while (isspace((unsigned char)*s))
        s++;
    return !*s;
}

static czk_status bare_size_err(walk_ctx *w, const char *k, const czk_tv *v, uint64_t bytes,
                                czk_err *err) {
    char what[200];
    snprintf(what, sizeof what,
             "%llu is taken as bytes, below the 1 MiB a bare number may give; write the unit "
             "(\"%llu GiB\", \"%llu MiB\", \"%llu GB\" or \"%llu MB\")",
             (unsigned long long)bytes, (unsigned long long)bytes, (unsigned long long)bytes,
             (unsigned long long)bytes, (unsigned long long)bytes);
    return range_err(w, k, v, what, err);
}

/* Whether the first n bytes of k name a table of the engine's or of w->tables. */
static bool known_table(const walk_ctx *w, const char *k, size_t n) {
    for (size_t i = 0; i < sizeof TABLES / sizeof TABLES[0]; i++)
        if (strlen(TABLES[i]) == n && !memcmp(TABLES[i], k, n)) return true;
    for (size_t i = 0; i < w->num_tables; i++)
        if (strlen(w->tables[i].name) == n && !memcmp(w->tables[i].name, k, n)) return true;
    return false;
}

static const kt FOREIGN_TYPE[] = {
    [CZK_CONFIG_STRING] = K_STR,
    [CZK_CONFIG_BOOL] = K_BOOL,
    [CZK_CONFIG_SIZE] = K_SIZE,
    [CZK_CONFIG_DURATION] = K_DUR,
};

static czk_status on_value(void *ctx, const char *k, const czk_tv *v, czk_err *err) {
    walk_ctx *w = ctx;
    char *base = (char *)w->cfg;
    if (v->type == CZK_TV_TABLE) {
        /* a sub-table: no key of ours is a table below the first level */
        if (strchr(k, '.') || !known_table(w, k, strlen(k)))
            warnf(w, "%s:%u:%u: unknown table [%s] (ignored)", w->source, v->kline, v->kcol, k);
        return CZK_OK;
    }
    const key *kd = NULL;
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0] && !kd; i++)
        if (!strcmp(KEYS[i].name, k)) kd = &KEYS[i];
    key foreign;
    for (size_t t = 0; t < w->num_tables && !kd; t++)
        for (size_t i = 0; i < w->tables[t].num_keys && !kd; i++) {
            const czk_config_key *fk = &w->tables[t].keys[i];
            if (strcmp(fk->name, k) || (unsigned)fk->type >= sizeof FOREIGN_TYPE / sizeof(kt))
                continue;
            foreign = (key){fk->name, FOREIGN_TYPE[fk->type], fk->offset, fk->cap, NULL};
            kd = &foreign;
            base = w->tables[t].base;
        }
    if (!kd) {
        /* keys inside an unknown table were reported with the table */
        const char *dot = strchr(k, '.');
        if (!dot || known_table(w, k, (size_t)(dot - k)))
            warnf(w, "%s:%u:%u: unknown key %s (ignored)", w->source, v->kline, v->kcol, k);
        return CZK_OK;
    }
    uint64_t u = 0;
    czk_err verr;
    switch (kd->type) {
    case K_STR:
    case K_ENUM: {
        if (v->type != CZK_TV_STRING) return type_err(w, k, v, "a string", err);
        if (strlen(v->s) >= kd->cap) return range_err(w, k, v, "too long", err);
        if (kd->type == K_ENUM) {
            bool ok = false;
            size_t n = strlen(v->s);
            for (const char *c = kd->choices; *c && !ok;) {
                size_t m = strcspn(c, " ");
                ok = m == n && !memcmp(c, v->s, n);
                c += m + (c[m] == ' ');
            }
            if (!ok) {
                char msg[160];
                snprintf(msg, sizeof msg, "'%s' is not one of: %s", v->s, kd->choices);
                return range_err(w, k, v, msg, err);
            }
        }
        memcpy(base + kd->off, v->s, strlen(v->s) + 1);
        return CZK_OK;
    }
    case K_UINT_AUTO:
        if (v->type == CZK_TV_STRING && !strcmp(v->s, "auto")) {
            *(unsigned *)(base + kd->off) = CZK_GPU_QUEUE_AUTO;
            return CZK_OK;
        }
        if (v->type != CZK_TV_INT) return type_err(w, k, v, "an integer or \"auto\"", err);
        if (v->i < 0 || v->i >= UINT32_MAX) return range_err(w, k, v, "out of range", err);
        *(unsigned *)(base + kd->off) = (unsigned)v->i;
        return CZK_OK;
    case K_UINT:
    case K_U64:
    case K_ALIAS_PW:
        if (v->type != CZK_TV_INT) return type_err(w, k, v, "an integer", err);
        if (v->i < 0 || (kd->type != K_U64 && v->i > UINT32_MAX))
            return range_err(w, k, v, "out of range", err);
        if (kd->type == K_ALIAS_PW) {
            warnf(w,
                  "%s:%u:%u: pipeline.max_parallel_synthesis is read as "
                  "synthesis.partition_workers (the canonical key wins when both are set)",
                  w->source, v->kline, v->kcol);
            w->alias_set = true;
            w->alias = (unsigned)v->i;
        } else if (kd->type == K_U64) {
            *(uint64_t *)(base + kd->off) = (uint64_t)v->i;
        } else {
            *(unsigned *)(base + kd->off) = (unsigned)v->i;
            if (base == (char *)w->cfg && kd->off == F(partition_workers)) w->pw_set = true;
        }
        return CZK_OK;
    case K_BOOL:
        if (v->type != CZK_TV_BOOL) return type_err(w, k, v, "a boolean", err);
        *(bool *)(base + kd->off) = v->b;
        return CZK_OK;
    case K_SIZE:
    case K_BUDGET:
        if (v->type == CZK_TV_INT) {
            if (v->i < 0) return range_err(w, k, v, "negative", err);
            u = (uint64_t)v->i;
            if (u && u < BARE_SIZE_MIN) return bare_size_err(w, k, v, u, err);
        } else if (v->type == CZK_TV_STRING && is_bare_number(v->s)) {
            if (czk_parse_size(v->s, &u, &verr)) return range_err(w, k, v, verr.msg, err);
            if (u && u < BARE_SIZE_MIN) return bare_size_err(w, k, v, u, err);
            if (kd->type == K_BUDGET && u == 0)
                return range_err(w, k, v, "zero (use \"auto\")", err);
        } else if (v->type == CZK_TV_STRING) {
            if (kd->type == K_BUDGET && !strcmp(v->s, "auto")) {
                u = 0;
            } else if (czk_parse_size(v->s, &u, &verr)) {
                return range_err(w, k, v, verr.msg, err);
            } else if (kd->type == K_BUDGET && u == 0) {
                return range_err(w, k, v, "zero (use \"auto\")", err);
            }
        } else {
            return type_err(w, k, v, "a size (string or integer)", err);
        }
        *(uint64_t *)(base + kd->off) = u;
        return CZK_OK;
    case K_DUR:
        if (v->type == CZK_TV_INT) {
            if (v->i < 0) return range_err(w, k, v, "negative", err);
            u = (uint64_t)v->i * 1000u;
        } else if (v->type == CZK_TV_STRING) {
            if (czk_parse_duration_ms(v->s, &u, &verr)) return range_err(w, k, v, verr.msg, err);
        } else {
            return type_err(w, k, v, "a duration (string or integer seconds)", err);
        }
        *(uint64_t *)(base + kd->off) = u;
        return CZK_OK;
    case K_DEVICES:
        if (v->type != CZK_TV_ARRAY) return type_err(w, k, v, "an array of integers", err);
        if (v->n > CZK_ENGINE_MAX_DEVICES) return range_err(w, k, v, "too many devices", err);
        for (size_t i = 0; i < v->n; i++) {
            const czk_tv *it = &v->items[i];
            if (it->type != CZK_TV_INT) {
                char kk[96];
                snprintf(kk, sizeof kk, "%s[%zu]", k, i);
                return type_err(w, kk, it, "an integer", err);
            }
            if (it->i < 0 || it->i > 1023) return range_err(w, k, it, "ordinal out of range", err);
            w->cfg->devices[i] = (int)it->i;
        }
        w->cfg->num_devices = (unsigned)v->n;
        return CZK_OK;
    case K_PRELOAD:
        if (v->type != CZK_TV_ARRAY) return type_err(w, k, v, "an array of strings", err);
        if (v->n > CZK_ENGINE_MAX_PRELOAD) return range_err(w, k, v, "too many circuits", err);
        for (size_t i = 0; i < v->n; i++) {
            const czk_tv *it = &v->items[i];
            if (it->type != CZK_TV_STRING) {
                char kk[96];
                snprintf(kk, sizeof kk, "%s[%zu]", k, i);
                return type_err(w, kk, it, "a string", err);
            }
            if (strlen(it->s) >= CZK_CIRCUIT_ID_MAX)
                return range_err(w, k, it, "circuit id too long", err);
            snprintf(w->cfg->preload[i], CZK_CIRCUIT_ID_MAX, "%s", it->s);
        }
        w->cfg->num_preload = (unsigned)v->n;
        return CZK_OK;
    case K_DEPRECATED:
        warnf(w,
              "%s:%u:%u: %s is deprecated and ignored (memory is one budget, "
              "memory.total_budget)",
              w->source, v->kline, v->kcol, k);
        return CZK_OK;
    }
    return CZK_OK;
}

czk_status czk_config_parse(czk_engine_config *cfg, const czk_config_table *tables,
                            size_t num_tables, const char *text, size_t len, const char *source,
                            czk_config_warn_fn warn, void *warn_ctx, czk_err *err) {
    walk_ctx w = {cfg,   tables, num_tables, source ? source : "config", warn, warn_ctx,
                  false, false,  0};
    czk_status st = czk_toml_walk(text, len, w.source, on_value, &w, err);
    if (st) return st;
    if (w.alias_set && !w.pw_set) cfg->partition_workers = w.alias;
    return CZK_OK;
}

czk_status czk_engine_config_parse(czk_engine_config *cfg, const char *text, size_t len,
                                   const char *source, czk_config_warn_fn warn, void *warn_ctx,
                                   czk_err *err) {
    return czk_config_parse(cfg, NULL, 0, text, len, source, warn, warn_ctx, err);
}

czk_status czk_engine_config_load(czk_engine_config *cfg, const char *path, czk_config_warn_fn warn,
                                  void *warn_ctx, czk_err *err) {
    return czk_config_load(cfg, NULL, 0, path, warn, warn_ctx, err);
}

czk_status czk_config_load(czk_engine_config *cfg, const czk_config_table *tables,
                           size_t num_tables, const char *path, czk_config_warn_fn warn,
                           void *warn_ctx, czk_err *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return czk_errf(err, CZK_ERR_IO, "config %s: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len < cap) break;
        char *nb = cap > (64u << 20) ? NULL : realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool rerr = ferror(f);
    fclose(f);
    if (!buf) return czk_errf(err, CZK_ERR_NOMEM, "config %s: too large or out of memory", path);
    if (rerr) {
        free(buf);
        return czk_errf(err, CZK_ERR_IO, "config %s: read error", path);
    }
    czk_status st = czk_config_parse(cfg, tables, num_tables, buf, len, path, warn, warn_ctx, err);
    free(buf);
    return st;
}
