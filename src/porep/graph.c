/*
 * The SDR parent graph (rust-fil-proofs storage-proofs-core drgraph.rs
 * BucketGraph, storage-proofs-porep stacked/vanilla/graph.rs StackedGraph,
 * storage-proofs-core crypto/feistel.rs, stacked/vanilla/cache.rs).
 *
 * DRG parents: per node, a ChaCha8 keystream keyed by drg_seed ‖ node drives
 * five bucket samples; each takes two u64 draws (rand's next_u64 on a
 * BlockRng: low word first), so 20 keystream words, two ChaCha8 blocks.
 * rand's `gen::<u64>() % n` is used as is (not gen_range), so plain
 * remainders reproduce it. ⌈log2(5·node)⌉, which rust computes in f64, is
 * computed exactly with integers: f64 represents 5·node < 2^35 exactly and
 * log2 of a non-power of two never rounds onto an integer at these sizes.
 *
 * Expander parents: the Feistel round function depends only on (right half,
 * key), with the right half below 2^h, h = ⌈log4(8·nodes)⌉ ≤ 18. So the
 * graph precomputes F for every right half and each of the three round keys
 * (3·2^h BLAKE2b calls, ~0.8 M for 2^32 nodes) and each permutation step is
 * then three table lookups; cycle-walking (re-encoding outputs >= 8·nodes)
 * about doubles that when 8·nodes is an odd power of two.
 *
 * Bulk fills (czk_porep_graph_fill_cache) compute the ChaCha8 blocks of four
 * nodes at once in SIMD lanes and run the eight permutations of a node in
 * lockstep; single-node queries use the scalar paths. Both give the same
 * parents (tests/porep/graph.c checks it).
 */
#include "czk/porep_graph.h"

#include "porep/hash.h"
#include "util/digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FEISTEL_ROUNDS 3

struct czk_porep_graph {
    uint64_t nodes;
    czk_porep_api api;
    uint32_t drg_key[8]; /* ChaCha8Rng seed words 0..6 = drg_seed; word 7 = node */
    uint64_t feistel_keys[4];
    uint64_t exp_n; /* 8·nodes, the permutation's domain */
    unsigned half_bits;
    uint64_t left_mask, right_mask;
    uint32_t *ftab; /* [FEISTEL_ROUNDS][2^half_bits] */
};

/* The Feistel round function of feistel.rs (the 16-byte branch), uncached. */
uint64_t czk_porep_feistel_f(uint64_t right, uint64_t key, uint64_t right_mask);
uint64_t czk_porep_feistel_f(uint64_t right, uint64_t key, uint64_t right_mask) {
    uint8_t data[16], h[64];
    czk_store_be64(data, right);
    czk_store_be64(data + 8, key);
    czk_blake2b(h, sizeof h, data, sizeof data, NULL, 0);
    return czk_load_be64(h) & right_mask;
}

struct ftab_job {
    czk_porep_graph *g;
    size_t per_round;
};

static void ftab_fill(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    struct ftab_job *j = arg;
    for (size_t x = begin; x < end; x++) {
        size_t round = x / j->per_round, r = x % j->per_round;
        j->g->ftab[x] =
            (uint32_t)czk_porep_feistel_f(r, j->g->feistel_keys[round], j->g->right_mask);
    }
}

czk_status czk_porep_graph_create(czk_porep_graph **out, uint64_t nodes, const uint8_t porep_id[32],
                                  czk_porep_api api, czk_pool *pool, czk_err *err) {
    *out = NULL;
    if (nodes < 2 || nodes > UINT32_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep graph: %llu nodes, want 2..2^32-1",
                        (unsigned long long)nodes);
    if (api != CZK_POREP_API_1_0 && api != CZK_POREP_API_1_1 && api != CZK_POREP_API_1_2)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep graph: unknown api version %d", (int)api);
    czk_porep_graph *g = calloc(1, sizeof *g);
    if (!g) return czk_errf(err, CZK_ERR_NOMEM, "porep graph: out of memory");
    g->nodes = nodes;
    g->api = api;

    /* crypto/mod.rs derive_porep_domain_seed: SHA256(tag ‖ porep_id). */
    uint8_t seed[32];
    czk_sha256_parts(seed, (const czk_bytes[]){{"Filecoin_DRSample", 17}, {porep_id, 32}}, 2);
    for (int i = 0; i < 7; i++)
        g->drg_key[i] = czk_load_le32(seed + 4 * i);
    czk_sha256_parts(seed, (const czk_bytes[]){{"Filecoin_Feistel", 16}, {porep_id, 32}}, 2);
    for (int i = 0; i < 4; i++)
        g->feistel_keys[i] = czk_load_le64(seed + 8 * i);

    /* feistel.rs precompute(): the least even bit count 2h with 4^h >= 8·nodes (h >= 1). */
    g->exp_n = nodes * CZK_POREP_EXP_DEGREE;
    uint64_t pow4 = 4;
    unsigned h = 1;
    while (pow4 < g->exp_n) {
        pow4 *= 4;
        h++;
    }
    g->half_bits = h;
    g->right_mask = ((uint64_t)1 << h) - 1;
    g->left_mask = g->right_mask << h;

    size_t per_round = (size_t)1 << h;
    g->ftab = malloc(FEISTEL_ROUNDS * per_round * sizeof *g->ftab);
    if (!g->ftab) {
        free(g);
        return czk_errf(err, CZK_ERR_NOMEM, "porep graph: out of memory for Feistel tables");
    }
    struct ftab_job job = {g, per_round};
    czk_pool_for(pool, FEISTEL_ROUNDS * per_round, 1024, ftab_fill, &job);
    *out = g;
    return CZK_OK;
}

