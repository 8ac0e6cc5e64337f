/* SPDX-License-Identifier: MIT */
/*
 * analyze.h - GOoDA-style aggregation of a perf.data recording: samples per event kept per
 * address of each (process, module); processes with the same name merge into one principal
 * process; modules come from the mmaps; functions from ELF symbols; call edges from
 * callchains and branch stacks; multiplexing factors from time_enabled/time_running.
 *
 * Ownership: the analysis owns every row, name and array; all live until analysis_free().
 * Errors: -errno, with a one-line reason (the perf.data offset for a corrupt file).
 */
#ifndef SONDE_LIB_ANALYZE_H
#define SONDE_LIB_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "prof/symbols.h"
#include "analyze/perfdata.h"

struct an_event {
	const char *name;		/* as perf names it (EVENT_DESC, or made up) */
	const struct pd_attr *attr;
	uint64_t period;		/* fixed sample_period, or the mean period (freq mode) */
	int freq;
	double mplex;			/* time_enabled / time_running, sample-weighted over CPUs */
	int has_mplex;			/* some READ values were recorded */
	uint64_t samples, period_sum;
};

/* A process, module or function: counts per event (nev entries each). */
struct an_row {
	const char *name;
	int proc, mod;			/* the owning process / module (-1 for a process) */
	uint64_t start, size;		/* functions: ELF address range; 0 if unknown */
	uint64_t *samples, *periods;	/* self */
	uint64_t *incl;			/* functions: samples with the function on the callchain */
	struct sym_module *file;		/* functions and modules: NULL if unreadable */
};

struct an_addr {
	int func;
	uint64_t addr;			/* ELF address (module offset when unresolved) */
	uint64_t *samples;
};

/* The samples of one row (address or function) on one CPU, for one event. */
struct an_cpu_count {
	int row;
	uint32_t cpu, ev;
	uint64_t samples;
};

struct an_edge {
	int caller, callee;		/* function rows */
	uint64_t count;			/* samples (callchains) or branch records (LBR) */
	int lbr;
};

struct analysis {
	size_t nev;
	struct an_event *ev;
	struct an_row *procs, *mods, *funcs;
	size_t nprocs, nmods, nfuncs;
	struct an_addr *addrs;
	size_t naddrs;
	struct an_edge *edges;
	size_t nedges;
	uint64_t *cpu_samples;		/* ncpus x nev */
	size_t ncpus;
	/* per CPU, where samples record it; sorted by row, cpu, event; no zero counts */
	struct an_cpu_count *addr_cpus, *func_cpus;
	size_t naddr_cpus, nfunc_cpus;
	uint64_t nsamples, lost, unknown_id;
	int has_callchains, has_branches;
	/* private */
	void *priv;
};

/*
 * Walk every record of pd and aggregate.  as resolves symbols (may be NULL: no symbols).
 * NULL on error with *err = -errno and the reason in errbuf.
 */
struct analysis *analysis_new(struct perfdata *pd, struct symtab *as, int *err, char *errbuf,
			      size_t errlen);
void analysis_free(struct analysis *an);

/* Row indices sorted by samples of event ev (descending); the caller frees the array. */
int *analysis_order(const struct an_row *rows, size_t n, size_t ev);

/*
 * The per-CPU counts of row in cpus (addr_cpus or func_cpus, n entries): *first is the index
 * of the first, the number of them is returned (0 if none).
 */
size_t analysis_cpus_of(const struct an_cpu_count *cpus, size_t n, int row, size_t *first);

/* Sum of samples of event ev over all rows of the recording. */
uint64_t analysis_total(const struct analysis *an, size_t ev);

/* The function whose name is name (first match, hottest first); -1 if none. */
int analysis_find_function(const struct analysis *an, const char *name);

/* ---- one function in detail: instructions, basic blocks, source lines ------------------ */

struct an_insn {
	uint64_t addr;
	uint8_t len;
	char text[96];
	int bb;
	uint64_t *samples;		/* nev */
	struct sym_frame frames[SYM_MAX_INLINE];	/* [0] innermost (initial) */
	int nframes;
};

struct an_bb {
	uint64_t start, end;
	uint64_t *samples;
	int succ[2];			/* successor blocks, -1 if none */
	int first, ninsns;		/* instruction range */
};

/* A source line: the innermost (initial) position of its instructions. */
struct an_line {
	const char *file;
	int line;
	uint64_t *samples;
	const char *inlined;		/* the inlined function the line belongs to, or NULL */
	int principal;			/* line in the function itself (the call site if inlined) */
};

struct an_func_view {
	int func;
	struct an_insn *insns;
	size_t ninsns;
	struct an_bb *bbs;
	size_t nbbs;
	struct an_line *lines;
	size_t nlines;
	uint64_t *pool;
};

/* Disassemble function f and split it; 0, -ENOENT (no code bytes), -ENOMEM. */
int analysis_function(struct analysis *an, int f, struct an_func_view *v);
void an_func_view_release(struct an_func_view *v);

#endif
