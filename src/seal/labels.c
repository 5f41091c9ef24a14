/*
 * SDR labeling (storage-proofs-porep create_label/single.rs and multi.rs,
 * graph.rs copy_parents_data*).
 *
 * Within a layer node v depends on v − 1 (a DRG parent in every API
 * version), so one thread hashes the nodes in order. The rest of the work —
 * computing the 14 parents of each node and copying the parents' labels into
 * the node's 1,248-byte SHA-256 message — is done ahead, one window of WIN
 * nodes at a time: while one thread hashes window i, the pool's other threads
 * (and the hashing one, once it is done) prepare window i + 1, in slices,
 * from the labels that are final when window i starts (every label of the
 * previous layer, and the current layer's labels below window i). A DRG parent at or above that
 * limit is marked in the node's patch mask and copied by the hashing thread
 * just before it hashes the node (node v − 1 always is; bucket sampling makes
 * a few more parents recent). No thread ever waits for another inside a
 * window, so the same code runs correctly on one thread.
 */
#include "czk/seal.h"

#include "util/digest.h"
#include <stdlib.h>
#include <string.h>

#define MSG_BYTES (64 + 32 * CZK_SEAL_LABEL_PARENTS) /* 1,248 */
#define WIN 1024u

static inline void store_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static inline void store_be64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static void header(uint8_t msg[64], const uint8_t replica_id[32], uint32_t layer, uint64_t node) {
    memcpy(msg, replica_id, 32);
    store_be32(msg + 32, layer);
    store_be64(msg + 36, node);
    memset(msg + 44, 0, 20);
}

void czk_seal_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                    const uint8_t *parents) {
    uint8_t msg[MSG_BYTES];
    header(msg, replica_id, layer, node);
    size_t len = 64;
    if (parents) {
        memcpy(msg + 64, parents, 32 * CZK_SEAL_LABEL_PARENTS);
        len = MSG_BYTES;
    }
    czk_sha256_digest(out, msg, len);
    out[31] &= 0x3f;
}

typedef struct window {
    uint64_t start, count;
    uint8_t *msg;   /* WIN × MSG_BYTES */
    uint32_t *par;  /* WIN × 14 */
    uint8_t *patch; /* WIN: bit j = DRG parent j still to copy */
} window;

typedef struct label_job {
    const czk_porep_graph *g;
    const uint8_t *replica_id;
    uint32_t layer;
    unsigned deg; /* parents used: 6 (layer 1) or 14 */
    uint8_t *cur;
    const uint8_t *prev;
    /* positions of parent slot j in the 37-parent message */
    uint8_t npos[CZK_POREP_DEGREE];
    uint8_t pos[CZK_POREP_DEGREE][CZK_SEAL_LABEL_PARENTS];
    /* this round */
    window *hash_w;   /* NULL: nothing to hash */
    window *gather_w; /* NULL: nothing to gather */
    uint64_t limit;   /* current-layer labels below this are final */
    unsigned gatherers;
} label_job;

static void gather(label_job *j, window *w, uint64_t lo, uint64_t hi) {
    /* Parents of the slice: cannot fail, the range is inside the graph. */
    if (czk_porep_graph_fill_cache(j->g, w->start + lo, hi - lo, w->par + CZK_POREP_DEGREE * lo,
                                   NULL, NULL) != CZK_OK)
        memset(w->par + CZK_POREP_DEGREE * lo, 0, 4 * CZK_POREP_DEGREE * (hi - lo));
    for (uint64_t s = lo; s < hi; s++) {
        uint64_t v = w->start + s;
        uint8_t *m = w->msg + MSG_BYTES * s;
        const uint32_t *par = w->par + CZK_POREP_DEGREE * s;
        if (s + 4 < hi) { /* prefetch the parents of a later node */
            const uint32_t *np = par + 4 * CZK_POREP_DEGREE;
            for (unsigned k = 0; k < j->deg; k++)
                __builtin_prefetch((k < CZK_POREP_BASE_DEGREE ? j->cur : j->prev) +
                                   32 * (uint64_t)np[k]);
        }
        header(m, j->replica_id, j->layer, v);
        uint8_t mask = 0;
        for (unsigned k = 0; k < j->deg; k++) {
            const uint8_t *src;
            if (k < CZK_POREP_BASE_DEGREE) {
                if (par[k] >= j->limit) {
                    mask |= (uint8_t)(1u << k);
                    continue;
                }
                src = j->cur + 32 * (uint64_t)par[k];
            } else {
                src = j->prev + 32 * (uint64_t)par[k];
            }
            for (unsigned q = 0; q < j->npos[k]; q++)
                memcpy(m + 64 + 32 * j->pos[k][q], src, 32);
        }
        w->patch[s] = mask;
    }
}

