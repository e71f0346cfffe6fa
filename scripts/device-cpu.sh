#!/usr/bin/env bash
# Issue 41 on the GPU machine's 16 cores: the CPU backend against GAP on
# the same graphs and cores, and the one-shot walls of --backend
# auto/cuda/cpu against GAP's -n1. Run from the repository root after
# `make gpu-bins` (bin/gpu/hpgraph) with GAP's sources in .peers/gapbs,
# built there with make (never committed). Every step runs under timeout;
# the whole takes under 8 minutes; logs go to $OUT (summary.txt is the
# table, one line a row: "graph algo threads hpgraph_ms gap_ms ratio").
#
#   kron21, urand21 (GAP's -g21, -u21: the same edge sets as hpgraph gen),
#   grid1000 (hpgraph's grid, converted for GAP through an edge list);
#   sssp on the same weights, random 1-64 (hpgraph's, written as .wel);
#   bfs and sssp from GAP's sources (--src gap:16, GAP -n16), per query
#   medians; pagerank: one iteration (bench pagerank-iter, the default
#   float32 contributions, and pagerank-ldbc's 10 over 10; GAP pr -i10 -t0
#   over 10, float; float64 contributions against GAP's pr built with
#   double scores, pr-iter64-d); cc; tc (bench: hpgraph's PREPROCESS, the orientation, is not
#   in its time; GAP's relabelling is in GAP's). hpgraph runs unrelabelled
#   (--relabel none) where GAP does not relabel; tc as bench chooses.
#   Threads: GOMAXPROCS for hpgraph, OMP_NUM_THREADS for GAP; 16 and 1
#   (TLIST: others).
#   ROUNDS=N: each row's hpgraph and GAP processes alternate N times and
#   the row is the median of their values (this host's noise is between
#   processes: one process's median of 16 queries moved 1.5x from one
#   process to the next in session 34; the baselines' rows run once).
#   A shorter call: ROWS (of bfs sssp pr cc tc), GRAPHS_LIST, WALLS=0; H0
#   and H1 add baseline binaries' rows (an A/B of PageRank and CC:
#   ROWS="pr cc" GRAPHS_LIST=kron21 WALLS=0 H0=... H1=...).
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-device-cpu}
H=${H:-bin/gpu/hpgraph}
H0=${H0:-} # a baseline hpgraph (main's, say): its BFS, SSSP, PageRank and CC rows too ("bfs-H0", ...)
H1=${H1:-} # a second one (another commit's): its PageRank and CC rows ("pr-iter-H1", ...)
ROWS=${ROWS:-bfs sssp pr cc tc} # the rows to run (a subset: a shorter call)
SSSP_VARIANTS=${SSSP_VARIANTS:-} # sssp rows with other arguments: "ARGS;ARGS;..."
GRAPHS_LIST=${GRAPHS_LIST:-} # the graphs (default: kron$SCALE urand$SCALE grid1000)
WALLS=${WALLS:-1} # 0: no one-shot walls
PROFILE=${PROFILE:-0} # 1: a CPU profile of bfs, cc and pagerank-iter at the end (cpu-profile.pprof)
P=${P:-.peers/gapbs}
G=${G:-/tmp/hpgraph-graphs}
BUDGET=${BUDGET:-470} # seconds: steps past it are skipped
S=${SCALE:-21}        # (a smaller SCALE tries the script out on a small machine)
HI=${THREADS:-16}
TLIST=${TLIST:-"$HI 1"} # the thread counts the rows run at
ROUNDS=${ROUNDS:-1}     # alternations of each row's hpgraph and GAP processes
mkdir -p "$OUT" "$G"
T0=$SECONDS
step() { echo "== $* ($(date +%T), $((SECONDS - T0)) s)" | tee -a "$OUT/steps.log"; }
left() { [ $((SECONDS - T0)) -lt "$BUDGET" ] || { echo "(budget spent: skipping $*)" | tee -a "$OUT/steps.log"; return 1; }; }
med() { sort -g | awk '{a[NR]=$1} END { if (NR == 0) print "NA"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2 }'; }
gapms() { grep 'Trial Time' | awk -v d="${1:-1}" '{print $3*1000/d}' | med; } # GAP's trials, median ms (over d)
# ab HCMD XCMD: the medians of ROUNDS alternating runs of two commands
# (strings, each printing one number), "h x".
ab() {
	local hs=() xs=() i
	for ((i = 0; i < ROUNDS; i++)); do
		hs+=("$(eval "$1")")
		xs+=("$(eval "$2")")
	done
	echo "$(printf '%s\n' "${hs[@]}" | med) $(printf '%s\n' "${xs[@]}" | med)"
}
row() { # graph algo threads hpgraph gap
	awk -v g="$1" -v a="$2" -v t="$3" -v h="$4" -v x="$5" 'BEGIN { r = (h+0 > 0 && x+0 > 0) ? sprintf("%.2f", h/x) : "NA"; printf "%-9s %-8s %2s  hpgraph %9s ms  gap %9s ms  ratio %s\n", g, a, t, h, x, r }' | tee -a "$OUT/summary.txt"
}
[ -x "$H" ] || { echo "no $H: run make gpu-bins"; exit 1; }
[ -z "$H0" ] || [ -x "$H0" ] || { echo "no baseline $H0"; exit 1; }
[ -z "$H1" ] || [ -x "$H1" ] || { echo "no baseline $H1"; exit 1; }
GRAPHS_LIST=${GRAPHS_LIST:-kron$S urand$S grid1000}
has() { [[ " $ROWS " == *" $1 "* ]]; }
on() { [[ " $GRAPHS_LIST " == *" $1 "* ]]; }
[ -x "$P/bfs" ] || { echo "no GAP binaries in $P: copy GAP's sources there and run make in it"; exit 1; }
# GAP's pr keeps float scores; pr64 is the same source with double
# scores, against which hpgraph's float64 PageRank row is like for like
# (the row "pr-iter64-d"). Built here, never kept.
if has pr && [ ! -x "$P/pr64" ] && [ -f "$P/src/pr.cc" ]; then
	sed 's/^typedef float ScoreT;/typedef double ScoreT;/' "$P/src/pr.cc" >"$P/src/pr64.cc" &&
		grep -q '^typedef double ScoreT;' "$P/src/pr64.cc" &&
		timeout 120 g++ -std=c++11 -O3 -Wall -fopenmp "$P/src/pr64.cc" -o "$P/pr64" >>"$OUT/gen.log" 2>&1 ||
		echo "pr64: not built (GAP's pr.cc changed?)" | tee -a "$OUT/steps.log"
