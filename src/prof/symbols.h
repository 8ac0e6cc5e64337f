/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - symbolization of a recorded process, offline (never in the profiled program).
 *
 * A symtab is built from a copy of /proc/<pid>/maps (format.h: <pid>.maps); every
 * file-backed executable mapping is opened with libdw/libelf and its load bias computed, so
 * runtime addresses of PIE executables and shared libraries resolve.  Results are cached:
 * resolving the same address twice is cheap.
 *
 * Strings returned in results are owned by the symtab and live until symtab_free().
 *
 * Details:
 * - Malformed maps lines are skipped; a file is opened on the first lookup in it, once.
 * - Function names come from DWARF when the module (or its separate debug file, found by
 *   build id under /usr/lib/debug/.build-id, else by .gnu_debuglink) has it, else from the
 *   ELF symbol table (.symtab, else .dynsym) without file and line.  Separate debug files
 *   are never fetched from debuginfod servers.
 * - C++ names are demangled with libstdc++'s __cxa_demangle when libstdc++.so.6 can be
 *   loaded at run time, else they stay mangled.
 * - A file that no longer exists, or a "(deleted)" one whose path now holds another file
 *   (other inode), gives -ENOENT for its addresses.
 * - Not thread-safe: one symtab per thread, or a lock around every call.
 */
#ifndef SONDE_LIB_SYMBOLS_H
#define SONDE_LIB_SYMBOLS_H

#include <stdint.h>

#define SYM_MAX_INLINE 16

struct symtab;

struct sym_frame {
	const char *function;	/* demangled if C++; NULL if unknown */
	const char *file;	/* source file, NULL if no line info */
	int line;		/* 0 if unknown */
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

/* Build from a maps file.  NULL and *err = -errno when the file cannot be read. */
struct symtab *symtab_new(const char *maps_path, int *err);

/*
 * Resolve a code address.  0, or -ENOENT if the address is in no known module (then
 * out->module and module_offset are still set when the address is in a file mapping whose
 * file cannot be read).  Results are cached per address.  For a return address (a caller's
 * frame), pass the address minus 1: the call instruction's inlining and line, not the next.
 */
int symtab_code(struct symtab *st, uint64_t addr, struct sym_code *out);

/*
 * Resolve a data address to a static variable (.data, .bss, .rodata, TLS image):
 * 0, or -ENOENT if no variable contains it.  Addresses in a thread's TLS block (not the
 * image) are not variables here: the recording does not say where those blocks are.
 */
int symtab_data(struct symtab *st, uint64_t addr, struct sym_data *out);

/*
 * The mapping containing addr, as named in the maps file ("[heap]", "[stack]",
 * "/usr/lib/.../libc.so.6", "" for anonymous): NULL if none.  Sets *lo and *hi if not NULL.
 */
const char *symtab_mapping(struct symtab *st, uint64_t addr, uint64_t *lo, uint64_t *hi);

void symtab_free(struct symtab *st);

/*
 * The demangled form of a C++ name ("_Z..."), malloc'd for the caller, or NULL when name
 * is not one or libstdc++'s demangler is not on the machine.
 */
char *sym_demangle_new(const char *name);

#endif
