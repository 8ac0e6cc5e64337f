/* SPDX-License-Identifier: MIT */
/*
 * db.h - the profile database: one SQLite file (DIR/profile.db) per recording, written
 * in one transaction with prepared statements.  Its tables are documented column by
 * column in doc/profile-db.md; DB_SCHEMA changes whenever they change, and readers
 * rebuild a database whose meta.schema differs.
 */
#ifndef SONDE_LIB_DB_H
#define SONDE_LIB_DB_H

#include <stddef.h>
#include <stdint.h>

#define DB_SCHEMA "1"

struct memmodel;
struct sqlite3;

/*
 * Write the model to a new database at path (an existing file is replaced atomically:
 * the data goes to path.tmp, renamed at the end).  path ":memory:" is not accepted here;
 * use db_fill.  0, or -errno with a one-line reason in err.
 */
int db_write(const struct memmodel *m, const char *path, char *err, size_t errlen);

/* Create the tables in the open, empty database db and fill them.  0 or -errno (err). */
int db_fill(struct sqlite3 *db, const struct memmodel *m, char *err, size_t errlen);

/*
 * Open path read-only.  0 and *db (close with sqlite3_close), or -errno (err):
 * -ENOENT missing, -EINVAL not a sonde profile database or an older schema.
 */
int db_open(const char *path, struct sqlite3 **db, char *err, size_t errlen);

/*
 * The scaling a source and period imply, as one sentence for reports (meta.scaling):
 * clock samples are time-weighted, inst and hw samples stand for `period` accesses or
 * events.  Returns buf.
 */
const char *db_scaling(const char *source, uint64_t period, char *buf, size_t len);

/* meta.value of key into buf ("" if absent).  Returns buf. */
const char *db_meta(struct sqlite3 *db, const char *key, char *buf, size_t len);

#endif
