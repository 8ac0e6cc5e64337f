/* SPDX-License-Identifier: MIT */
/*
 * report.c - from a raw recording to the profile database and the views, for every tool:
 * the recording's `tool` key picks the tool (prof/tool.h) that models it, fills the
 * database, exports its CSV files and prints it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/file.h"
#include "prof/profile.h"
#include "prof/report.h"
#include "prof/symbols.h"
#include "prof/tool.h"
#include "ui/html.h"
#include "ui/text.h"

/* The tool of a recording: every process must name the same one ("" is mem: recordings
 * made before the key existed). */
static const struct tool *recording_tool(const struct profile *p, char *err, size_t errlen)
{
	const char *name = p->nproc && *p->proc[0].tool ? p->proc[0].tool : "mem";
	for (size_t i = 1; i < p->nproc; i++)
		if (strcmp(*p->proc[i].tool ? p->proc[i].tool : "mem", name)) {
			errmsg(err, errlen, -EINVAL, "%s: processes recorded by different tools "
				    "('%s' and '%s')", p->dir, name, p->proc[i].tool);
			return NULL;
		}
	const struct tool *t = tool_find(name);
	if (!t || !t->fill)
		errmsg(err, errlen, -EINVAL, "%s: recorded by tool '%s', which this sonde does "
			    "not know", p->dir, name);
	return t && t->fill ? t : NULL;
}

struct fill_arg {
	const struct tool *tool;
	const struct profile *p;
};

/*
 * The launcher's notes on the run (DIR/launch.txt, key=value lines: clock's de-biasing
 * setting and where it came from, cmd/verdict.h) into meta, for every tool.  A recording
 * without the file (made by an older sonde, or not through the launcher) gets no rows; a
 * FIFO, a directory or a device under its name is refused, in one line.
 */
static int fill_launch_meta(sqlite3 *db, const char *dir, char *err, size_t errlen)
{
	char path[4096], line[2048];
	sqlite3_stmt *st;
	snprintf(path, sizeof(path), "%s/launch.txt", dir);
	int r;
	FILE *f = file_fopen_regular(path, &r);
	if (r == FILE_NOT_REGULAR)	/* a FIFO there blocked the report for ever */
		return errmsg(err, errlen, r, "%s: %s", path, file_strerror(r));
	if (!f)
		return 0;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES(?,?)", -1, &st, NULL)) {
		fclose(f);
		return db_fail(db, err, errlen, "writing meta");
	}
	while (!r && fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		line[strcspn(line, "\n")] = 0;
		if (!eq || eq == line)
			continue;
		*eq = 0;
		r = db_row(st, "tt", line, eq + 1);
	}
	sqlite3_finalize(st);
	fclose(f);
	return r ? db_fail(db, err, errlen, "writing meta") : 0;
}

/*
 * What the processes' .proc files say of the run, into meta, for every tool: `switches`
 * (their sum; an image that ended in exec is left out, since the process's count goes on
 * in the next image) and `switches_per_s` (that sum over the recording's span, from the
 * first start to the last end: ranks side by side add up, a short-lived helper process
 * does not make a rate of its own), `watch_backend` ("hw" if any process armed debug registers, else the
 * first one's), `fds_lost` and `alloc_table_full` (summed), `records_stopped` and `records_stopped_at` (the first process whose
 * records stopped: rt/out.c), `clock_event` ("posix-timer" where a process's clock source
 * used POSIX timers, else the perf event's kind)
 * (the tools' scaling line says so: db_scaling), `clock_timer_failed` (summed: threads left unsampled).  No rows for keys no process noted (a recording made before they
 * existed).
 */
