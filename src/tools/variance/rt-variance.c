/* SPDX-License-Identifier: MIT */
/*
 * rt-variance.c - the variance tool's runtime client: FVSampler's function instances.
 *
 * A clock sample picks a function on the thread's call stack (a random frame of the
 * frame-pointer chain: the callee of the direct call whose return address the frame
 * holds) and arms an execute breakpoint on its entry.  The breakpoint catches the next
 * instance: its return-address slot (RSP at a hardware breakpoint; the hook's frame in the
 * soft backend) is pushed on the thread's stack of pending instances, the metrics are read
 * (V_call), and one read/write watch on the slot of the innermost pending instance catches
 * its return (V_ret); cost = V_ret - V_call, minus the time spent in our handlers
 * meanwhile.  A return pops the stack and re-arms the watch on the next outer slot (paper,
 * 5.1), so two watch slots serve any depth: one X, one RW.
 *
 * Dead frames: a pending frame left by longjmp (interposed, rt-jump.c: the whole stack is
 * dropped), an exception or a thread's end never returns.  Its slot is dropped when (a) an
 * entry is caught at a slot at or above it (hw: equal slot = a tail call, the outer one is
 * kept), (b) a sample sees the stack pointer above it, or (c) its watch traps on something
 * that is not its return (soft: a store, the next call writing the slot; hw: RIP or RSP not
 * those of the return).  So no instance spans a frame that was not its own.
 *
 * Handler-safe throughout (the hooks run in the sample handler, the trap handler or the
 * instrumented program's call hooks).
 */
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "sonde/openmp.h"
#include "rt/decode-x86.h"
#include "rt/rt.h"
#include "rt/thread.h"
#include "rt/watch.h"
#include "tools/variance/format.h"
#include "rt/sigsafe.h"

#define VAR_STACK 64		/* pending instances per thread */
#define VAR_FRAMES 64		/* frames looked at per sample */
#define VAR_OMP_NEST 4		/* libomp regions started by a thread and open, kept */
#define VAR_TRIES 4		/* frames tried, from a random one on, for a function to pick */

struct var_pending {
	uint64_t slot, ret, fn, start;
	uint32_t ctx;
	uint32_t share;		/* a region call's chance of being timed (region_timed) */
	int64_t v[VAR_NMETRIC];
	int64_t ovh[VAR_NMETRIC];	/* vt->ovh when V_call was read */
};

struct var_region {
	void (*fn)(void *);
	void *data;
	int idx;		/* fn's entry in var_region_fns (region_fn_slot), 0: none */
	/* the program's frames that started the region, innermost first (the master's,
	 * before libgomp's frames, which keep no frame pointer): every team thread's instance
	 * gets this context, not the outlined function alone (the trial of 2026-11-28: HPCG's
	 * SpMV region, run on 4 multigrid levels of 8x different sizes and from CG, read as
	 * one varying function) */
	int ncallers;
	uint64_t callers[VAR_FRAMES];
};

struct var_thread {
	struct var_pending st[VAR_STACK];
	int depth;
	int x_slot, r_slot;		/* watch slots: -1 before the first arm */
	int x_armed;
	int x_ticks;			/* samples seen since the X was armed */
	/* samples an entry armed at once waits here (thread_patience): var_patience, doubled
	 * at each missed pick up to VAR_PATIENCE_MAX times it, back towards it as entries
	 * come; 0 before the first sample */
	int patience;
	uint64_t gate_fn;		/* hw: the X slot is a gate (gate_slot) for this entry */
	uint64_t site;			/* hw: ... the gate is an X at this call (site_of) */
	uint64_t site_ret;		/* the return address the pick was made from, 0: none */
	/* a pick deferred (pick_defer): armed when the pending instance at defer_slot
	 * returns, the return's trap serving as its gate */
	uint64_t defer_fn, defer_slot;
	/* an entry armed at once: the return slot of the frame it was picked from and the
	 * address it held, until a sample sees that frame gone (the pick's patience then
	 * starts again: its function's next call could not come before) */
	uint64_t pick_slot, pick_ret;
	/* the pick (deferred, or armed at that return) was made in its function's own
	 * instance, being measured: any other function's pick replaces it (var_on_access) */
	int weak;
	/* the thread's context switches at its previous sample, and whether it switched
	 * var_close times or more since the one before (slot_idle closes idle slots then) */
	uint64_t csw;
	int switchy;
	/* an arm was refused an event after slot_idle closed one here: keep them open now */
	int keep_open;
	uint64_t seq;
	int64_t ovh[VAR_NMETRIC];	/* metrics spent in our handlers so far */
	int64_t budget_ns, budget_at;	/* bursts: burst_ok */
	int in_burst;			/* the X armed is a burst's (arm_burst) */
	/* regions (region_timed): the thread's budget, and whether it counted itself in
	 * var_reg_threads */
	uint64_t reg_tok_at;
	int64_t reg_tok;
	int reg_counted;
	int in_region;			/* timed region calls open (region_open) */
	/* the libgomp region whose outlined function this thread runs now (var_region_call),
	 * NULL outside one: a sample's frames end at libgomp's, its program's callers are
	 * the region's (region_callers) */
	const struct var_region *region;
	/* regions of LLVM's runtime this thread started and the team has not yet joined
	 * (var_omp_region_begin; a nested region's on top); and the implicit tasks this
	 * thread runs, innermost last, each with the region `region` held before it began
	 * (var_omp_begin sets the task's region, var_omp_end restores that one: a sample in
	 * a nested region is cut at its own outlined function, as libgomp's; the code review
	 * of 2026-11-29 read the outer region 0.0% where the inner one held its samples);
	 * otask's entries past VAR_OMP_NEST are counted, not kept */
	struct var_region omp_reg[VAR_OMP_NEST];
	int omp_nreg;
	struct {
		const void *task;
		const struct var_region *prev;
	} otask[2 * VAR_OMP_NEST];
	uint32_t notask;
	/* a region of LLVM's runtime timed from OMPT's callbacks (var_omp_begin): its
	 * implicit task's data, NULL when none is open here, and the instance */
	const void *omp_task;
	uint32_t omp_depth;
	/* implicit tasks begun on this thread inside the open one and not yet ended (nested
	 * regions: a serialized one reports the same task data as the region around it) */
	uint32_t omp_nest;
	struct var_pending omp_p;
	struct var_rec_stats s;
};

static unsigned var_events = VAR_EV_TIME | VAR_EV_CPU;
/* Samples an armed entry waits for its function before another is picked: a function
 * called less often than once per period still gets caught (SONDE_VARIANCE_PATIENCE). */
static int var_patience = 8;
/* A thread's patience grows to at most this many times var_patience (thread_patience). */
#define VAR_PATIENCE_MAX 16
/* hw: arm an entry in the sampled PC's line behind a gate (gate_slot); SONDE_VARIANCE_GATE=0
 * arms it at once, as before (bench/variance.sh part 8 compares the two) */
static int var_gate = 1;
/* bursts: at an instance's return its function's entry is armed again (weak: the next
 * sample's pick replaces it), while the thread's budget allows: SONDE_VARIANCE_BURST
 * instances a second of its CPU time, measured or burst (0: no bursts) */
static int var_burst = 40;
#define VAR_BURST_KEEP 8	/* instances' worth of budget a thread keeps at most */
/* hw: close a slot's event when it has nothing to watch (watch_release), not only disable
 * it, in a thread that switched at least this many times since its previous sample
 * (slot_idle); SONDE_VARIANCE_CLOSE=0 keeps them open, as before (bench/variance-real.sh
 * compares with VARIANCE_REAL_B) */
static int var_close = 16;
/* OpenMP regions (rt-omp.c, variance_region): calls of a region's outlined function are
 * timed at the runtime's call, no trap, at most SONDE_VARIANCE_REGIONS a second a thread
 * for each function (a random share of them where they come faster), a thread's together
 * at most VAR_REGION_THREAD times that (region_timed); 0: not timed.  Set by var_start,
 * so 0 with any other tool. */
int variance_regions;		/* rt-omp.c's wrappers time regions where > 0 */
#define VAR_REGION_WINDOW0 10000000		/* ns: the first window (region_timed) */
#define VAR_REGION_WINDOW_MAX 1000000000	/* ns: the longest */
#define VAR_REGION_THREAD 20	/* a thread's regions: at most this x variance_regions a second */

static uint64_t env_num(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 0) : def;
}

/*
 * `sonde variance --function NAME`: picks take only these functions (their run-time
 * starts), and a pick waits for its function's call however long (no patience: nothing
 * else is wanted).  SONDE_VARIANCE_ONLY is "DEV:INO:ADDR,ADDR..." (cmd.c), the link-time
 * starts in the executable with that device and inode; in another (a program the target
 * exec'd, a wrapper script's shell) no function is one of them, so nothing is picked.
 * var_nonly: 0 all functions, else the number of var_only (read-only after var_start).
 */
static uint64_t var_only[VAR_ONLY_MAX];
static int var_nonly;
static char var_only_names[400];	/* SONDE_VARIANCE_ONLY_NAMES: for the .proc */

static void only_start(void)
{
	const char *v = getenv("SONDE_VARIANCE_ONLY");
	struct stat st;
	char *end;
	const char *names = getenv("SONDE_VARIANCE_ONLY_NAMES");
	if (!v || !*v)
		return;
	var_nonly = -1;		/* asked: none here unless this is the program */
	strncpy(var_only_names, names && *names ? names : "?", sizeof(var_only_names) - 1);
	unsigned long long dev = strtoull(v, &end, 10), ino = 0;
	if (*end == ':')
		ino = strtoull(end + 1, &end, 10);
	if (*end != ':' || stat("/proc/self/exe", &st) || (unsigned long long)st.st_dev != dev ||
	    (unsigned long long)st.st_ino != ino)
		return;
	uint64_t bias = rt_exe_bias();
	int n = 0;
	for (const char *p = end + 1; *p && n < VAR_ONLY_MAX; p = *end ? end + 1 : end) {
		uint64_t a = strtoull(p, &end, 16);
		if (end == p || (*end && *end != ','))
			break;
		var_only[n++] = a + bias;
	}
	var_nonly = n ? n : -1;
}

static SIGSAFE int only_has(uint64_t fn)
{
	for (int i = 0; i < var_nonly; i++)
		if (var_only[i] == fn)
			return 1;
	return 0;
}

/*
 * The OpenMP runtime's code (libgomp, LLVM's libomp), never picked: its functions are not
 * the program's, the report leaves its frames out of every context (so a row for one had
 * a time share of 0.0%), and with libomp its __kmp_invoke_microtask, under every region
 * of every thread, took 146 of 200 armed entries from vomp's region.  Read-only after
 * var_start.
 */
static struct rt_ranges omp_code;

static int omp_range_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!sonde_openmp_lib(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			rt_ranges_add(&omp_code, info->dlpi_addr + ph->p_vaddr,
				      info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
	}
	return 0;
}

/* SONDE_VARIANCE_REGIONS: 0 (off) .. 10 million a second: beyond, every call is timed
 * anyway.  Read by var_start, and by var_omp_regions when libomp starts its tool before
 * us (a library's constructor that calls OpenMP runs before libsonde.so's). */
static int variance_regions_env(void)
{
	uint64_t regions = env_num("SONDE_VARIANCE_REGIONS", 20);
	return regions > 10000000 ? 10000000 : (int)regions;
}

/* Page faults are counted with -e page-faults only: then the runtime keeps the code its
 * handlers run resident (RT_TOOL_COUNTS_FAULTS), ~60 KB more peak memory (bench/memory.sh
 * variance); without, a handler's first touch of a trimmed page (once a 16 KB granule, a
 * minor fault of about a microsecond) may fall in an instance's time. */
static int var_counts_faults(void)
{
	return (env_num("SONDE_VARIANCE_EVENTS", 0) & VAR_EV_PF) != 0;
}

