#!/usr/bin/env python3
"""How much a document's result in `python -m stepq.hf eval` depends on the documents that share
its batch (issue 65, class 8; method 7.4).

eval runs documents of the same decode length as one batch. This evaluates the texts as eval does
(stepq.hf.eval.evaluate_documents: all together, grouped by decode length), again in the reverse
order, and each text alone (a batch of one), and prints per document and format the extra NLL over
its window (nats per token) each way, the largest difference of a document's window mean and of
a single decode step, and the native NLL's largest difference per step.

Usage: python tools/eval_batch_effect.py --model DIR --text A [B ...] [--formats int8,int4]
       [--prefill 256] [--decode 256] [--dtype float32] [--threads 1]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lm"))
from toolcheck import at_least, die, readable_file  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--text", nargs="+", required=True)
    ap.add_argument("--formats", default="int8,int4")
    ap.add_argument("--prefill", type=int, default=256)
    ap.add_argument("--decode", type=int, default=256)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    at_least(a, 1, "prefill", "decode", "threads")
    for t in a.text:
        readable_file(t, "--text")
    if len(a.text) < 2:
        die("--text: give two or more documents (one has no batch-mates)")
    readable_file(os.path.join(a.model, "config.json"), "--model")
    import torch
    from stepq import StepqError
    from stepq.hf import AdapterError
    from stepq.hf.cli import load_model
    from stepq.hf.eval import _documents, evaluate_documents
    torch.set_num_threads(a.threads)
    fmts = a.formats.split(",")
    try:
        model, tok = load_model(a.model, a.dtype)
        docs = _documents(tok, a.text, a.prefill, a.decode)
        together = evaluate_documents(model, docs, fmts, a.prefill, a.decode)
        rev = evaluate_documents(model, docs[::-1], fmts, a.prefill, a.decode)
        alone = [evaluate_documents(model, [d], fmts, a.prefill, a.decode) for d in docs]
    except (AdapterError, StepqError) as e:
        die(str(e))
    steps = together["decode_steps"]
    print("%s (%s), prefill %d, decode %d; documents' decode steps %s (eval batches the documents of equal steps)"
          % (a.model, a.dtype, a.prefill, a.decode, " ".join(map(str, steps))))
    order = np.abs(rev["extra"][::-1] - together["extra"])
    print("reverse order against the given order: extra NLL per step, largest |difference| %.3g"
          % np.nanmax(order))
    nat = max(np.nanmax(np.abs(x["nll_native"][0] - together["nll_native"][i])) for i, x in enumerate(alone))
    print("native NLL per step, alone against together: largest |difference| %.3g nats" % nat)
    for f, name in enumerate(fmts):
        w_al = np.array([np.nanmean(x["extra"][0, f]) for x in alone])
        w_to = np.nanmean(together["extra"][:, f], -1)
        step = max(np.nanmax(np.abs(x["extra"][0, f] - together["extra"][i, f])) for i, x in enumerate(alone))
        print("%-10s window extra NLL per document, alone | together: %s" % (
            name, "  ".join("%.5f | %.5f" % (x, y) for x, y in zip(w_al, w_to))))
        print("%-10s mean over documents alone %.5f, together %.5f; a document's window: largest |difference| "
              "%.2e (%.1f%% of it), median %.2e; one step: largest |difference| %.2e"
              % (name, w_al.mean(), w_to.mean(), np.abs(w_al - w_to).max(),
                 100 * (np.abs(w_al - w_to) / np.maximum(np.abs(w_al), 1e-12)).max(),
                 np.median(np.abs(w_al - w_to)), step))


if __name__ == "__main__":
    main()
