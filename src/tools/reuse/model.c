/* SPDX-License-Identifier: MIT */
/*
 * model.c - the reuse tool's model: a recording's STATS, SEEN and PAIR records become the
 * histograms, the miss-ratio curve and the ranked code pairs of the profile database
 * (tables reuse_hist, reuse_miss, reuse_pairs and meta; doc/sonde-reuse.md, "Output").
 *
 * Exact mode: the histograms are the engine's own counts.  Sampled mode: each observed
 * outcome stands for the same share of the program's accesses; time distances become
 * reuse distances through the Shen model (shen.c), with the footprint estimated from the
 * distinct 4 KiB pages the samples touched.  With the clock source there is no access
 * count: the histogram holds reuse times in ns (kind time_ns) and no distances.
 *
 * Every process that measured something (an access counted or sampled, an outcome, a
 * pair) by the source the run is summed in (sum_source) is modelled on its own (its
 * address space, its footprint, its objects), and the models are summed: the histograms
 * of MPI ranks or forked children together, as the miss ratio of caches each process has
 * to itself (since 2026-11-29; before, only the process with the most samples).  A wrapper
 * such as /usr/bin/time or env that took no sample, or sampled by the clock where the
 * program counts accesses, is left out.  Code
 * locations and data objects are named as `sonde mem` names them (tools/mem/model.h, used
 * read-only).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "machine/machine.h"
#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/profile.h"
#include "prof/symbols.h"
#include "tools/mem/model.h"
#include "tools/reuse/format.h"
#include "tools/reuse/reuse.h"

#define TOP_PAIRS 50
#define NAMED_PAIRS 4096	/* pairs named (and merged by name); the rest are dropped */

struct rpair {
	uint64_t use_ip, reuse_ip, addr;
	uint64_t time;		/* when addr was seen (a sampled outcome's); 0: not known */
	uint32_t stack;		/* 1 + the index of the thread whose stack holds addr, 0 */
	double count, long_count;
	double long_seen;	/* sampled: the observed outcomes of long_count (--exact: all) */
	double dist[REUSE_BINS];
	uint32_t object;
	char *name;		/* "use\0reuse\0object\0" after naming */
	size_t namelen;
};

struct model {
	const struct profile *p;
	const struct prof_process *proc;
	uint32_t mode, element;
	int have_stats, counts;
	int page_counts;		/* the stats records count pages sampled twice, three
					 * times (pages2, pages3: since 2026-11-28) */
	struct reuse_rec_stats st;	/* summed (pages: the largest, with its pages2, 3) */
	double time[REUSE_BINS], dist[REUSE_BINS], ns[REUSE_BINS];
	/* --exact: the cache sizes (elements) every thread counted its reuses at or beyond
	 * (st.beyond), 0 where not all did alike (sizes_note) */
	uint64_t cache_el[3];
	int sized;		/* records (or models) whose sizes are in cache_el */
	double dist_w[REUSE_BINS];	/* dist, each process's scaled to its reuses (some
					 * have no distance): the miss curve's, so that the
					 * sum is each process's curve weighted by its accesses */
	double inv, cold, reuses;	/* estimated accesses */
	double inv_timed;		/* of inv: those whose owner's count was read at the
					 * store (their use leaves the stack there) */
	uint64_t seen, seen_inv, seen_trd;
	double accesses, footprint;	/* elements */
	double footprint_thread;	/* --exact, private cache: the largest cache's distinct
					 * elements (a thread's own; threads beyond REUSE_UNITS
					 * share units, and a unit's are summed), else 0 */
	double unit_cold[REUSE_UNITS];	/* (their cold accesses, unit by unit) */
	double per;			/* accesses per unit of outcome weight (sampled) */
	double *rd;			/* per sv[i]: its estimated reuse distance, -1 none */
	int64_t cache[4];		/* L1..L3 bytes, -1 unknown */
	struct rpair *pair;
	size_t npair, cap;
	struct reuse_rec_seen *sv;	/* sampled outcomes */
	size_t nsv, svcap;
	uint32_t check_period;		/* REUSE_M_CHECK: the sampled mode's period */
	uint32_t slots;			/* GlobalWP slots (0: a recording before 2026-11-27) */
	double check_s;			/* its estimate's S against the exact histogram */
	double check_s_sample;		/* S of its reuses at their exact distances (the
					 * sample's own error, without the model's) */
	uint8_t *how;			/* per outcome (sv's order): its estimator, EST_* */
	double check_log_error;		/* each estimated reuse against its own exact
					 * distance: the mean of |log2((est + 1) / (exact + 1))|,
					 * weighted as the histogram (-1: none) */
	double check_drawn[REUSE_BINS];	/* (their inputs, summed over the processes: the
					 * sampled reuses at their exact distances, */
	double check_err, check_wsum;	/* the log2 errors weighted, and the weights) */
	double check_err_far, check_wsum_far;	/* the same over reuses at distance >= 1 */
	double check_log_error_far;
	uint32_t threads, modelled;	/* the processes modelled and their threads */
	uint32_t threads_process;	/* the most threads of one of them */
	char unmodelled[600];		/* the processes left out, and why (reuse_fill) */
	uint32_t nostats;		/* of them, those with no statistics record (killed) */
};

/* s's counters added into d: a thread's into its process's, a process's into the sum of
 * the processes (model_add); the pages, a process's (each thread's record holds them
 * all), are the callers'. */
static void stats_sum(struct reuse_rec_stats *d, const struct reuse_rec_stats *s)
{
	d->accesses += s->accesses;
	d->samples += s->samples;
	d->armed += s->armed;
	d->arm_failures += s->arm_failures;
	d->traps += s->traps;
	d->stale += s->stale;
	d->lost += s->lost;
	if (s->watch_errno)
		d->watch_errno = s->watch_errno;
	d->cold += s->cold;
	d->invalidations += s->invalidations;
	d->reuses += s->reuses;
	for (int b = 0; b < REUSE_BINS; b++) {
		d->time[b] += s->time[b];
		d->dist[b] += s->dist[b];
	}
	for (int k = 0; k < 3; k++)
		d->beyond[k] += s->beyond[k];
	d->wide += s->wide;
}

/* Fold one thread's (or process's) counted sizes into m's (cache_el). */
static void sizes_note(struct model *m, const uint64_t *el)
{
	for (int k = 0; k < 3; k++)
		if (!m->sized)
			m->cache_el[k] = el[k];
		else if (m->cache_el[k] != el[k])
			m->cache_el[k] = 0;
	m->sized++;
}

/* s: the stats record of the thread of index `index` (creation order) */
static void add_stats(struct model *m, const struct reuse_rec_stats *s, uint32_t index)
{
	sizes_note(m, s->cache_elements);
	m->have_stats = 1;
	m->mode |= s->mode;
	m->counts |= (s->mode & REUSE_M_COUNTS) != 0;
	m->element = s->element;
	stats_sum(&m->st, s);
	if (s->check_period > m->check_period)
		m->check_period = s->check_period;
	if (s->slots > m->slots)
		m->slots = s->slots;
	if (s->pages > m->st.pages) {
		m->st.pages = s->pages;
		m->st.pages2 = s->pages2;
		m->st.pages3 = s->pages3;
	}
	/* the exact engine's unit of the thread (rt-reuse.c: its index modulo REUSE_UNITS):
	 * a unit's first touches are the cold accesses of its threads together */
	double *u = &m->unit_cold[index % REUSE_UNITS];
	*u += (double)s->cold;
	if (*u > m->footprint_thread)
		m->footprint_thread = *u;
}

/* 1 + the index (in the process) of the thread whose stack holds addr, 0 for none. */
static uint32_t stack_of(const struct prof_process *pr, uint64_t addr)
{
	for (size_t i = 0; i < pr->nthread; i++)
		if (pr->thread[i].hdr.stack_lo <= addr && addr < pr->thread[i].hdr.stack_hi)
			return (uint32_t)i + 1;
	return 0;
}

/* The pair of code use_ip -> reuse_ip on data at addr: one a thread's stack, the same code
 * on another thread's stack another (each pair keeps one address to name its object by:
 * the trial of 2026-11-28 read RSBench's two threads' stack pairs all as "[stack of
 * thread 1]"). */
