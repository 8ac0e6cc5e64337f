/* SPDX-License-Identifier: MIT */
/*
 * rt-comm.c - the `comm` tool's runtime client (ComDetective): every sampled access goes
 * through the detector (rt-detect.c) against one process-wide bulletin board; a
 * communication becomes an EVENT record in the observer's stream.  When the detector asks
 * for it, up to D 8-byte watchpoints are armed on random chunks of a line another thread
 * published; a trap is a communication too.  With SONDE_COMM_EXACT=1 (the inst source at
 * period 1) the exact detector models every access instead; with SONDE_COMM_COMPARE=N as
 * well, every Nth access of a thread also goes through the sampled detector (board and
 * watchpoints, EVENT records of weight N): both detectors on the same run.
 *
 * Watchpoints may be unavailable (no debug registers, a VM whose breakpoints never fire,
 * the inst source before the software backend exists): every watch_arm error is counted
 * and the detector goes on with board hits alone.  After WATCH_GIVE_UP consecutive hard
 * errors of a thread it stops asking (the cost of a failing perf_event_open per sample).
 *
 * Thinning where threads switch often (hw backend only).  An armed debug register costs
 * its thread at every context switch (doc/sonde-comm.md, "Overhead": several us a switch
 * on a KVM guest), and a ComDetective watch stays armed until a trap or the thread's next
 * arming, so a thread that switches s times between two samples pays about s of those
 * per arming.  At each arming decision the thread reads its context switches
 * (getrusage RUSAGE_THREAD, a syscall per decision, not per sample) and takes
 * k = ceil(s / THIN_SWITCHES) switches-per-sample since its previous decision, at most
 * THIN_MAX; it then arms for real with probability 1/k and a trap of that arming weighs
 * k times as much.  The other k-1 in k are armed "virtually": no register is written and
 * no trap can come, and the detector's state is left as a real arming's would be, trapped
 * or not (below, in arm).  The real armings are then a uniform
 * 1-in-k draw of the armings ComDetective would make, each living as long as it would,
 * and the weight k keeps the trap estimate's expectation (Horvitz-Thompson), with k
 * times its variance, as far as the later decisions are the same: a trap moves t_prev
 * (the publication is not armed on or counted again), so a virtual arming moves it as
 * often as the thread's real armings trapped (left alone, the thinned thread re-armed on
 * publications ComDetective had counted, and came out high).  The
 * soft backend (sonde-cc programs) pays nothing at a switch and is not thinned.
 * SONDE_COMM_THIN=0 turns it off; SONDE_COMM_THIN=K (2..THIN_MAX) thins every arming by
 * K on any backend, whatever the switches (the tests' check that the weighting holds).
 *
 * Configuration (read once in start): SONDE_COMM_EXACT, SONDE_COMM_COMPARE, SONDE_COMM_BOARD (slots, default
 * 127), SONDE_COMM_DREGS (1, 2 or 4; default 4), SONDE_COMM_WATCH=0 (no watchpoints),
 * SONDE_COMM_THIN=0 (no thinning).
 * Handler-reachable.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/thread.h"
#include "rt/watch.h"
#include "tools/comm/detect.h"
#include "tools/comm/format.h"
#include "rt/sigsafe.h"

#define WATCH_GIVE_UP 16
#define THIN_SWITCHES 1		/* context switches per sample an arming may sit through */
#define THIN_MAX 16		/* at most 1 arming in 16 made real */
#define EXACT_SLOTS (1ull << 21)	/* 2 Mi lines: 80 MiB of address space, touched lazily */
#define EXACT_PAIRS 64			/* per-thread aggregation slots */

struct exact_pair {
	uint32_t src, used;
	int32_t src_cpu, dst_cpu;
	uint32_t flags;
	uint64_t count;
};

struct comm_thread {
	struct comm_observer o;
	struct comm_counts c;
	struct comm_counts cs;		/* the sampled detector's, in compare mode */
	uint64_t cmp_left;		/* accesses to the next compare sample */
	uint64_t arms, arm_failures, traps, traps_ignored, exact_lost, traps_decoded;
	uint64_t thinned;		/* armings made virtual by the thinning */
	uint64_t real_arms;		/* armings that wrote registers (thinning's trap rate) */
	uint64_t traps_early;		/* traps of theirs before the thread's next sample */
	uint64_t sw_last, sw_samples;	/* switches and samples at the last thinning decision */
	uint32_t wp_k;			/* the current arming's thinning factor, 0: virtual */
	uint64_t wp_w;			/* the arming sample's weight (the clock's periods it
					 * stood for: rt.h), 1 under --compare */
	int watch_errno, hard_failures;
	struct exact_pair pair[EXACT_PAIRS];
	uint32_t x_left;		/* --exact: transfers to the next one recorded whole
					 * (COMM_REC_XSAMPLE), 0 before the first */
};

