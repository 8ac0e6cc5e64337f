#!/usr/bin/env bash
# t063-mem-robust: sonde never harms the program it watches.  Under `sonde mem` (clock
# source, and inst where the program is rebuilt): 1,000 threads, fork + exec, a program
# that owns SIGRTMIN and SIGRTMIN+1, a program that dies of SIGSEGV (same status, readable
# partial profile), and stdout byte for byte identical.
. "$(dirname "$0")/lib.sh"

# 1,000 threads: all run, all recorded (thread 0 plus 1,000 rows).
"$SONDE" mem -q -o p1 -- "$W/threads1000" >out 2>err
check t063-threads1000-status [ $? -eq 0 ]
check t063-threads1000-stdout [ "$(cat out)" = "threads1000: threads=1000 ok" ]
check t063-threads1000-rows [ "$(($(wc -l <p1/mem/threads.csv) - 1))" -eq 1001 ]

# fork + exec: the same lines as natively; parent, 2 children and their 2 exec'd images
# each leave a recording.
"$W/forkexec" | sort >native
"$SONDE" mem -q -o p2 -- "$W/forkexec" >out 2>err
rc=$?
check t063-forkexec-status [ "$rc" -eq 0 ]
check t063-forkexec-stdout cmp -s native <(sort out)
check t063-forkexec-processes [ "$(ls p2/*.proc | wc -l)" -eq 5 ]

# The program's own real-time signals: every one delivered to its handler.
want="sigrtmin: signals=4000 rtmin=2000 rtmin1=2000 ok"
"$SONDE" mem -q -o p3 -- "$W/sigrtmin" >out 2>err
check t063-sigrtmin-clock-status [ $? -eq 0 ]
check t063-sigrtmin-clock-stdout [ "$(cat out)" = "$want" ]
if command -v clang >/dev/null && "$SONDE_BUILD/sonde-cc" -O2 \
	"$SONDE_TOP/tests/workloads/sigrtmin.c" -o sigrtmin 2>cc.err; then
	# Sampled inst (0.5 G accesses: not exact mode); the handlers' accesses are sampled too.
	"$SONDE" mem -q -o p4 --source inst -- ./sigrtmin >out 2>err
	check t063-sigrtmin-inst-status [ $? -eq 0 ]
	check t063-sigrtmin-inst-stdout [ "$(cat out)" = "$want" ]
else
	skip t063-sigrtmin-inst "cannot build with sonde-cc"
fi

# SIGSEGV: the shell sees 128 + 11 from sonde as from the program; the profile is there.
( "$SONDE" mem -q -o p5 -- "$W/segv" >out 2>err )
rc=$?
check t063-segv-status [ "$rc" -eq 139 ]
check t063-segv-stdout [ "$(cat out)" = "segv: working" ]
site=$(grep -n '= calloc(' "$SONDE_TOP/tests/workloads/segv.c" | head -1 | cut -d: -f1)
check t063-segv-profile [ "$(awk -F, 'NR == 2 { print $1 }' p5/mem/objects.csv)" = "alloc_big (segv.c:$site)" ]
check t063-segv-end-signal grep -q '^signo=11$' p5/*.proc
# every tool says a signal ended the program, as mem's header does (the trial of
# 2026-11-28: comm, reuse and variance did not); mem's header alone, not twice
for tool in comm reuse variance; do
	( "$SONDE" $tool -q -o p5$tool -- "$W/segv" >out 2>err )
	check "t063-segv-$tool-status" [ $? -eq 139 ]
	check "t063-segv-$tool-said" grep -q "^sonde: warning: 1 process(es) ended by a signal (the first: [0-9]*, by signal 11, Segmentation fault)" err
done
"$SONDE" report p5 >out 2>err
check t063-segv-mem-once bash -c '! grep -q "ended by a signal" err && grep -q "ended by signal 11" out'

# stdout: byte for byte.
"$W/stdout" >native
"$SONDE" mem -q -o p6 -- "$W/stdout" >out 2>err
check t063-stdout-status [ $? -eq 0 ]
check t063-stdout-identical cmp -s native out