fi
nproc; $H version | head -3
: >"$OUT/summary.txt"

step "graphs"
on kron$S && [ ! -f $G/kron$S.hpg ] && timeout 60 $H gen kron --scale $S -o $G/kron$S.hpg >>"$OUT/gen.log" 2>&1
on urand$S && [ ! -f $G/urand$S.hpg ] && timeout 60 $H gen uniform --scale $S -o $G/urand$S.hpg >>"$OUT/gen.log" 2>&1
on grid1000 && [ ! -f $G/grid1000.hpg ] && timeout 30 $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg >>"$OUT/gen.log" 2>&1
on kron$S && [ ! -f $G/kron$S.sg ] && timeout 90 $P/converter -g$S -b $G/kron$S.sg >>"$OUT/gen.log" 2>&1
on urand$S && [ ! -f $G/urand$S.sg ] && timeout 90 $P/converter -u$S -b $G/urand$S.sg >>"$OUT/gen.log" 2>&1
if on grid1000 && [ ! -f $G/grid1000.sg ]; then
	timeout 30 $H convert $G/grid1000.hpg $G/grid1000.el --relabel none >>"$OUT/gen.log" 2>&1
	grep -v '^#' $G/grid1000.el >$G/grid1000-gap.el && timeout 60 $P/converter -f $G/grid1000-gap.el -s -b $G/grid1000.sg >>"$OUT/gen.log" 2>&1
	rm -f $G/grid1000.el $G/grid1000-gap.el
fi
# The same random weights 1-64 for both: hpgraph's, as an edge list.
for g in kron$S urand$S grid1000; do
	has sssp || break
	on $g || continue
	[ -f $G/$g.w.hpg ] && [ -f $G/$g.wsg ] && continue
	left "weights of $g" || break
	timeout 90 $H convert $G/$g.hpg $G/$g.w.el --weights random:1-64 --relabel none >>"$OUT/gen.log" 2>&1
	timeout 60 $H convert $G/$g.w.el $G/$g.w.hpg --weights keep --relabel none >>"$OUT/gen.log" 2>&1
	grep -v '^#' $G/$g.w.el >$G/$g.wel && timeout 120 $P/converter -f $G/$g.wel -s -wb $G/$g.wsg >>"$OUT/gen.log" 2>&1
	rm -f $G/$g.w.el $G/$g.wel
