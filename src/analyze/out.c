/* SPDX-License-Identifier: MIT */
/*
 * out.c - `sonde analyze -o DIR`: CSV tables, summary.json and index.html (one
 * self-contained page on ui/html.h: the JSON embedded, tables rendered and sorted by inline
 * script).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/cfg.h"
#include "analyze/view.h"
#include "analyze/view-int.h"
#include "ui/csv.h"
#include "ui/html.h"
#include "ui/json.h"

/* ---- CSV ----------------------------------------------------------------------------------- */

static void csv_samples_head(FILE *f, const struct av_ctx *c)
{
	for (size_t e = 0; e < c->an->nev; e++) {
		fputs(",samples:", f);
		csv_field(f, c->an->ev[e].name);
	}
}

/* ",cycles,<path>..." for every live branch (all depths): nothing without accounting. */
static void csv_td_head(FILE *f, const struct av_ctx *c)
{
	if (!av_has_td(c))
		return;
	fputs(",cycles", f);
	for (size_t i = 0; i < c->td->m->nnodes; i++)
		if (c->td->live[i])
			fprintf(f, ",%s", c->td->m->nodes[i].path);
}

static void csv_samples(FILE *f, const struct av_ctx *c, const uint64_t *samples)
{
	for (size_t e = 0; e < c->an->nev; e++)
		fprintf(f, ",%llu", (unsigned long long)samples[e]);
}

/* The row's cycles and branches, in cycle-event samples (as functions.csv). */
static void csv_td(FILE *f, const struct av_ctx *c, const uint64_t *samples)
{
	if (!av_has_td(c))
		return;
	int64_t vals[AV_MAX_NODES], cyc;
	av_eval(c, samples, vals, &cyc);
	fprintf(f, ",%lld", (long long)cyc);
	for (size_t i = 0; i < c->td->m->nnodes; i++)
		if (c->td->live[i])
			fprintf(f, ",%lld", (long long)vals[i]);
}

static void csv_counts_head(FILE *f, const struct av_ctx *c)
{
	csv_samples_head(f, c);
	fputs(",share", f);
	csv_td_head(f, c);
}

static void csv_counts(FILE *f, const struct av_ctx *c, const struct an_row *r)
{
	csv_samples(f, c, r->samples);
	fprintf(f, ",%.4f", av_share(c, r));
	csv_td(f, c, r->samples);
}

static FILE *open_in(const char *dir, const char *name, char *err, size_t errlen)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (!f)
		snprintf(err, errlen, "cannot write '%s': %s", p, strerror(errno));
	return f;
}

static int close_ok(FILE *f, int ok)
{
	if (fclose(f))
		ok = 0;
	return ok ? 0 : -EIO;
}

static int write_rows_csv(const struct av_ctx *c, const char *dir, const char *name, int kind,
			  char *err, size_t errlen)
{
	const struct analysis *an = c->an;
	const struct an_row *rows = kind == 0 ? an->procs : kind == 1 ? an->mods : an->funcs;
	size_t n = kind == 0 ? an->nprocs : kind == 1 ? an->nmods : an->nfuncs;
	FILE *f = open_in(dir, name, err, errlen);
	int *o = f ? analysis_order(rows, n, c->ev) : NULL;
	if (!f || !o) {
		if (f)
			fclose(f);
		free(o);
		return -EIO;
	}
	fputs(kind == 0 ? "rank,process" : kind == 1 ? "rank,module,process" :
	      "rank,function,module,process,start,size", f);
	csv_counts_head(f, c);
	fputc('\n', f);
	for (size_t k = 0; k < n; k++) {
		const struct an_row *r = &rows[o[k]];
		fprintf(f, "%zu,", k + 1);
		csv_field(f, r->name);
		if (kind == 2) {
			fputc(',', f);
			csv_field(f, an->mods[r->mod].name);
		}
		if (kind >= 1) {
			fputc(',', f);
			csv_field(f, an->procs[r->proc].name);
		}
		if (kind == 2)
			fprintf(f, ",0x%llx,%llu", (unsigned long long)r->start,
				(unsigned long long)r->size);
		csv_counts(f, c, r);
		fputc('\n', f);
	}
	free(o);
	return close_ok(f, !ferror(f));
}

