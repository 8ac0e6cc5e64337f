# The clock source spreads timer samples away from a long-latency instruction: in
# clock-spread, 1 access in 4 is a `lock add` on `counter` (3 loads from `table` follow), and
# the random skip of 0..7 extra accesses must find counter in about 1/4 of the samples,
# although the timer lands behind the lock add nearly every time.
. "$(dirname "$0")/lib.sh"

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] && [ "$(id -u)" -ne 0 ]; then
	skip clock-spread "perf_event_paranoid > 2: no cpu-clock sampling for users"
	exit 0
fi

"$SONDE" mem -q -s clock -o spread -- "$W/clock-spread" 1 >out 2>err
check clock-spread-runs grep -q '^clock-spread: 1 ok$' out
obj=spread/mem/objects.csv
share=$(csv_get "$obj" object counter share)
echo "counter share with the spread: ${share:-none} (constructed 0.25)"
if [ -n "$share" ] && float_between "$share" 0.17 0.33; then
	pass clock-spread-counter-share
else
	fail clock-spread-counter-share "counter share ${share:-missing}, want 0.25 +- 0.08"
fi
# lock add reads and writes; table is only read
c_loads=$(csv_get "$obj" object counter loads)
c_stores=$(csv_get "$obj" object counter stores)
t_stores=$(csv_get "$obj" object table stores)
check clock-spread-rmw test "${c_loads:-0}" -gt 0 -a "${c_loads:-0}" = "${c_stores:-x}"
check clock-spread-table-loads test "${t_stores:-x}" = 0

# For information: without the skip, how hard the samples pile up on this machine.
SONDE_EXTRA_STEPS=1 "$SONDE" mem -q -s clock -o pile -- "$W/clock-spread" 0.3 >/dev/null 2>&1
pile=$(csv_get pile/mem/objects.csv object counter share)
echo "counter share without the spread: ${pile:-0} (no row: no sample)"
