/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - v-sensor analysis of one C translation unit on libclang's AST.
 *
 * Why the AST and not LLVM IR: the same tree gives the use-def facts and the exact byte
 * ranges that the rewriter wraps in Tick/Tock, so there is no mapping back from IR
 * through debug info; the price is that use-def chains are built here by hand,
 * flow-insensitively (every assignment to a variable inside a range counts).
 *
 * Pass 1 walks each function once and records loops, call sites, assignments ("defs",
 * with the variables their right-hand side reads), control expressions (loop and
 * branch conditions with what they read) and writes through memory.  Pass 2 answers,
 * per candidate, "what does its work read that is set outside it" (closure), then
 * checks each enclosing loop, in its own function and through every call site upwards.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "tools/vsensor/analysis.h"
#include "tools/vsensor/clang-dl.h"
#include "tools/vsensor/vs-abi.h"

#define TOK_MEM (-1)	/* reads memory through a pointer or an array element */
#define TOK_VARY (-2)	/* a value nothing is known about (call result, unknown call) */
#define TOK_TAINT (-3)	/* a process-dependent value (MPI_Comm_rank, gethostname) */

struct iset {
	int *v;
	int n, cap;
};

static int iset_has(const struct iset *s, int x)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return 1;
	return 0;
}

static int iset_add(struct iset *s, int x)
{
	if (iset_has(s, x))
		return 0;
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;
		int *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			abort();	/* analysis is a CLI step; out of memory ends it */
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	return 1;
}

static void iset_merge(struct iset *d, const struct iset *s)
{
	for (int i = 0; i < s->n; i++)
		iset_add(d, s->v[i]);
}

static void iset_free(struct iset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- external function descriptions (libc, libm, MPI) ---- */

/*
 * X_LIBC: libc calls whose time is not fixed (printf's depends on what it prints) but
 * that write no program variable except through their described pointer arguments:
 * a loop that calls them does not change the program's globals.  Without them, one
 * printf in NPB IS's iteration loop made every global a later sensor reads "changed".
 */
enum { X_PURE, X_COMPUTE, X_NET, X_IO, X_QUERY, X_LIBC };

struct ext_desc {
	const char *name;
	int cls;
	unsigned work;		/* argument bits that decide the work */
	unsigned out;		/* pointer arguments written */
	unsigned taint;		/* arguments that receive process-dependent values */
	int value_fixed;	/* result depends only on the arguments (pure math; all of
				 * them, whatever `work` says: sqrt's work is fixed, its
				 * value its argument's) */
	unsigned peer;		/* partner or root: a rank-dependent one makes the work rank-dependent */
	int vary;		/* work never fixed (counts in arrays), but no effect beyond out */
	unsigned keep;		/* pointer arguments the call keeps, to write through later */
	int ret0;		/* returns its first argument: kept unless the result is dropped */
	int fmt;		/* printf family: 1 + the format's index; a "%n" in it (or a
				 * format not a literal) writes the pointer arguments after it */
	int completes;		/* MPI_Wait/Test*: completes requests whose buffers were kept
				 * (MPI_Irecv): a write through memory */
};

#define A(i) (1u << (i))
static const struct ext_desc ext_descs[] = {
	/* a fixed cost whatever the value (an instruction, or a fixed sequence on x86-64):
	 * no argument decides the work (until 2026-11-29 each was its argument's, and
	 * `s += sqrt(a[i])` after a loop writing a[] was refused: the usability review) */
	{ "sqrt", X_PURE, 0, 0, 0, 1 }, { "fabs", X_PURE, 0, 0, 0, 1 },
	{ "floor", X_PURE, 0, 0, 0, 1 }, { "ceil", X_PURE, 0, 0, 0, 1 },
	{ "fmin", X_PURE, 0, 0, 0, 1 }, { "fmax", X_PURE, 0, 0, 0, 1 },
	{ "abs", X_PURE, 0, 0, 0, 1 },
	/* libm's: table-driven, yet with slow paths for some arguments (huge ones to sin and
	 * cos, some of pow's): the arguments decide the work */
	{ "exp", X_PURE, A(0), 0, 0, 1 }, { "log", X_PURE, A(0), 0, 0, 1 },
	{ "sin", X_PURE, A(0), 0, 0, 1 }, { "cos", X_PURE, A(0), 0, 0, 1 },
	{ "pow", X_PURE, A(0) | A(1), 0, 0, 1 },
	{ "memset", X_COMPUTE, A(2), A(0), 0, 0, .ret0 = 1 },
	{ "memcpy", X_COMPUTE, A(2), A(0), 0, 0, .ret0 = 1 },
	{ "memmove", X_COMPUTE, A(2), A(0), 0, 0, .ret0 = 1 },
	{ "printf", X_LIBC, 0, 0, 0, 0, 0, 1, .fmt = 1 },
	{ "fprintf", X_LIBC, 0, 0, 0, 0, 0, 1, .fmt = 2 },
	{ "puts", X_LIBC, 0, 0, 0, 0, 0, 1 }, { "putchar", X_LIBC, 0, 0, 0, 0, 0, 1 },
	{ "fflush", X_LIBC, 0, 0, 0, 0, 0, 1 },
	{ "snprintf", X_LIBC, 0, A(0), 0, 0, 0, 1, .fmt = 3 },
	{ "sprintf", X_LIBC, 0, A(0), 0, 0, 0, 1, .fmt = 2 }, { "malloc", X_LIBC, 0, 0, 0, 0, 0, 1 },
	{ "calloc", X_LIBC, 0, 0, 0, 0, 0, 1 }, { "free", X_LIBC, 0, 0, 0, 0, 0, 1 },
	{ "MPI_Send", X_NET, A(1) | A(2), 0, 0, 0, A(3) },
	{ "MPI_Recv", X_NET, A(1) | A(2), A(0) | A(6), 0, 0, A(3) },
	{ "MPI_Isend", X_NET, A(1) | A(2), A(6), 0, 0, A(3) },
	{ "MPI_Irecv", X_NET, A(1) | A(2), A(0) | A(6), 0, 0, A(3), 0, A(0) },
	{ "MPI_Wait", X_NET, 0, A(0) | A(1), 0, 0, .completes = 1 },
	{ "MPI_Waitall", X_NET, A(0), A(1) | A(2), 0, 0, .completes = 1 },
	{ "MPI_Waitany", X_NET, A(0), A(1) | A(2) | A(3), 0, 0, .completes = 1 },
	{ "MPI_Waitsome", X_NET, A(0), A(1) | A(2) | A(3) | A(4), 0, 0, .completes = 1 },
	{ "MPI_Test", X_NET, 0, A(0) | A(1) | A(2), 0, 0, .completes = 1 },
	{ "MPI_Testall", X_NET, A(0), A(1) | A(2) | A(3), 0, 0, .completes = 1 },
	{ "MPI_Testany", X_NET, A(0), A(1) | A(2) | A(3) | A(4), 0, 0, .completes = 1 },
	{ "MPI_Testsome", X_NET, A(0), A(1) | A(2) | A(3) | A(4), 0, 0, .completes = 1 },
	{ "MPI_Sendrecv", X_NET, A(1) | A(2) | A(6) | A(7), A(5) | A(11), 0, 0, A(3) | A(8) },
	{ "MPI_Allreduce", X_NET, A(2) | A(3) | A(4), A(1), 0, 0 },
	{ "MPI_Reduce", X_NET, A(2) | A(3) | A(4), A(1), 0, 0, A(5) },
	{ "MPI_Bcast", X_NET, A(1) | A(2), A(0), 0, 0, A(3) },
	{ "MPI_Alltoall", X_NET, A(1) | A(2) | A(4) | A(5), A(3), 0, 0 },
	{ "MPI_Allgather", X_NET, A(1) | A(2) | A(4) | A(5), A(3), 0, 0 },
	{ "MPI_Gather", X_NET, A(1) | A(2) | A(4) | A(5), A(3), 0, 0, A(6) },
	{ "MPI_Scatter", X_NET, A(1) | A(2) | A(4) | A(5), A(3), 0, 0, A(6) },
	{ "MPI_Barrier", X_NET, 0, 0, 0, 0 },
	/* the v variants take their counts from arrays, whose contents the analysis does not
	 * follow: their work is unknown, but they write only the receive buffer */
	{ "MPI_Alltoallv", X_NET, 0, A(4), 0, 0, 0, 1 },
	{ "MPI_Allgatherv", X_NET, 0, A(3), 0, 0, 0, 1 },
	{ "MPI_Gatherv", X_NET, 0, A(3), 0, 0, 0, 1 },
	{ "MPI_Scatterv", X_NET, 0, A(4), 0, 0, 0, 1 },
	{ "MPI_Comm_rank", X_QUERY, 0, A(1), A(1), 0 },
	{ "MPI_Comm_size", X_QUERY, 0, A(1), 0, 0 },
	{ "MPI_Wtime", X_QUERY, 0, 0, 0, 0 },
	{ "gethostname", X_QUERY, 0, A(0), A(0), 0 },
	{ "fwrite", X_IO, A(1) | A(2), 0, 0, 0 }, { "fread", X_IO, A(1) | A(2), A(0), 0, 0 },
	{ "write", X_IO, A(2), 0, 0, 0 }, { "read", X_IO, A(2), A(1), 0, 0 },
	{ "pwrite", X_IO, A(2), 0, 0, 0 }, { "pread", X_IO, A(2), A(1), 0, 0 },
};

static const struct ext_desc *ext_find(const char *name)
{
	/* the compiler's builtin of a described function is that function (glibc's CPU_ZERO
	 * expands to __builtin_memset, which `list` called undescribed: the usability review
	 * of 2026-11-29) */
	if (!strncmp(name, "__builtin_", 10))
		name += 10;
	for (size_t i = 0; i < sizeof(ext_descs) / sizeof(ext_descs[0]); i++)
		if (!strcmp(ext_descs[i].name, name))
			return &ext_descs[i];
	return NULL;
}

/* ---- what pass 1 records ---- */

struct var {
	char *usr;
	char name[48];
	int func;		/* defining function, -1 for globals and static locals */
	int param;		/* parameter index, -1 otherwise */
	int addr_taken;
	int tainted;
	int is_static;		/* file-local: code outside this file cannot name it */
	int defined;		/* a global defined in the files analysed (not a library's
				 * extern, as errno or optind) */
	int cb_written;		/* callback_writes, memoized: 0 not asked, 1 no, 2 yes */
};

struct def {
	unsigned off;
	int var;
	int kill;		/* a declaration or a for-loop initialisation: value not carried in */
	int ctrl;		/* part of a loop header (not work of its own) */
	struct iset uses;
};

struct ctrl {
	unsigned off;
	struct iset uses;
};

struct call {
	unsigned off, b, e;
	int line, col;
	char name[64];
	int callee;		/* index into funcs, -1 when not defined here */
	const struct ext_desc *ext;
	int indirect;
	int nargs;
	struct iset *args;
	int is_stmt, in_macro, func;
	int loop_depth;
	long long const_size;	/* memset/memcpy/memmove with a constant size, else -1 */
	int tu;			/* translation unit of the call */
	unsigned const_mask;	/* arguments that are integer constants (the first 32)... */
	long long *const_val;	/* ...and their values */
};

struct loop {
	unsigned b, e;
	int line, col;
	char what[8];
	int exits;		/* return/goto inside */
	int ops;		/* expression nodes in it, header included */
	long trip;		/* iterations of a counted for loop with constant bounds, else -1 */
	int in_macro;
	int loop_depth;		/* loops around it in its function */
	int memwrite;		/* computed: writes memory (itself or callees) */
	int unknown_call;	/* computed: calls something that may write any global */
};

struct func {
	char name[64];
	int defined, in_main;
	int own;		/* in its unit's .c file, not a header */
	int local_header;	/* defined in a header of the program's (not /usr/...) */
	int tu, is_static;	/* translation unit (0: the analysed file); static: seen there only */
	unsigned b, e;
	int nparams;
	struct loop *loops;
	int nloops;
	struct def *defs;
	int ndefs;
	struct ctrl *ctrls;
	int nctrls;
	unsigned *memw;
	int nmemw;
	int *calls;		/* indices into the global call table */
	int ncalls;
	/* summary */
	int ops;		/* expression nodes in its body */
	int state;		/* 0 not yet, 1 in progress, 2 done */
	struct iset deps;	/* parameter i as -(100 + i), globals by var id, TOK_* */
	struct iset mod;	/* globals written */
	int writes_mem, unknown, has_net, has_io, has_work, tainted;
	int addr_taken;		/* named other than as a callee: called through pointers too */
	const char *waits;	/* the first waiting call it makes, itself or in a callee */
	char why[200];		/* why its work is not fixed, if it is not */
};

/* A function named other than as the callee of a call (fp = kern): seen in pass 1. */
struct fref {
	char name[64];
	int tu, internal;	/* internal: a static function of unit tu */
};

struct an {
	struct vs_analysis *res;	/* the result (included files noted as met) */
	const char *src;	/* the main file's text (pragma_before), NULL if unread */
	size_t srclen;
	CXTranslationUnit tu;
	struct var *vars;
	int nvars, capvars;
	int *hash;		/* open addressing, var index + 1 */
	int hcap;
	struct func *funcs;
	int nfuncs;
	struct call *calls;
	int ncalls;
	char **reach;		/* reach[f][g]: f calls g, transitively */
	/* walk state */
	int cur;
	int loopstack[64];
	int nloopstack;
	int in_ctrl, in_init;
	int nexpr;		/* expression nodes walked so far */
	int curtu;		/* translation unit being walked (0: the analysed file) */
	char files[256][64];	/* base names of the units (the first 256) */
	CXCursor stmt_call;
	int have_stmt_call;
	/* the statement is `x = call(...);`: the sensor wraps the assignment, [b, e) */
	int stmt_assign;
	unsigned stmt_b, stmt_e;
	char vary_why[200];
	struct fref *frefs;	/* functions whose address is taken, all units */
	int nfrefs, capfrefs;
	struct fcount { char name[64]; int refs, calls, internal; } *fc;	/* this unit's */
	int nfc, capfc;
	int closed;		/* --with given and parsed: the files are the whole program */
};

#define PARAM_TOK(i) (-(100 + (i)))

static void *grow(void *p, int n, int *cap, size_t sz)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	p = realloc(p, *cap * sz);
	if (!p)
		abort();
	return p;
}

