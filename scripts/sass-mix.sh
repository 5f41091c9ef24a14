#!/usr/bin/env bash
# The instruction mix of device functions: opcode counts (the part before the first dot) of
# every function in OBJ (an object or executable with sm_90 code) whose mangled name matches
# PATTERN (grep -E), one table per function. Needs cuobjdump (the CUDA toolkit on the GPU
# machine). For reading what a kernel spends its issue slots on (bench/GPU.md).
#   scripts/sass-mix.sh OBJ PATTERN [TOP]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/sass-mix.sh OBJ PATTERN [TOP]" >&2; exit 2; }
obj=$1 pat=$2 top=${3:-14}
cuobjdump -sass "$obj" | awk -v pat="$pat" -v top="$top" '
  function flush(   op, n, i, j, t, k) {
    if (name == "") return
    n = 0
    for (op in cnt) { n++; k[n] = op }
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (cnt[k[j]] > cnt[k[i]]) { t = k[i]; k[i] = k[j]; k[j] = t }
    printf "%s: %d instructions\n", name, total
    for (i = 1; i <= n && i <= top; i++) printf "  %-10s %6d\n", k[i], cnt[k[i]]
    delete cnt; total = 0; name = ""
  }
  /Function : / { flush(); if ($0 ~ pat) name = $NF; next }
  name != "" && match($0, /\/\*[0-9a-f]+\*\/ +(@!?U?P[0-9T]+ +)?[A-Z][A-Z0-9_]*/) {
    s = substr($0, RSTART, RLENGTH); sub(/.*\*\/ +/, "", s); sub(/^@!?U?P[0-9T]+ +/, "", s)
    cnt[s]++; total++
  }
  END { flush() }'
