#!/usr/bin/env bash
# The merge of the CPU engine (issue 41) into main, checked on a GPU
# machine from the repository root with bin/ from `make gpu-bins` (and
# bin/testgraphs, as scripts/gpu-tests.sh wants). Logs go to $OUT; a line
# a check says PASS or FAIL; exits 1 when one failed.
#   1. the GPU tests that compare the device with the CPU engine, parts
#      included (cuda.test's TestPartsOnEveryDevice, apps-*.test's
#      vptest configs: cpu/*/parts2, parts3 beside the device's);
#   2. one answer on --backend auto races the CPU against the GPU: run's
#      first line names the winner and why, the answer is --backend cpu's;
#   3. a partitioned run (--parts 2) on auto is not raced and answers as
#      the CPU does;
#   4. --delta is taken on the CPU (it delta-steps) and the distances are
#      the GPU's.
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-merge-cpu}
B=${B:-bin}
H=${H:-$B/gpu/hpgraph}
G=/tmp/hpgraph-graphs
mkdir -p "$OUT" "$G"
status=0
# same_depths: two BFS --out files give every vertex the same depth (the
# parents may differ between backends: any vertex a level up is one).
same_depths() { cmp <(cut -d' ' -f1,2 "$1") <(cut -d' ' -f1,2 "$2"); }
check() { # name, then a command whose success is the check's
	local name=$1
	shift
	if "$@" >>"$OUT/checks.log" 2>&1; then echo "PASS $name"; else echo "FAIL $name"; status=1; fi
}
echo "== GPU tests against the CPU engine ($(date +%T))"
OUT=$OUT/tests timeout 400 scripts/gpu-tests.sh cuda apps || status=1

[ -f $G/kron16.hpg ] || timeout 120 $H gen kron --scale 16 -o $G/kron16.hpg >/dev/null
k=$G/kron16.hpg
echo "== one answer on auto races ($(date +%T))"
timeout 60 $H run bfs $k --backend cpu --out $OUT/bfs-cpu.txt >"$OUT/bfs-cpu.log" 2>&1
for i in 1 2 3; do
	timeout 60 $H run bfs $k --backend auto --out $OUT/bfs-auto$i.txt >"$OUT/bfs-auto$i.log" 2>&1
	check "auto run $i names the race's winner" grep -E '^bfs on .*, backend (cpu \(raced: the CPU answered|cuda \(raced: cuda answered)' "$OUT/bfs-auto$i.log"
	check "auto run $i answers as the cpu" same_depths "$OUT/bfs-cpu.txt" "$OUT/bfs-auto$i.txt"
	grep -E '^bfs on|^time to answer' "$OUT/bfs-auto$i.log"
done

echo "== parts are not raced ($(date +%T))"
for b in auto cuda cpu; do
	timeout 60 $H run bfs $k --backend $b --parts 2 --out $OUT/bfs-parts-$b.txt >"$OUT/bfs-parts-$b.log" 2>&1
	check "--parts 2 on $b answers as the cpu" same_depths "$OUT/bfs-cpu.txt" "$OUT/bfs-parts-$b.txt"
done
check "--parts 2 on auto is not raced" bash -c "! grep -q 'raced' '$OUT/bfs-parts-auto.log'"

echo "== --delta on the CPU ($(date +%T))"
for b in cpu cuda; do
	timeout 60 $H run sssp $k --weights random:1-64 --delta 2 --backend $b --out $OUT/sssp-$b.txt >"$OUT/sssp-$b.log" 2>&1
	check "sssp --delta 2 on $b runs" test -s "$OUT/sssp-$b.txt"
done
check "sssp --delta 2: the CPU's distances are the GPU's" cmp "$OUT/sssp-cpu.txt" "$OUT/sssp-cuda.txt"
exit $status
