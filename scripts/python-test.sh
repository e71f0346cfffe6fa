#!/usr/bin/env bash
# make python-test: the Python package's tests (python/tests) against a
# real `hpgraph serve` on loopback (the CPU backend), with Debian's
# python3 and what the tests need from Debian (pytest, networkx with
# numpy and scipy), installed with apt-get where missing. networkx 2.8.8
# (Debian 12) has no backend dispatching: the tests of dispatching skip
# and say so; the backend's functions are still compared with networkx's.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
BIN=${HPGRAPH_BIN:-$PWD/bin/hpgraph}
if [ -z "$PY" ]; then
	echo "python-test: no python3 (apt-get install python3)" >&2
	exit 1
fi
missing=()
for m in pytest:python3-pytest networkx:python3-networkx numpy:python3-numpy scipy:python3-scipy; do
	"$PY" -c "import ${m%%:*}" 2>/dev/null || missing+=("${m#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "python-test: installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		echo "python-test: missing ${missing[*]} for $PY (apt-get install ${missing[*]})" >&2
		exit 1
	fi
fi
[ -x "$BIN" ] || { echo "python-test: no $BIN (make build)" >&2; exit 1; }
cd python
HPGRAPH_BIN=$BIN PYTHONDONTWRITEBYTECODE=1 exec "$PY" -m pytest -q -rs -p no:cacheprovider tests
