#!/bin/sh
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and fuzzes the
# .params/.vk readers and the proof decoder (fuzz/params_fuzz.c).
# Usage: fuzz/run-params-fuzz.sh [seconds] [jobs]
# Crashes land in build/fuzz/artifacts/; each one found becomes a regression
# test in tests/groth16/params.c.
set -eu
secs=${1:-600}
jobs=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$b" -G Ninja -DCZK_FUZZ=ON -DCZK_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined \
  -DCZK_DEPS_DIR="${CZK_DEPS_DIR:-$HOME/.cache/czk}" >/dev/null
cmake --build "$b" -j2 --target fuzz_params fuzz_params_seeds
mkdir -p "$b/corpus/params" "$b/artifacts"
"$b/fuzz_params_seeds" "$b/corpus/params"
exec "$b/fuzz_params" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" -max_len=8192 \
  -artifact_prefix="$b/artifacts/" -print_final_stats=1 "$b/corpus/params"
