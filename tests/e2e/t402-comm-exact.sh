#!/usr/bin/env bash
# t402-comm-exact: --exact (every access of a sonde-cc program, exact transfers) on the
# lock-step workloads, whose transfers are known from the code: each ring edge moves two
# one-word lines per round (the signal and the data line of i-1, read by i), so does each
# master-worker pair (task and result): 2N.  A ping-pong's line holds the token and a
# data word, written one after the other: every hand-off is one true-sharing transfer
# (the reader's token load meets the token store), plus one false-sharing transfer when
# the reader polls between the two stores (then it fetches a version with only the data
# word new): true >= 2N - 2, all <= 4N.  Then the sampled
# detector (inst source, period 1009) against the exact matrices of the same workloads:
# cosine similarity >= 0.9, and the constructed pairs hold >= 90% of the volume in both.
#
# 2 cores: the lock-step workloads wait with sched_yield, so the same lines move between
# the same threads whatever the scheduling and the load; the exact counts depend on N only
# (the ping-pong's false-sharing share depends on how often the reader polls between the
# two stores, so on the scheduling).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t402-build || exit 0
N=5000

between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# (worker 1's first ring round reads nothing worker 4 wrote: 2N - 2 on that edge; and a
# worker preempted between its two stores lets its partner see the line in between, which
# the exact detector counts another way: 1% below 2N, seen 3 of 10,000 under load)
lo=$((2 * N - 2 * N / 100)) hi=$((2 * N + N / 5))

"$SONDE" comm -q --exact -o pp -- "$T/cb-inst" pingpong $N
check t402-exact-status [ $? -eq 0 ]
check t402-exact-invariants mat_invariants pp thread
v=$(mat_cell pp/comm/matrix-all-thread.csv 1 2)
t=$(mat_cell pp/comm/matrix-true-thread.csv 1 2)
echo "pingpong: cell 1-2 = $v, true $t (2N = $((2 * N)))"
# 2N true-sharing transfers, within 1%: a worker preempted between its two stores (w[1],
# then the token in w[0]) lets its partner read the line between them, which the exact
# detector rightly counts another way (seen: 12 of 10,000 on a loaded 2-core run).
check "t402-pingpong-true-2n ($t)" between "$t" $((2 * N - 2 * N / 100)) $((2 * N + 2 * N / 100))
check t402-pingpong-all-4n between "$v" "$t" $((4 * N))
check t402-exact-meta [ "$(comm_meta pp exact)" = 1 ]
# the report names the token's object and the code, placed by one transfer in 61, and says
# so (the helper's trial on CoMD: none shown, no word of it; since 2026-11-29 placed, t424)
"$SONDE" report pp >pp.report 2>&1
check t402-exact-says-placed grep -q "^Top objects (of 1 exact transfer in 61: estimated volumes)" pp.report
check t402-exact-code awk -F, 'NR > 1 && $6 ~ /commbench\.c:[0-9]+/ && $7 ~ /commbench\.c:[0-9]+/ { n++ } END { exit !n }' pp/comm/pairs.csv
check t402-exact-samples [ "$(comm_meta pp samples)" -gt $((4 * N)) ]
check t402-exact-lost [ "$(comm_meta pp exact_lost)" -eq 0 ]

# A run with no transfer at all is still an exact run: the stats record says so (the
# report took the mode from the EXACT records alone, and said "watchpoints unavailable:
# the trap handler could not be installed").
"$SONDE" comm --exact -o priv -- "$T/cb-inst" private 2000 >priv.out 2>&1
check t402-private-exact-meta [ "$(comm_meta priv exact)" = 1 ]
check t402-private-exact-status grep -q "watchpoints: exact mode" priv.out
check t402-private-no-unavailable [ "$(grep -c unavailable priv.out)" -eq 0 ]

