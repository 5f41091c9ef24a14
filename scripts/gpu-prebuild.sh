#!/usr/bin/env bash
# GPU prebuild: builds scripts/gpu-check.sh's programs for sm_90 on this machine (nvcc, no GPU
# needed) and packs them for a lent GPU machine, where a fresh build costs 100-160 s of the
# session's device time (bench/GPU.md). gpu-check.sh with CZK_GPU_PREBUILT=ARCHIVE unpacks them
# into its build folder instead of building, when the archive was made from the commit it is
# told (CZK_COMMIT) and its czk runs there; otherwise it says why and builds as before.
#
#   scripts/gpu-prebuild.sh [ARCHIVE] [TARGET...]
# ARCHIVE defaults to deps/gpu-prebuilt.tar.xz (deps/ travels with a device call's carry);
# TARGETs default to every program gpu-check.sh builds (scripts/gpu-targets: ≈ 25 MB packed, ≈ 10 min
# here from nothing on 2 cores). The build folder is build/gpu-pre
# (CZK_GPU_PREBUILD_DIR), configured as gpu-check.sh configures its own. The tree must be clean
# (no changes to tracked files): the archive records the commit it was built from.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=${1:-deps/gpu-prebuilt.tar.xz}
[ $# -gt 0 ] && shift
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < <(grep -v '^#' scripts/gpu-targets)
BUILD=${CZK_GPU_PREBUILD_DIR:-build/gpu-pre}
DEPS=${CZK_DEPS_DIR:-$HOME/.cache/czk}
[ -f deps/c-kzg-4.1.0.tgz ] && DEPS=$PWD/deps
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "gpu-prebuild: tracked files have changes; commit them first (the archive names a commit)" >&2
  exit 2
fi
COMMIT=$(git rev-parse HEAD)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON -DCZK_CUDA_ARCHS=90-real \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DCZK_DEPS_DIR="$DEPS" -DCZK_RPC=OFF -DCZK_HTTP=OFF \
  -DCZK_WERROR="${CZK_WERROR:-ON}" >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}"

# The archive: the programs, ctest's files (their paths name this source and build folder;
# gpu-check.sh rewrites them) and PREBUILT (commit, both folders, targets).
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
for t in "${TARGETS[@]}"; do
  [ -x "$BUILD/$t" ] || { echo "gpu-prebuild: $BUILD/$t was not built" >&2; exit 1; }
  cp "$BUILD/$t" "$STAGE/$t"
done
(cd "$BUILD" && find . -name CTestTestfile.cmake -print0 | tar --null -T - -cf -) | tar -C "$STAGE" -xf -
printf 'commit %s\nsource %s\nbuild %s\ntargets %s\n' "$COMMIT" "$PWD" "$(cd "$BUILD" && pwd)" \
  "${TARGETS[*]}" >"$STAGE/PREBUILT"
mkdir -p "$(dirname "$ARCHIVE")"
tar -C "$STAGE" -cJf "$ARCHIVE" .
echo "gpu-prebuild: $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1), commit ${COMMIT:0:12}: ${TARGETS[*]})"
