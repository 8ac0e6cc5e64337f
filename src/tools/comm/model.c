/* SPDX-License-Identifier: MIT */
/*
 * model.c - the comm tool's model: the matrices, object and pair rankings of a recording,
 * written to the profile database (tables comm_cells, comm_objects, comm_pairs and meta;
 * doc/sonde-comm.md, "Output").
 *
 * Volumes.  A sampled communication stands for period x weight x scale transfers (scale 1
 * for a sample on the board, L / (D x M) for a trap).  With the clock source the period is
 * CPU time, not a count, so the unit is the sample: volumes are sample-scaled, not
 * transfers.  Exact records count transfers themselves.  Each communication adds to
 * cell [src][dst]; the matrices are symmetrized at the end (M[i][j] + M[j][i]), diagonal 0.
 * Core matrices use the CPUs at publication and observation; same-CPU pairs are dropped
 * (threads time-sharing a CPU do not move lines between caches).
 *
 * Processes (MPI ranks, or any processes of one recording) are modelled one by one: each
 * gets its own matrices, objects and pairs (rows with part = its index in the recording),
 * and the merged report (part = -1) numbers the threads of all of them one after the
 * other, rank 0's first (table comm_threads maps them back); threads of different
 * processes share no memory the tool sees, so the merged thread matrix is block-diagonal,
 * and the merged core matrix adds the processes' core matrices.  A recording of one
 * process has only the merged rows.
 * Objects are named as `sonde mem` names them: the observing accesses are handed to the
 * mem tool's model (tools/mem/model.h, used read-only) as synthetic samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/profile.h"
#include "prof/symbols.h"
#include "tools/comm/comm.h"
#include "tools/comm/detect.h"
#include "tools/comm/format.h"
#include "tools/mem/model.h"

const char *const comm_kind_name[COMM_NKIND] = { "all", "true", "false" };
const char *const comm_unit_name[COMM_NUNIT] = { "thread", "core" };

#define TOP_PAIRS 20
#define COMM_LINE_BYTES ((uint64_t)COMM_LINE_DEFAULT)	/* the runtime's line */

struct event {
	uint32_t src, dst, flags, thread;	/* thread: index in proc->thread (observer) */
	uint64_t amount, addr, ip, src_ip, src_addr, time;
	uint64_t weight;			/* the record's (EVENT), 1 for EXACT */
};

/* The volume between an unordered pair i < j of threads or cores: the matrices are sparse
 * (3,000 threads make 9 million cells, almost all zero). */
struct cell {
	uint32_t unit, i, j;
	uint64_t v[COMM_NKIND];
};

struct model {
	const struct profile *p;
	const struct prof_process *proc;
	int exact, clock;
	uint16_t take;			/* the record type modelled, 0: EVENT and EXACT */
	int compare;			/* the recording has both (--compare) */
	int names_exact;		/* --compare whose sampled detector found nothing: the
					 * objects, lines and code are the exact run's (XSAMPLE) */
	uint64_t period;
	uint32_t n[COMM_NUNIT];
	struct cell *cell;		/* unordered pairs, merged, sorted by unit, i, j */
	size_t ncell;
	struct event *ev;
	size_t nev;
	struct comm_rec_stats st;	/* summed */
	size_t nstats;			/* STATS records read (each thread writes one at its end) */
	int part;			/* the rows' part: the process's index, -1 merged */
	uint32_t base;			/* its first thread's number in the merged report */
	uint32_t dregs, watch_off;
	int32_t watch_errno;
	uint64_t total[COMM_NKIND];
	uint64_t total_trap;		/* the part of total[COMM_ALL] found by traps */
	uint64_t total_covered;		/* the part of total[COMM_FALSE] marked COMM_F_COVERED */
	/* the part of total[COMM_ALL] between two threads on one CPU at the time of both
	 * accesses (the core matrix leaves it out: no line moved between caches) */
	uint64_t total_same_cpu;
	/* the samples' hits (not traps) between threads and their weights summed: the clock
	 * source's stretched periods weigh more than 1 (write_meta's unit) */
	uint64_t hits, hits_weight;
};

/*
 * Which bytes did the writer write (doc/sonde-comm.md, that section)?  An event the byte
 * rule calls false sharing is COMM_F_COVERED when the observer's bytes are ones the writer
 * is seen storing to, by two kinds of evidence:
 *   - the code's (the runtime's mark, detect.h comm_covered): the store instructions
 *     around the publishing one have been sampled storing at those offsets of their lines;
 *   - the line's own (here): one of the publisher's other publications in this very line
 *     starts where the observer's access does (the two threads' footprints in it overlap,
 *     as where lines are written whole and then read or rewritten, never where each keeps
 *     to its own offsets; events keep no lengths, so starts are compared).
 * The line can also contradict the code: where the observer itself publishes at that
 * offset of the line and the publisher never where the observer does, the threads keep
 * to their own runs of it (a static schedule of 3 words: commbench interleave), and the
 * code's mark is dropped.  On interleave (all false sharing exactly) the covered reading
 * was 48% false (inst, --compare 1009) and 33% (clock) without that veto, 57% and 85%
 * with it; on rewrite (true sharing) 2.5% and 1.1% without, 10.7% and 1.6% with;
 * taskflow's Black-Scholes 3.2% without, 5.1% with, against 4.7% exact (by instruction,
 * before the code's evidence was kept by block).
 */
struct line_bytes {
	uint64_t line, bytes;		/* bytes: the offsets the publications start at */
	uint32_t src;
};

static int line_bytes_cmp(const void *x, const void *y)
{
	const struct line_bytes *a = x, *b = y;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->src < b->src ? -1 : a->src > b->src;
}

static uint64_t byte_bit(uint64_t addr)
{
	return 1ull << (addr & (COMM_LINE_BYTES - 1));
}

static int cover_by_lines(struct model *m)
{
	size_t n = 0, w = 0;
	struct line_bytes *lc = malloc((m->nev ? m->nev : 1) * sizeof(*lc));
	if (!lc)
		return -ENOMEM;
	for (size_t q = 0; q < m->nev; q++)
		if (m->ev[q].src_addr && m->ev[q].src != m->ev[q].dst)
			lc[n++] = (struct line_bytes){ m->ev[q].src_addr & ~(COMM_LINE_BYTES - 1),
							byte_bit(m->ev[q].src_addr), m->ev[q].src };
	qsort(lc, n, sizeof(*lc), line_bytes_cmp);
	for (size_t r = 0; r < n; r++) {
		if (w && !line_bytes_cmp(&lc[w - 1], &lc[r]))
			lc[w - 1].bytes |= lc[r].bytes;
		else
			lc[w++] = lc[r];
	}
	for (size_t q = 0; q < m->nev; q++) {
		struct event *v = &m->ev[q];
		struct line_bytes key = { v->src_addr & ~(COMM_LINE_BYTES - 1), 0, v->src };
		if ((v->flags & COMM_F_TRUE) || !v->src_addr ||
		    (v->addr & ~(COMM_LINE_BYTES - 1)) != key.line)
			continue;
		const struct line_bytes *f = bsearch(&key, lc, w, sizeof(*lc), line_bytes_cmp);
		key.src = v->dst;
		const struct line_bytes *o = bsearch(&key, lc, w, sizeof(*lc), line_bytes_cmp);
		uint64_t c = byte_bit(v->addr);
		if (f && (f->bytes & c))
			v->flags |= COMM_F_COVERED;
		else if (f && o && (o->bytes & c) && !(o->bytes & f->bytes))
			v->flags &= ~(uint32_t)COMM_F_COVERED;
	}
	free(lc);
	return 0;
}

