/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - ReuseTracker's GlobalWP as pure functions (rt-sampler.c): process-wide slots,
 * one per debug register, that hold one sampled use each.  rt-reuse.c feeds them real
 * samples and traps and arms the watchpoints they ask for; tests/unit/u-reuse-sampler.c
 * scripted ones.  No locking here: the caller holds the tool's lock around each call.
 *
 *   sample(T, addr, P):  visit the inactive slots first, then the active ones; each visit
 *       counts one more offer to the slot, which is taken with probability 1/offers
 *       (Vitter's reservoir: every use offered since the slot was freed is equally likely
 *       to be the one watched).  The first slot taken ends the visit; none taken drops
 *       the sample.  A freed slot's count is 0, so its first offer always takes it.
 *   trap(T', slot, P'):  if the slot is active and the arming is current: T' == owner gives
 *       a time distance P' - P - 1 (the owner's accesses strictly between), any other
 *       thread an invalidation (its watchpoint is write-only: a remote store).  The slot
 *       is freed either way: one outcome per use.
 *   Bias: a use that waits long for its outcome is more often replaced first, so long
 *       distances are observed less often than they happen.  The outcome carries the
 *       slot's offer counts at arming and at the trap; weighting it by n1/n0 (the inverse
 *       of its chance to survive) removes that bias (doc/sonde-reuse.md, "Sampling").
 *       And a sample is armed with certainty while a slot is free, but only with chance
 *       1 - prod(offers / (offers + 1)) over the active slots when none is: where long
 *       reuses fill the slots in one phase of a program and short ones leave them free in
 *       another, the long phase's samples are armed less often.  The outcome carries that
 *       chance too (arm_q), and is weighted by its inverse as well.
 */
#ifndef SONDE_TOOLS_REUSE_SAMPLER_H
#define SONDE_TOOLS_REUSE_SAMPLER_H

#include <stdint.h>

#include "tools/reuse/format.h"	/* REUSE_ARM_ONE */

/* GlobalWP's slots at most: the soft backend's watch set (WATCH_MAX_SLOTS); debug
 * registers give WATCH_HW_SLOTS (rt-reuse.c, slots_init).  4 until 2026-11-27. */
#define REUSE_SLOTS 32

struct reuse_slot {
	int active;
	uint32_t owner;		/* thread index of the use */
	uint32_t gen;		/* arming generation: a trap of an older arming is stale */
	uint64_t addr;		/* the watched word */
	uint64_t p0;		/* the owner's access count at the use (its own access included) */
	uint64_t t0;		/* the use's time, ns */
	uint64_t ip;		/* the use's code address */
	uint64_t offers;	/* samples offered since the slot was freed */
	uint64_t offers_armed;	/* offers when this use took the slot */
	uint64_t arm_q;		/* the chance that this use's sample took a slot, x 2^32 */
	int self_pending;	/* hw: the use's own access is still to come (a sample names
				 * the access its instruction is about to make): the owner's
				 * first trap at that instruction is it, not a reuse */
};

struct reuse_gwp {
	struct reuse_slot s[REUSE_SLOTS];
	int nslots;		/* 1..REUSE_SLOTS */
};

/* An observed outcome (reuse_gwp_trap). */
struct reuse_seen {
	int invalidation;	/* 1: a remote store; else a reuse by the owner (or, shared
				 * mode, by a thread of its socket) */
	uint32_t owner;
	uint64_t trd;		/* the owner's accesses between use and reuse, or use and
				 * invalidating store (UINT64_MAX if unknown) */
	uint64_t dt;		/* ns between use and trap */
	uint64_t use_ip, addr;
	/* The slot's offers when the use took it (n0) and when it trapped (n1): the use
	 * survived offers n0+1..n1, each replacing it with probability 1/offers, so it was
	 * observed with probability n0/n1 and stands for n1/n0 uses (the model's weight). */
	uint64_t n0, n1;
	uint64_t p0;		/* the owner's access count at the use */
	/* The chance, x 2^32 (REUSE_ARM_ONE), that the use's sample took a slot at all: 1
	 * while a slot was free, else 1 - prod over the active slots of offers / (offers + 1).
	 * The outcome stands for n1 / n0 / (arm_q / 2^32) samples. */
	uint64_t arm_q;
};

void reuse_gwp_init(struct reuse_gwp *g, int nslots);

/* The chance, x REUSE_ARM_ONE, that the next sample takes a slot (at least 1). */
uint64_t reuse_gwp_arm_chance(const struct reuse_gwp *g);

/* A sample: the slot to arm for it (>= 0; its fields are set, gen advanced; the caller
 * arms RW in `owner`, W elsewhere), or -1 (dropped).  A sample on an element another slot
 * watches takes a slot as any other: both watch it (WATCH_OVERLAP), each ending at its
 * own outcome.  Until 2026-11-28 it took none, and the samples dropped so were not a
 * random part of the stream: two threads updating one buffer by turns (a load, then its
 * store, per element) lost the loads whose element waited for the other thread's store,
 * and read 65% invalidations where --exact counts 48.5% (the usability review of
 * 2026-11-28; t529).  `rnd` is a uniform 64-bit random number per call; `p0` the owner's
 * access count, UINT64_MAX if unknown. */
int reuse_gwp_sample(struct reuse_gwp *g, uint32_t owner, uint64_t addr, uint64_t p0,
		     uint64_t t0, uint64_t ip, uint64_t rnd);

/* A trap of arming (slot, gen) in thread `thread` at time t; p is the owner's access
 * count (UINT64_MAX if unknown): the trapping thread's when it is the owner.  1 and *out
 * when it is an outcome (the slot is freed: disarm it in every thread), 0 when stale
 * (already resolved or re-armed since). */
/* The same, where the trapping thread is of the owner's group or not (shared-cache mode:
 * a thread of the owner's socket reuses, another socket's store invalidates), and p is
 * the owner group's access count (that of every thread of the socket). */
int reuse_gwp_trap_group(struct reuse_gwp *g, int slot, uint32_t gen, int same_group,
			 uint64_t p, uint64_t t, struct reuse_seen *out);
int reuse_gwp_trap(struct reuse_gwp *g, int slot, uint32_t gen, uint32_t thread, uint64_t p,
		   uint64_t t, struct reuse_seen *out);

#endif
