"""stepq: quantized recurrent states of delta-rule models, from Python.

A thin binding over libstepq (include/stepq.h): every quantized byte and every number comes
from the C library, so a round trip here equals the `stepq` binary's bit for bit. Arrays are
numpy arrays or CPU torch tensors, float32, a head's state K-first ([K, V]: key row, value
column; Hugging Face's [B, H, K, V] recurrent state, one head of it). The method the names cite
is docs/method.md of the repository.

    stepq.formats()                       the format table (records with name, bits, ...)
    stepq.Plan(path)                      a calibration plan (`stepq calibrate` writes them)
    stepq.roundtrip(S, "int6")            [K, V] or [H, K, V] through a format and back
    stepq.encode / stepq.decode / Codec   the packed bytes themselves
    stepq.Session(...)                    the decode-step protocol stepped from outside (method 2)
"""
import ctypes
from dataclasses import dataclass

import numpy as np

from . import _lib

__all__ = ["StepqError", "Format", "formats", "Plan", "Codec", "encode", "decode", "roundtrip",
           "Session", "mean_ci95", "version", "build_info"]

_KINDS = {"gdn": 0, "kda": 1}
_KIND_NAMES = {v: k for k, v in _KINDS.items()}


class StepqError(RuntimeError):
    """A libstepq call refused: .status is its sq_status name ("SQ_EPLAN", ...), the message
    names what was wrong."""

    def __init__(self, status, message):
        self.status = _lib.lib.sq_status_name(status).decode()
        super().__init__(message)


def _check(rc):
    if rc != 0:
        raise StepqError(rc, _lib.lib.sq_last_error().decode(errors="replace"))


def version():
    """libstepq's version as (major, minor, patch)"""
    v = _lib.lib.sq_version()
    return (v // 10000, v // 100 % 100, v % 100)


def build_info():
    """the git revision, compiler and flags libstepq was built with"""
    return _lib.lib.sq_build_info().decode()


def _kind(kind):
    if isinstance(kind, str) and kind.lower() in _KINDS:
        return _KINDS[kind.lower()]
    raise ValueError("kind must be 'gdn' or 'kda', not %r" % (kind,))


# ---- arrays in and out ------------------------------------------------------------------------

def _is_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


def _as_f32(x, what, shape=None):
    """x as a C-contiguous float32 numpy array (a CPU torch tensor's memory is not kept: copied
    or viewed through .numpy()), checked against shape where given (None entries: any)"""
    if _is_torch(x):
        if x.device.type != "cpu":
            raise ValueError("%s is a torch tensor on %s; stepq takes CPU tensors" % (what, x.device))
        x = x.detach().numpy()
    a = np.ascontiguousarray(x, dtype=np.float32)
    if shape is not None and (a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape))):
        raise ValueError("%s has shape %s, expected %s" % (what, a.shape, tuple("*" if s is None else s for s in shape)))
    return a


def _like(out, x):
    """out (numpy) as the kind of array x was"""
    if _is_torch(x):
        import torch
        return torch.from_numpy(out)
    return out


def _p(a):
    return ctypes.c_void_p(a.ctypes.data)


# ---- the format table ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Format:
    """A row of the format table (method 6.2). bits: the nominal bits a paper quotes; the bits
    a 128 x 128 head really takes are Codec(name, 128, 128).bits."""
    name: str
    bits: float
    summary: str
    family: str
    needs_plan: bool
    v_multiple: int
    v_pow2: bool
    replay: int


def formats():
    """the format table, in the order of `stepq formats`"""
    out = []
    for i in range(_lib.lib.sq_format_count()):
        f = _lib.FormatInfo()
        _check(_lib.lib.sq_format_get(i, ctypes.byref(f)))
        out.append(Format(f.name.decode(), f.nominal_bits, f.summary.decode(), f.family.decode(),
                          bool(f.needs_plan), f.v_multiple, bool(f.v_pow2), f.replay))
    return out


# ---- objects holding a libstepq handle -----------------------------------------------------------