static void add_stats(struct model *m, const struct comm_rec_stats *s)
{
	m->st.samples += s->samples;
	m->st.stores += s->stores;
	m->st.published += s->published;
	m->st.publish_lost += s->publish_lost;
	m->st.hits += s->hits;
	m->st.arm_tries += s->arm_tries;
	m->st.arms += s->arms;
	m->st.arm_failures += s->arm_failures;
	m->st.traps += s->traps;
	m->st.traps_ignored += s->traps_ignored;
	m->st.exact_lost += s->exact_lost;
	m->st.thinned += s->thinned;
	m->st.traps_decoded += s->traps_decoded;
	if (s->compare_period > m->st.compare_period)
		m->st.compare_period = s->compare_period;
	if (s->watch_errno)
		m->watch_errno = s->watch_errno;
	if (s->dregs > m->dregs)
		m->dregs = s->dregs;
	m->watch_off |= s->watch_off;
	/* an exact run with no transfer has no EXACT record to say it was exact */
	if ((s->mode & COMM_MODE_EXACT) && !(s->mode & COMM_MODE_COMPARE))
		m->exact = 1;
}

/* First pass: dimensions, events and stats. */
static int scan(struct model *m)
{
	const struct prof_process *pr = m->proc;
	size_t cap = 0;
	int trap_after = !strcmp(pr->watch_backend, "hw");
	m->n[COMM_BY_THREAD] = pr->threads > 0 ? (uint32_t)pr->threads : 0;
	m->n[COMM_BY_CORE] = 0;
	for (size_t i = 0; i < pr->nthread; i++) {
		const struct prof_thread *t = &pr->thread[i];
		const struct sonde_rec_hdr *h;
		size_t off = 0;
		if (t->hdr.thread_index + 1 > m->n[COMM_BY_THREAD])
			m->n[COMM_BY_THREAD] = t->hdr.thread_index + 1;
		if (t->swapped)
			continue;	/* written in the other byte order: not modelled */
		while ((h = prof_tool_next(t, &off))) {
			if (h->type == COMM_REC_STATS && h->size >= COMM_REC_STATS_V1) {
				struct comm_rec_stats s = { 0 };
				memcpy(&s, h, h->size < sizeof(s) ? h->size : sizeof(s));
				add_stats(m, &s);
				m->nstats++;
			} else if (((h->type == COMM_REC_EVENT &&
				     h->size >= sizeof(struct comm_rec_event)) ||
				    (h->type == COMM_REC_EXACT &&
				     h->size >= sizeof(struct comm_rec_exact)) ||
				    /* (--exact's sampled transfers: asked by name only) */
				    (h->type == COMM_REC_XSAMPLE && m->take == COMM_REC_XSAMPLE &&
				     h->size >= sizeof(struct comm_rec_event))) &&
				   (!m->take || h->type == m->take)) {
				const struct comm_rec_event *e = (const void *)h;
				const struct comm_rec_exact *x = (const void *)h;
				int ex = h->type == COMM_REC_EXACT;
				m->exact |= ex;
				uint32_t src = ex ? x->src : e->src, dst = ex ? x->dst : e->dst;
				int32_t sc = ex ? x->src_cpu : e->src_cpu, dc = ex ? x->dst_cpu : e->dst_cpu;
				if (src > 1u << 20 || dst > 1u << 20)
					continue;
				if (src + 1 > m->n[COMM_BY_THREAD])
					m->n[COMM_BY_THREAD] = src + 1;
				if (dst + 1 > m->n[COMM_BY_THREAD])
					m->n[COMM_BY_THREAD] = dst + 1;
				if (sc >= 0 && sc < 4096 && (uint32_t)sc + 1 > m->n[COMM_BY_CORE])
					m->n[COMM_BY_CORE] = (uint32_t)sc + 1;
				if (dc >= 0 && dc < 4096 && (uint32_t)dc + 1 > m->n[COMM_BY_CORE])
					m->n[COMM_BY_CORE] = (uint32_t)dc + 1;
				if (m->nev == cap) {
					cap = cap ? 2 * cap : 1024;
					struct event *n = realloc(m->ev, cap * sizeof(*n));
					if (!n)
						return -ENOMEM;
					m->ev = n;
				}
				struct event *v = &m->ev[m->nev++];
				uint64_t p = m->clock ? 1 : m->period;
				v->src = src;
				v->dst = dst;
				v->thread = (uint32_t)i;
				v->flags = ex ? x->flags : e->flags;
				v->amount = ex ? x->count : p * e->weight * e->scale;
				v->weight = ex ? 1 : e->weight;
				v->addr = ex ? 0 : e->addr;
				v->ip = ex ? 0 : e->ip;
				/* a debug register's trap reports the instruction after the
				 * access: the byte before is inside the access's own (its line,
				 * as reuse's pairs since 2026-11-28); a soft trap's is the access */
				if (!ex && (e->flags & COMM_F_TRAP) && e->ip && trap_after)
					v->ip = e->ip - 1;
				v->src_ip = ex ? 0 : e->src_ip;
				v->src_addr = ex ? 0 : e->src_addr;
				v->time = ex ? 0 : e->time;
			}
		}
	}
	/* every CPU of the machine, whichever saw an event (a 1x1 file on a 2-CPU machine
	 * where none was: the comm review of 2026-11-29); a recording without the key, CPU
	 * 0 at least, square as the thread matrix is */
	if (pr->cpus > 0 && pr->cpus <= 4096 && (uint32_t)pr->cpus > m->n[COMM_BY_CORE])
		m->n[COMM_BY_CORE] = (uint32_t)pr->cpus;
	if (!m->n[COMM_BY_CORE])
		m->n[COMM_BY_CORE] = 1;
	return 0;
}

static int cell_cmp(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;
	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return a->j < b->j ? -1 : a->j > b->j;
}

