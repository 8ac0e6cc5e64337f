# The inst source does not see atomic read-modify-writes (sonde-cc's load and store
# callbacks leave out lock-prefixed instructions): a run on inst says so, naming the
# functions that hold them (the usability review of 2026-11-28: comm --exact read an
# atomic counter shared by two threads as no true sharing at all, and said nothing).
# at.c: two threads, one atomic add each iteration in work() and a plain store to their
# own slot; -DPLAIN builds it without the atomic (a plain add under a mutex-free race).
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t070 "clang is not installed (sonde-cc needs it)"; exit 0; }
cat >at.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
static long counter, slot[2][8];
static void *work(void *arg)
{
	long me = (long)arg;
	for (int i = 0; i < 20000; i++) {
#ifdef PLAIN
		((volatile long *)&counter)[0] += 1;
#else
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
#endif
		((volatile long *)slot[me])[0] += 1;
	}
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", slot[0][0] + slot[1][0]);
	return 0;
}
EOF
"$SONDE_BUILD/sonde-cc" -O1 -pthread at.c -o at && "$SONDE_BUILD/sonde-cc" -O1 -pthread -DPLAIN at.c -o plain ||
	{ fail t070-build "sonde-cc could not build at.c"; exit 0; }
"$SONDE" comm -q --exact -o ex -- ./at >out 2>err
check t070-status [ $? -eq 0 ]
check t070-output grep -qx 40000 out
check t070-warned grep -q "^sonde: warning: the program's code holds 1 atomic read-modify-write(s) .* in 1 function(s), work (1), which the inst source does not see" err
check t070-meta [ "$(sqlite3 ex/profile.db "SELECT value FROM meta WHERE key = 'inst_atomics'")" = 1 ]
# the same with mem on inst
"$SONDE" mem -q --source inst -o m -- ./at >/dev/null 2>err2
check t070-mem-warned grep -q "atomic read-modify-write(s) .* work (1)" err2
# none: no atomic in the code, or a source that samples them
"$SONDE" comm -q --exact -o ex2 -- ./plain >/dev/null 2>err3
check t070-plain-status [ $? -eq 0 ]
check t070-plain-recorded [ -s ex2/profile.db ]
check t070-plain-silent bash -c '! grep -q "atomic read-modify" err3'
"$SONDE" mem -q --source clock -o m3 -- ./at >/dev/null 2>err4
check t070-clock-status [ $? -eq 0 ]
check t070-clock-recorded grep -q '^source=clock$' m3/*.proc
check t070-clock-silent bash -c '! grep -q "atomic read-modify" err4'
# a seq_cst atomic store is an xchg the callbacks see: not counted (the review of
# 2026-11-28); a C++ constructor's two alias symbols (C1, C2) name it once
printf '_Atomic long flag;\nint main(void) { for (long i = 0; i < 100; i++) flag = i; return 0; }\n' >st.c
"$SONDE_BUILD/sonde-cc" -O1 st.c -o st && "$SONDE" mem -q --source inst -o m5 -- ./st >/dev/null 2>err5
check t070-store-status [ $? -eq 0 ]
check t070-store-silent bash -c '! grep -q "atomic read-modify" err5'
if command -v clang++ >/dev/null; then
	printf '#include <atomic>\nstd::atomic<long> n;\nstruct S { S(); };\nS::S() { n.fetch_add(1); }\nint main() { S s; return 0; }\n' >ctor.cc
	"$SONDE_BUILD/sonde-cc" -O1 ctor.cc -o ctor && "$SONDE" mem -q --source inst -o m6 -- ./ctor >/dev/null 2>err6
	# (main may hold it too, S() inlined: that is another function)
	check t070-ctor-once [ "$(grep -o 'S::S() (1)' err6 | wc -l)" -eq 1 ]
fi
# clang's outlined OpenMP regions are local symbols numbered per file (".omp_outlined..1"
# in each): named with their file (the trial of 2026-11-29: AMG had three
# ".omp_outlined..19"); where libomp is missing, skipped
cat >ompat.c <<'C'
long hits;
int main(void)
{
#pragma omp parallel num_threads(2)
	for (int i = 0; i < 1000; i++) {
#pragma omp atomic
		hits++;
	}
	return hits != 2000;
}
C
if "$SONDE_BUILD/sonde-cc" -O1 -fopenmp ompat.c -o ompat 2>omp.err; then
	"$SONDE" mem -q --source inst -o m7 -- ./ompat >/dev/null 2>err7
	check t070-omp-status [ $? -eq 0 ]
	check t070-omp-file grep -q "atomic read-modify-write(s) .* [^ ]*\.omp_outlined[^ ]* in ompat\.c (1)" err7
else
	skip t070-omp "sonde-cc -fopenmp could not build ompat.c: $(head -c 200 omp.err)"
fi
