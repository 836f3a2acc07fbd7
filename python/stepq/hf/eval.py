"""The model with every delta-rule layer's state held in a stepq format between tokens (method
2 inside the model, method 7.4): native prefill, then teacher-forced decode in which each layer's
kernel call is answered by a libstepq Session (decode the stored bytes, update with the token,
read out, encode), beside the native model on the same tokens, in lockstep.

Per decode step t (the call that reads token P+t and predicts token P+t+1), document and format:
extra NLL = NLL_F - NLL_native (nats per token), KL(p_native || p_F), and whether the two top-1
tokens agree; per layer, value head and step: the state error ||S_hat_t - S_t||_F / ||S_t||_F
and read-out error ||y_hat_t - y_t|| / ||y_t|| of the format against the float32 recurrence fed
the same inputs (the layer's own error at that step, the quantized model's inputs).

Output (HDF5, the nll driver's layout, analysis/nll.h, plus): documents [D], formats [F],
decode_step [NB], nll_native [D,N], extra [D,F,NB], extra_mean, extra_ci95 [F,NB], extra_window
[D,F]; kl, top1 [D,F,NB] with kl_mean, kl_ci95, top1_mean, top1_ci95 [F,NB]; layers [L];
state_err, readout_err [F,L,HV,NB] (means over documents); with --generate: greedy [D,1+F,G]
tokens (row 0 native), greedy_agree [D,F] (tokens equal to native's before the first
difference) and greedy_length [D,1+F] (tokens before the first end-of-sequence token); decode_steps [D]
(documents of different lengths: each gives --decode steps or fewer, NaN past its end). A .tsv of
extra NLL beside it, for plots/nll.gp.
"""
import os
import sys
import time

import numpy as np

from .. import DeviceSession, Plan, Session, StepqError, device_backend, device_takes, mean_ci95
from . import AdapterError, Hooks, delta_layers, forward, initial_state, returned_state, spec_of, step_inputs
from .cli import (Progress, check_device, check_model_dir, check_texts, checkpoint_dtype, load_model, load_tokenizer,
                  model_files, outputs, plot_script, regular_file, tokens)


SESSION_ENV = "STEPQ_HF_SESSION"


def session_path(fmt, device):
    """who holds a format's states for a model whose kernels run on device (a torch.device):
    "device", a DeviceSession in the model's memory, or "cpu", a CPU Session fed each step (the
    host round trip). STEPQ_HF_SESSION=cpu or =device says which (device on a CPU model: the
    device session's host backend, as the tests run it; a format it does not take is refused by
    name); unset, "device" where the model is on a GPU that libstepq's device session has a
    backend for and the format is one it takes (the lane kernels'), else "cpu" (the host round trip)"""
    want = os.environ.get(SESSION_ENV, "")
    if want not in ("", "cpu", "device"):
        raise AdapterError("%s=%s: give cpu (a CPU session fed each step) or device (the device session in the "
                           "model's memory), or leave it unset" % (SESSION_ENV, want))
    if want:
        return want
    return "device" if device.type == "cuda" and device_backend() == "cuda" and device_takes(fmt) else "cpu"


class _State:
    """one stream's quantized states: a session per layer, opened at its first decode call. steps:
    the decode steps the stream takes, which a device session measures in bins of one step (0: an
    unknown number, nothing measured on the device)"""

    def __init__(self, ev, fmt, steps=0):
        self.ev, self.fmt, self.sessions, self.steps = ev, fmt, {}, steps
        self.errs = {l.index: [] for l in ev.layers}  # per layer: per step (state_rel, readout_rel) [B*HV]

    def errors(self, layer):
        """the layer's errors over the decode steps, [N, 2, B*HV]: state, then read-out"""
        s = self.sessions[layer]
        if isinstance(s, DeviceSession):
            st, ro, _ = s.errors(0)
            return np.stack([st, ro], 1)
        return np.array(self.errs[layer])

    def close(self):
        for s in self.sessions.values():
            s.close()
        self.sessions = {}