static struct comm_board board RT_LARGE;
static struct comm_exact exact;
static int exact_mode;
static uint64_t cmp_period;	/* compare mode: the sampled detector's period, else 0 */
static uint32_t dregs = COMM_MAX_DREGS;
static int watch_ok;	/* the trap handler is installed */
static int watch_off;	/* --no-watch */
static int thin_on;	/* thinning (hw backend, SONDE_COMM_THIN != 0) */
static uint32_t thin_fixed;	/* SONDE_COMM_THIN=K >= 2: every arming thinned by K */

/* Decimal digits only, as the CLI's launch_number takes them; anything else (a sign, a
 * space, a suffix, an overflow) is not set: def. */
static uint64_t env_num(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;

	if (!v || *v < '0' || *v > '9')
		return def;
	errno = 0;
	uint64_t n = strtoull(v, &end, 10);
	return *end || errno ? def : n;
}

static int comm_start(void)
{
	uint64_t n = env_num("SONDE_COMM_BOARD", COMM_BOARD_DEFAULT);
	exact_mode = env_num("SONDE_COMM_EXACT", 0) != 0;
	dregs = (uint32_t)env_num("SONDE_COMM_DREGS", COMM_MAX_DREGS);
	if (dregs != 1 && dregs != 2)
		dregs = COMM_MAX_DREGS;
	if (n < 1 || n > (1u << 20))
		n = COMM_BOARD_DEFAULT;
	cmp_period = exact_mode ? env_num("SONDE_COMM_COMPARE", 0) : 0;
	if (cmp_period == 1)
		cmp_period = 0;
	if (exact_mode && rt_tool_need_inst("comm", cmp_period ? "--compare" : "--exact"))
		return -ENOTSUP;
	for (int k = 0; k < 2; k++) {
		int ex = k == 0;
		if (ex != exact_mode && !(ex == 0 && cmp_period))
			continue;
		size_t bytes = ex ? EXACT_SLOTS * sizeof(struct comm_xline)
				  : n * sizeof(struct comm_entry);
		void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (mem == MAP_FAILED)
			return -ENOMEM;
		rt_add_owned_range((uint64_t)(uintptr_t)mem, (uint64_t)(uintptr_t)mem + bytes);
		if (ex)
			comm_exact_init(&exact, mem, EXACT_SLOTS, COMM_LINE_DEFAULT);
		else
			comm_board_init(&board, mem, (uint32_t)n, COMM_LINE_DEFAULT);
	}
	if (exact_mode && !cmp_period)
		return 0;
	/* the inst source's windows drawn around the period, as compare's (comm_window) */
	rt_inst_jitter();
	watch_off = env_num("SONDE_COMM_WATCH", 1) == 0;
	/* no backend (debug registers that do not trap, no sonde-cc build): no arm is tried,
	 * each would fail (the usability review of 2026-11-29: "every arm was refused" in one
	 * run, "none needed" in the next, beside the run's warning) */
	watch_ok = !watch_off && watch_start() == 0 && watch_backend() != WATCH_BACKEND_NONE;
	uint64_t thin = env_num("SONDE_COMM_THIN", 1);
	thin_fixed = thin >= 2 ? (uint32_t)(thin > THIN_MAX ? THIN_MAX : thin) : 0;
	thin_on = watch_ok && (thin_fixed || (thin == 1 && watch_backend() == WATCH_BACKEND_HW));
	return 0;
}

static int comm_thread_start(struct rt_thread *t)
{
	struct comm_thread *ct = arena_alloc(&t->arena, sizeof(*ct));
	if (!ct)
		return -ENOMEM;
	comm_observer_init(&ct->o, t->index, rt_now());
	ct->wp_k = 1;
	/* random windows (comm_window): the threads' compare samples do not lock step; the
	 * first is a random phase in [1, period] (a window would leave each thread's first
	 * period/2 accesses unsampled) */
	ct->cmp_left = cmp_period ? 1 + rt_rand(t) % cmp_period : 0;
	t->tool = ct;
	if (!exact_mode || cmp_period)
		comm_board_thread(&board, t->index, +1, 0);
	return 0;
}

