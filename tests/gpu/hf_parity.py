"""hf_parity.py OUTDIR: the adapters on a GPU against the same on the CPU (issue 32 item 1,
method 7.4), for tests/gpu/device_check.sh. For fla's GDN byte model (data/lm/gdn: on a GPU fla's
Triton kernels, chunked for the prefill and fused recurrent for each token) and a tiny random
Qwen3.5 (tests/python/tiny_models.py: transformers' kernels, which resolve to fla's on a GPU),
`python -m stepq.hf eval` runs the same documents and formats with --device cpu and --device
cuda. The quantized states are stepped by libstepq on the CPU in both; only the model's own
forward differs (Triton or cuDNN against torch on the CPU), so the figures must agree to the
float32 rounding of the model's forward, and what that rounding moves:
- native NLL per token within 2e-3 + 1e-3 |NLL| nats (the tiny random Qwen3.5 predicts at about
  12 nats a token: its logits are large, and so are their rounding differences);
- fp32 (the state round-tripped exactly: the hooks and the boundary alone) extra NLL over the
  window within 1e-5 nats;
- each rounding format's state and read-out errors (per layer, head and decode step, means over
  the documents) within 5% and 10% of the CPU's: the same quantized process.
A rounding format's extra NLL over the window is printed, not bounded: at 4 bits it moves by as
much as the effect itself when the model's forward moves by float32 rounding. Measured on the
CPU alone (2026-12-04): data/lm/gdn with every weight multiplied by 1 + 1e-6 N(0,1) moves the
native NLL by at most 9e-6 nats a token, INT4's extra NLL over the window by 0.0056 (0.0019 ->
0.0009 and 0.0031 -> 0.0088 on the two documents), INT8's by 0.0004, the state errors by at most
1.2% and the read-out errors by 3%; on an H200 the GPU run moved them by 0.0054, 0.0004, 1.0%
and 2.4%. The GPU run's record must also name kernels that ran on cuda. Exit 77 where torch
sees no GPU or lacks transformers and fla.

hf_parity.py OUTDIR --session: the device session (issue 68) against the CPU session, both on the
GPU with the same model forward (STEPQ_HF_SESSION=device against =cpu, eval --device cuda, bins of
16 steps): fp32's extra NLL per bin within 1e-5 nats and its top-1 equal; each rounding format's
state and read-out errors, means over layers and heads per bin, within 2% of the CPU session's
(method 6.5's contract (b) for trajectories: the lane kernels' sums run in another order, so a
code may go the other way at a near-tie and the runs then differ as statistics, not step by
step), their extra NLL, KL and top-1 printed; the record names the device session. Then a batch
of 4 streams of 4 heads in one DeviceSession against the 4 one by one, on CUDA tensors, read-outs,
states and errors bit for bit (each head is its own block). Exit 77 where libstepq has no cuda
device session. STEPQ_HF_PARITY_SESSION_DEVICE=cpu runs the same logic on the device session's
host backend (a CPU, no GPU: the two sessions then run the same code, and agree exactly).
STEPQ_HF_PARITY_REUSE=1 takes an eval output already in OUTDIR instead of running it again (a run
cut short by a time limit goes on where it stopped; eval writes its output whole or not at all)."""
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
    import torch
    import transformers  # noqa: F401
    import fla  # noqa: F401
except ImportError as e:
    print("hf_parity: skipped (%s): the adapters' GPU path needs torch, transformers, fla and h5py" % e)
    sys.exit(77)
session_mode = "--session" in sys.argv[2:]
# STEPQ_HF_PARITY_DEVICES=cpu,cpu runs the script's own logic on a machine without a GPU
devices = os.environ.get("STEPQ_HF_PARITY_DEVICES", "cpu,cuda").split(",")
if session_mode:
    devices = [os.environ.get("STEPQ_HF_PARITY_SESSION_DEVICE", "cuda")] * 2
