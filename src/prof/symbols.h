/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - symbolization of recordings, offline (never in the profiled program): the one
 * symbolizer of sonde, for `sonde mem` (runtime addresses) and `sonde analyze` (perf.data).
 *
 * Two ways to build a symtab:
 * - symtab_new(): from a copy of /proc/<pid>/maps (format.h: <pid>.maps); every file-backed
 *   executable mapping is opened with libdw/libelf and its load bias computed, so runtime
 *   addresses of PIE executables and shared libraries resolve (symtab_code, symtab_data).
 *   Results are cached: resolving the same address twice is cheap.
 * - symtab_new_files(): empty; modules are opened by path with symtab_module() (perf.data
 *   mmap records give paths and file offsets) and looked up by ELF virtual address, what
 *   `addr2line -e module` takes.  "[kernel.kallsyms]" resolves through /proc/kallsyms.
 * Both kinds of module share everything below: symbol tables, DWARF, demangling.
 *
 * Strings returned in results are owned by the symtab and live until symtab_free().
 *
 * Details:
 * - Malformed maps lines are skipped; a file is opened on the first lookup in it, once.
 * - Function names come from DWARF when the module (or its separate debug file, found by
 *   build id under /usr/lib/debug/.build-id, else by .gnu_debuglink) has it, else from the
 *   ELF symbol table (.symtab, else .dynsym) without file and line.  Separate debug files
 *   are never fetched from debuginfod servers.
 * - Of aliases at one address, a function gets the name libdwfl (so perf and gdb) gives it:
 *   a sized symbol, then global, weak, local, then the first in the table ("__write", not
 *   its weak alias "write"); a variable the name without a leading underscore
 *   ("environ").  Untyped symbols in code (assembly labels, ld.so's "_start") are
 *   functions; a symbol of size 0 extends to the next symbol.
 * - A module with only exported symbols (a stripped library: .dynsym, no .symtab) names code
 *   between its exported functions after the nearest exported function before it,
 *   "GOMP_parallel_end+0x40 (nearest exported symbol)" (one name for the whole stretch up
 *   to the next symbol, offset from that function's start), and code before its first
 *   exported function, or in a module without any symbol, "[no symbols]".  Reports put
 *   the library's file name in front: sym_code_name().
 * - Functions GCC outlines (OpenMP regions "._omp_fn.N", other clones) are demangled with
 *   their suffix, as c++filt prints them: "f(int*) [clone ._omp_fn.0]".
 * - C++ names are demangled with libstdc++'s __cxa_demangle when libstdc++.so.6 can be
 *   loaded at run time, else they stay mangled.
 * - A file that no longer exists, or a "(deleted)" one whose path now holds another file
 *   (other inode), gives -ENOENT for its addresses.
 * - Not thread-safe: one symtab per thread, or a lock around every call.
 */
#ifndef SONDE_LIB_SYMBOLS_H
#define SONDE_LIB_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYM_MAX_INLINE 16

struct symtab;
struct sym_module;

struct sym_frame {
	const char *function;	/* demangled if C++; NULL if unknown */
	const char *file;	/* source file, NULL if no line info */
	int line;		/* 0 if unknown */
	int column;		/* 0 if unknown (DWARF gives it for -gcolumn-info, GCC's default) */
	/*
	 * function is not this code's own name but a stripped library's stand-in (see
	 * Details): "EXPORT+0xOFF (nearest exported symbol)" or "[no symbols]"
	 */
	bool nearest;
};

struct sym_code {
	const char *module;	/* path of the mapped file, NULL if the address is in no file */
	/*
	 * address relative to the module's load base (for reports): the ELF virtual address,
	 * what `addr2line -e module` takes; when the file cannot be read, the file offset
	 */
	uint64_t module_offset;
	uint64_t func_start;	/* runtime address of the enclosing symbol, 0 if unknown */
	/*
	 * frames[0] is the innermost: the function, file and line the instruction belongs to
	 * after inlining (an inlined callee); frames[n-1] is the outermost, the real function
	 * the code was compiled into.  n >= 1 when the address is in a known module.
	 */
	struct sym_frame frames[SYM_MAX_INLINE];
	int n;
};

struct sym_data {
	const char *name;	/* the variable (ELF STT_OBJECT / STT_TLS symbol) */
	const char *module;
	uint64_t start;		/* runtime address of the variable */
	uint64_t size;
};

/*
 * Build from a maps file.  NULL and *err = -errno when the file cannot be read:
 * FILE_NOT_REGULAR (-EINVAL) when it is not a regular file (prof/file.h).
 */
struct symtab *symtab_new(const char *maps_path, int *err);
/* symtab_new, and the mappings of `closed_path` (NULL: none; PREFIX.maps.closed, the
 * libraries the program dlclose'd) where they overlap none of maps_path's: their code is
 * symbolized though the exit's copy no longer maps them. */
struct symtab *symtab_new_closed(const char *maps_path, const char *closed_path, int *err);

/*
 * Resolve a code address.  0, or -ENOENT if the address is in no known module (then
 * out->module and module_offset are still set when the address is in a file mapping whose
 * file cannot be read).  Results are cached per address.  For a return address (a caller's
 * frame), pass the address minus 1: the call instruction's inlining and line, not the next.
 */
int symtab_code(struct symtab *st, uint64_t addr, struct sym_code *out);

/*
 * The name every report gives the code of frame k (0 <= k < sc->n) of a symtab_code()
 * result: its function; a stripped library's stand-in (frame.nearest) after the library's
 * file name, "[libgomp.so.1.0.0] omp_get_num_procs+0x7b (nearest exported symbol)", one
 * name for the whole stretch of code (what a sample there is charged to, whatever tool
 * took it); "[libgomp.so.1.0.0]" for code of a file with no symbol for it (or whose
 * frames are unknown: sc->n == 0); "[unknown]" for code in no file.  Returns a string
 * owned by the symtab, or buf (len bytes).
 */
const char *sym_code_name(const struct sym_code *sc, int k, char *buf, size_t len);

/*
 * The name of one address where sym_code_name() would name a whole file or stretch:
 * "[libfoo.so]+0x1234" (its module offset, what addr2line takes) for code in a file,
 * "[unknown] (0x7f0012345678)" for code in no file.  For the views that must keep apart
 * two functions the symbols cannot name (variance's measured function, the code pairs of
 * comm and reuse); the code table keeps one row per file (sym_code_name).  Returns buf.
 */
const char *sym_code_addr_name(const struct sym_code *sc, uint64_t addr, char *buf, size_t len);

/*
 * Whether frame k (0 <= k < sc->n, else false) names its code by a symbol of its own: a
 * function, not a stripped library's stand-in (frame.nearest: "EXPORT+0xOFF (nearest
 * exported symbol)", "[no symbols]") nor a file or "[unknown]".  The one rule of when a
 * view that keeps functions apart names code by its address (sym_code_own_name).
 */
bool sym_code_has_own_name(const struct sym_code *sc, int k);

/*
 * The name of the code at addr (frame k of sc) for the views that must keep apart two
 * functions the symbols cannot name: sym_code_name() when sym_code_has_own_name(), else
 * sym_code_addr_name().  Returns a string owned by the symtab, or buf.
 */
const char *sym_code_own_name(const struct sym_code *sc, int k, uint64_t addr, char *buf,
			      size_t len);

/*
 * Resolve a data address to a static variable (.data, .bss, .rodata, TLS image):
 * 0, or -ENOENT if no variable contains it.  Addresses in a thread's TLS block (not the
 * image) are not variables here: the recording does not say where those blocks are.
 */
int symtab_data(struct symtab *st, uint64_t addr, struct sym_data *out);

/*
 * The thread-local variable at offset off of module's TLS block (module: its path as the
 * maps file names it): out->start is its offset.  -ENOENT if none.
 */
int symtab_tls(struct symtab *st, const char *module, uint64_t off, struct sym_data *out);

/*
 * The mapping containing addr, as named in the maps file ("[heap]", "[stack]",
 * "/usr/lib/.../libc.so.6", "" for anonymous): NULL if none.  Sets *lo and *hi if not NULL.
 */
const char *symtab_mapping(struct symtab *st, uint64_t addr, uint64_t *lo, uint64_t *hi);

/*
 * 1 when addr lies in what the maps file shows as one of glibc malloc's heaps of a thread
 * arena: an anonymous read-write mapping at a 64 MiB boundary, 64 MiB long or followed by
 * the PROT_NONE rest of its 64 MiB.  (A heap's blocks are then known as heap memory though
 * no block of it was tracked: a thread that only made small allocations.)
 */
int symtab_malloc_heap(struct symtab *st, uint64_t addr);

void symtab_free(struct symtab *st);

/*
 * The demangled form of a C++ name ("_Z...") or of a gfortran module name ("__mod_MOD_f":
 * "mod::f"), malloc'd for the caller, or NULL when name
 * is not one or libstdc++'s demangler is not on the machine.
 */
char *sym_demangle_new(const char *name);

/* Whether shown, a function as the reports show it, is the Fortran module procedure
 * `name` of some module: `mod::name` (as sym_demangle_new gives it; no argument list,
 * which C++'s would have) or gfortran's symbol `__mod_MOD_name`.  `sonde analyze` and
 * `sonde variance --timeline` find a procedure by its source name with it. */
int sym_is_module_proc(const char *shown, const char *name);

/*
 * The same, cached in st: the demangled name (owned by st, lives until symtab_free()), or
 * name itself when it is not a C++ name.  name must live as long as st (cached by address).
 */
const char *symtab_demangle(struct symtab *st, const char *name);

/* ---- modules by path ---- */

/*
 * An empty symtab for symtab_module(); osrelease is the recording's kernel release (NULL
 * if unknown): kernel symbols come from /proc/kallsyms only when it is the running
 * kernel's.  NULL on -ENOMEM.  Freed with symtab_free().
 */
struct symtab *symtab_new_files(const char *osrelease);

/*
 * The module at path, opened on the first call (later calls return the same one), owned
 * by st.  Its addresses are ELF virtual addresses.  NULL if it cannot be read (missing,
 * not ELF, not an absolute path like "[vdso]"); "[kernel.kallsyms]..." is always a module,
 * whose functions resolve only when /proc/kallsyms is the recording's (see above).
 */
struct sym_module *symtab_module(struct symtab *st, const char *path);

/* ELF virtual address of a file offset: 0, or -ENOENT if no loaded segment holds it. */
int sym_module_addr(const struct sym_module *m, uint64_t off, uint64_t *addr);

/*
 * The function symbol containing addr (see "Details" for stripped libraries): 0 and its
 * name (demangled, owned by the symtab), start and size (a sizeless symbol extends to the
 * next one), or -ENOENT.
 */
int sym_module_func(struct sym_module *m, uint64_t addr, const char **name, uint64_t *start,
		    uint64_t *size);

/*
 * Source position and inline chain of addr, from DWARF: frames[0] the innermost (inlined
 * callee, file:line from the line table), frames[n-1] the function the code was compiled
 * into (each frame's file:line is where it called the frame before it); frames[0].function
 * is NULL when DWARF has the line but no function.  Returns n <= max, 0 without line
 * information; a longer chain keeps its innermost frames and the outermost as the last.
 */
int sym_module_lines(struct sym_module *m, uint64_t addr, struct sym_frame *frames, int max);

/* Copy up to len code bytes at addr into buf: the number copied (0 if not in the file). */
size_t sym_module_code(const struct sym_module *m, uint64_t addr, uint8_t *buf, size_t len);

/*
 * How many of the functions of the ELF file at path (its .symtab, else .dynsym: sized
 * functions of 16 bytes or more) start with a frame-pointer prologue (`push %rbp; mov
 * %rsp,%rbp`, after an endbr64): *with_fp of *funcs.  A build with
 * -fno-omit-frame-pointer has it in nearly all, gcc's and clang's -O2 default in few.
 * 0, or -errno (the file cannot be read, is not x86-64 ELF, has no symbols).
 */
int sym_frame_pointers(const char *path, unsigned *with_fp, unsigned *funcs);

/*
 * The atomic read-modify-writes in the code of the ELF file at path (lock-prefixed
 * instructions, by a linear decode of each function symbol, aliases once): what
 * the inst source does not see, as clang's load/store callbacks leave them out.  count in
 * funcs functions, the SYM_ATOMICS_TOP with the most named (demangled) in top.  0 or
 * -errno as sym_frame_pointers.
 */
#define SYM_ATOMICS_TOP 3
struct sym_atomics {
	unsigned count, funcs;
	char top[SYM_ATOMICS_TOP][512];	/* demangled whole: a report shortens them */
	unsigned top_count[SYM_ATOMICS_TOP];
};
int sym_atomics(const char *path, struct sym_atomics *out);

/*
 * The link-time start addresses of the functions of the ELF file at path named name: its
 * symbol, its demangled form with or without the parameter list ("ns::f" for
 * "ns::f(int)"), and gcc's clones of it ("f.part.0"); a static function defined in
 * several files gives each.  Up to max into addrs; returns how many there are (0 if none)
 * or -errno as sym_frame_pointers.
 */
int sym_function_addrs(const char *path, const char *name, uint64_t *addrs, int max);

#endif
