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
# sonde's factor (doc/sonde-analyze.md) is the sample-weighted mean of enabled/running over
# the threads that have times (the others carry no information about multiplexing).  Computed here from perf's own decoding:
# samples per thread from `perf script`, times from `perf report -D`.
perf script -i rs.data -F tid,event 2>/dev/null | awk '/page-faults/ { n[$1]++ } END { for (t in n) print "S", t, n[t] }' >w.txt
# times are cumulative: a thread's latest READ (the largest enabled time) holds them all
awk '/PERF_RECORD_READ/ { tid = $(NF - 2) } /time enabled/ { e = $NF }
	/time running/ { if ($NF > 0 && e >= best[tid]) { best[tid] = e; r[tid] = e / $NF } }
	END { for (t in r) print "R", t, r[t] }' reads.txt >>w.txt
want=$(awk '$1 == "R" { r[$2] = $3 } $1 == "S" { n[$2] = $3 }
	END { for (t in n) if (t in r) { s += n[t] * r[t]; w += n[t] } printf "%.3f", w ? s / w : 1 }' w.txt)
got=$("$SONDE" analyze rs.data 2>&1 | sed -n 's/^# event page-faults:.*multiplex \([0-9.]*\).*/\1/p')
if [ -n "$got" ] && [ -n "$want" ] && awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.0015 && d > -0.0015) }'; then
	pass "multiplex-equals-weighted-perf-ratios ($got)"
else
	fail "multiplex-equals-weighted-perf-ratios" "sonde ${got:-none}, from perf ${want:-none}: $(tr '\n' ' ' <w.txt)"
fi
