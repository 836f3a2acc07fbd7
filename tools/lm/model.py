"""Byte-level Gated DeltaNet / Kimi Delta Attention language model in plain PyTorch.

Follows fla (flash-linear-attention 0.6, fla/layers/gated_deltanet.py, fla/layers/kda.py,
fla/models/{gated_deltanet,kda}) exactly in parameter names, shapes, initialisation and
forward math, without any Triton kernel, so that it runs (and trains) on a CPU.

Two forms of the delta rule:
  * recurrent (token by token; the reference, what the C side implements):
        recurrent_gdn / recurrent_kda
  * chunked (WY / UT transform, as fla's chunk algorithms; for training):
        chunk_gdn / chunk_kda

State convention (same as fla's naive functions): float32 state S of shape [K, V] per head
("K-first").  Per token t:
        S' = exp(g_t) S                 (KDA: diag(exp(g_t[0..K-1])) S)
        u  = beta_t (v_t - S'^T k_t)
        S  = S' + k_t u^T
        o_t = S^T (q_t / sqrt(K))       (read after the write)
(fla's layers call their kernels with state_v_first=True, i.e. keep S^T internally;
the mathematics is identical.)

docs/lm-forward.md writes the whole forward pass out equation by equation.
"""
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

L2_EPS = 1e-6  # fla l2norm_fwd default: x / sqrt(sum(x^2) + 1e-6)


# ---------------------------------------------------------------------------
# configuration


DEFAULTS = {
    "gated_deltanet": dict(
        model_type="gated_deltanet", architectures=["GatedDeltaNetForCausalLM"],
        attn_mode="chunk", hidden_size=256, expand_v=1.0, use_gate=True, use_short_conv=True,
        allow_neg_eigval=False, conv_size=4, head_dim=128, num_heads=4, num_v_heads=None,
        max_position_embeddings=8192, hidden_ratio=4, intermediate_size=512, hidden_act="swish",
        num_hidden_layers=4, norm_eps=1e-6, attn=None, use_cache=True, pad_token_id=None,
        bos_token_id=None, eos_token_id=None, tie_word_embeddings=False, initializer_range=0.02,
        fuse_norm=True, fuse_swiglu=True, fuse_cross_entropy=True, fuse_linear_cross_entropy=False,
        use_l2warp=False, vocab_size=256, attnres_block_size=None, output_gate_activation="swish",
        torch_dtype="float32"),
    "kda": dict(
        model_type="kda", architectures=["KDAForCausalLM"],
        attn_mode="chunk", hidden_size=256, expand_v=1.0, use_short_conv=True,
        allow_neg_eigval=False, safe_gate=False, lower_bound=None, conv_size=4, head_dim=128,
        num_heads=4, num_v_heads=None, max_position_embeddings=8192, hidden_ratio=4,
        intermediate_size=512, hidden_act="swish", num_hidden_layers=4, norm_eps=1e-6, attn=None,
        use_cache=True, pad_token_id=None, bos_token_id=None, eos_token_id=None,
        tie_word_embeddings=False, initializer_range=0.02, fuse_norm=True, fuse_swiglu=True,
        fuse_cross_entropy=True, use_l2warp=False, vocab_size=256, attnres_block_size=None,
        torch_dtype="float32"),
}


def make_config(model_type, **overrides):
    cfg = dict(DEFAULTS[model_type])
    for k, v in overrides.items():
        if k not in cfg:
            raise KeyError("unknown config key %s" % k)
        cfg[k] = v
    return cfg


def check_supported(cfg):
    """Refuse the fla options this implementation does not carry."""
    bad = []
    if cfg.get("num_v_heads") not in (None, cfg["num_heads"]):
        bad.append("num_v_heads != num_heads (GVA)")
    if cfg.get("allow_neg_eigval"):
        bad.append("allow_neg_eigval")
    if not cfg.get("use_short_conv", True):
        bad.append("use_short_conv=False")
    if cfg.get("attn") is not None:
        bad.append("hybrid attention layers")
    if cfg.get("attnres_block_size") is not None:
        bad.append("attnres")
    if cfg.get("hidden_act", "swish") != "swish":
        bad.append("hidden_act != swish")
    if cfg["model_type"] == "gated_deltanet":
        if not cfg.get("use_gate", True):
            bad.append("use_gate=False")
        if cfg.get("output_gate_activation", "swish") not in ("swish", "silu"):
            bad.append("output_gate_activation != swish")
    if cfg["model_type"] == "kda" and (cfg.get("safe_gate") or cfg.get("lower_bound") is not None):
        bad.append("safe_gate / lower_bound")
    if bad:
        raise NotImplementedError("unsupported fla options: " + ", ".join(bad))


