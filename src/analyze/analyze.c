/* SPDX-License-Identifier: MIT */
/* analyze.c - aggregation of a perf.data recording, GOoDA style (see analyze.h). */
#include "analyze/analyze.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stab.h"

/* ---- a small hash: three u64 keys -> int ---------------------------------------------- */

struct hkey {
	uint64_t a, b, c;
};

struct hmap {
	struct hkey *k;
	int *v;
	size_t cap, n;
};

static size_t hslot(const struct hmap *h, struct hkey k)
{
	uint64_t x = k.a * 0x9e3779b97f4a7c15ull ^ (k.b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
		     k.c * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (size_t)x & (h->cap - 1);
}

static int hget(const struct hmap *h, struct hkey k)
{
	if (!h->cap)
		return -1;
	for (size_t s = hslot(h, k);; s = (s + 1) & (h->cap - 1)) {
		if (h->v[s] < 0)
			return -1;
		if (h->k[s].a == k.a && h->k[s].b == k.b && h->k[s].c == k.c)
			return h->v[s];
	}
}

static int hput(struct hmap *h, struct hkey k, int v)
{
	if ((h->n + 1) * 2 > h->cap) {
		struct hmap o = *h;
		size_t cap = o.cap ? o.cap * 2 : 256;
		h->k = malloc(cap * sizeof(*h->k));
		h->v = malloc(cap * sizeof(*h->v));
		if (!h->k || !h->v)
			return -ENOMEM;
		memset(h->v, 0xff, cap * sizeof(*h->v));
		h->cap = cap;
		h->n = 0;
		for (size_t i = 0; i < o.cap; i++)
			if (o.v[i] >= 0)
				hput(h, o.k[i], o.v[i]);
		free(o.k);
		free(o.v);
	}
	size_t s = hslot(h, k);
	while (h->v[s] >= 0 && !(h->k[s].a == k.a && h->k[s].b == k.b && h->k[s].c == k.c))
		s = (s + 1) & (h->cap - 1);
	if (h->v[s] < 0)
		h->n++;
	h->k[s] = k;
	h->v[s] = v;
	return 0;
}

static void hfree(struct hmap *h)
{
	free(h->k);
	free(h->v);
}

static uint64_t strhash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

/* ---- private state -------------------------------------------------------------------- */

struct map {
	uint64_t start, end, pgoff;
	int path;
};

struct task {
	uint32_t pid;
	int comm;			/* interned name, -1 if not seen */
	struct map *maps;
	size_t nmaps, cap;
};

struct mplex_key {
	uint64_t en, run, n;
};

/* The chain entries of a sample that the analysis follows, as perf's report does. */
#define MAX_CHAIN 512

struct priv {
	struct perfdata *pd;
	struct symtab *as;
	char **strs;			/* interned strings: paths and comms */
	size_t nstrs;
	struct hmap strmap;		/* (hash, 0, 0) -> first string with that hash (chained by scan) */
	struct task *tasks;
	size_t ntasks;
	struct hmap taskmap;		/* (pid) -> task */
	int last_task;			/* the task found last: samples come in runs */
	struct task kernel;
	struct hmap procmap, modmap, funcmap, addrmap, edgemap;
	/* multiplexing: per (event, cpu or tid) the last enabled/running and the samples there */
	struct mplex_key *mx;
	size_t nmx;
	struct hmap mxmap;
	int mx_last[2];			/* the last entry noted, per kind of key (cpu, tid) */
	struct hkey mx_last_key[2];
	int *attr_ev;			/* attr index -> event index */
	size_t cap_procs, cap_mods, cap_funcs, cap_addrs, cap_edges;
	uint64_t *chain_seen;		/* functions already counted on this sample's chain */
	size_t nseen, capseen;
	/* kernel records waiting to be processed in time order (perf's ordered events) */
	struct qrec *q;
	size_t nq, capq;
	size_t nq_ordered;		/* queued records that change tasks or maps */
	uint64_t seq, last_time, max_time, flush_limit;
	/*
	 * Samples waiting to be symbolized: counts per distinct (process, event, IP, chain),
	 * drained before anything changes the maps they resolve in.
	 */
	struct stab stab;
	uint64_t key[3 + MAX_CHAIN];
	struct stab cstab;		/* the same per CPU, without chains */
	struct hmap cpumap;		/* (address, cpu, event) -> addr_cpus */
	size_t cap_addr_cpus;
};

struct qrec {
	uint64_t time, seq, offset;
	const uint8_t *bytes;		/* into the input if it lives on, else a copy */
	uint16_t len;
	uint8_t owned, ordered;
};

static void *grow(void *p, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return p;
	size_t nc = *cap ? *cap * 2 : 64;
	void *q = realloc(p, nc * sz);
	if (q)
		*cap = nc;
	return q;
}

static int intern(struct priv *pv, const char *s)
{
	uint64_t h = strhash(s);
	for (uint64_t probe = 0;; probe++) {
		int i = hget(&pv->strmap, (struct hkey){ h, probe, 0 });
		if (i < 0)
			break;
		if (!strcmp(pv->strs[i], s))
			return i;
	}
	uint64_t probe = 0;
	while (hget(&pv->strmap, (struct hkey){ h, probe, 0 }) >= 0)
		probe++;
	char **n = realloc(pv->strs, (pv->nstrs + 1) * sizeof(*n));
	if (!n)
		return -1;
	pv->strs = n;
	pv->strs[pv->nstrs] = strdup(s);
	if (!pv->strs[pv->nstrs] || hput(&pv->strmap, (struct hkey){ h, probe, 0 }, (int)pv->nstrs))
		return -1;
	return (int)pv->nstrs++;
}

/* The task pid if it was seen, else NULL. */
static struct task *task_find(struct priv *pv, uint32_t pid)
{
	if (pv->last_task >= 0 && pv->tasks[pv->last_task].pid == pid)
		return &pv->tasks[pv->last_task];
	int i = hget(&pv->taskmap, (struct hkey){ pid, 0, 0 });
	if (i < 0)
		return NULL;
	pv->last_task = i;
	return &pv->tasks[i];
}

static struct task *task_get(struct priv *pv, uint32_t pid)
{
	struct task *f = task_find(pv, pid);
	if (f)
		return f;
	struct task *n = realloc(pv->tasks, (pv->ntasks + 1) * sizeof(*n));
	if (!n)
		return NULL;
	pv->tasks = n;
	struct task *t = &pv->tasks[pv->ntasks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->comm = -1;
	if (hput(&pv->taskmap, (struct hkey){ pid, 0, 0 }, (int)pv->ntasks))
		return NULL;
	pv->ntasks++;
	return t;
}

/* Insert [start, end) into a task's sorted, non-overlapping maps, cutting what it covers. */
static int map_insert(struct task *t, struct map m)
{
	struct map tmp[2];
	size_t w = 0, extra = 0;
	for (size_t i = 0; i < t->nmaps; i++) {
		struct map o = t->maps[i];
		if (o.end <= m.start || o.start >= m.end) {
			t->maps[w++] = o;
			continue;
		}
		if (o.start < m.start) {
			struct map l = o;
			l.end = m.start;
			t->maps[w++] = l;
		}
		if (o.end > m.end) {
			struct map r = o;
			r.pgoff += m.end - o.start;
			r.start = m.end;
			tmp[extra++] = r;	/* at most one right part per insert */
			if (extra == 2)
				extra = 1;
		}
	}
	t->nmaps = w;
	for (size_t k = 0; k < extra + 1; k++) {
		struct map x = k < extra ? tmp[k] : m;
		if (t->nmaps == t->cap) {
			size_t nc = t->cap ? t->cap * 2 : 16;
			struct map *nm = realloc(t->maps, nc * sizeof(*nm));
			if (!nm)
				return -ENOMEM;
			t->maps = nm;
			t->cap = nc;
		}
		size_t j = t->nmaps;
		while (j > 0 && t->maps[j - 1].start > x.start) {
			t->maps[j] = t->maps[j - 1];
			j--;
		}
		t->maps[j] = x;
		t->nmaps++;
	}
	return 0;
}

static const struct map *map_find(const struct task *t, uint64_t ip)
{
	size_t lo = 0, hi = t->nmaps;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < t->maps[lo - 1].end)
		return &t->maps[lo - 1];
	return NULL;
}

/* ---- rows ------------------------------------------------------------------------------ */

static int row_init(struct analysis *an, struct an_row *r, const char *name, int proc, int mod,
		    int incl)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->proc = proc;
	r->mod = mod;
	r->samples = calloc(an->nev ? an->nev : 1, sizeof(uint64_t));
	r->periods = calloc(an->nev ? an->nev : 1, sizeof(uint64_t));
	if (incl)
		r->incl = calloc(an->nev ? an->nev : 1, sizeof(uint64_t));
	return r->samples && r->periods && (!incl || r->incl) ? 0 : -ENOMEM;
}

