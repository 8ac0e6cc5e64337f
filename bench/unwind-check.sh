#!/usr/bin/env bash
# bench/unwind-check.sh - the cost of one address check of libunwind's, the way libunwind 1.6
# makes it (mincore, then read and write(2) of a byte into its pipe) and the way the runtime
# makes it for libunwind (getpid and process_vm_readv of the byte: src/rt/ctx.c), measured
# side by side in one process, ROUNDS times (200,000 checks of each per round); then, when
# strace is installed, how many checks a sample makes (`sonde mem` on cost-omp, 4 threads:
# libunwind's validation cache is shared by the threads).  Prints; never fails on numbers.
#   bench/unwind-check.sh [ROUNDS]   (default 5)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${SONDE_BUILD:-$top/build}
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$top/bench/lib.sh"

cat >"$work/check.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	enum { N = 200000 };
	static char page[4096] __attribute__((aligned(4096)));
	int p[2], rounds = argc > 1 ? atoi(argv[1]) : 5;
	unsigned char v[1];
	char b;
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return 1;
	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		for (int i = 0; i < N; i++) {
			mincore(page, 4096, v);
			if (read(p[0], &b, 1) < 0)
				b = 0;
			syscall(SYS_write, p[1], page, 1);
		}
		double t1 = now();
		for (int i = 0; i < N; i++) {
			struct iovec l = { &b, 1 }, rm = { page, 1 };
			process_vm_readv(getpid(), &l, 1, &rm, 1, 0);
		}
		double t2 = now();
		printf("%.0f %.0f\n", (t1 - t0) / N * 1e9, (t2 - t1) / N * 1e9);
	}
	return 0;
}
C
cc -O2 "$work/check.c" -o "$work/check" || { echo "bench-unwind-check: cannot compile" >&2; exit 1; }
echo "bench-unwind-check: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/check" "$rounds" >"$work/r"
awk '{ printf "  round %d: pipe check %d ns, no-pipe check %d ns (%.2fx)\n", NR, $1, $2, $2 / $1 }' "$work/r"
echo "  median: pipe check $(cut -d' ' -f1 "$work/r" | median) ns, no-pipe check $(cut -d' ' -f2 "$work/r" | median) ns"

if command -v strace >/dev/null && [ -x "$B/workloads/cost-omp" ]; then
	# checks per sample: getpid calls (one per check; the runtime makes a few more at
	# start) and mincore calls (one per check of libunwind's own way, before the fix)
	OMP_NUM_THREADS=4 strace -f -qq -c -o "$work/sc" -e trace=getpid,mincore \
		"$B/sonde" mem -q -o "$work/p" -- "$B/workloads/cost-omp" >/dev/null 2>&1
	sig=$(sqlite3 "$work/p/profile.db" "select sum(signals) from threads" 2>/dev/null)
	awk -v s="${sig:-0}" '$NF == "getpid" || $NF == "mincore" {
		printf "  cost-omp, 4 threads: %d %s calls for %d samples (%.2f per sample)\n",
			$(NF-1), $NF, s, (s > 0 ? $(NF-1) / s : 0) }' "$work/sc"
fi
