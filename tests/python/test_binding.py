"""The ctypes declarations of stepq/_lib.py against include/stepq.h: every function the header
declares is bound, with as many arguments, and nothing else is."""
import os
import re

import stepq._lib as L

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "stepq.h")


def declarations():
    text = re.sub(r"/\*.*?\*/", " ", open(HEADER).read(), flags=re.S)
    out = {}
    for m in re.finditer(r"\b(sq_\w+)\s*\(([^;{]*?)\)\s*;", text, flags=re.S):
        args = m.group(2).strip()
        out[m.group(1)] = 0 if args in ("", "void") else args.count(",") + 1
    return out


def test_every_function_bound():
    decl = declarations()
    assert len(decl) > 20
    assert set(decl) == set(L.SIGNATURES), "header and binding differ: %s" % (set(decl) ^ set(L.SIGNATURES))
    for name, n in decl.items():
        assert len(L.SIGNATURES[name][1]) == n, "%s: %d arguments in the header, %d bound" % (
            name, n, len(L.SIGNATURES[name][1]))


def test_structs_match_the_header():
    text = open(HEADER).read()
    for struct, cls in (("sq_format_info", L.FormatInfo), ("sq_plan_info", L.PlanInfo),
                        ("sq_session_config", L.SessionConfig),
                        ("sq_dsession_config", L.DSessionConfig), ("sq_trace_config", L.TraceConfig),
                        ("sq_calibrate_names", L.CalibrateNames), ("sq_calibrate_config", L.CalibrateConfig)):
        body = re.search(r"typedef struct \{([^{}]*)\}\s*%s;" % struct, text).group(1)
        body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
        # "int K, V;" declares K and V: the last word of each comma-separated part
        fields = [re.findall(r"\w+", part)[-1] for decl in body.split(";") if decl.strip()
                  for part in decl.split(",")]
        assert fields == [f[0] for f in cls._fields_], "%s: %s vs %s" % (struct, fields, cls._fields_)
