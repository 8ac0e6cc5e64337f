/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - find v-sensors in one C translation unit (libclang AST).
 *
 * A candidate is a loop or a call site.  Its "work" is what its control expressions
 * (loop bounds, branch conditions, the work arguments of called functions) read,
 * followed backwards through the assignments inside it.  It is a v-sensor of an
 * enclosing loop when none of what remains can change inside that loop.  Functions get
 * bottom-up summaries; calls on recursive edges and through pointers are cut (unknown).
 * See doc/sonde-vsensor.md for every rule.
 */
#ifndef SONDE_VSENSOR_ANALYSIS_H
#define SONDE_VSENSOR_ANALYSIS_H

#include <stdio.h>

enum vs_kind { VS_COMPUTE = 0, VS_NETWORK = 1, VS_IO = 2, VS_MIXED = 3 };

struct vs_cand {
	int line, col;
	unsigned begin, end;	/* byte offsets of the statement to wrap (end exclusive) */
	unsigned pragma;	/* a loop's first #pragma line (its offset) when pragmas stand
				 * right before it (OpenMP, GCC ivdep/unroll): the tick goes
				 * before them, or the pragma would be cut off its loop; else begin */
	int pragma_line;	/* that line's number, 0 when none */
	int is_loop;
	char func[64];		/* enclosing function */
	char what[64];		/* "for", "while", "do" or the callee's name */
	int kind;		/* enum vs_kind */
	int depth;		/* enclosing loops over the deepest call chain (outermost = 0 around) */
	int rank_dependent;	/* work reads MPI_Comm_rank/gethostname results */
	int global;		/* fixed over every enclosing loop in every calling context */
	int selected;		/* chosen for instrumentation */
	long ops;		/* work known before it runs, in expression nodes; -1 unknown */
	int fi;			/* internal: the analysis' index of its function */
	char scope[256];	/* loops (func:line) it is a v-sensor of */
	char reason[256];	/* why it is not selected ("" when selected) */
};

struct vs_analysis {
	struct vs_cand *c;
	int n;
	char file[512];
	char error[320];	/* after -EINVAL: clang's first error, "file:line:col: error: ..." */
	int nwith;		/* files of opt->with analysed with it */
	char skipped[400];	/* the first of opt->with that did not parse: "file: error" */
	/* the first external function two of the units define, "main is defined in a.c and in
	 * b.c" (the first definition analysed), and how many: the files are not one program */
	char duplicate[200];
	int nduplicate;
	/* functions defined in .c files this one #includes: never candidates (the rewrite
	 * instruments this file's text), said by list and cc (HPGMG's operators.fv4.c
	 * includes its 14 operator files: no word of them until 2026-11-28) */
	int included;
	char included_file[256];	/* the first such file, as the #include names it */
	/* loops in functions defined in the program's own headers (not /usr/...): never
	 * candidates either; how many, in how many functions, and the first header met */
	int header_loops, header_funcs;
	char header_file[256];
};

struct vs_options {
	int max_depth;		/* candidates deeper than this are not selected */
	const char *const *with;	/* the program's other .c files: their functions are */
	int nwith;			/* summarised and their calls seen, never instrumented */
	int open;			/* a --with pattern matched no file: the files are not
					 * the whole program */
};

/*
 * Parse and analyse path with the compiler arguments args (-I, -D, -std...).
 * Fills a (free with vs_analysis_release).  0, -ENOENT, -EINVAL (parse failure, the
 * first error in a->error), -ENOMEM.
 */
int vs_analyze(const char *path, const char *const *args, int nargs,
	       const struct vs_options *opt, struct vs_analysis *a);
void vs_analysis_release(struct vs_analysis *a);

/*
 * Write the instrumented text of a's file to out: sensor declarations, a #line
 * directive naming the file as `name` (the compile command's path; NULL: a's), then the
 * source with Tick/Tock around each selected candidate.  0 or -errno.
 */
int vs_rewrite(const struct vs_analysis *a, const char *name, FILE *out);

const char *vs_kind_name(int kind);

#endif
