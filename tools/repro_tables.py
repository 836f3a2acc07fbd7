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

`--table frontier` prints the frontier configs' table (results/frontier/{gdn,kda}.h5): the formats on
the frontier on recall documents or on prose and the paper's formats, each with its actual bits, step
ratio, extra NLL over the window (95% interval over documents), its place (on the frontier, or below
the frontier format that dominates it with the least damage) and its exact answers relative to native.

`--table verdicts` prints instead the numbers the verdict rows and the bullets beside the tables
quote, model by model: extra NLL per bin and over the window for every format (the nll and ablation
rows), results/halflife/lm_recall_{gdn,kda}.h5's Spearman and quarter shares,
results/selfcorrect/recall_{gdn,kda}.h5's ratios, and the octile sweep's Spearman and extra NLL
per octile (results/nll/octile_recall_{gdn,kda}.h5).

Every file a table reads is opened and checked first (tools/lm/toolcheck.py: one line naming the
file and what it lacks, exit status 2). The columns are labelled by the bins the files hold (the
nll driver's `bin` and `decode`), and results of `stepq run --quick` (their config says so) are
named as quick runs before the tables.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lm"))
from toolcheck import die, open_h5  # noqa: E402

NLL = ("formats", "extra_mean", "extra_ci95", "extra_window", "bpb_native", "decode_step")
# the datasets each file's readers below take, by the file's name pattern
NEEDS = {
    "nll/recall_%s.h5": (NLL, ("bin", "decode")),
    "nll/recall_%s_prose.h5": (NLL, ("bin", "decode")),
    "recall/%s.h5": (("formats", "buckets", "positions", "record_position", "n_records", "exact_mean",
                      "exact_ci95", "extra_nll_mean", "extra_nll_ci95", "extra_nll_pos_mean",
                      "extra_nll_pos_ci95"), ()),
    "halflife/lm_recall_%s.h5": (("spearman_acc", "spearman_acc_over_d", "spearman_persistence",
                                  "top_quarter_share_acc", "top_quarter_share_acc_over_d",
                                  "top_quarter_share_persistence", "d_ratio_long_over_short"), ()),
    "selfcorrect/recall_%s.h5": (("windows", "formats", "linear/ratio_pooled_mean", "linear/ratio_pooled_ci95",
                                  "linear/ratio_quartile"), ()),
    "nll/octile_recall_%s.h5": (("octile_orders", "octile_spearman", "octile_extra_mean"), ()),
    "frontier/%s.h5": (("formats", "bits", "step_ratio", "window_recall_mean", "window_recall_ci95",
                        "window_prose_mean", "window_prose_ci95", "pareto_recall", "pareto_prose",
                        "exact_delta_mean", "exact_delta_ci95", "distance_ranges"), ()),
}
TABLES = {"nll": ["nll/recall_%s.h5"], "prose": ["nll/recall_%s_prose.h5"], "recall": ["recall/%s.h5"],
          "verdicts": ["nll/recall_%s.h5", "nll/recall_%s_prose.h5", "halflife/lm_recall_%s.h5",
                       "selfcorrect/recall_%s.h5", "nll/octile_recall_%s.h5"],
          "frontier": ["frontier/%s.h5"]}
# the formats the paper names, placed against the frontier by --table frontier
PAPER = ["int8", "int6", "int4", "dsq6", "dsq4", "space6", "space4", "time6", "time4", "stepquant6", "stepquant4"]
_open = {}  # path -> the open file, checked once

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


def is_quick(h):
    """whether a result was written by `stepq run --quick` (cfg_load notes it in the stored config)"""
    cfg = h.attrs.get("config", b"")
    cfg = cfg.decode(errors="replace") if isinstance(cfg, bytes) else str(cfg)
    return "run with --quick" in cfg


def open_one(results, pattern, model):
    """the checked, open file of pattern (a key of NEEDS) for model"""
    path = os.path.join(results, pattern % model)
    if path not in _open:
        if not os.path.exists(path):
            die("%s: no such file (run its config first)" % path)
        needs, attrs = NEEDS[pattern]
        _open[path] = open_h5(path, needs, "result", attrs)
    return _open[path]


def open_pair(results, pattern):
    f = {model: open_one(results, pattern, model) for model in ("gdn", "kda")}
    if "formats" in NEEDS[pattern][0] and sorted(names(f["gdn"]["formats"])) != sorted(names(f["kda"]["formats"])):
        die("%s and %s hold different formats (%s | %s): give results of the same configs (both quick or both full)"
            % (f["gdn"].filename, f["kda"].filename, ", ".join(names(f["gdn"]["formats"])),
               ", ".join(names(f["kda"]["formats"]))))
    return f


def bins(h):
    """(steps in the first bin, steps in the last bin) of an nll driver's output"""
    ds, decode = h["decode_step"][()], int(h.attrs["decode"])
    return int(min(int(h.attrs["bin"]), decode)), int(decode - ds[-1])


def check_inputs(results, tables):
    """open and check every file the tables read before printing any; name the quick runs"""
    quick = []
    for t in tables:
        for pattern in TABLES[t]:
            for model in ("gdn", "kda"):
                h = open_one(results, pattern, model)
                if pattern in ("nll/recall_%s.h5", "nll/recall_%s_prose.h5") and len(h["decode_step"]) < 1:
                    die("%s: no bins" % h.filename)
                if is_quick(h) and h.filename not in quick:
                    quick.append(h.filename)
        if t != "verdicts":
            for pattern in TABLES[t]:
                open_pair(results, pattern)
    if quick:
        print("NOTE: quick runs (`stepq run --quick`: fewer documents, shorter decodes and bins, fewer formats; "
              "not the paper's numbers): %s\n" % ", ".join(quick))


def nll_recall(results):
    f = open_pair(results, "nll/recall_%s.h5")
    fmts = names(f["gdn"]["formats"])
    heads = []
    for model in ("gdn", "kda"):
        first, last = bins(f[model])
        heads += ["%s first %d" % (model.upper(), first), "%s last %d" % (model.upper(), last),
                  "%s whole window" % model.upper()]
    print("| format | %s |" % " | ".join(heads))
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


def placed(h, kind, j, fmts):
    """'frontier', or the frontier format that dominates format j with the least damage"""
    bits, dmg, on = h["bits"][()], h["window_%s_mean" % kind][()], h["pareto_" + kind][()]
    if on[j]:
        return "**frontier**"
    dom = [k for k in range(len(fmts)) if on[k] and bits[k] <= bits[j] and dmg[k] <= dmg[j]]
    k = min(dom, key=lambda k: dmg[k]) if dom else None
    return "below %s" % fmts[k] if k is not None else "-"


def frontier(results):
    """per model: the formats on either frontier and the paper's, each placed against it"""
    for model in ("gdn", "kda"):
        h = open_one(results, "frontier/%s.h5", model)
        fmts = names(h["formats"])
        rows = [j for j, f in enumerate(fmts) if h["pareto_recall"][j] or h["pareto_prose"][j] or f in PAPER]
        rows.sort(key=lambda j: (fmts[j] not in PAPER and 1, -h["bits"][j]))
        rng = " / ".join("%d-%d" % (lo // 1024, hi // 1024) for lo, hi in h["distance_ranges"][()])
        print("| %s | bits | step / fp32 | recall documents: extra NLL per byte | placed | prose: extra NLL per "
              "byte | placed | exact answers minus native's at %s KiB |" % (model.upper(), rng))
        print("|---" * 8 + "|")
        for j in rows:
            ex = " / ".join(pm(m, c, 2) for m, c in zip(h["exact_delta_mean"][j], h["exact_delta_ci95"][j]))
            print("| %s | %.3f | %.2f | %s | %s | %s | %s | %s |" % (
                fmts[j], h["bits"][j], h["step_ratio"][j], pm(h["window_recall_mean"][j], h["window_recall_ci95"][j], 4),
                placed(h, "recall", j, fmts), pm(h["window_prose_mean"][j], h["window_prose_ci95"][j], 4),
                placed(h, "prose", j, fmts), ex))
        print()


def verdicts(results):
    """the numbers the verdict rows and bullets quote, model by model, from the same files"""
    for model in ("gdn", "kda"):
        up = model.upper()
        for what, pattern in (("recall documents", "nll/recall_%s.h5"), ("prose", "nll/recall_%s_prose.h5")):
            h = open_one(results, pattern, model)
            ds = h["decode_step"][()]
            print("%s extra NLL on %s (nats per byte; bins of %d decode steps from %d, the last of %d; whole window "
                  "+- 95%% t-interval over documents | mean per bin | last bin's 95%% interval)%s:"
                  % (up, what, bins(h)[0], ds[0], bins(h)[1], " [quick run]" if is_quick(h) else ""))
            for j, fmt in enumerate(names(h["formats"])):
                m, c = h["extra_mean"][j], h["extra_ci95"][j]
                print("  %-13s %s | %s | %.4f" % (fmt, pm(*t_interval(h["extra_window"][:, j]), 4),
                                                  " ".join("%.4f" % x for x in m), c[-1]))
        h = open_one(results, "halflife/lm_recall_%s.h5", model)
        print("%s halflife: %s" % (up, ", ".join("%s %.4g" % (k, h[k][0]) for k in (
            "spearman_acc", "spearman_acc_over_d", "spearman_persistence", "top_quarter_share_acc",
            "top_quarter_share_acc_over_d", "top_quarter_share_persistence", "d_ratio_long_over_short"))))
        h = open_one(results, "selfcorrect/recall_%s.h5", model)
        w = h["windows"][()]
        for j, fmt in enumerate(names(h["formats"])):
            m, c = h["linear/ratio_pooled_mean"][j, -1], h["linear/ratio_pooled_ci95"][j, -1]
            print("%s selfcorrect %s, linear, window %d: pooled %s, by half-life quartile of seed 0 (shortest "
                  "first) %s" % (up, fmt, w[-1], "%.2f (one seed)" % m if np.isnan(c) else pm(m, c, 2),
                                 " ".join("%.2f" % x for x in h["linear/ratio_quartile"][0, j, :, -1])))
        h = open_one(results, "nll/octile_recall_%s.h5", model)
        for k, order in enumerate(names(h["octile_orders"])):
            print("%s octile by %s: Spearman (octile against extra NLL) %.2f; extra NLL per octile (1e-3 nats "
                  "per byte, lowest first) %s" % (up, order, h["octile_spearman"][k],
                                                  " ".join("%.2f" % (1e3 * v) for v in h["octile_extra_mean"][k])))
        print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results", help="the results folder (default: results)")
    ap.add_argument("--table", choices=["nll", "prose", "recall", "verdicts", "frontier", "all"], default="all",
                    help="which to print; verdicts: the numbers the verdict rows and bullets quote "
                         "(not a table; not in all); frontier: the frontier configs' formats on their frontier "
                         "and the paper's placed against it (not in all)")
    a = ap.parse_args()
    if not os.path.isdir(a.results):
        die("--results %s: no such directory" % a.results)
    tables = ["nll", "prose", "recall"] if a.table == "all" else [a.table]
    check_inputs(a.results, tables)
    try:
        if a.table in ("verdicts", "frontier"):
            (verdicts if a.table == "verdicts" else frontier)(a.results)
            return
        for name, fn in (("nll", nll_recall), ("prose", nll_prose), ("recall", recall)):
            if a.table in (name, "all"):
                fn(a.results)
                print()
    except OSError as e:  # a file whose header opened but whose data is cut short
        die("%s: cannot read it, truncated? (%s)" % (a.results, str(e).splitlines()[0]))


if __name__ == "__main__":
    main()
