/* SPDX-License-Identifier: MIT */
/* analyze-view.c - terminal views of `sonde analyze` (see analyze-view.h). */
#include "lib/analyze-view.h"

#include <stdlib.h>
#include <string.h>

#include "lib/analyze-viewint.h"

static void text_cpus(FILE *out, const struct av_ctx *c);

double av_share(const struct av_ctx *c, const struct an_row *r)
{
	const struct an_event *e = &c->an->ev[c->ev];
	return e->period_sum ? 100.0 * (double)r->periods[c->ev] / (double)e->period_sum : 0.0;
}

int av_has_td(const struct av_ctx *c)
{
	return c->td && c->td->cycles_ev >= 0;
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

static void text_head_row(FILE *out, const struct av_ctx *c, const char *what)
{
	fprintf(out, "%7s %9s", "share", "samples");
	if (av_has_td(c)) {
		fprintf(out, " %10s", "cycles");
		for (size_t i = 0; i < c->td->m->nnodes; i++)
			if (av_column(c, i))
				fprintf(out, " %*.*s", AV_COLW, AV_COLW, c->td->m->nodes[i].name);
	}
	fprintf(out, "  %s\n", what);
}

static void text_td_cells(FILE *out, const struct av_ctx *c, const struct an_row *r)
{
	if (!av_has_td(c))
		return;
	int64_t vals[AV_MAX_NODES], cyc;
	av_eval(c, r->samples, vals, &cyc);
	fprintf(out, " %10lld", (long long)cyc);
	for (size_t i = 0; i < c->td->m->nnodes && i < AV_MAX_NODES; i++) {
		if (!av_column(c, i))
			continue;
		if (c->cycles)
			fprintf(out, " %*lld", AV_COLW, (long long)vals[i]);
		else if (cyc)
			fprintf(out, " %*.1f%%", AV_COLW - 1, 100.0 * (double)vals[i] / (double)cyc);
		else
			fprintf(out, " %*s", AV_COLW, "-");
	}
}

static void text_rows(FILE *out, const struct av_ctx *c, const struct an_row *rows, size_t n,
		      int kind)
{
	int *o = analysis_order(rows, n, c->ev);
	if (!o)
		return;
	size_t top = c->top > 0 ? (size_t)c->top : 20;
	for (size_t k = 0; k < n && k < top; k++) {
		const struct an_row *r = &rows[o[k]];
		if (!r->samples[c->ev])
			break;
		fprintf(out, "%6.2f%% %9llu", av_share(c, r), (unsigned long long)r->samples[c->ev]);
		text_td_cells(out, c, r);
		if (kind == 0)
			fprintf(out, "  %s\n", r->name);
		else if (kind == 1)
			fprintf(out, "  %s  [%s]\n", r->name, c->an->procs[r->proc].name);
		else
			fprintf(out, "  %s  %s  [%s]\n", r->name, av_basename(c->an->mods[r->mod].name),
				c->an->procs[r->proc].name);
	}
	free(o);
}

const char *av_basename(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void text_header(FILE *out, const struct av_ctx *c)
{
	const struct analysis *an = c->an;
	const struct pd_features *f = perfdata_features(c->pd);
	fprintf(out, "# %s: %s mode, %llu samples", c->input,
		perfdata_is_pipe(c->pd) ? "pipe" : "file", (unsigned long long)an->nsamples);
	if (an->lost)
		fprintf(out, ", %llu events lost", (unsigned long long)an->lost);
	if (an->unknown_id)
		fprintf(out, ", %llu samples of unknown events", (unsigned long long)an->unknown_id);
	fprintf(out, "\n");
	if (f->cpuid || f->cpudesc)
		fprintf(out, "# cpu: %s (%s)\n", f->cpudesc ? f->cpudesc : "?", f->cpuid ? f->cpuid : "?");
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
	if (c->td && c->td->note[0])
		fprintf(out, "# note: %s\n", c->td->note);
	if (c->td_note)
		fprintf(out, "# note: %s\n", c->td_note);
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
	text_header(out, c);
	fprintf(out, "\nHot processes\n");
	text_head_row(out, c, "process");
	text_rows(out, c, an->procs, an->nprocs, 0);
	fprintf(out, "\nHot modules\n");
	text_head_row(out, c, "module  [process]");
	text_rows(out, c, an->mods, an->nmods, 1);
	fprintf(out, "\nHot functions\n");
	text_head_row(out, c, "function  module  [process]");
	text_rows(out, c, an->funcs, an->nfuncs, 2);
}

static void insn_line(FILE *out, const struct av_ctx *c, const struct an_insn *x)
{
	fprintf(out, "  %9llu  %12llx  %-40s", (unsigned long long)x->samples[c->ev],
		(unsigned long long)x->addr, x->text);
	if (x->nframes) {
		const struct asym_frame *p = &x->frames[x->nframes - 1];
		fprintf(out, "  %s:%d", p->file ? av_basename(p->file) : "?", p->line);
		if (x->nframes > 1)
			fprintf(out, "  (inlined %s %s:%d)",
				x->frames[0].function ? x->frames[0].function : "?",
				x->frames[0].file ? av_basename(x->frames[0].file) : "?",
				x->frames[0].line);
	}
	fputc('\n', out);
}

void av_text_function(FILE *out, const struct av_ctx *c, const struct an_func_view *v)
{
	const struct analysis *an = c->an;
	const struct an_row *f = &an->funcs[v->func];
	fprintf(out, "\nFunction %s  (%s, 0x%llx, %llu bytes): %llu samples of %s, %.2f%%\n",
		f->name, an->mods[f->mod].name, (unsigned long long)f->start,
		(unsigned long long)f->size, (unsigned long long)f->samples[c->ev],
		an->ev[c->ev].name, av_share(c, f));
	fprintf(out, "\nBasic blocks and instructions (samples of %s)\n", an->ev[c->ev].name);
	for (size_t b = 0; b < v->nbbs; b++) {
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
		for (int i = bb->first; i < bb->first + bb->ninsns; i++)
			insn_line(out, c, &v->insns[i]);
	}
	fprintf(out, "\nSource lines (samples of %s)\n", an->ev[c->ev].name);
	for (size_t i = 0; i < v->nlines; i++) {
		const struct an_line *l = &v->lines[i];
		fprintf(out, "  %9llu  %s:%d", (unsigned long long)l->samples[c->ev],
			l->file ? l->file : "?", l->line);
		if (l->inlined)
			fprintf(out, "  (inlined %s, called at line %d)", l->inlined, l->principal);
		fputc('\n', out);
	}
}
