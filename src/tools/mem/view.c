/* SPDX-License-Identifier: MIT */
/*
 * view.c - the mem tool's views: CSV exports (DIR/mem/ CSV files) and the text, CSV and JSON
 * reports, all read back from the profile database, so `sonde report DIR` shows exactly
 * what was stored.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "sonde/openmp.h"
#include "prof/errmsg.h"
#include "prof/db.h"
#include "tools/mem/model.h"
#include "tools/mem/sites.h"
#include "prof/profile.h"
#include "prof/report.h"
#include "tools/mem/mem.h"
#include "ui/csv.h"
#include "ui/json.h"
#include "ui/text.h"

#define DEFAULT_TOP 10


/* ---- the views' rows, from the database ---- */

const char mem_objects_sql[] =
	"SELECT name, kind, samples, share, loads, stores, size, allocs, path FROM objects"
	" ORDER BY samples DESC, id";
const char mem_code_sql[] =
	"SELECT function, file, line, samples, share, loads, stores FROM code"
	" ORDER BY samples DESC, id";
/* rank: empty (NULL) outside an MPI run, where it is -1 (the CSV said -1 until 2026-11-28) */
const char mem_threads_sql[] =
	"SELECT t.label, t.tid, NULLIF(p.rank, -1), p.pid, t.samples,"
	" CAST(t.samples AS REAL) / MAX(1, (SELECT SUM(samples) FROM threads)),"
	" t.truncated, t.dropped, t.unsignalled FROM threads t JOIN processes p ON p.id = t.process"
	" ORDER BY t.id";
/* the CSV's and JSON's: the first six, then the OpenMP thread number (src/rt/omp.c) and
 * the blocked-SIGTRAP flag (profile_thread_unsignalled) */
static const char threads_out_sql[] =
	"SELECT t.label, t.tid, NULLIF(p.rank, -1), p.pid, t.samples,"
	" CAST(t.samples AS REAL) / MAX(1, (SELECT SUM(samples) FROM threads)),"
	" t.omp_thread, t.unsignalled FROM threads t JOIN processes p ON p.id = t.process"
	" ORDER BY t.id";
const char mem_objthreads_sql[] =
	"SELECT o.name, t.label, x.samples, x.share FROM object_threads x"
	" JOIN objects o ON o.id = x.object JOIN threads t ON t.id = x.thread"
	" ORDER BY o.samples DESC, o.id, x.samples DESC, t.id";

/*
 * Where each object is accessed: its code lines, the hottest object first and in each the
 * hottest line (the usability review of 2026-11-27, M3: "which lines touch gtab?" took SQL;
 * VTune and `perf mem report --sort=symbol_daddr,sym` pair them).  A read-modify-write
 * counts as a load and a store, as in the other tables (model.c, attribute; flags 1
 * SONDE_MEM_STORE, 2 SONDE_MEM_RMW).  The object's id last, for the
 * text's groups (the CSV and JSON stop before it).
 */
_Static_assert(SONDE_MEM_STORE == 1 && SONDE_MEM_RMW == 2, "mem_objcode_sql's flags");
const char mem_objcode_sql[] =
	"SELECT o.name, c.function, c.file, c.line, SUM(m.weight),"
	" CAST(SUM(m.weight) AS REAL) / MAX(1, o.samples),"
	" CAST(SUM(m.weight) AS REAL) / MAX(1, (SELECT SUM(samples) FROM objects)),"
	" SUM(CASE WHEN (m.flags & 1) = 0 OR (m.flags & 2) != 0 THEN m.weight ELSE 0 END),"
	" SUM(CASE WHEN (m.flags & 3) != 0 THEN m.weight ELSE 0 END), o.id"
	" FROM mem_samples m JOIN objects o ON o.id = m.object JOIN code c ON c.id = m.code"
	" GROUP BY m.object, m.code ORDER BY o.samples DESC, o.id, 5 DESC, c.id";

static const char *const objects_cols[] = { "object", "kind", "samples", "share",
					    "loads", "stores", "size", "allocs", "path" };
static const char *const code_cols[] = { "function", "file", "line", "samples",
					 "share", "loads", "stores" };
static const char *const threads_cols[] = { "thread", "tid", "rank", "pid", "samples",
					    "share", "omp_thread", "unsignalled" };
static const char *const objthreads_cols[] = { "object", "thread", "samples", "share" };
static const char *const objcode_cols[] = { "object", "function", "file", "line", "samples",
					   "object_share", "share", "loads", "stores" };

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Column i of the current row as text; shares (REAL) with 4 decimals. */
static const char *col_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return "";
	case SQLITE_FLOAT:
		snprintf(buf, len, "%.4f", sqlite3_column_double(st, i));
		return buf;
	case SQLITE_INTEGER:
		snprintf(buf, len, "%lld", (long long)sqlite3_column_int64(st, i));
		return buf;
	}
	return (const char *)sqlite3_column_text(st, i);
}

static int csv_query(sqlite3 *db, FILE *f, const char *sql, int ncols,
		     const char *const *heads)
{
	sqlite3_stmt *st;
	char buf[16][64];
	const char *cells[16];
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	csv_row(f, ncols, heads);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++)
			cells[i] = col_text(st, i, buf[i], sizeof(buf[i]));
		csv_row(f, ncols, cells);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* ---- CSV exports: objects.csv, code.csv... in DIR/mem ---- */