static int fill_process_meta(sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	int64_t n = 0;
	uint64_t first = UINT64_MAX, last = 0;
	int seen = 0;
	const char *be = "", *bewhy = "";
	const struct prof_process *stopped = NULL;
	uint64_t lost = 0, afull = 0, tfail = 0, tn = 0, tstarved = 0, tcpu = 0, tsig = 0, texp = 0;
	uint64_t deaf = 0, deaf_cpu = 0, asked = 0, given = 0, minobj = 0, killed = 0;
	const char *asked_src = "";	/* the source of the process whose period was taken */
	const struct prof_process *first_killed = NULL, *first_unended = NULL;
	uint64_t unended = 0, sigs = 0;
	for (size_t i = 0; i < p->nproc; i++) {
		const struct prof_process *pr = &p->proc[i];
		if (pr->min_object > minobj)
			minobj = pr->min_object;
		if (pr->signo > 0 || (pr->end && !strcmp(pr->end, "signal"))) {
			killed++;
			if (!first_killed)
				first_killed = pr;
		}
		/* no end written: SIGKILL (the OOM killer, a time limit), or still running */
		if ((!pr->end || !*pr->end) && !pr->end_ns && !unended++)
			first_unended = pr;
		if (pr->period_asked && !asked) {
			asked = pr->period_asked;
			given = pr->period;
			asked_src = pr->source ? pr->source : "";
		}
		/* clock threads that blocked the sampling signal (profile.h); the POSIX-timer
		 * case has its own, finer note below */
		for (size_t j = 0; j < pr->nthread; j++)
			if (profile_thread_unsignalled(pr, &pr->thread[j])) {
				deaf++;
				deaf_cpu += pr->thread[j].stats.cpu_ns;
			}
		for (size_t j = 0; j < pr->nthread; j++)
			if (pr->thread[j].has_stats)
				sigs += pr->thread[j].stats.signals;
		lost += pr->fds_lost;
		afull += pr->alloc_table_full;
		tfail += pr->clock_timer_failed;
		/* threads the POSIX timers hardly saw (report_notes): 50 ms of CPU time or
		 * more, and under a quarter of a signal a 10 ms tick (HZ=100, the lowest) or
		 * a period, whichever is longer */
		if (!strcmp(pr->clock_event, "posix-timer")) {
			uint64_t per = pr->period > 10000000 ? pr->period : 10000000;
			for (size_t j = 0; j < pr->nthread; j++) {
				const struct sonde_rec_stats *ts = &pr->thread[j].stats;
				if (!pr->thread[j].has_stats)
					continue;
				tn++;
				if (ts->cpu_ns < 50000000 || ts->signals * 4 >= ts->cpu_ns / per)
					continue;
				/* no signal where a timer could not be made: said apart
				 * (clock_timer_failed), not blamed on the ticks */
				if (!ts->signals && pr->clock_timer_failed)
					continue;
				tstarved++;
				tcpu += ts->cpu_ns;
				tsig += ts->signals;
				texp += ts->cpu_ns / per;
			}
		}
		if (!*be || !strcmp(pr->watch_backend, "hw")) {
			be = pr->watch_backend;
			bewhy = pr->watch_why;
		}
		if (!stopped && *pr->records_stopped)
			stopped = pr;
		if (pr->start_ns && pr->start_ns < first)
			first = pr->start_ns;
		if (pr->end_ns > last)
			last = pr->end_ns;
		if (pr->switches < 0 || !strcmp(pr->end, "exec"))
			continue;
		seen = 1;
		n += pr->switches;
	}
	double rate = last > first ? (double)n * 1e9 / (double)(last - first) : 0;
	char v[5][32];
	snprintf(v[3], sizeof(v[3]), "%llu", (unsigned long long)lost);
	snprintf(v[4], sizeof(v[4]), "%llu", (unsigned long long)tfail);
	snprintf(v[0], sizeof(v[0]), "%lld", (long long)n);
	snprintf(v[1], sizeof(v[1]), "%.0f", rate);
	snprintf(v[2], sizeof(v[2]), "%llu",
		 stopped ? (unsigned long long)stopped->records_stopped_at : 0ull);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES(?,?)", -1, &st, NULL))
		return db_fail(db, err, errlen, "writing meta");
	int r = 0;
	if (seen)
		r = db_row(st, "tt", "switches", v[0]) ?: db_row(st, "tt", "switches_per_s", v[1]);
	if (!r && *be)
		r = db_row(st, "tt", "watch_backend", be);
	/* why no backend (the arm-failure line says it, not a list of every cause) */
	if (!r && !strcmp(be, "none") && bewhy && *bewhy)
		r = db_row(st, "tt", "watch_why", bewhy);
	if (!r && stopped)
		r = db_row(st, "tt", "records_stopped", stopped->records_stopped) ?:
		    db_row(st, "tt", "records_stopped_at", v[2]);
	if (!r && lost)
		r = db_row(st, "tt", "fds_lost", v[3]);
	if (!r && afull) {
		char af[32];
		snprintf(af, sizeof(af), "%llu", (unsigned long long)afull);
		r = db_row(st, "tt", "alloc_table_full", af);
	}
	if (!r && tfail)
		r = db_row(st, "tt", "clock_timer_failed", v[4]);
	if (!r && killed) {	/* said by every tool (mem's header said it alone) */
		char k[2][32];
		snprintf(k[0], sizeof(k[0]), "%llu", (unsigned long long)killed);
		snprintf(k[1], sizeof(k[1]), "%d %d", first_killed->pid, first_killed->signo);
		r = db_row(st, "tt", "ended_by_signal", k[0]) ?:
		    db_row(st, "tt", "ended_by_signal_first", k[1]);
	}
	if (!r && sigs)	/* sample signals, whether an access was found or not */
		r = db_row_u64(st, "sample_signals", sigs);
	if (!r && unended)
		r = db_row_u64(st, "unended", unended) ?:
		    db_row_u64(st, "unended_first", (uint64_t)first_unended->pid);
	if (!r && asked)
		r = db_row_u64(st, "period_asked", asked) ?:
		    db_row_u64(st, "period_given", given) ?:
		    db_row(st, "tt", "period_asked_source", asked_src);
	if (!r && deaf)
		r = db_row_u64(st, "clock_unsignalled", deaf) ?:
		    db_row_u64(st, "clock_unsignalled_cpu_ns", deaf_cpu);
	/* the clock's timer, for every clock run: posix-timer where a process used POSIX
	 * timers, else the first process's perf event ("per-thread", "inherited"; the
	 * usability review of 2026-11-29: only posix-timer runs had it) */
	const char *cev = NULL;
	for (size_t k = 0; k < p->nproc && !cev; k++)
		if (p->proc[k].clock_event && *p->proc[k].clock_event)
			cev = p->proc[k].clock_event;
	if (!r && (profile_clock_posix(p) || cev))
		r = db_row(st, "tt", "clock_event", profile_clock_posix(p) ? "posix-timer" : cev);
	if (!r && minobj)	/* the processes' largest: report_small_blocks_text */
		r = db_row_u64(st, "min_object", minobj);
	if (!r && tstarved) {
		char c[5][32];
		snprintf(c[0], sizeof(c[0]), "%llu", (unsigned long long)tstarved);
		snprintf(c[1], sizeof(c[1]), "%llu", (unsigned long long)tn);
		snprintf(c[2], sizeof(c[2]), "%llu", (unsigned long long)tcpu);
		snprintf(c[3], sizeof(c[3]), "%llu", (unsigned long long)tsig);
		snprintf(c[4], sizeof(c[4]), "%llu", (unsigned long long)texp);
		r = db_row(st, "tt", "clock_timer_starved_expected", c[4]) ?:
		    db_row(st, "tt", "clock_timer_starved", c[0]) ?:
		    db_row(st, "tt", "clock_timer_threads", c[1]) ?:
		    db_row(st, "tt", "clock_timer_starved_cpu_ns", c[2]) ?:
		    db_row(st, "tt", "clock_timer_starved_signals", c[3]);
	}
	sqlite3_finalize(st);
	/* the runtime's reason for its source, for every tool (mem writes its own, kept):
	 * report_source_note says it when an asked source was not used */
	for (size_t i = 0; !r && i < p->nproc; i++) {
		if (!p->proc[i].source_why || !*p->proc[i].source_why)
			continue;
		if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO meta VALUES('source_why', ?)", -1,
				       &st, NULL))
			return db_fail(db, err, errlen, "writing meta");
		sqlite3_bind_text(st, 1, p->proc[i].source_why, -1, SQLITE_STATIC);
		r = sqlite3_step(st) != SQLITE_DONE;
		sqlite3_finalize(st);
		break;
	}
	return r ? db_fail(db, err, errlen, "writing meta") : 0;
}

