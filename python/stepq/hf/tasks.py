"""Task accuracy through lm-evaluation-harness with every delta-rule layer's state held in a stepq
format between tokens (method 7.4, "Task accuracy").

StepqLM is an lm_eval model: it answers loglikelihood, loglikelihood_rolling and generate_until
with the sessions of eval.py (its Evaluator: the model's own kernel for a prompt, a libstepq
session per layer for each token after it), up to batch_size requests at a time:
  - loglikelihood (context, continuation): the context in one native forward (its last logits
    score the continuation's first token), then each continuation token but the last one call
    through the format, whose logits score the next; as a server would generate the continuation
    after the prompt, teacher-forced. A continuation of one token is scored by the native prefill
    alone: the format cannot change it, as it cannot change a server's first generated token.
  - loglikelihood_rolling: lm-eval's rolling windows (one token of context: the prefix token),
    each scored as a loglikelihood request.
  - generate_until: the context natively, then greedy tokens, each fed back through the format,
    until a stop sequence, the end-of-sequence token or max_gen_toks.
Each batch opens its own sessions (the state encoded from the prefill's at its first decode
call) and a cache of its own, and closes both: nothing passes from one batch to the next. A batch
is requests whose contexts have the same number of tokens (generate_until: and the same
max_gen_toks), one row each, so that no row is padded (the adapters step unpadded rows); every
row's heads are sessions of their own in the batch's session of a layer (a batch of B rows of HV
heads is B HV heads), so a row's answer is the one it gets alone, up to the rounding of the
model's batched matrix products (test_hf_tasks: within REL_SAME). Rows whose continuation or
answer ends first are fed their own last token until the longest ends, and what follows their end
is not read. Requests keep their order in lm-eval's answers.
format "native" runs the model's own kernels by the same schedule (eval's native stream: the
hooks hand every call to the original; on a CPU that is the torch function, fla's Triton pieces
stood in for by fla_cpu's).

lm-eval 0.4.13 finds models in its registry only (no entry points are read): importing this
module registers StepqLM as "stepq" (lm_eval.api.registry.register_model), so from Python
`import stepq.hf.tasks` then `lm_eval.simple_evaluate(model="stepq", model_args=...)`; the
`lm_eval` command line cannot import it, and `python -m stepq.hf tasks` runs it instead.
"""
import argparse
import contextlib
import json
import os
import sys
import time

try:
    import lm_eval
    from lm_eval.api.model import TemplateLM
    from lm_eval.api.registry import register_model
except ImportError:  # the command refuses by name (tasks_command); the class needs it
    lm_eval = None
    TemplateLM = object

    def register_model(*names):
        return lambda cls: cls

from .. import StepqError
from . import AdapterError, forward
from .cli import (DTYPES, check_device, check_model_dir, checkpoint_dtype, int_list, load_model, model_files, outputs,
                  regular_file)

LM_EVAL_TESTED = "0.4.13"
MAX_GEN_TOKS = 256  # lm-eval's default, where neither a task nor --max-gen-toks names one
NATIVE = "native"
MODEL_ARGS = ("pretrained", "format", "plan", "plan_any_model", "layers", "device", "dtype", "batch_size",
              "max_batch_size", "max_length", "max_gen_toks")


def _flag(v):
    return v if isinstance(v, bool) else str(v).strip().lower() in ("1", "true", "yes")


def check_format(fmt):
    """a format of stepq.formats(), or native"""
    from .. import formats as table
    known = [f.name for f in table()]
    if fmt != NATIVE and fmt not in known:
        raise AdapterError("--format: no format is called '%s' (stepq formats lists them; native runs the model "
                           "untouched)" % fmt)
    return fmt


