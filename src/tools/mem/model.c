/* SPDX-License-Identifier: MIT */
/*
 * memmodel.c - attribution of memory-access samples to data objects and code.  See
 * memmodel.h.
 *
 * Heap lookups: the allocations, their frees and the samples of a process become one
 * stream of events sorted by time; live allocations sit in a treap keyed by address and
 * augmented with the largest end address of each subtree, so the allocation containing a
 * sampled address is found in O(log n) even when addresses are reused by later
 * allocations (one time-ordered sweep, no per-sample scan).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/mem/model.h"
#include "prof/symbols.h"
#include "tools/mem/sites.h"

#define PATH_MAX_FRAMES 256

/* ---- small hash maps ---- */

struct u64map {
	uint64_t *keys;
	uint32_t *vals;		/* MM_NONE marks an empty slot */
	size_t cap, n;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return MM_NONE;
	for (size_t i = mix64(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == MM_NONE)
			return MM_NONE;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int u64map_put(struct u64map *m, uint64_t key, uint32_t val);

static int u64map_grow(struct u64map *m)
{
	struct u64map g = { .cap = m->cap ? m->cap * 2 : 64 };
	g.keys = malloc(g.cap * sizeof(*g.keys));
	g.vals = malloc(g.cap * sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -ENOMEM;
	}
	memset(g.vals, 0xff, g.cap * sizeof(*g.vals));
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i] != MM_NONE)
			u64map_put(&g, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = g;
	return 0;
}

static int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && u64map_grow(m))
		return -ENOMEM;
	size_t i = mix64(key) & (m->cap - 1);
	while (m->vals[i] != MM_NONE && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->vals[i] == MM_NONE)
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

static void u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* String keys (owned copies) to indexes. */
struct strmap {
	char **keys;
	uint32_t *vals;
	size_t cap, n;
};

static uint32_t *strmap_slot(struct strmap *m, const char *key)
{
	size_t i = str_hash(key) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (m->cap - 1);
	return &m->vals[i];
}

static uint32_t strmap_get(struct strmap *m, const char *key)
{
	if (!m->cap)
		return MM_NONE;
	uint32_t *v = strmap_slot(m, key);
	return m->keys[v - m->vals] ? *v : MM_NONE;
}

static int strmap_grow(struct strmap *m)
{
	struct strmap g = { .cap = m->cap ? m->cap * 2 : 64 };
	g.keys = calloc(g.cap, sizeof(*g.keys));
	g.vals = calloc(g.cap, sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		uint32_t *v = strmap_slot(&g, m->keys[i]);
		g.keys[v - g.vals] = m->keys[i];
		*v = m->vals[i];
	}
	g.n = m->n;
	free(m->keys);
	free(m->vals);
	*m = g;
	return 0;
}

static int strmap_put(struct strmap *m, const char *key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap && strmap_grow(m))
		return -ENOMEM;
	uint32_t *v = strmap_slot(m, key);
	char **k = &m->keys[v - m->vals];
	if (!*k) {
		if (!(*k = strdup(key)))
			return -ENOMEM;
		m->n++;
	}
	*v = val;
	return 0;
}

static void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- the interval treap of live allocations ---- */

struct tnode {
	uint64_t addr, end, max_end;
	uint64_t prio;
	uint32_t left, right;	/* node numbers, 0 = none */
};

struct treap {
	struct tnode *n;	/* node k + 1 is allocation k */
	uint32_t root;
	uint64_t rng;
};

static uint64_t treap_rand(struct treap *tr)
{
	tr->rng ^= tr->rng << 13;
	tr->rng ^= tr->rng >> 7;
	tr->rng ^= tr->rng << 17;
	return tr->rng;
}

static void tupdate(struct treap *tr, uint32_t t)
{
	struct tnode *n = &tr->n[t];
	n->max_end = n->end;
	if (n->left && tr->n[n->left].max_end > n->max_end)
		n->max_end = tr->n[n->left].max_end;
	if (n->right && tr->n[n->right].max_end > n->max_end)
		n->max_end = tr->n[n->right].max_end;
}

/* Key order: address, then node number (unique). */
static int tless(const struct treap *tr, uint32_t t, uint64_t addr, uint32_t id)
{
	return tr->n[t].addr < addr || (tr->n[t].addr == addr && t < id);
}

/* Split t into keys < (addr, id) and the rest. */
static void tsplit(struct treap *tr, uint32_t t, uint64_t addr, uint32_t id, uint32_t *l,
		   uint32_t *r)
{
	if (!t) {
		*l = *r = 0;
		return;
	}
	if (tless(tr, t, addr, id)) {
		tsplit(tr, tr->n[t].right, addr, id, &tr->n[t].right, r);
		*l = t;
	} else {
		tsplit(tr, tr->n[t].left, addr, id, l, &tr->n[t].left);
		*r = t;
	}
	tupdate(tr, t);
}

static uint32_t tmerge(struct treap *tr, uint32_t l, uint32_t r)
{
	if (!l || !r)
		return l ? l : r;
	if (tr->n[l].prio > tr->n[r].prio) {
		tr->n[l].right = tmerge(tr, tr->n[l].right, r);
		tupdate(tr, l);
		return l;
	}
	tr->n[r].left = tmerge(tr, l, tr->n[r].left);
	tupdate(tr, r);
	return r;
}

static void tinsert(struct treap *tr, uint32_t t)
{
	uint32_t l, r;
	tr->n[t].prio = treap_rand(tr);
	tr->n[t].left = tr->n[t].right = 0;
	tupdate(tr, t);
	tsplit(tr, tr->root, tr->n[t].addr, t, &l, &r);
	tr->root = tmerge(tr, tmerge(tr, l, t), r);
}

static void tremove(struct treap *tr, uint32_t t)
{
	uint32_t l, m, r;
	tsplit(tr, tr->root, tr->n[t].addr, t, &l, &r);
	tsplit(tr, r, tr->n[t].addr, t + 1, &m, &r);
	tr->root = tmerge(tr, l, r);
}

