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
    stepq.DeviceSession(...)              the same in the memory the model runs in (a GPU's; method 6.11)
    stepq.TraceWriter(...)                a trace file written as a model runs (method 6.1)
    stepq.calibrate(traces, out, ...)     a plan calibrated on traces (method 4.1, 4.3)
"""
import ctypes
import threading
from dataclasses import dataclass

import numpy as np

from . import _lib

__all__ = ["StepqError", "Format", "formats", "Plan", "Codec", "encode", "decode", "roundtrip",
           "Session", "DeviceSession", "device_backend", "device_takes", "TraceWriter", "calibrate", "calibrate_defaults", "mean_ci95", "version", "build_info"]

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
    or viewed through .numpy()), checked against shape where given (None entries: any).

    Taken: arrays and CPU tensors of any real floating dtype (float16, bfloat16, float32,
    float64, ...), and Python numbers or sequences of them. Refused, naming the dtype and
    shape: complex, integer, boolean and other arrays (a complex state would lose its imaginary
    part, an integer one is not a state), and arrays with no elements."""
    if _is_torch(x):
        if x.device.type != "cpu":
            raise ValueError("%s is a torch tensor on %s; stepq takes CPU tensors" % (what, x.device))
        if not x.is_floating_point():
            raise ValueError("%s is a torch tensor of dtype %s and shape %s; stepq takes real floating-point "
                             "values (float16, bfloat16, float32, float64)" % (what, x.dtype, tuple(x.shape)))
        # bfloat16 and float16 have no numpy view: converted to float32 by torch, exactly
        x = x.detach().to(dtype=__import__("torch").float32).numpy()
    elif isinstance(x, np.ndarray) or hasattr(x, "__array__"):
        x = np.asarray(x)
        if x.dtype.kind != "f":
            raise ValueError("%s is an array of dtype %s and shape %s; stepq takes real floating-point values "
                             "(float16, bfloat16, float32, float64)" % (what, x.dtype, x.shape))
    else:
        try:
            x = np.asarray(x)
        except (ValueError, TypeError) as e:
            raise ValueError("%s is not an array of numbers (%s)" % (what, e)) from None
        if x.dtype.kind not in "iuf":
            raise ValueError("%s holds values of type %s; stepq takes real numbers" % (what, x.dtype))
    a = np.ascontiguousarray(x, dtype=np.float32)
    if a.size == 0:
        raise ValueError("%s has no elements (shape %s)" % (what, a.shape))
    if shape is not None and (a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape))):
        raise ValueError("%s has shape %s, expected %s" % (what, a.shape, tuple("*" if s is None else s for s in shape)))
    return a


def _as_u8(x, what):
    """packed bytes as a C-contiguous uint8 numpy array: a uint8 array or tensor as it is, a
    sequence of integers in [0, 255]; anything else (floats, wider integers out of range) is
    refused rather than wrapped modulo 256"""
    if _is_torch(x):
        if x.device.type != "cpu":
            raise ValueError("%s is a torch tensor on %s; stepq takes CPU tensors" % (what, x.device))
        x = x.detach().numpy()
    a = np.asarray(x)
    if a.dtype != np.uint8:
        if a.dtype.kind not in "iu" or (a.size and (a.min() < 0 or a.max() > 255)):
            raise ValueError("%s must be bytes (uint8), not an array of dtype %s and shape %s%s"
                             % (what, a.dtype, a.shape, "" if a.dtype.kind not in "iu" else " with values outside [0, 255]"))
    return np.ascontiguousarray(a, dtype=np.uint8)


_INT_RANGE = {"int": (-2**31, 2**31 - 1), "long": (-2**63, 2**63 - 1)}


def _int(x, what, lo, hi=None, ctype="int"):
    """x as a Python int in [lo, hi] (hi: the C type's largest where None): integers only (a
    float, a bool or a string is refused, not truncated or converted), range-checked before the
    C call so that no value is cut to the C type's width"""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        if _is_torch(x) and x.dim() == 0 and not x.is_floating_point() and x.dtype != __import__("torch").bool:
            x = int(x)
        else:
            raise ValueError("%s must be an integer, not %r (%s)" % (what, x, type(x).__name__))
    x = int(x)
    hi = _INT_RANGE[ctype][1] if hi is None else hi
    if not lo <= x <= hi:
        raise ValueError("%s is %d; it must lie in [%d, %d]" % (what, x, lo, hi))
    return x


