"""The tools of tools/lm and tools/repro_tables.py held to the command line's rules (issue 65,
class 6): inputs checked before any work, each refusal one line "PROG: error: ..." naming the file
or the option with exit status 2 and no traceback (tools/lm/toolcheck.py); no shipped file
(tracked by git under data/) written over without --overwrite-shipped; a resume of train.py that
differs from its run (each setting named with both values) or continues a finished run refused;
repro_tables' columns labelled by the bins its files hold, quick runs refused unless asked for and
then named as such, its verdicts decided by their rules, its check naming what differs."""
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
        f["extra"] = np.full((2, F, nb), 0.01)
        f["bpb_native"] = np.array([2.0, 2.1])
        f["bpb"] = np.full((2, F), 2.05)
        f["documents"] = np.array([b"a.txt", b"b.txt"])


def results_tree(root, quick, bin_=64, decode=256):
    for m in ("gdn", "kda"):
        os.makedirs(root / "nll", exist_ok=True)
        nll_h5(root / "nll" / ("recall_%s.h5" % m), quick, bin_, decode)
        nll_h5(root / "nll" / ("recall_%s_prose.h5" % m), quick, bin_, decode)
    return root


def repro(*args):
    return tool("tools/repro_tables.py", *args)


def test_repro_tables_refuses_quick_runs_unless_told(tmp_path):
    """collect refuses quick results (naming the file and --allow-quick, writing nothing); with
    --allow-quick the rendered document says they are quick and labels its columns by the bins
    the files hold ("first 64", not 512); full-size files give "first 512 / last 100" and no note"""
    pytest.importorskip("h5py")
    quick = results_tree(tmp_path / "quick", True)
    out = tmp_path / "q.json"
    refused(repro("collect", "--results", quick, "--out", out), "recall_gdn.h5", "--allow-quick")
    assert not out.exists()
    r = repro("collect", "--results", quick, "--out", out, "--allow-quick")
    assert r.returncode == 0, r.stderr
    r = repro("render", out)
    assert r.returncode == 0, r.stderr
    assert "QUICK RESULTS" in r.stdout and "GDN recall first 64 | GDN recall last 64" in r.stdout
    full = results_tree(tmp_path / "full", False, 512, 9216 + 100)
    r = repro("collect", "--results", full, "--out", tmp_path / "f.json", "--figures", tmp_path)
    assert r.returncode == 0, r.stderr
    r = repro("render", tmp_path / "f.json")
    assert "GDN recall first 512 | GDN recall last 100" in r.stdout and "QUICK" not in r.stdout


def test_repro_tables_checks_its_inputs(tmp_path):
    """collect: a truncated file, a replay output in a result's place, a missing --results and a
    folder without any of the files: one message naming the file or option, nothing written"""
    h5py = pytest.importorskip("h5py")
    root = results_tree(tmp_path / "r", False)
    out = tmp_path / "p.json"
    good = root / "nll" / "recall_kda.h5"
    data = good.read_bytes()
    truncated(good, good)
    refused(repro("collect", "--results", root, "--out", out, "--figures", tmp_path), "recall_kda.h5")
    with h5py.File(good, "w") as f:
        f.attrs["experiment"] = "replay"
        f["formats"] = np.array([b"int8"])
    refused(repro("collect", "--results", root, "--out", out, "--figures", tmp_path), "recall_kda.h5", "replay")
    good.write_bytes(data)
    refused(repro("collect", "--results", tmp_path / "none", "--out", out), "--results")
    os.makedirs(tmp_path / "empty")
    refused(repro("collect", "--results", tmp_path / "empty", "--out", out, "--figures", tmp_path), "--results")
    refused(repro("render", tmp_path / "no.json"), "no.json")
    assert not out.exists()


