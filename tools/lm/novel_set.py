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
sha256; after weaving, every value distinct, none a name of the named set, none a substring of any
held-out text, and, where the corpus has been built (tools/lm/corpus/train_*.bin), none a
substring of the training text.

Usage: python tools/lm/novel_set.py [--seeds 101,102,103] [--out-json J --out-dir D | --overwrite-shipped]
(the defaults are the shipped set: written over only with --overwrite-shipped)
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


from toolcheck import die as fail, not_shipped  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="101,102,103", help="document seeds, comma-separated (the named set: 1,2,3)")
    ap.add_argument("--out-json", default=os.path.join(DATA, "heldout_recall_novel.json"))
    ap.add_argument("--out-dir", default=os.path.join(DATA, "heldout", "recall_novel"))
    ap.add_argument("--overwrite-shipped", action="store_true",
                    help="allow the outputs to be shipped files (tracked by git under data/, as the defaults are)")
    args = ap.parse_args()
    not_shipped(args.out_json, args.overwrite_shipped, "--out-json")
    not_shipped(args.out_dir, args.overwrite_shipped, "--out-dir")
    try:
        seeds = tuple(int(x) for x in args.seeds.split(","))
    except ValueError:
        fail("--seeds %r: whole numbers separated by commas" % args.seeds)
    named_json = os.path.join(DATA, "heldout_recall.json")
    if os.path.abspath(args.out_json) in (os.path.abspath(named_json), os.path.join(DATA, "heldout.json")):
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
    with open(named_json) as f:
        names = {s["value"] for d in json.load(f)["documents"] for s in d["spans"] if s["kind"] == "record"}

    # woven into a scratch directory, checked, then moved into place
    tmp_dir, tmp_json = args.out_dir + ".tmp", args.out_json + ".part"
    shutil.rmtree(tmp_dir, ignore_errors=True)
    corpus.recall_documents(heldout, recall.novel_value, tmp_dir, tmp_json, seeds=seeds)
    with open(tmp_json) as f:
        rj = json.load(f)
    values = [s["value"] for d in rj["documents"] for s in d["spans"] if s["kind"] == "record"]
    against = [t for _, _, _, t in heldout]
    train = [os.path.join(corpus.HERE, "corpus", "train_%s.bin" % dom) for dom in ("prose", "fortunes", "code")]
    train = [p for p in train if os.path.exists(p)]
    for p in train:
        with open(p, "rb") as f:
            against.append(f.read())
    bad = [v for v in values if v in names or any(v.encode() in t for t in against)]
    if len(set(values)) != len(values) or bad:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        os.remove(tmp_json)
        fail("values not novel: %d repeated, %s seen before" % (len(values) - len(set(values)), bad[:5]))
    # the documents name their files relative to the json's directory: point them at out_dir
    rel_tmp = os.path.relpath(tmp_dir, os.path.dirname(os.path.abspath(args.out_json)))
    rel_out = os.path.relpath(args.out_dir, os.path.dirname(os.path.abspath(args.out_json)))
    for d in rj["documents"]:
        d["file"] = rel_out + d["file"][len(rel_tmp):]
    rj["generator"]["checked"] = ("values distinct, none a name of data/lm/heldout_recall.json, none in the held-out "
                                  "texts%s" % (", none in " + ", ".join(os.path.basename(p) for p in train)
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
            b = recall.bucket_of(s["distance"]) if s["kind"] == "record" else None
            if b is not None:
                n[b] += 1
    print("novel_set: %d documents, %d records (%s per bucket), values %d-%d bytes; %s"
          % (len(rj["documents"]), len(values), n, min(map(len, values)), max(map(len, values)), args.out_json))


if __name__ == "__main__":
    main()
