#!/usr/bin/env python3
"""How large a model's recurrent state grows as it reads on: the native float32 model (model.py,
the trainer's reference) reads held-out recall documents from a zero state, and after each
checkpoint position prints, per layer, the largest Frobenius norm over its heads' [K, V] states,
mean over the documents. Used to ask whether a model's state leaves the range its training
windows showed it (paper_repro.md, "Models that remember").

Usage: python tools/lm/state_norms.py MODEL_DIR [--json data/lm/heldout_recall.json] [--docs 6]
       [--positions 256,512,1024,2048,4096,8192] [--threads 1]
"""
import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from toolcheck import at_least, die, load_model, recall_documents  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="model directory (config.json, model.safetensors)")
    ap.add_argument("--json", default=os.path.join(REPO, "data", "lm", "heldout_recall.json"), help="the recall set")
    ap.add_argument("--docs", type=int, default=6, help="the set's first N documents")
    ap.add_argument("--positions", default="256,512,1024,2048,4096,8192", help="bytes read, ascending")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    try:
        pos = [int(x) for x in a.positions.split(",")]
        if not pos or pos != sorted(set(pos)) or pos[0] < 1:
            raise ValueError
    except ValueError:
        die(f"--positions {a.positions!r}: ascending positive integers, comma-separated")
    at_least(a, 1, "docs", "threads")
    _, docs = recall_documents(a.json, a.docs)
    base = os.path.dirname(os.path.abspath(a.json))
    model = load_model(a.model)
    torch.set_num_threads(a.threads)
    model.eval()
    L = len(model.model.layers)
    sums = [[0.0] * L for _ in pos]
    counts = [0] * len(pos)
    for d in docs:
        b = open(os.path.join(base, d["file"]), "rb").read()
        t = torch.tensor(list(b), dtype=torch.long).unsqueeze(0)
        cache = [dict() for _ in range(L)]
        at = 0
        with torch.no_grad():
            for i, p in enumerate(pos):
                if p > len(b):
                    break
                model(t[:, at:p], cache=cache)
                at = p
                for l, c in enumerate(cache):
                    sums[i][l] += float(c["S"].flatten(2).norm(dim=-1).max())
                counts[i] += 1
    print(f"{a.model}: largest state norm over heads per layer, mean over documents (of {len(docs)})")
    print("bytes read  documents  " + "  ".join(f"layer {l}" for l in range(L)))
    for i, p in enumerate(pos):
        if counts[i]:
            print(f"{p:10d}  {counts[i]:9d}  " + "  ".join(f"{sums[i][l] / counts[i]:7.2f}" for l in range(L)))


if __name__ == "__main__":
    main()