def doc_json(path, spearman):
    """a collected document by hand: one half-life file of the GDN recall model with the given Spearman, the
    others not run"""
    numbers = {"halflife/lm_recall_gdn:%s" % k: [v, None, k]
               for k, v in (("spearman_acc", spearman), ("spearman_acc_over_d", 0.9), ("units", 16))}
    files = {"halflife/lm_recall_gdn.h5": {"config": "experiments/halflife_recall_gdn.cfg", "git_revision": "abc",
                                           "config_xxh3": "0", "quick": False},
             "halflife/gdn.h5": {"config": "experiments/halflife_gdn.cfg", "missing": True}}
    path.write_text(json.dumps({"files": files, "figures": {}, "lists": {}, "numbers": numbers}))
    return path


def test_repro_tables_verdict_follows_its_rule(tmp_path):
    """the verdict is decided by the stated rule (Spearman of 0.5 or more), not typed: 0.93 gives
    yes and "reproduced", 0.12 no and "not reproduced"; a file not run is named by its config"""
    r = repro("render", doc_json(tmp_path / "a.json", 0.93))
    assert r.returncode == 0, r.stderr
    row = [x for x in r.stdout.splitlines() if x.startswith("| Spearman(half-life")][0]
    assert "0.930 (error / d 0.900): **yes**" in row and "| reproduced (yes on 1 of 1" in row
    assert "not run (`experiments/halflife_gdn.cfg`)" in row
    row = [x for x in repro("render", doc_json(tmp_path / "b.json", 0.12)).stdout.splitlines()
           if x.startswith("| Spearman(half-life")][0]
    assert "0.120 (error / d 0.900): **no**" in row and "| not reproduced (yes on 0 of 1" in row


def test_repro_tables_hold_verdict_follows_its_rule(tmp_path):
    """the hold's verdict (hold_verdict): the answers' extra NLL held minus calibrated below zero
    with the held cost reaching zero holds; below zero with the held cost above zero, partly; a
    difference whose interval reaches zero, undecided"""
    def verdict(diff, held):
        nums = {"hold/kda:base.answer_nll": [5.0, 1.0, "x"], "hold/kda:diff.answer_nll": list(diff) + ["x"],
                "hold/kda:held.answer_nll": list(held) + ["x"]}
        files = {"hold/kda.h5": {"config": "experiments/hold_kda.cfg", "git_revision": "abc", "config_xxh3": "0",
                                 "quick": False}}
        path = tmp_path / "h.json"
        path.write_text(json.dumps({"files": files, "figures": {}, "lists": {}, "numbers": nums}))
        r = repro("render", path)
        assert r.returncode == 0, r.stderr
        return [x for x in r.stdout.splitlines() if x.startswith("| the hypothesis")][0].split(" | ")[4]
    assert verdict((-4.5, 1.0), (0.5, 0.9)).startswith("**holds**: the hold takes 90% of it away")
    assert verdict((-3.0, 1.0), (2.0, 0.5)).startswith("**partly**")
    assert verdict((-1.0, 1.5), (4.0, 1.0)).startswith("**undecided**")


def test_repro_tables_check_names_what_differs(tmp_path):
    """check: the document rendered from its JSON passes; an edited document fails, saying it is
    not what render prints; a result that moved fails, naming the number and both values"""
    pytest.importorskip("h5py")
    root = results_tree(tmp_path / "r", False, 512, 1024)
    j, md = tmp_path / "p.json", tmp_path / "p.md"
    assert repro("collect", "--results", root, "--out", j, "--figures", tmp_path).returncode == 0
    assert repro("render", j, "--out", md).returncode == 0
    r = repro("check", "--json", j, "--md", md, "--results", root)
    assert r.returncode == 0, r.stdout
    md.write_text(md.read_text().replace("GDN recall", "GDN recalls", 1))
    r = repro("check", "--json", j, "--md", md)
    assert r.returncode == 1 and "is not what render prints" in r.stdout
    assert repro("render", j, "--out", md).returncode == 0
    import h5py
    with h5py.File(root / "nll" / "recall_gdn.h5", "r+") as f:
        f["extra_window"][0, 0] = 0.5
    r = repro("check", "--json", j, "--md", md, "--results", root)
    assert r.returncode == 1 and "nll/recall_gdn:int8.window" in r.stdout, r.stdout


