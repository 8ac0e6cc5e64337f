/* SPDX-License-Identifier: MIT */
/*
 * analyze-func.c - one function in detail (see analyze.h): its code disassembled with Zydis,
 * split into basic blocks at branches and branch targets, each instruction's samples and its
 * DWARF position (the inline chain), and source lines summing their instructions.
 */
#include "analyze/analyze.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FUNC_BYTES (1u << 20)

struct dec {
	int is_branch, is_cond, is_ret, has_target;
	uint64_t target;
};

static int decode_all(const uint8_t *code, size_t n, uint64_t start, struct an_func_view *v,
		      struct dec **decs)
{
	ZydisDecoder d;
	ZydisFormatter fmt;
	ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_ATT);
	size_t cap = 64;
	v->insns = calloc(cap, sizeof(*v->insns));
	*decs = calloc(cap, sizeof(**decs));
	if (!v->insns || !*decs)
		return -ENOMEM;
	for (size_t off = 0; off < n;) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		if (v->ninsns == cap) {
			cap *= 2;
			struct an_insn *ni = realloc(v->insns, cap * sizeof(*ni));
			struct dec *nd = ni ? realloc(*decs, cap * sizeof(*nd)) : NULL;
			if (ni)
				v->insns = ni;
			if (!ni || !nd)
				return -ENOMEM;
			*decs = nd;
		}
		struct an_insn *x = &v->insns[v->ninsns];
		struct dec *dc = &(*decs)[v->ninsns];
		memset(x, 0, sizeof(*x));
		memset(dc, 0, sizeof(*dc));
		x->addr = start + off;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, code + off, n - off, &in, ops))) {
			x->len = 1;
			snprintf(x->text, sizeof(x->text), "(bad)");
			off++;
			v->ninsns++;
			continue;
		}
		x->len = in.length;
		ZydisFormatterFormatInstruction(&fmt, &in, ops, in.operand_count_visible, x->text,
						sizeof(x->text), x->addr, NULL);
		int cat = in.meta.category;
		dc->is_cond = cat == ZYDIS_CATEGORY_COND_BR;
		dc->is_ret = cat == ZYDIS_CATEGORY_RET;
		dc->is_branch = dc->is_cond || dc->is_ret || cat == ZYDIS_CATEGORY_UNCOND_BR;
		if ((dc->is_cond || cat == ZYDIS_CATEGORY_UNCOND_BR) && in.operand_count_visible &&
		    ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[0], x->addr, &dc->target)))
			dc->has_target = 1;
		off += in.length;
		v->ninsns++;
	}
	return 0;
}

static int insn_at(const struct an_func_view *v, uint64_t addr)
{
	size_t lo = 0, hi = v->ninsns;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v->insns[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int)lo - 1 : -1;
}

static void split_blocks(struct an_func_view *v, const struct dec *dc, uint64_t *pool, size_t nev)
{
	char *leader = calloc(v->ninsns + 1, 1);
	if (!leader)
		return;
	leader[0] = 1;
	uint64_t end = v->insns[v->ninsns - 1].addr + v->insns[v->ninsns - 1].len;
	for (size_t i = 0; i < v->ninsns; i++) {
		if (dc[i].is_branch)
			leader[i + 1] = 1;
		if (dc[i].has_target && dc[i].target >= v->insns[0].addr && dc[i].target < end) {
			int k = insn_at(v, dc[i].target);
			if (k >= 0 && v->insns[k].addr == dc[i].target)
				leader[k] = 1;
		}
	}
	for (size_t i = 0; i < v->ninsns; i++) {
		if (leader[i]) {
			struct an_bb *b = &v->bbs[v->nbbs];
			b->first = (int)i;
			b->start = v->insns[i].addr;
			b->samples = pool + v->nbbs * nev;
			b->succ[0] = b->succ[1] = -1;
			v->nbbs++;
		}
		struct an_bb *b = &v->bbs[v->nbbs - 1];
		v->insns[i].bb = (int)v->nbbs - 1;
		b->ninsns++;
		b->end = v->insns[i].addr + v->insns[i].len;
		for (size_t e = 0; e < nev; e++)
			b->samples[e] += v->insns[i].samples[e];
	}
	for (size_t k = 0; k < v->nbbs; k++) {
		struct an_bb *b = &v->bbs[k];
		int last = b->first + b->ninsns - 1;
		int s = 0;
		if (dc[last].has_target && dc[last].target >= v->insns[0].addr && dc[last].target < end)
			b->succ[s++] = v->insns[insn_at(v, dc[last].target)].bb;
		if ((!dc[last].is_branch || dc[last].is_cond) && k + 1 < v->nbbs)
			b->succ[s++] = (int)k + 1;
	}
	free(leader);
}

