#!/usr/bin/env bash
# Partitioned runs on a GPU machine (docs/parts.md), from the repository
# root with bin/ from `make gpu-bins` (and the shipped graphs in
# bin/shared/{tiny,small}). Logs go to $OUT. Usage:
#   scripts/gpu-parts.sh one [SCALE]   parts on one GPU: verify --parts 2 and 3
#                                      against the reference, and kron SCALE
#                                      (default 21) timed whole and in 2 parts
#   scripts/gpu-parts.sh two [SCALE]   two GPUs: verify on both, kron SCALE
#                                      (default 24) on 1 and 2 GPUs, and 2
#                                      processes of 1 GPU over NCCL against 1
#   scripts/gpu-parts.sh nccl [SCALE]  only the last (default kron20; ALGOS=...)
#   scripts/gpu-parts.sh rows [SCALE]  two GPUs: 2 processes over NCCL, each
#                                      reading only its rows of a weighted
#                                      kron SCALE .hpg (default 22), against
#                                      1 process on 1 GPU and --read whole
#   scripts/gpu-parts.sh scale [SCALE] two GPUs: strong scaling at kron SCALE
#                                      (default 26), weak scaling SCALE+1 on
#                                      1 GPU against SCALE+2 on 2
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-parts}
B=${B:-bin}
H=${H:-$B/gpu/hpgraph}
G=/tmp/hpgraph-graphs
mkdir -p "$OUT" "$G"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
step() { echo "== $* ($(date +%T))"; }
graph() { [ -f $G/kron$1.hpg ] || timeout 300 $H gen kron --scale $1 -o $G/kron$1.hpg >/dev/null; }
# (lcc and cdlp refuse parts on a device: counted apart)
verdict() {
	echo "$1 exit $2: $(grep -c PASS "$3") PASS, $(grep ' FAIL' "$3" | grep -vc 'does not run partitioned runs') FAIL, $(grep -c 'does not run partitioned runs' "$3") refused"
	grep ' FAIL' "$3" | grep -v 'does not run partitioned runs' | head -5
}
# nccl_pair: each app run by 2 processes of 1 GPU over NCCL and by 1
# process on 1 GPU, the answers compared (kron$scale).
nccl_pair() {
	step "2 processes x 1 GPU (NCCL) against 1 process"
	A=/tmp/hpgraph-answers # (not under $OUT: the answers are large)
	mkdir -p $A
	for a in ${ALGOS:-bfs sssp pagerank-ldbc cc tc}; do
		w=""; [ $a = sssp ] && w="--weights random:1-64"
		timeout 60 $H run $a $G/kron$scale.hpg --backend cuda --devices 0 $w --out $A/$a-one.txt >"$OUT/$a-one.log" 2>&1
		timeout ${PAIR_T:-90} $H run $a $G/kron$scale.hpg --backend cuda --devices 1 $w --world 2 --rank 1 --coordinator 127.0.0.1:29611 >"$OUT/$a-rank1.log" 2>&1 &
		timeout ${PAIR_T:-90} $H run $a $G/kron$scale.hpg --backend cuda --devices 0 $w --world 2 --rank 0 --coordinator 127.0.0.1:29611 --out $A/$a-two.txt >"$OUT/$a-rank0.log" 2>&1
		wait
		if cmp -s $A/$a-one.txt $A/$a-two.txt; then echo "$a: identical"
		elif [ -s $A/$a-two.txt ]; then
			# (floating sums add up in another order over parts)
			paste -d' ' $A/$a-one.txt $A/$a-two.txt | awk -v a=$a '{ for (i = 1; i <= NF/2; i++) { x = $i; y = $(i + NF/2); d = x - y; if (d < 0) d = -d; m = (x < 0 ? -x : x); if (m > 0 && d / m > r) r = d / m } } END { printf "%s: differs, largest relative difference %.3g\n", a, r }'
		else echo "$a: NO ANSWER"; tail -n 5 $OUT/$a-rank0.log $OUT/$a-rank1.log; fi
		rm -f $A/$a-one.txt $A/$a-two.txt
		grep -h "time to answer\|^time:" $OUT/$a-one.log $OUT/$a-rank0.log | head -4
	done
}
# rows_pair: each app run by 2 processes of 1 GPU over NCCL that read
# only their rows of kron${scale}w (weighted in the file), then again
# with --read whole, each against 1 process on 1 GPU (--read rows: auto
# reads the whole file where a device runs).
rows_pair() {
	A=/tmp/hpgraph-answers
	mkdir -p $A
	g=$G/kron${scale}w.hpg
	[ -f $g ] || timeout 300 $H gen kron --scale $scale --weights random:1-64 -o $g >/dev/null
	for a in ${ALGOS:-bfs sssp pagerank pagerank-ldbc cc}; do
		timeout 60 $H run $a $g --backend cuda --devices 0 --out $A/$a-one.txt >"$OUT/rows-$a-one.log" 2>&1
		for how in rows whole; do
			x="--read $how"
			step "$a: 2 processes x 1 GPU, $how"
			timeout ${PAIR_T:-90} $H run $a $g --backend cuda --devices 1 $x --world 2 --rank 1 --coordinator 127.0.0.1:29612 >"$OUT/rows-$a-$how-rank1.log" 2>&1 &
			timeout ${PAIR_T:-90} $H run $a $g --backend cuda --devices 0 $x --world 2 --rank 0 --coordinator 127.0.0.1:29612 --out $A/$a-two.txt >"$OUT/rows-$a-$how-rank0.log" 2>&1
			wait
			if cmp -s $A/$a-one.txt $A/$a-two.txt; then echo "$a $how: identical"
			elif [ -s $A/$a-two.txt ]; then
				paste -d' ' $A/$a-one.txt $A/$a-two.txt | awk -v a="$a $how" '{ for (i = 1; i <= NF/2; i++) { x = $i; y = $(i + NF/2); d = x - y; if (d < 0) d = -d; m = (x < 0 ? -x : x); if (m > 0 && d / m > r) r = d / m } } END { printf "%s: differs, largest relative difference %.3g\n", a, r }'
			else echo "$a $how: NO ANSWER"; tail -n 5 $OUT/rows-$a-$how-rank0.log $OUT/rows-$a-$how-rank1.log; fi
			rm -f $A/$a-two.txt
			grep -h "time to answer" $OUT/rows-$a-$how-rank0.log
		done
		rm -f $A/$a-one.txt
		grep -h "time to answer" $OUT/rows-$a-one.log
	done
}
mode=${1:-one}
scale=${2:-}
case $mode in
one)
	scale=${scale:-21}
	graph 16
	for p in 2 3; do
		step "verify --backend cuda --parts $p"
		timeout 150 $H verify --backend cuda --parts $p $B/shared/tiny/* $B/shared/small/* $G/kron16.hpg >"$OUT/verify-parts$p.log" 2>&1
		verdict "verify parts $p" $? "$OUT/verify-parts$p.log"
	done
	graph "$scale"
	for p in 1 2; do
		step "bench kron$scale, one GPU, --parts $p"
		timeout 150 $H bench $G/kron$scale.hpg --backend cuda --parts $p --runs 5 --algo bfs,sssp,pagerank-iter,cc,tc >"$OUT/bench-one-parts$p.txt" 2>&1
		sed -n '/graph.*algo/,$p' "$OUT/bench-one-parts$p.txt" | head -12
	done
	;;
two)
	scale=${scale:-24}
	graph 16
	step "verify --backend cuda --devices 0,1"
	timeout 150 $H verify --backend cuda --devices 0,1 $B/shared/tiny/* $B/shared/small/* $G/kron16.hpg >"$OUT/verify-two.log" 2>&1
	verdict "verify two GPUs" $? "$OUT/verify-two.log"
	graph "$scale"
	for d in 0 0,1; do
		step "bench kron$scale --devices $d"
		timeout 200 $H bench $G/kron$scale.hpg --backend cuda --devices $d --runs 5 --algo bfs,sssp,pagerank-iter,cc,tc >"$OUT/bench-devices-$d.txt" 2>&1
		sed -n '/graph.*algo/,$p' "$OUT/bench-devices-$d.txt" | head -12
	done
	nccl_pair
	;;
scale)
	# Strong scaling at kron SCALE (default 26) and weak scaling, kron
	# SCALE+1 on 1 GPU against SCALE+2 on 2, the graphs made on the GPUs
	# (bench's kron: specs).
	scale=${scale:-26}
	for d in 0 0,1; do
		step "bench kron:$scale --devices $d"
		timeout 150 $H bench kron:$scale --backend cuda --devices $d --runs 5 --algo bfs,cc,tc >"$OUT/scale-$scale-$d.txt" 2>&1
		sed -n '/graph.*algo/,$p' "$OUT/scale-$scale-$d.txt" | head -8
		timeout 100 $H bench kron:$scale --backend cuda --devices $d --runs 5 --algo pagerank-iter --precision float32 >"$OUT/scale-$scale-$d-pr.txt" 2>&1
		sed -n '/graph.*algo/,$p' "$OUT/scale-$scale-$d-pr.txt" | head -4
	done
	for w in "$((scale + 1)):0" "$((scale + 2)):0,1"; do
		s=${w%%:*} d=${w#*:}
		step "weak scaling: bench kron:$s --devices $d"
		timeout 150 $H bench kron:$s --backend cuda --devices $d --runs 3 --algo bfs,pagerank-iter --precision float32 >"$OUT/weak-$s-$d.txt" 2>&1
		sed -n '/graph.*algo/,$p' "$OUT/weak-$s-$d.txt" | head -6
		grep -m2 "made on the GPU\|load" "$OUT/weak-$s-$d.txt"
	done
	;;
rows)
	scale=${scale:-22}
	rows_pair
	;;
nccl)
	scale=${scale:-20}
	graph "$scale"
	nccl_pair
	;;
esac
