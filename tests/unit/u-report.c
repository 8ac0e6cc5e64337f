/* SPDX-License-Identifier: MIT */
/*
 * u-report.c - the views and the report pipeline: CSV quoting (RFC 4180), JSON escaping,
 * aligned text tables, and report_build/report_print on synthetic recordings (CSV exports,
 * the three formats, MPI ranks merged, rebuild when the raw files change).
 */
#include <errno.h>
#include <sqlite3.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "prof/report.h"
#include "sonde/format.h"
#include "ui/csv.h"
#include "ui/html.h"
#include "ui/json.h"
#include "ui/text.h"

/* ---- the ui helpers, through memory streams ---- */

struct mem_out {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *mopen(struct mem_out *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	return m->f;
}

static const char *mclose(struct mem_out *m)
{
	fclose(m->f);
	return m->buf;
}

TEST(csv_quoting)
{
	struct mem_out m;
	const char *row[] = { "plain", "a,b", "say \"hi\"", "", NULL, "two\nlines", "f<int, int>" };
	csv_row(mopen(&m), 7, row);
	CHECK_STR(mclose(&m),
		  "plain,\"a,b\",\"say \"\"hi\"\"\",,,\"two\nlines\",\"f<int, int>\"\n");
	free(m.buf);
}

TEST(json_writer)
{
	struct mem_out m;
	struct json j;
	json_init(&j, mopen(&m));
	json_begin_object(&j, NULL);
	json_str(&j, "s", "a\"b\\c\n\x01");
	json_int(&j, "i", -3);
	json_begin_array(&j, "a");
	json_uint(&j, NULL, 18446744073709551615ULL);
	json_double(&j, NULL, 0.5, 4);
	json_str(&j, NULL, NULL);
	json_end_array(&j);
	json_begin_array(&j, "e");
	json_end_array(&j);
	json_bool(&j, "b", 1);
	json_end_object(&j);
	json_finish(&j);
	CHECK_STR(mclose(&m), "{\n"
			      "  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n"
			      "  \"i\": -3,\n"
			      "  \"a\": [\n"
			      "    18446744073709551615,\n"
			      "    0.5000,\n"
			      "    null\n"
			      "  ],\n"
			      "  \"e\": [],\n"
			      "  \"b\": true\n"
			      "}\n");
	free(m.buf);
}

TEST(text_table)
{
	struct mem_out m;
	const char *heads[] = { "#", "name", "n" };
	const char *r1[] = { "1", "alpha", "5" };
	const char *r2[] = { "10", "b", "12345" };
	const char *r3[] = { "11", "", "" };
	struct text_table *t = text_table_new(3, heads, "rlr");
	CHECK(t != NULL);
	CHECK(text_table_add(t, r1) == 0);
	CHECK(text_table_add(t, r2) == 0);
	CHECK(text_table_add(t, r3) == 0);
	CHECK_EQ_U64(text_table_rows(t), 3);
	text_table_print(t, mopen(&m), "> ");
	CHECK_STR(mclose(&m), ">  #  name       n\n"
			      ">  1  alpha      5\n"
			      "> 10  b      12345\n"
			      "> 11              \n");
	free(m.buf);
	text_table_free(t);
	/* a trailing empty left-aligned cell prints nothing */
	const char *h2[] = { "a", "note" };
	const char *x[] = { "1", "" };
	t = text_table_new(2, h2, "rl");
	text_table_add(t, x);
	text_table_print(t, mopen(&m), "");
	CHECK_STR(mclose(&m), "a  note\n1\n");
	free(m.buf);
	text_table_free(t);
	char p[16];
	text_percent(p, sizeof(p), 0.1234);
	CHECK_STR(p, "12.3%");
	text_percent(p, sizeof(p), 0.0001);
	CHECK_STR(p, "<0.1%");
	text_percent(p, sizeof(p), 0);
	CHECK_STR(p, "0.0%");
}

/* ---- synthetic recordings ---- */

static void mktmp(void)
{
	check_mktmp("u-report");
}

static void rmtmp(void)
{
	check_rmtmp();
}

static void w_text(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static FILE *w_stream(const char *prefix, int tid, int rank, uint32_t index)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s-%d.sdt", tmpdir, prefix, tid);
	FILE *f = fopen(path, "wb");
	struct sonde_file_header h = { .version = 1, .header_size = sizeof(h),
				       .endian = SONDE_ENDIAN_TAG, .source = SONDE_SOURCE_INST,
				       .period = 100, .tid = tid, .rank = rank,
				       .thread_index = index };
	memcpy(h.magic, SONDE_MAGIC, SONDE_MAGIC_LEN);
	fwrite(&h, sizeof(h), 1, f);
	return f;
}

static void w_mem(FILE *f, uint64_t addr, uint16_t flags)
{
	struct sonde_rec_mem r = { .h = { SONDE_REC_MEM, sizeof(r), 0 }, .ip = 0x1234,
				   .addr = addr, .time = 5, .weight = 1, .len = 4, .flags = flags };
	fwrite(&r, sizeof(r), 1, f);
}

static void w_end(FILE *f)
{
	struct sonde_rec_end r = { .h = { SONDE_REC_END, sizeof(r), 0 } };
	fwrite(&r, sizeof(r), 1, f);
	fclose(f);
}

/*
 * Two MPI ranks.  Rank 0: 3 samples in the mapping of a file whose name holds a comma and
 * a quote, 1 in an anonymous mapping.  Rank 1: 4 samples in that file, 2 in [heap].
 */
static void write_ranks(void)
{
	static const char maps[] =
		"10000-20000 r--p 00000000 08:01 77 /data/in,put\"1.dat\n"
		"30000-40000 rw-p 00000000 00:00 0 \n"
		"50000-60000 rw-p 00000000 00:00 0 [heap]\n";
	w_text("r0.100.proc", "pid=100\nrank=0\ntool=mem\nsource=inst\nperiod=100\n"
			      "period_unit=accesses\nexe=/bin/app\nargv=app\x1fx\nthreads=1\n");
	w_text("r1.200.proc", "pid=200\nrank=1\ntool=mem\nsource=inst\nperiod=100\n"
			      "period_unit=accesses\nexe=/bin/app\nargv=app\x1fx\n");
	w_text("r0.100.maps", maps);
	w_text("r1.200.maps", maps);
	FILE *f = w_stream("r0.100", 100, 0, 0);
	for (int i = 0; i < 3; i++)
		w_mem(f, 0x10000 + 8 * i, 0);
	w_mem(f, 0x30000, SONDE_MEM_STORE);
	w_end(f);
	f = w_stream("r1.200", 200, 1, 0);
	for (int i = 0; i < 4; i++)
		w_mem(f, 0x10100 + 8 * i, 0);
	w_mem(f, 0x50000, 0);
	w_mem(f, 0x50008, 0);
	w_end(f);
}

static char *slurp(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return strdup("");
	struct mem_out m;
	mopen(&m);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m.f);
	fclose(f);
	return (char *)mclose(&m);
}

