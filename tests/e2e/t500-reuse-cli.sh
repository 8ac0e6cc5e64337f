#!/usr/bin/env bash
# t500-reuse-cli: `sonde reuse` options: --help, usage errors (exit 2, one line naming the
# problem), --slots beyond the debug registers refused on a plain program, --shared runs
# sampled, --exact with another source refused, --exact on a program not built by sonde-cc
# refused by the runtime with the reason (not run on a 1 ns clock), and the tool listed in
# `sonde --help`.
. "$(dirname "$0")/lib.sh"

"$SONDE" reuse --help >help 2>&1
check t500-help [ $? -eq 0 ]
check t500-help-text grep -q "usage: sonde reuse" help
check t500-help-distances grep -q "inst source" help
"$SONDE" --help >top 2>&1
check t500-listed grep -q "reuse" top

"$SONDE" reuse >out 2>err
check t500-no-program [ $? -eq 2 ]
check t500-no-program-msg grep -q "no program to run" err
"$SONDE" reuse --slots 33 -- true >out 2>err
check t500-bad-slots [ $? -eq 2 ]
check t500-bad-slots-msg grep -q "slots wants 1 to 32" err
# more slots than debug registers: only software watchpoints (a sonde-cc program) have them;
# the program runs unprofiled; it exited 0, so the status is sonde's failure, 1 (a script
# must not take it for a profile), and no empty output directory is left
"$SONDE" reuse --slots 5 -o s5 -- true >out 2>err
check t500-hw-slots-runs [ $? -eq 1 ]
check t500-hw-slots-no-dir [ ! -e s5 ]
check t500-hw-slots-msg grep -q "reuse --slots 5: debug registers watch 4 words" err
check t500-hw-slots-nothing grep -q "nothing was recorded" err
"$SONDE" reuse --shared -o sh -- true >out 2>err
check t500-shared-sampled-runs [ $? -eq 0 ]
"$SONDE" reuse --exact --source clock -- true >out 2>err
check t500-exact-source [ $? -eq 2 ]
check t500-exact-source-msg grep -q "needs the inst source" err
"$SONDE" reuse --exact -o plain -- true >out 2>err
check t500-exact-plain-runs [ $? -eq 1 ]
check t500-exact-plain-no-dir [ ! -e plain ]
# an empty directory the user made and named with -o is the user's: kept (review)
mkdir mine
"$SONDE" reuse --exact -o mine -- true >out 2>err
check t500-exact-plain-mine-status [ $? -eq 1 ]
check t500-exact-plain-mine-kept [ -d mine ]
check t500-exact-plain-msg grep -q "this program was not built by sonde-cc" err
check t500-exact-plain-nothing grep -q "nothing was recorded" err
# and said before the program runs, on the first line (true is a dynamic program that
# does not link libsonde-inst.so)
check t500-exact-plain-said-first bash -c "head -1 err | grep -q '^sonde: warning: .*true was not built by sonde-cc (it does not link libsonde-inst.so): --exact records nothing'"
"$SONDE" reuse --bogus -- true >out 2>err
check t500-bad-option [ $? -eq 2 ]

# A run too short for one sample says so, not the clock source's caveats about what its
# samples would have told (the usability review of 2026-11-28); a period of 1 s of CPU
# time on /bin/true takes none.
"$SONDE" reuse --source clock --period 1000000000 -o nosample -- /bin/true >/dev/null 2>ns.txt
check t500-no-sample-status [ $? -eq 0 ]
ns=$(sqlite3 nosample/profile.db "SELECT value FROM meta WHERE key = 'samples'")
check "t500-no-sample-samples ($ns)" [ "$ns" = 0 ]
# (where no watchpoint can be armed, as on a VM whose debug registers do not trap, that is
# said first: more samples would observe nothing either)
if [ "$(sqlite3 nosample/profile.db "SELECT value FROM meta WHERE key = 'watch_backend'")" = none ]; then
	check t500-no-backend-said grep -q "nothing was observed: no watchpoint can be armed in this program" <(flat ns.txt)
	check t500-no-backend-no-period-advice bash -c '! grep -q "shorter --period" ns.txt'
else
	check t500-no-sample-said grep -q "no sample was taken: the program ran too briefly for the period (1000000000 ns)" <(flat ns.txt)
fi
# a sonde-cc build has software watchpoints: there the missing sample is the reason
. "$(dirname "$0")/t50-reuse-lib.bash"
if reuse_build t500-no-sample-cc; then
	"$SONDE" reuse --source clock --period 1000000000 -o nosample-cc -- "$T/rb" sweep 100 2 \
		>/dev/null 2>nsc.txt
	check t500-no-sample-cc-said grep -q "no sample was taken: the program ran too briefly for the period (1000000000 ns); a shorter --period, or a longer run, samples it; this program was built by sonde-cc, run it with --source inst" <(flat nsc.txt)
fi
