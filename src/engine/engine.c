/*
 * The engine object: jobs, request ids, results and the threads.
 *
 * A submit checks the request id first (a queued, running or completed job
 * with the same id and the same request is that job; a different request
 * under such an id is refused; a cancelled or failed job's id is free: that
 * job is retired, no longer found by its id, and removed once nothing of it
 * is in flight and nobody waits for it), then records the job, and only
 * then lets the kind parse the payload, outside the engine mutex: a 50 MB C1 takes a few
 * hundred milliseconds to parse and must not stall the pipeline. A payload
 * the kind refuses is refused by the submit itself, with the kind's status
 * and message (cuzk failed the job and left the caller to learn why from
 * await); the job is dropped. A parsed job gets a reference on its
 * circuit's SRS entry (which starts loading if needed) and one synthesis
 * item per partition.
 *
 * Kinds: the engine serves the descriptors registered with it
 * (czk_engine_register_kind) and knows no kind, circuit or payload format
 * of its own; names, metric labels and default priorities are the
 * descriptors'.
 *
 * Results: a finished job keeps its result for scheduler.result_retention
 * after it finished, whether or not an await has handed it out: the engine
 * cannot know whether a caller's bytes reached their client, so a client
 * that lost them asks again and gets the same bytes. At most
 * scheduler.max_results are kept (oldest pruned first), so memory stays
 * bounded (cuzk kept them forever, cuzk-engine.md §8); a result is a few KiB
 * (the job's parsed payload is freed when it finishes).
 *
 * Threads: synthesis workers, GPU workers (per device), finalizers, one SRS
 * loader and one housekeeper (pruning, and resident-set sampling while a
 * partition is measured). They all share the engine mutex and its condition
 * variables; none blocks on another stage except through a queue.
 */
#include "engine/internal.h"
#include "util/digest.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- names ---- */

const char *czk_job_state_name(czk_job_state s) {
    switch (s) {
    case CZK_JOB_COMPLETED:
        return "COMPLETED";
    case CZK_JOB_FAILED:
        return "FAILED";
    case CZK_JOB_CANCELLED:
        return "CANCELLED";
    case CZK_JOB_TIMEOUT:
        return "TIMEOUT";
    case CZK_JOB_QUEUED:
        return "QUEUED";
    case CZK_JOB_RUNNING:
        return "RUNNING";
    case CZK_JOB_CANCELLING:
        return "CANCELLING";
    default:
        return "UNKNOWN";
    }
}

const char *czk_priority_name(czk_priority p) {
    switch (p) {
    case CZK_PRIORITY_LOW:
        return "LOW";
    case CZK_PRIORITY_NORMAL:
        return "NORMAL";
    case CZK_PRIORITY_HIGH:
        return "HIGH";
    case CZK_PRIORITY_CRITICAL:
        return "CRITICAL";
    default:
        return "UNSPECIFIED";
    }
}

static bool terminal(czk_job_state s) {
    return s == CZK_JOB_COMPLETED || s == CZK_JOB_FAILED || s == CZK_JOB_CANCELLED;
}

const czk_proof_kind *czk_engine_kind(czk_engine *e, int idx) {
    return &e->kinds[idx];
}

void czk_job_result_free(czk_job_result *r) {
    if (!r) return;
    free(r->proof);
    r->proof = NULL;
    r->proof_len = 0;
}

void czk_engine_opts_default(czk_engine_opts *opts) {
    memset(opts, 0, sizeof *opts);
    czk_engine_config_default(&opts->config);
}

/* ---- jobs ---- */

/* The job of an id (mu held): a retired job, whose id a newer job took, is not found. */
static czk_job *find_job(czk_engine *e, const char *id) {
    for (czk_job *j = e->jobs; j; j = j->next)
        if (!j->retired && !strcmp(j->id, id)) return j;
    return NULL;
}

