"""stepq.hf on tiny randomly initialised Qwen3-Next, Qwen3.5 and Kimi Linear models
(tiny_models.py; nothing downloaded). Needs torch and transformers (the pinned environment of
./stepq test has them; elsewhere these tests are skipped)."""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import stepq  # noqa: E402
from conftest import run  # noqa: E402
from stepq.hf import AdapterError, delta_layers, spec_of  # noqa: E402
from stepq.hf.capture import Capture  # noqa: E402
from stepq.hf.eval import evaluate  # noqa: E402
from tiny_models import MODELS  # noqa: E402


def stream(model, ids, prefill):
    from stepq.hf.cli import run_stream
    run_stream(model, ids, prefill)


def agree(a, b, ratio):
    """method 6.5's rule: max|a-b| <= 1e-6, or rms(a-b)/rms(a) < ratio"""
    d = np.abs(a.astype(np.float64) - b)
    return d.max() <= 1e-6 or np.sqrt((d ** 2).mean() / (a.astype(np.float64) ** 2).mean()) < ratio


@pytest.mark.parametrize("name", sorted(MODELS))
def test_capture_replays(stepq_bin, scratch, name):
    """a captured trace replayed in fp32 reproduces each layer's own read-out (fla's ratio for a
    chunked form against the recurrence, 0.005: the prefill ran chunked, the decode recurrent)"""
    model = MODELS[name]()
    import importlib
    spec = spec_of(model)
    mod = importlib.import_module(spec.modeling)
    kernels = [getattr(mod, k) for k in spec.kernels]
    ids = torch.randint(0, 256, (1, 32), generator=torch.Generator().manual_seed(1))
    trace, out = scratch / ("cap_%s.h5" % name), scratch / ("rep_%s.h5" % name)
    with Capture(model, trace, attrs={"text": "random"}) as c:
        stream(model, ids, 24)
    assert c.steps == 32
    run(stepq_bin, "replay", "--trace", trace, "--format", "fp32", "--out", out)
    with h5py.File(trace) as f, h5py.File(out) as g:
        assert f.attrs["kind"] == spec_of(model).kind and f.attrs["prefill"] == 24
        assert len(f.attrs["weights_sha256"]) == 64
        assert list(f["layer"][...]) == [l.index for l in delta_layers(model, spec_of(model)) for _ in range(l.HV)]
        y, y_ref = f["y"][...], g["y_ref"][...]
        assert agree(y, y_ref, 0.005), np.abs(y - y_ref).max()
        # the decode steps ran the recurrent kernel: closer still
        assert agree(y[24:], y_ref[24:], 1e-4)
    # the hooks are gone and the kernels restored: the model runs as before, unobserved
    assert [getattr(mod, k) for k in spec.kernels] == kernels
    assert not any(m._forward_pre_hooks for m in model.modules())


@pytest.mark.parametrize("name", sorted(MODELS))
def test_capture_small_qk(stepq_bin, scratch, name):
    """at transformers' default initializer_range (0.02) q and k are small enough that the
    kernel's eps (x / sqrt(sum x^2 + 1e-6)) leaves their norms below 1 - 1e-3: the capture records
    the eps (qk_norm_eps), and stepq replays the trace instead of refusing it as unnormalised"""
    model = MODELS[name](init=0.02)
    ids = torch.randint(0, 256, (1, 16), generator=torch.Generator().manual_seed(3))
    trace, out = scratch / ("small_%s.h5" % name), scratch / ("small_rep_%s.h5" % name)
    with Capture(model, trace):
        stream(model, ids, 12)
    with h5py.File(trace) as f:
        assert f.attrs["qk_norm_eps"] == 1e-6
        n = np.linalg.norm(np.concatenate([f["q"][...], f["k"][...]]).astype(np.float64), axis=-1)
        assert n.min() < 1 - 1e-3 and n.max() <= 1 + 1e-6, (n.min(), n.max())  # the case this is about
    run(stepq_bin, "replay", "--trace", trace, "--format", "fp32", "--out", out)
    with h5py.File(trace) as f, h5py.File(out) as g:
        assert agree(f["y"][...], g["y_ref"][...], 0.005)