@register_model("stepq")
class StepqLM(TemplateLM):
    """lm_eval's model "stepq" (the module's docstring). model_args: pretrained (a model directory),
    format (a stepq format, or native), plan, plan_any_model, layers (e.g. "0,2"), device, dtype (default: the
    checkpoint's own), batch_size (requests of a batch at most, 1; the module's docstring),
    max_length (default: the config's max_position_embeddings, else 2048), max_gen_toks (256)."""

    def __init__(self, pretrained=None, format=NATIVE, plan=None, plan_any_model=False, layers=None, device=None,
                 dtype=None, batch_size=1, max_batch_size=None, max_length=None, max_gen_toks=None, **other):
        if lm_eval is None:
            raise AdapterError("lm-eval is not installed: pip install lm-eval==%s" % LM_EVAL_TESTED)
        super().__init__()
        if other:
            raise AdapterError("the stepq model takes no argument %s (it takes %s)"
                               % (", ".join(sorted(other)), ", ".join(MODEL_ARGS)))
        if not pretrained:
            raise AdapterError("the stepq model needs pretrained=DIR, a model directory (save_pretrained's)")
        try:
            bs = int(batch_size if batch_size is not None else 1)
        except (TypeError, ValueError):
            bs = None
        if bs is None or bs < 1:
            raise AdapterError("--batch-size %s: a number of requests of at least 1 (stepq batches requests of equal "
                               "context lengths; it does not size batches itself)" % batch_size)
        self.batch_size = bs
        self.format = check_format(str(format))
        if plan is not None and self.format == NATIVE:
            raise AdapterError("--plan %s goes with a format (native runs the model untouched)" % plan)
        device = device or "cpu"
        check_device(device)
        if dtype is not None and dtype not in DTYPES:
            raise AdapterError("--dtype %s: one of %s" % (dtype, ", ".join(DTYPES)))
        if isinstance(layers, str):
            try:
                layers = int_list(layers)
            except argparse.ArgumentTypeError as e:
                raise AdapterError("layers=%s: %s" % (layers, e)) from None
        dtype = dtype or checkpoint_dtype(pretrained, check_model_dir(pretrained))  # the checkpoint's own
        if plan is not None:
            regular_file(plan, "--plan")
        from .. import Plan
        self.path, self.dtype, self.plan_path = pretrained, dtype, plan
        self._device = device
        self.model, self.tokenizer = load_model(pretrained, dtype, device)
        # the hooks of eval's native stream too: with target None every call runs the model's own
        # kernel (on a CPU: the torch functions, fla's Triton pieces stood in for by fla_cpu's)
        from .eval import Evaluator
        self.ev = Evaluator(self.model, layers, Plan(plan) if plan else None, _flag(plan_any_model))
        self.vocab = int(self.model.config.vocab_size)
        self.max_length = int(max_length or default_max_length(self.model.config))
        # a max_gen_toks given is checked against max_length here; lm-eval's default only where a
        # generation request uses it (generate_until), so that a task that only scores runs
        self.max_gen_toks = int(max_gen_toks if max_gen_toks is not None else MAX_GEN_TOKS)
        if self.max_length < 2 or self.max_gen_toks < 1 or (max_gen_toks is not None and
                                                             self.max_gen_toks >= self.max_length):
            raise AdapterError("max_length %d and max_gen_toks %d: a context needs room (1 <= max_gen_toks < "
                               "max_length)" % (self.max_length, self.max_gen_toks))
        tok = self.tokenizer
        eos = tok.eos_token_id if tok is not None else getattr(self.model.config, "eos_token_id", None)
        eos = eos[0] if isinstance(eos, (list, tuple)) and eos else eos
        self._eot = eos if isinstance(eos, int) and 0 <= eos < self.vocab else None
        bos = tok.bos_token_id if tok is not None else getattr(self.model.config, "bos_token_id", None)
        bos = bos if isinstance(bos, int) and 0 <= bos < self.vocab else None
        # what an empty context is conditioned on: BOS, else EOS, else a newline (a byte model's
        # documents are separated by one)
        self._prefix = bos if bos is not None else self._eot if self._eot is not None else self.tok_encode("\n")[0]

    # ---- what TemplateLM asks of a model --------------------------------------------------------------

    @property
    def eot_token_id(self):
        return self._eot

    @property
    def prefix_token_id(self):
        return self._prefix

    @property
    def tokenizer_name(self):
        return os.path.abspath(self.path) if self.tokenizer is None else self.tokenizer.name_or_path

    def tok_encode(self, string, add_special_tokens=None, left_truncate_len=None, **kwargs):
        """token ids of string: the tokenizer's (no special tokens unless asked), or UTF-8 bytes"""
        if self.tokenizer is None:
            ids = list(string.encode("utf-8"))
        else:
            ids = self.tokenizer.encode(string, add_special_tokens=bool(add_special_tokens))
        return ids[-left_truncate_len:] if left_truncate_len else ids

    def tok_decode(self, ids, skip_special_tokens=True):
        if self.tokenizer is None:
            return bytes(t for t in ids if 0 <= t < 256).decode("utf-8", errors="replace")
        return self.tokenizer.decode(ids, skip_special_tokens=skip_special_tokens)

    # ---- one batch of requests -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _request(self):
        """the format's states of one batch of requests: new sessions, opened at the first decode
        call and closed at its end (native: nothing)"""
        from .eval import _State
        st = None if self.format == NATIVE else _State(self.ev, self.format)
        self.ev.target = st
        try:
            yield
        finally:
            self.ev.target = None
            if st is not None:
                st.close()

    def _ids(self, rows):
        import torch
        return torch.tensor(rows, dtype=torch.long)  # [B, T], rows of one length; forward() moves it to the device

    def _batches(self, keys):
        """the indices of keys in batches of at most batch_size whose keys are equal (rows of one
        length: nothing padded), each batch in the order its first request came"""
        groups = {}
        for i, k in enumerate(keys):
            groups.setdefault(k, []).append(i)
        return [g[j:j + self.batch_size] for g in groups.values() for j in range(0, len(g), self.batch_size)]

    def _pair(self, context, continuation):
        """(context, continuation) cut to max_length + 1 tokens from the left; refused where nothing
        is left to score or to condition on"""
        whole = (list(context) + list(continuation))[-(self.max_length + 1):]
        n = len(continuation)
        if n < 1:
            raise AdapterError("a loglikelihood request with an empty continuation (nothing to score)")
        if n >= len(whole):
            raise AdapterError("a continuation of %d tokens does not fit max_length %d with a token of context"
                               % (n, self.max_length))
        return whole[:-n], list(continuation)

    def score(self, context, continuation):
        """(log-likelihood of the continuation's tokens after the context's, whether each is the
        argmax): the context natively, then each continuation token but the last through the format"""
        return self.score_batch([(context, continuation)])[0]

    def score_batch(self, pairs):
        """score() of each (context, continuation) of a batch whose contexts, once cut to
        max_length, have one length: the contexts in one native forward, then the continuations
        a token a call, a row past its end fed its last token (what it then predicts is not read)"""
        import torch
        pairs = [self._pair(c, t) for c, t in pairs]
        if len({len(c) for c, _ in pairs}) != 1:
            raise AdapterError("score_batch: contexts of %s tokens in one batch (a batch's rows have one length)"
                               % sorted({len(c) for c, _ in pairs}))
        conts = [t for _, t in pairs]
        ll, greedy = [0.0] * len(pairs), [True] * len(pairs)
        with self._request(), torch.no_grad():
            logits, cache = forward(self.model, self._ids([c for c, _ in pairs]))
            for i in range(max(map(len, conts))):
                if i:
                    fed = [[t[min(i, len(t)) - 1]] for t in conts]
                    logits, cache = forward(self.model, self._ids(fed), cache)
                lp = torch.log_softmax(logits[:, -1].to(torch.float64), -1)
                for r, t in enumerate(conts):
                    if i < len(t):
                        ll[r] += float(lp[r, t[i]])
                        greedy[r] = greedy[r] and int(lp[r].argmax()) == t[i]
        return list(zip(ll, greedy))

    def _context(self, context, max_gen_toks):
        """a generation's context ids: cut to leave max_gen_toks of max_length, never empty"""
        return list(context)[-(self.max_length - max_gen_toks):] or [self.prefix_token_id]

    def generate(self, context, until, max_gen_toks):
        """greedy text after the context ids: the context natively, each generated token fed back
        through the format, until a stop string of until, EOS or max_gen_toks; cut at the first stop"""
        return self.generate_batch([context], [until], max_gen_toks)[0]

    def generate_batch(self, contexts, untils, max_gen_toks):
        """generate() of each context with its own stop strings, a batch whose contexts, once cut,
        have one length: a row that has stopped is fed its last token until every row has"""
        import torch
        ctx = [self._context(c, max_gen_toks) for c in contexts]
        if len({len(c) for c in ctx}) != 1:
            raise AdapterError("generate_batch: contexts of %s tokens in one batch (a batch's rows have one length)"
                               % sorted({len(c) for c in ctx}))
        out, texts, done = [[] for _ in ctx], [""] * len(ctx), [False] * len(ctx)
        with self._request(), torch.no_grad():
            logits, cache = forward(self.model, self._ids(ctx))
            while True:
                nxt = [int(t) for t in logits[:, -1].argmax(-1)]
                for r, t in enumerate(nxt):
                    if done[r]:
                        continue
                    if self._eot is not None and t == self._eot:
                        done[r] = True
                        continue
                    out[r].append(t)
                    texts[r] = self.tok_decode(out[r])
                    done[r] = len(out[r]) >= max_gen_toks or any(u and u in texts[r] for u in untils[r])
                if all(done):
                    break
                logits, cache = forward(self.model, self._ids([[t] for t in nxt]), cache)
        return [_cut(text, until) for text, until in zip(texts, untils)]

    # ---- lm-eval's requests --------------------------------------------------------------------------

    def _scores(self, pairs, desc, disable_tqdm):
        """score() of every (context, continuation), in batches of equal context lengths"""
        from tqdm import tqdm
        res = [None] * len(pairs)
        keys = [len(self._pair(c, t)[0]) for c, t in pairs]
        with tqdm(total=len(pairs), disable=disable_tqdm, desc=desc) as bar:
            for b in self._batches(keys):
                for i, r in zip(b, self.score_batch([pairs[i] for i in b])):
                    res[i] = r
                bar.update(len(b))
        return res

    def _loglikelihood_tokens(self, requests, disable_tqdm=False, **kwargs):
        res = self._scores([(ctx, cont) for _, ctx, cont in requests], "stepq %s loglikelihood" % self.format,
                           disable_tqdm)
        for (key, _, _), r in zip(requests, res):
            if key is not None:
                self.cache_hook.add_partial("loglikelihood", key, r)
        return res

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        from lm_eval import utils
        strings = [r.args[0] for r in requests]
        owner, pairs = [], []  # every string's windows, scored together
        for s, string in enumerate(strings):
            windows = map(utils.make_disjoint_window,
                          utils.get_rolling_token_windows(token_list=self.tok_encode(string),
                                                          prefix_token=self.prefix_token_id,
                                                          max_seq_len=self.max_length, context_len=1))
            for w in windows:
                owner.append(s)
                pairs.append(w)
        scores = self._scores(pairs, "stepq %s loglikelihood_rolling" % self.format, disable_tqdm)
        res = [0.0] * len(strings)
        for s, (ll, _) in zip(owner, scores):  # each string's windows in their order
            res[s] += ll
        for string, ll in zip(strings, res):
            self.cache_hook.add_partial("loglikelihood_rolling", (string,), ll)
        return res

    def generate_until(self, requests, disable_tqdm=False):
        from lm_eval.models.utils import handle_stop_sequences, normalize_gen_kwargs
        from tqdm import tqdm
        eos = None if self._eot is None else self.tok_decode([self._eot], skip_special_tokens=False)
        args = [r.args for r in requests]
        asks = []  # (context ids, stop strings, max_gen_toks) of each request, checked before any runs
        for ctx, gen_kwargs in args:
            kw = normalize_gen_kwargs(gen_kwargs, self.max_gen_toks)
            if kw.get("do_sample"):
                raise AdapterError("a task asks for sampled generation (do_sample=True, temperature %s): stepq "
                                   "generates greedily, the same tokens every run" % kw.get("temperature"))
            until = handle_stop_sequences(kw.pop("until", None), eos=eos or None)
            G = kw.pop("max_gen_toks")
            if G >= self.max_length:
                raise AdapterError("a task asks for %d generated tokens (max_gen_toks); max_length %d leaves no token of "
                                   "context (give --max-length above %d)" % (G, self.max_length, G))
            asks.append((self.tok_encode(ctx), until, G))
        res = [None] * len(asks)
        with tqdm(total=len(asks), disable=disable_tqdm, desc="stepq %s generate_until" % self.format) as bar:
            for b in self._batches([(len(self._context(c, G)), G) for c, _, G in asks]):
                texts = self.generate_batch([asks[i][0] for i in b], [asks[i][1] for i in b], asks[b[0]][2])
                for i, text in zip(b, texts):
                    res[i] = text
                bar.update(len(b))
        for a, text in zip(args, res):
            self.cache_hook.add_partial("generate_until", a, text)
        return res

    def close(self):
        if self.ev is not None:
            self.ev.close()
            self.ev = None


