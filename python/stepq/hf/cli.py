"""What the commands of `python -m stepq.hf` share (method 7.4): inputs checked before any work
(a model directory, texts, a plan), outputs written atomically and never over an input, the
model loaded and checked, a progress line. capture.py and eval.py import it; it imports neither,
and nothing imports __main__.

Every refusal is an AdapterError whose message names the option or file and what is wrong;
__main__ prints it as the one line `stepq.hf: error: ...` (the command line's rules, docs/testing.md,
"What is checked")."""
import argparse
import json
import math
import os
import re
import stat
import struct
import sys
import tempfile
import time

from . import ADAPTERS, SUPPORTED_FLA, AdapterError, check_adapter

TEXT_LIMIT = 1 << 30        # a text is read to at most 1 GiB, as the C command line reads one
CONFIG_LIMIT = 16 << 20     # config.json, as the C side reads it
HEADER_LIMIT = 100 << 20    # a safetensors header (safetensors' own limit)
ST_ITEMSIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8, "U32": 4,
               "U16": 2, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


# ---- inputs ---------------------------------------------------------------------------------------

def _kind_of(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def regular_file(path, what):
    """os.stat of path (links followed), which must be a regular file"""
    try:
        st = os.stat(path)
    except OSError as e:
        raise AdapterError("%s %s: %s" % (what, path, e.strerror)) from None
    if not stat.S_ISREG(st.st_mode):
        raise AdapterError("%s %s is %s, not a regular file" % (what, path, _kind_of(st.st_mode)))
    return st


def read_bytes(path, what, limit):
    """the bytes of a regular file of at most limit bytes"""
    st = regular_file(path, what)
    if st.st_size > limit:
        raise AdapterError("%s %s holds %d bytes; stepq.hf reads at most %d" % (what, path, st.st_size, limit))
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise AdapterError("%s %s: %s" % (what, path, e.strerror)) from None
    if len(data) > limit:
        raise AdapterError("%s %s holds more than %d bytes; stepq.hf reads at most that" % (what, path, limit))
    return data


def check_safetensors(path):
    """the header of a safetensors file against the file: a JSON object of tensors with known
    dtypes, whose byte ranges lie in the file, match their shapes and do not overlap"""
    st = regular_file(path, "--model's weights")
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise AdapterError("%s: %d bytes, too short for a safetensors file" % (path, st.st_size))
        n = struct.unpack("<Q", head)[0]
        if n > HEADER_LIMIT or 8 + n > st.st_size:
            raise AdapterError("%s: its header claims %d bytes, the file holds %d (cut short, or not safetensors)"
                               % (path, n, st.st_size))
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise AdapterError("%s: the header is not JSON (%s)" % (path, e)) from None
    if not isinstance(header, dict):
        raise AdapterError("%s: the header is a JSON %s, not an object of tensors" % (path, type(header).__name__))
    data = st.st_size - 8 - n
    spans = []
    for name, t in header.items():
        if name == "__metadata__":
            continue
        ok = isinstance(t, dict) and t.get("dtype") in ST_ITEMSIZE and isinstance(t.get("shape"), list) \
            and all(isinstance(d, int) and d >= 0 for d in t["shape"]) and isinstance(t.get("data_offsets"), list) \
            and len(t["data_offsets"]) == 2 and all(isinstance(o, int) for o in t["data_offsets"])
        if not ok:
            raise AdapterError("%s: tensor '%s' is not described by a known dtype, a shape and two data offsets: %s"
                               % (path, name, json.dumps(t)[:200]))
        a, b = t["data_offsets"]
        need = math.prod(t["shape"]) * ST_ITEMSIZE[t["dtype"]]
        if not 0 <= a <= b <= data:
            raise AdapterError("%s: tensor '%s' lies at bytes [%d, %d) of a data section of %d (cut short?)"
                               % (path, name, a, b, data))
        if b - a != need:
            raise AdapterError("%s: tensor '%s' (%s %s) needs %d bytes; its offsets give %d"
                               % (path, name, t["dtype"], t["shape"], need, b - a))
        if b > a:
            spans.append((a, b, name))
    spans.sort()
    for (a0, b0, n0), (a1, b1, n1) in zip(spans, spans[1:]):
        if a1 < b0:
            raise AdapterError("%s: tensors '%s' and '%s' overlap in the data" % (path, n0, n1))


def check_model_dir(path):
    """a model directory stepq.hf can load: config.json (a JSON object of a supported model_type)
    and weights whose safetensors headers hold; returns the config"""
    if not os.path.isdir(path):
        raise AdapterError("--model %s: %s" % (path, "not a directory (a model directory, save_pretrained's)"
                                               if os.path.exists(path) else "No such file or directory"))
    cpath = os.path.join(path, "config.json")
    if not os.path.lexists(cpath):
        raise AdapterError("%s: no config.json: --model takes a model directory (save_pretrained's)" % path)
    raw = read_bytes(cpath, "--model's config", CONFIG_LIMIT)
    try:
        cfg = json.loads(raw)
    except ValueError as e:
        raise AdapterError("%s: not JSON (%s)" % (cpath, e)) from None
    if not isinstance(cfg, dict):
        raise AdapterError("%s holds a JSON %s, not an object of settings" % (cpath, type(cfg).__name__))
    types = [cfg.get("model_type"), (cfg.get("text_config") or {}).get("model_type")
             if isinstance(cfg.get("text_config"), dict) else None]
    if not any(t in ADAPTERS for t in types):
        raise AdapterError("%s: model_type %r has no stepq adapter (supported: %s)"
                           % (cpath, cfg.get("model_type"), ", ".join(sorted(ADAPTERS))))
    mt = next(t for t in types if t in ADAPTERS)
    lt = cfg.get("layer_types") or ((cfg.get("text_config") or {}).get("layer_types")
                                    if isinstance(cfg.get("text_config"), dict) else None)
    if ADAPTERS[mt].family == "hf" and isinstance(lt, list) and lt and "full_attention" not in lt:
        import transformers
        from . import linear_only_reason
        raise AdapterError("%s: %s" % (path, linear_only_reason(mt, transformers.__version__)))
    weights = sorted(f for f in os.listdir(path) if f.endswith(".safetensors"))
    if not weights and not any(f.startswith("pytorch_model") and f.endswith(".bin") for f in os.listdir(path)):
        raise AdapterError("%s: no weights (model.safetensors or pytorch_model.bin)" % path)
    for w in weights:
        check_safetensors(os.path.join(path, w))
    return cfg


def model_files(path):
    """the files of a model directory that a run reads (none may be an output)"""
    try:
        return [os.path.join(path, f) for f in os.listdir(path)]
    except OSError:
        return []


# checkpoint tensors a causal LM leaves unused by design: a multimodal checkpoint's vision tower,
# a multi-token-prediction head (transformers itself ignores some of them per class)
UNUSED_BY_DESIGN = re.compile(r"(^|\.)(visual|vision_tower|vision_model|mtp)\.")


def check_loading_info(path, info):
    """a config that fits its weights: no model weight missing from the checkpoint (transformers
    would initialise it at random), no checkpoint tensor the model leaves unused (but a vision
    tower's or a multi-token-prediction head's), no shape that differs; refused naming a few of
    them and their count"""
    info = info or {}
    problems = []
    for key, what in (("missing_keys", "weights the config's model needs are not in the checkpoint"),
                      ("unexpected_keys", "checkpoint tensors the config's model does not use"),
                      ("mismatched_keys", "checkpoint tensors of another shape than the config's model's")):
        names = sorted(str(n if isinstance(n, str) else n[0]) for n in (info.get(key) or []))
        if key == "unexpected_keys":
            names = [n for n in names if not UNUSED_BY_DESIGN.search(n)]
        if names:
            problems.append("%d %s (%s%s)" % (len(names), what, ", ".join(names[:3]), ", ..." if len(names) > 3 else ""))
    if problems:
        raise AdapterError("%s: its config.json does not fit its weights: %s" % (path, "; ".join(problems)))


def check_finite(model, path):
    import torch
    for name, t in model.state_dict().items():
        if t.is_floating_point() and not bool(torch.isfinite(t).all()):
            bad = (~torch.isfinite(t)).reshape(-1).nonzero()[0, 0].item()
            raise AdapterError("%s: weight %s holds %s at element %d (a weight must be finite)"
                               % (path, name, t.reshape(-1)[bad].item(), bad))


DTYPES = ("float32", "bfloat16", "float16")
ST_DTYPES = {"F32": "float32", "BF16": "bfloat16", "F16": "float16"}


def checkpoint_dtype(path, cfg=None):
    """the dtype a model directory's weights are stored in, which --dtype defaults to (as
    transformers' dtype="auto"): its config's dtype (torch_dtype in older files; text_config's in
    a multimodal one) where that is one of DTYPES, else the most of its safetensors tensors'
    floating dtype, else float32"""
    cfg = check_model_dir(path) if cfg is None else cfg
    tc = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    for c in (cfg, tc):
        for key in ("dtype", "torch_dtype"):
            v = c.get(key)
            if isinstance(v, str) and v.replace("torch.", "") in DTYPES:
                return v.replace("torch.", "")
    counts = {}
    for w in sorted(f for f in os.listdir(path) if f.endswith(".safetensors")):
        with open(os.path.join(path, w), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
        for name, t in header.items():
            if name != "__metadata__" and t.get("dtype") in ST_DTYPES:
                counts[ST_DTYPES[t["dtype"]]] = counts.get(ST_DTYPES[t["dtype"]], 0) + 1
    return max(counts, key=lambda k: (counts[k], k)) if counts else "float32"


def check_device(device):
    """the --device a run can use here: cpu; cuda or cuda:N where torch sees that GPU (the model
    runs there in its own kernels, fla's Triton ones among them, hooked by name as on the CPU;
    the quantized states stay in libstepq on the CPU, fed each step); auto (transformers'
    device_map="auto": the model spread over the GPUs and the CPU as it fits). Refused by name
    otherwise, before any work"""
    import importlib.util
    import re
    if device == "cpu":
        return device
    if device == "auto":
        if importlib.util.find_spec("accelerate") is None:
            raise AdapterError("--device auto: transformers places a model with device_map=\"auto\" through "
                               "accelerate, which is not installed (pip install accelerate), or give --device cpu, "
                               "cuda or cuda:N")
        return device
    m = re.fullmatch(r"cuda(?::(\d+))?", str(device))
    if not m:
        raise AdapterError("--device %s: one of cpu, cuda, cuda:N, auto" % (device,))
    import torch
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if n == 0:
        raise AdapterError("--device %s: torch sees no CUDA device here (torch %s, built for CUDA %s); give --device "
                           "cpu" % (device, torch.__version__, torch.version.cuda))
    if m.group(1) is not None and int(m.group(1)) >= n:
        raise AdapterError("--device %s: torch sees %d CUDA device%s (cuda:0%s)" % (device, n, "s" if n > 1 else "",
                                                                                 "" if n == 1 else " to cuda:%d" % (n - 1)))
    return device


def load_model(path, dtype=None, device="cpu"):
    """(model, tokenizer or None): the checked directory loaded by transformers in dtype (float32,
    bfloat16 or float16; None: the checkpoint's own, checkpoint_dtype) on device, every weight
    finite. The adapters read the kernels' inputs in float32 whatever the model's dtype, and the
    reference recurrence stays float32."""
    import torch
    if dtype is None:
        dtype = checkpoint_dtype(path)
    if dtype not in DTYPES:
        raise AdapterError("--dtype %s: one of %s" % (dtype, ", ".join(DTYPES)))
    check_device(device)
    cfg = check_model_dir(path)
    mt = cfg.get("model_type")
    if mt not in ADAPTERS:
        mt = (cfg.get("text_config") or {}).get("model_type")
    if mt in ADAPTERS and ADAPTERS[mt].family == "fla":
        try:
            import fla  # registers fla's models with transformers' Auto classes
        except ImportError:
            raise AdapterError("%s is fla's %s: pip install flash-linear-attention==%s"
                               % (path, mt, SUPPORTED_FLA[-1])) from None
        if fla.__version__ not in SUPPORTED_FLA:
            raise AdapterError("stepq.hf supports flash-linear-attention %s; this is %s"
                               % (", ".join(SUPPORTED_FLA), fla.__version__))
    check_adapter(ADAPTERS[mt])
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # its load report: check_loading_info refuses what it lists, in one line
    try:
        if device == "auto":  # accelerate's placement over the GPUs and the CPU
            model, info = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype), device_map="auto",
                                                               output_loading_info=True)
        else:
            model, info = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype),
                                                               output_loading_info=True)
            model = model.to(device)
        model = model.eval()
    except Exception as e:  # what the checks above could not foresee: transformers' own reason
        raise AdapterError("%s: transformers could not load it: %s" % (path, str(e).strip().split("\n")[0][:500])) \
            from None
    finally:
        hf_logging.set_verbosity(verbosity)
    check_loading_info(path, info)
    check_finite(model, path)
    return model, load_tokenizer(path, model.config.vocab_size)


