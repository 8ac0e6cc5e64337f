/* SPDX-License-Identifier: MIT */
/* verdict.c - `sonde bench`'s verdict file and the de-biasing setting taken from it.  See
 * verdict.h; the file is described in doc/sonde-bench.md, "The verdict file". */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/verdict.h"
#include "machine/machine.h"
#include "prof/file.h"
#include "ui/csv.h"

void verdict_machine(char *cpu, size_t cpulen, char *kernel, size_t kernlen)
{
	struct machine_cpu c;
	struct utsname u;
	memset(&c, 0, sizeof(c));
	machine_cpu_read(&c);
	snprintf(cpu, cpulen, "%s", c.model);
	if (uname(&u) == 0)
		snprintf(kernel, kernlen, "%s", u.release);
	else if (kernlen)
		kernel[0] = 0;
}

int verdict_path(char *buf, size_t len)
{
	const char *env = getenv("SONDE_VERDICT"), *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char host[128] = "localhost";
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = 0;
	for (char *p = host; *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
	if (cache && *cache == '/')
		snprintf(buf, len, "%s/sonde/bench-%s.csv", cache, host);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/sonde/bench-%s.csv", home, host);
	else
		return -ENOENT;
	return 0;
}

static struct verdict_entry *entry(struct verdict *v, const char *source, const char *interval)
{
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->e[i].source, source) && !strcmp(v->e[i].interval, interval))
			return &v->e[i];
	if (v->n == VERDICT_MAX_ENTRIES)
		return NULL;
	struct verdict_entry *e = &v->e[v->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->source, sizeof(e->source), "%s", source);
	snprintf(e->interval, sizeof(e->interval), "%s", interval);
	return e;
}

/* The setting measured by benchmark `bench` of e: Bias-Bench rows are "bias" (its
 * extra_steps row says which setting), "bias-no-steps" (1) and "bias-steps-N"; created on
 * first sight, NULL for other benchmarks. */
static struct verdict_setting *setting(struct verdict_entry *e, const char *bench)
{
	static const char prefix[] = "bias-steps-";
	int steps;
	if (!strcmp(bench, "bias"))
		steps = 0;
	else if (!strcmp(bench, "bias-no-steps"))
		steps = 1;
	else if (!strncmp(bench, prefix, sizeof(prefix) - 1))
		steps = atoi(bench + sizeof(prefix) - 1);
	else
		return NULL;
	for (int i = 0; i < e->nset; i++)
		if (!strcmp(e->set[i].bench, bench))
			return &e->set[i];
	if (e->nset == VERDICT_MAX_SETTINGS)
		return NULL;
	struct verdict_setting *s = &e->set[e->nset++];
	snprintf(s->bench, sizeof(s->bench), "%s", bench);
	s->steps = steps;
	for (int k = 0; k < 4; k++)
		s->bias[k] = NAN;
	s->time_ratio = NAN;
	return s;
}

void verdict_add(struct verdict *v, char *const *f)
{
	struct verdict_entry *e = entry(v, f[0], f[1]);
	if (!e)
		return;
	if (!strcmp(f[2], "*")) {
		if (!strcmp(f[3], "verdict"))
			snprintf(e->words, sizeof(e->words), "%s", f[4]);
		else if (!strcmp(f[3], "date"))
			snprintf(e->date, sizeof(e->date), "%s", f[4]);
		else if (!strcmp(f[3], "period"))
			e->period = atof(f[4]);
		return;
	}
	if (strcmp(f[0], "clock"))
		return;	/* only clock has a de-biasing setting */
	struct verdict_setting *s = setting(e, f[2]);
	if (!s || !f[4][0])
		return;
	if (!strncmp(f[3], "bias", 4) && f[3][4] >= '1' && f[3][4] <= '4' && !f[3][5])
		s->bias[f[3][4] - '1'] = atof(f[4]);
	else if (!strcmp(f[3], "extra_steps"))
		s->steps = atoi(f[4]) < 1 ? 1 : atoi(f[4]);
	else if (!strcmp(f[3], "time_ratio"))
		s->time_ratio = atof(f[4]);
}

