/* SPDX-License-Identifier: MIT */
/*
 * u-probe.c - machine probes, each checked against an independent reading of the same
 * fact (procfs, sysfs, uname) or against its own promises (no fd left open, a second
 * call agrees with the first).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "rt/probe.h"

/* Open file descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Kernel version >= maj.min? */
static int kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;
	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > maj || (a == maj && b >= min);
}

static int file_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

TEST(cpu_matches_procfs)
{
	struct probe_cpu c;
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[1024];
	int processors = 0;

	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		processors += !strncmp(line, "processor", 9);
	if (f)
		fclose(f);
	probe_cpu(&c);
	CHECK_EQ_U64(c.cpus_online, processors);	/* cpuinfo lists the online CPUs */
	CHECK_EQ_U64(c.cpus_online, sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(c.cores >= 1 && c.cores <= c.cpus_online);
	CHECK(c.sockets >= 1 && c.sockets <= c.cores);
	CHECK(c.cpus_available >= 1 && c.cpus_available <= c.cpus_online);
#ifdef __x86_64__
	CHECK(c.vendor[0] != 0);
	CHECK(c.model[0] != 0);
	CHECK(c.family > 0);
#endif
}

TEST(caches)
{
	struct probe_cache c[8];
	int n = probe_caches(c, 8);

	if (!file_exists("/sys/devices/system/cpu/cpu0/cache/index0"))
		SKIP("no /sys/devices/system/cpu/cpu0/cache");
	CHECK(n >= 1);
	int l1d = 0;
	for (int i = 0; i < n; i++) {
		CHECK(c[i].level >= 1 && c[i].level <= 4);
		CHECK(c[i].size >= 1024);
		CHECK(c[i].line >= 16 && (c[i].line & (c[i].line - 1)) == 0);
		l1d |= c[i].level == 1 && !strcmp(c[i].type, "Data");
	}
	CHECK(l1d);
	CHECK(probe_caches(c, 1) == 1);	/* respects max */
}

TEST(paranoid)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;
	if (!f)
		SKIP("no /proc/sys/kernel/perf_event_paranoid");
	CHECK(fscanf(f, "%d", &v) == 1);
	fclose(f);
	CHECK_EQ_U64(probe_paranoid(), v);
	for (int l = -1; l <= 4; l++)
		CHECK(probe_paranoid_meaning(l) && probe_paranoid_meaning(l)[0]);
	CHECK(strstr(probe_paranoid_meaning(2), "user-space") != NULL);
}

TEST(debug_registers)
{
	int before = count_fds(), err = -1;
	int n = probe_debug_registers(16, &err);

	CHECK_EQ_U64(count_fds(), before);	/* every breakpoint closed */
	if (n == 0)
		SKIP("no debug registers usable here");
	CHECK(n <= 16);
	CHECK(n == 16 || err != 0);		/* it stopped for a reason */
	int err2 = -1;
	CHECK_EQ_U64(probe_debug_registers(16, &err2), n);	/* all were released */
	CHECK_EQ_U64(err2, err);
	CHECK_EQ_U64(probe_debug_registers(1, &err2), 1);	/* respects max */
	CHECK_EQ_U64(err2, 0);
#ifdef __x86_64__
	CHECK(n <= 4);	/* x86 has DR0..DR3 */
#endif
}

TEST(bp_modify_and_sigtrap)
{
	int err;
	if (probe_debug_registers(1, &err) == 0)
		SKIP("no debug registers usable here");
	int before = count_fds();
	int m = probe_bp_modify();
	int s = probe_bp_sigtrap();
	CHECK_EQ_U64(count_fds(), before);
	if (kernel_at_least(4, 17))
		CHECK(m == 0);
	if (kernel_at_least(5, 13))
		CHECK(s == 0);
}

TEST(sw_clock)
{
	int before = count_fds();
	int r = probe_sw_clock();
	CHECK_EQ_U64(count_fds(), before);
	if (r == -EACCES || r == -EPERM)
		SKIP("cpu-clock events not permitted here");
	CHECK(r == 0);
}

TEST(sampling_attr)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	probe_hw_sampling_attr(&a, PROBE_HW_PEBS, 100003);
	CHECK_EQ_U64(a.sample_period, 100003);
	CHECK_EQ_U64(a.sample_type, PROBE_HW_SAMPLE_TYPE);
	CHECK(a.sample_type & PERF_SAMPLE_ADDR);
	CHECK(a.disabled && a.exclude_hv && a.wakeup_events == 1 && a.use_clockid);
	memset(&a, 0, sizeof(a));
	probe_hw_sampling_attr(&a, PROBE_HW_IBS, 100003);
	CHECK_EQ_U64(a.sample_period, 100000);	/* rounded down to a multiple of 16 */
	CHECK(a.sample_type & PERF_SAMPLE_RAW);
	probe_hw_sampling_attr(&a, PROBE_HW_IBS, 3);
	CHECK_EQ_U64(a.sample_period, 16);
}

/* The hw verdict agrees with what sysfs shows, and explains itself. */
TEST(hw_verdict)
{
	struct probe_hw h;
	struct probe_cpu c;
	int before = count_fds();

	probe_hw(&h);
	probe_cpu(&c);
	CHECK_EQ_U64(count_fds(), before);
	CHECK(h.why[0] != 0);
	if (h.usable) {
		CHECK(h.nevents >= 1 && h.nevents <= 2);
		CHECK(h.kind == PROBE_HW_PEBS || h.kind == PROBE_HW_IBS);
		return;
	}
	CHECK(h.nevents == 0 || h.kind == PROBE_HW_PEBS);
	if (probe_paranoid() >= 3 && !probe_privileged())
		CHECK(strstr(h.why, "perf_event_paranoid") != NULL);
	else if (!file_exists("/sys/bus/event_source/devices/cpu") &&
		 !file_exists("/sys/bus/event_source/devices/cpu_core") &&
		 !file_exists("/sys/bus/event_source/devices/ibs_op"))
		CHECK(!strncmp(h.why, "no CPU PMU", 10));
	else if (!strcmp(c.vendor, "AuthenticAMD") &&
		 !file_exists("/sys/bus/event_source/devices/ibs_op"))
		CHECK(strstr(h.why, "ibs_op") != NULL);
}

TEST(pmu_consistent)
{
	struct probe_pmu p;
	probe_pmu(&p);
	CHECK(p.ibs_op >= 0 || !file_exists("/sys/bus/event_source/devices/ibs_op"));
	if (!p.cpu_pmu[0])
		CHECK(p.why[0] != 0);
	else
		CHECK(p.max_precise >= 0 && p.max_precise <= 3);
}

int main(void)
{
	RUN(cpu_matches_procfs);
	RUN(caches);
	RUN(paranoid);
	RUN(debug_registers);
	RUN(bp_modify_and_sigtrap);
	RUN(sw_clock);
	RUN(sampling_attr);
	RUN(hw_verdict);
	RUN(pmu_consistent);
	return CHECK_DONE();
}
