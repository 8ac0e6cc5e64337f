/* SPDX-License-Identifier: MIT */
/* analyze-view.c - terminal views of `sonde analyze` (see analyze-view.h). */
#include "analyze/view.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/view-int.h"
#include "ui/text.h"

static void text_cpus(FILE *out, const struct av_ctx *c);

double av_share(const struct av_ctx *c, const struct an_row *r)
{
	const struct an_event *e = &c->an->ev[c->ev];
	return e->period_sum ? 100.0 * (double)r->periods[c->ev] / (double)e->period_sum : 0.0;
}

/* A template too big for the views' fixed arrays shows no accounting rather than overflow. */
int av_has_td(const struct av_ctx *c)
{
	return c->td && c->td->cycles_ev >= 0 && c->td->m->nnodes <= AV_MAX_NODES;
}

/* The accounting nodes shown as columns: live and no deeper than --depth. */
int av_column(const struct av_ctx *c, size_t node)
{
	return av_has_td(c) && c->td->live[node] &&
	       c->td->m->nodes[node].depth <= (c->depth > 0 ? c->depth : 1);
}

void av_eval(const struct av_ctx *c, const uint64_t *samples, int64_t *vals, int64_t *cycles)
{
	if (av_has_td(c))
		td_eval(c->td, samples, vals, cycles);
	else
		*cycles = 0;
}

