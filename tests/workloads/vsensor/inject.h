/* inject.h - known slowdowns for the vsensor workloads (ground truth of the tests).
 *   VS_PIN=1                        pin rank r to CPU r % ncpus (ranks share cores)
 *   VS_INJECT=busy:R:START:END:N    N threads spinning on rank R's CPU in [START, END) s,
 *                                   at 5 nice levels above the rank
 *   VS_INJECT=throttle:R:START:END:PCT   rank R limited to PCT% of a CPU (cgroup v1 cpu
 *                                   controller) in [START, END) s
 * Times are seconds since the barrier after MPI_Init (the vsensor runtime starts its
 * clock at the same barrier).  The injector never touches MPI. */
#ifndef VS_INJECT_H
#define VS_INJECT_H
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double inj_t0;
static double inj_start, inj_end;
static int inj_n, inj_cpu = -1, inj_nice;
static char inj_kind[16];

static double inj_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void inj_sleep_until(double t)
{
	while (inj_now() < t)
		usleep(1000);
}

static void *inj_spin(void *arg)
{
	(void)arg;
	if (inj_cpu >= 0) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(inj_cpu, &s);
		pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
	}
	inj_sleep_until(inj_t0 + inj_start);
	/* 5 nice levels above the rank (about 3x its CPU weight), whatever the rank's own
	 * nice level: the tests run the job at nice -10 to keep other jobs' load out */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), inj_nice - 5);
	volatile unsigned long x = 0;
	while (inj_now() < inj_t0 + inj_end)
		for (int i = 0; i < 10000; i++)
			x++;
	return NULL;
}

static int inj_write(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int bad = fputs(v, f) < 0;
	return fclose(f) || bad ? -1 : 0;
}

static void *inj_throttle(void *arg)
{
	(void)arg;
	char dir[128], path[192], v[32];
	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpu/sonde-vs-%d", (int)getpid());
	inj_sleep_until(inj_t0 + inj_start);
	snprintf(v, sizeof(v), "%d", inj_n * 200);	/* of a 20 ms period; 1000 us is the kernel minimum */
	snprintf(path, sizeof(path), "mkdir -p %s", dir);
	if (system(path) != 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
	if (inj_write(path, "20000"))
		goto fail;
	snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
	if (inj_write(path, v))
		goto fail;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(v, sizeof(v), "%d", (int)getpid());
	if (inj_write(path, v))
		goto fail;
	inj_sleep_until(inj_t0 + inj_end);
	inj_write("/sys/fs/cgroup/cpu/cgroup.procs", v);
	rmdir(dir);
	return NULL;
fail:
	fprintf(stderr, "inject: throttle unavailable (%s)\n", dir);
	rmdir(dir);
	return NULL;
}

/* Call right after the barrier that follows MPI_Init. */
static void inject_start(int rank)
{
	inj_t0 = inj_now();
	inj_nice = getpriority(PRIO_PROCESS, 0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (getenv("VS_PIN") && ncpu > 0) {
		cpu_set_t s;
		CPU_ZERO(&s);
		inj_cpu = rank % ncpu;
		CPU_SET(inj_cpu, &s);
		sched_setaffinity(0, sizeof(s), &s);
	}
	const char *e = getenv("VS_INJECT");
	int r;
	if (!e || sscanf(e, "%15[^:]:%d:%lf:%lf:%d", inj_kind, &r, &inj_start, &inj_end, &inj_n) != 5 ||
	    r != rank)
		return;
	pthread_t t;
	if (!strcmp(inj_kind, "busy")) {
		for (int i = 0; i < inj_n; i++)
			if (pthread_create(&t, NULL, inj_spin, NULL) == 0)
				pthread_detach(t);
	} else if (!strcmp(inj_kind, "throttle")) {
		if (pthread_create(&t, NULL, inj_throttle, NULL) == 0)
			pthread_detach(t);
	}
}
#endif
