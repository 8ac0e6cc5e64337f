/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - what the `hw` sample source needs at start-up: the PMUs in sysfs, the
 * perf_event_open limits (paranoid level, privilege), the verdict on precise memory
 * sampling here (Intel PEBS, AMD IBS; Arm SPE detected only), and the perf_event_attr of
 * each event it opens.  The machine facts only `sonde info` needs (CPU model, caches,
 * topology) are in src/machine/, outside libsonde.so.
 *
 * Linked into libsonde.so and the CLI.  NOT handler-safe: these functions read sysfs with
 * stdio, open and close perf events on the calling thread, and may call libpfm4.  They
 * never print; failures come back as -errno and a reason text.  The attr builders
 * (pmu_attr_*) are pure: no system calls, so the unit tests check them on any machine.
 */
#ifndef SONDE_RT_PMU_H
#define SONDE_RT_PMU_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#define PMU_WHY 320	/* room for a reason and its fix */
#define PMU_DIR "/sys/bus/event_source/devices"

/* ---- perf_event_open limits ---- */

/* /proc/sys/kernel/perf_event_paranoid, or -errno if it cannot be read. */
int pmu_paranoid(void);
/* 1 if the process may bypass perf_event_paranoid (root, CAP_PERFMON or CAP_SYS_ADMIN). */
int pmu_privileged(void);
/* "operation not permitted"-style text for a perf_event_open errno, with the usual cause.
 * A static string; EINVAL says "invalid attributes", never privilege. */
const char *pmu_strerror(int err);

/* ---- the PMUs ---- */

struct pmu_info {
	char cpu_pmu[32];	/* the core PMU's sysfs name ("cpu", "cpu_core", "armv8_...") or "" */
	int max_precise;	/* caps/max_precise of it, -1 if absent */
	int hw_count;		/* 0 if a cycles counter opens, else -errno */
	int hw_sample;		/* 0 if a sampling cycles counter opens, else -errno */
	int ibs_op;		/* the ibs_op PMU's type, -1 if absent */
	int ibs_swfilt;		/* ibs_op/format/swfilt exists: the kernel filters privilege
				 * levels in software, so exclude_* bits are accepted (6.14+) */
	int arm_spe;		/* the arm_spe PMU's type, -1 if absent */
	char vendor[16];	/* CPUID vendor (GenuineIntel, AuthenticAMD...), "" off x86 */
	int hypervisor;		/* CPUID says we run under a hypervisor */
	char why[PMU_WHY];	/* when cpu_pmu is "" or hw_count fails: why, and the fix */
};

/* Find the PMUs in /sys/bus/event_source/devices and try a cycles counter on the
 * calling thread.  Always 0. */
int pmu_info_read(struct pmu_info *p);

/* A field of a PMU's format directory: attr.config<which> bit <bit>; which = -1 if the
 * PMU has no such single-bit field. */
struct pmu_field {
	int which, bit;
};

/* Read PMU_DIR/<pmu>/format/<field> ("config:19", "config2:0").  0 or -errno (-ENOENT:
 * no such field, -EINVAL: not a single bit); f->which is -1 on failure. */
int pmu_field_read(const char *pmu, const char *field, struct pmu_field *f);
/* Set the field's bit in a (nothing if f->which < 0). */
void pmu_field_set(struct perf_event_attr *a, struct pmu_field f);

/* ---- the attributes of each hw event (pure) ---- */

enum pmu_hw_kind {
	PMU_HW_NONE = 0,
	PMU_HW_PEBS,		/* Intel precise events with data addresses */
	PMU_HW_IBS,		/* AMD instruction-based sampling (ibs_op) */
	PMU_HW_SPE,		/* Arm statistical profiling: detected, not implemented */
	PMU_HW_PAGE_FAULTS,	/* software page-fault events: testing the source without a PMU */
};

/* The sample_type of each kind (perfring parses them). */
#define PMU_HW_SAMPLE_TYPE                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |   \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define PMU_IBS_SAMPLE_TYPE                                                              \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |   \
	 PERF_SAMPLE_RAW)