def load_tokenizer(path, vocab_size=None):
    """the tokenizer of a model directory, or None where it has none (the text is read as bytes,
    which its vocabulary, vocab_size, the config's where not given, must hold)"""
    for f in ("tokenizer.json", "tokenizer_config.json", "tokenizer.model"):
        if os.path.exists(os.path.join(path, f)):
            from transformers import AutoTokenizer
            return AutoTokenizer.from_pretrained(path)
    if vocab_size is None:
        cfg = check_model_dir(path)
        tc = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
        vocab_size = cfg.get("vocab_size", tc.get("vocab_size"))
    if isinstance(vocab_size, int) and vocab_size < 256:
        raise AdapterError("%s has no tokenizer and a vocabulary of %d: it cannot be read as bytes"
                           % (path, vocab_size))
    return None


def check_texts(texts):
    for t in texts:
        st = regular_file(t, "--text")
        if st.st_size > TEXT_LIMIT:
            raise AdapterError("--text %s holds %d bytes; stepq.hf reads at most %d" % (t, st.st_size, TEXT_LIMIT))


def tokens(tok, path, limit=None):
    """the token ids of a text file [1, T] (bytes where there is no tokenizer), at most limit"""
    import torch
    data = read_bytes(path, "--text", TEXT_LIMIT)
    ids = list(data) if tok is None else tok(data.decode("utf-8", errors="replace"))["input_ids"]
    if limit:
        ids = ids[:limit]
    return torch.tensor([ids], dtype=torch.long)


