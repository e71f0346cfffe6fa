#!/usr/bin/env bash
# GAP's graphs made on the GPU (cuda/gen, docs/gen.md), checked and timed
# on a GPU machine from the repository root, with bin/ from `make
# gpu-bins` carried there (this script builds nothing):
#   tests   bin/cuda-gen.test's GPU tests: the device's CSR is the host
#           generator's (Kronecker and uniform, scales 10-16, ranges of
#           rows, in chunks, weighted or not), the .hpg written from the
#           device is the host's file, Split's bounds; and NVRTC compiles
#           the kernels for the device
#   k27dev  kron27 to a CSR ready on the device (TestGPUTime; its phases)
#   k27     bench kron:27 bfs: the graph ready to run (its load: made on
#           the GPU, copied to the host for the engine, kept on the device)
#   k21/u21 gen -o of kron21 and urand21 (random:1-64 weights) on the GPU
#           and on the host: the files' SHA-256 must be equal
#   k25     gen -o of kron25 on the GPU (4.5 GB) beside dd writing as many
#           bytes: is the writing limited by the disk?
#   k29x2   (not by default; two GPUs) kron29 in two parts, one on each
#           GPU, to both parts' CSRs ready (TestGPUTimeParts)
# Each step runs under timeout, its log in $OUT/STEP.log, a line in
# $OUT/summary.txt; the graphs go to a temporary directory, removed at
# the end. About 5 minutes (k29x2 about 1 more); exits 1 when a step
# failed.
# Usage: OUT=dir scripts/device-gen.sh [STEP...]   (on two GPUs: k29x2)
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-gen}
B=${B:-bin}
H=$B/gpu/hpgraph
mkdir -p "$OUT"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hpgraph-gen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# step NAME LIMIT CMD...: runs CMD under timeout LIMIT, its output in
# $OUT/NAME.log; notes its exit and seconds.
step() {
	local name=$1 limit=$2
	shift 2
	echo "== $name ($(date +%T))"
	local t0 rc
	t0=$(now)
	timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
	rc=$?
	summary "$name: exit $rc, $(secs "$t0" "$(now)") s"
	[ $rc -eq 0 ] || { status=1; grep -E -- '--- FAIL|^panic|rror|^hpgraph:' "$OUT/$name.log" | head -5; }
	return $rc
}

# same NAME ARGS...: gen ARGS on the GPU and on the host; the files must
# be equal.
same() {
	local name=$1
	shift
	step "$name-gpu" 120 env HPGRAPH_TRACE=1 "$H" gen "$@" --on gpu -o "$tmp/$name-gpu.hpg" &&
		step "$name-cpu" 240 "$H" gen "$@" --on cpu -o "$tmp/$name-cpu.hpg" || return
	local a b
	a=$(sha256sum <"$tmp/$name-gpu.hpg" | cut -d' ' -f1)
	b=$(sha256sum <"$tmp/$name-cpu.hpg" | cut -d' ' -f1)
	if [ "$a" = "$b" ]; then
		summary "$name: the GPU's file is the host's (sha256 $a, $(stat -c %s "$tmp/$name-gpu.hpg") bytes)"
	else
		summary "$name: FILES DIFFER: GPU $a, host $b"
		status=1
	fi
	grep -h 'vertices' "$OUT/$name-gpu.log" "$OUT/$name-cpu.log" | tee -a "$OUT/summary.txt"
	rm -f "$tmp/$name-gpu.hpg" "$tmp/$name-cpu.hpg"
}

for s in ${@:-tests k27dev k27 k21 u21 k25}; do
	case $s in
	tests)
		summary "$(git log --oneline -1 2>/dev/null); $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
		step tests 300 env HPGRAPH_REQUIRE_GPU=1 "$B/cuda-gen.test" -test.run 'TestGPU|TestCompile' -test.v
		grep -E -- '^(--- |ok|FAIL|PASS)' "$OUT/tests.log" | tee -a "$OUT/summary.txt"
		;;
	k27dev)
		step k27dev 240 env HPGRAPH_REQUIRE_GPU=1 HPGRAPH_TRACE=1 HPGRAPH_GEN_SCALE=27 "$B/cuda-gen.test" -test.run 'TestGPUTime' -test.v
		grep -E 'CSR ready|gen trace' "$OUT/k27dev.log" | tee -a "$OUT/summary.txt"
		;;
	k27)
		step k27 360 env HPGRAPH_TRACE=1 "$H" bench kron:27 --algo bfs --backend cuda --relabel none --runs 3 --json "$OUT/k27-bench.json"
		grep -E 'gen trace|"load_ms"|"generator"' "$OUT/k27.log" "$OUT/k27-bench.json" | tee -a "$OUT/summary.txt"
		;;
	k21) same k21 kron --scale 21 ;;
	u21) same u21 uniform --scale 21 --weights random:1-64 ;;
	k25)
		step k25 240 env HPGRAPH_TRACE=1 "$H" gen kron --scale 25 --on gpu -o "$tmp/k25.hpg" &&
			grep -hE 'gen trace|vertices' "$OUT/k25.log" | tee -a "$OUT/summary.txt"
		if [ -f "$tmp/k25.hpg" ]; then
			bytes=$(stat -c %s "$tmp/k25.hpg")
			rm -f "$tmp/k25.hpg"
			step dd 240 dd if=/dev/zero of="$tmp/dd" bs=64M count=$(((bytes >> 26) + 1))
			tail -1 "$OUT/dd.log" | tee -a "$OUT/summary.txt"
			rm -f "$tmp/dd"
		fi
		;;
	k29x2)
		step k29x2 300 env HPGRAPH_REQUIRE_GPU=1 HPGRAPH_TRACE=1 HPGRAPH_GEN_SCALE=29 HPGRAPH_GEN_PARTS=2 "$B/cuda-gen.test" -test.run 'TestGPUTimeParts' -test.v
		grep -E 'part |parts:|gen trace' "$OUT/k29x2.log" | tee -a "$OUT/summary.txt"
		;;
	*)
		echo "unknown step $s (tests k27dev k27 k21 u21 k25 k29x2)"
		status=1
		;;
	esac
done
exit $status