/* The atomic read-modify-writes in the executable of the first process sampled by the
 * inst source (symbols.c, sym_atomics), which that source does not see: meta
 * `inst_atomics` (count), `inst_atomics_funcs` and `inst_atomics_in` ("f (k), ..."), for
 * report_notes.  Nothing when no process used inst or its file cannot be read. */
static int fill_inst_atomics(sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	struct sym_atomics a;
	const struct prof_process *pr = NULL;
	for (size_t i = 0; i < p->nproc && !pr; i++)
		if (p->proc[i].source && !strcmp(p->proc[i].source, "inst") && p->proc[i].exe &&
		    *p->proc[i].exe)
			pr = &p->proc[i];
	if (!pr || sym_atomics(pr->exe, &a) || !a.count)
		return 0;
	char v[2][32], in[SYM_ATOMICS_TOP * 112] = "";
	snprintf(v[0], sizeof(v[0]), "%u", a.count);
	snprintf(v[1], sizeof(v[1]), "%u", a.funcs);
	/* C++ names shortened as every table does, not cut ("...(unsigned long, miniF (2)":
	 * the trial of 2026-11-29, miniFE), and apart where they would read alike (the trial
	 * of miniMD: three instances of one template as one name, three times) */
	const char *full[SYM_ATOMICS_TOP];
	char *sh[SYM_ATOMICS_TOP];
	int nt = 0;
	while (nt < SYM_ATOMICS_TOP && a.top_count[nt]) {
		full[nt] = a.top[nt];
		nt++;
	}
	if (text_short_names(full, nt, sh))
		return errmsg(err, errlen, -ENOMEM, "naming the atomics' functions");
	for (int i = 0; i < nt; i++) {
		size_t n = strlen(in);
		snprintf(in + n, sizeof(in) - n, "%s%s (%u)", i ? ", " : "", sh[i], a.top_count[i]);
		free(sh[i]);
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES(?,?)", -1, &st, NULL))
		return db_fail(db, err, errlen, "writing meta");
	int r = db_row(st, "tt", "inst_atomics", v[0]) ?: db_row(st, "tt", "inst_atomics_funcs",
								   v[1]) ?:
		db_row(st, "tt", "inst_atomics_in", in);
	sqlite3_finalize(st);
	return r ? db_fail(db, err, errlen, "writing meta") : 0;
}

static int fill(sqlite3 *db, const void *arg, char *err, size_t errlen)
{
	const struct fill_arg *a = arg;
	return a->tool->fill(db, a->p, err, errlen) ?: fill_launch_meta(db, a->p->dir, err,
									  errlen) ?:
	       fill_process_meta(db, a->p, err, errlen) ?: fill_inst_atomics(db, a->p, err, errlen);
}

const char *report_small_blocks_text(const char *what, double share, uint64_t min_object,
				     char *buf, size_t len)
{
	if (!(share >= 0.1) || min_object <= 1)	/* NaN too */
		return NULL;
	/* the hint below the current bound: "64" to a run at 64 named nothing more, and a
	 * 16-byte struct needs 16 (the comm review of 2026-11-29) */
	snprintf(buf, len, "%.0f%% of the %s in [heap: untracked small blocks]: heap blocks "
		 "under --min-object (%llu bytes) are not tracked one by one.  A smaller "
		 "--min-object (%s) names them, at a cost at each allocation: a record of the "
		 "block and its call path, so that a program that allocates millions of small "
		 "blocks gets a recording of hundreds of MB and a slow report.",
		 share * 100, what, (unsigned long long)min_object,
		 min_object > 64 ? "e.g. --min-object 64, or 16 for blocks as small as a pair "
				   "of pointers" :
		 min_object > 16 ? "--min-object 16, or 1 for every block" :
				   "--min-object 1, every block");
	return buf;
}

const char *report_switch_text(sqlite3 *db, char *buf, size_t len, int held, const char *hint)
{
	char v[32];
	if (!*db_meta(db, "switches_per_s", v, sizeof(v)))
		return NULL;
	uint64_t rate = db_meta_u64(db, "switches_per_s");
	int warn = held && rate >= 1000 &&
		   !strcmp(db_meta(db, "watch_backend", v, sizeof(v)), "hw");
	snprintf(buf, len, "%" PRIu64 " a second (%" PRIu64 " in all)%s%s%s", rate,
		 db_meta_u64(db, "switches"),
		 warn ? "; each costs more while a thread holds debug-register events, on a VM "
			"most (doc/benchmarks.md)" : "",
		 warn && hint ? "; " : "", warn && hint ? hint : "");
	return buf;
}

void report_switch_line(sqlite3 *db, FILE *out, const char *prefix, int held, const char *hint)
{
	char buf[512];
	if (report_switch_text(db, buf, sizeof(buf), held, hint))
		fprintf(out, "%s%s\n", prefix, buf);
}

char *report_arm_fail_text(sqlite3 *db)
{
	uint64_t n = db_meta_u64(db, "arm_failures");
	int e = (int)db_meta_u64(db, "watch_errno");
	const char *name = e > 0 ? strerrorname_np(e) : NULL;
	char *text = NULL;
	size_t len = 0;

	if (!n)
		return NULL;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	fprintf(out, "%" PRIu64, n);
	if (e > 0)
		fprintf(out, ", the last %s (%s)", name ? name : "errno", strerror(e));
	/* what each usually means (doc/sonde-comm.md, "Arm failures") */
	char why[512];
	if (e == EOPNOTSUPP && *db_meta(db, "watch_why", why, sizeof(why)))
		fprintf(out, ": no watchpoint backend in this program: %s", why);
	else if (e == EOPNOTSUPP)
		fprintf(out, ": no watchpoint backend in this program (debug registers that could"
			     " not be opened at start, taken by breakpoint events bound to CPUs as"
			     " `perf record -e mem:ADDR -a` makes, or not offered; or soft"
			     " watchpoints asked of a program not built with sonde-cc: 'sonde info')");
	else if (e == ENOSPC)
		fprintf(out, ": the thread's debug registers were taken (a debugger, the program's"
			     " own breakpoints, or events bound to CPUs)");
	else if (e == EMFILE)
		fprintf(out, ": no file descriptor left for the event ('ulimit -n')");
	/* the watch engine's spin on a thread's set of slots gave up (watch-sig.c,
	 * set_lock: its trap handler or another armer held it): the arm was skipped, not
	 * refused by the kernel; a few in a busy run (the trial of 2026-11-28: 17 in a
	 * SimpleMOC run, unexplained) */
	else if (e == EAGAIN)
		fprintf(out, ": another thread was arming that thread's watchpoints, or its trap"
			     " handler held them, and the arm was skipped; a few are normal");
	else if (e == EEXIST)
		fprintf(out, ": the word was already watched in that thread; a few are normal");
	fclose(out);
	return text;
}

void report_arm_fail_line(sqlite3 *db, FILE *out, const char *prefix, const char *indent)
{
	char *text = report_arm_fail_text(db);

	if (text)	/* wrapped to 80 columns under the indent */
		text_hang(out, prefix, indent, text, 80);
	free(text);
}

void report_html_td(struct html *h, sqlite3_stmt *st, int col, int decimals)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		html_td(h, "");
	else if (decimals < 0)
		html_td_int(h, sqlite3_column_int64(st, col));
	else
		html_td_num(h, sqlite3_column_double(st, col), decimals);
}