def _cstr(x, what):
    """a format name or path as bytes for C: str (or a path), UTF-8, no NUL (C would stop there)"""
    import os
    if isinstance(x, os.PathLike):
        x = os.fspath(x)
    if isinstance(x, bytes):
        b = x
    elif isinstance(x, str):
        b = x.encode("utf-8", errors="surrogateescape")
    else:
        raise ValueError("%s must be a string, not %r (%s)" % (what, x, type(x).__name__))
    if b"\0" in b:
        raise ValueError("%s %r holds a NUL character, which C would cut it at" % (what, x))
    return b


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
        _check(_lib.lib.sq_plan_open(_cstr(path, "the plan path"), ctypes.byref(h)))
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
        _check(_lib.lib.sq_plan_find(self.handle, _int(layer, "layer", -2**31), _int(head, "head", -2**31),
                                     ctypes.byref(i)))
        return i.value

    def check(self, kind, K, V, heads=()):
        """StepqError (SQ_EPLAN) unless the plan was made for heads of this kind and K x V and
        holds every (layer, head) of heads"""
        n = len(heads)
        layers = (ctypes.c_int * max(n, 1))(*[_int(l, "a layer of heads", -2**31) for l, _ in heads])
        hs = (ctypes.c_int * max(n, 1))(*[_int(h, "a head of heads", -2**31) for _, h in heads])
        _check(_lib.lib.sq_plan_check(self.handle, _kind(kind), _int(K, "K", 1), _int(V, "V", 1), n, layers, hs))

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
        if plan is not None and not isinstance(plan, Plan):
            raise ValueError("plan must be a stepq.Plan (open a path with stepq.Plan(path)), not %r" % (plan,))
        if kind is None:
            kind = plan.kind if isinstance(plan, Plan) else "gdn"
        self.name, self.K, self.V = str(name), _int(K, "K", 1), _int(V, "V", 1)
        fmt, head, kind = _cstr(name, "the format name"), _int(head, "head", 0), _kind(kind)
        h = ctypes.c_void_p()
        _check(_lib.lib.sq_codec_open(fmt, plan.handle if plan is not None else None, head, kind, self.K, self.V,
                                      ctypes.byref(h)))
        self._h = h
        # libstepq holds the plan itself as long as the codec lives; the Python object is kept too
        self._plan = plan
        self._lock = threading.Lock()  # one encode or decode at a time: they share the codec's scratch
        self.bytes = _lib.lib.sq_codec_bytes(h)
        self.bits = _lib.lib.sq_codec_bits(h)

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the codec %s (%d x %d) is closed" % (self.name, self.K, self.V))
        return self._h

    def encode(self, X, previous=None):
        """X [K, V] -> its packed bytes (uint8 [bytes]). previous: the bytes of the last encode,
        which a freeze-gated format reads (zeros when absent)"""
        x = _as_f32(X, "the state", (self.K, self.V))
        if previous is None:
            P = np.zeros(self.bytes, np.uint8)
        else:
            P = _as_u8(previous, "previous").reshape(-1).copy()
            if P.size != self.bytes:
                raise ValueError("previous holds %d bytes; format %s packs a %d x %d head into %d"
                                 % (P.size, self.name, self.K, self.V, self.bytes))
        with self._lock:
            _check(_lib.lib.sq_codec_encode(self.handle, _p(x), _p(P), P.size))
        return P

    def decode(self, P):
        """packed bytes (uint8 [bytes]) -> X_hat [K, V] float32"""
        p = _as_u8(P, "the packed bytes").reshape(-1)
        X = np.empty((self.K, self.V), np.float32)
        with self._lock:
            _check(_lib.lib.sq_codec_decode(self.handle, _p(p), p.size, _p(X)))
        return X

    def close(self):
        if getattr(self, "_h", None) is not None:
            _lib.lib.sq_codec_close(self._h)
            self._h = None
        self._plan = None


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
    if not isinstance(P, (list, tuple)) and not _is_torch(P) and np.ndim(P) == 0:
        raise ValueError("the packed bytes must be uint8 [bytes] (or a list of them, or uint8 [H, bytes]), not a "
                         "scalar %r (%s)" % (P, type(P).__name__))
    if _is_torch(P) and P.dim() == 0:
        raise ValueError("the packed bytes must be uint8 [bytes], not a 0-d tensor")
    one = not isinstance(P, (list, tuple)) and np.asarray(P).ndim == 1
    ps = [_as_u8(P, "the packed bytes")] if one else [_as_u8(x, "the packed bytes of head %d" % i)
                                                      for i, x in enumerate(P)]
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