static char *print(enum report_format fmt, int *rc)
{
	struct report_opts o = { .format = fmt };
	struct mem_out m;
	char err[512] = "";
	*rc = report_print(tmpdir, mopen(&m), &o, err, sizeof(err));
	if (*rc)
		printf("  report_print: %s\n", err);
	return (char *)mclose(&m);
}

TEST(ranks_csv_json)
{
	char err[512] = "";
	int rc;
	mktmp();
	write_ranks();
	rc = report_build(tmpdir, err, sizeof(err));
	if (rc)
		printf("  report_build: %s\n", err);
	CHECK(rc == 0);
	char *objects = slurp("mem/objects.csv"), *code = slurp("mem/code.csv");
	char *threads = slurp("mem/threads.csv"), *ot = slurp("mem/object_threads.csv");
	/* objects that are not heap blocks have no allocation path: the last column is empty */
	CHECK_STR(objects, "object,kind,samples,share,loads,stores,size,allocs,path\n"
			   "\"[file: in,put\"\"1.dat]\",other,7,0.7000,7,0,0,0,\n"
			   "[heap: untracked small blocks],other,2,0.2000,2,0,0,0,\n"
			   "[anonymous memory],other,1,0.1000,0,1,0,0,\n");
	/* no OMP record in these streams: the OpenMP thread number is empty; no thread
	 * blocked the clock's signal */
	CHECK_STR(threads, "thread,tid,rank,pid,samples,share,omp_thread,unsignalled\n"
			   "r0.0,100,0,100,4,0.4000,,0\n"
			   "r1.0,200,1,200,6,0.6000,,0\n");
	CHECK(strstr(ot, "\"[file: in,put\"\"1.dat]\",r1.0,4,0.5714\n") != NULL);
	CHECK(!strncmp(code, "function,file,line,samples,share,loads,stores\n", 46));
	/* --format csv: objects, a blank line, code */
	char *csv = print(REPORT_CSV, &rc), want[4096];
	snprintf(want, sizeof(want), "%s\n%s", objects, code);
	CHECK(rc == 0);
	CHECK_STR(csv, want);
	char *json = print(REPORT_JSON, &rc);
	CHECK(rc == 0);
	CHECK(strstr(json, "\"source\": \"inst\"") != NULL);
	CHECK(strstr(json, "\"samples\": 10,") != NULL);
	CHECK(strstr(json, "\"object\": \"[file: in,put\\\"1.dat]\"") != NULL);
	CHECK(strstr(json, "\"thread\": \"r1.0\"") != NULL);
	CHECK(json[0] == '{' && json[strlen(json) - 2] == '}');
	char *text = print(REPORT_TEXT, &rc);
	CHECK(rc == 0);
	CHECK(strstr(text, "est. accesses") != NULL);	/* inst, period 100 */
	CHECK(strstr(text, "one sample per 100 accesses") != NULL);
	CHECK(strstr(text, "2 in 2 processes") != NULL);
	CHECK(strstr(text, "r1.0") != NULL);
	free(objects), free(code), free(threads), free(ot), free(csv), free(json), free(text);
	rmtmp();
}

