#!/usr/bin/env bash
# t800-variance-cli: `sonde variance` options and errors (exit statuses of doc/sonde.md:
# 2 for usage errors), sonde-cc --sonde-calls, and a --sonde-calls program running without
# sonde (the stubs of libsonde-inst.so).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

"$SONDE" variance --help >help.txt 2>&1
check t800-help-exit0 [ $? -eq 0 ]
check t800-help-mentions-events grep -q -- "--events" help.txt
check t800-help-mentions-timeline grep -q -- "--timeline" help.txt

"$SONDE" variance -e bogus -- true >/dev/null 2>err.txt
st=$?
check t800-bad-metric-exit2 [ "$st" -eq 2 ]
check t800-bad-metric-says-which grep -q "unknown metric 'bogus'" err.txt
"$SONDE" variance >/dev/null 2>err.txt
check t800-no-program-exit2 [ $? -eq 2 ]
"$SONDE" variance --timeline spin >/dev/null 2>err.txt
check t800-timeline-needs-dir-exit2 [ $? -eq 2 ]
"$SONDE" variance --timeline spin "$T/nothing-here" >/dev/null 2>err.txt
check t800-timeline-missing-dir-fails [ $? -ne 0 ]
"$SONDE" variance --top 0 -- true >/dev/null 2>err.txt
check t800-bad-top-exit2 [ $? -eq 2 ]

"$SONDE" variance -s hw -- true >/dev/null 2>err.txt
check t800-hw-source-refused-exit2 [ $? -eq 2 ]
check t800-hw-source-says-why grep -q "not implemented" err.txt

shown=$("$SONDE_BUILD/sonde-cc" --sonde-calls --sonde-show -c x.c)
case "$shown" in
*-finstrument-functions-after-inlining*) pass t800-sonde-cc-calls-flag ;;
*) fail t800-sonde-cc-calls-flag "$shown" ;;
esac
shown=$("$SONDE_BUILD/sonde-cc" --sonde-show -c x.c)
case "$shown" in
*-finstrument-functions*) fail t800-sonde-cc-default-no-hooks "$shown" ;;
*) pass t800-sonde-cc-default-no-hooks ;;
esac

if var_build t800-native vwork.c vwork -pthread; then
	out=$(./vwork mix 0.2)
	check t800-native-runs-with-stubs [ "$out" = "vwork mix done" ]
	# The program's exit status comes back through sonde variance.
	"$SONDE" variance -q -o rec -- ./vwork nosuchmode 1 >/dev/null 2>&1
	check t800-program-status-passed-through [ $? -eq 2 ]
fi