if "cuda" in devices and not torch.cuda.is_available():
    print("hf_parity: skipped: torch %s sees no CUDA device" % torch.__version__)
    sys.exit(77)

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
env = dict(os.environ, PYTHONPATH=os.path.join(root, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
texts = [os.path.join(root, "data/lm/heldout/prose", t) for t in ("Amos.txt", "Dan.txt")]

sys.path.insert(0, os.path.join(root, "tests/python"))
import tiny_models  # noqa: E402

q35 = os.path.join(out, "q35")
if not os.path.isdir(q35):
    tiny_models.qwen3_5().save_pretrained(q35)  # no tokenizer: read as bytes (vocabulary 256)

bad = []
MODELS = (("gdn", os.path.join(root, "data/lm/gdn"), 256, 128), ("q35", q35, 64, 64))
# STEPQ_HF_PARITY_MODELS=q35 (or gdn) runs one of them
MODELS = tuple(m for m in MODELS if m[0] in os.environ.get("STEPQ_HF_PARITY_MODELS", "gdn,q35").split(","))


def run_eval(name, model, prefill, decode, dev, tag, session, more=()):
    """eval's datasets and record of one run (None where it failed: said, and counted in bad)"""
    path = os.path.join(out, "%s-%s-%s.h5" % (name, tag, dev))
    cmd = [sys.executable, "-m", "stepq.hf", "eval", "--model", model, "--text", *texts, "--formats", "fp32,int8,int4",
           "--prefill", str(prefill), "--decode", str(decode), "--device", dev, "--out", path, *more]
    if os.environ.get("STEPQ_HF_PARITY_REUSE") == "1" and os.path.exists(path):
        print("STEPQ_HF_SESSION=%s" % session, " ".join(cmd), "-> taken from an earlier run")
        r = subprocess.CompletedProcess(cmd, 0)
    else:
        r = subprocess.run(cmd, env=dict(env, STEPQ_HF_SESSION=session), capture_output=True, text=True)
        print("STEPQ_HF_SESSION=%s" % session, " ".join(cmd), "->", r.returncode)
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:])
        bad.append("%s on %s (%s session): eval failed" % (name, dev, session))
        return None
    with h5py.File(path, "r") as f:
        res = {k: f[k][()] for k in ("nll_native", "extra_window", "extra", "kl", "top1", "state_err", "readout_err")}
        res["formats"] = [x.decode() for x in f["formats"][()]]
        res["kernels"], res["sessions"] = str(f.attrs["kernels"]), str(f.attrs["sessions"])
    return res


def session_parity():
    """the --session checks of the docstring"""
    import stepq
    dev = devices[0]
    if dev == "cuda" and stepq.device_backend() != "cuda":
        print("hf_parity --session: skipped: this libstepq has no cuda device session (%s)" % stepq._lib.path)
        sys.exit(77)
    for name, model, prefill, decode in MODELS:
        a, b = (run_eval(name, model, prefill, decode, dev, s, s, ("--bin", "16")) for s in ("cpu", "device"))
        if a is None or b is None:
            continue
        if a["sessions"] != "cpu" or not b["sessions"].startswith("device"):
            bad.append("%s: the runs were held by %s and %s, not cpu and a device session" % (name, a["sessions"],
                                                                                              b["sessions"]))
        for f, fmt in enumerate(a["formats"]):
            de = np.nanmax(np.abs(a["extra"][:, f] - b["extra"][:, f]))
            if fmt == "fp32":
                same = np.array_equal(a["top1"][:, f], b["top1"][:, f])
                print("  %s %-6s extra NLL per bin %.3g apart (bound 1e-5), top-1 %s" % (name, fmt, de,
                                                                                       "equal" if same else "DIFFERS"))
                if not (de <= 1e-5 and same):
                    bad.append("%s: fp32 on the device session: extra NLL %.3g apart, top-1 %s" % (name, de, same))
                continue
            rel = {}
            for k in ("state_err", "readout_err"):
                x, y = a[k][f].mean((0, 1)), b[k][f].mean((0, 1))  # [NB]: means over layers and heads
                rel[k] = np.max(np.abs(x - y) / x)
            print("  %s %-6s state error %.3g apart, read-out error %.3g (bound 0.02 each, relative, per bin); extra NLL "
                  "per bin %.3g apart, KL %.3g vs %.3g, top-1 %.3f vs %.3f" % (name, fmt, rel["state_err"],
                  rel["readout_err"], de, np.nanmean(a["kl"][:, f]), np.nanmean(b["kl"][:, f]),
                  np.nanmean(a["top1"][:, f]), np.nanmean(b["top1"][:, f])))
            for k, v in rel.items():
                if not v <= 0.02:
                    bad.append("%s: %s's %s on the device session %.3g apart from the CPU session's" % (name, fmt, k, v))
    batch_equality(stepq, dev)


def host(x):
    """a read's array on the host (a device session's reads are CUDA tensors on the GPU)"""
    return x.cpu().numpy() if torch.is_tensor(x) else x


