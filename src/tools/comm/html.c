/* SPDX-License-Identifier: MIT */
/*
 * html.c - the comm tool's HTML page (`sonde report DIR --html FILE`, `sonde comm --html
 * FILE`): the header, the true/false split, the thread and core heat maps (all, true,
 * false; hover a cell for its value), the top pairs and objects, and the processes of an
 * MPI run; every number from the database (the merged report, part -1).
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "prof/db.h"
#include "prof/report.h"
#include "tools/comm/comm.h"
#include "tools/comm/format.h"
#include "ui/html.h"

#define HEAT_MAX 64		/* cells across: more threads (cores) are aggregated */
#define TABLE_MAX_ROWS 500	/* the CSV files hold the rest */

static void header(struct html *h, sqlite3 *db)
{
	char v[1024], a[512], b[256], u[64];
	uint64_t all = db_meta_u64(db, "total_all"), procs = db_meta_u64(db, "processes");

	html_section(h, "summary", "Summary");
	html_kv_begin(h, "header");
	html_kv(h, "program", report_program(db, v, sizeof(v)));
	snprintf(v, sizeof(v), "%s, period %s %s", db_meta(db, "source", a, sizeof(a)),
		 db_meta(db, "period", b, sizeof(b)), db_meta(db, "period_unit", u, sizeof(u)));
	html_kv(h, "sample source", v);
	if (report_debias(db, v, sizeof(v)))
		html_kv(h, "de-biasing", v);
	snprintf(v, sizeof(v), "%" PRIu64, db_meta_u64(db, "samples"));
	html_kv(h, "samples", v);
	snprintf(v, sizeof(v), "%" PRIu64, db_meta_u64(db, "traps"));
	html_kv(h, "traps", v);
	html_kv(h, "watchpoints", db_meta(db, "watch", v, sizeof(v)));
	if (comm_switch_text(db, v, sizeof(v)))
		html_kv(h, "context switches", v);
	html_kv(h, "scaling", db_meta(db, "scaling", v, sizeof(v)));
	html_kv(h, "unit", db_meta(db, "unit", v, sizeof(v)));
	snprintf(v, sizeof(v), "%" PRIu64 " in %" PRIu64 " process%s", db_meta_u64(db, "threads"),
		 procs, procs == 1 ? "" : "es");
	html_kv(h, "threads", v);
	snprintf(v, sizeof(v), "%" PRIu64, all);
	html_kv(h, "communication", v);
	if (comm_few_text(db, v, sizeof(v)))
		html_kv(h, "warning", v);
	if (comm_same_cpu_text(db, v, sizeof(v)))
		html_kv(h, "one CPU", v);
	html_kv_end(h);
}

static void split_row(struct html *h, const char *kind, double volume, double all)
{
	html_row_begin(h);
	html_td(h, kind);
	html_td_int(h, (int64_t)volume);
	html_td_share(h, all > 0 ? volume / all : 0, 1);
	html_row_end(h);
}

/* The true/false split: a table of the three totals with their shares, and their bars. */
static void split(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "kind", "volume", "share" };
	static const char *const labels[] = { "true sharing", "false sharing" };
	double v[3] = { (double)db_meta_u64(db, "total_all"), (double)db_meta_u64(db, "total_true"),
			(double)db_meta_u64(db, "total_false") };
	html_section(h, "split", "True and false sharing");
	html_para(h, "True sharing: two threads use the same bytes of a cache line (the data is "
		     "shared: communicate less).  False sharing: they use different bytes of the "
		     "same line (pad or align the data apart).  Share: of all communication.");
	char b[2048];
	const char *cov = comm_covered_text(db, 0, b, sizeof(b));
	html_table_begin(h, "split-table", 3, heads, "lrr", 0);
	for (int k = 0; k < COMM_NKIND; k++)
		split_row(h, comm_kind_name[k], v[k], v[0]);
	if (cov)	/* the second reading's false sharing, where it differs */
		split_row(h, "false, counting the writers' bytes",
			  v[COMM_FALSE] - (double)db_meta_u64(db, "total_false_covered"), v[0]);
	html_table_end(h);
	if (v[0] > 0) {
		struct html_plot p = { .id = "split-chart", .title = "Communication by kind",
				       .ylabel = "volume", .width = 420, .height = 220,
				       .bar_series = 1 };	/* true and false apart */
		html_bar_chart(h, &p, 2, labels, v + 1);
	}
	if (cov)
		html_para(h, cov);
	/* the summary's conclusion (the page had none: the usability review of 2026-11-28) */
	if (comm_what_to_do(db, b, sizeof(b)))
		html_para(h, b);
}

