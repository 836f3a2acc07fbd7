#!/usr/bin/env python3
"""Train a byte-level GDN or KDA language model on the corpus of corpus.py (CPU).

Example (what trained data/lm/gdn):
  nice -n 10 tools/lm/.venv/bin/python tools/lm/train.py --model gdn --out tools/lm/runs/gdn

Byte vocabulary (256, no special tokens).  AdamW (betas 0.9/0.95, weight decay on matrices
only), linear warmup then cosine decay to 10% of the peak, gradient clipping, training
windows of --seq bytes (default 2048) drawn uniformly from the training streams of the three
domains with fixed probabilities.  Deterministic for a seed and a thread count.

Writes into --out: config.json, model.safetensors (float32), train.log, metrics.json,
command.txt; a checkpoint is written at every evaluation, so an interrupted run leaves one.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _malloc_returns_memory():
    """--return-memory: glibc's malloc raises its mmap threshold as large blocks are freed, after
    which the training step's tensors (tens of MB each) come from the heap and are never given
    back: a KDA run on 10240-byte windows grew to 12.5 GB resident in four steps against a 5.3 GB
    peak of live tensors. A fixed threshold (M_MMAP_THRESHOLD = 64 KiB) and no trimming delay
    (M_TRIM_THRESHOLD = 0) keep it at that peak. It costs time: every block over 64 KiB is then
    mapped afresh (a GDN step on a 4096-byte window, one thread: 6.58 s against 2.94 s, with a
    peak of 1.9 GB resident against 4.3 GB; tools/lm/step_time.py, docs/training-log.md)."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 65536)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 0)      # M_TRIM_THRESHOLD
    except OSError:
        pass


sys.path.insert(0, HERE)
from model import DeltaLM, gate_proj, inverse_softplus, l2norm, make_config, save_checkpoint  # noqa: E402
from toolcheck import die  # noqa: E402
import recall  # noqa: E402

DOMAINS = (("prose", 0.5), ("fortunes", 0.15), ("code", 0.35))


def load_corpus(corpus):
    streams = {}
    for dom, _ in DOMAINS:
        with open(os.path.join(corpus, "train_%s.bin" % dom), "rb") as f:
            streams[dom] = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8)
    with open(os.path.join(corpus, "manifest.json")) as f:
        man = json.load(f)
    held = {"prose": [], "code": []}
    for d in man["documents"]:
        if d["split"] == "heldout":
            with open(os.path.join(corpus, d["file"]), "rb") as f:
                held[d["domain"]].append((d["name"], f.read()))
    return streams, held


def batch(streams, gen, B, T):
    probs = torch.tensor([p for _, p in DOMAINS])
    doms = torch.multinomial(probs, B, replacement=True, generator=gen)
    rows = []
    for i in range(B):
        s = streams[DOMAINS[int(doms[i])][0]]
        st = int(torch.randint(0, len(s) - T - 1, (1,), generator=gen))
        rows.append(s[st:st + T + 1])
    x = torch.stack(rows).long()
    return x[:, :-1], x[:, 1:]


def recall_batch(streams, gen, B, T, name_list, args):
    """B windows of T+1 bytes, each a host slice of T+1 bytes with recall material woven in
    (recall.weave, seeded from gen) and cut back to T+1 bytes; every query or copy lies whole in
    the window.  Returns x, y, w (the loss weight of each predicted byte: args.answer_weight on
    answer bytes, 1 elsewhere) and lines (at each input byte, 0 outside the records' definition
    lines "#0417 = Hezekiah;\n", k on the k-th of them in the window, from 1: --spare-records
    counts the writes where it is 0, --write-once takes one write from each line)."""
    probs = torch.tensor([p for _, p in DOMAINS])
    doms = torch.multinomial(probs, B, replacement=True, generator=gen)
    rows, weights, lines = [], [], []
    for i in range(B):
        s = streams[DOMAINS[int(doms[i])][0]]
        st = int(torch.randint(0, len(s) - T - 1, (1,), generator=gen))
        seed = int(torch.randint(0, 2**62, (1,), generator=gen))
        host = bytes(s[st:st + T + 1].numpy())
        doc, spans = recall.weave(host, seed, name_list, n_records=args.records, n_passages=args.passages,
                                  dmin=args.dmin, dmax=args.dmax, limit=T + 1 - args.recall_margin,
                                  block=args.record_blocks)
        doc = doc[:T + 1]
        w = torch.ones(T)
        o = torch.zeros(T, dtype=torch.long)
        for sp in spans:
            n = sp["length"] + (args.with_terminator and sp["kind"] == "record")
            if sp["start"] + n <= T + 1:
                w[sp["start"] - 1:sp["start"] - 1 + n] = args.answer_weight
        defs = sorted({(sp["first"], sp["length"]) for sp in spans if sp["kind"] == "record"})
        for k, (first, length) in enumerate(defs, 1):
            lo, hi = recall.definition_line(first, length)
            o[max(lo, 0):min(hi, T)] = k
        rows.append(torch.tensor(list(doc), dtype=torch.long))
        weights.append(w)
        lines.append(o)
    x = torch.stack(rows)
    return x[:, :-1], x[:, 1:], torch.stack(weights), torch.stack(lines)


def value_ends(lines):
    """[B, T] of 0.0 and 1.0 from recall_batch's lines: 1 at each record definition line's ";",
    the byte after the value ("#0417 = Hezekiah;\n": the first byte at which the whole value has
    been read), 0 elsewhere (--write-at-end rewards the writes there)"""
    nxt = torch.cat([lines[:, 1:], torch.zeros_like(lines[:, :1])], 1)
    last = (lines != 0) & (nxt != lines)  # each line's last byte, its "\n"
    back = recall.RECORD_TAIL - 1
    ends = torch.zeros_like(last)
    ends[:, :-back] = last[:, back:]
    return ends.to(torch.float32)


@torch.no_grad()
def recall_eval(model, docs, mode="chunk"):
    """Exact-match share and mean answer NLL per distance bucket over docs [(doc, spans)],
    records only: [(n, exact share, mean nll)] per recall.BUCKETS, then [(n, exact share)] of the
    records with no other record defined between their definition and their query and of those
    with one or more (recall.defined_between: a model that answers by recency fails the second)"""
    acc = [[0, 0, 0.0] for _ in recall.BUCKETS]
    apart = [[0, 0], [0, 0]]
    for doc, spans in docs:
        x = torch.tensor(list(doc), dtype=torch.long)[None]
        logits = model(x[:, :-1], mode=mode)[0]
        recs = [s for s in spans if s["kind"] == "record"]
        for s, r in zip(recs, recall.answer_scores(logits, doc, recs)):
            b = recall.bucket_of(s["distance"])
            if r is None or b is None:
                continue
            acc[b][0] += 1
            acc[b][1] += int(r[1])
            acc[b][2] += r[0]
            a = apart[min(recall.defined_between(doc, s["first"], s["length"], s["start"]), 1)]
            a[0] += 1
            a[1] += int(r[1])
    share = lambda n, e: e / n if n else float("nan")
    return [(n, share(n, e), l / n if n else float("nan")) for n, e, l in acc], [(n, share(n, e)) for n, e in apart]