def test_repro_tables_update_keeps_what_did_not_run(tmp_path):
    """collect --update: the files the new results hold replace the earlier document's (numbers and
    provenance), the others keep its numbers, but those --drop names, which become not run;
    --drop of a file the results hold, of a file the document does not quote, or without --update
    is refused, nothing written"""
    pytest.importorskip("h5py")
    import h5py
    first = results_tree(tmp_path / "a", False, 512, 1024)
    j = tmp_path / "p.json"
    assert repro("collect", "--results", first, "--out", j, "--figures", tmp_path).returncode == 0
    with h5py.File(first / "nll" / "recall_kda.h5", "r+") as f:
        f.attrs["git_revision"] = "old"
    assert repro("collect", "--results", first, "--out", j, "--figures", tmp_path).returncode == 0
    before = json.loads(j.read_text())
    again = tmp_path / "b" / "nll"
    os.makedirs(again)
    nll_h5(again / "recall_gdn.h5", False, 512, 1024)
    with h5py.File(again / "recall_gdn.h5", "r+") as f:
        f["extra_window"][0, 0] = 0.5
        f.attrs["git_revision"] = "new"
    u = tmp_path / "u.json"
    r = repro("collect", "--results", tmp_path / "b", "--update", j, "--drop", "nll/recall_gdn_prose", "--out", u,
              "--figures", tmp_path)
    assert r.returncode == 0, r.stderr
    after = json.loads(u.read_text())
    assert after["files"]["nll/recall_gdn.h5"]["git_revision"] == "new"
    assert after["files"]["nll/recall_kda.h5"] == before["files"]["nll/recall_kda.h5"]
    assert after["files"]["nll/recall_kda.h5"]["git_revision"] == "old"
    assert after["files"]["nll/recall_gdn_prose.h5"].get("missing")
    assert after["numbers"]["nll/recall_gdn:int8.window"][0] != before["numbers"]["nll/recall_gdn:int8.window"][0]
    kda = {k: v for k, v in before["numbers"].items() if k.startswith("nll/recall_kda:")}
    assert kda and all(after["numbers"][k] == v for k, v in kda.items())
    assert not any(k.startswith("nll/recall_gdn_prose:") for k in after["numbers"])
    out = tmp_path / "x.json"
    refused(repro("collect", "--results", tmp_path / "b", "--update", j, "--drop", "nll/recall_gdn", "--out", out),
            "--drop nll/recall_gdn", "did not run")
    refused(repro("collect", "--results", tmp_path / "b", "--update", j, "--drop", "nll/nothing", "--out", out),
            "--drop nll/nothing")
    refused(repro("collect", "--results", tmp_path / "b", "--drop", "hold/gdn", "--out", out), "--update")
    assert not out.exists()


def test_repro_tables_figures_copied(tmp_path):
    """collect copies each driver's figure into the figures folder byte for byte, and refuses a
    figure that is not a PNG, naming it"""
    pytest.importorskip("h5py")
    root = results_tree(tmp_path / "r", False)
    os.makedirs(root / "memory")
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3
    (root / "memory" / "memory.png").write_bytes(png)
    fig = tmp_path / "fig"
    fig.mkdir()
    r = repro("collect", "--results", root, "--out", tmp_path / "p.json", "--figures", fig)
    assert r.returncode == 0, r.stderr
    assert (fig / "memory.png").read_bytes() == png
    (root / "memory" / "memory.png").write_bytes(b"GIF89a not a png")
    r = repro("collect", "--results", root, "--out", tmp_path / "q.json", "--figures", fig)
    assert r.returncode == 2 and "memory.png: not a PNG file" in r.stderr, r.stderr


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