static void touch_later(const char *name)
{
	char path[512];
	struct timespec ts[2];
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec += 10;
	ts[1] = ts[0];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	utimensat(AT_FDCWD, path, ts, 0);
}

/* report_print builds a missing database, and rebuilds one older than the raw files. */
TEST(rebuild_when_stale)
{
	char path[512];
	struct stat a, b;
	int rc;
	mktmp();
	write_ranks();
	free(print(REPORT_CSV, &rc));
	CHECK(rc == 0);
	snprintf(path, sizeof(path), "%s/profile.db", tmpdir);
	CHECK(stat(path, &a) == 0);
	/* a new rank appears later: its samples must show */
	w_text("r2.300.proc", "pid=300\nrank=2\ntool=mem\nsource=inst\nperiod=100\n");
	w_text("r2.300.maps", "50000-60000 rw-p 00000000 00:00 0 [heap]\n");
	FILE *f = w_stream("r2.300", 300, 2, 0);
	w_mem(f, 0x50000, 0);
	w_end(f);
	touch_later("r2.300.proc");
	char *csv = print(REPORT_CSV, &rc);
	CHECK(rc == 0);
	CHECK(stat(path, &b) == 0);
	CHECK(b.st_mtim.tv_sec != a.st_mtim.tv_sec || b.st_mtim.tv_nsec != a.st_mtim.tv_nsec);
	CHECK(strstr(csv, "[heap: untracked small blocks],other,3,") != NULL);
	free(csv);
	rmtmp();
}

TEST(errors)
{
	char err[512] = "";
	struct mem_out m;
	int rc = report_print("/nonexistent/sonde-x", mopen(&m), NULL, err, sizeof(err));
	free((char *)mclose(&m));
	CHECK(rc == -ENOENT);
	CHECK_STR(err, "No such file or directory");
	mktmp();
	rc = report_build(tmpdir, err, sizeof(err));
	CHECK(rc == -ENOENT);
	CHECK(strstr(err, ".proc") != NULL);
	/* corrupt: one line naming the file and the offset */
	w_text("5.proc", "pid=5\n");
	w_text("5-5.sdt", "SONDEPRX and more bytes to make a header of seventy-two bytes long!!!!");
	rc = report_build(tmpdir, err, sizeof(err));
	CHECK(rc == -EINVAL);
	CHECK(strstr(err, "5-5.sdt: offset 0: ") != NULL);
	CHECK(strchr(err, '\n') == NULL);
	rmtmp();
}

/* The tools' tables of query rows: n rows of 1..n shown up to max, then the tail
 * (report_html_table_end) as the page shows it. */
