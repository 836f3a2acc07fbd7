"""stepq.DeviceSession, the device session's binding, on its host backend (no GPU here): against
the CPU stepq.Session on the same inputs (the host backend runs its code: read-outs and states
equal bit for bit), its bins against bins recomputed here in float64 from the Session's own
read-outs and squared errors, a batch against its sessions one by one, outputs written into
CPU torch tensors in place, and the refusals of the binding and of libstepq, by name."""
import numpy as np
import pytest

import stepq

K = V = 128  # the lane kernels' one head shape
LANES = ["fp32", "int8", "int6", "int4"]


def inputs(rng, H, G):
    q = rng.standard_normal((H, K))
    k = rng.standard_normal((H, K))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    return [x.astype(np.float32) for x in (q, k, rng.standard_normal((H, V)), -0.3 * rng.random((H, G)),
                                           0.2 + 0.6 * rng.random(H))]


@pytest.mark.parametrize("kind", ["gdn", "kda"])
def test_equals_the_cpu_session(kind):
    H, P, T, B = 3, 5, 11, 4
    G = K if kind == "kda" else 1
    rng = np.random.default_rng(7)
    S0 = (0.05 * rng.standard_normal((H, K, V))).astype(np.float32)
    cpu = stepq.Session(kind, K, V, H, LANES, prefill=P, S0=S0, keep_states=True)
    dev = stepq.DeviceSession(kind, K, V, H, LANES, prefill=P, S0=S0, bin=B, n_bins=(T + B - 1) // B)
    assert dev.backend == "host" == stepq.device_backend()
    want = np.zeros((len(LANES), (T + B - 1) // B, 2, H))
    for t in range(P + T):
        x = inputs(rng, H, G)
        cpu.step(*x)
        dev.step(*x)
        if t < P:
            continue
        y = cpu.readout()
        for f in [None] + LANES:
            assert np.array_equal(dev.readout(f), cpu.readout(f)) and np.array_equal(dev.state(f), cpu.state(f))
            if f is None:
                continue
            err2, _, ref2 = cpu.errors(f)
            yh = cpu.readout(f).astype(np.float64)
            i = LANES.index(f)
            want[i, (t - P) // B, 0] += np.sqrt(err2 / ref2)
            want[i, (t - P) // B, 1] += np.sqrt(((yh - y) ** 2).sum(1) / (y.astype(np.float64) ** 2).sum(1))
    n = np.array([min(B, T - b * B) for b in range(want.shape[1])])
    assert dev.steps == P + T
    for i, f in enumerate(LANES):
        st, ro, steps = dev.errors(f)
        assert np.array_equal(steps, n)
        # the state errors are the Session's own; the read-outs' sums run in float32 lanes
        # (sim/sums.h) where these run in float64: 1e-5, several times float32's rounding over V terms
        np.testing.assert_allclose(st, want[i, :, 0] / n[:, None], rtol=1e-12, atol=0)
        np.testing.assert_allclose(ro, want[i, :, 1] / n[:, None], rtol=1e-5, atol=0)
    assert (dev.errors("fp32")[0] == 0).all() and (dev.errors("int4")[0] > dev.errors("int8")[0]).all()


def test_batch_is_its_sessions_one_by_one():
    B, H, T = 3, 2, 6
    rng = np.random.default_rng(3)
    S0 = (0.05 * rng.standard_normal((B * H, K, V))).astype(np.float32)
    whole = stepq.DeviceSession("gdn", K, V, B * H, ["int6"], S0=S0, n_bins=T)
    parts = [stepq.DeviceSession("gdn", K, V, H, ["int6"], S0=S0[b * H:(b + 1) * H], n_bins=T) for b in range(B)]
    for _ in range(T):
        x = inputs(rng, B * H, 1)
        whole.step(*x)
        for b, p in enumerate(parts):
            p.step(*(a[b * H:(b + 1) * H] for a in x))
        assert np.array_equal(whole.readout(0), np.concatenate([p.readout(0) for p in parts]))
        assert np.array_equal(whole.state(0), np.concatenate([p.state(0) for p in parts]))
    e = whole.errors(0)
    for b, p in enumerate(parts):
        for a, c in zip(e[:2], p.errors(0)[:2]):
            assert np.array_equal(a[:, b * H:(b + 1) * H], c)


def test_outputs_into_torch_tensors():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    s = stepq.DeviceSession("gdn", K, V, 2, ["int8"])
    x = inputs(rng, 2, 1)
    s.step(*(torch.from_numpy(a) for a in x))  # CPU tensors, as the adapters give them
    y = torch.zeros((2, V))
    assert s.readout(0, out=y) is y and np.array_equal(y.numpy(), s.readout(0))
    S = torch.zeros((2, K, V))
    assert s.state(0, out=S) is S and np.array_equal(S.numpy(), s.state(0))
    with pytest.raises(ValueError, match="out must be a contiguous float32 tensor of shape \\(2, 128\\)"):
        s.readout(0, out=torch.zeros((2, V), dtype=torch.float64))
    with pytest.raises(ValueError, match="out must be a C-contiguous float32 array of shape \\(2, 128\\)"):
        s.readout(0, out=np.zeros((2, 64), np.float32))


def test_refusals():
    with pytest.raises(stepq.StepqError, match="format stepquant4: a device session steps the lane kernels' formats"):
        stepq.DeviceSession("gdn", K, V, 1, ["stepquant4"])
    with pytest.raises(stepq.StepqError, match="heads of 64 x 128; a device session takes 128 x 128 heads"):
        stepq.DeviceSession("gdn", 64, V, 1, ["int8"])
    if stepq.device_backend() != "cuda":  # no CUDA in libstepq, or no device here
        with pytest.raises(stepq.StepqError, match="backend cuda is not built|no CUDA device"):
            stepq.DeviceSession("gdn", K, V, 1, ["int8"], backend="cuda")
    assert stepq.device_takes("int4") and not stepq.device_takes("stepquant4")
    s = stepq.DeviceSession("gdn", K, V, 2, ["int8"], n_bins=1)
    with pytest.raises(stepq.StepqError, match="no decode step has been taken"):
        s.readout(0)
    with pytest.raises(ValueError, match="q has shape \\(3, 128\\), expected \\(2, 128\\)"):
        s.step(np.zeros((3, K), np.float32), *inputs(np.random.default_rng(1), 2, 1)[1:])
    x = inputs(np.random.default_rng(1), 2, 1)
    s.step(*x)
    with pytest.raises(stepq.StepqError, match="past the 1 bins of 1 steps"):
        s.step(*x)
    with pytest.raises(stepq.StepqError, match="failed before"):  # and it stays failed
        s.sync()
