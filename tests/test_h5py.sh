#!/usr/bin/env bash
# test_h5py.sh: run a tiny propagation experiment and read its result with h5py, as a user's
# Python tools would. Skipped (77) where no Python has h5py.
#   test_h5py.sh STEPQ WORKDIR
set -u
stepq=$1 dir=$2
. "$(dirname "${BASH_SOURCE[0]}")/find_h5py.sh"
rm -rf "$dir" && mkdir -p "$dir"
cat >"$dir/tiny.cfg" <<CFG
experiment = "propagation";
seed = 3;
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [4]; heads = [0, 1, 2, 3]; };
prefill = 16;
decode = 48;
bin = 8;
formats = ["fp32", "int8", "int4"];
output = "$dir/tiny.h5";
CFG
STEPQ_QUIET=1 "$stepq" run "$dir/tiny.cfg" >/dev/null || { echo "FAIL: run"; exit 1; }
exec "$py" "$(dirname "$0")/read_results.py" "$dir/tiny.h5" "$dir/tiny.cfg"
