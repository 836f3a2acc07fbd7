"""The tools of tools/lm and tools/repro_tables.py held to the command line's rules (issue 65,
class 6): inputs checked before any work, each refusal one line "PROG: error: ..." naming the file
or the option with exit status 2 and no traceback (tools/lm/toolcheck.py); no shipped file
(tracked by git under data/) written over without --overwrite-shipped; a resume of train.py that
differs from its run (each setting named with both values) or continues a finished run refused;
repro_tables' columns labelled by the bins its files hold, and quick runs named as such."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LM = os.path.join(ROOT, "tools", "lm")
sys.path.insert(0, LM)


def tool(path, *args, cwd=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, path), *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def refused(r, *words):
    """r exited 2 with one line on stderr naming words, no traceback; that line"""
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-4000:])
    assert "Traceback" not in r.stderr, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and ": error: " in lines[0], r.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """a 1-layer GDN of 2 heads of 8 key channels saved as tools/lm saves a model"""
    torch = pytest.importorskip("torch")
    from model import DeltaLM, make_config, save_checkpoint
    d = tmp_path_factory.mktemp("model")
    torch.manual_seed(0)
    save_checkpoint(DeltaLM(make_config("gated_deltanet", hidden_size=16, num_hidden_layers=1, num_heads=2,
                                        head_dim=8, intermediate_size=32)), str(d))
    return d


def truncated(src, dst, frac=0.5):
    data = open(src, "rb").read()
    with open(dst, "wb") as f:
        f.write(data[:int(len(data) * frac)])
    return dst


def test_heads_checks_its_inputs(tiny_model, tmp_path):
    """heads.py (and readout.py, which shares its command line): --threads 0, --docs 0, a truncated
    model and a missing --json are refused before any work"""
    refused(tool("tools/lm/heads.py", tiny_model, "--threads", "0"), "--threads")
    refused(tool("tools/lm/heads.py", tiny_model, "--docs", "0"), "--docs")
    refused(tool("tools/lm/readout.py", tiny_model, "--threads", "0"), "--threads")
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "config.json").write_bytes((tiny_model / "config.json").read_bytes())
    truncated(tiny_model / "model.safetensors", cut / "model.safetensors")
    refused(tool("tools/lm/heads.py", cut, "--docs", "1"), str(cut))
    refused(tool("tools/lm/heads.py", tiny_model, "--json", tmp_path / "none.json"), "none.json")


def test_recall_metrics_checks_its_inputs(tiny_model, tmp_path):
    """recall_metrics.py: --draws 0, --threads 0, --docs 0 refused; a truncated model refused"""
    out = tmp_path / "m.json"
    for opt in ("--draws", "--threads", "--docs"):
        refused(tool("tools/lm/recall_metrics.py", tiny_model, opt, "0", "--out", out), opt)
    assert not out.exists()
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "config.json").write_bytes((tiny_model / "config.json").read_bytes())
    truncated(tiny_model / "model.safetensors", cut / "model.safetensors")
    refused(tool("tools/lm/recall_metrics.py", cut, "--docs", "1", "--out", out), str(cut))
    assert not out.exists()


def test_recall_metrics_never_writes_over_a_shipped_file():
    """recall_metrics.py on a shipped model without --out would merge into its shipped
    metrics.json: refused (naming --overwrite-shipped) before any work, the file unchanged"""
    pytest.importorskip("torch")
    shipped = os.path.join(ROOT, "data", "lm", "gdn", "metrics.json")
    before = open(shipped, "rb").read()
    try:
        r = tool("tools/lm/recall_metrics.py", os.path.join(ROOT, "data", "lm", "gdn"), "--docs", "1",
                 "--draws", "1")
        refused(r, "metrics.json", "--overwrite-shipped")
        assert "units" not in r.stdout  # no work began
    finally:
        if open(shipped, "rb").read() != before:
            open(shipped, "wb").write(before)
            pytest.fail("recall_metrics.py wrote over %s" % shipped)
    import toolcheck
    assert toolcheck.shipped(shipped) and not toolcheck.shipped(os.path.join(ROOT, "tools", "lm", "model.py"))


def recall_run_h5(path, docs, extra_attrs=None):
    """a recall driver's output, by hand: one record in documents[0]"""
    import h5py
    with h5py.File(path, "w") as f:
        f.attrs["experiment"] = "recall"
        f.attrs["prefill"] = 0
        f["documents"] = np.array([d.encode() for d in docs])
        f["formats"] = np.array([b"int6"])
        f["buckets"] = np.array([[16, 64]])
        f["record_document"] = np.array([0])
        f["record_distance"] = np.array([20])
        f["record_length"] = np.array([4])
        f["record_position"] = np.array([30])
        f["exact"] = np.array([[1, 0]], dtype=np.uint8)


