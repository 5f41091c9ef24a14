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
# czk_cuda is the layer src/cuda either way: the kernels and the backend, or
# without CUDA src/cuda/cuda_absent.c, whose entry points answer
# CZK_ERR_UNSUPPORTED (czk_cuda_built() false), so that the layers above link
# the same calls in both builds; and src/cuda/provider.c, the backend as the
# composition roots hand it to the engine (czk_cuda_provider).
if(CZK_HAVE_CUDA)
  file(GLOB CZK_CUDA_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
  czk_layer(cuda SOURCES ${CZK_CUDA_SOURCES} ${PROJECT_SOURCE_DIR}/src/cuda/provider.c
            DEPS czk_groth16 czk_r1cs czk_ec czk_ff czk_util)
  target_compile_definitions(czk_cuda PUBLIC CZK_HAVE_CUDA=1)
  set_target_properties(czk_cuda PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                        CUDA_RUNTIME_LIBRARY Static)
  target_compile_options(czk_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall -Xcompiler=-Wno-unknown-pragmas --expt-relaxed-constexpr>)
  if(CZK_WERROR) # the host compiler's warnings on .cu files too (gpu-check.sh: CZK_WERROR=OFF)
    target_compile_options(czk_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Werror>)
  endif()
  message(STATUS "czk: CUDA backend on (${CZK_NVCC}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  czk_layer(cuda SOURCES ${PROJECT_SOURCE_DIR}/src/cuda/cuda_absent.c
            ${PROJECT_SOURCE_DIR}/src/cuda/provider.c DEPS czk_util)
  message(STATUS "czk: CUDA backend off (src/cuda/cuda_absent.c)")
endif()