int report_html_table_end(struct html *h, sqlite3_stmt *st, int rc, int64_t n, int64_t max,
			  const char *csv, const char *empty)
{
	while (rc == SQLITE_ROW && (rc = sqlite3_step(st)) == SQLITE_ROW)
		n++;
	html_table_end(h);
	if (n > max)
		html_printf(h, "<p>... %" PRId64 " more rows in %s</p>\n", n - max, csv);
	else if (!n && empty)
		html_para(h, empty);
	return db_finish(st, rc);
}

const char *report_debias(sqlite3 *db, char *buf, size_t len)
{
	char source[32];
	if (strcmp(db_meta(db, "source", source, sizeof(source)), "clock") ||
	    !*db_meta(db, "extra_steps_note", buf, len))
		return NULL;
	return buf;
}

int report_parse_top(const char *s, int *top)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000)
		return -1;
	*top = (int)v;
	return 0;
}

void report_debias_line(sqlite3 *db, FILE *out, const char *prefix, const char *indent)
{
	char note[1024];
	if (report_debias(db, note, sizeof(note)))
		text_hang(out, prefix, indent, note, 80);
}

/* The database of dir, written: into DIR/profile.db, or into memory (*mem) when mem is not
 * NULL.  *tool is the recording's tool. */
static int build(const char *dir, sqlite3 **mem, const struct tool **tool, char *err,
		 size_t errlen)
{
	struct profile *p;
	char path[4096];
	int r = profile_read(dir, &p, err, errlen);
	if (r)
		return r;
	struct fill_arg a = { .tool = recording_tool(p, err, errlen), .p = p };
	*tool = a.tool;
	if (!a.tool) {
		r = -EINVAL;
	} else if (mem) {
		if (sqlite3_open(":memory:", mem) != SQLITE_OK)
			r = errmsg(err, errlen, -ENOMEM, "cannot open a database in memory");
		else
			r = fill(*mem, &a, err, errlen);
		if (r) {
			sqlite3_close(*mem);
			*mem = NULL;
		}
	} else {
		snprintf(path, sizeof(path), "%s/profile.db", dir);
		r = db_write(path, fill, &a, err, errlen);
	}
	profile_free(p);
	return r;
}

