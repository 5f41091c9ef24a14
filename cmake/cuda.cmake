# CUDA is optional. AUTO turns it on where nvcc is found (on PATH or in
# /usr/local/cuda/bin). The runtime is linked statically and the driver library
# never directly, so a CUDA build starts on a machine without a GPU or driver
# and falls back to the CPU backend at run time.
set(CZK_HAVE_CUDA OFF)
if(NOT CZK_CUDA STREQUAL "OFF")
  find_program(CZK_NVCC nvcc HINTS /usr/local/cuda/bin)
  if(CZK_NVCC)
    set(CMAKE_CUDA_COMPILER "${CZK_NVCC}" CACHE FILEPATH "nvcc")
    set(CMAKE_CUDA_ARCHITECTURES "${CZK_CUDA_ARCHS}")
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    enable_language(CUDA)
    set(CZK_HAVE_CUDA ON)
  elseif(CZK_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CZK_CUDA=ON but nvcc was found neither on PATH nor in /usr/local/cuda/bin")
  endif()
endif()
set(CZK_HAVE_CUDA ${CZK_HAVE_CUDA} CACHE INTERNAL "whether this build has the CUDA backend")
if(CZK_HAVE_CUDA)
  file(GLOB CZK_CUDA_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
  add_library(czk_cuda STATIC ${CZK_CUDA_SOURCES})
  target_include_directories(czk_cuda PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # czk_cuda and libczk call each other (czk_errf, czk_fr_* here; the C ABI
  # there): CMake repeats cyclic static libraries on the link line.
  target_link_libraries(czk_cuda PRIVATE blst libczk)
  set_target_properties(czk_cuda PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                        CUDA_RUNTIME_LIBRARY Static)
  target_compile_options(czk_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall -Xcompiler=-Wno-unknown-pragmas --expt-relaxed-constexpr>)
  message(STATUS "czk: CUDA backend on (${CZK_NVCC}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "czk: CUDA backend off")
endif()
