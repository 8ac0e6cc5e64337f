#!/usr/bin/env bash
# bench/mem.sh - overhead of `sonde mem` (clock source, default rate) on a memory-bound
# workload, measured side by side in one run: native and profiled runs alternate, and each
# pair gives a ratio; the median ratio is printed.  Targets (issue 2): time <= 1.10x,
# peak memory <= 1.10x, >= 1000 samples/s per busy thread.  Prints; never fails on numbers.
#   bench/mem.sh [PAIRS]     (default 5)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
pairs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog=$B/workloads/membound
[ -x "$prog" ] || { echo "bench: $prog not built (make bench builds it)" >&2; exit 1; }

# measure OUT CMD...: append "elapsed user sys maxrss_kb" of CMD's program to OUT
TIMEFMT='%e %U %S %M'

. "$top/bench/lib.sh"

echo "bench: membound, $pairs alternating pairs (native, sonde mem --source clock)"
: >"$work/ratios"
for i in $(seq 1 "$pairs"); do
	/usr/bin/time -f "$TIMEFMT" -o "$work/n.$i" "$prog" >/dev/null
	rm -rf "$work/p.$i"
	"$B/sonde" mem -q --source clock -o "$work/p.$i" -- /usr/bin/time -f "$TIMEFMT" -o "$work/s.$i" "$prog" >/dev/null
	read -r ne nu ns nm <"$work/n.$i"
	read -r se su ss sm <"$work/s.$i"
	samples=$(sqlite3 "$work/p.$i/profile.db" "select value from meta where key='samples'" 2>/dev/null || echo 0)
	awk -v ne="$ne" -v se="$se" -v nm="$nm" -v sm="$sm" -v nu="$nu" -v ns="$ns" \
		-v su="$su" -v ss="$ss" -v n="${samples:-0}" 'BEGIN { nc = nu + ns; sc = su + ss
		printf "%s %s %s %s %s %s\n", se / ne, sm / nm, (n > 0 ? (sc - nc) * 1e6 / n : 0), (su > 0 ? n / su : 0), n, (sc > 0 ? n / sc : 0) }' >>"$work/ratios"
	printf '  pair %d: native %ss %sKB, sonde %ss %sKB, %s samples\n' "$i" "$ne" "$nm" "$se" "$sm" "$samples"
done
t=$(awk '{print $1}' "$work/ratios" | median)
m=$(awk '{print $2}' "$work/ratios" | median)
c=$(awk '{print $3}' "$work/ratios" | median)
r=$(awk '{print $4}' "$work/ratios" | median)
r2=$(awk '{print $6}' "$work/ratios" | median)
printf 'sonde mem (clock) time ratio       %s  (target <= 1.10)\n' "$t"
printf 'sonde mem (clock) peak memory ratio %s  (target <= 1.10)\n' "$m"
printf 'per-sample cost                    %s us of CPU\n' "$c"
printf 'samples per user-CPU second        %s  (target >= 1000; cpu-clock samples user mode only)\n' "$r"
printf 'samples per CPU second (user+sys)  %s\n' "$r2"

# The whole command, report building included, for the record.
/usr/bin/time -f '%e %M' -o "$work/whole" "$B/sonde" mem -q --source clock -o "$work/whole.d" -- "$prog" >/dev/null
printf 'whole sonde mem command (run + profile.db): %s s, %s KB peak\n' $(cat "$work/whole")

# An allocation-heavy program: 4 threads x 500k malloc/free pairs of tracked sizes (every
# allocation is recorded with its call path, cached per call site).
heap=$B/workloads/rt2-heap
if [ -x "$heap" ]; then
	: >"$work/heap"
	for i in 1 2 3; do
		/usr/bin/time -f '%e' -o "$work/hn" "$heap" churn >/dev/null
		rm -rf "$work/hp"
		"$B/sonde" mem -q -o "$work/hp" -- /usr/bin/time -f '%e' -o "$work/hs" "$heap" churn >/dev/null
		awk -v n="$(cat "$work/hn")" -v s="$(cat "$work/hs")" 'BEGIN { if (n > 0) print s / n }' >>"$work/heap"
	done
	printf 'sonde mem on malloc-heavy churn     %s x native time (2M tracked allocations)\n' "$(median <"$work/heap")"
fi
exit 0
