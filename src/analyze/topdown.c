/* SPDX-License-Identifier: MIT */
/* topdown.c - cycle-accounting templates and their evaluation (see topdown.h). */
#include "analyze/topdown.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- parsing ------------------------------------------------------------------------------ */

static int sym_find(const struct td_model *m, const char *name)
{
	for (size_t i = 0; i < m->nsyms; i++)
		if (!strcmp(m->syms[i].name, name))
			return (int)i;
	return -1;
}

static int node_find(const struct td_model *m, const char *path)
{
	for (size_t i = 0; i < m->nnodes; i++)
		if (!strcmp(m->nodes[i].path, path))
			return (int)i;
	return -1;
}

static int push_str(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(char *));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* "event SYM alt alt..." */
static int parse_event(struct td_model *m, char **tok, int nt)
{
	if (nt < 3 || sym_find(m, tok[1]) >= 0)
		return -EINVAL;
	struct td_symbol *ns = realloc(m->syms, (m->nsyms + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	m->syms = ns;
	struct td_symbol *s = &m->syms[m->nsyms++];
	memset(s, 0, sizeof(*s));
	s->name = strdup(tok[1]);
	for (int i = 2; i < nt; i++)
		if (push_str(&s->alts, &s->nalts, tok[i]))
			return -ENOMEM;
	return s->name ? 0 : -ENOMEM;
}

/* "node PATH [PENALTY SYM]..." */
static int parse_node(struct td_model *m, char **tok, int nt)
{
	if (nt < 2 || nt % 2 || node_find(m, tok[1]) >= 0 || (nt - 2) / 2 > TD_MAX_TERMS)
		return -EINVAL;
	struct td_node *nn = realloc(m->nodes, (m->nnodes + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	m->nodes = nn;
	struct td_node *n = &m->nodes[m->nnodes];
	memset(n, 0, sizeof(*n));
	n->path = strdup(tok[1]);
	if (!n->path)
		return -ENOMEM;
	char *slash = strrchr(n->path, '/');
	n->name = slash ? slash + 1 : n->path;
	n->parent = -1;
	n->depth = 1;
	if (slash) {
		*slash = 0;
		n->parent = node_find(m, n->path);
		*slash = '/';
		if (n->parent < 0) {
			free(n->path);
			return -EINVAL;	/* parents come first */
		}
		n->depth = m->nodes[n->parent].depth + 1;
	}
	for (int i = 2; i + 1 < nt; i += 2) {
		char *end;
		double pen = strtod(tok[i], &end);
		int s = sym_find(m, tok[i + 1]);
		if (*end || s < 0 || !isfinite(pen)) {
			free(n->path);
			return -EINVAL;
		}
		n->terms[n->nterms++] = (struct td_term){ pen, s };
	}
	m->nnodes++;
	return 0;
}

static int parse_line(struct td_model *m, char *line)
{
	char *tok[2 + 2 * TD_MAX_TERMS + 64];
	int nt = 0;
	char *h = strchr(line, '#');
	if (h)
		*h = 0;
	for (char *s = strtok(line, " \t\r\n"); s && nt < (int)(sizeof(tok) / sizeof(tok[0]));
	     s = strtok(NULL, " \t\r\n"))
		tok[nt++] = s;
	if (!nt)
		return 0;
	if (!strcmp(tok[0], "arch") && nt == 2 && !m->arch)
		return (m->arch = strdup(tok[1])) ? 0 : -ENOMEM;
	if (!strcmp(tok[0], "title") && nt >= 2 && !m->title) {
		char buf[256] = "";
		for (int i = 1; i < nt; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i > 1 ? " " : "",
				 tok[i]);
		return (m->title = strdup(buf)) ? 0 : -ENOMEM;
	}
	if (!strcmp(tok[0], "cpuid") && nt == 2)
		return push_str(&m->cpuids, &m->ncpuids, tok[1]);
	if (!strcmp(tok[0], "event"))
		return parse_event(m, tok, nt);
	if (!strcmp(tok[0], "cycles") && nt == 2) {
		m->cycles_sym = sym_find(m, tok[1]);
		return m->cycles_sym < 0 ? -EINVAL : 0;
	}
	if (!strcmp(tok[0], "node"))
		return parse_node(m, tok, nt);
	return -EINVAL;
}

struct td_model *td_parse(const char *text, const char *name, int *err, char *errbuf,
			  size_t errlen)
{
	struct td_model *m = calloc(1, sizeof(*m));
	char *copy = strdup(text);
	if (!m || !copy) {
		free(m);
		free(copy);
		*err = -ENOMEM;
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	m->cycles_sym = -1;
	int lineno = 0, r = 0;
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		/* strtok_r skips empty lines: count them from the text itself */
		lineno = 1;
		for (const char *p = text; p < text + (l - copy); p++)
			lineno += *p == '\n';
		r = parse_line(m, l);
		if (r)
			break;
	}
	free(copy);
	if (!r && (!m->arch || m->cycles_sym < 0))
		r = -EINVAL, lineno = 0;
	if (r) {
		*err = r;
		if (lineno)
			snprintf(errbuf, errlen, "%s:%d: bad line", name, lineno);
		else
			snprintf(errbuf, errlen, "%s: needs 'arch NAME' and 'cycles SYMBOL'", name);
		td_free(m);
		return NULL;
	}
	return m;
}

struct td_model *td_load(const char *path, int *err, char *errbuf, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = -errno;
		snprintf(errbuf, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, 0, f);
	fclose(f);
	if (n < 0) {
		free(text);
		*err = -EIO;
		snprintf(errbuf, errlen, "cannot read '%s'", path);
		return NULL;
	}
	struct td_model *m = td_parse(text, path, err, errbuf, errlen);
	free(text);
	return m;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void td_free(struct td_model *m)
{
	if (!m)
		return;
	free(m->arch);
	free(m->title);
	free_strv(m->cpuids, m->ncpuids);
	for (size_t i = 0; i < m->nsyms; i++) {
		free(m->syms[i].name);
		free_strv(m->syms[i].alts, m->syms[i].nalts);
	}
	free(m->syms);
	for (size_t i = 0; i < m->nnodes; i++)
		free(m->nodes[i].path);
	free(m->nodes);
	free(m);
}

/* ---- choosing a model --------------------------------------------------------------------- */

/* "GenuineIntel,6,44,2" matches "GenuineIntel,6,44": vendor, family, model. */
static int cpuid_matches(const char *pat, const char *cpuid)
{
	size_t n = strlen(pat);
	return !strncasecmp(pat, cpuid, n) && (cpuid[n] == 0 || cpuid[n] == ',');
}

const char *td_default_dir(void)
{
	static char buf[PATH_MAX];
	struct stat st;
	const char *env = getenv("SONDE_TOPDOWN_DIR");
	if (env && *env)
		return env;
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 40);
	if (n > 0) {
		buf[n] = 0;
		char *s = strrchr(buf, '/');
		static const char *const rel[] = { "/../data/topdown", "/../share/sonde/topdown" };
		for (size_t i = 0; s && i < 2; i++) {
			strcpy(s, rel[i]);
			if (!stat(buf, &st) && S_ISDIR(st.st_mode))
				return buf;
		}
	}
	env = getenv("SONDE_TOP");
	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s/data/topdown", env);
		return buf;
	}
#ifdef SONDE_SOURCE_DATADIR
	/* a build outside the source tree (make B=DIR) still finds the tree's templates */
	if (!stat(SONDE_SOURCE_DATADIR "/topdown", &st) && S_ISDIR(st.st_mode))
		return SONDE_SOURCE_DATADIR "/topdown";
#endif
	return "data/topdown";
}

struct td_model *td_select(const char *dir, const char *arch, const char *cpuid, char *errbuf,
			   size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(errbuf, errlen, "no cycle-accounting data in '%s': %s", dir, strerror(errno));
		return NULL;
	}
	struct td_model *best = NULL, *generic = NULL;
	struct dirent *de;
	char path[PATH_MAX], err[256];
	while ((de = readdir(d)) && !best) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".txt") || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		int e;
		struct td_model *m = td_load(path, &e, err, sizeof(err));
		if (!m)
			continue;
		int hit = arch ? !strcasecmp(m->arch, arch) : 0;
		for (size_t i = 0; !arch && cpuid && i < m->ncpuids; i++)
			hit |= cpuid_matches(m->cpuids[i], cpuid);
		if (hit) {
			best = m;
		} else if (!strcmp(m->arch, "generic") && !generic) {
			generic = m;
		} else {
			td_free(m);
		}
	}
	closedir(d);
	if (best) {
		td_free(generic);
		return best;
	}
	if (arch) {
		td_free(generic);
		snprintf(errbuf, errlen, "no cycle-accounting data for arch '%s' in '%s'", arch, dir);
		return NULL;
	}
	if (!generic)
		snprintf(errbuf, errlen, "no cycle-accounting data for cpu '%s' in '%s'",
			 cpuid ? cpuid : "unknown", dir);
	return generic;
}

