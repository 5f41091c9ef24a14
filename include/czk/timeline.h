/*
 * czk — reading and analysing engine TIMELINE logs, and drawing them.
 *
 * The engine writes one line per state change of a partition or job
 * (include/czk/engine.h "Events"; cuzk-engine.md §4 "Instrumentation"):
 *   TIMELINE,<ms since engine start>,<EVENT>,<job>,partition=<k> worker=<w> [key=value...]
 * Lines may come out of order by a millisecond (several threads) and may be
 * mixed with other text; readers sort by the time field, then by line order.
 *
 * The analysis is the one cuzk's authors did by hand on such logs
 * (cuzk-engine.md §5 "GPU utilization and idle gaps come from analysing the
 * TIMELINE logs"): synthesis time per partition, device time per partition
 * (device lock held, summed over the partition's lock holds), finalization
 * and GPU-queue waits, per device the busy fraction (union of
 * GPU_START..GPU_END over the span from its first start to its last end) and
 * the idle gaps between busy stretches, and the wall time from the first
 * JOB_SUBMIT to the last JOB_DONE. `czk timeline` and `czk bench` print it.
 *
 * The picture (czk_tl_svg): one lane per synthesis worker, GPU worker and
 * finalizer, a bar per partition's stay on it coloured by job, the device's
 * idle gaps marked, and a time axis in seconds.
 */
#ifndef CZK_TIMELINE_H
#define CZK_TIMELINE_H

#include "czk/common.h"
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One parsed TIMELINE line. */
typedef struct czk_tl_event {
    uint64_t ms;     /* the time field: ms since the engine started */
    size_t seq;      /* order of the line in its source, to keep equal times in order */
    char ev[24];     /* "SYNTH_START", ... */
    char job[128];   /* "-" for events of no job */
    int partition;   /* -1 when absent or "-" */
    int worker;      /* -1 when absent or "-" */
    int device;      /* device=<d>: a CUDA index, or < 0 CPU pseudo-device -1 - d (-1 the
                        first); CZK_TL_NO_DEVICE when absent */
    long long value; /* synth_ms / gpu_ms / finalize_ms, -1 if absent */
    char status[16]; /* JOB_DONE status=, "" if absent */
} czk_tl_event;

#define CZK_TL_NO_DEVICE (-2147483647 - 1) /* INT_MIN: no device= field */

/* A growing list of events. Zero-initialize it (or czk_tl_init). */
typedef struct czk_tl {
    czk_tl_event *ev;
    size_t n, cap;
    size_t lines; /* lines offered, TIMELINE or not */
} czk_tl;

/* Empties tl (all zero). czk_tl_free frees its events and empties it; NULL is fine. */
void czk_tl_init(czk_tl *tl) CZK_NONNULL(1);
void czk_tl_free(czk_tl *tl);

/*
 * Parses one line (src/bench/tl_analyze.c). The record may follow other
 * text on the line, as in a mixed stderr log.
 * Out: *out  the event (fields absent from the line as documented in
 *            czk_tl_event; seq is the caller's); unspecified when false is
 *            returned.
 * Returns: true; false if the line holds no well-formed TIMELINE record.
 */
bool czk_tl_parse_line(const char *line, czk_tl_event *out) CZK_NONNULL(1, 2);

/*
 * Adds a line if it is a TIMELINE record, with seq = its line number in tl
 * (other lines are counted in tl->lines and skipped).
 * Returns: CZK_OK; CZK_ERR_NOMEM "timeline: N events" (the event not added).
 */
