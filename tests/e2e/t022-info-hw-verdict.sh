#!/usr/bin/env bash
# t022-info-hw-verdict: the reason `sonde info` gives for the hw source matches what
# sysfs shows about the PMUs (the message a user sees when mem falls back to clock).
. "$(dirname "$0")/lib.sh"

"$SONDE" info --json >info.json || { fail info-json "exit $?"; exit 0; }
get() { python3 -c 'import json,sys; d=json.load(open("info.json")); print(eval(sys.argv[1]))' "$1"; }
why=$(get 'd["hw_source"]["why"]')
usable=$(get 'd["hw_source"]["usable"]')
dev=/sys/bus/event_source/devices
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)

if [ "$usable" = True ]; then
	check hw-usable-has-events test "$(get 'len(d["hw_source"]["events"])')" -ge 1
	skip hw-fallback-reason "this machine has a precise PMU (${why})"
elif [ ! -e $dev/cpu ] && [ ! -e $dev/cpu_core ] && [ ! -e $dev/ibs_op ]; then
	case "$why" in "no CPU PMU: $dev/cpu missing"*) pass hw-reason-no-pmu ;;
	*) fail hw-reason-no-pmu "$why" ;; esac
elif [ "$vendor" = AuthenticAMD ] && [ ! -e $dev/ibs_op ]; then
	case "$why" in *"without IBS"*ibs_op*) pass hw-reason-amd-no-ibs ;;
	*) fail hw-reason-amd-no-ibs "$why" ;; esac
	check hw-kind-none test "$(get 'd["hw_source"]["kind"]')" = none
	check hw-no-events test "$(get 'len(d["hw_source"]["events"])')" = 0
else
	check hw-reason-given test -n "$why"
fi

# Precise-event flags agree with the PMU directories.
if [ -e $dev/ibs_op ]; then want=True; else want=False; fi
check precise-ibs-matches-sysfs test "$(get 'd["precise"]["ibs"]')" = "$want"
if ls -d $dev/arm_spe* >/dev/null 2>&1; then want=True; else want=False; fi
check precise-spe-matches-sysfs test "$(get 'd["precise"]["arm_spe"]')" = "$want"
check spe-not-implemented test "$(get 'd["precise"]["arm_spe_implemented"]')" = False
if [ -e $dev/cpu ] || [ -e $dev/cpu_core ]; then
	check cpu-pmu-named test "$(get 'd["pmu"]["cpu_pmu"]')" != None
else
	check cpu-pmu-none test "$(get 'd["pmu"]["cpu_pmu"]')" = None
fi

# The reason is also listed among the fixes, and in the text report.
check hw-why-in-fixes-or-usable test "$usable" = True -o \
	"$(get 'int(any(d["hw_source"]["why"] in f for f in d["fixes"]))')" = 1
"$SONDE" info >info.txt
check hw-why-in-text grep -qF "$why" info.txt
