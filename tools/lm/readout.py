#!/usr/bin/env python3
"""Where a long-lived head's read at a record's query comes from: its own record, the other
records in the state, or everything else the head wrote.

A delta-rule head's state after byte r is S_r = sum_{t <= r} beta_t (A_r ... A_{t+1} k_t) v_t^T,
with A_t = (I - beta_t k_t k_t^T) D_t (heads.py's notation; D_t the gate, method 1), so its read
with query q_r is a sum over every byte the head wrote:

    o_r = sum_t c_t v_t,   c_t = beta_t (A_{t+1}^T ... A_r^T q_r) . k_t

computed exactly (float64, from the model's own q, k, v, g, beta) by carrying q_r back through
the steps: u <- D_t (u - beta_t k_t (k_t . u)). The bytes fall in three parts: the query's own
record's definition line ("#0417 = VALUE;\\n"), the definition lines of the other records defined
before the query, and the rest (prose, code, query lines); o_r splits into the three parts' sums.
For each query (the byte before the answer) of the first --docs held-out recall documents and
each long-lived head (half-life over --min-half-life bytes, from the head's mean log gate), it
prints, per distance bucket and for the queries the model answers exactly and those it does not,
the medians of |own| / |o|, |other records| / |o|, |rest| / |o| and the cosine between o and its
own-record part; then, per bucket, how many of the answers that are not exact go wrong at their
first byte (the query's read at the byte before the answer) and how many only after it. If the
other records' part is as large as the own record's where the answers fail, cross-talk between
records is what limits recall; if the rest is, the background writes are. The split reads at the
byte before the answer only: it says nothing of answers that go wrong after their first byte.

Usage: python tools/lm/readout.py MODEL_DIR [--json data/lm/heldout_recall.json] [--docs 6]
       [--threads 1] [--min-half-life 1000]
"""
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recall  # noqa: E402
from heads import layer_inputs, recall_inputs, recall_parser  # noqa: E402


def contributions(q, k, g, beta, reads):
    """[Q, T] c[i, t], the weight of the value written at byte t in the read at reads[i] of one head
    (q, k [T, K], g [T] or [T, K], beta [T]; 0 after the read): beta_t (A_{t+1}^T ... A_r^T q_r) . k_t"""
    T = k.shape[0]
    r = torch.tensor(reads)
    u = torch.zeros(len(reads), k.shape[1], dtype=k.dtype)
    c = torch.zeros(len(reads), T, dtype=k.dtype)
    for t in range(int(r.max()), -1, -1):
        start = r == t
        if start.any():
            u[start] = q[t]
        c[:, t] = beta[t] * (u @ k[t])
        u = (u - beta[t] * (u @ k[t])[:, None] * k[t][None]) * g[t].exp()
    return c


def parts(doc, recs, reads):
    """[Q, 3, T] masks of the query's own record's definition line, the other records' lines
    defined before the read, and every other byte up to the read"""
    T = len(doc)
    lines = [(first - recall.RECORD_HEAD, end + recall.RECORD_TAIL)
             for _, first, end in recall.definition_lines(doc) if end >= 0]
    m = torch.zeros(len(recs), 3, T, dtype=torch.float64)
    for i, (s, r) in enumerate(zip(recs, reads)):
        own = recall.definition_line(s["first"], s["length"])
        m[i, 0, own[0]:own[1]] = 1
        for lo, hi in lines:
            if hi <= r and lo != own[0]:
                m[i, 1, lo:hi] = 1
        m[i, 2, :r + 1] = 1
        m[i, 2] -= m[i, 0] + m[i, 1]
    return m


def main():
    ap = recall_parser(__doc__.split("\n\n")[0])
    ap.add_argument("--min-half-life", type=float, default=1000.0,
                    help="the heads measured: those whose mean log gate gives a half-life above this (bytes)")
    args = ap.parse_args()
    model, rj, docs = recall_inputs(args)
    base = os.path.dirname(os.path.abspath(args.json))
    rows = []  # (bucket, exact, head, own, other, rest, cos)
    wrong = [[0, 0] for _ in recall.BUCKETS]  # per bucket: answers wrong at their first byte, right there but not after
    for d in docs:
        with open(os.path.join(base, d["file"]), "rb") as f:
            doc = f.read()
        recs = [s for s in d["spans"] if s["kind"] == "record" and recall.bucket_of(s["distance"]) is not None]
        reads = [s["start"] - 1 for s in recs]
        ins = layer_inputs(model, doc)
        with torch.no_grad():
            logits = model(torch.tensor(list(doc[:-1]), dtype=torch.long)[None])[0]
        scores = recall.answer_scores(logits, doc, recs)
        for s, sc in zip(recs, scores):
            if sc is not None and not sc[1]:
                first_right = int(logits[s["start"] - 1].argmax()) == doc[s["start"]]
                wrong[recall.bucket_of(s["distance"])][int(first_right)] += 1
        masks = parts(doc, recs, reads)
        for li, (q, k, v, g, beta) in enumerate(ins):
            gm = g if g.dim() == 2 else g.mean(-1)
            for h in range(q.shape[1]):
                half = math.log(2) / -float(gm[:, h].mean())
                if half < args.min_half_life:
                    continue
                c = contributions(q[:, h], k[:, h], g[:, h], beta[:, h], reads)   # [Q, T]
                o_part = torch.einsum("qpt,td->qpd", masks * c[:, None, :], v[:, h])  # [Q, 3, V]
                o = o_part.sum(1)
                norm = o.norm(dim=-1)
                cos = (o * o_part[:, 0]).sum(-1) / (norm * o_part[:, 0].norm(dim=-1))
                for i, s in enumerate(recs):
                    if scores[i] is None:
                        continue
                    rows.append((recall.bucket_of(s["distance"]), scores[i][1], "%d.%d" % (li, h),
                                 *(o_part[i].norm(dim=-1) / norm[i]).tolist(), float(cos[i])))
        print("read %s: %d bytes, %d records" % (d["file"], len(doc), len(recs)), file=sys.stderr, flush=True)
    heads = sorted(set(r[2] for r in rows))
    print("model %s: %d documents of %s; heads with half-life over %g bytes: %s"
          % (args.model, len(docs), args.json, args.min_half_life, " ".join(heads)))
    print("medians over a bucket's queries and the heads of |part| / |read| (own record's line, other records' "
          "lines, the rest) and cos(read, own part); answered exactly (yes) or not (no)")
    print("distance      answer  queries  own    others  rest   cos(own)")
    for b, (lo, hi) in enumerate(recall.BUCKETS):
        for ok in (True, False):
            sel = [r for r in rows if r[0] == b and r[1] == ok]
            if not sel:
                continue
            med = torch.tensor([r[3:] for r in sel]).median(0).values.tolist()
            print("%5d-%-5d   %-3s     %5d    %.3f  %.3f   %.3f  %.3f"
                  % (lo, hi, "yes" if ok else "no", len(sel) // len(heads), *med))
    print("\nanswers not exact: their first byte wrong / their first byte right and a later one wrong")
    for (lo, hi), (first, later) in zip(recall.BUCKETS, wrong):
        print("%5d-%-5d   %4d / %4d" % (lo, hi, first, later))


if __name__ == "__main__":
    main()
