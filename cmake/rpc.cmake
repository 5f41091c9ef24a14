# The gRPC service cuzk.v1.ProvingEngine (src/rpc/, include/czk/rpc.h):
# protobuf-c code generated from proto/cuzk/v1/proving.proto at build time
# (protoc-c), gRPC's core C API (pkg-config grpc) and libprotobuf-c.
# Only with -DCZK_RPC=ON; the layer czk_rpc links the engine and czk_httpstatus.
find_program(CZK_PROTOC_C protoc-c)
if(NOT CZK_PROTOC_C)
  message(FATAL_ERROR "protoc-c not found: install protobuf-c-compiler, or configure with -DCZK_RPC=OFF")
endif()
pkg_check_modules(GRPC IMPORTED_TARGET grpc)
pkg_check_modules(PROTOBUFC IMPORTED_TARGET libprotobuf-c)
if(NOT GRPC_FOUND OR NOT PROTOBUFC_FOUND)
  message(FATAL_ERROR "gRPC (libgrpc-dev) or protobuf-c (libprotobuf-c-dev) not found; "
                      "install them, or configure with -DCZK_RPC=OFF")
endif()

set(CZK_PROTO_DIR ${PROJECT_SOURCE_DIR}/proto)
set(CZK_PROTO_GEN ${CMAKE_BINARY_DIR}/gen)
set(CZK_PROTO_C ${CZK_PROTO_GEN}/cuzk/v1/proving.pb-c.c)
set(CZK_PROTO_H ${CZK_PROTO_GEN}/cuzk/v1/proving.pb-c.h)
add_custom_command(
  OUTPUT ${CZK_PROTO_C} ${CZK_PROTO_H}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CZK_PROTO_GEN}
  COMMAND ${CZK_PROTOC_C} --c_out=${CZK_PROTO_GEN} -I${CZK_PROTO_DIR} ${CZK_PROTO_DIR}/cuzk/v1/proving.proto
  DEPENDS ${CZK_PROTO_DIR}/cuzk/v1/proving.proto
  COMMENT "protoc-c proto/cuzk/v1/proving.proto"
  VERBATIM)
# Generated code: no -Werror (it is not ours).
add_library(czk_proto STATIC ${CZK_PROTO_C})
target_include_directories(czk_proto PUBLIC ${CZK_PROTO_GEN})
target_link_libraries(czk_proto PUBLIC PkgConfig::PROTOBUFC)

czk_layer(rpc DEPS czk_engine czk_httpstatus czk_util)
target_compile_definitions(czk_rpc PUBLIC CZK_HAVE_RPC=1)
target_link_libraries(czk_rpc PUBLIC czk_proto PkgConfig::GRPC Threads::Threads)
