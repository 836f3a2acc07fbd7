#!/usr/bin/env bash
# test_cli.sh: what a user meets at the command line. Bad input gets a clear message (naming
# the file and line of a config, or the dataset and index of a trace), a non-zero exit, and
# leaves no output file behind; every command answers --help.
#   test_cli.sh STEPQ MKBAD WORKDIR
set -u
stepq=$1 mkbad=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
export STEPQ_QUIET=1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# left PATH: PATH or a temporary file of it (PATH.tmp.XXXXXX) exists
left() { [ -e "$1" ] || compgen -G "$1.tmp*" >/dev/null; }

# expect_error NAME REGEX OUTPUT -- command...: non-zero exit, stderr matches, OUTPUT absent
expect_error() {
    local name=$1 pattern=$2 out=$3
    shift 4
    "$@" >"$dir/$name.stdout" 2>"$dir/$name.stderr"
    local rc=$?
    [ $rc -ne 0 ] && ok || bad "$name: exit status 0"
    grep -qE -- "$pattern" "$dir/$name.stderr" && ok || { bad "$name: stderr does not match /$pattern/:"; cat "$dir/$name.stderr"; }
    if [ -n "$out" ]; then
        left "$out" && bad "$name: left $out or a temporary file of it behind" || ok
    fi
}

"$mkbad" "$dir" || { echo "FAIL: mkbad"; exit 1; }

# --- configs: unknown key, wrong type, syntax error, unknown format; each names file:line
cfg() { # NAME LINE-OF-THE-BAD-SETTING-IS-4 BAD-SETTING
    cat >"$dir/$1.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
formats = ["fp32", "int8"];
$2
output = "$dir/$1/out.h5";
CFG
}
cfg unknown_key 'prefill = 4; decod = 8;'
expect_error unknown_key "unknown_key.cfg:4: unknown key 'decod'" "$dir/unknown_key/out.h5" -- "$stepq" run "$dir/unknown_key.cfg"
cfg wrong_type 'prefill = "4"; decode = 8;'
expect_error wrong_type "wrong_type.cfg:4: 'prefill' must be an integer, not a string" "$dir/wrong_type/out.h5" -- "$stepq" run "$dir/wrong_type.cfg"
cfg syntax 'prefill = = 4; decode = 8;'
expect_error syntax "syntax.cfg:4: syntax error" "$dir/syntax/out.h5" -- "$stepq" run "$dir/syntax.cfg"
cfg fmt 'prefill = 4; decode = 8;'
sed -i 's/"int8"\]/"int5"]/' "$dir/fmt.cfg"
expect_error fmt "fmt.cfg:3: unknown format 'int5'" "$dir/fmt/out.h5" -- "$stepq" run "$dir/fmt.cfg"
cfg range 'prefill = 4; decode = 0;'
cfg knob 'prefill = 4; decode = 8; source = { type = "synthetic"; preset = "gdn-qwen-like"; knobs = { key_ridge_gian = 3.0; }; };'
sed -i '2d' "$dir/knob.cfg"
expect_error knob "no synthetic knob 'key_ridge_gian'" "$dir/knob/out.h5" -- "$stepq" run "$dir/knob.cfg"
expect_error range "range.cfg:4: 'decode' = 0 is out of range" "$dir/range/out.h5" -- "$stepq" run "$dir/range.cfg"
# integers beyond 32 bits (libconfig 1.5 cut them without a word: decode = 4294967424 ran 128
# steps, seeds = [4294967297] ran seed 1), beyond 64 bits, and a NUL byte (it ended the text)
cfg bigint 'prefill = 4; decode = 4294967424;'
expect_error bigint "bigint.cfg:4: the integer 4294967424 needs 64 bits: write it 4294967424L" "$dir/bigint/out.h5" -- "$stepq" run "$dir/bigint.cfg"
cfg bigseed 'prefill = 4; decode = 8; seeds = [4294967297, 2];'
expect_error bigseed "bigseed.cfg:4: the integer 4294967297 needs 64 bits" "$dir/bigseed/out.h5" -- "$stepq" run "$dir/bigseed.cfg"
cfg bigseedL 'prefill = 4; decode = 8; seeds = [4611686018427387905L, 2L];'
expect_error bigseedL "bigseedL.cfg:4: element 0 of 'seeds' = 4611686018427387905 is out of range \\[0, 4611686018427387904\\]" "$dir/bigseedL/out.h5" -- "$stepq" run "$dir/bigseedL.cfg"
cfg hugeint 'prefill = 4; decode = 99999999999999999999L;'
expect_error hugeint "hugeint.cfg:4: the integer 99999999999999999999 does not fit in 64 bits" "$dir/hugeint/out.h5" -- "$stepq" run "$dir/hugeint.cfg"
cfg nulbyte 'prefill = 4; decode = 8; NUL'
sed -i 's/NUL/\x00 decode = 9;/' "$dir/nulbyte.cfg"
expect_error nulbyte "nulbyte.cfg:4: a NUL byte" "$dir/nulbyte/out.h5" -- "$stepq" run "$dir/nulbyte.cfg"
# a config that never ends (/dev/zero, itself or included): refused after 16 MiB (it was read
# until memory ran out)
expect_error cfg_zero "/dev/zero: cannot open config file: it holds more than 16 MiB" "" -- timeout 120 "$stepq" run /dev/zero
printf '@include "/dev/zero"\nexperiment = "propagation";\n' > "$dir/inc_zero.cfg"
expect_error inc_zero "inc_zero.cfg:1: cannot read the included file /dev/zero: it holds more than 16 MiB" "" -- timeout 120 "$stepq" run "$dir/inc_zero.cfg"
# @include: an error inside an included file names that file and its line; the config stored
# with a result holds what the include brought in
echo 'formats = ["fp32", int8"];' >"$dir/badsyn.inc"
echo 'prefill = 4; decode = 0;' >"$dir/badrange.inc"
echo 'formats = ["fp32", "int6"];' >"$dir/fmts.inc"
echo 'formats = ["fp32", "int5"];' >"$dir/badfmt.inc"
for inc in badsyn badrange fmts badfmt; do
    cat >"$dir/inc_$inc.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
@include "$dir/$inc.inc"
$( [ $inc = fmts ] || [ $inc = badfmt ] && echo 'prefill = 4; decode = 8;' || echo 'formats = ["fp32"];' )
output = "$dir/inc_$inc/out.h5";
CFG
done
expect_error inc_syntax "badsyn.inc:1: syntax error" "$dir/inc_badsyn/out.h5" -- "$stepq" run "$dir/inc_badsyn.cfg"
expect_error inc_range "badrange.inc:1: 'decode' = 0 is out of range" "$dir/inc_badrange/out.h5" -- "$stepq" run "$dir/inc_badrange.cfg"
expect_error inc_format "badfmt.inc:1: unknown format 'int5'" "$dir/inc_badfmt/out.h5" -- "$stepq" run "$dir/inc_badfmt.cfg"
"$stepq" run "$dir/inc_fmts.cfg" >/dev/null 2>&1 && ok || bad "a config with an @include failed"
if [ -n "$(command -v /usr/bin/python3)" ] && /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 -c 'import h5py, sys; c = h5py.File(sys.argv[1])["/"].attrs["config"]; c = c.decode() if isinstance(c, bytes) else c; sys.exit(0 if "\"int6\"]" in c and "fmts.inc" in c else 1)' "$dir/inc_fmts/out.h5" && ok || bad "the stored config lacks what @include brought in"
fi
cfg bothseeds 'prefill = 4; decode = 8; seed = 1; seeds = [1, 2];'
expect_error bothseeds "give 'seed' or 'seeds'" "$dir/bothseeds/out.h5" -- "$stepq" run "$dir/bothseeds.cfg"
# --- output sinks: one message, exit 1, nothing at the final path (nor its .tmp)
cp "$dir/good.h5" "$dir/good_copy.h5"
expect_error out_is_in "cannot write .*good.h5: it is .*good.h5, an input of this run" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/../cli/good.h5"
# ... before any work (no head was run: no progress line), as a directory, an empty path or one
# ending in '/' are (the last two failed only when the result was moved into place)
! grep -q "heads/s" "$dir/out_is_in.stderr" && ok || bad "an output that is the input was refused only after the run"
expect_error out_empty "cannot write '': the output path is empty" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out ""
expect_error out_slash "cannot write 'nodir/': it names a directory" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "nodir/"
! grep -q "heads/s" "$dir/out_empty.stderr" && ok || bad "an empty output path was refused only after the run"
cmp -s "$dir/good.h5" "$dir/good_copy.h5" && ok || bad "replay --out equal to --trace changed the trace"
mkdir -p "$dir/adir"
expect_error out_dir "cannot write .*adir: it is a directory" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/adir"
# a FIFO (or a device) is not replaced by a regular file
mkfifo "$dir/fifo"
expect_error out_fifo "cannot write .*fifo: it is a FIFO, not a regular file" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/fifo"
[ -p "$dir/fifo" ] && ok || bad "the FIFO given as --out was replaced"
# an output equal to the config, or to the plan it reads, is refused before any work
cat >"$dir/selfout.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
formats = ["fp32", "int8"];
prefill = 4; decode = 8;
output = "$dir/selfout.cfg";
CFG
cp "$dir/selfout.cfg" "$dir/selfout.copy"
expect_error out_is_cfg "cannot write .*selfout.cfg: it is .*selfout.cfg, an input of this run" "" -- "$stepq" run "$dir/selfout.cfg"
cmp -s "$dir/selfout.cfg" "$dir/selfout.copy" && ok || bad "a config naming itself as output was changed"
cat >"$dir/planout.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
formats = ["fp32", "int8"];
prefill = 4; decode = 8;
plan = "$dir/plan_same.h5";
output = "$dir/plan_same.h5";
CFG
expect_error out_is_plan "planout.cfg:6: 'output' and 'plan' name one file" "" -- "$stepq" run "$dir/planout.cfg"
# a report that is the output, or a file written beside it (the table the plot reads), by another
# spelling of its path: refused before any work (the report used to replace the HDF5 result)
for r in "$dir/repout/out.h5" "$dir/sub/../repout/out.tsv" "$dir/repout/./out_formats.tsv"; do
  cfg repout "prefill = 4; decode = 8; report = \"$r\";"
  expect_error rep_is_out "repout.cfg:4: 'report' names .*out[._].*: one would write over the other" "$dir/repout/out.h5" -- "$stepq" run "$dir/repout.cfg"
