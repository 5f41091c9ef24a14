#!/usr/bin/env bash
# Installs what czk needs on Debian 12, fetches the pinned blst sources, and
# builds the Release configuration into build/release.
#   CZK_DEPS_DIR   where pinned dependency tarballs are kept (default ~/.cache/czk)
#   CZK_BUILD_DIR  build folder (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake ninja-build pkg-config
          libcmocka-dev clang libclang-rt-14-dev libjansson-dev libssl-dev libb2-dev
          libyajl-dev libtomlplusplus-dev
          # gRPC service (issue 9): gRPC core C API, protobuf-c, the HTTP status endpoint
          libgrpc-dev libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libmicrohttpd-dev
          # gRPC client tests czk did not write: Python grpcio and Go on grpc-go (Curio's library)
          python3-grpcio python3-grpc-tools golang-go golang-google-grpc-dev
          golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc
          # bench charts (SVG to PNG, checked by a python3 script)
          librsvg2-bin python3)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm fetches the pinned blst tarball; Debian's package only where no npm is on PATH
# (a Node.js from elsewhere brings its own npm and conflicts with Debian's).
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# blst v0.3.12: the c-kzg@4.1.0 npm tarball carries its sources byte for byte
# under deps/blst. Pinned by npm's integrity value (sha512).
DEPS="${CZK_DEPS_DIR:-$HOME/.cache/czk}"
TARBALL="$DEPS/c-kzg-4.1.0.tgz"
INTEGRITY="sha512-eliOBB2GKoT5Nk4LwN418O8kWfXCwepHj3kd6z0zKrzIdJbry0Y8IDPYzE5Dxw/fs386PGO6zQRqy8LSVtR5tQ=="
check_tarball() {
  local want got
  want=$(printf '%s' "${INTEGRITY#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
  got=$(sha512sum "$1" | cut -d' ' -f1)
  [ "$got" = "$want" ]
}
mkdir -p "$DEPS"
if [ ! -f "$TARBALL" ] || ! check_tarball "$TARBALL"; then
  echo "setup: fetching blst v0.3.12 sources (npm pack c-kzg@4.1.0)"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent c-kzg@4.1.0 >/dev/null)
  if ! check_tarball "$tmp/c-kzg-4.1.0.tgz"; then
    echo "setup: c-kzg-4.1.0.tgz does not match its pinned integrity value; refusing it" >&2
    rm -rf "$tmp"
    exit 2
  fi
  mv "$tmp/c-kzg-4.1.0.tgz" "$TARBALL"
  rm -rf "$tmp"
fi

BUILD="${CZK_BUILD_DIR:-build/release}"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCZK_DEPS_DIR="$DEPS" ${CZK_CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
echo "setup: built $BUILD/czk"
