/* SPDX-License-Identifier: MIT */
/*
 * cmd.c - `sonde bench`: how good is each sample source on this machine.  Runs the thesis's
 * microbenchmarks (ch. 4, App. A; src/tools/bench/micro/) natively and under `sonde mem`
 * (this very binary, so the runtime and the recording are the ones the tools use, untouched),
 * interleaved, several times, and turns their reports and profile.db into figures
 * (measure.c) and a verdict per source.  Manual: doc/sonde-bench.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/verdict.h"
#include "prof/tool.h"
#include "tools/bench/bench.h"
#include "ui/csv.h"
#include "ui/json.h"
#include "ui/text.h"

#define MAX_RUNS 50
#define MAX_ROWS 4096
#define MAX_CONFIGS 16

/* The suite.  Iterations: `time` for sources that sample the running program (about 70 ms
 * of CPU each natively, so the default suite stays short on a loaded machine), `count` for
 * inst, whose every access calls into the runtime. */
struct bench_def {
	const char *name;	/* row name */
	const char *prog_arg;	/* bench-micro's argument */
	long iters_time, iters_count;
	int steps;		/* clock only, with this SONDE_EXTRA_STEPS (1: no extra step);
				 * 0: every source, clock with the setting measured (--extra-steps) */
};

static const struct bench_def suite[] = {
	{ "load-ratio", "load-ratio", 200000000, 5000, 0 },
	{ "locked-load", "locked-load", 10000000, 5000, 0 },
	{ "bias", "bias", 200000000, 5000, 0 },
	/* Bias-Bench over clock's de-biasing settings: the tools take the cheapest one within
	 * 10 points of unbiased (cmd/verdict.h) */
	{ "bias-no-steps", "bias", 200000000, 0, 1 },
	{ "bias-steps-2", "bias", 200000000, 0, 2 },
	{ "bias-steps-4", "bias", 200000000, 0, 4 },
	{ "multi-event", "multi-event", 9000000, 5000, 0 },
	{ "exec-user", "exec-user", 70000, 5000, 0 },
};
#define NBENCH ((int)(sizeof(suite) / sizeof(suite[0])))

struct config {
	const char *source;
	uint64_t interval;
	int time_unit;
	char name[32];		/* "0.9 ms" */
	char skip[256];		/* non-empty: not run, why */
};


struct bench_state {
	char dir[PATH_MAX];	/* DIR/bench */
	char runs_dir[PATH_MAX + 8];
	char sonde[PATH_MAX], bin_dir[PATH_MAX];
	int runs, keep, json, tmp_dir;
	const char *extra_steps;	/* SONDE_EXTRA_STEPS for the de-biased clock runs */
	struct bench_row *rows;
	int nrows;
	int step, nsteps;
	double t0;
	char verdict[MAX_CONFIGS + 1][512];
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sonde bench [options]\n\n"
		"Measures each sample source this machine has (hw, clock, inst) on the microbenchmarks\n"
		"of the PEBS/IBS study: Load-Ratio and Locked-Load (count accuracy), Bias-Bench (share\n"
		"of samples on four identical loads, 25%% each is unbiased), Multi-Event (loads,\n"
		"stores and locked read-modify-writes in one run) and a user-mode Exec-Mode (a\n"
		"system call per iteration).  Each benchmark runs natively and under 'sonde mem',\n"
		"interleaved, several times: accuracy, its standard error, bias, time and memory\n"
		"ratios, then a verdict per source.  Progress goes to stderr.\n\n"
		"The figures are saved as this machine's verdict in $SONDE_VERDICT, else\n"
		"${XDG_CACHE_HOME:-~/.cache}/sonde/bench-<host>.csv: 'sonde mem' and 'sonde comm'\n"
		"take from it the clock source's de-biasing setting (the fewest extra steps whose\n"
		"Bias-Bench shares are all within 10 points of 25%%), unless SONDE_EXTRA_STEPS is\n"
		"set; 'sonde info' shows it.\n\n"
		"Options:\n"
		"  -s, --source LIST     hw,clock,inst (default: all; missing ones are reported SKIP)\n"
		"  -i, --interval LIST   sampling intervals, e.g. 1ms,100us (clock) or 1,1000 (inst:\n"
		"                        1 = every access); default: each source's default\n"
		"  -r, --runs N          runs per benchmark and interval (default 3, at most %d)\n"
		"  -o, --output DIR      write DIR/bench/results.csv (and keep nothing else)\n"
		"      --keep            keep every run's recording in DIR/bench/runs/\n"
		"      --extra-steps N   clock's de-biasing setting to measure (default: the\n"
		"                        runtime's, or $SONDE_EXTRA_STEPS)\n"
		"      --json            the figures and verdicts as JSON on stdout\n"
		"      --html FILE       also write the suite as one HTML page (verdicts, Bias-Bench\n"
		"                        bars, accuracy against the interval, every figure)\n"
		"  -h, --help            this text\n\n"
		"The benchmarks are looked for beside this sonde (build/bench/), in PREFIX/lib/sonde/bench/\n"
		"when installed, or in $SONDE_BENCH_DIR.\n"
		"Manual: man sonde-bench (doc/sonde-bench.md).\n", MAX_RUNS);
}