/* Unlinks and frees a finished job that nothing holds (mu held). */
static void job_remove(czk_engine *e, czk_job *j) {
    for (czk_job **pp = &e->jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    free(j->result);
    free(j->proofs);
    free(j);
}

static int kind_index(czk_engine *e, czk_kind_id id) {
    for (int i = 0; i < e->num_kinds; i++)
        if (e->kinds[i].id == id) return i;
    return -1;
}

/* CZK_ERR_UNSUPPORTED naming the kinds served (mu held). */
static czk_status not_served(czk_engine *e, czk_kind_id id, czk_err *err) {
    char list[384];
    size_t n = 0;
    list[0] = 0;
    for (int i = 0; i < e->num_kinds && n < sizeof list; i++) {
        int w = snprintf(list + n, sizeof list - n, "%s%s (%d)", i ? ", " : "", e->kinds[i].name,
                         (int)e->kinds[i].id);
        if (w > 0) n += (size_t)w;
    }
    return czk_errf(err, CZK_ERR_UNSUPPORTED,
                    "proof kind %d is not implemented in this engine (it serves %s)", (int)id,
                    e->num_kinds ? list : "no kind");
}

static void request_digest(uint8_t out[32], const czk_proof_request *r) {
    uint64_t fixed[8] = {(uint64_t)r->kind,   (uint64_t)r->priority, r->sector_size,
                         r->registered_proof, r->sector_number,      r->miner_id,
                         r->partition_index,  r->num_vanilla_proofs};
    size_t np = 6 + 2 * r->num_vanilla_proofs;
    czk_bytes stack[16], *parts = np <= 16 ? stack : malloc(np * sizeof *parts);
    if (!parts) { /* digest what fits: the fixed fields and the main payload */
        np = 6;
        parts = stack;
    }
    parts[0] = (czk_bytes){fixed, sizeof fixed};
    parts[1] = (czk_bytes){r->randomness, 32};
    parts[2] = (czk_bytes){r->comm_r_old, 32};
    parts[3] = (czk_bytes){r->comm_r_new, 32};
    parts[4] = (czk_bytes){r->comm_d_new, 32};
    parts[5] = (czk_bytes){r->vanilla_proof, r->vanilla_proof ? r->vanilla_proof_len : 0};
    uint64_t *lens = np > 6 ? calloc(r->num_vanilla_proofs, sizeof *lens) : NULL;
    if (np > 6 && !lens) np = 6;
    for (size_t i = 0; np > 6 && i < r->num_vanilla_proofs; i++) {
        lens[i] = r->vanilla_proofs_len[i];
        parts[6 + 2 * i] = (czk_bytes){&lens[i], sizeof lens[i]};
        parts[7 + 2 * i] = (czk_bytes){r->vanilla_proofs[i], r->vanilla_proofs_len[i]};
    }
    czk_sha256_parts(out, parts, np);
    free(lens);
    if (parts != stack) free(parts);
}

static uint32_t queue_position(czk_engine *e, const czk_job *j) {
    uint32_t n = 0;
    for (czk_job *o = e->jobs; o; o = o->next)
        if (o != j && (o->state == CZK_JOB_QUEUED || o->state == CZK_JOB_RUNNING) &&
            (o->prio > j->prio || (o->prio == j->prio && o->seq < j->seq)))
            n++;
    return n;
}

czk_status czk_engine_submit(czk_engine *e, const czk_proof_request *req,
                             char job_id[CZK_JOB_ID_MAX], czk_submit_info *info, czk_err *err) {
    job_id[0] = 0;
    czk_submit_info info_local;
    if (!info) info = &info_local;
    memset(info, 0, sizeof *info);
    if (req->kind == CZK_KIND_UNSPECIFIED)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "submit: proof kind unspecified");
    if ((unsigned)req->priority > CZK_PRIORITY_CRITICAL)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "submit: priority %d out of range",
                        (int)req->priority);
    const char *rid = req->request_id && *req->request_id ? req->request_id : NULL;
    if (rid && strlen(rid) >= CZK_JOB_ID_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "submit: request id longer than %d bytes",
                        CZK_JOB_ID_MAX - 1);
    uint8_t digest[32];
    request_digest(digest, req);

    pthread_mutex_lock(&e->mu);
    int ki = kind_index(e, req->kind);
    if (ki < 0) {
        czk_status st = not_served(e, req->kind, err);
        pthread_mutex_unlock(&e->mu);
        czk_err_wrap(err, "submit");
        return st;
    }
    czk_job *old = rid ? find_job(e, rid) : NULL;
    if (old && old->state != CZK_JOB_FAILED && old->state != CZK_JOB_CANCELLED &&
        old->state != CZK_JOB_CANCELLING) {
        /* queued, running or completed: that job, if it is this request */
        czk_status st = CZK_OK;
        if (memcmp(old->digest, digest, 32))
            st = czk_errf(err, CZK_ERR_MISMATCH,
                          "submit: request id %s is the job of another request (%s, %s)", rid,
                          czk_engine_kind(e, old->kind)->name, czk_job_state_name(old->state));
        else
            snprintf(job_id, CZK_JOB_ID_MAX, "%s", old->id);
        if (!st) {
            info->existing = true;
            info->queue_position = queue_position(e, old);
        }
        pthread_mutex_unlock(&e->mu);
        return st;
    }
    if (e->shut) {
        pthread_mutex_unlock(&e->mu);
        return czk_errf(err, CZK_ERR_CANCELLED, "submit: the engine is shutting down");
    }
    if (old) {
        /* cancelled or failed: the id is free again; the old job goes once nothing holds it */
        old->retired = true;
        info->replaced = true;
        czk_engine_log(e, 2, "job %s: submitted again after it was %s: a new job", rid,
                       czk_job_state_name(old->state));
    }
    czk_job *j = calloc(1, sizeof *j);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return czk_errf(err, CZK_ERR_NOMEM, "submit: out of memory");
    }
    if (rid) {
        snprintf(j->id, sizeof j->id, "%s", rid);
    } else {
        do
            snprintf(j->id, sizeof j->id, "job-%llu", (unsigned long long)++e->next_auto_id);
        while (find_job(e, j->id));
    }
    const czk_proof_kind *kind = czk_engine_kind(e, ki);
    j->kind = ki;
    j->prio = req->priority            ? req->priority
              : kind->default_priority ? kind->default_priority
                                       : CZK_PRIORITY_NORMAL;
    memcpy(j->digest, digest, 32);
    j->state = CZK_JOB_QUEUED;
    j->seq = ++e->next_seq;
    j->submit_ms = czk_engine_ms(e);
    j->inflight = 1; /* parsing */
    czk_job **tail = &e->jobs;
    while (*tail)
        tail = &(*tail)->next;
    *tail = j;
    snprintf(job_id, CZK_JOB_ID_MAX, "%s", j->id);
    czk_timeline_emit(e, CZK_EV_JOB_SUBMIT, j->id, -1, -1, "kind=%s priority=%s bytes=%zu",
                      kind->name, czk_priority_name(j->prio),
                      req->vanilla_proof ? req->vanilla_proof_len : 0);
    pthread_mutex_unlock(&e->mu);

    czk_err perr;
    czk_err_clear(&perr);
    void *kjob = NULL;
    czk_kind_job_info kinfo;
    memset(&kinfo, 0, sizeof kinfo);
    czk_status pst = kind->parse(kind->ctx, req, &kjob, &kinfo, &perr);
    if (!pst && (kinfo.num_partitions == 0 || !kinfo.circuit_id[0]))
        pst = czk_errf(&perr, CZK_ERR_INTERNAL, "kind %s: no partitions or circuit id", kind->name);
    if (!pst)
        czk_engine_log(e, 2, "job %s: accepted: %s, %u partition%s%s%s", job_id, kinfo.circuit_id,
                       kinfo.num_partitions, kinfo.num_partitions == 1 ? "" : "s",
                       kinfo.notice ? "; " : "", kinfo.notice ? kinfo.notice : "");
    czk_proof *proofs = NULL;
    if (!pst && !(proofs = calloc(kinfo.num_partitions, sizeof *proofs)))
        pst =
            czk_errf(&perr, CZK_ERR_NOMEM, "out of memory for %u partitions", kinfo.num_partitions);

    pthread_mutex_lock(&e->mu);
    j->info = kinfo;
    j->kjob = kjob;
    j->proofs = proofs;
    j->inflight--;
    czk_status st = CZK_OK;
    if (pst) {
        /* refused at intake: the caller learns why here; the job is dropped unless a
         * concurrent submit of the same request id awaits it */
        czk_err rerr;
        st = czk_errf(&rerr, pst, "job %s: payload refused by kind %s: %s", j->id, kind->name,
                      perr.msg);
        if (err) *err = rerr;
        info->refused = true;
        czk_job_fail(e, j, pst, "%s", rerr.msg);
        if (j->state == CZK_JOB_FAILED) e->c_refused++;
        if (j->state == CZK_JOB_CANCELLING)
            czk_job_finish(e, j, CZK_JOB_CANCELLED); /* cancelled while parsing */
        czk_job_release(e, j);
        if (!j->waiters) {
            job_remove(e, j);
            j = NULL;
        } else {
            j->discard = true; /* its waiters take it, then it goes */
        }
        job_id[0] = 0;
    } else if (czk_job_ended(j)) {
        /* cancelled while parsing: it stopped now */
        if (j->state == CZK_JOB_CANCELLING) czk_job_finish(e, j, CZK_JOB_CANCELLED);
        czk_job_release(e, j);
    } else {
        j->srs = czk_srs_get(e, ki, kinfo.circuit_id, (int)j->prio);
        if (!j->srs) {
            czk_job_fail(e, j, CZK_ERR_NOMEM, "job %s: out of memory", j->id);
        } else {
            czk_srs_ref(e, j->srs);
            j->srs_held = true;
            if (j->srs->state == SRS_FAILED)
                czk_job_fail(e, j, j->srs->load_err.code, "job %s: SRS %s: %s", j->id, j->srs->id,
                             j->srs->load_err.msg);
            else if (e->num_failed_devices == e->num_devices)
                czk_job_fail(e, j, CZK_ERR_DEVICE, "job %s: every device has failed", j->id);
            for (uint32_t p = 0; p < kinfo.num_partitions && !terminal(j->state); p++) {
                czk_item *it = calloc(1, sizeof *it);
                if (!it) {
                    czk_job_fail(e, j, CZK_ERR_NOMEM, "job %s: out of memory", j->id);
                    break;
                }
                it->job = j;
                it->k = p;
                it->stage = IT_SYNTH_QUEUE;
                it->since = czk_engine_ms(e);
                it->next = e->synth_q;
                e->synth_q = it;
                e->n_synth_q++;
                j->inflight++;
            }
            pthread_cond_broadcast(&e->synth_cv);
        }
    }
    info->queue_position = j ? queue_position(e, j) : 0;
    pthread_mutex_unlock(&e->mu);
    return st;
}

