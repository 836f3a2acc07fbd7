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
    # a scalar where packed bytes go (issue 65 class 7: "'numpy.uint8' object is not iterable")
    for scalar in (np.uint8(3), 3, np.array(3, np.uint8)):
        with pytest.raises(ValueError, match=r"the packed bytes must be uint8 \[bytes\].*not a scalar"):
            stepq.decode(scalar, "int6", K, V)


def test_gates_of_another_count_are_named():
    """g of H + 1 values (issue 65 class 7: numpy's "cannot reshape array of size 5" before)"""
    q, k, v, g, beta = step_inputs(4, H=4)
    with stepq.Session("gdn", K, V, 4) as s:
        with pytest.raises(ValueError, match=r"g has 5 values \(shape \(5,\)\); 4 gdn heads of 128 key rows take 4 "
                                             r"\(g \[H\]\)"):
            s.step(q, k, v, np.full(5, -0.1, np.float32), beta)
        s.step(q, k, v, g, beta)
        assert s.steps == 1
    with stepq.Session("kda", K, V, 2) as s:
        q, k, v, g, beta = step_inputs(5, H=2)
        with pytest.raises(ValueError, match=r"g has 257 values .*2 kda heads of 128 key rows take 256 \(g \[H, K\]\)"):
            s.step(q, k, v, np.full(257, -0.1, np.float32), beta)


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
    ("beta", lambda a: a[4].__setitem__(1, 1.5), r"head 1: beta is 1.5 \(beta lies in \[0, 1\]\)"),
    ("g", lambda a: a[3].__setitem__((1, 0), 1.0), r"head 1: g\[0\] is 1 \(a log decay is finite and <= 0\)"),
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


# ---- 7. traces written by libstepq, bound to their model -----------------------------------------

def trace_block(rng, n, H, HV, kind="gdn"):
    return (np.stack([unit_rows(rng, H) for _ in range(n)]), np.stack([unit_rows(rng, H) for _ in range(n)]),
            rng.standard_normal((n, HV, V)).astype(np.float32),
            -rng.uniform(0.001, 0.2, (n, HV) if kind == "gdn" else (n, HV, K)).astype(np.float32),
            rng.uniform(0, 1, (n, HV)).astype(np.float32))


def test_trace_writer_round_trip(tmp_path):
    """what TraceWriter appends, in blocks of any size, is what h5py reads back, with the labels,
    attributes and a step count; a KDA trace's per-key gates too"""
    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(11)
    for kind in ("gdn", "kda"):
        path = tmp_path / ("w_%s.h5" % kind)
        blocks = [trace_block(rng, n, 1, 2, kind) for n in (1, 63, 70, 2)]
        with stepq.TraceWriter(path, kind, 1, 2, K, V, weights_sha256="0" * 64, layer=[3, 3], head=[0, 1]) as w:
            w.attr("text", "doc.txt")
            w.attr("prefill", 1)
            for b in blocks:
                w.append(*b)
            assert w.steps == 136
        with h5py.File(path) as f:
            for j, name in enumerate(("q", "k", "v", "g", "beta")):
                assert np.array_equal(f[name][...], np.concatenate([b[j] for b in blocks])), name
            assert list(f["layer"][...]) == [3, 3] and list(f["head"][...]) == [0, 1]
            assert f.attrs["kind"] == kind and f.attrs["text"] == "doc.txt" and f.attrs["prefill"] == 1
            assert f.attrs["steps"] == 136 and f.attrs["weights_sha256"] == "0" * 64 and len(f.attrs["identity_xxh3"]) == 16
        assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


