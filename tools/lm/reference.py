#!/usr/bin/env python3
"""Write the reference fixture of a trained checkpoint for the C implementation.

  tools/lm/.venv/bin/python tools/lm/reference.py data/lm/gdn tests/data/lm_gdn_reference.h5
  tools/lm/.venv/bin/python tools/lm/reference.py data/lm/kda tests/data/lm_kda_reference.h5

Input: the first --tokens bytes (default 64, which keeps a fixture near 2 MB) of the first held-out prose document of
data/lm/heldout.json (read from the corpus build directory, checked against its sha256).
The model runs in float32, token by token (recurrent form of the delta rule), from a zero
state; everything is written as float32 except tokens (uint8) and logits_f64 (the same
forward pass with every parameter and activation in float64).

Datasets (T tokens, L layers, H heads, K = V = head_dim, D = H*K, W = conv_size):
  tokens        [T] uint8
  logits        [T, 256] float32       logits[t] predicts token t+1
  logits_f64    [T, 256] float64
  hidden        [L+1, T, hidden]       residual stream after the embedding and after each block
  final_state   [L, H, K, V]           delta-rule state after the last token, K-first (S[k][v])
  conv_state    [L, 3, D, W-1]         per layer, for q, k, v: the last W-1 inputs of the short
                                       convolution (the projections before the conv), oldest first
  layer0/...    layer 0 internals for every token:
    q, k        [T, H, K]  after conv, SiLU and L2 normalisation; NOT scaled by 1/sqrt(K)
    v           [T, H, V]  after conv and SiLU
    g           [T, H] (GDN) or [T, H, K] (KDA): log decay, <= 0
    beta        [T, H]
    o_rule      [T, H, V]  delta-rule read-out S^T (q / sqrt(K))
    o           [T, H, V]  o_norm output = input of o_proj
  (q, k, v, g, beta, o also at the top level, as the task asked for them there.)
Attributes: model, model_type, config (json), torch_version, command, source_document,
source_sha256, source_offset, num_tokens, state_layout.
"""
import argparse
import hashlib
import json
import os
import sys

import h5py
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from model import conv_tail, load_checkpoint  # noqa: E402
from toolcheck import at_least, die, load_model, read_json, readable_file  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    ap.add_argument("--heldout", default=os.path.join(REPO, "data", "lm", "heldout.json"))
    args = ap.parse_args()
    torch.set_num_threads(2)
    # the inputs checked before any work, refused in one line (toolcheck)
    at_least(args, 1, "tokens")
    prose = [d for d in read_json(args.heldout, "--heldout", "documents")["documents"]
             if isinstance(d, dict) and d.get("domain") == "prose" and "file" in d and "sha256" in d]
    if not prose:
        die("--heldout %s: no prose document (with 'file' and 'sha256') in it" % args.heldout)
    doc = prose[0]
    readable_file(os.path.join(args.corpus, doc["file"]), "--corpus %s: document" % args.corpus)
    with open(os.path.join(args.corpus, doc["file"]), "rb") as f:
        text = f.read()
    if hashlib.sha256(text).hexdigest() != doc["sha256"]:
        die("--corpus %s: %s does not match %s (its sha256); rebuild the corpus" % (args.corpus, doc["file"],
                                                                                  args.heldout))
    toks = list(text[:args.tokens])
    x = torch.tensor(toks, dtype=torch.long)[None]

    model = load_model(args.checkpoint)
    cfg = model.config
    L = cfg["num_hidden_layers"]
    with torch.no_grad():
        hidden, recs = [], [dict() for _ in range(L)]
        logits = model(x, mode="recurrent", hidden_out=hidden, records=recs)
        conv = conv_tail(model, x)
        m64 = load_checkpoint(args.checkpoint, dtype=torch.float64)
        logits64 = m64(x, mode="recurrent")
        chunk = model(x, mode="chunk")
    d32 = (logits - logits64).abs().max().item()
    dch = (logits - chunk).abs().max().item()
    print("max |logits f32 - f64| %.3e, max |recurrent - chunked| %.3e" % (d32, dch))

    def f32(t):
        return t.detach().to(torch.float32).numpy()

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    command = "python " + " ".join([os.path.relpath(sys.argv[0], os.getcwd())] + sys.argv[1:])
    with h5py.File(args.out, "w") as h:
        h.create_dataset("tokens", data=np.array(toks, dtype=np.uint8))
        h.create_dataset("logits", data=f32(logits[0]))
        h.create_dataset("logits_f64", data=logits64[0].numpy().astype(np.float64))
        h.create_dataset("hidden", data=np.stack([f32(t[0]) for t in hidden]))
        h.create_dataset("final_state", data=np.stack([f32(r["S"][0]) for r in recs]))
        h.create_dataset("conv_state", data=f32(conv))
        r0 = recs[0]
        g0 = h.create_group("layer0")
        for name in ("q", "k", "v", "g", "beta", "o_rule", "o"):
            g0.create_dataset(name, data=f32(r0[name][0]))
        for name in ("q", "k", "v", "g", "beta", "o"):
            h[name] = h5py.SoftLink("/layer0/" + name)
        a = h.attrs
        a["model"] = os.path.basename(os.path.normpath(args.checkpoint))
        a["model_type"] = cfg["model_type"]
        a["config"] = json.dumps(cfg, sort_keys=True)
        a["torch_version"] = str(torch.__version__)
        a["command"] = command
        a["source_document"] = doc["name"]
        a["source_file"] = doc["file"]
        a["source_sha256"] = doc["sha256"]
        a["source_offset"] = 0
        a["num_tokens"] = len(toks)
        a["state_layout"] = "final_state[l][h][k][v] = S (K-first); o_rule = S^T (q/sqrt(K)) after the write"
        a["max_abs_logits_f32_minus_f64"] = d32
        a["max_abs_logits_recurrent_minus_chunked"] = dch
    print("wrote %s (%d bytes)" % (args.out, os.path.getsize(args.out)))


if __name__ == "__main__":
    main()
