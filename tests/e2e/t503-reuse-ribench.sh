#!/usr/bin/env bash
# t503-reuse-ribench: RIBench rebuilt from the thesis, 2 threads, its four shapes (increasing,
# decreasing, bell, multi-modal repetitions over X1 = 1000..16000 words), no invalidation.
# --exact equals the analytic histogram (S = 1: the engine is exact and the workload's only
# accesses are the ones modelled); the sampled mode (inst source, period 4001) reaches
# S >= 0.85 against the analytic one.  The thesis's target is 0.90: runs on the dev VM at a
# load average near 10 gave 0.93 to 0.96 (each line below says whether a run met it), but
# one run under `make check` (other tests beside it on the 2 cores) gave 0.866 for the
# increasing shape; 0.85 is below the lowest run seen, so that the test holds on a busy
# machine, and the report says when the 0.90 target was missed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t503-build || exit 0

for shape in inc:20,20,20,20,20 dec:200,60,15,4,2 bell:50,40,40,10,3 multi:100,30,24,8,7; do
	name=${shape%%:*}
	args="ribench -t 2 -o 8 -r ${shape#*:}"
	"$T/rb" $args -e >exp-$name.csv
	"$SONDE" reuse -q --exact -o ex-$name -- "$T/rb" $args >/dev/null 2>&1
	"$SONDE" reuse -q --source inst --period 4001 -o sa-$name -- "$T/rb" $args >/dev/null 2>&1
	reuse_rows ex-$name/reuse/histogram.csv reuse >ex-$name.csv
	reuse_rows sa-$name/reuse/histogram.csv reuse >sa-$name.csv
	se=$(reuse_s exp-$name.csv ex-$name.csv)
	ss=$(reuse_s exp-$name.csv sa-$name.csv)
	met=$(awk -v s="$ss" 'BEGIN { print (s >= 0.90 ? "meets" : "misses") }')
	echo "ribench $name: S(exact, analytic) = $se, S(sampled, analytic) = $ss ($met the 0.90 target)"
	check t503-exact-$name float_between "$se" 0.999 1
	check t503-sampled-$name float_between "$ss" 0.85 1
done

# The top pairs' long counts scaled from fewer than 3 observed long reuses carry a '*'
# and a footnote (the trial of 2026-11-28: miniMD's third pair, 374,593 long reuses from
# one observation), exactly the rows whose long_observed is under 3; --exact's none.
command -v sqlite3 >/dev/null || { skip t503-few-marked "sqlite3 is not installed"; exit 0; }
# (sp: phases of 40,000-120,000 words at period 4000037, so that few long reuses are
# observed a pair: 1-2 in the runs tried, the marked path taken)
"$SONDE" reuse -q --source inst --period 4000037 -o sp -- "$T/rb" ribench -t 2 -o 2 \
	-r 200,60,15,4,2 -x 40000,60000,80000,100000,120000 >/dev/null 2>&1
for d in sp sa-inc sa-dec ex-inc; do
	"$SONDE" report $d --top 20 >rep-$d.txt 2>&1
	marked=$(sed -n '/^Top reuse pairs/,/^$/p' rep-$d.txt | grep -cE '^ +[0-9]+\* ')
	want=$(sqlite3 $d/profile.db "SELECT count(*) FROM (SELECT * FROM reuse_pairs ORDER BY rank LIMIT 20) WHERE long_reuses > 0 AND long_observed < 3 AND (SELECT value FROM meta WHERE key = 'exact') = '0'")
	check "t503-few-marked-$d-$marked-of-$want" [ "$marked" = "$want" ]
	if [ "$marked" -gt 0 ]; then
		check "t503-few-footnote-$d" grep -q "^  \*: scaled from fewer than 3 observed long reuses" rep-$d.txt
	fi
done