/* Labels of the matrix's rows for side n aggregated by g: "5", or "64-127". */
static char **labels_new(sqlite3 *db, int unit, uint32_t n, uint32_t g, uint32_t nb)
{
	char **l = calloc(nb ? nb : 1, sizeof(*l));
	int ranks = unit == COMM_BY_THREAD && db_meta_u64(db, "processes") > 1;
	sqlite3_stmt *st = NULL;
	if (!l)
		return NULL;
	if (ranks && sqlite3_prepare_v2(db, "SELECT rank, thread, pid FROM comm_threads WHERE id = ?",
					-1, &st, NULL))
		st = NULL;
	for (uint32_t k = 0; k < nb; k++) {
		char b[64];
		uint32_t lo = k * g, hi = lo + g - 1 < n ? lo + g - 1 : n - 1;
		if (st && g == 1) {
			/* the merged threads of an MPI run: rank r's thread t is "r<r>.t<t>";
			 * of other processes (forked, or a wrapper's): "<pid>.t<t>" */
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, lo);
			int row = sqlite3_step(st) == SQLITE_ROW;
			if (row && sqlite3_column_int64(st, 0) >= 0)
				snprintf(b, sizeof(b), "%u (r%lld.t%lld)", lo,
					 (long long)sqlite3_column_int64(st, 0),
					 (long long)sqlite3_column_int64(st, 1));
			else if (row)
				snprintf(b, sizeof(b), "%u (%lld.t%lld)", lo,
					 (long long)sqlite3_column_int64(st, 2),
					 (long long)sqlite3_column_int64(st, 1));
			else
				snprintf(b, sizeof(b), "%u", lo);
		} else if (g == 1) {
			snprintf(b, sizeof(b), "%u", lo);
		} else {
			snprintf(b, sizeof(b), "%u-%u", lo, hi);
		}
		if (!(l[k] = strdup(b)))
			break;
	}
	sqlite3_finalize(st);
	return l;
}

static void labels_free(char **l, uint32_t nb)
{
	for (uint32_t k = 0; l && k < nb; k++)
		free(l[k]);
	free(l);
}

/* The three heat maps (all, true, false) of one unit, on one colour scale (the all
 * matrix's largest cell) so that the true and false maps compare with it. */