done
# an output that is a directory is refused before any work: no journal left
mkdir -p "$dir/outdir.h5"
cat >"$dir/outdir.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
formats = ["fp32", "int8"];
prefill = 4; decode = 8;
output = "$dir/outdir.h5";
CFG
expect_error out_dir_run "cannot write .*outdir.h5: it is a directory" "" -- "$stepq" run "$dir/outdir.cfg"
compgen -G "$dir/outdir.h5*journal*" >/dev/null && bad "a refused output left a journal" || ok
# --quick never writes over a full-size result, wherever the output is: elsewhere it goes to quick/
mkdir -p "$dir/full"
echo "a full-size result" >"$dir/full/res.h5"
cat >"$dir/quickout.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
formats = ["fp32", "int8"];
prefill = 4; decode = 8;
quick = { decode = 4; };
output = "$dir/full/res.h5";
CFG
"$stepq" run "$dir/quickout.cfg" --quick >"$dir/quickout.out" 2>&1 && ok || { bad "quick run with an output outside results/ failed"; cat "$dir/quickout.out"; }
[ "$(cat "$dir/full/res.h5")" = "a full-size result" ] && ok || bad "--quick wrote over the full-size result"
[ -s "$dir/full/quick/res.h5" ] && ok || bad "--quick did not write to quick/ beside the output"
# two runs writing one output at once both finish (each has its own temporary file)
"$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/twice.h5" >/dev/null 2>"$dir/twice1.err" &
p1=$!
"$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/twice.h5" >/dev/null 2>"$dir/twice2.err" &
p2=$!
wait $p1 && wait $p2 && ok || { bad "two runs writing one output: one failed"; cat "$dir/twice1.err" "$dir/twice2.err"; }
[ -s "$dir/twice.h5" ] && ! compgen -G "$dir/twice.h5.tmp*" >/dev/null && ok || bad "two runs writing one output: no file, or a temporary file left"
if [ "$(id -u)" -eq 0 ]; then ro=/proc/self; else ro="$dir/ro"; mkdir -p "$ro"; chmod 555 "$ro"; fi
expect_error out_ro "cannot (write|create) $ro/o.h5" "$ro/o.h5" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$ro/o.h5"
# an output under a regular file (it was called "not writable")
echo x >"$dir/plainfile"
expect_error out_under_file "cannot write .*plainfile/o.h5: its directory .*plainfile is a file, not a directory" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/plainfile/o.h5"
# a write that fails halfway (a file-size limit, as a full disk would): no crash in HDF5's exit
( ulimit -f 16; exec "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/full.h5" ) >"$dir/full.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "write failure: exit status $rc (1 expected; 139 is a crash)"
grep -q "cannot write $dir/full.h5: File too large; nothing was left there" "$dir/full.out" && ok || { bad "write failure: no message with the system's reason"; cat "$dir/full.out"; }
left "$dir/full.h5" && bad "write failure left a file behind" || ok
# writes that fail in the middle of the stream, on OpenMP threads (HDF5 printed its 25-line stack
# there, then "cannot write the trace (HDF5)" without the reason). Under LeakSanitizer, leaks are
# not looked for here: HDF5 keeps a chunk buffer when a file whose write failed is closed (its
# error path, not stepq's)
"$stepq" trace --out "$dir/mid.h5" --steps 3000 --heads 0-3 >/dev/null 2>&1 || bad "mid: trace"
( ulimit -f 300; export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  exec "$stepq" replay --trace "$dir/mid.h5" --format int8 --out "$dir/midfull.h5" --prefill 100 ) >/dev/null 2>"$dir/midfull.err"
rc=$?
[ $rc -eq 1 ] && ok || bad "replay failing mid-stream: exit status $rc"
grep -q "^stepq: error: cannot write $dir/midfull.h5: File too large; nothing was left there$" "$dir/midfull.err" && ok || { bad "replay failing mid-stream: no message with the reason"; cat "$dir/midfull.err"; }
grep -q "HDF5-DIAG" "$dir/midfull.err" && { bad "replay failing mid-stream printed HDF5's stack"; head -3 "$dir/midfull.err"; } || ok
( ulimit -f 200; export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  exec "$stepq" trace --out "$dir/tracefull.h5" --steps 20000 --heads 0-3 ) >/dev/null 2>"$dir/tracefull.err"
rc=$?
[ $rc -eq 1 ] && ok || bad "trace failing mid-stream: exit status $rc"
[ "$(grep -v '^trace: ' "$dir/tracefull.err")" = "stepq: error: cannot write $dir/tracefull.h5: File too large; nothing was left there" ] && ok || { bad "trace failing mid-stream: not one line with the reason"; head -5 "$dir/tracefull.err"; }
left "$dir/tracefull.h5" && bad "trace failing mid-stream left a file behind" || ok
left "$dir/midfull.h5" && bad "replay failing mid-stream left a file behind" || ok
# an output whose size is known up front and exceeds the free space (7 PB streamed silently)
expect_error trace_no_space "cannot write .*huge_trace.h5: it would take about 7.4.e\+06 GB and .* GB free" "$dir/huge_trace.h5" -- "$stepq" trace --out "$dir/huge_trace.h5" --steps 99999999999 --heads 0-47
# a FIFO given as an input blocked the open forever; it is refused as not a regular file
mkfifo "$dir/fifo_in.h5"
expect_error trace_fifo "fifo_in.h5: cannot read trace: it is a FIFO, not a regular file" "$dir/fifo_o.h5" -- timeout 20 "$stepq" replay --trace "$dir/fifo_in.h5" --format int8 --out "$dir/fifo_o.h5"
expect_error plan_fifo "fifo_in.h5: cannot read plan: it is a FIFO, not a regular file" "$dir/fifo_o.h5" -- timeout 20 "$stepq" replay --trace "$dir/mid.h5" --format stepquant4 --plan "$dir/fifo_in.h5" --out "$dir/fifo_o.h5"
cat >"$dir/fullrun.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1]; };
formats = ["fp32", "int8"];
prefill = 8; decode = 32; bin = 8;
output = "$dir/fullrun/out.h5";
plot = "plots/propagation.gp";
CFG
mkdir -p "$dir/fullrun"
( ulimit -f 4; exec "$stepq" run "$dir/fullrun.cfg" ) >"$dir/fullrun.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || bad "run under a size limit: exit status $rc"
grep -q "cannot write $dir/fullrun/out.h5: File too large" "$dir/fullrun.out" && ok || { bad "run under a size limit: no reason given"; cat "$dir/fullrun.out"; }
# nothing at the final paths and no temporary file; the journal may stay (a --resume reuses it)
[ -z "$(ls -A "$dir/fullrun" | grep -v '^out.h5.journal$')" ] && ok || { bad "run under a size limit left files:"; ls "$dir/fullrun"; }

