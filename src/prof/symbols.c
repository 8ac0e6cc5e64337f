/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - offline symbolization of recordings with elfutils (see symbols.h): the one
 * symbolizer of `sonde mem` (a process's maps) and `sonde analyze` (perf.data modules).
 *
 * The maps copy is parsed once into a sorted array of mappings; file mappings are grouped
 * into modules.  A module is opened on its first lookup only (a report touches a few of
 * the hundreds of files a big program maps): its load bias comes from the program headers
 * and the mapping's file offset, then one Dwfl session per module (modules never share
 * address ranges, so one session each needs no reporting order) gives DWARF, line tables
 * and the symbol table of the file or of its separate debug file.  Function and object
 * symbols are copied into two arrays sorted once; each compile unit touched gets an index
 * of its subprograms' address ranges, sorted once, so a lookup is a few binary searches
 * plus a walk down the inlining tree of one function.  Results are cached per address.
 *
 * Modules opened by path (symtab_module) are the same struct with bias 0, so ELF virtual
 * addresses are their "runtime" addresses and every lookup above serves them unchanged;
 * "[kernel.kallsyms]" is a module whose functions come from /proc/kallsyms instead.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "prof/file.h"
#include "prof/symbols.h"

/* How far back from the last symbol starting at or below an address a lookup looks for
 * one containing it (symbols nested in others, like local labels inside a function). */
#define SYM_SCAN_BACK 8
/* Deepest inlining chain followed (frames beyond SYM_MAX_INLINE are folded, see below). */
#define CHAIN_MAX 64

/* Open-addressing map from a 64-bit key to a 32-bit value; used for the per-address
 * cache, the compile-unit indexes and the demangling cache. */
struct u64map {
	uint64_t *keys;
	uint32_t *vals;		/* value + 1; 0 marks an empty slot */
	size_t cap, n;		/* cap is 0 or a power of two */
};

struct fsym {
	uint64_t start, size;	/* runtime address */
	const char *name;	/* owned by the module's Dwfl */
	int64_t rank;		/* among aliases at one address, the lowest is kept */
};

struct symvec {
	struct fsym *v;
	size_t n, cap;
};

struct cu_range {
	uint64_t lo, hi;	/* DWARF addresses (runtime address - dwarf bias) */
	Dwarf_Die die;		/* the DW_TAG_subprogram */
};

struct cu_index {
	struct cu_range *r;
	size_t n, cap;
};

struct mapping {
	uint64_t lo, hi, offset, inode;
	char *name;		/* as in the maps file, "" when anonymous */
	int module;		/* index in symtab.mods, -1 when not a file */
	char prot[5];		/* "rw-p", "---p": the maps file's permissions */
};

struct sym_module {
	struct symtab *st;
	/* the maps name, owned by its first mapping; or the path given to symtab_module() */
	const char *name;
	char *path;		/* owned: a module opened by path, NULL for a maps module */
	bool by_path;		/* addresses are ELF virtual addresses (bias 0) */
	bool kernel;		/* "[kernel.kallsyms]": symbols from /proc/kallsyms */
	bool dynsym_only;	/* no .symtab anywhere: only exported symbols are known */
	uint64_t inode;
	uint64_t lo, off;	/* lowest mapping seen and its file offset */
	int state;		/* 0 not opened yet, 1 usable, -errno unusable */
	Dwfl *dwfl;
	Dwfl_Module *dm;
	Elf *elf;		/* the module's file, owned by dwfl */
	uint64_t bias;		/* runtime address - ELF virtual address */
	uint64_t end;		/* runtime end of the highest PT_LOAD, .bss included */
	uint64_t text_lo, text_hi;	/* runtime range of the executable PT_LOAD segments */
	struct symvec gaps;	/* named code between exported symbols (dynsym_only) */
	uint64_t tls_img, tls_filesz;	/* runtime address and size of the .tdata image */
	struct symvec funcs, objs, tls;
	struct symvec tlsvars;		/* every sized TLS variable, by its offset in the block */
	char **names;		/* symbol names without their "@VERSION", owned */
	size_t nnames, capnames;
	struct cu_index spans;	/* CU address ranges, when .debug_aranges lacks them */
	int spans_built;
	struct u64map cu_map;	/* CU DIE offset -> index in cus */
	struct cu_index *cus;
	size_t ncus, capcus;
};

struct cache_ent {
	int rc;
	int module;		/* -1 when none */
	uint64_t module_offset, func_start;
	uint32_t frame0;	/* first of n frames in symtab.frames */
	int n;
};

struct symtab {
	struct mapping *maps;
	size_t nmaps;
	struct sym_module **mods;	/* allocated one by one: pointers stay valid */
	size_t nmods, capmods;
	struct u64map cache;	/* address -> index in ents */
	struct cache_ent *ents;
	size_t nents, capents;
	struct sym_frame *frames;
	size_t nframes, capframes;
	struct u64map dem;	/* mangled string pointer -> index in strs */
	struct u64map omp;	/* clang OpenMP region's DIE address -> index in strs */
	char **strs;		/* demangled names, owned */
	size_t nstrs, capstrs;
	char *osrelease;	/* of the recording, for the kernel's symbols; may be NULL */
	struct ksym *ksyms;	/* sorted, loaded on the first kernel lookup */
	size_t nksyms;
	char *kbuf;		/* /proc/kallsyms, its names cut in place */
	bool ksyms_tried;
};

struct ksym {
	uint64_t addr;
	const char *name;	/* into symtab.kbuf */
};

/* ---- small containers ---- */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

static size_t u64map_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

/* The slot holding key, or the empty slot where it would go; NULL when the map is empty. */
static size_t u64map_slot(const struct u64map *m, uint64_t key)
{
	size_t i = u64map_hash(key, m->cap);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int u64map_get(const struct u64map *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return -ENOENT;
	size_t i = u64map_slot(m, key);
	if (!m->vals[i])
		return -ENOENT;
	*val = m->vals[i] - 1;
	return 0;
}

static int u64map_rehash(struct u64map *m, size_t cap)
{
	struct u64map nm = { calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint32_t)), cap, 0 };
	if (!nm.keys || !nm.vals) {
		free(nm.keys);
		free(nm.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		size_t j = u64map_slot(&nm, m->keys[i]);
		nm.keys[j] = m->keys[i];
		nm.vals[j] = m->vals[i];
		nm.n++;
	}
	free(m->keys);
	free(m->vals);
	*m = nm;
	return 0;
}

static int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && u64map_rehash(m, m->cap ? m->cap * 2 : 64))
		return -ENOMEM;
	size_t i = u64map_slot(m, key);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val + 1;
	return 0;
}

static void u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* A new zeroed module, appended to st->mods. */
static struct sym_module *symtab_add_module(struct symtab *st)
{
	struct sym_module *m = calloc(1, sizeof(*m));
	if (!m || grow((void **)&st->mods, &st->capmods, st->nmods + 1, sizeof(*st->mods))) {
		free(m);
		return NULL;
	}
	m->st = st;
	st->mods[st->nmods++] = m;
	return m;
}

/* ---- demangling ---- */

/*
 * C++ names are demangled with libstdc++'s __cxa_demangle, looked up at run time: the CLI
 * is C and does not link libstdc++, but every machine that runs C++ programs has it.
 * Without it, names stay mangled.  Other languages' names are used as DWARF gives them.
 */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn cxa_demangle;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;

static void demangle_init(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
}

/* gfortran's module procedures and variables, `__module_MOD_name` (a region's suffix kept:
 * `__m_MOD_f._omp_fn.0`), as gdb names them: `module::name`; NULL for other names (the
 * trial of 2026-11-28 read `__definitions_module_MOD_dt` beside `advec_mom_kernel`). */
static char *fortran_demangle(const char *name)
{
	if (name[0] != '_' || name[1] != '_')
		return NULL;
	const char *m = strstr(name + 2, "_MOD_");
	if (!m || m == name + 2 || !m[5] || m[5] == '.')
		return NULL;
	char *d = NULL;
	if (asprintf(&d, "%.*s::%s", (int)(m - name - 2), name + 2, m + 5) < 0)
		return NULL;
	return d;
}

int sym_is_module_proc(const char *shown, const char *name)
{
	size_t n = strlen(name), f = strlen(shown);
	if (!n || f <= n || strcmp(shown + f - n, name))
		return 0;
	return (f > n + 5 && !strncmp(shown + f - n - 5, "_MOD_", 5)) ||
	       (f > n + 2 && !strncmp(shown + f - n - 2, "::", 2) && !strchr(shown, '('));
}

char *sym_demangle_new(const char *name)
{
	if (name && name[0] == '_' && name[1] == '_')
		return fortran_demangle(name);
	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	pthread_once(&demangle_once, demangle_init);
	int status = -1;
	char *d = cxa_demangle ? cxa_demangle(name, NULL, NULL, &status) : NULL;
	if (status != 0) {
		free(d);
		d = NULL;
	}
	return d;
}

/* The demangled form of name (owned by st), or name itself when it is not a C++ name. */
static const char *demangle(struct symtab *st, const char *name)
{
	uint32_t idx;
	if (!name || name[0] != '_' || (name[1] != 'Z' && (name[1] != '_' || !strstr(name, "_MOD_"))))
		return name;
	if (!u64map_get(&st->dem, (uintptr_t)name, &idx))
		return st->strs[idx] ? st->strs[idx] : name;
	char *d = sym_demangle_new(name);
	if (grow((void **)&st->strs, &st->capstrs, st->nstrs + 1, sizeof(char *)) ||
	    u64map_put(&st->dem, (uintptr_t)name, (uint32_t)st->nstrs)) {
		free(d);
		return name;
	}
	st->strs[st->nstrs++] = d;
	return d ? d : name;
}

const char *symtab_demangle(struct symtab *st, const char *name)
{
	return demangle(st, name);
}

/* ---- the maps file ---- */

/* One line of /proc/PID/maps: "lo-hi perms offset major:minor inode   name". */
static int mapping_parse(char *line, struct mapping *mp)
{
	uint64_t lo, hi, off, ino;
	unsigned int maj, min;
	char perms[8];
	int pos = -1;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n", &lo, &hi,
		   perms, &off, &maj, &min, &ino, &pos) != 7 || pos < 0)
		return -EINVAL;
	if (lo >= hi || strlen(perms) != 4 || (line[pos] && line[pos] != ' ' &&
						 line[pos] != '\t' && line[pos] != '\n'))
		return -EINVAL;
	char *name = line + pos;
	name += strspn(name, " \t");
	name[strcspn(name, "\n")] = '\0';
	mp->name = strdup(name);
	if (!mp->name)
		return -ENOMEM;
	mp->lo = lo;
	mp->hi = hi;
	mp->offset = off;
	mp->inode = ino;
	mp->module = -1;
	memcpy(mp->prot, perms, 5);
	return 0;
}

