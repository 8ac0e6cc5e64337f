/* SPDX-License-Identifier: MIT */
/* sites.c - naming heap objects by their allocation call path.  See sites.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/file.h"
#include "tools/mem/sites.h"

#define MAX_ROUNDS 16		/* wrapper rounds: a chain of wrappers this deep is absurd */

struct spath {
	struct site_frame *f;
	int n;
	int name_at;		/* the naming frame, -1 if no frame names a function */
	int lib_internal;	/* a library's own allocation */
	char *key, *label, *path;
};

struct site_names {
	struct spath *p;
	int n, cap;
};

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path;
}

int site_is_system_path(const char *path)
{
	static const char *const prefixes[] = { "/usr/", "/lib/", "/lib64/", "<built-in>" };
	if (!path)
		return 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return !!strncmp(path, "/usr/local/", 11) && !!strncmp(path, "/usr/src/", 9);
	return 0;
}

/* sonde's own runtime (libsonde.so, libsonde-inst.so), wherever it is installed: its frames
 * (the thread start that runs every thread's routine) are no caller of the program's.  Taken
 * for one, a thread routine that allocates, called from main and as a thread (RIBench's
 * ri_thread), looked called from two sites, a wrapper, and its objects were named after
 * sonde's thread_trampoline (init.c). */
static int sonde_module(const char *path)
{
	const char *b = base_name(path);

	return b && !strncmp(b, "libsonde", 8) && strstr(b, ".so");
}

/* The program's own code: a named function, in neither a system module nor a header, nor
 * sonde's runtime. */
static int own(const struct site_frame *f)
{
	return f->function && !site_is_system_path(f->module) && !site_is_system_path(f->file) &&
	       !sonde_module(f->module);
}

/* A frame of the program's code without a symbol (a stripped executable: "[no symbols]"):
 * its function is unknown, so neither a wrapper nor one call site can be told by name;
 * its return address is all there is (the usability review of 2026-11-29, H1: a stripped
 * build's four objects read as three, two mallocs of one function merged and ranked
 * first, named "[call 3 of 3 on the line]"). */
static int nosym(const struct site_frame *f)
{
	/* (also a stretch between exported symbols, named after the nearest one: a stripped
	 * C++ program keeps a few exports, and miniXyce's objects were all named by its
	 * "MPI::Intracomm::Create(...)+0x94 (nearest exported symbol)", then #2, #3) */
	return !f->function || f->function[0] == '[' ||
	       strstr(f->function, "(nearest exported symbol)");
}

#define NOSYM_CALLERS 2		/* callers' return addresses in a nosym site's key and label */