static int mkdir_p(const char *dir);

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct bench_row *add_row(struct bench_state *s, const struct config *c, const char *bench,
			   const char *measure, double value, const char *text)
{
	if (s->nrows == MAX_ROWS)
		return NULL;
	struct bench_row *r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	r->source = c ? c->source : "*";
	snprintf(r->interval, sizeof(r->interval), "%s", c ? c->name : "");
	r->bench = bench;
	snprintf(r->measure, sizeof(r->measure), "%s", measure);
	r->value = value;
	snprintf(r->text, sizeof(r->text), "%s", text ? text : "");
	return r;
}

static const struct bench_row *find_row(const struct bench_state *s, const struct config *c,
				  const char *bench, const char *measure)
{
	for (int i = 0; i < s->nrows; i++) {
		const struct bench_row *r = &s->rows[i];
		if (!strcmp(r->source, c->source) && !strcmp(r->interval, c->name) &&
		    !strcmp(r->bench, bench) && !strcmp(r->measure, measure) && !r->text[0])
			return r;
	}
	return NULL;
}

static double row_value(const struct bench_state *s, const struct config *c, const char *bench,
			const char *measure)
{
	const struct bench_row *r = find_row(s, c, bench, measure);
	return r ? r->value : NAN;
}

static void progress(struct bench_state *s, const struct config *c, const char *bench, int run)
{
	if (isatty(2))
		fprintf(stderr, "\rsonde bench: [%d/%d] %s %s %s run %d/%d (%.0f s)   ", s->step,
			s->nsteps, c->source, c->name, bench, run, s->runs, now_s() - s->t0);
	else if (run == 1)
		fprintf(stderr, "sonde bench: [%d/%d] %s %s %s (%d runs, %.0f s so far)\n", s->step,
			s->nsteps, c->source, c->name, bench, s->runs, now_s() - s->t0);
}

/* Run argv with stdout into out (and stderr into err), with SONDE_EXTRA_STEPS=steps if set.
 * Returns the wait status, or -errno. */
static int run_prog(char **argv, const char *out, const char *err, const char *steps)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int fi = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fo < 0 || fe < 0 || fi < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 ||
		    dup2(fi, 0) < 0)
			_exit(127);
		if (steps)
			setenv("SONDE_EXTRA_STEPS", steps, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The first line of a file, for error messages. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	buf[0] = 0;
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

struct obs {		/* one benchmark, all runs, under one source and interval */
	int n;
	double acc[MAX_RUNS], src_cpu[MAX_RUNS], nat_cpu[MAX_RUNS], src_rss[MAX_RUNS],
		nat_rss[MAX_RUNS], acc_cpu[MAX_RUNS], kacc[BENCH_KINDS][MAX_RUNS], stime_share[MAX_RUNS],
		samples[MAX_RUNS];
	double site[BENCH_MAX_SITES];	/* pooled over runs */
	struct bench_prog prog;
	char real_source[16];
};

/* One native run and one recorded run of b.  0, or -1 with the reason in err. */
static int run_pair(struct bench_state *s, const struct config *c, const struct bench_def *b,
		    int run, struct obs *o, char *err, size_t errlen)
{
	char bin[PATH_MAX + 32], iters[32], period[32], rec[PATH_MAX], out[PATH_MAX + 32],
		errf[PATH_MAX + 32];
	int inst = !strcmp(c->source, "inst");
	const char *steps = NULL;
	char fixed[16];
	snprintf(fixed, sizeof(fixed), "%d", b->steps);
	if (!strcmp(c->source, "clock"))
		steps = b->steps ? fixed : s->extra_steps;
	snprintf(bin, sizeof(bin), "%s/%s", s->bin_dir, inst ? "bench-micro-inst" : "bench-micro");
	snprintf(iters, sizeof(iters), "%ld", inst ? b->iters_count : b->iters_time);
	snprintf(period, sizeof(period), "%llu", (unsigned long long)c->interval);
	snprintf(rec, sizeof(rec), "%.3900s/%s-%llu-%s-%d", s->runs_dir, c->source,
		 (unsigned long long)c->interval, b->name, run);
	struct bench_prog nat, src;
	FILE *f;

	/* Native. */
	char *nargv[] = { bin, (char *)b->prog_arg, iters, NULL };
	snprintf(out, sizeof(out), "%s.native.out", rec);
	snprintf(errf, sizeof(errf), "%s.native.err", rec);
	int st = run_prog(nargv, out, errf, NULL);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || !(f = fopen(out, "r"))) {
		first_line(errf, err, errlen);
		if (!err[0])
			snprintf(err, errlen, "%.300s did not run (status %d)", bin, st);
		return -1;
	}
	int r = bench_prog_parse(f, &nat);
	fclose(f);
	if (r < 0) {
		snprintf(err, errlen, "%.300s printed no complete report", bin);
		return -1;
	}

	/* Under sonde mem. */
	char *sargv[] = { s->sonde, "mem", "-q", "--force", "-o", rec, "-s", (char *)c->source,
			  "-p", period, "--", bin, (char *)b->prog_arg, iters, NULL };
	snprintf(out, sizeof(out), "%s.out", rec);
	snprintf(errf, sizeof(errf), "%s.err", rec);
	st = run_prog(sargv, out, errf, steps);
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || !(f = fopen(out, "r"))) {
		first_line(errf, err, errlen);
		if (!err[0])
			snprintf(err, errlen, "sonde mem did not run (status %d)", st);
		return -1;
	}
	r = bench_prog_parse(f, &src);
	fclose(f);
	if (r < 0) {
		snprintf(err, errlen, "%.300s printed no complete report under sonde mem", bin);
		return -1;
	}
	char db[PATH_MAX + 96];
	struct bench_db d;
	snprintf(db, sizeof(db), "%s/profile.db", rec);
	if (bench_db_read(db, &src, &d, err, errlen) < 0)
		return -1;
	if (!s->keep) {
		rm_tree(rec);
		snprintf(out, sizeof(out), "%s.out", rec), unlink(out);
		snprintf(out, sizeof(out), "%s.err", rec), unlink(out);
		snprintf(out, sizeof(out), "%s.native.out", rec), unlink(out);
		snprintf(out, sizeof(out), "%s.native.err", rec), unlink(out);
	}

	int i = o->n++;
	o->prog = src;
	snprintf(o->real_source, sizeof(o->real_source), "%s", d.source);
	o->acc[i] = bench_accuracy(&src, &d);
	o->acc_cpu[i] = bench_accuracy_cpu(&d);
	o->samples[i] = d.samples;
	o->src_cpu[i] = (double)src.cpu_ns, o->nat_cpu[i] = (double)nat.cpu_ns;
	o->src_rss[i] = (double)src.maxrss_kb, o->nat_rss[i] = (double)nat.maxrss_kb;
	for (int k = 0; k < BENCH_KINDS; k++)
		o->kacc[k][i] = bench_kind_accuracy(&src, &d, k);
	double ut = (double)src.utime_ns + (double)src.stime_ns;
	o->stime_share[i] = ut > 0 ? (double)src.stime_ns / ut : NAN;
	for (int j = 0; j < src.nsites; j++)
		o->site[j] += d.site[j];
	return 0;
}

