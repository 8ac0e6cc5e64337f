/* SPDX-License-Identifier: MIT */
/*
 * view.c - the variance tool's views, read back from the profile database: DIR/variance/
 * CSV files, the ranked terminal table with the paper's guidance, the timeline of one
 * function (terminal sparkline and CSV), and the HTML page (ranked table, each function's
 * instance histogram and timeline, per-thread means side by side).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/report.h"
#include "prof/symbols.h"
#include "tools/variance/variance.h"
#include "ui/csv.h"
#include "ui/html.h"
#include "ui/json.h"
#include "ui/text.h"

#define HTML_FUNCS 8		/* functions with a histogram and timeline on the page */

static const char fn_sql[] =
	"SELECT function, context, metric, instances, mean, sd, cv, share, rank, min, max,"
	" threads, thread_cv, clamped, resolution, below, investigate, verdict, cv_within,"
	" groups FROM var_functions ORDER BY rank, metric";
static const char *const fn_cols[] = { "function", "context", "metric", "instances", "mean",
				       "sd", "cv", "share", "rank", "min", "max", "threads",
				       "thread_cv", "clamped", "resolution", "below",
				       "investigate", "verdict", "cv_within", "groups" };
#define FN_COLS 20
static const char th_sql[] =
	"SELECT function, context, metric, thread, process, tid, instances, mean, sd, cv,"
	" omp_thread FROM var_threads ORDER BY rank, metric, thread";
static const char *const th_cols[] = { "function", "context", "metric", "thread", "process",
				       "tid", "instances", "mean", "sd", "cv", "omp_thread" };
static const char in_sql[] =
	"SELECT function, context, thread, seq, start, time, cpu_time, page_faults,"
	" context_switches, weight FROM var_instances ORDER BY rank, thread, seq";
static const char *const in_cols[] = { "function", "context", "thread", "seq", "start", "time",
				       "cpu_time", "page_faults", "context_switches", "weight" };

int var_export(sqlite3 *db, const char *dir, char *err, size_t errlen)
{
	static const struct db_csv_file files[] = {
		{ "functions.csv", fn_sql, FN_COLS, fn_cols },
		{ "threads.csv", th_sql, 11, th_cols },
		{ "instances.csv", in_sql, 10, in_cols },
	};
	return db_export_csv(db, dir, "variance", files, 3, NULL, 0, err, errlen);
}

/* A value of metric m for people: ns as us/ms/s, counts as numbers. */
static void fmt_value(char *b, size_t n, const char *metric, double v)
{
	if (isnan(v)) {
		snprintf(b, n, "-");
	} else if (!strcmp(metric, "time") || !strcmp(metric, "cpu-time")) {
		if (v >= 1e9)
			snprintf(b, n, "%.2f s", v / 1e9);
		else if (v >= 1e6)
			snprintf(b, n, "%.2f ms", v / 1e6);
		else
			snprintf(b, n, "%.1f us", v / 1e3);
	} else {
		snprintf(b, n, "%.1f", v);
	}
}

static const char *col_text(sqlite3_stmt *st, int col);

/* The groups column ("mean:share;...;explained": model.c, groups_text) for people:
 * "16.0 us (25%), 1.02 ms (75%)"; *groups their number, *explained the last field. */
static void fmt_groups(char *b, size_t n, const char *metric, const char *text, int *groups,
		       double *explained)
{
	size_t k = 0;
	*b = 0;
	*groups = 0;
	*explained = NAN;
	for (const char *p = text; p && *p && k + 1 < n;) {
		char v[32], *e;
		double x = strtod(p, &e);
		if (e == p)
			break;
		p = e;
		if (*p != ':') {
			*explained = x;
			p += *p == ';';
			continue;
		}
		double share = strtod(p + 1, &e);
		p = e;
		fmt_value(v, sizeof(v), metric, x);
		int w = snprintf(b + k, n - k, "%s%s (%.0f%%%s)", k ? ", " : "", v, share * 100,
				 k ? "" : " of the instances");
		k = w > 0 && (size_t)w < n - k ? k + (size_t)w : n - 1;
		++*groups;
		p += *p == ';';
	}
}

/* A note under the table, to the terminal (out) or the page (h); text freed. */
static void table_note(FILE *out, struct html *h, char *text)
{
	if (out) {
		fputc('\n', out);
		text_hang(out, "note: ", "  ", text, 80);
	}
	if (h)
		html_para(h, text);
	free(text);
}

/*
 * Under the table: each shown row whose instances fall in steady groups 2x or more apart
 * (model.c, groups_text), said with what it may mean; the verdict stays (the program
 * knows whether its calls do different work by design).
 */
static void groups_notes(sqlite3 *db, int top, FILE *out, struct html *h)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT function, context, groups FROM var_functions WHERE"
				   " metric = 'cpu-time' AND rank <= ? AND groups != '' ORDER BY rank",
			       -1, &st, NULL))
		return;
	sqlite3_bind_int(st, 1, top);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char g[400], *text = NULL;
		int groups;
		double ex;
		fmt_groups(g, sizeof(g), "cpu-time", col_text(st, 2), &groups, &ex);
		if (groups < 2 || isnan(ex))
			continue;
		if (asprintf(&text, "%s (%s): its instances fall in %d groups 2x or more apart, "
			     "of means %s, which explain %.0f%% of their variance.  Calls that do "
			     "different work by design (problem sizes, multigrid levels, phases) "
			     "vary so; if they should do the same work, the groups are what to "
			     "explain (instances.csv has each instance)", col_text(st, 0),
			     col_text(st, 1), groups, g, ex * 100) >= 0)
			table_note(out, h, text);
	}
	sqlite3_finalize(st);
}

/*
 * Under the table: the rows of 10% of the time or more with too few instances for a CV, and
 * what gives more (the trial of 2026-11-29, F6: HPCG's ComputeSYMGS_ref, most of the run,
 * 1-4 instances a context, every row "too few instances", no hint).
 */
static void few_note(sqlite3 *db, FILE *out, struct html *h)
{
	sqlite3_stmt *st;
	char unit[32], *text = NULL, first[600] = "";
	int n = 0;
	if (sqlite3_prepare_v2(db, "SELECT function, share FROM var_functions WHERE metric ="
				   " 'cpu-time' AND share >= 0.1 AND verdict LIKE"
				   " 'too few instances%' ORDER BY share DESC", -1, &st, NULL))
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (!n++)
			snprintf(first, sizeof(first), "%s, %.0f%% of the time", col_text(st, 0),
				 100 * sqlite3_column_double(st, 1));
	sqlite3_finalize(st);
	if (!n)
		return;
	uint64_t per = db_meta_u64(db, "period");
	db_meta(db, "period_unit", unit, sizeof(unit));
	char now[128] = "", only[8];
	/* --function: each call after the first sampled one is awaited (and bursts add
	 * more): a shorter period would not add many */
	if (*db_meta(db, "only", only, sizeof(only))) {
		if (asprintf(&text, "%d row%s of 10%% of the time or more (%s%s) had under 10 "
			     "instances timed, too few for a CV: with --function the calls after "
			     "the first sample in it are awaited, so the instances are about its "
			     "calls; more need a longer run", n, n == 1 ? "" : "s", first,
			     n > 1 ? ", the largest" : "") >= 0)
			table_note(out, h, text);
		return;
	}
	if (per && !strcmp(unit, "ns"))
		snprintf(now, sizeof(now), " (this run's: %" PRIu64 " ns; --period %" PRIu64
			 " takes four times the samples)", per, per / 4);
	if (asprintf(&text, "%d row%s of 10%% of the time or more (%s%s) had under 10 instances "
		     "timed, too few for a CV: each sample picks the function it lands in and "
		     "times its next call, so more samples time more instances: a shorter "
		     "--period%s, or a longer run", n, n == 1 ? "" : "s", first,
		     n > 1 ? ", the largest" : "", now) >= 0)
		table_note(out, h, text);
}

/* A function's name short enough for the page's navigation bar (48 characters) to keep
 * what tells one from another (a clone's "[clone ._omp_fn.N]", a template's arguments):
 * without its parameter lists and a leading "void "; else as the tables shorten it, also
 * without "(...)". */