# --- an `all` config: each config's output records its own inputs (they piled up over the list:
# a later output named the earlier configs' traces, and past 64 inputs none were noted at all)
cat >"$dir/all_a.cfg" <<CFG
experiment = "propagation";
source = { type = "trace"; path = "$dir/good.h5"; };
formats = ["fp32", "int8"];
prefill = 4; decode = 8;
output = "$dir/all_a.h5";
CFG
cfg all_b 'prefill = 4; decode = 8;'
cat >"$dir/all_ab.cfg" <<CFG
experiment = "all";
configs = ["$dir/all_a.cfg", "$dir/all_b.cfg"];
CFG
"$stepq" run "$dir/all_ab.cfg" >/dev/null 2>&1 && ok || bad "an all config of two configs failed"
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 -c 'import sys, h5py
a, b = (h5py.File(p).attrs["inputs"] for p in sys.argv[1:3])
a, b = (x.decode() if isinstance(x, bytes) else x for x in (a, b))
sys.exit(0 if "good.h5" in a and "all_a.cfg" in a and "all_b.cfg" in b and "good.h5" not in b and "all_a.cfg" not in b and "all_ab.cfg" not in b else 1)' "$dir/all_a.h5" "$dir/all_b/out.h5" && ok || bad "an all config: an output lists another config's inputs"
fi

# an all config's record: --resume skips the configs done (same text, same inputs) and runs the rest
cat >"$dir/all_rec.cfg" <<CFG
experiment = "all";
record = "$dir/all_rec.done";
configs = ["$dir/all_a.cfg", "$dir/all_b.cfg"];
CFG
"$stepq" run "$dir/all_rec.cfg" >/dev/null 2>&1 && [ "$(grep -c '^done' "$dir/all_rec.done")" = 2 ] \
    && ok || bad "an all config's record does not list its two configs"
out=$("$stepq" run "$dir/all_rec.cfg" --resume 2>&1)
[ "$(printf '%s\n' "$out" | grep -c 'done in an earlier run')" = 2 ] && ok \
    || bad "all --resume ran again a config its record lists: $out"
echo "# changed" >>"$dir/all_b.cfg"
out=$("$stepq" run "$dir/all_rec.cfg" --resume 2>&1)
[ "$(printf '%s\n' "$out" | grep -c 'done in an earlier run')" = 1 ] && printf '%s\n' "$out" | grep -q 'all_b.cfg .* ok$' \
    && ok || bad "all --resume skipped a config whose text changed: $out"
"$stepq" run "$dir/all_rec.cfg" >/dev/null 2>&1
out=$("$stepq" run "$dir/all_rec.cfg" 2>&1)
printf '%s\n' "$out" | grep -q 'done in an earlier run' && bad "an all run without --resume skipped a config" || ok

# --- backends: an unknown one named; cuda refused by name where there is no GPU or no CUDA build
cfg backends 'prefill = 4; decode = 8;'
expect_error backend_bad "--backend gpu is not one of cpu, reference, x86-64-v2, avx2, avx512, cuda" "$dir/backends/out.h5" -- "$stepq" run "$dir/backends.cfg" --backend gpu
if ! command -v nvidia-smi >/dev/null 2>&1; then
    expect_error backend_cuda "backend cuda: (no CUDA device|this stepq was built without CUDA)" "$dir/backends/out.h5" -- "$stepq" run "$dir/backends.cfg" --backend cuda
fi

# --- degenerate configs, refused before any work with the key and line
cfg bin_big 'prefill = 4; decode = 8; bin = 16;'
expect_error bin_big "bin_big.cfg:4: 'bin' = 16 must divide 'decode' = 8" "$dir/bin_big/out.h5" -- "$stepq" run "$dir/bin_big.cfg"
cfg bin_odd 'prefill = 4; decode = 10; bin = 4;'
expect_error bin_odd "bin_odd.cfg:4: 'bin' = 4 must divide 'decode' = 10" "$dir/bin_odd/out.h5" -- "$stepq" run "$dir/bin_odd.cfg"
cfg noseeds 'prefill = 4; decode = 8; seeds = [];'
expect_error noseeds "noseeds.cfg:4: 'seeds' is empty" "$dir/noseeds/out.h5" -- "$stepq" run "$dir/noseeds.cfg"
cfg twoseeds 'prefill = 4; decode = 8; seeds = [3, 5, 3];'
expect_error twoseeds "twoseeds.cfg:4: 'seeds' lists 3 twice" "$dir/twoseeds/out.h5" -- "$stepq" run "$dir/twoseeds.cfg"
cfg twoheads 'prefill = 4; decode = 8;'
sed -i 's/heads = \[0\]/heads = [0, 2, 0]/' "$dir/twoheads.cfg"
expect_error twoheads "twoheads.cfg:2: 'heads' lists 0 twice" "$dir/twoheads/out.h5" -- "$stepq" run "$dir/twoheads.cfg"
cfg twofmts 'prefill = 4; decode = 8;'
sed -i 's/"int8"\]/"int8", "fp32"]/' "$dir/twofmts.cfg"
expect_error twofmts "twofmts.cfg:3: format 'fp32' is listed twice" "$dir/twofmts/out.h5" -- "$stepq" run "$dir/twofmts.cfg"
cfg traceseeds 'prefill = 4; decode = 8; seeds = [1, 2];'
sed -i "s|^source = .*|source = { type = \"trace\"; path = \"$dir/good.h5\"; };|" "$dir/traceseeds.cfg"
expect_error traceseeds "traceseeds.cfg:4: 'seeds' over a trace source" "$dir/traceseeds/out.h5" -- "$stepq" run "$dir/traceseeds.cfg"
cat >"$dir/ismodel.cfg" <<CFG
experiment = "inputstats";
seeds = [1, 2];
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0];
           model_seed = 4; };
steps = 64;
output = "$dir/ismodel/out.h5";
CFG
expect_error ismodel "ismodel.cfg:4: inputstats draws the model from each seed .* 'model_seed' would be ignored" "$dir/ismodel/out.h5" -- "$stepq" run "$dir/ismodel.cfg"
cat >"$dir/octnoplan.cfg" <<CFG
experiment = "nll";
model = "data/lm/gdn";
documents = ["data/lm/heldout/prose/Ruth.txt"];
prefill = 32;
decode = 64;
bin = 32;
formats = ["int4"];
octile = 4;
output = "$dir/octnoplan/out.h5";
CFG
expect_error octnoplan "octnoplan.cfg:8: 'octile' is the width of the octile sweep's rows .* and needs 'plan'" "$dir/octnoplan/out.h5" -- "$stepq" run "$dir/octnoplan.cfg"
cat >"$dir/bigcal.cfg" <<CFG
experiment = "calibrate";
source = { type = "synthetic"; preset = "kda-kimi-like"; layers = []; heads = []; };
seeds = [1];
steps = 16;
reservoir = 1000000;
output = "$dir/bigcal/plan.h5";
CFG
expect_error bigcal "calibrate: keeping the KDA snapshots .* needs 39062.5 GiB of memory; this machine has" "$dir/bigcal/plan.h5" -- "$stepq" calibrate "$dir/bigcal.cfg"
# replay streams its trace and its read-outs (method 6.10): with 100 kB of "memory", less than a
# whole read of the trace and its read-outs (2 heads x (20 steps x 128 + 128 x 128) floats x 2 =
# 303104 bytes), and chunks of 3 steps, it runs, and its file equals the run without the limit
"$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/o11.h5" >/dev/null 2>&1 || bad "replay of good.h5"
if STEPQ_MEMORY_BYTES=100000 STEPQ_TRACE_CHUNK=3 "$stepq" replay --trace "$dir/good.h5" --format int8 \
        --out "$dir/o12.h5" >/dev/null 2>"$dir/o12.err"; then ok; else bad "smallrun: $(cat "$dir/o12.err")"; fi
py=
for p in /usr/bin/python3 python3; do "$p" -c 'import h5py' 2>/dev/null && { py=$p; break; }; done
if [ -n "$py" ]; then
    "$py" - "$dir/o11.h5" "$dir/o12.h5" <<'PY' && ok || bad "smallrun: the streamed replay differs"
import sys
import h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
for n in ["y", "y_ref", "S_final", "S_ref_final", "err_readout", "err_state", "p1_residual"]:
    if a[n][()].tobytes() != b[n][()].tobytes():
        sys.exit(1)
PY
fi

cat >"$dir/badsrc.cfg" <<CFG
experiment = "propagation";
prefill = 2; decode = 4; formats = ["int8"];
source = { type = "synthetic"; preset = "gdn-qwen-like";
           layer = [0]; };
