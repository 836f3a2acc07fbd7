"""stepq.hf: the delta-rule layers of a user's Hugging Face model, seen by stepq (method 7.4).

Each supported model class has an entry in ADAPTERS: the module class of its delta-rule layer,
the module-level kernel functions its forward calls (transformers 5.24 calls them by their
global names in the modeling file), its kind, and the l2norm it normalises q and k with. An
adapter (Capture, or the in-model evaluation of eval.py) hooks a model by
  - a forward pre-hook and hook on each of the model's own delta-rule modules (per instance),
    which mark "this layer of this adapter is running" in a context variable, and
  - the modeling module's kernel names pointed at a wrapper that, inside such a mark, hands the
    call to the adapter, and otherwise calls the original unchanged,
and undoes both on close (the names are restored only where they still hold its wrapper), so
nothing outlives the adapter and other models of the same class run as before meanwhile.

Nothing quantizes here: q, k, v, g, beta are read off the kernel's arguments exactly as the
installed source prepares them (its own l2norm, eps 1e-6; q scaled by d_k^-1/2 at the read-out),
and every quantized byte comes from libstepq.
"""
import contextvars
import importlib
import inspect
from dataclasses import dataclass

# The releases tests/python/compat.sh ran the adapters' tests on (the pinned one last). Any
# release is accepted whose modeling files hold what the adapters use (check_adapter): the
# delta-rule layer class, the kernel functions with the parameters read off their calls, and the
# modeling file's l2norm; the rest are refused naming what is missing, with this range.
TESTED_TRANSFORMERS = ("5.18.0", "5.20.2", "5.23.0", "5.24.0")
# the parameters a transformers kernel call must take (step_inputs and the adapters read them)
HF_KERNEL_PARAMS = ("query", "key", "value", "g", "beta", "initial_state", "output_final_state",
                    "use_qk_l2norm_in_kernel")


@dataclass(frozen=True)
class Spec:
    model_type: str  # config.model_type
    modeling: str  # the module whose kernel names the layer's forward calls
    layer_class: str  # the delta-rule module's class (in modeling)
    kernels: tuple  # (chunked, recurrent) kernel names in that module
    kind: str  # "gdn" or "kda"
    family: str = "hf"  # "hf": transformers' own file; "fla": flash-linear-attention 0.6.0's layers


ADAPTERS = {
    s.model_type: s
    for s in (
        Spec("qwen3_next", "transformers.models.qwen3_next.modeling_qwen3_next", "Qwen3NextGatedDeltaNet",
             ("torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule"), "gdn"),
        Spec("qwen3_5_text", "transformers.models.qwen3_5.modeling_qwen3_5", "Qwen3_5GatedDeltaNet",
             ("torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule"), "gdn"),
        Spec("qwen3_5", "transformers.models.qwen3_5.modeling_qwen3_5", "Qwen3_5GatedDeltaNet",
             ("torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule"), "gdn"),
        # the mixture-of-experts Qwen3.5: its delta-rule layers are the dense model's (its own class
        # in its own modeling file, whose kernel names the adapter hooks)
        Spec("qwen3_5_moe_text", "transformers.models.qwen3_5_moe.modeling_qwen3_5_moe", "Qwen3_5MoeGatedDeltaNet",
             ("torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule"), "gdn"),
        Spec("qwen3_5_moe", "transformers.models.qwen3_5_moe.modeling_qwen3_5_moe", "Qwen3_5MoeGatedDeltaNet",
             ("torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule"), "gdn"),
        Spec("kimi_linear", "transformers.models.kimi_linear.modeling_kimi_linear", "KimiLinearDeltaAttention",
             ("chunk_kimi_delta_attention", "recurrent_kimi_delta_attention"), "kda"),
        # fla's own models (fla.models: GatedDeltaNetForCausalLM, KDAForCausalLM; data/lm/gdn and kda)
        Spec("gated_deltanet", "fla.layers.gated_deltanet", "GatedDeltaNet",
             ("chunk_gated_delta_rule", "fused_recurrent_gated_delta_rule"), "gdn", "fla"),
        Spec("kda", "fla.layers.kda", "KimiDeltaAttention", ("chunk_kda", "fused_recurrent_kda"), "kda", "fla"),
    )
}
SUPPORTED_FLA = ("0.6.0",)


