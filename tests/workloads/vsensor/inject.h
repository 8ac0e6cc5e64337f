/* inject.h - known slowdowns for the vsensor workloads (ground truth of the tests).
 *   VS_PIN=1                        pin rank r to CPU r % ncpus (ranks share cores)
 *   VS_INJECT=busy:R:START:END:N    N threads spinning on rank R's CPU in [START, END) s,
 *                                   at 5 nice levels above the rank
 *   VS_INJECT=throttle:R:START:END:PCT   rank R limited to PCT% of a CPU (cgroup v1 cpu
 *                                   controller, else a cgroup v2 child of the root group)
 *                                   in [START, END) s; "inject: throttle unavailable" on
 *                                   stderr when neither can be made
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

/* cgroup v1 (the cpu controller mounted at /sys/fs/cgroup/cpu): a group of its own with
 * a CFS quota of PCT% of a 20 ms period; the process is moved back to the root at END. */
static int inj_throttle_v1(const char *dir, const char *quota, const char *pid)
{
	char path[192];
	snprintf(path, sizeof(path), "mkdir -p %s", dir);
	if (system(path) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
	if (inj_write(path, "20000"))
		return -1;
	snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
	if (inj_write(path, quota))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (inj_write(path, pid))
		return -1;
	inj_sleep_until(inj_t0 + inj_end);
	inj_write("/sys/fs/cgroup/cpu/cgroup.procs", pid);
	return 0;
}

/* cgroup v2 (unified hierarchy at /sys/fs/cgroup, as on Debian 12): a child of the root
 * with cpu.max "QUOTA 20000"; only from the root group (elsewhere the parent holds
 * processes and may not enable controllers for children).  Moved back to the root at END. */
static int inj_throttle_v2(const char *dir, const char *quota, const char *pid)
{
	char path[192], v[64], line[256] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");
	int root = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strcmp(line, "0::/\n"))
			root = 1;
	if (f)
		fclose(f);
	if (!root || access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		return -1;
	inj_write("/sys/fs/cgroup/cgroup.subtree_control", "+cpu");
	snprintf(path, sizeof(path), "mkdir -p %s", dir);
	if (system(path) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/cpu.max", dir);
	snprintf(v, sizeof(v), "%s 20000", quota);
	if (inj_write(path, v))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (inj_write(path, pid))
		return -1;
	inj_sleep_until(inj_t0 + inj_end);
	inj_write("/sys/fs/cgroup/cgroup.procs", pid);
	return 0;
}

static void *inj_throttle(void *arg)
{
	(void)arg;
	char dir1[128], dir2[128], quota[32], pid[32];
	snprintf(dir1, sizeof(dir1), "/sys/fs/cgroup/cpu/sonde-vs-%d", (int)getpid());
	snprintf(dir2, sizeof(dir2), "/sys/fs/cgroup/sonde-vs-%d", (int)getpid());
	snprintf(quota, sizeof(quota), "%d", inj_n * 200);	/* of a 20 ms period; 1000 us is the kernel minimum */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	inj_sleep_until(inj_t0 + inj_start);
	int ok = access("/sys/fs/cgroup/cpu/cgroup.procs", F_OK) == 0 ?
		 inj_throttle_v1(dir1, quota, pid) == 0 : inj_throttle_v2(dir2, quota, pid) == 0;
	rmdir(dir1);
	rmdir(dir2);
	if (!ok)
		fprintf(stderr, "inject: throttle unavailable (no cgroup v1 cpu controller, nor a cgroup v2 root group to make a child of)\n");
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
