/* SPDX-License-Identifier: MIT */
/*
 * db.c - the mem tool's tables in the profile database (doc/profile-db.md): processes,
 * threads, calling contexts, data objects, code, allocations and the samples themselves.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "prof/errmsg.h"
#include "prof/file.h"
#include "prof/db.h"
#include "tools/mem/mem.h"
#include "tools/mem/format.h"
#include "tools/mem/model.h"
#include "prof/symbols.h"


static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE processes(id INTEGER PRIMARY KEY, prefix TEXT, pid INTEGER, ppid INTEGER,"
	" rank INTEGER, host TEXT, exe TEXT, argv TEXT, tool TEXT, source TEXT, source_why TEXT,"
	" period INTEGER, period_unit TEXT, start_ns INTEGER, end_ns INTEGER, end TEXT,"
	" signo INTEGER, threads INTEGER, min_object INTEGER, symbols TEXT,"
	" unmatched_frees INTEGER, exec_into TEXT, exec_followed INTEGER, fork_exec INTEGER);"
	"CREATE TABLE threads(id INTEGER PRIMARY KEY, process INTEGER, thread_index INTEGER,"
	" tid INTEGER, label TEXT, samples INTEGER, loads INTEGER, stores INTEGER,"
	" records INTEGER, dropped INTEGER, signals INTEGER, steps INTEGER, traps INTEGER,"
	" accesses INTEGER, cpu_ns INTEGER, unwind_fail INTEGER, truncated INTEGER,"
	" end_signo INTEGER, stack_lo INTEGER, stack_hi INTEGER, unknown_records INTEGER,"
	" file TEXT, omp_thread INTEGER, unsignalled INTEGER);"
	"CREATE TABLE contexts(id INTEGER PRIMARY KEY, process INTEGER, thread INTEGER,"
	" parent INTEGER, ip INTEGER, module TEXT, function TEXT, file TEXT, line INTEGER);"
	"CREATE TABLE inlined(context INTEGER, depth INTEGER, function TEXT, file TEXT,"
	" line INTEGER);"
	"CREATE TABLE objects(id INTEGER PRIMARY KEY, name TEXT, kind TEXT, size INTEGER,"
	" allocs INTEGER, samples INTEGER, loads INTEGER, stores INTEGER, share REAL,"
	" function TEXT, file TEXT, line INTEGER, module TEXT, path TEXT);"
	"CREATE TABLE object_threads(object INTEGER, thread INTEGER, samples INTEGER,"
	" share REAL);"
	"CREATE TABLE code(id INTEGER PRIMARY KEY, function TEXT, file TEXT, line INTEGER,"
	" module TEXT, samples INTEGER, loads INTEGER, stores INTEGER, share REAL);"
	"CREATE TABLE allocations(id INTEGER PRIMARY KEY, process INTEGER, thread INTEGER,"
	" context INTEGER, object INTEGER, addr INTEGER, size INTEGER, time INTEGER,"
	" free_time INTEGER, flags INTEGER);"
	"CREATE TABLE mem_samples(thread INTEGER, context INTEGER, code INTEGER,"
	" object INTEGER, addr INTEGER, time INTEGER, len INTEGER, flags INTEGER,"
	" weight INTEGER);"
	"CREATE TABLE drops(thread INTEGER, cause TEXT, count INTEGER);";

static const char index_sql[] =
	"CREATE INDEX object_threads_object ON object_threads(object);"
	"CREATE INDEX contexts_thread ON contexts(thread);";


struct writer {
	sqlite3 *db;
	const struct memmodel *m;
	char *err;
	size_t errlen;
	int64_t *ctx_base;	/* per thread: global context id = base + index in t->ctx + 1 */
};

