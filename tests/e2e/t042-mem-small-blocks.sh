# Small heap blocks in a thread's malloc arena (an anonymous mapping, not [heap]) are
# reported as untracked small heap blocks, not as anonymous memory.
. "$(dirname "$0")/lib.sh"
"$SONDE" mem -q --source clock -o rec -- "$W/smallheap" >out 2>err
check "exit-and-output" [ "$(cat out)" = "smallheap: ok" ]
first=$(awk -F, 'NR == 2 { print $1 }' rec/mem/objects.csv)
share=$(csv_get rec/mem/objects.csv object "[heap: untracked small blocks]" share)
check "small-blocks-first ($first)" [ "$first" = "[heap: untracked small blocks]" ]
check "small-blocks-share (${share:-none})" float_between "${share:-0}" 0.7 1.0
# the summary says what would name them: the group's share and the --min-object in force
"$SONDE" report rec >rep.txt 2>&1
check small-blocks-note sh -c "tr '\n' ' ' <rep.txt | tr -s ' ' | grep -q '% of the samples are in \[heap: untracked small blocks\]: heap blocks under --min-object (1024 bytes) are not tracked one by one'"

# More blocks live at once than the runtime's table of tracked blocks holds (2^20): the
# rest go untracked, the report warns with their count and names their group
# "[heap: untracked blocks]" (it was silent, and "small blocks" of blocks over
# --min-object, before: the trial of 2026-11-27 on miniAMR).  1.2 million blocks of 96
# bytes, all live, swept 40 times.
if command -v gcc >/dev/null; then
	cat >manyblk.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	enum { N = 1200000 };
	long **b = malloc(N * sizeof(*b)), s = 0;
	for (int i = 0; i < N; i++) {
		b[i] = malloc(96);
		b[i][0] = i;
	}
	for (int r = 0; r < 40; r++)
		for (int i = 0; i < N; i++)
			s += b[i][0]++;
	printf("%ld\n", s);
	return 0;
}
EOF
	gcc -O1 -g manyblk.c -o manyblk
	"$SONDE" mem --min-object 64 -o mb -- ./manyblk >/dev/null 2>mb.err
	full=$(sqlite3 mb/profile.db "SELECT value FROM meta WHERE key = 'alloc_table_full'" 2>/dev/null)
	# at least the 151,424 blocks beyond 2^20, fewer than all of them
	check "t042-table-full-${full:-none}" [ "${full:-0}" -ge 151424 -a "${full:-0}" -lt 1200000 ]
	check t042-table-full-warned grep -q "allocations were not tracked: over 1,048,576 heap blocks" mb.err
	check t042-table-full-named grep -q "^\[heap: untracked blocks\]," mb/mem/objects.csv
	check t042-table-full-not-small [ "$(grep -c "untracked small blocks" mb/mem/objects.csv)" -eq 0 ]
else
	skip t042-table-full "gcc is not installed"
fi

# A thread that only makes small allocations: its malloc arena holds no tracked block, yet
# its blocks are still heap memory, known from the maps file's shape of glibc's heaps (64
# MiB aligned, the unused rest PROT_NONE), not "[anonymous memory]" (the trial of PARSEC
# streamcluster, 2026-11-27: its 576-byte work_mem)
if command -v gcc >/dev/null; then
	cat >arena.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void *work(void *a)
{
	volatile double *p = malloc(512);	/* from this thread's arena */
	for (long r = 0; r < 3000000; r++)
		for (int i = 0; i < 64; i += 8)
			p[i] += r;
	free((void *)p);
	return a;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
EOF
	gcc -O2 -g -pthread arena.c -o arena
	"$SONDE" mem -q -o ar -- ./arena >/dev/null 2>&1
	first=$(awk -F, 'NR == 2 { print $1 }' ar/mem/objects.csv)
	check "arena-small-blocks-first ($first)" [ "$first" = "[heap: untracked small blocks]" ]
	check arena-no-anonymous sh -c "! grep -q '^\[anonymous memory\]' ar/mem/objects.csv"
fi