class AdapterError(ValueError):
    """a model, version or request the adapters cannot honour; the message names what"""


def check_adapter(spec):
    """the installed modeling file of spec holds what its adapter uses, else AdapterError naming
    the release, the model and what is missing, with the releases the adapters were tested on"""
    import transformers
    where = "transformers %s" % transformers.__version__
    if spec.family == "fla":
        import fla
        where = "flash-linear-attention %s" % fla.__version__
    tested = ("transformers %s" % ", ".join(TESTED_TRANSFORMERS)) if spec.family == "hf" else \
        ("flash-linear-attention %s" % ", ".join(SUPPORTED_FLA))
    try:
        mod = importlib.import_module(spec.modeling)
    except ImportError:
        mod = None
    missing = []
    if mod is None:
        missing.append("the module %s" % spec.modeling)
    else:
        if not isinstance(getattr(mod, spec.layer_class, None), type):
            missing.append("the layer class %s" % spec.layer_class)
        for name in spec.kernels:
            fn = getattr(mod, name, None)
            if not callable(fn):
                missing.append("the kernel %s" % name)
                continue
            if spec.family == "hf":
                params = inspect.signature(inspect.unwrap(fn)).parameters
                lack = [p for p in HF_KERNEL_PARAMS if p not in params]
                if lack:
                    missing.append("the parameter(s) %s of %s" % (", ".join(lack), name))
        if spec.family == "hf" and not callable(getattr(mod, "l2norm", None)):
            missing.append("its l2norm")
    if missing:
        raise AdapterError("%s has no adapter for %s: its %s lacks %s (stepq.hf was tested on %s)"
                           % (where, spec.model_type, spec.modeling, "; ".join(missing), tested))


def spec_of(model):
    cfg = getattr(model, "config", None)
    mt = getattr(cfg, "model_type", None)
    text_mt = getattr(getattr(cfg, "text_config", None), "model_type", None)
    for t in (mt, text_mt):
        if t in ADAPTERS:
            return ADAPTERS[t]
    raise AdapterError("model_type %r has no stepq adapter (supported: %s)" % (mt, ", ".join(sorted(ADAPTERS))))


@dataclass
class Layer:
    index: int  # the model's layer index (module.layer_idx)
    module: object
    H: int  # q/k heads
    HV: int  # value heads
    K: int
    V: int


def delta_layers(model, spec, layers=None):
    """the model's delta-rule layers of spec, in order; layers: the indices to keep (None: all).
    AdapterError when the model has none, or a requested index is not one."""
    mod = importlib.import_module(spec.modeling)
    cls = getattr(mod, spec.layer_class)
    found = []
    for m in model.modules():
        if isinstance(m, cls):
            H = getattr(m, "num_k_heads", None) or getattr(m, "num_heads")
            HV = getattr(m, "num_v_heads", None) or getattr(m, "num_heads")
            K = getattr(m, "head_k_dim", None) or getattr(m, "head_dim")
            V = getattr(m, "head_v_dim", None) or getattr(m, "head_dim")
            found.append(Layer(int(m.layer_idx), m, int(H), int(HV), int(K), int(V)))
    if not found:
        raise AdapterError("the model (model_type %r) has no %s layer: nothing for stepq to see" %
                           (model.config.model_type, spec.layer_class))
    if layers is not None:
        have = {l.index for l in found}
        missing = [i for i in layers if i not in have]
        if missing:
            raise AdapterError("layer(s) %s are not delta-rule layers of this model; its %s layers are %s" %
                               (missing, spec.layer_class, sorted(have)))
        found = [l for l in found if l.index in set(layers)]
    return found


_current = contextvars.ContextVar("stepq_hf_current", default=None)


