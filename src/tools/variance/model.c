/* SPDX-License-Identifier: MIT */
/*
 * model.c - the variance tool's model: the instances of every thread of every process
 * (rank) of a recording, grouped by (calling context, function).  Per thread, Welford's
 * running statistics per metric; per (context, function), the threads' summaries merged
 * with Chan's formula (stats.h), the CV of the per-thread means (inter-thread variance),
 * the function's share of the samples (the fraction of clock samples whose path holds
 * it: its inclusive share of the run time), a verdict from the paper's guidance and a
 * rank.  Tables var_functions, var_threads, var_instances and meta (doc/sonde-variance.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "sonde/openmp.h"
#include "prof/db.h"
#include "prof/errmsg.h"
#include "prof/profile.h"
#include "prof/symbols.h"
#include "tools/variance/stats.h"
#include "tools/variance/variance.h"

#define PATH_FRAMES 128
#define NAME_BUF 256	/* a frame's name when not the symtab's: "[lib.so] f+0x40 (...)" */
/* The metric of the verdict and the rank: thread CPU time, which waiting for the CPU (other
 * processes, a loaded machine) does not inflate as it does wall time. */
#define VAR_M_RANK VAR_M_CPU

const char *const var_metric_name[VAR_NMETRIC] = { "time", "cpu-time", "page-faults",
						   "context-switches" };

int var_metric_find(const char *name)
{
	for (int m = 0; m < VAR_NMETRIC; m++)
		if (!strcmp(name, var_metric_name[m]))
			return m;
	return -1;
}

struct vinst {
	uint32_t thread;
	uint64_t seq, start;
	int64_t v[VAR_NMETRIC];
	double weight;		/* the calls it stands for (inst_weight) */
};

struct vkey {
	char *function, *context;
	struct welford w[VAR_NMETRIC];		/* merged over threads */
	struct welford tm[VAR_NMETRIC];		/* over the per-thread means */
	double wm2[VAR_NMETRIC];		/* within threads: the threads' m2 summed, */
	uint64_t wdf[VAR_NMETRIC];		/* and their degrees of freedom (n - 1) */
	uint32_t threads;
	struct vinst *res;			/* reservoir */
	size_t nres;
	uint64_t seen;
	double share;
	int verdict, rank;
	int hw;					/* an instance came from debug registers */
	int soft;				/* one from sonde-cc's hooks */
	/* the threads of the largest and smallest mean of the ranking metric ("thread 3 (rank
	 * 1) 422.6 us"), for "threads differ" (finish, thread_extremes) */
	char slowest[64], fastest[64];
	uint64_t clamped[VAR_NMETRIC];		/* hw instances below 0 after the traps' cost */
	int below[VAR_NMETRIC];			/* mean below the resolution (var_below) */
	double cv_bar;				/* the CV over which instances vary (finish) */
	double inv_n;				/* sum over threads of 1 / instances (rank metric) */
	double icv_bar;				/* the thread CV over which threads differ */
	/* the variance is its tail's (tail_note): the CV of the kept instances without their
	 * slowest 1%, under cv_bar where the CV with them is over it; NaN otherwise */
	double tail_cv, tail_x;			/* ... and the slowest over the median */
	uint32_t tail_n;			/* the instances left out, of nres */
};

struct vkt {			/* one (key, thread) */
	uint32_t key, thread;
	struct welford w[VAR_NMETRIC];
};

struct vthread {
	int rank, pid, tid;
	int omp;		/* OpenMP thread number (src/rt/omp.c), -1: not known or varied */
	uint32_t index;
};

struct vname {			/* a sample path ("main > a > b") -> samples with it */
	char *name;
	uint64_t samples;
};

struct model {
	/* the executable's functions, and those that set up a frame pointer (symbols.c,
	 * sym_frame_pointers; 0 and 0 when unknown) */
	unsigned exe_fp, exe_nfn;
	int exe_known;			/* the program's file was named (exe_nfn 0: no symbols) */
	struct vkey *k;
	size_t nk, capk;
	struct vkt *kt;
	size_t nkt, capkt;
	struct vthread *th;
	size_t nth, capth;
	struct vname *nm;
	size_t nnm, capnm;
	/* the samples by their innermost frame of the program's own (unmeasured_text) */
	struct vname *lf;
	size_t nlf, caplf;
	const char *exe;		/* the process being read's executable (do_sample) */
	uint64_t samples, events;
	struct var_rec_stats st;
	/* STATS records with handler_cpu_ns and without (older runtimes ended before it) */
	size_t cpu_measured, cpu_unmeasured;
	/* STATS records with the gate's counters and without (older runtimes) */
	size_t gate_measured, gate_unmeasured;
	/* and with the slots' counters (samples_idle ..) and without */
	size_t slots_measured, slots_unmeasured;
	/* and with the bursts' counters */
	size_t burst_measured, burst_unmeasured;
	size_t regions_measured;	/* threads whose record counts regions */
	uint32_t backend, calls_hooked;
	uint64_t rng;
	const char *source;
	uint64_t period;
};

/* V_SHORT: instances shorter on average than the resolution (on debug registers a quarter
 * of the two traps' calibrated cost, through hooks their clock reads' cost: key_resolution):
 * below it (var_below), no mean or CV to speak of. */
enum { V_INVESTIGATE, V_INTER, V_VARIES, V_STEADY, V_SHORT, V_FEW };
/* The traps' calibrated CPU time and the resolution (us), for the V_SHORT verdict's text. */
static double res_us;
static double trap_us;
static double read_us;	/* the hooks' resolution (twice their clock reads' cost) */
/* The executable mostly without frame pointers (view.c's fp_text rule: under a quarter of
 * 5 or more functions): callers' shares read low, which the V_VARIES verdict says. */
static int low_fp;
/* The program without function symbols (stripped): no sample path meets its functions,
 * every share reads 0, which the V_VARIES verdict says is unknown, not small. */
static int no_syms;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Frames above the program's own (libc's start-up and thread start) are left out. */
static int startup_frame(const char *n)
{
	static const char *const skip[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					    "__libc_start_main_impl", "start_thread", "clone",
					    "clone3", "__clone3", "__clone" };
	if (!n)
		return 1;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strcmp(n, skip[i]))
			return 1;
	return 0;
}

/* Bits of what func_name() says about a frame besides its name. */
enum { FRAME_OWN = 1, FRAME_OPENMP = 2 };

/* The frame at ip, in the OpenMP runtime (libgomp, LLVM's libomp), which calls a parallel
 * region's outlined function: in the master thread from GOMP_parallel under the program's
 * own frames, in the workers from the runtime's thread start.  Known by its library's file
 * (a stripped libgomp's internal functions have no name of their own), or for a runtime
 * linked in, by its functions' names. */
static int openmp_runtime_frame(const char *n, const char *module)
{
	return sonde_openmp_lib(module) || !strncmp(n, "GOMP_", 5) || !strncmp(n, "gomp_", 5) ||
	       !strncmp(n, "__kmp", 5);
}

/* The real (outermost, not inlined) function at ip, named as every report names it
 * (sym_code_name: "[libgomp.so.1.0.0] omp_get_num_procs+0x7b (nearest exported symbol)"
 * for a stripped library's internal function, as sonde mem's code table has it), in buf
 * if need be; *flags: FRAME_OWN if it is a function with a symbol of its own,
 * FRAME_OPENMP if it is the OpenMP runtime's.  entry: ip is the entry of the measured
 * function, which is named by its address when it has no symbol of its own. */
static const char *func_name(struct symtab *st, uint64_t ip, int is_return, int entry,
			     char *buf, size_t len, int *flags)
{
	struct sym_code sc;

	memset(&sc, 0, sizeof(sc));
	if (st && ip && (symtab_code(st, is_return ? ip - 1 : ip, &sc) < 0 || sc.n < 1))
		sc.n = 0;	/* sc.module may still be set: the file is known */
	if (sc.n > SYM_MAX_INLINE)
		sc.n = SYM_MAX_INLINE;
	int own = sym_code_has_own_name(&sc, sc.n - 1);
	/* A measured function with no symbol of its own is named by its entry's address:
	 * the stretch sym_code_name names (a stripped library's code between two exports, a
	 * whole stripped file) holds other functions, whose instances must not be merged
	 * with its own.  A caller's frame takes the stretch's name. */
	const char *nm = entry ? sym_code_own_name(&sc, sc.n - 1, ip, buf, len) :
				 sym_code_name(&sc, sc.n - 1, buf, len);
	*flags = (own ? FRAME_OWN : 0) | (openmp_runtime_frame(nm, sc.module) ? FRAME_OPENMP : 0);
	return nm;
}

