/* SPDX-License-Identifier: MIT */
/*
 * report.c - sonde vsensor report (events, terminal heat maps, HTML page) and
 * sonde vsensor score (precision and recall of the flagged cells against a known
 * injected slowdown).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "prof/file.h"
#include "tools/vsensor/judge.h"
#include "tools/vsensor/model.h"
#include "ui/csv.h"
#include "ui/html.h"
#include "prof/report.h"
#include "ui/json.h"
#include "ui/text.h"

/* A row of the runtime's events.csv: its sensors column, found by ranks, kind and start. */
struct ev_sensors {
	char key[96];			/* "ranks\x1fkind\x1fstart" */
	char sensors[256];
};

struct loaded {
	struct vs_matrix m;
	unsigned char *flag[VS_KINDS];
	struct vs_event *ev;
	int nev, cut;			/* cut: more events than VS_EVENTS_MAX */
	struct ev_sensors *es;		/* events.csv's rows, sorted by key */
	int nes;
};

/* A job that did not reach MPI_Finalize (a rank killed, the job aborted or timed out)
 * left its ranks' files but no matrices: judge it from them as rank 0 would have (the
 * default rule, as the runtime), write its files into dir and say so.  0 when the
 * matrices are now there; else what to say is left to the caller (-ENOENT: a run of
 * before 2026-11-28, with no rank-0.sensors; said here: cannot write). */
static int judge_files(const char *dir)
{
	struct vs_rule rule;
	vs_rule_default(&rule);
	struct vs_judged j;
	int err = vs_judge_files(dir, &rule, &j);
	if (err == -ENOENT)
		return err;
	if (err) {
		sonde_error("'%s': cannot judge the ranks' files: %s", dir,
			    err == VS_REC_BAD ? "rank-0.sensors is not one this sonde knows"
			    : file_strerror(err));
		return err;
	}
	if (j.write_err) {
		sonde_error("'%s': judged from the ranks' files, but cannot write the matrices there: "
			    "%s", dir, strerror(-j.write_err));
		return j.write_err;
	}
	char missing[200] = "";
	int o = 0;
	if (j.ranks_missing)
		o = snprintf(missing, sizeof(missing), "; %d rank%s recorded nothing",
			     j.ranks_missing, j.ranks_missing == 1 ? "" : "s");
	if (j.records_dropped && o >= 0 && (size_t)o < sizeof(missing))
		snprintf(missing + o, sizeof(missing) - o, "; %lld record%s of a slice past the "
			 "run's end left out (a damaged byte?)", j.records_dropped,
			 j.records_dropped == 1 ? "" : "s");
	fprintf(stderr, "sonde: vsensor: '%s': the job did not reach MPI_Finalize (a rank killed, the "
		"job aborted or timed out, or it is still running): judged now from its ranks' files, each up to its last "
		"write (at most about a second before it stopped): %lld records, %s%d variance "
		"event%s%s; the matrices are written there\n", dir, j.records,
		j.events_cut ? "the first " : "", j.events, j.events == 1 ? "" : "s", missing);
	return 0;
}

static void read_ev_sensors(const char *dir, struct loaded *l);

static int load(const char *dir, const struct vs_rule *rule, struct loaded *l)
{
	memset(l, 0, sizeof(*l));
	char path[4096];
	int err = vs_matrix_read(&l->m, dir, path, sizeof(path));
	if (err == -ENOENT && judge_files(dir) == 0)
		err = vs_matrix_read(&l->m, dir, path, sizeof(path));
	if (err == -ENOENT) {
		struct stat st;
		snprintf(path, sizeof(path), "%s/rank-0.rec", dir);
		if (stat(dir, &st))
			sonde_error("'%s': %s", dir, strerror(errno));
		else if (!stat(path, &st))	/* the ranks recorded; rank 0 never analysed */
			sonde_error("no matrix-*.csv in '%s': the job did not reach MPI_Finalize (a "
				    "rank killed, the job aborted) or could not analyse or write them "
				    "(its rank 0 said so); its raw records: sonde vsensor records %s", dir,
				    dir);
		else
			sonde_error("no matrix-*.csv in '%s' (not a vsensor directory?)", dir);
		return 1;
	}
	if (err == VS_NOT_MATRIX) {
		sonde_error("%s: not a vsensor matrix (no 'rank,...' header)", path);
		return 1;
	}
	if (err) {	/* what every offline reader says, e.g. "not a regular file" for a FIFO */
		sonde_error("%s: %s", path, file_strerror(err));
		return 1;
	}
	size_t n = (size_t)l->m.nranks * (l->m.nslices ? l->m.nslices : 1);
	for (int k = 0; k < VS_KINDS; k++) {
		l->flag[k] = calloc(n, 1);
		if (!l->flag[k]) {
			sonde_error("out of memory");
			return 1;
		}
	}
	vs_detect(&l->m, rule, l->flag);
	l->nev = vs_events_all(&l->m, l->flag, &l->ev, &l->cut);
	if (l->nev < 0) {
		sonde_error("out of memory");
		return 1;
	}
	read_ev_sensors(dir, l);
	return 0;
}

static void unload(struct loaded *l)
{
	for (int k = 0; k < VS_KINDS; k++)
		free(l->flag[k]);
	free(l->ev);
	free(l->es);
	vs_matrix_release(&l->m);
}

/*
 * --threshold T (a cell's performance, 0 < T <= 1) and --min-slices N (>= 1): 1 when
 * argv[*i] was one of them, 0 when not, -1 after a usage error for a missing or bad value
 * (atof/atoi took "abc" for 0, which silently flagged nothing).
 */
static int parse_rule(int argc, char **argv, int *i, struct vs_rule *rule)
{
	const char *a = argv[*i];
	if (strcmp(a, "--threshold") && strcmp(a, "--min-slices"))
		return 0;
	if (*i + 1 >= argc) {
		sonde_usage_error("vsensor", "%s needs a value", a);
		return -1;
	}
	const char *v = argv[++*i];
	char *end;
	errno = 0;
	if (!strcmp(a, "--threshold")) {
		double t = strtod(v, &end);
		if (errno || end == v || *end || !(t > 0 && t <= 1)) {
			sonde_usage_error("vsensor", "--threshold wants a number in (0, 1], not '%s'", v);
			return -1;
		}
		for (int k = 0; k < VS_KINDS; k++)
			rule->threshold[k] = t;
	} else {
		long n = strtol(v, &end, 10);
		if (errno || end == v || *end || n < 1 || n > 1000000) {
			sonde_usage_error("vsensor", "--min-slices wants a positive number, not '%s'", v);
			return -1;
		}
		rule->min_slices = (int)n;
	}
	return 1;
}

static int cmp_ev_sensors(const void *a, const void *b)
{
	return strcmp(((const struct ev_sensors *)a)->key, ((const struct ev_sensors *)b)->key);
}

static void ev_key(char *key, size_t len, const char *ranks, const char *kind, const char *start)
{
	snprintf(key, len, "%s\x1f%s\x1f%s", ranks, kind, start);
}

/* The runtime's events.csv, read once (each event looked it up again: quadratic in the
 * events, 91 s for 32,000 of them, the review of 2026-11-28), its sensors column unquoted
 * (a name with '"' read as what came before it).  None, or no memory: no sensors said. */
