/* SPDX-License-Identifier: MIT */
/*
 * u-symbols.c - offline symbolization (src/prof/symbols.c) of this very test process:
 * its own functions (with lines and inlined frames), its static arrays, its heap and
 * stack, libc and a library without debug info, then maps files that are broken on
 * purpose, and a throughput measurement printed as an info line.
 * Built -O2 -g like the CLI: the functions below keep their shape at -O2 (noinline,
 * calls through volatile pointers, calls that order the code).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "prof/symbols.h"

/* AddressSanitizer (make ASAN=1) serves malloc from its own mappings and interposes qsort
 * and strlen: the tests then use a libc function it leaves alone. */
#ifdef __SANITIZE_ADDRESS__
#define UNDER_ASAN 1
#define LIBC_FN ldiv
#else
#define UNDER_ASAN 0
#define LIBC_FN qsort
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- code whose addresses and lines the tests know by construction ---- */

static void *volatile grabbed;
static volatile int sink_v;

__attribute__((noinline)) void sym_grab(void)
{
	grabbed = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void sym_sink(int x)
{
	sink_v += x;
	__asm__ volatile("" ::: "memory");
}

enum { TARGET_FIRST = __LINE__ };
__attribute__((noinline)) int sym_target(int x)
{
	int r = x * 7 + sink_v;
	sym_grab();
	sym_sink(r);
	return r + sink_v;
}
enum { TARGET_LAST = __LINE__ };

enum { INL_FIRST = __LINE__ };
static inline __attribute__((always_inline)) int sym_inl_body(int x)
{
	sym_grab();
	sym_sink(x);
	return x * 3 + sink_v;
}
enum { INL_LAST = __LINE__ };

static volatile int call_line;	/* the line of the call below, stored by the caller */

__attribute__((noinline)) int sym_inl_caller(int x)
{
	sym_sink(x + 1);
	int r = sym_inl_body(x); call_line = __LINE__;
	sym_sink(r);
	return r + 7;
}

static int (*volatile target_fn)(int) = sym_target;
static int (*volatile caller_fn)(int) = sym_inl_caller;

/* ---- data ---- */

int sym_table[1000];
static int sym_static_table[1000] = { 1, 2, 3 };
const int sym_rodata[512] = { 5, 6, 7 };
/* bigger than the rest of the file's last page: its tail is an anonymous mapping */
static char sym_big_bss[1 << 20];

/* ---- helpers ---- */

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

static struct symtab *self_symtab(void)
{
	int err = 1;
	struct symtab *st = symtab_new("/proc/self/maps", &err);
	CHECK(st != NULL);
	CHECK(err == 0);
	return st;
}

struct bid_query {
	uintptr_t addr;
	char path[PATH_MAX];
	int found;
};

static void bid_from_notes(struct bid_query *q, const char *p, size_t len)
{
	const char *end = p + len;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const void *)p;
		const char *name = p + sizeof(*n);
		const unsigned char *desc = (const void *)(name + ((n->n_namesz + 3) & ~3u));
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
		    n->n_descsz > 1) {
			int o = snprintf(q->path, sizeof(q->path), "/usr/lib/debug/.build-id/%02x/",
					 desc[0]);
			for (unsigned i = 1; i < n->n_descsz; i++)
				o += snprintf(q->path + o, sizeof(q->path) - o, "%02x", desc[i]);
			snprintf(q->path + o, sizeof(q->path) - o, ".debug");
			q->found = 1;
			return;
		}
		p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
	}
}

static int bid_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bid_query *q = arg;
	int in = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz)
			in = 1;
	}
	for (int i = 0; in && i < info->dlpi_phnum && !q->found; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE)
			bid_from_notes(q, (const char *)(info->dlpi_addr + ph->p_vaddr),
				       ph->p_filesz);
	}
	return in;
}

/* Whether a separate debug file for the object holding addr is installed (by build id,
 * read from the loaded object's notes, independently of the code under test). */
static int has_debug_file(const void *addr)
{
	struct bid_query q = { (uintptr_t)addr, "", 0 };
	dl_iterate_phdr(bid_cb, &q);
	return q.found && access(q.path, R_OK) == 0;
}

/* ---- tests ---- */

static void check_target(struct symtab *st, uintptr_t a)
{
	struct sym_code c;
	CHECK(symtab_code(st, a, &c) == 0);
	CHECK(c.n >= 1);
	if (c.n < 1)
		return;
	CHECK_STR(c.frames[c.n - 1].function, "sym_target");
	CHECK_STR(base_name(c.frames[0].file), "u-symbols.c");
	CHECK(c.frames[0].line >= TARGET_FIRST && c.frames[0].line <= TARGET_LAST);
	CHECK_EQ_U64(c.func_start, (uintptr_t)sym_target);
	CHECK(c.module != NULL);
}

/* sym_target's entry and an address in its middle: name, this file, a line inside. */
TEST(own_function)
{
	struct symtab *st = self_symtab();
	if (!st)
		return;
	target_fn(1);
	check_target(st, (uintptr_t)sym_target);
	check_target(st, (uintptr_t)grabbed);
	CHECK((uintptr_t)grabbed != (uintptr_t)sym_target);
	symtab_free(st);
}

