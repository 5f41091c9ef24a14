/*
 * The partition pipeline: synthesis workers, GPU workers, finalizers and
 * the assembler.
 *
 * A job becomes one item per partition. Items wait in three queues, each
 * read in the same order: priority (CRITICAL first), then the job's submit
 * order, then partition index. Because the order is per item and not per
 * job, a sector's partitions flow through the stages one by one and the
 * next sector's partitions enter synthesis as soon as a worker is free,
 * while the device still proves the current sector (cuzk-engine.md §4
 * "Cross-sector").
 *
 * Admission (synthesis workers, with the engine mutex): the best item
 * whose circuit is loaded is taken only when the budget has room for its
 * working memory; if it has not, no worse item is taken instead (no
 * starvation of large items), idle SRS entries may be evicted, and the
 * worker waits. A partition's memory is its witness buffer (wpool.c: taken
 * from the circuit's pool of idle buffers, or allocated by the worker right
 * after admission and charged to the budget's buffers from then on) plus
 * the rest of its working memory, which is measured, not guessed: the first
 * partition of each shape runs alone as a probe (admitted when nothing else
 * is in flight, charged all free budget), its buffer is allocated and
 * touched before the baseline is taken, the housekeeping thread samples the
 * resident set while it runs, and peak − baseline becomes the shape's
 * per-partition charge beyond the buffer, whether the buffer is page-locked
 * or not. That charge returns when device work ends (the device stage's
 * buffers are gone); the buffer goes back to the pool then too when the
 * backend deferred nothing to the finalizer (a GPU backend: the finalizer
 * does not read the witness), else when the partition leaves the pipeline.
 * The pool is filled before the circuit is READY (wpool.c, prefill), so in
 * the steady state admission takes an idle buffer and never page-locks
 * memory while a device works.
 *
 * GPU workers: gpus.gpu_workers_per_device per device take items from the
 * GPU queue and call czk_prove_device with the device's lock. With several
 * devices a free worker takes the next item only when its device is the
 * one that will be free first (dev_first_free: the device time still ahead
 * of each, from its recent partitions' average, then the partitions it
 * holds, then its index), so a sector's partitions spread over the devices
 * and none idles while another has a backlog. A device failure
 * (CZK_ERR_DEVICE from its backend) marks the device failed, its workers
 * stop, and the partition goes back to the GPU queue, its witness intact,
 * for another device. The backend
 * holds the lock only around device work, so one worker's host-side
 * preparation overlaps another's kernels. GPU_START/GPU_END are emitted
 * by the lock itself. When device work ends the worker hands the partial
 * sums to the finalizers and loops at once.
 *
 * Priority under load (a WinningPoSt submitted while the device proves
 * PoRep partitions takes the device at the next partition boundary, and
 * the PoRep job goes on afterwards with its finished partitions): every
 * queue is read in priority order, and three rules keep a more urgent
 * partition from waiting behind lesser ones already past it —
 *   - a full GPU queue (pipeline.max_gpu_queue_depth) holds synthesis back
 *     only for partitions that would not go ahead of everything in it;
 *   - the first partition of a shape, measured alone, is admitted at once
 *     and unmeasured when it outranks every partition in flight (charged all
 *     free memory, so nothing lesser is admitted beside it);
 *   - the device lock goes to the most urgent partition a worker of the
 *     device holds or the GPU queue offers a free worker (may_take_device),
 *     not to whichever worker happened to wait first.
 *
 * Finalizers compute what the device left (the G2 MSM of B on the CPU),
 * randomize with fresh r, s and encode. The finalizer that completes a
 * job's last partition assembles it: every partition is verified against
 * the circuit's VK with the kind's public inputs, then the kind's encoding
 * (by default the 192-byte proofs in partition order) becomes the result.
 * A verification failure fails the job, names the partition and is counted.
 *
 * Cancellation and failure: queued items are dropped at once; the job's
 * cancel flag stops synthesis at its next check (czk_cs polls it) and
 * device work at the backend's next checkpoint (the GPU worker hands it to
 * the backend in the device lock, czk_device_lock.cancel); items held by a
 * worker are dropped when that worker hands them on; every drop returns
 * the item's working memory to the budget. A cancelled job is CANCELLING
 * while any item of it is held, and CANCELLED when the last one is dropped
 * (czk_item_free), so its state says whether its work has really stopped.
 */
#include "engine/internal.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool job_terminal(const czk_job *j) {
    return j->state == CZK_JOB_COMPLETED || j->state == CZK_JOB_FAILED ||
           j->state == CZK_JOB_CANCELLED;
}

/* Queue order: priority, then submit order, then partition. */
static bool item_before(const czk_item *a, const czk_item *b) {
    if (a->job->prio != b->job->prio) return a->job->prio > b->job->prio;
    if (a->job->seq != b->job->seq) return a->job->seq < b->job->seq;
    return a->k < b->k;
}

static void q_push(czk_item **q, czk_item *it) {
    it->next = *q;
    *q = it;
}

static void q_remove(czk_item **q, czk_item *it) {
    for (czk_item **pp = q; *pp; pp = &(*pp)->next)
        if (*pp == it) {
            *pp = it->next;
            it->next = NULL;
            return;
        }
}

