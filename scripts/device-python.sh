#!/usr/bin/env bash
# Issue 40 on a GPU machine: the Python package and its networkx backend,
# from the repository root with bin/gpu/hpgraph built (`make gpu-bins`;
# no Go, no internet there; networkx 3.3+ and pytest installed). Every
# step is bounded by `timeout`; logs and JSON go to $OUT:
#   install.log     how the package was installed (pip, else a generated
#                   entry-point dist-info on PYTHONPATH)
#   package.log     python/tests against a private server on the GPU
#   nx-suite.log    networkx's own suite with the backend
#                   (NETWORKX_TEST_BACKEND=hpgraph NETWORKX_FALLBACK_TO_NX=True),
#                   its test files dealt into NX_SHARDS pytests run at once
#                   (nproc - 2; nx-suiteN.log each), up to NX_SUITE_LIMIT s (400),
#                   its server on $NX_SUITE_BACKEND (cpu by default: the
#                   suite makes ~330,000 dispatched calls on graphs of a few
#                   nodes, round trips rather than GPU work; the package's
#                   tests and nx_compare check the answers on the GPU);
#                   nx-dispatch.json: tests that ran dispatched, calls by
#                   function, failed tests
#   nx-recheck.log  the suite's failures rerun without the backend: those
#                   that pass there are the backend's
#   compare.log     each dispatched function against networkx's answer on
#                   datasets/testdata and kron/urand graphs (nx_compare.json)
#   later.log       later calls alone (nx_later.json, tools/nx_later.py):
#                   single_source_shortest_path_length and
#                   connected_components, each split into the server's
#                   part and Python's, against CPython's floor for the
#                   same dict and sets
#   timing.log      the issue's timings on a kron graph of ~10 M edges
#                   (nx_timing.json): networkx against the backend's first
#                   call, later calls (the answer kept) and a call whose
#                   answer is not kept, each split into its phases
#                   (conversion, upload with the server's load, query with
#                   its compute, the rest: the answer's Python objects),
#                   and an upload with relabel none against auto; a table
#                   at its end, printed here too
#   workers.log     with WORKERS (e.g. 1,8): first calls of
#                   single_source_shortest_path_length with the conversion
#                   in each number of processes (HPGRAPH_WORKERS),
#                   interleaved, 4 rounds (nx_workers.json)
# Usage: scripts/device-python.sh [TIMING_SCALE [TIMING_DEGREE]]  (20 10)
# NX_SUITE=0 leaves networkx's suite out, LATER=0 the later calls' split; TIMING_ONLY=1 runs only the
# environment, the install and the timings (about 5 minutes at scale 20).
# HPGRAPH_RELABEL=auto has the backend's uploads renumbered by the server
# (none by default). The steps' limits below add up to 19 minutes
# (networkx's suite is stopped with SIGINT at its limit, so that it still
# reports): under a 10-minute limit, run `TIMING_ONLY=1
# scripts/device-python.sh` and `scripts/device-python.sh 0` (scale 0: no
# timings) as two commands.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/hpgraph-python}
BIN=${HPGRAPH_BIN:-$PWD/bin/gpu/hpgraph}
PY=${PYTHON:-python3}
SCALE=${1:-20}
NX_SHARDS=${NX_SHARDS:-$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))}
NX_SUITE_LIMIT=${NX_SUITE_LIMIT:-400}
DEGREE=${2:-10}
mkdir -p "$OUT"
step() { echo "== $* ($(date +%T))"; }
[ -x "$BIN" ] || { echo "no $BIN: run make gpu-bins and carry bin/"; exit 1; }
export HPGRAPH_BIN=$BIN HPGRAPH_BACKEND=${HPGRAPH_BACKEND:-auto} HPGRAPH_TEST_BACKEND=${HPGRAPH_TEST_BACKEND:-auto}
export PYTHONDONTWRITEBYTECODE=1

step "environment"
{
	$PY --version
	$PY -c 'import networkx, pytest; print("networkx", networkx.__version__, "pytest", pytest.__version__)'
	$PY -c 'import numpy, scipy; print("numpy", numpy.__version__, "scipy", scipy.__version__)' ||
		echo "numpy or scipy missing: networkx's test mode and its pagerank need both"
	timeout 20 "$BIN" version
	nvidia-smi -L 2>/dev/null
} 2>&1 | tee "$OUT/env.log"

