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

#define CZK_RPC_SERVICE "/cuzk.v1.ProvingEngine/"

/*
 * The bytes of a received message as one slice. A buffer of one slice is
 * taken as is (a reference, no copy); several slices are joined (one copy).
 * The buffer is destroyed either way, so at most the message and one copy
 * are alive at once.
 */
static inline grpc_slice czk_rpc_bb_take(grpc_byte_buffer *bb) {
    grpc_slice s;
    if (bb->type == GRPC_BB_RAW && bb->data.raw.compression == GRPC_COMPRESS_NONE &&
        bb->data.raw.slice_buffer.count == 1) {
        s = grpc_slice_ref(bb->data.raw.slice_buffer.slices[0]);
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

#endif
