#!/usr/bin/env python3
"""check_layout.py: the README's Layout table against the tree, and the manuals' paths against it.

    python3 tests/check_layout.py SOURCE_DIR [--readme FILE] [--self-test]

The tree is what git tracks (`git ls-files`), so a build tree, a virtual environment or results
never count. Checks, each failure one line naming what is wrong:

1. The Layout table (the first table under `## Layout` in README.md) lists the tree:
   - every path a row names in backticks exists: a path with a slash from the root (braces
     expanded: `lm_{gdn,kda}.h5`), a bare file name (`run.c`) below the folders of the row's
     first column;
   - every function a row names (`measure()`) is defined in a file the same row names, so a
     function cannot be placed in the wrong folder;
   - every tracked top-level folder has a row of its own (named in the first column); every
     tracked folder at depth 2 (`sim/cuda/`), every folder of data/lm (depth 3: the models and
     the held-out sets) and every tracked file directly in tools/ (the tools) is named somewhere
     in the table. Deeper folders (fuzz corpora, task files, python/stepq/hf) may be
     named; they need not be.
2. tools/lm/README.md's file table names every tracked file of tools/lm but itself, and each
   file it names exists.
3. Every path named in backticks in README.md, docs/*.md (but docs/training-log.md, a notebook
   whose paths are those of its day: stages that left the tree are in git history),
   tools/lm/README.md and data/lm/README.md exists, when its first part is a tracked top-level
   folder or file. Placeholders (`<stage>`, `OUT.h5`, `*`, `...`) and paths git ignores
   (tools/lm/runs/, results/, build/) are not checked.
4. README.md keeps `## What is checked` as a section of its own.

--self-test first runs the checks on a few wrong tables (a row removed, a folder that does not
exist, a tool renamed, a function put in the wrong folder, a model missing from data/lm) and
fails unless every one of them is caught; then checks the real README. Python 3 standard library
only (no virtual environment). Exits 0 when all holds, 1 on a failure, 77 (skipped) outside a git
checkout.
"""
import argparse
import os
import re
import subprocess
import sys

TICK = re.compile(r"`([^`]+)`")
FUNC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(\)$")
BARE = re.compile(r"^[A-Za-z0-9_.\-]+\.(c|h|cu|cuh|py|sh|gp|cfg|md|map|json|txt|cmake|sbatch)$")
PLACEHOLDER = re.compile(r"<|>|\*|\.\.\.|\$")
CAPS = re.compile(r"^[A-Z][A-Z0-9_]+(\.[a-z0-9]+)?$")  # OUT.h5, NAME.cfg, DIR: a placeholder


