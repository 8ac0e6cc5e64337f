/* SPDX-License-Identifier: MIT */
/*
 * machine.h - facts about this machine that only the CLI needs (`sonde info`, tests):
 * the CPU, its caches and topology, what a perf_event_paranoid level means, whether
 * cpu-clock sampling works.  Not in libsonde.so: the runtime needs only the PMU facts of
 * rt/pmu.h (which `sonde info` uses too) and the debug-register probe of rt/watch.h.
 *
 * These functions read sysfs and procfs with stdio, run CPUID, and may open perf events
 * on the calling thread (closed before they return).  They never print; failures come
 * back as -errno.  Not for signal handlers.
 */
#ifndef SONDE_MACHINE_H
#define SONDE_MACHINE_H

#include <stdint.h>

/* ---- the CPU ---- */

struct machine_cpu {
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
int machine_cpu_read(struct machine_cpu *c);

/* ---- caches ---- */

struct machine_cache {
	int level;
	char type[16];		/* Data, Instruction, Unified */
	uint64_t size;		/* bytes */
	int line;		/* coherency line size, bytes */
	int ways;		/* ways of associativity, 0 if unknown */
	int shared_cpus;	/* logical CPUs sharing it, 0 if unknown */
	const char *source;	/* where the numbers come from (a static string, see below) */
};

/*
 * CPU 0's caches, into c[0..max-1]; returns how many (0 if nothing says).  From
 * /sys/devices/system/cpu/cpu0/cache/index* ("sysfs"); where that is missing (some VMs),
 * from CPUID: Intel leaf 4 or AMD leaf 0x8000001D ("cpuid"), else AMD's legacy leaves
 * 0x80000005/6 ("cpuid-legacy": sizes and lines; the L3 size there is the whole
 * package's, which may be several core complexes' L3s together).
 */
int machine_caches(struct machine_cache *c, int max);

/* Size in bytes of the level-`level` data or unified cache (1, 2, 3...), as
 * machine_caches finds it; -ENOENT if unknown. */
int64_t machine_cache_size(int level);

/* 1 when the L3 size machine_cache_size gives is the whole package's (CPUID's legacy AMD
 * leaves, "cpuid-legacy": several core complexes' L3s together), not what a core shares. */
int machine_l3_package(void);

/* The same from CPUID only (no sysfs), for tests that cross-check the two.  x86 only;
 * 0 elsewhere. */
int machine_caches_cpuid(struct machine_cache *c, int max);

/* ---- perf_event_open ---- */

/* A static sentence on what a paranoid level lets an unprivileged user do. */
const char *machine_paranoid_meaning(int level);

/* 0 if a cpu-clock sampling event on the calling thread writes samples to its ring
 * while the thread burns some CPU (at most 0.1 s of it), else -errno. */
int machine_sw_clock(void);

#endif /* SONDE_MACHINE_H */
