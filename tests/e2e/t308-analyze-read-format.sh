# Multiplexing factors from PERF_RECORD_READ in the single (non-group) read_format, whose
# value comes before time_enabled/time_running: recorded here with `perf record -s`, the
# factor sonde prints equals enabled/running as `perf report -D` decodes it.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { skip read-format "perf is not installed"; exit 0; }
perf record -q -s -e page-faults,cpu-clock -o rs.data -- "$W/demo-hotcold" 2 20 >/dev/null 2>&1 ||
	{ skip read-format "perf record -s failed here"; exit 0; }
perf report -i rs.data -D 2>/dev/null | grep -A2 'PERF_RECORD_READ:.* page-faults ' >reads.txt
n=$(grep -c PERF_RECORD_READ reads.txt)
[ "$n" -ge 1 ] || { skip read-format "perf wrote no READ record for page-faults"; exit 0; }
# sonde's factor is a sample-weighted mean of the per-thread enabled/running ratios: it
# must lie between the smallest and the largest of them (before the fix it was 0.000).
range=$(awk '/time enabled/ { e = $NF } /time running/ { if ($NF > 0) { x = e / $NF;
	if (lo == "" || x < lo) lo = x; if (x > hi) hi = x } } END { printf "%.3f %.3f", lo - 0.0005, hi + 0.0005 }' reads.txt)
got=$("$SONDE" analyze rs.data 2>&1 | sed -n 's/^# event page-faults:.*multiplex \([0-9.]*\).*/\1/p')
check "multiplex-within-perf-ratios (sonde ${got:-none}, perf $range)" [ -n "$got" ] &&
	float_between "$got" $range
