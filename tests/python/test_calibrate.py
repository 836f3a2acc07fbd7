"""Calibration from the package alone (issue 32 item 5): stepq.calibrate and `python -m stepq.hf
calibrate` run libstepq's calibration (sq_calibrate). Independent answers:
- the `stepq` binary: `stepq calibrate --trace` with the same traces and settings writes the same
  file, every dataset and attribute; a config with `traces = [...]` (libconfig's front end) the
  same but for the config attribute;
- first principles: each head's mean log gate l_u is the mean of its g over the segments' steps,
  summed here with numpy, and its lifetime weight sum_{j<H} exp(2 j l_u) (method 4.1);
- refusals: each before any work, one line naming the file or setting, nothing left behind."""
import glob
import math
import os
import re
import shutil
import subprocess

import h5py
import numpy as np
import pytest

import stepq
from stepq.hf.__main__ import main

from conftest import run

K = V = 32
SHA = "5" * 64


def write_trace(path, T, seed, kind="gdn", n=2, sha=SHA, heads=(0, 1)):
    """a trace of T random steps (normalised q and k, g in [-0.2, 0], beta in (0, 1)) through
    stepq.TraceWriter: n value heads labelled (layer 0, heads[i])"""
    r = np.random.default_rng(seed)
    G = K if kind == "kda" else 1

    def unit(*shape):
        x = r.standard_normal(shape).astype(np.float32)
        return x / np.linalg.norm(x, axis=-1, keepdims=True)
    g = -0.2 * r.random((T, n, G) if G > 1 else (T, n))
    with stepq.TraceWriter(path, kind, n, n, K, V, weights_sha256=sha, layer=[0] * n, head=list(heads)) as w:
        w.append(unit(T, n, K), unit(T, n, K), r.standard_normal((T, n, V)), g.astype(np.float32),
                 r.uniform(0.05, 0.95, (T, n)).astype(np.float32))
    return str(path)


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("cal")
    return d, write_trace(d / "a.h5", 72, 1), write_trace(d / "b.h5", 56, 2)


SETTINGS = dict(reservoir=4, snapshot_every=4, seed=5, horizon=64)
OPTIONS = ["--reservoir", "4", "--snapshot-every", "4", "--seed", "5", "--horizon", "64"]


def contents(path):
    """{name: (bytes or value, attributes)} of every group and dataset, the root's attributes"""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            data = obj[()] if isinstance(obj, h5py.Dataset) else None
            out[name] = (None if data is None else (data.dtype.str, data.shape, data.tobytes()),
                         {k: np.asarray(v).tobytes() if np.asarray(v).dtype.kind != "O" else str(v)
                          for k, v in obj.attrs.items()})
        f.visititems(visit)
        out["/"] = (None, {k: (str(v) if isinstance(v, (str, bytes)) else np.asarray(v).tobytes())
                           for k, v in f.attrs.items()})
    return out


def assert_same(a, b, but=()):
    ca, cb = contents(a), contents(b)
    assert set(ca) == set(cb)
    for name in ca:
        assert ca[name][0] == cb[name][0], "%s: dataset %s differs" % (b, name)
        keys = set(ca[name][1]) | set(cb[name][1])
        for k in keys - set(but if name == "/" else ()):
            assert ca[name][1].get(k) == cb[name][1].get(k), "%s: attribute %s of %s differs" % (b, k, name)


def test_the_plan_is_the_binarys(traces, stepq_bin, tmp_path):
    """stepq.calibrate, python -m stepq.hf calibrate and stepq calibrate --trace write one file"""
    d, a, b = traces
    out = str(tmp_path / "plan.h5")  # one path for all three: the config attribute names it
    run(stepq_bin, "calibrate", "--trace", a, b, "--out", out, *OPTIONS)
    shutil.move(out, tmp_path / "c.h5")
    assert stepq.calibrate([a, b], out, **SETTINGS) == out
    shutil.move(out, tmp_path / "py.h5")
    main(["calibrate", "--trace", a, b, "--out", out, *OPTIONS])
    assert_same(tmp_path / "c.h5", tmp_path / "py.h5")
    assert_same(tmp_path / "c.h5", out)
    with h5py.File(out) as f:
        cmd = f.attrs["config"]
        assert cmd.startswith("stepq calibrate --trace %s %s --out %s --steps 56 --horizon 64 " % (a, b, out)), cmd
        assert f.attrs["model_weights_sha256"] == SHA


