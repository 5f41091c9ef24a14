/*
 * Witness buffers: one pool per loaded circuit (SRS entry).
 *
 * A 32GiB partition's witness is 4.2 GB (130 M values of 32 bytes). Made in
 * a fresh malloc block each time, most of its cost is the kernel mapping
 * and zeroing a million pages while sixteen workers fight over the memory
 * map (spec/perf-anchors.md §9: 16 threads reached only 7× one thread). So
 * a partition is synthesized into a buffer that an earlier partition of the
 * same shape already used: the kind's synthesize gets the arrays
 * (czk_cs_set_witness_buffers), the GPU worker uploads from them and the
 * finalizer reads them; when the partition leaves the pipeline its buffer
 * goes back to the entry's idle list for the next one.
 *
 * A buffer comes from the first device's backend (the first that has not
 * failed) when it offers host_alloc
 * (page-locked memory: the upload runs at full PCIe speed, no staging copy),
 * else from czk_hostmem_alloc (anonymous, 2 MiB aligned, huge-page advised,
 * touched once). Several devices share it, so a GPU backend's host_alloc
 * must give memory every device can read (CUDA: portable page-locked memory).
 *
 * Budget: every buffer, idle or held, is charged to budget.buffers from the
 * admission that decides to allocate it until it is freed; a partition's
 * own charge (item.reserved) is the rest of its working memory. Idle buffers
 * are the first thing freed when memory is short (czk_srs_make_room), all of
 * an entry's go when the entry is evicted or the engine stops, and those of
 * an entry no job has held for memory.eviction_min_idle are returned by the
 * housekeeper, so an idle daemon does not keep tens of GB of buffers.
 *
 * The packed form: where the devices' backend offers host_alloc (a GPU
 * backend, which copies the witness to its device), every buffer also has
 * room for the witness's packed form after the aux (czk_witness_packed_bytes:
 * 1.25 bytes a value, 3.9 % of the witness; a 32GiB partition's 4.2 GB
 * buffer gets 163 MB), and the synthesis worker packs the witness there
 * right after the kind's synthesize (czk_wpool_pack: czk_witness_pack on the
 * synthesis pool) and hands it on as czk_witness.packed; the backend copies
 * that instead of the witness (≈ 87 MB instead of 4.2 GB for PoRep). The
 * pass costs synthesis time, off the device's critical path; a witness with
 * more others than the room (WindowPoSt's, dense) stops early and goes
 * unpacked. The full witness stays: the finalizer and the CPU backend read
 * it.
 *
 * When it is given back: a partition's buffer returns to the pool when the
 * partition leaves the pipeline, or as soon as its device work ends when the
 * backend left nothing to the finalizer (no deferred sums: a GPU backend
 * computes all of them, so the finalizer never reads the witness).
 *
 * Prefill: page-locking a 3.88 GiB buffer (cudaHostAlloc) takes about a
 * second and the driver's locks, so buffers allocated while a device works
 * stall it and each other (the first 32GiB partitions took 9-10 s). So when
 * a circuit's keys and shape are loaded, before its entry is READY (the
 * cost lands in its time to ready, not on proofs), the pool is filled with
 * as many buffers as the pipeline can hold at once, czk_wpool_capacity:
 * each synthesis worker holds one, the GPU queue at most max_gpu_queue_depth
 * − 1 more (a partition is admitted only while the queue is below the
 * limit, and each of those in synthesis may then still join it), each GPU
 * worker one; with no queue limit the queue is counted as one more buffer
 * per synthesis worker. Finalizers hold none where nothing is deferred;
 * where B2 is left to the CPU (the CPU backend) the partitions waiting for
 * or in finalization hold theirs, and those come from lazy growth. The
 * prefill takes only what the budget has free, less the estimates of other
 * circuits queued to load (it never starves an SRS); if that cannot hold
 * them all it makes what fits, and admission allocates the rest when room
 * comes (the lazy path, charged at admission, allocated by the synthesis
 * worker). It assumes the partitions' working memory beside the buffers is
 * small, as on a GPU; where the budget is tight and it is not, admission
 * frees idle buffers for it by the rule above. The allocations run on up to
 * PREFILL_THREADS threads at once, after a first one alone: whether the
 * driver overlaps them is for the log line to tell ("the first alone 1.02
 * s, the other 12 on 4 threads 3.40 s: 3.6× one at a time"; 1.0× means it
 * serializes them and one thread would do). The idle
 * rules stay: an entry prefilled but never used holds its buffers until it
 * has been idle for memory.eviction_min_idle (the housekeeper then frees
 * them, and later partitions allocate again as needed), or until memory is
 * short or the entry is evicted.
 */
#include "engine/internal.h"
#include "util/hostmem.h"
#include "util/time.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PREFILL_THREADS 4

uint64_t czk_wpool_buffer_bytes(const czk_engine *e, const czk_shape *shape) {
    uint64_t n = (uint64_t)shape->num_inputs + shape->num_aux;
    return n * sizeof(czk_fr) + (e->pack_witness ? czk_witness_packed_bytes(n) : 0);
}

