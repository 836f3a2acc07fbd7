"""stepq.Session, the decode-step protocol stepped from Python, against two references: the
delta rule in float64 written here (method 1), and `stepq replay` on a trace file, whose
read-outs the session must reproduce bit for bit (one engine, fed the same inputs); and the
environments that crashed a session or a codec, refused when it opens."""
import os
import resource
import subprocess
import sys

import h5py
import numpy as np
import pytest

import stepq
from conftest import run


def delta_rule(S, q, k, v, g, beta, scale):
    """one step of every head in float64: S [H,K,V], g [H,G] log decays per key row (G = 1 or K)"""
    S = S * np.exp(g)[:, :, None]  # [H,1,1] or [H,K,1]
    u = beta[:, None] * (v - np.einsum("hkv,hk->hv", S, k))
    S = S + k[:, :, None] * u[:, None, :]
    return S, scale * np.einsum("hkv,hk->hv", S, q)


def inputs(rng, H, K, V, G):
    q = rng.standard_normal((H, K))
    k = rng.standard_normal((H, K))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    return (q.astype(np.float32), k.astype(np.float32), rng.standard_normal((H, V)).astype(np.float32),
            (-0.3 * rng.uniform(size=(H, G))).astype(np.float32), rng.uniform(0.2, 0.8, H).astype(np.float32))


@pytest.mark.parametrize("kind,G", [("gdn", 1), ("kda", 32)])
def test_reference_is_the_delta_rule(kind, G):
    H, K, V = 3, 32, 16
    rng = np.random.default_rng(1)
    S0 = (0.1 * rng.standard_normal((H, K, V))).astype(np.float32)
    s = stepq.Session(kind, K, V, H, ["fp32", "int8"], prefill=4, S0=S0, keep_states=True)
    R = S0.astype(np.float64)
    for t in range(30):
        q, k, v, g, beta = inputs(rng, H, K, V, G)
        R, y = delta_rule(R, *(x.astype(np.float64) for x in (q, k, v, g, beta)), 1 / np.sqrt(K))
        s.step(q, k, v, g, beta)
        # float32 against float64 over 30 steps: 1e-4 of the largest value is well above the
        # rule's own rounding and far below any real disagreement
        assert np.abs(s.readout() - y).max() <= 1e-4 * np.abs(y).max()
        assert np.abs(s.state() - R).max() <= 1e-4 * np.abs(R).max()
        if t >= 4:
            assert np.array_equal(s.readout("fp32"), s.readout())
            e, a, r = s.errors("int8")
            Sh = s.state("int8").astype(np.float64)
            Sr = s.state().astype(np.float64)
            assert np.allclose(e, ((Sh - Sr) ** 2).sum(axis=(1, 2)), rtol=1e-5)
            assert np.all(e > 0) and np.all(e < 0.01 * r)
            # the stored bytes decode to the state the session reports
            for h in range(H):
                X = stepq.decode(s.packed("int8", h), "int8", K, V, kind=kind)
                assert np.array_equal(X, s.state("int8")[h])
    assert s.steps == 30
    s.close()


@pytest.mark.parametrize("kind,G", [("gdn", 1), ("kda", 128)])
def test_backends_agree_bit_for_bit(kind, G):
    """Every CPU backend this machine runs steps the same numbers as the reference protocol
    (method 6.5): read-outs, errors and packed bytes equal, over formats whose encoders work
    row by row and over the whole-head ones."""
    H, K, V = 2, 128, 128
    fmts = ["bf16", "int8", "int6", "int4", "nvfp4", "fp8-tile32", "int8-sr", "leap6-r4-freeze", "int6-replay16"]
    names = ["reference", "cpu", "x86-64-v2", "avx2", "avx512"]
    sessions = {}
    for b in names:
        try:
            sessions[b] = stepq.Session(kind, K, V, H, fmts, prefill=3, backend=b)
        except stepq.StepqError as e:  # an instruction set this CPU lacks is refused by name
            assert "this CPU cannot run it" in str(e) and b in ("avx2", "avx512"), str(e)
    assert len(sessions) >= 3
    rng = np.random.default_rng(7)
    for t in range(12):
        x = inputs(rng, H, K, V, G)
        for s in sessions.values():
            s.step(*x)
    ref = sessions.pop("reference")
    for b, s in sessions.items():
        for f in fmts:
            assert np.array_equal(s.readout(f), ref.readout(f)), (b, f)
            for a, r in zip(s.errors(f), ref.errors(f)):
                assert np.array_equal(a, r), (b, f)
            for h in range(H):
                assert np.array_equal(s.packed(f, h), ref.packed(f, h)), (b, f, h)
        s.close()
    ref.close()


