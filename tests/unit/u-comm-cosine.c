/* SPDX-License-Identifier: MIT */
/*
 * u-comm-cosine: the --compare summary's lines on recordings written by hand.  The cosine
 * line (comm_cosine_text, view.c): a kind one detector found none of reads "n/a", not
 * 0.000 (the usability review of 2026-11-28: "true 0.000" where the exact detector found
 * 3 transfers and the sampled one none); a kind both found, its cosine.  "What to do"
 * (comm_what_to_do): the exact split's remedy, and the sampled detector's top object with
 * a word where its own split reads the other kind (the trial of 2026-11-28: "true sharing
 * ...; the sampled detector's top object: X", X 100% false in the objects table); a sampled
 * top object over half false by both readings but 20 points apart: undecided.
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

/* The tables comm_what_to_do reads, empty. */
static void comm_tables(sqlite3 *db)
{
	exec_ok(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
		"CREATE TABLE comm_objects(id INTEGER PRIMARY KEY, part INTEGER, name TEXT,"
		" kind TEXT, total INTEGER, true_sharing INTEGER, false_sharing INTEGER,"
		" events INTEGER, false_covered INTEGER);"
		"CREATE TABLE comm_pairs(id INTEGER PRIMARY KEY, part INTEGER, a INTEGER,"
		" b INTEGER, total INTEGER, true_sharing INTEGER, false_sharing INTEGER,"
		" code_a TEXT, code_b TEXT);");
}

TEST(compare_top_object_split_said)
{
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	comm_tables(db);
	exec_ok(db, "INSERT INTO meta VALUES ('exact', '1'), ('compare_period', '1009'),"
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

/* A sampled run whose top object reads over half false both ways, but 20 points apart or
 * more: no remedy (the trial of 2026-11-29, HPCG's CGData.hpp:45: 85% false by the sampled
 * stores' bytes, 51% counting the writers', told to pad; the exact count of that build had
 * 92% of the run true sharing); 10 points apart, the remedy. */
TEST(both_false_far_apart_undecided)
{
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	comm_tables(db);
	exec_ok(db, "INSERT INTO meta VALUES ('total_all', '910637'), ('total_true', '140098'),"
		" ('total_false', '770539'), ('total_false_covered', '310217'),"
		" ('events', '5000');"
		"INSERT INTO comm_objects VALUES (1, -1, 'cg', 'heap', 910637, 140098, 770539,"
		" 5000, 310217);");
	char buf[4096];
	const char *t = comm_what_to_do(db, buf, sizeof(buf));
	CHECK(t && strstr(t, "What to do: undecided in cg: false sharing 85% by the sampled "
			     "stores' bytes, 51% counting the bytes the writers are seen storing "
			     "to."));
	CHECK(t && !strstr(t, "_Alignas"));
	/* 85% and 74%: 11 points apart, both well over half: the remedy, hedged */
	exec_ok(db, "UPDATE comm_objects SET false_covered = 100000");
	t = comm_what_to_do(db, buf, sizeof(buf));
	CHECK(t && strstr(t, "What to do: false sharing in cg (85% of it)"));
	CHECK(t && strstr(t, "Check first:"));
	sqlite3_close(db);
}

int main(void)
{
	RUN(empty_side_is_na);
	RUN(compare_top_object_split_said);
	RUN(both_false_far_apart_undecided);
	return CHECK_DONE();
}
