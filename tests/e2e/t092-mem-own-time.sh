#!/usr/bin/env bash
# t092-mem-own-time: code that allocates at a high rate passes through sonde's malloc and
# free wrappers at every call, and the clock's ticks that land there are dropped as
# own-time: past a tenth of the ticks, a line under the drops says what it is and what it
# means (the trial of 2026-11-29, F6: miniXyce's std::map, 27-29% own-time, unexplained).
# By construction: 30 M mallocs and frees of 16-63 bytes, nothing else; here a quarter of
# the ticks land in the wrappers (the bar, a tenth, leaves room for a faster machine).
# A program that allocates little has no such line.
. "$(dirname "$0")/lib.sh"
cat >ma.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000L, s = 0;
	void *keep[64] = { 0 };
	for (long i = 0; i < n; i++) {
		int k = i & 63;
		free(keep[k]);
		keep[k] = malloc(16 + (size_t)(i % 48));
		((char *)keep[k])[0] = (char)i;
		s += keep[(k + 1) & 63] != NULL;
	}
	printf("%ld\n", s);
	return 0;
}
C
cc -O2 -g ma.c -o ma || { fail t092-build "cc failed"; exit 0; }
"$SONDE" mem -o m -- ./ma >out 2>err
check t092-status [ $? -eq 0 ]
check t092-output [ "$(cat out)" = 29999937 ]
own=$(sqlite3 m/profile.db "SELECT sum(count) FROM drops WHERE cause = 'own-time'")
kept=$(sqlite3 m/profile.db "SELECT value FROM meta WHERE key = 'samples'")
drops=$(sqlite3 m/profile.db "SELECT value FROM meta WHERE key = 'dropped'")
echo "    own-time ${own:-0}; samples kept ${kept:-0}, dropped ${drops:-0}"
flat err >err.flat
# the report's share: of the samples kept and dropped (view.c, print_drops)
if awk -v o="${own:-0}" -v a="$((${kept:-0} + ${drops:-0}))" 'BEGIN { exit !(a > 0 && o / a >= 0.1) }'; then
	check t092-said grep -q "own-time: ticks that landed in sonde's own code: its sample handlers, or its malloc and free wrappers" err.flat
else
	skip t092-said "own-time ${own:-0} of $((${kept:-0} + ${drops:-0})) ticks, under a tenth: this machine's wrappers are cheap for it"
fi
# little allocation: no line
"$SONDE" mem -o q -- "$W/strip-sites" 300 >/dev/null 2>qerr
flat qerr >qerr.flat
check t092-not-said [ "$(grep -c "own-time: ticks that landed" qerr.flat)" -eq 0 ]
