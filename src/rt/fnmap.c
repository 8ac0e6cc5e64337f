/* SPDX-License-Identifier: MIT */
/*
 * fnmap.c - where the functions of the main executable start (rt.h: rt_fnmap_load,
 * rt_fn_start), from its ELF symbol table, for handlers that must name the function a
 * PC is in without the loader (dladdr takes the loader's lock; runtime-pitfalls.md).
 *
 * Loaded once, outside handlers: /proc/self/exe is mapped read-only, its .symtab (else
 * .dynsym) read for STT_FUNC symbols with a size, and the sorted [start, end) pairs kept,
 * shifted by the executable's load address (PIE).  The table is never freed or changed
 * after it is published, so a handler's binary search needs no lock.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt/rt.h"
#include "rt/sigsafe.h"

struct fn_range {
	uint64_t lo, hi;
};

static const struct fn_range *fn_tab;	/* published once; sorted by lo */
static size_t fn_n;
static uint64_t main_start;		/* `main`, 0 if not found */

static int main_bias_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = (uint64_t)info->dlpi_addr;
	return 1;	/* the first object is the main program */
}

static int cmp_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The symbols of section `sh` (SHT_SYMTAB or SHT_DYNSYM) of the file mapped at `f`, whose
 * string table is `str` (NULL: names unknown). */
static int collect(const uint8_t *f, size_t len, const Elf64_Shdr *sh, const Elf64_Shdr *str,
		   uint64_t bias)
{
	if (sh->sh_offset > len || sh->sh_size > len - sh->sh_offset || sh->sh_entsize != sizeof(Elf64_Sym))
		return -EINVAL;
	const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh->sh_offset);
	size_t n = sh->sh_size / sizeof(Elf64_Sym), k = 0;
	size_t bytes = (n ? n : 1) * sizeof(struct fn_range);
	/* mmap, not malloc: the runtime's own memory stays out of the program's heap */
	struct fn_range *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
	if (t == MAP_FAILED)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_value && sym[i].st_size &&
		    sym[i].st_shndx != SHN_UNDEF) {
			t[k].lo = sym[i].st_value + bias;
			t[k].hi = t[k].lo + sym[i].st_size;
			if (str && str->sh_offset <= len && sym[i].st_name + 5 <= str->sh_size &&
			    str->sh_size <= len - str->sh_offset &&
			    !memcmp(f + str->sh_offset + sym[i].st_name, "main", 5))
				main_start = t[k].lo;
			k++;
		}
	if (!k) {
		munmap(t, bytes);
		return -ENOENT;
	}
	qsort(t, k, sizeof(*t), cmp_range);
	fn_n = k;
	__atomic_store_n(&fn_tab, t, __ATOMIC_RELEASE);
	return 0;
}

/* /proc/self/exe mapped read-only, its ELF header and section table checked; NULL if
 * it cannot be (then nothing is known).  *len: the mapping's size, for munmap. */
static const uint8_t *map_exe(size_t *len)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	*len = (size_t)st.st_size;
	const uint8_t *f = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return NULL;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > *len ||
	    (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > *len - eh->e_shoff) {
		munmap((void *)(uintptr_t)f, *len);
		return NULL;
	}
	return f;
}

int rt_fnmap_load(void)
{
	if (__atomic_load_n(&fn_tab, __ATOMIC_ACQUIRE))
		return 0;
	size_t len;
	const uint8_t *f = map_exe(&len);
	if (!f)
		return -ENOENT;
	int err = -ENOENT;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	uint64_t bias = rt_exe_bias();
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (int want = SHT_SYMTAB; err && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
		for (int i = 0; i < eh->e_shnum && err; i++)
			if (sh[i].sh_type == (uint32_t)want)
				err = collect(f, len, &sh[i],
					      sh[i].sh_link < eh->e_shnum ? &sh[sh[i].sh_link] : NULL,
					      bias);
	munmap((void *)(uintptr_t)f, len);
	return err;
}

uint64_t rt_exe_bias(void)
{
	uint64_t bias = 0;
	dl_iterate_phdr(main_bias_cb, &bias);
	return bias;
}

int rt_exe_imports(const char *name)
{
	return rt_exe_imports_n(name, 0);
}

int rt_exe_imports_n(const char *name, size_t prefix)
{
	size_t len;
	const uint8_t *f = map_exe(&len);
	int found = 0;

	if (!f)
		return 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum && !found; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_offset > len ||
		    sh[i].sh_size > len - sh[i].sh_offset)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (str->sh_offset > len || str->sh_size > len - str->sh_offset)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
		const char *names = (const char *)(f + str->sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym) && !found; k++)
			found = sym[k].st_shndx == SHN_UNDEF && sym[k].st_name < str->sh_size &&
				!strncmp(names + sym[k].st_name, name,
					 prefix && prefix < str->sh_size - sym[k].st_name ?
						 prefix : str->sh_size - sym[k].st_name);
	}
	munmap((void *)(uintptr_t)f, len);
	return found;
}

SIGSAFE uint64_t rt_fn_main(void)
{
	return __atomic_load_n(&fn_tab, __ATOMIC_ACQUIRE) ? main_start : 0;
}

SIGSAFE uint64_t rt_fn_start(uint64_t pc)
{
	const struct fn_range *t = __atomic_load_n(&fn_tab, __ATOMIC_ACQUIRE);
	size_t lo = 0, hi = t ? fn_n : 0;

	while (lo < hi) {	/* the last range starting at or below pc */
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < t[lo - 1].hi ? t[lo - 1].lo : 0;
}
