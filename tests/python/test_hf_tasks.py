"""stepq.hf tasks (method 7.4, "Task accuracy"): lm-evaluation-harness's requests answered with
every delta-rule layer's state in a format between tokens, against the model's own
log-likelihoods and greedy tokens computed here directly with torch (one forward of the whole
sequence, no cache, no stepq), on a tiny random Qwen3.5 and data/lm/gdn (fla), and the local tasks
of tests/data/tasks through lm_eval.simple_evaluate, read offline.

The bound: a log-likelihood is a sum over the continuation's tokens of float32 log-probabilities.
The reference runs the whole sequence in one forward (the chunked kernel), stepq the context in
one and then one token a call (the recurrent kernel, or libstepq's session in fp32): the same
sums in other orders, so each token's log-probability differs by float32 rounding, a small
multiple of eps = 1.2e-7 relative to the logits' size (|log p| + 1 nats), grown through the
layers. REL = 2e-5 (170 eps) per token against the reference (measured: at most 1.1e-6), and
REL_SAME = 1e-6 between fp32 and native, whose schedules are the same and differ only in who
runs the recurrence (measured: at most 7.3e-8). int4 is outside REL on every request (measured:
1.4e-4 to 2e-2 of the size, 9e-3 to 7.8 nats)."""
import json
import os
import re
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # the local tasks: nothing is downloaded
os.environ.setdefault("HF_HUB_OFFLINE", "1")
pytest.importorskip("lm_eval")

sys.path.insert(0, os.path.dirname(__file__))
from tiny_models import qwen3_5  # noqa: E402

from stepq.hf.__main__ import main  # noqa: E402
from stepq.hf.fla_cpu import CpuStandIns  # noqa: E402
from stepq.hf.tasks import StepqLM, resolve_tasks  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TASKS = os.path.join("tests", "data", "tasks")
GDN = os.path.join(ROOT, "data", "lm", "gdn")
REL, REL_SAME = 2e-5, 1e-6
BATCH_INT4 = 5e-3  # nats a token (method 7.4: eval's batch effect at int4)
REQUESTS = [("The capital of France is", " Paris, a city on the Seine."),
            ("Two plus two", " equals four, as everyone knows."),
            ("Q: What is 3 plus 4?\nA:", " 7 and then some more words"),
            ("x", "yz")]


@pytest.fixture(scope="module")
def q35(tmp_path_factory):
    d = tmp_path_factory.mktemp("tasks") / "q35"
    qwen3_5().save_pretrained(d)
    return str(d)


@pytest.fixture(scope="module", params=["q35", "gdn"])
def lms(request, q35):
    """native, fp32 and int4 models of one directory, alive at once (each with its own hooks)"""
    path = q35 if request.param == "q35" else GDN
    out = {f: StepqLM(pretrained=path, format=f) for f in ("native", "fp32", "int4")}
    yield out
    for lm in out.values():
        lm.close()


def reference(model, ctx, cont):
    """the model's own log-likelihood of cont after ctx and whether each token is its argmax
    (with the margin of the closest call), one forward of the whole sequence (fla's models on
    the CPU: fla_cpu's torch pieces in place of Triton's)"""
    with torch.no_grad(), CpuStandIns():
        lp = torch.log_softmax(model(torch.tensor([ctx + cont])).logits[0].to(torch.float64), -1)
    rows = lp[len(ctx) - 1:len(ctx) - 1 + len(cont)]
    picked = rows[torch.arange(len(cont)), torch.tensor(cont)]
    top2 = rows.topk(2, -1).values
    return float(picked.sum()), bool((rows.argmax(-1) == torch.tensor(cont)).all()), \
        float((top2[:, 0] - top2[:, 1]).min()), float((picked.abs() + 1).sum())


def reference_greedy(model, ctx, n):
    out = []
    with torch.no_grad(), CpuStandIns():
        for _ in range(n):
            out.append(int(model(torch.tensor([ctx + out])).logits[0, -1].argmax()))
    return out