static void read_ev_sensors(const char *dir, struct loaded *l)
{
	char path[4096], line[1024];
	snprintf(path, sizeof(path), "%s/events.csv", dir);
	int r, cap = 0;
	FILE *f = file_fopen_regular(path, &r);	/* not a FIFO: the report would wait for ever */
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *fl[6];
		if (csv_split(line, fl, 6) != 6)
			continue;
		if (l->nes == cap) {
			int nc = cap ? 2 * cap : 64;
			struct ev_sensors *n = realloc(l->es, (size_t)nc * sizeof(*n));
			if (!n)
				break;
			l->es = n;
			cap = nc;
		}
		struct ev_sensors *e = &l->es[l->nes++];
		ev_key(e->key, sizeof(e->key), fl[0], fl[3], fl[1]);
		snprintf(e->sensors, sizeof(e->sensors), "%s", fl[5]);
	}
	fclose(f);
	if (l->nes)
		qsort(l->es, l->nes, sizeof(*l->es), cmp_ev_sensors);
}

/* The sensors column of the runtime's events.csv for the same ranks, kind and start. */
static void sensors_of(const struct loaded *l, const char *ranks, const char *kind,
		       const char *start, char *out, size_t len)
{
	struct ev_sensors k;
	ev_key(k.key, sizeof(k.key), ranks, kind, start);
	const struct ev_sensors *e = l->nes ? bsearch(&k, l->es, l->nes, sizeof(k), cmp_ev_sensors)
					    : NULL;
	snprintf(out, len, "%s", e ? e->sensors : "");
}

static void event_cells(const struct loaded *l, int i, char *ranks, char *start, char *end, char *sev)
{
	vs_event_cells(&l->m, &l->ev[i], ranks, start, end, sev);
}

static char shade(float v)
{
	if (isnan(v))
		return ' ';
	return v >= 0.9 ? '#' : v >= 0.7 ? '=' : v >= 0.5 ? '-' : '.';
}

/* A kind's map; *legend: 0 until a map said what its characters mean.  72 columns of
 * time at most: the report fits 80 (until 2026-11-29 100, rows of 107: the usability
 * review). */
#define VS_MAP_COLS 72
static void heat_map(const struct loaded *l, int k, FILE *f, int *legend)
{
	const struct vs_matrix *m = &l->m;
	int any = 0;
	for (size_t i = 0; i < (size_t)m->nranks * m->nslices; i++)
		any |= !isnan(m->v[k][i]);
	if (!any)
		return;
	int cols = m->nslices < VS_MAP_COLS ? m->nslices : VS_MAP_COLS;
	fprintf(f, "\n%s (rank x time, %.3g s per column)\n", vs_model_kind(k),
		m->slice_s * m->nslices / (cols ? cols : 1));
	if (!*legend)
		fprintf(f, "  # >=0.9  = >=0.7  - >=0.5  . <0.5 of the best speed;  * flagged\n");
	*legend = 1;
	for (int r = 0; r < m->nranks; r++) {
		fprintf(f, "%5d |", r);
		for (int c = 0; c < cols; c++) {
			int s0 = c * m->nslices / cols, s1 = (c + 1) * m->nslices / cols;
			float worst = NAN;
			int flagged = 0;
			for (int s = s0; s < s1; s++) {
				float v = m->v[k][(size_t)r * m->nslices + s];
				if (!isnan(v) && (isnan(worst) || v < worst))
					worst = v;
				flagged |= l->flag[k][(size_t)r * m->nslices + s];
			}
			fputc(flagged ? '*' : shade(worst), f);
		}
		fputs("|\n", f);
	}
}

/* A note of the report, wrapped at 80 columns (its next lines indented by two). */
__attribute__((format(printf, 2, 3))) static void say(FILE *f, const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	text_hang(f, "", "  ", b, 80);
}

/* The page: a header, the events, and each kind's rank x time matrix as a heat map (1.0
 * light, 0.5 and below dark; flagged cells outlined), on the shared report layer. */
static void event_notes(const struct loaded *l, const struct vs_rule *rule, FILE *f);

/* The median rank's share of the run its sensors timed, from DIR/coverage.csv (judge.c,
 * since 2026-11-28), and the lowest and highest; -1 where there is no such file. */
static int cmp_share(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double read_coverage(const char *dir, double *lo, double *hi)
{
	char path[4096], line[256];
	int err;
	snprintf(path, sizeof(path), "%s/coverage.csv", dir);
	FILE *f = file_fopen_regular(path, &err);
	double *v = NULL, x, med = -1;
	size_t n = 0, cap = 0;
	*lo = *hi = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d,%*f,%*f,%lf", &x) == 1 && x >= 0) {
			if (n == cap) {
				double *w = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
				if (!w)
					break;
				v = w;
			}
			v[n++] = x;
		}
	fclose(f);
	if (n) {
		qsort(v, n, sizeof(*v), cmp_share);
		*lo = v[0];
		*hi = v[n - 1];
		med = v[n / 2];
	}
	free(v);
	return med;
}

/* Under this share of the run timed by sensors, the report says the matrices speak for
 * little of it. */
#define VS_COVERAGE_LOW 0.2

static void coverage_note(const char *dir, FILE *f)
{
	double lo, hi, med = read_coverage(dir, &lo, &hi);
	if (med < 0)
		return;
	char b[512];
	int n = snprintf(b, sizeof(b), "sensors timed %.1f%% of the run (the median rank; "
			 "%.1f-%.1f%%: coverage.csv)", 100 * med, 100 * lo, 100 * hi);
	if (med < VS_COVERAGE_LOW && n > 0 && (size_t)n < sizeof(b))
		snprintf(b + n, sizeof(b) - n, ": too little to speak for the run: a slowdown "
			 "outside them goes unseen, and compute cells where none ran are the CPU "
			 "share alone; 'sonde vsensor list FILE.c' says why loops were not taken");
	text_hang(f, "", "  ", b, 80);
}

/*
 * The sensors the runtime switched off as too short, by kind (sensors.csv's switched_off,
 * the rows of real sensors, not "(cpu share)"): a kind whose sensors all are is judged
 * without them: compute's cells are the CPU share alone (the usability review of
 * 2026-11-29: both of a stencil's compute loops switched off after 1000 senses, and the
 * report showed a full compute map and "no variance events" without a word).
 */
static void switched_note(const char *dir, FILE *out)
{
	char path[4096], line[1024], *fl[8];
	int err, off[VS_KINDS] = { 0 }, all[VS_KINDS] = { 0 };
	snprintf(path, sizeof(path), "%s/sensors.csv", dir);
	FILE *f = file_fopen_regular(path, &err);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (csv_split(line, fl, 8) == 7 && fl[1][0] != '(' && strcmp(fl[0], "rank"))
			for (int k = 0; k < VS_KINDS; k++)
				if (!strcmp(fl[2], vs_model_kind(k))) {
					all[k]++;
					off[k] += !strcmp(fl[6], "yes");
				}
	fclose(f);
	for (int k = 0; k < VS_KINDS; k++)
		if (off[k])
			say(out, "%s: %d of %d sensor timings (sensor x rank) switched off as too "
			    "short (half or more of its first %d senses under %d us, or all its "
			    "senses' mean where it had fewer; sensors.csv)%s",
			    vs_model_kind(k), off[k], all[k], VS_SHORT_AFTER, VS_SHORT_NS / 1000,
			    off[k] < all[k] ? "" : k == 0 ? ": the compute cells are the CPU share "
			    "alone, and a core slower at its full share does not show" :
			    ": this kind is not judged");
}

