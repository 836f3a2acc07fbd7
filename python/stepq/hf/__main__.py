"""python -m stepq.hf: stepq on a user's Hugging Face model (method 7.4).

    python -m stepq.hf capture --model DIR --text FILE [FILE...] --out DIR [--max-tokens N]
                               [--prefill P] [--layers L,L,...]
    python -m stepq.hf eval    --model DIR --text FILE [FILE...] --formats F,F,... --out OUT.h5
                               [--plan PLAN.h5] [--prefill P] [--decode N] [--bin B] [--layers ...]

capture writes one trace per text (DIR/<name>.h5) of what enters each delta-rule layer's
recurrence: every C driver and `stepq calibrate` read it. eval keeps every layer's state in
each format between tokens (method 2, run by libstepq) and measures extra NLL, KL divergence and
top-1 agreement against the native model, and each layer and head's read-out and state error.
A model directory without a tokenizer is read as bytes (its vocabulary must hold 256).
"""
import argparse
import os
import sys
import time


def fail(msg):
    print("stepq.hf: error: %s" % msg, file=sys.stderr)
    sys.exit(2)


def int_list(s):
    out = []
    for part in s.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-", 1)
            out += list(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def load_model(path):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    from . import check_transformers
    check_transformers()
    if not os.path.isfile(os.path.join(path, "config.json")):
        fail("%s: no config.json: --model takes a model directory (save_pretrained's)" % path)
    import json
    mt = json.load(open(os.path.join(path, "config.json"))).get("model_type")
    from . import ADAPTERS, SUPPORTED_FLA
    if mt in ADAPTERS and ADAPTERS[mt].family == "fla":
        try:
            import fla  # registers fla's models with transformers' Auto classes
        except ImportError:
            fail("%s is fla's %s: pip install flash-linear-attention==%s" % (path, mt, SUPPORTED_FLA[-1]))
        if fla.__version__ not in SUPPORTED_FLA:
            fail("stepq.hf supports flash-linear-attention %s; this is %s" % (", ".join(SUPPORTED_FLA), fla.__version__))
    AutoConfig.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    tok = None
    for f in ("tokenizer.json", "tokenizer_config.json", "tokenizer.model"):
        if os.path.exists(os.path.join(path, f)):
            from transformers import AutoTokenizer
            tok = AutoTokenizer.from_pretrained(path)
            break
    if tok is None and model.config.vocab_size < 256:
        fail("%s has no tokenizer and a vocabulary of %d: it cannot be read as bytes" % (path, model.config.vocab_size))
    return model, tok


def tokens(tok, path, limit=None):
    import torch
    try:
        data = open(path, "rb").read()
    except OSError as e:
        fail("--text %s: %s" % (path, e.strerror))
    ids = list(data) if tok is None else tok(data.decode("utf-8", errors="replace"))["input_ids"]
    if limit:
        ids = ids[:limit]
    return torch.tensor([ids], dtype=torch.long)


class Progress:
    """one line on stderr every few seconds: done/total, rate, time left"""

    def __init__(self, label, total, unit):
        self.label, self.total, self.unit, self.t0, self.last = label, total, unit, time.time(), 0.0

    def tick(self, done):
        now = time.time()
        if now - self.last < 5 and done < self.total:
            return
        self.last = now
        rate = done / max(now - self.t0, 1e-9)
        left = (self.total - done) / rate if rate > 0 else float("nan")
        print("%s: %d/%d %s, %.1f %s/s, %.0f s elapsed, %.0f s left" %
              (self.label, done, self.total, self.unit, rate, self.unit, now - self.t0, left), file=sys.stderr)


def run_stream(model, ids, prefill, on_step=None):
    """the model over ids [1, T]: the first prefill tokens in one forward, then one token a call
    (the decode path), as a server runs a request; on_step(t, logits) after each call"""
    import torch
    from . import forward
    T = ids.shape[1]
    P = min(max(prefill, 1), T)
    with torch.no_grad():
        logits, cache = forward(model, ids[:, :P])
        if on_step:
            on_step(P, logits)
        for t in range(P, T):
            logits, cache = forward(model, ids[:, t:t + 1], cache)
            if on_step:
                on_step(t + 1, logits)


def cmd_capture(a):
    import transformers
    import torch
    from .capture import Capture
    model, tok = load_model(a.model)
    os.makedirs(a.out, exist_ok=True)
    for text in a.text:
        ids = tokens(tok, text, a.max_tokens)
        T = ids.shape[1]
        if T < 2:
            fail("--text %s: %d tokens; a capture needs at least 2" % (text, T))
        out = os.path.join(a.out, os.path.splitext(os.path.basename(text))[0] + ".h5")
        attrs = {"tokenizer": "bytes" if tok is None else type(tok).__name__ + " " + str(tok.name_or_path),
                 "text": os.path.abspath(text), "transformers_version": transformers.__version__,
                 "torch_version": torch.__version__, "command": " ".join(sys.argv)}
        prefill = a.prefill if a.prefill is not None else T
        prog = Progress("capture %s" % os.path.basename(text), T, "tokens")
        t0 = time.time()
        with Capture(model, out, a.layers, attrs) as c:
            run_stream(model, ids, prefill, lambda t, _: prog.tick(t))
        dt = time.time() - t0
        print("wrote %s: %d steps of %d layers x %d value heads (%s), %.1f tokens/s" %
              (out, c.steps, len(c.layers), c.HV, c.spec.kind, T / dt))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m stepq.hf", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("capture", help="record what enters each delta-rule layer into stepq trace files")
    c.add_argument("--model", required=True, help="a model directory (save_pretrained's)")
    c.add_argument("--text", required=True, nargs="+", help="text files, one trace each")
    c.add_argument("--out", required=True, help="the directory the traces go to")
    c.add_argument("--max-tokens", type=int, default=None, help="read at most N tokens of each text")
    c.add_argument("--prefill", type=int, default=None,
                   help="tokens of the first forward (default: all at once); then one token per call")
    c.add_argument("--layers", type=int_list, default=None, help="layer indices, e.g. 0,2,4-6 (default: every delta-rule layer)")
    e = sub.add_parser("eval", help="the model with its states in stepq formats: extra NLL, KL, top-1, errors")
    e.add_argument("--model", required=True)
    e.add_argument("--text", required=True, nargs="+", help="documents, one row of the batch each")
    e.add_argument("--formats", required=True, type=lambda s: [x for x in s.split(",") if x])
    e.add_argument("--plan", default=None)
    e.add_argument("--out", required=True, help="the output OUT.h5")
    e.add_argument("--prefill", type=int, default=512)
    e.add_argument("--decode", type=int, default=512)
    e.add_argument("--bin", type=int, default=64)
    e.add_argument("--layers", type=int_list, default=None)
    e.add_argument("--generate", type=int, default=0, help="also N greedy tokens per format and document")
    e.add_argument("--plot", default=None, metavar="SCRIPT",
                   help="draw OUT.png from the table with this gnuplot script (the clone's plots/nll.gp)")
    a = p.parse_args(argv)
    from . import AdapterError
    try:
        if a.command == "capture":
            cmd_capture(a)
        else:
            from .eval import cmd_eval
            cmd_eval(a)
    except AdapterError as err:
        fail(str(err))
    except Exception as err:  # a libstepq refusal carries its own message
        from .. import StepqError
        if isinstance(err, StepqError):
            fail(str(err))
        raise


if __name__ == "__main__":
    main()