@torch.no_grad()
def bits_per_byte(model, docs, max_len, mode="chunk"):
    """Mean bits per predicted byte over docs, each read from its start as one sequence of at
    most max_len bytes (byte t+1 predicted from bytes 0..t; the first byte is not predicted)."""
    nats, n = 0.0, 0
    for _, text in docs:
        x = torch.tensor(list(text[:max_len]), dtype=torch.long)[None]
        logits = model(x[:, :-1], mode=mode)
        nats += F.cross_entropy(logits[0].double(), x[0, 1:], reduction="sum").item()
        n += x.shape[1] - 1
    return nats / n / math.log(2), n


@torch.no_grad()
def half_lives(model, docs, max_len):
    """Per layer and head, from the gates on held-out text: half-life = ln 2 / -mean(g).
    GDN: one number per head.  KDA: per key channel, summarised per head (min, quartiles, max)."""
    per_layer = [[] for _ in model.model.layers]
    for _, text in docs:
        x = torch.tensor(list(text[:max_len]), dtype=torch.long)[None]
        h = model.model.embeddings(x)
        for i, layer in enumerate(model.model.layers):
            _, _, _, g, _ = layer.attn.inputs(layer.attn_norm(h))
            per_layer[i].append(g[0].double())                # [T,H] or [T,H,K]
            h = layer(h)
    out = []
    for i, gs in enumerate(per_layer):
        gm = torch.cat(gs, 0).mean(0)                         # [H] or [H,K]
        hl = math.log(2) / (-gm)
        if hl.dim() == 1:
            out.append([float(v) for v in hl])
        else:
            heads = []
            for hh in hl:
                s = torch.sort(hh).values
                qs = [float(s[int(round(p * (len(s) - 1)))]) for p in (0, 0.25, 0.5, 0.75, 1.0)]
                heads.append(dict(min=qs[0], q25=qs[1], median=qs[2], q75=qs[3], max=qs[4],
                                  gt_1000=int((hh > 1000).sum()), lt_2=int((hh < 2).sum())))
            out.append(heads)
    return out


def long_gate_heads(model, spec):
    """--long-gates "L.H,...": [(layer, head)] of a GDN or KDA model, checked"""
    L, H = model.config["num_hidden_layers"], model.config["num_heads"]
    out = []
    for item in spec.split(","):
        try:
            l, h = (int(x) for x in item.split("."))
        except ValueError:
            die("--long-gates %r: %r is not layer.head" % (spec, item))
        if not (0 <= l < L and 0 <= h < H):
            die("--long-gates %r: %r is outside %d layers x %d heads" % (spec, item, L, H))
        out.append((l, h))
    return out


def _gate_rows(attn, h):
    """what sets head h's decay beside A_log[h]: its entries of dt_bias and rows of gate_proj.
    GDN: entry h. KDA, one decay per key channel: entries h K ... (h+1) K - 1."""
    return slice(h, h + 1) if hasattr(attn, "a_proj") else slice(h * attn.K, (h + 1) * attn.K)


def set_long_gates(model, heads, half_life):
    """heads [(layer, head)] start at a constant decay g = -ln 2 / half_life (KDA: on each of their
    key channels): A_log 0, dt_bias the inverse softplus of ln 2 / half_life, the gate
    projection's rows zeroed (_gate_rows of gate_proj); returns their dt_bias (one per head)"""
    if not half_life > 1:
        die("--long-gate-half-life %g: give a half-life above 1 token" % half_life)
    out = []
    for l, h in heads:
        attn = model.model.layers[l].attn
        dt = math.log(2) / half_life
        rows, proj = _gate_rows(attn, h), gate_proj(attn)
        with torch.no_grad():
            attn.A_log[h] = 0.0
            attn.dt_bias[rows] = inverse_softplus(dt)
            proj[rows].zero_()
        out.append(float(attn.dt_bias[rows][0]))
    return out


def freeze_gates(model, heads):
    """--freeze-long-gates: the gates of heads [(layer, head)] get no gradient (A_log and
    _gate_rows: dt_bias and gate_proj's rows), so AdamW leaves them where they are:
    heads of a fixed decay"""
    for li in sorted({l for l, _ in heads}):
        attn = model.model.layers[li].attn
        keep = torch.ones(attn.H)
        keep_rows = torch.ones(attn.dt_bias.shape[0])
        for l, h in heads:
            if l == li:
                keep[h] = 0.0
                keep_rows[_gate_rows(attn, h)] = 0.0
        for p, m in ((attn.A_log, keep), (attn.dt_bias, keep_rows), (gate_proj(attn), keep_rows[:, None])):
            p.register_hook(lambda g, m=m: g * m.to(g.dtype))


def heads_by_layer(heads):
    """heads [(layer, head)] as {layer: [head, ...]}, in the order given"""
    out = {}
    for l, h in heads:
        out.setdefault(l, []).append(h)
    return out


class HeadRows:
    """the rows of heads [(layer, head)] in a model's last training forward, which every loss on
    them below reads (one set of hooks for all): per layer, in the order the forward runs them,
    (k, q, b) with k and q the keys and queries before the layer's l2norm ([B, T, heads, K], its
    k_conv1d and q_conv1d outputs; the recurrence reads them through the l2norm) and b the
    write-strength logits ([B, T, heads], b_proj's: beta = sigmoid(b)), all with their graphs. A
    training forward of the model starts them afresh; an evaluation forward leaves them"""

    def __init__(self, model, heads):
        self.layers = {}
        model.register_forward_pre_hook(lambda mod, inp: self.layers.clear() if mod.training else None)
        for l, hs in heads_by_layer(heads).items():
            attn = model.model.layers[l].attn
            for name, part, K in (("k", attn.k_conv1d, attn.K), ("q", attn.q_conv1d, attn.K), ("b", attn.b_proj, None)):
                part.register_forward_hook(lambda mod, inp, out, l=l, hs=hs, name=name, K=K:
                                           self._keep(l, name, out, hs, K) if mod.training else None)

    def _keep(self, l, name, out, hs, K):
        rows = out[..., hs] if K is None else out.reshape(*out.shape[:2], -1, K)[:, :, hs]
        self.layers.setdefault(l, {})[name] = rows

    def __call__(self):
        """[(k, q, b)], a layer's each"""
        return [(r["k"], r["q"], r["b"]) for r in self.layers.values()]


