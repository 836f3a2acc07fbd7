#!/usr/bin/env python3
"""What stepq.hf costs (issues 32 and 68): tokens per second of eval and of tasks with each
format against the model's own decode loop, on the same device and dtype, at several batches, in
one run, medians of --repeats. A benchmark, not a test.

Per model, batch B and format F, three decode loops of N tokens after a native prefill of P
(only the decode steps are timed, from the first token to the last, the logits of each token
back on the host as every stepq.hf loop has them):
  native  the model's own decode loop (the adapters' hooks with no format);
  tasks   one stream with every delta-rule layer's state held in F: what `tasks` runs per request
          (a batch of B: B requests side by side, as `tasks --batch-size B` runs requests of one context length);
  eval    `eval`'s loop (stepq.hf.eval.evaluate): the native stream and F's in lockstep, the
          log-softmaxes, NLL, KL and top-1 of each step; tokens per second counts each document's
          decode steps once.
The columns: tokens per second of each (B N over the time), and tasks' and eval's time per token
against native's ("x native"). STEPQ_HF_SESSION (--session) says who holds the states: cpu, the
CPU session fed each step (the host round trip), or device, the device session in the model's
memory (its host backend on a CPU); unset, the adapters' choice (device on a GPU libstepq's device
session has a backend for). --capture adds capture's tokens per second (batch 1). Models: data/lm/gdn-recall (fla's GDN, 16 heads of 128 x 128) and a
tiny random Qwen3.5 (tests/python/tiny_models.py, 2 delta-rule layers x 2 heads of 128 x 128).

    PYTHONPATH=python python tools/bench_hf.py                     (from a clone, the tests' environment)
    PYTHONPATH=python python tools/bench_hf.py --device cuda --batches 1,8,32 --out bench_hf.tsv
"""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))


def args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N (default cpu)")
    p.add_argument("--dtype", default=None, help="float32, bfloat16 or float16 (default: the checkpoint's)")
    p.add_argument("--formats", default="int8,int4", help="comma-separated (default int8,int4)")
    p.add_argument("--batches", default="1,8,32", help="comma-separated batches (default 1,8,32)")
    p.add_argument("--prefill", type=int, default=64, help="native prefill tokens (default 64)")
    p.add_argument("--decode", type=int, default=32, help="decode tokens timed (default 32)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each, their median reported (default 3)")
    p.add_argument("--session", choices=["cpu", "device"], default=None, help="STEPQ_HF_SESSION for the run")
    p.add_argument("--models", default="gdn-recall,qwen3_5",
                   help="gdn-recall, qwen3_5 or a model directory, comma-separated (default gdn-recall,qwen3_5)")
    p.add_argument("--threads", type=int, default=1, help="torch threads on a CPU (default 1)")
    p.add_argument("--capture", action="store_true", help="also time capture (tokens per second, batch 1)")
    p.add_argument("--out", default=None, help="also write the table here (tab-separated)")
    a = p.parse_args()
    for name in ("prefill", "decode", "repeats", "threads"):
        if getattr(a, name) < 1:
            p.error("--%s must be at least 1" % name)
    try:
        a.batches = [int(b) for b in a.batches.split(",")]
    except ValueError:
        p.error("--batches takes integers: %s" % a.batches)
    if min(a.batches) < 1:
        p.error("--batches must be at least 1")
    a.formats = [f for f in a.formats.split(",") if f]
    a.models = [m for m in a.models.split(",") if m]
    for m in a.models:
        if m not in ("gdn-recall", "qwen3_5") and not os.path.isdir(m):
            p.error("--models: %s is neither gdn-recall, qwen3_5 nor a model directory" % m)
    return a


