"""python -m stepq.hf: stepq on a user's Hugging Face model (method 7.4).

    python -m stepq.hf capture --model DIR --text FILE [FILE...] --out DIR [--max-tokens N]
                               [--prefill P] [--layers L,L,...]
    python -m stepq.hf eval    --model DIR --text FILE [FILE...] --formats F,F,... --out OUT.h5
                               [--plan PLAN.h5] [--prefill P] [--decode N] [--bin B] [--layers ...]
    python -m stepq.hf tasks   --model DIR --format F --tasks T[,T...] [--plan PLAN.h5] [--limit N]
                               [--num-fewshot K] [--output OUT.json] [--log-samples]

    python -m stepq.hf calibrate --trace A.h5 [B.h5 ...] --out PLAN.h5 [--steps N] [--horizon H] ...

capture writes one trace per text (DIR/<name>.h5) of what enters each delta-rule layer's
recurrence: every C driver and `stepq calibrate` read it. calibrate makes a plan of the traces
for the calibrated formats (method 4.1, 4.3), libstepq's calibration: the plan `stepq calibrate
--trace` writes with the same settings. eval keeps every layer's state in
each format between tokens (method 2, run by libstepq) and measures extra NLL, KL divergence and
top-1 agreement against the native model, and each layer and head's read-out and state error.
tasks runs lm-evaluation-harness tasks (accuracy, exact match, perplexity) on the model with its
states held in one format between tokens (native: the model untouched).
A model directory without a tokenizer is read as bytes (its vocabulary must hold 256).

Every option and input is checked before any work, and every output is written beside itself
and renamed into place, never over an input; a refusal is one line, `stepq.hf: error: ...`,
with exit status 2.
"""
import argparse
import sys

from . import AdapterError
from .cli import CALIBRATE_SETTINGS, DTYPES, int_list


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's one-line refusal"""

    def error(self, message):
        raise AdapterError("%s (see %s --help)" % (message, self.prog))


def _int_at_least(lo, what=""):
    def parse(s):
        try:
            v = int(s, 10)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a whole number" % s) from None
        if v < lo:
            raise argparse.ArgumentTypeError("%d is below %d%s" % (v, lo, what))
        return v
    return parse


def name_list(s):
    out = [x.strip() for x in s.split(",") if x.strip()]
    if not out:
        raise argparse.ArgumentTypeError("an empty list (give names like int8,int6)")
    return out


CAPTURE_EXAMPLES = """examples:
  python -m stepq.hf capture --model data/lm/gdn --text book.txt --out traces/ --max-tokens 4096 --prefill 2048
  python -m stepq.hf capture --model Qwen3.5-DIR --text a.txt b.txt --out traces/ --layers 0,4-6 --dtype bfloat16
then: python -m stepq.hf calibrate --trace traces/book.h5 --out plan.h5 makes a plan for the model;
stepq replay --trace traces/book.h5 --format int6 --out r.h5 replays a trace in a format."""

EVAL_EXAMPLES = """examples:
  python -m stepq.hf eval --model data/lm/gdn --text a.txt b.txt --formats int8,int6,int4 --out results/mine.h5 \\
      --prefill 512 --decode 512 --plot
  python -m stepq.hf eval --model DIR --text a.txt --formats stepquant6 --plan plan.h5 --out r.h5 --dtype bfloat16
Documents may differ in length: each gives --decode steps or fewer where it ends first."""

TASKS_EXAMPLES = """examples (from the clone's root: the local tasks' data_files are relative to it):
  python -m stepq.hf tasks --model data/lm/gdn --format int8 --tasks tests/data/tasks --limit 4
  python -m stepq.hf tasks --model data/lm/gdn --format native --tasks tests/data/tasks/stepq_local_mc.yaml
  python -m stepq.hf tasks --model Qwen3.5-DIR --format int8 --tasks gsm8k --num-fewshot 5 --dtype bfloat16 \\
      --output results/gsm8k_int8.json --log-samples
The context (prompt) runs natively; then each continuation token but the last, and each
generated token, is fed with the states in the format, so every scored or generated token after
the first comes from them (method 7.4). Run --format native beside it to compare."""