static int mapping_cmp(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int maps_read(struct symtab *st, FILE *f)
{
	char *line = NULL;
	size_t cap = 0, capmaps = 0;
	int err = 0;

	while (getline(&line, &cap, f) >= 0) {
		struct mapping mp;
		if (mapping_parse(line, &mp))
			continue;	/* malformed: skipped, see symbols.h */
		err = grow((void **)&st->maps, &capmaps, st->nmaps + 1, sizeof(mp));
		if (err) {
			free(mp.name);
			break;
		}
		st->maps[st->nmaps++] = mp;
	}
	free(line);
	return err;
}

/* Sort by address and drop mappings that overlap an earlier one (a corrupt copy). */
static void maps_sort(struct symtab *st)
{
	size_t n = 0;
	if (st->nmaps > 1)
		qsort(st->maps, st->nmaps, sizeof(*st->maps), mapping_cmp);
	for (size_t i = 0; i < st->nmaps; i++) {
		if ((n && st->maps[i].lo < st->maps[n - 1].hi) || st->maps[i].hi <= st->maps[i].lo) {
			free(st->maps[i].name);	/* (empty: carved away, carve_anonymous) */
			continue;
		}
		st->maps[n++] = st->maps[i];
	}
	st->nmaps = n;
}

/*
 * The module a file mapping belongs to: a later mapping (offset > 0) of the same file
 * continues the last module made of it; offset 0 starts a new one (a file mapped twice).
 */
static int module_for(struct symtab *st, const struct mapping *mp)
{
	for (size_t j = st->nmods; mp->offset && j-- > 0;) {
		struct sym_module *m = st->mods[j];
		if (m->inode == mp->inode && !strcmp(m->name, mp->name))
			return (int)j;
	}
	struct sym_module *m = symtab_add_module(st);
	if (!m)
		return -ENOMEM;
	m->name = mp->name;
	m->inode = mp->inode;
	m->lo = mp->lo;
	m->off = mp->offset;
	return (int)st->nmods - 1;
}

static int modules_build(struct symtab *st)
{
	for (size_t i = 0; i < st->nmaps; i++) {
		struct mapping *mp = &st->maps[i];
		if (mp->name[0] != '/')
			continue;
		int j = module_for(st, mp);
		if (j < 0)
			return j;
		mp->module = j;
	}
	return 0;
}

/*
 * In the n elements of base (size bytes each), sorted by the uint64_t at byte off of
 * each, the index of the first whose key is above key (n if none): the symbols, CU
 * ranges and kernel symbols are searched by their start this way, the mappings by their
 * end.  FIRST_AFTER(v, n, field, key) for an array v of structs (field a uint64_t).
 */
static size_t first_after(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, (const char *)base + mid * size + off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
#define FIRST_AFTER(v, n, field, key) \
	(__extension__({ _Static_assert(sizeof((v)->field) == sizeof(uint64_t), \
					"FIRST_AFTER: the key field is a uint64_t"); \
		first_after((v), (n), sizeof(*(v)), offsetof(__typeof__(*(v)), field), (key)); }))

static struct mapping *mapping_find(struct symtab *st, uint64_t addr)
{
	size_t lo = FIRST_AFTER(st->maps, st->nmaps, hi, addr);	/* the first ending above */
	if (lo < st->nmaps && st->maps[lo].lo <= addr)
		return &st->maps[lo];
	return NULL;
}

/* ---- opening a module ---- */

static int find_elf_none(Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, char **file_name, Elf **elfp)
{
	return -1;	/* every module is reported with its file: nothing else to find */
}

/*
 * Separate debug files: by build id under /usr/lib/debug/.build-id (Debian's -dbg and
 * -dbgsym packages), then by .gnu_debuglink name.  The second search is elfutils'
 * standard one, which ends by asking debuginfod servers when DEBUGINFOD_URLS is set: a
 * report must stay offline and quick, so then only the build-id search is done.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					      debuglink_file, debuglink_crc,
					      debuginfo_file_name);
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (fd >= 0 || (urls && *urls))
		return fd;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static char *debuginfo_path;	/* NULL: elfutils' default, ":.debug:/usr/lib/debug" */

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf_none,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/*
 * Open the module's file.  A "(deleted)" file is used only if a file with the same inode
 * is still at that path; any other file there is a different program.
 */
static int module_open_file(const struct sym_module *m, char *path, size_t len)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(m->name), dl = sizeof(deleted) - 1;
	bool is_deleted = n > dl && !strcmp(m->name + n - dl, deleted);

	if (is_deleted)
		n -= dl;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(path, m->name, n);
	path[n] = '\0';
	/* Only regular files hold symbols.  A mapped device (an InfiniBand verbs or a GPU
	 * driver's /dev file, where samples of data accesses land) is not opened: opening a
	 * device may act on it, and a FIFO put in its place would block us for ever. */
	struct stat sb;
	int fd = file_open_regular(path, &sb);
	if (fd == FILE_NOT_REGULAR)
		return -ENOEXEC;
	if (fd >= 0 && is_deleted && sb.st_ino != m->inode) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* The load bias, from the PT_LOAD that maps the module's lowest mapping's file offset. */
static int module_layout_phdrs(struct sym_module *m, Elf *e, bool dyn)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t n;
	bool found = !dyn || m->by_path;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_TLS) {
			m->tls_img = ph.p_vaddr;
			m->tls_filesz = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr + ph.p_memsz > m->end)
			m->end = ph.p_vaddr + ph.p_memsz;
		if ((ph.p_flags & PF_X) && (!m->text_hi || ph.p_vaddr < m->text_lo))
			m->text_lo = ph.p_vaddr;
		if ((ph.p_flags & PF_X) && ph.p_vaddr + ph.p_memsz > m->text_hi)
			m->text_hi = ph.p_vaddr + ph.p_memsz;
		uint64_t seg_off = ph.p_offset & ~(page - 1);
		if (!found && m->off >= seg_off && m->off < ph.p_offset + ph.p_filesz) {
			m->bias = m->lo - ((ph.p_vaddr & ~(page - 1)) + (m->off - seg_off));
			found = true;
		}
	}
	if (!found)
		return -ENOEXEC;
	m->end += m->bias;
	m->tls_img += m->bias;
	m->text_lo += m->bias;
	m->text_hi += m->bias;
	return 0;
}

static int module_layout(struct sym_module *m, int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	int err = -ENOEXEC;

	if (e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN))
		err = module_layout_phdrs(m, e, eh.e_type == ET_DYN);
	elf_end(e);
	return err;
}

/*
 * Which of the aliases at one address names it: the lowest rank.  Functions as libdwfl's
 * dwfl_module_addrsym() picks them (what perf and gdb show too): a sized symbol, then
 * global before weak before local, then the first in the symbol table (index i), so
 * "__write" rather than its alias "write".  Variables: the name without a leading
 * underscore first ("environ", weak, rather than "__environ"), then global, weak, local,
 * then the larger, then by name.
 */
static int64_t fsym_rank(const GElf_Sym *s, const char *name, int i)
{
	int b = GELF_ST_BIND(s->st_info);
	int64_t r = b == STB_GLOBAL ? 0 : b == STB_WEAK ? 1 : 2;
	if (GELF_ST_TYPE(s->st_info) != STT_OBJECT && GELF_ST_TYPE(s->st_info) != STT_TLS)
		return ((s->st_size ? 0 : 4) + r) << 32 | (uint32_t)i;
	return (r + (name[0] == '_' ? 4 : 0)) << 32;
}

static int symvec_push(struct symvec *v, uint64_t start, uint64_t size, const char *name,
		       int64_t rank)
{
	if (grow((void **)&v->v, &v->cap, v->n + 1, sizeof(struct fsym)))
		return -ENOMEM;
	v->v[v->n++] = (struct fsym){ start, size, name, rank };
	return 0;
}

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort once; of the aliases at one address keep the preferred (fsym_rank). */
static void symvec_sort(struct symvec *v)
{
	size_t n = 0;
	if (v->n > 1)
		qsort(v->v, v->n, sizeof(*v->v), fsym_cmp);
	for (size_t i = 0; i < v->n; i++)
		if (!n || v->v[n - 1].start != v->v[i].start)
			v->v[n++] = v->v[i];
	v->n = n;
}

/*
 * The symbol containing addr: a sized one, else one of size 0 (an assembly label) right
 * before addr, which extends to the next symbol.
 */
static const struct fsym *symvec_find(const struct symvec *v, uint64_t addr)
{
	size_t lo = FIRST_AFTER(v->v, v->n, start, addr);
	const struct fsym *sizeless = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < SYM_SCAN_BACK; k++) {
		const struct fsym *f = &v->v[i];
		if (f->size && addr - f->start < f->size)
			return f;
		if (!f->size && i + 1 < v->n && addr < v->v[i + 1].start)
			sizeless = f;
	}
	return sizeless;
}

/*
 * "stdout@GLIBC_2.2.5" (a copy-relocated variable in an executable's .symtab) is
 * "stdout" to a user.  NULL on allocation failure.
 */
static const char *module_unversioned(struct sym_module *m, const char *name)
{
	const char *at = strchr(name, '@');
	if (!at || at == name)
		return name;
	if (grow((void **)&m->names, &m->capnames, m->nnames + 1, sizeof(char *)))
		return NULL;
	char *s = strndup(name, (size_t)(at - name));
	if (s)
		m->names[m->nnames++] = s;
	return s;
}

static int module_add_symbol(struct sym_module *m, const GElf_Sym *s, GElf_Addr a,
			     const char *name, int i)
{
	name = module_unversioned(m, name);
	if (!name)
		return -ENOMEM;
	int64_t rank = fsym_rank(s, name, i);
	switch (GELF_ST_TYPE(s->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
		return symvec_push(&m->funcs, a, s->st_size, name, rank);
	case STT_NOTYPE:
		/* assembly entry points ("_start" of ld.so) are labels without a type */
		if (a >= m->text_lo && a < m->text_hi)
			return symvec_push(&m->funcs, a, s->st_size, name, rank);
		return 0;
	case STT_OBJECT:
		return s->st_size ? symvec_push(&m->objs, a, s->st_size, name, rank) : 0;
	case STT_TLS:
		/* st_value is an offset in the TLS block; only .tdata has an image in memory */
		if (s->st_size && symvec_push(&m->tlsvars, s->st_value, s->st_size, name, rank))
			return -ENOMEM;
		if (s->st_size && s->st_value < m->tls_filesz)
			return symvec_push(&m->tls, m->tls_img + s->st_value, s->st_size, name,
					   rank);
		return 0;
	default:
		return 0;
	}
}

/*
 * Whether e has a full symbol table: .symtab, or MiniDebugInfo's compressed one
 * (.gnu_debugdata, which elfutils reads).  Without one only exported symbols are known.
 */
static bool elf_has_symtab(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB || (name && !strcmp(name, ".gnu_debugdata")))
			return true;
	}
	return false;
}

/* .symtab in the file or its separate debug file (already searched for by then). */
static bool module_has_symtab(struct sym_module *m)
{
	Dwarf_Addr bias;
	if (elf_has_symtab(m->elf))
		return true;
	Dwarf *dw = dwfl_module_getdwarf(m->dm, &bias);
	return dw && elf_has_symtab(dwarf_getelf(dw));
}

/* A GOT slot and the name of what it holds (module_add_plt). */
struct got_name {
	uint64_t slot;
	const char *name;
};

static int got_cmp(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The named GOT slots of one relocation section (JUMP_SLOT and GLOB_DAT by their symbol,
 * IRELATIVE as objdump names it, "*ABS*+0xADDEND"), appended to *v; names kept in m. */
static int got_names(struct sym_module *m, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		     struct got_name **v, size_t *n, size_t *cap)
{
	Elf_Data *rd = elf_getdata(scn, NULL);
	Elf_Scn *dyn = elf_getscn(e, sh->sh_link);
	GElf_Shdr dsh;
	Elf_Data *dd = dyn && gelf_getshdr(dyn, &dsh) ? elf_getdata(dyn, NULL) : NULL;
	if (!rd || !sh->sh_entsize)
		return 0;
	for (size_t k = 0; k < sh->sh_size / sh->sh_entsize; k++) {
		GElf_Rela r;
		GElf_Sym sym;
		char *name = NULL;
		if (!gelf_getrela(rd, (int)k, &r))
			continue;
		unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
		if (type == R_X86_64_IRELATIVE) {
			if (asprintf(&name, "*ABS*+0x%" PRIx64 "@plt", (uint64_t)r.r_addend) < 0)
				name = NULL;
		} else if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT) && dd &&
			   GELF_R_SYM(r.r_info) &&
			   gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym)) {
			const char *sn = elf_strptr(e, dsh.sh_link, sym.st_name);
			if (sn && *sn && asprintf(&name, "%s@plt", sn) < 0)
				name = NULL;
		}
		if (!name)
			continue;
		if (grow((void **)&m->names, &m->capnames, m->nnames + 1, sizeof(char *)) ||
		    grow((void **)v, cap, *n + 1, sizeof(**v))) {
			free(name);
			return -ENOMEM;
		}
		m->names[m->nnames++] = name;
		(*v)[(*n)++] = (struct got_name){ r.r_offset, name };
	}
	return 0;
}

