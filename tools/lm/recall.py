"""Recall material woven into text: what a model must remember over a distance.

Two kinds of material, each placed at line boundaries of a host text (prose, fortunes, code):

  record   a definition line  b"#0417 = Hezekiah;\\n"  and, later, a query line
           b"#0417 ? Hezekiah;\\n".  The answer is the value's bytes in the query line
           (b"Hezekiah"); nothing before the query says which value it will be but the
           definition.  Keys are four random digits, distinct within a document; values are
           names drawn from NAMES (a fixed list taken from the training prose, see names()).
  needle   (RULER-style, prose hosts only) a line b"One of the special magic numbers for
           qorvandel is: 4790215.\n" and, later, b"What is the special magic number for
           qorvandel? It is: 4790215.\n".  Keys are random lowercase words (NEEDLE_KEY_LETTERS),
           values random 7-digit numbers (needle_value); the answer is the number's bytes, its
           terminator the ".".  Built by weave(..., style="needle"): the records' layout and
           distances with these lines instead of "#NNNN = Name;".
  passage  a run of whole host lines (PASSAGE_MIN..PASSAGE_MAX bytes) copied later as lines of
           their own.  The answer is the copy after its first PASSAGE_CUE bytes (the cue that
           tells which passage is being repeated).

Distances.  A span's distance is the answer's start minus the start of the same bytes' first
occurrence in the document (the value in the definition line; the same offset in the original
passage).  Wanted distances are drawn log-uniformly in [dmin, dmax]; the definition (or original)
goes at a random line start that leaves room, the query (or copy) at the first line start at
least that far on (a record's query directly after its definition where that line start is more
than twice as far as wanted), so the distance a span gets is recorded exactly (material inserted
between the two adds to it).  Nothing is inserted inside an original passage.

Blocks (training only: the held-out documents take one record a definition line start).  With
block > 1 the records' definitions come in runs of `block` lines at one line start, each query
at its own distance from there (a member whose query would fall past the limit starts a run of its
own; a query that would follow its definition directly follows the whole run): every query then has the rest of its block defined after its own
definition, so the value written last is the right answer for one query of the block only, and a
model must find a value by its key rather than by how recently it was written.

Everything is deterministic for (host text, seed, parameters): random.Random(seed) is the only
source of randomness, and the same call with the same arguments gives the same bytes and spans.

Used by corpus.py (held-out recall documents and data/lm/heldout_recall.json) and train.py
(training windows woven on the fly, one generator seeded from the run's seed).
"""
import bisect
import math
import random
import re

PASSAGE_MIN = 32
PASSAGE_MAX = 160
PASSAGE_CUE = 8
RECORD_HEAD = len(b"#0417 = ")  # a definition or query line's bytes before the value
RECORD_TAIL = len(b";\n")       # and after it


NEEDLE_DEF = b"One of the special magic numbers for %s is: "
NEEDLE_QUERY = b"What is the special magic number for %s? It is: "
NEEDLE_TAIL = b".\n"
NEEDLE_KEY_LETTERS = (7, 10)      # a key: this many lowercase letters
NEEDLE_DIGITS = 7                 # a value: a number of this many digits, the first not 0
NEEDLE_HEAD = re.compile(rb"(?m)^One of the special magic numbers for ([a-z]+) is: ")


def needle_value(rng):
    """A needle's value: a random NEEDLE_DIGITS-digit number (first digit 1-9), from the weave's rng"""
    return b"%d" % rng.randrange(10 ** (NEEDLE_DIGITS - 1), 10 ** NEEDLE_DIGITS)


def _needle_key(rng):
    n = rng.randint(*NEEDLE_KEY_LETTERS)
    return bytes(rng.randrange(ord("a"), ord("z") + 1) for _ in range(n))


def definition_line(first, length):
    """[start, end) of the definition line "#0417 = VALUE;\n" whose value (length bytes) begins
    at byte first"""
    return first - RECORD_HEAD, first + length + RECORD_TAIL


# the heads of a definition line and of a query line, as weave writes them, the key captured
DEFINITION_HEAD = re.compile(rb"(?m)^#(\d{4}) = ")
QUERY_HEAD = re.compile(rb"(?m)^#(\d{4}) \? ")


def definition_lines(doc):
    """[(number, first, end)] for each record definition line "#0417 = Hezekiah;" of doc (bytes), in
    order: its value's first byte and the ";" after it (-1 where doc ends first); the line is
    [first - RECORD_HEAD, end + RECORD_TAIL)"""
    return [(m.group(1), m.end(), doc.find(b";", m.end())) for m in DEFINITION_HEAD.finditer(doc)]


