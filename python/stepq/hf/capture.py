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

import h5py
import numpy as np

from . import QK_NORM_EPS, AdapterError, Hooks, delta_layers, spec_of, step_inputs, weights_sha256
from .cli import Output, Progress, check_model_dir, check_texts, load_model, model_files, outputs, run_stream, tokens


class Capture:
    """Records every kernel call of the hooked layers into path (a trace, written as it goes into
    a temporary file beside it and renamed into place on close(); removed if the capture fails).
    path: a file name or a cli.Output already checked. attrs: extra root attributes."""

    def __init__(self, model, path, layers=None, attrs=None):
        self.spec = spec_of(model)
        self.layers = delta_layers(model, self.spec, layers)
        shapes = {(l.H, l.HV, l.K, l.V) for l in self.layers}
        if len(shapes) != 1:
            raise AdapterError("the captured layers differ in heads or head sizes %s: capture them one at a time "
                               "(--layers)" % sorted(shapes))
        self.H, self.HV, self.K, self.V = shapes.pop()
        self.col = {l.index: i for i, l in enumerate(self.layers)}
        self.t = {l.index: 0 for l in self.layers}  # steps seen per layer
        self.buf = {l.index: [] for l in self.layers}  # steps not yet written, flushed every 64
        self.out = path if isinstance(path, Output) else Output(path, [])
        self.path = self.out.path
        self.hooks = None
        try:
            self.f = h5py.File(self.out.tmp, "w")
        except OSError as e:
            raise self.out.failed(e) from None
        try:
            self._start(model, attrs)
        except BaseException:
            self.close(ok=False)
            raise

    def _start(self, model, attrs):
        L, H, HV, K, V = len(self.layers), self.H, self.HV, self.K, self.V
        G = K if self.spec.kind == "kda" else None

        def ds(name, width, per, desc):
            shape = (0, width) + ((per,) if per else ())
            d = self.f.create_dataset(name, shape=shape, maxshape=(None,) + shape[1:], dtype="f4",
                                      chunks=(64,) + shape[1:])
            d.attrs["description"] = desc
            return d

        self.d = {
            "q": ds("q", L * H, K, "L2-normalised query [T,H,K], unscaled"),
            "k": ds("k", L * H, K, "L2-normalised key [T,H,K]"),
            "v": ds("v", L * HV, V, "value [T,HV,V]"),
            "g": ds("g", L * HV, G, "log decay [T,HV]" + (" per key channel [T,HV,K]" if G else "")),
            "beta": ds("beta", L * HV, None, "write strength [T,HV]"),
            "y": ds("y", L * HV, V, "the layer's own read-out [T,HV,V] (its kernel's output, scale applied)"),
        }
        self.f["layer"] = np.repeat([l.index for l in self.layers], HV).astype(np.int32)
        self.f["head"] = np.tile(np.arange(HV), L).astype(np.int32)
        a = self.f.attrs
        a["kind"] = self.spec.kind
        a["scale"] = 1.0 / np.sqrt(K)
        a["model_type"] = self.spec.model_type
        a["model"] = str(getattr(model.config, "_name_or_path", "") or "")
        a["weights_sha256"] = weights_sha256(model)
        a["layers"] = np.array([l.index for l in self.layers], np.int32)
        for k_, v_ in (attrs or {}).items():
            a[k_] = str(v_) if isinstance(v_, str) else v_
        self.calls = 0
        self.prefill = None
        self.hooks = Hooks(model, self.layers, self.spec, self._kernel)

    def _kernel(self, layer, which, a, run):
        q, k, v, g, beta = step_inputs(self.spec, layer, a)
        i = layer.index
        if q.shape[0] != 1:
            raise AdapterError("capture records one stream: a batch of %d documents was given" % q.shape[0])
        if self.t[i] == 0 and a.get("initial_state") is not None:
            raise AdapterError("layer %d already holds a state: a capture starts at a document's first token" % i)
        if a.get("use_qk_l2norm_in_kernel"):
            self.f.attrs["qk_norm_eps"] = QK_NORM_EPS  # normalised here, as the kernel does
        out = run()
        y = out[0].to(q.dtype)
        if self.prefill is None:
            self.prefill = q.shape[1]
        buf = self.buf[i]
        buf.append([x[0].detach().cpu().numpy() for x in (q, k, v, g, beta, y)])
        self.t[i] += q.shape[1]
        if sum(b[0].shape[0] for b in buf) >= 64:
            try:
                self._flush(i)
            except OSError as e:
                raise self.out.failed(e) from None
        self.calls += 1
        return out

    def _flush(self, i):
        """writes layer i's buffered steps into its columns"""
        buf = self.buf[i]
        if not buf:
            return
        n = sum(b[0].shape[0] for b in buf)
        t0 = self.t[i] - n
        c = self.col[i]
        H, HV = self.H, self.HV
        for j, (name, w) in enumerate((("q", H), ("k", H), ("v", HV), ("g", HV), ("beta", HV), ("y", HV))):
            d = self.d[name]
            if d.shape[0] < t0 + n:
                d.resize(t0 + n, axis=0)
            d[t0:t0 + n, c * w:(c + 1) * w] = np.concatenate([b[j] for b in buf])
        buf.clear()

    @property
    def steps(self):
        return min(self.t.values())

    def close(self, ok=True):
        if self.hooks is not None:
            self.hooks.close()
            self.hooks = None
        if self.f is None:
            return
        if ok and len(set(self.t.values())) != 1:
            ok = False
            err = AdapterError("the captured layers saw different numbers of steps %s" % self.t)
        else:
            err = None
        try:
            if ok:
                for i in self.buf:
                    self._flush(i)
                self.f.attrs["prefill"] = int(self.prefill or 0)
                self.f.attrs["steps"] = int(self.steps)
            self.f.close()
        except OSError as e:  # a full disk, a file-size limit: the system's reason, nothing left
            self.f = None
            raise self.out.failed(e) from None
        self.f = None
        if ok:
            self.out.commit()
        else:
            self.out.discard()
        if err:
            raise err

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(ok=exc_type is None)


def command(a):
    """python -m stepq.hf capture: every input and output checked, then one trace per text"""
    check_model_dir(a.model)
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
        model, tok = load_model(a.model)
        import torch
        import transformers
        for out, t in zip(checked, a.text):
            ids = tokens(tok, t, a.max_tokens)
            T = ids.shape[1]
            if T < 2:
                raise AdapterError("--text %s: %d tokens; a capture needs at least 2" % (t, T))
            attrs = {"tokenizer": "bytes" if tok is None else type(tok).__name__ + " " + str(tok.name_or_path),
                     "text": os.path.abspath(t), "transformers_version": transformers.__version__,
                     "torch_version": torch.__version__, "command": " ".join(sys.argv)}
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