static void fill_result(czk_engine *e, const czk_job *j, czk_job_result *out) {
    snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
    out->kind = czk_engine_kind(e, j->kind)->id;
    out->state = j->state;
    out->error_code = j->state == CZK_JOB_FAILED ? j->err_code : CZK_OK;
    snprintf(out->error, sizeof out->error, "%s", j->state == CZK_JOB_FAILED ? j->err : "");
    out->queue_wait_ms = j->started ? j->first_synth_ms - j->submit_ms : 0;
    out->srs_load_ms = j->srs_wait_ms;
    out->synthesis_ms = j->synth_ms;
    out->gpu_compute_ms = j->gpu_ms;
    out->total_ms = (terminal(j->state) ? j->done_ms : czk_engine_ms(e)) - j->submit_ms;
}

czk_status czk_engine_await(czk_engine *e, const char *job_id, int64_t timeout_ms,
                            czk_job_result *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    snprintf(out->job_id, sizeof out->job_id, "%s", job_id);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    if (timeout_ms > 0) {
        dl.tv_sec += timeout_ms / 1000;
        dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        dl.tv_sec += dl.tv_nsec / 1000000000L;
        dl.tv_nsec %= 1000000000L;
    }
    pthread_mutex_lock(&e->mu);
    czk_job *j = find_job(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        out->state = CZK_JOB_UNKNOWN;
        return czk_errf(err, CZK_ERR_INVALID_ARG, "await: no job %s", job_id);
    }
    j->waiters++;
    bool timed_out = false;
    while (!terminal(j->state) && !timed_out) {
        if (timeout_ms == 0)
            timed_out = true;
        else if (timeout_ms < 0)
            pthread_cond_wait(&e->job_cv, &e->mu);
        else if (pthread_cond_timedwait(&e->job_cv, &e->mu, &dl))
            timed_out = !terminal(j->state);
    }
    j->waiters--;
    czk_status st = CZK_OK;
    fill_result(e, j, out);
    if (!terminal(j->state)) {
        out->state = CZK_JOB_TIMEOUT;
        st = czk_errf(err, CZK_ERR_TIMEOUT, "await: job %s still %s after %lld ms", j->id,
                      czk_job_state_name(j->state), (long long)timeout_ms);
    } else {
        if (j->state == CZK_JOB_COMPLETED && j->result_len) {
            out->proof = malloc(j->result_len);
            if (!out->proof) {
                pthread_mutex_unlock(&e->mu);
                return czk_errf(err, CZK_ERR_NOMEM, "await: out of memory");
            }
            memcpy(out->proof, j->result, j->result_len);
            out->proof_len = j->result_len;
        }
        j->fetched = true; /* it stays: the caller may not get it to its client */
        if (j->discard && !j->waiters && !j->inflight) job_remove(e, j);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

czk_status czk_engine_cancel(czk_engine *e, const char *job_id, bool *was_running, czk_err *err) {
    if (was_running) *was_running = false;
    pthread_mutex_lock(&e->mu);
    czk_job *j = find_job(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return czk_errf(err, CZK_ERR_INVALID_ARG, "cancel: no job %s", job_id);
    }
    if (!terminal(j->state)) {
        if (was_running) *was_running = true;
        czk_job_cancel(e, j, "requested");
    }
    pthread_mutex_unlock(&e->mu);
    return CZK_OK;
}

czk_status czk_engine_job_info(czk_engine *e, const char *job_id, czk_job_info *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    snprintf(out->job_id, sizeof out->job_id, "%s", job_id);
    pthread_mutex_lock(&e->mu);
    czk_job *j = find_job(e, job_id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return czk_errf(err, CZK_ERR_INVALID_ARG, "job info: no job %s", job_id);
    }
    czk_job_info_fill(e, j, out);
    pthread_mutex_unlock(&e->mu);
    return CZK_OK;
}

void czk_job_info_fill(czk_engine *e, const czk_job *j, czk_job_info *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->job_id, sizeof out->job_id, "%s", j->id);
    snprintf(out->circuit_id, sizeof out->circuit_id, "%s", j->info.circuit_id);
    out->kind = czk_engine_kind(e, j->kind)->id;
    out->priority = j->prio;
    out->state = j->state;
    out->partitions = j->info.num_partitions;
    out->synthesized = j->n_synth;
    out->proved = j->n_proved;
    out->finalized = j->n_final;
    out->queue_position = j->state == CZK_JOB_QUEUED ? queue_position(e, j) : 0;
    out->in_flight = j->inflight;
    out->age_ms = czk_engine_ms(e) - j->submit_ms;
}

/* ---- housekeeping ---- */

static void prune(czk_engine *e) {
    uint64_t now = czk_engine_ms(e);
    size_t stored = 0;
    for (czk_job *j = e->jobs; j; j = j->next)
        if (terminal(j->state) && !j->retired) stored++;
    czk_job *j = e->jobs;
    while (j) {
        czk_job *next = j->next;
        if (terminal(j->state) && !j->waiters && !j->inflight) {
            bool old = now - j->done_ms >= e->cfg.result_retention_ms;
            bool over = !j->retired && stored > e->cfg.max_results;
            if (j->retired || j->discard) { /* found by no id, or never kept */
                job_remove(e, j);
            } else if (old || over) {
                if (!j->fetched) {
                    e->c_pruned++;
                    czk_engine_log(e, 2, "job %s: %s result pruned unfetched after %llu ms", j->id,
                                   czk_job_state_name(j->state),
                                   (unsigned long long)(now - j->done_ms));
                }
                stored--;
                job_remove(e, j);
            }
        }
        j = next;
    }
}

/* Witness buffers of circuits no job has held for memory.eviction_min_idle go back (mu held). */
static void trim_idle_buffers(czk_engine *e) {
    uint64_t now = czk_engine_ms(e);
    for (srs_entry *s = e->srs; s; s = s->next) {
        if (s->refs || !s->n_idle_bufs || now - s->idle_since < e->cfg.eviction_min_idle_ms)
            continue;
        uint32_t n = s->n_idle_bufs;
        uint64_t bytes = czk_wpool_trim(e, s, NULL, UINT64_MAX);
        czk_engine_log(e, 2, "srs %s: idle %llu ms: freed its %u witness buffers (%llu bytes)",
                       s->id, (unsigned long long)(now - s->idle_since), n,
                       (unsigned long long)bytes);
    }
}

static void *house_main(void *arg) {
    czk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        prune(e);
        trim_idle_buffers(e);
        unsigned ms = e->probe_active ? 2 : 100;
        if (e->probe_active) {
            uint64_t r = czk_rss_bytes();
            if (r > e->probe_peak_rss) e->probe_peak_rss = r;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&e->house_cv, &e->mu, &ts);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- kinds ---- */

static bool name_ok(const char *s) {
    return s && *s && strlen(s) < CZK_KIND_NAME_MAX;
}

const czk_engine_config *czk_engine_get_config(const czk_engine *e) {
    return &e->cfg;
}

czk_status czk_engine_register_kind(czk_engine *e, const czk_proof_kind *kind, czk_err *err) {
    if (!kind->parse || !kind->synthesize || !kind->public_inputs || !kind->load_circuit ||
        !name_ok(kind->name) || !name_ok(kind->metric_label) ||
        (unsigned)kind->id >= CZK_KIND_MAX || kind->id == CZK_KIND_UNSPECIFIED ||
        (unsigned)kind->default_priority > CZK_PRIORITY_CRITICAL)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "register kind %d: an id 1..%d, a name and a metric label (< %d bytes), "
                        "a priority, parse, synthesize, public_inputs and load_circuit are "
                        "required",
                        (int)kind->id, CZK_KIND_MAX - 1, CZK_KIND_NAME_MAX);
    pthread_mutex_lock(&e->mu);
    int i = kind_index(e, kind->id);
    czk_status st = CZK_OK;
    if (i >= 0) {
        for (czk_job *j = e->jobs; j; j = j->next)
            if (j->kind == i && (!terminal(j->state) || j->inflight)) {
                st = czk_errf(err, CZK_ERR_INVALID_ARG, "register kind %s: jobs of it are running",
                              kind->name);
                break;
            }
        if (!st) {
            if (e->kinds[i].destroy) e->kinds[i].destroy(e->kinds[i].ctx);
            e->kinds[i] = *kind;
        }
    } else if (e->num_kinds == (int)(sizeof e->kinds / sizeof e->kinds[0])) {
        st = czk_errf(err, CZK_ERR_INVALID_ARG, "register kind %s: too many kinds", kind->name);
    } else {
        e->kinds[e->num_kinds++] = *kind;
    }
    pthread_mutex_unlock(&e->mu);
    /* srs.preload: the circuits this kind owns start loading now */
    for (unsigned p = 0; !st && kind->owns_circuit && p < e->cfg.num_preload; p++) {
        if (!kind->owns_circuit(kind->ctx, e->cfg.preload[p])) continue;
        czk_err perr;
        if (czk_engine_preload(e, e->cfg.preload[p], false, NULL, NULL, &perr))
            czk_engine_log(e, 1, "engine: srs.preload %s: %s", e->cfg.preload[p], perr.msg);
    }
    return st;
}

czk_status czk_engine_kind_served(czk_engine *e, czk_kind_id kind, char name[CZK_KIND_NAME_MAX],
                                  czk_err *err) {
    if (name) name[0] = 0;
    if (kind == CZK_KIND_UNSPECIFIED)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "proof kind unspecified");
    pthread_mutex_lock(&e->mu);
    int i = kind_index(e, kind);
    czk_status st = i < 0 ? not_served(e, kind, err) : CZK_OK;
    if (!st && name) snprintf(name, CZK_KIND_NAME_MAX, "%s", e->kinds[i].name);
    pthread_mutex_unlock(&e->mu);
    return st;
}