static unsigned hash_str(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void loc_of(CXCursor c, unsigned *off, int *line, int *col, int *in_macro)
{
	CXSourceLocation l = vs_clang.clang_getCursorLocation(c);
	unsigned ln, cl, of, eln, ecl, eof;
	CXFile f, ef;
	vs_clang.clang_getSpellingLocation(l, &f, &ln, &cl, &of);
	vs_clang.clang_getExpansionLocation(l, &ef, &eln, &ecl, &eof);
	if (off)
		*off = eof;
	if (line)
		*line = eln;
	if (col)
		*col = ecl;
	if (in_macro)
		*in_macro = (of != eof) || !vs_clang.clang_Location_isFromMainFile(l);
}

/* A global's declaration decl: is it, or is a definition of it, in this unit?  An extern
 * declaration with no definition here is a library's (errno, optind) or another file's. */
static int var_defined_here(CXCursor decl)
{
	if (vs_clang.clang_Cursor_getStorageClass(decl) != CX_SC_Extern)
		return 1;	/* static, or a file-scope definition (tentative ones too) */
	return vs_clang.clang_isCursorDefinition(decl) ||
	       !vs_clang.clang_Cursor_isNull(vs_clang.clang_getCursorDefinition(decl));
}

static void extent_of(CXCursor c, unsigned *b, unsigned *e)
{
	CXSourceRange r = vs_clang.clang_getCursorExtent(c);
	vs_clang.clang_getExpansionLocation(vs_clang.clang_getRangeStart(r), NULL, NULL, NULL, b);
	vs_clang.clang_getExpansionLocation(vs_clang.clang_getRangeEnd(r), NULL, NULL, NULL, e);
}

static int var_id(struct an *a, CXCursor decl)
{
	CXString us = vs_clang.clang_getCursorUSR(decl);
	const char *u = vs_clang.clang_getCString(us);
	if (a->nvars * 2 >= a->hcap) {
		int ncap = a->hcap ? 2 * a->hcap : 1024;
		int *h = calloc(ncap, sizeof(int));
		if (!h)
			abort();
		for (int i = 0; i < a->nvars; i++) {
			unsigned k = hash_str(a->vars[i].usr) & (ncap - 1);
			while (h[k])
				k = (k + 1) & (ncap - 1);
			h[k] = i + 1;
		}
		free(a->hash);
		a->hash = h;
		a->hcap = ncap;
	}
	unsigned k = hash_str(u) & (a->hcap - 1);
	while (a->hash[k]) {
		if (!strcmp(a->vars[a->hash[k] - 1].usr, u)) {
			vs_clang.clang_disposeString(us);
			a->vars[a->hash[k] - 1].defined |= var_defined_here(decl);
			return a->hash[k] - 1;
		}
		k = (k + 1) & (a->hcap - 1);
	}
	a->vars = grow(a->vars, a->nvars, &a->capvars, sizeof(*a->vars));
	struct var *v = &a->vars[a->nvars];
	memset(v, 0, sizeof(*v));
	v->usr = strdup(u);
	vs_clang.clang_disposeString(us);
	CXString nm = vs_clang.clang_getCursorSpelling(decl);
	snprintf(v->name, sizeof(v->name), "%s", vs_clang.clang_getCString(nm));
	vs_clang.clang_disposeString(nm);
	v->param = -1;
	v->func = -1;
	CXCursor par = vs_clang.clang_getCursorSemanticParent(decl);
	int global = vs_clang.clang_getCursorKind(par) == CXCursor_TranslationUnit ||
		     vs_clang.clang_Cursor_getStorageClass(decl) == CX_SC_Static ||
		     vs_clang.clang_Cursor_getStorageClass(decl) == CX_SC_Extern;
	if (!global)
		v->func = a->cur;
	v->is_static = vs_clang.clang_Cursor_getStorageClass(decl) == CX_SC_Static;
	v->defined = global && var_defined_here(decl);
	if (vs_clang.clang_getCursorKind(decl) == CXCursor_ParmDecl && a->cur >= 0) {
		int n = vs_clang.clang_Cursor_getNumArguments(par);
		for (int i = 0; i < n; i++)
			if (vs_clang.clang_equalCursors(vs_clang.clang_Cursor_getArgument(par, i), decl))
				v->param = i;
	}
	a->hash[k] = ++a->nvars;
	return a->nvars - 1;
}

/*
 * The function name means in translation unit tu: the unit's own entry (its static
 * function), else, when ext, the external one; -1 if none.  Every lookup by name goes
 * through here: a definition (func_id), a call (resolve_calls), a reference (mark_frefs).
 */
static int func_find(const struct an *a, const char *name, int tu, int ext)
{
	int found = -1;
	for (int i = 0; i < a->nfuncs; i++) {
		const struct func *f = &a->funcs[i];
		if (strcmp(f->name, name))
			continue;
		if (f->tu == tu)
			return i;
		if (ext && !f->is_static && found < 0)
			found = i;
	}
	return found;
}

/*
 * The function defined as name in translation unit tu: one entry per external name
 * for the whole program, one per unit for a static one (two files may each have their
 * own static "init").
 */
static int func_id(struct an *a, const char *name, int tu, int is_static)
{
	int i = func_find(a, name, tu, !is_static);
	if (i >= 0)
		return i;
	a->funcs = realloc(a->funcs, (a->nfuncs + 1) * sizeof(*a->funcs));
	if (!a->funcs)
		abort();
	struct func *f = &a->funcs[a->nfuncs];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->tu = tu;
	f->is_static = is_static;
	return a->nfuncs++;
}

/* ---- pass 1 ---- */

/*
 * The children of a cursor, all of them: a block of real code has hundreds of
 * statements, and a statement skipped here is an assignment the use-def chains miss (a
 * bound changed there would look fixed).  Release with kids_release.
 */
struct kids {
	CXCursor *c;
	int n, cap;
	CXCursor small[16];
};

static enum CXChildVisitResult kid_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	struct kids *k = d;
	if (k->n == k->cap) {
		CXCursor *v = malloc(2 * k->cap * sizeof(*v));
		if (!v)
			abort();
		memcpy(v, k->c, k->n * sizeof(*v));
		if (k->c != k->small)
			free(k->c);
		k->c = v;
		k->cap *= 2;
	}
	k->c[k->n++] = c;
	return CXChildVisit_Continue;
}

static void kids_of(CXCursor c, struct kids *k)
{
	k->c = k->small;
	k->cap = sizeof(k->small) / sizeof(k->small[0]);
	k->n = 0;
	vs_clang.clang_visitChildren(c, kid_cb, k);
}

static void kids_release(struct kids *k)
{
	if (k->c != k->small)
		free(k->c);
	k->c = k->small;
	k->n = 0;
}

static CXCursor strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = vs_clang.clang_getCursorKind(c);
		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr)
			return c;
		struct kids ks;
		kids_of(c, &ks);
		int one = ks.n == 1;
		if (one)
			c = ks.c[0];
		kids_release(&ks);
		if (!one)
			return c;
	}
}

/* The variable a plain "x" expression names, or -1. */
static int plain_var(struct an *a, CXCursor c)
{
	c = strip(c);
	if (vs_clang.clang_getCursorKind(c) != CXCursor_DeclRefExpr)
		return -1;
	CXCursor r = vs_clang.clang_getCursorReferenced(c);
	enum CXCursorKind k = vs_clang.clang_getCursorKind(r);
	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	return var_id(a, r);
}

/*
 * The variable whose storage an lvalue is: a plain "x", or a '.' member chain on it
 * ("p.n", "s.a.b": a struct held by value), or -1 (a pointer step, an element).
 */
static int field_var(struct an *a, CXCursor c)
{
	for (;;) {
		c = strip(c);
		if (vs_clang.clang_getCursorKind(c) != CXCursor_MemberRefExpr)
			return plain_var(a, c);
		struct kids ks;
		kids_of(c, &ks);
		int dot = ks.n == 1 &&
			  vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(ks.c[0])).kind == CXType_Record;
		if (dot)
			c = ks.c[0];
		kids_release(&ks);
		if (!dot)
			return -1;
	}
}

/* Spelling of the first punctuation token in [b, e) of the cursor's file. */
static void punct_between(struct an *a, CXCursor c, CXSourceLocation b, CXSourceLocation e,
			  char *op, size_t len)
{
	CXToken *t;
	unsigned n;
	op[0] = 0;
	vs_clang.clang_tokenize(a->tu, vs_clang.clang_getRange(b, e), &t, &n);
	for (unsigned i = 0; i < n; i++) {
		if (vs_clang.clang_getTokenKind(t[i]) != CXToken_Punctuation)
			continue;
		CXString s = vs_clang.clang_getTokenSpelling(a->tu, t[i]);
		snprintf(op, len, "%s", vs_clang.clang_getCString(s));
		vs_clang.clang_disposeString(s);
		break;
	}
	vs_clang.clang_disposeTokens(a->tu, t, n);
}

/*
 * Whether unary operator c is '*': its type is what its operand points to (the operand of
 * "*(p)" is p's value, an implicit cast, so an array operand has decayed to a pointer).
 * Other unary operators give a value of their operand's type (-, ~, ++), an int (!) or a
 * pointer to the operand (&): none of them the operand's pointee.
 */
static int is_deref(CXCursor c)
{
	struct kids ks;
	kids_of(c, &ks);
	int deref = 0;
	if (ks.n == 1) {
		CXType at = vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(ks.c[0]));
		CXType rt = vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(c));
		deref = at.kind == CXType_Pointer &&
			vs_clang.clang_equalTypes(vs_clang.clang_getCanonicalType(vs_clang.clang_getPointeeType(at)), rt);
	}
	kids_release(&ks);
	return deref;
}

/*
 * The operator of a binary operator spelled inside a macro expansion, from the tree, not
 * the tokens: there both operands' extents map to the macro invocation (the left one's
 * end after the right one's start), and the tokens between them are not the operator
 * ("width + 2" in "#define IN(i, j) in[(i) + (j) * (width + 2)]" read as "=": width, i
 * and j looked assigned in every loop that used IN(), PRK's stencil).  In C the left
 * operand of every binary operator but '=' and ',' is converted to a value (an implicit
 * cast, an unexposed cursor to libclang) or is one already (a literal, a call, a cast,
 * an enum constant, "-x", "!x").  A left operand that is an lvalue as it stands, with
 * no conversion around it, makes an assignment: a variable (not an enum constant), an
 * element, a member, or a '*' dereference; in C no other unary operator gives an lvalue.  '=' when it is one, else "?" (an
 * operator that assigns nothing: callers test for '=' and comparisons).
 */
static void binop_in_macro(CXCursor lhs, char *op, size_t len)
{
	enum CXCursorKind k = vs_clang.clang_getCursorKind(lhs);
	if (k == CXCursor_ParenExpr) {
		struct kids ks;
		kids_of(lhs, &ks);
		if (ks.n == 1)
			binop_in_macro(ks.c[0], op, len);
		else
			snprintf(op, len, "?");
		kids_release(&ks);
		return;
	}
	int lvalue = k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr;
	if (k == CXCursor_DeclRefExpr) {
		/* an enum constant is a value as it stands ("NC * (i)", enum { NC = 4 }) */
		enum CXCursorKind rk = vs_clang.clang_getCursorKind(vs_clang.clang_getCursorReferenced(lhs));
		lvalue = rk == CXCursor_VarDecl || rk == CXCursor_ParmDecl;
	} else if (k == CXCursor_UnaryOperator) {
		/* of the unary operators only '*' gives an lvalue in C: "-(a) + (b)" is not "=" */
		lvalue = is_deref(lhs);
	}
	snprintf(op, len, "%s", lvalue ? "=" : "?");
}

static void binop(struct an *a, CXCursor c, CXCursor lhs, CXCursor rhs, char *op, size_t len)
{
	/* operands not in order in the file: both are in one macro expansion */
	unsigned le, rb;
	vs_clang.clang_getExpansionLocation(vs_clang.clang_getRangeEnd(vs_clang.clang_getCursorExtent(lhs)), NULL, NULL, NULL, &le);
	vs_clang.clang_getExpansionLocation(vs_clang.clang_getRangeStart(vs_clang.clang_getCursorExtent(rhs)), NULL, NULL, NULL, &rb);
	if (le >= rb && vs_clang.clang_getCursorKind(c) == CXCursor_BinaryOperator) {
		binop_in_macro(lhs, op, len);
		return;
	}
	punct_between(a, c, vs_clang.clang_getRangeEnd(vs_clang.clang_getCursorExtent(lhs)),
		      vs_clang.clang_getRangeStart(vs_clang.clang_getCursorExtent(rhs)), op, len);
	/* ')' of a parenthesised left side may come first: take the operator after it */
	if (!strcmp(op, ")") || !strcmp(op, "]")) {
		CXToken *t;
		unsigned n;
		op[0] = 0;
		vs_clang.clang_tokenize(a->tu, vs_clang.clang_getRange(vs_clang.clang_getRangeEnd(vs_clang.clang_getCursorExtent(lhs)),
						     vs_clang.clang_getRangeStart(vs_clang.clang_getCursorExtent(rhs))), &t, &n);
		for (unsigned i = 0; i < n; i++) {
			CXString s = vs_clang.clang_getTokenSpelling(a->tu, t[i]);
			const char *p = vs_clang.clang_getCString(s);
			if (vs_clang.clang_getTokenKind(t[i]) == CXToken_Punctuation && strcmp(p, ")") && strcmp(p, "]"))
				snprintf(op, len, "%s", p);
			vs_clang.clang_disposeString(s);
			if (op[0])
				break;
		}
		vs_clang.clang_disposeTokens(a->tu, t, n);
	}
}

/* c, a plain assignment to a variable of a call's result (through parentheses and
 * casts), as a statement of its own: the call into *call, 1; else 0. */
static int assigned_call(struct an *a, CXCursor c, CXCursor *call)
{
	struct kids ks;
	char op[8] = "";
	int ok = 0;
	kids_of(c, &ks);
	if (ks.n == 2 && vs_clang.clang_getCursorKind(ks.c[0]) == CXCursor_DeclRefExpr) {
		binop(a, c, ks.c[0], ks.c[1], op, sizeof(op));
		CXCursor r = ks.c[1];
		for (int d = 0; d < 8; d++) {
			enum CXCursorKind rk = vs_clang.clang_getCursorKind(r);
			if (rk == CXCursor_CallExpr) {
				ok = !strcmp(op, "=");
				*call = r;
				break;
			}
			struct kids in;
			kids_of(r, &in);
			int one = in.n == 1 && (rk == CXCursor_UnexposedExpr ||
						rk == CXCursor_ParenExpr ||
						rk == CXCursor_CStyleCastExpr);
			CXCursor next = one ? in.c[0] : r;
			kids_release(&in);
			if (!one)
				break;
			r = next;
		}
	}
	kids_release(&ks);
	return ok;
}

static void unop(struct an *a, CXCursor c, char *op, size_t len, int *postfix)
{
	CXToken *t;
	unsigned n;
	op[0] = 0;
	*postfix = 0;
	vs_clang.clang_tokenize(a->tu, vs_clang.clang_getCursorExtent(c), &t, &n);
	if (n) {
		unsigned i = 0;
		if (vs_clang.clang_getTokenKind(t[0]) != CXToken_Punctuation || !strcmp(vs_clang.clang_getCString(vs_clang.clang_getTokenSpelling(a->tu, t[0])), "(")) {
			i = n - 1;
			*postfix = 1;
		}
		CXString s = vs_clang.clang_getTokenSpelling(a->tu, t[i]);
		snprintf(op, len, "%s", vs_clang.clang_getCString(s));
		vs_clang.clang_disposeString(s);
	}
	vs_clang.clang_disposeTokens(a->tu, t, n);
}