static const char *nav_name(const char *f, char *buf, size_t len)
{
	char t[256];
	size_t k = 0;
	f = f ? f : "?";
	const char *s = strncmp(f, "void ", 5) ? f : f + 5;
	for (int depth = 0; *s && k + 1 < len; s++) {
		/* a parameter list: after a name or a template's '>', not operator()'s */
		if (!depth && *s == '(' && k && (isalnum((unsigned char)buf[k - 1]) ||
						  buf[k - 1] == '_' || buf[k - 1] == '>') &&
		    !(k >= 8 && !strncmp(buf + k - 8, "operator", 8)))
			depth = 1;
		else if (depth && *s == '(')
			depth++;
		else if (depth && *s == ')')
			depth--;
		else if (!depth)
			buf[k++] = *s;
	}
	buf[k] = 0;
	if (k <= 44)	/* (the bar's 48, less "#N ") */
		return buf;
	s = text_short_name(buf, 40, t, sizeof(t));
	for (k = 0; *s && k + 1 < len; s++) {
		if (!strncmp(s, "(...)", 5)) {
			s += 4;
			continue;
		}
		buf[k++] = *s;
	}
	buf[k] = 0;
	return buf;
}

/* "< R" for a time that only has a bound: a row below the resolution (column `below`), or
 * a minimum clamped to 0; R is the traps' cost subtracted from each instance (column
 * `resolution`), which a clamped instance took less than (doc/sonde-variance.md). */
static void fmt_bound(char *b, size_t n, const char *metric, double res)
{
	char v[24];
	fmt_value(v, sizeof(v), metric, res);
	snprintf(b, n, "< %s", v);
}

/* The wall-time rows (of the first `top`) whose CPU time is under the resolution and
 * whose wall time is at least twice it (a wall time just over the resolution is still
 * mostly the CPU's: the review of 2026-11-28): time off the CPU (preemption, waiting) rather than the
 * function's work (the trial of 2026-11-28: SimpleMOC's attenuate_fluxes "< 3.6 us, too
 * short" in CPU time beside a wall-time mean of 26 us with a CV of 659%).  A sentence into
 * buf, or 0 where there is none. */
static int off_cpu_note(sqlite3 *db, int top, char *buf, size_t len)
{
	sqlite3_stmt *st;
	int n = 0;
	char ranks[96] = "";
	if (sqlite3_prepare_v2(db, "SELECT t.rank FROM var_functions t JOIN var_functions c"
				   " ON c.function = t.function AND c.context = t.context"
				   " AND c.metric = 'cpu-time' WHERE t.metric = 'time' AND c.below = 1"
				   " AND t.below = 0 AND t.mean >= 2 * c.resolution AND t.rank <= ?"
				   " ORDER BY t.rank", -1, &st, NULL))
		return 0;
	sqlite3_bind_int(st, 1, top);
	int more = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t k = strlen(ranks);
		if (k + 16 >= sizeof(ranks)) {	/* the rest counted, not cut mid-number */
			more++;
			n++;
			continue;
		}
		snprintf(ranks + k, sizeof(ranks) - k, "%s#%d", n++ ? ", " : "",
			 sqlite3_column_int(st, 0));
	}
	if (more)
		snprintf(ranks + strlen(ranks), sizeof(ranks) - strlen(ranks), " and %d more",
			 more);
	sqlite3_finalize(st);
	if (!n)
		return 0;
	snprintf(buf, len, "Row%s %s %s under the resolution in CPU time: %s wall time is "
		 "mostly time off the CPU (preemption, waiting), not the function's own work, "
		 "and %s spread that of the machine's load.", n == 1 ? "" : "s", ranks,
		 n == 1 ? "is" : "are", n == 1 ? "its" : "their", n == 1 ? "its" : "their");
	return 1;
}

/* A "<metric> per instance" row's mean, sd, CV, min and max (columns 3-7 of a query of
 * rank, function, context, mean, sd, cv, min, max, below, resolution, clamped), as the
 * terminal and the page both show them: a mean under the resolution is a bound (and its
 * sd none), a minimum clamped to 0 is under the subtracted cost where it was calibrated. */
enum { MC_NUM, MC_NONE, MC_BOUND, MC_CLAMPED };
struct mcell {
	int kind;
	double v;
};

static void metric_row(sqlite3_stmt *st, struct mcell c[5])
{
	double res = sqlite3_column_double(st, 9);
	int below = sqlite3_column_int(st, 8);
	for (int i = 0; i < 5; i++)
		c[i] = (struct mcell){ sqlite3_column_type(st, 3 + i) == SQLITE_NULL ? MC_NONE
										      : MC_NUM,
				       sqlite3_column_double(st, 3 + i) };
	if (below) {
		c[0] = (struct mcell){ MC_BOUND, res };
		c[1].kind = c[2].kind = MC_NONE;
	}
	/* a clamped minimum: under the subtracted cost when it was calibrated, else
	 * (SONDE_VARIANCE_CALIBRATE=0, handler time only) just clamped; a NULL resolution
	 * reads as 0 */
	if (sqlite3_column_double(st, 10) > 0 && sqlite3_column_double(st, 6) == 0)
		c[3] = res > 0 ? (struct mcell){ MC_BOUND, res } : (struct mcell){ MC_CLAMPED, 0 };
}

static void fmt_pct(char *b, size_t n, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.1f%%", 100 * sqlite3_column_double(st, col));
}

/* Column `col` of the row as text. */
static const char *col_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

/*
 * A program built without frame pointers (gcc's and clang's default at -O1 and above):
 * the runtime walks the frame-pointer chain for a sample's context and a pick's frame,
 * so the chain stops at the first function without one.  The contexts are short, the
 * callers' time shares read low (a caller's samples land in its callees' paths without
 * it; the sampled function's own share is whole: model.c, context_shares), and callers
 * are seldom picked.  Said when under a quarter of the executable's
 * functions set up a frame pointer (symbols.c, sym_frame_pointers; t824: vwork by gcc
 * -O2 1 of 16, with -fno-omit-frame-pointer 13 of 16).
 */
static int fp_text(sqlite3 *db, char *buf, size_t len)
{
	uint64_t fp = db_meta_u64(db, "exe_fp_functions"), n = db_meta_u64(db, "exe_functions");
	char exe[512];

	if (n < 5 || fp * 4 >= n)
		return 0;
	snprintf(buf, len, "%s sets up a frame pointer in %" PRIu64 " of its %" PRIu64
		 " functions: contexts stop at the first function without one and callers' time"
		 " shares read low; build with -fno-omit-frame-pointer",
		 db_meta(db, "exe", exe, sizeof(exe)), fp, n);
	return 1;
}

/* The program without function symbols (stripped): its functions are named by address and
 * the samples' paths do not meet them, every time share 0 (the usability review of
 * 2026-11-28).  0 where it has them, or where the count was not taken. */
static int stripped_text(sqlite3 *db, char *buf, size_t len)
{
	char exe[512], v[32];
	if (!*db_meta(db, "exe", exe, sizeof(exe)) || *db_meta(db, "exe_functions", v, sizeof(v)))
		return 0;
	snprintf(buf, len, "no function symbols were read from %s (stripped?): its functions "
		 "cannot be picked, or are named by address, contexts stop at them, and time "
		 "shares cannot be counted (0%%); profile a build that keeps its symbol table",
		 exe);
	return 1;
}

/* How an instance is chosen, and where that misleads (doc/sonde-variance.md, "Bias"): the
 * usability review of 2026-11-29, H1, read a function alternating 1 and 3 units at a mean
 * of 197 us and a CV of 57% against 252 us and 50% (picks land in long calls, the next
 * call is short), a linear ramp at a CV of 32% against 47%, and no report said why. */
static const char var_pick_text[] =
	"a function where a sample lands (by its time on the stack), then its next call is "
	"timed: unbiased where a call's length does not follow the one before's; where it "
	"does (calls alternating long and short, a cost that grows over the run) the mean and "
	"CV are those of the calls after the sampled ones (doc: \"Bias\")";