/* ---- create / shutdown / destroy ---- */

static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...) CZK_PRINTF(4, 5);

/* "0 NVIDIA H200 GPU-… 0000:17:00.0, 1 ..." of the provider's devices, into buf. */
static void list_found(const czk_backend_provider *g, int n, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        czk_device_identity id;
        czk_err ierr;
        bool known = g->identify && !g->identify(i, &id, &ierr);
        put(buf, cap, &k, "%s%d", i ? ", " : "", i);
        if (known)
            put(buf, cap, &k, " %s%s%s%s%s", id.name, id.uuid[0] ? " " : "", id.uuid,
                id.pci_bus_id[0] ? " " : "", id.pci_bus_id);
    }
    if (!n) put(buf, cap, &k, "none");
}

/* A device's identity: a pseudo-device's own, else the provider's where it can tell (g may be
 * NULL: a backend factory's device), else its backend's name and index. */
static void identify(czk_engine *e, czk_device *d, const czk_backend_provider *g) {
    czk_device_identity *id = &d->id;
    memset(id, 0, sizeof *id);
    if (d->ordinal < 0) {
        snprintf(id->name, sizeof id->name, "cpu pseudo-device %d", -1 - d->ordinal);
        return;
    }
    czk_err ierr;
    if (g && g->identify && !g->identify(d->ordinal, id, &ierr)) return;
    if (g && g->identify) czk_engine_log(e, 1, "engine: device %d: %s", d->ordinal, ierr.msg);
    memset(id, 0, sizeof *id);
    snprintf(id->name, sizeof id->name, "%s device %d", d->name, d->ordinal);
}

