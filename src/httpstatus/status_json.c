/*
 * The status snapshot as JSON, with yajl's generator (the body of
 * `GET /status` on daemon.status_listen; cuzk-engine.md §3: memory,
 * per-partition pipeline states, workers, SRS, counters). Numbers are
 * written exactly (u64 as decimal text, never through a double); device
 * memory a backend does not report is null.
 */
#include "czk/httpstatus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

typedef struct jg {
    yajl_gen g;
    bool bad; /* a generator call failed (sticky) */
} jg;

static void j_ok(jg *j, yajl_gen_status st) {
    if (st != yajl_gen_status_ok) j->bad = true;
}

static void j_str(jg *j, const char *s) {
    j_ok(j, yajl_gen_string(j->g, (const unsigned char *)s, strlen(s)));
}

static void j_u64(jg *j, uint64_t v) {
    char b[24];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    j_ok(j, yajl_gen_number(j->g, b, (size_t)n));
}

static void j_int(jg *j, long long v) {
    j_ok(j, yajl_gen_integer(j->g, v));
}

/* A key, then its value by the helpers below. */
static void k_u64(jg *j, const char *k, uint64_t v) {
    j_str(j, k);
    j_u64(j, v);
}
static void k_int(jg *j, const char *k, long long v) {
    j_str(j, k);
    j_int(j, v);
}
static void k_str(jg *j, const char *k, const char *v) {
    j_str(j, k);
    j_str(j, v);
}
static void k_bool(jg *j, const char *k, bool v) {
    j_str(j, k);
    j_ok(j, yajl_gen_bool(j->g, v));
}
static void k_double(jg *j, const char *k, double v) {
    j_str(j, k);
    char b[32];
    int n = snprintf(b, sizeof b, "%.6f", v);
    j_ok(j, yajl_gen_number(j->g, b, (size_t)n));
}
static void k_open(jg *j, const char *k, bool array) {
    j_str(j, k);
    j_ok(j, array ? yajl_gen_array_open(j->g) : yajl_gen_map_open(j->g));
}
static void open_map(jg *j) {
    j_ok(j, yajl_gen_map_open(j->g));
}
static void close_map(jg *j) {
    j_ok(j, yajl_gen_map_close(j->g));
}
static void close_array(jg *j) {
    j_ok(j, yajl_gen_array_close(j->g));
}

