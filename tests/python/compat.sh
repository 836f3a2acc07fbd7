#!/usr/bin/env bash
# compat.sh: the adapters' tests (test_hf.py, test_hf_cli.py) on other transformers releases: for
# each, a virtual environment that is the pinned one (tests/python/requirements.txt, as
# ./stepq test makes it) with transformers swapped (its own site-packages first, the pinned
# environment's after them through a .pth file; pip install --no-deps), then pytest. Not part of
# ./stepq test (it downloads releases); run it by hand when the adapters change:
#   tests/python/compat.sh [PINNED_VENV] [RELEASE...]
# PINNED_VENV defaults to build/venv; RELEASE to stepq.hf's TESTED_TRANSFORMERS. Prints a line a
# release and exits 1 if any failed.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
base=${1:-$root/build/venv}
shift || true
[ -x "$base/bin/python" ] || { echo "compat.sh: no pinned environment at $base (./stepq test makes build/venv)" >&2; exit 2; }
base=$(cd "$base" && pwd)
if [ $# -eq 0 ]; then
    set -- $(cd "$root/python" && "$base/bin/python" -c "import ast, sys
t = ast.parse(open('stepq/hf/__init__.py').read())
for n in t.body:
    if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == 'TESTED_TRANSFORMERS':
        print(' '.join(ast.literal_eval(n.value)))")
fi
[ $# -gt 0 ] || { echo "compat.sh: no release to test" >&2; exit 2; }
site=$("$base/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
work=${STEPQ_COMPAT_DIR:-$root/build/compat}
mkdir -p "$work"
status=0
for v in "$@"; do
    env="$work/transformers-$v"
    if [ ! -x "$env/bin/python" ]; then
        "$base/bin/python" -m venv "$env" || { echo "transformers $v: cannot make $env"; status=1; continue; }
        own=$("$env/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
        echo "$site" >"$own/zz_pinned.pth"
        "$env/bin/python" -m pip install -q --no-deps "transformers==$v" >"$env/pip.log" 2>&1 ||
            { echo "transformers $v: pip install failed ($env/pip.log)"; status=1; continue; }
    fi
    got=$("$env/bin/python" -c "import transformers; print(transformers.__version__)" 2>/dev/null)
    [ "$got" = "$v" ] || { echo "transformers $v: the environment imports $got"; status=1; continue; }
    log="$work/transformers-$v.log"
    (cd "$root/tests/python" && PYTHONPATH="$root/python" STEPQ_BIN="$root/build/stepq" PYTHONWARNINGS=ignore \
        "$env/bin/python" -m pytest -q -p no:cacheprovider test_hf.py test_hf_cli.py) >"$log" 2>&1
    rc=$?
    echo "transformers $v: $(tail -1 "$log") (log: $log)"
    [ $rc -eq 0 ] || status=1
done
exit $status