/* Names of path ips[0..n) (leaf first), outermost first, start-up frames left out. */
static int path_names(struct symtab *st, const uint64_t *ips, int n, int leaf_is_ip,
		      const char **names, char (*bufs)[NAME_BUF])
{
	int k = 0, started = 0;

	for (int i = n - 1; i >= 0; i--) {
		int fl;
		const char *nm = func_name(st, ips[i], !(i == 0 && leaf_is_ip), 0, bufs[i], NAME_BUF,
					   &fl);
		if (!started && (startup_frame(nm) || !(fl & FRAME_OWN)))
			continue;	/* unnamed outer frames: a thread's start in libc */
		/* A parallel region's context starts at its outlined function, in the master
		 * as in the workers: what lies outside the OpenMP runtime's frame is dropped,
		 * so that one region's instances in every thread are one (context, function)
		 * and its thread CV exists (the load imbalance FVSampler looks for). */
		if (fl & FRAME_OPENMP) {
			k = 0;
			started = 0;
			continue;
		}
		started = 1;
		names[k++] = nm;
	}
	return k;
}

static char *join(const char *const *names, int n, const char *last)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 3;
	if (last)
		len += strlen(last) + 3;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	*p = 0;
	for (int i = 0; i <= n; i++) {
		const char *x = i < n ? names[i] : last;
		if (!x)
			break;
		if (p != s)
			p = stpcpy(p, " > ");
		p = stpcpy(p, x);
	}
	return s;
}

static int key_of(struct model *m, const char *function, const char *context, uint32_t *out)
{
	for (size_t i = m->nk; i-- > 0;)
		if (!strcmp(m->k[i].function, function) && !strcmp(m->k[i].context, context)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (grow((void **)&m->k, &m->capk, m->nk + 1, sizeof(*m->k)))
		return -ENOMEM;
	struct vkey *k = &m->k[m->nk];
	memset(k, 0, sizeof(*k));
	k->function = strdup(function);
	k->context = strdup(context);
	if (!k->function || !k->context)
		return -ENOMEM;
	*out = (uint32_t)m->nk++;
	return 0;
}

static uint64_t rnd(struct model *m)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return m->rng;
}

/* Vitter's R: every instance is kept with the same probability VAR_RESERVOIR / seen. */
/*
 * The calls an instance stands for: 1, but for an OpenMP region's past the rate cap, timed
 * with a chance that changes from window to window (rt-variance.c, region_timed): the
 * inverse of that chance (Horvitz-Thompson).  Unweighted, the first window's calls, all
 * timed, weighed as much as a later window's sampled few: the trial's HPCCG `waxpby` kept 4
 * first-touch instances of 23-25, 270-640 us against 36 us, and read a CV of 143%.
 */
static double inst_weight(const struct var_rec_inst *in)
{
	if (in->h.size < sizeof(*in) || !in->share || in->share == 0xffffffffu)
		return 1.0;
	return 4294967296.0 / (double)in->share;
}

static int reservoir_add(struct model *m, struct vkey *k, const struct vinst *in)
{
	k->seen++;
	if (k->nres < VAR_RESERVOIR) {
		if (!k->res && !(k->res = malloc(VAR_RESERVOIR * sizeof(*k->res))))
			return -ENOMEM;
		k->res[k->nres++] = *in;
		return 0;
	}
	uint64_t j = rnd(m) % k->seen;
	if (j < VAR_RESERVOIR)
		k->res[j] = *in;
	return 0;
}

static int name_count(struct vname **nm, size_t *n, size_t *cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*nm)[i].name, name)) {
			(*nm)[i].samples++;
			return 0;
		}
	if (grow((void **)nm, cap, *n + 1, sizeof(**nm)))
		return -ENOMEM;
	(*nm)[*n].name = strdup(name);
	(*nm)[*n].samples = 1;
	return (*nm)[(*n)++].name ? 0 : -ENOMEM;
}

/* Per context id of one thread: the key, resolved once (-1 unknown, -2 not yet). */
struct ctxcache {
	int64_t *key;
	uint32_t n;
};

static int do_sample(struct model *m, struct symtab *st, const struct prof_thread *t,
		     uint32_t ctx)
{
	uint64_t ips[PATH_FRAMES];
	const char *names[PATH_FRAMES];
	char bufs[PATH_FRAMES][NAME_BUF];
	int n = prof_ctx_path(t, ctx, ips, PATH_FRAMES);
	int k = path_names(st, ips, n, 1, names, bufs);

	m->samples++;
	if (!k)
		return 0;
	char *path = join(names, k, NULL);
	if (!path)
		return -ENOMEM;
	int r = name_count(&m->nm, &m->nnm, &m->capnm, path);
	free(path);
	/* the innermost frame in the executable (a library's leaf, libc's sched_yield, is
	 * not the program's function: the code review of 2026-11-29) */
	for (int i = 0; i < n && !r && st && m->exe && *m->exe; i++) {
		struct sym_code sc;
		memset(&sc, 0, sizeof(sc));
		if (!ips[i] || symtab_code(st, i ? ips[i] - 1 : ips[i], &sc) < 0 || !sc.module ||
		    strcmp(sc.module, m->exe))
			continue;
		int fl;
		char b[NAME_BUF];
		const char *nm = func_name(st, ips[i], i != 0, 0, b, sizeof(b), &fl);
		if (fl & FRAME_OWN)
			r = name_count(&m->lf, &m->nlf, &m->caplf, nm);
		break;
	}
	return r;
}

static int do_inst(struct model *m, struct symtab *st, const struct prof_thread *t,
		   const struct var_rec_inst *r, uint32_t thread, struct ctxcache *cc,
		   int64_t *ktmap, uint32_t *out_key)
{
	int64_t key = r->ctx < cc->n ? cc->key[r->ctx] : -2;

	if (key == -2 || r->ctx >= cc->n || key < 0) {
		uint64_t ips[PATH_FRAMES];
		const char *names[PATH_FRAMES];
		char bufs[PATH_FRAMES][NAME_BUF], fb[NAME_BUF];
		int n = r->ctx ? prof_ctx_path(t, r->ctx, ips, PATH_FRAMES) : 0;
		/* ips[0] is the function itself (its entry or a point in it): the callers
		 * are ips[1..]. */
		int k = n > 1 ? path_names(st, ips + 1, n - 1, 0, names, bufs) : 0;
		int fl;
		const char *fn = func_name(st, r->fn, 0, 1, fb, sizeof(fb), &fl);
		char *ctxs = join(names, k, fn);
		uint32_t idx;
		if (!ctxs)
			return -ENOMEM;
		int e = key_of(m, fn, ctxs, &idx);
		free(ctxs);
		if (e)
			return e;
		key = idx;
		if (r->ctx && r->ctx < cc->n)
			cc->key[r->ctx] = key;
	}
	*out_key = (uint32_t)key;
	if (!(r->flags & (VAR_F_SOFT | VAR_F_REGION)))
		m->k[key].hw = 1;
	else if (!(r->flags & VAR_F_REGION))
		m->k[key].soft = 1;
	(void)ktmap;
	(void)thread;
	return 0;
}

