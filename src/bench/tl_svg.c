/*
 * The timeline picture (include/czk/timeline.h, czk_tl_svg): lanes of
 * workers, a bar per partition's stay coloured by job, device idle gaps,
 * an axis in seconds. Plain SVG 1.1, no script, no external fonts beyond
 * the generic sans-serif family, so that browsers and rsvg-convert draw it
 * alike.
 */
#include "czk/timeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t czk_tl_job_colour(size_t i) {
    /* distinct, none of them red (red marks idle gaps) nor grey (the lanes) */
    static const uint32_t PALETTE[12] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0x9467bd,
                                         0x8c564b, 0xe377c2, 0x17becf, 0xbcbd22,
                                         0x393b79, 0x637939, 0xa55194, 0x6b6ecf};
    if (i < 12) return PALETTE[i];
    /* golden-angle hues, saturation 0.55, value 0.8 */
    double h = fmod(30.0 + 137.508 * (double)(i - 12), 360.0) / 60.0;
    double v = 0.8, s = 0.55, c = v * s, x = c * (1 - fabs(fmod(h, 2.0) - 1)), m = v - c;
    double r = 0, g = 0, b = 0;
    switch ((int)h) {
    case 0:
        r = c, g = x;
        break;
    case 1:
        r = x, g = c;
        break;
    case 2:
        g = c, b = x;
        break;
    case 3:
        g = x, b = c;
        break;
    case 4:
        r = x, b = c;
        break;
    default:
        r = c, b = x;
        break;
    }
    return (uint32_t)lround((r + m) * 255) << 16 | (uint32_t)lround((g + m) * 255) << 8 |
           (uint32_t)lround((b + m) * 255);
}

/* Text for an attribute or element, XML-escaped. */
static void xml_text(FILE *f, const char *s) {
    for (; *s; s++)
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            if ((unsigned char)*s >= 0x20) fputc(*s, f);
        }
}

enum { K_SYNTH, K_GPU, K_IDLE, K_FINAL };

typedef struct lane {
    int kind, worker, device;
    double y; /* top */
    double h;
} lane;

typedef struct bar {
    size_t lane, job;
    int partition;
    uint64_t a, b;
    bool open;
    const char *what;
} bar;

typedef struct gspan {
    int device;
    uint64_t a, b;
} gspan;

static int cmp_lane(const void *x, const void *y) {
    const lane *p = x, *q = y;
    /* synthesis, then per device its GPU workers and idle strip, then finalizers */
    int gp = p->kind == K_GPU || p->kind == K_IDLE, gq = q->kind == K_GPU || q->kind == K_IDLE;
    int sp = p->kind == K_SYNTH ? 0 : gp ? 1 : 2, sq = q->kind == K_SYNTH ? 0 : gq ? 1 : 2;
    if (sp != sq) return sp - sq;
    if (gp && p->device != q->device) return p->device < q->device ? -1 : 1;
    if (p->kind != q->kind) return p->kind - q->kind;
    return p->worker - q->worker;
}

static int cmp_gspan(const void *x, const void *y) {
    const gspan *p = x, *q = y;
    if (p->device != q->device) return p->device < q->device ? -1 : 1;
    return p->a < q->a ? -1 : p->a > q->a;
}

typedef struct ctx {
    lane *lanes;
    size_t nl;
    const char **jobs;
    size_t nj;
    bar *bars;
    size_t nb;
    gspan *gs;
    size_t ng;
} ctx;

static size_t lane_of(ctx *c, int kind, int worker, int device) {
    for (size_t i = 0; i < c->nl; i++)
        if (c->lanes[i].kind == kind && c->lanes[i].worker == worker &&
            c->lanes[i].device == device)
            return i;
    c->lanes[c->nl] = (lane){kind, worker, device, 0, 0};
    return c->nl++;
}

static size_t job_of(ctx *c, const char *job) {
    for (size_t i = 0; i < c->nj; i++)
        if (!strcmp(c->jobs[i], job)) return i;
    c->jobs[c->nj] = job;
    return c->nj++;
}

static void lane_name(char *out, size_t cap, const lane *l) {
    char dev[16];
    if (l->device == -1)
        snprintf(dev, sizeof dev, "cpu");
    else if (l->device == CZK_TL_NO_DEVICE)
        snprintf(dev, sizeof dev, "?");
    else if (l->device < 0) /* CPU pseudo-device k */
        snprintf(dev, sizeof dev, "cpu %d", -1 - l->device);
    else
        snprintf(dev, sizeof dev, "%d", l->device);
    switch (l->kind) {
    case K_SYNTH:
        snprintf(out, cap, "synth %d", l->worker);
        break;
    case K_GPU:
        snprintf(out, cap, "gpu %d dev %s", l->worker, dev);
        break;
    case K_IDLE:
        snprintf(out, cap, "dev %s idle", dev);
        break;
    default:
        snprintf(out, cap, "final %d", l->worker);
        break;
    }
}

