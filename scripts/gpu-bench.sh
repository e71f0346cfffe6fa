#!/usr/bin/env bash
# The GPU performance issue's measurement, run on a GPU machine from the
# repository root after `make gpu-bins` built bin/ here (and the
# shipped graphs were copied to bin/shared/{tiny,small}, the test graphs to
# bin/testgraphs, as for scripts/gpu-acceptance.sh). Logs and the bench
# JSON records go to $OUT. Usage: scripts/gpu-bench.sh [check] [bench] [split] [relabel] [trace]
#   check  cuda and apps tests, verify --backend cuda (shipped, kron16, grid)
#   bench  hpgraph bench: kron21 and grid1000, cuda and cpu, the issue's apps
#   split  kron21 and grid1000 on cuda with the default HYB split vs all-COO
#   relabel  kron21 on cuda with vertices renumbered by degree (--relabel degree)
#   trace  kron21 BFS and PageRank on cuda with HPGRAPH_CUDA_TRACE=1 (where
#          each superstep's time goes: handoff, launches, GPU, wait)
#   answer the time to answer of fresh processes on kron21 (each app; kernel
#          caches warm, then empty: a fresh machine), many BFS sources in one
#          process, and GAP's times on the same graph when .peers/gapbs (GAP's
#          sources, never committed) was carried along
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-bench}
B=bin
H=${H:-$B/gpu/hpgraph}
G=/tmp/hpgraph-graphs
mkdir -p "$OUT" "$G"
step() { echo "== $* ($(date +%T))"; }
gen() {
	[ -f $G/kron16.hpg ] || $H gen kron --scale 16 -o $G/kron16.hpg >/dev/null
	[ -f $G/kron21.hpg ] || $H gen kron --scale 21 -o $G/kron21.hpg >/dev/null
	[ -f $G/grid1000.hpg ] || $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg >/dev/null
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>&1
for what in "${@:-check bench split}"; do for w in $what; do case $w in
check)
	step "tests"
	OUT=$OUT B=$B scripts/gpu-tests.sh
	gen
	step "verify --backend cuda"
	timeout 90 $H verify --backend cuda $B/shared/tiny/* $B/shared/small/* $G/kron16.hpg $G/grid1000.hpg >"$OUT/verify.log" 2>&1
	echo "verify exit $?: $(grep -c PASS "$OUT/verify.log") PASS, $(grep -c ' FAIL' "$OUT/verify.log") FAIL"
	timeout 60 $H verify --backend cuda --weights random:1-64 --algo sssp $G/kron16.hpg $G/grid1000.hpg >>"$OUT/verify.log" 2>&1
	echo "verify sssp (random weights) exit $?"
	timeout 60 $H verify --backend cuda --precision float64 --algo pagerank-ldbc $B/shared/tiny/* $B/shared/small/* $G/kron16.hpg >>"$OUT/verify.log" 2>&1
	echo "verify pagerank-ldbc float64 exit $?"
	grep -E ' FAIL' "$OUT/verify.log" | head
	;;
bench)
	gen
	step "bench kron21 + grid1000, cuda"
	timeout 240 $H bench $G/kron21.hpg --backend cuda --runs 5 --algo bfs,sssp,pagerank-iter,pagerank-ldbc,tc,cc --json "$OUT/bench-kron21-cuda.json" 2>/dev/null | tee "$OUT/bench-kron21-cuda.txt" | sed -n '/graph.*algo/,$p'
	# (LDBC PageRank's float64 contributions: the rows before float32 became the default)
	timeout 120 $H bench $G/kron21.hpg --backend cuda --runs 5 --algo pagerank-iter,pagerank-ldbc --precision float64 --json "$OUT/bench-kron21-cuda-f64.json" 2>/dev/null | tee "$OUT/bench-kron21-cuda-f64.txt" | sed -n '/graph.*algo/,$p'
	timeout 120 $H bench $G/grid1000.hpg --backend cuda --runs 5 --algo bfs,sssp,cc --json "$OUT/bench-grid-cuda.json" 2>/dev/null | tee "$OUT/bench-grid-cuda.txt" | sed -n '/graph.*algo/,$p'
	[ "${BENCH_CPU:-1}" = 0 ] && continue # (BENCH_CPU=0: the GPU rows only)
	step "bench kron21 + grid1000, cpu (16 cores)"
	timeout 150 $H bench $G/kron21.hpg --backend cpu --runs 3 --algo bfs,sssp,pagerank-iter,tc,cc --json "$OUT/bench-kron21-cpu.json" 2>/dev/null | tee "$OUT/bench-kron21-cpu.txt" | sed -n '/graph.*algo/,$p'
	timeout 90 $H bench $G/grid1000.hpg --backend cpu --runs 3 --algo bfs,sssp --json "$OUT/bench-grid-cpu.json" 2>/dev/null | tee "$OUT/bench-grid-cpu.txt" | sed -n '/graph.*algo/,$p'
	;;
split)
	gen
	step "cuda, all-COO split (the default split is in bench)"
	timeout 150 $H bench $G/kron21.hpg $G/grid1000.hpg --backend cuda --runs 5 --algo bfs,sssp,pagerank-iter,cc --breakeven 2147483647 --json "$OUT/bench-allcoo.json" 2>/dev/null | tee "$OUT/bench-allcoo.txt" | sed -n '/graph.*algo/,$p'
	;;
relabel)
	gen
	step "bench kron21 relabelled by degree, cuda"
	timeout 240 $H bench $G/kron21.hpg --relabel degree --backend cuda --runs 5 --algo bfs,sssp,pagerank-iter,pagerank-ldbc,tc,cc --json "$OUT/bench-kron21-degree.json" 2>/dev/null | tee "$OUT/bench-kron21-degree.txt" | sed -n '/graph.*algo/,$p'
	step "verify --backend cuda --relabel degree"
	timeout 90 $H verify --backend cuda --relabel degree $B/shared/small/* $G/kron16.hpg $G/grid1000.hpg >"$OUT/verify-degree.log" 2>&1
	echo "verify exit $?: $(grep -c PASS "$OUT/verify-degree.log") PASS, $(grep -c ' FAIL' "$OUT/verify-degree.log") FAIL"
	;;
trace)
	gen
	for rl in none degree; do
		step "trace kron21 bfs, pagerank-ldbc (relabel $rl)"
		HPGRAPH_CUDA_TRACE=1 timeout 60 $H run bfs $G/kron21.hpg --relabel $rl --backend cuda --runs 3 -v 2>&1 | grep -v '^loading' | tail -14
		HPGRAPH_CUDA_TRACE=1 timeout 60 $H run pagerank-ldbc $G/kron21.hpg --relabel $rl --backend cuda --runs 2 --iterations 4 -v 2>&1 | tail -10
	done
	;;
answer)
	gen
	wall() { # wall seconds and peak RSS of a command, its output to $OUT/answer.log
		local t0=$EPOCHREALTIME rc
		"$@" >>"$OUT/answer.log" 2>&1; rc=$?
		awk -v a="$t0" -v b="$EPOCHREALTIME" -v c="$*" -v r=$rc 'BEGIN { printf "%.3f s (exit %d): %s\n", b - a, r, c }'
	}
	step "time to answer, kron21, kernel caches warm (a first run fills them)"
	$H run bfs $G/kron21.hpg >/dev/null 2>&1
	for a in bfs cc "pagerank-ldbc --precision float32" tc; do
		$H run $a $G/kron21.hpg >/dev/null 2>&1 # (its kernels compiled once)
		for i in 1 2 3; do wall timeout 60 $H run $a $G/kron21.hpg; done
		grep 'time to answer' "$OUT/answer.log" | tail -3
	done
	step "time to answer, kron21 bfs, empty kernel caches (a fresh machine)"
	for i in 1 2; do
		c=$(mktemp -d)
		wall env XDG_CACHE_HOME=$c CUDA_CACHE_PATH=$c/nv timeout 60 $H run bfs $G/kron21.hpg
		rm -rf "$c"
	done
	grep 'time to answer' "$OUT/answer.log" | tail -2
	step "64 GAP sources in one process"
	wall timeout 60 $H run bfs $G/kron21.hpg --src gap:64
	tail -4 "$OUT/answer.log"
	if [ -d .peers/gapbs ]; then
		step "GAP on the same machine (kron21 as .sg, 16 threads)"
		(cd .peers/gapbs && make -j16 >/dev/null 2>&1) || echo "GAP did not build"
		P=.peers/gapbs
		[ -f $G/kron21.sg ] || timeout 200 $P/converter -g21 -b $G/kron21.sg >/dev/null
		for i in 1 2 3; do wall $P/bfs -f $G/kron21.sg -n1; done
		for i in 1 2 3; do wall $P/cc -f $G/kron21.sg -n1; done
		for i in 1 2; do wall $P/pr -f $G/kron21.sg -n1; done
		wall timeout 100 $P/tc -f $G/kron21.sg -n1
		wall $P/bfs -f $G/kron21.sg -n64
	fi
	;;
esac; done; done