/*
 * The PLT's stubs as functions "name@plt" (as perf and objdump name them): without, a
 * sample in a stub took the symbol before the PLT, "_init" (the trial of 2026-11-27:
 * SimpleMOC's calls of expf, 1.2% of its samples).  Each stub of .plt, .plt.sec and
 * .plt.got (x86-64) jumps through a GOT slot, `jmp *disp(%rip)` (ff 25, after endbr64 or
 * a bnd prefix): the relocation of that slot names it.  (Not by position: GNU ld puts an
 * ifunc's IRELATIVE relocation last in .rela.plt but its stub among the others; review.)
 */
static int module_add_plt(struct sym_module *m)
{
	Dwarf_Addr bias = 0;
	Elf *e = dwfl_module_getelf(m->dm, &bias);
	size_t shstrndx = 0, n = 0, cap = 0;
	struct got_name *v = NULL;
	Elf_Scn *scn = NULL;
	int err = 0;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while (!err && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (name && sh.sh_type == SHT_RELA &&
		    (!strcmp(name, ".rela.plt") || !strcmp(name, ".rela.dyn")))
			err = got_names(m, e, scn, &sh, &v, &n, &cap);
	}
	if (err || !n) {
		free(v);
		return err;
	}
	qsort(v, n, sizeof(*v), got_cmp);
	scn = NULL;
	while (!err && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (!name || (strcmp(name, ".plt") && strcmp(name, ".plt.sec") &&
			      strcmp(name, ".plt.got")))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t esz = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize : 16;
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		const uint8_t *code = d->d_buf;
		for (uint64_t at = 0; at + esz <= sh.sh_size && !err; at += esz) {
			for (uint64_t o = 0; o + 6 <= esz; o++) {
				if (code[at + o] != 0xff || code[at + o + 1] != 0x25)
					continue;
				int32_t disp;
				memcpy(&disp, code + at + o + 2, 4);
				struct got_name key = { sh.sh_addr + at + o + 6 + (uint64_t)(int64_t)disp,
							NULL };
				const struct got_name *g = bsearch(&key, v, n, sizeof(*v), got_cmp);
				GElf_Sym stub = { .st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC),
						  .st_size = esz };
				if (g)
					err = symvec_push(&m->funcs, sh.sh_addr + bias + at, esz,
							  g->name, fsym_rank(&stub, g->name, INT32_MAX));
				break;
			}
		}
	}
	free(v);
	return err;
}

/*
 * A function's static variables: gcc and gfortran give each a local symbol "name.N" (N
 * numbering the statics of one name in the unit), so two functions' `tab` read "tab.0"
 * and "tab.1", and gfortran's SAVEd arrays "p.3", "ur.3" (the trial of 2026-11-29 on
 * Nekbone).  gdb names them by their scope, `cg::ur`: the DWARF variable at that address
 * (a DW_OP_addr location) inside a subprogram.  Any suffix after the first dot is taken
 * ("tab.lto_priv.0" too): the address and the DWARF name guard the renaming.
 */
static int local_static_name(const char *name)
{
	const char *dot = strchr(name, '.');
	return dot && dot != name && dot[1];
}

struct scoped_var {
	uint64_t addr;
	const char *var, *scope;
};

