/* SPDX-License-Identifier: MIT */
/*
 * u-probe.c - machine probes (src/machine/, rt/pmu.c, and the watch engine's debug-register
 * probe), each checked against an independent reading of the same fact (procfs, sysfs,
 * CPUID, uname, a breakpoint opened here) or against its own promises (no fd left open, a
 * second call agrees with the first).
 */
#include <dirent.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "machine/machine.h"
#include "rt/pmu.h"
#include "rt/watch.h"

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
	struct machine_cpu c;
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[1024];
	int processors = 0;

	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f))
		processors += !strncmp(line, "processor", 9);
	if (f)
		fclose(f);
	machine_cpu_read(&c);
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

static void check_cache_list(const struct machine_cache *c, int n)
{
	int l1d = 0;
	for (int i = 0; i < n; i++) {
		CHECK(c[i].level >= 1 && c[i].level <= 4);
		CHECK(c[i].size >= 1024);
		CHECK(c[i].line >= 16 && (c[i].line & (c[i].line - 1)) == 0);
		CHECK(c[i].source != NULL);
		l1d |= c[i].level == 1 && !strcmp(c[i].type, "Data");
	}
	CHECK(l1d);
}

TEST(caches)
{
	struct machine_cache c[16];
	int n = machine_caches(c, 16);

#ifdef __x86_64__
	CHECK(n >= 1);	/* sysfs, or CPUID where sysfs has nothing (this VM) */
#endif
	if (n == 0)
		SKIP("neither sysfs nor CPUID describes the caches here");
	check_cache_list(c, n);
	CHECK(machine_caches(c, 1) == 1);	/* respects max */
	if (!file_exists("/sys/devices/system/cpu/cpu0/cache/index0"))
		CHECK(strncmp(c[0].source, "cpuid", 5) == 0);
	else
		CHECK_STR(c[0].source, "sysfs");
}

/* CPUID and sysfs agree where both exist (the kernel fills sysfs from the same CPUID
 * leaves when it has them); CPUID alone is sane. */
TEST(caches_cpuid)
{
	struct machine_cache cpu[16], sys[16];
	int n = machine_caches_cpuid(cpu, 16);
#ifndef __x86_64__
	SKIP("CPUID is x86 only");
#endif
	CHECK(n >= 1);
	check_cache_list(cpu, n);
	if (!file_exists("/sys/devices/system/cpu/cpu0/cache/index0"))
		SKIP("no sysfs cache description to compare CPUID with");
	int m = machine_caches(sys, 16);
	if (!strcmp(cpu[0].source, "cpuid-legacy"))
		SKIP("only AMD's legacy CPUID leaves here: their L3 is the package's, not sysfs's");
	for (int i = 0; i < m; i++)
		for (int k = 0; k < n; k++)
			if (sys[i].level == cpu[k].level && !strcmp(sys[i].type, cpu[k].type))
				CHECK_EQ_U64(sys[i].size, cpu[k].size);
}

TEST(cache_size)
{
	struct machine_cache c[16];
	int n = machine_caches(c, 16);
	if (n == 0)
		SKIP("neither sysfs nor CPUID describes the caches here");
	int64_t l1 = machine_cache_size(1), l2 = machine_cache_size(2);
	CHECK(l1 >= 4096);
	for (int i = 0; i < n; i++)
		if (c[i].level == 1 && !strcmp(c[i].type, "Data"))
			CHECK_EQ_U64(l1, c[i].size);
	if (l2 > 0)
		CHECK(l2 > l1);
	int64_t l3 = machine_cache_size(3);
	if (l3 > 0 && l2 > 0)
		CHECK(l3 > l2);
	CHECK(machine_cache_size(9) == -ENOENT);
}

TEST(paranoid)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;
	if (!f)
		SKIP("no /proc/sys/kernel/perf_event_paranoid");
	CHECK(fscanf(f, "%d", &v) == 1);
	fclose(f);
	CHECK_EQ_U64(pmu_paranoid(), v);
	for (int l = -1; l <= 4; l++)
		CHECK(machine_paranoid_meaning(l) && machine_paranoid_meaning(l)[0]);
	CHECK(strstr(machine_paranoid_meaning(2), "user-space") != NULL);
}

/* An independent count: read-write breakpoints of 4 bytes on a stack array, opened until
 * one fails (the probe uses write breakpoints of 8 bytes on static data). */
