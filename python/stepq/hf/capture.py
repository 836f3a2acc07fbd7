"""Capture: what enters each delta-rule layer's recurrence, written into a stepq trace file as
the model runs (the layout of `stepq replay`, method 6.1).

One trace holds one stream: a batch of one document, every captured layer's heads side by side
(value head j of the trace is head j % HV of layer layers[j // HV]; its q/k head is j / (HV/H),
the model's own grouping), with `layer` and `head` labels so that a plan calibrated on it names
them. q and k are stored L2-normalised as the kernel normalises them; `y` holds the layer's own
read-out (its kernel's output), which `stepq replay --format fp32` reproduces by method 6.5's
rule. Attributes: kind, scale, qk_norm_eps (where the kernel normalises q and k), model, model_type,
weights_sha256, tokenizer, text, prefill
(steps the first forward took at once; each later step was one decode call), transformers and
torch versions.
"""
import os
import sys
import time

import numpy as np

from .. import TraceWriter
from . import QK_NORM_EPS, AdapterError, Hooks, delta_layers, spec_of, step_inputs, weights_sha256
from .cli import (Output, Progress, check_device, check_model_dir, check_texts, checkpoint_dtype, load_model, model_files,
                  outputs, run_stream, tokens)


class Capture:
    """Records every kernel call of the hooked layers into path: a trace written by libstepq
    (stepq.TraceWriter: the reader's layout and rules, the checksum of what identifies it) as the
    model runs, beside path and renamed into place on close(); nothing is left if the capture
    fails. path: a file name or a cli.Output already checked. attrs: extra root attributes."""

    def __init__(self, model, path, layers=None, attrs=None):
        self.spec = spec_of(model)
        self.layers = delta_layers(model, self.spec, layers)
        shapes = {(l.H, l.HV, l.K, l.V) for l in self.layers}
        if len(shapes) != 1:
            raise AdapterError("the captured layers differ in heads or head sizes %s: capture them one at a time "
                               "(--layers)" % sorted(shapes))
        self.H, self.HV, self.K, self.V = shapes.pop()
        self.t = {l.index: 0 for l in self.layers}  # steps seen per layer
        self.pending = {l.index: None for l in self.layers}  # per layer: its steps not yet written
        self.written = 0
        out = path if isinstance(path, Output) else Output(path, [])
        out.discard()  # checked and writable: libstepq writes its own temporary file beside it
        self.path = out.path
        self.attrs = dict(attrs or {})
        self.attrs.update(model_type=self.spec.model_type, model=str(getattr(model.config, "_name_or_path", "") or ""),
                          layers=",".join(str(l.index) for l in self.layers))
        self.sha = weights_sha256(model)
        self.eps = None
        self.w = None
        self.calls = 0
        self.prefill = None
        self.hooks = Hooks(model, self.layers, self.spec, self._kernel)

    def _open(self):
        """the trace, at the first kernel call, which says how q and k are normalised and how many
        q/k heads the kernel is given: the layer's own (transformers 5.24), or one per value head
        where the modeling file repeats them first (5.18: the trace then holds HV q/k heads)"""
        L = len(self.layers)
        Hq = {self.pending[l.index][0].shape[1] for l in self.layers}
        if len(Hq) != 1 or self.HV % next(iter(Hq)):
            raise AdapterError("the kernels of the captured layers were given %s q/k heads for %d value heads"
                               % (sorted(Hq), self.HV))
        self.H = Hq.pop()
        self.w = TraceWriter(self.path, self.spec.kind, L * self.H, L * self.HV, self.K, self.V,
                             scale=1.0 / np.sqrt(self.K), qk_norm_eps=self.eps or 0.0, weights_sha256=self.sha,
                             layer=np.repeat([l.index for l in self.layers], self.HV).tolist(),
                             head=np.tile(np.arange(self.HV), L).tolist(), with_y=True)
        for k_, v_ in self.attrs.items():
            self.w.attr(k_, v_)

    def _kernel(self, layer, which, a, run):
        q, k, v, g, beta = step_inputs(self.spec, layer, a)
        i = layer.index
        if q.shape[0] != 1:
            raise AdapterError("capture records one stream: a batch of %d documents was given" % q.shape[0])
        if self.t[i] == 0 and a.get("initial_state") is not None:
            raise AdapterError("layer %d already holds a state: a capture starts at a document's first token" % i)
        if self.eps is None:
            self.eps = QK_NORM_EPS if a.get("use_qk_l2norm_in_kernel") else 0.0  # normalised here, as the kernel does
        out = run()
        y = out[0].to(q.dtype)
        if self.prefill is None:
            self.prefill = q.shape[1]
        new = [x[0].detach().cpu().float().numpy() for x in (q, k, v, g, beta, y)]
        old = self.pending[i]
        self.pending[i] = new if old is None else [np.concatenate([a_, b_]) for a_, b_ in zip(old, new)]
        self.t[i] += q.shape[1]
        self._drain()
        self.calls += 1
        return out

    def _drain(self):
        """the steps every layer has seen, every layer's heads side by side, into the trace"""
        n = min(self.t.values()) - self.written
        if n <= 0:
            return
        if self.w is None:
            self._open()
        parts = [self.pending[l.index] for l in self.layers]
        block = [np.concatenate([p[j][:n] for p in parts], axis=1) for j in range(6)]
        self.w.append(*block)
        for l in self.layers:
            self.pending[l.index] = [x[n:] for x in self.pending[l.index]]
        self.written += n

    @property
    def steps(self):
        return min(self.t.values())

    def close(self, ok=True):
        if self.hooks is not None:
            self.hooks.close()
            self.hooks = None
        if ok and len(set(self.t.values())) != 1:
            if self.w is not None:
                self.w.abandon()
                self.w = None
            raise AdapterError("the captured layers saw different numbers of steps %s" % self.t)
        if self.w is None:
            if ok:
                raise AdapterError("nothing was captured into %s: the model made no delta-rule kernel call" % self.path)
            return
        w, self.w = self.w, None
        if not ok:
            w.abandon()
            return
        try:
            self._drain_into(w)
            w.attr("prefill", int(self.prefill or 0))
        except BaseException:
            w.abandon()
            raise
        w.close()

    def _drain_into(self, w):
        self.w = w
        try:
            self._drain()
        finally:
            self.w = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(ok=exc_type is None)