static int export_one(sqlite3 *db, const char *dir, const char *name, const char *sql,
		      int ncols, const char *const *heads, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/mem/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return errmsg(err, errlen, -errno, "cannot write '%s': %s", path, strerror(errno));
	int r = csv_query(db, f, sql, ncols, heads);
	if (fclose(f) && !r)
		r = -errno;
	if (r)
		return errmsg(err, errlen, r, "cannot write '%s': %s", path,
			    r == -EIO ? sqlite3_errmsg(db) : strerror(-r));
	return 0;
}

int mem_export(sqlite3 *db, const char *dir, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/mem", dir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return errmsg(err, errlen, -errno, "cannot create '%s': %s", path, strerror(errno));
	int r = export_one(db, dir, "objects.csv", mem_objects_sql, NCOLS(objects_cols),
			   objects_cols, err, errlen);
	if (!r)
		r = export_one(db, dir, "code.csv", mem_code_sql, NCOLS(code_cols), code_cols, err,
			       errlen);
	if (!r)
		r = export_one(db, dir, "threads.csv", threads_out_sql, NCOLS(threads_cols),
			       threads_cols, err, errlen);
	if (!r)
		r = export_one(db, dir, "object_threads.csv", mem_objthreads_sql,
			       NCOLS(objthreads_cols), objthreads_cols, err, errlen);
	if (!r)
		r = export_one(db, dir, "object_code.csv", mem_objcode_sql, NCOLS(objcode_cols),
			       objcode_cols, err, errlen);
	return r;
}

/* ---- text ---- */

struct meta {
	char tool[64], source[64], why[512], period[32], unit[32], scaling[DB_SCALING_MAX];
	char argv[4096];	/* the program as run: report_program */
	uint64_t samples, loads, stores, dropped, truncated, processes, threads, period_n;
	uint64_t records;	/* samples taken; fewer than samples where they are weighted */
};

static void read_meta(sqlite3 *db, struct meta *mt)
{
	db_meta(db, "tool", mt->tool, sizeof(mt->tool));
	db_meta(db, "source", mt->source, sizeof(mt->source));
	db_meta(db, "source_why", mt->why, sizeof(mt->why));
	db_meta(db, "period", mt->period, sizeof(mt->period));
	db_meta(db, "period_unit", mt->unit, sizeof(mt->unit));
	db_meta(db, "scaling", mt->scaling, sizeof(mt->scaling));
	report_program(db, mt->argv, sizeof(mt->argv));
	mt->samples = db_meta_u64(db, "samples");
	mt->records = db_meta_u64(db, "records");
	mt->loads = db_meta_u64(db, "loads");
	mt->stores = db_meta_u64(db, "stores");
	mt->dropped = db_meta_u64(db, "dropped");
	mt->truncated = db_meta_u64(db, "truncated_threads");
	mt->processes = db_meta_u64(db, "processes");
	mt->threads = db_meta_u64(db, "threads");
	mt->period_n = db_meta_u64(db, "period");
}

/* The estimate column's heading, NULL when samples are not counts of something. */
static const char *estimate_heading(const struct meta *mt)
{
	if (!strcmp(mt->source, "inst") && mt->period_n > 1)
		return "est. accesses";
	if (!strcmp(mt->source, "hw") && mt->period_n > 0)
		return "est. events";
	return NULL;
}

static void print_deaths(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	static const char sql[] = "SELECT prefix, signo FROM processes"
				  " WHERE end = 'signal' OR signo > 0";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(out, "  note: process %s ended by signal %d\n", sqlite3_column_text(st, 0),
			sqlite3_column_int(st, 1));
	sqlite3_finalize(st);
}

/* "by cause: far 12 (1.1%), in-step 3 (0.3%)" under the dropped line; nothing for a database
 * from before the drops table, or with no drop. */
static void print_drops(sqlite3 *db, uint64_t all, FILE *out)
{
	sqlite3_stmt *st;
	static const char sql[] = "SELECT cause, sum(count) FROM drops GROUP BY cause"
				  " HAVING sum(count) > 0 ORDER BY 2 DESC, 1";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	int n = 0, budget = 0;
	double own = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t c = (uint64_t)sqlite3_column_int64(st, 1);
		const char *cause = (const char *)sqlite3_column_text(st, 0);
		fprintf(out, "%s%s %" PRIu64 " (%.1f%%)", n++ ? ", " : "            by cause: ",
			cause ? cause : "?", c, all ? 100.0 * (double)c / (double)all : 0.0);
		budget |= cause && !strcmp(cause, "time-budget");
		if (cause && !strcmp(cause, "own-time") && all)
			own = (double)c / (double)all;
	}
	if (n)
		fputc('\n', out);
	sqlite3_finalize(st);
	/* the runtime's own code taking a tenth of the ticks: mostly its malloc and free
	 * wrappers under code that allocates at a high rate (the trial of 2026-11-29, F6:
	 * miniXyce's std::map, 27-29% own-time, unexplained; 60 M small mallocs 2.1x the CPU) */
	if (own >= 0.1)
		text_hang(out, "            ", "            ", "own-time: ticks that landed in "
			  "sonde's own code: its sample handlers, or its malloc and free wrappers "
			  "(every call passes through them, to track the blocks a report names), "
			  "which code that allocates at a high rate pays for; the program's "
			  "accesses made meanwhile are not sampled, so that code reads somewhat "
			  "low", 80);
	/* the runtime's own throttle (rt/source-clock.h, CLOCK_BUDGET_DIV) */
	if (budget)
		text_hang(out, "            ", "            ", "time-budget: the sample "
			  "handlers (the single steps to an access: code that runs long in "
			  "registers takes many) and the ticks' own delivery (measured at the "
			  "start) would have taken over their share of the program's time on this "
			  "machine (a third at the default periods, a fifth under 0.5 ms); the "
			  "signals past that were skipped (under 0.5 ms the period stretched, by "
			  "8 ms at most), and the sample after them counts for the periods it "
			  "stood for, so the shares hold but rest on fewer samples (the header's "
			  "samples taken); a shorter --period would not take more", 80);
}

