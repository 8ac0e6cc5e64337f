/* SPDX-License-Identifier: MIT */
/* analyze-sym.c - offline symbols of perf.data modules (see analyze-sym.h). */
#include "lib/analyze-sym.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

struct ksym {
	uint64_t addr;
	char *name;
};

struct asym_file {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias;
	int kernel;
	struct asym *as;
};

struct asym {
	struct asym_file **files;
	size_t nfiles;
	char *osrelease;
	struct ksym *ksyms;		/* sorted, loaded on first kernel lookup */
	size_t nksyms;
	int ksyms_tried;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct asym *asym_new(const char *osrelease)
{
	struct asym *as = calloc(1, sizeof(*as));
	if (as && osrelease)
		as->osrelease = strdup(osrelease);
	return as;
}

static void file_free(struct asym_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->path);
	free(f);
}

void asym_free(struct asym *as)
{
	if (!as)
		return;
	for (size_t i = 0; i < as->nfiles; i++)
		if (as->files[i])
			file_free(as->files[i]);
	free(as->files);
	for (size_t i = 0; i < as->nksyms; i++)
		free(as->ksyms[i].name);
	free(as->ksyms);
	free(as->osrelease);
	free(as);
}

static int is_kernel(const char *path)
{
	return !strncmp(path, "[kernel.kallsyms]", 17);
}

static int file_open(struct asym_file *f)
{
	if (f->kernel)
		return 0;
	if (f->path[0] != '/')
		return -ENOENT;
	f->dwfl = dwfl_begin(&callbacks);
	if (!f->dwfl)
		return -ENOMEM;
	const char *base = strrchr(f->path, '/');
	f->mod = dwfl_report_elf(f->dwfl, base + 1, f->path, -1, 0, false);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod)
		return -ENOENT;
	f->elf = dwfl_module_getelf(f->mod, &f->bias);
	return f->elf ? 0 : -ENOENT;
}

struct asym_file *asym_file(struct asym *as, const char *path)
{
	for (size_t i = 0; i < as->nfiles; i++)
		if (!strcmp(as->files[i]->path, path))
			return as->files[i]->elf || as->files[i]->kernel ? as->files[i] : NULL;
	struct asym_file *f = calloc(1, sizeof(*f));
	struct asym_file **n = realloc(as->files, (as->nfiles + 1) * sizeof(*n));
	if (!f || !n) {
		free(f);
		if (n)
			as->files = n;
		return NULL;
	}
	as->files = n;
	f->path = strdup(path);
	f->kernel = is_kernel(path);
	f->as = as;
	as->files[as->nfiles++] = f;
	if (!f->path || file_open(f))
		return NULL;
	return f;
}

int asym_off2addr(struct asym_file *f, uint64_t off, uint64_t *addr)
{
	if (f->kernel) {
		*addr = off;
		return 0;
	}
	size_t n;
	if (elf_getphdrnum(f->elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- kernel --------------------------------------------------------------------------- */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksyms_load(struct asym *as)
{
	struct utsname u;
	as->ksyms_tried = 1;
	if (!as->osrelease || uname(&u) || strcmp(u.release, as->osrelease))
		return;
	FILE *fp = fopen("/proc/kallsyms", "r");
	if (!fp)
		return;
	char line[512], name[256], t;
	unsigned long long a;
	size_t cap = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3 || !a)
			continue;
		if (t != 't' && t != 'T' && t != 'W' && t != 'w')
			continue;
		if (as->nksyms == cap) {
			cap = cap ? cap * 2 : 4096;
			struct ksym *k = realloc(as->ksyms, cap * sizeof(*k));
			if (!k)
				break;
			as->ksyms = k;
		}
		as->ksyms[as->nksyms].addr = a;
		as->ksyms[as->nksyms++].name = strdup(name);
	}
	fclose(fp);
	qsort(as->ksyms, as->nksyms, sizeof(*as->ksyms), ksym_cmp);
}

static int kernel_func(struct asym *as, uint64_t addr, const char **name, uint64_t *start,
		       uint64_t *size)
{
	if (!as->ksyms_tried)
		ksyms_load(as);
	size_t lo = 0, hi = as->nksyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (as->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	struct ksym *k = &as->ksyms[lo - 1];
	*name = k->name;
	*start = k->addr;
	*size = lo < as->nksyms ? as->ksyms[lo].addr - k->addr : 1;
	return 0;
}

/* ---- user space ----------------------------------------------------------------------- */

int asym_func(struct asym_file *f, uint64_t addr, const char **name, uint64_t *start,
	      uint64_t *size)
{
	if (f->kernel)
		return kernel_func(f->as, addr, name, start, size);
	GElf_Off off;
	GElf_Sym sym;
	const char *n = dwfl_module_addrinfo(f->mod, addr + f->bias, &off, &sym, NULL, NULL, NULL);
	if (!n)
		return -ENOENT;
	*name = n;
	*start = addr - off;
	*size = sym.st_size ? sym.st_size : off + 1;
	return 0;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute at;
	const char *s = NULL;
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &at))
		s = dwarf_formstring(&at);
	if (!s && dwarf_attr_integrate(d, DW_AT_name, &at))
		s = dwarf_formstring(&at);
	/* a C name is better than a mangled one when both exist and this is C */
	if (s && s[0] == '_' && s[1] == 'Z' && dwarf_attr_integrate(d, DW_AT_name, &at)) {
		const char *plain = dwarf_formstring(&at);
		if (plain)
			s = plain;
	}
	return s;
}

static const char *call_file(Dwarf_Die *cu, Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t n;
	if (!dwarf_attr(d, DW_AT_call_file, &at) || dwarf_formudata(&at, &idx))
		return NULL;
	if (dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

int asym_lines(struct asym_file *f, uint64_t addr, struct asym_frame *fr, int max)
{
	if (f->kernel || max <= 0)
		return 0;
	Dwarf_Addr a = addr + f->bias, cubias;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, a);
	if (!l)
		return 0;
	int line = 0;
	const char *file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	int n = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, a, &cubias);
	Dwarf_Die *scopes = NULL;
	int ns = cu ? dwarf_getscopes(cu, a - cubias, &scopes) : 0;
	for (int i = 0; i < ns && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		fr[n].function = die_name(&scopes[i]);
		fr[n].file = file;
		fr[n].line = line;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the caller's position is where this inlined copy was called from */
		Dwarf_Attribute at;
		Dwarf_Word cl = 0;
		file = call_file(cu, &scopes[i]);
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &at))
			dwarf_formudata(&at, &cl);
		line = (int)cl;
		/*
		 * dwarf_getscopes may continue with the abstract scopes of the inlined
		 * function; the concrete callers are the scopes containing this DIE.
		 */
		Dwarf_Die *outer = NULL;
		int no = dwarf_getscopes_die(&scopes[i], &outer);
		if (no > 0) {
			free(scopes);
			scopes = outer;
			ns = no;
			i = 0;	/* outer[0] is this DIE itself */
		} else {
			free(outer);
		}
	}
	free(scopes);
	if (!n) {
		fr[0].function = NULL;
		fr[0].file = file;
		fr[0].line = line;
		n = 1;
	}
	return n;
}

size_t asym_code(struct asym_file *f, uint64_t addr, uint8_t *buf, size_t len)
{
	if (f->kernel)
		return 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return 0;
		uint64_t o = addr - sh.sh_addr;
		size_t n = len;
		if (o >= d->d_size)
			return 0;
		if (n > d->d_size - o)
			n = (size_t)(d->d_size - o);
		memcpy(buf, (const uint8_t *)d->d_buf + o, n);
		return n;
	}
	return 0;
}