int report_build(const char *dir, char *err, size_t errlen)
{
	const struct tool *tool;
	char path[4096];
	sqlite3 *db;
	int r = build(dir, NULL, &tool, err, errlen);
	if (r || !tool->export)
		return r;
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	if ((r = db_open(path, &db, err, errlen)))
		return r;
	r = tool->export(db, dir, err, errlen);
	sqlite3_close(db);
	return r;
}

/* The newest modification time of the raw files in dir; 0 if there are none. */
static int64_t newest_raw(const char *dir)
{
	DIR *d = opendir(dir);
	int64_t newest = 0;
	struct dirent *e;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!prof_is_raw_name(e->d_name))
			continue;
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) < 0)
			continue;
		int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (t > newest)
			newest = t;
	}
	closedir(d);
	return newest;
}

/* Is DIR/profile.db current: present, of this schema, no older than any raw file? */
static int db_current(const char *dir)
{
	char path[4096];
	struct stat st;
	sqlite3 *db;
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	if (stat(path, &st) < 0)
		return 0;
	int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (newest_raw(dir) > t)
		return 0;
	if (db_open(path, &db, NULL, 0))
		return 0;
	sqlite3_close(db);
	return 1;
}

/* A rebuild of dir failed with r (reason in err): when dir holds no raw file and path is
 * a database of another schema, say so instead (a newer sonde cannot read it); r.  With
 * raw files the rebuild's own error stands (a damaged file, a newer format). */