def tracked(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print("check_layout: skipped: %s is not a git checkout (or git is missing)" % root)
        sys.exit(77)
    files = [f for f in out.decode().split("\0") if f]
    dirs = set()
    for f in files:
        parts = f.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
    return set(files), dirs


def ignored(root, path):
    return subprocess.run(["git", "-C", root, "check-ignore", "-q", "--no-index", path]).returncode == 0


def expand(tok):
    """`a/{b,c}/d` -> [a/b/d, a/c/d] (one level of braces at a time, recursively)"""
    m = re.search(r"\{([^{}]*)\}", tok)
    if not m:
        return [tok]
    return [x for alt in m.group(1).split(",") for x in expand(tok[:m.start()] + alt + tok[m.end():])]


def norm(p):
    return p.rstrip("/")


def section(text, title):
    """the lines of `## title` up to the next `## `"""
    m = re.search(r"(?m)^## " + re.escape(title) + r"\s*$", text)
    if not m:
        return None
    rest = text[m.end():]
    n = re.search(r"(?m)^## ", rest)
    return rest[:n.start()] if n else rest


def table_rows(block):
    rows = []
    for line in block.splitlines():
        if not line.startswith("|"):
            if rows:
                break  # the first table only
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue  # the rule under the header
        rows.append(cells)
    return rows[1:]  # without the header


def check_layout_table(root, text, files, dirs):
    errs = []
    block = section(text, "Layout")
    if block is None:
        return ["README.md: no '## Layout' section"]
    rows = table_rows(block)
    if not rows:
        return ["README.md: the Layout section holds no table"]
    named, heads = set(), set()
    for cells in rows:
        first, rest = cells[0], " ".join(cells[1:])
        folders = []
        for tok in TICK.findall(first):
            p = norm(tok)
            named.add(p)
            heads.add(p)
            if p not in dirs and p not in files:
                errs.append("Layout: row '%s' names %s, which is not in the tree" % (first, tok))
            folders.append(p)
        row_files = set()
        funcs = []
        for tok in TICK.findall(rest):
            word = tok.split()[0] if tok.split() else tok
            if FUNC.match(word):
                funcs.append(word[:-2])
                continue
            for p in expand(word):
                p = p.rstrip(".,;:")
                if p.startswith("./"):
                    p = p[2:]
                if "/" in p:
                    named.add(norm(p))
                    if norm(p) in dirs or p in files:
                        if p in files:
                            row_files.add(p)
                    else:
                        errs.append("Layout: row '%s' names %s, which is not in the tree" % (first, p))
                elif BARE.match(p):
                    hits = [f for f in files for d in folders
                            if f.startswith(d + "/") and os.path.basename(f) == p]
                    if hits:
                        row_files.update(hits)
                    else:
                        errs.append("Layout: row '%s' names %s, which is in none of %s" % (first, p, ", ".join(folders)))
        for fn in funcs:
            pat = re.compile(r"^(?:def\s+|[A-Za-z_][^;{}()]*\b)" + re.escape(fn) + r"\s*\([^;]*$")
            if not any(pat.match(line) for f in sorted(row_files)
                       for line in open(os.path.join(root, f), errors="replace")):
                errs.append("Layout: row '%s' names %s(), which no file of the row (%s) defines"
                            % (first, fn, ", ".join(sorted(row_files)) or "none named"))
    for d in sorted(d for d in dirs if "/" not in d):
        if d not in heads:
            errs.append("Layout: %s/ is in the tree but has no row of its own" % d)
    wanted = {d for d in dirs if d.count("/") == 1}
    wanted |= {d for d in dirs if d.startswith("data/lm/") and d.count("/") == 2}
    wanted |= {f for f in files if f.startswith("tools/") and f.count("/") == 1}
    for w in sorted(wanted - named):
        errs.append("Layout: %s is in the tree but the table does not name it" % w)
    return errs


def check_tools_lm(root, files):
    errs = []
    path = os.path.join(root, "tools/lm/README.md")
    rows = table_rows(open(path).read().split("\n## ")[0])
    listed = {TICK.findall(r[0])[0] for r in rows if TICK.findall(r[0])}
    have = {f[len("tools/lm/"):] for f in files if f.startswith("tools/lm/") and f.count("/") == 2}
    have.discard("README.md")
    for f in sorted(have - listed):
        errs.append("tools/lm/README.md: its file table does not name %s" % f)
    for f in sorted(listed - have):
        errs.append("tools/lm/README.md: its file table names %s, which is not in tools/lm" % f)
    return errs


def check_paths(root, name, text, files, dirs):
    errs = []
    tops = {p for p in dirs if "/" not in p} | {f for f in files if "/" not in f}
    # fenced blocks out (their lines kept, so line numbers hold); a span may cross a line break
    text = re.sub(r"(?ms)^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text)
    for m in re.finditer(r"`([^`]+)`", text):
        if "\n\n" in m.group(1):
            continue  # not a span: an unpaired backtick
        lineno = text.count("\n", 0, m.start()) + 1
        for word in m.group(1).split():
            word = word.strip("()[],;:")
            if word.startswith("./"):
                word = word[2:]
            if PLACEHOLDER.search(word) or word.split("/")[0] not in tops:
                continue
            if any(CAPS.match(c) and c != "README.md" for c in word.split("/")):
                continue
            if "/" not in word and not word.endswith((".md", ".toml", ".txt")) and word != "stepq":
                continue
            for p in expand(word):
                p = p.rstrip(".")
                if norm(p) in dirs or p in files or ignored(root, p):
                    continue
                errs.append("%s:%d: %s is not in the tree" % (name, lineno, p))
    return errs


def check(root, readme_text):
    files, dirs = tracked(root)
    errs = check_layout_table(root, readme_text, files, dirs)
    errs += check_tools_lm(root, files)
    docs = ["tools/lm/README.md", "data/lm/README.md"]
    docs += sorted(f for f in files if f.startswith("docs/") and f.endswith(".md") and f.count("/") == 1)
    errs += check_paths(root, "README.md", readme_text, files, dirs)
    for d in docs:
        if d == "docs/training-log.md" or not os.path.exists(os.path.join(root, d)):
            continue
        errs += check_paths(root, d, open(os.path.join(root, d)).read(), files, dirs)
    if section(readme_text, "What is checked") is None:
        errs.append("README.md: no '## What is checked' section")
    return errs


def mutations(text):
    """wrong tables the check must refuse: (what, text)"""
    block = section(text, "Layout")
    lines = block.splitlines()
    rows = [l for l in lines if l.startswith("| `")]
    out = []
    for r in rows:  # a row removed: the folders it names are no longer listed
        if r.startswith("| `quant/`") or r.startswith("| `tools/`") or r.startswith("| `.ci/`"):
            out.append(("row %s removed" % r.split("|")[1].strip(), text.replace(r + "\n", "", 1)))
    out.append(("a folder that does not exist", text.replace(rows[0], rows[0] + "\n| `frontend/` | a web view | all |", 1)))
    out.append(("a tool renamed", text.replace("`tools/h5cmp.py`", "`tools/h5compare.py`", 1)))
    out.append(("a file in the wrong folder", text.replace("(`headloop.c`: slots", "(`headloop.c`, `journal.c`: slots", 1)))
    out.append(("measure() in analysis/", text.replace("with its observer `measure()` (`run.c`)", "", 1)
                .replace("(`runner.c`)", "(`runner.c`, `measure()`)", 1)))
    out.append(("a model of data/lm missing", text.replace("`data/lm/kda-recall`", "`data/lm/kda`", 1)))
    out.append(("What is checked gone", text.replace("## What is checked", "## Checks", 1)))
    for what, t in out:
        assert t != text, "mutation '%s' did not apply: the README changed; update mutations()" % what
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--readme", help="check this file as README.md (default ROOT/README.md)")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    text = open(a.readme or os.path.join(a.root, "README.md")).read()
    fail = 0
    if a.self_test:
        base = set(check(a.root, text))
        for what, t in mutations(text):
            errs = [e for e in check(a.root, t) if e not in base]
            if errs:
                print("self-test: caught (%s): %s" % (what, errs[0]))
            else:
                print("FAIL: self-test: a wrong table passed (%s)" % what)
                fail = 1
    errs = check(a.root, text)
    for e in errs:
        print("FAIL: " + e)
    if errs or fail:
        return 1
    print("check_layout: the Layout table matches the tree; every path the manuals name exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