static int proc_of(struct analysis *an, struct priv *pv, int comm)
{
	int i = hget(&pv->procmap, (struct hkey){ (uint64_t)comm, 0, 0 });
	if (i >= 0)
		return i;
	an->procs = grow(an->procs, &pv->cap_procs, an->nprocs, sizeof(*an->procs));
	if (!an->procs ||
	    row_init(an, &an->procs[an->nprocs], comm >= 0 ? pv->strs[comm] : "[unknown]", -1, -1, 0))
		return -1;
	hput(&pv->procmap, (struct hkey){ (uint64_t)comm, 0, 0 }, (int)an->nprocs);
	return (int)an->nprocs++;
}

static int mod_of(struct analysis *an, struct priv *pv, int proc, int path)
{
	struct hkey k = { (uint64_t)proc, (uint64_t)path, 0 };
	int i = hget(&pv->modmap, k);
	if (i >= 0)
		return i;
	an->mods = grow(an->mods, &pv->cap_mods, an->nmods, sizeof(*an->mods));
	if (!an->mods)
		return -1;
	struct an_row *r = &an->mods[an->nmods];
	const char *name = path >= 0 ? pv->strs[path] : "[unknown]";
	if (row_init(an, r, name, proc, -1, 0))
		return -1;
	r->file = pv->as && path >= 0 ? symtab_module(pv->as, name) : NULL;
	hput(&pv->modmap, k, (int)an->nmods);
	return (int)an->nmods++;
}