static void gen_status(jg *j, const czk_engine_status *s, size_t timeline_lines) {
    open_map(j);
    k_u64(j, "uptime_ms", s->uptime_ms);

    k_open(j, "memory", false);
    k_u64(j, "budget_total_bytes", s->budget_total);
    k_u64(j, "budget_used_bytes", s->budget_used);
    k_u64(j, "budget_free_bytes",
          s->budget_used < s->budget_total ? s->budget_total - s->budget_used : 0);
    k_u64(j, "srs_bytes", s->budget_srs);
    k_u64(j, "shapes_bytes", s->budget_shapes);
    k_u64(j, "working_bytes", s->budget_working);
    k_u64(j, "witness_buffer_bytes", s->budget_witness_buffers);
    k_str(j, "budget_source", s->budget_source);
    k_u64(j, "pinned_memory_bytes", s->pinned_memory_bytes);
    k_u64(j, "pinned_memory_limit_bytes", s->pinned_memory_limit_bytes);
    k_u64(j, "rss_bytes", s->rss_bytes);
    k_u64(j, "mem_total_bytes", s->mem_total_bytes);
    close_map(j);

    k_open(j, "pipeline", false);
    k_u64(j, "synth_queue", s->synth_queue);
    k_u64(j, "synthesizing", s->synthesizing);
    k_u64(j, "gpu_queue", s->gpu_queue);
    k_u64(j, "on_device", s->on_device);
    k_u64(j, "finalize_queue", s->finalize_queue);
    k_u64(j, "finalizing", s->finalizing);
    k_u64(j, "gpu_queue_limit", s->gpu_queue_limit);
    k_u64(j, "devices_failed", s->devices_failed);
    close_map(j);

    k_open(j, "queues", true);
    for (size_t i = 0; i < s->num_queues; i++) {
        const czk_engine_queue_status *q = &s->queues[i];
        open_map(j);
        k_str(j, "proof_kind", czk_engine_status_kind_name(s, q->kind));
        k_u64(j, "pending", q->pending);
        k_u64(j, "in_progress", q->in_progress);
        k_u64(j, "synthesizing", q->synthesizing);
        k_u64(j, "gpu_queue", q->gpu_queue);
        k_u64(j, "on_device", q->on_device);
        k_u64(j, "finalize_queue", q->finalize_queue);
        k_u64(j, "finalizing", q->finalizing);
        k_u64(j, "jobs_queued", q->jobs_queued);
        k_u64(j, "jobs_running", q->jobs_running);
        k_u64(j, "jobs_cancelling", q->jobs_cancelling);
        close_map(j);
    }
    close_array(j);

    k_open(j, "partitions", true);
    for (size_t i = 0; i < s->num_partitions; i++) {
        const czk_engine_partition_status *p = &s->partitions[i];
        open_map(j);
        k_str(j, "job_id", p->job_id);
        k_str(j, "proof_kind", czk_engine_status_kind_name(s, p->kind));
        k_u64(j, "partition", p->partition);
        k_u64(j, "partitions", p->partitions);
        k_str(j, "stage", czk_partition_stage_name(p->stage));
        k_int(j, "worker", p->worker);
        if (p->stage == CZK_STAGE_DEVICE) {
            k_int(j, "device", p->device);
            k_bool(j, "lock_held", p->lock_held);
        }
        k_u64(j, "stage_ms", p->stage_ms);
        k_u64(j, "age_ms", p->age_ms);
        close_map(j);
    }
    close_array(j);

    k_open(j, "workers", true);
    for (size_t i = 0; i < s->num_workers; i++) {
        const czk_engine_worker_status *w = &s->workers[i];
        open_map(j);
        k_str(j, "role", czk_worker_role_name(w->role));
        k_int(j, "index", w->index);
        if (w->role == CZK_WORKER_GPU) k_int(j, "device", w->device);
        k_bool(j, "busy", w->busy);
        if (w->busy) {
            k_str(j, "job_id", w->job_id);
            k_u64(j, "partition", w->partition);
            k_u64(j, "busy_ms", w->busy_ms);
        }
        close_map(j);
    }
    close_array(j);

    k_open(j, "gpus", true);
    for (size_t i = 0; i < s->num_devices; i++) {
        const czk_engine_device_status *d = &s->devices[i];
        open_map(j);
        k_int(j, "index", d->index);
        k_int(j, "ordinal", d->ordinal);
        k_str(j, "name", d->name);
        k_str(j, "device_name", d->identity.name);
        k_str(j, "uuid", d->identity.uuid);
        k_str(j, "pci_bus_id", d->identity.pci_bus_id);
        k_bool(j, "cpu_pseudo_device", d->ordinal < 0);
        k_bool(j, "failed", d->failed);
        if (d->failed) {
            k_str(j, "error", d->error);
            k_u64(j, "failed_ms", d->failed_ms);
        }
        k_u64(j, "partitions_requeued", d->partitions_requeued);
        k_u64(j, "workers", d->workers);
        k_u64(j, "busy_workers", d->busy_workers);
        j_str(j, "vram_total_bytes");
        if (d->vram_known)
            j_u64(j, d->vram_total_bytes);
        else
            j_ok(j, yajl_gen_null(j->g));
        j_str(j, "vram_free_bytes");
        if (d->vram_known)
            j_u64(j, d->vram_free_bytes);
        else
            j_ok(j, yajl_gen_null(j->g));
        k_str(j, "current_job_id", d->current_job_id);
        k_str(j, "current_proof_kind",
              d->current_job_id[0] ? czk_engine_status_kind_name(s, d->current_kind) : "");
        k_u64(j, "partitions_proved", d->partitions_proved);
        k_u64(j, "busy_ms", d->busy_ms);
        double r = s->uptime_ms ? (double)d->busy_ms / (double)s->uptime_ms : 0.0;
        k_double(j, "busy_fraction", r > 1.0 ? 1.0 : r);
        close_map(j);
    }
    close_array(j);

    k_open(j, "srs", true);
    for (size_t i = 0; i < s->num_srs; i++) {
        const czk_engine_srs_status *x = &s->srs[i];
        open_map(j);
        k_str(j, "circuit_id", x->circuit_id);
        k_str(j, "tier", czk_srs_tier_name(x->tier));
        k_u64(j, "size_bytes", x->size_bytes);
        k_u64(j, "device_bytes", x->device_bytes);
        k_open(j, "devices", true); /* the device indices holding their own copy */
        for (int b = 0; b < 64; b++)
            if (x->device_mask >> b & 1) j_u64(j, (uint64_t)b);
        close_array(j);
        k_u64(j, "shape_bytes", x->shape_bytes);
        k_bool(j, "shape_on_devices", x->shape_on_devices);
        k_bool(j, "lagrange", x->lagrange);
        k_u64(j, "partition_bytes", x->partition_bytes);
        k_u64(j, "witness_buffers", x->witness_buffers);
        k_u64(j, "witness_buffers_idle", x->witness_buffers_idle);
        k_u64(j, "witness_buffers_pinned", x->witness_buffers_pinned);
        k_u64(j, "witness_buffer_bytes", x->witness_buffer_bytes);
        k_u64(j, "ref_count", x->ref_count);
        k_u64(j, "idle_ms", x->idle_ms);
        /* the parameter read's progress; null when not reading */
        j_str(j, "load_stage");
        if (x->load_stage[0])
            j_str(j, x->load_stage);
        else
            j_ok(j, yajl_gen_null(j->g));
        j_str(j, "load_percent");
        if (x->load_stage[0])
            j_u64(j, x->load_percent);
        else
            j_ok(j, yajl_gen_null(j->g));
        close_map(j);
    }
    close_array(j);

    k_open(j, "jobs", false);
    k_u64(j, "queued", s->jobs_queued);
    k_u64(j, "running", s->jobs_running);
    k_u64(j, "cancelling", s->jobs_cancelling);
    k_u64(j, "results_stored", s->results_stored);
    k_open(j, "in_flight", true); /* queued, running, cancelling; finished ones still stopping */
    for (size_t i = 0; i < s->num_jobs; i++) {
        const czk_job_info *x = &s->jobs[i];
        open_map(j);
        k_str(j, "job_id", x->job_id);
        k_str(j, "proof_kind", czk_engine_status_kind_name(s, x->kind));
        k_str(j, "state", czk_job_state_name(x->state));
        k_u64(j, "partitions", x->partitions);
        k_u64(j, "finalized", x->finalized);
        k_u64(j, "partitions_in_flight", x->in_flight);
        k_u64(j, "age_ms", x->age_ms);
        close_map(j);
    }
    close_array(j);
    close_map(j);

    k_open(j, "counters", false);
    k_u64(j, "proofs_completed", s->proofs_completed);
    k_u64(j, "proofs_failed", s->proofs_failed);
    k_u64(j, "proofs_refused", s->proofs_refused);
    k_u64(j, "proofs_cancelled", s->proofs_cancelled);
    k_u64(j, "verify_failures", s->verify_failures);
    k_u64(j, "partitions_synthesized", s->partitions_synthesized);
    k_u64(j, "partitions_proved", s->partitions_proved);
    k_u64(j, "results_pruned", s->results_pruned);
    k_open(j, "by_kind", true);
    for (size_t i = 0; i < s->num_kinds; i++) {
        const czk_engine_kind_counters *c = &s->kinds[i];
        open_map(j);
        k_str(j, "proof_kind", c->name);
        k_u64(j, "completed", c->completed);
        k_u64(j, "failed", c->failed);
        k_u64(j, "cancelled", c->cancelled);
        k_double(j, "duration_sum_s", c->duration_sum_s);
        close_map(j);
    }
    close_array(j);
    close_map(j);

    k_open(j, "timeline", true);
    size_t from = s->num_timeline > timeline_lines ? s->num_timeline - timeline_lines : 0;
    for (size_t i = from; i < s->num_timeline; i++)
        j_str(j, s->timeline[i]);
    close_array(j);
    close_map(j);
}

czk_status czk_status_page_json(const czk_engine_status *s, size_t timeline_lines, char **out,
                                size_t *len, czk_err *err) {
    *out = NULL;
    *len = 0;
    jg j = {yajl_gen_alloc(NULL), false};
    if (!j.g) return czk_errf(err, CZK_ERR_NOMEM, "status json: out of memory");
    gen_status(&j, s, timeline_lines);
    const unsigned char *buf = NULL;
    size_t n = 0;
    if (!j.bad) j_ok(&j, yajl_gen_get_buf(j.g, &buf, &n));
    char *o = j.bad ? NULL : malloc(n + 1);
    if (o) {
        memcpy(o, buf, n);
        o[n] = 0;
    }
    yajl_gen_free(j.g);
    if (j.bad) return czk_errf(err, CZK_ERR_INTERNAL, "status json: the generator refused a value");
    if (!o) return czk_errf(err, CZK_ERR_NOMEM, "status json: out of memory");
    *out = o;
    *len = n;
    return CZK_OK;
}