output = "$dir/badsrc/out.h5";
CFG
expect_error source_key "badsrc.cfg:4: unknown key 'layer'" "$dir/badsrc/out.h5" -- "$stepq" run "$dir/badsrc.cfg"

# --- traces: missing dataset, mismatched shapes, NaN, Inf; each names dataset (and index)
expect_error kind_fixed_array "kind_fixed_array.h5: attribute 'kind' holds 4 values \\(rank 1\\); stepq reads one" "$dir/oa1.h5" -- "$stepq" replay --trace "$dir/kind_fixed_array.h5" --format int8 --out "$dir/oa1.h5"
expect_error kind_vlen_array "kind_vlen_array.h5: attribute 'kind' holds 3 values \\(rank 1\\); stepq reads one" "$dir/oa2.h5" -- "$stepq" replay --trace "$dir/kind_vlen_array.h5" --format int8 --out "$dir/oa2.h5"
expect_error scale_array "scale_array.h5: attribute 'scale' holds 4 values \\(rank 1\\); stepq reads one" "$dir/oa3.h5" -- "$stepq" replay --trace "$dir/scale_array.h5" --format int8 --out "$dir/oa3.h5"
# an all-zero v: no read-out to measure against, so P1's residual is NaN (it was 0: as if P1 were exact)
"$stepq" replay --trace "$dir/zero_v.h5" --format int8 --out "$dir/zero_out.h5" >/dev/null 2>&1 && ok || bad "replay of an all-zero v failed"
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 -c 'import sys, h5py, math; sys.exit(0 if all(math.isnan(x) for x in h5py.File(sys.argv[1])["p1_residual"][()]) else 1)' "$dir/zero_out.h5" &&
        ok || bad "p1_residual of an all-zero v is not NaN"
fi
# a dataset compressed with a filter this HDF5 cannot decode (h5py's lzf; gzip is decoded): named,
# with the filter (it was "cannot read steps 0-7 of head 0"), where h5py is installed
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 -c 'import sys, h5py
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2], "w")
for k in a: b.create_dataset(k, data=a[k][()], compression="lzf" if k == "v" else None)
for k, v in a.attrs.items(): b.attrs[k] = v' "$dir/good.h5" "$dir/lzf_v.h5" && ok || bad "h5py could not write an lzf dataset"
    expect_error lzf "lzf_v.h5: dataset 'v' is compressed with HDF5 filter 32000 \(lzf\), which this HDF5 library cannot decode" "$dir/olzf.h5" -- "$stepq" replay --trace "$dir/lzf_v.h5" --format int8 --out "$dir/olzf.h5"
fi
expect_error extlink "extlink_v.h5: 'v' is a link to another file; stepq reads only data stored in .*extlink_v.h5 itself" "$dir/ot1.h5" -- "$stepq" replay --trace "$dir/extlink_v.h5" --format int8 --out "$dir/ot1.h5"
expect_error virtual "virtual_v.h5: dataset 'v' is a virtual dataset, whose data lives in other files" "$dir/ot2.h5" -- "$stepq" replay --trace "$dir/virtual_v.h5" --format int8 --out "$dir/ot2.h5"
expect_error float_labels "float_labels.h5: dataset 'layer' does not hold integers" "$dir/ot3.h5" -- "$stepq" replay --trace "$dir/float_labels.h5" --format int8 --out "$dir/ot3.h5"
expect_error scale_dataset "scale_dataset.h5: 'scale' is a dataset; stepq reads the scale from a root attribute" "$dir/ot4.h5" -- "$stepq" replay --trace "$dir/scale_dataset.h5" --format int8 --out "$dir/ot4.h5"
expect_error v_f64_big "v_f64_big.h5: dataset 'v' holds 1.0000000000000001e\\+300 at index \\[4, 1, 9\\], beyond float32's range" "$dir/ot5.h5" -- "$stepq" replay --trace "$dir/v_f64_big.h5" --format int8 --out "$dir/ot5.h5"
expect_error missing "missing_beta.h5: missing dataset 'beta'" "$dir/o1.h5" -- "$stepq" replay --trace "$dir/missing_beta.h5" --format int8 --out "$dir/o1.h5"
expect_error shape "short_v.h5: dataset 'v' has shape \[19, 2, 128\], expected \[T=20" "$dir/o2.h5" -- "$stepq" replay --trace "$dir/short_v.h5" --format int8 --out "$dir/o2.h5"
expect_error nan "nan_k.h5: dataset 'k' holds NaN at index \[3, 1, 17\]" "$dir/o3.h5" -- "$stepq" replay --trace "$dir/nan_k.h5" --format int8 --out "$dir/o3.h5"
expect_error inf "inf_v.h5: dataset 'v' holds Inf at index \[5, 0, 2\]" "$dir/o4.h5" -- "$stepq" replay --trace "$dir/inf_v.h5" --format int8 --out "$dir/o4.h5"
expect_error unnorm "unnorm_k.h5: dataset 'k' is not L2-normalised: step 4, head 1 has norm 2 " "$dir/o7.h5" -- "$stepq" replay --trace "$dir/unnorm_k.h5" --format int8 --out "$dir/o7.h5"
"$stepq" replay --trace "$dir/unnorm_k.h5" --format int8 --out "$dir/o8.h5" --normalize >/dev/null 2>&1 && [ -f "$dir/o8.h5" ] && ok || bad "--normalize did not accept a trace with an unnormalised key"
# --- qk_norm_eps: q and k normalised as x / sqrt(|x|^2 + eps) (a model's trace) may have norms below
# 1, never above; without the attribute a norm of 0.25 is refused; a bad eps is refused by name
expect_error unnorm_eps "unnorm_k_eps.h5: dataset 'k' is not L2-normalised: step 4, head 1 has norm 2, above 1 \(tolerance 0.001\), which normalisation with the trace's qk_norm_eps = 1e-06 cannot give" "$dir/oe1.h5" -- "$stepq" replay --trace "$dir/unnorm_k_eps.h5" --format int8 --out "$dir/oe1.h5"
expect_error small_k "small_k.h5: dataset 'k' is not L2-normalised: step 4, head 1 has norm 0.25 " "$dir/oe2.h5" -- "$stepq" replay --trace "$dir/small_k.h5" --format int8 --out "$dir/oe2.h5"
"$stepq" replay --trace "$dir/small_k_eps.h5" --format int8 --out "$dir/oe3.h5" >/dev/null 2>&1 && [ -f "$dir/oe3.h5" ] && ok || bad "a trace with qk_norm_eps and a key of norm 0.25 was refused"
for e in nan -1e-9 1.5; do
  cp "$dir/small_k_eps.h5" "$dir/eps_$e.h5" && "$mkbad" --f64 "$dir/eps_$e.h5" qk_norm_eps $e && ok || bad "mkbad --f64 qk_norm_eps $e"
  expect_error "eps_$e" "eps_$e.h5: attribute 'qk_norm_eps' is .*; it must lie in \[0, 1\]" "$dir/oe4.h5" -- "$stepq" replay --trace "$dir/eps_$e.h5" --format int8 --out "$dir/oe4.h5"
