#!/usr/bin/env python3
"""Recall metrics of a byte-level GDN / KDA model on the held-out recall documents, and where
its memory lives: written into the model's metrics.json (merged with what train.py wrote).

Per record of data/lm/heldout_recall.json (recall.py): the answer's teacher-forced NLL (nats,
summed over its bytes) and exact match (strict: greedy decoding from the answer's start gives
exactly the value and then its terminator, recall.answer_scores), per distance bucket, with 95% intervals over records (Student's t).

Units: a GDN head, or a KDA key row (layer, head, row). A unit's half-life is ln 2 / -mean(g)
over the held-out prose (the mean log decay of its gate), as train.py reports it.

The reset control: the states of a set of units are zeroed just before the query line
("#NNNN ? ", i.e. after every byte before it), and the query line is then read on to the
answer's end: GDN, the whole [K, V] state of each head of the set; KDA, row `row` of its head's
state. Sets: the longest-lived quarter of the units (by half-life), random quarters (--draws of
them, seeds 0..draws-1, mean over draws), and random quarters matched to the longest one layer by
layer (as many units from each layer as it has, drawn from that layer: comparable sets). The conv
state is kept (it is not the recurrent state).

The forgetting control: the same model with the longest-lived quarter's gates made a constant
decay of half-life 64 tokens (fix_decay), reading the whole document: a model that knows the
task but cannot hold a record long.

Capacity: exact match per bucket split by how many other records are defined between a record's
definition and its query (0, 1-2, 3-7, 8-15, 16 or more).

Usage: python tools/lm/recall_metrics.py MODEL_DIR [--json data/lm/heldout_recall.json]
       [--docs N] [--draws 5] [--threads 1] [--out MODEL_DIR/metrics.json] [--overwrite-shipped]
A shipped metrics file (tracked by git under data/, e.g. data/lm/gdn/metrics.json) is written
only with --overwrite-shipped.
"""
import argparse
import copy
import json
import math
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import recall  # noqa: E402
from model import gate_proj, inverse_softplus  # noqa: E402
from toolcheck import at_least, die, load_model, not_shipped, read_json, recall_documents  # noqa: E402

QUERY_HEAD = recall.RECORD_HEAD  # len(b"#0417 ? "): the query line's bytes before the answer
HALF_LIFE_DOC_BYTES = 8192
# --prefix: the set's default JSON under data/lm
SETS = {"recall": "heldout_recall.json", "recall_novel": "heldout_recall_novel.json", "needles": "heldout_needles.json"}


def t975(df):
    """Student's t quantile 0.975 (df >= 1): the table for small df, the normal one beyond 30"""
    table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
             2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
             2.045, 2.042]
    return table[df - 1] if df <= 30 else 1.960 + 2.4 / df


def mean_ci95(xs):
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t975(n - 1) * sd / math.sqrt(n)


@torch.no_grad()
def unit_half_lives(model, docs, max_len=HALF_LIFE_DOC_BYTES):
    """[(layer, head, row or None, half-life in tokens)] of every unit, from the mean log decay on
    docs (each read from its start, at most max_len bytes)"""
    sums, n = None, 0
    for text in docs:
        x = torch.tensor(list(text[:max_len]), dtype=torch.long)[None]
        h = model.model.embeddings(x)
        gs = []
        for layer in model.model.layers:
            _, _, _, g, _ = layer.attn.inputs(layer.attn_norm(h))
            gs.append(g[0].double().sum(0))          # [H] or [H,K]
            h = layer(h)
        sums = gs if sums is None else [a + b for a, b in zip(sums, gs)]
        n += x.shape[1]
    units = []
    for li, s in enumerate(sums):
        hl = math.log(2) / (-(s / n))
        for hi in range(hl.shape[0]):
            if hl.dim() == 1:
                units.append((li, hi, None, float(hl[hi])))
            else:
                units.extend((li, hi, r, float(hl[hi, r])) for r in range(hl.shape[1]))
    return units


def layer_matched(units, chosen, generator):
    """a random set of units with as many units from each layer as chosen has, drawn uniformly
    from that layer's units (any of them, chosen's included): a control comparable with chosen"""
    per_layer = {}
    for u in chosen:
        per_layer[u[0]] = per_layer.get(u[0], 0) + 1
    out = []
    for li in sorted(per_layer):
        pool = [u for u in units if u[0] == li]
        out.extend(pool[i] for i in torch.randperm(len(pool), generator=generator)[:per_layer[li]].tolist())
    return out