done
ls -la $G >>"$OUT/gen.log"

# hpgraph's per-query median (run --src gap:16) and bench's median.
hpq() { grep 'per query median' | sed 's/.*median \([0-9.]*\).*/\1/'; }
hpb() { grep 'cpu: median' | sed 's/.*median \([0-9.]*\).*/\1/'; }
for t in $TLIST; do
	export GOMAXPROCS=$t OMP_NUM_THREADS=$t
	for g in $GRAPHS_LIST; do
		left "$g at $t threads" || break 2
		step "$g, $t threads"
		log="$OUT/$g-t$t.log"
		if has bfs; then
			read -r h x < <(ab "timeout 120 $H run bfs $G/$g.hpg --src gap:16 --runs 3 --backend cpu --relabel none 2>&1 | tee -a $log | hpq" \
				"timeout 60 $P/bfs -f $G/$g.sg -n16 2>&1 | tee -a $log | gapms")
			row $g bfs $t "$h" "$x"
		fi
		if has bfs && [ -n "$H0" ]; then # (the same rows with a baseline binary: before/after)
			h=$(timeout 120 $H0 run bfs $G/$g.hpg --src gap:16 --runs 3 --backend cpu --relabel none 2>&1 | tee -a "$log" | hpq)
			row $g bfs-H0 $t "$h" "$x"
		fi
		if has sssp && [ -f $G/$g.w.hpg ]; then
			n=16; [ "$t" = 1 ] && n=4
			read -r h x < <(ab "timeout 150 $H run sssp $G/$g.w.hpg --weights keep --src gap:$n --backend cpu --relabel none 2>&1 | tee -a $log | hpq" \
				"timeout 150 $P/sssp -f $G/$g.wsg -n$n -d2 2>&1 | tee -a $log | gapms")
			row $g sssp $t "$h" "$x"
			# (a baseline's row; other settings' rows, SSSP_VARIANTS: each
			# ';'-separated set of arguments a row, e.g. "--delta 32;--delta
			# 32 --direction push"; and one query's supersteps, -v, to the log)
			if [ -n "$H0" ]; then
				h=$(timeout 150 $H0 run sssp $G/$g.w.hpg --weights keep --src gap:$n --backend cpu --relabel none 2>&1 | tee -a "$log" | hpq)
				row $g sssp-H0 $t "$h" "$x"
			fi
			IFS=';' read -ra vs <<<"$SSSP_VARIANTS"
			for v in "${vs[@]}"; do
				h=$(timeout 150 $H run sssp $G/$g.w.hpg --weights keep --src gap:$n --backend cpu --relabel none $v 2>&1 | tee -a "$log" | hpq)
				row $g "sssp[${v// /}]" $t "$h" "$x"
			done
			echo "== one query's supersteps (-v)" >>"$log"
			timeout 60 $H run sssp $G/$g.w.hpg --weights keep --src gap:1 --backend cpu --relabel none -v >>"$log" 2>&1
		fi
		if has pr; then
			xpr="timeout 90 $P/pr -f $G/$g.sg -i10 -t0 -n3 2>&1 | tee -a $log | gapms 10"
			# (each binary's rows, the baselines' named after them, once)
			for b in H H0 H1; do
				[ -n "${!b}" ] || continue
				sfx=-$b; [ $b = H ] && sfx=""
				r=$ROUNDS; [ $b = H ] || ROUNDS=1
				# (the default, float32 contributions, as GAP's pr keeps its
				# scores: the issue's row, like for like)
				read -r h x < <(ab "timeout 90 ${!b} bench $G/$g.hpg --backend cpu --algo pagerank-iter --relabel none --runs 5 2>&1 | tee -a $log | hpb" "$xpr")
				row $g pr-iter$sfx $t "$h" "$x"
				# (float64 contributions against GAP's pr with double
				# scores, pr64, built here from GAP's source: like for like)
				if [ $b = H ] && [ -x $P/pr64 ]; then
					read -r h x < <(ab "timeout 90 ${!b} bench $G/$g.hpg --backend cpu --algo pagerank-iter --precision float64 --relabel none --runs 5 2>&1 | tee -a $log | hpb" \
						"timeout 90 $P/pr64 -f $G/$g.sg -i10 -t0 -n3 2>&1 | tee -a $log | gapms 10")
					row $g pr-iter64-d $t "$h" "$x"
				fi
				# (and ten LDBC iterations over ten, as GAP's row is: Init's
				# pass then counts a tenth, and the LDBC sinks' mass is in)
				read -r h x < <(ab "timeout 90 ${!b} bench $G/$g.hpg --backend cpu --algo pagerank-ldbc --iterations 10 --relabel none --runs 3 2>&1 | tee -a $log | hpb" "$xpr")
				row $g pr-10th$sfx $t "$(awk -v h="$h" 'BEGIN { if (h != "") printf "%.3f", h / 10 }')" "$x"
				ROUNDS=$r
			done
		fi
		if has cc; then
			for b in H H0 H1; do
				[ -n "${!b}" ] || continue
				sfx=-$b; [ $b = H ] && sfx=""
				r=$ROUNDS; [ $b = H ] || ROUNDS=1
				read -r h x < <(ab "timeout 60 ${!b} bench $G/$g.hpg --backend cpu --algo cc --relabel none --runs 5 2>&1 | tee -a $log | hpb" \
					"timeout 60 $P/cc -f $G/$g.sg -n5 2>&1 | tee -a $log | gapms")
				row $g cc$sfx $t "$h" "$x"
				ROUNDS=$r
			done
		fi
		if has tc && { [ "$t" = "$HI" ] || [ $g != kron$S ]; }; then # (kron21's on one core: a minute each)
			h=$(timeout 120 $H bench $G/$g.hpg --backend cpu --algo tc --runs 2 2>&1 | tee -a "$log" | hpb)
			x=$(timeout 120 $P/tc -f $G/$g.sg -n2 2>&1 | tee -a "$log" | gapms)
			row $g tc $t "$h" "$x"
		fi
	done
