#!/usr/bin/env python3
"""paper_repro.md from the results: collect the numbers it quotes, render it from its template.

    python3 tools/repro_tables.py collect [--results results ...] [--out paper_repro.json]
                                          [--allow-quick] [--figures DIR] [--update JSON [--drop FILE ...]]
    python3 tools/repro_tables.py render paper_repro.json [--out paper_repro.md]
    python3 tools/repro_tables.py check [--results DIR ...] [--quick DIR ...] [--self-test]

collect reads the drivers' HDF5 files of a full run (`stepq run experiments/all.cfg`; FILES below
names each beside the config that writes it), renders the document once and writes to one JSON
file the numbers that rendering looked up: each number with its file and dataset, each file with
the stepq revision and config checksum its driver recorded. It copies each mechanism's figure
(the PNG a driver writes beside its HDF5) to docs/figures/. A file that is not there is recorded
as not run, and the document says so where its numbers would be. Results of `stepq run --quick`
(their config says so) are refused unless --allow-quick (then figures are copied only where
--figures says). Of several --results folders, each file is read from the first that holds it.
With --update paper_repro.json, a partial rerun: the files the results lack keep that document's
numbers, provenance (each file's revision) and figures, but those --drop names, which become not run.

render fills tools/paper_repro.md.in's placeholders from that JSON (python3's standard library
alone): `{{pm KEY D}}` a mean +- its 95% interval with D decimals ("3s": 3 significant digits,
"2g": printf's %g), `{{v KEY D}}` the value alone, `{{pct KEY D}}` a share in percent,
`{{table NAME}}` a table of TABLES, `{{figure NAME}}` a figure's link, `{{cell CLAIM SUBJECT}}` and
`{{verdict CLAIM}}` the verdict table's cells, decided by the rules of CLAIMS, never by hand.

check tests that paper_repro.md is exactly what render prints from paper_repro.json and keeps
the document's rules (under 400 lines, no table cell over 400 characters, every linked figure
present); with --results, that collect on those results gives paper_repro.json (it names every
number that differs); with --quick, that collect and render run on quick results.

Every input is checked before any work; a refusal is one line naming the file or option, exit
status 2 (tools/lm/toolcheck.py). Outputs are written to a temporary file and renamed.
"""
import argparse
import difflib
import glob
import importlib.util
import json
import math
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lm"))
from toolcheck import die  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(REPO, "tools", "paper_repro.md.in")
MAX_LINES, MAX_CELL = 400, 400

# ---------------------------------------------------------------------------------------------
# What is read: every result file the document quotes, by its path under results/, and the
# config that writes it (its `output`)

FILES = {
    "quickstart/quickstart": "quickstart", "memory/memory": "memory",
    "inputstats/gdn": "inputstats_gdn", "inputstats/kda": "inputstats_kda",
    "inputstats/lm_gdn": "inputstats_lm_gdn", "inputstats/lm_kda": "inputstats_lm_kda",
    "propagation/propagation": "propagation", "ablation/gdn": "ablation_gdn", "ablation/kda": "ablation_kda",
    "selfcorrect/gdn": "selfcorrect_gdn", "selfcorrect/kda": "selfcorrect_kda",
    "selfcorrect/recall_gdn": "selfcorrect_recall_gdn", "selfcorrect/recall_kda": "selfcorrect_recall_kda",
    "halflife/gdn": "halflife_gdn", "halflife/kda": "halflife_kda", "halflife/lm_gdn": "halflife_lm_gdn",
    "halflife/lm_kda": "halflife_lm_kda", "halflife/lm_recall_gdn": "halflife_recall_gdn",
    "halflife/lm_recall_kda": "halflife_recall_kda",
    "octile/gdn": "octile_gdn", "octile/kda": "octile_kda", "nll/octile_gdn": "nll_octile_gdn",
    "nll/octile_kda": "nll_octile_kda", "nll/octile_recall_gdn": "nll_octile_recall_gdn",
    "nll/octile_recall_kda": "nll_octile_recall_kda",
    "knobs/gdn": "knobs_gdn", "knobs/kda": "knobs_kda", "robustness/gdn": "robustness_gdn",
    "robustness/kda": "robustness_kda", "regimes/gdn": "regimes_gdn", "regimes/kda": "regimes_kda",
    "nll/gdn": "nll_gdn", "nll/kda": "nll_kda", "nll/gdn_codeplan": "nll_gdn_codeplan",
    "nll/kda_codeplan": "nll_kda_codeplan", "nll/ablation_gdn": "nll_ablation_gdn",
    "nll/ablation_kda": "nll_ablation_kda", "nll/recall_gdn": "nll_recall_gdn", "nll/recall_kda": "nll_recall_kda",
    "nll/recall_gdn_prose": "nll_recall_gdn_prose", "nll/recall_kda_prose": "nll_recall_kda_prose",
    "nll/long_gdn": "nll_long_gdn", "nll/long_kda": "nll_long_kda",
    "frontier/long_gdn_nll_recall": "frontier_long_gdn", "frontier/long_kda_nll_recall": "frontier_long_kda",
    "frontier/long_gdn_recall": "frontier_long_gdn", "frontier/long_kda_recall": "frontier_long_kda",
    "generate/gdn": "generate_gdn", "generate/kda": "generate_kda", "recall/gdn": "recall_gdn",
    "recall/kda": "recall_kda", "frontier/gdn": "frontier_gdn", "frontier/kda": "frontier_kda",
    "calset/gdn_prose": "calset_gdn_prose", "calset/gdn_recall": "calset_gdn_recall", "calset/gdn_mix": "calset_gdn_mix",
    "calset/kda_prose": "calset_kda_prose", "calset/kda_recall": "calset_kda_recall", "calset/kda_mix": "calset_kda_mix",
}
# pairs of plans whose unit rankings are compared (calibration on prose against on C headers)
PLAN_PAIRS = {"nll/plan_gdn_code": ("nll/plan_gdn", "nll_gdn_codeplan"),
              "nll/plan_kda_code": ("nll/plan_kda", "nll_kda_codeplan")}
# the figure of each mechanism, copied to docs/figures/NAME.png
FIGURES = {"propagation": "propagation/propagation", "selfcorrect": "selfcorrect/gdn", "halflife": "halflife/gdn",
           "octile": "octile/gdn", "knobs": "knobs/kda", "robustness": "robustness/kda", "regimes": "regimes/gdn",
           "ablation": "ablation/gdn", "memory": "memory/memory", "nll": "nll/recall_kda", "recall": "recall/gdn",
           "frontier_gdn": "frontier/gdn", "frontier_kda": "frontier/kda", "long_gdn": "nll/long_gdn",
           "long_kda": "nll/long_kda"}

# two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom
T975 = [12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
        2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
        2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
        2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272]


def t_interval(x):
    """mean and 95% half-width of a sample (None with fewer than two)"""
    x = [float(v) for v in x]
    n = len(x)
    mean = sum(x) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in x) / (n - 1))
    return mean, (T975[n - 2] if n - 1 <= len(T975) else 1.960) * sd / math.sqrt(n)


def spearman(a, b):
    """Spearman's coefficient of two samples, ties at their mean rank"""
    def ranks(x):
        order = sorted(range(len(x)), key=lambda i: x[i])
        r, i = [0.0] * len(x), 0
        while i < len(x):
            j = i
            while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0 + 1
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return num / den if den > 0 else float("nan")


# ---------------------------------------------------------------------------------------------
# collect: one reader per driver, each putting numbers under "FILE:NAME"

def names(ds):
    return [v.decode() if isinstance(v, bytes) else str(v) for v in ds[()]]


def attr(h, key, default=""):
    v = h.attrs.get(key, default)
    return v.decode(errors="replace") if isinstance(v, bytes) else v


def is_quick(h):
    """whether a result was written by `stepq run --quick` (cfg_load notes it in the stored config)"""
    return "run with --quick" in str(attr(h, "config"))


class Put:
    """put(name, value, ci, dataset): one number of one file into numbers[FILE:NAME]; put.list(name,
    items, dataset): the names a table's rows or columns take (formats, buckets, regimes), in order"""

    def __init__(self, numbers, lists, fid):
        self.numbers, self.lists, self.fid = numbers, lists, fid

    def list(self, name, items, dataset):
        self.lists["%s:%s" % (self.fid, name)] = {"items": [str(x) for x in items], "dataset": dataset}

    def __call__(self, name, value, ci=None, dataset=""):
        f = lambda x: None if x is None or not math.isfinite(float(x)) else float(x)  # noqa: E731
        self.numbers["%s:%s" % (self.fid, name)] = [f(value), f(ci), dataset]

    def seeds(self, name, x, dataset):
        """the mean and t-interval over seeds of a per-seed sample"""
        m, c = t_interval(x)
        self(name, m, c, "%s (mean over %d seeds, t-interval)" % (dataset, len(x)))


def read_propagation(h, put):
    lv = [round(float(x), 2) for x in h["quantile_levels"][()]]
    q50, q90 = lv.index(0.5), lv.index(0.9)
    ss = "seed_summary/"
    put.list("formats", names(h["formats"]), "formats")
    for j, f in enumerate(names(h["formats"])):
        q = h["err_readout_quantiles"][j]
        put(f + ".bits", h["bits_actual"][j], None, "bits_actual")
        for name, b, k in (("median_first", 0, q50), ("median_last", -1, q50), ("p90_first", 0, q90),
                           ("p90_last", -1, q90)):
            put(f + "." + name, q[b, k], None,
                "err_readout_quantiles[%s, %s bin, q%s]" % (f, name.split("_")[1], lv[k]))
        for s in ("pooled", "median"):
            put(f + "." + s, h[ss + "readout_rel_%s_mean" % s][j], h[ss + "readout_rel_%s_ci95" % s][j],
                ss + "readout_rel_%s_mean, _ci95" % s)
        put(f + ".diverged", h[ss + "diverged_heads"][j], None, ss + "diverged_heads")
    put("p1_residual_max", attr(h, "p1_residual_max"), None, "attribute p1_residual_max")
    put("heads", h["heads/half_life"].shape[0], None, "heads/half_life (count)")
    put("seeds", len(h["seeds"]), None, "seeds (count)")
    put("decode", attr(h, "decode"), None, "attribute decode")


def read_inputstats(h, put):
    for k in ("ridge_row_median", "ridge_col_median", "share_both_above_3x", "omega_p90_p10_median",
              "half_life_min", "half_life_max", "half_life_orders", "key_participation_median"):
        put.seeds(k, h[k][()], k)


def read_selfcorrect(h, put):
    w = [int(x) for x in h["windows"][()]]
    put.list("windows", w, "windows")
    for mode in ("linear", "nonlinear"):
        if mode + "/ratio_pooled_mean" not in h:
            continue
        m, c = h[mode + "/ratio_pooled_mean"][()], h[mode + "/ratio_pooled_ci95"][()]
        q = h[mode + "/ratio_quartile"][()]
        for j, f in enumerate(names(h["formats"])):
            for k, win in enumerate(w):
                put("%s.%s.w%d" % (mode, f, win), m[j, k], c[j, k], mode + "/ratio_pooled_mean, _ci95")
            put("%s.%s.last" % (mode, f), m[j, -1], c[j, -1], mode + "/ratio_pooled_mean, _ci95 (last window)")
            for r in range(4):
                put("%s.%s.quartile%d" % (mode, f, r + 1), sum(q[:, j, r, -1]) / q.shape[0], None,
                    mode + "/ratio_quartile (last window, mean over seeds)")


