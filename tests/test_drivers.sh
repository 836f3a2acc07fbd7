#!/usr/bin/env bash
# test_drivers.sh: one mechanism driver as a chain, run -> HDF5 -> check. Runs the driver's
# shipped configs at their --quick size (and, for selfcorrect, two configs of its own: a format
# whose injected error is zero, and a trace whose decode steps write nothing), renders their
# gnuplot scripts, then check_drivers.py reads every file with h5py and recomputes what it can
# from first principles. Skipped (77) where no Python has h5py.
#   test_drivers.sh STEPQ SOURCE_DIR WORKDIR DRIVER
set -u
stepq=$1 src=$2 dir=$3 driver=$4
. "$(dirname "${BASH_SOURCE[0]}")/find_h5py.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
export STEPQ_QUIET=1
run() {  # CONFIG: runs it at its quick size; outputs land under $dir/results/quick/
    "$stepq" run --quick "$1" >"$dir/$(basename "$1" .cfg).log" 2>&1 ||
        { echo "FAIL: stepq run --quick $1"; cat "$dir/$(basename "$1" .cfg).log"; exit 1; }
}
case "$driver" in
memory) run "$src/experiments/memory.cfg" ;;
generate) run "$src/experiments/generate_gdn.cfg" ;;
recall) run "$src/experiments/recall_gdn.cfg" ;;
hold)
    run "$src/experiments/hold.cfg"
    # hold.cfg's held plans are the plans calibrated without the hold, held (cli/experiments.c): the
    # GDN one must equal, dataset for dataset, the plan calibrated with the hold from the start
    mkdir -p "$dir/alone" && (cd "$dir/alone" && run "$src/experiments/hold_gdn.cfg") || exit 1
    "$py" "$src/tools/h5cmp.py" "$dir/results/quick/hold/plan_gdn.h5" "$dir/alone/results/quick/hold/plan_gdn.h5" ||
        { echo "FAIL: the held plan made from the calibrated one differs from one calibrated with the hold"; exit 1; }
    ;;
calset) run "$src/experiments/calset.cfg" ;;
long) run "$src/experiments/long.cfg" ;;
frontier)
    run "$src/experiments/frontier_gdn.cfg"
    # KDA's beside a GPU run: a file laid out as `stepq bench-gpu` writes it, with speed-ups of our own
    "$py" - "$dir/serving.h5" <<'PY' || exit 1
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f["formats"] = np.array(["fp32", "int8", "int4", "nvfp4"], dtype=h5py.string_dtype())
    f["modes"] = np.array(["fused", "split"], dtype=h5py.string_dtype())
    f["B"] = np.array([32.0, 128.0])
    f["speedup_vs_fp32"] = np.arange(1, 17, dtype=float).reshape(4, 2, 2) / 4
PY
    { cat "$src/experiments/frontier_kda.cfg"; echo "serving = \"$dir/serving.h5\";"; } >"$dir/frontier_kda.cfg"
    run "$dir/frontier_kda.cfg"
    ;;
nll)
    run "$src/experiments/nll_gdn.cfg"
    run "$src/experiments/nll_kda.cfg"
    run "$src/experiments/nll_octile_gdn.cfg"
    # fp32 through the protocol must add exactly nothing
    cat >"$dir/nll_fp32.cfg" <<CFG
experiment = "nll";
model = "$src/data/lm/gdn";
documents = ["$src/data/lm/heldout/prose/Ruth.txt", "$src/data/lm/heldout/prose/Jas.txt"];
prefill = 32;
decode = 96;
bin = 32;
formats = ["fp32", "int4"];
output = "$dir/results/quick/nll/fp32.h5";
CFG
    run "$dir/nll_fp32.cfg"
    ;;
selfcorrect)
    run "$src/experiments/selfcorrect_gdn.cfg"
    run "$src/experiments/selfcorrect_kda.cfg"
    # a zero injected error (fp32) and a trace whose decode steps have beta = 0 (cut = normal)
    "$stepq" trace --out "$dir/trace.h5" --steps 96 --heads 0-3 --seed 7 >/dev/null || exit 1
    "$py" - "$dir/trace.h5" <<'PY' || exit 1
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    b = f["beta"][()]
    b[32:] = 0.0   # prefill 32 steps as usual; nothing is written during decode
    f["beta"][...] = b
PY
    for x in zero beta0; do
        if [ $x = zero ]; then
            srcline='source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1, 2]; };'
            seedline='seeds = [1, 2];'
        else  # a trace is one stream: one seed
            srcline="source = { type = \"trace\"; path = \"$dir/trace.h5\"; };"
            seedline='seed = 1;'
        fi
        cat >"$dir/$x.cfg" <<CFG
experiment = "selfcorrect";
$seedline
$srcline
prefill = 32;
decode = 64;
windows = [16, 64];
formats = ["fp32", "int6", "int6-replay16"];
output = "$dir/results/quick/selfcorrect/$x.h5";
CFG
        run "$dir/$x.cfg"
    done
    ;;
halflife)
    for cfg in "$src/experiments/halflife_gdn.cfg" "$src/experiments/halflife_kda.cfg"; do run "$cfg"; done
    # a replay format re-encodes every 16 steps: over 15 decode steps it never re-encodes, so the
    # distortion d its encodes add is exactly zero while INT6's is not (check_drivers.py); a
    # driver that ignored `replay` would measure INT6 itself
    for fm in int6 int6-replay16; do
        cat >"$dir/hl_$fm.cfg" <<CFG
experiment = "halflife";
seed = 1;
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1, 2, 3, 4, 5, 6, 7]; };
prefill = 128;
decode = 15;
format = "$fm";
output = "$dir/results/quick/halflife/replay_$fm.h5";
CFG
        run "$dir/hl_$fm.cfg"
    done
    ;;
*)
    for cfg in "$src/experiments/${driver}_gdn.cfg" "$src/experiments/${driver}_kda.cfg"; do run "$cfg"; done ;;
esac
exec "$py" "$src/tests/check_drivers.py" "$dir" "$src" "$driver"