static int func_of(struct analysis *an, struct priv *pv, int mod, const char *name,
		   uint64_t start, uint64_t size)
{
	struct hkey k = { (uint64_t)mod, start, name ? 0 : 1 };
	int i = hget(&pv->funcmap, k);
	if (i >= 0)
		return i;
	an->funcs = grow(an->funcs, &pv->cap_funcs, an->nfuncs, sizeof(*an->funcs));
	if (!an->funcs)
		return -1;
	struct an_row *r = &an->funcs[an->nfuncs];
	int s = intern(pv, name ? name : "[unknown]");
	if (s < 0 || row_init(an, r, pv->strs[s], an->mods[mod].proc, mod, 1))
		return -1;
	r->start = name ? start : 0;
	r->size = name ? size : 0;
	r->file = an->mods[mod].file;
	hput(&pv->funcmap, k, (int)an->nfuncs);
	return (int)an->nfuncs++;
}

/* The address entry of (module, file offset): created and resolved on first sight. */
static int addr_of(struct analysis *an, struct priv *pv, int mod, uint64_t off)
{
	struct hkey k = { (uint64_t)mod, off, 0 };
	int i = hget(&pv->addrmap, k);
	if (i >= 0)
		return i;
	uint64_t addr = off, start = 0, size = 0;
	const char *name = NULL;
	struct sym_module *f = an->mods[mod].file;
	if (f && sym_module_addr(f, off, &addr) == 0 &&
	    sym_module_func(f, addr, &name, &start, &size))
		name = NULL;
	int fn = func_of(an, pv, mod, name, start, size);
	if (fn < 0)
		return -1;
	an->addrs = grow(an->addrs, &pv->cap_addrs, an->naddrs, sizeof(*an->addrs));
	if (!an->addrs)
		return -1;
	struct an_addr *a = &an->addrs[an->naddrs];
	a->func = fn;
	a->addr = addr;
	a->samples = calloc(an->nev ? an->nev : 1, sizeof(uint64_t));
	if (!a->samples)
		return -1;
	hput(&pv->addrmap, k, (int)an->naddrs);
	return (int)an->naddrs++;
}

/* ---- side-band records ---------------------------------------------------------------- */

static void on_mmap(struct priv *pv, const struct pd_record *r)
{
	if (r->type == PD_MMAP2 && !(r->prot & 4))	/* PROT_EXEC */
		return;
	if (r->type == PD_MMAP && (r->misc & (1 << 13)))	/* MISC_MMAP_DATA */
		return;
	struct task *t = r->pid == (uint32_t)-1 ? &pv->kernel : task_get(pv, r->pid);
	/* perf names the kernel map "[kernel.kallsyms]_text"; reports say "[kernel.kallsyms]" */
	int kmap = !strncmp(r->filename, "[kernel.kallsyms]", 17);
	int path = intern(pv, kmap ? "[kernel.kallsyms]" : r->filename);
	if (!t || path < 0 || r->start + r->len < r->start)
		return;
	map_insert(t, (struct map){ r->start, r->start + r->len, r->pgoff, path });
}

static void on_comm(struct priv *pv, const struct pd_record *r)
{
	struct task *t = task_get(pv, r->pid);
	if (!t)
		return;
	/* the main thread's name names the process; an exec starts a new image */
	if (r->pid == r->tid || t->comm < 0)
		t->comm = intern(pv, r->filename);
	if (r->misc & (1 << 13))
		t->nmaps = 0;
}

static void on_fork(struct priv *pv, const struct pd_record *r)
{
	if (r->pid == r->ppid)
		return;
	struct task *c = task_get(pv, r->pid);
	if (!c || c->nmaps)
		return;
	size_t ci = (size_t)(c - pv->tasks);
	struct task *p = task_get(pv, r->ppid);	/* may move the array */
	if (!p)
		return;
	c = &pv->tasks[ci];
	c->comm = p->comm;
	free(c->maps);
	c->maps = malloc((p->nmaps ? p->nmaps : 1) * sizeof(*c->maps));
	if (!c->maps)
		return;
	if (p->nmaps)
		memcpy(c->maps, p->maps, p->nmaps * sizeof(*p->maps));
	c->nmaps = c->cap = p->nmaps;
}

/*
 * time_enabled/running: remember the latest pair per (event, key).  They only grow, so the
 * latest is the largest, whatever order records of the same round are processed in.
 */
static void mplex_note(struct priv *pv, size_t ev, uint64_t key, uint64_t en, uint64_t run,
		       int count)
{
	struct hkey k = { ev, key, 0 };
	int kind = key >> 32 ? 1 : 0, i;
	if (pv->mx_last[kind] >= 0 && pv->mx_last_key[kind].a == ev &&
	    pv->mx_last_key[kind].b == key)
		i = pv->mx_last[kind];
	else
		i = hget(&pv->mxmap, k);
	if (i < 0) {
		struct mplex_key *n = realloc(pv->mx, (pv->nmx + 1) * sizeof(*n));
		if (!n)
			return;
		pv->mx = n;
		i = (int)pv->nmx++;
		pv->mx[i] = (struct mplex_key){ 0, 0, 0 };
		hput(&pv->mxmap, k, i);
	}
	pv->mx_last[kind] = i;
	pv->mx_last_key[kind] = k;
	if ((en || run) && en >= pv->mx[i].en) {
		pv->mx[i].en = en;
		pv->mx[i].run = run;
	}
	pv->mx[i].n += count;
}

