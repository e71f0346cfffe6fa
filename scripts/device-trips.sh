#!/usr/bin/env bash
# Issue 39's GPU measurements (items 12, 13, 14), on a GPU machine from
# the repository root after `make gpu-bins` built bin/ here (H: the
# binary). Every step is bounded by `timeout`; the server listens on
# 127.0.0.1 only. Logs go to $OUT (at most 4 files). Usage:
#   scripts/device-trips.sh [sssp] [cdlp] [body] [soak [SECONDS]]
# (default: sssp cdlp body, ~3 minutes with kron21's generation; run soak
# in a call of its own: SECONDS of load, default 420, at most 540, so that
# the whole call stays within 10 minutes)
#   sssp  item 12: `run sssp --src gap:16 --backend $BACKEND` on kron21, each
#         query's wall time against its compute (target: at most compute
#         + 1 ms), and the load time and host peak against one source's;
#         unweighted and with --weights random:1-64
#   cdlp  item 13: `run cdlp` one-shot on kron21, 5 fresh processes: wall
#         time and the time to answer's parts ("other"; target <= 0.45 s)
#   body  item 14: a 64 MiB body over --max-body sent as Python's
#         http.client sends it (all of it, then the answer read): 413
#   soak  item 14: mixed queries of every app on kron21, grid1000 and
#         kron16 from 16 clients; host RSS, the Go heap in use and the GPU's
#         memory every 10 s; growth after the first minute (target <= 5%)
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-trips}
H=${H:-bin/gpu/hpgraph}
G=${G:-/tmp/hpgraph-graphs}
# (BACKEND=cpu SCALE=14 G=DIR H=bin/hpgraph: a dry run without a GPU)
BACKEND=${BACKEND:-cuda}
SCALE=${SCALE:-21}
PORT=${PORT:-18090}
URL=http://127.0.0.1:$PORT
LOG=$OUT/trips.log
mkdir -p "$OUT" "$G"
step() { echo "== $* ($(date +%T))" | tee -a "$LOG"; }
say() { tee -a "$LOG"; }
gen() {
	for g in "kron 16 kron16" "kron $SCALE kron21"; do
		set -- $g
		[ -f $G/$3.hpg ] || timeout 240 $H gen $1 --scale $2 -o $G/$3.hpg >/dev/null || echo "gen $3 failed" | say
	done
	[ -f $G/grid1000.hpg ] || timeout 120 $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg >/dev/null || echo "gen grid1000 failed" | say
}
# ttaline FILE: the time-to-answer line of a run's output
ttaline() { grep 'time to answer' "$1" | tail -1; }
# perquery FILE: each query's wall time minus its compute (ms): median, max
perquery() {
	sed -n 's/.*; \([0-9.]*\) ms (compute \([0-9.]*\),.*/\1 \2/p' "$1" | awk '{ printf "%.3f %.3f\n", $1 - $2, $2 }' | sort -n |
		awk '{ o[NR] = $1; c += $2 } END { if (!NR) { print "no query lines"; exit }
			printf "%d queries: wall - compute median %.3f ms, max %.3f ms; compute mean %.3f ms\n", NR, o[int((NR + 1) / 2)], o[NR], c / NR }'
}
# serve_for SECONDS ARGS...: hpgraph serve in the background (S: its pid),
# stopped after SECONDS whatever happens; waits until it answers
serve_for() {
	local secs=$1
	shift
	$H serve --data-dir $G --listen 127.0.0.1:$PORT --backend $BACKEND "$@" >>"$OUT/serve.log" 2>&1 &
	S=$!
	# (its sleep must not hold the caller's pipe open after serve_stop)
	(sleep "$secs"; kill -TERM $S 2>/dev/null; sleep 10; kill -KILL $S 2>/dev/null) >/dev/null 2>&1 &
	GUARD=$!
	for i in $(seq 1 120); do curl -sf $URL/v1/health >/dev/null 2>&1 && return 0; sleep 0.5; done
	echo "serve did not come up" | say
}
serve_stop() {
	kill -TERM $S 2>/dev/null
	wait $S
	echo "serve exit $? after SIGTERM" | say
	kill $GUARD 2>/dev/null
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | say
gen
what=${1:-}
[ -z "$what" ] && set -- sssp cdlp body
while [ $# -gt 0 ]; do
	case $1 in
	sssp)
		for w in "" "--weights random:1-64"; do
			step "item 12: sssp on kron21 ${w:-unweighted}: one source, then gap:16"
			timeout 120 $H run sssp $G/kron21.hpg --backend $BACKEND $w >"$OUT/one.txt" 2>&1
			echo "one source (exit $?): $(ttaline "$OUT/one.txt")" | say
			timeout 180 $H run sssp $G/kron21.hpg --backend $BACKEND --src gap:16 $w >"$OUT/many.txt" 2>&1
			echo "gap:16 (exit $?): $(perquery "$OUT/many.txt")" | say
			grep -E '^16 queries' "$OUT/many.txt" | say
			echo "gap:16: $(ttaline "$OUT/many.txt")" | say
		done
		rm -f "$OUT/one.txt" "$OUT/many.txt"
		;;
	cdlp)
		step "item 13: cdlp one-shot on kron21, 5 fresh processes"
		for i in 1 2 3 4 5; do
			t0=$(date +%s%N)
			timeout 120 $H run cdlp $G/kron21.hpg --backend $BACKEND >"$OUT/cdlp.txt" 2>&1
			rc=$?
			echo "wall $((($(date +%s%N) - t0) / 1000000)) ms (exit $rc): $(ttaline "$OUT/cdlp.txt")" | say
		done
		rm -f "$OUT/cdlp.txt"
		;;
	body)
		step "item 14: a 64 MiB body sent whole before the answer is read (Python's http.client)"
		serve_for 90
		if command -v python3 >/dev/null; then
			timeout 60 python3 - "$PORT" <<'PY' 2>&1 | say
