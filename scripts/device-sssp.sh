#!/usr/bin/env bash
# Issue 39, item 12: what a query of `run sssp|bfs --src gap:16 --backend
# cuda` costs beyond its compute (target: at most compute + 1 ms), on a
# GPU machine from the repository root after `make gpu-bins` built bin/
# here. Every step is bounded by `timeout`; logs go to $OUT; about 1-2
# minutes with kron21's generation. Usage:
#   OUT=dir scripts/device-sssp.sh
#   OUT=dir OLD=bin/gpu/hpgraph-main scripts/device-sssp.sh   # A/B against another binary
# Prints, for sssp and bfs on kron21, unweighted and with --weights
# random:1-64, each query's wall minus its compute (median, max) and the
# mean compute, two rounds (alternating with OLD's where given); checks
# that every query's answer line is the CPU backend's (and OLD's); then
# HPGRAPH_CUDA_TRACE=1 of gap:4 (sssp and bfs), the trace lines of the
# queries after the first: the engine's run (prepare, start, supersteps,
# copy back, close), the query around it, the device's start; with --out
# (the distances copied back) every distance and summary line against the
# CPU's; the device tests of the reductions (vp_reduce_values against the
# CPU engine, SSSP's Reached against the host's pass and gonum); and the
# host's passes on this machine's cores: the engine's reductions
# (vertexprog BenchmarkReduceValues) and the summary they replaced
# (apps/sssp BenchmarkSummarize).
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-sssp}
H=${H:-bin/gpu/hpgraph}
OLD=${OLD:-}
G=${G:-/tmp/hpgraph-graphs}
# (BACKEND=cpu SCALE=14 G=DIR H=bin/hpgraph: a dry run without a GPU)
BACKEND=${BACKEND:-cuda}
SCALE=${SCALE:-21}
K=$G/kron$SCALE.hpg
LOG=$OUT/sssp.log
mkdir -p "$OUT" "$G"
say() { tee -a "$LOG"; }
step() { echo "== $* ($(date +%T))" | say; }
# perquery FILE: each query's wall time minus its compute (ms)
perquery() {
	sed -n 's/.*; \([0-9.]*\) ms (compute \([0-9.]*\),.*/\1 \2/p' "$1" | awk '{ printf "%.3f %.3f\n", $1 - $2, $2 }' | sort -n |
		awk '{ o[NR] = $1; c += $2 } END { if (!NR) { print "no query lines"; exit }
			printf "%d queries: wall - compute median %.3f ms, max %.3f; compute mean %.3f ms\n", NR, o[int((NR + 1) / 2)], o[NR], c / NR }'
}
# answers FILE: the queries' answer lines (what precedes the times)
answers() { sed -n 's/^\(src [0-9]*: [^;]*\);.*/\1/p' "$1"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | say
echo "cores: $(nproc)" | say
[ -x "$H" ] || { echo "no $H: run make gpu-bins and carry bin/" | say; exit 1; }
step "kron$SCALE"
[ -f $K ] || timeout 120 $H gen kron --scale $SCALE -o $K >"$OUT/gen.txt" 2>&1 || echo "gen kron$SCALE failed" | say
# bins: "new" is $H, "old" $OLD
bins="new"
[ -n "$OLD" ] && bins="new old"
binary() { if [ $1 = new ]; then echo $H; else echo $OLD; fi; }

for round in 1 2; do
	for b in $bins; do
		for algo in sssp bfs; do
			for w in "" "--weights random:1-64"; do
				f=$OUT/$b-$algo${w:+-weighted}.$round.txt
				step "round $round: $b ($(binary $b)) run $algo --src gap:16 ${w:-unweighted}"
				timeout 120 $(binary $b) run $algo $K --backend $BACKEND --src gap:16 $w >"$f" 2>&1
				echo "exit $?: $(perquery "$f")" | say
				grep -E '^16 queries' "$f" | say
			done
		done
	done
done

step "answers: $BACKEND against the cpu backend${OLD:+, new and old}"
for algo in sssp bfs; do
	for w in "" "--weights random:1-64"; do
		name=$algo${w:+-weighted}
		timeout 150 $H run $algo $K --backend cpu --src gap:16 $w >"$OUT/cpu-$name.txt" 2>&1 || echo "cpu $name failed" | say
		answers "$OUT/cpu-$name.txt" >"$OUT/cpu-$name.answers"
		for b in $bins; do
			answers "$OUT/$b-$name.1.txt" >"$OUT/$b-$name.answers"
			if [ -s "$OUT/cpu-$name.answers" ] && cmp -s "$OUT/cpu-$name.answers" "$OUT/$b-$name.answers"; then
				echo "$name: $b's $(wc -l <"$OUT/cpu-$name.answers") answers = the cpu's" | say
			else
				echo "$name: $b's answers DIFFER from the cpu's (or are missing):" | say
				diff "$OUT/cpu-$name.answers" "$OUT/$b-$name.answers" | head -5 | say
			fi
		done
	done
done

for algo in sssp bfs; do
	step "trace: HPGRAPH_CUDA_TRACE=1 run $algo --src gap:4 -v"
	HPGRAPH_CUDA_TRACE=1 timeout 60 $H run $algo $K --backend $BACKEND --src gap:4 -v >"$OUT/trace-$algo.txt" 2>&1 || echo "trace $algo failed" | say
	# (the first query's PREPROCESS builds the matrices; the others are the
	# many queries' case)
	awk 'go && /trace: (run|prepare|start|close|reductions)|^pipeline trace|^src / && !/^superstep|trace: superstep/; /^src / { go = 1 }' "$OUT/trace-$algo.txt" | say
	grep -c 'cuda trace: superstep' "$OUT/trace-$algo.txt" | sed 's/^/superstep calls traced: /' | say
done

step "--out: sssp --src gap:2 on $BACKEND and the cpu, every distance"
for w in "" "--weights random:1-64"; do
	name=sssp${w:+-weighted}
	for b in $BACKEND cpu; do
		mkdir -p "$OUT/out-$name-$b"
		timeout 150 $H run sssp $K --backend $b --src gap:2 $w --out "$OUT/out-$name-$b/{src}.txt" >"$OUT/out-$name-$b.log" 2>&1 || echo "--out $name on $b failed" | say
	done
	files=$(ls "$OUT/out-$name-cpu" 2>/dev/null | wc -l)
	if [ "$files" -gt 0 ] && diff -r "$OUT/out-$name-$BACKEND" "$OUT/out-$name-cpu" >/dev/null &&
		diff <(answers "$OUT/out-$name-$BACKEND.log") <(answers "$OUT/out-$name-cpu.log") >/dev/null; then
		echo "$name --out: $files files of distances and the summary lines = the cpu's" | say
	else
		echo "$name --out: DIFFERS from the cpu's (or is missing)" | say
	fi
done

step "device tests of the reductions"
if [ -x bin/cuda-run.test ] && [ -x bin/apps-sssp.test ]; then
	(cd cuda/run && timeout 300 ../../bin/cuda-run.test -test.run 'TestReductionsMatchCPU|TestCompileReductions' -test.v 2>&1) | grep -E '^(--- |ok|PASS|FAIL)|reduc' | say
	(cd apps/sssp && timeout 300 ../../bin/apps-sssp.test -test.run 'TestReachedMatchesHostSummary|TestSummaryOnlyAnswer' -test.v 2>&1) | grep -E '^(--- |ok|PASS|FAIL)' | say
else
	echo "no bin/cuda-run.test or bin/apps-sssp.test" | say
fi

step "the host's passes on $(nproc) cores (vertexprog BenchmarkReduceValues, apps/sssp BenchmarkSummarize)"
for t in vertexprog:ReduceValues apps-sssp:Summarize; do
	if [ -x bin/${t%%:*}.test ]; then
		timeout 60 bin/${t%%:*}.test -test.run '^$' -test.bench ${t#*:} -test.benchtime 200x -test.count 3 2>&1 | grep Benchmark | say
	else
		echo "no bin/${t%%:*}.test" | say
	fi
done
echo "logs in $OUT" | say
