/* SPDX-License-Identifier: MIT */
/*
 * u-bench - sonde bench's figures (src/tools/bench/measure.c): statistics, intervals, the
 * benchmark's report, and the figures read from a recording.  The hw paths are tested here
 * on synthetic recordings written the way a hw (PEBS/IBS) run of the benchmarks would be
 * (period in events, samples on the labelled instructions), since this machine may have no
 * PMU to make real ones.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>

#include "check.h"
#include "tools/bench/bench.h"

static int near(double a, double b, double eps)
{
	return fabs(a - b) <= eps;
}

TEST(stats)
{
	double v[] = { 1, 2, 3, 4 };
	/* sd of 1..4 = sqrt(5/3); standard error = sd / 2 */
	CHECK(near(bench_mean(v, 4), 2.5, 1e-12));
	CHECK(near(bench_stderr(v, 4), sqrt(5.0 / 3.0) / 2, 1e-12));
	CHECK(near(bench_median(v, 4), 2.5, 1e-12));
	double w[] = { 7, NAN, 1, 3 };
	CHECK(near(bench_median(w, 4), 3, 1e-12));
	CHECK(near(bench_mean(w, 4), 11.0 / 3, 1e-12));
	CHECK(bench_stderr(w, 1) == 0);
	CHECK(isnan(bench_mean(w + 1, 1)));
	CHECK(isnan(bench_median(w + 1, 1)));
}

TEST(intervals)
{
	uint64_t v;
	int t;
	CHECK(bench_parse_interval("1ms", &v, &t) == 0 && v == 1000000 && t);
	CHECK(bench_parse_interval("100us", &v, &t) == 0 && v == 100000 && t);
	CHECK(bench_parse_interval("0.9ms", &v, &t) == 0 && v == 900000 && t);
	CHECK(bench_parse_interval("2s", &v, &t) == 0 && v == 2000000000ull && t);
	CHECK(bench_parse_interval("1", &v, &t) == 0 && v == 1 && !t);
	CHECK(bench_parse_interval("100000", &v, &t) == 0 && v == 100000 && !t);
	CHECK(bench_parse_interval("1.5", &v, &t) == -EINVAL);
	CHECK(bench_parse_interval("0", &v, &t) == -EINVAL);
	CHECK(bench_parse_interval("-1ms", &v, &t) == -EINVAL);
	CHECK(bench_parse_interval("5xs", &v, &t) == -EINVAL);
	CHECK(bench_parse_interval("", &v, &t) == -EINVAL);
	CHECK(bench_parse_interval("0.1ns", &v, &t) == -EINVAL);
	char b[32];
	bench_interval_name(b, sizeof(b), 900000, 1);
	CHECK_STR(b, "0.9 ms");
	bench_interval_name(b, sizeof(b), 50000, 1);
	CHECK_STR(b, "50 us");
	bench_interval_name(b, sizeof(b), 1, 0);
	CHECK_STR(b, "every access");
	bench_interval_name(b, sizeof(b), 1000, 0);
	CHECK_STR(b, "1 in 1000");
}

static const char report[] =
	"site bias1 ip 0x1000\nsite bias2 ip 0x1002\nsite bias3 ip 0x1004\nsite bias4 ip 0x1006\n"
	"count load 40000000\ncount store 0\ncount rmw 0\n"
	"time cpu_ns 90000000 utime_ns 90000000 stime_ns 0 wall_ns 95000000 maxrss_kb 1500\n";

TEST(prog_parse)
{
	struct bench_prog p;
	FILE *f = fmemopen((void *)report, sizeof(report) - 1, "r");
	CHECK(bench_prog_parse(f, &p) == 0);
	fclose(f);
	CHECK(p.nsites == 4 && !p.by_line);
	CHECK_STR(p.site[2], "bias3");
	CHECK_EQ_U64(p.where[3], 0x1006);
	CHECK_EQ_U64(p.count[BENCH_LOAD], 40000000);
	CHECK_EQ_U64(p.utime_ns, 90000000);
	CHECK(p.maxrss_kb == 1500);
	/* Cut before the time line (the program died in its loop): not a report. */
	f = fmemopen((void *)report, strlen(report) - 60, "r");
	CHECK(bench_prog_parse(f, &p) == -EINVAL);
	fclose(f);
	static const char lines[] = "site load line 42\ncount load 7\ncount store 0\ncount rmw 0\n"
				    "time cpu_ns 1 utime_ns 1 stime_ns 0 wall_ns 1 maxrss_kb 1\n";
	f = fmemopen((void *)lines, sizeof(lines) - 1, "r");
	CHECK(bench_prog_parse(f, &p) == 0 && p.by_line && p.where[0] == 42);
	fclose(f);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		printf("  sql: %s: %s\n", sql, err);
		check_failed_ = 1;
	}
	sqlite3_free(err);
}

/* A recording as a hw run of Bias-Bench would leave it: period in events, n[i] samples on
 * load i (ip 0x1000 + 2i), `other` samples elsewhere; stores with flag 1 on 0x2000. */