/* DIR/silent.csv's stretches (judge.c, write_silences; since 2026-11-29), each through fn
 * with its rank, start and seconds; how many there are (-1 where there is no file: a
 * directory judged before). */
static int read_silences(const char *dir, void (*fn)(void *arg, int rank, double start_s,
						      double secs), void *arg)
{
	char path[4096], line[256];
	int err, n = 0, q;
	double a, b, w;
	snprintf(path, sizeof(path), "%s/silent.csv", dir);
	FILE *f = file_fopen_regular(path, &err);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d,%lf,%lf,%lf", &q, &a, &b, &w) == 4 && q >= 0 && w > 0) {
			if (fn)
				fn(arg, q, a, w);
			n++;
		}
	fclose(f);
	return n;
}

/* The terminal's and the page's lines on them: the first VS_SILENT_SHOWN. */
#define VS_SILENT_SHOWN 5
struct silence_say {
	FILE *f;
	int n;
};

static void say_silence(void *arg, int rank, double start_s, double secs)
{
	struct silence_say *s = arg;
	if (s->n++ >= VS_SILENT_SHOWN)
		return;
	fprintf(s->f, "  rank %d: %.1f s from %.1f s\n", rank, secs, start_s);
}

static void silence_note(const char *dir, double slice_s, FILE *f)
{
	int n = read_silences(dir, NULL, NULL);
	if (n <= 0)
		return;
	char b[640];
	double least = VS_SILENT_MIN_SLICES * slice_s > VS_SILENT_MIN_S ?
		VS_SILENT_MIN_SLICES * slice_s : VS_SILENT_MIN_S;
	snprintf(b, sizeof(b), "%d stretch%s of %.1f s or more in which a rank recorded "
		 "nothing: no sensor ran, and its main thread neither ran nor waited for a CPU "
		 "(the process stopped by SIGSTOP or a debugger, swapped out, asleep, or "
		 "blocked in the kernel outside any sensor); the matrices are blank there, and "
		 "no rule judges it (silent.csv):", n, n == 1 ? "" : "es", least);
	text_hang(f, "", "  ", b, 80);
	struct silence_say s = { f, 0 };
	read_silences(dir, say_silence, &s);
	if (n > VS_SILENT_SHOWN)
		fprintf(f, "  ... %d more\n", n - VS_SILENT_SHOWN);
}

static void json_silence(void *arg, int rank, double start_s, double secs)
{
	struct json *j = arg;
	json_begin_object(j, NULL);
	json_int(j, "rank", rank);
	json_double(j, "start_s", start_s, 3);
	json_double(j, "seconds", secs, 3);
	json_end_object(j);
}

/* The page at path; on failure err says why ("cannot write ...", html_save). */
static int write_html(const struct loaded *l, const struct vs_rule *rule, const char *dir,
		      const char *path, char *err, size_t errlen)
{
	const struct vs_matrix *m = &l->m;
	static const char *const heads[] = { "ranks", "start", "end", "kind", "severity",
					     "sensors" };
	struct html *h = html_new("sonde vsensor: performance variance");
	char buf[96];
	if (!h)
		return -ENOMEM;
	html_kv_begin(h, "meta");
	snprintf(buf, sizeof(buf), "%d", m->nranks);
	html_kv(h, "ranks", buf);
	snprintf(buf, sizeof(buf), "%d of %.2f s", m->nslices, m->slice_s);
	html_kv(h, "time slices", buf);
	snprintf(buf, sizeof(buf), l->cut ? "the first %d by kind and rank: more were found, "
		 "left out" : "%d", l->nev);
	html_kv(h, "events", buf);
	html_kv_end(h);
	html_section(h, "events-section", "Events");
	html_table_begin(h, "events", 6, heads, "lrrlrl", HTML_SORTABLE);
	for (int i = 0; i < l->nev; i++) {
		char ranks[32], start[32], end[32], sev[32], sens[256];
		event_cells(l, i, ranks, start, end, sev);
		sensors_of(l, ranks, vs_model_kind(l->ev[i].kind), start, sens, sizeof(sens));
		html_row_begin(h);
		html_td(h, ranks);
		html_td(h, start);
		html_td(h, end);
		html_td(h, vs_model_kind(l->ev[i].kind));
		html_td(h, sev);
		html_td(h, sens);
		html_row_end(h);
	}
	html_table_end(h);
	/* a header alone read as a page that failed (the trial of 2026-11-29) */
	if (!l->nev)
		html_para(h, "No variance events.");
	/* the terminal's notes on what the network rule could not judge, under the events */
	char *notes = NULL;
	size_t notes_len = 0;
	FILE *nf = open_memstream(&notes, &notes_len);
	if (nf) {
		coverage_note(dir, nf);
		switched_note(dir, nf);
		silence_note(dir, m->slice_s, nf);
		event_notes(l, rule, nf);
		fclose(nf);
	}
	if (notes && notes[0]) {
		html_raw(h, "<pre class=\"vs-notes\">");
		html_text(h, notes);
		html_raw(h, "</pre>\n");
	}
	free(notes);
	size_t n = (size_t)m->nranks * m->nslices;
	char **rows = calloc((size_t)m->nranks + 1, sizeof(*rows));
	char **cols = calloc((size_t)m->nslices + 1, sizeof(*cols));
	double *v = malloc((n + 1) * sizeof(*v));
	unsigned char *mark = malloc(n + 1);
	int r = rows && cols && v && mark ? 0 : -ENOMEM;
	for (int i = 0; !r && i < m->nranks; i++)
		r = asprintf(&rows[i], "rank %d", i) < 0 ? -ENOMEM : 0;
	for (int s = 0; !r && s < m->nslices; s++)
		r = asprintf(&cols[s], "%g s", s * m->slice_s) < 0 ? -ENOMEM : 0;
	/* the three kinds, then the CPU share (matrix-cpu.csv: what step 2's "short of CPU"
	 * reads, and a compute event's severity where lower) */
	for (int k = 0; !r && k <= VS_KINDS; k++) {
		const int cpu = k == VS_KINDS;
		const float *src = cpu ? m->v[VS_CPU] : m->v[k];
		int any = 0;
		for (size_t i = 0; src && i < n; i++) {
			v[i] = src[i];
			mark[i] = !cpu && l->flag[k][i] ? 1 : 0;
			any |= !isnan(v[i]);
		}
		if (!any)
			continue;
		char id[32];
		snprintf(id, sizeof(id), "matrix-%s", cpu ? "cpu" : vs_model_kind(k));
		html_section(h, cpu ? "cpu-share" : vs_model_kind(k), cpu ? "CPU share" :
			     vs_model_kind(k));
		/* the scale's dark end is 0.5 and below: flagged cells are outlined in blue, a
		 * colour the scale has not (red outlines vanished on dark red cells: the
		 * usability review of 2026-11-28) */
		if (cpu)
			html_para(h, "Each cell: the CPU the rank got while it could run, against the "
				     "job's typical share (1 = typical or more, light; 0.5 and below "
				     "darkest).  A rank under 0.4, and under 0.8 x the other cores' ranks, "
				     "was short of CPU: its compute counts as slow (a co-runner, a quota).");
		else
			html_para(h, "Each cell: the ranks' speed in that slice against their best (1 = "
				     "full speed, light; 0.5 and below darkest).  Cells outlined in blue "
				     "are the flagged events' (the terminal's *).");
		struct html_heatmap hm = {
			.id = id, .xlabel = "time since the job started", .ylabel = NULL,
			.nrows = (size_t)m->nranks, .ncols = (size_t)m->nslices,
			.rows = (const char *const *)rows, .cols = (const char *const *)cols,
			.v = v, .decimals = 2, .lo = 1.0, .hi = 0.5, .mark = mark,
		};
		html_heatmap(h, &hm);
	}
	if (!r)
		r = html_save(h, path, err, errlen);
	for (int i = 0; rows && i < m->nranks; i++)
		free(rows[i]);
	for (int s = 0; cols && s < m->nslices; s++)
		free(cols[s]);
	free(rows);
	free(cols);
	free(v);
	free(mark);
	html_free(h);
	return r;
}

