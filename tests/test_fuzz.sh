#!/usr/bin/env bash
# test_fuzz.sh: every libFuzzer target for a few seconds from its seeds with a fixed libFuzzer
# seed (./stepq fuzz 3 1), so that every machine tries the same inputs in the same order (a
# faster one goes further): builds build/fuzz with clang the first time. Skipped (77) where
# clang is not installed. Longer runs with fresh seeds: ./stepq fuzz 600.
#   test_fuzz.sh SOURCE_DIR
command -v clang >/dev/null 2>&1 || { echo "no clang: skipped"; exit 77; }
exec "$1/stepq" fuzz 3 1
