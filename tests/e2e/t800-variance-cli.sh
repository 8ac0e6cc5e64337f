#!/usr/bin/env bash
# t800-variance-cli: `sonde variance` options and errors (exit statuses of doc/sonde.md:
# 2 for usage errors), sonde-cc --sonde-calls, and a --sonde-calls program running without
# sonde (the stubs of libsonde-inst.so).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

"$SONDE" variance --help >help.txt 2>&1
check t800-help-exit0 [ $? -eq 0 ]
check t800-help-mentions-events grep -q -- "--events" help.txt
check t800-help-mentions-timeline grep -q -- "--timeline" help.txt

"$SONDE" variance -e bogus -- true >/dev/null 2>err.txt
st=$?
check t800-bad-metric-exit2 [ "$st" -eq 2 ]
check t800-bad-metric-says-which grep -q "unknown metric 'bogus'" err.txt
# an empty list or item is a usage error (it was taken as the defaults: the usability review)
for e in "" "page-faults," ",time" "time,,cpu-time"; do
	"$SONDE" variance -e "$e" -- true >/dev/null 2>err.txt
	check "t800-empty-metric-'$e'-exit2" [ $? -eq 2 ]
done
"$SONDE" variance >/dev/null 2>err.txt
check t800-no-program-exit2 [ $? -eq 2 ]
"$SONDE" variance --timeline spin >/dev/null 2>err.txt
check t800-timeline-needs-dir-exit2 [ $? -eq 2 ]
"$SONDE" variance --timeline spin "$T/nothing-here" >/dev/null 2>err.txt
check t800-timeline-missing-dir-exit1 [ $? -eq 1 ]
check t800-timeline-missing-dir-named grep -q "^sonde: no recording in '$T/nothing-here': " err.txt
# another tool's recording: a failure (1) that names the tool, not a usage error (2)
"$SONDE" mem -q -o memrec -- true >/dev/null 2>&1
"$SONDE" variance --timeline spin memrec >/dev/null 2>err.txt
check t800-timeline-other-tool-exit1 [ $? -eq 1 ]
check t800-timeline-other-tool-said grep -q "not a 'sonde variance' recording (tool 'mem')" err.txt
"$SONDE" variance --top 0 -- true >/dev/null 2>err.txt
check t800-bad-top-exit2 [ $? -eq 2 ]

"$SONDE" variance -s hw -- true >/dev/null 2>err.txt
check t800-hw-source-refused-exit2 [ $? -eq 2 ]
check t800-hw-source-says-why grep -q "not implemented" err.txt

shown=$("$SONDE_BUILD/sonde-cc" --sonde-calls --sonde-show -c x.c)
case "$shown" in
*-finstrument-functions-after-inlining*) pass t800-sonde-cc-calls-flag ;;
*) fail t800-sonde-cc-calls-flag "$shown" ;;
esac
shown=$("$SONDE_BUILD/sonde-cc" --sonde-show -c x.c)
case "$shown" in
*-finstrument-functions*) fail t800-sonde-cc-default-no-hooks "$shown" ;;
*) pass t800-sonde-cc-default-no-hooks ;;
esac
# --sonde-calls-only: the hooks without the load and store callbacks (the trial of
# 2026-11-29: miniAMR's stencil 6-10x slower with them, under variance, which times calls)
shown=$("$SONDE_BUILD/sonde-cc" --sonde-show --sonde-calls-only -c x.c)
case "$shown" in
*trace-loads* | *-disable-loop-idiom*) fail t800-sonde-cc-calls-only-flags "$shown" ;;
*-finstrument-functions-after-inlining*) pass t800-sonde-cc-calls-only-flags ;;
*) fail t800-sonde-cc-calls-only-flags "$shown" ;;
esac
if command -v clang >/dev/null &&
	"$SONDE_BUILD/sonde-cc" --sonde-calls-only -O1 -pthread \
		"$SONDE_TOP/tests/workloads/variance/vwork.c" -o vwork-only; then
	# its instances timed by the hooks (soft breakpoints), whether the debug registers
	# trap or not
	"$SONDE" variance -q -o only -- ./vwork-only mix 0.2 >/dev/null 2>&1
	n=$(sqlite3 only/profile.db "SELECT count(*) FROM var_instances" 2>/dev/null)
	check "t800-calls-only-instances-$n" [ "${n:-0}" -gt 0 ]
	h=$(sqlite3 only/profile.db "SELECT value FROM meta WHERE key = 'calls_hooked'" 2>/dev/null)
	check "t800-calls-only-hooked-$h" [ "${h:-0}" -gt 0 ]
	# the inst source has no access to count there: refused with the reason, the clock
	# takes over
	"$SONDE" mem -q -o onlymem --source inst -- ./vwork-only mix 0.05 >/dev/null 2>onlymem.err
	check t800-calls-only-no-inst grep -q "^sonde: warning: --source inst could not be used, the program was sampled with clock instead (inst: the program was built by sonde-cc --sonde-calls-only" onlymem.err