/* Text output: rows of the events' table (the most severe; 0: 10) and --quiet. */
struct text_opts {
	int top, quiet;
};

static int report_one(const char *dir, const struct vs_rule *rule0, int csv, int json,
		      const char *html, const struct text_opts *to);


/* A file given where the run's directory belongs (report d2/matrix-compute.csv said
 * ".../matrix-compute.csv/matrix-compute.csv: Not a directory"): a usage error.  One that
 * does not exist is left to the reader ("no matrix-*.csv in ..."). */
static int not_a_run_dir(const char *cmd, const char *dir)
{
	struct stat st;
	if (stat(dir, &st) || S_ISDIR(st.st_mode))
		return 0;
	return sonde_usage_error("vsensor", "%s wants the run's directory (vsensor-*), not the file '%s'",
				 cmd, dir);
}

int vs_cmd_report(int argc, char **argv)
{
	struct vs_rule rule;
	vs_rule_default(&rule);
	const char *html = NULL;
	int csv = 0, json = 0, ndirs = 0;
	struct text_opts to = { 0, 0 };
	const char **dirs = calloc(argc ? argc : 1, sizeof(*dirs));
	if (!dirs) {
		sonde_error("out of memory");
		return 1;
	}
	for (int i = 0; i < argc; i++) {
		int pr = parse_rule(argc, argv, &i, &rule);
		if (pr < 0) {
			free(dirs);
			return EXIT_USAGE;
		}
		if (pr)
			continue;
		if (!strcmp(argv[i], "--csv"))
			csv = 1;
		else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
			to.quiet = 1;
		else if (!strcmp(argv[i], "--top")) {
			if (i + 1 >= argc || report_parse_top(argv[i + 1], &to.top)) {
				free(dirs);
				return sonde_usage_error("vsensor", "--top wants a number of rows, "
							 "1 or more");
			}
			i++;
		} else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--html") && i + 1 < argc)
			html = argv[++i];
		else if (!strcmp(argv[i], "--html")) {
			free(dirs);
			return sonde_usage_error("vsensor", "--html needs a FILE to write");
		} else if (argv[i][0] == '-') {
			free(dirs);
			return sonde_usage_error("vsensor", "unknown option '%s'", argv[i]);
		} else
			dirs[ndirs++] = argv[i];
	}
	int rc = 0;
	if (!ndirs)
		rc = sonde_usage_error("vsensor", "report needs a vsensor-* directory");
	else if (csv + json + !!html > 1)
		rc = sonde_usage_error("vsensor", "--csv, --json and --html: one at a time");
	else if (ndirs > 1 && (html || csv || json))
		rc = sonde_usage_error("vsensor", "%s takes one directory (%d given)",
				       html ? "--html" : csv ? "--csv" : "--json", ndirs);
	for (int i = 0; i < ndirs && !rc; i++)
		rc = not_a_run_dir("report", dirs[i]);
	/* several directories (a glob over several jobs): one report after the other */
	for (int i = 0; i < ndirs && !rc; i++) {
		if (ndirs > 1 && !csv)
			printf("%s== %s\n", i ? "\n" : "", dirs[i]);
		int r = report_one(dirs[i], &rule, csv, json, html, &to);
		if (r)
			rc = r;
	}
	free(dirs);
	return rc;
}

/*
 * The n ranks r[] (increasing) as "0-2,5,6" in buf.  A list that does not fit ends after a
 * whole rank and says how many more (a 256-byte buffer cut "...,150,152,15" mid-number).
 */
static void rank_list(char *buf, size_t len, const int *r, int n)
{
	const size_t tail = 24;		/* " and 2147483647 more" and the NUL */
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && r[j + 1] == r[j] + 1)
			j++;
		char piece[32];
		if (j == i)
			snprintf(piece, sizeof(piece), "%s%d", used ? "," : "", r[i]);
		else
			snprintf(piece, sizeof(piece), "%s%d%c%d", used ? "," : "", r[i],
				 j == i + 1 ? ',' : '-', r[j]);
		size_t pl = strlen(piece);
		/* the last piece may use the tail's room; the others leave it for "and N more" */
		if (used + pl + (j + 1 < n ? tail : 1) > len) {
			snprintf(buf + used, len - used, " and %d more", n - i);
			return;
		}
		memcpy(buf + used, piece, pl + 1);
		used += pl;
		i = j + 1;
	}
}

/* "ranks 0-2,5" or "rank 4", into buf */
static const char *ranks_named(char *buf, size_t len, const int *r, int n)
{
	int k = snprintf(buf, len, "rank%s ", n == 1 ? "" : "s");
	rank_list(buf + k, len - k, r, n);
	return buf;
}

/*
 * Where the network cannot be judged, or a slow network would not stand out, say so:
 * without it "no variance events" read as "the network was fine" on programs whose
 * network sensors sense once per iteration (NPB IS: 8-12 slices a rank, step 6 judges
 * none), once every few slices (CoMD: once per print step, never the 3 slices in a row
 * of step 4), or whose collectives mostly wait for other ranks (CoMD on shared cores: its
 * Allreduces under 0.5 of their best in 70-100% of their slices, clean runs included;
 * doc/sonde-vsensor-history.md, "Real programs").  A rank the rule flagged network on is not said
 * to hide a slow network.  A rank whose typical network level (step 2) is under
 * VS_LEVEL_HIDES is named apart, flagged or not: a network event over about 3/4 of the
 * run or more is that level, and the rule, which measures cells against it, does not flag
 * it (a PMPI delay over 80% of cg's run, 2026-11-26: level 0.001-0.003, no cell flagged).
 * 0.1, not the threshold: on the kept runs of a loaded machine (load 10-18) levels of
 * 0.24-0.5 came in a third of the clean and co-runner runs, with no event hidden.
 */
