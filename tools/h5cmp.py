#!/usr/bin/python3
"""h5cmp.py: compare two trees of stepq results dataset for dataset (a restructuring must keep
every output identical; DEVELOPERS' rule). Every HDF5 file under A is compared with the file of
the same relative path under B: the same groups and datasets, each dataset's dtype, shape and
bytes (NaN equal to NaN at the same place), and every attribute but the provenance ones named
by --ignore-attr. Exits 1 and lists the differences when anything differs; a missing A, or a
file that is not HDF5 (a truncated one), is refused first with one line naming it, exit 2
(tools/lm/toolcheck.py).

    tools/h5cmp.py DIR_A DIR_B [--ignore-attr NAME ...] [--skip GLOB ...]
    tools/h5cmp.py A.h5 B.h5
"""
import argparse
import fnmatch
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lm"))
from toolcheck import die, open_h5  # noqa: E402

PROVENANCE = ["git_revision", "build", "created", "host", "inputs", "config_text", "config_path",
              "calibration_key", "calibration_source", "kernels", "threads", "command", "source",
              "source_desc"]  # the inputs named with their checksums, the revision, the machine


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True)) and a.tobytes() == b.tobytes() or \
            bool(np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)]))
    return a.tobytes() == b.tobytes() if a.dtype.kind not in "OSU" else bool(np.all(a == b))


def compare_file(pa, pb, ignore, out):
    with h5py.File(pa, "r") as fa, h5py.File(pb, "r") as fb:
        names_a, names_b = [], []
        fa.visit(names_a.append)
        fb.visit(names_b.append)
        for n in sorted(set(names_a) ^ set(names_b)):
            out.append(f"{pa}: {n} only in {'A' if n in names_a else 'B'}")
        for n in sorted(set(names_a) & set(names_b)):
            oa, ob = fa[n], fb[n]
            if isinstance(oa, h5py.Dataset) != isinstance(ob, h5py.Dataset):
                out.append(f"{pa}: {n} is a dataset in one file only")
                continue
            if isinstance(oa, h5py.Dataset) and not same(oa[()], ob[()]):
                out.append(f"{pa}: dataset {n} differs")
            compare_attrs(pa, n, oa.attrs, ob.attrs, ignore, out)
        compare_attrs(pa, "/", fa.attrs, fb.attrs, ignore, out)


def compare_attrs(pa, where, aa, ab, ignore, out):
    for k in sorted(set(aa.keys()) | set(ab.keys())):
        if k in ignore:
            continue
        if k not in aa or k not in ab:
            out.append(f"{pa}: {where} attribute {k} only in {'A' if k in aa else 'B'}")
        elif not same(aa[k], ab[k]):
            out.append(f"{pa}: {where} attribute {k} differs")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--ignore-attr", nargs="*", default=[], help="more attributes to ignore")
    ap.add_argument("--skip", nargs="*", default=[], help="relative paths (globs) to leave out")
    args = ap.parse_args()
    ignore = set(PROVENANCE) | set(args.ignore_attr)
    pairs = []
    if os.path.isdir(args.a):
        for root, _, files in os.walk(args.a):
            for f in files:
                if f.endswith(".h5"):
                    rel = os.path.relpath(os.path.join(root, f), args.a)
                    if not any(fnmatch.fnmatch(rel, g) for g in args.skip):
                        pairs.append((os.path.join(args.a, rel), os.path.join(args.b, rel)))
    else:
        pairs.append((args.a, args.b))
    if not os.path.exists(args.a):
        die("%s: no such file or directory" % args.a)
    for pa, pb in pairs:  # every file opened before any comparison
        for p in (pa, pb):
            if os.path.exists(p):
                open_h5(p, what="file").close()
    out = []
    for pa, pb in sorted(pairs):
        if not os.path.exists(pb):
            out.append(f"{pb}: missing")
            continue
        compare_file(pa, pb, ignore, out)
    print("\n".join(out) if out else f"{len(pairs)} files equal dataset for dataset")
    sys.exit(1 if out else 0)


if __name__ == "__main__":
    main()
