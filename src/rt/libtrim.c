/* SPDX-License-Identifier: MIT */
/*
 * libtrim.c - the runtime's own libraries (libsonde.so, libZydis, libgcc_s, libunwind and
 * its liblzma) made resident by the page they use.
 *
 * The kernel maps a file's cached pages up to 64 KB around each page fault (fault-around,
 * clamped to the mapping), so a library whose code and tables are touched here and there
 * is resident nearly whole: libZydis 480-584 KB of its 626 after a few decodes, libsonde.so
 * all of its 164 (bench/memory.sh), on programs of 1.5-2 MB.  madvise(MADV_RANDOM) does not
 * stop fault-around, but fault-around does not cross a mapping's end: so every second page
 * of a read-only segment gets MADV_RANDOM (no read-ahead on a page-cache miss: harmless,
 * the file is cached), which the kernel keeps as a mapping of its own, and each page
 * becomes a mapping that a fault fills alone.  The pages mapped before that (ld.so's
 * relocation pass over the ELF headers, start-up code) are unmapped by MADV_DONTNEED,
 * which on a page of a private file mapping that nobody wrote just drops the mapping:
 * the next use maps the page cache's page again (one minor fault a page).  Pages written
 * (a debugger's breakpoints, text relocations) are private copies: pagemap tells them
 * apart and they are left alone.  Writable segments (.data, .bss, the GOT and RELRO) are
 * never touched.
 *
 * Only the runtime's own libraries: the program's (libc) keep their fault-around, so its
 * own resident memory is as without sonde.  At process start only (sonde_init, and the
 * dlopen of a library the runtime loads for itself): not handler-safe.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/libtrim.h"

#define TRIM_PAGE 4096ul

/* rt_trim_set_prefault: every page of what is trimmed is read once, after the drop */
static int trim_prefault;

void rt_trim_set_prefault(void)
{
	trim_prefault = 1;
}

/* Unmap the pages of [lo, hi) that are present and still the file's (pagemap: bit 63
 * present, bit 61 file page; a private copy has 61 clear), a run of them per call. */
static void drop_file_pages(int pm, uintptr_t lo, uintptr_t hi)
{
	uintptr_t run = 0;	/* start of the current run of droppable pages, 0: none */

	for (uintptr_t a = lo; a < hi; a += TRIM_PAGE) {
		uint64_t e = 0;
		int file = pread(pm, &e, sizeof(e), (off_t)(a / TRIM_PAGE * sizeof(e))) ==
				   (ssize_t)sizeof(e) &&
			   (e >> 63 & 1) && (e >> 61 & 1);

		if (file && !run)
			run = a;
		if (!file && run) {
			madvise((void *)run, a - run, MADV_DONTNEED);
			run = 0;
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

/* Split and drop every read-only PT_LOAD of info; a segment whose pages another, writable
 * one shares is left whole.  pm: /proc/self/pagemap, or -1 (then nothing is dropped). */
static void trim_object(const struct dl_phdr_info *info, int pm)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || !ph->p_memsz)
			continue;
		uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(TRIM_PAGE - 1);
		uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + TRIM_PAGE - 1) &
			       ~(TRIM_PAGE - 1);
		if (overlaps_writable(info, lo, hi))
			continue;
		for (uintptr_t a = lo + TRIM_PAGE; a < hi; a += 2 * TRIM_PAGE)
			madvise((void *)a, TRIM_PAGE, MADV_RANDOM);
		if (pm >= 0)
			drop_file_pages(pm, lo, hi);
		for (uintptr_t a = lo; trim_prefault && a < hi; a += TRIM_PAGE)
			(void)*(volatile const char *)a;
	}
}

static int pagemap_open(void)
{
	return open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
}

struct trim_at {
	uintptr_t addr;
	int pm, found;
};

static int holds(const struct dl_phdr_info *info, uintptr_t addr)
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
	if (!holds(info, t->addr))
		return 0;
	trim_object(info, t->pm);
	t->found = 1;
	return 1;
}

int rt_trim_object_at(const void *addr)
{
	struct trim_at t = { (uintptr_t)addr, pagemap_open(), 0 };

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
