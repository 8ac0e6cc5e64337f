#!/usr/bin/env bash
# t065-mem-rmw-both: a read-modify-write (here `lock add` to memory, the only access of a
# long loop) is counted as a load and as a store, so loads + stores exceed the samples;
# the summary and the page say why ("a read-modify-write is both"), and only then (the
# trial of 2026-11-27 read radix's "138 samples (138 loads, 64 stores)" unexplained).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t065 "gcc is not installed"; exit 0; }
cat >rmw.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
static long cell[8];
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000;
	for (long i = 0; i < n; i++)
		__asm__ volatile("lock addq $1, %0" : "+m"(cell[i & 7]));
	printf("%ld\n", cell[0]);
	return 0;
}
EOC
gcc -O2 -g rmw.c -o rmw || { fail t065-build "gcc could not build rmw.c"; exit 0; }
"$SONDE" mem --source clock -o rec --html page.html -- ./rmw >out 2>sum
check t065-status [ $? -eq 0 ]
read -r s l st < <(sqlite3 rec/profile.db "SELECT (SELECT value FROM meta WHERE key = 'samples'),
	(SELECT value FROM meta WHERE key = 'loads'), (SELECT value FROM meta WHERE key = 'stores')" |
	tr '|' ' ')
echo "    samples $s, loads $l, stores $st"
check "t065-rmw-counted-twice-$l-$st-of-$s" [ "$((l + st))" -gt "$s" ]
check t065-summary-says grep -q "^  samples   $s ($l loads, $st stores; a read-modify-write is both)$" sum
check t065-page-says grep -q "<th>samples</th><td>$s ($l loads, $st stores; a read-modify-write is both)</td>" page.html
# a plain load loop: no such words
"$SONDE" mem --source clock -o rec2 -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>sum2
read -r s2 l2 st2 < <(sqlite3 rec2/profile.db "SELECT (SELECT value FROM meta WHERE key = 'samples'),
	(SELECT value FROM meta WHERE key = 'loads'), (SELECT value FROM meta WHERE key = 'stores')" |
	tr '|' ' ')
if [ "$((l2 + st2))" -le "$s2" ]; then
	check t065-not-said-otherwise sh -c "! grep -q 'read-modify-write is both' sum2"
else
	check t065-said-for-sh grep -q 'read-modify-write is both' sum2
fi