static int var_start(void)
{
	var_events = (unsigned)env_num("SONDE_VARIANCE_EVENTS", 0) | VAR_EV_TIME | VAR_EV_CPU;
	var_patience = (int)env_num("SONDE_VARIANCE_PATIENCE", 8);
	var_gate = (int)env_num("SONDE_VARIANCE_GATE", 1);
	var_burst = (int)env_num("SONDE_VARIANCE_BURST", 40);
	var_close = (int)env_num("SONDE_VARIANCE_CLOSE", 16);
	variance_regions = variance_regions_env();
	only_start();
	if (var_patience < 1)
		var_patience = 1;
	/* two traps an instance: delivered by attr.sigtrap where the clock source routes it,
	 * half the kernel time of the engine's own signal (watch.h) */
	watch_prefer_sigtrap(1);
	/* the clocks at each trap's handler's start, so that the engine's work before the
	 * hook is left out of the instances with the hook's own (var_trap) */
	if (env_num("SONDE_VARIANCE_STAMP", 1))
		watch_stamp_traps(1);
	/* the trap handler; without it an arm is refused (instances then go unmeasured) */
	watch_start();
	/* function starts, for frames whose call is indirect (none: such frames are skipped) */
	rt_fnmap_load();
	/* the libraries the program was linked with are mapped by now (a runtime dlopen'd
	 * later is not excluded) */
	dl_iterate_phdr(omp_range_cb, NULL);
	return 0;
}

/* hw: what one trap costs outside any handler (watch_trap_cost: the debug exception, the
 * signal, the sigreturn), per metric; 0 with soft traps (calls, no kernel). */
static int64_t var_trap_cost[VAR_NMETRIC];
/* what watch_probe_ns read when that cost was calibrated (0: no scaling) */
static int64_t var_probe_cal;

/*
 * soft: what the metrics' own reads leave in a stretch of the program's time between two
 * handlers (the end read's second half, the next start read's first half), per metric:
 * the median of VAR_READ_PAIRS empty stretches, measured once.  Each call hook's handler
 * opens such a stretch, so an instance holds one for its entry hook and one for each hook
 * that runs within it, subtracted as the traps' cost is on debug registers.  A read of the
 * thread's CPU clock is a system call, 1.2-1.5 us on the KVM guests sonde is developed on:
 * the trial of 2026-11-29 read RSBench's fast_nuclear_W (at most ~50 ns a call) at a median
 * of 1.95-2.3 us of CPU time, its variance that of the reads.
 */
static SIGSAFE void read_metrics(int64_t *v, int start);

#define VAR_READ_PAIRS 33
static int64_t var_read_cost[VAR_NMETRIC];
static int var_read_calibrated;

static void read_cost_calibrate(void)
{
	int64_t d[VAR_NMETRIC][VAR_READ_PAIRS];
	if (__atomic_exchange_n(&var_read_calibrated, 1, __ATOMIC_ACQ_REL))
		return;
	for (int i = 0; i < VAR_READ_PAIRS; i++) {
		int64_t a[VAR_NMETRIC] = { 0 }, b[VAR_NMETRIC] = { 0 };
		read_metrics(a, 0);
		read_metrics(b, 1);
		for (int m = 0; m < VAR_NMETRIC; m++) {	/* insertion: sorted as they come */
			int64_t x = b[m] - a[m] > 0 ? b[m] - a[m] : 0;
			int k = i;
			while (k > 0 && d[m][k - 1] > x) {
				d[m][k] = d[m][k - 1];
				k--;
			}
			d[m][k] = x;
		}
	}
	for (int m = 0; m < VAR_NMETRIC; m++)	/* (counts of events: none in a stretch) */
		var_read_cost[m] = m == VAR_M_TIME || m == VAR_M_CPU ? d[m][VAR_READ_PAIRS / 2] : 0;
}

static int var_thread_start(struct rt_thread *t)
{
	struct var_thread *vt = arena_alloc(&t->arena, sizeof(*vt));
	static int only_said;

	/* --function's names in the .proc at once, not only at the process's end: a killed
	 * run's report says them too (the .proc is written after var_start) */
	if (var_nonly && !__atomic_exchange_n(&only_said, 1, __ATOMIC_RELAXED))
		rt_proc_append("only_functions", var_only_names);

	if (vt) {
		vt->x_slot = vt->r_slot = -1;
		/* Touch it now, so that no handler takes a page fault on it inside an
		 * instance being measured. */
		memset(vt, 0, sizeof(*vt));
		vt->x_slot = vt->r_slot = -1;
	}
	t->tool = vt;
	/* measured in the first thread to start, the same value after */
	if (vt && env_num("SONDE_VARIANCE_CALIBRATE", 1)) {
		watch_call_cost(t, &var_trap_cost[VAR_M_TIME], &var_trap_cost[VAR_M_CPU],
				&var_probe_cal);
		if (watch_backend() == WATCH_BACKEND_SOFT)	/* (its hooks' reads only) */
			read_cost_calibrate();
	}
	return 0;
}

/*
 * The metrics now, for a handler's start (`start`: it ends a stretch of the program's
 * time) or its end (it begins one).  The two clocks cannot be read at once, and the
 * thread's CPU clock counts as run a gap between the two reads (the host took the vCPU,
 * or an interrupt ran): bench/clock-pairs.sh, time then CPU time every ~10 us on this VM,
 * 263 of 369,338 reads put 2-127 us more CPU time than time in the stretch before, and the
 * next stretch as much less.  So CPU time is read inside time: last at a stretch's start,
 * first at its end (0 of 352,273 over); a stretch never holds more CPU time than time.
 * Read in one order at both ends, an instance now and then held 20-77 us more CPU time
 * than time (t815).
 */
