/* CZK_TEST_LABELS: unit */
/*
 * The in-place decoder of SubmitProofRequest / ProveRequest (src/rpc/decode.c)
 * against protobuf-c, an independent implementation of the same wire format:
 * messages packed by protobuf-c decode to the same fields, the bytes fields
 * point into the buffer (no copy), two concatenated messages merge as
 * protobuf-c merges them, unknown fields are skipped, and every truncation
 * of a message, and every one-bit change, is accepted or refused as
 * protobuf-c's unpack does (except a key of field number 0, named below).
 */
#include "support.h"

#include "rpc/internal.h"

#include <stdlib.h>
#include <string.h>

static uint8_t VP0[] = {1, 2, 3}, VP1[] = {9}, VAN[300], RAND[32], CRO[32], CRN[32], CDN[32];

static void fill(Cuzk__V1__SubmitProofRequest *m, ProtobufCBinaryData *vps) {
    cuzk__v1__submit_proof_request__init(m);
    for (size_t i = 0; i < sizeof VAN; i++)
        VAN[i] = (uint8_t)(i * 7 + 1);
    for (int i = 0; i < 32; i++)
        RAND[i] = (uint8_t)i, CRO[i] = (uint8_t)(i + 50), CRN[i] = (uint8_t)(i + 100),
        CDN[i] = (uint8_t)(i + 150);
    m->request_id = "porep-1000-7";
    m->proof_kind = CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT;
    m->sector_size = 34359738368ull;
    m->registered_proof = 8;
    m->priority = CUZK__V1__PRIORITY__HIGH;
    m->vanilla_proof = (ProtobufCBinaryData){sizeof VAN, VAN};
    vps[0] = (ProtobufCBinaryData){sizeof VP0, VP0};
    vps[1] = (ProtobufCBinaryData){0, NULL};
    vps[2] = (ProtobufCBinaryData){sizeof VP1, VP1};
    m->n_vanilla_proofs = 3;
    m->vanilla_proofs = vps;
    m->sector_number = 7;
    m->miner_id = 0xffffffffffffffffull;
    m->randomness = (ProtobufCBinaryData){32, RAND};
    m->partition_index = 4000000000u;
    m->comm_r_old = (ProtobufCBinaryData){32, CRO};
    m->comm_r_new = (ProtobufCBinaryData){32, CRN};
    m->comm_d_new = (ProtobufCBinaryData){32, CDN};
}

static void assert_bytes(ProtobufCBinaryData a, ProtobufCBinaryData b) {
    assert_int_equal(a.len, b.len);
    if (a.len) assert_memory_equal(a.data, b.data, a.len);
}

static void assert_same(const Cuzk__V1__SubmitProofRequest *a,
                        const Cuzk__V1__SubmitProofRequest *b) {
    assert_string_equal(czk_rpc_str(a->request_id), czk_rpc_str(b->request_id));
    assert_int_equal(a->proof_kind, b->proof_kind);
    assert_int_equal(a->sector_size, b->sector_size);
    assert_int_equal(a->registered_proof, b->registered_proof);
    assert_int_equal(a->priority, b->priority);
    assert_bytes(a->vanilla_proof, b->vanilla_proof);
    assert_int_equal(a->n_vanilla_proofs, b->n_vanilla_proofs);
    for (size_t i = 0; i < a->n_vanilla_proofs; i++)
        assert_bytes(a->vanilla_proofs[i], b->vanilla_proofs[i]);
    assert_int_equal(a->sector_number, b->sector_number);
    assert_int_equal(a->miner_id, b->miner_id);
    assert_bytes(a->randomness, b->randomness);
    assert_int_equal(a->partition_index, b->partition_index);
    assert_bytes(a->comm_r_old, b->comm_r_old);
    assert_bytes(a->comm_r_new, b->comm_r_new);
    assert_bytes(a->comm_d_new, b->comm_d_new);
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *n) {
    *n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = malloc(*n + 1);
    assert_non_null(b);
    assert_int_equal(protobuf_c_message_pack(m, b), *n);
    return b;
}

static void test_roundtrip(void **state) {
    (void)state;
    Cuzk__V1__SubmitProofRequest m;
    ProtobufCBinaryData vps[3];
    fill(&m, vps);
    size_t n;
    uint8_t *b = pack(&m.base, &n);
    czk_rpc_submit_view v;
    assert_true(czk_rpc_decode_submit(&v, b, n));
    assert_same(&m, &v.msg);
    /* no copy: the payload points into the buffer */
    assert_true(v.msg.vanilla_proof.data > b && v.msg.vanilla_proof.data < b + n);
    czk_rpc_submit_view_free(&v);

    /* the same inside a ProveRequest */
    Cuzk__V1__ProveRequest p;
    cuzk__v1__prove_request__init(&p);
    p.submit = &m;
    size_t pn;
    uint8_t *pb = pack(&p.base, &pn);
    assert_true(czk_rpc_decode_prove(&v, pb, pn));
    assert_true(v.present);
    assert_same(&m, &v.msg);
    czk_rpc_submit_view_free(&v);
    /* an empty ProveRequest has no submit; an empty SubmitProofRequest is all defaults */
    assert_true(czk_rpc_decode_prove(&v, pb, 0));
    assert_false(v.present);
    czk_rpc_submit_view_free(&v);
    assert_true(czk_rpc_decode_submit(&v, b, 0));
    assert_int_equal(v.msg.proof_kind, 0);
    assert_string_equal(czk_rpc_str(v.msg.request_id), "");
    czk_rpc_submit_view_free(&v);
    free(pb);
    free(b);
}