static int push_cell(struct model *m, size_t *cap, uint32_t unit, uint32_t a, uint32_t b,
		     int kind, uint64_t v)
{
	if (m->ncell == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		struct cell *n = realloc(m->cell, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->cell = n;
	}
	struct cell *c = &m->cell[m->ncell++];
	memset(c, 0, sizeof(*c));
	c->unit = unit;
	c->i = a < b ? a : b;
	c->j = a < b ? b : a;
	c->v[COMM_ALL] = v;
	c->v[kind] = v;
	return 0;
}

/*
 * Matrices: each communication adds to its unordered pair (thread and core), so the
 * symmetrized cell M[i][j] + M[j][i] is the pair's sum; same-thread and same-CPU pairs
 * are dropped (the diagonal is zero).  A second pass over the records gives the CPUs.
 */
static int build_matrices(struct model *m)
{
	const struct prof_process *pr = m->proc;
	size_t ei = 0, cap = 0;
	for (size_t i = 0; i < pr->nthread; i++) {
		const struct prof_thread *t = &pr->thread[i];
		const struct sonde_rec_hdr *h;
		size_t off = 0;
		if (t->swapped)
			continue;
		while ((h = prof_tool_next(t, &off))) {
			int ex = h->type == COMM_REC_EXACT && h->size >= sizeof(struct comm_rec_exact);
			int sm = (h->type == COMM_REC_EVENT || (h->type == COMM_REC_XSAMPLE &&
								m->take == COMM_REC_XSAMPLE)) &&
				 h->size >= sizeof(struct comm_rec_event);
			if ((!ex && !sm) || (m->take && h->type != m->take))
				continue;
			const struct comm_rec_event *e = (const void *)h;
			const struct comm_rec_exact *x = (const void *)h;
			uint32_t src = ex ? x->src : e->src, dst = ex ? x->dst : e->dst;
			if (src > 1u << 20 || dst > 1u << 20)
				continue;
			const struct event *v = &m->ev[ei++];
			int32_t sc = ex ? x->src_cpu : e->src_cpu, dc = ex ? x->dst_cpu : e->dst_cpu;
			int kind = v->flags & COMM_F_TRUE ? COMM_TRUE : COMM_FALSE;
			if (src != dst) {
				if (push_cell(m, &cap, COMM_BY_THREAD, src, dst, kind, v->amount))
					return -ENOMEM;
				m->total[COMM_ALL] += v->amount;
				m->total[kind] += v->amount;
				if (v->flags & COMM_F_TRAP) {
					m->total_trap += v->amount;
				} else {
					m->hits++;
					m->hits_weight += v->weight;
				}
				if (kind == COMM_FALSE && (v->flags & COMM_F_COVERED))
					m->total_covered += v->amount;
				if (sc >= 0 && sc == dc)
					m->total_same_cpu += v->amount;
			}
			if (sc >= 0 && dc >= 0 && sc < 4096 && dc < 4096 && sc != dc &&
			    push_cell(m, &cap, COMM_BY_CORE, (uint32_t)sc, (uint32_t)dc, kind,
				      v->amount))
				return -ENOMEM;
		}
	}
	if (!m->ncell)
		return 0;
	qsort(m->cell, m->ncell, sizeof(*m->cell), cell_cmp);
	size_t w = 0;
	for (size_t r = 1; r < m->ncell; r++) {
		if (!cell_cmp(&m->cell[w], &m->cell[r])) {
			for (int k = 0; k < COMM_NKIND; k++)
				m->cell[w].v[k] += m->cell[r].v[k];
		} else {
			m->cell[++w] = m->cell[r];
		}
	}
	m->ncell = w + 1;
	return 0;
}

/* ---- database ---- */

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE comm_cells(part INTEGER, unit TEXT, kind TEXT, i INTEGER, j INTEGER,"
	" value INTEGER);"
	"CREATE TABLE comm_objects(id INTEGER PRIMARY KEY, part INTEGER, name TEXT, kind TEXT,"
	" total INTEGER, true_sharing INTEGER, false_sharing INTEGER, events INTEGER,"
	" false_covered INTEGER);"
	"CREATE TABLE comm_lines(id INTEGER PRIMARY KEY, part INTEGER, line INTEGER, object TEXT,"
	" total INTEGER, true_sharing INTEGER, false_sharing INTEGER, events INTEGER,"
	" offsets TEXT);"
	"CREATE TABLE comm_pairs(id INTEGER PRIMARY KEY, part INTEGER, a INTEGER, b INTEGER,"
	" total INTEGER, true_sharing INTEGER, false_sharing INTEGER, code_a TEXT, code_b TEXT);"
	"CREATE TABLE comm_threads(id INTEGER PRIMARY KEY, part INTEGER, rank INTEGER,"
	" pid INTEGER, thread INTEGER, tid INTEGER, omp_thread INTEGER, omp_varied INTEGER);"
	"CREATE TABLE comm_parts(part INTEGER PRIMARY KEY, rank INTEGER, pid INTEGER,"
	" first_thread INTEGER, threads INTEGER, cores INTEGER, samples INTEGER, traps INTEGER,"
	" total_all INTEGER, total_true INTEGER, total_false INTEGER, folder TEXT, program TEXT,"
	" fork_exec TEXT);";

static int write_cells(sqlite3 *db, int part, const struct cell *cell, size_t ncell)
{
	sqlite3_stmt *st;
	int r = 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO comm_cells VALUES(?,?,?,?,?,?)", -1, &st, NULL))
		return -EIO;
	for (size_t q = 0; q < ncell && !r; q++) {
		const struct cell *c = &cell[q];
		for (int k = 0; k < COMM_NKIND && !r; k++)
			if (c->v[k]) {
				r = db_row(st, "ittiiu", (int64_t)part, comm_unit_name[c->unit],
					   comm_kind_name[k], (int64_t)c->i, (int64_t)c->j, c->v[k]);
				if (!r)
					r = db_row(st, "ittiiu", (int64_t)part,
						   comm_unit_name[c->unit], comm_kind_name[k],
						   (int64_t)c->j, (int64_t)c->i, c->v[k]);
			}
	}
	sqlite3_finalize(st);
	return r;
}

static const char *watch_status(const struct model *m, char *buf, size_t len)
{
	if (m->exact && !m->compare)
		snprintf(buf, len, "exact mode: no watchpoints");
	else if (m->watch_off)
		snprintf(buf, len, "off (--no-watch); detection from samples meeting on the board "
				   "only");
	else if (!m->nstats)
		/* every thread's counters lost (a SIGKILL: the usability review of 2026-11-29
		 * read "the trap handler could not be installed") */
		snprintf(buf, len, "not known: no thread wrote its counters (written at a "
				   "thread's end: the process ended without closing the recording)");
	else if (m->proc->watch_backend && !strcmp(m->proc->watch_backend, "none"))
		snprintf(buf, len, "none in this program (%s): detection from samples meeting on "
			 "the board only",
			 m->proc->watch_why && *m->proc->watch_why ? m->proc->watch_why :
			 "no watchpoint backend");
	else if (!m->dregs)
		snprintf(buf, len, "watchpoints unavailable: the trap handler could not be "
				   "installed; detection from samples meeting on the board only");
	else if (!m->st.arms && m->st.arm_failures)
		snprintf(buf, len, "watchpoints unavailable: every arm was refused (the arm "
				   "failures below); detection from samples meeting on the board only");
	else if (!m->st.arms && !m->st.thinned && m->st.hits)
		/* read as "nothing found" beside 25 events (the usability review of 2026-11-28) */
		snprintf(buf, len, "none needed: every communication (%" PRIu64 ") was found by "
			 "a sample on a line another thread's sampled store had just published",
			 m->st.hits);
	else if (!m->st.arms && !m->st.thinned)
		snprintf(buf, len, "no watchpoint armed (no candidate line was found)");
	else if (!m->st.arms)
		snprintf(buf, len, "no watchpoint armed: all %" PRIu64 " arming decisions were "
				   "thinned (threads that switch often; SONDE_COMM_THIN=0 arms every "
				   "one)", m->st.thinned);
	else if (!m->st.traps && !m->st.traps_ignored && m->proc->watch_backend &&
		 !strcmp(m->proc->watch_backend, "soft"))
		/* software watchpoints (sonde-cc): the debug registers play no part (until
		 * 2026-11-28 the VM hint below was given for them too) */
		snprintf(buf, len, "%" PRIu64 " software watchpoint%s armed, none trapped (no "
				   "other thread touched a line while it was watched)%s",
			 m->st.arms, m->st.arms == 1 ? "" : "s",
			 m->st.arm_failures ? "; some arms failed" : "");
	else if (!m->st.traps && !m->st.traps_ignored && m->proc->watch_checked)
		/* the registers trapped at start (rt/finish.c, watch_checked): the usability
		 * review of 2026-11-28 read "or debug registers that never fire" beside
		 * `sonde info` saying that they fire */
		snprintf(buf, len, "%" PRIu64 " watchpoints armed, none trapped: no other thread "
				   "touched a line while it was watched (the debug registers do "
				   "trap here, checked at start)%s",
			 m->st.arms, m->st.arm_failures ? "; some arms failed" : "");
	else if (!m->st.traps && !m->st.traps_ignored)
		snprintf(buf, len, "%" PRIu64 " watchpoints armed, none trapped (no thread touched "
				   "a line while it was watched, or debug registers that never fire, "
				   "as in some VMs: 'sonde info' says which)%s",
			 m->st.arms, m->st.arm_failures ? "; some arms failed" : "");
	else
		snprintf(buf, len, "%" PRIu64 " watchpoint%s armed, %" PRIu64 " trap%s counted, %"
				   PRIu64 " ignored", m->st.arms, m->st.arms == 1 ? "" : "s",
			 m->st.traps, m->st.traps == 1 ? "" : "s", m->st.traps_ignored);
	if (m->st.thinned && m->st.arms && !m->watch_off) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "; %" PRIu64 " arming decisions left virtual (no "
					   "register written: threads that switch often, or "
					   "SONDE_COMM_THIN), the real ones' traps weighted to match",
			 m->st.thinned);
	}
	return buf;
}

