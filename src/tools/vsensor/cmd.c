/* SPDX-License-Identifier: MIT */
/*
 * cmd-vsensor.c - sonde vsensor: list, cc, report, score, records.
 * Exit statuses: 0 success, 1 failure (cannot parse, compiler failed: its status is
 * passed through for cc), 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "prof/tool.h"
#include "tools/vsensor/analysis.h"
#include "tools/vsensor/model.h"
#include "tools/vsensor/rec.h"
#include "prof/file.h"
#include "ui/csv.h"
#include "ui/text.h"

#ifndef SONDE_VSENSOR_LIBDIR
#define SONDE_VSENSOR_LIBDIR "."
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: sonde vsensor list [--csv] [--max-depth N] [--with FILES] FILE.c [-- COMPILER-ARGS]\n"
		   "       sonde vsensor cc [--max-depth N] [--with FILES] COMPILER ARGS...\n"
		   "       sonde vsensor report [--csv | --json | --html FILE] [--top N]\n"
		   "                            [-q|--quiet] [--threshold T] [--min-slices N]\n"
		   "                            DIR...\n"
		   "       sonde vsensor score --truth KIND:RANKS:START:END|none [--threshold T] DIR\n"
		   "       sonde vsensor records DIR\n\n"
		   "Find fixed-work snippets (v-sensors) in C sources, instrument them, and show\n"
		   "the rank x time performance of an MPI run built with 'sonde vsensor cc'.\n\n"
		   "  list      the candidates: site, function, kind, status, scope, why rejected\n"
		   "  cc        analyse, instrument and compile like COMPILER (e.g. mpicc); links\n"
		   "            libsonde-vsensor.a when linking\n"
		   "  report    events, heat maps (--html FILE: a page); several DIRs in turn;\n"
		   "            text: the --top N most severe events (default 10), --quiet: no\n"
		   "            notes, only the tables\n"
		   "  score     precision/recall of the flagged cells against a known slowdown\n"
		   "  records   the raw slice records of rank-*.rec as CSV (both file formats)\n"
		   "  --with FILES  the program's other .c files (a pattern: --with 'src/*.c'; may\n"
		   "            repeat): analysed with each file, as one program, not instrumented;\n"
		   "            without it, other files may call any non-static function\n"
		   "  SONDE_VSENSOR_LIB=FILE the runtime library cc links (default: the installed\n"
		   "            libsonde-vsensor.a)\n\n"
		   "The instrumented program (environment):\n"
		   "  SONDE_DIR=DIR          output directory (default vsensor-<program>-<job>/)\n"
		   "  SONDE_VS_LIVE=0        no live per-rank warnings on stderr\n"
		   "  SONDE_VS_SLICE_MS=N    matrix slice (default 200)\n"
		   "  SONDE_VS_THRESHOLD=T   threshold of every kind for the final analysis\n\n"
		   "Exit: 0 ok, 1 failure, 2 usage; cc passes the compiler's status.\n"
		   "More: man sonde-vsensor (doc/sonde-vsensor.md)\n");
}

/* Compiler arguments libclang needs: -I, -D, -U, -std, plus MPI's include dirs. */
static int clang_args(int argc, char **argv, const char **out, int max)
{
	int n = 0;
	static char mpiinc[2][256];
	static int have = -1;
	if (have < 0) {
		have = 0;
		FILE *p = popen("mpicc --showme:incdirs 2>/dev/null", "r");
		if (p) {
			char buf[600];
			if (fgets(buf, sizeof(buf), p)) {
				char *save, *t = strtok_r(buf, " \n", &save);
				while (t && have < 2) {
					snprintf(mpiinc[have++], sizeof(mpiinc[0]), "-I%s", t);
					t = strtok_r(NULL, " \n", &save);
				}
			}
			pclose(p);
		}
	}
	for (int i = 0; i < have && n < max; i++)
		out[n++] = mpiinc[i];
	for (int i = 0; i < argc && n < max - 1; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2) || !strncmp(a, "-U", 2) ||
		    !strncmp(a, "-std", 4) || !strcmp(a, "-include")) {
			out[n++] = a;
			if ((!strcmp(a, "-I") || !strcmp(a, "-D") || !strcmp(a, "-include")) && i + 1 < argc)
				out[n++] = argv[++i];
		}
	}
	return n;
}

