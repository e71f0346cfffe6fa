#!/usr/bin/env bash
# The pipeline branch (issue 38 item 5) on a GPU machine, from the
# repository root with bin/ from `make gpu-bins`. Every front end now
# loads, cleans and renumbers through internal/pipeline: verify renumbers
# on the device (vertexprog.Relabel) where it renumbered on the host
# before, and serve and bench as before. Checks, each a PASS or FAIL line
# (logs in $OUT; exits 1 when one failed):
#   1. verify --backend cuda stays all PASS on kron16 (skewed: renumbered
#      by degree on the GPU under --relabel auto) and on a grid, and with
#      --relabel degree and none;
#   2. run --backend cuda --relabel degree answers as --backend cpu
#      --relabel none (the same depths in the file's ids);
#   3. bench --backend cuda,cpu --validate passes;
#   4. serve --backend cuda, loading with random weights and relabel
#      auto, answers sssp with run --backend cuda's result line.
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-pipe}
H=${H:-bin/gpu/hpgraph}
G=/tmp/hpgraph-graphs
PORT=${PORT:-18181}
mkdir -p "$OUT" "$G"
status=0
check() { # name, then a command whose success is the check's
	local name=$1
	shift
	if "$@" >>"$OUT/checks.log" 2>&1; then echo "PASS $name"; else echo "FAIL $name"; status=1; fi
}
same_depths() { cmp <(cut -d' ' -f1,2 "$1") <(cut -d' ' -f1,2 "$2"); }
[ -f $G/kron16.hpg ] || timeout 120 $H gen kron --scale 16 -o $G/kron16.hpg >/dev/null
[ -f $G/grid300.hpg ] || timeout 120 $H gen grid --rows 300 --cols 300 -o $G/grid300.hpg >/dev/null
k=$G/kron16.hpg

echo "== verify on the GPU ($(date +%T))"
check "verify cuda kron16, grid300 (relabel auto)" timeout 300 $H verify --backend cuda $k $G/grid300.hpg
for r in degree none; do
	check "verify cuda kron16 --relabel $r" timeout 300 $H verify --backend cuda --relabel $r $k
done

echo "== run renumbered on the GPU ($(date +%T))"
timeout 60 $H run bfs $k --backend cpu --relabel none --out $OUT/bfs-cpu.txt >"$OUT/bfs-cpu.log" 2>&1
timeout 60 $H run bfs $k --backend cuda --relabel degree --out $OUT/bfs-cuda.txt >"$OUT/bfs-cuda.log" 2>&1
check "run bfs cuda --relabel degree answers as cpu --relabel none" same_depths $OUT/bfs-cpu.txt $OUT/bfs-cuda.txt

echo "== bench ($(date +%T))"
check "bench kron:16 cuda,cpu --validate" timeout 300 $H bench kron:16 --backend cuda,cpu --algo bfs,sssp,pagerank,cc --runs 3 --validate --json $OUT/bench.json

echo "== serve ($(date +%T))"
$H serve --data-dir $G --listen 127.0.0.1:$PORT --backend cuda >>"$OUT/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 120); do curl -sf http://127.0.0.1:$PORT/v1/health >/dev/null 2>&1 && break; sleep 0.5; done
timeout 120 curl -sf http://127.0.0.1:$PORT/v1/graphs -d '{"name":"k","path":"kron16.hpg","weights":"random:1-64","seed":5}' >"$OUT/serve-load.json" 2>>"$OUT/serve.log"
timeout 60 curl -sf http://127.0.0.1:$PORT/v1/graphs/k/run -d '{"algo":"sssp","params":{"src":7}}' >"$OUT/serve-sssp.json" 2>>"$OUT/serve.log"
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
timeout 60 $H run sssp $k --backend cuda --weights random:1-64 --seed 5 --src 7 >"$OUT/run-sssp.log" 2>&1
want=$(sed -n 's/^result: //p' "$OUT/run-sssp.log")
got=$(sed -n 's/.*"summary": "\([^"]*\)".*/\1/p' "$OUT/serve-sssp.json")
check "serve cuda sssp (weights random:1-64, seed 5) answers as run: '$want'" test -n "$want" -a "$want" = "$got"
exit $status
