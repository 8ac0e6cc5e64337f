#!/usr/bin/env bash
# t416-comm-reuse-arm-failures: arms the watch engine refused are said in the summaries of
# comm and reuse and in `sonde report` (meta arm_failures and watch_errno), with the
# errno's name, as variance says them (t818; one function of prof/report.c prints it for
# the three); a run with none says nothing of them.  The workload (below) holds all 4
# debug registers of each of its two threads with breakpoint events of its own, as a
# debugger or a watchpoint library would, then both threads store to and load from the
# same lines: every arm in those threads is refused with ENOSPC.  With 0 held, the same
# runs arm.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"

command -v gcc >/dev/null || { skip t416 "gcc is not installed"; exit 0; }
"$SONDE" info 2>/dev/null | grep -q "their traps fire" ||
	{ skip t416 "the debug registers do not trap here (comm and reuse arm none on a plain build)"; exit 0; }

# cbp N SECONDS: two threads, each holding N breakpoint events on itself (taken before the
# two start sharing, behind a barrier), share 64 lines for SECONDS of CPU time each.
cat >cbp.c <<'EOF'
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t shared[64 * 8], spare[2][8];
static int want = 4, got[2];
static double secs = 0.5;
static pthread_barrier_t bar;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *thr(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (int i = 0; i < want && i < 4; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_BREAKPOINT;
		a.size = sizeof(a);
		a.bp_type = HW_BREAKPOINT_RW;
		a.bp_addr = (uint64_t)(uintptr_t)&spare[me][i * 2];
		a.bp_len = 8;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		got[me] += syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) >= 0;
	}
	pthread_barrier_wait(&bar);
	double end = cpu_now() + secs;
	uint64_t s = 0;
	while (cpu_now() < end)
		for (int i = 0; i < 4096; i++) {
			shared[(i % 64) * 8 + me] += (uint64_t)i;
			s += shared[((i + 17) % 64) * 8 + 1 - me];
		}
	return (void *)(uintptr_t)s;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		want = atoi(argv[1]);
	if (argc > 2)
		secs = atof(argv[2]);
	pthread_barrier_init(&bar, NULL, 2);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thr, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("cbp: %d of its own breakpoints held\n", got[0] + got[1]);
	return 0;
}
EOF
gcc -O1 -g -fno-omit-frame-pointer -pthread cbp.c -o cbp || { fail t416-build "gcc could not build cbp.c"; exit 0; }

# held_run TOOL DIR: TOOL on cbp with 4 registers held a thread, made again, up to 3 times,
# until the workload holds its 8; st its status, k the runs.  A watch of the tool's armed in
# a worker before it takes its 4 leaves it 3 of its own (comm: a CI run read 7 held and 116
# arms of 452 attempts, 2026-11-28; reuse: below).
held_run() {
	for k in 1 2 3; do
		rm -rf "$2"
		"$SONDE" "$1" --source clock -o "$2" -- ./cbp 4 0.5 >out.txt 2>err.txt
		st=$?
		grep -q "cbp: 8 of its own breakpoints held" out.txt && break
	done
}
held_run comm held
check t416-comm-held-status [ $st -eq 0 ]
check "t416-comm-held-runs-in-$k" grep -q "cbp: 8 of its own breakpoints held" out.txt
n=$(comm_meta held arm_failures)
e=$(comm_meta held watch_errno)
comm_check held "t416-comm-held-failures-$n" [ "${n:-0}" -gt 0 ]
check "t416-comm-held-errno-$e" [ "$e" = 28 ]	# ENOSPC on Linux x86-64
# comm arms in the sampling thread only: none of its arms can succeed in a worker that
# holds its registers (0 arms of 884-912 in runs alone).  A sample of the main thread
# (which holds none: its start, its exit), or of a worker before it has taken its 4, can
# arm once: a make check beside a CI clone read 4 arms (one arming of 4 registers,
# 2026-11-28 09:45 UTC).  At most 2 such armings, and every other attempt refused.
na=$(comm_meta held arms)
check "t416-comm-held-few-arms-${na:-none}-of-${n:-0}" awk -v a="${na:-99}" -v f="${n:-0}" \
	'BEGIN { exit !(a <= 8 && a * 20 < f) }'
check t416-comm-summary-says-failures grep -q "^$n, the last ENOSPC (No space left on device): the thread's debug registers were taken" <(header_value "arm failures:" err.txt)
"$SONDE" report held >rep.txt 2>&1
check t416-comm-report-says-failures grep -q "^  arm failures: $n, the last ENOSPC" rep.txt

"$SONDE" comm --source clock -o free -- ./cbp 0 0.5 >out.txt 2>err.txt
check t416-comm-free-runs grep -q "cbp: 0 of its own breakpoints held" out.txt
n=$(comm_meta free arm_failures)
check "t416-comm-free-no-failures-$n" [ "${n:-0}" -eq 0 ]
# the control: the same run arms where the registers are free
comm_check free "t416-comm-free-arms-$(comm_meta free arms)" [ "$(comm_meta free arms)" -gt 0 ]
check t416-comm-free-summary-silent bash -c '! grep -q "arm failures" err.txt'

