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
# writes gpu-engine.log and gpu-engine.svg into OUTDIR), CZK_GPU_ENGINE_COUNT
# (proofs of its main run, default 32).
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
  return $rc
}
build() {
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON -DCZK_CUDA_ARCHS=90-real \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCZK_DEPS_DIR="$DEPS" -DCZK_RPC=OFF -DCZK_HTTP=OFF "${EXTRA[@]}" >/dev/null &&
    cmake --build "$BUILD" -j "$(nproc)" --target test_cuda_host test_cuda_gpu \
      test_cuda_prove test_cuda_engine test_cuda_porep bench_gpu
}
tests() { ctest --test-dir "$BUILD" --output-on-failure -R '^cuda\.'; }
# The NTT/H tests again with the old NTT paths (src/cuda/ntt.cu: split twist, H in natural order).
tests_old() {
  CZK_CUDA_NTT_TWIST=split CZK_CUDA_H_ORDER=natural CZK_TEST_NTT_ONLY=1 \
    ctest --test-dir "$BUILD" --output-on-failure -R '^cuda\.gpu$'
}
# The engine on the GPU: `czk bench --in-process` with gpus.backend = "cuda" on
# 2KiB PoRep (TEST keys made here with `czk setup`, C1s with `czk gen-vanilla`),
# then a small sweep; log and timeline picture into OUTDIR.
engine() {
  cmake --build "$BUILD" -j "$(nproc)" --target czk >/dev/null
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

# CZK_GPU_STEPS: which steps after the build (default "tests bench engine").
STEPS_WANTED=" ${CZK_GPU_STEPS:-tests bench engine} "
want() { [[ $STEPS_WANTED == *" $1 "* ]]; }
status=0
step "build (sm_90)" build || exit 1
if want tests; then
  step "tests (cuda.*)" tests || status=1
  step "tests (cuda.gpu, old NTT)" tests_old || status=1
fi
want bench && { step "benchmark" bench || status=1; }
want engine && { step "engine: czk bench, 2KiB, cuda" engine || status=1; }

echo
[ -f "$OUTDIR/gpu-engine.log" ] && want engine && grep -E '^  (s/proof|gpu busy|gpu/partition|synthesis/partition|idle gaps) ' "$OUTDIR/gpu-engine.log" | head -5
want bench && [ -f "$BUILD/bench.log" ] && sed -n '/^ntt variants/,/^$/p' "$BUILD/bench.log"
want bench && [ -f "$BUILD/bench.log" ] && sed -n '/^kernel /,$p' "$BUILD/bench.log"
echo
echo "step                           time  result"
printf '%s\n' "${STEPS[@]}"
exit $status
