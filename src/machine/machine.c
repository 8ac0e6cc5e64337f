/* SPDX-License-Identifier: MIT */
/*
 * machine.c - the CPU, caches and topology, for `sonde info` (see machine.h).  CLI only:
 * stdio, CPUID, a perf event opened and closed on the calling thread.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <linux/perf_event.h>

#include "machine/machine.h"
#include "rt/pmu.h"


/* ---- the CPU ---- */

/* Value of `key` in the first processor block of /proc/cpuinfo. */
static int cpuinfo_get(const char *key, char *val, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	int found = -ENOENT;
	size_t klen = strlen(key);

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '\n')
			break; /* end of the first CPU's block */
		if (strncmp(line, key, klen) || (line[klen] != '\t' && line[klen] != ' ' &&
						 line[klen] != ':'))
			continue;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(val, len, "%s", colon);
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

static int cpuinfo_has_flag(const char *flag)
{
	static char flags[8192];
	if (cpuinfo_get("flags", flags, sizeof(flags)) < 0 &&
	    cpuinfo_get("Features", flags, sizeof(flags)) < 0)
		return 0;
	size_t n = strlen(flag);
	for (char *p = flags; (p = strstr(p, flag)); p += n)
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return 1;
	return 0;
}

static int cpuinfo_int(const char *key)
{
	char v[64];
	if (cpuinfo_get(key, v, sizeof(v)) < 0)
		return -1;
	return (int)strtol(v, NULL, 0);
}

/* Count distinct (package, core) pairs and packages over the online CPUs. */
static void count_topology(struct machine_cpu *c)
{
	enum { MAXC = 1024 };
	static long pkg[MAXC], core[MAXC];
	int n = 0, ncores = 0, nsockets = 0;
	char path[128];

	for (int cpu = 0; cpu < MAXC && n < MAXC; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (pmu_read_long(path, 1) != 1)	/* cpu0 often has no online file */
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
		long p = pmu_read_long(path, -2);
		if (p == -2)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_id",
			 cpu);
		pkg[n] = p;
		core[n] = pmu_read_long(path, cpu);
		int new_core = 1, new_pkg = 1;
		for (int i = 0; i < n; i++) {
			if (pkg[i] == pkg[n] && core[i] == core[n])
				new_core = 0;
			if (pkg[i] == pkg[n])
				new_pkg = 0;
		}
		ncores += new_core;
		nsockets += new_pkg;
		n++;
	}
	c->cores = ncores ? ncores : c->cpus_online;
	c->sockets = nsockets ? nsockets : 1;
}

int machine_cpu_read(struct machine_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->family = c->model_num = c->stepping = -1;
	if (cpuinfo_get("vendor_id", c->vendor, sizeof(c->vendor)) < 0)
		cpuinfo_get("CPU implementer", c->vendor, sizeof(c->vendor));
	if (cpuinfo_get("model name", c->model, sizeof(c->model)) < 0)
		cpuinfo_get("CPU part", c->model, sizeof(c->model));
	c->family = cpuinfo_int("cpu family");
	c->model_num = cpuinfo_int("model");
	c->stepping = cpuinfo_int("stepping");
	c->hypervisor = cpuinfo_has_flag("hypervisor");
	c->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);

	cpu_set_t set;
	CPU_ZERO(&set);
	c->cpus_available = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
									   : c->cpus_online;
	count_topology(c);
	return c->model[0] ? 0 : -ENOENT;
}

/* ---- caches ---- */

/* "48K", "1024K", "32M" -> bytes */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);
	switch (toupper((unsigned char)*end)) {
	case 'K':
		return v << 10;
	case 'M':
		return v << 20;
	case 'G':
		return v << 30;
	}
	return v;
}

/* "0-3,8" -> 5 */
static int cpulist_count(const char *s)
{
	int n = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += (int)(b - a + 1);
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return n;
}

