"""The ctypes binding of libstepq (include/stepq.h): the library found and loaded, and every
function of the header declared once, with its argument and result types.

ctypes, not cffi: the header is a few dozen functions of plain ints, doubles and pointers, so
declaring them here costs less than a second dependency, and the package then needs nothing but
numpy. tests/python/test_binding.py checks these declarations against the header.
"""
import ctypes
import os
from ctypes import POINTER, c_char_p, c_double, c_int, c_int64, c_long, c_size_t, c_uint8, c_void_p

here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("STEPQ_LIBRARY")
    if env:
        return [env]  # the user's choice alone: a wrong path is an error, not a fallback
    names = ["libstepq.so.0", "libstepq.so"]
    # the wheel's copy beside this file, then a source tree's Release build (python/stepq -> build/)
    tree = os.path.join(here, "..", "..", "build")
    return [os.path.join(d, n) for d in (here, tree) for n in names]


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(path), path
        tried.append(path)
    raise ImportError("stepq: libstepq not found (tried %s). Install the package with `pip install .` "
                      "from a clone, or build it (./stepq formats) and import from the clone, or set "
                      "STEPQ_LIBRARY to the library's path" % ", ".join(tried))


lib, path = _load()


class FormatInfo(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("summary", c_char_p), ("family", c_char_p),
                ("nominal_bits", c_double), ("needs_plan", c_int), ("v_multiple", c_int),
                ("v_pow2", c_int), ("replay", c_int)]


class PlanInfo(ctypes.Structure):
    _fields_ = [("kind", c_int), ("K", c_int), ("V", c_int), ("n_heads", c_int),
                ("file", c_char_p), ("calibration_key", c_char_p), ("model_sha256", c_char_p)]


class SessionConfig(ctypes.Structure):
    _fields_ = [("kind", c_int), ("K", c_int), ("V", c_int), ("scale", c_double),
                ("n_heads", c_int), ("formats", POINTER(c_char_p)), ("n_formats", c_int),
                ("plan", c_void_p), ("plan_heads", POINTER(c_int)), ("prefill", c_long),
                ("S0", c_void_p), ("keep_states", c_int), ("backend", c_char_p)]


class DSessionConfig(ctypes.Structure):
    _fields_ = [("kind", c_int), ("K", c_int), ("V", c_int), ("scale", c_double),
                ("n_heads", c_int), ("formats", POINTER(c_char_p)), ("n_formats", c_int),
                ("prefill", c_long), ("S0", c_void_p), ("bin", c_int), ("n_bins", c_int),
                ("backend", c_char_p), ("stream", c_void_p)]


class TraceConfig(ctypes.Structure):
    _fields_ = [("kind", c_int), ("H", c_int), ("HV", c_int), ("K", c_int), ("V", c_int), ("scale", c_double),
                ("qk_norm_eps", c_double), ("weights_sha256", c_char_p), ("layer", POINTER(c_int)),
                ("head", POINTER(c_int)), ("with_y", c_int)]


class CalibrateNames(ctypes.Structure):
    _fields_ = [("caller", c_char_p)] + [(name, c_char_p) for name in (
        "steps", "horizon", "gamma", "rho", "refits", "snapshot_every", "reservoir", "pivots", "pivot_fraction",
        "damp_fraction", "seed")]


class CalibrateConfig(ctypes.Structure):
    _fields_ = [("steps", c_long), ("horizon", c_double), ("gamma", c_double), ("rho", c_double),
                ("refits", c_int), ("snapshot_every", c_int), ("reservoir", c_int), ("pivots", c_long),
                ("pivot_fraction", c_double), ("damp_fraction", c_double), ("seed", c_int64),
                ("normalize", c_int), ("progress", c_int), ("names", POINTER(CalibrateNames))]


F32P = c_void_p  # float* from numpy's .ctypes.data
U8P = c_void_p
F64P = c_void_p
IP = POINTER(c_int)