class Hooks:
    """The hooks of one adapter on one model (see the module's docstring). on_kernel(layer,
    which, args, original) is called for every kernel call inside one of the hooked layers:
    which is 0 (chunked) or 1 (recurrent), args the call's arguments bound to the original's
    signature (a dict); it returns what the kernel returns."""

    def __init__(self, model, layers, spec, on_kernel):
        check_adapter(spec)
        self.spec, self.on_kernel = spec, on_kernel
        self.mod = importlib.import_module(spec.modeling)
        self.by_module = {id(l.module): l for l in layers}
        self.handles = []
        self.patched = {}
        self.saved = {}
        self.closed = False
        on_cpu = all(p.device.type == "cpu" for p in model.parameters())
        # on a CPU: fla's Triton pieces replaced by torch ones (fla_cpu) for the adapter's life; a
        # transformers kernel that resolved to fla's is unwrapped to transformers' torch function
        self.stand_ins = None
        if on_cpu and spec.family == "fla":
            from .fla_cpu import CpuStandIns
            self.stand_ins = CpuStandIns().__enter__()
        for name_i, name in enumerate(spec.kernels):
            held = getattr(self.mod, name)  # the kernel, or another live adapter's wrapper of it
            original = held
            while getattr(original, "_stepq_hooks", None) is not None:
                original = original._stepq_hooks.patched[name][0]
            if on_cpu and spec.family == "hf":
                original = inspect.unwrap(original, stop=lambda f: f.__code__.co_name == name)
            wrapper = self._wrap(original, name_i, held)
            self.saved[name] = held
            self.patched[name] = (original, wrapper)
            setattr(self.mod, name, wrapper)
        for l in layers:
            self.handles.append(l.module.register_forward_pre_hook(self._enter, with_kwargs=True))
            self.handles.append(l.module.register_forward_hook(self._leave))
        self.tokens = {}

    def _enter(self, module, args, kwargs):
        mask = kwargs.get("attention_mask")
        if mask is not None and getattr(mask, "dim", lambda: 0)() == 2 and bool((mask == 0).any()):
            rows = sorted({int(i) for i in (mask == 0).nonzero()[:, 0]})
            raise AdapterError("a batch with padding (the attention mask has zeros in rows %s): stepq steps each row's "
                               "state at every position and cannot honour padded ones; give the documents unpadded, "
                               "cut to one length" % rows)
        self.tokens[id(module)] = _current.set((self, self.by_module[id(module)]))

    def _leave(self, module, args, out):
        tok = self.tokens.pop(id(module), None)
        if tok is not None:
            _current.reset(tok)

    def _wrap(self, original, which, held):
        """the wrapper of the kernel original: a call inside one of this adapter's layers goes to
        on_kernel; any other to the adapter that held the name before (adapters of two models of
        one class live at once), or to original"""
        sig = inspect.signature(original)
        var_kw = [n for n, p in sig.parameters.items() if p.kind is inspect.Parameter.VAR_KEYWORD]
        other = held if getattr(held, "_stepq_hooks", None) is not None else original

        def kernel(*args, **kwargs):
            cur = _current.get()
            if cur is None or cur[0] is not self:
                return other(*args, **kwargs)
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            a = dict(bound.arguments)
            for n in var_kw:
                a.update(a.pop(n, {}) or {})
            return self.on_kernel(cur[1], which, a, lambda: original(*args, **kwargs))

        kernel.__wrapped__ = original
        kernel._stepq_hooks = self
        return kernel

    def ran(self, which, a):
        """what the kernel call `which` with bound arguments a runs natively, for an output's
        record: the function (module.name), the device of its tensors, and on a CPU whether fla's
        Triton pieces were stood in for"""
        f = self.patched[self.spec.kernels[which]][0]
        dev = next((x.device.type for x in a.values() if hasattr(x, "device")), "cpu")
        return "%s.%s on %s%s" % (getattr(f, "__module__", "?"), getattr(f, "__qualname__", "?"), dev,
                                  " (stepq's CPU stand-ins for fla's Triton pieces)" if self.stand_ins else "")

    def close(self):
        for h in self.handles:
            h.remove()
        self.handles = []
        self.closed = True
        for name, (original, wrapper) in self.patched.items():
            if getattr(self.mod, name) is wrapper:
                # back to what held the name before, past the wrappers of adapters closed since
                held = self.saved[name]
                while getattr(held, "_stepq_hooks", None) is not None and held._stepq_hooks.closed:
                    held = held._stepq_hooks.saved[name]
                setattr(self.mod, name, held)
        if self.stand_ins is not None:
            self.stand_ins.__exit__(None, None, None)
            self.stand_ins = None


