#!/usr/bin/env python3
"""read_results.py: a propagation result file, read the way a user would read it with h5py,
without documentation: named datasets, units and descriptions, the config and git revision in
attributes. Exit 77 (skipped) where h5py is not installed.
    read_results.py RESULT.h5 CONFIG.cfg"""
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("h5py not installed: skipped")
    sys.exit(77)

path, cfg = sys.argv[1], sys.argv[2]
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


with h5py.File(path, "r") as f:
    attrs = f.attrs
    check(attrs["experiment"] == "propagation", "experiment attribute")
    check(attrs["config"] == open(cfg).read(), "config attribute is the whole config file")
    check(len(attrs["git_revision"]) > 0 and "seed" in attrs, "git revision and seed")
    fmts = [s.decode() if isinstance(s, bytes) else s for s in f["formats"][()]]
    check(fmts == ["fp32", "int8", "int4"], f"formats {fmts}")
    F, H, NB = f["err_readout"].shape
    check((F, H) == (3, 4), f"err_readout shape {f['err_readout'].shape}")
    for name in ["err_readout", "err_state", "accumulated_readout_rel", "p1_residual",
                 "heads/half_life", "bits_actual"]:
        check("units" in f[name].attrs and "description" in f[name].attrs, f"{name} units/description")
    err = f["accumulated_readout_rel"][()]
    check(np.all(err[0] == 0), "fp32 is exact")
    check(np.all(err[2] > err[1]), "int4 errs more than int8 on every head")
    check(np.all(f["heads/half_life"][()] > 0), "half-lives positive")
    check(abs(f["bits_actual"][2] - 4.125) < 1e-12, "int4 actual bits 4.125")
    check(float(f.attrs["p1_residual_max"]) < 1e-4, "P1 holds on the run")
    ci = f["seed_summary/readout_rel_pooled_ci95"][()]
    check(np.all(np.isnan(ci)), f"one seed stores no interval (NaN, never 0): {ci}")
print(f"read_results: {checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
