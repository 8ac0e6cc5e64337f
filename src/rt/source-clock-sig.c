/* SPDX-License-Identifier: MIT */
/*
 * source-clock-sig.c - the clock source's signal handlers: the cpu-clock sample, and the
 * single-step SIGTRAP.  Everything here is async-signal-safe (see source-clock.h for the
 * method).  The two handlers block each other's signal (sa_mask, set in source-clock.c):
 * a trap raised while its own handler runs would be forced and kill the program.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/source-clock.h"
#include "rt/thread.h"
#include "rt/watch.h"
#include "rt/sigsafe.h"

struct sigaction clock_old_sigtrap;

SIGSAFE const char *clock_drop_name(int why)
{
	static const char *const names[CLOCK_N_DROP] = {
		[CLOCK_DROP_BUSY] = "busy",
		[CLOCK_DROP_IN_STEP] = "in-step",
		[CLOCK_LOST_NO_ACCESS] = "no-access",
		[CLOCK_LOST_BUDGET] = "step-budget",
		[CLOCK_LOST_TRAP_BLOCKED] = "sigtrap-blocked",
		[CLOCK_LOST_FLAGS] = "flags-rewritten",
		[CLOCK_LOST_TRAP_FLAG] = "trap-flag-lost",
		[CLOCK_LOST_OVERSHOT] = "overshot",
		[CLOCK_LOST_STOPPED] = "stopped",
		[CLOCK_DROP_REFUSED] = "refused",
		[CLOCK_LOST_FAR] = "far",
		[CLOCK_DROP_OWN_TIME] = "own-time",
		[CLOCK_DROP_TIME_BUDGET] = "time-budget",
	};
	return why >= 0 && why < CLOCK_N_DROP ? names[why] : "?";
}

SIGSAFE int clock_drops(const struct rt_thread *t, const char **names, uint64_t *counts, int max)
{
	const struct clock_thread *ct = t->src;
	int n = 0;
	for (int i = 0; i < CLOCK_N_DROP && n < max; i++, n++) {
		names[n] = clock_drop_name(i);
		counts[n] = ct ? ct->why[i] : 0;
	}
	return n;
}

/* SCAN_NEED_VALUE: stopped for want of a value that memory may supply (SCAN_STEP else);
 * SCAN_FAR: CLOCK_MAX_SCAN instructions along a known path without the wanted access;
 * SCAN_BUDGET: the sample's CLOCK_MAX_DECODED is spent. */
enum scan_result { SCAN_FOUND, SCAN_STEP, SCAN_NEED_VALUE, SCAN_GIVE_UP, SCAN_FAR, SCAN_BUDGET };

/* A window of code bytes, re-read when the look-ahead leaves it.  It starts up to
 * WINDOW_BACK bytes before the PC it is read for (within the PC's page, which is mapped):
 * a loop's back-edge then usually stays inside (each read is a system call, ~3 us). */
#define WINDOW_BACK 192
struct window {
	uint64_t base;
	long n;
	int reads;
	uint8_t buf[512];
};

SIGSAFE static const uint8_t *window_at(struct window *w, uint64_t pc, size_t *avail)
{
	int inside = w->n > 0 && pc >= w->base && pc < w->base + (uint64_t)w->n;
	/* fewer than 15 bytes left in a full window: the instruction may continue past it */
	if (!inside || (w->n == (long)sizeof(w->buf) && w->base + (uint64_t)w->n - pc < 15)) {
		if (w->reads++ >= 8)	/* each a system call */
			return NULL;
		uint64_t back = pc & 4095;
		w->base = pc - (back < WINDOW_BACK ? back : WINDOW_BACK);
		w->n = decode_read_code(w->base, w->buf, sizeof(w->buf));
		if (w->n <= (long)(pc - w->base))
			return NULL;
	}
	*avail = (size_t)(w->base + (uint64_t)w->n - pc);
	return w->buf + (pc - w->base);
}

struct found {
	struct decode_mem m;
	uint64_t ip;
	int index;		/* instructions ahead of the PC */
};