static double pooled_share(const struct obs *o, int j)
{
	struct bench_db d = { 0 };
	memcpy(d.site, o->site, sizeof(d.site));
	return bench_site_share(&d, o->prog.nsites, j);
}

static double min_of(const double *v, int n)
{
	double m = NAN;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]) && (isnan(m) || v[i] < m))
			m = v[i];
	return m;
}

/* The figures of one benchmark into rows. */
static void bench_rows(struct bench_state *s, const struct config *c, const struct bench_def *b,
		       const struct obs *o)
{
	add_row(s, c, b->name, "accuracy", bench_mean(o->acc, o->n), NULL);
	add_row(s, c, b->name, "stderr", bench_stderr(o->acc, o->n), NULL);
	add_row(s, c, b->name, "samples", bench_mean(o->samples, o->n), NULL);
	if (c->time_unit)
		add_row(s, c, b->name, "accuracy_cpu", bench_mean(o->acc_cpu, o->n), NULL);
	/* Noise on a loaded machine (other processes, steal time counted as ours) only ever
	 * adds CPU time: the least disturbed run of each side is the steadiest estimate. */
	add_row(s, c, b->name, "time_ratio", min_of(o->src_cpu, o->n) / min_of(o->nat_cpu, o->n),
		NULL);
	add_row(s, c, b->name, "time_ratio_median",
		bench_median(o->src_cpu, o->n) / bench_median(o->nat_cpu, o->n), NULL);
	add_row(s, c, b->name, "memory_ratio",
		bench_median(o->src_rss, o->n) / bench_median(o->nat_rss, o->n), NULL);
	if (!strcmp(b->prog_arg, "bias")) {
		for (int j = 0; j < o->prog.nsites && j < 4; j++) {
			char m[16];
			snprintf(m, sizeof(m), "bias%d", j + 1);
			add_row(s, c, b->name, m, pooled_share(o, j), NULL);
		}
		if (!strcmp(c->source, "clock"))
			add_row(s, c, b->name, "extra_steps",
				b->steps ? b->steps : atof(s->extra_steps), NULL);
	} else if (!strcmp(b->name, "multi-event")) {
		static const char *const names[] = { "accuracy_load", "accuracy_store",
						     "accuracy_rmw" };
		for (int k = 0; k < BENCH_KINDS; k++)
			add_row(s, c, b->name, names[k], bench_mean(o->kacc[k], o->n), NULL);
	} else if (!strcmp(b->name, "exec-user")) {
		add_row(s, c, b->name, "after_share", pooled_share(o, 0), NULL);
		add_row(s, c, b->name, "kernel_cpu_share", bench_mean(o->stime_share, o->n), NULL);
	}
}

/* Not run: the clock-only settings under other sources, and a setting that --extra-steps
 * already measures as `bias`. */
static int skip_bench(const struct bench_state *s, const struct config *c,
		      const struct bench_def *b)
{
	return b->steps && (strcmp(c->source, "clock") || b->steps == atoi(s->extra_steps));
}