class _Handle:
    """closes its libstepq object on close(), at the end of a with block, or when collected"""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


# ---- plans ------------------------------------------------------------------------------------

class Plan(_Handle):
    """A calibration plan file (method 4), opened and checked by libstepq.

    kind ('gdn' or 'kda'), K, V, heads (the (layer, head) labels it was calibrated on, in its
    order), file, calibration_key, model_sha256 (the weights of the model whose captures it was
    calibrated on, or ""). Use as a context manager or call close()."""

    _h = None

    def __init__(self, path):
        h = ctypes.c_void_p()
        _check(_lib.lib.sq_plan_open(str(path).encode(), ctypes.byref(h)))
        self._h = h
        info = _lib.PlanInfo()
        _check(_lib.lib.sq_plan_get_info(h, ctypes.byref(info)))
        self.kind = _KIND_NAMES[info.kind]
        self.K, self.V = info.K, info.V
        self.file = info.file.decode()
        self.calibration_key = info.calibration_key.decode()
        self.model_sha256 = info.model_sha256.decode()
        layer, head = ctypes.c_int(), ctypes.c_int()
        self.heads = []
        for i in range(info.n_heads):
            _check(_lib.lib.sq_plan_head(h, i, ctypes.byref(layer), ctypes.byref(head)))
            self.heads.append((layer.value, head.value))

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the plan %s is closed" % self.file)
        return self._h

    def find(self, layer, head):
        """the index of head (layer, head) in the plan; StepqError (SQ_EPLAN) if it has none"""
        i = ctypes.c_int()
        _check(_lib.lib.sq_plan_find(self.handle, layer, head, ctypes.byref(i)))
        return i.value

    def check(self, kind, K, V, heads=()):
        """StepqError (SQ_EPLAN) unless the plan was made for heads of this kind and K x V and
        holds every (layer, head) of heads"""
        n = len(heads)
        layers = (ctypes.c_int * max(n, 1))(*[int(l) for l, _ in heads])
        hs = (ctypes.c_int * max(n, 1))(*[int(h) for _, h in heads])
        _check(_lib.lib.sq_plan_check(self.handle, _kind(kind), K, V, n, layers, hs))

    def close(self):
        if self._h:
            _lib.lib.sq_plan_close(self._h)
            self._h = None

    def __repr__(self):
        return "Plan(%r: %s, %d x %d, %d heads)" % (self.file, self.kind, self.K, self.V, len(self.heads))


def _plan_of(plan):
    if plan is None or isinstance(plan, Plan):
        return plan, False
    return Plan(plan), True  # a path: opened for the call


# ---- codecs -----------------------------------------------------------------------------------

class Codec(_Handle):
    """One head's codec: format `name` for heads of kind and K x V, encoding with the plan's head
    `head` (method 6.2). .bytes: the packed bytes of a head; .bits: bits per element of them."""

    _h = None

    def __init__(self, name, K, V, plan=None, head=0, kind=None):
        if kind is None:
            kind = plan.kind if isinstance(plan, Plan) else "gdn"
        h = ctypes.c_void_p()
        _check(_lib.lib.sq_codec_open(str(name).encode(), plan.handle if plan is not None else None, int(head),
                                      _kind(kind), int(K), int(V), ctypes.byref(h)))
        self._h = h
        self.name, self.K, self.V = name, K, V
        self.bytes = _lib.lib.sq_codec_bytes(h)
        self.bits = _lib.lib.sq_codec_bits(h)

    def encode(self, X, previous=None):
        """X [K, V] -> its packed bytes (uint8 [bytes]). previous: the bytes of the last encode,
        which a freeze-gated format reads (zeros when absent)"""
        x = _as_f32(X, "the state", (self.K, self.V))
        P = np.zeros(self.bytes, np.uint8) if previous is None else np.array(previous, np.uint8).reshape(self.bytes)
        _check(_lib.lib.sq_codec_encode(self._h, _p(x), _p(P), P.size))
        return P

    def decode(self, P):
        """packed bytes (uint8 [bytes]) -> X_hat [K, V] float32"""
        p = np.ascontiguousarray(P, dtype=np.uint8).reshape(-1)
        X = np.empty((self.K, self.V), np.float32)
        _check(_lib.lib.sq_codec_decode(self._h, _p(p), p.size, _p(X)))
        return X

    def close(self):
        if self._h is not None:
            _lib.lib.sq_codec_close(self._h)
            self._h = None


