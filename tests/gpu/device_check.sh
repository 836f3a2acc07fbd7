#!/usr/bin/env bash
# device_check.sh OUTDIR: every check of the CUDA fast path that needs a GPU, in one command,
# for a machine with a lent GPU and a short time limit: at most STEPQ_CHECK_SECONDS (default 420,
# 7 minutes) in all; each step runs within its own limit and within what is left of that budget,
# a step that no longer fits is skipped and said so, and every step writes its log to OUTDIR as it
# runs, so a run cut short still leaves what ran:
#   configure (Release, CUDA on, sm_90 unless STEPQ_CHECK_ARCHS says otherwise: "native", "80;90"),
#   build the CUDA targets first (all of them, before anything runs), list the device, run the
#   GPU parity test (test_cuda_parity: the block programs against the CPU, the lane kernels
#   against their host emulation byte for byte), the lane kernels' contract in the emulation
#   (test_cuda_lanes), the GPU benchmark (stepq_bench_gpu --quick: the block programs and the lane
#   kernels at 32, 128, 256 and 512 requests, each checked against the CPU first), then the
#   CPU-side CUDA tests of the same build (test_cuda_numerics, test_cuda_emulate), a propagation
#   run through `--backend cuda` compared with the CPU's, and, with the time left (about 4
#   minutes needed), the model adapters' eval on the GPU against the CPU's (hf_parity.py; skipped
#   where no python has torch with CUDA, transformers and fla).
#   With 120 s left after them (STEPQ_CHECK_SECONDS=600): the device session against the CPU
#   session and a batch of sessions against them one by one (hf_parity.py --session), and the
#   throughput table of eval and tasks (tools/bench_hf.py --device cuda, batch 1, 8, 32).
# Leaves in OUTDIR: configure.log build.log device.log parity.log lanes.log bench.log
# bench_gpu.h5 numerics.log emulate.log dsess_c.log backend.log adapters.log (and hf/) dsession.log
# bench_hf.log bench_hf.tsv summary.txt, and prints a summary of at most 40 lines (summary.txt: the steps, then the figures). Exit status: 0
# when every step passed, 1 otherwise, 77 when there is no GPU (nothing that needs one ran).
#   tests/gpu/device_check.sh /tmp/stepq-gpu          (from the repository root)
#   STEPQ_CHECK_ARCHS="80;90" tests/gpu/device_check.sh OUT   (the default build's archs)
#   STEPQ_CHECK_DEBS=DIR tests/gpu/device_check.sh OUT   (a machine with no network and without the
#       Debian libraries: unpacks DIR/*.deb, fetched elsewhere with `apt-get download libgsl-dev
#       libgsl27 libgslcblas0 libconfig-dev libconfig9 libcjson-dev libcjson1 ...`, over / without
#       replacing any file that is there, then runs ldconfig)
set -uo pipefail

out=${1:?usage: tests/gpu/device_check.sh OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
build=${STEPQ_CHECK_BUILD:-$root/build/gpu-check}
archs=${STEPQ_CHECK_ARCHS:-90}
budget=${STEPQ_CHECK_SECONDS:-420}
start=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 4)
export CUDACXX=${CUDACXX:-/usr/local/cuda/bin/nvcc}
export STEPQ_QUIET=1
summary="$out/summary.txt"
: > "$summary"
status=0

# step NAME LOG TIMEOUT CMD...: runs CMD with a time limit (TIMEOUT, or what is left of the
# budget less 10 s for the summary), logs it, records the outcome; 75 when no time is left
step() {
    local name=$1 log=$2 limit=$3 rc t0 left
    shift 3
    t0=$(date +%s)
    left=$(( budget - (t0 - start) - 10 ))
    if [ "$left" -lt 5 ]; then
        printf '%-10s %-28s %4ss  (%s)\n' "$name" "SKIPPED: no time left" 0 "$log" | tee -a "$summary"
        status=1
        return 75
    fi
    [ "$left" -lt "$limit" ] && limit=$left
    timeout "$limit" "$@" > "$out/$log" 2>&1
    rc=$?
    local verdict=ok
    case $rc in
        0) ;;
        77) verdict=skipped ;;
        124) verdict="TIMED OUT after ${limit}s"; status=1 ;;
        *) verdict="FAILED (exit $rc)"; status=1 ;;
    esac
    printf '%-10s %-28s %4ss  (%s)\n' "$name" "$verdict" "$(( $(date +%s) - t0 ))" "$log" | tee -a "$summary"
    return $rc
}