static czk_status collect(ctx *c, const czk_tl *tl, czk_err *err) {
    size_t n = tl->n;
    c->lanes = calloc(3 * n + 1, sizeof *c->lanes);
    c->jobs = calloc(n + 1, sizeof *c->jobs);
    c->bars = calloc(n + 1, sizeof *c->bars);
    c->gs = calloc(n + 1, sizeof *c->gs);
    if (!c->lanes || !c->jobs || !c->bars || !c->gs)
        return czk_errf(err, CZK_ERR_NOMEM, "timeline svg: %zu events", n);
    static const struct {
        const char *start, *end, *what;
        int kind;
    } PAIRS[] = {{"SYNTH_START", "SYNTH_END", "synthesis", K_SYNTH},
                 {"GPU_START", "GPU_END", "gpu", K_GPU},
                 {"FINALIZE_START", "FINALIZE_END", "finalize", K_FINAL}};
    const czk_tl_event *v = tl->ev;
    uint64_t t_end = n ? v[n - 1].ms : 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].job, "-")) job_of(c, v[i].job);
        for (size_t p = 0; p < sizeof PAIRS / sizeof PAIRS[0]; p++) {
            if (strcmp(v[i].ev, PAIRS[p].start)) continue;
            const czk_tl_event *e = NULL;
            for (size_t j = i + 1; j < n && !e; j++)
                if (!strcmp(v[j].ev, PAIRS[p].end) && !strcmp(v[j].job, v[i].job) &&
                    v[j].partition == v[i].partition)
                    e = &v[j];
            /* a start after which the same partition starts again unended: cut there */
            int worker = v[i].worker >= 0 ? v[i].worker : e && e->worker >= 0 ? e->worker : 0;
            int device = PAIRS[p].kind == K_GPU ? (v[i].device != CZK_TL_NO_DEVICE ? v[i].device
                                                   : e                             ? e->device
                                                       : CZK_TL_NO_DEVICE)
                                                : 0;
            size_t ln = lane_of(c, PAIRS[p].kind, worker, device);
            bar *b = &c->bars[c->nb++];
            *b = (bar){ln, job_of(c, v[i].job), v[i].partition, v[i].ms, e ? e->ms : t_end,
                       !e, PAIRS[p].what};
            if (PAIRS[p].kind == K_GPU) {
                lane_of(c, K_IDLE, -1, device);
                c->gs[c->ng++] = (gspan){device, b->a, b->b};
            }
        }
    }
    return CZK_OK;
}

static void fmt_tick(char *out, size_t cap, double s, double step) {
    int dec = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;
    snprintf(out, cap, "%.*f", dec, s);
}

