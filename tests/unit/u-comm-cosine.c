/* SPDX-License-Identifier: MIT */
/*
 * u-comm-cosine: the --compare summary's lines on recordings written by hand.  The cosine
 * line (comm_cosine_text, view.c): a kind one detector found none of reads "n/a", not
 * 0.000 (the usability review of 2026-11-28: "true 0.000" where the exact detector found
 * 3 transfers and the sampled one none); a kind both found, its cosine.  "What to do"
 * (comm_what_to_do): the exact split's remedy, and the sampled detector's top object with
 * a word where its own split reads the other kind (the trial of 2026-11-28: "true sharing
 * ...; the sampled detector's top object: X", X 100% false in the objects table).
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

static void exec_ok(sqlite3 *db, const char *sql)
{
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
}

TEST(compare_top_object_split_said)
{
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	exec_ok(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
		"CREATE TABLE comm_objects(id INTEGER PRIMARY KEY, part INTEGER, name TEXT,"
		" kind TEXT, total INTEGER, true_sharing INTEGER, false_sharing INTEGER,"
		" events INTEGER, false_covered INTEGER);"
		"CREATE TABLE comm_pairs(id INTEGER PRIMARY KEY, part INTEGER, a INTEGER,"
		" b INTEGER, total INTEGER, true_sharing INTEGER, false_sharing INTEGER,"
		" code_a TEXT, code_b TEXT);"
		"INSERT INTO meta VALUES ('exact', '1'), ('compare_period', '1009'),"
		" ('total_all', '5000'), ('total_true', '5000'), ('total_false', '0'),"
		" ('samples', '1000000'), ('events', '5000'), ('sampled_events', '40');"
		"INSERT INTO comm_objects VALUES (1, -1, 'p_curr', 'heap', 40, 0, 40, 40, 0);");
	char buf[2048];
	const char *t = comm_what_to_do(db, buf, sizeof(buf));
	CHECK(t && strstr(t, "What to do: true sharing (100% of it; the sampled detector's top "
			     "object: p_curr, whose sampled split reads false sharing)"));
	/* the same object read true by the sampled detector too: nothing added */
	exec_ok(db, "UPDATE comm_objects SET true_sharing = 40, false_sharing = 0");
	t = comm_what_to_do(db, buf, sizeof(buf));
	CHECK(t && strstr(t, "the sampled detector's top object: p_curr)"));
	sqlite3_close(db);
}

int main(void)
{
	RUN(empty_side_is_na);
	RUN(compare_top_object_split_said);
	return CHECK_DONE();
}