def instances(kind, args):
    from lm_eval.api.instance import Instance
    return [Instance(kind, {}, a, i) for i, a in enumerate(args)]


def enc(pairs):
    return [(list(c.encode()), list(t.encode())) for c, t in pairs]


def test_loglikelihood_fp32_is_native_and_coarse_is_not(lms):
    """every log-likelihood of native and fp32 equals the reference within REL per token, fp32
    and native within REL_SAME; int4 is outside the fp32 bound on every request"""
    model = lms["native"].model
    for ctx, cont in enc(REQUESTS):
        ref, greedy, margin, size = reference(model, ctx, cont)
        got = {f: lm.score(ctx, cont) for f, lm in lms.items()}
        for f in ("native", "fp32"):
            assert abs(got[f][0] - ref) <= REL * size, (f, got[f][0], ref)
            if margin > 1e-3:  # argmax ties within rounding may go either way
                assert got[f][1] == greedy, (f, ctx, cont)
        assert abs(got["fp32"][0] - got["native"][0]) <= REL_SAME * size, got
        assert abs(got["int4"][0] - got["native"][0]) > REL * size, got


def test_loglikelihood_requests_and_rolling(q35):
    """lm-eval's loglikelihood (the text split into context and continuation by TemplateLM)
    and loglikelihood_rolling (windows of max_length, one prefix token) against the reference"""
    lm = StepqLM(pretrained=q35, format="fp32")
    try:
        _requests_and_rolling(lm)
    finally:
        lm.close()


def _requests_and_rolling(lm):
    res = lm.loglikelihood(instances("loglikelihood", REQUESTS), disable_tqdm=True)
    for (ctx, cont), (ll, _) in zip(enc(REQUESTS), res):
        ref, _, _, size = reference(lm.model, ctx, cont)
        assert abs(ll - ref) <= REL * size
    text = "Call me Ishmael. Some years ago, never mind how long."
    ids = list(text.encode())
    lm.max_length = 20  # three windows
    got = lm.loglikelihood_rolling(instances("loglikelihood_rolling", [(text,)]), disable_tqdm=True)[0]
    from lm_eval import utils  # lm-eval's windows (each token scored once), each window against the reference
    want = size = 0.0
    windows = list(map(utils.make_disjoint_window, utils.get_rolling_token_windows(ids, lm.prefix_token_id, 20, 1)))
    assert len(windows) == 3
    for ctx, cont in windows:
        r = reference(lm.model, ctx, cont)
        want, size = want + r[0], size + r[3]
    assert abs(got - want) <= REL * size, (got, want)


def test_generate_fp32_is_native_and_coarse_is_not(lms):
    """greedy answers of native and fp32 are the reference's tokens; on the random Qwen3.5 int4's
    differ in one at least (on data/lm/gdn, a trained model, int4 gives native's 16 tokens to these
    prompts: what a format changes is measured, not assumed)"""
    prompts = [c for c, _ in REQUESTS[:2]]
    kw = {"until": [], "max_gen_toks": 16, "do_sample": False}
    out = {f: lm.generate_until(instances("generate_until", [(p, kw) for p in prompts]), disable_tqdm=True)
           for f, lm in lms.items()}
    lm = lms["native"]
    for i, p in enumerate(prompts):
        want = lm.tok_decode(reference_greedy(lm.model, list(p.encode()), 16))
        assert out["native"][i] == want, (p, out["native"][i], want)
        assert out["fp32"][i] == want, (p, out["fp32"][i], want)
    if lm.model.config.model_type != "gated_deltanet":
        assert out["int4"] != out["native"], out