struct scoped_walk {
	const char **names;	/* the local statics' names before the dot, sorted */
	size_t nnames;
	uint64_t bias;
	struct scoped_var *v;
	size_t n, cap;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The variables of w's names with a fixed address in subprogram scope below die, into w. */
static int scoped_vars(Dwarf_Die *die, const char *scope, struct scoped_walk *w, int depth)
{
	Dwarf_Die c;
	if (depth > 16 || dwarf_child(die, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_namespace || tag == DW_TAG_module) {
			const char *sc = tag == DW_TAG_subprogram ? dwarf_diename(&c) : scope;
			if (scoped_vars(&c, sc, w, depth + 1))
				return -ENOMEM;
			continue;
		}
		Dwarf_Attribute at;
		Dwarf_Op *ops;
		size_t nops;
		const char *var = dwarf_diename(&c);
		/* the name first: a location is parsed (and kept by libdw) only for a variable
		 * that could be one of the statics (the code review of 2026-11-30) */
		if (tag != DW_TAG_variable || !scope || !var ||
		    !bsearch(&var, w->names, w->nnames, sizeof(*w->names), str_cmp) ||
		    !dwarf_attr(&c, DW_AT_location, &at) ||
		    dwarf_whatform(&at) != DW_FORM_exprloc ||
		    dwarf_getlocation(&at, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_addr)
			continue;
		if (grow((void **)&w->v, &w->cap, w->n + 1, sizeof(*w->v)))
			return -ENOMEM;
		w->v[w->n++] = (struct scoped_var){ ops[0].number + w->bias, var, scope };
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* The statics' new names, "scope::name", kept in m->names; f->name unchanged where none
 * or where two scopes have a variable of that name there (gcc merges two functions'
 * identical constant arrays: either scope's name would be half wrong). */
static void rename_statics(struct sym_module *m, const struct scoped_walk *w)
{
	for (size_t i = 0; i < m->objs.n; i++) {
		struct fsym *f = &m->objs.v[i];
		if (!local_static_name(f->name))
			continue;
		size_t len = (size_t)(strchr(f->name, '.') - f->name);
		const struct scoped_var *hit = NULL;
		int clash = 0;
		for (size_t j = 0; j < w->n && !clash; j++) {
			const struct scoped_var *x = &w->v[j];
			if (x->addr != f->start || strncmp(x->var, f->name, len) || x->var[len])
				continue;
			clash = hit && strcmp(hit->scope, x->scope);
			hit = hit ? hit : x;
		}
		char *s = NULL;
		if (!hit || clash ||
		    grow((void **)&m->names, &m->capnames, m->nnames + 1, sizeof(char *)) ||
		    asprintf(&s, "%s::%s", hit->scope, hit->var) < 0)
			continue;
		m->names[m->nnames++] = s;
		f->name = s;
	}
}

/* The "name.N" statics of m renamed "scope::name" where DWARF places them; best effort. */
static void module_name_statics(struct sym_module *m)
{
	struct scoped_walk w = { 0 };
	size_t cap = 0;
	for (size_t i = 0; i < m->objs.n; i++) {
		const char *nm = m->objs.v[i].name, *dot = strchr(nm, '.');
		char *pre;
		if (!local_static_name(nm))
			continue;
		if (grow((void **)&w.names, &cap, w.nnames + 1, sizeof(*w.names)) ||
		    !(pre = strndup(nm, (size_t)(dot - nm))))
			break;
		w.names[w.nnames++] = pre;
	}
	Dwarf_Addr bias;
	Dwarf *dw = w.nnames ? dwfl_module_getdwarf(m->dm, &bias) : NULL;
	if (dw) {
		qsort(w.names, w.nnames, sizeof(*w.names), str_cmp);
		w.bias = bias;
		size_t hsize;
		Dwarf_Off off = 0, next;
		uint8_t asize, osize;
		int err = 0;
		while (!err && dwarf_nextcu(dw, off, &next, &hsize, NULL, &asize, &osize) == 0) {
			Dwarf_Die cu;
			if (dwarf_offdie(dw, off + hsize, &cu))
				err = scoped_vars(&cu, NULL, &w, 0);
			off = next;
		}
		if (!err)
			rename_statics(m, &w);
	}
	for (size_t i = 0; i < w.nnames; i++)
		free((char *)w.names[i]);
	free(w.names);
	free(w.v);
}

/* .symtab of the file or of its debug file, else .dynsym (elfutils picks the best). */
static int module_load_symbols(struct sym_module *m)
{
	int n = dwfl_module_getsymtab(m->dm);
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr a;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->dm, i, &s, &a, &shndx, NULL, NULL);
		if (!name || !*name || shndx == SHN_UNDEF || shndx == (GElf_Word)-1)
			continue;
		if (module_add_symbol(m, &s, a, name, i))
			return -ENOMEM;
	}
	if (module_add_plt(m))
		return -ENOMEM;
	symvec_sort(&m->funcs);
	symvec_sort(&m->objs);
	symvec_sort(&m->tls);
	symvec_sort(&m->tlsvars);
	m->dynsym_only = !module_has_symtab(m);
	module_name_statics(m);
	return 0;
}

static int module_open(struct sym_module *m)
{
	char path[PATH_MAX];
	int fd = module_open_file(m, path, sizeof(path));
	if (fd < 0)
		return fd;
	int err = module_layout(m, fd);
	if (!err) {
		m->dwfl = dwfl_begin(&dwfl_callbacks);
		err = m->dwfl ? 0 : -ENOMEM;
	}
	if (!err) {
		dwfl_report_begin(m->dwfl);
		/* base is the bias: dwfl then adds each p_vaddr, like the loader did */
		m->dm = dwfl_report_elf(m->dwfl, m->name, path, fd, m->bias, true);
		err = m->dm ? 0 : -ENOEXEC;
	}
	if (err) {
		close(fd);	/* dwfl_report_elf consumes fd only on success */
		return err;
	}
	if (dwfl_report_end(m->dwfl, NULL, NULL))
		return -ENOEXEC;
	Dwarf_Addr bias;
	m->elf = dwfl_module_getelf(m->dm, &bias);
	if (!m->elf)
		return -ENOEXEC;
	return module_load_symbols(m);
}

/* 0 when the module is usable; a failure is remembered, the file is tried once. */
static int module_load(struct sym_module *m)
{
	if (!m->state) {
		int err = module_open(m);
		m->state = err ? err : 1;
	}
	return m->state < 0 ? m->state : 0;
}

/* ---- DWARF: the subprogram and the inlining chain at a pc ---- */

static int cu_index_add(struct cu_index *ci, Dwarf_Die *sub)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(sub, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (grow((void **)&ci->r, &ci->cap, ci->n + 1, sizeof(*ci->r)))
			return -ENOMEM;
		ci->r[ci->n++] = (struct cu_range){ lo, hi, *sub };
	}
	return 0;
}

/*
 * Concrete subprograms of a CU: at its top level, in namespaces (C++) and modules
 * (Fortran), and nested in other subprograms (Fortran internal procedures, GNU C nested
 * functions).  Abstract instances of inline functions have no ranges and add nothing.
 */
static int cu_index_collect(struct cu_index *ci, Dwarf_Die *parent)
{
	Dwarf_Die c;
	if (dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c), err = 0;
		if (tag == DW_TAG_subprogram)
			err = cu_index_add(ci, &c);
		if (!err && (tag == DW_TAG_subprogram || tag == DW_TAG_namespace ||
			     tag == DW_TAG_module))
			err = cu_index_collect(ci, &c);
		if (err)
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct cu_index *cu_index_get(struct sym_module *m, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu);
	uint32_t idx;
	if (!u64map_get(&m->cu_map, key, &idx))
		return &m->cus[idx];
	if (grow((void **)&m->cus, &m->capcus, m->ncus + 1, sizeof(*m->cus)))
		return NULL;
	struct cu_index *ci = &m->cus[m->ncus];
	memset(ci, 0, sizeof(*ci));
	if (u64map_put(&m->cu_map, key, (uint32_t)m->ncus))
		return NULL;
	m->ncus++;
	cu_index_collect(ci, cu);	/* on -ENOMEM, a partial index: fewer names */
	if (ci->n > 1)
		qsort(ci->r, ci->n, sizeof(*ci->r), cu_range_cmp);
	return ci;
}

/* The innermost (smallest) subprogram range containing pc. */
static Dwarf_Die *cu_index_find(struct cu_index *ci, uint64_t pc)
{
	size_t lo = FIRST_AFTER(ci->r, ci->n, lo, pc);
	struct cu_range *best = NULL;
	for (size_t i = lo, k = 0; i-- > 0 && k < SYM_SCAN_BACK; k++) {
		struct cu_range *r = &ci->r[i];
		if (pc < r->hi && (!best || r->hi - r->lo < best->hi - best->lo))
			best = r;
	}
	return best ? &best->die : NULL;
}

struct chain {
	Dwarf_Die die[CHAIN_MAX];	/* [0] the subprogram, then inlined instances inward */
	int n;
};

static bool has_pc_attrs(Dwarf_Die *d)
{
	return dwarf_hasattr(d, DW_AT_low_pc) || dwarf_hasattr(d, DW_AT_ranges);
}

/* Follow the inlined subroutines (through lexical blocks) that contain pc. */
static bool chain_descend(struct chain *ch, Dwarf_Die *d, Dwarf_Addr pc)
{
	Dwarf_Die c;
	if (dwarf_child(d, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block)
			continue;
		if (dwarf_haspc(&c, pc) > 0) {
			if (tag == DW_TAG_inlined_subroutine) {
				if (ch->n == CHAIN_MAX)
					return true;
				ch->die[ch->n++] = c;
			}
			chain_descend(ch, &c, pc);
			return true;
		}
		/* a block without addresses only groups declarations: look inside */
		if (tag == DW_TAG_lexical_block && !has_pc_attrs(&c) && chain_descend(ch, &c, pc))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* DW_AT_decl_file's index in its CU's file table (libdw's dwarf_decl_file gives NULL for
 * clang's DWARF 5 index 0, the CU's own file), or -1. */
static int64_t decl_file_index(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word f;
	return dwarf_formudata(dwarf_attr_integrate(d, DW_AT_decl_file, &a), &f) ? -1 : (int64_t)f;
}

/* The function in cu (or a namespace of it) declared last at or before `line` of `file`,
 * other than an outlined region or a mere declaration: *best, whose line is *best_line. */
static void enclosing_fn(Dwarf_Die *scope, int64_t file, int line, Dwarf_Die *best,
			 int *best_line)
{
	Dwarf_Die c;
	if (dwarf_child(scope, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c), l;
		if (tag == DW_TAG_namespace) {
			enclosing_fn(&c, file, line, best, best_line);
			continue;
		}
		if (tag != DW_TAG_subprogram || dwarf_hasattr(&c, DW_AT_declaration) ||
		    dwarf_decl_line(&c, &l) || l > line || l <= *best_line)
			continue;
		const char *n = dwarf_diename(&c);
		if (!n || n[0] == '.' || decl_file_index(&c) != file)
			continue;
		*best = c;
		*best_line = l;
	} while (dwarf_siblingof(&c, &c) == 0);
}

static const char *die_name(struct symtab *st, struct sym_module *m, Dwarf_Die *d);

/*
 * The functions at pc in cu: the innermost subprogram that m's index of the CU has for
 * it (ch->die[0]), then the inlined instances in it, inward.  False when no subprogram
 * covers pc.
 */
static bool chain_at(struct sym_module *m, Dwarf_Die *cu, Dwarf_Addr pc, struct chain *ch)
{
	struct cu_index *ci = cu_index_get(m, cu);
	Dwarf_Die *sub = ci ? cu_index_find(ci, pc) : NULL;
	if (!sub)
		return false;
	ch->die[0] = *sub;
	ch->n = 1;
	chain_descend(ch, &ch->die[0], pc);
	return true;
}

/* The bytes of the module's file at ELF address addr, up to *len of them in one section
 * of code; NULL if none (the file's code is not at hand: a separate debug file's). */
static const uint8_t *code_bytes(struct sym_module *m, Dwarf_Addr addr, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while (m->elf && (scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
		    addr >= sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return NULL;
		*len = (size_t)(sh.sh_addr + sh.sh_size - addr);
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

/*
 * Where fn's code (all its ranges) takes the address target, 0 nowhere: a RIP-relative
 * lea (PIC), or a mov of it as a 32-bit immediate (a program not built as PIE): how a
 * forking function hands its outlined region to the OpenMP runtime (__kmpc_fork_call).
 */
static Dwarf_Addr code_ref(struct sym_module *m, Dwarf_Die *fn, Dwarf_Addr target)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		size_t avail;
		const uint8_t *c = code_bytes(m, lo, &avail);
		size_t n = c ? (size_t)(hi - lo) : 0;
		if (n > avail)
			n = avail;
		for (size_t i = 0; i + 7 <= n; i++) {
			int32_t v;
			/* lea disp32(%rip), %r64: REX.W (and .R) 8d, ModRM mod 00 r/m 101 */
			if ((c[i] == 0x48 || c[i] == 0x4c) && c[i + 1] == 0x8d &&
			    (c[i + 2] & 0xc7) == 0x05) {
				memcpy(&v, c + i + 3, 4);
				if (lo + i + 7 + (Dwarf_Addr)(int64_t)v == target)
					return lo + i;
			}
			/* mov $imm32, %r32 */
			if (c[i] >= 0xb8 && c[i] <= 0xbf) {
				memcpy(&v, c + i + 1, 4);
				if ((Dwarf_Addr)(uint32_t)v == target)
					return lo + i;
			}
		}
	}
	return 0;
}

/*
 * The function whose code has the last line-table row of `file` at or before `line`
 * (a region's first line), outside the compiler's outlined functions ("." names): the
 * function that forks the region, whose call to the OpenMP runtime carries the pragma's
 * line.  Unlike the last function declared before the line, this is not a lambda or a
 * member of a local class written earlier in the same function (their code ends before
 * the pragma), and it is found when that function was inlined.  Several functions with
 * that line (a template's instantiations, K<float>::run and K<double>::run, both inlined
 * in main): the one with a row of that line nearest the instruction that takes the
 * address of the region's outlined function, target (0: unknown), in the code of the
 * subprogram around it (an inlined instance's ranges need not hold that instruction);
 * else the first (the trial of 2026-11-29, F1: BabelStream's double kernels read
 * OMPStream<float>::dot()).  True if found.
 */
static bool forking_fn(struct sym_module *m, Dwarf_Die *cu, int64_t file, int line,
		       Dwarf_Addr target, Dwarf_Die *out)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t n, nfiles;
	if (dwarf_getsrclines(cu, &lines, &n) || dwarf_getsrcfiles(cu, &files, &nfiles) ||
	    (size_t)file >= nfiles)
		return false;
	const char *want = dwarf_filesrc(files, (size_t)file, NULL, NULL);
	int tried = -1;	/* lines are tried from `line` down, each once */
	for (int k = 0; want && k < 64; k++) {
		int best = 0;
		for (size_t i = 0; i < n; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const char *src = dwarf_linesrc(l, NULL, NULL);
			int ln;
			if (!dwarf_lineno(l, &ln) && ln > best && ln <= line &&
			    (tried < 0 || ln < tried) && src && !strcmp(src, want))
				best = ln;
		}
		if (!best)
			return false;
		tried = best;
		/* pass 1: the first candidate (no reference found: as before), and the
		 * reference, in the code of a subprogram around a row (each scanned once) */
		bool found = false;
		Dwarf_Addr ref = 0;
		Dwarf_Off ref_sub = 0, scanned[64];
		int nscanned = 0;
		for (int pass = 0; pass < 2; pass++) {
			Dwarf_Addr nearest = 0;
			bool picked = false;
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				const char *src = dwarf_linesrc(l, NULL, NULL), *name;
				Dwarf_Addr pc;
				Dwarf_Attribute a;
				struct chain ch;
				int ln, dup = 0;
				if (dwarf_lineno(l, &ln) || ln != best || !src ||
				    strcmp(src, want) || dwarf_lineaddr(l, &pc) ||
				    !chain_at(m, cu, pc, &ch))
					continue;
				Dwarf_Die *fn = &ch.die[ch.n - 1];
				name = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_name, &a));
				if (!name || name[0] == '.')
					continue;
				Dwarf_Off sub = dwarf_dieoffset(&ch.die[0]);
				if (pass == 0) {
					if (!found)
						*out = *fn, found = true;
					for (int j = 0; j < nscanned && !dup; j++)
						dup = scanned[j] == sub;
					if (target && !ref && !dup && nscanned < 64) {
						scanned[nscanned++] = sub;
						if ((ref = code_ref(m, &ch.die[0], target)))
							ref_sub = sub;
					}
					continue;
				}
				/* pass 2: the row nearest the reference, in its subprogram (a
				 * neighbouring instantiation's rows may lie nearer by address) */
				Dwarf_Addr d = pc > ref ? pc - ref : ref - pc;
				if (sub == ref_sub && (!picked || d < nearest)) {
					*out = *fn;
					nearest = d;
					picked = true;
				}
			}
			if (!found || !ref)
				break;
		}
		if (found)
			return true;
	}
	return false;
}

/* The DIE offset d stands for: its abstract origin's where it has one (an inlined or
 * concrete instance), else its own. */
static Dwarf_Off origin_offset(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Die o;
	if (dwarf_formref_die(dwarf_attr(d, DW_AT_abstract_origin, &a), &o))
		return dwarf_dieoffset(&o);
	return dwarf_dieoffset(d);
}

/* Whether a DIE under scope (3 levels down at most) inlines or calls the DIE at offset
 * body. */
static bool holds_body(Dwarf_Die *scope, Dwarf_Off body, int depth)
{
	Dwarf_Die c;
	Dwarf_Attribute a;
	if (depth > 3 || dwarf_child(scope, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Die o;
		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_call_site ||
		     tag == DW_TAG_GNU_call_site) &&
		    (dwarf_formref_die(dwarf_attr(&c, DW_AT_abstract_origin, &a), &o) ||
		     dwarf_formref_die(dwarf_attr(&c, DW_AT_call_origin, &a), &o)) &&
		    dwarf_dieoffset(&o) == body)
			return true;
		if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
		    holds_body(&c, body, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/*
 * The wrapper of clang's outlined body d (".omp_outlined._debug__.N"): the outlined
 * function the OpenMP runtime calls (".omp_outlined..M"), which inlines or calls it; else
 * (no inline or call-site entry: -O0) the one declared on the line before d's in its file,
 * as clang writes them (the pragma's line, then the region's).  False if none.
 */
static bool omp_wrapper(Dwarf_Die *cu, Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Off body = origin_offset(d);
	Dwarf_Die c, *by_line = NULL, line_match;
	Dwarf_Attribute a;
	int line = 0, l;
	int64_t file = decl_file_index(d);
	if (dwarf_decl_line(d, &line) || dwarf_child(cu, &c))
		return false;
	do {
		const char *n = dwarf_formstring(dwarf_attr(&c, DW_AT_name, &a));
		if (dwarf_tag(&c) != DW_TAG_subprogram || !n || strncmp(n, ".omp_outlined.", 14) ||
		    strstr(n, "_debug__"))
			continue;
		if (holds_body(&c, body, 0)) {
			*out = c;
			return true;
		}
		if (!by_line && !dwarf_decl_line(&c, &l) && l == line - 1 &&
		    decl_file_index(&c) == file) {
			line_match = c;
			by_line = &line_match;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	if (by_line)
		*out = *by_line;
	return by_line != NULL;
}

/*
 * clang names a parallel region's outlined function ".omp_outlined." (and its body,
 * inlined there, ".omp_outlined._debug__"), numbered per file: nothing says whose region
 * it is.  It is the function that forks it (forking_fn), else, without a line table, the
 * function of the same file declared last before the region's own line (right in C,
 * which has no nested functions): "ljForce.omp_outlined._debug__.2", or for C++
 * "f(int) [clone .omp_outlined..3]" as c++filt writes GCC's "[clone ._omp_fn.0]".
 * NULL when d is no such region or its function is not found.
 */
static const char *omp_region_name(struct symtab *st, struct sym_module *m, Dwarf_Die *d,
				   const char *name)
{
	Dwarf_Die cu, parent;
	uint32_t idx;
	int line, parent_line = 0;
	int64_t file;

	if (strncmp(name, ".omp_outlined.", 14))
		return NULL;
	if (!u64map_get(&st->omp, (uintptr_t)d->addr, &idx))
		return st->strs[idx];
	if (dwarf_decl_line(d, &line) || (file = decl_file_index(d)) < 0 ||
	    !dwarf_diecu(d, &cu, NULL, NULL))
		return NULL;
	/* the body by its wrapper's name: one region, one name, in every tool (mem named a
	 * sample in the body "work.omp_outlined._debug__.1", variance the instance it timed,
	 * the wrapper's, "work.omp_outlined..2") */
	Dwarf_Die w;
	Dwarf_Attribute wa;
	const char *wn;
	if (strstr(name, "._debug__") && omp_wrapper(&cu, d, &w) &&
	    (wn = dwarf_formstring(dwarf_attr(&w, DW_AT_name, &wa)))) {
		const char *r = omp_region_name(st, m, &w, wn);
		uint32_t wi;
		if (r && !u64map_get(&st->omp, (uintptr_t)w.addr, &wi))
			(void)u64map_put(&st->omp, (uintptr_t)d->addr, wi);	/* a cache */
		return r;
	}
	Dwarf_Addr entry = 0;
	if (dwarf_lowpc(d, &entry))
		entry = 0;
	if (!forking_fn(m, &cu, file, line, entry, &parent)) {
		enclosing_fn(&cu, file, line, &parent, &parent_line);
		if (!parent_line)
			return NULL;
	}
	const char *pn = die_name(st, m, &parent);
	if (!pn)
		return NULL;
	size_t len = strlen(pn) + strlen(name) + 16;
	char *out = malloc(len);
	if (!out)
		return NULL;
	snprintf(out, len, strchr(pn, '(') ? "%s [clone %s]" : "%s%s", pn, name);
	if (grow((void **)&st->strs, &st->capstrs, st->nstrs + 1, sizeof(char *)) ||
	    u64map_put(&st->omp, (uintptr_t)d->addr, (uint32_t)st->nstrs)) {
		free(out);
		return NULL;
	}
	st->strs[st->nstrs++] = out;
	return out;
}

/*
 * A member function that GCC gave no linkage name (a lambda's `operator()`, inlined where
 * std::function calls it), qualified by the scopes that hold its declaration:
 * "main::<lambda(int)>::operator()" (the trial of 2026-11-28: three lambdas all read
 * `operator()`).  The declaration is the DIE's abstract origin or specification; NULL
 * when it sits in no class (then the name alone says enough), or on any failure.  Owned
 * by st, one per declaration.
 */
static const char *member_name(struct symtab *st, Dwarf_Die *d, const char *name)
{
	Dwarf_Die decl = *d, next, *scopes = NULL;
	Dwarf_Attribute a;
	uint32_t idx;
	if (strncmp(name, "operator", 8))
		return NULL;
	for (int i = 0; i < 4; i++) {	/* to the declaration itself */
		if (dwarf_formref_die(dwarf_attr(&decl, DW_AT_abstract_origin, &a), &next) ||
		    dwarf_formref_die(dwarf_attr(&decl, DW_AT_specification, &a), &next))
			decl = next;
		else
			break;
	}
	if (!u64map_get(&st->omp, (uintptr_t)decl.addr, &idx))
		return st->strs[idx];
	int n = dwarf_getscopes_die(&decl, &scopes);
	char buf[1024] = "";
	int in_class = 0;
	for (int i = n - 1; i >= 1; i--) {	/* outermost first; [0] is decl */
		int tag = dwarf_tag(&scopes[i]);
		int cls = tag == DW_TAG_class_type || tag == DW_TAG_structure_type;
		const char *sn = dwarf_diename(&scopes[i]);
		if (!sn && cls)
			sn = "<lambda>";	/* GCC's closure types are unnamed */
		if (!sn || (!cls && tag != DW_TAG_namespace && tag != DW_TAG_subprogram))
			continue;
		in_class |= cls;
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof(buf) - l, "%s::", sn);
	}
	free(scopes);
	if (n <= 1 || !in_class)
		return NULL;
	size_t l = strlen(buf);
	snprintf(buf + l, sizeof(buf) - l, "%s", name);
	char *out = strdup(buf);
	if (!out || grow((void **)&st->strs, &st->capstrs, st->nstrs + 1, sizeof(char *)) ||
	    u64map_put(&st->omp, (uintptr_t)decl.addr, (uint32_t)st->nstrs)) {
		free(out);
		return NULL;
	}
	st->strs[st->nstrs++] = out;
	return out;
}

/*
 * A DWARF function's name: its demangled linkage name (qualified, with parameters), else
 * its DW_AT_name.  GCC gives the functions it outlines (OpenMP regions, other clones) no
 * linkage name but a DW_AT_name that is the parent's mangled name with a suffix,
 * "_ZL20CalcPressureForElemsPdS_iPi._omp_fn.0": demangled too, the suffix kept as
 * c++filt does ("CalcPressureForElems(double*, double*, int, int*) [clone ._omp_fn.0]").
 * A linkage name that cannot be demangled (no libstdc++) is the last resort.
 */
static const char *die_name(struct symtab *st, struct sym_module *m, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *ln = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));
	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a));
	if (ln && ln[0] == '_' && ln[1] == 'Z') {
		const char *dm = demangle(st, ln);
		if (dm != ln)
			return dm;
	}
	const char *name = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
	const char *region = name ? omp_region_name(st, m, d, name) : NULL;
	if (region)
		return region;
	const char *lambda = name && !ln ? member_name(st, d, name) : NULL;
	if (lambda)
		return lambda;
	return name ? demangle(st, name) : ln;
}

