#!/usr/bin/env bash
# bench_emulate.sh BENCH OUT.h5: the GPU benchmark's logic on the host emulation
# (stepq_bench_gpu --emulate: every kernel checked against the CPU first, then one step of one
# request), then its columns read back with h5py and recomputed from first principles
# (check_bench_gpu.py). Skipped (77) where no Python has h5py.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../find_h5py.sh"
"$1" --emulate --out "$2"
exec "$py" "$(dirname "${BASH_SOURCE[0]}")/check_bench_gpu.py" "$2"
