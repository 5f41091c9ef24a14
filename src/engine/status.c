/*
 * Status snapshots and metrics.
 *
 * A snapshot copies, under the engine mutex, everything a status page or
 * GetStatus needs (devices, SRS entries with their measured per-partition
 * memory, queues per kind counting dispatched partitions too — cuzk left
 * them out, cuzk-engine.md §8 — the jobs in flight, cancelling ones
 * included until their work has stopped, the budget split, the stage counts
 * and the counters) plus the recent timeline lines, so the caller can format it at
 * leisure: the server layer renders it (src/httpstatus: the Prometheus text,
 * czk_metrics_format, and the /status JSON, czk_status_page_json).
 */
#include "engine/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *czk_srs_tier_name(czk_srs_tier t) {
    switch (t) {
    case CZK_SRS_HOT:
        return "HOT";
    case CZK_SRS_WARM:
        return "WARM";
    case CZK_SRS_COLD:
        return "COLD";
    }
    return "UNKNOWN";
}

const char *czk_partition_stage_name(czk_partition_stage s) {
    static const char *const names[CZK_STAGE_COUNT] = {"synth_queue", "synthesis",      "gpu_queue",
                                                       "device",      "finalize_queue", "finalize",
                                                       "assembly"};
    return (unsigned)s < CZK_STAGE_COUNT ? names[s] : "unknown";
}

const char *czk_worker_role_name(czk_worker_role r) {
    switch (r) {
    case CZK_WORKER_SYNTHESIS:
        return "synthesis";
    case CZK_WORKER_GPU:
        return "gpu";
    case CZK_WORKER_FINALIZE:
        return "finalize";
    }
    return "unknown";
}

/* Seconds: from a test proof on the CPU (a fraction of a second) to a 32GiB
 * PoRep on a GPU (30 s to minutes) and on the CPU (an hour). */
static const double DURATION_LE[CZK_DURATION_BUCKETS] = {
    0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1800, 3600};

double czk_duration_bucket_le(size_t i) {
    return i < CZK_DURATION_BUCKETS ? DURATION_LE[i] : INFINITY;
}

_Static_assert((int)IT_SYNTH_QUEUE == (int)CZK_STAGE_SYNTH_QUEUE &&
                   (int)IT_SYNTH == (int)CZK_STAGE_SYNTHESIS &&
                   (int)IT_GPU_QUEUE == (int)CZK_STAGE_GPU_QUEUE &&
                   (int)IT_GPU == (int)CZK_STAGE_DEVICE &&
                   (int)IT_FIN_QUEUE == (int)CZK_STAGE_FINALIZE_QUEUE &&
                   (int)IT_FIN == (int)CZK_STAGE_FINALIZE &&
                   (int)IT_ASSEMBLE == (int)CZK_STAGE_ASSEMBLY,
               "item stages and public partition stages are numbered alike");

/* One partition entry from an item (mu held). */
static void put_partition(czk_engine *e, czk_engine_status *s, const czk_item *it, int worker,
                          uint64_t now) {
    czk_engine_partition_status *o = &s->partitions[s->num_partitions++];
    const czk_job *j = it->job;
    snprintf(o->job_id, sizeof o->job_id, "%s", j->id);
    o->kind = czk_engine_kind(e, j->kind)->id;
    o->partition = it->k;
    o->partitions = j->info.num_partitions;
    o->stage = (czk_partition_stage)it->stage;
    o->worker = worker;
    o->device = -1;
    o->stage_ms = now > it->since ? now - it->since : 0;
    o->age_ms = now > j->submit_ms ? now - j->submit_ms : 0;
}

/* One worker's line, and the partition it holds (returned, NULL when idle). */
static czk_engine_partition_status *put_worker(czk_engine *e, czk_engine_status *s,
                                               czk_worker_role role, int index, int device,
                                               const czk_item *item, uint64_t now) {
    czk_engine_worker_status *o = &s->workers[s->num_workers++];
    o->role = role;
    o->index = index;
    o->device = device;
    if (!item) return NULL;
    put_partition(e, s, item, index, now);
    o->busy = true;
    snprintf(o->job_id, sizeof o->job_id, "%s", item->job->id);
    o->partition = item->k;
    o->busy_ms = now > item->since ? now - item->since : 0;
    return &s->partitions[s->num_partitions - 1];
}

static int cmp_partition(const void *pa, const void *pb) {
    const czk_engine_partition_status *a = pa, *b = pb;
    if (a->age_ms != b->age_ms) return a->age_ms > b->age_ms ? -1 : 1; /* oldest job first */
    int c = strcmp(a->job_id, b->job_id);
    if (c) return c;
    return a->partition < b->partition ? -1 : a->partition > b->partition;
}

