#!/usr/bin/env bash
# test_resume.sh: an interrupted run resumed from its journal ends bit-identical to an
# uninterrupted one. A propagation run is killed (SIGKILL, from the journal's test hook) after 11
# of its 16 head-runs, resumed with --resume, and every dataset compared with h5py to the same config
# run in one go. A journal of another config, one with a record edited, one over a trace
# replaced at the same path, and one over a model whose weights changed by one bit are refused.
# Then the journal of a language model's teacher-forced runs (an nll config): killed after 3 of
# its 8 runs, resumed, equal to the run in one go; a run's record edited is refused.
# Skipped (77) without h5py.
#   test_resume.sh STEPQ WORKDIR
set -u
stepq=$1 dir=$2
. "$(dirname "${BASH_SOURCE[0]}")/find_h5py.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cat >one.cfg <<'CFG'
experiment = "propagation";
seeds = [1, 2];
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1, 2, 3, 4, 5, 6, 7]; };
formats = ["fp32", "int6", "stepquant4", "time4"];
plan = "plan.h5";
calibrate = { seeds = [11, 12]; steps = 128; };
prefill = 32;
decode = 64;
bin = 16;
output = "out.h5";
CFG
sed 's/"out.h5"/"whole.h5"/' one.cfg >whole.cfg
export STEPQ_QUIET=1
"$stepq" run whole.cfg --threads 2 >whole.log 2>&1 || bad "the uninterrupted run failed"
STEPQ_TEST_KILL_AFTER_RECORDS=11 "$stepq" run one.cfg --threads 2 >killed.log 2>&1
rc=$?
[ $rc -eq 137 ] || bad "the run was not killed (exit $rc)"
[ -f out.h5.journal ] || bad "no journal beside the killed run's output"
[ ! -e out.h5 ] || bad "the killed run left out.h5"
"$stepq" run one.cfg --resume --threads 1 >resumed.log 2>&1 || { bad "the resumed run failed"; cat resumed.log; }
grep -q "resume: 11 heads read back from the journals of out.h5" resumed.log || bad "the resume did not read the 11 heads back"
[ ! -e out.h5.journal ] || bad "the journal is left after the run completed"
# same RESUMED WHOLE LABEL MIN_DATASETS [ATTR ...]: every dataset, and the attributes named, equal
same() {
    "$py" - "$@" <<'PY' || fail=1
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
bad = [n for n in names if a[n].dtype.kind in "fiu" and not np.array_equal(a[n][()], b[n][()], equal_nan=True)]
bad += [n for n in names if a[n].dtype.kind not in "fiu" and list(a[n][()]) != list(b[n][()])]
bad += ["@" + k for k in sys.argv[5:] if a.attrs[k] != b.attrs[k]]
print("%s: %d datasets compared, %d differ %s" % (sys.argv[3], len(names), len(bad), bad))
sys.exit(1 if bad or len(names) < int(sys.argv[4]) else 0)
PY
}
# (inputs differ: one run read the plan, the other made it)
same out.h5 whole.h5 resume 10 git_revision source seed p1_residual_max
# a journal of another run is refused, never mixed in
STEPQ_TEST_KILL_AFTER_RECORDS=3 "$stepq" run one.cfg --threads 1 >/dev/null 2>&1
sed -i 's/decode = 64;/decode = 48;/' one.cfg
"$stepq" run one.cfg --resume >other.log 2>&1 && bad "a journal of another config was accepted"
grep -q "out.h5.journal was written by another run" other.log || { bad "no message for a foreign journal"; cat other.log; }
# a record edited by hand (one byte of its numbers) is refused, not taken as it is
sed -i 's/decode = 48;/decode = 64;/' one.cfg
rm -f out.h5.journal
STEPQ_TEST_KILL_AFTER_RECORDS=3 "$stepq" run one.cfg --threads 1 >/dev/null 2>&1
"$py" - out.h5.journal <<'PY' || bad "could not edit the journal"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[b.index(b"\n") + 1 + 16 + 4] ^= 0x40  # a byte of the first record's numbers (after its id and size)
open(sys.argv[1], "wb").write(b)
PY
"$stepq" run one.cfg --resume >edited.log 2>&1 && bad "an edited journal record was accepted"
grep -q "out.h5.journal: record 0 does not match its checksum" edited.log ||
    { bad "no message for an edited record"; cat edited.log; }