static int scan_thread(struct model *m, struct symtab *st, const struct prof_thread *t,
		       uint32_t thread)
{
	struct ctxcache cc = { 0 };
	uint32_t maxid = 0;
	for (size_t i = 0; i < t->nctx; i++)
		maxid = t->ctx[i].id > maxid ? t->ctx[i].id : maxid;
	cc.n = maxid + 1;
	cc.key = malloc(cc.n * sizeof(*cc.key));
	int64_t *ktmap = NULL;	/* key -> index in m->kt for this thread */
	size_t nktmap = 0;
	if (!cc.key)
		return -ENOMEM;
	for (uint32_t i = 0; i < cc.n; i++)
		cc.key[i] = -2;
	size_t off = 0;
	const struct sonde_rec_hdr *h;
	int r = 0;
	while (!r && (h = prof_tool_next(t, &off))) {
		if (h->type == VAR_REC_SAMPLE && h->size >= sizeof(struct var_rec_sample)) {
			r = do_sample(m, st, t, ((const struct var_rec_sample *)h)->ctx);
		} else if (h->type == VAR_REC_STATS &&
			   h->size >= offsetof(struct var_rec_stats, handler_cpu_ns)) {
			const struct var_rec_stats *s = (const void *)h;
			if (h->size >= offsetof(struct var_rec_stats, gated)) {
				m->st.handler_cpu_ns += s->handler_cpu_ns;
				m->cpu_measured++;
			} else {
				m->cpu_unmeasured++;
			}
			if (h->size >= offsetof(struct var_rec_stats, samples_idle)) {
				const uint64_t *ga = &s->gated;
				uint64_t *gb = &m->st.gated;
				for (int i = 0; i < VAR_NGATE; i++)
					gb[i] += ga[i];
				m->gate_measured++;
			} else {
				m->gate_unmeasured++;
			}
			if (h->size >= offsetof(struct var_rec_stats, probe_cal_ns)) {
				const uint64_t *sa = &s->samples_idle;
				uint64_t *sb = &m->st.samples_idle;
				for (int i = 0; i < VAR_NSLOTS; i++)
					sb[i] += sa[i];
				m->slots_measured++;
			} else {
				m->slots_unmeasured++;
			}
			const uint64_t *a = &s->samples;
			uint64_t *b = &m->st.samples;
			for (int i = 0; i < VAR_NSTATS; i++)
				b[i] += a[i];
			if (h->size >= offsetof(struct var_rec_stats, burst_armed)) {
				if (s->probe_cal_ns)
					m->st.probe_cal_ns = s->probe_cal_ns;
				m->st.probes += s->probes;
				m->st.probe_sum_ns += s->probe_sum_ns;
			}
			if (h->size >= offsetof(struct var_rec_stats, sited)) {
				m->st.regions += s->regions;
				m->regions_measured++;
			}
			if (h->size >= offsetof(struct var_rec_stats, read_ns)) {
				m->st.sited += s->sited;
				m->st.sites_fired += s->sites_fired;
				m->st.no_frame_region += s->no_frame_region;
			}
			if (h->size >= offsetof(struct var_rec_stats, no_frame_main) &&
			    s->read_cpu_ns) {
				m->st.read_ns = s->read_ns;
				m->st.read_cpu_ns = s->read_cpu_ns;
			}
			if (h->size >= sizeof(*s))
				m->st.no_frame_main += s->no_frame_main;
			if (h->size >= offsetof(struct var_rec_stats, regions)) {
				m->st.burst_armed += s->burst_armed;
				m->st.burst_entries += s->burst_entries;
				m->burst_measured++;
			} else {
				m->burst_unmeasured++;
			}
			if (s->watch_errno)
				m->st.watch_errno = s->watch_errno;
			if (s->trap_ns || s->trap_cpu_ns) {
				m->st.trap_ns = s->trap_ns;
				m->st.trap_cpu_ns = s->trap_cpu_ns;
			}
			m->backend = s->backend;
			m->calls_hooked |= s->calls_hooked;
		} else if (h->type == VAR_REC_INST &&
			   h->size >= offsetof(struct var_rec_inst, share)) {
			const struct var_rec_inst *in = (const void *)h;
			uint32_t key;
			r = do_inst(m, st, t, in, thread, &cc, ktmap, &key);
			if (r)
				break;
			m->events |= in->events;
			if (key >= nktmap) {
				size_t nn = m->nk + 16;
				int64_t *q = realloc(ktmap, nn * sizeof(*q));
				if (!q) {
					r = -ENOMEM;
					break;
				}
				for (size_t i = nktmap; i < nn; i++)
					q[i] = -1;
				ktmap = q;
				nktmap = nn;
			}
			if (ktmap[key] < 0) {
				if (grow((void **)&m->kt, &m->capkt, m->nkt + 1, sizeof(*m->kt))) {
					r = -ENOMEM;
					break;
				}
				memset(&m->kt[m->nkt], 0, sizeof(m->kt[0]));
				m->kt[m->nkt].key = key;
				m->kt[m->nkt].thread = thread;
				ktmap[key] = (int64_t)m->nkt++;
			}
			struct vkt *kt = &m->kt[ktmap[key]];
			struct vinst vi = { .thread = thread, .seq = in->seq, .start = in->start,
					    .weight = inst_weight(in) };
			for (int i = 0; i < VAR_NMETRIC; i++) {
				vi.v[i] = in->v[i];
				welford_add_w(&kt->w[i], (double)in->v[i], vi.weight);
				/* the runtime clamps a cost below 0 to 0 (rt-variance.c): for a
				 * time on debug registers, the traps' subtracted cost was more than
				 * the whole interval */
				if (in->v[i] == 0 && !(in->flags & (VAR_F_SOFT | VAR_F_REGION)) &&
				    (in->events & (1u << i)) && (i == VAR_M_TIME || i == VAR_M_CPU))
					m->k[key].clamped[i]++;
			}
			r = reservoir_add(m, &m->k[key], &vi);
		}
	}
	free(cc.key);
	free(ktmap);
	return r;
}