/* & and * from the types (works inside macro expansions too), the rest from tokens. */
static void unop_typed(struct an *a, CXCursor c, CXCursor arg, char *op, size_t len, int *post)
{
	enum CXTypeKind rk = vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(c)).kind;
	enum CXTypeKind ak = vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(arg)).kind;
	*post = 0;
	if (rk == CXType_Pointer && ak != CXType_Pointer) {
		snprintf(op, len, "&");
		return;
	}
	if (ak == CXType_Pointer && rk != CXType_Pointer) {
		snprintf(op, len, "*");
		return;
	}
	unop(a, c, op, len, post);
}

static void add_def(struct an *a, unsigned off, int var, const struct iset *uses, int kill)
{
	struct func *f = &a->funcs[a->cur];
	f->defs = realloc(f->defs, (f->ndefs + 1) * sizeof(*f->defs));
	if (!f->defs)
		abort();
	struct def *d = &f->defs[f->ndefs++];
	memset(d, 0, sizeof(*d));
	d->off = off;
	d->var = var;
	d->kill = kill || a->in_init;
	d->ctrl = a->in_ctrl;
	if (uses)
		iset_merge(&d->uses, uses);
}

static void add_memw(struct an *a, unsigned off)
{
	struct func *f = &a->funcs[a->cur];
	f->memw = realloc(f->memw, (f->nmemw + 1) * sizeof(*f->memw));
	if (!f->memw)
		abort();
	f->memw[f->nmemw++] = off;
}

static void walk_expr(struct an *a, CXCursor c, struct iset *uses);
static void walk_stmt(struct an *a, CXCursor c);

static void add_ctrl(struct an *a, CXCursor c)
{
	struct iset u = { 0 };
	int save = a->in_ctrl;
	a->in_ctrl = 1;
	if (vs_clang.clang_getCursorKind(c) == CXCursor_DeclStmt)
		walk_stmt(a, c);
	else
		walk_expr(a, c, &u);
	a->in_ctrl = save;
	struct func *f = &a->funcs[a->cur];
	f->ctrls = realloc(f->ctrls, (f->nctrls + 1) * sizeof(*f->ctrls));
	if (!f->ctrls)
		abort();
	unsigned off;
	loc_of(c, &off, NULL, NULL, NULL);
	f->ctrls[f->nctrls].off = off;
	f->ctrls[f->nctrls].uses = u;
	f->nctrls++;
}

static int is_pointerish(CXCursor c)
{
	enum CXTypeKind k = vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(c)).kind;
	return k == CXType_Pointer || k == CXType_ConstantArray || k == CXType_IncompleteArray ||
	       k == CXType_VariableArray;
}

/* The value of a constant integer expression (literal, macro, enum, sizeof), or 0. */
static int const_int(CXCursor c, long long *v)
{
	CXEvalResult r = vs_clang.clang_Cursor_Evaluate(c);
	if (!r)
		return 0;
	int ok = vs_clang.clang_EvalResult_getKind(r) == CXEval_Int;
	if (ok)
		*v = vs_clang.clang_EvalResult_getAsLongLong(r);
	vs_clang.clang_EvalResult_dispose(r);
	return ok;
}

/*
 * Whether described call k keeps its argument i: memcpy/memset/memmove return their first
 * argument ("int *p = memcpy(&m, ..)" leaves p pointing to m), unless the call is a
 * statement of its own and the result is dropped.
 */
static int ext_keeps(const struct call *k, int i)
{
	if (k->ext->keep & (1u << i))
		return 1;
	return i == 0 && k->ext->ret0 && !k->is_stmt;
}

/* Whether the text of a string literal token holds a %n conversion. */
static int pct_n(const char *p)
{
	for (; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		/* flags, width, precision and length modifiers, then the conversion */
		p += strspn(p, "-+ #0'123456789.*$hlLqjzt");
		if (*p == 'n')
			return 1;
		if (!*p)
			break;
	}
	return 0;
}

/*
 * Whether a printf format may hold a %n conversion: one not a literal may; a literal
 * (libclang 14 does not evaluate one: its tokens are read) when one of its pieces holds
 * %n, or when a macro is among them ("%" PRId64: not looked into).
 */
static int fmt_has_n(struct an *a, CXCursor f)
{
	f = strip(f);
	if (vs_clang.clang_getCursorKind(f) != CXCursor_StringLiteral)
		return 1;
	CXToken *t;
	unsigned n;
	vs_clang.clang_tokenize(a->tu, vs_clang.clang_getCursorExtent(f), &t, &n);
	int has = n == 0;
	for (unsigned i = 0; i < n && !has; i++) {
		CXString sp = vs_clang.clang_getTokenSpelling(a->tu, t[i]);
		has = vs_clang.clang_getTokenKind(t[i]) != CXToken_Literal || pct_n(vs_clang.clang_getCString(sp));
		vs_clang.clang_disposeString(sp);
	}
	vs_clang.clang_disposeTokens(a->tu, t, n);
	return has;
}

/* Whether printf-family call c writes its argument i, a pointer after the format (%n). */
static int fmt_writes(struct an *a, const struct ext_desc *x, CXCursor c, int i, CXCursor arg)
{
	if (!x->fmt || i < x->fmt || !is_pointerish(arg))
		return 0;
	return fmt_has_n(a, vs_clang.clang_Cursor_getArgument(c, x->fmt - 1));
}

static void walk_call(struct an *a, CXCursor c, struct iset *uses)
{
	a->calls = realloc(a->calls, (a->ncalls + 1) * sizeof(*a->calls));
	if (!a->calls)
		abort();
	int ci = a->ncalls++;
	struct call *k = &a->calls[ci];
	memset(k, 0, sizeof(*k));
	k->func = a->cur;
	k->callee = -1;
	k->tu = a->curtu;
	k->loop_depth = a->nloopstack;
	loc_of(c, &k->off, &k->line, &k->col, &k->in_macro);
	extent_of(c, &k->b, &k->e);
	k->is_stmt = a->have_stmt_call && vs_clang.clang_equalCursors(c, a->stmt_call);
	if (k->is_stmt && a->stmt_assign) {
		k->b = a->stmt_b;
		k->e = a->stmt_e;
	}
	a->have_stmt_call = 0;
	CXCursor r = vs_clang.clang_getCursorReferenced(c);
	if (vs_clang.clang_getCursorKind(r) == CXCursor_FunctionDecl) {
		CXString s = vs_clang.clang_getCursorSpelling(r);
		snprintf(k->name, sizeof(k->name), "%s", vs_clang.clang_getCString(s));
		vs_clang.clang_disposeString(s);
		k->ext = ext_find(k->name);
	} else {
		k->indirect = 1;
		snprintf(k->name, sizeof(k->name), "(function pointer)");
	}
	int n = vs_clang.clang_Cursor_getNumArguments(c);
	if (n < 0)
		n = 0;
	k->const_size = -1;
	if (k->ext && k->ext->cls == X_COMPUTE && n == 3 &&
	    !const_int(vs_clang.clang_Cursor_getArgument(c, 2), &k->const_size))
		k->const_size = -1;
	struct iset *args = calloc(n ? n : 1, sizeof(*args));
	long long *cval = calloc(n ? n : 1, sizeof(*cval));
	unsigned cmask = 0;
	if (!args || !cval)
		abort();
	for (int i = 0; i < n && i < 32; i++)
		if (const_int(vs_clang.clang_Cursor_getArgument(c, i), &cval[i]))
			cmask |= 1u << i;
	for (int i = 0; i < n; i++) {
		CXCursor arg = vs_clang.clang_Cursor_getArgument(c, i);
		/* what the callee may write through this argument */
		CXCursor s = strip(arg);
		int target = -1, addr = 0, field = 0;
		if (vs_clang.clang_getCursorKind(s) == CXCursor_UnaryOperator) {
			char op[8];
			int post;
			struct kids ks;
			kids_of(s, &ks);
			if (ks.n == 1)
				unop_typed(a, s, ks.c[0], op, sizeof(op), &post);
			/* &s.f is &s: the call writes into s */
			if (ks.n == 1 && !strcmp(op, "&")) {
				target = field_var(a, ks.c[0]);
				field = target >= 0 && target != plain_var(a, ks.c[0]);
			}
			kids_release(&ks);
			addr = target >= 0;
		} else if (is_pointerish(s)) {
			target = plain_var(a, s);
		}
		unsigned bit = 1u << i;
		/*
		 * &x given to a described call that does not keep the pointer (MPI_Bcast(&n, ..),
		 * MPI_Comm_size(.., &np)) leaves no pointer to x behind: a write through a pointer
		 * cannot change x later, so x is not "address taken" for it (the call's own write
		 * is a definition, below).  PRK's kernels broadcast every size so, and every loop
		 * writing an array made them look changed.  MPI_Irecv keeps its buffer.
		 */
		int kept = addr ? a->vars[target].addr_taken : 0;
		walk_expr(a, arg, &args[i]);
		k = &a->calls[ci];	/* the argument's calls may have moved the table */
		if (addr && k->ext && !ext_keeps(k, i))
			a->vars[target].addr_taken = kept;
		int writes = k->ext ? (k->ext->out & bit) || fmt_writes(a, k->ext, c, i, s)
				    : is_pointerish(s);
		if (!writes)
			continue;
		struct iset w = { 0 };
		iset_add(&w, k->ext && (k->ext->taint & bit) ? TOK_TAINT : TOK_VARY);
		if (field)
			iset_add(&w, target);	/* the other members keep their values */
		if (target >= 0 && !is_pointerish(vs_clang.clang_getCursorReferenced(strip(s))))
			add_def(a, k->off, target, &w, 0);
		else
			add_memw(a, k->off);
		iset_free(&w);
	}
	/* cursor args may have added calls: re-find ours */
	k = &a->calls[ci];
	if (k->ext && k->ext->completes)
		add_memw(a, k->off);
	k->args = args;
	k->nargs = n;
	k->const_val = cval;
	k->const_mask = cmask;
	struct func *f = &a->funcs[a->cur];
	f->calls = realloc(f->calls, (f->ncalls + 1) * sizeof(int));
	if (!f->calls)
		abort();
	f->calls[f->ncalls++] = ci;
	if (uses) {
		if (k->ext && k->ext->value_fixed) {
			for (int i = 0; i < n; i++)
				iset_merge(uses, &args[i]);
		} else {
			/* a value nothing is known about, but made from the arguments' variables:
			 * "w = share(rank)" is the rank's (taint_fixpoint), as "w = (rank + 1) *
			 * k" is (the usability review of 2026-11-29, H2: a per-rank share through
			 * a helper was compared across ranks, and a clean run read a whole-run
			 * event on the rank with twice the work) */
			iset_add(uses, TOK_VARY);
			for (int i = 0; i < n; i++)
				for (int j = 0; j < args[i].n; j++)
					if (args[i].v[j] >= 0 || args[i].v[j] == TOK_TAINT)
						iset_add(uses, args[i].v[j]);
		}
	}
}

static void walk_expr(struct an *a, CXCursor c, struct iset *uses)
{
	struct iset dummy = { 0 };
	if (!uses)
		uses = &dummy;
	struct kids ks;
	kids_of(c, &ks);
	char op[8];
	int post, v;
	unsigned off;
	loc_of(c, &off, NULL, NULL, NULL);
	a->nexpr++;
	switch (vs_clang.clang_getCursorKind(c)) {
	case CXCursor_DeclRefExpr: {
		CXCursor r = vs_clang.clang_getCursorReferenced(c);
		enum CXCursorKind k = vs_clang.clang_getCursorKind(r);
		if (k == CXCursor_VarDecl || k == CXCursor_ParmDecl)
			iset_add(uses, var_id(a, r));
		break;
	}
	case CXCursor_ArraySubscriptExpr:
		iset_add(uses, TOK_MEM);
		for (int i = 0; i < ks.n; i++)
			walk_expr(a, ks.c[i], uses);
		break;
	case CXCursor_MemberRefExpr:
		if (ks.n && vs_clang.clang_getCanonicalType(vs_clang.clang_getCursorType(ks.c[0])).kind == CXType_Pointer)
			iset_add(uses, TOK_MEM);
		for (int i = 0; i < ks.n; i++)
			walk_expr(a, ks.c[i], uses);
		break;
	case CXCursor_UnaryOperator:
		if (ks.n != 1)
			break;
		unop_typed(a, c, ks.c[0], op, sizeof(op), &post);
		if (!strcmp(op, "*")) {
			iset_add(uses, TOK_MEM);
			walk_expr(a, ks.c[0], uses);
		} else if (!strcmp(op, "&")) {
			/* &p.n takes p's address: p.n's neighbours are reachable from it */
			v = field_var(a, ks.c[0]);
			if (v >= 0)
				a->vars[v].addr_taken = 1;
			else
				walk_expr(a, ks.c[0], uses);
		} else if (!strcmp(op, "++") || !strcmp(op, "--")) {
			v = field_var(a, ks.c[0]);
			if (v >= 0) {
				struct iset u = { 0 };
				iset_add(&u, v);
				add_def(a, off, v, &u, 0);
				iset_free(&u);
				iset_add(uses, v);
			} else {
				add_memw(a, off);
				walk_expr(a, ks.c[0], uses);
			}
		} else {
			walk_expr(a, ks.c[0], uses);
		}
		break;
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		if (ks.n != 2)
			break;
		binop(a, c, ks.c[0], ks.c[1], op, sizeof(op));
		if (vs_clang.clang_getCursorKind(c) == CXCursor_CompoundAssignOperator || !strcmp(op, "=")) {
			struct iset r = { 0 };
			int compound = strcmp(op, "=") != 0;
			walk_expr(a, ks.c[1], &r);
			/*
			 * "p.n = it" on a struct held by value changes p: a definition of p,
			 * its other members kept (p's old value is a use)
			 */
			v = field_var(a, ks.c[0]);
			if (v >= 0) {
				if (compound || v != plain_var(a, ks.c[0]))
					iset_add(&r, v);
				add_def(a, off, v, &r, 0);
			} else {
				add_memw(a, off);
				walk_expr(a, ks.c[0], compound ? &r : NULL);
			}
			iset_merge(uses, &r);
			iset_free(&r);
		} else {
			walk_expr(a, ks.c[0], uses);
			walk_expr(a, ks.c[1], uses);
		}
		break;
	case CXCursor_CallExpr:
		walk_call(a, c, uses);
		break;
	case CXCursor_ConditionalOperator:
		if (ks.n == 3) {
			add_ctrl(a, ks.c[0]);
			for (int i = 0; i < 3; i++)
				walk_expr(a, ks.c[i], uses);
		}
		break;
	case CXCursor_StmtExpr:
		for (int i = 0; i < ks.n; i++)
			walk_stmt(a, ks.c[i]);
		iset_add(uses, TOK_VARY);
		break;
	case CXCursor_UnaryExpr: {
		/*
		 * sizeof(buf) does not read buf: with "buf.cutoff = pot->cutoff" a definition of
		 * buf, CoMD's bcastParallel(&buf, sizeof(buf), 0) read memory.  A variable
		 * length array's sizeof is not a constant: its operand's size is walked.
		 */
		long long cv;
		if (const_int(c, &cv))
			break;
		for (int i = 0; i < ks.n; i++)
			walk_expr(a, ks.c[i], uses);
		break;
	}
	default:
		for (int i = 0; i < ks.n; i++)
			walk_expr(a, ks.c[i], uses);
		break;
	}
	kids_release(&ks);
	iset_free(&dummy);
}

