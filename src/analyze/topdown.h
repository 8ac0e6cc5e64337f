/* SPDX-License-Identifier: MIT */
/*
 * topdown.h - cycle accounting as data (GOoDA): a tree of branches per microarchitecture,
 * read from data/topdown/<arch>.txt (format in data/topdown/README.md), bound to the events
 * of a recording, evaluated on any row (process, module, function, block, line):
 *
 *   node = Σ over its terms of trunc(s_i × penalty_i × P_i × m_i / (P_c × m_c))
 *
 * with s the row's samples of event i, P its period, m its multiplexing factor
 * (time_enabled/time_running), c the unhalted-cycles event; a node without terms sums its
 * children.  Values are in cycle-event samples, GOoDA's unit (× P_c × m_c = cycles).
 * A node whose events were not recorded is dropped with its enclosing sum, and a note says
 * which events were missing.
 *
 * Ownership: a model owns its strings; a binding refers to its model and events (they must
 * outlive it).  Errors: -errno and a one-line reason.  Not for signal handlers.
 */
#ifndef SONDE_LIB_TOPDOWN_H
#define SONDE_LIB_TOPDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/analyze.h"

#define TD_MAX_TERMS 8

struct td_term {
	double penalty;
	int sym;			/* index into the model's symbols */
};

struct td_node {
	char *path;			/* "stalled/load_latency/l2_hit" */
	const char *name;		/* last component of path */
	int depth;			/* 1 for top-level branches */
	int parent;			/* -1 for top level */
	struct td_term terms[TD_MAX_TERMS];
	int nterms;
};

struct td_symbol {
	char *name;			/* symbolic name used in the file */
	char **alts;			/* event names or raw codes (r<hex>) it may appear as */
	size_t nalts;
};

struct td_model {
	char *arch, *title;
	char **cpuids;			/* "GenuineIntel,6,44" (vendor,family,model) */
	size_t ncpuids;
	struct td_symbol *syms;
	size_t nsyms;
	struct td_node *nodes;		/* parents before children */
	size_t nnodes;
	int cycles_sym;			/* the unhalted cycles symbol */
};

/* Parse one model file.  NULL on error (*err -errno, reason with the line number). */
struct td_model *td_load(const char *path, int *err, char *errbuf, size_t errlen);
/* Parse from text (unit tests).  name is used in messages. */
struct td_model *td_parse(const char *text, const char *name, int *err, char *errbuf,
			  size_t errlen);
void td_free(struct td_model *m);

/*
 * Choose a model in dir: arch (by name, from --arch) if given, else the one listing cpuid,
 * else "generic".  NULL with the reason in errbuf if none fits or dir has none.
 */
struct td_model *td_select(const char *dir, const char *arch, const char *cpuid, char *errbuf,
			   size_t errlen);

/* The data directory: $SONDE_TOPDOWN_DIR, beside the executable, or under $SONDE_TOP. */
const char *td_default_dir(void);

struct td_binding {
	const struct td_model *m;
	const struct an_event *ev;
	size_t nev;
	int cycles_ev;			/* -1: no cycles event, no accounting */
	int *sym_ev;			/* per symbol: event index or -1 */
	char *live;			/* per node: evaluated and shown */
	char note[512];			/* what was dropped and why; "" if nothing */
};

/* Bind m to the recording's events.  0, or -ENOENT if the cycles event is missing. */
int td_bind(const struct td_model *m, const struct an_event *ev, size_t nev,
	    struct td_binding *b);
void td_binding_release(struct td_binding *b);

/* Does event e match symbol name alt (event name, modifiers stripped, or raw code)? */
int td_event_matches(const struct an_event *e, const char *alt);

/*
 * Evaluate every live node on a row with samples[nev]; out[nnodes] in cycle-event samples
 * (0 for dropped nodes).  *cycles receives the row's unhalted cycles in the same unit.
 */
void td_eval(const struct td_binding *b, const uint64_t *samples, int64_t *out,
	     int64_t *cycles);

/* One term: trunc(s × pen × P_i × m_i / (P_c × m_c)), the GOoDA rule. */
int64_t td_term_value(uint64_t s, double pen, double p_i, double m_i, double p_c, double m_c);

#endif