/* Interfaces that allocate for their caller: the memory is the caller's data. */
static int alloc_interface(const char *fn)
{
	static const char *const prefixes[] = {
		"operator new", "strdup", "strndup", "__strdup", "__strndup", "__libc_", "realloc",
		"calloc", "malloc", "aligned_alloc", "posix_memalign", "memalign", "valloc",
		"std::__new_allocator", "__gnu_cxx::new_allocator", "std::allocator", "asprintf",
		"vasprintf", "__asprintf", "__vasprintf", "getline", "getdelim", "__getdelim",
		"open_memstream", "mmap", "xmalloc", "xcalloc", "xrealloc",
	};
	if (!fn)
		return 0;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(fn, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

struct site_names *site_names_new(void)
{
	return calloc(1, sizeof(struct site_names));
}

void site_names_free(struct site_names *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		free(s->p[i].f);
		free(s->p[i].key);
		free(s->p[i].label);
		free(s->p[i].path);
	}
	free(s->p);
	free(s);
}

int site_names_add(struct site_names *s, const struct site_frame *f, int n)
{
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 64;
		struct spath *p = realloc(s->p, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->p = p;
		s->cap = cap;
	}
	struct spath *p = &s->p[s->n];
	memset(p, 0, sizeof(*p));
	p->f = malloc(((size_t)n + 1) * sizeof(*p->f));
	if (!p->f)
		return -ENOMEM;
	memcpy(p->f, f, (size_t)n * sizeof(*f));
	p->n = n;
	return s->n++;
}

/* ---- growing strings ---- */

struct sbuf {
	char *s;
	size_t len, cap;
	int failed;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (int tries = 0; tries < 2 && !b->failed; tries++) {
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->failed = 1;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

static char *sb_take(struct sbuf *b)
{
	if (b->failed) {
		free(b->s);
		return NULL;
	}
	return b->s ? b->s : strdup("");
}

/* ---- the naming frame ---- */

/* The next own frame after index i, -1 if none. */
static int next_own(const struct spath *p, int i)
{
	for (int k = i + 1; k < p->n; k++)
		if (own(&p->f[k]))
			return k;
	return -1;
}

/* The next own frame above i of another function than i's: a recursive function's own
 * calls are no callers of it (a tree built by recursion read as 30 objects, one per path
 * of recursive calls, "#2" to "#8": found beside the trial of 2026-11-29's F1). */
static int next_caller(const struct spath *p, int i)
{
	int k = next_own(p, i);
	const char *fn = i >= 0 ? p->f[i].function : NULL;
	while (k >= 0 && fn && p->f[k].function && !strcmp(p->f[k].function, fn))
		k = next_own(p, k);
	return k;
}

static void first_naming_frame(struct spath *p)
{
	int first_own = next_own(p, -1);
	p->name_at = first_own;
	if (first_own < 0)
		for (int k = 0; k < p->n && p->name_at < 0; k++)
			if (p->f[k].function)
				p->name_at = k;
	/* A library's own allocation: its innermost frame is in a library, and no allocator
	 * interface stands between it and the program's code. */
	if (p->n && site_is_system_path(p->f[0].module) && first_own > 0) {
		p->lib_internal = 1;
		for (int k = 0; k < first_own; k++)
			if (alloc_interface(p->f[k].function))
				p->lib_internal = 0;
	}
}

/* A frame as a call site: function, file, line, column, and the call's offset when
 * with_offset and no column tells calls apart: none, or a Fortran file's (gfortran gives
 * every malloc of one ALLOCATE statement its line and column, and NPB CG's 13 arrays read
 * as one object, the trial of 2026-11-29).  Not a C file's column: a call the compiler
 * copied (an unrolled loop's, rbench.c's calloc five times) is one site. */
static void site_id(struct sbuf *b, const struct site_frame *f, int with_offset)
{
	sb_add(b, "%s\x1f%s\x1f%d\x1f%d", f->function ? f->function : "?", f->file ? f->file : "",
	       f->line, f->column);
	if ((with_offset && (!f->column || file_is_fortran_source(f->file))) || nosym(f))
		sb_add(b, "\x1f%llx", (unsigned long long)f->offset);
}

/* The function a naming frame is in, as a key of the wrapper table. */
static void fn_id(struct sbuf *b, const struct site_frame *f)
{
	sb_add(b, "%s\x1f%s", f->function ? f->function : "?", f->module ? f->module : "");
}

struct callers {
	char *fn, *first;	/* the function, the first call site seen */
	char *above;		/* the first path's call sites above that one (chain_above) */
	int many;		/* called from two or more sites */
	int chain;		/* one site, but the paths part above it: a wrapper's wrapper */
};

#define CHAIN_LEVELS 6		/* call sites compared above a single caller */

/*
 * The own frames' call sites above frame k of p, up to CHAIN_LEVELS, separated by \x1e,
 * into b; stopped at a frame of `function`, the naming frame's (recursion: its depths are
 * one object, not several).
 * minisweep allocates through Pointer_allocate -> Pointer_allocate_h_ -> malloc_host_P:
 * Pointer_allocate_h_ has one caller, which has many, and its 11 arrays read as one
 * object (the trial of 2026-11-29, F1): paths that agree on the caller and part above it
 * make the function a wrapper too.
 */
static void chain_above(struct sbuf *b, const struct spath *p, int k, const char *function)
{
	for (int l = 0, j = next_own(p, k); l < CHAIN_LEVELS && j >= 0; l++, j = next_own(p, j)) {
		const struct site_frame *f = &p->f[j];
		if (nosym(f) || (function && f->function && !strcmp(f->function, function)))
			break;
		if (l)
			sb_add(b, "\x1e");
		site_id(b, f, 0);
	}
	if (!b->s)
		sb_add(b, "%s", "");
}

/* 1 if chains a and b (chain_above) differ at a level both have. */
static int chains_part(const char *a, const char *b)
{
	while (*a && *b) {
		size_t la = strcspn(a, "\x1e"), lb = strcspn(b, "\x1e");
		if (la != lb || strncmp(a, b, la))
			return 1;
		a += la + (a[la] != 0);
		b += lb + (b[lb] != 0);
	}
	return 0;
}

/* Find or add fn in the table (linear: a recording has few allocating functions). */
static struct callers *callers_get(struct callers **t, int *n, int *cap, const char *fn)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*t)[i].fn, fn))
			return &(*t)[i];
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 32;
		struct callers *g = realloc(*t, (size_t)c * sizeof(*g));
		if (!g)
			return NULL;
		*t = g;
		*cap = c;
	}
	struct callers *e = &(*t)[(*n)++];
	e->fn = strdup(fn);
	e->first = e->above = NULL;
	e->many = e->chain = 0;
	return e->fn ? e : NULL;
}