static int write_meta(sqlite3 *db, struct model *m)
{
	sqlite3_stmt *st;
	char scaling[DB_SCALING_MAX], unit[320], watch[400];
	int r = 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &st, NULL))
		return -EIO;
	db_scaling(m->proc->source, m->proc->period, profile_clock_posix(m->p), scaling,
		   sizeof(scaling));
	if (m->exact)
		snprintf(unit, sizeof(unit), "cache-line transfers (exact: every access modelled)");
	else if (m->clock && comm_stretched(m->hits, m->hits_weight))
		/* the time budget stretched the period: a hit counts the periods its sample
		 * stood for (the usability review of 2026-11-29: --period 100000 read
		 * "communication: 3800" from 1721 samples, the unit "samples") */
		snprintf(unit, sizeof(unit), "periods (clock source: a hit counts the periods "
			 "its sample stood for, %.1f on average here, the time budget having "
			 "stretched the period; volumes are sample-scaled, not transfers; compare "
			 "cells, not absolute values)", (double)m->hits_weight / (double)m->hits);
	else if (m->clock)
		snprintf(unit, sizeof(unit), "samples (clock source: volumes are sample-scaled, "
					     "not transfers; compare cells, not absolute values)");
	else
		/* a hit stands for the period's accesses: a line stored to k times between
		 * two moves counts up to k times over (the usability review of 2026-11-29:
		 * 31.6x the exact count at 10007, 2.2x at 1009, and no word of it here) */
		snprintf(unit, sizeof(unit), "estimated cache-line transfers (period %" PRIu64
			 " x samples: a line stored to many times between moves counts up to "
			 "that many times over, the more the longer the period; compare cells, "
			 "not absolute values; --compare N measures it)", m->period);
	const char *kv[][2] = {
		{ "schema", DB_SCHEMA }, { "tool", "comm" }, { "source", m->proc->source },
		{ "period_unit", m->proc->period_unit }, { "scaling", scaling }, { "unit", unit },
		{ "watch", watch_status(m, watch, sizeof(watch)) }, { "exe", m->proc->exe }, { "argv", m->proc->argv },
		{ "exact", m->exact ? "1" : "0" },
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !r; i++)
		r = db_row(st, "tt", kv[i][0], kv[i][1]);
	const struct { const char *k; uint64_t v; } nums[] = {
		{ "period", m->proc->period }, { "threads", m->n[COMM_BY_THREAD] },
		{ "cores", m->n[COMM_BY_CORE] }, { "processes", m->p->nproc },
		{ "samples", m->st.samples }, { "stores", m->st.stores },
		{ "published", m->st.published }, { "publish_lost", m->st.publish_lost },
		{ "hits", m->st.hits }, { "arm_tries", m->st.arm_tries }, { "arms", m->st.arms },
		{ "arm_failures", m->st.arm_failures },
		{ "watch_errno", m->watch_errno > 0 ? (uint64_t)m->watch_errno : 0 },
		{ "traps", m->st.traps },
		{ "traps_ignored", m->st.traps_ignored }, { "exact_lost", m->st.exact_lost },
		{ "thinned", m->st.thinned }, { "traps_decoded", m->st.traps_decoded },
		{ "dregs", m->dregs }, { "events", m->nev },
		{ "total_all", m->total[COMM_ALL] }, { "total_true", m->total[COMM_TRUE] },
		{ "total_false", m->total[COMM_FALSE] }, { "total_trap", m->total_trap },
		{ "total_false_covered", m->total_covered },
		{ "total_same_cpu", m->total_same_cpu },
		{ "hits_modelled", m->hits }, { "hits_weighted", m->hits_weight },
		{ "names_exact", (uint64_t)m->names_exact },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]) && !r; i++) {
		char b[32];
		snprintf(b, sizeof(b), "%" PRIu64, nums[i].v);
		r = db_row(st, "tt", nums[i].k, b);
	}
	sqlite3_finalize(st);
	return r;
}

/* ---- objects: the observing accesses through the mem tool's model ---- */

struct objsum {
	uint64_t v[COMM_NKIND], events, covered;
};

/* ---- cache lines ---- */

#define TOP_LINES 20	/* lines kept a part */
#define LINE_WHO 8	/* (thread, offset) pairs named a line */

/* One access side of a line's communication: thread (the report's numbering) and byte
 * offset within the line, with the volume it took part in. */
struct line_who {
	uint32_t thread, off;
	uint64_t amount;
};

struct linesum {
	uint64_t line, v[COMM_NKIND], events;
	uint32_t object;
	struct line_who who[LINE_WHO];
	int nwho;
};

struct line_ref {
	uint64_t line;
	size_t ev;
	uint32_t object;
};

static int line_ref_cmp(const void *x, const void *y)
{
	const struct line_ref *a = x, *b = y;
	return a->line < b->line ? -1 : a->line > b->line ? 1 : a->ev < b->ev ? -1 : a->ev > b->ev;
}

static int linesum_cmp(const void *x, const void *y)
{
	const struct linesum *a = x, *b = y;
	return a->v[COMM_ALL] < b->v[COMM_ALL] ? 1 : a->v[COMM_ALL] > b->v[COMM_ALL] ? -1 :
	       a->line < b->line ? -1 : a->line > b->line;
}