static int prepare(struct writer *w, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(w->db, w->err, w->errlen, "preparing a statement");
	return 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* ---- meta ---- */

/*
 * The processes whose .proc keys describe the samples: those that took more than a few
 * (more than 0 can be told from: prof_samples_alike), else those that took any, else all
 * of them (mark[i] set).  A wrapper that ran the program (/usr/bin/time, env) took none,
 * or one where its loader ran past a clock period (t031 on a slow VM: env's part read
 * 1); its program name and its sample source (clock, where a sonde-cc program's is inst)
 * would make the header "mixed".  NULL when out of memory.
 */
static char *describing(const struct profile *p)
{
	char *mark = calloc(p->nproc + 1, 1);
	int any = 0;
	if (!mark)
		return NULL;
	for (int least = 1; least >= 0 && !any; least--)
		for (size_t i = 0; i < p->nproc; i++) {
			uint64_t n = prof_process_samples(&p->proc[i]);
			any |= mark[i] = least ? !prof_samples_alike(0, n) : n > 0;
		}
	if (!any)
		memset(mark, 1, p->nproc);
	/* a source that counts accesses (inst, hw) describes the samples where a marked
	 * process has one: a wrapper not built by sonde-cc falls back to the clock, and its
	 * loader took 5 samples in a pair of suites (t031: "source mixed", the exe env's);
	 * reuse sums its processes by the same rule (sum_source) */
	int counting = 0;
	for (size_t i = 0; i < p->nproc; i++)
		counting |= mark[i] && p->proc[i].source && (!strcmp(p->proc[i].source, "inst") ||
							    !strcmp(p->proc[i].source, "hw"));
	for (size_t i = 0; i < p->nproc && counting; i++)
		if (p->proc[i].source && !strcmp(p->proc[i].source, "clock"))
			mark[i] = 0;
	return mark;
}

/* The value of a .proc string key if the marked processes agree, else "mixed". */
static const char *common_str(const struct profile *p, const char *mark, size_t off)
{
	const char *v = NULL;
	for (size_t i = 0; i < p->nproc; i++) {
		const char *s = *(char *const *)((const char *)&p->proc[i] + off);
		if (!mark[i])
			continue;
		if (!v)
			v = s;
		else if (strcmp(v, s))
			return "mixed";
	}
	return v ? v : "";
}

/* The program as launched where the marked processes ran several (a fork + exec): the
 * earliest process's exe or argv (offset off), not "mixed", which read as a program of
 * that name and lost the command line (the usability review of 2026-11-29); the header's
 * programs line names the others. */
static const char *launched_str(const struct profile *p, const char *mark, size_t off)
{
	const char *v = common_str(p, mark, off);
	if (strcmp(v, "mixed"))
		return v;
	const struct prof_process *first = NULL;
	for (size_t i = 0; i < p->nproc; i++)	/* (any: a wrapper then, as launched) */
		if (!first || p->proc[i].start_ns < first->start_ns)
			first = &p->proc[i];
	return first ? *(char *const *)((const char *)first + off) : v;
}

/* The period of the marked processes; *mixed set (and 0 returned) if they differ. */
static uint64_t common_period(const struct profile *p, const char *mark, int *mixed)
{
	uint64_t v = 0;
	int first = 1;
	*mixed = 0;
	for (size_t i = 0; i < p->nproc; i++) {
		if (!mark[i])
			continue;
		if (first)
			v = p->proc[i].period;
		else if (p->proc[i].period != v)
			*mixed = 1;
		first = 0;
	}
	return *mixed ? 0 : v;
}

static void meta_counts(const struct memmodel *m, uint64_t *c)
{
	memset(c, 0, 6 * sizeof(*c));
	for (size_t i = 0; i < m->nthread; i++) {
		const struct prof_thread *t = m->thread[i].t;
		c[0] += t->stats.dropped;
		c[1] += t->truncated;
		c[2] += t->stats.traps;
		c[3] += t->stats.steps;
		c[4] += t->stats.accesses;
		c[5] += t->stats.unwind_fail;
	}
}

static int write_meta(struct writer *w)
{
	const struct memmodel *m = w->m;
	const struct profile *p = m->prof;
	sqlite3_stmt *st;
	uint64_t c[6];
	char period[32] = "", scaling[DB_SCALING_MAX];
	char *mark = describing(p);
	int r = mark ? prepare(w, "INSERT INTO meta VALUES(?,?)", &st) : -ENOMEM;
	if (r) {
		free(mark);
		return r == -ENOMEM ? errmsg(w->err, w->errlen, r, "writing meta") : r;
	}
	meta_counts(m, c);
	int mixed;
	uint64_t per = common_period(p, mark, &mixed);
	db_scaling(common_str(p, mark, offsetof(struct prof_process, source)), per,
		   profile_clock_posix(p), scaling, sizeof(scaling));
	if (mixed)
		snprintf(period, sizeof(period), "mixed");
	else if (p->nproc)
		snprintf(period, sizeof(period), "%llu", (unsigned long long)per);
	/* string values; NULL: the next of nums[] */
	struct {
		const char *k;
		const char *s;
	} kv[] = {
		{ "schema", DB_SCHEMA },
		{ "sonde_version", SONDE_VERSION },
		{ "tool", common_str(p, mark, offsetof(struct prof_process, tool)) },
		{ "source", common_str(p, mark, offsetof(struct prof_process, source)) },
		{ "source_why", common_str(p, mark, offsetof(struct prof_process, source_why)) },
		{ "period", period },
		{ "period_unit", common_str(p, mark, offsetof(struct prof_process, period_unit)) },
		{ "scaling", scaling },
		{ "exe", launched_str(p, mark, offsetof(struct prof_process, exe)) },
		{ "argv", launched_str(p, mark, offsetof(struct prof_process, argv)) },
		{ "samples", NULL },
		{ "records", NULL },
		{ "loads", NULL },
		{ "stores", NULL },
		{ "dropped", NULL },
		{ "truncated_threads", NULL },
		{ "traps", NULL },
		{ "steps", NULL },
		{ "accesses", NULL },
		{ "unwind_fail", NULL },
		{ "processes", NULL },
		{ "threads", NULL },
		{ "format_version", NULL },
	};
	uint64_t nums[] = { m->samples, m->records, m->loads, m->stores, c[0], c[1], c[2], c[3],
			    c[4], c[5], p->nproc, m->nthread,
			    m->nthread ? m->thread[0].t->hdr.version : SONDE_FORMAT_VERSION };
	size_t k = 0;
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !r; i++) {
		char buf[64];
		const char *v = kv[i].s;
		if (!v) {
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)nums[k++]);
			v = buf;
		}
		r = db_row(st, "tt", kv[i].k, v);
	}
	sqlite3_finalize(st);
	free(mark);
	return r ? db_fail(w->db, w->err, w->errlen, "writing meta") : 0;
}

