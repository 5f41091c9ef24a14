/*
 * SubmitProofRequest and ProveRequest decoded in place (protobuf wire
 * format, https://protobuf.dev/programming-guides/encoding/): the bytes
 * fields point into the received buffer instead of being copied, as
 * protobuf-c's unpack would, so that a request of 50-256 MB is held once,
 * not twice, while the engine takes it in. Semantics as proto3 / protobuf-c:
 * a scalar or bytes field seen twice keeps the last value, repeated bytes
 * append, an embedded message seen twice is merged, unknown fields are
 * skipped; field number 0, a field with the wrong wire type, a truncated
 * varint or length is malformed.
 */
#include "rpc/internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rd {
    const uint8_t *p, *end;
} rd;

static bool varint(rd *r, uint64_t *v) {
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p == r->end) return false;
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false; /* more than 10 bytes */
}

static bool lenfield(rd *r, const uint8_t **data, size_t *len) {
    uint64_t n;
    if (!varint(r, &n) || n > (uint64_t)(r->end - r->p)) return false;
    *data = r->p;
    *len = (size_t)n;
    r->p += n;
    return true;
}

static bool skip(rd *r, unsigned wt) {
    uint64_t v;
    const uint8_t *d;
    size_t n;
    switch (wt) {
    case 0:
        return varint(r, &v);
    case 1:
        if (r->end - r->p < 8) return false;
        r->p += 8;
        return true;
    case 2:
        return lenfield(r, &d, &n);
    case 5:
        if (r->end - r->p < 4) return false;
        r->p += 4;
        return true;
    default: /* groups (3, 4) are not proto3 */
        return false;
    }
}

void czk_rpc_submit_view_free(czk_rpc_submit_view *v) {
    free(v->msg.request_id);
    free(v->msg.vanilla_proofs);
    memset(v, 0, sizeof *v);
}

static bool submit_fields(czk_rpc_submit_view *v, const uint8_t *b, size_t n) {
    Cuzk__V1__SubmitProofRequest *m = &v->msg;
    rd r = {b, b + n};
    while (r.p < r.end) {
        uint64_t key, x;
        if (!varint(&r, &key)) return false;
        unsigned field = (unsigned)(key >> 3), wt = (unsigned)(key & 7);
        if (field == 0) return false; /* not a field number */
        const uint8_t *d;
        size_t len;
        switch (field) {
        case 2:  /* proof_kind */
        case 5:  /* priority */
        case 23: /* partition_index */
        case 3:
        case 4:
        case 20:
        case 21:
            if (wt != 0 || !varint(&r, &x)) return false;
            if (field == 2) m->proof_kind = (Cuzk__V1__ProofKind)(int32_t)(uint32_t)x;
            if (field == 5) m->priority = (Cuzk__V1__Priority)(int32_t)(uint32_t)x;
            if (field == 23) m->partition_index = (uint32_t)x;
            if (field == 3) m->sector_size = x;
            if (field == 4) m->registered_proof = x;
            if (field == 20) m->sector_number = x;
            if (field == 21) m->miner_id = x;
            break;
        case 1: { /* request_id: a NUL-terminated copy */
            if (wt != 2 || !lenfield(&r, &d, &len)) return false;
            char *s = malloc(len + 1);
            if (!s) return false;
            memcpy(s, d, len);
            s[len] = 0;
            free(m->request_id);
            m->request_id = s;
            break;
        }
        case 10:
        case 22:
        case 30:
        case 31:
        case 32: {
            if (wt != 2 || !lenfield(&r, &d, &len)) return false;
            ProtobufCBinaryData bd = {len, (uint8_t *)d};
            if (field == 10) m->vanilla_proof = bd;
            if (field == 22) m->randomness = bd;
            if (field == 30) m->comm_r_old = bd;
            if (field == 31) m->comm_r_new = bd;
            if (field == 32) m->comm_d_new = bd;
            break;
        }
        case 11: { /* repeated bytes vanilla_proofs */
            if (wt != 2 || !lenfield(&r, &d, &len)) return false;
            if (m->n_vanilla_proofs == v->cap_vanilla_proofs) {
                size_t cap = v->cap_vanilla_proofs ? 2 * v->cap_vanilla_proofs : 16;
                ProtobufCBinaryData *a = realloc(m->vanilla_proofs, cap * sizeof *a);
                if (!a) return false;
                m->vanilla_proofs = a;
                v->cap_vanilla_proofs = cap;
            }
            m->vanilla_proofs[m->n_vanilla_proofs++] = (ProtobufCBinaryData){len, (uint8_t *)d};
            break;
        }
        default:
            if (!skip(&r, wt)) return false;
            break;
        }
    }
    return true;
}

static void view_init(czk_rpc_submit_view *v) {
    memset(v, 0, sizeof *v);
    cuzk__v1__submit_proof_request__init(&v->msg);
    v->msg.request_id = NULL; /* set only when present (freed by us) */
}

bool czk_rpc_decode_submit(czk_rpc_submit_view *v, const uint8_t *b, size_t n) {
    view_init(v);
    if (!submit_fields(v, b, n)) {
        czk_rpc_submit_view_free(v);
        return false;
    }
    v->present = true;
    return true;
}

bool czk_rpc_decode_prove(czk_rpc_submit_view *v, const uint8_t *b, size_t n) {
    view_init(v);
    rd r = {b, b + n};
    while (r.p < r.end) {
        uint64_t key;
        if (!varint(&r, &key)) goto bad;
        unsigned field = (unsigned)(key >> 3), wt = (unsigned)(key & 7);
        if (field == 0) goto bad;
        if (field == 1) { /* submit: merged when repeated */
            const uint8_t *d;
            size_t len;
            if (wt != 2 || !lenfield(&r, &d, &len) || !submit_fields(v, d, len)) goto bad;
            v->present = true;
        } else if (!skip(&r, wt)) {
            goto bad;
        }
    }
    return true;
bad:
    czk_rpc_submit_view_free(v);
    return false;
}
