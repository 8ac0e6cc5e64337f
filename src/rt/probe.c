/* SPDX-License-Identifier: MIT */
/*
 * probe.c - machine probes (see probe.h).  Not handler code: stdio, libpfm4, fork.
 * Every probe that opens a perf event opens it on the calling thread and closes it
 * before returning, so it leaves no trace in the process.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "rt/probe.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static int perf_open(struct perf_event_attr *a)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The first line of a small file, without its newline.  0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static long read_long(const char *path, long dflt)
{
	char buf[64];
	if (read_line(path, buf, sizeof(buf)) < 0)
		return dflt;
	char *end;
	long v = strtol(buf, &end, 0);
	return end == buf ? dflt : v;
}

static int path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

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
static void count_topology(struct probe_cpu *c)
{
	enum { MAXC = 1024 };
	static long pkg[MAXC], core[MAXC];
	int n = 0, ncores = 0, nsockets = 0;
	char path[128];

	for (int cpu = 0; cpu < MAXC && n < MAXC; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (read_long(path, 1) != 1)	/* cpu0 often has no online file */
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
		long p = read_long(path, -2);
		if (p == -2)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_id",
			 cpu);
		pkg[n] = p;
		core[n] = read_long(path, cpu);
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

int probe_cpu(struct probe_cpu *c)
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

int probe_caches(struct probe_cache *c, int max)
{
	char path[128], buf[128];
	int n = 0;

	for (int i = 0; i < 16 && n < max; i++) {
		const char *dir = "/sys/devices/system/cpu/cpu0/cache";
		snprintf(path, sizeof(path), "%s/index%d/level", dir, i);
		long level = read_long(path, -1);
		if (level < 0)
			continue;
		struct probe_cache *k = &c[n++];
		memset(k, 0, sizeof(*k));
		k->level = (int)level;
		snprintf(path, sizeof(path), "%s/index%d/type", dir, i);
		if (read_line(path, k->type, sizeof(k->type)) < 0)
			snprintf(k->type, sizeof(k->type), "Unknown");
		snprintf(path, sizeof(path), "%s/index%d/size", dir, i);
		if (read_line(path, buf, sizeof(buf)) == 0)
			k->size = parse_size(buf);
		snprintf(path, sizeof(path), "%s/index%d/coherency_line_size", dir, i);
		k->line = (int)read_long(path, 0);
		snprintf(path, sizeof(path), "%s/index%d/ways_of_associativity", dir, i);
		k->ways = (int)read_long(path, 0);
		snprintf(path, sizeof(path), "%s/index%d/shared_cpu_list", dir, i);
		if (read_line(path, buf, sizeof(buf)) == 0)
			k->shared_cpus = cpulist_count(buf);
	}
	return n;
}

/* ---- perf_event_open settings ---- */

int probe_paranoid(void)
{
	long v = read_long("/proc/sys/kernel/perf_event_paranoid", -1000);
	return v == -1000 ? -ENOENT : (int)v;
}

const char *probe_paranoid_meaning(int level)
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

int probe_privileged(void)
{
	if (geteuid() == 0)
		return 1;
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff & (1ull << 38)) || (eff & (1ull << 21)); /* CAP_PERFMON, CAP_SYS_ADMIN */
}

const char *probe_perf_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case EACCES:
	case EPERM:
		return "permission denied (perf_event_paranoid, or a missing CAP_PERFMON)";
	case ENOENT:
		return "no such event on this PMU";
	case EOPNOTSUPP:
		return "not supported by this PMU (sampling, precision or an attribute)";
	case EINVAL:
		return "invalid attributes for this kernel or PMU";
	case ENOSPC:
		return "no free hardware slot (all debug registers or counters in use)";
	case ENODEV:
		return "no such PMU";
	case EBUSY:
		return "the PMU is busy (used by another user or the hypervisor)";
	case EMFILE:
		return "too many open files";
	case E2BIG:
		return "the kernel does not know this perf_event_attr size";
	}
	return strerror(err < 0 ? -err : err);
}

/* ---- PMUs ---- */

static int pmu_type(const char *pmu)
{
	char path[256];
	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	return (int)read_long(path, -1);
}