def fix_decay(model, units, half_life):
    """in place: each unit's gate made a constant decay g = -ln 2 / half_life a token: its row of
    the gate projection (GDN a_proj, KDA f_proj's second layer) zeroed and its dt_bias entry set so
    that exp(A_log[head]) softplus(dt_bias) = ln 2 / half_life (A_log, shared by a KDA head's rows,
    is left as it is)"""
    with torch.no_grad():
        for li, hi, row, *_ in units:
            attn = model.model.layers[li].attn
            entry = hi if row is None else hi * attn.K + row
            attn.dt_bias[entry] = inverse_softplus(math.log(2) / half_life / math.exp(float(attn.A_log[hi])))
            gate_proj(attn)[entry].zero_()


def zero_units(cache, units):
    """a copy of cache with the states of units zeroed"""
    c = [dict(d) for d in cache]
    for li in {u[0] for u in units}:
        c[li]["S"] = c[li]["S"].clone()
    for li, hi, row, *_ in units:
        if row is None:
            c[li]["S"][:, hi] = 0
        else:
            c[li]["S"][:, hi, row] = 0
    return c


def query_start(span):
    """where a record's or needle's query line begins (a needle's span says; a record's query head
    has a fixed length)"""
    return span.get("query", span["start"] - QUERY_HEAD)


@torch.no_grad()
def doc_records(model, doc, spans, conditions, variants=None):
    """Per record of the document: dict(distance, native=(nll, exact), <condition>=(nll, exact)...).
    native comes from one pass over the whole document; each condition (a list of units) zeroes
    those units' states just before the query line and reads it from there to the answer's end;
    each of variants {name: model} (another model, e.g. fix_decay's) reads the whole document too."""
    recs = [s for s in spans if s["kind"] in ("record", "needle")]
    x = torch.tensor(list(doc), dtype=torch.long)[None]
    cuts = sorted({query_start(s) for s in recs})
    cache = [{} for _ in model.model.layers]
    logits, snaps, at = [], {}, 0
    for c in cuts + [x.shape[1] - 1]:
        if c > at:
            logits.append(model(x[:, at:c], cache=cache)[0])
            at = c
        snaps[c] = copy.deepcopy(cache)
    full = torch.cat(logits, 0)                          # logits of bytes 0..T-2
    native = recall.answer_scores(full, doc, recs)
    other = {name: recall.answer_scores(m(x[:, :-1])[0], doc, recs) for name, m in (variants or {}).items()}
    out = []
    for s, nat in zip(recs, native):
        qs = query_start(s)
        head = recall.NEEDLE_HEAD if s["kind"] == "needle" else recall.DEFINITION_HEAD
        r = dict(distance=s["distance"], native=nat,
                 between=recall.defined_between(doc, s["first"], s["length"], s["start"], qs, head))
        r.update((name, scores[len(out)]) for name, scores in other.items())
        seg = x[:, qs:s["start"] + s["length"]]  # to the byte before the terminator: it predicts it
        for name, units in conditions.items():
            lg = model(seg, cache=zero_units(snaps[qs], units))[0]
            local = dict(s, start=s["start"] - qs)
            r[name] = recall.answer_scores(lg, doc[qs:], [local])[0]
        out.append(r)
    return out


# records defined between a record's definition and its query: recall by key or by recency, and capacity
BETWEEN = [("0", 0, 0), ("1-2", 1, 2), ("3-7", 3, 7), ("8-15", 8, 15), ("16+", 16, 10 ** 9)]
FORGET_HALF_LIFE = 64  # the forgetting control: the longest-lived quarter's decay made this half-life