step "install"
SITE=$(mktemp -d /tmp/hpgraph-site.XXXX)
if timeout 120 $PY -m pip install --no-deps --no-build-isolation --no-index --target "$SITE" ./python >"$OUT/install.log" 2>&1; then
	echo "installed with pip --target $SITE" | tee -a "$OUT/install.log"
else
	# No build backend there: the package as it is, and a dist-info that
	# carries its entry points (importlib.metadata reads it from PYTHONPATH).
	cp -r python/hpgraph "$SITE/"
	mkdir -p "$SITE/hpgraph-0.1.0.dist-info"
	printf 'Metadata-Version: 2.1\nName: hpgraph\nVersion: 0.1.0\n' >"$SITE/hpgraph-0.1.0.dist-info/METADATA"
	printf '[networkx.backends]\nhpgraph = hpgraph.networkx_backend:BackendInterface\n\n[networkx.backend_info]\nhpgraph = hpgraph._nx_info:get_info\n' \
		>"$SITE/hpgraph-0.1.0.dist-info/entry_points.txt"
	echo "pip failed (above); installed as files with a generated dist-info in $SITE" | tee -a "$OUT/install.log"
fi
export PYTHONPATH=$SITE:$PWD/python/tools
$PY -c 'import networkx as nx; assert "hpgraph" in nx.utils.backends.backends, "entry point not found"; print("backend found:", nx.utils.backends.backend_info["hpgraph"]["short_summary"])' 2>&1 |
	tee -a "$OUT/install.log" || exit 1

if [ "${TIMING_ONLY:-0}" != 1 ]; then
step "the package's tests (server on $HPGRAPH_TEST_BACKEND)"
(cd python && timeout 90 $PY -m pytest -q -rs -p no:cacheprovider tests) >"$OUT/package.log" 2>&1
echo "exit $?: $(tail -1 "$OUT/package.log")"

if [ "${NX_SUITE:-1}" = 1 ]; then
step "networkx's test suite with the backend, in $NX_SHARDS shards"
if ! $PY -c 'import scipy.sparse as s; s.sparray' >/dev/null 2>&1; then
	# (an older scipy, Debian 12's 1.10, lacks scipy.sparse.sparray, which
	# networkx 3.6's test harness imports for isinstance checks alone: an
	# empty class lets the suite run off the GPU host too)
	mkdir -p "$OUT/sparray-shim"
	printf '%s\n' 'import scipy.sparse as _s' 'if not hasattr(_s, "sparray"):' '    _s.sparray = type("sparray", (), {})' >"$OUT/sparray-shim/sitecustomize.py"
	export PYTHONPATH=$OUT/sparray-shim:$PYTHONPATH
	echo "scipy has no sparray: the suite runs with an empty stand-in for it ($OUT/sparray-shim)"
fi
NXDIR=$($PY -c 'import networkx, os; print(os.path.dirname(os.path.dirname(networkx.__file__)))')
# The suite makes ~600,000 dispatched calls, each a round trip to a private
# server: one pytest holds ~5 tests/s and the whole suite does not fit one
# 10-minute call. Its test files are dealt into shards by size (largest
# first, each to the lightest shard), one pytest and one server each.
(cd "$NXDIR" && find networkx -name 'test_*.py' -o -name '*_test.py' | xargs wc -c | grep -v ' total$' | sort -rn |
	awk -v n="$NX_SHARDS" -v out="$OUT/nx-shard" '{ b = 0; for (i = 1; i < n; i++) if (w[i] < w[b]) b = i; w[b] += $1; print $2 > (out b ".files") }')
