#!/bin/sh
# Fuzzes the SnapDeals vanilla intake (fuzz/run-vanilla-fuzz.sh snap_vanilla).
# Usage: fuzz/run-snap-vanilla-fuzz.sh [seconds] [jobs]
exec "$(dirname "$0")/run-vanilla-fuzz.sh" snap_vanilla "$@"