"$SONDE" comm -q --exact -o ring -- "$T/cb-inst" ring $N
for e in 1-2 2-3 3-4 4-1; do
	v=$(mat_cell ring/comm/matrix-all-thread.csv ${e%-*} ${e#*-})
	check t402-ring-edge-$e between "$v" $lo $hi
done
check t402-ring-no-chord [ "$(mat_cell ring/comm/matrix-all-thread.csv 1 3)" -eq 0 ]

"$SONDE" comm -q --exact -o master -- "$T/cb-inst" master $N
for w in 1 2 3 4; do
	v=$(mat_cell master/comm/matrix-all-thread.csv 0 $w)
	check t402-master-0-$w between "$v" $lo $hi
done
check t402-master-workers-apart [ "$(mat_cell master/comm/matrix-all-thread.csv 1 2)" -eq 0 ]

# sampled against exact
for m in pingpong:1-2 pairs:"1-2 3-4" ring:"1-2 2-3 3-4 1-4" master:"0-1 0-2 0-3 0-4"; do
	mode=${m%%:*} pairs=${m#*:}
	[ -d "x-$mode" ] || "$SONDE" comm -q --exact -o x-$mode -- "$T/cb-inst" $mode $N
	# the ring and the master at period 401: their 4 edges need ~100 events for a steady
	# cosine (at 1009, ~40 in all, and ~20 in a CI run beside a make check on 2 cores of
	# 2026-11-27: edges of 3, 3, 11 and 3 events, cosine 0.82)
	per=1009
	case $mode in ring | master) per=401 ;; esac
	"$SONDE" comm -q --source inst --period $per -o s-$mode -- "$T/cb-inst" $mode $N
	c=$(mat_cosine s-$mode/comm/matrix-all-thread.csv x-$mode/comm/matrix-all-thread.csv)
	echo "$mode: cosine sampled/exact $c; sampled $(mat_sum s-$mode/comm/matrix-all-thread.csv), exact $(mat_sum x-$mode/comm/matrix-all-thread.csv)"
	# The ring's and the master's 4 edges were found from ~40 detected events in all
	# (period 1009), ~10 an edge: their volumes spread by ~30%, and the cosine ran
	# 0.88-0.996 (ring, 14 runs) and 0.867-0.999 (master) at load 6-11 (another suite or
	# benchmarks beside it), never a wrong cell (the pairs check below); 0.85 for them,
	# now at period 401 (above).
	bar=0.9
	case $mode in ring | master) bar=0.85 ;; esac
	# on failure the two matrices, pairs.csv and the counters (comm_check)
	comm_check "s-$mode x-$mode" t402-cosine-$mode float_between "$c" "$bar" 1
	sh=$(mat_share s-$mode/comm/matrix-all-thread.csv "$pairs")
	comm_check "s-$mode x-$mode" "t402-sampled-pairs-$mode ($sh)" float_between "$sh" 0.9 1
	sh=$(mat_share x-$mode/comm/matrix-all-thread.csv "$pairs")
	comm_check x-$mode "t402-exact-pairs-$mode ($sh)" float_between "$sh" 0.9 1
	check t402-sampled-invariants-$mode mat_invariants s-$mode thread
done

# The sampled ring's four edges are equal in truth (2N each), and the sampled ones must be
# too: a detector or sampler that favours a place in the ring is not seen by the cosine at
# ~10 events an edge (thread 1's two edges at 2x the others' still gave 0.94-0.97).  At
# 200,000 rounds, ~240 events an edge, the edges came within 0.90-1.06 of their mean in
# 5 runs (load 3); the 2x bias gave 0.66-0.68 and 1.32-1.37 in every run.  Tolerance
# +-25%: the events' own spread (sd ~7% here, more when thinning weights traps at load).
NR=200000
"$SONDE" comm -q --source inst --period 1009 -o s-ring-long -- "$T/cb-inst" ring $NR
e=$(ring_edges s-ring-long/comm/matrix-all-thread.csv)
echo "ring $NR rounds, sampled edges 1-2 2-3 3-4 4-1: $e (x1009)"
comm_check s-ring-long "t402-sampled-ring-even ($e)" ring_even s-ring-long/comm/matrix-all-thread.csv 0.75 1.25
comm_check s-ring-long t402-sampled-ring-long-no-chord [ "$(mat_share s-ring-long/comm/matrix-all-thread.csv "1-2 2-3 3-4 1-4")" = 1.0000 ]

# Main's set-up is no transfer of the pattern: commbench stores it unseen (POKE).  Before,
# when main's first sampling window (a random phase in [1, 1009]) ended on one of those few
# stores, every worker that read the line next counted a period from main: pairs' share
# read 0.71-0.85 in every such run (1 run in 250-500 of each lock-step mode; 0.69 once in
# a CI suite).  --seed makes main draw the same phase in every run: with these seeds
# its first window ends at its 1st, 4th, 6th and 7th access, which were the stores of
# iters (constructor, then main) and of the two tokens (share 0.71-0.73, 0.71-0.77,
# 0.80-0.85 and 0.82-0.83 before, two runs each).  Main must have taken its sample (its inst cache missed: --debug's line for its
# tid), or the seeds no longer aim at its set-up and the check would test nothing.
main_sampled=0
for s in 1197 1174 615 758; do
	"$SONDE" comm -q --debug --source inst --period 1009 --seed $s -o seed-$s -- \
		"$T/cb-inst" pairs $N 2>seed-$s.err
	sh=$(mat_share seed-$s/comm/matrix-all-thread.csv "1-2 3-4")
	comm_check seed-$s "t402-seeded-main-setup-$s ($sh)" float_between "$sh" 0.9 1
	tid=$(awk -F, '$1 == 0 { print $5 }' seed-$s/comm/threads.csv)
	grep -Eq "inst: thread $tid cache [0-9]+ sets, [1-9][0-9]* misses" seed-$s.err &&
		main_sampled=$((main_sampled + 1))
done
check "t402-seeded-main-sampled ($main_sampled of 4)" [ "$main_sampled" -eq 4 ]

# the heat map's ramp: a cell of 1 beside one of 2N draws '.', the lowest mark (rounded up,
# it drew ':', the same as a cell of a quarter of the largest, and '.' never came: the
# usability review of 2026-11-28).  lopsided.c: workers 1-2 hand a word over N times,
# worker 3 reads it once after.
"$SONDE_BUILD/sonde-cc" -O2 -g -pthread "$SONDE_TOP/tests/workloads/comm/lopsided.c" -o "$T/lop" ||
	{ fail t402-lopsided-build "sonde-cc could not build lopsided.c"; exit 0; }
"$SONDE" comm --exact -o lopx -- "$T/lop" $N >/dev/null 2>lop.err
check t402-lopsided-status [ $? -eq 0 ]
check t402-lopsided-tiny-cell [ "$(mat_cell lopx/comm/matrix-all-thread.csv 2 3)" = 1 ]
check t402-lopsided-dot grep -qE '^ +3 \|[ .]*\.\.\.\.[ .]*\|$' lop.err
check t402-lopsided-at grep -qE '^ +1 \|.*@@@@' lop.err
# a handful of transfers in millions of accesses: nothing to do, not a remedy (the usability
# review of 2026-11-28: 8 transfers in 8M stores were told to "share them less often")
"$SONDE" comm --exact -o rare -- "$T/lop" 2 1000000 >/dev/null 2>rare.err
check t402-rare-status [ $? -eq 0 ]
check t402-rare-nothing grep -q "What to do: nothing: [0-9]* transfers in [0-9]* accesses, under 1 in 10000" <(flat rare.err)
flat rare.err >rare.flat
check t402-rare-no-remedy bash -c '! grep -q "share them less often" rare.flat'
