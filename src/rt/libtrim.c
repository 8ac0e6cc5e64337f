/* SPDX-License-Identifier: MIT */
/*
 * libtrim.c - the runtime's own libraries (libsonde.so, libZydis, libgcc_s, libunwind and
 * its liblzma) made resident by the page they use.
 *
 * The kernel maps a file's cached pages up to 64 KB around each page fault (fault-around,
 * clamped to the mapping), so a library whose code and tables are touched here and there
 * is resident nearly whole: libZydis 480-584 KB of its 626 after a few decodes, libsonde.so
 * all of its 164 (bench/memory.sh), on programs of 1.5-2 MB.  madvise(MADV_RANDOM) does not
 * stop fault-around, but fault-around does not cross a mapping's end: so every second
 * granule of 4 pages (16 KB) of a read-only segment gets MADV_RANDOM (no read-ahead on a
 * page-cache miss: harmless, the file is cached), which the kernel keeps as a mapping of
 * its own, and each granule becomes a mapping that a fault fills at most whole.  Not one
 * page: a mapping a page made every fork copy and every exit free ~200 more mappings,
 * and a forked child, which keeps no file page of its parent's, refaulted every page the
 * runtime used one by one (the review's fork loop: +10-23% task-clock, 87 -> 105 faults a
 * child); 4 pages keep two thirds of the saving with a sixth of the extra mappings (92
 * against 256 under comm, 57 untrimmed: doc/architecture.md, "The runtime's own
 * libraries, resident by the page").  The pages mapped before that (ld.so's
 * relocation pass over the ELF headers, start-up code) are unmapped by MADV_DONTNEED,
 * which on a page of a private file mapping that nobody wrote just drops the mapping:
 * the next use maps the page cache's page again (one minor fault a page).  Pages written
 * (a debugger's breakpoints, text relocations) are private copies: pagemap tells them
 * apart and they are left alone.  Writable segments (.data, .bss, the GOT and RELRO) are
 * never touched.
 *
 * Only the runtime's own libraries: the program's (libc) keep their fault-around, so its
 * own resident memory is as without sonde (but for the pages the runtime's start-up alone
 * mapped in them, which are unmapped again: rt_trim_foreign_drop, at the end).  At process start only (sonde_init, and the
 * dlopen of a library the runtime loads for itself; rt_trim_prefault also in a forked
 * child): not handler-safe.  libsonde.so is trimmed with the runtime off too (no SONDE_*:
 * 172 KB of it were resident in a program that merely inherited LD_PRELOAD).
 *
 * A tool that counts page faults (variance with -e page-faults) must not see a handler's or an interposer's
 * first touch of a runtime page inside a measured instance, in a forked child either
 * (which maps none of its parent's file pages).  It keeps libsonde.so's resident part:
 * the code those paths run is linked first (Makefile, RT_RESIDENT), so that part is one
 * range per segment, each made a mapping of its own and mapped whole again after each
 * trimming and in a forked child; the rest (start-up, the other tools, the unwind tables
 * unless an unwinder serves the paths: rt_trim_keep_unwind) is trimmed as for any tool.
 * Keeping all of libsonde.so mapped, as before, cost 172-184 KB; the resident part is
 * 108 KB (12 of headers, 84 of code, 12 of constants), 128 KB with the unwind tables
 * under the inst source (bench/variance-resident.sh, 2026-11-26 14:42 and 14:44 UTC).
 * That no handler faults outside it rests on RT_RESIDENT listing every file such a path
 * reaches:
 * t009 checks the built library's resident code for calls, jumps and pointers to code
 * above the marker (but an allow-list of start-up and other tools' paths), and
 * bench/variance-resident.sh traces the faults of the runs it makes; neither proves it
 * for every path (an indirect call through a pointer set at run time escapes t009).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt/libtrim.h"

#define TRIM_PAGE 4096ul
#define TRIM_GRANULE (4 * TRIM_PAGE)	/* the mappings' size: see above */
#define TRIM_PM_BATCH 512		/* pagemap entries a pread: 2 MB, 4 KB of stack */

/* rt_trim_keep_resident: the libraries the runtime dlopens are not trimmed (trim_off),
 * and libsonde.so's resident part is kept mapped */
static int trim_off, keep_resident, keep_unwind;

