#!/usr/bin/env bash
# The Go client test (main.go) against a running `czk daemon`:
#   1. Go stubs from proto/cuzk/v1/proving.proto (protoc-gen-go, protoc-gen-go-grpc)
#      into a GOPATH under WORK; the client built with Debian's grpc-go 1.33
#      (golang-google-grpc-dev, golang-github-golang-protobuf-1-5-dev) in GOPATH
#      mode (GO111MODULE=off, GOPATH=WORK/gopath:/usr/share/gocode); the build
#      cache is kept in WORK/go-cache, so later runs only link;
#   2. `czk daemon` on the CPU backend on a unix socket (czk's test kind; its
#      keys are made by the daemon from a fixed seed);
#   3. the client's checks (main.go), then SIGTERM: the daemon must exit 0.
# Usage: run.sh CZK_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
CZK=$1 SRC=$2 WORK=$3
mkdir -p "$WORK"
GOPATH_OWN="$WORK/gopath"
rm -rf "$GOPATH_OWN/src/czktest"
mkdir -p "$GOPATH_OWN/src/czktest/go_client"
M="Mcuzk/v1/proving.proto=czktest/cuzkv1"
protoc -I "$SRC/proto" --go_out="$GOPATH_OWN/src" --go_opt="$M" \
  --go-grpc_out="$GOPATH_OWN/src" --go-grpc_opt="$M" "$SRC/proto/cuzk/v1/proving.proto"
cp "$SRC/tests/rpc/go_client/main.go" "$GOPATH_OWN/src/czktest/go_client/"
t0=$SECONDS
GO111MODULE=off GOPATH="$GOPATH_OWN:/usr/share/gocode" GOCACHE="$WORK/go-cache" GOFLAGS= \
  go build -o "$WORK/go_client" czktest/go_client
echo "go_client: built in $((SECONDS - t0)) s"

RUN=$(mktemp -d "${TMPDIR:-/tmp}/czk-goclient-XXXXXX")
DPID=
cleanup() {
  if [ -n "$DPID" ]; then kill -KILL "$DPID" 2>/dev/null || true; fi
  rm -rf "$RUN"
}
trap cleanup EXIT
cat >"$RUN/cuzk.toml" <<TOML
[daemon]
listen = "unix://$RUN/czk.sock"
[srs]
param_cache = "$RUN"
[memory]
total_budget = "4 GiB"
[gpus]
backend = "cpu"
gpu_workers_per_device = 1
[synthesis]
partition_workers = 2
[logging]
level = "warn"
TOML
"$CZK" daemon --config "$RUN/cuzk.toml" >"$RUN/daemon.log" 2>&1 &
DPID=$!
rc=0
"$WORK/go_client" "unix://$RUN/czk.sock" || rc=$?
kill -TERM "$DPID"
drc=0
wait "$DPID" || drc=$?
DPID=
if [ "$drc" -ne 0 ]; then
  echo "FAIL: the daemon exited $drc after SIGTERM"
  rc=1
fi
if [ "$rc" -ne 0 ]; then
  echo "---- daemon log (last 40 lines) ----"
  tail -n 40 "$RUN/daemon.log"
fi
exit "$rc"