def test_reference_checks_its_inputs(tmp_path):
    """tools/lm/reference.py (the C model's fixtures): --tokens 0, a missing held-out set, a corpus
    without its document or with another text, and a missing model are refused in one line
    before any model runs, nothing written"""
    pytest.importorskip("torch")
    import hashlib
    out = tmp_path / "fixture.h5"
    text = b"a prose document\n" * 8
    (tmp_path / "prose.txt").write_bytes(text)
    held = tmp_path / "held.json"
    held.write_text(json.dumps({"documents": [{"domain": "prose", "file": "prose.txt",
                                               "sha256": hashlib.sha256(text).hexdigest()}]}))
    ref = ["tools/lm/reference.py", tmp_path / "nomodel", out, "--heldout", held, "--corpus", tmp_path]
    refused(tool(*ref, "--tokens", "0"), "--tokens 0")
    refused(tool(*ref[:3], "--heldout", tmp_path / "none.json"), "none.json")
    refused(tool(*ref[:5], "--corpus", tmp_path / "nocorpus"), "nocorpus", "prose.txt")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "prose.txt").write_bytes(b"another text")
    refused(tool(*ref[:5], "--corpus", tmp_path / "other"), "prose.txt does not match")
    refused(tool(*ref), "model", "nomodel")
    assert not out.exists()


def test_h5cmp_refuses_what_is_not_hdf5(tmp_path):
    """tools/h5cmp.py (exit 1: files differ) refuses a truncated file and a missing A with exit 2
    and one line naming it, where it ended in h5py's traceback"""
    pytest.importorskip("h5py")
    a = tmp_path / "a.h5"
    nll_h5(a, False, 64, 256)
    assert tool("tools/h5cmp.py", a, a).returncode == 0
    refused(tool("tools/h5cmp.py", a, truncated(a, tmp_path / "cut.h5")), "cut.h5")
    refused(tool("tools/h5cmp.py", tmp_path / "none.h5", a), "none.h5")


def test_repro_tables_places_formats_against_the_frontier():
    """repro_tables' frontier table: a format the driver flags is "frontier"; one it does not is
    placed below the format with the fewest bits among those with no more bits and no more damage
    (worked out here by hand for five formats), on each kind of document separately"""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import repro_tables as rt
    # format: bits, damage on recall documents, on prose, the driver's two flags
    fmts = {"int8": (8.125, 0.001, 0.004, 1, 1), "int6": (6.125, 0.010, 0.002, 1, 1),
            "space6": (6.25, 0.020, 0.030, 0, 0), "int5": (5.125, 0.015, 0.045, 1, 1),
            "int4": (4.125, 0.030, 0.050, 1, 1),
            "dsq4": (4.25, 0.040, 0.060, 0, 0)}
    numbers, f = {}, "frontier/gdn"
    for x, (b, r, p, fr, fp) in fmts.items():
        for k, v in (("bits", b), ("window_recall", r), ("window_prose", p), ("pareto_recall", fr),
                     ("pareto_prose", fp), ("step_ratio", 1.0)):
            numbers["%s:%s.%s" % (f, x, k)] = [v, None, k]
        for r_ in range(3):
            numbers["%s:%s.exact_delta%d" % (f, x, r_)] = [0.0, 0.01, "exact_delta"]
    for r_ in range(3):
        numbers["%s:native.exact%d" % (f, r_)] = [0.9, 0.05, "exact_native"]
    doc = rt.Doc({"files": {"frontier/gdn.h5": {"config": "experiments/frontier_gdn.cfg"},
                            "frontier/kda.h5": {"config": "experiments/frontier_kda.cfg", "missing": True}},
                  "numbers": numbers, "figures": {},
                  "lists": {f + ":formats": {"items": list(fmts)}, f + ":ranges": {"items": ["1-2 KiB", "2-4 KiB",
                                                                                          "4-8 KiB"]}}})
    recall = rt.frontier_place(doc, f, list(fmts), "recall")
    prose = rt.frontier_place(doc, f, list(fmts), "prose")
    # space6 (6.25 bits): on recall documents int6 and int5 both dominate it, int5 with fewer bits;
    # on prose int6 alone (int5's 0.045 is more damage); dsq4 (4.25): int4 on both
    assert [recall(x) for x in fmts] == ["frontier", "frontier", "below int5", "frontier", "frontier", "below int4"]
    assert [prose(x) for x in fmts] == ["frontier", "frontier", "below int6", "frontier", "frontier", "below int4"]
    text = rt.t_frontier(doc)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| format")]
    assert [r.split(" | ")[0][2:] for r in rows] == ["int8", "space6", "int6", "int5", "dsq4", "int4",
                                                     "native exact match"]
    assert "below int5; below int6" in rows[1]
    # the ablation table's frontier (rt.pareto) on the same points, computed from the numbers: on
    # recall documents space6 and dsq4 are dominated, a point with a missing value is left out
    pts = {x: (b, r) for x, (b, r, p, fr, fp) in fmts.items()}
    assert rt.pareto(pts) == {"int8", "int6", "int5", "int4"}
    assert rt.pareto(dict(pts, nan=(None, 0.0))) == {"int8", "int6", "int5", "int4"}


