#!/bin/sh
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and fuzzes one
# vanilla-proof intake: post_vanilla (czk_post_vanilla_parse, then the
# pre-check and the witness of whatever parses) or snap_vanilla
# (czk_snap_vanilla_parse, then the pre-check).
# Usage: fuzz/run-vanilla-fuzz.sh post_vanilla|snap_vanilla [seconds] [jobs]
# Crashes land in build/fuzz/artifacts/, logs in build/fuzz/fuzz-*.log.
# CZK_WERROR=OFF: clang warns about an unused static inline of
# CZK_FIXED_BASE_IMPL in src/groth16/setup.c (-Wunused-function), which gcc
# does not; with -Werror the clang build stops there.
set -eu
name=$1
secs=${2:-600}
jobs=${3:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$b" -G Ninja -DCZK_FUZZ=ON -DCZK_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined -DCZK_WERROR=OFF \
  -DCZK_DEPS_DIR="${CZK_DEPS_DIR:-$HOME/.cache/czk}" >/dev/null
cmake --build "$b" -j2 --target "fuzz_$name" "fuzz_${name}_seeds"
mkdir -p "$b/corpus/$name" "$b/artifacts"
"$b/fuzz_${name}_seeds" "$b/corpus/$name"
cd "$b" # libFuzzer's -jobs logs (fuzz-N.log) go to the working directory
exec "$b/fuzz_$name" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" \
  -max_len=65536 -artifact_prefix="$b/artifacts/$(echo "$name" | tr _ -)-" -print_final_stats=1 \
  "$b/corpus/$name"
