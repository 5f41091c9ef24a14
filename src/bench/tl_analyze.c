/*
 * TIMELINE logs: parsing and the summary (include/czk/timeline.h).
 * Formerly the body of `czk timeline` (src/cli/timeline.c); now shared by
 * `czk timeline` and `czk bench`.
 */
#include "czk/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void czk_tl_init(czk_tl *tl) {
    memset(tl, 0, sizeof *tl);
}

void czk_tl_free(czk_tl *tl) {
    if (!tl) return;
    free(tl->ev);
    memset(tl, 0, sizeof *tl);
}

/* The value of " key=<digits>" in rest; -1 if absent, "-" or not a number. */
static long long field(const char *rest, const char *key) {
    char k[40];
    snprintf(k, sizeof k, "%s=", key);
    for (const char *p = strstr(rest, k); p; p = strstr(p + 1, k))
        if (p == rest || p[-1] == ' ') {
            const char *v = p + strlen(k);
            if (*v == '-' || *v < '0' || *v > '9') return -1;
            return strtoll(v, NULL, 10);
        }
    return -1;
}

bool czk_tl_parse_line(const char *line, czk_tl_event *out) {
    const char *p = strstr(line, "TIMELINE,");
    if (!p) return false;
    p += 9;
    if (*p < '0' || *p > '9') return false;
    char *end;
    unsigned long long ms = strtoull(p, &end, 10);
    if (end == p || *end != ',') return false;
    p = end + 1;
    const char *c = strchr(p, ',');
    if (!c || c == p || (size_t)(c - p) >= sizeof out->ev) return false;
    memcpy(out->ev, p, (size_t)(c - p));
    out->ev[c - p] = 0;
    p = c + 1;
    c = strchr(p, ',');
    if (!c || c == p || (size_t)(c - p) >= sizeof out->job) return false;
    memcpy(out->job, p, (size_t)(c - p));
    out->job[c - p] = 0;
    const char *rest = c + 1;
    out->ms = ms;
    out->seq = 0;
    long long v = field(rest, "partition");
    out->partition = v < 0 || v > 1000000 ? -1 : (int)v;
    v = field(rest, "worker");
    out->worker = v < 0 || v > 1000000 ? -1 : (int)v;
    out->device = CZK_TL_NO_DEVICE; /* device=<d>, d >= 0 or a pseudo-device's d < 0 */
    for (const char *d = strstr(rest, "device="); d; d = strstr(d + 1, "device="))
        if (d == rest || d[-1] == ' ') {
            char *end;
            long x = strtol(d + 7, &end, 10);
            if (end != d + 7 && (!*end || strchr(" \r\n", *end)) && x >= -1000000 && x <= 1000000)
                out->device = (int)x;
            break;
        }
    out->value = field(rest, "synth_ms");
    if (out->value < 0) out->value = field(rest, "gpu_ms");
    if (out->value < 0) out->value = field(rest, "finalize_ms");
    out->status[0] = 0;
    const char *st = strstr(rest, "status=");
    if (st) sscanf(st + 7, "%15[A-Z]", out->status);
    return true;
}

czk_status czk_tl_add_line(czk_tl *tl, const char *line, czk_err *err) {
    czk_tl_event e;
    tl->lines++;
    if (!czk_tl_parse_line(line, &e)) return CZK_OK;
    if (tl->n == tl->cap) {
        size_t cap = tl->cap ? 2 * tl->cap : 256;
        czk_tl_event *v = realloc(tl->ev, cap * sizeof *v);
        if (!v) return czk_errf(err, CZK_ERR_NOMEM, "timeline: %zu events", cap);
        tl->ev = v;
        tl->cap = cap;
    }
    e.seq = tl->lines;
    tl->ev[tl->n++] = e;
    return CZK_OK;
}

czk_status czk_tl_read_file(czk_tl *tl, const char *path, czk_err *err) {
    FILE *f = fopen(path, "r");
    if (!f) return czk_errf(err, CZK_ERR_IO, "timeline: cannot open %s: %s", path, strerror(errno));
    char line[4096];
    czk_status st = CZK_OK;
    while (!st && fgets(line, sizeof line, f))
        st = czk_tl_add_line(tl, line, err);
    if (!st && ferror(f))
        st = czk_errf(err, CZK_ERR_IO, "timeline: cannot read %s: %s", path, strerror(errno));
    fclose(f);
    return st;
}

