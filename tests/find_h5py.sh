# find_h5py.sh: sourced by the shell tests that read HDF5 files back with h5py. py <- the first
# python3 that imports h5py and numpy; without one the test is skipped (exit 77), or, where the
# test sets h5py_optional=1, py is left empty.
py=""
for p in /usr/bin/python3 python3; do
    if "$p" -c "import h5py, numpy" >/dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || [ -n "${h5py_optional:-}" ] ||
    { echo "no python3 with h5py (apt-get install python3-h5py): skipped"; exit 77; }
