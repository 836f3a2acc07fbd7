#!/usr/bin/env python3
"""mktiny_lm.py: the fuzz_model target's template checkpoint, tests/fuzz/data/lm_tiny.

The shipped GDN model (data/lm/gdn) cut down to one layer of 2 heads of 16 x 16, hidden size 16,
MLP 32: every tensor is the leading block of the shipped one, so its names, dtypes, layout and
config keys are the shipped model's and only its sizes differ. A fuzz input writes and loads
its own checkpoint: 48 KB here against 8 MB, which is what lets the target run 10^6 inputs
(issue 21). Run from the repository root:  python3 tests/fuzz/mktiny_lm.py
"""
import json
import struct

import numpy as np

SRC, DST = "data/lm/gdn", "tests/fuzz/data/lm_tiny"
D, H, K, INTER, LAYERS, CONV = 16, 2, 16, 32, 1, 4  # CONV: the shipped conv_size


def read(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8:8 + n])
    data = b[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", name
        a, z = e["data_offsets"]
        out[name] = np.frombuffer(data[a:z], dtype="<f4").reshape(e["shape"])
    return out, header.get("__metadata__")


def shape_of(name):
    """the tiny shape of a tensor, from its name (the shipped model's layout)"""
    hk = H * K
    leaf = name.split(".", 3)[-1] if name.startswith("model.layers.") else name
    table = {
        "lm_head.weight": (256, D), "model.embeddings.weight": (256, D), "model.norm.weight": (D,),
        "attn.A_log": (H,), "attn.dt_bias": (H,), "attn.a_proj.weight": (H, D), "attn.b_proj.weight": (H, D),
        "attn.q_proj.weight": (hk, D), "attn.k_proj.weight": (hk, D), "attn.v_proj.weight": (hk, D),
        "attn.g_proj.weight": (hk, D), "attn.o_proj.weight": (D, hk), "attn.o_norm.weight": (K,),
        "attn.q_conv1d.weight": (hk, 1, CONV), "attn.k_conv1d.weight": (hk, 1, CONV),
        "attn.v_conv1d.weight": (hk, 1, CONV), "attn_norm.weight": (D,), "mlp_norm.weight": (D,),
        "mlp.gate_proj.weight": (INTER, D), "mlp.up_proj.weight": (INTER, D), "mlp.down_proj.weight": (D, INTER),
    }
    return table[leaf]


def main():
    tensors, meta = read(SRC + "/model.safetensors")
    keep = {n: t for n, t in tensors.items()
            if not n.startswith("model.layers.") or int(n.split(".")[2]) < LAYERS}
    header, blobs, at = {}, [], 0
    if meta is not None:
        header["__metadata__"] = meta
    for name in sorted(keep):
        shape = shape_of(name)
        block = np.ascontiguousarray(keep[name][tuple(slice(0, s) for s in shape)], dtype="<f4")
        raw = block.tobytes()
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(DST + "/model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    cfg = json.load(open(SRC + "/config.json"))
    cfg.update(hidden_size=D, num_heads=H, head_dim=K, intermediate_size=INTER, num_hidden_layers=LAYERS)
    with open(DST + "/config.json", "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