/* Samples with no frame of the program's to pick: where they are many, what holds them. */
static int no_frame_text(sqlite3 *db, char *buf, size_t len)
{
	uint64_t n = db_meta_u64(db, "no_frame"), s = db_meta_u64(db, "samples");
	/* those in OpenMP region functions: the program's, timed at the runtime's call (the
	 * trial of 2026-11-29: HPCCG's "80 of the 88 samples had no function of the
	 * program's" where HPC_sparsemv's region held 81% of the time) */
	uint64_t r = db_meta_u64(db, "no_frame_region"), mn = db_meta_u64(db, "no_frame_main");
	if (!s || n * 10 < s * 3 || stripped_text(db, buf, len))	/* that says why */
		return 0;
	r = r < n ? r : n;
	mn = mn < n - r ? mn : n - r;
	int k = 0;
	uint64_t rest = n - r - mn;
	/* each part said when it is 10% of the samples or more (the regions': any) */
	int say_main = mn * 10 >= s, say_rest = rest * 10 >= s;
	if (r)
		k = snprintf(buf, len, "%" PRIu64 " of the %" PRIu64 " samples (%.0f%%) fell in "
			     "OpenMP region functions, which are timed at the runtime's call "
			     "(OpenMP regions, below), not picked%s", r, s,
			     100.0 * (double)r / (double)s, say_main || say_rest ? "; " : "");
	char of[64] = "";
	if (!r)
		snprintf(of, sizeof(of), " of the %" PRIu64 " samples", s);
	/* main's own code: called once, never picked; what the compiler inlined into it is
	 * main's (the usability review of 2026-11-29, M3: a program whose work is a loop in
	 * main read "a library's code whose frames keep no frame pointer") */
	if (say_main && k >= 0 && (size_t)k < len) {
		k += snprintf(buf + k, len - (size_t)k, "%" PRIu64 "%s (%.0f%%) were in main's "
			      "own code, which is called once and never timed, with the functions "
			      "the compiler inlined into it (a loop of main's own, or put in a "
			      "function of its own that is not inlined, is timed)%s", mn, of,
			      100.0 * (double)mn / (double)s, say_rest ? "; " : "");
		of[0] = 0;
	}
	/* the rest when it is 10% of the samples or more (fewer: noise beside the regions) */
	if (say_rest && k >= 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "%" PRIu64 "%s (%.0f%%) had no function of the "
			 "program's on the stack: a library's code whose frames keep no frame "
			 "pointer (libc, libm, the MPI library, a Fortran runtime: the walk stops "
			 "in them before the program's callers, however the program was built), "
			 "code without symbols, or the OpenMP runtime waiting at a barrier or for "
			 "work (OMP_WAIT_POLICY=passive puts its threads to sleep there instead).  "
			 "They count for no context of the program's, so its time shares read that "
			 "much lower (sonde mem, which unwinds with DWARF, says which library and "
			 "which callers)", rest, of, 100.0 * (double)rest / (double)s);
	return 1;
}

/* Hot functions with no instance (model.c, unmeasured_text), and why. */
static int unmeasured_note(sqlite3 *db, char *buf, size_t len)
{
	char u[1024], only[8];
	if (!*db_meta(db, "unmeasured", u, sizeof(u)))
		return 0;
	if (*db_meta(db, "only", only, sizeof(only))) {	/* (--function: the patience is) */
		snprintf(buf, len, "%s: an asked function, innermost of the program's in that "
			 "share of the samples, with no instance timed, so no row below: its pick "
			 "waited 128 samples for its next call, which did not come (a function "
			 "called a few times a run: a longer run)", u);
		return 1;
	}
	snprintf(buf, len, "%s: the innermost function of the program's in that share of the "
		 "samples, with no instance timed, so no row below.  A function is picked at a "
		 "sample in it and its next call is then awaited a few samples "
		 "(SONDE_VARIANCE_PATIENCE, default 8): calls further apart than that (a few "
		 "long calls a run) are missed.  A longer run catches more; --function NAME "
		 "picks that function only and waits 16 times longer for its calls", u);
	return 1;
}

static void fp_line(sqlite3 *db, FILE *out)
{
	char b[1536];

	if (fp_text(db, b, sizeof(b)))
		text_hang(out, "  call paths: ", "      ", b, 80);
	if (stripped_text(db, b, sizeof(b)))
		text_hang(out, "  symbols: ", "      ", b, 80);
	if (no_frame_text(db, b, sizeof(b)))
		text_hang(out, "  unpicked: ", "      ", b, 80);
	if (unmeasured_note(db, b, sizeof(b)))
		text_hang(out, "  not measured: ", "      ", b, 80);
}

/*
 * What became of the picks that "entries armed" counts and "caught" and "missed" do not
 * explain, with debug registers: those behind the gate (an entry in the sampled code's own
 * line, armed at its return, where it slows no loop) and those deferred to a measured
 * instance's return (mostly picks made inside the function's own instance), with how many
 * of each another pick replaced.  Nothing where meta has no `gated` row, nor when there
 * were none: a runtime that did not count them, or one of 5c26f2c-a7c6c1b, which wrote
 * them (without `yielded`) to the .proc as variance_gated, variance_gates_fired, ...,
 * where model.c does not read them (they are still in the recording's .proc files).
 */
static void gate_line(sqlite3 *db, FILE *out)
{
	char v[32];
	uint64_t g = db_meta_u64(db, "gated"), d = db_meta_u64(db, "deferred");

	if (!*db_meta(db, "gated", v, sizeof(v)) || (!g && !d))
		return;
	char line[512];
	snprintf(line, sizeof(line), "%" PRIu64 " behind the gate (armed at the return of "
		 "the code in their line: %" PRIu64 " fired, %" PRIu64 " replaced), %" PRIu64
		 " deferred to a measured instance's return (%" PRIu64 " armed there; replaced: %"
		 PRIu64 " before it, %" PRIu64 " after)",
		 g, db_meta_u64(db, "gates_fired"), db_meta_u64(db, "gates_expired"), d,
		 db_meta_u64(db, "deferred_armed"), db_meta_u64(db, "deferred_expired"),
		 db_meta_u64(db, "yielded"));
	text_hang(out, "  of the entries armed: ", "      ", line, 80);
}

/* The JSON: the header's facts, each metric's unit, and one object per (function, context,
 * metric) row of functions.csv.  It was a bare array of those rows, with no tool, source or
 * unit (the usability review of 2026-11-28: `mean` in ns where the terminal shows us). */
static int print_json(sqlite3 *db, FILE *out)
{
	char b[1024];
	struct json j;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, fn_sql, -1, &st, NULL))
		return -EIO;
	json_init_flags(&j, out, JSON_COMPACT);
	json_begin_object(&j, NULL);
	json_str(&j, "tool", "variance");
	json_str(&j, "program", report_program(db, b, sizeof(b)));
	json_str(&j, "source", db_meta(db, "source", b, sizeof(b)));
	json_uint(&j, "period", db_meta_u64(db, "period"));
	json_str(&j, "period_unit", db_meta(db, "period_unit", b, sizeof(b)));
	/* (a killed run wrote no counters: the instances its records hold, as the header) */
	uint64_t ret = db_meta_u64(db, "returns"), kept = db_meta_u64(db, "unended") ?
		(uint64_t)db_int(db, "SELECT SUM(instances) FROM var_functions WHERE metric = "
			    "'cpu-time'") : 0;
	json_uint(&j, "instances", kept > ret ? kept : ret);
	json_uint(&j, "threads", db_meta_u64(db, "threads"));
	json_str(&j, "watch_backend", db_meta(db, "watch_backend", b, sizeof(b)));
	json_str(&j, "only", db_meta(db, "only", b, sizeof(b)));	/* --function; "" all */
	/* the header's counters and its "not measured" functions: a script saw only the rows
	 * (the usability review of 2026-11-29, M5: a function of 65% of the time unsaid) */
	static const char *const sel[] = { "samples", "picks", "entries", "returns", "missed",
					    "arm_failures", "no_frame", "no_frame_main" };
	json_begin_object(&j, "selection");
	for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++)
		json_uint(&j, sel[i], db_meta_u64(db, sel[i]));
	json_end_object(&j);
	json_begin_array(&j, "not_measured");
	db_meta(db, "unmeasured", b, sizeof(b));	/* "NAME (S%); NAME (S%)" (model.c) */
	for (char *e = *b ? b : NULL; e;) {
		char *next = strstr(e, "%); ");
		if (next)
			next[2] = 0, next += 4;
		char *open = strrchr(e, '(');
		if (open && open > e) {
			open[-1] = 0;
			json_begin_object(&j, NULL);
			json_str(&j, "function", e);
			json_real(&j, "share", strtod(open + 1, NULL) / 100);
			json_end_object(&j);
		}
		e = next;
	}
	json_end_array(&j);
	/* each metric's unit: the times in ns, the counters in events */
	json_begin_object(&j, "units");
	db_meta(db, "events", b, sizeof(b));
	char *save = NULL;
	for (char *m = strtok_r(b, ",", &save); m; m = strtok_r(NULL, ",", &save))
		json_str(&j, m, !strcmp(m, "time") || !strcmp(m, "cpu-time") ? "ns" : "events");
	json_end_object(&j);
	json_begin_array(&j, "functions");
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_begin_object(&j, NULL);
		for (int i = 0; i < FN_COLS; i++) {
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				json_str(&j, fn_cols[i], NULL);
				break;
			case SQLITE_INTEGER:
				json_int(&j, fn_cols[i], sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				json_real(&j, fn_cols[i], sqlite3_column_double(st, i));
				break;
			default:
				json_str(&j, fn_cols[i], (const char *)sqlite3_column_text(st, i));
			}
		}
		json_end_object(&j);
	}
	sqlite3_finalize(st);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	fputc('\n', out);
	return 0;
}