/* ---- processes and threads ---- */

static const char *symtab_state(const struct prof_process *pr, const struct mm_process *mp,
				char *buf, size_t len)
{
	if (mp->symtab)
		return "ok";
	if (!pr->maps_path)
		return "none: no maps copy";
	/* symtab_new: a FIFO or a device in its place is not a regular file */
	snprintf(buf, len, "none: %s%s",
		 mp->symtab_err == FILE_NOT_REGULAR ? "the maps copy is " : "",
		 file_strerror(mp->symtab_err));
	return buf;
}

static int write_processes(struct writer *w)
{
	const struct profile *p = w->m->prof;
	sqlite3_stmt *st;
	int r = prepare(w, "INSERT INTO processes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			   "?,?,?,?)", &st);
	for (size_t i = 0; i < p->nproc && !r; i++) {
		const struct prof_process *pr = &p->proc[i];
		char buf[128];
		r = db_row(st, "itiiittttttutuutiiututii", (int64_t)i + 1, pr->prefix,
			(int64_t)pr->pid, (int64_t)pr->ppid, (int64_t)pr->rank, pr->host, pr->exe,
			pr->argv, pr->tool, pr->source, pr->source_why, pr->period, pr->period_unit,
			pr->start_ns, pr->end_ns, pr->end, (int64_t)pr->signo,
			(int64_t)pr->threads, pr->min_object,
			symtab_state(pr, &w->m->proc[i], buf, sizeof(buf)),
			w->m->proc[i].unmatched_frees, profile_exec_image(p, i),
			(int64_t)pr->exec_followed, (int64_t)profile_fork_exec(p, i));
	}
	sqlite3_finalize(st);
	return r ? db_fail(w->db, w->err, w->errlen, "writing processes") : 0;
}