/* The return address of sym_grab() in the inlined body: inner frame sym_inl_body at a line
 * of its own, outer frame sym_inl_caller at the call line. */
TEST(inlined_frames)
{
	struct symtab *st = self_symtab();
	struct sym_code c;
	if (!st)
		return;
	caller_fn(2);
	CHECK(symtab_code(st, (uintptr_t)grabbed, &c) == 0);
	CHECK(c.n == 2);
	if (c.n == 2) {
		CHECK_STR(c.frames[0].function, "sym_inl_body");
		CHECK_STR(base_name(c.frames[0].file), "u-symbols.c");
		CHECK(c.frames[0].line > INL_FIRST && c.frames[0].line < INL_LAST);
		CHECK_STR(c.frames[1].function, "sym_inl_caller");
		CHECK_STR(base_name(c.frames[1].file), "u-symbols.c");
		CHECK(c.frames[1].line == call_line);
	}
	CHECK_EQ_U64(c.func_start, (uintptr_t)sym_inl_caller);
	/* the same address again comes from the cache, with the same answer */
	struct sym_code c2;
	CHECK(symtab_code(st, (uintptr_t)grabbed, &c2) == 0);
	CHECK(c2.n == c.n && c2.frames[0].function == c.frames[0].function &&
	      c2.frames[0].line == c.frames[0].line && c2.func_start == c.func_start);
	symtab_free(st);
}

/* First, middle and last element of an array of n elements of elem bytes. */
static void check_array(struct symtab *st, const void *arr, size_t n, size_t elem,
			const char *name)
{
	uintptr_t base = (uintptr_t)arr;
	uintptr_t at[3] = { base, base + n / 2 * elem, base + (n - 1) * elem };
	struct sym_data d;
	for (int i = 0; i < 3; i++) {
		memset(&d, 0, sizeof(d));
		CHECK(symtab_data(st, at[i], &d) == 0);
		CHECK_STR(d.name, name);
		CHECK_EQ_U64(d.start, base);
		CHECK_EQ_U64(d.size, n * elem);
		CHECK(d.module != NULL);
	}
	/* one past the end is not this variable */
	if (symtab_data(st, base + n * elem, &d) == 0)
		CHECK(strcmp(d.name, name) != 0);
}

TEST(static_data)
{
	struct symtab *st = self_symtab();
	if (!st)
		return;
	sym_table[5] = sym_static_table[6] + sym_rodata[7];
	sym_big_bss[sym_table[5]] = 1;
	check_array(st, sym_table, 1000, sizeof(int), "sym_table");
	check_array(st, sym_static_table, 1000, sizeof(int), "sym_static_table");
	check_array(st, sym_rodata, 512, sizeof(int), "sym_rodata");
	check_array(st, sym_big_bss, sizeof(sym_big_bss), 1, "sym_big_bss");
	/* a libc variable, wherever it lives (copy-relocated into this executable, where
	 * .symtab calls it "stdout@GLIBC_2.2.5", or in libc): named without the version */
	struct sym_data d;
	CHECK(symtab_data(st, (uintptr_t)&stdout, &d) == 0);
	CHECK_STR(d.name, "stdout");
	CHECK_EQ_U64(d.start, (uintptr_t)&stdout);
	CHECK_EQ_U64(d.size, sizeof(stdout));
	/* the tail of sym_big_bss is in an anonymous mapping, not in the file's */
	CHECK_STR(symtab_mapping(st, (uintptr_t)&sym_big_bss[sizeof(sym_big_bss) - 1], NULL,
				 NULL), "");
	symtab_free(st);
}

TEST(heap_and_stack)
{
	char *small = malloc(100);
	char *big = malloc(64 << 20);	/* above the mmap threshold: its own mapping */
	int local = 0;
	struct symtab *st = self_symtab();
	struct sym_data d;
	struct sym_code c;

	if (st && small && big) {
		if (!UNDER_ASAN)
			CHECK_STR(symtab_mapping(st, (uintptr_t)small, NULL, NULL), "[heap]");
		CHECK(symtab_data(st, (uintptr_t)small, &d) == -ENOENT);
		CHECK(symtab_code(st, (uintptr_t)small, &c) == -ENOENT);
		CHECK(c.module == NULL);
		uint64_t lo = 0, hi = 0;
		CHECK_STR(symtab_mapping(st, (uintptr_t)big + 4096, &lo, &hi), "");
		CHECK(lo <= (uintptr_t)big + 4096 && (uintptr_t)big + 4096 < hi);
		CHECK(symtab_data(st, (uintptr_t)big + 4096, &d) == -ENOENT);
		CHECK_STR(symtab_mapping(st, (uintptr_t)&local, NULL, NULL), "[stack]");
		CHECK(symtab_data(st, (uintptr_t)&local, &d) == -ENOENT);
		CHECK(symtab_mapping(st, 16, NULL, NULL) == NULL);
		CHECK(symtab_code(st, 16, &c) == -ENOENT);
	}
	symtab_free(st);
	free(small);
	free(big);
}