/* A job of the snapshot's list: not finished, or finished with partitions still stopping. */
static bool job_in_flight(const czk_job *j) {
    return j->inflight || (j->state != CZK_JOB_COMPLETED && j->state != CZK_JOB_FAILED &&
                           j->state != CZK_JOB_CANCELLED);
}

static czk_engine_queue_status *queue_of(czk_engine_status *s, czk_kind_id kind) {
    for (size_t i = 0; i < s->num_queues; i++)
        if (s->queues[i].kind == kind) return &s->queues[i];
    czk_engine_queue_status *q = &s->queues[s->num_queues++];
    memset(q, 0, sizeof *q);
    q->kind = kind;
    return q;
}

czk_status czk_engine_status_get(czk_engine *e, czk_engine_status **out, czk_err *err) {
    *out = NULL;
    czk_engine_status *s = calloc(1, sizeof *s);
    if (!s) return czk_errf(err, CZK_ERR_NOMEM, "status: out of memory");
    uint64_t rss = czk_rss_bytes(), mem_total = czk_mem_total();
    pthread_mutex_lock(&e->mu);
    size_t nsrs = 0;
    for (srs_entry *x = e->srs; x; x = x->next)
        nsrs++;
    size_t nparts = (size_t)e->n_synth_q + e->n_gpu_q + e->n_fin_q + (size_t)e->num_synth_workers +
                    e->num_gpu_workers + e->num_fin_workers;
    size_t nworkers =
        (size_t)e->num_synth_workers + (size_t)e->num_gpu_workers + (size_t)e->num_fin_workers;
    s->devices = calloc((size_t)e->num_devices + 1, sizeof *s->devices);
    s->srs = calloc(nsrs + e->cfg.num_preload + 1, sizeof *s->srs);
    s->queues = calloc((size_t)e->num_kinds + 1, sizeof *s->queues);
    s->partitions = calloc(nparts + 1, sizeof *s->partitions);
    s->workers = calloc(nworkers + 1, sizeof *s->workers);
    s->kinds = calloc((size_t)e->num_kinds + 1, sizeof *s->kinds);
    size_t njobs = 0;
    for (const czk_job *j = e->jobs; j; j = j->next)
        njobs += job_in_flight(j);
    s->jobs = calloc(njobs + 1, sizeof *s->jobs);
    if (!s->devices || !s->srs || !s->queues || !s->partitions || !s->workers || !s->kinds ||
        !s->jobs) {
        pthread_mutex_unlock(&e->mu);
        czk_engine_status_free(s);
        return czk_errf(err, CZK_ERR_NOMEM, "status: out of memory");
    }
    uint64_t now = czk_engine_ms(e);
    for (int i = 0; i < e->num_devices; i++) {
        const czk_device *d = &e->devices[i];
        czk_engine_device_status *o = &s->devices[s->num_devices++];
        o->index = d->index;
        o->ordinal = d->ordinal;
        snprintf(o->name, sizeof o->name, "%s", d->name);
        o->identity = d->id;
        o->failed = d->failed;
        snprintf(o->error, sizeof o->error, "%s", d->fail_msg);
        o->failed_ms = d->fail_ms;
        o->partitions_requeued = d->requeued;
        o->workers = d->workers;
        o->busy_workers = d->busy;
        snprintf(o->current_job_id, sizeof o->current_job_id, "%s", d->current_job);
        o->current_kind = d->current_job[0] ? d->current_kind : CZK_KIND_UNSPECIFIED;
        o->partitions_proved = d->proved;
        o->busy_ms = d->busy_ms + (d->locked && now > d->lock_t0 ? now - d->lock_t0 : 0);
    }
    for (srs_entry *x = e->srs; x; x = x->next) {
        if (x->state == SRS_FAILED) continue;
        czk_engine_srs_status *o = &s->srs[s->num_srs++];
        snprintf(o->circuit_id, sizeof o->circuit_id, "%s", x->id);
        o->tier = x->state != SRS_READY ? CZK_SRS_COLD
                  : x->device_mask      ? CZK_SRS_HOT /* a device holds the parameters */
                                        : CZK_SRS_WARM;
        o->size_bytes = x->reserved;
        o->device_bytes = x->device_bytes;
        o->device_mask = x->device_mask;
        o->shape_bytes = x->shape_bytes;
        o->shape_on_devices = x->shape_host_dropped;
        o->lagrange = x->lagrange;
        o->partition_bytes = x->part_bytes;
        o->witness_buffers = x->n_bufs;
        o->witness_buffers_idle = x->n_idle_bufs;
        o->witness_buffers_pinned = x->n_pinned_bufs;
        o->witness_buffer_bytes = x->shape ? czk_wpool_buffer_bytes(e, x->shape) : 0;
        o->ref_count = x->refs;
        o->idle_ms = x->refs || now < x->idle_since ? 0 : now - x->idle_since;
        if (x->state == SRS_LOADING) {
            snprintf(o->load_stage, sizeof o->load_stage, "%s", x->load_stage);
            o->load_percent = x->load_stage[0] ? x->load_percent : 0;
        }
        s->pinned_memory_bytes += x->state == SRS_READY ? x->reserved : 0;
    }
    size_t first_cold = s->num_srs;
    for (unsigned i = 0; i < e->cfg.num_preload; i++) {
        bool present = false;
        for (size_t k = 0; k < s->num_srs && !present; k++)
            present = !strcmp(s->srs[k].circuit_id, e->cfg.preload[i]);
        if (present) continue;
        czk_engine_srs_status *o = &s->srs[s->num_srs++];
        snprintf(o->circuit_id, sizeof o->circuit_id, "%s", e->cfg.preload[i]);
        o->tier = CZK_SRS_COLD;
    }
    /* partitions: queued, then held by workers */
    czk_item *qs[3] = {e->synth_q, e->gpu_q, e->fin_q};
    for (int q = 0; q < 3; q++)
        for (czk_item *it = qs[q]; it; it = it->next)
            put_partition(e, s, it, -1, now);
    for (int i = 0; i < e->num_synth_workers; i++) {
        const czk_worker_arg *w = &e->synth_workers[i];
        put_worker(e, s, CZK_WORKER_SYNTHESIS, w->index, -1, w->item, now);
    }
    for (int i = 0; i < e->num_gpu_workers; i++) {
        const czk_gpu_worker *w = &e->gpu_workers[i];
        czk_engine_partition_status *p =
            put_worker(e, s, CZK_WORKER_GPU, w->index, w->dev->ordinal, w->item, now);
        if (p) {
            p->device = w->dev->ordinal;
            p->lock_held = w->dev->locked && w->dev->lock_worker == w->index;
        }
    }
    for (int i = 0; i < e->num_fin_workers; i++) {
        const czk_worker_arg *w = &e->fin_workers[i];
        put_worker(e, s, CZK_WORKER_FINALIZE, w->index, -1, w->item, now);
    }
    /* queues per kind: every partition in flight, by stage */
    for (size_t i = 0; i < s->num_partitions; i++) {
        const czk_engine_partition_status *p = &s->partitions[i];
        czk_engine_queue_status *q = queue_of(s, p->kind);
        switch (p->stage) {
        case CZK_STAGE_SYNTH_QUEUE:
            q->pending++;
            break;
        case CZK_STAGE_SYNTHESIS:
            q->synthesizing++;
            break;
        case CZK_STAGE_GPU_QUEUE:
            q->gpu_queue++;
            break;
        case CZK_STAGE_DEVICE:
            q->on_device++;
            break;
        case CZK_STAGE_FINALIZE_QUEUE:
            q->finalize_queue++;
            break;
        default: /* finalize, assembly */
            q->finalizing++;
            break;
        }
        if (p->stage != CZK_STAGE_SYNTH_QUEUE) q->in_progress++;
    }
    for (czk_job *j = e->jobs; j; j = j->next) {
        czk_engine_queue_status *q = NULL;
        if (j->state == CZK_JOB_QUEUED || j->state == CZK_JOB_RUNNING ||
            j->state == CZK_JOB_CANCELLING)
            q = queue_of(s, czk_engine_kind(e, j->kind)->id);
        if (j->state == CZK_JOB_QUEUED)
            s->jobs_queued++, q->jobs_queued++;
        else if (j->state == CZK_JOB_RUNNING)
            s->jobs_running++, q->jobs_running++;
        else if (j->state == CZK_JOB_CANCELLING)
            s->jobs_cancelling++, q->jobs_cancelling++;
        else if (!j->retired)
            s->results_stored++;
        if (job_in_flight(j)) czk_job_info_fill(e, j, &s->jobs[s->num_jobs++]);
    }
    for (int k = 0; k < e->num_kinds; k++) {
        czk_engine_kind_counters *c = &s->kinds[s->num_kinds++];
        int id = (int)e->kinds[k].id;
        c->kind = e->kinds[k].id;
        snprintf(c->name, sizeof c->name, "%s", e->kinds[k].name);
        snprintf(c->metric_label, sizeof c->metric_label, "%s", e->kinds[k].metric_label);
        c->completed = e->c_completed[id];
        c->failed = e->c_failed[id];
        c->cancelled = e->c_cancelled_kind[id];
        memcpy(c->duration_buckets, e->c_hist[id], sizeof c->duration_buckets);
        c->duration_sum_s = e->c_dur_sum[id];
    }
    s->uptime_ms = now;
    s->budget_total = e->budget.total;
    s->budget_srs = e->budget.srs;
    s->budget_shapes = e->budget.shapes;
    s->budget_working = e->budget.working;
    s->budget_witness_buffers = e->budget.buffers;
    snprintf(s->budget_source, sizeof s->budget_source, "%s", e->budget_source);
    s->gpu_queue_limit = e->gpu_queue_limit;
    s->budget_used = czk_budget_used(&e->budget);
    s->pinned_memory_limit_bytes = e->budget.total;
    s->rss_bytes = rss;
    s->mem_total_bytes = mem_total;
    s->synth_queue = e->n_synth_q;
    s->synthesizing = e->n_synth;
    s->gpu_queue = e->n_gpu_q;
    s->on_device = e->n_gpu;
    s->finalize_queue = e->n_fin_q;
    s->finalizing = e->n_fin;
    s->synth_workers = (uint32_t)e->num_synth_workers;
    s->gpu_workers = (uint32_t)e->num_gpu_workers;
    s->finalize_workers = (uint32_t)e->num_fin_workers;
    s->devices_failed = (uint32_t)e->num_failed_devices;
    for (int k = 0; k < CZK_KIND_MAX; k++) {
        s->proofs_completed += e->c_completed[k];
        s->proofs_failed += e->c_failed[k];
    }
    s->proofs_cancelled = e->c_cancelled;
    s->proofs_refused = e->c_refused;
    s->verify_failures = e->c_verify_failures;
    s->partitions_synthesized = e->c_synthesized;
    s->partitions_proved = e->c_proved;
    s->results_pruned = e->c_pruned;
    s->recent_durations = e->n_durations < ENGINE_DURATIONS ? e->n_durations : ENGINE_DURATIONS;
    for (uint64_t i = 0; i < s->recent_durations; i++)
        s->recent_duration_sum_s += e->durations[i];
    /* COLD preloads: what loading them would take, if their kind can tell */
    for (size_t i = first_cold; i < s->num_srs; i++)
        for (int k = 0; k < e->num_kinds; k++) {
            const czk_proof_kind *pk = &e->kinds[k];
            if (pk->owns_circuit && pk->owns_circuit(pk->ctx, s->srs[i].circuit_id)) {
                if (pk->circuit_bytes)
                    s->srs[i].size_bytes =
                        pk->circuit_bytes(pk->ctx, s->srs[i].circuit_id, e->cfg.param_cache);
                break;
            }
        }
    pthread_mutex_unlock(&e->mu);
    qsort(s->partitions, s->num_partitions, sizeof *s->partitions, cmp_partition);
    /* outside the mutex: what asks a backend (devices do not change while the engine lives) */
    for (size_t i = 0; i < s->num_devices; i++) {
        const czk_backend *b = &e->devices[i].backend;
        czk_engine_device_status *o = &s->devices[i];
        czk_err merr;
        if (o->failed) { /* its backend is not asked again */
            o->vram_total_bytes = o->identity.vram_total_bytes;
            o->vram_known = o->vram_total_bytes != 0;
            continue;
        }
        if (b->ops && b->ops->mem_info &&
            !b->ops->mem_info(b->self, &o->vram_total_bytes, &o->vram_free_bytes, &merr))
            o->vram_known = true;
        else
            o->vram_total_bytes = o->vram_free_bytes = 0;
    }
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
    free(s->partitions);
    free(s->workers);
    free(s->kinds);
    free(s->jobs);
    for (size_t i = 0; s->timeline && i < s->num_timeline; i++)
        free(s->timeline[i]);
    free(s->timeline);
    free(s);
}

static const czk_engine_kind_counters *counters_of(const czk_engine_status *s, czk_kind_id k) {
    for (size_t i = 0; i < s->num_kinds; i++)
        if (s->kinds[i].kind == k) return &s->kinds[i];
    return NULL;
}

const char *czk_engine_status_kind_name(const czk_engine_status *s, czk_kind_id kind) {
    const czk_engine_kind_counters *c = counters_of(s, kind);
    return c ? c->name : "unspecified";
}

const char *czk_engine_status_kind_label(const czk_engine_status *s, czk_kind_id kind) {
    const czk_engine_kind_counters *c = counters_of(s, kind);
    return c ? c->metric_label : "unspecified";
}
