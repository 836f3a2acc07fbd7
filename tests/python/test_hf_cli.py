"""`python -m stepq.hf` under malformed models, options and outputs (issue 33, classes 5 and 6):
each is refused before any work with exactly one line `stepq.hf: error: ...` naming it, exit
status 2, and nothing written; outputs never replace an input and two runs into one place each
leave a whole file."""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, os.path.dirname(__file__))
from tiny_models import qwen3_next  # noqa: E402

from stepq.hf.__main__ import main  # noqa: E402


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("hfcli")
    qwen3_next().save_pretrained(d / "model")
    (d / "doc.txt").write_bytes(bytes(range(32, 127)) * 2)
    return d


def refused(capsys, args, pattern, only=True):
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    lines = [l for l in err.strip().split("\n") if l.startswith("stepq.hf: error: ")]
    assert len(lines) == 1, err
    if only:
        assert err.strip() == lines[0], err
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


def nothing_left(d):
    assert not glob.glob(os.path.join(str(d), "*.tmp*")), os.listdir(d)


def model_copy(work, name, edit):
    d = work / name
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(work / "model", d)
    edit(d)
    return d


def capture(model, text, out, *more):
    return ["capture", "--model", model, "--text", text, "--out", out, *more]


# ---- 5. model directories --------------------------------------------------------------------------

def _set_json(p, obj):
    p.write_text(json.dumps(obj))


def _cut(p, frac):
    b = p.read_bytes()
    p.write_bytes(b[:int(len(b) * frac)])


def _header_edit(p, fn):
    b = p.read_bytes()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    fn(h)
    nh = json.dumps(h).encode()
    nh += b" " * (n - len(nh)) if len(nh) <= n else b""
    p.write_bytes(struct.pack("<Q", len(nh)) + nh + b[8 + n:])


def _first_tensor(h):
    return sorted(k for k in h if k != "__metadata__")[0]


CASES = [
    ("unknown_type", lambda d: _set_json(d / "config.json", dict(json.load(open(d / "config.json")), model_type="llama")),
     r"model_type 'llama' has no stepq adapter"),
    ("config_cut", lambda d: _cut(d / "config.json", 0.5), r"config.json: not JSON"),
    ("config_list", lambda d: (d / "config.json").write_text("[1, 2]"), r"config.json holds a JSON list"),
    ("config_device", lambda d: ((d / "config.json").unlink(), os.symlink("/dev/zero", d / "config.json")),
     r"config.json is a character device, not a regular file"),
    ("weights_cut", lambda d: _cut(d / "model.safetensors", 0.5), r"model.safetensors: tensor '.*' lies at bytes"),
    ("weights_header_cut", lambda d: _cut(d / "model.safetensors", 0.0001),
     r"model.safetensors: its header claims \d+ bytes, the file holds"),
    ("offsets_lie", lambda d: _header_edit(d / "model.safetensors", lambda h: h[_first_tensor(h)].__setitem__(
        "data_offsets", [0, 10**12])), r"lies at bytes \[0, 1000000000000\)"),
    ("dtype_lies", lambda d: _header_edit(d / "model.safetensors", lambda h: h[_first_tensor(h)].__setitem__(
        "dtype", "F64")), r"\(F64 \[.*\]\) needs \d+ bytes; its offsets give"),
    ("dtype_unknown", lambda d: _header_edit(d / "model.safetensors", lambda h: h[_first_tensor(h)].__setitem__(
        "dtype", "Q4")), r"is not described by a known dtype"),
]


@pytest.mark.parametrize("name,edit,pattern", CASES, ids=[c[0] for c in CASES])
def test_malformed_model_directories(work, capsys, name, edit, pattern):
    d = model_copy(work, name, edit)
    out = work / ("out_" + name)
    refused(capsys, capture(d, work / "doc.txt", out), pattern)
    assert not out.exists()


def test_nan_weight_is_refused(work, capsys):
    m = qwen3_next()
    with torch.no_grad():
        m.model.norm.weight[3] = float("nan")
    m.save_pretrained(work / "nan_model")
    out = work / "out_nan"
    refused(capsys, capture(work / "nan_model", work / "doc.txt", out),
            r"weight model.norm.weight holds nan at element 3 \(a weight must be finite\)", only=False)
    assert not glob.glob(str(out / "*"))