static void line_who_add(struct linesum *l, uint32_t thread, uint32_t off, uint64_t amount)
{
	for (int i = 0; i < l->nwho; i++)
		if (l->who[i].thread == thread && l->who[i].off == off) {
			l->who[i].amount += amount;
			return;
		}
	if (l->nwho < LINE_WHO) {
		l->who[l->nwho++] = (struct line_who){ thread, off, amount };
		return;
	}
	int least = 0;	/* full: the new one takes the smallest's place if larger */
	for (int i = 1; i < LINE_WHO; i++)
		if (l->who[i].amount < l->who[least].amount)
			least = i;
	if (l->who[least].amount < amount)
		l->who[least] = (struct line_who){ thread, off, amount };
}

static int who_cmp(const void *x, const void *y)
{
	const struct line_who *a = x, *b = y;
	return a->thread != b->thread ? (a->thread < b->thread ? -1 : 1) :
	       a->off < b->off ? -1 : a->off > b->off;
}

/*
 * The cache lines with the most communication (perf c2c's view: the usability review of
 * 2026-11-28 missed which bytes of a line each thread touches): each line's volume by
 * kind, its object, and the threads' byte offsets within it, from both sides of every
 * event (the observer's access and the publisher's).  The line is 64 bytes, the
 * detector's default; events are in thread order, first[] as write_objects.
 */
static int write_lines(sqlite3 *db, const struct model *m, const struct memmodel *mm,
		       const size_t *first)
{
	const struct prof_process *pr = m->proc;
	struct line_ref *ref = calloc(m->nev ? m->nev : 1, sizeof(*ref));
	struct linesum *ls = NULL;
	sqlite3_stmt *st[2] = { NULL, NULL };
	size_t nref = 0, nls = 0, nlines = 0;
	int r = -ENOMEM;
	if (!ref)
		goto out;
	for (size_t i = 0; i < pr->nthread && i < mm->nthread; i++)
		for (size_t q = first[i]; q < first[i + 1]; q++) {
			uint32_t o = mm->thread[i].object[q - first[i]];
			if (o == MM_NONE || o >= mm->nobject || m->ev[q].src == m->ev[q].dst ||
			    !m->ev[q].addr)
				continue;
			ref[nref++] = (struct line_ref){ m->ev[q].addr & ~(uint64_t)63, q, o };
		}
	qsort(ref, nref, sizeof(*ref), line_ref_cmp);
	/* one summary a distinct line (not an event: review, 184 bytes an event) */
	for (size_t k = 0; k < nref; k++)
		nlines += !k || ref[k].line != ref[k - 1].line;
	ls = calloc(nlines ? nlines : 1, sizeof(*ls));
	if (!ls)
		goto out;
	for (size_t k = 0; k < nref; k++) {
		const struct event *e = &m->ev[ref[k].ev];
		if (!nls || ls[nls - 1].line != ref[k].line)
			ls[nls++] = (struct linesum){ .line = ref[k].line, .object = ref[k].object };
		struct linesum *l = &ls[nls - 1];
		int kind = e->flags & COMM_F_TRUE ? COMM_TRUE : COMM_FALSE;
		l->v[COMM_ALL] += e->amount;
		l->v[kind] += e->amount;
		l->events++;
		line_who_add(l, e->dst, (uint32_t)(e->addr & 63), e->amount);
		if (e->src_addr && (e->src_addr & ~(uint64_t)63) == l->line)
			line_who_add(l, e->src, (uint32_t)(e->src_addr & 63), e->amount);
	}
	qsort(ls, nls, sizeof(*ls), linesum_cmp);
	/* a part's rows number its threads from 0, as its matrices and pairs do; the merged
	 * report's are taken from comm_lines_merged (comm_fill), numbered as its matrices
	 * (the usability review of 2026-11-29: rank-1/lines.csv read threads 8 and 9 beside
	 * a pairs.csv of 3 and 4) */
	r = -EIO;
	static const char *const ins[2] = {
		"INSERT INTO comm_lines(part, line, object, total, true_sharing, false_sharing,"
		" events, offsets) VALUES(?,?,?,?,?,?,?,?)",
		"INSERT INTO comm_lines_merged VALUES(?,?,?,?,?,?,?)",
	};
	for (int w = 0; w < (m->part >= 0 ? 2 : 1); w++)
		if (sqlite3_prepare_v2(db, ins[w], -1, &st[w], NULL))
			goto out;
	r = 0;
	for (size_t k = 0; k < nls && k < TOP_LINES && !r; k++) {
		struct linesum *l = &ls[k];
		char who[2][LINE_WHO * 24] = { "", "" };
		qsort(l->who, (size_t)l->nwho, sizeof(l->who[0]), who_cmp);
		for (int w = 0; w < 2; w++)
			for (int i = 0; i < l->nwho; i++) {
				size_t n = strlen(who[w]);
				snprintf(who[w] + n, sizeof(who[w]) - n, "%s%u:+%u", i ? " " : "",
					 l->who[i].thread + (w ? m->base : 0), l->who[i].off);
			}
		r = db_row(st[0], "iutuuuut", (int64_t)m->part, l->line, mm->object[l->object].name,
			   l->v[COMM_ALL], l->v[COMM_TRUE], l->v[COMM_FALSE], l->events, who[0]);
		if (!r && st[1])
			r = db_row(st[1], "utuuuut", l->line, mm->object[l->object].name,
				   l->v[COMM_ALL], l->v[COMM_TRUE], l->v[COMM_FALSE], l->events,
				   who[1]);
	}
out:
	sqlite3_finalize(st[0]);
	sqlite3_finalize(st[1]);
	free(ref);
	free(ls);
	return r;
}

static int write_objects(sqlite3 *db, struct model *m, struct memmodel **mm_out, char *err,
			 size_t errlen)
{
	const struct prof_process *pr = m->proc;
	struct sonde_rec_mem *recs = calloc(m->nev ? m->nev : 1, sizeof(*recs));
	size_t *first = calloc(pr->nthread + 1, sizeof(*first));
	int r = -ENOMEM;
	*mm_out = NULL;
	if (!recs || !first)
		goto out;
	/* events are in thread order: thread i's are ev[first[i] .. first[i+1]) */
	for (size_t q = 0, i = 0; i <= pr->nthread; i++) {
		first[i] = q;
		while (i < pr->nthread && q < m->nev && m->ev[q].thread == i)
			q++;
	}
	for (size_t q = 0; q < m->nev; q++)
		recs[q] = (struct sonde_rec_mem){ .h = { .type = SONDE_REC_MEM, .size = sizeof(recs[q]) },
						  .len = 1, .ip = m->ev[q].ip, .addr = m->ev[q].addr,
						  .weight = 1, .time = m->ev[q].time };
	struct memmodel *mm;
	r = memmodel_build_for(m->p, (size_t)(pr - m->p->proc), recs, first, &mm, err, errlen);
	if (r)
		goto out;
	*mm_out = mm;
	struct objsum *sum = calloc(mm->nobject ? mm->nobject : 1, sizeof(*sum));
	r = -ENOMEM;
	if (!sum)
		goto out;
	for (size_t i = 0; i < pr->nthread && i < mm->nthread; i++)
		for (size_t q = first[i]; q < first[i + 1]; q++) {
			uint32_t o = mm->thread[i].object[q - first[i]];
			if (o == MM_NONE || o >= mm->nobject || m->ev[q].src == m->ev[q].dst)
				continue;
			int k = m->ev[q].flags & COMM_F_TRUE ? COMM_TRUE : COMM_FALSE;
			sum[o].v[COMM_ALL] += m->ev[q].amount;
			sum[o].v[k] += m->ev[q].amount;
			sum[o].events++;
			if (k == COMM_FALSE && (m->ev[q].flags & COMM_F_COVERED))
				sum[o].covered += m->ev[q].amount;
		}
	r = write_lines(db, m, mm, first);
	if (r) {
		free(sum);
		if (r != -ENOMEM)
			r = db_fail(db, err, errlen, "writing comm_lines");
		goto out;
	}
	sqlite3_stmt *st;
	r = -EIO;
	if (!sqlite3_prepare_v2(db, "INSERT INTO comm_objects(part, name, kind, total,"
				    " true_sharing, false_sharing, events, false_covered)"
				    " VALUES(?,?,?,?,?,?,?,?)", -1, &st, NULL)) {
		r = 0;
		for (size_t o = 0; o < mm->nobject && !r; o++)
			if (sum[o].events)
				r = db_row(st, "ittuuuuu", (int64_t)m->part, mm->object[o].name,
					   mm_kind_name(mm->object[o].kind), sum[o].v[COMM_ALL],
					   sum[o].v[COMM_TRUE], sum[o].v[COMM_FALSE], sum[o].events,
					   sum[o].covered);
		sqlite3_finalize(st);
	}
	free(sum);
	if (r)
		r = db_fail(db, err, errlen, "writing comm_objects");
out:
	free(first);
	free(recs);
	if (r == -ENOMEM)
		errmsg(err, errlen, -ENOMEM, "out of memory attributing objects");
	return r;
}

