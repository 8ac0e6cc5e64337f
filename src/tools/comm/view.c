/* SPDX-License-Identifier: MIT */
/*
 * view.c - the comm tool's views, read back from the profile database: DIR/comm/ CSV files and
 * the terminal report (a heat map of the thread matrix, the top pairs and objects).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/report.h"
#include "tools/comm/comm.h"
#include "tools/comm/format.h"
#include "ui/csv.h"
#include "ui/json.h"
#include "ui/text.h"

#define HEAT_MAX 64		/* cells across: more threads are aggregated */

/* The cells of one matrix, by row: call next() until it returns 0. */
struct cells {
	sqlite3_stmt *st;
	int have;
	uint64_t i, j, v;
};

static int cells_open(sqlite3 *db, int part, int unit, int kind, struct cells *c)
{
	memset(c, 0, sizeof(*c));
	if (sqlite3_prepare_v2(db, "SELECT i, j, value FROM comm_cells WHERE part = ? AND unit = ?"
				   " AND kind = ? ORDER BY i, j", -1, &c->st, NULL))
		return -EIO;
	sqlite3_bind_int(c->st, 1, part);
	sqlite3_bind_text(c->st, 2, comm_unit_name[unit], -1, SQLITE_STATIC);
	sqlite3_bind_text(c->st, 3, comm_kind_name[kind], -1, SQLITE_STATIC);
	return 0;
}

/* The side of part's matrices of this unit: meta's for the merged part (-1), comm_parts'. */
uint32_t comm_db_side(sqlite3 *db, int part, int unit)
{
	sqlite3_stmt *st;
	uint32_t n = 0;
	if (part < 0)
		return (uint32_t)db_meta_u64(db, unit == COMM_BY_THREAD ? "threads" : "cores");
	if (sqlite3_prepare_v2(db, unit == COMM_BY_THREAD
				   ? "SELECT threads FROM comm_parts WHERE part = ?"
				   : "SELECT cores FROM comm_parts WHERE part = ?", -1, &st, NULL))
		return 0;
	sqlite3_bind_int(st, 1, part);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int cells_next(struct cells *c)
{
	if (sqlite3_step(c->st) != SQLITE_ROW)
		return 0;
	c->i = (uint64_t)sqlite3_column_int64(c->st, 0);
	c->j = (uint64_t)sqlite3_column_int64(c->st, 1);
	c->v = (uint64_t)sqlite3_column_int64(c->st, 2);
	return 1;
}

int comm_db_matrix(sqlite3 *db, int part, int unit, int kind, struct comm_matrix *m)
{
	struct cells c;
	m->n = comm_db_side(db, part, unit);
	m->cell = calloc(m->n ? (size_t)m->n * m->n : 1, sizeof(uint64_t));
	if (!m->cell)
		return -ENOMEM;
	if (cells_open(db, part, unit, kind, &c))
		return -EIO;
	while (cells_next(&c))
		if (c.i < m->n && c.j < m->n)
			m->cell[c.i * m->n + c.j] = c.v;
	sqlite3_finalize(c.st);
	return 0;
}

/* The matrix as CSV, streamed row by row (it may have thousands of rows). */
static int matrix_csv(sqlite3 *db, FILE *f, int part, int unit, int kind)
{
	struct cells c;
	uint64_t n = comm_db_side(db, part, unit);
	if (cells_open(db, part, unit, kind, &c))
		return -EIO;
	int more = cells_next(&c);
	fprintf(f, "%s", comm_unit_name[unit]);
	for (uint64_t j = 0; j < n; j++)
		fprintf(f, ",%" PRIu64, j);
	fputc('\n', f);
	for (uint64_t i = 0; i < n; i++) {
		fprintf(f, "%" PRIu64, i);
		for (uint64_t j = 0; j < n; j++) {
			while (more && (c.i < i || (c.i == i && c.j < j)))
				more = cells_next(&c);
			if (more && c.i == i && c.j == j)
				fprintf(f, ",%" PRIu64, c.v);
			else
				fputs(",0", f);
		}
		fputc('\n', f);
	}
	sqlite3_finalize(c.st);
	return 0;
}

/* Rows of a query (of part, its one parameter) as CSV with these headings: as many
 * columns as headings (objects.csv lost its seventh, false_covered, to a count written
 * out: the review of 2026-11-28). */
#define COLS(a) ((int)(sizeof(a) / sizeof((a)[0])))
static const char objects_sql[] =
	"SELECT name, kind, total, true_sharing, false_sharing, events, false_covered"
	" FROM comm_objects WHERE part = ? ORDER BY total DESC, id";
static const char *const objects_cols[] = { "object", "kind", "total", "true_sharing",
					    "false_sharing", "events", "false_covered" };
static const char pairs_sql[] =
	"SELECT a, b, total, true_sharing, false_sharing, code_a, code_b FROM comm_pairs"
	" WHERE part = ? ORDER BY total DESC, id";
static const char threads_sql[] =
	"SELECT id, NULLIF(rank, -1), pid, thread, tid, omp_thread FROM comm_threads WHERE ? = -1"
	" ORDER BY id";	/* rank: empty outside an MPI run (-1 until 2026-11-28) */
static const char *const threads_cols[] = { "thread", "rank", "pid", "thread_in_process",
					    "tid", "omp_thread" };
static const char *const pairs_cols[] = { "thread_a", "thread_b", "total", "true_sharing",
					  "false_sharing", "code_a", "code_b" };
/* line: the cache line's address (hex, this run's); offsets: "thread:+byte ..." within it */
static const char lines_sql[] =
	"SELECT printf('0x%x', line), object, total, true_sharing, false_sharing, events, offsets"
	" FROM comm_lines WHERE part = ? ORDER BY total DESC, id";
static const char *const lines_cols[] = { "line", "object", "total", "true_sharing",
					  "false_sharing", "events", "offsets" };


static FILE *open_out(const char *sub, const char *name, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", sub, name);
	FILE *f = fopen(path, "w");
	if (!f)
		errmsg(err, errlen, -errno, "cannot write '%s'", path);
	return f;
}

/* The CSV files of one part into the folder sub. */
static int export_part(sqlite3 *db, int part, const char *sub, char *err, size_t errlen)
{
	if (mkdir(sub, 0777) && errno != EEXIST)
		return errmsg(err, errlen, -errno, "cannot create '%s'", sub);
	for (int u = 0; u < COMM_NUNIT; u++)
		for (int k = 0; k < COMM_NKIND; k++) {
			char name[64];
			snprintf(name, sizeof(name), "matrix-%s-%s.csv", comm_kind_name[k],
				 comm_unit_name[u]);
			FILE *f = open_out(sub, name, err, errlen);
			if (!f)
				return -EIO;
			if (matrix_csv(db, f, part, u, k)) {
				fclose(f);
				return db_fail(db, err, errlen, "reading comm_cells");
			}
			if (fclose(f))
				return errmsg(err, errlen, -EIO, "cannot write %s/%s", sub, name);
		}
	struct { const char *name, *sql; int n; const char *const *cols; } t[] = {
		{ "objects.csv", objects_sql, COLS(objects_cols), objects_cols },
		{ "pairs.csv", pairs_sql, COLS(pairs_cols), pairs_cols },
		{ "lines.csv", lines_sql, COLS(lines_cols), lines_cols },
		{ "threads.csv", threads_sql, COLS(threads_cols), threads_cols },
	};
	for (int i = 0; i < 4 && part >= -1; i++) {
		if (part >= 0 && i == 3)
			break;	/* the merged threads.csv maps every process's threads */
		if (i == 2 && !db_has_table(db, "comm_lines"))
			continue;
		FILE *f = open_out(sub, t[i].name, err, errlen);
		if (!f)
			return -EIO;
		const int64_t bind = part;
		int r = db_query_csv(db, f, t[i].sql, t[i].n, t[i].cols, &bind, 1);
		if (fclose(f) || r)
			return r ? db_fail(db, err, errlen, t[i].name)
				 : errmsg(err, errlen, -EIO, "cannot write %s", t[i].name);
	}
	return 0;
}

/* The folder name of part (comm_parts.folder: rank-R, or proc-PID for a process with no
 * rank, .eN after for an exec'd image); 0 or -EIO. */
int comm_part_name(sqlite3 *db, int part, char *buf, size_t len)
{
	sqlite3_stmt *st;
	int r = -EIO;
	if (sqlite3_prepare_v2(db, "SELECT folder FROM comm_parts WHERE part = ?", -1, &st, NULL))
		return -EIO;
	sqlite3_bind_int(st, 1, part);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
		r = 0;
	}
	sqlite3_finalize(st);
	return r;
}

