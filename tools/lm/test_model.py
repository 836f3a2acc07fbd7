#!/usr/bin/env python3
"""Tests of tools/lm/model.py.

  tools/lm/.venv/bin/python tools/lm/test_model.py [-v]

* recurrent forms against fla's naive recurrent functions (GDN and KDA), and the gate
  formulas against fla's naive gate functions;
* fla's own GatedDeltaNet / KimiDeltaAttention layers (Triton pieces swapped for their torch
  equivalents, since Triton does not run on a CPU) against ours with the same weights, and
  the parameter names and shapes of fla's *ForCausalLM against ours;
* chunked forms against the recurrent forms (moderate and extreme gates, ragged lengths);
* the whole model, chunked and recurrent, gives the same logits (random init, and the
  shipped checkpoints in data/lm/ when present).

Agreement rule (fla's tests): max|a-b| <= 1e-6 or rms(a-b)/rms(a) < 2e-3; every comparison
prints its measured ratio.  Tests that need fla skip cleanly when it is not installed.
"""
import json
import math
import os
import sys
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import model as M  # noqa: E402

try:
    import fla  # noqa: F401
    from fla.ops.gated_delta_rule.naive import naive_recurrent_gated_delta_rule
    from fla.ops.kda.naive import naive_recurrent_kda
    HAVE_FLA = True
except Exception as e:  # pragma: no cover
    HAVE_FLA = False
    FLA_ERR = repr(e)

torch.set_num_threads(2)
torch.set_flush_denormal(True)
RESULTS = []


def agree(name, ref, out, tol=2e-3):
    ref, out = ref.double(), out.double()
    d = (ref - out)
    mx = d.abs().max().item()
    ratio = (d.square().mean().sqrt() / ref.square().mean().sqrt().clamp_min(1e-300)).item()
    ok = mx <= 1e-6 or ratio < tol
    RESULTS.append((name, mx, ratio, ok))
    print("  %-62s max|d| %.3e  rms ratio %.3e  %s" % (name, mx, ratio, "ok" if ok else "FAIL"), flush=True)
    return ok


