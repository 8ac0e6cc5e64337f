/* SPDX-License-Identifier: MIT */
/*
 * u-comm-cosine: the --compare summary's cosine line (comm_cosine_text, view.c) on thread
 * matrices written by hand: a kind one detector found none of reads "n/a", not 0.000 (the
 * usability review of 2026-11-28: "true 0.000" where the exact detector found 3 transfers
 * and the sampled one none); a kind both found, its cosine.
 */
#include <sqlite3.h>
#include <string.h>

#include "check.h"
#include "tools/comm/comm.h"

static void cell(sqlite3 *db, int part, const char *kind, int i, int j, int v)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "INSERT INTO comm_cells VALUES(%d, 'thread', '%s', %d, %d, %d),"
		 "(%d, 'thread', '%s', %d, %d, %d)", part, kind, i, j, v, part, kind, j, i, v);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
}

TEST(empty_side_is_na)
{
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "CREATE TABLE comm_cells(part INTEGER, unit TEXT, kind TEXT, "
			   "i INTEGER, j INTEGER, value INTEGER)", NULL, NULL, NULL) == SQLITE_OK);
	/* exact (-1): true on pairs 0-1 and 1-2, false on 0-1 and 0-2; sampled (-2): false
	 * on the same pairs, in the same proportion, and no true sharing */
	cell(db, -1, "true", 0, 1, 2);
	cell(db, -1, "true", 1, 2, 1);
	cell(db, -1, "false", 0, 1, 100);
	cell(db, -1, "false", 0, 2, 50);
	cell(db, -1, "all", 0, 1, 102);
	cell(db, -1, "all", 1, 2, 1);
	cell(db, -1, "all", 0, 2, 50);
	cell(db, -2, "false", 0, 1, 10);
	cell(db, -2, "false", 0, 2, 5);
	cell(db, -2, "all", 0, 1, 10);
	cell(db, -2, "all", 0, 2, 5);
	char buf[512];
	const char *t = comm_cosine_text(db, buf, sizeof(buf));
	CHECK(strstr(t, " true n/a") != NULL);
	CHECK(strstr(t, " false 1.000") != NULL);
	CHECK(strstr(t, "one of the two detectors found none of that kind") != NULL);
	CHECK(strstr(t, "0.000") == NULL);
	sqlite3_close(db);
}

int main(void)
{
	RUN(empty_side_is_na);
	return CHECK_DONE();
}