/* One round: functions called from several sites move their paths' naming frame out.
 * 1 if a naming frame moved, 0 if none did, -ENOMEM. */
static int wrapper_round(struct site_names *s)
{
	struct callers *t = NULL;
	int n = 0, cap = 0, moved = 0, err = 0;

	for (int i = 0; i < s->n && !err; i++) {
		struct spath *p = &s->p[i];
		int k = p->name_at >= 0 ? next_caller(p, p->name_at) : -1;
		if (k < 0 || p->lib_internal || nosym(&p->f[p->name_at]))
			continue;
		struct sbuf fn = { 0 }, caller = { 0 }, above = { 0 };
		fn_id(&fn, &p->f[p->name_at]);
		/* no offset: the frames of inlined calls carry their physical frame's, which
		 * differs for every call the inlined code makes */
		site_id(&caller, &p->f[k], 0);
		chain_above(&above, p, k, p->f[p->name_at].function);
		struct callers *e = fn.failed || caller.failed || above.failed ? NULL :
				    callers_get(&t, &n, &cap, fn.s);
		if (!e)
			err = -ENOMEM;
		else if (!e->first)
			e->first = caller.s, caller.s = NULL, e->above = above.s, above.s = NULL;
		else if (strcmp(e->first, caller.s))
			e->many = 1;
		else if (chains_part(e->above, above.s))
			e->chain = 1;
		free(fn.s);
		free(caller.s);
		free(above.s);
	}
	for (int i = 0; i < s->n && !err; i++) {
		struct spath *p = &s->p[i];
		int k = p->name_at >= 0 ? next_caller(p, p->name_at) : -1;
		if (k < 0 || p->lib_internal || nosym(&p->f[p->name_at]))
			continue;
		struct sbuf fn = { 0 };
		fn_id(&fn, &p->f[p->name_at]);
		for (int j = 0; fn.s && j < n; j++)
			if ((t[j].many || t[j].chain) && !strcmp(t[j].fn, fn.s)) {
				p->name_at = k;
				moved = 1;
			}
		free(fn.s);
	}
	for (int j = 0; j < n; j++) {
		free(t[j].fn);
		free(t[j].first);
		free(t[j].above);
	}
	free(t);
	return err ? err : moved;
}

/* ---- key, label, path ---- */

static void frame_label(struct sbuf *b, const struct site_frame *f)
{
	if (f->function && f->file && f->line > 0)
		sb_add(b, "%s (%s:%d)", f->function, base_name(f->file), f->line);
	else if (f->function && f->file)
		sb_add(b, "%s (%s)", f->function, base_name(f->file));
	else if (f->function && f->module)
		sb_add(b, "%s [%s]", f->function, base_name(f->module));
	else if (f->function)
		sb_add(b, "%s", f->function);
	else if (f->module)
		sb_add(b, "[unknown] (%s+0x%llx)", base_name(f->module),
		       (unsigned long long)f->offset);
	else
		sb_add(b, "[unknown] (0x%llx)", (unsigned long long)f->offset);
}

