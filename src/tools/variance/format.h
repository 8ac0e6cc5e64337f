/* SPDX-License-Identifier: MIT */
/*
 * format.h - the variance tool's own records in a recording (types from SONDE_REC_TOOL),
 * written by rt-variance.c and read by model.c.  Integers in the writer's byte order; sizes
 * are multiples of 8.  doc/sonde-variance.md explains the mechanism.
 */
#ifndef SONDE_TOOLS_VARIANCE_FORMAT_H
#define SONDE_TOOLS_VARIANCE_FORMAT_H

#include <stdint.h>

#include "sonde/format.h"

/* Default clock period: 4 ms of CPU time, ~250 selections per second per busy thread
 * (FVSampler asks for at least 30).  The CLI's, and the runtime's where another source
 * asked for falls back to the clock. */
#define VAR_DEFAULT_PERIOD 4000000

enum var_rec_type {
	VAR_REC_INST = SONDE_REC_TOOL + 0,	/* one measured function instance */
	VAR_REC_STATS = SONDE_REC_TOOL + 1,	/* a thread's counters, at its end */
	VAR_REC_SAMPLE = SONDE_REC_TOOL + 2,	/* a clock sample's calling context */
};

/* Metrics of an instance, in this order (the -e names in model.c). */
enum var_metric {
	VAR_M_TIME,		/* wall-clock ns, the runtime's handler time subtracted */
	VAR_M_CPU,		/* thread CPU ns, the same handler time subtracted */
	VAR_M_PF,		/* page faults (minor + major) */
	VAR_M_CSW,		/* context switches (voluntary + involuntary) */
	VAR_NMETRIC,
};

/* Bits of SONDE_VARIANCE_EVENTS: which metrics are read (time and cpu-time always). */
#define VAR_EV_TIME (1u << VAR_M_TIME)
#define VAR_EV_CPU (1u << VAR_M_CPU)
#define VAR_EV_PF (1u << VAR_M_PF)
#define VAR_EV_CSW (1u << VAR_M_CSW)

/* Flags of an instance. */
#define VAR_F_SOFT 0x1		/* caught by the soft backend (sonde-cc --sonde-calls) */
#define VAR_F_REGION 0x2	/* an OpenMP region's outlined function, timed at the
				 * runtime's call (rt-variance.c, variance_region): no trap */

struct var_rec_inst {
	struct sonde_rec_hdr h;
	uint64_t fn;			/* the function's entry address */
	uint32_t ctx;			/* calling context at entry (leaf: the function) */
	uint32_t flags;			/* VAR_F_* */
	uint64_t seq;			/* the thread's instance number, from 0 */
	uint64_t start;			/* CLOCK_MONOTONIC ns at entry */
	uint32_t events;		/* VAR_EV_* read for this instance */
	uint32_t depth;			/* pending instances below it (outer ones) */
	int64_t v[VAR_NMETRIC];		/* the instance's cost per metric (0 if not read) */
	/* (from 2026-11-28; a shorter record: 0) an OpenMP region call's chance of being
	 * timed, of 2^32: the region rate cap times a share of a function's calls, which
	 * changes from window to window, so each instance stands for 2^32 / share calls
	 * (model.c weighs it so); 0 or 0xffffffff: every call */
	uint32_t share;
	uint32_t pad;
};

/* A sample: the functions on its path get a share of the thread's time. */
struct var_rec_sample {
	struct sonde_rec_hdr h;
	uint32_t ctx;
	uint32_t pad;
};

