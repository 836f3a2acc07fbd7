#!/usr/bin/env bash
# test_python: the Python package over libstepq, as a user gets it. In one pinned virtual
# environment (VENV, made once and remade when tests/python/requirements.txt changes):
# `pip install .` of this clone (scikit-build-core builds libstepq into the wheel), then pytest
# on tests/python, which compares the package with the stepq binary STEPQ.
#   test_python.sh ROOT STEPQ VENV     make the environment if needed, install, test
#   test_python.sh prepare ROOT VENV   make the environment only (./stepq test starts this in
#                                      the background while the C trees build; the test waits
#                                      for it on VENV.lock)
# Exit 77 (skipped, never passed) when the package registry cannot be reached to make the
# environment; a registry that answers and an install that then fails is a failure.
set -uo pipefail

prepare() {  # ROOT VENV: 0 ready, 77 registry unreachable, 1 failed
    local root=$1 venv=$2 req stamp probe
    req="$root/tests/python/requirements.txt"
    stamp=$(sha256sum "$req" | cut -c1-16)
    [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements" 2>/dev/null)" = "$stamp" ] && return 0
    rm -rf "$venv"
    python3 -m venv "$venv" || { echo "test_python: python3 -m venv failed (apt-get install python3-venv)"; return 1; }
    probe=$(mktemp -d)
    # can the registry be reached? one small pinned package, fetched alone
    if ! timeout 60 "$venv/bin/pip" download -q --no-deps -d "$probe" "$(grep -m1 '^iniconfig==' "$req")" >/dev/null 2>&1; then
        rm -rf "$probe" "$venv"
        echo "test_python: skipped: the package registry (PyPI) cannot be reached to make $venv"
        return 77
    fi
    rm -rf "$probe"
    echo "test_python: making $venv from $req"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" || { rm -rf "$venv"; return 1; }
    echo "$stamp" >"$venv/.requirements"
}

if [ "${1:-}" = prepare ]; then
    mkdir -p "$(dirname "$3")"
    exec 9>"$3.lock" && flock 9 || exit 1
    prepare "$2" "$3"
    exit $?
fi
root=$1 stepq=$2 venv=$3
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock" && flock 9 || exit 1   # waits for a preparation under way
prepare "$root" "$venv"
rc=$?
[ $rc -eq 0 ] || exit $rc
exec 9>&-
echo "test_python: pip install $root (libstepq built in $root/build/python)"
"$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps "$root" || exit 1
# from outside the clone, so that `import stepq` is the installed package, not python/stepq
cd "$venv" && STEPQ_BIN="$stepq" exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python"