HALFLIFE = ("spearman_acc", "spearman_acc_over_d", "spearman_persistence", "top_quarter_share_acc",
            "top_quarter_share_acc_over_d", "top_quarter_share_persistence", "d_ratio_long_over_short")


def read_halflife(h, put):
    for k in HALFLIFE:
        put.seeds(k, h[k][()], k)
    put("units", h["units/half_life"].shape[1], None, "units/half_life (count)")


def read_octile(h, put):
    """the synthetic octile driver's file"""
    orders = names(h["orders"])
    for k, o in enumerate(orders):
        put.seeds(o + ".spearman", h["spearman"][:, k], "spearman[:, %s]" % o)
        put.seeds(o + ".top_over_bottom", h["top_over_bottom"][:, k], "top_over_bottom[:, %s]" % o)
        for i in range(8):
            put("%s.o%d" % (o, i + 1), h["rel_pooled_mean"][k, i], h["rel_pooled_ci95"][k, i], "rel_pooled_mean, _ci95")


def read_knobs(h, put):
    fmts = names(h["formats"])
    for knob in ("gamma", "rho", "horizon", "pivots", "refits"):
        if knob + "/values" not in h:
            continue
        vals = h[knob + "/values"][()]
        put.list(knob, ["%g" % v for v in vals], knob + "/values")
        put(knob + ".paper", h[knob].attrs.get("paper"), None, "attribute %s/paper" % knob)
        for i, v in enumerate(vals):
            for j, f in enumerate(fmts):
                put("%s.%d.%s" % (knob, i, f), h[knob + "/pooled_mean"][i, j], h[knob + "/pooled_ci95"][i, j],
                    knob + "/pooled_mean, _ci95")


def read_robustness(h, put):
    n = len(h["regimes"])
    for k in ("lifetime", "measured", "readout", "omega"):
        s = h["spearman_" + k][()]
        pairs = [s[i, j] for i in range(n) for j in range(i + 1, n)]
        put(k + ".min", min(pairs), None, "spearman_%s (min over regime pairs)" % k)
        put(k + ".max", max(pairs), None, "spearman_%s (max over regime pairs)" % k)
    cm = h["cross_mean"][()]  # (plan regime, stream regime, format)
    for j, f in enumerate(names(h["formats"])):
        worst = max(max(cm[:, s, j]) / min(cm[:, s, j]) - 1 for s in range(n))
        put(f + ".spread", worst, None, "cross_mean (worst plan over best plan on a regime's streams, - 1)")


def read_regimes(h, put):
    ins, hl, fmts = names(h["inputstats_names"]), names(h["halflife_names"]), names(h["formats"])
    put.list("regimes", names(h["regimes"]), "regimes")
    for r, reg in enumerate(names(h["regimes"])):
        for k in ("key_participation_median", "ridge_row_median", "ridge_col_median"):
            put("%d.%s" % (r, k), h["inputstats_mean"][r, ins.index(k)], None, "inputstats_mean")
        for k in ("spearman_acc", "spearman_acc_over_d", "top_quarter_share_acc", "top_quarter_share_acc_over_d"):
            put("%d.%s" % (r, k), h["halflife_mean"][r, hl.index(k)], None, "halflife_mean")
        for j, f in enumerate(fmts):
            put("%d.%s" % (r, f), h["ratio_mean"][r, j], h["ratio_ci95"][r, j], "ratio_mean, _ci95 (over INT6)")


def read_memory(h, put):
    req = list(h["requests"][()])
    for shape in ("gdn-qwen-like", "kda-kimi-like"):
        for j, f in enumerate(names(h["formats"])):
            for k in ("crossing", "bits", "request_mib"):
                put("%s.%s.%s" % (shape, f, k), h["%s/%s" % (shape, k)][j], None, "%s/%s" % (shape, k))
            for n in (64, 512):
                put("%s.%s.pool%d" % (shape, f, n), h[shape + "/pool_gib"][j, req.index(n)], None,
                    "%s/pool_gib at %d requests" % (shape, n))