static SIGSAFE void read_metrics(int64_t *v, int start)
{
	struct timespec ts;

	if (!start)
		v[VAR_M_TIME] = (int64_t)rt_now();
	if (!rt_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		v[VAR_M_CPU] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (start)
		v[VAR_M_TIME] = (int64_t)rt_now();
	if (var_events & (VAR_EV_PF | VAR_EV_CSW)) {
		struct rusage ru;
		if (!getrusage(RUSAGE_THREAD, &ru)) {
			v[VAR_M_PF] = ru.ru_minflt + ru.ru_majflt;
			v[VAR_M_CSW] = ru.ru_nvcsw + ru.ru_nivcsw;
		}
	}
}

/* A handler ends: add what it cost since `m0` (read at its start) to the thread's
 * overhead, so that no instance is charged for it (counters "paused" in handlers). */
static SIGSAFE void handler_end(struct var_thread *vt, const int64_t *m0, int64_t *m1)
{
	int64_t tmp[VAR_NMETRIC] = { 0 };

	if (!m1) {
		m1 = tmp;
		read_metrics(m1, 0);
	}
	for (int m = 0; m < VAR_NMETRIC; m++)
		vt->ovh[m] += m1[m] - m0[m];
	vt->s.handler_ns += (uint64_t)(m1[VAR_M_TIME] - m0[VAR_M_TIME]);
	vt->s.handler_cpu_ns += (uint64_t)(m1[VAR_M_CPU] - m0[VAR_M_CPU]);
}

/* The kernel's speed now, for kernel_cost: watch_probe_ns, within 3/4 and twice the
 * calibration's probe (a probe an interrupt stretched does not double a cost); 0 with no
 * calibrated probe (the cost as calibrated). */
static SIGSAFE int64_t kernel_speed(struct var_thread *vt)
{
	if (!var_probe_cal)
		return 0;
	int64_t p = watch_probe_ns();

	if (p < var_probe_cal * 3 / 4)
		p = var_probe_cal * 3 / 4;
	if (p > var_probe_cal * 2)
		p = var_probe_cal * 2;
	vt->s.probes++;
	vt->s.probe_sum_ns += (uint64_t)p;
	return p;
}

/* Add `halves` halves of a signal's calibrated kernel time (var_trap_cost), scaled by the
 * kernel's speed `probe` (kernel_speed; 0: as calibrated), to what the thread's handlers
 * cost, so that the instances pending over it do not count it.  The cost moves with the
 * kernel's speed, which on KVM guests changes for 10-100 ms at a time (watch.h,
 * watch_probe_ns): calibrated at 14.7 us in a CI run whose traps cost ~19, every instance
 * kept 4-5 us of them. */
static SIGSAFE void kernel_cost(struct var_thread *vt, int halves, int64_t probe)
{
	for (int m = 0; m < VAR_NMETRIC; m++) {
		int64_t c = var_trap_cost[m];

		if (probe)
			c = c * probe / var_probe_cal;
		vt->ovh[m] += c * halves / 2;
	}
}

static SIGSAFE void note_err(struct var_thread *vt, int err)
{
	vt->s.arm_failures++;
	vt->s.watch_errno = -err;
	/* An event closed by slot_idle must be opened again, and the kernel may refuse: the
	 * program or a debugger holds the thread's debug registers (ENOSPC, the review's
	 * bp.c), or its descriptors run out under a low RLIMIT_NOFILE (EMFILE, fdp.c).  An
	 * event kept open is never refused: after one such refusal this thread stops
	 * closing (the engine asks the kernel again for the one it lost, watch-sig.c
	 * cap_lower). */
	if (vt->s.closes && (err == -ENOSPC || err == -EMFILE || err == -ENFILE || err == -ENOMEM))
		vt->keep_open = 1;
}

/*
 * A slot of ours has nothing to watch: disable its event, or close it.  With
 * OMP_WAIT_POLICY=passive, LULESH's two threads switch ~40,000 times a second (at every
 * region's barrier), and each switch of a thread with breakpoint events costs it: on this
 * VM ~0.6 us a switch with its events disabled, ~0.15 us once they are closed, 1.2-1.7 us
 * with one or two enabled (bench/watch-switch.sh).  A third of LULESH's samples found both
 * slots idle (the instance returned, no pick yet) and over half the X waiting with the R
 * idle.  But the next arm then opens an event, ~8 us with its close where a MODIFY is 2-3
 * (a program that hardly switches, `calls` built by gcc: 17 -> 30 us of handler CPU time
 * an event, 1.03x -> 1.08x of CPU time, 16:26 UTC, load 23): so only in a thread that
 * switched var_close times or more since its previous sample (switchy), ~10 us of
 * disabled events a sample period, more than an open and a close.
 */
static SIGSAFE void slot_idle(struct rt_thread *t, struct var_thread *vt, int *slot)
{
	if (*slot < 0)
		return;
	if (!vt->switchy || vt->keep_open) {
		watch_disarm(t, *slot);
		return;
	}
	/* -EAGAIN/-EDEADLK: the set is busy, the event still open: the slot stays ours */
	if (watch_release(t, *slot))
		return;
	*slot = -1;
	vt->s.closes++;
}

/* The sample: has the thread switched var_close times or more since its previous one? */
static SIGSAFE void note_switches(struct var_thread *vt)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return;
	uint64_t csw = (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
	vt->switchy = csw - vt->csw >= (uint64_t)var_close;
	vt->csw = csw;
}

/* Watch the innermost pending instance's slot, or nothing when none is pending.  A slot
 * that no longer holds the instance's return address belongs to another frame now: the
 * instance is dead (an exception or a jump left it), dropped. */
static SIGSAFE void rearm_return(struct rt_thread *t, struct var_thread *vt)
{
	while (vt->depth && *(const uint64_t *)(uintptr_t)vt->st[vt->depth - 1].slot !=
				    vt->st[vt->depth - 1].ret) {
		vt->depth--;
		vt->s.stale++;
	}
	if (!vt->depth) {
		slot_idle(t, vt, &vt->r_slot);
		return;
	}
	struct watch_req r = { .addr = vt->st[vt->depth - 1].slot, .len = 8, .type = WATCH_RW,
			       .flags = WATCH_CALLS, .policy = WATCH_REFUSE };
	int err = watch_rearm(t, vt->r_slot, &r);

	if (err >= 0) {
		/* An arm takes an empty slot: the X slot, if it had fired, is now ours. */
		if (err != vt->r_slot && err == vt->x_slot)
			vt->x_slot = -1;
		vt->r_slot = err;
		return;
	}
	/* The innermost pending instance cannot be watched: drop it, try the next. */
	note_err(vt, err);
	vt->depth--;
	vt->s.stale++;
	rearm_return(t, vt);
}

/* Drop pending instances whose slot is below `sp` (their frames are gone). */
static SIGSAFE int drop_below(struct var_thread *vt, uint64_t sp)
{
	int n = 0;

	while (vt->depth && vt->st[vt->depth - 1].slot < sp) {
		vt->depth--;
		n++;
	}
	vt->s.stale += (uint64_t)n;
	return n;
}

static SIGSAFE int readable_code(struct rt_thread *t, uint64_t ret)
{
	/* Return addresses inside the stack or the runtime are not program code. */
	return ret >= 4096 + 5 && !(ret >= t->stack_lo && ret < t->stack_hi) &&
	       !rt_owns_address(ret);
}

/* Does an indirect call (FF /2: through a register or memory) end at `ret`?  Its length
 * (from the FF: a REX prefix before it does not change where the FF is), 0 if not. */
static SIGSAFE int indirect_call_before(uint64_t ret)
{
	uint8_t p[8];

	if (ret < 4096 + 8 || decode_read_code(ret - 8, p, 8) != 8)
		return 0;
	for (int len = 2; len <= 7; len++) {
		const uint8_t *c = p + 8 - len;		/* c[0] = FF, c[1] = ModRM */
		if (c[0] != 0xff || ((c[1] >> 3) & 7) != 2)
			continue;
		int mod = c[1] >> 6, rm = c[1] & 7, need;
		if (mod == 3)
			need = 2;
		else if (mod == 0 && rm == 5)
			need = 6;				/* [rip + disp32] */
		else if (rm == 4)				/* SIB */
			need = 3 + (mod == 1 ? 1 : mod == 2 ? 4 : (c[2] & 7) == 5 ? 4 : 0);
		else
			need = 2 + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
		if (len == need)
			return len;
	}
	return 0;
}

/*
 * Call sites.  A function called from several places, each its own context: a pick arms
 * its entry and measures its next call, from wherever it comes.  Where the sampled context
 * makes long calls and another short frequent ones, the samples fall in the long ones and
 * the next call is mostly a short one: f called 200 times from a (1.7 ms each, 94% of the
 * time) and 1,800 from b (17 us) got 1 instance in main > a > f and 60 in main > b > f.
 * So a function seen entered from a call other than the one its pick was made from is
 * marked (site_mark), and its later picks arm the sampled frame's call instruction first
 * (site_of), the entry only when that call is made (on_gate): the instance is the picked
 * context's, and the contexts get instances as the samples fall in them.  A function
 * called from one place pays no second trap.  hw only (an X at any instruction).
 */
#define VAR_SITE_FNS 512
static uint64_t var_multi[VAR_SITE_FNS];	/* functions entered from two calls */

/* Whether fn is in var_multi (add: put it there if not, when there is room). */
static SIGSAFE int site_find(uint64_t fn, int add)
{
	for (unsigned i = 0, h = (unsigned)(fn * 0x9e3779b97f4a7c15ull >> 55); i < 16; i++) {
		uint64_t *e = &var_multi[(h + i) % VAR_SITE_FNS], none = 0;
		uint64_t cur = __atomic_load_n(e, __ATOMIC_RELAXED);
		if (cur == fn)
			return 1;
		if (!cur && !add)
			return 0;
		if (!cur && (__atomic_compare_exchange_n(e, &none, fn, 0, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED) || none == fn))
			return 1;	/* (another function took it meanwhile: the next) */
	}
	return 0;
}

static SIGSAFE void site_mark(uint64_t fn)
{
	site_find(fn, 1);
}

static SIGSAFE int site_multi(uint64_t fn)
{
	return site_find(fn, 0);
}

/* The call instruction that returns to `ret`: a direct call of fn (or of its PLT stub), or
 * an indirect call; 0 if none is seen, or where the byte before it may be a prefix (REX,
 * addr32: -fno-plt's `67 e8`, `41 ff d3` through r11): an execute breakpoint fires only on
 * an instruction's first byte, and which byte starts it cannot be told backwards (the
 * code review of 2026-11-29: a -fno-plt build got 1 instance where 62 before).  The entry
 * is armed then, as for a function called from one place. */
static SIGSAFE uint64_t site_of(uint64_t fn, uint64_t ret)
{
	uint64_t target = decode_call_target(ret), site = 0;
	int len;
	if (target && (target == fn || decode_plt_target(target) == fn))
		site = ret - 5;
	else if ((len = indirect_call_before(ret)))
		site = ret - (uint64_t)len;
	uint8_t b;
	if (!site || decode_read_code(site - 1, &b, 1) != 1 || (b >= 0x40 && b <= 0x4f) ||
	    b == 0x66 || b == 0x67 || b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36 ||
	    b == 0x64 || b == 0x65 || b == 0xf2 || b == 0xf3)
		return 0;
	return site;
}

/*
 * The return address of a leaf that keeps no frame pointer (gcc's default for leaves,
 * even with -fno-omit-frame-pointer), 0 if there is none to see: the word at RSP, taken
 * only when it returns from a call to the leaf's function (direct, by the symbol table)
 * or from an indirect call, and is not what the frame-pointer chain gives first.  In a
 * prologue that pushed RBP and did not move RSP into it yet, the word above (the word at
 * RSP is then RBP: gate_slot), else the function's caller was missing from its path.
 */
static SIGSAFE uint64_t leaf_ret(struct rt_thread *t, uint64_t leaf, uint64_t sp, uint64_t fp)
{
	uint64_t lo = t->stack_lo, hi = t->stack_hi;

	if (!lo || sp < lo || sp + 16 > hi || (sp & 7))
		return 0;
	uint64_t v = *(const uint64_t *)(uintptr_t)sp;
	if (v == fp && fp)
		v = ((const uint64_t *)(uintptr_t)sp)[1];
	if (!readable_code(t, v))
		return 0;
	if (fp >= sp && fp + 16 <= hi && !(fp & 7) && ((const uint64_t *)(uintptr_t)fp)[1] == v)
		return 0;		/* the chain has it */
	uint64_t fn = rt_fn_start(leaf), callee = decode_call_target(v);
	if (fn && callee == fn)
		return v;
	return !callee && fn && indirect_call_before(v) ? v : 0;
}

/* The frames a context keeps: --max-depth's, at most VAR_FRAMES. */
static SIGSAFE int max_frames(void)
{
	return rt_cfg.max_depth > 0 && rt_cfg.max_depth < VAR_FRAMES ? rt_cfg.max_depth
								     : VAR_FRAMES;
}

/*
 * The calling context from the frame-pointer chain (programs built by sonde-cc keep frame
 * pointers; the chain stops at the first frame outside the thread's stack): ips[0] = leaf,
 * then the return addresses from `ret0` (0: none) and from the chain starting at `fp`,
 * runtime frames left out.  Cheaper than the runtime's general unwinder, which matters
 * here: it runs at every sample and every entry.
 */
static SIGSAFE int fp_ips(struct rt_thread *t, uint64_t leaf, uint64_t ret0, uint64_t fp,
			  uint64_t sp, uint64_t *ips)
{
	int n = 0, max = max_frames();
	uint64_t lo = t->stack_lo ? t->stack_lo : sp, hi = t->stack_hi ? t->stack_hi : sp + (1u << 23);

	ips[n++] = leaf;
	if (!ret0 && leaf)
		ret0 = leaf_ret(t, leaf, sp, fp);
	if (ret0 && readable_code(t, ret0))
		ips[n++] = ret0;
	while (n < max && fp >= lo && fp + 16 <= hi && !(fp & 7) && fp >= sp) {
		const uint64_t *f = (const uint64_t *)(uintptr_t)fp;
		if (readable_code(t, f[1]))
			ips[n++] = f[1];
		if (f[0] <= fp)
			break;
		fp = f[0];
	}
	return n;
}

static SIGSAFE uint32_t fp_context(struct rt_thread *t, uint64_t leaf, uint64_t ret0,
				   uint64_t fp, uint64_t sp)
{
	uint64_t ips[VAR_FRAMES + 2];
	return ctx_intern(t, ips, fp_ips(t, leaf, ret0, fp, sp, ips));
}

/* Does `v` look like a return address: code of the program that follows a call? */
static SIGSAFE int ret_like(struct rt_thread *t, uint64_t v)
{
	return readable_code(t, v) && (decode_call_target(v) || indirect_call_before(v));
}

/*
 * hw: an execute breakpoint slows down every instruction fetched from its 64-byte line,
 * not only the one it is on: 13x for a loop in that line on this machine (AMD EPYC, the
 * Linux 6.18 VM; a breakpoint 64 bytes away, none), bench/variance.sh part 7.  Armed on
 * the entry of the function a sample interrupted, whose loop is so often in the same line
 * (a small leaf), it slowed the rest of that instance: `mix` built by gcc spent ~290 us of
 * CPU time per measured instance there, most of its 7% (the traps and handlers ~40 us).
 * So when the sample's PC is in the line of the entry to arm, the X slot first holds a
 * gate: a read/write watch, which costs nothing until it traps, on the return slot of the
 * interrupted function, and the entry is armed when that slot is read (the return, or
 * the pop before it).  Which instance is caught does not change (the next one to start,
 * which cannot start before this one ends) save with recursion, where the gate waits for
 * the interrupted level's return.  The slot: the word at RSP if it holds a return
 * address (a leaf that pushed nothing: gcc's frameless leaves), the word above it in a
 * prologue that pushed RBP and did not move RSP into it yet, else the frame's at RBP + 8.
 * 0 if none holds one: the entry is then armed at once, as before.  A slot at or above the
 * innermost pending instance's is no gate (defer_slot).
 */
static SIGSAFE uint64_t gate_slot(struct rt_thread *t, uint64_t sp, uint64_t fp)
{
	uint64_t lo = t->stack_lo, hi = t->stack_hi;

	if (!lo || sp < lo || sp + 16 > hi || (sp & 7))
		return 0;
	const uint64_t *s = (const uint64_t *)(uintptr_t)sp;
	if (ret_like(t, s[0]))
		return sp;
	/* the prologue, between push %rbp and mov %rsp,%rbp: RBP is still the caller's (the
	 * word just pushed), RBP + 8 the caller's slot, the function's is above the push */
	if (s[0] == fp)
		return ret_like(t, s[1]) ? sp + 8 : 0;
	/* a frame of its own: RBP at or above RSP, and the caller's RBP saved at [RBP] is a
	 * stack address above it (else RBP is not this function's frame: arm at once) */
	if (fp >= sp && fp + 16 <= hi && !(fp & 7)) {
		const uint64_t *f = (const uint64_t *)(uintptr_t)fp;
		if (f[0] > fp && f[0] < hi && ret_like(t, f[1]))
			return fp + 8;
	}
	return 0;
}

/*
 * The gate's slot `gate` is at or above the innermost pending instance's: RBP + 8 was
 * the sampled function's caller's (a leaf that pushed registers and no frame), or the PC is
 * in a leaf being measured that shares the entry's line (the sampled function's own
 * instance being measured is a self-pick, which var_on_access defers before this).  A
 * gate there would trap with the return watch on the same access, and an entry armed at
 * once sat in the line of the loop being measured until the instance ended: 12x for a
 * 25 ms function whose loop shares its entry's line, measured and run.  So the pick waits
 * for the return of the pending instance at `gate` (the innermost if none is there), whose
 * trap arms it (on_slot): no trap more.
 */
static SIGSAFE uint64_t defer_slot(const struct var_thread *vt, uint64_t gate)
{
	if (!vt->depth || gate < vt->st[vt->depth - 1].slot)
		return 0;
	for (int i = vt->depth - 1; i >= 0; i--)
		if (vt->st[i].slot == gate)
			return gate;
	return vt->st[vt->depth - 1].slot;
}

/* Put `r` in the X slot (an X or a gate). */
static SIGSAFE int arm_x(struct rt_thread *t, struct var_thread *vt, const struct watch_req *r)
{
	int err = watch_rearm(t, vt->x_slot, r);

	if (err < 0) {
		note_err(vt, err);
		return err;
	}
	if (err != vt->x_slot && err == vt->r_slot)
		vt->r_slot = -1;	/* it was idle: no instance pending */
	vt->x_slot = err;
	vt->x_armed = 1;
	vt->x_ticks = 0;
	vt->in_burst = 0;
	return 0;
}

/*
 * An instance returned at thread CPU time `cpu`: may its function's entry be armed again
 * (a burst)?  The thread's budget grows by its CPU time (up to VAR_BURST_KEEP instances'
 * worth) and each instance, picked or burst, spends 1/var_burst s of it; a burst needs one
 * instance's worth left.  So bursts fill a thread's instances up to var_burst a CPU second
 * where its picks give fewer (LULESH: ~4 a second a thread, its functions called once a
 * region, each pick waiting for the next region), and add none where they give more (a
 * call-heavy loop, an instance nearly every sample): their cost stays within var_burst
 * instances a second (~35 us each here, 0.14% of a CPU at 40).
 */
static SIGSAFE int burst_ok(struct var_thread *vt, int64_t cpu)
{
	if (var_burst <= 0)
		return 0;
	int64_t per = 1000000000 / var_burst;

	if (vt->budget_at && cpu > vt->budget_at) {
		vt->budget_ns += cpu - vt->budget_at;
		if (vt->budget_ns > VAR_BURST_KEEP * per)
			vt->budget_ns = VAR_BURST_KEEP * per;
	}
	vt->budget_at = cpu;
	vt->budget_ns -= per;
	return vt->budget_ns >= per;
}

/* A burst: the entry of `fn`, whose instance just returned, armed again, weak (the next
 * sample's pick replaces it, counted as yielded, not missed). */
static SIGSAFE void arm_burst(struct rt_thread *t, struct var_thread *vt, uint64_t fn)
{
	struct watch_req r = { .addr = fn, .len = 8, .type = WATCH_X, .policy = WATCH_REFUSE };

	if (arm_x(t, vt, &r))
		return;
	vt->weak = 1;
	vt->gate_fn = 0;
	vt->site = 0;
	vt->site_ret = 0;
	vt->pick_slot = 0;
	vt->in_burst = 1;
	vt->s.burst_armed++;
}

/*
 * A sample in the runtime's own code (a load/store callback of sonde-cc, called by the
 * program at every access): the program's function that called it is the one the sample
 * stands for.  Its return address is the word at RSP (the callback's first instruction,
 * its `ret`) or above it (after its push of RBP); 0 if neither is one.  Without it, in the
 * instructions where the callback's RBP is still its caller's, the caller's own frame was
 * taken for the leaf's and the caller never picked: with the callbacks' fast path cut to
 * one load (inst_callbacks_line), vomp's region took 73 picks of 885 samples, 649 of them
 * with no frame to pick (t809: 74 of 200 instances, where it had 170).
 */
static SIGSAFE uint64_t runtime_leaf_caller(struct rt_thread *t, uint64_t pc, uint64_t sp)
{
	uint64_t lo = t->stack_lo, hi = t->stack_hi;

	if (!rt_owns_address(pc) || !lo || sp < lo || sp + 16 > hi || (sp & 7))
		return 0;
	const uint64_t *s = (const uint64_t *)(uintptr_t)sp;
	for (int i = 0; i < 2; i++)
		if (ret_like(t, s[i]))
			return s[i];
	return 0;
}

/*
 * Patience.  A fixed one gave up every function whose calls come further apart than it
 * (8 samples, 32 ms at the default period): t813's two 25 ms functions, called in turn,
 * were each caught by picks made in the other's instance and, on a machine 1.8x slower
 * (the CI's: 45 ms instances), never, since a pick made in an instance waits past the
 * next call of the other function only (0 entries of 41 picks; SONDE_VARIANCE_PATIENCE=4
 * gives the same here).  And with no instance measured no self-pick is deferred, so
 * nothing ever started.  Now each missed pick doubles the thread's patience, up to
 * VAR_PATIENCE_MAX times var_patience, and each entry sets it to twice the wait that entry
 * took (never under var_patience): a thread whose functions come often keeps the short
 * one.  (An entry first brought it back only to the larger of 3/4 of it and twice that
 * wait: on LULESH -s 70 it stayed high, fewer picks, 68 instances against 78 and 1.046x
 * CPU against 1.024x, bench/variance-real.sh, doc/sonde-variance.md; back to the base
 * at once, t813's alternating 25 ms functions missed again under load: 9 and 2 instances
 * in a make check beside another.)  Only a pick whose wait counted from its frame's return (or that
 * came from no known frame, or behind a gate) counts: a pick of a driver, whose frame is
 * live all along, tells nothing of how far apart calls are, and grew the patience of a
 * thread that picked its driver now and then until it spent most of its samples waiting
 * (t819's vleaf: a thread with 0 instances in 1 run of 5).
 */
static SIGSAFE int thread_patience(struct var_thread *vt)
{
	/* --function: the longest patience from the start (nothing else is wanted; a pick
	 * of one asked function still expires, so that another's can come: two asked, the
	 * first called once, starved the second) */
	if (var_nonly)
		return var_patience * VAR_PATIENCE_MAX;
	if (vt->patience < var_patience)
		vt->patience = var_patience;
	return vt->patience;
}

static SIGSAFE void patience_missed(struct var_thread *vt)
{
	int p = thread_patience(vt);

	vt->s.missed++;
	vt->patience = p < var_patience * (VAR_PATIENCE_MAX / 2) ? 2 * p : var_patience * VAR_PATIENCE_MAX;
}

static SIGSAFE void patience_entry(struct var_thread *vt)
{
	int w = 2 * vt->x_ticks;

	vt->patience = w > var_patience ? w : var_patience;
}

/* The X slot's pick is replaced: count what it was. */
static SIGSAFE void count_replaced(struct rt_thread *t, struct var_thread *vt)
{
	struct watch_slot_info si;

	if (vt->defer_fn) {
		vt->s.deferred_expired++;
		vt->defer_fn = 0;
	}
	if (!vt->x_armed || watch_slot_get(t, vt->x_slot, &si) || !si.armed)
		return;
	if (vt->gate_fn && !vt->site)
		vt->s.gates_expired++;
	else if (vt->weak)
		vt->s.yielded++;
	else if (vt->pick_slot)
		vt->s.missed++;	/* its frame never returned meanwhile: a driver, no evidence */
	else
		patience_missed(vt);
}

/* Is an instance pending (being measured) at return slot `slot`? */
static SIGSAFE int pending_at(const struct var_thread *vt, uint64_t slot)
{
	for (int i = vt->depth - 1; i >= 0; i--)
		if (vt->st[i].slot == slot)
			return 1;
	return 0;
}

/* Outlined functions of the OpenMP regions timed by variance_region (rt-omp.c), never
 * picked: every call of theirs is offered there, and a picked one was timed twice (vomp:
 * 288 picks of its region beside 395 regions).  Open addressing, added to by the region's
 * master before its team runs it; once full (VAR_REGION_FNS functions), a region's
 * function is not added: its calls are timed under one share with no function's
 * (region_timed, idx 0: all, within the thread's budget), and it may be picked too (not
 * counted). */
#define VAR_REGION_FNS 1024
static uint64_t var_region_fns[VAR_REGION_FNS];

/* fn's entry in var_region_fns, added if `add`: its index + 1, 0 if it has none. */
static SIGSAFE int region_fn_slot(uint64_t fn, int add)
{
	for (unsigned i = 0, h = (unsigned)((fn >> 4) * 2654435761u); i < VAR_REGION_FNS; i++) {
		unsigned k = (h + i) % VAR_REGION_FNS;
		uint64_t *e = &var_region_fns[k];
		uint64_t v = __atomic_load_n(e, __ATOMIC_ACQUIRE);
		if (v == fn)
			return (int)k + 1;
		if (v)
			continue;
		if (!add)
			return 0;
		uint64_t zero = 0;
		if (__atomic_compare_exchange_n(e, &zero, fn, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
		    zero == fn)
			return (int)k + 1;
	}
	return 0;
}

/* The function that candidate `i` of a sample stands for (var_on_access), 0 if none of
 * ours: the callee of the call that cand[i] returns from, else the function that holds
 * inner[i] (the executable's symbol table), *by_pc set when that was the sample's PC. */
static SIGSAFE uint64_t cand_fn(struct rt_thread *t, uint64_t cand, uint64_t inner, int *by_pc)
{
	uint64_t fn = decode_call_target(cand);

	*by_pc = 0;
	if (fn && rt_fn_start(fn) != fn) {	/* not a function of ours: a PLT stub? */
		uint64_t via = decode_plt_target(fn);	/* (a code read: a system call) */
		fn = via ? via : fn;
	}
	if (!fn && inner) {
		fn = rt_fn_start(inner);
		*by_pc = 1;
		/* main, called once by libc's start (an indirect call): an execute breakpoint
		 * on it never fires, and a soft one slows every call hook while it waits
		 * (calls workload: 2x) */
		if (fn && fn == rt_fn_main())
			fn = 0;
	}
	if (fn && (rt_owns_address(fn) || rt_ranges_has(&omp_code, fn) || !readable_code(t, fn) ||
		   (variance_regions && region_fn_slot(fn, 0))))
		fn = 0;
	return fn;
}

/* The pick waits for the return of the pending instance at `slot` (in the X slot
 * meanwhile: nothing, an old pick there would be renewed from it), which arms it
 * (arm_deferred).  weak: a self-pick (var_on_access). */
static SIGSAFE void pick_defer(struct rt_thread *t, struct var_thread *vt, uint64_t fn,
			       uint64_t slot, int weak)
{
	if (vt->x_armed)
		slot_idle(t, vt, &vt->x_slot);
	vt->x_armed = 0;
	vt->x_ticks = 0;
	vt->gate_fn = 0;
	vt->site = 0;
	vt->site_ret = 0;
	vt->pick_slot = 0;
	vt->defer_fn = fn;
	vt->defer_slot = slot;
	vt->weak = weak;
	vt->s.picks++;
	vt->s.deferred++;
}

/* Pick `fn`, from a frame whose return slot is `own` (0: unknown): arm its entry, or a gate
 * when `gate` (the sample's PC is in the entry's line: gate_slot's slot, 0 if none) */
static SIGSAFE void pick_arm(struct rt_thread *t, struct var_thread *vt, uint64_t fn,
			     uint64_t own, uint64_t gate)
{
	struct watch_req r = { .addr = fn, .len = 8, .type = WATCH_X, .policy = WATCH_REFUSE };
	uint64_t ds = gate ? defer_slot(vt, gate) : 0;

	count_replaced(t, vt);
	if (ds) {
		pick_defer(t, vt, fn, ds, 0);
		return;
	}
	if (gate) {
		r.addr = gate;
		r.type = WATCH_RW;
	}
	/* the frame's return address, with no gate: the call it returns to (site_of) */
	uint64_t ret = !gate && own ? *(const uint64_t *)(uintptr_t)own : 0;
	uint64_t site = ret && site_multi(fn) ? site_of(fn, ret) : 0;
	if (site)
		r.addr = site;
	if (arm_x(t, vt, &r))
		return;
	vt->gate_fn = gate || site ? fn : 0;
	vt->site = site;
	vt->site_ret = ret;
	vt->s.sited += site != 0;
	vt->weak = 0;
	vt->pick_slot = gate ? 0 : own;
	/* read after the arm, and only with no gate: a gate (a RW watch) is on its own slot
	 * (no pick_slot: its trap is that frame's return), and the X slot replaced may have
	 * held a gate on this same slot: a read while either is armed traps once more inside
	 * the handler (one an instance in `mix`, 13 -> 20 us of handler CPU time an event) */
	vt->pick_ret = vt->pick_slot ? *(const uint64_t *)(uintptr_t)own : 0;
	vt->s.picks++;
	if (gate)
		vt->s.gated++;
}

/*
 * The sample: clean dead pending frames, then pick one frame of the chain at random and
 * arm an execute breakpoint on its function's entry (replacing one that never fired).
 *
 * Long instances.  The sample after an entry falls in the instance just caught whenever
 * it is longer than a period, and picked its function again: such a function took every
 * pick and the functions called between its instances none (t813: a 25 ms function 9-10
 * instances, its 25 ms twin 0-1, of 20 calls each).  So a frame whose own instance is
 * being measured (its return slot pending) is picked only when no other frame of the
 * sample is (a self-pick), and that pick is weak: it waits for the instance's return
 * (pick_defer: nothing is armed before, the function cannot be called again meanwhile,
 * save by recursion, which a deeper frame shows) and, armed there, yields to the next
 * sample that picks another function (counted as `yielded`).  A function alone on its
 * thread's stack (an OpenMP region between the runtime's frames, t809) still gets every
 * pick.  And an entry armed at once waits its patience from its frame's return, not from
 * the pick: the rest of the instance the sample fell in counts toward it only until the
 * sample that sees that frame gone (pick_slot), else a function whose instances are a few
 * periods long was given up before its next call; one that never returns still lets go
 * after the thread's patience (thread_patience).
 */
/* ips (a chain walked innermost first) inside region r's outlined function: the frames
 * above the outermost frame of r->fn are libgomp's (a worker's thread start; the master's
 * GOMP_parallel, whose frame a libgomp built with frame pointers keeps in the chain, where
 * the model starts a path over: review of 2026-11-28), so they are cut there and r's
 * callers put in their place, up to the depth kept.
 *
 * Where r->fn is not on the chain but the sample's own frame is the program's: the region's
 * body tail-called the function the sample is in (gcc -O2 makes `#pragma omp parallel
 * { work(); }` a jump to work, whose frame returns into libgomp), or the walk stopped at a
 * frameless function.  The program's frames are kept, up to the first that is not, and
 * r->fn put after them, then r's callers: the region's 0.0% share where it held all the
 * time (the usability review of 2026-11-28; frame pointers did not help).  Left as walked
 * when the sample's own frame is not the program's (a library's code: libgomp's own, the
 * master in GOMP_parallel) or r->fn is in a library (rt_fn_start knows the executable's).
 */
static SIGSAFE void cut_at_region(const struct var_region *r, uint64_t *ips, int *n)
{
	int max = max_frames();
	int last = -1;
	if (r->ncallers <= 0)
		return;
	for (int i = 0; i < *n; i++)
		if (rt_fn_start(ips[i]) == (uint64_t)(uintptr_t)r->fn)
			last = i;
	if (last < 0) {
		int i = 0;
		while (i < *n && i < max - 1 && rt_fn_start(ips[i]))
			i++;
		if (!i || !rt_fn_start((uint64_t)(uintptr_t)r->fn))
			return;
		*n = i;
		ips[(*n)++] = (uint64_t)(uintptr_t)r->fn + 1;	/* inside it, as a return is */
		for (int k = 0; k < r->ncallers && *n < max; k++)
			ips[(*n)++] = r->callers[k];
		return;
	}
	*n = last + 1;
	for (int i = 0; i < r->ncallers && *n < max; i++)
		ips[(*n)++] = r->callers[i];
}

/* A sample in a libgomp region's outlined function: its frames end at libgomp's, so the
 * region's callers follow them, as the region's instances have them (region_open). */
static SIGSAFE void region_tail(const struct var_thread *vt, uint64_t *ips, int *n)
{
	const struct var_region *r = __atomic_load_n(&vt->region, __ATOMIC_RELAXED);
	if (r)
		cut_at_region(r, ips, n);
}

static SIGSAFE void var_on_access(struct rt_thread *t, const struct rt_access *a,
				  const ucontext_t *uc, int skip)
{
	struct var_thread *vt = t->tool;
	uint64_t fp, sp;
	uint64_t cand[VAR_FRAMES], cslot[VAR_FRAMES];
	int64_t m0[VAR_NMETRIC] = { 0 };
	int n = 0;

	(void)a;
	if (!vt)
		return;
	read_metrics(m0, 1);
	/* the sample's signal, inside the pending instances or a timed region */
	if (uc && (vt->depth || vt->in_region))
		kernel_cost(vt, 2, kernel_speed(vt));
	if (var_close && watch_backend() == WATCH_BACKEND_HW)
		note_switches(vt);
	/* The sample's calling context: the functions on the stack, for time shares. */
	struct var_rec_sample rec = { .h = { .type = VAR_REC_SAMPLE, .size = sizeof(rec) } };
	if (uc) {
		uint64_t r0 = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		uint64_t s0 = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
		uint64_t f0 = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
		uint64_t c0 = runtime_leaf_caller(t, r0, s0);
		if (c0 && f0 >= s0 && f0 + 16 <= t->stack_hi && !(f0 & 7) &&
		    ((const uint64_t *)(uintptr_t)f0)[1] == c0)
			f0 = ((const uint64_t *)(uintptr_t)f0)[0];
		uint64_t ips[VAR_FRAMES + 2];
		int nips = fp_ips(t, c0 ? c0 : r0, 0, f0, s0, ips);
		region_tail(vt, ips, &nips);
		rec.ctx = ctx_intern(t, ips, nips);
	} else {
		rec.ctx = ctx_here(t, uc, skip);
	}
	if (rec.ctx)
		rt_tool_record(t, &rec, sizeof(rec));
	t->stats.samples++;
	vt->s.samples++;
	if (!vt->depth && !vt->defer_fn) {	/* (the slots as this sample finds them) */
		vt->s.samples_idle += !vt->x_armed;
		vt->s.samples_entry += vt->x_armed;
	}
	if (uc) {
		fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
		sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	} else {
		fp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
		sp = fp;
	}
	if (vt->depth && drop_below(vt, sp))
		rearm_return(t, vt);
	uint64_t lo = t->stack_lo ? t->stack_lo : sp, hi = t->stack_hi ? t->stack_hi : sp + (1u << 23);
	/* inner[i]: a PC inside the function that cand[i] returns from (the sample's PC for
	 * the innermost frame), for calls the code does not name (indirect: an OpenMP
	 * region's outlined function called by libgomp) */
	uint64_t inner[VAR_FRAMES], prev = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
	/* in a callback: its caller's PC is the leaf's; the callback's frame, if it has one
	 * yet, is no candidate (its call is the callback's) */
	uint64_t cb = uc ? runtime_leaf_caller(t, prev, sp) : 0;
	const int in_cb = cb != 0;
	prev = cb ? cb : prev;
	for (int i = 0; i < VAR_FRAMES && n < VAR_FRAMES; i++) {
		if (fp < lo || fp + 16 > hi || (fp & 7) || fp < sp)
			break;
		const uint64_t *f = (const uint64_t *)(uintptr_t)fp;
		uint64_t ret = f[1], next = f[0];
		if (cb && ret == cb) {
			cb = 0;
		} else if (readable_code(t, ret)) {
			inner[n] = prev;
			cslot[n] = fp + 8;
			cand[n++] = ret;
		}
		prev = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	/* The function the sample is in, when no frame of the chain is its own: a function
	 * that needs no frame gets none from gcc even with -fno-omit-frame-pointer (a leaf
	 * loop at -O1 and -O2), and the chain's first frame is then its caller's, whose
	 * callee is that caller.  Such a leaf was never picked: bench/variance-holder.sh's
	 * work(), called 40,000 times a thread from a thread routine, had 0 instances on
	 * either build of 2026-11-26 (17 picks of the routine itself, 16 missed; t819).
	 * An extra candidate for it, first (by_pc, the gate's and the own slot's rules). */
	if (uc && !in_cb && n > 0 && n < VAR_FRAMES) {
		uint64_t pc0 = (uint64_t)uc->uc_mcontext.gregs[REG_RIP], f0 = rt_fn_start(pc0);
		int bp0;
		if (f0 && f0 != rt_fn_main() && cand_fn(t, cand[0], inner[0], &bp0) != f0) {
			memmove(cand + 1, cand, (size_t)n * sizeof(cand[0]));
			memmove(inner + 1, inner, (size_t)n * sizeof(inner[0]));
			memmove(cslot + 1, cslot, (size_t)n * sizeof(cslot[0]));
			cand[0] = 0;
			inner[0] = pc0;
			cslot[0] = 0;
			n++;
		}
	}
	if (!n && prev) {	/* no frame chain: the function the sample is in */
		inner[0] = prev;
		cslot[0] = 0;
		cand[n++] = 0;
	}
	if (vt->x_armed && vt->pick_slot &&
	    (vt->pick_slot < sp || *(const uint64_t *)(uintptr_t)vt->pick_slot != vt->pick_ret)) {
		vt->pick_slot = 0;	/* the frame picked from returned: its next call can come */
		vt->x_ticks = 0;
	}
	/* A pick waiting for its function: a self-pick (weak) lets a later sample pick another
	 * function, and waits for its instance's return as long as that instance is pending;
	 * others wait up to the thread's patience (thread_patience), in samples. */
	int waiting = 0;
	if (vt->defer_fn) {
		waiting = (vt->weak && pending_at(vt, vt->defer_slot)) ||
			  ++vt->x_ticks < thread_patience(vt);
	} else if (vt->x_armed && ++vt->x_ticks < thread_patience(vt)) {
		struct watch_slot_info si;
		waiting = !watch_slot_get(t, vt->x_slot, &si) && si.armed &&
			  (si.type == WATCH_X || vt->gate_fn);
	}
	/* (--function in a process of another executable: nothing to pick, no frame to read) */
	if ((waiting && !vt->weak) || var_nonly < 0) {
		handler_end(vt, m0, NULL);
		return;		/* still waiting for its function */
	}
	/* A random frame (cand_fn); if none, the next ones (a few tries: each costs a read of
	 * the code).  own: the return slot of the instance the sample is in, of the function
	 * picked: its frame's; for the function that holds the PC, the one gate_slot finds
	 * (it may have no frame, or not yet: its caller's frame is the first one).
	 * A frame drawn while an instance is measured that is that instance's own or outside
	 * (older than) it cannot be called again before it returns: its pick is weak and
	 * deferred to that return (pick_defer), as a self-pick, so that it waits no patience
	 * meanwhile and yields to the next sample that picks another function.  Before, a
	 * self-pick took the next frame outward, armed at once: in a driver loop (main ->
	 * drive -> {once_long 60 ms, mid 5 ms x4, rec}) that was drive, called once, whose
	 * pick waited its 8 samples and counted as missed (t816).  Only frames inside it were
	 * drawn in a first try: their callee then took every pick made in a long instance
	 * (t804's slow thread: 1-5 instances of tw against 15-51). */
	uint64_t fn = 0, own = 0, pc = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
	uint64_t rbp = uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RBP] : 0, gs = 0;
	uint64_t lim = vt->depth ? vt->st[vt->depth - 1].slot : 0;
	int gs_done = 0;
	/* (--function: every frame, for one of those only) */
	int tries = var_nonly ? n : VAR_TRIES;
	for (int k = 0, i0 = n ? (int)(rt_rand(t) % (uint64_t)n) : 0; k < n && k < tries && !fn;
	     k++) {
		int i = (i0 + k) % n, by_pc;
		/* (--function: a frame whose code is no asked function's is passed over
		 * before any code read: the callee of frame i holds inner[i]) */
		if (var_nonly && !only_has(rt_fn_start(inner[i])))
			continue;
		fn = cand_fn(t, cand[i], inner[i], &by_pc);
		if (fn && var_nonly && !only_has(fn))
			fn = 0;
		if (!fn)
			continue;
		own = cslot[i];
		if (by_pc && i == 0 && uc && !in_cb) {
			gs = gate_slot(t, sp, rbp);
			gs_done = 1;
			own = gs ? gs : own;
		}
	}
	if (fn && lim && own >= lim) {
		/* the innermost pending instance's own frame, or one outside it: weak, at
		 * that instance's return; it replaces a burst (a burst's entry armed inside a
		 * long instance kept its self-picks out: LULESH -s 70, 2 instances over 32 ms
		 * where 9 without bursts) */
		if (!waiting || vt->in_burst) {
			count_replaced(t, vt);
			pick_defer(t, vt, fn, lim, 1);
		}
	} else if (fn) {
		uint64_t gate = 0;
		if (uc && var_gate && watch_backend() == WATCH_BACKEND_HW && pc >> 6 == fn >> 6)
			gate = gs_done ? gs : gate_slot(t, sp, rbp);
		pick_arm(t, vt, fn, own, gate);
	} else if (!waiting && !var_nonly) {	/* (--function: not a function asked for) */
		vt->s.no_frame++;
		/* an OpenMP region's function (never picked: timed at the runtime's call),
		 * which the report must not call "no function of the program's"; main's own
		 * code (cand_fn: never picked), nor that (the usability review of 2026-11-29,
		 * M3: a loop in main read as libraries without frame pointers) */
		uint64_t f0 = pc ? rt_fn_start(pc) : 0;
		vt->s.no_frame_region += f0 && variance_regions && region_fn_slot(f0, 0);
		vt->s.no_frame_main += f0 && f0 == rt_fn_main();
	}
	handler_end(vt, m0, NULL);
}

/* Entry of an armed function: push a pending instance, watch its slot, read V_call. */
static SIGSAFE void on_entry(struct rt_thread *t, struct var_thread *vt,
			     const struct watch_trap *w, const ucontext_t *uc, const int64_t *m0)
{
	uint64_t slot = w->soft ? w->access_addr :
		       uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RSP] : 0;

	uint64_t want = vt->site_ret;	/* the call the pick was made from */

	if (vt->x_armed && !vt->gate_fn && !vt->in_burst)
		patience_entry(vt);
	vt->s.burst_entries += (uint64_t)(vt->x_armed && vt->in_burst);
	vt->in_burst = 0;
	vt->x_armed = 0;
	vt->gate_fn = 0;
	vt->site = 0;
	vt->site_ret = 0;
	vt->pick_slot = 0;
	vt->weak = 0;
	vt->defer_fn = 0;	/* (none while an X is armed: var_on_access) */
	if (!slot || (slot & 7))
		return;
	vt->s.entries++;
	if (vt->depth && vt->st[vt->depth - 1].slot == slot && !w->soft) {
		vt->s.tail++;	/* a tail call: the watched instance includes this one */
		return;
	}
	drop_below(vt, slot + 1);
	if (vt->depth == VAR_STACK) {
		vt->s.overflow++;
		return;
	}
	struct var_pending *p = &vt->st[vt->depth++];
	p->slot = slot;
	p->ret = *(const uint64_t *)(uintptr_t)slot;
	p->fn = w->addr;
	if (want && p->ret != want && watch_backend() == WATCH_BACKEND_HW)
		site_mark(p->fn);	/* entered from another call than the pick's */
	/* Caller's frame pointer: soft, the one the function saved below its slot; hw (at
	 * the first instruction), still in RBP. */
	uint64_t cfp = w->soft ? *(const uint64_t *)(uintptr_t)(slot - 8) :
		       (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	/* inside a libgomp region, its callers in place of libgomp's frames, as the samples
	 * have them (region_tail): else a function called in a parallel region had a context
	 * no sample path starts with, and read 0% of the time (the trial of 2026-11-28:
	 * RSBench's calculate_macro_xs, PENNANT's QCS::calcForce, built with frame pointers) */
	uint64_t ips[VAR_FRAMES + 2];
	int nips = fp_ips(t, p->fn, p->ret, cfp, slot, ips);
	region_tail(vt, ips, &nips);
	p->ctx = ctx_intern(t, ips, nips);
	rearm_return(t, vt);
	if (!vt->depth || vt->st[vt->depth - 1].slot != slot)
		return;		/* could not be watched */
	memset(p->v, 0, sizeof(p->v));
	read_metrics(p->v, 0);
	handler_end(vt, m0, p->v);
	memcpy(p->ovh, vt->ovh, sizeof(p->ovh));
	p->start = (uint64_t)p->v[VAR_M_TIME];
}

/* The gate (gate_slot) trapped: the interrupted function is leaving its line; arm the
 * entry it stood for, in the same slot (a re-arm inside the callback: one MODIFY).  Or,
 * for a function called from several places, the call it returned to (the trap comes
 * after the `ret`: the PC is the return address), and its entry when that call comes; a
 * call site trapped (vt->site): the entry now. */
static SIGSAFE void on_gate(struct rt_thread *t, struct var_thread *vt, const ucontext_t *uc)
{
	uint64_t ret = !vt->site && uc ? (uint64_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
	uint64_t site = ret ? site_of(vt->gate_fn, ret) : 0;
	if (!site)
		ret = 0;	/* not a return (the function read its slot): no call known */
	else if (!site_multi(vt->gate_fn))
		site = 0;
	struct watch_req r = { .addr = site ? site : vt->gate_fn, .len = 8, .type = WATCH_X,
			       .policy = WATCH_REFUSE };
	int err = watch_modify(t, vt->x_slot, &r);

	if (err < 0) {
		note_err(vt, err);
		vt->x_armed = 0;
		vt->gate_fn = vt->site = vt->site_ret = 0;
		return;
	}
	vt->s.sites_fired += vt->site != 0;
	vt->s.gates_fired += vt->site == 0;
	vt->s.sited += site != 0;
	if (vt->site)
		ret = vt->site_ret;
	vt->site = site;
	vt->site_ret = ret;	/* for site_mark at the entry */
	if (!site)
		vt->gate_fn = 0;
	vt->x_slot = err;
	vt->x_ticks = 0;
}

/* The instance a pick was deferred for (defer_slot) returned: arm its entry now, out of
 * the line (the return's trap, with its handler, is this one).  Its patience starts here,
 * as an entry armed at once waits from its frame's return (var_on_access): the samples
 * before could not see its next call. */
static SIGSAFE void arm_deferred(struct rt_thread *t, struct var_thread *vt)
{
	struct watch_req r = { .addr = vt->defer_fn, .len = 8, .type = WATCH_X,
			       .policy = WATCH_REFUSE };

	vt->defer_fn = 0;
	vt->gate_fn = 0;
	vt->site = 0;
	vt->site_ret = 0;
	vt->pick_slot = 0;
	if (!arm_x(t, vt, &r))
		vt->s.deferred_armed++;
}

/* The instance `p` (V_call read, `depth` pending below it) ends at the metrics `v`: its
 * record, each metric less what our handlers took meanwhile. */
static SIGSAFE void emit_instance(struct rt_thread *t, struct var_thread *vt,
				  const struct var_pending *p, uint32_t flags, uint32_t depth,
				  const int64_t *v)
{
	struct var_rec_inst r = {
		.h = { .type = VAR_REC_INST, .size = sizeof(r) },
		.fn = p->fn, .ctx = p->ctx, .flags = flags, .seq = vt->seq++, .start = p->start,
		.events = var_events, .depth = depth, .share = p->share,
	};
	for (int m = 0; m < VAR_NMETRIC; m++) {
		if (!(var_events & (1u << m)))
			continue;
		r.v[m] = v[m] - p->v[m] - (vt->ovh[m] - p->ovh[m]);
		if (r.v[m] < 0)
			r.v[m] = 0;	/* clock granularity only: noted in the doc */
	}
	rt_tool_record(t, &r, sizeof(r));
	vt->s.returns++;
}

/* The watch on the innermost slot trapped: its return, or something else. */
static SIGSAFE void on_slot(struct rt_thread *t, struct var_thread *vt,
			    const struct watch_trap *w, const ucontext_t *uc, const int64_t *v)
{
	if (!vt->depth || vt->st[vt->depth - 1].slot != w->addr) {
		rearm_return(t, vt);
		return;
	}
	struct var_pending *p = &vt->st[vt->depth - 1];
	int is_ret;
	if (w->soft)	/* the exit hook of the function itself reads the slot */
		is_ret = w->stored == WATCH_TRAP_LOAD && w->ip == p->fn;
	else
		is_ret = uc && (uint64_t)uc->uc_mcontext.gregs[REG_RIP] == p->ret &&
			 (uint64_t)uc->uc_mcontext.gregs[REG_RSP] == p->slot + 8;
	if (!is_ret && !w->soft && *(const uint64_t *)(uintptr_t)p->slot == p->ret) {
		/* hw: the function read its own return address (__builtin_return_address, an
		 * unwinder, sonde-cc's call hooks); the instance goes on */
		vt->s.slot_reads++;
		rearm_return(t, vt);
		return;
	}
	int burst = is_ret && burst_ok(vt, v[VAR_M_CPU]);

	if (is_ret) {
		emit_instance(t, vt, p, w->soft ? VAR_F_SOFT : 0, (uint32_t)(vt->depth - 1), v);
	} else {
		vt->s.overwritten++;
	}
	vt->depth--;
	/* the deferred pick first: it takes the return's slot, idle now, with one MODIFY,
	 * where a release of it (rearm_return, nothing else pending) and then an open would
	 * cost two system calls more */
	if (is_ret && vt->defer_fn && p->slot == vt->defer_slot)
		arm_deferred(t, vt);
	else if (burst && !vt->x_armed && !vt->defer_fn)
		arm_burst(t, vt, p->fn);
	rearm_return(t, vt);
}

static SIGSAFE void var_trap(struct rt_thread *t, const struct watch_trap *w,
			     const ucontext_t *uc)
{
	struct var_thread *vt = t->tool;
	int64_t m0[VAR_NMETRIC] = { 0 };

	if (!vt || rt_enter(t))
		return;
	read_metrics(m0, 1);
	/* the clocks as the signal's handler started, before the engine's work: that is
	 * handler time too, and left in the instance it was ~1 us more than the calibration's
	 * (hot) share of it, up to 2-3 us in a loaded program (doc/sonde-variance.md,
	 * "Short functions beside a load") */
	if (w->stamped) {
		m0[VAR_M_CPU] = w->in_cpu_ns;
		m0[VAR_M_TIME] = w->in_ns;
	}
	/* A hw trap's kernel time, half before its handler and half after: an instance
	 * holds the second half of its entry trap and the first half of its return trap,
	 * and the whole of every other trap in between (nested instances, reads of the
	 * slot), all subtracted through vt->ovh. */
	/* probed only where an instance holds part of this trap: one pending (a return, a
	 * nested trap), or the one an entry starts; elsewhere the cost lands outside every
	 * instance and the probe (~0.7 us) would be spent for nothing */
	int64_t speed = w->soft || (!vt->depth && w->type != WATCH_X) ? 0 : kernel_speed(vt);

	if (!w->soft)
		kernel_cost(vt, 1, speed);
	if (w->type == WATCH_X && vt->site && !w->soft && w->slot == vt->x_slot &&
	    w->addr == vt->site) {
		on_gate(t, vt, uc);	/* the picked context's call: its entry now */
		handler_end(vt, m0, NULL);
	} else if (w->type == WATCH_X) {
		on_entry(t, vt, w, uc, m0);
	} else if (vt->gate_fn && !w->soft && w->slot == vt->x_slot) {
		on_gate(t, vt, uc);
		handler_end(vt, m0, NULL);
	} else {
		on_slot(t, vt, w, uc, m0);
		handler_end(vt, m0, NULL);
	}
	if (!w->soft)
		kernel_cost(vt, 1, speed);
	else	/* the stretch this hook's handler opens (read_cost_calibrate) */
		for (int m = 0; m < VAR_NMETRIC; m++)
			vt->ovh[m] += var_read_cost[m];
	rt_leave(t);
}

/*
 * rt-omp.c: GOMP_parallel(fn, data, ...).  Each thread of the team, the master included,
 * calls fn(data) through var_region_call, which times the call as an instance of fn:
 * the thread's share of the region (libgomp's barrier comes after fn returns, in its
 * caller).  No trap, so no trap cost and no resolution: ~2 us a timed call here (eight
 * clock reads, four of them system calls), ~0.1 us one the share says not to time.  A
 * sampled pick never takes fn (region_fn_slot), so its instances come from here only,
 * and a LULESH thread, whose region functions run most of them once an iteration, is no
 * longer left to picks that wait for the next iteration.  The context is fn's from the
 * runtime's frame out, as for a picked region (the model starts a region's context at
 * its outlined function).
 */

/*
 * Does this thread time this call of the region function at `idx` (region_fn_slot)?  The
 * call's chance of being timed if so, of 2^32 (VAR_SHARE_ALL: every call; the instance
 * record carries it, and the model weighs the instance by its inverse), 0 if not.
 * Each region function has its share: all its calls while they come at most variance_regions
 * a second a thread, else a random share that keeps to that rate.  A share per function,
 * not one for the thread: LULESH calls most of its ~40 region functions once an
 * iteration and a few ~10 times, and one share of 200 a second for all of a thread's
 * timed ~8% of each, leaving the once-an-iteration ones (its largest) 3 instances of
 * 40 in a run.  The shares come from the functions' calls, counted by all threads, over
 * a window of 10 ms at first, doubled up to 1 s (LULESH: ~500 regions in 50 ms of each
 * 200 ms iteration; 100 ms windows lagged those bursts).  The calls in a window are
 * timed at random (not every Nth: a program's cycle cannot alias with it).  And each
 * thread's budget, which grows at VAR_REGION_THREAD x variance_regions a second (one second's
 * worth kept at most), bounds what the shares cost together.  Claimed.
 */
#define VAR_SHARE_ALL 0xffffffffu
static uint32_t var_reg_calls[VAR_REGION_FNS];	/* calls in the window, all threads */
static uint32_t var_reg_share[VAR_REGION_FNS];	/* of 2^32; 0: none yet (all) */
static uint64_t var_reg_at, var_reg_win;		/* the window: start, length */
static uint32_t var_reg_threads;		/* threads that have run a region */

static SIGSAFE void region_window(uint64_t now)
{
	uint64_t at = __atomic_load_n(&var_reg_at, __ATOMIC_ACQUIRE);
	uint64_t win = __atomic_load_n(&var_reg_win, __ATOMIC_RELAXED);

	if (!at) {
		if (__atomic_compare_exchange_n(&var_reg_at, &at, now, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			__atomic_store_n(&var_reg_win, VAR_REGION_WINDOW0, __ATOMIC_RELEASE);
		return;
	}
	if (!win || now - at < win || now < at ||
	    !__atomic_compare_exchange_n(&var_reg_at, &at, now, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	/* this thread ends the window: each function's share for the next, from the calls
	 * it wanted (variance_regions x threads x the window) over those that came, unrounded (a
	 * whole number of calls wanted was 0 in 10-40 ms windows: a share of 2^-32 kept);
	 * a function not called in it is timed in full again until a window counts it */
	uint64_t nth = __atomic_load_n(&var_reg_threads, __ATOMIC_RELAXED);
	/* the window's length, at most twice what it was meant to be: a burst then an idle
	 * gap is the burst's rate (LULESH: ~500 regions in 50 ms of each 200 ms iteration) */
	uint64_t dt = now - at > 2 * win ? 2 * win : now - at;
	/* in doubles: 128-bit integers call libgcc's __udivti3, outside the resident code
	 * (t009); a share needs no more than a double's precision */
	double want = (double)variance_regions * (double)(nth ? nth : 1) * (double)dt / 1e9;
	for (int i = 0; i < VAR_REGION_FNS; i++) {
		uint64_t c = __atomic_exchange_n(&var_reg_calls[i], 0, __ATOMIC_RELAXED);
		uint32_t sh = 0;	/* none: all */
		/* two calls a thread or fewer are no burst, whatever the gap after them: their
		 * rate is over the whole window (all threads enter a region at once, and a call
		 * of the next round counted in a 10 ms window read as 3 calls in 20 ms: a
		 * region called 4 times a second was timed at a share of 0.27, one call in five
		 * lost, the trial of 2026-11-29, F2) */
		double w = c <= 2 * (nth ? nth : 1) ? (double)variance_regions *
			(double)(nth ? nth : 1) * (double)(now - at) / 1e9 : want;
		if (c) {
			double q = w / (double)c * 4294967296.0;
			sh = q >= (double)VAR_SHARE_ALL ? VAR_SHARE_ALL : q >= 1 ? (uint32_t)q : 1;
		}
		__atomic_store_n(&var_reg_share[i], sh, __ATOMIC_RELAXED);
	}
	if (win < VAR_REGION_WINDOW_MAX)
		__atomic_store_n(&var_reg_win, win * 2 > VAR_REGION_WINDOW_MAX ? VAR_REGION_WINDOW_MAX
										 : win * 2, __ATOMIC_RELAXED);
}

static SIGSAFE uint32_t region_timed(struct rt_thread *t, struct var_thread *vt, int idx)
{
	/* the budget in ns: a timed call spends `per`, a second adds 1e9 */
	uint64_t now = rt_now(), per = 1000000000u / ((uint64_t)variance_regions * VAR_REGION_THREAD);

	if (!vt->reg_counted) {
		vt->reg_counted = 1;
		__atomic_add_fetch(&var_reg_threads, 1, __ATOMIC_RELAXED);
		vt->reg_tok_at = now;
		vt->reg_tok = (int64_t)(per * 2);
	}
	region_window(now);
	uint32_t sh = VAR_SHARE_ALL;
	if (idx > 0) {
		__atomic_add_fetch(&var_reg_calls[idx - 1], 1, __ATOMIC_RELAXED);
		sh = __atomic_load_n(&var_reg_share[idx - 1], __ATOMIC_RELAXED);
		sh = sh ? sh : VAR_SHARE_ALL;
	}
	vt->reg_tok += (int64_t)(now - vt->reg_tok_at);
	vt->reg_tok_at = now;
	if (vt->reg_tok > 1000000000)
		vt->reg_tok = 1000000000;
	if (vt->reg_tok < (int64_t)per ||
	    (sh != VAR_SHARE_ALL && (uint32_t)rt_rand(t) >= sh))
		return 0;
	vt->reg_tok -= (int64_t)per;
	return sh;
}

/* A timed region call starts here: `p` (fn set) gets its context, from the return
 * address `ret` and the frame `fp` of our function the runtime called, and its start;
 * `depth` the pending instances below it.  Between rt_enter and rt_leave. */
static SIGSAFE void region_open(struct rt_thread *t, struct var_thread *vt, struct var_pending *p,
				uint32_t *depth, uint64_t ret, uint64_t fp,
				const struct var_region *r)
{
	int64_t m0[VAR_NMETRIC] = { 0 };

	read_metrics(m0, 1);
	/* fn's context: the frames that started the region (r: libgomp's), else its caller
	 * the runtime's frame (`ret`), then the chain from the frame our function's caller
	 * keeps */
	if (r && r->ncallers > 0) {
		uint64_t ips[VAR_FRAMES + 1];
		int n = 0;
		ips[n++] = p->fn;
		for (int i = 0; i < r->ncallers && n < max_frames(); i++)
			ips[n++] = r->callers[i];
		p->ctx = ctx_intern(t, ips, n);
	} else {
		p->ctx = fp_context(t, p->fn, ret, *(const uint64_t *)(uintptr_t)fp, fp + 16);
	}
	*depth = (uint32_t)vt->depth;
	vt->in_region++;
	read_metrics(p->v, 0);
	handler_end(vt, m0, p->v);
	memcpy(p->ovh, vt->ovh, sizeof(p->ovh));
	p->start = (uint64_t)p->v[VAR_M_TIME];
}

/* The region call `p` opened by region_open ends: its instance.  Between rt_enter and
 * rt_leave, in_region already counted down. */
static SIGSAFE void region_close(struct rt_thread *t, struct var_thread *vt,
				 const struct var_pending *p, uint32_t depth)
{
	int64_t v1[VAR_NMETRIC] = { 0 };

	read_metrics(v1, 1);
	emit_instance(t, vt, p, VAR_F_REGION, depth, v1);
	vt->s.regions++;
	handler_end(vt, v1, NULL);
}

static void var_region_call(void *arg)
{
	const struct var_region *r = arg;
	struct rt_thread *t = rt_self();
	struct var_thread *vt = t ? t->tool : NULL;
	struct var_pending p = { .fn = (uint64_t)(uintptr_t)r->fn };
	uint32_t depth;
	unsigned forks = rt_forks;

	if (!vt || rt_enter(t)) {
		r->fn(r->data);
		return;
	}
	/* (a region inside this one's function keeps its own, then this one's again) */
	const struct var_region *outer = vt->region;
	__atomic_store_n(&vt->region, r, __ATOMIC_RELAXED);
	if (!(p.share = region_timed(t, vt, r->idx))) {
		rt_leave(t);
		r->fn(r->data);
		if (rt_forks == forks)
			__atomic_store_n(&vt->region, outer, __ATOMIC_RELAXED);
		return;
	}
	region_open(t, vt, &p, &depth, (uint64_t)(uintptr_t)__builtin_return_address(0),
		    (uint64_t)(uintptr_t)__builtin_frame_address(0), r);
	rt_leave(t);

	r->fn(r->data);

	if (rt_forks == forks)	/* (a fork child's vt is the parent's, gone: below) */
		__atomic_store_n(&vt->region, outer, __ATOMIC_RELAXED);
	if (rt_enter(t))
		return;		/* the thread stopped meanwhile (the process ends) */
	if (rt_forks != forks) {
		/* a fork child: vt lay in the parent's arena (gone; a new one may lie at the
		 * same address: the pointer told nothing, and the child recorded the call with
		 * its restarted CPU clock), the thread has a new state, no instance of it */
		rt_leave(t);
		return;
	}
	vt->in_region--;
	region_close(t, vt, &p, depth);
	rt_leave(t);
}

/* rt-omp.c: a region starts (variance_regions > 0): `invoke` calls the real libgomp entry
 * with `args` and the function and data it is given, here var_region_call and r. */
/* The program's frames above ours (rt-omp.c's wrappers are the runtime's: left out, as
 * fp_context leaves them), from the frame-pointer chain at fp (fp_ips, no leaf): into
 * r->callers.  A region started inside another's outlined function, on a team thread,
 * has a chain that ends in libgomp: the outer region's callers go on from there. */
static void region_callers(struct var_region *r, uint64_t fp)
{
	struct rt_thread *t = rt_self();
	uint64_t ips[VAR_FRAMES + 2];
	r->ncallers = 0;
	if (!t || !t->stack_lo || !t->stack_hi)
		return;
	int n = fp_ips(t, 0, 0, fp, fp, ips);	/* ips[0]: the missing leaf, 0 */
	struct var_thread *vt = t->tool;
	if (vt && vt->region)	/* (r is new: never vt's) */
		cut_at_region(vt->region, ips, &n);
	for (int i = 1; i < n; i++)
		r->callers[r->ncallers++] = ips[i];
}

/* A region of LLVM's runtime: its callers into r->callers, from the master's frame
 * chain at `fp` (OMPT's enter frame, the runtime's frame called from the program), cut
 * as region_callers' is.  libomp's __kmpc_fork_call keeps a frame, so the chain's first
 * return address is the program's call, `ra`; __kmp_serialized_parallel's frame is under
 * __kmpc_serialized_parallel, which keeps none: the chain's first is the runtime's, then
 * the caller's caller, so `ra` goes first and the runtime's addresses are left out.  With
 * no chain (fp 0, or another runtime's frame off the stack): `ra` alone. */
static void omp_callers(struct rt_thread *t, struct var_thread *vt, struct var_region *r,
			uint64_t fp, uint64_t ra)
{
	uint64_t ips[VAR_FRAMES + 2];
	int n = 0, k = 1;

	r->ncallers = 0;
	if (fp && t->stack_lo && t->stack_hi && fp >= t->stack_lo && fp < t->stack_hi) {
		n = fp_ips(t, 0, 0, fp, fp, ips);	/* ips[0]: the missing leaf, 0 */
		if (vt->region)
			cut_at_region(vt->region, ips, &n);
	}
	while (ra && k < n && k < 4 && ips[k] != ra)
		k++;
	if (ra && (k >= n || k == 4)) {	/* ra not in the chain's first frames (or none) */
		r->callers[r->ncallers++] = ra;
		for (k = 1; k < n && !rt_fn_start(ips[k]); k++)
			;
		if (k == n)	/* (the program's code in a library: rt_fn_start knows none) */
			k = 2;
	}
	for (; k < n && r->ncallers < VAR_FRAMES; k++)
		r->callers[r->ncallers++] = ips[k];
}

void variance_region(void (*fn)(void *), void *data,
		     void (*invoke)(void (*)(void *), void *, const void *), const void *args);
void variance_region(void (*fn)(void *), void *data,
		     void (*invoke)(void (*)(void *), void *, const void *), const void *args)
{
	int idx = region_fn_slot((uint64_t)(uintptr_t)fn, 1);
	/* on this stack until the team ends: libgomp returns after its barrier */
	struct var_region r = { .fn = fn, .data = data, .idx = idx };
	region_callers(&r, (uint64_t)(uintptr_t)__builtin_frame_address(0));
	invoke(var_region_call, &r, args);
}

/*
 * src/rt/ompt.c: LLVM's OpenMP runtime (libomp; Intel's and AMD's compilers ship builds of
 * it) reports a region through OMPT, the standard tool interface, not through a call of
 * ours: each thread's implicit task begins (var_omp_begin, with the outlined function the
 * region's master handed __kmpc_fork_call) and later reaches the region's closing
 * barrier, or ends with none (a team of one): var_omp_end.  The instance
 * spans what a libgomp region's does: the outlined function's run, not the barrier
 * after.  `task` is the implicit task's OMPT data: it tells this region's end from a
 * nested region's, with the count of implicit tasks begun inside the open one (a
 * serialized region nested in a serialized one reports the same task data as it: libomp
 * 14, found in review).  One region open a thread: a region nested in a timed one is
 * not timed.  `region`: var_omp_region_begin's struct of the region (its outlined
 * function and callers), 0 for one whose outlined function is unknown (counted, not
 * timed); the thread's samples get its callers until the task ends or reaches the
 * region's barrier (region_tail).  `ret`, `fp`: the return address and frame of the OMPT
 * callback (its caller is the runtime's frame that runs the outlined function).
 */
static void var_omp_begin(uint64_t region, const void *task, uint64_t ret, uint64_t fp)
{
	struct rt_thread *t = rt_self();
	struct var_thread *vt = t ? t->tool : NULL;
	const struct var_region *r = (const struct var_region *)(uintptr_t)region;

	if (!vt || !task || variance_regions <= 0)
		return;
	/* the samples in the region have its callers (region_tail), timed or not */
	if (vt->notask < sizeof(vt->otask) / sizeof(vt->otask[0])) {
		vt->otask[vt->notask].task = task;
		vt->otask[vt->notask].prev = vt->region;
	}
	vt->notask++;
	if (r)
		__atomic_store_n(&vt->region, r, __ATOMIC_RELAXED);
	if (vt->omp_task) {
		vt->omp_nest++;		/* a region inside the open one */
		return;
	}
	uint64_t fn = r ? (uint64_t)(uintptr_t)r->fn : 0;
	if (!fn || rt_enter(t))
		return;
	uint32_t sh = region_timed(t, vt, region_fn_slot(fn, 0));
	if (sh) {
		vt->omp_p = (struct var_pending){ .fn = fn, .share = sh };
		region_open(t, vt, &vt->omp_p, &vt->omp_depth, ret, fp, r);
		vt->omp_task = task;
		vt->omp_nest = 0;
	}
	rt_leave(t);
}

/* Is `task` the innermost implicit task this thread runs (one past the kept entries: any)? */
static int omp_top_is(const struct var_thread *vt, const void *task)
{
	uint32_t top = vt->notask - 1;
	return vt->notask && (top >= sizeof(vt->otask) / sizeof(vt->otask[0]) ||
			      vt->otask[top].task == task);
}

/* Could the barrier starting now, in the implicit task `task`, close this thread's open
 * instance, or end the region whose callers its samples get: one is open for `task`, with
 * no region inside it still running? */
static int var_omp_open(const void *task)
{
	struct rt_thread *t = rt_self();
	struct var_thread *vt = t ? t->tool : NULL;

	return vt && task && ((vt->omp_task == task && !vt->omp_nest) || omp_top_is(vt, task));
}

/* An implicit task ends (`barrier` 0), or the region's closing barrier starts (1). */
static void var_omp_end(const void *task, int barrier)
{
	struct rt_thread *t = rt_self();
	struct var_thread *vt = t ? t->tool : NULL;

	if (!vt || !task)
		return;
	/* the task's region ends here, at its closing barrier or, with none (a team of one),
	 * at its end; a worker's end comes later with another task data, matching none */
	if (omp_top_is(vt, task)) {
		uint32_t top = --vt->notask;
		if (top < sizeof(vt->otask) / sizeof(vt->otask[0]))
			__atomic_store_n(&vt->region, vt->otask[top].prev, __ATOMIC_RELAXED);
	}
	if (!vt->omp_task)
		return;
	if (vt->omp_nest) {
		if (!barrier)
			vt->omp_nest--;	/* a region inside the open one ended */
		return;
	}
	if (vt->omp_task != task || rt_enter(t))
		return;
	vt->omp_task = NULL;
	vt->in_region--;
	region_close(t, vt, &vt->omp_p, vt->omp_depth);
	rt_leave(t);
}

/* A region of LLVM's runtime begins on this thread, its master (src/rt/ompt.c): `fn`, its
 * outlined function, is never picked, timed under its own share; the region's callers are
 * the master's frames from `fp`, the runtime's frame entered from the program, whose
 * return address is `ra` (omp_callers).  The region is the thread's until the team joins
 * (var_omp_region_end); a nested one's beyond VAR_OMP_NEST, or one on a thread sonde does
 * not know (a library's constructor, before ours), has no callers: a struct per function
 * for the process (its outlined function alone, as before). */
#define OMP_BARE 64
static struct var_region omp_bare[OMP_BARE];

static uint64_t var_omp_region_begin(uint64_t fn, uint64_t fp, uint64_t ra)
{
	struct rt_thread *t = rt_self();
	struct var_thread *vt = t ? t->tool : NULL;
	int idx = region_fn_slot(fn, 1);

	if (vt && vt->omp_nreg < VAR_OMP_NEST) {
		struct var_region *r = &vt->omp_reg[vt->omp_nreg];
		*r = (struct var_region){ .fn = (void (*)(void *))(uintptr_t)fn, .idx = idx };
		omp_callers(t, vt, r, fp, ra);
		vt->omp_nreg++;
		return (uint64_t)(uintptr_t)r;
	}
	for (unsigned i = 0, h = (unsigned)(fn >> 4); i < OMP_BARE; i++) {
		struct var_region *b = &omp_bare[(h + i) % OMP_BARE];
		void (*f)(void *) = (void (*)(void *))(uintptr_t)fn, (*none)(void *) = NULL;
		if (__atomic_load_n(&b->fn, __ATOMIC_ACQUIRE) == f ||
		    __atomic_compare_exchange_n(&b->fn, &none, f, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			b->idx = idx;
			return (uint64_t)(uintptr_t)b;
		}
	}
	return 0;
}

/* The region `region` began on this thread has ended, its team joined: its struct (and
 * those of regions nested in it, if their ends did not come) is free again. */
static void var_omp_region_end(uint64_t region)
{
	struct rt_thread *t = rt_self();
	struct var_thread *vt = t ? t->tool : NULL;
	uintptr_t r = (uintptr_t)region, lo = vt ? (uintptr_t)vt->omp_reg : 0;

	/* (a fork child's vt is new: a region begun in the parent is not in it) */
	if (!vt || r < lo || r >= lo + sizeof(vt->omp_reg))
		return;
	int k = (int)((r - lo) / sizeof(vt->omp_reg[0]));
	if (k >= vt->omp_nreg)
		return;
	/* the thread's tasks in a region from r on, if their ends did not come (a region's
	 * own task ends before its parallel-end): none of theirs is kept past it */
	while (vt->notask && vt->notask <= sizeof(vt->otask) / sizeof(vt->otask[0]) &&
	       (uintptr_t)vt->region >= r && (uintptr_t)vt->region < lo + sizeof(vt->omp_reg)) {
		vt->notask--;
		__atomic_store_n(&vt->region, vt->otask[vt->notask].prev, __ATOMIC_RELAXED);
	}
	vt->omp_nreg = k;
}

/* Regions timed?  Asked when libomp starts its tool, which may be before var_start: the
 * setting read then, so that region_timed has its rate. */
static int var_omp_regions(void)
{
	if (variance_regions <= 0)
		variance_regions = variance_regions_env();
	return variance_regions;
}

/* rt-jump.c: the program longjmps; no pending frame survives (the target is unknown). */
SIGSAFE void variance_on_jump(void)
{
	struct rt_thread *t = rt_tool && !strcmp(rt_tool->name, "variance") ? rt_self() : NULL;
	struct var_thread *vt = t ? t->tool : NULL;

	if (!vt || !vt->depth || rt_enter(t))
		return;
	vt->s.jumps += (uint64_t)vt->depth;
	vt->depth = 0;
	rearm_return(t, vt);
	rt_leave(t);
}

/* rt-jump.c: a C++ handler catches an exception in the frame whose stack pointer was `sp`:
 * every pending frame below it is gone. */
SIGSAFE void variance_on_catch(uint64_t sp)
{
	struct rt_thread *t = rt_tool && !strcmp(rt_tool->name, "variance") ? rt_self() : NULL;
	struct var_thread *vt = t ? t->tool : NULL;

	if (!vt || !vt->depth || rt_enter(t))
		return;
	if (drop_below(vt, sp))
		rearm_return(t, vt);
	rt_leave(t);
}

static SIGSAFE void var_thread_end(struct rt_thread *t)
{
	struct var_thread *vt = t->tool;

	if (!vt)
		return;
	vt->s.h.type = VAR_REC_STATS;
	vt->s.h.size = sizeof(vt->s);
	vt->s.at_exit += (uint64_t)vt->depth;
	vt->depth = 0;
	vt->s.backend = (uint32_t)watch_backend();
	vt->s.trap_ns = var_trap_cost[VAR_M_TIME];
	vt->s.trap_cpu_ns = var_trap_cost[VAR_M_CPU];
	vt->s.probe_cal_ns = var_probe_cal;
	vt->s.read_ns = var_read_cost[VAR_M_TIME];
	vt->s.read_cpu_ns = var_read_cost[VAR_M_CPU];
	vt->s.calls_hooked = (uint32_t)watch_soft_calls;
	rt_tool_record(t, &vt->s, sizeof(vt->s));
}

static void var_fork_child(struct rt_thread *t)
{
	var_thread_start(t);
}

/*
 * RT_TOOL_TICK_TIMERS: with debug registers, a thread's slots are perf events of its own,
 * and the clock source then samples by POSIX CPU-time timers, not the inherited cpu-clock
 * event, which such a thread's every context switch schedules out and in (source-clock.c).
 * LULESH (OpenMP, OMP_WAIT_POLICY=passive: ~100,000 switches in a run of 1.5 s of CPU
 * time) took 1.07 s of system time under variance against 0.61-0.84 s native, 0.74-0.87 s
 * with the timers (13:30 UTC, load 9-12).  The timers expire at the scheduler tick (4 ms
 * here), variance's default period; at shorter periods (the tests' 1 ms) the event stays,
 * which samples 4 times as often there (t809: 21 of 200 region instances with timers).
 */
/* the .proc's only_functions (profile.h): the report says what the picks took */
static SIGSAFE void var_process_end(int signo)
{
	(void)signo;
	if (var_nonly)
		rt_proc_append("only_functions", var_only_names);
}

const struct rt_tool rt_tool_variance = {
	.name = "variance",
	.clock_period = VAR_DEFAULT_PERIOD,
	.flags = RT_TOOL_EXEC_WATCH | RT_TOOL_NO_ACCESS | RT_TOOL_FP_CONTEXT | RT_TOOL_COUNTS_FAULTS |
		 RT_TOOL_TICK_TIMERS,
	.start = var_start,
	.counts_faults = var_counts_faults,
	.thread_start = var_thread_start,
	.access = var_on_access,
	.trap = var_trap,
	.fork_child = var_fork_child,
	.thread_end = var_thread_end,
	.process_end = var_process_end,
	.omp_regions = var_omp_regions,
	.omp_region_begin = var_omp_region_begin,
	.omp_region_end = var_omp_region_end,
	.omp_task_begin = var_omp_begin,
	.omp_task_open = var_omp_open,
	.omp_task_end = var_omp_end,
};
