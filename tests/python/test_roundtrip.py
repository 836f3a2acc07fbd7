"""Every format's Python round trip against the `stepq roundtrip` binary's bytes on the same
states (both are libstepq's codecs: this checks the binding, its layout and its plan heads), and
the bits of the simplest format against its closed form, computed here."""
import h5py
import numpy as np
import pytest

import stepq
from conftest import run


def states(H, K, V, seed):
    rng = np.random.default_rng(seed)
    # rows of very different magnitudes, as decaying key rows have
    return (rng.standard_normal((H, K, V)) * np.exp(rng.uniform(-4, 2, (H, K, 1)))).astype(np.float32)


def binary_roundtrip(stepq_bin, scratch, S, name, plan=None, head=0, kind=None):
    src, out = scratch / "S.h5", scratch / ("rt_%s.h5" % name)
    with h5py.File(src, "w") as f:
        f["S"] = S
    args = [stepq_bin, "roundtrip", "--in", src, "--format", name, "--out", out]
    if plan is not None:
        args += ["--plan", plan, "--head", head]
    if kind is not None:
        args += ["--kind", kind]
    run(*args)
    with h5py.File(out, "r") as f:
        o = f["offsets"][...]
        return [f["packed"][o[h]:o[h + 1]] for h in range(len(o) - 1)], f["S_hat"][...]


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))


NO_PLAN = [f.name for f in stepq.formats() if not f.needs_plan]
PLANNED = [f.name for f in stepq.formats() if f.needs_plan]


@pytest.mark.parametrize("name", NO_PLAN)
@pytest.mark.parametrize("kind", ["gdn", "kda"])
def test_unplanned_formats_equal_the_binary(stepq_bin, scratch, name, kind):
    S = states(3, 128, 128, seed=len(name))
    packed, S_hat = binary_roundtrip(stepq_bin, scratch, S, name, kind=kind)
    P = stepq.encode(S, name, kind=kind)
    assert len(P) == 3 and all(p.dtype == np.uint8 and np.array_equal(p, b) for p, b in zip(P, packed))
    assert same_bits(stepq.roundtrip(S, name, kind=kind), S_hat)
    assert same_bits(stepq.decode(P, name, 128, 128, kind=kind), S_hat)
    # one head [K, V] in, one out
    assert same_bits(stepq.roundtrip(S[1], name, kind=kind), S_hat[1])


@pytest.mark.parametrize("name", PLANNED)
def test_planned_formats_equal_the_binary(stepq_bin, scratch, gdn_plan, kda_plan, name):
    for plan in (gdn_plan, kda_plan):
        with stepq.Plan(plan) as p:
            S = states(2, p.K, p.V, seed=7)
            packed, S_hat = binary_roundtrip(stepq_bin, scratch, S, name, plan=plan, head=1)
            P = stepq.encode(S, name, plan=p, head=1)
            assert all(np.array_equal(a, b) for a, b in zip(P, packed)) and len(P) == 2
            assert same_bits(stepq.roundtrip(S, name, plan=p, head=1), S_hat)
            # a path works as the plan too; head 0 encodes otherwise where the plan's widths differ
            assert same_bits(stepq.roundtrip(S, name, plan=str(plan), head=1), S_hat)


def test_int8_closed_form():
    # int8: symmetric absmax per key row, an FP16 scale per row (method 6.2): each element is
    # an integer multiple of its row's step s = absmax/127 (rounded to FP16), within s/2
    S = states(1, 64, 128, seed=3)[0]
    R = stepq.roundtrip(S, "int8")
    absmax = np.abs(S).max(axis=1, keepdims=True)
    s = (absmax / 127).astype(np.float16).astype(np.float64)
    err = np.abs(R.astype(np.float64) - S)
    assert np.all(err <= 0.5 * s * (1 + 2 ** -9) + 1e-30)
    codes = R / s
    assert np.abs(codes - np.round(codes)).max() < 1e-3 and np.abs(codes).max() <= 127.5
    assert stepq.Codec("int8", 64, 128).bytes == 64 * 128 + 64 * 2


def test_fp32_is_the_state():
    S = states(2, 16, 32, seed=4)
    assert same_bits(stepq.roundtrip(S, "fp32"), S)
    assert np.array_equal(stepq.encode(S[0], "fp32"), S[0].view(np.uint8).reshape(-1))


def test_table():
    t = stepq.formats()
    names = [f.name for f in t]
    assert len(names) == len(set(names)) > 20
    by = {f.name: f for f in t}
    assert by["int8"].bits == 8 and not by["int8"].needs_plan
    assert by["stepquant4"].needs_plan and by["stepquant4"].bits == 4


def test_refusals(gdn_plan):
    S = states(1, 128, 128, 5)
    with pytest.raises(stepq.StepqError, match="no format is called 'int77'") as e:
        stepq.roundtrip(S, "int77")
    assert e.value.status == "SQ_ENOFORMAT"
    with pytest.raises(stepq.StepqError, match="needs a calibration plan") as e:
        stepq.roundtrip(S, "stepquant4")
    assert e.value.status == "SQ_EPLAN"
    with pytest.raises(stepq.StepqError, match="plan_nope.h5"):
        stepq.Plan("/nonexistent/plan_nope.h5")
    with stepq.Plan(gdn_plan) as p:
        with pytest.raises(stepq.StepqError, match="has heads \\[0, 3\\), not 7"):
            stepq.roundtrip(S, "stepquant4", plan=p, head=7)
        with pytest.raises(stepq.StepqError, match="made for gdn heads of 128 x 128, not gdn heads of 64 x 128"):
            stepq.roundtrip(S[:, :64], "stepquant4", plan=p)
        with pytest.raises(stepq.StepqError, match="no head 9 of layer 0"):
            p.check("gdn", 128, 128, [(0, 1), (0, 9)])
        p.check("gdn", 128, 128, [(0, 0), (0, 2)])
        assert p.heads == [(0, 0), (0, 1), (0, 2)] and p.find(0, 2) == 2
    with pytest.raises(ValueError, match="\\[K, V\\] or states \\[H, K, V\\]"):
        stepq.roundtrip(np.zeros(5, np.float32), "int8")
    bad = S.copy()
    bad[0, 3, 4] = np.nan
    with pytest.raises(stepq.StepqError, match="NaN or Inf") as e:
        stepq.roundtrip(bad, "int8")
    assert e.value.status == "SQ_ENONFINITE"


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    S = torch.from_numpy(states(2, 32, 32, 6))
    R = stepq.roundtrip(S, "int6")
    assert isinstance(R, torch.Tensor) and R.dtype == torch.float32 and R.shape == S.shape
    assert same_bits(R.numpy(), stepq.roundtrip(S.numpy(), "int6"))
