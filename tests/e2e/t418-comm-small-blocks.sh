#!/usr/bin/env bash
# t418-comm-small-blocks: communication in heap blocks under --min-object (a 256-byte block
# two threads write side by side) reads as [heap: untracked small blocks], and comm says
# what names it, as mem does (the usability review of 2026-11-28: a 664-byte queue's 90%
# false sharing, no hint); with --min-object 64 the block is named by its allocation site.
# inst source at period 101 (sonde-cc): every transfer found is in the block (the program
# has no other shared data), so its share is 100% however few they are (a handful here:
# on 2 CPUs the threads' short runs hardly overlap); none found is a SKIP.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t418 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >sb.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
volatile long *q; /* not static: clang would make a static pointer to one calloc a static array */
static void *work(void *arg)
{
	long me = (long)arg;
	for (long i = 0; i < 400000; i++)
		q[me] += i;
	return NULL;
}
int main(void)
{
	q = calloc(32, sizeof(long));
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", q[0] + q[1]);
	return 0;
}
EOF
"$SONDE_BUILD/sonde-cc" -O1 -g -pthread sb.c -o sb || { fail t418-build "sonde-cc could not build sb.c"; exit 0; }
"$SONDE" comm --source inst --period 101 -o d -- ./sb >out 2>err
check t418-status [ $? -eq 0 ]
total=$(sqlite3 d/profile.db "SELECT value FROM meta WHERE key = 'total_all'")
echo "total_all $total"
if [ "${total:-0}" -gt 0 ]; then
	check t418-small-named grep -q "\[heap: untracked small blocks\]" err
	check t418-hint grep -q "of the communication is in \[heap: untracked small blocks\]" <(flat err)
	check t418-hint-min grep -q "under --min-object (1024 bytes)" <(flat err)
	check t418-hint-suggests-64-or-16 grep -q "(e.g. --min-object 64, or 16 for blocks as small as a pair of pointers)" <(flat err)
	"$SONDE" comm --source inst --period 101 --min-object 64 -o d64 -- ./sb >/dev/null 2>err64
	# (a second run may find none: the threads' short runs hardly overlap on 2 CPUs; a
	# suite of 2026-11-30 failed here with the first run's handful found)
	t64=$(sqlite3 d64/profile.db "SELECT value FROM meta WHERE key = 'total_all'")
	if [ "${t64:-0}" -gt 0 ]; then
		check t418-named-with-64 grep -q "calloc\|main (sb.c:1[0-9])" d64/comm/objects.csv
	else
		skip t418-named-with-64 "no communication found in the second run"
	fi
	check t418-no-hint-with-64 bash -c '! grep -q "untracked small blocks\]:" err64'
else
	skip t418-small-named "no communication found in this run"
fi