def _limit(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % s) from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError("%s: give a count of documents per task (N >= 1) or a fraction (0 < x < 1)"
                                         % s)
    if v >= 1:
        if v != int(v):
            raise argparse.ArgumentTypeError("%s: a count of documents is a whole number" % s)
        return int(v)
    return v


CALIBRATE_EXAMPLES = """examples:
  python -m stepq.hf calibrate --trace traces/book.h5 --out plan.h5
  python -m stepq.hf calibrate --trace traces/a.h5 traces/b.h5 --out plan.h5 --steps 2048 --horizon 2048 --seed 7
then: python -m stepq.hf eval --model DIR --text c.txt --formats stepquant6 --plan plan.h5 --out r.h5
The settings not given take libstepq's defaults (`stepq calibrate --help` lists them); the same
command with `stepq calibrate` writes the same plan."""


def _number(kind):
    def parse(s):
        try:
            return kind(s) if kind is float else int(s, 10)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not %s" % (s, "a number" if kind is float else "a whole number")) \
                from None
    return parse


def parser():
    p = _Parser(prog="python -m stepq.hf", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("capture", help="record what enters each delta-rule layer into stepq trace files",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=CAPTURE_EXAMPLES)
    c.add_argument("--model", required=True, help="a model directory (save_pretrained's)")
    c.add_argument("--text", required=True, nargs="+", help="text files, one trace each (at most 1 GiB)")
    c.add_argument("--out", required=True, help="the directory the traces go to")
    c.add_argument("--max-tokens", type=_int_at_least(2, " (a capture needs at least 2 tokens)"), default=None,
                   help="read at most N tokens of each text (N >= 2)")
    c.add_argument("--prefill", type=_int_at_least(1), default=None,
                   help="tokens of the first forward (default: all at once); then one token per call")
    c.add_argument("--layers", type=int_list, default=None,
                   help="layer indices, e.g. 0,2,4-6 (default: every delta-rule layer)")
    t = sub.add_parser("tasks", help="lm-evaluation-harness tasks with the states in a stepq format",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=TASKS_EXAMPLES)
    for x in (c, t, e := sub.add_parser("eval", help="the model with its states in stepq formats: extra NLL, KL, "
                                                  "top-1, errors",
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EVAL_EXAMPLES)):
        x.add_argument("--dtype", choices=DTYPES, default=None,
                       help="the model's weights and activations (default: the checkpoint's own, its config's dtype "
                            "else its weights', as transformers' dtype=\"auto\"; the reference recurrence stays "
                            "float32)")
        x.add_argument("--device", default="cpu", help="where the model runs: cpu, cuda, cuda:N or auto (transformers' device_map); the quantized "
                       "states are stepped by libstepq on the CPU whatever it is")
    t.add_argument("--model", required=True, help="a model directory (save_pretrained's)")
    t.add_argument("--format", required=True,
                   help="the format every delta-rule layer's state is held in between tokens (stepq formats lists "
                        "them), or native: the model untouched")
    t.add_argument("--tasks", required=True,
                   help="lm-eval task names, task YAML files or a directory of them, comma-separated")
    t.add_argument("--include-path", default=None, help="a directory of further task YAML files (lm-eval's)")
    t.add_argument("--plan", default=None, help="a plan calibrated on this model's captures")
    t.add_argument("--plan-any-model", action="store_true",
                   help="accept a plan that names no model (calibrated on synthetic streams)")
    t.add_argument("--layers", type=int_list, default=None,
                   help="hold only these layers' states in the format (default: every delta-rule layer)")
    t.add_argument("--limit", type=_limit, default=None,
                   help="documents per task: N, or a fraction below 1 (lm-eval's; for trying things out)")
    t.add_argument("--num-fewshot", type=_int_at_least(0), default=None, help="examples in each prompt (lm-eval's)")
    t.add_argument("--batch-size", type=_int_at_least(1), default=1,
                   help="requests a batch holds at most (default 1): requests whose contexts have one length "
                        "run as rows of one batch, each row's states its own")
    t.add_argument("--max-length", type=_int_at_least(2), default=None,
                   help="tokens of context at most (default: the config's max_position_embeddings, else 2048)")
    t.add_argument("--max-gen-toks", type=_int_at_least(1), default=None,
                   help="generated tokens at most where a task names none (default: lm-eval's, 256)")
    t.add_argument("--bootstrap-iters", type=_int_at_least(0), default=100000,
                   help="resamples for the metrics' standard errors (lm-eval's; 0: none)")
    t.add_argument("--output", default=None,
                   help="OUT.json: lm-eval's results, configs and versions, and how stepq ran (format, plan, "
                        "device, dtype, kernels)")
    t.add_argument("--log-samples", action="store_true",
                   help="also each document's requests and answers in --output (lm-eval's samples)")
    e.add_argument("--model", required=True)
    e.add_argument("--text", required=True, nargs="+", help="documents, one row of the batch each")
    e.add_argument("--formats", required=True, type=name_list)
    e.add_argument("--plan", default=None, help="a plan calibrated on this model's captures")
    e.add_argument("--plan-any-model", action="store_true",
                   help="accept a plan that names no model (calibrated on synthetic streams)")
    e.add_argument("--out", required=True, help="the output OUT.h5")
    e.add_argument("--prefill", type=_int_at_least(1), default=512)
    e.add_argument("--decode", type=_int_at_least(1), default=None,
                   help="decode steps per document (default 512; a document that ends first gives fewer; an "
                        "explicit N above what the longest document gives is refused)")
    e.add_argument("--bin", type=_int_at_least(1), default=None,
                   help="decode steps per bin of the output (default 64; at most the longest document's)")
    e.add_argument("--layers", type=int_list, default=None)
    e.add_argument("--generate", type=_int_at_least(0), default=0, help="also N greedy tokens per format and document")
    e.add_argument("--plot", nargs="?", const="", default=None, metavar="SCRIPT",
                   help="draw OUT.png from the table: with stepq's own nll.gp (the package carries it), or with "
                        "the gnuplot script SCRIPT")
    k = sub.add_parser("calibrate", help="a plan for the calibrated formats, made from capture's traces",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=CALIBRATE_EXAMPLES,
                       description="A plan calibrated on trace files, one segment each, all of one model (method "
                                   "4.1, 4.3): libstepq's calibration, checked before any work and written beside "
                                   "--out and renamed into place.")
    k.add_argument("--trace", required=True, nargs="+", help="trace files (capture's), one segment each")
    k.add_argument("--out", required=True, help="the plan file PLAN.h5")
    from .. import calibrate_defaults
    defaults = calibrate_defaults()  # libstepq's
    for name, kind, what in CALIBRATE_SETTINGS:
        if name != "steps":
            what += " (default %g)" % defaults[name]
        k.add_argument("--" + name.replace("_", "-"), dest=name, type=_number(kind), default=None, help=what)
    k.add_argument("--normalize", action="store_true",
                   help="divide q and k by their norms on reading instead of refusing a trace not L2-normalised")
    return p


def main(argv=None):
    """the command line: every refusal (AdapterError, or libstepq's StepqError) becomes one line
    on stderr and exit status 2"""
    from .. import StepqError
    try:
        a = parser().parse_args(argv)
        if a.command == "capture":
            from .capture import command
            command(a)
        elif a.command == "calibrate":
            from .cli import cmd_calibrate
            cmd_calibrate(a)
        elif a.command == "tasks":
            from .tasks import tasks_command
            tasks_command(a)
        else:
            from .eval import cmd_eval
            cmd_eval(a)
    except (AdapterError, StepqError) as err:
        print("stepq.hf: error: %s" % err, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("stepq.hf: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