CZK_NODISCARD czk_status czk_tl_add_line(czk_tl *tl, const char *line, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * Adds every TIMELINE line of a file, read in lines of at most 4095 bytes
 * (a longer line is taken as several).
 * Returns: CZK_OK; CZK_ERR_IO "timeline: cannot open P: ..." or a read
 *   error; CZK_ERR_NOMEM (the lines before it stay added).
 */
CZK_NODISCARD czk_status czk_tl_read_file(czk_tl *tl, const char *path, czk_err *err)
    CZK_NONNULL(1, 2);

/* Sorts by time, then line order (seq). Never fails. */
void czk_tl_sort(czk_tl *tl) CZK_NONNULL(1);

/* count, sum, min, max of a set of durations in ms */
typedef struct czk_tl_stat {
    double sum, min, max;
    size_t n;
} czk_tl_stat;

static inline double czk_tl_stat_avg(const czk_tl_stat *s) {
    return s->n ? s->sum / (double)s->n : 0.0;
}

/* One device's busy time: the union of its GPU_START..GPU_END intervals. */
typedef struct czk_tl_device {
    int device;       /* as in the events (CZK_TL_NO_DEVICE: lines without device=) */
    uint64_t t0, t1;  /* first GPU_START, last GPU_END (ms) */
    uint64_t busy_ms; /* union of the lock holds */
    uint64_t gaps, gap_total_ms, gap_max_ms; /* idle stretches between busy ones */
} czk_tl_device;

typedef struct czk_tl_summary {
    size_t events;
    size_t completed, failed, cancelled; /* JOB_DONE status= counts */
    czk_tl_stat synth;          /* per partition: SYNTH_END synth_ms (else END − START) */
    czk_tl_stat gpu;            /* per partition: sum of its lock holds (gpu_ms) */
    czk_tl_stat finalize;       /* per partition: finalize_ms */
    czk_tl_stat gpu_queue_wait; /* GPU_QUEUE to GPU_PICKUP */
    czk_tl_device *devices;     /* in order of first appearance */
    size_t num_devices;
    /* over all devices */
    uint64_t busy_ms, span_ms, gaps, gap_total_ms;
    double busy_pct; /* 100 · busy / span (100 when span is 0; 0 with no device work) */
    bool has_wall;   /* a JOB_SUBMIT and a later JOB_DONE exist */
    uint64_t first_submit_ms, last_done_ms;
} czk_tl_summary;

/*
 * Sorts tl and summarizes it (the analysis described at the top).
 * Out: *out  the summary (czk_tl_summary_free: its devices array); zeroed
 *            first, freed again on failure.
 * Returns: CZK_OK (also for an empty tl); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_tl_analyze(czk_tl *tl, czk_tl_summary *out, czk_err *err)
    CZK_NONNULL(1, 2);
/* Frees the summary's devices array and clears it; NULL is fine. */
void czk_tl_summary_free(czk_tl_summary *s);

/*
 * Prints the summary as `czk timeline` does: one "name  value" line each for
 * events, jobs, synthesis/partition, gpu/partition, finalize/partition, gpu
 * queue wait, one per device (busy %, idle gaps), wall and s/proof (first
 * JOB_SUBMIT to last JOB_DONE over completed jobs, cuzk-bench's definition).
 * Write errors are not reported (check ferror(f)).
 */
void czk_tl_summary_print(FILE *f, const czk_tl_summary *s) CZK_NONNULL(1, 2);

/* Options of the picture. */
typedef struct czk_tl_svg_opts {
    unsigned width;    /* pixels (0: 1200) */
    const char *title; /* NULL: "czk timeline" */
} czk_tl_svg_opts;

/*
 * Draws tl (sorted here) as an SVG document on f:
 *   - lanes, top to bottom: synthesis workers ("synth <w>"), per device its
 *     GPU workers ("gpu <w> dev <d>") and an idle strip ("dev <d> idle"),
 *     finalizers ("final <w>");
 *   - one bar per START..END pair of a partition on its lane (a start with no
 *     end runs to the last event), filled with its job's colour (jobs in order
 *     of first appearance; czk_tl_job_colour), with a tooltip naming job,
 *     partition and ms;
 *   - each device's idle gaps shaded across its GPU lanes and drawn red in its
 *     idle strip, labelled in ms where wide enough;
 *   - a time axis in seconds from the first event, with a grid;
 *   - a legend of job colours (the first 32 jobs).
 * Machine-readable classes for tests and tools: <g class="lane" data-lane=NAME>
 * holding <rect class="lane-bg"> and its <rect class="bar" data-job data-partition>;
 * <rect class="gap" data-device data-ms>; <line class="tick" data-s> at each
 * axis tick; <rect class="swatch" data-job fill>.
 * Args: opts  may be NULL (the defaults).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "timeline svg: no TIMELINE events"
 *   if tl holds none; CZK_ERR_IO if writing fails (ferror(f)); CZK_ERR_NOMEM.
 *   On failure part of the document may have been written.
 */
CZK_NODISCARD czk_status czk_tl_svg(czk_tl *tl, FILE *f, const czk_tl_svg_opts *opts, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * czk_tl_svg into a file: written whole to "<path>.tmp", then renamed onto
 * path (removed on failure).
 * Returns: CZK_OK; czk_tl_svg's errors; CZK_ERR_IO naming the file (open,
 *   close, rename).
 */
CZK_NODISCARD czk_status czk_tl_svg_file(czk_tl *tl, const char *path, const czk_tl_svg_opts *opts,
                                         czk_err *err) CZK_NONNULL(1, 2);

/*
 * The fill colour of the i-th job (0-based, order of first appearance), as
 * 0xRRGGBB: 12 distinct hues, then further hues by the golden angle. Never
 * fails.
 */
uint32_t czk_tl_job_colour(size_t i);

#ifdef __cplusplus
}
#endif
#endif
