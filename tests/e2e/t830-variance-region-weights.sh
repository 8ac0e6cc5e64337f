#!/usr/bin/env bash
# t830-variance-region-weights: an OpenMP region function is timed at the runtime's call,
# every call at first and, once its calls come faster than the rate cap, a share of them
# that changes from window to window; each instance stands for the inverse of the share it
# was timed with (Horvitz-Thompson), and the mean and CVs weigh it so (doc/sonde-variance.md,
# "OpenMP regions, timed at the runtime's call").  vfirst: 10 slow calls (2000 us of CPU
# a thread), in the first window where every call is timed, then 3000 fast ones (200 us):
# unweighted, the ~7 slow instances timed among ~150 read a mean of 1.35x the fast calls'
# (the trial's HPCCG waxpby: 4 first-touch instances of 24, CV 143%); the calls' own mean
# is 1.02x.  Bars:
#  - the instances carry their weights (instances.csv, var_instances.weight): 1 for the
#    first window's, more than 5 for the later ones (share ~1/50 here);
#  - the function's cpu-time mean is the weighted mean of its kept instances (all kept:
#    under the reservoir's 1000), to 1e-6;
#  - that mean is within 0.9-1.25x of the fast calls' median CPU time as the program
#    measured it (1.02x the truth; the bar leaves the slow calls' weights their noise: 7
#    instances standing for 26 calls in a run where 20 were made, 1.03x);
#  - where slow instances were timed, their unweighted mean is above the weighted one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

command -v gcc >/dev/null || { skip t830 "gcc is not installed"; exit 0; }
gcc -O1 -g -fopenmp -fno-omit-frame-pointer "$SONDE_TOP/tests/workloads/variance/vfirst.c" \
	-o vfirst 2>build.err ||
	{ skip t830 "gcc -fopenmp does not build here: $(head -c 200 build.err)"; exit 0; }
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$SONDE" variance -o rec -- ./vfirst 3000 \
	>out.txt 2>err.txt
check t830-run [ $? -eq 0 ]
fast=$(sed -n 's/.*fast median cpu \([0-9.]*\) us.*/\1/p' out.txt)
q() { sqlite3 rec/profile.db "$1"; }
W="FROM var_instances WHERE function LIKE 'step%'"
n=$(q "SELECT count(*) $W")
wmin=$(q "SELECT min(weight) $W")
wmax=$(q "SELECT max(weight) $W")
check "t830-instances-${n:-0}" [ "${n:-0}" -ge 20 -a "${n:-0}" -lt 1000 ]
check "t830-first-window-weight-${wmin:-none}" float_between "${wmin:-0}" 1 1
check "t830-later-weight-${wmax:-none}" float_between "${wmax:-0}" 5 100000
check t830-csv-weight grep -q "^function,context,thread,seq,start,time,cpu_time,page_faults,context_switches,weight$" rec/variance/instances.csv
# one row per calling context: the master's (main, GOMP_parallel) and, where a worker's
# instances were timed too, the worker's (libgomp's thread start): the busiest row, against
# its own instances (a run with both read two means as one until 2026-11-28, a busy pair)
row=$(q "SELECT f.mean, (SELECT sum(i.weight * i.cpu_time) / sum(i.weight) FROM var_instances i
	WHERE i.function = f.function AND i.context IS f.context) FROM var_functions f
	WHERE f.function LIKE 'step%' AND f.metric = 'cpu-time' ORDER BY f.instances DESC LIMIT 1")
mean=${row%%|*}
wmean=${row#*|}
# (one awk: bounds printed back as text lost their digits, %.6g, in review)
check "t830-mean-${mean:-none}-is-weighted-${wmean:-none}" awk -v m="${mean:-0}" \
	-v w="${wmean:-0}" 'BEGIN { d = m - w; d = d < 0 ? -d : d; exit !(w > 0 && d <= 1e-6 * w) }'
ratio=$(awk -v m="${mean:-0}" -v f="${fast:-0}" 'BEGIN { if (f > 0) printf "%.3f", m / 1000 / f }')
check "t830-mean-over-fast-${ratio:-none}" float_between "${ratio:-0}" 0.9 1.25
slow=$(q "SELECT count(*) $W AND cpu_time > 1000000")
umean=$(q "SELECT avg(cpu_time) $W")
echo "    t830: $n instances, $slow slow; mean $mean ns weighted, $umean unweighted; fast median $fast us"
if [ "${slow:-0}" -gt 0 ]; then
	check "t830-unweighted-${umean%.*}-above-${mean%.*}" awk -v u="${umean:-0}" -v m="${mean:-0}" 'BEGIN { exit !(u > m) }'
fi