static SIGSAFE void record_event(struct rt_thread *t, const struct comm_pub *p, uint32_t flags,
				 uint32_t scale, uint64_t weight, uint64_t addr, uint64_t ip,
				 int32_t cpu)
{
	struct comm_rec_event r = {
		.h = { .type = COMM_REC_EVENT, .size = sizeof(r) },
		.src = p->thread,
		.dst = t->index,
		.src_cpu = p->cpu,
		.dst_cpu = cpu,
		.flags = flags,
		.scale = scale,
		.weight = weight ? weight : 1,
		.addr = addr,
		.ip = ip,
		.src_addr = p->addr,
		.src_ip = p->ip,
		.time = rt_now(),
	};
	rt_tool_record(t, &r, sizeof(r));
}

/* The flags of a communication with p seen at [addr, addr+len): the byte rule's verdict,
 * and, for false sharing, whether the writer's code covers those bytes (comm_covered). */
static SIGSAFE uint32_t kind_flags(const struct comm_pub *p, int is_true, uint64_t addr,
				   uint32_t len)
{
	return is_true ? COMM_F_TRUE : comm_covered(p, addr, len, board.line) ? COMM_F_COVERED : 0;
}

static SIGSAFE int hard_error(int err)
{
	return err != -EAGAIN && err != -EEXIST && err != -ENOSPC && err != -EDEADLK &&
	       err != -EFAULT && err != -EPERM;
}

/* The thinning factor k for an arming decision now (see the top of the file): the
 * thread's context switches per sample since its previous decision, over THIN_SWITCHES. */
static SIGSAFE uint32_t thin_factor(struct comm_thread *ct, uint64_t samples)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 1;
	uint64_t sw = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	uint64_t ds = sw - ct->sw_last, dn = samples - ct->sw_samples;
	ct->sw_last = sw;
	ct->sw_samples = samples;
	if (!dn)
		return 1;
	uint64_t k = (ds + dn * THIN_SWITCHES - 1) / (dn * THIN_SWITCHES);
	return k < 1 ? 1 : k > THIN_MAX ? THIN_MAX : (uint32_t)k;
}

/* TryArmWP: disarm the old watchpoints, arm up to D chunks of p's line (a power of two of
 * them, so that the trap scale L / (D x M) is a whole number), or with soft watchpoints one
 * watch of the whole line (the paper arms "all or as many as possible" of the line's bytes:
 * 32 of 64 is the debug registers' limit; the soft backend has none).  A whole-line watch
 * traps at the observer's first access to the line, which is the transfer, and counts 1 x
 * the period; chunks count L / (D x M) periods, the inverse of the chance that they catch
 * one access, and too much for an observer that reads the whole line (it always traps):
 * 2x on commbench bcast with 4 chunks (doc/sonde-comm.md).  With thinning, only 1 in k
 * armings writes the registers; the others are virtual (comm_armed, no register). */