for f in "$OUT"/nx-shard*.files; do
	i=${f%.files}; i=${i##*nx-shard}
	(cd "$NXDIR" && GOMAXPROCS=1 HPGRAPH_BACKEND=${NX_SUITE_BACKEND:-cpu} NETWORKX_TEST_BACKEND=hpgraph NETWORKX_FALLBACK_TO_NX=True \
		HPGRAPH_DISPATCH_JSON=$OUT/nx-dispatch$i.json timeout -s INT -k 20 "$NX_SUITE_LIMIT" \
		$PY -m pytest $(cat "$f") -q -rfE --durations=10 -p no:cacheprovider -p nx_dispatch_count) >"$OUT/nx-suite$i.log" 2>&1 &
done
wait
$PY - "$OUT" <<'PYEOF' >"$OUT/nx-suite.log" 2>&1
import collections, glob, json, sys
out = sys.argv[1]
calls, merged = collections.Counter(), {"failed": [], "xfailed": [], "dispatched": []}
totals = collections.Counter()
for path in sorted(glob.glob(out + "/nx-dispatch[0-9]*.json")):
    d = json.load(open(path))
    calls.update(d["calls"])
    for k in merged:
        merged[k] += d[k]
    totals.update(d.get("outcomes", {}))
    log = open(path.replace("nx-dispatch", "nx-suite").replace(".json", ".log"), errors="replace").read()
    if "KeyboardInterrupt" in log:
        totals["shards stopped at the limit"] += 1
reports = len(glob.glob(out + "/nx-dispatch[0-9]*.json"))
totals["shards"] = len(glob.glob(out + "/nx-shard*.files"))
totals["shards without a report"] = totals["shards"] - reports
merged["calls"], merged["tests_dispatched"] = dict(calls), len(merged["dispatched"])
json.dump(merged, open(out + "/nx-dispatch.json", "w"), indent=1)
print(f"hpgraph: {len(merged['dispatched'])} tests ran dispatched calls; {sum(calls.values())} calls: {dict(calls)}")
print("whole suite:", dict(totals))
PYEOF
echo "$(tail -2 "$OUT/nx-suite.log" | tr '\n' ' ')"

step "its failures without the backend"
(cd "$NXDIR" && timeout 45 $PY -c '
import json, sys, pytest
failed = json.load(open(sys.argv[1]))["failed"]
if not failed:
    print("no failures with the backend")
    sys.exit(0)
print(len(failed), "failed with the backend; without it:")
sys.exit(pytest.main(["-q", "-rfE", "-p", "no:cacheprovider", *failed]))' "$OUT/nx-dispatch.json") >"$OUT/nx-recheck.log" 2>&1
echo "exit $? (1: some fail without the backend too; those that pass are the backend's): $(tail -1 "$OUT/nx-recheck.log")"
fi

step "each dispatched function against networkx"
timeout 90 $PY python/tools/nx_compare.py --bin "$BIN" --out "$OUT" --scale 13 >"$OUT/compare.log" 2>&1
echo "exit $?: $(tail -1 "$OUT/compare.log")"
fi

step "timings on kron scale $SCALE degree $DEGREE"
# (the graph read into networkx ~30 s; networkx's four calls ~60 s on
# the H200 machine at scale 20, the backend's ~30 s)
timeout 270 $PY python/tools/nx_compare.py --bin "$BIN" --out "$OUT/timing" --scale 6 --timing-scale "$SCALE" --timing-degree "$DEGREE" \
	>"$OUT/timing.log" 2>&1
echo "exit $?"
grep -vE '^(ok |BAD |[a-z_]+ \{)' "$OUT/timing.log"
cp "$OUT/timing/nx_timing.json" "$OUT/" 2>/dev/null

if [ -n "${WORKERS:-}" ]; then
step "first calls on kron scale $SCALE, the conversion in $WORKERS processes"
# (the graph read again ~30 s, networkx's BFS ~5 s, 4 rounds of ~3 s a setting)
timeout 180 $PY python/tools/nx_workers.py --bin "$BIN" --out "$OUT/timing" --scale "$SCALE" --degree "$DEGREE" \
	--workers "$WORKERS" --rounds 4 >"$OUT/workers.log" 2>&1
echo "exit $?"
sed -n '/^networkx /,$p' "$OUT/workers.log"
cp "$OUT/timing/nx_workers.json" "$OUT/" 2>/dev/null
fi

if [ "${LATER:-1}" = 1 ]; then
step "later calls on kron scale $SCALE: the server's part and Python's, and Python's floor"
# (the graph read again ~30 s, networkx's two calls ~15 s, 7 rounds of ours)
timeout 240 $PY python/tools/nx_later.py --bin "$BIN" --out "$OUT/timing" --scale "$SCALE" --degree "$DEGREE" --rounds 7 \
	>"$OUT/later.log" 2>&1
echo "exit $?"
tail -4 "$OUT/later.log"
cp "$OUT/timing/nx_later.json" "$OUT/" 2>/dev/null
fi
rm -rf "$SITE" "$OUT/timing"/*.el "$OUT"/*.el
