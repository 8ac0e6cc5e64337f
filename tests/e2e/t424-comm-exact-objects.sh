#!/usr/bin/env bash
# t424-comm-exact-objects: --exact places its transfers: one in 61 of each thread's is
# recorded with its address and instruction (rt-comm.c, COMM_REC_XSAMPLE), and names the
# objects, cache lines and code of the exact count, each standing for 61 (before
# 2026-11-29 --exact named none: a trial could not place Quicksilver's 66,921 exact
# transfers).  Known by construction: commbench fs (4 workers, 50%) writes each worker's
# own 8-byte slot of line 0 of `shared` (false sharing, worker w at byte 8 w) and word 0
# of line 1 (true sharing, every worker at +0): objects.csv holds `shared` alone, and
# lines.csv those two lines with those offsets.  Tolerance: the placed total against the
# exact total within 5 x 61 (a thread's recorded transfers stand for its count within 61,
# the sampling period, and 5 threads run), the split as below.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t424-build || exit 0
"$SONDE" comm --exact -o ex -- "$T/cb-inst" fs 100000 50 >/dev/null 2>summary
check t424-status [ $? -eq 0 ]
all=$(comm_meta ex total_all) fal=$(comm_meta ex total_false)
echo "    exact: $all transfers, $fal false"
check t424-one-object [ "$(awk -F, 'NR > 1' ex/comm/objects.csv | cut -d, -f1 | sort -u)" = shared ]
read -r ot of < <(awk -F, 'NR == 2 { print $3, $5 }' ex/comm/objects.csv)
echo "    placed: $ot transfers, $of false"
check "t424-object-total ($ot of $all)" awk -v a="$ot" -v b="$all" 'BEGIN { exit !(b > 1000 && a - b <= 5 * 61 && b - a <= 5 * 61) }'
# (the split: a share of n = total / 61 recorded transfers, within 5 standard deviations
# of a binomial share at 1/2, 250 / sqrt(n) points: 4.2 at 350,000 transfers, 13 at
# 21,000 on a loaded machine, where the workers alternate less.  Not 3: the recorded
# transfers are every 61st of each thread's, not independent draws, and under load the
# workers run in bursts; a pair of suites of 2026-11-30 read 62.0% against 50.8% at
# 11,930 transfers, 11.2 points over a bar of 10.7)
check "t424-object-split" awk -v a="$of" -v b="$ot" -v c="$fal" -v d="$all" 'BEGIN {
	x = 100 * a / b - 100 * c / d; t = 250 / sqrt(b / 61); exit !(x <= t && x >= -t) }'
# the two lines: line 1 true sharing at +0 by all four, line 0 false at each one's slot
check t424-true-line awk -F, 'NR > 1 && $4 == $3 && $5 == 0 && $7 == "1:+0 2:+0 3:+0 4:+0" { n++ } END { exit n != 1 }' ex/comm/lines.csv
check t424-false-line awk -F, 'NR > 1 && $5 == $3 && $4 == 0 && $7 == "1:+8 2:+16 3:+24 4:+32" { n++ } END { exit n != 1 }' ex/comm/lines.csv
check t424-two-lines [ "$(awk -F, 'NR > 1' ex/comm/lines.csv | wc -l)" -eq 2 ]
sed 's/^/    pairs.csv: /' ex/comm/pairs.csv
# the code: fs's two stores (commbench.c), on one side at least of the pairs of 610
# transfers or more (ten recorded on average; a side is the code of the transfers its
# thread observed, and on 2 time-shared cores a pair's transfers may all go one way: that
# side has none recorded), and nothing but fs's on either side
fsc='^fs \(commbench\.c:[0-9]+\)$'
check t424-pairs-code awk -F, -v re="$fsc" 'NR > 1 && $3 >= 610 { n++
	if (!($6 ~ re || $7 ~ re) || ($6 != "" && $6 !~ re) || ($7 != "" && $7 !~ re)) bad++ }
	END { exit !(n && !bad) }' ex/comm/pairs.csv
# the summary and the page say whose estimate they are
check t424-summary-objects grep -q "^Top objects (of 1 exact transfer in 61: estimated volumes)" summary
check t424-summary-no-old-note bash -c '! grep -q "keeps no addresses" summary'
"$SONDE" report ex --html ex.html >/dev/null 2>&1
check t424-page-objects grep -q "placed by one transfer in 61 recorded with its address" ex.html

# A heap block: its placed transfers named after its allocation site.  The exact source's
# accesses carry no time, and the records took 0 until 2026-11-29, before any allocation:
# every transfer of a 128 KiB block read "[heap: untracked small blocks]" (the trial of
# that day, F1: HPCG, miniVite).  By construction a new reader thread, 20 times, reads the
# 2048 lines main wrote: nearly all the transfers are the block's.
cat >hp.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define N (1 << 14)
static double *x, sum;
static void *reader(void *a)
{
	for (int i = 0; i < N; i++)
		sum += x[i];
	return a;
}
int main(void)
{
	x = malloc(N * sizeof(*x)); /* the block */
	for (int it = 0; it < 20; it++) {
		pthread_t t;
		for (int i = 0; i < N; i++)
			x[i] = i + it;
		pthread_create(&t, NULL, reader, NULL);
		pthread_join(t, NULL);
	}
	printf("%g\n", sum);
	free(x);
	return 0;
}
C
if "$SONDE_BUILD/sonde-cc" -O2 -pthread hp.c -o hp 2>hp.err; then
	"$SONDE" comm -q --exact -o hx -- ./hp >/dev/null 2>&1
	check t424-heap-status [ $? -eq 0 ]
	site="main (hp.c:$(grep -n '/\* the block \*/' hp.c | cut -d: -f1))"
	check t424-heap-named [ "$(awk -F, 'NR == 2 { print $1 }' hx/comm/objects.csv)" = "$site" ]
	t=$(awk -F, 'NR == 2 { print $3 }' hx/comm/objects.csv) all=$(comm_meta hx total_all)
	check "t424-heap-most ($t of $all)" awk -v a="$t" -v b="$all" 'BEGIN { exit !(b > 20000 && a >= 0.9 * b) }'
else
	fail t424-heap-build "$(head -3 hp.err)"
fi