/* ---- binding and evaluation ---------------------------------------------------------------- */

/* Length of name without a perf modifier suffix (":u", ":ppp", ":uH"...). */
static size_t base_len(const char *name)
{
	const char *c = strrchr(name, ':');
	if (!c || !c[1])
		return strlen(name);
	for (const char *p = c + 1; *p; p++)
		if (!strchr("ukhHGpPSDIW", *p))
			return strlen(name);
	return (size_t)(c - name);
}

int td_event_matches(const struct an_event *e, const char *alt)
{
	const char *name = e->name ? e->name : "";
	if (alt[0] == 'r' && alt[1] && strspn(alt + 1, "0123456789abcdefABCDEF") == strlen(alt + 1))
		if (e->attr && e->attr->type == 4 && e->attr->config == strtoull(alt + 1, NULL, 16))
			return 1;
	/* "cpu/event/" as perf writes PMU-qualified names */
	if (!strncmp(name, "cpu/", 4)) {
		const char *end = strchr(name + 4, '/');
		if (end && (size_t)(end - name - 4) == strlen(alt) &&
		    !strncasecmp(name + 4, alt, strlen(alt)))
			return 1;
	}
	if (!strcasecmp(name, alt))
		return 1;
	size_t n = base_len(name);
	return n == strlen(alt) && !strncasecmp(name, alt, n);
}

