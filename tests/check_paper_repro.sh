#!/usr/bin/env bash
# check_paper_repro.sh SOURCE_DIR WORKDIR: paper_repro.md against tools/repro_tables.py's rendering
# of paper_repro.json and the document's rules (python3's standard library suffices), and collect
# and render on the quick results there are (SOURCE_DIR/results/quick, WORKDIR/drivers/*/results/quick)
# with the first python3 that has h5py (without one that part is reported as not tried)
set -u
src=$1 work=$2
h5py_optional=1
. "$(dirname "${BASH_SOURCE[0]}")/find_h5py.sh"
exec "${py:-python3}" "$src/tools/repro_tables.py" check --self-test --quick "$src/results/quick" "$work/drivers"
