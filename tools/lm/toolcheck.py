"""How the tools of tools/lm and tools/repro_tables.py refuse, and the checks they share.

A tool checks its inputs before any work; what it refuses it refuses with one line on stderr,
"PROG: error: MESSAGE" naming the file or the option, and exit status 2 (argparse's, for a bad
command line), never a traceback. A tool never writes over a shipped file (a file tracked by
git under data/) unless given its explicit flag (`--overwrite-shipped`).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def die(msg):
    """refuse: one line "PROG: error: MSG" on stderr, exit status 2"""
    sys.stderr.write("%s: error: %s\n" % (os.path.basename(sys.argv[0]) or "tool", msg))
    sys.exit(2)


def at_least(args, lo, *names):
    """refuse any of the integer options `names` (attributes of args) below lo"""
    for n in names:
        v = getattr(args, n)
        if v is not None and v < lo:
            die("--%s %s: give %d or more" % (n.replace("_", "-"), v, lo))


def shipped(path):
    """whether path is a shipped file, or a directory holding one: under the repository's data/
    and tracked by git (anything under data/ when git cannot tell)"""
    real, data = os.path.realpath(path), os.path.realpath(os.path.join(REPO, "data"))
    if not (real + os.sep).startswith(data + os.sep):
        return False
    try:
        r = subprocess.run(["git", "-C", REPO, "ls-files", "--", os.path.relpath(real, REPO)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return True
    if r.returncode == 0 and r.stdout.strip():
        return True
    # not tracked: shipped still if git does not know this tree at all
    r = subprocess.run(["git", "-C", REPO, "rev-parse", "--git-dir"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return r.returncode != 0


def not_shipped(path, allowed, what="output"):
    """refuse to write over a shipped file (or into a directory of them) unless `allowed` (the
    tool's --overwrite-shipped)"""
    if not allowed and shipped(path):
        die("%s %s is a shipped file (tracked by git under data/): give --overwrite-shipped to write over it, "
            "or another --out" % (what, path))


def readable_file(path, what):
    """refuse a path that is not a readable regular file"""
    if not os.path.isfile(path):
        die("%s %s: no such file" % (what, path))
    if not os.access(path, os.R_OK):
        die("%s %s: not readable" % (what, path))


def read_json(path, what, key=None):
    """the parsed JSON file, refused when missing, not JSON or (with key) without that key"""
    readable_file(path, what)
    try:
        with open(path) as f:
            obj = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        die("%s %s: not JSON (%s)" % (what, path, e))
    if key is not None and (not isinstance(obj, dict) or key not in obj):
        die("%s %s: no %r in it" % (what, path, key))
    return obj


def recall_documents(path, n=None):
    """(the held-out recall set's JSON, its first n documents), each document's file checked"""
    rj = read_json(path, "--json", "documents")
    docs = rj["documents"][:n]
    base = os.path.dirname(os.path.abspath(path))
    for d in docs:
        if not isinstance(d, dict) or "file" not in d or "spans" not in d:
            die("--json %s: a document without 'file' and 'spans'" % path)
        readable_file(os.path.join(base, d["file"]), "--json %s: document" % path)
    return rj, docs


def load_model(directory):
    """tools/lm/model.py's load_checkpoint of directory, refused (naming the file) when a file is
    missing, truncated or does not fit its config"""
    from model import load_checkpoint
    for f in ("config.json", "model.safetensors"):
        readable_file(os.path.join(directory, f), "model")
    try:
        return load_checkpoint(directory)
    except Exception as e:  # safetensors' and torch's errors have no common type
        die("model %s: cannot load it (%s: %s)" % (directory, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))


def open_h5(path, needs=(), what="result", attrs=()):
    """an open h5py.File, refused when missing, not HDF5 (a truncated file), or without one of the
    datasets `needs` or the attributes `attrs` (then naming the experiment that wrote it)"""
    import h5py
    readable_file(path, what)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        die("%s %s: not a readable HDF5 file, truncated? (%s)" % (what, path, str(e).splitlines()[0]))
    missing = [n for n in needs if n not in f] + ["attribute " + a for a in attrs if a not in f.attrs]
    if missing:
        exp = f.attrs.get("experiment", b"")
        exp = exp.decode() if isinstance(exp, bytes) else str(exp)
        die("%s %s: no %s (it is %s)" % (what, path, ", ".join(missing),
                                          "the output of experiment %r" % exp if exp else "not a stepq result"))
    return f
