# icount.py: gdb script. Single-steps icount (tools/icount/icount.c) from icount_begin's return to
# icount_end and prints the instructions retired in that step by class: 512-bit vector (zmm),
# 256 (ymm), 128-bit and scalar SSE (xmm), general-purpose (gp), with the vector loads and stores
# among them, and the most frequent mnemonics. Run by tools/icount/run.sh; ICOUNT_ARG names the
# format (or f32step).
import collections
import os

import gdb

arg = os.environ["ICOUNT_ARG"]
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("break icount_begin", to_string=True)
gdb.execute("run " + arg + " > /dev/null", to_string=True)
gdb.execute("finish", to_string=True)
end = int(gdb.parse_and_eval("(long)&icount_end"))
at = collections.Counter()
while True:
    pc = int(gdb.parse_and_eval("$pc"))
    if pc == end:
        break
    at[pc] += 1
    gdb.execute("stepi", to_string=True)
arch = gdb.selected_frame().architecture()
cls, mn = collections.Counter(), collections.Counter()
for pc, n in at.items():
    asm = arch.disassemble(pc)[0]["asm"]
    m = asm.split()[0]
    ops = asm[len(m):].strip()
    w = "zmm" if "zmm" in asm else "ymm" if "ymm" in asm else "xmm" if "xmm" in asm else "gp"
    dest = ops.split(",")[-1] if ops else ""
    moves = m.startswith(("vmov", "mov", "vpmov", "vextract", "vcvtps2ph"))
    cls[w] += n
    if moves and "(" in dest:
        cls[w + " store"] += n
    elif moves and "(" in ops:
        cls[w + " load"] += n
    mn[m + (" zmm" if w == "zmm" else "")] += n
print("| %s: %d instructions" % (arg, sum(at.values())))
for w in ("zmm", "ymm", "xmm", "gp"):
    print("|   %-4s %7d  (loads %d, stores %d)" % (w, cls[w], cls[w + " load"], cls[w + " store"]))
print("|   most frequent: " + ", ".join("%s %d" % kv for kv in mn.most_common(16)))