/* ---- jobs ---- */

void czk_item_free(czk_engine *e, czk_item *it) {
    czk_job *j = it->job;
    e->budget.working -= it->reserved < e->budget.working ? it->reserved : e->budget.working;
    if (it->probe && j->srs && j->srs->probing) {
        j->srs->probing = false;
        e->probe_active = false;
    }
    if (it->buf) {
        czk_wpool_put(j->srs, it->buf); /* the witness in it is dropped with the item */
    } else if (it->buf_new) {           /* budget taken for a buffer never allocated */
        uint64_t wb = czk_wpool_buffer_bytes(e, j->srs->shape);
        e->budget.buffers -= wb < e->budget.buffers ? wb : e->budget.buffers;
        j->srs->n_bufs--;
    }
    free(it);
    j->inflight--;
    pthread_cond_broadcast(&e->synth_cv);
    pthread_cond_broadcast(&e->srs_cv);
    pthread_cond_broadcast(&e->dev_cv); /* the GPU queue may have lost its most urgent item */
    if (j->state == CZK_JOB_CANCELLING && !j->inflight)
        czk_job_finish(e, j, CZK_JOB_CANCELLED); /* its work has stopped */
    else
        czk_job_release(e, j);
}

void czk_job_release(czk_engine *e, czk_job *j) {
    if (!job_terminal(j) || j->inflight) return;
    if (j->srs_held) {
        j->srs_held = false;
        czk_srs_unref(e, j->srs);
    }
    if (j->kjob) {
        const czk_proof_kind *k = czk_engine_kind(e, j->kind);
        if (k->job_free) k->job_free(k->ctx, j->kjob);
        j->kjob = NULL;
    }
    free(j->proofs);
    j->proofs = NULL;
    pthread_cond_broadcast(&e->house_cv);
    pthread_cond_broadcast(&e->job_cv); /* a draining shutdown waits for this */
}

void czk_job_drop_queued(czk_engine *e, czk_job *j) {
    struct {
        czk_item **q;
        uint32_t *n;
    } qs[3] = {{&e->synth_q, &e->n_synth_q}, {&e->gpu_q, &e->n_gpu_q}, {&e->fin_q, &e->n_fin_q}};
    for (int i = 0; i < 3; i++) {
        czk_item **pp = qs[i].q;
        while (*pp) {
            czk_item *it = *pp;
            if (it->job != j) {
                pp = &it->next;
                continue;
            }
            *pp = it->next;
            (*qs[i].n)--;
            czk_item_free(e, it);
        }
    }
}

void czk_job_finish(czk_engine *e, czk_job *j, czk_job_state st) {
    if (job_terminal(j)) return;
    if (j->state == CZK_JOB_CANCELLING)
        czk_engine_log(e, 2, "job %s: cancelled; its work stopped %llu ms after the cancel", j->id,
                       (unsigned long long)(czk_engine_ms(e) - j->cancel_ms));
    j->state = st;
    j->done_ms = czk_engine_ms(e);
    uint64_t total = j->done_ms - j->submit_ms;
    int kid = (int)czk_engine_kind(e, j->kind)->id;
    if (st == CZK_JOB_COMPLETED) {
        double sec = (double)total / 1000.0;
        e->c_completed[kid]++;
        e->durations[e->n_durations++ % ENGINE_DURATIONS] = sec;
        size_t b = 0;
        while (b < CZK_DURATION_BUCKETS && sec > czk_duration_bucket_le(b))
            b++;
        e->c_hist[kid][b]++;
        e->c_dur_sum[kid] += sec;
    } else if (st == CZK_JOB_FAILED) {
        e->c_failed[kid]++;
    } else {
        e->c_cancelled++;
        e->c_cancelled_kind[kid]++;
    }
    czk_timeline_emit(e, CZK_EV_JOB_DONE, j->id, -1, -1, "status=%s total_ms=%llu partitions=%u",
                      czk_job_state_name(st), (unsigned long long)total, j->info.num_partitions);
    pthread_cond_broadcast(&e->job_cv);
    czk_job_release(e, j);
}

void czk_job_cancel(czk_engine *e, czk_job *j, const char *why) {
    if (czk_job_ended(j)) return;
    atomic_store(&j->cancel, 1);
    j->cancel_ms = czk_engine_ms(e);
    uint32_t held = j->inflight;
    czk_job_drop_queued(e, j);
    if (!j->inflight) {
        czk_engine_log(e, 2, "job %s: cancelled (%s; %u of %u partitions finalized)", j->id, why,
                       j->n_final, j->info.num_partitions);
        czk_job_finish(e, j, CZK_JOB_CANCELLED);
        return;
    }
    czk_engine_log(e, 2,
                   "job %s: cancelling (%s): %u queued partitions dropped, %u still held by "
                   "workers, which stop at their next checkpoint",
                   j->id, why, held - j->inflight, j->inflight);
    j->state = CZK_JOB_CANCELLING;
    pthread_cond_broadcast(&e->job_cv); /* its state changed */
}

