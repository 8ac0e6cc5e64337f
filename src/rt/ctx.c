/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - calling contexts: unwinding at a sample (libunwind, local only) and the
 * per-thread calling-context tree.  Handler-reachable.
 *
 * Unwinding takes the loader's lock in dl_iterate_phdr when libunwind meets a module it
 * has not cached; a sample that interrupted the loader itself would deadlock.  So when
 * the thread is inside dlopen/dlclose (rt_loader_busy) or the PC is in the dynamic loader,
 * only the leaf frame is kept and the sample is counted in unwind_fail.
 */
#define UNW_LOCAL_ONLY
#include <unwind.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <libunwind.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/ctx.h"
#include "rt/libtrim.h"
#include "rt/sigsafe.h"

struct cct_node {
	uint64_t ip;
	uint32_t id;
	uint32_t pad;
	struct cct_node *child;
	struct cct_node *sibling;
};

/*
 * libunwind's entry points, looked up at start (ctx_process_init) in the library init.c
 * loads for the processes that unwind: it is not linked, so a tool that walks frame
 * pointers itself (RT_TOOL_FP_CONTEXT) maps neither it nor its liblzma (0.1 MB of
 * resident memory: bench/variance.sh, part 4).  NULL until then.
 */
static struct {
	int (*init_local)(unw_cursor_t *c, unw_context_t *uc);
	int (*init_local2)(unw_cursor_t *c, unw_context_t *uc, int flag);
	int (*step)(unw_cursor_t *c);
	int (*get_reg)(unw_cursor_t *c, unw_regnum_t r, unw_word_t *v);
	int (*getcontext)(unw_context_t *uc);
	int (*set_caching_policy)(unw_addr_space_t as, unw_caching_policy_t p);
	unw_addr_space_t *local_addr_space;
} unw;

volatile int rt_loader_busy;
RT_TLS int rt_loader_mine;
/* This process was forked while another thread held the loader's lock (ctx_fork_child). */
static int loader_wedged;

void rt_loader_enter(void)
{
	rt_loader_mine++;
	__sync_fetch_and_add(&rt_loader_busy, 1);
}

void rt_loader_leave(void)
{
	__sync_fetch_and_sub(&rt_loader_busy, 1);
	rt_loader_mine--;
}
static uint64_t loader_lo, loader_hi;
static uint64_t unwinder_lo, unwinder_hi;

void ctx_set_loader_range(uint64_t lo, uint64_t hi)
{
	loader_lo = lo;
	loader_hi = hi;
}

void ctx_set_unwinder_range(uint64_t lo, uint64_t hi)
{
	unwinder_lo = lo;
	unwinder_hi = hi;
}

SIGSAFE int ctx_in_unwinder(uint64_t addr)
{
	return addr >= unwinder_lo && addr < unwinder_hi;
}

/*
 * libunwind's memory check, without its pipe.
 *
 * libunwind 1.6 (Debian's build has its conservative checks on) checks every address it
 * reads while unwinding by write(2)-ing a byte of it into a pipe of its own, and when
 * read(2) on the pipe fails it reopens it: close both ends, pipe2, with no lock.  The
 * pipe is the program's to break: a close_range or closefrom closes it, a dup2 puts the
 * program's own files on its numbers (libunwind then read a byte of the program's pipe
 * and wrote one into it: rt-fdstorm's dup mode, every run), and two threads sampled just
 * after such a close both reopen it, one closing the ends the other just made and
 * writing: EPIPE, and a SIGPIPE to the thread, which kills the program (strace on
 * rt-fdstorm: write(702) = EPIPE after the two threads' pipe2; once in t017; upstream's
 * issue 715, fixed after 1.8 with a pipe per thread, still the program's to close).
 * Moving the pipe to the runtime's descriptors (700 up) made the clash rarer, not
 * impossible.
 *
 * So libunwind gets no pipe.  At start its calls of pipe2, read, close, syscall (and
 * mincore) are bound to the functions below (its PLT slots are rewritten): its "pipe" is
 * UNW_NOFD, which is no descriptor and reads as healthy (EAGAIN), and its write of the
 * byte becomes process_vm_readv of that byte from this process into a local buffer:
 * readable memory gives 1, unreadable memory EFAULT, as the write did.  No descriptor
 * the program can close, dup2 over or read; nothing shared between threads; no SIGPIPE;
 * and a check costs getpid and process_vm_readv where it cost mincore, read and write
 * (less: bench/unwind-check.sh).  A libunwind whose calls are not found
 * keeps its pipe, moved out of the way by pipe2 below.  Handler-safe (system calls only).
 */