/* DW_AT_call_file/DW_AT_call_line of an inlined instance: where its caller called it. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, struct sym_frame *f)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &line))
		f->line = (int)line;
	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_column, &a), &line))
		f->column = (int)line;
	if (!dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &file) &&
	    !dwarf_getsrcfiles(cu, &files, &nfiles) && file < nfiles)
		f->file = dwarf_filesrc(files, file, NULL, NULL);
}

/*
 * frames[j] is chain die[n-1-j]; the file and line of frame j > 0 are the call site of
 * the inlined instance one step in.  A chain deeper than SYM_MAX_INLINE keeps its
 * innermost frames and the real function as the last frame.
 */
static void chain_frames(struct symtab *st, struct sym_module *m, Dwarf_Die *cu, struct chain *ch,
			 struct sym_code *out)
{
	int n = ch->n < SYM_MAX_INLINE ? ch->n : SYM_MAX_INLINE;
	for (int j = 0; j < n; j++) {
		int k = j == n - 1 ? 0 : ch->n - 1 - j;
		struct sym_frame *f = &out->frames[j];
		f->function = die_name(st, m, &ch->die[k]);
		if (j > 0) {
			f->file = NULL;
			f->line = 0;
			f->column = 0;
			call_site(cu, &ch->die[k + 1], f);
		}
	}
	out->n = n;
}

/* Address ranges of every compile unit, in m->spans. */
static void module_spans_build(struct sym_module *m, Dwarf *dw)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie;

	for (; dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL) == 0; cu = next)
		if (type == DW_UT_compile && cu_index_add(&m->spans, &cudie))
			break;
	if (m->spans.n > 1)
		qsort(m->spans.r, m->spans.n, sizeof(*m->spans.r), cu_range_cmp);
}

/*
 * The compile unit holding addr and its DWARF bias.  libdw finds it through
 * .debug_aranges, which clang does not emit: then through an index of all CUs' ranges,
 * built on the first miss.
 */
static Dwarf_Die *module_cu(struct sym_module *m, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(m->dm, addr, bias);
	if (cu)
		return cu;
	Dwarf *dw = dwfl_module_getdwarf(m->dm, bias);
	if (!dw)
		return NULL;
	if (!m->spans_built) {
		m->spans_built = 1;
		module_spans_build(m, dw);
	}
	return cu_index_find(&m->spans, addr - *bias);
}

/* The line-table row at pc: frame 0's file and line. */
static void line_at(Dwarf_Die *cu, Dwarf_Addr pc, struct sym_frame *f)
{
	Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
	if (!l)
		return;
	f->file = dwarf_linesrc(l, NULL, NULL);
	if (dwarf_lineno(l, &f->line))
		f->line = 0;
	if (dwarf_linecol(l, &f->column))
		f->column = 0;
}