def summarise(records, key, what, between=None):
    """per bucket: (n, mean, ci95) of records' key: what 0 = nll, 1 = exact; between (lo, hi): only
    the records with lo..hi others defined between their definition and their query"""
    out = []
    for b in range(len(recall.BUCKETS)):
        xs = [r[key][what] if what == 0 else float(r[key][what]) for r in records
              if recall.bucket_of(r["distance"]) == b and r[key] is not None
              and (between is None or between[0] <= r["between"] <= between[1])]
        out.append((len(xs),) + mean_ci95(xs))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--json", default=None, help="the recall set (default data/lm/heldout_recall.json, or "
                    "heldout_recall_novel.json with --prefix recall_novel)")
    ap.add_argument("--heldout-json", default=os.path.join(REPO, "data", "lm", "heldout.json"))
    ap.add_argument("--docs", type=int, default=None, help="only the first N recall documents")
    ap.add_argument("--draws", type=int, default=5, help="random quarters drawn for the control")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=None, help="metrics file to merge into (default MODEL/metrics.json)")
    ap.add_argument("--prefix", default="recall", choices=sorted(SETS),
                    help="the metrics' names: recall_* for the named set (the default --json), recall_novel_* "
                         "for data/lm/heldout_recall_novel.json, needles_* for data/lm/heldout_needles.json "
                         "(tools/lm/novel_set.py)")
    ap.add_argument("--overwrite-shipped", action="store_true",
                    help="allow --out to be a shipped file (tracked by git under data/, as the shipped models' "
                         "metrics.json are): refused without it")
    args = ap.parse_args()
    if args.json is None:
        args.json = os.path.join(REPO, "data", "lm", SETS[args.prefix])
    # everything checked before any work
    at_least(args, 1, "docs", "draws", "threads")
    out = args.out or os.path.join(args.model, "metrics.json")
    if os.path.isdir(out):
        die("--out %s is a directory" % out)
    not_shipped(out, args.overwrite_shipped, "--out" if args.out else "the model's metrics file")
    if os.path.exists(out):
        read_json(out, "--out" if args.out else "the model's metrics file")
    rj, docs = recall_documents(args.json, args.docs)
    if not docs:
        die("--json %s: no documents in it" % args.json)
    hj = read_json(args.heldout_json, "--heldout-json", "documents")
    prose_files = [os.path.join(REPO, "data", "lm", "heldout", "prose", os.path.basename(d["file"]))
                   for d in hj["documents"] if d.get("domain") == "prose"]
    if not prose_files:
        die("--heldout-json %s: no prose documents (the half-lives are measured on them)" % args.heldout_json)
    for p in prose_files:
        if not os.path.isfile(p):
            die("--heldout-json %s: prose document %s: no such file" % (args.heldout_json, p))
    model = load_model(args.model)
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    t0 = time.time()
    base = os.path.dirname(os.path.abspath(args.json))

    # half-lives on the held-out prose books (data/lm/heldout/prose, as the C side reads them)
    prose = []
    for p in prose_files:
        with open(p, "rb") as f:
            prose.append(f.read())
    units = unit_half_lives(model, prose)
    hls = sorted(u[3] for u in units)
    order = sorted(units, key=lambda u: -u[3])
    quarter = max(1, len(units) // 4)  # a model of fewer than 4 units: one
    longest = order[:quarter]
    conditions = {"reset_longest": longest}
    for d in range(args.draws):
        g = torch.Generator().manual_seed(d)
        pick = torch.randperm(len(units), generator=g)[:quarter].tolist()
        conditions["reset_random_%d" % d] = [units[i] for i in pick]
        conditions["reset_layer_%d" % d] = layer_matched(units, longest, torch.Generator().manual_seed(d))
    forget = copy.deepcopy(model)
    fix_decay(forget, longest, FORGET_HALF_LIFE)
    print("%d units, half-lives %.3g .. %.3g (median %.3g); longest quarter: %d units from %.3g tokens"
          % (len(units), hls[0], hls[-1], hls[len(hls) // 2], quarter, longest[-1][3]), flush=True)

    records = []
    for i, d in enumerate(docs):
        with open(os.path.join(base, d["file"]), "rb") as f:
            doc = f.read()
        records.extend(doc_records(model, doc, d["spans"], conditions, {"forget": forget}))
        print("doc %d/%d %s: %d records, %.0f s" % (i + 1, len(docs), d["file"], len(records), time.time() - t0),
              flush=True)

    nat_e, nat_l = summarise(records, "native", 1), summarise(records, "native", 0)
    by_between = [summarise(records, "native", 1, (lo, hi)) for _, lo, hi in BETWEEN]
    lon_e = summarise(records, "reset_longest", 1)
    def over_draws(prefix):  # per bucket, the exact share of each draw's condition, mean over draws
        draws = [summarise(records, "%s_%d" % (prefix, d), 1) for d in range(args.draws)]
        return [sum(r[b][1] for r in draws) / len(draws) for b in range(len(recall.BUCKETS))]
    rnd_e, lay_e = over_draws("reset_random"), over_draws("reset_layer")
    fgt_e = summarise(records, "forget", 1)
    metrics = {
        "recall_buckets": recall.BUCKETS,
        "recall_n": [n for n, _, _ in nat_e],
        "recall_exact": [m for _, m, _ in nat_e],
        "recall_exact_ci95": [h for _, _, h in nat_e],
        "recall_answer_nll": [m for _, m, _ in nat_l],
        "recall_answer_nll_ci95": [h for _, _, h in nat_l],
        "recall_exact_reset_longest_quarter": [m for _, m, _ in lon_e],
        "recall_exact_reset_random_quarter": rnd_e,
        "recall_exact_reset_layer_matched_quarter": lay_e,
        "recall_reset_random_draws": args.draws,
        # the forgetting control: the longest-lived quarter's gates made a constant half-life of
        # FORGET_HALF_LIFE tokens (fix_decay), the whole document read so
        "recall_exact_forget": [m for _, m, _ in fgt_e],
        "recall_exact_forget_ci95": [h for _, _, h in fgt_e],
        "recall_forget_half_life": FORGET_HALF_LIFE,
        # recall by key or by recency, and capacity: exact match per bucket of the records with
        # BETWEEN's numbers of others defined between definition and query (recall.defined_between)
        "recall_between_groups": [name for name, _, _ in BETWEEN],
        "recall_n_by_between": [[g[b][0] for g in by_between] for b in range(len(recall.BUCKETS))],
        "recall_exact_by_between": [[g[b][1] for g in by_between] for b in range(len(recall.BUCKETS))],
        "units": "gdn heads" if model.config["model_type"] == "gated_deltanet" else "kda key rows",
        "units_count": len(units),
        "units_half_life_over_100": sum(h >= 100 for h in hls) / len(hls),
        "units_half_life_over_500": sum(h >= 500 for h in hls) / len(hls),
        "units_half_life_over_1000": sum(h >= 1000 for h in hls) / len(hls),
        "unit_half_lives": [[li, hi, row, hl] for li, hi, row, hl in units],  # row None: a GDN head
        "units_longest_quarter": [[li, hi, row] for li, hi, row, _ in longest],
        "recall_eval": "records of %s (%d documents), teacher-forced, chunked forward from a zero state; exact: "
                       "strict, greedy decoding gives exactly the value and then its terminator; nll: nats summed over the answer bytes; 95%% intervals over "
                       "records (Student's t); reset: the states of a quarter of the units (by half-life on the "
                       "held-out prose books, ln 2 / -mean g) zeroed just before the query line (random: any units; layer "
                       "matched: as many from each layer as the longest quarter has); forget: the longest quarter's "
                       "gates a constant half-life of %d tokens, the whole document read so"
                       % (os.path.relpath(args.json, REPO), len(docs), FORGET_HALF_LIFE),
        "recall_command": " ".join(["python", os.path.relpath(sys.argv[0], os.getcwd())] + sys.argv[1:]),
    }
    if args.prefix != "recall":  # the same metrics of another set, beside the named set's
        metrics = {(args.prefix + k[len("recall"):] if k.startswith("recall") else k): v for k, v in metrics.items()}
    old = {}
    if os.path.exists(out):
        with open(out) as f:
            old = json.load(f)
    old.update(metrics)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(old, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)
    print("bucket        n  exact (95%%)        nll (95%%)         reset longest  random  same layers  forget%d"
          % FORGET_HALF_LIFE)
    for b, (lo, hi) in enumerate(recall.BUCKETS):
        print("%5d-%-5d %4d  %.3f +- %.3f   %7.3f +- %.3f   %.3f          %.3f   %.3f        %.3f"
              % (lo, hi, nat_e[b][0], nat_e[b][1], nat_e[b][2], nat_l[b][1], nat_l[b][2], lon_e[b][1], rnd_e[b],
                 lay_e[b], fgt_e[b][1]))
    print("exact match by records defined between definition and query (%s): "
          % " / ".join(name for name, _, _ in BETWEEN) + "  ".join(
              "%d-%d %s" % (lo, hi, " / ".join("-" if g[b][0] == 0 else "%.2f (%d)" % (g[b][1], g[b][0])
                                                for g in by_between))
              for b, (lo, hi) in enumerate(recall.BUCKETS)))
    print("units with half-life >= 100 / 500 / 1000 tokens: %.3f / %.3f / %.3f; wrote %s (%.0f s)"
          % (metrics["units_half_life_over_100"], metrics["units_half_life_over_500"],
             metrics["units_half_life_over_1000"], out, time.time() - t0))


if __name__ == "__main__":
    main()
