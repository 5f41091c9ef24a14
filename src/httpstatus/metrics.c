/*
 * The engine's status snapshot (czk_engine_status_get) as Prometheus text:
 * the body of GET /metrics (src/httpstatus/httpstatus.c) and of the gRPC
 * GetMetrics (src/rpc/server.c), the same numbers under cuzk's metric names
 * where cuzk has one, so existing dashboards keep working.
 */
#include "czk/httpstatus.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) CZK_PRINTF(2, 3);
static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static const czk_engine_kind_counters *counters_by_label(const czk_engine_status *s,
                                                         const char *label) {
    for (size_t i = 0; i < s->num_kinds; i++)
        if (!strcmp(s->kinds[i].metric_label, label)) return &s->kinds[i];
    return NULL;
}

/* A label value, escaped as the exposition format wants (\\, \", \n). */
static void sb_label(sbuf *b, const char *v) {
    for (; *v; v++) {
        if (*v == '\\')
            sb_printf(b, "\\\\");
        else if (*v == '"')
            sb_printf(b, "\\\"");
        else if (*v == '\n')
            sb_printf(b, "\\n");
        else
            sb_printf(b, "%c", *v);
    }
}

static void family(sbuf *b, const char *name, const char *type, const char *help) {
    sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_u(sbuf *b, const char *name, uint64_t v) {
    sb_printf(b, "%s %llu\n", name, (unsigned long long)v);
}

/* A sample value of a double: integers without exponent, +Inf as the format spells it. */
static void sb_double(sbuf *b, double v) {
    if (v == INFINITY)
        sb_printf(b, "+Inf");
    else
        sb_printf(b, "%.17g", v);
}

/* The proof_kind labels cuzk's dashboards expect in cuzk_proofs_{completed,failed}
 * (cuzk-engine.md §2): a series each, served or not. */
static const char *const CUZK_LABELS[] = {"porep_c2", "snap_update", "window_post", "winning_post"};
#define NUM_CUZK_LABELS (sizeof CUZK_LABELS / sizeof CUZK_LABELS[0])

static bool cuzk_label(const char *label) {
    for (size_t i = 0; i < NUM_CUZK_LABELS; i++)
        if (!strcmp(CUZK_LABELS[i], label)) return true;
    return false;
}

/* One cuzk per-kind family: cuzk's four labels, then the other registered kinds'. */
static void cuzk_family(sbuf *b, const czk_engine_status *s, const char *name, bool failed) {
    for (size_t i = 0; i < NUM_CUZK_LABELS; i++) {
        const czk_engine_kind_counters *c = counters_by_label(s, CUZK_LABELS[i]);
        sb_printf(b, "%s{proof_kind=\"%s\"} %llu\n", name, CUZK_LABELS[i],
                  (unsigned long long)(c ? failed ? c->failed : c->completed : 0));
    }
    for (size_t i = 0; i < s->num_kinds; i++) {
        const czk_engine_kind_counters *c = &s->kinds[i];
        if (cuzk_label(c->metric_label)) continue;
        sb_printf(b, "%s{proof_kind=\"", name);
        sb_label(b, c->metric_label);
        sb_printf(b, "\"} %llu\n", (unsigned long long)(failed ? c->failed : c->completed));
    }
}

czk_status czk_metrics_format(const czk_engine_status *s, char **out, czk_err *err) {
    *out = NULL;
    sbuf b = {malloc(8192), 0, 8192, false};
    if (!b.p) b.oom = true;
    /* ---- cuzk's names ---- */
    family(&b, "cuzk_proofs_completed_total", "counter", "Proofs completed since start.");
    sample_u(&b, "cuzk_proofs_completed_total", s->proofs_completed);
    family(&b, "cuzk_proofs_failed_total", "counter", "Proofs failed since start.");
    sample_u(&b, "cuzk_proofs_failed_total", s->proofs_failed);
    family(&b, "cuzk_uptime_seconds", "gauge", "Seconds since the engine started.");
    sample_u(&b, "cuzk_uptime_seconds", s->uptime_ms / 1000);
    family(&b, "cuzk_queue_depth", "gauge", "Jobs queued or running.");
    sample_u(&b, "cuzk_queue_depth", (uint64_t)s->jobs_queued + s->jobs_running);
    family(&b, "cuzk_proofs_completed", "counter", "Proofs completed since start, per kind.");
    cuzk_family(&b, s, "cuzk_proofs_completed", false);
    family(&b, "cuzk_proofs_failed", "counter", "Proofs failed since start, per kind.");
    cuzk_family(&b, s, "cuzk_proofs_failed", true);
    family(&b, "cuzk_proof_duration_seconds", "summary",
           "Submit-to-completion time of the last (up to) 1000 completed proofs.");
    sb_printf(&b, "cuzk_proof_duration_seconds_sum ");
    sb_double(&b, s->recent_duration_sum_s);
    sb_printf(&b, "\ncuzk_proof_duration_seconds_count %llu\n",
              (unsigned long long)s->recent_durations);
    family(&b, "cuzk_running_jobs", "gauge", "Jobs with a partition started and not finished.");
    sample_u(&b, "cuzk_running_jobs", s->jobs_running);
    family(&b, "cuzk_gpu_workers", "gauge", "GPU workers (all devices).");
    sample_u(&b, "cuzk_gpu_workers", s->gpu_workers);

    /* ---- czk's own ---- */
    family(&b, "czk_proofs_total", "counter", "Proofs finished since start, per kind and outcome.");
    for (size_t i = 0; i < s->num_kinds; i++) {
        const czk_engine_kind_counters *c = &s->kinds[i];
        const char *k = c->metric_label;
        sb_printf(&b,
                  "czk_proofs_total{proof_kind=\"%s\",status=\"completed\"} %llu\n"
                  "czk_proofs_total{proof_kind=\"%s\",status=\"failed\"} %llu\n"
                  "czk_proofs_total{proof_kind=\"%s\",status=\"cancelled\"} %llu\n",
                  k, (unsigned long long)c->completed, k, (unsigned long long)c->failed, k,
                  (unsigned long long)c->cancelled);
    }
    family(&b, "czk_proof_duration_seconds", "histogram",
           "Submit-to-completion time of completed proofs since start, per kind.");
    for (size_t i = 0; i < s->num_kinds; i++) {
        const czk_engine_kind_counters *c = &s->kinds[i];
        const char *k = c->metric_label;
        uint64_t cum = 0;
        for (size_t j = 0; j <= CZK_DURATION_BUCKETS; j++) {
            cum += c->duration_buckets[j];
            sb_printf(&b, "czk_proof_duration_seconds_bucket{proof_kind=\"%s\",le=\"", k);
            sb_double(&b, czk_duration_bucket_le(j));
            sb_printf(&b, "\"} %llu\n", (unsigned long long)cum);
        }
        sb_printf(&b, "czk_proof_duration_seconds_sum{proof_kind=\"%s\"} ", k);
        sb_double(&b, c->duration_sum_s);
        sb_printf(&b, "\nczk_proof_duration_seconds_count{proof_kind=\"%s\"} %llu\n", k,
                  (unsigned long long)cum);
    }
    family(&b, "czk_queue_partitions", "gauge",
           "Partitions in flight per kind and stage (dispatched ones included).");
    for (size_t i = 0; i < s->num_queues; i++) {
        const czk_engine_queue_status *q = &s->queues[i];
        const char *k = czk_engine_status_kind_label(s, q->kind);
        const uint32_t v[6] = {q->pending,   q->synthesizing,   q->gpu_queue,
                               q->on_device, q->finalize_queue, q->finalizing};
        static const char *const st[6] = {"synth_queue", "synthesis",      "gpu_queue",
                                          "device",      "finalize_queue", "finalize"};
        for (int j = 0; j < 6; j++)
            sb_printf(&b, "czk_queue_partitions{proof_kind=\"%s\",stage=\"%s\"} %u\n", k, st[j],
                      v[j]);
    }
    family(&b, "czk_queue_jobs", "gauge",
           "Jobs queued, running or cancelling (work still stopping) per kind.");
    for (size_t i = 0; i < s->num_queues; i++) {
        const czk_engine_queue_status *q = &s->queues[i];
        const char *k = czk_engine_status_kind_label(s, q->kind);
        sb_printf(&b,
                  "czk_queue_jobs{proof_kind=\"%s\",state=\"queued\"} %u\n"
                  "czk_queue_jobs{proof_kind=\"%s\",state=\"running\"} %u\n"
                  "czk_queue_jobs{proof_kind=\"%s\",state=\"cancelling\"} %u\n",
                  k, q->jobs_queued, k, q->jobs_running, k, q->jobs_cancelling);
    }
    family(&b, "czk_partitions", "gauge", "Partitions in each pipeline stage (all kinds).");
    sb_printf(&b,
              "czk_partitions{stage=\"synth_queue\"} %u\nczk_partitions{stage=\"synthesis\"} %u\n"
              "czk_partitions{stage=\"gpu_queue\"} %u\nczk_partitions{stage=\"device\"} %u\n"
              "czk_partitions{stage=\"finalize_queue\"} %u\nczk_partitions{stage=\"finalize\"} "
              "%u\n",
              s->synth_queue, s->synthesizing, s->gpu_queue, s->on_device, s->finalize_queue,
              s->finalizing);
    family(
        &b, "czk_gpu_busy_ratio", "gauge",
        "Fraction of the uptime the device lock was held (device < 0: CPU pseudo-device -1 - d).");
    for (size_t i = 0; i < s->num_devices; i++) {
        const czk_engine_device_status *d = &s->devices[i];
        double r = s->uptime_ms ? (double)d->busy_ms / (double)s->uptime_ms : 0.0;
        sb_printf(&b, "czk_gpu_busy_ratio{device=\"%d\",name=\"", d->ordinal);
        sb_label(&b, d->name);
        sb_printf(&b, "\"} %.6f\n", r > 1.0 ? 1.0 : r);
    }
    family(&b, "czk_gpu_busy_seconds_total", "counter", "Seconds the device lock was held.");
    for (size_t i = 0; i < s->num_devices; i++)
        sb_printf(&b, "czk_gpu_busy_seconds_total{device=\"%d\"} %.3f\n", s->devices[i].ordinal,
                  (double)s->devices[i].busy_ms / 1000.0);
    family(&b, "czk_gpu_workers_busy", "gauge", "GPU workers holding a partition, per device.");
    for (size_t i = 0; i < s->num_devices; i++)
        sb_printf(&b, "czk_gpu_workers_busy{device=\"%d\"} %u\n", s->devices[i].ordinal,
                  s->devices[i].busy_workers);
    family(&b, "czk_gpu_partitions_proved_total", "counter", "Partitions proved per device.");
    for (size_t i = 0; i < s->num_devices; i++)
        sb_printf(&b, "czk_gpu_partitions_proved_total{device=\"%d\"} %llu\n",
                  s->devices[i].ordinal, (unsigned long long)s->devices[i].partitions_proved);
    family(&b, "czk_gpu_failed", "gauge",
           "1 when the device failed (its backend reported a device error): it takes no more "
           "work.");
    for (size_t i = 0; i < s->num_devices; i++)
        sb_printf(&b, "czk_gpu_failed{device=\"%d\"} %d\n", s->devices[i].ordinal,
                  s->devices[i].failed ? 1 : 0);
    family(&b, "czk_gpu_partitions_requeued_total", "counter",
           "Partitions a device handed back to the GPU queue when it failed.");
    for (size_t i = 0; i < s->num_devices; i++)
        sb_printf(&b, "czk_gpu_partitions_requeued_total{device=\"%d\"} %llu\n",
                  s->devices[i].ordinal, (unsigned long long)s->devices[i].partitions_requeued);
    family(&b, "czk_gpu_vram_bytes", "gauge",
           "Device memory, where the backend reports it (total and free).");
    for (size_t i = 0; i < s->num_devices; i++) {
        const czk_engine_device_status *d = &s->devices[i];
        if (!d->vram_known) continue;
        sb_printf(&b,
                  "czk_gpu_vram_bytes{device=\"%d\",kind=\"total\"} %llu\n"
                  "czk_gpu_vram_bytes{device=\"%d\",kind=\"free\"} %llu\n",
                  d->ordinal, (unsigned long long)d->vram_total_bytes, d->ordinal,
                  (unsigned long long)d->vram_free_bytes);
    }
    family(&b, "czk_memory_budget_bytes", "gauge",
           "The memory budget: total, used, and used by SRS, shapes, working memory and "
           "witness buffers.");
    sb_printf(&b,
              "czk_memory_budget_bytes{part=\"total\"} %llu\n"
              "czk_memory_budget_bytes{part=\"used\"} %llu\n"
              "czk_memory_budget_bytes{part=\"srs\"} %llu\n"
              "czk_memory_budget_bytes{part=\"shapes\"} %llu\n"
              "czk_memory_budget_bytes{part=\"working\"} %llu\n"
              "czk_memory_budget_bytes{part=\"witness_buffers\"} %llu\n",
              (unsigned long long)s->budget_total, (unsigned long long)s->budget_used,
              (unsigned long long)s->budget_srs, (unsigned long long)s->budget_shapes,
              (unsigned long long)s->budget_working, (unsigned long long)s->budget_witness_buffers);
    family(&b, "czk_memory_budget_info", "gauge",
           "Where the memory budget's total came from (memory.total_budget, MemTotal or a "
           "cgroup's memory.max, less memory.safety_margin).");
    sb_printf(&b, "czk_memory_budget_info{source=\"");
    sb_label(&b, s->budget_source);
    sb_printf(&b, "\"} 1\n");
    family(&b, "czk_process_resident_bytes", "gauge", "Resident set of the daemon.");
    sample_u(&b, "czk_process_resident_bytes", s->rss_bytes);
    family(&b, "czk_memory_total_bytes", "gauge", "The machine's memory (MemTotal).");
    sample_u(&b, "czk_memory_total_bytes", s->mem_total_bytes);
    family(&b, "czk_srs_bytes", "gauge",
           "Circuit parameters and shapes by tier (HOT in VRAM, WARM in host memory, COLD on "
           "disk).");
    for (size_t i = 0; i < s->num_srs; i++) {
        const czk_engine_srs_status *x = &s->srs[i];
        const char *part[3] = {"host", "device", "shape"};
        uint64_t v[3] = {x->size_bytes, x->device_bytes, x->shape_bytes};
        for (int j = 0; j < 3; j++) {
            sb_printf(&b, "czk_srs_bytes{circuit_id=\"");
            sb_label(&b, x->circuit_id);
            sb_printf(&b, "\",tier=\"%s\",part=\"%s\"} %llu\n", czk_srs_tier_name(x->tier), part[j],
                      (unsigned long long)v[j]);
        }
    }
    family(&b, "czk_srs_refs", "gauge", "Jobs holding a circuit's parameters.");
    for (size_t i = 0; i < s->num_srs; i++) {
        sb_printf(&b, "czk_srs_refs{circuit_id=\"");
        sb_label(&b, s->srs[i].circuit_id);
        sb_printf(&b, "\"} %u\n", s->srs[i].ref_count);
    }
    uint32_t busy[3] = {0, 0, 0}, all[3] = {0, 0, 0};
    for (size_t i = 0; i < s->num_workers; i++) {
        all[s->workers[i].role]++;
        busy[s->workers[i].role] += s->workers[i].busy;
    }
    family(&b, "czk_workers", "gauge", "Workers per role.");
    for (int r = 0; r < 3; r++)
        sb_printf(&b, "czk_workers{role=\"%s\"} %u\n", czk_worker_role_name((czk_worker_role)r),
                  all[r]);
    family(&b, "czk_workers_busy", "gauge", "Workers holding a partition, per role.");
    for (int r = 0; r < 3; r++)
        sb_printf(&b, "czk_workers_busy{role=\"%s\"} %u\n",
                  czk_worker_role_name((czk_worker_role)r), busy[r]);
    family(&b, "czk_verify_failures_total", "counter",
           "Assembled proofs that did not verify against the VK.");
    sample_u(&b, "czk_verify_failures_total", s->verify_failures);
    family(&b, "czk_partitions_synthesized_total", "counter", "Partitions synthesized.");
    sample_u(&b, "czk_partitions_synthesized_total", s->partitions_synthesized);
    family(&b, "czk_partitions_proved_total", "counter", "Partitions through the device stage.");
    sample_u(&b, "czk_partitions_proved_total", s->partitions_proved);
    family(&b, "czk_results_pruned_total", "counter", "Results dropped unfetched.");
    sample_u(&b, "czk_results_pruned_total", s->results_pruned);
    family(&b, "czk_results_stored", "gauge", "Finished jobs whose results are kept.");
    sample_u(&b, "czk_results_stored", s->results_stored);
    if (b.oom) {
        free(b.p);
        return czk_errf(err, CZK_ERR_NOMEM, "metrics: out of memory");
    }
    *out = b.p;
    return CZK_OK;
}

czk_status czk_metrics_text(czk_engine *e, char **out, czk_err *err) {
    *out = NULL;
    czk_engine_status *s;
    czk_status st = czk_engine_status_get(e, &s, err);
    if (st) return st;
    st = czk_metrics_format(s, out, err);
    czk_engine_status_free(s);
    return st;
}
