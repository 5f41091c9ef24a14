# blst v0.3.12, from the c-kzg@4.1.0 npm tarball that scripts/setup.sh fetched
# and checked into CZK_DEPS_DIR. Built here from its C and assembly sources
# (not through blst's build.sh, which exits 0 when a compile fails), so any
# compile error stops the build; afterwards the archive is checked for the
# symbols czk calls.
set(CZK_DEPS_DIR "$ENV{CZK_DEPS_DIR}" CACHE PATH "where scripts/setup.sh keeps pinned dependencies")
if(NOT CZK_DEPS_DIR)
  set(CZK_DEPS_DIR "$ENV{HOME}/.cache/czk")
endif()
set(CZK_BLST_TARBALL "${CZK_DEPS_DIR}/c-kzg-4.1.0.tgz")
if(NOT EXISTS "${CZK_BLST_TARBALL}")
  message(FATAL_ERROR "blst sources missing: ${CZK_BLST_TARBALL} not found; run scripts/setup.sh first "
                      "(or set CZK_DEPS_DIR to the folder that holds c-kzg-4.1.0.tgz)")
endif()
file(SHA512 "${CZK_BLST_TARBALL}" _czk_blst_sha512)
# sha512-eliOBB2GKoT5Nk4LwN418O8kWfXCwepHj3kd6z0zKrzIdJbry0Y8IDPYzE5Dxw/fs386PGO6zQRqy8LSVtR5tQ== in hex
set(_czk_blst_expected "7a588e041d862a84f9364e0bc0de35f0ef2459f5c2c1ea478f791deb3d332abcc87496ebcb463c2033d8cc4e43c70fdfb37f3a3c63bacd046acbc2d256d479b5")
if(NOT _czk_blst_sha512 STREQUAL _czk_blst_expected)
  message(FATAL_ERROR "${CZK_BLST_TARBALL}: sha512 ${_czk_blst_sha512} does not match the pinned integrity value; delete it and run scripts/setup.sh")
endif()
set(CZK_BLST_DIR "${CMAKE_BINARY_DIR}/_deps/blst")
if(NOT EXISTS "${CZK_BLST_DIR}/package/deps/blst/src/server.c")
  file(MAKE_DIRECTORY "${CZK_BLST_DIR}")
  file(ARCHIVE_EXTRACT INPUT "${CZK_BLST_TARBALL}" DESTINATION "${CZK_BLST_DIR}"
       PATTERNS package/deps/blst/src package/deps/blst/build package/deps/blst/bindings)
endif()
set(CZK_BLST_ROOT "${CZK_BLST_DIR}/package/deps/blst")
enable_language(ASM)
add_library(blst STATIC "${CZK_BLST_ROOT}/src/server.c" "${CZK_BLST_ROOT}/build/assembly.S")
# __BLST_PORTABLE__: pick ADX/MULX code paths at run time, so one build runs on any x86-64.
target_compile_definitions(blst PRIVATE __BLST_PORTABLE__)
target_compile_options(blst PRIVATE -O2 -fno-builtin -fPIC -Wno-error)
set_target_properties(blst PROPERTIES C_CLANG_TIDY "" POSITION_INDEPENDENT_CODE ON)
target_include_directories(blst SYSTEM PUBLIC "${CZK_BLST_ROOT}/bindings")
add_custom_command(TARGET blst POST_BUILD
  COMMAND sh "${CMAKE_CURRENT_LIST_DIR}/check-blst.sh" "$<TARGET_FILE:blst>"
  VERBATIM)
