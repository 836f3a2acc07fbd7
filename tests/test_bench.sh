#!/usr/bin/env bash
# test_bench.sh: `stepq bench --quick` runs to the end (under the sanitizers in the test build),
# prints its table and writes its HDF5 file whole; the file is read back with h5py and its
# shapes, units and the bytes a serving step moves are checked against the state layout
# (method 6.2: a row of a b-bit format is its FP16 scale and 128 b / 8 bytes of codes). No
# timing is asserted, only that every time is a positive finite number. Skipped (77) after the
# run where no Python has h5py. The replay rows write their trace and outputs under TMPDIR, which
# must be empty again after the run.
#   test_bench.sh STEPQ WORKDIR
set -u
stepq=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
mkdir -p "$dir/tmp"  # the replay rows' trace and outputs go under TMPDIR and must be gone after
STEPQ_QUIET=1 TMPDIR="$dir/tmp" "$stepq" bench --quick --out "$dir/bench.h5" >"$dir/bench.txt" 2>"$dir/bench.err" ||
    { echo "FAIL: bench --quick"; cat "$dir/bench.err"; exit 1; }
fail=0
grep -q "/ plain" "$dir/bench.txt" || { echo "FAIL: the step table has no / plain column"; fail=1; }
grep -q "% traffic" "$dir/bench.txt" || { echo "FAIL: the step table has no % traffic column"; fail=1; }
grep -q "^machine: .*, L1d [0-9]* KiB, L2 [0-9]* KiB per core" "$dir/bench.txt" ||
    { echo "FAIL: the machine line names no CPU and caches"; fail=1; }
[ "$(grep -c " on one: " "$dir/bench.txt")" -eq 2 ] || { echo "FAIL: not two driver lines on one thread"; fail=1; }
[ -f "$dir/bench.h5" ] && ! compgen -G "$dir/bench.h5.tmp*" >/dev/null || { echo "FAIL: bench.h5 missing or .tmp left"; fail=1; }
grep -q "^replay: the whole of .stepq replay. .* 2 heads x 1024 steps" "$dir/bench.txt" ||
    { echo "FAIL: no replay table"; fail=1; }
[ -z "$(ls -A "$dir/tmp")" ] || { echo "FAIL: the replay rows left files in TMPDIR: $(ls -A "$dir/tmp")"; fail=1; }
[ $fail -eq 0 ] || exit 1

. "$(dirname "${BASH_SOURCE[0]}")/find_h5py.sh"
exec "$py" - "$dir/bench.h5" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
bad = []
def check(ok, msg):
    if not ok: bad.append(msg)
txt = lambda a: [x.decode() if isinstance(x, bytes) else str(x) for x in a]
rows = txt(f["step_rows"][()])
check(rows[:3] == ["plain fp32 loop", "fp32 reference", "fp32 step"], f"step rows start {rows[:3]}")
for k in ["step_cpu_ns", "step_wall_ns", "step_rate_all_threads"]:
    v = f[k][()]
    check(v.shape == (len(rows),), f"{k} shape {v.shape}")
    check(np.all(np.isfinite(v) & (v > 0)), f"{k} not all positive and finite")
ref = f["step_reference_cpu_ns"][()]
check(np.all(np.isnan(ref[:3])) and np.all(np.isfinite(ref[3:]) & (ref[3:] > 0)),
      "step_reference_cpu_ns: NaN on the float32 rows, positive on the formats")
check(f["step_cpu_ns"].attrs["units"] in (b"ns", "ns"), "step_cpu_ns has no unit ns")
srows = txt(f["serving_rows"][()])
check(srows[:4] == ["fp32", "int8", "int6", "int4"], f"serving rows {srows}")
for k in ["serving_ns_one_thread", "serving_ns_all_threads", "serving_bytes", "serving_heads"]:
    v = f[k][()]
    check(v.shape == (len(srows),) and np.all(np.isfinite(v) & (v > 0)), f"{k}: {v}")
# bytes moved per head-step of a 128 x 128 head: float32 read and written twice; a packed
# format's bytes read twice and written once (a row: 2 bytes of FP16 scale, then its codes)
K = V = 128
want = {"fp32": 4 * 4 * K * V, "int8": 3 * K * (2 + V), "int6": 3 * K * (2 + 6 * V // 8),
        "int4": 3 * K * (2 + 4 * V // 8)}
got = dict(zip(srows, f["serving_bytes"][()]))
for fmt, b in want.items():
    check(got[fmt] == b, f"serving bytes of {fmt}: {got[fmt]} != {b}")
for a in ["driver_int6_projected_s", "driver_stepquant6_projected_s",
          "driver_int6_projected_one_thread_s", "driver_stepquant6_projected_one_thread_s",
          "fma_peak_gflops", "copy_gbps", "step_traffic_ns"]:
    v = f.attrs.get(a)
    check(v is not None and np.isfinite(v) and v > 0, f"attribute {a} = {v}")
rrows = txt(f["replay_rows"][()])
check(rrows == ["fp32", "int8", "int6", "nvfp4", "stepquant6"], f"replay rows {rrows}")
v = f["replay_cpu_ns"][()]
check(v.shape == (len(rrows),) and np.all(np.isfinite(v) & (v > 0)), f"replay_cpu_ns: {v}")
check(int(f.attrs["replay_heads"]) == 2 and int(f.attrs["replay_steps"]) == 1024, "replay size attributes")
check(int(f.attrs["threads"]) >= 1, "threads attribute")
check(len(txt([f.attrs["cpu_model"]])[0]) > 0, "cpu_model attribute empty")
check(int(f.attrs["l1d_bytes"]) >= 0 and int(f.attrs["l2_bytes"]) >= 0, "cache size attributes")
# the float32 step moves at least its traffic: the traffic alone cannot take longer than the step
# by more than timing noise allows (a limit above the step would mean the yardstick is wrong)
check(f.attrs["step_traffic_ns"] < 3 * f["step_cpu_ns"][()][rows.index("fp32 step")],
      "step_traffic_ns far above the float32 step it bounds")
for m in bad: print("FAIL:", m)
print(f"test_bench: {len(bad)} failed")
sys.exit(1 if bad else 0)
PY