/* The live allocation with the largest start <= a that contains a; 0 if none. */
static uint32_t tstab(const struct treap *tr, uint32_t t, uint64_t a)
{
	while (t && tr->n[t].max_end > a) {
		const struct tnode *n = &tr->n[t];
		if (n->addr > a) {
			t = n->left;
			continue;
		}
		uint32_t hit = tstab(tr, n->right, a);
		if (hit)
			return hit;
		if (n->end > a)
			return t;
		t = n->left;
	}
	return 0;
}

/* ---- the builder ---- */

struct builder {
	struct memmodel *m;
	struct strmap objs, codes;
	size_t cap_obj, cap_code, cap_ot;
	struct u64map ot;	/* (object << 32 | thread) -> objthread index */
};

struct range {
	uint64_t lo, hi;
	uint32_t index;		/* thread_index */
};

struct pstate {
	size_t pi;
	const struct prof_process *pr;
	struct mm_process *mp;
	size_t thread0;		/* the process's first thread in m->thread */
	struct u64map code_cache;	/* ip -> code */
	struct u64map site_cache;	/* (thread << 32 | ctx) -> object */
	struct range *stack;
	size_t nstack;
	struct range *tls;	/* threads' TLS ranges; index: the thread's place in pr->thread */
	size_t ntls;
	struct range *arena;	/* anonymous mappings holding malloc'd blocks: malloc arenas */
	size_t narena;
};

/* A thread as the tables name it: its index in a recording of one process, else with its
 * process, "rRANK.INDEX" under MPI or "PREFIX.INDEX" (an exec'd image, "1573.e1", is not
 * its pid's image before the exec, "1573": a wrapper's child). */
static void thread_label(const struct profile *p, const struct prof_process *pr, uint32_t idx,
			 char *buf, size_t len)
{
	if (p->nproc == 1)
		snprintf(buf, len, "%u", idx);
	else if (pr->rank >= 0)
		snprintf(buf, len, "r%d.%u", pr->rank, idx);
	else
		snprintf(buf, len, "%s.%u", pr->prefix, idx);
}

