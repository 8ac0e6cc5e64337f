#!/usr/bin/env bash
# t422-comm-sigkill: a process killed by SIGKILL keeps what its threads recorded up to
# the last second, and the report says it was not closed.  A thread's records waited for
# a full buffer, which comm's few events a second never fill: a run killed after seconds
# of false sharing read "0 samples", "watchpoints unavailable: the trap handler could not
# be installed" and "the program ran too briefly" (the usability review of 2026-11-29).
# Now every sample writes the buffer out if a second has passed since the last write, and
# the report names the process that wrote no end and says the counters are missing.
# ks: two threads on adjacent fields of one struct (false sharing only) for ~2.5 s of CPU
# each, then raise(SIGKILL).  Bars: status 137; events on disk (total_all > 0; ~200 in a
# run here), all false sharing on `s`; the warning; the watch line not blaming the handler.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t422 "gcc is not installed"; exit 0; }
cat >ks.c <<'EOC'
#include <pthread.h>
#include <signal.h>
#include <time.h>
struct { volatile long a, b; } s;
static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static void *w(void *arg)
{
	long me = (long)arg;
	for (long i = 0;; i++) {
		if (me)
			s.b++;
		else
			s.a++;
		if (me && !(i & 0xfffff) && cpu() > 2.5)
			raise(SIGKILL);	/* no thread ends: none writes its counters */
	}
}
int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, w, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
EOC
gcc -O2 -g -pthread ks.c -o ks
"$SONDE" comm -o rec -- ./ks >out.txt 2>err.txt
check "t422-status-$?" [ $? -eq 137 ]
meta() { sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = '$1'"; }
a=$(meta total_all) f=$(meta total_false)
check "t422-events-kept-${a:-0}" [ "${a:-0}" -gt 0 ]
check "t422-false-sharing-${f:-0}-of-${a:-0}" [ "${f:-0}" = "${a:-0}" ]
check t422-object-named grep -q "false sharing in s " err.txt
flat err.txt >err.flat
check t422-warned grep -q "1 process(es) ended without closing the recording" err.flat
check t422-watch-not-blamed bash -c '! grep -q "could not be installed" err.flat'
check t422-watch-not-known grep -q "watchpoints: not known: no thread wrote its counters" err.flat
