/* SPDX-License-Identifier: MIT */
/*
 * source-hw.c - the `hw` sample source: precise memory-access samples from the PMU.
 *
 * Intel PEBS (load and store events resolved with libpfm4 by pmu.c) or AMD IBS op, with
 * the attributes pmu.c builds (pmu_attr_*: no exclude_* bit on IBS unless the kernel
 * has swfilt).
 * Per thread: the events are opened on the thread (pid 0, cpu -1), the second one's
 * records redirected into the first one's ring (PERF_EVENT_IOC_SET_OUTPUT), and each fd
 * made to signal the thread itself (O_ASYNC, F_SETSIG rt_cfg.sig_sample, F_SETOWN_EX
 * F_OWNER_TID) after every sample (wakeup_events 1).  The handler pauses the events,
 * drains the ring through perfring.c, hands each memory access to the tool, and resumes.
 *
 * Calling context.  A PEBS or IBS record carries the exact IP of the access, but the
 * interrupt (and so the signal) arrives a little later: the handler's ucontext is the
 * interrupted point, near the sampled instruction (usually the same function, a few
 * instructions on) but not at it.  We pass that ucontext: the call path the tool unwinds
 * is the interrupted point's, whose callers are right whenever the skid did not cross a
 * call or return; the access itself (rt_access.ip) is always the sampled IP.  Passing
 * NULL instead would unwind through this handler's own frames, and rewriting the saved
 * RIP to the sampled IP would pair that IP with a stack the IP's unwind rules may not
 * describe (a push or call in the skid): a wrong caller, silently.  With one sample per
 * signal (wakeup_events 1) the ring rarely holds more than the latest sample; the rare
 * older ones share the same, less accurate, context.
 *
 * SONDE_HW_EVENT=page-faults (a test mode, read at start-up) replaces the PMU event by the
 * software page-fault event, whose samples carry the faulting address: the same path,
 * end to end, on machines without a PMU.
 *
 * Everything below is reachable from the handler or is plain system calls; pmu.c does
 * the libpfm4 and stdio work at start-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/perfring.h"
#include "rt/pmu.h"
#include "rt/rt.h"
#include "rt/sigsafe.h"

#define HW_DEFAULT_PERIOD 100003	/* events (PEBS) or ops (IBS) between samples */
#define HW_RING_PAGES 8			/* data pages per thread ring (a power of two) */
#define HW_MAX_EVENTS 2

struct hw_thread {
	volatile sig_atomic_t closing;	/* thread_stop started: the handler leaves */
	int nfd;
	int fd[HW_MAX_EVENTS];
	uint64_t id[HW_MAX_EVENTS];	/* PERF_EVENT_IOC_ID, to tell loads from stores */
	int store[HW_MAX_EVENTS];
	void *map;
	size_t map_len;
	struct perfring ring;
	struct perfring_stats st;
};

/* Filled once by probe/start (before any thread samples), read-only afterwards. */
static struct pmu_hw hw_cfg;
static int hw_probed;

/* ---- the handler ---- */

struct hw_drain {
	struct rt_thread *t;
	struct hw_thread *h;
	const ucontext_t *uc;
};

/* PEBS gives no access width: the widest natural one the address is aligned to (<= 8). */
static SIGSAFE uint16_t len_from_alignment(uint64_t addr)
{
	return (uint16_t)(addr & 1 ? 1 : addr & 2 ? 2 : addr & 4 ? 4 : 8);
}

static SIGSAFE int pebs_access(const struct hw_thread *h, const struct perfring_sample *s,
			       struct rt_access *a)
{
	int store = -1;
	for (int i = 0; i < h->nfd; i++)
		if (h->id[i] == s->id)
			store = h->store[i];
	if (store < 0) /* an event counting both: the data source says which */
		store = !!((s->data_src >> PERF_MEM_OP_SHIFT) & PERF_MEM_OP_STORE);
	if (!s->addr)
		return 0;
	a->ip = s->ip;
	a->addr = s->addr;
	a->len = len_from_alignment(s->addr);
	a->flags = store ? SONDE_MEM_STORE : 0;
	return 1;
}