static czk_status make_devices(czk_engine *e, czk_err *err) {
    const czk_engine_config *c = &e->cfg;
    int ordinals[CZK_ENGINE_MAX_DEVICES];
    int n = 0;
    bool cpu = !strcmp(c->backend, "cpu");
    /* the device backend the composition root gave (opts.gpu), the one gpus.backend may name */
    const czk_backend_provider *g = e->opts.gpu;
    int ngpu = cpu || !g ? 0 : g->device_count();
    /* Without a factory: the given device backend where this build has it and a device
     * exists ("auto" or its name); "auto" falls back to the CPU pseudo-device, a name fails. */
    bool use_gpu = false;
    if (!e->opts.make_backend && !cpu) {
        bool named = strcmp(c->backend, "auto") != 0;
        if (g && g->built() && ngpu > 0 && (!named || !strcmp(c->backend, g->name)))
            use_gpu = true;
        else if (named && (!g || strcmp(c->backend, g->name)))
            return czk_errf(err, CZK_ERR_UNSUPPORTED,
                            "engine: gpus.backend = \"%s\": no such backend was given to this "
                            "engine (czk_engine_opts.gpu)",
                            c->backend);
        else if (named)
            return g->built() ? czk_errf(err, CZK_ERR_UNSUPPORTED,
                                         "engine: gpus.backend = \"%s\": no %s device found (no "
                                         "GPU or no driver)",
                                         c->backend, g->label)
                              : czk_errf(err, CZK_ERR_UNSUPPORTED,
                                         "engine: gpus.backend = \"%s\": this build has no %s "
                                         "backend",
                                         c->backend, g->label);
        else
            cpu = true;
    }
    if (!c->cpu_devices || c->cpu_devices > CZK_ENGINE_MAX_DEVICES)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "engine: gpus.cpu_devices = %u: 1..%d",
                        c->cpu_devices, CZK_ENGINE_MAX_DEVICES);
    if (cpu || (!c->num_devices && ngpu <= 0)) {
        for (unsigned k = 0; k < c->cpu_devices; k++) /* pseudo-device k */
            ordinals[n++] = -1 - (int)k;
    } else if (c->num_devices) {
        for (unsigned i = 0; i < c->num_devices; i++) {
            int o = c->devices[i];
            if (use_gpu && (o < 0 || o >= ngpu)) {
                char found[1024];
                list_found(g, ngpu, found, sizeof found);
                const char *vis = getenv("CUDA_VISIBLE_DEVICES");
                return czk_errf(err, CZK_ERR_INVALID_ARG,
                                "engine: gpus.devices names device %d, which does not exist: "
                                "%s finds %d device%s (%s)%s%s",
                                o, g->label, ngpu, ngpu == 1 ? "" : "s", found,
                                vis ? "; CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "");
            }
            for (int k = 0; k < n; k++)
                if (ordinals[k] == o)
                    czk_engine_log(e, 1,
                                   "engine: gpus.devices names device %d twice: two backends "
                                   "share it",
                                   o);
            ordinals[n++] = o;
        }
    } else {
        for (int i = 0; i < ngpu && i < CZK_ENGINE_MAX_DEVICES; i++)
            ordinals[n++] = i;
    }
    e->devices = calloc((size_t)n, sizeof *e->devices);
    if (!e->devices) return czk_errf(err, CZK_ERR_NOMEM, "engine: out of memory");
    for (int i = 0; i < n; i++) {
        czk_device *d = &e->devices[i];
        d->index = i;
        d->ordinal = ordinals[i];
        e->num_devices = i + 1;
        czk_status st = e->opts.make_backend ? e->opts.make_backend(e->opts.backend_ctx, d->ordinal,
                                                                    e->gpu_pool, &d->backend, err)
                        : use_gpu
                            ? g->make(&d->backend, d->ordinal, e->gpu_pool, e->cfg.vram_budget, err)
                            : czk_backend_cpu(&d->backend, e->gpu_pool, err);
        if (st) return czk_err_wrap(err, "engine: backend of device %d", d->ordinal);
        snprintf(d->name, sizeof d->name, "%s", d->backend.ops->name);
        d->workers = c->gpu_workers_per_device;
        identify(e, d, use_gpu ? g : NULL);
    }
    return CZK_OK;
}