static int describe(struct spath *p)
{
	struct sbuf key = { 0 }, label = { 0 }, path = { 0 };
	int at = p->name_at;

	if (p->lib_internal) {
		sb_add(&key, "lib\x1f%s\x1f", p->f[0].module);
		sb_add(&label, "[%s] for ", base_name(p->f[0].module));
	}
	for (int k = 0; k <= at; k++) {
		/* library frames by function only: their lines say nothing about the object */
		if (site_is_system_path(p->f[k].module))
			fn_id(&key, &p->f[k]);
		else
			site_id(&key, &p->f[k], k == at);
		sb_add(&key, "\x1e");
	}
	if (at >= 0 && own(&p->f[at]) && nosym(&p->f[at])) {
		/* "[setup]+0x11c2 (from +0x10d4 < +0x1234)": the call and its callers' return
		 * addresses, in key and label alike (nosym) */
		sb_add(&label, "[%s]+0x%llx", base_name(p->f[at].module),
		       (unsigned long long)p->f[at].offset);
		for (int k = next_own(p, at), c = 0; k >= 0 && c < NOSYM_CALLERS;
		     k = next_own(p, k), c++) {
			site_id(&key, &p->f[k], 1);
			sb_add(&key, "\x1e");
			sb_add(&label, "%s+0x%llx", c ? " < " : " (from ",
			       (unsigned long long)p->f[k].offset);
			if (c == NOSYM_CALLERS - 1 || next_own(p, k) < 0)
				sb_add(&label, ")");
		}
	} else if (at >= 0)
		frame_label(&label, &p->f[at]);
	else if (p->n) {
		site_id(&key, &p->f[0], 1);
		frame_label(&label, &p->f[0]);
	} else {
		sb_add(&key, "?");
		sb_add(&label, "[unknown allocation site]");
	}
	for (int k = p->n - 1; k >= 0; k--) {
		frame_label(&path, &p->f[k]);
		if (k)
			sb_add(&path, " > ");
	}
	p->key = sb_take(&key);
	p->label = sb_take(&label);
	p->path = sb_take(&path);
	return p->key && p->label && p->path ? 0 : -ENOMEM;
}

static int cmp_label(const void *a, const void *b, void *ctx)
{
	const struct site_names *s = ctx;
	const struct spath *x = &s->p[*(const int *)a], *y = &s->p[*(const int *)b];
	int c = strcmp(x->label, y->label);
	return c ? c : strcmp(x->key, y->key);
}

/* b's text as p's new label.  0 or -ENOMEM. */
static int take_label(struct spath *p, struct sbuf *b)
{
	char *s = sb_take(b);
	if (!s)
		return -ENOMEM;
	free(p->label);
	p->label = s;
	return 0;
}

/*
 * What the call at `column` of the source line is assigned to, into out: "b" for
 * "double *a = malloc(n), *b = malloc(n);" at the second call, "p->data" for
 * "p->data = (double *)malloc(n)"; 0, or -1 when the source is not readable here or the
 * call is not the right side of an assignment.  The usability review of 2026-11-29: the
 * objects of one line read "main (omp.c:8) [column 13/29/45/67]", columns to count.
 */