static SIGSAFE int ibs_access(const struct perfring_sample *s, struct rt_access *a)
{
	struct ibs_op_access x;
	uint32_t n = s->raw_len < PERFRING_RAW_MAX ? s->raw_len : PERFRING_RAW_MAX;
	if (ibs_op_decode(s->raw, n, &x) != 1)
		return 0;
	a->ip = x.ip ? x.ip : s->ip;
	a->addr = x.addr;
	a->len = x.len ? x.len : len_from_alignment(x.addr);
	a->flags = x.store ? SONDE_MEM_STORE : 0;
	if (x.store && x.load)
		a->flags |= SONDE_MEM_RMW;
	return 1;
}

static SIGSAFE void hw_on_sample(void *arg, const struct perfring_sample *s)
{
	struct hw_drain *d = arg;
	struct rt_thread *t = d->t;
	struct rt_access a = { .weight = 1 };

	/* Kernel-mode samples (IBS without swfilt) and other ops are not accesses of the
	 * program: skipped, not dropped. */
	if ((s->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
		return;
	int ok = hw_cfg.kind == PMU_HW_IBS ? ibs_access(s, &a) : pebs_access(d->h, s, &a);
	if (!ok)
		return;
	a.time = s->time ? s->time : rt_now();	/* CLOCK_MONOTONIC (use_clockid) */
	/* The tool counts the sample (stats.samples), or rt_deliver_access the drop. */
	rt_deliver_access(t, &a, d->uc, 0);
}

static SIGSAFE void hw_enable(struct hw_thread *h, int on)
{
	for (int i = 0; i < h->nfd; i++)	/* not on a number the program dup2'd onto */
		rt_fd_ioctl(h->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

static SIGSAFE void hw_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	struct rt_thread *t = rt_self();
	struct hw_thread *h = t ? t->src : NULL;

	if (h && !h->closing && h->ring.page) {
		t->stats.signals++;
		/* Paused while we run, so the handler's own loads and stores are not sampled. */
		hw_enable(h, 0);
		uint64_t before = h->st.lost + h->st.bad;
		struct hw_drain d = { .t = t, .h = h, .uc = uc };
		perfring_drain(&h->ring, hw_on_sample, &d, &h->st);
		t->stats.dropped += h->st.lost + h->st.bad - before;
		if (!h->closing && !t->stopped)
			hw_enable(h, 1);
	}
	errno = saved_errno;
}

/* ---- process and thread set-up (never in a handler) ---- */

static void copy_why(char *dst, size_t len, const char *src)
{
	if (!len)
		return;
	size_t n = strlen(src);
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static int hw_probe(char *why, size_t len)
{
	if (!hw_probed) {
		const char *test = getenv("SONDE_HW_EVENT");
		if (test && !strcmp(test, "page-faults"))
			pmu_hw_page_faults(&hw_cfg);
		else
			pmu_hw_probe(&hw_cfg);
		hw_probed = 1;
	}
	copy_why(why, len, hw_cfg.why);
	return hw_cfg.usable ? 0 : -ENOTSUP;
}

static int hw_start(void)
{
	char why[8];
	if (hw_probe(why, sizeof(why)) < 0)
		return -ENOTSUP;

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = hw_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, rt_cfg.sig_sample);
	if (rt_cfg.sig_watch > 0)
		sigaddset(&sa.sa_mask, rt_cfg.sig_watch); /* a trap inside our handler is fatal */
	if (sigaction(rt_cfg.sig_sample, &sa, NULL) < 0)
		return -errno;
	return 0;
}

static uint64_t hw_period(void)
{
	return rt_cfg.period ? rt_cfg.period : HW_DEFAULT_PERIOD;
}

/* Route fd's overflow signal to the calling thread. */
static int signal_to_thread(int fd, int tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) < 0 ||
	    fcntl(fd, F_SETSIG, rt_cfg.sig_sample) < 0 || fcntl(fd, F_SETOWN_EX, &owner) < 0)
		return -errno;
	return 0;
}

static int open_one(struct hw_thread *h, int i)
{
	struct perf_event_attr a = hw_cfg.ev[i].attr;
	pmu_hw_sampling_attr(&a, hw_cfg.kind, hw_period());
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	fd = rt_hide_fd(fd);
	if (fd < 0)
		return fd;	/* no descriptor free above the program's: this thread goes unsampled */
	h->fd[h->nfd++] = fd;
	h->store[i] = hw_cfg.ev[i].store;
	if (ioctl(h->fd[i], PERF_EVENT_IOC_ID, &h->id[i]) < 0)
		h->id[i] = UINT64_MAX;
	h->ring.sample_type = a.sample_type;
	return 0;
}

static int map_ring(struct hw_thread *h)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	h->map_len = (1 + HW_RING_PAGES) * pg;
	h->map = mmap(NULL, h->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd[0], 0);
	if (h->map == MAP_FAILED) {
		h->map = NULL;
		return -errno;
	}
	struct perf_event_mmap_page *page = h->map;
	uint64_t off = page->data_offset ? page->data_offset : pg;
	h->ring.data = (unsigned char *)h->map + off;
	h->ring.size = page->data_size ? page->data_size : HW_RING_PAGES * pg;
	h->ring.page = page;
	return 0;
}