static int caches_sysfs(struct machine_cache *c, int max)
{
	const char *dir = "/sys/devices/system/cpu/cpu0/cache";
	char path[128], buf[128];
	int n = 0;

	for (int i = 0; i < 16 && n < max; i++) {
		snprintf(path, sizeof(path), "%s/index%d/level", dir, i);
		long level = pmu_read_long(path, -1);
		if (level < 0)
			continue;
		struct machine_cache *k = &c[n++];
		memset(k, 0, sizeof(*k));
		k->level = (int)level;
		k->source = "sysfs";
		snprintf(path, sizeof(path), "%s/index%d/type", dir, i);
		if (pmu_read_line(path, k->type, sizeof(k->type)) < 0)
			snprintf(k->type, sizeof(k->type), "Unknown");
		snprintf(path, sizeof(path), "%s/index%d/size", dir, i);
		if (pmu_read_line(path, buf, sizeof(buf)) == 0)
			k->size = parse_size(buf);
		snprintf(path, sizeof(path), "%s/index%d/coherency_line_size", dir, i);
		k->line = (int)pmu_read_long(path, 0);
		snprintf(path, sizeof(path), "%s/index%d/ways_of_associativity", dir, i);
		k->ways = (int)pmu_read_long(path, 0);
		snprintf(path, sizeof(path), "%s/index%d/shared_cpu_list", dir, i);
		if (pmu_read_line(path, buf, sizeof(buf)) == 0)
			k->shared_cpus = cpulist_count(buf);
	}
	return n;
}

#if defined(__x86_64__) || defined(__i386__)
static const char *const cache_type_name[] = { "", "Data", "Instruction", "Unified" };

/* Intel leaf 4 and AMD leaf 0x8000001D share one layout: one subleaf per cache. */
static int caches_cpuid_deterministic(unsigned leaf, struct machine_cache *c, int max)
{
	unsigned a, b, cx, d;
	int n = 0;

	for (unsigned i = 0; i < 16 && n < max; i++) {
		__cpuid_count(leaf, i, a, b, cx, d);
		unsigned type = a & 0x1f;
		if (type == 0)
			break;
		if (type > 3)
			continue;
		struct machine_cache *k = &c[n++];
		memset(k, 0, sizeof(*k));
		k->level = (int)((a >> 5) & 7);
		snprintf(k->type, sizeof(k->type), "%s", cache_type_name[type]);
		k->line = (int)(b & 0xfff) + 1;
		k->ways = (int)((b >> 22) & 0x3ff) + 1;
		uint64_t parts = ((b >> 12) & 0x3ff) + 1, sets = (uint64_t)cx + 1;
		k->size = (uint64_t)k->line * parts * (uint64_t)k->ways * sets;
		k->shared_cpus = (int)((a >> 14) & 0xfff) + 1;
		k->source = "cpuid";
	}
	return n;
}

/* AMD's legacy L2/L3 associativity code (leaf 0x80000006), 0 if unknown. */
static int amd_assoc(unsigned code)
{
	static const int ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };
	return ways[code & 0xf];
}

static void legacy_entry(struct machine_cache *k, int level, const char *type, uint64_t size,
			 int line, int ways)
{
	memset(k, 0, sizeof(*k));
	k->level = level;
	snprintf(k->type, sizeof(k->type), "%s", type);
	k->size = size;
	k->line = line;
	k->ways = ways;
	k->source = "cpuid-legacy";
}

/* AMD leaves 0x80000005 (L1) and 0x80000006 (L2, L3). */
static int caches_cpuid_legacy(struct machine_cache *c, int max)
{
	unsigned a, b, cx, d;
	int n = 0;

	if (!__get_cpuid(0x80000000, &a, &b, &cx, &d) || a < 0x80000006)
		return 0;
	__get_cpuid(0x80000005, &a, &b, &cx, &d);
	if ((cx >> 24) && n < max)
		legacy_entry(&c[n++], 1, "Data", (uint64_t)(cx >> 24) << 10, (int)(cx & 0xff),
			     ((cx >> 16) & 0xff) == 0xff ? 0 : (int)((cx >> 16) & 0xff));
	if ((d >> 24) && n < max)
		legacy_entry(&c[n++], 1, "Instruction", (uint64_t)(d >> 24) << 10, (int)(d & 0xff),
			     ((d >> 16) & 0xff) == 0xff ? 0 : (int)((d >> 16) & 0xff));
	__get_cpuid(0x80000006, &a, &b, &cx, &d);
	if ((cx >> 16) && n < max)
		legacy_entry(&c[n++], 2, "Unified", (uint64_t)(cx >> 16) << 10, (int)(cx & 0xff),
			     amd_assoc(cx >> 12));
	if ((d >> 18) && n < max)
		legacy_entry(&c[n++], 3, "Unified", (uint64_t)(d >> 18) << 19, (int)(d & 0xff),
			     amd_assoc(d >> 12));
	return n;
}