static int new_loop(struct an *a, CXCursor c, const char *what)
{
	struct func *f = &a->funcs[a->cur];
	f->loops = realloc(f->loops, (f->nloops + 1) * sizeof(*f->loops));
	if (!f->loops)
		abort();
	struct loop *l = &f->loops[f->nloops];
	memset(l, 0, sizeof(*l));
	extent_of(c, &l->b, &l->e);
	loc_of(c, NULL, &l->line, &l->col, &l->in_macro);
	snprintf(l->what, sizeof(l->what), "%s", what);
	l->loop_depth = a->nloopstack;
	l->trip = -1;
	if (a->nloopstack < 64)
		a->loopstack[a->nloopstack++] = f->nloops;
	return f->nloops++;
}

/* Offset of the first ';' of a for header: children ending before it are the init. */
static unsigned for_first_semi(struct an *a, CXCursor c, CXCursor body)
{
	CXToken *t;
	unsigned n, res = ~0u;
	/* the header only: tokenizing the body too made big loops quadratic */
	vs_clang.clang_tokenize(a->tu, vs_clang.clang_getRange(vs_clang.clang_getRangeStart(vs_clang.clang_getCursorExtent(c)),
					     vs_clang.clang_getRangeStart(vs_clang.clang_getCursorExtent(body))), &t, &n);
	for (unsigned i = 0; i < n; i++) {
		CXString s = vs_clang.clang_getTokenSpelling(a->tu, t[i]);
		int semi = !strcmp(vs_clang.clang_getCString(s), ";");
		vs_clang.clang_disposeString(s);
		if (semi) {
			vs_clang.clang_getExpansionLocation(vs_clang.clang_getTokenLocation(a->tu, t[i]), NULL, NULL, NULL, &res);
			break;
		}
	}
	vs_clang.clang_disposeTokens(a->tu, t, n);
	return res;
}

/*
 * Iterations of "for (i = A; i < B; i++)" (also <=, > and >= with --) when A and B
 * are constants, else -1.  Only this shape: it is what makes a snippet's work small
 * and known before it runs (see too_small).
 */
static long for_trip(struct an *a, const struct kids *ks)
{
	if (ks->n != 4)
		return -1;
	long long from = 0, to = 0;
	int var = -1;
	CXCursor init = ks->c[0], cond = ks->c[1], inc = ks->c[2];
	struct kids k;
	kids_of(init, &k);
	if (vs_clang.clang_getCursorKind(init) == CXCursor_DeclStmt && k.n == 1 &&
	    vs_clang.clang_getCursorKind(k.c[0]) == CXCursor_VarDecl) {
		struct kids in;
		kids_of(k.c[0], &in);
		if (in.n >= 1 && vs_clang.clang_isExpression(vs_clang.clang_getCursorKind(in.c[in.n - 1])) &&
		    const_int(in.c[in.n - 1], &from))
			var = var_id(a, k.c[0]);
		kids_release(&in);
	} else if (vs_clang.clang_getCursorKind(init) == CXCursor_BinaryOperator && k.n == 2) {
		char op[8];
		binop(a, init, k.c[0], k.c[1], op, sizeof(op));
		if (!strcmp(op, "=") && const_int(k.c[1], &from))
			var = plain_var(a, k.c[0]);
	}
	kids_release(&k);
	if (var < 0)
		return -1;
	char cop[8] = "", iop[8] = "";
	int post;
	kids_of(cond, &k);
	if (vs_clang.clang_getCursorKind(cond) == CXCursor_BinaryOperator && k.n == 2 &&
	    plain_var(a, k.c[0]) == var && const_int(k.c[1], &to))
		binop(a, cond, k.c[0], k.c[1], cop, sizeof(cop));
	kids_release(&k);
	kids_of(inc, &k);
	if (vs_clang.clang_getCursorKind(inc) == CXCursor_UnaryOperator && k.n == 1 && plain_var(a, k.c[0]) == var)
		unop(a, inc, iop, sizeof(iop), &post);
	kids_release(&k);
	long long n = -1;
	if (!strcmp(iop, "++") && !strcmp(cop, "<"))
		n = to - from;
	else if (!strcmp(iop, "++") && !strcmp(cop, "<="))
		n = to - from + 1;
	else if (!strcmp(iop, "--") && !strcmp(cop, ">"))
		n = from - to;
	else if (!strcmp(iop, "--") && !strcmp(cop, ">="))
		n = from - to + 1;
	else
		return -1;
	return n < 0 ? 0 : n > 1000000000 ? 1000000000 : n;
}

static void walk_stmt(struct an *a, CXCursor c)
{
	struct kids ks;
	kids_of(c, &ks);
	enum CXCursorKind k = vs_clang.clang_getCursorKind(c);
	switch (k) {
	case CXCursor_ForStmt: {
		unsigned semi = ks.n ? for_first_semi(a, c, ks.c[ks.n - 1]) : ~0u;
		int li = new_loop(a, c, "for"), e0 = a->nexpr;
		for (int i = 0; i + 1 < ks.n; i++) {
			unsigned b, e;
			extent_of(ks.c[i], &b, &e);
			a->in_init = e <= semi;
			add_ctrl(a, ks.c[i]);
			a->in_init = 0;
		}
		if (ks.n)
			walk_stmt(a, ks.c[ks.n - 1]);
		a->nloopstack--;
		a->funcs[a->cur].loops[li].ops = a->nexpr - e0;
		a->funcs[a->cur].loops[li].trip = for_trip(a, &ks);
		break;
	}
	case CXCursor_WhileStmt:
		new_loop(a, c, "while");
		if (ks.n == 2) {
			add_ctrl(a, ks.c[0]);
			walk_stmt(a, ks.c[1]);
		}
		a->nloopstack--;
		break;
	case CXCursor_DoStmt:
		new_loop(a, c, "do");
		if (ks.n == 2) {
			walk_stmt(a, ks.c[0]);
			add_ctrl(a, ks.c[1]);
		}
		a->nloopstack--;
		break;
	case CXCursor_IfStmt:
	case CXCursor_SwitchStmt:
		if (ks.n)
			add_ctrl(a, ks.c[0]);
		for (int i = 1; i < ks.n; i++)
			walk_stmt(a, ks.c[i]);
		break;
	case CXCursor_ReturnStmt:
	case CXCursor_GotoStmt:
	case CXCursor_IndirectGotoStmt:
		for (int i = 0; i < a->nloopstack; i++)
			a->funcs[a->cur].loops[a->loopstack[i]].exits = 1;
		for (int i = 0; i < ks.n; i++)
			walk_expr(a, ks.c[i], NULL);
		break;
	case CXCursor_DeclStmt:
		for (int i = 0; i < ks.n; i++) {
			if (vs_clang.clang_getCursorKind(ks.c[i]) != CXCursor_VarDecl)
				continue;
			int v = var_id(a, ks.c[i]);
			struct kids in;
			kids_of(ks.c[i], &in);
			struct iset u = { 0 };
			for (int j = 0; j < in.n; j++)
				if (vs_clang.clang_isExpression(vs_clang.clang_getCursorKind(in.c[j])))
					walk_expr(a, in.c[j], &u);
			kids_release(&in);
			if (a->vars[v].func >= 0) {
				unsigned off;
				loc_of(ks.c[i], &off, NULL, NULL, NULL);
				add_def(a, off, v, &u, 1);
			}
			iset_free(&u);
		}
		break;
	case CXCursor_CompoundStmt:
	case CXCursor_LabelStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		for (int i = 0; i < ks.n; i++)
			walk_stmt(a, ks.c[i]);
		break;
	default:
		if (vs_clang.clang_isExpression(k)) {
			CXCursor call;
			a->stmt_assign = 0;
			if (k == CXCursor_CallExpr) {
				a->stmt_call = c;
				a->have_stmt_call = 1;
			} else if (k == CXCursor_BinaryOperator && assigned_call(a, c, &call)) {
				/* `ierr = MPI_Waitall(...);`: the whole statement is wrapped
				 * (the trial of 2026-11-30: every MPI call of miniWeather read
				 * "call inside an expression", no network sensor) */
				a->stmt_call = call;
				a->have_stmt_call = 1;
				a->stmt_assign = 1;
				extent_of(c, &a->stmt_b, &a->stmt_e);
			}
			walk_expr(a, c, NULL);
			a->have_stmt_call = 0;
			a->stmt_assign = 0;
		} else {
			for (int i = 0; i < ks.n; i++)
				walk_stmt(a, ks.c[i]);
		}
		break;
	}
	kids_release(&ks);
}

/* A function c of the main unit defined in another file: counted when that file is a .c
 * file (an #include of the program's own source; a header's inline functions are not). */
static void note_included(struct vs_analysis *res, CXCursor c, struct func *fn)
{
	CXFile f = NULL;
	vs_clang.clang_getExpansionLocation(vs_clang.clang_getCursorLocation(c), &f, NULL, NULL,
					    NULL);
	if (!f)
		return;
	CXString n = vs_clang.clang_getFileName(f);
	const char *name = vs_clang.clang_getCString(n);
	size_t len = name ? strlen(name) : 0;
	if (len > 2 && !strcmp(name + len - 2, ".c")) {
		if (!res->included++)
			snprintf(res->included_file, sizeof(res->included_file), "%s", name);
	} else if (name && strncmp(name, "/usr/", 5)) {
		/* the program's own header: its loops are never candidates (candidates), said
		 * (the trial of 2026-11-29: minisweep keeps its kernels in headers, and list
		 * read "0 candidates, 0 sensors" file after file, no word why) */
		fn->local_header = 1;
		if (!res->header_file[0])
			snprintf(res->header_file, sizeof(res->header_file), "%s", name);
	}
	vs_clang.clang_disposeString(n);
}

/* &x in a file-scope initializer (int *np = &n;): x's address is taken as much as in a
 * function body (walk_expr), which the sealed globals of unknown_writer rest on. */
