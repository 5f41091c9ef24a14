# gRPC clients czk did not write, against a running `czk daemon` (CPU backend),
# label e2e, only with CZK_RPC:
#   rpc.python_client  Debian's python3-grpcio, stubs generated at test time;
#                      every RPC, a 2KiB PoRep proof `czk verify` accepts
#                      (needs the porep_2kib_keys fixture: porep.e2e_keys), and
#                      2KiB WindowPoSt / WinningPoSt proofs the post_2kib_inputs
#                      fixture's verifier accepts (rpc.post_inputs), a 2KiB
#                      SnapDeals proof `czk verify --kind snap` accepts (the
#                      snap_2kib_keys fixture: snap.keys);
#   rpc.go_client      grpc-go 1.33 (Curio's gRPC library), Prove and GetStatus.
if(NOT CZK_RPC)
  return()
endif()
set(CZK_TEST_ENV "CZK_TEST_CLI=$<TARGET_FILE:czk>;CZK_SOURCE_DIR=${PROJECT_SOURCE_DIR}")

if(EXISTS /usr/bin/python3 AND TARGET test_rpc_post_inputs)
  add_test(NAME rpc.python_client
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/rpc/python_client.py
                   $<TARGET_FILE:czk> ${PROJECT_SOURCE_DIR})
  set_tests_properties(rpc.python_client PROPERTIES LABELS e2e TIMEOUT 900
                       FIXTURES_REQUIRED "porep_2kib_keys;post_2kib_inputs;snap_2kib_keys"
                       ENVIRONMENT "${CZK_TEST_ENV};CZK_TEST_POST_INPUTS=$<TARGET_FILE:test_rpc_post_inputs>")
elseif(NOT TARGET test_rpc_post_inputs)
  message(STATUS "rpc.python_client not registered: it needs the cmocka tests (CZK_TESTS)")
else()
  message(WARNING "rpc.python_client not registered: /usr/bin/python3 not found (scripts/setup.sh)")
endif()

find_program(CZK_GO go)
find_program(CZK_PROTOC protoc)
find_program(CZK_PROTOC_GEN_GO protoc-gen-go)
find_program(CZK_PROTOC_GEN_GO_GRPC protoc-gen-go-grpc)
if(CZK_GO AND CZK_PROTOC AND CZK_PROTOC_GEN_GO AND CZK_PROTOC_GEN_GO_GRPC AND EXISTS /usr/share/gocode/src/google.golang.org/grpc)
  add_test(NAME rpc.go_client
           COMMAND ${PROJECT_SOURCE_DIR}/tests/rpc/go_client/run.sh $<TARGET_FILE:czk>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/go_client)
  set_tests_properties(rpc.go_client PROPERTIES LABELS e2e TIMEOUT 600 ENVIRONMENT "${CZK_TEST_ENV}")
else()
  message(WARNING "rpc.go_client not registered: go, protoc, protoc-gen-go, protoc-gen-go-grpc or "
                  "golang-google-grpc-dev missing (scripts/setup.sh installs them)")
endif()
