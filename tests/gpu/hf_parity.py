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
sees no GPU or lacks transformers and fla."""
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
# STEPQ_HF_PARITY_DEVICES=cpu,cpu runs the script's own logic on a machine without a GPU
devices = os.environ.get("STEPQ_HF_PARITY_DEVICES", "cpu,cuda").split(",")
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
for name, model, prefill, decode in (("gdn", os.path.join(root, "data/lm/gdn"), 256, 128), ("q35", q35, 64, 64)):
    res = {}
    for i, dev in enumerate(devices):
        path = os.path.join(out, "%s-%d-%s.h5" % (name, i, dev))
        cmd = [sys.executable, "-m", "stepq.hf", "eval", "--model", model, "--text", *texts, "--formats", "fp32,int8,int4",
               "--prefill", str(prefill), "--decode", str(decode), "--device", dev, "--out", path]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        print(" ".join(cmd), "->", r.returncode)
        if r.returncode != 0:
            print(r.stdout[-2000:], r.stderr[-2000:])
            bad.append("%s on %s: eval failed" % (name, dev))
            break
        with h5py.File(path, "r") as f:
            res[i] = {k: f[k][()] for k in ("nll_native", "extra_window", "state_err", "readout_err")}
            res[i]["formats"] = [x.decode() for x in f["formats"][()]]
            res[i]["kernels"] = str(f.attrs["kernels"])
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