static int sym_event(const struct td_symbol *s, const struct an_event *ev, size_t nev)
{
	for (size_t a = 0; a < s->nalts; a++)
		for (size_t e = 0; e < nev; e++)
			if (td_event_matches(&ev[e], s->alts[a]))
				return (int)e;
	return -1;
}

static void note_add(struct td_binding *b, const char *fmt, const char *a, const char *c)
{
	size_t l = strlen(b->note);
	if (l + 4 < sizeof(b->note))
		snprintf(b->note + l, sizeof(b->note) - l, fmt, a, c);
}

int td_bind(const struct td_model *m, const struct an_event *ev, size_t nev,
	    struct td_binding *b)
{
	memset(b, 0, sizeof(*b));
	b->m = m;
	b->ev = ev;
	b->nev = nev;
	b->sym_ev = malloc((m->nsyms ? m->nsyms : 1) * sizeof(int));
	b->live = calloc(m->nnodes ? m->nnodes : 1, 1);
	if (!b->sym_ev || !b->live)
		return -ENOMEM;
	for (size_t s = 0; s < m->nsyms; s++)
		b->sym_ev[s] = sym_event(&m->syms[s], ev, nev);
	b->cycles_ev = b->sym_ev[m->cycles_sym];
	if (b->cycles_ev < 0) {
		snprintf(b->note, sizeof(b->note), "no cycle accounting: the cycles event (%s) was "
			 "not recorded", m->syms[m->cycles_sym].alts[0]);
		return -ENOENT;
	}
	for (size_t i = 0; i < m->nnodes; i++)
		b->live[i] = 1;
	/* a node with an unrecorded event is dropped, and so is every sum that contains it */
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct td_node *n = &m->nodes[i];
		for (int t = 0; t < n->nterms; t++) {
			if (b->sym_ev[n->terms[t].sym] >= 0)
				continue;
			if (b->live[i])
				note_add(b, "%sdropped %s", b->note[0] ? "; " : "", n->path);
			note_add(b, " (%s%s not recorded)", m->syms[n->terms[t].sym].name, "");
			b->live[i] = 0;
		}
		if (b->live[i])
			continue;
		for (int p = n->parent; p >= 0 && !m->nodes[p].nterms; p = m->nodes[p].parent)
			b->live[p] = 0;
	}
	/* descendants of dropped nodes go too */
	for (size_t i = 0; i < m->nnodes; i++)
		if (m->nodes[i].parent >= 0 && !b->live[m->nodes[i].parent])
			b->live[i] = 0;
	return 0;
}

void td_binding_release(struct td_binding *b)
{
	free(b->sym_ev);
	free(b->live);
	b->sym_ev = NULL;
	b->live = NULL;
}

int64_t td_term_value(uint64_t s, double pen, double p_i, double m_i, double p_c, double m_c)
{
	long double den = (long double)p_c * m_c;
	if (den <= 0)
		return 0;
	long double v = (long double)s * pen * p_i * m_i / den;
	/*
	 * Truncate toward zero as GOoDA does, but not below an exact integer that rounding
	 * error put a hair under it (3 × 7 × 1000 / 1000 must give 21, not 20).
	 */
	long double eps = 1e-9L * (fabsl(v) > 1 ? fabsl(v) : 1);
	return (int64_t)(v >= 0 ? floorl(v + eps) : -floorl(-v + eps));
}

static double ev_period(const struct an_event *e)
{
	return e->period ? (double)e->period : 1.0;
}

void td_eval(const struct td_binding *b, const uint64_t *samples, int64_t *out, int64_t *cycles)
{
	const struct td_model *m = b->m;
	*cycles = 0;
	if (b->cycles_ev < 0) {
		memset(out, 0, m->nnodes * sizeof(*out));
		return;
	}
	const struct an_event *c = &b->ev[b->cycles_ev];
	double pc = ev_period(c), mc = c->mplex > 0 ? c->mplex : 1;
	*cycles = (int64_t)samples[b->cycles_ev];
	for (size_t i = 0; i < m->nnodes; i++)
		out[i] = 0;
	/* children come after parents: evaluate backwards so sums see their children */
	for (size_t k = m->nnodes; k-- > 0;) {
		const struct td_node *n = &m->nodes[k];
		if (!b->live[k])
			continue;
		if (n->nterms) {
			int64_t v = 0;
			for (int t = 0; t < n->nterms; t++) {
				int e = b->sym_ev[n->terms[t].sym];
				const struct an_event *x = &b->ev[e];
				v += td_term_value(samples[e], n->terms[t].penalty, ev_period(x),
						   x->mplex > 0 ? x->mplex : 1, pc, mc);
			}
			out[k] = v;
		}
		if (n->parent >= 0 && !m->nodes[n->parent].nterms)
			out[n->parent] += out[k];
	}
}