#define UNW_NOFD (-2) /* libunwind treats only -1 as "no descriptor" */

static RT_TLS int unw_reopening;

static SIGSAFE int unw_pipe2(int fds[2], int flags)
{
	(void)flags;
	unw_reopening = 0;
	fds[0] = fds[1] = UNW_NOFD;
	return 0;
}

/*
 * read and close are libunwind's for its other files too (/proc/self/maps behind
 * unw_get_proc_name, ELF images): those go to the system.  Its memory check alone reads
 * one byte from its pipe; a pipe libunwind made before the slots were bound (a program
 * that unwound before sonde started) reads as broken, so libunwind reopens it on UNW_NOFD,
 * and the two closes of that reopen are skipped: the old pipe's numbers may be the
 * program's by now.  The thread's flag (unw_reopening) spans the read, the two closes and
 * the pipe2.
 */

static SIGSAFE ssize_t unw_read(int fd, void *buf, size_t n)
{
	if (fd == UNW_NOFD) {
		errno = EAGAIN;
		return -1;
	}
	if (n == 1 && fd >= 0) {	/* the memory check, on a pipe made before binding */
		unw_reopening = 1;
		errno = EBADF;
		return -1;
	}
	return syscall(SYS_read, fd, buf, n);
}

static SIGSAFE int unw_close(int fd)
{
	if (fd == UNW_NOFD || unw_reopening)
		return 0;
	return (int)syscall(SYS_close, fd);
}

/* Whether the byte at A is readable, without touching it: 0 or -1 (errno EFAULT).
 * process_vm_readv fails like the write(2) did: unmapped, PROT_NONE, or past the end of a
 * mapped file.  getpid each time, not a cached pid: a child made by a raw clone (no fork
 * handlers ran) unwinds too. */
static SIGSAFE int readable(const void *a)
{
	char buf;
	struct iovec here = { &buf, 1 };
	struct iovec there = { (void *)a, 1 };
	if (process_vm_readv(getpid(), &here, 1, &there, 1, 0) == 1)
		return 0;
	errno = EFAULT;
	return -1;
}

/* The write of a byte at ADDR into the pipe: the check itself. */
static SIGSAFE long unw_syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	/* six arguments whatever the call passed, as glibc's syscall itself takes them */
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_write && (int)a[0] == UNW_NOFD)
		return readable((const void *)a[1]) ? -1 : 1;	/* one byte written */
	return syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* libunwind 1.6 asks mincore whether the one or two pages under a word are mapped before
 * it writes the first page's first byte: that byte is checked by the write, the last page
 * is checked here when there are two (one system call where mincore was one). */
static SIGSAFE int unw_mincore(void *addr, size_t len, unsigned char *vec)
{
	(void)vec;
	if (len <= 4096)
		return 0;
	const char *last = (const char *)addr + len - 1;
	return readable(last);
}

static const struct {
	const char *name;
	void *fn;
	int required;
} unw_binds[] = {
	{ "pipe2", (void *)unw_pipe2, 1 },
	{ "read", (void *)unw_read, 1 },
	{ "close", (void *)unw_close, 1 },
	{ "syscall", (void *)unw_syscall, 1 },
	{ "mincore", (void *)unw_mincore, 0 }, /* 1.6; later versions check by the write only */
};
#define UNW_NBINDS (sizeof(unw_binds) / sizeof(unw_binds[0]))

struct unw_slots {
	void **slot[UNW_NBINDS];
	uint64_t relro_lo, relro_hi;
};