/* decode_access through the thread's cache of decoded instructions. */
SIGSAFE static int decode_cached(struct clock_thread *ct, const uint8_t *p, size_t avail,
				 const struct decode_regs *r, struct decode_insn *d)
{
	struct clock_dcache_entry *c = NULL;
	ct->decodes++;
	if (ct->dcache) {
		c = &ct->dcache[(r->rip ^ (r->rip >> 8)) % CLOCK_DCACHE];
		if (c->len && c->rip == r->rip && avail >= c->len && !memcmp(p, c->bytes, c->len)) {
			*d = c->d;
			if (decode_rebase(d, r) == 0) {
				ct->dcache_hits++;
				return d->len;
			}
		}
	}
	int n = decode_access(p, avail, r, d);
	if (c && n > 0 && (size_t)n <= sizeof(c->bytes)) {
		struct decode_insn probe = *d;
		c->len = 0;
		if (decode_rebase(&probe, r) == 0) {	/* reusable */
			c->rip = r->rip;
			memcpy(c->bytes, p, (size_t)n);
			c->d = *d;
			c->len = (uint8_t)n;
		}
	}
	return n;
}

/* A conditional or indirect jump the emulator could not follow for want of a value. */
SIGSAFE static int value_branch(const struct decode_insn *d)
{
	return d->op == DECODE_OP_JCC || d->op == DECODE_OP_JMP_IND || d->op == DECODE_OP_RET;
}

/* The "known" bits an emulated instruction reads. */
SIGSAFE static uint32_t input_bits(const struct decode_insn *d)
{
	uint32_t b = d->src >= 0 ? 1u << d->src : 0;
	int reads_dst = d->dst >= 0 && d->op != DECODE_OP_LEA && d->op != DECODE_OP_POP &&
			d->op != DECODE_OP_CQO &&
			(d->width < 4 || (d->op != DECODE_OP_MOV_IMM && d->op != DECODE_OP_MOV_REG &&
					  d->op != DECODE_OP_MOVX && !(d->op == DECODE_OP_IMUL &&
									d->has_imm)));
	if (reads_dst)
		b |= 1u << d->dst;
	if (d->mem_arg)
		b |= d->mem[0].needs;
	if (d->op == DECODE_OP_LEA)
		b |= d->lea.needs;
	if (d->op == DECODE_OP_DIV || d->op == DECODE_OP_IDIV)
		b |= 1u << DECODE_RAX | 1u << DECODE_RDX;
	if (d->op == DECODE_OP_INC || d->op == DECODE_OP_DEC)
		b |= DECODE_KNOWN_FLAGS;	/* CF passes through */
	if (d->op == DECODE_OP_JCC || d->op == DECODE_OP_SETCC || d->op == DECODE_OP_CMOV)
		b |= decode_cond_needs(d->cond);
	if (d->op == DECODE_OP_PUSH || d->op == DECODE_OP_POP || d->op == DECODE_OP_CALL ||
	    d->op == DECODE_OP_RET)
		b |= 1u << DECODE_RSP;
	return b;
}

/*
 * Which unknown values memory could not supply: written by an instruction the emulator does
 * not model, or computed from such a value.  The others come from loads, which the second
 * pass reads; a second pass is only worth its reads when every missing value is of that kind.
 */
SIGSAFE static uint32_t hopeless_after(const struct decode_insn *d, uint32_t before,
				       uint32_t after, uint32_t hopeless)
{
	uint32_t written = d->writes & ~after;	/* now unknown: overwritten, if it was before */
	if (d->op == DECODE_OP_OTHER || (input_bits(d) & ~before & hopeless))
		hopeless |= written;
	else
		hopeless &= ~written;
	return hopeless & ~after;
}

/*
 * Find the access `remaining` accesses ahead of r->rip without executing anything; loads on
 * the way take their values from mem (NULL: loaded registers become unknown).  *first gets
 * the instruction at the PC (what a step would execute).
 */
SIGSAFE static int scan(struct clock_thread *ct, const struct decode_regs *r, struct window *w,
			struct decode_shadow *mem, struct decode_insn *first, struct found *res)
{
	int remaining = ct->remaining;
	struct decode_regs e = *r;
	uint32_t known = DECODE_KNOWN_ALL;
	struct decode_insn d;
	uint32_t hopeless = 0;