static int by_steps(const void *a, const void *b)
{
	const struct verdict_setting *x = a, *y = b;
	return (x->steps > y->steps) - (x->steps < y->steps);
}

void verdict_finish(struct verdict *v)
{
	for (int i = 0; i < v->n; i++) {
		struct verdict_entry *e = &v->e[i];
		int k = 0;
		for (int j = 0; j < e->nset; j++) {
			struct verdict_setting s = e->set[j];
			if (s.steps < 1)
				continue;	/* "bias" without its extra_steps row */
			s.worst = 0;
			for (int b = 0; b < 4; b++)
				s.worst = isnan(s.bias[b]) ? INFINITY :
					  fmax(s.worst, fabs(s.bias[b] - 0.25) * 100);
			e->set[k++] = s;
		}
		e->nset = k;
		qsort(e->set, (size_t)k, sizeof(e->set[0]), by_steps);
	}
}

int verdict_read(const char *path, struct verdict *v, char *err, size_t errlen)
{
	/* a regular file only: SONDE_VERDICT naming a FIFO hung 'sonde info' */
	int e;
	FILE *f = file_fopen_regular(path, &e);
	char line[2048];
	memset(v, 0, sizeof(*v));
	snprintf(v->path, sizeof(v->path), "%s", path);
	if (e == FILE_NOT_REGULAR)
		snprintf(err, errlen, "%s is not a sonde bench verdict (%s)", path, file_strerror(e));
	if (!f)
		return e;
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, "source,interval,benchmark,measure,value", 39)) {
		fclose(f);
		snprintf(err, errlen, "%s is not a sonde bench verdict (its first line is not "
			 "source,interval,benchmark,measure,value)", path);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fl[5];
		if (csv_split(line, fl, 5) != 5)
			continue;
		if (!strcmp(fl[0], "*") && !strcmp(fl[2], "machine")) {
			char *dst = !strcmp(fl[3], "cpu") ? v->cpu : !strcmp(fl[3], "kernel") ?
				    v->kernel : !strcmp(fl[3], "host") ? v->host : NULL;
			if (dst)
				snprintf(dst, sizeof(v->cpu), "%s", fl[4]);
			continue;
		}
		verdict_add(v, fl);
	}
	fclose(f);
	if (!v->cpu[0] && !v->kernel[0]) {
		snprintf(err, errlen, "%s does not say which machine it was measured on (no "
			 "machine rows)", path);
		return -EINVAL;
	}
	verdict_finish(v);
	return 0;
}

int verdict_is_this_machine(const struct verdict *v)
{
	char cpu[128], kernel[128];
	verdict_machine(cpu, sizeof(cpu), kernel, sizeof(kernel));
	return !strcmp(cpu, v->cpu) && !strcmp(kernel, v->kernel);
}

const struct verdict_setting *verdict_choose(const struct verdict_entry *e)
{
	for (int i = 0; i < e->nset; i++)	/* ascending steps: the first that fits */
		if (e->set[i].worst <= VERDICT_MAX_POINTS + 1e-9)	/* 10.0 is within */
			return &e->set[i];
	return NULL;
}

const struct verdict_entry *verdict_clock_entry(const struct verdict *v, uint64_t period)
{
	const struct verdict_entry *best = NULL;
	double want = period ? (double)period : 900000.0, dist = INFINITY;
	for (int i = 0; i < v->n; i++) {
		const struct verdict_entry *e = &v->e[i];
		if (strcmp(e->source, "clock") || !e->nset)
			continue;
		/* nearest on a log scale: 1 ms is as near to 0.5 ms as to 2 ms */
		double d = e->period > 0 ? fabs(log(e->period / want)) : 1e9;
		if (d < dist)
			dist = d, best = e;
	}
	return best;
}

/* "24/25/27/23" */
static void shares(const struct verdict_setting *s, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f/%.0f/%.0f/%.0f", s->bias[0] * 100, s->bias[1] * 100,
		 s->bias[2] * 100, s->bias[3] * 100);
}