def intermediate_size(cfg):
    if cfg.get("intermediate_size") is not None:
        return cfg["intermediate_size"]
    r = cfg.get("hidden_ratio") or 4
    i = int(cfg["hidden_size"] * r * 2 / 3)
    return 256 * ((i + 255) // 256)


# ---------------------------------------------------------------------------
# small modules (fla.modules equivalents)


class RMSNorm(nn.Module):
    """fla RMSNorm: y = x / sqrt(mean(x^2) + eps) * weight (computed in float32 for float32 inputs)."""

    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        rstd = torch.rsqrt(x.square().mean(-1, keepdim=True) + self.eps)
        return x * rstd * self.weight


class RMSNormGated(nn.Module):
    """fla FusedRMSNormGated: y = x / sqrt(mean(x^2) + eps) * weight * act(g), act = silu or sigmoid."""

    def __init__(self, d, eps, activation):
        super().__init__()
        self.eps = eps
        self.activation = activation
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x, g):
        rstd = torch.rsqrt(x.square().mean(-1, keepdim=True) + self.eps)
        y = x * rstd * self.weight
        if self.activation in ("swish", "silu"):
            return y * (g * torch.sigmoid(g))
        return y * torch.sigmoid(g)


class ShortConvolution(nn.Conv1d):
    """fla ShortConvolution: depthwise causal conv1d, weight [D, 1, W], no bias, then SiLU.

    y[t, c] = silu( sum_{i=0}^{W-1} weight[c, 0, i] * x[t - (W-1) + i, c] ),   x[<0] = 0
    i.e. weight index W-1 multiplies the current token.
    """

    def __init__(self, d, kernel_size):
        super().__init__(d, d, kernel_size, groups=d, padding=kernel_size - 1, bias=False)

    def forward(self, x, cache=None, key=None):  # x [B, T, D]
        # the W taps as shifted multiply-adds in the [B, T, D] layout: the same sum as F.conv1d
        # (up to float32 rounding order), about 3x faster through backward on a CPU than conv1d on
        # the transposed tensor, whose SiLU and gradients then ran on strided memory.
        # cache (a dict, with key): the last W-1 inputs before x ([B, W-1, D]; zeros where absent)
        # are read from cache[key] and replaced by those after x
        T, W = x.shape[1], self.kernel_size[0]
        w = self.weight[:, 0, :]                                  # [D, W]
        if cache is not None and key in cache:
            xp = torch.cat([cache[key].to(x.dtype), x], 1)
        else:
            xp = F.pad(x, (0, 0, W - 1, 0))                       # zeros before t = 0
        if cache is not None:
            cache[key] = xp[:, -(W - 1):].detach().clone()
        y = xp[:, W - 1:W - 1 + T] * w[:, W - 1]
        for i in range(W - 1):
            y = y + xp[:, i:i + T] * w[:, i]
        return F.silu(y)