czk_status czk_engine_create(czk_engine **out, const czk_engine_opts *opts, czk_err *err) {
    *out = NULL;
    czk_engine *e = calloc(1, sizeof *e);
    if (!e) return czk_errf(err, CZK_ERR_NOMEM, "engine: out of memory");
    e->opts = *opts;
    e->cfg = opts->config;
    czk_engine_config_finish(&e->cfg);
    const czk_engine_config *c = &e->cfg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->t0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->tl_mu, NULL);
    pthread_cond_t *cvs[] = {&e->synth_cv, &e->gpu_cv,   &e->fin_cv, &e->job_cv,
                             &e->srs_cv,   &e->house_cv, &e->dev_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_init(cvs[i], NULL);
    e->log_level = !strcmp(c->log_level, "error")                                     ? 0
                   : !strcmp(c->log_level, "warn")                                    ? 1
                   : !strcmp(c->log_level, "debug") || !strcmp(c->log_level, "trace") ? 3
                                                                                      : 2;
    czk_status st = CZK_OK;
    if (!c->pipeline_enabled)
        st = czk_errf(err, CZK_ERR_INVALID_ARG,
                      "engine: pipeline.enabled = false is not supported (czk has no "
                      "monolithic path)");
    else if (c->max_batch_size > 1)
        st = czk_errf(err, CZK_ERR_INVALID_ARG,
                      "engine: scheduler.max_batch_size = %u: only 1 is supported",
                      c->max_batch_size);
    else if (!c->gpu_workers_per_device || !c->finalize_workers || !c->partition_workers)
        st = czk_errf(err, CZK_ERR_INVALID_ARG,
                      "engine: gpus.gpu_workers_per_device, gpus.finalize_workers and "
                      "synthesis.partition_workers must be at least 1");
    if (st) {
        free(e);
        return st;
    }
    uint64_t total = c->total_budget;
    double gb = 1e9;
    if (total) {
        snprintf(e->budget_source, sizeof e->budget_source, "memory.total_budget");
    } else {
        /* CZK_SYS_ROOT: where /proc and /sys/fs/cgroup are read (tests); unset = "/" */
        czk_mem_limit ml;
        czk_mem_limit_read(&ml, getenv("CZK_SYS_ROOT"));
        uint64_t lim = ml.limit ? ml.limit : 256ull << 30;
        total = lim > c->safety_margin ? lim - c->safety_margin : 0;
        if (ml.cgroup_max && ml.cgroup_max == ml.limit)
            snprintf(e->budget_source, sizeof e->budget_source,
                     "cgroup %.150s memory.max %.1f GB (MemTotal %.1f GB) - safety_margin %.1f GB",
                     ml.cgroup, (double)ml.cgroup_max / gb, (double)ml.mem_total / gb,
                     (double)c->safety_margin / gb);
        else
            snprintf(e->budget_source, sizeof e->budget_source,
                     "%s %.1f GB - safety_margin %.1f GB",
                     ml.limit ? "MemTotal" : "MemTotal unknown: assumed", (double)lim / gb,
                     (double)c->safety_margin / gb);
    }
    e->budget.total = total;

    if (!(st = czk_timeline_open(e, err)) &&
        (!(e->synth_pool = czk_pool_create(c->threads, err)) ||
         !(e->gpu_pool = czk_pool_create(c->gpu_threads, err))))
        st = err && err->code ? err->code : CZK_ERR_NOMEM;
    if (!st) st = make_devices(e, err);
    if (st) {
        czk_engine_destroy(e);
        return st;
    }
    /* a backend with host_alloc copies witnesses to its device: give it the packed form too */
    e->pack_witness = e->devices[0].backend.ops->host_alloc != NULL;
    unsigned gpu_workers = (unsigned)e->num_devices * c->gpu_workers_per_device;
    e->gpu_queue_limit =
        c->max_gpu_queue_depth == CZK_GPU_QUEUE_AUTO ? 2 * gpu_workers : c->max_gpu_queue_depth;
    /* "2 devices × 2 GPU workers"; the CPU pseudo-device: "the CPU (no GPU) × 2 prover workers" */
    char devs[96];
    if (e->num_devices == 1 && e->devices[0].ordinal < 0)
        snprintf(devs, sizeof devs, "the CPU (no GPU) × %u prover worker%s",
                 c->gpu_workers_per_device, c->gpu_workers_per_device == 1 ? "" : "s");
    else if (e->devices[0].ordinal < 0)
        snprintf(devs, sizeof devs, "%d CPU pseudo-devices × %u prover worker%s", e->num_devices,
                 c->gpu_workers_per_device, c->gpu_workers_per_device == 1 ? "" : "s");
    else
        snprintf(devs, sizeof devs, "%d device%s × %u GPU worker%s", e->num_devices,
                 e->num_devices == 1 ? "" : "s", c->gpu_workers_per_device,
                 c->gpu_workers_per_device == 1 ? "" : "s");
    czk_engine_log(e, 2,
                   "engine: budget %llu bytes (%s), %u synthesis worker%s (%u thread%s), %s (%u "
                   "thread%s), %u finalizer%s, GPU queue %u%s, synthesis lookahead %u",
                   (unsigned long long)total, e->budget_source, c->partition_workers,
                   c->partition_workers == 1 ? "" : "s", czk_pool_threads(e->synth_pool),
                   czk_pool_threads(e->synth_pool) == 1 ? "" : "s", devs,
                   czk_pool_threads(e->gpu_pool), czk_pool_threads(e->gpu_pool) == 1 ? "" : "s",
                   c->finalize_workers, c->finalize_workers == 1 ? "" : "s", e->gpu_queue_limit,
                   e->gpu_queue_limit == 1 ? " partition at most"
                   : e->gpu_queue_limit    ? " partitions at most"
                                           : " (no limit)",
                   c->synthesis_lookahead);

    for (int i = 0; i < e->num_devices && !(e->num_devices == 1 && e->devices[0].ordinal < 0);
         i++) {
        const czk_device *d = &e->devices[i];
        char what[256];
        size_t k = 0;
        what[0] = 0;
        if (d->ordinal >= 0) put(what, sizeof what, &k, "CUDA index %d, ", d->ordinal);
        put(what, sizeof what, &k, "%s", d->id.name);
        if (d->id.uuid[0]) put(what, sizeof what, &k, ", %s", d->id.uuid);
        if (d->id.pci_bus_id[0]) put(what, sizeof what, &k, ", PCI %s", d->id.pci_bus_id);
        if (d->id.vram_total_bytes)
            put(what, sizeof what, &k, ", %.1f GiB", (double)d->id.vram_total_bytes / (1u << 30));
        czk_engine_log(e, 2, "engine: device %d: %s (backend %s)", i, what, d->name);
    }

    /* threads */
    e->num_synth_workers = (int)c->partition_workers;
    e->num_fin_workers = (int)c->finalize_workers;
    e->num_gpu_workers = e->num_devices * (int)c->gpu_workers_per_device;
    e->synth_workers = calloc((size_t)e->num_synth_workers, sizeof *e->synth_workers);
    e->fin_workers = calloc((size_t)e->num_fin_workers, sizeof *e->fin_workers);
    e->gpu_workers = calloc((size_t)e->num_gpu_workers, sizeof *e->gpu_workers);
    if (!e->synth_workers || !e->fin_workers || !e->gpu_workers) {
        czk_engine_destroy(e);
        return czk_errf(err, CZK_ERR_NOMEM, "engine: out of memory");
    }
    bool ok = true;
    for (int i = 0; i < e->num_synth_workers && ok; i++) {
        e->synth_workers[i] = (czk_worker_arg){.e = e, .index = i};
        ok = !pthread_create(&e->synth_workers[i].thread, NULL, czk_synth_main,
                             &e->synth_workers[i]);
        if (!ok) e->num_synth_workers = i;
    }
    for (int i = 0; i < e->num_gpu_workers && ok; i++) {
        czk_gpu_worker *g = &e->gpu_workers[i];
        g->e = e;
        g->dev = &e->devices[i / (int)c->gpu_workers_per_device];
        g->index = i;
        ok = !pthread_create(&g->thread, NULL, czk_gpu_main, g);
        if (!ok) e->num_gpu_workers = i;
    }
    for (int i = 0; i < e->num_fin_workers && ok; i++) {
        e->fin_workers[i] = (czk_worker_arg){.e = e, .index = i};
        ok = !pthread_create(&e->fin_workers[i].thread, NULL, czk_fin_main, &e->fin_workers[i]);
        if (!ok) e->num_fin_workers = i;
    }
    if (ok) ok = e->loader_started = !pthread_create(&e->loader, NULL, czk_srs_loader_main, e);
    if (ok) ok = e->house_started = !pthread_create(&e->house, NULL, house_main, e);
    if (!ok) {
        czk_engine_destroy(e);
        return czk_errf(err, CZK_ERR_NOMEM, "engine: cannot start threads");
    }
    /* srs.preload starts as the kinds that own the circuits are registered */
    *out = e;
    return CZK_OK;
}