const char *mm_kind_name(enum mm_kind k)
{
	static const char *const names[] = { "heap", "static", "stack", "other" };
	return k <= MM_OTHER ? names[k] : "other";
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The object of this kind and identity (`id`: the name, or a heap object's allocation
 * path key), added if new. */
static uint32_t add_object_id(struct builder *b, enum mm_kind kind, const char *id,
			      const char *name, const char *function, const char *file, int line,
			      const char *module)
{
	char key[4096];
	snprintf(key, sizeof(key), "%d\x1f%s", (int)kind, id);
	uint32_t i = strmap_get(&b->objs, key);
	if (i != MM_NONE)
		return i;
	struct memmodel *m = b->m;
	if (m->nobject == b->cap_obj) {
		size_t cap = b->cap_obj ? b->cap_obj * 2 : 64;
		struct mm_object *o = realloc(m->object, cap * sizeof(*o));
		if (!o)
			return MM_NONE;
		m->object = o;
		b->cap_obj = cap;
	}
	struct mm_object *o = &m->object[m->nobject];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->name = strdup(name);
	o->module = dup_or_null(module);
	o->function = dup_or_null(function);
	o->file = dup_or_null(file);
	o->line = line;
	if (!o->name || strmap_put(&b->objs, key, (uint32_t)m->nobject)) {
		free(o->name);
		return MM_NONE;
	}
	return (uint32_t)m->nobject++;
}

static uint32_t add_object(struct builder *b, enum mm_kind kind, const char *name,
			   const struct sym_frame *site, const char *module)
{
	return add_object_id(b, kind, name, name, site ? site->function : NULL,
			     site ? site->file : NULL, site ? site->line : 0, module);
}

static uint32_t add_code(struct builder *b, const char *fn, const char *file, int line,
			 const char *module)
{
	char key[2048];
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%d\x1f%s", fn, file, line, module);
	uint32_t i = strmap_get(&b->codes, key);
	if (i != MM_NONE)
		return i;
	struct memmodel *m = b->m;
	if (m->ncode == b->cap_code) {
		size_t cap = b->cap_code ? b->cap_code * 2 : 64;
		struct mm_code *c = realloc(m->code, cap * sizeof(*c));
		if (!c)
			return MM_NONE;
		m->code = c;
		b->cap_code = cap;
	}
	struct mm_code *c = &m->code[m->ncode];
	memset(c, 0, sizeof(*c));
	c->function = strdup(fn);
	c->file = strdup(file);
	c->module = strdup(module);
	c->line = line;
	if (!c->function || !c->file || !c->module ||
	    strmap_put(&b->codes, key, (uint32_t)m->ncode)) {
		free(c->function);
		free(c->file);
		free(c->module);
		return MM_NONE;
	}
	return (uint32_t)m->ncode++;
}

void mm_code_name(const struct memmodel *m, uint64_t ip, char *buf, size_t len)
{
	struct sym_code sc;
	char nb[512];
	if (!m) {
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
		return;
	}
	int n = mm_symbolize(m, 0, ip, 0, &sc), k = 0;
	while (k + 1 < n && !sc.frames[k].line)	/* the innermost frame with a line */
		k++;
	/* code no symbol of its own names: its address, so that two such places stay two
	 * (reuse's and comm's code pairs are merged by name) */
	const char *name = sym_code_own_name(&sc, n > 0 ? k : -1, ip, nb, sizeof(nb));
	const char *f = n > 0 && sc.frames[k].file ? strrchr(sc.frames[k].file, '/') : NULL;
	if (n > 0 && sc.frames[k].file)
		snprintf(buf, len, "%s (%s:%d)", name, f ? f + 1 : sc.frames[k].file,
			 sc.frames[k].line);
	else
		snprintf(buf, len, "%s", name);
}

int mm_symbolize(const struct memmodel *m, size_t proc, uint64_t ip, int is_return,
		 struct sym_code *sc)
{
	struct sym_code tmp;
	struct symtab *st = m->proc[proc].symtab;
	if (!sc)
		sc = &tmp;
	memset(sc, 0, sizeof(*sc));
	if (!st || !ip)
		return 0;
	/* a return address's call instruction ends just before it */
	if (symtab_code(st, is_return ? ip - 1 : ip, sc) < 0 || sc->n < 1) {
		sc->n = 0;
		return 0;
	}
	if (sc->n > SYM_MAX_INLINE)
		sc->n = SYM_MAX_INLINE;
	return sc->n;
}

/* The innermost frame that names a function, NULL if none. */
static const struct sym_frame *named_frame(const struct sym_code *sc)
{
	for (int i = 0; i < sc->n; i++)
		if (sc->frames[i].function)
			return &sc->frames[i];
	return NULL;
}

/* ---- heap objects: named by allocation path (sites.c) ---- */

/* The symbolized frames of an allocation path, innermost first, into *out (malloc'd). */
static int path_frames(struct builder *b, struct pstate *ps, const struct prof_thread *t,
		       uint32_t ctx, struct site_frame **out)
{
	uint64_t ips[PATH_MAX_FRAMES];
	struct sym_code sc;
	int n = prof_ctx_path(t, ctx, ips, PATH_MAX_FRAMES), k = 0;
	struct site_frame *f = malloc(((size_t)n * SYM_MAX_INLINE + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		int m = mm_symbolize(b->m, ps->pi, ips[i], 1, &sc);
		for (int j = 0; j < (m ? m : 1); j++)
			f[k++] = (struct site_frame){
				.function = m ? sc.frames[j].function : NULL,
				.file = m ? sc.frames[j].file : NULL,
				.line = m ? sc.frames[j].line : 0,
				.column = m ? sc.frames[j].column : 0,
				.module = sc.module,
				.offset = sc.module ? sc.module_offset : ips[i],
			};
	}
	*out = f;
	return k;
}

/* The heap object of path i of s. */
static uint32_t site_object_of(struct builder *b, const struct site_names *s, int i)
{
	const struct site_frame *f = site_names_frame(s, i);
	uint32_t o = add_object_id(b, MM_HEAP, site_names_key(s, i), site_names_label(s, i),
				   f ? f->function : NULL, f ? f->file : NULL, f ? f->line : 0,
				   f ? f->module : NULL);
	struct mm_object *obj = o == MM_NONE ? NULL : &b->m->object[o];
	if (obj && !obj->path && !(obj->path = strdup(site_names_path(s, i))))
		return MM_NONE;
	return o;
}

/*
 * Name the heap objects of the process: every distinct allocation context is symbolized
 * and added to one set, so that wrappers are found across all of them; site_cache then
 * maps (thread << 32 | ctx) to the object.
 */
static int name_sites(struct builder *b, struct pstate *ps)
{
	struct site_names *s = site_names_new();
	struct u64map idx = { 0 };
	uint64_t *keys = malloc((ps->mp->nalloc + 1) * sizeof(*keys));
	int r = s && keys ? 0 : -ENOMEM, n = 0;

	for (size_t k = 0; k < ps->mp->nalloc && !r; k++) {
		const struct mm_alloc *a = &ps->mp->alloc[k];
		uint64_t key = (uint64_t)a->thread << 32 | a->ctx;
		if ((a->flags & MM_ALLOC_INHERITED) || u64map_get(&idx, key) != MM_NONE)
			continue;
		struct site_frame *f;
		int nf = path_frames(b, ps, b->m->thread[a->thread].t, a->ctx, &f);
		int i = nf < 0 ? nf : site_names_add(s, f, nf);
		free(nf < 0 ? NULL : f);
		r = i < 0 ? i : u64map_put(&idx, key, (uint32_t)i);
		if (!r)
			keys[n++] = key;
	}
	if (!r)
		r = site_names_resolve(s);
	for (int i = 0; i < n && !r; i++) {
		uint32_t o = site_object_of(b, s, (int)u64map_get(&idx, keys[i]));
		r = o == MM_NONE ? -ENOMEM : u64map_put(&ps->site_cache, keys[i], o);
	}
	u64map_release(&idx);
	free(keys);
	site_names_free(s);
	return r;
}

/* The stack holding a, a sample of thread self: its own stack first.  glibc gives a new
 * thread the stack of one that ended, so two threads' ranges can be the same: the search
 * alone named the later thread for the earlier one's own samples (the trial of PARSEC
 * streamcluster, 2026-11-27: threads with no sample owning 99 stack samples). */
static uint32_t stack_object(struct builder *b, struct pstate *ps, uint64_t a,
			     const struct prof_thread *self)
{
	char name[128], lab[96];
	if (self && self->hdr.stack_lo <= a && a < self->hdr.stack_hi) {
		thread_label(b->m->prof, ps->pr, self->hdr.thread_index, lab, sizeof(lab));
		snprintf(name, sizeof(name), "[stack of thread %s]", lab);
		uint32_t o = add_object(b, MM_STACK, name, NULL, NULL);
		if (o != MM_NONE)
			b->m->object[o].size = self->hdr.stack_hi - self->hdr.stack_lo;
		return o;
	}
	size_t lo = 0, hi = ps->nstack;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->stack[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a >= ps->stack[lo - 1].hi)
		return MM_NONE;
	thread_label(b->m->prof, ps->pr, ps->stack[lo - 1].index, lab, sizeof(lab));
	snprintf(name, sizeof(name), "[stack of thread %s]", lab);
	uint32_t o = add_object(b, MM_STACK, name, NULL, NULL);
	if (o != MM_NONE)
		b->m->object[o].size = ps->stack[lo - 1].hi - ps->stack[lo - 1].lo;
	return o;
}

/* The variable at offset off of a thread's static TLS, from the process's tls_blocks (the
 * runtime's: each module's block, "OFFSET SIZE PATH"): 1 and *d; 2 and the module's path
 * in mod (mlen bytes), the block in d->start and d->size, where its block holds off but no
 * symbol names it; 0 outside. */
static int tls_variable(struct pstate *ps, uint64_t off, struct sym_data *d, char *mod,
			size_t mlen)
{
	const char *p = ps->pr->tls_blocks;
	while (p && *p && ps->mp->symtab) {
		char *end;
		unsigned long long at = strtoull(p, &end, 10);
		unsigned long long size = strtoull(end, &end, 10);
		if (*end != ' ')
			return 0;
		const char *path = end + 1, *sep = strchr(path, '\x1f');
		size_t n = sep ? (size_t)(sep - path) : strlen(path);
		if (off >= at && off - at < size) {
			if (!n && ps->pr->exe)	/* the executable */
				snprintf(mod, mlen, "%s", ps->pr->exe);
			else
				snprintf(mod, mlen, "%.*s", (int)n, path);
			if (symtab_tls(ps->mp->symtab, mod, off - at, d) == 0 && d->name)
				return 1;
			d->name = NULL;
			d->start = at;	/* the module's block */
			d->size = size;
			return 2;
		}
		p = sep ? sep + 1 : NULL;
	}
	return 0;
}

/* The static TLS of the thread holding a (its own first): of kind static, one object a
 * thread and variable, "[TLS of thread N]" where the variable is not known.  A new
 * thread's lies at the top of its stack block, so before the stacks. */
static uint32_t tls_object(struct builder *b, struct pstate *ps, uint64_t a,
			   const struct prof_thread *self)
{
	const struct prof_thread *t = NULL;
	if (self && self->hdr.tls_lo <= a && a < self->hdr.tls_hi)
		t = self;
	size_t lo = 0, hi = ps->ntls;
	while (!t && lo < hi) {	/* another thread's: the last range starting at or below a */
		size_t mid = lo + (hi - lo) / 2;
		if (ps->tls[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!t && lo && a < ps->tls[lo - 1].hi)
		t = &ps->pr->thread[ps->tls[lo - 1].index];
	if (!t)
		return MM_NONE;
	char name[1200], lab[96], mod[1024] = "";
	struct sym_data d;
	uint64_t size = t->hdr.tls_hi - t->hdr.tls_lo;
	const char *module = NULL;
	thread_label(b->m->prof, ps->pr, t->hdr.thread_index, lab, sizeof(lab));
	int k = tls_variable(ps, a - t->hdr.tls_lo, &d, mod, sizeof(mod));
	if (k == 2) {	/* a stripped library's: its name at least */
		const char *base = strrchr(mod, '/');
		snprintf(name, sizeof(name), "[TLS of thread %s: %s]", lab, base ? base + 1 : mod);
		size = d.size;
	} else if (k == 1) {
		/* a library's variable names its library, as static_object does */
		const char *base = d.module ? strrchr(d.module, '/') : NULL;
		int lib = d.module && ps->pr->exe && strcmp(d.module, ps->pr->exe);
		snprintf(name, sizeof(name), "%s%s%s%s (TLS of thread %s)", d.name,
			 lib ? " [" : "", lib ? (base ? base + 1 : d.module) : "", lib ? "]" : "",
			 lab);
		size = d.size;
		module = d.module;
	} else {
		snprintf(name, sizeof(name), "[TLS of thread %s]", lab);
	}
	uint32_t o = add_object(b, MM_STATIC, name, NULL, module);
	if (o != MM_NONE)
		b->m->object[o].size = size;
	return o;
}

static uint32_t static_object(struct builder *b, struct pstate *ps, uint64_t a)
{
	struct sym_data d;
	if (!ps->mp->symtab || symtab_data(ps->mp->symtab, a, &d) < 0 || !d.name)
		return MM_NONE;
	/* a library's variable names its library: libm's `one` and `__exp2f_data` read as the
	 * program's own (the trial of 2026-11-28) */
	char named[1024];
	const char *name = d.name;
	if (d.module && ps->pr->exe && *ps->pr->exe && strcmp(d.module, ps->pr->exe)) {
		const char *base = strrchr(d.module, '/');
		snprintf(named, sizeof(named), "%s [%s]", d.name, base ? base + 1 : d.module);
		name = named;
	}
	uint32_t o = add_object(b, MM_STATIC, name, NULL, d.module);
	if (o != MM_NONE)
		b->m->object[o].size = d.size;
	return o;
}

static int in_arena(const struct pstate *ps, uint64_t a)
{
	for (size_t i = 0; i < ps->narena; i++)
		if (a >= ps->arena[i].lo && a < ps->arena[i].hi)
			return 1;
	return 0;
}

/*
 * Threads' malloc arenas are anonymous mappings, not "[heap]": an anonymous mapping that
 * holds a block the malloc family returned is one, and its untracked addresses are small
 * heap blocks (or the allocator's own bookkeeping).
 */
static int find_arenas(struct pstate *ps)
{
	struct symtab *st = ps->mp->symtab;
	for (size_t i = 0; st && i < ps->mp->nalloc; i++) {
		const struct mm_alloc *al = &ps->mp->alloc[i];
		uint64_t lo, hi;
		const char *map;
		if ((al->flags & SONDE_ALLOC_MMAP) || in_arena(ps, al->addr))
			continue;
		map = symtab_mapping(st, al->addr, &lo, &hi);
		if (!map || *map)
			continue;
		struct range *r = realloc(ps->arena, (ps->narena + 1) * sizeof(*r));
		if (!r)
			return -ENOMEM;
		ps->arena = r;
		ps->arena[ps->narena++] = (struct range){ lo, hi, 0 };
	}
	return 0;
}

static uint32_t other_object(struct builder *b, struct pstate *ps, uint64_t a)
{
	const char *map = ps->mp->symtab ? symtab_mapping(ps->mp->symtab, a, NULL, NULL) : NULL;
	char name[512];

	/* blocks under --min-object, and, where the runtime's table of tracked blocks filled
	 * up (alloc_table_full: over 2^20 live at once), any block past it */
	const char *untracked = ps->pr->alloc_table_full ? "[heap: untracked blocks]" :
							   "[heap: untracked small blocks]";

	if (!map)
		snprintf(name, sizeof(name), "[unknown]");
	else if (!strcmp(map, "[heap]"))
		snprintf(name, sizeof(name), "%s", untracked);
	else if (!strcmp(map, "[stack]")) {
		char lab[96];	/* the main thread's: one row per process (the usability review
				 * of 2026-11-27 read two ranks' as two "[stack of thread 0]"), and
				 * of kind stack, the row of the part its range holds (above it: the
				 * environment, argv: a second row of kind other before) */
		thread_label(b->m->prof, ps->pr, 0, lab, sizeof(lab));
		snprintf(name, sizeof(name), "[stack of thread %s]", lab);
		return add_object(b, MM_STACK, name, NULL, NULL);
	}
	else if (!*map && (in_arena(ps, a) || symtab_malloc_heap(ps->mp->symtab, a)))
		snprintf(name, sizeof(name), "%s", untracked);
	else if (!*map)
		snprintf(name, sizeof(name), "[anonymous memory]");
	else if (*map == '[')
		snprintf(name, sizeof(name), "%s", map);
	else
		snprintf(name, sizeof(name), "[file: %s]", base_name(map));
	return add_object(b, MM_OTHER, name, NULL, NULL);
}

static uint32_t nonheap_object(struct builder *b, struct pstate *ps, uint64_t a,
			       const struct prof_thread *self)
{
	uint32_t o = static_object(b, ps, a);
	if (o == MM_NONE)
		o = tls_object(b, ps, a, self);
	if (o == MM_NONE)
		o = stack_object(b, ps, a, self);
	if (o == MM_NONE)
		o = other_object(b, ps, a);
	return o;
}

static uint32_t code_object(struct builder *b, struct pstate *ps, uint64_t ip)
{
	uint32_t c = u64map_get(&ps->code_cache, ip);
	if (c != MM_NONE)
		return c;
	struct sym_code sc;
	char fn[512];
	mm_symbolize(b->m, ps->pi, ip, 0, &sc);
	const struct sym_frame *f = named_frame(&sc);
	const char *file = f && f->file ? f->file : "";
	const char *module = sc.module ? sc.module : "";
	const char *name = sym_code_name(&sc, f ? (int)(f - sc.frames) : 0, fn, sizeof(fn));
	c = add_code(b, name, file, f ? f->line : 0, module);
	if (c != MM_NONE && u64map_put(&ps->code_cache, ip, c))
		return MM_NONE;
	return c;
}

/* ---- allocations and their frees ---- */

struct fev {
	uint64_t addr, time;
	uint32_t is_free;	/* at equal times an allocation comes first */
	uint32_t idx;
};

static int fev_cmp(const void *a, const void *b)
{
	const struct fev *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->is_free != y->is_free)
		return x->is_free < y->is_free ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int alloc_time_cmp(const void *a, const void *b)
{
	const struct mm_alloc *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The process image a forked child (pi) came from: the one of its parent's pid that ran
 * when it started, already modelled; -1 for an exec'd image (its prefix holds ".e"), a
 * process whose parent is not in the recording, or one not modelled yet.
 */
static long fork_parent(const struct builder *b, size_t pi)
{
	const struct profile *p = b->m->prof;
	const struct prof_process *c = &p->proc[pi];
	long best = -1;
	if (strstr(c->prefix, ".e") || c->ppid <= 0)
		return -1;
	for (size_t q = 0; q < p->nproc; q++) {
		const struct prof_process *x = &p->proc[q];
		if (q == pi || x->pid != c->ppid || x->rank != c->rank || x->start_ns > c->start_ns ||
		    (x->end_ns && x->end_ns < c->start_ns) || !b->m->proc[q].alloc)
			continue;
		if (best < 0 || x->start_ns > p->proc[best].start_ns)
			best = (long)q;
	}
	return best;
}

/* Was block a allocated and not yet freed at time t? */
static int live_at(const struct mm_alloc *a, uint64_t t)
{
	return a->time <= t && a->free_time > t;
}

/* Collect the ALLOC records of every thread of the process, sorted by time, and a forked
 * child's blocks from its parent (the usability review of 2026-11-29: a child's array
 * allocated before the fork read as [anonymous memory], 28-41% of the samples). */
static int gather_allocs(struct builder *b, struct pstate *ps, size_t *nfree)
{
	size_t n = 0, ninh = 0;
	long q = fork_parent(b, ps->pi);
	const struct mm_process *par = q >= 0 ? &b->m->proc[q] : NULL;
	*nfree = 0;
	for (size_t i = 0; i < ps->pr->nthread; i++) {
		n += ps->pr->thread[i].nalloc;
		*nfree += ps->pr->thread[i].nfree;
	}
	for (size_t k = 0; par && k < par->nalloc; k++)
		ninh += live_at(&par->alloc[k], ps->pr->start_ns);
	ps->mp->alloc = calloc(n + ninh + 1, sizeof(*ps->mp->alloc));
	if (!ps->mp->alloc)
		return -ENOMEM;
	for (size_t k = 0; par && k < par->nalloc; k++) {
		struct mm_alloc a = par->alloc[k];
		if (!live_at(&a, ps->pr->start_ns))
			continue;
		a.flags |= MM_ALLOC_INHERITED;
		a.free_time = UINT64_MAX;	/* the child's own frees end it (match_frees) */
		ps->mp->alloc[ps->mp->nalloc++] = a;
	}
	for (size_t i = 0; i < ps->pr->nthread; i++) {
		const struct prof_thread *t = &ps->pr->thread[i];
		for (size_t k = 0; k < t->nalloc; k++) {
			const struct sonde_rec_alloc *r = &t->alloc[k];
			ps->mp->alloc[ps->mp->nalloc++] = (struct mm_alloc){
				.thread = (uint32_t)(ps->thread0 + i), .ctx = r->ctx,
				.flags = r->flags, .addr = r->addr, .size = r->size,
				.time = r->time, .free_time = UINT64_MAX,
			};
		}
	}
	qsort(ps->mp->alloc, ps->mp->nalloc, sizeof(*ps->mp->alloc), alloc_time_cmp);
	int r = name_sites(b, ps);
	if (r)
		return r;
	/* A SONDE_ALLOC_SUMMARY record is not a block: its site's count (addr) and bytes.  It
	 * is named with the others, counted, and then dropped from the list of blocks. */
	size_t keep = 0;
	for (size_t k = 0; k < ps->mp->nalloc; k++) {
		struct mm_alloc *a = &ps->mp->alloc[k];
		if (a->flags & MM_ALLOC_INHERITED) {	/* named, and counted, in the parent */
			ps->mp->alloc[keep++] = *a;
			continue;
		}
		a->object = u64map_get(&ps->site_cache, (uint64_t)a->thread << 32 | a->ctx);
		if (a->object == MM_NONE)
			return -ENOMEM;
		int sum = (a->flags & SONDE_ALLOC_SUMMARY) != 0;
		b->m->object[a->object].allocs += sum ? a->addr : 1;
		b->m->object[a->object].size += a->size;
		if (!sum)
			ps->mp->alloc[keep++] = *a;
		else
			ps->mp->summarized += a->addr;
	}
	ps->mp->nalloc = keep;
	return 0;
}

/*
 * Give each FREE to the latest live allocation of its address: per address, in time
 * order, allocations push on a stack and frees pop it.
 */
static int match_frees(struct pstate *ps, size_t nfree)
{
	size_t n = ps->mp->nalloc + nfree, k = 0, top = 0;
	struct fev *ev = malloc((n + 1) * sizeof(*ev));
	uint32_t *stack = malloc((ps->mp->nalloc + 1) * sizeof(*stack));
	if (!ev || !stack) {
		free(ev);
		free(stack);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ps->mp->nalloc; i++) {
		const struct mm_alloc *a = &ps->mp->alloc[i];
		ev[k++] = (struct fev){ a->addr, a->time, 0, (uint32_t)i };
	}
	for (size_t i = 0; i < ps->pr->nthread; i++)
		for (size_t j = 0; j < ps->pr->thread[i].nfree; j++) {
			const struct sonde_rec_free *f = &ps->pr->thread[i].free[j];
			ev[k++] = (struct fev){ f->addr, f->time, 1, 0 };
		}
	qsort(ev, n, sizeof(*ev), fev_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i && ev[i].addr != ev[i - 1].addr)
			top = 0;
		if (!ev[i].is_free)
			stack[top++] = ev[i].idx;
		else if (top)
			ps->mp->alloc[stack[--top]].free_time = ev[i].time;
		else
			ps->mp->unmatched_frees++;
	}
	free(ev);
	free(stack);
	return 0;
}

/* ---- the sweep ---- */

enum { EV_ALLOC, EV_FREE, EV_SAMPLE };

struct event {
	uint64_t time;
	uint32_t kind;		/* at equal times: allocations, frees, then samples */
	uint32_t a;		/* allocation index, or thread index */
	uint32_t b;		/* MEM record index */
};

static int event_cmp(const void *x, const void *y)
{
	const struct event *a = x, *b = y;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static int count_objthread(struct builder *b, uint32_t obj, uint32_t thread, uint64_t w)
{
	struct memmodel *m = b->m;
	uint64_t key = (uint64_t)obj << 32 | thread;
	uint32_t i = u64map_get(&b->ot, key);
	if (i == MM_NONE) {
		if (m->nobjthread == b->cap_ot) {
			size_t cap = b->cap_ot ? b->cap_ot * 2 : 64;
			struct mm_objthread *o = realloc(m->objthread, cap * sizeof(*o));
			if (!o)
				return -ENOMEM;
			m->objthread = o;
			b->cap_ot = cap;
		}
		i = (uint32_t)m->nobjthread++;
		m->objthread[i] = (struct mm_objthread){ .object = obj, .thread = thread };
		if (u64map_put(&b->ot, key, i))
			return -ENOMEM;
	}
	m->objthread[i].samples += w;
	return 0;
}

static int attribute(struct builder *b, struct pstate *ps, const struct treap *tr,
		     const struct event *e)
{
	struct mm_thread *th = &b->m->thread[e->a];
	const struct sonde_rec_mem *r = &th->t->mem[e->b];
	uint32_t hit = tstab(tr, tr->root, r->addr);
	uint32_t obj = hit ? ps->mp->alloc[hit - 1].object : nonheap_object(b, ps, r->addr, th->t);
	uint32_t code = code_object(b, ps, r->ip);
	if (obj == MM_NONE || code == MM_NONE)
		return -ENOMEM;
	uint64_t w = r->weight ? r->weight : 1;
	int store = (r->flags & (SONDE_MEM_STORE | SONDE_MEM_RMW)) != 0;
	int load = !(r->flags & SONDE_MEM_STORE) || (r->flags & SONDE_MEM_RMW);
	struct mm_object *o = &b->m->object[obj];
	struct mm_code *c = &b->m->code[code];
	th->object[e->b] = obj;
	th->code[e->b] = code;
	o->samples += w, c->samples += w, th->samples += w, b->m->samples += w;
	if (load)
		o->loads += w, c->loads += w, th->loads += w, b->m->loads += w;
	if (store)
		o->stores += w, c->stores += w, th->stores += w, b->m->stores += w;
	b->m->records++;
	return count_objthread(b, obj, (uint32_t)e->a, w);
}

static int build_events(struct pstate *ps, struct memmodel *m, struct event **out, size_t *nout)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < ps->mp->nalloc; i++)
		n += 1 + (ps->mp->alloc[i].free_time != UINT64_MAX);
	for (size_t i = 0; i < ps->pr->nthread; i++)
		n += ps->pr->thread[i].nmem;
	struct event *ev = malloc((n + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (size_t i = 0; i < ps->mp->nalloc; i++) {
		const struct mm_alloc *a = &ps->mp->alloc[i];
		ev[k++] = (struct event){ a->time, EV_ALLOC, (uint32_t)i, 0 };
		if (a->free_time != UINT64_MAX)
			ev[k++] = (struct event){ a->free_time, EV_FREE, (uint32_t)i, 0 };
	}
	for (size_t i = 0; i < ps->pr->nthread; i++) {
		const struct prof_thread *t = &ps->pr->thread[i];
		for (size_t j = 0; j < t->nmem; j++)
			ev[k++] = (struct event){ t->mem[j].time, EV_SAMPLE,
						  (uint32_t)(ps->thread0 + i), (uint32_t)j };
	}
	qsort(ev, n, sizeof(*ev), event_cmp);
	*out = ev;
	*nout = n;
	return 0;
}

static int sweep(struct builder *b, struct pstate *ps)
{
	struct event *ev;
	size_t n;
	int r = build_events(ps, b->m, &ev, &n);
	if (r)
		return r;
	struct treap tr = { .rng = 0x9e3779b97f4a7c15ULL };
	tr.n = calloc(ps->mp->nalloc + 1, sizeof(*tr.n));
	if (!tr.n) {
		free(ev);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ps->mp->nalloc; i++) {
		struct tnode *t = &tr.n[i + 1];
		const struct mm_alloc *a = &ps->mp->alloc[i];
		t->addr = a->addr;
		/* a corrupt size must not wrap around the address space */
		t->end = a->size > UINT64_MAX - a->addr ? UINT64_MAX : a->addr + a->size;
	}
	for (size_t i = 0; i < n && !r; i++) {
		if (ev[i].kind == EV_ALLOC)
			tinsert(&tr, ev[i].a + 1);
		else if (ev[i].kind == EV_FREE)
			tremove(&tr, ev[i].a + 1);
		else
			r = attribute(b, ps, &tr, &ev[i]);
	}
	free(tr.n);
	free(ev);
	return r;
}

/* ---- processes and threads ---- */

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int process_setup(struct builder *b, struct pstate *ps)
{
	const struct prof_process *pr = ps->pr;
	ps->stack = calloc(pr->nthread + 1, sizeof(*ps->stack));
	if (!ps->stack)
		return -ENOMEM;
	for (size_t i = 0; i < pr->nthread; i++) {
		const struct sonde_file_header *h = &pr->thread[i].hdr;
		if (h->stack_lo < h->stack_hi)
			ps->stack[ps->nstack++] = (struct range){ h->stack_lo, h->stack_hi,
								  h->thread_index };
	}
	qsort(ps->stack, ps->nstack, sizeof(*ps->stack), range_cmp);
	ps->tls = calloc(pr->nthread + 1, sizeof(*ps->tls));
	if (!ps->tls)
		return -ENOMEM;
	for (size_t i = 0; i < pr->nthread; i++) {
		const struct sonde_file_header *h = &pr->thread[i].hdr;
		if (h->tls_lo < h->tls_hi)
			ps->tls[ps->ntls++] = (struct range){ h->tls_lo, h->tls_hi, (uint32_t)i };
	}
	qsort(ps->tls, ps->ntls, sizeof(*ps->tls), range_cmp);
	if (pr->maps_path) {
		int err = 0;
		ps->mp->symtab = symtab_new_closed(pr->maps_path, pr->maps_closed_path, &err);
		ps->mp->symtab_err = ps->mp->symtab ? 0 : (err ? err : -EIO);
	} else {
		ps->mp->symtab_err = -ENOENT;
	}
	return 0;
}

static int process_run(struct builder *b, size_t pi, size_t thread0)
{
	struct pstate ps = { .pi = pi, .pr = &b->m->prof->proc[pi], .mp = &b->m->proc[pi],
			     .thread0 = thread0 };
	size_t nfree;
	int r = process_setup(b, &ps);
	if (!r)
		r = gather_allocs(b, &ps, &nfree);
	if (!r)
		r = match_frees(&ps, nfree);
	if (!r)
		r = find_arenas(&ps);
	if (!r)
		r = sweep(b, &ps);
	u64map_release(&ps.code_cache);
	u64map_release(&ps.site_cache);
	free(ps.stack);
	free(ps.tls);
	free(ps.arena);
	return r;
}

static int threads_setup(struct memmodel *m)
{
	const struct profile *p = m->prof;
	size_t n = 0;
	for (size_t i = 0; i < p->nproc; i++)
		n += p->proc[i].nthread;
	m->thread = calloc(n + 1, sizeof(*m->thread));
	m->proc = calloc(p->nproc + 1, sizeof(*m->proc));
	if (!m->thread || !m->proc)
		return -ENOMEM;
	for (size_t i = 0; i < p->nproc; i++) {
		const struct prof_process *pr = &p->proc[i];
		for (size_t k = 0; k < pr->nthread; k++) {
			struct mm_thread *th = &m->thread[m->nthread++];
			th->proc = pr;
			th->t = &pr->thread[k];
			th->proc_index = (uint32_t)i;
			thread_label(p, pr, th->t->hdr.thread_index, th->label, sizeof(th->label));
			th->object = malloc((th->t->nmem + 1) * sizeof(*th->object));
			th->code = malloc((th->t->nmem + 1) * sizeof(*th->code));
			if (!th->object || !th->code)
				return -ENOMEM;
		}
	}
	return 0;
}

/* ---- ordering ---- */

static int obj_order(const void *a, const void *b, void *ctx)
{
	const struct memmodel *m = ctx;
	const struct mm_object *x = &m->object[*(const uint32_t *)a];
	const struct mm_object *y = &m->object[*(const uint32_t *)b];
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int code_order(const void *a, const void *b, void *ctx)
{
	const struct memmodel *m = ctx;
	const struct mm_code *x = &m->code[*(const uint32_t *)a];
	const struct mm_code *y = &m->code[*(const uint32_t *)b];
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	int c = strcmp(x->function, y->function);
	if (!c)
		c = strcmp(x->file, y->file);
	if (!c)
		c = x->line - y->line;
	return c ? c : strcmp(x->module, y->module);
}

static int ot_order(const void *a, const void *b)
{
	const struct mm_objthread *x = a, *y = b;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/*
 * Sort items (n of them, `size` bytes each) with cmp over indexes; returns the map from
 * old index to new index, NULL on -ENOMEM.
 */
static uint32_t *reorder(void *items, size_t n, size_t size,
			 int (*cmp)(const void *, const void *, void *), void *ctx)
{
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint32_t *newpos = malloc((n + 1) * sizeof(*newpos));
	char *copy = malloc((n + 1) * size);
	if (!order || !newpos || !copy) {
		free(order);
		free(newpos);
		free(copy);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp, ctx);
	for (size_t i = 0; i < n; i++) {
		memcpy(copy + i * size, (const char *)items + (size_t)order[i] * size, size);
		newpos[order[i]] = (uint32_t)i;
	}
	if (n)
		memcpy(items, copy, n * size);
	free(order);
	free(copy);
	return newpos;
}

static int sort_all(struct memmodel *m)
{
	uint32_t *on = reorder(m->object, m->nobject, sizeof(*m->object), obj_order, m);
	uint32_t *cn = reorder(m->code, m->ncode, sizeof(*m->code), code_order, m);
	if (!on || !cn) {
		free(on);
		free(cn);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->nthread; i++)
		for (size_t k = 0; k < m->thread[i].t->nmem; k++) {
			m->thread[i].object[k] = on[m->thread[i].object[k]];
			m->thread[i].code[k] = cn[m->thread[i].code[k]];
		}
	for (size_t i = 0; i < m->prof->nproc; i++)
		for (size_t k = 0; k < m->proc[i].nalloc; k++)
			m->proc[i].alloc[k].object = on[m->proc[i].alloc[k].object];
	for (size_t i = 0; i < m->nobjthread; i++)
		m->objthread[i].object = on[m->objthread[i].object];
	if (m->nobjthread)
		qsort(m->objthread, m->nobjthread, sizeof(*m->objthread), ot_order);
	free(on);
	free(cn);
	return 0;
}

/* ---- the model ---- */

int memmodel_build(const struct profile *p, struct memmodel **out, char *err, size_t errlen)
{
	struct builder b = { 0 };
	size_t thread0 = 0;
	int r;

	*out = NULL;
	b.m = calloc(1, sizeof(*b.m));
	if (!b.m)
		goto nomem;
	b.m->prof = p;
	r = threads_setup(b.m);
	/* in the order they started, so that a forked child finds its parent's blocks
	 * (fork_parent); each at its threads' place in profile order */
	size_t *t0 = r ? NULL : malloc((p->nproc + 1) * sizeof(*t0));
	size_t *order = r ? NULL : malloc((p->nproc + 1) * sizeof(*order));
	if (!r && (!t0 || !order))
		r = -ENOMEM;
	for (size_t i = 0; i < p->nproc && !r; i++) {
		t0[i] = thread0;
		thread0 += p->proc[i].nthread;
		size_t k = i;	/* insertion by start, stable */
		while (k > 0 && p->proc[order[k - 1]].start_ns > p->proc[i].start_ns) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (size_t i = 0; i < p->nproc && !r; i++)
		r = process_run(&b, order[i], t0[order[i]]);
	free(t0);
	free(order);
	if (!r)
		r = sort_all(b.m);
	strmap_release(&b.objs);
	strmap_release(&b.codes);
	u64map_release(&b.ot);
	if (r) {
		memmodel_free(b.m);
		goto nomem;
	}
	*out = b.m;
	return 0;
nomem:
	if (err && errlen)
		snprintf(err, errlen, "out of memory building the memory model");
	return -ENOMEM;
}

/* The recording memmodel_build_for hands to memmodel_build: the model points into it. */
struct mm_view {
	struct profile prof;
	struct prof_process proc;
	struct sonde_rec_mem *recs;	/* a copy of the caller's */
	struct prof_thread thread[];
};

int memmodel_build_for(const struct profile *p, size_t proc, const struct sonde_rec_mem *recs,
		       const size_t *first, struct memmodel **out, char *err, size_t errlen)
{
	const struct prof_process *pr = &p->proc[proc];
	struct mm_view *v = calloc(1, sizeof(*v) + (pr->nthread + 1) * sizeof(v->thread[0]));
	size_t n = first[pr->nthread];

	*out = NULL;
	if (v)
		v->recs = malloc((n ? n : 1) * sizeof(*recs));
	if (!v || !v->recs) {
		free(v);
		snprintf(err, errlen, "out of memory naming data objects");
		return -ENOMEM;
	}
	memcpy(v->recs, recs, n * sizeof(*recs));
	for (size_t i = 0; i < pr->nthread; i++) {
		v->thread[i] = pr->thread[i];
		v->thread[i].mem = v->recs + first[i];
		v->thread[i].nmem = first[i + 1] - first[i];
	}
	v->prof = *p;
	v->proc = *pr;
	v->proc.thread = v->thread;
	v->prof.proc = &v->proc;
	v->prof.nproc = 1;
	int r = memmodel_build(&v->prof, out, err, errlen);
	if (r) {
		free(v->recs);
		free(v);
		return r;
	}
	(*out)->view = v;
	return 0;
}

void memmodel_free(struct memmodel *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nobject; i++) {
		free(m->object[i].name);
		free(m->object[i].function);
		free(m->object[i].file);
		free(m->object[i].module);
		free(m->object[i].path);
	}
	for (size_t i = 0; i < m->ncode; i++) {
		free(m->code[i].function);
		free(m->code[i].file);
		free(m->code[i].module);
	}
	for (size_t i = 0; i < m->nthread; i++) {
		free(m->thread[i].object);
		free(m->thread[i].code);
	}
	if (m->proc)
		for (size_t i = 0; i < m->prof->nproc; i++) {
			if (m->proc[i].symtab)
				symtab_free(m->proc[i].symtab);
			free(m->proc[i].alloc);
		}
	free(m->proc);
	free(m->thread);
	free(m->object);
	free(m->code);
	free(m->objthread);
	if (m->view)
		free(((struct mm_view *)m->view)->recs);
	free(m->view);
	free(m);
}