/* Find a PMU whose name begins with prefix; copy its name.  1 if found. */
static int pmu_find(const char *prefix, char *name, size_t len)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *e;
	int found = 0;
	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			size_t n = strnlen(e->d_name, len - 1);
			memcpy(name, e->d_name, n);
			name[n] = 0;
			found = 1;
		}
	closedir(d);
	return found;
}

static void find_cpu_pmu(char *name, size_t len)
{
	static const char *const names[] = { "cpu", "cpu_core", "armv8_pmuv3", "armv8_",
					     "armv7_", "arm_cortex" };
	name[0] = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (i == 0 || i == 1) {
			char path[256];
			snprintf(path, sizeof(path), PMU_DIR "/%s", names[i]);
			if (path_exists(path)) {
				snprintf(name, len, "%s", names[i]);
				return;
			}
		} else if (pmu_find(names[i], name, len)) {
			return;
		}
	}
}

static int try_cycles(int sample)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = sample ? 1000000 : 0,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd = perf_open(&a);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static void no_pmu_reason(char *why, size_t len)
{
	if (cpuinfo_has_flag("hypervisor"))
		snprintf(why, len,
			 "no CPU PMU: " PMU_DIR "/cpu missing (running in a VM without a virtual "
			 "PMU); fix: enable the virtual PMU in the hypervisor (e.g. QEMU/KVM "
			 "-cpu host,pmu=on), or run on bare metal");
	else
		snprintf(why, len,
			 "no CPU PMU: " PMU_DIR "/cpu missing (the kernel has no PMU driver for "
			 "this CPU, or it is disabled); fix: a kernel with perf support for it");
}

int probe_pmu(struct probe_pmu *p)
{
	char path[256], name[64];

	memset(p, 0, sizeof(*p));
	find_cpu_pmu(p->cpu_pmu, sizeof(p->cpu_pmu));
	p->max_precise = -1;
	if (p->cpu_pmu[0]) {
		snprintf(path, sizeof(path), PMU_DIR "/%s/caps/max_precise", p->cpu_pmu);
		p->max_precise = (int)read_long(path, -1);
	}
	p->hw_count = try_cycles(0);
	p->hw_sample = try_cycles(1);
	p->ibs_op = pmu_type("ibs_op");
	p->arm_spe = pmu_find("arm_spe", name, sizeof(name));
	p->pebs_flags = cpuinfo_has_flag("pdcm") || cpuinfo_has_flag("dtes64");
	if (!p->cpu_pmu[0])
		no_pmu_reason(p->why, sizeof(p->why));
	else if (p->hw_count < 0)
		snprintf(p->why, sizeof(p->why), "the %s PMU exists but a cycles counter is "
			 "refused: %s", p->cpu_pmu, probe_perf_strerror(p->hw_count));
	return 0;
}

/* ---- the hw source ---- */

void probe_hw_sampling_attr(struct perf_event_attr *a, int kind, uint64_t period)
{
	a->size = sizeof(*a);
	if (kind == PROBE_HW_IBS)	/* IbsOpMaxCnt counts in units of 16 */
		period = period < 16 ? 16 : period & ~15ull;
	a->sample_period = period;
	a->freq = 0;
	a->sample_type = kind == PROBE_HW_IBS ? PROBE_IBS_SAMPLE_TYPE : PROBE_HW_SAMPLE_TYPE;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;	/* a signal per sample: the tools react to each one */
	a->use_clockid = 1;	/* sample times comparable with rt_now() */
	a->clockid = CLOCK_MONOTONIC;
}