/*
 * libsonde.so's resident part (Makefile, RT_RESIDENT): its first segment (the ELF and
 * program headers, which dl_iterate_phdr reads, and the dynamic symbol tables: libsonde.so
 * is preloaded, so the loader's lazy binding of any of the program's calls looks it up
 * first), its code from the text segment's start (PLT, constructors, cold partitions,
 * then the RT_RESIDENT objects, linked first) up to rt_resident_end, the marker linked
 * right after them (rt_trim_keep_resident's code_end), and its constants (.rodata, from
 * the constant segment's start up to .eh_frame_hdr: the unwind tables after it are read
 * by no handler of a tool that counts faults, which walks frame pointers, unless an
 * unwinder serves its paths: rt_trim_keep_unwind, then up to the segment's end, 20 KB
 * more on 2026-11-26's build).  Page ranges, found in trim_object when it trims
 * libsonde.so; [0] the headers, [1] code, [2] constants.
 */
struct trim_range {
	uintptr_t lo, hi;
};
static struct trim_range resident[3];
static uintptr_t resident_code_end;

void rt_trim_keep_resident(const void *code_end)
{
	resident_code_end = (uintptr_t)code_end;
	trim_off = keep_resident = 1;
}

void rt_trim_keep_unwind(void)
{
	keep_unwind = 1;
}

/* Unmap the pages of [lo, hi) that are present and still the file's (pagemap: bit 63
 * present, bit 61 file page; a private copy has 61 clear), a run of them per call.  The
 * pagemap is read a segment (up to 2 MB) a pread, not a page a pread. */
static void drop_file_pages(int pm, uintptr_t lo, uintptr_t hi)
{
	uint64_t e[TRIM_PM_BATCH];
	uintptr_t run = 0;	/* start of the current run of droppable pages, 0: none */

	for (uintptr_t b = lo; b < hi; b += TRIM_PM_BATCH * TRIM_PAGE) {
		size_t n = (hi - b) / TRIM_PAGE;
		ssize_t got;

		n = n < TRIM_PM_BATCH ? n : TRIM_PM_BATCH;
		got = pread(pm, e, n * sizeof(e[0]), (off_t)(b / TRIM_PAGE * sizeof(e[0])));
		for (size_t i = 0; i < n; i++) {
			uintptr_t a = b + i * TRIM_PAGE;
			int file = (ssize_t)((i + 1) * sizeof(e[0])) <= got &&
				   (e[i] >> 63 & 1) && (e[i] >> 61 & 1);

			if (file && !run)
				run = a;
			if (!file && run) {
				madvise((void *)run, a - run, MADV_DONTNEED);
				run = 0;
			}
		}
	}
	if (run)
		madvise((void *)run, hi - run, MADV_DONTNEED);
}

/* Whether page range [lo, hi) overlaps any writable PT_LOAD or the RELRO of info. */
static int overlaps_writable(const struct dl_phdr_info *info, uintptr_t lo, uintptr_t hi)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (!(ph->p_type == PT_GNU_RELRO || (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))))
			continue;
		uintptr_t a = (info->dlpi_addr + ph->p_vaddr) & ~(TRIM_PAGE - 1);
		uintptr_t b = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + TRIM_PAGE - 1) &
			      ~(TRIM_PAGE - 1);
		if (a < hi && lo < b)
			return 1;
	}
	return 0;
}

#define PAGE_DOWN(a) ((uintptr_t)(a) & ~(TRIM_PAGE - 1))
#define PAGE_UP(a) (((uintptr_t)(a) + TRIM_PAGE - 1) & ~(TRIM_PAGE - 1))

/* libsonde.so's resident ranges (above), when info is libsonde.so: 1, else 0 */
static int resident_find(const struct dl_phdr_info *info)
{
	uintptr_t end = resident_code_end, eh = 0;
	const ElfW(Phdr) *text = NULL, *ro = NULL;

	if (!rt_dl_holds(info, end))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD)
			continue;
		if (!resident[0].lo && !(ph->p_flags & (PF_X | PF_W)))
			resident[0] = (struct trim_range){ PAGE_DOWN(info->dlpi_addr + ph->p_vaddr),
							   PAGE_UP(info->dlpi_addr + ph->p_vaddr +
								   ph->p_memsz) };
		if (ph->p_flags & PF_X)
			text = ph;
		else if (text && !ro && !(ph->p_flags & PF_W))
			ro = ph;
	}
	if (text)
		resident[1] = (struct trim_range){ PAGE_DOWN(info->dlpi_addr + text->p_vaddr),
						   PAGE_UP(end + 1) };
	if (ro)
		resident[2] = (struct trim_range){ PAGE_DOWN(info->dlpi_addr + ro->p_vaddr),
						   PAGE_UP(eh && !keep_unwind ? eh :
							   info->dlpi_addr + ro->p_vaddr +
							   ro->p_memsz) };
	return 1;
}

