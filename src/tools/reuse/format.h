/* SPDX-License-Identifier: MIT */
/*
 * format.h - the reuse tool's own records in a recording (types from SONDE_REC_TOOL),
 * written by rt-reuse.c and read by model.c.  Integers in the writer's byte order; sizes
 * are multiples of 8.  Bins are stack.h's log-2 bins.
 */
#ifndef SONDE_TOOLS_REUSE_FORMAT_H
#define SONDE_TOOLS_REUSE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "sonde/format.h"
#include "tools/reuse/stack.h"

enum reuse_rec_type {
	REUSE_REC_SEEN = SONDE_REC_TOOL + 0,	/* one observed outcome (sampled mode) */
	REUSE_REC_PAIR = SONDE_REC_TOOL + 1,	/* reuses of one code pair (--exact) */
	REUSE_REC_STATS = SONDE_REC_TOOL + 2,	/* a thread's counters and histograms, at its end */
	REUSE_REC_PAIR_BINS = SONDE_REC_TOOL + 3,	/* REUSE_REC_PAIR with its nonzero bins only */
	REUSE_REC_PAIR_BINS_T = SONDE_REC_TOOL + 4,	/* ... and the time of its addr's reuse */
};

#define REUSE_F_INVALIDATION 0x1	/* a remote store ended the use */
#define REUSE_F_TRD 0x2			/* trd is known (an exact access count) */

/* Mode flags of the stats record. */
#define REUSE_M_EXACT 0x1
#define REUSE_M_SHARED 0x2
#define REUSE_M_SPATIAL 0x4
#define REUSE_M_COUNTS 0x8		/* the source gives exact access counts (inst) */
#define REUSE_M_CHECK 0x10		/* --exact --check-sampling: SEEN records of the sampled
					 * mode run inside the exact one (check_period) */

/* Sampled mode: the outcome of one watched use, in the stream of the thread that trapped. */
struct reuse_rec_seen {
	struct sonde_rec_hdr h;
	uint32_t owner, thread;		/* thread indexes: the use's, the trap's */
	uint32_t flags;			/* REUSE_F_* */
	uint32_t exact_rd;		/* --check-sampling: the exact engine's reuse distance of
					 * this reuse + 1 (0: not known) */
	uint64_t trd;			/* the owner's accesses between use and reuse; for an
					 * invalidation (since 2026-11-27), between the use and
					 * the remote store */
	uint64_t dt;			/* ns between them */
	uint64_t use_ip, reuse_ip;	/* reuse_ip: the trapping access (hw: the next instruction) */
	uint64_t addr;
	uint64_t n0, n1;		/* the slot's offers at arming and at the trap (sampler.h):
					 * the outcome stands for n1/n0 uses */
	uint64_t p0;			/* the owner's access count at the use (REUSE_F_TRD) */
	/* since 2026-11-28: the chance that the use's sample took a slot, x 2^32 (sampler.h):
	 * the outcome stands for n1 / n0 / (arm_q / 2^32) uses.  Records before it end at
	 * p0 (REUSE_SEEN_SIZE_V1) and are read with arm_q 0, no such weight. */
	uint64_t arm_q;
	/* since 2026-11-28: CLOCK_MONOTONIC ns at the trap (0 in a record before it), so that
	 * the address is named by the heap block that held it then, not by a later one at the
	 * same address (the trial's GAP pr: its scores array read as a verifier's buffer) */
	uint64_t time;
};
#define REUSE_SEEN_SIZE_V1 offsetof(struct reuse_rec_seen, arm_q)
#define REUSE_ARM_ONE (1ull << 32)	/* arm_q of a sample armed with certainty */

/* --exact: `count` reuses from use_ip to reuse_ip, their reuse distances binned.  Written
 * before REUSE_REC_PAIR_BINS; still read. */
struct reuse_rec_pair {
	struct sonde_rec_hdr h;
	uint64_t use_ip, reuse_ip, addr;	/* addr: one element's address */
	uint64_t count;
	uint64_t dist[REUSE_BINS];
};