static int old_schema(const char *dir, const char *path, int r, char *err, size_t errlen)
{
	sqlite3 *db;
	char v[32];
	if (newest_raw(dir) > 0)
		return r;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return r;
	}
	db_meta(db, "schema", v, sizeof(v));
	sqlite3_close(db);
	if (*v && strcmp(v, DB_SCHEMA))
		errmsg(err, errlen, r, "%s is a profile database of schema %s, and this sonde reads "
		       "schema %s; the raw recording to rebuild it from is gone (a profile.db "
		       "alone is read by the sonde that made it: doc/profile-db.md)", path, v,
		       DB_SCHEMA);
	return r;
}

/*
 * An up-to-date database of dir, open: built (and exported) when missing or stale; built
 * in memory when the directory cannot be written (a read-only recording can be shown).
 */
static int open_current(const char *dir, sqlite3 **db, char *err, size_t errlen)
{
	const struct tool *tool;
	char path[4096];
	snprintf(path, sizeof(path), "%s/profile.db", dir);
	if (!db_current(dir)) {
		int r = report_build(dir, err, errlen);
		if (r == -EACCES || r == -EROFS || r == -EPERM)
			return build(dir, db, &tool, err, errlen);
		if (r)
			return old_schema(dir, path, r, err, errlen);
	}
	return db_open(path, db, err, errlen);
}

/* The up-to-date database of dir, open, and the tool that recorded it (*tool NULL, with
 * a reason in err, when this sonde does not know it). */
static int open_with_tool(const char *dir, sqlite3 **db, const struct tool **tool, char *err,
			  size_t errlen)
{
	char name[64];
	int r = open_current(dir, db, err, errlen);
	if (r)
		return r;
	*tool = tool_find(db_meta(*db, "tool", name, sizeof(name)));
	if (!*tool && !*name)	/* a .proc file of garbage, or cut before its tool= line */
		errmsg(err, errlen, -EINVAL, "%s: its .proc file names no tool: not a file sonde "
		       "wrote, or one cut short", dir);
	else if (!*tool)
		errmsg(err, errlen, -EINVAL, "%s: a profile of tool '%s', which this sonde does "
		       "not know", dir, name);
	return 0;
}

int report_source_note(const char *dir, const char *wanted, void (*say)(const char *note))
{
	sqlite3 *db;
	char err[256], got[32], why[1024], note[1200];
	if (!wanted || !strcmp(wanted, "auto") || open_current(dir, &db, err, sizeof(err)))
		return 0;
	int n = 0;
	db_meta(db, "source", got, sizeof(got));
	if (*got && strcmp(got, wanted)) {
		db_meta(db, "source_why", why, sizeof(why));
		snprintf(note, sizeof(note), "--source %s could not be used, the program was "
			 "sampled with %s instead (%s)", wanted, got, *why ? why : "no reason noted");
		say(note);
		n = 1;
	}
	sqlite3_close(db);
	return n;
}

