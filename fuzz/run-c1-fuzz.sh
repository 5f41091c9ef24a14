#!/bin/sh
# Builds the fuzz targets with clang (ASan + UBSan + libFuzzer) and fuzzes the
# C1 intake (czk_c1_parse, czk_c1_parse_envelope, then write/re-parse and the
# pre-check of whatever parses). Usage: fuzz/run-c1-fuzz.sh [seconds] [jobs]
# Crashes land in build/fuzz/artifacts/, logs in build/fuzz/fuzz-*.log; each one found becomes a regression
# test in tests/porep/c1_regress.c.
set -eu
secs=${1:-600}
jobs=${2:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$b" -G Ninja -DCZK_FUZZ=ON -DCZK_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZK_SANITIZE=address,undefined \
  -DCZK_DEPS_DIR="${CZK_DEPS_DIR:-$HOME/.cache/czk}" >/dev/null
cmake --build "$b" -j2 --target fuzz_c1 fuzz_c1_seeds
mkdir -p "$b/corpus/c1" "$b/artifacts"
"$b/fuzz_c1_seeds" "$b/corpus/c1"
cd "$b" # libFuzzer's -jobs logs (fuzz-N.log) go to the working directory
exec "$b/fuzz_c1" -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" -max_len=262144 \
  -dict="$root/fuzz/c1.dict" -artifact_prefix="$b/artifacts/c1-" -print_final_stats=1 \
  "$b/corpus/c1"