int comm_export(sqlite3 *db, const char *dir, char *err, size_t errlen)
{
	char sub[4096], name[64];
	snprintf(sub, sizeof(sub), "%s/comm", dir);
	int r = export_part(db, -1, sub, err, errlen);
	/* --compare: the sampled detector's matrices of the same run */
	if (!r && db_meta_u64(db, "compare_period")) {
		snprintf(sub, sizeof(sub), "%s/comm/sampled", dir);
		r = export_part(db, -2, sub, err, errlen);
	}
	/* several processes: each its own folder (a recording of one has no comm_parts row
	 * with part >= 0) */
	for (int part = 0; !r && !comm_part_name(db, part, name, sizeof(name)); part++) {
		snprintf(sub, sizeof(sub), "%s/comm/%s", dir, name);
		r = export_part(db, part, sub, err, errlen);
	}
	return r;
}

/* ---- terminal ---- */

/* The threads' numbers as the matrices use them, with the OS tid and the OpenMP thread
 * number where the runtime told it (src/rt/omp.c): a few a line, the first 64. */
#define THREADS_SHOWN 64
static void threads_line(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	/* MPI ranks where the threads come from more than one (the trial of 2026-11-29, F9:
	 * under mpirun a rank's threads were told apart only in threads.csv) */
	int ranks = db_int(db, "SELECT COUNT(DISTINCT rank) FROM comm_threads WHERE rank >= 0") > 1;
	if (sqlite3_prepare_v2(db, "SELECT id, tid, omp_thread, omp_varied, rank FROM comm_threads"
			       " ORDER BY id", -1, &st, NULL))
		return;
	int n = 0, col;
	char item[96], rk[24] = "";
	/* the list from the next line: after the 51 columns of the label, an item with its
	 * OpenMP number broke the line at once (the trial of 2026-11-27) */
	fprintf(out, "  threads (number: tid%s, OpenMP thread where known):\n   ",
		ranks ? ", MPI rank as rN" : "");
	col = 3;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n++ >= THREADS_SHOWN)
			continue;
		int64_t id = (int64_t)sqlite3_column_int64(st, 0);
		int64_t tid = (int64_t)sqlite3_column_int64(st, 1);
		int len;
		int64_t rank = (int64_t)sqlite3_column_int64(st, 4);
		if (ranks && rank >= 0)
			snprintf(rk, sizeof(rk), " r%" PRId64, rank);
		else if (ranks)	/* (a process of no rank: a launcher's, a singleton's helper) */
			snprintf(rk, sizeof(rk), " no rank");
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			len = snprintf(item, sizeof(item), " %" PRId64 ": %" PRId64 "%s omp %"
				       PRId64, id, tid, rk, (int64_t)sqlite3_column_int64(st, 2));
		else
			len = snprintf(item, sizeof(item), " %" PRId64 ": %" PRId64 "%s%s", id, tid,
				       rk, sqlite3_column_int64(st, 3) ? " omp varies" : "");
		if (n > 1)
			fputc(',', out);	/* before a line break, not after */
		if (col + len > 79) {	/* the report fits 80 columns (issue 8) */
			fprintf(out, "\n   ");
			col = 3;
		}
		fputs(item, out);
		col += len + 1;
	}
	sqlite3_finalize(st);
	if (n > THREADS_SHOWN)
		fprintf(out, ", ... %d more (threads.csv)", n - THREADS_SHOWN);
	fprintf(out, "\n");
}

static const char ramp[] = " .:-=+*#%@";
/* xterm-256 backgrounds from cold to hot, one per ramp level after 0 */
static const int heat_colour[] = { 17, 19, 26, 32, 37, 142, 178, 208, 196 };

/* The column numbers over a heat map of nb columns of w characters, g threads each. */
static void heat_labels(FILE *out, uint32_t nb, uint32_t g, int w)
{
	char line[512];
	size_t k = (size_t)snprintf(line, sizeof(line), "        ");
	for (uint32_t c = 0; c < nb && k < sizeof(line); c++) {
		if (w >= 3)
			k += (size_t)snprintf(line + k, sizeof(line) - k, "%-*u", w, c * g);
		else if (c % (8 / w) == 0) {
			char lab[16];
			int n = snprintf(lab, sizeof(lab), "%u", c * g);
			k += (size_t)snprintf(line + k, sizeof(line) - k, "%-*s",
					      (int)(8 / w) * w > n ? (8 / w) * w : n, lab);
		}
	}
	/* no trailing blanks (the usability review of 2026-11-29) */
	k = k < sizeof(line) ? k : sizeof(line) - 1;
	while (k && line[k - 1] == ' ')
		k--;
	fprintf(out, "%.*s\n", (int)k, line);
}

static void heat_map(sqlite3 *db, FILE *out, int colour)
{
	uint32_t n = (uint32_t)db_meta_u64(db, "threads");
	uint32_t g = (n + HEAT_MAX - 1) / HEAT_MAX, nb;
	struct cells c;
	if (!g)
		g = 1;
	nb = (n + g - 1) / g;
	uint64_t *b = calloc(nb ? (size_t)nb * nb : 1, sizeof(*b)), max = 0;
	if (!b || cells_open(db, -1, COMM_BY_THREAD, COMM_ALL, &c)) {
		free(b);
		return;
	}
	while (cells_next(&c))
		if (c.i < n && c.j < n)
			b[(size_t)(c.i / g) * nb + c.j / g] += c.v;
	sqlite3_finalize(c.st);
	for (size_t q = 0; q < (size_t)nb * nb; q++)
		if (b[q] > max)
			max = b[q];
	/* a row is 8 + nb * w + 1 columns: 80 at most (36 blocks of 2 made 81: the usability
	 * review of 2026-11-29, 71 threads) */
	int w = nb <= 17 ? 4 : nb <= 23 ? 3 : nb <= 35 ? 2 : 1;
	if (g > 1)
		fprintf(out, "  (threads aggregated by %u: cell k covers threads %u*k .. %u*k+%u)\n",
			g, g, g, g - 1);
	/* thread 0 top-left, as the CSV files and the HTML page have it (bottom-left, as a
	 * plot's axes, until 2026-11-28: the comm review read the page and the terminal as
	 * two different matrices) */
	fprintf(out, "  thread 0 top-left; ' ' none, '%.8s' rising to '@' = largest (%" PRIu64
		     ")\n", ramp + 1, max);
	heat_labels(out, nb, g, w);
	for (uint32_t r = 0; r < nb; r++) {
		fprintf(out, "  %4u |", r * g);
		for (uint32_t c = 0; c < nb; c++) {
			uint64_t v = b[(size_t)r * nb + c];
			/* '.' under an eighth of the largest, '@' the largest: rounded up, a
			 * cell of 1 drew ':' beside cells of 10,000 and '.' never came (the
			 * usability review of 2026-11-28) */
			int lvl = !v || !max ? 0 : 1 + (int)(v * 8 / max);
			if (lvl > 9)
				lvl = 9;
			if (colour && lvl)
				fprintf(out, "\033[48;5;%dm", heat_colour[lvl - 1]);
			for (int k = 0; k < w; k++)
				fputc(ramp[lvl], out);
			if (colour && lvl)
				fprintf(out, "\033[0m");
		}
		fprintf(out, "|\n");
	}
	free(b);
}

static void print_table(sqlite3 *db, FILE *out, const char *title, const char *sql, int ncols,
			const char *const *heads, const char *align, int top)
{
	sqlite3_stmt *st;
	struct text_table *t = text_table_new(ncols, heads, align);
	const char *cells[16];
	if (!t || sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		text_table_free(t);
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW && text_table_rows(t) < top) {
		for (int i = 0; i < ncols; i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			cells[i] = v ? v : "";
		}
		text_table_add(t, cells);
	}
	sqlite3_finalize(st);
	if (text_table_rows(t)) {
		fprintf(out, "\n%s\n", title);
		text_table_print(t, out, "  ");
	}
	text_table_free(t);
}

/* The cosine similarity of the thread matrices of kind, exact (part -1) and sampled (-2),
 * and in *pairs the thread pairs (i < j) with a transfer in either; NAN where one of the
 * two matrices is empty (no angle to measure). */