static SIGSAFE void arm(struct rt_thread *t, struct comm_thread *ct, const struct comm_pub *p,
			uint64_t now, uint64_t samples)
{
	uint32_t chunk[COMM_MAX_DREGS], n = 0;
	int slot[COMM_MAX_DREGS];
	int line_watch = watch_backend() == WATCH_BACKEND_SOFT && board.line <= WATCH_SOFT_MAX_LEN;
	uint32_t d = line_watch ? 1 : dregs, len = line_watch ? board.line : COMM_CHUNK;

	if (ct->o.wp_n && ct->wp_k)
		watch_disarm_all(t);
	ct->o.wp_n = 0;
	ct->wp_k = 1;
	if (!watch_ok || ct->hard_failures >= WATCH_GIVE_UP)
		return;
	if (thin_on) {
		uint32_t k = thin_fixed ? thin_fixed : thin_factor(ct, samples);
		if (k > 1 && rt_rand(t) % k) {
			ct->wp_k = 0;
			ct->thinned++;
			/* A real arming that traps moves t_prev past p (p and older are not
			 * picked or counted again); one that traps before the thread's next
			 * sample also leaves that sample free to arm, while one that has not
			 * trapped by then holds it back (comm_on_sample).  The virtual one
			 * takes one of the three outcomes as often as this thread's real
			 * armings did (trapped early, trapped later, never), so that the later
			 * samples see the state they would.  (Freeing the next sample at every
			 * "trapped" armed more than the real process did: t413's thinned
			 * volume read 1.5x and 2.4x the unthinned in two runs.) */
			uint64_t u = rt_rand(t) % (ct->real_arms + 1);
			if (u < ct->traps && p->time > ct->o.t_prev)
				ct->o.t_prev = p->time;
			comm_armed(&ct->o, p, u < ct->traps_early ? 0 : dregs, len, now);
			return;
		}
		ct->wp_k = k;
	}
	if (line_watch)
		chunk[0] = 0;
	else
		comm_pick_chunks(rt_rand(t), board.line, d, chunk);
	uint64_t base = p->addr & ~(uint64_t)(board.line - 1);
	for (uint32_t i = 0; i < d; i++) {
		struct watch_req r = {
			.addr = base + chunk[i] * len,
			.len = len,
			.type = WATCH_RW,
			.policy = WATCH_OLDEST,
		};
		int s = watch_arm(t, &r);
		if (s < 0) {
			ct->arm_failures++;
			ct->watch_errno = -s;
			if (hard_error(s))
				ct->hard_failures++;
			continue;
		}
		ct->hard_failures = 0;
		slot[n++] = s;
	}
	while (n & (n - 1))		/* 3 -> 2 */
		watch_disarm(t, slot[--n]);
	ct->arms += n;
	ct->real_arms += n > 0;
	comm_armed(&ct->o, p, n, len, now);
}

static SIGSAFE void exact_add(struct rt_thread *t, struct comm_thread *ct,
			      const struct comm_xfer *x, int32_t cpu);
static SIGSAFE void exact_sample(struct rt_thread *t, struct comm_thread *ct,
				 const struct comm_xfer *x, const struct rt_access *a, int32_t cpu);

/* The sampled detector: one sample standing for `weight` accesses. */
static SIGSAFE void sampled(struct rt_thread *t, struct comm_thread *ct, const struct rt_access *a,
			    int32_t cpu, int store, uint64_t weight, struct comm_counts *c)
{
	struct comm_sample s = { .addr = a->addr, .ip = a->ip, .time = a->time ? a->time : rt_now(),
				 .len = a->len ? a->len : 1, .store = store, .cpu = cpu };
	struct comm_pub p;
	int is_true = 0;
	switch (comm_on_sample(&board, &ct->o, &s, rt_rand(t), &p, &is_true, c)) {
	case COMM_COUNT:
		record_event(t, &p, kind_flags(&p, is_true, s.addr, s.len), 1, weight, a->addr,
			     a->ip, cpu);
		break;
	case COMM_ARM:
		/* its trap stands for as many periods as the sample that armed it, as a
		 * board hit does (a thread whose period the clock's time budget stretched
		 * arms less often: the code review of 2026-11-29); --compare's own weight is
		 * its period, in the trap's already */
		ct->wp_w = cmp_period ? 1 : weight;
		arm(t, ct, &p, s.time, c->samples);	/* this detector's samples */
		break;
	case COMM_NOTHING:
		break;
	}
}