# ---- 5. options and texts ----------------------------------------------------------------------------

@pytest.mark.parametrize("more,pattern", [
    (["--max-tokens", "0"], r"argument --max-tokens: 0 is below 2"),
    (["--max-tokens", "-3"], r"argument --max-tokens: -3 is below 2"),
    (["--max-tokens", "1e3"], r"'1e3' is not a whole number"),
    (["--layers", ""], r"argument --layers: an empty list"),
    (["--layers", "0,0"], r"names an index twice"),
    (["--layers", "-1"], r"is not a list of indices|index -1 is negative"),
    (["--prefill", "0"], r"argument --prefill: 0 is below 1"),
])
def test_capture_options(work, capsys, more, pattern):
    out = work / "out_opts"
    refused(capsys, capture(work / "model", work / "doc.txt", out, *more), pattern)
    assert not out.exists()


@pytest.mark.parametrize("more,pattern", [
    (["--formats", ""], r"argument --formats: an empty list"),
    (["--formats", "int8,int8"], r"names a format twice"),
    (["--formats", "int8", "--generate", "-1"], r"argument --generate: -1 is below 0"),
    (["--formats", "int8", "--bin", "9", "--decode", "8"], r"--bin 9 is above --decode 8"),
    (["--formats", "int8", "--plan", "/dev/null"], r"--plan /dev/null is a character device"),
])
def test_eval_options(work, capsys, more, pattern):
    out = work / "ev_opts" / "e.h5"
    refused(capsys, ["eval", "--model", work / "model", "--text", work / "doc.txt", "--out", out] + more, pattern)
    assert not out.exists()


def test_texts_that_are_not_files(work, capsys):
    out = work / "out_text"
    refused(capsys, capture(work / "model", "/dev/zero", out), r"--text /dev/zero is a character device")
    refused(capsys, capture(work / "model", work, out), r"is a directory, not a regular file")
    refused(capsys, capture(work / "model", work / "missing.txt", out), r"missing.txt: No such file or directory")
    assert not out.exists()


# ---- 6. outputs -------------------------------------------------------------------------------------

def test_outputs_never_replace_inputs(work, capsys):
    # capture: a --out that is a file; a text that is the trace it would write
    (work / "afile").write_text("x")
    refused(capsys, capture(work / "model", work / "doc.txt", work / "afile"), r"--out .*afile is a file")
    d = work / "selfout"
    d.mkdir(exist_ok=True)
    (d / "doc.h5").write_bytes(b"my document")
    refused(capsys, capture(work / "model", d / "doc.h5", d), r"doc.h5: it is .*doc.h5, an input of this run")
    assert (d / "doc.h5").read_bytes() == b"my document"
    nothing_left(d)
    # eval: --out a directory; --out the text itself; the table beside it a text
    refused(capsys, ["eval", "--model", work / "model", "--text", work / "doc.txt", "--formats", "int8", "--out", work],
            r"is a directory \(give a file name\)")
    refused(capsys, ["eval", "--model", work / "model", "--text", work / "doc.txt", "--formats", "int8", "--out",
                     work / "doc.txt"], r"doc.txt: it is .*doc.txt, an input of this run")
    (work / "t.tsv").write_text("keep")
    refused(capsys, ["eval", "--model", work / "model", "--text", work / "t.tsv", "--formats", "int8", "--out",
                     work / "t.h5"], r"cannot write .*t.tsv: it is .*t.tsv, an input")
    assert (work / "t.tsv").read_text() == "keep" and not (work / "t.h5").exists()
    # --out in a model's directory, over one of its files
    refused(capsys, ["eval", "--model", work / "model", "--text", work / "doc.txt", "--formats", "int8", "--out",
                     work / "model" / "config.json"], r"config.json, an input of this run")
    nothing_left(work)


def test_two_texts_of_one_name(work, capsys):
    (work / "a").mkdir(exist_ok=True)
    (work / "b").mkdir(exist_ok=True)
    (work / "a" / "same.txt").write_bytes(b"a" * 40)
    (work / "b" / "same.txt").write_bytes(b"b" * 40)
    out = work / "out_same"
    refused(capsys, ["capture", "--model", work / "model", "--text", work / "a" / "same.txt", work / "b" / "same.txt",
                     "--out", out], r"would both be captured into .*same.h5")
    assert not out.exists()


