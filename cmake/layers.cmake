# One static library per layer, linked along the arrows of docs/architecture.md.
#
# A layer's own folder src/<layer>/ is private to its target: the target sees
# it as "<layer>/..." through a generated include tree that holds only that
# folder (${CMAKE_BINARY_DIR}/layers/<layer>/private/<layer> -> src/<layer>),
# never src/ as a whole. So `#include "engine/internal.h"` from src/porep does
# not compile. A header a layer hands to the layers above it is named with
# EXPORT (a tree of just those files, on the include path of the targets that
# link the layer); EXPORT_ALL hands over the whole folder (src/util only).
# The public API is include/czk/, on every layer's path.
#
#   czk_layer(<layer> [TARGET <name>] [SOURCES <files>] [DEPS <targets>]
#             [EXPORT <headers>] [EXPORT_ALL] [EXECUTABLE])
#
# Sources default to src/<layer>/*.c and *.cc. DEPS are linked PRIVATE: a
# layer may include the exported headers of the layers it names, not of the
# layers below those. The test build.layers (tests/build/) holds the build to it.
set(CZK_LAYERS_ROOT ${CMAKE_BINARY_DIR}/layers)

function(czk_layer layer)
  cmake_parse_arguments(PARSE_ARGV 1 L "EXPORT_ALL;EXECUTABLE" "TARGET" "SOURCES;DEPS;EXPORT")
  if(NOT L_TARGET)
    set(L_TARGET czk_${layer})
  endif()
  if(NOT L_SOURCES)
    file(GLOB L_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${layer}/*.c
         ${PROJECT_SOURCE_DIR}/src/${layer}/*.cc)
  endif()
  if(L_EXECUTABLE)
    add_executable(${L_TARGET} ${L_SOURCES})
  else()
    add_library(${L_TARGET} STATIC ${L_SOURCES})
    set_property(GLOBAL APPEND PROPERTY CZK_LAYER_TARGETS ${L_TARGET})
  endif()
  set(root ${CZK_LAYERS_ROOT}/${layer})
  file(MAKE_DIRECTORY ${root}/private)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${root}/private/${layer} SYMBOLIC)
  if(L_EXPORT_ALL)
    target_include_directories(${L_TARGET} PUBLIC ${root}/private)
  else()
    target_include_directories(${L_TARGET} PRIVATE ${root}/private)
  endif()
  if(L_EXPORT)
    file(REMOVE_RECURSE ${root}/export)
    file(MAKE_DIRECTORY ${root}/export/${layer})
    foreach(h ${L_EXPORT})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer}/${h} ${root}/export/${layer}/${h} SYMBOLIC)
    endforeach()
    target_include_directories(${L_TARGET} INTERFACE ${root}/export)
  endif()
  target_include_directories(${L_TARGET} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_compile_options(${L_TARGET} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:${CZK_WARNINGS}>)
  if(L_DEPS)
    target_link_libraries(${L_TARGET} PRIVATE ${L_DEPS})
  endif()
endfunction()

# A probe of the layering (tests/build/layers.cmake): an object library, not
# built by default, compiling tests/build/probe.c with the include directories
# and compile definitions that the target czk_<layer> itself compiles with
# (its own, and those its DEPS hand on), and CZK_PROBE_HEADER = `header`.
function(czk_layer_probe name layer header)
  add_library(czk_probe_${name} OBJECT EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tests/build/probe.c)
  target_include_directories(czk_probe_${name} PRIVATE
                             $<TARGET_PROPERTY:czk_${layer},INCLUDE_DIRECTORIES>)
  target_compile_definitions(czk_probe_${name} PRIVATE
                             $<TARGET_PROPERTY:czk_${layer},COMPILE_DEFINITIONS>
                             "CZK_PROBE_HEADER=\"${header}\"")
  target_compile_options(czk_probe_${name} PRIVATE ${CZK_WARNINGS})
endfunction()