TEST(libc)
{
	struct symtab *st = self_symtab();
	struct sym_code c;
	if (!st)
		return;
	int dbg = has_debug_file((void *)LIBC_FN);
	CHECK(symtab_code(st, (uintptr_t)LIBC_FN, &c) == 0);
	CHECK(c.n >= 1 && strstr(base_name(c.module), "libc.so") != NULL);
	CHECK(c.n >= 1 && c.frames[c.n - 1].function);
	if (c.n >= 1 && c.frames[c.n - 1].function)
		CHECK_STR(c.frames[c.n - 1].function, STR(LIBC_FN));
	CHECK_EQ_U64(c.func_start, (uintptr_t)LIBC_FN);
	if (dbg && !UNDER_ASAN) {
		/* separate debug file by build id: lines, and .symtab names (strlen is an
		 * IFUNC: its address is one of the local __strlen_* variants) */
		CHECK(c.frames[0].file != NULL && c.frames[0].line > 0);
		CHECK(symtab_code(st, (uintptr_t)strlen, &c) == 0);
		CHECK(c.n >= 1 && c.frames[0].function &&
		      strstr(c.frames[c.n - 1].function, "strlen"));
	}
	symtab_free(st);
	if (!dbg)
		SKIP("no libc debug file in /usr/lib/debug: only the symbol table was checked");
}

/* A library without debug info: name from its symbol table, no file or line. */
TEST(no_debug_info)
{
	struct symtab *st = self_symtab();
	struct sym_code c;
	if (!st)
		return;
	CHECK(symtab_code(st, (uintptr_t)elf_version, &c) == 0);
	CHECK(c.n == 1);
	CHECK_STR(c.frames[0].function, "elf_version");
	CHECK(strstr(base_name(c.module), "libelf") != NULL);
	int dbg = has_debug_file((void *)elf_version);
	if (!dbg)
		CHECK(c.frames[0].file == NULL && c.frames[0].line == 0);
	symtab_free(st);
	if (dbg)
		SKIP("libelf has debug info installed: cannot check the no-debug case");
}

/* ---- names of compiled test objects: OpenMP clones, stripped libraries ---- */

/* A fresh directory for built objects ("" when none could be made). */
static void tmp_dir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/u-symbols-XXXXXX");
	if (!mkdtemp(dir))
		dir[0] = '\0';
}

static void tmp_dir_remove(const char *dir)
{
	char cmd[PATH_MAX + 16];
	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("  cannot remove %s\n", dir);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Run a shell command quietly: 0 when it succeeded. */
static int run_quiet(const char *fmt, const char *dir)
{
	char cmd[2 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), fmt, dir, dir, dir, dir);
	strncat(cmd, " >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	return system(cmd);
}

/*
 * The symbol table entry (.symtab, else .dynsym) of the symbol whose name is name, or ends
 * with it when suffix is set: read with libelf here, independently of symbols.c.
 * 0 and value/size, or -1.
 */
static int elf_symbol(const char *path, const char *name, int suffix, char *full, size_t len,
		      uint64_t *value, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = -1;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t nl = strlen(name);

	for (int pass = 0; e && found && pass < 2; pass++) {
		while (found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; found && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n = gelf_getsym(d, (int)i, &sym) ?
					elf_strptr(e, sh.sh_link, sym.st_name) : NULL;
				size_t l = n ? strlen(n) : 0;
				if (!n || (suffix ? l < nl || strcmp(n + l - nl, name) :
						    strcmp(n, name)))
					continue;
				*value = sym.st_value;
				*size = sym.st_size;
				if (full)
					snprintf(full, len, "%s", n);
				found = 0;
			}
		}
	}
	elf_end(e);
	if (fd >= 0)
		close(fd);
	return found;
}

/* The load address of a dlopen()ed library (its link map's l_addr), 0 if unknown. */
static uintptr_t dl_base(void *h)
{
	struct link_map *lm = NULL;
	return h && !dlinfo(h, RTLD_DI_LINKMAP, &lm) && lm ? (uintptr_t)lm->l_addr : 0;
}

static const char omp_src[] =
	"static void CalcPressureForElems(double *p, double *e, int n, int *flag)\n"
	"{\n"
	"#pragma omp parallel for\n"
	"\tfor (int i = 0; i < n; i++)\n"
	"\t\tp[i] = e[i] * 2.0 + p[i];\n"
	"\t*flag = 1;\n"
	"}\n"
	"extern \"C\" int omp_entry(double *p, double *e, int n)\n"
	"{\n"
	"\tint flag = 0;\n"
	"\tCalcPressureForElems(p, e, n, &flag);\n"
	"\treturn flag;\n"
	"}\n";

/*
 * GCC outlines an OpenMP region of a C++ function into "<mangled parent>._omp_fn.0", in the
 * symbol table and, with no linkage name, as DWARF's DW_AT_name: both must read as c++filt
 * prints them, from a perf.data-style module (by path) and from a process's maps.
 */
