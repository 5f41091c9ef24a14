#!/bin/sh
# The C1 parser choice (bench/RESULTS.md "C1 intake"): walk the same C1 JSON
# with yajl (streaming callbacks) and simdjson 3.0.1 (On-Demand and DOM),
# touching every value, three runs each. Needs libyajl-dev and libsimdjson-dev.
# Usage: bench/c1_candidates/run.sh FILE   (FILE from `bench_c1 gen FILE 8`)
set -eu
d=$(cd "$(dirname "$0")" && pwd)
o=${TMPDIR:-/tmp}/c1_candidates
mkdir -p "$o"
cc -O3 -o "$o/yajl_walk" "$d/yajl_walk.c" -lyajl
c++ -O3 -std=c++17 -o "$o/simdjson_walk" "$d/simdjson_walk.cc" -lsimdjson
for i in 1 2 3; do
  "$o/yajl_walk" "$1"
  "$o/simdjson_walk" "$1"
  "$o/simdjson_walk" "$1" dom
done
