/* SPDX-License-Identifier: MIT */
/*
 * html.c - the mem tool's HTML page (`sonde report DIR --html FILE`, `sonde mem --html
 * FILE`): the header, the objects, code, objects x code and threads tables with a bar of
 * each share, the samples per thread, and the objects x threads heat map; every number from
 * the database.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "prof/db.h"
#include "prof/report.h"
#include "tools/mem/mem.h"
#include "ui/html.h"

#define HEAT_MAX_OBJECTS 40	/* rows of the heat map: the hottest objects */
#define HEAT_MAX_THREADS 512
#define TABLE_MAX_ROWS 2000	/* the CSV files hold the rest */

static void kv_meta(struct html *h, sqlite3 *db, const char *label, const char *key)
{
	char buf[1024];
	html_kv(h, label, db_meta(db, key, buf, sizeof(buf)));
}

static void header(struct html *h, sqlite3 *db)
{
	char argv[4096], v[1024], why[512], unit[64];
	uint64_t samples = db_meta_u64(db, "samples"), dropped = db_meta_u64(db, "dropped");
	/* weighted samples (the clock's time budget) against the records taken, as the
	 * terminal's header (view.c) */
	uint64_t records = db_meta_u64(db, "records");
	int weighted = records && records < samples;
	uint64_t all = (weighted ? records : samples) + dropped, procs = db_meta_u64(db, "processes");

	html_section(h, "summary", "Summary");
	html_kv_begin(h, "header");
	html_kv(h, "program", report_program(db, argv, sizeof(argv)));
	db_meta(db, "source", v, sizeof(v));
	if (*db_meta(db, "source_why", why, sizeof(why)))
		snprintf(v + strlen(v), sizeof(v) - strlen(v), " (fallback: %s)", why);
	html_kv(h, "sample source", v);
	snprintf(v, sizeof(v), "%s %s", db_meta(db, "period", argv, sizeof(argv)),
		 db_meta(db, "period_unit", unit, sizeof(unit)));
	html_kv(h, "period", v);
	if (report_debias(db, v, sizeof(v)))
		html_kv(h, "de-bias", v);
	uint64_t ld = db_meta_u64(db, "loads"), sto = db_meta_u64(db, "stores");
	snprintf(v, sizeof(v), "%" PRIu64 " (%" PRIu64 " loads, %" PRIu64 " stores%s)", samples,
		 ld, sto, ld + sto > samples ? "; a read-modify-write is both" : "");
	html_kv(h, "samples", v);
	if (weighted) {
		snprintf(v, sizeof(v), "%" PRIu64 ", each counted for the periods it stood for (a "
			 "period the clock source's time budget stretched)", records);
		html_kv(h, "samples taken", v);
	}
	if (mem_share_error(db, v, sizeof(v)))
		html_kv(h, "sampling error", v);
	snprintf(v, sizeof(v), "%" PRIu64 " (%.1f%% of all samples)", dropped,
		 all ? 100.0 * (double)dropped / (double)all : 0.0);
	html_kv(h, "dropped", v);
	kv_meta(h, db, "scaling", "scaling");
	snprintf(v, sizeof(v), "%" PRIu64 " in %" PRIu64 " process%s", db_meta_u64(db, "threads"),
		 procs, procs == 1 ? "" : "es");
	html_kv(h, "threads", v);
	if (db_meta_u64(db, "truncated_threads")) {
		snprintf(v, sizeof(v), "%" PRIu64 " thread stream(s) cut short (the process died): "
			 "read up to the cut", db_meta_u64(db, "truncated_threads"));
		html_kv(h, "warning", v);
	}
	html_kv_end(h);
}

static int objects(struct html *h, sqlite3 *db)
{
	/* "bytes": a heap object's are all its site allocated, every block of it summed, not
	 * one block's (the usability review of 2026-11-29, M3: 125 MB for a 64 KiB block
	 * allocated 2000 times read as the object's size); the CSV's column keeps its name */
	const char *const heads[] = { "#", "object", "kind", mem_count_heading(db), "share",
				      "loads", "stores", "bytes (all blocks)", "allocs" };
	sqlite3_stmt *st;
	int rc;
	int64_t n = 0;
	if (sqlite3_prepare_v2(db, mem_objects_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "objects", "Data objects");
	html_para(h, "Every data object, hottest first (share: of all samples; bytes: a heap "
		     "object's are every block its site allocated, summed, so bytes / allocs is "
		     "a block's mean size).  Click a column to sort.");
	html_table_begin(h, "objects-table", 9, heads, "rllrrrrrr", HTML_SORTABLE);
	/* name, kind, samples, share, loads, stores, size, allocs */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		html_row_begin(h);
		html_td_int(h, n);
		html_td(h, db_col_str(st, 0));
		html_td(h, db_col_str(st, 1));
		html_td_int(h, sqlite3_column_int64(st, 2));
		html_td_share(h, sqlite3_column_double(st, 3), 2);
		for (int i = 4; i < 8; i++)
			html_td_int(h, sqlite3_column_int64(st, i));
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "mem/objects.csv", NULL);
}