int machine_caches_cpuid(struct machine_cache *c, int max)
{
	unsigned a, b, cx, d;
	char vendor[13];

	if (max <= 0 || !__get_cpuid(0, &a, &b, &cx, &d))
		return 0;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &cx, 4);
	vendor[12] = 0;
	if (!strcmp(vendor, "GenuineIntel"))
		return a >= 4 ? caches_cpuid_deterministic(4, c, max) : 0;
	if (strcmp(vendor, "AuthenticAMD") && strcmp(vendor, "HygonGenuine"))
		return 0;
	int n = 0;
	/* Leaf 0x8000001D exists only with TOPOEXT (leaf 0x80000001 ECX bit 22). */
	if (__get_cpuid(0x80000001, &a, &b, &cx, &d) && (cx & (1u << 22)))
		n = caches_cpuid_deterministic(0x8000001d, c, max);
	return n ? n : caches_cpuid_legacy(c, max);
}
#else
int machine_caches_cpuid(struct machine_cache *c, int max)
{
	return 0;
}
#endif

int machine_caches(struct machine_cache *c, int max)
{
	int n = caches_sysfs(c, max);
	return n ? n : machine_caches_cpuid(c, max);
}

int64_t machine_cache_size(int level)
{
	struct machine_cache c[16];
	int n = machine_caches(c, 16);
	for (int i = 0; i < n; i++)
		if (c[i].level == level && strcmp(c[i].type, "Instruction") && c[i].size)
			return (int64_t)c[i].size;
	return -ENOENT;
}

int machine_l3_package(void)
{
	struct machine_cache c[16];
	int n = machine_caches(c, 16);
	for (int i = 0; i < n; i++)
		if (c[i].level == 3 && strcmp(c[i].type, "Instruction") && c[i].size)
			return !strcmp(c[i].source, "cpuid-legacy");
	return 0;
}

/* ---- perf_event_open ---- */

const char *machine_paranoid_meaning(int level)
{
	if (level <= -1)
		return "no restrictions: every user may profile the kernel, all CPUs and raw tracepoints";
	if (level == 0)
		return "every user may profile the kernel and all CPUs; raw tracepoints need privilege";
	if (level == 1)
		return "unprivileged users may profile their own processes, user and kernel code; "
		       "CPU-wide events need privilege";
	if (level == 2)
		return "unprivileged users may profile the user-space code of their own processes "
		       "only (enough for sonde)";
	return "above 2: unprivileged users may not use perf_event_open at all on kernels with "
	       "the Debian/Ubuntu restriction patch (like 2 elsewhere)";
}

/* ---- cpu-clock sampling ---- */

static volatile uint64_t machine_sink;	/* work the compiler cannot drop */

int machine_sw_clock(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 200000,	/* ns */
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = pmu_perf_open(&a);
	if (fd < 0)
		return fd;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int err = -errno;
		close(fd);
		return err;
	}
	struct perf_event_mmap_page *page = m;
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do { /* at most 100 ms of CPU time; a sample every 0.2 ms of it */
		for (int i = 0; i < 20000; i++)
			machine_sink += (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	} while (__atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE) == 0 &&
		 (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 100000000L);
	int rc = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE) ? 0 : -ENODATA;
	munmap(m, 2 * pg);
	close(fd);
	return rc;
}