def test_an_unwritable_place_names_the_reason(work, capsys):
    refused(capsys, capture(work / "model", work / "doc.txt", "/dev/null/traces"),
            r"cannot write /dev/null/traces/doc.h5: /dev/null is a character device, not a directory")
    refused(capsys, ["eval", "--model", work / "model", "--text", work / "doc.txt", "--formats", "int8", "--out",
                     "/dev/null/e.h5"], r"cannot write /dev/null/e.h5: /dev/null is a character device, not a directory")


def test_two_captures_into_one_place_at_once(work):
    """two processes capture texts of one file name and different lengths into one --out at
    once: the trace left is whole, one of the two, and no temporary file remains"""
    for sub, n in (("p", 60), ("q", 90)):
        (work / sub).mkdir(exist_ok=True)
        (work / sub / "doc.txt").write_bytes(bytes(range(40, 40 + n)))
    out = work / "shared"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    procs = [subprocess.Popen([sys.executable, "-m", "stepq.hf", "capture", "--model", str(work / "model"), "--text",
                               str(work / sub / "doc.txt"), "--out", str(out), "--prefill", "8"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for sub in ("p", "q")]
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err.decode()[-2000:]
    with h5py.File(out / "doc.h5") as f:
        text = f.attrs["text"]
        n = {str(work / "p" / "doc.txt"): 60, str(work / "q" / "doc.txt"): 90}[text]
        assert f["q"].shape[0] == n and f.attrs["steps"] == n
    nothing_left(out)


# ---- releases: what the adapters use is looked for in the installed modeling files -------------------

def test_a_release_without_what_the_adapter_uses_is_refused(monkeypatch):
    import dataclasses
    import importlib
    from stepq.hf import ADAPTERS, AdapterError, check_adapter
    spec = ADAPTERS["qwen3_next"]
    check_adapter(spec)                                   # the installed release has everything
    mod = importlib.import_module(spec.modeling)

    def old_kernel(query, key, value, g, beta, chunk_size=64, initial_state=None, output_final_state=False):
        raise AssertionError("never called")

    monkeypatch.setattr(mod, spec.kernels[0], old_kernel)
    with pytest.raises(AdapterError, match=r"transformers [0-9.]+ has no adapter for qwen3_next: its "
                                           r"transformers.models.qwen3_next.modeling_qwen3_next lacks the parameter\(s\) "
                                           r"use_qk_l2norm_in_kernel of torch_chunk_gated_delta_rule \(stepq.hf was "
                                           r"tested on transformers 5.18.0, .*5.24.0\)"):
        check_adapter(spec)
    monkeypatch.undo()
    gone = dataclasses.replace(spec, modeling="transformers.models.qwen3_next.no_such_file")
    with pytest.raises(AdapterError, match=r"lacks the module transformers.models.qwen3_next.no_such_file"):
        check_adapter(gone)


def test_a_model_of_linear_layers_alone_is_refused(work, capsys):
    """transformers cannot run a Qwen3-Next whose layers are all linear attention with a cache (its
    traceback: get_seq_length can only be called on Attention layers): refused by name, from the
    config before loading, and from forward() for a model built in Python"""
    from transformers import Qwen3NextConfig, Qwen3NextForCausalLM
    from tiny_models import COMMON
    from stepq.hf import AdapterError
    from stepq.hf.capture import Capture
    from stepq.hf.cli import run_stream
    cfg = Qwen3NextConfig(**dict(COMMON, num_hidden_layers=2), layer_types=["linear_attention"] * 2,
                          linear_num_value_heads=2, linear_num_key_heads=1, linear_key_head_dim=128,
                          linear_value_head_dim=128, head_dim=32, num_experts=2, num_experts_per_tok=1,
                          moe_intermediate_size=32, shared_expert_intermediate_size=32)
    m = Qwen3NextForCausalLM(cfg).eval()
    m.save_pretrained(work / "linear_only")
    capsys.readouterr()                                   # save_pretrained's progress bar
    out = work / "out_linear"
    refused(capsys, capture(work / "linear_only", work / "doc.txt", out),
            r"linear_only: a qwen3_next model whose layers are all linear attention cannot run with a cache")
    assert not out.exists()
    with pytest.raises(AdapterError, match="needs at least one full_attention layer"):
        with Capture(m, work / "lin.h5"):
            run_stream(m, torch.randint(0, 256, (1, 8)), 8)
    assert not (work / "lin.h5").exists()


def test_eval_in_bfloat16_on_the_cpu(work, capsys):
    """--dtype bfloat16: the model runs in bf16 (its kernels compute in float32 inside), the
    adapters read the kernels' inputs as float32 and the reference recurrence is float32, so fp32
    stays next to native (the bf16 read-out and state rounding alone), a 4-bit state does not; the
    output records device, dtype and the kernels that ran"""
    from tiny_models import qwen3_5
    qwen3_5().save_pretrained(work / "q35")
    (work / "d1.txt").write_bytes(bytes(range(33, 127)))
    (work / "d2.txt").write_bytes(bytes(range(126, 32, -1)) * 2)
    out = work / "bf16" / "e.h5"
    capsys.readouterr()
    main(["eval", "--model", str(work / "q35"), "--text", str(work / "d1.txt"), str(work / "d2.txt"), "--formats",
          "fp32,int4", "--out", str(out), "--prefill", "24", "--decode", "32", "--bin", "8", "--dtype", "bfloat16"])
    capsys.readouterr()
    with h5py.File(out) as f:
        assert f.attrs["dtype"] == "bfloat16" and f.attrs["device"] == "cpu"
        assert "modeling_qwen3_5.torch_recurrent_gated_delta_rule" in f.attrs["kernels"]
        fp32, int4 = abs(f["extra_window"][:, 0]).max(), abs(f["extra_window"][:, 1]).max()
    # measured: fp32 exactly 0 (its read-outs round to the same bf16 values as the kernel's own),
    # int4 0.112 nats/token; the bounds leave room for other kernels' float32 rounding
    assert fp32 < 1e-3 and int4 > 0.02, (fp32, int4)
    import torch
    if not torch.cuda.is_available():  # a machine without a GPU refuses it by name, before any work
        refused(capsys, ["eval", "--model", work / "q35", "--text", work / "d1.txt", "--formats", "int8", "--out",
                         work / "g.h5", "--device", "cuda"], r"--device cuda: torch sees no CUDA device here")
    refused(capsys, ["eval", "--model", work / "q35", "--text", work / "d1.txt", "--formats", "int8", "--out",
                     work / "g.h5", "--device", "gpu"], r"--device gpu: one of cpu, cuda, cuda:N, auto")
    import importlib.util
    if importlib.util.find_spec("accelerate") is None:
        refused(capsys, ["eval", "--model", work / "q35", "--text", work / "d1.txt", "--formats", "int8", "--out",
                         work / "g.h5", "--device", "auto"], r"--device auto: .* through accelerate, which is not installed")
    refused(capsys, ["eval", "--model", work / "q35", "--text", work / "d1.txt", "--formats", "int8", "--out",
                     work / "g.h5", "--dtype", "float8"], r"argument --dtype: invalid choice: 'float8'")


def test_documents_of_different_lengths_in_one_eval(work, capsys):
    """documents of different lengths are evaluated together, grouped by their decode steps: each
    document's row equals evaluating it alone, the steps past its end are NaN, and the means per
    bin are over the documents that reach the bin; a document without a token to decode after
    the prefill is refused by name"""
    from tiny_models import qwen3_5
    from stepq.hf.cli import load_model
    from stepq.hf.eval import evaluate
    qwen3_5().save_pretrained(work / "q35len")
    # the model as the command loads it: a model and its saved and reloaded copy held equal
    # weights and buffers, yet their float32 forwards differed by up to 8e-6 nats on an AMD Zen 4,
    # which this comparison is not about
    model = load_model(str(work / "q35len"))[0]
    rng = np.random.default_rng(3)
    texts = []
    for name, n in (("long", 24 + 32 + 1), ("mid", 24 + 20 + 1), ("short", 24 + 7 + 1)):
        (work / (name + ".txt")).write_bytes(bytes(rng.integers(32, 127, n).astype(np.uint8)))
        texts.append(work / (name + ".txt"))
    out = work / "len" / "e.h5"
    capsys.readouterr()
    main(["eval", "--model", str(work / "q35len"), "--text", *map(str, texts), "--formats", "int4,int8",
          "--out", str(out), "--prefill", "24", "--decode", "32", "--bin", "4"])
    capsys.readouterr()
    with h5py.File(out) as f:
        assert list(f["decode_steps"][...]) == [32, 20, 7]
        extra, em = f["extra"][...], f["extra_mean"][...]
    for i, (t, n) in enumerate(zip(texts, (32, 20, 7))):
        ids = torch.tensor([list(t.read_bytes())])
        alone = evaluate(model, ids, ["int4", "int8"], prefill=24, decode=n)["extra"][0]  # [F, n]
        nb = n // 4
        np.testing.assert_allclose(extra[i, :, :nb], alone[:, :nb * 4].reshape(2, nb, 4).mean(-1), atol=1e-6)
        assert np.isnan(extra[i, :, nb:]).all()
    np.testing.assert_allclose(em[:, 0], extra[:, :, 0].mean(0), atol=1e-12)    # bin 0: all three documents
    np.testing.assert_allclose(em[:, 3], extra[:2, :, 3].mean(0), atol=1e-12)   # bins 1-4: the long and the mid one
    np.testing.assert_allclose(em[:, 7], extra[0, :, 7], atol=1e-12)            # bins 5-7: the long one alone
    (work / "tiny.txt").write_bytes(b"x" * 25)
    refused(capsys, ["eval", "--model", work / "q35len", "--text", work / "tiny.txt", "--formats", "int8", "--out",
                     work / "t.h5", "--prefill", "24"], r"--text .*tiny.txt has 25 tokens; --prefill 24 needs at least 26",
            only=False)  # counted in tokens: after the model and its tokenizer are loaded (transformers' loading bar)
    assert not (work / "t.h5").exists()


def test_a_document_depends_on_its_batch_by_size_and_place_alone(work):
    """method 7.4 (issue 65, class 8): eval batches documents of equal decode steps; a document's
    row is the same to the bit whichever documents share its batch (the adapter's sessions keep
    each row to itself), but not where it stands in the batch nor in a batch of another size:
    the model's float32 matrix products round a row by its place and the rows' number (measured
    with tools/eval_batch_effect.py, method 7.4)"""
    from tiny_models import qwen3_5
    from stepq.hf.cli import load_model
    from stepq.hf.eval import evaluate
    if not (work / "q35batch").exists():
        qwen3_5().save_pretrained(work / "q35batch")
    model = load_model(str(work / "q35batch"))[0]
    rng = np.random.default_rng(5)
    a, b, c = (torch.tensor([rng.integers(32, 127, 24 + 12 + 1).tolist()]) for _ in range(3))
    runs = [evaluate(model, torch.cat(x, 0), ["int4", "int8"], prefill=24, decode=12)
            for x in ([a, b, c], [a, c, b], [a, a, a], [c, a, b], [a])]
    for r in runs[1:3]:  # a first among three, beside other documents: the same bits
        for k in ("extra", "nll_native", "kl"):
            assert np.array_equal(r[k][0], runs[0][k][0]), k
    # a second among three, or alone: the native model's own NLL may move, by float32 rounding
    for r, row in ((runs[3], 1), (runs[4], 0)):
        d = np.abs(r["nll_native"][row] - runs[0]["nll_native"][0]).max()
        assert d < 1e-4, d  # 0 on a CPU whose one-row and many-row products agree


def test_plot_needs_no_path(work, capsys):
    """--plot alone draws with stepq's own nll.gp: the installed package's copy (the wheel carries
    it), or the clone's"""
    from tiny_models import qwen3_5
    if not (work / "q35").exists():
        qwen3_5().save_pretrained(work / "q35")
    (work / "p.txt").write_bytes(bytes(range(33, 127)))
    out = work / "plotted" / "e.h5"
    capsys.readouterr()
    main(["eval", "--model", str(work / "q35"), "--text", str(work / "p.txt"), "--formats", "int4", "--out", str(out),
          "--prefill", "24", "--decode", "16", "--bin", "4", "--plot"])
    assert "wrote %s" % (work / "plotted" / "e.png") in capsys.readouterr().out
    assert os.path.getsize(work / "plotted" / "e.png") > 1000


# ---- issue 65, class 3: outputs follow the umask -------------------------------------------------------

def test_eval_outputs_follow_the_umask(work, capsys):
    """eval's .h5 and .tsv get the permissions a new file gets under the umask (0644 under 022,
    0640 under 027), as libstepq's files do, not mkstemp's 0600"""
    from tiny_models import qwen3_5
    if not (work / "q35").exists():
        qwen3_5().save_pretrained(work / "q35")
    (work / "m.txt").write_bytes(bytes(range(33, 127)))
    old = os.umask(0o022)
    try:
        for mask, mode in ((0o022, 0o644), (0o027, 0o640)):
            os.umask(mask)
            out = work / ("mode%03o" % mask) / "e.h5"
            capsys.readouterr()
            main(["eval", "--model", str(work / "q35"), "--text", str(work / "m.txt"), "--formats", "int8", "--out",
                  str(out), "--prefill", "24", "--decode", "8", "--bin", "4"])
            capsys.readouterr()
            for p in (out, out.with_suffix(".tsv")):
                assert os.stat(p).st_mode & 0o777 == mode, (p, oct(os.stat(p).st_mode))
    finally:
        os.umask(old)


# ---- issue 65, class 4: options checked against the work before the work -------------------------------

def test_decode_and_bin_against_the_documents(work, capsys, monkeypatch):
    """an explicit --decode above what the longest document gives (10**12 ran the evaluation and
    died in numpy's allocation), and a --bin above every document's decode steps (all-NaN bins,
    exit 0), are refused by name before the model loads, nothing written; the default --decode
    (512) still lets documents end first"""
    from tiny_models import qwen3_5
    import stepq.hf.cli as cli
    if not (work / "q35").exists():
        qwen3_5().save_pretrained(work / "q35")
    (work / "d60.txt").write_bytes(bytes(range(40, 100)))        # 60 tokens: 35 decode steps after 24
    (work / "d40.txt").write_bytes(bytes(range(40, 80)))         # 40 tokens: 15
    out = work / "bounds" / "e.h5"
    base = ["eval", "--model", work / "q35", "--text", work / "d60.txt", work / "d40.txt", "--formats", "int8",
            "--out", out, "--prefill", "24"]

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr("stepq.hf.eval.load_model", no_model)
    capsys.readouterr()                                   # save_pretrained's progress bar
    refused(capsys, base + ["--decode", str(10**12), "--bin", "5"], r"--decode 1000000000000: the longest document, .*d60.txt, "
            r"holds 60 tokens, so no document gives more than 35 decode steps after --prefill 24")
    refused(capsys, base + ["--decode", "36", "--bin", "5"], r"--decode 36: .* no document gives more than 35 decode steps")
    refused(capsys, base + ["--decode", "35", "--bin", "36"], r"--bin 36 is above --decode 35")
    refused(capsys, base + ["--bin", "40"], r"--bin 40 is above the decode steps of every document \(the longest "
            r"gives 35\): no bin would be filled")
    refused(capsys, base, r"--bin 64 \(the default\) is above the decode steps of every document")
    refused(capsys, base + ["--decode", "30"], r"--bin 64 \(the default\) is above --decode 30")
    assert not out.parent.exists() or not os.listdir(out.parent)
    monkeypatch.undo()
    capsys.readouterr()
    main([str(a) for a in base + ["--bin", "5"]])  # the default --decode: each document to its end
    capsys.readouterr()
    with h5py.File(out) as f:
        assert list(f["decode_steps"][...]) == [35, 15] and f.attrs["decode"] == 512


# ---- issue 65, class 5: checkpoints that do not fit their config -------------------------------------

def test_a_config_that_does_not_fit_its_weights_is_refused(work, capsys):
    """a config.json that disagrees with its weights loaded with exit 0, the tensors it leaves out
    ignored (use_short_conv false beside the short convolutions' 12) or the weights it adds
    initialised at random (attention_bias true): refused naming a few of them and their count,
    nothing written"""
    pytest.importorskip("fla")
    gdn = os.path.join(os.path.dirname(__file__), "..", "..", "data", "lm", "gdn")
    d = work / "gdn_noconv"
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(gdn, d)
    cfg = json.load(open(d / "config.json"))
    _set_json(d / "config.json", dict(cfg, use_short_conv=False))
    out = work / "out_noconv"
    refused(capsys, capture(d, work / "doc.txt", out),
            r"gdn_noconv: its config.json does not fit its weights: 12 checkpoint tensors the config's model does not "
            r"use \(model.layers.0.attn.k_conv1d.weight, model.layers.0.attn.q_conv1d.weight, .*, \.\.\.\)",
            only=False)  # after transformers' loading bar
    assert not glob.glob(str(out / "*"))
    d = model_copy(work, "bias", lambda d: _set_json(d / "config.json", dict(json.load(open(d / "config.json")),
                                                                            attention_bias=True)))
    refused(capsys, capture(d, work / "doc.txt", out),
            r"bias: its config.json does not fit its weights: \d+ weights the config's model needs are not in the "
            r"checkpoint \(model.layers.2.self_attn.[kqv]_proj.bias", only=False)
    assert not glob.glob(str(out / "*"))


# ---- issue 65, class 9: what a real Qwen3.5 checkpoint meets --------------------------------------------

def test_the_moe_qwen3_5_has_the_dense_models_adapter(work, capsys):
    """Qwen3.5's mixture-of-experts model (qwen3_5_moe_text, saved by transformers' own classes)
    was refused as having no adapter; its delta-rule layers are the dense model's: captured (the
    trace replays its layers' read-outs in fp32) and evaluated (fp32 within rounding of native,
    int4 not)"""
    from tiny_models import qwen3_5_moe
    d = work / "q35moe"
    qwen3_5_moe().save_pretrained(d)
    assert json.load(open(d / "config.json"))["model_type"] == "qwen3_5_moe_text"
    (work / "moe.txt").write_bytes(bytes(range(33, 127)))
    capsys.readouterr()
    main(["capture", "--model", str(d), "--text", str(work / "moe.txt"), "--out", str(work / "moe_tr"),
          "--prefill", "48"])
    assert "wrote %s: 94 steps of 2 layers x 2 value heads (gdn)" % (work / "moe_tr" / "moe.h5") in capsys.readouterr().out
    with h5py.File(work / "moe_tr" / "moe.h5") as f:
        assert f.attrs["model_type"] == "qwen3_5_moe_text" and list(f["layer"][...]) == [0, 0, 2, 2]
    out = work / "moe_ev" / "e.h5"
    main(["eval", "--model", str(d), "--text", str(work / "moe.txt"), "--formats", "fp32,int4", "--out", str(out),
          "--prefill", "24", "--decode", "32", "--bin", "8"])
    capsys.readouterr()
    with h5py.File(out) as f:
        assert "modeling_qwen3_5_moe.torch_recurrent_gated_delta_rule" in f.attrs["kernels"]
        fp32, int4 = abs(f["extra_window"][0, 0]), abs(f["extra_window"][0, 1])
    assert fp32 < 1e-4 and int4 > 1e-3, (fp32, int4)


def test_dtype_defaults_to_the_checkpoints_own(work, capsys):
    """--dtype defaulted to float32, loading a bf16 checkpoint at twice its size; it defaults to
    the checkpoint's own (its config's dtype, else its stored tensors'), as transformers'
    dtype="auto" does, and the outputs record it; --dtype still overrides"""
    from tiny_models import qwen3_5
    d = work / "q35bf16"
    qwen3_5().to(torch.bfloat16).save_pretrained(d)
    (work / "bf.txt").write_bytes(bytes(range(33, 127)))
    capsys.readouterr()
    main(["capture", "--model", str(d), "--text", str(work / "bf.txt"), "--out", str(work / "bf_tr")])
    out = work / "bf_ev" / "e.h5"
    main(["eval", "--model", str(d), "--text", str(work / "bf.txt"), "--formats", "int8", "--out", str(out),
          "--prefill", "24", "--decode", "8", "--bin", "4"])
    main(["eval", "--model", str(d), "--text", str(work / "bf.txt"), "--formats", "int8", "--out",
          str(work / "bf_ev" / "f.h5"), "--prefill", "24", "--decode", "8", "--bin", "4", "--dtype", "float32"])
    capsys.readouterr()
    with h5py.File(work / "bf_tr" / "bf.h5") as f, h5py.File(out) as g, h5py.File(work / "bf_ev" / "f.h5") as h:
        assert f.attrs["dtype"] == "bfloat16" and g.attrs["dtype"] == "bfloat16" and h.attrs["dtype"] == "float32"
    from stepq.hf.cli import checkpoint_dtype
    assert checkpoint_dtype(str(d)) == "bfloat16"
    # a config that names no dtype: the stored tensors'
    e = work / "q35bf16_nodtype"
    if e.exists():
        shutil.rmtree(e)
    shutil.copytree(d, e)
    cfg = json.load(open(e / "config.json"))
    cfg.pop("dtype", None)
    cfg.pop("torch_dtype", None)
    _set_json(e / "config.json", cfg)
    assert checkpoint_dtype(str(e)) == "bfloat16"
    assert checkpoint_dtype(str(work / "model")) == "float32"


def test_a_plan_binds_to_the_checkpoint_not_the_dtype_it_ran_in(work, capsys):
    """a plan calibrated on a bf16 checkpoint's bf16 capture was refused by a float32 eval of the
    same checkpoint (the weights' SHA-256 was taken after the cast); bf16 and float16 weights are
    hashed as the float32 they widen to exactly, so it is accepted, at either dtype; a float32
    model's hash is the one it always had (plans made before keep their key)"""
    import hashlib
    from tiny_models import qwen3_5
    from stepq.hf import weights_sha256
    d = work / "q35plan"
    qwen3_5(seed=4).to(torch.bfloat16).save_pretrained(d)
    (work / "pl.txt").write_bytes(bytes(range(33, 127)) * 2)
    capsys.readouterr()
    main(["capture", "--model", str(d), "--text", str(work / "pl.txt"), "--out", str(work / "pl_tr"), "--dtype",
          "bfloat16", "--prefill", "64"])
    main(["calibrate", "--trace", str(work / "pl_tr" / "pl.h5"), "--out", str(work / "pl_plan.h5")])
    for dt in ("float32", "bfloat16"):
        out = work / "pl_ev" / ("%s.h5" % dt)
        main(["eval", "--model", str(d), "--text", str(work / "pl.txt"), "--formats", "stepquant4", "--plan",
              str(work / "pl_plan.h5"), "--out", str(out), "--prefill", "24", "--decode", "16", "--bin", "4",
              "--dtype", dt])
        with h5py.File(out) as f:
            assert f.attrs["dtype"] == dt and np.isfinite(f["extra_window"][...]).all()
    capsys.readouterr()
    m = qwen3_5(seed=4)
    old = hashlib.sha256()
    for name, t in sorted(m.state_dict().items()):
        old.update(name.encode())
        old.update(str(tuple(t.shape)).encode() + str(t.dtype).encode())
        old.update(t.detach().contiguous().view(torch.uint8).numpy().tobytes())
    assert weights_sha256(m) == old.hexdigest()
    assert weights_sha256(m.to(torch.bfloat16)) == weights_sha256(m.to(torch.bfloat16).to(torch.float32))


def test_ms_per_token_divides_by_the_steps_that_ran(work, capsys, monkeypatch):
    """the printed "ms per token and stream" divided the run's time by --decode, not by the steps
    the documents ran (fewer where one ends first): with the evaluation's clock set to take 10 s,
    two documents of 35 and 15 decode steps in 2 streams (native and int8) are 10000 / (50 * 2)
    = 100 ms per token and stream (no time is measured here)"""
    from types import SimpleNamespace
    from tiny_models import qwen3_5
    if not (work / "q35").exists():
        qwen3_5().save_pretrained(work / "q35")
    (work / "d60.txt").write_bytes(bytes(range(40, 100)))        # 35 decode steps after 24
    (work / "d40.txt").write_bytes(bytes(range(40, 80)))         # 15
    clock = iter([0.0, 10.0])
    monkeypatch.setattr("stepq.hf.eval.time", SimpleNamespace(time=lambda: next(clock)))
    capsys.readouterr()
    main(["eval", "--model", str(work / "q35"), "--text", str(work / "d60.txt"), str(work / "d40.txt"), "--formats",
          "int8", "--out", str(work / "ms" / "e.h5"), "--prefill", "24", "--bin", "5"])
    out = capsys.readouterr().out
    assert re.search(r"2 documents, 50 decode steps \(at most 35 each\), 1 formats, 100\.0 ms per token and stream",
                     out), out
