#!/usr/bin/env python3
"""Recall by key or by recency: a recall run's exact match per distance bucket, split by how many
other records are defined between a record's definition and its query.

A model that finds a value by its key answers alike whether other records were defined in
between or not; one that answers with the value it wrote last is right while no other record
intervenes and fails once one does. Distance and intervening records go together in the held-out
documents (a record queried 2 KiB on has usually seen a few others defined), so recall falling
with distance alone does not tell the two apart; this table does.

Reads the recall driver's HDF5 (`stepq run` of an experiment "recall", analysis/recall.c):
documents, buckets, prefill, record_document, record_distance, record_length, record_position
(the answer's first byte after the boundary) and exact (column 0 native, then the formats). The definitions
between are counted on the documents' bytes (recall.defined_between).

Usage: python tools/lm/recency.py RESULT.h5 [--format NAME]
Prints per bucket, for native (and the format): exact match with 0, 1-2, 3-7, 8-15 and 16 or more records
defined between (share, 95% interval over records by Student's t, and the count).
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import recall  # noqa: E402
from recall_metrics import BETWEEN, mean_ci95  # noqa: E402
from toolcheck import die, open_h5, readable_file  # noqa: E402

NEEDS = ("documents", "formats", "buckets", "record_document", "record_distance", "record_length",
         "record_position", "exact")


def group_of(n):
    """the index in recall_metrics.BETWEEN (0, 1-2, 3-7, 8-15, 16 or more) of n records defined between"""
    return next(i for i, (_, lo, hi) in enumerate(BETWEEN) if lo <= n <= hi)


def table(h5path, fmt=None):
    """{column name: [[(share, ci95, n) per group] per bucket]}, with the buckets"""
    with open_h5(h5path, NEEDS, "recall run", attrs=("prefill",)) as f:
        try:
            docs = [d.decode() if isinstance(d, bytes) else d for d in f["documents"][:]]
            formats = [x.decode() if isinstance(x, bytes) else x for x in f["formats"][:]]
            buckets = f["buckets"][:].tolist()
            prefill = int(f.attrs["prefill"])
            rdoc, dist, length = f["record_document"][:], f["record_distance"][:], f["record_length"][:]
            start = f["record_position"][:] + prefill
            exact = f["exact"][:]
        except OSError as e:
            die("recall run %s: cannot read it, truncated? (%s)" % (h5path, str(e).splitlines()[0]))
    cols = {"native": 0}
    if fmt is not None:
        if fmt not in formats:
            die("%s has no format %r (it has %s)" % (h5path, fmt, ", ".join(formats)))
        cols[fmt] = 1 + formats.index(fmt)
    if not (len(rdoc) == len(dist) == len(length) == len(start) == exact.shape[0]) or \
            (len(rdoc) and (rdoc.min() < 0 or rdoc.max() >= len(docs))) or exact.ndim != 2 or \
            exact.shape[1] != 1 + len(formats):
        die("recall run %s: its record datasets disagree in length or with its documents and formats" % h5path)
    for path in {docs[i] for i in set(rdoc.tolist())}:
        readable_file(path if os.path.isabs(path) else os.path.join(REPO, path), "recall run %s: document" % h5path)
    texts, grp = {}, []
    for i in range(len(start)):
        path = docs[rdoc[i]]
        if path not in texts:
            with open(path if os.path.isabs(path) else os.path.join(REPO, path), "rb") as fh:
                texts[path] = fh.read()
        grp.append(group_of(recall.defined_between(texts[path], int(start[i] - dist[i]), int(length[i]),
                                                   int(start[i]))))
    grp = np.array(grp)
    out = {}
    for name, c in cols.items():
        rows = []
        for lo, hi in buckets:
            inb = (dist >= lo) & (dist < hi)
            cells = []
            for g in range(len(BETWEEN)):
                x = exact[inb & (grp == g), c].astype(float).tolist()
                cells.append((*mean_ci95(x), len(x)))
            rows.append(cells)
        out[name] = rows
    return out, buckets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("result", help="a recall run's HDF5 (results/recall/gdn.h5, say)")
    ap.add_argument("--format", default=None, help="a format of the run to show beside native")
    args = ap.parse_args()
    out, buckets = table(args.result, args.format)
    print("%s: exact match by records defined between the definition and the query "
          "(share +- 95%% interval over records, count)" % args.result)
    for name, rows in out.items():
        print("\n%s" % name)
        print("distance      " + "".join("%-22s" % ("%s between" % g[0]) for g in BETWEEN))
        for (lo, hi), cells in zip(buckets, rows):
            print("%5d-%-5d  " % (lo, hi) + "".join(
                "%-22s" % ("-" if n == 0 else "%.2f +- %.2f (%d)" % (m, c if c == c else 0.0, n))
                for m, c, n in cells))


if __name__ == "__main__":
    main()