@pytest.mark.parametrize("name,says", [("gpu", "not one of cpu, reference"),
                                       ("cuda", "cuda"), ("", "not one of")])
def test_backend_refused(name, says):
    with pytest.raises(stepq.StepqError) as e:
        stepq.Session("gdn", 16, 16, 1, ["int8"], backend=name)
    assert says in str(e.value)


def test_session_reproduces_replay(stepq_bin, scratch):
    trace, out = scratch / "trace.h5", scratch / "replay.h5"
    run(stepq_bin, "trace", "--out", trace, "--steps", 48, "--preset", "gdn-qwen-like", "--heads", "0-2", "--seed", 3)
    run(stepq_bin, "replay", "--trace", trace, "--format", "int6", "--out", out, "--prefill", 16)
    with h5py.File(trace, "r") as f:
        q, k, v, g, beta = (f[n][...] for n in ("q", "k", "v", "g", "beta"))
        scale = f.attrs.get("scale")
    with h5py.File(out, "r") as f:
        y, y_ref, S_final = f["y"][...], f["y_ref"][...], f["S_final"][...]
    T, H, K = q.shape
    V = v.shape[2]
    s = stepq.Session("gdn", K, V, H, ["int6"], prefill=16, keep_states=True,
                      scale=None if scale is None else float(scale))
    for t in range(T):
        s.step(q[t], k[t], v[t], g[t], beta[t])
        assert np.array_equal(s.readout().view(np.uint32), y_ref[t].view(np.uint32)), "reference, step %d" % t
        if t >= 16:
            assert np.array_equal(s.readout("int6").view(np.uint32), y[t].view(np.uint32)), "int6, step %d" % t
    assert np.array_equal(s.state("int6"), S_final)


def test_planned_session(gdn_plan):
    with stepq.Plan(gdn_plan) as p:
        rng = np.random.default_rng(2)
        s = stepq.Session("gdn", p.K, p.V, 2, ["stepquant4", "int4"], plan=p, plan_heads=[2, 0])
        for t in range(6):
            s.step(*inputs(rng, 2, p.K, p.V, 1))
        e4, _, r = s.errors("stepquant4")
        assert np.all(e4 > 0) and np.all(e4 < r)
        # head 0 of the session encodes with the plan's head 2: its bytes are that head's size
        assert len(s.packed("stepquant4", 0)) == stepq.Codec("stepquant4", p.K, p.V, plan=p, head=2).bytes


def test_refusals(gdn_plan):
    with pytest.raises(stepq.StepqError, match="needs a calibration plan"):
        stepq.Session("gdn", 128, 128, 2, ["stepquant4"])
    with pytest.raises(stepq.StepqError, match="no format is called 'int3'"):
        stepq.Session("gdn", 16, 16, 2, ["int3"])
    with stepq.Plan(gdn_plan) as p:
        with pytest.raises(stepq.StepqError, match="head 1 is the plan's head 5"):
            stepq.Session("gdn", p.K, p.V, 2, ["stepquant4"], plan=p, plan_heads=[0, 5])
        with pytest.raises(stepq.StepqError, match="made for gdn heads of 128 x 128, not kda"):
            stepq.Session("kda", p.K, p.V, 2, ["int4"], plan=p)
    s = stepq.Session("gdn", 16, 16, 2, ["int8"])
    rng = np.random.default_rng(3)
    q, k, v, g, beta = inputs(rng, 2, 16, 16, 1)
    with pytest.raises(stepq.StepqError, match="no step has been taken"):
        s.readout()
    with pytest.raises(ValueError, match="q has shape \\(3, 16\\), expected \\(2, 16\\)"):
        s.step(np.zeros((3, 16)), k, v, g, beta)
    with pytest.raises(ValueError, match="g has 16 gates per head; gdn heads of 16 key rows take 1"):
        s.step(q, k, v, np.zeros((2, 16)), beta)
    v[1, 3] = np.inf
    with pytest.raises(stepq.StepqError, match=r"step 0, head 1: v\[3\] is inf") as e:
        s.step(q, k, v, g, beta)
    assert e.value.status == "SQ_ENONFINITE"


