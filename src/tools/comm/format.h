/* SPDX-License-Identifier: MIT */
/*
 * format.h - the comm tool's own records in a recording (types from SONDE_REC_TOOL), written
 * by rt-comm.c and read by model.c.  Integers in the writer's byte order; sizes are
 * multiples of 8.  doc/sonde-comm.md explains what the counts mean.
 */
#ifndef SONDE_TOOLS_COMM_FORMAT_H
#define SONDE_TOOLS_COMM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "sonde/format.h"

enum comm_rec_type {
	COMM_REC_EVENT = SONDE_REC_TOOL + 0,	/* one detected communication (sampled) */
	COMM_REC_EXACT = SONDE_REC_TOOL + 1,	/* exact transfers of one pair (--exact) */
	COMM_REC_STATS = SONDE_REC_TOOL + 2,	/* a thread's detector counters, at its end */
	/* --exact: one transfer in COMM_XSAMPLE_EVERY of a thread's, with its access's
	 * address and instruction (struct comm_rec_event; weight: the transfers it stands
	 * for; no publisher's address or instruction): the objects, code and lines of the
	 * exact count (since 2026-11-29: before, --exact named none) */
	COMM_REC_XSAMPLE = SONDE_REC_TOOL + 3,
};
#define COMM_XSAMPLE_EVERY 61	/* a prime: no lock-step with a loop's stride */
#define COMM_STR_(x) #x
#define COMM_STR(x) COMM_STR_(x)
#define COMM_XSAMPLE_EVERY_S COMM_STR(COMM_XSAMPLE_EVERY)	/* "61", for the reports' titles */

/* Flags of events and exact records. */
#define COMM_F_TRUE 0x1		/* true sharing (byte ranges overlap); else false sharing */
#define COMM_F_TRAP 0x2		/* found by a watchpoint trap; else by a sample on the board */
/* false sharing by the byte rule, at a chunk of the line the publisher's store instruction
 * has been seen storing to (detect.h, comm_covered); absent before 2026-11-28 */
#define COMM_F_COVERED 0x4

/*
 * A communication from thread `src` (the publisher of the line: it wrote it) to thread
 * `dst` (the observer, whose stream holds the record).  Its volume is
 * period x weight x scale transfers; scale is 1 for a sample and L/(D x M) for a trap
 * (doc/sonde-comm.md, "Scaling").
 */
struct comm_rec_event {
	struct sonde_rec_hdr h;
	uint32_t src, dst;		/* thread indexes (creation order, main = 0) */
	int32_t src_cpu, dst_cpu;	/* sched_getcpu() at the publishing sample / here; -1 */
	uint32_t flags;			/* COMM_F_* */
	uint32_t scale;
	uint64_t weight;		/* samples the observing access stands for */
	uint64_t addr;			/* the observer's access */
	uint64_t ip;			/* the observer's instruction; a hardware trap's: the
					 * one after the access (0 for a trap in recordings
					 * before 2026-11-27) */
	uint64_t src_addr;		/* the publisher's access */
	uint64_t src_ip;		/* the publisher's instruction */
	uint64_t time;
};

/* Exact mode: `count` cache-line transfers src -> dst of one kind between two CPUs. */
struct comm_rec_exact {
	struct sonde_rec_hdr h;
	uint32_t src, dst;
	int32_t src_cpu, dst_cpu;
	uint32_t flags;			/* COMM_F_TRUE */
	uint32_t pad;
	uint64_t count;
};

/* A thread's counters. */
struct comm_rec_stats {
	struct sonde_rec_hdr h;
	uint64_t samples, stores;	/* samples seen by the detector, of which stores */
	uint64_t published, publish_lost;	/* board publishes, and those dropped (busy/full) */
	uint64_t hits;			/* communications found on the board */
	uint64_t arm_tries;		/* arming attempts (a candidate line was found) */
	uint64_t arms;			/* watchpoints armed */
	uint64_t arm_failures;		/* watch_arm errors */
	uint64_t traps;			/* traps counted as communications */
	uint64_t traps_ignored;		/* traps not counted (publication already counted) */
	uint64_t exact_lost;		/* exact mode: accesses not modelled (table full, busy) */
	int32_t watch_errno;		/* the last watch_arm error (positive errno), 0 if none */
	uint32_t dregs;			/* registers asked per arming (0: no watchpoints) */
	uint32_t watch_off;		/* watchpoints turned off (--no-watch) */
	uint32_t mode;			/* COMM_MODE_* of the run (0 in recordings before it) */
	/* armings made virtual by the thinning where the thread switches often (rt-comm.c);
	 * absent (the record 8 bytes shorter) in recordings before it */
	uint64_t thinned;
	/* --compare's N (the sampled detector's period), 0 otherwise; absent (8 bytes shorter)
	 * before 2026-11-28: a compare run whose sampled detector found nothing has no EVENT
	 * record to give it */
	uint64_t compare_period;
	/* hardware traps whose access was decoded from the instruction (rt-comm.c,
	 * comm_trap_hook); the others are classified by the watched chunk.  Absent (8 bytes
	 * shorter) before 2026-11-29 */
	uint64_t traps_decoded;
};
#define COMM_REC_STATS_V1 offsetof(struct comm_rec_stats, thinned)

/* comm_rec_stats.mode: the detector's mode, so that a run with no transfer at all still
 * says which it was (the records alone cannot). */
#define COMM_MODE_EXACT		1u	/* --exact: every access modelled */
#define COMM_MODE_COMPARE	2u	/* --compare: exact and sampled in one run */

#endif