class GatedMLP(nn.Module):
    """fla GatedMLP (swish): down_proj(silu(gate_proj(x)) * up_proj(x))."""

    def __init__(self, d, inter):
        super().__init__()
        self.gate_proj = nn.Linear(d, inter, bias=False)
        self.up_proj = nn.Linear(d, inter, bias=False)
        self.down_proj = nn.Linear(inter, d, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


def l2norm(x):
    return x * torch.rsqrt(x.square().sum(-1, keepdim=True) + L2_EPS)


# ---------------------------------------------------------------------------
# delta rule: recurrent (reference) forms


def recurrent_gdn(q, k, v, g, beta, scale=None, initial_state=None):
    """q,k [B,T,H,K], v [B,T,H,V], g,beta [B,T,H] -> o [B,T,H,V], S [B,H,K,V].

    Runs in float64 if v is float64, else float32 (state always at least float32)."""
    dt = torch.float64 if v.dtype == torch.float64 else torch.float32
    q, k, v, g, beta = (x.to(dt) for x in (q, k, v, g, beta))
    B, T, H, K = k.shape
    V = v.shape[-1]
    if scale is None:
        scale = K ** -0.5
    S = torch.zeros(B, H, K, V, dtype=dt, device=v.device) if initial_state is None else initial_state.to(dt)
    o = torch.empty(B, T, H, V, dtype=dt, device=v.device)
    for t in range(T):
        S = S * g[:, t].exp()[..., None, None]
        kt = k[:, t]
        u = beta[:, t, :, None] * (v[:, t] - torch.einsum("bhk,bhkv->bhv", kt, S))
        S = S + kt[..., :, None] * u[..., None, :]
        o[:, t] = torch.einsum("bhk,bhkv->bhv", q[:, t] * scale, S)
    return o, S


def recurrent_kda(q, k, v, g, beta, scale=None, initial_state=None):
    """As recurrent_gdn, with g [B,T,H,K] (per key channel)."""
    dt = torch.float64 if v.dtype == torch.float64 else torch.float32
    q, k, v, g, beta = (x.to(dt) for x in (q, k, v, g, beta))
    B, T, H, K = k.shape
    V = v.shape[-1]
    if scale is None:
        scale = K ** -0.5
    S = torch.zeros(B, H, K, V, dtype=dt, device=v.device) if initial_state is None else initial_state.to(dt)
    o = torch.empty(B, T, H, V, dtype=dt, device=v.device)
    for t in range(T):
        S = S * g[:, t].exp()[..., None]
        kt = k[:, t]
        u = beta[:, t, :, None] * (v[:, t] - torch.einsum("bhk,bhkv->bhv", kt, S))
        S = S + kt[..., :, None] * u[..., None, :]
        o[:, t] = torch.einsum("bhk,bhkv->bhv", q[:, t] * scale, S)
    return o, S


# ---------------------------------------------------------------------------
# delta rule: chunked (WY / UT transform) forms
#
# Within a chunk of C tokens starting from state S0, with G_t = sum_{s<=t in chunk} g_s:
#   P(x,y)_tj = sum_d x_td y_jd exp(G_td - G_jd)            (scalar G for GDN)
#   (I + diag(beta) P(k,k)_strict) U = diag(beta) V - diag(beta) (e^G * K) S0
#   => U = Ut - W S0 with  [Ut | W] = (I + diag(beta) P_strict)^-1 [beta V | beta e^G K]
#   O  = (e^G * Q) S0 + tril(P(q,k)) U
#   S_C = e^{G_C} * S0 + (e^{G_C - G} * K)^T U
# Every exponent used is <= 0, so nothing overflows.


def _chunk_inter(qg, kd, gC, Ut, W, Aqk, S):
    """Sequential pass over chunks. Shapes [B,H,N,C,*]; gC [B,H,N,K] or [B,H,N,1]."""
    outs = []
    decay = gC.exp()[..., None]
    # unbind once: indexing inside the loop would cost a full-size zero fill per step in backward
    for qg_n, kd_n, dec_n, Ut_n, W_n, A_n in zip(*(x.unbind(2) for x in (qg, kd, decay, Ut, W, Aqk))):
        U = Ut_n - W_n @ S
        outs.append(qg_n @ S + A_n @ U)
        S = S * dec_n + kd_n.transpose(-1, -2) @ U
    return torch.stack(outs, 2), S


def _pad_chunks(T, C, *xs):
    pad = (C - T % C) % C
    out = []
    for x in xs:
        if pad:
            # pad the time dim (dim 2 in [B,H,T,...]) with zeros; g = 0, beta = 0 is an identity step
            shape = list(x.shape)
            shape[2] = pad
            x = torch.cat([x, x.new_zeros(shape)], 2)
        out.append(x)
    return out


def chunk_gdn(q, k, v, g, beta, scale=None, initial_state=None, chunk_size=64):
    """Chunked gated delta rule; same signature and result as recurrent_gdn."""
    B, T, H, K = k.shape
    V = v.shape[-1]
    C = chunk_size
    if scale is None:
        scale = K ** -0.5
    dt = torch.float64 if v.dtype == torch.float64 else torch.float32
    q, k, v = (x.to(dt).transpose(1, 2) for x in (q, k, v))   # [B,H,T,*]
    g, beta = (x.to(dt).transpose(1, 2) for x in (g, beta))   # [B,H,T]
    q, k, v, g, beta = _pad_chunks(T, C, q, k, v, g, beta)
    N = q.shape[2] // C
    q = (q * scale).view(B, H, N, C, K)
    k = k.view(B, H, N, C, K)
    v = v.view(B, H, N, C, V)
    beta = beta.view(B, H, N, C, 1)
    G = g.view(B, H, N, C).cumsum(-1)                          # [B,H,N,C]
    diff = G[..., :, None] - G[..., None, :]                   # G_t - G_j
    incl = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()
    strict = torch.ones(C, C, dtype=torch.bool, device=q.device).tril(-1)
    Dm = diff.masked_fill(~incl, float("-inf")).exp()          # [B,H,N,C,C], 0 above diagonal
    Akk = (k @ k.transpose(-1, -2)) * Dm.masked_fill(~strict, 0.0) * beta
    eye = torch.eye(C, dtype=dt, device=q.device)
    rhs = torch.cat([v * beta, k * (beta * G[..., None].exp())], -1)
    sol = torch.linalg.solve_triangular(Akk + eye, rhs, upper=False, unitriangular=True)
    Ut, W = sol[..., :V], sol[..., V:]
    Aqk = (q @ k.transpose(-1, -2)) * Dm
    qg = q * G[..., None].exp()
    kd = k * (G[..., -1:, None] - G[..., None]).exp()
    S = torch.zeros(B, H, K, V, dtype=dt, device=q.device) if initial_state is None else initial_state.to(dt)
    o, S = _chunk_inter(qg, kd, G[..., -1:], Ut, W, Aqk, S)
    o = o.reshape(B, H, N * C, V)[:, :, :T].transpose(1, 2)
    return o, S


def _pair_scores(X, Y, G, sub):
    """M[..., t, j] = sum_d X_td Y_jd exp(G_td - G_jd) for j <= t, 0 for j > t.

    X, Y, G: [..., C, K]. Diagonal sub-blocks of `sub` tokens are computed pairwise
    (exactly, no overflow); off-diagonal sub-blocks factor through a reference token
    (the last token of the previous sub-block), so both factors are exp(<= 0)."""
    *lead, C, K = X.shape
    nb = C // sub
    Xr, Yr, Gr = (z.reshape(*lead, nb, sub, K) for z in (X, Y, G))
    incl = torch.ones(sub, sub, dtype=torch.bool, device=X.device).tril()
    E = (Gr[..., :, None, :] - Gr[..., None, :, :]).masked_fill(~incl[..., None], float("-inf")).exp()
    diag = (Xr[..., :, None, :] * E * Yr[..., None, :, :]).sum(-1)          # [..., nb, sub, sub]
    eye_b = torch.eye(nb, dtype=X.dtype, device=X.device)
    M = torch.einsum("...atj,ab->...atbj", diag, eye_b).reshape(*lead, C, C)
    if nb > 1:
        Gref = Gr[..., :-1, -1, :]                                          # [..., nb-1, K] ref for blocks 1..nb-1
        Xs = Xr[..., 1:, :, :] * (Gr[..., 1:, :, :] - Gref[..., None, :]).exp()     # [..., nb-1, sub, K]
        jidx = torch.arange(C, device=X.device)
        lim = (torch.arange(1, nb, device=X.device) * sub)                  # block a (1..nb-1) sees j < a*sub
        valid = jidx[None, :] < lim[:, None]                                # [nb-1, C]
        ex = (Gref[..., :, None, :] - G[..., None, :, :]).masked_fill(~valid[..., None], float("-inf")).exp()
        Ys = Y[..., None, :, :] * ex                                        # [..., nb-1, C, K]
        off = Xs @ Ys.transpose(-1, -2)                                     # [..., nb-1, sub, C]
        M = M + torch.cat([off.new_zeros(*lead, 1, sub, C), off], -3).reshape(*lead, C, C)
    return M


FACT_LIMIT = 600.0  # float64 exp(+-600) is far from overflow (e^709) and underflow (e^-708)


def _pair_scores_fact(X, Y, G):
    """Same as _pair_scores (incl. diagonal, 0 above), by factoring exp(G_t - G_j) =
    exp(G_t) exp(-G_j) in float64.  Exact to float64 rounding as long as every |G| < FACT_LIMIT
    (G is the cumulative log-decay from the chunk start, so this bounds a channel's decay within
    one chunk); chunk_kda checks that and otherwise uses _pair_scores."""
    Gd = G.double()
    M = (X.double() * Gd.exp()) @ (Y.double() * (-Gd).exp()).transpose(-1, -2)
    C = X.shape[-2]
    incl = torch.ones(C, C, dtype=torch.bool, device=X.device).tril()
    return M.masked_fill(~incl, 0.0).to(X.dtype)


def chunk_kda(q, k, v, g, beta, scale=None, initial_state=None, chunk_size=32, sub_chunk=8, method="auto"):
    """Chunked KDA (per-key-channel gate g [B,T,H,K]); same result as recurrent_kda."""
    B, T, H, K = k.shape
    V = v.shape[-1]
    C = chunk_size
    if scale is None:
        scale = K ** -0.5
    dt = torch.float64 if v.dtype == torch.float64 else torch.float32
    q, k, v, g = (x.to(dt).transpose(1, 2) for x in (q, k, v, g))   # [B,H,T,*]
    beta = beta.to(dt).transpose(1, 2)
    q, k, v, g, beta = _pad_chunks(T, C, q, k, v, g, beta)
    N = q.shape[2] // C
    q = (q * scale).view(B, H, N, C, K)
    k = k.view(B, H, N, C, K)
    v = v.view(B, H, N, C, V)
    beta = beta.view(B, H, N, C, 1)
    G = g.reshape(B, H, N, C, K).cumsum(-2)
    strict = torch.ones(C, C, dtype=torch.bool, device=q.device).tril(-1)
    incl = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()
    # method: "fact" (every chunk factored), "sub" (every chunk by sub-blocks), "mixed" (factored
    # where it is exact, sub-blocks in the chunks and heads where a channel decays past
    # e^-FACT_LIMIT inside the chunk: a few chunks of two layers in the recall models), "auto"
    # (sub-blocks in float64, where factoring buys nothing, else the cheapest exact one of the three)
    far = G.detach().amin((-2, -1)) <= -FACT_LIMIT                     # [B,H,N]
    if method == "auto":
        if dt != torch.float32:
            method = "sub"
        else:
            method = "fact" if not bool(far.any()) else "sub" if bool(far.all()) else "mixed"
    if method in ("fact", "mixed"):
        # exp(G_t - G_j) = exp(G_t) exp(-G_j) in float64 (see _pair_scores_fact); shared factors
        Gd = (G if method == "fact" else G.masked_fill(far[..., None, None], 0.0)).double()
        kpos = k.double() * Gd.exp()
        kneg_t = (k.double() * (-Gd).exp()).transpose(-1, -2)
        qpos = q.double() * Gd.exp()
        Akk = (kpos @ kneg_t).to(dt).masked_fill(~strict, 0.0) * beta
        Aqk = (qpos @ kneg_t).to(dt).masked_fill(~incl, 0.0)
        qg = qpos.to(dt)
        kg = kpos.to(dt)
        if method == "mixed":
            # the far chunks again by sub-blocks; G = 0 above kept their factored values finite
            # (a NaN there would reach the gradient through the unselected branch)
            at = far.nonzero(as_tuple=True)
            kf, qf, Gf, bf = k[at], q[at], G[at], beta[at]
            Akk = Akk.index_put(at, _pair_scores(kf, kf, Gf, sub_chunk).masked_fill(~strict, 0.0) * bf)
            Aqk = Aqk.index_put(at, _pair_scores(qf, kf, Gf, sub_chunk))
            eGf = Gf.exp()
            qg = qg.index_put(at, qf * eGf)
            kg = kg.index_put(at, kf * eGf)
    else:
        Akk = _pair_scores(k, k, G, sub_chunk).masked_fill(~strict, 0.0) * beta
        Aqk = _pair_scores(q, k, G, sub_chunk)
        eG = G.exp()
        qg = q * eG
        kg = k * eG
    eye = torch.eye(C, dtype=dt, device=q.device)
    rhs = torch.cat([v * beta, kg * beta], -1)
    sol = torch.linalg.solve_triangular(Akk + eye, rhs, upper=False, unitriangular=True)
    Ut, W = sol[..., :V], sol[..., V:]
    kd = k * (G[..., -1:, :] - G).exp()
    S = torch.zeros(B, H, K, V, dtype=dt, device=q.device) if initial_state is None else initial_state.to(dt)
    o, S = _chunk_inter(qg, kd, G[..., -1, :], Ut, W, Aqk, S)
    o = o.reshape(B, H, N * C, V)[:, :, :T].transpose(1, 2)
    return o, S


# ---------------------------------------------------------------------------
# layers


def inverse_softplus(x):
    """the y with softplus(y) = x > 0, of a float (in math's double) or of a tensor (in its dtype)"""
    if isinstance(x, torch.Tensor):
        return x + torch.log(-torch.expm1(-x))
    return x + math.log(-math.expm1(-x))


def gate_proj(attn):
    """the weight whose rows feed the gate's softplus beside dt_bias: GDN a_proj, KDA f_proj's
    second (up) projection, one row per entry of dt_bias"""
    return attn.a_proj.weight if hasattr(attn, "a_proj") else attn.f_proj[1].weight


def _init_dt_bias(n):
    dt = torch.exp(torch.rand(n) * (math.log(0.1) - math.log(0.001)) + math.log(0.001)).clamp(min=1e-4)
    return inverse_softplus(dt)


class GatedDeltaNet(nn.Module):
    """fla.layers.gated_deltanet.GatedDeltaNet (use_gate=True, short conv, swish output gate)."""

    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.H = cfg["num_heads"]
        self.K = cfg["head_dim"]
        self.V = int(self.K * cfg["expand_v"])
        kd, vd = self.H * self.K, self.H * self.V
        self.q_proj = nn.Linear(d, kd, bias=False)
        self.k_proj = nn.Linear(d, kd, bias=False)
        self.v_proj = nn.Linear(d, vd, bias=False)
        self.a_proj = nn.Linear(d, self.H, bias=False)
        self.b_proj = nn.Linear(d, self.H, bias=False)
        self.A_log = nn.Parameter(torch.empty(self.H).uniform_(0, 16).log())
        self.dt_bias = nn.Parameter(_init_dt_bias(self.H))
        self.q_conv1d = ShortConvolution(kd, cfg["conv_size"])
        self.k_conv1d = ShortConvolution(kd, cfg["conv_size"])
        self.v_conv1d = ShortConvolution(vd, cfg["conv_size"])
        self.g_proj = nn.Linear(d, vd, bias=False)
        self.o_norm = RMSNormGated(self.V, cfg["norm_eps"], "swish")
        self.o_proj = nn.Linear(vd, d, bias=False)

    def inputs(self, x, cache=None):
        """x [B,T,d] (attn_norm output) -> q,k [B,T,H,K] (l2-normalised, unscaled), v, g [B,T,H], beta [B,T,H].
        cache: the layer's dict of carried state (see DeltaLM.forward), or None."""
        B, T, _ = x.shape
        q = l2norm(self.q_conv1d(self.q_proj(x), cache, "q").view(B, T, self.H, self.K))
        k = l2norm(self.k_conv1d(self.k_proj(x), cache, "k").view(B, T, self.H, self.K))
        v = self.v_conv1d(self.v_proj(x), cache, "v").view(B, T, self.H, self.V)
        wdt = torch.float64 if x.dtype == torch.float64 else torch.float32
        g = -self.A_log.to(wdt).exp() * F.softplus(self.a_proj(x).to(wdt) + self.dt_bias.to(wdt))
        beta = torch.sigmoid(self.b_proj(x))
        return q, k, v, g, beta

    def forward(self, x, mode="chunk", record=None, chunk_size=64, cache=None):
        B, T, _ = x.shape
        q, k, v, g, beta = self.inputs(x, cache)
        fn = chunk_gdn if mode == "chunk" else recurrent_gdn
        kw = dict(chunk_size=chunk_size) if mode == "chunk" else {}
        o_rule, S = fn(q, k, v, g, beta, initial_state=None if cache is None else cache.get("S"), **kw)
        if cache is not None:
            cache["S"] = S.detach().to(torch.float32)
        o_rule = o_rule.to(x.dtype)
        gate = self.g_proj(x).view(B, T, self.H, self.V)
        o = self.o_norm(o_rule, gate)
        if record is not None:
            record.update(q=q, k=k, v=v, g=g, beta=beta, o_rule=o_rule, gate=gate, o=o, S=S)
        return self.o_proj(o.reshape(B, T, self.H * self.V))


class KimiDeltaAttention(nn.Module):
    """fla.layers.kda.KimiDeltaAttention (short conv, low-rank f_proj / g_proj, sigmoid output gate)."""

    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.H = cfg["num_heads"]
        self.K = cfg["head_dim"]
        self.V = int(self.K * cfg["expand_v"])
        kd, vd = self.H * self.K, self.H * self.V
        self.q_proj = nn.Linear(d, kd, bias=False)
        self.k_proj = nn.Linear(d, kd, bias=False)
        self.v_proj = nn.Linear(d, vd, bias=False)
        self.q_conv1d = ShortConvolution(kd, cfg["conv_size"])
        self.k_conv1d = ShortConvolution(kd, cfg["conv_size"])
        self.v_conv1d = ShortConvolution(vd, cfg["conv_size"])
        self.f_proj = nn.Sequential(nn.Linear(d, self.V, bias=False), nn.Linear(self.V, self.H * self.K, bias=False))
        self.b_proj = nn.Linear(d, self.H, bias=False)
        self.A_log = nn.Parameter(torch.empty(self.H).uniform_(1, 16).log())
        self.dt_bias = nn.Parameter(_init_dt_bias(self.H * self.K))
        self.g_proj = nn.Sequential(nn.Linear(d, self.V, bias=False), nn.Linear(self.V, vd, bias=True))
        self.o_norm = RMSNormGated(self.V, cfg["norm_eps"], "sigmoid")
        self.o_proj = nn.Linear(vd, d, bias=False)

    def inputs(self, x, cache=None):
        B, T, _ = x.shape
        q = l2norm(self.q_conv1d(self.q_proj(x), cache, "q").view(B, T, self.H, self.K))
        k = l2norm(self.k_conv1d(self.k_proj(x), cache, "k").view(B, T, self.H, self.K))
        v = self.v_conv1d(self.v_proj(x), cache, "v").view(B, T, self.H, self.V)
        f = self.f_proj(x).view(B, T, self.H, self.K)
        wdt = torch.float64 if x.dtype == torch.float64 else torch.float32
        g = -self.A_log.to(wdt).exp()[:, None] * F.softplus(f.to(wdt) + self.dt_bias.to(wdt).view(self.H, self.K))
        beta = torch.sigmoid(self.b_proj(x))
        return q, k, v, g, beta

    def forward(self, x, mode="chunk", record=None, chunk_size=32, sub_chunk=8, cache=None):
        B, T, _ = x.shape
        q, k, v, g, beta = self.inputs(x, cache)
        S0 = None if cache is None else cache.get("S")
        if mode == "chunk":
            o, S = chunk_kda(q, k, v, g, beta, chunk_size=chunk_size, sub_chunk=sub_chunk, initial_state=S0)
        else:
            o, S = recurrent_kda(q, k, v, g, beta, initial_state=S0)
        if cache is not None:
            cache["S"] = S.detach().to(torch.float32)
        o_rule = o.to(x.dtype)
        gate = self.g_proj(x).view(B, T, self.H, self.V)
        o = self.o_norm(o_rule, gate)
        if record is not None:
            record.update(q=q, k=k, v=v, g=g, beta=beta, o_rule=o_rule, gate=gate, o=o, S=S)
        return self.o_proj(o.reshape(B, T, self.H * self.V))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attn_norm = RMSNorm(cfg["hidden_size"], cfg["norm_eps"])
        self.attn = GatedDeltaNet(cfg) if cfg["model_type"] == "gated_deltanet" else KimiDeltaAttention(cfg)
        self.mlp_norm = RMSNorm(cfg["hidden_size"], cfg["norm_eps"])
        self.mlp = GatedMLP(cfg["hidden_size"], intermediate_size(cfg))

    def forward(self, x, mode="chunk", record=None, **kw):
        h = x + self.attn(self.attn_norm(x), mode=mode, record=record, **kw)
        return h + self.mlp(self.mlp_norm(h))


class Backbone(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embeddings = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"])
        self.layers = nn.ModuleList([Block(cfg) for _ in range(cfg["num_hidden_layers"])])
        self.norm = RMSNorm(cfg["hidden_size"], cfg["norm_eps"])


class DeltaLM(nn.Module):
    """GatedDeltaNetForCausalLM / KDAForCausalLM: parameter names match fla's state_dict."""

    def __init__(self, cfg):
        super().__init__()
        check_supported(cfg)
        self.config = dict(cfg)
        self.model = Backbone(cfg)
        self.lm_head = nn.Linear(cfg["hidden_size"], cfg["vocab_size"], bias=False)
        if cfg["tie_word_embeddings"]:
            self.lm_head.weight = self.model.embeddings.weight
        self._init_weights(cfg)

    @torch.no_grad()
    def _init_weights(self, cfg):
        """fla _init_weights: Linear/Conv1d/Embedding ~ N(0, initializer_range), biases 0,
        norms 1, A_log / dt_bias as in the layer constructors (already done there)."""
        std = cfg["initializer_range"]
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Conv1d, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, std)
                if getattr(m, "bias", None) is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, tokens, mode="chunk", hidden_out=None, records=None, cache=None, **kw):
        """tokens [B,T] int64 -> logits [B,T,vocab].  mode: 'chunk' or 'recurrent'.
        hidden_out: list to receive the residual stream after the embedding and after every block.
        records: list of one dict per layer to receive that layer's q, k, v, g, beta, o_rule (delta
        rule output), gate (output-gate pre-activation), o (input of o_proj) and S (final state).
        cache: a list of one dict per layer carrying the state across calls: 'S' [B,H,K,V] (float32,
        K-first) and 'q', 'k', 'v' (the last W-1 pre-convolution inputs, [B,W-1,D]); read where
        present (empty dicts: a fresh start) and replaced by the state after tokens, so that
        forward(a) then forward(b) with one cache gives the logits of forward(a + b)."""
        x = self.model.embeddings(tokens)
        if hidden_out is not None:
            hidden_out.append(x)
        for i, layer in enumerate(self.model.layers):
            if cache is not None:
                kw["cache"] = cache[i]
            x = layer(x, mode=mode, record=records[i] if records is not None else None, **kw)
            if hidden_out is not None:
                hidden_out.append(x)
        return self.lm_head(self.model.norm(x))