static void count_unread(void *arg, const struct perfring_sample *s)
{
	(*(uint64_t *)arg)++;
}

/* Stop and release h.  Samples still in the ring had no handler run for them: with t,
 * they are counted as dropped. */
static void hw_close(struct hw_thread *h, struct rt_thread *t)
{
	h->closing = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	hw_enable(h, 0);
	if (t && h->ring.page) {
		uint64_t unread = 0, before = h->st.lost + h->st.bad;
		perfring_drain(&h->ring, count_unread, &unread, &h->st);
		t->stats.dropped += unread + h->st.lost + h->st.bad - before;
	}
	for (int i = 0; i < h->nfd; i++)
		rt_close_fd(h->fd[i]);
	h->nfd = 0;
	h->ring.page = NULL;
	if (h->map)
		munmap(h->map, h->map_len);
	h->map = NULL;
}

static int hw_thread_start(struct rt_thread *t)
{
	struct hw_thread *h = arena_alloc(&t->arena, sizeof(*h));
	int err = 0;

	if (!h)
		return -ENOMEM;
	for (int i = 0; i < hw_cfg.nevents && i < HW_MAX_EVENTS && !err; i++)
		err = open_one(h, i);
	if (!err && h->nfd == 0)
		err = -ENOTSUP;
	if (!err)
		err = map_ring(h);
	for (int i = 1; i < h->nfd && !err; i++)
		if (ioctl(h->fd[i], PERF_EVENT_IOC_SET_OUTPUT, h->fd[0]) < 0)
			err = -errno;
	for (int i = 0; i < h->nfd && !err; i++)
		err = signal_to_thread(h->fd[i], t->tid);
	if (err) {
		hw_close(h, NULL);
		return err;
	}
	t->src = h;
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* the handler may look from now on */
	hw_enable(h, 1);
	return 0;
}

static void hw_thread_stop(struct rt_thread *t)
{
	struct hw_thread *h = t->src;
	if (!h)
		return;
	hw_close(h, t);
	/* A sample signal already queued may still arrive after this, when the arena
	 * holding h is gone: the handler must find no state. */
	t->src = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void hw_after_fork_child(struct rt_thread *t)
{
	struct hw_thread *h = t->src;
	if (!h)
		return;
	/* The child inherits the fds but not the events' counting (they follow the parent's
	 * thread) nor the ring mapping (perf maps are not copied on fork). */
	h->closing = 1;
	for (int i = 0; i < h->nfd; i++)
		rt_close_fd(h->fd[i]);
	h->nfd = 0;
	h->map = NULL;
	h->ring.page = NULL;
	t->src = NULL;
}

const struct rt_source rt_source_hw = {
	.name = "hw",
	.id = SONDE_SOURCE_HW,
	.default_period = HW_DEFAULT_PERIOD,
	.probe = hw_probe,
	.start = hw_start,
	.thread_start = hw_thread_start,
	.thread_stop = hw_thread_stop,
	.after_fork_child = hw_after_fork_child,
};
