#!/usr/bin/env bash
# test_mpi.sh: an MPI run (method 6.12) against one process. The quick configs of propagation,
# halflife, calibrate (GDN, and KDA with its pivot pass) and nll under `mpirun -np 2` and
# `-np 3` (oversubscribed on this machine; propagation also on 5 ranks, more than its 4 units)
# give files identical to one process's: every dataset and attribute but the creation time,
# with h5py, and the tables byte for byte. A rank killed mid-run (SIGKILL, the journal's test
# hook) fails the job with no output and no temporary file left; --resume then completes it
# with another rank count (2 -> 3, 3 -> 1), bit-identical to an uninterrupted run. A rank whose
# unit fails (a NaN in head 1's keys: rank 1's) fails the job, naming the rank and where.
# Skipped (77) without mpirun, on a stepq built without MPI, or without h5py; the first two
# fail instead under STEPQ_TEST_REQUIRE_MPI (CI).
#   test_mpi.sh STEPQ WORKDIR SOURCE_DIR
set -u
stepq=$1 dir=$2 src=$3
# CI (.ci/run) sets STEPQ_TEST_REQUIRE_MPI: there a missing MPI fails the test
skip=77
[ -n "${STEPQ_TEST_REQUIRE_MPI:-}" ] && skip=1
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun (openmpi-bin): skipped"; exit $skip; }
ldd "$stepq" | grep -q libmpi || { echo "$stepq was built without MPI (STEPQ_MPI): skipped"; exit $skip; }
. "$(dirname "${BASH_SOURCE[0]}")/find_h5py.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# CI runs as root, in a container; the ranks share its cores and let OpenMP place its threads
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# a rank that waits gives its core away instead of polling (3 ranks share 2 cores here)
export OMPI_MCA_mpi_yield_when_idle=1
export STEPQ_QUIET=1
mpi() { local np=$1; shift; mpirun -np "$np" --bind-to none "$stepq" "$@"; }
same() {  # A B [ATTR...]: every output file under A equals B's (HDF5 dataset for dataset and
          # attribute for attribute but the creation time and ATTR..., text byte for byte)
    local a=$1 b=$2 f
    shift 2
    "$py" "$src/tools/h5cmp.py" "$a" "$b" --ignore-attr created "$@" || return 1
    for f in $(cd "$a" && find . -type f \( -name '*.tsv' -o -name '*.md' \)); do
        cmp -s "$a/$f" "$b/$f" || { echo "$f differs"; return 1; }
    done
    [ "$(cd "$a" && find . -type f | sort)" = "$(cd "$b" && find . -type f | sort)" ] || { echo "other files"; return 1; }
}

# 1. the quick configs: one process, 2 ranks, 3 ranks
for cfg in propagation halflife_gdn calibrate_gdn calibrate_kda nll_gdn; do
    nps="1 2 3"
    [ "$cfg" = propagation ] && nps="1 2 3 5"  # its quick config has 4 units: a rank idles
    for np in $nps; do
        w="$cfg.$np"
        mkdir -p "$w" && ln -s "$src/experiments" "$src/data" "$src/plots" "$w/"
        if [ "$np" = 1 ]; then
            (cd "$w" && "$stepq" run "experiments/$cfg.cfg" --quick --threads 1 >run.log 2>&1)
        else
            (cd "$w" && mpi "$np" run "experiments/$cfg.cfg" --quick --threads 1 >run.log 2>&1)
        fi || { bad "$cfg on $np ranks failed"; tail -5 "$w/run.log"; continue; }
        [ "$np" = 1 ] && continue
        same "$cfg.1/results" "$w/results" || bad "$cfg: $np ranks differ from one process"
        # rank 0 alone prints the results
        [ "$(grep -c '^wrote ' "$w/run.log")" = "$(grep -c '^wrote ' "$cfg.1/run.log")" ] ||
            bad "$cfg on $np ranks: the results were printed more than once"
    done
done