void rt_trim_prefault(void)
{
	for (int r = 0; r < 3; r++)
		for (uintptr_t a = resident[r].lo; a < resident[r].hi; a += TRIM_PAGE)
			(void)*(volatile const char *)a;
}

/* Split and drop every read-only PT_LOAD of info; a segment whose pages another, writable
 * one shares is left whole.  pm: /proc/self/pagemap, or -1 (then nothing is dropped).
 * libsonde.so's resident part, when kept, is mapped again after (rt_trim_prefault). */
static void trim_object(const struct dl_phdr_info *info, int pm)
{
	int own = keep_resident && resident_find(info);

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || !ph->p_memsz)
			continue;
		uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(TRIM_PAGE - 1);
		uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + TRIM_PAGE - 1) &
			       ~(TRIM_PAGE - 1);
		if (overlaps_writable(info, lo, hi))
			continue;
		/* a resident range (at a segment's start) is a mapping of its own: a fault in
		 * it maps none of the granules after it, the granules start after it */
		uintptr_t from = lo;
		for (int r = 0; own && r < 3; r++)
			if (resident[r].lo == lo && resident[r].hi > lo) {
				from = resident[r].hi < hi ? resident[r].hi : hi;
				madvise((void *)lo, from - lo, MADV_RANDOM);
			}
		for (uintptr_t a = from + TRIM_GRANULE; a < hi; a += 2 * TRIM_GRANULE)
			madvise((void *)a, hi - a < TRIM_GRANULE ? hi - a : TRIM_GRANULE,
				MADV_RANDOM);
		if (pm >= 0)
			drop_file_pages(pm, lo, hi);
	}
	if (own)
		rt_trim_prefault();
}

static int pagemap_open(void)
{
	return open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

struct trim_at {
	uintptr_t addr;
	int pm, found;
};

int rt_dl_holds(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= a && addr < a + ph->p_memsz)
			return 1;
	}
	return 0;
}

static int trim_at_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct trim_at *t = data;

	(void)size;
	if (!rt_dl_holds(info, t->addr))
		return 0;
	trim_object(info, t->pm);
	t->found = 1;
	return 1;
}

int rt_trim_object_at(const void *addr)
{
	struct trim_at t = { (uintptr_t)addr, -1, 0 };
	t.pm = pagemap_open();
	dl_iterate_phdr(trim_at_cb, &t);
	if (t.pm >= 0)
		close(t.pm);
	return t.found ? 0 : -ENOENT;
}

/* The loaded objects counted, with the loader's counts of objects added and removed; or
 * past the first `skip` of them, trimmed. */
struct trim_count {
	int n, skip, pm;
	unsigned long long adds, subs;
};

static int count_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct trim_count *c = data;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
	}
	if (c->n++ >= c->skip)
		trim_object(info, c->pm);
	return 0;
}

/*
 * The loader appends what a dlopen loads to the end of its list: the objects past the
 * count before it are the new ones, if nothing else was loaded or unloaded meanwhile (by
 * another thread: the loader's counts of added and removed objects tell).
 */
void *rt_dlopen_trimmed(const char *name)
{
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);

	if (trim_off && !h)
		return dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (h)	/* the program's: its pages are the program's business */
		return h;
	struct trim_count before = { .skip = 1 << 30 }, after = before;

	dl_iterate_phdr(count_cb, &before);
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return h;
	dl_iterate_phdr(count_cb, &after);
	if (after.subs != before.subs || after.adds - before.adds != (unsigned)(after.n - before.n))
		return h;
	struct trim_count trim = { .skip = before.n, .pm = pagemap_open() };

	dl_iterate_phdr(count_cb, &trim);
	if (trim.pm >= 0)
		close(trim.pm);
	return h;
}