int var_print(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	char ev[128], src[64], be[16];
	int top = o->top > 0 ? o->top : 10;

	if (o->format == REPORT_CSV)
		return db_query_csv(db, out, fn_sql, FN_COLS, fn_cols, NULL, 0);
	if (o->format == REPORT_JSON)
		return print_json(db, out);
	db_meta(db, "events", ev, sizeof(ev));
	db_meta(db, "source", src, sizeof(src));
	if (!*db_meta(db, "watch_backend", be, sizeof(be)))	/* (not written: unknown) */
		snprintf(be, sizeof(be), db_meta_u64(db, "unended") ? "unknown" : "none");
	if (!o->quiet) {
		char line[1024], procs[64] = "";
		/* a program that forks and execs (a shell-out, a compiler driver) records each
		 * process: say so, or "11 thread(s)" read as 11 threads of this program */
		uint64_t np = db_meta_u64(db, "processes");
		if (np > 1)
			snprintf(procs, sizeof(procs), " of %" PRIu64 " processes", np);
		/* a process killed before its threads' ends wrote no counters (meta unended,
		 * report.c's warning): the instances are counted from the records then, and the
		 * counters said unknown, not 0 (the usability review of 2026-11-29, L1: "0
		 * instances" over a table of 155) */
		uint64_t unended = db_meta_u64(db, "unended"), ret = db_meta_u64(db, "returns");
		uint64_t kept = unended ? (uint64_t)db_int(db, "SELECT SUM(instances) FROM "
					       "var_functions WHERE metric = 'cpu-time'") : 0;
		snprintf(line, sizeof(line), "%" PRIu64 " instances%s of %" PRIu64 " (context, "
			 "function) pairs in %" PRIu64 " thread(s)%s; metrics %s",
			 kept > ret ? kept : ret, kept > ret ? " (as recorded)" : "",
			 db_meta_u64(db, "functions"), db_meta_u64(db, "threads"), procs, ev);
		text_hang(out, "sonde variance: ", "    ", line, 80);
		char prog[1024];
		fprintf(out, "  program: %s\n", report_program(db, prog, sizeof(prog)));
		char unit[16];
		/* the period, as every tool states it (the usability review of 2026-11-28) */
		if (unended && !db_meta_u64(db, "samples")) {
			snprintf(line, sizeof(line), "%s (period %" PRIu64 " %s); samples, entries "
				 "armed, caught and missed unknown: the process ended without "
				 "writing them (sonde's warning)", src, db_meta_u64(db, "period"),
				 db_meta(db, "period_unit", unit, sizeof(unit)));
			text_hang(out, "  selection: ", "      ", line, 80);
		} else {
			fprintf(out, "  selection: %s samples %" PRIu64 " (period %" PRIu64 " %s), "
				     "entries armed %" PRIu64 ", caught %" PRIu64 ", missed %"
				     PRIu64 "\n", src, db_meta_u64(db, "samples"),
				db_meta_u64(db, "period"),
				db_meta(db, "period_unit", unit, sizeof(unit)),
				db_meta_u64(db, "picks"), db_meta_u64(db, "entries"),
				db_meta_u64(db, "missed"));
		}
		text_hang(out, "  pick: ", "      ", var_pick_text, 80);
		char only[512];
		if (*db_meta(db, "only", only, sizeof(only))) {	/* --function */
			/* none picked: said, not a silent table of other rows (the trial of
			 * 2026-11-29, F3: BabelStream's triad, which forks a region) */
			int none = !db_meta_u64(db, "picks") && db_meta_u64(db, "samples");
			snprintf(line, sizeof(line), "%s (--function: the samples pick these "
				 "functions only, where one is on the thread's stack, and a pick "
				 "waits 16 times longer for its call)%s", only,
				 !none ? "" : "; none was picked: no sample found one on a "
				 "thread's stack, so none was timed (its calls took too little of "
				 "the time to be sampled, or the stack could not be walked to it: "
				 "one that forks OpenMP regions lies behind the OpenMP runtime's "
				 "frames; its regions are timed at the runtime's call, the rows "
				 "named after it with a clone of the region)");
			text_hang(out, "  only: ", "      ", line, 80);
		}
		snprintf(line, sizeof(line), "%s%s", be,
			 !strcmp(be, "soft") && !db_meta_u64(db, "calls_hooked") ?
				 " (no call hooks ran: build with sonde-cc --sonde-calls-only)" : "");
		text_hang(out, "  watch backend: ", "      ", line, 80);
		/* arms refused: instances those threads did not measure */
		report_arm_fail_line(db, out, "  arm failures: ", "      ");
		fp_line(db, out);
		gate_line(db, out);
		/* bursts (rt-variance.c, arm_burst): a row only where the runtime counted them */
		if (db_meta_u64(db, "burst_armed")) {
			snprintf(line, sizeof(line), "%" PRIu64 " of the entries caught came from a "
				 "function's entry armed again at its instance's return (%" PRIu64
				 " armed; SONDE_VARIANCE_BURST)",
				 db_meta_u64(db, "burst_entries"), db_meta_u64(db, "burst_armed"));
			text_hang(out, "  bursts: ", "      ", line, 80);
		}
		/* picks armed at their call site (rt-variance.c, site_of): a row only where
		 * some were */
		if (db_meta_u64(db, "sited")) {
			snprintf(line, sizeof(line), "%" PRIu64 " picks of a function called from "
				 "several places armed at the sampled frame's call first, so that "
				 "the instance measured is that context's (%" PRIu64 " fired)",
				 db_meta_u64(db, "sited"), db_meta_u64(db, "sites_fired"));
			text_hang(out, "  call sites: ", "      ", line, 80);
		}
		/* OpenMP regions (rt-variance.c, variance_region and var_omp_begin): a row only
		 * where some were */
		if (db_meta_u64(db, "omp_regions")) {
			snprintf(line, sizeof(line), "%" PRIu64 " instances of outlined functions "
				 "timed at the runtime's call (libgomp's GOMP_parallel and its kin, "
				 "or libomp's OMPT callbacks), no trap; each at most "
				 "SONDE_VARIANCE_REGIONS a second a thread",
				 db_meta_u64(db, "omp_regions"));
			text_hang(out, "  OpenMP regions: ", "      ", line, 80);
		}
		report_switch_line(db, out, "  context switches: ", db_meta_u64(db, "picks") > 0, NULL);
		snprintf(line, sizeof(line), "%" PRIu64 " overwritten slot, %" PRIu64 " dead frame, %"
			 PRIu64 " longjmp, %" PRIu64 " at thread exit, %" PRIu64 " tail",
			 db_meta_u64(db, "overwritten"), db_meta_u64(db, "stale"),
			 db_meta_u64(db, "jumps"), db_meta_u64(db, "at_exit"), db_meta_u64(db, "tail"));
		if (!unended || db_meta_u64(db, "samples"))	/* (else unknown too) */
			text_hang(out, "  dropped: ", "      ", line, 80);
		if (db_meta_u64(db, "trap_ns") || db_meta_u64(db, "trap_cpu_ns")) {
			/* the kernel's speed at the traps (rt-variance.c, kernel_speed) */
			uint64_t pc = db_meta_u64(db, "trap_probe_ns"), pm = db_meta_u64(db, "trap_probe_mean_ns");
			char scaled[96] = "";
			if (pc && pm)
				snprintf(scaled, sizeof(scaled), ", scaled at each trap by the kernel's speed: "
					 "x%.2f on average", (double)pm / (double)pc);
			snprintf(line, sizeof(line), "%.1f us of time and %.1f us of CPU time per "
				 "instance subtracted (the debug registers' two traps, calibrated at "
				 "start%s); resolution %.1f us of CPU time (a quarter of it: a mean "
				 "under it is the calibration's error)",
				db_meta_u64(db, "trap_ns") / 1e3, db_meta_u64(db, "trap_cpu_ns") / 1e3,
				scaled, VAR_RES_FRACTION * db_meta_u64(db, "trap_cpu_ns") / 1e3);
			text_hang(out, "  traps: ", "      ", line, 80);
		}
		if (db_meta_u64(db, "read_cost_cpu_ns")) {	/* sonde-cc's hooks (model.c) */
			snprintf(line, sizeof(line), "%.1f us of time and %.1f us of CPU time per "
				 "instance subtracted (the hooks' two clock reads, calibrated at "
				 "start); resolution %.1f us of CPU time (twice it: a mean under "
				 "it is that subtraction's error); not subtracted: each call made "
				 "inside a timed instance passes the hooks' slow path, so a "
				 "function that makes many small calls reads slower than it runs "
				 "(doc: \"Calls inside an instance\")",
				 db_meta_u64(db, "read_cost_ns") / 1e3,
				 db_meta_u64(db, "read_cost_cpu_ns") / 1e3,
				 VAR_SOFT_RES_FRACTION * db_meta_u64(db, "read_cost_cpu_ns") / 1e3);
			text_hang(out, "  hooks: ", "      ", line, 80);
		}
		text_hang(out, "  guidance (FVSampler): ", "      ", "investigate iff > 10% of the time "
			  "and CV > 20% within threads (plus resolution / mean: the calibration's "
			  "error) or > 10% across threads (and over twice the thread means' "
			  "sampling error)", 80);
		fputc('\n', out);
	}
	static const char *const heads[] = { "#", "function", "context", "instances", "mean",
					     "CV", "thread CV", "time share", "verdict" };
	struct text_table *t = text_table_new(9, heads, "rnnrrrrrl");
	if (!o->quiet)
		text_para(out, "", "mean of thread CPU time per instance; CV: of the instances "
			  "about their own thread's mean (functions.csv's cv_within; cv is over all "
			  "instances); thread CV: of the thread means; share: of the samples whose "
			  "path runs through the context (inclusive)", 80);
	sqlite3_stmt *st;
	if (!t)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT rank, function, context, instances, mean, cv_within,"
				   " thread_cv, share, verdict, below, resolution FROM var_functions"
				   " WHERE metric = 'cpu-time' ORDER BY rank", -1, &st, NULL)) {
		text_table_free(t);
		return -EIO;
	}
	int rows = 0;
	while (rows < top && sqlite3_step(st) == SQLITE_ROW) {
		char r[16], n[32], mean[32], cv[16], tcv[16], sh[16];
		snprintf(r, sizeof(r), "%d", sqlite3_column_int(st, 0));
		snprintf(n, sizeof(n), "%lld", (long long)sqlite3_column_int64(st, 3));
		if (sqlite3_column_int(st, 9))
			fmt_bound(mean, sizeof(mean), "cpu-time", sqlite3_column_double(st, 10));
		else
			fmt_value(mean, sizeof(mean), "cpu-time", sqlite3_column_double(st, 4));
		fmt_pct(cv, sizeof(cv), st, 5);
		fmt_pct(tcv, sizeof(tcv), st, 6);
		text_percent(sh, sizeof(sh), sqlite3_column_double(st, 7));
		const char *cells[9] = { r, col_text(st, 1), col_text(st, 2), n, mean, cv, tcv, sh,
					 col_text(st, 8) };
		text_table_add(t, cells);
		rows++;
	}
	int more = 0;	/* past --top: said, as the other tools' tables say it */
	while (rows >= top && sqlite3_step(st) == SQLITE_ROW)
		more++;
	sqlite3_finalize(st);
	if (rows)
		text_table_print(t, out, "");
	if (more)
		fprintf(out, "  ... %d more, ranked lower (--top N, or functions.csv)\n", more);
	groups_notes(db, top, out, NULL);	/* (none without rows) */
	few_note(db, out, NULL);
	char nbe[16];
	/* no backend: that is the cause, not functions called once (the usability review of
	 * 2026-11-28, where the debug registers do not trap) */
	if (!rows && !strcmp(db_meta(db, "watch_backend", nbe, sizeof(nbe)), "none"))
		text_para(out, "", "no instance was measured: nothing could time an instance in "
			  "this program (no watchpoint backend: the arm-failure line above says "
			  "why; sonde-cc --sonde-calls-only builds time them with hooks)", 80);
	else if (!rows && !strcmp(nbe, "soft") && !db_meta_u64(db, "calls_hooked"))
		text_para(out, "", "no instance was measured: the program was built by sonde-cc "
			  "without --sonde-calls, and its software watchpoints cannot start an "
			  "instance at a call (the debug registers did not trap here); rebuild it "
			  "with 'sonde-cc --sonde-calls-only'", 80);
	else if (!rows && db_meta_u64(db, "unended"))
		/* killed: the instances were counted at the threads' end, never written (the
		 * usability review of 2026-11-30, L3: "one called once" after a SIGKILL) */
		text_para(out, "", "no instance was measured: the process ended without closing "
			  "the recording (killed by SIGKILL?), and the instances of its last "
			  "second, unwritten, are lost with it", 80);
	else if (!rows)
		text_para(out, "", "no instance was measured (see the counters above; "
			  "sonde-variance(1)): a sampled function is timed at its next call, so "
			  "one called once (main, a thread's body) is never measured; its callees "
			  "are, when called again and again", 80);
	text_table_free(t);
	/* The other metrics, same order. */
	for (int m = 0; m < VAR_NMETRIC; m++) {
		if (m == VAR_M_CPU)
			continue;
		if (!strstr(ev, var_metric_name[m]))
			continue;
		static const char *const h2[] = { "#", "function", "context", "mean", "sd", "CV",
						  "min", "max" };
		struct text_table *t2 = text_table_new(8, h2, "rnnrrrrr");
		if (!t2 || sqlite3_prepare_v2(db, "SELECT rank, function, context, mean, sd, cv, min,"
						  " max, below, resolution, clamped FROM var_functions"
						  " WHERE metric = ? ORDER BY rank", -1, &st, NULL)) {
			text_table_free(t2);
			return -EIO;
		}
		sqlite3_bind_text(st, 1, var_metric_name[m], -1, SQLITE_STATIC);
		rows = 0;
		while (sqlite3_step(st) == SQLITE_ROW && rows < top) {
			char r[16], a[32], b[32], c[16], d[32], e[32];
			char *out5[5] = { a, b, c, d, e };
			struct mcell mc[5];
			snprintf(r, sizeof(r), "%d", sqlite3_column_int(st, 0));
			const char *mn = var_metric_name[m];
			metric_row(st, mc);
			for (int i = 0; i < 5; i++) {
				size_t n = i == 2 ? sizeof(c) : sizeof(a);
				if (mc[i].kind == MC_BOUND)
					fmt_bound(out5[i], n, mn, mc[i].v);
				else if (mc[i].kind == MC_CLAMPED)
					snprintf(out5[i], n, "0 (clamped)");
				else if (mc[i].kind == MC_NONE)
					snprintf(out5[i], n, "-");
				else if (i == 2)
					fmt_pct(c, sizeof(c), st, 5);
				else
					fmt_value(out5[i], n, mn, mc[i].v);
			}
			const char *cells[8] = { r, col_text(st, 1), col_text(st, 2), a, b, c, d, e };
			text_table_add(t2, cells);
			rows++;
		}
		sqlite3_finalize(st);
		if (rows) {	/* no instance: no empty table (the usability review) */
			fprintf(out, "\n%s per instance:\n", var_metric_name[m]);
			text_table_print(t2, out, "");
		}
		text_table_free(t2);
		char note[400];
		if (m == VAR_M_TIME && off_cpu_note(db, top, note, sizeof(note)))
			text_para(out, "  ", note, 80);
	}
	return 0;
}