static SIGSAFE void comm_on_access(struct rt_thread *t, const struct rt_access *a,
				   const ucontext_t *uc, int skip)
{
	struct comm_thread *ct = t->tool;
	int32_t cpu = sched_getcpu();
	int store = (a->flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;

	(void)uc;
	(void)skip;
	if (!ct)
		return;
	t->stats.samples++;
	if (exact_mode) {
		struct comm_xfer x;
		ct->c.samples++;
		ct->c.stores += store;
		int r = comm_exact_access(&exact, t->index, cpu, a->addr, a->len, store, &x);
		if (r > 0) {	/* (--compare too: its names where the sampled find none) */
			exact_add(t, ct, &x, cpu);
			exact_sample(t, ct, &x, a, cpu);
		} else if (r < 0)
			ct->exact_lost++;
		if (cmp_period && --ct->cmp_left == 0) {
			ct->cmp_left = comm_window(cmp_period, rt_rand(t));
			sampled(t, ct, a, cpu, store, cmp_period, &ct->cs);
		}
		return;
	}
	sampled(t, ct, a, cpu, store, a->weight, &ct->c);
}

static SIGSAFE void comm_trap_hook(struct rt_thread *t, const struct watch_trap *w,
				 const ucontext_t *uc)
{
	struct comm_thread *ct = t->tool;
	struct comm_pub p;
	int is_true = 0;
	uint32_t scale = 0;

	if (!ct || rt_enter(t))
		return;
	/* Soft traps report the trapping access (their block is the whole line); hardware
	 * ones only the watched 8-byte chunk, and the access is decoded from the instruction
	 * before the trap's PC.  Classified with the chunk, an access to another byte of it
	 * read as true sharing and put the chunk's start in the lines' offsets: a char array
	 * whose even bytes one thread writes and odd bytes another read 2-7% false sharing by
	 * the writers' bytes and "undecided", with offsets the program never touches (the
	 * usability review of 2026-11-29; t424).  The chunk where no decode is sure. */
	uint64_t addr = w->soft && w->access_len ? w->access_addr : w->addr;
	uint32_t len = w->soft && w->access_len ? w->access_len : w->len;
	uint64_t a;
	uint32_t l;
	if (!w->soft && uc && !decode_trap_access(uc, w->addr, w->addr + w->len, &a, &l)) {
		addr = a;
		len = l;
		ct->traps_decoded++;
	}
	/* a virtual arming has no register: a trap now is a late one of an earlier arming */
	/* before the thread's next sample (none since the arming): the arming did not hold
	 * that sample's arming back (thinning's state, in arm) */
	int early = ct->o.last_sample <= ct->o.wp_time;
	if (ct->wp_k && comm_on_trap(&ct->o, addr, len, board.line, &p, &is_true, &scale)) {
		ct->traps++;
		ct->traps_early += early;
		/* the observer's code: a soft trap's access, a hardware one's next instruction
		 * (the debug exception comes after the access); before 2026-11-27 none, and a
		 * thread seen only by its traps had no code in pairs.csv */
		record_event(t, &p, COMM_F_TRAP | kind_flags(&p, is_true, addr, len), scale,
			     (cmp_period ? cmp_period : 1) * (uint64_t)ct->wp_k *
				     (ct->wp_w ? ct->wp_w : 1), addr, w->ip,
			     sched_getcpu());
	} else {
		ct->traps_ignored++;
	}
	watch_disarm_all(t);
	rt_leave(t);
}

/* ---- exact mode: transfers aggregated per (source, kind, cpus) in the thread ---- */

static SIGSAFE void exact_flush(struct rt_thread *t, struct exact_pair *e)
{
	struct comm_rec_exact r = {
		.h = { .type = COMM_REC_EXACT, .size = sizeof(r) },
		.src = e->src, .dst = t->index, .src_cpu = e->src_cpu, .dst_cpu = e->dst_cpu,
		.flags = e->flags, .count = e->count,
	};
	rt_tool_record(t, &r, sizeof(r));
	e->used = 0;
	e->count = 0;
}

static SIGSAFE void exact_add(struct rt_thread *t, struct comm_thread *ct,
			      const struct comm_xfer *x, int32_t cpu)
{
	uint32_t flags = x->is_true ? COMM_F_TRUE : 0;
	uint32_t h = (x->src * 31u + (uint32_t)x->src_cpu * 7u + (uint32_t)cpu * 3u + flags) %
		     EXACT_PAIRS;
	struct exact_pair *e = &ct->pair[h];
	if (e->used && (e->src != x->src || e->src_cpu != x->src_cpu || e->dst_cpu != cpu ||
			e->flags != flags))
		exact_flush(t, e);
	if (!e->used) {
		e->used = 1;
		e->src = x->src;
		e->src_cpu = x->src_cpu;
		e->dst_cpu = cpu;
		e->flags = flags;
	}
	e->count++;
}

/* --exact: one transfer in COMM_XSAMPLE_EVERY of the thread's recorded with its access, a
 * random first (a systematic sample: each stands for as many).  Its time read here where
 * the access has none (the inst source's every access does not read the clock): at 0 the
 * report found no allocation live yet and put every transfer of a 128 KiB block in
 * "[heap: untracked small blocks]" (the trial of 2026-11-29, F1: HPCG, miniVite). */
static SIGSAFE void exact_sample(struct rt_thread *t, struct comm_thread *ct,
				 const struct comm_xfer *x, const struct rt_access *a, int32_t cpu)
{
	if (!ct->x_left)
		ct->x_left = 1 + (uint32_t)(rt_rand(t) % COMM_XSAMPLE_EVERY);
	if (--ct->x_left)
		return;
	ct->x_left = COMM_XSAMPLE_EVERY;
	struct comm_rec_event r = {
		.h = { .type = COMM_REC_XSAMPLE, .size = sizeof(r) },
		.src = x->src, .dst = t->index, .src_cpu = x->src_cpu, .dst_cpu = cpu,
		.flags = x->is_true ? COMM_F_TRUE : 0, .scale = 1,
		.weight = COMM_XSAMPLE_EVERY, .addr = a->addr, .ip = a->ip,
		.time = a->time ? a->time : rt_now(),
	};
	rt_tool_record(t, &r, sizeof(r));
}

/*
 * Run by t itself at its end, or by the thread finishing the process while t may still
 * run.  No hook of t can be adding to ct meanwhile: comm's accesses (--exact's every one
 * included) come through rt_deliver_access, whose rt_enter raises busy and fences before
 * it reads stopped, and the finisher raises stopped before it waits for busy to fall.
 * Other threads' hooks touch only their own comm_thread, the board and the exact table
 * (whose entries name t by index, never by pointer), so they need not stop either.
 * (reuse --exact uses rt_inst_every instead, which raises busy without a fence: there the
 * finisher's membarrier closes the gap, source-inst.c.)
 */
static SIGSAFE void comm_thread_end(struct rt_thread *t)
{
	struct comm_thread *ct = t->tool;
	if (!ct)
		return;
	if (!exact_mode || cmp_period)
		comm_board_thread(&board, t->index, -1, rt_now());
	if (cmp_period) {	/* the board's counters are the sampled detector's */
		ct->c.published = ct->cs.published;
		ct->c.publish_lost = ct->cs.publish_lost;
		ct->c.hits = ct->cs.hits;
		ct->c.arm_tries = ct->cs.arm_tries;
	}
	for (int i = 0; i < EXACT_PAIRS; i++)
		if (ct->pair[i].used)
			exact_flush(t, &ct->pair[i]);
	struct comm_rec_stats r = {
		.h = { .type = COMM_REC_STATS, .size = sizeof(r) },
		.samples = ct->c.samples,
		.stores = ct->c.stores,
		.published = ct->c.published,
		.publish_lost = ct->c.publish_lost,
		.hits = ct->c.hits,
		.arm_tries = ct->c.arm_tries,
		.arms = ct->arms,
		.arm_failures = ct->arm_failures,
		.traps = ct->traps,
		.traps_ignored = ct->traps_ignored,
		.exact_lost = ct->exact_lost,
		.watch_errno = ct->watch_errno,
		/* a soft watch is one per arming, over the whole line (arm) */
		.dregs = exact_mode && !cmp_period ? 0 :
			 !watch_ok ? 0 :
			 watch_backend() == WATCH_BACKEND_SOFT && board.line <= WATCH_SOFT_MAX_LEN ?
			 1 : dregs,
		.watch_off = (uint32_t)watch_off,
		.mode = (exact_mode ? COMM_MODE_EXACT : 0) | (cmp_period ? COMM_MODE_COMPARE : 0),
		.thinned = ct->thinned,
		.compare_period = cmp_period,
		.traps_decoded = ct->traps_decoded,
	};
	rt_tool_record(t, &r, sizeof(r));
}

/* In a fork child the board and the exact table hold the parent's threads: start empty. */
static void comm_fork_child(struct rt_thread *t)
{
	if (exact_mode)
		madvise(exact.x, EXACT_SLOTS * sizeof(struct comm_xline), MADV_DONTNEED);
	if (!exact_mode || cmp_period) {
		memset(board.e, 0, board.size * sizeof(struct comm_entry));
		comm_board_init(&board, board.e, board.size, board.line);
	}
	comm_thread_start(t);
}

const struct rt_tool rt_tool_comm = {
	.name = "comm",
	/* counts: with the inst source a board hit counts period transfers, with the clock
	 * one a sample (the trial of 2026-11-28: a sonde-cc build ran on the clock by
	 * default, as reuse did before) */
	.flags = RT_TOOL_OBJECTS | RT_TOOL_THREAD_BREAKPOINTS | RT_TOOL_RANDOM_WINDOWS,
	.start = comm_start,
	.thread_start = comm_thread_start,
	.access = comm_on_access,
	.trap = comm_trap_hook,
	.fork_child = comm_fork_child,
	.thread_end = comm_thread_end,
};