/* ---- pairs ---- */

struct pairsum {
	uint32_t a, b;
	uint64_t v[COMM_NKIND];
};

static int pair_cmp(const void *x, const void *y)
{
	const struct pairsum *a = x, *b = y;
	return a->v[0] < b->v[0] ? 1 : a->v[0] > b->v[0] ? -1 : 0;
}

struct ipsum {
	uint64_t ip, v;
};

static int ip_cmp(const void *x, const void *y)
{
	const struct ipsum *a = x, *b = y;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

/* The instruction with the most volume on side `side` of the pair (side, other): its
 * accesses as the observer, or its publishing stores.  0 if none is known. */
static uint64_t top_ip(const struct model *m, uint32_t side, uint32_t other)
{
	struct ipsum *s = malloc((m->nev ? m->nev : 1) * sizeof(*s));
	size_t n = 0;
	uint64_t best = 0, best_v = 0;
	if (!s)
		return 0;
	for (size_t q = 0; q < m->nev; q++) {
		const struct event *e = &m->ev[q];
		uint64_t ip = e->dst == side && e->src == other ? e->ip
			      : e->src == side && e->dst == other ? e->src_ip : 0;
		if (ip)
			s[n++] = (struct ipsum){ ip, e->amount };
	}
	qsort(s, n, sizeof(*s), ip_cmp);
	for (size_t q = 0; q < n;) {
		uint64_t v = 0, ip = s[q].ip;
		for (; q < n && s[q].ip == ip; q++)
			v += s[q].v;
		if (v > best_v) {
			best_v = v;
			best = ip;
		}
	}
	free(s);
	return best;
}

static void code_name(const struct memmodel *mm, uint64_t ip, char *buf, size_t len)
{
	if (!ip)
		buf[0] = 0;
	else
		mm_code_name(mm, ip, buf, len);
}

/* The top pairs of m's thread matrix, each side's code from the events of e (m itself, or
 * with --compare the sampled detector's events of the same process: the exact records
 * carry no instruction). */
static int write_pairs(sqlite3 *db, struct model *m, const struct model *e,
		       const struct memmodel *mm)
{
	size_t np = 0;
	struct pairsum *ps = malloc((m->ncell ? m->ncell : 1) * sizeof(*ps));
	int r = 0;
	if (!ps)
		return -ENOMEM;
	for (size_t q = 0; q < m->ncell; q++) {
		const struct cell *c = &m->cell[q];
		if (c->unit != COMM_BY_THREAD)
			continue;
		ps[np].a = c->i;
		ps[np].b = c->j;
		memcpy(ps[np].v, c->v, sizeof(c->v));
		np++;
	}
	qsort(ps, np, sizeof(*ps), pair_cmp);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT INTO comm_pairs(part, a, b, total, true_sharing,"
				    " false_sharing, code_a, code_b) VALUES(?,?,?,?,?,?,?,?)", -1,
			       &st, NULL)) {
		free(ps);
		return -EIO;
	}
	for (size_t i = 0; i < np && i < TOP_PAIRS && !r; i++) {
		char ca[8192], cb[8192];	/* C++ names run to thousands (Kripke) */
		code_name(mm, top_ip(e, ps[i].a, ps[i].b), ca, sizeof(ca));
		code_name(mm, top_ip(e, ps[i].b, ps[i].a), cb, sizeof(cb));
		r = db_row(st, "iiiuuutt", (int64_t)m->part, (int64_t)ps[i].a, (int64_t)ps[i].b,
			   ps[i].v[0], ps[i].v[1], ps[i].v[2], ca, cb);
		/* a process of several: its pairs also in the merged ranking, numbered there */
		if (!r && m->part >= 0)
			r = db_row(st, "iiiuuutt", (int64_t)-1, (int64_t)(ps[i].a + m->base),
				   (int64_t)(ps[i].b + m->base), ps[i].v[0], ps[i].v[1], ps[i].v[2],
				   ca, cb);
	}
	sqlite3_finalize(st);
	free(ps);
	return r;
}

static void model_release(struct model *m)
{
	free(m->cell);
	free(m->ev);
	m->cell = NULL;
	m->ev = NULL;
}

/* A part's folder in DIR/comm/: rank-R, or proc-PID for a process without a rank; an
 * image the process exec'd (the same pid: its recording's prefix ends in .eN) adds .eN,
 * so that each image keeps its own (the usability review of 2026-11-29: the image before
 * an exec lost its folder to the one after). */
static void part_folder(const struct prof_process *pr, char *buf, size_t len)
{
	const char *e = strrchr(pr->prefix, '.');
	int gen = e && e[1] == 'e' && e[2] && strspn(e + 2, "0123456789") == strlen(e + 2) ?
		  atoi(e + 2) : 0;
	int n = pr->rank >= 0 ? snprintf(buf, len, "rank-%d", pr->rank)
			      : snprintf(buf, len, "proc-%d", pr->pid);
	if (gen > 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ".e%d", gen);
}