/* ---- timeline ---- */

/* v's n values as at most width bars from 0 to hi (0: v's largest). */
static void sparkline(FILE *out, const double *v, size_t n, size_t width, double hi)
{
	static const char *const bars[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					     "\u2585", "\u2586", "\u2587", "\u2588" };
	/* from 0, as the page's axis: scaled from the least instance to the largest, a
	 * steady function's 94-146 us drew as spikes (the usability review of 2026-11-28) */
	double lo = 0;
	if (!(hi > 0))
		for (size_t i = 0; i < n; i++)
			hi = v[i] > hi ? v[i] : hi;
	size_t cols = n < width ? n : width;
	for (size_t c = 0; c < cols; c++) {
		/* Each column is the largest of its instances: a slow instance is what a
		 * timeline is read for, and a mean hid it (a 2.69 ms peak among 0.5 ms ones
		 * drew as a middle bar: the usability review of 2026-11-28) */
		size_t a = c * n / cols, b = (c + 1) * n / cols;
		double s = v[a];
		for (size_t i = a + 1; i < b; i++)
			s = v[i] > s ? v[i] : s;
		int k = hi > lo ? (int)((s - lo) / (hi - lo) * 7.999) : 0;
		fputs(bars[k < 0 ? 0 : k > 7 ? 7 : k], out);
	}
	fputc('\n', out);
}