czk_status czk_tl_svg(czk_tl *tl, FILE *f, const czk_tl_svg_opts *opts, czk_err *err) {
    czk_tl_summary sum;
    czk_status st = czk_tl_analyze(tl, &sum, err); /* sorts */
    if (st) return st;
    if (!tl->n) {
        czk_tl_summary_free(&sum);
        return czk_errf(err, CZK_ERR_INVALID_ARG, "timeline svg: no TIMELINE events");
    }
    ctx c = {0};
    st = collect(&c, tl, err);
    if (st) goto out;
    qsort(c.gs, c.ng, sizeof *c.gs, cmp_gspan);
    /* lanes sorted; bars refer to lanes by index, so sort a permutation */
    size_t *order = malloc((c.nl + 1) * sizeof *order);
    size_t *pos = malloc((c.nl + 1) * sizeof *pos);
    lane *sorted = malloc((c.nl + 1) * sizeof *sorted);
    if (!order || !pos || !sorted) {
        free(order), free(pos), free(sorted);
        st = czk_errf(err, CZK_ERR_NOMEM, "timeline svg: lanes");
        goto out;
    }
    memcpy(sorted, c.lanes, c.nl * sizeof *sorted);
    qsort(sorted, c.nl, sizeof *sorted, cmp_lane);
    for (size_t i = 0; i < c.nl; i++)
        for (size_t j = 0; j < c.nl; j++)
            if (!cmp_lane(&c.lanes[i], &sorted[j])) pos[i] = j;
    free(order);

    const double W = opts && opts->width >= 400 ? opts->width : 1200;
    const double L = 120, R = 24, LH = 20, IH = 12, GAP = 3, SEC = 10;
    const uint64_t t0 = tl->ev[0].ms;
    uint64_t t1 = tl->ev[tl->n - 1].ms;
    if (t1 <= t0) t1 = t0 + 1;
    const double pw = W - L - R;
#define XOF(t) (L + (double)((t)-t0) * pw / (double)(t1 - t0))
    /* legend rows */
    size_t shown = c.nj < 32 ? c.nj : 32;
    double lx = L, ly = 54;
    double *sx = malloc((shown + 1) * sizeof *sx), *sy = malloc((shown + 1) * sizeof *sy);
    if (!sx || !sy) {
        free(sx), free(sy), free(pos), free(sorted);
        st = czk_errf(err, CZK_ERR_NOMEM, "timeline svg: legend");
        goto out;
    }
    for (size_t i = 0; i < shown; i++) {
        double w = 18 + 7.0 * (double)strlen(c.jobs[i]);
        if (w > 260) w = 260;
        if (lx + w > W - R && lx > L) {
            lx = L;
            ly += 16;
        }
        sx[i] = lx;
        sy[i] = ly;
        lx += w + 12;
    }
    double y = ly + 22;
    for (size_t i = 0; i < c.nl; i++) {
        if (i && sorted[i].kind != sorted[i - 1].kind &&
            !(sorted[i].kind == K_IDLE && sorted[i - 1].kind == K_GPU))
            y += SEC;
        sorted[i].y = y;
        sorted[i].h = sorted[i].kind == K_IDLE ? IH : LH;
        y += sorted[i].h + GAP;
    }
    const double lanes_bottom = y;
    const double H = lanes_bottom + 44;

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
            "font-size=\"11\">\n",
            W, H, W, H);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", L);
    xml_text(f, opts && opts->title ? opts->title : "czk timeline");
    fprintf(f, "</text>\n");
    fprintf(f,
            "<text x=\"%.0f\" y=\"36\" fill=\"#444444\">%zu job%s (%zu completed, %zu failed), "
            "%zu bar%s; device busy %.1f%%, idle gaps %llu (%.3f s); span %.3f s</text>\n",
            L, c.nj, c.nj == 1 ? "" : "s", sum.completed, sum.failed, c.nb, c.nb == 1 ? "" : "s",
            sum.busy_pct, (unsigned long long)sum.gaps, (double)sum.gap_total_ms / 1000.0,
            (double)(t1 - t0) / 1000.0);
    /* legend */
    fprintf(f, "<g class=\"legend\">\n");
    for (size_t i = 0; i < shown; i++) {
        uint32_t col = czk_tl_job_colour(i);
        fprintf(f, "<rect class=\"swatch\" data-job=\"");
        xml_text(f, c.jobs[i]);
        fprintf(f,
                "\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"#%06x\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">",
                sx[i], sy[i] - 10, (unsigned)col, sx[i] + 16, sy[i]);
        xml_text(f, c.jobs[i]);
        fprintf(f, "</text>\n");
    }
    if (c.nj > shown)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#444444\">+%zu more jobs</text>\n", lx, ly,
                c.nj - shown);
    fprintf(f, "</g>\n");
    free(sx);
    free(sy);
    /* grid and axis */
    double span_s = (double)(t1 - t0) / 1000.0, raw = span_s / 10.0;
    double mag = pow(10.0, floor(log10(raw > 0 ? raw : 0.001)));
    double step = mag;
    if (raw > step) step = 2 * mag;
    if (raw > step) step = 5 * mag;
    if (raw > step) step = 10 * mag;
    fprintf(f, "<g class=\"axis\">\n");
    for (long k = 0; (double)k * step <= span_s * (1 + 1e-9); k++) {
        double s = (double)k * step, x = L + s * 1000.0 * pw / (double)(t1 - t0);
        char lab[32];
        fmt_tick(lab, sizeof lab, s, step);
        fprintf(f,
                "<line class=\"grid\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
                "stroke=\"#dddddd\" stroke-width=\"1\"/>\n",
                x, ly + 14, x, lanes_bottom);
        fprintf(f,
                "<line class=\"tick\" data-s=\"%s\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
                "y2=\"%.1f\" stroke=\"#000000\" stroke-width=\"1\"/>",
                lab, x, lanes_bottom, x, lanes_bottom + 5);
        fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
                lanes_bottom + 17, lab);
    }
    fprintf(f,
            "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000000\" "
            "stroke-width=\"1\"/>\n",
            L, lanes_bottom, W - R, lanes_bottom);
    fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"middle\">time (s)</text>\n", L + pw / 2,
            lanes_bottom + 34);
    fprintf(f, "</g>\n");
    /* lanes with their bars */
    for (size_t li = 0; li < c.nl; li++) {
        const lane *l = &sorted[li];
        char name[64];
        lane_name(name, sizeof name, l);
        fprintf(f, "<g class=\"lane\" data-lane=\"%s\">\n", name);
        fprintf(f,
                "<rect class=\"lane-bg\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" "
                "fill=\"%s\" fill-opacity=\"0.75\"/>",
                L, l->y, pw, l->h, l->kind == K_IDLE ? "#ffffff" : "#e8e8e8");
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\"%s>%s</text>\n", L - 6,
                l->y + l->h / 2 + 4, l->kind == K_IDLE ? " font-size=\"9\" fill=\"#c00000\"" : "",
                name);
        if (l->kind == K_IDLE) {
            /* the device's merged busy spans; the gaps between them */
            bool any = false;
            uint64_t cur_b = 0;
            for (size_t i = 0; i < c.ng; i++) {
                if (c.gs[i].device != l->device) continue;
                if (any && c.gs[i].a > cur_b) {
                    double xa = XOF(cur_b), xb = XOF(c.gs[i].a);
                    unsigned long long ms = (unsigned long long)(c.gs[i].a - cur_b);
                    fprintf(f,
                            "<rect class=\"gap\" data-device=\"%d\" data-ms=\"%llu\" x=\"%.2f\" "
                            "y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#e31a1c\">"
                            "<title>device idle %llu ms</title></rect>",
                            l->device, ms, xa, l->y, xb - xa > 1 ? xb - xa : 1, l->h, ms);
                    if (xb - xa >= 40)
                        fprintf(f,
                                "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\" "
                                "font-size=\"9\" fill=\"#ffffff\">%llu ms</text>",
                                (xa + xb) / 2, l->y + l->h - 3, ms);
                    fputc('\n', f);
                }
                if (!any || c.gs[i].b > cur_b) cur_b = c.gs[i].b;
                any = true;
            }
        }
        for (size_t i = 0; i < c.nb; i++) {
            const bar *b = &c.bars[i];
            if (pos[b->lane] != li) continue;
            double xa = XOF(b->a), xb = XOF(b->b);
            uint32_t col = czk_tl_job_colour(b->job);
            fprintf(f, "<rect class=\"bar%s\" data-job=\"", b->open ? " open" : "");
            xml_text(f, c.jobs[b->job]);
            fprintf(f,
                    "\" data-partition=\"%d\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
                    "height=\"%.1f\" fill=\"#%06x\" stroke=\"#ffffff\" stroke-width=\"0.5\">"
                    "<title>",
                    b->partition, xa, l->y + 2, xb - xa > 1 ? xb - xa : 1, l->h - 4, (unsigned)col);
            xml_text(f, c.jobs[b->job]);
            fprintf(f, " partition %d %s %llu ms%s</title></rect>\n", b->partition, b->what,
                    (unsigned long long)(b->b - b->a), b->open ? " (no end in the log)" : "");
        }
        fprintf(f, "</g>\n");
    }
    /* idle gaps shaded over the device's GPU lanes, on top, translucent */
    for (size_t li = 0; li < c.nl; li++) {
        const lane *l = &sorted[li];
        if (l->kind != K_IDLE) continue;
        double top = l->y, bottom = l->y;
        for (size_t k = 0; k < c.nl; k++)
            if (sorted[k].kind == K_GPU && sorted[k].device == l->device && sorted[k].y < top)
                top = sorted[k].y;
        bool any = false;
        uint64_t cur_b = 0;
        fprintf(f, "<g class=\"gap-shade\">");
        for (size_t i = 0; i < c.ng; i++) {
            if (c.gs[i].device != l->device) continue;
            if (any && c.gs[i].a > cur_b) {
                double xa = XOF(cur_b), xb = XOF(c.gs[i].a);
                fprintf(f,
                        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                        "fill=\"#e31a1c\" fill-opacity=\"0.12\"/>",
                        xa, top, xb - xa, bottom - top);
            }
            if (!any || c.gs[i].b > cur_b) cur_b = c.gs[i].b;
            any = true;
        }
        fprintf(f, "</g>\n");
    }
#undef XOF
    fprintf(f, "</svg>\n");
    free(pos);
    free(sorted);
    if (ferror(f)) st = czk_errf(err, CZK_ERR_IO, "timeline svg: write failed");
out:
    free(c.lanes);
    free(c.jobs);
    free(c.bars);
    free(c.gs);
    czk_tl_summary_free(&sum);
    return st;
}

czk_status czk_tl_svg_file(czk_tl *tl, const char *path, const czk_tl_svg_opts *opts,
                           czk_err *err) {
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    if (!tmp) return czk_errf(err, CZK_ERR_NOMEM, "timeline svg");
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        czk_status st =
            czk_errf(err, CZK_ERR_IO, "timeline svg: cannot write %s: %s", tmp, strerror(errno));
        free(tmp);
        return st;
    }
    czk_status st = czk_tl_svg(tl, f, opts, err);
    if (fclose(f) && !st) st = czk_errf(err, CZK_ERR_IO, "timeline svg: writing %s failed", tmp);
    if (!st && rename(tmp, path))
        st = czk_errf(err, CZK_ERR_IO, "timeline svg: rename to %s: %s", path, strerror(errno));
    if (st) remove(tmp);
    free(tmp);
    return st;
}