static int cmp_inst(const void *a, const void *b)
{
	const struct vinst *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Does path p start with the len bytes of frames s (whole frames)? */
static int starts_with(const char *p, const char *s, size_t len)
{
	return !strncmp(p, s, len) && (!p[len] || !strncmp(p + len, " > ", 3));
}

/* The longest proper tail of `context` (its frames from the second on, or from a later
 * one) that path p starts with, NULL if none. */
static const char *tail_of(const char *context, const char *p)
{
	for (const char *t = strstr(context, " > "); t; t = strstr(t + 3, " > "))
		if (starts_with(p, t + 3, strlen(t + 3)))
			return t + 3;
	return NULL;
}

/*
 * Each context's share of the samples whose path runs through it (inclusive time): the
 * path starts with the context's frames.  A path the runtime's frame-pointer walk cut
 * short (code built without frame pointers: the walk stops at the first such frame,
 * often at the sampled function itself) starts below the program's root and so with no
 * context: it counts for the contexts it is a tail of (that starts with their frames from
 * the second or a later one, the longest such tail), and where several contexts end in
 * the same tail, for each in proportion to its instances seen (picked at samples: in
 * proportion to its time).  Without that, a -O2 build's hottest function read 0% of the
 * time (the trial of 2026-11-27 on SimpleMOC, miniAMR, PENNANT).
 */
static int context_shares(struct model *m)
{
	double *n = calloc(m->nk + 1, sizeof(*n));
	const char **tail = calloc(m->nk + 1, sizeof(*tail));

	if (!n || !tail) {
		free(n);
		free(tail);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nnm; i++) {
		const char *p = m->nm[i].name;
		int strict = 0;
		for (size_t j = 0; j < m->nk; j++)
			if (starts_with(p, m->k[j].context, strlen(m->k[j].context))) {
				n[j] += (double)m->nm[i].samples;
				strict = 1;
			}
		if (strict)
			continue;
		for (size_t j = 0; j < m->nk; j++)
			tail[j] = tail_of(m->k[j].context, p);
		/* each group of contexts ending in one tail once: its seen summed, then split
		 * (tail[] cleared as a group is done) */
		for (size_t j = 0; j < m->nk; j++) {
			const char *t = tail[j];
			uint64_t seen = 0;
			if (!t)
				continue;
			for (size_t q = j; q < m->nk; q++)
				if (tail[q] && !strcmp(tail[q], t))
					seen += m->k[q].seen;
			for (size_t q = m->nk; q-- > j;) {
				if (!tail[q] || strcmp(tail[q], t))
					continue;
				n[q] += seen ? (double)m->nm[i].samples * (double)m->k[q].seen /
						       (double)seen : 0;
				tail[q] = NULL;
			}
		}
	}
	for (size_t j = 0; j < m->nk; j++)
		m->k[j].share = m->samples ? n[j] / (double)m->samples : 0;
	free(n);
	free(tail);
	return 0;
}

/*
 * The functions that hold VAR_SHARE_MIN of the samples or more as the innermost function of
 * the program's on their path (their own code, or the libraries' they call) and have no
 * instance: "NAME (S%)", by share, up to 3, "; " between, into buf; 0 when none.  A
 * function called seldom (each call long) is picked at a sample inside one call and its
 * entry then waits a few samples for the next: calls seconds apart are missed, and the
 * function had no row at all (the trial of 2026-11-29: miniMD's Neighbor::build, 14% of
 * the time in ~10 calls a rank, was nowhere in the report).
 */
/* Is the function shown as `name` one of `only` ("A; B", --function, as given): the
 * name, or it with its parameters or a clone's suffix after it (symbols.c, find_match). */
static int only_match(const char *only, const char *name)
{
	for (const char *o = only; o && *o;) {
		const char *e = strstr(o, "; ");
		size_t n = e ? (size_t)(e - o) : strlen(o);
		if (n && !strncmp(name, o, n) && strchr("( .", name[n]))
			return 1;
		o = e ? e + 2 : NULL;
	}
	return 0;
}

/* only: --function's names ("" for all): the others are not awaited, so not said */
static int unmeasured_text(const struct model *m, const char *only, char *buf, size_t len)
{
	int k = 0;
	buf[0] = 0;
	/* said only where the picks timed something (entries caught): with none, the run's
	 * warning says why, and OpenMP regions' keys are no sign (the code review of
	 * 2026-11-29: "calls further apart" said of a function called 6,000 times on a VM
	 * whose debug registers do not trap) */
	if (!m->samples || !m->st.entries)
		return 0;
	char *shown = calloc(m->nlf + 1, 1);
	if (!shown)
		return 0;
	for (int n = 0; n < 3; n++) {
		size_t best = SIZE_MAX;
		for (size_t j = 0; j < m->nlf; j++) {
			int measured = 0;
			for (size_t q = 0; q < m->nk && !measured; q++)
				measured = !strcmp(m->k[q].function, m->lf[j].name);
			if (!shown[j] && !measured && (!*only || only_match(only, m->lf[j].name)) &&
			    (double)m->lf[j].samples >= VAR_SHARE_MIN * (double)m->samples &&
			    (best == SIZE_MAX || m->lf[j].samples > m->lf[best].samples))
				best = j;
		}
		if (best == SIZE_MAX)
			break;
		int w = snprintf(buf + k, len - (size_t)k, "%s%s (%.0f%%)", n ? "; " : "",
				 m->lf[best].name,
				 100.0 * (double)m->lf[best].samples / (double)m->samples);
		if (w < 0 || (size_t)(k + w) >= len) {
			buf[k] = 0;	/* (the entries before it stay whole) */
			break;
		}
		k += w;
		shown[best] = 1;
	}
	free(shown);
	return k > 0;
}

static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct vkey *k = arg;
	const struct vkey *x = &k[*(const uint32_t *)a], *y = &k[*(const uint32_t *)b];
	if (x->verdict != y->verdict)
		return x->verdict - y->verdict;
	double cx = welford_cv(&x->w[VAR_M_RANK]), cy = welford_cv(&y->w[VAR_M_RANK]);
	double sx = x->share * (isnan(cx) ? 0 : cx), sy = y->share * (isnan(cy) ? 0 : cy);
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x->share > y->share ? -1 : x->share < y->share;
}

/*
 * The resolution of metric j on debug registers (ns; 0 for the other metrics, or without
 * a calibration): a quarter of the cost subtracted from each instance for its two traps.
 * That cost is calibrated once, at start (watch_call_cost), and scaled at each trap by
 * the kernel's speed (rt-variance.c, kernel_speed); a trap in the run costs a
 * little more or less, and the error that leaves in an instance is a fraction of the cost,
 * not all of it: bench/variance-short.sh (leaves of 2-50 us of CPU time against their
 * native time, alone and beside 2 CPU-bound loops, load 9-13) measured medians of the
 * instances' errors of +0.4 to +1.2 us with the 14.5-14.8 us of attr.sigtrap delivery and
 * +0.9 to +1.9 us with the 28 us of the real-time signal: at most 8% of the cost; a quarter
 * of it is three times that.  Means hold more (+0.7 to +2.7 us, +1.6 to +4.8 us): outliers
 * such as steal time, which land in the traps' window around each instance as they land
 * in the function.
 * Before, the resolution was the whole cost, and a 10 us leaf measured to
 * within 1-2 us was reported "too short" (doc/sonde-variance.md, "Below the resolution").
 * VAR_RES_FRACTION (variance.h).
 */

static double var_cost(const struct model *m, int j)
{
	return j == VAR_M_TIME ? (double)m->st.trap_ns :
	       j == VAR_M_CPU  ? (double)m->st.trap_cpu_ns : 0;
}

static double var_resolution(const struct model *m, int j)
{
	return VAR_RES_FRACTION * var_cost(m, j);
}

/*
 * Through sonde-cc's hooks: twice the cost of the two clock reads subtracted from each
 * instance (rt-variance.c, read_cost_calibrate; the thread's CPU clock is a system call).
 * An instance also holds the hooks' own work around the reads, which the calibration
 * leaves out and load makes larger: the usability review of 2026-11-29 read a constant
 * 38 ns function at a median of 462 ns, a ~1.9 us one at 2.35 us, with 1.24 us
 * subtracted, both "investigate" (CVs of 134% and 210%); t837's ~50 ns function read
 * medians of 0.86 us with 1.22 us subtracted on a quiet machine, 1.62-1.69 us with
 * 1.44-1.49 us beside a test suite.  Twice the cost is 1.8 times the largest of those:
 * VAR_SOFT_RES_FRACTION (variance.h).
 */

static double read_cost(const struct model *m, int j)
{
	return j == VAR_M_TIME ? (double)m->st.read_ns :
	       j == VAR_M_CPU  ? (double)m->st.read_cpu_ns : 0;
}

/* Key k's resolution in metric j (ns): its backend's, 0 where nothing was subtracted
 * (OpenMP regions; no calibration). */
static double key_resolution(const struct model *m, const struct vkey *k, int j)
{
	return k->hw ? var_resolution(m, j) :
	       k->soft ? VAR_SOFT_RES_FRACTION * read_cost(m, j) : 0;
}

/* qsort_r: instances by their value of metric *(int *)j */
static int cmp_metric(const void *a, const void *b, void *j)
{
	int64_t x = ((const struct vinst *)a)->v[*(int *)j];
	int64_t y = ((const struct vinst *)b)->v[*(int *)j];
	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Below the resolution: on debug registers, the median of metric j over the kept
 * instances (the reservoir: all of them up to VAR_RESERVOIR) is under the error that the
 * traps' calibrated cost leaves in it (var_resolution): what such instances read is that
 * error (or 0, where it took them below 0: clamped), not the function
 * (doc/sonde-variance.md, "Below the resolution": `vwork tiny`'s mid, a dozen
 * instructions, read means of 1.3-8.3 us and CVs of 132-721%).  The median, not the mean:
 * one instance that holds a spell of steal time moved mid's mean over the 3.7 us bound (a
 * CV of 308%) in 1 of 4 runs of t810.  The reports give "< resolution" for the mean and
 * no CV.
 */
static int var_below(const struct model *m, const struct vkey *k, int j)
{
	double res = key_resolution(m, k, j);

	if (!(res > 0 && k->w[j].n))
		return 0;
	int64_t *v = k->nres ? malloc(k->nres * sizeof(*v)) : NULL;
	if (!v)
		return k->w[j].mean < res;
	for (size_t i = 0; i < k->nres; i++)
		v[i] = k->res[i].v[j];
	qsort(v, k->nres, sizeof(*v), cmp_i64);
	double med = k->nres % 2 ? (double)v[k->nres / 2] :
				   ((double)v[k->nres / 2 - 1] + (double)v[k->nres / 2]) / 2;
	free(v);
	return med < res;
}

/*
 * The CV within threads: the pooled SD of the instances about their own thread's mean
 * (the threads' sums of squares over their degrees of freedom), over the mean of all.  The
 * same as the CV of all instances with one thread; with several it leaves out how far the
 * thread means differ (the thread CV says that): the verdict's "instances vary" is this
 * one (the usability review of 2026-11-28: 100 us in one thread and 300 us in another,
 * each steady, read "instances vary (CV 24%)").  NAN without a degree of freedom.
 */
