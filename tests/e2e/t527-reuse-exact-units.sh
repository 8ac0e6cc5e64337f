#!/usr/bin/env bash
# t527-reuse-exact-units: --exact models 63 private caches (REUSE_UNITS); a run of more
# threads shares them by thread number modulo 63, and a later thread meets an earlier
# one's data as its own.  The summary, the JSON and the page say so (the usability review
# of 2026-11-28: 100 threads one after another, each reading fresh data, read 37% reuses
# where every access is cold, without a word); a run of 10 threads says nothing.  The
# JSON also names the recording's cache, granularity and threads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
command -v clang >/dev/null || { skip t527 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >seq.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static double out;
static void *w(void *arg)
{
	(void)arg;
	double *a = calloc(512, sizeof(*a)), s = 0;
	for (int i = 0; a && i < 512; i++)
		s += a[i];
	free(a);
	out += s;
	return NULL;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 70;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, w, NULL);
		pthread_join(t, NULL);
	}
	printf("seq %g\n", out);
	return 0;
}
C
"$SONDE_BUILD/sonde-cc" -O1 -g -pthread seq.c -o seq || { fail t527-build "sonde-cc"; exit 0; }
"$SONDE" reuse --exact -o many -- ./seq 70 >/dev/null 2>many.txt
check t527-many-status [ $? -eq 0 ]
check t527-many-warning grep -q "warning: 71 threads on the exact engine's 63 private caches: threads 63 and up share those of threads 0, 1" <(flat many.txt)
"$SONDE" report many --format json >many.json
check t527-many-json python3 -c '
import json
d = json.load(open("many.json"))
assert d["threads"] == 71 and d["cache"] == "private" and d["granularity"] == "temporal", d
assert d["element_bytes"] == 8 and d["warning"].startswith("71 threads on"), d'
"$SONDE" report many --html many.html >/dev/null 2>&1
check t527-many-html grep -q "<th>warning</th><td>71 threads on the exact engine" many.html
"$SONDE" reuse --exact -o few -- ./seq 10 >/dev/null 2>few.txt
check t527-few-status [ $? -eq 0 ]
check t527-few-no-warning bash -c '! grep -q "private caches: threads" few.txt'