static void on_read_values(struct analysis *an, struct priv *pv, int attr, uint64_t key,
			   uint64_t en, uint64_t run, size_t n, const uint8_t *vals,
			   size_t stride)
{
	const struct pd_attr *a = perfdata_attr(pv->pd, (size_t)attr);
	if (!(a->read_format & (PD_FMT_ENABLED | PD_FMT_RUNNING)))
		return;
	for (size_t i = 0; i < n; i++) {
		int ai = attr;
		if (a->read_format & PD_FMT_ID) {
			struct pd_read_value v = pd_read_at(vals, stride, a->read_format, i);
			int k = perfdata_attr_of_id(pv->pd, v.id);
			if (k >= 0)
				ai = k;
		}
		an->ev[pv->attr_ev[ai]].has_mplex = 1;
		mplex_note(pv, (size_t)pv->attr_ev[ai], key, en, run, 0);
	}
}

/* ---- samples ---------------------------------------------------------------------------- */

/* The address entry of ip in task t (NULL: no maps) or, for kernel ips, the kernel. */
static int resolve_ip(struct analysis *an, struct priv *pv, int proc, const struct task *t,
		      int kernel, uint64_t ip)
{
	if (kernel)
		t = &pv->kernel;
	const struct map *m = t ? map_find(t, ip) : NULL;
	if (!m && !kernel)
		m = map_find(&pv->kernel, ip);
	int mod = mod_of(an, pv, proc, m ? m->path : -1);
	if (mod < 0)
		return -1;
	return addr_of(an, pv, mod, m ? ip - m->start + m->pgoff : ip);
}

static int edge_add(struct analysis *an, struct priv *pv, int caller, int callee, int lbr,
		    uint64_t n)
{
	struct hkey k = { (uint64_t)caller, (uint64_t)callee, (uint64_t)lbr };
	int i = hget(&pv->edgemap, k);
	if (i < 0) {
		an->edges = grow(an->edges, &pv->cap_edges, an->nedges, sizeof(*an->edges));
		if (!an->edges)
			return -ENOMEM;
		i = (int)an->nedges++;
		an->edges[i] = (struct an_edge){ caller, callee, 0, lbr };
		if (hput(&pv->edgemap, k, i))
			return -ENOMEM;
	}
	an->edges[i].count += n;
	return 0;
}

static int seen_once(struct priv *pv, int f)
{
	for (size_t i = 0; i < pv->nseen; i++)
		if (pv->chain_seen[i] == (uint64_t)f)
			return 0;
	pv->chain_seen = grow(pv->chain_seen, &pv->capseen, pv->nseen, sizeof(uint64_t));
	if (pv->chain_seen)
		pv->chain_seen[pv->nseen++] = (uint64_t)f;
	return 1;
}

/* n samples with this chain: inclusive counts (once per function) and call edges. */
static int on_chain(struct analysis *an, struct priv *pv, const struct task *t, int proc,
		    int kernel, size_t ev, const uint64_t *chain, size_t nchain, uint64_t n)
{
	int prev = -1;
	pv->nseen = 0;
	for (size_t i = 0; i < nchain; i++) {
		uint64_t ip = chain[i];
		if (ip >= PD_CONTEXT_MAX) {
			kernel = ip == PD_CONTEXT_KERNEL;
			continue;
		}
		/* return addresses point after the call: look up the call itself */
		int ai = resolve_ip(an, pv, proc, t, kernel, prev < 0 || !ip ? ip : ip - 1);
		if (ai < 0)
			return -ENOMEM;
		int f = an->addrs[ai].func;
		if (seen_once(pv, f))
			an->funcs[f].incl[ev] += n;
		if (prev >= 0 && prev != f && edge_add(an, pv, f, prev, 0, n))
			return -ENOMEM;
		prev = f;
	}
	return 0;
}