void czk_job_fail(czk_engine *e, czk_job *j, czk_status code, const char *fmt, ...) {
    if (czk_job_ended(j)) return;
    j->err_code = code ? code : CZK_ERR_INTERNAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof j->err, fmt, ap);
    va_end(ap);
    atomic_store(&j->cancel, 1);
    czk_engine_log(e, 0, "%s", j->err);
    czk_job_drop_queued(e, j);
    czk_job_finish(e, j, CZK_JOB_FAILED);
}

/* ---- synthesis ---- */

/* The best item of a queue (by item_before) that pass accepts, or NULL. */
static czk_item *q_best(czk_item *q, bool (*pass)(czk_engine *, czk_item *), czk_engine *e) {
    czk_item *best = NULL;
    for (czk_item *it = q; it; it = it->next)
        if ((!pass || pass(e, it)) && (!best || item_before(it, best))) best = it;
    return best;
}

static bool synth_ready(czk_engine *e, czk_item *it) {
    (void)e;
    srs_entry *s = it->job->srs;
    return s && s->state == SRS_READY && !s->probing;
}

/* Fails a job whose partition can never fit (mu held), naming the numbers. */
static void refuse(czk_engine *e, czk_job *j, const czk_item *it, uint64_t need, const char *what) {
    const czk_budget *b = &e->budget;
    czk_job_fail(e, j, CZK_ERR_NOMEM,
                 "job %s partition %u admission: needs %llu bytes (%s), the memory budget has "
                 "%llu free of %llu (%s; SRS %llu, shapes %llu, witness buffers %llu, working "
                 "%llu) with nothing in flight and nothing left to free",
                 j->id, it->k, (unsigned long long)need, what,
                 (unsigned long long)czk_budget_free(b), (unsigned long long)b->total,
                 e->budget_source, (unsigned long long)b->srs, (unsigned long long)b->shapes,
                 (unsigned long long)b->buffers, (unsigned long long)b->working);
}

/* True when every partition past the synthesis queue (mu held) is of a job of lower
 * priority than p. */
static bool outranks_flight(czk_engine *e, czk_priority p) {
    for (czk_job *j = e->jobs; j; j = j->next) {
        if (j->prio < p || !j->inflight) continue;
        uint32_t queued = 0;
        for (czk_item *it = e->synth_q; it; it = it->next)
            queued += it->job == j;
        if (j->inflight > queued) return false; /* held by a worker, or past synthesis */
    }
    return true;
}

/* True when `it` would go ahead of every partition in the GPU queue (mu held). */
static bool heads_gpu_queue(czk_engine *e, const czk_item *it) {
    for (czk_item *o = e->gpu_q; o; o = o->next)
        if (!item_before(it, o)) return false;
    return true;
}

/* Picks and admits an item (mu held). NULL: nothing can start now. */
static czk_item *admit(czk_engine *e) {
    if (e->probe_active) return NULL;
    czk_item *it = q_best(e->synth_q, synth_ready, e);
    if (!it) return NULL;
    /* a full GPU queue holds synthesis back, except for a partition that would go ahead of
     * everything in it (a more urgent job's: it takes the device at the next boundary) */
    if (e->gpu_queue_limit && e->n_gpu_q >= e->gpu_queue_limit && !heads_gpu_queue(e, it))
        return NULL;
    czk_job *j = it->job;
    srs_entry *s = j->srs;
    /* the circuit of a more urgent job waits for room to load: take none of it */
    for (srs_entry *o = e->srs; o; o = o->next)
        if (o->waiting_budget && o->load_prio > (int)j->prio) return NULL;
    uint32_t flight = e->n_synth + e->n_gpu_q + e->n_gpu + e->n_fin_q + e->n_fin;
    /* the shape's first partition runs alone, to be measured; one more urgent than all in
     * flight runs at once, unmeasured, charged all free memory (so no lesser partition is
     * admitted beside it until its device work ends) */
    bool guest = !s->part_bytes && flight;
    if (guest && !outranks_flight(e, j->prio)) return NULL;
    uint64_t wb = czk_wpool_buffer_bytes(e, s->shape);
    czk_wbuf *buf = czk_wpool_take(s); /* an idle buffer of this shape; else a new one */
    uint64_t new_buf = buf ? 0 : wb, work;
    if (!s->part_bytes) {
        /* the probe: its buffer, then all that is left (it is measured alone) */
        if (czk_budget_free(&e->budget) <= new_buf) czk_srs_make_room(e, new_buf + 1, !guest);
        if (czk_budget_free(&e->budget) <= new_buf) {
            if (buf) czk_wpool_put(s, buf);
            if (!guest) refuse(e, j, it, new_buf + 1, "its witness buffer, at least");
            return NULL; /* a guest waits for memory to come back */
        }
        work = czk_budget_free(&e->budget) - new_buf;
        if (!guest) {
            it->probe = true;
            s->probing = true;
            e->probe_active = true;
        }
    } else {
        work = s->part_device_bytes;
        uint64_t need = work + new_buf;
        if (czk_budget_free(&e->budget) < need && !czk_srs_make_room(e, need, false)) {
            if (!flight && !czk_srs_make_room(e, need, true))
                refuse(e, j, it, need,
                       new_buf ? "working memory and a new witness buffer" : "working memory");
            if (buf) czk_wpool_put(s, buf);
            return NULL; /* wait for memory; no lesser item jumps ahead */
        }
    }
    q_remove(&e->synth_q, it);
    e->n_synth_q--;
    e->n_synth++;
    it->stage = IT_SYNTH;
    it->buf = buf;
    it->buf_new = !buf;
    if (!buf) { /* charged now, allocated by the worker outside the mutex */
        e->budget.buffers += wb;
        s->n_bufs++;
    }
    it->reserved = work;
    e->budget.working += work;
    uint64_t now = czk_engine_ms(e);
    it->since = now;
    if (!j->started) {
        j->started = true;
        j->state = CZK_JOB_RUNNING;
        j->first_synth_ms = now;
        uint64_t ready = s->load_start + s->load_ms;
        j->srs_wait_ms = ready > j->submit_ms ? ready - j->submit_ms : 0;
    }
    return it;
}

