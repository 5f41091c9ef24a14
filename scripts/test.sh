#!/usr/bin/env bash
# Runs czk's tests, as CI does (README "Run the tests"):
#   1. the Release build (build/release, as scripts/setup.sh configured it: with
#      CUDA where nvcc exists): every registered test (unit + e2e). With CUDA
#      built in and no GPU present, these prove the CPU fallback;
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build (build/asan): unit tests;
#   3. only where nvcc exists but build/release was configured without CUDA:
#      the CUDA configuration (build/cuda, sm_90 only) and its unit tests.
# Assumes scripts/setup.sh ran (packages, pinned blst). Prints, last, a table of the
# steps' times and each ctest run's passed / failed / skipped counts (a test program
# all of whose cases were skipped, e.g. every cuda.* case without a GPU, exits 77 and
# ctest counts it as skipped; one whose cases partly ran counts as passed).
set -euo pipefail
cd "$(dirname "$0")/.."
DEPS="${CZK_DEPS_DIR:-$HOME/.cache/czk}"
JOBS=$(nproc)
declare -a STEPS=() COUNTS=()
step() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name"
  "$@"
  STEPS+=("$(printf '%-34s %5ds' "$name" $((SECONDS - t0)))")
}
# ctest with its arguments; records passed / failed / skipped from ctest's per-test lines
# ("Test #N: name ... Passed", "***Skipped", anything else counts as failed).
counted_ctest() { # name, ctest args...
  local name=$1; shift
  local log rc=0
  log=$(mktemp)
  ctest "$@" 2>&1 | tee "$log" || rc=$?
  local total passed skipped
  total=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log" || true)
  passed=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed +[0-9.]+ sec' "$log" || true)
  skipped=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log" || true)
  rm -f "$log"
  COUNTS+=("$(printf '%-34s %4d passed %4d failed %4d skipped' "$name" "$passed" \
    $((total - passed - skipped)) "$skipped")")
  echo "$name: $passed passed, $((total - passed - skipped)) failed, $skipped skipped"
  return "$rc"
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
step "release: ctest (unit, e2e)" counted_ctest "release (unit, e2e)" --test-dir build/release --output-on-failure -j "$JOBS" -L 'unit|e2e'
step "asan+ubsan: configure + build" asan_build
step "asan+ubsan: ctest (unit)" counted_ctest "asan+ubsan (unit)" --test-dir build/asan --output-on-failure -j "$JOBS" -L unit
if grep -q '^CZK_HAVE_CUDA:INTERNAL=ON' build/release/CMakeCache.txt 2>/dev/null; then
  echo "== cuda: build/release has the CUDA backend; its tests above ran the CPU fallback"
elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  step "cuda (sm_90): configure + build" cuda_build
  step "cuda (sm_90): ctest (unit)" counted_ctest "cuda sm_90 (unit)" --test-dir build/cuda --output-on-failure -j "$JOBS" -L unit
else
  echo "== cuda: nvcc not found; CUDA configuration skipped"
fi

echo
echo "step                                time"
printf '%s\n' "${STEPS[@]}"
echo
echo "tests"
printf '%s\n' "${COUNTS[@]}"