def read_nll(h, put):
    put.list("formats", names(h["formats"]), "formats")
    for j, f in enumerate(names(h["formats"])):
        m, c = h["extra_mean"][j], h["extra_ci95"][j]
        put(f + ".first", m[0], c[0], "extra_mean, extra_ci95 (first bin)")
        put(f + ".last", m[-1], c[-1], "extra_mean, extra_ci95 (last bin)")
        mw, cw = t_interval(h["extra_window"][:, j])
        put(f + ".window", mw, cw, "extra_window (mean over documents, t-interval)")
        # bits per byte beside the paired interval of the same extra NLL: the books' own spread
        # (0.1 bits) is not what tells two formats apart on the same books
        put(f + ".bpb", t_interval(h["bpb"][:, j])[0], None if cw is None else cw / math.log(2),
            "bpb (mean over documents), the 95% interval of extra_window in bits")
    put("native.bpb", t_interval(h["bpb_native"][()])[0], None, "bpb_native (mean over documents)")
    ds, decode, b = h["decode_step"][()], int(attr(h, "decode")), int(attr(h, "bin"))
    put("bin_first", min(b, decode), None, "attributes bin, decode")
    put("bin_last", decode - int(ds[-1]), None, "attribute decode, decode_step")
    put("documents", len(h["documents"]), None, "documents (count)")
    # the decode window in quarters (8 KiB each on the 32 KiB documents): each document's mean extra
    # NLL per byte over a quarter's bins, t-interval over documents, and the last quarter minus the
    # second paired by document (does the damage keep rising past the first quarter?); a window of
    # fewer bins than quarters has none
    quarter = [min(4 * int(s) // decode, 3) for s in ds]
    if set(quarter) == {0, 1, 2, 3}:
        put("quarter_steps", decode // 4, None, "attribute decode / 4")
        for j, f in enumerate(names(h["formats"])):
            per_doc = [[sum(v for v, k in zip(e, quarter) if k == q) / quarter.count(q) for q in range(4)]
                       for e in h["extra"][:, j, :]]
            for q in range(4):
                m, c = t_interval([d[q] for d in per_doc])
                put("%s.q%d" % (f, q + 1), m, c, "extra (per document, mean over the quarter's bins; t-interval)")
            m, c = t_interval([d[3] - d[1] for d in per_doc])
            put(f + ".q4_minus_q2", m, c, "extra (last quarter minus the second, paired by document)")
    if "octile_orders" in h:
        for k, o in enumerate(names(h["octile_orders"])):
            put(o + ".spearman", h["octile_spearman"][k], None, "octile_spearman")
            for i in range(8):
                put("%s.o%d" % (o, i + 1), h["octile_extra_mean"][k, i], h["octile_extra_ci95"][k, i],
                    "octile_extra_mean, _ci95")


def read_generate(h, put):
    put.list("formats", names(h["formats"]), "formats")
    for j, f in enumerate(names(h["formats"])):
        for k in ("repeat_rate", "line_mean"):
            put("%s.%s" % (f, k), h[k + "_mean"][j], h[k + "_ci95"][j], k + "_mean, _ci95")


def read_recall(h, put):
    runs = ["native"] + names(h["formats"])
    buckets = ["%d-%d" % (lo, hi) for lo, hi in h["buckets"][()]]
    rp = h["record_position"][()]
    npos = [int(((rp >= lo) & (rp < hi)).sum()) for lo, hi in h["positions"][()]]
    while npos and npos[-1] == 0:  # the open last group when no record reaches it
        npos.pop()
    put.list("runs", runs, "native, then formats")
    put.list("buckets", buckets, "buckets")
    put.list("positions", ["%d-%d" % (lo, hi) for lo, hi in h["positions"][:len(npos)]],
             "positions (those with records)")
    for b in range(len(buckets)):
        put("bucket%d.records" % b, h["n_records"][b], None, "n_records")
    for p in range(len(npos)):
        put("position%d.records" % p, npos[p], None, "record_position (count in the group)")
    for r, run in enumerate(runs):
        for b in range(len(buckets)):
            put("%s.exact%d" % (run, b), h["exact_mean"][r, b], h["exact_ci95"][r, b], "exact_mean, exact_ci95")
        if r == 0:
            for p in range(len(npos)):
                put("native.exactpos%d" % p, h["exact_pos_mean"][0, p], h["exact_pos_ci95"][0, p],
                    "exact_pos_mean, _ci95 (native)")
            continue
        for p in range(len(npos)):
            put("%s.nllpos%d" % (run, p), h["extra_nll_pos_mean"][r - 1, p], h["extra_nll_pos_ci95"][r - 1, p],
                "extra_nll_pos_mean, _ci95")
    # answers kept by decode position, relative to native: each document's exact-match rate over
    # its records in the group minus native's on the same records, t-interval over documents
    exact, doc = h["exact"][()], h["record_document"][()]
    for p, (lo, hi) in enumerate(h["positions"][:len(npos)]):
        groups = [(rp >= lo) & (rp < hi) & (doc == d) for d in sorted(set(doc.tolist()))]
        groups = [g for g in groups if g.any()]
        for r, run in enumerate(runs[1:] if groups else [], 1):  # a group without records has none
            m, c = t_interval([exact[g, r].mean() - exact[g, 0].mean() for g in groups])
            put("%s.exactpos_delta%d" % (run, p), m, c,
                "exact, record_position, record_document (minus native, paired by document; t-interval)")


def read_frontier(h, put):
    fmts = names(h["formats"])
    ranges = ["%d-%d KiB" % (lo // 1024, hi // 1024) for lo, hi in h["distance_ranges"][()]]
    put.list("formats", fmts, "formats")
    put.list("ranges", ranges, "distance_ranges")
    for r in range(len(ranges)):
        put("native.exact%d" % r, h["exact_native_mean"][r], h["exact_native_ci95"][r], "exact_native_mean, _ci95")
    for j, f in enumerate(fmts):
        for k in ("bits", "step_ratio", "serving_ratio", "pareto_recall", "pareto_prose"):
            put("%s.%s" % (f, k), h[k][j], None, k)
        for kind in ("recall", "prose"):
            for k in ("window", "last_bin"):
                put("%s.%s_%s" % (f, k, kind), h["%s_%s_mean" % (k, kind)][j], h["%s_%s_ci95" % (k, kind)][j],
                    "%s_%s_mean, _ci95" % (k, kind))
        for r in range(len(ranges)):
            put("%s.exact_delta%d" % (f, r), h["exact_delta_mean"][j, r], h["exact_delta_ci95"][j, r],
                "exact_delta_mean, _ci95")


def read_plan_pair(a, b, put):
    """Spearman between two plans' unit rankings (lifetime L, measured M, read-out R, omega)"""
    for k, ds in (("lifetime", "lifetime"), ("measured", "measured_lifetime"), ("readout", "readout_lifetime"),
                  ("omega", "omega")):
        put("spearman_" + k, spearman(list(a[ds][()].ravel()), list(b[ds][()].ravel())), None,
            "%s of both plans (Spearman over units)" % ds)


def per_document(recall):
    """each document's mean over its records of the format's answer extra NLL (run 1 minus native)
    and share answered exactly (native, then the format), documents in order"""
    doc, nll, ex = recall["record_document"][()], recall["nll"][()], recall["exact"][()].astype(float)
    ds = sorted(set(doc.tolist()))
    sel = [doc == d for d in ds]
    return ([float((nll[m, 1] - nll[m, 0]).mean()) for m in sel], [float(ex[m, 0].mean()) for m in sel],
            [float(ex[m, 1].mean()) for m in sel])


def plan_widths(plan, table, long_heads):
    """mean width of the long heads' units and of the other heads' (a pivot counted as the budget
    counts it, 8 bits), and the long heads' share of 2-bit units"""
    import numpy as np
    b = plan[table][()].astype(float)
    b[b == 16] = 8
    lh = np.asarray(long_heads, bool)
    return float(b[lh].mean()), float(b[~lh].mean()), float((b[lh] == 2).mean())


def read_hold(paths, put):
    """time4 as calibrated (base) and with the long heads held at 4 bits (held): per document the
    window's extra NLL on recall documents and prose and the answers' extra NLL and exact share;
    the held minus the base paired over documents (the same documents, one native run); the
    plans' widths of the long heads (>= half their units' half-lives at 2048 steps or more)"""
    import numpy as np
    runs = {}
    for v in ("base", "held"):
        nr, npr, rc = (open_result(paths[v + k]) for k in ("_nll_recall", "_nll_prose", "_recall"))
        ans, nat, fmt = per_document(rc)
        runs[v] = {"window_recall": nr["extra_window"][:, 0], "last_recall": nr["extra"][:, 0, -1],
                   "window_prose": npr["extra_window"][:, 0], "answer_nll": ans, "exact": fmt,
                   "exact_delta": np.array(fmt) - np.array(nat)}
        if v == "base":
            put("native.exact", *t_interval(nat), "exact[:, 0]: each document's share (mean over documents)")
            put("documents_recall", len(nr["documents"]), None, "documents (count)")
            put("documents_prose", len(npr["documents"]), None, "documents (count)")
            put("records", len(rc["record_document"]), None, "record_document (count)")
    desc = {"window_recall": "extra_window of _nll_recall.h5", "last_recall": "extra (last bin) of _nll_recall.h5",
            "window_prose": "extra_window of _nll_prose.h5",
            "answer_nll": "nll[:, 1] - nll[:, 0] of _recall.h5, each document's mean",
            "exact": "exact[:, 1] of _recall.h5, each document's share",
            "exact_delta": "exact[:, 1] - exact[:, 0] of _recall.h5, each document's share"}
    for k, d in desc.items():
        for v in ("base", "held"):
            put("%s.%s" % (v, k), *t_interval(runs[v][k]), d + " (mean over documents, t-interval)")
        put("diff.%s" % k, *t_interval(np.asarray(runs["held"][k]) - np.asarray(runs["base"][k])),
            d + ", held minus base paired by document (t-interval)")
    pb, ph = open_result(paths["plan_base"]), open_result(paths["plan_held"])
    hl = pb["half_life"][()]
    lng = 2 * (hl >= 2048).sum(axis=1) >= hl.shape[1]
    put.list("long_heads", ["%d.%d" % (l, h) for l, h, x in zip(pb["heads/layer"][()], pb["heads/head"][()], lng)
                            if x], "heads/layer, heads/head of the long heads (half_life)")
    for v, plan in (("base", pb), ("held", ph)):
        a, o, two = plan_widths(plan, "alloc/time/budget4", lng)
        put(v + ".long_width", a, None, "alloc/time/budget4: mean width of the long heads' units")
        put(v + ".other_width", o, None, "alloc/time/budget4: mean width of the other heads' units")
        put(v + ".long_2bit", two, None, "alloc/time/budget4: the long heads' share of 2-bit units")
        put(v + ".achieved", plan["alloc/time/budget4"].attrs["achieved_bits"], None,
            "alloc/time/budget4 attribute achieved_bits")


# the hold (issue 66 item 3): its files beside the frontier outputs of hold_{gdn,kda}[_base].cfg
HOLD = {"hold/gdn": "hold_gdn", "hold/kda": "hold_kda"}


def hold_paths(roots, fid):
    """the seven files of a model's hold, or None when one is missing"""
    tag = fid.split("/")[1]
    want = {v + k: "hold/%s%s%s" % (tag, "_base" if v == "base" else "", k)
            for v in ("base", "held") for k in ("_nll_recall", "_nll_prose", "_recall")}
    want.update(plan_base="recall/plan_" + tag, plan_held="hold/plan_" + tag)
    got = {k: find(roots, f) for k, f in want.items()}
    return None if None in got.values() else got


# what a plan is calibrated on (issue 66 item 2): the three plans of each model's calset configs
# (prose: the recall configs' plan; recall, mix: calset_<model>_{recall,mix}.cfg's), read side by
# side: which units each gives few bits
CALSET = ("prose", "recall", "mix")
CALSET_PLANS = {"calset/plans_gdn": "calset_gdn_recall", "calset/plans_kda": "calset_kda_recall"}
CALSET_SCHEMES = ("time", "stepquant", "mlife", "rlife")


def calset_plan_paths(roots, fid):
    """the three plans of a model's calibration sets, or None when one is missing"""
    m = fid.split("_")[-1]
    want = {"prose": "recall/plan_" + m, "recall": "calset/plan_%s_recall" % m, "mix": "calset/plan_%s_mix" % m}
    got = {k: find(roots, f) for k, f in want.items()}
    return None if None in got.values() else got


def read_calset_plans(paths, put):
    """per calibration set and calibrated scheme at 4 bits: the mean width of the long heads' units
    (>= half their units' half-lives at 2048 steps or more, by that plan), their share of 2-bit
    units and the other heads' mean width"""
    for c in CALSET:
        plan = open_result(paths[c])
        hl = plan["half_life"][()]
        lng = 2 * (hl >= 2048).sum(axis=1) >= hl.shape[1]
        put.list(c + ".long_heads", ["%d.%d" % (l, h) for l, h, x in
                                     zip(plan["heads/layer"][()], plan["heads/head"][()], lng) if x],
                 "heads/layer, heads/head of the long heads (half_life)")
        for sch in CALSET_SCHEMES:
            t = "alloc/%s/budget4" % sch
            a, o, two = plan_widths(plan, t, lng)
            put("%s.%s4.long_width" % (c, sch), a, None, t + ": mean width of the long heads' units")
            put("%s.%s4.long_2bit" % (c, sch), two, None, t + ": the long heads' share of 2-bit units")
            put("%s.%s4.other_width" % (c, sch), o, None, t + ": mean width of the other heads' units")


READERS = {"propagation": read_propagation, "inputstats": read_inputstats, "selfcorrect": read_selfcorrect,
           "halflife": read_halflife, "octile": read_octile, "knobs": read_knobs, "robustness": read_robustness,
           "regimes": read_regimes, "memory": read_memory, "nll": read_nll, "generate": read_generate,
           "recall": read_recall, "frontier": read_frontier}


def find(roots, fid):
    for r in roots:
        p = os.path.join(r, fid + ".h5")
        if os.path.exists(p):
            return p
    return None


def open_result(path):
    import h5py
    if not os.access(path, os.R_OK):
        die("%s: not readable" % path)
    try:
        return h5py.File(path, "r")
    except OSError as e:
        die("%s: not a readable HDF5 file, truncated? (%s)" % (path, str(e).splitlines()[0]))


def provenance(h, path, config, quick_ok):
    if is_quick(h) and not quick_ok:
        die("%s: a quick run (`stepq run --quick`), not the paper's sizes: give the full run's results, "
            "or --allow-quick" % path)
    inputs = str(attr(h, "inputs"))
    m = re.search(r"experiments/%s\.cfg xxh3=([0-9a-f]+)" % re.escape(config), inputs)
    return {"config": "experiments/%s.cfg" % config, "git_revision": str(attr(h, "git_revision")),
            "config_xxh3": m.group(1) if m else "", "quick": is_quick(h)}


def collect(roots, quick_ok):
    """(files, numbers): every file's provenance (or that it is missing) and every number"""
    files, numbers, lists = {}, {}, {}
    for fid, config in FILES.items():
        path = find(roots, fid)
        if path is None:
            files[fid + ".h5"] = {"config": "experiments/%s.cfg" % config, "missing": True}
            continue
        h = open_result(path)
        exp = str(attr(h, "experiment"))
        if exp not in READERS:
            die("%s: the output of experiment %r, not a driver this document reads" % (path, exp))
        files[fid + ".h5"] = provenance(h, path, config, quick_ok)
        try:
            READERS[exp](h, Put(numbers, lists, fid))
        except (KeyError, ValueError, IndexError) as e:
            die("%s: not the layout of a %s result (%s)" % (path, exp, e))
        except OSError as e:
            die("%s: cannot read it, truncated? (%s)" % (path, str(e).splitlines()[0]))
    for fid, (other, config) in PLAN_PAIRS.items():
        pa, pb = find(roots, other), find(roots, fid)
        if pa is None or pb is None:
            files[fid + ".h5"] = {"config": "experiments/%s.cfg" % config, "missing": True}
            continue
        a, b = open_result(pa), open_result(pb)
        files[fid + ".h5"] = {"config": "experiments/%s.cfg" % config,
                              "calibration_key": str(attr(b, "calibration_key")),
                              "quick": files.get("nll/%s_codeplan.h5" % fid[-9:-5], {}).get("quick", False)}
        read_plan_pair(a, b, Put(numbers, lists, fid))
    for fid, config in CALSET_PLANS.items():
        paths = calset_plan_paths(roots, fid)
        if paths is None:
            files[fid + ".h5"] = {"config": "experiments/%s.cfg" % config, "missing": True}
            continue
        files[fid + ".h5"] = {"config": "experiments/%s.cfg" % config,
                              "calibration_keys": [str(attr(open_result(paths[c]), "calibration_key")) for c in CALSET],
                              "quick": files.get("calset/%s_recall.h5" % fid.split("_")[-1], {}).get("quick", False)}
        try:
            read_calset_plans(paths, Put(numbers, lists, fid))
        except (KeyError, ValueError, IndexError) as e:
            die("%s: not the layout of a plan (%s)" % (paths["recall"], e))
    for fid, config in HOLD.items():
        paths = hold_paths(roots, fid)
        if paths is None:
            files[fid + ".h5"] = {"config": "experiments/%s.cfg" % config, "missing": True}
            continue
        files[fid + ".h5"] = provenance(open_result(paths["held_recall"]), paths["held_recall"], config, quick_ok)
        try:
            read_hold(paths, Put(numbers, lists, fid))
        except (KeyError, ValueError, IndexError) as e:
            die("%s: not the layout of the hold's results (%s)" % (paths["held_recall"], e))
    return files, numbers, lists


def write_atomic(path, data):
    """data (bytes) to path through a temporary file in its folder and a rename"""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".%s." % os.path.basename(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def figure_sources(roots):
    """{name: its PNG under the results} of each mechanism's figure that is there"""
    out = {}
    for name, fid in FIGURES.items():
        for r in roots:
            if os.path.exists(os.path.join(r, fid + ".png")):
                out[name] = os.path.join(r, fid + ".png")
                break
    return out


def copy_figures(sources, figdir):
    """each figure to figdir/NAME.png as the driver wrote it (gnuplot's pngcairo), refused when it
    is not a PNG"""
    for name, src in sources.items():
        with open(src, "rb") as f:
            data = f.read()
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            die("%s: not a PNG file" % src)
        write_atomic(os.path.join(figdir, name + ".png"), data)


def to_json(doc):
    """the collected document as text: one line per number, so that a diff shows which moved"""
    lines = ['{', '"about": %s,' % json.dumps(doc["about"]), '"files": {']
    lines.append(",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v, sort_keys=True))
                            for k, v in sorted(doc["files"].items())))
    lines += ["},", '"figures": %s,' % json.dumps(doc["figures"], sort_keys=True), '"lists": {']
    lines.append(",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v, sort_keys=True))
                            for k, v in sorted(doc["lists"].items())))
    lines += ["},", '"numbers": {']
    lines.append(",\n".join("  %s: %s" % (json.dumps(k), json.dumps(v, sort_keys=True))
                            for k, v in sorted(doc["numbers"].items())))
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def keep_from(base, files, numbers, lists, drop):
    """into files, numbers and lists: base's entries of every file the results lack, but those
    named in drop, which stay not run; the fids kept"""
    kept = {f[:-3] for f, v in base["files"].items()
            if f in files and files[f].get("missing") and not v.get("missing") and f[:-3] not in drop}
    for f in kept:
        files[f + ".h5"] = base["files"][f + ".h5"]
    numbers.update({k: v for k, v in base["numbers"].items() if k.split(":", 1)[0] in kept})
    lists.update({k: v for k, v in base["lists"].items() if k.split(":", 1)[0] in kept})
    return kept


def collect_doc(roots, quick_ok, base=None, drop=()):
    """the collected document: every file's provenance, the figures there, the numbers quoted;
    given base (an earlier collected document), the files the results lack are base's, but those
    named in drop"""
    for r in roots:
        if not os.path.isdir(r):
            die("--results %s: no such directory" % r)
    files, numbers, lists = collect(roots, quick_ok)
    for fid in drop:
        if fid + ".h5" not in files:
            die("--drop %s: not a file paper_repro.md quotes (%s)" % (fid, ", ".join(sorted(f[:-3] for f in files))))
        if not files[fid + ".h5"].get("missing"):
            die("--drop %s: its result is in --results %s; drop names files that did not run" % (fid, " ".join(roots)))
    if all(f.get("missing") for f in files.values()):
        die("--results %s: none of the result files paper_repro.md quotes is there (run experiments/all.cfg)"
            % " ".join(roots))
    figures = {name: FIGURES[name] + ".png" for name in figure_sources(roots)}
    if base is not None:
        kept = keep_from(base, files, numbers, lists, set(drop))
        figures.update({n: f for n, f in base["figures"].items() if n not in figures and f[:-4] in kept})
    doc = {"about": "the numbers paper_repro.md quotes (each [value, 95% half-width, dataset]), by "
                    "tools/repro_tables.py collect; render it with "
                    "`python3 tools/repro_tables.py render paper_repro.json --out paper_repro.md`",
           "files": files, "lists": lists, "numbers": numbers, "figures": figures}
    quoted = Doc(doc)
    render(doc, read_template(), quoted)  # keep only what the document quotes
    doc["numbers"] = {k: v for k, v in numbers.items() if k in quoted.used}
    doc["lists"] = {k: v for k, v in lists.items() if k in quoted.used}
    return doc


# ---------------------------------------------------------------------------------------------
# render: the template's placeholders

SUBJECTS = ("syn_gdn", "syn_kda", "lm_gdn", "lm_kda", "rec_gdn", "rec_kda")
PAPER_MODEL = {"syn_gdn": "qwen", "lm_gdn": "qwen", "rec_gdn": "qwen", "syn_kda": "kimi", "lm_kda": "kimi",
               "rec_kda": "kimi"}
# the paper's ablation (three-task accuracy, higher is better; method 5)
PAPER_ABLATION = {
    ("qwen", 6): {"int": 38.63, "dsq": 75.95, "space": 80.19, "time_nopivot": 67.13, "time": 75.63, "stepquant": 84.51},
    ("qwen", 4): {"int": 3.97, "dsq": 7.64, "space": 73.95, "time_nopivot": 6.17, "time": 12.87, "stepquant": 84.72},
    ("kimi", 6): {"int": 40.97, "dsq": 46.72, "space": 61.00, "time_nopivot": 50.06, "time": 58.91, "stepquant": 63.67},
    ("kimi", 4): {"int": 14.47, "dsq": 13.00, "space": 38.89, "time_nopivot": 24.56, "time": 29.08, "stepquant": 58.87}}
PAPER_SHARE = {"qwen": 52.5, "kimi": 78.8}
# the models trained to remember (data/lm/{gdn,kda}-recall), as the tables name them
RECALL_MODEL = {"gdn": "GDN recall", "kda": "KDA recall"}


class Doc:
    """the collected JSON with its lookups; missing numbers are named, never invented"""

    def __init__(self, doc):
        self.files, self.numbers, self.figures, self.lists = doc["files"], doc["numbers"], doc["figures"], doc["lists"]
        self.quick = sorted(k for k, f in self.files.items() if f.get("quick"))
        self.missing = sorted(k for k, f in self.files.items() if f.get("missing"))
        self.used = set()  # the numbers and lists a rendering looked up: what the document quotes

    def get(self, key):
        """(value, ci95) or None when its file did not run"""
        self.used.add(key)
        n = self.numbers.get(key)
        return None if n is None else (n[0], n[1])

    def need(self, key):
        n = self.get(key)
        if n is None or n[0] is None:
            raise Missing(key)
        return n

    def items(self, key):
        """the names a list holds ([] when its file did not run)"""
        self.used.add(key)
        return self.lists.get(key, {}).get("items", [])

    def has(self, *keys):
        return all(self.get(k) is not None and self.get(k)[0] is not None for k in keys)


class Unknown(Exception):
    """a placeholder the template should not hold"""


class Missing(Exception):
    """a number whose file is missing: its cell says which config would write it"""


def num(x, d, like=None):
    """x with d decimals ("4"), in %g with d digits ("2g"), or with d significant digits ("3s";
    a ci given the value as `like` takes the value's decimals)"""
    if x is None:
        return "nan"
    if d.endswith("g"):
        return "%.*g" % (int(d[:-1]), x)
    if d.endswith("s"):
        ref = like if like is not None else x
        dec = max(0, int(d[:-1]) - 1 - int(math.floor(math.log10(abs(ref))))) if ref else int(d[:-1])
        return "%.*f" % (dec, x)
    return "%.*f" % (int(d), x)


def pm(doc, key, d="4"):
    v, c = doc.need(key)
    return num(v, d) if c is None else "%s +- %s" % (num(v, d, v), num(c, d, v))


def milli(doc, key, d="2"):
    """pm in thousandths"""
    v, c = doc.need(key)
    return num(1e3 * v, d) if c is None else "%s +- %s" % (num(1e3 * v, d), num(1e3 * c, d))


def pct(doc, key, d="1"):
    v, c = doc.need(key)
    return "%s%%" % num(100 * v, d) if c is None else "%s%% +- %s" % (num(100 * v, d), num(100 * c, d))


def not_run(doc, key):
    """what stands where a number is not: the config that would write its file, or that the file
    (a quick run's, with fewer formats or bins) does not hold it"""
    fid = key.split(":")[0] + ".h5"
    f = doc.files.get(fid, {})
    if f and not f.get("missing"):
        return "n/a (not in `%s`)" % fid
    return "not run (`%s`)" % f.get("config", fid)


# ---- the verdicts: one rule per claim, applied to each subject's numbers --------------------

def above_zero(v, c):
    return v > 0 and (c is None or v - c > 0)


def claim_growth(doc, s):
    """INT6's error grows with decode position: on the language models the last bin's extra NLL is
    above the first bin's and its interval excludes zero; on the presets the 90th percentile of the
    read-out error grows by more than 10% from the first bin to the last"""
    if s.startswith("syn"):
        f = "propagation/propagation" if s == "syn_gdn" else "ablation/kda"
        a, b = doc.need(f + ":int6.p90_first")[0], doc.need(f + ":int6.p90_last")[0]
        m0, m1 = doc.need(f + ":int6.median_first")[0], doc.need(f + ":int6.median_last")[0]
        return "p90 %.3f -> %.3f, median %.3f -> %.3f" % (a, b, m0, m1), b > 1.1 * a
    f = {"lm_gdn": "nll/gdn", "lm_kda": "nll/kda", "rec_gdn": "nll/recall_gdn", "rec_kda": "nll/recall_kda"}[s]
    (a, _), (b, cb) = doc.need(f + ":int6.first"), doc.need(f + ":int6.last")
    return "%s -> %s" % (num(a, "4"), pm(doc, f + ":int6.last")), b > a and above_zero(b, cb)


def claim_selfcorrect(doc, s):
    """cutting the delta correction multiplies the accumulated error: the cut/normal ratio at the
    longest window is above 1 beyond its interval, at 6 and at 8 bits, re-quantizing every step
    (the nonlinear run; the linear continuation where a file has no other)"""
    f = {"syn_gdn": "selfcorrect/gdn", "syn_kda": "selfcorrect/kda", "rec_gdn": "selfcorrect/recall_gdn",
         "rec_kda": "selfcorrect/recall_kda"}.get(s)
    if f is None:
        return None
    mode = "nonlinear" if doc.has(f + ":nonlinear.int6.last") else "linear"
    r6, r8 = doc.need("%s:%s.int6.last" % (f, mode)), doc.need("%s:%s.int8.last" % (f, mode))
    ok = all(v - (c or 0) > 1 for v, c in (r6, r8))
    return "INT6 %s, INT8 %s (%s)" % (pm(doc, "%s:%s.int6.last" % (f, mode), "2"),
                                      pm(doc, "%s:%s.int8.last" % (f, mode), "2"), mode), ok


HALFLIFE_FILE = {"syn_gdn": "halflife/gdn", "syn_kda": "halflife/kda", "lm_gdn": "halflife/lm_gdn",
                 "lm_kda": "halflife/lm_kda", "rec_gdn": "halflife/lm_recall_gdn", "rec_kda": "halflife/lm_recall_kda"}


def claim_spearman(doc, s):
    """long-lived units accumulate more error: Spearman(half-life, INT6 error) of 0.5 or more
    (the paper: about 0.80); the control, error over the one-shot distortion d, beside it"""
    f = HALFLIFE_FILE[s]
    v, _ = doc.need(f + ":spearman_acc")
    d = doc.need(f + ":spearman_acc_over_d")[0]
    return "%s (error / d %s)" % (pm(doc, f + ":spearman_acc", "3"), num(d, "3")), v >= 0.5


def claim_share(doc, s):
    """the longest-lived quarter carries the error: its share within 10 points of the paper's
    (52.5% Qwen, 78.8% Kimi) or above; partly when above an even 25% but below that"""
    f = HALFLIFE_FILE[s]
    v, _ = doc.need(f + ":top_quarter_share_acc")
    d = doc.need(f + ":top_quarter_share_acc_over_d")[0]
    text = "%s (error / d %s%%)" % (pct(doc, f + ":top_quarter_share_acc"), num(100 * d, "1"))
    paper = PAPER_SHARE[PAPER_MODEL[s]]
    return text, True if 100 * v >= paper - 10 else ("partly" if v > 0.25 else False)


def claim_octile(doc, s):
    """a higher omega octile at INT4 costs more: Spearman(octile, cost) by omega of 0.8 or more;
    partly when positive; the magnitude order beside it as the control"""
    f = {"syn_gdn": "octile/gdn", "syn_kda": "octile/kda", "lm_gdn": "nll/octile_gdn", "lm_kda": "nll/octile_kda",
         "rec_gdn": "nll/octile_recall_gdn", "rec_kda": "nll/octile_recall_kda"}[s]
    v, _ = doc.need(f + ":omega.spearman")
    return ("omega %s, magnitude %s" % (pm(doc, f + ":omega.spearman", "2"), pm(doc, f + ":magnitude.spearman", "2")),
            True if v >= 0.8 else ("partly" if v > 0 else False))


def claim_rankings(doc, s):
    """plans rank the units alike across corpora: the lifetime rankings' Spearman between plans
    from different streams (the presets' three regimes; the models' prose and C headers) 0.95 or
    more"""
    f = {"syn_gdn": "robustness/gdn", "syn_kda": "robustness/kda", "lm_gdn": "nll/plan_gdn_code",
         "lm_kda": "nll/plan_kda_code"}.get(s)
    if f is None:
        return None
    if s.startswith("syn"):
        v = doc.need(f + ":lifetime.min")[0]
        return "L %s, omega %s (least of 3 pairs)" % (num(v, "3"), num(doc.need(f + ":omega.min")[0], "3")), v >= 0.95
    v = doc.need(f + ":spearman_lifetime")[0]
    return "L %s, omega %s" % (num(v, "3"), num(doc.need(f + ":spearman_omega")[0], "3")), v >= 0.95


def claim_length(doc, s):
    """outputs grow longer under INT4: INT4's mean line length above FP32's, the two intervals
    apart"""
    f = {"lm_gdn": "generate/gdn", "lm_kda": "generate/kda"}.get(s)
    if f is None:
        return None
    (a, ca), (b, cb) = doc.need(f + ":fp32.line_mean"), doc.need(f + ":int4.line_mean")
    return ("line length FP32 %s, INT4 %s bytes" % (pm(doc, f + ":fp32.line_mean", "0"),
                                                    pm(doc, f + ":int4.line_mean", "0")),
            b - (cb or 0) > a + (ca or 0))


ABLATION = {"syn_gdn": ("ablation/gdn", "pooled", "%s%d"), "syn_kda": ("ablation/kda", "pooled", "%s%d"),
            "lm_gdn": ("nll/ablation_gdn", "bpb", "%s%d"), "lm_kda": ("nll/ablation_kda", "bpb", "%s%d"),
            "rec_gdn": ("nll/recall_gdn", "window", "%s%d"), "rec_kda": ("nll/recall_kda", "window", "%s%d")}
AB_NAMES = {"int": "uniform", "dsq": "DSQ", "space": "space", "time": "time", "stepquant": "STEPQuant"}


def claim_ablation(doc, s, bits):
    """the paper's ablation order: of the 10 pairs of uniform, DSQ, space only, time only and
    STEPQuant, those whose 95% intervals are apart are decided, and stepq orders each as the paper
    does (lower error or NLL where the paper has higher accuracy) or against it; reproduced with
    STEPQuant apart below every other and 8 pairs as the paper's, partly with one of the two or 5
    pairs, undecided with fewer than 5 pairs decided"""
    f, stat, pat = ABLATION[s]
    cost = {k: doc.need("%s:%s.%s" % (f, pat % (k, bits), stat)) for k in AB_NAMES}
    paper = PAPER_ABLATION[(PAPER_MODEL[s], bits)]
    ks = list(AB_NAMES)
    apart = lambda a, b: abs(cost[a][0] - cost[b][0]) > (cost[a][1] or 0) + (cost[b][1] or 0)  # noqa: E731
    decided = [(a, b) for i, a in enumerate(ks) for b in ks[i + 1:] if apart(a, b)]
    agree = sum((cost[a][0] < cost[b][0]) == (paper[a] > paper[b]) for a, b in decided)
    first = all(apart("stepquant", k) and cost["stepquant"][0] < cost[k][0] for k in ks if k != "stepquant")
    order = " < ".join(AB_NAMES[k] for k in sorted(ks, key=lambda k: cost[k][0]))
    text = "%s; %d of 10 pairs as the paper's, %d against" % (order, agree, len(decided) - agree)
    if len(decided) < 5:
        return text, "undecided"
    return text, True if first and agree >= 8 else ("partly" if first or agree >= 5 else False)


def claim_pool(doc, s):
    """the FP32 state pool passes the weights at about 70 requests (Qwen3-Next): the same count"""
    if s != "syn_gdn":
        return None
    v = doc.need("memory/memory:gdn-qwen-like.fp32.crossing")[0]
    return "%d requests (STEPQuant@6 %d)" % (v, doc.need("memory/memory:gdn-qwen-like.stepquant6.crossing")[0]), v == 70


def claim_accuracy(doc, s):
    """STEPQuant@6 keeps the native model's accuracy where INT4 loses it: exact match of the
    recall records in the second-longest distance bucket (2-4 KiB), STEPQuant@6's mean within
    native's 95% interval and INT4's below it; partly when STEPQuant@6 keeps it and INT4 too"""
    f = {"rec_gdn": "recall/gdn", "rec_kda": "recall/kda"}.get(s)
    if f is None:
        return None
    buckets = doc.items(f + ":buckets")
    if len(buckets) < 2:
        raise Missing(f + ":buckets")
    b = len(buckets) - 2
    (n, cn), sq, i4 = doc.need("%s:native.exact%d" % (f, b)), doc.need("%s:stepquant6.exact%d" % (f, b))[0], \
        doc.need("%s:int4.exact%d" % (f, b))[0]
    keeps, loses = abs(sq - n) <= (cn or 0), i4 < n - (cn or 0)
    text = "%s: native %s, STEPQuant@6 %s, INT6 %s, INT4 %s" % (
        buckets[b], pm(doc, "%s:native.exact%d" % (f, b), "2"), num(sq, "2"),
        num(doc.need("%s:int6.exact%d" % (f, b))[0], "2"), num(i4, "2"))
    return text, True if keeps and loses else ("partly" if keeps else False)


CLAIMS = {"growth": claim_growth, "selfcorrect": claim_selfcorrect, "spearman": claim_spearman,
          "share": claim_share, "octile": claim_octile, "rankings": claim_rankings, "length": claim_length,
          "ablation6": lambda d, s: claim_ablation(d, s, 6), "ablation4": lambda d, s: claim_ablation(d, s, 4),
          "pool": claim_pool, "accuracy": claim_accuracy}
MARK = {True: "yes", False: "no", "partly": "partly", "undecided": "undecided"}


def claim_cell(doc, claim, s):
    try:
        r = CLAIMS[claim](doc, s)
    except Missing as e:
        return not_run(doc, e.args[0])
    return "-" if r is None else "%s: **%s**" % (r[0], MARK[r[1]])


def claim_verdict(doc, claim):
    """reproduced on k of n subjects; the rule is CLAIMS[claim]'s docstring"""
    marks = []
    for s in SUBJECTS:
        try:
            r = CLAIMS[claim](doc, s)
        except Missing:
            continue
        if r is not None:
            marks.append(r[1])
    if not marks:
        return "no subject measured yet"
    yes, part, open_ = marks.count(True), marks.count("partly"), marks.count("undecided")
    n = len(marks) - open_
    word = ("undecided" if n == 0 else "reproduced" if yes == n else
            "not reproduced" if yes + part == 0 else "partly reproduced")
    return "%s (yes on %d of %d subjects%s%s)" % (word, yes, len(marks), ", partly on %d" % part if part else "",
                                                  ", undecided on %d" % open_ if open_ else "")


# ---- tables ---------------------------------------------------------------------------------

def row(cells):
    return "| %s |" % " | ".join(cells)


def table(head, rows):
    return "\n".join([row(head), "|---" * len(head) + "|"] + [row(r) for r in rows])


def cell(doc, key, d="4", fn=pm):
    try:
        return fn(doc, key, d)
    except Missing:
        return "n/a"


def t_rules(doc):
    rules = {}
    for c, fn in CLAIMS.items():  # the two ablation rows share one rule
        rules.setdefault(" ".join((fn.__doc__ or claim_ablation.__doc__).split()), []).append(c)
    return "\n".join("- **%s**: %s" % (", ".join(cs), r) for r, cs in rules.items())


def t_inputstats(doc):
    rows = []
    for label, k, d, paper_q, paper_k in (
            ("row ridge (max / median row RMS)", "ridge_row_median", "2", "10.3", "12.7"),
            ("column ridge", "ridge_col_median", "2", "19.4", "5.4"),
            ("share of states above 3x on both axes", "share_both_above_3x", None, "98.6%", "84.9%"),
            ("omega p90/p10 within a head", "omega_p90_p10_median", "2", "15.95", "(not given)"),
            ("key participation ratio", "key_participation_median", "1", "", ""),
            ("shortest half-life (steps)", "half_life_min", "2", "~1", ""),
            ("longest half-life (steps)", "half_life_max", "0", "thousands", "")):
        fn = pct if d is None else pm
        dd = "1" if d is None else d
        rows.append([label, paper_q, cell(doc, "inputstats/gdn:" + k, dd, fn),
                     cell(doc, "inputstats/lm_gdn:" + k, dd, fn),
                     paper_k, cell(doc, "inputstats/kda:" + k, dd, fn), cell(doc, "inputstats/lm_kda:" + k, dd, fn)])
    return table(["statistic", "paper Qwen", "gdn-qwen-like", "data/lm/gdn", "paper Kimi", "kda-kimi-like",
                  "data/lm/kda"], rows)


def t_propagation(doc):
    f = "propagation/propagation"
    rows = []
    for fmt in doc.items(f + ":formats"):
        if fmt == "fp32":
            continue
        g = lambda k, d="4": cell(doc, "%s:%s.%s" % (f, fmt, k), d)  # noqa: E731
        rows.append([fmt, g("bits", "3"), "%s -> %s" % (g("median_first"), g("median_last")),
                     "%s -> %s" % (g("p90_first"), g("p90_last")), g("pooled"), g("diverged", "0")])
    return table(["format", "bits", "median, first -> last bin", "p90, first -> last bin", "pooled", "heads diverged"],
                 rows)


def t_selfcorrect(doc):
    rows, wins = [], []
    for fid, label in (("selfcorrect/gdn", "GDN preset"), ("selfcorrect/kda", "KDA preset"),
                       ("selfcorrect/recall_gdn", RECALL_MODEL["gdn"]), ("selfcorrect/recall_kda", RECALL_MODEL["kda"])):
        w = doc.items(fid + ":windows")
        if not w:
            rows.append([label, not_run(doc, fid)])
            continue
        wins = wins or w
        # the linear continuation's ratio depends on the error's direction only: its INT8 row (in the
        # HDF5 files and the figure) repeats INT6's to a few per cent
        for mode, fmt in (("linear", "int6"), ("nonlinear", "int6"), ("nonlinear", "int8")):
            if doc.has("%s:%s.%s.last" % (fid, mode, fmt)):
                rows.append(["%s, %s, %s" % (label, mode, fmt.upper())] +
                            [cell(doc, "%s:%s.%s.w%s" % (fid, mode, fmt, x), "2") if x in w else "" for x in wins] +
                            [" / ".join(num(doc.get("%s:%s.%s.quartile%d" % (fid, mode, fmt, q))[0], "1")
                                        for q in range(1, 5))])
    n = len(wins) + 2
    return table(["cut / normal"] + ["window %s" % x for x in wins] + ["by half-life quarter, last window"],
                 [r + [""] * (n - len(r)) for r in rows])


def t_halflife(doc):
    rows = []
    for s, label in (("syn_gdn", "gdn-qwen-like heads"), ("syn_kda", "kda-kimi-like key rows"),
                     ("lm_gdn", "data/lm/gdn heads"), ("lm_kda", "data/lm/kda key rows"),
                     ("rec_gdn", RECALL_MODEL["gdn"] + " heads"), ("rec_kda", RECALL_MODEL["kda"] + " key rows")):
        f = HALFLIFE_FILE[s]
        if not doc.has(f + ":units"):
            rows.append([label, not_run(doc, f)] + [""] * 7)
            continue
        rows.append([label, num(doc.get(f + ":units")[0], "0")] +
                    [cell(doc, f + ":" + k, "3") for k in HALFLIFE[:3]] +
                    [cell(doc, f + ":" + k, "1", pct) for k in HALFLIFE[3:6]] + [cell(doc, f + ":" + HALFLIFE[6], "2")])
    return table(["source", "units", "Spearman: error", "error / d", "persistence", "top quarter: error", "error / d",
                  "persistence", "d, long / short quarter"], rows)


def t_octile(doc):
    """the omega octiles' cost on each subject (presets: pooled error; models: 1e-3 nats per byte)"""
    cols = [("octile/gdn", "GDN preset"), ("octile/kda", "KDA preset"), ("nll/octile_gdn", "GDN model"),
            ("nll/octile_kda", "KDA model"), ("nll/octile_recall_gdn", RECALL_MODEL["gdn"]),
            ("nll/octile_recall_kda", RECALL_MODEL["kda"])]
    rows = [[str(o)] + [cell(doc, "%s:omega.o%d" % (f, o), *(("4", pm) if f.startswith("octile") else ("2", milli)))
                        for f, _ in cols] for o in range(1, 9)]
    rows += [["Spearman, by %s" % order] + [cell(doc, "%s:%s.spearman" % (f, order), "2") for f, _ in cols]
             for order in ("omega", "magnitude", "random")]
    return table(["omega octile at INT4 (1 = lowest)"] + [c for _, c in cols], rows)


def t_knobs(doc):
    """one row per knob, each cell every value's pooled error (the paper's value starred)"""
    def sweep(m, knob, f):
        paper = doc.get("knobs/%s:%s.paper" % (m, knob))
        star = lambda v: "*" if paper and paper[0] is not None and float(v) == paper[0] else ""  # noqa: E731
        return "; ".join("%s%s: %s" % (v, star(v), cell(doc, "knobs/%s:%s.%d.%s" % (m, knob, i, f)))
                         for i, v in enumerate(doc.items("knobs/%s:%s" % (m, knob)))) or not_run(doc, "knobs/" + m)
    rows = [[knob] + [sweep(m, knob, f) for m in ("gdn", "kda") for f in ("stepquant6", "stepquant4")]
            for knob in ("gamma", "rho", "horizon", "pivots", "refits")]
    return table(["knob: value (* the paper's)", "GDN STEPQuant@6", "GDN STEPQuant@4", "KDA STEPQuant@6",
                  "KDA STEPQuant@4"], rows)


def t_robustness(doc):
    ranks = ("lifetime", "measured", "readout", "omega")
    rows = [[label] + ["%s - %s" % (cell(doc, "%s:%s.min" % (f, k)), cell(doc, "%s:%s.max" % (f, k))) for k in ranks]
            for f, label in (("robustness/gdn", "gdn-qwen-like, 3 regimes' plans"),
                             ("robustness/kda", "kda-kimi-like, the same"))]
    rows += [[label] + [cell(doc, "%s:spearman_%s" % (f, k)) for k in ranks]
             for f, label in (("nll/plan_gdn_code", "data/lm/gdn, prose plan vs C-header plan"),
                              ("nll/plan_kda_code", "data/lm/kda, the same"))]
    return table(["Spearman between plans' rankings", "lifetime L", "measured M", "read-out R", "omega"], rows)


def t_regimes(doc):
    rows = []
    for m in ("gdn", "kda"):
        f = "regimes/" + m
        regs = doc.items(f + ":regimes")
        for r, name in enumerate(regs):
            c = lambda k, d="3", fn=pm: cell(doc, "%s:%d.%s" % (f, r, k), d, fn)  # noqa: E731
            rows.append(["%s %s" % (m.upper(), name), c("key_participation_median", "1"),
                         "%s / %s" % (c("ridge_row_median", "1"), c("ridge_col_median", "1")),
                         "%s, %s" % (c("spearman_acc"), c("spearman_acc_over_d")),
                         "%s, %s" % (c("top_quarter_share_acc", "0", pct), c("top_quarter_share_acc_over_d", "0", pct))]
                        + [c(x) for x in ("time6", "stepquant6", "mlife6", "rlife6")])
        if not regs:
            rows.append([m.upper(), not_run(doc, f)] + [""] * 7)
    return table(["point", "key participation", "row / column ridge", "Spearman: error, error / d",
                  "top quarter: error, error / d", "time6 / INT6", "stepquant6 / INT6", "mlife6 / INT6",
                  "rlife6 / INT6"], rows)


def pareto(points):
    """the names of points {name: (bits, damage)} that no other point dominates (no more bits and no
    more damage, one of them less); points with a missing value are left out"""
    ok = {x: v for x, v in points.items() if None not in v}
    return {x for x, (b, e) in ok.items()
            if not any(y != x and c <= b and f <= e and (c < b or f < e) for y, (c, f) in ok.items())}


def t_ablation(doc):
    """the formats the paper's ablation names, and those on either preset's Pareto frontier of bits
    against pooled error, marked; every format is in the HDF5 files"""
    fg, fk = "ablation/gdn", "ablation/kda"
    fmts = [x for x in doc.items(fg + ":formats") or doc.items(fk + ":formats") if x != "fp32"]
    on = set()
    for f in (fg, fk):
        on |= pareto({x: (doc.get("%s:%s.bits" % (f, x)) or (None,))[:1] + (doc.get("%s:%s.pooled" % (f, x))
                                                                            or (None,))[:1] for x in fmts})
    rows = [["%s%s" % (x, " (frontier)" if x in on else "")] +
            [cell(doc, "%s:%s.%s" % (f, x, k), d, pm) for f in (fg, fk)
             for k, d in (("bits", "3"), ("median", "3s"), ("pooled", "3s"))]
            for x in fmts if x in on or x in PAPER_FORMATS or x.endswith("-nopivot")]
    return table(["format", "GDN bits", "GDN median", "GDN pooled", "KDA bits", "KDA median", "KDA pooled"], rows)


def t_memory(doc):
    rows = [[label] + [cell(doc, "memory/memory:%s.%s.crossing" % (shape, f), "0")
                       for f in ("fp32", "bf16", "int8", "stepquant6", "stepquant4")]
            for shape, label in (("gdn-qwen-like", "Qwen3-Next (`gdn-qwen-like`)"),
                                 ("kda-kimi-like", "Kimi Linear (`kda-kimi-like`)"))]
    return table(["requests where the pool passes the weights", "FP32", "BF16", "INT8", "STEPQuant@6",
                  "STEPQuant@4"], rows)


def t_nll(doc, files, cols=("first", "last", "window")):
    """extra NLL per format of nll files side by side: (file, label, columns) each"""
    held = [h for h in (doc.items(f + ":formats") for f, _, _ in files) if h]
    fmts = [x for x in (held[0] if held else []) if all(x in h for h in held)]  # the formats every file run holds
    head = ["format"]
    for f, lab, cs in files:
        bf, bl = doc.get(f + ":bin_first"), doc.get(f + ":bin_last")
        title = {"first": "first %s" % (num(bf[0], "0") if bf else "bin"),
                 "last": "last %s" % (num(bl[0], "0") if bl else "bin"), "window": "window"}
        head += ["%s %s" % (lab, title[c]) for c in cs]
    rows = [[x] + [cell(doc, "%s:%s.%s" % (f, x, c)) for f, _, cs in files for c in cs] for x in fmts]
    rows.append(["native bits per byte"] + [cell(doc, f + ":native.bpb", "3") if c == "window" else ""
                                            for f, _, cs in files for c in cs])
    return table(head, rows)


def t_nll_ablation(doc):
    rows = []
    for k, label in (("int", "uniform"), ("dsq", "DSQ"), ("space", "space only"),
                     ("time_nopivot", "time without pivots"),
                     ("time", "time only"), ("stepquant", "STEPQuant")):
        fmt = "time%d-nopivot" if k == "time_nopivot" else k + "%d"
        rows.append([label] + ["%.2f" % PAPER_ABLATION[(m, b)][k] for m in ("qwen", "kimi") for b in (6, 4)] +
                    [cell(doc, "nll/ablation_%s:%s.bpb" % (m, fmt % b), "4") for m in ("gdn", "kda") for b in (6, 4)])
    return table(["", "paper Qwen 6", "Qwen 4", "Kimi 6", "Kimi 4 (accuracy)", "GDN model 6", "GDN 4", "KDA model 6",
                  "KDA 4 (bits per byte)"], rows)


# the long table's rows: the paper's headline formats (every format of the run is in its HDF5 and figure)
LONG_FORMATS = ("int8", "int6", "int4", "space4", "time6", "stepquant6", "stepquant4")


def t_long(doc):
    """per model, on the long documents: extra NLL per byte in the quarters of the decode window on
    the joined books (prose) and on the recall documents, each with the last quarter minus the second
    paired by document and read as rising, level or falling; and the answers kept relative to native
    by decode position, in the recall driver's last three position groups"""
    files = [(m, "nll/long_" + m, "frontier/long_%s_nll_recall" % m, "frontier/long_%s_recall" % m)
             for m in ("gdn", "kda")]
    run = [x for x in files if doc.items(x[1] + ":formats")]
    if not run:
        return "; ".join(not_run(doc, x[1] + ":formats") for x in files)

    def quarters(f, x):
        return "; ".join(cell(doc, "%s:%s.q%d" % (f, x, k), "4") for k in range(1, 5))

    def trend(f, x):
        try:
            v, c = doc.need("%s:%s.q4_minus_q2" % (f, x))
        except Missing:
            return "n/a"
        word = "one document" if c is None else "level" if abs(v) <= c else "rising" if v > 0 else "falling"
        return "%s (%s)" % (pm(doc, "%s:%s.q4_minus_q2" % (f, x), "4"), word)

    def size(n):
        return "%d KiB" % (n // 1024) if n % 1024 == 0 else "%d B" % n

    def kib(group):
        lo, hi = (int(v) for v in group.split("-"))
        if hi >= 1 << 30:  # the open last group
            return "from %s" % size(lo)
        return "%d-%d KiB" % (lo // 1024, hi // 1024) if lo % 1024 == hi % 1024 == 0 else "%d-%d B" % (lo, hi)
    head, cols = ["format"], []
    for m, prose, recall_nll, recall in run:
        up, pos = RECALL_MODEL[m], doc.items(recall + ":positions")[-3:]
        q = doc.get(prose + ":quarter_steps")
        q = size(int(q[0])) if q else "the"
        head += ["%s, prose: extra NLL / byte in %s quarters" % (up, q), "%s, prose: last minus second quarter" % up,
                 "%s, recall docs: in %s quarters" % (up, q), "%s, recall docs: last minus second" % up,
                 "%s answers vs native at decode %s" % (up, ", ".join(kib(g) for g in pos) or "n/a")]
        groups = range(len(doc.items(recall + ":positions")) - len(pos), len(doc.items(recall + ":positions")))
        cols.append((prose, recall_nll, recall, groups))
    fmts = [x for x in LONG_FORMATS if all(x in doc.items(c[0] + ":formats") for c in cols)]
    # one answers cell per group the header names (n/a where a group has no records)
    rows = [[x] + [c for prose, recall_nll, recall, groups in cols for c in
                   (quarters(prose, x), trend(prose, x), quarters(recall_nll, x), trend(recall_nll, x),
                    ", ".join(cell(doc, "%s:%s.exactpos_delta%d" % (recall, x, p), "2") for p in groups) or "n/a")]
            for x in fmts]
    missing = ["%s %s" % (RECALL_MODEL[x[0]], not_run(doc, x[1] + ":formats")) for x in files if x not in run]
    if missing:  # in the header: the document's lines are counted
        head[0] += " (%s)" % "; ".join(missing)
    return table(head, rows)


def t_generate(doc):
    fmts = doc.items("generate/gdn:formats") or doc.items("generate/kda:formats")
    return table(["format", "GDN repeat rate", "GDN mean line length", "KDA repeat rate", "KDA mean line length"],
                 [[f] + [cell(doc, "generate/%s:%s.%s" % (m, f, k), d) for m in ("gdn", "kda")
                         for k, d in (("repeat_rate", "3"), ("line_mean", "0"))] for f in fmts])


def t_recall(doc):
    """exact match by distance and the answers' extra NLL at the first and last decode positions,
    both models side by side"""
    head, cols, runs = ["exact match by distance (bytes); answer extra NLL by decode position"], [], []
    for m in ("gdn", "kda"):
        f, up = "recall/" + m, RECALL_MODEL[m]
        runs += [r for r in doc.items(f + ":runs") if r not in runs]
        for b, name in enumerate(doc.items(f + ":buckets")):
            head.append("%s %s" % (up, name))
            cols.append((f, "exact%d" % b, "bucket%d.records" % b))
        pos = doc.items(f + ":positions")
        for p in sorted({0, len(pos) - 1}) if pos else []:
            head.append("%s NLL at %s" % (up, pos[p]))
            cols.append((f, "nllpos%d" % p, "position%d.records" % p))
    if not cols:
        return not_run(doc, "recall/gdn")
    rows = [["records"] + [num(doc.get("%s:%s" % (f, n))[0], "0") for f, _, n in cols]]
    rows += [[r] + [cell(doc, "%s:%s.%s" % (f, r, k), "2") if doc.get("%s:%s.%s" % (f, r, k)) else ""
                    for f, k, _ in cols] for r in runs if r == "native" or r in PAPER_FORMATS]
    return table(head, rows)


# the formats the paper names, placed against the frontier whether they are on it or not
PAPER_FORMATS = ("int8", "int6", "int4", "dsq6", "dsq4", "space6", "space4", "time6", "time4", "stepquant6",
                 "stepquant4")


def frontier_place(doc, f, fmts, kind):
    """on the frontier of kind (the driver's flag), or the format with the fewest bits among those
    that dominate it (no more bits and no more damage, one of them less: the driver's rule)"""
    val = {x: (doc.need("%s:%s.bits" % (f, x))[0], doc.get("%s:%s.window_%s" % (f, x, kind))[0]) for x in fmts}
    return lambda x: ("frontier" if doc.need("%s:%s.pareto_%s" % (f, x, kind))[0] else
                      "below %s" % min((y for y in fmts if y != x and None not in val[y] and None not in val[x]
                                        and val[y][0] <= val[x][0] and val[y][1] <= val[x][1]
                                        and (val[y][0] < val[x][0] or val[y][1] < val[x][1])),
                                       key=lambda y: (val[y][0], val[y][1]), default="?"))


def t_frontier(doc):
    """the formats on a frontier of either model and the paper's formats: per model the bits, the
    damage on both kinds of document, the answers kept by distance, the CPU step, and where each
    format sits on each kind's frontier"""
    models = [(m, "frontier/" + m) for m in ("gdn", "kda") if doc.items("frontier/%s:formats" % m)]
    if not models:
        return not_run(doc, "frontier/gdn:formats") + "; " + not_run(doc, "frontier/kda:formats")
    on = lambda f, x, k: doc.need("%s:%s.pareto_%s" % (f, x, k))[0]  # noqa: E731
    rows_of, bits = [], {}
    for _, f in models:
        for x in doc.items(f + ":formats"):
            if x not in rows_of and (on(f, x, "recall") or on(f, x, "prose") or x in PAPER_FORMATS):
                rows_of.append(x)
            bits.setdefault(x, doc.need("%s:%s.bits" % (f, x))[0])
    rows_of.sort(key=lambda x: (-bits[x], x))
    head, cols = ["format"], []
    for m, f in models:
        up, fmts = RECALL_MODEL[m], doc.items(f + ":formats")
        place = {k: frontier_place(doc, f, fmts, k) for k in ("recall", "prose")}
        head += ["%s bits" % up, "%s extra NLL / byte: recall docs; prose" % up,
                 "%s answers vs native: %s" % (up, ", ".join(doc.items(f + ":ranges"))), "%s CPU step / FP32" % up,
                 "%s place: recall; prose" % up]
        cols.append((f, fmts, place))

    def cells(x, f, fmts, place):
        if x not in fmts:
            return ["", "", "", "", ""]
        key = lambda k: "%s:%s.%s" % (f, x, k)  # noqa: E731
        return [cell(doc, key("bits"), "3"), "%s; %s" % (cell(doc, key("window_recall"), "5"),
                                                          cell(doc, key("window_prose"), "5")),
                ", ".join(cell(doc, key("exact_delta%d" % r), "2") for r in range(len(doc.items(f + ":ranges")))),
                cell(doc, key("step_ratio"), "2"), "%s; %s" % (place["recall"](x), place["prose"](x))]
    rows = [[x] + [c for f, fmts, place in cols for c in cells(x, f, fmts, place)] for x in rows_of]
    rows.append(["native exact match"] + [c for f, _, _ in cols for c in
                                          ["", "", ", ".join(cell(doc, "%s:native.exact%d" % (f, r), "2")
                                                             for r in range(len(doc.items(f + ":ranges")))), "", ""]])
    return table(head, rows)


def t_calset(doc):
    """the calibrated formats under plans from prose, recall documents and a mix: per model the
    extra NLL per byte on each kind of document and the answers kept at 1-2 KiB under each plan (the
    least damage in bold), and the long heads' mean width in each plan at 4 bits"""
    models = [m for m in ("gdn", "kda") if all(doc.items("calset/%s_%s:formats" % (m, c)) for c in CALSET)]
    if not models:
        return "; ".join(not_run(doc, "calset/%s_%s:formats" % (m, c)) for m in ("gdn", "kda") for c in CALSET
                         if not doc.items("calset/%s_%s:formats" % (m, c)))
    fmts = [x for x in doc.items("calset/%s_prose:formats" % models[0])]
    head = ["format (plan from: %s)" % "; ".join(CALSET)]
    for m in models:
        up = RECALL_MODEL[m]
        rng = doc.items("calset/%s_prose:ranges" % m)
        head += ["%s extra NLL / byte, recall docs" % up, "%s extra NLL / byte, prose" % up,
                 "%s answers vs native, %s" % (up, rng[0] if rng else "n/a"),
                 "%s long heads' width (2-bit share)" % up]

    def damage(m, x, kind, d):
        keys = ["calset/%s_%s:%s.%s" % (m, c, x, kind) for c in CALSET]
        vals = [doc.get(k)[0] if doc.has(k) else None for k in keys]
        low = min((v for v in vals if v is not None), default=None) if kind.startswith("window") else \
            max((v for v in vals if v is not None), default=None)
        return "; ".join(("**%s**" if v is not None and v == low else "%s") % cell(doc, k, d) for k, v in zip(keys, vals))

    def widths(m, x):
        sch = x[:-1] if x.endswith("4") and x[:-1] in CALSET_SCHEMES else None
        if sch is None:
            return "-"
        f = "calset/plans_" + m
        return "; ".join("%s (%s)" % (cell(doc, "%s:%s.%s4.long_width" % (f, c, sch), "2", lambda d, k, n: num(d.need(k)[0], n)),
                                      cell(doc, "%s:%s.%s4.long_2bit" % (f, c, sch), "0", pct)) for c in CALSET)
    rows = []
    for x in fmts:
        r = [x]
        for m in models:
            r += [damage(m, x, "window_recall", "4"), damage(m, x, "window_prose", "4"),
                  damage(m, x, "exact_delta0", "2"), widths(m, x)]
        rows.append(r)
    return table(head, rows)


def hold_verdict(doc, m):
    """the hypothesis that time-only@4 costs the answers through the long heads' 2-bit rows, on the
    answers' extra NLL: held minus calibrated paired by document; "holds" where that difference's
    interval lies below zero and the held run's own interval reaches zero (the cost goes), "partly"
    where the difference lies below zero but the held cost stays above zero, "undecided" where the
    difference's interval reaches zero (these documents cannot tell the two apart)"""
    f = "hold/" + m
    if not doc.has(f + ":diff.answer_nll", f + ":held.answer_nll"):
        return not_run(doc, f + ":diff.answer_nll")
    (d, dc), (h, hc) = doc.need(f + ":diff.answer_nll"), doc.need(f + ":held.answer_nll")
    b = doc.need(f + ":base.answer_nll")[0]
    if dc is None or hc is None:
        return "undecided (one document)"
    if d + dc >= 0:
        return "**undecided**: holding the long heads moves the answers' extra NLL by %s nats (paired)" % pm(
            doc, f + ":diff.answer_nll", "2")
    share = "%.0f%% of it" % (100 * -d / b) if b > 0 else "it"
    if h - hc <= 0:
        return "**holds**: the hold takes %s away (%s nats paired), the held cost %s reaches zero" % (
            share, pm(doc, f + ":diff.answer_nll", "2"), pm(doc, f + ":held.answer_nll", "2"))
    return "**partly**: the hold takes %s away (%s nats paired), %s nats an answer remain" % (
        share, pm(doc, f + ":diff.answer_nll", "2"), pm(doc, f + ":held.answer_nll", "2"))


def t_hold(doc):
    """time4 as calibrated beside the long heads held at 4 bits, both models, and each verdict"""
    val = lambda d, x, n: num(d.need(x)[0], n)  # noqa: E731
    nat = ", ".join("%s %s" % (up, cell(doc, "hold/%s:native.exact" % m, "2"))
                    for m, up in (("gdn", "GDN"), ("kda", "KDA")))
    rows_def = (("long heads (%s): their units' mean width (share at 2 bits); the other heads' units' mean width; "
                 "all units' bits", "long"),
                ("extra NLL per byte, recall documents, window", "window_recall"),
                ("extra NLL per byte, prose, window", "window_prose"),
                ("answers' extra NLL (nats an answer)", "answer_nll"),
                ("answered exactly, minus native's (%s)" % nat, "exact_delta"))
    head, rows = ["time-only@4"], []
    for m, up in RECALL_MODEL.items():
        head += ["%s as calibrated" % up, "long heads held", "held minus calibrated"]
    for label, k in rows_def:
        r = [label % "; ".join(", ".join(doc.items("hold/%s:long_heads" % m)) or "n/a" for m in ("gdn", "kda"))
             if k == "long" else label]
        for m in ("gdn", "kda"):
            f = "hold/" + m
            if k == "long":
                r += ["%s (%s); %s; %s" % (cell(doc, "%s:%s.long_width" % (f, v), "2", val),
                                           cell(doc, "%s:%s.long_2bit" % (f, v), "0", pct),
                                           cell(doc, "%s:%s.other_width" % (f, v), "3", val),
                                           cell(doc, "%s:%s.achieved" % (f, v), "3", val))
                      for v in ("base", "held")] + [""]
            else:
                d = "2" if k in ("answer_nll", "exact_delta") else "4"
                r += [cell(doc, "%s:%s.%s" % (f, v, k), d) for v in ("base", "held", "diff")]
        rows.append(r)
    rows.append(["the hypothesis"] + sum(([hold_verdict(doc, m), "", ""] for m in ("gdn", "kda")), []))
    return table(head, rows)


def t_files(doc):
    revs = sorted({f["git_revision"] for f in doc.files.values() if f.get("git_revision")})
    return ("Results: stepq %s; each file's revision and config checksum are in paper_repro.json (`files`)."
            % (", ".join(revs) or "none"))


def t_missing(doc):
    if not doc.missing:
        return "Every result file the document reads was present."
    return "Not run when this was collected (their numbers read \"not run\" or n/a): %s." % ", ".join(
        "`%s`" % c for c in dict.fromkeys(doc.files[k]["config"] for k in doc.missing))  # a config once


def t_quick(doc):
    if not doc.quick:
        return ""
    return ("**QUICK RESULTS** (`stepq run --quick`: the tests' sizes, not the paper's; %d files): every number "
            "below is a smoke test, not a measurement.\n\n" % len(doc.quick))


NLL3, NLL1 = ("first", "last", "window"), ("window",)
TABLES = {"rules": t_rules, "inputstats": t_inputstats, "propagation": t_propagation, "selfcorrect": t_selfcorrect,
          "halflife": t_halflife, "octile": t_octile, "knobs": t_knobs, "robustness": t_robustness,
          "regimes": t_regimes, "ablation": t_ablation, "memory": t_memory,
          "nll": lambda d: t_nll(d, (("nll/gdn", "GDN", NLL3), ("nll/kda", "KDA", NLL3),
                                     ("nll/recall_gdn", RECALL_MODEL["gdn"], NLL3),
                                     ("nll/recall_gdn_prose", RECALL_MODEL["gdn"] + " prose", NLL1), ("nll/recall_kda", RECALL_MODEL["kda"], NLL3),
                                     ("nll/recall_kda_prose", RECALL_MODEL["kda"] + " prose", NLL1))),
          "nll_ablation": t_nll_ablation, "generate": t_generate, "recall": t_recall, "hold": t_hold,
          "files": t_files, "missing": t_missing, "quick": t_quick, "frontier": t_frontier,
          "calset": t_calset, "long": t_long}


def expand(doc, op, args):
    if op in ("pm", "v", "pct"):
        key, d = args[0], (args[1] if len(args) > 1 else "4")
        try:
            if op == "v":
                return num(doc.need(key)[0], d)
            return (pm if op == "pm" else pct)(doc, key, d)
        except Missing:
            return not_run(doc, key)
    if op == "table" and args[0] in TABLES:
        return TABLES[args[0]](doc)
    if op == "figure":
        name = args[0]
        if name not in doc.figures:
            return "(figure `%s`: not run yet)" % name
        return "![%s](docs/figures/%s.png)" % (doc.figures[name], name)
    if op == "cell" and args[0] in CLAIMS and args[1] in SUBJECTS:
        return claim_cell(doc, args[0], args[1])
    if op == "verdict" and args[0] in CLAIMS:
        return claim_verdict(doc, args[0])
    raise Unknown(op)


def render(doc_json, template_text, doc=None):
    """the document; doc, a Doc of doc_json, records what it looked up"""
    doc = doc or Doc(doc_json)

    def sub(m):
        parts = m.group(1).split()
        try:
            return expand(doc, parts[0], parts[1:])
        except (Unknown, IndexError):
            die("%s: unknown placeholder {{%s}}" % (TEMPLATE, m.group(1)))
    return re.sub(r"\{\{([^}]*)\}\}", sub, template_text)


def read_doc(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as e:
        die("%s: cannot read it (%s)" % (path, e.strerror))
    except ValueError as e:
        die("%s: not JSON (%s)" % (path, e))
    parts = ("files", "figures", "lists", "numbers")
    if not isinstance(d, dict) or any(not isinstance(d.get(k), dict) for k in parts) \
            or any(not isinstance(n, list) or len(n) != 3 for n in d["numbers"].values()):
        die("%s: not the output of `repro_tables.py collect` (files, figures, lists and numbers, each number "
            "[value, 95%% half-width, dataset])" % path)
    return d


def read_template():
    try:
        with open(TEMPLATE) as f:
            return f.read()
    except OSError as e:
        die("%s: cannot read it (%s)" % (TEMPLATE, e.strerror))


# ---------------------------------------------------------------------------------------------
# check: the document against its JSON, its rules, and (given results) the results

def rule_errors(text, base):
    """what breaks the document's rules: its length, its table cells, its figures"""
    errs = []
    lines = text.split("\n")
    if len(lines) - (lines[-1] == "") >= MAX_LINES:
        errs.append("%d lines, the limit is under %d" % (len(lines) - (lines[-1] == ""), MAX_LINES))
    for i, line in enumerate(lines, 1):
        if line.startswith("|"):
            for c in (x.strip() for x in line.strip().strip("|").split(" | ")):
                if len(c) > MAX_CELL:
                    errs.append("line %d: a table cell of %d characters (the limit is %d): %s..."
                                % (i, len(c), MAX_CELL, c[:60]))
        for link in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", line):
            if not os.path.isfile(os.path.join(base, link)):
                errs.append("line %d: figure %s is not there" % (i, link))
    return errs


def diff_numbers(want, got):
    """the numbers and files that differ between two collected documents, one line each"""
    out = []
    for part in ("files", "figures", "lists", "numbers"):
        a, b = want[part], got[part]
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                out.append("%s %s: paper_repro.json has %s, the results give %s"
                           % (part.rstrip("s"), k, json.dumps(a.get(k)), json.dumps(b.get(k))))
    return out


def self_test():
    """the rules refuse what they must: a long document, a long cell, a missing figure"""
    d = tempfile.mkdtemp()
    try:
        bad = [("x\n" * MAX_LINES, "lines"), ("| %s |\n" % ("y" * (MAX_CELL + 1)), "table cell"),
               ("![f](docs/figures/none.png)\n", "not there")]
        for text, word in bad:
            errs = rule_errors(text, d)
            if not any(word in e for e in errs):
                return "the rules passed a document they must refuse (%s)" % word
        if rule_errors("x\n" * (MAX_LINES - 2) + "| %s |\n" % ("y" * MAX_CELL), d):
            return "the rules refused a document within them"
        doc = {"files": {"a/b.h5": {"config": "experiments/b.cfg", "missing": True}}, "figures": {}, "lists": {},
               "numbers": {}}
        if "not run (`experiments/b.cfg`)" not in render(doc, "{{pm a/b:x 2}}"):
            return "a number of a missing file was not named as not run"
    finally:
        shutil.rmtree(d)
    return None


def quick_roots(dirs):
    """the quick results to try: each DIR, or the DIR/*/results/quick folders the driver tests write"""
    out = []
    for d in dirs:
        subs = sorted(glob.glob(os.path.join(d, "*", "results", "quick")))
        out += subs if subs else ([d] if os.path.isdir(d) else [])
    return out


def check_document(doc, md):
    """failures of paper_repro.md against render(its JSON) and the document's rules"""
    failures = []
    text = render(doc, read_template())
    try:
        with open(md) as f:
            have = f.read()
    except OSError as e:
        die("%s: cannot read it (%s)" % (md, e.strerror))
    if have != text:
        d = list(difflib.unified_diff(have.splitlines(), text.splitlines(), md, "render", lineterm="", n=0))
        failures.append("%s is not what render prints from its JSON (%d lines differ; regenerate it with "
                        "`python3 tools/repro_tables.py render paper_repro.json --out paper_repro.md`):\n%s"
                        % (md, len(d), "\n".join(d[:40])))
    else:
        print("%s: equal to render of its JSON, byte for byte" % md)
    errs = rule_errors(have, os.path.dirname(os.path.abspath(md)))
    if not errs:
        print("%s: %d lines, every table cell within %d characters, every figure present"
              % (md, len(have.splitlines()), MAX_CELL))
    return failures + ["%s: %s" % (md, e) for e in errs]


def check_results(doc, roots):
    """failures of the JSON against collect on full results: every number that moved"""
    d = diff_numbers(doc, collect_doc(roots, False))
    if d:
        return ["collect(%s) differs from paper_repro.json in %d numbers or files (collect and render "
                "again):\n%s" % (" ".join(roots), len(d), "\n".join(d))]
    print("collect(%s) equals paper_repro.json" % " ".join(roots))
    return []


def check_quick(dirs):
    """failures of collect and render on the quick results under dirs (none where there are none)"""
    roots = quick_roots(dirs)
    if not any(find(roots, fid) for fid in FILES):
        print("quick results: none under %s, not tried" % " ".join(dirs))
        return []
    if importlib.util.find_spec("h5py") is None:  # collect needs it, render and check do not
        print("quick results: no h5py here, not tried")
        return []
    q = collect_doc(roots, True)
    if "QUICK RESULTS" not in render(q, read_template()):
        return ["render of quick results does not say they are quick"]
    print("quick results (%s): collect and render ran, %d numbers, %d files not run"
          % (", ".join(roots), len(q["numbers"]), len(Doc(q).missing)))
    return []


def cmd_check(a):
    failures = []
    if a.self_test:
        e = self_test()
        print("self-test: %s" % (e or "the rules refuse a long document, a long cell and a missing figure"))
        failures += [e] if e else []
    doc = read_doc(a.json)
    failures += check_document(doc, a.md)
    if a.results:
        failures += check_results(doc, a.results)
    if a.quick:
        failures += check_quick(a.quick)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    c = sp.add_parser("collect", help="the numbers the document quotes, from the results, as JSON")
    c.add_argument("--results", nargs="+", default=["results"], help="results folders (default: results)")
    c.add_argument("--out", default="paper_repro.json", help="the JSON to write (default: paper_repro.json)")
    c.add_argument("--allow-quick", action="store_true", help="accept results of `stepq run --quick`")
    c.add_argument("--figures", help="where to copy the figures (default: docs/figures; with --allow-quick: none)")
    c.add_argument("--update", metavar="JSON", help="an earlier collected document (paper_repro.json): the files "
                   "the results lack keep its numbers and provenance (a partial rerun); --out may be the same file")
    c.add_argument("--drop", nargs="+", metavar="FILE", help="with --update: these files (e.g. hold/gdn) are not run "
                   "in the new document, whatever --update's holds (their results would be stale)")
    r = sp.add_parser("render", help="the document from the JSON")
    r.add_argument("json")
    r.add_argument("--out", help="write it here (default: stdout)")
    k = sp.add_parser("check", help="paper_repro.md against its JSON, its rules and (given them) the results")
    k.add_argument("--json", default=os.path.join(REPO, "paper_repro.json"))
    k.add_argument("--md", default=os.path.join(REPO, "paper_repro.md"))
    k.add_argument("--results", nargs="+", help="full results: collect them and compare with the JSON")
    k.add_argument("--quick", nargs="*", help="folders of quick results (or of the driver tests' work folders) to "
                                              "collect and render")
    k.add_argument("--self-test", action="store_true", help="first show that the rules refuse bad documents")
    a = ap.parse_args()
    if a.cmd == "collect":
        figdir = a.figures or (None if a.allow_quick else os.path.join(REPO, "docs", "figures"))
        if figdir is not None and not os.path.isdir(figdir):
            die("--figures %s: no such directory" % figdir)
        if a.drop and a.update is None:
            die("--drop: names files of --update's document to leave out; give --update")
        base = read_doc(a.update) if a.update is not None else None
        doc = collect_doc(a.results, a.allow_quick, base, a.drop or ())
        if figdir is not None:
            copy_figures(figure_sources(a.results), figdir)
        write_atomic(a.out, to_json(doc).encode())
        d = Doc(doc)
        print("wrote %s: %d numbers from %d files (%d not run%s), %d figures"
              % (a.out, len(doc["numbers"]), len(doc["files"]) - len(d.missing), len(d.missing),
                 ": " + ", ".join(d.missing) if d.missing else "", len(doc["figures"])))
    elif a.cmd == "render":
        text = render(read_doc(a.json), read_template())
        if a.out:
            write_atomic(a.out, text.encode())
        else:
            sys.stdout.write(text)
    else:
        sys.exit(cmd_check(a))


if __name__ == "__main__":
    main()
