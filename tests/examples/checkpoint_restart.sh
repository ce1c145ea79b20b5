#!/usr/bin/env bash
# heat2d's checkpoint / restart, end to end: a run killed (SIGKILL) right after its first
# checkpoint, restarted from it, ends bit-identical to a run never interrupted; a checkpoint
# whose writing fails leaves the previous one whole; a checkpoint of another grid is refused.
# Usage: checkpoint_restart.sh <launcher> <launcher flags...> -- <heat2d> <scratch directory>
set -euo pipefail
launcher=()
while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
heat2d=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
args=(--mode heat --n 160 --iterations 6000)
run() { "${launcher[@]}" "$heat2d" "$@"; }

echo "== 1. the uninterrupted run"
run "${args[@]}" --save whole.h5

echo "== 2. the same run, dying (SIGKILL on every image) right after its first checkpoint"
# The program kills itself at a known step, so nothing here waits for a file under load.
if run "${args[@]}" --checkpoint ck.h5 --checkpoint-every 500 --crash-after-checkpoint > killed.log 2>&1; then
  echo "FAIL: the job ended normally although every image was killed"; cat killed.log; exit 1
fi
if [ ! -f ck.h5 ]; then
  echo "FAIL: no checkpoint before the crash"; cat killed.log; exit 1
fi
if grep -q "^heat:" killed.log; then
  echo "FAIL: the run ended before the crash"; exit 1
fi

echo "== 3. restarted from the checkpoint"
run "${args[@]}" --restart ck.h5 --save restarted.h5 | tee restarted.log
step=$(sed -n 's/^restarting from step \([0-9]*\) .*/\1/p' restarted.log)
if [ "$step" != 500 ]; then
  echo "FAIL: restarted from step '$step', not from the first checkpoint (500)"; exit 1
fi

echo "== 4. bit for bit the same final field"
h5diff -r whole.h5 restarted.h5 /field /field
echo "identical after a kill at step >= $step"

echo "== 5. a checkpoint that cannot be written leaves the previous one whole"
cp ck.h5 before.h5
# Block the temporary name the writer uses with a directory that cannot be removed.
rm -rf ck.h5.tmp
mkdir -p ck.h5.tmp/blocker
if run --mode heat --n 160 --iterations 100 --checkpoint ck.h5 --checkpoint-every 50 > failed.log 2>&1; then
  echo "FAIL: the checkpoint write succeeded where it could not"; cat failed.log; exit 1
fi
grep "heat2d: pgas::hdf5::write" failed.log
cmp before.h5 ck.h5
rm -rf ck.h5.tmp

echo "== 6. a checkpoint of another grid is refused with a clear message"
if run --mode heat --n 100 --iterations 6000 --restart ck.h5 > other.log 2>&1; then
  echo "FAIL: a 160 x 160 checkpoint restarted a 100 x 100 run"; exit 1
fi
grep "holds a 160 x 160 grid; this run has 100 x 100" other.log
echo "checkpoint_restart: all checks passed"