def _heads(S, what="S"):
    s = _as_f32(S, what)
    if s.ndim not in (2, 3):
        raise ValueError("%s must be a state [K, V] or states [H, K, V], not of shape %s" % (what, s.shape))
    return s, s.reshape((-1,) + s.shape[-2:])


def encode(S, name, plan=None, head=0, kind=None):
    """S [K, V] -> its packed bytes, uint8 [bytes]; S [H, K, V] -> a list of H of them (a
    calibrated format gives each head its own widths, hence its own size). Head i of S is
    encoded with the plan's head `head` + i."""
    s, hs = _heads(S)
    plan, opened = _plan_of(plan)
    try:
        out = []
        for i, X in enumerate(hs):
            c = Codec(name, X.shape[0], X.shape[1], plan, head + i, kind)
            out.append(c.encode(X))
            c.close()
        return out[0] if s.ndim == 2 else out
    finally:
        if opened:
            plan.close()


def decode(P, name, K, V, plan=None, head=0, kind=None):
    """packed bytes, uint8 [bytes] -> X_hat [K, V]; a list of H of them (or uint8 [H, bytes])
    -> X_hat [H, K, V]; float32"""
    one = not isinstance(P, (list, tuple)) and np.asarray(P).ndim == 1
    ps = [np.asarray(P, np.uint8)] if one else [np.asarray(x, np.uint8) for x in P]
    plan, opened = _plan_of(plan)
    try:
        out = []
        for i, row in enumerate(ps):
            c = Codec(name, K, V, plan, head + i, kind)
            out.append(c.decode(row))
            c.close()
        return out[0] if one else np.stack(out)
    finally:
        if opened:
            plan.close()


def roundtrip(S, name, plan=None, head=0, kind=None):
    """S [K, V] or [H, K, V] encoded in format `name` and decoded back: the state a decode step
    would read (method 2). plan: a Plan or a path, for the formats that need one; head i of S
    uses the plan's head `head` + i. kind: 'gdn' or 'kda' (default: the plan's, else 'gdn'),
    which the dual fit's code forms depend on. Returns the kind of array S was."""
    s, hs = _heads(S)
    plan, opened = _plan_of(plan)
    try:
        out = np.empty_like(hs)
        for i, X in enumerate(hs):
            c = Codec(name, X.shape[0], X.shape[1], plan, head + i, kind)
            out[i] = c.decode(c.encode(X))
            c.close()
        return _like(out.reshape(s.shape), S)
    finally:
        if opened:
            plan.close()


# ---- sessions ---------------------------------------------------------------------------------