static struct rpair *pair_get(struct model *m, uint64_t use_ip, uint64_t reuse_ip,
			      uint64_t addr)
{
	uint32_t stack = stack_of(m->proc, addr);
	for (size_t i = 0; i < m->npair; i++)
		if (m->pair[i].use_ip == use_ip && m->pair[i].reuse_ip == reuse_ip &&
		    m->pair[i].stack == stack)
			return &m->pair[i];
	if (m->npair == m->cap) {
		size_t n = m->cap ? 2 * m->cap : 64;
		struct rpair *q = realloc(m->pair, n * sizeof(*q));
		if (!q)
			return NULL;
		m->pair = q;
		m->cap = n;
	}
	struct rpair *r = &m->pair[m->npair++];
	memset(r, 0, sizeof(*r));
	r->use_ip = use_ip;
	r->reuse_ip = reuse_ip;
	r->stack = stack;
	return r;
}

static int scan(struct model *m)
{
	const struct prof_process *pr = m->proc;
	for (size_t i = 0; i < pr->nthread; i++) {
		const struct prof_thread *t = &pr->thread[i];
		const struct sonde_rec_hdr *h;
		size_t off = 0;
		if (t->swapped)
			continue;
		while ((h = prof_tool_next(t, &off))) {
			if (h->type == REUSE_REC_STATS && h->size >= REUSE_REC_STATS_V1) {
				struct reuse_rec_stats x = { 0 };
				memcpy(&x, h, h->size < sizeof(x) ? h->size : sizeof(x));
				if (h->size >= REUSE_REC_STATS_V2)	/* (pages2, pages3) */
					m->page_counts = 1;
				add_stats(m, &x, t->hdr.thread_index);
			} else if (h->type == REUSE_REC_PAIR && h->size >= sizeof(struct reuse_rec_pair)) {
				const struct reuse_rec_pair *x = (const void *)h;
				struct rpair *r = pair_get(m, x->use_ip, x->reuse_ip, x->addr);
				if (!r)
					return -ENOMEM;
				r->addr = x->addr;
				r->count += (double)x->count;
				for (int b = 0; b < REUSE_BINS; b++)
					r->dist[b] += (double)x->dist[b];
			} else if ((h->type == REUSE_REC_PAIR_BINS &&
				    h->size >= sizeof(struct reuse_rec_pair_bins)) ||
				   (h->type == REUSE_REC_PAIR_BINS_T &&
				    h->size >= sizeof(struct reuse_rec_pair_bins_t))) {
				/* the two differ by the time before the bins (format.h) */
				const int timed = h->type == REUSE_REC_PAIR_BINS_T;
				const struct reuse_rec_pair_bins_t *x = (const void *)h;
				const uint64_t *bin = timed ? x->bin
					: ((const struct reuse_rec_pair_bins *)(const void *)h)->bin;
				size_t head = timed ? sizeof(*x) : sizeof(struct reuse_rec_pair_bins);
				size_t n = (h->size - head) / sizeof(bin[0]);
				struct rpair *r = pair_get(m, x->use_ip, x->reuse_ip, x->addr);
				if (!r)
					return -ENOMEM;
				r->addr = x->addr;
				r->time = timed ? x->time : 0;
				for (size_t k = 0; k < n; k++) {
					int b = REUSE_PB_BIN(bin[k]);
					double c = (double)REUSE_PB_COUNT(bin[k]);
					if (b >= REUSE_BINS)
						continue;	/* not written by this version */
					r->count += c;
					r->dist[b] += c;
				}
			} else if (h->type == REUSE_REC_SEEN && h->size >= REUSE_SEEN_SIZE_V1) {
				if (m->nsv == m->svcap) {
					size_t n = m->svcap ? 2 * m->svcap : 256;
					struct reuse_rec_seen *q = realloc(m->sv, n * sizeof(*q));
					if (!q)
						return -ENOMEM;
					m->sv = q;
					m->svcap = n;
				}
				/* a record before arm_q (REUSE_SEEN_SIZE_V1) reads it as 0 */
				struct reuse_rec_seen *q = &m->sv[m->nsv++];
				memset(q, 0, sizeof(*q));
				memcpy(q, h, h->size < sizeof(*q) ? h->size : sizeof(*q));
			}
		}
	}
	if (!m->element)
		m->element = 8;
	return 0;
}

/* Exact mode: the engine's counts as they are. */
static void model_exact(struct model *m)
{
	for (int b = 0; b < REUSE_BINS; b++) {
		m->time[b] = (double)m->st.time[b];
		m->dist[b] = (double)m->st.dist[b];
	}
	m->inv = (double)m->st.invalidations;
	m->cold = (double)m->st.cold;
	m->reuses = (double)m->st.reuses;
	/* the threads' own counts: the outcomes add up to more where another thread's
	 * store ended a use whose thread never came back to the word (an invalidation, and
	 * no access after it); before 2026-11-27 "accesses" was that sum */
	m->accesses = m->st.accesses ? (double)m->st.accesses : m->reuses + m->inv + m->cold;
	m->footprint = m->cold;
	/* a private cache per thread: the cold accesses are each thread's first touches, summed
	 * over the threads above; the largest one is what a cache of its own holds (shared
	 * mode: the socket's, which the sum is) */
	if (m->mode & REUSE_M_SHARED)
		m->footprint_thread = 0;
}

/* An outcome stands for n1/n0 uses, the inverse of its chance to survive replacement, over
 * arm_q / 2^32, its sample's chance to be armed at all (sampler.h).  Records without the
 * counts weigh 1; records before arm_q (0) leave that factor out. */
static double outcome_weight(const struct reuse_rec_seen *s)
{
	double w = s->n0 && s->n1 >= s->n0 ? (double)s->n1 / (double)s->n0 : 1;
	return s->arm_q ? w * (double)REUSE_ARM_ONE / (double)s->arm_q : w;
}

static int obs_cmp(const void *x, const void *y)
{
	const struct reuse_rec_seen *a = x, *b = y;
	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	return a->p0 < b->p0 ? -1 : a->p0 > b->p0;
}

#define WINDOW_MIN_OBS 8	/* observed uses a window needs for its own estimate */
#define POOL_TOL 0.05	/* windows pooled: the same code pair, time distances within 5%
			 * (2% and 10% read close in a trial on 14 recordings of
			 * 2026-11-27, doc/sonde-reuse.md "Pooled windows") */
#define POOL_MIN_BEYOND 16	/* uses beyond the windows a pool needs (8 and 32 read close on
				 * the same recordings; doc/sonde-reuse.md "Pooled windows") */
#define LOCAL_MIN 4		/* observed uses a thread needs for local means at all */
#define LOCAL_K 8		/* neighbours of the local Shen mean, at least (4 until
				 * 2026-11-27, evening: with 32 slots there are more; the log2
				 * error fell on 13 of bench/reuse-check.sh's 16 rows at load
				 * 1-2, doc/sonde-reuse.md "Local mean of 8").  Also the
				 * count under which a short window takes the whole
				 * program's mean (reuse_local_mean's w_alone rule), and a
				 * thread with LOCAL_MIN to LOCAL_K - 1 uses averages them
				 * all */
#define LOCAL_ALONE 0.1		/* windows shorter than this share of the sampling period
				 * with too few neighbours: the whole program's mean
				 * (reuse_local_mean; 0 until 2026-11-27) */

struct tw {
	uint64_t t;
	double w;
};