static int write_threads(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st;
	int r = prepare(w, "INSERT INTO threads VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
			   "?,?,?,?)", &st);
	for (size_t i = 0; i < m->nthread && !r; i++) {
		const struct mm_thread *th = &m->thread[i];
		const struct prof_thread *t = th->t;
		/* the OpenMP number last: '-' (NULL, no argument) when unknown or varied */
		int omp = prof_omp_thread(t);
		int64_t uns = profile_thread_unsignalled(th->proc, t);
		/* ('-' takes no argument: the unsignalled flag comes first, then the OpenMP
		 * number, which the NULL case leaves unread) */
		r = db_row(st, omp >= 0 ? "iiiituuuuuuuuuuuiiuuutii" : "iiiituuuuuuuuuuuiiuuut-i",
			(int64_t)i + 1, (int64_t)th->proc_index + 1,
			(int64_t)t->hdr.thread_index, (int64_t)t->hdr.tid, th->label, th->samples,
			th->loads, th->stores, (uint64_t)t->nmem, t->stats.dropped,
			t->stats.signals, t->stats.steps, t->stats.traps, t->stats.accesses,
			t->stats.cpu_ns, t->stats.unwind_fail, (int64_t)t->truncated,
			(int64_t)t->end_signo, t->hdr.stack_lo, t->hdr.stack_hi, t->unknown,
			t->path, omp >= 0 ? (int64_t)omp : uns, uns);
	}
	sqlite3_finalize(st);
	return r ? db_fail(w->db, w->err, w->errlen, "writing threads") : 0;
}

/* ---- calling contexts ---- */

/* Global id of node `id` of thread i; 0 (NULL in the table) if the node is unknown. */
static int64_t ctx_global(const struct writer *w, size_t i, uint32_t id)
{
	const struct prof_thread *t = w->m->thread[i].t;
	const struct prof_ctx *c = id ? prof_ctx_find(t, id) : NULL;
	return c ? w->ctx_base[i] + (c - t->ctx) + 1 : 0;
}

/* Nodes whose ip is a return address: callers of other nodes and allocation calls. */
static uint8_t *return_marks(const struct writer *w, size_t i)
{
	const struct prof_thread *t = w->m->thread[i].t;
	uint8_t *mark = calloc(t->nctx + 1, 1);
	if (!mark)
		return NULL;
	for (size_t k = 0; k < t->nctx; k++) {
		const struct prof_ctx *p = prof_ctx_find(t, t->ctx[k].parent);
		if (p)
			mark[p - t->ctx] = 1;
	}
	for (size_t k = 0; k < t->nalloc; k++) {
		const struct prof_ctx *p = prof_ctx_find(t, t->alloc[k].ctx);
		if (p)
			mark[p - t->ctx] = 1;
	}
	return mark;
}

static int bind_opt(sqlite3_stmt *st, int col, int64_t v)
{
	return v ? sqlite3_bind_int64(st, col, v) : sqlite3_bind_null(st, col);
}

static int write_context(struct writer *w, sqlite3_stmt *st, sqlite3_stmt *inl, size_t i,
			 size_t k, int is_return)
{
	const struct mm_thread *th = &w->m->thread[i];
	const struct prof_ctx *c = &th->t->ctx[k];
	struct sym_code sc;
	int64_t id = w->ctx_base[i] + (int64_t)k + 1;
	int n = mm_symbolize(w->m, th->proc_index, c->ip, is_return, &sc);
	const struct sym_frame *f = n ? &sc.frames[0] : NULL;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (int64_t)th->proc_index + 1);
	sqlite3_bind_int64(st, 3, (int64_t)i + 1);
	bind_opt(st, 4, ctx_global(w, i, c->parent));
	sqlite3_bind_int64(st, 5, (int64_t)c->ip);
	sqlite3_bind_text(st, 6, sc.module, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, f ? f->function : NULL, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, f ? f->file : NULL, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, f ? f->line : 0);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -EIO;
	for (int d = 1; d < n; d++)
		if (db_row(inl, "iitti", id, (int64_t)d, sc.frames[d].function, sc.frames[d].file,
			(int64_t)sc.frames[d].line))
			return -EIO;
	return 0;
}