import http.client, sys
for what, body, want in (("JSON", b'{"name":"' + b"x" * (64 << 20) + b'"}', 413), ("not JSON", b"x" * (64 << 20), 400)):
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=50)
    try:
        c.request("POST", "/v1/graphs", body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        print("python http.client, 64 MiB body (%s): %d, want %d: %s" % (what, r.status, want, r.read()[:100]))
    except Exception as e:
        print("python http.client, 64 MiB body (%s): FAILED: %r" % (what, e))
    c.close()
PY
		else
			echo "no python3 here: curl instead" | say
			head -c $((64 << 20)) /dev/zero | timeout 60 curl -s -o /dev/null -w "curl, 64 MiB body: %{http_code}\n" -H 'Content-Type: application/json' --data-binary @- $URL/v1/graphs | say
		fi
		serve_stop
		;;
	soak)
		secs=420
		if [[ ${2:-} =~ ^[0-9]+$ ]]; then
			secs=$(($2 < 540 ? $2 : 540))
			shift
		fi
		step "item 14: soak, every app on kron21, grid1000 and kron16 from 16 clients for ${secs}s"
		serve_for $((secs + 60)) --graph k21=kron21.hpg --graph grid=grid1000.hpg --graph k16=kron16.hpg
		(for i in $(seq 1 $((secs / 10 + 1))); do
			m=$(curl -sf $URL/metrics | awk '/^go_memstats_heap_inuse_bytes /{h=$2} /^go_memstats_heap_idle_bytes /{i=$2} /^go_memstats_heap_released_bytes /{r=$2} END{printf "heap_inuse_mb=%.0f heap_idle_mb=%.0f released_mb=%.0f", h/1048576, i/1048576, r/1048576}')
			echo "$(date +%s) rss_kb=$(ps -o rss= -p $S | tr -d ' ') gpu_mib=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1) $m"
			sleep 10
		done) >"$OUT/soak-mem.log" &
		M=$!
		mix=bfs,sssp,pagerank,pagerank-ldbc,cc,tc,cdlp,lcc
		lg() { timeout $((secs + 40)) $H loadgen --url $URL "$@" 2>&1; }
		lg --graph k21 --algo $mix --clients 8 --queries 0 --duration ${secs}s >"$OUT/lg-k21.txt" &
		A=$!
		lg --graph grid --algo $mix --clients 4 --queries 0 --duration ${secs}s >"$OUT/lg-grid.txt" &
		B=$!
		lg --graph k16 --algo $mix --clients 4 --queries 0 --duration ${secs}s >"$OUT/lg-k16.txt" &
		C=$!
		wait $A $B $C
		kill $M 2>/dev/null
		for f in k21 grid k16; do echo "$f: $(grep '^all' "$OUT/lg-$f.txt")"; done | say
		rm -f "$OUT"/lg-*.txt
		# after the first minute (every app's matrices built, the scratches
		# and parked runs made)
		awk 'NR > 6 { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				if (!n++) { r0 = v["rss_kb"]; h0 = v["heap_inuse_mb"]; g0 = v["gpu_mib"] }
				rmax = v["rss_kb"] > rmax ? v["rss_kb"] : rmax; hmax = v["heap_inuse_mb"] > hmax ? v["heap_inuse_mb"] : hmax
				rl = v["rss_kb"]; hl = v["heap_inuse_mb"]; gl = v["gpu_mib"] }
			END { if (n) printf "after the first minute, %d samples: rss %d -> %d kB (max %+.1f%%, last %+.1f%%), Go heap in use %d -> %d MB (max %d), gpu %d -> %d MiB\n",
				n, r0, rl, 100 * (rmax - r0) / r0, 100 * (rl - r0) / r0, h0, hl, hmax, g0, gl }' "$OUT/soak-mem.log" | say
		serve_stop
		;;
	*)
		echo "unknown target $1: want sssp, cdlp, body or soak [SECONDS]" | say
		;;
	esac
	shift
done
echo "panics in serve.log: $(cat "$OUT/serve.log" 2>/dev/null | grep -ci panic)" | say