static void hash_window(label_job *j, window *w) {
    for (uint64_t s = 0; s < w->count; s++) {
        uint64_t v = w->start + s;
        uint8_t *m = w->msg + MSG_BYTES * s;
        const uint32_t *par = w->par + CZK_POREP_DEGREE * s;
        uint8_t *out = j->cur + 32 * v;
        if (v == 0) {
            czk_sha256_digest(out, m, 64);
        } else {
            for (uint8_t mask = w->patch[s]; mask; mask &= (uint8_t)(mask - 1)) {
                unsigned k = (unsigned)__builtin_ctz(mask);
                const uint8_t *src = j->cur + 32 * (uint64_t)par[k];
                for (unsigned q = 0; q < j->npos[k]; q++)
                    memcpy(m + 64 + 32 * j->pos[k][q], src, 32);
            }
            czk_sha256_digest(out, m, MSG_BYTES);
        }
        out[31] &= 0x3f;
    }
}

/* Item 0 hashes hash_w; items 1..gatherers each prepare a slice of gather_w (claimed in
 * order by whichever thread is free, the hashing thread included once it is done). */
static void round_item(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    label_job *j = arg;
    for (size_t it = begin; it < end; it++) {
        if (it == 0) {
            if (j->hash_w) hash_window(j, j->hash_w);
        } else if (j->gather_w) {
            uint64_t n = j->gather_w->count, g = j->gatherers, k = it - 1;
            uint64_t lo = n * k / g, hi = n * (k + 1) / g;
            if (lo < hi) gather(j, j->gather_w, lo, hi);
        }
    }
}

czk_status czk_seal_labels(uint8_t *labels, const czk_porep_graph *g, const uint8_t replica_id[32],
                           unsigned layers, czk_pool *pool, czk_err *err) {
    if (layers == 0) return czk_errf(err, CZK_ERR_INVALID_ARG, "labels: 0 layers");
    uint64_t nodes = czk_porep_graph_nodes(g);
    window w[2];
    memset(w, 0, sizeof w);
    for (int b = 0; b < 2; b++) {
        w[b].msg = malloc((size_t)WIN * MSG_BYTES);
        w[b].par = malloc(sizeof(uint32_t) * WIN * CZK_POREP_DEGREE);
        w[b].patch = malloc(WIN);
        if (!w[b].msg || !w[b].par || !w[b].patch) {
            for (int c = 0; c <= b; c++) {
                free(w[c].msg);
                free(w[c].par);
                free(w[c].patch);
            }
            return czk_errf(err, CZK_ERR_NOMEM, "labels: window buffers");
        }
    }
    unsigned threads = czk_pool_threads(pool);
    label_job j;
    memset(&j, 0, sizeof j);
    j.g = g;
    j.replica_id = replica_id;
    /* Several slices per thread, so that the hashing thread, once done, helps with the rest. */
    j.gatherers = threads > 1 ? 4 * threads : 1;
    for (unsigned layer = 1; layer <= layers; layer++) {
        j.layer = layer;
        j.deg = layer == 1 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
        j.cur = labels + (uint64_t)(layer - 1) * nodes * 32;
        j.prev = layer == 1 ? NULL : labels + (uint64_t)(layer - 2) * nodes * 32;
        memset(j.npos, 0, sizeof j.npos);
        for (unsigned q = 0; q < CZK_SEAL_LABEL_PARENTS; q++) {
            unsigned k = q % j.deg;
            j.pos[k][j.npos[k]++] = (uint8_t)q;
        }
        uint64_t nwin = (nodes + WIN - 1) / WIN;
        /* Round r hashes window r − 1 and gathers window r. */
        for (uint64_t r = 0; r <= nwin; r++) {
            window *hw = r ? &w[(r - 1) & 1] : NULL;
            window *gw = r < nwin ? &w[r & 1] : NULL;
            if (gw) {
                gw->start = r * WIN;
                gw->count = nodes - gw->start < WIN ? nodes - gw->start : WIN;
            }
            j.hash_w = hw;
            j.gather_w = gw;
            j.limit = hw ? hw->start : 0;
            czk_pool_for(pool, 1 + j.gatherers, 1, round_item, &j);
        }
    }
    for (int b = 0; b < 2; b++) {
        free(w[b].msg);
        free(w[b].par);
        free(w[b].patch);
    }
    return CZK_OK;
}
