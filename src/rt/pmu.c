/* SPDX-License-Identifier: MIT */
/*
 * pmu.c - the PMUs and the hw source's events (see pmu.h).  Not handler code: stdio,
 * libpfm4.  Every probe that opens a perf event opens it on the calling thread and
 * closes it before returning, so it leaves no trace in the process.
 *
 * libpfm4 is loaded with dlopen, and only when an Intel PMU's PEBS events are probed: it
 * is not linked.  Linked, the loader relocated its event tables into every profiled
 * process, 2.1 MB resident (bench/comm.sh's memory breakdown), on machines that never
 * use it (AMD, Arm, and VMs without a PMU).
 */
#include <dlfcn.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "rt/pmu.h"

int pmu_perf_open(struct perf_event_attr *a)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The first line of a small file, without its newline.  0 or -errno. */
int pmu_read_line(const char *path, char *buf, size_t len)
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

long pmu_read_long(const char *path, long dflt)
{
	char buf[64];
	if (pmu_read_line(path, buf, sizeof(buf)) < 0)
		return dflt;
	char *end;
	long v = strtol(buf, &end, 0);
	return end == buf ? dflt : v;
}

/* ---- perf_event_open limits ---- */

int pmu_paranoid(void)
{
	long v = pmu_read_long("/proc/sys/kernel/perf_event_paranoid", -1000);
	return v == -1000 ? -ENOENT : (int)v;
}

int pmu_privileged(void)
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

const char *pmu_strerror(int err)
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

/* ---- the PMUs ---- */

static int pmu_type(const char *pmu)
{
	char path[256];
	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	return (int)pmu_read_long(path, -1);
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
	static const char *const exact[] = { "cpu", "cpu_core" };
	static const char *const prefix[] = { "armv8_pmuv3", "armv8_", "armv7_", "arm_cortex" };
	char path[256];

	name[0] = 0;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		snprintf(path, sizeof(path), PMU_DIR "/%s", exact[i]);
		if (access(path, F_OK) == 0) {
			snprintf(name, len, "%s", exact[i]);
			return;
		}
	}
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (pmu_find(prefix[i], name, len))
			return;
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
	int fd = pmu_perf_open(&a);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* CPUID's vendor string and hypervisor bit (leaf 1, ECX bit 31); "" and 0 off x86. */
static void cpu_identity(char *vendor, size_t len, int *hypervisor)
{
	vendor[0] = 0;
	*hypervisor = 0;
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d) || len < 13)
		return;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (__get_cpuid(1, &a, &b, &c, &d))
		*hypervisor = !!(c & (1u << 31));
#endif
}

static void no_pmu_reason(char *why, size_t len, int hypervisor)
{
	if (hypervisor)
		snprintf(why, len,
			 "no CPU PMU: " PMU_DIR "/cpu missing (running in a VM without a virtual "
			 "PMU); fix: enable the virtual PMU in the hypervisor (e.g. QEMU/KVM "
			 "-cpu host,pmu=on), or run on bare metal");
	else
		snprintf(why, len,
			 "no CPU PMU: " PMU_DIR "/cpu missing (the kernel has no PMU driver for "
			 "this CPU, or it is disabled); fix: a kernel with perf support for it");
}

