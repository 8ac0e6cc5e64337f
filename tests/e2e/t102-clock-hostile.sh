# Code that single-stepping could break must run unchanged under the clock source:
#   blocked: threads that block SIGTRAP (and every other signal) while chasing pointers;
#            a step there would be a forced trap, killing the program, and a blocked
#            real-time sample signal must not pile up in the signal queue;
#   pushf:   pushf/popf around a load; TF left in the pushed image would turn tracing on.
. "$(dirname "$0")/lib.sh"

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] && [ "$(id -u)" -ne 0 ]; then
	skip clock-hostile "perf_event_paranoid > 2: no cpu-clock sampling for users"
	exit 0
fi

for mode in blocked pushf; do
	"$W/clock-hostile" $mode 0.4 >native.out 2>&1
	nrc=$?
	"$SONDE" mem -q -s clock -o "p-$mode" -- "$W/clock-hostile" $mode 0.4 >prof.out 2>prof.err
	prc=$?
	check "clock-hostile-$mode-status" test "$nrc" = 0 -a "$prc" = 0
	check "clock-hostile-$mode-output" cmp -s native.out prof.out
	check "clock-hostile-$mode-tf" grep -q 'tf=0$' prof.out
done
# the pushf run was really sampled (otherwise it proves nothing)
samples=$(awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' p-pushf/mem/objects.csv)
check clock-hostile-pushf-sampled test "$samples" -ge 100
