#!/usr/bin/env bash
# t074-mem-alloc-wrapper: blocks allocated through the program's own wrapper (xmalloc, not
# inlined) are named after the wrapper's callers, each with its own allocations.  The
# runtime caches an allocation's call path by its call site; the site in a wrapper is the
# same for every caller, and the first caller's path was given to all (refreshed every
# 64th allocation): two callers alternating read 99.4% the first's as one object
# "xmalloc (wrap.c:4)", and 100 from each in turn 128 and 72 (the usability review of
# 2026-11-28).  By construction: line A's blocks get 10 passes of work, line B's 30, so
# 25% and 75% of the samples, and ROUNDS allocations each.
# Tolerance: 4 binomial standard deviations of the samples taken (~600: 7 points) plus 3
# points for the clock's bias at the passes' ends (a window of accesses stepped past work()
# into main, free and malloc, whose accesses to a block's first bytes go to the block either
# side alike).  A flat 10 points at ~300 samples failed at 0.645 in a pair of suites.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t074 "gcc is not installed"; exit 0; }
cat >wr.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#define N 4096
__attribute__((noinline)) void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		exit(1);
	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}
__attribute__((noinline)) void work(double *p, int reps)
{
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++)
			p[i] += 1;
	__asm__ volatile("" : : "r"(p) : "memory");
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3000;
	double s = 0;
	for (int k = 0; k < rounds; k++) {
		double *a = xmalloc(N * 8);	/* line A */
		work(a, 10);
		s += a[7];
		free(a);
		double *b = xmalloc(N * 8);	/* line B */
		work(b, 30);
		s += b[7];
		free(b);
	}
	printf("%g\n", s);
	return 0;
}
EOC
la=$(grep -n "line A" wr.c | cut -d: -f1) lb=$(grep -n "line B" wr.c | cut -d: -f1)
gcc -O2 -g wr.c -o wr || { fail t074-build "gcc could not build wr.c"; exit 0; }
"$SONDE" mem -q -o rec -- ./wr 12000 >out 2>err
check t074-status [ $? -eq 0 ]
o=rec/mem/objects.csv
col() { awk -F, -v o="$1" -v c="$2" '$1 == o { print $c }' $o; }
sa=$(col "main (wr.c:$la)" 3) sb=$(col "main (wr.c:$lb)" 3)
aa=$(col "main (wr.c:$la)" 8) ab=$(col "main (wr.c:$lb)" 8)
echo "    line $la: ${sa:-0} samples ${aa:-0} allocs; line $lb: ${sb:-0} samples ${ab:-0} allocs"
check "t074-allocs-${aa:-0}-${ab:-0}-each-12000" [ "${aa:-0}-${ab:-0}" = 12000-12000 ]
check "t074-share-b-near-75" awk -v a="${sa:-0}" -v b="${sb:-0}" \
	'BEGIN { s = a + b; t = 4 * sqrt(0.75 * 0.25 / (s > 0 ? s : 1)) + 0.03
		 printf "    line B: %.3f of %d samples, want 0.75 +- %.3f\n", b / (s > 0 ? s : 1), s, t
		 exit !(s >= 50 && b / s >= 0.75 - t && b / s <= 0.75 + t) }'
check t074-no-wrapper-object bash -c "! grep -q '^xmalloc (wr.c' $o"

# wrappers of wrappers: the site and the return address above it are the same for every
# caller of a two-level wrapper, and the first caller's path went to all (the trial of
# 2026-11-29, F1: minisweep's three levels, Pointer_allocate -> Pointer_allocate_h_ ->
# malloc_host_P -> malloc, made 11 arrays one object).  Two levels called from lines A and
# B, three from C and D, in turn, ROUNDS times each: every line's object holds its own
# ROUNDS allocations (counted, not sampled: exact).  (Each function is a wrapper, called
# from two sites or more, so the report names the blocks after main's lines.)
cat >wr2.c <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#define N 4096
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")
__attribute__((noinline)) void *inner(size_t n) { void *p = malloc(n); KEEP(p); return p; }
__attribute__((noinline)) void *outer(size_t n) { void *p = inner(n); KEEP(p); return p; }
__attribute__((noinline)) void *outer3(size_t n) { void *p = outer(n); KEEP(p); return p; }
__attribute__((noinline)) void *other(size_t n) { void *p = inner(n); KEEP(p); return p; }
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3000;
	double s = 0;
	free(other(N * 8));	/* inner has two callers: a wrapper, as outer and outer3 are */
	for (int k = 0; k < rounds; k++) {
		double *a = outer(N * 8);	/* line A */
		double *b = outer(N * 8);	/* line B */
		double *c = outer3(N * 8);	/* line C */
		double *d = outer3(N * 8);	/* line D */
		a[1] = b[2] = c[3] = d[4] = k;
		s += a[1] + b[2] + c[3] + d[4];
		free(a);
		free(b);
		free(c);
		free(d);
	}
	printf("%g\n", s);
	return 0;
}
EOC
# four_lines NAME TAG: build NAME.c, run it 3000 rounds, and check that each of its lines
# A-D names an object of 3000 blocks (checks t074-TAG-*)
four_lines() {
	gcc -O1 -g $1.c -o $1 || { fail t074-$2-build "gcc could not build $1.c"; return 1; }
	"$SONDE" mem -q -o rec-$1 -- ./$1 3000 >out-$1 2>err-$1
	check t074-$2-status [ $? -eq 0 ]
	for L in A B C D; do
		ln=$(grep -n "line $L" $1.c | cut -d: -f1)
		n=$(sqlite3 rec-$1/profile.db "SELECT allocs FROM objects WHERE name = 'main ($1.c:$ln)'")
		check "t074-$2-line-$L-${n:-0}-allocs" [ "${n:-0}" = 3000 ]
	done
}
four_lines wr2 levels

# the same without other(): inner has one caller, outer, which has many, and the paths
# through inner agree on that caller and part above it (minisweep's Pointer_allocate_h_,
# called from Pointer_allocate alone: its 11 arrays one object, the trial of 2026-11-29,
# F1): inner is a wrapper too.  And a recursive allocator stays one object (its depths
# part above it: not a wrapper's callers).
sed '/other(/d' wr2.c >wr3.c
cat >>wr3.c <<'EOC'
struct node { struct node *l, *r; char pad[4096]; };
__attribute__((noinline)) struct node *tree(int d)
{
	struct node *n = malloc(sizeof(*n));	/* line T */
	n->l = d ? tree(d - 1) : 0;
	n->r = d ? tree(d - 1) : 0;
	return n;
}
__attribute__((constructor)) static void grow(void)
{
	struct node *t = tree(6);
	KEEP(t);
}
EOC
four_lines wr3 chain || exit 0
lt=$(grep -n "line T" wr3.c | cut -d: -f1)
check "t074-recursion-one-object" [ "$(sqlite3 rec-wr3/profile.db "SELECT allocs FROM objects WHERE name = 'tree (wr3.c:$lt)'")" = 127 ]
