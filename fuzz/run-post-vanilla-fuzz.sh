#!/bin/sh
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and fuzzes the
# PoSt vanilla intake (czk_post_vanilla_parse, then the pre-check and the
# witness of whatever parses). Usage: fuzz/run-post-vanilla-fuzz.sh [seconds] [jobs]
# Crashes land in build/fuzz/artifacts/, logs in build/fuzz/fuzz-*.log.
# CZK_WERROR=OFF: clang warns about an unused static inline of
# CZK_FIXED_BASE_IMPL in src/groth16/setup.c (-Wunused-function), which gcc
# does not; with -Werror the clang build stops there.
set -eu
secs=${1:-600}
jobs=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$b" -G Ninja -DCZK_FUZZ=ON -DCZK_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined -DCZK_WERROR=OFF \
  -DCZK_DEPS_DIR="${CZK_DEPS_DIR:-$HOME/.cache/czk}" >/dev/null
cmake --build "$b" -j2 --target fuzz_post_vanilla fuzz_post_vanilla_seeds
mkdir -p "$b/corpus/post_vanilla" "$b/artifacts"
"$b/fuzz_post_vanilla_seeds" "$b/corpus/post_vanilla"
cd "$b" # libFuzzer's -jobs logs (fuzz-N.log) go to the working directory
exec "$b/fuzz_post_vanilla" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" \
  -max_len=65536 -artifact_prefix="$b/artifacts/post-vanilla-" -print_final_stats=1 \
  "$b/corpus/post_vanilla"