static enum CXChildVisitResult init_addr_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	struct an *a = d;
	(void)parent;
	if (vs_clang.clang_getCursorKind(c) == CXCursor_UnaryOperator) {
		struct kids ks;
		kids_of(c, &ks);
		char op[8];
		int post, v;
		if (ks.n == 1) {
			unop_typed(a, c, ks.c[0], op, sizeof(op), &post);
			if (!strcmp(op, "&") && (v = field_var(a, ks.c[0])) >= 0)
				a->vars[v].addr_taken = 1;
		}
		kids_release(&ks);
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult top_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	struct an *a = d;
	if (vs_clang.clang_getCursorKind(c) == CXCursor_VarDecl) {
		/* its definition seen (var_defined_here), used in a function of this file or
		 * not: a file of definitions alone (globals.c) left its globals undefined (the
		 * code review of 2026-11-29) */
		a->cur = -1;
		var_id(a, c);
		vs_clang.clang_visitChildren(c, init_addr_cb, a);
		return CXChildVisit_Continue;
	}
	if (vs_clang.clang_getCursorKind(c) != CXCursor_FunctionDecl || !vs_clang.clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	CXString s = vs_clang.clang_getCursorSpelling(c);
	int fi = func_id(a, vs_clang.clang_getCString(s), a->curtu, vs_clang.clang_Cursor_getStorageClass(c) == CX_SC_Static);
	vs_clang.clang_disposeString(s);
	struct func *f = &a->funcs[fi];
	if (f->defined) {
		/* An external function defined again in another unit's own text: files of more
		 * than one program, said (the first definition is the one analysed).  HPCC's
		 * STREAM directory holds stream_mpi.c, with its own main: taken first, its main
		 * left hpcc.c's calls unseen, silently (the trial of 2026-11-29, F4). */
		if (!f->is_static && f->own && f->tu != a->curtu && a->res &&
		    !vs_clang.clang_Cursor_isFunctionInlined(c) &&
		    vs_clang.clang_Location_isFromMainFile(vs_clang.clang_getCursorLocation(c)) &&
		    !a->res->nduplicate++)
			snprintf(a->res->duplicate, sizeof(a->res->duplicate),
				 "%s is defined in %s and in %s", f->name,
				 f->tu < 256 ? a->files[f->tu] : "?",
				 a->curtu < 256 ? a->files[a->curtu] : "?");
		return CXChildVisit_Continue;
	}
	f->defined = 1;
	f->own = vs_clang.clang_Location_isFromMainFile(vs_clang.clang_getCursorLocation(c));
	if (!f->own && a->curtu == 0 && a->res)
		note_included(a->res, c, f);
	f->in_main = a->curtu == 0 && f->own;
	extent_of(c, &f->b, &f->e);
	f->nparams = vs_clang.clang_Cursor_getNumArguments(c);
	a->cur = fi;
	a->nloopstack = 0;
	for (int i = 0; i < f->nparams; i++)
		var_id(a, vs_clang.clang_Cursor_getArgument(c, i));
	struct kids ks;
	kids_of(c, &ks);
	int e0 = a->nexpr;
	for (int i = 0; i < ks.n; i++)
		if (vs_clang.clang_getCursorKind(ks.c[i]) == CXCursor_CompoundStmt)
			walk_stmt(a, ks.c[i]);
	f = &a->funcs[fi];
	f->ops = a->nexpr - e0;
	kids_release(&ks);
	a->cur = -1;
	return CXChildVisit_Continue;
}

/*
 * Functions whose address is taken.  A function named anywhere but as the callee of a
 * call (double (*fp)(int) = kern; a table of handlers; an argument) can be called
 * through the pointer from sites the call table does not hold, with other arguments:
 * its visible call sites are not all of its context.  libclang gives no parent of an
 * expression, so count per unit the references to each function and the direct calls
 * naming it: more references than calls means one is not a callee.
 */
static struct fcount *fcount_of(struct an *a, const char *name, int internal)
{
	for (int i = 0; i < a->nfc; i++)
		if (!strcmp(a->fc[i].name, name))
			return &a->fc[i];
	a->fc = grow(a->fc, a->nfc, &a->capfc, sizeof(*a->fc));
	struct fcount *c = &a->fc[a->nfc++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->internal = internal;
	return c;
}

static enum CXChildVisitResult ref_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	struct an *a = d;
	enum CXCursorKind k = vs_clang.clang_getCursorKind(c);
	(void)parent;
	if (k != CXCursor_DeclRefExpr && k != CXCursor_CallExpr)
		return CXChildVisit_Recurse;
	CXCursor r = vs_clang.clang_getCursorReferenced(c);
	if (vs_clang.clang_getCursorKind(r) != CXCursor_FunctionDecl)
		return CXChildVisit_Recurse;
	CXString s = vs_clang.clang_getCursorSpelling(r);
	struct fcount *fc = fcount_of(a, vs_clang.clang_getCString(s), vs_clang.clang_getCursorLinkage(r) == CXLinkage_Internal);
	vs_clang.clang_disposeString(s);
	if (k == CXCursor_CallExpr)
		fc->calls++;
	else
		fc->refs++;
	return CXChildVisit_Recurse;
}

static void find_frefs(struct an *a)
{
	a->nfc = 0;
	vs_clang.clang_visitChildren(vs_clang.clang_getTranslationUnitCursor(a->tu), ref_cb, a);
	for (int i = 0; i < a->nfc; i++) {
		if (a->fc[i].refs <= a->fc[i].calls)
			continue;
		a->frefs = grow(a->frefs, a->nfrefs, &a->capfrefs, sizeof(*a->frefs));
		struct fref *r = &a->frefs[a->nfrefs++];
		snprintf(r->name, sizeof(r->name), "%s", a->fc[i].name);
		r->tu = a->curtu;
		r->internal = a->fc[i].internal;
	}
}

/* After every unit is walked: the definitions the references name (as resolve_calls). */
static void mark_frefs(struct an *a)
{
	for (int i = 0; i < a->nfrefs; i++) {
		const struct fref *r = &a->frefs[i];
		int g = func_find(a, r->name, r->tu, !r->internal);
		if (g >= 0 && a->funcs[g].defined)
			a->funcs[g].addr_taken = 1;
	}
}

/* ---- pass 2: summaries ---- */

static int in(unsigned off, unsigned b, unsigned e)
{
	return off >= b && off < e;
}

/*
 * Calls whose time is the wait for a peer: a completion (MPI_Wait*) takes as long as
 * the matched message takes to arrive, a blocking receive as long as its sender takes to
 * send.  Their work is fixed (the message's size), their time is not: it is the
 * partner's arrival, i.e. the other rank's compute, skew and load.  In PRK Stencil the
 * first MPI_Wait of each pair took 40 us to 1.9 s in a clean run and decided the network
 * cells (88% of them under 0.5).  Not a sensor, nor a snippet that makes one in its own
 * body or through the functions it calls (func.waits; doc/sonde-vsensor.md, "Waiting
 * calls").  Collectives and MPI_Sendrecv wait too,
 * but move data themselves: kept, judged by their fastest 1-ms average (vsrt.c).
 */
static const char *const wait_calls[] = { "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
					  "MPI_Recv" };

static const char *waiting_call(const char *name)
{
	for (size_t i = 0; i < sizeof(wait_calls) / sizeof(wait_calls[0]); i++)
		if (!strcmp(name, wait_calls[i]))
			return wait_calls[i];
	return NULL;
}

/* The waiting call call k is or makes (in its callee, summarized); NULL if none. */
static const char *call_waits(const struct an *a, const struct call *k)
{
	const char *w = waiting_call(k->name);
	if (!w && k->callee >= 0 && a->funcs[k->callee].state == 2)
		w = a->funcs[k->callee].waits;
	return w;
}

/* The waiting call c is or makes, or the first one in c's own body, directly or through
 * the functions it calls (a wrapper around MPI_Recv waits as long), into buf as
 * "MPI_Recv" or "MPI_Recv through recv_only"; NULL if none. */
static const char *cand_waits(const struct an *a, const struct vs_cand *c, char *buf, size_t size)
{
	for (int q = 0; q < a->ncalls; q++) {
		const struct call *k = &a->calls[q];
		const char *w;
		if (k->func != c->fi || !(c->is_loop ? in(k->off, c->begin, c->end) : k->off == c->begin) ||
		    !(w = call_waits(a, k)))
			continue;
		if (!strcmp(w, k->name))
			snprintf(buf, size, "%s", w);
		else
			snprintf(buf, size, "%s through %s", w, k->name);
		return buf;
	}
	return !c->is_loop ? waiting_call(c->what) : NULL;
}

static void summarize(struct an *a, int fi);

/* What the work of call k reads, in the caller's variables. */
static void call_work(struct an *a, const struct call *k, struct iset *out)
{
	if (k->indirect) {
		iset_add(out, TOK_VARY);
		if (!a->vary_why[0])
			snprintf(a->vary_why, sizeof(a->vary_why), "calls through a function pointer (line %d)", k->line);
		return;
	}
	if (k->callee >= 0 && a->funcs[k->callee].defined) {
		struct func *g = &a->funcs[k->callee];
		if (g->state == 1 || a->reach[k->callee][k->func]) {
			iset_add(out, TOK_VARY);
			if (!a->vary_why[0])
				snprintf(a->vary_why, sizeof(a->vary_why), "recursive call to %s (line %d)", k->name, k->line);
			return;
		}
		summarize(a, k->callee);
		for (int i = 0; i < g->deps.n; i++) {
			int d = g->deps.v[i];
			if (d <= PARAM_TOK(0)) {
				int p = -(d + 100);
				if (p < k->nargs)
					iset_merge(out, &k->args[p]);
			} else {
				iset_add(out, d);
				if (d == TOK_VARY && !a->vary_why[0])
					snprintf(a->vary_why, sizeof(a->vary_why), "calls %.30s (line %d), whose work is not fixed: %.100s",
						 k->name, k->line, g->why);
			}
		}
		if (g->tainted)
			iset_add(out, TOK_TAINT);
		return;
	}
	if (k->ext && k->ext->vary) {
		iset_add(out, TOK_VARY);
		if (!a->vary_why[0])
			snprintf(a->vary_why, sizeof(a->vary_why), "calls %s, whose time is not fixed (line %d)", k->name, k->line);
		return;
	}
	if (k->ext) {
		for (int i = 0; i < k->nargs && i < 32; i++) {
			if (k->ext->work & (1u << i))
				iset_merge(out, &k->args[i]);
			if (!(k->ext->peer & (1u << i)))
				continue;
			for (int j = 0; j < k->args[i].n; j++) {
				int u = k->args[i].v[j];
				if (u == TOK_TAINT || (u >= 0 && a->vars[u].tainted))
					iset_add(out, TOK_TAINT);
			}
		}
		return;
	}
	iset_add(out, TOK_VARY);
	if (!a->vary_why[0])
		snprintf(a->vary_why, sizeof(a->vary_why), "calls %s, an undescribed external function (line %d)", k->name, k->line);
}

/*
 * Follow seeds backwards through the defs of f inside [b, e).  A variable is a leaf
 * (its value comes from outside the range) when no def in the range kills it.
 */
static void closure(struct an *a, int fi, unsigned b, unsigned e, const struct iset *seeds,
		    struct iset *leaves)
{
	struct func *f = &a->funcs[fi];
	struct iset work = { 0 };
	iset_merge(&work, seeds);
	for (int w = 0; w < work.n; w++) {
		int v = work.v[w];
		if (v < 0) {
			iset_add(leaves, v);
			continue;
		}
		int killed = 0, any = 0;
		for (int i = 0; i < f->ndefs; i++) {
			struct def *d = &f->defs[i];
			if (d->var != v || !in(d->off, b, e))
				continue;
			any = 1;
			killed |= d->kill;
			for (int j = 0; j < d->uses.n; j++)
				iset_add(&work, d->uses.v[j]);
		}
		if (!any || !killed)
			iset_add(leaves, v);
	}
	iset_free(&work);
}

/*
 * Does a range's work depend on the rank?  Only through its leaves: a variable killed
 * inside the range (a loop index set by its for) gets its values there, from defs
 * whose uses closure followed; that the same variable is set from the rank elsewhere
 * in the function (the flow-insensitive flag) says nothing about this range.  NPB IS
 * reuses i for a loop from a rank-dependent bound, which made its fixed loops "rank".
 */
static int leaves_tainted(struct an *a, const struct iset *leaves)
{
	for (int i = 0; i < leaves->n; i++) {
		int v = leaves->v[i];
		if (v == TOK_TAINT || (v >= 0 && a->vars[v].tainted))
			return 1;
	}
	return 0;
}

/* Work seeds of the range [b, e) of f: control expressions and calls inside. */
static void range_seeds(struct an *a, int fi, unsigned b, unsigned e, struct iset *seeds)
{
	struct func *f = &a->funcs[fi];
	for (int i = 0; i < f->nctrls; i++)
		if (in(f->ctrls[i].off, b, e))
			iset_merge(seeds, &f->ctrls[i].uses);
	for (int i = 0; i < f->ncalls; i++) {
		struct call *k = &a->calls[f->calls[i]];
		if (in(k->off, b, e))
			call_work(a, k, seeds);
	}
}

/* Content of [b, e): computation, network, IO. */
static int at_call(struct an *a, struct func *f, unsigned off)
{
	for (int i = 0; i < f->ncalls; i++)
		if (a->calls[f->calls[i]].off == off)
			return 1;
	return 0;
}

static void range_content(struct an *a, int fi, unsigned b, unsigned e, int *work, int *net, int *io)
{
	struct func *f = &a->funcs[fi];
	/* what calls write through their arguments is the calls' own work, judged below */
	for (int i = 0; i < f->ndefs; i++)
		if (in(f->defs[i].off, b, e) && !f->defs[i].ctrl && !at_call(a, f, f->defs[i].off))
			*work = 1;
	for (int i = 0; i < f->nmemw; i++)
		if (in(f->memw[i], b, e) && !at_call(a, f, f->memw[i]))
			*work = 1;
	for (int i = 0; i < f->ncalls; i++) {
		struct call *k = &a->calls[f->calls[i]];
		if (!in(k->off, b, e))
			continue;
		if (k->callee >= 0 && a->funcs[k->callee].defined && a->funcs[k->callee].state == 2) {
			struct func *g = &a->funcs[k->callee];
			*work |= g->has_work;
			*net |= g->has_net;
			*io |= g->has_io;
		} else if (k->ext) {
			*work |= k->ext->cls == X_PURE || k->ext->cls == X_COMPUTE || k->ext->cls == X_LIBC;
			*net |= k->ext->cls == X_NET;
			*io |= k->ext->cls == X_IO;
		} else {
			*work = 1;
		}
	}
}

static void summarize(struct an *a, int fi)
{
	struct func *f = &a->funcs[fi];
	if (f->state)
		return;
	f->state = 1;
	struct iset seeds = { 0 }, leaves = { 0 };
	char saved[sizeof(a->vary_why)];
	memcpy(saved, a->vary_why, sizeof(saved));
	a->vary_why[0] = 0;
	range_seeds(a, fi, f->b, f->e, &seeds);
	snprintf(f->why, sizeof(f->why), "%s", a->vary_why);
	memcpy(a->vary_why, saved, sizeof(saved));
	closure(a, fi, f->b, f->e, &seeds, &leaves);
	for (int i = 0; i < leaves.n; i++) {
		int v = leaves.v[i];
		if (v < 0)
			iset_add(&f->deps, v);
		else if (a->vars[v].func < 0)
			iset_add(&f->deps, v);
		else if (a->vars[v].param >= 0)
			iset_add(&f->deps, PARAM_TOK(a->vars[v].param));
		/* other locals: read before set; treated as fixed garbage */
	}
	f->tainted = leaves_tainted(a, &leaves);
	for (int i = 0; i < f->ndefs; i++)
		if (f->defs[i].var >= 0 && a->vars[f->defs[i].var].func < 0)
			iset_add(&f->mod, f->defs[i].var);
	f->writes_mem = f->nmemw > 0;
	for (int i = 0; i < f->ncalls; i++) {
		struct call *k = &a->calls[f->calls[i]];
		if (k->indirect || (k->callee >= 0 && a->reach[k->callee][fi]) ||
		    (k->callee < 0 && !k->ext)) {
			f->unknown = 1;
		} else if (k->callee >= 0) {
			summarize(a, k->callee);
			struct func *g = &a->funcs[k->callee];
			iset_merge(&f->mod, &g->mod);
			f->writes_mem |= g->writes_mem;
			f->unknown |= g->unknown;
		}
	}
	range_content(a, fi, f->b, f->e, &f->has_work, &f->has_net, &f->has_io);
	/* a recursive call's callee is not summarized yet: its own waits are seen there */
	for (int i = 0; i < f->ncalls && !f->waits; i++)
		f->waits = call_waits(a, &a->calls[f->calls[i]]);
	iset_free(&seeds);
	iset_free(&leaves);
	f->state = 2;
}

/* Does the set of globals m (a function's mod) hold one whose address is taken? */
static int mods_addr_taken(const struct an *a, const struct iset *m)
{
	for (int i = 0; i < m->n; i++)
		if (m->v[i] >= 0 && a->vars[m->v[i]].addr_taken)
			return 1;
	return 0;
}

/* A call whose effects the analysis does not know: through a pointer, to an undescribed
 * function not defined in the files, or to one that reaches such code. */
static int call_unknown(const struct an *a, const struct call *k)
{
	return k->indirect || (k->callee < 0 && !k->ext) ||
	       (k->callee >= 0 && a->funcs[k->callee].unknown);
}

static void loop_effects(struct an *a, int fi)
{
	struct func *f = &a->funcs[fi];
	for (int l = 0; l < f->nloops; l++) {
		struct loop *lp = &f->loops[l];
		for (int i = 0; i < f->nmemw; i++)
			lp->memwrite |= in(f->memw[i], lp->b, lp->e);
		for (int i = 0; i < f->ncalls; i++) {
			struct call *k = &a->calls[f->calls[i]];
			if (!in(k->off, lp->b, lp->e))
				continue;
			if (call_unknown(a, k))
				lp->unknown_call = lp->memwrite = 1;
			else if (k->callee >= 0 && a->funcs[k->callee].writes_mem)
				lp->memwrite = 1;
			else if (k->callee >= 0 && mods_addr_taken(a, &a->funcs[k->callee].mod))
				lp->memwrite = 1;
		}
		/* A direct write of a variable whose address is taken writes memory that a
		 * read through a pointer may see: the usability review of 2026-11-28 had
		 * "p.n = ..; work_p(&p)" and "k = ..;" read through a global pointer to k
		 * selected as fixed work (their loops' bounds, p->n and *np_ptr, read memory
		 * that no write through a pointer changed). */
		for (int i = 0; i < f->ndefs && !lp->memwrite; i++) {
			const struct def *d = &f->defs[i];
			lp->memwrite = d->var >= 0 && !d->kill && a->vars[d->var].addr_taken &&
				       in(d->off, lp->b, lp->e);
		}
	}
}

/* Does program function g, or one it calls (directly: reach, not through pointers), assign
 * global v?  From the functions' own assignments, whole even where a recursion left a mod
 * set short. */
static int func_writes(const struct an *a, int g, int v)
{
	for (int w = 0; w < a->nfuncs; w++) {
		if (w != g && !a->reach[g][w])
			continue;
		const struct func *h = &a->funcs[w];
		for (int i = 0; i < h->ndefs; i++)
			if (h->defs[i].var == v)
				return 1;
	}
	return 0;
}

/* Does a function of the files that unknown code may call write global v: one whose
 * address is taken (a library may call it back, a pointer call reach it), and where the
 * files are not the whole program, any external one (another file's code may call it). */
static int callback_writes(struct an *a, int v)
{
	struct var *x = &a->vars[v];
	for (int g = 0; g < a->nfuncs && !x->cb_written; g++)
		if (a->funcs[g].defined && (a->funcs[g].addr_taken ||
		    (!a->closed && !a->funcs[g].is_static)) && func_writes(a, g, v))
			x->cb_written = 2;
	if (!x->cb_written)
		x->cb_written = 1;
	return x->cb_written == 2;
}

/*
 * The first call in loop l of f that may write global v without the analysis seeing it,
 * NULL none.  Any unknown call may, unless v is sealed: its address never taken, and it is
 * static or the files are the whole program (--with) and define it.  Then unknown code
 * cannot name it and writes it only through a function of the files it may call that does
 * (callback_writes).  The trial of 2026-11-29: miniAMR's every kernel loop was refused for
 * globals that main() alone sets, as a loop around them called MPI.
 */
static const struct call *unknown_writer(struct an *a, const struct func *f,
					 const struct loop *l, int v)
{
	const struct var *x = &a->vars[v];
	/* a static global: only its own file names it, and that file is analysed (the code
	 * review of 2026-11-29: a static comparator's counter, called back through qsort,
	 * bounded a sensor's loop: static globals were not asked at all) */
	int sealed = !x->addr_taken && (x->is_static || (a->closed && x->defined));
	for (int i = 0; i < f->ncalls; i++) {
		const struct call *k = &a->calls[f->calls[i]];
		if (!in(k->off, l->b, l->e))
			continue;
		/* (a function of the files reaching unknown code: whether it or one it
		 * calls assigns v too) */
		if (call_unknown(a, k) && (!sealed || callback_writes(a, v) ||
					   (k->callee >= 0 && func_writes(a, k->callee, v))))
			return k;
	}
	return NULL;
}

/* Is v changed inside loop l of f?  why gets a short explanation. */
static int changed_in(struct an *a, int fi, const struct loop *l, int v, char *why, size_t len)
{
	struct func *f = &a->funcs[fi];
	if (v == TOK_TAINT)
		return 0;
	if (v == TOK_VARY) {
		snprintf(why, len, "%s", a->vary_why[0] ? a->vary_why : "depends on a call's result");
		return 1;
	}
	if (v == TOK_MEM) {
		if (l->memwrite)
			snprintf(why, len, "reads memory that loop %.40s:%d writes", f->name, l->line);
		return l->memwrite;
	}
	for (int i = 0; i < f->ndefs; i++)
		if (f->defs[i].var == v && in(f->defs[i].off, l->b, l->e)) {
			snprintf(why, len, "depends on %.40s, changed in loop %.40s:%d", a->vars[v].name, f->name, l->line);
			return 1;
		}
	struct var *x = &a->vars[v];
	if (x->func < 0) {
		const struct call *u = l->unknown_call ? unknown_writer(a, f, l, v) : NULL;
		if (u) {	/* (the call named: the trial of 2026-11-29 could not tell which) */
			snprintf(why, len, "depends on global %.40s, which the call of %.40s (line %d) in loop %.40s:%d may change",
				 x->name, u->indirect ? "a function pointer" : u->name, u->line, f->name, l->line);
			return 1;
		}
		for (int i = 0; i < f->ncalls; i++) {
			struct call *k = &a->calls[f->calls[i]];
			if (in(k->off, l->b, l->e) && k->callee >= 0 && iset_has(&a->funcs[k->callee].mod, v)) {
				snprintf(why, len, "depends on global %.40s, changed by %.40s in loop %.40s:%d", x->name, k->name, f->name, l->line);
				return 1;
			}
		}
	}
	if (x->addr_taken && l->memwrite) {
		snprintf(why, len, "depends on %.40s, which a write through a pointer in loop %.40s:%d may change (aliasing)", x->name, f->name, l->line);
		return 1;
	}
	return 0;
}

/*
 * Replace the callee's locals and parameters in exp (its leaves followed through its
 * whole body, scope_walk) by what they are at call site k.
 */
static void translate(struct an *a, const struct iset *exp, const struct call *k, struct iset *out)
{
	for (int i = 0; i < exp->n; i++) {
		int v = exp->v[i];
		if (v < 0 || a->vars[v].func < 0)
			iset_add(out, v);
		else if (a->vars[v].param >= 0 && a->vars[v].param < k->nargs)
			iset_merge(out, &k->args[a->vars[v].param]);
	}
	if (leaves_tainted(a, exp))
		iset_add(out, TOK_TAINT);
}

struct walkres {
	int fail, depth, tainted;
	unsigned self;		/* a loop candidate's own start: not a loop around it */
	char why[256];
	int npass, nfail;
	struct { int func, line; } pass[64], failed[64];
};

static void mark(struct walkres *r, int fail, int fi, int line)
{
	if (fail && r->nfail < 64) {
		r->failed[r->nfail].func = fi;
		r->failed[r->nfail++].line = line;
	} else if (!fail && r->npass < 64) {
		r->pass[r->npass].func = fi;
		r->pass[r->npass++].line = line;
	}
}

/*
 * fi has no caller that the analysis sees (it is called from another file, or through a
 * pointer) and is not main: what its callers pass, or what the program changes between
 * two calls, is unknown.  Work decided by its parameters, by memory, or by a global that
 * other files may write (any non-static one) or that some function here writes, can
 * differ from one call to the next, so it is fixed at most over fi's own loops: not
 * global.  Without this, a loop "for (i = 0; i < n; i++)" in a function called from
 * another file with a different n each time was selected.
 */
static void root_check(struct an *a, int fi, const struct iset *exp, struct walkres *r,
		       int ncallers)
{
	struct func *f = &a->funcs[fi];
	char why[200] = "";
	/* --with gave the whole program and nothing here calls fi, directly or through a
	 * pointer: no caller is unseen, fi is not called at all (the trial of 2026-11-29:
	 * minisweep's compare_runs, called only by another program's tester.c, read "its
	 * callers are not all seen (other files, pointers)") */
	if (a->closed && !ncallers && !f->addr_taken) {
		for (int i = 0; i < exp->n && !why[0]; i++)
			if (exp->v[i] == TOK_MEM || (exp->v[i] >= 0 &&
			    a->vars[exp->v[i]].func == fi && a->vars[exp->v[i]].param >= 0))
				snprintf(why, sizeof(why), "in %.40s, which no file given calls "
					 "(another program's code, or not called): what its work "
					 "depends on is unknown", f->name);
	}
	for (int i = 0; i < exp->n && !why[0]; i++) {
		int v = exp->v[i];
		if (v == TOK_MEM) {
			snprintf(why, sizeof(why), "reads memory, and %.40s's callers are not all seen (other files, pointers)", f->name);
		} else if (v >= 0 && a->vars[v].func == fi && a->vars[v].param >= 0) {
			snprintf(why, sizeof(why), "depends on %.40s, a parameter of %.40s, whose callers are not all seen (other files, pointers)",
				 a->vars[v].name, f->name);
		} else if (v >= 0 && a->vars[v].func < 0) {
			/* own: written only by fi or what it calls (HPCC's array_elements, set by
			 * HPCC_Stream from its parameters) */
			int written = !a->vars[v].is_static, own = !written;
			for (int g = 0; g < a->nfuncs; g++)
				if (a->funcs[g].defined && iset_has(&a->funcs[g].mod, v)) {
					written = 1;
					/* by its own defs: mod holds what g's callees write
					 * too, so a seen caller of fi read as another writer
					 * (the code review of 2026-11-29) */
					int direct = 0;
					for (int d = 0; d < a->funcs[g].ndefs && !direct; d++)
						direct = a->funcs[g].defs[d].var == v;
					own &= !direct || g == fi || a->reach[fi][g];
				}
			if (written && own)
				snprintf(why, sizeof(why), "depends on global %.40s, set by %.40s "
					 "at each call; its callers are not all seen (other "
					 "files, pointers)", a->vars[v].name, f->name);
			else if (written)
				snprintf(why, sizeof(why), "depends on global %.40s, which may change between calls of %.40s from code not seen",
					 a->vars[v].name, f->name);
		}
	}
	if (why[0]) {
		if (!r->fail)
			snprintf(r->why, sizeof(r->why), "%s", why);
		r->fail = 1;
	}
}

/*
 * Work that depends on a parameter of fi is the same at every call only when every call
 * site passes the same value: CoMD's addRealParallel(buf, sum, count) is called with
 * count 2 and count 4, and NPB MG's kernels with each grid level's size from different
 * sites.  The loops around each site cannot see that, so: a parameter that decides the
 * work, and two call sites that do not both pass the same integer constant, make it
 * not global.
 */
static void sites_check(struct an *a, int fi, const struct iset *exp, struct walkres *r)
{
	struct func *f = &a->funcs[fi];
	for (int i = 0; i < exp->n && !r->fail; i++) {
		int v = exp->v[i];
		if (v < 0 || a->vars[v].func != fi || a->vars[v].param < 0)
			continue;
		int p = a->vars[v].param, nsites = 0, same = 1;
		const struct call *first = NULL;
		for (int j = 0; j < a->ncalls; j++) {
			const struct call *k = &a->calls[j];
			if (k->callee != fi || a->reach[fi][k->func])
				continue;
			nsites++;
			if (p >= 32 || p >= k->nargs || !(k->const_mask & (1u << p)))
				same = 0;
			else if (!first)
				first = k;
			else if (first->const_val[p] != k->const_val[p])
				same = 0;
		}
		if (nsites >= 2 && !same) {
			snprintf(r->why, sizeof(r->why), "depends on %.40s, a parameter of %.40s that its %d call sites may set differently",
				 a->vars[v].name, f->name, nsites);
			r->fail = 1;
		}
	}
}

/*
 * Check leaves (read at offset pos of fi) against every enclosing loop, innermost
 * first, then through every call site of fi.  Once a loop fails on a path, every loop
 * around it on that path fails too (what changes in a loop changes in its parents).
 */
static void scope_walk(struct an *a, int fi, unsigned pos, const struct iset *leaves, int depth,
		       int hops, int failed, struct walkres *r)
{
	struct func *f = &a->funcs[fi];
	int inner[64], ni = 0;
	for (int l = 0; l < f->nloops && ni < 64; l++)
		if (in(pos, f->loops[l].b, f->loops[l].e) && !(hops == 0 && f->loops[l].b == r->self))
			inner[ni++] = l;
	/* loops are recorded in pre-order, so later = deeper */
	for (int j = ni - 1; j >= 0; j--) {
		struct loop *l = &f->loops[inner[j]];
		for (int i = 0; i < leaves->n && !failed; i++) {
			char why[200];
			if (changed_in(a, fi, l, leaves->v[i], why, sizeof(why))) {
				failed = 1;
				if (!r->fail)
					snprintf(r->why, sizeof(r->why), "%s", why);
				r->fail = 1;
			}
		}
		mark(r, failed, fi, l->line);
	}
	depth += ni;
	if (depth > r->depth)
		r->depth = depth;
	if (hops > 16)
		return;
	/* The leaves followed back through all of fi: what they are made of at its entry,
	 * which every call site, root_check and sites_check look at (closure once, here). */
	struct iset exp = { 0 };
	closure(a, fi, f->b, f->e, leaves, &exp);
	int ncallers = 0;
	for (int i = 0; i < a->ncalls; i++) {
		struct call *k = &a->calls[i];
		if (k->callee != fi || a->reach[fi][k->func])
			continue;
		ncallers++;
		struct iset up = { 0 };
		translate(a, &exp, k, &up);
		if (iset_has(&up, TOK_TAINT))
			r->tainted = 1;
		scope_walk(a, k->func, k->off, &up, depth, hops + 1, failed, r);
		iset_free(&up);
	}
	/*
	 * Callers not seen: none here, or fi is also called through a pointer, or it is
	 * external and the files given are not known to be the whole program (no --with).
	 * The visible sites alone would select kern's loop when kern(5000) is called here
	 * and fp(it * 100) or kern(it * 1000) elsewhere.
	 */
	int unseen = !ncallers || f->addr_taken || (!a->closed && !f->is_static);
	if (unseen && !failed && strcmp(f->name, "main"))
		root_check(a, fi, &exp, r, ncallers);
	if (!failed && !r->fail)	/* the loops' reasons first: they say more */
		sites_check(a, fi, &exp, r);
	iset_free(&exp);
}

/* Loops passed on every path, "func:line" separated by spaces. */
static int scope_text(struct an *a, const struct walkres *r, char *buf, size_t len)
{
	int n = 0;
	buf[0] = 0;
	for (int i = 0; i < r->npass; i++) {
		int dup = 0;
		for (int j = 0; j < r->nfail && !dup; j++)
			dup = r->failed[j].func == r->pass[i].func && r->failed[j].line == r->pass[i].line;
		for (int j = 0; j < i && !dup; j++)
			dup = r->pass[j].func == r->pass[i].func && r->pass[j].line == r->pass[i].line;
		if (dup)
			continue;
		size_t o = strlen(buf);
		snprintf(buf + o, len - o, "%s%.40s:%d", o ? " " : "", a->funcs[r->pass[i].func].name, r->pass[i].line);
		n++;
	}
	return n;
}

static void compute_reach(struct an *a)
{
	int n = a->nfuncs;
	a->reach = calloc(n, sizeof(char *));
	if (!a->reach)
		abort();
	for (int i = 0; i < n; i++) {
		a->reach[i] = calloc(n, 1);
		if (!a->reach[i])
			abort();
	}
	for (int i = 0; i < a->ncalls; i++)
		if (a->calls[i].callee >= 0)
			a->reach[a->calls[i].func][a->calls[i].callee] = 1;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			if (a->reach[i][k])
				for (int j = 0; j < n; j++)
					if (a->reach[k][j])
						a->reach[i][j] = 1;
}

static void taint_fixpoint(struct an *a)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (int fi = 0; fi < a->nfuncs; fi++) {
			struct func *f = &a->funcs[fi];
			for (int i = 0; i < f->ndefs; i++) {
				struct def *d = &f->defs[i];
				if (a->vars[d->var].tainted)
					continue;
				for (int j = 0; j < d->uses.n; j++) {
					int u = d->uses.v[j];
					if (u == TOK_TAINT || (u >= 0 && a->vars[u].tainted)) {
						a->vars[d->var].tainted = changed = 1;
						break;
					}
				}
			}
		}
		for (int i = 0; i < a->ncalls; i++) {
			struct call *k = &a->calls[i];
			if (k->callee < 0 || !a->funcs[k->callee].defined)
				continue;
			for (int p = 0; p < k->nargs; p++) {
				int t = 0;
				for (int j = 0; j < k->args[p].n; j++) {
					int u = k->args[p].v[j];
					t |= u == TOK_TAINT || (u >= 0 && a->vars[u].tainted);
				}
				if (!t)
					continue;
				for (int v = 0; v < a->nvars; v++)
					if (a->vars[v].func == k->callee && a->vars[v].param == p && !a->vars[v].tainted)
						a->vars[v].tainted = changed = 1;
			}
		}
	}
}

