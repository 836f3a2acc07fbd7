#!/usr/bin/env python3
"""What a GDN or KDA model's heads do with a record: per head, how long its gate keeps a state
(the half-life), how strongly it writes (beta), and how much of a record's write is still there
when the record is asked for.

For a record whose definition "#NNNN = VALUE;" puts its value's first byte at position f, and
whose query "#NNNN ? VALUE" asks for it at position s (the answer's first byte), the head writes
at p = f - 1 with key k_p and reads at r = s - 1 with query q_r (the state after the write at r);
with --write-at strongest, p is each head's strongest write (largest beta) on the definition line
instead, where a model trained with train.py --write-once writes; with --write-at first, p = f, the
value's first byte, whose keys train.py --address-keys trains.
The step maps the state as S_t = A_t S_{t-1} + beta_t k_t v_t^T with A_t = (I - beta_t k_t k_t^T)
D_t, D_t = exp(g_t) (GDN: one gate a head) or diag(exp(g_t)) (KDA: a gate a key channel; method
1, K-first), so what the write at p adds to the read at r is scaled by

    retention  k_p^T A_r ... A_{p+1} k_p   (how much of the written direction survives: decay
                                            and the erosion by every later write along it)
    match      q_r^T A_r ... A_{p+1} k_p   (what the query actually picks up of it)

both in float64 from the model's own q, k, g, beta (tools/lm/model.py's inputs). Decay alone
would give k_p^T D_r ... D_{p+1} k_p (GDN: exp(sum g)); the ratio of retention to that is what the
other writes erased. A KDA head's half-life is that of its mean log gate over its key channels.

With --addressing, instead: whether a head could find a record by its key at all. Records
"#ID = VALUE;\n" for 8 keys x 8 values are each set after the same 600 bytes of held-out prose,
followed by 200 more bytes and the query's head "#ID ? "; per head, the mean |cos| between the
keys written at the definition's ";" (and, in a second table, at its value's first byte, where
train.py --address-keys asks for them) of two records with the same key and different values and
with the same value and different keys, the mean |cos| between the queries (at the byte before the
answer) of two keys, and the mean |q . k| of a query against its own record's key and against
another's. A head that addresses its records by key writes keys that follow the key, not the
value, and reads with queries that differ between keys and meet their own record's key.

Usage: python tools/lm/heads.py MODEL_DIR [--json data/lm/heldout_recall.json] [--docs 6]
       [--threads 1] [--write-at value|first|end|strongest] [--addressing]
Prints where each head writes the records (the offset on the definition line and its byte, the
three most frequent) and how alike its write keys are (the mean |cos| between two records' keys
in a document, averaged over the documents: near 1, each write replaces the last), then one table
per distance bucket: per head its half-life (mean log gate over the documents), mean beta over
all bytes and at the records' writes, and the median retention, decay alone and match over the
bucket's records.
"""
import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import recall  # noqa: E402
from toolcheck import at_least, load_model, recall_documents  # noqa: E402


@torch.no_grad()
def layer_inputs(model, doc):
    """per layer (q, k, v, g, beta) of the document, float64: q, k, v [T,H,K], g [T,H] (GDN) or
    [T,H,K] (KDA), beta [T,H]"""
    x = torch.tensor(list(doc), dtype=torch.long)[None]
    h = model.model.embeddings(x)
    out = []
    for layer in model.model.layers:
        out.append(tuple(t[0].double() for t in layer.attn.inputs(layer.attn_norm(h))))
        h = layer(h)
    return out


def recall_parser(description):
    """the command line of a tool that reads a model and held-out recall documents: MODEL_DIR,
    --json, --docs, --threads"""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("model")
    ap.add_argument("--json", default=os.path.join(REPO, "data/lm/heldout_recall.json"))
    ap.add_argument("--docs", type=int, default=6)
    ap.add_argument("--threads", type=int, default=1)
    return ap


def recall_inputs(args):
    """(model, recall set JSON, its first --docs documents) of recall_parser's arguments, each
    checked before any work (toolcheck's one-line refusals)"""
    at_least(args, 1, "docs", "threads")
    rj, docs = recall_documents(args.json, args.docs)
    if not docs:
        from toolcheck import die
        die("--json %s: no documents in it" % args.json)
    model = load_model(args.model)
    torch.set_num_threads(args.threads)
    return model.eval(), rj, docs