static double cosine_of(sqlite3 *db, int kind, int *pairs)
{
	static const char sql[] =
		"SELECT (SELECT SUM(CAST(a.value AS REAL) * b.value) FROM comm_cells a JOIN comm_cells b"
		"  ON a.unit = b.unit AND a.kind = b.kind AND a.i = b.i AND a.j = b.j"
		"  WHERE a.part = -1 AND b.part = -2 AND a.unit = 'thread' AND a.kind = ?1),"
		" (SELECT SUM(CAST(value AS REAL) * value) FROM comm_cells WHERE part = -1"
		"  AND unit = 'thread' AND kind = ?1),"
		" (SELECT SUM(CAST(value AS REAL) * value) FROM comm_cells WHERE part = -2"
		"  AND unit = 'thread' AND kind = ?1),"
		" (SELECT COUNT(*) FROM (SELECT DISTINCT i, j FROM comm_cells WHERE part IN (-1, -2)"
		"  AND unit = 'thread' AND kind = ?1 AND i < j AND value > 0))";
	sqlite3_stmt *st;
	double c = 0;
	*pairs = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return 0;
	sqlite3_bind_text(st, 1, comm_kind_name[kind], -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		double d = sqlite3_column_double(st, 0), a = sqlite3_column_double(st, 1);
		double b = sqlite3_column_double(st, 2);
		c = a > 0 && b > 0 ? d / sqrt(a * b) : NAN;
		*pairs = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	return c;
}

/*
 * "cosine similarity of the thread matrices: all X, true Y, false Z", each X "n/a" where the
 * two matrices of that kind have one thread pair between them, or none: their cosine is 1
 * (or 0) whatever the volumes (until 2026-11-28 a 2-thread run said "false 1.000" where
 * the exact detector found no false sharing and the sampled one 89%: the trial of RSBench).
 */
const char *comm_cosine_text(sqlite3 *db, char *buf, size_t len)
{
	static const int kinds[] = { COMM_ALL, COMM_TRUE, COMM_FALSE };
	static const char *const names[] = { "all", "true", "false" };
	int na = 0, none = 0;
	size_t n = (size_t)snprintf(buf, len, "cosine similarity of the thread matrices:");
	for (int k = 0; k < 3 && n < len; k++) {
		int pairs;
		double c = cosine_of(db, kinds[k], &pairs);
		na |= pairs < 2;
		/* one detector found none of the kind: no angle (it read "true 0.000" where the
		 * exact detector found 3 transfers of 66M and the sampled one none: the
		 * usability review of 2026-11-28) */
		none |= pairs >= 2 && isnan(c);
		if (pairs < 2 || isnan(c))
			n += (size_t)snprintf(buf + n, len - n, "%s %s n/a", k ? "," : "", names[k]);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s %s %.3f", k ? "," : "", names[k], c);
	}
	if ((na || none) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (n/a:%s%s%s)", na ? " fewer than two "
				      "thread pairs communicate in that kind's matrices, where a "
				      "cosine is 1 or 0 whatever the volumes" : "",
				      na && none ? ";" : "", none ? " one of the two detectors "
				      "found none of that kind" : "");
	return buf;
}

/* The false-sharing share of volume all with f false, c of it covered: the byte rule's
 * and the covered reading's, in percent. */
static void covered_shares(uint64_t all, uint64_t f, uint64_t c, double *bytes, double *cov)
{
	*bytes = all ? 100.0 * (double)f / (double)all : 0;
	*cov = all ? 100.0 * (double)(f > c ? f - c : 0) / (double)all : 0;
}

const char *comm_covered_text(sqlite3 *db, int sampled_keys, char *buf, size_t len)
{
	const char *pre = sampled_keys ? "sampled_" : "";
	char k[3][64];
	snprintf(k[0], sizeof(k[0]), "%stotal_all", pre);
	snprintf(k[1], sizeof(k[1]), "%stotal_false", pre);
	snprintf(k[2], sizeof(k[2]), "%stotal_false_covered", pre);
	double b, c;
	covered_shares(db_meta_u64(db, k[0]), db_meta_u64(db, k[1]), db_meta_u64(db, k[2]), &b,
		       &c);
	if ((db_meta_u64(db, "exact") && !sampled_keys) || b - c < COMM_COVERED_POINTS)
		return NULL;
	snprintf(buf, len, "True or false sharing?  %.1f%% false if only each sampled store's "
		 "own bytes count (ComDetective's rule); %.1f%% if every byte the same code was "
		 "seen writing counts (loops that write whole lines).  Lines one thread fills "
		 "and another reads or rewrites: trust the second.  Each thread updating its own "
		 "elements: trust the first.  %ssonde-comm(1), \"Which bytes did the writer "
		 "write\".", b, c, sampled_keys ? "" : "To be sure: --compare N on a sonde-cc "
		 "build counts every transfer; ");
	return buf;
}

static void print_compare(sqlite3 *db, FILE *out)
{
	uint64_t ea = db_meta_u64(db, "total_all"), ef = db_meta_u64(db, "total_false");
	uint64_t sa = db_meta_u64(db, "sampled_total_all"), sf = db_meta_u64(db, "sampled_total_false");
	fprintf(out, "\nSame run, both detectors (the sampled one on one access in %" PRIu64 ";"
		     " its matrices in DIR/comm/sampled/)\n",
		db_meta_u64(db, "compare_period"));
	fprintf(out, "  exact:   %12" PRIu64 " transfers, false sharing %5.1f%%\n", ea,
		ea ? 100.0 * (double)ef / (double)ea : 0.0);
	double sb, sc;
	covered_shares(sa, sf, db_meta_u64(db, "sampled_total_false_covered"), &sb, &sc);
	fprintf(out, "  sampled: %12" PRIu64 " estimated,  false sharing %5.1f%% (%" PRIu64
		     " events)\n", sa, sb, db_meta_u64(db, "sampled_events"));
	char key[8];	/* absent in recordings before the second reading */
	if (*db_meta(db, "sampled_total_false_covered", key, sizeof(key)))
		fprintf(out, "%36s%5.1f%% counting every byte the writers were seen "
			     "writing\n", "", sc);
	char c[1024];
	text_para(out, "  ", comm_cosine_text(db, c, sizeof(c)), 80);
	char v[1100];
	if (comm_compare_verdict(db, c, sizeof(c))) {
		snprintf(v, sizeof(v), "verdict: %s.", c);	/* a sentence, as on the page */
		text_para(out, "  ", v, 80);
	}
}

/* Sampled within a factor of 2 of the exact volume and 20 points of its false-sharing
 * share: what doc/sonde-comm.md reports on the workloads it was measured on ("Sampled vs
 * exact in one run").  The trial of PARSEC streamcluster, 2026-11-27, read 11x the volume
 * and 61% false sharing against 5.5% under a summary with cosines of 1.000.  The thread
 * pattern agrees at a cosine of 0.9 or more (the lock-step ring: 0.957-0.998), judged only
 * where two thread pairs or more communicate (a cosine is 1 or 0 otherwise).  Each is
 * judged apart: a sampled volume is often off where the split and the pattern, what a
 * user acts on, hold (the usability review of 2026-11-28). */
/* Fewer communication events than this make a sampled recording's split a hint (a share
 * out of n events has a standard error of up to 0.5 / sqrt(n): 9 points at 30). */
#define COMM_FEW_EVENTS 30
/* Sampled events under which the headline gives no true/false split (print_text) */
#define COMM_SPLIT_EVENTS 3
/* Busy lines that must all show two threads at one offset (and none each thread at its
 * own) for the writers' bytes to decide a sampled split the byte rule reads otherwise:
 * one line is a sign, two agreeing with the writers' bytes a reading. */
#define COMM_LINES_AGREE 2
#define COMPARE_RATIO 2.0
#define COMPARE_POINTS 20.0
#define COMPARE_COSINE 0.9

int comm_compare_judge(sqlite3 *db, struct comm_compare *c)
{
	uint64_t ea = db_meta_u64(db, "total_all"), ef = db_meta_u64(db, "total_false");
	uint64_t sa = db_meta_u64(db, "sampled_total_all");
	if (!db_meta_u64(db, "compare_period") || !ea)
		return 0;
	memset(c, 0, sizeof(*c));
	c->ratio = (double)sa / (double)ea;
	c->exact_false = 100.0 * (double)ef / (double)ea;
	covered_shares(sa, db_meta_u64(db, "sampled_total_false"),
		       db_meta_u64(db, "sampled_total_false_covered"), &c->sampled_false,
		       &c->sampled_covered);
	char key[8];	/* absent in recordings before the second reading */
	c->has_covered = *db_meta(db, "sampled_total_false_covered", key, sizeof(key)) &&
			 c->sampled_false - c->sampled_covered >= 0.05;
	c->cosine = cosine_of(db, COMM_ALL, &c->pairs);
	c->volume_ok = sa && c->ratio <= COMPARE_RATIO && c->ratio >= 1 / COMPARE_RATIO;
	c->split_ok = sa && fabs(c->sampled_false - c->exact_false) <= COMPARE_POINTS;
	c->covered_ok = sa && c->has_covered &&
			fabs(c->sampled_covered - c->exact_false) <= COMPARE_POINTS;
	/* (an empty sampled matrix: NAN, no agreement) */
	c->pattern_ok = c->pairs < 2 ? -1 : sa && !isnan(c->cosine) && c->cosine >= COMPARE_COSINE;
	return 1;
}

/* Appends ", " or `last` (" and ", " nor ") before the k-th of n items, then the item. */
static size_t list_item(char *buf, size_t len, size_t at, int k, int n, const char *last,
			const char *item)
{
	if (at >= len)
		return at;
	const char *sep = k == 0 ? "" : k == n - 1 ? last : ", ";
	return at + (size_t)snprintf(buf + at, len - at, "%s%s", sep, item);
}

const char *comm_compare_verdict(sqlite3 *db, char *buf, size_t len)
{
	struct comm_compare c;
	if (!comm_compare_judge(db, &c))
		return NULL;
	/* a verdict from a handful of sampled events is chance (the trial of 2026-11-28:
	 * miniBUDE's one sampled event against 96 exact transfers); none at all against an
	 * exact count is the verdict "does not agree" */
	uint64_t sev = db_meta_u64(db, "sampled_events");
	if (sev && sev < COMM_FEW_EVENTS) {
		snprintf(buf, len, "too few sampled events to judge sampling by (%" PRIu64 ", under "
			 "%d): a longer run, or a shorter --compare period, gives more", sev,
			 COMM_FEW_EVENTS);
		return buf;
	}
	char item[4][160];
	int ok[4], n = 0, nok = 0;
	snprintf(item[n], sizeof(item[n]), "volume (%.2fx)", c.ratio);
	ok[n++] = c.volume_ok;
	snprintf(item[n], sizeof(item[n]), "false-sharing share by the byte rule (%.0f%% "
		 "against %.0f%%)", c.sampled_false, c.exact_false);
	ok[n++] = c.split_ok;
	if (c.has_covered) {
		snprintf(item[n], sizeof(item[n]), "false-sharing share counting the writers' "
			 "bytes (%.0f%%)", c.sampled_covered);
		ok[n++] = c.covered_ok;
	}
	if (c.pattern_ok >= 0) {
		if (isnan(c.cosine))
			snprintf(item[n], sizeof(item[n]), "thread pattern (the sampled matrix "
				 "empty)");
		else
			snprintf(item[n], sizeof(item[n]), "thread pattern (cosine %.2f)", c.cosine);
		ok[n++] = c.pattern_ok;
	}
	for (int k = 0; k < n; k++)
		nok += ok[k];
	size_t at;
	if (nok == n) {
		at = (size_t)snprintf(buf, len, "sampling agrees with the exact count on this run "
				      "in ");
	} else if (!nok) {
		at = (size_t)snprintf(buf, len, "sampling does not agree with the exact count on "
				      "this run in ");
	} else {
		at = (size_t)snprintf(buf, len, "sampling agrees with the exact count on this run "
				      "in ");
		for (int k = 0, i = 0; k < n; k++)
			if (ok[k])
				at = list_item(buf, len, at, i++, nok, " and ", item[k]);
		at += at < len ? (size_t)snprintf(buf + at, len - at, "; not in ") : 0;
	}
	for (int k = 0, i = 0; k < n; k++)
		if (ok[k] == (nok == n))
			at = list_item(buf, len, at, i++, nok == n ? n : n - nok,
				       nok == n ? " and " : " nor ", item[k]);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, " (agreement: volume within 2x, shares "
				       "within %.0f points, cosine %.1f or more)", COMPARE_POINTS,
				       COMPARE_COSINE);
	if (at < len && nok < n)
		snprintf(buf + at, len - at, ": %s", nok ? "trust a sampled run of this program "
			 "in what agrees, and read the exact matrices for the rest" : "read this "
			 "program's exact matrices, and take a sampled run of it as a rough picture "
			 "only");
	return buf;
}

