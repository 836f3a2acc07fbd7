#!/usr/bin/env python3
"""What stepq.hf costs (issue 32 item 7): eval's time per token and stream against the model's own
decode loop on the same device and dtype, and capture's tokens per second, measured side by side
in one run, medians of 3, one torch thread; wall and process CPU time. A benchmark, not a test.

    PYTHONPATH=python python tools/bench_hf.py        (from a clone, in the tests' environment)
"""
import os
import statistics
import sys
import tempfile
import time

import torch
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
torch.set_num_threads(1)
from stepq.hf.cli import load_model, run_stream
from stepq.hf.eval import evaluate
from stepq.hf.capture import Capture

def clock(fn):
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c

def measure(name, model, ids, P, N):
    rows = []
    for rep in range(3):
        nat = clock(lambda: _native(model, ids[:, :P + N], P))
        ev = clock(lambda: evaluate(model, ids[:, :P + N + 1], ["int8"], P, N))
        cap = clock(lambda: _cap(model, ids[:, :P + N], P))
        rows.append((nat, ev, cap))
    med = lambda k, j: statistics.median(r[k][j] for r in rows)
    nat_w, nat_c = med(0, 0) / N * 1e3, med(0, 1) / N * 1e3
    ev_w, ev_c = med(1, 0) / (N * 2) * 1e3, med(1, 1) / (N * 2) * 1e3
    cap_w = (P + N) / med(2, 0)
    print("%s: native decode %.2f ms/token (cpu %.2f); eval, int8 beside native: %.2f ms per token and stream (cpu %.2f), "
          "%.2fx native; capture %.0f tokens/s" % (name, nat_w, nat_c, ev_w, ev_c, ev_w / nat_w, cap_w), flush=True)

def _native(model, ids, P):
    """the model's own decode loop, through the adapters' hooks with no format (on a CPU they route
    its kernels to torch: fla's stand-ins, transformers' own torch functions), as eval's native
    stream runs"""
    from stepq.hf.eval import Evaluator
    ev = Evaluator(model)
    try:
        run_stream(model, ids, P)
    finally:
        ev.close()


def _cap(model, ids, P):
    with Capture(model, os.path.join(tempfile.gettempdir(), "stepq_bench_hf_%d.h5" % os.getpid())):
        run_stream(model, ids, P)

gdn, _ = load_model(os.path.join(ROOT, "data", "lm", "gdn"))
ids = torch.tensor([list(open(os.path.join(ROOT, "data", "lm", "heldout", "prose", "Ruth.txt"), "rb").read()[:600])])
measure("data/lm/gdn (fp32, 16 heads of 128 x 128)", gdn, ids, 256, 128)
from tiny_models import qwen3_5
q = qwen3_5()
measure("tiny Qwen3.5 (fp32, 2 delta-rule layers x 2 heads of 128 x 128)", q, ids, 256, 128)
