/* SPDX-License-Identifier: MIT */
/*
 * detect.h - ComDetective's detector as pure functions (rt-detect.c): the bulletin board,
 * one thread's observer state, Algorithm 1 on a sample, the trap rule, and the exact
 * detector.  No signals, clocks or watchpoints here: rt-comm.c feeds them real samples,
 * tests/unit/u-comm.c scripted ones.  Everything is handler-safe and lock-free except the
 * exact detector, which spins briefly on a per-line lock word (see comm_exact_access).
 *
 * Decisions (doc/sonde-comm.md, "How it works"):
 *   - Only store samples publish; every sample looks the line up.
 *   - Expiry, counted in store samples, not in time: an entry expires when its publisher
 *     has taken two more store samples ("more than two store events" of the same thread),
 *     or when the whole board has seen more than 2 x (live threads) store samples since
 *     (the publisher was descheduled or ended: two store intervals of an average
 *     thread).  Wall-clock intervals were tried first: on a loaded 2-core machine a
 *     descheduled publisher's interval is milliseconds long and its entries blocked the
 *     line for everyone.  An unexpired entry is not overwritten, and only unexpired
 *     entries are offered to watchpoints.  A thread's publications are never counted by
 *     a thread started after it ended (comm_gone_before).
 *   - Counting on a sample needs T2 != T1 and ts2 > t_prev[T1] (t_prev rule); then
 *     t_prev[T1] = ts2.  The same rule applies to a trap (against the armed entry).
 *   - Watchpoints are "old" when armed before the thread's previous sample: only then are
 *     they replaced.
 */
#ifndef SONDE_TOOLS_COMM_DETECT_H
#define SONDE_TOOLS_COMM_DETECT_H

#include <stdint.h>

#define COMM_BOARD_DEFAULT 127
#define COMM_LINE_DEFAULT 64
#define COMM_CHUNK 8			/* M: bytes per watchpoint */
#define COMM_MAX_DREGS 4
#define COMM_PROBE 8			/* board slots probed from a line's home slot */
#define COMM_WMASK 64			/* code blocks an observer keeps chunks of */
#define COMM_WMASK_CODE 7		/* a code block: 128 bytes of instructions */

/* A publication: one store sample on the board, or its snapshot. */
struct comm_pub {
	uint64_t addr, ip, time;
	uint64_t seq;			/* the publisher's store samples, this one included */
	uint64_t gseq;			/* the board's store samples, this one included */
	uint32_t len, thread;
	int32_t cpu;
	uint32_t pad;
	/* the bytes of a line (bit i: offset i; lines up to 64 bytes) the publisher's store
	 * instructions around this one have been seen storing to, in any line, by this thread
	 * (comm_wmask_note): this store's bytes and, where that code sweeps lines, the rest */
	uint64_t wbytes;
};

struct comm_entry {
	uint64_t seq;			/* seqlock: odd while a writer fills the entry */
	uint64_t line;			/* line address + 1; 0 = empty */
	struct comm_pub pub;
};

#define COMM_TSLOTS 4096		/* per-thread store counters (thread index modulo) */

struct comm_board {
	uint32_t size;			/* slots */
	uint32_t line;			/* line size, a power of two */
	struct comm_entry *e;		/* size slots, zeroed */
	uint32_t live;			/* threads sampling now (comm_board_thread) */
	uint64_t gstores;		/* store samples of every thread */
	uint64_t tstores[COMM_TSLOTS];	/* store samples per thread */
	uint64_t tend[COMM_TSLOTS];	/* when each thread ended, 0 while it runs */
	uint32_t towner[COMM_TSLOTS];	/* the thread index + 1 that last started in the slot:
					 * tend is that thread's (index modulo COMM_TSLOTS) */
};

/* One thread's detector state. */
struct comm_observer {
	uint32_t thread;
	uint64_t start;			/* time the thread started */
	uint64_t t_prev;		/* publication time of the last communication counted */
	uint64_t last_sample;
	/* publication time of the newest publication armed on: an arming consumes it (and
	 * older ones) as a count does, so that no publication is armed on twice (below) */
	uint64_t t_armed;
	/* watchpoints: how many are armed, the bytes they cover, when, on which publication */
	uint32_t wp_n;
	uint32_t wp_bytes;
	uint64_t wp_time;
	struct comm_pub wp_pub;
	/* the bytes of a line the store instructions of each 128-byte block of code have been
	 * sampled storing to in this thread (direct-mapped by ip >> COMM_WMASK_CODE; a
	 * collision starts the slot afresh) */
	struct {
		uint64_t ip;	/* the block: ip >> COMM_WMASK_CODE */
		uint64_t bytes;	/* bit i: offset i of a line */
	} wm[COMM_WMASK];
};