# A session whose heads step on OpenMP threads, stepped three times in a fresh interpreter
# (libgomp reads its variables when it starts); prints "stepped" or the refusal.
SESSION = """
import numpy as np, stepq
H, K, V = 4, 128, 128
rng = np.random.default_rng(0)
try:
    s = stepq.Session("gdn", K, V, H, ["int8", "int4"])
    for t in range(3):
        q, k = (x / np.linalg.norm(x, axis=1, keepdims=True) for x in rng.standard_normal((2, H, K)))
        s.step(q.astype(np.float32), k.astype(np.float32), rng.standard_normal((H, V)).astype(np.float32),
               np.full((H, 1), -0.1, np.float32), np.full(H, 0.5, np.float32))
    print("stepped")
except stepq.StepqError as e:
    print("refused:", e.status, e)
"""

# one head's codec of the dual-axis fit (its scratch, some 160 KiB, is on the calling thread's
# stack) with the plan argv[1], encoding once
CODEC = """
import sys, numpy as np, stepq
try:
    with stepq.Plan(sys.argv[1]) as p:
        c = stepq.Codec("space4", p.K, p.V, plan=p)
        c.encode(np.random.default_rng(0).standard_normal((p.K, p.V)).astype(np.float32))
    print("encoded")
except stepq.StepqError as e:
    print("refused:", e.status, e)
"""


def in_env(code, env, stack=None, args=()):
    """runs code in a fresh interpreter with env added (and the stack limit, ulimit -s, at stack)"""
    def limit():
        resource.setrlimit(resource.RLIMIT_STACK, (stack, resource.getrlimit(resource.RLIMIT_STACK)[1]))
    r = subprocess.run([sys.executable, "-c", code] + [str(a) for a in args], env={**os.environ, **env}, capture_output=True, text=True,
                       preexec_fn=limit if stack else None)
    assert r.returncode == 0, "the interpreter died (%d) under %s:\n%s" % (r.returncode, env, r.stderr)
    return r.stdout.strip()


def test_environment_refused(gdn_plan):
    """What crashed a step (a thread stack too small for a quantized step's scratch, libgomp
    asked for 100000 threads) or would be ignored (a STEPQ_* variable that is not a number) is
    refused where the session or codec opens, naming the variable (method 6.9)."""
    for env, message in (
            ({"OMP_STACKSIZE": "128K"}, "OMP_STACKSIZE=128K gives each thread 128 KiB of stack; stepq needs at least 1024 KiB"),
            ({"GOMP_STACKSIZE": "100"}, "GOMP_STACKSIZE=100 gives each thread 100 KiB of stack"),
            ({"OMP_NUM_THREADS": "100000"}, "OMP_NUM_THREADS=100000 asks for 100000 threads; stepq runs at most 4096"),
            ({"STEPQ_MEMORY_BYTES": "abc"}, "STEPQ_MEMORY_BYTES=abc is not a number in")):
        assert in_env(SESSION, env).startswith("refused: SQ_EINVAL " + message)
    assert in_env(SESSION, {"OMP_STACKSIZE": "2M"}) == "stepped"
    # the codec's encode overflowed a 128 KiB main thread; a codec runs on the calling thread
    # alone, so OpenMP's stacks are not its business
    assert in_env(CODEC, {}, stack=128 << 10, args=[gdn_plan]).startswith(
        "refused: SQ_EINVAL the stack limit (ulimit -s) is 128 KiB; stepq needs at least 1024 KiB")
    assert in_env(CODEC, {"OMP_STACKSIZE": "128K"}, args=[gdn_plan]) == "encoded"