TEST(omp_clone_name)
{
	static const char want[] =
		"CalcPressureForElems(double*, double*, int, int*) [clone ._omp_fn.0]";
	char dir[64], so[128], sym[256] = "";
	uint64_t value = 0, size = 0;
	const char *name = NULL;
	uint64_t start = 0, fsize = 0;
	struct sym_frame fr[SYM_MAX_INLINE];

	tmp_dir(dir, sizeof(dir));
	snprintf(so, sizeof(so), "%s/libomp-clone.so", dir);
	if (!dir[0] || write_text(strcat(strcpy(sym, dir), "/omp.cc"), omp_src) ||
	    run_quiet("g++ -O1 -g -fopenmp -fPIC -shared %s/omp.cc -o %s/libomp-clone.so", dir)) {
		tmp_dir_remove(dir);
		SKIP("g++ -fopenmp cannot build a shared library here");
	}
	CHECK(elf_symbol(so, "._omp_fn.0", 1, sym, sizeof(sym), &value, &size) == 0);
	/* the mangled name of a static CalcPressureForElems(double*, double*, int, int*) */
	CHECK_STR(sym, "_ZL20CalcPressureForElemsPdS_iPi._omp_fn.0");

	struct symtab *st = symtab_new_files(NULL);
	struct sym_module *m = st ? symtab_module(st, so) : NULL;
	CHECK(m != NULL);
	if (m && value) {
		CHECK(sym_module_func(m, value + 1, &name, &start, &fsize) == 0);
		CHECK_STR(name, want);
		CHECK_EQ_U64(start, value);
		CHECK_EQ_U64(fsize, size);
		/* DWARF: the outlined function's own DIE names it */
		int n = sym_module_lines(m, value, fr, SYM_MAX_INLINE);
		CHECK(n >= 1);
		if (n >= 1) {
			CHECK_STR(fr[n - 1].function, want);
			CHECK_STR(base_name(fr[n - 1].file), "omp.cc");
		}
	}
	symtab_free(st);

	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	uintptr_t base = dl_base(h);
	CHECK(h != NULL && base != 0);
	st = h && base ? self_symtab() : NULL;
	if (st && value) {
		struct sym_code c;
		CHECK(symtab_code(st, base + value + 1, &c) == 0);
		CHECK(c.n >= 1);
		if (c.n >= 1) {
			CHECK_STR(c.frames[c.n - 1].function, want);
			CHECK(!c.frames[c.n - 1].nearest);
		}
		CHECK_EQ_U64(c.func_start, base + value);
	}
	symtab_free(st);
	/* h stays open: unloading would orphan what libgomp's constructor allocated */
	tmp_dir_remove(dir);
}

/*
 * Line 0, the compiler's "no source line" (clang gives it to spill code and to accesses it
 * merged or moved): charged to the nearest earlier line of the function.  clang keeps a
 * `#line 0` directive as line-table rows of line 0 (GCC drops them): p[1]'s load below is
 * such code, after line 3's load and before line 6's.
 */
static const char line0_src[] =
	"int line0(volatile int *p)\n"
	"{\n"
	"\tint a = p[0];\n"
	"#line 0\n"
	"\tint b = p[1];\n"
	"#line 6\n"
	"\tint c = p[2];\n"
	"\treturn a + b + c;\n"
	"}\n";

/* The address of the first line-table row of line `line` in so (objdump's decoded line
 * table, read independently of symbols.c), 0 if none. */
static uint64_t row_of_line(const char *so, int line)
{
	char cmd[PATH_MAX + 64], buf[512];
	uint64_t addr = 0;
	snprintf(cmd, sizeof(cmd), "objdump --dwarf=decodedline '%s' 2>/dev/null", so);
	FILE *f = popen(cmd, "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		char file[256];
		int l;
		unsigned long long a;
		if (!addr && sscanf(buf, "%255s %d 0x%llx", file, &l, &a) == 3 && l == line &&
		    strstr(file, "line0.c"))
			addr = a;
	}
	if (f)
		pclose(f);
	return addr;
}

TEST(line_zero)
{
	char dir[64], so[128], src[128];
	struct sym_frame fr[SYM_MAX_INLINE];

	tmp_dir(dir, sizeof(dir));
	snprintf(so, sizeof(so), "%s/libline0.so", dir);
	snprintf(src, sizeof(src), "%s/line0.c", dir);
	if (!dir[0] || write_text(src, line0_src) ||
	    run_quiet("clang -O0 -g -fPIC -shared %s/line0.c -o %s/libline0.so", dir)) {
		tmp_dir_remove(dir);
		SKIP("clang cannot build a shared library here");
	}
	uint64_t zero = row_of_line(so, 0), six = row_of_line(so, 6);
	if (!zero || !six) {
		tmp_dir_remove(dir);
		SKIP("no line-0 row in clang's line table, or objdump cannot decode it");
	}
	struct symtab *st = symtab_new_files(NULL);
	struct sym_module *m = st ? symtab_module(st, so) : NULL;
	CHECK(m != NULL);
	if (m) {
		int n = sym_module_lines(m, zero, fr, SYM_MAX_INLINE);
		CHECK(n >= 1);
		if (n >= 1) {
			CHECK_EQ_U64((uint64_t)fr[0].line, 3);	/* int a = p[0]; */
			CHECK_STR(base_name(fr[0].file), "line0.c");
			CHECK_STR(fr[n - 1].function, "line0");
		}
		n = sym_module_lines(m, six, fr, SYM_MAX_INLINE);	/* a line of its own */
		CHECK(n >= 1 && fr[0].line == 6);
	}
	symtab_free(st);
	tmp_dir_remove(dir);
}