/* ---- candidates ---- */

static void add_cand(struct vs_analysis *res, struct vs_cand *c)
{
	struct vs_cand *n = realloc(res->c, (res->n + 1) * sizeof(*n));
	if (!n)
		abort();
	res->c = n;
	res->c[res->n++] = *c;
}

static void judge(struct an *a, int fi, unsigned b, unsigned e, unsigned pos, struct vs_cand *c,
		  int exits, int in_macro)
{
	struct iset seeds = { 0 }, leaves = { 0 };
	a->vary_why[0] = 0;
	range_seeds(a, fi, b, e, &seeds);
	if (c->is_loop)
		closure(a, fi, b, e, &seeds, &leaves);
	else
		iset_merge(&leaves, &seeds);
	int work = 0, net = 0, io = 0;
	range_content(a, fi, b, e, &work, &net, &io);
	c->kind = net ? (work || io ? VS_MIXED : VS_NETWORK) : io ? (work ? VS_MIXED : VS_IO) : VS_COMPUTE;
	struct walkres r;
	memset(&r, 0, sizeof(r));
	r.tainted = leaves_tainted(a, &leaves);
	r.self = c->is_loop ? b : ~0u;
	scope_walk(a, fi, pos, &leaves, 0, 0, 0, &r);
	c->depth = r.depth;
	c->rank_dependent = r.tainted;
	int nscope = scope_text(a, &r, c->scope, sizeof(c->scope));
	c->global = !r.fail && nscope > 0;
	if (nscope == 0 && !r.fail)
		snprintf(c->reason, sizeof(c->reason), "not inside a loop");
	else if (r.fail)
		snprintf(c->reason, sizeof(c->reason), "%s", r.why);
	else if (c->kind == VS_MIXED)
		snprintf(c->reason, sizeof(c->reason), "mixes computation with communication or IO");
	else if (!net && !io && !work)
		snprintf(c->reason, sizeof(c->reason), "does no work of its own");
	else if (exits)
		snprintf(c->reason, sizeof(c->reason), "return or goto can leave it");
	else if (in_macro)
		snprintf(c->reason, sizeof(c->reason), "inside a macro or a header");
	iset_free(&seeds);
	iset_free(&leaves);
}