static void synthetic_db(const char *path, const char *source, const char *unit, double period,
			 const int *n, int other, int stores)
{
	sqlite3 *db;
	char sql[512];
	remove(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec_sql(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
		     "CREATE TABLE threads(id INTEGER PRIMARY KEY, cpu_ns INTEGER);"
		     "CREATE TABLE contexts(id INTEGER PRIMARY KEY, ip INTEGER);"
		     "CREATE TABLE code(id INTEGER PRIMARY KEY, function TEXT, file TEXT, "
		     " line INTEGER, samples INTEGER);"
		     "CREATE TABLE mem_samples(thread INTEGER, context INTEGER, code INTEGER, "
		     " object INTEGER, addr INTEGER, time INTEGER, len INTEGER, flags INTEGER, "
		     " weight INTEGER);"
		     "INSERT INTO threads VALUES (1, 100000000);"
		     "INSERT INTO contexts VALUES (1, 4096), (2, 4098), (3, 4100), (4, 4102), "
		     " (5, 8192), (6, 12288);");
	int total = other + stores;
	for (int i = 0; i < 4; i++)
		total += n[i];
	snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES ('source', '%s'), ('period_unit', "
		 "'%s'), ('period', '%.0f'), ('samples', '%d'), ('dropped', '0');", source, unit,
		 period, total);
	exec_sql(db, sql);
	exec_sql(db, "BEGIN");
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < n[i]; k++) {
			snprintf(sql, sizeof(sql), "INSERT INTO mem_samples VALUES (1, %d, NULL, "
				 "NULL, 0, 0, 4, %d, 1)", i + 1, k % 2 ? 4 : 0);
			exec_sql(db, sql);
		}
	for (int k = 0; k < other; k++)
		exec_sql(db, "INSERT INTO mem_samples VALUES (1, 6, NULL, NULL, 0, 0, 4, 0, 1)");
	for (int k = 0; k < stores; k++)
		exec_sql(db, "INSERT INTO mem_samples VALUES (1, 5, NULL, NULL, 0, 0, 4, 1, 1)");
	exec_sql(db, "COMMIT");
	sqlite3_close(db);
}

static struct bench_prog bias_prog(void)
{
	struct bench_prog p;
	FILE *f = fmemopen((void *)report, sizeof(report) - 1, "r");
	if (bench_prog_parse(f, &p))
		abort();
	fclose(f);
	return p;
}

/* PEBS-like Table 4.3 figures: 58.6/9.04/18.34/14.02 % of 4000 samples on the loads. */
TEST(hw_bias_and_accuracy)
{
	char path[300], err[256] = "";
	check_mktmp("u-bench");
	snprintf(path, sizeof(path), "%s/profile.db", tmpdir);
	/* 4e7 loads at one sample per 10,000 loads: 4000 expected; 3950 seen + 10 elsewhere. */
	int n[4] = { 2315, 357, 724, 554 };
	synthetic_db(path, "hw", "events", 10000, n, 10, 0);
	struct bench_prog p = bias_prog();
	struct bench_db d;
	CHECK(bench_db_read(path, &p, &d, err, sizeof(err)) == 0);
	CHECK_STR(d.source, "hw");
	CHECK(near(d.site[0], 2315, 0) && near(d.site[3], 554, 0));
	CHECK(near(bench_accuracy(&p, &d), 3950.0 / 4000.0, 1e-9));
	CHECK(isnan(bench_accuracy_cpu(&d)));	/* no time period */
	CHECK(near(bench_site_share(&d, 4, 0), 2315.0 / 3950, 1e-9));
	CHECK(near(bench_site_share(&d, 4, 1), 357.0 / 3950, 1e-9));
	/* every kind on the sites is a load: load accuracy = 3950 / 4000 */
	CHECK(near(bench_kind_accuracy(&p, &d, BENCH_LOAD), 3950.0 / 4000, 1e-9));
	CHECK(isnan(bench_kind_accuracy(&p, &d, BENCH_STORE)));	/* none by construction */
	check_rmtmp();
}

/* A time period (clock): samples on the loop against its user time / period. */
TEST(time_accuracy)
{
	char path[300], err[256] = "";
	check_mktmp("u-bench");
	snprintf(path, sizeof(path), "%s/profile.db", tmpdir);
	int n[4] = { 25, 25, 25, 20 };	/* 95 on the loop; 90 ms of user time at 1 ms: 90 */
	synthetic_db(path, "clock", "ns", 1000000, n, 5, 0);
	struct bench_prog p = bias_prog();
	struct bench_db d;
	CHECK(bench_db_read(path, &p, &d, err, sizeof(err)) == 0);
	CHECK(near(bench_accuracy(&p, &d), 95.0 / 90.0, 1e-9));
	/* all 100 samples against 100 ms of thread CPU time at 1 ms */
	CHECK(near(bench_accuracy_cpu(&d), 1.0, 1e-9));
	CHECK(near(bench_site_share(&d, 4, 3), 20.0 / 95, 1e-9));
	/* 19 ms of user time at 1 ms: 19 expected, under BENCH_MIN_EXPECTED: no figure (the
	 * shares still are) */
	p.utime_ns = 19000000;
	CHECK(isnan(bench_accuracy(&p, &d)));
	p.utime_ns = 20000000;
	CHECK(near(bench_accuracy(&p, &d), 95.0 / 20.0, 1e-9));
	check_rmtmp();
}

/* Not a recording: a reason, no figures. */
TEST(bad_db)
{
	char path[300], err[256] = "";
	check_mktmp("u-bench");
	snprintf(path, sizeof(path), "%s/profile.db", tmpdir);
	FILE *f = fopen(path, "w");
	fputs("not a database, just text that is long enough to look like a header....\n", f);
	fclose(f);
	struct bench_prog p = bias_prog();
	struct bench_db d;
	CHECK(bench_db_read(path, &p, &d, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) != NULL);
	snprintf(path, sizeof(path), "%s/missing/profile.db", tmpdir);
	err[0] = 0;
	CHECK(bench_db_read(path, &p, &d, err, sizeof(err)) < 0 && err[0]);
	check_rmtmp();
}

int main(void)
{
	RUN(stats);
	RUN(intervals);
	RUN(prog_parse);
	RUN(hw_bias_and_accuracy);
	RUN(time_accuracy);
	RUN(bad_db);
	return CHECK_DONE();
}