/* One process: its model, its matrices (when the recording has several) and threads. */
static int model_process(sqlite3 *db, struct model *m, char *err, size_t errlen)
{
	int r = scan(m);
	if (!r && !m->exact)
		r = cover_by_lines(m);
	if (!r)
		r = build_matrices(m);
	if (r)
		return errmsg(err, errlen, r, "modelling the communication");
	if (m->part >= 0 && write_cells(db, m->part, m->cell, m->ncell))
		return db_fail(db, err, errlen, "writing comm_cells");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT INTO comm_threads VALUES(?,?,?,?,?,?,?,?)", -1, &st, NULL))
		return db_fail(db, err, errlen, "writing comm_threads");
	/* every thread number of the matrix, with its tid where a stream says it, and its
	 * OpenMP thread number where the runtime told it (src/rt/omp.c): NULL when unknown */
	for (uint32_t k = 0; k < m->n[COMM_BY_THREAD] && !r; k++) {
		int64_t tid = -1;
		const struct prof_thread *pt = NULL;
		for (size_t i = 0; i < m->proc->nthread; i++)
			if (m->proc->thread[i].hdr.thread_index == k) {
				pt = &m->proc->thread[i];
				tid = pt->hdr.tid;
			}
		int64_t omp = pt ? prof_omp_thread(pt) : -1, varied = pt && pt->omp_varied;
		if (omp >= 0)
			r = db_row(st, "iiiiiiii", (int64_t)(m->base + k), (int64_t)m->part,
				   (int64_t)m->proc->rank, (int64_t)m->proc->pid, (int64_t)k, tid,
				   omp, varied);
		else	/* '-': NULL, no argument taken */
			r = db_row(st, "iiiiii-i", (int64_t)(m->base + k), (int64_t)m->part,
				   (int64_t)m->proc->rank, (int64_t)m->proc->pid, (int64_t)k, tid,
				   varied);
	}
	sqlite3_finalize(st);
	char folder[64], fe[128] = "";
	const char *exe = m->proc->exe, *slash = strrchr(exe, '/');
	part_folder(m->proc, folder, sizeof(folder));
	/* a fork that exec'd (profile_fork_exec): what it exec'd, "orted (not profiled)" */
	size_t pi = (size_t)(m->proc - m->p->proc);
	if (profile_fork_exec(m->p, pi)) {
		const char *img = profile_exec_image(m->p, pi), *b = strrchr(img, '/');
		snprintf(fe, sizeof(fe), "%.60s%s", *img ? (b ? b + 1 : img) : "?",
			 m->proc->exec_followed == 0 ? " (not profiled)" : "");
	}
	if (!r && sqlite3_prepare_v2(db, "INSERT INTO comm_parts VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,"
				     "?)", -1, &st, NULL) == SQLITE_OK) {
		r = db_row(st, "iiiiiiuuuuuttt", (int64_t)m->part, (int64_t)m->proc->rank,
			   (int64_t)m->proc->pid, (int64_t)m->base, (int64_t)m->n[COMM_BY_THREAD],
			   (int64_t)m->n[COMM_BY_CORE], m->st.samples, m->st.traps,
			   m->total[COMM_ALL], m->total[COMM_TRUE], m->total[COMM_FALSE], folder,
			   slash ? slash + 1 : exe, fe);
		sqlite3_finalize(st);
	} else if (!r) {
		r = -EIO;
	}
	if (r)
		return db_fail(db, err, errlen, "writing comm_threads");
	/* --compare: the objects, lines and code are the sampled detector's (its events have
	 * addresses and instructions, the exact counts have none: the trial of 2026-11-28
	 * found objects.csv empty and no code, where the summary promised them) */
	struct model sm = { .p = m->p, .proc = m->proc, .base = m->base, .part = m->part,
			    .take = COMM_REC_EVENT, .period = 1, .clock = m->clock };
	const struct model *names = m;
	/* --exact alone: its transfers recorded whole, one in COMM_XSAMPLE_EVERY (rt-comm.c;
	 * the trial of 2026-11-29: Quicksilver's 66,921 exact transfers could not be placed) */
	if (m->exact && !m->compare)
		sm.take = COMM_REC_XSAMPLE;
	if ((m->compare || m->exact) && !scan(&sm) && !cover_by_lines(&sm) &&
	    (m->compare || sm.nev))
		names = &sm;
	/* --compare whose sampled detector found no transfer: the exact run's, one in
	 * COMM_XSAMPLE_EVERY recorded whole (rt-comm.c, exact_sample), name them rather than
	 * nothing (the trial of 2026-11-29, F2: PENNANT's 545,681 exact transfers, 0 sampled
	 * events, no object, line or code) */
	if (m->compare && names == &sm && !sm.nev) {
		struct model xs = { .p = m->p, .proc = m->proc, .base = m->base, .part = m->part,
				    .take = COMM_REC_XSAMPLE, .period = 1, .clock = m->clock };
		if (!scan(&xs) && !cover_by_lines(&xs) && xs.nev) {
			model_release(&sm);
			sm = xs;
			m->names_exact = 1;
		} else {
			model_release(&xs);
		}
	}
	struct memmodel *mm = NULL;
	if (names->nev && (!names->exact || names == &sm))
		r = write_objects(db, (struct model *)names, &mm, err, errlen);
	if (!r && write_pairs(db, m, names, mm))
		r = db_fail(db, err, errlen, "writing comm_pairs");
	if (mm)
		memmodel_free(mm);
	model_release(&sm);
	return r;
}

