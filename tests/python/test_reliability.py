"""The package under the inputs of a careless or hostile caller (issue 33, classes 1 to 4): arrays
of every dtype, integers past the C types' widths, strings with NUL, handles used after close or
outliving their plan, threads sharing a session, and step inputs the trace reader refuses. Each
case either gives the numbers of the plain float32 call, computed here beside it, or is refused
with one message naming the value; none crashes, wraps or truncates."""
import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import stepq

K = V = 128


def state(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((K, V)) * np.exp(rng.uniform(-3, 1, (K, 1)))).astype(np.float32)


def unit_rows(rng, H):
    x = rng.standard_normal((H, K)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def step_inputs(seed, H=2):
    rng = np.random.default_rng(seed)
    return (unit_rows(rng, H), unit_rows(rng, H), rng.standard_normal((H, V)).astype(np.float32),
            -rng.uniform(0.001, 0.1, (H, 1)).astype(np.float32), rng.uniform(0.1, 0.9, H).astype(np.float32))


# ---- 1. arrays ----------------------------------------------------------------------------------

def test_bfloat16_and_float16_equal_their_float32_values():
    torch = pytest.importorskip("torch")
    S16 = torch.from_numpy(state()).to(torch.bfloat16)
    S32 = S16.to(torch.float32).numpy()              # bfloat16 -> float32 is exact
    for name in ("int8", "int6", "nvfp4"):
        assert np.array_equal(stepq.roundtrip(S16, name).numpy(), stepq.roundtrip(S32, name))
        assert np.array_equal(stepq.encode(S16, name), stepq.encode(S32, name))
    h = state().astype(np.float16)
    assert np.array_equal(stepq.roundtrip(h, "int6"), stepq.roundtrip(h.astype(np.float32), "int6"))
    # a session fed bfloat16 tensors steps as one fed their float32 values
    q, k, v, g, b = step_inputs(1)
    a16 = [torch.from_numpy(x).to(torch.bfloat16) for x in (q, k, v, g, b)]
    a32 = [x.to(torch.float32).numpy() for x in a16]
    for x in a32[:2]:                                # renormalised after rounding: still unit rows
        x /= np.linalg.norm(x, axis=1, keepdims=True)
    a16[:2] = [torch.from_numpy(x).to(torch.bfloat16) for x in a32[:2]]
    a32[:2] = [x.to(torch.float32).numpy() for x in a16[:2]]
    with stepq.Session("gdn", K, V, 2, ["int6"]) as s1, stepq.Session("gdn", K, V, 2, ["int6"]) as s2:
        s1.step(*a16)
        s2.step(*a32)
        assert np.array_equal(s1.readout(0), s2.readout(0))


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "int32", "int64", "bool", "object", "<U3"])
def test_arrays_of_other_dtypes_are_refused_by_name(dtype):
    S = state()
    bad = np.full((K, V), "abc") if dtype == "<U3" else S.astype(dtype)
    with pytest.raises(ValueError, match=r"dtype %s and shape \(128, 128\)" % dtype):
        stepq.roundtrip(bad, "int6")
    with pytest.raises(ValueError, match="dtype %s" % dtype):
        stepq.encode(bad, "int6")


def test_torch_tensors_of_other_dtypes_are_refused_by_name():
    torch = pytest.importorskip("torch")
    for dt in (torch.complex64, torch.int32, torch.bool):
        with pytest.raises(ValueError, match=r"dtype %s and shape \(128, 128\)" % dt):
            stepq.roundtrip(torch.zeros(K, V, dtype=dt), "int6")


def test_empty_states_are_refused_as_empty():
    for shape in ((0, V), (K, 0), (0, K, V)):
        with pytest.raises(ValueError, match=r"has no elements \(shape"):
            stepq.roundtrip(np.zeros(shape, np.float32), "int6")


def test_packed_bytes_must_be_bytes():
    c = stepq.Codec("int6", K, V)
    P = c.encode(state())
    assert np.array_equal(c.decode(list(P)), c.decode(P))           # a list of ints in range
    assert np.array_equal(c.decode(P.astype(np.int64)), c.decode(P))
    with pytest.raises(ValueError, match=r"must be bytes \(uint8\), not an array of dtype float32"):
        c.decode(P.astype(np.float32))
    with pytest.raises(ValueError, match=r"values outside \[0, 255\]"):
        c.decode(P.astype(np.int64) + 256)
    with pytest.raises(ValueError, match="dtype float64"):
        stepq.decode(P.astype(np.float64), "int6", K, V)
    with pytest.raises(ValueError, match="holds 3 bytes"):
        c.encode(state(), previous=np.zeros(3, np.uint8))
    c.close()


# ---- 2. integers and strings through ctypes ------------------------------------------------------

