#!/usr/bin/env bash
# t031-wrapper-program: a program started through a wrapper (`env`, `/usr/bin/time`) is
# what every tool names and models.  The wrapper's processes come first in the recording
# and take no sample (env execs the program; time forks, execs it, and waits).  Found on
# CoMD run as `sonde reuse -- /usr/bin/time ./CoMD`: reuse modelled the recording's first
# process, the wrapper ("no use watched", 0 accesses); comm and variance named it as the
# program; mem's header said "mixed" for the program, and "source mixed, period mixed"
# for a sonde-cc program (the wrapper, not built by sonde-cc, fell back to clock).
# Exact counts are the program's own, so they must not change with the wrapper.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t031-build || exit 0
meta() { sqlite3 "$1/profile.db" "SELECT value FROM meta WHERE key = '$2'"; }

# reuse through env (sampled, inst source): env is no sonde-cc program, so its process
# takes the clock source and no sample before it execs rb
"$SONDE" reuse -s inst -o env -- env T031=1 "$T/rb" sweep 1000 1000 >/dev/null 2>summary
check t031-reuse-status [ $? -eq 0 ]
check t031-reuse-exe [ "$(meta env exe)" = "$T/rb" ]
check t031-reuse-source [ "$(meta env source)" = inst ]
check t031-reuse-watched [ "$(meta env outcomes)" -gt 0 ]
check t031-reuse-accesses [ "$(meta env accesses)" -gt 0 ]
# env, left out, named with why (reuse's model.c, unmodelled)
check t031-reuse-says-process \
	grep -q "of the recording's 2 processes; not modelled: [^ ]*env (pid [0-9]*: [0-9]* samples\? by the clock source, not summed with the inst source's)" <(flat summary)
# --exact: env refuses for itself and runs unprofiled; rb's exact counts are the same as
# without the wrapper
"$SONDE" reuse -q --exact -o direct -- "$T/rb" sweep 1000 10 >/dev/null 2>&1
"$SONDE" reuse -q --exact -o exact -- env T031=1 "$T/rb" sweep 1000 10 >/dev/null 2>exact.err
check t031-reuse-exact-status [ $? -eq 0 ]
# the refusal names the wrapper that refuses, not "the program"
check t031-refusal-names-env grep -q "^sonde: tool 'reuse' cannot start in env (pid [0-9]*): .*; env runs unprofiled" exact.err
check t031-reuse-exact-same cmp -s direct/reuse/histogram.csv exact/reuse/histogram.csv

# mem with the inst source through env: the header is the program's, source inst (env, on
# the clock, is no describer even where its loader took a few samples: mem's db.c,
# describing; a pair of suites read "source mixed", exe env, 2026-11-29)
"$SONDE" mem -s inst -o mem -- env T031=1 "$T/rb" sweep 1000 1000 >/dev/null 2>summary
check t031-mem-status [ $? -eq 0 ]
check t031-mem-source [ "$(meta mem source)" = inst ]
check t031-mem-exe [ "$(meta mem exe)" = "$T/rb" ]
check t031-mem-header grep -q "^sonde mem: $T/rb sweep 1000 1000\$" summary
# env's image before its exec and rb's after have one pid: their threads' labels differ
# (the process prefix, "PID.e1.0" after the exec; both were "PID.0")
# no MPI rank: "-", not -1
check t031-mem-no-rank-minus-1 [ -z "$(sed -n '/^Threads/,$p' summary | awk '$2 == "-1"')" ]
# ... and not 0 either, an MPI rank's number (for a moment on 2026-11-28, when the CSV's
# rank became empty: the review): every thread row's rank column is "-"
check t031-mem-rank-dash awk '/^Threads/ { on = 1; getline; next } on && !/^  / { exit }
	on { n++; if ($2 != "-") bad++ } END { exit !(n && !bad) }' summary
check t031-mem-thread-labels-unique [ -z "$(awk -F, 'NR > 1 { print $1 }' mem/mem/threads.csv | sort | uniq -d)" ]

# variance through env names the program (0.5 s: enough clock samples to tell it apart)
"$SONDE" variance -q -o var -- env T031=1 "$T/rb" sweep 100000 2000 >/dev/null 2>&1
check t031-variance-exe [ "$(meta var exe)" = "$T/rb" ]

# comm with the inst source through /usr/bin/time (a fork, then exec): time falls back to
# the clock source; the header's program, source and unit are cb-inst's
if [ -x /usr/bin/time ]; then
	. "$(dirname "$0")/t40-comm-lib.bash"
	if comm_build t031-comm-build; then
		"$SONDE" comm -q -s inst -o comm -- /usr/bin/time -o t.out "$T/cb-inst" pingpong 100000 \
			>/dev/null 2>&1
		check t031-comm-status [ $? -eq 0 ]
		check t031-comm-exe [ "$(meta comm exe)" = "$T/cb-inst" ]
		check t031-comm-source [ "$(meta comm source)" = inst ]
		check t031-comm-unit grep -q "^estimated cache-line transfers" <(meta comm unit)
		# the HTML matrices label threads of processes without a rank by pid, not
		# as MPI rank -1 ("2 (r-1.t0)")
		"$SONDE" report comm --html comm.html >/dev/null 2>&1
		check t031-comm-html-no-rank-minus-1 [ -z "$(grep -o '(r-1\.t[0-9]*)' comm.html)" ]
		check t031-comm-html-pid-labels grep -q '[0-9] ([0-9]*\.t0)' comm.html
	fi
else
	skip t031-comm "/usr/bin/time is not installed"
fi