	w->reads = 0;
	for (int i = 0; i < CLOCK_MAX_SCAN; i++) {
		size_t avail = 0;
		if (ct->decoded++ >= CLOCK_MAX_DECODED)
			return SCAN_BUDGET;
		const uint8_t *p = window_at(w, e.rip, &avail);
		if (!p || decode_cached(ct, p, avail, &e, &d) < 0)
			return i == 0 ? SCAN_GIVE_UP : SCAN_STEP;
		if (i == 0)
			*first = d;
		for (int k = 0; k < d.n_mem; k++, remaining--) {
			if (remaining > 0)
				continue;
			if (d.mem[k].flags & DECODE_MEM_UNKNOWN)
				return SCAN_GIVE_UP;
			if ((known & d.mem[k].needs) != d.mem[k].needs)
				return d.mem[k].needs & ~known & hopeless ? SCAN_STEP : SCAN_NEED_VALUE;
			res->m = d.mem[k];
			res->ip = e.rip;
			res->index = i;
			return SCAN_FOUND;
		}
		/* a rep instruction repeats in place: its later iterations are not modelled */
		if (d.rep)
			return SCAN_STEP;
		uint32_t before = known;
		if (decode_emulate_mem(&d, &e, &known, mem))
			return value_branch(&d) && !(input_bits(&d) & ~known & hopeless) ?
				       SCAN_NEED_VALUE : SCAN_STEP;
		hopeless = hopeless_after(&d, before, known, hopeless);
	}
	return SCAN_FAR;
}

SIGSAFE static int read_data(void *ctx, uint64_t addr, uint8_t *buf, size_t len)
{
	struct clock_thread *ct = ctx;
	ct->reads++;
	return decode_read_data(addr, buf, len) == (long)len ? 0 : -1;
}

/* Both look-ahead passes (see source-clock.h): without memory, then, if a value was
 * missing, with it.  The code bytes read by the first serve the second. */
SIGSAFE static int look_ahead(struct clock_thread *ct, const struct decode_regs *r,
			      struct decode_insn *first, struct found *f)
{
	struct window w;
	struct decode_shadow mem;

	w.n = 0;
	int s = scan(ct, r, &w, NULL, first, f);
	if (s != SCAN_NEED_VALUE)
		return s;
	decode_shadow_init(&mem, read_data, ct, CLOCK_MAX_READS);
	s = scan(ct, r, &w, &mem, first, f);
	if (s == SCAN_FOUND && mem.loads > 0)
		ct->via_loads++;
	return s == SCAN_NEED_VALUE ? SCAN_STEP : s;
}

SIGSAFE static void drop(struct rt_thread *t, struct clock_thread *ct, int why);

/* The weight of the sample being delivered (source-clock.h, owed_ns): the periods its
 * signal and the time budget's drops before it stood for, at least 1. */
SIGSAFE static uint64_t sample_weight(struct clock_thread *ct)
{
	if (!ct->owed_ns || !clock_period)
		return 1;
	uint64_t w = (ct->owed_ns + clock_period / 2) / clock_period;
	if (w < 1)
		w = 1;
	ct->owed_ns = ct->owed_ns > w * clock_period ? ct->owed_ns - w * clock_period : 0;
	return w;
}

SIGSAFE static void deliver(struct rt_thread *t, struct clock_thread *ct, const struct found *f,
			    const ucontext_t *uc)
{
	/* the access found (stepped to) is the runtime's own, in an interposer the program
	 * called: not the program's (as on_tick's PC test) */
	if (rt_owns_code(f->ip)) {
		drop(t, ct, CLOCK_DROP_OWN_TIME);
		return;
	}
	struct rt_access a = {
		.ip = f->ip,
		.addr = f->m.addr,
		.time = rt_now(),
		.weight = sample_weight(ct),
		.len = f->m.len,
		.flags = (uint16_t)(f->m.flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)),
	};
	if (f->index > 0) {
		a.flags |= SONDE_MEM_PREDICTED;
		ct->predicted++;
	}
	if (ct->steps > 0)
		ct->stepped++;
	uint64_t dropped = t->stats.dropped;
	rt_deliver_access(t, &a, uc, 0);
	/* counted in stats.dropped by the runtime or the tool: only the cause is ours */
	ct->why[CLOCK_DROP_REFUSED] += t->stats.dropped - dropped;
}

/* A signal that gives no access, for cause `why` (enum clock_drop). */
SIGSAFE static void drop(struct rt_thread *t, struct clock_thread *ct, int why)
{
	/* a signal lost for another cause is lost, as before weights: only the budget's
	 * skipped periods go to the next sample (and an in-step drop, the watchdog's, is
	 * none of the sample's: it keeps the periods the sample being stepped stands for) */
	if (why != CLOCK_DROP_TIME_BUDGET && why != CLOCK_DROP_IN_STEP)
		ct->owed_ns = 0;
	ct->why[why]++;
	t->stats.dropped++;
}