void czk_engine_shutdown(czk_engine *e, bool drain) {
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->shut = true;
    if (drain) {
        for (;;) {
            bool busy = false;
            for (czk_job *j = e->jobs; j && !busy; j = j->next)
                busy = !terminal(j->state) || j->inflight;
            if (!busy) break;
            pthread_cond_wait(&e->job_cv, &e->mu);
        }
    } else {
        for (czk_job *j = e->jobs; j; j = j->next)
            czk_job_cancel(e, j, "shutdown");
    }
    pthread_cond_broadcast(&e->job_cv);
    pthread_mutex_unlock(&e->mu);
}

/* Appends to buf[cap] at *n (cut when full). */
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...) CZK_PRINTF(4, 5);
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
    if (*n >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (w > 0) *n = *n + (size_t)w < cap ? *n + (size_t)w : cap;
}

/* One held partition for describe_inflight. */
static void put_held(char *buf, size_t cap, size_t *n, const czk_item *it, const char *where,
                     int device, uint64_t now) {
    const czk_job *j = it->job;
    put(buf, cap, n, "%sjob %s (%s) partition %u ", *n ? ", " : "", j->id,
        czk_job_state_name(j->state), it->k);
    if (device != INT32_MIN)
        put(buf, cap, n, "on device %d", device);
    else
        put(buf, cap, n, "in %s", where);
    put(buf, cap, n, " for %llu ms", (unsigned long long)(now > it->since ? now - it->since : 0));
}