def test_recency_checks_its_inputs(tmp_path):
    """recency.py: a truncated HDF5, another driver's output (replay), a run whose document is
    gone: one message naming the file"""
    h5py = pytest.importorskip("h5py")
    doc = tmp_path / "doc.txt"
    doc.write_bytes(b"#1234 = Ruth;\n" + b"x" * 40 + b"\n#1234 ? Ruth;\n")
    good = tmp_path / "run.h5"
    recall_run_h5(good, [str(doc)])
    refused(tool("tools/lm/recency.py", truncated(good, tmp_path / "cut.h5")), "cut.h5")
    with h5py.File(tmp_path / "replay.h5", "w") as f:
        f.attrs["experiment"] = "replay"
        f["formats"] = np.array([b"int6"])
    line = refused(tool("tools/lm/recency.py", tmp_path / "replay.h5"), "replay.h5", "record_document")
    assert "replay" in line.split("replay.h5")[1]
    gone = tmp_path / "gone.h5"
    recall_run_h5(gone, [str(tmp_path / "missing.txt")])
    refused(tool("tools/lm/recency.py", gone), "missing.txt")
    refused(tool("tools/lm/recency.py", good, "--format", "int9"), "int9")
    r = tool("tools/lm/recency.py", good, "--format", "int6")
    assert r.returncode == 0, r.stderr