/* The sample is abandoned: no access for it. */
SIGSAFE static void give_up(struct rt_thread *t, struct clock_thread *ct, int why)
{
	ct->lost++;
	drop(t, ct, why);
}

/*
 * The event for the next sample: the usual period while no sample is stepped, the watchdog
 * period while one is (see source-clock.h).  A changed period restarts the count (an event
 * that is counting starts a whole new period; one stopped by its overflow takes the period
 * when it is refreshed).  Handler-safe (ioctl).
 */
SIGSAFE static void set_period(struct clock_thread *ct, int watchdog)
{
	/* (a stretch is measured again each time: from the debt now, which a dropped tick
	 * has grown since; kept, it fell short of the debt, and the next tick was dropped
	 * too, and each drop costs a tick: at --period 10000, 419534 drops and 8 samples) */
	if ((ct->watchdog == watchdog && watchdog >= 0) || clock_inherit)
		return;
	/* (watchdog -1, stretched, starts from the period: from the watchdog's 10 ms, every
	 * stretch was 10 ms, not the "8 ms at most" the report says) */
	uint64_t p = watchdog > 0 && clock_period < CLOCK_WATCHDOG_NS ? CLOCK_WATCHDOG_NS :
		clock_period;
	if (watchdog < 0 && ct->credit < 0)	/* stretched: until the credit is back */
		p = (uint64_t)-ct->credit * CLOCK_BUDGET_DIV > p ?
			(uint64_t)-ct->credit * CLOCK_BUDGET_DIV : p;
	/* no event, or a number the program took over: the period was not set */
	if (rt_fd_ioctl(ct->fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p) != -EBADF) {
		ct->watchdog = watchdog;
		ct->period_ns = p;
	}
}