def test_a_config_of_the_same_traces_writes_the_same_plan(traces, stepq_bin, tmp_path):
    """the config's front end (libconfig keys) against the package's: the same plan, key included"""
    d, a, b = traces
    cfg = tmp_path / "cal.cfg"
    cfg.write_text('experiment = "calibrate";\ntraces = ["%s", "%s"];\nsteps = 56;\nreservoir = 4;\n'
                   'snapshot_every = 4;\nseed = 5;\nhorizon = 64.0;\noutput = "%s";\n' % (a, b, tmp_path / "cfg.h5"))
    run(stepq_bin, "calibrate", cfg)
    stepq.calibrate([a, b], tmp_path / "py.h5", **SETTINGS)
    assert_same(tmp_path / "cfg.h5", tmp_path / "py.h5", but=("config",))
    with h5py.File(tmp_path / "cfg.h5") as f, h5py.File(tmp_path / "py.h5") as g:
        assert f.attrs["calibration_key"] == g.attrs["calibration_key"]


def test_mean_log_gate_and_lifetime_from_first_principles(traces, tmp_path):
    d, a, b = traces
    out = stepq.calibrate([a, b], tmp_path / "p.h5", **SETTINGS)
    steps = 56  # the shortest trace's
    with h5py.File(a) as fa, h5py.File(b) as fb, h5py.File(out) as p:
        g = np.concatenate([fa["g"][:steps], fb["g"][:steps]]).astype(np.float64)  # [2 T, HV]
        l = np.minimum(g.mean(axis=0), 0.0)
        np.testing.assert_allclose(p["mean_log_gate"][:, 0], l, rtol=1e-12)
        H = 64
        L = [sum(math.exp(2 * j * x) for j in range(H)) for x in l]
        np.testing.assert_allclose(p["lifetime"][:, 0], L, rtol=1e-9)
        np.testing.assert_allclose(p["half_life"][:, 0], math.log(2) / -l, rtol=1e-12)
        assert list(p["heads/layer"][()]) == [0, 0] and list(p["heads/head"][()]) == [0, 1]
        # DAMP keeps round(damp_fraction H K) rows in FP16
        assert p["damp_fp16_rows"][()].sum() == round(p.attrs["damp_fraction"] * 2 * K)


def test_deterministic_for_a_seed(traces, tmp_path):
    d, a, b = traces
    stepq.calibrate([a, b], tmp_path / "s5.h5", **SETTINGS)
    stepq.calibrate([a, b], tmp_path / "s5b.h5", **SETTINGS)
    stepq.calibrate([a, b], tmp_path / "s6.h5", **dict(SETTINGS, seed=6))
    assert_same(tmp_path / "s5.h5", tmp_path / "s5b.h5", but=("config",))
    with h5py.File(tmp_path / "s5.h5") as f, h5py.File(tmp_path / "s6.h5") as g:
        assert not np.array_equal(f["distortion_dual"][()], g["distortion_dual"][()])  # another reservoir


def test_progress_only_when_asked(traces, tmp_path, capfd):
    d, a, b = traces
    stepq.calibrate([a], tmp_path / "q.h5", reservoir=2)
    assert capfd.readouterr().err == ""  # the library prints nothing
    stepq.calibrate([a], tmp_path / "q.h5", reservoir=2, progress=True)
    assert re.search(r"calibrate: 2/2 heads", capfd.readouterr().err)


# ---- refusals ---------------------------------------------------------------------------------