def test_trace_writer_refuses_what_the_reader_refuses(tmp_path):
    rng = np.random.default_rng(12)
    path = tmp_path / "bad.h5"
    w = stepq.TraceWriter(path, "gdn", 1, 2, K, V)
    w.append(*trace_block(rng, 5, 1, 2))
    for j, bad, pattern, status in [
            (4, 1.5, r"step 5, head 1: beta\[0\] is 1.5 \(beta lies in \[0, 1\]\)", "SQ_EINVAL"),
            (3, 0.5, r"step 5, head 1: g\[0\] is 0.5", "SQ_EINVAL"),
            (2, np.nan, r"step 5, head 1: v\[0\] is nan \(not finite\)", "SQ_ENONFINITE"),
            (0, 3.0, r"step 5, head 0: q has L2 norm 3", "SQ_EINVAL")]:
        b = [x.copy() for x in trace_block(rng, 1, 1, 2)]
        if j == 0:
            b[0] *= bad
        elif j == 2:
            b[2][0, 1, 0] = bad
        else:
            b[j][0, 1] = bad
        with pytest.raises(stepq.StepqError, match=pattern) as e:
            w.append(*b)
        assert e.value.status == status
    assert w.steps == 5                                       # refused blocks are not kept
    with pytest.raises(stepq.StepqError, match="attribute 'kind' is the trace's own"):
        w.attr("kind", "kda")
    w.abandon()
    assert list(tmp_path.iterdir()) == []                     # abandoned: nothing left
    with pytest.raises(stepq.StepqError, match="no steps were appended"):
        stepq.TraceWriter(tmp_path / "empty.h5", "gdn", 1, 1, K, V).close()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(stepq.StepqError, match="is a directory"):
        stepq.TraceWriter(tmp_path, "gdn", 1, 1, K, V)
    with pytest.raises(stepq.StepqError, match="not a SHA-256"):
        stepq.TraceWriter(tmp_path / "x.h5", "gdn", 1, 1, K, V, weights_sha256="abc")
    # labels the readers refuse, refused at the open (issue 65 class 1: they were written and
    # committed); read-outs given to a writer without them, refused (they were dropped)
    with pytest.raises(stepq.StepqError, match="value heads 0 and 2 are both labelled layer 4, head 1") as e:
        stepq.TraceWriter(tmp_path / "x.h5", "gdn", 1, 3, K, V, layer=[4, 4, 4], head=[1, 0, 1])
    assert e.value.status == "SQ_EINVAL"
    with pytest.raises(stepq.StepqError, match="both layer and head labels or neither"):
        stepq.TraceWriter(tmp_path / "x.h5", "gdn", 1, 2, K, V, layer=[0, 1])
    assert list(tmp_path.iterdir()) == []
    w = stepq.TraceWriter(tmp_path / "x.h5", "gdn", 1, 2, K, V)
    b = trace_block(rng, 2, 1, 2)
    with pytest.raises(ValueError, match=r"y given, but the trace .*x.h5 was opened without read-outs"):
        w.append(*b, y=b[2])
    assert w.steps == 0
    w.abandon()
    assert list(tmp_path.iterdir()) == []


def test_an_edited_model_identity_is_refused(stepq_bin, tmp_path):
    """a trace names its model and carries the checksum of what identifies it: editing
    weights_sha256 (to pass a plan off as another model's), or deleting the checksum, is refused"""
    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(13)
    path = tmp_path / "cap.h5"
    with stepq.TraceWriter(path, "gdn", 1, 2, K, V, weights_sha256="a" * 64) as w:
        w.append(*trace_block(rng, 40, 1, 2))

    def replay():
        return subprocess.run([stepq_bin, "replay", "--trace", str(path), "--format", "int8", "--out",
                               str(tmp_path / "r.h5"), "--prefill", "8"], capture_output=True, text=True)

    assert replay().returncode == 0
    with h5py.File(path, "r+") as f:
        f.attrs["weights_sha256"] = "b" * 64
    r = replay()
    assert r.returncode != 0 and "do not match their checksum identity_xxh3" in r.stderr, r.stderr
    with h5py.File(path, "r+") as f:
        del f.attrs["identity_xxh3"]
    r = replay()
    assert r.returncode != 0 and "names its model (weights_sha256) without the checksum" in r.stderr, r.stderr


def test_a_plan_naming_no_model_is_refused_for_a_models_trace(stepq_bin, gdn_plan, tmp_path):
    """a synthetic preset's plan (no model_weights_sha256) is refused for a trace that names its
    model, unless the user says so (--plan-any-model); for a trace naming none it is taken"""
    rng = np.random.default_rng(14)
    named, anon = tmp_path / "named.h5", tmp_path / "anon.h5"
    for path, sha in ((named, "c" * 64), (anon, None)):
        with stepq.TraceWriter(path, "gdn", 1, 2, K, V, weights_sha256=sha, layer=[0, 0], head=[0, 1]) as w:
            w.append(*trace_block(rng, 40, 1, 2))

    def replay(trace, *more):
        return subprocess.run([stepq_bin, "replay", "--trace", str(trace), "--format", "stepquant4", "--plan",
                               str(gdn_plan), "--out", str(tmp_path / "r.h5"), "--prefill", "8", *more],
                              capture_output=True, text=True)

    r = replay(named)
    assert r.returncode != 0 and "names no model" in r.stderr and "--plan-any-model" in r.stderr, r.stderr
    assert replay(named, "--plan-any-model").returncode == 0
    assert replay(anon).returncode == 0