def batch_equality(stepq, dev):
    """4 streams of 4 heads in one device session against the 4 one by one, bit for bit"""
    B, H, T, K = 4, 4, 24, 128
    g = torch.Generator().manual_seed(11)
    x = [torch.randn(T, B * H, n, generator=g) for n in (K, K, K)]
    q, k, v = (torch.nn.functional.normalize(t, dim=-1) if i < 2 else t for i, t in enumerate(x))
    gate, beta = -0.3 * torch.rand(T, B * H, 1, generator=g), 0.2 + 0.6 * torch.rand(T, B * H, generator=g)
    q, k, v, gate, beta = (t.to(dev).contiguous() for t in (q, k, v, gate, beta))
    backend = "cuda" if dev == "cuda" else "host"
    whole = stepq.DeviceSession("gdn", K, K, B * H, ["int8", "int4"], n_bins=T, backend=backend)
    parts = [stepq.DeviceSession("gdn", K, K, H, ["int8", "int4"], n_bins=T, backend=backend) for _ in range(B)]
    same = True
    for t in range(T):
        whole.step(q[t], k[t], v[t], gate[t], beta[t])
        for b, p in enumerate(parts):
            r = slice(b * H, (b + 1) * H)
            p.step(*(z[t][r].contiguous() for z in (q, k, v, gate, beta)))
        for f in (0, 1):
            for read in ("readout", "state"):
                one_by_one = np.concatenate([host(getattr(p, read)(f)) for p in parts])
                same &= np.array_equal(host(getattr(whole, read)(f)), one_by_one)
    for f in (0, 1):
        e = whole.errors(f)
        for b, p in enumerate(parts):
            same &= all(np.array_equal(x[:, b * H:(b + 1) * H], y) for x, y in zip(e[:2], p.errors(f)[:2]))
    print("batch: %d streams of %d heads in one device session (%s) %s the %d one by one, %d steps, int8 and int4"
          % (B, H, backend, "equal" if same else "DIFFER from", B, T))
    if not same:
        bad.append("a batch of device sessions differs from its sessions one by one")


if session_mode:
    session_parity()
    for b in bad:
        print("FAIL:", b)
    print("hf_parity --session: %d failed" % len(bad))
    sys.exit(1 if bad else 0)

for name, model, prefill, decode in MODELS:
    res = {}
    for i, dev in enumerate(devices):
        # the CPU session on both (the host round trip): the model's forward is what differs
        r = run_eval(name, model, prefill, decode, dev, str(i), "cpu")
        if r is None:
            break
        res[i] = r
    if len(res) < 2:
        continue
    a, b = res[0], res[1]
    dn = np.abs(a["nll_native"] - b["nll_native"])
    ratio = np.nanmax(dn / (2e-3 + 1e-3 * np.abs(a["nll_native"])))
    print("%s: native NLL per token differs by at most %.3g nats (%.2f of its bound at most); kernels on %s: %s"
          % (name, np.nanmax(dn), ratio, devices[1], b["kernels"]))
    if not ratio <= 1:
        bad.append("%s: native NLL beyond 2e-3 + 1e-3 |NLL| apart (%.2f of the bound)" % (name, ratio))
    for f, fmt in enumerate(a["formats"]):
        de = np.nanmax(np.abs(a["extra_window"][:, f] - b["extra_window"][:, f]))
        if fmt == "fp32":
            print("  %-6s extra NLL over the window %.3g apart (bound 1e-5)" % (fmt, de))
            if not de <= 1e-5:
                bad.append("%s: fp32's extra NLL %.3g apart" % (name, de))
            continue
        rel = {}
        for k in ("state_err", "readout_err"):
            x, y = a[k][f], b[k][f]
            m = np.isfinite(x) & (x > 0)
            rel[k] = np.max(np.abs(x - y)[m] / x[m]) if m.any() else 0.0
        print("  %-6s state error %.3g apart (bound 0.05), read-out error %.3g (bound 0.1), relative; extra NLL over "
              "the window %.3g apart (not bounded)" % (fmt, rel["state_err"], rel["readout_err"], de))
        if not rel["state_err"] <= 0.05:
            bad.append("%s: %s's state error %.3g apart" % (name, fmt, rel["state_err"]))
        if not rel["readout_err"] <= 0.1:
            bad.append("%s: %s's read-out error %.3g apart" % (name, fmt, rel["readout_err"]))
    if devices[1] == "cuda" and "on cuda" not in res[1]["kernels"]:
        bad.append("%s: the GPU run records no kernel on cuda (%s)" % (name, res[1]["kernels"]))
for b in bad:
    print("FAIL:", b)
print("hf_parity: %d failed" % len(bad))
sys.exit(1 if bad else 0)