{ nvidia-smi 2>&1 || true; } > "$out/nvidia-smi.log"
if [ -n "${STEPQ_CHECK_DEBS:-}" ]; then
    unpacked=$(mktemp -d)
    for d in "$STEPQ_CHECK_DEBS"/*.deb; do dpkg-deb -x "$d" "$unpacked" || echo "could not unpack $d"; done
    tar -C "$unpacked" -cf - . | tar -C / -xf - --keep-directory-symlink --skip-old-files && ldconfig
    rm -rf "$unpacked"
    # Debian's HDF5 lives under hdf5/serial; without Debian's h5cc CMake looks there only when told
    [ -d /usr/lib/x86_64-linux-gnu/hdf5/serial ] && export HDF5_ROOT=${HDF5_ROOT:-/usr/lib/x86_64-linux-gnu/hdf5/serial}
fi
missing=$(for p in cmake gcc libhdf5-dev libgsl-dev libconfig-dev pkg-config; do
              dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
          done | tr '\n' ' ')
[ -n "${missing// /}" ] && [ -z "${STEPQ_CHECK_DEBS:-}" ] && echo "missing Debian packages (the build may fail): $missing" | tee -a "$summary"

step configure configure.log 60 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTEPQ_CUDA=ON \
    "-DCMAKE_CUDA_ARCHITECTURES=$archs" || { echo "configure failed: see $out/configure.log"; exit 1; }
step build build.log 180 cmake --build "$build" -j "$jobs" --target stepq_cuda_query test_cuda_numerics \
    test_cuda_emulate test_cuda_lanes test_cuda_parity test_dsession_cuda stepq_bench_gpu stepq stepq_shared || { echo "build failed: see $out/build.log"; exit 1; }
step device device.log 30 "$build/sim/cuda/stepq_cuda_query"
if [ $? -eq 77 ]; then
    echo "no CUDA device here: nothing that needs a GPU ran" | tee -a "$summary"
    exit 77
fi
# the GPU first, the CPU-side CUDA tests of the same build, then the model adapters (each within a
# limit a few times what it took on an H200, 2026-12-04, with 16 cores: configure
# 10 s, build 45 s, parity 9 s, bench 5 s, backend 1 s, numerics and emulate 1 s each, the
# adapters about 4 minutes, most of it the first CUDA run of each model; on this project's CI
# machine, 2026-12-07, test_cuda_lanes, the host emulation alone, took 46 s of CPU and
# test_cuda_parity --emulate, both its sides on the host, 171 s: half of that is parity's host side)
step parity parity.log 180 "$build/tests/gpu/test_cuda_parity"
step lanes lanes.log 120 "$build/tests/gpu/test_cuda_lanes"
step bench bench.log 120 "$build/sim/cuda/stepq_bench_gpu" --quick --out "$out/bench_gpu.h5"
step numerics numerics.log 30 "$build/tests/gpu/test_cuda_numerics"
step emulate emulate.log 60 "$build/tests/gpu/test_cuda_emulate"
# the device session's cuda backend on the GPU against libstepq's host backend (method 6.5's
# contract: the reference within rms 1e-5, each format's binned errors within 2%, a deferred
# failure named at the next wait), and the same in the emulation
step dsess_c dsess_c.log 60 bash -c "'$build/tests/gpu/test_dsession_cuda' --device && '$build/tests/gpu/test_dsession_cuda'"
# a whole driver through the runner's cuda backend beside the cpu one (propagation, quick size;
# the figures must agree: compare with h5py where there is one; the config without its figure, so
# that a machine without gnuplot runs it)
sed '/^plot *=/d' "$root/experiments/propagation.cfg" > "$out/propagation.cfg"
step backend backend.log 90 bash -c "cd '$out' && '$build/stepq' run --quick propagation.cfg --backend cpu >/dev/null && mv results/quick/propagation/propagation.h5 cpu.h5 && '$build/stepq' run --quick propagation.cfg --backend cuda && mv results/quick/propagation/propagation.h5 cuda.h5 && (python3 -c 'import h5py' 2>/dev/null || exit 0; python3 - cpu.h5 cuda.h5 <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
bad = [n for n in ('accumulated_readout_rel', 'err_readout', 'err_state', 'p1_residual') if not np.allclose(a[n][()], b[n][()], rtol=0.05, equal_nan=True)]
print('cpu vs cuda backend:', 'differ in ' + str(bad) if bad else 'agree within 5%')
sys.exit(1 if bad else 0)
PY
)"
# the model adapters on the GPU (python -m stepq.hf eval --device cuda against --device cpu: fla's
# Triton kernels hooked as the CPU's are; skipped, 77, where no python has torch with CUDA,
# transformers and fla): the python first that has them, the project's test venv if built
py=python3
for p in "$root/build/venv/bin/python" "$root/tools/lm/.venv/bin/python"; do [ -x "$p" ] && py=$p && break; done
if [ $(( budget - ($(date +%s) - start) )) -ge 250 ]; then
    step adapters adapters.log 330 env STEPQ_LIBRARY="$build/libstepq.so" "$py" "$root/tests/gpu/hf_parity.py" "$out/hf"
else
    printf '%-10s %-28s %4ss  (%s)\n' adapters "SKIPPED: under 250 s left" 0 adapters.log | tee -a "$summary"
fi
# the device session (issue 68): against the CPU session on the same GPU forward, and a batch of
# sessions against them one by one (hf_parity.py --session; 77 where this libstepq has no cuda
# device session), then the throughput table of eval and tasks per format against the model's
# own decode at batch 1, 8 and 32 (tools/bench_hf.py; the adapters' choice of session, which its
# table names). Both want STEPQ_CHECK_SECONDS=600 beside the steps above.
if [ $(( budget - ($(date +%s) - start) )) -ge 120 ]; then
    step dsession dsession.log 150 env STEPQ_LIBRARY="$build/libstepq.so" "$py" "$root/tests/gpu/hf_parity.py" "$out/hf" --session
    step bench_hf bench_hf.log 150 env STEPQ_LIBRARY="$build/libstepq.so" PYTHONPATH="$root/python" "$py" \
        "$root/tools/bench_hf.py" --device cuda --batches 1,8,32 --formats int8,int4 --repeats 1 --out "$out/bench_hf.tsv"
else
    printf '%-10s %-28s %4ss  (%s)\n' dsession "SKIPPED: under 120 s left" 0 dsession.log | tee -a "$summary"
fi
# the figures: the device, the parity totals, the lane kernels' lines, the benchmark's lanes
# rows and the fp32 rows of the block programs at 128 and 512 requests, the device session's
# lines and bench_hf's rows
{
    echo "figures ($(( $(date +%s) - start )) s in all):"
    grep -m1 -o 'NVIDIA[^,]*' "$out/nvidia-smi.log" 2>/dev/null
    grep -h 'checks,' "$out/parity.log" "$out/lanes.log" "$out/dsess_c.log" 2>/dev/null
    grep -h 'the emulation$' "$out/parity.log" 2>/dev/null | grep -c 'equal byte for byte' | sed 's/$/ of 38 lane kernels: device = emulation/'
    grep -h '^copy' "$out/bench.log" 2>/dev/null
    # one line a kernel: share of copy and ratio to fp32 at 128 and 512 requests, registers, blocks;
    # the lane kernels of damp, LeapQuant and stochastic rounding on one line (512 requests), so that
    # the summary keeps to 40 lines
    awk '$1 ~ /^(128|512)$/ && ($3 == "lanes" || ($2 == "fp32" && $3 == "fused")) {
             if ($2 ~ /^(damp|leap|.*-sr$)/) { if ($1 == 512) more = more sprintf(" %s %s %sx r%s;", $2, $7, $8, $9); next }
             k = $2 " " $3; if (!(k in at)) order[n++] = k
             at[k] = at[k] sprintf("  B=%s %s %sx", $1, $7, $8); regs[k] = $9; blk[k] = $11 }
         END { for (i = 0; i < n; i++) printf "%-16s%s  regs %s blk %s\n", order[i], at[order[i]], regs[order[i]], blk[order[i]]
               if (more != "") printf "lanes B=512:%s\n", more }' \
        "$out/bench.log" 2>/dev/null
    grep -h '^batch:\|skipped' "$out/dsession.log" 2>/dev/null
    grep -h ' batch ' "$out/bench_hf.log" 2>/dev/null
} >> "$summary"
echo "logs and bench_gpu.h5 in $out"
head -n 40 "$summary"
exit $status