def _cut(text, until):
    """text before the first of the stop strings until that it holds"""
    for u in until:
        if u:
            text = text.split(u)[0]
    return text


# ---- python -m stepq.hf tasks --------------------------------------------------------------------------

def resolve_tasks(tasks, include_path=None, leaves=None):
    """(task_manager, the top-level Task and Group objects, the files read: the YAML files named
    and the local data files of the tasks loaded): --tasks' names,
    YAML files and directories resolved and loaded by lm-eval itself (its datasets read), before
    the model loads; a task it cannot find or load is refused by name. leaves: a list that
    receives every Task loaded (the groups' members too)"""
    if include_path is not None and not os.path.isdir(include_path):
        raise AdapterError("--include-path %s: not a directory (a directory of task YAML files)" % include_path)
    from lm_eval.config.evaluate_config import EvaluatorConfig
    import glob
    files = []
    for t in tasks.split(","):
        t = t.strip()
        if t.endswith(".yaml") and glob.has_magic(t):  # lm-eval takes a pattern of YAML files
            found = sorted(glob.glob(t))
            if not found:
                raise AdapterError("--tasks %s matches no file" % t)
            files += found
        elif t.endswith(".yaml"):
            regular_file(t, "--tasks")
            files.append(t)
        elif os.path.isdir(t):
            files += [os.path.join(t, f) for f in sorted(os.listdir(t)) if f.endswith(".yaml")]
    cfg = EvaluatorConfig(tasks=tasks, include_path=include_path)
    try:
        tm = cfg.process_tasks()
        if not cfg.tasks:
            raise ValueError("no task YAML in it")
        loaded = tm.load(cfg.tasks)
    except Exception as e:  # lm-eval's and datasets' reasons, as one line
        raise AdapterError("--tasks %s: lm-eval could not load it: %s" % (tasks, str(e).strip().split("\n")[0][:500])) \
            from None
    for task in loaded["tasks"].values():  # the data a task reads (none may be an output)
        files += task_data_files(getattr(task, "config", None))
        if leaves is not None:
            leaves.append(task)
    children = {c for names in loaded["group_map"].values() for c in names}
    top = [g for n, g in loaded["groups"].items() if n not in children] + \
          [t for n, t in loaded["tasks"].items() if n not in children]
    return tm, top, files


