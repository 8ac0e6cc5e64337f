/* SPDX-License-Identifier: MIT */
/*
 * analyze-sym.h - symbols of the modules a perf.data file mapped, read offline with
 * libdwfl/libelf: file offset -> ELF address, ELF symbol -> function, DWARF line table and
 * inline chain, code bytes.  The kernel ("[kernel.kallsyms]") resolves through /proc/kallsyms
 * when the recording comes from the running kernel.
 *
 * (src/lib/symbols.h resolves runtime addresses from a /proc maps copy; perf.data gives mmaps
 * with file offsets instead, hence this small module.)
 *
 * Ownership: strings returned live until asym_free().  Not thread-safe.
 */
#ifndef SONDE_LIB_ANALYZE_SYM_H
#define SONDE_LIB_ANALYZE_SYM_H

#include <stddef.h>
#include <stdint.h>

#define ASYM_MAX_INLINE 16

struct asym;
struct asym_file;

struct asym_frame {
	const char *function;	/* NULL if unknown */
	const char *file;	/* NULL if unknown */
	int line;
};

/* osrelease: of the recording (NULL = unknown); kallsyms is used only when it matches. */
struct asym *asym_new(const char *osrelease);
void asym_free(struct asym *as);

/* The module at path (cached); NULL if it cannot be read (then nothing resolves in it). */
struct asym_file *asym_file(struct asym *as, const char *path);

/*
 * name demangled if it is a C++ name (libstdc++'s __cxa_demangle, loaded at run time), else
 * name itself.  The result lives until asym_free(); name must too (it is cached by address).
 */
const char *asym_demangle(struct asym *as, const char *name);

/* The same, uncached: a copy the caller frees, or NULL if name is not a C++ name. */
char *asym_demangle_new(const char *name);

/* ELF virtual address of a file offset: 0, or -ENOENT if no loaded segment holds it. */
int asym_off2addr(struct asym_file *f, uint64_t off, uint64_t *addr);

/* The symbol containing addr: 0 and name (demangled)/start/size, or -ENOENT. */
int asym_func(struct asym_file *f, uint64_t addr, const char **name, uint64_t *start,
	      uint64_t *size);

/*
 * Source position and inline chain of addr: frames[0] the innermost (inlined callee, its
 * file:line from the line table), frames[n-1] the function the code was compiled into
 * (file:line of the call site chain).  Returns n (0 if no DWARF).
 */
int asym_lines(struct asym_file *f, uint64_t addr, struct asym_frame *frames, int max);

/* Copy len code bytes at addr into buf: the number copied (0 if not in the file). */
size_t asym_code(struct asym_file *f, uint64_t addr, uint8_t *buf, size_t len);

#endif
