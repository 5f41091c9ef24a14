#!/usr/bin/env bash
# Runs czk's tests, as CI does (README "Run the tests"):
#   1. the Release build (build/release, as scripts/setup.sh configured it: with
#      CUDA where nvcc exists): every registered test (unit + e2e). With CUDA
#      built in and no GPU present, these prove the CPU fallback;
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build (build/asan): unit tests;
#   3. only where nvcc exists but build/release was configured without CUDA:
#      the CUDA configuration (build/cuda, sm_90 only) and its unit tests.
# Assumes scripts/setup.sh ran (packages, pinned blst). Prints a timing table last.
set -euo pipefail
cd "$(dirname "$0")/.."
DEPS="${CZK_DEPS_DIR:-$HOME/.cache/czk}"
JOBS=$(nproc)
declare -a STEPS=()
step() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name"
  "$@"
  STEPS+=("$(printf '%-34s %5ds' "$name" $((SECONDS - t0)))")
}
configure() { # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCZK_DEPS_DIR="$DEPS" "$@" >/dev/null
}

release_build() { configure build/release -DCMAKE_BUILD_TYPE=Release && cmake --build build/release -j "$JOBS"; }
asan_build() {
  configure build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined -DCZK_CUDA=OFF &&
    cmake --build build/asan -j "$JOBS"
}
cuda_build() {
  configure build/cuda -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON -DCZK_CUDA_ARCHS=90-real &&
    cmake --build build/cuda -j "$JOBS"
}

step "release: configure + build" release_build
step "release: ctest (unit, e2e)" ctest --test-dir build/release --output-on-failure -j "$JOBS" -L 'unit|e2e'
step "asan+ubsan: configure + build" asan_build
step "asan+ubsan: ctest (unit)" ctest --test-dir build/asan --output-on-failure -j "$JOBS" -L unit
if grep -q '^CZK_HAVE_CUDA:INTERNAL=ON' build/release/CMakeCache.txt 2>/dev/null; then
  echo "== cuda: build/release has the CUDA backend; its tests above ran the CPU fallback"
elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  step "cuda (sm_90): configure + build" cuda_build
  step "cuda (sm_90): ctest (unit)" ctest --test-dir build/cuda --output-on-failure -j "$JOBS" -L unit
else
  echo "== cuda: nvcc not found; CUDA configuration skipped"
fi

echo
echo "step                                time"
printf '%s\n' "${STEPS[@]}"