/* --with PATTERN, appended to with (glob(3)).  A pattern that matches no file is said so,
 * and left out: it read "analysing 'main.c' without --with nomatch/...: libclang failed"
 * (the usability review of 2026-11-29, M8: a Makefile's wrong relative path). */
static int with_nomatch;	/* a --with pattern matched no file: the program stays open */

static void add_with(glob_t *with, const char *pattern)
{
	/* out of memory leaves the files so far: the analysis then sees less, no more */
	if (glob(pattern, with->gl_pathc ? GLOB_APPEND : 0, NULL, with) == GLOB_NOMATCH) {
		/* the other patterns' files are not the whole program (the code review of
		 * 2026-11-29: a typo beside a good pattern made the analysis closed) */
		with_nomatch = 1;
		char cwd[PATH_MAX];
		sonde_warn("vsensor: --with '%s' matches no file (from %s): the program's other "
			   "files are then not seen", pattern,
			   getcwd(cwd, sizeof(cwd)) ? cwd : "this directory");
	}
}

/* hint: what the user can do about a parse failure, "" when nothing to add */
static int analyze_or_say(const char *path, const char **cargs, int ncargs, int max_depth,
			  const glob_t *with, struct vs_analysis *a, const char *hint)
{
	struct vs_options o = { .max_depth = max_depth, .open = with_nomatch };
	if (with && with->gl_pathc) {
		o.with = (const char *const *)with->gl_pathv;
		o.nwith = (int)with->gl_pathc;
	}
	int err = vs_analyze(path, cargs, ncargs, &o, a);
	if (err == -ENOEXEC)
		sonde_error("%s", a->error);
	else if (err == -EINVAL)
		sonde_error("cannot parse '%s'%s: %s", path, hint, a->error[0] ? a->error : "libclang failed");
	else if (err)
		sonde_error("cannot read '%s': %s", path, strerror(-err));
	else if (a->skipped[0])
		sonde_warn("vsensor: analysing '%s' without --with %s", path, a->skipped);
	if (!err && a->duplicate[0])
		sonde_warn("vsensor: --with names more than one program's files: %s (%d such "
			   "function%s); the first definition is the one analysed, and calls made "
			   "from the other are unseen: give only the files linked into the program",
			   a->duplicate, a->nduplicate, a->nduplicate == 1 ? "" : "s");
	if (!err && a->included)
		sonde_warn("vsensor: '%s' #includes %d function%s from .c files (the first from %s): "
			   "not analysed, never timed (sonde vsensor instruments the text of the "
			   "file it compiles, not of the files that file includes)",
			   path, a->included, a->included == 1 ? "" : "s", a->included_file);
	/* no --with: a file that holds main may be the whole program, and its rejections for
	 * code not seen would go (the trial of 2026-11-30: miniWeather in one file, 2
	 * sensors and 68 rejections without --with itself, 10 sensors with it) */
	int unseen = 0, has_main = 0;
	for (int i = 0; !err && !o.nwith && i < a->n; i++) {
		unseen += strstr(a->c[i].reason, "not all seen") || strstr(a->c[i].reason,
									 "code not seen");
		has_main |= !strcmp(a->c[i].func, "main");
	}
	if (unseen && has_main)
		sonde_warn("vsensor: '%s': %d candidate%s rejected for code not seen: if this "
			   "file is the whole program, say so with --with %s", path, unseen,
			   unseen == 1 ? "" : "s", path);
	if (!err && a->header_loops)
		sonde_warn("vsensor: '%s' has %d loop%s in %d function%s defined in headers (the "
			   "first in %s): not candidates themselves (sensors come from the .c "
			   "file's own code; its calls of those functions can be)", path,
			   a->header_loops, a->header_loops == 1 ? "" : "s", a->header_funcs,
			   a->header_funcs == 1 ? "" : "s", a->header_file);
	return err;
}

/* --max-depth N, N >= 0 loops; 0, or a usage error (atoi took "abc" for 0). */
static int parse_depth(const char *v, int *depth)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > 1000) {
		sonde_usage_error("vsensor", "--max-depth wants a number of loops, not '%s'", v);
		return -1;
	}
	*depth = (int)n;
	return 0;
}

