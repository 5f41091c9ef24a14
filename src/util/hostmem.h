/*
 * czk internal — large host buffers meant to be reused (witness buffers,
 * 4.2 GB per 32GiB partition).
 *
 * A fresh multi-GB malloc block costs one page fault per 4 KiB page the first
 * time it is written (a million faults per 32GiB witness, serialized on the
 * process's memory map: spec/perf-anchors.md §9 measured 16 threads making
 * witnesses in fresh buffers at only 7× one thread). These buffers are
 * anonymous mappings aligned to 2 MiB, advised for transparent huge pages
 * (MADV_HUGEPAGE, where the kernel allows it) and written once at allocation,
 * so that every later write finds its pages mapped. Reuse is the point:
 * allocate once per slot, free when the slot goes.
 */
#ifndef CZK_UTIL_HOSTMEM_H
#define CZK_UTIL_HOSTMEM_H

#include <stddef.h>

/* bytes (> 0) of zeroed, touched memory, 2 MiB aligned; NULL when the mapping fails. */
void *czk_hostmem_alloc(size_t bytes);
/* Releases what czk_hostmem_alloc returned, with the same size (NULL is fine). */
void czk_hostmem_free(void *p, size_t bytes);

#endif