def test_generate_stops(q35):
    """a stop string cuts the answer before it; max_gen_toks bounds it"""
    lm = StepqLM(pretrained=q35, format="int8")
    try:
        p = REQUESTS[0][0]
        free = lm.generate(list(p.encode()), [], 24)
        assert len(free.encode("utf-8", "replace")) >= 1
        stop = free[3:5]  # a string the free answer holds
        cut = lm.generate(list(p.encode()), [stop], 24)
        assert cut == free.split(stop)[0]
        assert len(lm.generate(list(p.encode()), [], 5).encode()) <= 5 * 3  # 5 bytes, each at most 3 in UTF-8
    finally:
        lm.close()


def test_no_state_passes_between_requests(q35):
    """the same requests in other orders, and after others, give the same answers to the bit
    (a fresh model's too): each request opens and closes its own sessions and cache"""
    pairs = REQUESTS[:3]
    kw = {"until": [], "max_gen_toks": 16, "do_sample": False}
    lm = StepqLM(pretrained=q35, format="int4")
    try:
        a = lm.loglikelihood(instances("loglikelihood", pairs + pairs[::-1]), disable_tqdm=True)
        assert a[:3] == a[3:][::-1]
        g = lm.generate_until(instances("generate_until", [(c, kw) for c, _ in pairs + pairs[::-1]]),
                              disable_tqdm=True)
        assert g[:3] == g[3:][::-1]
    finally:
        lm.close()
    fresh = StepqLM(pretrained=q35, format="int4")
    try:
        assert fresh.loglikelihood(instances("loglikelihood", pairs[2:]), disable_tqdm=True)[0] == a[2]
    finally:
        fresh.close()


def test_registered_for_lm_eval(q35, monkeypatch):
    """lm-eval's registry hands out StepqLM as "stepq", and simple_evaluate runs it from
    model_args on the local tasks (loaded by lm-eval from their YAML)"""
    import lm_eval
    from lm_eval.api.registry import get_model
    assert get_model("stepq") is StepqLM
    monkeypatch.chdir(ROOT)
    tm, top, files = resolve_tasks(os.path.join(TASKS, "stepq_local_mc.yaml"))
    assert [t.task_name for t in top] == ["stepq_local_mc"]
    assert files == [os.path.join(TASKS, "stepq_local_mc.yaml"), os.path.join(TASKS, "mc.jsonl")]  # its YAML, its data
    r = lm_eval.simple_evaluate(model="stepq", model_args={"pretrained": q35, "format": "int8"}, tasks=top,
                                task_manager=tm, limit=2, bootstrap_iters=0)
    assert r["results"]["stepq_local_mc"]["acc,none"] in (0.0, 0.5, 1.0)


BATCHED = [("The capital of France is", " Paris, a city on the Seine."), ("The capital of France is", " Lyon."),
           ("The capital of Italy is", " Rome, or so they say."), ("The capital of Spain is", " Madrid."),
           ("Two plus two", " equals four, as everyone knows."), ("One plus one", " is two.")]


