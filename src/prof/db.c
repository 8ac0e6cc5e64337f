/* SPDX-License-Identifier: MIT */
/* db.c - the profile database (SQLite), the part every tool shares.  See db.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/db.h"
#include "prof/errmsg.h"
#include "ui/csv.h"
#include "ui/json.h"

int db_row_u64(sqlite3_stmt *st, const char *key, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	return db_row(st, "tt", key, b);
}

uint64_t db_meta_u64(sqlite3 *db, const char *key)
{
	char buf[64];
	return strtoull(db_meta(db, key, buf, sizeof(buf)), NULL, 10);
}

int64_t db_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = (int64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int r = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		r = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return r;
}

const char *db_col_str(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "";
}

int db_finish(sqlite3_stmt *st, int rc)
{
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -EIO;
}

int db_fail(sqlite3 *db, char *err, size_t len, const char *what)
{
	return errmsg(err, len, -EIO, "%s: %s", what, sqlite3_errmsg(db));
}

int db_query_json(sqlite3 *db, struct json *j, const char *name, const char *sql, int ncols,
		  const char *const *heads, const int64_t *binds, int nbinds)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (int i = 0; i < nbinds; i++)
		sqlite3_bind_int64(st, i + 1, binds[i]);
	json_begin_array(j, name);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_begin_object(j, NULL);
		for (int i = 0; i < ncols; i++) {
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				json_int(j, heads[i], sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				json_double(j, heads[i], sqlite3_column_double(st, i), 6);
				break;
			case SQLITE_NULL:
				json_str(j, heads[i], NULL);
				break;
			default:
				json_str(j, heads[i], (const char *)sqlite3_column_text(st, i));
			}
		}
		json_end_object(j);
	}
	json_end_array(j);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int db_query_csv(sqlite3 *db, FILE *f, const char *sql, int ncols, const char *const *heads,
		 const int64_t *binds, int nbinds)
{
	sqlite3_stmt *st;
	const char *cells[64];

	if (ncols > 64 || sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return -EIO;
	for (int i = 0; i < nbinds; i++)
		sqlite3_bind_int64(st, i + 1, binds[i]);
	csv_row(f, ncols, heads);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++) {
			const char *t = (const char *)sqlite3_column_text(st, i);
			cells[i] = t ? t : "";
		}
		csv_row(f, ncols, cells);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int db_export_csv(sqlite3 *db, const char *dir, const char *sub, const struct db_csv_file *files,
		  int n, const int64_t *binds, int nbinds, char *err, size_t errlen)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0777) && errno != EEXIST)
		return errmsg(err, errlen, -errno, "cannot create '%s'", path);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, files[i].name);
		FILE *f = fopen(path, "w");
		if (!f)
			return errmsg(err, errlen, -errno, "cannot write '%s'", path);
		int r = db_query_csv(db, f, files[i].sql, files[i].ncols, files[i].cols, binds,
				     nbinds);
		if (fclose(f) || r)
			return r ? db_fail(db, err, errlen, files[i].name)
				 : errmsg(err, errlen, -EIO, "cannot write '%s'", path);
	}
	return 0;
}

int db_row(sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int col = 1, rc;

	va_start(ap, fmt);
	for (; *fmt; fmt++, col++) {
		switch (*fmt) {
		case 'i':
			sqlite3_bind_int64(st, col, va_arg(ap, int64_t));
			break;
		case 'u':
			sqlite3_bind_int64(st, col, (int64_t)va_arg(ap, uint64_t));
			break;
		case 't':
			sqlite3_bind_text(st, col, va_arg(ap, const char *), -1, SQLITE_STATIC);
			break;
		case 'd':
			sqlite3_bind_double(st, col, va_arg(ap, double));
			break;
		default:
			sqlite3_bind_null(st, col);
		}
	}
	va_end(ap);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* What a clock sample's share is: the sampled access is one of the next few after the
 * timer (doc/sonde-mem.md), so shares follow where the time goes, accesses counted alike:
 * a load that stalls weighs no more than one that hits, and one whose stall the timer
 * lands behind is under-counted (the trial of 2026-11-28: XSBench's index grid, 11% of
 * the accesses by --source inst, 0% by clock).  "time-weighted" alone read as stall time. */
