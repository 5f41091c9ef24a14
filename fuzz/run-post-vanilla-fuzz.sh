#!/bin/sh
# Fuzzes the PoSt vanilla intake (fuzz/run-vanilla-fuzz.sh post_vanilla).
# Usage: fuzz/run-post-vanilla-fuzz.sh [seconds] [jobs]
exec "$(dirname "$0")/run-vanilla-fuzz.sh" post_vanilla "$@"
