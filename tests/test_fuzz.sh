#!/usr/bin/env bash
# test_fuzz.sh: every libFuzzer target for a few seconds (./stepq fuzz 3): builds build/fuzz
# with clang the first time. Skipped (77) where clang is not installed.
#   test_fuzz.sh SOURCE_DIR
command -v clang >/dev/null 2>&1 || { echo "no clang: skipped"; exit 77; }
exec "$1/stepq" fuzz 3
