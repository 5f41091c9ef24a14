#!/usr/bin/env bash
# The main job (README, first command): PoRep C2 on the CPU for a 2KiB test
# sector, end to end, with the time of every step.
#   1. czk selftest: quick known-answer checks of every layer;
#   2. 2KiB Groth16 TEST keys: `czk setup` makes them once (about a minute
#      of 2 cores) in $CZK_CACHE_DIR/test-keys (default ~/.cache/czk) and
#      keeps them there; the .params file is stamped, so reading it skips the
#      subgroup pass;
#   3. a 2KiB C1: `czk gen-vanilla` seals a sector (miner f01000, sector 1,
#      pseudo-random data) with czk's own SDR implementation;
#   4. `czk prove`: parse, vanilla pre-check (replica_id recomputed), witness,
#      SpMV, NTT, the five MSMs, and the proof verified before it is written;
#   5. `czk verify`: the proof against public inputs derived as the chain does.
# Assumes scripts/setup.sh built the Release configuration.
#   CZK_BUILD_DIR  build folder (default build/release)
#   CZK_CACHE_DIR  keys, shapes and stamps (default ~/.cache/czk)
#   CZK_THREADS    threads (default: all CPUs)
#   CZK_DEMO_DIR   where the C1 and the proof are kept (default $CZK_BUILD_DIR/demo)
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "demo: no arguments expected, not '$1' (see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
CZK="${CZK_BUILD_DIR:-build/release}/czk"
CACHE="${CZK_CACHE_DIR:-$HOME/.cache/czk}"
KEYS="$CACHE/test-keys"
THREADS=(--threads "${CZK_THREADS:-0}")
[ "${CZK_THREADS:-0}" = 0 ] && THREADS=()
[ -x "$CZK" ] || { echo "demo: $CZK not found: run scripts/setup.sh first" >&2; exit 2; }
WORK="${CZK_DEMO_DIR:-${CZK_BUILD_DIR:-build/release}/demo}"
mkdir -p "$WORK"

declare -a STEPS=()
step() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name"
  "$@"
  STEPS+=("$(printf '%-40s %5ds' "$name" $((SECONDS - t0)))")
}

IDS=(--miner-id 1000 --sector-num 1)
step "selftest" "$CZK" selftest
step "2KiB test keys (made once, then kept)" "$CZK" setup --sector-size 2KiB --out-dir "$KEYS" "${THREADS[@]}"
step "2KiB C1 (czk gen-vanilla)" "$CZK" gen-vanilla --sector-size 2KiB "${IDS[@]}" --random 1 \
  --out "$WORK/c1.json" "${THREADS[@]}"
step "prove (CPU) and verify before writing" "$CZK" prove --c1 "$WORK/c1.json" --param-cache "$KEYS" \
  "${IDS[@]}" --out "$WORK/proof.bin" "${THREADS[@]}"
step "verify" "$CZK" verify --c1 "$WORK/c1.json" --proof "$WORK/proof.bin" --param-cache "$KEYS" "${IDS[@]}"

echo
echo "step                                      time"
printf '%s\n' "${STEPS[@]}"
echo "demo: a 2KiB PoRep C2 proof made on the CPU and verified (TEST keys, not Filecoin's)"
echo "demo: C1 $WORK/c1.json, proof $WORK/proof.bin (kept; the demo overwrites them next time)"