/* A sample as the detector sees it. */
struct comm_sample {
	uint64_t addr, ip, time;
	uint32_t len;
	int store;			/* stores and read-modify-writes */
	int32_t cpu;
};

enum comm_verdict {
	COMM_NOTHING = 0,
	COMM_COUNT,			/* a communication with *pub; *is_true says the kind */
	COMM_ARM,			/* arm watchpoints on *pub's line (old ones are to be disarmed) */
};

/* Counters the detector keeps (added to). */
struct comm_counts {
	uint64_t samples, stores, published, publish_lost, hits, arm_tries;
};

/* Board of `size` slots over `mem` (size entries, zeroed by the caller) and line size. */
void comm_board_init(struct comm_board *b, struct comm_entry *mem, uint32_t size, uint32_t line);
/* (comm_board_init zeroes the counters too.) */

void comm_observer_init(struct comm_observer *o, uint32_t thread, uint64_t start);

/* Do [a, a+al) and [b, b+bl) share a byte? */
int comm_overlap(uint64_t a, uint32_t al, uint64_t b, uint32_t bl);

/* Thread `thread` starts (+1) or stops (-1) sampling, at time `now`. */
void comm_board_thread(struct comm_board *b, uint32_t thread, int delta, uint64_t now);

/*
 * Did thread `thread` end before `start` (an observer's start)?  Its publications are then
 * no communication of that observer's, by sample or trap.  A publication is expired by its
 * writer's later store samples (above), which an ended writer never takes: in a program
 * that runs its threads a pair at a time (the usability review of 2026-11-29, 3000 short
 * threads), one sampled store of thread 371 was counted by threads 437 to 753, created
 * long after it ended, the line last written by unsampled threads between.  The price: a
 * thread that hands data to its successor through memory (a phase's workers to the next
 * phase's) is not counted by samples; one that lives on (the main thread, a pool) is.
 * The exact detector knows the line's last writer and counts such a hand-over.
 */
int comm_gone_before(const struct comm_board *b, uint32_t thread, uint64_t start);

/* Is the publication expired now (see Expiry above)? */
int comm_expired(const struct comm_board *b, const struct comm_pub *p);

/* Snapshot of the board's entry for the line of addr: 1 and *out, or 0 (none, or being
 * written). */
int comm_board_find(const struct comm_board *b, uint64_t addr, struct comm_pub *out);

/* Publish p (a store of thread p->thread; seq and gseq filled by the caller) unless its
 * line has an unexpired entry: 1 if published, 0 if an unexpired entry kept it out, -1 if
 * lost (no stale slot among the probed ones, or a concurrent writer). */
int comm_board_publish(struct comm_board *b, const struct comm_pub *p);

/*
 * Algorithm 1 on one sample of observer o.  `rnd` is a random number (the arming
 * candidate's search starts at a random slot).  Returns a verdict with *pub and *is_true
 * filled for COMM_COUNT, *pub for COMM_ARM.  Publishes the sample when it is a store.
 */
enum comm_verdict comm_on_sample(struct comm_board *b, struct comm_observer *o,
				 const struct comm_sample *s, uint64_t rnd, struct comm_pub *pub,
				 int *is_true, struct comm_counts *c);

/* The next sampling window for period p: uniform in [p - p/2, p + p/2] (mean p) from rnd.
 * A fixed window locks onto a loop whose accesses per iteration divide p (or p mod them)
 * evenly: each thread samples the same access of the body, in the same relation to the
 * other threads, all run long (source-inst.c's rt_inst_jitter, the same rule). */
uint64_t comm_window(uint64_t p, uint64_t rnd);

