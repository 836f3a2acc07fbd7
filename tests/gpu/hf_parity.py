"""hf_parity.py OUTDIR: the adapters on a GPU against the same on the CPU (issue 32 item 1,
method 7.4), for tests/gpu/device_check.sh. For fla's GDN byte model (data/lm/gdn: on a GPU fla's
Triton kernels, chunked for the prefill and fused recurrent for each token) and a tiny random
Qwen3.5 (tests/python/tiny_models.py: transformers' kernels, which resolve to fla's on a GPU),
`python -m stepq.hf eval` runs the same documents and formats with --device cpu and --device
cuda. The quantized states are stepped by libstepq on the CPU in both; only the model's own
forward differs (Triton against torch), so the figures must agree to float32 rounding of the
model: native NLL per token within 2e-3 nats of each other, each format's extra NLL over the
window within 2e-3 nats, and the GPU run's record names kernels that ran on cuda. Exit 77 where
torch sees no GPU or lacks transformers and fla."""
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
            res[i] = {k: f[k][()] for k in ("nll_native", "extra_window")}
            res[i]["kernels"] = str(f.attrs["kernels"])
    if len(res) < 2:
        continue
    dn = np.nanmax(np.abs(res[0]["nll_native"] - res[1]["nll_native"]))
    de = np.nanmax(np.abs(res[0]["extra_window"] - res[1]["extra_window"]))
    print("%s: native NLL per token differs by at most %.3g nats, extra NLL over the window by %.3g; kernels on %s: "
          "%s" % (name, dn, de, devices[1], res[1]["kernels"]))
    if not dn <= 2e-3:
        bad.append("%s: native NLL %.3g apart" % (name, dn))
    if not de <= 2e-3:
        bad.append("%s: extra NLL %.3g apart" % (name, de))
    if devices[1] == "cuda" and "on cuda" not in res[1]["kernels"]:
        bad.append("%s: the GPU run records no kernel on cuda (%s)" % (name, res[1]["kernels"]))
for b in bad:
    print("FAIL:", b)
print("hf_parity: %d failed" % len(bad))
sys.exit(1 if bad else 0)