@torch.no_grad()
def records_through(q, k, g, beta, p, r):
    """[R,H] retention, decay alone and match of each record through one layer: written at p
    ([R, H], a position per record and head) and read at r ([R])"""
    (R, H), K = p.shape, k.shape[2]
    heads = torch.arange(H)[None, :]
    x = k[p, heads].clone()                            # [R,H,K] the written directions
    xd = x.clone()                                     # the same under the decays alone
    for t in range(int(p.min()) + 1, int(r.max()) + 1):
        live = ((p < t) & (t <= r[:, None]))[..., None]
        if not live.any():
            continue
        d = g[t].exp()[None, :, None] if g.dim() == 2 else g[t].exp()[None]
        y = x * d
        y = y - beta[t][None, :, None] * k[t][None] * (k[t][None] * y).sum(-1, keepdim=True)
        x = torch.where(live, y, x)
        xd = torch.where(live, xd * d, xd)
    ret = (k[p, heads] * x).sum(-1)
    match = (q[r] * x).sum(-1)
    return ret, (k[p, heads] * xd).sum(-1), match


def write_positions(beta, recs, where):
    """[R, H] the position each head writes each record at: "value", the byte before the value
    (p = f - 1) for every head; "first", the value's first byte (p = f) for every head; "end", the
    ";" after the value (p = f + length, where train.py --write-at-end writes) for every head;
    "strongest", the head's largest beta on the definition line "#0417 = VALUE;\n"
    (recall.definition_line), up to the byte before the query reads"""
    H = beta.shape[1]
    offset = {"value": lambda s: -1, "first": lambda s: 0, "end": lambda s: s["length"]}
    if where in offset:
        return torch.tensor([[s["first"] + offset[where](s)] * H for s in recs])
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


ADDRESS_VALUES = [b"Hezekiah", b"Abigail", b"Methuselah", b"Naomi", b"Jeroboam", b"Zilpah", b"Eli", b"Bathsheba"]


def addressing_texts(prose, keys, values):
    """{(key, value): (text, p, f, r)}: prose, the definition line, 200 bytes of prose again and the
    query's head; p the definition's ";", f its value's first byte (where train.py --address-keys
    asks for the key), r the query's last byte (the byte before the answer)"""
    out = {}
    for key in keys:
        for val in values:
            line = b"#" + key + b" = " + val + b";\n"
            text = prose + line + prose[:200] + b"#" + key + b" ? "
            out[(key, val)] = (text, len(prose) + len(line) - 2, len(prose) + 8, len(text) - 1)
    return out


def addressing_table(kq):
    """[H, 5] from kq {(key, value): (k [H,K] at the write, q [H,K] at the read)}: mean |cos| of the
    write keys of two records with the same key (values differ), with the same value (keys differ),
    of the queries of two keys (first value's texts), then mean |q . k| against the record's own
    key and against a record of another key (unit vectors)"""
    keys = sorted(set(k for k, _ in kq))
    vals = sorted(set(v for _, v in kq))
    n = lambda x: torch.nn.functional.normalize(x, dim=-1)
    kk = {kv: n(t[0]) for kv, t in kq.items()}
    qq = {key: n(kq[(key, vals[0])][1]) for key in keys}
    cos = lambda a, b: (a * b).sum(-1).abs()
    mean = lambda xs: torch.stack(xs).mean(0)
    return torch.stack([
        mean([cos(kk[(key, a)], kk[(key, b)]) for key in keys for a in vals for b in vals if a < b]),
        mean([cos(kk[(a, v)], kk[(b, v)]) for v in vals for a in keys for b in keys if a < b]),
        mean([cos(qq[a], qq[b]) for a in keys for b in keys if a < b]),
        mean([cos(qq[key], kk[(key, v)]) for key in keys for v in vals]),
        mean([cos(qq[a], kk[(b, v)]) for a in keys for b in keys if a != b for v in vals]),
    ], dim=1)


