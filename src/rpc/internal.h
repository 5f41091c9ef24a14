/* Shared by the gRPC server and client (src/rpc): message bytes <-> gRPC byte buffers. */
#ifndef CZK_RPC_INTERNAL_H
#define CZK_RPC_INTERNAL_H

#include "czk/rpc.h"

#include "cuzk/v1/proving.pb-c.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include <malloc.h>
#include <string.h>

#define CZK_RPC_SERVICE "/cuzk.v1.ProvingEngine/"

/*
 * The bytes of a received message as one slice. A buffer of one slice is
 * taken as is (a reference, no copy). Several slices are joined into one:
 * each is released as soon as it is copied and every 16 MiB of released
 * slices go back to the system (malloc_trim), so a large message is held
 * about once, not twice, while it is joined. The buffer is destroyed.
 */
static inline grpc_slice czk_rpc_bb_take(grpc_byte_buffer *bb) {
    grpc_slice s;
    if (bb->type == GRPC_BB_RAW && bb->data.raw.compression == GRPC_COMPRESS_NONE &&
        bb->data.raw.slice_buffer.count == 1) {
        s = grpc_slice_ref(bb->data.raw.slice_buffer.slices[0]);
    } else if (bb->type == GRPC_BB_RAW && bb->data.raw.compression == GRPC_COMPRESS_NONE) {
        grpc_slice_buffer *sb = &bb->data.raw.slice_buffer;
        s = grpc_slice_malloc(sb->length);
        uint8_t *at = GRPC_SLICE_START_PTR(s);
        size_t released = 0;
        while (sb->count) {
            grpc_slice p = grpc_slice_buffer_take_first(sb);
            size_t n = GRPC_SLICE_LENGTH(p);
            memcpy(at, GRPC_SLICE_START_PTR(p), n);
            at += n;
            grpc_slice_unref(p);
            if ((released += n) >= (16u << 20)) {
                malloc_trim(0);
                released = 0;
            }
        }
    } else {
        grpc_byte_buffer_reader r;
        if (!grpc_byte_buffer_reader_init(&r, bb)) {
            grpc_byte_buffer_destroy(bb);
            return grpc_empty_slice();
        }
        s = grpc_byte_buffer_reader_readall(&r);
        grpc_byte_buffer_reader_destroy(&r);
    }
    grpc_byte_buffer_destroy(bb);
    return s;
}

/* A byte buffer holding msg packed (one allocation of its size); NULL when out of memory. */
static inline grpc_byte_buffer *czk_rpc_bb_pack(const ProtobufCMessage *msg) {
    size_t n = protobuf_c_message_get_packed_size(msg);
    grpc_slice s = grpc_slice_malloc(n);
    protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

/* A string field as a C string (protobuf-c gives "" for unset strings, never NULL, but be safe). */
static inline const char *czk_rpc_str(const char *s) {
    return s ? s : "";
}

/*
 * SubmitProofRequest / ProveRequest decoded in place (decode.c): msg's bytes
 * fields point into the decoded buffer, which must outlive the view;
 * request_id (NULL when absent) and the vanilla_proofs array are the view's.
 * Returns false for a malformed message (nothing to free then).
 */
typedef struct czk_rpc_submit_view {
    Cuzk__V1__SubmitProofRequest msg;
    bool present; /* czk_rpc_decode_prove: the submit field was there */
    size_t cap_vanilla_proofs;
} czk_rpc_submit_view;

bool czk_rpc_decode_submit(czk_rpc_submit_view *v, const uint8_t *b, size_t n);
bool czk_rpc_decode_prove(czk_rpc_submit_view *v, const uint8_t *b, size_t n);
void czk_rpc_submit_view_free(czk_rpc_submit_view *v);

#endif