int pmu_info_read(struct pmu_info *p)
{
	char path[256], name[64];
	struct pmu_field swfilt;

	memset(p, 0, sizeof(*p));
	cpu_identity(p->vendor, sizeof(p->vendor), &p->hypervisor);
	find_cpu_pmu(p->cpu_pmu, sizeof(p->cpu_pmu));
	p->max_precise = -1;
	if (p->cpu_pmu[0]) {
		snprintf(path, sizeof(path), PMU_DIR "/%s/caps/max_precise", p->cpu_pmu);
		p->max_precise = (int)pmu_read_long(path, -1);
	}
	p->hw_count = try_cycles(0);
	p->hw_sample = try_cycles(1);
	p->ibs_op = pmu_type("ibs_op");
	p->ibs_swfilt = p->ibs_op >= 0 && pmu_field_read("ibs_op", "swfilt", &swfilt) == 0;
	p->arm_spe = pmu_find("arm_spe", name, sizeof(name)) ? pmu_type(name) : -1;
	if (!p->cpu_pmu[0])
		no_pmu_reason(p->why, sizeof(p->why), p->hypervisor);
	else if (p->hw_count < 0)
		snprintf(p->why, sizeof(p->why), "the %s PMU exists but a cycles counter is "
			 "refused: %s", p->cpu_pmu, pmu_strerror(p->hw_count));
	return 0;
}