class WriteStrength:
    """--sparse-writes: the mean write strength beta of the heads of rows (HeadRows) over the
    positions of the last training forward"""

    def __init__(self, rows):
        self.rows = rows

    def _take(self):
        """the betas of the last training forward"""
        return [torch.sigmoid(b) for _, _, b in self.rows()]

    @staticmethod
    def _over(betas, where):
        """their mean over the positions where `where` ([B, T] of 0 and 1) is 1; 0 if there is none"""
        total = sum((b * where[..., None]).sum() for b in betas)
        count = sum(where.sum() * b.shape[-1] for b in betas)
        return total / count.clamp(min=1)

    def mean(self, where=None):
        """the mean beta (a tensor with its graph); where
        ([B, T] of 0 and 1): over the positions where it is 1 only"""
        betas = self._take()
        if where is None:
            return torch.cat([b.reshape(-1) for b in betas]).mean()
        return self._over(betas, where)

    def means(self, where):
        """(the mean beta where `where` is 1, the mean beta where it is 0): --spare-records' weighed
        writes and --record-writes' rewarded ones"""
        betas = self._take()
        return self._over(betas, where), self._over(betas, 1 - where)

    def once(self, lines):
        """--write-once: (the mean beta over every position but each head's strongest write on each
        record definition line, the mean of those strongest writes); lines [B, T] as recall_batch
        gives it (0 outside the lines, k on the k-th). Each long head is asked to write each record
        once, where it chooses, and nowhere else, so that a window's records take a few of its 128
        key directions instead of one per byte."""
        betas = self._take()
        B, T = lines.shape
        n = int(lines.max()) + 1
        ids = (lines + n * torch.arange(B)[:, None]).reshape(-1)  # (window, line) as one index
        is_line = torch.zeros(B * n, dtype=torch.bool)
        is_line[ids] = True
        is_line[::n] = False  # line 0 of each window: outside the lines
        rest, rest_n, top, top_n = 0, 0, 0, 0
        for b in betas:
            h = b.shape[-1]
            flat = b.reshape(B * T, h)
            peak = torch.zeros(B * n, h, dtype=flat.dtype).scatter_reduce(
                0, ids[:, None].expand(-1, h), flat, reduce="amax", include_self=False)[is_line]
            rest = rest + flat.sum() - peak.sum()
            top = top + peak.sum()
            rest_n += B * T * h - peak.numel()
            top_n += peak.numel()
        return rest / max(rest_n, 1), top / max(top_n, 1)


class WriteKeys:
    """--distinct-keys: the keys the heads of rows (HeadRows) write with in the last training
    forward"""

    def __init__(self, rows):
        self.rows = rows

    def overlap(self, ends):
        """the mean squared cosine between the keys two records are written with in one window (at
        the positions where ends [B, T], value_ends' marks, is 1), over the pairs, heads and windows
        (a tensor with its graph); 0 where no window holds two
        records. Near 1, every record is written along one direction and each write replaces the last"""
        total, count = 0, 0
        for k, _, _ in self.rows():  # [B, T, heads, K]
            for b in range(ends.shape[0]):
                pos = ends[b].nonzero().flatten()
                R = len(pos)
                if R < 2:
                    continue
                kk = l2norm(k[b, pos])  # [R, heads, K], the keys the recurrence writes with
                c2 = torch.einsum("ahk,bhk->hab", kk, kk) ** 2
                total = total + c2[:, ~torch.eye(R, dtype=torch.bool)].sum()
                count += c2.shape[0] * R * (R - 1)
        return total / max(count, 1)


ADDRESS_SCALE = 10.0  # --address-keys: the scale of the cosines the softmax compares (--address-scale)


def value_bytes(x, terminator=False):
    """[B, T] of 0.0 and 1.0 over windows x [B, T] (bytes): 1 at the value bytes of each record
    definition line "#0417 = Hezekiah;" whose ";" lies in the window, and at the ";" too with
    terminator (--value-writes rewards the writes there)"""
    out = torch.zeros(x.shape)
    for b, row in enumerate(x.tolist()):
        for _, first, end in recall.definition_lines(bytes(row)):
            if end >= 0:
                out[b, first:end + 1 if terminator else end] = 1
    return out


def address_pairs(x, at="first", terminator=False):
    """per window of x [B, T] (bytes): (keys, asks) with keys the positions in the records'
    definition lines "#0417 = Hezekiah;" where a head that finds a record by its number writes it:
    at="first", the value's first byte; at="end", the ";" after the value (--write-at-end's
    write); at="every", each of the value's bytes (each a key of its own), and the ";" after them
    with terminator; and asks [(position,
    index into keys)] the byte before the answer of each query line "#0417 ? " whose record is
    defined in the window, where the query for that byte is made (at="every": the byte before
    each answer byte in the window, paired with the value byte it answers with); read from the
    bytes themselves"""
    T, out = x.shape[1], []
    for row in x.tolist():
        doc = bytes(row)
        defs = {}
        for number, first, end in recall.definition_lines(doc):
            if at == "every" and 0 <= end < T + (not terminator):
                defs[number] = list(range(first, end + terminator))
            elif at != "every":
                p = first if at == "first" else end
                if 0 <= p < T:
                    defs[number] = [p]
        index, keys = {}, []
        for number, ps in defs.items():
            index[number] = len(keys)
            keys += ps
        asks = [(m.end() - 1 + j, index[m.group(1)] + j) for m in recall.QUERY_HEAD.finditer(doc) if m.group(1) in index
                for j in range(len(defs[m.group(1)])) if m.end() - 1 + j < T]
        out.append((keys, asks))
    return out


class AddressKeys:
    """--address-keys MU: teaches the heads of rows (HeadRows) to find a record by its number. For
    each query of a window (address_pairs), the cross-entropy of picking its own record's key among
    the keys of every record defined in the window, by the cosine between the head's query at the
    byte before the answer and each key where address_pairs puts it (--address-at: a first value
    byte, the ";" after the value, or with at="every" each value byte, asked for by the byte before
    the answer byte it gives), times scale (--address-scale), averaged over the queries, heads and
    windows of the last training forward"""

    def __init__(self, rows, scale=ADDRESS_SCALE):
        self.rows, self.scale = rows, scale

    def loss(self, pairs):
        """the mean cross-entropy (a tensor with its graph; 0 without a query)"""
        total, count = 0, 0
        for k, q, _ in self.rows():  # a layer's [B, T, heads, K]
            for b, (keys, asks) in enumerate(pairs):
                if not asks or len(keys) < 2:
                    continue
                kk = l2norm(k[b, keys])                             # [R, heads, K]
                qq = l2norm(q[b, [p for p, _ in asks]])             # [A, heads, K]
                logits = self.scale * torch.einsum("ahk,rhk->har", qq, kk)
                target = torch.tensor([i for _, i in asks]).repeat(logits.shape[0])
                total = total + F.cross_entropy(logits.reshape(-1, len(keys)), target, reduction="sum")
                count += logits.shape[0] * len(asks)
        return total / max(count, 1)


