#!/usr/bin/env bash
# GPU acceptance checks (the CUDA backend issue), run on a GPU machine from
# the repository root, after `make gpu-bins` built bin/ here and the
# shipped graphs were copied to bin/shared/{tiny,small}. Logs go to $OUT.
# Usage: scripts/gpu-acceptance.sh [tests|verify|timing|sanitize|verify-large]...
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-acceptance}
B=bin
G=/tmp/hpgraph-graphs
mkdir -p "$OUT" "$G"
H=${H:-$B/gpu/hpgraph}
step() { echo "== $* ($(date +%T))"; }

gen() {
	[ -f $G/kron16.hpg ] || $H gen kron --scale 16 -o $G/kron16.hpg
	[ -f $G/kron20.hpg ] || $H gen kron --scale 20 -o $G/kron20.hpg
	[ -f $G/urand20.hpg ] || $H gen uniform --scale 20 -o $G/urand20.hpg
	[ -f $G/grid1000.hpg ] || $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg
}

for what in "${@:-tests verify timing sanitize}"; do for w in $what; do case $w in
tests)
	step "the cuda packages' tests and the apps on the cuda backend (scripts/gpu-tests.sh)"
	OUT=$OUT B=$B scripts/gpu-tests.sh
	;;
verify)
	gen
	step "verify --backend cuda, shipped graphs"
	timeout 200 $H verify --backend cuda $B/shared/tiny/* $B/shared/small/* >"$OUT/verify-shipped.log" 2>&1
	echo "exit $?"; grep -E "FAIL|verify:" "$OUT/verify-shipped.log" | head
	step "verify --backend cuda, kron16 and grid 1000x1000 (SSSP with random weights)"
	timeout 300 $H verify --backend cuda $G/kron16.hpg $G/grid1000.hpg >"$OUT/verify-gen.log" 2>&1
	echo "exit $?"; grep -E "FAIL|verify:" "$OUT/verify-gen.log"
	timeout 200 $H verify --backend cuda --weights random:1-64 --algo sssp $G/kron16.hpg $G/grid1000.hpg >>"$OUT/verify-gen.log" 2>&1
	echo "exit $?"; grep -E "FAIL|verify:" "$OUT/verify-gen.log" | tail -1
	;;
verify-large)
	gen
	step "verify --backend cuda, kron20 and urand20"
	timeout 500 $H verify --backend cuda $G/kron20.hpg $G/urand20.hpg >"$OUT/verify-large.log" 2>&1
	echo "exit $?"; grep -E "FAIL|verify:" "$OUT/verify-large.log"
	;;
timing)
	gen
	step "kron20: GPU and CPU (16 cores) times"
	for a in bfs sssp pagerank pagerank-ldbc tc cc; do
		w=""; [ $a = sssp ] && w="--weights random:1-64"
		for b in cuda cpu; do
			runs=5; [ $b = cpu ] && runs=3
			timeout 120 $H run $a $G/kron20.hpg $w --backend $b --runs $runs --json "$OUT/kron20-$a-$b.json" 2>&1 |
				sed -n 's/^/  /; /result:\|preprocess\|median/p' | sed "s/^/$a $b: /"
		done
	done
	;;
sanitize)
	S=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
	[ -n "$S" ] || { echo "no compute-sanitizer"; continue; }
	for tool in memcheck racecheck; do
		step "compute-sanitizer --tool $tool"
		for a in bfs sssp pagerank pagerank-ldbc tc cc; do
			timeout 120 $S --tool $tool --error-exitcode 9 $H run $a $B/shared/tiny/karate.mtx --backend cuda --validate >"$OUT/san-$tool-$a.log" 2>&1
			echo "$tool $a: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san-$tool-$a.log" | head -1)"
		done
	done
	;;
esac; done; done
