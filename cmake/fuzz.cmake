# Fuzz targets (libFuzzer), built only with -DCZK_FUZZ=ON and clang:
#   CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCZK_FUZZ=ON -DCZK_CUDA=OFF \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined
# fuzz/<name>_fuzz.c becomes fuzz_<name>; every layer gets coverage instrumentation.
# fuzz/run-shape-fuzz.sh does all of it and runs the shape decoder's target;
# fuzz/run-c1-fuzz.sh the C1 intake's.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "CZK_FUZZ=ON needs clang (libFuzzer): configure with CC=clang")
endif()
foreach(t ${CZK_LAYER_TARGETS} czk)
  target_compile_options(${t} PRIVATE -fsanitize=fuzzer-no-link)
endforeach()
file(GLOB CZK_FUZZ_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/*_fuzz.c)
foreach(src ${CZK_FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "_fuzz$" "" name ${name})
  add_executable(fuzz_${name} ${src})
  target_compile_options(fuzz_${name} PRIVATE ${CZK_WARNINGS} -fsanitize=fuzzer)
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  target_include_directories(fuzz_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(fuzz_${name} PRIVATE libczk)
endforeach()
# Seed corpus writers: fuzz/<name>_seeds.c becomes fuzz_<name>_seeds.
file(GLOB CZK_FUZZ_SEEDS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/*_seeds.c)
foreach(src ${CZK_FUZZ_SEEDS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(fuzz_${name} ${src})
  target_compile_options(fuzz_${name} PRIVATE ${CZK_WARNINGS})
  target_include_directories(fuzz_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(fuzz_${name} PRIVATE libczk)
endforeach()