static void run_config(struct bench_state *s, const struct config *c)
{
	for (int bi = 0; bi < NBENCH; bi++) {
		const struct bench_def *b = &suite[bi];
		if (skip_bench(s, c, b))
			continue;
		s->step++;
		static struct obs o;
		char err[512] = "";
		memset(&o, 0, sizeof(o));
		for (int run = 1; run <= s->runs; run++) {
			progress(s, c, b->name, run);
			if (run_pair(s, c, b, run, &o, err, sizeof(err)) < 0)
				break;
		}
		if (err[0]) {
			add_row(s, c, b->name, "error", NAN, err);
			continue;
		}
		if (strcmp(o.real_source, c->source)) {
			char why[200];
			snprintf(why, sizeof(why), "sonde mem used the %s source instead",
				 o.real_source);
			add_row(s, c, b->name, "error", NAN, why);
			continue;
		}
		bench_rows(s, c, b, &o);
	}
	add_row(s, c, "exec-mode", "skip", NAN,
		"the kernel-mode Exec-Mode needs a kernel module doing a locked add per ioctl; sonde "
		"ships none (exec-user is the user-mode variant)");
}

/* "31/24/23/22" */
static void bias_words(const struct bench_state *s, const struct config *c, const char *bench,
		       char *buf, size_t len, double *worst)
{
	double v[4];
	*worst = 0;
	for (int j = 0; j < 4; j++) {
		char m[8];
		snprintf(m, sizeof(m), "bias%d", j + 1);
		v[j] = row_value(s, c, bench, m);
		if (isnan(v[j]) || fabs(v[j] - 0.25) > *worst)
			*worst = isnan(v[j]) ? INFINITY : fabs(v[j] - 0.25);
	}
	snprintf(buf, len, "%.0f/%.0f/%.0f/%.0f", v[0] * 100, v[1] * 100, v[2] * 100, v[3] * 100);
}

/* clock: the de-biasing setting the tools will take from these figures (the rule is
 * verdict_choose's), 0 if none is within VERDICT_MAX_POINTS of unbiased. */
static int steps_choice(const struct bench_state *s, const struct config *c)
{
	static struct verdict v;
	memset(&v, 0, sizeof(v));
	for (int i = 0; i < s->nrows; i++) {
		const struct bench_row *r = &s->rows[i];
		char val[64];
		if (strcmp(r->source, c->source) || strcmp(r->interval, c->name) || r->text[0])
			continue;
		snprintf(val, sizeof(val), "%.6f", r->value);
		char *f[5] = { (char *)r->source, (char *)r->interval, (char *)r->bench, 
			       (char *)r->measure, val };
		verdict_add(&v, f);
	}
	verdict_finish(&v);
	const struct verdict_setting *set = v.n ? verdict_choose(&v.e[0]) : NULL;
	return set ? set->steps : 0;
}

static void verdict(struct bench_state *s, const struct config *c, char *buf, size_t len)
{
	if (c->skip[0]) {
		snprintf(buf, len, "%s: SKIP: %s", c->source, c->skip);
		return;
	}
	double acc = row_value(s, c, "load-ratio", "accuracy");
	/* Time and memory: the median over the load/store benchmarks (exec-user spends its time
	 * in the kernel), steadier on a loaded machine than any one of them. */
	static const char *const ldst[] = { "load-ratio", "locked-load", "bias", "multi-event" };
	double tv[4], mv[4];
	for (int i = 0; i < 4; i++) {
		tv[i] = row_value(s, c, ldst[i], "time_ratio");
		mv[i] = row_value(s, c, ldst[i], "memory_ratio");
	}
	double t = bench_median(tv, 4), mem = bench_median(mv, 4);
	double rmw = row_value(s, c, "locked-load", "accuracy");
	double worst, worst0 = NAN;
	char bias[64], bias0[64] = "", steps[200] = "", problems[256] = "";
	bias_words(s, c, "bias", bias, sizeof(bias), &worst);
	if (!strcmp(c->source, "clock")) {
		bias_words(s, c, "bias-no-steps", bias0, sizeof(bias0), &worst0);
		int choice = steps_choice(s, c);
		char ch[64] = "none";
		if (choice)
			snprintf(ch, sizeof(ch), "%d extra steps", choice);
		snprintf(steps, sizeof(steps), " with %s extra steps (without: %s; the tools' "
			 "setting, cheapest within %.0f points of 25%%: %s)", s->extra_steps, bias0,
			 VERDICT_MAX_POINTS, ch);
		add_row(s, c, "*", "extra_steps_choice", choice ? choice : NAN,
			choice ? NULL : "none within 10 points of unbiased");
	}
	if (isnan(acc) && isnan(t)) {
		snprintf(buf, len, "%s at %s: no figures (see the errors)", c->source, c->name);
		return;
	}
	/* no accuracy where under BENCH_MIN_EXPECTED samples were expected (a long interval):
	 * said so, the other figures kept (the review of 2026-11-28: "no figures (see the
	 * errors)" with no error) */
	char accw[64];
	size_t n = 0;
	if (isnan(acc)) {
		snprintf(accw, sizeof(accw), "- (under %.0f samples expected)", BENCH_MIN_EXPECTED);
		n += (size_t)snprintf(problems + n, sizeof(problems) - n, ", too few samples to "
				      "tell its accuracy: a shorter interval");
	} else {
		snprintf(accw, sizeof(accw), "%.1f%%", fabs(acc - 1) * 100);
	}
	if (fabs(acc - 1) > 0.10)
		n += (size_t)snprintf(problems + n, sizeof(problems) - n, ", counts off by %.0f%%",
				      fabs(acc - 1) * 100);
	if (!(worst <= 0.10))
		n += (size_t)snprintf(problems + n, sizeof(problems) - n, ", biased");
	if (!(t <= 1.5))
		n += (size_t)snprintf(problems + n, sizeof(problems) - n, ", slow");
	if (!isnan(rmw) && rmw < 0.5)
		n += (size_t)snprintf(problems + n, sizeof(problems) - n,
				      ", misses locked read-modify-writes");
	const char *use = !problems[0] ? "fine for mem and comm" :
			  !strcmp(c->source, "inst") && fabs(acc - 1) <= 0.001 && worst <= 0.10 ?
			  "exact counts for short runs and tests" : "use with care";
	snprintf(buf, len, "%s at %s: count accuracy %s, bias %s%s, %.2fx time, %.2fx memory "
		 "-- %s%s%s", c->source, c->name, accw, bias, steps, t, mem, use,
		 problems[0] ? " (" : "", problems[0] ? problems + 2 : "");
	if (problems[0])
		snprintf(buf + strlen(buf), len - strlen(buf), ")");
}