static double within_cv(const struct vkey *k, int j)
{
	if (!k->wdf[j] || k->w[j].mean == 0.0)
		return NAN;
	return sqrt(k->wm2[j] / (double)k->wdf[j]) / k->w[j].mean;
}

/*
 * Instances that fall in groups, into out ("" if not): the reservoir's values of metric j
 * sorted and split wherever one is VAR_GROUP_GAP times the one before.  Said when that
 * makes 2 to VAR_GROUPS_SAID groups of at least VAR_GROUP_MIN of the instances (by
 * weight) each, leaves under that in smaller ones, and the groups explain VAR_GROUPS_EXPLAIN of the
 * variance or more (1 - the variance within them over the whole's, counting the strays
 * as within): "mean:share;...;explained", by mean, the mean in the metric's unit.  A
 * continuous spread makes no 2x gap between neighbours but at a stray instance; multigrid
 * levels, problem sizes and phases make them (the trial of 2026-11-28: HPGMG-FV's smooth,
 * levels 8x apart, read "investigate" with no word that its instances do 8x, 64x the work
 * by design).  Not "steady within each": on a loaded machine like work read CV 28% and
 * the groups were still 3x apart.  Design or not, the program knows: the report says the
 * groups and leaves the verdict as it is.
 */
#define VAR_GROUP_GAP 2.0
#define VAR_GROUPS_SAID 6
#define VAR_GROUPS_EXPLAIN 0.75
#define VAR_GROUP_MIN 0.10	/* of the instances: smaller, strays (a loaded machine's 3 slow
				 * instances of 60, 2.5x their level's, made a 4th group) */
struct vgroup {
	double w, sum, sum2;
};

static void groups_text(const struct vkey *k, int j, char *out, size_t len)
{
	*out = 0;
	if (k->nres < 20)
		return;
	struct vinst *s = malloc(k->nres * sizeof(*s));
	struct vgroup *g = calloc(k->nres, sizeof(*g));
	if (!s || !g) {
		free(s);
		free(g);
		return;
	}
	memcpy(s, k->res, k->nres * sizeof(*s));
	qsort_r(s, k->nres, sizeof(*s), cmp_metric, &j);
	size_t ng = 0;
	double total = 0;
	for (size_t i = 0; i < k->nres; i++) {
		double v = (double)s[i].v[j], prev = i ? (double)s[i - 1].v[j] : 0;
		double w = s[i].weight > 0 ? s[i].weight : 1;
		if (!i || (prev > 0 ? v >= VAR_GROUP_GAP * prev : v > 0))
			ng++;
		g[ng - 1].w += w;
		g[ng - 1].sum += w * v;
		g[ng - 1].sum2 += w * v * v;
		total += w;
	}
	double stray = 0, sum = 0, sum2 = 0, within = 0;
	int big = 0;
	for (size_t i = 0; i < ng; i++) {
		sum += g[i].sum;
		sum2 += g[i].sum2;
	}
	double mean = sum / total;
	for (size_t i = 0; i < ng; i++) {
		if (g[i].w < VAR_GROUP_MIN * total) {	/* a stray: about the mean of all, unexplained */
			stray += g[i].w;
			within += g[i].sum2 - 2 * mean * g[i].sum + g[i].w * mean * mean;
			continue;
		}
		big++;
		within += g[i].sum2 - g[i].sum * g[i].sum / g[i].w;
	}
	double whole = sum2 - sum * sum / total;
	double explained = whole > 0 ? 1 - within / whole : 0;
	if (big >= 2 && big <= VAR_GROUPS_SAID && stray < VAR_GROUP_MIN * total &&
	    explained >= VAR_GROUPS_EXPLAIN) {
		size_t n = 0;
		for (size_t i = 0; i < ng && n + 1 < len; i++)
			if (g[i].w >= VAR_GROUP_MIN * total)
				n += (size_t)snprintf(out + n, len - n, "%s%.0f:%.3f", n ? ";" : "",
						      g[i].sum / g[i].w, g[i].w / total);
		if (n + 1 < len)
			n += (size_t)snprintf(out + n, len - n, ";%.3f", explained);
		if (n >= len)
			*out = 0;
	}
	free(s);
	free(g);
}

/*
 * Is k's variance its slowest instances'?  Over the reservoir's instances (a uniform draw of
 * all), the CV of the rank metric without the slowest 1% (one at least): where it is under
 * k's bar, k->tail_cv is it, k->tail_n the instances left out and k->tail_x the slowest
 * over the median; else tail_cv is NaN.  A function whose instances are alike but a
 * few, each held up by an interrupt, a preemption or a page fault, read "investigate" with
 * a CV of 70% (the trial of 2026-11-29: SimpleMOC's attenuate_segment, p50 7.0 us, p90
 * 7.7, p99 43), and RSBench's sub-microsecond fast_nuclear_W 412% (the timer's ticks).
 */
#define VAR_TAIL_X 3.0	/* the slowest instance over the median for a tail (tail_note) */

static void tail_note(struct vkey *k)
{
	k->tail_cv = NAN;
	if (k->nres < 100)
		return;
	int64_t *v = malloc(k->nres * sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < k->nres; i++)
		v[i] = k->res[i].v[VAR_M_RANK];
	qsort(v, k->nres, sizeof(*v), cmp_i64);
	size_t cut = (k->nres + 99) / 100, keep = k->nres - cut;
	double sum = 0, sum2 = 0, all = 0, all2 = 0;
	for (size_t i = 0; i < k->nres; i++) {
		double x = (double)v[i];
		all += x;
		all2 += x * x;
		if (i < keep) {
			sum += x;
			sum2 += x * x;
		}
	}
	double mean = sum / (double)keep, var = sum2 / (double)keep - mean * mean;
	double amean = all / (double)k->nres, avar = all2 / (double)k->nres - amean * amean;
	double cv = mean > 0 && var > 0 ? sqrt(var) / mean : 0;
	double acv = amean > 0 && avar > 0 ? sqrt(avar) / amean : 0;
	double med = (double)v[k->nres / 2];
	/* the reservoir's own CV over the bar too: the draw holds the tail the run had; and
	 * a tail far out (3x the median or more): a CV just over the bar that its slowest
	 * 1% at 2x take under it is the function's spread, not an interrupt's (t801's mix) */
	if (cv <= k->cv_bar && acv > k->cv_bar && med > 0 &&
	    (double)v[k->nres - 1] >= VAR_TAIL_X * med) {
		k->tail_cv = cv;
		k->tail_n = (uint32_t)cut;
		k->tail_x = (double)v[k->nres - 1] / med;
	}
	free(v);
}

/* "thread 3 (rank 1) 422.6 us": thread th's number (threads.csv's), its MPI rank where it
 * has one, and a mean of the ranking metric (ns). */
static void thread_text(char *buf, size_t len, const struct vthread *th, double ns)
{
	char r[24] = "";
	if (th->rank >= 0)
		snprintf(r, sizeof(r), " (rank %d)", th->rank);
	if (ns >= 1e6)
		snprintf(buf, len, "thread %u%s %.2f ms", th->index, r, ns / 1e6);
	else
		snprintf(buf, len, "thread %u%s %.1f us", th->index, r, ns / 1e3);
}

/* Each key's slowest and fastest thread by its mean of the ranking metric: which ones a
 * "threads differ" is about (the usability review of 2026-11-29, M4: only threads.csv and
 * the page's bars said it, and rank 1 was "thread 3"). */
static void thread_extremes(struct model *m)
{
	double *hi = calloc(m->nk ? m->nk : 1, sizeof(*hi)), *lo = calloc(m->nk ? m->nk : 1,
									    sizeof(*lo));
	for (size_t i = 0; hi && lo && i < m->nkt; i++) {
		const struct vkt *x = &m->kt[i];
		struct vkey *k = &m->k[x->key];
		double v = x->w[VAR_M_RANK].mean;
		if (!x->w[VAR_M_RANK].n)
			continue;
		if (!*k->slowest || v > hi[x->key]) {
			hi[x->key] = v;
			thread_text(k->slowest, sizeof(k->slowest), &m->th[x->thread], v);
		}
		if (!*k->fastest || v < lo[x->key]) {
			lo[x->key] = v;
			thread_text(k->fastest, sizeof(k->fastest), &m->th[x->thread], v);
		}
	}
	free(hi);
	free(lo);
}