static int count_breakpoints(void)
{
	volatile uint32_t words[32];
	int fds[32], n = 0;

	for (; n < 32; n++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_BREAKPOINT;
		a.bp_type = HW_BREAKPOINT_RW;
		a.bp_addr = (uint64_t)(uintptr_t)&words[n];
		a.bp_len = HW_BREAKPOINT_LEN_4;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fds[n] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (fds[n] < 0)
			break;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

static struct watch_probe wp;

TEST(debug_registers)
{
	int before = count_fds();
	int r = watch_probe_run(&wp);

	CHECK_EQ_U64(count_fds(), before);	/* every breakpoint closed */
	CHECK_EQ_U64(wp.regs, count_breakpoints());
	CHECK(wp.regs >= 0 && wp.regs <= WATCH_PROBE_MAX);
	CHECK(wp.fired >= 0 && wp.fired <= wp.regs);
	CHECK(r == 0 || r == -ENODEV);
	CHECK((r == 0) == watch_probe_fires(&wp));
	CHECK((wp.why[0] == 0) == (r == 0));	/* a reason exactly when it cannot work */
	if (wp.regs == 0) {
		CHECK(wp.regs_err < 0);
		SKIP(wp.why);
	}
	CHECK(wp.regs == WATCH_PROBE_MAX || wp.regs_err < 0);	/* it stopped for a reason */
#ifdef __x86_64__
	CHECK(wp.regs <= 4);	/* x86 has DR0..DR3 */
	if (wp.regs == 4)
		CHECK(wp.regs_err == -ENOSPC);
#endif
	struct watch_probe again;
	watch_probe_run(&again);	/* all were released: the same answer */
	CHECK_EQ_U64(again.regs, wp.regs);
	CHECK_EQ_U64(again.fired, wp.fired);
	CHECK_EQ_U64(count_fds(), before);
	if (wp.fired == 0) {
		/* The verdict a user reads: it names what is missing. */
		CHECK(strstr(wp.why, "no trap fires") != NULL);
		CHECK(strstr(wp.why, "fix:") != NULL);
		CHECK(wp.modify == -ENODATA || wp.modify < 0);
		CHECK(wp.sigtrap != 0);
	}
	/* The cached probe agrees. */
	CHECK_EQ_U64(watch_probe_cached()->regs, wp.regs);
	CHECK_EQ_U64(watch_probe_cached()->fired, wp.fired);
}

TEST(bp_modify_and_sigtrap)
{
	if (!watch_probe_fires(&wp))
		SKIP(wp.why[0] ? wp.why : "no debug registers");
	if (kernel_at_least(4, 17))
		CHECK(wp.modify == 0);
	if (kernel_at_least(5, 13))
		CHECK(wp.sigtrap == 0);
}

TEST(sw_clock)
{
	int before = count_fds();
	int r = machine_sw_clock();
	CHECK_EQ_U64(count_fds(), before);
	if (r == -EACCES || r == -EPERM)
		SKIP("cpu-clock events not permitted here");
	CHECK(r == 0);
}

TEST(sampling_attr)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	pmu_hw_sampling_attr(&a, PMU_HW_PEBS, 100003);
	CHECK_EQ_U64(a.sample_period, 100003);
	CHECK_EQ_U64(a.sample_type, PMU_HW_SAMPLE_TYPE);
	CHECK(a.sample_type & PERF_SAMPLE_ADDR);
	CHECK(a.disabled && a.wakeup_events == 1 && a.use_clockid);
	CHECK(!a.exclude_hv && !a.exclude_kernel);	/* the event builders' business */
	memset(&a, 0, sizeof(a));
	pmu_hw_sampling_attr(&a, PMU_HW_IBS, 100003);
	CHECK_EQ_U64(a.sample_period, 100000);	/* rounded down to a multiple of 16 */
	CHECK(a.sample_type & PERF_SAMPLE_RAW);
	pmu_hw_sampling_attr(&a, PMU_HW_IBS, 3);
	CHECK_EQ_U64(a.sample_period, 16);
}

/* The hw verdict agrees with what sysfs shows, and explains itself. */
TEST(hw_verdict)
{
	struct pmu_hw h;
	struct machine_cpu c;
	int before = count_fds();

	pmu_hw_probe(&h);
	machine_cpu_read(&c);
	CHECK_EQ_U64(count_fds(), before);
	CHECK(h.why[0] != 0);
	if (h.usable) {
		CHECK(h.nevents >= 1 && h.nevents <= 2);
		CHECK(h.kind == PMU_HW_PEBS || h.kind == PMU_HW_IBS);
		return;
	}
	CHECK(h.nevents == 0 || h.kind == PMU_HW_PEBS);
	if (pmu_paranoid() >= 3 && !pmu_privileged())
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
	struct pmu_info p;
	struct machine_cpu c;
	pmu_info_read(&p);
	machine_cpu_read(&c);
	CHECK(p.ibs_op >= 0 || !file_exists("/sys/bus/event_source/devices/ibs_op"));
	CHECK(p.ibs_swfilt == (p.ibs_op >= 0 &&
			       file_exists("/sys/bus/event_source/devices/ibs_op/format/swfilt")));
#ifdef __x86_64__
	CHECK_STR(p.vendor, c.vendor);			/* CPUID and cpuinfo agree */
	CHECK_EQ_U64(p.hypervisor, c.hypervisor);
#endif
	if (!p.cpu_pmu[0])
		CHECK(p.why[0] != 0);
	else
		CHECK(p.max_precise >= 0 && p.max_precise <= 3);
}

int main(void)
{
	RUN(cpu_matches_procfs);
	RUN(caches);
	RUN(caches_cpuid);
	RUN(cache_size);
	RUN(paranoid);
	RUN(debug_registers);
	RUN(bp_modify_and_sigtrap);
	RUN(sw_clock);
	RUN(sampling_attr);
	RUN(hw_verdict);
	RUN(pmu_consistent);
	return CHECK_DONE();
}