#define VS_LEVEL_HIDES 0.1

/*
 * Ranks whose records end two slices or more before the last rank's: killed, stopped, or
 * out of sensors early (the usability review of 2026-11-29: a job whose rank 1 was killed
 * said "4 ranks, 2.4 s" and not which one stopped).  The end: a rank's last slice with a
 * cell of any kind.
 */
static void ends_note(const struct loaded *l, FILE *f)
{
	const struct vs_matrix *m = &l->m;
	int nr = m->nranks, ns = m->nslices, last = -1, n = 0;
	int *end = calloc(nr ? nr : 1, sizeof(int)), *early = calloc(nr ? nr : 1, sizeof(int));
	char list[300];
	for (int r = 0; end && early && r < nr; r++) {
		end[r] = -1;
		for (int s = ns - 1; s >= 0 && end[r] < 0; s--)
			for (int k = 0; k < VS_KINDS; k++)
				if (!isnan(m->v[k][(size_t)r * ns + s]))
					end[r] = s;
		last = end[r] > last ? end[r] : last;
	}
	for (int r = 0; end && early && r < nr; r++)
		if (end[r] >= 0 && end[r] + 2 <= last)
			early[n++] = r;
	if (n == 1)
		say(f, "rank %d's records end at %.1f s, the last rank's at %.1f s: it stopped "
		    "early (killed, stopped) or ran no sensor after", early[0],
		    (end[early[0]] + 1) * m->slice_s, (last + 1) * m->slice_s);
	else if (n > 1)
		say(f, "%s: their records end %.1f s or more before the last rank's (%.1f s): "
		    "they stopped early (killed, stopped) or ran no sensor after",
		    ranks_named(list, sizeof(list), early, n), 2 * m->slice_s,
		    (last + 1) * m->slice_s);
	free(end);
	free(early);
}

/*
 * Ranks whose compute cells are under the rule's threshold in most of their slices: the
 * sensors' best is a speed the ranks seldom reach, on a machine busy with other work or
 * ranks sharing cores; events then may be the load's (the usability review of
 * 2026-11-29: 60-72% of the cells of clean runs at load 5-8 on 2 cores, 1-7 events, and
 * a note on the network alone).
 */
static void compute_note(const struct loaded *l, const struct vs_rule *rule, FILE *f)
{
	const struct vs_matrix *m = &l->m;
	int nr = m->nranks, n = 0, pmin = 100, pmax = 0;
	int *low = calloc(nr ? nr : 1, sizeof(int));
	char list[300];
	for (int r = 0; low && r < nr; r++) {
		int have = 0, under = 0;
		for (int s = 0; s < m->nslices; s++) {
			float v = m->v[0][(size_t)r * m->nslices + s];
			have += !isnan(v);
			under += !isnan(v) && v < rule->threshold[0];
		}
		/* (as many slices as the network rule wants for a rank's level) */
		if (have >= VS_NET_MIN_SLICES && 2 * under > have) {
			int pc = (int)(100.0 * under / have + 0.5);
			low[n++] = r;
			pmin = pc < pmin ? pc : pmin;
			pmax = pc > pmax ? pc : pmax;
		}
	}
	if (n) {
		char pc[32];
		snprintf(pc, sizeof(pc), pmin == pmax ? "%d%%" : "%d-%d%%", pmin, pmax);
		say(f, "compute on %s: under %.2f in %s of %s slices: %s seldom ran at %s best "
		    "speed (other work on the machine, ranks sharing cores?), so a compute event "
		    "may be the machine's load rather than one slow node",
		    ranks_named(list, sizeof(list), low, n), rule->threshold[0], pc,
		    n == 1 ? "its" : "their", n == 1 ? "it" : "they", n == 1 ? "its" : "their");
	}
	free(low);
}

/*
 * Network flagged on most ranks of a stretch of slices and not on the others that had
 * network data there: the others are the ones waited for, late in work no sensor times
 * (a sleep, an unsensored loop, a stop), and their own cells can read normal (the
 * usability review of 2026-11-29: a rank that slept before each MPI_Allreduce made
 * network events on the three others and none named it).  A stretch: the slices in a row
 * where some rank is flagged network.
 */
static void waited_for_note(const struct loaded *l, FILE *f)
{
	const struct vs_matrix *m = &l->m;
	int nr = m->nranks, ns = m->nslices;
	unsigned char *fl = calloc(nr ? nr : 1, 1), *has = calloc(nr ? nr : 1, 1);
	int *lst = calloc(nr ? nr : 1, sizeof(int));
	char a[300], b[300];
	int said = 0, more = 0;	/* the first VS_SILENT_SHOWN stretches said, then a count */
	for (int s = 0; fl && has && lst && s < ns;) {
		int any = 0, e = s;
		for (int r = 0; r < nr; r++)
			any |= l->flag[1][(size_t)r * ns + s];
		if (!any) {
			s++;
			continue;
		}
		memset(fl, 0, nr);
		memset(has, 0, nr);
		for (;; e++) {
			int on = 0;
			for (int r = 0; e < ns && r < nr; r++)
				on |= l->flag[1][(size_t)r * ns + e];
			if (!on)
				break;
			for (int r = 0; r < nr; r++) {
				fl[r] |= l->flag[1][(size_t)r * ns + e];
				has[r] |= !isnan(m->v[1][(size_t)r * ns + e]);
			}
		}
		int nf = 0, nw = 0;
		for (int r = 0; r < nr; r++)
			if (fl[r])
				lst[nf++] = r;
		ranks_named(a, sizeof(a), lst, nf);
		for (int r = 0; r < nr; r++)
			if (!fl[r] && has[r])
				lst[nw++] = r;
		ranks_named(b, sizeof(b), lst, nw);
		if (nw && nw < nf && said++ >= VS_SILENT_SHOWN)
			more++;
		else if (nw && nw < nf)	/* the why once, with the first */
			say(f, "network at %.1f-%.1f s on %s, not on %s: waiting for %s?%s",
			    s * m->slice_s, e * m->slice_s, a, b, nw == 1 ? "it" : "them",
			    said > 1 ? "" : "  A rank late in work no sensor times (a sleep, a loop "
			    "not taken, a stop) makes the others wait in their communication, and "
			    "its own cells can read normal (coverage.csv)");
		s = e;
	}
	if (more)
		say(f, "(and %d more such stretch%s)", more, more == 1 ? "" : "es");
	free(fl);
	free(has);
	free(lst);
}