static int heatmaps(struct html *h, sqlite3 *db, int part, int unit)
{
	const char *what = comm_unit_name[unit];
	uint32_t n = comm_db_side(db, part, unit), g = (n + HEAT_MAX - 1) / HEAT_MAX;
	if (!g)
		g = 1;
	uint32_t nb = (n + g - 1) / g;
	double *v[COMM_NKIND] = { 0 };
	char **lab = labels_new(db, unit, n, g, nb);
	int r = lab ? 0 : -ENOMEM;
	double hi = 0;
	for (int k = 0; k < COMM_NKIND && !r; k++) {
		sqlite3_stmt *st;
		int rc;
		if (!(v[k] = calloc(nb ? (size_t)nb * nb : 1, sizeof(double)))) {
			r = -ENOMEM;
			break;
		}
		/* streamed: 3,000 threads would make a dense matrix of 9 million cells */
		if (sqlite3_prepare_v2(db, "SELECT i, j, value FROM comm_cells WHERE part = ?"
					   " AND unit = ? AND kind = ?", -1, &st, NULL)) {
			r = -EIO;
			break;
		}
		sqlite3_bind_int(st, 1, part);
		sqlite3_bind_text(st, 2, what, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, comm_kind_name[k], -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t i = sqlite3_column_int64(st, 0), j = sqlite3_column_int64(st, 1);
			if (i >= 0 && j >= 0 && i < n && j < n)
				v[k][(size_t)(i / g) * nb + (size_t)(j / g)] +=
					(double)sqlite3_column_int64(st, 2);
		}
		r = db_finish(st, rc);
	}
	for (size_t q = 0; !r && q < (size_t)nb * nb; q++)
		if (v[COMM_ALL][q] > hi)
			hi = v[COMM_ALL][q];
	if (!r) {
		char id[48], title[160], sec[64], cell_unit[64] = " ";
		const char *pre = part == -2 ? "sampled-" : "";
		/* the hover's unit: meta unit's first words ("samples", "periods", "estimated
		 * cache-line transfers"), its explanation left to the summary */
		db_meta(db, "unit", cell_unit + 1, sizeof(cell_unit) - 1);
		if (part == -2)	/* --compare's sampled maps: the sampled detector's */
			snprintf(cell_unit, sizeof(cell_unit), " estimated cache-line transfers");
		cell_unit[strcspn(cell_unit, "(")] = 0;
		size_t ul = strlen(cell_unit);
		while (ul > 1 && cell_unit[ul - 1] == ' ')
			cell_unit[--ul] = 0;
		snprintf(id, sizeof(id), "%s%s-maps", pre, what);
		snprintf(sec, sizeof(sec), "%s%s matrices", part == -2 ? "Sampled detector: " : "",
			 unit == COMM_BY_THREAD ? "Thread" : "Core");
		html_section(h, id, sec);
		if (part == -2)
			html_para(h, "The sampled detector's matrices of the same run "
				     "(DIR/comm/sampled/), on their own colour scale.");
		else if (unit == COMM_BY_THREAD)
			html_para(h, "Cell (row, column): the communication between two threads "
				     "(numbered in creation order, the main thread 0), both "
				     "directions; symmetric, diagonal zero.  Hover a cell for its "
				     "value.  One colour scale for the three maps: the largest cell of "
				     "all.");
		else
			html_para(h, "The same by CPU: the CPU the line was written on and the CPU "
				     "that used it next (threads that time-share one CPU move no "
				     "lines: the diagonal is zero).");
		if (g > 1) {
			char b[160];
			snprintf(b, sizeof(b), "%u %ss: aggregated by %u (cell k covers %ss %u*k to "
					       "%u*k+%u); the CSV files hold every %s.", n, what, g,
				 what, g, g, g - 1, what);
			html_para(h, b);
		}
		if (!hi)
			html_para(h, unit == COMM_BY_THREAD
					     ? "No communication: the matrices are empty."
					     : "No communication between different CPUs: the "
					       "matrices are empty.");
		for (int k = 0; k < COMM_NKIND; k++) {
			snprintf(id, sizeof(id), "%s%s-%s", pre, what, comm_kind_name[k]);
			snprintf(title, sizeof(title), "%s sharing (%smatrix-%s-%s.csv)",
				 k == COMM_ALL ? "All" : k == COMM_TRUE ? "True" : "False",
				 part == -2 ? "sampled/" : "", comm_kind_name[k], what);
			struct html_heatmap m = {
				.id = id, .title = title, .xlabel = what, .ylabel = what,
				.nrows = nb, .ncols = nb, .rows = (const char *const *)lab,
				.cols = (const char *const *)lab, .v = v[k], .decimals = 0,
				.lo = 0, .hi = hi > 0 ? hi : 1, .unit = cell_unit,
			};
			html_heatmap(h, &m);
		}
	}
	for (int k = 0; k < COMM_NKIND; k++)
		free(v[k]);
	labels_free(lab, nb);
	return r;
}

static int pairs(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "#", "thread a", "thread b", "total", "true",
					     "false", "false share", "code a", "code b" };
	sqlite3_stmt *st;
	int rc, n = 0;
	if (sqlite3_prepare_v2(db, "SELECT a, b, total, true_sharing, false_sharing, code_a,"
				   " code_b FROM comm_pairs WHERE part = -1 ORDER BY total DESC, id",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "pairs", "Top thread pairs");
	html_para(h, "The pairs that communicate most, with the code that did the most of it on "
		     "each side (a: the first thread's accesses or stores, b: the second's).");
	html_table_begin(h, "pairs-table", 9, heads, "rrrrrrrll", HTML_SORTABLE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		int64_t total = sqlite3_column_int64(st, 2);
		html_row_begin(h);
		html_td_int(h, n);
		for (int i = 0; i < 5; i++)
			html_td_int(h, sqlite3_column_int64(st, i));
		html_td_share(h, total ? (double)sqlite3_column_int64(st, 4) / (double)total : 0, 1);
		html_td_name(h, db_col_str(st, 5));
		html_td_name(h, db_col_str(st, 6));
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "comm/pairs.csv",
				     "No communicating pair.");
}