void czk_porep_graph_destroy(czk_porep_graph *g) {
    if (!g) return;
    free(g->ftab);
    free(g);
}

uint64_t czk_porep_graph_nodes(const czk_porep_graph *g) {
    return g->nodes;
}

czk_porep_api czk_porep_graph_api(const czk_porep_graph *g) {
    return g->api;
}

void czk_porep_graph_feistel_keys(const czk_porep_graph *g, uint64_t keys[4]) {
    memcpy(keys, g->feistel_keys, sizeof g->feistel_keys);
}

/*
 * drgraph.rs BucketGraph::parents for node >= 2, from the first 20 words of
 * the node's ChaCha8Rng keystream (five pairs of u64 draws).
 */
static void drg_from_stream(const czk_porep_graph *g, uint32_t node, const uint32_t w[20],
                            uint32_t p[CZK_POREP_BASE_DEGREE]) {
    const uint64_t m_prime = CZK_POREP_BASE_DEGREE - 1;
    uint64_t meta = (uint64_t)node * m_prime;
    uint64_t n_buckets =
        64 - (uint64_t)__builtin_clzll(meta - 1); /* ceil(log2(meta)), meta >= 10 */
    /* API 1.0: five sampled parents then the predecessor; 1.1+: predecessor first. */
    uint32_t *other = g->api == CZK_POREP_API_1_0 ? p : p + 1;
    for (unsigned i = 0; i < m_prime; i++, w += 4) {
        uint64_t r1 = (uint64_t)w[0] | (uint64_t)w[1] << 32;
        uint64_t r2 = (uint64_t)w[2] | (uint64_t)w[3] << 32;
        uint64_t bucket = r1 % n_buckets + 1;
        uint64_t largest = (uint64_t)1 << bucket;
        if (largest > meta) largest = meta;
        uint64_t smallest = largest >> 1;
        if (smallest < 2) smallest = 2;
        uint64_t dist = smallest + r2 % (largest - smallest + 1);
        uint32_t mapped = (uint32_t)((meta - dist) / m_prime);
        other[i] = mapped == node ? node - 1 : mapped;
    }
    p[g->api == CZK_POREP_API_1_0 ? m_prime : 0] = node - 1;
}

/* drgraph.rs BucketGraph::parents. node < nodes <= 2^32 - 1. */
static void drg_parents(const czk_porep_graph *g, uint32_t node,
                        uint32_t p[CZK_POREP_BASE_DEGREE]) {
    if (node < 2) {
        memset(p, 0, CZK_POREP_BASE_DEGREE * sizeof *p);
        return;
    }
    uint32_t key[8], ks[32];
    static const uint32_t nonce[3] = {0, 0, 0};
    memcpy(key, g->drg_key, 7 * sizeof *key);
    key[7] = node;
    czk_chacha_block(ks, key, 0, nonce, 8);
    czk_chacha_block(ks + 16, key, 1, nonce, 8);
    drg_from_stream(g, node, ks, p);
}

/*
 * DRG parents of nodes v..v+3 (all >= 2) into p + 14·j: the two keystream
 * blocks of the four nodes are eight ChaCha8 lanes.
 */