class Session(_Handle):
    """The decode-step protocol stepped from outside (method 2, 6.10): n_heads heads of kind and
    K x V, a float32 reference and one quantized path per format, fed one step at a time.

    The first `prefill` steps run at native precision; the step that ends the prefill encodes
    each format's boundary state; every later step is a decode step. step() takes q, k [H, K]
    (L2-normalised, q unscaled), v [H, V], g [H] or [H, 1] (GDN) or [H, K] (KDA) log decays and
    beta [H]; afterwards readout(f), state(f) and errors(f) read format f (an index or a name;
    None: the reference)."""

    def __init__(self, kind, K, V, n_heads, formats=(), plan=None, plan_heads=None, prefill=0, S0=None,
                 scale=None, keep_states=False):
        self.kind, self.K, self.V, self.H = kind, int(K), int(V), int(n_heads)
        self.formats = [str(f) for f in formats]
        self.G = self.K if _kind(kind) == 1 else 1
        names = (ctypes.c_char_p * max(len(self.formats), 1))(*[f.encode() for f in self.formats])
        self._plan, self._opened = _plan_of(plan)
        ph = None
        if plan_heads is not None:
            ph = (ctypes.c_int * self.H)(*[int(i) for i in plan_heads])
            if len(plan_heads) != self.H:
                raise ValueError("plan_heads has %d entries for %d heads" % (len(plan_heads), self.H))
        s0 = None
        if S0 is not None:
            self._S0 = _as_f32(S0, "S0", (self.H, self.K, self.V))
            s0 = self._S0.ctypes.data
        cfg = _lib.SessionConfig(kind=_kind(kind), K=self.K, V=self.V, scale=0.0 if scale is None else float(scale),
                                 n_heads=self.H, formats=names, n_formats=len(self.formats),
                                 plan=self._plan.handle if self._plan is not None else None,
                                 plan_heads=ph, prefill=int(prefill), S0=s0, keep_states=int(bool(keep_states)))
        h = ctypes.c_void_p()
        self._h = None
        _check(_lib.lib.sq_session_open(ctypes.byref(cfg), ctypes.byref(h)))
        self._h = h

    def _f(self, f):
        if f is None:
            return -1
        if isinstance(f, str):
            if f not in self.formats:
                raise ValueError("format %r is not one of this session's %s" % (f, self.formats))
            return self.formats.index(f)
        return int(f)

    def step(self, q, k, v, g, beta):
        H, K, V, G = self.H, self.K, self.V, self.G
        a = [_as_f32(q, "q", (H, K)), _as_f32(k, "k", (H, K)), _as_f32(v, "v", (H, V)),
             _as_f32(g, "g").reshape(H, -1), _as_f32(beta, "beta").reshape(-1)]
        if a[3].shape[1] != G:
            raise ValueError("g has %d gates per head; %s heads of %d key rows take %d" % (a[3].shape[1], self.kind, K, G))
        if a[4].shape[0] != H:
            raise ValueError("beta has %d entries for %d heads" % (a[4].shape[0], H))
        _check(_lib.lib.sq_session_step(self._h, *[_p(x) for x in a]))

    @property
    def steps(self):
        return _lib.lib.sq_session_steps(self._h)

    def readout(self, f=None):
        """y [H, V] of format f after the last step (None: the float32 reference)"""
        y = np.empty((self.H, self.V), np.float32)
        _check(_lib.lib.sq_session_readout(self._h, self._f(f), _p(y)))
        return y

    def state(self, f=None):
        """S [H, K, V]: the reference state (None), or format f's S_hat_t (keep_states=True)"""
        S = np.empty((self.H, self.K, self.V), np.float32)
        _check(_lib.lib.sq_session_state(self._h, self._f(f), _p(S)))
        return S

    def errors(self, f):
        """(err2, hat2, ref2), each [H] float64: ||S_hat_t - S_t||_F^2, ||S_hat_t||_F^2, ||S_t||_F^2"""
        e, a, r = (np.empty(self.H) for _ in range(3))
        _check(_lib.lib.sq_session_errors(self._h, self._f(f), _p(e), _p(a), _p(r)))
        return e, a, r

    def packed(self, f, h):
        """the bytes format f stores for head h after the last step (uint8)"""
        fi = self._f(f)
        n = _lib.lib.sq_session_bytes(self._h, fi, int(h))
        P = np.empty(n, np.uint8)
        _check(_lib.lib.sq_session_packed(self._h, fi, int(h), _p(P), n))
        return P

    def close(self):
        if getattr(self, "_h", None) is not None:
            _lib.lib.sq_session_close(self._h)
            self._h = None
        if getattr(self, "_opened", False) and self._plan is not None:
            self._plan.close()
            self._opened = False


def mean_ci95(x):
    """(mean, half-width of the 95% confidence interval) of the values x: Student's t, as every
    stepq result reports them (NaN half-width for fewer than 2 values)"""
    a = np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1))
    m, h = ctypes.c_double(), ctypes.c_double()
    _check(_lib.lib.sq_mean_ci95(_p(a), a.size, ctypes.byref(m), ctypes.byref(h)))
    return m.value, h.value
