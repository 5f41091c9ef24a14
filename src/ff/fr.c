/*
 * Fr helpers on top of blst: canonical bytes, powers, batch inversion, roots
 * of unity (bellperson's), and randomness (getrandom(2) or a seeded
 * xoshiro256** for reproducible tests and test keys).
 */
#include "czk/ff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* R mod r and 0, Montgomery form. */
const czk_fr czk_fr_zero = {{0, 0, 0, 0}};
const czk_fr czk_fr_one = {{0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull,
                            0x1824b159acc5056full}};

/* r as LE u64 limbs. */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

static bool limbs_lt_r(const uint64_t v[4]) {
    for (int i = 3; i >= 0; i--) {
        if (v[i] != R_LIMBS[i]) return v[i] < R_LIMBS[i];
    }
    return false;
}

static void load_le(uint64_t v[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t x = 0;
        for (int j = 7; j >= 0; j--) x = (x << 8) | in[8 * i + j];
        v[i] = x;
    }
}

czk_status czk_fr_from_bytes(czk_fr *out, const uint8_t in[32], czk_err *err) {
    uint64_t v[4];
    load_le(v, in);
    if (!limbs_lt_r(v))
        return czk_errf(err, CZK_ERR_FR_RANGE, "field element is not canonical (value >= r)");
    blst_fr_from_uint64(out, v);
    return CZK_OK;
}

void czk_fr_to_bytes(uint8_t out[32], const czk_fr *a) {
    uint64_t v[4];
    blst_uint64_from_fr(v, a);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(v[i] >> (8 * j));
}

void czk_fr_from_bytes_reduce(czk_fr *out, const uint8_t in[32]) {
    uint64_t v[4];
    load_le(v, in);
    czk_fr_from_u64s(out, v);
}

void czk_fr_to_u64s(uint64_t out[4], const czk_fr *a) {
    blst_uint64_from_fr(out, a);
}

void czk_fr_from_u64s(czk_fr *out, const uint64_t in[4]) {
    /* Values below 2^256 < 3r: subtract r at most twice. */
    uint64_t v[4] = {in[0], in[1], in[2], in[3]};
    while (!limbs_lt_r(v)) {
        unsigned __int128 borrow = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d = (unsigned __int128)v[i] - R_LIMBS[i] - borrow;
            v[i] = (uint64_t)d;
            borrow = (d >> 64) & 1;
        }
    }
    blst_fr_from_uint64(out, v);
}

void czk_fr_from_u64(czk_fr *out, uint64_t x) {
    uint64_t v[4] = {x, 0, 0, 0};
    blst_fr_from_uint64(out, v);
}

void czk_fr_pow(czk_fr *out, const czk_fr *a, const uint64_t e[4]) {
    czk_fr acc = czk_fr_one, base = *a;
    for (int i = 0; i < 4; i++) {
        uint64_t w = e[i];
        for (int b = 0; b < 64; b++) {
            if (w & 1) blst_fr_mul(&acc, &acc, &base);
            blst_fr_sqr(&base, &base);
            w >>= 1;
        }
    }
    *out = acc;
}

void czk_fr_pow_u64(czk_fr *out, const czk_fr *a, uint64_t e) {
    uint64_t ev[4] = {e, 0, 0, 0};
    czk_fr_pow(out, a, ev);
}

czk_status czk_fr_batch_inv(czk_fr *out, const czk_fr *in, size_t n, czk_fr *scratch,
                            czk_err *err) {
    czk_fr *prefix = scratch;
    if (!prefix && n) {
        prefix = malloc(n * sizeof *prefix);
        if (!prefix) return czk_errf(err, CZK_ERR_NOMEM, "batch inversion of %zu elements", n);
    }
    czk_fr acc = czk_fr_one;
    for (size_t i = 0; i < n; i++) {
        prefix[i] = acc;
        if (!czk_fr_is_zero(&in[i])) blst_fr_mul(&acc, &acc, &in[i]);
    }
    blst_fr_eucl_inverse(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (czk_fr_is_zero(&in[i])) {
            out[i] = czk_fr_zero;
            continue;
        }
        czk_fr x = in[i];
        blst_fr_mul(&out[i], &acc, &prefix[i]);
        blst_fr_mul(&acc, &acc, &x);
    }
    if (prefix != scratch) free(prefix);
    return CZK_OK;
}

czk_status czk_fr_root_of_unity(czk_fr *out, unsigned k, czk_err *err) {
    if (k > CZK_FR_TWO_ADICITY)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "no root of unity of order 2^%u (two-adicity is 32)", k);
    /* ω_32 = 7^((r-1)/2^32); (r-1)/2^32 = t as LE limbs. */
    static const uint64_t t[4] = {0xfffe5bfeffffffffull, 0x09a1d80553bda402ull,
                                  0x299d7d483339d808ull, 0x0000000073eda753ull};
    czk_fr g, w;
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    czk_fr_pow(&w, &g, t);
    for (unsigned i = k; i < CZK_FR_TWO_ADICITY; i++) blst_fr_sqr(&w, &w);
    *out = w;
    return CZK_OK;
}

/* xoshiro256** (Blackman, Vigna), seeded through splitmix64. */
static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void czk_rng_seed(czk_rng *rng, uint64_t seed) {
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t czk_rng_u64(czk_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

czk_status czk_random_bytes(czk_rng *rng, void *buf, size_t len, czk_err *err) {
    uint8_t *p = buf;
    if (rng) {
        while (len) {
            uint64_t x = czk_rng_u64(rng);
            size_t k = len < 8 ? len : 8;
            memcpy(p, &x, k);
            p += k;
            len -= k;
        }
        return CZK_OK;
    }
    while (len) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return czk_errf(err, CZK_ERR_IO, "getrandom: %s", strerror(errno));
        }
        p += got;
        len -= (size_t)got;
    }
    return CZK_OK;
}

czk_status czk_fr_random(czk_fr *out, czk_rng *rng, czk_err *err) {
    for (;;) {
        uint64_t v[4];
        czk_status st = czk_random_bytes(rng, v, sizeof v, err);
        if (st) return st;
        v[3] &= 0x7fffffffffffffffull; /* 255 bits; r > 2^254, so < 2 tries on average */
        if (limbs_lt_r(v)) {
            blst_fr_from_uint64(out, v);
            return CZK_OK;
        }
    }
}
