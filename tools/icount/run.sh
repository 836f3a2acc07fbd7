#!/usr/bin/env bash
# tools/icount/run.sh [FORMAT|f32step ...]: the instructions one decode step of one 128 x 128 head
# retires (the step `stepq bench` times; default: f32step int8 int6 stepquant6), counted under gdb
# by single-stepping (hardware counters are not needed; a format's step takes 4 to 60 s).
# Needs gdb and the Release build's libraries (build/libstepq_*.a: any ./stepq command builds them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
b="$root/build"
for lib in analysis sim quant base; do
    [ -f "$b/libstepq_$lib.a" ] || { echo "icount: $b/libstepq_$lib.a missing: build first (./stepq formats)" >&2; exit 1; }
done
command -v gdb > /dev/null || { echo "icount: gdb not found (apt-get install gdb)" >&2; exit 1; }
exe="$(mktemp -d)/icount"
trap 'rm -rf "$(dirname "$exe")"' EXIT
hdf5="$(pkg-config --cflags --libs hdf5 2>/dev/null ||
        echo -I/usr/include/hdf5/serial -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5)"
gcc -O2 -fopenmp -I"$root" -o "$exe" "$root/tools/icount/icount.c" "$b"/libstepq_{analysis,sim,quant,base}.a $hdf5 \
    -lgsl -lgslcblas -lconfig -lcjson -lxxhash -lm
[ $# -gt 0 ] || set -- f32step int8 int6 stepquant6
for a in "$@"; do
    "$exe" "$a" || { echo "icount: $a failed" >&2; exit 1; }
    ICOUNT_ARG="$a" gdb -q -batch -x "$root/tools/icount/icount.py" "$exe" 2>&1 | sed -n 's/^| //p'
done