def test_capture_calibrate_plan(stepq_bin, scratch):
    """a plan calibrated on a captured trace names the model's layers; a format run with it on
    the trace works, and on heads it was not made for it is refused by name"""
    model = MODELS["qwen3_next"]()
    ids = torch.randint(0, 256, (1, 160), generator=torch.Generator().manual_seed(2))
    trace = scratch / "cal.h5"
    with Capture(model, trace):
        stream(model, ids, 160)
    cfg = scratch / "cal.cfg"
    plan = scratch / "cal_plan.h5"
    cfg.write_text('experiment = "calibrate";\nsource = { type = "trace"; path = "%s"; };\nseeds = [1];\n'
                   'steps = 160;\nhorizon = 160;\noutput = "%s";\n' % (trace, plan))
    run(stepq_bin, "calibrate", cfg)
    with stepq.Plan(plan) as p:
        assert p.heads == [(0, 0), (0, 1), (1, 0), (1, 1)]
        p.check("gdn", 128, 128, [(1, 1)])
        with pytest.raises(stepq.StepqError, match="no head 0 of layer 2"):
            p.check("gdn", 128, 128, [(2, 0)])
    run(stepq_bin, "replay", "--trace", trace, "--format", "stepquant4", "--plan", plan, "--out", scratch / "sq4.h5")
    # the drivers read a capture as any trace: propagation and halflife, with the plan where asked
    for exp, extra in (("propagation", 'formats = ["int8", "stepquant4"];\nplan = "%s";\nbin = 16;\n' % plan),
                       ("halflife", 'format = "int4";\n')):
        c2 = scratch / ("drv_%s.cfg" % exp)
        c2.write_text('experiment = "%s";\nsource = { type = "trace"; path = "%s"; };\nprefill = 96;\ndecode = 64;\n'
                      '%soutput = "%s";\n' % (exp, trace, extra, scratch / ("drv_%s.h5" % exp)))
        run(stepq_bin, "run", c2)
        assert os.path.getsize(scratch / ("drv_%s.h5" % exp)) > 0
    # the plan records the model: a capture of other weights is refused with it, in C and in eval
    with h5py.File(trace) as f, stepq.Plan(plan) as p:
        assert p.model_sha256 == f.attrs["weights_sha256"]
    other = MODELS["qwen3_next"](seed=1)
    t2 = scratch / "cal_other.h5"
    with Capture(other, t2):
        stream(other, ids[:, :32], 32)
    r = subprocess.run([stepq_bin, "replay", "--trace", str(t2), "--format", "stepquant4", "--plan", str(plan),
                        "--out", str(scratch / "other.h5")], capture_output=True, text=True)
    assert r.returncode != 0 and "was calibrated on the model whose weights have SHA-256" in r.stderr, r.stderr
    with stepq.Plan(plan) as p, pytest.raises(AdapterError, match="calibrated on the model whose weights"):
        evaluate(other, ids[:, :20], ["stepquant4"], prefill=8, decode=4, plan=p)
    # a malformed weights attribute is refused by name
    import shutil
    bad = scratch / "cal_bad.h5"
    shutil.copy(t2, bad)
    with h5py.File(bad, "a") as f:
        f.attrs["weights_sha256"] = "not-a-hash"
    r = subprocess.run([stepq_bin, "replay", "--trace", str(bad), "--format", "int8", "--out", str(scratch / "b.h5")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "attribute 'weights_sha256' is 'not-a-hash', not a SHA-256" in r.stderr, r.stderr
    # a trace of layer 1 alone, with that plan: its heads are found by label
    t1 = scratch / "cal_l1.h5"
    with Capture(model, t1, layers=[1]):
        stream(model, ids[:, :64], 64)
    run(stepq_bin, "replay", "--trace", t1, "--format", "stepquant4", "--plan", plan, "--out", scratch / "sq4_l1.h5")


def test_eval_fp32_is_native():
    """the fp32 format in the model: no extra NLL, no KL, every top-1 agrees (up to float32
    rounding: the session's recurrence and the model's kernel sum in different orders)"""
    model = MODELS["qwen3_next"]()
    ids = torch.randint(0, 256, (2, 30), generator=torch.Generator().manual_seed(3))
    r = evaluate(model, ids, ["fp32", "int4"], prefill=16, decode=13)
    assert np.abs(r["extra"][:, 0]).max() < 1e-4 and np.abs(r["kl"][:, 0]).max() < 1e-6
    assert r["top1"][:, 0].min() == 1
    assert np.abs(r["state_err"][0]).max() == 0 and np.abs(r["readout_err"][0]).max() == 0
    # int4 does something, and its errors are measured per layer and head
    assert r["state_err"][1].min() > 0 and np.abs(r["kl"][:, 1]).max() > 0
    assert r["state_err"].shape == (2, 2, 2, 13)


@pytest.mark.parametrize("name", ["qwen3_5", "kimi_linear"])
def test_eval_device_session_is_the_cpu_session(monkeypatch, name):
    """the adapters' device path (STEPQ_HF_SESSION=device: the device session, here its host
    backend on a CPU model) against the CPU session's host round trip: the same read-outs and
    states go back into the model, so the NLL, KL, top-1 and state errors are equal; the read-out
    errors within float32 summing (the session sums rows in float32 lanes, sim/sums.h, eval
    numpy's pairwise float32 sum: 1e-5 relative); a format the device session does not take is
    refused by name, and an unknown STEPQ_HF_SESSION too"""
    model = MODELS[name]()
    ids = torch.randint(0, 256, (2, 24), generator=torch.Generator().manual_seed(5))
    monkeypatch.setenv("STEPQ_HF_SESSION", "cpu")
    a = evaluate(model, ids, ["int8", "int4"], prefill=12, decode=9)
    monkeypatch.setenv("STEPQ_HF_SESSION", "device")
    b = evaluate(model, ids, ["int8", "int4"], prefill=12, decode=9)
    assert a["sessions"] == ["cpu"] and b["sessions"] == ["device (host)"]
    for k in ("nll_native", "extra", "kl", "top1", "state_err"):
        assert np.array_equal(a[k], b[k]), k
    assert a["state_err"].min() > 0
    np.testing.assert_allclose(b["readout_err"], a["readout_err"], rtol=1e-5, atol=0)
    with pytest.raises(stepq.StepqError, match="format stepquant4: a device session steps"):
        evaluate(model, ids, ["stepquant4"], prefill=12, decode=2)
    monkeypatch.setenv("STEPQ_HF_SESSION", "gpu")
    with pytest.raises(AdapterError, match="STEPQ_HF_SESSION=gpu: give cpu"):
        evaluate(model, ids, ["int8"], prefill=12, decode=2)


def test_refusals(scratch):
    from transformers import LlamaConfig, LlamaForCausalLM
    llama = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=1))
    with pytest.raises(AdapterError, match="model_type 'llama' has no stepq adapter"):
        Capture(llama, scratch / "x.h5")
    model = MODELS["qwen3_next"]()
    with pytest.raises(AdapterError, match=r"layer\(s\) \[2\] are not delta-rule layers of this model; its "
                                           r"Qwen3NextGatedDeltaNet layers are \[0, 1\]"):
        Capture(model, scratch / "y.h5", layers=[2])
    assert not os.path.exists(scratch / "y.h5") and not os.path.exists(scratch / "y.h5.tmp")
    ids = torch.randint(0, 256, (2, 8))
    with pytest.raises(AdapterError, match="one stream: a batch of 2"):
        with Capture(model, scratch / "z.h5"):
            stream(model, ids, 8)
    assert not os.path.exists(scratch / "z.h5") and not os.path.exists(scratch / "z.h5.tmp")
    mask = torch.ones(1, 8, dtype=torch.long)
    mask[0, :3] = 0  # left padding
    with pytest.raises(AdapterError, match=r"a batch with padding \(the attention mask has zeros in rows \[0\]\)"):
        with Capture(model, scratch / "p.h5"), torch.no_grad():
            model(ids[:1], attention_mask=mask, use_cache=True)
    assert not os.path.exists(scratch / "p.h5")