/* One note through say, from fmt; 1 (a count of notes said). */
static int sayf(void (*say)(const char *note), const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int sayf(void (*say)(const char *note), const char *fmt, ...)
{
	char note[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	say(note);
	return 1;
}

static int notes_of(sqlite3 *db, void (*say)(const char *note))
{
	char why[16], note[512];
	int n = 0;
	if (*db_meta(db, "records_stopped", why, sizeof(why))) {
		uint64_t at = db_meta_u64(db, "records_stopped_at");
		snprintf(note, sizeof(note), "the recording stopped growing at %llu %s: %s; the "
			 "records after that were dropped (the report counts them)",
			 (unsigned long long)(at >= (1u << 20) ? at >> 20 : at >> 10),
			 at >= (1u << 20) ? "MiB" : "KiB",
			 !strcmp(why, "size") ? "SONDE_MAX_SIZE was reached"
					      : "the disk it is on kept its last 1% (at least 64 MiB) "
						"free for the program");
		say(note);
		n++;
	}
	/* counts the runtime noted in meta, each said with one figure */
	static const struct {
		const char *key, *fmt;
	} counted[] = {
		{ "clock_timer_failed",
		  "%llu thread(s) went unsampled: they got no POSIX CPU-time timer (timer_create "
		  "failed; the user's pending-signal limit, 'ulimit -i', is the usual cause: raise "
		  "it, or SONDE_CLOCK_TIMER=perf samples with perf events, at a higher cost per "
		  "context switch; sonde-comm(1))" },
		{ "alloc_table_full",
		  "%llu allocations were not tracked: over 1,048,576 heap blocks were live at "
		  "once, which fills the runtime's table of tracked blocks; the samples in them "
		  "read as [heap: untracked blocks] (a larger --min-object tracks fewer, larger "
		  "blocks; sonde-mem(1))" },
		{ "fds_lost",
		  "the program dup2'd onto %llu of the runtime's descriptors: the samples or "
		  "records they carried stopped there (their threads', or the whole process's at "
		  "the default period; doc/architecture.md)" },
	};
	for (size_t i = 0; i < sizeof(counted) / sizeof(counted[0]); i++) {
		uint64_t v = db_meta_u64(db, counted[i].key);
		if (!v)
			continue;
		snprintf(note, sizeof(note), counted[i].fmt, (unsigned long long)v);
		say(note);
		n++;
	}
	/* a process a signal ended (mem's header says it in its own words) */
	uint64_t killed = db_meta_u64(db, "ended_by_signal");
	char tool[16], fk[64];
	int kpid = 0, ksig = 0;
	if (killed && strcmp(db_meta(db, "tool", tool, sizeof(tool)), "mem") &&
	    sscanf(db_meta(db, "ended_by_signal_first", fk, sizeof(fk)), "%d %d", &kpid,
		   &ksig) == 2)
		n += sayf(say, "%llu process(es) ended by a signal (the first: %d, by signal %d, "
			  "%s): the profile holds what they recorded until then",
			  (unsigned long long)killed, kpid, ksig, ksig > 0 ? strsignal(ksig) : "?");
	/* a process that wrote no end: its threads' closing records (their counters) are
	 * missing, and what they held in memory (the usability review of 2026-11-29: comm
	 * after a SIGKILL read "0 samples", "the trap handler could not be installed" and
	 * "ran too briefly") */
	uint64_t unended = db_meta_u64(db, "unended");
	if (unended)
		n += sayf(say, "%llu process(es) ended without closing the recording (the first: "
			  "%llu): killed by SIGKILL (kill -9, the OOM killer, a batch time limit), "
			  "or still running.  What their threads had written is here (a thread "
			  "writes at least once a second); the counters each thread writes at its "
			  "end (samples, arms, traps) are not, so the header's read low or 0",
			  (unsigned long long)unended,
			  (unsigned long long)db_meta_u64(db, "unended_first"));
	/* the atomics the inst source cannot see (fill_inst_atomics; the usability review of
	 * 2026-11-28: comm --exact read an atomic counter's true sharing as none) */
	uint64_t at = db_meta_u64(db, "inst_atomics");
	if (at) {
		char in[400];
		db_meta(db, "inst_atomics_in", in, sizeof(in));
		n += sayf(say, "the program's code holds %llu atomic read-modify-write(s) (lock-"
			  "prefixed instructions) in %llu function(s), %s, which the inst "
			  "source does not see (sonde-cc's load and store callbacks leave them out): "
			  "their accesses, and the transfers and reuses they make, are missing here, "
			  "as are those of libraries not built by sonde-cc (libc's locks); the clock "
			  "source samples them (sonde-cc(1))", (unsigned long long)at,
			  (unsigned long long)db_meta_u64(db, "inst_atomics_funcs"), in);
	}
	uint64_t asked = db_meta_u64(db, "period_asked");
	char srcname[16];	/* (the process that took it: a wrapper's source may differ) */
	if (asked && !strcmp(db_meta(db, "period_asked_source", srcname, sizeof(srcname)), "inst"))
		n += sayf(say, "--period %llu was taken as %llu, the next prime: a period that "
			  "a loop's accesses per iteration divide samples the same access of it "
			  "every time, a prime one each in turn", (unsigned long long)asked,
			  (unsigned long long)db_meta_u64(db, "period_given"));
	else if (asked)
		n += sayf(say, "--period %llu is under the clock source's least, %llu ns (the "
			  "kernel's CPU clock takes no shorter period): it sampled every %llu ns of "
			  "CPU time, as the header says", (unsigned long long)asked,
			  (unsigned long long)db_meta_u64(db, "period_given"),
			  (unsigned long long)db_meta_u64(db, "period_given"));
	uint64_t deaf = db_meta_u64(db, "clock_unsignalled");
	if (deaf)
		n += sayf(say, "%llu thread(s) got no sampling signal in %.2f s of CPU time (or one, "
			  "held to their end): they "
			  "block SIGTRAP, the signal the clock source samples with (sigprocmask or "
			  "pthread_sigmask in the program), so none of their time is in the "
			  "profile; unblock it where they run, or rebuild with sonde-cc (the inst "
			  "source takes no signal)", (unsigned long long)deaf,
			  (double)db_meta_u64(db, "clock_unsignalled_cpu_ns") / 1e9);
	/* POSIX CPU-time timers fire only at a scheduler tick that finds their thread running
	 * (src/rt/source-clock.c): a thread that runs between ticks (woken just after one,
	 * asleep again before the next, beside other work on its CPU) gets few signals for
	 * its CPU time, and one that blocks the runtime's signal none.  A thread alone gets
	 * one a tick, 250 a CPU second at HZ=250 (fill_process_meta: the threads with under a
	 * quarter of one a 10 ms tick or a period, whichever is longer; "gives N or more" is
	 * their CPU time over that).  commbench pairs 20000 pinned to one CPU beside a busy
	 * loop (bench/clock-starved.sh): 4 of its 5 threads 0 signals for 0.29 s of CPU. */
	uint64_t sv = db_meta_u64(db, "clock_timer_starved");
	if (sv) {
		uint64_t sc = db_meta_u64(db, "clock_timer_starved_cpu_ns");
		snprintf(note, sizeof(note), "%llu of the %llu threads sampled by POSIX CPU-time "
			 "timers got %llu signal(s) for %.2f s of CPU time, where one a scheduler "
			 "tick gives %llu or more: such a timer fires only at a tick that finds its "
			 "thread running, and these threads ran between ticks (beside other work on "
			 "their CPUs) or blocked the runtime's signal; the samples lean away from "
			 "them.  SONDE_CLOCK_TIMER=perf samples by a perf event's own timer, at a "
			 "cost at each context switch (sonde-comm(1))",
			 (unsigned long long)sv,
			 (unsigned long long)db_meta_u64(db, "clock_timer_threads"),
			 (unsigned long long)db_meta_u64(db, "clock_timer_starved_signals"),
			 (double)sc / 1e9,
			 (unsigned long long)db_meta_u64(db, "clock_timer_starved_expected"));
		say(note);
		n++;
	}
	return n;
}

int report_notes(const char *dir, void (*say)(const char *note))
{
	sqlite3 *db;
	char err[256];
	if (open_current(dir, &db, err, sizeof(err)))
		return 0;
	int n = notes_of(db, say);
	sqlite3_close(db);
	return n;
}

int report_print(const char *dir, FILE *out, const struct report_opts *o, char *err,
		 size_t errlen)
{
	sqlite3 *db;
	const struct tool *tool;
	int r = open_with_tool(dir, &db, &tool, err, errlen);
	if (r)
		return r;
	if (!tool || !tool->print)
		r = tool ? errmsg(err, errlen, -EINVAL, "%s: tool '%s' cannot print a profile", dir,
				  tool->name) : -EINVAL;
	else if ((r = tool->print(db, out, o)))
		errmsg(err, errlen, r, "reading the profile database: %s", sqlite3_errmsg(db));
	else if (o->say) {
		/* the report first: stdout to a file or pipe is buffered, and the notes (stderr)
		 * landed inside its last paragraph under `2>&1` (the trial of 2026-11-29) */
		fflush(out);
		notes_of(db, o->say);
	}
	sqlite3_close(db);
	return r;
}

/* The page of db (a recording of tool) into path. */
static int write_page(sqlite3 *db, const struct tool *tool, const char *path, char *err,
		      size_t errlen)
{
	char title[96];
	snprintf(title, sizeof(title), "sonde %s", tool->name);
	struct html *page = html_new(title);
	if (!page)
		return errmsg(err, errlen, -ENOMEM, "cannot build the page: %s", strerror(ENOMEM));
	int r = tool->html(db, page);
	if (r)
		errmsg(err, errlen, r, "reading the profile database: %s", sqlite3_errmsg(db));
	else if ((r = html_save(page, path, err, errlen)) == -ENOENT)
		r = -EIO;	/* -ENOENT says "no recording" to the callers: the page's folder is missing */
	html_free(page);
	return r;
}

int report_html(const char *dir, const char *path, char *err, size_t errlen)
{
	sqlite3 *db;
	const struct tool *tool;
	int r = open_with_tool(dir, &db, &tool, err, errlen);
	if (r)
		return r;
	if (!tool || !tool->html)
		r = tool ? errmsg(err, errlen, -EINVAL, "%s: a profile of tool '%s', which has no "
				  "HTML page", dir, tool->name) : -EINVAL;
	else
		r = write_page(db, tool, path, err, errlen);
	sqlite3_close(db);
	return r;
}

/* The command line, its words quoted where a shell would split them: "my prog,v2" with a
 * space read as two words (the usability review of 2026-11-29, L7). */
const char *report_program(sqlite3 *db, char *buf, size_t len)
{
	char raw[4096];
	if (!*db_meta(db, "argv", raw, sizeof(raw)) && !*db_meta(db, "exe", raw, sizeof(raw))) {
		snprintf(buf, len, "(unknown program)");
		return buf;
	}
	size_t o = 0;
	buf[0] = 0;
	for (char *w = raw, *sep; w && o + 1 < len; w = sep ? sep + 1 : NULL) {
		char q[sizeof(raw) + 16];
		if ((sep = strchr(w, '\x1f')))	/* the .proc's separator of arguments */
			*sep = 0;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "",
				      text_shell_word(w, q, sizeof(q)));
	}
	return buf;
}

double report_share_error(double p, double n)
{
	return n > 0 && p >= 0 && p <= 1 ? 1.96 * sqrt(p * (1 - p) / n) : 1;
}
