#!/usr/bin/env bash
# make test's go test: every package, uncached (-count=1: the tests that
# read ../shared/datasets would otherwise hide behind the test cache when
# the data appears), then how many tests passed, failed and skipped, and
# every skipped test, grouped by why it skipped.
set -uo pipefail
GO=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
$GO test -count=1 -v ./... >"$log" 2>&1
rc=$?
# The packages' lines; on a failure the whole verbose log.
if [ $rc -eq 0 ]; then
	grep -E '^(ok|FAIL|\?)\s' "$log"
else
	cat "$log"
fi
pass=$(grep -cE -- '^\s*--- PASS' "$log")
fail=$(grep -cE -- '^\s*--- FAIL' "$log")
skip=$(grep -cE -- '^\s*--- SKIP' "$log")
if [ "$skip" -gt 0 ]; then
	echo "skipped tests, by reason (all $skip):"
	# A skip's reason is its test's log line: printed after the test's
	# "=== RUN" (or "=== CONT") line, or for a subtest that logs only at
	# its end, right after its "--- SKIP" line. Tests skipped for the same
	# reason (its text after file:line) are counted together, their names
	# listed.
	awk '{ line[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			if (line[i] ~ /^=== (RUN|CONT) /) { split(line[i], f, " "); cur = f[3]; continue }
			if (line[i] ~ /_test\.go:[0-9]+: / && cur != "") { why[cur] = line[i]; continue }
			if (line[i] !~ /--- SKIP: /) continue
			split(line[i], f, " ")
			r = why[f[3]]
			if (r == "" && i < NR && line[i+1] ~ /_test\.go:[0-9]+: /) r = line[i+1]
			sub(/^[ \t]+/, "", r)
			sub(/^[^ ]*_test\.go:[0-9]+: /, "", r)
			if (r == "") r = "(no reason logged)"
			if (!(r in count)) order[++reasons] = r
			count[r]++
			names[r] = names[r] (count[r] > 1 ? ", " : "") f[3]
		}
		for (k = 1; k <= reasons; k++) {
			r = order[k]
			printf "  %d: %s\n      %s\n", count[r], r, names[r]
		}
	}' "$log"
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
exit $rc