/* The forks that exec'd (profile_fork_exec), after the programs line: "and 2 forks that
 * exec'd: echo, orted (not profiled)". */
static void print_forks(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	char line[1024] = "";
	int rows = 0;
	/* (their count first: no window function, which SQLite before 3.25 lacks) */
	long long all = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM processes WHERE fork_exec = 1", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		all = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!all || sqlite3_prepare_v2(db, "SELECT exec_into, exec_followed, count(*) FROM"
					   " processes WHERE fork_exec = 1 GROUP BY exec_into,"
					   " exec_followed ORDER BY min(id)", -1, &st,
				       NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *img = (const char *)sqlite3_column_text(st, 0);
		const char *into = img && strrchr(img, '/') ? strrchr(img, '/') + 1 : img;
		long long n = sqlite3_column_int64(st, 2);
		size_t o = strlen(line);
		if (!rows++)
			o += (size_t)snprintf(line, sizeof(line), "and %lld fork%s that exec'd: ",
					      all, all == 1 ? "" : "s");
		else
			o += (size_t)snprintf(line + o, sizeof(line) - o, ", ");
		if (o < sizeof(line))
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s",
					      into && *into ? into : "?",
					      sqlite3_column_int64(st, 1) ? "" : " (not profiled)");
		if (n > 1 && o < sizeof(line))
			snprintf(line + o, sizeof(line) - o, " x%lld", n);
	}
	sqlite3_finalize(st);
	if (rows)
		text_hang(out, "            ", "            ", line, 80);
}

/*
 * Several processes: which programs they ran (an exec'd child, a helper), then the forks
 * that exec'd, by what they exec'd.  Open MPI's daemon among them without ranks is an MPI
 * program started without mpirun, whose singleton start forked and exec'd orted, which
 * sonde followed (the trial of 2026-11-27 on miniAMR: "threads 9 in 3 processes", the
 * daemon's streams "cut short"); it is not followed since.
 */