/*
 * The options list and cc share, --max-depth N and --with FILES, at argv[*i]: 1 when it
 * is one (*i then at its value), 0 when it is not, -1 after a usage error (printed).
 */
static int shared_option(int argc, char **argv, int *i, int *max_depth, glob_t *with)
{
	const char *o = argv[*i];
	int depth = !strcmp(o, "--max-depth");
	if (!depth && strcmp(o, "--with"))
		return 0;
	if (*i + 1 >= argc) {
		sonde_usage_error("vsensor", "%s needs a value", o);
		return -1;
	}
	const char *v = argv[++*i];
	if (!depth) {
		add_with(with, v);
		return 1;
	}
	return parse_depth(v, max_depth) ? -1 : 1;
}

/* A C++ or Fortran source by its name (.cc, .cpp, .cxx, .c++, .C; .f, .f90, .F90...): its
 * language ("C++", "Fortran"), NULL for any other.  The analysis reads C only (the trial
 * of 2026-11-28: Quicksilver's .cc files, 0 sensors, operator calls read as function
 * pointers, nothing said; of 2026-11-29: NPB-MPI's Fortran compiled silently, no sensor). */
static const char *other_language(const char *s)
{
	static const char *const cxx[] = { ".cc", ".cpp", ".cxx", ".c++", ".C", ".CC", ".cp" };
	const char *dot = s && s[0] != '-' ? strrchr(s, '.') : NULL;
	for (size_t i = 0; dot && i < sizeof(cxx) / sizeof(cxx[0]); i++)
		if (!strcmp(dot, cxx[i]))
			return "C++";
	return dot && file_is_fortran_source(s) ? "Fortran" : NULL;
}

static int cmd_list(int argc, char **argv)
{
	int csv = 0, max_depth = 6;
	const char *file = NULL;
	glob_t with = { 0 };
	int i;
	for (i = 0; i < argc; i++) {
		int r = shared_option(argc, argv, &i, &max_depth, &with);
		if (r < 0) {
			globfree(&with);
			return EXIT_USAGE;
		}
		if (r)
			continue;
		if (!strcmp(argv[i], "--csv"))
			csv = 1;
		else if (!strcmp(argv[i], "--"))
			break;
		else if (argv[i][0] == '-' && argv[i][1] != '-')	/* -DX, -I...: after -- */
			return sonde_usage_error("vsensor", "unknown option '%s' (compiler "
						 "flags go after '--': list FILE.c -- %s)",
						 argv[i], argv[i]);
		else if (argv[i][0] == '-')
			return sonde_usage_error("vsensor", "unknown option '%s'", argv[i]);
		else if (!file)
			file = argv[i];
		else
			return sonde_usage_error("vsensor", "unexpected argument '%s'", argv[i]);
	}
	if (!file)
		return sonde_usage_error("vsensor", "list needs a C file");
	if (other_language(file)) {
		globfree(&with);
		sonde_error("vsensor: '%s' is %s: the analysis reads C only (sonde-vsensor(1))",
			    file, other_language(file));
		return 1;
	}
	const char *cargs[64];
	int nc = i < argc ? clang_args(argc - i - 1, argv + i + 1, cargs, 64) : clang_args(0, NULL, cargs, 64);
	struct vs_analysis a;
	int err = analyze_or_say(file, cargs, nc, max_depth, &with, &a, " (give its -I/-D after --)");
	globfree(&with);
	if (err)
		return 1;
	const char *base = strrchr(a.file, '/') ? strrchr(a.file, '/') + 1 : a.file;
	static const char *const head[] = { "site", "function", "snippet", "kind", "status", "scope", "reason" };
	struct text_table *t = csv ? NULL : text_table_new(7, head, "lnlllll");
	if (csv)
		csv_row(stdout, 7, head);
	int nsel = 0;
	for (int k = 0; k < a.n; k++) {
		struct vs_cand *c = &a.c[k];
		char site[600], status[32];
		snprintf(site, sizeof(site), "%s:%d", base, c->line);
		snprintf(status, sizeof(status), "%s%s", c->selected ? "sensor" : c->global ? "global" : "rejected",
			 c->rank_dependent ? ",rank" : "");
		nsel += c->selected;
		const char *row[] = { site, c->func, c->what, vs_kind_name(c->kind), status, c->scope, c->reason };
		if (csv)
			csv_row(stdout, 7, row);
		else
			text_table_add(t, row);
	}
	if (!csv) {
		text_table_print(t, stdout, "");
		printf("%d candidate%s, %d sensor%s\n", a.n, a.n == 1 ? "" : "s", nsel,
		       nsel == 1 ? "" : "s");
		text_table_free(t);
	}
	vs_analysis_release(&a);
	return 0;
}

