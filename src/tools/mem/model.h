/* SPDX-License-Identifier: MIT */
/*
 * memmodel.h - the `mem` tool's offline analysis: every MEM sample of a recording is
 * attributed to a data object and a code location, and counted per thread.
 *
 * Data objects, in this order of precedence:
 *   heap    a tracked ALLOC (any thread of the process) with addr <= a < addr + size,
 *           alive at the sample's time (alloc.time <= t < free.time; a FREE ends the latest
 *           live allocation of its address).  Identity = allocation call path, cut at the
 *           frame that tells it apart (sites.h: the innermost frame of the program's own
 *           code past system libraries, system headers and the program's own allocation
 *           wrappers, found automatically); its name is that frame's "function (file:line)",
 *           or "[unknown] (module+0xoff)" without symbols; `path` is the whole path.
 *   static  a variable of a loaded module's symbol table: its name; or a thread's static
 *           TLS (thread-local variables, OpenMP threadprivate): "[TLS of thread N]".
 *   stack   inside a thread's [stack_lo, stack_hi): "[stack of thread N]".
 *   other   by the mapping: "[heap: untracked small blocks]" (blocks under min_object are
 *           not tracked), "[anonymous memory]", "[file: basename]", "[unknown]".
 * Code location: the innermost frame of the sampled instruction (inlined callee first).
 *
 * All counts (samples, loads, stores) are weighted by the MEM records' weight field; a
 * read-modify-write access counts as a load and a store.  Lookups are O(log n): the
 * allocations are swept in time order through an interval tree, not scanned per sample.
 *
 * Ownership: the model points into the struct profile it was built from (which must
 * outlive it) and owns everything else, freed by memmodel_free().
 */
#ifndef SONDE_LIB_MEMMODEL_H
#define SONDE_LIB_MEMMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "prof/profile.h"

struct symtab;

enum mm_kind { MM_HEAP, MM_STATIC, MM_STACK, MM_OTHER };

/* No object / no code location (a sample whose attribution failed never gets this). */
#define MM_NONE UINT32_MAX

struct mm_object {
	char *name;
	enum mm_kind kind;
	uint64_t size;		/* heap: bytes allocated at the site in all; static: the
				 * variable's size; stack: the stack's size; other: 0 */
	uint64_t allocs;	/* heap: allocations at the site */
	uint64_t samples, loads, stores;
	/* heap: the allocation site; static: the module; NULL when unknown */
	char *function, *file, *module;
	int line;
	char *path;		/* heap: the allocation path, outermost first, as
				 * "main (a.c:3) > f (a.c:9) > malloc"; else NULL */
};

struct mm_code {
	char *function;		/* "[unknown]" or "[module]" when the symbol is unknown */
	char *file;		/* "" when unknown */
	char *module;		/* "" when unknown */
	int line;
	uint64_t samples, loads, stores;
};

struct mm_thread {
	const struct prof_process *proc;
	const struct prof_thread *t;
	uint32_t proc_index;
	/* "N" (thread_index) for a single process; "r<rank>.N" or "<pid>.N" with several */
	char label[48];
	uint64_t samples, loads, stores;
	uint32_t *object;	/* per MEM record of t: index in objects */
	uint32_t *code;		/* per MEM record of t: index in code */
};

struct mm_objthread {
	uint32_t object, thread;
	uint64_t samples;
};

struct mm_alloc {
	uint32_t thread;	/* index in memmodel.thread */
	uint32_t ctx;		/* the thread's calling-context id */
	uint32_t object;
	uint32_t flags;		/* SONDE_ALLOC_*, MM_ALLOC_INHERITED */
	uint64_t addr, size, time;
	uint64_t free_time;	/* UINT64_MAX if never freed */
};

/* A block a forked child holds from its parent: allocated there before the fork, not freed
 * by then (its object the parent's; counted in the parent's allocations only). */
#define MM_ALLOC_INHERITED 0x80000000u

struct mm_process {
	struct symtab *symtab;	/* NULL when the maps file is missing or unreadable */
	int symtab_err;		/* then -errno */
	struct mm_alloc *alloc;	/* sorted by time */
	size_t nalloc;
	uint64_t unmatched_frees;	/* FREE records that matched no live allocation */
	uint64_t summarized;	/* short-lived blocks counted by the runtime, not recorded */
};

struct memmodel {
	const struct profile *prof;
	struct mm_process *proc;	/* parallel to prof->proc */
	struct mm_thread *thread;	/* every thread of every process, in profile order */
	size_t nthread;
	struct mm_object *object;	/* sorted by samples, descending, then name */
	size_t nobject;
	struct mm_code *code;		/* sorted by samples, descending */
	size_t ncode;
	struct mm_objthread *objthread;	/* sorted by object, then samples descending */
	size_t nobjthread;
	uint64_t samples, loads, stores;	/* weighted totals */
	uint64_t records;		/* MEM records */
	void *view;			/* memmodel_build_for's recording, freed with the model */
};

/* Build the model.  0, or -ENOMEM with a reason in err. */
int memmodel_build(const struct profile *p, struct memmodel **out, char *err, size_t errlen);

/*
 * Name other tools' addresses as `sonde mem` names data objects: a model of process `proc`
 * of p alone, in which thread i's samples are recs[first[i] .. first[i + 1]) instead of
 * its own (SONDE_REC_MEM records the caller filled: ip, addr, time; the model keeps a copy).
 * first has nthread + 1 entries.  recs[q]'s object is then out->thread[i].object[q - first[i]].
 * 0, or -ENOMEM with a reason in err.
 */
int memmodel_build_for(const struct profile *p, size_t proc, const struct sonde_rec_mem *recs,
		       const size_t *first, struct memmodel **out, char *err, size_t errlen);

void memmodel_free(struct memmodel *m);

/* "heap", "static", "stack", "other". */
const char *mm_kind_name(enum mm_kind k);

/*
 * Symbolize ip of process proc (an index in prof->proc) into sc (may be NULL): its inline
 * frames, innermost first, and its module.  is_return: ip is a return address (look up
 * ip - 1).  Returns the number of frames, 0 when unknown (sc is then zeroed).
 */
struct sym_code;
int mm_symbolize(const struct memmodel *m, size_t proc, uint64_t ip, int is_return,
		 struct sym_code *sc);

/* A code location for people, "function (file:line)" at the innermost inline frame that
 * has a line, "function" without one; code with no symbol of its own (a stripped
 * library's, a file's, in no file) by its address, "[libgomp.so.1.0.0]+0x1cfd0"
 * (sym_code_own_name), so that two such places stay two; ip of the first process.  m may
 * be NULL (then "0x<ip>"). */
void mm_code_name(const struct memmodel *m, uint64_t ip, char *buf, size_t len);

#endif