int comm_sampled(sqlite3 *db)
{
	return !db_meta_u64(db, "exact") || db_meta_u64(db, "compare_period");
}

int comm_names_sampled(sqlite3 *db)
{
	return db_meta_u64(db, "compare_period") && !db_meta_u64(db, "names_exact");
}

int comm_exact_placed(sqlite3 *db)
{
	sqlite3_stmt *st;
	int n = 0;
	if ((comm_sampled(db) && !db_meta_u64(db, "names_exact")) ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM comm_objects WHERE part = -1 LIMIT 1", -1, &st,
			       NULL))
		return 0;
	n = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return n;
}

const char *comm_switch_text(sqlite3 *db, char *buf, size_t len)
{
	if (!comm_sampled(db))
		return NULL;
	return report_switch_text(db, buf, len, db_meta_u64(db, "arms") > 0,
				  "--no-watch to compare");
}

/* An exact count with fewer transfers than one in this many accesses has nothing to fix:
 * a transfer costs about a hundred accesses' time, so under 1% of the run */
#define COMM_RARE_PER 10000

/* What sampling reaches, said where it found little (the trial of Splash-3 FFT and RADIX,
 * 2026-11-27: 3-4 events where --exact counted 50,000-79,000 transfers). */
#define COMM_SAMPLED_REACH                                                                  \
	"Sampling sees a transfer when the reader comes soon after a sampled store (two more " \
	"store samples of the writer expire it): data handed over across a barrier is mostly "  \
	"missed, and a line written whole then read reads as false sharing; --compare or "      \
	"--exact on a sonde-cc build counts every transfer (sonde-comm(1), \"Limits\")."

/* The usability review of 2026-11-28: two threads handing a word over 2M times with
 * sched_yield between read "no communication" in 2 of 2 runs. */
#define COMM_CLOCK_REACH                                                                    \
	"The clock source samples by CPU time: hand-offs between threads that mostly wait "   \
	"(yield, sleep, block in the kernel) take little of it and are seldom sampled, "      \
	"however many there are."

/* Was the recording's sample source the clock? */
static int clock_source(sqlite3 *db)
{
	char src[16];
	return !strcmp(db_meta(db, "source", src, sizeof(src)), "clock");
}

/* How to take more samples: with the POSIX timers (the clock source beside hardware
 * watchpoints) a period under the scheduler's tick adds none (the usability review of
 * 2026-11-29: --period 100000, 900000 and 4000000 took 77, 84 and 69 samples), where
 * --no-watch's perf clock took 5.8x as many in the same run time. */
static const char *more_samples(sqlite3 *db)
{
	char ev[32];
	if (!strcmp(db_meta(db, "clock_event", ev, sizeof(ev)), "posix-timer"))
		return "--no-watch (this clock samples at most once a scheduler tick, 4 ms at "
		       "HZ=250, whatever the --period, beside watchpoints; without them, ~5x the "
		       "samples and no traps)";
	/* the time budget stretched the clock's period (model.c's unit): a shorter one takes
	 * no more samples (the usability review of 2026-11-29: -p 100000 took 775-2,277
	 * samples against 1,650-2,396 at the default, and was advised) */
	if (clock_source(db) && comm_stretched(db_meta_u64(db, "hits_modelled"),
					       db_meta_u64(db, "hits_weighted")))
		return "not a shorter --period (the time budget stretched this one: a "
		       "shorter one takes no more samples)";
	return "a shorter --period";
}

const char *comm_same_cpu_text(sqlite3 *db, char *buf, size_t len)
{
	uint64_t all = db_meta_u64(db, "total_all"), same = db_meta_u64(db, "total_same_cpu");
	if (!all || same * 10 < all)
		return NULL;
	snprintf(buf, len, "%.0f%% of the communication was between two threads on one CPU at "
		 "the time of both accesses (more threads than CPUs, or pinned together): no "
		 "line moved between caches there.  The thread matrix counts it, as the "
		 "paper's does; the core matrix leaves it out.",
		 100.0 * (double)same / (double)all);
	return buf;
}

/* The threads in a cell of the merged thread matrix. */
static uint64_t communicating_threads(sqlite3 *db)
{
	return (uint64_t)db_int(db, "SELECT COUNT(DISTINCT i) FROM comm_cells WHERE part = -1"
				    " AND unit = 'thread' AND kind = 'all' AND value > 0");
}

/* "N threads" or "K of N threads" (the usability review of 2026-11-29: "between 3
 * threads" where 2 communicate) into buf. */
static const char *between(sqlite3 *db, char *buf, size_t len)
{
	uint64_t n = db_meta_u64(db, "threads"), k = communicating_threads(db);
	if (k && k < n)
		snprintf(buf, len, "%" PRIu64 " of %" PRIu64 " threads", k, n);
	else
		snprintf(buf, len, "%" PRIu64 " threads", n);
	return buf;
}

/* Traps under which a trap-carried volume is said to be coarse (the summary). */
#define COMM_FEW_TRAPS 100

const char *comm_few_text(sqlite3 *db, char *buf, size_t len)
{
	uint64_t nev = db_meta_u64(db, "events");
	if (db_meta_u64(db, "exact") || !db_meta_u64(db, "total_all") || nev >= COMM_FEW_EVENTS)
		return NULL;
	snprintf(buf, len, "only %" PRIu64 " event%s (sampled accesses and traps that found a "
		 "transfer): the volumes and the true/false split are a hint, not a measure.  %s%s",
		 nev, nev == 1 ? "" : "s", COMM_SAMPLED_REACH,
		 clock_source(db) ? "  " COMM_CLOCK_REACH : "");
	return buf;
}

/* Code named in the OpenMP runtime's library (libgomp, LLVM's libomp, Intel's libiomp5). */
static int omp_runtime_code(const char *c)
{
	return c && (strstr(c, "libgomp.so") || strstr(c, "libomp.so") || strstr(c, "libiomp5.so"));
}

/* The busiest lines' offsets as evidence for a sampled split (the usability review of
 * 2026-11-28: "undecided" gave no evidence to decide by): of obj's busiest lines (all
 * objects' where obj is empty) with two threads or more in their offsets, how many show
 * two threads at the same byte offset (true sharing's mark: one writes what another
 * reads or rewrites) and how many each thread at offsets of its own (false sharing's),
 * with the first line of each, into buf; NULL where no line has two threads.  Lines of
 * fewer than 3 events are left out: one event the byte rule calls false has its two
 * threads at different offsets by definition.  The offsets are at most 8 a line
 * (lines.csv), so a line is a sign, not a proof. */