def refused(capsys, args, pattern):
    with pytest.raises(SystemExit) as e:
        main([str(x) for x in args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("stepq.hf: error: ") and "\n" not in err, err
    assert re.search(pattern, err), err


def test_refusals_before_any_work(traces, tmp_path, capsys):
    d, a, b = traces
    kda = write_trace(tmp_path / "kda.h5", 40, 3, kind="kda")
    other = write_trace(tmp_path / "other.h5", 40, 4, sha="6" * 64)
    three = write_trace(tmp_path / "three.h5", 40, 5, n=3, heads=(0, 1, 2))
    moved = write_trace(tmp_path / "moved.h5", 40, 6, heads=(2, 3))
    stepq.calibrate([a], tmp_path / "plan.h5", reservoir=2)
    out = tmp_path / "sub" / "out.h5"
    cal = ["calibrate", "--out", out, "--trace", a]
    refused(capsys, cal + [tmp_path / "none.h5"], r"none.h5: cannot open trace \(missing or unreadable")
    refused(capsys, cal + [tmp_path / "plan.h5"], r"plan.h5 is a stepq plan, not a trace")
    refused(capsys, cal + [kda], r"segment 1 \(trace .*kda.h5.*\) is kda, segment 0 gdn")
    refused(capsys, cal + [other], r"segment 1 \(trace .*other.h5.*\) comes from the model of weights SHA-256 '6666")
    refused(capsys, cal + [three], r"segment 1 \(trace .*three.h5.*\) has 3 heads of 32 x 32, segment 0 2 of")
    refused(capsys, cal + [moved], r"segment 1 \(trace .*moved.h5.*\) labels head 0 \(layer 0, head 2\)")
    refused(capsys, cal + [b, "--steps", "60"], r"segment 1 \(trace .*b.h5.*\) is shorter than the 60 steps")
    refused(capsys, cal + ["--gamma", "-1"], r"error: calibrate: --gamma -1 is outside \[0, 10\]")
    refused(capsys, cal + ["--reservoir", "0"], r"error: calibrate: --reservoir 0 is outside \[1, ")
    refused(capsys, cal + ["--steps", "abc"], r"argument --steps: 'abc' is not a whole number")
    refused(capsys, ["calibrate", "--out", out], r"the following arguments are required: --trace")
    # a calibration that would take no state snapshot (its plan's distortions all zero), and a seed
    # past the C field's width (a traceback before), each refused naming the setting (issue 65 class 2)
    # (named as the options the user sets: --snapshot-every, --steps, not libstepq's fields: the
    # names stepq.calibrate passes libstepq, no message rewritten)
    refused(capsys, cal + ["--steps", "7"], r"error: calibrate: --snapshot-every 8 is more than the 7 steps of each "
                                            r"segment \(--steps\): the calibration would take no state snapshot and "
                                            r"measure no distortion; give --snapshot-every at most 7")
    refused(capsys, cal + ["--snapshot-every", "73"], r"error: calibrate: --snapshot-every 73 is more than the 72 "
                                                      r"steps of each segment \(every step of the shortest trace\)")
    refused(capsys, cal + ["--seed", str(2**63)], r"argument --seed: 9223372036854775808 does not fit")
    assert not (tmp_path / "sub").exists()  # nothing made, not even its directory
    before = open(a, "rb").read()
    refused(capsys, ["calibrate", "--trace", a, b, "--out", a], r"cannot write .*a.h5: it is .*a.h5, an input of this run")
    assert open(a, "rb").read() == before
    refused(capsys, ["calibrate", "--trace", a, "--out", d], r"cannot write .*: it is a directory")
    assert not glob.glob(str(d / "*.tmp*")) and not glob.glob(str(tmp_path / "*.tmp*"))
    # the Python API: names it does not take, values of the wrong type, before libstepq
    with pytest.raises(ValueError, match="no setting 'horizn'"):
        stepq.calibrate([a], out, horizn=10)
    with pytest.raises(ValueError, match="refits must be an integer"):
        stepq.calibrate([a], out, refits=1.5)
    with pytest.raises(stepq.StepqError, match="steps -1 is negative"):
        stepq.calibrate([a], out, steps=-1)
    with pytest.raises(stepq.StepqError, match=r"^stepq.calibrate: snapshot_every 100 is more than the 72 steps of "
                                                r"each segment \(every step of the shortest trace\).*"
                                                r"give snapshot_every at most 72"):
        stepq.calibrate([a], out, snapshot_every=100)
    # a front end's own names for the settings, in libstepq's messages
    front = {"caller": "mytool", "snapshot_every": "-e", "steps": "-n", "gamma": "-g"}
    with pytest.raises(stepq.StepqError, match=r"^mytool: -e 8 is more than the 7 steps of each segment \(-n\).*"
                                                r"give -e at most 7"):
        stepq.calibrate([a], out, steps=7, names=front)
    with pytest.raises(stepq.StepqError, match=r"^mytool: -g -1 is outside \[0, 10\]"):
        stepq.calibrate([a], out, gamma=-1, names=front)
    with pytest.raises(stepq.StepqError, match=r"^mytool: -n -1 is negative"):
        stepq.calibrate([a], out, steps=-1, names=front)
    with pytest.raises(ValueError, match="names has no setting 'normalize'"):
        stepq.calibrate([a], out, names={"normalize": "--normalize"})
    assert not (tmp_path / "sub").exists()


def test_a_bad_value_met_while_reading_names_it(traces, tmp_path, capfd):
    """a NaN in a trace is met by a head's worker thread as it reads: the call fails with the
    reader's message (file, dataset, index), libstepq prints nothing, no plan is written"""
    d, a, b = traces
    bad = str(tmp_path / "nan.h5")
    shutil.copy(a, bad)
    with h5py.File(bad, "r+") as f:
        q = f["q"]
        x = q[30]
        x[1, 5] = np.nan
        q[30] = x
    with pytest.raises(stepq.StepqError) as e:
        stepq.calibrate([bad], tmp_path / "nan_plan.h5", reservoir=2)
    assert e.value.status == "SQ_EFILE"
    assert re.search(r"nan.h5: dataset 'q' holds NaN at index \[30, 1, 5\]", str(e.value)), str(e.value)
    assert capfd.readouterr().err == ""
    assert not os.path.exists(tmp_path / "nan_plan.h5") and not glob.glob(str(tmp_path / "nan_plan.h5.tmp*"))


def test_normalize(traces, stepq_bin, tmp_path):
    """q of one step scaled by 1.5: refused as the reader meets it, unless normalize (the
    config's `normalize = true`, the same plan)"""
    d, a, b = traces
    big = str(tmp_path / "big.h5")
    shutil.copy(a, big)
    with h5py.File(big, "r+") as f:
        f["q"][20] = f["q"][20] * 1.5
    with pytest.raises(stepq.StepqError, match=r"big.h5: dataset 'q' is not L2-normalised: step 20"):
        stepq.calibrate([big], tmp_path / "n.h5", reservoir=2)
    stepq.calibrate([big], tmp_path / "n.h5", reservoir=2, normalize=True)
    cfg = tmp_path / "n.cfg"
    cfg.write_text('experiment = "calibrate";\ntraces = ["%s"];\nsteps = 72;\nreservoir = 2;\nnormalize = true;\n'
                   'output = "%s";\n' % (big, tmp_path / "n_cfg.h5"))
    run(stepq_bin, "calibrate", cfg)
    assert_same(tmp_path / "n_cfg.h5", tmp_path / "n.h5", but=("config",))
    with h5py.File(tmp_path / "n.h5") as f:
        assert f.attrs["config"].endswith(" --normalize")


def test_help_has_examples():
    for cmd in ("capture", "eval", "calibrate"):
        r = subprocess.run([__import__("sys").executable, "-m", "stepq.hf", cmd, "--help"], capture_output=True,
                           text=True)
        assert r.returncode == 0 and "examples:" in r.stdout and "python -m stepq.hf %s" % cmd in r.stdout, r.stdout


# ---- a capture of a real model, calibrated from the package ---------------------------------------

def test_captures_of_a_model_calibrated_from_the_package(stepq_bin, tmp_path):
    """python -m stepq.hf capture on data/lm/gdn, then calibrate from Python: the binary's plan,
    bound to the model's weights"""
    pytest.importorskip("torch")
    pytest.importorskip("fla")
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    texts = []
    for i, n in enumerate((96, 80)):
        p = tmp_path / ("doc%d.txt" % i)
        p.write_bytes(open(os.path.join(root, "README.md"), "rb").read()[1000 * i:1000 * i + n])
        texts.append(p)
    main(["capture", "--model", os.path.join(root, "data", "lm", "gdn"), "--text", *map(str, texts),
          "--out", str(tmp_path / "traces"), "--prefill", "16"])
    tr = [str(tmp_path / "traces" / ("doc%d.h5" % i)) for i in range(2)]
    out = str(tmp_path / "plan.h5")
    run(stepq_bin, "calibrate", "--trace", *tr, "--out", out, "--reservoir", "4", "--snapshot-every", "4")
    shutil.move(out, tmp_path / "c.h5")
    main(["calibrate", "--trace", *tr, "--out", out, "--reservoir", "4", "--snapshot-every", "4"])
    assert_same(tmp_path / "c.h5", out)
    with h5py.File(tr[0]) as t, h5py.File(out) as p:
        assert p.attrs["model_weights_sha256"] == t.attrs["weights_sha256"]
        assert p["heads/layer"].shape == (16,)  # 4 layers x 4 heads


def test_the_key_does_not_change_with_a_paths_spelling(traces, tmp_path, monkeypatch):
    """issue 65, class 9: a plan's calibration key names each trace by its resolved path, so the
    same trace by a relative path, an absolute one or a link gives the same key (and the same
    plan but for the command line it records)"""
    d, a, b = traces
    os.symlink(a, tmp_path / "link.h5")
    monkeypatch.chdir(d)
    stepq.calibrate(["a.h5", b], tmp_path / "rel.h5", **SETTINGS)
    stepq.calibrate([a, b], tmp_path / "abs.h5", **SETTINGS)
    stepq.calibrate([str(tmp_path / "link.h5"), os.path.join("..", os.path.basename(str(d)), "b.h5")],
                    tmp_path / "lnk.h5", **SETTINGS)
    keys = []
    for p in ("rel.h5", "abs.h5", "lnk.h5"):
        with h5py.File(tmp_path / p) as f:
            keys.append(f.attrs["calibration_key"])
    assert keys[0] == keys[1] == keys[2], keys
    assert_same(tmp_path / "abs.h5", tmp_path / "rel.h5", but=("config", "source", "calibration_source"))
