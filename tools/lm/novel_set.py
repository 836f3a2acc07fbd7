#!/usr/bin/env python3
"""The held-out recall set with novel values: data/lm/heldout_recall_novel.json and its documents
under data/lm/heldout/recall_novel/, from the committed held-out texts alone (no corpus build).

The same documents as data/lm/heldout_recall.json's (corpus.recall_documents: every held-out prose
book and every 2nd held-out header, one window of 8,704 host bytes each, 24 records and 3 passages
woven in, distances log-uniform 16 B - 8 KiB), but from other seeds, and each record's value a
random string of 7-12 letters and digits (recall.novel_value, at least 41.7 bits) that no model
has seen: a model answers it only by copying what its state holds of the definition, not by
completing a name it has memorised (the named set's values come from one list of 1,164 names of
the training prose).

Checked before anything is written over: the held-out texts against data/lm/heldout.json's
sha256; after weaving, every value distinct, none a value of another held-out set (the named set's
names, the novel, long and needle sets' values, those there are), none a substring of any held-out text, and, where the corpus has been built (tools/lm/corpus/train_*.bin), none a
substring of the training text.

`--family long` writes the long set (data/lm/heldout_recall_long.json, documents under
data/lm/heldout/recall_long/): the novel set's records and values in windows of 32 KiB
(corpus.LONG_HOST) of held-out books joined (corpus.LONG_BOOKS: Dan; Est+Eccl; Lam+Amos;
Ruth+Gal+Jas), as many records and passages per byte as there (90 and 11 a window), so that they
are spread through the whole document at the same distances; the joined books themselves, without
records, are written beside them (prose/, listed under "prose" with sha256) for extra NLL on
prose over the same length. Checked as the novel set, and against the values of every other
held-out set there is (named, novel, needles).

`--family needles` writes the held-out needle family instead, RULER-style needles
(data/lm/heldout_needles.json, documents under data/lm/heldout/needles/): in a window of each
held-out prose book (the haystack), corpus.NEEDLES lines "One of the special magic numbers for
KEY is: 4790215." and later "What is the special magic number for KEY? It is: 4790215.", keys
random lowercase words, values random 7-digit numbers (recall.needle_value), at the records'
distances (log-uniform 16 B - 8 KiB). Checked: values distinct within a document, none in the
held-out texts or (where built) the training text.

Usage: python tools/lm/novel_set.py [--family novel|long|needles] [--seeds S,S,...]
       [--out-json J --out-dir D | --overwrite-shipped]
(the defaults are the shipped sets: written over only with --overwrite-shipped)
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402
import recall  # noqa: E402

DATA = os.path.join(corpus.REPO, "data", "lm")
# family: (default seeds, json under data/lm, documents under data/lm/heldout, weave style, values,
# hosts (None: corpus.recall_documents' own; "joined": corpus.joined_books), host bytes)
FAMILIES = {"novel": ("101,102,103", "heldout_recall_novel.json", "recall_novel", "record", recall.novel_value,
                      None, corpus.RECALL_HOST),
            "long": ("301,302,303", "heldout_recall_long.json", "recall_long", "record", recall.novel_value,
                     "joined", corpus.LONG_HOST),
            "needles": ("201,202,203,204,205,206", "heldout_needles.json", "needles", "needle", recall.needle_value,
                        None, corpus.RECALL_HOST)}


from toolcheck import die as fail, not_shipped  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", choices=sorted(FAMILIES), default="novel",
                    help="novel: the named set's records with novel values; long: the same in 32 KiB of joined books; "
                    "needles: RULER-style needles in prose")
    ap.add_argument("--seeds", default=None, help="document seeds, comma-separated (the named set: 1,2,3; default "
                    + "; ".join("%s %s" % (k, v[0]) for k, v in sorted(FAMILIES.items())) + ")")
    ap.add_argument("--out-json", default=None, help="default data/lm/heldout_recall_novel.json, heldout_recall_long.json, "
                    "heldout_needles.json")
    ap.add_argument("--out-dir", default=None, help="default data/lm/heldout/recall_novel, recall_long, needles")
    ap.add_argument("--overwrite-shipped", action="store_true",
                    help="allow the outputs to be shipped files (tracked by git under data/, as the defaults are)")
    args = ap.parse_args()
    seeds_default, json_name, dir_name, style, values_of, hosts_of, host_bytes = FAMILIES[args.family]
    args.seeds = args.seeds or seeds_default
    args.out_json = args.out_json or os.path.join(DATA, json_name)
    args.out_dir = args.out_dir or os.path.join(DATA, "heldout", dir_name)
    not_shipped(args.out_json, args.overwrite_shipped, "--out-json")
    not_shipped(args.out_dir, args.overwrite_shipped, "--out-dir")
    try:
        seeds = tuple(int(x) for x in args.seeds.split(","))
    except ValueError:
        fail("--seeds %r: whole numbers separated by commas" % args.seeds)
    named_json = os.path.join(DATA, "heldout_recall.json")
    # the other held-out sets, whose values a new set's must not repeat (those written so far)
    others = [named_json] + [os.path.join(DATA, v[1]) for k, v in sorted(FAMILIES.items()) if k != args.family]
    others = [p for p in others if os.path.exists(p)]
    if os.path.abspath(args.out_json) in [os.path.abspath(p) for p in others] + [os.path.join(DATA, "heldout.json")]:
        fail("--out-json %s is an input" % args.out_json)
    if {1, 2, 3} & set(seeds):
        fail("--seeds %s: 1, 2 and 3 are the named set's; take others" % args.seeds)

    with open(os.path.join(DATA, "heldout.json")) as f:
        hj = json.load(f)
    heldout = []
    for d in hj["documents"]:
        path = os.path.join(DATA, d["file"])
        with open(path, "rb") as f:
            text = f.read()
        if corpus.sha256(text) != d["sha256"]:
            fail("%s: its sha256 differs from data/lm/heldout.json's" % path)
        heldout.append((d["domain"], d["name"], d["file"], text))
    seen = set()
    for p in others:
        with open(p) as f:
            seen |= {s["value"] for d in json.load(f)["documents"] for s in d["spans"] if s["kind"] in ("record", "needle")}
    hosts = corpus.joined_books(heldout) if hosts_of == "joined" else None

    # woven into a scratch directory, checked, then moved into place
    tmp_dir, tmp_json = args.out_dir + ".tmp", args.out_json + ".part"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    corpus.recall_documents(heldout, values_of, tmp_dir, tmp_json, seeds=seeds, style=style, hosts=hosts,
                            host_bytes=host_bytes)
    with open(tmp_json) as f:
        rj = json.load(f)
    # the joined books without records, prose of the same length (listed like the documents)
    rj_base = os.path.dirname(os.path.abspath(tmp_json))
    for _, name, fn, text in hosts or []:
        os.makedirs(os.path.join(tmp_dir, "prose"), exist_ok=True)
        path = os.path.join(tmp_dir, "prose", fn)
        with open(path, "wb") as f:
            f.write(text)
        rj.setdefault("prose", []).append({"host": name, "file": os.path.relpath(path, rj_base), "bytes": len(text),
                                           "sha256": corpus.sha256(text)})
    kind = "needle" if style == "needle" else "record"
    values = [s["value"] for d in rj["documents"] for s in d["spans"] if s["kind"] == kind]
    against = [t for _, _, _, t in heldout]
    train = [os.path.join(corpus.HERE, "corpus", "train_%s.bin" % dom) for dom in ("prose", "fortunes", "code")]
    train = [p for p in train if os.path.exists(p)]
    for p in train:
        with open(p, "rb") as f:
            against.append(f.read())
    bad = [v for v in values if v in seen or any(v.encode() in t for t in against)]
    # the novel records: distinct over the whole set; needles: within each document (read alone)
    groups = [values] if kind == "record" else [[s["value"] for s in d["spans"]] for d in rj["documents"]]
    repeated = sum(len(g) - len(set(g)) for g in groups)
    if repeated or bad:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        os.remove(tmp_json)
        fail("values not novel: %d repeated, %s seen before" % (repeated, bad[:5]))
    # the documents name their files relative to the json's directory: point them at out_dir
    rel_tmp = os.path.relpath(tmp_dir, os.path.dirname(os.path.abspath(args.out_json)))
    rel_out = os.path.relpath(args.out_dir, os.path.dirname(os.path.abspath(args.out_json)))
    for d in rj["documents"] + rj.get("prose", []):
        d["file"] = rel_out + d["file"][len(rel_tmp):]
    rj["generator"]["checked"] = ("values distinct%s, none a value of %s, none in the held-out "
                                  "texts%s" % ("" if kind == "record" else " within each document",
                                               ", ".join("data/lm/" + os.path.basename(p) for p in others),
                                               ", none in " + ", ".join(os.path.basename(p) for p in train)
                                               if train else "; the training text was not built, not checked"))
    with open(tmp_json, "w") as f:
        json.dump(rj, f, indent=1)
        f.write("\n")
    shutil.rmtree(args.out_dir, ignore_errors=True)
    os.replace(tmp_dir, args.out_dir)
    os.replace(tmp_json, args.out_json)
    n = [0] * len(recall.BUCKETS)
    for d in rj["documents"]:
        for s in d["spans"]:
            b = recall.bucket_of(s["distance"]) if s["kind"] == kind else None
            if b is not None:
                n[b] += 1
    print("novel_set: %d documents, %d values (%s per bucket), values %d-%d bytes; %s"
          % (len(rj["documents"]), len(values), n, min(map(len, values)), max(map(len, values)), args.out_json))


if __name__ == "__main__":
    main()