def test_repro_tables_calset_table(tmp_path):
    """repro_tables' calibration-set table: under each plan (prose, recall, mix) the least damage is
    the one in bold (the lowest extra NLL, the most answers kept); the long heads' widths are read
    from each plan (a head is long when half its units' half-lives reach 2048 steps), worked out
    here by hand; a model whose files did not run is named by its config"""
    h5py = pytest.importorskip("h5py")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import repro_tables as rt
    # 4 heads of 2 units: heads 0 and 1 long (one of two units, both units at 2048 or more)
    paths = {}
    for c, time4 in (("prose", [[2, 2], [2, 4], [4, 6], [6, 6]]), ("recall", [[4, 4], [4, 4], [4, 4], [4, 4]]),
                     ("mix", [[2, 4], [4, 4], [4, 4], [6, 4]])):
        paths[c] = tmp_path / ("%s.h5" % c)
        with h5py.File(paths[c], "w") as f:
            f["half_life"] = np.array([[3000.0, 10.0], [2048.0, 5000.0], [100.0, 2047.0], [1.0, 2.0]])
            f["heads/layer"] = np.array([0, 0, 1, 1], np.int32)
            f["heads/head"] = np.array([0, 1, 0, 1], np.int32)
            for sch in rt.CALSET_SCHEMES:
                f["alloc/%s/budget4" % sch] = np.array(time4, np.uint8)
    numbers, lists = {}, {}
    rt.read_calset_plans(paths, rt.Put(numbers, lists, "calset/plans_gdn"))
    assert lists["calset/plans_gdn:prose.long_heads"]["items"] == ["0.0", "0.1"]
    assert numbers["calset/plans_gdn:prose.time4.long_width"][0] == 2.5
    assert numbers["calset/plans_gdn:prose.time4.long_2bit"][0] == 0.75
    assert numbers["calset/plans_gdn:prose.time4.other_width"][0] == 5.5
    assert numbers["calset/plans_gdn:mix.time4.long_width"][0] == 3.5
    # the formats' damage under each plan
    for c, (win, prose, kept) in {"prose": (0.05, 0.010, -0.5), "recall": (0.02, 0.012, -0.1),
                                  "mix": (0.03, 0.008, -0.2)}.items():
        f = "calset/gdn_" + c
        lists[f + ":formats"] = {"items": ["time4", "space4"]}
        lists[f + ":ranges"] = {"items": ["1-2 KiB", "2-4 KiB", "4-8 KiB"]}
        for x in ("time4", "space4"):
            for k, v in (("window_recall", win), ("window_prose", prose), ("exact_delta0", kept)):
                numbers["%s:%s.%s" % (f, x, k)] = [v, 0.001, k]
    files = {"calset/gdn_%s.h5" % c: {"config": "experiments/calset_gdn_%s.cfg" % c} for c in rt.CALSET}
    files.update({"calset/kda_%s.h5" % c: {"config": "experiments/calset_kda_%s.cfg" % c, "missing": True}
                  for c in rt.CALSET})
    doc = rt.Doc({"files": files, "numbers": numbers, "figures": {}, "lists": lists})
    text = rt.t_calset(doc)
    row = [x for x in text.splitlines() if x.startswith("| time4")][0].split(" | ")
    assert row[1] == "0.0500 +- 0.0010; **0.0200 +- 0.0010**; 0.0300 +- 0.0010", row
    assert row[2] == "0.0100 +- 0.0010; 0.0120 +- 0.0010; **0.0080 +- 0.0010**", row
    assert row[3] == "-0.50 +- 0.00; **-0.10 +- 0.00**; -0.20 +- 0.00", row
    assert row[4].startswith("2.50 (75%); 4.00 (0%); 3.50 (25%)"), row
    space = [x for x in text.splitlines() if x.startswith("| space4")][0].split(" | ")
    assert space[4].rstrip(" |") == "-"
    assert "KDA" not in text  # not run: its columns are left out
    missing = rt.Doc({"files": files, "numbers": {}, "figures": {}, "lists": {}})
    assert "not run (`experiments/calset_kda_prose.cfg`)" in rt.t_calset(missing)


