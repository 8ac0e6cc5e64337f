#!/usr/bin/env bash
# t404-comm-no-sharing: private-only and read-only workloads communicate < 1% of what a
# sharing workload of the same size does (write-volume at 100%: every store to one common
# word); a run with no communication at all says so and writes all-zero matrices.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t404-build || exit 0
# N: the sharing run's volume depends on how the workers interleave (1.6-2.8M at 1009 for
# 800,000, 0.8-1.4M at 400,000), and at 800,000 one run beside another suite and benchmarks
# read 805,182 (2026-11-27 02:03 UTC) against readonly's 8,072 (the fill: 64 lines read by
# 4 workers, whatever N) x 100.  At 3,200,000 it read 8.3M (the test, 02:07 UTC, load ~4).
N=3200000

"$SONDE" comm -q --source inst --period 1009 -o wv -- "$T/cb-inst" wv $N 100
ref=$(mat_sum wv/comm/matrix-all-thread.csv)
check t404-sharing-volume [ "$ref" -gt 0 ]
for m in private readonly; do
	"$SONDE" comm --source inst --period 1009 -o $m -- "$T/cb-inst" $m $N 2>$m.txt
	check t404-$m-status [ $? -eq 0 ]
	v=$(mat_sum $m/comm/matrix-all-thread.csv)
	echo "$m: $v against $ref"
	check t404-$m-under-1pct [ $((v * 100)) -lt "$ref" ]
	check t404-$m-invariants mat_invariants $m thread
done
# private: nothing at all, and the summary says the matrix is empty
check t404-private-zero [ "$(mat_sum private/comm/matrix-all-thread.csv)" -eq 0 ]
check t404-private-said grep -q 'no communication detected: the matrix is empty' private.txt
check t404-private-square [ "$(head -1 private/comm/matrix-all-thread.csv)" = "thread,0,1,2,3,4" ]
check t404-private-no-pairs [ "$(wc -l <private/comm/pairs.csv)" -eq 1 ]
"$SONDE" report private >again 2>&1
check t404-report-says-empty grep -q 'no communication detected' again

# What sampling reaches, said where it found nothing or little (the trial of Splash-3 FFT,
# 2026-11-27: "false sharing 100.0%" from 2 events, --exact 49,813 transfers): the empty
# sampled run says that data handed over across a barrier is mostly missed; a split from
# fewer than 30 events (meta `events`) is called a hint, in the terminal and on the page,
# and one from more is not.
check t404-private-reach sh -c "tr '\n' ' ' <private.txt | tr -s ' ' | grep -q 'Sampling sees a transfer when the reader comes soon after a sampled store'"
for m in wv readonly; do
	"$SONDE" report $m >$m.rep 2>&1
	ev=$(sqlite3 $m/profile.db "SELECT value FROM meta WHERE key = 'events'")
	all=$(sqlite3 $m/profile.db "SELECT value FROM meta WHERE key = 'total_all'")
	if [ "${all:-0}" -gt 0 ] && [ "${ev:-0}" -lt 30 ]; then
		check "t404-$m-few-$ev-said" sh -c "flat() { tr '\n' ' ' <\$1 | tr -s ' '; }; flat $m.rep | grep -q 'only $ev events\\? (sampled accesses'"
	else
		check "t404-$m-events-$ev-not-few" sh -c "! grep -q 'only [0-9]* events\\? (sampled' $m.rep"
	fi