/* A dynamic-section address: glibc relocates them in place on x86-64, others may not. */
static uint64_t dyn_addr(const struct dl_phdr_info *info, uint64_t v)
{
	return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

static void find_slots(const struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t size,
		       const ElfW(Sym) *sym, const char *str, struct unw_slots *us)
{
	for (size_t i = 0; rel && i < size / sizeof(*rel); i++) {
		unsigned type = ELF64_R_TYPE(rel[i].r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		const char *name = str + sym[ELF64_R_SYM(rel[i].r_info)].st_name;
		for (size_t k = 0; k < UNW_NBINDS; k++)
			if (strcmp(name, unw_binds[k].name) == 0 && !us->slot[k])
				us->slot[k] = (void **)(info->dlpi_addr + rel[i].r_offset);
	}
}

/* Whether `info` is the libunwind the runtime calls, found by its code: not the first file
 * of that name (a program linked to LLVM's libunwind.so.1 has it earlier in the list). */
static int holds_unwinder(const struct dl_phdr_info *info)
{
	return rt_dl_holds(info, (uintptr_t)unw.init_local);
}

/* Its whole range: its pipe2 calls (the fallback below) are told apart by it. */
static void unw_range_set(const struct dl_phdr_info *info)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD)
			continue;
		lo = a < lo ? a : lo;
		hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
	}
	ctx_set_unwinder_range(lo, hi);
}

/* Where its calls to the functions unw_binds names are looked up (its PLT and GOT slots). */
static void unw_slots_find(const struct dl_phdr_info *info, struct unw_slots *us)
{
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			us->relro_lo = info->dlpi_addr + ph->p_vaddr;
			us->relro_hi = us->relro_lo + ph->p_memsz;
		}
	}
	uint64_t symtab = 0, strtab = 0, jmprel = 0, jmpsz = 0, rela = 0, relasz = 0, pltrel = 0;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB: symtab = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_STRTAB: strtab = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_JMPREL: jmprel = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_PLTRELSZ: jmpsz = dyn->d_un.d_val; break;
		case DT_PLTREL: pltrel = dyn->d_un.d_val; break;
		case DT_RELA: rela = dyn_addr(info, dyn->d_un.d_ptr); break;
		case DT_RELASZ: relasz = dyn->d_un.d_val; break;
		}
	}
	if (!symtab || !strtab || (jmprel && pltrel != DT_RELA))
		return;
	const ElfW(Sym) *sym = (const ElfW(Sym) *)symtab;
	find_slots(info, (const ElfW(Rela) *)jmprel, jmpsz, sym, (const char *)strtab, us);
	find_slots(info, (const ElfW(Rela) *)rela, relasz, sym, (const char *)strtab, us);
}

/* The loaded objects walked once for libunwind's file: its range and its slots. */
static int unw_object_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (!holds_unwinder(info))
		return 0;
	unw_range_set(info);
	unw_slots_find(info, data);
	return 1;
}

/* Bind libunwind's calls (its slots us, unw_object_cb) to the functions above: the four
 * required ones, or none.  0, or -ENOENT (a libunwind built another way, or its slots not
 * writable: it keeps its pipe), -ENOSYS (process_vm_readv refused, by a seccomp filter for
 * example).  Process start, before libunwind's first use. */
static int unw_bind_nopipe(const struct unw_slots *us)
{
	long probe = 1;
	if (readable(&probe) || !readable(NULL))
		return -ENOSYS;
	for (size_t k = 0; k < UNW_NBINDS; k++)
		if (unw_binds[k].required && !us->slot[k])
			return -ENOENT;
	/* slots made read-only after relocation (RELRO, with BIND_NOW) are opened first, so
	 * that a refusal leaves none bound */
	uint64_t lo = us->relro_lo & ~4095ull, hi = us->relro_hi & ~4095ull; /* as ld.so does */
	int ro = 0;
	for (size_t k = 0; k < UNW_NBINDS; k++) {
		uint64_t a = (uint64_t)(uintptr_t)us->slot[k];
		ro |= a && a >= lo && a < hi;
	}
	if (ro && mprotect((void *)(uintptr_t)lo, hi - lo, PROT_READ | PROT_WRITE))
		return -ENOENT;
	for (size_t k = 0; k < UNW_NBINDS; k++)
		if (us->slot[k])
			__atomic_store_n(us->slot[k], unw_binds[k].fn, __ATOMIC_RELEASE);
	if (ro)
		mprotect((void *)(uintptr_t)lo, hi - lo, PROT_READ);
	return 0;
}