static int write_callgraph(const struct av_ctx *c, const char *dir, char *err, size_t errlen)
{
	FILE *f = open_in(dir, "callgraph.csv", err, errlen);
	if (!f)
		return -EIO;
	fputs("caller,callee,count,source\n", f);
	for (size_t i = 0; i < c->an->nedges; i++) {
		const struct an_edge *e = &c->an->edges[i];
		csv_field(f, c->an->funcs[e->caller].name);
		fputc(',', f);
		csv_field(f, c->an->funcs[e->callee].name);
		fprintf(f, ",%llu,%s\n", (unsigned long long)e->count, e->lbr ? "lbr" : "callchain");
	}
	return close_ok(f, !ferror(f));
}

static void csv_events_head(FILE *f, const struct av_ctx *c)
{
	for (size_t e = 0; e < c->an->nev; e++) {
		fputs(",samples:", f);
		csv_field(f, c->an->ev[e].name);
	}
	fputc('\n', f);
}

/* cpus.csv: samples per CPU and event, for CPUs with samples. */
static int write_cpus(const struct av_ctx *c, const char *dir, char *err, size_t errlen)
{
	const struct analysis *an = c->an;
	FILE *f = open_in(dir, "cpus.csv", err, errlen);
	if (!f)
		return -EIO;
	fputs("cpu", f);
	csv_events_head(f, c);
	for (size_t cpu = 0; cpu < an->ncpus; cpu++) {
		uint64_t any = 0;
		for (size_t e = 0; e < an->nev; e++)
			any |= an->cpu_samples[cpu * an->nev + e];
		if (!any)
			continue;
		fprintf(f, "%zu", cpu);
		for (size_t e = 0; e < an->nev; e++)
			fprintf(f, ",%llu", (unsigned long long)an->cpu_samples[cpu * an->nev + e]);
		fputc('\n', f);
	}
	return close_ok(f, !ferror(f));
}

/* functions-cpu.csv: each function's samples per CPU, functions in rank order. */
static int write_func_cpus(const struct av_ctx *c, const char *dir, char *err, size_t errlen)
{
	const struct analysis *an = c->an;
	FILE *f = open_in(dir, "functions-cpu.csv", err, errlen);
	int *o = f ? analysis_order(an->funcs, an->nfuncs, c->ev) : NULL;
	uint64_t *row = f ? calloc(an->nev ? an->nev : 1, sizeof(*row)) : NULL;
	int ok = o && row;
	if (f) {
		fputs("rank,function,module,process,cpu", f);
		csv_events_head(f, c);
	}
	for (size_t k = 0; ok && k < an->nfuncs; k++) {
		const struct an_row *r = &an->funcs[o[k]];
		size_t i, n = analysis_cpus_of(an->func_cpus, an->nfunc_cpus, o[k], &i);
		for (size_t end = i + n; i < end;) {
			uint32_t cpu = an->func_cpus[i].cpu;
			memset(row, 0, an->nev * sizeof(*row));
			for (; i < end && an->func_cpus[i].cpu == cpu; i++)
				row[an->func_cpus[i].ev] = an->func_cpus[i].samples;
			fprintf(f, "%zu,", k + 1);
			csv_field(f, r->name);
			fputc(',', f);
			csv_field(f, an->mods[r->mod].name);
			fputc(',', f);
			csv_field(f, an->procs[r->proc].name);
			fprintf(f, ",%u", cpu);
			for (size_t e = 0; e < an->nev; e++)
				fprintf(f, ",%llu", (unsigned long long)row[e]);
			fputc('\n', f);
		}
	}
	free(o);
	free(row);
	if (!f)
		return -EIO;
	return close_ok(f, ok && !ferror(f));
}

static void asm_csv(FILE *f, const struct av_ctx *c, const struct an_func_view *v)
{
	fputs("bb,address", f);
	csv_samples_head(f, c);
	csv_td_head(f, c);
	fputs(",instruction,file,line,inlined_function,inlined_file,inlined_line\n", f);
	for (size_t i = 0; i < v->ninsns; i++) {
		const struct an_insn *x = &v->insns[i];
		fprintf(f, "%d,0x%llx", x->bb, (unsigned long long)x->addr);
		csv_samples(f, c, x->samples);
		csv_td(f, c, x->samples);
		fputc(',', f);
		csv_field(f, x->text);
		const struct sym_frame *p = x->nframes ? &x->frames[x->nframes - 1] : NULL;
		fputc(',', f);
		csv_field(f, p ? p->file : "");
		fprintf(f, ",%d,", p ? p->line : 0);
		csv_field(f, x->nframes > 1 ? x->frames[0].function : "");
		fputc(',', f);
		csv_field(f, x->nframes > 1 ? x->frames[0].file : "");
		fprintf(f, ",%d\n", x->nframes > 1 ? x->frames[0].line : 0);
	}
}