def task_data_files(config):
    """the local files a task's dataset is read from: its dataset_path where that is a file or a
    directory here (every file under it), and its dataset_kwargs' data_files and data_dir (a
    name, a list, or a dict of either, as datasets takes them; patterns expanded)"""
    import glob
    if config is None:
        return []
    names = []

    def add(x):
        if isinstance(x, str):
            names.append(x)
        elif isinstance(x, (list, tuple)):
            for y in x:
                add(y)
        elif isinstance(x, dict):
            for y in x.values():
                add(y)

    add(getattr(config, "dataset_path", None))
    kw = getattr(config, "dataset_kwargs", None) or {}
    if isinstance(kw, dict):
        add(kw.get("data_files"))
        add(kw.get("data_dir"))
    found = []
    for n in names:
        for p in ([n] + (sorted(glob.glob(n)) if glob.has_magic(n) else [])):
            if os.path.isfile(p):
                found.append(p)
            elif os.path.isdir(p):
                found += [os.path.join(r, f) for r, _, fs in os.walk(p) for f in fs]
    return found


def default_max_length(cfg):
    """a model's context when --max-length is not given: its config's max_position_embeddings
    (text_config's in a multimodal config), else 2048"""
    if hasattr(cfg, "get"):
        tc = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
        n = (tc or cfg).get("max_position_embeddings")
    else:
        n = getattr(getattr(cfg, "text_config", None) or cfg, "max_position_embeddings", None)
    return int(n or 2048)