def test_eval_refuses_a_plan_naming_no_model(gdn_plan):
    pytest.importorskip("transformers")
    sys.path.insert(0, os.path.dirname(__file__))
    from tiny_models import qwen3_next
    from stepq.hf import AdapterError
    from stepq.hf.eval import Evaluator
    model = qwen3_next()
    with stepq.Plan(gdn_plan) as p:
        with pytest.raises(AdapterError, match="names no model .*--plan-any-model"):
            Evaluator(model, plan=p)
        with pytest.raises(stepq.StepqError, match="has no head 0 of layer 1"):  # past that check, to the heads
            Evaluator(model, plan=p, plan_any_model=True)


def test_reading_a_head_whose_first_step_failed_is_refused(tmp_path):
    """a session whose first step fails on one head (an initial state so large that S^T k
    overflows) keeps no view of that head: libstepq then copied its read-out from NULL (a crash
    in Release), found by fuzz_session; now a refusal naming the head. Run in a fresh
    interpreter: the old library killed it."""
    script = tmp_path / "failed.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, stepq
        S0 = np.zeros((2, 8, 8), np.float32); S0[1] = 3e38
        s = stepq.Session("gdn", 8, 8, 2, ["int8"], S0=S0)
        k = np.full((2, 8), 8 ** -0.5, np.float32)
        try:
            s.step(k, k, np.ones((2, 8), np.float32), np.full((2, 1), -0.1, np.float32), np.full(2, 0.5, np.float32))
        except stepq.StepqError as e:
            print(e.status)
        for f in (None, 0):
            try:
                s.readout(f)
            except stepq.StepqError as e:
                print(e.status, e)
    """))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().split("\n")
    assert lines[0] == "SQ_ENONFINITE", r.stdout
    assert all("head 1 has nothing to read: its first step failed" in l for l in lines[1:]) and len(lines) == 3, r.stdout


def test_a_trace_writer_whose_write_failed_refuses_and_leaves_nothing(tmp_path):
    """issue 65 class 1: a write that fails (a file-size limit, RLIMIT_FSIZE with SIGXFSZ ignored,
    as a full disk fails it) is refused with the system's reason; every later append and the close
    are refused with that same reason, nothing crashes (before: the appends went on past the
    writer's buffer and the close died in glibc), and no file is left, temporary or final, whether
    the writer is closed, abandoned or left by a `with` block. In a fresh interpreter, which the
    limit is set in."""
    script = tmp_path / "fsize.py"
    out = tmp_path / "out"
    out.mkdir()
    script.write_text(textwrap.dedent("""
        import os, resource, signal, sys
        import numpy as np, stepq
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        rng = np.random.default_rng(3)
        q = rng.standard_normal((16, 2, 32)).astype(np.float32)
        q /= np.linalg.norm(q, axis=-1, keepdims=True)
        block = (q, q, rng.standard_normal((16, 2, 32)).astype(np.float32), np.full((16, 2), -0.1, np.float32),
                 np.full((16, 2), 0.5, np.float32))
        d = sys.argv[1]
        for how in ("close", "abandon", "with"):
            w = stepq.TraceWriter(os.path.join(d, how + ".h5"), "gdn", 2, 2, 32, 32, layer=[0, 0], head=[0, 1])
            try:
                with w:
                    for i in range(100000):
                        w.append(*block)
            except stepq.StepqError as e:
                if how == "with":
                    print(how, "first", e.status, e)
            w = stepq.TraceWriter(os.path.join(d, how + ".h5"), "gdn", 2, 2, 32, 32, layer=[0, 0], head=[0, 1])
            try:
                for i in range(100000):
                    w.append(*block)
            except stepq.StepqError as e:
                print(how, "first", e.status, e)
            for call in (lambda: w.append(*block), lambda: w.attr("text", "x")):
                try:
                    call()
                except stepq.StepqError as e:
                    print(how, "later", e.status, e)
            try:
                w.close() if how == "close" else w.abandon()
                print(how, "closed")
            except stepq.StepqError as e:
                print(how, "close", e.status, e)
            print(how, "left", sorted(os.listdir(d)))
    """))
    r = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().split("\n")
    reason = os.strerror(27)  # EFBIG
    for how in ("close", "abandon", "with"):
        mine = [l for l in lines if l.startswith(how + " ")]
        first = [l for l in mine if l.startswith(how + " first ")]
        assert first and all("SQ_EFILE" in l and reason in l for l in first), r.stdout
        later = [l for l in mine if l.startswith(how + " later ")]
        assert len(later) == 2 and all("SQ_EFILE" in l and "an earlier write failed (%s)" % reason in l
                                       for l in later), r.stdout
        closing = [l for l in mine if l.startswith(how + " close") or l == how + " closed"]
        if how == "close":
            assert len(closing) == 1 and "an earlier write failed (%s)" % reason in closing[0], r.stdout
        else:
            assert closing == [how + " closed"], r.stdout
        assert "%s left []" % how in mine, r.stdout