static void network_notes(const struct loaded *l, const struct vs_rule *rule, FILE *f)
{
	const struct vs_matrix *m = &l->m;
	int nr = m->nranks;
	int *none = calloc(nr ? nr : 1, sizeof(int)), *few = calloc(nr ? nr : 1, sizeof(int));
	int *sparse = calloc(nr ? nr : 1, sizeof(int)), *waits = calloc(nr ? nr : 1, sizeof(int));
	int *lowlvl = calloc(nr ? nr : 1, sizeof(int));
	char list[300];
	if (!none || !few || !sparse || !waits || !lowlvl)
		goto out;
	int nnone = 0, nfew = 0, nsparse = 0, nwaits = 0, nlowlvl = 0, any = 0;
	double lmin = 1e9, lmax = 0;
	int fmin = 1 << 30, fmax = 0, smax = 0, wmin = 100, wmax = 0;
	int need = rule->min_slices + 1;	/* step 4, network */
	for (int r = 0; r < nr; r++) {
		int have = 0, low = 0, run = 0, best = 0, flagged = 0;
		for (int s = 0; s < m->nslices; s++) {
			size_t i = (size_t)r * m->nslices + s;
			if (isnan(m->v[1][i])) {
				run = 0;
				continue;
			}
			have++;
			/* low as the rule sees it: a cell that waited for a CPU is not (step 5) */
			low += vs_net_low(m, rule, r, s);
			flagged |= l->flag[1][i];
			best = ++run > best ? run : best;
		}
		if (!have) {
			none[nnone++] = r;
			continue;
		}
		any = 1;
		if (have < VS_NET_MIN_SLICES) {
			few[nfew++] = r;
			fmin = have < fmin ? have : fmin;
			fmax = have > fmax ? have : fmax;
			continue;
		}
		/* sensed once every few slices (CoMD: once per print step): never the
		 * consecutive slices step 4 asks for */
		if (best < need) {
			sparse[nsparse++] = r;
			smax = best > smax ? best : smax;
		}
		double lvl = vs_net_level(m, r);
		if (lvl < VS_LEVEL_HIDES) {
			lowlvl[nlowlvl++] = r;
			lmin = lvl < lmin ? lvl : lmin;
			lmax = lvl > lmax ? lvl : lmax;
		} else if (2 * low > have && !flagged) {
			int pc = (int)(100.0 * low / have + 0.5);
			waits[nwaits++] = r;
			wmin = pc < wmin ? pc : wmin;
			wmax = pc > wmax ? pc : wmax;
		}
	}
	if (!any) {
		say(f, "network: no network sensor ran: a slow network cannot be seen in this run");
		goto out;
	}
	if (nnone)
		say(f, "network: no network sensor ran on %s: a slow network cannot be seen there",
		    ranks_named(list, sizeof(list), none, nnone));
	if (nfew) {
		char sl[32];
		snprintf(sl, sizeof(sl), fmin == fmax ? "%d" : "%d-%d", fmin, fmax);
		say(f, "network not judged on %s: %s slices with network data, the rule wants %d+",
		    ranks_named(list, sizeof(list), few, nfew), sl, VS_NET_MIN_SLICES);
	}
	if (nsparse)
		say(f, "network cannot be flagged on %s: at most %d slice%s with network data in a "
		    "row, the rule wants %d", ranks_named(list, sizeof(list), sparse, nsparse),
		    smax, smax == 1 ? "" : "s", need);
	if (nwaits) {
		char pc[32];
		snprintf(pc, sizeof(pc), wmin == wmax ? "%d%%" : "%d-%d%%", wmin, wmax);
		say(f, "network on %s: under %.2f in %s of %s slices with network data: %s "
		    "sensors are usually far slower than their best (waiting for other ranks?), so "
		    "a slower network would not stand out",
		    ranks_named(list, sizeof(list), waits, nwaits), rule->threshold[1], pc,
		    nwaits == 1 ? "its" : "their", nwaits == 1 ? "its" : "their");
	}
	if (nlowlvl) {
		char lv[48];
		snprintf(lv, sizeof(lv), lmax > lmin ? "%.3f-%.3f" : "%.3f", lmin, lmax);
		say(f, "network on %s: usually under %.2f (level %s, the %.0fth percentile of %s "
		    "slices): a slow network over about 3/4 of the run or more would be that "
		    "level, and the rule, which compares slices with it, would not flag it",
		    ranks_named(list, sizeof(list), lowlvl, nlowlvl), VS_LEVEL_HIDES, lv,
		    100 * VS_NET_LEVEL_Q, nlowlvl == 1 ? "its" : "their");
	}
out:
	free(none);
	free(few);
	free(sparse);
	free(waits);
	free(lowlvl);
}

/*
 * Every rank short of CPU at once, for a second or more: the rule compares ranks, and a
 * co-runner the scheduler spreads over the cores slows them all alike (the trial of
 * 2026-11-29, F3: three busy loops on one core of HPCC's 2 ranks for 6 s, both ranks at
 * ~0.4 of their CPU share, no event, and only the page's CPU-share map showed it).  The
 * longest such stretch, under VS_SQUEEZE of the typical share on every rank with data.
 */
#define VS_SQUEEZE 0.6

static void squeeze_note(const struct loaded *l, FILE *f)
{
	const struct vs_matrix *m = &l->m;
	int nr = m->nranks, ns = m->nslices, run = 0, start = 0, best = 0, bstart = 0;
	double hi = 0, bhi = 0;
	if (!m->v[VS_CPU] || nr < 2 || !(m->slice_s > 0))
		return;
	for (int s = 0; s < ns; s++) {
		int have = 0, low = 1;
		double mx = 0;
		for (int r = 0; r < nr; r++) {
			float v = m->v[VS_CPU][(size_t)r * ns + s];
			if (isnan(v))
				continue;
			have++;
			low &= v < VS_SQUEEZE;
			mx = v > mx ? v : mx;
		}
		if (have < 2 || !low) {
			run = 0;
			continue;
		}
		if (!run++)
			start = s, hi = 0;
		hi = mx > hi ? mx : hi;
		if (run > best)
			best = run, bstart = start, bhi = hi;
	}
	int need = (int)ceil(1.0 / m->slice_s);
	if (best < (need > 3 ? need : 3))
		return;
	say(f, "every rank got under %.2f of its typical CPU share from %.1f s to %.1f s (%d "
	    "slices): other work on the machine took CPU from the whole job at once, which "
	    "the rule, comparing ranks, does not call an event (the page's CPU share map "
	    "shows it)", bhi, bstart * m->slice_s, (bstart + best) * m->slice_s, best);
}

/* The notes under the events, the terminal's and the page's: ranks that stopped early,
 * ranks waited for, a busy machine's compute, the whole job short of CPU, what the
 * network rule could not judge. */
static void event_notes(const struct loaded *l, const struct vs_rule *rule, FILE *f)
{
	ends_note(l, f);
	waited_for_note(l, f);
	compute_note(l, rule, f);
	squeeze_note(l, f);
	network_notes(l, rule, f);
}

/* --json: the run, the rule, the events and the matrices (null where a cell has no data),
 * for scripts; doc/sonde-vsensor.md, "The page, CSV, JSON". */