def test_repro_tables_nll_and_recall_rows():
    """repro_tables' nll table lists the formats every file that ran holds (a file that did not run
    does not empty it), the recall table native and the paper's formats only, in the file's order"""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import repro_tables as rt
    numbers, lists = {}, {}
    for f, fmts in (("nll/gdn", ["int8", "int4", "mlife6"]), ("nll/recall_gdn", ["int8", "time4", "int4"])):
        lists[f + ":formats"] = {"items": fmts}
        for x in fmts:
            numbers["%s:%s.window" % (f, x)] = [0.01, 0.001, "extra_window"]
    f = "recall/gdn"
    lists[f + ":runs"] = {"items": ["native", "fp16-sr", "int4", "damp", "stepquant6"]}
    lists[f + ":buckets"] = {"items": ["16-64"]}
    numbers[f + ":bucket0.records"] = [12, None, "records"]
    for r in ("native", "fp16-sr", "int4", "damp", "stepquant6"):
        numbers["%s:%s.exact0" % (f, r)] = [0.5, 0.1, "exact"]
    doc = rt.Doc({"files": {"nll/kda.h5": {"config": "experiments/nll_kda.cfg", "missing": True}},
                  "numbers": numbers, "figures": {}, "lists": lists})
    nll = rt.t_nll(doc, (("nll/gdn", "GDN", ("window",)), ("nll/kda", "KDA", ("window",)),
                         ("nll/recall_gdn", "GDN recall", ("window",))))
    assert [x.split(" | ")[0].lstrip("| ") for x in nll.splitlines()[2:-1]] == ["int8", "int4"], nll
    recall = rt.t_recall(doc)
    assert [x.split(" | ")[0].lstrip("| ") for x in recall.splitlines()[3:]] == ["native", "int4", "stepquant6"], recall