const char *av_basename(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* ---- column labels ------------------------------------------------------------------------ */

/* Word abbreviations for labels: the vocabulary of the templates in data/topdown. */
static const char *const abbrev[][2] = {
	{ "instruction", "ins" }, { "latency", "lat" }, { "starvation", "starv" },
	{ "saturation", "sat" }, { "bandwidth", "bw" }, { "branch", "br" },
	{ "misprediction", "misp" }, { "mispredicts", "misp" }, { "resource", "res" },
	{ "store", "st" }, { "exception", "exc" }, { "handling", "hdl" }, { "snoop", "snp" },
	{ "cycles", "cyc" }, { "speculation", "spec" }, { "operations", "ops" },
	{ "contention", "cont" }, { "memory", "mem" }, { "machine", "mach" },
	{ "pipeline", "pipe" }, { "restarts", "rst" }, { "completed", "done" },
	{ "remote", "rem" }, { "local", "loc" }, { "unshared", "unsh" }, { "other", "oth" },
	{ "frontend", "fe" }, { "backend", "be" }, { "and", "" },
};

static const char *word_abbrev(const char *w, size_t len, size_t *alen)
{
	for (size_t k = 0; k < sizeof(abbrev) / sizeof(abbrev[0]); k++)
		if (strlen(abbrev[k][0]) == len && !strncmp(w, abbrev[k][0], len)) {
			*alen = strlen(abbrev[k][1]);
			return abbrev[k][1];
		}
	*alen = len;
	return w;
}

/* One branch name, words abbreviated, cut at a word boundary to AV_LEAFMAX characters. */
static void leaf_label(const char *name, char *out)
{
	size_t n = 0;
	for (const char *w = name; *w;) {
		size_t len = strcspn(w, "_"), alen;
		const char *a = word_abbrev(w, len, &alen);
		w += len + (w[len] == '_');
		if (!alen)
			continue;
		if (n && n + 1 + alen > AV_LEAFMAX)
			break;
		if (n)
			out[n++] = '_';
		if (alen > AV_LEAFMAX - n)
			alen = AV_LEAFMAX - n;
		memcpy(out + n, a, alen);
		n += alen;
	}
	out[n] = 0;
}

/* The leaf labels of node i and of its `up` nearest ancestors, outermost first, by '/'. */
static void path_label(const struct td_model *m, int i, int up, char *out)
{
	char leaf[AV_LABW], tmp[2 * AV_LABW];
	leaf_label(m->nodes[i].name, out);
	for (int p = m->nodes[i].parent; up-- > 0 && p >= 0; p = m->nodes[p].parent) {
		leaf_label(m->nodes[p].name, leaf);
		snprintf(tmp, sizeof(tmp), "%s/%s", leaf, out);
		tmp[AV_LABW - 1] = 0;	/* cut: the numbering in av_labels keeps it unique */
		memcpy(out, tmp, AV_LABW);
	}
}

/* Mark the labels that another node has too; 0 if all differ. */
static int find_dups(char (*lab)[AV_LABW], size_t n, char *dup)
{
	int any = 0;
	memset(dup, 0, n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(lab[i], lab[j]))
				dup[i] = dup[j] = any = 1;
	return any;
}

void av_labels(const struct td_model *m, char (*lab)[AV_LABW])
{
	size_t n = m->nnodes < AV_MAX_NODES ? m->nnodes : AV_MAX_NODES;
	int up[AV_MAX_NODES] = { 0 };
	char dup[AV_MAX_NODES];
	for (size_t i = 0; i < n; i++)
		path_label(m, (int)i, 0, lab[i]);
	while (find_dups(lab, n, dup)) {
		int grew = 0;
		for (size_t i = 0; i < n; i++)
			if (dup[i] && up[i] < m->nodes[i].depth - 1) {
				path_label(m, (int)i, ++up[i], lab[i]);
				grew = 1;
			}
		if (!grew)
			break;
	}
	/* still equal (cut short, or an abbreviation met a real name): number the later ones */
	for (size_t j = 1; j < n; j++)
		for (size_t i = 0; i < j; i++)
			if (!strcmp(lab[i], lab[j])) {
				size_t len = strlen(lab[j]);
				char num[12];
				int k = snprintf(num, sizeof(num), "~%zu", j);
				if (len + (size_t)k >= AV_LABW)
					len = AV_LABW - 1 - (size_t)k;
				memcpy(lab[j] + len, num, (size_t)k + 1);
				break;
			}
}

void av_cols_init(const struct av_ctx *c, struct av_cols *cols)
{
	char lab[AV_MAX_NODES][AV_LABW];
	cols->n = 0;
	if (!av_has_td(c))
		return;
	av_labels(c->td->m, lab);
	for (size_t i = 0; i < c->td->m->nnodes; i++) {
		if (!av_column(c, i))
			continue;
		size_t k = cols->n++;
		int w = (int)strlen(lab[i]), min = c->cycles ? 9 : 7;
		cols->node[k] = (int)i;
		cols->width[k] = w > min ? w : min;
		memcpy(cols->label[k], lab[i], AV_LABW);
	}
}

/* "# columns: load_lat = stalled/load_latency, ...": the labels that are not the branch name. */
static void text_legend(FILE *out, const struct av_ctx *c, const struct av_cols *cols)
{
	int any = 0;
	for (size_t k = 0; k < cols->n; k++) {
		const struct td_node *nd = &c->td->m->nodes[cols->node[k]];
		if (strcmp(cols->label[k], nd->name))
			fprintf(out, "%s%s = %s", any++ ? ", " : "# columns: ", cols->label[k],
				nd->path);
	}
	if (any)
		fputc('\n', out);
}

/* ---- tables ------------------------------------------------------------------------------- */

static void text_td_head(FILE *out, const struct av_ctx *c, const struct av_cols *cols)
{
	if (!av_has_td(c))
		return;
	fprintf(out, " %10s", "cycles");
	for (size_t k = 0; k < cols->n; k++)
		fprintf(out, " %*s", cols->width[k], cols->label[k]);
}

/* Cycles and the accounting columns of a row with samples[nev]; nothing without accounting. */
static void text_td_cells(FILE *out, const struct av_ctx *c, const struct av_cols *cols,
			  const uint64_t *samples)
{
	if (!av_has_td(c))
		return;
	int64_t vals[AV_MAX_NODES], cyc;
	av_eval(c, samples, vals, &cyc);
	fprintf(out, " %10lld", (long long)cyc);
	for (size_t k = 0; k < cols->n; k++) {
		int w = cols->width[k];
		int64_t v = vals[cols->node[k]];
		if (c->cycles)
			fprintf(out, " %*lld", w, (long long)v);
		else if (cyc)
			fprintf(out, " %*.1f%%", w - 1, 100.0 * (double)v / (double)cyc);
		else
			fprintf(out, " %*s", w, "-");
	}
}

static void text_head_row(FILE *out, const struct av_ctx *c, const struct av_cols *cols,
			  const char *what)
{
	fprintf(out, "%7s %9s", "share", "samples");
	text_td_head(out, c, cols);
	fprintf(out, "  %s\n", what);
}

/* The name columns of row r: the process, module or function (shortened), its module's
 * base name, its process's name. */
static void row_names(const struct av_ctx *c, const struct an_row *r, int kind, char *name,
		      size_t len, const char **mod, const char **proc)
{
	*mod = kind == 2 ? av_basename(c->an->mods[r->mod].name) : NULL;
	*proc = kind ? c->an->procs[r->proc].name : NULL;
	if (kind == 1)	/* the full path is in modules.csv */
		snprintf(name, len, "%s", av_basename(r->name));
	else if (kind == 2) {	/* functions.csv has it whole */
		char b[1024];	/* the name itself when short, else b */
		snprintf(name, len, "%s", text_short_name(r->name, TEXT_NAME_MAX, b, sizeof(b)));
	}
	else
		snprintf(name, len, "%s", r->name);
}

/* The head row and the rows shown, the name columns padded to the widest (they ran
 * unaligned under their heads: the usability review of 2026-11-28). */
static void text_rows(FILE *out, const struct av_ctx *c, const struct av_cols *cols,
		      const struct an_row *rows, size_t n, int kind)
{
	static const char *const first[] = { "process", "module", "function" };
	int *o = analysis_order(rows, n, c->ev);
	if (!o)
		return;
	size_t top = c->top > 0 ? (size_t)c->top : 20, shown = 0;
	char name[1024], head[256];
	const char *mod, *proc;
	int w1 = (int)strlen(first[kind]), w2 = (int)strlen("module");
	for (size_t k = 0; k < n && k < top && rows[o[k]].samples[c->ev]; k++, shown++) {
		row_names(c, &rows[o[k]], kind, name, sizeof(name), &mod, &proc);
		w1 = (int)strlen(name) > w1 ? (int)strlen(name) : w1;
		w2 = mod && (int)strlen(mod) > w2 ? (int)strlen(mod) : w2;
	}
	w1 = w1 > 120 ? 120 : w1;
	w2 = w2 > 60 ? 60 : w2;
	if (kind == 0)
		snprintf(head, sizeof(head), "process");
	else if (kind == 1)
		snprintf(head, sizeof(head), "%-*s  [process]", w1, "module");
	else
		snprintf(head, sizeof(head), "%-*s  %-*s  [process]", w1, "function", w2, "module");
	text_head_row(out, c, cols, head);
	for (size_t k = 0; k < shown; k++) {
		const struct an_row *r = &rows[o[k]];
		fprintf(out, "%6.2f%% %9llu", av_share(c, r), (unsigned long long)r->samples[c->ev]);
		text_td_cells(out, c, cols, r->samples);
		row_names(c, r, kind, name, sizeof(name), &mod, &proc);
		if (kind == 0)
			fprintf(out, "  %s\n", name);
		else if (kind == 1)
			fprintf(out, "  %-*s  [%s]\n", w1, name, proc);
		else
			fprintf(out, "  %-*s  %-*s  [%s]\n", w1, name, w2, mod, proc);
	}
	free(o);
}

/* The CPU: its description (perf's cpudesc) and CPUID string, each when recorded. */
static void text_cpu(FILE *out, const struct pd_features *f)
{
	fprintf(out, "# cpu: %s", f->cpudesc ? f->cpudesc : "not recorded");
	if (f->cpuid)
		fprintf(out, " (cpuid %s)", f->cpuid);
	fputc('\n', out);
}

static void text_header(FILE *out, const struct av_ctx *c, const struct av_cols *cols)
{
	const struct analysis *an = c->an;
	fprintf(out, "# %s: %s mode, %llu samples", c->input,
		perfdata_is_pipe(c->pd) ? "pipe" : "file", (unsigned long long)an->nsamples);
	if (an->lost)
		fprintf(out, ", %llu events lost", (unsigned long long)an->lost);
	if (an->unknown_id)
		fprintf(out, ", %llu samples of unknown events", (unsigned long long)an->unknown_id);
	fprintf(out, "\n");
	text_cpu(out, perfdata_features(c->pd));
	for (size_t e = 0; e < an->nev; e++) {
		const struct an_event *ev = &an->ev[e];
		if (!ev->samples)
			continue;
		fprintf(out, "# event %s: %llu samples, period %s%llu, multiplex %.3f%s\n", ev->name,
			(unsigned long long)ev->samples, ev->freq ? "~" : "",
			(unsigned long long)ev->period, ev->mplex,
			ev->has_mplex ? "" : " (no enabled/running times recorded)");
	}
	if (av_has_td(c))
		fprintf(out, "# cycle accounting: %s; cycles in %s samples (x %llu x %.3f = cycles)%s\n",
			c->td->m->title ? c->td->m->title : c->td->m->arch,
			an->ev[c->td->cycles_ev].name,
			(unsigned long long)an->ev[c->td->cycles_ev].period,
			an->ev[c->td->cycles_ev].mplex, c->cycles ? "" : "; branches in % of cycles");
	if (av_has_td(c))
		text_legend(out, c, cols);
	if (c->td && c->td->note[0])
		fprintf(out, "# note: %s\n", c->td->note);
	if (c->td_note)
		fprintf(out, "# note: %s\n", c->td_note);
	/* modules with samples whose file could not be read: their functions read [unknown]
	 * (a path recorded as /proc/self/cwd/prog, read from another directory, named every
	 * function [unknown] and said nothing: the usability review of 2026-11-27) */
	int unread = 0;
	for (size_t i = 0; i < an->nmods; i++) {
		const struct an_row *m = &an->mods[i];
		if (m->file || !m->name || m->name[0] != '/' || !m->samples[c->ev])
			continue;
		if (unread++ < 3)
			fprintf(out, "# note: cannot read %s: its functions read [unknown] (run sonde "
				     "analyze where that path resolves, e.g. in the directory the "
				     "program was recorded in)\n", m->name);
	}
	if (unread > 3)
		fprintf(out, "# note: %d more modules could not be read\n", unread - 3);
	text_cpus(out, c);
	fprintf(out, "# rows sorted by %s (share = of its total period)\n", an->ev[c->ev].name);
}

/* Samples of the sort event per CPU, on one line (the first 16 CPUs that have some). */
static void text_cpus(FILE *out, const struct av_ctx *c)
{
	const struct analysis *an = c->an;
	uint64_t total = an->ev[c->ev].samples;
	size_t shown = 0, more = 0;
	for (size_t cpu = 0; cpu < an->ncpus; cpu++) {
		uint64_t n = an->cpu_samples[cpu * an->nev + c->ev];
		if (!n)
			continue;
		if (shown == 16) {
			more++;
			continue;
		}
		if (!shown++)
			fprintf(out, "# %s samples per cpu:", an->ev[c->ev].name);
		fprintf(out, " cpu%zu %llu (%.1f%%)", cpu, (unsigned long long)n,
			total ? 100.0 * (double)n / (double)total : 0.0);
	}
	if (more)
		fprintf(out, " and %zu more cpus (cpus.csv in -o)", more);
	if (shown)
		fputc('\n', out);
}

void av_text_summary(FILE *out, const struct av_ctx *c)
{
	const struct analysis *an = c->an;
	struct av_cols cols;
	av_cols_init(c, &cols);
	text_header(out, c, &cols);
	fprintf(out, "\nHot processes\n");
	text_rows(out, c, &cols, an->procs, an->nprocs, 0);
	fprintf(out, "\nHot modules\n");
	text_rows(out, c, &cols, an->mods, an->nmods, 1);
	fprintf(out, "\nHot functions\n");
	text_rows(out, c, &cols, an->funcs, an->nfuncs, 2);
}

/* ---- one function --------------------------------------------------------------------------- */

static void insn_line(FILE *out, const struct av_ctx *c, const struct av_cols *cols,
		      const struct an_insn *x)
{
	fprintf(out, "  %9llu", (unsigned long long)x->samples[c->ev]);
	text_td_cells(out, c, cols, x->samples);
	fprintf(out, "  %12llx  %-40s", (unsigned long long)x->addr, x->text);
	if (x->nframes) {
		const struct sym_frame *p = &x->frames[x->nframes - 1];
		fprintf(out, "  %s:%d", p->file ? av_basename(p->file) : "?", p->line);
		if (x->nframes > 1)
			fprintf(out, "  (inlined %s %s:%d)",
				x->frames[0].function ? x->frames[0].function : "?",
				x->frames[0].file ? av_basename(x->frames[0].file) : "?",
				x->frames[0].line);
	}
	fputc('\n', out);
}

static int any_samples(const struct av_ctx *c, const uint64_t *samples)
{
	for (size_t e = 0; e < c->an->nev; e++)
		if (samples[e])
			return 1;
	return 0;
}

/*
 * A block: its header line, then (with accounting, when it has samples) its totals in the
 * instructions' columns, because a block is the unit to read through skid.
 */
static void bb_lines(FILE *out, const struct av_ctx *c, const struct av_cols *cols,
		     const struct an_func_view *v, size_t b)
{
	const struct an_bb *bb = &v->bbs[b];
	fprintf(out, "BB %zu  [%llx, %llx)  %llu samples  ->", b, (unsigned long long)bb->start,
		(unsigned long long)bb->end, (unsigned long long)bb->samples[c->ev]);
	for (int s = 0; s < 2; s++)
		if (bb->succ[s] >= 0)
			fprintf(out, " BB %d", bb->succ[s]);
	if (av_has_td(c)) {
		int64_t vals[AV_MAX_NODES], cyc;
		av_eval(c, bb->samples, vals, &cyc);
		fprintf(out, "  cycles %lld", (long long)cyc);
	}
	fputc('\n', out);
	if (av_has_td(c) && any_samples(c, bb->samples)) {
		fprintf(out, "  %9llu", (unsigned long long)bb->samples[c->ev]);
		text_td_cells(out, c, cols, bb->samples);
		fprintf(out, "  %12s  (block %zu)\n", "", b);
	}
	for (int i = bb->first; i < bb->first + bb->ninsns; i++)
		insn_line(out, c, cols, &v->insns[i]);
}

static void text_src_lines(FILE *out, const struct av_ctx *c, const struct av_cols *cols,
			   const struct an_func_view *v)
{
	fprintf(out, "\nSource lines (samples of %s)\n", c->an->ev[c->ev].name);
	if (av_has_td(c)) {
		fprintf(out, "  %9s", "samples");
		text_td_head(out, c, cols);
		fprintf(out, "  %s\n", "line");
	}
	for (size_t i = 0; i < v->nlines; i++) {
		const struct an_line *l = &v->lines[i];
		fprintf(out, "  %9llu", (unsigned long long)l->samples[c->ev]);
		text_td_cells(out, c, cols, l->samples);
		fprintf(out, "  %s:%d", l->file ? l->file : "?", l->line);
		if (l->inlined)
			fprintf(out, "  (inlined %s, called at line %d)", l->inlined, l->principal);
		fputc('\n', out);
	}
}

void av_text_function(FILE *out, const struct av_ctx *c, const struct an_func_view *v)
{
	const struct analysis *an = c->an;
	const struct an_row *f = &an->funcs[v->func];
	struct av_cols cols;
	av_cols_init(c, &cols);
	fprintf(out, "\nFunction %s  (%s, 0x%llx, %llu bytes): %llu samples of %s, %.2f%%\n",
		f->name, an->mods[f->mod].name, (unsigned long long)f->start,
		(unsigned long long)f->size, (unsigned long long)f->samples[c->ev],
		an->ev[c->ev].name, av_share(c, f));
	if (av_has_td(c)) {
		fprintf(out, "# cycles in %s samples%s\n", an->ev[c->td->cycles_ev].name,
			c->cycles ? "" : "; branches in % of the row's cycles");
		text_legend(out, c, &cols);
	}
	fprintf(out, "\nBasic blocks and instructions (samples of %s)\n", an->ev[c->ev].name);
	if (av_has_td(c)) {
		fprintf(out, "  %9s", "samples");
		text_td_head(out, c, &cols);
		fprintf(out, "  %12s  %-40s  %s\n", "address", "instruction", "line");
	}
	for (size_t b = 0; b < v->nbbs; b++)
		bb_lines(out, c, &cols, v, b);
	text_src_lines(out, c, &cols, v);
}
