/* SPDX-License-Identifier: MIT */
/* analyze-sym.c - offline symbols of perf.data modules (see analyze-sym.h). */
#include "analyze/sym.h"
#include "prof/symbols.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct ksym {
	uint64_t addr;
	const char *name;		/* into asym.kbuf */
};

/* A function found in a file: later addresses inside it need no symbol table search. */
struct frange {
	uint64_t start, size;
	const char *name;
};

struct asym_file {
	char *path;
	struct frange *ranges;		/* sorted by start, not overlapping */
	size_t nranges, capranges;
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
	char *kbuf;			/* /proc/kallsyms, its names cut in place */
	/* demangled C++ names by the address of their mangled string (stable in libdw) */
	const char **dm_keys;
	char **dm_vals;			/* NULL: not a name __cxa_demangle knows */
	size_t dm_cap, dm_n;
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
	free(f->ranges);
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
	free(as->ksyms);
	free(as->kbuf);
	for (size_t i = 0; i < as->dm_cap; i++)
		free(as->dm_vals[i]);
	free(as->dm_keys);
	free(as->dm_vals);
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

/* The whole of a /proc file (its size is unknown until read), NUL-terminated. */
static char *slurp_proc(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8 << 20, n = 0;
	char *b = malloc(cap);
	while (b) {
		if (cap - n < 65536) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (b)
		b[n] = 0;
	*len = n;
	return b;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * One "ADDR TYPE NAME[\t[MODULE]]" line of kallsyms at p: a text symbol in *k (its name cut
 * in place) or not; returns the next line.  (Hand-parsed: sscanf costs more than the rest
 * of a big report.)
 */
static char *ksym_parse(char *p, char *end, struct ksym *k, int *ok)
{
	uint64_t a = 0;
	int d;
	*ok = 0;
	while (p < end && (d = hexval(*p)) >= 0) {
		a = a << 4 | (uint64_t)d;
		p++;
	}
	char *nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		nl = end;
	if (nl - p < 4 || p[0] != ' ' || p[2] != ' ' || !a)
		return nl + (nl < end);
	char t = p[1], *name = p + 3, *q = name;
	while (q < nl && *q != '\t' && *q != ' ')
		q++;
	*q = 0;
	if ((t == 't' || t == 'T' || t == 'W' || t == 'w') && q > name) {
		k->addr = a;
		k->name = name;
		*ok = 1;
	}
	return nl + (nl < end);
}

static void ksyms_load(struct asym *as)
{
	struct utsname u;
	size_t len, cap = 0;
	as->ksyms_tried = 1;
	if (!as->osrelease || uname(&u) || strcmp(u.release, as->osrelease))
		return;
	as->kbuf = slurp_proc("/proc/kallsyms", &len);
	if (!as->kbuf)
		return;
	int sorted = 1, ok;
	for (char *p = as->kbuf, *end = as->kbuf + len; p < end;) {
		struct ksym k;
		p = ksym_parse(p, end, &k, &ok);
		if (!ok)
			continue;
		if (as->nksyms == cap) {
			cap = cap ? cap * 2 : 65536;
			struct ksym *n = realloc(as->ksyms, cap * sizeof(*n));
			if (!n)
				break;
			as->ksyms = n;
		}
		if (as->nksyms && as->ksyms[as->nksyms - 1].addr > k.addr)
			sorted = 0;
		as->ksyms[as->nksyms++] = k;
	}
	if (!sorted)
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

/* ---- C++ names ---------------------------------------------------------------------- */

static size_t dm_slot(const struct asym *as, const char *key)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (as->dm_cap - 1);
}

static int dm_grow(struct asym *as)
{
	size_t ncap = as->dm_cap ? as->dm_cap * 2 : 256;
	const char **k = calloc(ncap, sizeof(*k));
	char **v = calloc(ncap, sizeof(*v));
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	struct asym o = *as;
	as->dm_keys = k;
	as->dm_vals = v;
	as->dm_cap = ncap;
	for (size_t i = 0; i < o.dm_cap; i++) {
		if (!o.dm_keys[i])
			continue;
		size_t s = dm_slot(as, o.dm_keys[i]);
		while (k[s])
			s = (s + 1) & (ncap - 1);
		k[s] = o.dm_keys[i];
		v[s] = o.dm_vals[i];
	}
	free(o.dm_keys);
	free(o.dm_vals);
	return 0;
}

char *asym_demangle_new(const char *name)
{
	return sym_demangle_new(name);
}

const char *asym_demangle(struct asym *as, const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	if ((as->dm_n + 1) * 2 > as->dm_cap && dm_grow(as))
		return name;
	size_t s = dm_slot(as, name);
	for (; as->dm_keys[s]; s = (s + 1) & (as->dm_cap - 1))
		if (as->dm_keys[s] == name)
			return as->dm_vals[s] ? as->dm_vals[s] : name;
	char *d = asym_demangle_new(name);
	as->dm_keys[s] = name;
	as->dm_vals[s] = d;
	as->dm_n++;
	return d ? d : name;
}

/* ---- user space ----------------------------------------------------------------------- */

/* Index of the first range starting after addr. */
static size_t range_after(const struct asym_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nranges;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void range_add(struct asym_file *f, size_t at, struct frange r)
{
	if (at && f->ranges[at - 1].start + f->ranges[at - 1].size > r.start)
		return;		/* overlaps: keep asking libdwfl there */
	if (at < f->nranges && r.start + r.size > f->ranges[at].start)
		return;
	if (f->nranges == f->capranges) {
		size_t nc = f->capranges ? f->capranges * 2 : 64;
		struct frange *n = realloc(f->ranges, nc * sizeof(*n));
		if (!n)
			return;
		f->ranges = n;
		f->capranges = nc;
	}
	memmove(f->ranges + at + 1, f->ranges + at, (f->nranges - at) * sizeof(*f->ranges));
	f->ranges[at] = r;
	f->nranges++;
}

int asym_func(struct asym_file *f, uint64_t addr, const char **name, uint64_t *start,
	      uint64_t *size)
{
	if (f->kernel)
		return kernel_func(f->as, addr, name, start, size);
	/* libdwfl searches the whole symbol table for each address: once per function here */
	size_t at = range_after(f, addr);
	if (at && addr < f->ranges[at - 1].start + f->ranges[at - 1].size) {
		*name = f->ranges[at - 1].name;
		*start = f->ranges[at - 1].start;
		*size = f->ranges[at - 1].size;
		return 0;
	}
	GElf_Off off;
	GElf_Sym sym;
	const char *n = dwfl_module_addrinfo(f->mod, addr + f->bias, &off, &sym, NULL, NULL, NULL);
	if (!n)
		return -ENOENT;
	n = asym_demangle(f->as, n);
	*name = n;
	*start = addr - off;
	*size = sym.st_size ? sym.st_size : off + 1;
	if (sym.st_size && off < sym.st_size)
		range_add(f, at, (struct frange){ *start, *size, n });
	return 0;
}

/* A DWARF function's name: its demangled linkage name (qualified, with parameters) if any. */
static const char *die_name(struct asym *as, Dwarf_Die *d)
{
	Dwarf_Attribute at;
	const char *s = NULL;
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &at))
		s = dwarf_formstring(&at);
	if (s) {
		const char *dm = asym_demangle(as, s);
		if (dm != s)
			return dm;
	}
	/* not demangled (no libstdc++, or not C++): the plain name reads better */
	if (dwarf_attr_integrate(d, DW_AT_name, &at)) {
		const char *plain = dwarf_formstring(&at);
		if (plain)
			return plain;
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
		fr[n].function = die_name(f->as, &scopes[i]);
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
