#!/usr/bin/env bash
# t700-bench-cli: `sonde bench`'s command line: usage errors exit 2 with one line, a missing
# benchmark directory exits 1 with the reason, a source this machine lacks is a SKIP row with
# the reason (never a figure), and a time interval is refused for the counting source.
. "$(dirname "$0")/lib.sh"

"$SONDE" bench --help >out 2>err
check t700-help [ $? -eq 0 ]
check t700-help-text grep -q '^usage: sonde bench' out

for args in "--runs 0" "--runs x" "--source foo" "--interval 1xs" "--interval 0" "extra" \
	"--extra-steps 0" "--nope"; do
	# shellcheck disable=SC2086
	"$SONDE" bench $args >out 2>err
	st=$?
	if [ $st -eq 2 ] && [ "$(wc -l <err)" -le 2 ] && grep -q '^sonde: ' err; then
		pass "t700-usage[$args]"
	else
		fail "t700-usage[$args]" "status $st, stderr: $(head -2 err | tr '\n' ' ')"
	fi
done

SONDE_BENCH_DIR=$T/none "$SONDE" bench -s clock >out 2>err
check t700-no-benchmarks-status [ $? -eq 1 ]
check t700-no-benchmarks-message grep -q "^sonde: cannot find the microbenchmarks in $T/none" err

# hw: on a machine without a PMU, one SKIP row with the reason, and exit 0.
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/ibs_op ] &&
	[ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	"$SONDE" bench -s hw -o d >out 2>err
	check t700-hw-skip-status [ $? -eq 0 ]
	check t700-hw-skip-row grep -q '^hw,,\*,skip,no PMU on this machine' d/bench/results.csv
	# its only other row is the verdict sentence
	check t700-hw-no-figures [ "$(grep '^hw,' d/bench/results.csv | grep -vc ',\*,\(skip\|verdict\),')" = 0 ]
	check t700-hw-verdict-row grep -q '^hw,,\*,verdict,"\?hw: SKIP: no PMU' d/bench/results.csv
	check t700-hw-skip-verdict grep -q '^hw: SKIP: no PMU' out
	skip t700-hw-figures "no PMU here: the hw figures are tested on synthetic recordings (u-bench)"
else
	skip t700-hw-skip "this machine has a PMU"
fi

# inst counts accesses: a time interval does not apply to it.
if [ -x "$SONDE_BUILD/bench/bench-micro-inst" ]; then
	"$SONDE" bench -s inst -i 1ms -o e >out 2>err
	check t700-inst-time-interval-status [ $? -eq 0 ]
	check t700-inst-time-interval-skip grep -q '^inst,,\*,skip,inst counts accesses' \
		e/bench/results.csv
else
	skip t700-inst "bench-micro-inst was not built (no clang)"
fi

# clock samples by time: a plain number is refused with the reason (no figures), never taken
# as nanoseconds.
"$SONDE" bench -s clock -i 1000 -o f >out 2>err
st=$?
if [ $st -eq 0 ] && grep -q "^clock,,\*,skip,\"clock samples by time: '1000' needs a unit" \
	f/bench/results.csv 2>/dev/null; then pass t700-clock-needs-unit
else fail t700-clock-needs-unit "status $st: $(head -2 err | tr '\n' ' ')"; fi

# Installed: the benchmarks go to PREFIX/lib/sonde/bench and the installed sonde finds them.
if make -s -C "$SONDE_TOP" B="$SONDE_BUILD" install PREFIX="$T/prefix" >install.log 2>&1; then
	check t700-installed-benchmarks [ -x "$T/prefix/lib/sonde/bench/bench-micro" ]
	if [ -x "$SONDE_BUILD/bench/bench-micro-inst" ]; then
		"$T/prefix/bin/sonde" bench -s inst --runs 1 -o g >out 2>err
		check t700-installed-runs [ $? -eq 0 ]
		check t700-installed-inst-exact [ "$(awk -F, '$3 == "load-ratio" && $4 == "accuracy" { print $5 }' \
			g/bench/results.csv)" = 1.0000 ]
	fi
else
	fail t700-install "$(tail -3 install.log)"
fi

# one run a benchmark has no spread: the stderr column reads "-", not 0.000 or nan (the
# usability review of 2026-11-27)
"$SONDE" bench -s clock --runs 1 -i 1ms -o r1 >r1.out 2>r1.err
check t700-one-run-status [ $? -eq 0 ]
check t700-one-run-no-nan sh -c "! grep -qi 'nan' r1.out"
check t700-one-run-stderr-dash awk '$3 == "load-ratio" { exit !($5 == "-") }' r1.out
# a verdict from one run is said to be weak: it steers later mem and comm runs (the
# usability review of 2026-11-28)
check t700-one-run-warned grep -q "^sonde: warning: this verdict rests on 1 run(s) a benchmark" r1.err
