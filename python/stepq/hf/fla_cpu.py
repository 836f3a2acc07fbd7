"""fla's Triton pieces replaced by torch equivalents while an adapter holds an fla model on a CPU
(flash-linear-attention 0.6.0; Triton does not run on a CPU). Each stand-in computes what its
Triton original documents, in float32:

    ShortConvolution   y_t = act(sum_w W[:, w] x_{t-W+1+w} + b); its cache, the last W inputs
                       [N, D, W], updated in place for one token, returned when asked for
    RMSNorm            (x + residual) / sqrt(mean (x + residual)^2 + eps) * weight (prenorm: and
                       the sum)
    FusedRMSNormGated  RMSNorm(x) * weight * act(g), act SiLU (swish) or sigmoid
    swiglu, SwiGLULinear  SiLU(x) * y, then the linear layer
    the kernels        the delta rule of method 1 token by token (q, k l2-normalised
                       x / sqrt(sum x^2 + 1e-6) in the kernel; the gate and beta's sigmoid in the
                       kernel where asked; the state [K, V], or [V, K] with state_v_first)

They are installed on enter and the originals put back on exit, so nothing outlives the adapter.
tests/python/test_hf.py checks an fla model run through them against stepq's C forward
(data/lm/gdn, data/lm/kda), which matches PyTorch's to 7e-7 (tests/test_lm.c)."""
import torch
import torch.nn.functional as F


def l2norm(x, dim=-1, eps=1e-6):
    x = x.float()
    return x / torch.sqrt((x * x).sum(dim=dim, keepdim=True) + eps)


def gdn_gate(g, A_log, dt_bias):
    g = g.float() + (dt_bias.float() if dt_bias is not None else 0)
    return -A_log.float().exp() * F.softplus(g)


def kda_gate(g, A_log, dt_bias):
    H = g.shape[-2]
    g = g.float()
    if dt_bias is not None:
        g = g + dt_bias.float().view(H, -1)
    return -A_log.float().exp().view(H, 1) * F.softplus(g)


def kernel_inputs(kind, a):
    """q, k (normalised where the kernel normalises them), v, g (log decay: [B,T,HV] or
    [B,T,HV,K]), beta, all float32, from an fla kernel call's arguments a"""
    q, k, v = a["q"].float(), a["k"].float(), a["v"].float()
    if a.get("use_qk_l2norm_in_kernel"):
        q, k = l2norm(q), l2norm(k)
    g = a["g"]
    if a.get("use_gate_in_kernel"):
        g = (kda_gate if kind == "kda" else gdn_gate)(g, a["A_log"], a.get("dt_bias"))
    beta = a["beta"].float()
    if a.get("use_beta_sigmoid_in_kernel"):
        beta = torch.sigmoid(beta) * (2.0 if a.get("allow_neg_eigval") else 1.0)
    return q, k, v, g.float(), beta


def state_in(a):
    """the call's initial state K-first [N, HV, K, V] (or None)"""
    S = a.get("initial_state")
    if S is None:
        return None
    S = S.float()
    return S.transpose(-1, -2) if a.get("state_v_first") else S


def state_out(a, S):
    return S.transpose(-1, -2).contiguous() if a.get("state_v_first") else S


