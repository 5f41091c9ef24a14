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
 * A buffer comes from the first device's backend when it offers host_alloc
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
 */
#include "engine/internal.h"
#include "util/hostmem.h"

#include <stdlib.h>
#include <string.h>

uint64_t czk_wpool_buffer_bytes(const czk_shape *shape) {
    return ((uint64_t)shape->num_inputs + shape->num_aux) * sizeof(czk_fr);
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
    uint64_t bytes = czk_wpool_buffer_bytes(shape);
    if (bytes > SIZE_MAX)
        return czk_errf(err, CZK_ERR_NOMEM, "witness buffer of %llu bytes",
                        (unsigned long long)bytes);
    czk_wbuf *b = calloc(1, sizeof *b);
    if (!b) return czk_errf(err, CZK_ERR_NOMEM, "witness buffer: out of memory");
    const czk_backend *be = e->num_devices ? &e->devices[0].backend : NULL;
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
