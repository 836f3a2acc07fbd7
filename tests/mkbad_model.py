#!/usr/bin/env python3
"""mkbad_model.py SRC DST CASE: a copy of the checkpoint directory SRC at DST, broken as CASE says
(test_cli's model cases; the standard library only):
  nan      the first float of model.norm.weight NaN
  gelu     config.json's hidden_act "gelu" (the forward implements SiLU only)
  attn     config.json's attn set (a hybrid model's attention layers)
  overlap  model.embeddings.weight's bytes begin inside lm_head.weight's, with an empty tensor
           between the two (the overlap check once stepped over it)"""
import json, math, os, shutil, struct, sys

src, dst, case = sys.argv[1:4]
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(src, dst)
st, cfg = os.path.join(dst, "model.safetensors"), os.path.join(dst, "config.json")
if case in ("gelu", "attn"):
    c = json.load(open(cfg))
    if case == "gelu":
        c["hidden_act"] = "gelu"
    else:
        c["attn"] = {"layers": [1], "num_heads": 4}
    json.dump(c, open(cfg, "w"))
    sys.exit(0)
b = bytearray(open(st, "rb").read())
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n])
data = b[8 + n:]
if case == "nan":
    at = h["model.norm.weight"]["data_offsets"][0]
    data[at:at + 4] = struct.pack("<f", math.nan)
elif case == "overlap":
    a0, a1 = h["lm_head.weight"]["data_offsets"]
    e0, e1 = h["model.embeddings.weight"]["data_offsets"]
    h["model.embeddings.weight"]["data_offsets"] = [a1 - 64, e1 - 64]
    h["zz.empty"] = {"dtype": "F32", "shape": [0], "data_offsets": [a1 - 100, a1 - 100]}
else:
    sys.exit("unknown case " + case)
hb = json.dumps(h).encode()
open(st, "wb").write(struct.pack("<Q", len(hb)) + hb + bytes(data))
