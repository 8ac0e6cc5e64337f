#!/usr/bin/env bash
# bench/watch-levels.sh - does what one debug-register trap costs move during a run, and
# with what (doc/sonde-variance.md, "The traps' cost moves with the kernel's speed").  One
# thread per CPU (pinned), each WATCH_LEVELS_SECS seconds (default 3) of rounds on a write
# breakpoint of its own (perf_event_open, attr.sigtrap, a one-page ring with
# PERF_SAMPLE_TIME on CLOCK_MONOTONIC).  A round times: the store to the handler's first
# clock read, split at the kernel's sample time (before the perf handler / after it), the
# handler's return to the instruction after the store (the sigreturn), a getppid(2), a
# PERF_EVENT_IOC_MODIFY_ATTRIBUTES, and a chain of 300 multiplies (user code).  Each
# thread prints, per 10 ms bucket, each quantity's lower quartile; the script then sorts
# the buckets into the fast level (trap within 10% of the lowest bucket's) and the rest,
# and prints each quantity's median over each, per CPU.  Never fails on numbers.
#   bench/watch-levels.sh     (WATCH_LEVELS_SECS=N)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_scratch watch-levels
cat >lv.c <<'EOF_C'
#define _GNU_SOURCE
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define Q 7			/* quantities */
#define MAXR 8192

static double secs;
static __thread struct perf_event_mmap_page *pg;
static volatile __thread int64_t h_in, h_out, stamp;

static int64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* the handler: its first clock read, then the ring's last sample time */
static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	h_in = now();
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
	const char *d = (const char *)pg + pg->data_offset;
	uint64_t sz = pg->data_size;
	int64_t last = 0;
	while (tail < head) {
		const struct perf_event_header *h = (const void *)(d + tail % sz);
		if (h->size < sizeof(*h))
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			memcpy(&last, d + (tail + sizeof(*h)) % sz, sizeof(last));
		tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	stamp = last;
	h_out = now();
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void *run(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	sched_setaffinity(0, sizeof(cs), &cs);
	volatile uint64_t word = 0;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&word;
	a.bp_len = 8;
	a.sample_period = 1;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_type = PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.wakeup_events = 1000000;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("watch-levels: perf_event_open");
		return NULL;
	}
	pg = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		perror("watch-levels: mmap");
		return NULL;
	}
	static int64_t v[2][Q][MAXR];
	int64_t (*q)[MAXR] = v[cpu & 1];
	int n = 0;
	int64_t t0 = now(), bucket = t0, end = t0 + (int64_t)(secs * 1e9);
	for (;;) {
		int64_t m0 = now();
		ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a);
		int64_t m1 = now();
		(void)getppid();
		int64_t m2 = now();
		uint64_t x = (uint64_t)m2;
		for (int i = 0; i < 300; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			__asm__ volatile("" : "+r"(x));
		}
		int64_t m3 = now();
		int64_t a0 = now();
		word = x;
		int64_t b0 = now();
		if (n < MAXR && stamp > a0) {
			int64_t r[Q] = { b0 - a0 - (h_out - h_in), stamp - a0, h_in - stamp, b0 - h_out,
					 m2 - m1, m1 - m0, m3 - m2 };
			for (int k = 0; k < Q; k++)
				q[k][n] = r[k];
			n++;
		}
		if (b0 - bucket >= 10000000) {
			if (n >= 8) {
				/* one write a line: the two threads' lines do not mix */
				char line[256];
				int l = snprintf(line, sizeof(line), "%d %.3f %d", cpu, (b0 - t0) / 1e9, n);
				for (int k = 0; k < Q; k++) {
					qsort(q[k], (size_t)n, sizeof(int64_t), cmp);
					l += snprintf(line + l, sizeof(line) - (size_t)l, " %lld",
						      (long long)q[k][n / 4]);
				}
				l += snprintf(line + l, sizeof(line) - (size_t)l, "\n");
				if (write(1, line, (size_t)l) < 0)
					break;
			}
			n = 0;
			bucket = b0;
			if (b0 > end)
				break;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	secs = argc > 1 ? atof(argv[1]) : 3;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 2)
		ncpu = 2;
	pthread_t t[2];
	for (long i = 0; i < ncpu; i++)
		pthread_create(&t[i], NULL, run, (void *)(intptr_t)i);
	for (long i = 0; i < ncpu; i++)
		pthread_join(t[i], NULL);
	return 0;
}
EOF_C
gcc -O2 -pthread lv.c -o lv || exit 0
./lv "${WATCH_LEVELS_SECS:-3}" >buckets.txt 2>err.txt
if [ ! -s buckets.txt ]; then
	echo "bench: watch-levels skipped: $(head -1 err.txt)"
	exit 0
fi
echo "bench: watch-levels: one write breakpoint per CPU, ${WATCH_LEVELS_SECS:-3} s, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  per 10 ms bucket, each quantity's lower quartile; then their medians (us) over the fast buckets"
echo "  (trap within 10% of the CPU's lowest bucket) and over the others"
awk '
{ cpu = $1; nb[cpu]++; for (k = 0; k < 7; k++) v[cpu, nb[cpu], k] = $(4 + k)
  if (!(cpu in lo) || $4 < lo[cpu]) lo[cpu] = $4 }
function med(arr, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
	return n ? (n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2) : 0
}
END {
	split("trap before-perf perf-to-handler sigreturn getppid modify-ioctl user-chain", name, " ")
	for (cpu in nb) {
		nf = ns = 0
		for (b = 1; b <= nb[cpu]; b++) {
			if (v[cpu, b, 0] <= 1.1 * lo[cpu]) fast[++nf] = b; else slow[++ns] = b
		}
		printf "  CPU %s: %d buckets, %d fast, %d slow\n", cpu, nb[cpu], nf, ns
		printf "    %-16s %8s %8s %7s\n", "quantity", "fast", "slow", "ratio"
		for (k = 0; k < 7; k++) {
			delete a; for (i = 1; i <= nf; i++) a[i] = v[cpu, fast[i], k]; f = med(a, nf)
			delete a; for (i = 1; i <= ns; i++) a[i] = v[cpu, slow[i], k]; s = med(a, ns)
			printf "    %-16s %8.2f %8s %7s\n", name[k + 1], f / 1000, ns ? sprintf("%.2f", s / 1000) : "-", (ns && f) ? sprintf("%.2f", s / f) : "-"
		}
	}
}' buckets.txt
