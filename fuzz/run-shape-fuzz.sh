#!/bin/sh
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and fuzzes the
# shape decoder. Usage: fuzz/run-shape-fuzz.sh [seconds] [jobs]
# Crashes land in build/fuzz/artifacts/; each one found becomes a regression
# test in tests/r1cs/shape_regress.c.
set -eu
secs=${1:-600}
jobs=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$b" -G Ninja -DCZK_FUZZ=ON -DCZK_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined \
  -DCZK_DEPS_DIR="${CZK_DEPS_DIR:-$HOME/.cache/czk}" >/dev/null
cmake --build "$b" -j2 --target fuzz_shape fuzz_shape_seeds
mkdir -p "$b/corpus/shape" "$b/artifacts"
"$b/fuzz_shape_seeds" "$b/corpus/shape"
exec "$b/fuzz_shape" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" -max_len=65536 \
  -artifact_prefix="$b/artifacts/" -print_final_stats=1 "$b/corpus/shape"
