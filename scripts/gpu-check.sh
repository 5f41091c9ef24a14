#!/usr/bin/env bash
# GPU check: builds czk with CUDA for sm_90 only, runs the GPU tests (every
# kernel against the CPU layer on random data of several sizes; the GPU
# backend's proofs byte-equal to the CPU backend's on test circuits and on a
# 2KiB PoRep partition; the engine with gpus.backend = "cuda") and the GPU
# benchmark (kernels and porep2k_gpu_ms; NTT/H under each CZK_CUDA_NTT_TWIST and
# CZK_CUDA_H_ORDER setting), runs the NTT/H tests (cuda.gpu) a second time
# with the old NTT paths selected, writes gpu-latest.json into OUTDIR
# (default bench/), and prints a short table last. Meant for an H200/H100
# machine; the whole run, build included, stays under 10 minutes (about 140 s
# on the lent H200).
#
#   scripts/gpu-check.sh [OUTDIR]
# Environment: CZK_DEPS_DIR (folder with c-kzg-4.1.0.tgz; ./deps is used when
# it holds it), CZK_GPU_BUILD (build folder, default build/gpu), CZK_COMMIT
# (recorded commit where there is no git checkout), CZK_GPU_BENCH_ARGS
# (extra bench_gpu arguments, e.g. "--max-g1 24" for a quick run), CZK_WERROR
# (ON by default; OFF where a newer compiler warns in other layers),
# CZK_GPU_STEPS (steps after the build, default "tests bench engine"; the
# engine step runs `czk bench` on 2KiB PoRep with gpus.backend = "cuda" and
# writes gpu-engine.log and gpu-engine.svg into OUTDIR; the 32GiB steps
# knobs, lagrange, keys32g, prove32g, part32g, bench32g, daemon32g, winning32g, wpost32g, snap32g are
# described above their functions),
# CZK_GPU_PREBUILT (an archive of scripts/gpu-prebuild.sh: its programs instead of the build),
# CZK_GPU_ENGINE_COUNT (proofs of its main run, default 32), CZK_GPU_TESTS_OLD=0 (skip the
# second cuda.gpu run with the old NTT paths and the cuda.prove/engine run with
# CZK_CUDA_OVERLAP=0), CZK_GPU_TESTS (regex of the tests step). On the lent machine the
# copy's `git rev-parse` can be stale: pass CZK_COMMIT.
# On a machine without the project's packages (no network), unpack them under
# deps/sysroot: for f in libcmocka0 libcmocka-dev libb2-1 libb2-dev libyajl2
# libyajl-dev; apt-get download, dpkg -x into deps/sysroot; copy
# /usr/include/toml++ into deps/sysroot/usr/include. The script then points
# pkg-config, CMake and the loader there.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${1:-bench}
mkdir -p "$OUTDIR"
DEPS=${CZK_DEPS_DIR:-$HOME/.cache/czk}
[ -f deps/c-kzg-4.1.0.tgz ] && DEPS=$PWD/deps
BUILD=${CZK_GPU_BUILD:-build/gpu}
EXTRA=(-DCZK_WERROR="${CZK_WERROR:-ON}")
SYSROOT=$PWD/deps/sysroot/usr
if [ -d "$SYSROOT" ]; then
  PCDIR=$SYSROOT/lib/x86_64-linux-gnu/pkgconfig
  [ -d "$PCDIR" ] && sed -i "s|^prefix=.*|prefix=$SYSROOT|" "$PCDIR"/*.pc
  export PKG_CONFIG_PATH=$PCDIR${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export LD_LIBRARY_PATH=$SYSROOT/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  EXTRA+=(-DCMAKE_PREFIX_PATH="$SYSROOT")
fi
COMMIT=${CZK_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || cat COMMIT 2>/dev/null || echo unknown)}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

declare -a STEPS=()
step() { # name, command...
  local name=$1; shift
  local t0=$SECONDS rc=0
  echo "== $name"
  "$@" || rc=$?
  STEPS+=("$(printf '%-28s %6ds  %s' "$name" $((SECONDS - t0)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")")")
  printf '%s\n' "${STEPS[-1]}" >>"$OUTDIR/steps.txt" # kept if a later step is cut off
  return $rc
}
# CZK_GPU_PREBUILT=ARCHIVE (scripts/gpu-prebuild.sh): the programs built elsewhere, copied into
# $BUILD in place of the build when the archive's commit is $COMMIT and its czk runs here (ctest's
# files get this folder's paths). Otherwise it says why, leaves $BUILD alone (a warm machine's
# 32GiB work folder is in it) and the build runs as without it.
PREBUILT=0
unpack_prebuilt() {
  local a=$CZK_GPU_PREBUILT tmp=$BUILD/prebuilt.tmp src bld commit
  [ -f "$a" ] || { echo "prebuilt: $a not found"; return 1; }
  rm -rf "$tmp" && mkdir -p "$tmp"
  if ! tar -C "$tmp" -xJf "$a"; then
    echo "prebuilt: $a did not unpack"
  elif commit=$(sed -n 's/^commit //p' "$tmp/PREBUILT") && [[ -z $commit || $commit != "$COMMIT"* ]]; then
    echo "prebuilt: $a is of commit ${commit:-unknown}, not $COMMIT"
  elif ! "$tmp/czk" --version >/dev/null; then
    echo "prebuilt: its czk does not run here"
  else
    src=$(sed -n 's/^source //p' "$tmp/PREBUILT")
    bld=$(sed -n 's/^build //p' "$tmp/PREBUILT")
    find "$tmp" -name CTestTestfile.cmake -exec sed -i "s|$bld|$(cd "$BUILD" && pwd)|g; s|$src|$PWD|g" {} +
    cp -a "$tmp/." "$BUILD/" && rm -rf "$tmp"
    echo "prebuilt: $(sed -n 's/^targets //p' "$BUILD/PREBUILT") of ${commit:0:12} from $a"
    PREBUILT=1
    return 0
  fi
  rm -rf "$tmp"
  return 1
}
# The programs a step needs: built, or with CZK_GPU_PREBUILT checked to be in the archive.
make_targets() {
  if [ $PREBUILT = 1 ]; then
    local t
    for t in "$@"; do
      [ -x "$BUILD/$t" ] || { echo "prebuilt: $t is not in $CZK_GPU_PREBUILT (scripts/gpu-prebuild.sh names it)"; return 1; }
    done
    return 0
  fi
  cmake --build "$BUILD" -j "$(nproc)" --target "$@" >/dev/null
}
build() {
  if [ -n "${CZK_GPU_PREBUILT:-}" ]; then
    unpack_prebuilt && return 0
    echo "prebuilt: building instead"
  fi
  # shellcheck disable=SC2046 # the targets, one a word
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON -DCZK_CUDA_ARCHS=90-real \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCZK_DEPS_DIR="$DEPS" -DCZK_RPC=OFF -DCZK_HTTP=OFF "${EXTRA[@]}" >/dev/null &&
    cmake --build "$BUILD" -j "$(nproc)" --target $(grep -v '^#' scripts/gpu-targets)
}
# CZK_GPU_TESTS: the ctest regex of the tests step (default every cuda.* test; e.g.
# '^cuda\.(gpu|prove)$' for a short validation call).
tests() {
  ctest --test-dir "$BUILD" --output-on-failure -R "${CZK_GPU_TESTS:-^cuda\.}" | tee "$OUTDIR/tests.log"
  return "${PIPESTATUS[0]}"
}
# The NTT/H tests again with the old NTT paths (src/cuda/ntt.cu: split twist, H in natural order
# and the seven-transform form, both in test_h), and the proofs with the MSM stage inside the
# device lock (CZK_CUDA_OVERLAP=0; the default overlaps it with the next circuit).
tests_old() {
  CZK_CUDA_NTT_TWIST=split CZK_CUDA_H_ORDER=natural CZK_TEST_NTT_ONLY=1 \
    ctest --test-dir "$BUILD" --output-on-failure -R '^cuda\.gpu$' &&
    CZK_CUDA_OVERLAP=0 ctest --test-dir "$BUILD" --output-on-failure -R '^cuda\.(prove|engine)$'
}
# The engine on the GPU: `czk bench --in-process` with gpus.backend = "cuda" on
# 2KiB PoRep (TEST keys made here with `czk setup`, C1s with `czk gen-vanilla`),
# then a small sweep; log and timeline picture into OUTDIR.
engine() {
  make_targets czk || return 1
  local czk=$PWD/$BUILD/czk work=$PWD/$BUILD/engine out
  out=$(cd "$OUTDIR" && pwd)
  mkdir -p "$work" && cd "$work"
  "$czk" setup --sector-size 2KiB --out-dir keys >/dev/null
  local c1=()
  for r in 1 2 3 4; do
    "$czk" gen-vanilla --sector-size 2KiB --miner-id 1000 --sector-num 1 --random $r --out c1-$r.json
    c1+=(c1-$r.json)
  done
  printf '[gpus]\nbackend = "cuda"\n[srs]\nparam_cache = "%s"\n' "$work/keys" >c.toml
  "$czk" bench --in-process --config c.toml -c "${CZK_GPU_ENGINE_COUNT:-32}" -j 8 --c1 "${c1[@]}" \
    --warmup 2 --no-progress --svg "$out/gpu-engine.svg" | tee "$out/gpu-engine.log"
  "$czk" bench --in-process --config c.toml -c 16 -j 8 --c1 "${c1[@]}" --warmup 1 --no-progress \
    --sweep synthesis.partition_workers=4,8,14 gpus.gpu_workers_per_device=1,2 | tee -a "$out/gpu-engine.log"
  cd - >/dev/null
}
bench() {
  # shellcheck disable=SC2086
  "$BUILD/bench_gpu" --json "$OUTDIR/gpu-latest.json" --commit "$COMMIT" --ntt-variants \
    ${CZK_GPU_BENCH_ARGS:-} |
    tee "$BUILD/bench.log"
}
# knobs: bench_gpu (with CZK_GPU_BENCH_ARGS) once per value of one tunable, CZK_GPU_KNOB =
# "VAR=v1,v2,..." (e.g. CZK_CUDA_NTT_RADIX=2,4); each run's log in $BUILD/knob-VAR-v.log,
# and per value the MSM G1 rows, the --c-sweep results, the levels' profile lines and the
# Karatsuba rate ratios.
knobs() {
  local var=${CZK_GPU_KNOB%%=*} vals=${CZK_GPU_KNOB#*=} v log rc=0
  [ -n "$var" ] && [ -n "$vals" ] && [ "$var" != "$CZK_GPU_KNOB" ] || { echo "knobs: CZK_GPU_KNOB=VAR=v1,v2"; return 2; }
  for v in ${vals//,/ }; do
    log=$BUILD/knob-$var-$v.log
    # shellcheck disable=SC2086
    env "$var=$v" "$BUILD/bench_gpu" --commit "$COMMIT" ${CZK_GPU_BENCH_ARGS:-} >"$log" 2>&1 || rc=1
    echo "-- $var=$v"
    grep -E '^msm_g1 +2[0-9] |^c sweep .*: [0-9.]+ ms|levels: counts|^rate fp_mul_ka' "$log" || tail -5 "$log"
  done
  return $rc
}
# lagrange: the Lagrange form of 2KiB test keys made from the toxic waste (czk setup --lagrange)
# and derived from their points on the GPU (czk lagrange --backend cuda: two G1 NTTs of 2^22
# points, timed; the CPU's takes minutes here, CI checks it at 2^9): the same bytes.
lagrange() {
  local d=$BUILD/lagrange2k f t0
  rm -rf "$d" && mkdir -p "$d/gpu"
  "$BUILD/czk" setup --sector-size 2KiB --seed 3 --lagrange --out-dir "$d" | grep -E '^wrote|^time' || return 1
  f=$(ls "$d"/czk-lagrange-*.bin) || return 1
  t0=$SECONDS
  "$BUILD/czk" lagrange --sector-size 2KiB --param-cache "$d" --out-dir "$d/gpu" --backend cuda |
    grep -E '^lagrange|^wrote' || return 1
  echo "lagrange: GPU derivation $((SECONDS - t0)) s"
  cmp "$f" "$d/gpu/$(basename "$f")" || { echo "lagrange: the GPU's form differs"; return 1; }
  echo "lagrange: the GPU's and the toxic waste's forms are the same bytes"
}

# ---- 32GiB PoRep (issue "32GiB PoRep C2 end to end"): keys, a proof, the partition, the engine ----
# Work folder W32 (CZK_GPU_WORK, default $BUILD/w32g; needs ~56 GiB of disk: keys 44.1 GiB,
# shape 8.3 GiB, C1s): the shape cache, TEST keys made by `czk setup --backend cuda`, three
# sparse C1s. Each step makes what it needs and is missing, so the steps can run in separate
# device calls of at most 10 minutes while the machine stays warm:
#   keys32g   shape (recorded the first time) + GPU key generation, timed
#   prove32g  `czk prove` of one sparse C1, `czk verify` (exit 0), a tampered proof (exit 1)
#   part32g   bench_porep32g: the partition's phases, median of 3, with the real keys (verified)
#   bench32g  `czk bench --in-process` on the 32GiB C1s (CZK_GPU_BENCH32G_COUNT proofs, default
#             6, CZK_GPU_BENCH32G_J in flight, default 3, 1 warm-up; CZK_GPU_BENCH32G_TOML: extra
#             config lines; the keys' Lagrange form made at load, CZK_GPU_BENCH32G_LAGRANGE=0: none), timeline
#             picture; then `--sweep $CZK_GPU_SWEEP32G` when that is set
# Figures go to OUTDIR/gpu-32g.json and gpu-porep32g.json, merged into gpu-latest.json.
# CZK_GPU_SECTOR=64GiB runs the same steps on 64GiB (keys 47.6 GB, tree 8-8-2, registered
# proof 9; work folder $BUILD/w64g): a fresh machine's 64 GiB of disk holds one size at a time.
SECTOR=${CZK_GPU_SECTOR:-32GiB}
case $SECTOR in
  32GiB) RP32=8 TREE32=8-8-0 ;;
  64GiB) RP32=9 TREE32=8-8-2 ;;
  *) echo "CZK_GPU_SECTOR: 32GiB or 64GiB, not '$SECTOR'"; exit 2 ;;
esac
SFX32=${SECTOR%iB}
W32=${CZK_GPU_WORK:-$BUILD/w${SFX32,,}}
T32=0101010101010101010101010101010101010101010101010101010101010101
S32=0202020202020202020202020202020202020202020202020202020202020202
KEY32=czk-test-v28-stacked-proof-of-replication-$TREE32-$SECTOR
timev() { # /usr/bin/time -v where the machine has it
  if [ -x /usr/bin/time ]; then /usr/bin/time -v "$@"; else "$@"; fi
}
jset() { # key value: record a figure for gpu-latest.json (in $OUTDIR/${JSET_FILE:-gpu-32g.json})
  python3 - "$OUTDIR/${JSET_FILE:-gpu-32g.json}" "$1" "$2" <<'PY'
import json, sys, os
path, key, val = sys.argv[1:4]
d = json.load(open(path)) if os.path.exists(path) else {}
try:
    d[key] = json.loads(val)
except ValueError:
    d[key] = val
json.dump(d, open(path, "w"), indent=2, sort_keys=True)
PY
}
jmerge() { # gpu-32g.json and gpu-porep32g.json into gpu-latest.json
  python3 - "$OUTDIR" "$COMMIT" <<'PY'
import json, sys, os
out, commit = sys.argv[1:3]
latest = os.path.join(out, "gpu-latest.json")
d = json.load(open(latest)) if os.path.exists(latest) else {}
for name in ("gpu-32g.json", "gpu-porep32g.json", "gpu-wpost32g.json", "gpu-winning32g.json",
             "gpu-snap32g.json"):
    p = os.path.join(out, name)
    if os.path.exists(p):
        d.update(json.load(open(p)))
d["porep32g_commit"] = commit
json.dump(d, open(latest, "w"), indent=2, sort_keys=True)
PY
}
prep32g() {
  make_targets czk bench_porep32g || return 1
  mkdir -p "$W32/keys" "$W32/cache"
  export CZK_CACHE_DIR=$W32/cache
  local r
  for r in 1 2 3; do
    [ -s "$W32/c1-$r.json" ] ||
      "$BUILD/czk" gen-vanilla --sparse --sector-size $SECTOR --registered-proof $RP32 --miner-id 1000 \
        --sector-num 1 --ticket $T32 --seed $S32 --random $r --out "$W32/c1-$r.json" >/dev/null
  done
}
keys32g() {
  prep32g || return 1
  df -h "$W32" | tail -1
  if [ -s "$W32/keys/$KEY32.params" ] && [ -s "$W32/keys/$KEY32.vk" ]; then
    echo "keys32g: keys present"
    return 0
  fi
  local t0=$SECONDS
  # no --lagrange: keys (44.1 GiB), shape (8.3) and form (23.7) do not fit the lent machine's
  # 64 GiB of disk; part32g (--lagrange 1) and bench32g (--lagrange-seed 1) make it in memory
  timev "$BUILD/czk" setup --sector-size $SECTOR --backend cuda --seed 1 \
    --out-dir "$W32/keys" >"$OUTDIR/keys32g.log" 2>&1 || { tail -30 "$OUTDIR/keys32g.log"; return 1; }
  grep -v '^\s' "$OUTDIR/keys32g.log"
  grep -E 'Maximum resident|Elapsed' "$OUTDIR/keys32g.log"
  jset porep32g_keygen_s $((SECONDS - t0))
  ls -l "$W32/keys"
}
prove32g() {
  prep32g || return 1
  [ -s "$W32/keys/$KEY32.params" ] || { echo "prove32g: no keys (run keys32g)"; return 1; }
  local t0=$SECONDS rc
  timev "$BUILD/czk" prove --c1 "$W32/c1-1.json" --param-cache "$W32/keys" \
    --miner-id 1000 --sector-num 1 --out "$W32/p1.bin" >"$OUTDIR/prove32g.log" 2>&1 ||
    { tail -30 "$OUTDIR/prove32g.log"; return 1; }
  grep -v '^\s[A-Z]' "$OUTDIR/prove32g.log"
  grep -E 'Maximum resident|Elapsed' "$OUTDIR/prove32g.log"
  jset porep32g_prove_s $((SECONDS - t0))
  local ready
  ready=$(sed -n 's/^ready in \([0-9.]*\) s.*/\1/p' "$OUTDIR/prove32g.log" | head -1)
  [ -n "$ready" ] && jset porep32g_ready_s "$ready"
  "$BUILD/czk" verify --c1 "$W32/c1-1.json" --proof "$W32/p1.bin" --param-cache "$W32/keys" \
    --miner-id 1000 --sector-num 1 || { echo "prove32g: czk verify refused the proof"; return 1; }
  cp "$W32/p1.bin" "$W32/p1-bad.bin"
  printf '\x55' | dd of="$W32/p1-bad.bin" bs=1 seek=1000 conv=notrunc status=none
  rc=0
  "$BUILD/czk" verify --c1 "$W32/c1-1.json" --proof "$W32/p1-bad.bin" --param-cache "$W32/keys" \
    --miner-id 1000 --sector-num 1 || rc=$?
  [ $rc -eq 1 ] || { echo "prove32g: a tampered proof gave exit $rc, not 1"; return 1; }
  echo "prove32g: tampered proof refused (exit 1)"
  jset porep32g_proofs_verified 1
}
# CZK_GPU_PART32G_ENV: before the recorded run, one run per setting ("VAR=v VAR2=w;VAR=x"), its
# table printed (the json is the default run's). The recorded run uploads the packed witness;
# CZK_GPU_PART32G_ENV="CZK_CUDA_PACKED=0" adds a run with the full witness upload before it.
# CZK_GPU_PART32G_ARGS: extra arguments of the recorded run only, e.g. "--lagrange 1" (the
# Lagrange form of H and L from the keys' seed; a CZK_GPU_PART32G_ENV run is then the baseline).
# A CZK_GPU_PART32G_ENV entry may carry arguments of its own after '|', e.g.
# "CZK_CUDA_PACKED=1;CZK_CUDA_MSM_ONES=affine|--lagrange 1" (a setting alone: "CZK_CUDA_PACKED=1").
# CZK_GPU_PART32G_ALSO: settings run by the recorded run's process after it (bench_porep32g
# --also, cumulative), ';' between settings, e.g. "CZK_CUDA_MSM_H_K=2;CZK_CUDA_H_FUSE=0 X=1".
part32g() {
  prep32g || return 1
  local keys=() e rc=0 also=()
  [ -s "$W32/keys/$KEY32.params" ] && keys=(--params "$W32/keys/$KEY32.params")
  if [ -n "${CZK_GPU_PART32G_ALSO:-}" ]; then
    IFS=';' read -ra envs <<<"$CZK_GPU_PART32G_ALSO"
    for e in "${envs[@]}"; do also+=(--also "$e"); done
  fi
  if [ -n "${CZK_GPU_PART32G_ENV:-}" ]; then
    IFS=';' read -ra envs <<<"$CZK_GPU_PART32G_ENV"
    for e in "${envs[@]}"; do
      echo "-- part32g with $e"
      local ev=${e%%|*} ea=""
      [[ $e == *"|"* ]] && ea=${e#*|}
      # shellcheck disable=SC2086
      env $ev "$BUILD/bench_porep32g" --c1 "$W32/c1-1.json" "${keys[@]}" --reps 3 $ea \
        >"$OUTDIR/part32g-knob.log" 2>&1 || rc=1
      sed -n '/^| phase/,/^proofs/p' "$OUTDIR/part32g-knob.log"
    done
  fi
  # shellcheck disable=SC2086
  "$BUILD/bench_porep32g" --c1 "$W32/c1-1.json" "${keys[@]}" --reps 3 ${CZK_GPU_PART32G_ARGS:-} \
    "${also[@]}" --json "$OUTDIR/gpu-porep32g.json" --commit "$COMMIT" | tee "$OUTDIR/part32g.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  jmerge
  return "$rc"
}
bench32g() {
  prep32g || return 1
  [ -s "$W32/keys/$KEY32.params" ] || { echo "bench32g: no keys (run keys32g)"; return 1; }
  printf '[gpus]\nbackend = "cuda"\n[srs]\nparam_cache = "%s"\n%s\n' "$W32/keys" \
    "${CZK_GPU_BENCH32G_TOML:-}" >"$W32/c32.toml"
  cat "$W32/c32.toml"
  # CZK_GPU_BENCH32G_LAGRANGE=0: without the Lagrange form (default 1: made in memory at load
  # from the keys' seed, --lagrange-seed 1)
  local lseed=()
  [ "${CZK_GPU_BENCH32G_LAGRANGE:-1}" = 1 ] && lseed=(--lagrange-seed 1)
  "$BUILD/czk" bench --in-process --config "$W32/c32.toml" -c "${CZK_GPU_BENCH32G_COUNT:-6}" -j "${CZK_GPU_BENCH32G_J:-3}" "${lseed[@]}" \
    --c1 "$W32"/c1-1.json "$W32"/c1-2.json "$W32"/c1-3.json --warmup 1 --no-progress \
    --svg "$OUTDIR/gpu-bench32g.svg" | tee "$OUTDIR/bench32g.log"
  local rc=${PIPESTATUS[0]} v
  v=$(awk '$1=="s/proof"{print $2}' "$OUTDIR/bench32g.log" | head -1) && jset porep32g_s_per_proof "${v:-null}"
  v=$(awk '$1=="steady" && $2=="s/proof"{print $3}' "$OUTDIR/bench32g.log" | head -1) &&
    jset porep32g_s_per_proof_steady "${v:-null}"
  v=$(awk '$1=="gpu/partition"{print $3}' "$OUTDIR/bench32g.log" | head -1) && jset porep32g_gpu_ms_per_partition "${v:-null}"
  v=$(awk '$1=="gpu" && $2=="busy"{print $3}' "$OUTDIR/bench32g.log" | head -1) && jset porep32g_busy_pct "${v:-null}"
  v=$(awk '$1=="peak" && $2=="RSS"{print $3}' "$OUTDIR/bench32g.log" | head -1) && jset porep32g_peak_rss_gib "${v:-null}"
  if [ "$rc" -eq 0 ] && [ -n "${CZK_GPU_SWEEP32G:-}" ]; then
    # shellcheck disable=SC2086
    "$BUILD/czk" bench --in-process --config "$W32/c32.toml" -c 3 -j 2 --c1 "$W32"/c1-1.json \
      "$W32"/c1-2.json "$W32"/c1-3.json --warmup 1 --no-progress --sweep $CZK_GPU_SWEEP32G |
      tee -a "$OUTDIR/bench32g.log"
  fi
  jmerge
  return "$rc"
}

# daemon32g: `czk daemon` with the 32GiB TEST keys behind a unix socket, `czk client
# prove` of one sparse C1 through gRPC (the proof checked with `czk verify`), then `czk bench
# --addr` against the daemon (CZK_GPU_DAEMON32G_COUNT proofs, default 4, 2 in flight). The GPU
# build has no gRPC (no grpc packages on the device machine), so this needs a czk built with
# CZK_RPC=ON elsewhere: CZK_GPU_RPC_CZK (default deps/rpc/czk; its shared libraries in
# deps/rpc/lib, added to the loader path).
daemon32g() {
  prep32g || return 1
  [ -s "$W32/keys/$KEY32.params" ] || { echo "daemon32g: no keys (run keys32g)"; return 1; }
  local rczk=${CZK_GPU_RPC_CZK:-$PWD/deps/rpc/czk} sock pid rc=0 t0
  sock=$(cd "$W32" && pwd)/czk.sock # absolute: unix:///path
  [ -x "$rczk" ] || { echo "daemon32g: no gRPC-enabled czk at $rczk"; return 1; }
  local rlib=$(dirname "$rczk")/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  rz() { LD_LIBRARY_PATH=$rlib "$rczk" "$@"; } # its libraries for it alone
  printf '[daemon]\nlisten = "unix://%s"\n[gpus]\nbackend = "cuda"\n[srs]\nparam_cache = "%s"\n%s\n' \
    "$sock" "$W32/keys" "${CZK_GPU_BENCH32G_TOML:-}" >"$W32/d32.toml"
  cat "$W32/d32.toml"
  rm -f "$sock"
  t0=$SECONDS
  LD_LIBRARY_PATH=$rlib "$rczk" daemon --config "$W32/d32.toml" >"$OUTDIR/daemon32g.log" 2>&1 &
  pid=$!
  until rz client --addr "unix://$sock" status >/dev/null 2>&1; do # gRPC up
    kill -0 $pid 2>/dev/null || { echo "daemon32g: the daemon exited"; tail -20 "$OUTDIR/daemon32g.log"; return 1; }
    [ $((SECONDS - t0)) -lt 60 ] || { echo "daemon32g: no answer after 60 s"; kill $pid; return 1; }
    sleep 1
  done
  # PreloadSRS answers once the 47 GB file is read and resident (the time to ready through gRPC)
  rz client --addr "unix://$sock" preload porep-32g || { echo "daemon32g: preload failed"; kill $pid; return 1; }
  echo "daemon32g: ready after $((SECONDS - t0)) s"
  rz client --addr "unix://$sock" status | head -40
  t0=$SECONDS
  rz client --addr "unix://$sock" prove "$W32/c1-2.json" --sector-num 1 --miner-id 1000 \
    --request-id d32-1 --out "$W32/pd.bin" || rc=$?
  echo "daemon32g: client prove exit $rc after $((SECONDS - t0)) s"
  [ $rc -eq 0 ] && { "$BUILD/czk" verify --c1 "$W32/c1-2.json" --proof "$W32/pd.bin" --param-cache "$W32/keys" \
    --miner-id 1000 --sector-num 1 || rc=$?; }
  [ $rc -eq 0 ] && { rz bench --addr "unix://$sock" -c "${CZK_GPU_DAEMON32G_COUNT:-4}" -j 2 \
    --c1 "$W32"/c1-1.json "$W32"/c1-2.json "$W32"/c1-3.json --sector-num 1 --miner-id 1000 --no-progress || rc=$?; }
  rz client --addr "unix://$sock" metrics | grep -E '^cuzk_(proofs|jobs|partitions)' | head -20 || true
  kill -TERM $pid
  wait $pid || true
  grep -E 'ERROR|WARN|error' "$OUTDIR/daemon32g.log" | head -20 || true
  tail -5 "$OUTDIR/daemon32g.log"
  [ $rc -eq 0 ] && jset porep32g_daemon_proofs_verified 1
  return $rc
}

# ---- PoSt at the size of CZK_GPU_SECTOR (issue "WinningPoSt and WindowPoSt") ----
#   wpost32g    bench_porep32g --kind window-post --setup: one WindowPoSt partition (4 sparse
#               sectors sent, the partition's 2349 circuit sectors) with TEST keys made in memory
#               on the GPU (57 GB: they never touch the disk), phases median of 3, every proof
#               verified; then the same for WinningPoSt
#   winning32g  WinningPoSt TEST keys on disk (`czk setup --kind winning-post`), `czk gen-vanilla
#               --post winning --sparse`, `czk prove --kind winning-post` + `czk verify`, then
#               bench_preempt: WinningPoSt submitted while PoRep partitions hold the GPU (needs the
#               PoRep keys of keys32g)
RND32=5a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c33
wpost32g() {
  make_targets bench_porep32g || return 1
  local k rc=0
  for k in window-post winning-post; do
    "$BUILD/bench_porep32g" --sector-size $SECTOR --kind $k --setup --sectors 4 --reps 3 \
      --json "$OUTDIR/gpu-${k%%-post}32g.json" --commit "$COMMIT" | tee "$OUTDIR/$k-32g.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  done
  [ -f "$OUTDIR/gpu-window32g.json" ] && mv "$OUTDIR/gpu-window32g.json" "$OUTDIR/gpu-wpost32g.json"
  jmerge
  return $rc
}
winning32g() {
  prep32g || return 1
  make_targets bench_preempt || return 1
  local wk=czk-test-v28-proof-of-spacetime-fallback-winning-$TREE32-$SECTOR rc=0
  [ -s "$W32/keys/$wk.params" ] ||
    timev "$BUILD/czk" setup --kind winning-post --sector-size $SECTOR --backend cuda --seed 1 \
      --out-dir "$W32/keys" >"$OUTDIR/winning-keys.log" 2>&1 || { tail -20 "$OUTDIR/winning-keys.log"; return 1; }
  grep -E '^setup|Elapsed|Maximum resident' "$OUTDIR/winning-keys.log" || true
  "$BUILD/czk" gen-vanilla --post winning --sector-size $SECTOR --sparse --sector-num 7 \
    --randomness $RND32 --out "$W32/win" >/dev/null || return 1
  timev "$BUILD/czk" prove --kind winning-post --request "$W32/win/request.json" --param-cache "$W32/keys" \
    --out "$W32/win/proof.bin" >"$OUTDIR/winning-prove.log" 2>&1 || { tail -20 "$OUTDIR/winning-prove.log"; return 1; }
  grep -vE '^\s[A-Z]' "$OUTDIR/winning-prove.log" | head -40
  "$BUILD/czk" verify --kind winning-post --request "$W32/win/request.json" --proof "$W32/win/proof.bin" \
    --param-cache "$W32/keys" || { echo "winning32g: czk verify refused the proof"; return 1; }
  if [ -s "$W32/keys/$KEY32.params" ]; then
    "$BUILD/bench_preempt" --c1 "$W32/c1-1.json" --param-cache "$W32/keys" --sector-size $SECTOR \
      --backend cuda --porep 2 --inject 3 | tee "$OUTDIR/preempt32g.log"
    rc=${PIPESTATUS[0]}
  else
    echo "winning32g: no PoRep keys (keys32g): preemption not measured"
  fi
  return $rc
}

# ---- SnapDeals at the size of CZK_GPU_SECTOR (issue 18) ----
#   snap32g  TEST keys on disk (`czk setup --kind snap --backend cuda`: the partition circuit,
#            81 M constraints at 32GiB, recorded on one thread the first time, ~35 s, 5.1 GiB of
#            shape cache; keys 34.5 GB), two sparse updates (`czk gen-vanilla --snap --sparse`,
#            16 partitions each), `czk prove --kind snap` of one (16 partitions, each verified) +
#            `czk verify --kind snap` (exit 0; one byte changed: exit 1), then `czk bench
#            --in-process --kind snap` on both (CZK_GPU_SNAP32G_COUNT proofs, default 3, 2 in
#            flight, 1 warm-up): per-partition device time and s/proof into OUTDIR/gpu-snap32g.json
#            (merged into gpu-latest.json), the timeline into gpu-snap32g.svg. Work folder WS
#            (CZK_GPU_SNAP_WORK, default $BUILD/snap-<size>; ~41 GB of disk: keys + shape): the
#            step refuses to start without the space (the 32GiB PoRep keys and shape of keys32g
#            take 56 GB of a fresh machine's 64 GiB: run snap32g on a machine without them, or
#            remove $W32 first). Estimated ~5 min in all on the H200 (setup ~70 s, prove ~60 s,
#            bench ~2 min), in one device call.
snap32g() {
  make_targets czk || return 1
  local WS=${CZK_GPU_SNAP_WORK:-$BUILD/snap-${SFX32,,}} JSET_FILE=gpu-snap32g.json rc t0 v need
  local sk=czk-test-v28-empty-sector-update-$TREE32-$SECTOR
  mkdir -p "$WS/keys" "$WS/cache"
  export CZK_CACHE_DIR=$WS/cache
  need=$((41 * 1000 * 1000 * 1000))
  [ -s "$WS/keys/$sk.params" ] && need=$((6 * 1000 * 1000 * 1000)) # the shape, if not cached
  v=$(df --output=avail -B1 "$WS" | tail -1)
  if [ "$v" -lt "$need" ]; then
    echo "snap32g: $((v / 1000000000)) GB free in $WS, needs $((need / 1000000000)) GB (keys 34.5 GB + shape 5.1 GiB)"
    df -h "$WS" | tail -1
    return 1
  fi
  if [ ! -s "$WS/keys/$sk.params" ] || [ ! -s "$WS/keys/$sk.vk" ]; then
    t0=$SECONDS
    timev "$BUILD/czk" setup --kind snap --sector-size $SECTOR --backend cuda --seed 1 \
      --out-dir "$WS/keys" >"$OUTDIR/snap32g-keys.log" 2>&1 || { tail -30 "$OUTDIR/snap32g-keys.log"; return 1; }
    grep -v '^\s[A-Z]' "$OUTDIR/snap32g-keys.log" | grep -v 'making keys'
    jset snap32g_keygen_s $((SECONDS - t0))
    v=$(sed -n 's/^  shape *\([0-9.]*\) s.*/\1/p' "$OUTDIR/snap32g-keys.log" | head -1)
    jset snap32g_shape_s "${v:-null}"
  fi
  local r
  for r in 1 2; do
    [ -s "$WS/u$r/update.json" ] ||
      "$BUILD/czk" gen-vanilla --snap --sparse --sector-size $SECTOR --miner-id 1000 --sector-num $r \
        --random $r --out-dir "$WS/u$r" || return 1
  done
  t0=$SECONDS
  timev "$BUILD/czk" prove --kind snap --request "$WS/u1/update.json" --param-cache "$WS/keys" \
    --out "$WS/u1/proof.bin" >"$OUTDIR/snap32g-prove.log" 2>&1 || { tail -30 "$OUTDIR/snap32g-prove.log"; return 1; }
  grep -vE '^\s[A-Z]' "$OUTDIR/snap32g-prove.log" | head -40
  grep -E 'Maximum resident|Elapsed' "$OUTDIR/snap32g-prove.log"
  jset snap32g_prove_s $((SECONDS - t0))
  v=$(sed -n 's/^keys: .* ready in \([0-9.]*\) s.*/\1/p' "$OUTDIR/snap32g-prove.log" | head -1)
  jset snap32g_ready_s "${v:-null}"
  v=$(sed -n 's/^per partition: synthesis [0-9.]* s, device \([0-9.]*\) s.*/\1/p' "$OUTDIR/snap32g-prove.log" | head -1)
  [ -n "$v" ] || v=$(sed -n 's/^proved: synthesis [0-9.]* s, device \([0-9.]*\) s.*/\1/p' "$OUTDIR/snap32g-prove.log" | head -1)
  jset snap32g_prove_device_s_per_partition "${v:-null}"
  "$BUILD/czk" verify --kind snap --request "$WS/u1/update.json" --proof "$WS/u1/proof.bin" \
    --param-cache "$WS/keys" || { echo "snap32g: czk verify refused the proof"; return 1; }
  cp "$WS/u1/proof.bin" "$WS/u1/bad.bin"
  printf '\x55' | dd of="$WS/u1/bad.bin" bs=1 seek=1000 conv=notrunc status=none
  rc=0
  "$BUILD/czk" verify --kind snap --request "$WS/u1/update.json" --proof "$WS/u1/bad.bin" \
    --param-cache "$WS/keys" || rc=$?
  [ $rc -eq 1 ] || { echo "snap32g: a tampered proof gave exit $rc, not 1"; return 1; }
  echo "snap32g: tampered proof refused (exit 1)"
  jset snap32g_proofs_verified 1
  printf '[gpus]\nbackend = "cuda"\n[srs]\nparam_cache = "%s"\n%s\n' "$WS/keys" \
    "${CZK_GPU_BENCH32G_TOML:-}" >"$WS/snap.toml"
  "$BUILD/czk" bench --in-process --config "$WS/snap.toml" --kind snap \
    --request "$WS/u1/update.json" "$WS/u2/update.json" -c "${CZK_GPU_SNAP32G_COUNT:-3}" -j 2 \
    --warmup 1 --no-progress --svg "$OUTDIR/gpu-snap32g.svg" | tee "$OUTDIR/snap32g-bench.log"
  rc=${PIPESTATUS[0]}
  v=$(awk '$1=="s/proof"{print $2}' "$OUTDIR/snap32g-bench.log" | head -1) && jset snap32g_s_per_proof "${v:-null}"
  v=$(awk '$1=="gpu/partition"{print $3}' "$OUTDIR/snap32g-bench.log" | head -1) && jset snap32g_gpu_ms_per_partition "${v:-null}"
  v=$(awk '$1=="synthesis/partition"{print $3}' "$OUTDIR/snap32g-bench.log" | head -1) && jset snap32g_synth_ms_per_partition "${v:-null}"
  v=$(awk '$1=="gpu" && $2=="busy"{print $3}' "$OUTDIR/snap32g-bench.log" | head -1) && jset snap32g_busy_pct "${v:-null}"
  v=$(awk '$1=="peak" && $2=="RSS"{print $3}' "$OUTDIR/snap32g-bench.log" | head -1) && jset snap32g_peak_rss_gib "${v:-null}"
  jset snap32g_commit "\"$COMMIT\""
  jmerge
  return "$rc"
}

# CZK_GPU_STEPS: which steps after the build (default "tests bench engine").
STEPS_WANTED=" ${CZK_GPU_STEPS:-tests bench engine} "
want() { [[ $STEPS_WANTED == *" $1 "* ]]; }
status=0
step "build (sm_90)" build || exit 1
if want tests; then
  step "tests (cuda.*)" tests || status=1
  [ "${CZK_GPU_TESTS_OLD:-1}" = 0 ] || step "tests (old NTT; overlap off)" tests_old || status=1
fi
want bench && { step "benchmark" bench || status=1; }
want knobs && { step "benchmark per ${CZK_GPU_KNOB%%=*}" knobs || status=1; }
want engine && { step "engine: czk bench, 2KiB, cuda" engine || status=1; }
want lagrange && { step "lagrange form: derived on the GPU (2KiB)" lagrange || status=1; }
want keys32g && { step "$SECTOR: keys (czk setup, GPU)" keys32g || status=1; }
want prove32g && { step "$SECTOR: czk prove + verify" prove32g || status=1; }
want bench32g && { step "$SECTOR: czk bench" bench32g || status=1; }
want daemon32g && { step "$SECTOR: daemon over gRPC" daemon32g || status=1; }
want part32g && { step "$SECTOR: partition phases" part32g || status=1; }
want winning32g && { step "$SECTOR: WinningPoSt, preemption" winning32g || status=1; }
want wpost32g && { step "$SECTOR: PoSt partitions (keys in memory)" wpost32g || status=1; }
want snap32g && { step "$SECTOR: SnapDeals (setup, prove, verify, bench)" snap32g || status=1; }

echo
[ -f "$OUTDIR/gpu-engine.log" ] && want engine && grep -E '^  (s/proof|gpu busy|gpu/partition|synthesis/partition|idle gaps) ' "$OUTDIR/gpu-engine.log" | head -5
want bench && [ -f "$BUILD/bench.log" ] && sed -n '/^ntt variants/,/^$/p' "$BUILD/bench.log"
want bench && [ -f "$BUILD/bench.log" ] && sed -n '/^kernel /,$p' "$BUILD/bench.log"
echo
echo "step                           time  result"
printf '%s\n' "${STEPS[@]}"
exit $status
