/* SPDX-License-Identifier: MIT */
/* measure.c - sonde bench's figures: a benchmark's report and recording into numbers. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench.h"

int bench_prog_parse(FILE *f, struct bench_prog *p)
{
	char line[256], name[64], how[16];
	unsigned long long v;
	int counts = 0;
	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long c, u, s, w;
		long rss;
		if (sscanf(line, "site %63s %15s %lli", name, how, (long long *)&v) == 3) {
			if (p->nsites == BENCH_MAX_SITES)
				return -EINVAL;
			snprintf(p->site[p->nsites], sizeof(p->site[0]), "%.15s", name);
			p->where[p->nsites++] = v;
			p->by_line = !strcmp(how, "line");
		} else if (sscanf(line, "count %63s %llu", name, &v) == 2) {
			int k = !strcmp(name, "load") ? BENCH_LOAD : !strcmp(name, "store") ?
				BENCH_STORE : !strcmp(name, "rmw") ? BENCH_RMW : -1;
			if (k < 0)
				return -EINVAL;
			p->count[k] = v;
			counts++;
		} else if (sscanf(line, "time cpu_ns %llu utime_ns %llu stime_ns %llu wall_ns %llu "
				  "maxrss_kb %ld", &c, &u, &s, &w, &rss) == 5) {
			p->cpu_ns = c, p->utime_ns = u, p->stime_ns = s, p->wall_ns = w;
			p->maxrss_kb = rss;
			p->has_time = 1;
		}
	}
	return p->nsites && counts == BENCH_KINDS && p->has_time ? 0 : -EINVAL;
}

static double one_double(sqlite3 *db, const char *sql, const char *text, int64_t arg, int *ok)
{
	sqlite3_stmt *st;
	double v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		*ok = 0;
		return 0;
	}
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	else if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, arg);
	int r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	else if (r != SQLITE_DONE)
		*ok = 0;
	sqlite3_finalize(st);
	return v;
}

static void meta_text(sqlite3 *db, const char *key, char *buf, size_t len)
{
	sqlite3_stmt *st;
	buf[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

int bench_db_read(const char *path, const struct bench_prog *p, struct bench_db *d, char *err,
		  size_t errlen)
{
	sqlite3 *db;
	int ok = 1;
	char buf[64];
	memset(d, 0, sizeof(*d));
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EIO;
	}
	meta_text(db, "source", d->source, sizeof(d->source));
	meta_text(db, "period_unit", d->unit, sizeof(d->unit));
	meta_text(db, "period", buf, sizeof(buf));
	d->period = atof(buf);
	meta_text(db, "samples", buf, sizeof(buf));
	d->samples = atof(buf);
	meta_text(db, "dropped", buf, sizeof(buf));
	d->dropped = atof(buf);
	d->cpu_ns = one_double(db, "SELECT total(cpu_ns) FROM threads", NULL, 0, &ok);
	/* Samples on each site, and by access kind on the sites (the loop's accesses only). */
	static const char *const kinds[BENCH_KINDS] = { "m.flags & 3 = 0", "m.flags & 3 = 1",
							 "m.flags & 2" };
	for (int i = 0; i < p->nsites; i++) {
		for (int k = -1; k < BENCH_KINDS; k++) {
			char sql[256];
			snprintf(sql, sizeof(sql), "%s AND %s", p->by_line ?
				 "SELECT total(m.weight) FROM mem_samples m JOIN code c ON c.id = "
				 "m.code WHERE c.line = ? AND c.file LIKE '%bench-micro.c'" :
				 "SELECT total(m.weight) FROM mem_samples m JOIN contexts c ON c.id "
				 "= m.context WHERE c.ip = ?", k < 0 ? "1" : kinds[k]);
			double v = one_double(db, sql, NULL, (int64_t)p->where[i], &ok);
			if (k < 0)
				d->site[i] = v;
			else
				d->kind[k] += v;
		}
	}
	if (!ok || !d->unit[0] || d->period <= 0) {
		snprintf(err, errlen, "'%s' is not a complete mem recording: %s", path,
			 ok ? "no period in meta" : sqlite3_errmsg(db));
		sqlite3_close(db);
		return -EINVAL;
	}
	sqlite3_close(db);
	return 0;
}