@pytest.mark.parametrize("fmt", ["fp32", "int4"])
def test_a_batch_equals_its_requests_one_by_one(fmt, q35):
    """--batch-size 3: requests whose contexts have one length run as rows of one batch (a session
    per layer of 3 HV heads, each row's its own), continuations and answers of different lengths;
    every log-likelihood, rolling sum and greedy answer is the one the request gets alone (batch
    1), and the batches are the ones asked for: equal context lengths, at most 3 rows. The bound:
    the model's batched products may round otherwise than its single ones; in fp32 that is float32
    rounding (REL_SAME of the size, as fp32 against native; the argmax flags and answers equal),
    while int4 turns a rounding difference at a near-tie into a code a step apart: BATCH_INT4 nats a
    scored token, the batch effect method 7.4 states for eval at int4 (measured here: 2.9e-3 nats
    over a rolling text of 53 tokens, 5e-5 a token)"""
    kw = {"until": [], "max_gen_toks": 12, "do_sample": False}
    gens = [("The capital of France is", dict(kw, until=["a"])), ("The capital of Italy is", kw),
            ("The capital of Spain is", dict(kw, max_gen_toks=5)), ("Two plus two", kw)]
    text = "Call me Ishmael. Some years ago, never mind how long."
    lm = StepqLM(pretrained=q35, format=fmt, batch_size=1)
    rows, max_length = [], lm.max_length
    batch = lm.score_batch, lm.generate_batch
    lm.score_batch = lambda pairs: rows.append([len(lm._pair(c, t)[0]) for c, t in pairs]) or batch[0](pairs)
    lm.generate_batch = lambda ctx, until, G: rows.append([len(lm._context(c, G)) for c in ctx]) or \
        batch[1](ctx, until, G)
    try:
        got = {}
        for bs in (1, 3):
            lm.batch_size, rows[:] = bs, []
            ll = lm.loglikelihood(instances("loglikelihood", BATCHED), disable_tqdm=True)
            gen = lm.generate_until(instances("generate_until", gens), disable_tqdm=True)
            lm.max_length = 20  # rolling: three windows of each text
            roll = lm.loglikelihood_rolling(instances("loglikelihood_rolling", [(text,), (text[5:],)]),
                                            disable_tqdm=True)
            lm.max_length = max_length
            got[bs] = (ll, roll, gen)
            assert max(map(len, rows)) == bs and all(len(set(r)) == 1 for r in rows), rows
        assert sum(len(r) > 1 for r in rows) >= 3  # loglikelihood, rolling and generation each batched

        def close(a, b, tokens):
            return abs(a - b) <= (REL_SAME * (abs(a) + tokens) if fmt == "fp32" else BATCH_INT4 * tokens)
        for (ll1, g1), (ll3, g3), (c, t) in zip(got[1][0], got[3][0], enc(BATCHED)):
            assert close(ll1, ll3, len(t)), (c, t, ll1, ll3)
            assert fmt != "fp32" or g3 == g1, (c, t)
        for a, b, s in zip(got[1][1], got[3][1], (text, text[5:])):
            assert close(a, b, len(s)), (a, b)
        assert fmt != "fp32" or got[3][2] == got[1][2], got
    finally:
        lm.close()
    if fmt == "fp32":
        with pytest.raises(Exception, match="--batch-size 0: a number of requests of at least 1"):
            StepqLM(pretrained=q35, format="int4", batch_size=0)


LANE_FORMATS = ("fp32", "int8", "int6", "int4")  # the device session's (method 6.5's lane kernels)


@pytest.mark.parametrize("fmt", LANE_FORMATS)
def test_command_through_the_device_session(fmt, q35, tmp_path, monkeypatch, capsys):
    """python -m stepq.hf tasks with the states in the device session (STEPQ_HF_SESSION=device: its
    host backend on this CPU, the CPU session's own code) gives the CPU session's answers and
    figures to the bit, per format of the device session, in batches of 2: every sample's
    responses, every metric of the three local tasks; the output records who held the states"""
    monkeypatch.chdir(ROOT)
    res = {}
    for path in ("cpu", "device"):
        monkeypatch.setenv("STEPQ_HF_SESSION", path)
        out = tmp_path / ("%s.json" % path)
        run_tasks(capsys, "--model", q35, "--format", fmt, "--tasks", TASKS, "--limit", 2, "--batch-size", 2,
                  "--output", out, "--log-samples", "--bootstrap-iters", 0)
        res[path] = json.loads(out.read_text())
    assert res["cpu"]["stepq"]["sessions"] == ["cpu"]
    assert res["device"]["stepq"]["sessions"] == ["device (host)"]
    assert res["device"]["stepq"]["batch_size"] == 2
    assert res["device"]["results"] == res["cpu"]["results"]
    for task, samples in res["cpu"]["samples"].items():
        assert [s["resps"] for s in res["device"]["samples"][task]] == [s["resps"] for s in samples], task


