# Tests: each tests/<layer>/<group>.c is one cmocka program and one ctest named
# <layer>.<group>. Its labels come from a line in the file:
#   /* CZK_TEST_LABELS: unit */        (unit | e2e | slow, several allowed)
# Optional lines: "CZK_TEST_TIMEOUT: <s>", "CZK_TEST_FIXTURES_SETUP: <name>",
# "CZK_TEST_FIXTURES_REQUIRED: <name>". Tests labelled slow are registered only
# with -DCZK_SLOW_TESTS=ON. A program all of whose cases were skipped exits 77, which
# ctest reports as Skipped (SKIP_RETURN_CODE; tests/support/skip.c).
option(CZK_TESTS "build the cmocka tests (needs cmocka)" ON)
if(NOT CZK_TESTS)
  return()
endif()
find_path(CMOCKA_INCLUDE_DIR cmocka.h)
find_library(CMOCKA_LIBRARY cmocka)
if(NOT CMOCKA_INCLUDE_DIR OR NOT CMOCKA_LIBRARY)
  message(FATAL_ERROR "cmocka not found: install libcmocka-dev (scripts/setup.sh does)")
endif()
file(GLOB CZK_TEST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/*/*.c)
file(GLOB CZK_TEST_SUPPORT CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/support/*.c)
list(FILTER CZK_TEST_SOURCES EXCLUDE REGEX "/tests/(support|build)/")
add_library(czk_test_support STATIC ${CZK_TEST_SUPPORT} ${PROJECT_SOURCE_DIR}/tests/support/support.h)
set_target_properties(czk_test_support PROPERTIES LINKER_LANGUAGE C)
target_include_directories(czk_test_support PUBLIC ${PROJECT_SOURCE_DIR}/tests/support ${CMOCKA_INCLUDE_DIR}
                           PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(czk_test_support PUBLIC libczk ${CMOCKA_LIBRARY})
# A program whose every case called skip() exits CZK_TEST_EXIT_SKIPPED (77) and ctest shows it
# as Skipped, not Passed (tests/support/skip.c wraps cmocka's _skip and _cmocka_run_group_tests).
target_link_options(czk_test_support INTERFACE -Wl,--wrap=_skip -Wl,--wrap=_cmocka_run_group_tests)
foreach(src ${CZK_TEST_SOURCES})
  get_filename_component(group ${src} NAME_WE)
  get_filename_component(dir ${src} DIRECTORY)
  get_filename_component(layer ${dir} NAME)
  file(STRINGS ${src} label_line REGEX "CZK_TEST_LABELS:" LIMIT_COUNT 1)
  string(REGEX REPLACE ".*CZK_TEST_LABELS:[ ]*([a-z0-9 ]+).*" "\\1" labels "${label_line}")
  string(STRIP "${labels}" labels)
  if(NOT labels)
    message(FATAL_ERROR "${src}: no CZK_TEST_LABELS line")
  endif()
  separate_arguments(labels)
  if("slow" IN_LIST labels AND NOT CZK_SLOW_TESTS)
    continue()
  endif()
  if(layer STREQUAL "rpc" AND NOT CZK_RPC)
    continue() # tests/rpc need the gRPC layer
  endif()
  set(target test_${layer}_${group})
  add_executable(${target} ${src})
  target_compile_options(${target} PRIVATE ${CZK_WARNINGS})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PRIVATE czk_test_support)
  if(layer STREQUAL "rpc")
    target_link_libraries(${target} PRIVATE czk_rpc)
  endif()
  add_test(NAME ${layer}.${group} COMMAND ${target})
  set_tests_properties(${layer}.${group} PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77
                       ENVIRONMENT "CZK_TEST_CLI=$<TARGET_FILE:czk>;CZK_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  file(STRINGS ${src} t_line REGEX "CZK_TEST_TIMEOUT:" LIMIT_COUNT 1)
  if(t_line)
    string(REGEX REPLACE ".*CZK_TEST_TIMEOUT:[ ]*([0-9]+).*" "\\1" t "${t_line}")
    set_tests_properties(${layer}.${group} PROPERTIES TIMEOUT ${t})
  endif()
  foreach(kind SETUP REQUIRED)
    file(STRINGS ${src} f_line REGEX "CZK_TEST_FIXTURES_${kind}:" LIMIT_COUNT 1)
    if(f_line)
      string(REGEX REPLACE ".*CZK_TEST_FIXTURES_${kind}:[ ]*([a-z0-9_]+).*" "\\1" f "${f_line}")
      set_tests_properties(${layer}.${group} PROPERTIES FIXTURES_${kind} ${f})
    endif()
  endforeach()
endforeach()

# build.layers: a test of the build itself (tests/build/layers.cmake). Each
# probe compiles tests/build/probe.c with one layer's include tree and
# dependencies (cmake/layers.cmake czk_layer_probe): another layer's private
# header must not be found, the layer's own and the exported ones must.
set(CZK_PROBES
    porep_engine=private:engine/internal.h
    porep_gadgets=private:gadgets/boolean_internal.h
    engine_groth16=private:groth16/internal.h
    engine_cuda=private:cuda/internal.h
    kinds_porep=private:porep/c1_internal.h
    rpc_engine=private:engine/internal.h
    seal_snap=private:snap/internal.h
    snap_own=ok:snap/internal.h
    porep_own=ok:porep/c1_internal.h
    engine_util=ok:util/time.h)
if(CZK_HAVE_CUDA) # without CUDA czk_cuda (cuda_absent.c) depends on util alone
  list(APPEND CZK_PROBES cuda_fixed_base=ok:groth16/fixed_base.h)
endif()
foreach(probe ${CZK_PROBES})
  string(REGEX REPLACE "^([a-z0-9]+)_([a-z0-9_]+)=([a-z]+):(.+)$" "\\1;\\2;\\3;\\4" p "${probe}")
  list(GET p 0 layer)
  list(GET p 3 header)
  string(REGEX REPLACE "=.*" "" name "${probe}")
  if(NOT TARGET czk_${layer})
    list(REMOVE_ITEM CZK_PROBES ${probe}) # czk_rpc without CZK_RPC
    continue()
  endif()
  czk_layer_probe(${name} ${layer} ${header})
endforeach()
add_test(NAME build.layers
         COMMAND ${CMAKE_COMMAND} -DCZK_BUILD_DIR=${CMAKE_BINARY_DIR} "-DCZK_PROBES=${CZK_PROBES}"
                 -P ${PROJECT_SOURCE_DIR}/tests/build/layers.cmake)
# RUN_SERIAL: it runs the build tool on this build tree
set_tests_properties(build.layers PROPERTIES LABELS unit RUN_SERIAL TRUE TIMEOUT 300)