/*
 * --exact since 2026-11-26: the same, with only the bins that are not 0 (a pair's reuses
 * mostly fall in one or two): size = sizeof(struct reuse_rec_pair_bins) + 8 x their
 * number, each word REUSE_PB_WORD(bin, count) in increasing bin order (a count below 2^56:
 * 2^56 accesses would take years); the record's count is their sum.  40 bytes for one
 * bin, where the fixed record took 424.
 */
struct reuse_rec_pair_bins {
	struct sonde_rec_hdr h;
	uint64_t use_ip, reuse_ip, addr;	/* addr: one element's address */
	uint64_t bin[];
};

/*
 * --exact since 2026-11-28: the same with `time`, the clock (rt_now, as the seen record's)
 * when the pair's first reuse at `addr` was counted, so that a heap word is named by the
 * block that held it then, not by a later block at the same address (t526).
 */
struct reuse_rec_pair_bins_t {
	struct sonde_rec_hdr h;
	uint64_t use_ip, reuse_ip, addr, time;
	uint64_t bin[];
};

#define REUSE_PB_SHIFT 56
#define REUSE_PB_WORD(bin, count) ((uint64_t)(bin) << REUSE_PB_SHIFT | (count))
#define REUSE_PB_BIN(w) ((int)((w) >> REUSE_PB_SHIFT))
#define REUSE_PB_COUNT(w) ((w) & ((1ull << REUSE_PB_SHIFT) - 1))

struct reuse_rec_stats {
	struct sonde_rec_hdr h;
	uint32_t mode;			/* REUSE_M_* */
	uint32_t element;		/* bytes per element: 8 (temporal) or 64 (spatial) */
	uint64_t accesses;		/* the thread's loads and stores (inst), else samples x period */
	uint64_t samples;		/* samples offered to the sampler / accesses modelled */
	uint64_t armed;			/* uses armed (sampled mode) */
	uint64_t arm_failures;		/* watch_arm errors */
	uint64_t traps, stale;		/* outcomes recorded, traps ignored */
	uint64_t lost;			/* accesses not modelled (busy, out of memory) */
	int32_t watch_errno;		/* the last watch_arm error (positive errno), 0 if none */
	uint32_t check_period;		/* REUSE_M_CHECK: the sampled mode's period (else 0) */
	uint64_t pages;			/* distinct 4 KiB pages the samples touched (process-wide,
					 * written by the main thread; 0 elsewhere) */
	uint64_t cold, invalidations, reuses;	/* --exact */
	uint64_t time[REUSE_BINS];	/* --exact: time distances */
	uint64_t dist[REUSE_BINS];	/* --exact: reuse distances */
	uint32_t slots;			/* GlobalWP's slots (sampled, --check-sampling); not in
					 * recordings before 2026-11-27 (4 then), read as 0 */
	uint32_t pad;
	uint64_t pages2, pages3;	/* of pages, those sampled at least twice, three times
					 * (the footprint's estimate: model.c); not in recordings
					 * before 2026-11-28 */
	/* --exact since 2026-11-29: the recording machine's L1, L2 and L3 data cache sizes in
	 * elements (0: unknown; SONDE_REUSE_CACHES), and the reuses at a distance of that many
	 * or more: the miss ratio at each size counted, not read off the power-of-2 bins (a
	 * 48 KiB L1, 6144 words, cuts [4096, 8192)) */
	uint64_t cache_elements[3];
	uint64_t beyond[3];
	/* since 2026-11-29: the accesses (--exact) or samples (sampled) wider than an element,
	 * modelled as their first element alone (doc/sonde-reuse.md, Limits): the report warns
	 * where they are many (clang's 16-byte vector stores hid a third of a program's
	 * invalidations: the usability review of that day, M1) */
	uint64_t wide;
};
/* the record as written before cache_elements (still read: no counts at the sizes) */
#define REUSE_REC_STATS_V2 offsetof(struct reuse_rec_stats, cache_elements)
/* the record as written before `slots` (still read) */
#define REUSE_REC_STATS_V1 offsetof(struct reuse_rec_stats, slots)

#endif