done
# a replay of it would write read-outs larger than the disk: refused before the run's memory is counted
expect_error huge_T_disk "cannot write .*o9.h5: it would take about [0-9.e+]+ GB and .* GB free" "$dir/o9.h5" -- env STEPQ_MEMORY_BYTES=1073741824 "$stepq" replay --trace "$dir/huge_T.h5" --format int8 --out "$dir/o9.h5"
cat >"$dir/huge_T.cfg" <<CFG
experiment = "propagation";
source = { type = "trace"; path = "$dir/huge_T.h5"; };
formats = ["int8"];
prefill = 8; decode = 1000000000L; bin = 1;
output = "$dir/o9.h5";
CFG
expect_error huge_T "the run's errors per bin \(formats x heads x bins\) needs [0-9.]+ GiB of memory; this machine has 1.0 GiB" "$dir/o9.h5" -- env STEPQ_MEMORY_BYTES=1073741824 "$stepq" run "$dir/huge_T.cfg"
expect_error no_steps "no_steps.h5: dataset 'q' has shape \[0, 2, 128\]: a trace needs at least one step, one head and one key channel" "$dir/o9.h5" -- "$stepq" replay --trace "$dir/no_steps.h5" --format int8 --out "$dir/o9.h5"
expect_error zscale "zero_scale.h5: attribute 'scale' is 0; it must be finite and positive" "$dir/o9.h5" -- "$stepq" replay --trace "$dir/zero_scale.h5" --format int8 --out "$dir/o9.h5"
expect_error overflow "the float32 reference met a non-finite state or read-out at head 0 \(layer 0, head 0\), step 3" "$dir/o10.h5" -- "$stepq" replay --trace "$dir/overflow.h5" --format int8 --out "$dir/o10.h5"
expect_error nofile "nosuch.h5: cannot open" "$dir/o5.h5" -- "$stepq" replay --trace "$dir/nosuch.h5" --format int8 --out "$dir/o5.h5"
expect_error badfmt "unknown format 'int5'" "$dir/o6.h5" -- "$stepq" replay --trace "$dir/good.h5" --format int5 --out "$dir/o6.h5"
# --- a model kind stepq does not know (a string, an integer): refused, naming file, attribute and value
cp "$dir/good.h5" "$dir/kind_mamba.h5" && "$mkbad" --kind "$dir/kind_mamba.h5" mamba && ok || bad "mkbad --kind mamba"
expect_error kind_mamba "kind_mamba.h5: attribute 'kind' is 'mamba', expected \"gdn\" or \"kda\"" "$dir/o13.h5" -- "$stepq" replay --trace "$dir/kind_mamba.h5" --format int8 --out "$dir/o13.h5"
cp "$dir/good.h5" "$dir/kind_2.h5" && "$mkbad" --kind "$dir/kind_2.h5" 2 && ok || bad "mkbad --kind 2"
expect_error kind_2 "kind_2.h5: attribute 'kind' is not a string" "$dir/o14.h5" -- "$stepq" replay --trace "$dir/kind_2.h5" --format int8 --out "$dir/o14.h5"
# --- a shape a format cannot hold: value heads 40 wide (NVFP4's blocks are 16, the dual-axis
# fit's groups 32), refused before any work with the format, the source and what it needs;
# INT6 (groups of 4) runs
expect_error v40 "format nvfp4 for trace .*v40.h5.* cannot hold a 128 x 40 state: .*a multiple of 16" "$dir/o_v40.h5" -- "$stepq" replay --trace "$dir/v40.h5" --format nvfp4 --out "$dir/o_v40.h5"
"$stepq" replay --trace "$dir/v40.h5" --format int6 --out "$dir/o12.h5" >/dev/null 2>&1 && [ -f "$dir/o12.h5" ] && ok || bad "int6 did not run on value heads 40 wide"
cat >"$dir/v40cal.cfg" <<CFG
experiment = "calibrate";
source = { type = "trace"; path = "$dir/v40.h5"; };
traces = ["$dir/v40.h5"];
steps = 16;
horizon = 16;
output = "$dir/v40cal/plan.h5";
CFG
expect_error v40cal "calibration on trace .*v40.h5.* \(its dual-axis fit\) cannot hold a 128 x 40 state: .*a multiple of 32" "$dir/v40cal/plan.h5" -- "$stepq" calibrate "$dir/v40cal.cfg"
cat >"$dir/nan_run.cfg" <<CFG
experiment = "propagation";
prefill = 2; decode = 4; formats = ["int8"];
source = { type = "trace"; path = "$dir/nan_k.h5"; };
output = "$dir/nan_run/out.h5";
plot = "plots/propagation.gp";
CFG
expect_error nan_run "dataset 'k' holds NaN at index \[3, 1, 17\]" "$dir/nan_run/out.h5" -- "$stepq" run "$dir/nan_run.cfg"

# --- calibrated formats: no plan, a plan for other heads, a corrupted plan
cat >"$dir/noplan.cfg" <<CFG
experiment = "propagation";
prefill = 2; decode = 4; formats = ["int8", "stepquant6"];
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1]; };
output = "$dir/noplan/out.h5";
CFG
expect_error noplan "noplan.cfg:2: format stepquant6 needs a calibration plan: set 'plan'" "$dir/noplan/out.h5" -- "$stepq" run "$dir/noplan.cfg"
cat >"$dir/cal.cfg" <<CFG
experiment = "calibrate";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1]; };
seeds = [7, 8];
steps = 64;
reservoir = 4;
output = "$dir/plan.h5";
CFG
"$stepq" calibrate "$dir/cal.cfg" >/dev/null 2>&1 && [ -f "$dir/plan.h5" ] && ok || bad "calibrate of a tiny config failed"
"$stepq" formats --plan "$dir/plan.h5" | grep -qE "^stepquant6 +6\.000 +[0-9.]+ " && ok || bad "formats --plan"
# stepq's own files where another kind is read: named for what they are (each failed on its first
# missing piece: "missing dataset 'q'", "missing attribute 'stepq_plan'")
expect_error plan_as_trace "plan.h5 is a stepq plan, not a trace" "$dir/ok1.h5" -- "$stepq" replay --trace "$dir/plan.h5" --format int8 --out "$dir/ok1.h5"
expect_error trace_as_plan "good.h5 is a trace, not a plan; make one with .stepq calibrate." "$dir/ok1.h5" -- "$stepq" replay --trace "$dir/good.h5" --format stepquant4 --plan "$dir/good.h5" --out "$dir/ok1.h5"
"$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/ok_result.h5" >/dev/null 2>&1 && ok || bad "replay of good.h5 failed"
expect_error result_as_plan "ok_result.h5 is a stepq result, not a plan" "$dir/ok1.h5" -- "$stepq" replay --trace "$dir/good.h5" --format stepquant4 --plan "$dir/ok_result.h5" --out "$dir/ok1.h5"
expect_error result_as_trace "ok_result.h5 is a stepq result, not a trace" "$dir/ok1.h5" -- "$stepq" replay --trace "$dir/ok_result.h5" --format int8 --out "$dir/ok1.h5"
sed -e 's/heads = \[0, 1\]/heads = [0, 2]/' -e "s|noplan/out.h5|otherheads/out.h5|" "$dir/noplan.cfg" >"$dir/otherheads.cfg"
echo "plan = \"$dir/plan.h5\";" >>"$dir/otherheads.cfg"
expect_error otherheads "plan.h5 has no head \(layer 0, head 2\)" "$dir/otherheads/out.h5" -- "$stepq" run "$dir/otherheads.cfg"
sed -e 's/gdn-qwen-like/kda-kimi-like/' -e "s|noplan/out.h5|otherkind/out.h5|" "$dir/noplan.cfg" >"$dir/otherkind.cfg"
echo "plan = \"$dir/plan.h5\";" >>"$dir/otherkind.cfg"
expect_error otherkind "plan.h5 was made for a gdn model" "$dir/otherkind/out.h5" -- "$stepq" run "$dir/otherkind.cfg"
cp "$dir/plan.h5" "$dir/plan_mamba.h5" && "$mkbad" --kind "$dir/plan_mamba.h5" mamba && ok || bad "mkbad --kind on a plan"
expect_error kind_plan "plan_mamba.h5: attribute 'kind' is 'mamba', expected \"gdn\" or \"kda\"" "" -- "$stepq" formats --plan "$dir/plan_mamba.h5"
cp "$dir/plan.h5" "$dir/plan_kind2.h5" && "$mkbad" --kind "$dir/plan_kind2.h5" 2 && ok || bad "mkbad --kind 2 on a plan"
expect_error kind_plan_2 "plan_kind2.h5: attribute 'kind' is not a string" "" -- "$stepq" memory --plan "$dir/plan_kind2.h5"
# a plan's knobs: range-checked (a flipped bit made rho 9e307: errors of 50-80% with exit 0),
# and covered by the attributes' checksum (rho 0.5 -> 0.6 is in range, but not what was made)
cp "$dir/plan.h5" "$dir/plan_rho_big.h5" && "$mkbad" --f64 "$dir/plan_rho_big.h5" rho 9e307 && ok || bad "mkbad --f64"
expect_error rho_big "plan_rho_big.h5: attribute 'rho' = 9.0*[0-9]e\\+307 is outside \\[0, 10\\]" "" -- "$stepq" formats --plan "$dir/plan_rho_big.h5"
cp "$dir/plan.h5" "$dir/plan_rho_nan.h5" && "$mkbad" --f64 "$dir/plan_rho_nan.h5" rho nan && ok || bad "mkbad --f64 nan"
expect_error rho_nan "plan_rho_nan.h5: attribute 'rho' = nan is outside" "" -- "$stepq" formats --plan "$dir/plan_rho_nan.h5"
cp "$dir/plan.h5" "$dir/plan_rho_edit.h5" && "$mkbad" --f64 "$dir/plan_rho_edit.h5" rho 0.6 && ok || bad "mkbad --f64 0.6"
expect_error rho_edit "plan_rho_edit.h5: the plan's attributes .* do not match their checksum knobs_xxh3" "" -- "$stepq" formats --plan "$dir/plan_rho_edit.h5"
head -c 2000 "$dir/plan.h5" >"$dir/cut.h5"
expect_error cutplan "cut.h5: not an HDF5 file \(a truncated or corrupted plan\?\)" "" -- "$stepq" formats --plan "$dir/cut.h5"

