/* SPDX-License-Identifier: MIT */
/*
 * vs-abi.h - what an instrumented translation unit and libsonde-vsensor.a share.
 * The rewriter (analysis.c) prints the same declarations as text (VS_ABI_TEXT), so an
 * instrumented file needs no sonde header; keep both in step.
 */
#ifndef SONDE_VSENSOR_ABI_H
#define SONDE_VSENSOR_ABI_H

#define VS_F_RANK_DEP 1		/* work depends on the rank: compare only within the rank */
#define VS_F_CPU 2		/* the runtime's CPU-share pseudo-sensor (vsrt.c), never in a program */
#define VS_F_CORE 4		/* the runtime's pseudo-sensor of the CPU the rank ran on (vsrt.c) */

struct vs_sensor {
	const char *name;	/* "file:line function" */
	int kind;		/* 0 compute, 1 network, 2 io */
	int flags;		/* VS_F_* */
	int gid;		/* runtime index + 1, 0 before the first tick */
	int off;		/* switched off (too short) */
	long long t0;		/* start of the running sense, ns */
};

void vs_tick(struct vs_sensor *s);
void vs_tock(struct vs_sensor *s);

#define VS_ABI_TEXT \
	"struct vs_sensor { const char *name; int kind; int flags; int gid; int off; long long t0; };\n" \
	"void vs_tick(struct vs_sensor *s);\n" \
	"void vs_tock(struct vs_sensor *s);\n"

#endif