static int cmp_ev(const void *x, const void *y) {
    const czk_tl_event *p = x, *q = y;
    if (p->ms != q->ms) return p->ms < q->ms ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

void czk_tl_sort(czk_tl *tl) {
    if (tl->n) qsort(tl->ev, tl->n, sizeof *tl->ev, cmp_ev);
}

typedef struct span {
    uint64_t a, b;
} span;

static int cmp_span(const void *x, const void *y) {
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

static void acc_add(czk_tl_stat *a, double v) {
    if (!a->n || v < a->min) a->min = v;
    if (!a->n || v > a->max) a->max = v;
    a->sum += v;
    a->n++;
}

/* The start event matching an end: same job and partition, latest before it. */
static const czk_tl_event *match_start(const czk_tl_event *v, size_t i, const char *start) {
    for (size_t j = i; j-- > 0;)
        if (!strcmp(v[j].ev, start) && !strcmp(v[j].job, v[i].job) &&
            v[j].partition == v[i].partition)
            return &v[j];
    return NULL;
}

czk_status czk_tl_analyze(czk_tl *tl, czk_tl_summary *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    czk_tl_sort(tl);
    const czk_tl_event *v = tl->ev;
    size_t n = tl->n;
    out->events = n;
    out->first_submit_ms = UINT64_MAX;
    size_t m = n ? n : 1;
    span *busy = malloc(m * sizeof *busy);
    int *busy_dev = malloc(m * sizeof *busy_dev);
    /* GPU time per partition: a backend may take the lock more than once per partition */
    typedef struct pgpu {
        const char *job;
        int partition;
        double ms;
    } pgpu;
    pgpu *pg = malloc(m * sizeof *pg);
    bool *done = calloc(m, sizeof *done);
    span *d = malloc(m * sizeof *d);
    out->devices = calloc(m, sizeof *out->devices);
    czk_status st = CZK_OK;
    if (!busy || !busy_dev || !pg || !done || !d || !out->devices) {
        st = czk_errf(err, CZK_ERR_NOMEM, "timeline: analysis of %zu events", n);
        goto out;
    }
    size_t nb = 0, npg = 0;
    for (size_t i = 0; i < n; i++) {
        const czk_tl_event *e = &v[i];
        if (!strcmp(e->ev, "JOB_SUBMIT") && e->ms < out->first_submit_ms)
            out->first_submit_ms = e->ms;
        if (!strcmp(e->ev, "JOB_DONE")) {
            if (e->ms > out->last_done_ms) out->last_done_ms = e->ms;
            if (!strcmp(e->status, "COMPLETED"))
                out->completed++;
            else if (!strcmp(e->status, "FAILED"))
                out->failed++;
            else if (!strcmp(e->status, "CANCELLED"))
                out->cancelled++;
        }
        if (!strcmp(e->ev, "SYNTH_END")) {
            const czk_tl_event *s = match_start(v, i, "SYNTH_START");
            if (e->value >= 0)
                acc_add(&out->synth, (double)e->value);
            else if (s)
                acc_add(&out->synth, (double)(e->ms - s->ms));
        }
        if (!strcmp(e->ev, "FINALIZE_END")) {
            const czk_tl_event *s = match_start(v, i, "FINALIZE_START");
            if (e->value >= 0)
                acc_add(&out->finalize, (double)e->value);
            else if (s)
                acc_add(&out->finalize, (double)(e->ms - s->ms));
        }
        if (!strcmp(e->ev, "GPU_PICKUP")) {
            const czk_tl_event *s = match_start(v, i, "GPU_QUEUE");
            if (s) acc_add(&out->gpu_queue_wait, (double)(e->ms - s->ms));
        }
        if (!strcmp(e->ev, "GPU_END")) {
            const czk_tl_event *s = match_start(v, i, "GPU_START");
            double ms = e->value >= 0 ? (double)e->value : s ? (double)(e->ms - s->ms) : -1;
            if (s) {
                busy[nb] = (span){s->ms, e->ms};
                busy_dev[nb++] = e->device;
            }
            if (ms < 0) continue;
            size_t k = 0;
            while (k < npg && (strcmp(pg[k].job, e->job) || pg[k].partition != e->partition))
                k++;
            if (k == npg) pg[npg++] = (pgpu){e->job, e->partition, 0};
            pg[k].ms += ms;
        }
    }
    for (size_t k = 0; k < npg; k++)
        acc_add(&out->gpu, pg[k].ms);
    /* per device: busy union and idle gaps */
    for (size_t i = 0; i < nb; i++) {
        if (done[i]) continue;
        int dev = busy_dev[i];
        size_t k = 0;
        for (size_t j = i; j < nb; j++)
            if (!done[j] && busy_dev[j] == dev) {
                done[j] = true;
                d[k++] = busy[j];
            }
        qsort(d, k, sizeof *d, cmp_span);
        czk_tl_device *dv = &out->devices[out->num_devices++];
        dv->device = dev;
        dv->t0 = d[0].a;
        dv->t1 = d[0].b;
        uint64_t cur_a = d[0].a, cur_b = d[0].b;
        for (size_t j = 1; j < k; j++) {
            if (d[j].b > dv->t1) dv->t1 = d[j].b;
            if (d[j].a <= cur_b) {
                if (d[j].b > cur_b) cur_b = d[j].b;
                continue;
            }
            dv->busy_ms += cur_b - cur_a;
            uint64_t g = d[j].a - cur_b;
            dv->gaps++;
            dv->gap_total_ms += g;
            if (g > dv->gap_max_ms) dv->gap_max_ms = g;
            cur_a = d[j].a;
            cur_b = d[j].b;
        }
        dv->busy_ms += cur_b - cur_a;
        out->busy_ms += dv->busy_ms;
        out->span_ms += dv->t1 - dv->t0;
        out->gaps += dv->gaps;
        out->gap_total_ms += dv->gap_total_ms;
    }
    out->busy_pct = !out->num_devices ? 0.0
                    : out->span_ms    ? 100.0 * (double)out->busy_ms / (double)out->span_ms
                                      : 100.0;
    out->has_wall = out->first_submit_ms != UINT64_MAX && out->last_done_ms >= out->first_submit_ms;
    if (out->first_submit_ms == UINT64_MAX) out->first_submit_ms = 0;
out:
    free(busy);
    free(busy_dev);
    free(pg);
    free(done);
    free(d);
    if (st) czk_tl_summary_free(out);
    return st;
}

void czk_tl_summary_free(czk_tl_summary *s) {
    if (!s) return;
    free(s->devices);
    s->devices = NULL;
    s->num_devices = 0;
}

static void stat_print(FILE *f, const char *name, const czk_tl_stat *a) {
    if (!a->n) {
        fprintf(f, "%-22s -\n", name);
        return;
    }
    fprintf(f, "%-22s avg %.1f ms (min %.0f, max %.0f; %zu)\n", name, a->sum / (double)a->n, a->min,
            a->max, a->n);
}

void czk_tl_summary_print(FILE *f, const czk_tl_summary *s) {
    fprintf(f, "%-22s %zu\n", "events", s->events);
    fprintf(f, "%-22s completed %zu, failed %zu, cancelled %zu\n", "jobs", s->completed, s->failed,
            s->cancelled);
    stat_print(f, "synthesis/partition", &s->synth);
    stat_print(f, "gpu/partition", &s->gpu);
    stat_print(f, "finalize/partition", &s->finalize);
    stat_print(f, "gpu queue wait", &s->gpu_queue_wait);
    for (size_t i = 0; i < s->num_devices; i++) {
        const czk_tl_device *d = &s->devices[i];
        char name[32];
        if (d->device == CZK_TL_NO_DEVICE)
            snprintf(name, sizeof name, "device ?");
        else if (d->device == -1) /* the CPU pseudo-device (the first of several) */
            snprintf(name, sizeof name, "device cpu");
        else if (d->device < 0) /* CPU pseudo-device k: ordinal -1 - k */
            snprintf(name, sizeof name, "device cpu %d", -1 - d->device);
        else
            snprintf(name, sizeof name, "device %d", d->device);
        uint64_t spanms = d->t1 - d->t0;
        fprintf(f,
                "%-22s busy %.1f%% of %llu ms; idle gaps %llu, total %llu ms, max %llu ms, mean "
                "%.1f ms\n",
                name, spanms ? 100.0 * (double)d->busy_ms / (double)spanms : 100.0,
                (unsigned long long)spanms, (unsigned long long)d->gaps,
                (unsigned long long)d->gap_total_ms, (unsigned long long)d->gap_max_ms,
                d->gaps ? (double)d->gap_total_ms / (double)d->gaps : 0.0);
    }
    if (s->has_wall) {
        double wall = (double)(s->last_done_ms - s->first_submit_ms) / 1000.0;
        fprintf(f, "%-22s %.3f s (first JOB_SUBMIT to last JOB_DONE)\n", "wall", wall);
        if (s->completed)
            fprintf(f, "%-22s %.3f\n", "s/proof", wall / (double)s->completed);
        else
            fprintf(f, "%-22s -\n", "s/proof");
    }
}