def defined_between(doc, first, length, start, query=None, head=DEFINITION_HEAD):
    """record definition lines of doc between a record's definition (its value's length bytes at
    first) and its query (the answer at start; its line at query, default start - RECORD_HEAD):
    lines matching head ("#NNNN = "; NEEDLE_HEAD for needles) beginning at or after the
    definition line's end and before the query line's start"""
    lo, hi = first + length + RECORD_TAIL, start - RECORD_HEAD if query is None else query
    return sum(1 for m in head.finditer(doc, lo) if m.start() < hi)


BUCKETS = [[16, 64], [64, 256], [256, 512], [512, 1024], [1024, 2048], [2048, 4096], [4096, 8192]]

_NAME = re.compile(rb"\b[A-Z][a-z]{3,9}\b")
_WORD = re.compile(rb"\b[A-Za-z]+\b")


def names(prose, min_count=3):
    """Proper names of the prose: words of 4..10 letters, capitalised, seen at least min_count
    times and never in lower case (so not a sentence-initial common word). Sorted."""
    counts = {}
    for m in _NAME.finditer(prose):
        counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    lower = set(w for w in _WORD.findall(prose) if w[:1].islower())
    return sorted(w for w, c in counts.items() if c >= min_count and w.lower() not in lower)


NOVEL_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
NOVEL_LENGTHS = (7, 12)  # 7 of 62 characters carry 41.7 bits; fewer cannot carry 40


def novel_value(rng):
    """A value no model has seen: NOVEL_LENGTHS[0]..[1] characters (uniform length) drawn
    uniformly from NOVEL_CHARS (letters and digits), at least 7 log2 62 = 41.7 bits each, from
    the weave's own generator rng (random.Random)."""
    n = rng.randint(*NOVEL_LENGTHS)
    return bytes(NOVEL_CHARS[rng.randrange(len(NOVEL_CHARS))] for _ in range(n))


def bucket_of(distance, buckets=BUCKETS):
    """Index of the bucket [lo, hi) holding distance, or None."""
    for i, (lo, hi) in enumerate(buckets):
        if lo <= distance < hi:
            return i
    return None


def _line_starts(host):
    starts = [0]
    i = host.find(b"\n")
    while i >= 0:
        if i + 1 < len(host):
            starts.append(i + 1)
        i = host.find(b"\n", i + 1)
    return starts