#define CLOCK_SHARES "shares are of the accesses met where the time goes (a few after each " \
	"timer sample), each access counted alike whether it hits or stalls; not stall time, " \
	"not exact counts of accesses"

const char *db_scaling(const char *source, uint64_t period, int posix_timer, char *buf,
		       size_t len)
{
	unsigned long long p = (unsigned long long)period;
	/* the period asked for is not what POSIX timers give: say so first */
	if (!strcmp(source, "clock") && posix_timer)
		snprintf(buf, len, "POSIX CPU-time timers, which expire only at the scheduler tick: "
			 "at most one sample a tick (4 ms at HZ=250) whatever the period, so one "
			 "sample per the longer of the two, not the period alone; asked: one sample "
			 "per %llu ns of CPU time: " CLOCK_SHARES, p);
	else if (!strcmp(source, "clock"))
		snprintf(buf, len, "one sample per %llu ns of CPU time: " CLOCK_SHARES, p);
	else if (!strcmp(source, "inst") && p <= 1)
		snprintf(buf, len, "every access recorded: samples are exact access counts");
	else if (!strcmp(source, "inst"))
		snprintf(buf, len,
			 "one sample per %llu accesses: estimated accesses = samples x %llu", p, p);
	else if (!strcmp(source, "hw"))
		snprintf(buf, len, "one sample per %llu events: estimated events = samples x %llu",
			 p, p);
	else
		snprintf(buf, len, "source '%s': samples are not scaled", source);
	return buf;
}

int db_write(const char *path, db_fill_fn fill, const void *arg, char *err, size_t errlen)
{
	char tmp[4096];
	sqlite3 *db = NULL;
	int r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return errmsg(err, errlen, -ENAMETOOLONG, "%s: path too long", path);
	unlink(tmp);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		int e = errno ? errno : EIO;
		errmsg(err, errlen, -e, "cannot create '%s': %s", tmp,
		     db ? sqlite3_errmsg(db) : strerror(e));
		sqlite3_close(db);
		return -e;
	}
	/* a fresh file renamed into place at the end: no journal needed */
	sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL, NULL, NULL);
	r = fill(db, arg, err, errlen);
	if (sqlite3_close(db) != SQLITE_OK && !r)
		r = errmsg(err, errlen, -EIO, "closing '%s'", tmp);
	if (!r && rename(tmp, path) < 0)
		r = errmsg(err, errlen, -errno, "cannot rename '%s': %s", tmp, strerror(errno));
	if (r)
		unlink(tmp);
	return r;
}

int db_open(const char *path, sqlite3 **db, char *err, size_t errlen)
{
	char v[32];
	*db = NULL;
	if (access(path, F_OK) < 0)
		return errmsg(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		errmsg(err, errlen, -EINVAL, "%s: %s", path,
		     *db ? sqlite3_errmsg(*db) : "cannot open");
		sqlite3_close(*db);
		*db = NULL;
		return -EINVAL;
	}
	if (strcmp(db_meta(*db, "schema", v, sizeof(v)), DB_SCHEMA)) {
		sqlite3_close(*db);
		*db = NULL;
		return errmsg(err, errlen, -EINVAL, "%s: not a sonde profile database of schema %s",
			    path, DB_SCHEMA);
	}
	return 0;
}

const char *db_meta(sqlite3 *db, const char *key, char *buf, size_t len)
{
	sqlite3_stmt *st;
	buf[0] = 0;
	static const char sql[] = "SELECT value FROM meta WHERE key=?";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return buf;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}