int pmu_field_read(const char *pmu, const char *field, struct pmu_field *f)
{
	char path[256], buf[64];

	f->which = f->bit = -1;
	snprintf(path, sizeof(path), PMU_DIR "/%s/format/%s", pmu, field);
	if (pmu_read_line(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	const char *q = buf;
	if (strncmp(q, "config", 6))
		return -EINVAL;
	q += 6;
	int w = isdigit((unsigned char)*q) ? *q++ - '0' : 0;
	if (*q++ != ':' || w > 2)
		return -EINVAL;
	char *end;
	long b = strtol(q, &end, 10), e = b;
	if (end == q)
		return -EINVAL;
	if (*end == '-')
		e = strtol(end + 1, NULL, 10);
	if (e != b || b < 0 || b > 63)
		return -EINVAL;
	f->which = w;
	f->bit = (int)b;
	return 0;
}

void pmu_field_set(struct perf_event_attr *a, struct pmu_field f)
{
	if (f.which < 0 || f.bit < 0 || f.bit > 63)
		return;
	if (f.which == 0)
		a->config |= 1ull << f.bit;
	else if (f.which == 1)
		a->config1 |= 1ull << f.bit;
	else
		a->config2 |= 1ull << f.bit;
}

/* ---- the attributes of each hw event ---- */

void pmu_attr_ibs(struct perf_event_attr *a, int type, struct pmu_field cnt_ctl,
		  struct pmu_field swfilt)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
	pmu_field_set(a, cnt_ctl);
	if (swfilt.which >= 0) {	/* only then may an exclude_* bit be set (pmu.h) */
		pmu_field_set(a, swfilt);
		a->exclude_kernel = 1;
	}
}

void pmu_attr_pebs(struct perf_event_attr *a, int precise_ip)
{
	a->size = sizeof(*a);
	a->precise_ip = (uint64_t)(precise_ip < 0 ? 0 : precise_ip > 3 ? 3 : precise_ip);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

void pmu_attr_spe(struct perf_event_attr *a, int type, struct pmu_field load_filter,
		  struct pmu_field store_filter, struct pmu_field ts_enable)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
	pmu_field_set(a, load_filter);
	pmu_field_set(a, store_filter);
	pmu_field_set(a, ts_enable);
	a->exclude_kernel = 1;	/* SPE filters exception levels in hardware (PMSCR_EL1) */
	a->exclude_hv = 1;
}

void pmu_hw_sampling_attr(struct perf_event_attr *a, int kind, uint64_t period)
{
	a->size = sizeof(*a);
	if (kind == PMU_HW_IBS)	/* IbsOpMaxCnt counts in units of 16 */
		period = period < 16 ? 16 : period & ~15ull;
	a->sample_period = period;
	a->freq = 0;
	a->sample_type = kind == PMU_HW_IBS   ? PMU_IBS_SAMPLE_TYPE
			 : kind == PMU_HW_SPE ? PMU_SPE_SAMPLE_TYPE
					      : PMU_HW_SAMPLE_TYPE;
	a->disabled = 1;
	a->wakeup_events = 1;	/* a signal per sample: the tools react to each one */
	a->use_clockid = 1;	/* sample times comparable with rt_now() */
	a->clockid = CLOCK_MONOTONIC;
}

/* ---- the hw source's verdict ---- */

/* Open a sampling version of e on the calling thread and close it.  0 or -errno. */
static int try_event(const struct pmu_hw_event *e, int kind)
{
	struct perf_event_attr a = e->attr;
	pmu_hw_sampling_attr(&a, kind, 100003);
	int fd = pmu_perf_open(&a);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static void probe_ibs(struct pmu_hw *h, const struct pmu_info *pmu)
{
	struct pmu_hw_event *e = &h->ev[0];
	struct pmu_field cnt_ctl, swfilt;

	h->kind = PMU_HW_IBS;
	h->nevents = 1;
	snprintf(e->name, sizeof(e->name), "ibs_op");
	e->store = -1;
	/* Count dispatched ops rather than cycles: samples spread over ops, not stalls. */
	pmu_field_read("ibs_op", "cnt_ctl", &cnt_ctl);
	pmu_field_read("ibs_op", "swfilt", &swfilt);
	pmu_attr_ibs(&e->attr, pmu->ibs_op, cnt_ctl, swfilt);
	int err = try_event(e, PMU_HW_IBS);
	if (err == 0) {
		h->usable = 1;
		snprintf(h->why, sizeof(h->why), "AMD IBS op sampling (ibs_op PMU type %d%s)",
			 pmu->ibs_op, swfilt.which >= 0 ? ", swfilt: user space only"
							: ", kernel samples included and dropped");
		return;
	}
	/* Without swfilt the event samples the kernel too (no exclude_* bit is allowed):
	 * that, not the attributes, is what paranoid >= 2 refuses to unprivileged users. */
	int denied = err == -EACCES || err == -EPERM;
	snprintf(h->why, sizeof(h->why), "ibs_op refused: %s%s", pmu_strerror(err),
		 denied && swfilt.which < 0
			 ? "; this kernel's IBS cannot leave kernel samples out (no swfilt "
			   "before Linux 6.14), and perf_event_paranoid >= 2 lets only "
			   "privileged users sample the kernel: set kernel.perf_event_paranoid=1, "
			   "grant CAP_PERFMON, or use Linux 6.14+"
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

/* libpfm4's two entry points we use, resolved once from libpfm.so.4; NULL if it is not
 * installed (then no PEBS event can be named: the probe says so). */
static struct {
	int tried;
	pfm_err_t (*initialize)(void);
	pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
} pfm;

int pmu_pfm_load(void)
{
	if (!pfm.tried) {
		pfm.tried = 1;
		void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
			*(void **)&pfm.encode = dlsym(h, "pfm_get_os_event_encoding");
			if (!pfm.initialize || !pfm.encode) {
				pfm.initialize = NULL;
				pfm.encode = NULL;
				dlclose(h);
			}
		}
	}
	return pfm.initialize ? 0 : -ENOENT;
}

/* Encode name with libpfm4 and find the highest precise_ip the kernel accepts.
 * 0, -ENOENT if libpfm4 cannot encode it, or the last perf_event_open error. */
static int pebs_event(const char *name, struct pmu_hw_event *e)
{
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	memset(e, 0, sizeof(*e));
	arg.attr = &e->attr;
	arg.size = sizeof(arg);
	if (pfm.encode(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return -ENOENT;
	snprintf(e->name, sizeof(e->name), "%s", name);
	int err = -EOPNOTSUPP;
	for (int p = 3; p >= 1; p--) {
		pmu_attr_pebs(&e->attr, p);
		err = try_event(e, PMU_HW_PEBS);
		if (err == 0)
			return 0;
	}
	return err;
}

static void probe_pebs(struct pmu_hw *h, const struct pmu_info *pmu)
{
	int err_load = -ENOENT, err_store = -ENOENT, have_load = 0, have_store = 0;
	const char *refused = NULL;

	h->kind = PMU_HW_PEBS;
	if (pmu_pfm_load()) {
		snprintf(h->why, sizeof(h->why), "libpfm4 (libpfm.so.4) is not installed: it names "
			 "the PEBS events; fix: apt-get install libpfm4");
		return;
	}
	if (pfm.initialize() != PFM_SUCCESS) {
		snprintf(h->why, sizeof(h->why), "libpfm4 does not initialize on this CPU");
		return;
	}
	for (size_t i = 0; i < sizeof(pebs_events) / sizeof(pebs_events[0]); i++) {
		int store = pebs_events[i].store;
		if (store ? have_store : have_load)
			continue;
		struct pmu_hw_event e;
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
		snprintf(h->why, sizeof(h->why), "%s refused: %s", refused, pmu_strerror(err));
	else
		snprintf(h->why, sizeof(h->why), "libpfm4 knows no memory-access PEBS event for "
			 "this CPU (MEM_INST_RETIRED / MEM_UOPS_RETIRED / MEM_TRANS_RETIRED)");
}

/* The kernel's verdict comes before the CPU's features: paranoid 3+ blocks everything. */
static int paranoid_blocks(struct pmu_hw *h)
{
	int level = pmu_paranoid();
	if (level < 3 || pmu_privileged())
		return 0;
	snprintf(h->why, sizeof(h->why),
		 "perf_event_paranoid is %d: perf_event_open is closed to unprivileged users; "
		 "fix: sysctl kernel.perf_event_paranoid=2, or grant CAP_PERFMON", level);
	return 1;
}

void pmu_hw_probe(struct pmu_hw *h)
{
	struct pmu_info pmu;

	memset(h, 0, sizeof(*h));
	if (paranoid_blocks(h))
		return;
	pmu_info_read(&pmu);
	if (pmu.ibs_op >= 0) {
		probe_ibs(h, &pmu);
	} else if (pmu.arm_spe >= 0) {
		h->kind = PMU_HW_SPE;
		snprintf(h->why, sizeof(h->why),
			 "Arm SPE found (PMU type %d) but not implemented in sonde: no hw source "
			 "here", pmu.arm_spe);
	} else if (!pmu.cpu_pmu[0]) {
		snprintf(h->why, sizeof(h->why), "%s", pmu.why);
	} else if (!strcmp(pmu.vendor, "GenuineIntel")) {
		probe_pebs(h, &pmu);
	} else if (!strcmp(pmu.vendor, "AuthenticAMD") || !strcmp(pmu.vendor, "HygonGenuine")) {
		snprintf(h->why, sizeof(h->why), "AMD CPU without IBS: no ibs_op PMU (%s); fix: %s",
			 pmu.hypervisor ? "this VM's virtual PMU passes core counters, which give "
					  "no data addresses, but not IBS"
					: "the kernel's IBS driver is not loaded, or the CPU lacks IBS",
			 pmu.hypervisor ? "a hypervisor that exposes IBS, or bare metal"
					: "a kernel built with AMD IBS support");
	} else {
		snprintf(h->why, sizeof(h->why),
			 "no precise memory-sampling PMU (PEBS, IBS or SPE) on this %s CPU",
			 pmu.vendor[0] ? pmu.vendor : "unknown");
	}
}

void pmu_hw_page_faults(struct pmu_hw *h)
{
	struct pmu_hw_event *e = &h->ev[0];

	memset(h, 0, sizeof(*h));
	h->kind = PMU_HW_PAGE_FAULTS;
	h->nevents = 1;
	snprintf(e->name, sizeof(e->name), "page-faults");
	e->store = -1;
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	int err = try_event(e, PMU_HW_PAGE_FAULTS);
	h->usable = err == 0;
	snprintf(h->why, sizeof(h->why), "software page-fault events (SONDE_HW_EVENT=page-faults, "
		 "a test mode)%s%s", err ? ": refused: " : "", err ? pmu_strerror(err) : "");
}