/*
 * The fallback, for a libunwind whose calls could not be bound: its pipe, made on the
 * lowest free descriptors, took the numbers the program expects for its own files (and
 * after a close_range at start libunwind read from and wrote into the program's).  So
 * its pipe goes where the runtime's descriptors go, or is refused (libunwind then treats
 * the memory as unreadable and the call path ends there).  Everyone else's pipe2 is the
 * plain system call.  Handler-safe.
 */
RT_EXPORT int pipe2(int fds[2], int flags)
{
	uint64_t caller = (uint64_t)(uintptr_t)__builtin_return_address(0);
	int p[2];
	if (syscall(SYS_pipe2, p, flags) < 0)
		return -1;
	if (caller >= unwinder_lo && caller < unwinder_hi) {
		p[0] = rt_hide_fd(p[0]);
		p[1] = rt_hide_fd(p[1]);
		if (p[0] < 0 || p[1] < 0) {
			if (p[0] >= 0)
				close(p[0]);
			if (p[1] >= 0)
				close(p[1]);
			errno = EMFILE;
			return -1;
		}
	}
	fds[0] = p[0];
	fds[1] = p[1];
	return 0;
}

/*
 * libunwind keeps its cache of unwinding rules behind a mutex of its own (the Debian build
 * has no per-thread cache: UNW_CACHE_PER_THREAD falls back to the global one).  A fork
 * while another thread holds that mutex leaves it locked for ever in the child, whose next
 * unwind hangs (seen: t015's fork-mt, 2 runs in 60).  So every use of libunwind passes
 * this gate, and a fork closes it and waits until no thread is inside.  Handler-safe.
 */
static volatile int unw_inside;
static volatile int unw_closed;
/* An unwinder is set up: libunwind (ctx_process_init) and/or libgcc's
 * (ctx_use_gcc_unwinder); init.c loads libunwind only for a tool with
 * RT_TOOL_SIGNAL_CONTEXT, and neither for one that walks frame pointers itself */
static int unw_ready;

static int unw_enter(void)
{
	if (!unw_ready)
		return -1;
	__atomic_fetch_add(&unw_inside, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&unw_closed, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&unw_inside, 1, __ATOMIC_SEQ_CST);
		return -1;
	}
	return 0;
}

static void unw_leave(void)
{
	__atomic_fetch_sub(&unw_inside, 1, __ATOMIC_RELEASE);
}

void ctx_fork_prepare(void)
{
	__atomic_store_n(&unw_closed, 1, __ATOMIC_SEQ_CST);
	/* Bounded: a program's handler may have longjmp'd out of an unwind (the count then
	 * never falls); after 1 s the fork goes ahead as it would have without the gate. */
	uint64_t deadline = rt_now() + 1000000000ull;
	while (__atomic_load_n(&unw_inside, __ATOMIC_SEQ_CST) && rt_now() < deadline)
		sched_yield();
}

void ctx_fork_parent(void)
{
	__atomic_store_n(&unw_closed, 0, __ATOMIC_SEQ_CST);
}

void ctx_fork_child(void)
{
	/* only the forking thread exists here, and it is not unwinding.  Another thread that
	 * was inside dlopen or dl_iterate_phdr at the fork left the loader's lock held in the
	 * child for good (its holder does not exist here): the child never unwinds, from a
	 * handler (rt_loader_busy stays raised) or not (loader_wedged).  Lowering the count
	 * instead hung the child in libunwind's dl_iterate_phdr (the review's fork loop). */
	__atomic_store_n(&unw_inside, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&unw_closed, 0, __ATOMIC_SEQ_CST);
	if (rt_loader_busy > rt_loader_mine)
		loader_wedged = 1;
}

