/* czk internal — reusable large host buffers (src/util/hostmem.h). */
#include "util/hostmem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_ALIGN ((size_t)2 << 20)

static size_t round_up(size_t n, size_t a) {
    return (n + a - 1) & ~(a - 1);
}

void *czk_hostmem_alloc(size_t bytes) {
    if (!bytes || bytes > SIZE_MAX - 2 * HUGE_ALIGN) return NULL;
    size_t len = round_up(bytes, HUGE_ALIGN);
    /* map one alignment unit more, then cut the unaligned head and the tail */
    uint8_t *raw = mmap(NULL, len + HUGE_ALIGN, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uint8_t *p = (uint8_t *)round_up((uintptr_t)raw, HUGE_ALIGN);
    if (p > raw) munmap(raw, (size_t)(p - raw));
    size_t tail = (size_t)(raw + len + HUGE_ALIGN - (p + len));
    if (tail) munmap(p + len, tail);
#ifdef MADV_HUGEPAGE
    (void)madvise(p, len, MADV_HUGEPAGE); /* advice only: refused where THP is off */
#endif
    /* one write per page: every page faults now, not in the first witness */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < len; off += pg)
        ((volatile uint8_t *)p)[off] = 0;
    return p;
}

void czk_hostmem_free(void *p, size_t bytes) {
    if (p) munmap(p, round_up(bytes, HUGE_ALIGN));
}