static const char *line_evidence(sqlite3 *db, const char *obj, char *buf, size_t len,
				 int *n_same, int *n_own)
{
	sqlite3_stmt *st;
	int same = 0, own = 0, lines = 0;
	*n_same = *n_own = 0;
	char same_ex[160] = "", own_ex[160] = "";
	if (sqlite3_prepare_v2(db, "SELECT line, offsets FROM comm_lines WHERE part = -1"
				   " AND events >= 3 AND (?1 = '' OR object = ?1)"
				   " ORDER BY total DESC, id", -1, &st, NULL))
		return NULL;
	sqlite3_bind_text(st, 1, obj, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *offs = (const char *)sqlite3_column_text(st, 1);
		unsigned th[16], off[16];
		int n = 0, shared = 0, threads = 0, used;
		for (const char *p = offs ? offs : ""; n < 16 &&
		     sscanf(p, " %u:+%u%n", &th[n], &off[n], &used) == 2; p += used)
			n++;
		for (int i = 0; i < n; i++) {
			int first_of_thread = 1;
			for (int k = 0; k < i; k++) {
				shared |= off[k] == off[i] && th[k] != th[i];
				first_of_thread &= th[k] != th[i];
			}
			threads += first_of_thread;
		}
		if (threads < 2)
			continue;
		lines++;
		char *ex = shared ? same_ex : own_ex;
		if (!*ex)
			snprintf(ex, sizeof(same_ex), "0x%" PRIx64 ": %s",
				 (uint64_t)sqlite3_column_int64(st, 0), offs);
		same += shared;
		own += !shared;
	}
	sqlite3_finalize(st);
	if (!lines)
		return NULL;
	*n_same = same;
	*n_own = own;
	snprintf(buf, len, "Evidence: of the %d busiest cache line%s with 3 events or "
				     "more and two threads or more (Top cache lines, lines.csv), %d show two "
				     "threads at the same byte offset, the mark of true sharing%s%s%s; "
				     "%d each thread at offsets of its own, the mark of false "
				     "sharing%s%s%s.", lines, lines == 1 ? "" : "s", same,
				     *same_ex ? " (" : "", same_ex, *same_ex ? ")" : "", own,
				     *own_ex ? " (" : "", own_ex, *own_ex ? ")" : "");
	return buf;
}

/*
 * After a top object's true sharing: the next object whose communication is mostly false
 * sharing by both readings (the writers' bytes counted too), from 30 events or more and a
 * tenth of the volume or more, appended to text: the fixable one was left unsaid (the
 * usability review of 2026-11-29: a forked child's 100% false sharing in `slots`, no
 * advice, the parent's true sharing in `cell` said).  Not under --compare, whose objects
 * are the sampled detector's.
 */
static void also_false(sqlite3 *db, const char *top, char *text, size_t len)
{
	sqlite3_stmt *st;
	uint64_t all = db_meta_u64(db, "total_all");
	if (!all || comm_names_sampled(db) ||
	    sqlite3_prepare_v2(db, "SELECT name, total, false_sharing - false_covered FROM"
				   " comm_objects WHERE part = -1 AND name != ?1 AND events >= ?2"
				   " AND total * 10 >= ?3 AND (false_sharing - false_covered) * 2 >"
				   " total ORDER BY false_sharing - false_covered DESC, id LIMIT 1",
			       -1, &st, NULL))
		return;
	sqlite3_bind_text(st, 1, top, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, COMM_FEW_EVENTS);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)all);
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t n = strlen(text);
		double tot = (double)sqlite3_column_int64(st, 1);
		snprintf(text + n, len - n, "  Also false sharing in %s (%.0f%% of the "
			 "communication, %.0f%% of its own false by both readings): pad or align "
			 "each thread's part of it to its own 64-byte line.",
			 (const char *)sqlite3_column_text(st, 0), 100.0 * tot / (double)all,
			 tot > 0 ? 100.0 * (double)sqlite3_column_int64(st, 2) / tot : 0.0);
	}
	sqlite3_finalize(st);
}

/* What to do, for the object with the most communication (or the whole run where --exact
 * names none): its larger kind's remedy, doc/sonde-comm.md's "True and false sharing, and
 * what to do" in a sentence (the page said it, the terminal did not: the usability review
 * of 2026-11-28). */
