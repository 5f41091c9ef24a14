/*
 * The timeline and the log.
 *
 * Every state change of a partition or job becomes one line,
 *   TIMELINE,<ms since start>,<EVENT>,<job>,partition=<k> worker=<w> [key=value...]
 * the format cuzk prints on stderr (cuzk-engine.md §4 "Instrumentation"), so
 * that its analysis habits (grep ^TIMELINE | sort -t, -k2 -n) and
 * `czk timeline` work on it. A line goes three ways: appended to
 * logging.timeline_file (line-buffered, so a crash loses at most the line
 * being written), into a ring of the last logging.timeline_keep lines for
 * the status snapshot (bounded memory however long the daemon runs), and to
 * the on_event hook. The timeline has its own mutex so that the device-lock
 * callbacks can emit without the engine mutex; timestamps come from one
 * monotonic clock, so lines from different threads may reach the file a
 * millisecond out of order and readers sort by the time field.
 *
 * Log lines (errors, warnings, progress) go to the log hook or stderr,
 * filtered by logging.level, and always name the job, partition and stage
 * they concern.
 */
#include "engine/internal.h"
#include "util/time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const EVENT_NAMES[CZK_EV_COUNT] = {
    "JOB_SUBMIT",     "SRS_LOAD_START", "SRS_LOAD_END", "SRS_EVICT",     "SYNTH_START",
    "SYNTH_END",      "GPU_QUEUE",      "GPU_PICKUP",   "GPU_START",     "GPU_END",
    "FINALIZE_START", "FINALIZE_END",   "JOB_DONE",     "DEVICE_FAILED",
};

const char *czk_event_name(czk_event_type t) {
    return (unsigned)t < CZK_EV_COUNT ? EVENT_NAMES[t] : "UNKNOWN";
}

uint64_t czk_engine_ms(const czk_engine *e) {
    return (czk_now_ns() - e->t0_ns) / 1000000u;
}

czk_status czk_timeline_open(czk_engine *e, czk_err *err) {
    e->tl_cap = e->cfg.timeline_keep;
    if (e->tl_cap) {
        e->tl_ring = calloc(e->tl_cap, sizeof *e->tl_ring);
        if (!e->tl_ring) return czk_errf(err, CZK_ERR_NOMEM, "engine: timeline ring");
    }
    if (e->cfg.timeline_file[0]) {
        e->tl_file = fopen(e->cfg.timeline_file, "a");
        if (!e->tl_file)
            return czk_errf(err, CZK_ERR_IO, "engine: logging.timeline_file %s: %s",
                            e->cfg.timeline_file, strerror(errno));
        setvbuf(e->tl_file, NULL, _IOLBF, 0);
    }
    return CZK_OK;
}

void czk_timeline_close(czk_engine *e) {
    if (e->tl_file) fclose(e->tl_file);
    e->tl_file = NULL;
    for (size_t i = 0; e->tl_ring && i < e->tl_cap; i++)
        free(e->tl_ring[i]);
    free(e->tl_ring);
    e->tl_ring = NULL;
}

void czk_timeline_emit(czk_engine *e, czk_event_type t, const char *job, int partition, int worker,
                       const char *fmt, ...) {
    char line[768];
    uint64_t ms = czk_engine_ms(e);
    int n;
    char p[16] = "-", w[16] = "-";
    if (partition >= 0) snprintf(p, sizeof p, "%d", partition);
    if (worker >= 0) snprintf(w, sizeof w, "%d", worker);
    n = snprintf(line, sizeof line, "TIMELINE,%llu,%s,%s,partition=%s worker=%s",
                 (unsigned long long)ms, czk_event_name(t), job && *job ? job : "-", p, w);
    if (fmt && n > 0 && (size_t)n < sizeof line - 1) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_lock(&e->tl_mu);
    if (e->tl_file) fprintf(e->tl_file, "%s\n", line);
    if (e->tl_cap) {
        size_t slot = (e->tl_head + e->tl_len) % e->tl_cap;
        if (e->tl_len == e->tl_cap) {
            slot = e->tl_head;
            e->tl_head = (e->tl_head + 1) % e->tl_cap;
        } else {
            e->tl_len++;
        }
        free(e->tl_ring[slot]);
        e->tl_ring[slot] = strdup(line); /* NULL on OOM: that line is just not kept */
    }
    if (e->opts.on_event) {
        czk_engine_event ev = {t, ms, job && *job ? job : "-", partition, worker, line};
        e->opts.on_event(e->opts.event_ctx, &ev);
    }
    pthread_mutex_unlock(&e->tl_mu);
}

czk_status czk_timeline_copy(czk_engine *e, char ***out, size_t *n) {
    pthread_mutex_lock(&e->tl_mu);
    size_t m = e->tl_len;
    char **v = calloc(m ? m : 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; v && i < m; i++) {
        const char *s = e->tl_ring[(e->tl_head + i) % e->tl_cap];
        if (s && (v[k] = strdup(s))) k++;
    }
    pthread_mutex_unlock(&e->tl_mu);
    *out = v;
    *n = k;
    return v ? CZK_OK : CZK_ERR_NOMEM;
}

static const char *const LEVELS[] = {"error", "warn", "info", "debug"};

void czk_engine_log(czk_engine *e, int level, const char *fmt, ...) {
    if (level > e->log_level) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    const char *lv = LEVELS[level < 0 ? 0 : level > 3 ? 3 : level];
    if (e->opts.log) {
        e->opts.log(e->opts.log_ctx, lv, line);
    } else {
        fprintf(stderr, "czk engine %s: %s\n", lv, line);
    }
}