def command(a):
    """python -m stepq.hf capture: every input and output checked, then one trace per text"""
    check_device(a.device)
    cfg = check_model_dir(a.model)
    a.dtype = a.dtype or checkpoint_dtype(a.model, cfg)
    check_texts(a.text)
    outs = {}
    for t in a.text:
        out = os.path.join(a.out, os.path.splitext(os.path.basename(t))[0] + ".h5")
        if out in outs:
            raise AdapterError("--text %s and %s would both be captured into %s (give texts distinct file names)"
                               % (outs[out], t, out))
        outs[out] = t
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        raise AdapterError("--out %s is a file; capture writes one trace per text into a directory" % a.out)
    inputs = list(a.text) + model_files(a.model)
    checked = outputs([(out, "--out") for out in outs], inputs)  # temporary files made: writable, before work
    try:
        model, tok = load_model(a.model, a.dtype, a.device)
        import torch
        import transformers
        for out, t in zip(checked, a.text):
            ids = tokens(tok, t, a.max_tokens)
            T = ids.shape[1]
            if T < 2:
                raise AdapterError("--text %s: %d tokens; a capture needs at least 2" % (t, T))
            attrs = {"tokenizer": "bytes" if tok is None else type(tok).__name__ + " " + str(tok.name_or_path),
                     "text": os.path.abspath(t), "transformers_version": transformers.__version__,
                     "torch_version": torch.__version__, "command": " ".join(sys.argv),
                     "device": a.device, "dtype": a.dtype}
            prefill = a.prefill if a.prefill is not None else T
            prog = Progress("capture %s" % os.path.basename(t), T, "tokens")
            t0 = time.time()
            with Capture(model, out, a.layers, attrs) as c:
                run_stream(model, ids, prefill, lambda n, _: prog.tick(n))
            dt = time.time() - t0
            print("wrote %s: %d steps of %d layers x %d value heads (%s), %.1f tokens/s" %
                  (out.path, c.steps, len(c.layers), c.HV, c.spec.kind, T / dt))
    finally:
        for o in checked:
            o.discard()
