#!/usr/bin/env python3
"""What a GDN model's heads do with a record: per head, how long its gate keeps a state (the
half-life), how strongly it writes (beta), and how much of a record's write is still there when
the record is asked for.

For a record whose definition "#NNNN = VALUE;" puts its value's first byte at position f, and
whose query "#NNNN ? VALUE" asks for it at position s (the answer's first byte), the head writes
at p = f - 1 with key k_p and reads at r = s - 1 with query q_r (the state after the write at r);
with --write-at strongest, p is each head's strongest write (largest beta) on the definition line
instead, where a model trained with train.py --write-once writes.
The step maps the state as S_t = A_t S_{t-1} + beta_t k_t v_t^T with A_t = (I - beta_t k_t k_t^T)
exp(g_t) (method 1, K-first), so what the write at p adds to the read at r is scaled by

    retention  k_p^T A_r ... A_{p+1} k_p   (how much of the written direction survives: decay
                                            and the erosion by every later write along it)
    match      q_r^T A_r ... A_{p+1} k_p   (what the query actually picks up of it)

both in float64 from the model's own q, k, g, beta (tools/lm/model.py's inputs). Decay alone
would give exp(sum g); the ratio of retention to that is what the other writes erased.

Usage: python tools/lm/heads.py MODEL_DIR [--json data/lm/heldout_recall.json] [--docs 6]
       [--threads 1] [--write-at value|strongest]
Prints where each head writes the records (the offset on the definition line and its byte, the
three most frequent) and how alike its write keys are (the mean |cos| between two records' keys
in a document, averaged over the documents: near 1, each write replaces the last), then one table
per distance bucket: per head its half-life (mean log gate over the documents), mean beta over
all bytes and at the records' writes, and the median retention, decay alone and match over the
bucket's records.
"""
import argparse
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import recall  # noqa: E402
from model import load_checkpoint  # noqa: E402


@torch.no_grad()
def layer_inputs(model, doc):
    """per layer (q, k, g, beta) of the document, float64: q, k [T,H,K], g, beta [T,H]"""
    x = torch.tensor(list(doc), dtype=torch.long)[None]
    h = model.model.embeddings(x)
    out = []
    for layer in model.model.layers:
        q, k, _, g, beta = layer.attn.inputs(layer.attn_norm(h))
        out.append(tuple(t[0].double() for t in (q, k, g, beta)))
        h = layer(h)
    return out


@torch.no_grad()
def records_through(q, k, g, beta, p, r):
    """[R,H] retention, decay alone and match of each record through one layer: written at p
    ([R, H], a position per record and head) and read at r ([R])"""
    (R, H), K = p.shape, k.shape[2]
    heads = torch.arange(H)[None, :]
    x = k[p, heads].clone()                            # [R,H,K] the written directions
    logd = torch.zeros(R, H, dtype=torch.float64)
    for t in range(int(p.min()) + 1, int(r.max()) + 1):
        live = ((p < t) & (t <= r[:, None]))[..., None]
        if not live.any():
            continue
        y = x * g[t].exp()[None, :, None]
        y = y - beta[t][None, :, None] * k[t][None] * (k[t][None] * y).sum(-1, keepdim=True)
        x = torch.where(live, y, x)
        logd = logd + live[..., 0] * g[t][None]
    ret = (k[p, heads] * x).sum(-1)
    match = (q[r] * x).sum(-1)
    return ret, logd.exp(), match


def write_positions(beta, recs, where):
    """[R, H] the position each head writes each record at: "value", the byte before the value
    (p = f - 1) for every head; "strongest", the head's largest beta on the definition line
    "#0417 = VALUE;\n" (recall.definition_line), up to the byte before the query reads"""
    H = beta.shape[1]
    if where == "value":
        return torch.tensor([[s["first"] - 1] * H for s in recs])
    out = []
    for s in recs:
        lo, hi = recall.definition_line(s["first"], s["length"])
        hi = min(hi, s["start"] - 1)
        out.append(lo + beta[lo:hi].argmax(0))
    return torch.stack(out)