static void test_merge_and_unknown(void **state) {
    (void)state;
    Cuzk__V1__SubmitProofRequest m1, m2;
    ProtobufCBinaryData vps[3];
    fill(&m1, vps);
    cuzk__v1__submit_proof_request__init(&m2);
    m2.request_id = "second";
    m2.miner_id = 5;
    m2.n_vanilla_proofs = 1;
    m2.vanilla_proofs = vps; /* one more */
    size_t n1, n2;
    uint8_t *b1 = pack(&m1.base, &n1), *b2 = pack(&m2.base, &n2);
    /* m1 ++ unknown fields ++ m2 */
    static const uint8_t unknown[] = {
        0x98, 0x06, 0x2a,                            /* field 99 varint 42 */
        0x91, 0x06, 1,    2,   3,   4,   5, 6, 7, 8, /* field 98 fixed64 */
        0x8a, 0x06, 3,    'a', 'b', 'c',             /* field 97 bytes */
        0xe5, 0x05, 1,    2,   3,   4,               /* field 92 fixed32 */
    };
    size_t n = n1 + sizeof unknown + n2;
    uint8_t *b = malloc(n);
    assert_non_null(b);
    memcpy(b, b1, n1);
    memcpy(b + n1, unknown, sizeof unknown);
    memcpy(b + n1 + sizeof unknown, b2, n2);
    Cuzk__V1__SubmitProofRequest *ref = cuzk__v1__submit_proof_request__unpack(NULL, n, b);
    assert_non_null(ref);
    assert_int_equal(ref->n_vanilla_proofs, 4);
    assert_string_equal(ref->request_id, "second");
    czk_rpc_submit_view v;
    assert_true(czk_rpc_decode_submit(&v, b, n));
    assert_same(ref, &v.msg);
    czk_rpc_submit_view_free(&v);
    cuzk__v1__submit_proof_request__free_unpacked(ref, NULL);
    free(b);
    free(b1);
    free(b2);
}

/* Every prefix, and every single-byte change, is accepted or refused as protobuf-c does. */
static void test_truncations_and_flips(void **state) {
    (void)state;
    Cuzk__V1__SubmitProofRequest m;
    ProtobufCBinaryData vps[3];
    fill(&m, vps);
    m.vanilla_proof.len = 20; /* keep the message short: every byte is tried */
    size_t n;
    uint8_t *b = pack(&m.base, &n);
    size_t agree = 0, accepted = 0;
    for (size_t len = 0; len <= n; len++) {
        Cuzk__V1__SubmitProofRequest *ref = cuzk__v1__submit_proof_request__unpack(NULL, len, b);
        czk_rpc_submit_view v;
        bool ok = czk_rpc_decode_submit(&v, b, len);
        assert_int_equal(ok, ref != NULL);
        if (ok) {
            assert_same(ref, &v.msg);
            czk_rpc_submit_view_free(&v);
            accepted++;
        }
        if (ref) cuzk__v1__submit_proof_request__free_unpacked(ref, NULL);
        agree++;
    }
    assert_int_equal(agree, n + 1);
    assert_true(accepted >= 15); /* one per field boundary at least */
    /* wire-type and length changes of the first bytes of each field */
    for (size_t i = 0; i < n; i++)
        for (unsigned x = 1; x < 256; x <<= 1) {
            b[i] ^= (uint8_t)x;
            Cuzk__V1__SubmitProofRequest *ref = cuzk__v1__submit_proof_request__unpack(NULL, n, b);
            czk_rpc_submit_view v;
            bool ok = czk_rpc_decode_submit(&v, b, n);
            /* protobuf-c takes a key of field number 0 written in two bytes (0x8N 0x00)
             * as an unknown field; the wire format has no field 0: refused here */
            bool field0 = false;
            for (size_t j = i ? i - 1 : 0; j <= i && j + 1 < n; j++)
                field0 |= (b[j] & 0x80) && !((b[j] & 0x7f) >> 3) && b[j + 1] == 0;
            if (field0 && !ok && ref) {
                cuzk__v1__submit_proof_request__free_unpacked(ref, NULL);
                b[i] ^= (uint8_t)x;
                continue;
            }
            if (ok != (ref != NULL))
                fail_msg("byte %zu ^ %#x: ours %d, protobuf-c %d", i, x, ok, ref != NULL);
            if (ok) {
                assert_same(ref, &v.msg);
                czk_rpc_submit_view_free(&v);
            }
            if (ref) cuzk__v1__submit_proof_request__free_unpacked(ref, NULL);
            b[i] ^= (uint8_t)x;
        }
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_merge_and_unknown),
        cmocka_unit_test(test_truncations_and_flips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
