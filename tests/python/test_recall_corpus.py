"""The recall corpus (tools/lm/recall.py, tools/lm/corpus.py): the generator is deterministic
for a seed, every span it reports is found again by reading the woven text back (a parser
written here, not the generator's bookkeeping), the answer metric equals a hand computation, and
the shipped held-out recall documents are the ones data/lm/heldout_recall.json describes."""
import hashlib
import json
import math
import os
import re
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "lm"))
import recall  # noqa: E402

NAMES = [b"Hezekiah", b"Ruth", b"Obadiah", b"Zerubbabel"]


def host_text(lines=120):
    """Lines of different lengths, none of which looks like a record."""
    return b"".join(b"%d:%d %s\n" % (i // 10, i % 10, b"word " * (1 + (7 * i) % 13)) for i in range(lines))


def parse_records(doc):
    """Every query line found by reading doc: {key: (first, start, value)}, with first the
    offset of the value in the one definition line of that key and start the offset of the value
    in the query line."""
    defs, out = {}, {}
    for m in re.finditer(rb"(?m)^#(\d{4}) ([=?]) ([A-Za-z0-9]+);\n", doc):
        key, op, val = m.group(1).decode(), m.group(2), m.group(3)
        if op == b"=":
            assert key not in defs, "key %s defined twice" % key
            defs[key] = (m.start(3), val)
        else:
            first, dval = defs[key]          # a query never comes before its definition
            assert dval == val
            out[key] = (first, m.start(3), val)
    return out


def test_deterministic_for_a_seed():
    host = host_text()
    a = recall.weave(host, 7, NAMES, n_records=10, n_passages=2, dmax=2048)
    b = recall.weave(host, 7, NAMES, n_records=10, n_passages=2, dmax=2048)
    c = recall.weave(host, 8, NAMES, n_records=10, n_passages=2, dmax=2048)
    assert a == b
    assert a[0] != c[0]


def test_spans_read_back_from_the_text():
    host = host_text()
    for seed in range(20):
        doc, spans = recall.weave(host, seed, NAMES, n_records=10, n_passages=2, dmax=2048)
        # the host survives whole: removing the record lines and the copies gives it back
        recs = [s for s in spans if s["kind"] == "record"]
        found = parse_records(doc)
        assert len(recs) == len(found) > 0
        for s in recs:
            first, start, val = found[s["key"]]
            assert (s["first"], s["start"], s["length"]) == (first, start, len(val))
            assert s["distance"] == start - first
        for s in spans:
            if s["kind"] != "passage":
                continue
            orig = doc[s["first"] - recall.PASSAGE_CUE:s["first"] + s["length"]]
            copy = doc[s["start"] - recall.PASSAGE_CUE:s["start"] + s["length"]]
            assert orig == copy and orig.endswith(b"\n") and len(orig) >= recall.PASSAGE_MIN
            assert orig in host   # the original is the host's own lines, nothing inserted inside
        stripped = re.sub(rb"(?m)^#\d{4} [=?] [A-Za-z]+;\n", b"", doc)
        assert len(stripped) == len(host) + sum(s["length"] + recall.PASSAGE_CUE for s in spans
                                                if s["kind"] == "passage")


def test_blocks_define_records_in_runs():
    """block=4: the definitions stand in runs of up to four lines at one line start (read back from
    the text), every span still reads back, and each query but the last of its block has a later
    definition of its block between its own definition and itself; block=1 is the default's draw"""
    host = host_text(400)
    assert recall.weave(host, 3, NAMES, n_records=12, n_passages=0, dmin=200, dmax=2048, block=1) == \
        recall.weave(host, 3, NAMES, n_records=12, n_passages=0, dmin=200, dmax=2048)
    for seed, dmin in ((seed, dmin) for seed in range(10) for dmin in (16, 200)):
        doc, spans = recall.weave(host, seed, NAMES, n_records=12, n_passages=0, dmin=dmin, dmax=2048, block=4)
        found = parse_records(doc)
        assert len(spans) == len(found) >= 10   # a record without room for its query is left out
        for s in spans:
            assert found[s["key"]][:2] == (s["first"], s["start"])
        # runs of consecutive definition lines, in the order of the text
        runs, prev_end = [], None
        for m in re.finditer(rb"(?m)^#(\d{4}) = [A-Za-z]+;\n", doc):
            if m.start() == prev_end:
                runs[-1].append(m.group(1).decode())
            else:
                runs.append([m.group(1).decode()])
            prev_end = m.end()
        assert sum(len(r) for r in runs) == len(spans) and max(len(r) for r in runs) == 4
        for r in runs:
            for key in r[:-1]:   # a later member of the block is defined between
                first, start, _ = found[key]
                later = [found[k][0] for k in r[r.index(key) + 1:]]
                assert all(first < f < start for f in later)


def test_recency_table_by_hand(tmp_path):
    """recall.defined_between: the definitions counted between a record's definition and its
    query on a document written here; tools/lm/recency.py's table of a recall run's HDF5 made here
    (one bucket, native and one format) against the shares worked out by hand"""
    h5py = pytest.importorskip("h5py")
    pytest.importorskip("torch")
    import recency
    doc = (b"xx\n#1111 = Ruth;\n#2222 = Eli;\nyy\n#1111 ? Ruth;\n#3333 = Naomi;\n#4444 = Obed;\n"
           b"#4444 ? Obed;\n#2222 ? Eli;\n#3333 ? Naomi;\n")
    path = tmp_path / "doc.txt"
    path.write_bytes(doc)
    recs = []   # (first, start, value length, definitions between, by hand)
    for key, val, n in ((b"1111", b"Ruth", 1), (b"2222", b"Eli", 2), (b"3333", b"Naomi", 1), (b"4444", b"Obed", 0)):
        first = doc.index(b"#" + key + b" = ") + 8
        start = doc.index(b"#" + key + b" ? ") + 8
        assert recall.defined_between(doc, first, len(val), start) == n
        recs.append((first, start, len(val), n))
    prefill = 2
    with h5py.File(tmp_path / "run.h5", "w") as f:
        f["documents"] = [str(path).encode()]
        f["formats"] = [b"int6"]
        f["buckets"] = np.array([[0, 1000]])
        f.attrs["prefill"] = prefill
        f["record_document"] = np.zeros(4, dtype=np.int64)
        f["record_distance"] = np.array([st - fi for fi, st, _, _ in recs])
        f["record_length"] = np.array([n for _, _, n, _ in recs])
        f["record_position"] = np.array([st - prefill for _, st, _, _ in recs])
        f["exact"] = np.array([[1, 0], [0, 0], [1, 1], [1, 1]], dtype=np.uint8)
    out, buckets = recency.table(str(tmp_path / "run.h5"), "int6")
    assert buckets == [[0, 1000]]
    # groups: 0 between (4444), 1-2 (1111, 2222, 3333), 3-7, 8-15, 16 or more (none)
    (nat,), (q,) = out["native"], out["int6"]
    assert [c[2] for c in nat] == [1, 3, 0, 0, 0]
    assert nat[0][0] == 1 and abs(nat[1][0] - 2 / 3) < 1e-12 and q[0][0] == 1 and abs(q[1][0] - 1 / 3) < 1e-12


def test_hand_written_case():
    """Four lines of host, one record wanted 5 to 6 bytes apart: the layout is fixed by hand."""
    host = b"aaaa\nbbbb\ncccc\ndddd\n"
    # line starts 0, 5, 10, 15: the definition goes at 0 or 5, the query at the first line start
    # more than 5 bytes on (10 or 15, since a drawn distance is not a whole number); a definition
    # drawn at 10 leaves no line start for its query, and the record is dropped
    seen = set()
    for seed in range(16):
        doc, spans = recall.weave(host, seed, [b"Ruth"], n_records=1, n_passages=0, dmin=5, dmax=6)
        if not spans:                        # the definition drawn at 10: nothing woven
            assert doc == host
            seen.add(None)
            continue
        (s,) = spans
        key = s["key"].encode()
        d, q = b"#" + key + b" = Ruth;\n", b"#" + key + b" ? Ruth;\n"
        layouts = {0: d + b"aaaa\nbbbb\n" + q + b"cccc\ndddd\n", 5: b"aaaa\n" + d + b"bbbb\ncccc\n" + q + b"dddd\n"}
        at = doc.index(d)
        assert doc == layouts[at]
        assert s["first"] == at + 8 and s["start"] == doc.index(q) + 8
        assert s["distance"] == len(d) + 10 and recall.bucket_of(s["distance"]) == 0
        seen.add(at)
    assert seen == {0, 5, None}


def test_bucket_edges():
    assert recall.bucket_of(15) is None and recall.bucket_of(16) == 0 and recall.bucket_of(63) == 0
    assert recall.bucket_of(64) == 1 and recall.bucket_of(8191) == 6 and recall.bucket_of(8192) is None


def test_answer_metric_by_hand():
    torch = pytest.importorskip("torch")
    doc = b"xx#0001 ? Ab;\n"
    span = dict(kind="record", key="0001", first=0, start=10, length=2)   # b"Ab", then b";"
    T = len(doc) - 1
    logits = torch.zeros(T, 256)
    logits[9, ord("A")] = math.log(3.0)     # predicts doc[10] = 'A' with p = 3 / 258
    logits[10, ord("b")] = math.log(5.0)    # predicts doc[11] = 'b' with p = 5 / 260
    logits[11, ord(";")] = math.log(2.0)    # predicts the terminator doc[12] = ';'
    (r,) = recall.answer_scores(logits, doc, [span])
    # the logits are float32: log(3) and log(5) are rounded to float32 before the softmax
    assert r[0] == pytest.approx(-math.log(3 / 258) - math.log(5 / 260), rel=1e-6)
    assert r[1] is True
    # a longer name: every byte of the value right, then 'i' instead of the terminator (Ab -> Abi);
    # the answer's NLL is the same, the strict metric says wrong
    logits[11, ord("i")] = math.log(4.0)
    (r,) = recall.answer_scores(logits, doc, [span])
    assert r[0] == pytest.approx(-math.log(3 / 258) - math.log(5 / 260), rel=1e-6)
    assert r[1] is False
    logits[11, ord("i")] = 0.0
    logits[10, ord("c")] = math.log(7.0)    # now 'c' is the argmax at the second answer byte
    (r,) = recall.answer_scores(logits, doc, [span])
    assert r[0] == pytest.approx(-math.log(3 / 258) - math.log(5 / 266), rel=1e-6)
    assert r[1] is False
    # logits that end before the terminator cannot score the answer
    (r,) = recall.answer_scores(logits[:11], doc, [span])
    assert r is None


@pytest.mark.parametrize("name", ["heldout_recall.json", "heldout_recall_novel.json", "heldout_recall_long.json"])
def test_shipped_heldout_recall_documents(name):
    path = os.path.join(ROOT, "data", "lm", name)
    with open(path) as f:
        rj = json.load(f)
    assert rj["buckets"] == recall.BUCKETS
    n = 0
    for d in rj["documents"]:
        with open(os.path.join(os.path.dirname(path), d["file"]), "rb") as f:
            doc = f.read()
        assert len(doc) == d["bytes"] and hashlib.sha256(doc).hexdigest() == d["sha256"], d["file"]
        found = parse_records(doc)
        for s in d["spans"]:
            assert s["distance"] == s["start"] - s["first"]
            a = doc[s["first"]:s["first"] + s["length"]]
            assert a == doc[s["start"]:s["start"] + s["length"]]
            if s["kind"] == "record":
                assert found[s["key"]][:2] == (s["first"], s["start"])
                n += 1
    assert n > 1000


def test_novel_values_never_seen():
    """The novel set's values: 7-12 letters and digits (>= 40 bits each), all distinct, none a
    value of the named set, none in the host text around it; the weave draws them from its own
    generator, so the same seed gives the same values and the list form draws as before."""
    data = os.path.join(ROOT, "data", "lm")
    named = {s["value"] for d in json.load(open(os.path.join(data, "heldout_recall.json")))["documents"]
             for s in d["spans"] if s["kind"] == "record"}
    rj = json.load(open(os.path.join(data, "heldout_recall_novel.json")))
    assert not set(rj["generator"]["seeds"]) & {1, 2, 3}
    values = []
    for d in rj["documents"]:
        doc = open(os.path.join(data, d["file"]), "rb").read()
        for s in d["spans"]:
            if s["kind"] == "record":
                v = s["value"].encode()
                assert re.fullmatch(rb"[A-Za-z0-9]{7,12}", v) and len(v) * math.log2(62) >= 40
                assert doc.count(v) == 2, (d["file"], v)   # its definition and its query only
                values.append(s["value"])
    assert len(values) > 1000 and len(set(values)) == len(values) and not set(values) & named
    host = host_text()
    a = recall.weave(host, 7, recall.novel_value, n_records=10, n_passages=0, dmax=2048)
    assert a == recall.weave(host, 7, recall.novel_value, n_records=10, n_passages=0, dmax=2048)
    assert all(re.fullmatch(r"[A-Za-z0-9]{7,12}", s["value"]) for s in a[1])
    assert {k: v[2] for k, v in parse_records(a[0]).items()} == {s["key"]: s["value"].encode() for s in a[1]}


def test_long_set():
    """The long set (novel_set.py --family long): windows of 32 KiB of held-out books joined by
    a blank line (read here from data/lm/heldout/prose/), each document's host the window of its
    joined books at host_offset, the prose beside them the joined books themselves; its values novel
    as the novel set's and none a value of the named, novel or needle sets; records spread over the
    whole window (queries in each of its four quarters) at every distance bucket up to 8 KiB."""
    data = os.path.join(ROOT, "data", "lm")
    rj = json.load(open(os.path.join(data, "heldout_recall_long.json")))
    gen = rj["generator"]
    assert gen["host_bytes"] == 32768 and not set(gen["seeds"]) & {1, 2, 3, 101, 102, 103}
    books = {}
    for p in rj["prose"]:
        parts = p["host"][len("kjv:"):].split("+")
        assert not {"Mark", "Rev"} & set(parts)       # the plans' calibration books
        joined = b"\n\n".join(open(os.path.join(data, "heldout", "prose", b + ".txt"), "rb").read() for b in parts)
        text = open(os.path.join(data, p["file"]), "rb").read()
        assert text == joined and len(text) == p["bytes"] and hashlib.sha256(text).hexdigest() == p["sha256"]
        books[p["host"]] = joined
    others = set()
    for name in ("heldout_recall.json", "heldout_recall_novel.json", "heldout_needles.json"):
        others |= {s["value"] for d in json.load(open(os.path.join(data, name)))["documents"] for s in d["spans"]
                   if s["kind"] in ("record", "needle")}
    values, quarters, buckets = [], set(), set()
    for d in rj["documents"]:
        doc = open(os.path.join(data, d["file"]), "rb").read()
        host = books[d["host"]][d["host_offset"]:d["host_offset"] + 32768]
        assert d["host_bytes"] == len(host) == 32768
        # the document is its host with lines inserted: removing the records' and the passages'
        # copies leaves the host (the copies' positions from the spans)
        cut = bytearray(doc)
        for s in sorted(d["spans"], key=lambda s: -s["start"]):
            if s["kind"] == "passage":
                a = s["start"] - 8
                del cut[a:a + 8 + s["length"]]
        cut = re.sub(rb"(?m)^#\d{4} [=?] [A-Za-z0-9]+;\n", b"", bytes(cut))
        assert cut == host, d["file"]
        for s in d["spans"]:
            if s["kind"] == "record":
                values.append(s["value"])
                quarters.add(4 * s["start"] // d["bytes"])
                buckets.add(recall.bucket_of(s["distance"]))
                assert doc.count(s["value"].encode()) == 2
    assert len(values) >= 1000 and len(set(values)) == len(values) and not set(values) & others
    assert quarters == {0, 1, 2, 3} and set(range(len(recall.BUCKETS))) <= buckets


def test_reset_control_where_the_memory_lives_in_one_head():
    """A tiny GDN and KDA whose read-out passes through one head alone (o_proj's columns of every
    other head zeroed): zeroing the other heads' states before a query leaves the answer's
    scores exactly as they are, zeroing the live head's state changes them."""
    torch = pytest.importorskip("torch")
    from model import DeltaLM, make_config
    import recall_metrics as rm
    host = host_text(40)
    doc, spans = recall.weave(host, 5, NAMES, n_records=6, n_passages=0, dmin=20, dmax=400)
    for mt in ("gated_deltanet", "kda"):
        torch.manual_seed(0)
        m = DeltaLM(make_config(mt, hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                                intermediate_size=64, max_position_embeddings=4096)).eval()
        live = (0, 1)
        with torch.no_grad():
            for li, layer in enumerate(m.model.layers):
                w = layer.attn.o_proj.weight
                for h in range(2):
                    if (li, h) != live:
                        w[:, h * 16:(h + 1) * 16] = 0
                    else:
                        w.mul_(20)                       # a read-out strong enough to move the logits
        rows = [None] if mt == "gated_deltanet" else list(range(16))
        dead = [(li, h, r) for li in range(2) for h in range(2) if (li, h) != live for r in rows]
        on = [(live[0], live[1], r) for r in rows]
        recs = rm.doc_records(m, doc, spans, {"none": [], "dead": dead, "live": on})
        assert len(recs) == sum(s["kind"] == "record" for s in spans) > 0
        for r in recs:
            assert r["dead"] == r["none"]
            assert abs(r["native"][0] - r["none"][0]) < 1e-3 * max(1.0, abs(r["none"][0]))
        assert all(r["live"][0] != r["none"][0] for r in recs)


def test_half_lives_of_a_gate_set_by_hand():
    """A GDN whose gate is a constant: g = -exp(A_log) * softplus(dt_bias) with a_proj zeroed,
    so every head's half-life is ln 2 / (exp(A_log) softplus(dt_bias)), computed here."""
    torch = pytest.importorskip("torch")
    from model import DeltaLM, make_config
    import recall_metrics as rm
    torch.manual_seed(1)
    m = DeltaLM(make_config("gated_deltanet", hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                            intermediate_size=64)).eval()
    want = []
    with torch.no_grad():
        for li, layer in enumerate(m.model.layers):
            a = layer.attn
            a.a_proj.weight.zero_()
            a.A_log.copy_(torch.tensor([math.log(0.5), math.log(2.0)]))
            a.dt_bias.copy_(torch.tensor([0.1 * (li + 1), -3.0]))
            for h in range(2):
                decay = math.exp(a.A_log[h].item()) * math.log1p(math.exp(a.dt_bias[h].item()))
                want.append((li, h, None, math.log(2) / decay))
    got = rm.unit_half_lives(m, [host_text(20)], 512)
    assert [u[:3] for u in got] == [w[:3] for w in want]
    for g, w in zip(got, want):
        assert g[3] == pytest.approx(w[3], rel=1e-5)


@pytest.mark.parametrize("kind", ["gated_deltanet", "kda"])
def test_long_gates_fixed_and_frozen(kind):
    """train.py --long-gates with --freeze-long-gates, GDN and KDA: the chosen heads decay by
    exactly ln 2 / half-life a token at every position (KDA: on every key channel), read from the
    layer's own gate g; after AdamW steps on a loss that moves every gate, theirs are unchanged
    and the other heads' have moved."""
    torch = pytest.importorskip("torch")
    import train
    from model import DeltaLM, make_config
    cfg = make_config(kind, hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16, intermediate_size=64)
    torch.manual_seed(7)
    m = DeltaLM(cfg).train()
    heads = train.long_gate_heads(m, "0.1,1.0")
    assert heads == [(0, 1), (1, 0)]
    train.set_long_gates(m, heads, 1000.0)
    train.freeze_gates(m, heads)
    x = torch.randint(0, 256, (2, 24))

    def gates():
        out = {}
        with torch.no_grad():
            for l, layer in enumerate(m.model.layers):
                g = layer.attn.inputs(layer.attn_norm(m.model.embeddings(x)))[3]
                out[l] = g.double().clone()  # GDN [B, T, H], KDA [B, T, H, K]
        return out
    before = gates()
    for l, h in heads:
        assert torch.allclose(before[l][:, :, h], torch.full_like(before[l][:, :, h], -math.log(2) / 1000.0),
                              rtol=1e-5, atol=0)
    # train.py's groups: weight decay on matrices only (a zeroed row stays zero under it)
    mats = [p for n, p in m.named_parameters() if p.dim() == 2 and "embeddings" not in n]
    rest = [p for n, p in m.named_parameters() if not (p.dim() == 2 and "embeddings" not in n)]
    opt = torch.optim.AdamW([{"params": mats, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}], lr=1e-2)
    for _ in range(3):
        loss = sum(layer.attn.inputs(layer.attn_norm(m.model.embeddings(x)))[3].sum() for layer in m.model.layers)
        opt.zero_grad()
        loss.backward()
        opt.step()
    after = gates()
    for l in (0, 1):
        for h in (0, 1):
            same = torch.equal(after[l][:, :, h], before[l][:, :, h])
            assert same == ((l, h) in heads), (l, h)


def test_spare_records_marks_exactly_the_definition_lines():
    """train.py --spare-records counts the heads' writes where recall_batch's `lines` is 0: it must
    be k on every byte of the k-th record definition line in the input window (--write-once takes
    one write from each), read back from the window's text, and 0 everywhere else (query lines,
    copied passages and host text); value_ends (--write-at-end) 1 at each line's ";" alone. Every
    query lies whole in the window, so its definition line does too."""
    torch = pytest.importorskip("torch")
    import argparse
    import train  # tools/lm is on the path
    T = 1536
    host = host_text(400)
    streams = {dom: torch.frombuffer(bytearray(host), dtype=torch.uint8) for dom, _ in train.DOMAINS}
    args = argparse.Namespace(records=12, passages=2, dmin=16, dmax=1024, recall_margin=64, record_blocks=1,
                              answer_weight=3.0, with_terminator=False)
    gen = torch.Generator().manual_seed(5)
    x, y, w, lines = train.recall_batch(streams, gen, 4, T, NAMES, args)
    assert x.shape == lines.shape == (4, T)
    seen = 0
    for row, o, e in zip(x, lines, train.value_ends(lines)):
        text = bytes(row.to(torch.uint8).tolist())
        want = torch.zeros(T, dtype=torch.long)
        semis = torch.zeros(T)
        for k, m in enumerate(re.finditer(rb"(?m)^#\d{4} = [A-Za-z]+;\n", text), 1):
            want[m.start():m.end()] = k
            semis[m.end() - 2] = 1
            seen += 1
        assert torch.equal(o, want), text
        assert torch.equal(e, semis) and all(text[t] == ord(";") for t in e.nonzero().flatten().tolist())
    assert seen >= 20
    # abutting lines, and one at the window's end, read from a hand-made `lines`
    lines = torch.tensor([[0, 1, 1, 1, 2, 2, 2, 0, 3, 3, 3]])
    assert train.value_ends(lines).tolist() == [[0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0]]


def test_drop_long_heads_leaves_out_exactly_the_drawn_heads():
    """train.py --drop-long-heads: in training mode the model with a draw's masks computes what
    a model without hooks computes whose o_proj columns of the dropped heads are zeroed (the heads
    add nothing); one long head is always kept; the draws repeat for a seed; evaluation sees every
    head."""
    torch = pytest.importorskip("torch")
    import train
    from model import DeltaLM, make_config
    cfg = make_config("gated_deltanet", hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                      intermediate_size=64)
    torch.manual_seed(3)
    m = DeltaLM(cfg)

    def plain():  # the same weights, no hooks, evaluation mode
        r = DeltaLM(cfg)
        r.load_state_dict(m.state_dict())
        return r.eval()

    heads = [(0, 1), (1, 0), (1, 1)]
    d = train.HeadDropout(m, heads, 0.7, torch.Generator().manual_seed(9))
    x = torch.randint(0, 256, (3, 40))
    draws = []
    with torch.no_grad():
        for _ in range(8):
            m.train()
            drop = d.draw(3)
            draws.append(drop.clone())
            assert not drop.all(dim=1).any()
            got = m(x)
            for b in range(3):
                ref = plain()
                for i, (l, h) in enumerate(heads):
                    if drop[b, i]:
                        ref.model.layers[l].attn.o_proj.weight[:, h * 16:(h + 1) * 16] = 0
                assert torch.allclose(got[b], ref(x[b:b + 1])[0], atol=1e-5)
            m.eval()
            assert torch.equal(m(x), plain()(x))
    assert any(dr.any() for dr in draws) and any(not dr.all() for dr in draws)
    again = train.HeadDropout(plain(), heads, 0.7, torch.Generator().manual_seed(9))
    assert all(torch.equal(again.draw(3), dr) for dr in draws)


def small_gdn_writes(seed):
    """a 2-layer GDN with train.py's WriteStrength on three of its four heads, and the inputs
    each layer's b_proj saw in the last forward (seen[layer], for betas computed by hand)"""
    import torch
    import train
    from model import DeltaLM, make_config
    cfg = make_config("gated_deltanet", hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                      intermediate_size=64)
    torch.manual_seed(seed)
    m = DeltaLM(cfg).train()
    heads = [(0, 1), (1, 0), (1, 1)]
    ws = train.WriteStrength(train.HeadRows(m, heads))
    seen = {}
    for l in (0, 1):
        m.model.layers[l].attn.b_proj.register_forward_hook(
            lambda mod, inp, out, l=l: seen.__setitem__(l, inp[0].detach().clone()))
    return m, heads, ws, seen


def beta_by_hand(m, seen, l, h, b, t):
    """sigmoid(b_proj x) of head h at window b, position t, in float64 from b_proj's input"""
    W = m.model.layers[l].attn.b_proj.weight[h].double()
    bias = m.model.layers[l].attn.b_proj.bias
    z = float(seen[l][b, t].double() @ W) + (float(bias[h]) if bias is not None else 0.0)
    return 1 / (1 + math.exp(-z))


def test_write_strength_means_on_and_off_the_marked_positions():
    """train.py's WriteStrength.means (--spare-records' weighed writes, --record-writes' rewarded
    ones): the long heads' mean beta = sigmoid(b_proj x) where the mask is 1 and where it is 0,
    against the same betas computed from b_proj's captured inputs and averaged element by element;
    mean(where) is the first of the two."""
    torch = pytest.importorskip("torch")
    m, heads, ws, seen = small_gdn_writes(5)
    x = torch.randint(0, 256, (2, 24))
    where = (torch.rand(2, 24, generator=torch.Generator().manual_seed(1)) < 0.3).float()
    with torch.no_grad():
        m(x)
        on, off = ws.means(where)
        m(x)
        first = ws.mean(where)
    sums, counts = [0.0, 0.0], [0, 0]
    for l, h in heads:
        for b in range(2):
            for t in range(24):
                k = 0 if where[b, t] == 1 else 1
                sums[k] += beta_by_hand(m, seen, l, h, b, t)
                counts[k] += 1
    assert 0 < counts[0] < counts[0] + counts[1]
    assert abs(float(on) - sums[0] / counts[0]) < 1e-6
    assert abs(float(off) - sums[1] / counts[1]) < 1e-6
    assert float(first) == float(on)


def test_write_once_takes_each_heads_strongest_write_on_each_line():
    """train.py --write-once (WriteStrength.once): per long head and record line, the line's
    strongest beta is rewarded and every other position's beta is weighed, against betas computed
    from b_proj's captured inputs and sorted by hand (a line a window lacks counts nowhere); the
    reward's gradient reaches only the strongest position of each line."""
    torch = pytest.importorskip("torch")
    m, heads, ws, seen = small_gdn_writes(6)
    x = torch.randint(0, 256, (2, 24))
    lines = torch.zeros(2, 24, dtype=torch.long)
    lines[0, 2:7], lines[0, 10:12], lines[0, 15:20] = 1, 2, 3
    lines[1, 0:4] = 1  # window 1 has one line only
    with torch.no_grad():
        m(x)
        rest, top = ws.once(lines)
    peaks, others = [], []
    for l, h in heads:
        for b in range(2):
            beta = [beta_by_hand(m, seen, l, h, b, t) for t in range(24)]
            for k in range(1, 4):
                at = [t for t in range(24) if lines[b, t] == k]
                if at:
                    best = max(at, key=lambda t: beta[t])
                    peaks.append(beta[best])
                    others += [beta[t] for t in at if t != best]
            others += [beta[t] for t in range(24) if lines[b, t] == 0]
    assert len(peaks) == 3 * 4 and len(peaks) + len(others) == 3 * 2 * 24
    assert abs(float(top) - sum(peaks) / len(peaks)) < 1e-6
    assert abs(float(rest) - sum(others) / len(others)) < 1e-6
    # the reward's gradient: one position per (window, line, head)
    logits = []
    hook = m.model.layers[1].attn.b_proj.register_forward_hook(
        lambda mod, inp, out: out.retain_grad() or logits.append(out))
    m(x)
    hook.remove()
    _, top = ws.once(lines)
    top.backward()
    g = logits[0].grad[..., [0, 1]]
    for b, n in ((0, 3), (1, 1)):
        for k in range(1, n + 1):
            nz = (g[b][lines[b] == k] != 0).sum(dim=0)
            assert nz.tolist() == [1, 1]
    assert (g[lines == 0] == 0).all()


def train_refuses(*options, out="/nonexistent/x"):
    """train.py --model gdn --out OUT with options: its stderr, after checking that it failed with
    a message and no traceback (a refusal before any work)"""
    import subprocess
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "lm", "train.py"), "--model", "gdn",
                        "--out", out, *options], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr and "Traceback" not in r.stderr  # tools/lm/toolcheck.die
    return r.stderr


def test_out_holding_a_run_or_a_missing_init_refused(tmp_path):
    """train.py never writes over a run: an --out that holds one (train.log) without --resume, an
    --init-from without a model, and an --init-from that is --out are refused with one message
    naming the option, and the files there are left as they were"""
    run = tmp_path / "run"
    run.mkdir()
    (run / "train.log").write_text("a log\n")
    err = train_refuses(out=str(run))
    assert "--out" in err and "--resume" in err
    err = train_refuses("--init-from", str(tmp_path / "none"), out=str(tmp_path / "new"))
    assert "--init-from" in err and not (tmp_path / "new").exists()
    (run / "config.json").write_text("{}")
    err = train_refuses("--init-from", str(run), "--resume", out=str(run))
    assert "--init-from" in err
    assert sorted(p.name for p in run.iterdir()) == ["config.json", "train.log"]
    assert (run / "train.log").read_text() == "a log\n"


def test_value_bytes_hand_written():
    """train.py --value-writes' marks (value_bytes): 1 at the value bytes of each whole definition
    line, 0 on the line's "#0417 = " and ";\\n", on query lines and elsewhere, and on a line cut
    before its ";" """
    torch = pytest.importorskip("torch")
    import train
    text = b"ab\n#1111 = Ruth;\nxx\n#1111 ? Ruth;\n#2222 = Eliza"
    (marks,) = train.value_bytes(torch.tensor([list(text)]))
    first = text.index(b"Ruth")
    assert [i for i in range(len(text)) if marks[i] == 1] == list(range(first, first + 4))


def test_value_writes_needs_record_writes_and_one_place():
    """--value-writes changes what --record-writes rewards: without it, or beside --write-once, one
    message naming both, before any work"""
    err = train_refuses("--value-writes")
    assert "--value-writes" in err and "--record-writes" in err
    err = train_refuses("--recall", "--sparse-writes", "1", "--long-gates", "0.0", "--spare-records",
                        "--record-writes", "1", "--value-writes", "--write-once")
    assert "--value-writes" in err and "--write-once" in err


def test_write_once_needs_record_writes():
    """--write-once changes what --record-writes rewards: without it, one message naming both,
    before any work"""
    err = train_refuses("--write-once")
    assert "--write-once" in err and "--record-writes" in err


def small_model_with_inputs(seed):
    """torch, a GDN of 2 layers of 2 heads (K = 16) in training mode, its long heads [(0, 1), (1, 0)],
    and a dict that each forward fills with each layer's attention input (for inputs() to give the
    keys and queries again)"""
    torch = pytest.importorskip("torch")
    from model import DeltaLM, make_config
    cfg = make_config("gated_deltanet", hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                      intermediate_size=64)
    torch.manual_seed(seed)
    m = DeltaLM(cfg).train()
    seen = {}
    for l in (0, 1):
        m.model.layers[l].attn.register_forward_pre_hook(
            lambda mod, inp, l=l: seen.__setitem__(l, inp[0].detach().clone()))
    return torch, m, [(0, 1), (1, 0)], seen


def test_write_keys_overlap_against_keys_by_hand():
    """train.py --distinct-keys (WriteKeys.overlap): the mean squared cosine between the long
    heads' keys at two marked positions of one window, against the keys each layer's inputs()
    computes (l2-normalised) and a loop over the pairs; a window with one mark adds nothing; in
    the last layer the gradient reaches the long head's k_proj rows and not the other head's
    (an earlier layer's keys feed the later layers' inputs, so all its rows may get some)"""
    torch, m, heads, seen = small_model_with_inputs(8)
    import train
    wk = train.WriteKeys(train.HeadRows(m, heads))
    x = torch.randint(0, 256, (3, 30))
    ends = torch.zeros(3, 30)
    ends[0, [4, 11, 25]] = 1
    ends[1, [7, 20]] = 1
    ends[2, 9] = 1  # one record: no pair
    m(x)
    got = wk.overlap(ends)
    vals = []
    with torch.no_grad():
        for l, h in heads:
            k = m.model.layers[l].attn.inputs(seen[l])[1]  # [B, T, H, K], l2-normalised
            for b in range(3):
                pos = ends[b].nonzero().flatten().tolist()
                vals += [float(k[b, i, h] @ k[b, j, h]) ** 2 for i in pos for j in pos if i != j]
    assert len(vals) == 2 * (6 + 2)
    assert abs(float(got) - sum(vals) / len(vals)) < 1e-6
    m.zero_grad()
    m(x)
    wk.overlap(ends).backward()
    K = 16
    g1 = m.model.layers[1].attn.k_proj.weight.grad
    assert g1[:K].abs().sum() > 0 and g1[K:].abs().sum() == 0  # layer 1: head 0 only
    assert m.model.layers[0].attn.k_proj.weight.grad[K:].abs().sum() > 0


def test_address_pairs_read_from_the_bytes():
    """train.py address_pairs: the first value byte of each definition line in the window, and for
    each query line whose record is defined there the byte before its answer, with its definition's
    index; a query of a record defined before the window and a definition cut at the window's end
    are left out"""
    torch = pytest.importorskip("torch")
    import train
    text = b"ab\n#1111 = Ruth;\n#2222 = Eli;\nxx\n#2222 ? Eli;\n#9999 ? Obed;\n#1111 ? Ruth;\n#3333 = "
    x = torch.tensor([list(text), list(b"z" * len(text))])
    (keys, asks), (k2, a2) = train.address_pairs(x)
    f1, f2 = text.index(b"Ruth"), text.index(b"Eli")
    assert keys == [f1, f2]
    assert asks == [(text.index(b"#2222 ?") + 7, 1), (text.index(b"#1111 ?") + 7, 0)]
    assert text[asks[0][0]:asks[0][0] + 2] == b" E"
    assert (k2, a2) == ([], [])


def test_address_pairs_every_value_byte():
    """train.py address_pairs(at="every"): each value byte of each whole definition line a key, and
    each byte before an answer byte of a query whose record is defined in the window paired with
    the value byte it answers with; an answer cut by the window's end keeps the queries made inside
    it (the last one predicts the byte after the window, which training has)"""
    torch = pytest.importorskip("torch")
    import train
    text = b"ab\n#1111 = Ruth;\n#2222 = Eli;\nxx\n#2222 ? Eli;\n#1111 ? Ru"
    (keys, asks), = train.address_pairs(torch.tensor([list(text)]), at="every")
    f1, f2 = text.index(b"Ruth"), text.index(b"Eli")
    assert keys == [f1, f1 + 1, f1 + 2, f1 + 3, f2, f2 + 1, f2 + 2]
    q2, q1 = text.index(b"#2222 ?") + 7, text.index(b"#1111 ?") + 7
    assert asks == [(q2, 4), (q2 + 1, 5), (q2 + 2, 6), (q1, 0), (q1 + 1, 1), (q1 + 2, 2)]
    assert q1 + 2 == len(text) - 1
    for p, i in asks[:-1]:  # the byte after the query's position is the value byte of its key
        assert text[p + 1] == text[keys[i]]


@pytest.mark.parametrize("scale", [None, 30.0])
def test_address_keys_against_a_softmax_by_hand(scale):
    """train.py --address-keys (AddressKeys.loss): the mean over queries and heads of -log softmax of
    S cos(query, key) at the query's own record (S = 10, the default, and --address-scale 30),
    against the keys and queries each layer's inputs() computes and a loop; the gradient reaches the
    long head's q_proj rows in the last layer and not the other head's"""
    torch, m, heads, seen = small_model_with_inputs(9)
    import train
    ak = train.AddressKeys(train.HeadRows(m, heads)) if scale is None else train.AddressKeys(train.HeadRows(m, heads), scale)
    S = 10.0 if scale is None else scale
    x = torch.randint(0, 256, (2, 40))
    pairs = [([3, 9, 17], [(30, 1), (35, 0)]), ([5], [(20, 0)])]  # the second: one key, nothing to pick
    m(x)
    got = ak.loss(pairs)
    vals = []
    m.eval()  # inputs() runs the convolutions again: not a training forward for the hooks
    with torch.no_grad():
        for l, h in heads:
            q, k = m.model.layers[l].attn.inputs(seen[l])[:2]
            keys, asks = pairs[0]
            for p, i in asks:
                z = [S * float(q[0, p, h] @ k[0, j, h]) for j in keys]
                vals.append(math.log(sum(math.exp(v) for v in z)) - z[i])
    assert abs(float(got) - sum(vals) / len(vals)) < 1e-5
    m.train().zero_grad()
    m(x)  # a second forward: the hooks keep reading after a loss
    again = ak.loss(pairs)
    assert abs(float(again) - float(got)) < 1e-6
    again.backward()
    K = 16
    g1 = m.model.layers[1].attn.q_proj.weight.grad
    assert g1[:K].abs().sum() > 0 and g1[K:].abs().sum() == 0


def test_query_spans_hand_written():
    """train.py --cross-talk's spans (query_spans): for each query line the byte before its answer,
    and the whole definition lines ("#... = VALUE;\n") of the other records that end by then; the
    query's own record's line, a line after the query and a line cut by the window's end left out;
    a query whose record is defined before the window still reads the others"""
    torch = pytest.importorskip("torch")
    import train
    text = b"ab\n#1111 = Ruth;\n#2222 = Eli;\n#2222 ? Eli;\n#3333 = Obed;\n#9999 ? Obed;\n#4444 = Ab"
    x = torch.tensor([list(text)])
    (spans,) = train.query_spans(x)
    line = lambda n: (text.index(b"#%d =" % n), text.index(b"\n", text.index(b"#%d =" % n)) + 1)
    r1, r2 = text.index(b"#2222 ?") + 7, text.index(b"#9999 ?") + 7
    assert spans == [(r1, [line(1111)]), (r2, [line(1111), line(2222), line(3333)])]
    assert text[line(1111)[0]:line(1111)[1]] == b"#1111 = Ruth;\n"


def test_cross_talk_against_a_loop():
    """train.py --cross-talk (CrossTalk.loss): the mean over queries and heads of the sum over the
    other records' line bytes of beta_t (q_r . k_t)^2, against the queries, keys and strengths each
    layer's inputs() computes and a loop (a query with no other line counts, adding 0); its gradient
    reaches the long head's q_proj and k_proj rows in the last layer and not the other head's, and
    none reaches b_proj (the strengths are constants)"""
    torch, m, heads, seen = small_model_with_inputs(10)
    import train
    ct = train.CrossTalk(train.HeadRows(m, heads))
    x = torch.randint(0, 256, (2, 40))
    spans = [[(12, [(2, 5)]), (30, [(2, 5), (20, 24)])], [(20, []), (25, [(6, 9)])]]
    m(x)
    got = ct.loss(spans)
    vals = []
    m.eval()
    with torch.no_grad():
        for l, h in heads:
            q, k, _, _, beta = m.model.layers[l].attn.inputs(seen[l])
            for w, asks in enumerate(spans):
                for r, lines in asks:
                    vals.append(sum(float(beta[w, t, h]) * float(q[w, r, h] @ k[w, t, h]) ** 2
                                    for lo, hi in lines for t in range(lo, hi)))
    assert len(vals) == 8 and sum(v > 0 for v in vals) == 6
    assert abs(float(got) - sum(vals) / len(vals)) < 1e-6
    m.train().zero_grad()
    m(x)
    ct.loss(spans).backward()
    K = 16
    for proj in ("q_proj", "k_proj"):
        g = getattr(m.model.layers[1].attn, proj).weight.grad
        assert g[:K].abs().sum() > 0 and g[K:].abs().sum() == 0
    assert m.model.layers[1].attn.b_proj.weight.grad is None or m.model.layers[1].attn.b_proj.weight.grad.abs().sum() == 0


def test_cross_talk_needs_recall_and_long_gates():
    """--cross-talk weighs the --long-gates heads' queries against the records --recall weaves:
    without them, one message naming both, before any work"""
    err = train_refuses("--recall", "--cross-talk", "1")
    assert "--cross-talk" in err and "--long-gates" in err


def test_address_keys_needs_recall_and_long_gates():
    """--address-keys teaches the --long-gates heads on the records --recall weaves: without them,
    one message naming both, before any work"""
    err = train_refuses("--recall", "--address-keys", "1")
    assert "--address-keys" in err and "--long-gates" in err


def test_address_at_needs_address_keys():
    """--address-at says where --address-keys reads a record's key: without --address-keys, one
    message naming both, before any work"""
    err = train_refuses("--address-at", "end")
    assert "--address-at" in err and "--address-keys" in err


def test_record_spans_hand_written():
    """train.py --keep-records' records (record_spans): each whole definition line's value's first
    byte and its ";", a number defined twice taken at its last definition, a line cut by the
    window's end left out"""
    torch = pytest.importorskip("torch")
    import train
    text = b"ab\n#0417 = Ruth;\n#0001 = Eli;\nxyz\n#0417 ? Ruth\n#0001 = Dan;\n#0002 = Gad;"
    x = torch.tensor(list(text[:-1]))[None]  # the last definition's ";" falls outside
    want = [(text.index(b"Ruth"), text.index(b"Ruth;") + 4), (text.index(b"Dan"), text.index(b"Dan;") + 3)]
    assert train.record_spans(x) == [want]
    assert [text[e] for _, e in want] == [ord(";")] * 2


def test_erosion_against_the_delta_rule():
    """erosion() against the delta rule's closed form: a record written along k (twice, strength 1),
    then one write of key k' (cos 0.6 with k) and strength 0.7 and one of an orthogonal key: what k
    reads keeps 1 - 0.7 x 0.36, run through the recurrence in float64, and the erosion is 0.252"""
    torch = pytest.importorskip("torch")
    import train
    K, c, b = 8, 0.6, 0.7
    E = torch.eye(K, dtype=torch.float64)
    k, k2 = E[0], c * E[0] + (1 - c * c) ** 0.5 * E[1]
    keys = torch.stack([k, k, k2, E[5]])[:, None]  # [T = 4, one head, K]
    betas = torch.tensor([[1.0], [1.0], [b], [0.9]], dtype=torch.float64)
    er = train.erosion(keys, betas, [(0, 1)])
    assert abs(float(er[0, 0]) - b * c * c) < 1e-12
    S = torch.zeros(K, K, dtype=torch.float64)
    v = torch.arange(1.0, K + 1, dtype=torch.float64)
    for t in range(4):  # the record's value at t = 0, 1; zero values after
        vt = v if t < 2 else torch.zeros(K, dtype=torch.float64)
        S = S + betas[t, 0] * torch.outer(vt - S @ keys[t, 0], keys[t, 0])
    assert abs(float((S @ k) @ v / (v @ v)) - (1 - b * c * c)) < 1e-12


def test_erosion_against_a_loop():
    """erosion() on random unit keys and strengths against a float64 loop over the later positions"""
    torch = pytest.importorskip("torch")
    import train
    g = torch.Generator().manual_seed(3)
    T, H, K = 12, 2, 5
    keys = torch.randn(T, H, K, generator=g, dtype=torch.float64)
    keys = keys / keys.norm(dim=-1, keepdim=True)
    betas = torch.rand(T, H, generator=g, dtype=torch.float64)
    spans = [(1, 3), (6, 9)]
    got = train.erosion(keys, betas, spans)
    for r, (p, e) in enumerate(spans):
        for h in range(H):
            want = sum(float(betas[t, h]) * float(keys[t, h] @ keys[p, h]) ** 2 for t in range(e + 1, T))
            assert abs(float(got[r, h]) - want) < 1e-12


def test_record_erosion_against_inputs():
    """train.py --keep-records (RecordErosion.loss): the mean erosion over records and long heads of
    a training forward, against erosion() of the keys and strengths each layer's inputs() computes;
    in the last layer the gradient reaches the long head's k_proj rows and not the other head's, and
    no b_proj row (the strengths are constants)"""
    torch, m, heads, seen = small_model_with_inputs(5)
    import train
    keep = train.RecordErosion(train.HeadRows(m, heads))
    x = torch.tensor(list(b"#0417 = Ruth;\nab cd\n#0001 = Eli;\nxyz qq\n"))[None]
    spans = train.record_spans(x)
    m(x)
    got = keep.loss(spans)
    m.eval()  # inputs() runs the projections again: not a training forward for the hooks
    parts = []
    with torch.no_grad():
        for l, h in heads:
            _, k, _, _, beta = m.model.layers[l].attn.inputs(seen[l])
            parts.append(train.erosion(k[0][:, [h]], beta[0][:, [h]], spans[0]).reshape(-1))
    assert abs(float(got) - float(torch.cat(parts).mean())) < 1e-6
    m(x[:, :20])  # an evaluation forward: the rows stay the last training forward's
    assert float(keep.loss(spans)) == float(got)
    m.train().zero_grad()
    m(x)
    keep.loss(spans).backward()
    last = m.model.layers[1].attn
    K = 16
    assert last.k_proj.weight.grad[:K].abs().sum() > 0 and last.k_proj.weight.grad[K:].abs().sum() == 0
    assert last.b_proj.weight.grad is None or last.b_proj.weight.grad.abs().sum() == 0


def test_address_scale_needs_address_keys():
    """--address-scale scales --address-keys' cosines: without --address-keys, or at 0, one message
    naming the option, before any work"""
    err = train_refuses("--address-scale", "30")
    assert "--address-scale" in err and "--address-keys" in err
    err = train_refuses("--recall", "--address-keys", "1", "--long-gates", "0.0", "--address-scale", "0")
    assert "--address-scale" in err


def test_keep_records_needs_recall_and_long_gates():
    """--keep-records weighs the --long-gates heads' writes after the records --recall weaves:
    without them, one message naming both, before any work"""
    err = train_refuses("--recall", "--keep-records", "1")
    assert "--keep-records" in err and "--long-gates" in err


def test_distinct_keys_needs_write_at_end():
    """--distinct-keys compares the keys at the positions --write-at-end rewards: without it, one
    message naming both, before any work"""
    err = train_refuses("--distinct-keys", "1")
    assert "--distinct-keys" in err and "--write-at-end" in err


def test_record_blocks_needs_recall():
    """--record-blocks groups the records --recall weaves: without it, or below 1, one message
    naming it, before any work"""
    for extra in ([], ["--recall", "--record-blocks", "0"]):
        assert "--record-blocks" in train_refuses("--record-blocks", "4", *extra)


def test_write_at_end_needs_record_writes_and_not_write_once():
    """--write-at-end changes what --record-writes rewards, and says where a record is written as
    --write-once does: without --record-writes, or beside --write-once, one message naming them,
    before any work"""
    err = train_refuses("--write-at-end")
    assert "--write-at-end" in err and "--record-writes" in err
    err = train_refuses("--recall", "--sparse-writes", "1", "--spare-records", "--record-writes", "1",
                        "--write-once", "--write-at-end")
    assert "--write-at-end" in err and "--write-once" in err


def test_record_writes_needs_spare_records():
    """--record-writes rewards writes on the lines --spare-records marks: without it, one message
    naming the option, before any work"""
    err = train_refuses("--record-writes", "1", out=os.devnull + "-never")
    assert "--record-writes 1" in err and "--spare-records" in err


def test_eval_every_below_zero_refused():
    """--eval-every counts steps between evaluations (0: the final one only): below 0, one message
    naming it, before any work (0 once divided by zero at the first step)"""
    assert "--eval-every" in train_refuses("--eval-every", "-1")


@pytest.mark.parametrize("kda", [False, True])
def test_readout_contributions_against_the_state(kda):
    """tools/lm/readout.py contributions(): sum_t c[i, t] v_t equals the read S_r^T q_r of a
    delta-rule state stepped byte by byte in float64 (S <- D S, then S - beta k (k^T S) + beta k
    v^T; one gate per head, or one per key channel), and c is 0 after each read"""
    torch = pytest.importorskip("torch")
    import readout
    g0 = torch.Generator().manual_seed(3)
    T, K = 40, 8
    unit = lambda x: x / x.norm(dim=-1, keepdim=True)
    q, k = (unit(torch.randn(T, K, generator=g0, dtype=torch.float64)) for _ in range(2))
    v = torch.randn(T, K, generator=g0, dtype=torch.float64)
    g = -torch.rand(*((T, K) if kda else (T,)), generator=g0, dtype=torch.float64)
    beta = torch.rand(T, generator=g0, dtype=torch.float64)
    S, want = torch.zeros(K, K, dtype=torch.float64), {}
    for t in range(T):
        S = S * (g[t].exp()[:, None] if kda else g[t].exp())
        S = S - beta[t] * torch.outer(k[t], k[t] @ S) + beta[t] * torch.outer(k[t], v[t])
        want[t] = S.T @ q[t]
    reads = [7, 25, 39]
    c = readout.contributions(q, k, g, beta, reads)
    for i, r in enumerate(reads):
        assert torch.allclose(c[i] @ v, want[r], atol=1e-12, rtol=0)
        assert (c[i, r + 1:] == 0).all()


def test_readout_parts_hand_written():
    """readout.py parts(): the query's own definition line, the other records' lines ended before
    the read (a line after it left out), and every other byte up to the read"""
    pytest.importorskip("torch")
    import readout
    text = b"ab\n#1111 = Ruth;\n#2222 = Eli;\nxx\n#2222 ? Eli;\n#3333 = Obed;\n"
    read = text.index(b"#2222 ?") + 7
    rec = {"first": text.index(b"Eli"), "length": 3}
    m = readout.parts(text, [rec], [read])[0]
    on = lambda row: [i for i in range(len(text)) if row[i] == 1]
    own = text.index(b"#2222 =")
    assert on(m[0]) == list(range(own, own + len(b"#2222 = Eli;\n")))
    assert on(m[1]) == list(range(3, 3 + len(b"#1111 = Ruth;\n")))
    assert on(m[2]) == [0, 1, 2] + list(range(text.index(b"xx"), read + 1))
    assert float(m.sum()) == read + 1


def parse_needles(doc):
    """Every needle query found by reading doc: {key: (first, query line start, start, value)}"""
    defs, out = {}, {}
    for m in re.finditer(rb"(?m)^(?:One of the special magic numbers for ([a-z]+) is: |"
                         rb"What is the special magic number for ([a-z]+)\? It is: )(\d+)\.\n", doc):
        if m.group(1):
            assert m.group(1) not in defs, "needle %s defined twice" % m.group(1)
            defs[m.group(1)] = (m.start(3), m.group(3))
        else:
            first, dval = defs[m.group(2)]   # a query never comes before its definition
            assert dval == m.group(3)
            out[m.group(2).decode()] = (first, m.start(), m.start(3), m.group(3))
    return out


def test_needles_read_back_and_between():
    """RULER-style needles (weave style "needle"): every span is found again by a parser written
    here, the host survives whole once the needle lines are removed, the same seed gives the same
    bytes, and defined_between counts the needles defined between a needle and its query as
    counted here by hand."""
    host = host_text()
    for seed in range(10):
        doc, spans = recall.weave(host, seed, recall.needle_value, n_records=8, n_passages=0, dmax=2048,
                                  style="needle")
        assert (doc, spans) == recall.weave(host, seed, recall.needle_value, n_records=8, n_passages=0,
                                            dmax=2048, style="needle")
        found = parse_needles(doc)
        assert len(found) == len(spans) > 0
        for s in spans:
            first, query, start, val = found[s["key"]]
            assert s["kind"] == "needle" and (s["first"], s["query"], s["start"]) == (first, query, start)
            assert s["value"].encode() == val and re.fullmatch(rb"[1-9]\d{6}", val)
            defs = [f for f, _, _, _ in found.values() if s["first"] < f < query]
            assert recall.defined_between(doc, s["first"], s["length"], s["start"], s["query"],
                                          recall.NEEDLE_HEAD) == len(defs)
        stripped = re.sub(rb"(?m)^(One of the|What is the) special magic number.*\n", b"", doc)
        assert stripped == host


def test_shipped_needles():
    """data/lm/heldout_needles.json: the documents' bytes and sha256, each span found again by
    parse_needles, values distinct within a document and absent from the held-out book around
    them, hosts the held-out prose books only"""
    data = os.path.join(ROOT, "data", "lm")
    rj = json.load(open(os.path.join(data, "heldout_needles.json")))
    assert rj["buckets"] == recall.BUCKETS and not set(rj["generator"]["seeds"]) & {1, 2, 3, 101, 102, 103}
    books = {d["name"]: open(os.path.join(data, d["file"]), "rb").read()
             for d in json.load(open(os.path.join(data, "heldout.json")))["documents"] if d["domain"] == "prose"}
    n = 0
    for d in rj["documents"]:
        doc = open(os.path.join(data, d["file"]), "rb").read()
        assert len(doc) == d["bytes"] and hashlib.sha256(doc).hexdigest() == d["sha256"], d["file"]
        assert d["domain"] == "prose" and d["host"] in books
        found = parse_needles(doc)
        vals = [s["value"] for s in d["spans"]]
        assert len(set(vals)) == len(vals) == len(found)
        for s in d["spans"]:
            assert (s["first"], s["query"], s["start"]) == found[s["key"]][:3]
            assert s["value"].encode() not in books[d["host"]]
            n += 1
    assert n > 400


@pytest.mark.parametrize("kind", ["gated_deltanet", "kda"])
def test_forgetting_control_fixes_the_chosen_units_half_life(kind):
    """recall_metrics.fix_decay: the chosen units (GDN heads, KDA key rows, A_log left as it is)
    decay by exactly ln 2 / 64 a token at every position, read from the layer's own gate g on text;
    every other unit's gate is unchanged to the bit."""
    torch = pytest.importorskip("torch")
    from model import DeltaLM, make_config
    import recall_metrics as rm
    torch.manual_seed(3)
    m = DeltaLM(make_config(kind, hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                            intermediate_size=64)).eval()
    with torch.no_grad():
        for layer in m.model.layers:
            layer.attn.A_log.copy_(torch.tensor([0.7, -1.3]))  # exp(A_log) != 1: the formula must divide by it
    chosen = [(0, 1, None), (1, 0, None)] if kind == "gated_deltanet" else [(0, 1, 3), (1, 0, 0), (1, 0, 15)]
    fixed = rm.copy.deepcopy(m)
    rm.fix_decay(fixed, chosen, rm.FORGET_HALF_LIFE)
    x = torch.tensor(list(host_text(10)[:300]), dtype=torch.long)[None]

    def gates(model):
        h, out = model.model.embeddings(x), []
        for layer in model.model.layers:
            out.append(layer.attn.inputs(layer.attn_norm(h))[3][0])  # [T, H] or [T, H, K]
            h = layer(h)
        return out
    before, after = gates(m), gates(fixed)
    for li in range(2):
        mask = torch.zeros_like(after[li], dtype=torch.bool)
        for l, h, r in chosen:
            if l == li:
                mask[(slice(None), h) if r is None else (slice(None), h, r)] = True
        assert torch.allclose(after[li][mask].double(), torch.full_like(after[li][mask].double(),
                              -math.log(2) / rm.FORGET_HALF_LIFE), rtol=1e-6, atol=0)
        if li == 0:  # later layers' inputs change with the first's gates; the first's other units do not
            assert torch.equal(after[0][~mask], before[0][~mask])


def test_layer_matched_quarters():
    """recall_metrics.layer_matched: as many units from each layer as the chosen set has, each from
    that layer, no unit twice, and the same draw for the same seed"""
    torch = pytest.importorskip("torch")
    import recall_metrics as rm
    units = [(li, h, r, 1.0) for li in range(4) for h in range(4) for r in range(8)]
    chosen = [(1, 0, 0, 9.0), (1, 2, 5, 9.0), (3, 1, 1, 9.0)]
    a = rm.layer_matched(units, chosen, torch.Generator().manual_seed(4))
    b = rm.layer_matched(units, chosen, torch.Generator().manual_seed(4))
    assert a == b and len(set(a)) == len(a) == 3
    assert sorted(u[0] for u in a) == [1, 1, 3]


def test_a_model_variant_reads_the_whole_document():
    """doc_records' variants: the model itself as a variant scores every record as the native
    pass does (one pass against the pieces the native pass reads between queries)"""
    torch = pytest.importorskip("torch")
    from model import DeltaLM, make_config
    import recall_metrics as rm
    doc, spans = recall.weave(host_text(40), 5, NAMES, n_records=6, n_passages=0, dmin=20, dmax=400)
    torch.manual_seed(0)
    m = DeltaLM(make_config("gated_deltanet", hidden_size=32, num_hidden_layers=2, num_heads=2, head_dim=16,
                            intermediate_size=64, max_position_embeddings=4096)).eval()
    recs = rm.doc_records(m, doc, spans, {}, {"same": m})
    assert len(recs) == sum(s["kind"] == "record" for s in spans) > 0
    for r in recs:
        assert r["same"][1] == r["native"][1]
        assert abs(r["same"][0] - r["native"][0]) < 1e-4 * max(1.0, abs(r["native"][0]))


def test_with_terminator_marks_the_answers_semicolon():
    """train.py --with-terminator: value_bytes marks each whole definition line's ";" beside its
    value bytes; address_pairs(at="every") takes the ";" as the value's last key, asked for by the
    byte before the answer's ";"; recall_batch weighs the prediction of each record answer's ";"
    as its bytes (and the byte after a copied passage not)"""
    torch = pytest.importorskip("torch")
    import argparse
    import train
    text = b"ab\n#1111 = Ruth;\nxx\n#1111 ? Ruth;\n#2222 = Eliza"
    (marks,) = train.value_bytes(torch.tensor([list(text)]), terminator=True)
    first = text.index(b"Ruth")
    assert [i for i in range(len(text)) if marks[i] == 1] == list(range(first, first + 5))
    text = b"ab\n#1111 = Ruth;\n#2222 = Eli;\nxx\n#2222 ? Eli;\n#1111 ? Ru"
    (keys, asks), = train.address_pairs(torch.tensor([list(text)]), at="every", terminator=True)
    f1, f2 = text.index(b"Ruth"), text.index(b"Eli")
    assert keys == [f1, f1 + 1, f1 + 2, f1 + 3, f1 + 4, f2, f2 + 1, f2 + 2, f2 + 3]
    q2, q1 = text.index(b"#2222 ?") + 7, text.index(b"#1111 ?") + 7
    assert asks == [(q2, 5), (q2 + 1, 6), (q2 + 2, 7), (q2 + 3, 8), (q1, 0), (q1 + 1, 1), (q1 + 2, 2)]
    for p, i in asks[:-1]:
        assert text[p + 1] == text[keys[i]]
    T = 1536
    host = host_text(400)
    streams = {dom: torch.frombuffer(bytearray(host), dtype=torch.uint8) for dom, _ in train.DOMAINS}
    seen = 0
    for term in (False, True):
        args = argparse.Namespace(records=12, passages=2, dmin=16, dmax=1024, recall_margin=64, record_blocks=1,
                                  answer_weight=3.0, with_terminator=term)
        x, y, w, _ = train.recall_batch(streams, torch.Generator().manual_seed(5), 2, T, NAMES, args)
        for row, ys, ws in zip(x, y, w):
            text = bytes(row.to(torch.uint8).tolist())
            for m in re.finditer(rb"#(\d{4}) \? ([A-Za-z]+);", text):
                semi = m.end() - 1            # the ";" after the answer: predicted at position semi - 1
                assert ys[semi - 1] == ord(";")
                assert ws[semi - 1] == (3.0 if term else 1.0)
                assert ws[m.start(2) - 1] == 3.0  # the answer's first byte weighs 3 either way
                seen += 1
    assert seen >= 10
