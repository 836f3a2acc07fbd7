#!/usr/bin/env bash
# test_python: the Python package over libstepq, as a user gets it. In one pinned virtual
# environment (VENV, made once and remade when tests/python/requirements.txt changes):
# `pip install .` of this clone (scikit-build-core builds libstepq into the wheel), then pytest
# on tests/python, which compares the package with the stepq binary STEPQ.
# Exit 77 (skipped, never passed) when the package registry cannot be reached to make the
# environment; a registry that answers and an install that then fails is a failure.
#   test_python.sh ROOT STEPQ VENV
set -uo pipefail
root=$1 stepq=$2 venv=$3
req="$root/tests/python/requirements.txt"
stamp=$(sha256sum "$req" | cut -c1-16)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "test_python: python3 -m venv failed (apt-get install python3-venv)"; exit 1; }
    probe=$(mktemp -d)
    # can the registry be reached? one small pinned package, fetched alone
    if ! timeout 60 "$venv/bin/pip" download -q --no-deps -d "$probe" "$(grep -m1 '^iniconfig==' "$req")" >/dev/null 2>&1; then
        rm -rf "$probe" "$venv"
        echo "test_python: skipped: the package registry (PyPI) cannot be reached to make $venv"
        exit 77
    fi
    rm -rf "$probe"
    echo "test_python: making $venv from $req"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" || { rm -rf "$venv"; exit 1; }
    echo "$stamp" >"$venv/.requirements"
fi
echo "test_python: pip install $root (libstepq built in $root/build/python)"
"$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps "$root" || exit 1
# from outside the clone, so that `import stepq` is the installed package, not python/stepq
cd "$venv" && STEPQ_BIN="$stepq" exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python"
