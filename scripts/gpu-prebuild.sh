#!/usr/bin/env bash
# GPU prebuild: builds scripts/gpu-check.sh's programs for sm_90 on this machine (nvcc, no GPU
# needed) and packs them for a lent GPU machine, where a fresh build costs 100-160 s of the
# session's device time (bench/GPU.md). gpu-check.sh with CZK_GPU_PREBUILT=ARCHIVE unpacks them
# into its build folder instead of building, when the archive was made from the commit it is
# told (CZK_COMMIT) and its czk runs there; otherwise it says why and builds as before.
#
#   scripts/gpu-prebuild.sh [ARCHIVE]
# ARCHIVE defaults to deps/gpu-prebuilt.tar.xz (deps/ travels with a device call's carry). The
# build is gpu-check.sh's own (its build step alone, in build/gpu-pre or CZK_GPU_PREBUILD_DIR):
# every program of scripts/gpu-targets, ≈ 25 MB packed, ≈ 10 min here from nothing on 2 cores.
# The tree must be clean (no changes to tracked files): the archive records the commit it was
# built from.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=${1:-deps/gpu-prebuilt.tar.xz}
BUILD=${CZK_GPU_PREBUILD_DIR:-build/gpu-pre}
mapfile -t TARGETS < <(grep -v '^#' scripts/gpu-targets)

if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "gpu-prebuild: tracked files have changes; commit them first (the archive names a commit)" >&2
  exit 2
fi
COMMIT=$(git rev-parse HEAD)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
if ! CZK_GPU_BUILD=$BUILD CZK_GPU_STEPS=none CZK_GPU_PREBUILT='' scripts/gpu-check.sh "$STAGE/check" \
  >"$STAGE/build.log" 2>&1; then
  tail -30 "$STAGE/build.log" >&2
  echo "gpu-prebuild: the build failed (scripts/gpu-check.sh's build step in $BUILD)" >&2
  exit 1
fi
rm -rf "$STAGE/check" "$STAGE/build.log"

# The archive: the programs, ctest's files (their paths name this source and build folder;
# gpu-check.sh rewrites them) and PREBUILT (commit, both folders, targets).
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
