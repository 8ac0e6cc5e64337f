#!/usr/bin/env bash
# t840-variance-killed: a program killed by SIGKILL writes no counters at its threads'
# ends (samples, arms, traps: sonde's warning says so); the header counts the instances
# its records hold and says the counters unknown, not 0 (the usability review of
# 2026-11-29, L1: "0 instances of 1 pairs", "clock samples 0", "watch backend: none"
# over a table of 155 instances, the backend soft).  By construction (sonde-cc's call
# hooks): f() is ~300k multiply-adds, called for 2.5 s of CPU time (a thread writes its
# records at least once a second: two writes or more before the kill), then the program
# kills itself.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
command -v clang >/dev/null || { skip t840 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >kl.c <<'C'
#include <signal.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void f(void)
{
	unsigned long x = sink;
	for (long i = 0; i < 300000; i++)
		x = x * 6364136223846793005ul + 1;
	sink = x;
}
int main(void)
{
	while (clock() < 5 * CLOCKS_PER_SEC / 2)
		f();
	kill(getpid(), SIGKILL);
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 kl.c -o kl 2>cc.err || { fail t840-build "$(head -3 cc.err)"; exit 0; }
"$SONDE" variance -o rec -- ./kl >out 2>err
check t840-exit-status [ $? -eq 137 ]
F=rec/variance/functions.csv
[ -f $F ] || { fail t840-functions "no $F: $(tail -3 err)"; exit 0; }
n=$(var_col $F f "main > f" cpu-time instances)
echo "    f: ${n:-0} instances recorded before the kill"
check "t840-recorded-${n:-0}" [ "${n:-0}" -ge 1 ]
flat err >err.flat
check t840-warning grep -q "ended without closing the recording" err.flat
check t840-instances grep -q "sonde variance: $n instances (as recorded) of 1 (context, function) pairs" err.flat
check t840-selection-unknown grep -q "samples, entries armed, caught and missed unknown: the process ended without writing them" err.flat
check t840-backend-unknown grep -q "watch backend: unknown" err.flat
check t840-no-dropped-zeros [ -z "$(grep 'dropped: ' err.flat)" ]
# the JSON too
"$SONDE" report rec --format json >j.json
check t840-json-instances python3 -c 'import json, sys; sys.exit(json.load(open("j.json"))["instances"] != int(sys.argv[1]))' "$n"
# sonde report says the same from the database
"$SONDE" report rec >rep 2>&1
flat rep >rep.flat
check t840-report-instances grep -q "sonde variance: $n instances (as recorded)" rep.flat
# killed before its first write (0.2 s of CPU): no instance, and the line says why, not
# "one called once (main...) is never measured" (the usability review of 2026-11-30, L3)
sed 's/5 \* CLOCKS_PER_SEC \/ 2/CLOCKS_PER_SEC \/ 5/' kl.c >ks.c
if "$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 ks.c -o ks 2>cc2.err; then
	"$SONDE" variance -o rec2 -- ./ks >/dev/null 2>err2
	n2=$(var_col rec2/variance/functions.csv f "main > f" cpu-time instances 2>/dev/null)
	if [ -z "$n2" ]; then
		check t840-early-kill-said grep -q "no instance was measured: the process ended without closing the recording" <(flat err2)
	else
		skip t840-early-kill-said "$n2 instances written before the kill in this run"
	fi
else
	fail t840-build2 "$(head -3 cc2.err)"
fi