def recall_h5(path, rng, docs=3, per_doc=40, formats=("int6", "int4")):
    """a recall driver's output, by hand, with what repro_tables reads: records at random decode
    positions in docs documents, exact matches drawn per run (native first)"""
    import h5py
    n, F = docs * per_doc, len(formats)
    positions = np.array([[0, 4096], [4096, 8192], [8192, 16384], [16384, 1 << 40]])
    with h5py.File(path, "w") as f:
        f.attrs["experiment"] = "recall"
        f["formats"] = np.array([x.encode() for x in formats])
        f["buckets"] = np.array([[16, 1024], [1024, 8192]])
        f["positions"] = positions
        f["n_records"] = np.array([n // 2, n - n // 2], dtype=np.int32)
        f["record_document"] = np.repeat(np.arange(docs), per_doc)
        f["record_position"] = rng.integers(0, 32768, n)
        f["exact"] = (rng.random((n, F + 1)) < np.linspace(0.9, 0.3, F + 1)).astype(np.uint8)
        f["exact_mean"] = np.zeros((F + 1, 2))
        f["exact_ci95"] = np.zeros((F + 1, 2))
        f["exact_pos_mean"] = np.zeros((F + 1, 4))
        f["exact_pos_ci95"] = np.zeros((F + 1, 4))
        f["extra_nll_pos_mean"] = np.zeros((F, 4))
        f["extra_nll_pos_ci95"] = np.zeros((F, 4))


def test_repro_tables_long_answers_by_position(tmp_path):
    """repro_tables on a recall file: the answers kept by decode position are each document's
    exact-match rate over its records in the group minus native's on the same records,
    t-interval over documents; recomputed here with numpy, and shown in the long table's last
    three groups"""
    h5py = pytest.importorskip("h5py")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import repro_tables as rt
    path = tmp_path / "long_gdn_recall.h5"
    recall_h5(path, np.random.default_rng(3))
    numbers, lists = {}, {}
    with h5py.File(path, "r") as f:
        rt.read_recall(f, rt.Put(numbers, lists, "frontier/long_gdn_recall"))
        exact, doc, pos = f["exact"][()].astype(float), f["record_document"][()], f["record_position"][()]
        groups = f["positions"][()]
    t = 4.302653  # Student t 0.975 quantile, 2 degrees of freedom (3 documents)
    for j, x in enumerate(("int6", "int4"), 1):
        for p, (lo, hi) in enumerate(groups):
            d = np.array([exact[(doc == k) & (pos >= lo) & (pos < hi), j].mean() -
                          exact[(doc == k) & (pos >= lo) & (pos < hi), 0].mean() for k in range(3)])
            v, c, _ = numbers["frontier/long_gdn_recall:%s.exactpos_delta%d" % (x, p)]
            assert abs(v - d.mean()) < 1e-12 and abs(c - t * d.std(ddof=1) / np.sqrt(3)) < 1e-9
    nll = tmp_path / "long_gdn.h5"
    nll_h5(nll, False, 512, 4096, formats=("int6", "int4"))
    with h5py.File(nll, "r") as f:
        rt.read_nll(f, rt.Put(numbers, lists, "nll/long_gdn"))
    files = {"nll/long_gdn.h5": {"config": "experiments/nll_long_gdn.cfg"},
             "frontier/long_gdn_recall.h5": {"config": "experiments/frontier_long_gdn.cfg"},
             "frontier/long_gdn_nll_recall.h5": {"config": "experiments/frontier_long_gdn.cfg", "missing": True},
             "nll/long_kda.h5": {"config": "experiments/nll_long_kda.cfg", "missing": True}}
    text = rt.t_long(rt.Doc({"files": files, "numbers": numbers, "figures": {}, "lists": lists}))
    assert "answers vs native at decode 4-8 KiB, 8-16 KiB, from 16 KiB" in text, text
    row = text.split("| int4 |")[1].split("\n")[0]
    want = ", ".join("%.2f +- %.2f" % tuple(numbers["frontier/long_gdn_recall:int4.exactpos_delta%d" % p][:2])
                     for p in (1, 2, 3))
    assert row.rstrip(" |").endswith(want), row
    assert "n/a; n/a; n/a; n/a" in row  # the recall documents' nll file not run: said, not zeros
    # a group without records among the last three keeps its place under the header: n/a there
    with h5py.File(path, "r+") as f:
        rp = f["record_position"][()]
        rp[(rp >= 8192) & (rp < 16384)] = 20000
        f["record_position"][...] = rp
    numbers, lists = {}, {}
    for p, fid in ((path, "frontier/long_gdn_recall"), (nll, "nll/long_gdn")):
        with h5py.File(p, "r") as f:
            (rt.read_recall if fid.startswith("frontier") else rt.read_nll)(f, rt.Put(numbers, lists, fid))
    assert "frontier/long_gdn_recall:int4.exactpos_delta2" not in numbers
    text = rt.t_long(rt.Doc({"files": files, "numbers": numbers, "figures": {}, "lists": lists}))
    assert "answers vs native at decode 4-8 KiB, 8-16 KiB, from 16 KiB" in text, text
    row = text.split("| int4 |")[1].split("\n")[0]
    want = ", ".join("%.2f +- %.2f" % tuple(numbers["frontier/long_gdn_recall:int4.exactpos_delta%d" % p][:2])
                     if p != 2 else "n/a" for p in (1, 2, 3))
    assert row.rstrip(" |").endswith(want), row


def test_repro_tables_long_quarters(tmp_path):
    """repro_tables on a long nll file: each quarter of the decode window is each document's mean
    over the quarter's bins, t-interval over documents, and the last quarter minus the second is
    paired by document and read as rising, level or falling; recomputed here with numpy"""
    h5py = pytest.importorskip("h5py")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import repro_tables as rt
    path = tmp_path / "long_gdn.h5"
    nll_h5(path, False, 512, 4096, formats=("int6", "int4"))
    rng = np.random.default_rng(7)
    extra = rng.normal(0.01, 0.003, (2, 2, 8))
    extra[:, 1, 6:] += 0.05  # int4 rises in its last quarter, on both documents
    with h5py.File(path, "r+") as f:
        f["extra"][...] = extra
    numbers, lists = {}, {}
    with h5py.File(path, "r") as f:
        rt.read_nll(f, rt.Put(numbers, lists, "nll/long_gdn"))
    assert numbers["nll/long_gdn:quarter_steps"][0] == 1024
    quarters = extra.reshape(2, 2, 4, 2).mean(axis=3)  # documents x formats x quarters
    t = 12.706205  # Student t 0.975 quantile, 1 degree of freedom
    for j, x in enumerate(("int6", "int4")):
        for q in range(4):
            v, c, _ = numbers["nll/long_gdn:%s.q%d" % (x, q + 1)]
            assert abs(v - quarters[:, j, q].mean()) < 1e-12
            assert abs(c - t * quarters[:, j, q].std(ddof=1) / np.sqrt(2)) < 1e-9
        d = quarters[:, j, 3] - quarters[:, j, 1]
        v, c, _ = numbers["nll/long_gdn:%s.q4_minus_q2" % x]
        assert abs(v - d.mean()) < 1e-12 and abs(c - t * d.std(ddof=1) / np.sqrt(2)) < 1e-9
    files = {"nll/long_gdn.h5": {"config": "experiments/nll_long_gdn.cfg"},
             "nll/long_kda.h5": {"config": "experiments/nll_long_kda.cfg", "missing": True}}
    text = rt.t_long(rt.Doc({"files": files, "numbers": numbers, "figures": {}, "lists": lists}))
    d4 = quarters[:, 1, 3] - quarters[:, 1, 1]
    want = "rising" if d4.mean() - t * d4.std(ddof=1) / np.sqrt(2) > 0 else "level"
    assert "| int4 |" in text and "(%s)" % want in text.split("| int4 |")[1], text
    assert "in 1 KiB quarters" in text and "not run (`experiments/nll_long_kda.cfg`)" in text, text
    assert "; ".join(["%.4f +- %.4f" % (quarters[:, 1, q].mean(), t * quarters[:, 1, q].std(ddof=1) / np.sqrt(2))
                      for q in range(4)]) in text.split("| int4 |")[1], text
    # a window of fewer bins than quarters has no quarters (not zeros), its other numbers as before
    short = tmp_path / "short.h5"
    nll_h5(short, False, 512, 1024)
    numbers, lists = {}, {}
    with h5py.File(short, "r") as f:
        rt.read_nll(f, rt.Put(numbers, lists, "nll/short"))
    assert "nll/short:int8.window" in numbers and not any(".q" in k or "quarter" in k for k in numbers), numbers