bool czk_wpool_pack(czk_wbuf *b, czk_witness *w, czk_pool *pool) {
    w->packed = b->packed.codes_cap && czk_witness_pack(&b->packed, w, pool) ? &b->packed : NULL;
    return w->packed != NULL;
}

czk_wbuf *czk_wpool_take(srs_entry *s) {
    czk_wbuf *b = s->idle_bufs;
    if (b) {
        s->idle_bufs = b->next;
        b->next = NULL;
        s->n_idle_bufs--;
    }
    return b;
}

void czk_wpool_put(srs_entry *s, czk_wbuf *b) {
    b->next = s->idle_bufs;
    s->idle_bufs = b;
    s->n_idle_bufs++;
}

czk_status czk_wpool_alloc(czk_engine *e, const czk_shape *shape, czk_wbuf **out, czk_err *err) {
    *out = NULL;
    uint64_t bytes = czk_wpool_buffer_bytes(e, shape);
    if (bytes > SIZE_MAX)
        return czk_errf(err, CZK_ERR_NOMEM, "witness buffer of %llu bytes",
                        (unsigned long long)bytes);
    czk_wbuf *b = calloc(1, sizeof *b);
    if (!b) return czk_errf(err, CZK_ERR_NOMEM, "witness buffer: out of memory");
    const czk_backend *be = NULL; /* the first device that has not failed */
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < e->num_devices && !be; i++)
        if (!e->devices[i].failed) be = &e->devices[i].backend;
    pthread_mutex_unlock(&e->mu);
    if (be && be->ops->host_alloc && (b->block = be->ops->host_alloc(be->self, (size_t)bytes)))
        b->owner = be;
    else if (!(b->block = czk_hostmem_alloc((size_t)bytes))) {
        free(b);
        return czk_errf(err, CZK_ERR_NOMEM,
                        "cannot allocate a witness buffer of %llu bytes (%u inputs, %u aux)",
                        (unsigned long long)bytes, shape->num_inputs, shape->num_aux);
    }
    b->bytes = (size_t)bytes;
    b->in_cap = shape->num_inputs;
    b->aux_cap = shape->num_aux;
    b->inputs = b->block;
    b->aux = b->inputs + shape->num_inputs;
    if (e->pack_witness)
        czk_witness_packed_place(&b->packed, b->aux + shape->num_aux,
                                 (uint64_t)shape->num_inputs + shape->num_aux);
    *out = b;
    return CZK_OK;
}

void czk_wpool_release(czk_wbuf *b) {
    if (!b) return;
    if (b->owner)
        b->owner->ops->host_free(b->owner->self, b->block, b->bytes);
    else
        czk_hostmem_free(b->block, b->bytes);
    free(b);
}

uint64_t czk_wpool_trim(czk_engine *e, srs_entry *only, srs_entry *skip, uint64_t need) {
    uint64_t freed = 0;
    for (srs_entry *s = only ? only : e->srs; s; s = only ? NULL : s->next) {
        if (s == skip) continue;
        while (s->idle_bufs && czk_budget_free(&e->budget) < need) {
            czk_wbuf *b = czk_wpool_take(s);
            uint64_t n = b->bytes;
            s->n_bufs--;
            if (b->owner) s->n_pinned_bufs--;
            e->budget.buffers -= n < e->budget.buffers ? n : e->budget.buffers;
            czk_wpool_release(b);
            freed += n;
        }
    }
    return freed;
}

uint32_t czk_wpool_capacity(const czk_engine *e) {
    uint32_t w = e->cfg.partition_workers, g = (uint32_t)e->num_gpu_workers;
    uint32_t q = e->gpu_queue_limit ? e->gpu_queue_limit - 1 : w;
    return w + q + g;
}

/* ---- prefill ---- */

typedef struct prefill {
    czk_engine *e;
    srs_entry *s;
    const czk_shape *shape;
    uint32_t n, upto; /* slots; those below upto may be claimed now */
    atomic_uint next; /* the next slot to allocate */
    atomic_bool stop; /* an allocation failed: make no more */
    czk_wbuf **bufs;  /* n slots; NULL where none was made */
    /* under e->mu */
    uint32_t done;
    double alloc_s; /* summed over the allocations */
    czk_err err;    /* the first failure */
} prefill;

static void *prefill_main(void *arg) {
    prefill *p = arg;
    while (!atomic_load(&p->stop) && !atomic_load(&p->e->stop_flag)) {
        uint32_t i = atomic_load(&p->next);
        do
            if (i >= p->upto) return NULL;
        while (!atomic_compare_exchange_weak(&p->next, &i, i + 1));
        czk_err err;
        czk_err_clear(&err);
        czk_wbuf *b = NULL;
        double t0 = czk_now();
        czk_status st = czk_wpool_alloc(p->e, p->shape, &b, &err);
        double dt = czk_now() - t0;
        if (st) atomic_store(&p->stop, true);
        pthread_mutex_lock(&p->e->mu);
        p->bufs[i] = b;
        p->alloc_s += dt;
        p->done++;
        p->s->load_percent = p->done * 100 / p->n;
        if (st && !p->err.code) p->err = err;
        pthread_mutex_unlock(&p->e->mu);
    }
    return NULL;
}