/* functions/N.bb.csv: the basic blocks, their successors ("2 3"), samples and accounting. */
static void bb_csv(FILE *f, const struct av_ctx *c, const struct an_func_view *v)
{
	fputs("bb,start,end,successors", f);
	csv_samples_head(f, c);
	csv_td_head(f, c);
	fputc('\n', f);
	for (size_t b = 0; b < v->nbbs; b++) {
		const struct an_bb *bb = &v->bbs[b];
		fprintf(f, "%zu,0x%llx,0x%llx,", b, (unsigned long long)bb->start,
			(unsigned long long)bb->end);
		if (bb->succ[0] >= 0)
			fprintf(f, "%d", bb->succ[0]);
		if (bb->succ[1] >= 0)
			fprintf(f, "%s%d", bb->succ[0] >= 0 ? " " : "", bb->succ[1]);
		csv_samples(f, c, bb->samples);
		csv_td(f, c, bb->samples);
		fputc('\n', f);
	}
}

static void src_csv(FILE *f, const struct av_ctx *c, const struct an_func_view *v)
{
	fputs("file,line", f);
	csv_samples_head(f, c);
	csv_td_head(f, c);
	fputs(",inlined_function,called_at_line\n", f);
	for (size_t i = 0; i < v->nlines; i++) {
		const struct an_line *l = &v->lines[i];
		csv_field(f, l->file);
		fprintf(f, ",%d", l->line);
		csv_samples(f, c, l->samples);
		csv_td(f, c, l->samples);
		fputc(',', f);
		csv_field(f, l->inlined);
		fprintf(f, ",%d\n", l->inlined ? l->principal : 0);
	}
}

/* ---- CFG ----------------------------------------------------------------------------------- */

/*
 * v's CFG as SVG on f: blocks weighted by their cycles with accounting, else by samples of
 * the sort event (what the page's tables rank by).
 */