static void print_programs(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	int daemon = 0, ranks = 0;
	const char *sep = "";

	if (sqlite3_prepare_v2(db, "SELECT exe, count(*), max(rank) FROM processes WHERE"
				   " fork_exec = 0 GROUP BY exe ORDER BY min(id)", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	fprintf(out, "  programs  ");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *exe = (const char *)sqlite3_column_text(st, 0);
		const char *b = exe && strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe ? exe : "?";
		fprintf(out, "%s%s (%lld)", sep, b, (long long)sqlite3_column_int64(st, 1));
		sep = ", ";
		daemon |= !strcmp(b, "orted") || !strcmp(b, "prted");
		ranks |= sqlite3_column_int64(st, 2) >= 0;
	}
	sqlite3_finalize(st);
	fprintf(out, "\n");
	print_forks(db, out);
	if (daemon && !ranks)
		fprintf(out, "  note: an MPI program started without mpirun: Open MPI's daemon was "
			     "profiled too; run 'mpirun -np N sonde mem -- ./app', or add "
			     "--no-follow-exec\n");
}

static void print_header(sqlite3 *db, const struct meta *mt, FILE *out)
{
	/* weighted samples (the clock's time budget: source-clock.h, owed_ns) are counted as
	 * the periods they stood for; the drops as signals, against the samples taken */
	int weighted = mt->records && mt->records < mt->samples;
	uint64_t all = (weighted ? mt->records : mt->samples) + mt->dropped;
	fprintf(out, "sonde %s: %s\n", *mt->tool ? mt->tool : "profile",
		mt->argv);
	fprintf(out, "  source    %s", mt->source);
	/* the reasons without the "; fix: ..." advice of each, which 'sonde info' gives (the
	 * header line was 270 columns on every report of a VM: the usability review of
	 * 2026-11-27); the other sources' reasons after it kept (a refused clock) */
	if (*mt->why) {
		char why[sizeof(mt->why)];
		int cut = 0;
		size_t n = 0;
		for (const char *s = mt->why; *s && n + 1 < sizeof(why);) {
			if (!strncmp(s, "; fix: ", 7)) {
				cut = 1;
				/* to the next source's reason ("; clock: ...") or the end */
				const char *next = s + 7;
				while (*next && !(next[0] == ';' && next[1] == ' ' &&
						  (!strncmp(next + 2, "hw: ", 4) ||
						   !strncmp(next + 2, "clock: ", 7) ||
						   !strncmp(next + 2, "inst: ", 6) ||
						   !strncmp(next + 2, "its period", 10))))
					next++;
				s = next;
				continue;
			}
			why[n++] = *s++;
		}
		why[n] = 0;
		fprintf(out, " (fallback: %s%s)", why, cut ? "; 'sonde info' says how to fix it" : "");
	}
	fprintf(out, "\n  period    %s %s\n", mt->period, mt->unit);
	report_debias_line(db, out, "  de-bias   ", "            ");
	text_hang(out, "  scaling   ", "            ", mt->scaling, 80);
	/* a read-modify-write (add to memory, a locked op) is both: say so where it shows
	 * (the trial of 2026-11-27: radix's 138 samples, 138 loads and 64 stores) */
	if (weighted) {
		/* the samples taken first, then the periods the tables count (the trial of
		 * 2026-11-29 read "246852" as samples, 3260 taken) */
		char w[400];
		snprintf(w, sizeof(w), "%" PRIu64 " taken, counted as %" PRIu64 " periods of %s %s "
			 "(%" PRIu64 " loads, %" PRIu64 " stores%s): each counts for the periods it "
			 "stood for, the clock source's time budget having stretched the period and "
			 "skipped ticks (dropped below); the tables count periods", mt->records,
			 mt->samples, mt->period, mt->unit, mt->loads, mt->stores,
			 mt->loads + mt->stores > mt->samples ? "; a read-modify-write is both" : "");
		text_hang(out, "  samples   ", "            ", w, 80);
		fprintf(out, "  dropped   %" PRIu64 " (%.1f%% of the %" PRIu64 " signals)\n",
			mt->dropped, all ? 100.0 * (double)mt->dropped / (double)all : 0.0, all);
	} else {
		fprintf(out, "  samples   %" PRIu64 " (%" PRIu64 " loads, %" PRIu64 " stores%s)\n",
			mt->samples, mt->loads, mt->stores,
			mt->loads + mt->stores > mt->samples ? "; a read-modify-write is both" : "");
		fprintf(out, "  dropped   %" PRIu64 " (%.1f%% of all samples)\n", mt->dropped,
			all ? 100.0 * (double)mt->dropped / (double)all : 0.0);
	}
	if (mt->dropped)
		print_drops(db, all, out);
	char e[300];
	if (mem_share_error(db, e, sizeof(e)))
		text_hang(out, "  error     ", "            ", e, 80);
	fprintf(out, "  threads   %" PRIu64 " in %" PRIu64 " process%s\n", mt->threads,
		mt->processes, mt->processes == 1 ? "" : "es");
	if (mt->processes > 1)
		print_programs(db, out);
	if (mt->truncated)
		fprintf(out, "  warning: %" PRIu64 " thread stream%s cut short (the process died):"
			" read up to the cut\n", mt->truncated,
			mt->truncated == 1 ? " was" : "s were");
	print_deaths(db, out);
	if (!mt->samples)
		fprintf(out, "  note: no samples were recorded\n");
}

static void fmt_u64(char *buf, size_t len, sqlite3_stmt *st, int col)
{
	snprintf(buf, len, "%lld", (long long)sqlite3_column_int64(st, col));
}

static void more_rows(FILE *out, sqlite3 *db, const char *table, int shown, const char *csv)
{
	char sql[128];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > shown)
		fprintf(out, "  ... %d more (--top N, or %s)\n", sqlite3_column_int(st, 0) - shown,
			csv);
	sqlite3_finalize(st);
}