void *czk_synth_main(void *arg) {
    czk_worker_arg *wa = arg;
    czk_engine *e = wa->e;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        czk_item *it = admit(e);
        if (!it) {
            czk_timed_wait(&e->synth_cv, &e->mu, 250);
            continue;
        }
        wa->item = it;
        czk_job *j = it->job;
        const czk_proof_kind *k = czk_engine_kind(e, j->kind);
        srs_entry *se = j->srs;
        const czk_shape *shape = se->shape;
        czk_timeline_emit(e, CZK_EV_SYNTH_START, j->id, (int)it->k, wa->index, "reserved=%llu%s%s",
                          (unsigned long long)it->reserved, it->probe ? " probe=1" : "",
                          it->buf_new ? " new_buffer=1" : "");
        uint64_t t0 = czk_engine_ms(e);
        pthread_mutex_unlock(&e->mu);

        czk_err err;
        czk_err_clear(&err);
        czk_status st = CZK_OK;
        if (it->buf_new) { /* a buffer for the pool: allocated (and touched) once */
            czk_wbuf *nb = NULL;
            st = czk_wpool_alloc(e, shape, &nb, &err);
            pthread_mutex_lock(&e->mu);
            if (!st) {
                it->buf = nb;
                it->buf_new = false;
                if (nb->owner) se->n_pinned_bufs++;
            }
            pthread_mutex_unlock(&e->mu);
        }
        if (!st && it->probe) { /* the baseline after the buffer: the probe measures the rest */
            uint64_t base = czk_rss_bytes();
            pthread_mutex_lock(&e->mu);
            it->probe_base_rss = base;
            e->probe_peak_rss = base;
            pthread_mutex_unlock(&e->mu);
        }
        if (!st) {
            const czk_wbuf *b = it->buf;
            it->buf_pinned = b->owner != NULL;
            it->w = (czk_witness){b->inputs, b->aux, b->in_cap, b->aux_cap, NULL};
            st = k->synthesize(k->ctx, j->kjob, it->k, shape, &j->cancel, e->synth_pool, &it->w,
                               &err);
            if (!st && (it->w.inputs != b->inputs || it->w.aux != b->aux))
                st = czk_errf(&err, CZK_ERR_INTERNAL,
                              "kind %s did not leave the witness in the engine's buffers", k->name);
            if (!st && (it->w.num_inputs != shape->num_inputs || it->w.num_aux != shape->num_aux))
                st = czk_errf(&err, CZK_ERR_MISMATCH,
                              "witness has %u inputs and %u aux, the circuit %u and %u",
                              it->w.num_inputs, it->w.num_aux, shape->num_inputs, shape->num_aux);
        }
        /* the packed form the device backend uploads instead (wpool.c), made here so that its
         * pass over the witness is synthesis time, not device time */
        char packed[64] = "";
        if (!st && e->pack_witness) {
            uint64_t tp = czk_engine_ms(e);
            bool ok = czk_wpool_pack(it->buf, &it->w, e->synth_pool);
            snprintf(packed, sizeof packed, " pack_ms=%llu packed=%s",
                     (unsigned long long)(czk_engine_ms(e) - tp), ok ? "1" : "0");
        }

        pthread_mutex_lock(&e->mu);
        wa->item = NULL;
        uint64_t ms = czk_engine_ms(e) - t0;
        e->n_synth--;
        j->synth_ms += ms;
        czk_timeline_emit(e, CZK_EV_SYNTH_END, j->id, (int)it->k, wa->index, "synth_ms=%llu%s%s%s",
                          (unsigned long long)ms, packed, st ? " error=" : "",
                          st ? czk_status_name(st) : "");
        if (st && !czk_job_ended(j)) {
            if (st == CZK_ERR_CANCELLED)
                czk_job_fail(e, j, st, "job %s partition %u synthesis: cancelled", j->id, it->k);
            else
                czk_job_fail(e, j, st, "job %s partition %u synthesis: %s", j->id, it->k, err.msg);
        }
        if (st || czk_job_ended(j)) {
            czk_item_free(e, it);
            continue;
        }
        if (e->num_failed_devices == e->num_devices) {
            czk_job_fail(e, j, CZK_ERR_DEVICE, "job %s partition %u: every device has failed",
                         j->id, it->k);
            czk_item_free(e, it);
            continue;
        }
        j->n_synth++;
        e->c_synthesized++;
        it->stage = IT_GPU_QUEUE;
        it->since = czk_engine_ms(e);
        q_push(&e->gpu_q, it);
        e->n_gpu_q++;
        czk_timeline_emit(e, CZK_EV_GPU_QUEUE, j->id, (int)it->k, -1, "depth=%u", e->n_gpu_q);
        pthread_cond_broadcast(&e->gpu_cv);
        pthread_cond_broadcast(&e->dev_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- GPU workers ---- */

/*
 * The device lock, in priority order. A worker takes the device only when
 * no other worker of the device prepares or waits with a more urgent
 * partition (item_before), and, while the GPU queue holds a partition more
 * urgent than its own, not while a worker of the device is free to take
 * that one (idle, or just past its device work): so a CRITICAL partition
 * that reaches the GPU queue is the next on the device once the partition
 * on it now releases it, ahead of partitions other workers already took.
 * A plain mutex would let whichever worker was waiting go first. mu held.
 */
static bool may_take_device(czk_engine *e, const czk_gpu_worker *gw) {
    const czk_device *d = gw->dev;
    if (d->locked) return false;
    if (e->stopping) return true;
    const czk_item *best = q_best(e->gpu_q, NULL, e);
    bool queued_first = best && item_before(best, gw->item);
    for (int i = 0; i < e->num_gpu_workers; i++) {
        const czk_gpu_worker *o = &e->gpu_workers[i];
        if (o == gw || o->dev != d) continue;
        if ((o->phase == GW_PREP || o->phase == GW_WAIT) && item_before(o->item, gw->item))
            return false;
        if (queued_first && (o->phase == GW_IDLE || o->phase == GW_POST)) return false;
    }
    return true;
}

static void dev_acquire(void *ctx) {
    czk_gpu_worker *gw = ctx;
    czk_engine *e = gw->e;
    pthread_mutex_lock(&e->mu);
    gw->phase = GW_WAIT;
    while (!may_take_device(e, gw))
        czk_timed_wait(&e->dev_cv, &e->mu, 50);
    gw->phase = GW_HOLD;
    gw->lock_t0 = czk_engine_ms(e);
    gw->dev->locked = true;
    gw->dev->lock_t0 = gw->lock_t0;
    gw->dev->lock_worker = gw->index;
    snprintf(gw->dev->current_job, sizeof gw->dev->current_job, "%s", gw->item->job->id);
    gw->dev->current_kind = czk_engine_kind(e, gw->item->job->kind)->id;
    /* under mu: the timeline's order is the lock's, beside GPU_QUEUE and the others */
    czk_timeline_emit(e, CZK_EV_GPU_START, gw->item->job->id, (int)gw->item->k, gw->index,
                      "device=%d", gw->dev->ordinal);
    pthread_mutex_unlock(&e->mu);
}

static void dev_release(void *ctx) {
    czk_gpu_worker *gw = ctx;
    czk_engine *e = gw->e;
    uint64_t ms = czk_engine_ms(e) - gw->lock_t0;
    gw->item->gpu_ms += ms;
    pthread_mutex_lock(&e->mu);
    czk_timeline_emit(e, CZK_EV_GPU_END, gw->item->job->id, (int)gw->item->k, gw->index,
                      "device=%d gpu_ms=%llu", gw->dev->ordinal, (unsigned long long)ms);
    gw->dev->busy_ms += ms;
    gw->dev->locked = false;
    gw->dev->current_job[0] = 0;
    gw->phase = GW_POST;
    pthread_cond_broadcast(&e->dev_cv);
    pthread_mutex_unlock(&e->mu);
}

/*
 * Device time a device still has ahead of it (mu held), ms: per partition its
 * workers hold and have not finished on the device, the device's recent average,
 * less what the one on the device has done already. 0 while no average is known.
 */
static uint64_t dev_backlog(const czk_engine *e, const czk_device *d, uint64_t now) {
    uint64_t t = 0;
    for (int i = 0; i < e->num_gpu_workers; i++) {
        const czk_gpu_worker *w = &e->gpu_workers[i];
        if (w->dev != d || !w->item || w->phase == GW_POST) continue; /* POST: done with it */
        uint64_t done = w->phase == GW_HOLD && now > w->lock_t0 ? now - w->lock_t0 : 0;
        t += d->ema_ms > done ? d->ema_ms - done : 0;
    }
    return t;
}

/*
 * Whether the GPU queue's next partition is for device d, whose worker asks
 * (mu held): of the devices that have not failed and have a free worker, the one
 * that will be free first — the least backlog, then the fewest partitions held,
 * then the lowest index (a strict order: exactly one device is first, and its
 * free worker takes the partition).
 */
static bool dev_first_free(czk_engine *e, const czk_device *d) {
    if (e->num_devices - e->num_failed_devices <= 1) return true;
    uint64_t now = czk_engine_ms(e), mine = dev_backlog(e, d, now);
    for (int i = 0; i < e->num_devices; i++) {
        const czk_device *o = &e->devices[i];
        if (o == d || o->failed || o->busy >= o->workers) continue;
        uint64_t b = dev_backlog(e, o, now);
        if (b != mine ? b < mine : o->busy != d->busy ? o->busy < d->busy : o->index < d->index)
            return false;
    }
    return true;
}

/* Fails every job that has not ended (mu held): no device is left to prove it. */
static void fail_all_deviceless(czk_engine *e) {
    char why[400];
    size_t n = 0;
    why[0] = 0;
    for (int i = 0; i < e->num_devices && n < sizeof why; i++) {
        int w = snprintf(why + n, sizeof why - n, "%sdevice %d: %s", i ? "; " : "", i,
                         e->devices[i].fail_msg);
        if (w > 0) n += (size_t)w;
    }
    for (czk_job *j = e->jobs; j; j = j->next)
        if (!czk_job_ended(j))
            czk_job_fail(e, j, CZK_ERR_DEVICE, "job %s: every device has failed (%s)", j->id, why);
}

/*
 * A device failure (mu held): the device's backend returned CZK_ERR_DEVICE for
 * it (a launch error, a lost device). The device takes no more work; its workers
 * stop as they come back; what it held goes back to the GPU queue for the others.
 */
static void dev_fail(czk_engine *e, czk_device *d, const czk_item *it, const char *msg) {
    d->failed = true;
    d->fail_ms = czk_engine_ms(e);
    snprintf(d->fail_msg, sizeof d->fail_msg, "%.250s", msg);
    e->num_failed_devices++;
    czk_engine_log(e, 0,
                   "device %d (%s %s): failed on job %s partition %u: %s; it takes no more work "
                   "(%d of %d devices left)",
                   d->index, d->name, d->id.name, it->job->id, it->k, msg,
                   e->num_devices - e->num_failed_devices, e->num_devices);
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_cond_broadcast(&e->dev_cv);
    if (e->num_failed_devices == e->num_devices) fail_all_deviceless(e);
}

void *czk_gpu_main(void *arg) {
    czk_gpu_worker *gw = arg;
    czk_engine *e = gw->e;
    czk_device *dev = gw->dev;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping && !dev->failed) {
        czk_item *it = q_best(e->gpu_q, NULL, e);
        if (!it || !dev_first_free(e, dev)) {
            if (gw->phase != GW_IDLE) {
                gw->phase = GW_IDLE;
                pthread_cond_broadcast(&e->dev_cv);
            }
            if (it) /* another device is free sooner: it takes this one; look again soon */
                czk_timed_wait(&e->gpu_cv, &e->mu, 20);
            else
                pthread_cond_wait(&e->gpu_cv, &e->mu);
            continue;
        }
        q_remove(&e->gpu_q, it);
        e->n_gpu_q--;
        e->n_gpu++;
        dev->busy++;
        gw->phase = GW_PREP;
        pthread_cond_broadcast(&e->dev_cv);
        if (e->gpu_q) pthread_cond_broadcast(&e->gpu_cv); /* the order of devices changed */
        if (e->gpu_queue_limit) pthread_cond_broadcast(&e->synth_cv); /* room to pace */
        it->stage = IT_GPU;
        it->since = czk_engine_ms(e);
        gw->item = it;
        czk_job *j = it->job;
        const czk_params *params = j->srs->params;
        const czk_shape *shape = j->srs->shape;
        czk_timeline_emit(e, CZK_EV_GPU_PICKUP, j->id, (int)it->k, gw->index, "device=%d",
                          dev->ordinal);
        uint64_t gpu_ms0 = it->gpu_ms;
        pthread_mutex_unlock(&e->mu);

        czk_device_lock lk = {dev_acquire, dev_release, gw, &j->cancel};
        czk_err err;
        czk_err_clear(&err);
        czk_status st = czk_prove_device(&dev->backend, params, shape, &it->w, &lk, &it->sums,
                                         &it->deferred, &it->tm, &err);

        pthread_mutex_lock(&e->mu);
        gw->item = NULL;
        gw->phase = GW_POST; /* also when the device part failed before taking the lock */
        e->n_gpu--;
        dev->busy--;
        if (st == CZK_ERR_CANCELLED && czk_job_ended(j))
            czk_engine_log(e, 2, "job %s partition %u device %d: stopped (%s)", j->id, it->k,
                           dev->ordinal, err.msg);
        /* a device failure, or any error of a device that has failed meanwhile: the
         * partition (its witness intact) goes back to the queue for the other devices,
         * unless two devices have failed under it or none is left */
        if (st == CZK_ERR_DEVICE || (st && st != CZK_ERR_CANCELLED && dev->failed)) {
            if (!dev->failed) {
                dev_fail(e, dev, it, err.msg);
                it->failed_on |= 1ull << dev->index; /* index < CZK_ENGINE_MAX_DEVICES */
            }
            bool requeue = !czk_job_ended(j) && e->num_failed_devices < e->num_devices &&
                           __builtin_popcountll(it->failed_on) < 2;
            czk_timeline_emit(e, CZK_EV_DEVICE_FAILED, j->id, (int)it->k, gw->index,
                              "device=%d requeued=%d error=%s", dev->ordinal, requeue,
                              czk_status_name(st));
            if (requeue) {
                dev->requeued++;
                memset(&it->sums, 0, sizeof it->sums);
                it->deferred = 0;
                memset(&it->tm, 0, sizeof it->tm);
                it->stage = IT_GPU_QUEUE;
                it->since = czk_engine_ms(e);
                q_push(&e->gpu_q, it);
                e->n_gpu_q++;
                czk_engine_log(e, 1,
                               "job %s partition %u: back in the GPU queue (device %d failed)",
                               j->id, it->k, dev->index);
                czk_timeline_emit(e, CZK_EV_GPU_QUEUE, j->id, (int)it->k, -1, "depth=%u requeued=1",
                                  e->n_gpu_q);
                pthread_cond_broadcast(&e->gpu_cv);
                pthread_cond_broadcast(&e->dev_cv);
                continue;
            }
            if (!czk_job_ended(j))
                czk_job_fail(e, j, CZK_ERR_DEVICE,
                             "job %s partition %u: device %d (%s) failed%s: %s", j->id, it->k,
                             dev->index, dev->id.name,
                             e->num_failed_devices == e->num_devices
                                 ? ", and no device is left"
                                 : " after another device had failed under this partition",
                             err.msg);
            czk_item_free(e, it);
            continue;
        }
        if (st && !czk_job_ended(j))
            czk_job_fail(e, j, st, "job %s partition %u device %d (%s): %s", j->id, it->k,
                         dev->ordinal, dev->name, err.msg);
        if (st || czk_job_ended(j)) {
            czk_item_free(e, it);
            continue;
        }
        dev->proved++;
        uint64_t ms = it->gpu_ms - gpu_ms0;
        dev->ema_ms = dev->ema_ms ? (3 * dev->ema_ms + ms + 2) / 4 : ms ? ms : 1;
        e->c_proved++;
        j->n_proved++;
        j->gpu_ms += it->gpu_ms;
        /* the device stage's buffers are gone: return that charge (the witness buffer stays
         * with the partition until it leaves; the probe keeps all until it is measured) */
        uint64_t rel = it->probe ? 0 : it->reserved;
        it->reserved -= rel;
        e->budget.working -= rel;
        if (!it->deferred && it->buf) {
            /* the finalizer will not read the witness: its buffer serves the next partition */
            czk_wpool_put(j->srs, it->buf);
            it->buf = NULL;
            memset(&it->w, 0, sizeof it->w);
            rel = 1;
        }
        if (rel) pthread_cond_broadcast(&e->synth_cv);
        it->stage = IT_FIN_QUEUE;
        it->since = czk_engine_ms(e);
        q_push(&e->fin_q, it);
        e->n_fin_q++;
        pthread_cond_broadcast(&e->fin_cv);
    }
    if (dev->failed) { /* its device failed: this worker stops, the others serve */
        gw->phase = GW_GONE;
        pthread_cond_broadcast(&e->dev_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- finalizers and the assembler ---- */

/* Verifies and encodes a job whose partitions are all finalized (mu not held). */
static czk_status assemble(czk_engine *e, czk_job *j, uint8_t **out, size_t *out_len,
                           czk_err *err) {
    const czk_proof_kind *k = czk_engine_kind(e, j->kind);
    uint32_t n = j->info.num_partitions, ni = j->info.num_public_inputs;
    czk_fr *inputs = malloc(((size_t)ni + 1) * sizeof *inputs);
    if (!inputs) return czk_errf(err, CZK_ERR_NOMEM, "job %s assembly: out of memory", j->id);
    czk_status st = CZK_OK;
    for (uint32_t p = 0; p < n && !st; p++) {
        if ((st = k->public_inputs(k->ctx, j->kjob, p, inputs, err))) {
            czk_err_wrap(err, "job %s partition %u public inputs", j->id, p);
        } else if ((st = czk_verify(j->srs->pvk, &j->proofs[p], inputs, ni, err))) {
            czk_err_wrap(err,
                         "job %s partition %u: the proof does not verify against the VK of "
                         "%s",
                         j->id, p, j->srs->id);
            if (st == CZK_ERR_VERIFY) {
                pthread_mutex_lock(&e->mu);
                e->c_verify_failures++;
                pthread_mutex_unlock(&e->mu);
            }
        }
    }
    free(inputs);
    if (st) return st;
    if (k->assemble) {
        if ((st = k->assemble(k->ctx, j->kjob, j->proofs, n, out, out_len, err)))
            czk_err_wrap(err, "job %s assembly", j->id);
        return st;
    }
    uint8_t *b = malloc((size_t)n * CZK_PROOF_BYTES);
    if (!b) return czk_errf(err, CZK_ERR_NOMEM, "job %s assembly: out of memory", j->id);
    for (uint32_t p = 0; p < n; p++)
        czk_proof_encode(b + (size_t)p * CZK_PROOF_BYTES, &j->proofs[p]);
    *out = b;
    *out_len = (size_t)n * CZK_PROOF_BYTES;
    return CZK_OK;
}

void *czk_fin_main(void *arg) {
    czk_worker_arg *wa = arg;
    czk_engine *e = wa->e;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        czk_item *it = q_best(e->fin_q, NULL, e);
        if (!it) {
            pthread_cond_wait(&e->fin_cv, &e->mu);
            continue;
        }
        q_remove(&e->fin_q, it);
        e->n_fin_q--;
        e->n_fin++;
        it->stage = IT_FIN;
        it->since = czk_engine_ms(e);
        wa->item = it;
        czk_job *j = it->job;
        const czk_params *params = j->srs->params;
        const czk_shape *shape = j->srs->shape;
        czk_timeline_emit(e, CZK_EV_FINALIZE_START, j->id, (int)it->k, wa->index, NULL);
        uint64_t t0 = czk_engine_ms(e);
        pthread_mutex_unlock(&e->mu);

        czk_err err;
        czk_err_clear(&err);
        czk_proof proof;
        czk_fr r, s;
        bool fixed = e->opts.randomness != NULL; /* tests only */
        if (fixed) e->opts.randomness(e->opts.randomness_ctx, j->id, it->k, &r, &s);
        czk_status st =
            czk_prove_finalize(params, shape, &it->w, &it->sums, it->deferred, fixed ? &r : NULL,
                               fixed ? &s : NULL, &proof, e->gpu_pool, &it->tm, &err);
        uint64_t wbytes = czk_wpool_buffer_bytes(e, shape);

        pthread_mutex_lock(&e->mu);
        e->n_fin--;
        uint64_t ms = czk_engine_ms(e) - t0;
        const czk_prove_timings *tm = &it->tm;
#define US(x) (unsigned long long)((x)*1e6 + 0.5)
        czk_timeline_emit(e, CZK_EV_FINALIZE_END, j->id, (int)it->k, wa->index,
                          "finalize_ms=%llu upload_us=%llu spmv_us=%llu ntt_us=%llu msm_h_us=%llu "
                          "msm_l_us=%llu msm_a_us=%llu msm_b1_us=%llu msm_b2_us=%llu "
                          "assemble_us=%llu%s%s",
                          (unsigned long long)ms, US(tm->upload), US(tm->spmv), US(tm->ntt),
                          US(tm->msm_h), US(tm->msm_l), US(tm->msm_a), US(tm->msm_b1),
                          US(tm->msm_b2), US(tm->assemble), st ? " error=" : "",
                          st ? czk_status_name(st) : "");
#undef US
        if (it->probe) {
            srs_entry *s = j->srs;
            uint64_t peak = e->probe_peak_rss, cur = czk_rss_bytes();
            if (cur > peak) peak = cur;
            /* the baseline was taken with the witness buffer already allocated and touched */
            uint64_t measured = peak > it->probe_base_rss ? peak - it->probe_base_rss : 0;
            if (measured < 4096) measured = 4096;
            if (!st) {
                s->part_device_bytes = measured;
                s->part_bytes = wbytes + measured;
                if (measured > it->reserved)
                    czk_engine_log(e, 1,
                                   "srs %s: the measured partition (%llu bytes beside its "
                                   "witness buffer) took more than the budget had free (%llu): "
                                   "the budget was exceeded while it ran",
                                   s->id, (unsigned long long)measured,
                                   (unsigned long long)it->reserved);
                czk_engine_log(e, 2,
                               "srs %s: one partition takes %llu bytes of working memory "
                               "(witness buffer %llu, %s, + resident-set peak %llu over its "
                               "start; measured on job %s partition %u)",
                               s->id, (unsigned long long)s->part_bytes, (unsigned long long)wbytes,
                               it->buf_pinned ? "page-locked" : "pageable",
                               (unsigned long long)measured, j->id, it->k);
            }
        }
        if (st && !czk_job_ended(j))
            czk_job_fail(e, j, st, "job %s partition %u finalize: %s", j->id, it->k, err.msg);
        if (st || czk_job_ended(j)) {
            wa->item = NULL;
            czk_item_free(e, it);
            continue;
        }
        j->proofs[it->k] = proof;
        j->n_final++;
        if (j->n_final < j->info.num_partitions) {
            wa->item = NULL;
            czk_item_free(e, it);
            continue;
        }
        /* the last partition: assemble while this item keeps the job alive */
        it->stage = IT_ASSEMBLE;
        it->since = czk_engine_ms(e);
        pthread_mutex_unlock(&e->mu);
        uint8_t *bytes = NULL;
        size_t len = 0;
        czk_err_clear(&err);
        st = assemble(e, j, &bytes, &len, &err);
        pthread_mutex_lock(&e->mu);
        if (czk_job_ended(j)) {
            free(bytes);
        } else if (st) {
            free(bytes);
            czk_job_fail(e, j, st, "%s", err.msg);
        } else {
            j->result = bytes;
            j->result_len = len;
            czk_engine_log(e, 2, "job %s: %u partition%s proved and verified (%zu bytes)", j->id,
                           j->info.num_partitions, j->info.num_partitions == 1 ? "" : "s", len);
            czk_job_finish(e, j, CZK_JOB_COMPLETED);
        }
        wa->item = NULL;
        czk_item_free(e, it);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