static int cfg_svg(FILE *f, const struct av_ctx *c, const struct an_func_view *v)
{
	uint64_t *w = calloc(v->nbbs ? v->nbbs : 1, sizeof(*w));
	int td = av_has_td(c);
	if (!w)
		return -ENOMEM;
	for (size_t b = 0; b < v->nbbs; b++) {
		if (td) {
			int64_t vals[AV_MAX_NODES], cyc;
			av_eval(c, v->bbs[b].samples, vals, &cyc);
			w[b] = cyc > 0 ? (uint64_t)cyc : 0;
		} else {
			w[b] = v->bbs[b].samples[c->ev];
		}
	}
	int r = cfg_svg_write(f, v, w, td ? "cycles" : "samples", v->func);
	free(w);
	return r;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* The document's strings: a missing one is "" (not null). */
static void js_str(struct json *j, const char *key, const char *s)
{
	json_str(j, key, s ? s : "");
}

/* The CFG as a JSON string (the page inlines it in the function's pane); "" if it failed. */
static void js_cfg(struct json *j, const struct av_ctx *c, const struct an_func_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int r = m ? cfg_svg(m, c, v) : -ENOMEM;
	if (m && fclose(m))
		r = -EIO;
	js_str(j, "cfg", !r ? buf : "");
	free(buf);
}

/*
 * A row's cycles and live branches (in cycle-event samples): keyed, "cycles":C,
 * "accounting":[...]; else C,[...] (array rows).  Only with accounting.
 */
static void js_td(struct json *j, const struct av_ctx *c, const uint64_t *samples, int keyed)
{
	int64_t vals[AV_MAX_NODES], cyc;
	av_eval(c, samples, vals, &cyc);
	json_int(j, keyed ? "cycles" : NULL, cyc);
	json_begin_array(j, keyed ? "accounting" : NULL);
	for (size_t i = 0; i < c->td->m->nnodes; i++)
		if (c->td->live[i])
			json_int(j, NULL, vals[i]);
	json_end_array(j);
}

static void js_counts(struct json *j, const struct av_ctx *c, const struct an_row *r)
{
	json_begin_array(j, "samples");
	for (size_t e = 0; e < c->an->nev; e++)
		json_uint(j, NULL, r->samples[e]);
	json_end_array(j);
	json_double(j, "share", av_share(c, r), 4);
	if (av_has_td(c))
		js_td(j, c, r->samples, 1);
}

static void js_rows(struct json *j, const struct av_ctx *c, const char *key, int kind)
{
	const struct analysis *an = c->an;
	const struct an_row *rows = kind == 0 ? an->procs : kind == 1 ? an->mods : an->funcs;
	size_t n = kind == 0 ? an->nprocs : kind == 1 ? an->nmods : an->nfuncs;
	int *o = analysis_order(rows, n, c->ev);
	json_begin_array(j, key);
	for (size_t k = 0; o && k < n; k++) {
		const struct an_row *r = &rows[o[k]];
		json_newline(j);
		json_begin_object(j, NULL);
		json_int(j, "id", o[k]);
		js_str(j, "name", r->name);
		if (kind >= 1)
			js_str(j, "process", an->procs[r->proc].name);
		if (kind == 2)
			js_str(j, "module", av_basename(an->mods[r->mod].name));
		js_counts(j, c, r);
		json_end_object(j);
	}
	json_end_array(j);
	free(o);
}

static void js_accounting(struct json *j, const struct av_ctx *c)
{
	if (!av_has_td(c)) {
		json_str(j, "accounting", NULL);
		return;
	}
	json_begin_object(j, "accounting");
	js_str(j, "arch", c->td->m->arch);
	js_str(j, "title", c->td->m->title);
	js_str(j, "cycles_event", c->an->ev[c->td->cycles_ev].name);
	json_begin_array(j, "nodes");
	for (size_t i = 0; i < c->td->m->nnodes; i++)
		if (c->td->live[i])
			js_str(j, NULL, c->td->m->nodes[i].path);
	json_end_array(j);
	json_end_object(j);
}

static void js_head(struct json *j, const struct av_ctx *c)
{
	const struct analysis *an = c->an;
	const struct pd_features *ft = perfdata_features(c->pd);
	js_str(j, "input", c->input);
	json_str(j, "mode", perfdata_is_pipe(c->pd) ? "pipe" : "file");
	json_uint(j, "samples", an->nsamples);
	json_uint(j, "lost", an->lost);
	json_uint(j, "sort_event", c->ev);
	js_str(j, "cpuid", ft->cpuid);
	json_begin_array(j, "events");
	for (size_t e = 0; e < an->nev; e++) {
		json_begin_object(j, NULL);
		js_str(j, "name", an->ev[e].name);
		json_uint(j, "samples", an->ev[e].samples);
		json_uint(j, "period", an->ev[e].period);
		json_int(j, "freq", an->ev[e].freq);
		json_double(j, "multiplex", an->ev[e].mplex, 6);
		json_end_object(j);
	}
	json_end_array(j);
	js_accounting(j, c);
	js_str(j, "note", c->td && c->td->note[0] ? c->td->note : c->td_note);
	/* [cpu, [samples per event]] for CPUs with samples */
	json_begin_array(j, "cpus");
	for (size_t cpu = 0; cpu < an->ncpus; cpu++) {
		uint64_t any = 0;
		for (size_t e = 0; e < an->nev; e++)
			any |= an->cpu_samples[cpu * an->nev + e];
		if (!any)
			continue;
		json_begin_array(j, NULL);
		json_uint(j, NULL, cpu);
		json_begin_array(j, NULL);
		for (size_t e = 0; e < an->nev; e++)
			json_uint(j, NULL, an->cpu_samples[cpu * an->nev + e]);
		json_end_array(j);
		json_end_array(j);
	}
	json_end_array(j);
}

static void js_bbs(struct json *j, const struct av_ctx *c, const struct an_func_view *v)
{
	json_begin_array(j, "bbs");
	for (size_t b = 0; b < v->nbbs; b++) {
		const struct an_bb *bb = &v->bbs[b];
		json_begin_array(j, NULL);
		json_strf(j, NULL, "%llx", (unsigned long long)bb->start);
		json_strf(j, NULL, "%llx", (unsigned long long)bb->end);
		json_uint(j, NULL, bb->samples[c->ev]);
		json_begin_array(j, NULL);
		for (int k = 0; k < 2; k++)
			if (bb->succ[k] >= 0)
				json_int(j, NULL, bb->succ[k]);
		json_end_array(j);
		if (av_has_td(c))
			js_td(j, c, bb->samples, 0);
		json_end_array(j);
	}
	json_end_array(j);
}

static void js_asm(struct json *j, const struct av_ctx *c, const struct an_func_view *v)
{
	json_begin_array(j, "asm");
	for (size_t i = 0; i < v->ninsns; i++) {
		const struct an_insn *x = &v->insns[i];
		const struct sym_frame *p = x->nframes ? &x->frames[x->nframes - 1] : NULL;
		json_newline(j);
		json_begin_array(j, NULL);
		json_int(j, NULL, x->bb);
		json_strf(j, NULL, "%llx", (unsigned long long)x->addr);
		json_uint(j, NULL, x->samples[c->ev]);
		js_str(j, NULL, x->text);
		json_strf(j, NULL, "%s:%d", p && p->file ? av_basename(p->file) : "",
			  p ? p->line : 0);
		js_str(j, NULL, x->nframes > 1 ? x->frames[0].function : "");
		if (av_has_td(c))
			js_td(j, c, x->samples, 0);
		json_end_array(j);
	}
	json_end_array(j);
}

static void js_src(struct json *j, const struct av_ctx *c, const struct an_func_view *v)
{
	json_begin_array(j, "src");
	for (size_t i = 0; i < v->nlines; i++) {
		const struct an_line *l = &v->lines[i];
		json_begin_array(j, NULL);
		js_str(j, NULL, l->file ? av_basename(l->file) : "");
		json_int(j, NULL, l->line);
		json_uint(j, NULL, l->samples[c->ev]);
		js_str(j, NULL, l->inlined ? l->inlined : "");
		if (av_has_td(c))
			js_td(j, c, l->samples, 0);
		json_end_array(j);
	}
	json_end_array(j);
}

/*
 * One function for the page: "bbs" [start, end, samples, successors, cycles, branches],
 * "asm" [bb, address, samples, text, line, inlined, cycles, branches] and "src" [file, line,
 * samples, inlined, cycles, branches]; samples of the sort event, cycles and branches (in
 * cycle-event samples, the live nodes in order) only with accounting.
 */
static void js_function(struct json *j, const struct av_ctx *c, const struct an_func_view *v)
{
	json_begin_object(j, NULL);
	json_int(j, "id", v->func);
	js_str(j, "name", c->an->funcs[v->func].name);
	js_bbs(j, c, v);
	js_cfg(j, c, v);
	js_asm(j, c, v);
	js_src(j, c, v);
	json_end_object(j);
}

/* functions/N.{asm,bb,src}.csv and N.cfg.svg for the function ranked N. */
static void write_func_csvs(const struct av_ctx *c, const char *dir, size_t rank,
			    const struct an_func_view *v)
{
	static void (*const writers[])(FILE *, const struct av_ctx *,
				       const struct an_func_view *) = { asm_csv, bb_csv, src_csv };
	static const char *const kinds[] = { "asm", "bb", "src" };
	for (size_t k = 0; k < 3; k++) {
		char name[64];
		snprintf(name, sizeof(name), "functions/%zu.%s.csv", rank, kinds[k]);
		FILE *g = open_in(dir, name, (char[8]){ 0 }, 8);
		if (g) {
			writers[k](g, c, v);
			fclose(g);
		}
	}
	char name[64];
	snprintf(name, sizeof(name), "functions/%zu.cfg.svg", rank);
	FILE *g = open_in(dir, name, (char[8]){ 0 }, 8);
	if (g) {
		cfg_svg(g, c, v);
		fclose(g);
	}
}

/*
 * The summary document on j (and, for the page, the top functions' asm and source; else,
 * with dir, their CSV files and graphs in dir/functions/).
 */
static void js_all(struct json *j, const struct av_ctx *c, const char *dir, int with_funcs)
{
	json_begin_object(j, NULL);
	js_head(j, c);
	js_rows(j, c, "processes", 0);
	js_rows(j, c, "modules", 1);
	js_rows(j, c, "functions", 2);
	json_begin_array(j, "callgraph");
	for (size_t i = 0; i < c->an->nedges; i++) {
		json_begin_array(j, NULL);
		json_int(j, NULL, c->an->edges[i].caller);
		json_int(j, NULL, c->an->edges[i].callee);
		json_uint(j, NULL, c->an->edges[i].count);
		json_end_array(j);
	}
	json_end_array(j);
	json_begin_array(j, "details");
	int *o = analysis_order(c->an->funcs, c->an->nfuncs, c->ev);
	size_t top = c->top > 0 ? (size_t)c->top : 20;
	for (size_t i = 0; o && i < c->an->nfuncs && i < top; i++) {
		struct an_func_view v;
		if (!c->an->funcs[o[i]].samples[c->ev] || analysis_function(c->an, o[i], &v))
			continue;
		if (with_funcs) {
			json_newline(j);
			js_function(j, c, &v);
		} else if (dir) {
			write_func_csvs(c, dir, i + 1, &v);
		}
		an_func_view_release(&v);
	}
	free(o);
	json_end_array(j);
	json_end_object(j);
	json_finish(j);
}

/* ---- HTML ---------------------------------------------------------------------------------- */

static const char page_css[] =
	".pane{border:1px solid #aaa;padding:.5em;margin:.5em 0}\n"
	"pre{margin:0}\n.bb{background:#f4f4f4;font-weight:bold}\n"
	"div.cfg{overflow:auto;max-height:80vh}\n"
	".heat{background:linear-gradient(90deg,#f99 var(--w),transparent var(--w))}\n";

static const char page_script[] =
	"'use strict';\n"
	"const D = JSON.parse(document.getElementById('data').textContent);\n"
	"const ev = D.sort_event, A = D.accounting;\n"
	"const open = new Set();\n"
	"let cycles = false;\n"
	"function depth(p) { return p.split('/').length; }\n"
	"function visible(i) {\n"
	"  const p = A.nodes[i], parts = p.split('/');\n"
	"  for (let k = 1; k < parts.length; k++)\n"
	"    if (!open.has(parts.slice(0, k).join('/'))) return false;\n"
	"  return true;\n"
	"}\n"
	"function hasKids(i) { return A.nodes.some(q => q.startsWith(A.nodes[i] + '/')); }\n"
	"function esc(s) { const d = document.createElement('span'); d.textContent = s; "
	"return d.innerHTML; }\n"
	"function table(id, rows, cols) {\n"
	"  const el = document.getElementById(id);\n"
	"  let sortBy = 0, desc = true;\n"
	"  function render() {\n"
	"    const r = rows.slice();\n"
	"    if (sortBy > 0) r.sort((a, b) => { const x = cols[sortBy].v(a), y = cols[sortBy].v(b);\n"
	"      return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1); });\n"
	"    let h = '<table><thead><tr>';\n"
	"    cols.forEach((c, i) => { h += '<th data-i=\"' + i + '\"' + (c.name ? ' class=\"name\"' : '') +\n"
	"      '>' + esc(c.t) + '</th>'; });\n"
	"    h += '</tr></thead><tbody>';\n"
	"    r.forEach(x => { h += '<tr data-id=\"' + x.id + '\">';\n"
	"      cols.forEach(c => { h += '<td' + (c.name ? ' class=\"name\"' : '') + '>' + esc(c.f(x)) + '</td>'; });\n"
	"      h += '</tr>'; });\n"
	"    el.innerHTML = h + '</tbody></table>';\n"
	"    el.querySelectorAll('th').forEach(th => th.onclick = () => {\n"
	"      const i = +th.dataset.i, c = cols[i];\n"
	"      if (c.node !== undefined && hasKids(c.node) && !open.has(A.nodes[c.node])) {\n"
	"        open.add(A.nodes[c.node]); renderAll(); return; }\n"
	"      if (c.node !== undefined && open.has(A.nodes[c.node])) { open.delete(A.nodes[c.node]);\n"
	"        renderAll(); return; }\n"
	"      desc = sortBy === i ? !desc : true; sortBy = i; render(); });\n"
	"    if (id === 'functions') el.querySelectorAll('tbody tr').forEach(tr =>\n"
	"      tr.onclick = () => detail(+tr.dataset.id));\n"
	"  }\n"
	"  render();\n"
	"}\n"
	"function columns(kind) {\n"
	"  const c = [{ t: kind, name: 1, f: x => x.name, v: x => x.name }];\n"
	"  if (kind === 'function') c.push({ t: 'module', name: 1, f: x => x.module, v: x => x.module });\n"
	"  if (kind !== 'process') c.push({ t: 'process', name: 1, f: x => x.process, v: x => x.process });\n"
	"  c.push({ t: 'share %', f: x => x.share.toFixed(2), v: x => x.share });\n"
	"  D.events.forEach((e, i) => { if (e.samples) c.push({ t: e.name, f: x => x.samples[i],\n"
	"    v: x => x.samples[i] }); });\n"
	"  if (A) {\n"
	"    c.push({ t: 'cycles', f: x => x.cycles, v: x => x.cycles });\n"
	"    A.nodes.forEach((p, i) => { if (!visible(i)) return;\n"
	"      const t = '  '.repeat(depth(p) - 1) + p.split('/').pop() + (hasKids(i) ? (open.has(p) ? ' -' : ' +') : '');\n"
	"      c.push({ t: t, node: i, v: x => x.accounting[i],\n"
	"        f: x => cycles ? x.accounting[i] : (x.cycles ? (100 * x.accounting[i] / x.cycles).toFixed(1) + '%' : '-') }); });\n"
	"  }\n"
	"  return c;\n"
	"}\n"
	"function accHead() {\n"
	"  if (!A) return '';\n"
	"  let h = '<th>cycles</th>';\n"
	"  A.nodes.forEach((p, i) => { if (visible(i)) h += '<th title=\"' + esc(p) + '\">' + esc(p.split('/').pop()) + '</th>'; });\n"
	"  return h;\n"
	"}\n"
	"function accCells(cyc, acc) {\n"
	"  if (!A) return '';\n"
	"  let h = '<td>' + cyc + '</td>';\n"
	"  A.nodes.forEach((p, i) => { if (!visible(i)) return;\n"
	"    h += '<td>' + (cycles ? acc[i] : (cyc ? (100 * acc[i] / cyc).toFixed(1) + '%' : '-')) + '</td>'; });\n"
	"  return h;\n"
	"}\n"
	"let cur = null;\n"
	"function detail(id) {\n"
	"  const d = D.details.find(x => x.id === id), el = document.getElementById('detail');\n"
	"  const f = D.functions.find(x => x.id === id);\n"
	"  cur = id;\n"
	"  if (!d) { el.innerHTML = '<div class=\"pane\">No code for ' + esc(f ? f.name : '?') + '</div>'; return; }\n"
	"  let max = 1; d.asm.forEach(a => { if (a[2] > max) max = a[2]; });\n"
	"  let h = '<div class=\"pane\" id=\"pane-' + id + '\"><h3>' + esc(d.name) + '</h3><h4>Assembly</h4><table>' +\n"
	"    '<tr><th>BB</th><th>address</th><th>samples</th>' + accHead() + '<th class=\"name\">instruction</th>' +\n"
	"    '<th class=\"name\">line</th><th class=\"name\">inlined</th></tr>';\n"
	"  let bb = -1;\n"
	"  d.asm.forEach(a => { if (a[0] !== bb) { bb = a[0]; const b = d.bbs[bb];\n"
	"      h += '<tr class=\"bb\"><td colspan=\"2\" class=\"name\">BB ' + bb + '</td><td>' + b[2] + '</td>' +\n"
	"        accCells(b[4], b[5]) + '<td colspan=\"3\" class=\"name\">[' + b[0] + ', ' + b[1] + ') &rarr; ' +\n"
	"        b[3].map(s => 'BB ' + s).join(' ') + '</td></tr>'; }\n"
	"    h += '<tr><td>' + a[0] + '</td><td>' + a[1] + '</td><td class=\"heat\" style=\"--w:' +\n"
	"      Math.round(100 * a[2] / max) + '%\">' + a[2] + '</td>' + accCells(a[6], a[7]) + '<td class=\"name\"><pre>' +\n"
	"      esc(a[3]) + '</pre></td><td class=\"name\">' + esc(a[4]) + '</td><td class=\"name\">' + esc(a[5]) + '</td></tr>'; });\n"
	"  h += '</table><h4>Source lines</h4><table><tr><th class=\"name\">file</th><th>line</th>' +\n"
	"    '<th>samples</th>' + accHead() + '<th class=\"name\">inlined</th></tr>';\n"
	"  d.src.slice().sort((a, b) => b[2] - a[2]).forEach(s => { h += '<tr><td class=\"name\">' + esc(s[0]) +\n"
	"    '</td><td>' + s[1] + '</td><td>' + s[2] + '</td>' + accCells(s[4], s[5]) + '<td class=\"name\">' +\n"
	"    esc(s[3]) + '</td></tr>'; });\n"
	"  el.innerHTML = h + '</table>' + (d.cfg ? '<h4>Control flow</h4><div class=\"cfg\">' +\n"
	"    d.cfg + '</div>' : '') + '</div>';\n"
	"}\n"
	"function renderAll() {\n"
	"  table('processes', D.processes.filter(x => x.samples[ev]), columns('process'));\n"
	"  table('modules', D.modules.filter(x => x.samples[ev]), columns('module'));\n"
	"  table('functions', D.functions.filter(x => x.samples[ev]), columns('function'));\n"
	"  if (cur !== null) detail(cur);\n"
	"}\n"
	"document.getElementById('meta').textContent = D.input + ': ' + D.mode + ' mode, ' + D.samples +\n"
	"  ' samples; rows by ' + D.events[ev].name + (A ? '; accounting: ' + A.title + ' (cycles = ' +\n"
	"  A.cycles_event + ' samples)' : '') + (D.note ? '; note: ' + D.note : '');\n"
	"document.getElementById('cyc').onchange = e => { cycles = e.target.checked; renderAll(); };\n"
	"renderAll();\n"
	"if (D.details.length) detail(D.details[0].id);\n";

/* The page: header, the three tables (rendered by the script from the embedded data), and
 * the pane of the function clicked (its assembly, source lines and control-flow graph). */
static int write_html(const struct av_ctx *c, const char *dir, char *err, size_t errlen)
{
	struct html *h = html_new("sonde analyze");
	char path[4096];
	if (!h) {
		snprintf(err, errlen, "cannot build the page: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	html_style(h, page_css);
	html_raw(h, "<p id=\"meta\"></p>\n<p><label><input type=\"checkbox\" id=\"cyc\"> "
		    "accounting in cycle samples (else % of cycles)</label></p>\n");
	html_section(h, "hot-processes", "Hot processes");
	html_raw(h, "<div id=\"processes\"></div>\n");
	html_section(h, "hot-modules", "Hot modules");
	html_raw(h, "<div id=\"modules\"></div>\n");
	html_section(h, "hot-functions", "Hot functions");
	html_para(h, "Click a function for its assembly and source; click a column to sort; "
		     "click an accounting branch (+) to open its sub-branches.");
	html_raw(h, "<div id=\"functions\"></div>\n<div id=\"detail\"></div>\n");
	js_all(html_data_begin(h, "data"), c, NULL, 1);
	html_data_end(h);
	html_script(h, page_script);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	int r = html_save(h, path, err, errlen);
	html_free(h);
	return r;
}

int av_write_dir(const struct av_ctx *c, const char *dir, char *err, size_t errlen)
{
	char sub[4096];
	snprintf(sub, sizeof(sub), "%s/functions", dir);
	if ((mkdir(dir, 0777) && errno != EEXIST) || (mkdir(sub, 0777) && errno != EEXIST)) {
		snprintf(err, errlen, "cannot create '%s': %s", sub, strerror(errno));
		return -errno;
	}
	int r = write_rows_csv(c, dir, "processes.csv", 0, err, errlen);
	if (!r)
		r = write_rows_csv(c, dir, "modules.csv", 1, err, errlen);
	if (!r)
		r = write_rows_csv(c, dir, "functions.csv", 2, err, errlen);
	if (!r)
		r = write_callgraph(c, dir, err, errlen);
	if (!r)
		r = write_cpus(c, dir, err, errlen);
	if (!r)
		r = write_func_cpus(c, dir, err, errlen);
	if (r)
		return r;
	FILE *f = open_in(dir, "summary.json", err, errlen);
	if (!f)
		return -EIO;
	struct json j;
	json_init_flags(&j, f, JSON_COMPACT | JSON_SCRIPT_SAFE);
	js_all(&j, c, dir, 0);
	if (close_ok(f, !ferror(f)))
		return -EIO;
	return write_html(c, dir, err, errlen);
}