class Evaluator:
    """One set of hooks on the model; target (None: native) says whose stream the next forward is."""

    def __init__(self, model, layers=None, plan=None, plan_any_model=False):
        self.spec = spec_of(model)
        self.layers = delta_layers(model, self.spec, layers)
        self.plan = plan
        if plan is not None:
            if not plan.model_sha256 and not plan_any_model:
                raise AdapterError("%s names no model (it was calibrated on synthetic streams, or on traces that name "
                                   "none): calibrate on this model's captures, or say that a plan of any model will "
                                   "do (--plan-any-model)" % plan.file)
            if plan.model_sha256:
                from . import weights_sha256
                mine = weights_sha256(model)
                if mine != plan.model_sha256:
                    raise AdapterError("%s was calibrated on the model whose weights have SHA-256 %s...; this "
                                       "model's are %s...: calibrate on its own captures" %
                                       (plan.file, plan.model_sha256[:16], mine[:16]))
            for l in self.layers:
                plan.check(self.spec.kind, l.K, l.V, [(l.index, h) for h in range(l.HV)])
        self.target = None
        self.ran = set()  # the kernel functions that ran ("module.name"), for the output's record
        self.paths = set()  # who held the states ("cpu", "device (cuda)", ...), for the same record
        self.hooks = Hooks(model, self.layers, self.spec, self._kernel)

    def close(self):
        self.hooks.close()

    def _kernel(self, layer, which, a, run):
        self.ran.add(self.hooks.ran(which, a))
        st = self.target
        q = a["query"] if "query" in a else a["q"]
        if st is None or q.shape[1] > 1 or a.get("initial_state") is None:
            if st is not None and layer.index in st.sessions:
                raise AdapterError("layer %d: a call of %d tokens after decoding began; the adapter steps one token "
                                   "a call" % (layer.index, q.shape[1]))
            return run()
        import torch
        q, k, v, g, beta = step_inputs(self.spec, layer, a)
        v_in = a["value"] if "value" in a else a["v"]  # the kernel's own v: its device and dtype
        B, _, H, K = q.shape
        HV, V = v.shape[2], v.shape[3]
        s = st.sessions.get(layer.index)
        if s is None:
            s = self._open(st, layer, initial_state(self.spec, a).reshape(B * HV, K, V), v_in.device)
            st.sessions[layer.index] = s
        rep = HV // H
        x = (q[:, 0].repeat_interleave(rep, dim=1), k[:, 0].repeat_interleave(rep, dim=1), v[:, 0], g[:, 0], beta[:, 0])
        if isinstance(s, DeviceSession):  # in the model's memory, on its stream: nothing waits
            s.step(*(t.reshape(B * HV, -1).contiguous() for t in x))
            out = s.readout(0, out=torch.empty((B * HV, V), dtype=torch.float32, device=v_in.device))
            S_hat = s.state(0, out=torch.empty((B * HV, K, V), dtype=torch.float32, device=v_in.device))
            out, S_hat = out.reshape(B, 1, HV, V).to(dtype=v_in.dtype), S_hat.reshape(B, HV, K, V)
        else:  # the model's tensors, wherever it runs, into libstepq on the CPU, and its answer back there
            s.step(*(t.reshape(B * HV, -1).cpu().numpy() for t in x))
            y_hat, y = s.readout(0), s.readout()
            err2, _, ref2 = s.errors(0)
            ry = np.sqrt(((y_hat - y) ** 2).sum(1) / np.maximum((y.astype(np.float64) ** 2).sum(1), 1e-300))
            st.errs[layer.index].append((np.sqrt(err2 / np.maximum(ref2, 1e-300)), ry))
            out = torch.from_numpy(y_hat).reshape(B, 1, HV, V).to(device=v_in.device, dtype=v_in.dtype)
            S_hat = torch.from_numpy(s.state(0)).reshape(B, HV, K, V).to(v_in.device)
        S_in = a.get("initial_state")
        if S_in is not None and self.spec.family == "hf":
            S_hat = S_hat.to(S_in.dtype)  # the cache keeps the state in its own dtype
        return out, returned_state(self.spec, a, S_hat)


    def _open(self, st, layer, S0, device):
        """the session of a stream's layer (B HV heads), from the states S0 [B HV, K, V] the native
        prefill left: a device session where session_path says so, else a CPU one"""
        path = session_path(st.fmt, device)
        self.paths.add("cpu" if path == "cpu" else "device (%s)" % ("cuda" if device.type == "cuda" else "host"))
        if path == "device":  # its formats need no plan
            return DeviceSession(self.spec.kind, layer.K, layer.V, S0.shape[0], [st.fmt], prefill=0,
                                 S0=S0.contiguous(), n_bins=st.steps,
                                 backend="cuda" if device.type == "cuda" else "host")
        ph = None
        if self.plan is not None:
            ph = [self.plan.find(layer.index, h) for _ in range(S0.shape[0] // layer.HV) for h in range(layer.HV)]
        return Session(self.spec.kind, layer.K, layer.V, S0.shape[0], [st.fmt], plan=self.plan, plan_heads=ph,
                       prefill=0, S0=S0.cpu().numpy(), keep_states=True)


def _documents(tok, texts, prefill, decode, full=None):
    """[(ids [1, T], decode steps)] of the texts: each document gives min(decode, T - prefill - 1)
    decode steps; one without a token to decode after the prefill is refused by name. full: a
    list that receives each text's whole length in tokens"""
    docs = []
    for t in texts:
        ids = tokens(tok, t)
        if full is not None:
            full.append(ids.shape[1])
        n = min(decode, ids.shape[1] - prefill - 1)
        if n < 1:
            raise AdapterError("--text %s has %d tokens; --prefill %d needs at least %d (a token to decode after "
                               "it, and the one it predicts)" % (t, ids.shape[1], prefill, prefill + 2))
        docs.append((ids[:, :prefill + n + 1], n))
    return docs


def evaluate_documents(model, docs, formats, prefill, decode, plan=None, layers=None, generate=0, progress=None,
                       plan_any_model=False):
    """evaluate() over documents of different lengths: grouped by their decode steps (one batch a
    group, in the order of the lengths), the per-document arrays put back in the documents' order
    with NaN past each one's last step ([D, ...N]), the per-layer errors averaged over the
    documents that reach each step, and decode_steps [D]"""
    import torch
    D, F = len(docs), len(formats)
    groups = {}
    for i, (_, n) in enumerate(docs):
        groups.setdefault(n, []).append(i)
    out, done = None, 0
    for n in sorted(groups, reverse=True):
        rows = groups[n]
        ids = torch.cat([docs[i][0] for i in rows], 0)
        tick = (lambda k, base=done: progress(base + k)) if progress else None
        r = evaluate(model, ids, formats, prefill, n, plan, layers, generate, tick, plan_any_model)
        done += n
        if out is None:
            L, HV = r["state_err"].shape[1], r["state_err"].shape[2]
            out = dict(nll_native=np.full((D, decode), np.nan), extra=np.full((D, F, decode), np.nan),
                       kl=np.full((D, F, decode), np.nan), top1=np.full((D, F, decode), np.nan),
                       state_err=np.zeros((F, L, HV, decode)), readout_err=np.zeros((F, L, HV, decode)),
                       reach=np.zeros(decode), layers=r["layers"], kernels=set(), sessions=set(),
                       decode_steps=np.array([m for _, m in docs], np.int64))
            if generate:
                out["greedy"] = np.zeros((D, 1 + F, generate), np.int64)
        for j, i in enumerate(rows):
            out["nll_native"][i, :n] = r["nll_native"][j]
            for k in ("extra", "kl", "top1"):
                out[k][i, :, :n] = r[k][j]
            if generate:
                out["greedy"][i] = r["greedy"][j]
        for k in ("state_err", "readout_err"):  # means over the group's documents: weighted by their number
            out[k][..., :n] += r[k] * len(rows)
        out["reach"][:n] += len(rows)
        out["kernels"].update(r["kernels"])
        out["sessions"].update(r["sessions"])
    for k in ("state_err", "readout_err"):  # NaN at the steps no document reaches
        out[k] = np.where(out["reach"] > 0, out[k] / np.maximum(out["reach"], 1), np.nan)
    out["kernels"] = sorted(out["kernels"])
    out["sessions"] = sorted(out["sessions"])
    return out


def evaluate(model, ids, formats, prefill, decode, plan=None, layers=None, generate=0, progress=None,
             plan_any_model=False):
    """the measurements of the module's docstring, as a dict of numpy arrays (ids [D, P+N+1])"""
    import torch
    D = ids.shape[0]
    P, N, F = prefill, decode, len(formats)
    ev = Evaluator(model, layers, plan, plan_any_model)
    try:
        streams = [None] + [_State(ev, f, N) for f in formats]
        caches = []
        logp = []
        with torch.no_grad():
            for st in streams:  # the native prefill of every stream (its own cache)
                ev.target = st
                caches.append(forward(model, ids[:, :P])[1])
            nll_native = np.zeros((D, N))
            extra = np.zeros((D, F, N))
            kl = np.zeros((D, F, N))
            top1 = np.zeros((D, F, N))
            for t in range(N):
                tok_in = ids[:, P + t:P + t + 1]
                nxt = ids[:, P + t + 1]
                logp = []
                for i, st in enumerate(streams):
                    ev.target = st
                    logits, caches[i] = forward(model, tok_in, caches[i])
                    logp.append(torch.log_softmax(logits[:, -1].to(torch.float64), -1))
                ln = logp[0]
                nll_native[:, t] = -ln.gather(1, nxt[:, None])[:, 0].numpy()
                for f in range(F):
                    lq = logp[f + 1]
                    extra[:, f, t] = -lq.gather(1, nxt[:, None])[:, 0].numpy() - nll_native[:, t]
                    kl[:, f, t] = (ln.exp() * (ln - lq)).sum(-1).numpy()
                    top1[:, f, t] = (ln.argmax(-1) == lq.argmax(-1)).numpy()
                if progress:
                    progress(t + 1)
        L = len(ev.layers)
        HV = ev.layers[0].HV
        state_err = np.zeros((F, L, HV, N))
        readout_err = np.zeros((F, L, HV, N))
        for f, st in enumerate(streams[1:]):
            for j, l in enumerate(ev.layers):
                e = st.errors(l.index)  # [N, 2, D*HV]
                state_err[f, j] = e[:, 0].reshape(N, D, HV).mean(1).T
                readout_err[f, j] = e[:, 1].reshape(N, D, HV).mean(1).T
            st.close()
        res = dict(nll_native=nll_native, extra=extra, kl=kl, top1=top1, state_err=state_err,
                   readout_err=readout_err, layers=np.array([l.index for l in ev.layers], np.int32),
                   kernels=sorted(ev.ran), sessions=sorted(ev.paths))
        if generate:
            res["greedy"] = _greedy(model, ev, ids[:, :P], formats, generate)
        return res
    finally:
        ev.close()


def _greedy(model, ev, prompt, formats, G):
    """greedy continuations [D, 1+F, G]: row 0 native, then one per format"""
    import torch
    D = prompt.shape[0]
    out = np.zeros((D, 1 + len(formats), G), np.int64)
    with torch.no_grad():
        for i, st in enumerate([None] + [_State(ev, f, G) for f in formats]):
            ev.target = st
            logits, cache = forward(model, prompt)
            tok_ = logits[:, -1].argmax(-1)
            for t in range(G):
                out[:, i, t] = tok_.numpy()
                logits, cache = forward(model, tok_[:, None], cache)
                tok_ = logits[:, -1].argmax(-1)
            if st is not None:
                st.close()
    return out


def binned(x, B):
    """x [..., N] -> bin means [..., N // B] (a last partial bin dropped)"""
    nb = x.shape[-1] // B
    return x[..., :nb * B].reshape(x.shape[:-1] + (nb, B)).mean(-1)


DECODE_DEFAULT, BIN_DEFAULT = 512, 64


def _check_work(a, docs):
    """--decode and --bin against what the documents can run, before the model loads: an explicit
    --decode above the decode steps of the longest document, or beyond what memory holds, and a
    --bin above every document's decode steps (no bin would be filled) are refused by name"""
    most = max(n for _, n in docs)
    if a.decode_given:
        longest = max(range(len(docs)), key=lambda i: a.full_tokens[i])
        can = max(0, a.full_tokens[longest] - a.prefill - 1)
        if a.decode > can:
            raise AdapterError("--decode %d: the longest document, %s, holds %d tokens, so no document gives more "
                               "than %d decode steps after --prefill %d (give --decode %d or less)"
                               % (a.decode, a.text[longest], a.full_tokens[longest], can, a.prefill, can))
    D, F = len(docs), len(a.formats)
    need = 8 * a.decode * D * (1 + 3 * F) * 2  # the arrays over the decode steps, and their bins
    try:
        have = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        have = None
    if have and need > have:
        raise AdapterError("--decode %d: its results for %d documents and %d formats take %.3g GB, more than this "
                           "machine's memory (%.3g GB)" % (a.decode, D, F, need / 1e9, have / 1e9))
    if a.bin > most:
        raise AdapterError("--bin %d%s is above the decode steps of every document (the longest gives %d): no bin "
                           "would be filled (give --bin %d or less)"
                           % (a.bin, "" if a.bin_given else " (the default)", most, most))


def _check(a):
    """every option and input of eval before any work; returns the outputs (h5, tsv, png or None)"""
    a.decode_given, a.bin_given = a.decode is not None, a.bin is not None
    a.decode = DECODE_DEFAULT if a.decode is None else a.decode
    a.bin = BIN_DEFAULT if a.bin is None else a.bin
    if a.bin > a.decode:
        raise AdapterError("--bin %d%s is above --decode %d (a bin holds at most the decode steps)"
                           % (a.bin, "" if a.bin_given else " (the default)", a.decode))
    from .. import formats as table
    known = {f.name for f in table()}
    for f in a.formats:
        if f not in known:
            raise AdapterError("--formats: no format is called '%s' (stepq formats lists them)" % f)
    if len(set(a.formats)) != len(a.formats):
        raise AdapterError("--formats names a format twice: %s" % ",".join(a.formats))
    check_device(a.device)
    a.dtype = a.dtype or checkpoint_dtype(a.model, check_model_dir(a.model))
    check_texts(a.text)
    inputs = list(a.text) + model_files(a.model)
    if a.plan:
        regular_file(a.plan, "--plan")
        inputs.append(a.plan)
    if a.plot == "":
        a.plot = plot_script("nll.gp")
    if a.plot:
        regular_file(a.plot, "--plot")
        inputs.append(a.plot)
    stem = os.path.splitext(a.out)[0]
    return outputs([(a.out, "--out"), (stem + ".tsv", "the table beside --out")]
                   + ([(stem + ".png", "the figure beside --out")] if a.plot else []), inputs)


def cmd_eval(a):
    import h5py
    import torch
    import transformers
    outs = _check(a)
    try:
        _run(a, outs, h5py, torch, transformers)
    finally:
        for o in outs:
            o.discard()


def _write(out, fn):
    """fn(temporary path), then the temporary renamed into place; a failed write names its reason"""
    try:
        fn(out.tmp)
    except OSError as e:
        raise out.failed(e) from None
    out.commit()


def _run(a, outs, h5py, torch, transformers):
    plan = Plan(a.plan) if a.plan else None
    tok = load_tokenizer(a.model)  # the documents in tokens, checked against the options before the model loads
    a.full_tokens = []
    docs = _documents(tok, a.text, a.prefill, a.decode, a.full_tokens)
    _check_work(a, docs)
    model, tok = load_model(a.model, a.dtype, a.device)
    prog = Progress("eval", sum(sorted({n for _, n in docs})), "decode steps")
    t0 = time.time()
    r = evaluate_documents(model, docs, a.formats, a.prefill, a.decode, plan, a.layers, a.generate, prog.tick,
                           a.plan_any_model)
    dt = time.time() - t0
    D, F, B = len(docs), len(a.formats), a.bin

    def h5(tmp):
        with h5py.File(tmp, "w") as h:
            _fill(h, a, r, model, dt, torch, transformers)

    def tsv(tmp):
        with open(tmp, "w") as t:
            em = binned(r["extra"], B)
            t.write("# decode_step" + "".join("\t%s_mean\t%s_ci95" % (f, f) for f in a.formats) + "\n")
            for j in range(em.shape[2]):
                row = [_mean_ci95_present(em[:, f, j]) for f in range(F)]
                t.write("%d" % (j * B) + "".join("\t%.9g\t%.9g" % mc for mc in row) + "\n")

    _write(outs[0], h5)
    _write(outs[1], tsv)
    table = outs[1].path
    if a.plot:
        import subprocess
        source = "%s (%s), %d documents, prefill %d, plan %s" % (a.model,
                                                                model.config.model_type, D, a.prefill,
                                                                os.path.basename(a.plan) if a.plan else "none")
        # the variables by name, as stepq run passes them (cli/plot.c): never read as gnuplot code
        r_ = subprocess.run(["gnuplot", "-c", a.plot, "datafile outfile formats source unit", table, outs[2].tmp,
                             " ".join(a.formats), source, "token"], capture_output=True, text=True)
        if r_.returncode != 0:
            raise AdapterError("gnuplot %s failed: %s" % (a.plot, r_.stderr.strip()[-500:]))
        outs[2].commit()
        print("wrote %s" % outs[2].path)
    # the tokens each stream decoded: every document's own steps (a document that ends before
    # --decode gives fewer), not --decode times the documents
    ran = int(sum(n for _, n in docs))
    ms = dt / (ran * (1 + F)) * 1e3
    print("wrote %s and %s: %d documents, %d decode steps (at most %d each), %d formats, %.1f ms per token and stream" %
          (a.out, table, D, ran, max(n for _, n in docs), F, ms))
    for f, name in enumerate(a.formats):
        m, c = mean_ci95(np.nanmean(r["extra"][:, f], -1))
        print("  %-14s extra NLL over the window %+.5f +- %.5f nats/token, KL %.3g, top-1 agreement %.3f" %
              (name, m, c, np.nanmean(r["kl"][:, f]), np.nanmean(r["top1"][:, f])))


def _fill(h, a, r, model, dt, torch, transformers):
    """the datasets and attributes of eval's HDF5 output (the module's docstring)"""
    F, B = len(a.formats), a.bin
    at = h.attrs
    at["experiment"] = "hf-eval"
    at["model"] = os.path.abspath(a.model)
    at["model_type"] = model.config.model_type
    at["command"] = " ".join(sys.argv)
    at["transformers_version"] = transformers.__version__
    at["torch_version"] = str(torch.__version__)
    at["device"] = a.device
    at["dtype"] = a.dtype
    at["kernels"] = ", ".join(sorted(r.get("kernels", [])))
    at["sessions"] = ", ".join(r.get("sessions", []))  # who held the states: cpu, device (cuda), device (host)
    at["prefill"] = a.prefill
    at["decode"] = a.decode
    at["bin"] = B
    at["unit"] = "nats per token"
    at["seconds"] = dt
    if a.plan:
        at["plan"] = os.path.abspath(a.plan)
    h["documents"] = [os.path.abspath(t).encode() for t in a.text]
    h["formats"] = [f.encode() for f in a.formats]
    h["decode_step"] = np.arange(0, (a.decode // B) * B, B, dtype=np.int64)
    h["nll_native"] = r["nll_native"]
    h["layers"] = r["layers"]
    for name in ("extra", "kl", "top1"):
        b = binned(r[name], B)  # [D, F, NB]; NaN where a document ends before the bin
        h[name] = b
        mc = np.array([[_mean_ci95_present(b[:, f, j]) for j in range(b.shape[2])] for f in range(F)])
        h[name + "_mean"] = mc[..., 0]
        h[name + "_ci95"] = mc[..., 1]
    h["extra_window"] = np.nanmean(r["extra"], -1)  # each document over its own decode steps
    h["decode_steps"] = r["decode_steps"]
    h["decode_steps"].attrs["description"] = ("decode steps of each document [D]: --decode, or fewer where the "
                                              "document ends first (the arrays over steps hold NaN past them)")
    h["state_err"] = binned(r["state_err"], B)
    h["readout_err"] = binned(r["readout_err"], B)
    if "greedy" in r:
        g = r["greedy"]
        h["greedy"] = g
        same = g[:, 1:] == g[:, :1]
        h["greedy_agree"] = np.where(same.all(-1), g.shape[-1], np.argmin(same, -1))
        # the paper's "outputs grow longer": tokens before the first end-of-sequence token (all of
        # them where the model has none, as a byte model)
        eos = getattr(model.config, "eos_token_id", None)
        eos = [] if eos is None else ([eos] if isinstance(eos, int) else list(eos))
        ended = np.isin(g, eos)
        h["greedy_length"] = np.where(ended.any(-1), np.argmax(ended, -1), g.shape[-1])
        h["greedy_length"].attrs["description"] = ("tokens before the first end-of-sequence token %s [D,1+F] "
                                                   "(row 0 native; G where none came)" % eos)


def _mean_ci95_present(x):
    """mean_ci95 of the documents that reach a bin (NaN where none does)"""
    x = x[~np.isnan(x)]
    return mean_ci95(x) if x.size else (np.nan, np.nan)