static int in_runtime_code(uint64_t ip)
{
	return rt_owns_address(ip);
}

/* ---- libgcc's unwinder, for paths taken in ordinary code ---- */

static _Unwind_Reason_Code (*gcc_backtrace)(_Unwind_Trace_Fn, void *);
static _Unwind_Ptr (*gcc_get_ip)(struct _Unwind_Context *);

struct gcc_walk {
	uint64_t *ips;
	int n, max, skip, skipping;
};

static _Unwind_Reason_Code gcc_frame(struct _Unwind_Context *uc, void *arg)
{
	struct gcc_walk *w = arg;
	uint64_t ip = (uint64_t)gcc_get_ip(uc);
	if (!ip)
		return _URC_END_OF_STACK;
	if (w->skipping && in_runtime_code(ip))
		return _URC_NO_REASON;
	if (w->skipping && w->skip > 0) {
		w->skip--;
		return _URC_NO_REASON;
	}
	w->skipping = 0;
	w->ips[w->n++] = ip;
	return w->n < w->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/*
 * libgcc's unwinder for call paths taken in ordinary code (allocations, the inst source):
 * it needs no signal masking, where libunwind's local unwinding makes a dozen sigprocmask
 * calls per path (measured: a malloc-heavy program ran 180x slower).  Given by init.c,
 * which loads libgcc_s itself: libunwind exports functions of the same names.
 */
void ctx_use_gcc_unwinder(void *backtrace, void *get_ip)
{
	*(void **)&gcc_get_ip = get_ip;
	*(void **)&gcc_backtrace = get_ip ? backtrace : NULL;
	if (gcc_backtrace)
		unw_ready = 1;
}

static int gcc_unwind(int skip, uint64_t *ips, int max)
{
	struct gcc_walk w = { ips, 0, max, skip, 1 };
	gcc_backtrace(gcc_frame, &w);
	return w.n;
}

static int unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips, int max);

SIGSAFE int ctx_unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips, int max)
{
	if (max <= 0)
		return 0;
	if (unw_enter()) {
		t->stats.unwind_fail++;
		if (!uc)
			return 0;
		ips[0] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		return 1;
	}
	int n = unwind(t, uc, skip, ips, max);
	unw_leave();
	return n;
}