def plot_script(name="nll.gp"):
    """a gnuplot script of stepq's: the installed package's copy (the wheel carries plots/ beside
    the library), else the clone's plots/ (a source tree)"""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for d in (os.path.join(here, "plots"), os.path.join(here, "..", "..", "plots")):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return os.path.normpath(p)
    raise AdapterError("--plot: stepq's %s is in neither %s nor a clone's plots/ (reinstall the package, or give "
                       "--plot SCRIPT)" % (name, os.path.join(here, "plots")))


def int_list(s):
    """'0,2,4-6' -> [0, 2, 4, 5, 6]: at least one index, none negative or given twice"""
    out = []
    for part in s.split(","):
        part = part.strip()
        try:
            if "-" in part[1:]:
                a, b = part.split("-", 1)
                a, b = int(a, 10), int(b, 10)
                if b < a:
                    raise argparse.ArgumentTypeError("the range %s runs backwards" % part)
                out += list(range(a, b + 1))
            elif part:
                out.append(int(part, 10))
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a list of indices like 0,2,4-6" % s) from None
    if not out:
        raise argparse.ArgumentTypeError("an empty list (give indices like 0,2,4-6)")
    if min(out) < 0:
        raise argparse.ArgumentTypeError("index %d is negative" % min(out))
    if len(set(out)) != len(out):
        raise argparse.ArgumentTypeError("%r names an index twice" % s)
    return out


