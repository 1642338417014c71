#!/bin/sh
# busy.sh runs the kill tests (those of kills_test.go, crash_test.go,
# weekly_crash_test.go, articles_test.go and workers_test.go) N
# times (default 20) with both cores of a small machine kept busy by two
# spinning shells, and says how many runs passed and how long they took.
# Run from the repository's root:
#
#	sh e2e/testdata/busy.sh [N] [PATTERN]
#
# The burners are stopped however the tests end (interrupt included).
set -u
count=${1:-20}
pattern=${2:-'Kill|Crash|TestInterruptedRunStopsCleanly|TestFullDiskBlamesNoFeed'}
burners=""
stop() {
	for pid in $burners; do kill "$pid" 2>/dev/null; done
	burners=""
}
trap stop EXIT
trap 'stop; exit 130' INT TERM
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	burners="$burners $!"
done
log=$(mktemp)
start=$(date +%s)
go test -count="$count" -timeout 6h -v -run "$pattern" ./e2e/ >"$log" 2>&1
status=$?
took=$(($(date +%s) - start))
stop
# One line per top-level test run: "--- PASS: TestX" or "--- FAIL: TestX".
passed=$(grep -c '^--- PASS' "$log")
failed=$(grep -c '^--- FAIL' "$log")
grep '^--- FAIL' "$log"
echo "top-level kill tests: $passed passed, $failed failed, in $count runs; ${took}s; log $log"
exit $status
