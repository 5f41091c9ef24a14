/*
 * libFuzzer target for the parameter file readers (czk_params_decode,
 * czk_vk_decode) and the proof decoder (czk_proof_decode).
 *
 * Each input is decoded as a .params file twice, with the subgroup check
 * inline (CZK_PARAMS_FULL_CHECK) and deferred to the second pass; both must
 * accept or both refuse. Whatever is accepted must re-encode to the input
 * byte for byte (the uncompressed encoding is canonical once flags and
 * ranges are checked). Refusals must carry one of the documented statuses
 * and a message. The same for the input read as a .vk file and, for the
 * first 192 bytes, as a proof.
 */
#include "czk/groth16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_refusal(const char *what, czk_status st, const czk_err *err) {
    switch (st) {
    case CZK_ERR_TRUNCATED:
    case CZK_ERR_FORMAT:
    case CZK_ERR_EC_FLAGS:
    case CZK_ERR_EC_FP_RANGE:
    case CZK_ERR_EC_INFINITY:
    case CZK_ERR_EC_NOT_ON_CURVE:
    case CZK_ERR_EC_NOT_IN_GROUP:
    case CZK_ERR_EC_NO_POINT:
        break;
    default:
        fprintf(stderr, "%s: unexpected status %s: %s\n", what, czk_status_name(st), err->msg);
        abort();
    }
    if (err->code != st || err->msg[0] == 0) {
        fprintf(stderr, "%s: refusal %s without a message\n", what, czk_status_name(st));
        abort();
    }
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The .params encoding of p, in memory (the library writes files only). */
static uint8_t *encode_params(const czk_params *p, size_t *len) {
    *len = (size_t)czk_params_encoded_size(p);
    uint8_t *b = malloc(*len), *o = b;
    if (!b) abort();
    czk_vk_encode(o, &p->vk);
    o += czk_vk_encoded_size(p->vk.ic_len);
    const czk_g1_affine *g1[4] = {p->h, p->l, p->a, p->b_g1};
    uint32_t n1[4] = {p->h_len, p->l_len, p->a_len, p->b_g1_len};
    for (int k = 0; k < 4; k++) {
        put_be32(o, n1[k]);
        o += 4;
        for (uint32_t i = 0; i < n1[k]; i++, o += 96)
            czk_g1_serialize(o, &g1[k][i]);
    }
    put_be32(o, p->b_g2_len);
    o += 4;
    for (uint32_t i = 0; i < p->b_g2_len; i++, o += 192)
        czk_g2_serialize(o, &p->b_g2[i]);
    if ((size_t)(o - b) != *len) abort();
    return b;
}

static void fuzz_params(const uint8_t *data, size_t size) {
    czk_status st[2];
    for (int pass = 0; pass < 2; pass++) {
        czk_params_read_opts o = {.flags = pass == 0 ? CZK_PARAMS_FULL_CHECK : 0};
        czk_params *p = NULL;
        czk_params_read_info info;
        czk_err err;
        czk_err_clear(&err);
        st[pass] = czk_params_decode(&p, data, size, &o, &info, &err);
        if (st[pass] != CZK_OK) {
            if (p) abort();
            check_refusal("params", st[pass], &err);
            continue;
        }
        if (!p || info.bytes != size || info.trust != CZK_TRUST_CHECKED) abort();
        size_t len;
        uint8_t *enc = encode_params(p, &len);
        if (len != size || memcmp(enc, data, size) != 0) {
            fprintf(stderr, "params: re-encoding changed the bytes\n");
            abort();
        }
        free(enc);
        czk_params_free(p);
    }
    if ((st[0] == CZK_OK) != (st[1] == CZK_OK)) {
        fprintf(stderr, "params: inline check %s, deferred check %s\n", czk_status_name(st[0]),
                czk_status_name(st[1]));
        abort();
    }
}

static void fuzz_vk(const uint8_t *data, size_t size) {
    czk_vk vk;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_vk_decode(&vk, data, size, &err);
    if (st != CZK_OK) {
        if (vk.ic) abort();
        check_refusal("vk", st, &err);
        return;
    }
    if (czk_vk_encoded_size(vk.ic_len) != size) abort();
    uint8_t *enc = malloc(size);
    if (!enc) abort();
    czk_vk_encode(enc, &vk);
    if (memcmp(enc, data, size) != 0) abort();
    free(enc);
    czk_pvk pvk;
    if (czk_pvk_prepare(&pvk, &vk, &err) != CZK_OK) abort();
    czk_pvk_free(&pvk);
    czk_vk_free(&vk);
}

static void fuzz_proof(const uint8_t *data, size_t size) {
    if (size < CZK_PROOF_BYTES) return;
    czk_proof p;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_proof_decode(&p, data, &err);
    if (st != CZK_OK) {
        check_refusal("proof", st, &err);
        return;
    }
    uint8_t enc[CZK_PROOF_BYTES];
    czk_proof_encode(enc, &p);
    if (memcmp(enc, data, CZK_PROOF_BYTES) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_params(data, size);
    fuzz_vk(data, size);
    fuzz_proof(data, size);
    return 0;
}