/* Two exported functions around a static one that no stripped symbol table names. */
static const char stripped_src[] =
	"#define NOINLINE __attribute__((noinline, used))\n"
	"volatile int v;\n"
	"NOINLINE int lib_first(int x) { for (int i = 0; i < x; i++) v += i * x; return v; }\n"
	"static NOINLINE int hidden_spin(int x) { while (v != x) v = v + 1; return v * 3; }\n"
	"NOINLINE int lib_last(int x) { return hidden_spin(x) + lib_first(x); }\n";

/*
 * A library stripped to its dynamic symbols: code between exports is named after the
 * nearest export before it, one name for the whole gap; code before the first export,
 * or in a library that exports no function, says there are no symbols.  The expected
 * addresses and sizes come from the unstripped copy's .symtab.
 */
TEST(stripped_library)
{
	char dir[64], full[128], stripped[128], hidden[128], want[160];
	uint64_t first = 0, first_size = 0, spin = 0, spin_size = 0, last = 0, last_size = 0;
	const char *name = NULL;
	uint64_t start = 0, size = 0;

	tmp_dir(dir, sizeof(dir));
	snprintf(full, sizeof(full), "%s/libfull.so", dir);
	snprintf(stripped, sizeof(stripped), "%s/libstripped.so", dir);
	snprintf(hidden, sizeof(hidden), "%s/libhidden.so", dir);
	snprintf(want, sizeof(want), "%s/lib.c", dir);
	if (!dir[0] || write_text(want, stripped_src) ||
	    run_quiet("cc -O1 -g -fPIC -shared -fno-toplevel-reorder %s/lib.c -o %s/libfull.so && "
		      "strip -o %s/libstripped.so %s/libfull.so", dir) ||
	    run_quiet("cc -O1 -fPIC -shared -fvisibility=hidden %s/lib.c -o %s/libhidden.so && "
		      "strip %s/libhidden.so", dir)) {
		tmp_dir_remove(dir);
		SKIP("cc or strip cannot build a shared library here");
	}
	CHECK(elf_symbol(full, "lib_first", 0, NULL, 0, &first, &first_size) == 0);
	CHECK(elf_symbol(full, "hidden_spin", 0, NULL, 0, &spin, &spin_size) == 0);
	CHECK(elf_symbol(full, "lib_last", 0, NULL, 0, &last, &last_size) == 0);
	/* the layout the test relies on: source order, the static one between the exports */
	CHECK(first && first + first_size <= spin && spin + spin_size <= last);
	CHECK(elf_symbol(stripped, "hidden_spin", 0, NULL, 0, &start, &size) != 0);
	snprintf(want, sizeof(want), "lib_first+0x%" PRIx64 " (nearest exported symbol)",
		 first_size);

	struct symtab *st = symtab_new_files(NULL);
	struct sym_module *mf = st ? symtab_module(st, full) : NULL;
	struct sym_module *ms = st ? symtab_module(st, stripped) : NULL;
	struct sym_module *mh = st ? symtab_module(st, hidden) : NULL;
	CHECK(mf && ms && mh);
	if (mf && ms && mh && spin) {
		/* with .symtab the static function has its own name */
		CHECK(sym_module_func(mf, spin + 1, &name, &start, &size) == 0);
		CHECK_STR(name, "hidden_spin");
		/* exported functions keep theirs when stripped */
		CHECK(sym_module_func(ms, last + 1, &name, &start, &size) == 0);
		CHECK_STR(name, "lib_last");
		CHECK_EQ_U64(start, last);
		/* the gap: from the end of lib_first to lib_last, samples in it add up */
		CHECK(sym_module_func(ms, spin + 1, &name, &start, &size) == 0);
		CHECK_STR(name, want);
		CHECK_EQ_U64(start, first + first_size);
		CHECK_EQ_U64(start + size, last);
		const char *again = NULL;
		CHECK(sym_module_func(ms, spin + spin_size - 1, &again, &start, &size) == 0);
		CHECK(again == name);
		/* before the first export (the PLT, _init): no symbols */
		CHECK(sym_module_func(ms, first - 1, &name, &start, &size) == 0);
		CHECK_STR(name, "[no symbols]");
		CHECK(start + size <= first);
		/* nothing exported at all */
		CHECK(sym_module_func(mh, 0, &name, &start, &size) == -ENOENT);
	}
	uint64_t hspin = 0, hsize = 0;
	CHECK(elf_symbol(hidden, "hidden_spin", 0, NULL, 0, &hspin, &hsize) != 0);
	if (mh) {
		/* hidden_spin's address in libhidden.so is unknown once stripped: any code works */
		uint64_t code = 0;
		CHECK(sym_module_addr(mh, 0x1000, &code) == 0);
		CHECK(sym_module_func(mh, code, &name, &start, &size) == 0);
		CHECK_STR(name, "[no symbols]");
	}
	symtab_free(st);

	/* the same from a process's maps (sonde mem) */
	void *h = dlopen(stripped, RTLD_NOW | RTLD_LOCAL);
	uintptr_t base = dl_base(h);
	CHECK(h != NULL && base != 0);
	st = h && base ? self_symtab() : NULL;
	if (st && spin) {
		struct sym_code c;
		CHECK(symtab_code(st, base + spin + 1, &c) == 0);
		CHECK(c.n == 1);
		CHECK_STR(c.frames[0].function, want);
		CHECK(c.frames[0].nearest);
		CHECK_EQ_U64(c.func_start, base + first + first_size);
		CHECK(c.frames[0].file == NULL);
		/* every report's name for it (sonde mem's code table, sonde variance's frames):
		 * the library's file name before the stand-in */
		char nb[256], want2[256];
		snprintf(want2, sizeof(want2), "[libstripped.so] %s", want);
		CHECK_STR(sym_code_name(&c, 0, nb, sizeof(nb)), want2);
		/* the views that keep functions apart (comm's and reuse's code pairs, the
		 * function variance measures): the stretch holds other functions, so the
		 * address, the offset in the file addr2line takes */
		CHECK(!sym_code_has_own_name(&c, 0));
		snprintf(want2, sizeof(want2), "[libstripped.so]+0x%" PRIx64, (uint64_t)(spin + 1));
		CHECK_STR(sym_code_own_name(&c, 0, base + spin + 1, nb, sizeof(nb)), want2);
		CHECK(symtab_code(st, base + last + 1, &c) == 0);
		CHECK(c.n == 1 && !c.frames[0].nearest);
		CHECK_STR(sym_code_name(&c, 0, nb, sizeof(nb)), "lib_last");
		CHECK(sym_code_has_own_name(&c, 0));
		CHECK_STR(sym_code_own_name(&c, 0, base + last + 1, nb, sizeof(nb)), "lib_last");
		CHECK(symtab_code(st, base + first - 1, &c) == 0);
		CHECK_STR(c.frames[0].function, "[no symbols]");
		CHECK_STR(sym_code_name(&c, 0, nb, sizeof(nb)), "[libstripped.so]");
		/* one address of it: the file offset of the code, before the first export */
		snprintf(want2, sizeof(want2), "[libstripped.so]+0x%" PRIx64, (uint64_t)(first - 1));
		CHECK_STR(sym_code_addr_name(&c, base + first - 1, nb, sizeof(nb)), want2);
		CHECK(!sym_code_has_own_name(&c, 0));
		CHECK_STR(sym_code_own_name(&c, 0, base + first - 1, nb, sizeof(nb)), want2);
		c.n = 0;	/* frames unknown, the file known */
		CHECK_STR(sym_code_name(&c, 0, nb, sizeof(nb)), "[libstripped.so]");
		CHECK(!sym_code_has_own_name(&c, 0));
		c.module = NULL;
		CHECK_STR(sym_code_name(&c, -1, nb, sizeof(nb)), "[unknown]");
		CHECK_STR(sym_code_addr_name(&c, 0x7f0012345678, nb, sizeof(nb)),
			  "[unknown] (0x7f0012345678)");
		CHECK_STR(sym_code_own_name(&c, -1, 0x7f0012345678, nb, sizeof(nb)),
			  "[unknown] (0x7f0012345678)");
	}
	symtab_free(st);
	if (h)
		dlclose(h);
	tmp_dir_remove(dir);
}

