/* SPDX-License-Identifier: MIT */
/*
 * probe.h - what this machine offers for profiling: CPU and caches, the perf_event_open
 * settings, the PMUs (and why a precise memory event is or is not available), debug
 * registers.  Used by `sonde info` and by the hw sample source's probe and start-up.
 *
 * Linked into both libsonde.so and the CLI.  NOT handler-safe: these functions read
 * sysfs and procfs with stdio, open and close perf events on the calling thread, and
 * may call libpfm4.  They never print; failures come back as -errno and a reason text.
 */
#ifndef SONDE_RT_PROBE_H
#define SONDE_RT_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#define PROBE_WHY 320	/* room for a reason and its fix */

/* ---- the CPU ---- */

struct probe_cpu {
	char vendor[32];	/* vendor_id: GenuineIntel, AuthenticAMD, ... ("" if unknown) */
	char model[128];	/* model name */
	int family, model_num, stepping;	/* -1 if unknown */
	int cpus_online;	/* logical CPUs online */
	int cpus_available;	/* in this process's affinity mask (what nproc prints) */
	int cores;		/* distinct (package, core) among online CPUs */
	int sockets;		/* distinct packages */
	int hypervisor;		/* cpuinfo has the "hypervisor" flag: a virtual machine */
};

/* Fill c from /proc/cpuinfo and /sys/devices/system/cpu.  0 or -errno (c is then
 * partly filled with what could be read). */
int probe_cpu(struct probe_cpu *c);

struct probe_cache {
	int level;
	char type[16];		/* Data, Instruction, Unified */
	uint64_t size;		/* bytes */
	int line;		/* coherency_line_size, bytes */
	int ways;		/* ways_of_associativity, 0 if unknown */
	int shared_cpus;	/* CPUs sharing this cache */
};

/* CPU 0's caches from /sys/devices/system/cpu/cpu0/cache/index*.  Returns how many were
 * stored in c[0..max-1] (0 if sysfs does not say). */
int probe_caches(struct probe_cache *c, int max);

/* ---- perf_event_open ---- */

/* /proc/sys/kernel/perf_event_paranoid, or -errno if it cannot be read. */
int probe_paranoid(void);
/* A static sentence on what a paranoid level lets an unprivileged user do. */
const char *probe_paranoid_meaning(int level);
/* 1 if the process may bypass perf_event_paranoid (root, CAP_PERFMON or CAP_SYS_ADMIN). */
int probe_privileged(void);

struct probe_pmu {
	char cpu_pmu[32];	/* the core PMU's sysfs name ("cpu", "cpu_core", "armv8_...") or "" */
	int max_precise;	/* caps/max_precise of it, -1 if absent */
	int hw_count;		/* 0 if a cycles counter opens, else -errno */
	int hw_sample;		/* 0 if a sampling cycles counter opens, else -errno */
	int ibs_op;		/* the ibs_op PMU's type, -1 if absent */
	int arm_spe;		/* 1 if an arm_spe PMU is present */
	int pebs_flags;		/* cpuinfo shows the PEBS/DS machinery (pdcm or dtes64) */
	char why[PROBE_WHY];	/* when cpu_pmu is "" or hw_count fails: why, and the fix */
};

/* Find the PMUs in /sys/bus/event_source/devices and try a cycles counter on the
 * calling thread.  Always 0. */
int probe_pmu(struct probe_pmu *p);

/* ---- the hw sample source ---- */

enum probe_hw_kind {
	PROBE_HW_NONE = 0,
	PROBE_HW_PEBS,		/* Intel precise events with data addresses */
	PROBE_HW_IBS,		/* AMD instruction-based sampling (ibs_op) */
	PROBE_HW_SPE,		/* Arm statistical profiling: detected, not implemented */
	PROBE_HW_PAGE_FAULTS,	/* software page-fault events: testing the source without a PMU */
};

struct probe_hw_event {
	char name[64];			/* libpfm4 name, or "ibs_op" */
	struct perf_event_attr attr;	/* type, config* and precise_ip set; sampling fields
					 * (period, sample_type...) left for the caller */
	int store;			/* 1 if its samples are stores, 0 loads, -1 both */
};

struct probe_hw {
	int kind;			/* enum probe_hw_kind: what the CPU has */
	int usable;			/* 1 if the hw source can sample memory accesses here */
	int nevents;			/* events to open per thread (1 or 2) */
	struct probe_hw_event ev[2];
	char why[PROBE_WHY];		/* not usable: the reason and the fix; usable: what */
};

/* The sample_type every hw event is opened with (perfring parses it). */
#define PROBE_HW_SAMPLE_TYPE                                                             \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |   \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define PROBE_IBS_SAMPLE_TYPE                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |   \
	 PERF_SAMPLE_RAW)

/*
 * Decide how the hw source would sample here: PEBS load/store events resolved with
 * libpfm4 (precise_ip probed from 3 down), or IBS op; each tried with a real
 * perf_event_open on the calling thread, then closed.  Always returns; h->usable and
 * h->why tell the outcome.  Not handler-safe (libpfm4, stdio).
 */
void probe_hw(struct probe_hw *h);

/*
 * The hw source's test mode (SONDE_HW_EVENT=page-faults): the software page-fault event,
 * whose samples carry the faulting data address, stands in for the PMU so that the whole
 * source (per-thread rings, overflow signals, draining, delivery) runs on machines
 * without one.  Usable if the event opens.  Not handler-safe.
 */
void probe_hw_page_faults(struct probe_hw *h);

/* Fill the sampling fields of a hw event's attr (sample_type, period, clock...); an IBS
 * period is rounded down to a multiple of 16 (at least 16), as the hardware counts. */
void probe_hw_sampling_attr(struct perf_event_attr *a, int kind, uint64_t period);

/* ---- debug registers ---- */

/*
 * Debug registers usable by one thread: open write breakpoints (8 bytes, on distinct
 * addresses) on the calling thread until one fails, at most `max`.  Returns the count
 * (0 if none), and in *err the errno of the open that failed (0 if max was reached).
 * Each breakpoint also counts one write, which must be seen, or the count stops there.
 */
int probe_debug_registers(int max, int *err);

/* 0 if PERF_EVENT_IOC_MODIFY_ATTRIBUTES moves a breakpoint (the moved one counts a write
 * to its new address and not to its old one), else -errno. */
int probe_bp_modify(void);

/*
 * 0 if a breakpoint with attr.sigtrap delivers SIGTRAP with si_code TRAP_PERF and our
 * sig_data, else -errno (-ENOTSUP: opened but no signal came).  Runs in a forked child,
 * so the caller's signal handlers are never touched; CLI use only.
 */
int probe_bp_sigtrap(void);

/* 0 if a cpu-clock sampling event on the calling thread writes samples to its ring
 * while the thread burns some CPU, else -errno. */
int probe_sw_clock(void);

/* "operation not permitted"-style text for a perf_event_open errno, with the usual cause. */
const char *probe_perf_strerror(int err);

#endif /* SONDE_RT_PROBE_H */