def record_spans(x):
    """per window of x [B, T] (bytes): [(p, e)] for each record whose definition line "#0417 =
    Hezekiah;" lies whole in the window, p its value's first byte (where --address-keys reads its
    key) and e its ";"; a number defined twice keeps its last definition"""
    T, out = x.shape[1], []
    for row in x.tolist():
        doc = bytes(row)
        defs = {}
        for number, first, end in recall.definition_lines(doc):
            if 0 <= end < T:
                defs[number] = (first, end)
        out.append(list(defs.values()))
    return out


def erosion(keys, betas, spans):
    """[R, heads]: for each record (p, e) of spans, sum over t > e of betas[t] (keys[t] . keys[p])^2,
    for keys [T, heads, K] (unit rows, as the recurrence reads them) and betas [T, heads] of one
    window. A delta-rule write with key k_t and strength beta_t leaves 1 - beta_t (k_t . k_p)^2 of
    what a record's key k_p reads, so the sum is about -ln of the share of the record the writes
    after its line leave"""
    p = torch.tensor([a for a, _ in spans])
    e = torch.tensor([b for _, b in spans])
    c2 = torch.einsum("thk,rhk->rht", keys, keys[p]) ** 2
    later = (torch.arange(keys.shape[0])[None, :] > e[:, None]).to(keys.dtype)  # [R, T]
    return (c2 * betas.T[None] * later[:, None, :]).sum(-1)


class RecordErosion:
    """--keep-records NU: the mean over the records of a window, heads [(layer, head)] and windows of
    the last training forward of erosion(): how much the writes of the heads of rows (HeadRows)
    after a record's definition line take from what its key reads. Their strengths enter as
    constants, so the loss moves only the keys: each write's key away from the records written
    before it, in proportion to its strength; where the heads write is left to --sparse-writes and
    --record-writes"""

    def __init__(self, rows):
        self.rows = rows

    def loss(self, spans):
        """the mean erosion (a tensor with its graph; 0 without a record)"""
        total, count = 0, 0
        for k, _, b in self.rows():  # a layer's [B, T, heads, K] and [B, T, heads]
            beta = torch.sigmoid(b.detach())
            for w, sp in enumerate(spans):
                if sp:
                    er = erosion(l2norm(k[w]), beta[w], sp)
                    total = total + er.sum()
                    count += er.numel()
        return total / max(count, 1)


def query_spans(x):
    """per window of x [B, T] (bytes): [(r, lines)] for each query line "#0417 ? " of the window, r
    the byte before its answer (where the query reads) and lines the [lo, hi) of every other
    record's whole definition line "#0417 = VALUE;\n" that ends by r (its own record's left out)"""
    T, out = x.shape[1], []
    for row in x.tolist():
        doc = bytes(row)
        lines = [(n, first - recall.RECORD_HEAD, end + recall.RECORD_TAIL)
                 for n, first, end in recall.definition_lines(doc) if 0 <= end and end + recall.RECORD_TAIL <= T]
        out.append([(m.end() - 1, [(lo, hi) for n, lo, hi in lines if hi <= m.end() - 1 and n != m.group(1)])
                    for m in recall.QUERY_HEAD.finditer(doc)])
    return out


class CrossTalk:
    """--cross-talk NU: what the heads of rows (HeadRows) read at a query of the records it does not
    ask for. Per query (query_spans), the sum over the bytes t of the window's other records'
    definition lines written before it of beta_t (q_r . k_t)^2, the query q_r at the byte before the
    answer and the keys k_t unit rows as the recurrence reads them, beta_t a constant; averaged over
    the queries, heads and windows of the last training forward. A write of strength beta along k_t
    adds beta (q . k_t) v_t to the read, so the sum is the energy of the other records' part of it
    (erosion and decay left out: an upper bound). Random unit keys in K dimensions give (sum of
    beta) / K"""

    def __init__(self, rows):
        self.rows = rows

    def loss(self, spans):
        """the mean cross-talk (a tensor with its graph; 0 without a query)"""
        total, count = 0, 0
        for k, q, b in self.rows():  # [B, T, heads, K], [B, T, heads]
            beta = torch.sigmoid(b.detach())
            for w, asks in enumerate(spans):
                for r, lines in asks:
                    count += k.shape[2]
                    if not lines:
                        continue
                    pos = torch.cat([torch.arange(lo, hi) for lo, hi in lines])
                    c = torch.einsum("phk,hk->ph", l2norm(k[w, pos]), l2norm(q[w, r]))
                    total = total + (beta[w, pos] * c ** 2).sum()
        return total / max(count, 1)


class HeadDropout:
    """--drop-long-heads P: each training window leaves out the output of each of heads [(layer,
    head)] with probability P, at least one of them kept (zeroed at the input of its layer's
    o_proj, after the per-head output norm, so the head adds nothing to the residual stream): the
    loss then asks each of them to hold what the long heads hold alone, and the memory becomes
    redundant across them. Draws from its own generator (saved with the run's state)."""

    def __init__(self, model, heads, p, gen):
        self.heads, self.p, self.gen, self.masks = heads, p, gen, {}
        self.layers = {l: model.model.layers[l].attn for l, _ in heads}
        for l, attn in self.layers.items():
            attn.o_proj.register_forward_pre_hook(
                lambda mod, inp, l=l: (inp[0] * self.masks[l],) if mod.training and l in self.masks else None)

    def draw(self, B):
        """new masks for a batch of B windows; returns the [B, heads] 0/1 of what was dropped"""
        n = len(self.heads)
        drop = torch.rand(B, n, generator=self.gen) < self.p
        keep = torch.randint(n, (B,), generator=self.gen)  # drawn always: the stream never depends on drop
        drop[torch.arange(B), keep] &= ~drop.all(dim=1)
        self.masks = {}
        for l, attn in self.layers.items():
            m = torch.ones(B, attn.H, attn.V)
            for i, (ll, h) in enumerate(self.heads):
                if ll == l:
                    m[:, h, :] = (~drop[:, i]).to(m.dtype)[:, None]
            self.masks[l] = m.reshape(B, 1, attn.H * attn.V)
        return drop


# the options a resumed run may give otherwise than the run it continues: none changes what it trains
RESUME_MAY_DIFFER = ("resume", "out", "stop_after", "log_every", "return_memory")