else
	skip t800-calls-only "clang is not installed, or sonde-cc --sonde-calls-only failed"
fi

if var_build t800-native vwork.c vwork -pthread; then
	out=$(./vwork mix 0.2)
	check t800-native-runs-with-stubs [ "$out" = "vwork mix done" ]
	# The program's exit status comes back through sonde variance.
	"$SONDE" variance -q -o rec -- ./vwork nosuchmode 1 >/dev/null 2>&1
	check t800-program-status-passed-through [ $? -eq 2 ]
fi

# The handlers' CPU time (meta handler_cpu_ns): a row only where the runtime measured it,
# and then not 0 (the handlers ran, and took wall time); a recording of an older runtime,
# whose STATS records end before the field, has no row (not a 0 that reads as a measured
# cost).  The same for the gate's counters (gated .. yielded, after it; in the .proc
# before).  The old recordings are this one with its STATS records cut to their old sizes
# (src/tools/variance/format.h: the gate's 7 counters are their last 56 bytes, and
# handler_cpu_ns the 8 before).
metav() { sqlite3 "$1/profile.db" "select value from meta where key = '$2'"; }
if var_build t800-cpu vwork.c vwork2 -pthread; then
	"$SONDE" variance -q -o new -- ./vwork2 mix 0.2 >/dev/null 2>&1
	v=$(metav new handler_cpu_ns)
	echo "    this runtime's handler_cpu_ns: '${v}' (none: not measured)"
	# measured again since e8b2fb8 (02c29a5 had dropped it: no row, which passed here)
	check "t800-handler-cpu-measured ($v)" [ "${v:-0}" -gt 0 ]
	# the gate's counters are read: a row each, and their parts within their wholes
	g=$(metav new gated) gf=$(metav new gates_fired) ge=$(metav new gates_expired)
	d=$(metav new deferred) da=$(metav new deferred_armed) de=$(metav new deferred_expired)
	y=$(metav new yielded)
	check "t800-gate-rows-$g-$gf-$ge-$d-$da-$de-$y" [ -n "$g" -a -n "$gf" -a -n "$ge" -a -n "$d" \
		-a -n "$da" -a -n "$de" -a -n "$y" ]
	check "t800-gate-parts" [ $((gf + ge)) -le "${g:-0}" -a $((da + de)) -le "${d:-0}" \
		-a "${y:-0}" -le "${da:-0}" ]
	# the slots' counters (samples_idle, samples_entry, slot_closes): rows, the samples'
	# parts within the samples; a record without them (cut by their 24 bytes) keeps the
	# gate's rows and has none of theirs
	si=$(metav new samples_idle) se=$(metav new samples_entry) sc=$(metav new slot_closes)
	check "t800-slot-rows-$si-$se-$sc" [ -n "$si" -a -n "$se" -a -n "$sc" ]
	check "t800-slot-parts" [ $((si + se)) -le "$(metav new samples)" ]
	# (the unpicked samples in main, the record's last 8 bytes, the hooks' read cost, the 16
	# before, and the call sites' counters and the unpicked region samples', the 24 before
	# those, are cut first by every cut below; t828 and t835 check recordings without them)
	# a record without the OpenMP regions' counter (cut by its 8 bytes more) has no
	# omp_regions row and keeps the bursts' rows; the cuts below remove it too
	check "t800-regions-row" [ "$(metav new omp_regions)" = 0 ]
	cp -r new rg && rm rg/profile.db
	check t800-regions-stats-cut cut_stats rg $((8 + 16 + 24 + 8))
	"$SONDE" report rg >/dev/null 2>&1
	check t800-regions-report-status [ $? -eq 0 ]
	check t800-regions-not-counted [ -z "$(metav rg omp_regions)" ]
	check t800-regions-burst-counted [ "$(metav rg burst_armed)" = "$(metav new burst_armed)" -a \
		-n "$(metav rg burst_entries)" ]
	# a record without the bursts' counters (cut by their 16 bytes: an older runtime) has no
	# burst rows, and one without the kernel speed's probes too (24 bytes more) keeps the
	# slots' rows (the probes' rows are checked where traps fire: t812)
	check "t800-burst-rows" [ -n "$(metav new burst_armed)" -a -n "$(metav new burst_entries)" ]
	cp -r new bu && rm bu/profile.db
	check t800-burst-stats-cut cut_stats bu $((8 + 16 + 24 + 8 + 16))
	"$SONDE" report bu >/dev/null 2>&1
	check t800-burst-report-status [ $? -eq 0 ]
	check t800-burst-not-counted [ -z "$(metav bu burst_armed)$(metav bu burst_entries)" ]
	check t800-burst-slots-counted [ "$(metav bu samples_idle)" = "$si" ]
	cp -r new pr && rm pr/profile.db
	check t800-probe-stats-cut cut_stats pr $((8 + 16 + 24 + 8 + 16 + 24))
	"$SONDE" report pr >/dev/null 2>&1
	check t800-probe-report-status [ $? -eq 0 ]
	check t800-probe-slots-counted [ "$(metav pr samples_idle)" = "$si" -a "$(metav pr slot_closes)" = "$sc" ]
	cp -r new sl && rm sl/profile.db
	check t800-slots-stats-cut cut_stats sl $((8 + 16 + 24 + 8 + 16 + 24 + 24))
	"$SONDE" report sl >/dev/null 2>&1
	check t800-slots-report-status [ $? -eq 0 ]
	check t800-slots-not-counted [ -z "$(metav sl samples_idle)$(metav sl slot_closes)" ]
	check t800-slots-gate-counted [ "$(metav sl gated)" = "$g" -a "$(metav sl yielded)" = "$y" ]
	cp -r new mid && rm mid/profile.db
	check t800-mid-stats-cut cut_stats mid $((8 + 16 + 56 + 24 + 24 + 16 + 8 + 24))
	"$SONDE" report mid >/dev/null 2>&1
	check t800-mid-report-status [ $? -eq 0 ]
	check t800-mid-handler-cpu-measured [ "$(metav mid handler_cpu_ns)" = "$v" ]
	check t800-mid-gate-not-counted [ -z "$(metav mid gated)$(metav mid deferred)" ]
	cp -r new old && rm old/profile.db
	check t800-old-stats-cut cut_stats old $((8 + 16 + 64 + 24 + 24 + 16 + 8 + 24))
	"$SONDE" report old >/dev/null 2>&1
	check t800-old-report-status [ $? -eq 0 ]
	check t800-handler-cpu-not-measured [ -z "$(metav old handler_cpu_ns)" ]
	check t800-old-still-counts [ "$(metav old samples)" = "$(metav new samples)" ]
