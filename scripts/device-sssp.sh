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
# copy back, close), the query around it, the device's start; and the
# summary pass's benchmark on this machine's cores.
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
	awk 'go && /trace: (run|prepare|start|close)|^pipeline trace|^src / && !/^superstep|trace: superstep/; /^src / { go = 1 }' "$OUT/trace-$algo.txt" | say
	grep -c 'cuda trace: superstep' "$OUT/trace-$algo.txt" | sed 's/^/superstep calls traced: /' | say
done

step "the summary pass on $(nproc) cores (apps/sssp BenchmarkSummarize)"
if [ -x bin/apps-sssp.test ]; then
	timeout 60 bin/apps-sssp.test -test.run '^$' -test.bench Summarize -test.benchtime 200x 2>&1 | grep Benchmark | say
else
	echo "no bin/apps-sssp.test" | say
fi
echo "logs in $OUT" | say
