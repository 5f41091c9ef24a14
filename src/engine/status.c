/*
 * Status snapshots and metrics.
 *
 * A snapshot copies, under the engine mutex, everything a status page or
 * GetStatus needs (devices, SRS entries with their measured per-partition
 * memory, queues per kind counting dispatched partitions too — cuzk left
 * them out, cuzk-engine.md §8 — the budget split, the stage counts and the
 * counters) plus the recent timeline lines, so the caller can format it at
 * leisure. Metrics are the same numbers in Prometheus text, under cuzk's
 * metric names where cuzk has one, so existing dashboards keep working.
 */
#include "engine/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

czk_status czk_engine_status_get(czk_engine *e, czk_engine_status **out, czk_err *err) {
    *out = NULL;
    czk_engine_status *s = calloc(1, sizeof *s);
    if (!s) return czk_errf(err, CZK_ERR_NOMEM, "status: out of memory");
    pthread_mutex_lock(&e->mu);
    size_t nsrs = 0;
    for (srs_entry *x = e->srs; x; x = x->next)
        nsrs++;
    s->devices = calloc((size_t)e->num_devices + 1, sizeof *s->devices);
    s->srs = calloc(nsrs + 1, sizeof *s->srs);
    s->queues = calloc((size_t)e->num_kinds + 1, sizeof *s->queues);
    if (!s->devices || !s->srs || !s->queues) {
        pthread_mutex_unlock(&e->mu);
        czk_engine_status_free(s);
        return czk_errf(err, CZK_ERR_NOMEM, "status: out of memory");
    }
    uint64_t now = czk_engine_ms(e);
    for (int i = 0; i < e->num_devices; i++) {
        const czk_device *d = &e->devices[i];
        czk_engine_device_status *o = &s->devices[s->num_devices++];
        o->ordinal = d->ordinal;
        snprintf(o->name, sizeof o->name, "%s", d->name);
        o->workers = d->workers;
        o->busy_workers = d->busy;
        snprintf(o->current_job_id, sizeof o->current_job_id, "%s", d->current_job);
        o->current_kind = d->current_job[0] ? d->current_kind : CZK_KIND_UNSPECIFIED;
        o->partitions_proved = d->proved;
        o->busy_ms = d->busy_ms;
    }
    for (srs_entry *x = e->srs; x; x = x->next) {
        if (x->state == SRS_FAILED) continue;
        czk_engine_srs_status *o = &s->srs[s->num_srs++];
        snprintf(o->circuit_id, sizeof o->circuit_id, "%s", x->id);
        o->tier = x->state == SRS_READY ? CZK_SRS_HOT : CZK_SRS_WARM;
        o->size_bytes = x->reserved;
        o->device_bytes = x->device_bytes;
        o->shape_bytes = x->shape_bytes;
        o->partition_bytes = x->part_bytes;
        o->ref_count = x->refs;
        o->idle_ms = x->refs ? 0 : now - x->idle_since;
        s->pinned_memory_bytes += x->state == SRS_READY ? x->reserved : 0;
    }
    for (int k = 0; k < e->num_kinds; k++) {
        uint32_t pending = 0, prog = 0;
        czk_item *qs[3] = {e->synth_q, e->gpu_q, e->fin_q};
        for (czk_item *it = qs[0]; it; it = it->next)
            if (it->job->kind == k) pending++;
        for (czk_job *j = e->jobs; j; j = j->next)
            if (j->kind == k && j->state == CZK_JOB_RUNNING) {
                uint32_t queued = 0;
                for (czk_item *it = qs[0]; it; it = it->next)
                    if (it->job == j) queued++;
                prog += j->info.num_partitions - j->n_final - queued;
            }
        if (!pending && !prog) continue;
        czk_engine_queue_status *q = &s->queues[s->num_queues++];
        q->kind = e->kinds[k].id;
        q->pending = pending;
        q->in_progress = prog;
    }
    s->uptime_ms = now;
    s->budget_total = e->budget.total;
    s->budget_srs = e->budget.srs;
    s->budget_shapes = e->budget.shapes;
    s->budget_working = e->budget.working;
    s->budget_used = czk_budget_used(&e->budget);
    s->pinned_memory_limit_bytes = e->budget.total;
    s->synth_queue = e->n_synth_q;
    s->synthesizing = e->n_synth;
    s->gpu_queue = e->n_gpu_q;
    s->on_device = e->n_gpu;
    s->finalize_queue = e->n_fin_q;
    s->finalizing = e->n_fin;
    s->synth_workers = (uint32_t)e->num_synth_workers;
    s->gpu_workers = (uint32_t)e->num_gpu_workers;
    s->finalize_workers = (uint32_t)e->num_fin_workers;
    for (czk_job *j = e->jobs; j; j = j->next) {
        if (j->state == CZK_JOB_QUEUED)
            s->jobs_queued++;
        else if (j->state == CZK_JOB_RUNNING)
            s->jobs_running++;
        else
            s->results_stored++;
    }
    for (int k = 0; k < CZK_KIND_MAX; k++) {
        s->proofs_completed += e->c_completed[k];
        s->proofs_failed += e->c_failed[k];
    }
    s->proofs_cancelled = e->c_cancelled;
    s->verify_failures = e->c_verify_failures;
    s->partitions_synthesized = e->c_synthesized;
    s->partitions_proved = e->c_proved;
    s->results_pruned = e->c_pruned;
    pthread_mutex_unlock(&e->mu);
    if (czk_timeline_copy(e, &s->timeline, &s->num_timeline)) {
        czk_engine_status_free(s);
        return czk_errf(err, CZK_ERR_NOMEM, "status: out of memory");
    }
    *out = s;
    return CZK_OK;
}

