#!/usr/bin/env bash
# t425-comm-also-false: where the top object's remedy is true sharing, "What to do" also
# names the next object whose communication is mostly false sharing (the usability review
# of 2026-11-29: a forked child's 100% false sharing in `slots` got no advice beside the
# parent's true sharing in `cell`).  By construction (sonde-cc, --exact: every transfer
# counted): two workers store to one word `cell` (true sharing) 2 times in 3 and to their
# own word of `slots` (false sharing) 1 time in 3, each on its own line.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t425 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >af.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
_Alignas(64) volatile long cell;
_Alignas(64) volatile long slots[2];
static void *work(void *arg)
{
	long me = (long)arg;
	for (long i = 0; i < 300000; i++) {
		if (i % 3 == 0)
			slots[me] = slots[me] + 1;
		else
			cell = cell + 1;
		if ((i & 255) == 255)
			sched_yield();
	}
	return NULL;
}
int main(void)
{
	pthread_t a, b;
	if (pthread_create(&a, NULL, work, (void *)0L) || pthread_create(&b, NULL, work, (void *)1L))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("cell %ld, slots %ld\n", cell, slots[0] + slots[1]);
	return 0;
}
EOC
"$SONDE_BUILD/sonde-cc" -O1 -g -pthread af.c -o af || { fail t425-build "sonde-cc could not build af.c"; exit 0; }
"$SONDE" comm --exact -o ex -- ./af >/dev/null 2>summary
check t425-status [ $? -eq 0 ]
top=$(awk -F, 'NR == 2 { print $1 }' ex/comm/objects.csv)
echo "    objects: $(awk -F, 'NR > 1 { printf "%s %s (%s false); ", $1, $3, $5 }' ex/comm/objects.csv)"
if [ "$top" = cell ]; then
	check t425-top-true grep -q "What to do: true sharing in cell" <(flat summary)
	check t425-also-slots grep -q "Also false sharing in slots (.* of its own false by both readings): pad or align" <(flat summary)
else
	skip t425-also "the top object of this run is '$top', not cell (the workers ran apart)"
fi
