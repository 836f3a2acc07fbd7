"""Fixtures of the Python tests: the `stepq` binary these tests compare libstepq's Python
binding with (STEPQ_BIN, or the source tree's Release build), a scratch directory, and plans
calibrated once per run by that binary."""
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def stepq_bin():
    path = os.environ.get("STEPQ_BIN", os.path.join(ROOT, "build", "stepq"))
    if not os.access(path, os.X_OK):
        pytest.fail("no stepq binary at %s (build it, or set STEPQ_BIN)" % path)
    return path


def run(*args):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s" % (" ".join(map(str, args)), r.returncode, r.stderr))
    return r


@pytest.fixture(scope="session")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("stepq")


def _plan(stepq_bin, scratch, preset, kind):
    out = scratch / ("plan_%s.h5" % kind)
    if not out.exists():
        cfg = scratch / ("calibrate_%s.cfg" % kind)
        cfg.write_text('experiment = "calibrate";\n'
                       'source = { type = "synthetic"; preset = "%s"; layers = [0]; heads = [0, 1, 2]; };\n'
                       'seeds = [1, 2];\nsteps = 96;\nhorizon = 96;\noutput = "%s";\n' % (preset, out))
        run(stepq_bin, "calibrate", cfg)
    return out


@pytest.fixture(scope="session")
def gdn_plan(stepq_bin, scratch):
    return _plan(stepq_bin, scratch, "gdn-qwen-like", "gdn")


@pytest.fixture(scope="session")
def kda_plan(stepq_bin, scratch):
    return _plan(stepq_bin, scratch, "kda-kimi-like", "kda")