# 2. a killed rank, then --resume with another rank count (against the same config run whole: its
# text and path differ in the output's name alone)
cat >kill.cfg <<'CFG'
experiment = "propagation";
seeds = [1, 2];
source = { type = "synthetic"; preset = "gdn-qwen-like"; layers = [0]; heads = [0, 1, 2, 3, 4, 5, 6, 7]; };
formats = ["fp32", "int6", "int4"];
prefill = 32;
decode = 64;
bin = 16;
output = "out/out.h5";
CFG
sed 's|"out/out.h5"|"whole/out.h5"|' kill.cfg >whole.cfg
"$stepq" run whole.cfg --threads 1 >whole.log 2>&1 || bad "the uninterrupted run failed"
for pair in "2 3" "3 1"; do
    set -- $pair
    rm -rf out
    STEPQ_TEST_KILL_AFTER_RECORDS=2 mpi "$1" run kill.cfg --threads 1 >killed.log 2>&1 && bad "the killed job on $1 ranks exited 0"
    [ ! -e out/out.h5 ] || bad "the killed job left its output"
    ls out/*.tmp.* >/dev/null 2>&1 && bad "the killed job left a temporary file: $(ls out/*.tmp.*)"
    ls out/out.h5.journal.*of"$1" >/dev/null 2>&1 || bad "the killed job on $1 ranks left no journal"
    if [ "$2" = 1 ]; then
        "$stepq" run kill.cfg --resume --threads 1 >resumed.log 2>&1 || { bad "the resume on one process failed"; cat resumed.log; }
    else
        mpi "$2" run kill.cfg --resume --threads 1 >resumed.log 2>&1 || { bad "the resume on $2 ranks failed"; cat resumed.log; }
    fi
    grep -qE "resume: [1-9][0-9]* heads read back from the journals of out/out.h5" resumed.log ||
        { bad "the resume on $2 ranks read no head back"; cat resumed.log; }
    ls out/out.h5.journal* >/dev/null 2>&1 && bad "journals left after the resumed run: $(ls out/out.h5.journal*)"
    same whole out config config_path inputs || bad "killed on $1 ranks, resumed on $2: differs from the uninterrupted run"
done

# 3. a rank's unit fails: the job fails, naming the rank and where; nothing is left
"$stepq" trace --out t.h5 --steps 96 --heads 0-3 --seed 1 >/dev/null 2>&1 || bad "stepq trace failed"
"$py" -c "
import h5py; f = h5py.File('t.h5', 'a'); k = f['k'][()]; k[40, 1, 3] = float('nan'); f['k'][...] = k" ||
    bad "could not edit the trace"
cat >nan.cfg <<'CFG'
experiment = "propagation";
source = { type = "trace"; path = "t.h5"; };
formats = ["int6"];
prefill = 32;
decode = 64;
bin = 16;
output = "nan/out.h5";
CFG
mpi 2 run nan.cfg --threads 1 >nan.log 2>&1 && bad "a NaN in rank 1's head was not an error"
grep -q "rank 1 of 2: t.h5: dataset 'k' holds NaN at index \[40, 1, 3\]" nan.log || { bad "rank 1 did not say why"; cat nan.log; }
grep -q "rank 0 of 2: propagation failed on rank 1 of 2" nan.log || { bad "rank 0 did not name the rank"; cat nan.log; }
[ ! -e nan/out.h5 ] && ! ls nan/*.tmp.* >/dev/null 2>&1 || bad "the failed job left an output"

# 4. an 'all' config goes on after a config that fails on every rank, as one process does
cat >all.cfg <<CFG
experiment = "all";
description = "a failing config between two good ones";
configs = ["$src/experiments/memory.cfg", "missing.cfg", "kill.cfg"];
CFG
rm -rf out
mpi 2 run all.cfg --threads 1 >all.log 2>&1 && bad "an 'all' config with a failing config exited 0"
grep -qE "missing.cfg +[0-9.]+ s +([0-9.]+ s CPU +)?FAILED" all.log && grep -qE "kill.cfg +[0-9.]+ s +([0-9.]+ s CPU +)?ok" all.log ||
    { bad "the 'all' config did not go on past the failing config"; cat all.log; }
grep -q "MPI_ABORT" all.log && bad "a failure every rank knew ended in MPI_Abort"
[ -f out/out.h5 ] || bad "the 'all' config's last config wrote nothing"

# 5. a benchmark times one process; a command without units is not run on every rank
mpi 2 bench --quick >bench.log 2>&1 && bad "bench ran under mpirun"
grep -q "bench times one process on this machine; run it without mpirun" bench.log || { bad "no message for bench"; cat bench.log; }
mpi 2 trace --out t2.h5 >trace.log 2>&1 && bad "trace ran under mpirun"
grep -q "trace has no units to split over ranks; run it without mpirun" trace.log || { bad "no message for trace"; cat trace.log; }
[ ! -e t2.h5 ] || bad "the refused trace left t2.h5"

# 6. ranks that would run different things stop before any work, naming the first difference:
# other configs (an MPMD launch), or other data at one path (node-local copies that differ)
sed 's|"nan/out.h5"|"mix/out.h5"|; s|"int6"|"int8"|' nan.cfg >other.cfg
"$stepq" trace --out t_ok.h5 --steps 96 --heads 0-3 --seed 1 >/dev/null 2>&1 || bad "stepq trace failed"
sed 's|"t.h5"|"t_ok.h5"|; s|"nan/out.h5"|"mix/out.h5"|' nan.cfg >mix.cfg
mpirun --bind-to none -np 1 "$stepq" run mix.cfg --threads 1 : -np 1 "$stepq" run other.cfg --threads 1 >mpmd.log 2>&1 &&
    bad "ranks started with different configs ran"
grep -q "the ranks of this MPI job disagree on the command line (rank 0's: stepq run mix.cfg --threads 1): rank 1 differs" mpmd.log ||
    { bad "no message naming the command lines"; cat mpmd.log; }
mkdir -p r0 r1
"$stepq" trace --out r0/t_ok.h5 --steps 96 --heads 0-3 --seed 1 >/dev/null 2>&1 &&
    "$stepq" trace --out r1/t_ok.h5 --steps 96 --heads 0-3 --seed 2 >/dev/null 2>&1 || bad "stepq trace failed"
sed 's|"mix/out.h5"|"../mix/out.h5"|' mix.cfg >local.cfg
mpirun --bind-to none -np 1 --wdir r0 "$stepq" run ../local.cfg --threads 1 : -np 1 --wdir r1 "$stepq" run ../local.cfg --threads 1 >local.log 2>&1 &&
    bad "ranks reading different data at one path ran"
grep -q "disagree on input 1, t_ok.h5 (its path, or its XXH3 [0-9a-f]* on rank 0): rank 1 differs" local.log ||
    { bad "no message naming the input that differs"; cat local.log; }
[ ! -e mix/out.h5 ] && ! ls mix/*.tmp.* >/dev/null 2>&1 || bad "a job whose ranks disagreed left an output"

# 7. experiments/stepq.sbatch with the user's own --threads: theirs wins, given once (a fake
# mpirun on PATH prints what it was asked to run)
mkdir -p fakebin && printf '#!/bin/sh\necho "$@"\n' >fakebin/mpirun && chmod +x fakebin/mpirun
out=$(cd "$src" && PATH="$dir/fakebin:$PATH" SLURM_NTASKS=2 SLURM_CPUS_PER_TASK=8 bash experiments/stepq.sbatch x.cfg --threads 4 --quick)
[ "$out" = "-np 2 --map-by slot:PE=4 --bind-to core build/stepq run x.cfg --quick --threads 4" ] ||
    bad "stepq.sbatch with --threads 4: $out"
out=$(cd "$src" && PATH="$dir/fakebin:$PATH" SLURM_NTASKS=2 SLURM_CPUS_PER_TASK=8 bash experiments/stepq.sbatch x.cfg --resume)
[ "$out" = "-np 2 --map-by slot:PE=8 --bind-to core build/stepq run x.cfg --resume --threads 8" ] ||
    bad "stepq.sbatch without --threads: $out"

[ $fail -eq 0 ] && echo "mpi: every run identical to one process"
exit $fail