def synchronize(torch, device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def decode_loop(torch, model, fmt, ids, P, N, device):
    """(seconds of N decode steps after a native prefill of P with every layer's state in fmt
    (None: native), who held the states)"""
    from stepq.hf import forward
    from stepq.hf.eval import Evaluator, _State
    ev = Evaluator(model)
    ev.target = None if fmt is None else _State(ev, fmt)
    try:
        with torch.no_grad():
            _, cache = forward(model, ids[:, :P])
            synchronize(torch, device)
            t0 = time.perf_counter()
            for t in range(N):
                _, cache = forward(model, ids[:, P + t:P + t + 1], cache)
            synchronize(torch, device)
            return time.perf_counter() - t0, ",".join(sorted(ev.paths))
    finally:
        if ev.target is not None:
            ev.target.close()
        ev.close()


def eval_loop(torch, model, ids, fmt, P, N, device):
    """seconds of eval's N decode steps (its prefill excluded: from its first step's end to its
    last's, scaled to N steps)"""
    from stepq.hf.eval import evaluate
    ticks = []
    evaluate(model, ids[:, :P + N + 1], [fmt], P, N, progress=lambda t: ticks.append(time.perf_counter()))
    synchronize(torch, device)
    return (ticks[-1] - ticks[0]) * N / max(N - 1, 1)


def capture_rate(torch, model, ids, P, device):
    """tokens per second of capture's stream (a trace of every layer written as the model runs)"""
    import tempfile
    from stepq.hf.capture import Capture
    from stepq.hf.cli import run_stream
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        with Capture(model, os.path.join(d, "bench.h5")):
            run_stream(model, ids, P)
        synchronize(torch, device)
        return ids.shape[1] / (time.perf_counter() - t0)


def bench(torch, name, model, text, a, rows):
    P, N, R = a.prefill, a.decode, a.repeats
    if a.capture:
        ids = torch.tensor([list(text[:P + N])])
        print("%-10s capture %.0f tokens/s" % (name, statistics.median(capture_rate(torch, model, ids, P, a.device)
                                                                      for _ in range(R))), flush=True)
    for B in a.batches:
        ids = torch.tensor([list(text[i * 7:i * 7 + P + N + 1]) for i in range(B)])  # B windows of the book
        nat = statistics.median(decode_loop(torch, model, None, ids, P, N, a.device)[0] for _ in range(R))
        for f in a.formats:
            runs = [decode_loop(torch, model, f, ids, P, N, a.device) for _ in range(R)]
            tk = statistics.median(t for t, _ in runs)
            el = statistics.median(eval_loop(torch, model, ids, f, P, N, a.device) for _ in range(R))
            rows.append((name, B, f, runs[0][1], B * N / nat, B * N / tk, tk / nat, B * N / el, el / nat))
            print("%-10s batch %2d %-5s (%s): native %8.1f tok/s; tasks %8.1f tok/s, %.2fx native; eval %8.1f "
                  "tok/s, %.2fx native" % rows[-1], flush=True)


def main():
    a = args()
    if a.session:
        os.environ["STEPQ_HF_SESSION"] = a.session
    import torch
    torch.set_num_threads(a.threads)
    from stepq.hf.cli import check_device, load_model
    check_device(a.device)
    text = open(os.path.join(ROOT, "data", "lm", "heldout", "prose", "Ruth.txt"), "rb").read()
    need = 7 * (max(a.batches) - 1) + a.prefill + a.decode + 1
    if len(text) < need:
        sys.exit("bench_hf: Ruth.txt holds %d bytes; --batches, --prefill and --decode need %d" % (len(text), need))
    print("bench_hf: device %s, dtype %s, prefill %d, decode %d, medians of %d, torch %s, %d thread(s), "
          "STEPQ_HF_SESSION=%s" % (a.device, a.dtype or "the checkpoint's", a.prefill, a.decode, a.repeats,
                                   torch.__version__, a.threads, os.environ.get("STEPQ_HF_SESSION", "(unset)")))
    rows = []
    for m in a.models:
        if m == "qwen3_5":
            from tiny_models import qwen3_5
            model = qwen3_5().to(device=a.device, dtype=getattr(torch, a.dtype) if a.dtype else None)
        else:
            model, _ = load_model(os.path.join(ROOT, "data", "lm", m) if m == "gdn-recall" else m, a.dtype, a.device)
        bench(torch, m, model, text, a, rows)
    if a.out:
        with open(a.out, "w") as t:
            t.write("# model\tbatch\tformat\tsessions\tnative_tok_s\ttasks_tok_s\ttasks_x_native\teval_tok_s\t"
                    "eval_x_native\n")
            for r in rows:
                t.write("%s\t%d\t%s\t%s\t%.6g\t%.6g\t%.4g\t%.6g\t%.4g\n" % r)
        print("wrote %s" % a.out)


if __name__ == "__main__":
    main()