def run_tasks(capsys, *args):
    main([str(a) for a in ("tasks", *args)])
    return capsys.readouterr()


def test_command_native_fp32_int4(q35, tmp_path, monkeypatch, capsys):
    """python -m stepq.hf tasks on the three local tasks (multiple choice, generation,
    perplexity): fp32's samples are native's (log-likelihoods within REL_SAME, the same
    answers), native's log-likelihoods are the reference's, int4's are not native's; the output
    records how stepq ran"""
    monkeypatch.chdir(ROOT)
    res = {}
    for f in ("native", "fp32", "int4"):
        out = tmp_path / ("%s.json" % f)
        o = run_tasks(capsys, "--model", q35, "--format", f, "--tasks", TASKS, "--limit", 2, "--output", out,
                      "--log-samples", "--bootstrap-iters", 0)
        assert "stepq_local_mc" in o.out and "stepq.hf tasks: " in o.out
        res[f] = json.loads(out.read_text())
        assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]
    st = res["int4"]["stepq"]
    assert st["format"] == "int4" and st["dtype"] == "float32" and st["device"] == "cpu"
    assert "transformers.models.qwen3_5.modeling_qwen3_5.torch_recurrent_gated_delta_rule on cpu" in st["kernels"]
    assert set(res["native"]["results"]) == {"stepq_local_mc", "stepq_local_gen", "stepq_local_text"}
    model = StepqLM(pretrained=q35, format="native")
    try:
        changed = 0
        for task in ("stepq_local_mc", "stepq_local_gen", "stepq_local_text"):
            for sn, sf, s4 in zip(*(res[f]["samples"][task] for f in ("native", "fp32", "int4"))):
                assert sn["doc_id"] == sf["doc_id"] == s4["doc_id"]
                if task == "stepq_local_gen":
                    assert sf["resps"] == sn["resps"]
                    changed += s4["resps"] != sn["resps"]
                    continue
                for args, rn, rf, r4 in zip(sn["arguments"], sn["resps"], sf["resps"], s4["resps"]):
                    ln, lf, l4 = (x[0][0] if task == "stepq_local_mc" else x[0] for x in (rn, rf, r4))
                    if task == "stepq_local_mc":
                        ctx, cont = model._encode_pair(args[0], args[1])
                        ref, _, _, size = reference(model.model, ctx, cont)
                        assert abs(ln - ref) <= REL * size, (args, ln, ref)
                    else:
                        size = abs(ln) + len(args[0].encode())
                    assert abs(lf - ln) <= REL_SAME * size, (task, args, lf, ln)
                    changed += abs(l4 - ln) > REL * size
        assert changed > 0
    finally:
        model.close()


def refused(capsys, args, pattern):
    with pytest.raises(SystemExit) as e:
        main(["tasks", *[str(a) for a in args]])
    assert e.value.code == 2
    err = capsys.readouterr().err
    lines = [l for l in err.strip().split("\n") if l.startswith("stepq.hf: error: ")]
    assert len(lines) == 1, err
    assert re.search(pattern, lines[0]), lines[0]


def test_refusals(q35, tmp_path, monkeypatch, capsys):
    """one line naming the problem, exit 2, before any work, nothing written"""
    monkeypatch.chdir(ROOT)
    mc = os.path.join(TASKS, "stepq_local_mc.yaml")
    base = ["--model", q35, "--tasks", mc]
    refused(capsys, base + ["--format", "int5"], r"no format is called 'int5'")
    refused(capsys, base + ["--format", "native", "--plan", mc], r"--plan .* goes with a format")
    refused(capsys, base + ["--format", "int8", "--limit", 0], r"--limit")
    refused(capsys, base + ["--format", "int8", "--output", mc], r"cannot write .*stepq_local_mc.yaml: it is .*input")
    refused(capsys, ["--model", q35, "--format", "int8", "--tasks", "no_such_task_here"],
            r"--tasks no_such_task_here: lm-eval could not load it")
    refused(capsys, ["--model", q35, "--format", "int8", "--tasks", str(tmp_path / "none.yaml")],
            r"--tasks .*none.yaml: No such file")
    refused(capsys, ["--model", q35, "--format", "int8", "--tasks", os.path.join(TASKS, "nothing*.yaml")],
            r"--tasks .*nothing\*.yaml matches no file")
    refused(capsys, ["--model", str(tmp_path), "--format", "int8", "--tasks", mc], r"no config.json")
    assert os.listdir(tmp_path) == []


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit):
        main(["tasks", "--help"])
    out = capsys.readouterr().out
    assert "examples" in out and "--tasks gsm8k" in out and "--format native" in out