/* Merge (Chan), the per-thread means, share, verdict, rank. */
static int finish(struct model *m)
{
	for (size_t i = 0; i < m->nkt; i++) {
		struct vkey *k = &m->k[m->kt[i].key];
		k->threads++;
		if (m->kt[i].w[VAR_M_RANK].n)
			k->inv_n += 1.0 / (double)m->kt[i].w[VAR_M_RANK].n;
		for (int j = 0; j < VAR_NMETRIC; j++) {
			welford_merge(&k->w[j], &m->kt[i].w[j]);
			welford_add(&k->tm[j], m->kt[i].w[j].mean);
			if (m->kt[i].w[j].n > 1) {
				k->wm2[j] += welford_m2n(&m->kt[i].w[j]);
				k->wdf[j] += m->kt[i].w[j].n - 1;
			}
		}
	}
	thread_extremes(m);
	trap_us = var_cost(m, VAR_M_CPU) / 1e3;
	res_us = var_resolution(m, VAR_M_CPU) / 1e3;
	read_us = VAR_SOFT_RES_FRACTION * read_cost(m, VAR_M_CPU) / 1e3;
	low_fp = m->exe_nfn >= 5 && m->exe_fp * 4 < m->exe_nfn;
	no_syms = m->exe_known && !m->exe_nfn;
	if (context_shares(m))
		return -ENOMEM;
	for (size_t i = 0; i < m->nk; i++) {
		struct vkey *k = &m->k[i];
		double cv = within_cv(k, VAR_M_RANK);
		double icv = k->threads > 1 ? welford_cv(&k->tm[VAR_M_RANK]) : NAN;
		for (int j = 0; j < VAR_NMETRIC; j++)
			k->below[j] = var_below(m, k, j);
		/* FVSampler's 20%, plus the CV the calibration's error alone can give a mean
		 * just over the resolution (res / mean): the trial of 2026-11-28 read one
		 * function "investigate" at 3.2 us and "too short" at 3.0 us, the 3.1 us
		 * resolution between, from its calibration's error */
		double res = key_resolution(m, k, VAR_M_RANK);
		double mean = k->w[VAR_M_RANK].mean;
		k->cv_bar = VAR_CV_INTRA + (res > 0 && mean > 0 ? res / mean : 0);
		/* FVSampler's 10%, or over the thread means' sampling error (stats.h) */
		k->icv_bar = thread_cv_bar(VAR_CV_INTER, isnan(cv) ? 0 : cv, k->inv_n, k->threads);
		if (k->w[VAR_M_TIME].n < 10)
			k->verdict = V_FEW;
		else if (k->below[VAR_M_RANK])
			k->verdict = V_SHORT;
		else if (k->share > VAR_SHARE_MIN && ((!isnan(cv) && cv > k->cv_bar) ||
						     (!isnan(icv) && icv > k->icv_bar)))
			k->verdict = (!isnan(cv) && cv > k->cv_bar) ? V_INVESTIGATE : V_INTER;
		else if ((!isnan(cv) && cv > k->cv_bar) || (!isnan(icv) && icv > k->icv_bar))
			k->verdict = V_VARIES;
		else
			k->verdict = V_STEADY;
		k->tail_cv = NAN;
		if (k->verdict == V_INVESTIGATE || k->verdict == V_VARIES)
			tail_note(k);
		if (k->nres)
			qsort(k->res, k->nres, sizeof(*k->res), cmp_inst);
	}
	uint32_t *ord = malloc((m->nk + 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (size_t i = 0; i < m->nk; i++)
		ord[i] = (uint32_t)i;
	qsort_r(ord, m->nk, sizeof(*ord), cmp_rank, m->k);
	for (size_t i = 0; i < m->nk; i++)
		m->k[ord[i]].rank = (int)i + 1;
	free(ord);
	return 0;
}

/* "; the variance is its slowest 1%'s ...": the tail's (tail_note), said after the
 * verdict; nothing otherwise. */
static void tail_text(const struct vkey *k, char *buf, size_t len)
{
	if (isnan(k->tail_cv) || !len)
		return;
	snprintf(buf, len, "; the variance is its slowest 1%%'s (%u of %zu instances kept, "
		 "up to %.0fx the median: interrupts, preemption, page faults?), without them "
		 "CV %.0f%%", k->tail_n, k->nres, k->tail_x, k->tail_cv * 100);
}

/* A bar raised over FVSampler's own (pct, in %) where it prints as more than that: a
 * resolution of 1.5 us under a 400 us mean printed "CV 93% > 20%, 20% and the
 * calibration's error at its mean" (hook builds, given a resolution on 2026-11-29). */
static int raised(double bar, int pct)
{
	char b[32];
	snprintf(b, sizeof(b), "%.0f", bar * 100);
	return atoi(b) > pct;
}

/* "; slowest thread 3 (rank 1) 422.6 us, fastest thread 0 (rank 0) 133.3 us" after a
 * "threads differ" (thread_extremes); "" without two threads. */
static const char *extremes_text(const struct vkey *k)
{
	static char b[160];
	if (!*k->slowest || !strcmp(k->slowest, k->fastest))
		return "";
	snprintf(b, sizeof(b), "; slowest %s, fastest %s", k->slowest, k->fastest);
	return b;
}

static const char *verdict_text(const struct vkey *k, char *buf, size_t len)
{
	double cv = within_cv(k, VAR_M_RANK) * 100;
	double icv = k->threads > 1 ? welford_cv(&k->tm[VAR_M_RANK]) * 100 : NAN;
	double sh = k->share * 100;
	switch (k->verdict) {
	case V_INVESTIGATE:
		/* both reasons where both hold (the trial of 2026-11-27: vwork threads' thread CV
		 * of 65% went unsaid beside its CV of 58%) */
		snprintf(buf, len, "investigate: %.0f%% of the time, instances vary (CV %.0f%% > "
			 "%.0f%%%s)%s", sh, cv, k->cv_bar * 100,
			 raised(k->cv_bar, 20) ? ", 20% and the calibration's error at its mean" :
						 "",
			 !isnan(icv) && icv > k->icv_bar * 100 ? ", threads differ" : "");
		if (!isnan(icv) && icv > k->icv_bar * 100)
			snprintf(buf + strlen(buf), len - strlen(buf),
				 " (CV of thread means %.0f%%)%s", icv, extremes_text(k));
		tail_text(k, buf + strlen(buf), len - strlen(buf));
		break;
	case V_INTER:
		snprintf(buf, len, "investigate: %.0f%% of the time, threads differ (CV of thread "
				   "means %.0f%% > %.0f%%%s)%s", sh, icv, k->icv_bar * 100,
			 raised(k->icv_bar, 10) ? ", 10% and twice their means' sampling error" :
						  "", extremes_text(k));
		break;
	case V_VARIES:
		/* threads differ where the CV of their means is over FVSampler's 10%, not
		 * wherever it exists (the trial of 2026-11-27: "threads differ" at 1.5%) */
		/* a share that may read low is no reason to look away (the trial of
		 * 2026-11-28: graph500's run_bfs, its main kernel, "5.0% of the time") */
		if (no_syms && sh == 0) {	/* (the usability review of 2026-11-28) */
			snprintf(buf, len, "varies (CV %.0f%%%s); its share of the time is unknown: "
				 "the program has no function symbols (stripped?)", cv,
				 !isnan(icv) && icv > k->icv_bar * 100 ? ", threads differ" : "");
			break;
		}
		snprintf(buf, len, "varies (CV %.0f%%%s%s) but %.1f%% of the time (<= 10%%%s)", cv,
			 !isnan(icv) && icv > k->icv_bar * 100 ? ", threads differ" : "",
			 !isnan(icv) && icv > k->icv_bar * 100 ? extremes_text(k) : "", sh,
			 low_fp ? "; without frame pointers a caller's share reads low: "
				  "rebuild with -fno-omit-frame-pointer to be sure" : "");
		tail_text(k, buf + strlen(buf), len - strlen(buf));
		break;
	case V_STEADY:
		if (!isnan(cv) && cv > VAR_CV_INTRA * 100)
			snprintf(buf, len, "steady within its error (CV %.0f%%, under the %.0f%% that "
				 "20%% and the %s calibration error at its mean give)", cv,
				 k->cv_bar * 100, k->soft ? "hooks'" : "debug registers'");
		else
			snprintf(buf, len, "steady (CV %.0f%%)", isnan(cv) ? 0 : cv);
		break;
	case V_SHORT: {
		double cl = k->w[VAR_M_RANK].n ? 100.0 * (double)k->clamped[VAR_M_RANK] /
							 (double)k->w[VAR_M_RANK].n : 0;
		char c[48] = "";
		if (k->clamped[VAR_M_RANK])
			snprintf(c, sizeof(c), " (%.0f%% below 0, read as 0)", cl);
		if (k->soft) {
			snprintf(buf, len, "too short for the hooks here: under the %.1f us "
				 "resolution (twice the cost of the two clock reads subtracted "
				 "from each instance), its instances measure that subtraction's "
				 "error, not the function%s; its time is in its callers' "
				 "instances", read_us, c);
			break;
		}
		snprintf(buf, len, "too short for the debug registers here: under the %.1f us "
				   "resolution (a quarter of the %.1f us subtracted for its two traps), "
				   "its instances measure that calibration's error, not the function%s; "
				   "sonde-cc --sonde-calls-only measures it", res_us, trap_us, c);
		break;
	}
	default:
		snprintf(buf, len, "too few instances (%" PRIu64 ")", k->w[VAR_M_TIME].n);
	}
	return buf;
}

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE var_functions(rank INTEGER, function TEXT, context TEXT, metric TEXT,"
	" instances INTEGER, mean REAL, sd REAL, cv REAL, min REAL, max REAL, share REAL,"
	" threads INTEGER, thread_cv REAL, clamped REAL, resolution REAL, below INTEGER,"
	" verdict TEXT, investigate INTEGER, cv_within REAL, groups TEXT);"
	"CREATE TABLE var_threads(rank INTEGER, function TEXT, context TEXT, metric TEXT,"
	" thread INTEGER, process INTEGER, tid INTEGER, instances INTEGER, mean REAL, sd REAL,"
	" cv REAL, omp_thread INTEGER);"
	"CREATE TABLE var_instances(rank INTEGER, function TEXT, context TEXT, thread INTEGER,"
	" seq INTEGER, start INTEGER, time INTEGER, cpu_time INTEGER, page_faults INTEGER,"
	" context_switches INTEGER, weight REAL);";

static int write_tables(sqlite3 *db, struct model *m)
{
	sqlite3_stmt *f = NULL, *t = NULL, *in = NULL;
	int r = 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO var_functions VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
				   "?,?,?,?,?,?)", -1, &f, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO var_threads VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &t,
			       NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO var_instances VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &in,
			       NULL)) {
		r = -EIO;
		goto out;
	}
	for (size_t i = 0; i < m->nk && !r; i++) {
		const struct vkey *k = &m->k[i];
		char why[640];
		verdict_text(k, why, sizeof(why));
		for (int j = 0; j < VAR_NMETRIC && !r; j++) {
			if (!(m->events & (1u << j)))
				continue;
			const struct welford *w = &k->w[j];
			double cv = welford_cv(w), icv = k->threads > 1 ? welford_cv(&k->tm[j]) : NAN;
			double wcv = within_cv(k, j);
			/* resolution: NULL where nothing was subtracted; no CV below it */
			double res = key_resolution(m, k, j) > 0 ? key_resolution(m, k, j) : NAN;
			double cl = w->n ? (double)k->clamped[j] / (double)w->n : 0;
			if (k->below[j])
				cv = icv = wcv = NAN;
			/* groups where the instances vary by the verdict's bar (the rank
			 * metric's; the others' 20%) */
			char groups[160] = "";
			double bar = j == VAR_M_RANK ? k->cv_bar : VAR_CV_INTRA;
			/* times only: counts of a few (page faults, switches: 0, 1, 2) are
			 * always 2x apart (the code review) */
			if ((j == VAR_M_TIME || j == VAR_M_CPU) && !isnan(wcv) && wcv > bar)
				groups_text(k, j, groups, sizeof(groups));
			r = db_row(f, "itttiddddddiddditidt", (int64_t)k->rank, k->function,
				   k->context, var_metric_name[j], (int64_t)w->n, w->mean,
				   welford_sd(w), cv, w->min, w->max, k->share, (int64_t)k->threads,
				   icv, cl, res, (int64_t)k->below[j], why,
				   (int64_t)(k->verdict <= V_INTER), wcv, groups);
		}
	}
	for (size_t i = 0; i < m->nkt && !r; i++) {
		const struct vkt *x = &m->kt[i];
		const struct vkey *k = &m->k[x->key];
		const struct vthread *th = &m->th[x->thread];
		for (int j = 0; j < VAR_NMETRIC && !r; j++) {
			if (!(m->events & (1u << j)))
				continue;
			/* the OpenMP number last: 'i', or '-' (NULL, no argument) when unknown */
			r = db_row(t, th->omp >= 0 ? "itttiiiidddi" : "itttiiiiddd-", (int64_t)k->rank,
				   k->function, k->context, var_metric_name[j], (int64_t)th->index,
				   (int64_t)th->pid, (int64_t)th->tid, (int64_t)x->w[j].n,
				   x->w[j].mean, welford_sd(&x->w[j]),
				   k->below[j] ? NAN : welford_cv(&x->w[j]), (int64_t)th->omp);
		}
	}
	for (size_t i = 0; i < m->nk && !r; i++) {
		const struct vkey *k = &m->k[i];
		for (size_t j = 0; j < k->nres && !r; j++) {
			const struct vinst *v = &k->res[j];
			r = db_row(in, "ittiuuiiiid", (int64_t)k->rank, k->function, k->context,
				   (int64_t)m->th[v->thread].index, v->seq, v->start, v->v[0], v->v[1],
				   v->v[2], v->v[3], v->weight);
		}
	}
out:
	sqlite3_finalize(f);
	sqlite3_finalize(t);
	sqlite3_finalize(in);
	return r;
}

static int write_meta(sqlite3 *db, struct model *m, const struct profile *p)
{
	sqlite3_stmt *st;
	char ev[128] = "", b[64];
	int r = 0;
	for (int j = 0; j < VAR_NMETRIC; j++)
		if (m->events & (1u << j))
			snprintf(ev + strlen(ev), sizeof(ev) - strlen(ev), "%s%s", *ev ? "," : "",
				 var_metric_name[j]);
	if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &st, NULL))
		return -EIO;
	const struct prof_process *pr = profile_main_process(p);
	const char *kv[][2] = {
		{ "schema", DB_SCHEMA }, { "tool", "variance" }, { "source", pr->source },
		{ "period_unit", pr->period_unit }, { "exe", pr->exe }, { "argv", pr->argv },
		{ "events", *ev ? ev : "time,cpu-time" },
		{ "calls_hooked", m->calls_hooked ? "1" : "0" },
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !r; i++)
		r = db_row(st, "tt", kv[i][0], kv[i][1]);
	/* The backend is the recording-wide `watch_backend`, which report.c writes after this
	 * from the .proc files (and replaces this row with); the threads' STATS give it only
	 * for recordings made before the .proc noted it. */
	if (!r && (m->backend == 1 || m->backend == 2))
		r = db_row(st, "tt", "watch_backend", m->backend == 1 ? "hw" : "soft");
	const uint64_t *a = &m->st.samples;
	static const char *const names[VAR_NSTATS] = { "samples", "picks", "no_frame",
		"arm_failures", "missed", "entries", "returns", "overwritten", "stale", "jumps",
		"at_exit", "tail", "overflow", "handler_ns", "slot_reads" };
	for (int i = 0; i < VAR_NSTATS && !r; i++) {
		snprintf(b, sizeof(b), "%" PRIu64, a[i]);
		r = db_row(st, "tt", names[i], b);
	}
	const struct { const char *k; uint64_t v; } nums[] = {
		{ "period", pr->period }, { "threads", m->nth }, { "processes", p->nproc },
		{ "functions", m->nk }, { "path_samples", m->samples },
		{ "watch_errno", (uint64_t)m->st.watch_errno }, { "reservoir", VAR_RESERVOIR },
		{ "trap_ns", (uint64_t)m->st.trap_ns }, { "trap_cpu_ns", (uint64_t)m->st.trap_cpu_ns },
		{ "wall_ns", pr->end_ns > pr->start_ns ? pr->end_ns - pr->start_ns : 0 },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]) && !r; i++) {
		snprintf(b, sizeof(b), "%" PRIu64, nums[i].v);
		r = db_row(st, "tt", nums[i].k, b);
	}
	/* No row where the runtime did not measure it: a 0, or a sum over some threads, would
	 * read as a measured cost (readers say "not measured").  Not measured: a record that
	 * ends before the field (an older runtime), or 0 CPU time beside handlers that took
	 * wall time (a runtime that has the field but never adds to it, as rt-variance.c
	 * since 02c29a5) */
	if (!r && m->cpu_measured && !m->cpu_unmeasured &&
	    (m->st.handler_cpu_ns || !m->st.handler_ns)) {
		snprintf(b, sizeof(b), "%" PRIu64, m->st.handler_cpu_ns);
		r = db_row(st, "tt", "handler_cpu_ns", b);
	}
	/* The gate's counters, where every thread's runtime counted them (a sum over some
	 * would read low); they were in the .proc before (variance_gated, ...) */
	static const char *const gnames[VAR_NGATE] = { "gated", "gates_fired", "gates_expired",
		"deferred", "deferred_armed", "deferred_expired", "yielded" };
	const uint64_t *g = &m->st.gated;
	for (int i = 0; i < VAR_NGATE && !r && m->gate_measured && !m->gate_unmeasured; i++) {
		snprintf(b, sizeof(b), "%" PRIu64, g[i]);
		r = db_row(st, "tt", gnames[i], b);
	}
	/* what the samples found in the slots, and the events closed (rt-variance.c,
	 * slot_idle), where every thread counted them */
	static const char *const snames[VAR_NSLOTS] = { "samples_idle", "samples_entry",
		"slot_closes" };
	const uint64_t *sl = &m->st.samples_idle;
	for (int i = 0; i < VAR_NSLOTS && !r && m->slots_measured && !m->slots_unmeasured; i++) {
		snprintf(b, sizeof(b), "%" PRIu64, sl[i]);
		r = db_row(st, "tt", snames[i], b);
	}
	/* the bursts (rt-variance.c, arm_burst), where every thread counted them */
	if (!r && m->burst_measured && !m->burst_unmeasured) {
		snprintf(b, sizeof(b), "%" PRIu64, m->st.burst_armed);
		r = db_row(st, "tt", "burst_armed", b);
		snprintf(b, sizeof(b), "%" PRIu64, m->st.burst_entries);
		if (!r)
			r = db_row(st, "tt", "burst_entries", b);
	}
	/* the executable's frame pointers (symbols.c, sym_frame_pointers): the runtime walks
	 * them for the samples' contexts and the picks' frames; a build without them gives
	 * short contexts and callers' shares that read low (view.c says so) */
	if (!r && m->exe_nfn) {
		snprintf(b, sizeof(b), "%u", m->exe_fp);
		r = db_row(st, "tt", "exe_fp_functions", b);
		snprintf(b, sizeof(b), "%u", m->exe_nfn);
		if (!r)
			r = db_row(st, "tt", "exe_functions", b);
	}
	/* the hooks' clock read subtracted (rt-variance.c, read_cost_calibrate) */
	if (!r && m->st.read_cpu_ns)
		r = db_row_u64(st, "read_cost_ns", (uint64_t)m->st.read_ns) ?:
		    db_row_u64(st, "read_cost_cpu_ns", (uint64_t)m->st.read_cpu_ns);
	/* hot functions with no instance (unmeasured_text) */
	char um[1024];
	const char *only = pr->only_functions ? pr->only_functions : "";
	if (!r && unmeasured_text(m, only, um, sizeof(um)))
		r = db_row(st, "tt", "unmeasured", um);
	/* --function: the functions the picks were limited to */
	if (!r && *only)
		r = db_row(st, "tt", "only", only);
	/* unpicked samples in OpenMP region functions (rt-variance.c, var_on_access) */
	if (!r && m->st.no_frame_region)
		r = db_row_u64(st, "no_frame_region", m->st.no_frame_region);
	if (!r && m->st.no_frame_main)
		r = db_row_u64(st, "no_frame_main", m->st.no_frame_main);
	/* picks armed at their call site (rt-variance.c, site_of) */
	if (!r && m->st.sited)
		r = db_row_u64(st, "sited", m->st.sited) ?:
		    db_row_u64(st, "sites_fired", m->st.sites_fired);
	/* OpenMP regions timed at the runtime's call (rt-variance.c, variance_region) */
	if (!r && m->regions_measured) {
		snprintf(b, sizeof(b), "%" PRIu64, m->st.regions);
		r = db_row(st, "tt", "omp_regions", b);
	}
	/* the kernel's speed at the traps (rt-variance.c, kernel_speed): the probe at the
	 * calibration and the probes' mean, which scaled the cost subtracted */
	if (!r && m->st.probe_cal_ns && m->st.probes) {
		snprintf(b, sizeof(b), "%" PRId64, m->st.probe_cal_ns);
		r = db_row(st, "tt", "trap_probe_ns", b);
		snprintf(b, sizeof(b), "%" PRIu64, m->st.probe_sum_ns / m->st.probes);
		if (!r)
			r = db_row(st, "tt", "trap_probe_mean_ns", b);
		snprintf(b, sizeof(b), "%" PRIu64, m->st.probes);
		if (!r)
			r = db_row(st, "tt", "trap_probes", b);
	}
	sqlite3_finalize(st);
	return r;
}