/*
 * The program's libraries' pages that the runtime's start-up alone faults in.  Start-up
 * writes the .proc with stdio (fopen, fprintf), formats names with snprintf and reads
 * /proc files with sscanf (pmu.c, pthread_getattr_np for the main thread): glibc's printf,
 * scanf and stdio code lie together, and fault-around mapped 256 KB of libc (192 KB of
 * that code, 64 KB of its constants) that commbench alone never maps, in every process
 * the runtime starts in (bench/memory.sh comm, libc.so.6's row).  Those pages are the
 * program's libraries' and stay untrimmed as such, but the ones that were not mapped
 * before the runtime started are the runtime's doing: they are unmapped again once it has
 * started (a page the program uses later comes back from the page cache, with
 * fault-around, as without sonde).  Read-only segments only, pages still the file's
 * (pagemap bit 61) only, objects loaded before start-up only (libgcc_s, which the runtime
 * loads itself, is trimmed by rt_dlopen_trimmed); libsonde.so and the vDSO are left out.
 *
 * pagemap is read before the run is dropped: a page written in between (a private copy
 * now) would lose its write.  Nothing of the process writes there while it has one thread
 * (this one, in start-up), so the drop is skipped when it has more (a library's
 * constructor, run before sonde_init, started one: it may mprotect a read-only segment
 * writable and write it), and a segment whose mapping is writable NOW (/proc/self/maps,
 * not the ELF header's flags) is left whole.  What remains is another process writing
 * into this one between the read and the drop: a debugger's PTRACE_POKETEXT or
 * process_vm_writev into a segment it made writable, or a uprobe installed then (its
 * breakpoint page is an anonymous copy; dropped, the uprobe's breakpoint is gone until
 * the page is mapped again by an mmap): a window of the drop's duration (some 100 us),
 * once, at start-up.
 */
#define FOREIGN_SEGS 64

struct foreign_seg {
	uintptr_t lo, hi;
	uint64_t *had;	/* a bit per page: mapped at rt_trim_foreign_mark */
	int writable;	/* rt_trim_foreign_drop: a mapping of it is writable now */
};
static struct {
	struct foreign_seg seg[FOREIGN_SEGS];
	int n;
	void *mem;
	size_t len;
} foreign;

/* Calls fn(seg range) for each read-only PT_LOAD of the objects other than libsonde.so
 * and the vDSO that shares its pages with no writable segment. */
struct foreign_walk {
	void (*fn)(uintptr_t lo, uintptr_t hi, void *arg);
	void *arg;
};

static int foreign_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct foreign_walk *w = data;

	(void)size;
	if (rt_dl_holds(info, (uintptr_t)&rt_trim_foreign_mark) ||
	    info->dlpi_addr == (uintptr_t)getauxval(AT_SYSINFO_EHDR))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || !ph->p_memsz)
			continue;
		uintptr_t lo = PAGE_DOWN(info->dlpi_addr + ph->p_vaddr);
		uintptr_t hi = PAGE_UP(info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
		if (!overlaps_writable(info, lo, hi))
			w->fn(lo, hi, w->arg);
	}
	return 0;
}

static void foreign_add(uintptr_t lo, uintptr_t hi, void *arg)
{
	(void)arg;
	if (foreign.n < FOREIGN_SEGS)
		foreign.seg[foreign.n++] = (struct foreign_seg){ lo, hi, NULL, 0 };
}

/* pagemap's entries for [lo, hi), a batch at a time: fn(page address, entry) each */
static void pagemap_each(int pm, uintptr_t lo, uintptr_t hi,
			 void (*fn)(struct foreign_seg *s, uintptr_t a, uint64_t e),
			 struct foreign_seg *s)
{
	uint64_t e[TRIM_PM_BATCH];

	for (uintptr_t b = lo; b < hi; b += TRIM_PM_BATCH * TRIM_PAGE) {
		size_t n = (hi - b) / TRIM_PAGE;
		ssize_t got;

		n = n < TRIM_PM_BATCH ? n : TRIM_PM_BATCH;
		got = pread(pm, e, n * sizeof(e[0]), (off_t)(b / TRIM_PAGE * sizeof(e[0])));
		for (size_t i = 0; i < n && (ssize_t)((i + 1) * sizeof(e[0])) <= got; i++)
			fn(s, b + i * TRIM_PAGE, e[i]);
	}
}

static void had_set(struct foreign_seg *s, uintptr_t a, uint64_t e)
{
	size_t i = (a - s->lo) / TRIM_PAGE;

	if (e >> 63 & 1)
		s->had[i / 64] |= 1ull << (i % 64);
}