/* The DWARF frames at pc; 0, or -ENOENT when no subprogram covers it. */
static int dwarf_frames(struct symtab *st, struct sym_module *m, Dwarf_Die *cu, Dwarf_Addr pc,
			struct sym_code *out, uint64_t *sub_start)
{
	Dwarf_Addr entry;
	struct chain *ch = malloc(sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	if (!chain_at(m, cu, pc, ch)) {
		free(ch);
		return -ENOENT;
	}
	chain_frames(st, m, cu, ch, out);
	if (!dwarf_entrypc(&ch->die[0], &entry))
		*sub_start = entry;
	free(ch);
	return 0;
}

/* ---- lookups ---- */

/* Index of the first symbol of v starting after addr. */
static size_t symvec_after(const struct symvec *v, uint64_t addr)
{
	return FIRST_AFTER(v->v, v->n, start, addr);
}

/* Keep g in m->gaps, sorted; the caller then finds it there.  -ENOMEM. */
static int gap_insert(struct sym_module *m, const struct fsym *g)
{
	struct symvec *v = &m->gaps;
	if (grow((void **)&v->v, &v->cap, v->n + 1, sizeof(*v->v)))
		return -ENOMEM;
	size_t at = symvec_after(v, g->start);
	memmove(v->v + at + 1, v->v + at, (v->n - at) * sizeof(*v->v));
	v->v[at] = *g;
	v->n++;
	return 0;
}

/*
 * Code of a module whose only symbols are exported ones (.dynsym of a stripped library)
 * that no exported function covers: static functions between exports, like libgomp's
 * spin-wait.  The whole gap, from the end of the nearest exported function before addr to
 * the next symbol, is one pseudo-function named "GOMP_x+0x40 (nearest exported symbol)",
 * so reports add up its samples; before the first export, or in a module without any
 * symbol, it is "[no symbols]".  NULL outside the executable segments or on -ENOMEM.
 */
static int plt_stub(const struct fsym *f)
{
	size_t n = strlen(f->name);
	return n > 4 && !strcmp(f->name + n - 4, "@plt");
}

static const struct fsym *module_gap(struct sym_module *m, uint64_t addr)
{
	const struct fsym *g = symvec_find(&m->gaps, addr);
	if (g || addr < m->text_lo || addr >= m->text_hi)
		return g;
	size_t i = symvec_after(&m->funcs, addr);
	const struct fsym *prev = i ? &m->funcs.v[i - 1] : NULL;
	struct fsym gap = { m->text_lo, 0, NULL, 0 };
	uint64_t hi = i < m->funcs.n && m->funcs.v[i].start < m->text_hi ? m->funcs.v[i].start :
									  m->text_hi;
	char *name = NULL;

	if (prev && prev->start + prev->size > gap.start)
		gap.start = prev->start + prev->size <= addr ? prev->start + prev->size : addr;
	/* a PLT stub (module_add_plt) bounds the gap but names it not: the code after the
	 * PLT is the start-up's, not an export's */
	while (prev && plt_stub(prev))
		prev = prev > m->funcs.v ? prev - 1 : NULL;
	if (prev && asprintf(&name, "%s+0x%" PRIx64 " (nearest exported symbol)",
			     demangle(m->st, prev->name), gap.start - prev->start) < 0)
		return NULL;
	if (!prev && !(name = strdup("[no symbols]")))
		return NULL;
	if (grow((void **)&m->names, &m->capnames, m->nnames + 1, sizeof(char *))) {
		free(name);
		return NULL;
	}
	m->names[m->nnames++] = name;
	gap.name = name;
	gap.size = hi - gap.start;
	if (gap_insert(m, &gap))
		return NULL;
	return symvec_find(&m->gaps, addr);
}

/*
 * The function symbol containing addr; the last function, when sizeless (ld.so's _start),
 * extends to the end of the code; in a stripped library, the gap holding addr.
 */
static const struct fsym *module_func(struct sym_module *m, uint64_t addr)
{
	const struct fsym *f = symvec_find(&m->funcs, addr);
	const struct fsym *last = m->funcs.n ? &m->funcs.v[m->funcs.n - 1] : NULL;
	if (!f && last && !last->size && last->start <= addr && addr < m->text_hi)
		f = last;
	if (!f && m->dynsym_only)
		f = module_gap(m, addr);
	return f;
}

/*
 * Line 0 is the compiler's "no source line" (clang gives it to spill code and to accesses
 * it merged or moved: 7-20% of CoMD's inst samples).  Such an instruction is charged to
 * the nearest earlier row of the same sequence with a line, not before lo (the function's
 * entry): the line whose code it follows, where perf annotate's source view shows it too.
 */
static void line_zero_before(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Addr lo, struct sym_frame *f)
{
	Dwarf_Lines *lines;
	size_t n;
	if (f->line || !lo || dwarf_getsrclines(cu, &lines, &n) || !n)
		return;
	/* libdw sorts the rows by address: the last one at or before pc, then back */
	size_t a = 0, b = n;
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;
		Dwarf_Addr x;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &x) || x > pc)
			b = mid;
		else
			a = mid;
	}
	for (size_t i = a + 1; i-- > 0;) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr x;
		bool end;
		int line;
		if (!l || dwarf_lineaddr(l, &x) || x > pc)
			continue;
		if (x < lo || dwarf_lineendsequence(l, &end) || end)
			return;		/* before the function, or another sequence's end */
		if (dwarf_lineno(l, &line) || line <= 0)
			continue;
		f->file = dwarf_linesrc(l, NULL, NULL);
		f->line = line;
		if (dwarf_linecol(l, &f->column))
			f->column = 0;
		return;
	}
}

/*
 * The DWARF frames at addr (a runtime address) in out->frames, frame 0's file and line
 * from the line table: 0, or -ENOENT when no compile unit covers addr (out untouched),
 * -ENODATA when one does but no subprogram (then only frame 0's file and line are set).
 */
static int module_frames(struct sym_module *m, uint64_t addr, struct sym_code *out,
			 uint64_t *sub_start)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = module_cu(m, addr, &bias);
	if (!cu)
		return -ENOENT;
	line_at(cu, addr - bias, &out->frames[0]);
	*sub_start = 0;
	if (dwarf_frames(m->st, m, cu, addr - bias, out, sub_start))
		return -ENODATA;
	if (*sub_start) {
		line_zero_before(cu, addr - bias, *sub_start, &out->frames[0]);
		*sub_start += bias;
	}
	return 0;
}

static int code_resolve(struct symtab *st, struct sym_module *m, uint64_t addr,
			struct sym_code *out)
{
	uint64_t sub_start = 0;
	int dw = module_frames(m, addr, out, &sub_start);
	/* a gap's name only when DWARF has none: DWARF names the static function itself */
	const struct fsym *f = dw ? module_func(m, addr) : symvec_find(&m->funcs, addr);

	out->module_offset = addr - m->bias;
	if (dw) {
		out->n = 1;
		out->frames[0].function = f ? demangle(st, f->name) : NULL;
		out->frames[0].nearest = f && f >= m->gaps.v && f < m->gaps.v + m->gaps.n;
	}
	out->func_start = f ? f->start : sub_start;
	return 0;
}

static int code_lookup(struct symtab *st, uint64_t addr, struct sym_code *out, int *mod)
{
	struct mapping *mp = mapping_find(st, addr);
	if (!mp || mp->module < 0)
		return -ENOENT;
	struct sym_module *m = st->mods[mp->module];
	*mod = mp->module;
	out->module = m->name;
	if (module_load(m)) {
		/* no symbols: at least a file offset a user can take elsewhere */
		out->module_offset = addr - mp->lo + mp->offset;
		return -ENOENT;
	}
	return code_resolve(st, m, addr, out);
}

const char *sym_code_name(const struct sym_code *sc, int k, char *buf, size_t len)
{
	const struct sym_frame *f = k >= 0 && k < sc->n ? &sc->frames[k] : NULL;
	const char *base = sc->module ? strrchr(sc->module, '/') : NULL;
	base = base ? base + 1 : sc->module;
	if (sym_code_has_own_name(sc, k))
		return f->function;
	if (!base)
		snprintf(buf, len, "[unknown]");
	else if (f && f->function && f->function[0] != '[')	/* not "[no symbols]" */
		snprintf(buf, len, "[%s] %s", base, f->function);
	else
		snprintf(buf, len, "[%s]", base);
	return buf;
}

const char *sym_code_addr_name(const struct sym_code *sc, uint64_t addr, char *buf, size_t len)
{
	const char *base = sc->module ? strrchr(sc->module, '/') : NULL;
	base = base ? base + 1 : sc->module;
	if (base)
		snprintf(buf, len, "[%s]+0x%" PRIx64, base, sc->module_offset);
	else
		snprintf(buf, len, "[unknown] (0x%" PRIx64 ")", addr);
	return buf;
}

bool sym_code_has_own_name(const struct sym_code *sc, int k)
{
	return k >= 0 && k < sc->n && sc->frames[k].function && !sc->frames[k].nearest;
}

const char *sym_code_own_name(const struct sym_code *sc, int k, uint64_t addr, char *buf,
			      size_t len)
{
	return sym_code_has_own_name(sc, k) ? sym_code_name(sc, k, buf, len) :
					      sym_code_addr_name(sc, addr, buf, len);
}

static void cache_fill(struct symtab *st, const struct cache_ent *e, struct sym_code *out)
{
	memset(out, 0, sizeof(*out));
	out->module = e->module >= 0 ? st->mods[e->module]->name : NULL;
	out->module_offset = e->module_offset;
	out->func_start = e->func_start;
	out->n = e->n;
	if (e->n)
		memcpy(out->frames, &st->frames[e->frame0],
		       (size_t)e->n * sizeof(out->frames[0]));
}

/* Remember a result; on allocation failure it is simply not cached. */
static void cache_store(struct symtab *st, uint64_t addr, int rc, int mod,
			const struct sym_code *out)
{
	if (grow((void **)&st->ents, &st->capents, st->nents + 1, sizeof(*st->ents)) ||
	    grow((void **)&st->frames, &st->capframes, st->nframes + (size_t)out->n,
		 sizeof(*st->frames)) ||
	    st->nents >= UINT32_MAX - 1 ||
	    u64map_put(&st->cache, addr, (uint32_t)st->nents))
		return;
	struct cache_ent *e = &st->ents[st->nents++];
	e->rc = rc;
	e->module = mod;
	e->module_offset = out->module_offset;
	e->func_start = out->func_start;
	e->frame0 = (uint32_t)st->nframes;
	e->n = out->n;
	if (out->n)
		memcpy(&st->frames[st->nframes], out->frames,
		       (size_t)out->n * sizeof(out->frames[0]));
	st->nframes += (size_t)out->n;
}

int symtab_code(struct symtab *st, uint64_t addr, struct sym_code *out)
{
	uint32_t idx;
	if (!u64map_get(&st->cache, addr, &idx)) {
		cache_fill(st, &st->ents[idx], out);
		return st->ents[idx].rc;
	}
	int mod = -1;
	memset(out, 0, sizeof(*out));
	int rc = code_lookup(st, addr, out, &mod);
	cache_store(st, addr, rc, mod, out);
	return rc;
}

/*
 * The module whose static data may hold addr: the module of its mapping, or for an
 * anonymous mapping right after a file's mappings, that file (the part of .bss beyond
 * the file's last page is mapped anonymously, or joins [heap] when brk is not randomized).
 */
static struct sym_module *data_module(struct symtab *st, uint64_t addr)
{
	struct mapping *mp = mapping_find(st, addr);
	if (!mp)
		return NULL;
	if (mp->module < 0 && mp > st->maps && mp[-1].hi == mp->lo && mp[-1].module >= 0)
		mp--;
	if (mp->module < 0)
		return NULL;
	struct sym_module *m = st->mods[mp->module];
	if (module_load(m) || addr >= m->end)
		return NULL;
	return m;
}

/* The variable f of module m into out: 0, or -ENOENT for none. */
static int data_out(struct symtab *st, const struct sym_module *m, const struct fsym *f,
		    struct sym_data *out)
{
	if (!f)
		return -ENOENT;
	out->name = demangle(st, f->name);
	out->module = m->name;
	out->start = f->start;
	out->size = f->size;
	return 0;
}

int symtab_data(struct symtab *st, uint64_t addr, struct sym_data *out)
{
	struct sym_module *m = data_module(st, addr);
	const struct fsym *f = NULL;
	if (m)
		f = symvec_find(&m->objs, addr);
	if (m && !f)
		f = symvec_find(&m->tls, addr);
	return data_out(st, m, f, out);
}

int symtab_tls(struct symtab *st, const char *module, uint64_t off, struct sym_data *out)
{
	for (size_t i = 0; module && i < st->nmods; i++) {
		struct sym_module *m = st->mods[i];
		if (m->name && !strcmp(m->name, module) && !module_load(m))
			return data_out(st, m, symvec_find(&m->tlsvars, off), out);
	}
	return -ENOENT;
}

/* glibc's malloc heaps of its non-main arenas: 64 MiB aligned, 64 MiB reserved, the part
 * in use read-write and the rest PROT_NONE after it (malloc/arena.c, new_heap). */
#define MALLOC_HEAP_MAX (64ull << 20)