/* The statement for a table's rows; NULL (t freed) when t or the statement is missing. */
static sqlite3_stmt *table_rows(sqlite3 *db, const char *sql, struct text_table *t)
{
	sqlite3_stmt *st;
	if (t && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
		return st;
	text_table_free(t);
	return NULL;
}

/* The table under its title, then how many more rows of table csv holds; st and t freed. */
static void table_print(FILE *out, sqlite3 *db, sqlite3_stmt *st, struct text_table *t,
			const char *title, const char *table, int shown, const char *csv)
{
	sqlite3_finalize(st);
	fprintf(out, "\n%s\n", title);
	text_table_print(t, out, "  ");
	more_rows(out, db, table, shown, csv);
	text_table_free(t);
}

/*
 * A share p of n independent samples is off by up to 1.96 sqrt(p (1 - p) / n) at 95%, the
 * most at p = 1/2 (report_share_error); weighted samples count as (sum w)^2 / sum w^2
 * (the clock's stretched periods: a few heavy ones are few samples).  The usability
 * review of 2026-11-29: 18 samples printed "100.0%" with no word of their number; a line
 * read 20-24% in four runs for 30%.  Not where every access was counted (inst, period 1).
 */
static double effective_samples(sqlite3 *db)
{
	char src[16], per[32];
	if (!strcmp(db_meta(db, "source", src, sizeof(src)), "inst") &&
	    !strcmp(db_meta(db, "period", per, sizeof(per)), "1"))
		return 0;
	sqlite3_stmt *st;
	double sw = 0, sw2 = 0;
	if (sqlite3_prepare_v2(db, "SELECT SUM(weight), SUM(1.0 * weight * weight) FROM"
				   " mem_samples", -1, &st, NULL))
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		sw = sqlite3_column_double(st, 0);
		sw2 = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	return sw > 0 && sw2 > 0 ? sw * sw / sw2 : 0;
}

const char *mem_share_error(sqlite3 *db, char *buf, size_t len)
{
	double n = effective_samples(db);
	if (!(n > 0))
		return NULL;
	/* the advice by source: the clock's periods under 0.5 ms take each thread's own
	 * timer, which the budget stretches, and took fewer samples a second here (450 us:
	 * 2601 where 500 us took 4727; the usability review of 2026-11-29, M1) */
	char src[16];
	db_meta(db, "source", src, sizeof(src));
	const char *more = !strcmp(src, "clock") ?
		"a longer run, or a shorter --period down to 500000 ns; shorter ones take each "
		"thread's own timer, which took fewer samples a second here" :
		!strcmp(src, "inst") ? "a longer run, or a shorter --period: more records, "
		"more disk (SONDE_MAX_SIZE)" : "a longer run, or a shorter --period";
	snprintf(buf, len, "a share is within +-%.1f points of the run's (95%%, %.0f effective "
		 "samples), +-%.1f at a share of 10%%; more samples narrow it (%s)",
		 100 * report_share_error(0.5, n), n, 100 * report_share_error(0.1, n), more);
	return buf;
}

const char *mem_count_heading(sqlite3 *db)
{
	uint64_t records = db_meta_u64(db, "records");
	return records && records < db_meta_u64(db, "samples") ? "periods" : "samples";
}

static int text_objects(sqlite3 *db, const struct meta *mt, FILE *out, int top)
{
	const char *est = estimate_heading(mt), *cnt = mem_count_heading(db);
	const char *heads[] = { "#", "share", cnt, "loads", "stores", "kind", "object", NULL };
	const char *heads_est[] = { "#", "share", cnt, est, "loads", "stores", "kind",
				    "object" };
	struct text_table *t = est ? text_table_new(8, heads_est, "rrrrrrln")
				   : text_table_new(7, heads, "rrrrrln");
	sqlite3_stmt *st = table_rows(db, mem_objects_sql, t);
	int n = 0;
	if (!st)
		return -EIO;
	/* objects allocated but never sampled are in the CSV and the database only */
	while (n < top && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 2) > 0) {
		char b[6][32];
		snprintf(b[0], 32, "%d", ++n);
		text_percent(b[1], 32, sqlite3_column_double(st, 3));
		fmt_u64(b[2], 32, st, 2);
		snprintf(b[3], 32, "%llu", (unsigned long long)sqlite3_column_int64(st, 2) *
						   (unsigned long long)mt->period_n);
		fmt_u64(b[4], 32, st, 4);
		fmt_u64(b[5], 32, st, 5);
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *row[] = { b[0], b[1], b[2], b[4], b[5], kind, name, NULL };
		const char *row_est[] = { b[0], b[1], b[2], b[3], b[4], b[5], kind, name };
		text_table_add(t, est ? row_est : row);
	}
	table_print(out, db, st, t, "Data objects", "objects WHERE samples > 0", n, "mem/objects.csv");
	return 0;
}

/* "file.c:12" from the row's file (column col, its base name) and line (col + 1). */
static void code_location(char *buf, size_t len, sqlite3_stmt *st, int col)
{
	const char *file = (const char *)sqlite3_column_text(st, col);
	const char *base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	if (!base || !*base)
		snprintf(buf, len, "-");
	else if (sqlite3_column_int(st, col + 1) > 0)
		snprintf(buf, len, "%s:%d", base, sqlite3_column_int(st, col + 1));
	else
		snprintf(buf, len, "%s", base);
}

static int text_code(sqlite3 *db, FILE *out, int top)
{
	const char *heads[] = { "#", "share", mem_count_heading(db), "loads", "stores",
				"location", "function" };
	struct text_table *t = text_table_new(7, heads, "rrrrrln");
	sqlite3_stmt *st = table_rows(db, mem_code_sql, t);
	int n = 0;
	if (!st)
		return -EIO;
	while (n < top && sqlite3_step(st) == SQLITE_ROW) {
		char b[5][32], loc[512];
		snprintf(b[0], 32, "%d", ++n);
		text_percent(b[1], 32, sqlite3_column_double(st, 4));
		fmt_u64(b[2], 32, st, 3);
		fmt_u64(b[3], 32, st, 5);
		fmt_u64(b[4], 32, st, 6);
		code_location(loc, sizeof(loc), st, 1);
		const char *row[] = { b[0], b[1], b[2], b[3], b[4], loc,
				      (const char *)sqlite3_column_text(st, 0) };
		text_table_add(t, row);
	}
	table_print(out, db, st, t, "Code", "code", n, "mem/code.csv");
	return 0;
}

#define OBJCODE_OBJECTS 5	/* objects in the text's view of where they are accessed */
#define OBJCODE_LINES 3		/* lines shown of each, the rest summed on one row */

/* One row of an object's lines: its samples n, its share of the object's. */
static void objcode_row(struct text_table *t, int64_t n, double share, const char *loc,
			const char *fn)
{
	char b[2][32];
	text_percent(b[0], 32, share);
	snprintf(b[1], 32, "%lld", (long long)n);
	const char *row[] = { NULL, b[0], b[1], loc, fn };
	text_table_add(t, row);
}