static void source_lines(struct analysis *an, struct an_func_view *v, struct sym_module *file,
			 uint64_t *pool)
{
	size_t nev = an->nev;
	for (size_t i = 0; i < v->ninsns; i++) {
		struct an_insn *x = &v->insns[i];
		x->nframes = sym_module_lines(file, x->addr, x->frames, SYM_MAX_INLINE);
		if (!x->nframes)
			continue;
		const struct sym_frame *p = &x->frames[0];
		size_t k;
		for (k = 0; k < v->nlines; k++)
			if (v->lines[k].line == p->line && v->lines[k].file && p->file &&
			    !strcmp(v->lines[k].file, p->file))
				break;
		if (k == v->nlines) {
			v->lines[k].file = p->file;
			v->lines[k].line = p->line;
			v->lines[k].samples = pool + k * nev;
			v->lines[k].principal = x->frames[x->nframes - 1].line;
			if (x->nframes > 1)
				v->lines[k].inlined = x->frames[0].function;
			v->nlines++;
		}
		for (size_t e = 0; e < nev; e++)
			v->lines[k].samples[e] += x->samples[e];
	}
}

int analysis_function(struct analysis *an, int fi, struct an_func_view *v)
{
	memset(v, 0, sizeof(*v));
	v->func = fi;
	const struct an_row *f = &an->funcs[fi];
	if (!f->file || !f->start || !f->size)
		return -ENOENT;
	size_t n = f->size < MAX_FUNC_BYTES ? (size_t)f->size : MAX_FUNC_BYTES;
	uint8_t *code = malloc(n);
	if (!code)
		return -ENOMEM;
	n = sym_module_code(f->file, f->start, code, n);
	struct dec *dc = NULL;
	int r = n ? decode_all(code, n, f->start, v, &dc) : -ENOENT;
	free(code);
	size_t nev = an->nev ? an->nev : 1;
	if (!r && v->ninsns) {
		v->pool = calloc(3 * v->ninsns * nev, sizeof(uint64_t));
		v->bbs = calloc(v->ninsns, sizeof(*v->bbs));
		v->lines = calloc(v->ninsns, sizeof(*v->lines));
		if (!v->pool || !v->bbs || !v->lines)
			r = -ENOMEM;
	} else if (!r) {
		r = -ENOENT;
	}
	if (r) {
		free(dc);
		an_func_view_release(v);
		return r;
	}
	for (size_t i = 0; i < v->ninsns; i++)
		v->insns[i].samples = v->pool + i * nev;
	for (size_t i = 0; i < an->naddrs; i++) {
		if (an->addrs[i].func != fi)
			continue;
		int k = insn_at(v, an->addrs[i].addr);
		if (k < 0)
			continue;
		for (size_t e = 0; e < an->nev; e++)
			v->insns[k].samples[e] += an->addrs[i].samples[e];
	}
	split_blocks(v, dc, v->pool + v->ninsns * nev, nev);
	source_lines(an, v, f->file, v->pool + 2 * v->ninsns * nev);
	free(dc);
	return 0;
}

void an_func_view_release(struct an_func_view *v)
{
	free(v->insns);
	free(v->bbs);
	free(v->lines);
	free(v->pool);
	memset(v, 0, sizeof(*v));
}