static void size_words(char *out, size_t cap, uint64_t bytes) {
    double gib = (double)bytes / (1024.0 * 1024.0 * 1024.0);
    if (gib >= 0.1)
        snprintf(out, cap, "%.1f GiB", gib);
    else
        snprintf(out, cap, "%llu bytes", (unsigned long long)bytes);
}

void czk_wpool_prefill(czk_engine *e, srs_entry *s, uint64_t reserve) {
    uint32_t want = czk_wpool_capacity(e);
    uint64_t wb = czk_wpool_buffer_bytes(e, s->shape);
    if (!wb || s->n_bufs >= want) return;
    want -= s->n_bufs;
    uint64_t room = czk_budget_free(&e->budget);
    room = room > reserve ? room - reserve : 0;
    uint32_t n = room / wb < want ? (uint32_t)(room / wb) : want;
    char one[32];
    size_words(one, sizeof one, wb);
    if (!n) {
        czk_engine_log(e, 2,
                       "srs %s: no witness buffers made in advance (%s each): the budget has %llu "
                       "bytes free (%llu of them for circuits waiting to load); partitions "
                       "allocate them as they need them",
                       s->id, one, (unsigned long long)czk_budget_free(&e->budget),
                       (unsigned long long)reserve);
        return;
    }
    prefill p;
    memset(&p, 0, sizeof p);
    p.e = e;
    p.s = s;
    p.shape = s->shape;
    p.n = n;
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, false);
    if (!(p.bufs = calloc(n, sizeof *p.bufs))) return;
    /* charged now, as admission charges a new buffer */
    e->budget.buffers += (uint64_t)n * wb;
    s->n_bufs += n;
    snprintf(s->load_stage, sizeof s->load_stage, "witness buffers");
    s->load_percent = 0;
    unsigned nt = n < PREFILL_THREADS ? n : PREFILL_THREADS, started = 0;
    pthread_t tid[PREFILL_THREADS];
    pthread_mutex_unlock(&e->mu);
    /* the first alone: its time is what one costs, and the log compares the rest with it */
    double t0 = czk_now();
    p.upto = 1;
    prefill_main(&p);
    double t_first = czk_now() - t0;
    p.upto = n;
    for (unsigned i = 1; i < nt; i++)
        if (!pthread_create(&tid[started], NULL, prefill_main, &p)) started++;
    prefill_main(&p);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    double wall = czk_now() - t0, t_rest = wall - t_first;
    pthread_mutex_lock(&e->mu);
    uint32_t made = 0, pinned = 0;
    for (uint32_t i = 0; i < n; i++) {
        czk_wbuf *b = p.bufs[i];
        if (!b) continue;
        made++;
        if (b->owner) pinned++;
        czk_wpool_put(s, b);
    }
    free(p.bufs);
    s->n_bufs -= n - made; /* the charge of those not made goes back */
    e->budget.buffers -= (uint64_t)(n - made) * wb;
    s->n_pinned_bufs += pinned;
    s->load_stage[0] = 0;
    s->load_percent = 0;
    s->prefilled = made;
    s->prefill_ms = (uint64_t)(wall * 1000.0 + 0.5);
    char total[32], kind[48], tail[640] = "";
    size_words(total, sizeof total, (uint64_t)made * wb);
    if (pinned == made)
        snprintf(kind, sizeof kind, "page-locked");
    else if (!pinned)
        snprintf(kind, sizeof kind, "pageable");
    else
        snprintf(kind, sizeof kind, "%u page-locked, %u pageable", pinned, made - pinned);
    if (made < n)
        snprintf(tail, sizeof tail, "; %u of %u not made (%s): partitions allocate them as needed",
                 n - made, n, p.err.code ? p.err.msg : "engine stopping");
    else if (n < want)
        snprintf(tail, sizeof tail,
                 "; the pipeline holds up to %u, the budget had room for %u (%llu bytes free, "
                 "%llu for circuits waiting to load): the rest are allocated as partitions need "
                 "them",
                 want, n, (unsigned long long)(room + reserve), (unsigned long long)reserve);
    char how[160] = "";
    if (p.done > 1 && t_rest > 0)
        snprintf(how, sizeof how,
                 "; the first alone %.2f s, the other %u on %u threads %.2f s: %.1f× one at a "
                 "time",
                 t_first, p.done - 1, started + 1, t_rest, t_first * (p.done - 1) / t_rest);
    czk_engine_log(e, 2, "srs %s: %u witness buffers (%s, %s) in %.1f s (%.2f s per call%s)%s",
                   s->id, made, total, kind, wall, p.done ? p.alloc_s / p.done : 0.0, how, tail);
}