static char *table_of(int rows, int max, const char *empty)
{
	static const char *const heads[] = { "v" };
	sqlite3 *db;
	sqlite3_stmt *st;
	char sql[128], *buf = NULL;
	size_t len = 0;
	if (sqlite3_open(":memory:", &db))
		return NULL;
	snprintf(sql, sizeof(sql), "WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 "
		 "FROM c WHERE v < %d) SELECT v FROM c WHERE v <= %d", rows > 0 ? rows : 1, rows);
	struct html *h = html_new("t");
	int rc, n = 0;
	if (!h || sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		html_free(h);
		sqlite3_close(db);
		return NULL;
	}
	html_table_begin(h, "t", 1, heads, "r", 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++n <= max) {
		html_row_begin(h);
		html_td_int(h, sqlite3_column_int64(st, 0));
		html_row_end(h);
	}
	int r = report_html_table_end(h, st, rc, n, max, "x/rows.csv", empty);
	FILE *f = open_memstream(&buf, &len);
	if (r || html_write(h, f))
		len = 0;
	fclose(f);
	html_free(h);
	sqlite3_close(db);
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}

TEST(html_table_end)
{
	char *p = table_of(7, 3, "no-row-text");
	CHECK(p && strstr(p, "<td>3</td>") && !strstr(p, "<td>4</td>"));
	CHECK(p && strstr(p, "<p>... 4 more rows in x/rows.csv</p>"));
	CHECK(p && !strstr(p, "no-row-text"));
	free(p);
	p = table_of(3, 3, "no-row-text");	/* all shown: nothing more said */
	CHECK(p && strstr(p, "<td>3</td>") && !strstr(p, "more rows") && !strstr(p, "no-row-text"));
	free(p);
	p = table_of(0, 3, "no row at all");
	CHECK(p && strstr(p, "<p>no row at all</p>") && !strstr(p, "more rows"));
	free(p);
	p = table_of(0, 3, NULL);
	CHECK(p && !strstr(p, "more rows") && !strstr(p, "<p>"));
	free(p);
}

/* The arm-failure line names what each errno usually means; EAGAIN and EEXIST, which the
 * engine itself gives, were printed bare (the trial of 2026-11-28: "the last EAGAIN"). */
static char *arm_line(uint64_t n, int e)
{
	sqlite3 *db;
	char sql[160];
	struct mem_out m;
	if (sqlite3_open(":memory:", &db))
		return NULL;
	snprintf(sql, sizeof(sql), "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta "
		 "VALUES('arm_failures', '%llu'), ('watch_errno', '%d');", (unsigned long long)n, e);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	report_arm_fail_line(db, mopen(&m), "  arm failures: ", "      ");
	sqlite3_close(db);
	char *p = (char *)mclose(&m);
	/* wrapped at 80 columns under the indent: every line fits, and the text is read back
	 * with each line break and its indent as one space */
	for (char *l = p, *nl; l && *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl || nl - l > 80 || (l != p && strncmp(l, "      ", 6))) {
			free(p);
			return NULL;
		}
	}
	for (char *q = p ? strstr(p, "\n      ") : NULL; q; q = strstr(q, "\n      ")) {
		*q = ' ';
		memmove(q + 1, q + 7, strlen(q + 7) + 1);
	}
	return p;
}

TEST(arm_fail_line)
{
	char *p = arm_line(17, EAGAIN);
	CHECK(p && strstr(p, "  arm failures: 17, the last EAGAIN (") &&
	      strstr(p, "the arm was skipped; a few are normal\n"));
	free(p);
	p = arm_line(3, EEXIST);
	CHECK(p && strstr(p, "the last EEXIST (") && strstr(p, "already watched in that thread"));
	free(p);
	p = arm_line(2, ENOSPC);
	CHECK(p && strstr(p, "debug registers were taken"));
	free(p);
	p = arm_line(0, ENOSPC);	/* none: no line */
	CHECK(p && !*p);
	free(p);
}

int main(void)
{
	RUN(arm_fail_line);
	RUN(csv_quoting);
	RUN(json_writer);
	RUN(text_table);
	RUN(ranks_csv_json);
	RUN(rebuild_when_stale);
	RUN(errors);
	RUN(html_table_end);
	return CHECK_DONE();
}