static int tw_cmp(const void *x, const void *y)
{
	const struct tw *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* The start of the function code address ip lies in, 0 if unknown. */
static uint64_t code_func(struct symtab *st, uint64_t ip)
{
	struct sym_code sc;
	return symtab_code(st, ip, &sc) == 0 ? sc.func_start : 0;
}

/*
 * Reuse distances of the observed reuses: for a short window in straight code, the
 * code-order estimate (reuse_code_rd); else the window estimate pooled over the windows of
 * the same code pair at like time distances (reuse_pool_rd) where the window holds enough
 * observed uses of its thread; else the local Shen mean (reuse_local_mean); else the
 * one over the whole program's time distances (reuse_points_mean).  An invalidated use whose owner's count
 * was read at the store is one of those uses too, its next event at that count: it takes
 * a place in the owner's stack up to there, not to the end (as --exact counts it; a
 * reuse window's uses invalidated inside it are not beyond it).  Only the reuses get a
 * distance.  0 or -ENOMEM.
 */
/* which estimate an outcome's distance is (outcomes.csv's `estimator`) */
enum { EST_NONE, EST_CODE, EST_POOLED, EST_LOCAL, EST_PROGRAM };
static const char *const est_name[] = { NULL, "code", "pooled", "local", "program" };

static int convert_points(struct model *m)
{
	size_t cap = m->nsv ? m->nsv : 1, n = 0;
	struct reuse_obs *o = malloc(cap * sizeof(*o));
	uint32_t *owner = malloc(cap * sizeof(*owner));
	struct tw *tw = malloc(cap * sizeof(*tw));
	uint64_t *t = malloc(cap * sizeof(*t));
	double *w = malloc(cap * sizeof(*w));
	struct reuse_points pts = { 0 };
	size_t *idx = malloc(cap * sizeof(*idx));
	struct reuse_win *win = malloc(cap * sizeof(*win));
	double *pooled = malloc(cap * sizeof(*pooled));
	uint64_t *uip = malloc(cap * sizeof(*uip));
	struct reuse_site *sites = NULL;
	size_t nsites = 0;
	struct symtab *st = NULL;
	int r = -ENOMEM;
	m->rd = malloc(cap * sizeof(*m->rd));
	m->how = calloc(cap, sizeof(*m->how));
	if (!o || !owner || !tw || !t || !w || !idx || !win || !pooled || !uip ||
	    !m->rd || !m->how)
		goto out;
	for (size_t i = 0; i < m->nsv; i++)
		m->rd[i] = -1;
	qsort(m->sv, m->nsv, sizeof(*m->sv), obs_cmp);
	for (size_t i = 0; i < m->nsv; i++) {
		const struct reuse_rec_seen *s = &m->sv[i];
		if (!(s->flags & REUSE_F_TRD))
			continue;
		owner[n] = s->owner;
		idx[n] = i;
		o[n] = (struct reuse_obs){ s->p0, s->trd, outcome_weight(s) * m->per };
		tw[n] = (struct tw){ s->trd, o[n].w };
		n++;
	}
	qsort(tw, n, sizeof(*tw), tw_cmp);
	for (size_t i = 0; i < n; i++) {
		t[i] = tw[i].t;
		w[i] = tw[i].w;
	}
	/* never reused nor taken out: the cold accesses, and the invalidated uses whose
	 * store's time is not known (recordings before 2026-11-27, an owner that ended) */
	double never = m->inv - m->inv_timed + m->cold;
	if (reuse_points_init(&pts, t, w, n, never))
		goto out;
	memset(m->dist, 0, sizeof(m->dist));
	double all = m->reuses + m->inv + m->cold;
	double never_share = all > 0 ? never / all : 0;
	/* the sampling period in accesses (--check-sampling's, else the recording's) */
	double period = m->check_period ? (double)m->check_period : (double)m->proc->period;
	double w_alone = period * LOCAL_ALONE;
	/* each reuse's window counts, then the pooled estimate (reuse_pool_rd) */
	size_t nw = 0;
	for (size_t g = 0, e; g < n; g = e) {
		for (e = g; e < n && owner[e] == owner[g]; e++)
			;
		for (size_t i = g; i < e; i++) {
			const struct reuse_rec_seen *s = &m->sv[idx[i]];
			if (s->flags & REUSE_F_INVALIDATION)
				continue;
			struct reuse_win *x = &win[nw++];
			*x = (struct reuse_win){ .use_ip = s->use_ip, .reuse_ip = s->reuse_ip,
						 .trd = o[i].trd, .at = i };
			reuse_window_counts(o + g, e - g, i - g, &x->k, &x->kb, &x->in,
					    &x->beyond);
		}
	}
	if (reuse_pool_rd(win, nw, WINDOW_MIN_OBS, POOL_MIN_BEYOND, POOL_TOL))
		goto out;
	/* the use sites' time distances, for the code-order estimate (reuse_code_rd) */
	for (size_t i = 0; i < n; i++)
		uip[i] = m->sv[idx[i]].use_ip;
	if (reuse_sites_build(o, uip, n, &sites, &nsites))
		goto out;
	/* the sites' functions; the code order only where the accesses' own addresses are
	 * known (inst: the trap is the access; hw: the next instruction) */
	if (!strcmp(m->proc->source, "inst") && m->proc->maps_path) {
		int serr;
		st = symtab_new_closed(m->proc->maps_path, m->proc->maps_closed_path, &serr);
		for (size_t i = 0; st && i < nsites; i++)
			sites[i].func = code_func(st, sites[i].ip);
	}
	for (size_t i = 0; i < n; i++)
		pooled[i] = -1;
	for (size_t i = 0; i < nw; i++)
		pooled[win[i].at] = win[i].rd;
	for (size_t g = 0, e; g < n; g = e) {
		for (e = g; e < n && owner[e] == owner[g]; e++)
			;
		for (size_t i = g; i < e; i++) {
			if (m->sv[idx[i]].flags & REUSE_F_INVALIDATION)
				continue;	/* a neighbour, no distance of its own */
			const struct reuse_rec_seen *s = &m->sv[idx[i]];
			double rd = -1;
			uint8_t how = EST_CODE;
			if (st && o[i].trd <= REUSE_CODE_MAX && s->use_ip < s->reuse_ip) {
				uint64_t f = code_func(st, s->use_ip);
				if (f && f == code_func(st, s->reuse_ip))
					rd = reuse_code_rd(sites, nsites, s->use_ip, s->reuse_ip,
							   o[i].trd, f);
			}
			if (rd < 0)
				rd = pooled[i], how = EST_POOLED;
			if (rd < 0 && e - g >= LOCAL_MIN)
				rd = reuse_local_mean(o + g, e - g, i - g, LOCAL_K, never_share,
						      w_alone),
				how = EST_LOCAL;
			if (rd < 0)
				rd = reuse_points_mean(&pts, (double)o[i].trd), how = EST_PROGRAM;
			m->how[idx[i]] = how;
			m->dist[reuse_bin((uint64_t)llround(rd))] += o[i].w;
			m->rd[idx[i]] = rd;
		}
	}
	r = 0;
out:
	reuse_points_release(&pts);
	free(win);
	free(pooled);
	free(uip);
	free(sites);
	if (st)
		symtab_free(st);
	free(idx);
	free(o);
	free(owner);
	free(tw);
	free(t);
	free(w);
	return r;
}

/* Sampled mode: outcomes scaled to the accesses, Shen for the distances. */
static void model_sampled(struct model *m)
{
	double obs_time[REUSE_BINS] = { 0 }, wall = 0, winv = 0, winv_timed = 0;
	for (size_t i = 0; i < m->nsv; i++) {
		const struct reuse_rec_seen *s = &m->sv[i];
		double w = outcome_weight(s);
		m->seen++;
		wall += w;
		if (s->flags & REUSE_F_INVALIDATION) {
			m->seen_inv++;
			winv += w;
			winv_timed += s->flags & REUSE_F_TRD ? w : 0;
		} else if (s->flags & REUSE_F_TRD) {
			m->seen_trd++;
			obs_time[reuse_bin(s->trd)] += w;
		} else {
			m->ns[reuse_bin(s->dt)] += w;
		}
	}
	/* with the clock source there is no access count: the unit is the sample */
	m->accesses = m->counts ? (double)m->st.accesses : (double)m->st.samples;
	m->footprint = reuse_pages_estimate(m->page_counts, m->st.pages, m->st.pages2,
					    m->st.pages3) * 4096.0 / m->element;
	/* (without an access count, "accesses" are samples: no bound on the footprint) */
	if (m->counts && m->footprint > m->accesses)
		m->footprint = m->accesses;
	/* cold accesses are counted in accesses: unknown without an access count */
	m->cold = m->counts ? m->footprint : 0;
	double rest = m->accesses - m->cold, per = wall > 0 ? rest / wall : 0;
	m->inv = winv * per;
	m->inv_timed = winv_timed * per;
	for (int b = 0; b < REUSE_BINS; b++) {
		m->time[b] = obs_time[b] * per;
		m->ns[b] *= per;
	}
	m->reuses = (wall - winv) * per;
	m->per = per;
	if (m->seen_trd && convert_points(m))
		reuse_shen_convert(m->time, m->inv + m->cold, m->footprint, m->dist);
}

/* S of two reuse-distance histograms (reuse_accuracy, shen.c), or -1 if either has no
 * reuse (nothing to compare: all invalidations, or no outcome). */
static double hist_s(const double *a, const double *b)
{
	double sa = 0, sb = 0;
	for (int i = 0; i < REUSE_BINS; i++) {
		sa += a[i];
		sb += b[i];
	}
	return sa > 0 && sb > 0 ? reuse_accuracy(a, b, REUSE_BINS) : -1;
}

/*
 * --check-sampling: the sampled mode's outcomes of the same run, modelled as a sampled
 * recording's (into c, which takes m's outcomes over), and S of their histogram against
 * the exact one in m.  The footprint is the sampled mode's own estimate (the pages its
 * samples touched), not the exact cold count.
 */
static void model_check(struct model *m, struct model *c)
{
	*c = (struct model){ .p = m->p, .proc = m->proc, .mode = m->mode & ~REUSE_M_EXACT,
			     .element = m->element, .have_stats = 1, .counts = 1, .st = m->st,
			     .page_counts = m->page_counts,
			     .sv = m->sv, .nsv = m->nsv, .svcap = m->svcap,
			     .check_period = m->check_period };
	memcpy(c->cache, m->cache, sizeof(c->cache));
	m->sv = NULL;
	m->nsv = m->svcap = 0;
	model_sampled(c);
	for (size_t i = 0; i < c->nsv; i++)
		if (c->sv[i].exact_rd && !(c->sv[i].flags & REUSE_F_INVALIDATION))
			m->check_drawn[reuse_bin(c->sv[i].exact_rd - 1)] +=
				outcome_weight(&c->sv[i]);
	/* S compares bins: an estimate a hair over an edge counts as wrong as one a factor
	 * of 2 off.  The error of each reuse's own estimate tells a model that comes closer
	 * from one that happens to fall in the right bins (2026-11-27: pooled windows) */
	for (size_t i = 0; c->rd && i < c->nsv; i++) {
		const struct reuse_rec_seen *sv = &c->sv[i];
		if (!sv->exact_rd || (sv->flags & REUSE_F_INVALIDATION) || c->rd[i] < 0)
			continue;
		double w = outcome_weight(sv);
		double e = w * fabs(log2((c->rd[i] + 1) / (double)sv->exact_rd));
		m->check_err += e;
		m->check_wsum += w;
		/* a reuse at distance 0 (the same element again, next) is counted, not
		 * estimated: exact by construction, it dilutes the mean (the usability review
		 * of 2026-11-29, M2: --spatial's sweep, 7/8 of its reuses at 0, read a factor
		 * of 1.02 beside S = 0.88, its long reuses 0.83x their distance) */
		if (sv->exact_rd > 1) {
			m->check_err_far += e;
			m->check_wsum_far += w;
		}
	}
}

/* --check-sampling's figures, of the processes summed: m exact, c its sampled estimate. */
static void check_finish(struct model *m, const struct model *c)
{
	m->check_s = hist_s(c->dist, m->dist);
	m->check_s_sample = hist_s(m->check_drawn, m->dist);
	m->check_log_error = m->check_wsum > 0 ? m->check_err / m->check_wsum : -1;
	m->check_log_error_far = m->check_wsum_far > 0 ? m->check_err_far / m->check_wsum_far :
			      -1;
}

static double mean_dist(const double *dist)
{
	double s = 0, n = 0;
	for (int b = 0; b < REUSE_BINS; b++) {
		s += dist[b] * ((double)reuse_bin_lo(b) + (double)reuse_bin_hi(b) - 1) / 2;
		n += dist[b];
	}
	return n ? s / n : 0;
}

/* Sampled pairs: each outcome's time distance, converted by its Shen mean. */
static int sampled_pairs(struct model *m)
{
	double l2 = m->cache[2] > 0 ? (double)m->cache[2] / m->element : 65536;
	for (size_t i = 0; i < m->nsv; i++) {
		const struct reuse_rec_seen *s = &m->sv[i];
		if (s->flags & REUSE_F_INVALIDATION)
			continue;
		struct rpair *r = pair_get(m, s->use_ip, s->reuse_ip, s->addr);
		double w = outcome_weight(s) * m->per;	/* accesses, as the histogram */
		if (!r)
			return -ENOMEM;
		r->addr = s->addr;
		r->time = s->time;
		r->count += w;
		if ((s->flags & REUSE_F_TRD) && m->rd && m->rd[i] >= 0) {
			double d = m->rd[i];
			r->dist[reuse_bin((uint64_t)d)] += w;
			r->long_count += d >= l2 ? w : 0;
			r->long_seen += d >= l2;
		}
	}
	(void)mean_dist;
	return 0;
}

static int pair_cmp(const void *x, const void *y)
{
	const struct rpair *a = x, *b = y;
	if (a->long_count != b->long_count)
		return a->long_count < b->long_count ? 1 : -1;
	return a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
}

static void code_name(const struct memmodel *mm, uint64_t ip, char *buf, size_t len)
{
	if (!ip)
		snprintf(buf, len, "?");
	else
		mm_code_name(mm, ip, buf, len);
}

/* A tracked block's extent, allocation time and free time (UINT64_MAX: never freed), for
 * heap_time(). */
struct blk {
	uint64_t lo, hi, time, freed;
};

static int blk_cmp(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Frees by address, then time (free_time). */
static int free_cmp(const void *a, const void *b)
{
	const struct sonde_rec_free *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The first free of addr at or after time t among the n sorted frees f: its time, or
 * UINT64_MAX. */
static uint64_t free_time(const struct sonde_rec_free *f, size_t n, uint64_t addr, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {	/* first free at (addr, >= t) or past it */
		size_t mid = (lo + hi) / 2;
		if (f[mid].addr < addr || (f[mid].addr == addr && f[mid].time < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && f[lo].addr == addr ? f[lo].time : UINT64_MAX;
}

/* Blocks scanned below an address for one holding it: a block that starts further down and
 * reaches past the address is missed when this many others start between (then the pair's
 * object is named as of the process start, as a non-heap address is). */
#define HEAP_SCAN 256

/*
 * The reuse records carry no time, and the mem model names an address by the objects alive
 * at a sample's time: for a heap address, a time when a tracked block held it (the latest
 * allocation of one), else the process start.  With the start for every pair, every heap
 * address fell before its allocation: "untracked small blocks" for all of LULESH's arrays.
 */
static uint64_t heap_time(const struct blk *b, size_t n, uint64_t a, uint64_t when,
			  uint64_t dflt)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {	/* first block starting above a */
		size_t mid = (lo + hi) / 2;
		if (b[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t t = 0;
	int found = 0, dead = 0;
	/* the latest block holding a, allocated by `when` and not freed before it where the
	 * outcome's time is known (a block allocated later at the same address is another
	 * object; one freed before is none: its pages may be a thread's stack by then, which
	 * the trial of 2026-11-28 read as miniBUDE's freed 1.5 MB vector); the latest of all
	 * where it is not (--exact's pairs) or none was allocated by then */
	uint64_t tw = 0;
	int found_w = 0;
	for (size_t k = lo, steps = 0; k > 0 && steps < HEAP_SCAN; k--, steps++) {
		if (b[k - 1].hi <= a)
			continue;
		if (!found || b[k - 1].time > t) {
			t = b[k - 1].time;
			found = 1;
		}
		if (when && b[k - 1].time <= when && b[k - 1].freed <= when)
			dead = 1;
		else if (when && b[k - 1].time <= when && (!found_w || b[k - 1].time > tw)) {
			tw = b[k - 1].time;
			found_w = 1;
		}
	}
	/* every block that held it by then freed: named as of that time, as an address no
	 * block holds (the thread's stack, a mapping) */
	return found_w ? tw : dead ? when : found ? t : dflt;
}

/* Name the pairs' data objects through the mem model: one synthetic sample per pair, at a
 * time its address was in a tracked block (heap_time). */
static struct memmodel *objects(struct model *m, char *err, size_t errlen)
{
	const struct prof_process *pr = m->proc;
	size_t n = m->npair < NAMED_PAIRS ? m->npair : NAMED_PAIRS, nb = 0, nf = 0;
	for (size_t i = 0; i < pr->nthread; i++) {
		nb += pr->thread[i].nalloc;
		nf += pr->thread[i].nfree;
	}
	struct sonde_rec_mem *recs = calloc(n ? n : 1, sizeof(*recs));
	size_t *first = calloc(pr->nthread + 1, sizeof(*first));
	struct blk *b = calloc(nb ? nb : 1, sizeof(*b));
	struct sonde_rec_free *f = calloc(nf ? nf : 1, sizeof(*f));
	struct memmodel *mm = NULL;
	if (!recs || !first || !b || !f || !pr->nthread)
		goto out;
	nf = 0;
	for (size_t i = 0; i < pr->nthread; i++)
		for (size_t k = 0; k < pr->thread[i].nfree; k++)
			f[nf++] = pr->thread[i].free[k];
	qsort(f, nf, sizeof(*f), free_cmp);
	nb = 0;
	for (size_t i = 0; i < pr->nthread; i++)
		for (size_t k = 0; k < pr->thread[i].nalloc; k++) {
			const struct sonde_rec_alloc *a = &pr->thread[i].alloc[k];
			if (a->flags & SONDE_ALLOC_SUMMARY)	/* counts, not a block */
				continue;
			b[nb++] = (struct blk){ a->addr, a->addr + a->size, a->time,
						free_time(f, nf, a->addr, a->time) };
		}
	qsort(b, nb, sizeof(*b), blk_cmp);
	for (size_t i = 0; i < n; i++)
		recs[i] = (struct sonde_rec_mem){ .h = { .type = SONDE_REC_MEM, .size = sizeof(recs[i]) },
						  .len = 1, .ip = m->pair[i].reuse_ip,
						  .addr = m->pair[i].addr, .weight = 1,
						  .time = heap_time(b, nb, m->pair[i].addr,
								    m->pair[i].time, pr->start_ns) };
	/* all of them as thread 0's samples */
	for (size_t i = 1; i <= pr->nthread; i++)
		first[i] = n;
	if (memmodel_build_for(m->p, (size_t)(pr - m->p->proc), recs, first, &mm, err, errlen))
		mm = NULL;
	for (size_t i = 0; i < n; i++)
		m->pair[i].object = mm && mm->nthread ? mm->thread[0].object[i] : MM_NONE;
out:
	free(f);
	free(b);
	free(first);
	free(recs);
	return mm;
}

/* --check-sampling: each outcome of the sampled mode with its estimate and its exact
 * distance (reuse_outcomes, outcomes.csv; since 2026-11-27). */
static int write_outcomes(sqlite3 *db, struct model *c)
{
	sqlite3_stmt *st;
	int r = 0;
	/* one transaction: a row each would be a commit each (125,000 outcomes: `sonde
	 * report` 2.4 s against 0.6 s).  On an error it is left open, not rolled back: the
	 * caller's message reads sqlite's error, which a rollback would clear, and the
	 * database being written is then discarded (db_write) */
	if (sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS reuse_outcomes(thread INTEGER,"
			 " position INTEGER, kind TEXT, time_distance INTEGER, weight REAL,"
			 " use_ip TEXT, reuse_ip TEXT, exact_distance INTEGER, estimate REAL,"
			 " estimator TEXT, pid INTEGER, rank INTEGER);"
			 "BEGIN;",
			 NULL, NULL, NULL))
		return -EIO;
	if (sqlite3_prepare_v2(db, "INSERT INTO reuse_outcomes VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL))
		return -EIO;
	for (size_t i = 0; i < c->nsv && !r; i++) {
		const struct reuse_rec_seen *s = &c->sv[i];
		int inv = (s->flags & REUSE_F_INVALIDATION) != 0, timed = (s->flags & REUSE_F_TRD) != 0;
		uint8_t how = c->how ? c->how[i] : EST_NONE;
		char u[24], v[24];
		snprintf(u, sizeof(u), "0x%" PRIx64, s->use_ip);
		snprintf(v, sizeof(v), "0x%" PRIx64, s->reuse_ip);
		sqlite3_bind_int64(st, 1, s->owner);
		/* where the access count was read: the use's position and the time distance */
		if (timed) {
			sqlite3_bind_int64(st, 2, (int64_t)s->p0);
			sqlite3_bind_int64(st, 4, (int64_t)s->trd);
		}
		sqlite3_bind_text(st, 3, inv ? "invalidation" : "reuse", -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 5, outcome_weight(s) * c->per);
		sqlite3_bind_text(st, 6, u, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 7, v, -1, SQLITE_TRANSIENT);
		if (s->exact_rd && !inv)
			sqlite3_bind_int64(st, 8, (int64_t)s->exact_rd - 1);
		if (how != EST_NONE && c->rd && c->rd[i] >= 0) {
			sqlite3_bind_double(st, 9, c->rd[i]);
			sqlite3_bind_text(st, 10, est_name[how], -1, SQLITE_STATIC);
		}
		/* the thread's process: `thread` numbers a process's own (the usability review
		 * of 2026-11-26, M4: two ranks' outcomes read as one thread's) */
		sqlite3_bind_int64(st, 11, c->proc->pid);
		if (c->proc->rank >= 0)
			sqlite3_bind_int64(st, 12, c->proc->rank);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	sqlite3_finalize(st);
	if (!r && sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL))
		r = -EIO;
	return r;
}

/* m's histograms into `table` (reuse_hist, or reuse_check for --check-sampling's estimate). */
static int write_hist(sqlite3 *db, struct model *m, const char *table)
{
	sqlite3_stmt *st;
	char sql[96];
	int r = 0;
	snprintf(sql, sizeof(sql), "INSERT INTO %s(kind, lo, hi, count, fraction) VALUES(?,?,?,?,?)",
		 table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return -EIO;
	double all = m->reuses + m->inv + m->cold;
	struct {
		const char *kind;
		const double *h;
	} k[] = { { "time", m->time }, { "reuse", m->dist }, { "time_ns", m->ns } };
	for (size_t i = 0; i < 3 && !r; i++) {
		int any = 0;
		for (int b = 0; b < REUSE_BINS; b++)
			any |= k[i].h[b] > 0;
		if (!any)
			continue;
		for (int b = 0; b < REUSE_BINS && !r; b++)
			if (k[i].h[b] > 0)
				r = db_row(st, "tuudd", k[i].kind, reuse_bin_lo(b), reuse_bin_hi(b),
					   k[i].h[b], all > 0 ? k[i].h[b] / all : 0);
	}
	if (!r)
		r = db_row(st, "tnndd", "invalidation", m->inv, all > 0 ? m->inv / all : 0);
	if (!r)
		r = db_row(st, "tnndd", "cold", m->cold, all > 0 ? m->cold / all : 0);
	sqlite3_finalize(st);
	return r;
}

/* The miss ratio of a fully associative LRU cache of c elements, and its bounds where c
 * cuts a bin of the histogram (*lo, *hi: reuse_share_beyond_bounds). */
static double miss_ratio(const struct model *m, double c, double *lo, double *hi)
{
	double all = m->reuses + m->inv + m->cold, slo, shi;
	*lo = *hi = 0;
	if (all <= 0)
		return 0;
	/* --exact at a size every thread counted (rt-reuse.c, exact_hit): the count itself
	 * (the usability review of 2026-11-29, M4: a 48 KiB L1 read "37.5%, between 0.1% and
	 * 75%" off the [4096, 8192) bin, where the reuses all came back within 6000 words) */
	for (int k = 0; k < 3 && (m->mode & REUSE_M_EXACT); k++)
		if (m->cache_el[k] && (double)m->cache_el[k] == c) {
			*lo = *hi = ((double)m->st.beyond[k] + m->inv + m->cold) / all;
			return *lo;
		}
	reuse_share_beyond_bounds(m->dist_w, c, &slo, &shi);
	*lo = (m->reuses * slo + m->inv + m->cold) / all;
	*hi = (m->reuses * shi + m->inv + m->cold) / all;
	return (m->reuses * reuse_share_beyond(m->dist_w, c) + m->inv + m->cold) / all;
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* Reuse distances were measured: --exact, or a source with the threads' access counts
 * (not the clock source, which gives reuse times only). */
static int has_distances(const struct model *m)
{
	return (m->mode & REUSE_M_EXACT) || m->counts;
}

static int write_miss(sqlite3 *db, struct model *m)
{
	uint64_t size[80];
	int n = 0, r = 0;
	double top = m->footprint * m->element * 2, mass = 0;
	for (int b = 0; b < REUSE_BINS; b++)
		mass += m->dist[b];
	/* no distance measured (the clock source: reuse times only), no curve; where every
	 * use was invalidated (none reused) every size misses them.  Until 2026-11-28 a clock
	 * run with invalidations wrote a flat curve of their share (the trial's HPCCG: 14
	 * rows of 0.0093), where the report and the page said there was none. */
	if (!has_distances(m) || (mass <= 0 && m->inv <= 0))
		return 0;
	for (uint64_t b = 4096; n < 64; b *= 2) {
		size[n++] = b;
		if ((double)b > top)
			break;
	}
	for (int l = 1; l <= 3; l++)
		if (m->cache[l] > 0)
			size[n++] = (uint64_t)m->cache[l];
	qsort(size, (size_t)n, sizeof(*size), u64_cmp);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT INTO reuse_miss(bytes, miss_ratio, miss_lo, miss_hi) "
			       "VALUES(?,?,?,?)", -1, &st, NULL))
		return -EIO;
	for (int i = 0; i < n && !r; i++)
		if (!i || size[i] != size[i - 1]) {
			double lo, hi, v = miss_ratio(m, (double)size[i] / m->element, &lo, &hi);
			r = db_row(st, "uddd", size[i], v, lo, hi);
		}
	sqlite3_finalize(st);
	return r;
}

static int name_cmp(const void *x, const void *y)
{
	const struct rpair *a = x, *b = y;
	if (a->namelen != b->namelen)
		return a->namelen < b->namelen ? -1 : 1;
	return memcmp(a->name, b->name, a->namelen);
}

/* Merge m's pairs (all named) whose names are the same, and rank them. */
static void merge_named(struct model *m)
{
	size_t n = m->npair, k = 0;
	qsort(m->pair, n, sizeof(*m->pair), name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct rpair *p = &m->pair[i];
		if (k && !name_cmp(&m->pair[k - 1], p)) {
			struct rpair *q = &m->pair[k - 1];
			q->count += p->count;
			q->long_count += p->long_count;
			q->long_seen += p->long_seen;
			for (int b = 0; b < REUSE_BINS; b++)
				q->dist[b] += p->dist[b];
			free(p->name);
			continue;
		}
		m->pair[k++] = *p;
	}
	m->npair = k;
	qsort(m->pair, m->npair, sizeof(*m->pair), pair_cmp);
}

/* Name the first NAMED_PAIRS pairs (code on each side, object) and merge those whose names
 * are the same (an unrolled loop has several instructions per source line). */
static int name_pairs(struct model *m, const struct memmodel *mm)
{
	size_t n = m->npair < NAMED_PAIRS ? m->npair : NAMED_PAIRS;
	int trap_after = !(m->mode & REUSE_M_EXACT) && !strcmp(m->proc->watch_backend, "hw");
	for (size_t i = 0; i < n; i++) {
		struct rpair *p = &m->pair[i];
		char a[8192], b[8192];	/* C++ names run to thousands (Kripke) */
		const char *obj = mm && p->object != MM_NONE && p->object < mm->nobject
					  ? mm->object[p->object].name : "?";
		code_name(mm, p->use_ip, a, sizeof(a));
		/* a debug register's trap reports the instruction after the access (the
		 * exception comes after it): named by the byte before, inside the access's
		 * own instruction (the usability review of 2026-11-28: sweep.c:10, the loop's
		 * next line, for the load on line 11); a soft trap, --exact and the check
		 * name the access itself */
		code_name(mm, p->reuse_ip && trap_after ? p->reuse_ip - 1 : p->reuse_ip, b,
			  sizeof(b));
		size_t la = strlen(a) + 1, lb = strlen(b) + 1, lo = strlen(obj) + 1;
		p->name = malloc(la + lb + lo);
		if (!p->name)
			return -ENOMEM;
		memcpy(p->name, a, la);
		memcpy(p->name + la, b, lb);
		memcpy(p->name + la + lb, obj, lo);
		p->namelen = la + lb + lo;
	}
	for (size_t i = n; i < m->npair; i++)
		free(m->pair[i].name);
	m->npair = n;
	merge_named(m);
	return 0;
}

static int write_pairs(sqlite3 *db, struct model *m)
{
	sqlite3_stmt *st;
	int r = 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO reuse_pairs(rank, use_code, reuse_code, object,"
				   " reuses, long_reuses, median_lo, median_hi, long_observed)"
				   " VALUES(?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL))
		return -EIO;
	for (size_t i = 0; i < m->npair && i < TOP_PAIRS && !r; i++) {
		const struct rpair *p = &m->pair[i];
		const char *a = p->name, *b = a + strlen(a) + 1, *obj = b + strlen(b) + 1;
		double half = 0, acc = 0;
		int med = 0;
		for (int k = 0; k < REUSE_BINS; k++)
			half += p->dist[k];
		for (med = 0; med < REUSE_BINS; med++) {
			acc += p->dist[med];
			if (acc >= half / 2 && acc > 0)
				break;
		}
		/* no distance known (the clock source: reuse times only): empty fields, the long
		 * reuses too (until 2026-11-28 a 0 in every row, as if none were long) */
		/* the median's bin, [lo, hi): the recordings keep log-2 bins, not distances
		 * (until 2026-11-29 one column, the bin's lower end, which the usability review
		 * read as the median: 256 where every distance was 511) */
		if (med >= REUSE_BINS)
			med = REUSE_BINS - 1;
		if (!has_distances(m))
			r = db_row(st, "itttdnnnd", (int64_t)i + 1, a, b, obj, p->count,
				   p->long_seen);
		else if (half > 0)
			r = db_row(st, "itttdduud", (int64_t)i + 1, a, b, obj, p->count,
				   p->long_count, reuse_bin_lo(med), reuse_bin_hi(med),
				   p->long_seen);
		else
			r = db_row(st, "itttddnnd", (int64_t)i + 1, a, b, obj, p->count,
				   p->long_count, p->long_seen);
	}
	sqlite3_finalize(st);
	return r;
}

static const char *watch_status(const struct model *m, char *buf, size_t len)
{
	if (m->mode & REUSE_M_EXACT)
		snprintf(buf, len, "exact mode: every access modelled, no watchpoints");
	else if (!m->st.armed && m->st.arm_failures)
		snprintf(buf, len, "watchpoints unavailable: every arm was refused (the arm "
			 "failures below); nothing observed (build the program with sonde-cc "
			 "for the software watchpoints)");
	else if (!m->st.armed)
		snprintf(buf, len, "no use watched (no sample, or no watchpoint backend)");
	else {
		char at[48] = "";
		uint64_t r = m->seen - m->seen_inv;
		if (m->slots)
			snprintf(at, sizeof(at), ", up to %u at once", m->slots);
		snprintf(buf, len, "%" PRIu64 " use%s watched%s, %" PRIu64 " outcome%s (%" PRIu64
			 " reuse%s, %" PRIu64 " invalidation%s)", m->st.armed,
			 m->st.armed == 1 ? "" : "s", at, m->seen, m->seen == 1 ? "" : "s", r,
			 r == 1 ? "" : "s", m->seen_inv, m->seen_inv == 1 ? "" : "s");
	}
	return buf;
}

/* chk: --check-sampling's model, or NULL */
static int write_meta(sqlite3 *db, struct model *m, const struct model *chk)
{
	sqlite3_stmt *st;
	char watch[400], scaling[DB_SCALING_MAX];
	int r = 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &st, NULL))
		return -EIO;
	int exact = (m->mode & REUSE_M_EXACT) != 0;
	const char *dists = exact ? "exact" : m->seen_trd ? "estimated (Shen model from exact time distances)"
				    : m->counts ? "none observed"
				    : "unknown: the clock source gives reuse times only; distances need "
				      "the inst source (sonde-cc) or a PMU (hw)";
	db_scaling(m->proc->source, m->proc->period, profile_clock_posix(m->p), scaling,
		   sizeof(scaling));
	const char *kv[][2] = {
		{ "schema", DB_SCHEMA }, { "tool", "reuse" }, { "source", m->proc->source },
		{ "period_unit", m->proc->period_unit }, { "scaling", scaling },
		{ "exe", m->proc->exe }, { "argv", m->proc->argv }, { "exact", exact ? "1" : "0" },
		{ "access_counts", has_distances(m) ? "1" : "0" },
		{ "cache", m->mode & REUSE_M_SHARED ? "shared" : "private" },
		{ "granularity", m->mode & REUSE_M_SPATIAL ? "spatial" : "temporal" },
		{ "distances", dists }, { "watch", watch_status(m, watch, sizeof(watch)) },
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !r; i++)
		r = db_row(st, "tt", kv[i][0], kv[i][1]);
	const struct {
		const char *k;
		double v;
	} nums[] = {
		{ "period", (double)m->proc->period }, { "threads", (double)m->threads },
		{ "pid", (double)m->proc->pid }, { "processes", (double)m->p->nproc },
		{ "processes_modelled", (double)m->modelled },
		{ "threads_process", (double)m->threads_process },
		{ "processes_no_stats", (double)m->nostats },
		{ "element", m->element }, { "accesses", m->accesses },
		{ "footprint", m->footprint }, { "reuses", m->reuses },
		{ "footprint_thread", (m->mode & REUSE_M_EXACT) || m->modelled > 1 ?
			m->footprint_thread : 0 },
		{ "invalidations", m->inv }, { "cold", m->cold },
		{ "samples", (double)m->st.samples }, { "armed", (double)m->st.armed },
		{ "arm_failures", (double)m->st.arm_failures },
		{ "watch_errno", m->st.watch_errno > 0 ? (double)m->st.watch_errno : 0 },
		{ "outcomes", (double)m->seen },
		{ "outcomes_invalidation", (double)m->seen_inv }, { "stale", (double)m->st.stale },
		{ "lost", (double)m->st.lost }, { "l1", (double)m->cache[1] },
		{ "l2", (double)m->cache[2] }, { "l3", (double)m->cache[3] },
		{ "l3_package", (double)machine_l3_package() },
		{ "slots", (double)m->slots },
		/* the sampled footprint's inputs: pages sampled, once, twice (-1: not counted,
		 * a recording before 2026-11-28); none for --exact */
		{ "pages_sampled", (m->mode & REUSE_M_EXACT) ? 0 : (double)m->st.pages },
		/* (the three counts are read one after another while other threads may
		 * still sample: a later one can be the larger: review) */
		{ "pages_once", (m->mode & REUSE_M_EXACT) ? 0 : !m->page_counts ? -1 :
			m->st.pages2 > m->st.pages ? 0 : (double)(m->st.pages - m->st.pages2) },
		{ "pages_twice", (m->mode & REUSE_M_EXACT) ? 0 : !m->page_counts ? -1 :
			m->st.pages3 > m->st.pages2 ? 0 : (double)(m->st.pages2 - m->st.pages3) },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]) && !r; i++) {
		char b[40];
		snprintf(b, sizeof(b), "%.0f", nums[i].v);
		r = db_row(st, "tt", nums[i].k, b);
	}
	if (!r && m->unmodelled[0])
		r = db_row(st, "tt", "unmodelled", m->unmodelled);
	/* the accesses (--exact) or samples wider than an element (rt-reuse.c), of those */
	if (!r && m->st.wide) {
		char b[64];
		snprintf(b, sizeof(b), "%.6f", (double)m->st.wide /
			 (double)(m->st.samples ? m->st.samples : 1));
		r = db_row(st, "tt", "wide_share", b);
	}
	if (chk && !r) {	/* --check-sampling */
		char b[9][40];
		double all = m->reuses + m->inv + m->cold;
		double call = chk->reuses + chk->inv + chk->cold;
		snprintf(b[0], sizeof(b[0]), "%u", m->check_period);
		/* "-": no reuse on a side, nothing to compare */
		snprintf(b[1], sizeof(b[1]), m->check_s < 0 ? "-" : "%.4f", m->check_s);
		snprintf(b[2], sizeof(b[2]), "%" PRIu64, chk->seen);
		snprintf(b[3], sizeof(b[3]), "%" PRIu64, chk->seen_inv);
		snprintf(b[4], sizeof(b[4]), m->check_s_sample < 0 ? "-" : "%.4f", m->check_s_sample);
		/* the invalidations' share of the accesses, which S leaves out */
		snprintf(b[5], sizeof(b[5]), "%.4f", all > 0 ? m->inv / all : 0);
		snprintf(b[6], sizeof(b[6]), "%.4f", call > 0 ? chk->inv / call : 0);
		snprintf(b[7], sizeof(b[7]), m->check_log_error < 0 ? "-" : "%.4f",
			 m->check_log_error);
		/* the sampled mode's own footprint (elements), beside the exact one (footprint) */
		snprintf(b[8], sizeof(b[8]), "%.0f", chk->footprint);
		const char *ck[] = { "check_period", "check_s", "check_outcomes",
				     "check_outcomes_invalidation", "check_s_sample",
				     "check_inv_exact", "check_inv_sampled", "check_log_error",
				     "check_footprint" };
		for (int i = 0; i < 9 && !r; i++)
			r = db_row(st, "tt", ck[i], b[i]);
		/* the same error over the reuses at distance 1 or more (model_check) */
		snprintf(b[0], sizeof(b[0]), m->check_log_error_far < 0 ? "-" : "%.4f",
			 m->check_log_error_far);
		if (!r)
			r = db_row(st, "tt", "check_log_error_far", b[0]);
	}
	sqlite3_finalize(st);
	return r;
}

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE reuse_hist(kind TEXT, lo INTEGER, hi INTEGER, count REAL, fraction REAL);"
	"CREATE TABLE reuse_check(kind TEXT, lo INTEGER, hi INTEGER, count REAL, fraction REAL);"
	"CREATE TABLE reuse_miss(bytes INTEGER, miss_ratio REAL, miss_lo REAL, miss_hi REAL);"
	"CREATE TABLE reuse_pairs(rank INTEGER, use_code TEXT, reuse_code TEXT, object TEXT,"
	" reuses REAL, long_reuses REAL, median_lo INTEGER, median_hi INTEGER,"
	" long_observed REAL);";

/* m's figures added into t (a process's model into the sum of those before it); m's pairs
 * (named) move to t. */
static int model_add(struct model *t, struct model *m)
{
	double dsum = 0, k;
	for (int b = 0; b < REUSE_BINS; b++)
		dsum += m->dist[b];
	k = dsum > 0 && m->reuses > 0 ? m->reuses / dsum : 1;
	if (m->have_stats)
		sizes_note(t, m->cache_el);
	t->have_stats |= m->have_stats;
	t->mode |= m->mode;
	t->counts |= m->counts;
	t->page_counts |= m->page_counts;
	t->element = m->element;
	stats_sum(&t->st, &m->st);
	t->st.pages += m->st.pages;	/* each process its own pages */
	t->st.pages2 += m->st.pages2;
	t->st.pages3 += m->st.pages3;
	for (int b = 0; b < REUSE_BINS; b++) {
		t->time[b] += m->time[b];
		t->dist[b] += m->dist[b];
		t->dist_w[b] += m->dist[b] * k;
		t->ns[b] += m->ns[b];
		t->check_drawn[b] += m->check_drawn[b];
	}
	t->inv += m->inv;
	t->inv_timed += m->inv_timed;
	t->cold += m->cold;
	t->reuses += m->reuses;
	t->accesses += m->accesses;
	t->footprint += m->footprint;	/* address spaces of their own */
	/* the largest cache's own: --exact, a thread's; sampled, which has pages of the
	 * process only, the largest process's (meta footprint_thread where several are) */
	double own = m->mode & REUSE_M_EXACT ? m->footprint_thread : m->footprint;
	if (own > t->footprint_thread)
		t->footprint_thread = own;
	t->seen += m->seen;
	t->seen_inv += m->seen_inv;
	t->seen_trd += m->seen_trd;
	t->check_err += m->check_err;
	t->check_err_far += m->check_err_far;
	t->check_wsum_far += m->check_wsum_far;
	t->check_wsum += m->check_wsum;
	t->check_period = m->check_period > t->check_period ? m->check_period : t->check_period;
	t->slots = m->slots > t->slots ? m->slots : t->slots;
	uint32_t nt = m->proc ? (uint32_t)m->proc->nthread : 0;
	t->threads += nt;
	t->threads_process = nt > t->threads_process ? nt : t->threads_process;
	t->modelled++;
	if (m->npair) {
		struct rpair *q = realloc(t->pair, (t->npair + m->npair) * sizeof(*q));
		if (!q)
			return -ENOMEM;
		t->pair = q;
		t->cap = t->npair + m->npair;
		memcpy(t->pair + t->npair, m->pair, m->npair * sizeof(*q));
		t->npair += m->npair;
		m->npair = 0;
	}
	return 0;
}

static void model_free(struct model *m)
{
	for (size_t i = 0; i < m->npair; i++)
		free(m->pair[i].name);
	free(m->pair);
	free(m->sv);
	free(m->rd);
	free(m->how);
	*m = (struct model){ .p = m->p };
}

/* A process whose records hold a reuse statistic with an access or a sample, or an outcome
 * or a pair: it ran sonde's reuse runtime and measured something (a wrapper that only
 * waited for the program did not).  A process killed before its threads wrote their
 * statistics (written at a thread's end) still has its outcomes and pairs (the code
 * review of 2026-11-29).  (reuse_fill also leaves out a process of another source.) */
static int measured(const struct model *m)
{
	return (m->have_stats && (m->st.accesses || m->st.samples)) || m->nsv || m->npair;
}

/* The source the processes are summed in: one that counts accesses (inst, hw) where a
 * process ran with it (a wrapper never does: it is no sonde-cc program), else the main
 * process's.  (A short `sh -c './rb; ./rb'` had the shell as the main process, of alike
 * sample counts and started first, and its clock left both inst programs out: the code
 * review of 2026-11-29.) */
static const char *sum_source(const struct profile *p, const struct prof_process *main_pr)
{
	const char *ref = main_pr->source;
	for (size_t i = 0; i < p->nproc && (!ref || !strcmp(ref, "clock")); i++)
		if (p->proc[i].source && *p->proc[i].source && strcmp(p->proc[i].source, "clock"))
			ref = p->proc[i].source;
	return ref ? ref : "";
}

/*
 * Process pr's model, its pairs named, into m; with --check-sampling its sampled estimate
 * into chk (its outcomes written to db).  *skip: 1 if the process measured nothing (m is
 * then only scanned) and `all` is set (every process is looked at).
 */
static int model_process(sqlite3 *db, const struct profile *p, const struct prof_process *pr,
			 int all, struct model *m, struct model *chk, int *skip, char *err,
			 size_t errlen)
{
	struct memmodel *mm = NULL;
	*m = (struct model){ .p = p, .proc = pr };
	*chk = (struct model){ .p = p, .proc = pr };
	for (int l = 1; l <= 3; l++)
		m->cache[l] = machine_cache_size(l);
	int r = scan(m);
	if (r)
		return errmsg(err, errlen, r, "modelling the reuse");
	*skip = all && !measured(m);
	if (*skip)
		return 0;
	if (m->mode & REUSE_M_EXACT)
		model_exact(m);
	else
		model_sampled(m);
	if ((m->mode & REUSE_M_EXACT) && (m->mode & REUSE_M_CHECK)) {
		model_check(m, chk);
		if (write_outcomes(db, chk))
			return db_fail(db, err, errlen, "writing the reuse outcomes");
	}
	double l2 = m->cache[2] > 0 ? (double)m->cache[2] / m->element : 65536;
	if (m->mode & REUSE_M_EXACT)
		for (size_t i = 0; i < m->npair; i++)
			m->pair[i].long_seen = m->pair[i].long_count =
				m->pair[i].count * reuse_share_beyond(m->pair[i].dist, l2);
	else if ((r = sampled_pairs(m)))
		return errmsg(err, errlen, r, "modelling the reuse pairs");
	qsort(m->pair, m->npair, sizeof(*m->pair), pair_cmp);
	if (m->npair)
		mm = objects(m, err, errlen);
	r = name_pairs(m, mm);
	if (mm)
		memmodel_free(mm);
	return r ? errmsg(err, errlen, r, "naming the reuse pairs") : 0;
}

/*
 * A process left out of the sum, into m->unmodelled ("EXE (pid N: why)", "; "-separated):
 * `src` the source summed where its own differs, NULL where it measured nothing.  The
 * usability review of 2026-11-29 (M5): `sh -c './a.inst; ./b.gcc'` summed a.inst alone and
 * said of the rest "a wrapper, a launcher", where b.gcc ran most of the time, sampled by
 * the clock.
 */
static void unmodelled(struct model *m, const struct prof_process *pr, const char *src)
{
	size_t k = strlen(m->unmodelled);
	const char *exe = pr->exe && *pr->exe ? pr->exe : "?";
	uint64_t n = prof_process_samples(pr);
	/* (room kept for the mark: a launcher of many children cut an entry in two) */
	if (k + 1 >= sizeof(m->unmodelled) - 200) {
		if (!strstr(m->unmodelled, "; and more"))
			snprintf(m->unmodelled + k, sizeof(m->unmodelled) - k, "; and more");
		return;
	}
	if (src)	/* (a few samples: a shell, a launcher, not one to rebuild) */
		snprintf(m->unmodelled + k, sizeof(m->unmodelled) - k, "%s%s (pid %d: %" PRIu64
			 " sample%s by the %s source, not summed with the %s source's%s)",
			 k ? "; " : "", exe, pr->pid, n, n == 1 ? "" : "s",
			 pr->source && *pr->source ? pr->source : "?", src,
			 n < 10 ? "" : !strcmp(src, "inst") ? ": build it with sonde-cc" : "");
	else
		snprintf(m->unmodelled + k, sizeof(m->unmodelled) - k, "%s%s (pid %d: nothing "
			 "measured, a wrapper or a launcher)", k ? "; " : "", exe, pr->pid);
}

int reuse_fill(sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	struct model m = { .p = p }, chk = { .p = p }, one, one_chk;
	int r = 0, skip = 0;
	if (!p->nproc)
		return errmsg(err, errlen, -EINVAL, "%s: no process in the recording", p->dir);
	const struct prof_process *main_pr = profile_main_process(p);
	const char *src = sum_source(p, main_pr);
	uint64_t most = 0;	/* the modelled process with the most samples names the run */
	if (sqlite3_exec(db, schema_sql, NULL, NULL, NULL))
		return db_fail(db, err, errlen, "writing the reuse tables");
	for (int l = 1; l <= 3; l++)
		m.cache[l] = machine_cache_size(l);
	memcpy(chk.cache, m.cache, sizeof(m.cache));
	/* every process that measured something; none did: the main one, to say so */
	for (size_t i = 0; i <= p->nproc && !r; i++) {
		const struct prof_process *pr = i < p->nproc ? &p->proc[i] : main_pr;
		if (i == p->nproc && m.modelled)
			break;
		if (i == p->nproc)	/* none measured: the main one says so, none "left out" */
			m.unmodelled[0] = 0;
		/* one unit: a wrapper not built by sonde-cc samples by the clock where the
		 * program counts accesses (inst) */
		if (i < p->nproc && strcmp(pr->source ? pr->source : "", src)) {
			unmodelled(&m, pr, src);
			continue;
		}
		r = model_process(db, p, pr, i < p->nproc, &one, &one_chk, &skip, err, errlen);
		if (!r && skip && i < p->nproc)
			unmodelled(&m, pr, NULL);
		if (!r && !skip) {
			uint64_t n = prof_process_samples(pr);
			if (!m.proc || n > most || (n == most && pr == main_pr)) {
				m.proc = chk.proc = pr;
				most = n;
			}
			m.nostats += !one.have_stats;
			if ((r = model_add(&m, &one)) || (r = model_add(&chk, &one_chk)))
				errmsg(err, errlen, r, "summing the processes' reuse");
		}
		model_free(&one);
		model_free(&one_chk);
	}
	if (r)
		goto out;
	int checked = (m.mode & REUSE_M_EXACT) && (m.mode & REUSE_M_CHECK);
	if (checked)
		check_finish(&m, &chk);
	if (m.modelled > 1)
		merge_named(&m);
	if (write_hist(db, &m, "reuse_hist") ||
	    (checked && write_hist(db, &chk, "reuse_check")) || write_miss(db, &m) ||
	    write_pairs(db, &m) || write_meta(db, &m, checked ? &chk : NULL))
		r = db_fail(db, err, errlen, "writing the reuse tables");
out:
	model_free(&m);
	model_free(&chk);
	return r;
}
