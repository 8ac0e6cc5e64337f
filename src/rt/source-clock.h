/* SPDX-License-Identifier: MIT */
/*
 * source-clock.h - private to the clock sample source (source-clock.c sets up,
 * source-clock-sig.c holds the signal handlers).
 *
 * How a sample becomes an access: a per-thread cpu-clock event signals the thread every
 * `period` ns of its user CPU time.  The handler picks r in [0, max_extra_steps) and looks
 * for the (r+1)-th memory access from the interrupted PC on: first by decoding forward and
 * emulating simple instructions (decode_emulate), which often resolves it without executing
 * anything (SONDE_MEM_PREDICTED); else by setting the trap flag and single-stepping, one
 * SIGTRAP per instruction, until the look-ahead from some later PC succeeds.
 *
 * The look-ahead runs in two passes.  The first reads no memory: it costs only decoding, and
 * settles most samples of code whose addresses come from arithmetic.  When it stops for a
 * lack of some value (an address register, flags or a jump target that came from a load),
 * the second pass runs again with memory: the loads on the path read the program's memory
 * (decode_read_data: process_vm_readv, never a direct read, see decode-x86.c) under the
 * stores the path made, at most CLOCK_MAX_READS reads.  A pointer chase, where every address
 * is the previous load's value, is then resolved without a single step.  The value read is
 * the one the program will load unless another thread writes it in between: such samples
 * (racy programs) get a stale but plausible address; all look-ahead samples are marked
 * SONDE_MEM_PREDICTED.
 */
#ifndef SONDE_RT_SOURCE_CLOCK_H
#define SONDE_RT_SOURCE_CLOCK_H

#include <signal.h>
#include <stdint.h>

#include "rt/rt.h"

#define CLOCK_DEFAULT_PERIOD 900000ull	/* ns of CPU time: ~1,100 samples/s per busy thread */
#define CLOCK_MAX_STEPS 256		/* single-steps per sample before giving up */
#define CLOCK_MAX_SCAN 64		/* instructions decoded ahead from one PC */
#define CLOCK_MAX_READS 24		/* memory reads (64-byte lines) per look-ahead */
#define CLOCK_EFLAGS_TF 0x100ull

/* Per-thread state, in the thread's arena. */
struct clock_thread {
	int fd;				/* the cpu-clock event, -1 if none */
	volatile sig_atomic_t stepping;	/* we set TF; the next SIGTRAP TRAP_TRACE is ours */
	int remaining;			/* accesses still to pass before the one to deliver */
	int pending;			/* accesses of the instruction being stepped over */
	int steps;			/* steps taken for the current sample */
	int pushf;			/* stepping over pushf: clear TF in the pushed image */
	uint64_t predicted;		/* samples resolved by look-ahead beyond the PC */
	uint64_t stepped;		/* samples that needed at least one step */
	uint64_t lost;			/* samples given up (no access found, undecodable...) */
	uint64_t via_loads;		/* samples resolved by the look-ahead pass that loads */
	uint64_t reads;			/* memory reads made by look-ahead (system calls) */
};

/* The program's SIGTRAP disposition when the source started (chained to). */
extern struct sigaction clock_old_sigtrap;

/*
 * For a sigaction()/signal() interposer: while the clock source owns SIGTRAP, the program's
 * new SIGTRAP disposition must not replace our handler (single-steps would reach the
 * program).  Returns 1 if the source owns SIGTRAP: *old (if not NULL) gets the program's
 * previous disposition, *act (if not NULL) becomes the one chained to for traps that are not
 * ours; the caller must then NOT call the real sigaction.  Returns 0 otherwise.
 * Not handler-safe (a program calling sigaction from a handler is served, racily).
 */
int clock_sigtrap_divert(const struct sigaction *act, struct sigaction *old);

void clock_on_sample(int sig, siginfo_t *si, void *uc);
void clock_on_trap(int sig, siginfo_t *si, void *uc);

#endif /* SONDE_RT_SOURCE_CLOCK_H */