/* What is in flight (mu held), into buf: each partition a worker holds, then the queued and
 * parsing ones counted. Returns the number of partitions (and parses) in flight. */
static uint32_t describe_inflight(czk_engine *e, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = 0;
    uint64_t now = czk_engine_ms(e);
    uint32_t total = 0, held = 0;
    for (const czk_job *j = e->jobs; j; j = j->next)
        total += j->inflight;
    for (int i = 0; i < e->num_synth_workers; i++)
        if (e->synth_workers[i].item) {
            put_held(buf, cap, &n, e->synth_workers[i].item, "synthesis", INT32_MIN, now);
            held++;
        }
    for (int i = 0; i < e->num_gpu_workers; i++)
        if (e->gpu_workers[i].item) {
            put_held(buf, cap, &n, e->gpu_workers[i].item, "", e->gpu_workers[i].dev->ordinal, now);
            held++;
        }
    for (int i = 0; i < e->num_fin_workers; i++) {
        const czk_item *it = e->fin_workers[i].item;
        if (it) {
            put_held(buf, cap, &n, it, it->stage == IT_ASSEMBLE ? "assembly" : "finalize",
                     INT32_MIN, now);
            held++;
        }
    }
    uint32_t queued = e->n_synth_q + e->n_gpu_q + e->n_fin_q;
    if (queued) put(buf, cap, &n, "%s%u queued", n ? ", " : "", queued);
    if (total > held + queued) /* the rest: payloads being parsed */
        put(buf, cap, &n, "%s%u being parsed", n ? ", " : "", total - held - queued);
    return total;
}

czk_status czk_engine_wait_stopped(czk_engine *e, int64_t timeout_ms, czk_err *err) {
    uint64_t t0 = czk_engine_ms(e), last_log = 0;
    char what[900];
    czk_status st = CZK_OK;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        uint32_t n = describe_inflight(e, what, sizeof what);
        if (!n) break;
        uint64_t waited = czk_engine_ms(e) - t0;
        if (timeout_ms >= 0 && waited >= (uint64_t)timeout_ms) {
            st = czk_errf(err, CZK_ERR_TIMEOUT, "engine: work still in flight after %llu ms: %s",
                          (unsigned long long)waited, what);
            break;
        }
        if (!last_log || waited - last_log >= 5000) {
            char bound[48] = "";
            if (timeout_ms >= 0)
                snprintf(bound, sizeof bound, ", for at most %lld ms", (long long)timeout_ms);
            czk_engine_log(e, 2, "engine: waiting for work to stop (%u in flight%s): %s", n, bound,
                           what);
            last_log = waited ? waited : 1;
        }
        czk_timed_wait(&e->job_cv, &e->mu, 50);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

void czk_engine_destroy(czk_engine *e) {
    if (!e) return;
    czk_engine_shutdown(e, false);
    pthread_mutex_lock(&e->mu);
    e->stopping = true;
    atomic_store(&e->stop_flag, 1);
    pthread_cond_t *cvs[] = {&e->synth_cv, &e->gpu_cv,   &e->fin_cv, &e->job_cv,
                             &e->srs_cv,   &e->house_cv, &e->dev_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_broadcast(cvs[i]);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < e->num_synth_workers; i++)
        pthread_join(e->synth_workers[i].thread, NULL);
    for (int i = 0; i < e->num_gpu_workers; i++)
        pthread_join(e->gpu_workers[i].thread, NULL);
    for (int i = 0; i < e->num_fin_workers; i++)
        pthread_join(e->fin_workers[i].thread, NULL);
    if (e->loader_started) pthread_join(e->loader, NULL);
    if (e->house_started) pthread_join(e->house, NULL);
    /* every thread is gone: free what is left without ceremony */
    czk_item *qs[3] = {e->synth_q, e->gpu_q, e->fin_q};
    for (int i = 0; i < 3; i++)
        while (qs[i]) {
            czk_item *n = qs[i]->next;
            czk_item_free(e, qs[i]);
            qs[i] = n;
        }
    e->synth_q = e->gpu_q = e->fin_q = NULL;
    while (e->jobs) {
        czk_job *j = e->jobs;
        j->inflight = 0;
        if (j->state == CZK_JOB_CANCELLING) j->state = CZK_JOB_CANCELLED;
        czk_job_release(e, j);
        job_remove(e, j);
    }
    while (e->srs)
        czk_srs_free_entry(e, e->srs);
    for (int i = 0; i < e->num_devices; i++) {
        czk_backend_release(&e->devices[i].backend);
    }
    for (int i = 0; i < e->num_kinds; i++)
        if (e->kinds[i].destroy) e->kinds[i].destroy(e->kinds[i].ctx);
    free(e->devices);
    free(e->synth_workers);
    free(e->fin_workers);
    free(e->gpu_workers);
    czk_pool_destroy(e->synth_pool);
    czk_pool_destroy(e->gpu_pool);
    czk_timeline_close(e);
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_destroy(cvs[i]);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->tl_mu);
    free(e);
}