void rt_trim_foreign_mark(void)
{
	struct foreign_walk w = { foreign_add, NULL };
	size_t words = 0;
	uint64_t *p;
	int pm;

	if (foreign.mem)
		return;
	foreign.n = 0;
	dl_iterate_phdr(foreign_cb, &w);
	for (int i = 0; i < foreign.n; i++)
		words += ((foreign.seg[i].hi - foreign.seg[i].lo) / TRIM_PAGE + 63) / 64;
	foreign.len = PAGE_UP(words * sizeof(uint64_t));
	if (!foreign.len || (pm = pagemap_open()) < 0)
		return;
	p = mmap(NULL, foreign.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		close(pm);
		return;
	}
	foreign.mem = p;
	for (int i = 0; i < foreign.n; i++) {
		struct foreign_seg *s = &foreign.seg[i];
		s->had = p;
		p += ((s->hi - s->lo) / TRIM_PAGE + 63) / 64;
		pagemap_each(pm, s->lo, s->hi, had_set, s);
	}
	close(pm);
}

/* a run of pages to unmap, carried across pagemap_each's calls; the pages unmapped */
static uintptr_t drop_run, drop_end;
static long drop_pages;

static void drop_flush(void)
{
	if (drop_run && !madvise((void *)drop_run, drop_end - drop_run, MADV_DONTNEED))
		drop_pages += (long)((drop_end - drop_run) / TRIM_PAGE);
	drop_run = 0;
}

static void drop_new(struct foreign_seg *s, uintptr_t a, uint64_t e)
{
	size_t i = (a - s->lo) / TRIM_PAGE;
	int had = s->had[i / 64] >> (i % 64) & 1;

	if (!had && (e >> 63 & 1) && (e >> 61 & 1)) {
		if (!drop_run || drop_end != a)
			drop_flush();
		if (!drop_run)
			drop_run = a;
		drop_end = a + TRIM_PAGE;
	}
}

/* a segment of an object still loaded: if rt_trim_foreign_mark saw it, its new pages go */
static void foreign_drop_seg(uintptr_t lo, uintptr_t hi, void *arg)
{
	int pm = *(int *)arg;

	for (int i = 0; i < foreign.n; i++)
		if (foreign.seg[i].lo == lo && foreign.seg[i].hi == hi &&
		    !foreign.seg[i].writable) {
			pagemap_each(pm, lo, hi, drop_new, &foreign.seg[i]);
			drop_flush();
		}
}

/* The process's threads (/proc/self/task's entries), or -1: read with getdents64, not
 * opendir, which mallocs. */
static int threads_count(void)
{
	char buf[2048] __attribute__((aligned(8)));
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	long got;

	if (fd < 0)
		return -1;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got;) {
			struct trim_dirent {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (struct trim_dirent *)(buf + off);

			n += d->name[0] != '.';
			off += d->reclen;
		}
	close(fd);
	return got < 0 ? -1 : n;
}

static uintptr_t hex_read(const char **p, const char *end)
{
	uintptr_t v = 0;

	for (; *p < end; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (uintptr_t)d;
	}
	return v;
}

/* one line of /proc/self/maps ("lo-hi rwxp ..."): the noted segments it overlaps marked
 * writable if it is */
static void maps_line(const char *p, const char *end)
{
	uintptr_t lo = hex_read(&p, end), hi;

	if (p >= end || *p++ != '-')
		return;
	hi = hex_read(&p, end);
	if (end - p < 3 || p[0] != ' ' || p[2] != 'w')
		return;
	for (int i = 0; i < foreign.n; i++)
		if (lo < foreign.seg[i].hi && hi > foreign.seg[i].lo)
			foreign.seg[i].writable = 1;
}

/* The segments mapped writable now, from /proc/self/maps (with read: no stdio's FILE);
 * -1 if it cannot be read (then nothing may be dropped). */
static int maps_writable(void)
{
	char buf[4096];
	size_t have = 0;
	ssize_t got;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((got = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		char *p = buf, *end = buf + have + got, *nl;

		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			maps_line(p, nl);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == sizeof(buf))	/* no line is that long: a reader's bug */
			break;
		memmove(buf, p, have);
	}
	close(fd);
	return got < 0 || have == sizeof(buf) ? -1 : 0;
}

long rt_trim_foreign_drop(int drop)
{
	int pm;
	struct foreign_walk w = { foreign_drop_seg, &pm };
	long r = RT_TRIM_DROP_OFF;

	if (!foreign.mem)
		return RT_TRIM_DROP_OFF;
	if (drop && threads_count() != 1)
		r = RT_TRIM_DROP_THREADS;
	else if (drop && maps_writable() == 0 && (pm = pagemap_open()) >= 0) {
		drop_pages = 0;
		dl_iterate_phdr(foreign_cb, &w);
		close(pm);
		r = drop_pages;
	}
	munmap(foreign.mem, foreign.len);
	foreign.mem = NULL;
	foreign.n = 0;
	return r;
}