struct self_map {
	char line[PATH_MAX + 128];
	uint64_t lo, hi, off, ino;
	char path[PATH_MAX];
};

/* This test program's own maps lines, read here independently of symbols.c. */
static int self_maps(struct self_map *out, int max)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int k = 0;
	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return 0;
	}
	exe[n] = '\0';
	while (k < max && fgets(out[k].line, sizeof(out[k].line), f)) {
		struct self_map *m = &out[k];
		unsigned maj, min;
		char perms[8];
		if (sscanf(m->line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %s",
			   &m->lo, &m->hi, perms, &m->off, &maj, &min, &m->ino, m->path) == 8 &&
		    !strcmp(m->path, exe))
			k++;
	}
	fclose(f);
	return k;
}

static void write_map(FILE *f, const struct self_map *m, const char *path, uint64_t ino)
{
	fprintf(f, "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " 08:01 %" PRIu64 "    %s\n", m->lo,
		m->hi, m->off, ino, path);
}

/*
 * Garbage lines, 3000 missing modules, a missing file, a "(deleted)" file replaced by
 * another (wrong inode) and one still there (right inode): no crash, -ENOENT for what
 * cannot be read, names for the rest.
 */
TEST(broken_maps)
{
	static struct self_map sm[16];
	int n = self_maps(sm, 16);
	char path[] = "/tmp/u-symbols-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || n < 1)
		SKIP("cannot write a temporary file or read /proc/self/maps");
	fprintf(f, "garbage\n\n-\n12-\nzz-yy r-xp 0 0:0 0\n2000-1000 r-xp 0 00:00 0 /x\n");
	fprintf(f, "1000-2000 r-xp 00000000 08:01\n1000-2000 rwxpq 0 0:0 0 /y\n");
	for (int i = 0; i < 3000; i++)
		fprintf(f, "%x-%x r-xp 00000000 08:01 %d /nonexistent/lib%d.so\n",
			0x100000 + i * 0x2000, 0x101000 + i * 0x2000, i + 1, i);
	for (int i = 0; i < n; i++)
		write_map(f, &sm[i], sm[i].path, sm[i].ino);
	struct self_map moved = sm[0];
	uint64_t delta = 0x10000000000ULL;
	char del[PATH_MAX + 16];
	snprintf(del, sizeof(del), "%s (deleted)", sm[0].path);
	for (int i = 0; i < n; i++) {
		moved = sm[i];
		moved.lo += delta, moved.hi += delta;
		write_map(f, &moved, del, sm[i].ino);		/* same inode: usable */
		moved.lo += delta, moved.hi += delta;
		write_map(f, &moved, del, sm[i].ino + 1);	/* another file now */
		moved.lo += delta, moved.hi += delta;
		write_map(f, &moved, "/nonexistent/gone", 77);
	}
	fprintf(f, "truncated-line-without-newline 1-2");
	fclose(f);

	int err = 1;
	struct symtab *st = symtab_new(path, &err);
	CHECK(st != NULL && err == 0);
	if (!st) {
		unlink(path);
		return;
	}
	struct sym_code c;
	struct sym_data d;
	uintptr_t a = (uintptr_t)sym_target;
	CHECK(symtab_code(st, 0x100000 + 5 * 0x2000 + 16, &c) == -ENOENT);
	CHECK_STR(c.module, "/nonexistent/lib5.so");
	CHECK_STR(symtab_mapping(st, 0x100000 + 7 * 0x2000, NULL, NULL), "/nonexistent/lib7.so");
	CHECK(symtab_data(st, 0x100000 + 9 * 0x2000, &d) == -ENOENT);
	CHECK(symtab_mapping(st, 0x1800, NULL, NULL) == NULL);	/* 2000-1000 was dropped */
	/* the real lines still work among the garbage */
	CHECK(symtab_code(st, a, &c) == 0 && c.n >= 1);
	CHECK(c.n >= 1 && c.frames[c.n - 1].function &&
	      !strcmp(c.frames[c.n - 1].function, "sym_target"));
	CHECK(symtab_code(st, a + delta, &c) == 0 && c.n >= 1);
	CHECK(c.n >= 1 && c.frames[c.n - 1].function &&
	      !strcmp(c.frames[c.n - 1].function, "sym_target"));
	CHECK_EQ_U64(c.func_start, a + delta);
	CHECK(symtab_code(st, a + 2 * delta, &c) == -ENOENT);
	CHECK_STR(c.module, del);
	CHECK(symtab_code(st, a + 3 * delta, &c) == -ENOENT);
	CHECK(symtab_data(st, a + 3 * delta, &d) == -ENOENT);
	symtab_free(st);
	unlink(path);
}