# a trace replaced at the same path makes another run: its journal is refused
"$stepq" trace --out t.h5 --steps 96 --heads 0-3 --seed 1 >/dev/null 2>&1 || bad "stepq trace failed"
cat >tr.cfg <<'CFG'
experiment = "propagation";
source = { type = "trace"; path = "t.h5"; };
formats = ["fp32", "int6"];
prefill = 32;
decode = 64;
bin = 16;
output = "tr_out.h5";
CFG
STEPQ_TEST_KILL_AFTER_RECORDS=2 "$stepq" run tr.cfg --threads 1 >/dev/null 2>&1
[ -f tr_out.h5.journal ] || bad "no journal beside the killed trace run"
"$stepq" trace --out t.h5 --steps 96 --heads 0-3 --seed 2 >/dev/null 2>&1 || bad "stepq trace failed"
"$stepq" run tr.cfg --resume >tr_other.log 2>&1 && bad "a journal over a replaced trace was accepted"
grep -q "tr_out.h5.journal was written by another run" tr_other.log || { bad "no message for a replaced trace"; cat tr_other.log; }
# so do a model's weights changed in place: one bit of one weight (the journal's key covers every
# input the run read, method 6.9)
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p lm && cp "$src/data/lm/gdn/config.json" "$src/data/lm/gdn/model.safetensors" lm/
cat >lm.cfg <<CFG
experiment = "propagation";
source = { type = "model"; path = "$dir/lm"; text = "$src/data/lm/heldout/prose/Ruth.txt"; length = 96; };
formats = ["int6"];
prefill = 32;
decode = 64;
bin = 16;
output = "lm_out.h5";
CFG
STEPQ_TEST_KILL_AFTER_RECORDS=2 "$stepq" run lm.cfg --threads 1 >/dev/null 2>&1
[ -f lm_out.h5.journal ] || bad "no journal beside the killed model run"
"$py" - lm/model.safetensors <<'PY' || bad "could not edit the weights"
import sys, struct
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", b[:8])[0]
b[8 + n + 64] ^= 0x01  # the lowest mantissa bit of a float32 weight
open(sys.argv[1], "wb").write(b)
PY
"$stepq" run lm.cfg --resume >lm_other.log 2>&1 && bad "a journal over changed weights was accepted"
grep -q "lm_out.h5.journal was written by another run" lm_other.log || { bad "no message for changed weights"; cat lm_other.log; }
# a journal that cannot be written (a file-size limit, as a full disk): one message, exit 1, and
# nothing left (stepq was killed by SIGXFSZ at its first byte, leaving an empty journal); a resume
# whose rewrite fails keeps the old journal as it was (it was truncated first)
cat >jf.cfg <<'CFG'
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1, 2, 3]; };
formats = ["fp32", "int6"];
prefill = 8; decode = 16; bin = 8;
output = "jf.h5";
CFG
# (the messages go through a pipe: the limit would stop a log file too)
( ulimit -f 0; exec "$stepq" run jf.cfg --threads 1 ) 2>&1 | cat >jf.log
rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "a journal under a file-size limit: exit $rc (1 expected; 153 is SIGXFSZ)"
grep -q "cannot write the journal jf.h5.journal: File too large" jf.log || { bad "no message for a journal that cannot be written"; cat jf.log; }
[ -z "$(ls jf.h5* 2>/dev/null)" ] || { bad "a journal that could not be written left files:"; ls jf.h5*; }
STEPQ_TEST_KILL_AFTER_RECORDS=2 "$stepq" run jf.cfg --threads 1 >/dev/null 2>&1
cp jf.h5.journal jf.copy
( ulimit -f 0; exec "$stepq" run jf.cfg --resume --threads 1 ) 2>&1 | cat >jf2.log
rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || bad "a resume under a file-size limit: exit $rc"
cmp -s jf.h5.journal jf.copy || bad "a resume whose journal rewrite failed changed the old journal"
[ -z "$(ls jf.h5.journal.tmp* 2>/dev/null)" ] || bad "a failed journal rewrite left its temporary file"
# the teacher-forced runs of a language model (nll, recall, frontier; analysis/forced.h): killed
# after 3 of 8 runs, resumed, every dataset equal to the run in one go; a record edited is refused
src=$(cd "$(dirname "$0")/.." && pwd)
for n in nll_whole nll_one; do
    cat >$n.cfg <<CFG
experiment = "nll";
model = "$src/data/lm/gdn";
documents = ["$src/data/lm/heldout/prose/Ruth.txt", "$src/data/lm/heldout/prose/Jas.txt"];
prefill = 64;
decode = 128;
bin = 32;
formats = ["int8", "int6", "int4"];
output = "$n.h5";
CFG
done
"$stepq" run nll_whole.cfg --threads 2 >nll_whole.log 2>&1 || { bad "the uninterrupted nll run failed"; cat nll_whole.log; }
STEPQ_TEST_KILL_AFTER_RECORDS=3 "$stepq" run nll_one.cfg --threads 2 >nll_killed.log 2>&1
rc=$?
[ $rc -eq 137 ] || bad "the nll run was not killed (exit $rc)"
[ -f nll_one.h5.journal ] && [ ! -e nll_one.h5 ] || bad "the killed nll run left no journal, or its output"
cp nll_one.h5.journal nll.copy
"$stepq" run nll_one.cfg --resume --threads 1 >nll_resumed.log 2>&1 || { bad "the resumed nll run failed"; cat nll_resumed.log; }
grep -q "resume: 3 runs read back from the journals of nll_one.h5" nll_resumed.log &&
    grep -q "nll: 3 of 8 runs taken" nll_resumed.log || { bad "the nll resume did not take the 3 runs back"; cat nll_resumed.log; }
[ ! -e nll_one.h5.journal ] || bad "the nll journal is left after the run completed"
same nll_one.h5 nll_whole.h5 "nll resume" 5 git_revision seed
mv nll.copy nll_one.h5.journal
"$py" - nll_one.h5.journal <<'PY' || bad "could not edit the nll journal"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[b.index(b"\n") + 1 + 16 + 8 + 3] ^= 0x01  # a bit of the first run's first NLL
open(sys.argv[1], "wb").write(b)
PY
"$stepq" run nll_one.cfg --resume >nll_edited.log 2>&1 && bad "an edited run record was accepted"
grep -q "nll_one.h5.journal: record 0 does not match its checksum" nll_edited.log ||
    { bad "no message for an edited run record"; cat nll_edited.log; }
# --resume is for the runs of propagation, nll, recall and frontier configs
cat >cal.cfg <<'CFG'
experiment = "calibrate";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
seeds = [1];
steps = 16;
output = "p.h5";
CFG
"$stepq" run cal.cfg --resume >cal.log 2>&1 && bad "--resume accepted for a calibration"
grep -q "cal.cfg:1: --resume continues the runs of propagation, nll, recall and frontier configs" cal.log || { bad "no message for --resume on a calibration"; cat cal.log; }
[ $fail -eq 0 ] && echo "test_resume: passed"
exit $fail