/*
 * A snippet whose work is known to be tiny before it runs: a counted loop with
 * constant bounds around straight-line code, or a call of a function without loops,
 * calling only such functions.  Its senses would average far under the runtime's 5-us
 * switch-off (a 1000-node budget is a few thousand instructions, about 1 us), so
 * the runtime would switch it off after 1000 senses; but the Tick/Tock calls would
 * stay in the loop around it, which then can no longer keep values in registers or
 * be unrolled: CoMD's force loop ran 1.7-2x slower with its 3-iteration "for m < 3"
 * loops wrapped.  -1 when not known to be small.
 */
#define VS_SMALL_OPS 1000

static long func_small_ops(struct an *a, int gi, int hops);

/* A call's work when known to be small: a small function, libm, a short memcpy. */
static long call_small_ops(struct an *a, const struct call *k, int hops)
{
	if (k->callee >= 0)
		return func_small_ops(a, k->callee, hops + 1);
	if (k->ext && k->ext->cls == X_PURE)
		return 20;
	if (k->ext && k->ext->cls == X_COMPUTE && k->const_size >= 0)
		return 4 + k->const_size / 8;
	return -1;
}

static long func_small_ops(struct an *a, int gi, int hops)
{
	struct func *g = &a->funcs[gi];
	if (!g->defined || g->nloops || hops > 8)
		return -1;
	long ops = g->ops;
	for (int i = 0; i < g->ncalls && ops <= VS_SMALL_OPS; i++) {
		long o = call_small_ops(a, &a->calls[g->calls[i]], hops);
		if (o < 0)
			return -1;
		ops += o;
	}
	return ops;
}

static long loop_small_ops(struct an *a, int fi, const struct loop *lp)
{
	struct func *f = &a->funcs[fi];
	if (lp->trip < 0)
		return -1;
	for (int l = 0; l < f->nloops; l++)
		if (&f->loops[l] != lp && in(f->loops[l].b, lp->b, lp->e))
			return -1;
	long ops = lp->ops;
	for (int i = 0; i < f->ncalls && ops <= VS_SMALL_OPS; i++) {
		struct call *k = &a->calls[f->calls[i]];
		if (!in(k->off, lp->b, lp->e))
			continue;
		long o = call_small_ops(a, k, 0);
		if (o < 0)
			return -1;
		ops += o;
	}
	return lp->trip * ops;
}


/*
 * The candidates of every unit's own functions are judged (the outermost rule needs the
 * sensors of the other files: CoMD's sumAtoms calls addIntParallel of parallel.c, both
 * sensors otherwise); only the analysed file's are kept.
 */
/* The words of an OpenMP directive (after "omp", up to its first clause) in words, one
 * space each ("parallel for", "for", "single"); 0, or -1 for a line that is not one. */
static int omp_words(const char *line, char *words, size_t wl)
{
	static const char *const clause[] = {
		"private", "firstprivate", "lastprivate", "shared", "reduction", "schedule",
		"collapse", "nowait", "num_threads", "if", "default", "ordered", "copyin",
		"copyprivate", "proc_bind", "linear", "aligned", "safelen", "simdlen", "map",
		"device", "depend", "untied", "final", "mergeable", "priority", "grainsize",
		"num_tasks", "nogroup", "dist_schedule", "allocate", "order", "bind", "in_reduction",
		"task_reduction", "nontemporal", "is_device_ptr", "defaultmap", "thread_limit",
		"num_teams",
	};
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "omp", 3) || (p[3] != ' ' && p[3] != '\t'))
		return -1;
	p += 3;
	size_t n = 0;
	words[0] = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		size_t k = 0;
		while (p[k] && p[k] != ' ' && p[k] != '\t' && p[k] != ',' && p[k] != '(')
			k++;
		if (!k || p[k] == '(')
			break;
		int is_clause = 0;
		for (size_t i = 0; i < sizeof(clause) / sizeof(clause[0]) && !is_clause; i++)
			is_clause = strlen(clause[i]) == k && !strncmp(p, clause[i], k);
		if (is_clause || n + k + 2 > wl)
			break;
		if (n)
			words[n++] = ' ';
		memcpy(words + n, p, k);
		n += k;
		words[n] = 0;
		p += k;
	}
	return 0;
}

static int has_word(const char *words, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = words; (p = strstr(p, w)); p += n)
		if ((p == words || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	return 0;
}

/* A loop pragma: one that must stand right before its loop (an OpenMP loop construct, GCC
 * ivdep/unroll, clang loop, unroll); *team: an OpenMP loop a team shares (for, loop,
 * taskloop, distribute without parallel: every thread of the team runs the statement). */
static int loop_pragma(const char *text, int *team)
{
	char w[128];
	*team = 0;
	if (omp_words(text, w, sizeof(w)) == 0) {
		int loop = has_word(w, "for") || has_word(w, "simd") || has_word(w, "loop") ||
			   has_word(w, "taskloop") || has_word(w, "distribute");
		*team = loop && !has_word(w, "parallel") && !(has_word(w, "simd") &&
			!has_word(w, "for") && !has_word(w, "loop") && !has_word(w, "taskloop") &&
			!has_word(w, "distribute"));
		return loop;
	}
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	return !strncmp(p, "GCC ivdep", 9) || !strncmp(p, "GCC unroll", 10) ||
	       !strncmp(p, "clang loop", 10) || !strncmp(p, "unroll", 6) ||
	       !strncmp(p, "nounroll", 8) || !strncmp(p, "ivdep", 5) || !strncmp(p, "loop", 4);
}

/* The start of the logical line before offset ls (the start of a line): back over
 * continuation lines ("...\\\n", "...\\\r\n").  *end: where that line's text ends (its '\r' or
 * '\n'). */
static size_t prev_line(const char *src, size_t ls, size_t *end)
{
	size_t pe = ls - 1, ps = pe;	/* src[pe] is the '\n' */
	if (pe > 0 && src[pe - 1] == '\r')
		pe--;
	*end = pe;
	while (ps > 0 && src[ps - 1] != '\n')
		ps--;
	for (;;) {	/* the line before ends in a backslash: one logical line with it */
		size_t q = ps;
		if (q < 2)
			break;
		size_t e = q - 1;	/* its '\n' */
		if (e > 0 && src[e - 1] == '\r')
			e--;
		if (e == 0 || src[e - 1] != '\\')
			break;
		ps = e - 1;
		while (ps > 0 && src[ps - 1] != '\n')
			ps--;
	}
	return ps;
}

/*
 * The loop pragmas that stand right before offset b in src (blank and comment-only lines
 * between them allowed, and whole #if..#endif blocks around them: `#ifdef _OPENMP`,
 * hypre's form): *first is where the tick must go so that they stay on their loop, and
 * the function returns that line's number, or 0 when there are none (the tick goes before
 * the loop, after any other pragma: `omp single`'s block is then the sensor).  -1: loop
 * pragmas inside a conditional block that does not end before the loop's own line (the
 * tick cannot go above them and stay outside it).  *team: one of them is an OpenMP loop a
 * team shares.  Wrapping the loop alone in "{ vs_tick(); ... }" cut `#pragma omp parallel
 * for` off its loop and gcc refused the file (the trial of 2026-11-28, AMG with OpenMP).
 */
static int pragma_before(const char *src, size_t len, size_t b, size_t *first, int *team)
{
	*team = 0;
	if (!src || b > len)
		return 0;
	size_t ls = b;	/* the start of the loop's line: only blanks before b on it */
	while (ls > 0 && src[ls - 1] != '\n')
		ls--;
	for (size_t i = ls; i < b; i++)
		if (src[i] != ' ' && src[i] != '\t')
			return 0;
	size_t cut = ls;	/* the topmost line start at depth 0 with the pragmas below it */
	int depth = 0, found = 0, found_in_block = 0;
	size_t at = ls;
	while (at > 0) {
		size_t pe, ps = prev_line(src, at, &pe), k = ps;
		while (k < pe && (src[k] == ' ' || src[k] == '\t'))
			k++;
		if (k == pe || (pe - k >= 2 && src[k] == '/' && src[k + 1] == '/') ||
		    (pe - k >= 4 && src[k] == '/' && src[k + 1] == '*' && src[pe - 2] == '*' &&
		     src[pe - 1] == '/')) {
			at = ps;	/* blank, or a comment alone on its line */
			if (!depth && found)
				cut = at;
			continue;
		}
		if (src[k] != '#') {
			size_t q = k;
			while (q < pe && (isalnum((unsigned char)src[q]) || src[q] == '_'))
				q++;
			if (q - k == 7 && !strncmp(src + k, "_Pragma", 7)) {
				/* _Pragma("omp parallel for"): its string, as a #pragma */
				const char *o = memchr(src + q, '"', pe - q);
				const char *e = o ? memchr(o + 1, '"', src + pe - o - 1) : NULL;
				char text[160];
				size_t m = o && e ? (size_t)(e - o - 1) : 0;
				m = m < sizeof(text) - 1 ? m : sizeof(text) - 1;
				memcpy(text, o ? o + 1 : "", m);
				text[m] = 0;
				int t;
				if (!o || !e || !loop_pragma(text, &t))
					break;
				*team |= t;
				found = 1;
				found_in_block |= depth > 0;
				at = ps;
				if (!depth)
					cut = at;
				continue;
			}
			/* a line that is a name alone (with arguments), no ';': a macro that may
			 * expand to a _Pragma (PFOR), whose loop a tick would cut off it */
			static const char *const kw[] = { "if", "else", "while", "for", "do",
							  "switch", "case", "default", "return" };
			int keyword = 0;
			for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]) && !keyword; i++)
				keyword = q - k == strlen(kw[i]) && !strncmp(src + k, kw[i], q - k);
			int alone = q > k && !keyword && !isdigit((unsigned char)src[k]);
			for (size_t i = q; alone && i < pe; i++)
				alone = src[i] != ';' && src[i] != '{' && src[i] != '}' && src[i] != ':' &&
					src[i] != '=';
			if (alone && !found)
				return -2;
			break;
		}
		size_t h = k + 1;
		while (h < pe && (src[h] == ' ' || src[h] == '\t'))
			h++;
		char text[160];
		size_t m = pe - h < sizeof(text) - 1 ? pe - h : sizeof(text) - 1;
		memcpy(text, src + h, m);
		text[m] = 0;
		for (char *c = text; *c; c++)	/* continuation breaks: one line */
			if (*c == '\\' || *c == '\n' || *c == '\r')
				*c = ' ';
		if (!strncmp(text, "pragma", 6) && (text[6] == ' ' || text[6] == '\t')) {
			int t;
			char w[128];
			if (!loop_pragma(text + 7, &t)) {
				/* another pragma: the loop's block is its (omp single, task);
				 * `omp parallel` makes it the region's body, run by every thread */
				if (!found && omp_words(text + 7, w, sizeof(w)) == 0 &&
				    has_word(w, "parallel"))
					*team = 2;
				break;
			}
			*team |= t;
			found = 1;
			found_in_block |= depth > 0;
		} else if (!strncmp(text, "endif", 5)) {
			depth++;
		} else if (!strncmp(text, "else", 4) || !strncmp(text, "elif", 4)) {
			if (!depth)
				break;
		} else if (!strncmp(text, "if", 2)) {	/* #if, #ifdef, #ifndef */
			if (!depth)
				break;	/* the loop is inside this block */
			depth--;
		} else {
			break;
		}
		at = ps;
		if (!depth && found)
			cut = at;
	}
	if (!found)
		return 0;
	if (depth && found_in_block && cut == ls)
		return -1;
	if (cut == ls)
		return 0;	/* (cannot happen: found sets cut at depth 0) */
	*first = cut;
	int line = 1;
	for (size_t i = 0; i < cut; i++)
		line += src[i] == '\n';
	return line;
}