expect_error notcal "experiment is 'propagation'; this command runs experiment = \"calibrate\"" "" -- "$stepq" calibrate "$dir/noplan.cfg"
# a plan calibrated on a trace, then a replay of that trace in a calibrated format
cat >"$dir/caltrace.cfg" <<CFG
experiment = "calibrate";
source = { type = "trace"; path = "$dir/good.h5"; };
traces = ["$dir/good.h5", "$dir/good.h5"];
steps = 20;
reservoir = 2;
snapshot_every = 4;
output = "$dir/plan_trace.h5";
CFG
"$stepq" calibrate "$dir/caltrace.cfg" >/dev/null 2>&1 && ok || bad "calibrate on traces failed"
"$stepq" replay --trace "$dir/good.h5" --format stepquant4 --plan "$dir/plan_trace.h5" --out "$dir/sq.h5" >/dev/null 2>&1 \
    && [ -f "$dir/sq.h5" ] && ok || bad "replay in stepquant4 with a trace plan failed"
expect_error replay_noplan "replay: format time6 needs a calibration plan: give --plan PLAN.h5" "$dir/np.h5" -- "$stepq" replay --trace "$dir/good.h5" --format time6 --out "$dir/np.h5"

# --- stepq calibrate --trace (issue 32 item 5): the plan a config with the same traces and
# settings writes (an independent front end: libconfig's keys against the options), key included;
# deterministic for a seed whatever the threads; every refusal before any work, naming the file
"$stepq" trace --out "$dir/ct_a.h5" --steps 80 --heads 0-3 --seed 11 >/dev/null 2>&1 &&
    "$stepq" trace --out "$dir/ct_b.h5" --steps 64 --heads 0-3 --seed 12 >/dev/null 2>&1 &&
    "$stepq" trace --out "$dir/ct_kda.h5" --steps 64 --heads 0-3 --preset kda-kimi-like >/dev/null 2>&1 &&
    "$stepq" trace --out "$dir/ct_two.h5" --steps 64 --heads 0-1 >/dev/null 2>&1 &&
    "$stepq" trace --out "$dir/ct_other.h5" --steps 64 --heads 4-7 >/dev/null 2>&1 && ok || bad "stepq trace for calibrate --trace"
"$stepq" calibrate --trace "$dir/ct_a.h5" "$dir/ct_b.h5" --out "$dir/ct/plan.h5" --reservoir 4 --snapshot-every 4 \
    --seed 3 >"$dir/ct.out" 2>&1 && grep -q "2 segments of 64 steps" "$dir/ct.out" && ok || { bad "calibrate --trace (the shortest trace's 64 steps):"; cat "$dir/ct.out"; }
cat >"$dir/ct.cfg" <<CFG
experiment = "calibrate";
traces = ["$dir/ct_a.h5", "$dir/ct_b.h5"];
steps = 64;
reservoir = 4;
snapshot_every = 4;
seed = 3;
output = "$dir/ct_cfg.h5";
CFG
"$stepq" calibrate "$dir/ct.cfg" >/dev/null 2>&1 && ok || bad "the config of calibrate --trace failed"
"$stepq" calibrate --trace "$dir/ct_a.h5" "$dir/ct_b.h5" --out "$dir/ct_t1.h5" --reservoir 4 --snapshot-every 4 \
    --seed 3 --threads 1 >/dev/null 2>&1 && ok || bad "calibrate --trace --threads 1"
"$stepq" calibrate --trace "$dir/ct_a.h5" "$dir/ct_b.h5" --out "$dir/ct_s4.h5" --reservoir 4 --snapshot-every 4 \
    --seed 4 >/dev/null 2>&1 && ok || bad "calibrate --trace --seed 4"
if [ -n "$py" ]; then
    # the plans' config attributes differ (the config file's text, the command line); nothing else
    "$py" tools/h5cmp.py "$dir/ct/plan.h5" "$dir/ct_cfg.h5" --ignore-attr config >"$dir/ct_cmp.out" 2>&1 && ok || { bad "calibrate --trace and its config differ:"; cat "$dir/ct_cmp.out"; }
    "$py" tools/h5cmp.py "$dir/ct/plan.h5" "$dir/ct_t1.h5" --ignore-attr config >"$dir/ct_cmp.out" 2>&1 && ok || { bad "calibrate --trace on one thread differs:"; cat "$dir/ct_cmp.out"; }
    "$py" tools/h5cmp.py "$dir/ct/plan.h5" "$dir/ct_s4.h5" --ignore-attr config 2>&1 | grep -q "dataset distortion_dual differs" && ok || bad "another seed gave the same reservoir"
    "$py" - "$dir/ct/plan.h5" "$dir/ct_cfg.h5" <<'PY' && ok || bad "calibrate --trace: key, source or command line (above)"
import sys, h5py
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
a, b = (h5py.File(p)["/"].attrs for p in sys.argv[1:])
bad = [k for k in ("calibration_key", "calibration_source") if s(a[k]) != s(b[k])]
want = "stepq calibrate --trace %s %s --out %s --steps 64 " % (sys.argv[1].replace("ct/plan.h5", "ct_a.h5"),
                                                               sys.argv[1].replace("ct/plan.h5", "ct_b.h5"), sys.argv[1])