def rand_inputs(B, T, H, K, V, kda, seed, extreme=False):
    g = torch.Generator().manual_seed(seed)
    q = M.l2norm(torch.randn(B, T, H, K, generator=g))
    k = M.l2norm(torch.randn(B, T, H, K, generator=g))
    v = torch.randn(B, T, H, V, generator=g)
    beta = torch.sigmoid(torch.randn(B, T, H, generator=g))
    if kda:
        A_log = torch.empty(H).uniform_(1, 16, generator=g).log()
        a = torch.randn(B, T, H, K, generator=g) - 3
        gate = -A_log.exp()[:, None] * F.softplus(a)
    else:
        A_log = torch.empty(H).uniform_(0, 16, generator=g).log()
        a = torch.randn(B, T, H, generator=g) - 3
        gate = -A_log.exp() * F.softplus(a)
    if extreme:
        gate = gate.clone()
        gate[:, T // 3: T // 3 + 5] = -150.0           # near-total resets inside a chunk
        gate[:, T // 2] = -1e-4                        # almost no decay
    return q, k, v, gate, beta


class TestAgainstFla(unittest.TestCase):
    @unittest.skipUnless(HAVE_FLA, "fla not installed")
    def test_gdn_recurrent_vs_fla_naive(self):
        q, k, v, g, beta = rand_inputs(2, 96, 4, 128, 128, False, 1)
        ref_o, ref_S = naive_recurrent_gated_delta_rule(q, k, v, beta, g, output_final_state=True)
        o, S = M.recurrent_gdn(q, k, v, g, beta)
        self.assertTrue(agree("GDN recurrent vs fla naive_recurrent_gated_delta_rule: o", ref_o, o))
        self.assertTrue(agree("GDN recurrent vs fla naive_recurrent_gated_delta_rule: S", ref_S, S))

    @unittest.skipUnless(HAVE_FLA, "fla not installed")
    def test_kda_recurrent_vs_fla_naive(self):
        q, k, v, g, beta = rand_inputs(2, 96, 4, 128, 128, True, 2)
        ref_o, ref_S = naive_recurrent_kda(q, k, v, g, beta, output_final_state=True)
        o, S = M.recurrent_kda(q, k, v, g, beta)
        self.assertTrue(agree("KDA recurrent vs fla naive_recurrent_kda: o", ref_o, o))
        self.assertTrue(agree("KDA recurrent vs fla naive_recurrent_kda: S", ref_S, S))

    @unittest.skipUnless(HAVE_FLA, "fla not installed")
    def test_gates_vs_fla(self):
        from fla.ops.gated_delta_rule.gate import naive_gdn_gate
        from fla.ops.kda.gate import naive_kda_gate
        torch.manual_seed(3)
        cfg = M.make_config("gated_deltanet", hidden_size=64, num_heads=2)
        lay = M.GatedDeltaNet(cfg)
        x = torch.randn(1, 20, 64)
        _, _, _, g, _ = lay.inputs(x)
        ref = naive_gdn_gate(lay.a_proj(x), lay.A_log, lay.dt_bias)
        self.assertTrue(agree("GDN gate vs fla naive_gdn_gate", ref, g))
        cfg = M.make_config("kda", hidden_size=64, num_heads=2)
        lay = M.KimiDeltaAttention(cfg)
        _, _, _, g, _ = lay.inputs(x)
        ref = naive_kda_gate(lay.f_proj(x).view(1, 20, 2, 128), lay.A_log, lay.dt_bias)
        self.assertTrue(agree("KDA gate vs fla naive_kda_gate", ref, g))

    def _fla_layer(self, kind):
        """fla's layer with its Triton kernels replaced by torch equivalents (fla's naive
        functions where fla has them)."""
        import fla.layers.gated_deltanet as LG
        import fla.layers.kda as LK
        from fla.modules import FusedRMSNormGated, ShortConvolution
        from fla.ops.gated_delta_rule.gate import naive_gdn_gate
        from fla.ops.kda.gate import naive_kda_gate

        def l2(x):
            return x / torch.sqrt(x.float().square().sum(-1, keepdim=True) + 1e-6)

        def kernel(naive, gate_fn):
            def f(q, k, v, g, beta, A_log=None, dt_bias=None, initial_state=None, output_final_state=False,
                  use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
                  state_v_first=False, **kw):
                assert use_qk_l2norm_in_kernel and use_gate_in_kernel and use_beta_sigmoid_in_kernel
                q, k = l2(q), l2(k)
                g = gate_fn(g, A_log, dt_bias)
                beta = torch.sigmoid(beta.float())
                if naive is naive_recurrent_kda:
                    o, S = naive(q, k, v, g, beta, output_final_state=True)
                else:
                    o, S = naive(q, k, v, beta, g, output_final_state=True)
                return o, (S.transpose(-1, -2) if state_v_first else S)
            return f

        def conv_fwd(self, x, cache=None, output_final_state=False, **kw):
            T = x.shape[1]
            y = nn.Conv1d.forward(self, x.transpose(1, 2))[..., :T].transpose(1, 2)
            return F.silu(y), None

        def norm_fwd(self, x, g, **kw):
            y = x.float() * torch.rsqrt(x.float().square().mean(-1, keepdim=True) + self.eps) * self.weight
            return y * (F.silu(g) if self.activation in ("swish", "silu") else torch.sigmoid(g))

        patches = [(ShortConvolution, "forward", conv_fwd), (FusedRMSNormGated, "forward", norm_fwd),
                   (LG, "chunk_gated_delta_rule", kernel(naive_recurrent_gated_delta_rule, naive_gdn_gate)),
                   (LG, "fused_recurrent_gated_delta_rule", kernel(naive_recurrent_gated_delta_rule, naive_gdn_gate)),
                   (LK, "chunk_kda", kernel(naive_recurrent_kda, naive_kda_gate)),
                   (LK, "fused_recurrent_kda", kernel(naive_recurrent_kda, naive_kda_gate)),
                   (LG.GatedDeltaNet, "_use_fused_qkv_conv", lambda self, **kw: False)]
        saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
        for obj, name, fn in patches:
            setattr(obj, name, fn)
        return LG.GatedDeltaNet if kind == "gdn" else LK.KimiDeltaAttention, saved

    @unittest.skipUnless(HAVE_FLA, "fla not installed")
    def test_layers_vs_fla_layers(self):
        for kind in ("gdn", "kda"):
            cls, saved = self._fla_layer(kind)
            try:
                torch.manual_seed(4)
                mt = "gated_deltanet" if kind == "gdn" else "kda"
                cfg = M.make_config(mt, hidden_size=64, num_heads=2, norm_eps=1e-6)
                ours = M.GatedDeltaNet(cfg) if kind == "gdn" else M.KimiDeltaAttention(cfg)
                for p in ours.parameters():      # move away from the init (e.g. all-ones norm weights)
                    with torch.no_grad():
                        p.add_(0.1 * torch.randn_like(p))
                theirs = cls(hidden_size=64, expand_v=1.0, head_dim=128, num_heads=2, conv_size=4,
                             norm_eps=1e-6, layer_idx=0)
                sd = ours.state_dict()
                self.assertEqual(sorted(sd), sorted(theirs.state_dict()))
                for n, t in theirs.state_dict().items():
                    self.assertEqual(tuple(t.shape), tuple(sd[n].shape), n)
                theirs.load_state_dict(sd)
                x = torch.randn(2, 50, 64)
                with torch.no_grad():
                    ref = theirs(x)[0]
                    out_r = ours(x, mode="recurrent")
                    out_c = ours(x, mode="chunk")
                self.assertTrue(agree("%s layer: ours recurrent vs fla layer (torch kernels)" % kind.upper(), ref, out_r))
                self.assertTrue(agree("%s layer: ours chunked vs fla layer (torch kernels)" % kind.upper(), ref, out_c))
            finally:
                for obj, name, fn in saved:
                    setattr(obj, name, fn)

    @unittest.skipUnless(HAVE_FLA, "fla not installed")
    def test_causal_lm_names_match_fla(self):
        try:
            from fla.models import GatedDeltaNetConfig, GatedDeltaNetForCausalLM, KDAConfig, KDAForCausalLM
        except Exception as e:
            self.skipTest("fla models unavailable: %r" % e)
        for mt, Cfg, Cls in (("gated_deltanet", GatedDeltaNetConfig, GatedDeltaNetForCausalLM),
                             ("kda", KDAConfig, KDAForCausalLM)):
            cfg = M.make_config(mt, hidden_size=64, num_heads=2, num_hidden_layers=2, intermediate_size=128)
            keys = {k: v for k, v in cfg.items() if k not in ("architectures", "torch_dtype", "model_type")}
            theirs = Cls(Cfg(**keys))
            ours = M.DeltaLM(cfg)
            a = {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
            b = {k: tuple(v.shape) for k, v in ours.state_dict().items()}
            self.assertEqual(a, b)
            print("  %-62s %d tensors, names and shapes identical" % ("fla %s vs ours" % Cls.__name__, len(a)))


class TestChunkVsRecurrent(unittest.TestCase):
    def test_gdn(self):
        for T, C, ext in ((128, 64, False), (173, 64, False), (173, 32, True), (200, 64, True)):
            q, k, v, g, beta = rand_inputs(2, T, 3, 128, 128, False, 10 + T, extreme=ext)
            ro, rS = M.recurrent_gdn(q, k, v, g, beta)
            co, cS = M.chunk_gdn(q, k, v, g, beta, chunk_size=C)
            tag = "GDN chunk(C=%d) vs recurrent, T=%d%s" % (C, T, ", extreme gates" if ext else "")
            self.assertTrue(agree(tag + ": o", ro, co))
            self.assertTrue(agree(tag + ": S", rS, cS))

    def test_kda(self):
        for T, C, method, ext in ((128, 32, "fact", False), (173, 32, "fact", False), (173, 32, "sub", False),
                                  (173, 16, "auto", True), (200, 32, "sub", True), (200, 64, "auto", True),
                                  (200, 32, "mixed", True)):
            q, k, v, g, beta = rand_inputs(2, T, 3, 128, 128, True, 20 + T, extreme=ext)
            ro, rS = M.recurrent_kda(q, k, v, g, beta)
            co, cS = M.chunk_kda(q, k, v, g, beta, chunk_size=C, method=method)
            tag = "KDA chunk(C=%d,%s) vs recurrent, T=%d%s" % (C, method, T, ", extreme gates" if ext else "")
            self.assertTrue(agree(tag + ": o", ro, co))
            self.assertTrue(agree(tag + ": S", rS, cS))

    def test_kda_mixed_gradients(self):
        # one chunk in seven decays past e^-FACT_LIMIT: "auto" factors the others and takes that one
        # by sub-blocks; its gradients (finite: the factored branch never sees the far chunk's G)
        # against the recurrent form's
        q, k, v, g, beta = rand_inputs(1, 200, 2, 128, 128, True, 31, extreme=True)
        grads = {}
        for name, run in (("recurrent", lambda *x: M.recurrent_kda(*x)),
                          ("auto", lambda *x: M.chunk_kda(*x, chunk_size=32))):
            xs = [t.clone().requires_grad_(True) for t in (q, k, v, g, beta)]
            o, S = run(*xs)
            (o.square().sum() + S.square().sum()).backward()
            grads[name] = [t.grad for t in xs]
        for n, a, b in zip("q k v g beta".split(), grads["recurrent"], grads["auto"]):
            self.assertTrue(bool(torch.isfinite(b).all()), n)
            self.assertTrue(agree("KDA chunk(auto: mixed) vs recurrent: d/d%s" % n, a, b))

    def test_float64(self):
        q, k, v, g, beta = (x.double() for x in rand_inputs(1, 100, 2, 128, 128, True, 5))
        ro, _ = M.recurrent_kda(q, k, v, g, beta)
        co, _ = M.chunk_kda(q, k, v, g, beta)
        self.assertTrue(agree("KDA float64 chunk vs recurrent", ro, co, tol=1e-10))
        q, k, v, g, beta = (x.double() for x in rand_inputs(1, 100, 2, 128, 128, False, 6))
        ro, _ = M.recurrent_gdn(q, k, v, g, beta)
        co, _ = M.chunk_gdn(q, k, v, g, beta)
        self.assertTrue(agree("GDN float64 chunk vs recurrent", ro, co, tol=1e-10))


def heldout_bytes(n):
    p = os.path.join(HERE, "corpus", "heldout", "prose", "Ruth.txt")
    if os.path.exists(p):
        with open(p, "rb") as f:
            return list(f.read()[:n])
    g = torch.Generator().manual_seed(0)
    return torch.randint(32, 127, (n,), generator=g).tolist()


class TestWholeModel(unittest.TestCase):
    def _check(self, model, tag, T=160):
        x = torch.tensor(heldout_bytes(T))[None]
        with torch.no_grad():
            lc = model(x, mode="chunk")
            lr = model(x, mode="recurrent")
        self.assertTrue(agree(tag + ": logits chunked vs recurrent", lr, lc))
        with torch.no_grad():
            l64 = model.double()(x, mode="recurrent")
        model.float()
        self.assertTrue(agree(tag + ": logits float32 vs float64 recurrent", l64, lr))

    def test_random_init(self):
        for mt in ("gated_deltanet", "kda"):
            torch.manual_seed(7)
            m = M.DeltaLM(M.make_config(mt, hidden_size=64, num_heads=2, num_hidden_layers=2,
                                        intermediate_size=128)).eval()
            self._check(m, "random %s" % mt)

    def test_shipped_checkpoints(self):
        found = False
        for name in ("gdn", "kda"):
            d = os.path.join(REPO, "data", "lm", name)
            if os.path.exists(os.path.join(d, "model.safetensors")):
                found = True
                self._check(M.load_checkpoint(d), "shipped data/lm/%s" % name, T=300)
        if not found:
            self.skipTest("no shipped checkpoints")


class TestFixtures(unittest.TestCase):
    def test_fixtures_match_checkpoints(self):
        try:
            import h5py
        except ImportError:
            self.skipTest("h5py not installed")
        found = False
        for name in ("gdn", "kda"):
            ck = os.path.join(REPO, "data", "lm", name)
            fx = os.path.join(REPO, "tests", "data", "lm_%s_reference.h5" % name)
            if not (os.path.exists(os.path.join(ck, "model.safetensors")) and os.path.exists(fx)):
                continue
            found = True
            with h5py.File(fx, "r") as h:
                toks = torch.tensor(h["tokens"][()].astype("int64"))[None]
                logits, logits64 = torch.tensor(h["logits"][()]), torch.tensor(h["logits_f64"][()])
                hidden, state = torch.tensor(h["hidden"][()]), torch.tensor(h["final_state"][()])
                q0 = torch.tensor(h["layer0/q"][()])
            m = M.load_checkpoint(ck)
            recs, hid = [dict() for _ in m.model.layers], []
            with torch.no_grad():
                lr = m(toks, mode="recurrent", hidden_out=hid, records=recs)[0]
                l64 = M.load_checkpoint(ck, dtype=torch.float64)(toks, mode="recurrent")[0]
            self.assertTrue(agree("fixture %s: logits" % name, logits, lr))
            self.assertTrue(agree("fixture %s: logits_f64" % name, logits64, l64, tol=1e-12))
            self.assertTrue(agree("fixture %s: hidden" % name, hidden, torch.stack([x[0] for x in hid])))
            self.assertTrue(agree("fixture %s: final_state" % name, state, torch.stack([r["S"][0] for r in recs])))
            self.assertTrue(agree("fixture %s: layer0 q" % name, q0, recs[0]["q"][0]))
        if not found:
            self.skipTest("no fixtures")


class TestHeads(unittest.TestCase):
    """heads.py's retention, decay and match of a record against the step matrices multiplied out:
    retention k_p^T A_r ... A_{p+1} k_p, match q_r^T (...) k_p"""

    def check_records_through(self, per_channel, seed, T, K, P, R):
        """GDN (per_channel 0): A_t = (I - beta_t k_t k_t^T) exp(g_t), decay alone exp(sum g); KDA
        (a gate a key channel): A_t = (I - beta_t k_t k_t^T) diag(exp(g_t)), decay alone
        k_p^T diag(exp(g_r + ... + g_{p+1})) k_p"""
        import heads
        torch.manual_seed(seed)
        H = P.shape[1]
        q = F.normalize(torch.randn(T, H, K, dtype=torch.float64), dim=-1)
        k = F.normalize(torch.randn(T, H, K, dtype=torch.float64), dim=-1)
        g = -torch.rand(*((T, H, K) if per_channel else (T, H)), dtype=torch.float64)
        beta = torch.rand(T, H, dtype=torch.float64)
        ret, decay, match = heads.records_through(q, k, g, beta, P, R)
        D = (lambda x: torch.diag(x.exp())) if per_channel else (lambda x: x.exp() * torch.eye(K, dtype=torch.float64))
        for j in range(len(R)):
            for h in range(H):
                p, r = int(P[j, h]), int(R[j])
                M = torch.eye(K, dtype=torch.float64)
                for t in range(p + 1, r + 1):
                    kt = k[t, h][:, None]
                    M = (torch.eye(K, dtype=torch.float64) - beta[t, h] * kt @ kt.T) @ D(g[t, h]) @ M
                kp = k[p, h]
                self.assertAlmostEqual(float(ret[j, h]), float(kp @ M @ kp), places=12)
                self.assertAlmostEqual(float(match[j, h]), float(q[r, h] @ M @ kp), places=12)
                self.assertAlmostEqual(float(decay[j, h]), float(kp @ D(g[p + 1:r + 1, h].sum(0)) @ kp), places=12)

    def test_records_through(self):
        # a write position per record and head, a read per record
        self.check_records_through(0, 5, 14, 4, torch.tensor([[2, 4], [0, 1], [7, 9]]), torch.tensor([11, 5, 13]))

    def test_records_through_kda(self):
        self.check_records_through(1, 8, 12, 5, torch.tensor([[1, 3], [6, 0]]), torch.tensor([10, 8]))

    def test_addressing(self):
        """--addressing's table on two hand-made heads: one whose keys follow the value and whose
        query is one for every key (recall by content: 0, 1, 1, 1/2, 1/2), one whose keys and
        queries follow the key (recall by key: 1, 0, 0, 1, 0); its texts put p at the definition's
        ";", f at its value's first byte and r at the byte before the answer"""
        import heads
        e = torch.eye(2, dtype=torch.float64)
        ki, vi = {b"11": 0, b"22": 1}, {b"x": 0, b"y": 1}
        kq = {(key, v): (torch.stack([e[vi[v]], e[ki[key]]]), torch.stack([e[0], e[ki[key]]]))
              for key in ki for v in vi}
        t = heads.addressing_table(kq)
        for got, want in zip(t[0].tolist(), [0, 1, 1, 0.5, 0.5]):
            self.assertAlmostEqual(got, want, places=12)
        for got, want in zip(t[1].tolist(), [1, 0, 0, 1, 0]):
            self.assertAlmostEqual(got, want, places=12)
        texts = heads.addressing_texts(b"some prose\n" * 30, [b"0417"], [b"Ruth"])
        text, p, f, r = texts[(b"0417", b"Ruth")]
        self.assertEqual(text[p - 4:p + 2], b"Ruth;\n")
        self.assertEqual(text[f - 8:f + 4], b"#0417 = Ruth")
        self.assertTrue(text.endswith(b"#0417 ? ") and r == len(text) - 1)

    def test_write_positions(self):
        """--write-at value: the byte before the value for every head; first: the value's first
        byte; end: the ";" after the value; strongest: each head's largest beta on the definition
        line "#0417 = VALUE;\\n", found here by a loop"""
        import heads
        import recall
        torch.manual_seed(6)
        beta = torch.rand(60, 3, dtype=torch.float64)
        recs = [dict(first=20, length=5, start=50), dict(first=9, length=3, start=40)]
        self.assertEqual(heads.write_positions(beta, recs, "value").tolist(), [[19] * 3, [8] * 3])
        self.assertEqual(heads.write_positions(beta, recs, "first").tolist(), [[20] * 3, [9] * 3])
        self.assertEqual(heads.write_positions(beta, recs, "end").tolist(), [[25] * 3, [12] * 3])
        got = heads.write_positions(beta, recs, "strongest")
        for j, s in enumerate(recs):
            line = range(s["first"] - recall.RECORD_HEAD, s["first"] + s["length"] + recall.RECORD_TAIL)
            for h in range(3):
                self.assertEqual(int(got[j, h]), max(line, key=lambda t: float(beta[t, h])))


    def test_key_overlap(self):
        """the mean |cos| between two records' write keys, per head, against a loop over pairs"""
        import heads
        torch.manual_seed(7)
        k = torch.randn(30, 2, 4, dtype=torch.float64)
        P = torch.tensor([[3, 5], [8, 8], [20, 1], [11, 29]])
        got = heads.key_overlap(k, P)
        for h in range(2):
            cs = [abs(float(F.cosine_similarity(k[P[a, h], h], k[P[b, h], h], dim=0)))
                  for a in range(4) for b in range(4) if a != b]
            self.assertAlmostEqual(float(got[h]), sum(cs) / len(cs), places=12)
        self.assertTrue(torch.isnan(heads.key_overlap(k, P[:1])).all())


class TestAddressPairs(unittest.TestCase):
    """train.py --address-keys' positions on a hand-written window: each record's key at its value's
    first byte (--address-at first) or at its ";" (end), each query asked at the byte before its
    answer; a query whose record the window does not define, and a definition cut by the window's
    end, left out"""

    def test_hand_written(self):
        import train
        text = b"ab\n#0417 = Ruth;\n#0001 = Eli;\nxyz\n#0417 ? Ruth\n#9999 ? Zed\n#0001 ? Eli\n#0002 = Gad;"
        x = torch.tensor(list(text[:-3]))[None]  # the last definition's ";" falls outside
        first = [text.index(b"Ruth"), text.index(b"Eli")]
        end = [text.index(b"Ruth;") + 4, text.index(b"Eli;") + 3]
        asks = [(text.index(b"#0417 ?") + 7, 0), (text.index(b"#0001 ?") + 7, 1)]
        self.assertEqual(text[asks[0][0] - 7:asks[0][0] + 1], b"#0417 ? ")
        last = len(text) - 4  # "Gad"'s first byte: in the window for first, its ";" not for end
        self.assertEqual(train.address_pairs(x, "first"), [(first + [last], asks)])
        self.assertEqual(train.address_pairs(x, "end"), [(end, asks)])
        self.assertEqual([text[p] for p in end], [ord(";")] * 2)


class TestWriteStrength(unittest.TestCase):
    """train.py --sparse-writes: the penalised mean beta of the named heads equals the mean of the
    beta each layer's inputs() returns for them, and its gradient reaches only their b_proj rows"""

    def test_mean_and_gradient(self):
        import train
        torch.manual_seed(7)
        cfg = M.make_config("gated_deltanet", hidden_size=32, num_hidden_layers=2, num_heads=4, head_dim=8,
                            expand_v=1.0, intermediate_size=64)
        model = M.DeltaLM(cfg)
        heads = [(0, 1), (1, 0), (1, 3)]
        ws = train.WriteStrength(train.HeadRows(model, heads))
        x = torch.randint(0, 256, (2, 12))
        model.train()
        recs = [dict() for _ in range(2)]
        hooks = [layer.attn.register_forward_hook(
            lambda mod, inp, out, r=r: r.update(zip(("q", "k", "v", "g", "beta"), mod.inputs(inp[0]))))
            for layer, r in zip(model.model.layers, recs)]
        model(x)
        for hk in hooks:
            hk.remove()
        # the hooks' inputs() calls ran b_proj once more per layer on the same input: HeadRows
        # keeps those rows (the same values, through the same weights)
        want = torch.cat([recs[l]["beta"][..., h].reshape(-1) for l, h in heads]).mean()
        got = ws.mean()
        self.assertAlmostEqual(float(got), float(want), places=6)
        model.zero_grad()
        got.backward()
        # in the last layer (whose b_proj input no other named head's beta depends on) only the
        # named heads' rows move; its own q_proj takes no part
        last = model.model.layers[1].attn
        for h in range(4):
            self.assertEqual(bool(last.b_proj.weight.grad[h].abs().sum() > 0), (1, h) in heads, "head %d" % h)
        self.assertIsNone(last.q_proj.weight.grad)
        model.eval()
        model(x[:, :5])
        self.assertEqual(float(ws.mean()), float(got))  # an evaluation forward leaves the rows


if __name__ == "__main__":
    if not HAVE_FLA:
        print("fla not importable (%s): the comparisons with fla are skipped" % FLA_ERR)
    prog = unittest.main(exit=False, verbosity=1)
    bad = [r for r in RESULTS if not r[3]]
    print("%d comparisons, %d outside tolerance; worst rms ratio %.3e" %
          (len(RESULTS), len(bad), max((r[2] for r in RESULTS), default=0.0)))
    sys.exit(0 if prog.result.wasSuccessful() else 1)