static void drg_parents_x4(const czk_porep_graph *g, uint32_t v, uint32_t *p) {
    static const uint32_t sigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    uint32_t in[16][8], out[16][8];
    for (int j = 0; j < 8; j++) {
        for (int i = 0; i < 4; i++)
            in[i][j] = sigma[i];
        for (int i = 0; i < 7; i++)
            in[4 + i][j] = g->drg_key[i];
        in[11][j] = v + (uint32_t)(j & 3);
        in[12][j] = (uint32_t)(j >> 2); /* block counter; words 13..15 (stream id) are 0 */
        in[13][j] = in[14][j] = in[15][j] = 0;
    }
    czk_chacha_blocks_x8(out, in, 8);
    for (int j = 0; j < 4; j++) {
        uint32_t w[20];
        for (int i = 0; i < 16; i++)
            w[i] = out[i][j];
        for (int i = 0; i < 4; i++)
            w[16 + i] = out[i][4 + j];
        drg_from_stream(g, v + (uint32_t)j, w, p + CZK_POREP_DEGREE * j);
    }
}

/*
 * graph.rs StackedGraph::correspondent for i in 0..8. The eight permutations
 * are independent, so they run in lockstep, letting the table loads of one
 * overlap those of the others. Cycle-walking (an output >= 8·nodes is
 * encoded again; half the outputs when 8·nodes is an odd power of two) also
 * runs in lockstep: every pass encodes all eight and keeps the results of
 * those still out of range.
 */
static void exp_parents(const czk_porep_graph *g, uint32_t node, uint32_t p[CZK_POREP_EXP_DEGREE]) {
    const unsigned h = g->half_bits;
    const size_t per = (size_t)1 << h;
    const uint64_t n = g->exp_n;
    uint64_t u[CZK_POREP_EXP_DEGREE];
    for (unsigned i = 0; i < CZK_POREP_EXP_DEGREE; i++)
        u[i] = (uint64_t)node * CZK_POREP_EXP_DEGREE + i;
    for (bool first = true;; first = false) {
        uint64_t l[CZK_POREP_EXP_DEGREE], r[CZK_POREP_EXP_DEGREE];
        for (unsigned i = 0; i < CZK_POREP_EXP_DEGREE; i++) {
            l[i] = (u[i] & g->left_mask) >> h;
            r[i] = u[i] & g->right_mask;
        }
        for (int k = 0; k < FEISTEL_ROUNDS; k++) {
            const uint32_t *t = g->ftab + k * per;
            for (unsigned i = 0; i < CZK_POREP_EXP_DEGREE; i++) {
                uint64_t nl = r[i];
                r[i] = l[i] ^ t[r[i]];
                l[i] = nl;
            }
        }
        unsigned pending = 0;
        for (unsigned i = 0; i < CZK_POREP_EXP_DEGREE; i++) {
            uint64_t e = l[i] << h | r[i];
            u[i] = first || u[i] >= n ? e : u[i];
            pending |= (unsigned)(u[i] >= n);
        }
        if (!pending) break;
    }
    for (unsigned i = 0; i < CZK_POREP_EXP_DEGREE; i++)
        p[i] = g->api == CZK_POREP_API_1_0 ? (uint32_t)u[i] / CZK_POREP_EXP_DEGREE
                                           : (uint32_t)(u[i] / CZK_POREP_EXP_DEGREE);
}

static czk_status check_node(const czk_porep_graph *g, uint64_t node, czk_err *err) {
    if (node >= g->nodes)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep graph: node %llu >= %llu nodes",
                        (unsigned long long)node, (unsigned long long)g->nodes);
    return CZK_OK;
}

czk_status czk_porep_graph_base_parents(const czk_porep_graph *g, uint64_t node,
                                        uint32_t out[CZK_POREP_BASE_DEGREE], czk_err *err) {
    czk_status st = check_node(g, node, err);
    if (st == CZK_OK) drg_parents(g, (uint32_t)node, out);
    return st;
}

czk_status czk_porep_graph_exp_parents(const czk_porep_graph *g, uint64_t node,
                                       uint32_t out[CZK_POREP_EXP_DEGREE], czk_err *err) {
    czk_status st = check_node(g, node, err);
    if (st == CZK_OK) exp_parents(g, (uint32_t)node, out);
    return st;
}

czk_status czk_porep_graph_parents(const czk_porep_graph *g, uint64_t node,
                                   uint32_t out[CZK_POREP_DEGREE], czk_err *err) {
    czk_status st = check_node(g, node, err);
    if (st == CZK_OK) {
        drg_parents(g, (uint32_t)node, out);
        exp_parents(g, (uint32_t)node, out + CZK_POREP_BASE_DEGREE);
    }
    return st;
}