static int assigned_to(const char *file, int line, int column, char *out, size_t len)
{
	char src[1024];
	if (!file || column <= 1 || file_source_line(file, line, src, sizeof(src)) ||
	    (size_t)column > strlen(src) + 1)
		return -1;
	int i = column - 2;	/* the character before the call */
	/* C++'s new: g++ puts the call of `new double[n]` at its ']' (the trial of
	 * 2026-11-29: a constructor's arrays read "[column 40]", "[column 59]"); back over
	 * every bracket group (`new double[n][3]`, `new int[n]()`) and the type to the
	 * keyword, and from there as before it */
	for (int at = column - 1; at >= 0 && (src[at] == ']' || src[at] == ')');) {
		char close = src[at], open = close == ']' ? '[' : '(';
		int k = at - 1;
		for (int depth = 1; k >= 0; k--) {
			depth += src[k] == close ? 1 : src[k] == open ? -1 : 0;
			if (!depth)
				break;
		}
		if (k < 0)
			break;
		i = k - 1;
		at = k - 1;
	}
	for (int k = i; k >= 2 && i - k < 80; k--) {
		if (!strchr(" \t_:<>,*&", src[k]) && !isalnum((unsigned char)src[k]))
			break;
		int word = k < 3 || !(isalnum((unsigned char)src[k - 3]) || src[k - 3] == '_');
		if (word && !strncmp(src + k - 2, "new", 3) && k + 1 <= i &&
		    (src[k + 1] == ' ' || src[k + 1] == '\t')) {
			i = k - 3;
			break;
		}
	}
	for (;;) {
		while (i >= 0 && (src[i] == ' ' || src[i] == '\t'))
			i--;
		if (i < 0 || src[i] != ')')
			break;
		for (int depth = 0; i >= 0; i--) {	/* a cast: back over it */
			depth += src[i] == ')' ? 1 : src[i] == '(' ? -1 : 0;
			if (!depth)
				break;
		}
		i--;
	}
	if (i < 1 || src[i] != '=' || strchr("=!<>+-*/%&|^", src[i - 1]))
		return -1;	/* not a plain assignment (a compound one keeps its column) */
	i--;
	while (i >= 0 && (src[i] == ' ' || src[i] == '\t'))
		i--;
	int end = i + 1;
	while (i >= 0 && (isalnum((unsigned char)src[i]) || strchr("_.[]>", src[i]) ||
			  (src[i] == '-' && src[i + 1] == '>')))
		i--;
	int start = i + 1;
	while (start < end && !(isalpha((unsigned char)src[start]) || src[start] == '_'))
		start++;	/* not from a digit or a stray bracket */
	if (start >= end || end - start > 60)
		return -1;
	snprintf(out, len, "%.*s", end - start, src + start);
	return 0;
}

/* Add to p's label what tells it from another object's of the same label: the column or
 * the call's offset (how = 0), the program frame just inside the named one (how = -1: a
 * wrapper's own line, where one call of the wrapper makes several objects), or an ordinal
 * (how = n >= 2). */
static int disambiguate(struct spath *p, int how)
{
	struct sbuf b = { 0 };
	const struct site_frame *f = p->name_at >= 0 ? &p->f[p->name_at] : NULL;

	sb_add(&b, "%s", p->label);
	if (how == -1) {
		const struct site_frame *in = p->name_at >= 1 ? &p->f[p->name_at - 1] : NULL;
		if (!in || site_is_system_path(in->module) || !in->function || in->line <= 0) {
			free(b.s);
			return 0;
		}
		sb_add(&b, " [in ");
		frame_label(&b, in);
		sb_add(&b, "]");
	} else if (how >= 2)
		sb_add(&b, " #%d", how);
	else if (f && f->column) {
		char v[64];
		if (!assigned_to(f->file, f->line, f->column, v, sizeof(v)))
			sb_add(&b, " [column %d: %s]", f->column, v);
		else
			sb_add(&b, " [column %d]", f->column);
	}
	else if (f)
		sb_add(&b, " [call at +0x%llx]", (unsigned long long)f->offset);
	return take_label(p, &b);
}

/* The naming frame's call offset of a path (0 without one). */
static unsigned long long call_offset(const struct spath *p)
{
	return p->name_at >= 0 ? (unsigned long long)p->f[p->name_at].offset : 0;
}

/* In the group ix[i..j) of one label: 1 if two of its keys share a column (or have none),
 * so that columns cannot tell them apart. */
static int columns_alike(const struct site_names *s, const int *ix, int i, int j)
{
	for (int a = i; a < j; a++)
		for (int b = a + 1; b < j; b++) {
			const struct spath *x = &s->p[ix[a]], *y = &s->p[ix[b]];
			if (strcmp(x->key, y->key) && call_offset(x) != call_offset(y) &&
			    (x->name_at < 0 || y->name_at < 0 ||
			     x->f[x->name_at].column == y->f[y->name_at].column))
				return 1;
		}
	return 0;
}

/* Label p as the k-th of n calls on its line, in code order: a Fortran ALLOCATE's arrays in
 * the statement's order (gfortran allocates them one after the other). */