# ---- outputs ----------------------------------------------------------------------------------------

def umask():
    """the process's umask (read by setting it and putting it back, as libstepq's stepq_tmpfile does)"""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


class Output:
    """One output file, checked before any work and written atomically: not a directory or a
    device, not any of the run's inputs, in a directory it can write (a temporary file made there
    at once, <path>.tmp.XXXXXX, proves it, given the permissions a new file gets under the umask,
    0644 under 022, as libstepq's outputs are: mkstemp's are 0600); commit() renames the
    temporary into place, discard() removes it. A write that fails names the system's reason."""

    def __init__(self, path, inputs, what="--out"):
        self.path = str(path)
        if not self.path or self.path.endswith("/"):
            raise AdapterError("%s %r: an output needs a file name" % (what, self.path))
        if os.path.isdir(self.path):
            raise AdapterError("%s %s is a directory (give a file name)" % (what, self.path))
        if os.path.lexists(self.path):
            st = os.stat(self.path) if os.path.exists(self.path) else None
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise AdapterError("cannot write %s: it is %s, and the output would replace it"
                                   % (self.path, _kind_of(st.st_mode)))
        for i in inputs:
            if same_file(self.path, i):
                raise AdapterError("cannot write %s: it is %s, an input of this run, which the output would replace "
                                   "(choose another output path)" % (self.path, i))
        d = os.path.dirname(os.path.abspath(self.path))
        up = d
        while not os.path.exists(up) and os.path.dirname(up) != up:
            up = os.path.dirname(up)
        if not os.path.isdir(up):
            raise AdapterError("cannot write %s: %s is %s, not a directory"
                               % (self.path, up, "a file" if os.path.isfile(up) else _kind_of(os.stat(up).st_mode)))
        try:
            os.makedirs(d, exist_ok=True)
            fd, self.tmp = tempfile.mkstemp(dir=d, prefix=os.path.basename(self.path) + ".tmp.")
            try:
                os.fchmod(fd, 0o666 & ~umask())
            finally:
                os.close(fd)
        except OSError as e:
            raise AdapterError("cannot write %s: %s" % (self.path, e.strerror)) from None

    def commit(self):
        try:
            os.replace(self.tmp, self.path)
        except OSError as e:
            self.discard()
            raise AdapterError("cannot write %s: %s" % (self.path, e.strerror)) from None
        self.tmp = None

    def discard(self):
        if self.tmp and os.path.exists(self.tmp):
            os.unlink(self.tmp)
        self.tmp = None

    def failed(self, err):
        """the AdapterError for a write into the temporary file that raised err (removed here)"""
        self.discard()
        reason = getattr(err, "strerror", None) or str(err).strip().split("\n")[-1]
        return AdapterError("cannot write %s: %s" % (self.path, reason))