/* Add process m's totals, counters and cells (threads renumbered) to the merged g. */
static int merge_into(struct model *g, const struct model *m, size_t *cap)
{
	add_stats(g, &m->st);
	g->nstats += m->nstats;
	if (m->dregs > g->dregs)
		g->dregs = m->dregs;
	g->watch_off |= m->watch_off;
	if (m->watch_errno)
		g->watch_errno = m->watch_errno;
	g->exact |= m->exact;
	g->names_exact |= m->names_exact;
	g->nev += m->nev;
	for (int k = 0; k < COMM_NKIND; k++)
		g->total[k] += m->total[k];
	g->total_trap += m->total_trap;
	g->total_covered += m->total_covered;
	g->total_same_cpu += m->total_same_cpu;
	g->hits += m->hits;
	g->hits_weight += m->hits_weight;
	g->n[COMM_BY_THREAD] += m->n[COMM_BY_THREAD];
	if (m->n[COMM_BY_CORE] > g->n[COMM_BY_CORE])
		g->n[COMM_BY_CORE] = m->n[COMM_BY_CORE];
	for (size_t q = 0; q < m->ncell; q++) {
		if (g->ncell == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			struct cell *n = realloc(g->cell, *cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			g->cell = n;
		}
		struct cell c = m->cell[q];
		if (c.unit == COMM_BY_THREAD) {
			c.i += m->base;
			c.j += m->base;
		}
		g->cell[g->ncell++] = c;
	}
	return 0;
}

/* Is process pr a --compare run: both EXACT and EVENT records, or a thread's counters
 * say so (a run whose sampled detector found nothing has no EVENT record: the trial of
 * 2026-11-28 lost the comparison, the worst case of it, on RSBench and PENNANT)? */
static int is_compare_run(const struct prof_process *pr)
{
	int seen = 0;
	for (size_t i = 0; i < pr->nthread && seen != 3; i++) {
		const struct sonde_rec_hdr *h;
		size_t off = 0;
		if (pr->thread[i].swapped)
			continue;
		while (seen != 3 && (h = prof_tool_next(&pr->thread[i], &off))) {
			seen |= h->type == COMM_REC_EXACT ? 1 : h->type == COMM_REC_EVENT ? 2 : 0;
			if (h->type == COMM_REC_STATS && h->size >= COMM_REC_STATS_V1 &&
			    (((const struct comm_rec_stats *)h)->mode & COMM_MODE_COMPARE))
				seen = 3;
		}
	}
	return seen == 3;
}

/* Sort and add up cells of the same pair. */
static void cells_merge(struct model *g)
{
	if (!g->ncell)
		return;
	qsort(g->cell, g->ncell, sizeof(*g->cell), cell_cmp);
	size_t w = 0;
	for (size_t q = 1; q < g->ncell; q++) {
		if (!cell_cmp(&g->cell[w], &g->cell[q])) {
			for (int k = 0; k < COMM_NKIND; k++)
				g->cell[w].v[k] += g->cell[q].v[k];
		} else {
			g->cell[++w] = g->cell[q];
		}
	}
	g->ncell = w + 1;
}

/*
 * A --compare run: the sampled detector's matrices of the same run (EVENT records), as part
 * -2, threads numbered as in the merged report; and its totals and period in meta.
 */
static int fill_sampled(sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	struct model g = { .p = p, .part = -2 };
	size_t cap = 0;
	uint64_t period = 0;
	int r = 0;
	for (size_t k = 0; k < p->nproc && !r; k++) {
		struct model m = { .p = p, .proc = &p->proc[k], .base = g.n[COMM_BY_THREAD],
				   .part = -2, .take = COMM_REC_EVENT, .period = 1 };
		r = scan(&m);
		if (!r)
			r = cover_by_lines(&m);
		if (!r)
			r = build_matrices(&m);
		/* a board hit's weight is the compare period; a trap's is it times a thinning
		 * factor (SONDE_COMM_THIN), so it says the period only where no hit does (a
		 * run whose sampled detector found traps alone, as commbench readonly's fill:
		 * the sampled matrices were then left unwritten, compare_period 0) */
		uint64_t trap_w = 0;
		for (size_t q = 0; !r && q < m.nev && !period; q++)
			if (!(m.ev[q].flags & COMM_F_TRAP))
				period = m.ev[q].amount;
			else if (!trap_w || m.ev[q].weight < trap_w)
				trap_w = m.ev[q].weight;
		if (!period)
			period = trap_w;
		if (!period)	/* no event at all: the counters' (since 2026-11-28) */
			period = m.st.compare_period;
		if (!r)
			r = merge_into(&g, &m, &cap);
		/* every thread of the process, as in the merged numbering */
		uint32_t nt = p->proc[k].threads > 0 ? (uint32_t)p->proc[k].threads : 0;
		for (size_t i = 0; i < p->proc[k].nthread; i++)
			if (p->proc[k].thread[i].hdr.thread_index + 1 > nt)
				nt = p->proc[k].thread[i].hdr.thread_index + 1;
		g.n[COMM_BY_THREAD] += nt > m.n[COMM_BY_THREAD] ? nt - m.n[COMM_BY_THREAD] : 0;
		model_release(&m);
	}
	if (r)
		return errmsg(err, errlen, r, "modelling the sampled detector");
	cells_merge(&g);
	sqlite3_stmt *st;
	if (write_cells(db, -2, g.cell, g.ncell) ||
	    sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &st, NULL)) {
		free(g.cell);
		return db_fail(db, err, errlen, "writing the sampled matrices");
	}
	const struct { const char *k; uint64_t v; } nums[] = {
		{ "compare_period", period }, { "sampled_total_all", g.total[COMM_ALL] },
		{ "sampled_total_true", g.total[COMM_TRUE] },
		{ "sampled_total_false", g.total[COMM_FALSE] }, { "sampled_events", g.nev },
		{ "sampled_total_trap", g.total_trap },
		{ "sampled_total_false_covered", g.total_covered },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]) && !r; i++) {
		char b[32];
		snprintf(b, sizeof(b), "%" PRIu64, nums[i].v);
		r = db_row(st, "tt", nums[i].k, b);
	}
	sqlite3_finalize(st);
	free(g.cell);
	return r ? db_fail(db, err, errlen, "writing the sampled matrices") : 0;
}

int comm_fill(sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	struct model g = { .p = p, .part = -1 };
	size_t cap = 0;
	int r = 0;
	if (!p->nproc)
		return errmsg(err, errlen, -EINVAL, "%s: no process in the recording", p->dir);
	g.proc = profile_main_process(p);	/* the header's program, source and period */
	g.clock = !strcmp(g.proc->source, "clock");
	g.period = g.proc->period ? g.proc->period : 1;
	if (sqlite3_exec(db, schema_sql, NULL, NULL, NULL) ||
	    (p->nproc > 1 &&
	     sqlite3_exec(db, "CREATE TEMP TABLE comm_lines_merged(line INTEGER, object TEXT,"
			      " total INTEGER, true_sharing INTEGER, false_sharing INTEGER,"
			      " events INTEGER, offsets TEXT)", NULL, NULL, NULL)))
		return db_fail(db, err, errlen, "writing the comm tables");
	for (size_t k = 0; k < p->nproc && !r; k++) {
		struct model m = { .p = p, .proc = &p->proc[k], .base = g.n[COMM_BY_THREAD],
				   .part = p->nproc > 1 ? (int)k : -1 };
		if (is_compare_run(m.proc)) {	/* --compare: the exact records are the report */
			m.take = COMM_REC_EXACT;
			g.compare = m.compare = 1;
		}
		m.clock = !strcmp(m.proc->source, "clock");
		m.period = m.proc->period ? m.proc->period : 1;
		r = model_process(db, &m, err, errlen);
		if (!r && merge_into(&g, &m, &cap))
			r = errmsg(err, errlen, -ENOMEM, "modelling the communication");
		model_release(&m);
	}
	if (r)
		goto out;
	cells_merge(&g);
	if (write_cells(db, -1, g.cell, g.ncell) ||
	    sqlite3_exec(db, "CREATE INDEX comm_cells_ij ON comm_cells(part, unit, kind, i, j)",
			 NULL, NULL, NULL) || write_meta(db, &g)) {
		r = db_fail(db, err, errlen, "writing the comm tables");
		goto out;
	}
	/* several processes: the merged objects add up each process's, by name */
	if (p->nproc > 1 &&
	    sqlite3_exec(db, "INSERT INTO comm_objects(part, name, kind, total, true_sharing,"
			     " false_sharing, events, false_covered) SELECT -1, name, kind,"
			     " SUM(total), SUM(true_sharing), SUM(false_sharing), SUM(events),"
			     " SUM(false_covered) FROM comm_objects"
			     " WHERE part >= 0 GROUP BY name, kind ORDER BY MIN(id)",
			 NULL, NULL, NULL))
		r = db_fail(db, err, errlen, "writing comm_objects");
	/* and the merged lines are the processes' largest (each its own addresses) */
	char merged_lines[320];
	snprintf(merged_lines, sizeof(merged_lines), "INSERT INTO comm_lines(part, line, object,"
		 " total, true_sharing, false_sharing, events, offsets) SELECT -1, line, object,"
		 " total, true_sharing, false_sharing, events, offsets FROM comm_lines_merged"
		 " ORDER BY total DESC, rowid LIMIT %d", TOP_LINES);
	if (!r && p->nproc > 1 && sqlite3_exec(db, merged_lines, NULL, NULL, NULL))
		r = db_fail(db, err, errlen, "writing comm_lines");
	if (!r && g.compare)
		r = fill_sampled(db, p, err, errlen);
out:
	free(g.cell);
	return r;
}