/* Open a sampling version of e on the calling thread and close it.  0 or -errno. */
static int try_event(const struct probe_hw_event *e, int kind)
{
	struct perf_event_attr a = e->attr;
	probe_hw_sampling_attr(&a, kind, 100003);
	int fd = perf_open(&a);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Bit of a format field ("config:19", "config2:0") of a PMU: 0 if single-bit. */
static int pmu_format_bit(const char *pmu, const char *field, int *which, int *bit)
{
	char path[256], buf[64];
	snprintf(path, sizeof(path), PMU_DIR "/%s/format/%s", pmu, field);
	if (read_line(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	const char *q = buf;
	if (strncmp(q, "config", 6))
		return -EINVAL;
	q += 6;
	int w = isdigit((unsigned char)*q) ? *q++ - '0' : 0;
	if (*q++ != ':')
		return -EINVAL;
	char *end;
	long b = strtol(q, &end, 10), e = b;
	if (end == q)
		return -EINVAL;
	if (*end == '-')
		e = strtol(end + 1, NULL, 10);
	if (e != b || b < 0 || b > 63)
		return -EINVAL;
	*which = w;
	*bit = (int)b;
	return 0;
}

static void set_config_bit(struct perf_event_attr *a, int which, int bit)
{
	if (which == 0)
		a->config |= 1ull << bit;
	else if (which == 1)
		a->config1 |= 1ull << bit;
	else if (which == 2)
		a->config2 |= 1ull << bit;
}

static void probe_ibs(struct probe_hw *h, int type)
{
	struct probe_hw_event *e = &h->ev[0];
	int which, bit;

	h->kind = PROBE_HW_IBS;
	h->nevents = 1;
	snprintf(e->name, sizeof(e->name), "ibs_op");
	e->store = -1;
	e->attr.type = (uint32_t)type;
	/* Count dispatched ops rather than cycles: samples spread over ops, not stalls. */
	if (pmu_format_bit("ibs_op", "cnt_ctl", &which, &bit) == 0)
		set_config_bit(&e->attr, which, bit);
	/* IBS cannot exclude the kernel in hardware; swfilt (Linux 6.14+) filters in
	 * software, which paranoid 2 needs.  Without it only privileged users get IBS. */
	int swfilt = pmu_format_bit("ibs_op", "swfilt", &which, &bit) == 0;
	if (swfilt) {
		set_config_bit(&e->attr, which, bit);
		e->attr.exclude_kernel = 1;
	}
	int err = try_event(e, PROBE_HW_IBS);
	if (err == 0) {
		h->usable = 1;
		snprintf(h->why, sizeof(h->why), "AMD IBS op sampling (ibs_op PMU type %d%s)",
			 type, swfilt ? ", swfilt" : ", kernel samples included");
		return;
	}
	snprintf(h->why, sizeof(h->why), "ibs_op refused: %s%s", probe_perf_strerror(err),
		 (!swfilt && (err == -EACCES || err == -EPERM))
			 ? "; this kernel's IBS cannot exclude kernel samples: set "
			   "kernel.perf_event_paranoid=1 or grant CAP_PERFMON (or use Linux 6.14+, swfilt)"
			 : "");
}

static const struct {
	const char *name;
	int store;
} pebs_events[] = {
	{ "MEM_INST_RETIRED:ALL_LOADS", 0 },		/* Skylake and later */
	{ "MEM_UOPS_RETIRED:ALL_LOADS", 0 },		/* Sandy Bridge .. Broadwell */
	{ "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3", 0 },	/* load-latency facility */
	{ "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=3", 0 }, /* Nehalem, Westmere */
	{ "MEM_INST_RETIRED:ALL_STORES", 1 },
	{ "MEM_UOPS_RETIRED:ALL_STORES", 1 },
	{ "MEM_TRANS_RETIRED:PRECISE_STORE", 1 },
};

/* Encode name with libpfm4 and find the highest precise_ip the kernel accepts.
 * 0, -ENOENT if libpfm4 cannot encode it, or the last perf_event_open error. */
static int pebs_event(const char *name, struct probe_hw_event *e)
{
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	memset(e, 0, sizeof(*e));
	arg.attr = &e->attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return -ENOENT;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.exclude_kernel = 1;
	int err = -EOPNOTSUPP;
	for (int p = 3; p >= 1; p--) {
		e->attr.precise_ip = (uint64_t)p;
		err = try_event(e, PROBE_HW_PEBS);
		if (err == 0)
			return 0;
	}
	return err;
}

static void probe_pebs(struct probe_hw *h, const struct probe_pmu *pmu)
{
	int err_load = -ENOENT, err_store = -ENOENT, have_load = 0, have_store = 0;
	const char *refused = NULL;

	h->kind = PROBE_HW_PEBS;
	if (pfm_initialize() != PFM_SUCCESS) {
		snprintf(h->why, sizeof(h->why), "libpfm4 does not initialize on this CPU");
		return;
	}
	for (size_t i = 0; i < sizeof(pebs_events) / sizeof(pebs_events[0]); i++) {
		int store = pebs_events[i].store;
		if (store ? have_store : have_load)
			continue;
		struct probe_hw_event e;
		int err = pebs_event(pebs_events[i].name, &e);
		if (err == 0) {
			e.store = store;
			h->ev[h->nevents++] = e;
			*(store ? &have_store : &have_load) = 1;
		} else if (err != -ENOENT) {
			*(store ? &err_store : &err_load) = err;
			refused = pebs_events[i].name;
		}
	}
	if (have_load || have_store) {
		h->usable = 1;
		snprintf(h->why, sizeof(h->why), "Intel PEBS: %s%s%s (precise_ip %d)",
			 h->ev[0].name, h->nevents > 1 ? ", " : "",
			 h->nevents > 1 ? h->ev[1].name : "", (int)h->ev[0].attr.precise_ip);
		return;
	}
	int err = err_load != -ENOENT ? err_load : err_store;
	if (pmu->max_precise == 0)
		snprintf(h->why, sizeof(h->why),
			 "Intel CPU without PEBS: the %s PMU has max_precise 0 (a VM that passes "
			 "counters but not PEBS); fix: enable PEBS in the hypervisor or run on "
			 "bare metal", pmu->cpu_pmu);
	else if (refused)
		snprintf(h->why, sizeof(h->why), "%s refused: %s", refused,
			 probe_perf_strerror(err));
	else
		snprintf(h->why, sizeof(h->why), "libpfm4 knows no memory-access PEBS event for "
			 "this CPU (MEM_INST_RETIRED / MEM_UOPS_RETIRED / MEM_TRANS_RETIRED)");
}

/* The kernel's verdict comes before the CPU's features: paranoid 3+ blocks everything. */
static int paranoid_blocks(struct probe_hw *h)
{
	int level = probe_paranoid();
	if (level < 3 || probe_privileged())
		return 0;
	snprintf(h->why, sizeof(h->why),
		 "perf_event_paranoid is %d: perf_event_open is closed to unprivileged users; "
		 "fix: sysctl kernel.perf_event_paranoid=2, or grant CAP_PERFMON", level);
	return 1;
}

void probe_hw(struct probe_hw *h)
{
	struct probe_pmu pmu;
	struct probe_cpu cpu;
	char spe[64];

	memset(h, 0, sizeof(*h));
	if (paranoid_blocks(h))
		return;
	probe_pmu(&pmu);
	probe_cpu(&cpu);
	if (pmu.ibs_op >= 0) {
		probe_ibs(h, pmu.ibs_op);
	} else if (pmu_find("arm_spe", spe, sizeof(spe))) {
		h->kind = PROBE_HW_SPE;
		snprintf(h->why, sizeof(h->why),
			 "Arm SPE found (%s) but not implemented in sonde: no hw source here", spe);
	} else if (!pmu.cpu_pmu[0]) {
		snprintf(h->why, sizeof(h->why), "%s", pmu.why);
	} else if (!strcmp(cpu.vendor, "GenuineIntel")) {
		probe_pebs(h, &pmu);
	} else if (!strcmp(cpu.vendor, "AuthenticAMD") || !strcmp(cpu.vendor, "HygonGenuine")) {
		snprintf(h->why, sizeof(h->why), "AMD CPU without IBS: no ibs_op PMU (%s); fix: %s",
			 cpu.hypervisor ? "this VM's virtual PMU passes core counters, which give "
					  "no data addresses, but not IBS"
					: "the kernel's IBS driver is not loaded, or the CPU lacks IBS",
			 cpu.hypervisor ? "a hypervisor that exposes IBS, or bare metal"
					: "a kernel built with AMD IBS support");
	} else {
		snprintf(h->why, sizeof(h->why),
			 "no precise memory-sampling PMU (PEBS, IBS or SPE) on this %s CPU",
			 cpu.vendor[0] ? cpu.vendor : "unknown");
	}
}

void probe_hw_page_faults(struct probe_hw *h)
{
	struct probe_hw_event *e = &h->ev[0];

	memset(h, 0, sizeof(*h));
	h->kind = PROBE_HW_PAGE_FAULTS;
	h->nevents = 1;
	snprintf(e->name, sizeof(e->name), "page-faults");
	e->store = -1;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	e->attr.exclude_kernel = 1;
	int err = try_event(e, PROBE_HW_PAGE_FAULTS);
	h->usable = err == 0;
	snprintf(h->why, sizeof(h->why), "software page-fault events (SONDE_HW_EVENT=page-faults, "
		 "a test mode)%s%s", err ? ": refused: " : "", err ? probe_perf_strerror(err) : "");
}

/* ---- debug registers ---- */

static volatile uint64_t bp_target[16] __attribute__((aligned(64)));

static int open_bp(volatile void *addr, int sigtrap)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uint64_t)(uintptr_t)addr,
		.bp_len = HW_BREAKPOINT_LEN_8,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	if (sigtrap) {
		a.sample_period = 1;
		a.sigtrap = 1;
		a.remove_on_exec = 1;	/* the kernel requires it with sigtrap */
		a.sig_data = 0x50de;
	}
	return perf_open(&a);
}

static uint64_t read_count(int fd)
{
	uint64_t v = 0;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return UINT64_MAX;
	return v;
}

int probe_debug_registers(int max, int *err)
{
	int fds[16], n = 0;

	*err = 0;
	if (max > 16)
		max = 16;
	while (n < max) {
		int fd = open_bp(&bp_target[n], 0);
		if (fd < 0) {
			*err = -fd;
			break;
		}
		fds[n] = fd;
		bp_target[n]++;
		if (read_count(fd) != 1) {	/* opened, but it does not catch the write */
			*err = EIO;
			close(fd);
			break;
		}
		n++;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return n;
}

int probe_bp_modify(void)
{
	int fd = open_bp(&bp_target[0], 0);
	if (fd < 0)
		return fd;
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uint64_t)(uintptr_t)&bp_target[1],
		.bp_len = HW_BREAKPOINT_LEN_8,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int rc = 0;
	bp_target[0]++;
	if (ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a) < 0) {
		rc = -errno;
	} else {
		bp_target[0]++;	/* no longer watched */
		bp_target[1]++;
		if (read_count(fd) != 2)
			rc = -EIO;
	}
	close(fd);
	return rc;
}