int symtab_malloc_heap(struct symtab *st, uint64_t addr)
{
	struct mapping *mp = mapping_find(st, addr);
	if (!mp || *mp->name || strncmp(mp->prot, "rw", 2) || (mp->lo & (MALLOC_HEAP_MAX - 1)))
		return 0;
	if (mp->hi - mp->lo == MALLOC_HEAP_MAX)
		return 1;
	const struct mapping *next = mp + 1;
	return mp->hi - mp->lo < MALLOC_HEAP_MAX && next < st->maps + st->nmaps &&
	       next->lo == mp->hi && !*next->name && !strcmp(next->prot, "---p") &&
	       next->hi == mp->lo + MALLOC_HEAP_MAX;
}

const char *symtab_mapping(struct symtab *st, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	struct mapping *mp = mapping_find(st, addr);
	if (!mp)
		return NULL;
	if (lo)
		*lo = mp->lo;
	if (hi)
		*hi = mp->hi;
	return mp->name;
}

/* ---- modules by path (perf.data): ELF virtual addresses ---- */

/*
 * The kernel's text symbols, from /proc/kallsyms when the recording was made on the
 * running kernel (same release); a symbol extends to the next one.
 */
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

static void ksyms_load(struct symtab *st)
{
	struct utsname u;
	size_t len, cap = 0;
	st->ksyms_tried = true;
	if (!st->osrelease || uname(&u) || strcmp(u.release, st->osrelease))
		return;
	st->kbuf = slurp_proc("/proc/kallsyms", &len);
	if (!st->kbuf)
		return;
	int sorted = 1, ok;
	for (char *p = st->kbuf, *end = st->kbuf + len; p < end;) {
		struct ksym k;
		p = ksym_parse(p, end, &k, &ok);
		if (!ok)
			continue;
		if (st->nksyms == cap) {
			cap = cap ? cap * 2 : 65536;
			struct ksym *n = realloc(st->ksyms, cap * sizeof(*n));
			if (!n)
				break;
			st->ksyms = n;
		}
		if (st->nksyms && st->ksyms[st->nksyms - 1].addr > k.addr)
			sorted = 0;
		st->ksyms[st->nksyms++] = k;
	}
	if (!sorted)
		qsort(st->ksyms, st->nksyms, sizeof(*st->ksyms), ksym_cmp);
}

static int kernel_func(struct symtab *st, uint64_t addr, const char **name, uint64_t *start,
		       uint64_t *size)
{
	if (!st->ksyms_tried)
		ksyms_load(st);
	size_t lo = FIRST_AFTER(st->ksyms, st->nksyms, addr, addr);
	if (!lo)
		return -ENOENT;
	struct ksym *k = &st->ksyms[lo - 1];
	*name = k->name;
	*start = k->addr;
	*size = lo < st->nksyms ? st->ksyms[lo].addr - k->addr : 1;
	return 0;
}

struct symtab *symtab_new_files(const char *osrelease)
{
	struct symtab *st = calloc(1, sizeof(*st));
	elf_version(EV_CURRENT);
	if (st && osrelease && !(st->osrelease = strdup(osrelease))) {
		free(st);
		return NULL;
	}
	return st;
}

static bool is_kernel(const char *path)
{
	return !strncmp(path, "[kernel.kallsyms]", 17);
}

struct sym_module *symtab_module(struct symtab *st, const char *path)
{
	for (size_t i = 0; i < st->nmods; i++) {
		struct sym_module *m = st->mods[i];
		if (m->by_path && !strcmp(m->path, path))
			return m->state > 0 ? m : NULL;
	}
	struct sym_module *m = symtab_add_module(st);
	if (!m)
		return NULL;
	m->by_path = true;
	m->path = strdup(path);
	m->name = m->path;
	m->kernel = m->path && is_kernel(path);
	if (!m->path)
		m->state = -ENOMEM;
	else if (m->kernel)
		m->state = 1;
	else if (path[0] != '/')
		m->state = -ENOENT;
	return module_load(m) ? NULL : m;
}

int sym_module_addr(const struct sym_module *m, uint64_t off, uint64_t *addr)
{
	size_t n;
	if (m->kernel) {
		*addr = off;
		return 0;
	}
	if (elf_getphdrnum(m->elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*addr = off - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int sym_module_func(struct sym_module *m, uint64_t addr, const char **name, uint64_t *start,
		    uint64_t *size)
{
	if (m->kernel)
		return kernel_func(m->st, addr, name, start, size);
	const struct fsym *f = module_func(m, addr);
	if (!f)
		return -ENOENT;
	*name = demangle(m->st, f->name);
	*start = f->start;
	*size = f->size;
	if (!f->size) {		/* sizeless: up to the next symbol (symvec_find) */
		size_t i = symvec_after(&m->funcs, addr);
		*size = i < m->funcs.n ? m->funcs.v[i].start - f->start : addr - f->start + 1;
	}
	return 0;
}

int sym_module_lines(struct sym_module *m, uint64_t addr, struct sym_frame *frames, int max)
{
	struct sym_code c;
	uint64_t sub_start;

	if (m->kernel || max <= 0)
		return 0;
	memset(&c, 0, sizeof(c));
	int err = module_frames(m, addr, &c, &sub_start);
	if (err == -ENOENT || !c.frames[0].file)
		return 0;	/* no line information */
	if (err) {
		c.n = 1;
		c.frames[0].function = NULL;
	}
	int n = c.n < max ? c.n : max;
	memcpy(frames, c.frames, (size_t)n * sizeof(*frames));
	if (n < c.n)
		frames[n - 1] = c.frames[c.n - 1];	/* the real function stays the last */
	return n;
}

size_t sym_module_code(const struct sym_module *m, uint64_t addr, uint8_t *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	if (m->kernel)
		return 0;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t o = addr - sh.sh_addr;
		if (!d || !d->d_buf || o >= d->d_size)
			return 0;
		size_t n = len < d->d_size - o ? len : (size_t)(d->d_size - o);
		memcpy(buf, (const uint8_t *)d->d_buf + o, n);
		return n;
	}
	return 0;
}

/* Does the code at c (n bytes: a function's first) set up a frame pointer: `push %rbp`,
 * then `mov %rsp,%rbp`?  Not only at its start, nor always side by side: gcc schedules
 * other instructions between the two, and its shrink-wrapping puts the prologue after
 * an early return's test.  Code that only saves %rbp as a register pushes it but never
 * moves %rsp into it.  (A byte scan, not a decode: a false match inside another
 * instruction is possible and rare.) */
static bool fp_prologue(const uint8_t *c, size_t n)
{
	bool pushed = false;
	for (size_t o = 0; o + 3 <= n; o++) {
		if (pushed && c[o] == 0x48 &&
		    ((c[o + 1] == 0x89 && c[o + 2] == 0xe5) || (c[o + 1] == 0x8b && c[o + 2] == 0xec)))
			return true;
		pushed = pushed || c[o] == 0x55;
	}
	return false;
}

/* A function symbol and, for a local one, the name index of its source file's STT_FILE
 * symbol (0: none). */
struct efsym {
	GElf_Sym s;
	Elf64_Word file;
};

/* By address, then by symbol table order (qsort is not stable: the names' index). */
static int sym_value_cmp(const void *x, const void *y)
{
	const GElf_Sym *a = &((const struct efsym *)x)->s, *b = &((const struct efsym *)y)->s;
	if (a->st_value != b->st_value)
		return a->st_value < b->st_value ? -1 : 1;
	return a->st_name < b->st_name ? -1 : a->st_name > b->st_name;
}

/* visit(ctx, name, file, code, n) for each sized function symbol of the x86-64 ELF file at
 * path (its .symtab, else .dynsym) of min_size bytes or more, whose code is in the file;
 * file: a local symbol's source file (the STT_FILE symbol before it), else NULL.  0, or
 * -errno (unreadable, not x86-64 ELF, no symbols). */
/* aliases: every symbol, not the first of each address (sym_function_addrs: a name
 * that gcc's identical-code folding or an alias attribute put at another's address) */
static int each_function(const char *path, uint64_t min_size, int aliases,
			 void (*visit)(void *ctx, const char *name, const char *file,
				       uint64_t addr, const uint8_t *code, size_t n),
			 void *ctx)
{
	int fd = file_open_regular(path, NULL);
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh;
	int err = -ENOEXEC;
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64)
		goto out;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB ||
					       (sh.sh_type == SHT_DYNSYM && !symscn)))
			symscn = scn;
	Elf_Data *d = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		goto out;
	size_t nsym = sh.sh_size / sh.sh_entsize, nf = 0;
	/* a function is visited once, whatever its aliases (C++'s C1/C2 constructors, symbol
	 * versions): the candidates sorted by address, the first of each address taken */
	struct efsym *fs = calloc(nsym ? nsym : 1, sizeof(*fs));
	err = fs ? 0 : -ENOMEM;
	Elf64_Word file = 0;	/* the last STT_FILE's name: a local symbol's file */
	for (size_t i = 0; i < nsym && fs; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) == STT_FILE)
			file = sym.st_name;
		else if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF &&
			 sym.st_size >= min_size && sym.st_size)
			fs[nf++] = (struct efsym){ sym, GELF_ST_BIND(sym.st_info) == STB_LOCAL
							 ? file : 0 };
	}
	if (fs)
		qsort(fs, nf, sizeof(*fs), sym_value_cmp);
	for (size_t i = 0; i < nf; i++) {
		const GElf_Sym sym = fs[i].s;
		if (i && fs[i - 1].s.st_value == sym.st_value && !aliases)
			continue;
		Elf_Scn *ts = elf_getscn(elf, sym.st_shndx);
		GElf_Shdr th;
		Elf_Data *td = ts ? elf_getdata(ts, NULL) : NULL;
		if (!td || !td->d_buf || !gelf_getshdr(ts, &th) || th.sh_type != SHT_PROGBITS ||
		    sym.st_value < th.sh_addr || sym.st_value - th.sh_addr >= td->d_size)
			continue;
		uint64_t o = sym.st_value - th.sh_addr;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		const char *fn = fs[i].file ? elf_strptr(elf, sh.sh_link, fs[i].file) : NULL;
		visit(ctx, name ? name : "?", fn && *fn ? fn : NULL, sym.st_value,
		      (const uint8_t *)td->d_buf + o,
		      (size_t)(sym.st_size < td->d_size - o ? sym.st_size : td->d_size - o));
	}
	free(fs);
out:
	elf_end(elf);
	close(fd);
	return err;
}

struct fp_count {
	unsigned with_fp, funcs;
};

static void fp_visit(void *ctx, const char *name, const char *file, uint64_t addr,
		     const uint8_t *code, size_t n)
{
	struct fp_count *c = ctx;
	(void)name;
	(void)file;
	(void)addr;
	c->funcs++;
	c->with_fp += fp_prologue(code, n < 64 ? n : 64);
}

int sym_frame_pointers(const char *path, unsigned *with_fp, unsigned *funcs)
{
	struct fp_count c = { 0, 0 };
	int err = each_function(path, 16, 0, fp_visit, &c);
	*with_fp = c.with_fp, *funcs = c.funcs;
	return err;
}

/* The atomic read-modify-writes in one function's code: lock-prefixed instructions.  A
 * linear decode from the symbol's start: data in the code, rare in compiled C, may hide
 * or fake a few. */