def test_output_is_never_a_tasks_data_and_follows_the_umask(q35, tmp_path, monkeypatch, capsys):
    """issue 65, class 3: --output over the task's own data file (by any spelling of its path) is
    refused before any work and the file is kept; the output written gets the umask's permissions
    (0644 under 022), as libstepq's files do"""
    import shutil
    shutil.copy(os.path.join(ROOT, TASKS, "mc.jsonl"), tmp_path / "mc.jsonl")
    yaml = open(os.path.join(ROOT, TASKS, "stepq_local_mc.yaml")).read()
    (tmp_path / "mine.yaml").write_text(yaml.replace("stepq_local_mc", "stepq_mine_mc").replace(
        "tests/data/tasks/mc.jsonl", str(tmp_path / "mc.jsonl")))
    data = (tmp_path / "mc.jsonl").read_bytes()
    monkeypatch.chdir(tmp_path)
    base = ["--model", q35, "--format", "int8", "--tasks", tmp_path / "mine.yaml", "--limit", 1]
    refused(capsys, base + ["--output", tmp_path / "mc.jsonl"], r"cannot write .*mc.jsonl: it is .*mc.jsonl, an input")
    refused(capsys, base + ["--output", "./sub/../mc.jsonl"], r"cannot write ./sub/../mc.jsonl: it is .*mc.jsonl")
    os.link(tmp_path / "mc.jsonl", tmp_path / "hard.jsonl")
    refused(capsys, base + ["--output", "hard.jsonl"], r"cannot write hard.jsonl: it is .*mc.jsonl, an input")
    assert (tmp_path / "mc.jsonl").read_bytes() == data
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]
    old = os.umask(0o022)
    try:
        run_tasks(capsys, *base, "--output", tmp_path / "r.json", "--bootstrap-iters", 0)
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "r.json").st_mode & 0o777 == 0o644


def test_max_length_against_what_the_tasks_generate(q35, monkeypatch, capsys):
    """issue 65, class 4: --max-length is checked against what the tasks generate, before the model
    loads: a log-likelihood task runs at a --max-length below lm-eval's default max_gen_toks (256),
    a default the user never set; a generation task whose max_gen_toks leaves no context is
    refused naming both, as is a --max-gen-toks given at or above --max-length"""
    monkeypatch.chdir(ROOT)
    mc, gen = (os.path.join(TASKS, "stepq_local_%s.yaml" % t) for t in ("mc", "gen"))
    o = run_tasks(capsys, "--model", q35, "--format", "int8", "--tasks", mc, "--limit", 1, "--max-length", 100,
                  "--bootstrap-iters", 0)
    assert "stepq_local_mc" in o.out
    refused(capsys, ["--model", q35, "--format", "int8", "--tasks", gen, "--max-length", 12],
            r"--max-length 12: task stepq_local_gen generates up to 12 tokens \(max_gen_toks 12\), which leaves no "
            r"token of context")
    refused(capsys, ["--model", q35, "--format", "int8", "--tasks", mc, "--max-length", 100, "--max-gen-toks", 100],
            r"max_length 100 and max_gen_toks 100")