def check_lengths(a, cfg, leaves):
    """--max-length against the tokens each generation task asks for (its max_gen_toks, else
    --max-gen-toks, else lm-eval's 256), before the model loads: a generated answer needs a token
    of context beside it. Tasks that only score (log-likelihoods) generate nothing and ask none"""
    max_length = a.max_length or default_max_length(cfg)
    for task in leaves:
        c = getattr(task, "config", None)
        if getattr(c, "output_type", None) != "generate_until":
            continue
        gk = getattr(c, "generation_kwargs", None) or {}
        G = gk.get("max_gen_toks") or a.max_gen_toks or MAX_GEN_TOKS
        if int(G) >= max_length:
            said = "max_gen_toks %d" % G if gk.get("max_gen_toks") else \
                "--max-gen-toks %d" % G if a.max_gen_toks else "lm-eval's default of %d (--max-gen-toks)" % G
            raise AdapterError("--max-length %d%s: task %s generates up to %d tokens (%s), which leaves no token of "
                               "context (give --max-length above %d)"
                               % (max_length, "" if a.max_length else " (the model's)", c.task, G, said, G))


def tasks_command(a):
    if lm_eval is None:
        raise AdapterError("python -m stepq.hf tasks needs lm-eval: pip install lm-eval==%s" % LM_EVAL_TESTED)
    check_format(a.format)
    if a.plan and a.format == NATIVE:
        raise AdapterError("--plan %s goes with a format (native runs the model untouched)" % a.plan)
    check_device(a.device)
    cfg = check_model_dir(a.model)
    a.dtype = a.dtype or checkpoint_dtype(a.model, cfg)
    inputs = model_files(a.model)
    if a.plan:
        regular_file(a.plan, "--plan")
        inputs.append(a.plan)
    leaves = []
    tm, top, files = resolve_tasks(a.tasks, a.include_path, leaves)
    check_lengths(a, cfg, leaves)
    outs = outputs([(a.output, "--output")], inputs + files) if a.output else []
    lm = None
    try:
        lm = StepqLM(pretrained=a.model, format=a.format, plan=a.plan, plan_any_model=a.plan_any_model,
                     layers=a.layers, device=a.device, dtype=a.dtype, batch_size=a.batch_size,
                     max_length=a.max_length, max_gen_toks=a.max_gen_toks)
        t0 = time.time()
        try:
            r = lm_eval.simple_evaluate(model=lm, tasks=top, task_manager=tm, num_fewshot=a.num_fewshot,
                                        limit=a.limit, log_samples=a.log_samples,
                                        bootstrap_iters=a.bootstrap_iters, batch_size=a.batch_size)
        except (AdapterError, StepqError):
            raise
        except Exception as e:  # a task lm-eval cannot run (its metric or filter): its reason, as one line
            raise AdapterError("lm-eval stopped on --tasks %s: %s: %s" % (
                a.tasks, type(e).__name__, str(e).strip().split("\n")[0][:500])) from None
        dt = time.time() - t0
        r["stepq"] = record(a, lm, dt)
        if outs:
            from lm_eval.utils import handle_non_serializable
            try:
                with open(outs[0].tmp, "w") as f:
                    json.dump(r, f, indent=2, default=handle_non_serializable, ensure_ascii=False)
            except OSError as e:
                raise outs[0].failed(e) from None
            outs[0].commit()
        from lm_eval.utils import make_table
        print(make_table(r))
        if "groups" in r:
            print(make_table(r, "groups"))
        print("stepq.hf tasks: %s, format %s%s, %s on %s: %.1f s%s" %
              (a.model, a.format, " (plan %s)" % a.plan if a.plan else "", a.dtype, a.device, dt,
               ", wrote %s" % a.output if a.output else ""))
    finally:
        if lm is not None:
            lm.close()
        for o in outs:
            o.discard()


def record(a, lm, dt):
    """what the output says of the run beside lm-eval's own record"""
    import torch
    import transformers
    return dict(model=os.path.abspath(a.model), model_type=lm.model.config.model_type, format=a.format,
                plan=os.path.abspath(a.plan) if a.plan else None, device=a.device, dtype=a.dtype,
                kernels=sorted(lm.ev.ran), sessions=sorted(lm.ev.paths), batch_size=lm.batch_size,
                max_length=lm.max_length,
                prefill_boundary="loglikelihood: the context natively, each continuation token but the last "
                                 "through the format; generate_until: the context natively, each generated token "
                                 "through the format (method 7.4)",
                seconds=dt, command=" ".join(sys.argv), lm_eval_version=lm_eval.__version__ if hasattr(
                    lm_eval, "__version__") else LM_EVAL_TESTED, transformers_version=transformers.__version__,
                torch_version=str(torch.__version__))