def addressing(model, prose):
    """prints addressing_table of every head of the model for 8 keys drawn by random.Random(1)"""
    import random
    rng = random.Random(1)
    keys = [b"%04d" % rng.randrange(10000) for _ in range(len(ADDRESS_VALUES))]
    per = {}  # (write position, layer) -> {(key, value): (k, q)}
    for kv, (text, p, f, r) in addressing_texts(prose, keys, ADDRESS_VALUES).items():
        for li, (q, k, _, _, _) in enumerate(layer_inputs(model, text)):
            per.setdefault((";", li), {})[kv] = (k[p], q[r])
            per.setdefault(("first value byte", li), {})[kv] = (k[f], q[r])
    print("addressing: 8 keys x 8 values after %d bytes of prose; mean |cos| of the write keys (same key, "
          "values differ | same value, keys differ), of two keys' queries, and mean |q . k| against the record's "
          "own key and another key's" % len(prose))
    for where in (";", "first value byte"):
        print("\nwrite keys at the definition's %s" % where)
        print("layer.head  keys same key  keys same value  queries  q.k own  q.k other")
        for (w, li) in sorted(k for k in per if k[0] == where):
            t = addressing_table(per[(w, li)])
            for h in range(t.shape[0]):
                print("%d.%d  %13.3f  %15.3f  %7.3f  %7.3f  %9.3f" % (li, h, *t[h].tolist()))


def main():
    ap = recall_parser(__doc__.split("\n\n")[0])
    ap.add_argument("--write-at", choices=["value", "first", "end", "strongest"], default="value",
                    help="where a head writes a record: the byte before its value, its first byte (where "
                         "train.py --address-keys trains the keys), the ';' after it (train.py --write-at-end) or "
                         "its strongest write on the definition line (default: value)")
    ap.add_argument("--addressing", action="store_true",
                    help="print whether each head could find a record by its key (see above) instead")
    args = ap.parse_args()
    model, rj, docs = recall_inputs(args)
    base = os.path.dirname(os.path.abspath(args.json))
    if args.addressing:
        with open(os.path.join(base, rj["documents"][0]["file"]), "rb") as f:
            addressing(model, bytes(b for b in f.read()[:600] if b != ord("#")))
        return
    L, H = model.config["num_hidden_layers"], model.config["num_heads"]
    gsum = torch.zeros(L, H, dtype=torch.float64)
    bsum = torch.zeros(L, H, dtype=torch.float64)
    bwrite = torch.zeros(L, H, dtype=torch.float64)
    n_bytes = n_recs = 0
    rows = []                                          # (distance, [L,H] ret, decay, match)
    overlap = torch.zeros(L, H, dtype=torch.float64)   # summed over documents (key_overlap)
    where = [[{} for _ in range(H)] for _ in range(L)]  # per head: {(line offset, byte): writes}
    for d in docs:
        with open(os.path.join(base, d["file"]), "rb") as f:
            doc = f.read()
        recs = [s for s in d["spans"] if s["kind"] == "record"]
        r = torch.tensor([s["start"] - 1 for s in recs])
        ins = layer_inputs(model, doc)
        per = []
        for li, (q, k, _, g, beta) in enumerate(ins):
            p = write_positions(beta, recs, args.write_at)
            overlap[li] += key_overlap(k, p)
            for j, s in enumerate(recs):
                lo = recall.definition_line(s["first"], s["length"])[0]
                for h in range(H):
                    at = (int(p[j, h]) - lo, chr(doc[int(p[j, h])]))
                    where[li][h][at] = where[li][h].get(at, 0) + 1
            gsum[li] += g.sum(0) if g.dim() == 2 else g.mean(-1).sum(0)
            bsum[li] += beta.sum(0)
            bwrite[li] += beta[p, torch.arange(H)[None, :]].sum(0)
            per.append(records_through(q, k, g, beta, p, r))
        n_bytes += len(doc)
        n_recs += len(recs)
        for j, s in enumerate(recs):
            rows.append((s["distance"], *(torch.stack([per[li][m][j] for li in range(L)]) for m in range(3))))
        print("read %s: %d bytes, %d records" % (d["file"], len(doc), len(recs)), file=sys.stderr, flush=True)
    half = math.log(2) / (-(gsum / n_bytes))
    bmean, bw = bsum / n_bytes, bwrite / max(n_recs, 1)
    print("model %s: %d documents of %s, %d bytes, %d records; writes at: %s"
          % (args.model, len(docs), args.json, n_bytes, n_recs, args.write_at))
    print("\nwhere each head writes the records (offset on the definition line \"#0417 = VALUE;\": byte, "
          "share of the records) and the mean |cos| between two records' write keys in a document")
    for li in range(L):
        for h in range(H):
            top = sorted(where[li][h].items(), key=lambda kv: -kv[1])[:3]
            print("%d.%d  |cos| %.3f  at %s" % (li, h, overlap[li, h] / len(docs), "  ".join(
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