static int time_unit(const struct bench_db *d)
{
	return !strcmp(d->unit, "ns");
}

static double sites_total(const struct bench_prog *p, const struct bench_db *d)
{
	double seen = 0;
	for (int i = 0; i < p->nsites; i++)
		seen += d->site[i];
	return seen;
}

double bench_accuracy(const struct bench_prog *p, const struct bench_db *d)
{
	double seen = sites_total(p, d), want;
	if (time_unit(d)) {
		want = (double)p->utime_ns / d->period;
	} else {
		want = 0;
		for (int k = 0; k < BENCH_KINDS; k++)
			want += (double)p->count[k];
		want /= d->period;
	}
	return want >= BENCH_MIN_EXPECTED ? seen / want : NAN;
}

double bench_accuracy_cpu(const struct bench_db *d)
{
	return time_unit(d) && d->cpu_ns > 0 ? d->samples / (d->cpu_ns / d->period) : NAN;
}

double bench_site_share(const struct bench_db *d, int nsites, int i)
{
	double all = 0;
	for (int j = 0; j < nsites; j++)
		all += d->site[j];
	return all > 0 ? d->site[i] / all : NAN;
}

double bench_kind_accuracy(const struct bench_prog *p, const struct bench_db *d, int kind)
{
	double known = 0, seen = 0;
	for (int k = 0; k < BENCH_KINDS; k++) {
		known += (double)p->count[k];
		seen += d->kind[k];
	}
	if (!p->count[kind] || known <= 0)
		return NAN;
	if (time_unit(d))
		return seen > 0 ? (d->kind[kind] / seen) / ((double)p->count[kind] / known) : NAN;
	return d->kind[kind] / ((double)p->count[kind] / d->period);
}

double bench_mean(const double *v, int n)
{
	double s = 0;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			s += v[i], m++;
	return m ? s / m : NAN;
}

double bench_stderr(const double *v, int n)
{
	double mean = bench_mean(v, n), ss = 0;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			ss += (v[i] - mean) * (v[i] - mean), m++;
	if (!m)
		return NAN;
	return m > 1 ? sqrt(ss / (m - 1)) / sqrt((double)m) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(const double *v, int n)
{
	double *w = malloc(sizeof(*w) * (size_t)(n > 0 ? n : 1));
	int m = 0;
	if (!w)
		return NAN;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			w[m++] = v[i];
	double r = NAN;
	if (m) {
		qsort(w, (size_t)m, sizeof(*w), cmp_double);
		r = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	}
	free(w);
	return r;
}

int bench_parse_interval(const char *s, uint64_t *value, int *is_time)
{
	char *end;
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e15)
		return -EINVAL;
	if (!*end) {
		if (v != floor(v))
			return -EINVAL;
		*value = (uint64_t)v;
		*is_time = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			double ns = v * units[i].ns;
			if (ns < 1 || ns > 1e13)
				return -EINVAL;
			*value = (uint64_t)llround(ns);
			*is_time = 1;
			return 0;
		}
	return -EINVAL;
}

void bench_interval_name(char *buf, size_t len, uint64_t value, int time_unit)
{
	if (!time_unit)
		snprintf(buf, len, value == 1 ? "every access" : "1 in %llu",
			 (unsigned long long)value);
	else if (value >= 100000 && value % 100000 == 0)
		snprintf(buf, len, "%g ms", (double)value / 1e6);
	else if (value >= 1000 && value % 100 == 0)
		snprintf(buf, len, "%g us", (double)value / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)value);
}