def delta_rule(q, k, v, g, beta, S0, scale):
    """method 1 token by token: q, k [B,T,H,K] (H may be fewer than v's HV heads: grouped), v
    [B,T,HV,V], g [B,T,HV] or [B,T,HV,K], beta [B,T,HV], S0 [B,HV,K,V] or None -> o [B,T,HV,V], S"""
    B, T, H, K = k.shape
    HV, V = v.shape[2], v.shape[3]
    if HV != H:
        q, k = q.repeat_interleave(HV // H, dim=2), k.repeat_interleave(HV // H, dim=2)
    S = torch.zeros(B, HV, K, V) if S0 is None else S0.clone()
    o = torch.zeros(B, T, HV, V)
    for t in range(T):
        d = g[:, t].exp()
        S = S * (d[..., None] if d.dim() == 3 else d[..., None, None])
        u = beta[:, t, :, None] * (v[:, t] - torch.einsum("bhkv,bhk->bhv", S, k[:, t]))
        S = S + k[:, t, :, :, None] * u[:, :, None, :]
        o[:, t] = scale * torch.einsum("bhkv,bhk->bhv", S, q[:, t])
    return o, S


def kernel(kind):
    def run(q, k, v, g=None, beta=None, scale=None, initial_state=None, output_final_state=False, **kw):
        if kw.get("safe_gate") or kw.get("lower_bound") is not None or kw.get("cu_seqlens") is not None:
            raise NotImplementedError("stepq's CPU stand-in of fla's kernels implements neither safe_gate, "
                                      "lower_bound nor cu_seqlens")
        a = dict(kw, q=q, k=k, v=v, g=g, beta=beta, initial_state=initial_state)
        qq, kk, vv, gg, bb = kernel_inputs(kind, a)
        o, S = delta_rule(qq, kk, vv, gg, bb, state_in(a), scale if scale is not None else k.shape[-1] ** -0.5)
        return o.to(v.dtype), (state_out(a, S) if output_final_state else None)
    return run


def conv_forward(self, x, residual=None, mask=None, cache=None, output_final_state=False, cu_seqlens=None, **kw):
    if residual is not None or mask is not None or cu_seqlens is not None:
        raise NotImplementedError("stepq's CPU stand-in of ShortConvolution takes no residual, mask or cu_seqlens")
    B, T, D = x.shape
    W = self.kernel_size[0]
    prev = cache[..., 1:].to(x.dtype) if cache is not None else x.new_zeros(B, D, W - 1)
    xs = torch.cat([prev, x.transpose(1, 2)], -1)
    y = F.conv1d(xs, self.weight, self.bias, groups=D)
    if self.activation in ("silu", "swish"):
        y = F.silu(y)
    last = xs[..., -W:]
    if cache is not None and T == 1:
        cache.copy_(last)
    return y.transpose(1, 2), (last.contiguous() if output_final_state else None)


def rms(x, weight, bias, eps):
    y = x.float() * torch.rsqrt(x.float().square().mean(-1, keepdim=True) + eps)
    y = y * weight if weight is not None else y
    return y + bias if bias is not None else y


def rmsnorm_forward(self, x, residual=None, prenorm=False, residual_in_fp32=False):
    if residual is not None:
        x = x + residual
    y = rms(x, self.weight, self.bias, self.eps).to(x.dtype)
    return (y, x) if prenorm else y


def gated_norm_forward(self, x, g, residual=None, prenorm=False, residual_in_fp32=False):
    if residual is not None:
        x = x + residual
    y = rms(x, self.weight, self.bias, self.eps)
    y = y * (F.silu(g.float()) if self.activation in ("swish", "silu") else torch.sigmoid(g.float()))
    return (y.to(x.dtype), x) if prenorm else y.to(x.dtype)


def swiglu_linear_forward(self, x, y, weight, bias):
    return F.linear(F.silu(x) * y, weight, bias)


class CpuStandIns:
    """installs the stand-ins (a context manager; reentrant: the originals are put back once)"""

    depth = 0
    saved = []

    def __enter__(self):
        if CpuStandIns.depth == 0:
            import fla.layers.gated_deltanet as LG
            import fla.layers.kda as LK
            import fla.modules.mlp as MLP
            from fla.modules import FusedRMSNormGated, RMSNorm, ShortConvolution
            patches = [(ShortConvolution, "forward", conv_forward), (RMSNorm, "forward", rmsnorm_forward),
                       (FusedRMSNormGated, "forward", gated_norm_forward),
                       (MLP.SwiGLULinear, "forward", swiglu_linear_forward),
                       (MLP, "swiglu", lambda x, y: F.silu(x) * y),
                       (LG, "chunk_gated_delta_rule", kernel("gdn")),
                       (LG, "fused_recurrent_gated_delta_rule", kernel("gdn")),
                       (LK, "chunk_kda", kernel("kda")), (LK, "fused_recurrent_kda", kernel("kda")),
                       (LG.GatedDeltaNet, "_use_fused_qkv_conv", lambda self, **kw: False)]
            CpuStandIns.saved = [(o, n, getattr(o, n)) for o, n, _ in patches]
            for o, n, f in patches:
                setattr(o, n, f)
        CpuStandIns.depth += 1
        return self

    def __exit__(self, *exc):
        CpuStandIns.depth -= 1
        if CpuStandIns.depth == 0:
            for o, n, f in CpuStandIns.saved:
                setattr(o, n, f)
            CpuStandIns.saved = []