static void fmt_value(const struct bench_row *r, char *buf, size_t len)
{
	if (r->text[0])
		snprintf(buf, len, "%s", r->text);
	else if (isnan(r->value))
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%.4f", r->value);
}

/* The header and the rows that say whose figures these are (cmd/verdict.h). */
static void write_head(FILE *f)
{
	char cpu[128], kernel[128], host[128] = "";
	verdict_machine(cpu, sizeof(cpu), kernel, sizeof(kernel));
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "source,interval,benchmark,measure,value\n");
	const char *rows[][2] = { { "cpu", cpu }, { "kernel", kernel }, { "host", host } };
	for (int i = 0; i < 3; i++) {
		const char *cells[] = { "*", "", "machine", rows[i][0], rows[i][1] };
		csv_row(f, 5, cells);
	}
}

static void write_row(FILE *f, const struct bench_row *r)
{
	char v[300];
	fmt_value(r, v, sizeof(v));
	const char *cells[] = { r->source, r->interval, r->bench, r->measure, v };
	csv_row(f, 5, cells);
}

static int write_csv(const struct bench_state *s, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	write_head(f);
	for (int i = 0; i < s->nrows; i++)
		write_row(f, &s->rows[i]);
	return fclose(f) ? -errno : 0;
}

/* Was source measured now (some interval not skipped)? */
static int measured(const struct config *cs, int nc, const char *source)
{
	for (int i = 0; i < nc; i++)
		if (!strcmp(cs[i].source, source) && !cs[i].skip[0])
			return 1;
	return 0;
}

/* The source of a CSV line (its first field, never quoted here) into buf. */
static const char *line_source(const char *line, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(line, ",\n"), line);
	return buf;
}

/*
 * This run's figures into the verdict file (cmd/verdict.h), replacing it whole (a temporary
 * file renamed over it).  A source measured now replaces its old rows; a source skipped
 * now keeps the old file's rows, when that file is this machine's.  0 or -errno.
 */