static volatile sig_atomic_t trap_code, trap_data_ok;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	trap_code = si->si_code;
	/* si_perf_data follows si_addr (glibc 2.36 has no name for it). */
	uint64_t data;
	memcpy(&data, (char *)&si->si_addr + sizeof(void *), sizeof(data));
	trap_data_ok = data == 0x50de;
}

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

/* Child side: exit 0 ok, 100 no signal, 101 wrong code or data, else errno of open. */
static void sigtrap_child(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	int fd = open_bp(&bp_target[2], 1);
	if (fd < 0)
		_exit(-fd < 100 ? -fd : 99);
	bp_target[2]++;
	close(fd);
	if (!trap_code)
		_exit(100);
	_exit(trap_code == TRAP_PERF && trap_data_ok ? 0 : 101);
}

int probe_bp_sigtrap(void)
{
	int status;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		sigtrap_child();
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EFAULT;	/* the trap killed the child */
	int code = WEXITSTATUS(status);
	if (code == 0)
		return 0;
	if (code == 100 || code == 101)
		return -ENOTSUP;
	return -code;
}

static volatile uint64_t probe_sink;	/* work the compiler cannot drop */

int probe_sw_clock(void)
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
	int fd = perf_open(&a);
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
			probe_sink += (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	} while (__atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE) == 0 &&
		 (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 100000000L);
	int rc = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE) ? 0 : -ENODATA;
	munmap(m, 2 * pg);
	close(fd);
	return rc;
}
