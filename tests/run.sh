#!/usr/bin/env bash
# tests/run.sh - run every unit test (build/tests/u-*) and end-to-end test (tests/e2e/t*.sh).
# Each prints "PASS name", "FAIL name" or "SKIP name: why" lines; a test program that exits
# non-zero without printing FAIL counts as one failure.  Ends with "N passed, N failed, N skipped".
# Usage: tests/run.sh [PATTERN]   (only tests whose file name contains PATTERN)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export SONDE_TOP=$top
export SONDE_BUILD=${SONDE_BUILD:-$top/build}
export SONDE=$SONDE_BUILD/sonde
pattern=${1:-}
logdir=$SONDE_BUILD/test-logs
rm -rf "$logdir" && mkdir -p "$logdir"
pass=0 fail=0 skip=0
failed_names=()

run_one() {
	local name=$1; shift
	local log=$logdir/$name.log
	local start=$SECONDS
	timeout -k 10 "${SONDE_TEST_TIMEOUT:-300}" "$@" >"$log" 2>&1
	local rc=$?
	local p f s
	p=$(grep -c '^PASS ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	s=$(grep -c '^SKIP ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited with status $rc" >>"$log"
		f=1
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "FAIL $name: reported no result" >>"$log"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	printf '%-44s %3d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - start))
	grep -E '^(FAIL|SKIP) ' "$log" | sed 's/^/    /'
	if [ "$f" -ne 0 ]; then
		failed_names+=("$name")
		# the first 100 lines other than PASS and SKIP: a check's own evidence (the
		# comm tests print the matrices of a failed check) comes after its test's
		# earlier PASS lines
		grep -v -E '^(PASS|SKIP) ' "$log" | sed -n '1,100p' | sed 's/^/    | /'
	fi
}

for t in "$SONDE_BUILD"/tests/u-*; do
	[ -x "$t" ] || continue
	n=$(basename "$t")
	case "$n" in *"$pattern"*) ;; *) continue ;; esac
	run_one "$n" "$t"
done
for t in "$top"/tests/e2e/t*.sh; do
	[ -f "$t" ] || continue
	n=$(basename "$t" .sh)
	case "$n" in *"$pattern"*) ;; *) continue ;; esac
	run_one "$n" bash "$t"
done

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]} (logs in build/test-logs/)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