static int label_call_order(const struct site_names *s, const int *ix, int i, int j,
			    struct spath *p)
{
	unsigned long long off = call_offset(p), seen[64];
	int n = 0, k = 1;
	for (int a = i; a < j; a++) {
		unsigned long long o = call_offset(&s->p[ix[a]]);
		int dup = 0;
		for (int b = 0; b < n && !dup; b++)
			dup = seen[b] == o;
		if (dup)
			continue;
		if (n < 64)
			seen[n++] = o;
		k += o < off;
	}
	struct sbuf b = { 0 };
	sb_add(&b, "%s [call %d of %d on the line]", p->label, k, n);
	return take_label(p, &b);
}

/*
 * One pass over the paths sorted by label: in every group of one label with two or more
 * keys, disambiguate each path (ordinal: the n-th key of the group, from the second on).
 * In the first pass, a group whose columns cannot tell it apart is told by the calls'
 * order on the line.  *changed tells whether a group was found.
 */
static int unique_pass(struct site_names *s, int *ix, int ordinal, int *changed)
{
	int err = 0;
	*changed = 0;
	qsort_r(ix, (size_t)s->n, sizeof(*ix), cmp_label, s);
	for (int i = 0; i < s->n && !err;) {
		int j = i + 1, keys = 1;
		for (; j < s->n && !strcmp(s->p[ix[j]].label, s->p[ix[i]].label); j++)
			keys += !!strcmp(s->p[ix[j]].key, s->p[ix[j - 1]].key);
		int by_order = ordinal == 0 && keys > 1 && j - i <= 64 && columns_alike(s, ix, i, j);
		for (int k = i, nth = 1; keys > 1 && k < j && !err; k++) {
			if (k > i && strcmp(s->p[ix[k]].key, s->p[ix[k - 1]].key))
				nth++;
			if (by_order)
				err = label_call_order(s, ix, i, j, &s->p[ix[k]]);
			else if (ordinal == 0)
				err = disambiguate(&s->p[ix[k]], 0);
			else if (ordinal == 1)
				err = disambiguate(&s->p[ix[k]], -1);
			else if (nth >= 2)
				err = disambiguate(&s->p[ix[k]], nth);
		}
		*changed |= keys > 1;
		i = j;
	}
	return err;
}

/* Labels shared by paths of different keys get told apart: by column or offset first,
 * by an ordinal when that is not enough (the same call reached through other paths). */
static int unique_labels(struct site_names *s)
{
	int changed, *ix = malloc(((size_t)s->n + 1) * sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (int i = 0; i < s->n; i++)
		ix[i] = i;
	int err = unique_pass(s, ix, 0, &changed);
	/* still one label for several objects: the wrapper's line inside it (miniMD's four
	 * arrays of Atom::growarray(), all made at one call in Atom::addatom(), read as
	 * "addatom(...) (atom.cpp:89) [column 31] #2, #3, #4": the trial of 2026-11-27),
	 * then an ordinal */
	if (!err && changed)
		err = unique_pass(s, ix, 1, &changed);
	if (!err && changed)
		err = unique_pass(s, ix, 2, &changed);
	free(ix);
	return err;
}

int site_names_resolve(struct site_names *s)
{
	for (int i = 0; i < s->n; i++)
		first_naming_frame(&s->p[i]);
	for (int round = 0; round < MAX_ROUNDS; round++) {
		int r = wrapper_round(s);
		if (r < 0)
			return r;
		if (!r)
			break;
	}
	for (int i = 0; i < s->n; i++)
		if (describe(&s->p[i]))
			return -ENOMEM;
	return unique_labels(s);
}

const char *site_names_key(const struct site_names *s, int i)
{
	return s->p[i].key;
}

const char *site_names_label(const struct site_names *s, int i)
{
	return s->p[i].label;
}

const char *site_names_path(const struct site_names *s, int i)
{
	return s->p[i].path;
}

const struct site_frame *site_names_frame(const struct site_names *s, int i)
{
	return s->p[i].name_at >= 0 ? &s->p[i].f[s->p[i].name_at] : NULL;
}
