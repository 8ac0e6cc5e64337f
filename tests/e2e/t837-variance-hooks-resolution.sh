#!/usr/bin/env bash
# t837-variance-hooks-resolution: through sonde-cc's call hooks each instance holds the two
# clock reads of its hooks, their cost calibrated at start (meta read_cost_ns,
# read_cost_cpu_ns) and subtracted; the resolution is twice that cost (model.c,
# key_resolution: the hooks' own work is in the instance too; the usability review of 2026-11-29 read a constant 38 ns function at a
# median of 462 ns with a CV of 134%, "investigate").  By construction: tiny() is a loop of
# 100 additions (~40-100 ns, well under the 1-1.5 us the reads cost here), called 2000
# times a round, most of the run's time; steady() ~40 us of CPU work once a round.
#  - tiny is below the resolution: below 1, resolution = 2 read_cost_cpu_ns (ns), no CV,
#    "too short for the hooks here" in the verdict, "< R" in the text;
#  - steady is measured (below 0, a CV), its resolution the same;
#  - the header says what the hooks subtract and the resolution;
#  - every verdict is the rule's for its row (var_verdicts).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
command -v clang >/dev/null || { skip t837 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >hr.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned sink;
__attribute__((noinline)) void tiny(unsigned i)
{
	volatile unsigned x = i;
	for (int k = 0; k < 100; k++)
		x += k;
}
__attribute__((noinline)) void steady(void)
{
	unsigned x = sink;
	for (int i = 0; i < 20000; i++)
		x = x * 1664525u + 1013904223u;
	sink = x;
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	for (int r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < 2000; i++)
			tiny(i);
		steady();
	}
	printf("hr %u\n", sink != 1);
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" --sonde-calls -O1 hr.c -o hr 2>cc.err || { fail t837-build "$(head -3 cc.err)"; exit 0; }
"$SONDE" variance -o rec -- ./hr >out 2>err
check t837-exit-status [ $? -eq 0 ]
check t837-stdout [ "$(cat out)" = "hr 1" ]
F=rec/variance/functions.csv
[ -f $F ] || { fail t837-functions "no $F: $(tail -3 err)"; exit 0; }
rc=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'read_cost_cpu_ns'")
check "t837-read-cost-$rc" [ "${rc:-0}" -gt 0 ]
n=$(var_col $F tiny "main > tiny" cpu-time instances)
med=$(sqlite3 rec/profile.db "SELECT cpu_time FROM var_instances WHERE function = 'tiny'
	ORDER BY cpu_time LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM var_instances WHERE function = 'tiny')")
echo "    read cost $rc ns of CPU time; tiny: $n instances, median $med ns"
if [ "${n:-0}" -lt 10 ]; then
	skip t837-tiny "tiny got $n instances (too few to judge)"
else
	check t837-tiny-below [ "$(var_col $F tiny "main > tiny" cpu-time below)" = 1 ]
	check t837-tiny-no-cv [ -z "$(var_col $F tiny "main > tiny" cpu-time cv)" ]
	res=$(var_col $F tiny "main > tiny" cpu-time resolution)
	check "t837-tiny-resolution-$res" awk -v r="$res" -v c="$rc" 'BEGIN { exit !(r > 0 && (r - 2 * c)^2 < 1) }'
	check t837-tiny-verdict grep -q "too short for the hooks here: under the" <(var_col $F tiny "main > tiny" cpu-time verdict)
	check t837-tiny-text grep -qE "main > tiny +[0-9]+ +< [0-9.]+ us" err
fi
check t837-steady-measured [ "$(var_col $F steady "main > steady" cpu-time below)" = 0 ]
check t837-steady-cv [ -n "$(var_col $F steady "main > steady" cpu-time cv)" ]
check t837-header grep -q " hooks: [0-9.]* us of time and [0-9.]* us of CPU time per instance subtracted (the hooks' two clock reads" <(flat err)
check t837-header-resolution grep -q "resolution $(awk -v c="$rc" 'BEGIN { printf "%.1f", 2 * c / 1000 }') us of CPU" <(flat err)
var_verdicts t837-verdicts $F
