#!/usr/bin/env python3
"""Print paper_repro.md's tables for the models trained to remember from the drivers' HDF5 files.

    tools/lm/.venv/bin/python tools/repro_tables.py [--results results]

Reads, for GDN and KDA side by side: results/nll/recall_{gdn,kda}.h5 (extra NLL over decode
position on recall documents), results/nll/recall_{gdn,kda}_prose.h5 (the same on prose) and
results/recall/{gdn,kda}.h5 (recall under each format), and prints the markdown tables of
paper_repro.md's sections "Models that remember" and "Recall under a format" with the statistics
they name: means over documents with 95% intervals (the drivers' extra_ci95, exact_ci95 and
extra_nll_ci95; over the window a t-interval of the documents' extra_window). Nothing is computed
here that a driver did not write but the window's interval and the records per position group.
"""
import argparse
import os
import sys

import h5py
import numpy as np

# two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom
T975 = [12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
        2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
        2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
        2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272]


def t_interval(x):
    """mean and 95% half-width of a sample (NaN with fewer than two)"""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n < 2:
        return float(x.mean()), float("nan")
    t = T975[n - 2] if n - 1 <= len(T975) else 1.960
    return float(x.mean()), t * float(x.std(ddof=1)) / np.sqrt(n)


def names(ds):
    return [v.decode() if isinstance(v, bytes) else str(v) for v in ds[()]]


def pm(m, c, digits):
    return "%.*f +- %.*f" % (digits, m, digits, c)


def open_pair(results, pattern):
    files = {}
    for model in ("gdn", "kda"):
        path = os.path.join(results, pattern % model)
        if not os.path.exists(path):
            sys.exit("repro_tables: %s: no such file (run its config first)" % path)
        files[model] = h5py.File(path, "r")
    return files


def nll_recall(results):
    f = open_pair(results, "nll/recall_%s.h5")
    fmts = names(f["gdn"]["formats"])
    print("| format | GDN first 512 | GDN last 512 | GDN whole window | KDA first 512 | KDA last 512 | KDA whole window |")
    print("|---|---|---|---|---|---|---|")
    for i, fmt in enumerate(fmts):
        cells = []
        for model in ("gdn", "kda"):
            h = f[model]
            j = names(h["formats"]).index(fmt)
            m, c = h["extra_mean"][j], h["extra_ci95"][j]
            cells += [pm(m[0], c[0], 4), pm(m[-1], c[-1], 4), pm(*t_interval(h["extra_window"][:, j]), 4)]
        print("| %s | %s |" % (fmt, " | ".join(cells)))
    for model in ("gdn", "kda"):
        print("native %s: %.3f bits per byte (mean over documents)" % (model, f[model]["bpb_native"][()].mean()))


def nll_prose(results):
    f = open_pair(results, "nll/recall_%s_prose.h5")
    fmts = names(f["gdn"]["formats"])
    print("| format | GDN first -> last bin | GDN whole window | KDA first -> last bin | KDA whole window |")
    print("|---|---|---|---|---|")
    for fmt in fmts:
        cells = []
        for model in ("gdn", "kda"):
            h = f[model]
            j = names(h["formats"]).index(fmt)
            m, c = h["extra_mean"][j], h["extra_ci95"][j]
            cells += ["%.4f -> %s" % (m[0], pm(m[-1], c[-1], 4)), pm(*t_interval(h["extra_window"][:, j]), 4)]
        print("| %s | %s |" % (fmt, " | ".join(cells)))
    for model in ("gdn", "kda"):
        print("native %s: %.3f bits per byte (mean over books)" % (model, f[model]["bpb_native"][()].mean()))


def bucket_names(b):
    return ["%d-%d" % (lo, hi) for lo, hi in b]


def recall(results):
    f = open_pair(results, "recall/%s.h5")
    for model in ("gdn", "kda"):
        h = f[model]
        fmts = names(h["formats"])
        cols = bucket_names(h["buckets"][()])
        pos = h["positions"][()]
        rp = h["record_position"][()]
        npos = [int(((rp >= lo) & (rp < hi)).sum()) for lo, hi in pos]
        while npos and npos[-1] == 0:  # the open last group when no record reaches it
            npos.pop()
        up = model.upper()
        for title, mean, ci, runs, counts, heads in (
                ("exact match", "exact_mean", "exact_ci95", ["native"] + fmts, h["n_records"][()], cols),
                ("answer extra NLL (nats)", "extra_nll_mean", "extra_nll_ci95", fmts, h["n_records"][()], cols),
                ("answer extra NLL by decode position", "extra_nll_pos_mean", "extra_nll_pos_ci95", fmts, npos,
                 bucket_names(pos)[:len(npos)])):
            m, c = h[mean][()], h[ci][()]
            n = len(heads)
            print("| %s: %s | %s |" % (up, title, " | ".join(heads)))
            print("|---" * (n + 1) + "|")
            print("| records | %s |" % " | ".join(str(int(k)) for k in counts[:n]))
            for r, run in enumerate(runs):
                print("| %s | %s |" % (run, " | ".join(pm(m[r][k], c[r][k], 2) for k in range(n))))
            print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results", help="the results folder (default: results)")
    ap.add_argument("--table", choices=["nll", "prose", "recall", "all"], default="all")
    a = ap.parse_args()
    for name, fn in (("nll", nll_recall), ("prose", nll_prose), ("recall", recall)):
        if a.table in (name, "all"):
            fn(a.results)
            print()


if __name__ == "__main__":
    main()