static void candidates(struct an *a, struct vs_analysis *res, const struct vs_options *opt)
{
	for (int fi = 0; fi < a->nfuncs; fi++) {
		struct func *f = &a->funcs[fi];
		if (f->defined && !f->own && f->local_header && f->tu == 0 && f->nloops) {
			res->header_loops += f->nloops;
			res->header_funcs++;
		}
		if (!f->defined || !f->own)
			continue;	/* header code is analysed for summaries, not instrumented */
		for (int l = 0; l < f->nloops; l++) {
			struct loop *lp = &f->loops[l];
			struct vs_cand c;
			memset(&c, 0, sizeof(c));
			c.is_loop = 1;
			c.line = lp->line;
			c.col = lp->col;
			c.begin = lp->b;
			c.end = lp->e;
			snprintf(c.func, sizeof(c.func), "%s", f->name);
			snprintf(c.what, sizeof(c.what), "%s", lp->what);
			c.fi = fi;
			judge(a, fi, lp->b, lp->e, lp->b, &c, lp->exits, lp->in_macro);
			c.ops = loop_small_ops(a, fi, lp);
			size_t pb = lp->b;
			int team = 0;
			c.pragma = lp->b;
			c.pragma_line = f->tu == 0 ?
				pragma_before(a->src, a->srclen, lp->b, &pb, &team) : 0;
			if (c.pragma_line > 0)
				c.pragma = (unsigned)pb;
			if (c.pragma_line == -2 && !c.reason[0])
				snprintf(c.reason, sizeof(c.reason), "a macro stands before the loop "
					 "(it may be a _Pragma): not wrapped");
			else if (c.pragma_line < 0 && !c.reason[0])
				snprintf(c.reason, sizeof(c.reason), "its loop pragma is inside a "
					 "conditional block the loop is not: no place for the tick");
			else if (team && !c.reason[0])
				snprintf(c.reason, sizeof(c.reason), team == 2 ?
					 "the body of an OpenMP parallel region: each thread would "
					 "time it" : "an OpenMP loop its team shares (#pragma omp "
					 "for): each thread would time it");
			if (c.pragma_line < 0)
				c.pragma_line = 0;
			add_cand(res, &c);
		}
		for (int i = 0; i < f->ncalls; i++) {
			struct call *k = &a->calls[f->calls[i]];
			struct vs_cand c;
			memset(&c, 0, sizeof(c));
			c.line = k->line;
			c.col = k->col;
			c.begin = k->b;
			c.end = k->e;
			snprintf(c.func, sizeof(c.func), "%s", f->name);
			snprintf(c.what, sizeof(c.what), "%s", k->name);
			c.fi = fi;
			judge(a, fi, k->off, k->off + 1, k->off, &c, 0, k->in_macro);
			if (!c.reason[0] && !k->is_stmt)
				snprintf(c.reason, sizeof(c.reason), "call inside an expression (cannot be wrapped)");
			c.ops = call_small_ops(a, k, 0);
			add_cand(res, &c);
		}
	}
	/* selection: global, depth, outermost only */
	for (int i = 0; i < res->n; i++) {
		struct vs_cand *c = &res->c[i];
		if (!c->reason[0] && c->depth > opt->max_depth)
			snprintf(c->reason, sizeof(c->reason), "depth %d is over max-depth %d", c->depth, opt->max_depth);
		char wbuf[140];
		const char *w = c->reason[0] ? NULL : cand_waits(a, c, wbuf, sizeof(wbuf));
		if (w)
			snprintf(c->reason, sizeof(c->reason), "waits for a peer (%s): its time is the partner's arrival, not its work", w);
		c->selected = !c->reason[0];
	}
	for (int i = 0; i < res->n; i++) {
		struct vs_cand *c = &res->c[i];
		if (!c->selected)
			continue;
		int fi = c->fi;
		for (int j = 0; j < res->n; j++) {
			struct vs_cand *o = &res->c[j];
			if (j == i || !o->selected || (o->ops >= 0 && o->ops <= VS_SMALL_OPS))
				continue;	/* a small one is not a sensor (below) */
			int ofi = o->fi;
			int nested = ofi == fi && o->begin <= c->begin && c->end <= o->end &&
				     !(o->begin == c->begin && o->end == c->end);
			if (!nested) {
				/* a call inside o that reaches c's function */
				for (int q = 0; q < a->ncalls && !nested; q++) {
					struct call *k = &a->calls[q];
					nested = k->func == ofi && in(k->off, o->begin, o->end) && k->callee >= 0 &&
						 (k->callee == fi || a->reach[k->callee][fi]);
				}
			}
			if (nested) {
				int otu = a->funcs[ofi].tu;
				snprintf(c->reason, sizeof(c->reason), "inside sensor %.40s:%d%s%.64s (outermost only)", o->func,
					 o->line, otu ? " of " : "", otu ? a->files[otu < 256 ? otu : 0] : "");
				break;
			}
		}
	}
	/* after the outermost rule: a small snippet inside a sensor is reported as inside it */
	for (int i = 0; i < res->n; i++) {
		struct vs_cand *c = &res->c[i];
		if (!c->reason[0] && c->ops >= 0 && c->ops <= VS_SMALL_OPS)
			snprintf(c->reason, sizeof(c->reason), "too small to time (about %ld operations)", c->ops);
		c->selected = !c->reason[0];
	}
	int n = 0;
	for (int i = 0; i < res->n; i++)
		if (a->funcs[res->c[i].fi].in_main)
			res->c[n++] = res->c[i];
	res->n = n;
}

static int cmp_cand(const void *x, const void *y)
{
	const struct vs_cand *a = x, *b = y;
	return a->line != b->line ? a->line - b->line : a->col - b->col;
}

static void an_free(struct an *a)
{
	for (int i = 0; i < a->nvars; i++)
		free(a->vars[i].usr);
	free(a->vars);
	free(a->hash);
	free(a->frefs);
	free(a->fc);
	for (int i = 0; i < a->nfuncs; i++) {
		struct func *f = &a->funcs[i];
		for (int j = 0; j < f->ndefs; j++)
			iset_free(&f->defs[j].uses);
		for (int j = 0; j < f->nctrls; j++)
			iset_free(&f->ctrls[j].uses);
		free(f->defs);
		free(f->ctrls);
		free(f->loops);
		free(f->memw);
		free(f->calls);
		iset_free(&f->deps);
		iset_free(&f->mod);
		if (a->reach)
			free(a->reach[i]);
	}
	free(a->reach);
	free(a->funcs);
	for (int i = 0; i < a->ncalls; i++) {
		for (int j = 0; j < a->calls[i].nargs; j++)
			iset_free(&a->calls[i].args[j]);
		free(a->calls[i].args);
		free(a->calls[i].const_val);
	}
	free(a->calls);
}

/* Parse path into *tu; on errors, clang's first one in err.  0 or -EINVAL. */
static int parse_tu(CXIndex idx, const char *path, const char *const *args, int nargs,
		    CXTranslationUnit *tu, char *err, size_t len)
{
	if (vs_clang.clang_parseTranslationUnit2(idx, path, args, nargs, NULL, 0,
					CXTranslationUnit_DetailedPreprocessingRecord, tu) != CXError_Success)
		return -EINVAL;
	for (unsigned i = 0; i < vs_clang.clang_getNumDiagnostics(*tu); i++) {
		CXDiagnostic d = vs_clang.clang_getDiagnostic(*tu, i);
		int bad = vs_clang.clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error;
		if (bad) {
			CXString t = vs_clang.clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation |
							       CXDiagnostic_DisplayColumn);
			snprintf(err, len, "%s", vs_clang.clang_getCString(t));
			vs_clang.clang_disposeString(t);
		}
		vs_clang.clang_disposeDiagnostic(d);
		if (bad) {
			vs_clang.clang_disposeTranslationUnit(*tu);
			return -EINVAL;
		}
	}
	return 0;
}

/* The definition a call names: its own unit's first (a static one), else an external one. */
static void resolve_calls(struct an *a)
{
	for (int i = 0; i < a->ncalls; i++) {
		struct call *k = &a->calls[i];
		int g = k->indirect ? -1 : func_find(a, k->name, k->tu, 1);
		if (g >= 0 && a->funcs[g].defined)
			k->callee = g;
	}
}

int vs_analyze(const char *path, const char *const *args, int nargs,
	       const struct vs_options *opt, struct vs_analysis *res)
{
	struct vs_options dflt = { .max_depth = 6 };
	if (!opt)
		opt = &dflt;
	memset(res, 0, sizeof(*res));
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	fclose(f);
	if (!realpath(path, res->file))
		snprintf(res->file, sizeof(res->file), "%s", path);
	if (vs_clang_load(res->error, sizeof(res->error)))
		return -ENOEXEC;
	CXIndex idx = vs_clang.clang_createIndex(0, 0);
	struct an a;
	memset(&a, 0, sizeof(a));
	a.cur = -1;
	a.res = res;
	CXTranslationUnit *tus = calloc(opt->nwith + 1, sizeof(*tus));
	if (!tus)
		abort();
	int ntu = 0;
	if (parse_tu(idx, path, args, nargs, &tus[0], res->error, sizeof(res->error))) {
		free(tus);
		vs_clang.clang_disposeIndex(idx);
		return -EINVAL;
	}
	a.tu = tus[ntu++];
	const char *base = strrchr(path, '/');
	snprintf(a.files[0], sizeof(a.files[0]), "%s", base ? base + 1 : path);
	char *src = NULL;
	size_t srclen = 0;
	FILE *sf = fopen(path, "r");
	if (sf) {	/* for the pragmas before loops (pragma_before); unread: none seen */
		FILE *ms = open_memstream(&src, &srclen);
		char buf[65536];
		size_t got;
		while (ms && (got = fread(buf, 1, sizeof(buf), sf)) > 0)
			fwrite(buf, 1, got, ms);
		if (ms)
			fclose(ms);
		fclose(sf);
	}
	a.src = src;
	a.srclen = src ? srclen : 0;
	vs_clang.clang_visitChildren(vs_clang.clang_getTranslationUnitCursor(a.tu), top_cb, &a);
	find_frefs(&a);
	/* the rest of the program: summaries and callers, never candidates */
	for (int w = 0; w < opt->nwith; w++) {
		char real[PATH_MAX], err[sizeof(res->error)] = "", other[PATH_MAX];
		if (realpath(opt->with[w], real) && !strcmp(real, res->file))
			continue;
		/* a file two patterns name is one unit (its functions read as defined twice:
		 * the code review of 2026-11-29) */
		int seen = 0;
		for (int p = 0; p < w && !seen; p++)
			seen = realpath(opt->with[p], other) && !strcmp(other, real);
		if (seen)
			continue;
		if (parse_tu(idx, opt->with[w], args, nargs, &tus[ntu], err, sizeof(err))) {
			if (!res->skipped[0])
				snprintf(res->skipped, sizeof(res->skipped), "%s: %s", opt->with[w],
					 err[0] ? err : "libclang failed");
			continue;
		}
		a.tu = tus[ntu];
		a.curtu = ntu++;
		if (a.curtu < 256) {
			const char *b = strrchr(opt->with[w], '/');
			snprintf(a.files[a.curtu], sizeof(a.files[0]), "%s", b ? b + 1 : opt->with[w]);
		}
		res->nwith++;
		vs_clang.clang_visitChildren(vs_clang.clang_getTranslationUnitCursor(a.tu), top_cb, &a);
		find_frefs(&a);
	}
	/*
	 * --with names the program's other files: then the units are the whole program and
	 * a function called here only is called only here.  Without it (or with a file that
	 * did not parse) any external function may be called from files not seen.
	 */
	a.closed = opt->nwith > 0 && !res->skipped[0] && !opt->open;
	resolve_calls(&a);
	mark_frefs(&a);
	compute_reach(&a);
	taint_fixpoint(&a);
	for (int fi = 0; fi < a.nfuncs; fi++)
		if (a.funcs[fi].defined)
			summarize(&a, fi);
	for (int fi = 0; fi < a.nfuncs; fi++)
		if (a.funcs[fi].defined)
			loop_effects(&a, fi);
	candidates(&a, res, opt);
	qsort(res->c, res->n, sizeof(*res->c), cmp_cand);
	an_free(&a);
	free(src);
	for (int t = 0; t < ntu; t++)
		vs_clang.clang_disposeTranslationUnit(tus[t]);
	free(tus);
	vs_clang.clang_disposeIndex(idx);
	return 0;
}

void vs_analysis_release(struct vs_analysis *a)
{
	free(a->c);
	memset(a, 0, sizeof(*a));
}

const char *vs_kind_name(int kind)
{
	static const char *const n[] = { "compute", "network", "io", "mixed" };
	return kind >= 0 && kind <= 3 ? n[kind] : "?";
}

/* ---- rewriting ---- */

/* The end of the statement that starts a candidate ending at e: past a ';' if one follows. */
static size_t stmt_end(const char *src, size_t len, size_t e)
{
	size_t i = e;
	while (i < len) {
		if (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++;
		} else if (src[i] == '/' && i + 1 < len && src[i + 1] == '*') {
			char *p = strstr(src + i + 2, "*/");
			if (!p)
				return e;
			i = p - src + 2;
		} else if (src[i] == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				i++;
		} else {
			break;
		}
	}
	return i < len && src[i] == ';' ? i + 1 : e;
}

/* s as a C string literal: a path may hold '"', '\\', '?' or control characters (a
 * directory named a"b made the #line directive, and the compile, fail until 2026-11-28;
 * t602). */
static void put_c_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\' || *p == '?')	/* ('?': "??/" is a trigraph) */
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

int vs_rewrite(const struct vs_analysis *a, const char *name, FILE *out)
{
	/* the file as the compile command names it: __FILE__ and assert's messages read as
	 * the original's ("src/f.c", not its absolute path: the usability review of
	 * 2026-11-29, H3) */
	const char *as_given = name && *name ? name : a->file;
	FILE *f = fopen(a->file, "r");
	if (!f)
		return -errno;
	size_t cap = 1 << 16, len = 0;
	char *src = malloc(cap + 1);
	size_t n;
	while (src && (n = fread(src + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *s = realloc(src, 2 * cap + 1);
			if (!s) {
				free(src);
				src = NULL;
				break;
			}
			src = s;
			cap *= 2;
		}
	}
	fclose(f);
	if (!src)
		return -ENOMEM;
	src[len] = 0;
	int nsel = 0;
	for (int i = 0; i < a->n; i++)
		nsel += a->c[i].selected;
	const char *base = strrchr(a->file, '/') ? strrchr(a->file, '/') + 1 : a->file;
	if (nsel) {
		fputs(VS_ABI_TEXT, out);
		fprintf(out, "static struct vs_sensor __vs_s[%d] = {\n", nsel);
		for (int i = 0; i < a->n; i++) {
			const struct vs_cand *c = &a->c[i];
			if (!c->selected)
				continue;
			char name[1024];
			snprintf(name, sizeof(name), "%s:%d %s", base, c->line, c->func);
			fputs("\t{ ", out);
			put_c_string(out, name);
			fprintf(out, ", %d, %d, 0, 0, 0 },\n", c->kind,
				c->rank_dependent ? VS_F_RANK_DEP : 0);
		}
		fputs("};\n", out);
	}
	fputs("#line 1 ", out);
	put_c_string(out, as_given);
	fputc('\n', out);
	size_t pos = 0;
	int id = 0;
	for (int i = 0; i < a->n; i++) {
		const struct vs_cand *c = &a->c[i];
		if (!c->selected)
			continue;
		size_t b = c->begin, e = stmt_end(src, len, c->end);
		if (b < pos || e > len)
			continue;	/* cannot happen: selected sensors never overlap */
		if (c->pragma_line && c->pragma < b && c->pragma >= pos) {
			/* pragmas on the loop: the tick on a line of its own before them (a
			 * directive starts its line), then the lines numbered as the file's */
			b = c->pragma;
			fwrite(src + pos, 1, b - pos, out);
			fprintf(out, "{ vs_tick(&__vs_s[%d]);\n#line %d ", id, c->pragma_line);
			put_c_string(out, as_given);
			fputc('\n', out);
		} else {
			fwrite(src + pos, 1, b - pos, out);
			fprintf(out, "{ vs_tick(&__vs_s[%d]); ", id);
		}
		fwrite(src + b, 1, e - b, out);
		fprintf(out, " vs_tock(&__vs_s[%d]); }", id);
		pos = e;
		id++;
	}
	fwrite(src + pos, 1, len - pos, out);
	free(src);
	return ferror(out) ? -EIO : 0;
}
