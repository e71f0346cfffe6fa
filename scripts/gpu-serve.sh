#!/usr/bin/env bash
# Issue 25's measurements of `hpgraph serve` on a GPU machine, from the
# repository root with bin/ carried (H: the binary). Load goes to
# 127.0.0.1 only; every loop is bounded by --queries and --duration.
# Logs and loadgen JSON go to $OUT. Usage:
#   scripts/gpu-serve.sh [targets] [soak SECONDS]
#   targets  kron21 bfs (1 client, summary), bfs from random sources (16
#            clients), pagerank-ldbc float32 10 iterations (1 client)
#   soak     mixed queries of every app on 3 graphs from 16 clients for
#            SECONDS, host RSS and device memory sampled every 10 s
# SERVE_FLAGS adds flags to the server (for example --workers 4).
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-serve}
H=${H:-bin/hpgraph}
G=/tmp/hpgraph-graphs
PORT=${PORT:-18080}
URL=http://127.0.0.1:$PORT
mkdir -p "$OUT" "$G"
step() { echo "== $* ($(date +%T))"; }
[ -f $G/kron16.hpg ] || $H gen kron --scale 16 -o $G/kron16.hpg >/dev/null
[ -f $G/kron21.hpg ] || $H gen kron --scale 21 -o $G/kron21.hpg >/dev/null
[ -f $G/grid1000.hpg ] || $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg >/dev/null

start() {
	$H serve --data-dir $G --listen 127.0.0.1:$PORT --backend "${BACKEND:-cuda}" ${SERVE_FLAGS:-} \
		--graph k21=kron21.hpg --graph grid=grid1000.hpg --graph k16=kron16.hpg >>"$OUT/serve.log" 2>&1 &
	SERVER=$!
	for i in $(seq 1 120); do
		curl -sf $URL/v1/health >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	echo "serve did not come up"; tail -5 "$OUT/serve.log"; return 1
}
stop() {
	kill -TERM $SERVER 2>/dev/null
	wait $SERVER
	echo "serve exit $? after SIGTERM"
}
lg() { timeout "${LGT:-120}" $H loadgen --url $URL "$@" 2>>"$OUT/loadgen.err"; }

start || exit 1
what=${1:-targets}
case $what in
targets)
	step "warm-up: one query of each app on k21"
	for a in bfs sssp pagerank pagerank-ldbc cc tc cdlp lcc; do lg --graph k21 --algo $a --queries 2 --duration 60s >/dev/null; done
	# (and the float32 PageRank measured below: its first query builds its
	# tiles on the device, about 15 ms of kron21)
	lg --graph k21 --algo pagerank-ldbc --params '{"iterations":10,"precision":"float32"}' --queries 2 --duration 60s >/dev/null
	step "kron21 bfs, summary only, 1 client"
	lg --graph k21 --algo bfs --clients 1 --queries 2000 --duration 30s --json "$OUT/bfs-1.json"
	step "kron21 bfs, random sources, 16 clients"
	lg --graph k21 --algo bfs --clients 16 --queries 20000 --duration 30s --json "$OUT/bfs-16.json"
	step "kron21 pagerank-ldbc float32, 10 iterations, 1 client"
	lg --graph k21 --algo pagerank-ldbc --params '{"iterations":10,"precision":"float32"}' --clients 1 --queries 1000 --duration 20s --json "$OUT/pr-1.json"
	step "kron21 cc and sssp, 1 client"
	lg --graph k21 --algo cc --clients 1 --queries 500 --duration 15s
	lg --graph k21 --algo sssp --clients 1 --queries 500 --duration 15s
	;;
soak)
	secs=${2:-60}
	step "soak: every app on k21, grid, k16 from 16 clients for ${secs}s"
	mix=bfs,sssp,pagerank,pagerank-ldbc,cc,tc,cdlp,lcc
	(for i in $(seq 1 $((secs / 10 + 1))); do
		echo "$(date +%s) rss_kb=$(ps -o rss= -p $SERVER) gpu_mib=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits)"
		sleep 10
	done) >"$OUT/soak-mem.log" &
	MON=$!
	LGT=$((secs + 60))
	lg --graph k21 --algo $mix --clients 8 --queries 0 --duration ${secs}s --json "$OUT/soak-k21.json" >"$OUT/soak-k21.txt" &
	A=$!
	lg --graph grid --algo $mix --clients 4 --queries 0 --duration ${secs}s --json "$OUT/soak-grid.json" >"$OUT/soak-grid.txt" &
	B=$!
	lg --graph k16 --algo $mix --clients 4 --queries 0 --duration ${secs}s --json "$OUT/soak-k16.json" >"$OUT/soak-k16.txt" &
	C=$!
	wait $A $B $C
	kill $MON 2>/dev/null
	cat "$OUT/soak-k21.txt" "$OUT/soak-grid.txt" "$OUT/soak-k16.txt"
	# memory after the first minute (warm-up: every app's matrices built)
	awk 'NR > 6 { split($2, r, "="); split($3, g, "="); if (!n++) { r0 = r[2]; g0 = g[2] } rmax = r[2] > rmax ? r[2] : rmax; gmax = g[2] > gmax ? g[2] : gmax; rl = r[2]; gl = g[2] }
		END { if (n) printf "memory after warm-up: rss %d -> %d kB (max %d, %+.1f%%), gpu %d -> %d MiB (max %d, %+.1f%%), %d samples\n", r0, rl, rmax, 100 * (rmax - r0) / r0, g0, gl, gmax, 100 * (gmax - g0) / g0, n }' "$OUT/soak-mem.log"
	;;
esac
stop
grep -ci "panic" "$OUT/serve.log" | sed 's/^/panics in serve.log: /'