static int objects(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "#", "object", "kind", "total", "share", "true",
					     "false", "events" };
	/* --compare: the objects are the sampled detector's, their share of its total (of the
	 * exact total they read 733.6%: the usability review of 2026-11-28) */
	int cmp = comm_names_sampled(db);
	uint64_t all = db_meta_u64(db, cmp ? "sampled_total_all" : "total_all");
	sqlite3_stmt *st;
	int rc, n = 0;
	if (sqlite3_prepare_v2(db, "SELECT name, kind, total, true_sharing, false_sharing, events"
				   " FROM comm_objects WHERE part = -1 ORDER BY total DESC, id",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "objects", "Top objects");
	html_para(h, cmp ? "The data objects the sampled detector's communication went through "
			   "(named as sonde mem names them), with its true/false split and "
			   "estimated volumes; share: of the sampled detector's total (the exact "
			   "detector keeps no addresses)." : comm_exact_placed(db) ?
			   "The data objects the exact transfers went through (named as sonde mem "
			   "names them), placed by one transfer in " COMM_XSAMPLE_EVERY_S
			   " recorded with its address: estimated volumes, each such transfer "
			   "standing for "
			   COMM_XSAMPLE_EVERY_S "; share: of all communication." :
			   "The data objects the communication went through (named as sonde mem "
			   "names them), with their true/false split; share: of all communication.");
	html_table_begin(h, "objects-table", 8, heads, "rllrrrrr", HTML_SORTABLE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		html_row_begin(h);
		html_td_int(h, n);
		html_td(h, db_col_str(st, 0));
		html_td(h, db_col_str(st, 1));
		html_td_int(h, sqlite3_column_int64(st, 2));
		html_td_share(h, all ? (double)sqlite3_column_int64(st, 2) / (double)all : 0, 1);
		for (int i = 3; i < 6; i++)
			html_td_int(h, sqlite3_column_int64(st, i));
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "comm/objects.csv",
				     db_meta_u64(db, "exact") ?
					     "The exact detector does not attribute objects." :
					     "No object: no communication was seen.");
}

/* The busiest cache lines with each thread's byte offsets in them (model.c, write_lines). */
static int lines(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "#", "line", "object", "total", "true", "false",
					     "thread:+byte offset in the line" };
	sqlite3_stmt *st;
	int rc, n = 0;
	if ((!comm_sampled(db) && !comm_exact_placed(db)) || !db_has_table(db, "comm_lines"))
		return 0;	/* no addresses in --exact before 2026-11-29; none before the
				 * table */
	if (sqlite3_prepare_v2(db, "SELECT printf('0x%x', line), object, total, true_sharing,"
				   " false_sharing, offsets FROM comm_lines WHERE part = -1 ORDER BY"
				   " total DESC, id", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "lines", "Top cache lines");
	if (comm_names_sampled(db))
		html_para(h, "From the sampled detector (--compare): estimated volumes, with its "
			     "true/false split, beside the exact detector's matrices above.");
	html_para(h, "The cache lines that carried the most communication, and the byte offsets "
		     "each thread used in them (thread:+offset, from both sides of each transfer, "
		     "up to 8 a line).  Each thread keeping to its own offsets of a line, "
		     "transfer after transfer, is false sharing (pad them apart); threads meeting "
		     "at the same offsets is true sharing.  A line with few transfers shows few "
		     "offsets, and tells neither.");
	html_table_begin(h, "lines-table", 7, heads, "rllrrrl", HTML_SORTABLE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		html_row_begin(h);
		html_td_int(h, n);
		html_td(h, db_col_str(st, 0));
		html_td(h, db_col_str(st, 1));
		for (int i = 2; i < 5; i++)
			html_td_int(h, sqlite3_column_int64(st, i));
		html_td(h, db_col_str(st, 5));
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "comm/lines.csv",
				     "No line: no communication was seen.");
}

/* What each thread number stands for: its process, OS tid and OpenMP thread number where
 * known (doc/sonde-comm.md, "OpenMP thread numbers"). */
