#!/usr/bin/env bash
# t304: `sonde record-cycles` builds perf's event list from the template (checked against the
# template file itself) and, on a machine without a hardware PMU, says so and exits 1.
. "$(dirname "$0")/lib.sh"
tmpl=$SONDE_TOP/data/topdown/westmere-ep.txt
out=$("$SONDE" record-cycles --arch westmere-ep --dry-run -o x.data -- /bin/true 2>err.txt)
rc=$?
# Expected: for each "event" line, its first raw code (r<hex>), else its first name.
want=$(awk '$1 == "event" { e = $3; for (i = 3; i <= NF; i++) if ($i ~ /^r[0-9a-f]+$/) { e = $i; break }
	l = l (l ? "," : "") e } END { print l }' "$tmpl")
if [ "$rc" -eq 0 ] && [ "$out" = "perf record -g -s -e $want -o x.data -- /bin/true" ]; then
	pass t304-dry-run-events
else
	fail t304-dry-run-events "rc=$rc: $out"
fi
"$SONDE" record-cycles >/dev/null 2>err.txt
check t304-usage-status [ $? -eq 2 ]
# Without a PMU (an empty event_source directory stands for this VM's sysfs).
mkdir nopmu
SONDE_EVENT_SOURCE_DIR=$T/nopmu "$SONDE" record-cycles -o y.data -- /bin/true >/dev/null 2>err.txt
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^sonde: record-cycles needs a hardware PMU' err.txt && [ ! -e y.data ]; then
	pass t304-no-pmu-simulated
else
	fail t304-no-pmu-simulated "rc=$rc: $(cat err.txt)"
fi
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	skip t304-no-pmu-message "this machine has a PMU"
	# With a PMU: the recording works and analyze reads it.
	if "$SONDE" record-cycles -o x.data -- /bin/sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
		>/dev/null 2>err.txt && "$SONDE" analyze --stats x.data >stats.txt 2>>err.txt; then
		pass t304-record-with-pmu
	else
		fail t304-record-with-pmu "$(tail -2 err.txt | tr '\n' ' ')"
	fi
else
	"$SONDE" record-cycles -o x.data -- /bin/true >/dev/null 2>err.txt
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q '^sonde: record-cycles needs a hardware PMU' err.txt && [ ! -e x.data ]; then
		pass t304-no-pmu-message
	else
		fail t304-no-pmu-message "rc=$rc: $(cat err.txt)"
	fi
fi