/* The rest of an object's lines, summed on one row: "(N more lines)". */
static void objcode_rest(struct text_table *t, int more, int64_t rest, int64_t all)
{
	char loc[48];
	if (more <= 0)
		return;
	snprintf(loc, sizeof(loc), "(%d more line%s)", more, more == 1 ? "" : "s");
	objcode_row(t, rest, all ? (double)rest / (double)all : 0, loc, NULL);
}

/*
 * The hottest objects' lines: for each of the first OBJCODE_OBJECTS objects (at most --top),
 * its OBJCODE_LINES hottest code lines with each one's share of the object's samples, under
 * a title row of the object's number (its row in the Data objects table) and name (long
 * names made a column 150 wide: Quicksilver's objects, the first try).  Said only where an
 * object shown is accessed from two lines or more (else the other two tables say it all);
 * mem/object_code.csv holds every object's lines.
 */
static int text_objcode(sqlite3 *db, FILE *out, int top)
{
	const char *heads[] = { "#", "of object", mem_count_heading(db), "location",
				"function" };
	struct text_table *t = text_table_new(5, heads, "rrrln");
	sqlite3_stmt *st = table_rows(db, mem_objcode_sql, t);
	int nobj = 0, lines = 0, more = 0, max = top < OBJCODE_OBJECTS ? top : OBJCODE_OBJECTS;
	int64_t cur = -1, all = 0, rest = 0;
	int stopped = 0, several = 0;
	if (!st)
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 9), n = sqlite3_column_int64(st, 4);
		if (id != cur) {
			objcode_rest(t, more, rest, all);
			if ((stopped = nobj == max))
				break;
			cur = id, lines = more = 0, nobj++;
			all = rest = 0;
			char title[4096];
			snprintf(title, sizeof(title), "%d  %s", nobj,
				 (const char *)sqlite3_column_text(st, 0));
			text_table_add_group(t, title);
		}
		all += n;
		several |= lines > 0;
		if (lines++ >= OBJCODE_LINES) {
			more++;
			rest += n;
			continue;
		}
		char loc[512];
		code_location(loc, sizeof(loc), st, 2);
		objcode_row(t, n, sqlite3_column_double(st, 5), loc,
			    (const char *)sqlite3_column_text(st, 1));
	}
	if (!stopped)
		objcode_rest(t, more, rest, all);
	sqlite3_finalize(st);
	if (several) {
		fprintf(out, "\nWhere the objects are accessed (of object: the line's share of "
			     "the object's %s)\n", mem_count_heading(db));
		text_table_print(t, out, "  ");
		fprintf(out, "  every object's lines: mem/object_code.csv\n");
	}
	text_table_free(t);
	return 0;
}

void mem_thread_note(char *buf, size_t len, sqlite3_stmt *st)
{
	/* the row's truncated, then unsignalled (profile_thread_unsignalled: a thread that
	 * blocks SIGTRAP, the header's note says more; the usability review of 2026-11-29) */
	snprintf(buf, len, "%s%s%s", sqlite3_column_int(st, 6) ? "truncated" : "",
		 sqlite3_column_int(st, 6) && sqlite3_column_int(st, 8) ? ", " : "",
		 sqlite3_column_int(st, 8) ? "no sampling signal: SIGTRAP blocked" : "");
}

static int text_threads(sqlite3 *db, const struct meta *mt, FILE *out, int top)
{
	int multi = mt->processes > 1;
	const char *cnt = mem_count_heading(db);
	const char *heads[] = { "thread", "rank", "pid", "tid", cnt, "share", "note" };
	const char *h1[] = { "thread", "tid", cnt, "share", "note" };
	struct text_table *t = multi ? text_table_new(7, heads, "lrrrrrl")
				     : text_table_new(5, h1, "lrrrl");
	sqlite3_stmt *st = table_rows(db, mem_threads_sql, t);
	int n = 0;
	if (!st)
		return -EIO;
	while (n < top && sqlite3_step(st) == SQLITE_ROW) {
		char b[5][32];
		fmt_u64(b[0], 32, st, 2);
		if (sqlite3_column_type(st, 2) == SQLITE_NULL)	/* no MPI rank (NULL, not -1) */
			snprintf(b[0], 32, "-");
		fmt_u64(b[1], 32, st, 3);
		fmt_u64(b[2], 32, st, 1);
		fmt_u64(b[3], 32, st, 4);
		text_percent(b[4], 32, sqlite3_column_double(st, 5));
		const char *label = (const char *)sqlite3_column_text(st, 0);
		char note[64];
		mem_thread_note(note, sizeof(note), st);
		const char *row[] = { label, b[0], b[1], b[2], b[3], b[4], note };
		const char *r1[] = { label, b[2], b[3], b[4], note };
		text_table_add(t, multi ? row : r1);
		n++;
	}
	table_print(out, db, st, t, "Threads", "threads", n, "mem/threads.csv");
	return 0;
}

/* What a reader would miss in the tables: the OpenMP runtime's code taking a large share
 * of the samples (threads spinning at barriers or locks, GOMP_SPINCOUNT), on its own data
 * (blocks libgomp allocated, or small ones not tracked). */