if not s(a["config"]).startswith(want) or " --seed 3" not in s(a["config"]): bad.append("config: " + s(a["config"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
fi
cta="$dir/ct_a.h5"
expect_error ct_missing "nosuch.h5: cannot open trace \(missing or unreadable" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" "$dir/nosuch.h5" --out "$dir/ct_r.h5"
expect_error ct_plan "ct_cfg.h5 is a stepq plan, not a trace" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" "$dir/ct_cfg.h5" --out "$dir/ct_r.h5"
expect_error ct_kind "segment 1 \(trace .*ct_kda.h5.*\) is kda, segment 0 gdn" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" "$dir/ct_kda.h5" --out "$dir/ct_r.h5"
expect_error ct_shape "segment 1 \(trace .*ct_two.h5.*\) has 2 heads of 128 x 128, segment 0 4 of 128 x 128" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" "$dir/ct_two.h5" --out "$dir/ct_r.h5"
expect_error ct_labels "segment 1 \(trace .*ct_other.h5.*\) labels head 0 \(layer 0, head 4\), segment 0 \(layer 0, head 0\)" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" "$dir/ct_other.h5" --out "$dir/ct_r.h5"
expect_error ct_short "segment 1 \(trace .*ct_b.h5.*\) is shorter than the 70 steps asked for" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" "$dir/ct_b.h5" --out "$dir/ct_r.h5" --steps 70
cp "$cta" "$dir/ct_a_copy.h5"
expect_error ct_outin "cannot write .*ct_a.h5: it is .*ct_a.h5, an input of this run" "" -- "$stepq" calibrate --trace "$cta" --out "$cta"
cmp -s "$cta" "$dir/ct_a_copy.h5" && ok || bad "calibrate --out equal to a --trace changed the trace"
mkdir -p "$dir/ct_dir"
expect_error ct_outdir "cannot write .*ct_dir: it is a directory" "" -- "$stepq" calibrate --trace "$cta" --out "$dir/ct_dir"
for n in ct_missing ct_kind ct_outin ct_outdir; do ! grep -q "heads/s" "$dir/$n.stderr" && ok || bad "$n was refused only after the work"; done
expect_error ct_gamma "calibrate: --gamma 'abc' is not valid: it takes a number in \[0, 10\]" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" --out "$dir/ct_r.h5" --gamma abc
expect_error ct_notrace "calibrate: --trace needs a value: one or more of trace files" "$dir/ct_r.h5" -- "$stepq" calibrate --trace --out "$dir/ct_r.h5"
expect_error ct_noout "calibrate: --out is required" "" -- "$stepq" calibrate --trace "$cta"
expect_error ct_both "calibrate: unexpected argument '.*ct.cfg'" "$dir/ct_r.h5" -- "$stepq" calibrate "$dir/ct.cfg" --trace "$cta" --out "$dir/ct_r.h5"
# a calibration that would take no state snapshot (issue 65 class 2: a plan of zero distortions,
# exit 0), refused before any output naming the setting; --out without --trace named as such
expect_error ct_nosnap "calibrate: --snapshot-every 100 is more than the 80 steps of each segment \(every step of the shortest trace\): the calibration would take no state snapshot" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" --out "$dir/ct_r.h5" --snapshot-every 100
expect_error ct_steps7 "calibrate: --snapshot-every 8 is more than the 7 steps of each segment \(--steps\)" "$dir/ct_r.h5" -- "$stepq" calibrate --trace "$cta" --out "$dir/ct_r.h5" --steps 7
expect_error ct_outonly "calibrate: --out goes with --trace \(stepq calibrate --trace A.h5" "$dir/ct_r.h5" -- "$stepq" calibrate --out "$dir/ct_r.h5"
expect_error ct_stepsonly "calibrate: --steps goes with --trace" "" -- "$stepq" calibrate "$dir/ct.cfg" --steps 7
# the config form refuses it too, naming the keys and the file and line of each setting (the
# message begins at snapshot_every's, else at the group's where it is the default):
# experiment = "calibrate", and a calibrate group inside another experiment's config
cat >"$dir/cc_nosnap.cfg" <<CFG
experiment = "calibrate";
traces = ["$cta"];
steps = 20;
reservoir = 4;
snapshot_every = 64;
output = "$dir/cc_nosnap.h5";
CFG
expect_error cc_nosnap "cc_nosnap.cfg:5: snapshot_every 64 is more than the 20 steps of each segment \(steps, [^ ]*cc_nosnap.cfg:3\): the calibration would take no state snapshot and measure no distortion; give snapshot_every at most 20" "$dir/cc_nosnap.h5" -- "$stepq" calibrate "$dir/cc_nosnap.cfg"
cat >"$dir/cc_group.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
plan = "$dir/cc_group_plan.h5";
calibrate = { seeds = [101];
              steps = 7; };
prefill = 8;
decode = 8;
formats = ["fp32", "stepquant4"];
output = "$dir/cc_group/out.h5";
CFG
expect_error cc_group "cc_group.cfg:4: snapshot_every 8 is more than the 7 steps of each segment \(steps, [^ ]*cc_group.cfg:5\)" "$dir/cc_group_plan.h5" -- "$stepq" run "$dir/cc_group.cfg"
[ ! -e "$dir/cc_group/out.h5" ] && ok || bad "cc_group: an output was written after the refused calibration"
# the open-file limit reached while the traces are opened (each stays open): the system's reason,
# not "missing or unreadable" (issue 65 class 7)
for i in $(seq 1 24); do cp "$cta" "$dir/ct_many_$i.h5"; done
expect_error ct_emfile "ct_many_[0-9]+.h5: cannot open trace: Too many open files" "$dir/ct_r.h5" -- \
    bash -c 'ulimit -n 16 && exec "$@"' - "$stepq" calibrate --trace "$dir"/ct_many_*.h5 --out "$dir/ct_r.h5"
rm -f "$dir"/ct_many_*.h5

# --- a calibrate group reuses a plan made from the same calibration, and only then
cat >"$dir/reuse.cfg" <<CFG
experiment = "propagation";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1]; };
plan = "$dir/reuse/plan.h5";
calibrate = { seeds = [7, 8]; steps = 64; reservoir = 4; };
prefill = 4; decode = 8; formats = ["int8", "stepquant6"];
output = "$dir/reuse/out.h5";
CFG
"$stepq" run "$dir/reuse.cfg" >"$dir/reuse1.out" 2>&1 && grep -q "wrote plan" "$dir/reuse1.out" && ok || bad "first calibration did not write a plan"
"$stepq" run "$dir/reuse.cfg" >"$dir/reuse2.out" 2>&1 && grep -q "made from this calibration" "$dir/reuse2.out" && ok || bad "the same calibration was not reused"
sed -i 's/steps = 64;/steps = 72;/' "$dir/reuse.cfg"
"$stepq" run "$dir/reuse.cfg" >"$dir/reuse3.out" 2>&1 && grep -q "wrote plan" "$dir/reuse3.out" && ok || bad "a changed calibration reused the old plan"
sed -i 's/key_ridge_gain/x/; s/heads = \[0, 1\]; };/heads = [0, 1]; knobs = { key_ridge_gain = 9.0; }; };/' "$dir/reuse.cfg"
"$stepq" run "$dir/reuse.cfg" >"$dir/reuse4.out" 2>&1 && grep -q "wrote plan" "$dir/reuse4.out" && ok || bad "a changed generator knob reused the old plan"
# provenance: a result made with a plan its run calibrated records the plan's path and
# checksum among its inputs; a trace file records revision, compiler, date and its inputs
"$stepq" trace --out "$dir/prov_t.h5" --model data/lm/gdn --text README.md --steps 16 >/dev/null 2>&1 || bad "stepq trace --model failed"
if /usr/bin/python3 -c 'import h5py' 2>/dev/null; then
    /usr/bin/python3 - "$dir/reuse/out.h5" "$dir/prov_t.h5" <<'PY' && ok || bad "provenance missing (above)"
import re, sys, h5py
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
out, tr = h5py.File(sys.argv[1])["/"].attrs, h5py.File(sys.argv[2])["/"].attrs
bad = []
if not re.search(r"reuse/plan\.h5 xxh3=[0-9a-f]{16}", s(out["inputs"])): bad.append("result inputs: " + s(out["inputs"]))
for k in ("git_revision", "compiler", "created", "inputs", "config"):
    if k not in tr: bad.append("trace lacks " + k)
if "inputs" in tr and not re.search(r"README\.md xxh3=[0-9a-f]{16}", s(tr["inputs"])): bad.append("trace inputs: " + s(tr["inputs"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
fi

# --- command-line values are parsed whole and range-checked; the message names the option
expect_error steps_1e3 "trace: --steps '1e3' is not valid: it takes an integer in \[1, " "$dir/t1.h5" -- "$stepq" trace --out "$dir/t1.h5" --steps 1e3
expect_error threads_abc "run: --threads 'abc' is not valid: it takes an integer in \[0, 4096\]" "" -- "$stepq" run "$dir/noplan.cfg" --threads abc
expect_error threads_big "replay: --threads '100000' is not valid: it takes an integer in \[0, 4096\]" "$dir/t2.h5" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/t2.h5" --threads 100000
expect_error seed_neg "trace: --seed '-1' is not valid: it takes an integer in \[0, " "$dir/t3.h5" -- "$stepq" trace --out "$dir/t3.h5" --steps 4 --seed -1
expect_error prefill_12x "replay: --prefill '12x' is not valid: it takes an integer in \[0, " "$dir/t4.h5" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/t4.h5" --prefill 12x
expect_error unknown_opt "replay: unknown option --frobnicate \(it takes --trace, --format, --out, --prefill, --plan, --normalize, --plan-any-model, --threads" "$dir/t5.h5" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/t5.h5" --frobnicate 3
expect_error no_value "trace: --steps needs a value: an integer in \[1, " "$dir/t6.h5" -- "$stepq" trace --out "$dir/t6.h5" --steps
expect_error twice "trace: --steps is given twice" "$dir/t7.h5" -- "$stepq" trace --out "$dir/t7.h5" --steps 4 --steps 5
expect_error required "replay: --out is required" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8
expect_error heads_list "trace: --heads '3-1' is not valid: it takes a list of indices like 0,2,5-7" "$dir/t8.h5" -- "$stepq" trace --out "$dir/t8.h5" --steps 4 --heads 3-1
expect_error heads_range "index 99 is out of range for preset gdn-qwen-like" "$dir/t9.h5" -- "$stepq" trace --out "$dir/t9.h5" --steps 4 --heads 99
# a head named twice (it wrote a trace of two heads with one label, which replay then refused)
printf 'a short text' > "$dir/short.txt"
expect_error offset_past "trace: .*short.txt holds 12 bytes; --offset 1000 is past its end" "$dir/t10.h5" -- "$stepq" trace --out "$dir/t10.h5" --model data/lm/gdn --text "$dir/short.txt" --offset 1000
expect_error heads_twice "trace: --heads '0-3,2' is not valid: .* and named once" "$dir/t9.h5" -- "$stepq" trace --out "$dir/t9.h5" --steps 4 --heads 0-3,2
expect_error conv_nan "memory: --conv-mib 'nan' is not valid: it takes a number in \[0, " "" -- "$stepq" memory --conv-mib nan
expect_error extra_arg "formats: unexpected argument 'stray'" "" -- "$stepq" formats stray
expect_error run_extra "run: unexpected argument" "" -- "$stepq" run "$dir/noplan.cfg" "$dir/noplan.cfg"
"$stepq" formats --help | grep -q "space6" && "$stepq" formats --help | grep -q "space4" && ok || bad "formats --help omits the space formats, which need a plan"
"$stepq" replay --help | grep -q "stepquant6" && ok || bad "replay --help does not list the formats that need --plan"
cfg twofmt 'prefill = 4; decode = 8;'
sed -i 's/"int8"\]/"int8", "fp32"]/' "$dir/twofmt.cfg"
expect_error twofmt "twofmt.cfg:3: format 'fp32' is listed twice" "$dir/twofmt/out.h5" -- "$stepq" run "$dir/twofmt.cfg"

# --- a good replay writes its file and nothing else
"$stepq" replay --trace "$dir/good.h5" --format int6 --out "$dir/good_out.h5" >/dev/null 2>&1 && ok || bad "replay of a good trace failed"
[ -f "$dir/good_out.h5" ] && ! compgen -G "$dir/good_out.h5.tmp*" >/dev/null && ok || bad "replay output missing or tmp left"

# --- messages give the cause: an over-long file name (errno), a directory or a pipe as --text
long=$(printf 'a%.0s' $(seq 1 300))
expect_error longname "cannot create .*aaaa.h5.tmp.*: File name too long" "" -- "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/$long.h5"
mkdir -p "$dir/textdir"
expect_error text_dir "textdir: is a directory; give a text file" "$dir/td.h5" -- "$stepq" trace --out "$dir/td.h5" --model data/lm/gdn --text "$dir/textdir"
head -c 200 README.md | "$stepq" trace --out "$dir/tpipe.h5" --model data/lm/gdn --text /dev/stdin >/dev/null 2>"$dir/tpipe.err" && [ -s "$dir/tpipe.h5" ] && ok ||
    { bad "a text from a pipe was refused:"; cat "$dir/tpipe.err"; }

# --- models: a NaN weight, an unimplemented activation or attention layers, an overlap behind an
# empty tensor (each ran to the end before: "nan bits per byte", or a forward that was not theirs)
if command -v /usr/bin/python3 >/dev/null; then
    for c in nan gelu attn overlap; do
        /usr/bin/python3 tests/mkbad_model.py data/lm/gdn "$dir/m_$c" $c || bad "mkbad_model $c"
    done
    expect_error m_nan "m_nan/model.safetensors: tensor 'model.norm.weight' holds NaN at element 0" "$dir/tm1.h5" -- "$stepq" trace --out "$dir/tm1.h5" --model "$dir/m_nan" --text README.md --steps 8
    expect_error m_gelu "m_gelu/config.json: 'hidden_act' is gelu: stepq implements the SiLU \\(swish\\) MLP only" "$dir/tm2.h5" -- "$stepq" trace --out "$dir/tm2.h5" --model "$dir/m_gelu" --text README.md --steps 8
    expect_error m_attn "m_attn/config.json: 'attn' is set: stepq implements delta-rule layers only" "$dir/tm3.h5" -- "$stepq" trace --out "$dir/tm3.h5" --model "$dir/m_attn" --text README.md --steps 8
    expect_error m_overlap "m_overlap/model.safetensors: tensors 'lm_head.weight' and 'model.embeddings.weight' overlap" "$dir/tm4.h5" -- "$stepq" trace --out "$dir/tm4.h5" --model "$dir/m_overlap" --text README.md --steps 8
fi

# --- the environment: OpenMP's thread count has the bound --threads has (libgomp crashed on this)
expect_error omp_env "OMP_NUM_THREADS=100000 asks for 100000 threads; stepq runs at most 4096" "$dir/omp.h5" -- env OMP_NUM_THREADS=100000 "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
# a thread stack too small for the deepest step (OMP_STACKSIZE=128K crashed the quantized step);
# variables that would be ignored when they are not numbers
expect_error omp_stack "OMP_STACKSIZE=128K gives each thread 128 KiB of stack; stepq needs at least 1024 KiB" "$dir/omp.h5" -- env OMP_STACKSIZE=128K "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
expect_error gomp_stack "GOMP_STACKSIZE=100 gives each thread 100 KiB of stack" "$dir/omp.h5" -- env GOMP_STACKSIZE=100 "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
expect_error ulimit_stack "the stack limit \(ulimit -s\) is 256 KiB; stepq needs at least 1024 KiB" "$dir/omp.h5" -- bash -c 'ulimit -s 256 && exec "$0" "$@"' "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
expect_error chunk_env "STEPQ_TRACE_CHUNK=abc is not an integer in \[1, 16777216\]" "$dir/omp.h5" -- env STEPQ_TRACE_CHUNK=abc "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
# ... and one the reader (strtol) would ignore though strtod reads a whole number from it
expect_error chunk_env_real "STEPQ_TRACE_CHUNK=64.0 is not an integer in \[1, 16777216\]" "$dir/omp.h5" -- env STEPQ_TRACE_CHUNK=64.0 "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
expect_error memory_env "STEPQ_MEMORY_BYTES=-1 is not a number in \[1, " "$dir/omp.h5" -- env STEPQ_MEMORY_BYTES=-1 "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp.h5"
OMP_STACKSIZE=2M "$stepq" replay --trace "$dir/good.h5" --format int8 --out "$dir/omp2.h5" >/dev/null 2>&1 && [ -f "$dir/omp2.h5" ] && ok || bad "OMP_STACKSIZE=2M was refused"

# --- user strings reach gnuplot as data, never as code (issue: a quote in the output path or
# the description): an apostrophe in the description and an output directory whose name closes
# a gnuplot string and calls system() still give the PNG, and nothing runs
qdir="$dir/q'.system('touch \$STEPQ_PWNED').'x"
mkdir -p "$qdir"
cat >"$dir/quote.cfg" <<CFG
experiment = "propagation";
description = "the paper's setting, \"quoted\"; \\ and \`ls\`";
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0]; };
formats = ["fp32", "int8"];
prefill = 4; decode = 8; bin = 4;
output = "$qdir/out.h5";
plot = "plots/propagation.gp";
CFG
STEPQ_PWNED="$dir/pwned" "$stepq" run "$dir/quote.cfg" >"$dir/quote.stdout" 2>"$dir/quote.stderr" && ok || { bad "a quote in the description or output path failed the run:"; cat "$dir/quote.stderr"; }
[ -s "$qdir/out.png" ] && ok || bad "no PNG for an output path with a quote"
[ -e "$dir/pwned" ] && bad "the output path reached gnuplot as code (system() ran)" || ok

# --- every command answers --help, and formats shows the packed bits
for c in run replay trace formats calibrate memory bench; do
    "$stepq" "$c" --help | grep -q "usage: stepq $c" && ok || bad "$c --help"
done
"$stepq" --help | grep -q "usage: stepq COMMAND" && ok || bad "stepq --help"
# the driver script's own help: its usage lines, and nothing of the script itself
./stepq --help | grep -q "set -euo" && bad "./stepq --help prints a line of the script" || ok
"$stepq" formats | grep -qE "^int6 +6\.000 +6\.125 " && ok || bad "formats: int6 is not 6.125 bits"
"$stepq" frobnicate >/dev/null 2>&1 && bad "unknown command accepted" || ok

# --- stepq roundtrip: states that are not states, a missing plan, a NaN; nothing left behind
if [ -n "${py:-}" ]; then
    "$py" - "$dir" <<'PY'
import sys, h5py, numpy as np
d = sys.argv[1]
with h5py.File(d + "/rt_nos.h5", "w") as f: f["X"] = np.zeros((4, 4), np.float32)
with h5py.File(d + "/rt_4d.h5", "w") as f: f["S"] = np.zeros((1, 2, 4, 4), np.float32)
with h5py.File(d + "/rt_nan.h5", "w") as f:
    S = np.ones((2, 8, 8), np.float32); S[1, 2, 3] = np.nan; f["S"] = S
PY
    expect_error rt_nos "rt_nos.h5: missing dataset 'S'" "$dir/rt.h5" -- "$stepq" roundtrip --in "$dir/rt_nos.h5" --format int8 --out "$dir/rt.h5"
    expect_error rt_4d "rt_4d.h5: dataset 'S' must be" "$dir/rt.h5" -- "$stepq" roundtrip --in "$dir/rt_4d.h5" --format int8 --out "$dir/rt.h5"
    expect_error rt_nan "rt_nan.h5: head 1 of S holds a NaN or Inf; format int8 cannot store it" "$dir/rt.h5" -- "$stepq" roundtrip --in "$dir/rt_nan.h5" --format int8 --out "$dir/rt.h5"
    expect_error rt_plan "format stepquant4 needs a calibration plan: give --plan" "$dir/rt.h5" -- "$stepq" roundtrip --in "$dir/rt_nan.h5" --format stepquant4 --out "$dir/rt.h5"
    expect_error rt_kind "--kind is 'mamba', expected \"gdn\" or \"kda\"" "$dir/rt.h5" -- "$stepq" roundtrip --in "$dir/rt_nan.h5" --format int8 --kind mamba --out "$dir/rt.h5"
fi

echo "test_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