# ---------------------------------------------------------------------------
# checkpoint I/O


def save_checkpoint(model, directory):
    import os
    from safetensors.torch import save_file
    os.makedirs(directory, exist_ok=True)
    sd = {k: v.detach().to(torch.float32).contiguous() for k, v in model.state_dict().items()}
    if model.config["tie_word_embeddings"]:
        sd.pop("lm_head.weight", None)
    save_file(sd, os.path.join(directory, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(model.config, f, indent=2, sort_keys=True)
        f.write("\n")


def load_checkpoint(directory, dtype=torch.float32):
    import os
    from safetensors.torch import load_file
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    model = DeltaLM(cfg)
    sd = load_file(os.path.join(directory, "model.safetensors"))
    missing, unexpected = model.load_state_dict(sd, strict=False)
    missing = [m for m in missing if not (cfg["tie_word_embeddings"] and m == "lm_head.weight")]
    if missing or unexpected:
        raise RuntimeError("checkpoint mismatch: missing %s unexpected %s" % (missing, unexpected))
    return model.to(dtype).eval()


def conv_tail(model, tokens):
    """The short-convolution state after `tokens` [1,T]: for every layer the last W-1 inputs
    (pre-convolution projections) of q, k, v -> [L, 3, D, W-1], oldest first (zeros before t=0)."""
    out = []
    with torch.no_grad():
        x = model.model.embeddings(tokens)
        for layer in model.model.layers:
            xn = layer.attn_norm(x)
            a = layer.attn
            W = a.q_conv1d.kernel_size[0]
            per = []
            for proj in (a.q_proj, a.k_proj, a.v_proj):
                p = proj(xn)[0]                      # [T, D]
                p = torch.cat([p.new_zeros(W - 1, p.shape[1]), p], 0)[-(W - 1):]
                per.append(p.transpose(0, 1))        # [D, W-1]
            out.append(torch.stack(per, 0))
            x = layer(x, mode="recurrent")
    return torch.stack(out, 0)