def key_overlap(k, p):
    """[H] the mean |cos| between two records' write keys, per head: k [T, H, K] a document's keys,
    p [R, H] the write positions (write_positions); nan with fewer than two records. Near 1, every
    record is written along one direction and each write replaces the last"""
    R, H = p.shape
    if R < 2:
        return torch.full((H,), float("nan"), dtype=torch.float64)
    kk = torch.nn.functional.normalize(k[p, torch.arange(H)[None, :]].double(), dim=-1)  # [R, H, K]
    c = torch.einsum("ahk,bhk->hab", kk, kk).abs()
    off = ~torch.eye(R, dtype=torch.bool)
    return c[:, off].mean(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--json", default=os.path.join(REPO, "data/lm/heldout_recall.json"))
    ap.add_argument("--docs", type=int, default=6)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--write-at", choices=["value", "strongest"], default="value",
                    help="where a head writes a record: the byte before its value, or its strongest write "
                         "on the definition line (default: value)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model = load_checkpoint(args.model).eval()
    if model.config["model_type"] != "gated_deltanet":
        sys.exit("heads.py: error: %s is a %s model; this reads GDN heads (one gate a head)"
                 % (args.model, model.config["model_type"]))
    with open(args.json) as f:
        rj = json.load(f)
    base = os.path.dirname(os.path.abspath(args.json))
    L, H = model.config["num_hidden_layers"], model.config["num_heads"]
    gsum = torch.zeros(L, H, dtype=torch.float64)
    bsum = torch.zeros(L, H, dtype=torch.float64)
    bwrite = torch.zeros(L, H, dtype=torch.float64)
    n_bytes = n_recs = 0
    rows = []                                          # (distance, [L,H] ret, decay, match)
    overlap = torch.zeros(L, H, dtype=torch.float64)   # summed over documents (key_overlap)
    where = [[{} for _ in range(H)] for _ in range(L)]  # per head: {(line offset, byte): writes}
    for d in rj["documents"][:args.docs]:
        with open(os.path.join(base, d["file"]), "rb") as f:
            doc = f.read()
        recs = [s for s in d["spans"] if s["kind"] == "record"]
        r = torch.tensor([s["start"] - 1 for s in recs])
        ins = layer_inputs(model, doc)
        per = []
        for li, (q, k, g, beta) in enumerate(ins):
            p = write_positions(beta, recs, args.write_at)
            overlap[li] += key_overlap(k, p)
            for j, s in enumerate(recs):
                lo = recall.definition_line(s["first"], s["length"])[0]
                for h in range(H):
                    at = (int(p[j, h]) - lo, chr(doc[int(p[j, h])]))
                    where[li][h][at] = where[li][h].get(at, 0) + 1
            gsum[li] += g.sum(0)
            bsum[li] += beta.sum(0)
            bwrite[li] += beta[p, torch.arange(H)[None, :]].sum(0)
            per.append(records_through(q, k, g, beta, p, r))
        n_bytes += len(doc)
        n_recs += len(recs)
        for j, s in enumerate(recs):
            rows.append((s["distance"], *(torch.stack([per[li][m][j] for li in range(L)]) for m in range(3))))
        print("read %s: %d bytes, %d records" % (d["file"], len(doc), len(recs)), file=sys.stderr, flush=True)
    half = math.log(2) / (-(gsum / n_bytes))
    bmean, bw = bsum / n_bytes, bwrite / n_recs
    print("model %s: %d documents of %s, %d bytes, %d records; writes at: %s"
          % (args.model, args.docs, args.json, n_bytes, n_recs, args.write_at))
    print("\nwhere each head writes the records (offset on the definition line \"#0417 = VALUE;\": byte, "
          "share of the records) and the mean |cos| between two records' write keys in a document")
    for li in range(L):
        for h in range(H):
            top = sorted(where[li][h].items(), key=lambda kv: -kv[1])[:3]
            print("%d.%d  |cos| %.3f  at %s" % (li, h, overlap[li, h] / args.docs, "  ".join(
                "%d %r %.2f" % (off, ch, n / n_recs) for (off, ch), n in top)))
    for lo, hi in rj["buckets"]:
        sel = [row for row in rows if lo <= row[0] < hi]
        if not sel:
            continue
        med = [torch.stack([row[m] for row in sel]).median(0).values for m in (1, 2, 3)]
        print("\ndistance %d-%d bytes: %d records; medians over them" % (lo, hi, len(sel)))
        print("layer.head  half-life  beta mean  beta at write  retention  decay alone  match")
        for li in range(L):
            for hi_ in range(H):
                print("%d.%d  %10.1f  %9.3f  %13.3f  %9.4f  %11.4f  %6.4f" % (
                    li, hi_, half[li, hi_], bmean[li, hi_], bw[li, hi_], med[0][li, hi_], med[1][li, hi_],
                    med[2][li, hi_]))


if __name__ == "__main__":
    main()