struct fill_job {
    const czk_porep_graph *g;
    uint64_t first;
    uint32_t *out;
};

static void fill_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct fill_job *j = arg;
    size_t i = begin;
    /* Nodes 0 and 1 are special; then four nodes per SIMD ChaCha8 batch, the rest one by one. */
    for (; i < end && j->first + i < 2; i++)
        drg_parents(j->g, (uint32_t)(j->first + i), j->out + i * CZK_POREP_DEGREE);
    for (; i + 4 <= end; i += 4)
        drg_parents_x4(j->g, (uint32_t)(j->first + i), j->out + i * CZK_POREP_DEGREE);
    for (; i < end; i++)
        drg_parents(j->g, (uint32_t)(j->first + i), j->out + i * CZK_POREP_DEGREE);
    for (i = begin; i < end; i++)
        exp_parents(j->g, (uint32_t)(j->first + i),
                    j->out + i * CZK_POREP_DEGREE + CZK_POREP_BASE_DEGREE);
}

czk_status czk_porep_graph_fill_cache(const czk_porep_graph *g, uint64_t first, uint64_t count,
                                      uint32_t *out, czk_pool *pool, czk_err *err) {
    if (first > g->nodes || count > g->nodes - first)
        return czk_errf(
            err, CZK_ERR_INVALID_ARG, "porep graph: cache range [%llu, +%llu) leaves %llu nodes",
            (unsigned long long)first, (unsigned long long)count, (unsigned long long)g->nodes);
    if (count == 0) return CZK_OK;
    if (!out) return czk_errf(err, CZK_ERR_INVALID_ARG, "porep graph: NULL cache buffer");
    struct fill_job job = {g, first, out};
    czk_pool_for(pool, count, 2048, fill_range, &job);
    return CZK_OK;
}

czk_status czk_porep_graph_cache_digest(const czk_porep_graph *g, czk_pool *pool, uint8_t out[32],
                                        czk_err *err) {
    const uint64_t chunk = (uint64_t)1 << 16; /* 3.5 MiB of parents */
    uint64_t per = g->nodes < chunk ? g->nodes : chunk;
    uint32_t *buf = malloc(per * CZK_POREP_DEGREE * sizeof *buf);
    if (!buf) return czk_errf(err, CZK_ERR_NOMEM, "porep graph: out of memory for cache digest");
    czk_sha256_stream *c;
    czk_status st0 = czk_sha256_stream_new(&c, err);
    if (st0 != CZK_OK) {
        free(buf);
        return st0;
    }
    for (uint64_t v = 0; v < g->nodes; v += per) {
        uint64_t n = g->nodes - v < per ? g->nodes - v : per;
        czk_status st = czk_porep_graph_fill_cache(g, v, n, buf, pool, err);
        if (st != CZK_OK) {
            czk_sha256_stream_finish(c, out);
            free(buf);
            return st;
        }
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        for (uint64_t i = 0; i < n * CZK_POREP_DEGREE; i++)
            buf[i] = __builtin_bswap32(buf[i]);
#endif
        czk_sha256_stream_update(c, buf, n * CZK_POREP_DEGREE * sizeof *buf);
    }
    czk_sha256_stream_finish(c, out);
    free(buf);
    return CZK_OK;
}

void czk_porep_graph_cache_id(const czk_porep_graph *g, char out[CZK_POREP_CACHE_ID_LEN + 1]) {
    /* graph.rs / drgraph.rs identifier() strings, with PoseidonHasher::name(). */
    char ident[256];
    int len = snprintf(ident, sizeof ident,
                       "stacked_graph::StackedGraph{expansion_degree: %d base_graph: "
                       "drgraph::BucketGraph{size: %llu; degree: %d; hasher: poseidon_hasher} }",
                       CZK_POREP_EXP_DEGREE, (unsigned long long)g->nodes, CZK_POREP_BASE_DEGREE);
    uint8_t keys[32], nodes[4], h[32];
    for (int i = 0; i < 4; i++) czk_store_le64(keys + 8 * i, g->feistel_keys[i]);
    czk_store_le32(nodes, (uint32_t)g->nodes);
    czk_sha256_parts(h,
                     (const czk_bytes[]){{"poseidon_hasher", 15}, {ident, (size_t)len}, {keys, 32},
                                         {nodes, 4}},
                     4);
    memcpy(out, "v28-sdr-parent-", 15);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[15 + 2 * i] = hex[h[i] >> 4];
        out[16 + 2 * i] = hex[h[i] & 15];
    }
    out[CZK_POREP_CACHE_ID_LEN] = 0;
}