/* A file the program unmapped (the closed copy's line) keeps its name where anonymous
 * memory took its addresses before the exit's copy (carve_anonymous): the anonymous
 * region around it stays anonymous on both sides; a named mapping there still wins, and
 * anonymous memory over a dlclose'd library's code too. */
TEST(closed_file_over_anonymous)
{
	char maps[] = "/tmp/u-symbols-XXXXXX", closed[] = "/tmp/u-symbols-XXXXXX";
	int fm = mkstemp(maps), fc = mkstemp(closed), err = 1;
	if (fm < 0 || fc < 0)
		abort();
	FILE *f = fdopen(fm, "w");
	fprintf(f, "10000000-18000000 rw-p 00000000 00:00 0 \n"
		   "20000000-20100000 r--p 00000000 fe:00 12 /data/kept.dat\n");
	fclose(f);
	f = fdopen(fc, "w");
	fprintf(f, "14000000-14100000 r--p 00000000 fe:00 11 /data/input.dat\n"
		   "14200000-14210000 r-xp 00000000 fe:00 14 /data/libgone.so\n"
		   "20000000-20100000 r--p 00000000 fe:00 13 /data/other.dat\n");
	fclose(f);
	struct symtab *st = symtab_new_closed(maps, closed, &err);
	CHECK(st != NULL && err == 0);
	if (st) {
		CHECK_STR(symtab_mapping(st, 0x14000000, NULL, NULL), "/data/input.dat");
		CHECK_STR(symtab_mapping(st, 0x140fffff, NULL, NULL), "/data/input.dat");
		CHECK_STR(symtab_mapping(st, 0x13ffffff, NULL, NULL), "");
		CHECK_STR(symtab_mapping(st, 0x14100000, NULL, NULL), "");
		CHECK_STR(symtab_mapping(st, 0x17ffffff, NULL, NULL), "");
		CHECK_STR(symtab_mapping(st, 0x20000000, NULL, NULL), "/data/kept.dat");
		/* a dlclose'd library's code: anonymous memory there since wins (thread
		 * stacks, arenas: the review of 2026-11-28) */
		CHECK_STR(symtab_mapping(st, 0x14200000, NULL, NULL), "");
		symtab_free(st);
	}
	unlink(maps);
	unlink(closed);
}