const char *comm_what_to_do(sqlite3 *db, char *text, size_t len)
{
	sqlite3_stmt *st;
	char name[256] = "";
	int heap = 0;
	uint64_t tr = db_meta_u64(db, "total_true"), fs = db_meta_u64(db, "total_false");
	uint64_t cov = db_meta_u64(db, "total_false_covered");
	uint64_t nev = db_meta_u64(db, "events");
	uint64_t acc = db_meta_u64(db, "samples");	/* exact: every access */
	uint64_t otr = 0, ofs = 0;	/* --compare: the top object's sampled split */
	if (!sqlite3_prepare_v2(db, "SELECT name, true_sharing, false_sharing, false_covered,"
				    " kind FROM comm_objects WHERE part = -1 ORDER BY total DESC, id"
				    " LIMIT 1", -1, &st, NULL)) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *nm = (const char *)sqlite3_column_text(st, 0);
			const char *kind = (const char *)sqlite3_column_text(st, 4);
			snprintf(name, sizeof(name), "%s", nm ? nm : "");
			heap = kind && !strcmp(kind, "heap");
			/* --compare: the objects are the sampled detector's, whose split is
			 * the biased one; the kind and share stay the exact run's (review) */
			if (!comm_names_sampled(db)) {
				tr = (uint64_t)sqlite3_column_int64(st, 1);
				fs = (uint64_t)sqlite3_column_int64(st, 2);
				cov = (uint64_t)sqlite3_column_int64(st, 3);
			} else {
				otr = (uint64_t)sqlite3_column_int64(st, 1);
				ofs = (uint64_t)sqlite3_column_int64(st, 2);
			}
		}
		sqlite3_finalize(st);
	}
	if (!tr && !fs)
		return NULL;
	/* a sampled split: two readings; and from a handful of events it changes from run
	 * to run, so no remedy from it (the usability review of 2026-11-28: a program with
	 * no false sharing was told to pad in 2 of 7 runs, from 2 and 5 events) */
	int cov_known = !db_meta_u64(db, "exact");
	if (!cov_known || cov > fs)
		cov = 0;	/* the exact split is the split */
	char in[300] = "", top[320] = "", rt[400] = "";
	/* the objects are the sampled run's; where its split reads the other kind, said (the
	 * trial of 2026-11-28: "true sharing (100%...; the sampled detector's top object: X",
	 * X 100% false in the objects table) */
	if (*name && comm_names_sampled(db))
		snprintf(top, sizeof(top), "; the sampled detector's top object: %s%s", name,
			 (ofs > otr) != (fs * 2 > tr + fs) && otr + ofs ?
			 (ofs > otr ? ", whose sampled split reads false sharing" :
				      ", whose sampled split reads true sharing") : "");
	else if (*name)
		snprintf(in, sizeof(in), " in %s", name);
	/* The top pair's code on both sides in the OpenMP runtime: libgomp handing work to
	 * its team (the trial of 2026-11-28, PENNANT under the clock source: 84 samples, all
	 * libgomp's, read "false sharing in [stack of thread 3]", pad it) */
	if (!sqlite3_prepare_v2(db, "SELECT code_a, code_b FROM comm_pairs WHERE part = -1"
				    " ORDER BY total DESC, id LIMIT 1", -1, &st, NULL)) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *a = (const char *)sqlite3_column_text(st, 0);
			const char *b = (const char *)sqlite3_column_text(st, 1);
			if (omp_runtime_code(a) && omp_runtime_code(b))
				snprintf(rt, sizeof(rt), "%s", a);
		}
		sqlite3_finalize(st);
	}
	char evidence[600] = "";
	int same = 0, own = 0;
	if (cov_known && !line_evidence(db, comm_names_sampled(db) ? "" : name,
					evidence, sizeof(evidence), &same, &own))
		evidence[0] = 0;
	double all = (double)(tr + fs), f_bytes = 100.0 * (double)fs / all;
	double f_cov = 100.0 * (double)(fs - cov) / all;
	/* A sampled run reads a line written whole by one thread and read by another as
	 * false sharing (the board keeps one sampled store's bytes): the trial of 2026-11-28
	 * read 88-93% false where --compare's exact count had 4.5-22%.  Where the writers'
	 * chunks (comm_covered) make it true sharing, the two readings disagree: say so,
	 * with both, rather than a remedy for either. */
	if (*rt)	/* the runtime's own lines: no remedy of the program's applies */
		snprintf(text, len, "What to do: nothing to pad%s: the code on both "
			 "sides of the top pair is the OpenMP runtime's (%s), handing work to its "
			 "team and waiting for it, on lines of its own; fewer, longer parallel "
			 "regions (more work each) move fewer.  sonde-comm(1), \"True and false "
			 "sharing, and what to do\".", in, rt);
	else if (!cov_known && acc && (tr + fs) * COMM_RARE_PER < acc)
		/* exact: a handful of transfers in millions of accesses (the usability review of
		 * 2026-11-28: a padded program's 8 transfers in 8M stores were told to "share
		 * them less often", under a full-scale heat map) */
		snprintf(text, len, "What to do: nothing: %" PRIu64 " transfer%s in %" PRIu64
			 " accesses, under 1 in %d, costs nothing measurable (a transfer takes "
			 "about a hundred accesses' time).", tr + fs, tr + fs == 1 ? "" : "s", acc,
			 COMM_RARE_PER);
	else if (cov_known && nev < COMM_FEW_EVENTS)
		snprintf(text, len, "What to do: not enough evidence for a remedy (%" PRIu64
			 " event%s): run longer, %s, or --compare N on a sonde-cc build.", nev,
			 nev == 1 ? "" : "s", more_samples(db));
	else if (f_bytes > 50 && f_cov <= 50 && f_bytes - f_cov >= COMM_COVERED_POINTS &&
		 same >= COMM_LINES_AGREE && !own)
		/* the writers' bytes and every busy line say true sharing: the byte rule's
		 * false share is the sampled store's bytes (the usability review of 2026-11-29:
		 * a ring and a producer/consumer, 57% and 38% false by the byte rule, 0.6% and
		 * 4% exact, read "undecided" with both signals pointing one way) */
		snprintf(text, len, "What to do: most likely true sharing%s (%.0f%% of it "
			 "counting the bytes the writers are seen storing to; %.0f%% by the "
			 "sampled stores' bytes alone, which read a line written whole by one "
			 "thread and read by another as false sharing): the threads use the same "
			 "bytes; share them less often (per-thread partial results combined at "
			 "the end, batched updates, fewer hand-offs).  %s%s--compare N on a "
			 "sonde-cc build counts it.  sonde-comm(1), \"Which bytes did the writer "
			 "write\".", in,
			 100.0 - f_cov, 100.0 - f_bytes, evidence, *evidence ? "  " : "");
	else if (f_bytes > 50 && f_bytes - f_cov >= (f_cov <= 50 ? 1 : 2) * COMM_COVERED_POINTS)
		/* both over half, but 20 points apart or more: no remedy either (the trial of
		 * 2026-11-29: HPCG's top object 85% and 51%, told to pad, where the exact count
		 * of the same build had 92% of the run true sharing) */
		snprintf(text, len, "What to do: undecided%s: false sharing %.0f%% by "
			 "the sampled stores' bytes, %.0f%% counting the bytes the writers are seen "
			 "storing to.  Where threads write lines whole and then read or rewrite each "
			 "other's, it is true sharing (share them less often); where the Top cache "
			 "lines show each thread at its own offsets, false sharing (pad each thread's "
			 "data to its own 64-byte line).  %s%s--compare N on a sonde-cc build counts "
			 "it.  sonde-comm(1), \"Which bytes did the writer write\".", in, f_bytes,
			 f_cov, evidence, *evidence ? "  " : "");
	else if (f_bytes > 50)
		snprintf(text, len, "What to do: false sharing%s (%.0f%% of it%s): the "
			 "threads write different bytes of the same cache lines; pad or align each "
			 "thread's data to its own 64-byte line (_Alignas(64)), or split the struct.  "
			 "%s%s%s%ssonde-comm(1), \"True and false sharing, and what to do\".", in,
			 f_bytes, top,
			 cov_known ? "Check first: sampling can read as false sharing a line one "
				     "thread writes whole and another then reads (true sharing); "
				     "in real false sharing each thread keeps to its own offsets of "
				     "the line (Top cache lines), and --compare N on a sonde-cc "
				     "build counts every transfer.  " : "", evidence,
			 *evidence ? "  " : "",
			 /* the runtime keeps the heap as the program has it alone (t076); the
			  * trial of 2026-11-28 found Phoenix's tid_args at 48 mod 64 alone, 16, 32
			  * or 0 under sonde before that */
			 heap ? "A heap block's place in its lines moves with what was allocated "
				"before it (sonde keeps it where the program alone puts it, but "
				"another input, allocator or build may not): pad each thread's part "
				"to 64 bytes and align the block too (aligned_alloc(64, ...)), and "
				"every layout is safe.  " : "");
	else {
		snprintf(text, len, "What to do: true sharing%s (%.0f%% of it%s): the "
			 "threads use the same bytes; share them less often (per-thread partial "
			 "results combined at the end, batched updates, fewer hand-offs).  "
			 "sonde-comm(1), \"True and false sharing, and what to do\".", in,
			 100.0 - f_bytes, top);
		also_false(db, name, text, len);
	}
	return text;
}

/* A period's unit for the value `v`: "accesses" for 1 is "access". */
static char *unit_one(char *unit, const char *v)
{
	size_t n = strlen(unit);
	if (!strcmp(v, "1") && n > 3 && !strcmp(unit + n - 3, "ses"))
		unit[n - 2] = 0;
	return unit;
}

/* Several processes (MPI ranks, a fork): each one's part, and that a matrix counts the
 * transfers among one process's threads only (the trial of 2026-11-29, F9: an HPCG run
 * under mpirun read "no communication detected" with nothing on what lies between
 * ranks). */
static void processes_table(sqlite3 *db, FILE *out)
{
	static const char *const rh[] = { "folder", "program", "pid", "threads", "samples",
					  "total", "true", "false", "thread numbers" };
	if (db_meta_u64(db, "processes") <= 1)
		return;
	print_table(db, out,
		    "Processes (each in DIR/comm/FOLDER/, its threads from 0; the report "
		    "merges them)",
		    "SELECT folder, program, pid, threads, samples,"
		    " total_all, total_true, total_false,"
		    " first_thread || '..' || (first_thread + threads - 1) FROM comm_parts"
		    " WHERE part >= 0 ORDER BY part", 9, rh, "llrrrrrrl", 1 << 20);
	text_para(out, "  ", "A process's matrix counts transfers among its own threads: "
		  "what passes between processes (an MPI library's shared-memory transport, a "
		  "shared mapping) is in none (doc/sonde-mpi.md).", 80);
	/* the forks that exec'd (profile_fork_exec), by program and image: "proc-11697,
	 * proc-11699 are forks of forkexec that exec'd echo: ..." (the first three named) */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT group_concat(folder, ', '), count(*), program, fork_exec"
				   " FROM comm_parts WHERE part >= 0 AND fork_exec != '' GROUP BY"
				   " program, fork_exec ORDER BY min(part)", -1, &st, NULL))
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char line[640], names[160];
		const char *all = (const char *)sqlite3_column_text(st, 0);
		long long n = sqlite3_column_int64(st, 1);
		const char *prog = (const char *)sqlite3_column_text(st, 2);
		prog = prog ? prog : "?";
		const char *c = all;	/* the third comma, where the list is cut */
		for (int k = 0; c && (c = strchr(c, ',')) && ++k < 3;)
			c++;
		size_t cut = !all ? 0 : c ? (size_t)(c - all) : strlen(all);
		snprintf(names, sizeof(names), "%.*s%s", (int)(cut < 150 ? cut : 150),
			 all ? all : "", n > 3 ? " and more" : "");
		snprintf(line, sizeof(line), "%s %s of %s that exec'd %s: what %s ran "
			 "between the fork and the exec, not another run of %s.", names,
			 n == 1 ? "is a fork" : "are forks", prog,
			 (const char *)sqlite3_column_text(st, 3), n == 1 ? "it" : "they", prog);
		text_para(out, "  ", line, 80);
	}
	sqlite3_finalize(st);
}

