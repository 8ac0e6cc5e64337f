#!/usr/bin/env bash
# t068-mem-own-code: samples that land in the runtime's own code, run for the program
# (the malloc and free interposers' bookkeeping), or that step into it, are the runtime's
# time, dropped (own-time), not rows of the code table (track_free and in_scratch of
# src/rt/interpose.c took 12 rows on this loop before: the usability review of
# 2026-11-27).  A loop of malloc, two accesses and free of 2 KB blocks, tracked (>= 1024).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t068 "gcc is not installed"; exit 0; }
cat >fl.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	long s = 0;
	for (int r = 0; r < 3000000; r++) {
		char *p = malloc(2048);
		p[r & 2047] = (char)r;
		s += p[(r * 7) & 2047];
		free(p);
	}
	printf("%d\n", s != 0);
	return 0;
}
EOC
gcc -O2 -g fl.c -o fl || { fail t068-build "gcc could not build fl.c"; exit 0; }
"$SONDE" mem -q --source clock -o rec -- ./fl >/dev/null 2>&1
check t068-status [ $? -eq 0 ]
n=$(awk -F, 'NR > 1 && $2 ~ /src\/rt\// { n++ } END { print n + 0 }' rec/mem/code.csv)
check "t068-no-runtime-rows-$n" [ "$n" -eq 0 ]
check t068-samples [ "$(awk -F, 'NR > 1 { s += $4 } END { print s + 0 }' rec/mem/code.csv)" -gt 0 ]