static void report_json(const struct loaded *l, const struct vs_rule *rule, const char *dir)
{
	static const char *const mat[] = { "compute", "network", "io", "cpu" };
	struct json j;
	json_init_flags(&j, stdout, JSON_COMPACT);	/* as comm's and variance's: a line an
							 * event, a matrix row */
	json_begin_object(&j, NULL);
	json_str(&j, "tool", "vsensor");
	json_str(&j, "dir", dir);
	json_int(&j, "ranks", l->m.nranks);
	json_int(&j, "slices", l->m.nslices);
	double clo, chi, cov = read_coverage(dir, &clo, &chi);
	if (cov >= 0)	/* the median rank's share of the run its sensors timed */
		json_double(&j, "coverage", cov, 4);
	if (read_silences(dir, NULL, NULL) >= 0) {	/* silent.csv; none before it was written */
		json_begin_array(&j, "silences");
		read_silences(dir, json_silence, &j);
		json_end_array(&j);
	}
	json_double(&j, "slice_s", l->m.slice_s, 3);
	json_begin_object(&j, "rule");
	for (int k = 0; k < VS_KINDS; k++)
		json_double(&j, vs_model_kind(k), rule->threshold[k], 3);
	json_int(&j, "min_slices", rule->min_slices);
	json_end_object(&j);
	json_begin_array(&j, "events");
	for (int i = 0; i < l->nev; i++) {
		const struct vs_event *e = &l->ev[i];
		char ranks[32], start[32], end[32], sev[32], sens[256];
		event_cells(l, i, ranks, start, end, sev);
		sensors_of(l, ranks, vs_model_kind(e->kind), start, sens, sizeof(sens));
		json_newline(&j);
		json_begin_object(&j, NULL);
		json_int(&j, "rank_first", e->r0);
		json_int(&j, "rank_last", e->r1);
		json_double(&j, "start_s", e->s0 * l->m.slice_s, 3);
		json_double(&j, "end_s", (e->s1 + 1) * l->m.slice_s, 3);
		json_str(&j, "kind", vs_model_kind(e->kind));
		json_double(&j, "severity", e->severity, 3);
		json_str(&j, "sensors", sens);
		json_end_object(&j);
	}
	json_end_array(&j);
	/* more events were found than kept (VS_EVENTS_MAX): "events" are the first of kind and
	 * rank, and the rest unknown */
	json_bool(&j, "events_cut", l->cut);
	/* rank-major rows of normalized performance (cpu: the share against the typical);
	 * a kind no sensor measured is null, a cell without data null */
	json_begin_object(&j, "matrices");
	for (int k = 0; k < 4; k++) {
		const float *v = l->m.v[k < VS_KINDS ? k : VS_CPU];
		size_t cells = (size_t)l->m.nranks * l->m.nslices, c = 0;
		while (v && c < cells && isnan(v[c]))
			c++;
		json_newline(&j);
		if (c == cells) {
			json_str(&j, mat[k], NULL);
			continue;
		}
		json_begin_array(&j, mat[k]);
		for (int r = 0; v && r < l->m.nranks; r++) {
			json_newline(&j);
			json_begin_array(&j, NULL);
			for (int c = 0; c < l->m.nslices; c++)
				json_double(&j, NULL, v[(size_t)r * l->m.nslices + c], 4);
			json_end_array(&j);
		}
		json_end_array(&j);
	}
	json_end_object(&j);
	json_end_object(&j);
	json_finish(&j);
}

/* qsort_r: event indices, the most severe (lowest severity) first, ties to the earlier */
static int by_severity(const void *x, const void *y, void *ev)
{
	const struct vs_event *e = ev;
	int a = *(const int *)x, b = *(const int *)y;
	/* (no flagged cell: NAN, the mildest) */
	double sa = isnan(e[a].severity) ? INFINITY : e[a].severity;
	double sb = isnan(e[b].severity) ? INFINITY : e[b].severity;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return (a > b) - (a < b);
}

/* The events the text table shows: the `top` most severe, each marked in keep[] (nev
 * entries); 0, or -1 out of memory. */
static int pick_top(const struct loaded *l, int top, unsigned char *keep)
{
	int *ix = malloc((l->nev ? l->nev : 1) * sizeof(int));
	if (!ix)
		return -1;
	for (int i = 0; i < l->nev; i++)
		ix[i] = i;
	qsort_r(ix, l->nev, sizeof(int), by_severity, l->ev);
	for (int i = 0; i < l->nev; i++)
		keep[ix[i]] = i < top;
	free(ix);
	return 0;
}

static int report_one(const char *dir, const struct vs_rule *rule0, int csv, int json,
		      const char *html, const struct text_opts *to)
{
	struct vs_rule rule = *rule0;
	struct loaded *l = calloc(1, sizeof(*l));
	if (!l || load(dir, &rule, l)) {
		free(l);
		return 1;
	}
	static const char *const head[] = { "ranks", "start", "end", "kind", "severity", "sensors" };
	/* --html alone: the page, no text (as `sonde report --html`; the usability review of
	 * 2026-11-28: the text came too), so no table */
	if (json) {
		report_json(l, &rule, dir);
		unload(l);
		free(l);
		return 0;
	}
	struct text_table *t = csv || html ? NULL : text_table_new(6, head, "rrrlrl");
	if (!csv && !html && !t) {
		sonde_error("out of memory");
		unload(l);
		free(l);
		return 1;
	}
	if (csv)
		csv_row(stdout, 6, head);
	unsigned char *keep = calloc(l->nev ? l->nev : 1, 1);
	int top = to->top ? to->top : 10, shown = 0;
	if (!keep || pick_top(l, csv ? l->nev : top, keep)) {
		sonde_error("out of memory");
		free(keep);
		text_table_free(t);
		unload(l);
		free(l);
		return 1;
	}
	for (int i = 0; i < l->nev && (csv || t); i++) {
		char ranks[32], start[32], end[32], sev[32], sens[256];
		if (!keep[i])
			continue;
		shown++;
		event_cells(l, i, ranks, start, end, sev);
		sensors_of(l, ranks, vs_model_kind(l->ev[i].kind), start, sens, sizeof(sens));
		const char *row[] = { ranks, start, end, vs_model_kind(l->ev[i].kind), sev, sens };
		if (csv)
			csv_row(stdout, 6, row);
		else
			text_table_add(t, row);
	}
	int rc = 0;
	if (t) {
		if (!to->quiet) {
			char b[600];
			printf("%d rank%s, %.1f s in slices of %.2f s\n", l->m.nranks,
			       l->m.nranks == 1 ? "" : "s", l->m.nslices * l->m.slice_s,
			       l->m.slice_s);
			/* the rule, wrapped at 80 (doc/sonde-vsensor.md, "Detection rule") */
			snprintf(b, sizeof(b), "rule: compute < %.2f, network < %.2f, io < %.2f "
				 "for %d+ slices; compute also under %.2f x the slice's median "
				 "rank, or short of CPU (under %.1f of its CPU share and %.2f x "
				 "the other cores' ranks'); network only on ranks with %d+ slices "
				 "of it",
				 rule.threshold[0], rule.threshold[1], rule.threshold[2],
				 rule.min_slices, rule.peer, VS_CORE_STARVED, rule.core_peer,
				 VS_NET_MIN_SLICES);
			text_hang(stdout, "", "  ", b, 80);
			printf("\n");
			coverage_note(dir, stdout);
			switched_note(dir, stdout);
		}
		/* said even with -q: a stretch no rule judges (not a note on the rule) */
		silence_note(dir, l->m.slice_s, stdout);
		if (l->nev)
			text_table_print(t, stdout, "");
		else
			printf("no variance events\n");
		/* past a cut, the events left out may be more severe: not said "none more" */
		if (shown < l->nev)
			printf("  ... %d more%s (--top N, or events.csv)\n", l->nev - shown,
			       l->cut ? "" : ", none more severe");
		if (l->cut)
			printf("  (the first %d events by kind and rank: more were found and left "
			       "out, some maybe more severe)\n", l->nev);
		if (!to->quiet && shown) {
			/* what the columns mean (the usability review of 2026-11-29: 0.01 read
			 * as mild, "(cpu share)" as a sensor of the program) */
			int cpu = 0;
			for (int i = 0; i < l->nev && !cpu; i++) {
				char r[32], st[32], e[32], sv[32], sens[256];
				if (!keep[i])
					continue;
				event_cells(l, i, r, st, e, sv);
				sensors_of(l, r, vs_model_kind(l->ev[i].kind), st, sens,
					   sizeof(sens));
				cpu = strstr(sens, "(cpu share)") != NULL;
			}
			say(stdout, "severity: the event's mean speed against the best (1 = full "
			    "speed; the lower, the worse)%s", cpu ? "; sensor '(cpu share)': the "
			    "rank got less CPU than the job's typical share (another process on "
			    "its core, a quota)" : "");
		}
		if (!to->quiet)
			event_notes(l, &rule, stdout);
		text_table_free(t);
		int legend = 0;
		for (int k = 0; k < VS_KINDS; k++)
			heat_map(l, k, stdout, &legend);
	}
	if (html) {
		char why[512] = "";
		int err = write_html(l, &rule, dir, html, why, sizeof(why));
		if (err) {
			if (*why)
				sonde_error("%s", why);
			else
				sonde_error("cannot write '%s': %s", html, strerror(-err));
			rc = 1;
		} else if (!to->quiet) {
			fprintf(stderr, "sonde: page in %s\n", html);
		}
	}
	free(keep);
	unload(l);
	free(l);
	return rc;
}