static void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nk; i++) {
		free(m->k[i].function);
		free(m->k[i].context);
		free(m->k[i].res);
	}
	for (size_t i = 0; i < m->nnm; i++)
		free(m->nm[i].name);
	for (size_t i = 0; i < m->nlf; i++)
		free(m->lf[i].name);
	free(m->lf);
	free(m->k);
	free(m->kt);
	free(m->th);
	free(m->nm);
}

int var_fill(sqlite3 *db, const struct profile *p, char *err, size_t errlen)
{
	struct model m = { .rng = 0x9e3779b97f4a7c15ull };
	int r = 0;
	if (!p->nproc)
		return errmsg(err, errlen, -EINVAL, "%s: no process in the recording", p->dir);
	for (size_t pi = 0; pi < p->nproc && !r; pi++) {
		const struct prof_process *pr = &p->proc[pi];
		int e = 0;
		struct symtab *st = pr->maps_path ?
				      symtab_new_closed(pr->maps_path, pr->maps_closed_path, &e) : NULL;
		for (size_t ti = 0; ti < pr->nthread && !r; ti++) {
			if (grow((void **)&m.th, &m.capth, m.nth + 1, sizeof(*m.th))) {
				r = -ENOMEM;
				break;
			}
			m.th[m.nth] = (struct vthread){ .rank = pr->rank, .pid = pr->pid,
							.tid = (int)pr->thread[ti].hdr.tid,
							.omp = prof_omp_thread(&pr->thread[ti]),
							.index = (uint32_t)m.nth };
			m.exe = pr->exe;
			r = scan_thread(&m, st, &pr->thread[ti], (uint32_t)m.nth);
			m.nth++;
		}
		if (st)
			symtab_free(st);
	}
	const struct prof_process *mp = profile_main_process(p);
	m.exe_known = mp->exe && *mp->exe;
	if (!r && m.exe_known && sym_frame_pointers(mp->exe, &m.exe_fp, &m.exe_nfn))
		m.exe_fp = m.exe_nfn = 0;
	if (!r)
		r = finish(&m);
	if (r) {
		model_free(&m);
		return errmsg(err, errlen, r, "modelling the instances");
	}
	if (sqlite3_exec(db, schema_sql, NULL, NULL, NULL) || write_tables(db, &m) ||
	    write_meta(db, &m, p))
		r = db_fail(db, err, errlen, "writing the variance tables");
	model_free(&m);
	return r;
}