QK_NORM_EPS = 1e-6
"""the eps of the kernels' L2 normalisation of q and k, x / sqrt(sum x^2 + eps) (fla's and the
modeling files'); a trace records it as qk_norm_eps, so that stepq accepts the norms below 1 it
gives a small x (method 6.1)"""


def l2norm_of(spec):
    """the installed modeling file's own l2norm (Qwen: x * rsqrt(sum x^2 + eps); Kimi: x / sqrt(...))"""
    return importlib.import_module(spec.modeling).l2norm


def step_inputs(spec, layer, a):
    """q, k [B, T, H, K] (L2-normalised as the kernel normalises them, unscaled), v [B, T, HV, V],
    g [B, T, HV] (GDN) or [B, T, HV, K] (KDA), beta [B, T, HV], all float32, from a kernel call's
    bound arguments a"""
    import torch
    if spec.family == "fla":
        from .fla_cpu import kernel_inputs
        return kernel_inputs(spec.kind, a)
    q, k, v, g, beta = (a[n] for n in ("query", "key", "value", "g", "beta"))
    q, k, v, g, beta = (x.to(torch.float32) for x in (q, k, v, g, beta))
    if a.get("use_qk_l2norm_in_kernel"):
        norm = l2norm_of(spec)
        q, k = norm(q, dim=-1, eps=QK_NORM_EPS), norm(k, dim=-1, eps=QK_NORM_EPS)
    return q, k, v, g, beta


def weights_sha256(model):
    """SHA-256 of every parameter and buffer's bytes, in name order: which weights a trace or a
    result was made with. bfloat16 and float16 tensors are hashed as the float32 they widen to
    exactly, so that one checkpoint loaded in its own dtype or in a wider one (a bf16 checkpoint
    run in float32) has one hash, and a plan calibrated on either's captures binds to both; a
    float32 model's hash is what it always was"""
    import hashlib
    import torch
    h = hashlib.sha256()
    for name, t in sorted(list(model.state_dict().items())):
        if t.dtype in (torch.bfloat16, torch.float16):
            t = t.to(torch.float32)
        h.update(name.encode())
        h.update(str(tuple(t.shape)).encode() + str(t.dtype).encode())
        h.update(t.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def initial_state(spec, a):
    """the call's initial state, K-first [B, HV, K, V] float32, or None"""
    if spec.family == "fla":
        from .fla_cpu import state_in
        return state_in(a)
    S = a.get("initial_state")
    return None if S is None else S.float()


def returned_state(spec, a, S):
    """S [B, HV, K, V] in the layout the call's caller keeps (fla: V-first where asked)"""
    if spec.family == "fla":
        from .fla_cpu import state_out
        return state_out(a, S)
    return S


def linear_only_reason(model_type, version):
    return ("a %s model whose layers are all linear attention cannot run with a cache in transformers %s: its "
            "cache asks an attention layer for the sequence length (get_seq_length), and there is none; stepq.hf "
            "steps a model token by token with its cache, so it needs at least one full_attention layer in "
            "layer_types" % (model_type, version))


def forward(model, ids, cache=None):
    """(logits, cache) of model on ids [B, T] after cache (None: from the start), keeping the
    cache: transformers 5.24 names it `cache`, fla's models `past_key_values`. ids go to the
    device of the model's embeddings and the logits come back on the CPU (no copy where the model
    runs there)"""
    params = inspect.signature(model.forward).parameters
    name = "cache" if "cache" in params else "past_key_values"
    ids = ids.to(model.get_input_embeddings().weight.device)
    try:
        out = model(ids, use_cache=True, **({name: cache} if cache is not None else {}))
    except ValueError as e:
        if "get_seq_length" not in str(e):
            raise
        import transformers
        raise AdapterError(linear_only_reason(getattr(model.config, "model_type", "?"), transformers.__version__)) \
            from None
    new = out.get("cache") if "cache" in out else out.get("past_key_values")
    if new is None:
        raise AdapterError("%s returned no cache: stepq.hf steps a model one token a call with its cache" %
                           type(model).__name__)
    return out.logits.cpu(), new