def test_eval_refuses_a_plan_for_other_layers(stepq_bin, scratch):
    model = MODELS["qwen3_next"]()
    ids = torch.randint(0, 256, (1, 96), generator=torch.Generator().manual_seed(4))
    trace, plan = scratch / "l1.h5", scratch / "l1_plan.h5"
    with Capture(model, trace, layers=[1]):
        stream(model, ids, 96)
    cfg = scratch / "l1.cfg"
    cfg.write_text('experiment = "calibrate";\nsource = { type = "trace"; path = "%s"; };\nseeds = [1];\n'
                   'steps = 96;\nhorizon = 96;\noutput = "%s";\n' % (trace, plan))
    run(stepq_bin, "calibrate", cfg)
    with stepq.Plan(plan) as p:
        with pytest.raises(stepq.StepqError, match="has no head 0 of layer 0"):
            evaluate(model, ids[:, :20], ["stepquant4"], prefill=8, decode=4, plan=p)
        # the layer it was made for is accepted
        r = evaluate(model, ids[:, :20], ["stepquant4"], prefill=8, decode=4, plan=p, layers=[1])
        assert r["state_err"].shape == (1, 1, 2, 4)


def test_commands(stepq_bin, scratch, capsys):
    """the README's commands on a saved tiny Qwen3-Next (no tokenizer: read as bytes): capture as
    `python -m stepq.hf` (the entry point itself), eval and a refusal through the same main()"""
    from stepq.hf.__main__ import main
    mdir = scratch / "tiny_qwen3_next"
    MODELS["qwen3_next"]().save_pretrained(mdir)
    text = scratch / "doc.txt"
    text.write_bytes(bytes(range(32, 127)) * 3)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    r = subprocess.run([sys.executable, "-m", "stepq.hf", "capture", "--model", str(mdir), "--text", str(text),
                        "--out", str(scratch / "caps"), "--max-tokens", "72", "--prefill", "64"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "72 steps of 2 layers x 2 value heads (gdn)" in r.stdout and "tokens/s" in r.stdout
    with h5py.File(scratch / "caps" / "doc.h5") as f:
        # q/k heads: the layers' own (one each, transformers 5.24), or one per value head where the
        # modeling file repeats them before the kernel (5.18); two layers either way
        assert f.attrs["tokenizer"] == "bytes" and f.attrs["prefill"] == 64 and f["q"].shape in ((72, 2, 128),
                                                                                                 (72, 4, 128))
    out = scratch / "ev" / "eval.h5"
    main(["eval", "--model", str(mdir), "--text", str(text), str(text), "--formats", "fp32,int4", "--out", str(out),
          "--prefill", "48", "--decode", "16", "--bin", "4", "--generate", "4",
          "--plot", os.path.join(os.path.dirname(__file__), "..", "..", "plots", "nll.gp")])
    assert "ms per token and stream" in capsys.readouterr().out
    assert os.path.getsize(scratch / "ev" / "eval.png") > 1000
    with h5py.File(out) as f:
        assert f["extra"].shape == (2, 2, 4) and f["state_err"].shape == (2, 2, 2, 4)
        assert np.abs(f["extra_mean"][0]).max() < 1e-4 and f["greedy"].shape == (2, 3, 4)
        assert list(f["greedy_agree"][:, 0]) == [4, 4]  # fp32 generates what the native model does
        assert f["greedy_length"].shape == (2, 3) and f["greedy_length"][...].max() <= 4
    with pytest.raises(SystemExit) as e:
        main(["eval", "--model", str(mdir), "--text", str(text), "--formats", "int77", "--out", str(scratch / "bad.h5")])
    assert e.value.code == 2 and "no format is called 'int77'" in capsys.readouterr().err
    assert not os.path.exists(scratch / "bad.h5")


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BOOKS = [os.path.join(ROOT, "data", "lm", "heldout", "prose", b + ".txt")
         for b in ("Ruth", "Est", "Eccl", "Lam", "Dan", "Amos", "Gal", "Jas")]


def fla_model(name):
    pytest.importorskip("fla")
    from stepq.hf.cli import load_model
    return load_model(os.path.join(ROOT, "data", "lm", name))[0]


@pytest.mark.parametrize("name", ["gdn", "kda"])
def test_fla_capture_is_the_c_forward(stepq_bin, scratch, name):
    """fla's model (its Triton pieces replaced by fla_cpu's torch ones) captured on a text gives
    the inputs stepq's own C forward gives on it (`stepq trace --model`): an independent forward,
    which matches PyTorch's logits to 7e-7 (test_lm.c). Measured: rms ratio 3e-7 to 6e-7; 1e-5
    is the bound. And replay in fp32 reproduces the captured read-outs."""
    model = fla_model(name)
    ids = torch.tensor([list(open(BOOKS[0], "rb").read()[:96])])
    cap, ctr, rep = scratch / ("fla_%s.h5" % name), scratch / ("c_%s.h5" % name), scratch / ("flarep_%s.h5" % name)
    with Capture(model, cap):
        stream(model, ids, 64)
    run(stepq_bin, "trace", "--out", ctr, "--model", os.path.join(ROOT, "data", "lm", name), "--text", BOOKS[0],
        "--steps", 96)
    run(stepq_bin, "replay", "--trace", cap, "--format", "fp32", "--out", rep)
    with h5py.File(cap) as a, h5py.File(ctr) as b, h5py.File(rep) as r:
        for n in ("q", "k", "v", "g", "beta"):
            assert agree(b[n][...], a[n][...], 1e-5), n
        assert list(a["layer"][...]) == list(b["layer"][...]) and list(a["head"][...]) == list(b["head"][...])
        assert agree(a["y"][...], r["y_ref"][...], 1e-5)
    # the stand-ins are gone with the adapter
    from fla.modules import ShortConvolution
    assert ShortConvolution.forward.__module__.startswith("fla")


def test_fla_eval_matches_the_nll_driver(stepq_bin, scratch):
    """eval in the model on data/lm/gdn against the C nll driver (experiments/nll_gdn.cfg's books,
    shorter windows): the native NLL per step agrees to float32 rounding, and INT4's whole-window
    extra NLL agrees within the two 95% intervals (quantized runs are chaotic: means over
    documents, not single steps). The full setting (6144 steps) is paper_repro.md's row."""
    model = fla_model("gdn")
    P, N = 96, 48
    cfg = scratch / "xc.cfg"
    out_c = scratch / "xc_c.h5"
    cfg.write_text('experiment = "nll";\nmodel = "%s";\ndocuments = [%s];\nprefill = %d;\ndecode = %d;\nbin = %d;\n'
                   'formats = ["int4"];\noutput = "%s";\n' % (os.path.join(ROOT, "data", "lm", "gdn"),
                                                             ", ".join('"%s"' % b for b in BOOKS), P, N, N, out_c))
    run(stepq_bin, "run", cfg)
    ids = torch.tensor([list(open(b, "rb").read()[:P + N + 1]) for b in BOOKS])
    r = evaluate(model, ids, ["int4"], prefill=P, decode=N)
    with h5py.File(out_c) as c:
        assert np.abs(c["nll_native"][...] - r["nll_native"]).max() < 1e-4
        wc = c["extra_window"][:, 0]
    wp = r["extra"][:, 0].mean(-1)
    (mc, hc), (mp, hp) = stepq.mean_ci95(wc), stepq.mean_ci95(wp)
    assert abs(mc - mp) <= hc + hp, (mc, hc, mp, hp)