/* Contexts drawn in timeline.svg (the first, by rank); the terminal shows them all. */
#define TIMELINE_SERIES 6
/* Threads of one context given a line each in the terminal; the rest are in the CSV. */
#define TIMELINE_THREADS 16
/* Threads given a line each in the page's timeline of a function. */
#define HTML_TIMELINE_THREADS 8

/*
 * A context's instances, n of them in thread order (thr[i] their thread), one line per
 * thread on a common scale: joined end to end, two steady threads at 1 and 3 units drew
 * one line that stepped up halfway, read as a slowdown over the run (the usability review
 * of 2026-11-29, M1).
 */
static void thread_sparklines(FILE *out, const double *v, const int64_t *thr, size_t n,
			      double hi)
{
	size_t shown = 0, a = 0;
	while (a < n) {
		size_t b = a;
		while (b < n && thr[b] == thr[a])
			b++;
		if (shown++ < TIMELINE_THREADS) {
			char label[48];
			int w = snprintf(label, sizeof(label), "thread %lld (%zu): ",
					 (long long)thr[a], b - a);
			fputs(label, out);
			sparkline(out, v + a, b - a, w < 60 ? 80 - (size_t)w : 20, hi);
		}
		a = b;
	}
	if (shown > TIMELINE_THREADS)
		fprintf(out, "... %zu more threads (timeline.csv)\n", shown - TIMELINE_THREADS);
}

/*
 * The function FUNC names in db: its full name as functions.csv has it; else the one
 * whose name as the terminal's table shows it (text_short_name: "f(...) [clone
 * ._omp_fn.1]" for a long C++ name) or whose name before its parameter list ("f") is
 * FUNC.  Several functions that match so (a function's several OpenMP regions, its
 * overloads) are listed, and none is taken.  Returns a strdup'd name, or NULL (said).
 */
static char *timeline_function(sqlite3 *db, const char *func, const char *dir)
{
	sqlite3_stmt *st;
	char *exact = NULL, *one = NULL, buf[1024];
	size_t nmatch = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT function FROM var_instances ORDER BY function",
			       -1, &st, NULL)) {
		sonde_error("%s: %s", dir, sqlite3_errmsg(db));
		return NULL;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);
		if (!f)
			continue;
		if (!strcmp(f, func)) {
			exact = strdup(f);
			break;
		}
		size_t base = strcspn(f, "(<");
		/* a Fortran module procedure, `mod::name`, by its source name (the trial of
		 * 2026-11-28: only the mangled name found it) */
		int fortran = sym_is_module_proc(f, func);
		if (!fortran && strcmp(text_short_name(f, 0, buf, sizeof(buf)), func) &&
		    (strlen(func) != base || strncmp(f, func, base)))
			continue;
		if (!nmatch++)
			one = strdup(f);
		else {
			/* the full names: two functions' short names can be the same string
			 * (template instances: the trial of 2026-11-27 on PENNANT) */
			if (nmatch == 2)
				sonde_error("'%s' names several functions in %s; give one as "
					    "functions.csv has it:", func, dir);
			if (nmatch == 2 && one)
				fprintf(stderr, "  '%s'\n", one);
			fprintf(stderr, "  '%s'\n", f);
		}
	}
	sqlite3_finalize(st);
	if (exact) {
		free(one);
		return exact;
	}
	if (nmatch == 1)
		return one;
	free(one);
	if (!nmatch)
		sonde_error("no instance of '%s' in %s (see %s/variance/functions.csv)", func, dir,
			    dir);
	return NULL;
}