static int code(struct html *h, sqlite3 *db)
{
	const char *const heads[] = { "#", "function", "file", "line", mem_count_heading(db),
				      "share", "loads", "stores" };
	sqlite3_stmt *st;
	int rc;
	int64_t n = 0;
	if (sqlite3_prepare_v2(db, mem_code_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "code", "Code");
	html_table_begin(h, "code-table", 8, heads, "rllrrrrr", HTML_SORTABLE);
	/* function, file, line, samples, share, loads, stores */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		html_row_begin(h);
		html_td_int(h, n);
		html_td_name(h, db_col_str(st, 0));
		html_td(h, db_col_str(st, 1));
		html_td_int(h, sqlite3_column_int64(st, 2));
		html_td_int(h, sqlite3_column_int64(st, 3));
		html_td_share(h, sqlite3_column_double(st, 4), 2);
		html_td_int(h, sqlite3_column_int64(st, 5));
		html_td_int(h, sqlite3_column_int64(st, 6));
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "mem/code.csv", NULL);
}

/* Where the objects are accessed: each object's code lines (view.c, mem_objcode_sql), the
 * hottest object first; the number is the object's row in the Data objects table. */
static int objcode(struct html *h, sqlite3 *db)
{
	const char *const heads[] = { "#", "object", "function", "file", "line",
				      mem_count_heading(db), "of object", "share", "loads",
				      "stores" };
	sqlite3_stmt *st;
	int rc;
	int64_t n = 0, nobj = 0, cur = -1;
	if (sqlite3_prepare_v2(db, mem_objcode_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "object-code", "Objects x code");
	html_para(h, "Where each object is accessed: its code lines, the hottest object first "
		     "(#: its row in Data objects); of object: the line's share of the object's "
		     "samples; share: of all samples.  Click a column to sort.");
	html_table_begin(h, "object-code-table", 10, heads, "rlllrrrrrr", HTML_SORTABLE);
	/* name, function, file, line, samples, of object, share, loads, stores, object id */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= TABLE_MAX_ROWS) {
		if (sqlite3_column_int64(st, 9) != cur)
			cur = sqlite3_column_int64(st, 9), nobj++;
		html_row_begin(h);
		html_td_int(h, nobj);
		html_td(h, db_col_str(st, 0));
		html_td_name(h, db_col_str(st, 1));
		html_td(h, db_col_str(st, 2));
		html_td_int(h, sqlite3_column_int64(st, 3));
		html_td_int(h, sqlite3_column_int64(st, 4));
		html_td_share(h, sqlite3_column_double(st, 5), 1);
		html_td_share(h, sqlite3_column_double(st, 6), 2);
		html_td_int(h, sqlite3_column_int64(st, 7));
		html_td_int(h, sqlite3_column_int64(st, 8));
		html_row_end(h);
	}
	return report_html_table_end(h, st, rc, n, TABLE_MAX_ROWS, "mem/object_code.csv", NULL);
}

/* The threads' labels and samples, in the table's order (for the chart and the heat map). */
struct threads {
	size_t n;
	int64_t id[HEAT_MAX_THREADS];
	char *label[HEAT_MAX_THREADS];
	double samples[HEAT_MAX_THREADS];
};

static void threads_release(struct threads *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->label[i]);
}