/* SPE's records go to an AUX area, not to samples: the sample carries only who and when. */
#define PMU_SPE_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/*
 * An IBS event (ibs_op or ibs_fetch) of PMU type `type`.  cnt_ctl: count dispatched ops
 * rather than cycles (ibs_op only; which < 0 to leave it).  swfilt: the PMU's swfilt
 * format field, which < 0 if the kernel has none.
 *
 * The kernel's rule (arch/x86/events/amd/ibs.c): before Linux 6.14 the IBS PMUs carry
 * PERF_PMU_CAP_NO_EXCLUDE, so ANY exclude_* bit fails with EINVAL, for root too; from
 * 6.14, exclude_kernel/user/hv are accepted only with the swfilt bit (config2:0) set,
 * and exclude_idle/host/guest never.  So exclude_kernel is set, with swfilt, only where
 * the PMU advertises swfilt; no other exclude_* bit ever.  Without swfilt the event
 * samples the kernel too, which perf_event_paranoid >= 2 refuses to unprivileged users
 * (EACCES), and the handler drops the kernel-mode samples.
 */
void pmu_attr_ibs(struct perf_event_attr *a, int type, struct pmu_field cnt_ctl,
		  struct pmu_field swfilt);
/* A PEBS event already encoded (type, config, config1 from libpfm4): user space only
 * (exclude_kernel, exclude_hv) at the given precise_ip (1..3). */
void pmu_attr_pebs(struct perf_event_attr *a, int precise_ip);
/* An Arm SPE event of PMU type `type` sampling loads and stores with timestamps (the
 * format fields; which < 0 for an absent one), user space only.  Not opened by the hw
 * source yet (it does not read the AUX area): what `sonde info` reports and tests check. */
void pmu_attr_spe(struct perf_event_attr *a, int type, struct pmu_field load_filter,
		  struct pmu_field store_filter, struct pmu_field ts_enable);
/*
 * Add the sampling fields of a hw event of `kind` to a (sample_type, period, clock,
 * wakeup; disabled).  An IBS period is rounded down to a multiple of 16 (at least 16), as
 * the hardware counts.  No exclude_* bit is added: those belong to the event builders.
 */
void pmu_hw_sampling_attr(struct perf_event_attr *a, int kind, uint64_t period);

/* ---- the hw source's verdict ---- */

struct pmu_hw_event {
	char name[64];			/* libpfm4 name, or "ibs_op" */
	struct perf_event_attr attr;	/* built by pmu_attr_*: type, config*, precise_ip,
					 * exclude_*; sampling fields added by
					 * pmu_hw_sampling_attr when opened */
	int store;			/* 1 if its samples are stores, 0 loads, -1 both */
};

struct pmu_hw {
	int kind;			/* enum pmu_hw_kind: what the CPU has */
	int usable;			/* 1 if the hw source can sample memory accesses here */
	int nevents;			/* events to open per thread (1 or 2) */
	struct pmu_hw_event ev[2];
	char why[PMU_WHY];		/* not usable: the reason and the fix; usable: what */
};

/*
 * Decide how the hw source would sample here: PEBS load/store events resolved with
 * libpfm4 (precise_ip probed from 3 down), or IBS op; each tried with a real
 * perf_event_open on the calling thread, then closed.  Always returns; h->usable and
 * h->why tell the outcome.
 */
void pmu_hw_probe(struct pmu_hw *h);
/* libpfm4 loaded (dlopen of libpfm.so.4, once; it is not linked): 0, or -ENOENT. */
int pmu_pfm_load(void);

/*
 * The hw source's test mode (SONDE_HW_EVENT=page-faults): the software page-fault event,
 * whose samples carry the faulting data address, stands in for the PMU so that the whole
 * source (per-thread rings, overflow signals, draining, delivery) runs on machines
 * without one.  Usable if the event opens.
 */
void pmu_hw_page_faults(struct pmu_hw *h);

/* Small helpers the CLI's machine facts (src/machine/) share; not in a handler. */
struct perf_event_attr;
/* perf_event_open on the calling thread, any CPU, close-on-exec: the fd or -errno. */
int pmu_perf_open(struct perf_event_attr *a);
/* The first line of a small file, without its newline.  0 or -errno. */
int pmu_read_line(const char *path, char *buf, size_t len);
/* A file's first number (any base strtol reads), dflt if none. */
long pmu_read_long(const char *path, long dflt);

#endif /* SONDE_RT_PMU_H */
