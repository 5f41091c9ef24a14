#!/bin/sh
# Fails the build unless the blst archive defines the entry points czk uses.
set -e
lib="$1"
syms=$(nm -g --defined-only "$lib" 2>/dev/null) || { echo "check-blst: cannot read $lib" >&2; exit 1; }
for s in blst_fr_mul blst_p1s_mult_pippenger blst_p2s_mult_pippenger blst_p1_deserialize \
         blst_p2_deserialize blst_miller_loop blst_final_exp blst_sha256 blst_p1s_add; do
  echo "$syms" | grep -q " T $s\$" || { echo "check-blst: $lib lacks $s" >&2; exit 1; }
done