@pytest.mark.parametrize("call,message", [
    (lambda: stepq.Codec("int6", K, V, head=2**32), r"head is 4294967296; it must lie in \[0, 2147483647\]"),
    (lambda: stepq.Codec("int6", K, V, head=-1), r"head is -1"),
    (lambda: stepq.Codec("int6", 2**32 + K, V), r"K is 4294967424"),
    (lambda: stepq.Codec("int6", K, 1.5), r"V must be an integer, not 1.5"),
    (lambda: stepq.Codec("int6", K, True), r"V must be an integer, not True"),
    (lambda: stepq.Session("gdn", K, V, 2**32 + 2), r"n_heads is 4294967298"),
    (lambda: stepq.Session("gdn", K, V, 1, prefill=2**64 + 5), r"prefill is 18446744073709551621"),
    (lambda: stepq.Session("gdn", K, V, 1, prefill=-3), r"prefill is -3; it must lie in \[0,"),
    (lambda: stepq.Session("gdn", K, V, 1, ["int6"], scale=float("nan")), r"scale is nan"),
    (lambda: stepq.Session("gdn", K, V, 1, "int6"), r"a list of format names, not the string"),
    (lambda: stepq.Codec("int6\0x", K, V), r"holds a NUL character"),
    (lambda: stepq.Session("gdn", K, V, 1, ["int8\0int6"]), r"holds a NUL character"),
    (lambda: stepq.Plan("plan.h5\0.txt"), r"holds a NUL character"),
])
def test_out_of_range_integers_and_nul_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_session_indices_are_checked():
    with stepq.Session("gdn", K, V, 2, ["int6"]) as s:
        s.step(*step_inputs(2))
        with pytest.raises(ValueError, match=r"format index is 2\*\*32|format index is 4294967296"):
            s.readout(2**32)
        with pytest.raises(ValueError, match=r"head is 4294967296"):
            s.packed(0, 2**32)
        with pytest.raises(ValueError, match="errors are a format's"):
            s.errors(None)


# ---- 3. lifetimes and threads ----------------------------------------------------------------------

def test_a_codec_outlives_its_plan(gdn_plan):
    S = state(3)
    with stepq.Plan(gdn_plan) as p:
        want = stepq.Codec("stepquant6", K, V, p, 1).encode(S)
    p = stepq.Plan(gdn_plan)
    c = stepq.Codec("stepquant6", K, V, p, 1)
    p.close()
    del p
    gc.collect()
    junk = [stepq.Plan(gdn_plan) for _ in range(4)]  # reuse what a freed plan left, if anything
    assert np.array_equal(c.encode(S), want)
    assert np.array_equal(c.decode(want), stepq.roundtrip(S, "stepquant6", gdn_plan, 1))
    # a temporary Plan, collected at once
    c2 = stepq.Codec("stepquant6", K, V, stepq.Plan(gdn_plan), 1)
    gc.collect()
    assert np.array_equal(c2.encode(S), want)
    for j in junk:
        j.close()


def test_a_session_outlives_its_plan(gdn_plan):
    args = step_inputs(4, H=2)
    with stepq.Session("gdn", K, V, 2, ["stepquant6"], plan=gdn_plan, prefill=1) as ref:
        ref.step(*args)
        ref.step(*args)
        want = ref.readout("stepquant6")
    p = stepq.Plan(gdn_plan)
    s = stepq.Session("gdn", K, V, 2, ["stepquant6"], plan=p, prefill=1)
    p.close()
    gc.collect()
    s.step(*args)
    s.step(*args)
    assert np.array_equal(s.readout("stepquant6"), want)
    s.close()


def test_use_after_close_says_closed(gdn_plan):
    c = stepq.Codec("int6", K, V)
    c.close()
    with pytest.raises(ValueError, match=r"the codec int6 \(128 x 128\) is closed"):
        c.encode(state())
    s = stepq.Session("gdn", K, V, 2, ["int6"])
    s.close()
    s.close()                                         # twice is harmless
    with pytest.raises(ValueError, match=r"the session \(gdn, 2 heads of 128 x 128\) is closed"):
        s.step(*step_inputs(5))
    with pytest.raises(ValueError, match="is closed"):
        s.readout()
    p = stepq.Plan(gdn_plan)
    p.close()
    with pytest.raises(ValueError, match="is closed"):
        p.find(0, 0)
    with pytest.raises(ValueError, match="is closed"):
        stepq.Codec("stepquant6", K, V, p, 0)


def test_threads_sharing_a_session_take_turns():
    """Four threads step one session with the same inputs 25 times each: whatever the order,
    the result must be that of 100 steps in one thread."""
    args = step_inputs(6, H=8)
    shared = stepq.Session("gdn", K, V, 8, ["int6", "int8"], prefill=10, keep_states=True)
    errors = []

    def work():
        try:
            for _ in range(25):
                shared.step(*args)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with stepq.Session("gdn", K, V, 8, ["int6", "int8"], prefill=10, keep_states=True) as serial:
        for _ in range(100):
            serial.step(*args)
        assert shared.steps == serial.steps == 100
        for f in (None, "int6", "int8"):
            assert np.array_equal(shared.readout(f), serial.readout(f))
            assert np.array_equal(shared.state(f), serial.state(f))
    shared.close()