SIGSAFE uint64_t clock_cpu_now(void)
{
	struct timespec ts;
	return rt_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) ? 0 :
		(uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The budget (source-clock.h, CLOCK_BUDGET_DIV): the credit earned since credit_at, as of
 * now (clock_cpu_now); 1 if it is spent. */
SIGSAFE static int budget_spent(struct clock_thread *ct, uint64_t now)
{
	/* (the default periods' events: a tenth, CLOCK_BUDGET_DIV_LONG) */
	uint64_t div = clock_inherit || clock_posix ? clock_budget_div_long : CLOCK_BUDGET_DIV;
	if (ct->credit_at && now > ct->credit_at) {
		ct->credit += (int64_t)((now - ct->credit_at) / div);
		if (ct->credit > CLOCK_BUDGET_CAP)
			ct->credit = CLOCK_BUDGET_CAP;
	}
	ct->credit_at = now;
	return ct->credit < 0;
}

/* A signal's cost outside the handler (clock_tick_cost), charged as the handler's time is,
 * whether it gives a sample or is dropped. */
SIGSAFE static void charge_tick(struct clock_thread *ct)
{
	ct->credit -= (int64_t)clock_tick_cost;
	if (ct->credit < -CLOCK_BUDGET_CAP)
		ct->credit = -CLOCK_BUDGET_CAP;
}

/* A sample is done (no step to come): its time is charged to the budget, and the period
 * stretched at once where that spent it (not at the next signal, dropped: a tick more,
 * which costs 70-160 us on a KVM guest). */
SIGSAFE static void sample_done(struct clock_thread *ct)
{
	ct->last_exit = rt_now();
	uint64_t now = ct->sample_at ? clock_cpu_now() : 0;
	if (ct->sample_at && now >= ct->sample_at) {
		ct->credit -= (int64_t)(now - ct->sample_at);
		/* the debt is bounded as the credit is: one costly sample (a thread's first,
		 * 432 ms in the code review's run) stretched the period to 1.7 s, and the
		 * thread doing 75% of the work had no sample in 1.56 s of CPU time */
		if (ct->credit < -CLOCK_BUDGET_CAP)
			ct->credit = -CLOCK_BUDGET_CAP;
		ct->credit_at = now;
		if (ct->credit < 0)
			set_period(ct, -1);
	}
	ct->sample_at = 0;
}

/* A system call whose flags a step cannot own: one that returns through the flags saved in
 * a signal frame (rt_sigreturn; sigreturn for the 32-bit int 0x80), where a step never
 * traps; and one that makes a thread or process (clone, fork, vfork, clone3), whose child
 * starts with the parent's flags, TF included, and would take a trap before its runtime
 * knows it (the child died of SIGTRAP, in a pthread_create under `sonde variance`). */
SIGSAFE static int is_flags_syscall(const struct decode_insn *d, const ucontext_t *uc)
{
	uint64_t nr = (uint64_t)uc->uc_mcontext.gregs[REG_RAX];
	if (d->syscall == DECODE_SYSCALL_64)
		return nr == 15 || nr == 56 || nr == 57 || nr == 58 || nr == 435;
	if (d->syscall == DECODE_SYSCALL_INT80) {
		nr &= 0xffffffffu;
		return nr == 119 || nr == 173 || nr == 2 || nr == 120 || nr == 190 || nr == 435;
	}
	return 0;
}

/* A system call that may block SIGTRAP: rt_sigprocmask (sigprocmask, rt_sigprocmask for
 * int 0x80).  The step's trap comes after it returns; with SIGTRAP blocked by then the
 * kernel forces it and the process dies of SIGTRAP: glibc's pthread_create blocks every
 * signal around its clone, so a sampled thread making threads died (t017b's rt-fdstorm,
 * 1 run in about 85 once its main thread stayed sampled; a loop of pthread_sigmask
 * block-all/restore, 1 run of 3 of 2 s at 0.2 ms, before this).  Whether this call
 * blocks it would mean reading the program's set: any such call ends the sample. */
SIGSAFE static int is_mask_syscall(const struct decode_insn *d, const ucontext_t *uc)
{
	uint64_t nr = (uint64_t)uc->uc_mcontext.gregs[REG_RAX];
	if (d->syscall == DECODE_SYSCALL_64)
		return nr == 14;
	if (d->syscall == DECODE_SYSCALL_INT80)
		return (nr & 0xffffffffu) == 126 || (nr & 0xffffffffu) == 175;
	return 0;
}

/* From the context at a PC: deliver the wanted access, or arm one more step. */
SIGSAFE static void advance(struct rt_thread *t, struct clock_thread *ct, ucontext_t *uc)
{
	struct decode_regs r;
	struct decode_insn first;
	struct found f;

	/* scan fills it unless it gives up */
	first.n_mem = first.pushf = first.sets_tf = first.pushf_image = first.syscall = 0;
	decode_regs_from_ucontext(uc, &r);
	int s = look_ahead(ct, &r, &first, &f);
	if (s == SCAN_FOUND) {
		deliver(t, ct, &f, uc);
		return;
	}
	if (s == SCAN_GIVE_UP) {
		give_up(t, ct, CLOCK_LOST_NO_ACCESS);
		return;
	}
	if (s == SCAN_FAR) {
		give_up(t, ct, CLOCK_LOST_FAR);
		return;
	}
	if (s == SCAN_BUDGET || ct->steps >= CLOCK_MAX_STEPS) {
		give_up(t, ct, CLOCK_LOST_BUDGET);
		return;
	}
	/* The time budget within a sample too, at the default periods (budget_tick), every 4
	 * steps (a CPU clock read each, ~1 us against a step's 15-25 us on a KVM guest): a
	 * sample that has spent the credit it started with, and CLOCK_SAMPLE_SLACK, stops.
	 * Charged only at its end, a sample of 256 steps (5 ms) owed more than the debt's cap
	 * forgives, and a branchy loop in registers still ran 1.8x under sonde mem with every
	 * tick it could take budgeted.  (A per-thread event stretches its period instead, and
	 * its samples finish: at a short period the credit is a few steps') */
	if ((clock_inherit || clock_posix) && ct->sample_at && ct->steps && !(ct->steps & 3)) {
		uint64_t now = clock_cpu_now();
		if (now > ct->sample_at &&
		    (int64_t)(now - ct->sample_at) > ct->credit + CLOCK_SAMPLE_SLACK) {
			give_up(t, ct, CLOCK_DROP_TIME_BUDGET);
			return;
		}
	}
	/* The program may block SIGTRAP (a thread that blocks every signal): a trap then
	 * cannot be delivered, the kernel forces it and the process dies.  Look-ahead only. */
	if (sigismember(&uc->uc_sigmask, SIGTRAP) == 1 || is_mask_syscall(&first, uc)) {
		give_up(t, ct, CLOCK_LOST_TRAP_BLOCKED);
		return;
	}
	if (is_flags_syscall(&first, uc)) {
		give_up(t, ct, CLOCK_LOST_FLAGS);
		return;
	}
	if (first.sets_tf) {
		/* popf loads the flags from the stack, TF included: put TF in the image it is
		 * about to pop so the step survives (the trap handler clears it again); iret and
		 * anything else that rewrites the flags cannot be stepped */
		if (!first.pushf_image) {
			give_up(t, ct, CLOCK_LOST_FLAGS);
			return;
		}
		uint16_t *img = (uint16_t *)(uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
		*img |= (uint16_t)CLOCK_EFLAGS_TF;
	}
	ct->pending = first.n_mem;
	ct->pushf = first.pushf;
	ct->stepping = 1;
	uc->uc_mcontext.gregs[REG_EFL] |= (greg_t)CLOCK_EFLAGS_TF;
}

/*
 * One signal of the event, from either path (source-clock.h): the sample taken, or dropped
 * for its cause.  async: the tick came while SIGTRAP was blocked (the inherited event's
 * TRAP_PERF_FLAG_ASYNC), so the context is where it was unblocked, not where it landed.
 */
SIGSAFE static void on_tick(struct rt_thread *t, struct clock_thread *ct, ucontext_t *uc,
			    int async)
{
	t->stats.signals++;
	/* blocked by our handlers (a step sequence, a sample, a watchpoint trap): the
	 * handlers' own time; or by the program, and then late */
	if (async) {
		drop(t, ct, CLOCK_DROP_OWN_TIME);
		return;
	}
	if (ct->stepping) {
		/* With per-thread events the clock is stopped while a sample is stepped: only the
		 * watchdog comes here (or a signal queued before the overflow stopped the
		 * event); the inherited event runs on, and lands on a stepped instruction. */
		if (uc->uc_mcontext.gregs[REG_EFL] & (greg_t)CLOCK_EFLAGS_TF) {
			/* still stepping, slowly: the trap after the next instruction is ours */
			drop(t, ct, CLOCK_DROP_IN_STEP);
			return;
		}
		/* the trap flag vanished (the program left a signal handler that interrupted a
		 * step by siglongjmp, a debugger cleared it): that sample is lost, and the one
		 * taken now is charged from now (the code review: the lost one's start) */
		ct->stepping = 0;
		ct->pushf = 0;
		give_up(t, ct, CLOCK_LOST_TRAP_FLAG);
		if (ct->sample_at)
			ct->sample_at = clock_cpu_now();
	}
	if (t->busy || t->stopped || rt_stopping) {
		drop(t, ct, CLOCK_DROP_BUSY);
		return;
	}
	/* in the runtime's code without busy (an interposer's bookkeeping: track_free,
	 * rt_append_maps_of): its own time, not the program's (the usability review of
	 * 2026-11-27 found them in the code table) */
	if (rt_owns_code((uint64_t)uc->uc_mcontext.gregs[REG_RIP]) &&
	    !(rt_tool && (rt_tool->flags & RT_TOOL_NO_ACCESS))) {	/* (variance maps a
		 * sample in a sonde-cc callback to its caller: runtime_leaf_caller) */
		drop(t, ct, CLOCK_DROP_OWN_TIME);
		return;
	}
	/* The per-thread event kept counting in the last handler (source-clock.h): the
	 * program's own overflow comes a period after the last one, so at least period - (that
	 * handler's CPU time) of CPU time, and of wall time, after the handler returned: over
	 * half a period.  Sooner, it landed in the handler and was held until its return: the
	 * interrupted PC is the last sample's, not a point of the program's own time.  (The
	 * inherited event says so itself: async above.  Its ticks may also come sooner after
	 * a thread's last sample than a period: the copy it runs on may have counted another
	 * thread's time before a context switch swapped them.) */
	if (!clock_inherit && !clock_posix && clock_armed > 1 &&
	    rt_now() - ct->last_exit < clock_period / 2) {
		drop(t, ct, CLOCK_DROP_OWN_TIME);
		return;
	}
	if (rt_tool && (rt_tool->flags & RT_TOOL_NO_ACCESS)) {
		/* the tool wants the context only (variance): no look-ahead, no step, whose
		 * traps would also land inside the instances it measures */
		struct rt_access a = { .ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP],
				       .time = rt_now(), .weight = sample_weight(ct) };
		rt_deliver_access(t, &a, uc, 0);
		return;
	}
	int n = rt_cfg.max_extra_steps;
	int k = n > 1 ? (int)(rt_rand(t) % (uint64_t)n) : 0;
	ct->steps = 0;
	ct->decoded = 0;
	/*
	 * The window of N accesses starts at the instruction before the PC, the last one
	 * retired where it fell through: a load the timer waited behind is that one (the
	 * timer's skid), and with the window from the PC on it was never sampled (the trial of
	 * 2026-11-28: XSBench's index grid read 0% of the samples, 11% of the accesses by
	 * --source inst).  In steady code the window is the same N accesses in a row, one
	 * instruction earlier.  Not with SONDE_EXTRA_STEPS=1 (the next access, as asked),
	 * and for mem only (RT_TOOL_PAST_ACCESS): comm and reuse arm a watch on the sampled
	 * access and expect its own trap to come (the second code review).  Pick k of the N
	 * places: 0 is the instruction before's access, or, where it has none, the last of
	 * the N from the PC; k > 0 the (k-1)th from the PC.  The same windows, and the
	 * backward decode (up to 79 decodes) on one tick in N, not on every one.
	 */
	if (n > 1 && clock_prev && rt_tool && (rt_tool->flags & RT_TOOL_PAST_ACCESS)) {
		struct found f = { .index = 0 };
		if (k == 0 && !decode_prev_access(uc, &f.m, &f.ip)) {
			deliver(t, ct, &f, uc);
			return;
		}
		k = k == 0 ? n - 1 : k - 1;
	}
	ct->remaining = k;
	advance(t, ct, uc);
}

/*
 * A tick of the inherited event or of a POSIX timer: the handlers' time budget (source-
 * clock.h, CLOCK_BUDGET_DIV) as the per-thread events' path keeps it, but by dropping the
 * tick, as neither can stretch its period for one thread.  Without it a thread whose code
 * runs long stretches in registers (a random-number generator's loop: ~100 steps to an
 * access, 2-3 ms of traps a sample on a KVM guest) paid them at every tick: miniGhost's
 * grid set-up, which reseeds gfortran's generator at every point, ran 7.2x slower under
 * sonde mem, a 25-line C loop 17.7x (the trial of 2026-11-29).  A tick in a step
 * sequence is not a new sample (on_tick drops it), so it is not charged here.
 */
SIGSAFE static void budget_tick(struct rt_thread *t, struct clock_thread *ct, ucontext_t *uc,
				int async)
{
	uint64_t now = ct->stepping || async ? 0 : clock_cpu_now();
	if (now && budget_spent(ct, now)) {
		charge_tick(ct);
		t->stats.signals++;
		drop(t, ct, CLOCK_DROP_TIME_BUDGET);
		return;
	}
	if (now) {
		charge_tick(ct);
		ct->sample_at = now;
	}
	on_tick(t, ct, uc, async);
	if (now && !ct->stepping)	/* (a step to come: clock_on_trap, at its end) */
		sample_done(ct);
}

SIGSAFE void clock_on_sample(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	ucontext_t *uc = ucv;
	struct rt_thread *t = rt_self();
	struct clock_thread *ct = t ? t->src : NULL;

	if (ct && clock_posix) {
		/* the thread's CPU-time timer; it runs on by itself (no refresh, no period
		 * to switch: a tick landing in a step sequence is dropped as the inherited
		 * event's are) */
		if (!ct->has_timer || si->si_code != SI_TIMER ||
		    si->si_value.sival_int != CLOCK_TIMER_SIG_VALUE)
			goto out;
		budget_tick(t, ct, uc, 0);
		goto out;
	}
	/* not our event (the program sent this signal itself, or an unprofiled thread) */
	if (!ct || si->si_code <= 0 || si->si_fd != ct->fd)
		goto out;
	uint64_t now = ct->stepping ? 0 : clock_cpu_now();
	/* the period this signal ends (not the watchdog's, in a sample stepped) */
	if (!ct->stepping)
		ct->owed_ns += ct->period_ns ? ct->period_ns : clock_period;
	if (now && budget_spent(ct, now)) {
		/* over the handlers' share: no sample, and none until the credit is back */
		charge_tick(ct);
		t->stats.signals++;
		drop(t, ct, CLOCK_DROP_TIME_BUDGET);
		set_period(ct, -1);
		rt_fd_ioctl(ct->fd, PERF_EVENT_IOC_REFRESH, 1);
		goto out;
	}
	if (now)
		charge_tick(ct);
	if (!ct->stepping)	/* (a sample under way keeps its own) */
		ct->sample_at = now;
	on_tick(t, ct, uc, 0);
	/* One overflow added back per signal: a thread that blocks this signal then holds at
	 * most clock_armed queued signals, not one per period (a full real-time queue makes
	 * the kernel send SIGIO, which kills).  With clock_armed 2 the event is still enabled
	 * and this only adds to its count; with 1 its overflow disabled it and this enables
	 * it again, last, so the handler's own time is not counted.  On the watchdog period
	 * if the sample goes on with steps (clock_on_trap restores it). */
	set_period(ct, ct->stepping);
	/* not for a signal queued before the program dup2'd onto the number (the event is
	 * gone; the file there is the program's): rt_fd_ioctl refuses it */
	rt_fd_ioctl(ct->fd, PERF_EVENT_IOC_REFRESH, 1);
	if (!ct->stepping)
		sample_done(ct);
out:
	errno = saved;
}

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define CLOCK_TRAP_PERF_FLAG_ASYNC 1u	/* TRAP_PERF_FLAG_ASYNC (Linux 6.1 uapi) */

/* si_perf_data, si_perf_type, si_perf_flags follow si_addr in the _sigfault member (glibc
 * 2.36 names none of them; asm-generic/siginfo.h, which does, cannot be included with
 * signal.h). */
SIGSAFE static uint64_t perf_data(const siginfo_t *si)
{
	uint64_t v;
	memcpy(&v, (const char *)&si->si_addr + sizeof(void *), sizeof(v));
	return v;
}

SIGSAFE static uint32_t perf_flags(const siginfo_t *si)
{
	uint32_t v;
	memcpy(&v, (const char *)&si->si_addr + sizeof(void *) + 8 + 4, sizeof(v));
	return v;
}

/* A SIGTRAP that is not our step: what the program would have had without us. */
SIGSAFE static void chain_sigtrap(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *o = &clock_old_sigtrap;

	if (o->sa_flags & SA_SIGINFO) {
		if (o->sa_sigaction)
			o->sa_sigaction(sig, si, uc);
		return;
	}
	if (o->sa_handler == SIG_IGN)
		return;
	if (o->sa_handler != SIG_DFL) {
		o->sa_handler(sig);
		return;
	}
	/* default action: terminate (core) with SIGTRAP; it is blocked until we return */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGTRAP, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGTRAP);
}