static int write_contexts(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st, *inl;
	int64_t next = 0;
	int r = prepare(w, "INSERT INTO contexts VALUES(?,?,?,?,?,?,?,?,?)", &st);
	if (r)
		return r;
	if ((r = prepare(w, "INSERT INTO inlined VALUES(?,?,?,?,?)", &inl))) {
		sqlite3_finalize(st);
		return r;
	}
	for (size_t i = 0; i < m->nthread; i++) {
		w->ctx_base[i] = next;
		next += (int64_t)m->thread[i].t->nctx;
	}
	for (size_t i = 0; i < m->nthread && !r; i++) {
		uint8_t *mark = return_marks(w, i);
		if (!mark) {
			r = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < m->thread[i].t->nctx && !r; k++)
			r = write_context(w, st, inl, i, k, mark[k]);
		free(mark);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(inl);
	if (r == -ENOMEM)
		return errmsg(w->err, w->errlen, r, "out of memory writing contexts");
	return r ? db_fail(w->db, w->err, w->errlen, "writing contexts") : 0;
}

/* ---- objects, code ---- */

static int write_objects(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st, *ot;
	int r = prepare(w, "INSERT INTO objects VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st);
	if (r)
		return r;
	if ((r = prepare(w, "INSERT INTO object_threads VALUES(?,?,?,?)", &ot))) {
		sqlite3_finalize(st);
		return r;
	}
	for (size_t i = 0; i < m->nobject && !r; i++) {
		const struct mm_object *o = &m->object[i];
		r = db_row(st, "ittuuuuudttitt", (int64_t)i + 1, o->name, mm_kind_name(o->kind),
			o->size, o->allocs, o->samples, o->loads, o->stores,
			share(o->samples, m->samples), o->function, o->file, (int64_t)o->line,
			o->module, o->path);
	}
	for (size_t i = 0; i < m->nobjthread && !r; i++) {
		const struct mm_objthread *x = &m->objthread[i];
		r = db_row(ot, "iiud", (int64_t)x->object + 1, (int64_t)x->thread + 1, x->samples,
			share(x->samples, m->object[x->object].samples));
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ot);
	return r ? db_fail(w->db, w->err, w->errlen, "writing objects") : 0;
}

static int write_code(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st;
	int r = prepare(w, "INSERT INTO code VALUES(?,?,?,?,?,?,?,?,?)", &st);
	for (size_t i = 0; i < m->ncode && !r; i++) {
		const struct mm_code *c = &m->code[i];
		r = db_row(st, "ittituuud", (int64_t)i + 1, c->function, c->file, (int64_t)c->line,
			c->module, c->samples, c->loads, c->stores, share(c->samples, m->samples));
	}
	sqlite3_finalize(st);
	return r ? db_fail(w->db, w->err, w->errlen, "writing code") : 0;
}

/* ---- allocations and samples ---- */

static int write_allocations(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st;
	int64_t id = 0;
	int r = prepare(w, "INSERT INTO allocations VALUES(?,?,?,?,?,?,?,?,?,?)", &st);
	for (size_t p = 0; p < m->prof->nproc && !r; p++)
		for (size_t k = 0; k < m->proc[p].nalloc && !r; k++) {
			const struct mm_alloc *a = &m->proc[p].alloc[k];
			if (a->flags & MM_ALLOC_INHERITED)	/* (the parent's row) */
				continue;
			int64_t ctx = ctx_global(w, a->thread, a->ctx);
			sqlite3_bind_int64(st, 1, ++id);
			sqlite3_bind_int64(st, 2, (int64_t)p + 1);
			sqlite3_bind_int64(st, 3, (int64_t)a->thread + 1);
			bind_opt(st, 4, ctx);
			sqlite3_bind_int64(st, 5, (int64_t)a->object + 1);
			sqlite3_bind_int64(st, 6, (int64_t)a->addr);
			sqlite3_bind_int64(st, 7, (int64_t)a->size);
			sqlite3_bind_int64(st, 8, (int64_t)a->time);
			if (a->free_time == UINT64_MAX)
				sqlite3_bind_null(st, 9);
			else
				sqlite3_bind_int64(st, 9, (int64_t)a->free_time);
			sqlite3_bind_int64(st, 10, a->flags);
			int rc = sqlite3_step(st);
			sqlite3_reset(st);
			r = rc == SQLITE_DONE ? 0 : -EIO;
		}
	sqlite3_finalize(st);
	return r ? db_fail(w->db, w->err, w->errlen, "writing allocations") : 0;
}

static int write_samples(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st;
	int r = prepare(w, "INSERT INTO mem_samples VALUES(?,?,?,?,?,?,?,?,?)", &st);
	for (size_t i = 0; i < m->nthread && !r; i++) {
		const struct mm_thread *th = &m->thread[i];
		/* times relative to the process start keep the integers short */
		uint64_t t0 = th->proc->start_ns;
		for (size_t k = 0; k < th->t->nmem && !r; k++) {
			const struct sonde_rec_mem *s = &th->t->mem[k];
			sqlite3_bind_int64(st, 1, (int64_t)i + 1);
			bind_opt(st, 2, ctx_global(w, i, s->ctx));
			sqlite3_bind_int64(st, 3, (int64_t)th->code[k] + 1);
			sqlite3_bind_int64(st, 4, (int64_t)th->object[k] + 1);
			sqlite3_bind_int64(st, 5, (int64_t)s->addr);
			sqlite3_bind_int64(st, 6, (int64_t)(s->time - t0));
			sqlite3_bind_int(st, 7, s->len);
			sqlite3_bind_int(st, 8, s->flags);
			sqlite3_bind_int64(st, 9, (int64_t)(s->weight ? s->weight : 1));
			int rc = sqlite3_step(st);
			sqlite3_reset(st);
			r = rc == SQLITE_DONE ? 0 : -EIO;
		}
	}
	sqlite3_finalize(st);
	return r ? db_fail(w->db, w->err, w->errlen, "writing samples") : 0;
}

/* ---- dropped samples by cause ---- */

/* One row per cause with a count, from each thread's MEM_REC_DROPS record; a thread's
 * drops that no cause accounts for (a source without causes) are an "other" row. */
static int write_drops(struct writer *w)
{
	const struct memmodel *m = w->m;
	sqlite3_stmt *st;
	int r = prepare(w, "INSERT INTO drops VALUES(?,?,?)", &st);
	for (size_t i = 0; i < m->nthread && !r; i++) {
		const struct prof_thread *t = m->thread[i].t;
		const struct sonde_rec_hdr *h;
		size_t off = 0;
		uint64_t sum = 0;
		while (!t->swapped && !r && (h = prof_tool_next(t, &off))) {
			const struct mem_rec_drops *d = (const void *)h;
			if (h->type != MEM_REC_DROPS || h->size < sizeof(*d) || d->n > MEM_DROP_MAX ||
			    h->size < sizeof(*d) + d->n * sizeof(struct mem_drop))
				continue;
			const struct mem_drop *c = (const void *)(d + 1);
			for (uint32_t k = 0; k < d->n && !r; k++) {
				char name[MEM_DROP_NAME + 1];
				memcpy(name, c[k].name, MEM_DROP_NAME);
				name[MEM_DROP_NAME] = 0;
				sum += c[k].count;
				if (c[k].count)
					r = db_row(st, "itu", (int64_t)i + 1, name, c[k].count);
			}
		}
		if (!r && t->stats.dropped > sum)
			r = db_row(st, "itu", (int64_t)i + 1, "other", t->stats.dropped - sum);
	}
	sqlite3_finalize(st);
	return r ? db_fail(w->db, w->err, w->errlen, "writing drops") : 0;
}

/* ---- the database ---- */

int mem_db_fill(sqlite3 *db, const struct memmodel *m, char *err, size_t errlen)
{
	struct writer w = { .db = db, .m = m, .err = err, .errlen = errlen };
	int r;

	w.ctx_base = calloc(m->nthread + 1, sizeof(*w.ctx_base));
	if (!w.ctx_base)
		return errmsg(err, errlen, -ENOMEM, "out of memory");
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
		free(w.ctx_base);
		return db_fail(db, err, errlen, "creating tables");
	}
	r = write_meta(&w);
	if (!r)
		r = write_processes(&w);
	if (!r)
		r = write_threads(&w);
	if (!r)
		r = write_contexts(&w);
	if (!r)
		r = write_objects(&w);
	if (!r)
		r = write_code(&w);
	if (!r)
		r = write_allocations(&w);
	if (!r)
		r = write_samples(&w);
	if (!r)
		r = write_drops(&w);
	if (!r && sqlite3_exec(db, index_sql, NULL, NULL, NULL) != SQLITE_OK)
		r = db_fail(db, err, errlen, "creating indexes");
	if (!r && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		r = db_fail(db, err, errlen, "committing");
	if (r)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(w.ctx_base);
	return r;
}