/*
 * Which bytes did the publisher write?  The board keeps one sampled store, and a line one
 * thread wrote whole and another then reads is true sharing that the byte rule reads as
 * false 7 times in 8 (taskflow's Black-Scholes: 93% false sampled, 3.4% exact).  The
 * publisher's store instructions say more: a loop over an array stores at every offset of
 * its lines, by one instruction or, unrolled, by several next to each other (8 stores of
 * 8 bytes, each at its own offset), so it most likely wrote the reader's chunk of this
 * line too, while one that keeps to one offset (a thread's own slot, `w[me]`) did not.
 * The evidence is kept by block of code (128 bytes) and read with the blocks on either
 * side (384 bytes of instructions: a loop body with sonde-cc's callbacks between its
 * stores); by instruction alone, the unrolled `commbench bcast 300 8` read 58-69% false
 * where 0 is exact, by block 11%.
 *
 * comm_wmask_note adds the bytes of [addr, addr+len) to the mask of ip's block in o and
 * returns that mask with its two neighbours' (offsets up to 63: a longer line's rest is
 * never covered); 0 for a store with no ip.  Bytes, not 8-byte chunks: threads' own
 * 4-byte or 1-byte slots of one line (`int cnt[NTHREADS]`) share chunks, and a chunk mask
 * covered their false sharing (the review of 2026-11-28: 67% left of 99.5% false).
 * comm_covered says whether the observer's access [addr, addr+len) touches a byte in
 * p->wbytes: a communication the byte rule calls false that the code's offsets could
 * make true.  The report gives
 * both readings, the byte rule's false share and the share left when covered ones are true
 * (doc/sonde-comm.md, "Which bytes did the writer write"); neither is a bound: threads that
 * interleave short runs of one array's lines (a static schedule of 3 doubles) store at
 * every offset with the same instruction and are false sharing the covered reading calls
 * true, and a line written by several instructions (a struct's fields) is true sharing
 * the covered reading can still call false.
 */
uint64_t comm_wmask_note(struct comm_observer *o, uint64_t ip, uint64_t addr, uint32_t len,
			 uint32_t line);
int comm_covered(const struct comm_pub *p, uint64_t addr, uint32_t len, uint32_t line);

/* Pick n distinct chunks (0 .. line/M - 1) at random into chunk[] (partial Fisher-Yates). */
void comm_pick_chunks(uint64_t rnd, uint32_t line, uint32_t n, uint32_t *chunk);

/*
 * n watchpoints of len bytes each were armed on pub at time now (n = 0: none could be).
 * From then on pub, and every publication not newer, is no candidate of o's armings:
 * a trap's scale L / (D x M) is the inverse of the chance that one arming catches an
 * access, so each publication gets one arming per observer (the paper's armings are on
 * publications "recent" to the observer, made since its previous sample).  Re-arming on
 * the same publication at every sample until a trap made the trap all but certain and
 * still scaled it by L / (D x M): a reader of one word of a line published once counted
 * 2 periods where one arming's expectation is 1 (commbench readonly, doc/sonde-comm.md).
 */
void comm_armed(struct comm_observer *o, const struct comm_pub *pub, uint32_t n, uint32_t len,
		uint64_t now);

/*
 * A trap on the observer's watchpoints: the trapping access [addr, addr+len).  Returns 1
 * and *pub, *is_true, *scale (L / (D x M): the line over the bytes armed, 1 for a watch of
 * the whole line) when it counts, 0 when the armed publication was already counted (t_prev
 * rule) or nothing was armed.  Either way every watchpoint of the thread is to be
 * disarmed (o->wp_n becomes 0).
 */
int comm_on_trap(struct comm_observer *o, uint64_t addr, uint32_t len, uint32_t line,
		 struct comm_pub *pub, int *is_true, uint32_t *scale);

/* ---- the exact detector (--exact: every access of a sonde-cc program) ---- */

/*
 * Per cache line: the last writer, the bytes it wrote since it took the line, and which
 * threads already fetched that version (a bit per thread index modulo 64: exact for up to
 * 64 threads).  An access by T to a line whose last writer W != T, when T has not fetched
 * this version yet, is one transfer W -> T: true sharing if it touches a byte W wrote,
 * false otherwise.  A store by T starts a new version (new writer T, or T writing again
 * after others fetched it).  Cache capacity is not modelled (lines never leave a cache).
 */
struct comm_xline {
	uint64_t line;			/* line address + 1, 0 = empty; set once by CAS */
	uint32_t lock;			/* 0 free, 1 held */
	uint32_t writer;		/* thread index + 1, 0 = never written */
	int32_t writer_cpu;
	uint32_t pad;
	uint64_t wmask;			/* bytes the writer wrote (line <= 64 bytes) */
	uint64_t fetched;		/* threads (index % 64) that fetched this version */
};

struct comm_exact {
	uint64_t size;			/* slots, a power of two */
	uint32_t line;
	struct comm_xline *x;		/* zeroed by the caller */
};

struct comm_xfer {
	uint32_t src;
	int32_t src_cpu;
	int is_true;
};

void comm_exact_init(struct comm_exact *x, struct comm_xline *mem, uint64_t size, uint32_t line);

/*
 * One access of thread `thread` on cpu.  1 and *out when it is a transfer, 0 when not,
 * -1 when it could not be modelled (table full, or the line's lock stayed busy).
 */
int comm_exact_access(struct comm_exact *x, uint32_t thread, int32_t cpu, uint64_t addr,
		      uint32_t len, int store, struct comm_xfer *out);

#endif