SIGSAFE void clock_on_trap(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	ucontext_t *uc = ucv;
	struct rt_thread *t = rt_self();
	struct clock_thread *ct = t ? t->src : NULL;

	if (si->si_code == TRAP_PERF && perf_data(si) == CLOCK_SIG_DATA) {
		/* the inherited event's tick; in a thread the runtime does not profile (not
		 * started yet, made by a raw clone, or ended), nobody's */
		if (ct && clock_inherit)
			budget_tick(t, ct, uc, (perf_flags(si) & CLOCK_TRAP_PERF_FLAG_ASYNC) != 0);
		errno = saved;
		return;
	}
	/* a debug-register trap delivered by attr.sigtrap (watch.h, watch_sigtrap) */
	if (si->si_code == TRAP_PERF &&
	    watch_sigtrap(perf_data(si), (perf_flags(si) & CLOCK_TRAP_PERF_FLAG_ASYNC) != 0, si,
			  ucv)) {
		errno = saved;
		return;
	}
	if (!ct || !ct->stepping || si->si_code != TRAP_TRACE) {
		chain_sigtrap(sig, si, ucv);
		errno = saved;
		return;
	}
	/* first: a watch trap in the stepped instruction had its SIGTRAP merged into this
	 * one (a standard signal); its context is this one, and our step's work below may
	 * re-arm the slot */
	watch_sigtrap_poll(si, ucv);
	uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)CLOCK_EFLAGS_TF;
	ct->stepping = 0;
	ct->steps++;
	t->stats.steps++;
	if (ct->pushf) {
		/* the flags image pushed while we stepped carries our TF: remove it, or a later
		 * popf would start stepping with no one to catch the traps */
		uint16_t *img = (uint16_t *)(uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
		*img &= (uint16_t)~CLOCK_EFLAGS_TF;
		ct->pushf = 0;
	}
	ct->remaining -= ct->pending;
	if (ct->remaining < 0)
		give_up(t, ct, CLOCK_LOST_OVERSHOT);
	else if (t->stopped || rt_stopping)
		give_up(t, ct, CLOCK_LOST_STOPPED);
	else
		advance(t, ct, uc);
	/* the sample is done unless it takes one more step: the clock resumes, at the usual
	 * period counted from here (the event was counting on the watchdog period) */
	if (!ct->stepping) {
		set_period(ct, 0);
		sample_done(ct);
	}
	errno = saved;
}