# name: (result, [arguments]) for every function of include/stepq.h
SIGNATURES = {
    "sq_version": (c_int, []),
    "sq_build_info": (c_char_p, []),
    "sq_last_error": (c_char_p, []),
    "sq_status_name": (c_char_p, [c_int]),
    "sq_format_count": (c_int, []),
    "sq_format_get": (c_int, [c_int, POINTER(FormatInfo)]),
    "sq_format_find": (c_int, [c_char_p, IP]),
    "sq_plan_open": (c_int, [c_char_p, POINTER(c_void_p)]),
    "sq_plan_close": (None, [c_void_p]),
    "sq_plan_get_info": (c_int, [c_void_p, POINTER(PlanInfo)]),
    "sq_plan_head": (c_int, [c_void_p, c_int, IP, IP]),
    "sq_plan_find": (c_int, [c_void_p, c_int, c_int, IP]),
    "sq_plan_check": (c_int, [c_void_p, c_int, c_int, c_int, c_int, IP, IP]),
    "sq_codec_open": (c_int, [c_char_p, c_void_p, c_int, c_int, c_int, c_int, POINTER(c_void_p)]),
    "sq_codec_close": (None, [c_void_p]),
    "sq_codec_bytes": (c_size_t, [c_void_p]),
    "sq_codec_bits": (c_double, [c_void_p]),
    "sq_codec_encode": (c_int, [c_void_p, F32P, U8P, c_size_t]),
    "sq_codec_decode": (c_int, [c_void_p, U8P, c_size_t, F32P]),
    "sq_session_open": (c_int, [POINTER(SessionConfig), POINTER(c_void_p)]),
    "sq_session_close": (None, [c_void_p]),
    "sq_session_step": (c_int, [c_void_p, F32P, F32P, F32P, F32P, F32P]),
    "sq_session_steps": (c_long, [c_void_p]),
    "sq_session_readout": (c_int, [c_void_p, c_int, F32P]),
    "sq_session_state": (c_int, [c_void_p, c_int, F32P]),
    "sq_session_errors": (c_int, [c_void_p, c_int, F64P, F64P, F64P]),
    "sq_session_bytes": (c_size_t, [c_void_p, c_int, c_int]),
    "sq_session_packed": (c_int, [c_void_p, c_int, c_int, U8P, c_size_t]),
    "sq_dsession_open": (c_int, [POINTER(DSessionConfig), POINTER(c_void_p)]),
    "sq_dsession_close": (None, [c_void_p]),
    "sq_dsession_backend": (c_char_p, [c_void_p]),
    "sq_dsession_step": (c_int, [c_void_p, F32P, F32P, F32P, F32P, F32P]),
    "sq_dsession_steps": (c_long, [c_void_p]),
    "sq_dsession_readout": (c_int, [c_void_p, c_int, F32P]),
    "sq_dsession_state": (c_int, [c_void_p, c_int, F32P]),
    "sq_dsession_sync": (c_int, [c_void_p]),
    "sq_dsession_errors": (c_int, [c_void_p, c_int, F64P, F64P, c_void_p]),
    "sq_trace_open": (c_int, [c_char_p, POINTER(TraceConfig), POINTER(c_void_p)]),
    "sq_trace_attr": (c_int, [c_void_p, c_char_p, c_char_p]),
    "sq_trace_attr_int": (c_int, [c_void_p, c_char_p, c_long]),
    "sq_trace_append": (c_int, [c_void_p, c_long, F32P, F32P, F32P, F32P, F32P, F32P]),
    "sq_trace_steps": (c_long, [c_void_p]),
    "sq_trace_close": (c_int, [c_void_p, c_int]),
    "sq_calibrate_defaults": (c_int, [POINTER(CalibrateConfig)]),
    "sq_calibrate": (c_int, [POINTER(CalibrateConfig), POINTER(c_char_p), c_int, c_char_p]),
    "sq_mean_ci95": (c_int, [F64P, c_int, POINTER(c_double), POINTER(c_double)]),
}

for _name, (_res, _args) in SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

HEADER_MAJOR = 0  # the SQ_VERSION_MAJOR this binding was written for
if lib.sq_version() // 10000 != HEADER_MAJOR:
    raise ImportError("stepq: %s is libstepq %d, this package binds version %d.x" %
                      (path, lib.sq_version(), HEADER_MAJOR))