/* --truth KIND:RANKS:START:END (RANKS like 1,3 or 0-3) or "none". */
struct truth {
	int none, kind, max_rank;
	unsigned char ranks[4096];
	double start, end;
};

static int parse_truth(const char *s, struct truth *t)
{
	memset(t, 0, sizeof(*t));
	if (!strcmp(s, "none")) {
		t->none = 1;
		return 0;
	}
	char kind[16], ranks[256];
	int end = 0;
	if (sscanf(s, "%15[^:]:%255[^:]:%lf:%lf%n", kind, ranks, &t->start, &t->end, &end) != 4 ||
	    s[end])
		return -EINVAL;
	t->kind = !strcmp(kind, "compute") ? 0 : !strcmp(kind, "network") ? 1 : !strcmp(kind, "io") ? 2 : -1;
	if (t->kind < 0 || !(t->start >= 0 && t->start < t->end))	/* (NaN too) */
		return -EINVAL;
	char *save, *tok = strtok_r(ranks, ",", &save);
	while (tok) {
		int a, b, n = 0;
		if (sscanf(tok, "%d-%d %n", &a, &b, &n) != 2 || tok[n]) {
			n = 0;	/* (" %n": blanks around a rank, "1, 3", still taken) */
			if (sscanf(tok, "%d %n", &a, &n) != 1 || tok[n])
				return -EINVAL;
			b = a;
		}
		if (a < 0 || b < a || b >= 4096)
			return -EINVAL;
		for (int r = a; r <= b; r++)
			t->ranks[r] = 1;
		t->max_rank = b > t->max_rank ? b : t->max_rank;
		tok = strtok_r(NULL, ",", &save);
	}
	return 0;
}

int vs_cmd_score(int argc, char **argv)
{
	struct vs_rule rule;
	vs_rule_default(&rule);
	const char *dir = NULL, *spec = NULL;
	for (int i = 0; i < argc; i++) {
		int pr = parse_rule(argc, argv, &i, &rule);
		if (pr < 0)
			return EXIT_USAGE;
		if (pr)
			continue;
		if (!strcmp(argv[i], "--truth") && i + 1 < argc)
			spec = argv[++i];
		else if (argv[i][0] == '-')
			return sonde_usage_error("vsensor", "unknown option '%s'", argv[i]);
		else if (dir)	/* (the last one was scored, the others dropped in silence: the
				 * usability review of 2026-11-29, M6) */
			return sonde_usage_error("vsensor", "score takes one directory ('%s' and "
						 "'%s' given): a truth is one run's", dir, argv[i]);
		else
			dir = argv[i];
	}
	struct truth t;
	if (!dir || !spec)
		return sonde_usage_error("vsensor", "score needs --truth KIND:RANKS:START:END|none and a directory");
	/* which part is wrong (the usability review of 2026-11-29: the usage line again) */
	if (parse_truth(spec, &t))
		return sonde_usage_error("vsensor", "--truth '%s': want KIND:RANKS:START:END (KIND "
					 "compute, network or io; RANKS like 1,3 or 0-3; START < "
					 "END in seconds) or none", spec);
	if (not_a_run_dir("score", dir))
		return EXIT_USAGE;
	struct loaded *l = calloc(1, sizeof(*l));
	if (!l || load(dir, &rule, l)) {
		free(l);
		return 1;
	}
	const struct vs_matrix *m = &l->m;
	if (!t.none && t.max_rank >= m->nranks) {
		sonde_usage_error("vsensor", "--truth names rank %d, and '%s' has ranks 0-%d",
				  t.max_rank, dir, m->nranks - 1);
		unload(l);
		free(l);
		return EXIT_USAGE;
	}
	/* a window past the run's end scored recall 1.000 (M6 of the same review) */
	double run_s = m->nslices * m->slice_s;
	if (!t.none && (t.start >= run_s || t.end <= 0)) {
		sonde_usage_error("vsensor", "--truth window %g-%g s lies outside '%s', a run of "
				  "0-%.1f s (seconds from the job's start)", t.start, t.end, dir,
				  run_s);
		unload(l);
		free(l);
		return EXIT_USAGE;
	}
	long cells = 0, truth = 0, flagged = 0, tp = 0;
	for (int s = 0; s < m->nslices; s++) {
		double a = s * m->slice_s, b = a + m->slice_s;
		int inside = !t.none && a >= t.start + m->slice_s && b <= t.end;
		/* the slices around the window edges are not scored: the injector and the
		 * runtime start their clocks a few ms apart, and a slowed sense that ends
		 * just after the window lands in the next slice */
		int edge = !t.none && !inside && b > t.start - m->slice_s && a < t.end + m->slice_s;
		if (edge)
			continue;
		for (int k = 0; k < VS_KINDS; k++)
			for (int r = 0; r < m->nranks; r++) {
				size_t i = (size_t)r * m->nslices + s;
				if (isnan(m->v[k][i]))
					continue;
				int want = inside && k == t.kind && r < 4096 && t.ranks[r];
				int got = l->flag[k][i];
				cells++;
				truth += want;
				flagged += got;
				tp += want && got;
			}
	}
	double prec = flagged ? (double)tp / flagged : (truth ? 0 : 1);
	double rec = truth ? (double)tp / truth : 1;
	printf("cells=%ld truth=%ld flagged=%ld tp=%ld precision=%.3f recall=%.3f fp_rate=%.4f\n", cells,
	       truth, flagged, tp, prec, rec, cells ? (double)(flagged - tp) / cells : 0);
	unload(l);
	free(l);
	return 0;
}
