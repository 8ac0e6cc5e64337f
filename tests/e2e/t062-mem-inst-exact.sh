#!/usr/bin/env bash
# t062-mem-inst-exact: `sonde mem --source inst --period 1` counts every access of
# tests/workloads/inst-loop.c built by sonde-cc: 10,000 loads in chase() and 1,024 stores
# in fill(), all to the static `ring`, by construction.  And a program not built by
# sonde-cc gets the clock source instead, with the reason, at its own default period.
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { skip t062-inst "clang is not installed"; exit 0; }
src=$SONDE_TOP/tests/workloads/inst-loop.c
"$SONDE_BUILD/sonde-cc" -O2 "$src" -o inst-loop 2>cc.err ||
	{ fail t062-sonde-cc "$(head -3 cc.err)"; exit 0; }

"$SONDE" mem -q -o prof --source inst --period 1 -- ./inst-loop >out 2>err
check t062-exit-status [ $? -eq 0 ]
# every access recorded: said before the run (not with -q: no summary, no note)
check t062-quiet-no-note sh -c "! grep -q 'records every access' err"
"$SONDE" mem -o profn --source inst --period 1 -- ./inst-loop >/dev/null 2>errn
check t062-note-every-access grep -q "^sonde: note: --period 1 records every access, 44 bytes each" errn
check t062-stdout [ "$(cat out)" = "$("$W/inst-loop")" ]
o=prof/mem/objects.csv c=prof/mem/code.csv
check t062-ring-loads [ "$(csv_get $o object ring loads)" = 10000 ]
check t062-ring-stores [ "$(csv_get $o object ring stores)" = 1024 ]
check t062-ring-samples [ "$(csv_get $o object ring samples)" = 11024 ]
check t062-chase-loads [ "$(csv_get $c function chase loads)" = 10000 ]
check t062-chase-line [ "$(csv_get $c function chase line)" = "$(grep -n 'p = ring\[p\];' "$src" | cut -d: -f1)" ]
check t062-fill-stores [ "$(csv_get $c function fill stores)" = 1024 ]
check t062-thread-samples [ "$(csv_get prof/mem/threads.csv thread 0 samples)" = 11024 ]

# Sampled: --period 1000 is taken as 1009, the next prime (sonde/period.h: a loop whose
# accesses per iteration divide the period has every sample on the same access), and
# said; every 1009th access, 10 samples standing for 11,024 accesses.
"$SONDE" mem -q -o prof2 --source inst --period 1000 -- ./inst-loop >/dev/null 2>err
check t062-sampled-status [ $? -eq 0 ]
check t062-sampled-period grep -q '^period=1009$' prof2/*.proc
check t062-sampled-period-asked grep -q '^period_asked=1000$' prof2/*.proc
check t062-sampled-period-said grep -q "^sonde: warning: --period 1000 was taken as 1009, the next prime" err
check t062-sampled-samples [ "$(csv_get prof2/mem/threads.csv thread 0 samples)" = $((11024 / 1009)) ]
# a prime period is taken as given, and not said
"$SONDE" mem -q -o prof2p --source inst --period 1009 -- ./inst-loop >/dev/null 2>errp
check t062-prime-period-kept grep -q '^period=1009$' prof2p/*.proc
check t062-prime-period-unsaid sh -c "! grep -q 'next prime' errp"

# Not built by sonde-cc: inst refuses, says why, and the clock source takes over.
"$SONDE" mem -q -o prof3 --source inst -- "$W/inst-loop" >out3 2>err3
check t062-fallback-status [ $? -eq 0 ]
check t062-fallback-stdout cmp -s out3 out
check t062-fallback-reason grep -q 'rebuild it with sonde-cc' prof3/*.proc
check t062-fallback-source grep -q '^source=clock$' prof3/*.proc
# and says so in a warning at the end, not only in the header's fallback (-q: the summary
# left out, the warning not; the trial of 2026-11-27 missed the header's)
check t062-fallback-warned grep -q "^sonde: warning: --source inst could not be used, the program was sampled with clock instead (inst: .*rebuild it with sonde-cc" err3
# the other tools say it too, with the runtime's reason (from the .proc file: their
# databases keep no source_why)
for tool in comm reuse; do
	"$SONDE" $tool -q -o prof3-$tool --source inst -- "$W/inst-loop" >/dev/null 2>err3-$tool
	check "t062-fallback-warned-$tool" grep -q "^sonde: warning: --source inst could not be used, the program was sampled with clock instead (inst: .*rebuild it with sonde-cc" err3-$tool
done
check t062-no-warning-when-used sh -c "! grep -q 'could not be used' err"
# --source hw where there is no PMU, on a sonde-cc build: the tools fall back to inst, which
# counts accesses, not to the clock, which has none (the usability review of 2026-11-29)
# and whose ticks land in the build's callbacks (mem too: the trial of 2026-11-29,
# SimpleMOC's sonde-cc build dropped 44% of the clock's samples, its stacks read 55%)
if ! grep -q '^source=hw$' prof/*.proc 2>/dev/null && [ ! -e /sys/bus/event_source/devices/cpu ] &&
	[ ! -e /sys/bus/event_source/devices/ibs_op ]; then
	for tool in comm reuse mem; do
		"$SONDE" $tool -q -o prof4-$tool --source hw -- ./inst-loop >/dev/null 2>err4-$tool
		check "t062-hw-falls-to-inst-$tool" grep -q '^source=inst$' prof4-$tool/*.proc
		check "t062-hw-fallback-warned-$tool" grep -q "^sonde: warning: --source hw could not be used, the program was sampled with inst instead" err4-$tool
	done
	# and with no source asked for (auto)
	"$SONDE" mem -q -o prof5-mem -- ./inst-loop >/dev/null 2>/dev/null
	check t062-auto-inst-mem grep -q '^source=inst$' prof5-mem/*.proc
else
	skip t062-hw-falls-to-inst "this machine has a PMU: --source hw is taken"
fi
# variance's clock default is its own (4 ms, the CLI's), also where inst fell back to the
# clock (it took the source's 0.9 ms: 4.4 times the selections and their cost)
"$SONDE" variance -q -o prof3-var --source inst -- "$W/inst-loop" >/dev/null 2>err3-var
check t062-fallback-variance-period grep -q '^period=4000000$' prof3-var/*.proc
# With a period, that period counts accesses: the clock takes its own default instead of
# reading it as nanoseconds (--period 1 made a 1 ns clock).
"$SONDE" mem -q -o prof4 --source inst --period 1 -- "$W/inst-loop" >/dev/null 2>err4
check t062-fallback-period-status [ $? -eq 0 ]
check t062-fallback-period-source grep -q '^source=clock$' prof4/*.proc
check t062-fallback-period-not-1 bash -c "! grep -q '^period=1$' prof4/*.proc"
check t062-fallback-period-said grep -q 'does not apply to the fallback' prof4/*.proc