/* An empty maps file gives an empty symtab; a missing one, -ENOENT. */
TEST(empty_and_missing_maps)
{
	char path[] = "/tmp/u-symbols-XXXXXX";
	int fd = mkstemp(path), err = 1;
	struct sym_code c;
	if (fd < 0)
		SKIP("cannot create a temporary file");
	close(fd);
	struct symtab *st = symtab_new(path, &err);
	CHECK(st != NULL && err == 0);
	CHECK(st && symtab_code(st, (uintptr_t)sym_target, &c) == -ENOENT);
	CHECK(st && symtab_mapping(st, (uintptr_t)sym_target, NULL, NULL) == NULL);
	symtab_free(st);
	unlink(path);
	CHECK(symtab_new(path, &err) == NULL && err == -ENOENT);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define NPERF 100000

/* 100k distinct addresses spread over every executable file mapping of this process. */
static size_t perf_addresses(uint64_t *addrs)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uint64_t lo[256], hi[256], total = 0;
	char line[PATH_MAX + 128], perms[8], name[PATH_MAX];
	int n = 0;
	size_t k = 0;
	while (f && n < 256 && fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*x %*s %*u %s", &lo[n], &hi[n],
			   perms, name) == 4 && perms[2] == 'x' && name[0] == '/') {
			total += hi[n] - lo[n];
			n++;
		}
	}
	if (f)
		fclose(f);
	uint64_t stride = total / NPERF ? total / NPERF : 1;
	for (int i = 0; i < n; i++)
		for (uint64_t a = lo[i]; a < hi[i] && k < NPERF; a += stride)
			addrs[k++] = a;
	return k;
}

TEST(throughput)
{
	uint64_t *addrs = malloc(NPERF * sizeof(*addrs));
	struct symtab *st = self_symtab();
	struct sym_code c;
	if (!st || !addrs) {
		free(addrs);
		symtab_free(st);
		return;
	}
	size_t n = perf_addresses(addrs), ok = 0, named = 0, lines = 0;
	double t0 = now_s();
	for (size_t i = 0; i < n; i++) {
		if (symtab_code(st, addrs[i], &c) == 0 && c.n >= 1) {
			ok++;
			named += c.frames[c.n - 1].function != NULL;
			lines += c.frames[0].line > 0;
		}
	}
	double t1 = now_s();
	for (size_t i = 0; i < n; i++)
		symtab_code(st, addrs[i], &c);
	double t2 = now_s();
	CHECK(n >= NPERF / 2);
	CHECK(ok == n);		/* every address is in a readable executable mapping */
	printf("info: symbols: %zu distinct addresses: %.0f lookups/s first time "
	       "(%zu named, %zu with lines), %.0f lookups/s cached\n",
	       n, (double)n / (t1 - t0), named, lines, (double)n / (t2 - t1));
	symtab_free(st);
	free(addrs);
}

/* gfortran's module names read as gdb shows them; other names are not touched. */
TEST(fortran_module_names)
{
	char *d = sym_demangle_new("__definitions_module_MOD_dt");
	CHECK_STR(d, "definitions_module::dt");
	free(d);
	d = sym_demangle_new("__advec_mom_kernel_mod_MOD_advec_mom_kernel._omp_fn.0");
	CHECK_STR(d, "advec_mom_kernel_mod::advec_mom_kernel._omp_fn.0");
	free(d);
	CHECK(sym_demangle_new("__libc_start_main") == NULL);
	CHECK(sym_demangle_new("___MOD_x") == NULL);	/* no module */
	CHECK(sym_demangle_new("__m_MOD_") == NULL);	/* no name */
	CHECK(sym_demangle_new("vranlc_") == NULL);
}

/* A module procedure found by its source name, shown demangled or not (analyze and
 * variance --timeline share the match since 2026-11-28; each had its own). */
TEST(module_proc_match)
{
	CHECK(sym_is_module_proc("definitions_module::dt", "dt"));
	CHECK(sym_is_module_proc("__definitions_module_MOD_dt", "dt"));
	CHECK(!sym_is_module_proc("definitions_module::dt", "t"));	/* a whole name */
	CHECK(!sym_is_module_proc("ns::dt(int)", "dt(int)"));	/* C++: an argument list */
	CHECK(!sym_is_module_proc("dt", "dt"));
	CHECK(sym_is_module_proc("x_MOD_dt", "dt"));	/* the mangled tail suffices */
	CHECK(!sym_is_module_proc("::dt", "dt"));	/* no module */
	CHECK(!sym_is_module_proc("m::dt", ""));
}

int main(void)
{
	RUN(fortran_module_names);
	RUN(module_proc_match);
	RUN(own_function);
	RUN(inlined_frames);
	RUN(static_data);
	RUN(heap_and_stack);
	RUN(libc);
	RUN(no_debug_info);
	RUN(stripped_library);
	RUN(broken_maps);
	RUN(empty_and_missing_maps);
	RUN(closed_file_over_anonymous);
	RUN(throughput);
	RUN(line_zero);
	RUN(omp_clone_name);	/* last: leaves a deleted library mapped */
	return CHECK_DONE();
}