/* A thread's counters. */
struct var_rec_stats {
	struct sonde_rec_hdr h;
	uint64_t samples;		/* clock samples seen */
	uint64_t picks;			/* samples that chose a function (armed its entry) */
	uint64_t no_frame;		/* samples with no usable frame (no direct call found) */
	uint64_t arm_failures;		/* entry or return arms refused by the engine */
	uint64_t missed;		/* armed entries replaced before they fired */
	uint64_t entries;		/* entries caught */
	uint64_t returns;		/* instances recorded */
	uint64_t overwritten;		/* slot written, or read other than by the return
					 * while no longer holding it: instance dropped */
	uint64_t stale;			/* pending instances found dead (frame gone) */
	uint64_t jumps;			/* pending instances dropped by longjmp */
	uint64_t at_exit;		/* pending when the thread ended */
	uint64_t tail;			/* entries at the slot already watched (tail call) */
	uint64_t overflow;		/* entries dropped: pending stack full */
	uint64_t handler_ns;		/* time spent in the tool's handlers */
	uint64_t slot_reads;		/* hw: the function read its own return address (the
					 * instance goes on) */
	int32_t watch_errno;		/* last arm error (positive), 0 if none */
	uint32_t backend;		/* enum watch_backend_id */
	uint32_t calls_hooked;		/* sonde-cc --sonde-calls hooks ran */
	uint32_t pad;
	int64_t trap_ns, trap_cpu_ns;	/* hw: the two traps' time and CPU time subtracted
					 * from each instance (calibrated; 0: none) */
	uint64_t handler_cpu_ns;	/* thread CPU time spent in the tool's handlers, which
					 * a loaded machine does not inflate as it does
					 * handler_ns (later field: older records end before it) */
	/* the gate (hw: rt-variance.c, gate_slot) and the deferred picks (pick_defer); later
	 * fields, which replace the .proc's variance_* keys: older records end before them */
	uint64_t gated;			/* picks armed behind a gate */
	uint64_t gates_fired;		/* gates that trapped and armed their entry */
	uint64_t gates_expired;		/* gates replaced before they trapped */
	uint64_t deferred;		/* picks deferred to a pending instance's return */
	uint64_t deferred_armed;	/* deferred picks armed at that return */
	uint64_t deferred_expired;	/* deferred picks replaced before it */
	uint64_t yielded;		/* self-picks (deferred to their own instance's
					 * return) replaced once armed: a later sample
					 * picked another function, or patience ran out */
	/* what the samples found in the thread's slots, and the slots' events closed (hw:
	 * rt-variance.c, slot_idle); later fields: older records end before them */
	uint64_t samples_idle;		/* nothing armed, pending or deferred */
	uint64_t samples_entry;		/* an entry (or its gate) armed, nothing pending */
	uint64_t closes;		/* idle slots' events closed, not only disabled */
	/* the kernel's speed (rt-variance.c, kernel_speed); later fields: older records end
	 * before them */
	int64_t probe_cal_ns;		/* watch_probe_ns at the calibration (0: none) */
	uint64_t probes;		/* probes taken (hw traps, samples inside instances) */
	uint64_t probe_sum_ns;		/* their sum, as clamped */
	/* bursts (rt-variance.c, arm_burst); later fields */
	uint64_t burst_armed;		/* entries armed again at their instance's return */
	uint64_t burst_entries;		/* of those, entries caught */
	/* OpenMP regions (rt-variance.c, variance_region); a later field */
	uint64_t regions;		/* instances timed at the OpenMP runtime's call */
	/* call sites (rt-variance.c, site_of); later fields */
	uint64_t sited;			/* picks armed at the sampled frame's call */
	uint64_t sites_fired;		/* of those, calls caught there (entry armed) */
	uint64_t no_frame_region;	/* of no_frame: the PC in an OpenMP region's
					 * function, timed at the runtime's call instead */
	/* the hooks' clock read (rt-variance.c, read_cost_calibrate), subtracted for each
	 * hook handler from the instances around it; later fields, 0: not calibrated */
	int64_t read_ns, read_cpu_ns;
	/* a later field */
	uint64_t no_frame_main;		/* of no_frame: the PC in main, never picked (called
					 * once), with what the compiler inlined into it */
};
/* the uint64_t counters of var_rec_stats, samples .. slot_reads */
#define VAR_NSTATS 15
/* the gate's counters, gated .. yielded */
#define VAR_NGATE 7
/* the slots' counters, samples_idle .. closes */
#define VAR_NSLOTS 3

/* `--function`: the start addresses the CLI passes (cmd.c, only_env) and the runtime keeps
 * (rt-variance.c, only_start); more is a usage error */
#define VAR_ONLY_MAX 16

#endif
