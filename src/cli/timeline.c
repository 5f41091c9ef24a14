/*
 * `czk timeline LOG`: summarizes the TIMELINE lines of an engine log (the
 * logging.timeline_file, or any log that holds such lines, in any order):
 * synthesis time per partition, device time per partition (device lock
 * held), finalization and GPU-queue waits, per device the busy fraction
 * (union of GPU_START..GPU_END over the span from the first start to the
 * last end) and the idle gaps between busy stretches, and s/proof = wall
 * time from the first JOB_SUBMIT to the last JOB_DONE over completed jobs
 * (cuzk-bench's definition, cuzk-engine.md §5).
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct tl_ev {
    uint64_t ms;
    size_t seq; /* line order, to keep equal times in order */
    char ev[24];
    char job[128];
    int partition, device;
    long long value; /* synth_ms / gpu_ms / finalize_ms, -1 if absent */
    char status[16];
} tl_ev;

typedef struct span {
    uint64_t a, b;
} span;

static int cmp_ev(const void *x, const void *y) {
    const tl_ev *p = x, *q = y;
    if (p->ms != q->ms) return p->ms < q->ms ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

static int cmp_span(const void *x, const void *y) {
    const span *p = x, *q = y;
    return p->a < q->a ? -1 : p->a > q->a;
}

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

static bool parse_line(const char *line, tl_ev *out) {
    const char *p = strstr(line, "TIMELINE,");
    if (!p) return false;
    p += 9;
    char *end;
    unsigned long long ms = strtoull(p, &end, 10);
    if (end == p || *end != ',') return false;
    p = end + 1;
    const char *c = strchr(p, ',');
    if (!c || (size_t)(c - p) >= sizeof out->ev) return false;
    memcpy(out->ev, p, (size_t)(c - p));
    out->ev[c - p] = 0;
    p = c + 1;
    c = strchr(p, ',');
    if (!c || (size_t)(c - p) >= sizeof out->job) return false;
    memcpy(out->job, p, (size_t)(c - p));
    out->job[c - p] = 0;
    const char *rest = c + 1;
    out->ms = ms;
    long long part = field(rest, "partition");
    out->partition = part < 0 ? -1 : (int)part;
    long long dev = field(rest, "device");
    out->device = dev < 0 && !strstr(rest, "device=-1") ? -2 : (int)dev;
    out->value = field(rest, "synth_ms");
    if (out->value < 0) out->value = field(rest, "gpu_ms");
    if (out->value < 0) out->value = field(rest, "finalize_ms");
    out->status[0] = 0;
    const char *st = strstr(rest, "status=");
    if (st) sscanf(st + 7, "%15[A-Z]", out->status);
    return true;
}

typedef struct stat_acc {
    double sum, min, max;
    size_t n;
} stat_acc;

static void acc_add(stat_acc *a, double v) {
    if (!a->n || v < a->min) a->min = v;
    if (!a->n || v > a->max) a->max = v;
    a->sum += v;
    a->n++;
}

static void acc_print(const char *name, const stat_acc *a) {
    if (!a->n) {
        printf("%-22s -\n", name);
        return;
    }
    printf("%-22s avg %.1f ms (min %.0f, max %.0f; %zu)\n", name, a->sum / (double)a->n, a->min,
           a->max, a->n);
}

/* The start event matching an end: same job and partition, latest before it. */
static const tl_ev *match_start(const tl_ev *v, size_t i, const char *start) {
    for (size_t j = i; j-- > 0;)
        if (!strcmp(v[j].ev, start) && !strcmp(v[j].job, v[i].job) &&
            v[j].partition == v[i].partition)
            return &v[j];
    return NULL;
}

int czk_cmd_timeline(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv) || argc != 2) {
        FILE *f = argc == 2 ? stdout : stderr;
        fprintf(f, "usage: czk timeline LOG\n\n"
                   "Summarizes the TIMELINE lines of a czk engine log (logging.timeline_file):\n"
                   "synthesis and device time per partition, device busy fraction and idle gaps,\n"
                   "and s/proof (first JOB_SUBMIT to last JOB_DONE over completed jobs).\n");
        return argc == 2 ? CZK_EXIT_OK : CZK_EXIT_ERROR;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) return czk_cli_fail("timeline", "cannot open %s", argv[1]);
    size_t n = 0, cap = 1024;
    tl_ev *v = malloc(cap * sizeof *v);
    char line[4096];
    while (v && fgets(line, sizeof line, f)) {
        if (n == cap) {
            tl_ev *nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv) {
                free(v);
                v = NULL;
                break;
            }
            v = nv;
            cap *= 2;
        }
        if (parse_line(line, &v[n])) {
            v[n].seq = n;
            n++;
        }
    }
    fclose(f);
    if (!v) return czk_cli_fail("timeline", "out of memory");
    if (!n) {
        free(v);
        return czk_cli_fail("timeline", "%s holds no TIMELINE lines", argv[1]);
    }
    qsort(v, n, sizeof *v, cmp_ev);

    stat_acc synth = {0}, gpu = {0}, fin = {0}, qwait = {0};
    size_t completed = 0, failed = 0, cancelled = 0;
    uint64_t first_submit = UINT64_MAX, last_done = 0;
    span *busy = malloc(n * sizeof *busy);
    int *busy_dev = malloc(n * sizeof *busy_dev);
    size_t nb = 0;
    if (!busy || !busy_dev) {
        free(v), free(busy), free(busy_dev);
        return czk_cli_fail("timeline", "out of memory");
    }
    /* GPU time per partition: a backend may take the lock more than once per partition */
    typedef struct pgpu {
        const char *job;
        int partition;
        double ms;
    } pgpu;
    pgpu *pg = malloc(n * sizeof *pg);
    size_t npg = 0;
    for (size_t i = 0; pg && i < n; i++) {
        const tl_ev *e = &v[i];
        if (!strcmp(e->ev, "JOB_SUBMIT") && e->ms < first_submit) first_submit = e->ms;
        if (!strcmp(e->ev, "JOB_DONE")) {
            if (e->ms > last_done) last_done = e->ms;
            if (!strcmp(e->status, "COMPLETED"))
                completed++;
            else if (!strcmp(e->status, "FAILED"))
                failed++;
            else if (!strcmp(e->status, "CANCELLED"))
                cancelled++;
        }
        if (!strcmp(e->ev, "SYNTH_END")) {
            const tl_ev *s = match_start(v, i, "SYNTH_START");
            if (e->value >= 0)
                acc_add(&synth, (double)e->value);
            else if (s)
                acc_add(&synth, (double)(e->ms - s->ms));
        }
        if (!strcmp(e->ev, "FINALIZE_END")) {
            const tl_ev *s = match_start(v, i, "FINALIZE_START");
            if (e->value >= 0)
                acc_add(&fin, (double)e->value);
            else if (s)
                acc_add(&fin, (double)(e->ms - s->ms));
        }
        if (!strcmp(e->ev, "GPU_PICKUP")) {
            const tl_ev *s = match_start(v, i, "GPU_QUEUE");
            if (s) acc_add(&qwait, (double)(e->ms - s->ms));
        }
        if (!strcmp(e->ev, "GPU_END")) {
            const tl_ev *s = match_start(v, i, "GPU_START");
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
    for (size_t k = 0; pg && k < npg; k++)
        acc_add(&gpu, pg[k].ms);
    free(pg);

    printf("%-22s %zu\n", "events", n);
    printf("%-22s completed %zu, failed %zu, cancelled %zu\n", "jobs", completed, failed,
           cancelled);
    acc_print("synthesis/partition", &synth);
    acc_print("gpu/partition", &gpu);
    acc_print("finalize/partition", &fin);
    acc_print("gpu queue wait", &qwait);
    /* per device: busy union and idle gaps */
    bool *done = calloc(nb ? nb : 1, sizeof *done);
    span *d = malloc((nb ? nb : 1) * sizeof *d);
    for (size_t i = 0; done && d && i < nb; i++) {
        if (done[i]) continue;
        int dev = busy_dev[i];
        size_t m = 0;
        for (size_t j = i; j < nb; j++)
            if (!done[j] && busy_dev[j] == dev) {
                done[j] = true;
                d[m++] = busy[j];
            }
        qsort(d, m, sizeof *d, cmp_span);
        uint64_t t0 = d[0].a, t1 = d[0].b, cur_a = d[0].a, cur_b = d[0].b, busy_ms = 0;
        uint64_t gaps = 0, gap_total = 0, gap_max = 0;
        for (size_t j = 1; j < m; j++) {
            if (d[j].b > t1) t1 = d[j].b;
            if (d[j].a <= cur_b) {
                if (d[j].b > cur_b) cur_b = d[j].b;
                continue;
            }
            busy_ms += cur_b - cur_a;
            uint64_t g = d[j].a - cur_b;
            gaps++;
            gap_total += g;
            if (g > gap_max) gap_max = g;
            cur_a = d[j].a;
            cur_b = d[j].b;
        }
        busy_ms += cur_b - cur_a;
        uint64_t spanms = t1 - t0;
        char name[32];
        if (dev == -2)
            snprintf(name, sizeof name, "device ?");
        else
            snprintf(name, sizeof name, "device %d", dev);
        printf("%-22s busy %.1f%% of %llu ms; idle gaps %llu, total %llu ms, max %llu ms, mean "
               "%.1f ms\n",
               name, spanms ? 100.0 * (double)busy_ms / (double)spanms : 100.0,
               (unsigned long long)spanms, (unsigned long long)gaps, (unsigned long long)gap_total,
               (unsigned long long)gap_max, gaps ? (double)gap_total / (double)gaps : 0.0);
    }
    free(done);
    free(d);
    free(busy);
    free(busy_dev);
    if (first_submit != UINT64_MAX && last_done >= first_submit) {
        double wall = (double)(last_done - first_submit) / 1000.0;
        printf("%-22s %.3f s (first JOB_SUBMIT to last JOB_DONE)\n", "wall", wall);
        if (completed)
            printf("%-22s %.3f\n", "s/proof", wall / (double)completed);
        else
            printf("%-22s -\n", "s/proof");
    }
    free(v);
    return CZK_EXIT_OK;
}