/* An MPI library's module (Open MPI's, MPICH's and their transports), by its file name. */
static int mpi_lib(const char *module)
{
	static const char *const pre[] = { "libmpi", "libopen-pal", "libopen-rte", "libpmix",
					   "mca_", "libmpich", "libfabric", "libucp", "libuct",
					   "libucs", "libpsm" };
	if (!module)
		return 0;
	const char *b = strrchr(module, '/');
	b = b ? b + 1 : module;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(b, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* One paragraph of the notes after the tables, from printf's fmt: the "Note" heading
 * before the first. */
static void __attribute__((format(printf, 3, 4))) say_note(FILE *out, int *said,
							   const char *fmt, ...)
{
	char text[640];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fputs(*said ? "\n" : "\nNote\n", out);
	text_para(out, "  ", text, 80);
	*said = 1;
}

static void text_notes(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	double omp = 0, mpi = 0;
	if (sqlite3_prepare_v2(db, "SELECT module, share FROM code", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *mod = (const char *)sqlite3_column_text(st, 0);
		if (sonde_openmp_lib(mod))
			omp += sqlite3_column_double(st, 1);
		else if (mpi_lib(mod))
			mpi += sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	int said = 0;
	/* MPI's progress engine polling while a rank waits (the trial of 2026-11-28: 11-14%
	 * of CloverLeaf's and HPCG's samples in opal_progress and mca_btl_vader, unsaid) */
	if (mpi >= 0.1) {
		say_note(out, &said, "%.0f%% of the samples are accesses made by the MPI "
			 "library's code: mostly its progress engine polling while a rank waits "
			 "for others (Open MPI's opal_progress, mca_btl_*).  That is waiting, not "
			 "the rank's own data work; 'sonde vsensor' tells which ranks wait and "
			 "when.", mpi * 100);
	}
	if (omp >= 0.2) {
		/* folded as the others (it ran to 250 columns: the trial of 2026-11-28) */
		say_note(out, &said, "%.0f%% of the samples are accesses made by the "
			 "OpenMP runtime's code: threads spinning while they wait (barriers, locks, "
			 "the end of a parallel region), whatever exported name the library's "
			 "nearest symbol gives that code.  That time is load imbalance or serial "
			 "work; to see the program's data instead, run with "
			 "OMP_WAIT_POLICY=passive (waiting threads then sleep).", omp * 100);
	}
	/* the threads' stacks taking a large share: locals, spills and the pushes and pops of
	 * calls, which a reader takes for the program's data (the trial of 2026-11-28:
	 * graph500's ranks 46% on their stacks, mostly aml_send's prologue and per-edge
	 * calls, beside 6.6% on the graph's CSR arrays) */
	double stack = 0;
	if (sqlite3_prepare_v2(db, "SELECT SUM(share) FROM objects WHERE kind = 'stack'", -1, &st,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			stack = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	if (stack >= 0.3) {
		/* not only pushes and pops: a local array is data as any other (the usability
		 * review of 2026-11-29, M2: a 512 KiB array in main read as calls to inline) */
		say_note(out, &said, "%.0f%% of the samples are accesses to the threads' "
			 "stacks: local variables (arrays among them), spilled registers, and the "
			 "pushes and pops of calls (many calls of small functions make them).  The "
			 "Code table says which functions make them.  Where it is calls, inlining "
			 "them or a higher optimization level leaves the accesses to the data "
			 "itself; a local array is the program's data, which sonde names by the "
			 "thread's stack, not by variable.", stack * 100);
	}
	/* the program's own code without symbols (a stripped executable): one Code row, its
	 * objects named by return addresses (the usability review of 2026-11-29, H1) */
	if (sqlite3_prepare_v2(db, "SELECT module, SUM(share) FROM code WHERE function = '['"
				   " || replace(module, rtrim(module, replace(module, '/', '')),"
				   " '') || ']' OR function LIKE '%(nearest exported symbol)'"
				   " GROUP BY module ORDER BY 2 DESC LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK) {
		const char *mod = sqlite3_step(st) == SQLITE_ROW ?
					  (const char *)sqlite3_column_text(st, 0) : NULL;
		const char *b = mod && strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod;
		if (mod && !site_is_system_path(mod) && sqlite3_column_double(st, 1) >= 0.1)
			say_note(out, &said, "%.0f%% of the samples are in the code of %s, "
				 "which has no symbols (stripped): its code rows are named by the "
				 "module or its nearest exported symbol, "
				 "and its heap objects are named by the return addresses of their "
				 "allocation calls and of two callers ([prog]+0x... (from +0x...), "
				 "as 'objdump -d' shows them).  Rebuild it with -g, or keep its "
				 "symbols in a file beside it (objcopy --only-keep-debug, then "
				 "--add-gnu-debuglink on the stripped one).",
				 100 * sqlite3_column_double(st, 1), b);
		sqlite3_finalize(st);
	}
	/* a mapped file's data outside any symbol (the trial of 2026-11-28: miniBUDE's top
	 * object "[file: bude-omp]", 32%, the compiler's float literals, unexplained) */
	if (sqlite3_prepare_v2(db, "SELECT name, share FROM objects WHERE name LIKE '[file: %'"
				   " ORDER BY share DESC LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_double(st, 1) >= 0.1)
			say_note(out, &said, "%.0f%% of the samples are accesses to %s: that "
				 "file's own data outside its named variables, mostly read-only "
				 "constants the compiler keeps in memory (floating-point literals, "
				 "tables of jumps and strings); they stay in cache, but each access "
				 "counts as any other.", 100 * sqlite3_column_double(st, 1),
				 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	/* the small blocks' group among the objects that matter: what would name them (the
	 * trial of 2026-11-27: Rodinia kmeans' 680-byte cluster centres, 46% of the samples,
	 * read as "[heap: untracked small blocks]" under the default --min-object 1024) */
	double small = 0;
	if (sqlite3_prepare_v2(db, "SELECT share FROM objects WHERE name = "
				   "'[heap: untracked small blocks]'", -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		small = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	uint64_t min = 0;	/* the processes' largest (one, but for MPI ranks run alike) */
	if (small >= 0.1 &&
	    sqlite3_prepare_v2(db, "SELECT MAX(min_object) FROM processes", -1, &st, NULL) ==
		    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			min = (uint64_t)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	char note[512];
	if (report_small_blocks_text("samples are", small, min, note, sizeof(note)))
		say_note(out, &said, "%s", note);
}

static int print_text(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	struct meta mt;
	int top = o && o->top > 0 ? o->top : DEFAULT_TOP;
	read_meta(db, &mt);
	if (!o || !o->quiet) {	/* folded to 80 columns: a fallback's reasons ran to 160 */
		struct text_folder tf;
		print_header(db, &mt, text_fold_open(&tf, out));
		text_fold_close(&tf, 80, 10);	/* under the values' column ("  source    ") */
	}
	int r = text_objects(db, &mt, out, top);
	if (!r)
		r = text_code(db, out, top);
	if (!r)
		r = text_objcode(db, out, top);
	if (!r)
		r = text_threads(db, &mt, out, top);
	if (!r)
		text_notes(db, out);
	return r;
}

/* ---- CSV and JSON ---- */

static int print_csv(sqlite3 *db, FILE *out)
{
	int r = csv_query(db, out, mem_objects_sql, NCOLS(objects_cols), objects_cols);
	if (!r) {
		fputc('\n', out);
		r = csv_query(db, out, mem_code_sql, NCOLS(code_cols), code_cols);
	}
	return r;
}

static int is_numeric_key(const char *k)
{
	static const char *const keys[] = { "samples", "records", "loads", "stores", "dropped",
					    "truncated_threads", "traps", "steps", "accesses",
					    "unwind_fail", "processes", "threads",
					    "format_version" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return 1;
	return 0;
}

static int json_meta(sqlite3 *db, struct json *j)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM meta ORDER BY rowid", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	json_begin_object(j, "meta");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		/* a count is a number whatever its key (the trial of 2026-11-27 read "period":
		 * "900000" and "switches": "2353" as strings, where comm's JSON has numbers) */
		size_t n = v ? strlen(v) : 0;
		int digits = n > 0 && n <= 19 && strspn(v, "0123456789") == n &&
			     (v[0] != '0' || n == 1);
		if (is_numeric_key(k) || digits)
			json_uint(j, k, strtoull(v ? v : "0", NULL, 10));
		else
			json_str(j, k, v);
		/* argv as the runtime keeps it, its words joined by 0x1f; and as a list */
		if (!strcmp(k, "argv") && v) {
			json_begin_array(j, "args");
			for (const char *a = v;;) {
				size_t w = strcspn(a, "\x1f");
				char word[4096];
				snprintf(word, sizeof(word), "%.*s", (int)w, a);
				json_str(j, NULL, word);
				if (!a[w])
					break;
				a += w + 1;
			}
			json_end_array(j);
		}
	}
	/* the shares' sampling error: 1.96 sqrt(p (1 - p) / n) at 95% (mem_share_error); none
	 * where every access was counted */
	double n = effective_samples(db);
	if (n > 0)
		json_double(j, "effective_samples", n, 1);
	json_end_object(j);
	sqlite3_finalize(st);
	return 0;
}


static int print_json(sqlite3 *db, FILE *out)
{
	struct json j;
	json_init(&j, out);
	json_begin_object(&j, NULL);
	int r = json_meta(db, &j);
	if (!r)
		r = db_query_json(db, &j, "objects", mem_objects_sql, NCOLS(objects_cols),
				  objects_cols, NULL, 0);
	if (!r)
		r = db_query_json(db, &j, "code", mem_code_sql, NCOLS(code_cols), code_cols, NULL,
				  0);
	if (!r)
		r = db_query_json(db, &j, "threads", threads_out_sql, NCOLS(threads_cols),
				  threads_cols, NULL, 0);
	if (!r)
		r = db_query_json(db, &j, "object_code", mem_objcode_sql, NCOLS(objcode_cols),
				  objcode_cols, NULL, 0);
	if (!r && db_has_table(db, "drops")) {
		static const char *const cols[] = { "cause", "count" };
		r = db_query_json(db, &j, "drops", "SELECT cause, sum(count) FROM drops GROUP BY"
				  " cause ORDER BY 2 DESC, 1", 2, cols, NULL, 0);
	}
	json_end_object(&j);
	json_finish(&j);
	return r;
}

int mem_print(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	enum report_format f = o ? o->format : REPORT_TEXT;
	if (f == REPORT_CSV)
		return print_csv(db, out);
	if (f == REPORT_JSON)
		return print_json(db, out);
	return print_text(db, out, o);
}