# ---- 4. what a session accepts -----------------------------------------------------------------------

@pytest.mark.parametrize("what,change,message", [
    ("beta", lambda a: a[4].__setitem__(1, 1.5), r"head 1: beta is 1.5; it must lie in \[0, 1\]"),
    ("g", lambda a: a[3].__setitem__((1, 0), 1.0), r"head 1: g\[0\] is 1; a log decay is finite and <= 0"),
    ("q", lambda a: a[0].__setitem__(0, a[0][0] * 100), r"head 0: q has L2 norm 100"),
    ("k", lambda a: a[1].__setitem__(1, a[1][1] * 2), r"head 1: k has L2 norm 2"),
    ("v", lambda a: a[2].__setitem__((0, 5), np.inf), r"head 0: v\[5\] is inf"),
    ("beta", lambda a: a[4].__setitem__(0, np.nan), r"head 0: beta is nan"),
])
def test_session_refuses_what_the_trace_reader_refuses(what, change, message):
    good = step_inputs(7)
    bad = [x.copy() for x in good]
    change(bad)
    with stepq.Session("gdn", K, V, 2, ["int6"]) as s, stepq.Session("gdn", K, V, 2, ["int6"]) as ref:
        s.step(*good)
        ref.step(*good)
        with pytest.raises(stepq.StepqError, match="step 1, " + message) as e:
            s.step(*bad)
        assert e.value.status == ("SQ_ENONFINITE" if "nan" in message or "inf" in message else "SQ_EINVAL")
        assert s.steps == 1                           # the step was not taken; the session goes on
        s.step(*good)
        ref.step(*good)
        assert np.array_equal(s.readout(0), ref.readout(0))


def test_small_q_from_an_eps_normalisation_is_taken():
    q, k, v, g, b = step_inputs(8)
    q[0] *= 0.25                                      # x / sqrt(|x|^2 + eps) of a small x
    with stepq.Session("gdn", K, V, 2, ["int6"]) as s:
        s.step(q, k, v, g, b)
        assert s.steps == 1


def test_a_session_larger_than_memory_is_refused_before_allocating():
    old = os.environ.get("STEPQ_MEMORY_BYTES")
    os.environ["STEPQ_MEMORY_BYTES"] = str(64 << 20)     # a machine of 64 MiB
    try:
        with pytest.raises(stepq.StepqError, match="sq_session_open: the states of every head and format") as e:
            stepq.Session("gdn", K, V, 256, ["int8", "int6"])
        assert e.value.status == "SQ_ENOMEM"
        stepq.Session("gdn", K, V, 4, ["int8"]).close()  # 4 heads fit
    finally:
        if old is None:
            del os.environ["STEPQ_MEMORY_BYTES"]
        else:
            os.environ["STEPQ_MEMORY_BYTES"] = old


# ---- the lifetimes under AddressSanitizer ----------------------------------------------------------

ASAN_SCRIPT = textwrap.dedent("""
    import gc, sys, numpy as np, stepq
    plan = sys.argv[1]
    S = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32)
    p = stepq.Plan(plan)
    c = stepq.Codec("stepquant6", 128, 128, p, 1)
    s = stepq.Session("gdn", 128, 128, 1, ["stepquant6", "time6"], plan=p, prefill=0)
    p.close(); del p; gc.collect()
    c.decode(c.encode(S))
    q = np.zeros((1, 128), np.float32); q[0, 0] = 1
    s.step(q, q, np.ones((1, 128), np.float32), np.full((1, 1), -0.1, np.float32), np.array([0.5], np.float32))
    s.readout(0); s.close(); c.close()
    print("ok")
""")


def test_lifetimes_under_asan(gdn_plan, tmp_path):
    """The Debug libstepq (AddressSanitizer) preloaded: a plan closed before the codec and the
    session made with it (a heap-use-after-free in quant/dualfit.h before libstepq held plans)."""
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    lib = os.environ.get("STEPQ_DEBUG_LIBRARY", os.path.join(root, "build", "debug", "libstepq.so"))
    if not os.path.exists(lib):
        pytest.skip("no Debug libstepq at %s (./stepq test builds it)" % lib)
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    script = tmp_path / "lifetimes.py"
    script.write_text(ASAN_SCRIPT)
    env = dict(os.environ, STEPQ_LIBRARY=lib, LD_PRELOAD=asan, ASAN_OPTIONS="detect_leaks=0")
    r = subprocess.run([sys.executable, str(script), str(gdn_plan)], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]
