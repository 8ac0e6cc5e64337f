/* SPDX-License-Identifier: MIT */
/*
 * db.h - the profile database: one SQLite file (DIR/profile.db) per recording, filled by
 * the recording's tool (struct tool, prof/tool.h) in one transaction with prepared
 * statements.  Its tables are documented column by column in doc/profile-db.md; DB_SCHEMA
 * changes whenever they change, and readers rebuild a database whose meta.schema differs.
 * Every tool writes a `meta` table (key, value) with at least schema, tool, source,
 * period and scaling.
 */
#ifndef SONDE_PROF_DB_H
#define SONDE_PROF_DB_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define DB_SCHEMA "18"

struct sqlite3;
struct sqlite3_stmt;

/* Fills the open, empty database db; 0 or -errno with a reason in err. */
typedef int (*db_fill_fn)(struct sqlite3 *db, const void *arg, char *err, size_t errlen);

/*
 * Create a new database at path with fill(db, arg): the data goes to path.tmp, renamed
 * over path at the end, so an existing file is replaced atomically and a failure leaves it
 * as it was.  0, or -errno with a one-line reason in err.
 */
int db_write(const char *path, db_fill_fn fill, const void *arg, char *err, size_t errlen);

/*
 * Open path read-only.  0 and *db (close with sqlite3_close), or -errno (err):
 * -ENOENT missing, -EINVAL not a sonde profile database or an older schema.
 */
int db_open(const char *path, struct sqlite3 **db, char *err, size_t errlen);

/* meta.value of key into buf ("" if absent).  Returns buf. */
const char *db_meta(struct sqlite3 *db, const char *key, char *buf, size_t len);

/* Room for db_scaling's sentence, the longest (POSIX timers) included. */
#define DB_SCALING_MAX 512

/*
 * The scaling a source and period imply, as one sentence for reports (meta.scaling):
 * clock samples are time-weighted, inst and hw samples stand for `period` accesses or
 * events.  posix_timer: the clock source sampled with POSIX CPU-time timers, not a perf
 * event (profile_clock_posix); they expire only at a scheduler tick, which the sentence
 * says first.  Returns buf (len: DB_SCALING_MAX holds every sentence).
 */
const char *db_scaling(const char *source, uint64_t period, int posix_timer, char *buf,
		       size_t len);

/*
 * Bind one row to st and run it.  fmt: 'i' int64, 'u' uint64 (stored as the int64 of the
 * same bits: SQLite has no unsigned type; addresses above 2^63 read back negative), 't'
 * text (NULL -> NULL), 'd' double, 'n' NULL.  0 or -EIO.
 */
int db_row(struct sqlite3_stmt *st, const char *fmt, ...);

/* A (key, value) row of a number written as text, as the meta table keeps its values. */
int db_row_u64(struct sqlite3_stmt *st, const char *key, uint64_t v);

/* A meta value as a number (0 when missing). */
uint64_t db_meta_u64(struct sqlite3 *db, const char *key);

/* The first column of the first row of query sql as an integer (0 when there is no row,
 * it is NULL, or the query fails). */
int64_t db_int(struct sqlite3 *db, const char *sql);

/* Does the database have table `name`?  (Databases written before a table was added do
 * not: readers skip what it would show.)  1 or 0. */
int db_has_table(struct sqlite3 *db, const char *name);
/* Column i of the current row as text, "" for NULL. */
const char *db_col_str(struct sqlite3_stmt *st, int i);
/* Finalize st after stepping it to rc: 0 if the steps went well (done, or stopped on a
 * row), else -EIO. */
int db_finish(struct sqlite3_stmt *st, int rc);

/* errmsg "WHAT: <sqlite's message>" into err; returns -EIO. */
int db_fail(struct sqlite3 *db, char *err, size_t len, const char *what);

/*
 * A query as CSV into f: the header row `heads` (ncols names), then one row per result
 * row (NULL as an empty field).  binds: integer parameters ?1..?nbinds (NULL if none).
 * 0, or -EIO (sqlite's message: db_fail).
 */
int db_query_csv(struct sqlite3 *db, FILE *f, const char *sql, int ncols,
		 const char *const *heads, const int64_t *binds, int nbinds);

/*
 * The same query as a JSON array `name` of objects (keys `heads`, numbers as numbers, NULL
 * as null) into the open JSON object j.  0, or -EIO.
 */
struct json;
int db_query_json(struct sqlite3 *db, struct json *j, const char *name, const char *sql,
		  int ncols, const char *const *heads, const int64_t *binds, int nbinds);

/* One CSV file of a tool's export: DIR/<sub>/<name>, the rows of sql. */
struct db_csv_file {
	const char *name, *sql;
	int ncols;
	const char *const *cols;
};
/* Write n files into dir/sub (created if missing), each the query's rows with `binds` as
 * in db_query_csv.  0, or <0 with a message in err. */
int db_export_csv(struct sqlite3 *db, const char *dir, const char *sub,
		  const struct db_csv_file *files, int n, const int64_t *binds, int nbinds,
		  char *err, size_t errlen);

#endif
