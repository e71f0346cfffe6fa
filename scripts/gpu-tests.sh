#!/usr/bin/env bash
# Runs the GPU tests of every cuda package, on a GPU machine from the
# repository root after `make gpu-bins` built bin/ here (and the test
# graphs were copied to bin/testgraphs): bin/cuda-rt.test, cuda-jit.test,
# cuda-build.test, cuda-run.test (the layers, cuda/doc.go), cuda.test
# (the registered backend, several backends at once), cu.test (the driver
# binding), apps-*.test (each app folder's tests, and the registry's, on
# the cuda backend) and the examples' ex-*.test (user programs on both
# backends). Each runs with HPGRAPH_REQUIRE_GPU=1 (a skip for want of a GPU fails) under a
# timeout (run 480 s: its CDLP, multiset and compile tests alone take 230 on an H200; build 240, apps 200, cuda 120, the others 60:
# name a few per call where a call's time is short); its log goes to
# $OUT/NAME.log, and a line a binary says how many tests passed, failed
# and skipped. Exits 1 when one failed.
# Usage: OUT=dir scripts/gpu-tests.sh [NAME...]   (NAME: rt jit build run cuda cu apps examples, or one
# binary: apps-bfs, ex-widest)
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-tests}
B=${B:-bin}
mkdir -p "$OUT"
status=0
names="${*:-rt jit build run cuda cu apps examples}"
names=${names/examples/$(cd "$B" 2>/dev/null && ls ex-*.test 2>/dev/null | sed 's/\.test$//' | tr '\n' ' ')}
names=$(for n in $names; do
	if [ "$n" = apps ]; then (cd "$B" 2>/dev/null && ls apps-*.test 2>/dev/null | sed 's/\.test$//'); else echo "$n"; fi
done | tr '\n' ' ')
for n in $names; do
	case $n in
	cuda) bin=$B/cuda.test limit=120 ;;
	cu) bin=$B/cu.test limit=60 ;;
	apps-*) bin=$B/$n.test limit=200 ;;
	ex-*) bin=$B/$n.test limit=60 ;;
	run) bin=$B/cuda-run.test limit=480 ;;
	build) bin=$B/cuda-build.test limit=240 ;;
	*) bin=$B/cuda-$n.test limit=60 ;;
	esac
	if [ ! -x "$bin" ]; then
		echo "$n: $bin missing (make gpu-bins)"
		status=1
		continue
	fi
	echo "== $n ($(date +%T))"
	HPGRAPH_REQUIRE_GPU=1 HPGRAPH_TESTGRAPHS=$PWD/$B/testgraphs timeout $limit "$bin" -test.v >"$OUT/$n.log" 2>&1
	rc=$?
	echo "$n exit $rc: $(grep -c -- '--- PASS' "$OUT/$n.log") PASS, $(grep -c -- '--- FAIL' "$OUT/$n.log") FAIL, $(grep -c -- '--- SKIP' "$OUT/$n.log") SKIP"
	grep -E -- '--- FAIL|^panic' "$OUT/$n.log" | head
	[ $rc -eq 0 ] || status=1
done
exit $status