def nll_h5(path, quick, bin_, decode, formats=("int8", "int4")):
    """an nll driver's output, by hand: 2 documents, bins of bin_ steps over decode steps"""
    import h5py
    nb = -(-decode // bin_)
    F = len(formats)
    with h5py.File(path, "w") as f:
        f.attrs["experiment"] = "nll"
        f.attrs["config"] = "experiment = \"nll\";\n" + ("\n# run with --quick: the quick group applied, results "
                                                          "under results/quick/\n" if quick else "")
        f.attrs["bin"] = bin_
        f.attrs["decode"] = decode
        f["formats"] = np.array([x.encode() for x in formats])
        f["decode_step"] = np.arange(nb) * bin_
        f["extra_mean"] = np.full((F, nb), 0.01)
        f["extra_ci95"] = np.full((F, nb), 0.002)
        f["extra_window"] = np.full((2, F), 0.01) + np.arange(2)[:, None] * 1e-3
        f["bpb_native"] = np.array([2.0, 2.1])


def results_tree(root, quick, bin_=64, decode=256):
    for m in ("gdn", "kda"):
        os.makedirs(root / "nll", exist_ok=True)
        nll_h5(root / "nll" / ("recall_%s.h5" % m), quick, bin_, decode)
        nll_h5(root / "nll" / ("recall_%s_prose.h5" % m), quick, bin_, decode)
    return root


def test_repro_tables_labels_bins_and_names_quick_runs(tmp_path):
    """repro_tables.py on quick results (bins of 64 over 256 steps) labels its columns "first 64 /
    last 64", not 512, and says the inputs are quick runs; on full-size results, 512 and no note"""
    pytest.importorskip("h5py")
    quick = results_tree(tmp_path / "quick", True)
    r = tool("tools/repro_tables.py", "--results", quick, "--table", "nll")
    assert r.returncode == 0, r.stderr
    assert "GDN first 64 | GDN last 64" in r.stdout and "512" not in r.stdout
    assert "quick run" in r.stdout and "recall_gdn.h5" in r.stdout.split("|")[0]
    full = results_tree(tmp_path / "full", False, 512, 9216 + 100)
    r = tool("tools/repro_tables.py", "--results", full, "--table", "nll")
    assert r.returncode == 0, r.stderr
    assert "GDN first 512 | GDN last 100" in r.stdout and "quick" not in r.stdout


def test_repro_tables_checks_its_inputs(tmp_path):
    """repro_tables.py: a truncated file, a replay output in a result's place, and a GDN and KDA
    pair with different formats: one message naming the file, before any table is printed"""
    h5py = pytest.importorskip("h5py")
    root = results_tree(tmp_path / "r", False)
    good = root / "nll" / "recall_kda.h5"
    data = good.read_bytes()
    truncated(good, good)
    r = tool("tools/repro_tables.py", "--results", root, "--table", "nll")
    refused(r, "recall_kda.h5")
    assert r.stdout == ""
    with h5py.File(good, "w") as f:
        f.attrs["experiment"] = "replay"
        f["formats"] = np.array([b"int8"])
    refused(tool("tools/repro_tables.py", "--results", root, "--table", "nll"), "recall_kda.h5", "replay")
    good.write_bytes(data)
    nll_h5(good, False, 64, 256, formats=("int8",))
    refused(tool("tools/repro_tables.py", "--results", root, "--table", "nll"), "recall_kda.h5", "formats")
    refused(tool("tools/repro_tables.py", "--results", tmp_path / "none"), "--results")


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory):
    """a corpus as corpus.py lays it out, a few KB: three training streams and two held-out docs"""
    d = tmp_path_factory.mktemp("corpus")
    text = b"".join(b"%d:%d the word of line %d\n" % (i // 10, i % 10, i) for i in range(300))
    for dom in ("prose", "fortunes", "code"):
        (d / ("train_%s.bin" % dom)).write_bytes(text)
    (d / "p.txt").write_bytes(text[:600])
    (d / "c.txt").write_bytes(text[600:1200])
    (d / "manifest.json").write_text(json.dumps({"documents": [
        {"split": "heldout", "domain": "prose", "name": "p", "file": "p.txt"},
        {"split": "heldout", "domain": "code", "name": "c", "file": "c.txt"}]}))
    return d


TINY = ["--model", "gdn", "--hidden", "16", "--layers", "1", "--heads", "2", "--head-dim", "8", "--inter", "32",
        "--seq", "32", "--batch", "1", "--steps", "3", "--warmup", "1", "--threads", "1", "--eval-every", "1",
        "--eval-docs", "1", "--eval-len", "64", "--final-len", "64"]


def train(corpus, out, *extra):
    return tool("tools/lm/train.py", *TINY, "--corpus", corpus, "--out", out, *extra)


def test_train_resume_refuses_other_settings_and_finished_runs(tiny_corpus, tmp_path):
    """train.py --resume: a run stopped after a step resumes with its own settings; with --clip or
    --hidden otherwise it is refused, naming each with both values, before anything is written;
    a finished run (metrics.json written) is refused, its weights and metrics left as they were"""
    pytest.importorskip("torch")
    out = tmp_path / "run"
    r = train(tiny_corpus, out, "--stop-after", "1")
    assert r.returncode == 0, r.stderr
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    line = refused(train(tiny_corpus, out, "--resume", "--clip", "0.5", "--hidden", "32"),
                   "--clip 0.5", "1.0", "--hidden 32", "16")
    assert "--seq" not in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == files
    r = train(tiny_corpus, out, "--resume")
    assert r.returncode == 0, r.stderr
    assert "resumed at step 1" in r.stdout and (out / "metrics.json").exists()
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    refused(train(tiny_corpus, out, "--resume"), "finished", str(out))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == files


def test_other_tools_refuse_alike(tiny_model, tmp_path):
    """state_norms.py and step_time.py refuse --threads 0 alike; novel_set.py and corpus.py never
    write over the shipped held-out sets (their defaults) without --overwrite-shipped, and leave
    them as they were"""
    refused(tool("tools/lm/state_norms.py", tiny_model, "--threads", "0"), "--threads")
    refused(tool("tools/lm/step_time.py", tiny_model, "--threads", "0"), "--threads")
    shipped = os.path.join(ROOT, "data", "lm", "heldout_recall_novel.json")
    before = open(shipped, "rb").read()
    refused(tool("tools/lm/novel_set.py"), "heldout_recall_novel.json", "--overwrite-shipped")
    refused(tool("tools/lm/corpus.py", "--out", tmp_path / "c"), "heldout.json", "--overwrite-shipped")
    assert open(shipped, "rb").read() == before and not (tmp_path / "c").exists()


def test_eval_batch_effect_checks_its_inputs(tmp_path):
    """tools/eval_batch_effect.py (method 7.4): one text (no batch-mates), a missing text and
    --decode 0 are refused before any model is loaded"""
    t = tmp_path / "a.txt"
    t.write_bytes(b"x" * 100)
    model = os.path.join(ROOT, "data", "lm", "gdn")
    refused(tool("tools/eval_batch_effect.py", "--model", model, "--text", t), "--text")
    refused(tool("tools/eval_batch_effect.py", "--model", model, "--text", t, tmp_path / "no.txt"), "no.txt")
    refused(tool("tools/eval_batch_effect.py", "--model", model, "--text", t, t, "--decode", "0"), "--decode")


def test_repro_tables_verdicts_checks_every_file_first(tmp_path):
    """repro_tables.py --table verdicts reads six kinds of file: with the nll ones there and the
    half-life one missing, it is refused naming that file before any number is printed"""
    pytest.importorskip("h5py")
    root = results_tree(tmp_path / "r", False)
    r = tool("tools/repro_tables.py", "--results", root, "--table", "verdicts")
    refused(r, "lm_recall_gdn.h5")
    assert r.stdout == ""


def recall_h5(path, quick):
    """a recall driver's output, by hand, with what repro_tables' recall table reads"""
    import h5py
    with h5py.File(path, "w") as f:
        f.attrs["experiment"] = "recall"
        f.attrs["config"] = "\n# run with --quick: the quick group applied\n" if quick else ""
        f["formats"] = np.array([b"int8", b"int4"])
        f["buckets"] = np.array([[16, 64], [64, 256]])
        f["positions"] = np.array([[0, 128], [128, 256]])
        f["record_position"] = np.array([5, 50, 130])
        f["n_records"] = np.array([2, 1])
        f["exact_mean"] = np.full((3, 2), 0.5)
        f["exact_ci95"] = np.full((3, 2), 0.1)
        for k in ("extra_nll_mean", "extra_nll_ci95", "extra_nll_pos_mean", "extra_nll_pos_ci95"):
            f[k] = np.full((2, 2), 0.25)


def test_repro_tables_all_tables(tmp_path):
    """repro_tables.py's three tables on files of the drivers' layout (quick ones): exit 0, the
    quick runs named once before them, every table printed"""
    pytest.importorskip("h5py")
    root = results_tree(tmp_path / "q", True)
    os.makedirs(root / "recall")
    for m in ("gdn", "kda"):
        recall_h5(root / "recall" / ("%s.h5" % m), True)
    r = tool("tools/repro_tables.py", "--results", root)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("NOTE: quick runs") and r.stdout.count("NOTE") == 1
    assert "GDN first 64" in r.stdout and "GDN first -> last bin" in r.stdout and "KDA: exact match" in r.stdout


def test_h5cmp_refuses_what_is_not_hdf5(tmp_path):
    """tools/h5cmp.py (exit 1: files differ) refuses a truncated file and a missing A with exit 2
    and one line naming it, where it ended in h5py's traceback"""
    pytest.importorskip("h5py")
    a = tmp_path / "a.h5"
    nll_h5(a, False, 64, 256)
    assert tool("tools/h5cmp.py", a, a).returncode == 0
    refused(tool("tools/h5cmp.py", a, truncated(a, tmp_path / "cut.h5")), "cut.h5")
    refused(tool("tools/h5cmp.py", tmp_path / "none.h5", a), "none.h5")