static SIGSAFE int unwind(struct rt_thread *t, const ucontext_t *uc, int skip, uint64_t *ips,
			  int max)
{
	unw_context_t here;
	unw_cursor_t cur;
	int n = 0, from_signal = uc != NULL;

	if (from_signal) {
		uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		ips[n++] = pc;
		if (rt_loader_busy || (pc >= loader_lo && pc < loader_hi)) {
			t->stats.unwind_fail++;
			return n;
		}
		if (!unw.init_local2 ||
		    unw.init_local2(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0) {
			t->stats.unwind_fail++;
			return n;
		}
	} else {
		/* not a handler: only this thread's own holding of the loader's lock matters
		 * (another's only makes the unwinder wait; allocation sites read "[unknown
		 * allocation site]" while any thread walked the modules: review) */
		if (rt_loader_mine || loader_wedged) {
			t->stats.unwind_fail++;
			return 0;
		}
		if (gcc_backtrace)
			return gcc_unwind(skip, ips, max);
		if (!unw.getcontext) {
			t->stats.unwind_fail++;
			return 0;
		}
		unw.getcontext(&here);
		if (unw.init_local(&cur, &here) < 0) {
			t->stats.unwind_fail++;
			return 0;
		}
	}
	/* From a signal, the leaf is already stored; otherwise skip the runtime's own frames
	 * (and `skip` more) so the path starts in the program. */
	int skipping = !from_signal;
	while (n < max) {
		int r = unw.step(&cur);
		if (r <= 0) {
			if (r < 0)
				t->stats.unwind_fail++;
			break;
		}
		unw_word_t ip;
		if (unw.get_reg(&cur, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (skipping && in_runtime_code(ip))
			continue;
		if (skipping && skip > 0) {
			skip--;
			continue;
		}
		skipping = 0;
		ips[n++] = ip;
	}
	return n;
}

static struct cct_node *node_new(struct rt_thread *t, struct cct_node *parent, uint64_t ip)
{
	struct cct_node *c = arena_alloc(&t->arena, sizeof(*c));
	if (!c)
		return NULL;
	c->ip = ip;
	c->id = ++t->cct.next_id;
	struct sonde_rec_ctx r = {
		.h = { .type = SONDE_REC_CTX, .size = sizeof(r) },
		.id = c->id,
		.parent = parent ? parent->id : 0,
		.ip = ip,
	};
	if (out_append(&t->out, &r, sizeof(r)) < 0)
		return NULL;
	if (parent) {
		c->sibling = parent->child;
		parent->child = c;
	}
	return c;
}

SIGSAFE uint32_t ctx_intern(struct rt_thread *t, const uint64_t *ips, int n)
{
	struct cct_node *node = t->cct.root;
	if (!node) {
		node = t->cct.root = node_new(t, NULL, 0);
		if (!node)
			return 0;
	}
	for (int i = n - 1; i >= 0; i--) {
		struct cct_node *c, *prev = NULL;
		for (c = node->child; c; prev = c, c = c->sibling)
			if (c->ip == ips[i])
				break;
		if (c && prev) {
			/* move to front: hot paths are found first next time */
			prev->sibling = c->sibling;
			c->sibling = node->child;
			node->child = c;
		}
		if (!c && !(c = node_new(t, node, ips[i])))
			return 0;
		node = c;
	}
	return node->id;
}

SIGSAFE uint32_t ctx_here(struct rt_thread *t, const ucontext_t *uc, int skip)
{
	uint64_t ips[256];
	int max = rt_cfg.max_depth > 0 && rt_cfg.max_depth < 256 ? rt_cfg.max_depth : 256;
	int n = ctx_unwind(t, uc, skip, ips, max);
	return ctx_intern(t, ips, n);
}

void ctx_reset(struct rt_thread *t)
{
	t->cct.root = NULL;
	t->cct.next_id = 0;
}

void ctx_thread_warmup(void)
{
	/* libunwind initialises itself and its per-thread cache lazily, possibly allocating:
	 * do it here, outside any handler. */
	unw_context_t uc;
	unw_cursor_t cur;
	if (!unw.getcontext || unw_enter())	/* libunwind not loaded: nothing to warm */
		return;
	unw.getcontext(&uc);
	if (unw.init_local(&cur, &uc) == 0)
		while (unw.step(&cur) > 0)
			;
	unw_leave();
}

int ctx_process_init(void *(*lookup)(const char *name))
{
	*(void **)&unw.init_local = lookup("_ULx86_64_init_local");
	*(void **)&unw.init_local2 = lookup("_ULx86_64_init_local2");
	*(void **)&unw.step = lookup("_ULx86_64_step");
	*(void **)&unw.get_reg = lookup("_ULx86_64_get_reg");
	*(void **)&unw.getcontext = lookup("_Ux86_64_getcontext");
	*(void **)&unw.set_caching_policy = lookup("_ULx86_64_set_caching_policy");
	unw.local_addr_space = lookup("_ULx86_64_local_addr_space");
	if (!unw.init_local || !unw.init_local2 || !unw.step || !unw.get_reg ||
	    !unw.getcontext || !unw.set_caching_policy || !unw.local_addr_space)
		return -ELIBBAD;
	struct unw_slots us = { 0 };
	dl_iterate_phdr(unw_object_cb, &us);
	/* before libunwind's first use (the caching policy may already open its pipe) */
	int r = unw_bind_nopipe(&us);
	unw.set_caching_policy(*unw.local_addr_space, UNW_CACHE_GLOBAL);
	unw_ready = 1;
	return r;
}