static int on_branches(struct analysis *an, struct priv *pv, const struct pd_sample *s,
		       const struct task *t, int proc)
{
	for (size_t i = 0; i < s->nbranch; i++) {
		struct pd_branch b = pd_branch_at(s, i);
		int a1 = resolve_ip(an, pv, proc, t, 0, b.from);
		int a2 = resolve_ip(an, pv, proc, t, 0, b.to);
		if (a1 < 0 || a2 < 0)
			return -ENOMEM;
		int f1 = an->addrs[a1].func, f2 = an->addrs[a2].func;
		/* a branch into the first byte of another function is a call */
		if (f1 != f2 && an->funcs[f2].start && an->addrs[a2].addr == an->funcs[f2].start &&
		    edge_add(an, pv, f1, f2, 1, 1))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The samples of one distinct (pid, cpu mode, process, event, IP, chain): symbolized once,
 * counted n times.  Key: pid | kernel << 32, proc << 32 | event, IP, the chain.
 */
static int samples_apply(struct analysis *an, struct priv *pv, const struct stab_entry *e)
{
	const uint64_t *k = stab_key(&pv->stab, e);
	int kernel = (int)(k[0] >> 32) & 1, proc = (int)(k[1] >> 32);
	size_t ev = (uint32_t)k[1];
	const struct task *t = task_find(pv, (uint32_t)k[0]);
	int ai = resolve_ip(an, pv, proc, t, kernel, k[2]);
	if (ai < 0)
		return -ENOMEM;
	struct an_addr *a = &an->addrs[ai];
	struct an_row *f = &an->funcs[a->func];
	a->samples[ev] += e->n;
	f->samples[ev] += e->n;
	f->periods[ev] += e->sum;
	an->mods[f->mod].samples[ev] += e->n;
	an->mods[f->mod].periods[ev] += e->sum;
	an->procs[proc].samples[ev] += e->n;
	an->procs[proc].periods[ev] += e->sum;
	if (e->nkey == 3) {
		f->incl[ev] += e->n;
		return 0;
	}
	return on_chain(an, pv, t, proc, kernel, ev, k + 3, e->nkey - 3, e->n);
}

/* n samples of address entry ai on cpu, event ev. */
static int addr_cpu_add(struct analysis *an, struct priv *pv, int ai, uint32_t cpu, size_t ev,
			uint64_t n)
{
	struct hkey k = { (uint64_t)ai, cpu, ev };
	int i = hget(&pv->cpumap, k);
	if (i < 0) {
		an->addr_cpus = grow(an->addr_cpus, &pv->cap_addr_cpus, an->naddr_cpus,
				     sizeof(*an->addr_cpus));
		if (!an->addr_cpus)
			return -ENOMEM;
		i = (int)an->naddr_cpus++;
		an->addr_cpus[i] = (struct an_cpu_count){ ai, cpu, (uint32_t)ev, 0 };
		if (hput(&pv->cpumap, k, i))
			return -ENOMEM;
	}
	an->addr_cpus[i].samples += n;
	return 0;
}

/* Key of the per-CPU table: pid | kernel << 32, proc << 32 | event, IP, cpu. */
static int cpu_apply(struct analysis *an, struct priv *pv, const struct stab_entry *e)
{
	const uint64_t *k = stab_key(&pv->cstab, e);
	const struct task *t = task_find(pv, (uint32_t)k[0]);
	int ai = resolve_ip(an, pv, (int)(k[1] >> 32), t, (int)(k[0] >> 32) & 1, k[2]);
	if (ai < 0)
		return -ENOMEM;
	return addr_cpu_add(an, pv, ai, (uint32_t)k[3], (uint32_t)k[1], e->n);
}

/* Symbolize and count the waiting samples: before the maps change, and at the end. */
static int samples_drain(struct analysis *an, struct priv *pv)
{
	for (size_t i = 0; i < pv->stab.nents; i++)
		if (samples_apply(an, pv, &pv->stab.ents[i]))
			return -ENOMEM;
	for (size_t i = 0; i < pv->cstab.nents; i++)
		if (cpu_apply(an, pv, &pv->cstab.ents[i]))
			return -ENOMEM;
	stab_clear(&pv->stab);
	stab_clear(&pv->cstab);
	return 0;
}

static int samples_defer(struct analysis *an, struct priv *pv, const struct pd_sample *s,
			 int proc, int kernel, size_t ev, uint64_t period, int has_cpu)
{
	size_t nc = s->nchain < MAX_CHAIN ? s->nchain : MAX_CHAIN;
	uint64_t *k = pv->key;
	k[0] = s->pid | (uint64_t)kernel << 32;
	k[1] = (uint64_t)proc << 32 | ev;
	k[2] = s->ip;
	if (has_cpu) {
		k[3] = s->cpu;
		if (stab_add(&pv->cstab, k, 4, 0))
			return -ENOMEM;
	}
	if (nc)
		memcpy(k + 3, s->chain, nc * sizeof(*k));
	if (stab_add(&pv->stab, k, 3 + nc, period))
		return -ENOMEM;
	return stab_full(&pv->stab) || stab_full(&pv->cstab) ? samples_drain(an, pv) : 0;
}

static int cpu_count(struct analysis *an, uint32_t cpu, size_t ev)
{
	if (cpu < 4096 && cpu >= an->ncpus) {
		size_t nc = cpu + 1;
		uint64_t *c = realloc(an->cpu_samples, nc * an->nev * sizeof(uint64_t));
		if (!c)
			return -ENOMEM;
		memset(c + an->ncpus * an->nev, 0, (nc - an->ncpus) * an->nev * 8);
		an->cpu_samples = c;
		an->ncpus = nc;
	}
	if (cpu < an->ncpus)
		an->cpu_samples[cpu * an->nev + ev]++;
	return 0;
}

static int on_sample(struct analysis *an, struct priv *pv, const struct pd_record *r)
{
	const struct pd_sample *s = &r->s;
	if (s->attr < 0)
		return 0;
	size_t ev = (size_t)pv->attr_ev[s->attr];
	struct task *t = task_get(pv, s->pid);
	if (!t)
		return -ENOMEM;
	int proc = proc_of(an, pv, t->comm);
	if (proc < 0)
		return -ENOMEM;
	int kernel = (r->misc & 7) == 1 || (r->misc & 7) == 4;
	uint64_t period = s->period ? s->period : 1;
	an->ev[ev].samples++;
	an->ev[ev].period_sum += period;
	an->nsamples++;
	int has_cpu = !!(s->present & (1u << 7));
	if (has_cpu && cpu_count(an, s->cpu, ev))
		return -ENOMEM;
	uint64_t key = has_cpu ? s->cpu : (1ull << 32) | s->tid;
	if (s->nread)
		on_read_values(an, pv, s->attr, key, s->time_enabled, s->time_running, s->nread,
			       s->read_values, s->read_stride);
	mplex_note(pv, ev, key, 0, 0, 1);
	if (has_cpu)
		mplex_note(pv, ev, (1ull << 32) | s->tid, 0, 0, 1);
	if (s->nbranch) {
		an->has_branches = 1;
		if (on_branches(an, pv, s, t, proc))
			return -ENOMEM;
	}
	if (s->nchain)
		an->has_callchains = 1;
	return samples_defer(an, pv, s, proc, kernel, ev, period, has_cpu);
}

/* m per event: sample-weighted mean over its keys of time_enabled / time_running. */
static void mplex_finish(struct analysis *an, struct priv *pv)
{
	for (size_t e = 0; e < an->nev; e++) {
		double wsum = 0, msum = 0, plain = 0;
		size_t nplain = 0;
		for (size_t i = 0; i < pv->mxmap.cap; i++) {
			if (pv->mxmap.v[i] < 0 || pv->mxmap.k[i].a != e)
				continue;
			const struct mplex_key *x = &pv->mx[pv->mxmap.v[i]];
			if (!x->run)
				continue;
			double m = (double)x->en / (double)x->run;
			wsum += (double)x->n;
			msum += (double)x->n * m;
			plain += m;
			nplain++;
		}
		an->ev[e].mplex = wsum > 0 ? msum / wsum : nplain ? plain / (double)nplain : 1.0;
	}
}

static int by_row_cpu(const void *a, const void *b)
{
	const struct an_cpu_count *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Functions per CPU from addresses per CPU; both sorted. */
static int cpus_finish(struct analysis *an, struct priv *pv)
{
	struct hmap m = { 0 };
	size_t cap = 0;
	int e = 0;
	for (size_t i = 0; i < an->naddr_cpus && !e; i++) {
		const struct an_cpu_count *a = &an->addr_cpus[i];
		int f = an->addrs[a->row].func;
		struct hkey k = { (uint64_t)f, a->cpu, a->ev };
		int j = hget(&m, k);
		if (j < 0) {
			an->func_cpus = grow(an->func_cpus, &cap, an->nfunc_cpus,
					     sizeof(*an->func_cpus));
			if (!an->func_cpus) {
				e = -ENOMEM;
				break;
			}
			j = (int)an->nfunc_cpus++;
			an->func_cpus[j] = (struct an_cpu_count){ f, a->cpu, a->ev, 0 };
			e = hput(&m, k, j);
		}
		an->func_cpus[j].samples += a->samples;
	}
	hfree(&m);
	hfree(&pv->cpumap);
	memset(&pv->cpumap, 0, sizeof(pv->cpumap));
	/* no per-CPU count (no sample carried a CPU number): the arrays are NULL, which
	 * qsort may not be given even with 0 elements (UBSan) */
	if (an->naddr_cpus)
		qsort(an->addr_cpus, an->naddr_cpus, sizeof(*an->addr_cpus), by_row_cpu);
	if (an->nfunc_cpus)
		qsort(an->func_cpus, an->nfunc_cpus, sizeof(*an->func_cpus), by_row_cpu);
	return e;
}

size_t analysis_cpus_of(const struct an_cpu_count *cpus, size_t n, int row, size_t *first)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cpus[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	size_t k = lo;
	while (k < n && cpus[k].row == row)
		k++;
	return k - lo;
}

/* ---- the walk ----------------------------------------------------------------------------- */

static int events_init(struct analysis *an, struct priv *pv)
{
	size_t n = perfdata_nattrs(pv->pd);
	free(an->ev);
	free(pv->attr_ev);
	an->ev = calloc(n ? n : 1, sizeof(*an->ev));
	pv->attr_ev = calloc(n ? n : 1, sizeof(int));
	if (!an->ev || !pv->attr_ev)
		return -ENOMEM;
	an->nev = n;
	for (size_t i = 0; i < n; i++) {
		const struct pd_attr *a = perfdata_attr(pv->pd, i);
		an->ev[i].attr = a;
		an->ev[i].name = a->name;
		an->ev[i].freq = a->freq;
		an->ev[i].period = a->freq ? 0 : a->period;
		an->ev[i].mplex = 1.0;
		pv->attr_ev[i] = (int)i;
	}
	return 0;
}

/* Records that change tasks or maps: the samples before them must be resolved first. */
static int changes_maps(uint32_t type)
{
	return type == PD_MMAP || type == PD_MMAP2 || type == PD_COMM || type == PD_FORK;
}

static int process(struct analysis *an, struct priv *pv, const struct pd_record *r)
{
	if (changes_maps(r->type) && pv->stab.nents && samples_drain(an, pv))
		return -ENOMEM;
	switch (r->type) {
	case PD_MMAP:
	case PD_MMAP2: on_mmap(pv, r); break;
	case PD_COMM: on_comm(pv, r); break;
	case PD_FORK: on_fork(pv, r); break;
	case PD_LOST: an->lost += r->lost; break;
	case PD_READ:
		if (r->nread)
			on_read_values(an, pv, r->read_attr, (1ull << 32) | r->tid, r->time_enabled,
				       r->time_running, r->nread, r->read_values, r->read_stride);
		break;
	case PD_SAMPLE:
		return on_sample(an, pv, r);
	default: break;
	}
	return 0;
}

static int queue_push(struct priv *pv, const struct pd_record *r)
{
	uint64_t t = pv->last_time;
	if (r->has_sample && (r->s.present & 4))	/* TIME */
		t = r->s.time;
	pv->last_time = t;
	if (t > pv->max_time)
		pv->max_time = t;
	if (!changes_maps(r->type) && r->type != PD_SAMPLE && r->type != PD_LOST &&
	    r->type != PD_READ)
		return 0;	/* process() has nothing to do with it */
	pv->q = grow(pv->q, &pv->capq, pv->nq, sizeof(*pv->q));
	if (!pv->q)
		return -ENOMEM;
	const uint8_t *b = r->data;
	if (!r->stable) {	/* inside a COMPRESSED record: its buffer is reused */
		uint8_t *c = malloc(r->size);
		if (!c)
			return -ENOMEM;
		b = memcpy(c, r->data, r->size);
	}
	pv->q[pv->nq++] = (struct qrec){ t, pv->seq++, r->offset, b, r->size, !r->stable,
					 (uint8_t)changes_maps(r->type) };
	pv->nq_ordered += changes_maps(r->type);
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queue_process(struct analysis *an, struct priv *pv, struct qrec *q)
{
	struct pd_record r;
	int e = 0;
	if (perfdata_decode(pv->pd, q->bytes, q->len, q->offset, &r) == 0)
		e = process(an, pv, &r);
	pv->nq_ordered -= q->ordered;
	if (q->owned)
		free((void *)q->bytes);
	return e;
}

/*
 * Process queued records with time <= limit (all of them if all) in time order, as perf
 * does.  Samples, LOST and READ records commute with each other: only when a record that
 * changes the maps is queued does the order matter, and only then is the queue sorted.
 */
static int queue_flush(struct analysis *an, struct priv *pv, uint64_t limit, int all)
{
	size_t k = 0, w = 0;
	int e = 0;
	if (pv->nq_ordered) {
		qsort(pv->q, pv->nq, sizeof(*pv->q), by_time);
		for (; k < pv->nq && (all || pv->q[k].time <= limit); k++)
			if (queue_process(an, pv, &pv->q[k]) && !e)
				e = -ENOMEM;
		w = pv->nq - k;
		memmove(pv->q, pv->q + k, w * sizeof(*pv->q));
	} else {
		for (; k < pv->nq; k++) {
			if (!all && pv->q[k].time > limit)
				pv->q[w++] = pv->q[k];
			else if (queue_process(an, pv, &pv->q[k]) && !e)
				e = -ENOMEM;
		}
	}
	pv->nq = w;
	return e;
}

/* Give back the input before the oldest record still queued (or before offset). */
static void queue_release(struct priv *pv, uint64_t offset)
{
	for (size_t i = 0; i < pv->nq; i++)
		if (!pv->q[i].owned && pv->q[i].offset < offset)
			offset = pv->q[i].offset;
	perfdata_release(pv->pd, offset);
}

static int walk(struct analysis *an, struct priv *pv, char *errbuf, size_t errlen)
{
	struct pd_record r;
	int k;
	while ((k = perfdata_next(pv->pd, &r)) > 0) {
		if (perfdata_nattrs(pv->pd) != an->nev) {
			/* pipe mode: attrs arrive as records, always before their samples */
			if (an->nsamples || an->nprocs) {
				snprintf(errbuf, errlen, "ATTR record at offset %llu after samples",
					 (unsigned long long)r.offset);
				return -EINVAL;
			}
			if (events_init(an, pv))
				return -ENOMEM;
		}
		if (r.type < PD_HEADER_ATTR) {
			if (queue_push(pv, &r))
				return -ENOMEM;
		} else if (r.type == PD_FINISHED_ROUND) {
			/* as perf: what came before the previous round's end is complete now */
			if (queue_flush(an, pv, pv->flush_limit, 0))
				return -ENOMEM;
			pv->flush_limit = pv->max_time;
			if (r.stable)
				queue_release(pv, r.offset);
		}
	}
	if (k >= 0 && (queue_flush(an, pv, 0, 1) || samples_drain(an, pv)))
		return -ENOMEM;
	if (k < 0) {
		snprintf(errbuf, errlen, "%s", perfdata_error(pv->pd));
		return k;
	}
	an->unknown_id = perfdata_stats(pv->pd)->unknown_id_samples;
	/* names may have changed since (pipe mode: EVENT_DESC and EVENT_UPDATE come late) */
	for (size_t e = 0; e < an->nev; e++) {
		an->ev[e].attr = perfdata_attr(pv->pd, e);
		an->ev[e].name = an->ev[e].attr->name;
	}
	for (size_t e = 0; e < an->nev; e++) {
		struct an_event *ev = &an->ev[e];
		if (ev->freq || !ev->period)
			ev->period = ev->samples ? ev->period_sum / ev->samples : 0;
	}
	mplex_finish(an, pv);
	return cpus_finish(an, pv);
}

struct analysis *analysis_new(struct perfdata *pd, struct symtab *as, int *err, char *errbuf,
			      size_t errlen)
{
	struct analysis *an = calloc(1, sizeof(*an));
	struct priv *pv = calloc(1, sizeof(*pv));
	if (!an || !pv) {
		free(an);
		free(pv);
		*err = -ENOMEM;
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	an->priv = pv;
	pv->pd = pd;
	pv->as = as;
	pv->kernel.comm = -1;
	pv->last_task = -1;
	pv->mx_last[0] = pv->mx_last[1] = -1;
	stab_init(&pv->stab);
	stab_init(&pv->cstab);
	int r = events_init(an, pv);
	if (!r)
		r = walk(an, pv, errbuf, errlen);
	if (r) {
		if (r == -ENOMEM)
			snprintf(errbuf, errlen, "out of memory");
		*err = r;
		analysis_free(an);
		return NULL;
	}
	return an;
}

static void rows_free(struct an_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].samples);
		free(rows[i].periods);
		free(rows[i].incl);
	}
	free(rows);
}

void analysis_free(struct analysis *an)
{
	if (!an)
		return;
	struct priv *pv = an->priv;
	rows_free(an->procs, an->nprocs);
	rows_free(an->mods, an->nmods);
	rows_free(an->funcs, an->nfuncs);
	for (size_t i = 0; i < an->naddrs; i++)
		free(an->addrs[i].samples);
	free(an->addrs);
	free(an->edges);
	free(an->cpu_samples);
	free(an->addr_cpus);
	free(an->func_cpus);
	free(an->ev);
	if (pv) {
		for (size_t i = 0; i < pv->nstrs; i++)
			free(pv->strs[i]);
		free(pv->strs);
		for (size_t i = 0; i < pv->ntasks; i++)
			free(pv->tasks[i].maps);
		free(pv->tasks);
		free(pv->kernel.maps);
		hfree(&pv->strmap);
		hfree(&pv->taskmap);
		hfree(&pv->procmap);
		hfree(&pv->modmap);
		hfree(&pv->funcmap);
		hfree(&pv->addrmap);
		hfree(&pv->edgemap);
		hfree(&pv->mxmap);
		free(pv->mx);
		free(pv->attr_ev);
		free(pv->chain_seen);
		for (size_t i = 0; i < pv->nq; i++)
			if (pv->q[i].owned)
				free((void *)pv->q[i].bytes);
		free(pv->q);
		stab_release(&pv->stab);
		stab_release(&pv->cstab);
		hfree(&pv->cpumap);
		free(pv);
	}
	free(an);
}

/* ---- queries ----------------------------------------------------------------------------- */

static const struct an_row *sort_rows;
static size_t sort_ev;

static int by_samples(const void *a, const void *b)
{
	const struct an_row *x = &sort_rows[*(const int *)a], *y = &sort_rows[*(const int *)b];
	if (x->periods[sort_ev] != y->periods[sort_ev])
		return x->periods[sort_ev] > y->periods[sort_ev] ? -1 : 1;
	if (x->samples[sort_ev] != y->samples[sort_ev])
		return x->samples[sort_ev] > y->samples[sort_ev] ? -1 : 1;
	return strcmp(x->name, y->name);
}

int *analysis_order(const struct an_row *rows, size_t n, size_t ev)
{
	int *o = malloc((n ? n : 1) * sizeof(int));
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++)
		o[i] = (int)i;
	sort_rows = rows;
	sort_ev = ev;
	qsort(o, n, sizeof(int), by_samples);
	return o;
}

uint64_t analysis_total(const struct analysis *an, size_t ev)
{
	return ev < an->nev ? an->ev[ev].samples : 0;
}

/* fn, a symbol as the report shows it, is the function `name`: the same, its C++
 * demangling, or `name(...)` (fortran 0); or (fortran 1) a Fortran procedure's symbol as
 * gfortran makes it, `name_` or a module's `__mod_MOD_name` (shown `mod::name`), which the other tools name
 * as the source does (`sonde mem`'s `vranlc` is NPB's `vranlc_`). */
static int name_matches(const char *fn, const char *name, const char *demangled, int fortran)
{
	size_t n = strlen(name);
	if (!fortran)
		return !strcmp(fn, name) || (demangled && !strcmp(fn, demangled)) ||
		       (!strncmp(fn, name, n) && fn[n] == '(');
	return (!strncmp(fn, name, n) && fn[n] == '_' && !fn[n + 1]) ||
	       sym_is_module_proc(fn, name);
}

/* The function of that name with the most samples; the Fortran forms only where no
 * function has the name itself (review, 2026-11-27: `init` found `init_` before `init`). */
int analysis_find_function(const struct analysis *an, const char *name)
{
	int best = -1;
	uint64_t bs = 0;
	char *dm = sym_demangle_new(name);
	for (int fortran = 0; fortran < 2 && best < 0; fortran++)
		for (size_t i = 0; i < an->nfuncs; i++) {
			if (!name_matches(an->funcs[i].name, name, dm, fortran))
				continue;
			uint64_t s = 0;
			for (size_t e = 0; e < an->nev; e++)
				s += an->funcs[i].samples[e];
			if (best < 0 || s > bs) {
				best = (int)i;
				bs = s;
			}
		}
	free(dm);
	return best;
}