class _Stepped(_Handle):
    """what the two sessions share: the handle, one call at a time, formats by name or index, and
    the shapes of a step's inputs"""

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the session (%s, %d heads of %d x %d) is closed" % (self.kind, self.H, self.K, self.V))
        return self._h

    def _call(self, fn, *args):
        with self._lock:
            _check(fn(self.handle, *args))

    def _f(self, f):
        if f is None:
            return -1
        if isinstance(f, str):
            if f not in self.formats:
                raise ValueError("format %r is not one of this session's %s" % (f, self.formats))
            return self.formats.index(f)
        return _int(f, "format index", 0, max(len(self.formats) - 1, 0)) if self.formats else \
            _int(f, "format index (this session has no formats)", 0, -1)

    def _begin(self, kind, K, V, n_heads, formats, scale):
        """what both sessions take first, checked and kept: the heads and the formats; returns the
        format names as C strings"""
        self._lock = threading.Lock()  # one call at a time: threads take turns (libstepq refuses a race)
        self.kind = kind
        self.K, self.V, self.H = _int(K, "K", 1), _int(V, "V", 1), _int(n_heads, "n_heads", 1)
        if isinstance(formats, (str, bytes)):
            raise ValueError("formats must be a list of format names, not the string %r" % (formats,))
        self.formats = [str(f) for f in formats]
        cnames = [_cstr(f, "the format name") for f in formats]
        self.G = self.K if _kind(kind) == 1 else 1
        if scale is not None and not (isinstance(scale, (int, float, np.floating, np.integer))
                                      and not isinstance(scale, bool) and np.isfinite(scale) and scale > 0):
            raise ValueError("scale is %r; it must be a finite number > 0 (None: 1/sqrt(K))" % (scale,))
        return (ctypes.c_char_p * max(len(cnames), 1))(*cnames)

    def close(self):
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._h is not None:
                getattr(_lib.lib, self._CLOSE)(self._h)
                self._h = None
            self._closed()

    def _closed(self):
        """what the session holds beside its handle, let go as it closes"""

    def _shaped(self, a):
        """a step's q, k, v, g, beta (numpy arrays or tensors) checked against the heads: q, k
        [H, K], v [H, V], g [H, G] (any shape of H G values), beta [H]; g and beta reshaped"""
        H, K, V, G = self.H, self.K, self.V, self.G
        q, k, v, g, beta = a
        for x, what, shape in ((q, "q", (H, K)), (k, "k", (H, K)), (v, "v", (H, V))):
            if tuple(x.shape) != shape:
                raise ValueError("%s has shape %s, expected %s" % (what, tuple(x.shape), shape))
        n = int(np.prod(tuple(g.shape)))
        if n % H:  # not a whole number of gates per head (else named below, per head)
            raise ValueError("g has %d values (shape %s); %d %s heads of %d key rows take %d (g [H%s])"
                             % (n, tuple(g.shape), H, self.kind, K, H * G, "" if G == 1 else ", K"))
        if n // H != G:
            raise ValueError("g has %d gates per head; %s heads of %d key rows take %d" % (n // H, self.kind, K, G))
        if int(np.prod(tuple(beta.shape))) != H:
            raise ValueError("beta has %d entries for %d heads" % (int(np.prod(tuple(beta.shape))), H))
        return [q, k, v, g.reshape(H, G), beta.reshape(H)]


class Session(_Stepped):
    """The decode-step protocol stepped from outside (method 2, 6.10): n_heads heads of kind and
    K x V, a float32 reference and one quantized path per format, fed one step at a time.

    The first `prefill` steps run at native precision; the step that ends the prefill encodes
    each format's boundary state; every later step is a decode step. step() takes q, k [H, K]
    (L2-normalised, q unscaled), v [H, V], g [H] or [H, 1] (GDN) or [H, K] (KDA) log decays and
    beta [H]; afterwards readout(f), state(f) and errors(f) read format f (an index or a name;
    None: the reference). backend names who steps the states (None: "cpu", the widest
    instruction set this CPU runs; "reference", "x86-64-v2", "avx2", "avx512"): every one gives
    the same numbers, bit for bit."""

    _h = None
    _CLOSE = "sq_session_close"

    def __init__(self, kind, K, V, n_heads, formats=(), plan=None, plan_heads=None, prefill=0, S0=None,
                 scale=None, keep_states=False, backend=None):
        names = self._begin(kind, K, V, n_heads, formats, scale)
        cbackend = None if backend is None else _cstr(backend, "the backend name")
        prefill = _int(prefill, "prefill", 0, ctype="long")
        ph = None
        if plan_heads is not None:
            if len(plan_heads) != self.H:
                raise ValueError("plan_heads has %d entries for %d heads" % (len(plan_heads), self.H))
            ph = (ctypes.c_int * self.H)(*[_int(i, "plan_heads[%d]" % j, 0) for j, i in enumerate(plan_heads)])
        self._plan, self._opened = _plan_of(plan)
        s0 = None
        if S0 is not None:
            self._S0 = _as_f32(S0, "S0", (self.H, self.K, self.V))
            s0 = self._S0.ctypes.data
        cfg = _lib.SessionConfig(kind=_kind(kind), K=self.K, V=self.V, scale=0.0 if scale is None else float(scale),
                                 n_heads=self.H, formats=names, n_formats=len(self.formats),
                                 plan=self._plan.handle if self._plan is not None else None,
                                 plan_heads=ph, prefill=prefill, S0=s0, keep_states=int(bool(keep_states)),
                                 backend=cbackend)
        h = ctypes.c_void_p()
        try:
            _check(_lib.lib.sq_session_open(ctypes.byref(cfg), ctypes.byref(h)))
        except BaseException:
            self.close()
            raise
        self._h = h

    def step(self, q, k, v, g, beta):
        a = [_as_f32(q, "q"), _as_f32(k, "k"), _as_f32(v, "v"), _as_f32(g, "g"), _as_f32(beta, "beta")]
        self._call(_lib.lib.sq_session_step, *[_p(x) for x in self._shaped(a)])

    @property
    def steps(self):
        with self._lock:
            return _lib.lib.sq_session_steps(self.handle)

    def readout(self, f=None):
        """y [H, V] of format f after the last step (None: the float32 reference)"""
        y = np.empty((self.H, self.V), np.float32)
        self._call(_lib.lib.sq_session_readout, self._f(f), _p(y))
        return y

    def state(self, f=None):
        """S [H, K, V]: the reference state (None), or format f's S_hat_t (keep_states=True)"""
        S = np.empty((self.H, self.K, self.V), np.float32)
        self._call(_lib.lib.sq_session_state, self._f(f), _p(S))
        return S

    def errors(self, f):
        """(err2, hat2, ref2), each [H] float64: ||S_hat_t - S_t||_F^2, ||S_hat_t||_F^2, ||S_t||_F^2"""
        e, a, r = (np.empty(self.H) for _ in range(3))
        if f is None:
            raise ValueError("errors are a format's: give a format (a name or an index), not None")
        self._call(_lib.lib.sq_session_errors, self._f(f), _p(e), _p(a), _p(r))
        return e, a, r

    def packed(self, f, h):
        """the bytes format f stores for head h after the last step (uint8)"""
        if f is None:
            raise ValueError("packed bytes are a format's: give a format (a name or an index), not None")
        fi, h = self._f(f), _int(h, "head", 0, self.H - 1)
        with self._lock:
            n = _lib.lib.sq_session_bytes(self.handle, fi, h)
        P = np.empty(max(n, 1), np.uint8)
        self._call(_lib.lib.sq_session_packed, fi, h, _p(P), n)
        return P[:n]

    def _closed(self):
        if getattr(self, "_opened", False) and self._plan is not None:
            self._plan.close()
            self._opened = False



# ---- device sessions ----------------------------------------------------------------------------

_OPENS = {}


def _opens(fmt, backend):
    """whether libstepq opens a one-head device session of format fmt on backend (asked once a
    process: the one place its answers to these two questions come from)"""
    key = (str(fmt), backend)
    if key not in _OPENS:
        names = (ctypes.c_char_p * 1)(_cstr(fmt, "the format name"))
        cfg = _lib.DSessionConfig(kind=0, K=128, V=128, n_heads=1, formats=names, n_formats=1, bin=1,
                                  backend=backend.encode())
        h = ctypes.c_void_p()
        _OPENS[key] = _lib.lib.sq_dsession_open(ctypes.byref(cfg), ctypes.byref(h)) == 0
        _lib.lib.sq_dsession_close(h)
    return _OPENS[key]


def device_takes(fmt):
    """whether a DeviceSession steps format fmt (the lane kernels' formats: fp32, int8, int6, int4)"""
    return _opens(fmt, "host")


def device_backend():
    """the backend a DeviceSession takes by default: "cuda" where libstepq has one and a device
    is there, else "host" (the CPU)"""
    return "cuda" if _opens("fp32", "cuda") else "host"


class DeviceSession(_Stepped):
    """The decode-step protocol in the memory the model runs in (include/stepq.h sq_dsession_*,
    method 6.11): Session's protocol and numbers for the lane kernels' formats (fp32, int8, int6,
    int4) on 128 x 128 heads, with the packed states, the float32 reference and the measurements
    kept in that memory and the measurements read back when asked, per bin of `bin` decode steps
    (n_bins of them; 0: nothing measured).

    backend "cuda": the arrays are contiguous float32 CUDA torch tensors, passed by data_ptr, and
    every call is queued on torch's current stream at opening, without waiting; "host" (the
    default where libstepq has no GPU backend): numpy arrays or CPU tensors, and the numbers are
    the CPU Session's, bit for bit. step(q, k, v, g, beta) takes Session.step's shapes;
    readout(f, out) and state(f, out) write format f's (None: the reference's) into out (made
    where None); errors(f) waits and returns (state_rel [n_bins, H], readout_rel [n_bins, H],
    steps [n_bins]): the bins' mean relative errors (NaN in a bin no step reached) and steps."""

    _h = None
    _CLOSE = "sq_dsession_close"

    def __init__(self, kind, K, V, n_heads, formats, prefill=0, S0=None, scale=None, bin=1, n_bins=0,
                 backend=None):
        names = self._begin(kind, K, V, n_heads, formats, scale)
        self.backend = device_backend() if backend is None else str(backend)
        self.device, stream = None, None
        if self.backend == "cuda" and _opens("fp32", "cuda"):  # (else libstepq refuses it, saying why)
            import torch
            self.device = S0.device if _is_torch(S0) else torch.device("cuda", torch.cuda.current_device())
            stream = torch.cuda.current_stream(self.device).cuda_stream
        self._S0 = None if S0 is None else self._in(S0, "S0", (self.H, self.K, self.V))
        self.n_bins = _int(n_bins, "n_bins", 0)
        cfg = _lib.DSessionConfig(kind=_kind(kind), K=self.K, V=self.V, scale=0.0 if scale is None else float(scale),
                                  n_heads=self.H, formats=names, n_formats=len(self.formats),
                                  prefill=_int(prefill, "prefill", 0, ctype="long"),
                                  S0=None if self._S0 is None else self._S0[1], bin=_int(bin, "bin", 1),
                                  n_bins=self.n_bins, backend=_cstr(self.backend, "the backend name"),
                                  stream=stream)
        h = ctypes.c_void_p()
        _check(_lib.lib.sq_dsession_open(ctypes.byref(cfg), ctypes.byref(h)))
        self._h = h

    def _in(self, x, what, shape=None):
        """(x as the session's memory holds it, kept alive while used; its address)"""
        if self.backend != "cuda":
            a = _as_f32(x, what, shape)
            return a, a.ctypes.data
        if not _is_torch(x) or x.device.type != "cuda":
            raise ValueError("%s: a cuda device session takes CUDA torch tensors, not %s" % (what, type(x).__name__
                             if not _is_torch(x) else "a tensor on %s" % x.device))
        x = x.detach().to(dtype=__import__("torch").float32).contiguous()
        if shape is not None and tuple(x.shape) != shape:
            raise ValueError("%s has shape %s, expected %s" % (what, tuple(x.shape), shape))
        return x, x.data_ptr()

    def _out(self, out, what, shape):
        """(the array a read writes into: out, or a new one in the session's memory; its address)"""
        if out is None:
            if self.backend == "cuda":
                import torch
                out = torch.empty(shape, dtype=torch.float32, device=self.device)
            else:
                out = np.empty(shape, np.float32)
        if _is_torch(out):
            import torch
            where = "cuda" if self.backend == "cuda" else "cpu"
            if out.dtype != torch.float32 or not out.is_contiguous() or out.device.type != where or \
                    tuple(out.shape) != shape:
                raise ValueError("%s must be a contiguous float32 tensor of shape %s on %s, not %s %s on %s"
                                 % (what, shape, where, out.dtype, tuple(out.shape), out.device))
            return out, out.data_ptr()
        if self.backend == "cuda" or not isinstance(out, np.ndarray) or out.dtype != np.float32 or \
                not out.flags.c_contiguous or out.shape != shape:
            raise ValueError("%s must be a C-contiguous float32 array of shape %s%s" % (what, shape,
                             " (a CUDA tensor: the session is on the GPU)" if self.backend == "cuda" else ""))
        return out, out.ctypes.data

    def step(self, q, k, v, g, beta):
        a = [self._in(x, n) for x, n in zip((q, k, v, g, beta), ("q", "k", "v", "g", "beta"))]
        self._shaped([x for x, _ in a])  # the shapes checked: g and beta as any shape of their values
        self._call(_lib.lib.sq_dsession_step, *[ctypes.c_void_p(p) for _, p in a])

    @property
    def steps(self):
        with self._lock:
            return _lib.lib.sq_dsession_steps(self.handle)

    def readout(self, f=None, out=None):
        """y [H, V] of format f after the last decode step (None: the float32 reference), into out"""
        y, p = self._out(out, "out", (self.H, self.V))
        self._call(_lib.lib.sq_dsession_readout, self._f(f), ctypes.c_void_p(p))
        return y

    def state(self, f=None, out=None):
        """S [H, K, V] of format f after the last decode step (None: the reference), into out"""
        S, p = self._out(out, "out", (self.H, self.K, self.V))
        self._call(_lib.lib.sq_dsession_state, self._f(f), ctypes.c_void_p(p))
        return S

    def sync(self):
        """waits for the queued steps; StepqError with a step's failure if one failed"""
        self._call(_lib.lib.sq_dsession_sync)

    def errors(self, f):
        """(state_rel [n_bins, H], readout_rel [n_bins, H], steps [n_bins]) of format f, after waiting"""
        if f is None:
            raise ValueError("errors are a format's: give a format (a name or an index), not None")
        nb = max(self.n_bins, 1)
        e, r = np.empty((nb, self.H)), np.empty((nb, self.H))
        n = np.empty(nb, np.int64 if ctypes.sizeof(ctypes.c_long) == 8 else np.int32)
        self._call(_lib.lib.sq_dsession_errors, self._f(f), _p(e), _p(r), _p(n))
        return e, r, n



# ---- trace files ------------------------------------------------------------------------------

class TraceWriter(_Handle):
    """A trace file (method 6.1) written as it comes, by libstepq: the layout every stepq reader
    takes, each appended value held to the reader's rules, written beside `path` and renamed into
    place by close() (commit); abandon() or a failure leaves nothing. kind 'gdn' or 'kda'; H q/k
    heads and HV value heads of K x V; scale (None: 1/sqrt(K)); qk_norm_eps (0: q and k exactly
    normalised); weights_sha256 binds plans calibrated on the trace to that model; layer, head:
    the model's labels of the HV value heads; with_y: the model's own read-outs too."""

    _h = None

    def __init__(self, path, kind, H, HV, K, V, scale=None, qk_norm_eps=0.0, weights_sha256=None, layer=None,
                 head=None, with_y=False):
        self._lock = threading.Lock()
        self.path = str(path)
        self.kind, self.H, self.HV = kind, _int(H, "H", 1), _int(HV, "HV", 1)
        self.K, self.V = _int(K, "K", 1), _int(V, "V", 1)
        self.G = self.K if _kind(kind) == 1 else 1
        self.with_y = bool(with_y)
        labels = []
        for name, x in (("layer", layer), ("head", head)):
            if x is None:
                labels.append(None)
                continue
            if len(x) != self.HV:
                raise ValueError("%s has %d labels for %d value heads" % (name, len(x), self.HV))
            labels.append((ctypes.c_int * self.HV)(*[_int(i, name, -2**31) for i in x]))
        self._labels = labels  # kept alive for the call (libstepq copies them)
        cfg = _lib.TraceConfig(kind=_kind(kind), H=self.H, HV=self.HV, K=self.K, V=self.V,
                               scale=0.0 if scale is None else float(scale), qk_norm_eps=float(qk_norm_eps),
                               weights_sha256=None if weights_sha256 is None else _cstr(weights_sha256, "weights_sha256"),
                               layer=labels[0], head=labels[1], with_y=int(self.with_y))
        h = ctypes.c_void_p()
        _check(_lib.lib.sq_trace_open(_cstr(path, "the trace path"), ctypes.byref(cfg), ctypes.byref(h)))
        self._h = h

    @property
    def handle(self):
        if self._h is None:
            raise ValueError("the trace %s is closed" % self.path)
        return self._h

    def attr(self, name, value):
        """a root attribute: a string or an integer"""
        with self._lock:
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                _check(_lib.lib.sq_trace_attr_int(self.handle, _cstr(name, "the attribute name"),
                                                  _int(value, name, -2**63, ctype="long")))
            else:
                _check(_lib.lib.sq_trace_attr(self.handle, _cstr(name, "the attribute name"),
                                              _cstr(str(value), "attribute " + str(name))))

    def append(self, q, k, v, g, beta, y=None):
        """n steps: q, k [n, H, K], v [n, HV, V], g [n, HV] (GDN) or [n, HV, K] (KDA), beta [n, HV],
        y [n, HV, V] where the trace has read-outs"""
        qa = _as_f32(q, "q")
        n = qa.shape[0] if qa.ndim == 3 else -1
        a = [_as_f32(q, "q", (n, self.H, self.K)), _as_f32(k, "k", (n, self.H, self.K)),
             _as_f32(v, "v", (n, self.HV, self.V)),
             _as_f32(g, "g", (n, self.HV) if self.G == 1 else (n, self.HV, self.K)),
             _as_f32(beta, "beta", (n, self.HV))]
        if self.with_y:
            if y is None:
                raise ValueError("the trace holds read-outs: append y [n, HV, V] too")
            a.append(_as_f32(y, "y", (n, self.HV, self.V)))
        elif y is not None:
            raise ValueError("y given, but the trace %s was opened without read-outs (with_y=False): they would be "
                             "dropped" % self.path)
        ptr = [_p(x) for x in a] + ([None] if not self.with_y else [])
        with self._lock:
            _check(_lib.lib.sq_trace_append(self.handle, n, *ptr))

    @property
    def steps(self):
        with self._lock:
            return _lib.lib.sq_trace_steps(self.handle)

    def close(self, commit=True):
        """commit: the file into place (StepqError naming the reason if that fails); else abandoned"""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._h is not None:
                h, self._h = self._h, None
                _check(_lib.lib.sq_trace_close(h, int(bool(commit))))

    def abandon(self):
        self.close(commit=False)

    def __exit__(self, exc_type, *exc):
        self.close(commit=exc_type is None)

    def __del__(self):
        if getattr(self, "_h", None) is not None:
            self.close(commit=False)


# ---- calibration ----------------------------------------------------------------------------------

# the settings of sq_calibrate_config: (name, kind, C range) where the C type is narrower than the
# value libstepq checks (an int field), so that nothing is cut before libstepq sees it
_CALIBRATE_KNOBS = {"steps": ("int", "long"), "horizon": ("real", None), "gamma": ("real", None),
                    "rho": ("real", None), "refits": ("int", "int"), "snapshot_every": ("int", "int"),
                    "reservoir": ("int", "int"), "pivots": ("int", "long"), "pivot_fraction": ("real", None),
                    "damp_fraction": ("real", None), "seed": ("int", "long"), "normalize": ("bool", None)}


def calibrate_defaults():
    """the settings stepq.calibrate takes and their defaults (libstepq's sq_calibrate_defaults: those
    of `stepq calibrate --trace`; steps 0 is every step of the shortest trace)"""
    cfg = _lib.CalibrateConfig()
    _check(_lib.lib.sq_calibrate_defaults(ctypes.byref(cfg)))
    return {name: (bool(getattr(cfg, name)) if kind == "bool" else getattr(cfg, name))
            for name, (kind, _) in _CALIBRATE_KNOBS.items()}


def calibrate(traces, out, progress=False, names=None, **settings):
    """Calibrates a plan on trace files (method 4.1, 4.3), one segment each, and writes it to out
    (beside it, renamed into place): libstepq's sq_calibrate, the calibration of `stepq calibrate
    --trace traces... --out out`, whose plan it equals for the same settings. traces: a path or a
    list of them (`python -m stepq.hf capture` and `stepq trace` write them), all of one model.
    settings: any of calibrate_defaults()'s (steps, horizon, gamma, rho, refits, snapshot_every,
    reservoir, pivots, pivot_fraction, damp_fraction, seed, normalize); libstepq checks their
    ranges and the inputs before any work (StepqError naming the setting or file). progress: the
    command line's progress lines on stderr. names: how a front end's user names the settings, for
    libstepq's messages (sq_calibrate_names): {"caller": ..., setting: name} (say {"snapshot_every":
    "--snapshot-every"}); by default "stepq.calibrate" and the keywords. Returns out."""
    import os
    if isinstance(traces, (str, bytes, os.PathLike)):
        traces = [traces]
    traces = list(traces)
    if not traces:
        raise ValueError("traces is empty: give one or more trace files")
    cfg = _lib.CalibrateConfig()
    _check(_lib.lib.sq_calibrate_defaults(ctypes.byref(cfg)))
    for name, value in settings.items():
        if name not in _CALIBRATE_KNOBS:
            raise ValueError("stepq.calibrate has no setting %r (it takes %s)" % (name, ", ".join(_CALIBRATE_KNOBS)))
        kind, ctype = _CALIBRATE_KNOBS[name]
        if kind == "int":
            value = _int(value, name, -2**63 if ctype == "long" else -2**31, ctype=ctype)
        elif kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError("%s must be True or False, not %r" % (name, value))
            value = int(bool(value))
        else:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError("%s must be a number, not %r (%s)" % (name, value, type(value).__name__))
            value = float(value)
        setattr(cfg, name, value)
    cfg.progress = int(bool(progress))
    named = _lib.CalibrateNames(caller=b"stepq.calibrate")
    for name, value in (names or {}).items():
        if name != "caller" and name not in _CALIBRATE_KNOBS or name == "normalize":
            raise ValueError("stepq.calibrate: names has no setting %r (it names caller, %s)"
                             % (name, ", ".join(n for n in _CALIBRATE_KNOBS if n != "normalize")))
        setattr(named, name, _cstr(value, "names[%r]" % name))
    cfg.names = ctypes.pointer(named)
    paths = (ctypes.c_char_p * len(traces))(*[_cstr(t, "trace %d" % i) for i, t in enumerate(traces)])
    _check(_lib.lib.sq_calibrate(ctypes.byref(cfg), paths, len(traces), _cstr(out, "out")))
    return os.fspath(out) if not isinstance(out, bytes) else out


def mean_ci95(x):
    """(mean, half-width of the 95% confidence interval) of the values x: Student's t, as every
    stepq result reports them (NaN half-width for fewer than 2 values)"""
    a = np.ascontiguousarray(np.asarray(x, dtype=np.float64).reshape(-1))
    m, h = ctypes.c_double(), ctypes.c_double()
    _check(_lib.lib.sq_mean_ci95(_p(a), a.size, ctypes.byref(m), ctypes.byref(h)))
    return m.value, h.value