def _log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def weave(host, seed, values, n_records=24, n_passages=3, dmin=16, dmax=8192, limit=None, block=1,
          style="record"):
    """Weave recall material into host (bytes).  Returns (doc, spans).

    Every query or copy lies before host offset `limit` (default: len(host)), so a caller that
    cuts the woven document to len(host) bytes or so keeps them whole.  spans: one dict per
    record or passage, in order of answer position:
      kind ('record' | 'passage'), key (record's key, else None), first (where the answer's bytes
      first occur), start (answer start), length (answer bytes), distance (start - first).
    A host without room for a wanted distance (shorter than it) gets fewer spans.  block: records
    defined in runs of that many lines at one line start (see the module's text); 1 draws exactly
    what weave drew before blocks existed.  values: a list of values (bytes), one drawn uniformly
    for each record (the named records: NAMES), or a function of the weave's generator that makes
    one (novel_value).  style "needle": the records are needles (values: needle_value), each
    span of kind 'needle' with its key word and 'query', the offset of its query line."""
    assert style in ("record", "needle")
    rng = random.Random(seed)
    limit = len(host) if limit is None else min(limit, len(host))
    starts = _line_starts(host)
    used_keys = set()
    inserts = []  # (host offset, order, bytes, marks): marks = [(offset in bytes, span index, role)]
    spans = []
    protected = []  # host intervals (a, end) of original passages: nothing may be inserted inside

    def free(x):
        return all(not (lo < x < hi) for lo, hi in protected)

    # passages first, so that records are never inserted inside an original passage (which would
    # make it differ from its copy)
    block_at = None  # the line start of the present block of definitions
    for i in range(n_passages + n_records):
        kind = "passage" if i < n_passages else "record"
        d = _log_uniform(rng, dmin, dmax)
        if kind == "record" and block > 1 and (i - n_passages) % block and block_at is not None \
                and block_at + d < limit:
            a = block_at
        else:
            room = [s for s in starts if s + d < limit and free(s)]
            if not room:
                continue
            a = room[rng.randrange(len(room))]
        if kind == "record":
            block_at = a
        j = bisect.bisect_left(starts, a + d)
        while j < len(starts) and not free(starts[j]):
            j += 1
        if j >= len(starts) or starts[j] >= limit:
            continue
        b = starts[j]
        if b - a > 2 * d:
            # the next line start is much further than wanted: the query (or copy) follows the
            # definition's line directly (records only; a passage needs whole lines between)
            b = a if kind == "record" else b
        if kind == "record":
            while True:
                key = rng.randrange(10000) if style == "record" else _needle_key(rng)
                if key not in used_keys:
                    break
            used_keys.add(key)
            val = values(rng) if callable(values) else values[rng.randrange(len(values))]
            si = len(spans)
            if style == "record":
                head_def, head_q, tail = b"#%04d = " % key, b"#%04d ? " % key, b";\n"
                assert len(head_def) == len(head_q) == RECORD_HEAD
                spans.append(dict(kind="record", key="%04d" % key, length=len(val), value=val.decode()))
                query_marks = [(len(head_q), si, "start")]
            else:
                head_def, head_q, tail = NEEDLE_DEF % key, NEEDLE_QUERY % key, NEEDLE_TAIL
                spans.append(dict(kind="needle", key=key.decode(), length=len(val), value=val.decode()))
                query_marks = [(0, si, "query"), (len(head_q), si, "start")]
            inserts.append((a, i, head_def + val + tail, [(len(head_def), si, "first")]))
            # a run's query that follows its definition directly goes after the whole run (its
            # order past every drawing's), so that the rest of the run stands between the two
            order = i + n_passages + n_records if block > 1 and b == a else i
            inserts.append((b, order, head_q + val + tail, query_marks))
        else:
            # whole lines from a, PASSAGE_MIN..PASSAGE_MAX bytes; the copy at b is inserted
            k = bisect.bisect_left(starts, a)
            end = a
            taken = [t[0] for t in inserts]
            while (k + 1 < len(starts) and starts[k + 1] - a <= PASSAGE_MAX and starts[k + 1] <= b
                   and free(starts[k + 1]) and not any(end < t < starts[k + 1] for t in taken)):
                k += 1
                end = starts[k]
            if end - a < PASSAGE_MIN or any(a < t < end for t in taken):
                continue
            protected.append((a, end))
            passage = host[a:end]
            si = len(spans)
            spans.append(dict(kind="passage", key=None, length=len(passage) - PASSAGE_CUE))
            # the original stays where it is in the host: mark it with an empty insert at a
            inserts.append((a, i, b"", [(PASSAGE_CUE, si, "first")]))
            inserts.append((b, i, passage, [(PASSAGE_CUE, si, "start")]))
    # lay out: host pieces and inserts in host order (ties: in order of drawing)
    # an original passage's mark goes after every line inserted at its offset, so that it marks
    # the host bytes themselves
    inserts.sort(key=lambda t: (t[0], t[2] == b"", t[1]))
    out, pos, cur = [], 0, 0
    for off, _, data, marks in inserts:
        out.append(host[cur:off])
        pos += off - cur
        cur = off
        for rel, si, role in marks:
            spans[si][role] = pos + rel
        out.append(data)
        pos += len(data)
    out.append(host[cur:])
    doc = b"".join(out)
    spans = [s for s in spans if "first" in s and "start" in s]
    for s in spans:
        s["distance"] = s["start"] - s["first"]
        assert doc[s["first"]:s["first"] + s["length"]] == doc[s["start"]:s["start"] + s["length"]]
    spans.sort(key=lambda s: s["start"])
    return doc, spans


def answer_scores(logits, doc, spans):
    """Per span: (nll of the answer bytes in nats, teacher-forced; exact) from logits [T, 256]
    of the document doc[0..T] (logits[t] predicts byte t+1), None where the logits end before the
    answer's terminator.  exact, the strict metric: every answer byte and then the terminator
    after it (the document's next byte, ";") is the argmax at its position, which is what greedy
    decoding from the answer's start produces when it must give exactly the value and stop
    (greedy decoding follows the teacher-forced path for as long as it is right); an answer that
    goes on into a longer name (Gideon -> Gideoni) is wrong."""
    import torch
    logp = torch.log_softmax(logits.double(), -1)
    tgt = torch.tensor(list(doc[1:logits.shape[0] + 1]), dtype=torch.long)
    out = []
    for s in spans:
        lo, hi = s["start"] - 1, s["start"] - 1 + s["length"]
        if hi + 1 > logits.shape[0]:
            out.append(None)
            continue
        t = tgt[lo:hi + 1]
        nll = -logp[lo:hi].gather(1, t[:-1, None]).sum().item()
        exact = bool((logp[lo:hi + 1].argmax(-1) == t).all())
        out.append((nll, exact))
    return out