static int threads_read(sqlite3 *db, struct threads *t)
{
	sqlite3_stmt *st;
	int rc;
	t->n = 0;
	if (sqlite3_prepare_v2(db, "SELECT id, label, samples FROM threads ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && t->n < HEAT_MAX_THREADS) {
		t->id[t->n] = sqlite3_column_int64(st, 0);
		t->samples[t->n] = (double)sqlite3_column_int64(st, 2);
		if (!(t->label[t->n] = strdup(db_col_str(st, 1)))) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		t->n++;
	}
	return db_finish(st, rc);
}

static int threads(struct html *h, sqlite3 *db, const struct threads *t)
{
	const char *const heads[] = { "thread", "tid", "rank", "pid", mem_count_heading(db),
				      "share", "note" };
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, mem_threads_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	html_section(h, "threads", "Threads");
	html_table_begin(h, "threads-table", 7, heads, "lrrrrrl", HTML_SORTABLE);
	/* label, tid, rank, pid, samples, share, truncated, dropped, unsignalled */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char note[128] = "";
		int64_t dropped = sqlite3_column_int64(st, 7);
		mem_thread_note(note, sizeof(note), st);
		if (dropped)
			snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s%" PRId64
				 " dropped", *note ? ", " : "", dropped);
		html_row_begin(h);
		html_td(h, db_col_str(st, 0));
		for (int i = 1; i < 5; i++)
			report_html_td(h, st, i, -1);	/* the rank: empty outside MPI */
		html_td_share(h, sqlite3_column_double(st, 5), 2);
		html_td(h, note);
		html_row_end(h);
	}
	html_table_end(h);
	if (t->n > 1) {
		struct html_plot p = { .id = "threads-chart", .title = "Samples per thread",
				       .xlabel = "thread", .ylabel = "samples" };
		html_bar_chart(h, &p, t->n, (const char *const *)t->label, t->samples);
	}
	return db_finish(st, rc);
}

static int index_of(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return (int)i;
	return -1;
}

/* The hottest objects' rows of the heat map: ids and names.  Their count, or -errno. */
static int heat_objects(sqlite3 *db, int64_t *ids, char **names)
{
	static const char sql[] = "SELECT id, name FROM objects WHERE samples > 0"
				  " ORDER BY samples DESC, id LIMIT ?";
	sqlite3_stmt *st;
	int rc, n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(st, 1, HEAT_MAX_OBJECTS);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n] = sqlite3_column_int64(st, 0);
		if (!(names[n] = strdup(db_col_str(st, 1)))) {
			sqlite3_finalize(st);
			return -ENOMEM;
		}
		n++;
	}
	int r = db_finish(st, rc);
	return r ? r : n;
}

/* Each cell: the share of the object's samples the thread took, in %. */
static int heat_values(sqlite3 *db, const int64_t *oids, int nobj, const struct threads *t,
		       double *v)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, "SELECT object, thread, share FROM object_threads", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int o = index_of(oids, (size_t)nobj, sqlite3_column_int64(st, 0));
		int k = index_of(t->id, t->n, sqlite3_column_int64(st, 1));
		if (o >= 0 && k >= 0)
			v[(size_t)o * t->n + (size_t)k] = 100 * sqlite3_column_double(st, 2);
	}
	return db_finish(st, rc);
}

static int heatmap(struct html *h, sqlite3 *db, const struct threads *t)
{
	int64_t oids[HEAT_MAX_OBJECTS];
	char *names[HEAT_MAX_OBJECTS];
	int n = heat_objects(db, oids, names);
	if (n < 0)
		return n;
	double *v = calloc((size_t)(n ? n : 1) * (t->n ? t->n : 1), sizeof(*v));
	int r = v ? heat_values(db, oids, n, t, v) : -ENOMEM;
	if (!r) {
		struct html_heatmap m = {
			.id = "object-threads", .xlabel = "thread", .ylabel = NULL,
			.nrows = (size_t)n, .ncols = t->n, .rows = (const char *const *)names,
			.cols = (const char *const *)t->label, .v = v, .unit = "%", .decimals = 1,
			.lo = 0, .hi = 100,
		};
		html_section(h, "object-threads", "Objects x threads");
		html_para(h, "Which threads access each object: the share of the object's samples "
			     "taken by each thread (hover a cell for its value); the hottest objects.");
		if (n && t->n)
			html_heatmap(h, &m);
		else
			html_para(h, "No samples.");
	}
	free(v);
	for (int i = 0; i < n; i++)
		free(names[i]);
	return r;
}

int mem_html(sqlite3 *db, struct html *h)
{
	struct threads *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	header(h, db);
	int r = objects(h, db);
	if (!r)
		r = code(h, db);
	if (!r)
		r = objcode(h, db);
	if (!r)
		r = threads_read(db, t);
	if (!r)
		r = threads(h, db, t);
	if (!r)
		r = heatmap(h, db, t);
	threads_release(t);
	free(t);
	return r;
}