fi

# a Fortran program where the debug registers do not trap: said before the run that its
# instances cannot be timed, not "rebuild with sonde-cc --sonde-calls-only", which refuses
# Fortran (the trial of 2026-11-29 on Nekbone: told to, and gfortran's own hooks then
# gave 1 instance of 71 calls)
if ! command -v gfortran >/dev/null; then
	skip t800-fortran "gfortran is not installed"
elif "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	skip t800-fortran "the debug registers trap here: a Fortran program's calls are timed"
else
	printf 'program p\n  integer :: i\n  real(8) :: s\n  s = 0\n  do i = 1, 1000\n    s = s + i\n  end do\n  print *, s\nend program\n' >pf.f90
	if gfortran -O1 pf.f90 -o pf; then
		"$SONDE" variance -q -o vf -- ./pf >/dev/null 2>vf.err
		check t800-fortran-status [ $? -eq 0 ]
		check t800-fortran-said grep -q "^sonde: warning: .*: \./pf is a Fortran program (it links libgfortran), and its functions' instances cannot be timed here" vf.err
		check t800-fortran-no-sonde-cc-advice sh -c '! grep -q "rebuild it with .sonde-cc --sonde-calls-only" vf.err'
	else
		fail t800-fortran-build "gfortran could not build pf.f90"
	fi
fi

# a plain build where the debug registers do not trap: the arm-failure line's rebuild is the
# hook build, as the warning before the run says (the usability review of 2026-11-30, L2),
# and no promise of shares the report does not give (M2)
if "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	skip t800-plain-rebuild "the debug registers trap here"
elif gcc -O1 -g -x c -o plain - <<'EOC'
#include <stdio.h>
__attribute__((noinline)) double f(int i) { double s = 0; for (int k = 0; k < 20000; k++) s += k * i; return s; }
int main(void) { double s = 0; for (int i = 0; i < 20000; i++) s += f(i); printf("%g\n", s); return 0; }
EOC
then
	"$SONDE" variance -o plain-rec -- ./plain >/dev/null 2>plain.err
	check t800-plain-status [ $? -eq 0 ]
	check t800-plain-no-shares-promised sh -c '! grep -q "samples. shares" plain.err'
	if grep -q "arm failures:" plain.err; then
		check t800-plain-rebuild-hooks grep -q "rebuild with 'sonde-cc --sonde-calls-only' (call hooks time instances)" <(flat plain.err)
	else
		skip t800-plain-rebuild-hooks "no arm was tried in this run (no backend: none attempted)"
	fi
else
	fail t800-plain-build "gcc could not build the plain program"
fi