done
# the same recording with its count of events set to 3: the hint, with the number
cp -r wv few && sqlite3 few/profile.db "UPDATE meta SET value = '3' WHERE key = 'events'"
"$SONDE" report few >few.rep 2>&1
check t404-few-said sh -c "tr '\n' ' ' <few.rep | tr -s ' ' | grep -q 'only 3 events (sampled accesses and traps that found a transfer): the volumes and the true/false split are a hint'"
"$SONDE" report few --html few.html >/dev/null 2>&1
check t404-few-page grep -q '<th>warning</th><td>only 3 events (sampled' few.html
# and no remedy from 3 events: the split changes from run to run (the usability review of
# 2026-11-28: a program with no false sharing told to pad in 2 of 7 runs), in the terminal
# and on the page, which now carries the summary's "What to do"
check t404-few-no-remedy sh -c "tr '\n' ' ' <few.rep | tr -s ' ' | grep -q 'What to do: not enough evidence for a remedy (3 events)'"
check t404-few-no-padding sh -c "! grep -q 'pad or align' few.rep"
# with the POSIX timers (beside hardware watchpoints) a shorter --period adds no sample:
# the advice is --no-watch (the usability review of 2026-11-29: 77, 84 and 69 samples at
# three periods, 5.8x with --no-watch)
if [ "$(sqlite3 few/profile.db "SELECT value FROM meta WHERE key = 'clock_event'")" = posix-timer ]; then
	check t404-few-no-watch-advice grep -q "run longer, --no-watch (this clock samples at most once a scheduler tick" <(flat few.rep)
else
	check t404-few-period-advice grep -q "run longer, a shorter --period" <(flat few.rep)
fi
check t404-few-page-no-remedy grep -q 'What to do: not enough evidence for a remedy (3 events)' few.html
# A long run whose samples fall on no load or store (two threads computing in registers,
# ~1 s of CPU each): said as such, not "ran too briefly" (the usability review of
# 2026-11-29: 1.87 s of CPU, 1 sample with an access, "the program ran too briefly").
cat >regs.c <<'EOC'
#include <pthread.h>
#include <stdio.h>
static void *w(void *arg)
{
	unsigned long x = (unsigned long)arg + 1;
	for (long i = 0; i < 600000000L; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return (void *)x;
}
int main(void)
{
	pthread_t t[2];
	void *r[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, w, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	printf("%lu\n", (unsigned long)r[0] ^ (unsigned long)r[1]);
	return 0;
}
EOC
if gcc -O2 -pthread regs.c -o regs; then
	"$SONDE" comm -o regs-rec -- ./regs >/dev/null 2>regs.err
	check t404-registers-run [ $? -eq 0 ]
	sig=$(sqlite3 regs-rec/profile.db "SELECT value FROM meta WHERE key = 'sample_signals'")
	check "t404-registers-said-signals-${sig:-0}" grep -q "samples fell on a load or store" <(flat regs.err)
	check t404-registers-not-too-briefly bash -c '! grep -q "ran too briefly" regs.err'
fi
# the same run read as a short one (its signal count cleared): "ran too briefly", and with
# the POSIX timers the advice is --no-watch, not a shorter --period
if [ -d regs-rec ] && [ "$(sqlite3 regs-rec/profile.db "SELECT value FROM meta WHERE key = 'clock_event'")" = posix-timer ]; then
	cp -r regs-rec short && sqlite3 short/profile.db "DELETE FROM meta WHERE key = 'sample_signals'"
	"$SONDE" report short >short.rep 2>&1
	check t404-short-no-watch-advice grep -q "ran too briefly for sampling to find any (a longer run, --no-watch" <(flat short.rep)
	check t404-short-no-period-advice bash -c '! grep -q "shorter --period" short.rep'
fi
# A program of one thread: no other thread to exchange with, said as such, not "ran too
# briefly" nor the sampling's reach (a single-threaded run of the usability review of
# 2026-11-29 was told to run longer)
cat >one.c <<'C'
#include <stdio.h>
static double a[1 << 18];
int main(void)
{
	double s = 0;
	for (int r = 0; r < 400; r++)
		for (int i = 0; i < (1 << 18); i++)
			s += a[i] += i;
	printf("%g\n", s);
	return 0;
}
C
if gcc -O1 -g one.c -o one 2>/dev/null; then
	"$SONDE" comm -o one-rec -- ./one >/dev/null 2>one.err
	check t404-one-thread-run [ $? -eq 0 ]
	check t404-one-thread-said grep -q "no communication: the program ran one thread" <(flat one.err)
	check t404-one-thread-no-reach bash -c '! grep -q "ran too briefly\|Sampling sees a transfer" one.err'
else
	skip t404-one-thread "gcc could not build one.c"
fi