void czk_engine_status_free(czk_engine_status *s) {
    if (!s) return;
    free(s->devices);
    free(s->srs);
    free(s->queues);
    for (size_t i = 0; s->timeline && i < s->num_timeline; i++)
        free(s->timeline[i]);
    free(s->timeline);
    free(s);
}

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

static const char *metric_kind(czk_kind_id k) {
    switch (k) {
    case CZK_KIND_POREP_C2:
        return "porep_c2";
    case CZK_KIND_SNAP_UPDATE:
        return "snap_update";
    case CZK_KIND_WINDOW_POST:
        return "window_post";
    case CZK_KIND_WINNING_POST:
        return "winning_post";
    case CZK_KIND_TEST:
        return "test";
    default:
        return "unspecified";
    }
}

czk_status czk_engine_metrics(czk_engine *e, char **out, czk_err *err) {
    *out = NULL;
    czk_engine_status *s;
    czk_status st = czk_engine_status_get(e, &s, err);
    if (st) return st;
    sbuf b = {malloc(4096), 0, 4096, false};
    if (!b.p) b.oom = true;
    uint64_t dn = 0;
    double dsum = 0;
    uint64_t per_ok[CZK_KIND_MAX], per_fail[CZK_KIND_MAX];
    pthread_mutex_lock(&e->mu);
    dn = e->n_durations < ENGINE_DURATIONS ? e->n_durations : ENGINE_DURATIONS;
    for (uint64_t i = 0; i < dn; i++)
        dsum += e->durations[i];
    memcpy(per_ok, e->c_completed, sizeof per_ok);
    memcpy(per_fail, e->c_failed, sizeof per_fail);
    pthread_mutex_unlock(&e->mu);
    sb_printf(&b, "# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total %llu\n",
              (unsigned long long)s->proofs_completed);
    sb_printf(&b, "# TYPE cuzk_proofs_failed_total counter\ncuzk_proofs_failed_total %llu\n",
              (unsigned long long)s->proofs_failed);
    sb_printf(&b, "# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds %llu\n",
              (unsigned long long)(s->uptime_ms / 1000));
    sb_printf(&b, "# TYPE cuzk_queue_depth gauge\ncuzk_queue_depth %u\n",
              s->jobs_queued + s->jobs_running);
    static const czk_kind_id kinds[] = {CZK_KIND_POREP_C2, CZK_KIND_SNAP_UPDATE,
                                        CZK_KIND_WINDOW_POST, CZK_KIND_WINNING_POST, CZK_KIND_TEST};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        sb_printf(&b, "cuzk_proofs_completed{proof_kind=\"%s\"} %llu\n", metric_kind(kinds[i]),
                  (unsigned long long)per_ok[kinds[i]]);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        sb_printf(&b, "cuzk_proofs_failed{proof_kind=\"%s\"} %llu\n", metric_kind(kinds[i]),
                  (unsigned long long)per_fail[kinds[i]]);
    sb_printf(&b, "cuzk_proof_duration_seconds_count %llu\ncuzk_proof_duration_seconds_sum %.3f\n",
              (unsigned long long)dn, dsum);
    sb_printf(&b, "cuzk_running_jobs %u\ncuzk_gpu_workers %u\n", s->jobs_running, s->gpu_workers);
    sb_printf(&b, "czk_proofs_cancelled_total %llu\nczk_verify_failures_total %llu\n",
              (unsigned long long)s->proofs_cancelled, (unsigned long long)s->verify_failures);
    sb_printf(&b, "czk_partitions_synthesized_total %llu\nczk_partitions_proved_total %llu\n",
              (unsigned long long)s->partitions_synthesized,
              (unsigned long long)s->partitions_proved);
    sb_printf(&b, "czk_results_pruned_total %llu\nczk_results_stored %u\n",
              (unsigned long long)s->results_pruned, s->results_stored);
    sb_printf(&b,
              "czk_budget_bytes{part=\"total\"} %llu\nczk_budget_bytes{part=\"srs\"} %llu\n"
              "czk_budget_bytes{part=\"shapes\"} %llu\nczk_budget_bytes{part=\"working\"} %llu\n",
              (unsigned long long)s->budget_total, (unsigned long long)s->budget_srs,
              (unsigned long long)s->budget_shapes, (unsigned long long)s->budget_working);
    sb_printf(&b,
              "czk_partitions{stage=\"synth_queue\"} %u\nczk_partitions{stage=\"synthesis\"} %u\n"
              "czk_partitions{stage=\"gpu_queue\"} %u\nczk_partitions{stage=\"device\"} %u\n"
              "czk_partitions{stage=\"finalize_queue\"} %u\nczk_partitions{stage=\"finalize\"} "
              "%u\n",
              s->synth_queue, s->synthesizing, s->gpu_queue, s->on_device, s->finalize_queue,
              s->finalizing);
    for (size_t i = 0; i < s->num_devices; i++)
        sb_printf(&b, "czk_device_busy_seconds{device=\"%d\"} %.3f\n", s->devices[i].ordinal,
                  (double)s->devices[i].busy_ms / 1000.0);
    czk_engine_status_free(s);
    if (b.oom) {
        free(b.p);
        return czk_errf(err, CZK_ERR_NOMEM, "metrics: out of memory");
    }
    *out = b.p;
    return CZK_OK;
}
