#!/usr/bin/env python3
"""Build the byte-level training / held-out corpus from Debian packages.

Sources (install with `apt-get install -y bible-kjv bible-kjv-text fortunes`;
libc6-dev and linux-libc-dev come with any C toolchain):

  prose    the King James Bible (bible-kjv-text, read through the `bible`
           program of bible-kjv), one document per book.  Each document is
           the book's verses, one per line, as "chapter:verse text\n".
  fortunes every fortune file in /usr/share/games/fortunes (training only).
  code     every regular *.h file shipped by the Debian packages libc6-dev and
           linux-libc-dev (the list comes from `dpkg -L`, so headers that other
           packages put into /usr/include never enter the corpus).

Held out (never trained on):
  prose    the whole books in HELDOUT_BOOKS (10 books, each >= 8,192 bytes).
  code     of the headers of at least 8,192 bytes, sorted by path, every
           CODE_HOLDOUT_EVERY-th starting at CODE_HOLDOUT_OFFSET.

Everything is deterministic: sorted file lists, fixed choices, no randomness.
Output (ignored by git):
  tools/lm/corpus/train_prose.bin, train_fortunes.bin, train_code.bin
      training documents of each domain joined by b"\\n\\n"
  tools/lm/corpus/heldout/prose/<Book>.txt, heldout/code/<path with / -> __>.txt (a suffix, so that
      no tool takes the held-out headers for the project's source)
  tools/lm/corpus/manifest.json   every document, its domain, split, size, sha256
and the committed list data/lm/heldout.json (name, domain, file, bytes, sha256).

Usage: python tools/lm/corpus.py [--out tools/lm/corpus] [--heldout-json data/lm/heldout.json]
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recall  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Abbreviations exactly as `bible -f` prints them.
HELDOUT_BOOKS = ["Ruth", "Est", "Eccl", "Lam", "Dan", "Amos", "Mark", "Gal", "Jas", "Rev"]
CODE_PACKAGES = ["libc6-dev", "linux-libc-dev"]
CODE_MIN_HELDOUT = 8192
CODE_HOLDOUT_EVERY = 10
CODE_HOLDOUT_OFFSET = 3
FORTUNE_DIR = "/usr/share/games/fortunes"
SEP = b"\n\n"


def sha256(b):
    return hashlib.sha256(b).hexdigest()


def pkg_version(p):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", p], check=True,
                              capture_output=True, text=True).stdout.strip()
    except Exception:
        return None


def bible_books():
    """[(abbrev, bytes)] in canonical order."""
    out = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], check=True,
                         capture_output=True, env=dict(os.environ, COLUMNS="80")).stdout
    books, cur, lines = [], None, []
    pat = re.compile(rb"^([1-3]?[A-Za-z]+)(\d+:\d+) (.*)$")
    for line in out.split(b"\n"):
        if not line.strip():
            continue
        m = pat.match(line)
        if not m:
            raise SystemExit("unexpected bible line: %r" % line[:80])
        ab = m.group(1).decode()
        if ab != cur:
            if cur is not None:
                books.append((cur, b"".join(lines)))
            cur, lines = ab, []
        lines.append(m.group(2) + b" " + m.group(3).rstrip() + b"\n")
    books.append((cur, b"".join(lines)))
    if len(books) != 66:
        raise SystemExit("expected 66 books, got %d" % len(books))
    return books


def fortune_files():
    docs = []
    for name in sorted(os.listdir(FORTUNE_DIR)):
        p = os.path.join(FORTUNE_DIR, name)
        if name.endswith(".dat") or name.endswith(".u8") or os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, "rb") as f:
            docs.append((name, f.read()))
    return docs


def header_files():
    seen, files = set(), []
    for p in CODE_PACKAGES:
        lst = subprocess.run(["dpkg", "-L", p], check=True, capture_output=True, text=True).stdout.split("\n")
        for path in lst:
            if not path.endswith(".h") or os.path.islink(path) or not os.path.isfile(path):
                continue
            rp = os.path.realpath(path)
            if rp in seen:
                continue
            seen.add(rp)
            files.append(path)
    files.sort()
    out = []
    for path in files:
        with open(path, "rb") as f:
            out.append((os.path.relpath(path, "/usr/include"), f.read()))
    return out


RECALL_SEEDS = (1, 2, 3)
RECALL_HOST = 8704          # host bytes of a held-out recall document (room for distances up to 8192)
RECALL_CODE_EVERY = 2       # of the held-out headers, every 2nd hosts recall documents
NEEDLES = 8                 # needles per window of the needle set
LONG_HOST = 32768           # host bytes of a long recall document (novel_set.py --family long)
# its hosts: held-out books, those shorter than a window joined in order (SEP between them); not
# Mark or Rev, whose first 8,192 bytes the plans of experiments/recall_*.cfg are calibrated on
LONG_BOOKS = (("Dan",), ("Est", "Eccl"), ("Lam", "Amos"), ("Ruth", "Gal", "Jas"))


def joined_books(heldout, groups=LONG_BOOKS):
    """[(domain, name, file, text)]: each group of held-out KJV books (heldout's, by abbreviation)
    joined by SEP, named "kjv:Est+Eccl", file "Est+Eccl.txt" """
    text = {n[len("kjv:"):]: t for dom, n, _, t in heldout if dom == "prose"}
    return [("prose", "kjv:" + "+".join(g), "+".join(g) + ".txt", SEP.join(text[b] for b in g)) for g in groups]


def recall_documents(heldout, values, out_dir, json_path, seeds=RECALL_SEEDS, style="record", hosts=None,
                     host_bytes=RECALL_HOST):
    """Held-out recall documents: for each seed, one window of host_bytes (the whole document
    where it is shorter) of every held-out prose book and of every RECALL_CODE_EVERY-th held-out
    header (or of each of hosts, a list like heldout's), at a start drawn from the seed, with
    recall material woven in (recall.weave, its defaults; values: the names, or
    recall.novel_value), records and passages as many per byte as in a window of RECALL_HOST
    (24 and 3 there).  style "needle": RULER-style needles (recall.needle_value) instead, NEEDLES
    per window and no passages, in the prose books alone (a haystack of prose).  Written under
    out_dir/s<seed>/ and listed, with every span, in json_path (files relative to its directory;
    written whole or not at all)."""
    import random
    code = [h for h in heldout if h[0] == "code"]
    if hosts is None:
        hosts = [h for h in heldout if h[0] == "prose"] + (code[::RECALL_CODE_EVERY] if style == "record" else [])
    n_records, n_passages = ((round(24 * host_bytes / RECALL_HOST), round(3 * host_bytes / RECALL_HOST))
                             if style == "record" else (NEEDLES, 0))
    base = os.path.dirname(os.path.abspath(json_path))
    docs = []
    for seed in seeds:
        rng = random.Random(seed)
        os.makedirs(os.path.join(out_dir, "s%d" % seed), exist_ok=True)
        for dom, name, fn, text in hosts:
            st = rng.randrange(len(text) - host_bytes + 1) if len(text) > host_bytes else 0
            host = text[st:st + host_bytes]
            wseed = rng.randrange(2**62)
            doc, spans = recall.weave(host, wseed, values, n_records=n_records, n_passages=n_passages, style=style)
            path = os.path.join(out_dir, "s%d" % seed, os.path.basename(fn))
            with open(path, "wb") as f:
                f.write(doc)
            docs.append({"seed": seed, "domain": dom, "host": name, "host_offset": st, "host_bytes": len(host),
                         "weave_seed": wseed, "file": os.path.relpath(path, base), "bytes": len(doc),
                         "sha256": sha256(doc), "spans": spans})
    generator = {"seeds": list(seeds), "host_bytes": host_bytes, "records": n_records, "passages": n_passages,
                 "dmin": 16, "dmax": 8192, "passage_cue": recall.PASSAGE_CUE}
    if style == "needle":
        generator["values"] = ("needles: recall.needle_value, %d-digit numbers; keys %d-%d random lowercase letters"
                               % ((recall.NEEDLE_DIGITS,) + recall.NEEDLE_KEY_LETTERS))
        what = ("RULER-style needles (%s... %s...) in the prose books"
                % ((recall.NEEDLE_DEF % b"KEY").decode(), (recall.NEEDLE_QUERY % b"KEY").decode()))
    elif callable(values):
        generator["values"] = ("novel: recall.novel_value, %d-%d characters drawn uniformly from %d letters and "
                               "digits" % (recall.NOVEL_LENGTHS + (len(recall.NOVEL_CHARS),)))
        what = "records (#NNNN = Ab3kQ9x; ... #NNNN ? Ab3kQ9x;) whose values are random strings no model has seen"
    else:
        generator.update(names=len(values), names_sha256=sha256(b"\n".join(values)))
        what = "records (#NNNN = Name; ... #NNNN ? Name;)"
    rj = {
        "about": "Held-out recall documents (tools/lm/corpus.py, tools/lm/recall.py): held-out text with %s "
                 "and repeated passages woven in. 'file' is relative to this "
                 "file's directory. A span: kind, key (records), first (where the answer's bytes first occur), "
                 "start (the answer's first byte), length, distance = start - first; byte offsets from 0." % what,
        "buckets": recall.BUCKETS,
        "generator": generator,
        "documents": docs,
    }
    tmp = json_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(rj, f, indent=1)
        f.write("\n")
    os.replace(tmp, json_path)
    recs = [s for d in docs for s in d["spans"] if s["kind"] in ("record", "needle")]
    per = [0] * len(recall.BUCKETS)
    for s_ in recs:
        b = recall.bucket_of(s_["distance"])
        if b is not None:
            per[b] += 1
    print("recall  %d docs, %d bytes, %d records per bucket %s, %d passages"
          % (len(docs), sum(d["bytes"] for d in docs), len(recs), per,
             sum(1 for d in docs for s_ in d["spans"] if s_["kind"] == "passage")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--heldout-json", default=os.path.join(REPO, "data", "lm", "heldout.json"))
    ap.add_argument("--recall-json", default=os.path.join(REPO, "data", "lm", "heldout_recall.json"))
    ap.add_argument("--recall-dir", default=os.path.join(REPO, "data", "lm", "heldout", "recall"))
    ap.add_argument("--overwrite-shipped", action="store_true",
                    help="allow the outputs to be shipped files (tracked by git under data/, as the defaults are)")
    args = ap.parse_args()
    from toolcheck import not_shipped
    for opt in ("heldout_json", "recall_json", "recall_dir"):
        not_shipped(getattr(args, opt), args.overwrite_shipped, "--" + opt.replace("_", "-"))

    sources = ["bible-kjv", "bible-kjv-text", "fortunes"] + CODE_PACKAGES
    missing = [p for p in sources if subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
                                                    text=True).stdout.split()[-1:] != ["installed"]]
    if missing:
        raise SystemExit("corpus.py: the corpus is read from Debian packages that are not installed: "
                         "apt-get install -y %s" % " ".join(missing))
    os.makedirs(os.path.join(args.out, "heldout", "prose"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "heldout", "code"), exist_ok=True)
    manifest = {"sources": {p: pkg_version(p) for p in sources},
                "documents": []}
    train = {"prose": [], "fortunes": [], "code": []}
    heldout = []

    books = bible_books()
    names = [b for b, _ in books]
    for hb in HELDOUT_BOOKS:
        if hb not in names:
            raise SystemExit("held-out book %s not found" % hb)
    for ab, text in books:
        if ab in HELDOUT_BOOKS:
            fn = os.path.join("heldout", "prose", ab + ".txt")
            heldout.append(("prose", "kjv:" + ab, fn, text))
        else:
            train["prose"].append(text)
            manifest["documents"].append({"domain": "prose", "split": "train", "name": "kjv:" + ab,
                                          "bytes": len(text), "sha256": sha256(text)})

    for name, text in fortune_files():
        train["fortunes"].append(text)
        manifest["documents"].append({"domain": "fortunes", "split": "train", "name": "fortunes:" + name,
                                      "bytes": len(text), "sha256": sha256(text)})

    headers = header_files()
    big = [i for i, (_, t) in enumerate(headers) if len(t) >= CODE_MIN_HELDOUT]
    held_idx = set(big[CODE_HOLDOUT_OFFSET::CODE_HOLDOUT_EVERY])
    for i, (rel, text) in enumerate(headers):
        if i in held_idx:
            fn = os.path.join("heldout", "code", rel.replace("/", "__") + ".txt")
            heldout.append(("code", "include:" + rel, fn, text))
        else:
            train["code"].append(text)
            manifest["documents"].append({"domain": "code", "split": "train", "name": "include:" + rel,
                                          "bytes": len(text), "sha256": sha256(text)})

    entries = []
    for dom, name, fn, text in heldout:
        with open(os.path.join(args.out, fn), "wb") as f:
            f.write(text)
        e = {"domain": dom, "name": name, "file": fn, "bytes": len(text), "sha256": sha256(text)}
        entries.append(e)
        manifest["documents"].append(dict(e, split="heldout"))
    for dom, docs in train.items():
        blob = SEP.join(docs)
        with open(os.path.join(args.out, "train_%s.bin" % dom), "wb") as f:
            f.write(blob)
        manifest["train_%s" % dom] = {"documents": len(docs), "bytes": len(blob), "sha256": sha256(blob)}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")

    hj = {
        "about": "Held-out documents of the byte-level LM corpus (tools/lm/corpus.py). Never trained on. "
                 "'file' is relative to the corpus build directory (tools/lm/corpus/).",
        "sources": manifest["sources"],
        "rule": {"prose": "whole KJV books " + ",".join(HELDOUT_BOOKS),
                 "code": "headers of %s >= %d bytes sorted by path, every %dth from index %d"
                         % ("+".join(CODE_PACKAGES), CODE_MIN_HELDOUT, CODE_HOLDOUT_EVERY, CODE_HOLDOUT_OFFSET)},
        "documents": entries,
    }
    os.makedirs(os.path.dirname(args.heldout_json), exist_ok=True)
    with open(args.heldout_json, "w") as f:
        json.dump(hj, f, indent=1)
        f.write("\n")
    recall_documents(heldout, recall.names(SEP.join(train["prose"])), args.recall_dir, args.recall_json)
    for dom in ("prose", "code"):
        d = [e for e in entries if e["domain"] == dom]
        print("heldout %-5s %3d docs, %8d bytes, min %d" % (dom, len(d), sum(e["bytes"] for e in d),
                                                             min(e["bytes"] for e in d)))
    for dom in train:
        print("train   %-8s %4d docs, %8d bytes" % (dom, manifest["train_" + dom]["documents"],
                                                   manifest["train_" + dom]["bytes"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