static int print_text(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	char b[4][512];
	uint64_t all = db_meta_u64(db, "total_all"), tr = db_meta_u64(db, "total_true");
	uint64_t fs = db_meta_u64(db, "total_false");
	int top = o->top > 0 ? o->top : 10;
	if (!o->quiet) {	/* --quiet: the tables alone, as for mem and variance */
		/* several processes: the one named is the busiest (a wrapper script's program;
		 * the comm review of 2026-11-29 read the header as the whole run's) */
		uint64_t np = db_meta_u64(db, "processes");
		fprintf(out, "sonde comm: %s", report_program(db, b[0], sizeof(b[0])));
		if (np > 1)
			fprintf(out, " (the busiest of %" PRIu64 " processes: all under Processes)",
				np);
		fputc('\n', out);
		/* the clock's signals that gave no sample, where they are a tenth or more (the
		 * usability review of 2026-11-29: a sonde-cc build under -s clock, 119 samples
		 * of ~1,500 ticks, said as "119 samples") */
		uint64_t ns = db_meta_u64(db, "samples"), sigs = db_meta_u64(db, "sample_signals");
		char of[400] = "";
		int soft = !strcmp(db_meta(db, "watch_backend", b[3], sizeof(b[3])), "soft");
		if (clock_source(db) && sigs > ns && (sigs - ns) * 10 >= sigs)
			snprintf(of, sizeof(of), " of %" PRIu64 " timer signals (%.0f%% found no "
				 "load or store of the program where they struck, or were "
				 "skipped by the time budget%s)", sigs,
				 100.0 * (double)(sigs - ns) / (double)sigs,
				 soft ? "; a sonde-cc build spends most of its time in its "
					"access callbacks, which are not sampled: --source inst "
					"samples it by access" : "");
		char line[1024];
		db_meta(db, "period", b[1], sizeof(b[1]));
		db_meta(db, "period_unit", b[2], sizeof(b[2]));
		unit_one(b[2], b[1]);	/* "period 1 access" (--exact; was "1 accesses") */
		snprintf(line, sizeof(line), "source %s, period %s %s; %" PRIu64 " samples%s, %"
			 PRIu64 " traps", db_meta(db, "source", b[0], sizeof(b[0])), b[1], b[2],
			 ns, of, db_meta_u64(db, "traps"));
		text_hang(out, "  ", "      ", line, 80);
		report_debias_line(db, out, "  de-biasing: ", "      ");
		text_hang(out, "  watchpoints: ", "      ", db_meta(db, "watch", b[0], sizeof(b[0])),
			  80);
		report_arm_fail_line(db, out, "  arm failures: ", "      ");
		if (comm_switch_text(db, b[0], sizeof(b[0])))
			text_hang(out, "  context switches: ", "      ", b[0], 80);
		text_hang(out, "  scaling: ", "      ", db_meta(db, "scaling", b[1], sizeof(b[1])),
			  80);
		text_hang(out, "  unit: ", "      ", db_meta(db, "unit", b[2], sizeof(b[2])), 80);
		threads_line(db, out);
	}
	if (db_meta_u64(db, "compare_period"))
		print_compare(db, out);
	int sampled = !db_meta_u64(db, "exact");
	if (!all && db_meta_u64(db, "threads") == 1 && !db_meta_u64(db, "unended")) {
		/* one thread: nothing to find, whatever the sampling (a single-threaded program
		 * was told it "ran too briefly", or the sampling's reach) */
		fputc('\n', out);
		text_para(out, "  ", "no communication: the program ran one thread, and a matrix "
			  "counts transfers between threads (for an OpenMP program, set "
			  "OMP_NUM_THREADS; an MPI program's ranks are processes, each with its "
			  "own matrix: doc/sonde-mpi.md).", 80);
		return 0;
	}
	if (!all) {
		fputc('\n', out);
		text_para(out, "  ", "no communication detected: the matrix is empty (no thread "
			  "was seen reading or writing a cache line another thread had written)", 80);
		uint64_t ns = db_meta_u64(db, "samples");
		/* a run too short to sample (the usability review of 2026-11-28: /bin/false,
		 * 2 samples, read as "none found" with the sampling caveat) */
		if (sampled && db_meta_u64(db, "unended")) {
			/* killed: the samples were counted at the threads' end, never written */
			text_para(out, "  ", "The process ended without closing the recording "
				  "(killed by SIGKILL?): its threads' counters are missing, and the "
				  "samples of its last second.", 80);
		} else if (sampled && ns < COMM_FEW_EVENTS &&
			   db_meta_u64(db, "clock_unsignalled")) {
			/* threads that blocked the clock's signal: not a short run (the usability
			 * review of 2026-11-29: 0.9 s of CPU read "ran too briefly") */
			char bl[400];
			int k = snprintf(bl, sizeof(bl), "%" PRIu64 " thread(s) blocked SIGTRAP, "
					 "the clock source's signal, and gave no sample ('sonde: "
					 "warning: ... they block SIGTRAP' says what to do)",
					 db_meta_u64(db, "clock_unsignalled"));
			if (ns && k > 0 && (size_t)k < sizeof(bl))
				snprintf(bl + k, sizeof(bl) - (size_t)k, "; the others gave %"
					 PRIu64 " sample%s: a longer run samples them more", ns,
					 ns == 1 ? "" : "s");
			strncat(bl, ".", sizeof(bl) - strlen(bl) - 1);
			text_para(out, "  ", bl, 80);
		} else if (sampled && ns < COMM_FEW_EVENTS &&
			   db_meta_u64(db, "sample_signals") >= 10 * COMM_FEW_EVENTS) {
			/* a long run whose sampled instructions touch no memory (the usability
			 * review of 2026-11-29: 1.87 s of CPU, "ran too briefly") */
			char few[400];
			snprintf(few, sizeof(few), "Only %" PRIu64 " of the %" PRIu64 " samples "
				 "fell on a load or store: the program's time goes to code that "
				 "works in registers, where threads exchange nothing.", ns,
				 db_meta_u64(db, "sample_signals"));
			text_para(out, "  ", few, 80);
		} else if (sampled && ns < COMM_FEW_EVENTS) {
			char few[600];
			snprintf(few, sizeof(few), "Only %" PRIu64 " sample%s: the program ran too "
				 "briefly for sampling to find any (a longer run, %s, or --compare N "
				 "on a sonde-cc build).", ns, ns == 1 ? "" : "s", more_samples(db));
			text_para(out, "  ", few, 80);
		} else if (sampled) {
			text_para(out, "  ", COMM_SAMPLED_REACH, 80);
			if (clock_source(db))
				text_para(out, "  ", COMM_CLOCK_REACH, 80);
		}
		processes_table(db, out);
		return 0;
	}
	char few[1024], bt[64];
	double fb, fc;
	covered_shares(all, fs, db_meta_u64(db, "total_false_covered"), &fb, &fc);
	uint64_t nev = db_meta_u64(db, "events");
	if (sampled && nev < COMM_SPLIT_EVENTS) {
		/* one or two events split nothing: 100% one way from a single pair of
		 * accesses (the trial of 2026-11-29, F3: PENNANT's two adjacent sums, written
		 * by both threads, read "false sharing 100.0%" from 1 event) */
		snprintf(few, sizeof(few), "%" PRIu64 " between %s (from %" PRIu64 " event%s: "
			 "too few for a true/false split)", all, between(db, bt, sizeof(bt)), nev,
			 nev == 1 ? "" : "s");
		text_hang(out, "  communication: ", "      ", few, 80);
	} else if (!db_meta_u64(db, "exact") && fb - fc >= COMM_COVERED_POINTS) {
		/* two readings apart: neither as the headline's split (the trial of 2026-11-29:
		 * AMG's "false sharing 86.6%", 8.7% by --compare's exact count) */
		snprintf(few, sizeof(few), "%" PRIu64 " between %s (false sharing %.1f%% or "
			 "%.1f%%: the two readings below disagree)", all,
			 between(db, bt, sizeof(bt)), fb, fc);
		text_hang(out, "  communication: ", "      ", few, 80);
	} else {
		/* (a paragraph: 81 columns with 41 threads, the usability review) */
		snprintf(few, sizeof(few), "%" PRIu64 " (true sharing %.1f%%, false sharing "
			 "%.1f%%) between %s", all, 100.0 * (double)tr / (double)all,
			 100.0 * (double)fs / (double)all, between(db, bt, sizeof(bt)));
		text_hang(out, "  communication: ", "      ", few, 80);
	}
	if (comm_same_cpu_text(db, few, sizeof(few)))
		text_para(out, "  ", few, 80);
	if (comm_few_text(db, few, sizeof(few)))
		text_para(out, "  ", few, 80);
	/* a volume carried by few weighted traps (the usability review of 2026-11-29: a
	 * pipeline's equal edges read 19, 80 and 85 in one run, 4 traps being 128 of 184) */
	uint64_t ntr = db_meta_u64(db, "traps"), vtr = db_meta_u64(db, "total_trap");
	if (sampled && ntr && ntr < COMM_FEW_TRAPS && vtr * 2 >= all) {
		snprintf(few, sizeof(few), "%.0f%% of the volume comes from %" PRIu64 " trap%s, "
			 "each worth about %.0f: a cell that rests on a handful of them can read "
			 "several times its share in one run (a pipeline's equal edges read 19, "
			 "80 and 85); read the matrix's shape, not the ratio of two cells.",
			 100.0 * (double)vtr / (double)all, ntr, ntr == 1 ? "" : "s",
			 (double)vtr / (double)ntr);
		text_para(out, "  ", few, 80);
	}
	if (comm_covered_text(db, 0, few, sizeof(few)))
		text_para(out, "  ", few, 80);
	fputc('\n', out);
	heat_map(db, out, isatty(fileno(out)) && !getenv("NO_COLOR"));
	static const char *const ph[] = { "threads", "total", "true", "false", "code a",
					  "code b" };
	/* --compare: the volumes are the exact ones, the code the sampled detector's (the
	 * trial of 2026-11-28: unlabelled beside the labelled objects and lines) */
	const int placed = comm_exact_placed(db);
	print_table(db, out, comm_names_sampled(db) ?
			    "Top thread pairs (exact volumes; code: the sampled detector's)" :
			    placed ? "Top thread pairs (exact volumes; code: of 1 transfer in "
				     COMM_XSAMPLE_EVERY_S ")" : "Top thread pairs",
		    /* '-': code the sampled detector never saw on that pair (--compare: an exact
		     * transfer it missed; blank cells unexplained, the review of 2026-11-29) */
		    "SELECT a || '-' || b, total, true_sharing, false_sharing,"
		    " COALESCE(NULLIF(code_a, ''), '-'), COALESCE(NULLIF(code_b, ''), '-')"
		    " FROM comm_pairs WHERE part = -1 ORDER BY total DESC, id", 6, ph, "rrrrnn",
		    top);
	/* --exact counts transfers per pair of threads and CPUs, nothing more */
	static const char *const oh[] = { "total", "true", "false", "object" };
	if (!comm_sampled(db) && !placed)	/* (a recording before 2026-11-29) */
		fprintf(out, "\n  (--exact keeps no addresses or instructions: no code above and no"
			     " objects; --compare N adds a sampled run that names them)\n");
	else
		print_table(db, out, comm_names_sampled(db) ?
					     "Top objects (the sampled detector's: estimated volumes)" :
					     placed ? "Top objects (of 1 exact transfer in "
						      COMM_XSAMPLE_EVERY_S ": estimated volumes)" :
					     "Top objects",
			    "SELECT total, true_sharing, false_sharing, name FROM comm_objects"
			    " WHERE part = -1 ORDER BY total DESC, id", 4, oh, "rrrn", top);
	if ((comm_sampled(db) || placed) && db_has_table(db, "comm_lines")) {
		static const char *const lh[] = { "total", "true", "false", "line", "object",
						  "thread:+offset" };
		/* --compare: the lines are the sampled detector's, as the objects (the trial
		 * of 2026-11-28: CoMD's lines all false beside exact matrices all true, only
		 * the objects' table said whose they were) */
		print_table(db, out, comm_names_sampled(db) ?
				     "Top cache lines (the sampled detector's: estimated volumes; "
				     "each thread's byte offsets)" : placed ?
				     "Top cache lines (of 1 exact transfer in " COMM_XSAMPLE_EVERY_S
				     ": estimated volumes; each thread's byte offsets)" :
				     "Top cache lines (each thread's byte offsets: who writes or "
				     "reads which bytes)",
			    "SELECT total, true_sharing, false_sharing, printf('0x%x', line),"
			    " object, offsets FROM comm_lines WHERE part = -1 ORDER BY total DESC,"
			    " id", 6, lh, "rrrlnl", top);
	}
	/* the small blocks' group, as mem says it (the usability review of 2026-11-28: a
	 * 664-byte queue's 90% false sharing read as [heap: untracked small blocks], and
	 * mem gave the hint where comm did not) */
	sqlite3_stmt *sb;
	double small = 0;
	if (!sqlite3_prepare_v2(db, "SELECT total FROM comm_objects WHERE part = -1 AND name ="
				    " '[heap: untracked small blocks]'", -1, &sb, NULL)) {
		/* --compare: the objects' volumes are the sampled detector's */
		uint64_t base = comm_names_sampled(db) ?
					db_meta_u64(db, "sampled_total_all") : all;
		if (sqlite3_step(sb) == SQLITE_ROW && base)
			small = (double)sqlite3_column_int64(sb, 0) / (double)base;
		sqlite3_finalize(sb);
	}
	char note[512];
	if (report_small_blocks_text("communication is", small, db_meta_u64(db, "min_object"),
				     note, sizeof(note))) {
		fputc('\n', out);
		text_para(out, "  ", note, 80);
	}
	char todo[2048];
	if (comm_what_to_do(db, todo, sizeof(todo))) {
		fputc('\n', out);
		text_para(out, "  ", todo, 80);
	}
	processes_table(db, out);
	return 0;
}

