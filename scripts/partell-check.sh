#!/usr/bin/env bash
# A part's pull on the device over its own rows (issue 37; docs/parts.md,
# "A part's pull on the device over its own rows (session 38)"), on one
# GPU, from the repository root with bin/ from `make gpu-bins` (and main's
# binary as bin/gpu/hpgraph0, the shipped graphs in bin/shared/{tiny,small}).
# Under 300 s; logs (and the prebuilt images) go to $OUT:
#   1. the prebuilt images of the changed modules (hybbuild.cu, tilesdev.cu):
#      HPGRAPH_CUDA_PREBUILD with fresh caches, running bfs, sssp, pagerank
#      and cc in 2 parts on kron16 and build.test's TestPrebuiltCovers;
#      tarred to $OUT/prebuilt.tgz (copy them into cuda/jit/prebuilt/);
#   2. the device tests: build.test (the windowed copy against the host's,
#      and the builders it changed), run.test (TestPartPullsHoldTheirRows and
#      the parts' tests), cuda.test 'Parts';
#   3. verify --backend cuda --parts 2, 3, 4 on tiny, small and kron16;
#   4. bench kron:26 --parts 2 (bfs, pagerank-iter, cc, float32) with
#      HPGRAPH_TRACE=1, main's binary then this one: times and device peaks.
set -uo pipefail
OUT=${OUT:-/tmp/partell-check}
B=${B:-bin}
H=$B/gpu/hpgraph
H0=$B/gpu/hpgraph0
RT=$B/run.test; [ -x $RT ] || RT=$B/cuda-run.test
BT=$B/build.test; [ -x $BT ] || BT=$B/cuda-build.test
CT=$B/cuda.test
L=$OUT/logs
G=/tmp/hpgraph-graphs
mkdir -p "$L" "$G"
T0=$SECONDS
step() { echo "== $* ($(date +%T), $((SECONDS - T0)) s)"; }
left() { [ $((SECONDS - T0)) -lt $((300 - $1)) ]; }
passes() { echo "exit $1: $(grep -c '^--- PASS' "$2") PASS, $(grep -c '^--- SKIP' "$2") SKIP, FAIL: $(grep '^--- FAIL' "$2" | head -3 | tr '\n' ' ')"; }

step "kron16"
[ -f $G/kron16.hpg ] || timeout 30 $H gen kron --scale 16 -o $G/kron16.hpg > $L/gen.log 2>&1

step "prebuilt images"
PRE=$(mktemp -d)
(
	export HPGRAPH_CUDA_PREBUILD=$PRE XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d)
	for a in bfs sssp pagerank cc; do
		timeout 30 $H run $a $G/kron16.hpg --backend cuda --parts 2 > $L/pre-$a.log 2>&1 || echo "run $a --parts 2: exit $?"
	done
	(cd cuda/build && timeout 30 ../../$BT -test.run 'TestPrebuiltCovers' > $L/pre-build.log 2>&1) || echo "build.test TestPrebuiltCovers: exit $?"
)
ls $PRE
tar czf $OUT/prebuilt.tgz -C $PRE .

step "device tests"
(cd cuda/build && timeout 90 ../../$BT -test.run 'TestWindowedCopyMatchesHost|TestRowsOf|TestBuildOnDeviceMatchesHost|TestDeviceBinsMatchHost|TestDeviceTilesMatchHost|TestDeviceInMatrixMatchesHost' -test.v > $L/bt.log 2>&1; echo "build.test $(passes $? $L/bt.log)")
(cd cuda/run && timeout 90 ../../$RT -test.run 'TestPartPullsHoldTheirRows|TestPullWithoutELLWhereShort|TestComponentsPackedMerge|Parts' -test.v > $L/rt.log 2>&1; echo "run.test $(passes $? $L/rt.log)"; grep -E "of all rows'" $L/rt.log | sed 's/^ *//' | cut -c1-160)
(cd cuda && timeout 40 ../$CT -test.run 'Parts' -test.v > $L/ct.log 2>&1; echo "cuda.test Parts $(passes $? $L/ct.log)")

step "verify in parts"
for P in 2 3 4; do
	left 40 || break
	timeout 40 $H verify --backend cuda --parts $P bin/shared/tiny/* bin/shared/small/* $G/kron16.hpg > $L/v$P.log 2>&1
	echo "verify --parts $P: exit $?, $(grep -c PASS $L/v$P.log) PASS, $(grep -c ' FAIL' $L/v$P.log) FAIL, $(grep -c 'does not run partitioned runs' $L/v$P.log) refused"
done

for h in $H0 $H; do
	left 70 || { echo "(no time left for $h's bench)"; continue; }
	n=$(basename $h)
	step "bench kron:26 --parts 2, $n"
	HPGRAPH_TRACE=1 timeout 70 $h bench kron:26 --backend cuda --parts 2 --algo bfs,pagerank-iter,cc --precision float32 --runs 3 > $L/k26-$n.txt 2>&1
	echo "exit $?"
	grep -E 'kron:26 +(bfs|pagerank|cc)' $L/k26-$n.txt | cut -c1-220
	grep -iE 'device peak|need [0-9.]+ GiB|out of memory|without its ELL' $L/k26-$n.txt | sort | uniq -c | sort -rn | head -8 | cut -c1-200
done
step done