def outputs(specs, inputs):
    """an Output for each (path, what) of specs, all or none (those made are discarded when one
    is refused)"""
    made = []
    try:
        for path, what in specs:
            made.append(Output(path, inputs, what))
    except BaseException:
        for o in made:
            o.discard()
        raise
    return made


# ---- calibrate ------------------------------------------------------------------------------------

# the settings of `calibrate` (stepq.calibrate's, whose defaults and ranges are libstepq's): name,
# how the option is read, what it is
CALIBRATE_SETTINGS = (
    ("steps", int, "steps of each trace, each a segment from a zero state (default: every step of the shortest)"),
    ("horizon", float, "the horizon H of the lifetimes L_u, M_u, R_u (method 4.1)"),
    ("gamma", float, "the row influence w_i = exp(gamma/2 (log omega_i - mean)) (method 4.1)"),
    ("rho", float, "the row-factor exponent of the dual-axis fit (method 4.2)"),
    ("refits", int, "weighted least-squares refits of the column factors (method 4.2)"),
    ("snapshot_every", int, "steps between the state snapshots offered to the reservoir (method 4.1)"),
    ("reservoir", int, "state snapshots kept per head (method 4.1)"),
    ("pivots", int, "FP16 pivot units (method 4.3); -1: pivot-fraction of the units"),
    ("pivot_fraction", float, "the share of units made pivots; -1: the paper's"),
    ("damp_fraction", float, "the share of key rows DAMP keeps in FP16 (method 6.2)"),
    ("seed", int, "the seed of the reservoir sampling"),
)


def cmd_calibrate(a):
    """`calibrate`: stepq.calibrate (libstepq's sq_calibrate) with the settings given, its
    progress on stderr; libstepq checks the traces, the settings and --out before any work (its
    refusals name the settings as the options that set them: the names passed)"""
    from .. import _CALIBRATE_KNOBS, _INT_RANGE, Plan, StepqError, calibrate
    settings = {name: getattr(a, name) for name, _, _ in CALIBRATE_SETTINGS if getattr(a, name) is not None}
    for name, value in settings.items():  # a whole number wider than libstepq's field: named here, as argparse would
        kind, ctype = _CALIBRATE_KNOBS[name]
        if kind == "int" and not _INT_RANGE[ctype][0] <= value <= _INT_RANGE[ctype][1]:
            raise AdapterError("argument --%s: %d does not fit libstepq's setting, a %s in [%d, %d] (see %s --help)"
                               % (name.replace("_", "-"), value, ctype, _INT_RANGE[ctype][0], _INT_RANGE[ctype][1],
                                  "python -m stepq.hf calibrate"))
    names = dict({name: "--" + name.replace("_", "-") for name, _, _ in CALIBRATE_SETTINGS}, caller="calibrate")
    try:
        calibrate(a.trace, a.out, progress=True, normalize=a.normalize, names=names, **settings)
    except StepqError as err:
        raise AdapterError(str(err)) from None
    with Plan(a.out) as plan:
        print("wrote plan %s (%d heads, %d segments)" % (a.out, len(plan.heads), len(a.trace)))


# ---- running ----------------------------------------------------------------------------------------

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