done
unset GOMAXPROCS OMP_NUM_THREADS

# One-shot walls, fresh processes, kron21: spawn to exit.
wall() { # seconds of one command, its output appended to $OUT/answer.log
	local t0=$EPOCHREALTIME
	"$@" >>"$OUT/answer.log" 2>&1
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}
walls() { # label, then the command: the median of 3 walls
	local label=$1 w
	shift
	w=$(for i in 1 2 3; do wall timeout 60 "$@"; done | med)
	printf "%-44s %s s\n" "$label" "$w" | tee -a "$OUT/summary.txt"
}
if [ "$WALLS" != 0 ] && left "one-shot walls"; then
	step "one-shot walls, kron$S (median of 3 fresh processes)"
	$H run bfs $G/kron$S.hpg --backend cuda >/dev/null 2>&1 # (kernel caches filled once)
	for a in bfs cc sssp pagerank-ldbc tc; do
		left "walls of $a" || break
		w=""
		[ "$a" = sssp ] && w="--weights random:1-64"
		for b in auto cuda cpu; do
			# shellcheck disable=SC2086
			walls "hpgraph run $a --backend $b" $H run $a $G/kron$S.hpg --backend $b $w
		done
		grep -E '^[a-z-]+ on .*backend' "$OUT/answer.log" | tail -3 | sed 's/^/    /' | tee -a "$OUT/summary.txt"
	done
	walls "gap bfs -n1" $P/bfs -f $G/kron$S.sg -n1
	walls "gap cc -n1" $P/cc -f $G/kron$S.sg -n1
	walls "gap sssp -n1 -d2 (weights 1-64)" $P/sssp -f $G/kron$S.wsg -n1 -d2
	walls "gap pr -n1" $P/pr -f $G/kron$S.sg -n1
	left "gap tc" && walls "gap tc -n1" $P/tc -f $G/kron$S.sg -n1
fi
if [ "${PROFILE:-0}" != 0 ] && left "profile"; then
	# A CPU profile of the rows' apps on every core (HPGRAPH_CPUPROFILE),
	# for `go tool pprof bin/gpu/hpgraph cpu-profile.pprof` here: alone in
	# $OUT, so that it comes back whatever else the call wrote.
	step "a $HI-thread CPU profile of bfs, cc and pagerank-iter on kron$S"
	GOMAXPROCS=$HI HPGRAPH_CPUPROFILE="$OUT/cpu-profile.pprof" timeout 90 "$H" bench "$G/kron$S.hpg" --backend cpu --runs 20 \
		--algo bfs,cc,pagerank-iter >"$OUT/profile.log" 2>&1 || echo "profile: exit $?" | tee -a "$OUT/steps.log"
fi
step "done"
cat "$OUT/summary.txt"
