#!/usr/bin/env python3
"""CPU seconds per training step of a model as train.py steps it (forward, backward, AdamW) on
one window of random bytes, and the process's peak resident memory. Used to measure what a
change to the trainer costs or saves (docs/training-log.md, "Speed"); run the variants one after
the other on the same machine and compare the steps after the first.

Usage: python tools/lm/step_time.py MODEL_DIR [--seq 4096] [--steps 5] [--threads 1]
       [--return-memory]
"""
import argparse
import os
import resource
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from train import _malloc_returns_memory  # noqa: E402
from toolcheck import at_least, load_model  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="a model directory (config.json, model.safetensors)")
    ap.add_argument("--seq", type=int, default=4096, help="window length in bytes")
    ap.add_argument("--steps", type=int, default=5, help="training steps to time")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--return-memory", action="store_true", help="as train.py --return-memory")
    args = ap.parse_args()
    at_least(args, 1, "seq", "steps", "threads")
    model = load_model(args.model)  # refused here, before any work, when missing or cut short
    if args.return_memory:
        _malloc_returns_memory()
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randint(0, 256, (1, args.seq + 1), generator=torch.Generator().manual_seed(0))
    times = []
    for _ in range(args.steps):
        c = time.process_time()
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        times.append(time.process_time() - c)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print("%s, %d-byte window, %d thread(s)%s: CPU seconds per step %s; peak resident %.2f GB"
          % (args.model, args.seq, args.threads, ", --return-memory" if args.return_memory else "",
             " ".join("%.2f" % t for t in times), peak))


if __name__ == "__main__":
    main()