def resume_state(ap, args, state_path):
    """--resume: the run's state.pt, after refusing (before any work or write) a run that has
    finished (its metrics.json written, or its state at --steps) and a resume whose settings differ
    from the run's (each differing option named with both values)"""
    done = os.path.join(args.out, "metrics.json")
    if os.path.exists(done):
        die("--resume: the run in %s has finished (%s written): it is not continued; give a new --out, or "
            "--init-from %s for another run" % (args.out, done, args.out))
    try:
        st = torch.load(state_path, weights_only=False)
        step, was_args = int(st["step"]), dict(st["args"])
    except Exception as e:  # a cut or foreign file: torch's and pickle's errors have no common type
        die("--resume: %s: not a checkpoint of train.py (%s: %s)" % (state_path, type(e).__name__, e))
    # a setting that a run's state.pt predates had its default there
    was = {k: was_args.get(k, ap.get_default(k)) for k in vars(args) if k not in RESUME_MAY_DIFFER}
    diff = [k for k in was if was[k] != getattr(args, k)]
    if diff:
        die("--resume with other settings than the run in %s: %s" % (args.out, "; ".join(
            "--%s %s here, %s in the run" % (k.replace("_", "-"), getattr(args, k), was[k]) for k in diff)))
    if step >= args.steps:
        die("--resume: the run in %s is at step %d of its %d: it has finished" % (args.out, step, args.steps))
    return st


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["gdn", "kda"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--inter", type=int, default=384)
    ap.add_argument("--tied", action="store_true", help="tie lm_head to the embedding (default: separate)")
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--warmup", type=int, default=60)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--min-lr-frac", type=float, default=0.1)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--eval-every", type=int, default=50, help="steps between evaluations, each followed by a checkpoint (0: only the final "
                    "evaluation, no checkpoint before the end)")
    ap.add_argument("--eval-docs", type=int, default=8, help="held-out docs per domain in periodic evals")
    ap.add_argument("--eval-len", type=int, default=4096, help="bytes per doc in periodic evals")
    ap.add_argument("--final-len", type=int, default=65536, help="bytes per doc (at most) in the final eval")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--init-from", default=None,
                    help="continue from this checkpoint directory (its config wins over the shape options; "
                         "fresh optimizer, warmup and cosine over --steps); the data stream uses --seed")
    ap.add_argument("--stop-after", type=int, default=None,
                    help="stop after this many steps of the --steps schedule, save the checkpoint, skip the final "
                         "eval (reproduces a run that was stopped there)")
    ap.add_argument("--long-gates", default=None, metavar="L.H[,L.H...]",
                    help="before the first step, give these heads (layer.head, from 0) a constant decay of "
                         "--long-gate-half-life tokens (KDA: on every key channel): A_log 0, dt_bias the inverse "
                         "softplus of ln 2 / half-life, their rows of the gate's projection zeroed (GDN a_proj, "
                         "KDA f_proj's second layer; training is free to move all three)")
    ap.add_argument("--long-gate-half-life", type=float, default=2048.0,
                    help="half-life in tokens that --long-gates starts its heads at")
    ap.add_argument("--freeze-long-gates", action="store_true",
                    help="keep the --long-gates heads' gates where they start (A_log, dt_bias and the a_proj row get "
                         "no gradient): heads of a fixed decay")
    ap.add_argument("--sparse-writes", type=float, default=0.0, metavar="LAMBDA",
                    help="add LAMBDA times the --long-gates heads' mean write strength beta (over every position "
                         "of the window) to the loss: those heads learn to write where the loss needs it (the "
                         "records) and to leave their state alone elsewhere, which the delta rule's later writes "
                         "would otherwise erase")
    ap.add_argument("--drop-long-heads", type=float, default=0.0, metavar="P",
                    help="leave out each --long-gates head's output with probability P in each training window, "
                         "at least one kept, so that each must hold the records alone (redundant memory)")
    ap.add_argument("--tokens-before", type=int, default=0,
                    help="tokens the --init-from checkpoint had already seen (for the logs and metrics.json)")
    ap.add_argument("--recall", action="store_true",
                    help="weave recall material (recall.py) into every training window")
    ap.add_argument("--records", type=int, default=24, help="records per window (--recall)")
    ap.add_argument("--passages", type=int, default=3, help="repeated passages per window (--recall)")
    ap.add_argument("--values", choices=["names", "novel"], default="names",
                    help="the records' values (--recall): names of the training prose (one list, so a model can "
                         "memorise them), or novel strings made for each record (recall.novel_value), which a "
                         "model can only copy; novel values are checked against data/lm/heldout_recall_novel.json's")
    ap.add_argument("--dmin", type=float, default=16, help="shortest wanted distance (--recall)")
    ap.add_argument("--dmax", type=float, default=8192, help="longest wanted distance (--recall)")
    ap.add_argument("--record-blocks", type=int, default=1, metavar="N",
                    help="define the records in runs of N lines at one line start, each queried at its own "
                         "distance (recall.py's blocks): the last value written answers one query of a run, so "
                         "recall by recency fails and a value must be found by its key (--recall)")
    ap.add_argument("--recall-margin", type=int, default=1536,
                    help="queries and copies are placed before host byte seq+1-margin, so that what is "
                         "inserted before them cannot push them out of the window (--recall)")
    ap.add_argument("--answer-weight", type=float, default=1.0,
                    help="loss weight of answer bytes (--recall); every other byte weighs 1")
    ap.add_argument("--with-terminator", action="store_true",
                    help="a record's answer ends with its terminator \";\", as the strict metric asks: the "
                         "--answer-weight, --value-writes' rewarded bytes and --address-at every's keys take it as "
                         "the answer's last byte (a novel value's length is known only from memory)")
    ap.add_argument("--recall-eval", default=None,
                    help="held-out recall documents (heldout_recall.json) to score at every eval")
    ap.add_argument("--recall-eval-docs", type=int, default=6, help="documents of --recall-eval per periodic eval")
    ap.add_argument("--resume", action="store_true",
                    help="continue the run in --out from its last checkpoint (state.pt: optimizer, step, "
                         "data generator, timings), bit for bit as if it had not stopped; refused, before anything is "
                         "written, for a run that has finished (its metrics.json written) and when any other option "
                         "differs from the run's (each named with both values) but --stop-after, --log-every and "
                         "--return-memory")
    ap.add_argument("--spare-records", action="store_true",
                    help="--sparse-writes weighs the heads' writes outside the records' definition lines only "
                         "(training uses where the records are: a first stage, to be reported as such)")
    ap.add_argument("--record-writes", type=float, default=0.0, metavar="MU",
                    help="with --spare-records: add MU times (1 - the --long-gates heads' mean beta over the records' "
                         "definition lines) to the loss, so that they write the records as well as sparing the rest "
                         "(training uses where the records are: a first stage, to be reported as such)")
    ap.add_argument("--write-once", action="store_true",
                    help="with --record-writes: reward each --long-gates head's strongest write on each record's "
                         "definition line (not its mean beta over the line) and weigh its other writes there as "
                         "--sparse-writes weighs those outside: each record written once, where the head chooses, "
                         "so that a window's records need a few of a head's 128 key directions, not one per byte "
                         "(training uses where the records are: a first stage, to be reported as such)")
    ap.add_argument("--write-at-end", action="store_true",
                    help="with --record-writes: reward the --long-gates heads' writes at each record definition "
                         "line's \";\" only, the byte after the value, and weigh their writes everywhere else (the "
                         "rest of the line too) as --sparse-writes weighs those outside: each record written once, "
                         "after its whole value has been read (training uses where the records are: a first stage, "
                         "to be reported as such)")
    ap.add_argument("--value-writes", action="store_true",
                    help="with --record-writes: reward the --long-gates heads' writes at each record definition "
                         "line's value bytes only, and weigh their writes everywhere else (the line's \"#0417 = \" "
                         "and \";\\n\" too) as --sparse-writes weighs those outside: fewer writes a record, so "
                         "fewer of the other records' bytes in what a query reads (tools/lm/readout.py; training "
                         "uses where the records are: a first stage, to be reported as such)")
    ap.add_argument("--distinct-keys", type=float, default=0.0, metavar="NU",
                    help="with --write-at-end: add NU times the mean squared cosine between the keys the --long-gates "
                         "heads write two records of a window with (at their ';') to the loss, so that each record "
                         "takes a direction of its own instead of replacing the last (s6 and s7 wrote every record "
                         "along one key; training uses where the records are: a first stage, to be reported as such)")
    ap.add_argument("--address-keys", type=float, default=0.0, metavar="MU",
                    help="add MU times the cross-entropy of each --long-gates head picking a query's own record "
                         "among the window's records by the cosine of its query (at the byte before the answer) "
                         "with their keys (at their first value bytes): the heads learn to find a record by its "
                         "number, which no recipe without it learned (training uses where the records are: a first "
                         "stage, to be reported as such)")
    ap.add_argument("--address-scale", type=float, default=ADDRESS_SCALE, metavar="S",
                    help="the scale --address-keys multiplies the cosines by before its softmax (default %g): a "
                         "smaller one keeps asking the keys of a window's other records to move away from a query "
                         "after its own record's key is found (at 10, cosines of 0.8 against 15 others' 0.14 leave "
                         "a loss of about 0.02, at 3 about 1.1)" % ADDRESS_SCALE)
    ap.add_argument("--keep-records", type=float, default=0.0, metavar="NU",
                    help="add NU times the --long-gates heads' erosion of each record to the loss: the sum over the "
                         "positions after its definition line of beta times the squared cosine between the key "
                         "written there and the record's key (at its value's first byte), about -ln of the share "
                         "of the record those writes leave, averaged over the records, heads and windows. beta is "
                         "taken as a constant: the keys of later records and other writes learn to lie apart from "
                         "earlier records' (training uses where the records are: a first stage, to be reported "
                         "as such)")
    ap.add_argument("--cross-talk", type=float, default=0.0, metavar="NU",
                    help="add NU times the --long-gates heads' cross-talk at each query to the loss: the sum over the "
                         "bytes of the window's other records' definition lines written before the query of beta "
                         "times the squared cosine between the query (at the byte before the answer) and the key "
                         "written there, what the read takes from the records it does not ask for (tools/lm/"
                         "readout.py measures it), averaged over the queries, heads and windows; beta is taken as a "
                         "constant (training uses where the records are: a first stage, to be reported as such)")
    ap.add_argument("--address-at", choices=["first", "end", "every"], default="first",
                    help="where --address-keys reads a record's key: first, at the value's first byte; end, at the "
                         "\";\" after the value, where --write-at-end has the heads write it; every, at each value "
                         "byte, each asked for by the query at the byte before the answer byte it gives, among all "
                         "the value bytes of the window's records (most answers that fail beyond 2 KiB have their "
                         "first byte right)")
    ap.add_argument("--return-memory", action="store_true",
                    help="have glibc's malloc map every block over 64 KiB afresh and give freed memory back: "
                         "bounds the resident memory of long KDA windows, at about twice the time per step")
    args = ap.parse_args()

    if args.spare_records and not (args.sparse_writes > 0 and args.recall):
        die("--spare-records needs --sparse-writes (the weight it spares) and --recall "
                 "(the records it spares)")
    if args.record_writes < 0 or (args.record_writes > 0 and not args.spare_records):
        die("--record-writes %g: give a weight of 0 or more, with --spare-records (the lines "
                 "whose writes it rewards)" % args.record_writes)
    for name in ("write_once", "write_at_end", "value_writes"):
        if getattr(args, name) and not args.record_writes > 0:
            die("--%s changes what --record-writes rewards: give --record-writes MU > 0"
                     % name.replace("_", "-"))
    if args.write_once + args.write_at_end + args.value_writes > 1:
        die("--write-once, --write-at-end and --value-writes each say where a record is "
                 "written: give one")
    if args.distinct_keys < 0 or (args.distinct_keys > 0 and not args.write_at_end):
        die("--distinct-keys %g: give a weight of 0 or more, with --write-at-end (the positions "
                 "whose keys it compares)" % args.distinct_keys)
    if args.record_blocks < 1 or (args.record_blocks > 1 and not args.recall):
        die("--record-blocks %d: give 1 or more, with --recall (the records it groups)"
                 % args.record_blocks)
    for name, heads in (("address_keys", "the heads it teaches"), ("keep_records", "the heads whose writes it weighs"),
                        ("cross_talk", "the heads whose queries it weighs")):
        weight = getattr(args, name)
        if weight < 0 or (weight > 0 and not (args.recall and args.long_gates)):
            die("--%s %g: give a weight of 0 or more, with --recall (the records) and "
                     "--long-gates (%s)" % (name.replace("_", "-"), weight, heads))
    if not args.address_scale > 0 or (args.address_scale != ADDRESS_SCALE and not args.address_keys > 0):
        die("--address-scale %g: give a scale above 0, with --address-keys (the loss it scales)"
                 % args.address_scale)
    if args.address_at != "first" and not args.address_keys > 0:
        die("--address-at %s says where --address-keys reads the keys: give --address-keys "
                 "MU > 0" % args.address_at)
    if args.eval_every < 0:
        die("--eval-every %d: give 0 (only the final evaluation) or more" % args.eval_every)
    if args.return_memory:
        _malloc_returns_memory()
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    torch.manual_seed(args.seed)
    if args.init_from and not os.path.isfile(os.path.join(args.init_from, "config.json")):
        die("--init-from %s: no model there (config.json missing)" % args.init_from)
    if args.init_from and os.path.realpath(args.init_from) == os.path.realpath(args.out):
        die("--init-from %s is --out: a run never writes over the model it starts from"
                 % args.init_from)
    held = [f for f in ("train.log", "state.pt", "model.safetensors") if os.path.exists(os.path.join(args.out, f))]
    if held and not args.resume:
        die("--out %s already holds a run (%s): give another directory, or --resume to "
                 "continue it" % (args.out, ", ".join(held)))
    os.makedirs(args.out, exist_ok=True)
    command = " ".join(["python"] + [os.path.relpath(sys.argv[0], os.getcwd())] + sys.argv[1:])
    state_path = os.path.join(args.out, "state.pt")
    if args.resume and not os.path.exists(state_path):
        die("--resume: %s does not exist (no checkpoint to continue from)" % state_path)
    st = resume_state(ap, args, state_path) if args.resume else None
    with open(os.path.join(args.out, "command.txt"), "a" if args.resume else "w") as f:
        f.write(command + "\n")
    logf = open(os.path.join(args.out, "train.log"), "a" if args.resume else "w")

    def log(msg):
        line = "%s %s" % (time.strftime("%H:%M:%S"), msg)
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    mt = "gated_deltanet" if args.model == "gdn" else "kda"
    cfg = make_config(mt, hidden_size=args.hidden, num_hidden_layers=args.layers, num_heads=args.heads,
                      head_dim=args.head_dim, expand_v=1.0, intermediate_size=args.inter,
                      tie_word_embeddings=args.tied, max_position_embeddings=args.seq)
    model = DeltaLM(cfg)
    if args.init_from:
        from model import load_checkpoint
        model = load_checkpoint(args.init_from)
        cfg = model.config
    nparam = sum(p.numel() for p in model.parameters())
    log("command: %s" % command)
    log("torch %s, threads %d, seed %d" % (torch.__version__, args.threads, args.seed))
    log("config: %s" % json.dumps(cfg, sort_keys=True))
    log("parameters: %d" % nparam)
    if args.init_from:
        log("initialised from %s (%d tokens seen before)" % (args.init_from, args.tokens_before))
    long_heads = long_gate_heads(model, args.long_gates) if args.long_gates else []
    if args.freeze_long_gates and not long_heads:
        die("--freeze-long-gates needs --long-gates (the heads whose gates it keeps fixed)")
    if long_heads and not args.resume:
        for (l, h), b in zip(long_heads, set_long_gates(model, long_heads, args.long_gate_half_life)):
            log("long gate: layer %d head %d: A_log 0, dt_bias %.4f, %s zeroed (half-life %g tokens)%s"
                % (l, h, b, "a_proj row" if args.model == "gdn" else "its f_proj.1 rows (every key channel)",
                   args.long_gate_half_life, ", kept fixed" if args.freeze_long_gates else ""))
    if args.freeze_long_gates:
        freeze_gates(model, long_heads)
    if args.sparse_writes < 0 or (args.sparse_writes > 0 and not long_heads):
        die("--sparse-writes %g: give a weight of 0 or more, with --long-gates (the heads "
                 "whose writes it weighs)" % args.sparse_writes)
    needs_rows = (args.sparse_writes, args.distinct_keys, args.address_keys, args.keep_records, args.cross_talk)
    rows = HeadRows(model, long_heads) if any(w > 0 for w in needs_rows) else None
    writes = WriteStrength(rows) if args.sparse_writes > 0 else None
    wkeys = WriteKeys(rows) if args.distinct_keys > 0 else None
    akeys = AddressKeys(rows, args.address_scale) if args.address_keys > 0 else None
    keeps = RecordErosion(rows) if args.keep_records > 0 else None
    talks = CrossTalk(rows) if args.cross_talk > 0 else None
    if not 0 <= args.drop_long_heads < 1 or (args.drop_long_heads > 0 and len(long_heads) < 2):
        die("--drop-long-heads %g: give a probability in [0, 1), with two or more --long-gates "
                 "heads (one is always kept)" % args.drop_long_heads)
    drop_gen = torch.Generator().manual_seed(args.seed + 2)
    dropout = HeadDropout(model, long_heads, args.drop_long_heads, drop_gen) if args.drop_long_heads > 0 else None

    streams, held = load_corpus(args.corpus)
    log("corpus: " + ", ".join("%s %d bytes" % (d, len(s)) for d, s in streams.items())
        + "; held-out prose %d docs, code %d docs" % (len(held["prose"]), len(held["code"])))
    gen = torch.Generator().manual_seed(args.seed + 1)
    name_list = None
    if args.recall and args.values == "novel":
        # a value drawn in training that a held-out record also has would be seen before: counted
        with open(os.path.join(REPO, "data", "lm", "heldout_recall_novel.json")) as f:
            heldout_values = {sp["value"].encode() for d in json.load(f)["documents"] for sp in d["spans"]
                              if sp["kind"] == "record"}
        novel_seen = [0, 0]  # values drawn, of them held-out values

        def name_list(rng):
            v = recall.novel_value(rng)
            novel_seen[0] += 1
            novel_seen[1] += v in heldout_values
            return v
    elif args.recall:
        name_list = recall.names(bytes(streams["prose"].numpy()))
    if args.recall:
        log("recall: %d records and %d passages per %d-byte window, distances %g..%g, answer weight %g, "
            "%s" % (args.records, args.passages, args.seq, args.dmin, args.dmax, args.answer_weight,
                    "novel values" if callable(name_list) else "%d names" % len(name_list)))
    recall_docs = []
    if args.recall_eval:
        with open(args.recall_eval) as f:
            rj = json.load(f)
        base = os.path.dirname(os.path.abspath(args.recall_eval))
        for d in rj["documents"][:args.recall_eval_docs]:
            with open(os.path.join(base, d["file"]), "rb") as f:
                recall_docs.append((f.read(), d["spans"]))

    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (decay if p.dim() == 2 and "embeddings" not in n else no_decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        p = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (args.min_lr_frac + (1 - args.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * p)))

    def evaluate(step, final=False):
        model.eval()
        if final:
            pb, pn = bits_per_byte(model, held["prose"], args.final_len)
            cb, cn = bits_per_byte(model, held["code"], args.final_len)
        else:
            pb, pn = bits_per_byte(model, held["prose"][:args.eval_docs], args.eval_len)
            cb, cn = bits_per_byte(model, held["code"][:args.eval_docs], args.eval_len)
        model.train()
        log("%s step %d tokens %d: held-out prose %.4f bpb (%d bytes), code %.4f bpb (%d bytes)"
            % ("FINAL" if final else "eval", step, args.tokens_before + step * args.batch * args.seq, pb, pn, cb, cn))
        if recall_docs:
            model.eval()
            rb, apart = recall_eval(model, recall_docs)
            model.train()
            log("  recall exact (n) per bucket: " + "  ".join(
                "%d-%d %.2f (%d)" % (lo, hi, e, n) for (lo, hi), (n, e, _) in zip(recall.BUCKETS, rb)))
            log("  recall answer nll per bucket: " + "  ".join("%.3f" % l for _, _, l in rb))
            log("  recall exact with no record defined between: %.2f (%d), with one or more: %.2f (%d)"
                % (apart[0][1], apart[0][0], apart[1][1], apart[1][0]))
        return pb, cb

    def save_state(step):
        """The model, then what a resumed run needs, written beside it and renamed into place."""
        save_checkpoint(model, args.out)
        tmp = state_path + ".tmp"
        torch.save({"step": step, "opt": opt.state_dict(), "gen": gen.get_state(), "drop_gen": drop_gen.get_state(),
                    "ema": ema,
                    "train_time": train_time, "args": vars(args)}, tmp)
        os.replace(tmp, state_path)

    t0 = time.time()
    train_time = 0.0
    ema = None
    first = 0
    if args.resume:
        from model import load_checkpoint
        model.load_state_dict(load_checkpoint(args.out).state_dict())
        opt.load_state_dict(st["opt"])
        gen.set_state(st["gen"])
        if "drop_gen" in st:
            drop_gen.set_state(st["drop_gen"])
        first, ema, train_time = st["step"], st["ema"], st["train_time"]
        log("resumed at step %d (%.1f s of training before)" % (first, train_time))
    if recall_docs and first == 0:
        evaluate(0)
    model.train()
    for step in range(first, args.steps):
        ts = time.time()
        for gparam in opt.param_groups:
            gparam["lr"] = lr_at(step)
        if args.recall:
            x, y, w, lines = recall_batch(streams, gen, args.batch, args.seq, name_list, args)
            outside = 1 - value_bytes(x, args.with_terminator) if args.value_writes else (lines == 0).to(torch.float32)
        else:
            x, y = batch(streams, gen, args.batch, args.seq)
            w = outside = lines = None
        dropped = dropout.draw(x.shape[0]) if dropout is not None else None
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="none")
        loss = loss.mean() if w is None else (loss * w.reshape(-1)).sum() / w.sum()
        beta_rec = None
        ends = value_ends(lines) if args.write_at_end else None
        if writes is not None and args.write_once:
            beta_long, beta_rec = writes.once(lines)
        elif writes is not None and args.write_at_end:
            beta_rec, beta_long = writes.means(ends)
        elif writes is not None and args.record_writes > 0:
            beta_long, beta_rec = writes.means(outside)
        else:
            beta_long = writes.mean(outside if args.spare_records else None) if writes is not None else None
        key_cos2 = wkeys.overlap(ends) if wkeys is not None else None
        address = akeys.loss(address_pairs(x, args.address_at, args.with_terminator)) if akeys is not None else None
        talk = talks.loss(query_spans(x)) if talks is not None else None
        eroded = keeps.loss(record_spans(x)) if keeps is not None else None
        opt.zero_grad(set_to_none=True)
        # the logged loss is the cross-entropy alone
        total = loss if beta_long is None else loss + args.sparse_writes * beta_long
        if beta_rec is not None:
            total = total + args.record_writes * (1 - beta_rec)
        if key_cos2 is not None:
            total = total + args.distinct_keys * key_cos2
        if address is not None:
            total = total + args.address_keys * address
        if talk is not None:
            total = total + args.cross_talk * talk
        if eroded is not None:
            total = total + args.keep_records * eroded
        total.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        train_time += time.time() - ts
        lv = loss.item()
        if not math.isfinite(lv):
            log("non-finite loss at step %d, stopping" % step)
            sys.exit(1)
        ema = lv if ema is None else 0.95 * ema + 0.05 * lv
        if (step + 1) % args.log_every == 0 or step == 0:
            log("step %d/%d loss %.4f (%.3f bpb) ema %.4f lr %.2e gnorm %.2f tok/s %.0f elapsed %.0fs"
                % (step + 1, args.steps, lv, lv / math.log(2), ema, lr_at(step), float(gn),
                   (step + 1) * args.batch * args.seq / train_time, time.time() - t0)
                + ("" if beta_long is None else " long-head beta %.4f" % float(beta_long))
                + ("" if beta_rec is None else " on record lines %.4f" % float(beta_rec))
                + ("" if key_cos2 is None else " records' write keys cos^2 %.4f" % float(key_cos2))
                + ("" if address is None else " address loss %.3f" % float(address))
                + ("" if talk is None else " cross-talk %.4f" % float(talk))
                + ("" if eroded is None else " records' erosion %.4f" % float(eroded))
                + ("" if dropped is None else " long heads left out %d of %d" % (int(dropped.sum()), dropped.numel())))
        if args.eval_every > 0 and (step + 1) % args.eval_every == 0 and step + 1 < args.steps:
            evaluate(step + 1)
            save_state(step + 1)
        if args.stop_after is not None and step + 1 == args.stop_after:
            save_state(step + 1)
            log("stopped after step %d of the %d-step schedule (--stop-after)" % (step + 1, args.steps))
            return

    save_checkpoint(model, args.out)
    model.eval()
    pb, cb = evaluate(args.steps, final=True)
    hls = half_lives(model, held["prose"], 8192)
    log("gate half-lives (tokens) on held-out prose, ln2 / -mean(g):")
    for i, layer in enumerate(hls):
        if isinstance(layer[0], float):
            log("  layer %d: %s" % (i, " ".join("%.2f" % v for v in layer)))
        else:
            for h, d in enumerate(layer):
                log("  layer %d head %d: per key channel min %.2f q25 %.2f median %.2f q75 %.2f max %.3g"
                    " (%d channels > 1000, %d < 2)" % (i, h, d["min"], d["q25"], d["median"], d["q75"],
                                                       d["max"], d["gt_1000"], d["lt_2"]))
    metrics = {
        "model_type": mt,
        "heldout_prose_bpb": pb,
        "heldout_code_bpb": cb,
        "eval": "held-out documents of data/lm/heldout.json, each read from its start as one sequence "
                "of at most %d bytes, chunked forward; bits per predicted byte" % args.final_len,
        "training_seconds": round(train_time, 1),
        "wall_seconds": round(time.time() - t0, 1),
        "steps": args.steps,
        "tokens_seen": args.tokens_before + args.steps * args.batch * args.seq,
        "parameters": nparam,
        "threads": args.threads,
        "torch": torch.__version__,
        "half_lives": hls,
        "command": command,
    }
    if args.recall and args.values == "novel":
        metrics["novel_values_drawn"], metrics["novel_values_heldout"] = novel_seen
        log("novel values: %d drawn, %d of them held-out values" % tuple(novel_seen))
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=1)
        f.write("\n")
    log("done: %.1f s training, %d tokens" % (train_time, metrics["tokens_seen"]))


if __name__ == "__main__":
    main()
