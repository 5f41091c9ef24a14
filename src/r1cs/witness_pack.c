/*
 * The packed witness (czk_witness_packed, include/czk/r1cs.h): 2 bits a
 * value and the values that are neither 0 nor 1, for an upload of ≈ 2 % of
 * the witness's bytes (the CUDA backend expands it on the device).
 *
 * Two passes, so that chunks can run on a pool: the first reads z once and
 * writes each chunk's codes and its count of others (the whole pass is
 * memory-bound: 32 bytes read a value, 1/4 byte written); an exclusive sum
 * over the chunks' counts gives where each chunk's others go; the second
 * walks the codes (1/128 of z) and copies the others to their places.
 * A witness whose others do not fit stops early: every chunk adds its count
 * to a shared total and chunks not yet started skip once it is over the
 * room, so a dense witness (WindowPoSt) costs about a chunk per thread, not
 * a pass.
 */
#include "r1cs_internal.h"

#include <stdatomic.h>
#include <string.h>

#define CHUNK_WORDS_MIN 2048u            /* 2^16 values, 2 MiB of z, per task */
#define MAX_CHUNKS 4096u                 /* the counts' array below stays on the stack */
#define OTHER_BITS 0xAAAAAAAAAAAAAAAAull /* the high bit of every code: set for others */

uint64_t czk_witness_packed_bytes(uint64_t n) {
    uint64_t words = (n + 31) / 32;
    return words * sizeof(uint64_t) + words * sizeof(czk_fr);
}

void czk_witness_packed_place(czk_witness_packed *p, void *block, uint64_t n) {
    uint64_t words = (n + 31) / 32;
    memset(p, 0, sizeof *p);
    p->codes = block;
    p->others = (czk_fr *)(p->codes + words);
    p->codes_cap = words;
    p->others_cap = words;
}

/* Codes of len <= 32 consecutive values (value k at bits 2k, 2k + 1). */
static uint64_t code_run(const czk_fr *v, unsigned len) {
    const uint64_t *one = czk_fr_one.l;
    uint64_t code = 0;
    for (unsigned k = 0; k < len; k++) {
        const uint64_t *x = v[k].l;
        uint64_t zero = (x[0] | x[1] | x[2] | x[3]) == 0;
        uint64_t is1 = ((x[0] ^ one[0]) | (x[1] ^ one[1]) | (x[2] ^ one[2]) | (x[3] ^ one[3])) == 0;
        code |= (2 - 2 * zero - is1) << (2 * k);
    }
    return code;
}

typedef struct pack_job {
    const czk_witness *w;
    czk_witness_packed *p;
    uint64_t n, words, chunk_words;
    uint64_t *count; /* per chunk: its others; then where they start */
    atomic_uint_fast64_t total;
    atomic_bool over;
} pack_job;

static const czk_fr *value(const czk_witness *w, uint64_t i) {
    return i < w->num_inputs ? &w->inputs[i] : &w->aux[i - w->num_inputs];
}

/* Pass 1: codes of chunks [begin, end) and their counts of others. */
static void codes_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    pack_job *j = arg;
    const uint64_t ni = j->w->num_inputs;
    for (size_t c = begin; c < end; c++) {
        if (atomic_load_explicit(&j->over, memory_order_relaxed)) return;
        uint64_t w0 = c * j->chunk_words, w1 = w0 + j->chunk_words;
        if (w1 > j->words) w1 = j->words;
        uint64_t cnt = 0;
        for (uint64_t wd = w0; wd < w1; wd++) {
            uint64_t i0 = wd * 32, i1 = i0 + 32 < j->n ? i0 + 32 : j->n, code;
            if (i0 >= ni)
                code = code_run(j->w->aux + (i0 - ni), (unsigned)(i1 - i0));
            else if (i1 <= ni)
                code = code_run(j->w->inputs + i0, (unsigned)(i1 - i0));
            else /* the word where the inputs end and the aux begin */
                code = code_run(j->w->inputs + i0, (unsigned)(ni - i0)) |
                       code_run(j->w->aux, (unsigned)(i1 - ni)) << (2 * (ni - i0));
            j->p->codes[wd] = code;
            cnt += (uint64_t)__builtin_popcountll(code & OTHER_BITS);
        }
        j->count[c] = cnt;
        if (atomic_fetch_add(&j->total, cnt) + cnt > j->p->others_cap)
            atomic_store_explicit(&j->over, true, memory_order_relaxed);
    }
}

/* Pass 2: the others of chunks [begin, end) to their places. */
static void others_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    pack_job *j = arg;
    for (size_t c = begin; c < end; c++) {
        uint64_t w0 = c * j->chunk_words, w1 = w0 + j->chunk_words;
        if (w1 > j->words) w1 = j->words;
        czk_fr *out = j->p->others + j->count[c];
        for (uint64_t wd = w0; wd < w1; wd++)
            for (uint64_t m = j->p->codes[wd] & OTHER_BITS; m; m &= m - 1)
                *out++ = *value(j->w, wd * 32 + (uint64_t)__builtin_ctzll(m) / 2);
    }
}

bool czk_witness_pack(czk_witness_packed *p, const czk_witness *w, czk_pool *pool) {
    uint64_t n = (uint64_t)w->num_inputs + w->num_aux, words = (n + 31) / 32;
    p->n = 0;
    p->num_others = 0;
    if (!n || words > p->codes_cap) return false;
    uint64_t chunk_words = (words + MAX_CHUNKS - 1) / MAX_CHUNKS;
    if (chunk_words < CHUNK_WORDS_MIN) chunk_words = CHUNK_WORDS_MIN;
    uint64_t chunks = (words + chunk_words - 1) / chunk_words;
    uint64_t count[MAX_CHUNKS];
    pack_job j = {
        .w = w, .p = p, .n = n, .words = words, .chunk_words = chunk_words, .count = count};
    atomic_init(&j.total, 0);
    atomic_init(&j.over, false);
    czk_pool_for(pool, chunks, 1, codes_fn, &j);
    if (atomic_load(&j.over)) return false;
    uint64_t at = 0;
    for (uint64_t c = 0; c < chunks; c++) {
        uint64_t k = count[c];
        count[c] = at;
        at += k;
    }
    czk_pool_for(pool, chunks, 1, others_fn, &j);
    p->n = n;
    p->num_others = at;
    return true;
}