static int threads(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "thread", "rank", "pid", "tid", "OpenMP thread" };
	sqlite3_stmt *st;
	int rc, n = 0;
	if (sqlite3_prepare_v2(db, "SELECT id, NULLIF(rank, -1), pid, tid, omp_thread, omp_varied"
				   " FROM comm_threads ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "threads", "Threads");
	html_table_begin(h, "threads-table", 5, heads, "rrrrr", HTML_SORTABLE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		html_row_begin(h);
		for (int i = 0; i < 4; i++)
			report_html_td(h, st, i, -1);	/* the rank: empty outside MPI */
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			html_td_int(h, sqlite3_column_int64(st, 4));
		else
			html_td(h, sqlite3_column_int64(st, 5) ? "varies" : "");
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "comm/threads.csv",
				     "No thread.");
}

/* The processes of an MPI run (several processes only). */
static int parts(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "rank", "pid", "folder", "program", "threads",
					     "thread numbers", "samples", "traps", "total", "true",
					     "false" };
	sqlite3_stmt *st;
	int rc;
	if (db_meta_u64(db, "processes") < 2)
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT NULLIF(rank, -1), pid, folder, program, threads,"
				   " first_thread, samples, traps, total_all, total_true,"
				   " total_false FROM comm_parts WHERE part >= 0 ORDER BY part",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "processes", "Processes");
	html_para(h, "Each process (MPI rank) separately; its own matrices are in "
		     "DIR/comm/FOLDER/ (rank-R, proc-PID for a process without an MPI rank, "
		     ".eN after it for the image a process exec'd), its threads numbered from 0.  "
		     "The merged matrices above number the threads of every process one after "
		     "the other.");
	html_table_begin(h, "processes-table", 11, heads, "rrllrlrrrrr", HTML_SORTABLE);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 5), nt = sqlite3_column_int64(st, 4);
		char b[64];
		snprintf(b, sizeof(b), "%" PRId64 "-%" PRId64, first, first + nt - 1);
		html_row_begin(h);
		for (int i = 0; i < 5; i++)
			report_html_td(h, st, i, -1);	/* a forked process's rank: empty */
		html_td(h, b);
		for (int i = 6; i < 11; i++)
			html_td_int(h, sqlite3_column_int64(st, i));
		html_row_end(h);
	}
	html_table_end(h);
	return db_finish(st, rc);
}

/* --compare: the two detectors of the same run side by side. */
static int compare(struct html *h, sqlite3 *db)
{
	static const char *const heads[] = { "detector", "volume", "true", "false",
					     "false share" };
	static const char *const keys[2][3] = {
		{ "total_all", "total_true", "total_false" },
		{ "sampled_total_all", "sampled_total_true", "sampled_total_false" },
	};
	char b[1024];
	if (!db_meta_u64(db, "compare_period"))
		return 0;
	html_section(h, "compare", "Sampled vs exact (same run)");
	snprintf(b, sizeof(b), "The exact detector saw every access (the matrices above); the "
			       "sampled one saw one access in %" PRIu64 " of each thread, with its "
			       "watchpoints, in the same run.",
		 db_meta_u64(db, "compare_period"));
	html_para(h, b);
	html_table_begin(h, "compare-table", 5, heads, "lrrrr", 0);
	for (int d = 0; d < 2; d++) {
		uint64_t a = db_meta_u64(db, keys[d][0]), f = db_meta_u64(db, keys[d][2]);
		html_row_begin(h);
		html_td(h, d ? "sampled" : "exact");
		html_td_int(h, (int64_t)a);
		html_td_int(h, (int64_t)db_meta_u64(db, keys[d][1]));
		html_td_int(h, (int64_t)f);
		html_td_share(h, a ? (double)f / (double)a : 0, 1);
		html_row_end(h);
	}
	html_table_end(h);
	comm_cosine_text(db, b, sizeof(b));
	b[0] = 'C';	/* a sentence of its own */
	html_para(h, b);
	char v[1100];
	if (comm_compare_verdict(db, b, sizeof(b))) {
		snprintf(v, sizeof(v), "Verdict: %s.", b);
		html_para(h, v);
	}
	char cv[1024];
	if (comm_covered_text(db, 1, cv, sizeof(cv)))
		html_para(h, cv);
	return heatmaps(h, db, -2, COMM_BY_THREAD);
}

int comm_html(sqlite3 *db, struct html *h)
{
	header(h, db);
	split(h, db);
	int r = heatmaps(h, db, -1, COMM_BY_THREAD);
	if (!r)
		r = heatmaps(h, db, -1, COMM_BY_CORE);
	if (!r)
		r = compare(h, db);
	if (!r)
		r = pairs(h, db);
	if (!r)
		r = objects(h, db);
	if (!r)
		r = lines(h, db);
	if (!r)
		r = threads(h, db);
	if (!r)
		r = parts(h, db);
	return r;
}