/* The note when this machine's verdict gives the setting, or none fits. */
static void from_verdict(const struct verdict *v, const struct verdict_entry *e,
			 struct verdict_debias *d)
{
	const struct verdict_setting *s = verdict_choose(e);
	char b[40];
	if (!s) {
		const struct verdict_setting *best = &e->set[0];
		for (int i = 1; i < e->nset; i++)
			if (e->set[i].worst < best->worst)
				best = &e->set[i];
		shares(best, b, sizeof(b));
		snprintf(d->note, sizeof(d->note), "%d extra steps, the default: no setting of "
			 "this machine's verdict (%.300s, clock at %s) is within %.0f points of "
			 "unbiased (best: %d, bias %s)", d->steps, v->path, e->interval,
			 VERDICT_MAX_POINTS, best->steps, b);
		return;
	}
	shares(s, b, sizeof(b));
	d->steps = s->steps;
	d->export = 1;
	d->from = "verdict";
	/* the caveat where it lowers the default: a trial of 2026-11-28 read miniBUDE's two
	 * arrays, loaded 4 times each an iteration, at 16.6% and 1.1% with 2 steps, 39.3% and
	 * 15.9% with 8, 22.5% and 20.6% with 32 (doc/sonde-mem-history.md, "Limits") */
	snprintf(d->note, sizeof(d->note), "%d extra steps: the cheapest within %.0f points of "
		 "unbiased on this machine's Bias-Bench (bias %s at clock %s; verdict of %s, %.300s)"
		 "%s", s->steps, VERDICT_MAX_POINTS, b, e->interval,
		 e->date[0] ? e->date : "unknown date", v->path, s->steps < VERDICT_DEFAULT_STEPS ?
		 "; a microbenchmark: real loops can read more biased at so few steps (to check: "
		 "SONDE_EXTRA_STEPS=32, or --source inst on a sonde-cc build)" : "");
}

int verdict_debias(const char *source, uint64_t period, struct verdict_debias *d)
{
	static struct verdict v;
	char path[PATH_MAX], err[PATH_MAX + 128] = "";
	const char *user = getenv("SONDE_EXTRA_STEPS");
	memset(d, 0, sizeof(*d));
	if (strcmp(source, "clock") && strcmp(source, "auto"))
		return -ENOENT;
	d->steps = VERDICT_DEFAULT_STEPS;
	d->from = "default";
	if (user && *user) {
		d->steps = atoi(user);
		d->from = "user";
		snprintf(d->note, sizeof(d->note), "%d extra steps, set by the user "
			 "(SONDE_EXTRA_STEPS=%.32s)", d->steps, user);
		return 0;
	}
	if (verdict_path(path, sizeof(path)) < 0) {
		snprintf(d->note, sizeof(d->note), "no verdict ($HOME is not set): default %d "
			 "extra steps; run sonde bench", d->steps);
		return 0;
	}
	int r = verdict_read(path, &v, err, sizeof(err));
	const struct verdict_entry *e = r ? NULL : verdict_clock_entry(&v, period);
	if (r == -ENOENT || (r < 0 && r != -EINVAL))
		snprintf(d->note, sizeof(d->note), "no verdict: default %d extra steps; run "
			 "sonde bench", d->steps);
	else if (r < 0)
		snprintf(d->note, sizeof(d->note), "no verdict (%.300s): default %d extra steps; run "
			 "sonde bench", err, d->steps);
	else if (!verdict_is_this_machine(&v))
		snprintf(d->note, sizeof(d->note), "no verdict for this machine (%.300s is from %.100s, "
			 "kernel %.60s): default %d extra steps; run sonde bench", path, v.cpu,
			 v.kernel, d->steps);
	else if (!e)
		snprintf(d->note, sizeof(d->note), "no verdict for clock in %.300s: default %d extra "
			 "steps; run sonde bench -s clock", path, d->steps);
	else
		from_verdict(&v, e, d);
	return 0;
}

int verdict_debias_save(const char *dir, const struct verdict_debias *d)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/" VERDICT_LAUNCH_FILE, dir);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "extra_steps=%d\nextra_steps_from=%s\nextra_steps_note=%s\n", d->steps,
		d->from, d->note);
	if (fclose(f) || rename(tmp, path)) {
		int e = -errno;
		unlink(tmp);
		return e;
	}
	return 0;
}