int comm_print(sqlite3 *db, FILE *out, const struct report_opts *o)
{
	if (o->format == REPORT_TEXT)
		return print_text(db, out, o);
	if (o->format == REPORT_CSV)
		return matrix_csv(db, out, -1, COMM_BY_THREAD, COMM_ALL);
	/* the keys of the terminal's header too: how to read the volumes (a clock source's
	 * samples, not transfers: the trial of 2026-11-27 read only "period": 900000), and
	 * the few-events hint; null when there is none */
	char b[1024];
	struct cells c;
	struct json j;
	if (cells_open(db, -1, COMM_BY_THREAD, COMM_ALL, &c))
		return -EIO;
	json_init_flags(&j, out, JSON_COMPACT);
	json_begin_object(&j, NULL);
	json_str(&j, "tool", "comm");
	json_str(&j, "source", db_meta(db, "source", b, sizeof(b)));
	json_uint(&j, "period", db_meta_u64(db, "period"));
	json_str(&j, "period_unit", db_meta(db, "period_unit", b, sizeof(b)));
	json_str(&j, "scaling", db_meta(db, "scaling", b, sizeof(b)));
	json_str(&j, "unit", db_meta(db, "unit", b, sizeof(b)));
	json_uint(&j, "samples", db_meta_u64(db, "samples"));
	json_uint(&j, "traps", db_meta_u64(db, "traps"));
	json_uint(&j, "events", db_meta_u64(db, "events"));
	json_uint(&j, "total_all", db_meta_u64(db, "total_all"));
	json_uint(&j, "total_true", db_meta_u64(db, "total_true"));
	json_uint(&j, "total_false", db_meta_u64(db, "total_false"));
	/* of total_false, the part at bytes the writers' code is seen storing to; and the
	 * second reading's false sharing itself, total_false less it (a script read the
	 * part as the reading: the usability review of 2026-11-28) */
	uint64_t tf = db_meta_u64(db, "total_false"), tc = db_meta_u64(db, "total_false_covered");
	json_uint(&j, "total_false_covered", tc);
	json_uint(&j, "total_false_writers_bytes", tf > tc ? tf - tc : 0);
	char todo[2048];
	json_str(&j, "what_to_do", comm_what_to_do(db, todo, sizeof(todo)));
	json_uint(&j, "threads", db_meta_u64(db, "threads"));
	/* the threads in a cell, and the volume between two threads on one CPU (the usability
	 * review of 2026-11-29) */
	json_uint(&j, "threads_communicating", communicating_threads(db));
	json_uint(&j, "total_same_cpu", db_meta_u64(db, "total_same_cpu"));
	json_str(&j, "warning", comm_few_text(db, b, sizeof(b)));
	if (db_meta_u64(db, "compare_period")) {	/* --compare: the sampled run's figures */
		json_uint(&j, "compare_period", db_meta_u64(db, "compare_period"));
		json_uint(&j, "sampled_total_all", db_meta_u64(db, "sampled_total_all"));
		json_uint(&j, "sampled_total_false", db_meta_u64(db, "sampled_total_false"));
		uint64_t sf = db_meta_u64(db, "sampled_total_false");
		uint64_t sc = db_meta_u64(db, "sampled_total_false_covered");
		json_uint(&j, "sampled_total_false_covered", sc);
		json_uint(&j, "sampled_total_false_writers_bytes", sf > sc ? sf - sc : 0);
		json_uint(&j, "sampled_events", db_meta_u64(db, "sampled_events"));
		json_str(&j, "compare_verdict", comm_compare_verdict(db, b, sizeof(b)));
		struct comm_compare cj;
		if (comm_compare_judge(db, &cj)) {
			json_bool(&j, "compare_volume_agrees", cj.volume_ok);
			json_bool(&j, "compare_split_agrees", cj.split_ok);
			if (cj.has_covered)
				json_bool(&j, "compare_covered_agrees", cj.covered_ok);
			else
				json_str(&j, "compare_covered_agrees", NULL);
			if (cj.pattern_ok >= 0)
				json_bool(&j, "compare_pattern_agrees", cj.pattern_ok);
			else
				json_str(&j, "compare_pattern_agrees", NULL);
		}
	}
	/* the tables of the CSV files, merged (the trial of 2026-11-28: the objects were only
	 * in the what_to_do text) */
	int64_t all_parts = -1;
	int r = db_query_json(db, &j, "objects", objects_sql, COLS(objects_cols), objects_cols,
			      &all_parts, 1);
	if (!r)
		r = db_query_json(db, &j, "pairs", pairs_sql, COLS(pairs_cols), pairs_cols,
				  &all_parts, 1);
	if (!r)
		r = db_query_json(db, &j, "lines", lines_sql, COLS(lines_cols), lines_cols,
				  &all_parts, 1);
	if (!r)
		r = db_query_json(db, &j, "thread_list", threads_sql, COLS(threads_cols),
				  threads_cols, &all_parts, 1);
	if (r) {	/* the JSON closed all the same (as mem's) */
		sqlite3_finalize(c.st);
		json_end_object(&j);
		json_finish(&j);
		return r;
	}
	json_begin_array(&j, "cells");
	while (cells_next(&c)) {
		json_begin_array(&j, NULL);
		json_uint(&j, NULL, c.i);
		json_uint(&j, NULL, c.j);
		json_uint(&j, NULL, c.v);
		json_end_array(&j);
	}
	sqlite3_finalize(c.st);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	return 0;
}