int var_timeline(const char *func, const char *dir, FILE *out)
{
	char err[512], path[4096];
	sqlite3 *db;
	int r = report_build(dir, err, sizeof(err));
	if (r) {
		/* as `sonde report` says it: the directory named (the message alone read "No
		 * such file or directory": the usability review of 2026-11-27) */
		if (r == -ENOENT)
			sonde_error("no recording in '%s': %s", dir, err);
		else
			sonde_error("%s", err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	if (db_open(path, &db, err, sizeof(err))) {
		sonde_error("%s", err);
		return 1;
	}
	char tool[32];
	if (strcmp(db_meta(db, "tool", tool, sizeof(tool)), "variance")) {
		/* a recording, not of this tool: a failure (1), as a missing one (doc/sonde.md) */
		sonde_error("%s: not a 'sonde variance' recording (tool '%s')", dir, tool);
		sqlite3_close(db);
		return 1;
	}
	char *fname = timeline_function(db, func, dir);
	if (!fname) {
		sqlite3_close(db);
		return 1;
	}
	func = fname;
	sqlite3_stmt *st, *ins;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT context, rank FROM var_instances WHERE"
				   " function = ? ORDER BY rank", -1, &st, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT thread, seq, start, time, cpu_time, page_faults,"
				   " context_switches FROM var_instances WHERE function = ? AND"
				   " context = ? ORDER BY thread, seq", -1, &ins, NULL)) {
		sonde_error("%s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		free(fname);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/variance/timeline.csv", dir);
	FILE *csv = fopen(path, "w");
	if (csv)
		fprintf(csv, "function,context,thread,seq,start,time,cpu_time,page_faults,"
			     "context_switches\n");
	sqlite3_bind_text(st, 1, func, -1, SQLITE_STATIC);
	int found = 0;
	struct html_series ser[TIMELINE_SERIES];
	char *ser_name[TIMELINE_SERIES];
	size_t nser = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *ctx = (const char *)sqlite3_column_text(st, 0);
		double *v = NULL, *x = NULL;
		int64_t *thr = NULL;
		size_t n = 0, cap = 0, nthr = 0, run = 0, most = 0;	/* most: a thread's */
		double lo = INFINITY, hi = 0, t0 = INFINITY;
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, 1, func, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, ctx, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(ins) == SQLITE_ROW) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				double *q = realloc(v, cap * sizeof(*v));
				if (q)
					v = q;
				double *qx = q ? realloc(x, cap * sizeof(*x)) : NULL;
				if (qx)
					x = qx;
				int64_t *qt = qx ? realloc(thr, cap * sizeof(*thr)) : NULL;
				if (!qt)
					break;
				thr = qt;
			}
			v[n] = sqlite3_column_double(ins, 4);	/* CPU time, as ranked */
			x[n] = sqlite3_column_double(ins, 2);	/* its start (monotonic ns) */
			thr[n] = sqlite3_column_int64(ins, 0);
			if (!n || thr[n] != thr[n - 1])
				nthr++, run = 0;
			run++;
			most = run > most ? run : most;
			t0 = x[n] < t0 ? x[n] : t0;
			lo = v[n] < lo ? v[n] : lo;
			hi = v[n] > hi ? v[n] : hi;
			n++;
			if (csv) {
				csv_field(csv, func);
				fputc(',', csv);
				csv_field(csv, ctx);
				for (int c = 0; c < 7; c++)
					fprintf(csv, ",%lld", (long long)sqlite3_column_int64(ins, c));
				fputc('\n', csv);
			}
		}
		char a[32], b[32];
		fmt_value(a, sizeof(a), "time", lo);
		fmt_value(b, sizeof(b), "time", hi);
		fprintf(out, "%s  (%zu instances in order%s, CPU time %s .. %s; bars from 0%s)\n",
			ctx, n, nthr > 1 ? ", a line per thread" : "", a, b,
			(nthr > 1 ? most > 56 : n > 72) ? ", a bar: the largest of its group" : "");
		if (n && nthr > 1)
			thread_sparklines(out, v, thr, n, hi);
		else if (n)
			sparkline(out, v, n, 72, 0);
		/* the figure: each instance at its start, a line per thread (end to end the
		 * threads read as a slowdown, M1 above; in one line by start as a zigzag, one
		 * instance to the next: the code review of 2026-11-29) */
		for (size_t i = 0; i < n; i++) {
			x[i] = (x[i] - t0) / 1e9;	/* s */
			v[i] /= 1e3;	/* us */
		}
		for (size_t a = 0, b; a < n && nser < TIMELINE_SERIES; a = b) {
			for (b = a; b < n && thr[b] == thr[a]; b++)
				;
			char name[1100];
			if (nthr > 1)
				snprintf(name, sizeof(name), "%s, thread %lld", ctx,
					 (long long)thr[a]);
			else
				snprintf(name, sizeof(name), "%s", ctx);
			double *sx = malloc((b - a) * sizeof(*sx));
			double *sy = malloc((b - a) * sizeof(*sy));
			if (!sx || !sy || !(ser_name[nser] = strdup(name))) {
				free(sx);
				free(sy);
				break;
			}
			memcpy(sx, x + a, (b - a) * sizeof(*sx));
			memcpy(sy, v + a, (b - a) * sizeof(*sy));
			ser[nser] = (struct html_series){ .name = ser_name[nser], .n = b - a,
							  .x = sx, .y = sy };
			nser++;
		}
		free(v);
		free(x);
		free(thr);
		found++;
	}
	if (nser) {	/* the same series as a figure: DIR/variance/timeline.svg */
		struct html *h = html_new("timeline");
		char title[256], err[512], svg[4096];
		snprintf(title, sizeof(title), "%s: CPU time of each kept instance, at its start",
			 func);
		struct html_plot p = { .title = title,
				       .xlabel = "start (s from the first instance)",
				       .ylabel = "CPU time (us)", .width = 760, .height = 300,
				       .decimals = 1 };
		int ok = 1;
		for (size_t i = 0; i < nser; i++)
			ok &= ser[i].x != NULL;
		snprintf(svg, sizeof(svg), "%s/variance/timeline.svg", dir);
		if (h && ok) {
			html_line_plot(h, &p, nser, ser);
			if (html_svg_save(h, svg, err, sizeof(err)))
				sonde_error("%s", err);
			else
				fprintf(out, "SVG: %s\n", svg);
		}
		html_free(h);
		for (size_t i = 0; i < nser; i++) {
			free((void *)ser[i].x);
			free((void *)ser[i].y);
			free(ser_name[i]);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	sqlite3_close(db);
	if (csv) {
		fclose(csv);
		if (found)
			fprintf(out, "CSV: %s\n", path);
	}
	if (!found)
		sonde_error("no instance of '%s' in %s (see %s/variance/functions.csv)", func, dir,
			    dir);
	free(fname);
	return !found;
}

/* ---- HTML ---- */

/* The terminal's "<metric> per instance" tables on the page: wall time (and the counters
 * asked for with -e), in the ranked order (the usability review of 2026-11-28: the page
 * had CPU time only).  Times in us, counters as counted. */
static int other_metrics_html(sqlite3 *db, struct html *h, const char *ev)
{
	static const char *const heads[] = { "#", "function", "context", "mean", "sd", "CV %",
					     "min", "max" };
	for (int m = 0; m < VAR_NMETRIC; m++) {
		const char *mn = var_metric_name[m];
		if (m == VAR_M_CPU || !strstr(ev, mn))
			continue;
		int t = !strcmp(mn, "time");
		double k = t ? 1e3 : 1;
		sqlite3_stmt *st;
		char id[48], title[96];
		if (sqlite3_prepare_v2(db, "SELECT rank, function, context, mean, sd, cv, min, max,"
					   " below, resolution, clamped FROM var_functions WHERE"
					   " metric = ? ORDER BY rank", -1, &st, NULL))
			return -EIO;
		sqlite3_bind_text(st, 1, mn, -1, SQLITE_STATIC);
		snprintf(id, sizeof(id), "metric-%s", mn);
		snprintf(title, sizeof(title), "%s per instance%s", t ? "Wall time" : mn,
			 t ? " (us)" : "");
		html_section(h, id, title);
		html_table_begin(h, id, 8, heads, "rllrrrrr", HTML_SORTABLE);
		while (sqlite3_step(st) == SQLITE_ROW) {
			html_row_begin(h);
			html_td_int(h, sqlite3_column_int64(st, 0));
			html_td_name(h, (const char *)sqlite3_column_text(st, 1));
			html_td_name(h, (const char *)sqlite3_column_text(st, 2));
			/* as the terminal's (metric_row): a bound reads "< R", not "-" */
			struct mcell mc[5];
			metric_row(st, mc);
			for (int i = 0; i < 5; i++) {
				char bnd[40];
				if (mc[i].kind == MC_NONE) {
					html_td(h, "-");
				} else if (mc[i].kind == MC_BOUND) {
					snprintf(bnd, sizeof(bnd), "< %.*f", t ? 1 : 2, mc[i].v / k);
					html_td(h, bnd);
				} else if (mc[i].kind == MC_CLAMPED) {
					html_td(h, "0 (clamped)");
				} else if (i == 2) {
					html_td_num(h, 100 * mc[i].v, 1);
				} else {
					html_td_num(h, mc[i].v / k, t ? 1 : 2);
				}
			}
			html_row_end(h);
		}
		sqlite3_finalize(st);
		html_table_end(h);
	}
	return 0;
}

int var_html(sqlite3 *db, struct html *h)
{
	char b[1024], ev[128];
	sqlite3_stmt *st;

	db_meta(db, "events", ev, sizeof(ev));
	html_section(h, "summary", "Function variance (FVSampler)");
	html_kv_begin(h, "header");
	html_kv(h, "program", report_program(db, b, sizeof(b)));
	html_kv(h, "metrics", ev);
	char src[64], unit[16];
	snprintf(b, sizeof(b), "%s, period %" PRIu64 " %s", db_meta(db, "source", src, sizeof(src)),
		 db_meta_u64(db, "period"), db_meta(db, "period_unit", unit, sizeof(unit)));
	html_kv(h, "source", b);
	html_kv(h, "watch backend", *db_meta(db, "watch_backend", b, sizeof(b)) ? b : "none");
	if (report_switch_text(db, b, sizeof(b), db_meta_u64(db, "picks") > 0, NULL))
		html_kv(h, "context switches", b);
	snprintf(b, sizeof(b), "%" PRIu64 " samples, %" PRIu64 " entries caught, %" PRIu64
			       " instances measured", db_meta_u64(db, "samples"),
		 db_meta_u64(db, "entries"), db_meta_u64(db, "returns"));
	html_kv(h, "instances", b);
	html_kv(h, "pick", var_pick_text);
	if (*db_meta(db, "only", b, sizeof(b)))	/* --function */
		html_kv(h, "only (--function)", b);
	html_kv(h, "guidance", "investigate iff > 10% of the time and CV > 20% within threads "
			       "(plus resolution / mean: the calibration's error) or > 10% across "
			       "threads (and over twice the thread means' sampling error)");
	if (fp_text(db, b, sizeof(b)))
		html_kv(h, "call paths", b);
	if (stripped_text(db, b, sizeof(b)))
		html_kv(h, "symbols", b);
	if (no_frame_text(db, b, sizeof(b)))
		html_kv(h, "unpicked", b);
	html_kv_end(h);

	html_section(h, "ranked", "Functions, ranked");
	static const char *const heads[] = { "#", "function", "context", "instances",
					     "mean CPU (us)", "CV %", "thread CV %", "time share",
					     "verdict" };
	html_table_begin(h, "functions", 9, heads, "rllrrrrrl", HTML_SORTABLE);
	if (sqlite3_prepare_v2(db, "SELECT rank, function, context, instances, mean, cv_within,"
				   " thread_cv, share, verdict, investigate, below, resolution"
				   " FROM var_functions WHERE metric = 'cpu-time' ORDER BY rank", -1, &st,
			       NULL))
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		html_row_begin(h);
		html_td_int(h, sqlite3_column_int64(st, 0));
		html_td_name(h, (const char *)sqlite3_column_text(st, 1));
		html_td_name(h, (const char *)sqlite3_column_text(st, 2));
		html_td_int(h, sqlite3_column_int64(st, 3));
		if (sqlite3_column_int(st, 10)) {	/* below the resolution: a bound */
			snprintf(b, sizeof(b), "< %.1f", sqlite3_column_double(st, 11) / 1e3);
			html_td(h, b);
		} else {
			html_td_num(h, sqlite3_column_double(st, 4) / 1e3, 1);
		}
		if (sqlite3_column_type(st, 5) == SQLITE_NULL)
			html_td(h, "-");
		else
			html_td_num(h, 100 * sqlite3_column_double(st, 5), 1);
		if (sqlite3_column_type(st, 6) == SQLITE_NULL)
			html_td(h, "-");
		else
			html_td_num(h, 100 * sqlite3_column_double(st, 6), 1);
		html_td_share(h, sqlite3_column_double(st, 7), 1);
		html_td(h, (const char *)sqlite3_column_text(st, 8));
		html_row_end(h);
	}
	sqlite3_finalize(st);
	html_table_end(h);
	groups_notes(db, INT_MAX, NULL, h);
	few_note(db, NULL, h);
	if (other_metrics_html(db, h, ev))
		return -EIO;

	/* Each top function: its histogram and timeline of instance times, and the mean
	 * of each thread side by side. */
	sqlite3_stmt *fs, *is, *ts;
	/* below: the CPU-time row's, as the histogram's values and the verdict (the second
	 * code review: the wall-time row's hid real histograms and kept others) */
	if (sqlite3_prepare_v2(db, "SELECT f.rank, f.function, f.context, (SELECT g.below FROM"
				   " var_functions g WHERE g.rank = f.rank AND g.metric = 'cpu-time')"
				   " FROM var_functions f WHERE f.metric = 'time' ORDER BY f.rank"
				   " LIMIT ?", -1, &fs, NULL))
		return -EIO;
	/* at their start, a line per thread (the terminal's timeline: thread_sparklines) */
	if (sqlite3_prepare_v2(db, "SELECT cpu_time, start, thread FROM var_instances WHERE"
				   " rank = ? ORDER BY thread, start, seq", -1, &is, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT thread, mean, omp_thread FROM var_threads WHERE rank = ?"
				   " AND metric = 'cpu-time' ORDER BY thread", -1, &ts, NULL)) {
		sqlite3_finalize(fs);
		return -EIO;
	}
	sqlite3_bind_int(fs, 1, HTML_FUNCS);
	while (sqlite3_step(fs) == SQLITE_ROW) {
		int rank = sqlite3_column_int(fs, 0);
		char id[64], title[1200], fn[256];
		snprintf(id, sizeof(id), "f%d", rank);
		/* the function first, shortened as the tables shorten it, then the context: the
		 * navigation bar's cut kept "#1 Hydro::doCycle(double) > Hydro::doCycle(do..."
		 * for five regions whose "[clone ._omp_fn.N]" told them apart (the trial of
		 * 2026-11-29, F4: PENNANT) */
		const char *f = (const char *)sqlite3_column_text(fs, 1);
		snprintf(title, sizeof(title), "#%d %s, in %s", rank, nav_name(f, fn, sizeof(fn)),
			 (const char *)sqlite3_column_text(fs, 2));
		html_section(h, id, title);
		/* its instances read the calibration's error: no distribution of it (the trial
		 * of 2026-11-28: histograms and timelines of rows the table called below) */
		if (sqlite3_column_int(fs, 3)) {
			html_para(h, "Below the resolution here (of the debug registers' traps "
				     "or of the hooks' clock reads): its instances measure the "
				     "calibration's error, not the function (the table above), so "
				     "no distribution is drawn.");
			continue;
		}
		double *v = NULL, *x = NULL, x0 = INFINITY;
		int64_t *th = NULL;
		size_t n = 0, cap = 0;
		sqlite3_reset(is);
		sqlite3_bind_int(is, 1, rank);
		while (sqlite3_step(is) == SQLITE_ROW) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				double *q = realloc(v, cap * sizeof(*v)), *p;
				if (q)
					v = q;
				p = realloc(x, cap * sizeof(*x));
				if (p)
					x = p;
				int64_t *t = realloc(th, cap * sizeof(*th));
				if (t)
					th = t;
				if (!q || !p || !t)
					break;
			}
			v[n] = sqlite3_column_double(is, 0) / 1e3;
			x[n] = sqlite3_column_double(is, 1);
			th[n] = sqlite3_column_int64(is, 2);
			x0 = x[n] < x0 ? x[n] : x0;
			n++;
		}
		for (size_t i = 0; i < n; i++)
			x[i] = (x[i] - x0) / 1e9;	/* s from the first instance */
		if (n) {
			char hid[64], tid[64];
			snprintf(hid, sizeof(hid), "hist-%d", rank);
			snprintf(tid, sizeof(tid), "timeline-%d", rank);
			struct html_plot hp = { .id = hid, .title = "instance CPU time distribution",
						.xlabel = "us", .ylabel = "instances", .width = 420,
						.height = 220, .decimals = 1 };
			html_histogram(h, &hp, n, v, 30);
			struct html_plot tp = { .id = tid, .title = "instances at their start "
						"(timeline)", .xlabel = "s from the first instance",
						.ylabel = "us", .width = 520,
						.height = 220, .decimals = 1 };
			/* a series per thread, its instances in a row of the arrays */
			struct html_series s[HTML_TIMELINE_THREADS];
			char name[HTML_TIMELINE_THREADS][32];
			size_t ns = 0;
			for (size_t a = 0, b; a < n && ns < HTML_TIMELINE_THREADS; a = b) {
				for (b = a; b < n && th[b] == th[a]; b++)
					;
				snprintf(name[ns], sizeof(name[ns]), "thread %lld",
					 (long long)th[a]);
				s[ns] = (struct html_series){ .name = name[ns], .n = b - a,
							      .x = x + a, .y = v + a };
				ns++;
			}
			html_line_plot(h, &tp, ns, s);
		}
		free(v);
		free(x);
		free(th);
		/* Per-thread means. */
		size_t nt = 0, ct = 0;
		double *tm = NULL;
		char **lab = NULL;
		sqlite3_reset(ts);
		sqlite3_bind_int(ts, 1, rank);
		while (sqlite3_step(ts) == SQLITE_ROW) {
			if (nt == ct) {
				ct = ct ? ct * 2 : 16;
				double *q = realloc(tm, ct * sizeof(*tm));
				char **l = realloc(lab, ct * sizeof(*lab));
				if (q)
					tm = q;
				if (l)
					lab = l;
				if (!q || !l)
					break;
			}
			char t[48];
			/* with its OpenMP thread number where known (src/rt/omp.c) */
			if (sqlite3_column_type(ts, 2) != SQLITE_NULL)
				snprintf(t, sizeof(t), "thread %d (omp %d)", sqlite3_column_int(ts, 0),
					 sqlite3_column_int(ts, 2));
			else
				snprintf(t, sizeof(t), "thread %d", sqlite3_column_int(ts, 0));
			lab[nt] = strdup(t);
			tm[nt] = sqlite3_column_double(ts, 1) / 1e3;
			nt++;
		}
		if (nt) {
			char bid[64];
			snprintf(bid, sizeof(bid), "threads-%d", rank);
			struct html_plot bp = { .id = bid, .title = "mean CPU time per thread",
						.xlabel = "thread", .ylabel = "us", .width = 420,
						.height = 220, .decimals = 1 };
			html_bar_chart(h, &bp, nt, (const char *const *)lab, tm);
		}
		for (size_t i = 0; i < nt; i++)
			free(lab[i]);
		free(lab);
		free(tm);
	}
	sqlite3_finalize(fs);
	sqlite3_finalize(is);
	sqlite3_finalize(ts);
	return 0;
}