static int save_verdict(const struct bench_state *s, const struct config *cs, int nc,
			const char *path)
{
	static struct verdict old;
	char err[256], tmp[PATH_MAX + 32], dir[PATH_MAX], line[2048], src[32];
	int keep = verdict_read(path, &old, err, sizeof(err)) == 0 && verdict_is_this_machine(&old);
	snprintf(dir, sizeof(dir), "%s", path);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	int r = strchr(path, '/') ? mkdir_p(dir) : 0;
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	FILE *f = fopen(tmp, "we"), *in = keep ? fopen(path, "re") : NULL;
	if (!f) {
		r = -errno;
		if (in)
			fclose(in);
		return r;
	}
	write_head(f);
	for (int i = 0; i < s->nrows; i++) {
		const struct bench_row *rw = &s->rows[i];
		int old_has = 0;
		for (int k = 0; keep && k < old.n; k++)
			old_has |= !strcmp(old.e[k].source, rw->source);
		if (measured(cs, nc, rw->source) || !old_has)
			write_row(f, rw);
	}
	while (in && fgets(line, sizeof(line), in)) {
		line_source(line, src, sizeof(src));
		if (strcmp(src, "source") && strcmp(src, "*") && !measured(cs, nc, src))
			fputs(line, f);
	}
	if (in)
		fclose(in);
	r = ferror(f) ? -EIO : 0;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

static void print_json(const struct bench_state *s, const struct config *cs, int nc, double secs,
		       const char *load, const char *vpath)
{
	struct json j;
	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_int(&j, "runs", s->runs);
	json_str(&j, "extra_steps", s->extra_steps);
	json_double(&j, "seconds", secs, 1);
	json_str(&j, "loadavg", load);
	json_str(&j, "verdict_file", vpath[0] ? vpath : NULL);
	json_begin_array(&j, "sources");
	for (int i = 0; i < nc; i++) {
		const struct config *c = &cs[i];
		json_begin_object(&j, NULL);
		json_str(&j, "source", c->source);
		json_str(&j, "interval", c->skip[0] ? NULL : c->name);
		json_str(&j, "status", c->skip[0] ? "skip" : "ok");
		if (c->skip[0])
			json_str(&j, "reason", c->skip);
		json_str(&j, "verdict", s->verdict[i]);
		json_begin_array(&j, "figures");
		for (int k = 0; k < s->nrows; k++) {
			const struct bench_row *r = &s->rows[k];
			if (strcmp(r->source, c->source) || strcmp(r->interval, c->name))
				continue;
			json_begin_object(&j, NULL);
			json_str(&j, "benchmark", r->bench);
			json_str(&j, "measure", r->measure);
			if (r->text[0])
				json_str(&j, "value", r->text);
			else
				json_double(&j, "value", r->value, 4);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}

static void print_text(const struct bench_state *s, const struct config *cs, int nc, double secs,
		       const char *load)
{
	static const char *const head[] = { "source", "interval", "benchmark", "accuracy",
					    "stderr", "bias (%)", "time", "memory" };
	struct text_table *t = text_table_new(8, head, "lllrrlrr");
	for (int i = 0; t && i < s->nrows; i++) {
		const struct bench_row *r = &s->rows[i];
		char a[32], e[32], b[64] = "", tm[32], m[32];
		if (strcmp(r->measure, "accuracy"))
			continue;
		const struct config *c = NULL;
		for (int k = 0; k < nc; k++)
			if (!strcmp(cs[k].source, r->source) && !strcmp(cs[k].name, r->interval))
				c = &cs[k];
		double worst;
		if (!strncmp(r->bench, "bias", 4))
			bias_words(s, c, r->bench, b, sizeof(b), &worst);
		snprintf(a, sizeof(a), isfinite(r->value) ? "%.3f" : "-", r->value);
		/* one run has no spread: "-", not 0.000 (nor nan: the usability review of
		 * 2026-11-27, sonde bench -r 1) */
		double se = row_value(s, c, r->bench, "stderr");
		snprintf(e, sizeof(e), s->runs > 1 && isfinite(se) ? "%.3f" : "-", se);
		snprintf(tm, sizeof(tm), "%.2fx", row_value(s, c, r->bench, "time_ratio"));
		snprintf(m, sizeof(m), "%.2fx", row_value(s, c, r->bench, "memory_ratio"));
		const char *cells[] = { r->source, r->interval, r->bench, a, e, b, tm, m };
		text_table_add(t, cells);
	}
	if (t)
		text_table_print(t, stdout, "");
	text_table_free(t);
	for (int i = 0; i < s->nrows; i++)
		if (!strcmp(s->rows[i].measure, "error"))
			printf("error: %s %s %s: %s\n", s->rows[i].source, s->rows[i].interval,
			       s->rows[i].bench, s->rows[i].text);
	printf("\n");
	for (int i = 0; i < nc; i++)
		printf("%s\n", s->verdict[i]);
	printf("\n%d runs per benchmark in %.0f s, load average %s; time = least CPU time of the "
	       "loop over runs interleaved with native ones; clock accuracy = samples on the loop / (its user "
	       "CPU time / period); accuracy -: fewer than %.0f samples expected, too few to tell\n",
	       s->runs, secs, load, BENCH_MIN_EXPECTED);
}

/* Where the sources stand on this machine: skip reasons. */
static void source_skip(const struct bench_state *s, const char *src, char *why, size_t len)
{
	char p[PATH_MAX + 32];
	why[0] = 0;
	if (!strcmp(src, "hw")) {
		static const char *const pmus[] = { "cpu", "cpu_core", "ibs_op", "arm_spe_0" };
		int any = 0;
		for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
			snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s", pmus[i]);
			any |= access(p, F_OK) == 0;
		}
		if (!any)
			snprintf(why, len, "no PMU on this machine (/sys/bus/event_source/devices/cpu "
				 "is missing: a VM without a virtual PMU)");
	} else if (!strcmp(src, "inst")) {
		snprintf(p, sizeof(p), "%s/bench-micro-inst", s->bin_dir);
		if (access(p, X_OK))
			snprintf(why, len, "%.160s is missing (clang was not installed when sonde was "
				 "built)", p);
	} else {
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		int lvl = 0;
		if (f && fscanf(f, "%d", &lvl) != 1)
			lvl = 0;
		if (f)
			fclose(f);
		if (lvl > 2 && geteuid())
			snprintf(why, len, "perf_event_paranoid is %d: no cpu-clock sampling", lvl);
	}
}

static int parse_list(char *arg, char **items, int max)
{
	int n = 0;
	for (char *t = strtok(arg, ","); t; t = strtok(NULL, ","))
		if (n < max)
			items[n++] = t;
		else
			return -1;
	return n;
}

static int find_binaries(struct bench_state *s)
{
	ssize_t n = readlink("/proc/self/exe", s->sonde, sizeof(s->sonde) - 1);
	if (n <= 0)
		return -1;
	s->sonde[n] = 0;
	const char *env = getenv("SONDE_BENCH_DIR");
	if (env && *env) {
		snprintf(s->bin_dir, sizeof(s->bin_dir), "%s", env);
	} else {
		snprintf(s->bin_dir, sizeof(s->bin_dir), "%s", s->sonde);
		char *slash = strrchr(s->bin_dir, '/');
		if (slash)
			*slash = 0;
		size_t l = strlen(s->bin_dir);
		snprintf(s->bin_dir + l, sizeof(s->bin_dir) - l, "/bench");
	}
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/bench-micro", s->bin_dir);
	if (!access(p, X_OK) || (env && *env))
		return access(p, X_OK) ? -1 : 0;
	/* Installed: PREFIX/bin/sonde and PREFIX/lib/sonde/bench/ (build.mk, install-bench). */
	char inst[PATH_MAX];
	snprintf(inst, sizeof(inst), "%s", s->sonde);
	char *slash = strrchr(inst, '/');
	if (slash)
		*slash = 0;
	snprintf(p, sizeof(p), "%.4000s/../lib/sonde/bench/bench-micro", inst);
	if (access(p, X_OK))
		return -1;
	p[strlen(p) - strlen("/bench-micro")] = 0;
	snprintf(s->bin_dir, sizeof(s->bin_dir), "%s", p);
	return 0;
}

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	return mkdir(tmp, 0755) && errno != EEXIST ? -errno : 0;
}

static int cmd_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "runs", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "keep", no_argument, NULL, 1001 },
		{ "extra-steps", required_argument, NULL, 1002 },
		{ "json", no_argument, NULL, 1003 },
		{ "html", required_argument, NULL, 1004 },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct bench_state s;
	static char src_arg[256] = "hw,clock,inst", int_arg[256] = "";
	static char steps_buf[16];
	const char *out_dir = NULL, *html = NULL;
	int opt;
	memset(&s, 0, sizeof(s));
	s.runs = 3;
	s.extra_steps = getenv("SONDE_EXTRA_STEPS") && *getenv("SONDE_EXTRA_STEPS") ?
			getenv("SONDE_EXTRA_STEPS") : "8";
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+s:i:r:o:h", longopts, NULL)) != -1) {
		char *end;
		long v;
		switch (opt) {
		case 's':
			snprintf(src_arg, sizeof(src_arg), "%s", optarg);
			break;
		case 'i':
			snprintf(int_arg, sizeof(int_arg), "%s", optarg);
			break;
		case 'r':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > MAX_RUNS)
				return sonde_usage_error("bench", "--runs wants a number from 1 to %d, "
							 "not '%s'", MAX_RUNS, optarg);
			s.runs = (int)v;
			break;
		case 'o':
			out_dir = optarg;
			break;
		case 1001:
			s.keep = 1;
			break;
		case 1002:
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 1000)
				return sonde_usage_error("bench", "--extra-steps wants a number from 1 "
							 "to 1000, not '%s'", optarg);
			snprintf(steps_buf, sizeof(steps_buf), "%ld", v);
			s.extra_steps = steps_buf;
			break;
		case 1003:
			s.json = 1;
			break;
		case 1004:
			if (!*optarg)
				return sonde_usage_error("bench", "--html wants a file name");
			html = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return bad_option("bench", argv);
		}
	}
	if (optind < argc)
		return sonde_usage_error("bench", "unexpected argument '%s'", argv[optind]);

	char *srcs[8], *ints[8];
	int ns = parse_list(src_arg, srcs, 8), ni = int_arg[0] ? parse_list(int_arg, ints, 8) : 0;
	if (ns <= 0)
		return sonde_usage_error("bench", "--source wants hw, clock or inst");
	if (ni < 0)
		return sonde_usage_error("bench", "--interval takes at most 8 intervals");
	for (int i = 0; i < ns; i++)
		if (strcmp(srcs[i], "hw") && strcmp(srcs[i], "clock") && strcmp(srcs[i], "inst"))
			return sonde_usage_error("bench", "unknown source '%s' (hw, clock, inst)",
						 srcs[i]);
	uint64_t iv[8];
	int it[8];
	for (int i = 0; i < ni; i++)
		if (bench_parse_interval(ints[i], &iv[i], &it[i]) < 0)
			return sonde_usage_error("bench", "bad interval '%s' (e.g. 1ms, 100us, "
						 "900000, 1)", ints[i]);
	if (find_binaries(&s) < 0) {
		sonde_error("cannot find the microbenchmarks in %s (build them with 'make', or set "
			    "SONDE_BENCH_DIR)", s.bin_dir);
		return 1;
	}

	/* The configurations: sources x intervals. */
	static struct config cs[MAX_CONFIGS];
	int nc = 0;
	for (int i = 0; i < ns; i++) {
		char why[256];
		source_skip(&s, srcs[i], why, sizeof(why));
		int time_src = !strcmp(srcs[i], "clock");
		int k = ni ? ni : 1;
		for (int j = 0; j < k && nc < MAX_CONFIGS; j++) {
			struct config *c = &cs[nc];
			memset(c, 0, sizeof(*c));
			c->source = srcs[i];
			c->time_unit = time_src;
			c->interval = ni ? iv[j] : time_src ? 900000 : !strcmp(srcs[i], "inst") ?
				      1 : 100000;
			if (ni && it[j] && !time_src)
				snprintf(c->skip, sizeof(c->skip), "%s counts %s: a time interval "
					 "does not apply", c->source,
					 !strcmp(c->source, "inst") ? "accesses" : "events");
			/* A plain number for clock would be ns: "1000" meant for inst would make
			 * it sample every microsecond.  Ask for the unit instead. */
			if (ni && !it[j] && time_src)
				snprintf(c->skip, sizeof(c->skip), "clock samples by time: '%s' needs "
					 "a unit (e.g. 1ms, 100us)", ints[j]);
			if (why[0])
				snprintf(c->skip, sizeof(c->skip), "%s", why);
			if (c->skip[0])
				snprintf(c->name, sizeof(c->name), "%s", "");
			else
				bench_interval_name(c->name, sizeof(c->name), c->interval,
						    time_src);
			nc++;
			if (why[0])
				break;
		}
	}

	/* Where the runs go. */
	if (out_dir) {
		snprintf(s.dir, sizeof(s.dir), "%s/bench", out_dir);
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(s.dir, sizeof(s.dir), "%s/sonde-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(s.dir)) {
			sonde_error("cannot create a directory in %s: %s", tmp ? tmp : "/tmp",
				    strerror(errno));
			return 1;
		}
		s.tmp_dir = 1;
	}
	snprintf(s.runs_dir, sizeof(s.runs_dir), "%s/runs", s.dir);
	int r = mkdir_p(s.runs_dir);
	if (r < 0) {
		sonde_error("cannot create '%s': %s", s.runs_dir, strerror(-r));
		return 1;
	}
	s.rows = calloc(MAX_ROWS, sizeof(*s.rows));
	if (!s.rows) {
		sonde_error("out of memory");
		return 1;
	}

	char load[64] = "unknown";
	first_line("/proc/loadavg", load, sizeof(load));
	load[strcspn(load, " ")] = 0;
	s.t0 = now_s();
	for (int i = 0; i < nc; i++)
		for (int b = 0; b < NBENCH && !cs[i].skip[0]; b++)
			s.nsteps += !skip_bench(&s, &cs[i], &suite[b]);
	for (int i = 0; i < nc; i++) {
		if (cs[i].skip[0])
			add_row(&s, &cs[i], "*", "skip", NAN, cs[i].skip);
		else
			run_config(&s, &cs[i]);
	}
	double secs = now_s() - s.t0;
	if (isatty(2))
		fprintf(stderr, "\r%70s\r", "");
	fprintf(stderr, "sonde bench: done in %.0f s\n", secs);
	char date[40] = "";
	time_t now = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	for (int i = 0; i < nc; i++) {
		verdict(&s, &cs[i], s.verdict[i], sizeof(s.verdict[i]));
		const struct config *c = &cs[i];
		add_row(&s, c, "*", "verdict", NAN, s.verdict[i]);
		if (c->skip[0])
			continue;
		add_row(&s, c, "*", "period", (double)c->interval, NULL);
		add_row(&s, c, "*", "runs", s.runs, NULL);
		add_row(&s, c, "*", "date", NAN, date);
	}
	char vpath[PATH_MAX] = "";
	if (verdict_path(vpath, sizeof(vpath)) < 0) {
		sonde_warn("the verdict is not saved: neither SONDE_VERDICT, XDG_CACHE_HOME nor "
			   "HOME is set");
	} else if ((r = save_verdict(&s, cs, nc, vpath)) < 0) {
		sonde_warn("cannot save the verdict in '%s': %s", vpath, strerror(-r));
		vpath[0] = 0;
	} else {
		fprintf(stderr, "sonde bench: verdict saved in %s (sonde mem and comm take clock's "
			"de-biasing setting from it; sonde info shows it)\n", vpath);
	}
	/* The setting saved steers every later mem and comm run on clock: say when it rests on
	 * one or two runs or a busy machine (the usability review of 2026-11-28: `-r 1` at
	 * load 6.6 on 2 CPUs changed it silently).  The load is the one-minute average when
	 * the suite started. */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double la = atof(load);
	if (vpath[0] && (s.runs < 3 || (ncpu > 0 && la > (double)ncpu)))
		sonde_warn("this verdict rests on %d run(s) a benchmark at load %.1f on %ld CPU(s): "
			   "its de-biasing setting may be the noise's; rerun 'sonde bench' (3 runs or "
			   "more) on a quieter machine, or remove %s to go back to the default",
			   s.runs, la, ncpu, vpath);

	int status = 0;
	if (out_dir) {
		char csv[PATH_MAX + 32];
		snprintf(csv, sizeof(csv), "%s/results.csv", s.dir);
		if ((r = write_csv(&s, csv)) < 0) {
			sonde_error("cannot write '%s': %s", csv, strerror(-r));
			status = 1;
		}
		if (!s.keep)
			rmdir(s.runs_dir);
	} else {
		rm_tree(s.dir);
	}
	if (html) {
		char cpu[128], kernel[128], host[128] = "", herr[512];
		verdict_machine(cpu, sizeof(cpu), kernel, sizeof(kernel));
		gethostname(host, sizeof(host) - 1);
		struct bench_facts facts = { .cpu = cpu, .kernel = kernel, .host = host,
					     .date = date, .load = load, .verdict_file = vpath,
					     .runs = s.runs, .seconds = secs };
		if ((r = bench_html(s.rows, s.nrows, &facts, html, herr, sizeof(herr))) < 0) {
			sonde_error("%s", herr);
			status = 1;
		}
	}
	if (s.json)
		print_json(&s, cs, nc, secs, load, vpath);
	else
		print_text(&s, cs, nc, secs, load);
	for (int i = 0; i < s.nrows; i++)
		if (!strcmp(s.rows[i].measure, "error"))
			status = 1;
	free(s.rows);
	return status;
}

const struct tool tool_bench = {
	.name = "bench",
	.summary = "how accurate, biased and costly each sample source is on this machine",
	.cmd = cmd_bench,
};