# reuse arms a use's watch in its owner (the sampling thread) first, then in every other
# thread of the process; where the owner's arm is refused, in none (a use its owner cannot
# watch has no reuse to give).  The samples land in the two workers, whose registers are
# held: every use is refused once, by its owner, and none is watched.  (Until 2026-11-27
# each was armed in main, whose registers are free, and counted as watched: "32 uses
# watched, 0 outcomes" and two refusals a use.)  A watch of reuse's already armed when a
# worker starts takes one of its registers first, and the worker then holds 3 of its own,
# not 4 (once in a make check beside a CI clone, 2026-11-27 05:55 UTC: 7 held): the run is
# made again, up to 3 times, until the workload holds its 8, the case this part is about.
held_run reuse rheld
check t416-reuse-held-status [ $st -eq 0 ]
check "t416-reuse-held-runs-in-$k" grep -q "cbp: 8 of its own breakpoints held" out.txt
n=$(sqlite3 rheld/profile.db "SELECT value FROM meta WHERE key = 'arm_failures'")
e=$(sqlite3 rheld/profile.db "SELECT value FROM meta WHERE key = 'watch_errno'")
check "t416-reuse-held-failures-$n" [ "${n:-0}" -gt 0 ]
check "t416-reuse-held-errno-$e" [ "$e" = 28 ]
a=$(sqlite3 rheld/profile.db "SELECT value FROM meta WHERE key = 'armed'")
# (main may take a sample before it starts the workers, or while it joins them: such a
# use is watched in main and refused by the two workers; at most a few of them)
check "t416-reuse-held-owner-refused-$n-$a" [ $((10 * ${a:-1})) -le "${n:-0}" ]
# (the summary says so when none was watched; a use of main's, above, makes it count them)
if [ "${a:-0}" -eq 0 ]; then
	check t416-reuse-held-says-unavailable grep -q "every arm was refused" err.txt
else
	check "t416-reuse-held-says-watched-$a" grep -q "^  $a uses watched" err.txt
fi
check t416-reuse-summary-says-failures grep -q "arm failures: $n, the last ENOSPC (No space left on device): the thread's debug registers were taken" <(flat err.txt)
"$SONDE" report rheld >rep.txt 2>&1
check t416-reuse-report-says-failures grep -q "^  arm failures: $n, the last ENOSPC" rep.txt

# Every arm refused: software watchpoints forced on a program not built with sonde-cc
# (EOPNOTSUPP).  No use is watched then (meta armed 0), and the summary says the
# watchpoints were unavailable; until 2026-11-27 a use counted as watched whatever its arms
# gave ("27 uses watched, 0 outcomes").
SONDE_WATCH=soft "$SONDE" reuse --source clock -o rsoft -- ./cbp 0 0.3 >out.txt 2>err.txt
check t416-reuse-soft-status [ $? -eq 0 ]
sn=$(sqlite3 rsoft/profile.db "SELECT value FROM meta WHERE key = 'arm_failures'")
sa=$(sqlite3 rsoft/profile.db "SELECT value FROM meta WHERE key = 'armed'")
check "t416-reuse-soft-failures-$sn" [ "${sn:-0}" -gt 0 ]
check "t416-reuse-soft-none-watched-$sa" [ "${sa:-1}" -eq 0 ]
check t416-reuse-soft-says-unavailable grep -q "watchpoints unavailable: every arm was refused" err.txt

# Up to 3 tries: in one of 6 runs of make check beside another, the free run's arms were
# refused ENOSPC (199 against the held run's 68), probably while the other suite's programs held
# debug registers (t416's and t818's own holders: not proven); a holder lives ~1 s, so a retry meets
# free registers.  One ENOSPC-free run is what the control needs.
# Beside another suite all 3 tries met ENOSPC once (2026-11-27 02:23 UTC): now up to 5,
# a second apart, and where every one meets it the free run's checks are skipped, saying
# so (the control needs free registers; the held run above is checked either way).
free_ok=0
for try in 1 2 3 4 5; do
	rm -rf rfree
	"$SONDE" reuse --source clock -o rfree -- ./cbp 0 0.5 >out.txt 2>err.txt
	[ "$(sqlite3 rfree/profile.db "SELECT value FROM meta WHERE key = 'watch_errno'")" != 28 ] &&
		{ free_ok=1; break; }
	echo "    t416: free reuse run $try met refused registers (ENOSPC): again"
	sleep 1
done
if [ $free_ok = 0 ]; then
	skip t416-reuse-free "5 runs a second apart met refused debug registers (ENOSPC): other programs on this machine held them"
	exit 0
fi
check t416-reuse-free-runs grep -q "cbp: 0 of its own breakpoints held" out.txt
m=$(sqlite3 rfree/profile.db "SELECT value FROM meta WHERE key = 'arm_failures'")
e=$(sqlite3 rfree/profile.db "SELECT value FROM meta WHERE key = 'watch_errno'")
a=$(sqlite3 rfree/profile.db "SELECT value FROM meta WHERE key = 'armed'")
check "t416-reuse-free-arms-$a" [ "${a:-0}" -gt 0 ]
# reuse also counts the arms its engine refuses where the word is watched in that thread
# already (EEXIST, WATCH_REFUSE: 0-14 of ~800 in three runs), so a free run may have some:
# none of them ENOSPC, and fewer than one in two uses (the held run: every use refused).
# Under load they rise: a make check beside a CI clone read 258 for 710 (2026-11-27,
# evening; 0-8 for 886-1018 alone and beside 3 spinners).  Why is open: the closing note.
check "t416-reuse-free-few-failures-$m-for-$a" [ $((2 * ${m:-0})) -lt "${a:-0}" ]
if [ "${m:-0}" -eq 0 ]; then
	check t416-reuse-free-summary-silent bash -c '! grep -q "arm failures" err.txt'
else
	check "t416-reuse-free-errno-$e" [ "$e" != 28 ]
	check t416-reuse-free-summary-says grep -Eq "^  arm failures: $m, the last E[A-Z]+ \(" err.txt
fi