static int run(char **argv)
{
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "sonde: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Does the compiler take option opt?  A preprocessing of nothing, quietly: nvc and other
 * compilers refuse -fdebug-prefix-map (the code review of 2026-11-29). */
static int compiler_takes(const char *cc, const char *opt)
{
	pid_t p = fork();
	if (p < 0)
		return 0;
	if (p == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp(cc, cc, opt, "-E", "-x", "c", "/dev/null", "-o", "/dev/null", (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int is_c_source(const char *s)
{
	size_t n = strlen(s);
	return n > 2 && s[0] != '-' && !strcmp(s + n - 2, ".c");
}

/* In the file at path, if it exists, every `from` replaced by `to`. */
static void replace_in_file(const char *path, const char *from, const char *to)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char *s = NULL, *o = NULL;
	size_t len = 0, olen = 0, fl = strlen(from);
	FILE *m = open_memstream(&s, &len);
	char buf[8192];
	size_t got;
	while (m && (got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, m);
	fclose(f);
	if (!m || fclose(m) || !s || !strstr(s, from)) {
		free(s);
		return;
	}
	FILE *w = open_memstream(&o, &olen);
	for (const char *p = s, *q; w && *p; p = q + fl) {
		q = strstr(p, from);
		if (!q) {
			fputs(p, w);
			break;
		}
		fwrite(p, 1, (size_t)(q - p), w);
		fputs(to, w);
	}
	/* beside it, then over it: a short write leaves the compiler's file whole (the code
	 * review of 2026-11-29) */
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.sonde-tmp", path);
	if (w && !fclose(w) && o && (f = fopen(tmp, "w"))) {
		int bad = fwrite(o, 1, olen, f) != olen;
		bad |= fclose(f) != 0;
		if (bad || rename(tmp, path)) {
			sonde_warn("vsensor: cannot rewrite '%s': %s", path, strerror(errno));
			unlink(tmp);
		}
	}
	free(o);
	free(s);
}

/*
 * The dependency files the compile wrote (-MD, -MMD: beside -o's object, or the source's
 * base name in this directory; -MF's), with each instrumented copy's path, a temporary one
 * gone when the compile ends, put back to the source's as given: make's next run found
 * "No rule to make target /tmp/sonde-vsensor.X/0/main.c" (the usability review of
 * 2026-11-29, H1).  copies[i] and origs[i] for the n sources.
 */
static void fix_deps(char **cc, int ncc, char **copies, char **origs, int n)
{
	const char *mf = NULL, *o = NULL;
	int md = 0;
	for (int k = 1; k < ncc; k++) {
		md |= !strcmp(cc[k], "-MD") || !strcmp(cc[k], "-MMD");
		if (!strcmp(cc[k], "-MF") && k + 1 < ncc)
			mf = cc[k + 1];
		else if (!strncmp(cc[k], "-MF", 3) && cc[k][3])
			mf = cc[k] + 3;
		if (!strcmp(cc[k], "-o") && k + 1 < ncc)
			o = cc[k + 1];
		else if (!strncmp(cc[k], "-o", 2) && cc[k][2])
			o = cc[k] + 2;
	}
	if (!md && !mf)
		return;
	for (int i = 0; i < n; i++) {
		if (mf) {
			replace_in_file(mf, copies[i], origs[i]);
			continue;
		}
		/* -MD's file: the object's name with .d, or the source's base name's (in this
		 * directory and beside -o's), or gcc 11's "OUT-BASE.d" of a compile and link;
		 * each rewritten only where it names the copy */
		const char *base = strrchr(origs[i], '/') ? strrchr(origs[i], '/') + 1 : origs[i];
		char stem[PATH_MAX], d[PATH_MAX + 8], ostem[PATH_MAX] = "";
		snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(base) - 2), base);  /* x.c */
		if (o) {
			snprintf(ostem, sizeof(ostem), "%s", o);
			char *dot = strrchr(ostem, '.'), *sl = strrchr(ostem, '/');
			if (dot && (!sl || dot > sl))
				*dot = 0;
			snprintf(d, sizeof(d), "%s.d", ostem);
			replace_in_file(d, copies[i], origs[i]);
			snprintf(d, sizeof(d), "%s-%s.d", o, stem);
			replace_in_file(d, copies[i], origs[i]);
		}
		snprintf(d, sizeof(d), "%s.d", stem);
		replace_in_file(d, copies[i], origs[i]);
	}
}


/* sonde vsensor cc COMPILER ARGS: rewrite each .c, compile the rewritten copies. */
static int cmd_cc(int argc, char **argv)
{
	int max_depth = 6, i = 0;
	glob_t with = { 0 };
	for (; i < argc; i++) {
		int r = shared_option(argc, argv, &i, &max_depth, &with);
		if (r < 0) {
			globfree(&with);
			return EXIT_USAGE;
		}
		if (!r)
			break;
	}
	if (i >= argc) {
		globfree(&with);
		return sonde_usage_error("vsensor", "cc needs a compiler and its arguments");
	}
	char **cc = argv + i;
	int ncc = argc - i;
	int compile_only = 0;
	for (int k = 1; k < ncc; k++)
		compile_only |= !strcmp(cc[k], "-c") || !strcmp(cc[k], "-S") || !strcmp(cc[k], "-E");
	const char *cargs[64];
	int nc = clang_args(ncc - 1, cc + 1, cargs, 62);
	char tmpdir[] = "/tmp/sonde-vsensor.XXXXXX";
	if (!mkdtemp(tmpdir)) {
		sonde_error("cannot create a temporary directory: %s", strerror(errno));
		globfree(&with);
		return 1;
	}
	/* a source becomes -iquote DIR + copy (+ -fdebug-prefix-map, with -g) */
	char **nargv = calloc(3 * ncc + 16, sizeof(char *));
	char **owned = calloc(3 * ncc + 16, sizeof(char *));
	char **copies = calloc((size_t)ncc + 1, sizeof(char *)), **origs = calloc((size_t)ncc + 1,
										 sizeof(char *));
	int debug = 0;
	for (int k = 1; k < ncc; k++)
		debug |= !strncmp(cc[k], "-g", 2) && strcmp(cc[k], "-g0");
	debug = debug && compiler_takes(cc[0], "-fdebug-prefix-map=/sonde-a=/sonde-b");
	if (!nargv || !owned || !copies || !origs) {
		sonde_error("out of memory");
		free(nargv);
		free(owned);
		free(copies);
		free(origs);
		rmdir(tmpdir);
		globfree(&with);
		return 1;
	}
	int nn = 0, no = 0, rc = 0, nsrc = 0, mpi_init = 0, objects = 0;
	for (int k = 1; k < ncc; k++) {	/* objects or libraries: a source not seen here */
		size_t l = strlen(cc[k]);
		objects |= cc[k][0] != '-' && l > 2 && (!strcmp(cc[k] + l - 2, ".o") ||
							 !strcmp(cc[k] + l - 2, ".a") ||
							 strstr(cc[k], ".so"));
	}
	for (int k = 0; k < ncc && !rc; k++) {
		if (k && other_language(cc[k]))
			sonde_warn("vsensor: '%s' is %s: the analysis reads C only; compiled as "
				   "given, without sensors", cc[k], other_language(cc[k]));
		if (k == 0 || !is_c_source(cc[k])) {
			nargv[nn++] = cc[k];
			continue;
		}
		struct vs_analysis a;
		int aerr = analyze_or_say(cc[k], cargs, nc, max_depth, &with, &a, "");
		if (aerr == -EINVAL) {
			/* the build goes on: libclang 14 rejects some code gcc takes, and a
			 * file without sensors loses only its own sensors */
			sonde_warn("vsensor: compiling '%s' without sensors", cc[k]);
			nargv[nn++] = cc[k];
			continue;
		}
		if (aerr) {
			rc = 1;
			break;
		}
		for (int i = 0; i < a.n; i++)
			mpi_init |= !strcmp(a.c[i].what, "MPI_Init") ||
				    !strcmp(a.c[i].what, "MPI_Init_thread");
		/*
		 * The copy keeps the original's name, in a directory of its own: -c, -S
		 * without -o then write x.o / x.s where the original's would go, for one
		 * source or several ("-o" cannot be given with -c and several files).
		 */
		const char *base = strrchr(cc[k], '/') ? strrchr(cc[k], '/') + 1 : cc[k];
		char *out = NULL;
		if (asprintf(&out, "%s/%d", tmpdir, nsrc) < 0)
			abort();
		if (mkdir(out, 0700)) {
			sonde_error("cannot create '%s': %s", out, strerror(errno));
			free(out);
			rc = 1;
			break;
		}
		free(out);
		if (asprintf(&out, "%s/%d/%s", tmpdir, nsrc, base) < 0)
			abort();
		nsrc++;
		FILE *f = fopen(out, "w");
		int err = f ? vs_rewrite(&a, cc[k], f) : -errno;
		if (f && fclose(f) && !err)
			err = -errno;
		vs_analysis_release(&a);
		if (err) {
			sonde_error("cannot write '%s': %s", out, strerror(-err));
			unlink(out);
			rmdir(dirname(out));
			free(out);
			rc = 1;
			break;
		}
		/* #include "x.h" next to the original still resolves */
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", cc[k]);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
		char *iq = NULL;
		if (asprintf(&iq, "-iquote%s", dir) < 0)
			abort();
		owned[no++] = iq;
		nargv[nn++] = iq;
		/* the debug information's name of the unit: the source's directory, not the
		 * temporary one, gone after the compile (H3 of the same review) */
		char *pm = NULL;
		if (debug) {
			char *cd = strdup(out);
			if (!cd || asprintf(&pm, "-fdebug-prefix-map=%s=%s", dirname(cd), dir) < 0)
				abort();
			free(cd);
			nargv[nn++] = pm;
		}
		copies[nsrc - 1] = out;
		origs[nsrc - 1] = cc[k];
		owned[no++] = out;
		nargv[nn++] = out;
		if (pm)
			owned[no++] = pm;
	}
	/* A program whose every source is here and none starts MPI: the runtime times ranks
	 * from MPI_Init, so it would record nothing, in silence (the usability review of
	 * 2026-11-28: a pthread program built with mpicc; with gcc, 40 lines of undefined
	 * PMPI_* from the linker) */
	if (!rc && !compile_only && nsrc && !objects && !mpi_init)
		sonde_warn("vsensor: no source here calls MPI_Init: sonde vsensor times the ranks "
			   "of an MPI program from MPI_Init on, and this one will record nothing%s",
			   strstr(cc[0], "mpi") ? "" : " (and its link needs an MPI compiler "
			   "wrapper such as mpicc)");
	char *lib = NULL;
	if (!rc && !compile_only) {
		const char *env = getenv("SONDE_VSENSOR_LIB");
		char found[PATH_MAX];
		if (!env && launch_find_lib("libsonde-vsensor.a", found, sizeof(found)) == 0)
			env = found;
		if (asprintf(&lib, "%s", env ? env : SONDE_VSENSOR_LIBDIR "/libsonde-vsensor.a") < 0)
			abort();
		nargv[nn++] = lib;
		nargv[nn++] = "-lm";
		nargv[nn++] = "-lpthread";	/* the runtime's CPU-share sampler */
	}
	nargv[nn] = NULL;
	if (!rc)
		rc = run(nargv);
	if (!rc)
		fix_deps(cc, ncc, copies, origs, nsrc);
	for (int i = 0; i < nsrc; i++) {
		if (!copies[i])
			continue;	/* (its write failed: removed there) */
		unlink(copies[i]);
		rmdir(dirname(copies[i]));	/* its own directory */
	}
	for (int k = 0; k < no; k++)
		free(owned[k]);
	rmdir(tmpdir);
	free(lib);
	free(owned);
	free(copies);
	free(origs);
	free(nargv);
	globfree(&with);
	return rc;
}

/* One rank's file into CSV rows; 0, or 1 after a message.  The records after a cut or a
 * damaged byte are lost, and said so in a warning: the whole ones before still print and
 * the status stays 0 (bench/lib.sh reads a rank that died in a write, as it always did). */
static int records_file(const char *path, int rank)
{
	struct vs_rec *r = NULL;
	size_t n, rest, len;
	int err = vs_rec_read(path, &r, &n, &rest, &len);
	if (err) {
		fprintf(stderr, "sonde: cannot read '%s': %s\n", path,
			err == VS_REC_BAD ? "not a record file of a version this sonde knows" :
			file_strerror(err));
		return 1;
	}
	/* %.9g: a float32 printed so that it reads back to the same float */
	for (size_t i = 0; i < n; i++)
		printf("%d,%d,%d,%.9g,%.9g\n", rank, r[i].bin, r[i].sensor, r[i].mean_us, r[i].weight_s);
	free(r);
	if (rest)
		fprintf(stderr, "sonde: warning: '%s': the last %zu of %zu bytes not read (a record cut "
			"short or damaged after record %zu)\n", path, rest, len, n);
	return 0;
}

/* records DIR: every rank-<r>.rec of a run, in rank order, as one CSV. */
static int cmd_records(int argc, char **argv)
{
	if (argc != 1)
		return sonde_usage_error("vsensor", "records wants one run's directory");
	char pat[PATH_MAX];
	snprintf(pat, sizeof(pat), "%s/rank-*.rec", argv[0]);
	glob_t g;
	memset(&g, 0, sizeof(g));
	int gr = glob(pat, 0, NULL, &g);
	if (gr) {	/* as report: a file is a usage error, no directory or no records 1 */
		struct stat st;
		globfree(&g);
		int se = stat(argv[0], &st) ? errno : 0;
		if (se) {	/* as report says it (the usability review of 2026-11-29) */
			sonde_error("'%s': %s", argv[0], strerror(se));
			return 1;
		}
		if (!S_ISDIR(st.st_mode))
			return sonde_usage_error("vsensor", "records wants the run's directory (vsensor-*), "
						 "not the file '%s'", argv[0]);
		if (gr == GLOB_NOMATCH)
			sonde_error("no rank-*.rec in '%s' (not a vsensor directory?)", argv[0]);
		else
			sonde_error("cannot read '%s'", argv[0]);
		return 1;
	}
	/* rank order, not the glob's (rank-10 before rank-2) */
	int maxr = -1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int r = atoi(strrchr(g.gl_pathv[i], '-') + 1);
		if (r > maxr)
			maxr = r;
	}
	printf("rank,slice,sensor,time_us,seconds\n");
	int rc = 0;
	for (int r = 0; r <= maxr; r++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/rank-%d.rec", argv[0], r);
		if (access(path, F_OK) == 0)
			rc |= records_file(path, r);
	}
	globfree(&g);
	return rc;
}

int cmd_vsensor(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	/* `sonde vsensor SUB --help`: the usage, which covers every subcommand (cc took
	 * --help for the compiler to run: the usability review of 2026-11-28) */
	if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 2, argv + 2);
	if (!strcmp(argv[1], "cc"))
		return cmd_cc(argc - 2, argv + 2);
	if (!strcmp(argv[1], "report"))
		return vs_cmd_report(argc - 2, argv + 2);
	if (!strcmp(argv[1], "score"))
		return vs_cmd_score(argc - 2, argv + 2);
	if (!strcmp(argv[1], "records"))
		return cmd_records(argc - 2, argv + 2);
	/* `sonde vsensor -- ./app`, the other tools' form: say how this one is used */
	if (!strcmp(argv[1], "--") || strchr(argv[1], '/') || access(argv[1], X_OK) == 0)
		return sonde_usage_error("vsensor", "vsensor does not run a program: build it with "
					 "'sonde vsensor cc mpicc ...', run it as usual, then "
					 "'sonde vsensor report DIR'");
	return sonde_usage_error("vsensor", "unknown subcommand '%s'", argv[1]);
}

/* vsensor records with its own runtime library (vsrt.c), not libsonde.so: no fill here. */
const struct tool tool_vsensor = {
	.name = "vsensor",
	.summary = "find fixed-work snippets in MPI programs and the ranks and times that run slow",
	.cmd = cmd_vsensor,
};