static void atomics_visit(void *ctx, const char *name, const char *file, uint64_t addr,
			  const uint8_t *code, size_t n)
{
	struct sym_atomics *a = ctx;
	(void)addr;
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	unsigned k = 0;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (size_t o = 0; o < n;) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + o, n - o, &in, ops))) {
			o++;
			continue;
		}
		/* lock-prefixed only: xchg with memory is locked too, but clang makes its
		 * seq_cst stores (`_Atomic x = v`) of it, and trace-stores sees those (the
		 * review of 2026-11-28); __atomic_exchange's xchg goes uncounted */
		if (in.attributes & ZYDIS_ATTRIB_HAS_LOCK)
			k++;
		o += in.length;
	}
	if (!k)
		return;
	a->count += k;
	a->funcs++;
	/* the functions with the most, in order */
	int at = SYM_ATOMICS_TOP;
	while (at > 0 && a->top_count[at - 1] < k)
		at--;
	if (at == SYM_ATOMICS_TOP)
		return;
	memmove(&a->top[at + 1], &a->top[at], (SYM_ATOMICS_TOP - 1 - (size_t)at) * sizeof(a->top[0]));
	memmove(&a->top_count[at + 1], &a->top_count[at],
		(SYM_ATOMICS_TOP - 1 - (size_t)at) * sizeof(a->top_count[0]));
	char *dm = sym_demangle_new(name);
	/* a compiler's local name for a parallel region (clang 14's ".omp_outlined..19",
	 * numbered per file: AMG had three; later clangs' "f.omp_outlined", gcc's
	 * "f._omp_fn.0", for f static in several files) with its file (the trial of
	 * 2026-11-29) */
	if (file &&
	    (name[0] == '.' || strstr(name, ".omp_outlined") || strstr(name, "._omp_fn.")))
		snprintf(a->top[at], sizeof(a->top[at]), "%s in %s", dm ? dm : name, file);
	else
		snprintf(a->top[at], sizeof(a->top[at]), "%s", dm ? dm : name);
	free(dm);
	a->top_count[at] = k;
}

int sym_atomics(const char *path, struct sym_atomics *out)
{
	memset(out, 0, sizeof(*out));
	return each_function(path, 1, 0, atomics_visit, out);
}

/*
 * Room for m in st->maps (capacity *cap), and the exit copy's anonymous mappings that
 * overlap the file mapping m cut away from its range: a file the program unmapped whose
 * addresses anonymous memory took afterwards (merged by the kernel with its neighbours: a
 * 72 MB region covered the 1 MB file of t073 in some runs) keeps its name there, where
 * the program's own anonymous blocks of a tracked size are heap objects anyway.  0, or
 * -ENOMEM.
 */
static int carve_anonymous(struct symtab *st, size_t *cap, const struct mapping *m)
{
	size_t n = st->nmaps;
	for (size_t j = 0; j < n; j++) {
		struct mapping *o = &st->maps[j];
		if (*o->name || o->hi <= o->lo || !(m->lo < o->hi && o->lo < m->hi))
			continue;
		if (o->lo < m->lo && o->hi > m->hi) {	/* cut in two: the rest after m */
			char *nm = strdup("");
			if (!nm || grow((void **)&st->maps, cap, st->nmaps + 1, sizeof(*o))) {
				free(nm);
				return -ENOMEM;
			}
			o = &st->maps[j];
			struct mapping rest = *o;
			rest.lo = m->hi;
			rest.name = nm;
			st->maps[st->nmaps++] = rest;
			o->hi = m->lo;
		} else if (o->lo < m->lo) {
			o->hi = m->lo;
		} else if (o->hi > m->hi) {
			o->lo = m->hi;
		} else {
			o->lo = o->hi = 0;	/* all of it: empty, found by no address */
		}
	}
	return grow((void **)&st->maps, cap, st->nmaps + 1, sizeof(*m)) ? -ENOMEM : 0;
}

/* Whether a mapping of the file `name` in m's list is executable (a library's code). */
static int has_exec_line(const struct symtab *m, const char *name)
{
	for (size_t i = 0; i < m->nmaps; i++)
		if (m->maps[i].prot[2] == 'x' && !strcmp(m->maps[i].name, name))
			return 1;
	return 0;
}

/*
 * The mappings of a second copy of the maps (PREFIX.maps.closed: libraries dlclose'd and
 * files unmapped before the exit, rt/interpose.c) added where the exit's copy does not
 * already map the addresses: a mapping there since wins, save anonymous memory over a data
 * file (carve_anonymous).  Best effort: an unreadable copy adds nothing.
 */
static int maps_read_closed(struct symtab *st, const char *path)
{
	int e = 0;
	FILE *f = file_fopen_regular(path, &e);
	struct symtab more = { 0 };
	if (!f)
		return 0;
	e = maps_read(&more, f);
	fclose(f);
	size_t cap = st->nmaps;
	for (size_t i = 0; i < more.nmaps; i++) {
		struct mapping *m = &more.maps[i];
		int clash = 0;
		/* overlapping the exit's copy (the library still mapped there, or another
		 * mapped since at its addresses: the later one wins, save anonymous memory
		 * over a data file), or one added already
		 * (a library dlclose'd twice; two at the same addresses: the first).  An
		 * overlap at one end is clipped off: a library's .bss, anonymous, is merged by
		 * the kernel with the anonymous memory after it, which outlives the library */
		/* a data file the program unmapped (no executable line of its name: not a
		 * dlclose'd library, whose addresses later thread stacks or arenas may hold)
		 * wins over anonymous memory there since: carved below */
		int data = *m->name && !has_exec_line(&more, m->name);
		for (size_t j = 0; j < st->nmaps && !clash; j++) {
			const struct mapping *o = &st->maps[j];
			if (!(m->lo < o->hi && o->lo < m->hi))
				continue;
			if (data && !*o->name && o->hi > o->lo)
				continue;
			if (o->lo > m->lo && o->hi >= m->hi) {
				m->hi = o->lo;			/* its end taken */
			} else if (o->lo <= m->lo && o->hi < m->hi) {
				m->offset += o->hi - m->lo;	/* its start taken */
				m->lo = o->hi;
			} else {
				clash = 1;			/* covered, or cut in two */
			}
		}
		if (clash || e || m->lo >= m->hi ||
		    (data ? carve_anonymous(st, &cap, m) :
			    grow((void **)&st->maps, &cap, st->nmaps + 1, sizeof(*m)))) {
			free(m->name);
			continue;
		}
		st->maps[st->nmaps++] = *m;
	}
	free(more.maps);
	return 0;
}

struct symtab *symtab_new(const char *maps_path, int *err)
{
	return symtab_new_closed(maps_path, NULL, err);
}

struct symtab *symtab_new_closed(const char *maps_path, const char *closed_path, int *err)
{
	int e = 0;
	/* the recording's copy: a FIFO put in its place must not block the report */
	FILE *f = file_fopen_regular(maps_path, &e);
	struct symtab *st = NULL;

	elf_version(EV_CURRENT);
	if (!e && !(st = calloc(1, sizeof(*st))))
		e = -ENOMEM;
	if (!e)
		e = maps_read(st, f);
	if (f)
		fclose(f);
	if (!e && closed_path)
		e = maps_read_closed(st, closed_path);
	if (!e) {
		maps_sort(st);
		e = modules_build(st);
	}
	if (e) {
		symtab_free(st);
		st = NULL;
	}
	if (err)
		*err = e;
	return st;
}

static void module_release(struct sym_module *m)
{
	if (!m)
		return;
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->funcs.v);
	free(m->objs.v);
	free(m->tls.v);
	free(m->tlsvars.v);
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	for (size_t i = 0; i < m->ncus; i++)
		free(m->cus[i].r);
	free(m->cus);
	free(m->spans.r);
	free(m->gaps.v);
	u64map_release(&m->cu_map);
	free(m->path);
	free(m);
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nmods; i++)
		module_release(st->mods[i]);
	free(st->mods);
	for (size_t i = 0; i < st->nmaps; i++)
		free(st->maps[i].name);
	free(st->maps);
	for (size_t i = 0; i < st->nstrs; i++)
		free(st->strs[i]);
	free(st->strs);
	u64map_release(&st->dem);
	u64map_release(&st->omp);
	u64map_release(&st->cache);
	free(st->ents);
	free(st->frames);
	free(st->ksyms);
	free(st->kbuf);
	free(st->osrelease);
	free(st);
}

struct find_ctx {
	const char *name;
	uint64_t *addrs;
	int max, n;
};

/* A demangled name without its parameters, template arguments, ABI tags, anonymous
 * namespaces and a function template's return type, into out:
 * "OmpBude<8ul>::fasten_main(unsigned long)" is "OmpBude::fasten_main", "double
 * (anonymous namespace)::work<double>(int)" is "work" (the code review of 2026-11-29). */
static void plain_name(const char *dm, char *out, size_t len)
{
	size_t o = 0;
	int depth = 0;
	for (const char *p = dm; *p && o + 1 < len; p++) {
		if (!depth && !strncmp(p, "(anonymous namespace)::", 23)) {
			p += 22;
			continue;
		}
		if (!depth && !strncmp(p, "[abi:", 5)) {	/* [abi:cxx11] */
			while (p[1] && *p != ']')
				p++;
			continue;
		}
		if (*p == '(' && !depth && p != dm)
			break;
		if (*p == '<' && strncmp(p - (p - dm >= 8 ? 8 : 0), "operator", 8))
			depth++;
		else if (*p == '>' && depth)
			depth--;
		else if (!depth)
			out[o++] = *p;
	}
	out[o] = 0;
	/* a return type before the name: what follows its last blank (not an operator's) */
	char *sp = strrchr(out, ' ');
	if (sp && !strstr(out, "operator"))
		memmove(out, sp + 1, strlen(sp + 1) + 1);
}

/* name as the user gives it: the symbol, its demangled form, or that without its
 * parameters ("QCS::calcForce" for "QCS::calcForce(double*, int)"), or a clone of it
 * (gcc's "f.part.0", "f.constprop.0", "f.isra.0": the code that runs); without template
 * arguments, every instantiation ("OMPStream::triad"); and a bare name, every function of
 * that name in any class or namespace ("fasten_main": the trial of 2026-11-29, F4, where
 * only "OmpBude<8ul>::fasten_main" was taken) */
static int find_match(const char *want, const char *name)
{
	size_t n = strlen(want);
	if (strstr(name, ".cold"))	/* a part jumped to, never called */
		return 0;
	if (!strncmp(name, want, n) && (!name[n] || (name[n] == '.' && want[0] != '.')))
		return 1;
	char *dm = sym_demangle_new(name);
	int hit = dm && !strncmp(dm, want, n) && (!dm[n] || dm[n] == '(' || dm[n] == ' ');
	if (dm && !hit && !strchr(want, '<') && !strchr(want, '(')) {
		char plain[512];
		plain_name(dm, plain, sizeof(plain));
		size_t pn = strlen(plain);
		hit = !strcmp(plain, want) ||
		      (!strstr(want, "::") && pn > n + 2 && !strcmp(plain + pn - n, want) &&
		       plain[pn - n - 1] == ':' && plain[pn - n - 2] == ':');
	}
	free(dm);
	return hit;
}

static void find_visit(void *ctx, const char *name, const char *file, uint64_t addr,
		       const uint8_t *code, size_t len)
{
	struct find_ctx *c = ctx;
	(void)file;
	(void)code;
	(void)len;
	if (!find_match(c->name, name))
		return;
	for (int i = 0; i < c->n && i < c->max; i++)
		if (c->addrs[i] == addr)	/* (aliases: C++'s C1 and C2 constructors) */
			return;
	if (c->n < c->max)
		c->addrs[c->n] = addr;
	c->n++;
}

int sym_function_addrs(const char *path, const char *name, uint64_t *addrs, int max)
{
	struct find_ctx c = { name, addrs, max, 0 };
	int err = each_function(path, 1, 1, find_visit, &c);
	return err < 0 ? err : c.n;
}
