/* SPDX-License-Identifier: MIT */
/*
 * info.c - `sonde info [--json] [--cache LEVEL]`: what this machine offers for profiling,
 * and what to fix.  Machine facts from src/machine/, the PMUs from rt/pmu.h (what the hw
 * source itself decides), debug registers from the watch engine's probe (rt/watch.h).
 * Manual: doc/sonde-info.md (the JSON keys are documented there and kept stable).
 * Exit statuses: 0 (the report: always, even when pieces are missing), 2 usage error;
 * --cache: 0 and the size, or 1 if this machine does not say.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/verdict.h"
#include "machine/machine.h"
#include "rt/pmu.h"
#include "rt/watch.h"
#include "ui/json.h"

#define MAX_CACHES 16
#define MAX_FIXES 8

struct facts {
	struct machine_cpu cpu;
	struct machine_cache cache[MAX_CACHES];
	int ncache;
	struct utsname uts;
	int paranoid;
	int privileged;
	struct pmu_info pmu;
	struct pmu_hw hw;
	struct watch_probe watch;
	int sw_clock;			/* 0 or -errno */
	char clang[256];		/* the compiler sonde-cc would use, "" if none */
	const char *fix[MAX_FIXES];
	char fixbuf[MAX_FIXES][PMU_WHY + 64];
	int nfix;
};

/* The tools that are commands today, and the planned ones the report also judges. */
static const struct {
	const char *name;
	int planned;		/* not a command yet */
	const char *dregs;	/* what it needs of the debug registers, NULL if nothing */
	const char *soft;	/* what it does where they do not trap */
} tools[] = {
	{ "mem", 0, NULL, NULL },
	{ "comm", 0, "watchpoints",
	  "software ones only, in programs rebuilt with sonde-cc; else samples alone" },
	{ "reuse", 0, "watchpoints",
	  "software ones only, in programs rebuilt with sonde-cc (--source inst)" },
	{ "variance", 0, "breakpoints",
	  "software ones only, in programs rebuilt with sonde-cc --sonde-calls-only"
	  " (or --sonde-calls)" },
};
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

static void add_fix(struct facts *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_fix(struct facts *f, const char *fmt, ...)
{
	if (f->nfix >= MAX_FIXES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->fixbuf[f->nfix], sizeof(f->fixbuf[0]), fmt, ap);
	va_end(ap);
	f->fix[f->nfix] = f->fixbuf[f->nfix];
	f->nfix++;
}

/* First executable named `name` on PATH, into out.  1 if found. */
static int find_in_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	size_t nlen = strlen(name);

	out[0] = 0;
	while (path && *path) {
		size_t n = strcspn(path, ":");
		if (n && n + 1 + nlen < len) {
			memcpy(out, path, n);
			out[n] = '/';
			memcpy(out + n + 1, name, nlen + 1);
			if (access(out, X_OK) == 0)
				return 1;
		}
		path += n + (path[n] == ':');
	}
	out[0] = 0;
	return 0;
}

static int has_pebs(const struct facts *f)
{
	return !strcmp(f->cpu.vendor, "GenuineIntel") && f->pmu.cpu_pmu[0] &&
	       f->pmu.max_precise > 0;
}

static int traps_fire(const struct facts *f)
{
	return watch_probe_fires(&f->watch);
}

static void collect_fixes(struct facts *f)
{
	const struct watch_probe *w = &f->watch;

	if (f->paranoid > 2 && !f->privileged)
		add_fix(f, "perf_event_paranoid is %d: run 'sysctl kernel.perf_event_paranoid=2' "
			   "(or grant CAP_PERFMON)", f->paranoid);
	if (!f->hw.usable)
		add_fix(f, "hw source: %s", f->hw.why);
	if (w->why[0])
		add_fix(f, "debug registers: %s", w->why);
	else if (w->modify < 0)
		add_fix(f, "PERF_EVENT_IOC_MODIFY_ATTRIBUTES on breakpoints fails (%s): Linux 4.17+ "
			   "re-arms watchpoints without close/open", pmu_strerror(w->modify));
	if (traps_fire(f) && w->sigtrap < 0)
		add_fix(f, "attr.sigtrap does not work (%s): Linux 5.13+ delivers traps "
			   "synchronously; sonde uses F_SETSIG signals instead",
			w->sigtrap == -ENODATA ? "no signal came" : pmu_strerror(w->sigtrap));
	if (f->sw_clock < 0)
		add_fix(f, "cpu-clock sampling refused (%s): the clock source cannot run; check "
			   "perf_event_paranoid and seccomp filters (containers)",
			pmu_strerror(f->sw_clock));
	if (!f->clang[0])
		add_fix(f, "no clang on PATH: the inst source needs it (tools/deps.sh installs it, "
			   "or set SONDE_CC)");
}

static void gather(struct facts *f)
{
	memset(f, 0, sizeof(*f));
	machine_cpu_read(&f->cpu);
	f->ncache = machine_caches(f->cache, MAX_CACHES);
	uname(&f->uts);
	f->paranoid = pmu_paranoid();
	f->privileged = pmu_privileged();
	pmu_info_read(&f->pmu);
	pmu_hw_probe(&f->hw);
	watch_probe_run(&f->watch);
	f->sw_clock = machine_sw_clock();
	const char *cc = getenv("SONDE_CC");
	if (cc && *cc && strchr(cc, '/'))
		snprintf(f->clang, sizeof(f->clang), "%s", access(cc, X_OK) == 0 ? cc : "");
	else
		find_in_path(cc && *cc ? cc : "clang", f->clang, sizeof(f->clang));
	collect_fixes(f);
}

static const char *kind_name(int kind)
{
	static const char *const names[] = { "none", "pebs", "ibs", "spe", "page-faults" };
	return kind >= 0 && kind <= PMU_HW_PAGE_FAULTS ? names[kind] : "none";
}

static const char *sample_source(const struct facts *f)
{
	return f->hw.usable ? "hw" : f->sw_clock == 0 ? "clock" : "none";
}

/* This machine has what tool i needs (whether or not the tool exists yet). */
static int machine_ready(const struct facts *f, size_t i)
{
	return strcmp(sample_source(f), "none") && (!tools[i].dregs || traps_fire(f));
}

/* ---- text ---- */

static void size_text(uint64_t b, char *out, size_t len)
{
	if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(out, len, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(out, len, "%llu KiB", (unsigned long long)(b >> 10));
	else
		snprintf(out, len, "%llu B", (unsigned long long)b);
}

static const char *yes_no(int err)
{
	return err == 0 ? "yes" : "no";
}

static void text_caches(const struct facts *f)
{
	printf("caches           ");
	for (int i = 0; i < f->ncache; i++) {
		const struct machine_cache *c = &f->cache[i];
		char sz[32];
		size_text(c->size, sz, sizeof(sz));
		printf("%sL%d%s %s", i ? ", " : "", c->level,
		       !strcmp(c->type, "Data") ? "d" : !strcmp(c->type, "Instruction") ? "i" : "",
		       sz);
		if (c->shared_cpus > 1)
			printf(" (shared by %d CPUs)", c->shared_cpus);
	}
	if (!f->ncache) {
		printf("unknown (no /sys/devices/system/cpu/cpu0/cache, and CPUID does not say)\n");
		return;
	}
	printf("; line %d bytes\n", f->cache[0].line);
	if (!strcmp(f->cache[0].source, "cpuid"))
		printf("                 from CPUID (no /sys/devices/system/cpu/cpu0/cache here)\n");
	else if (!strcmp(f->cache[0].source, "cpuid-legacy"))
		printf("                 from CPUID's legacy AMD leaves (no "
		       "/sys/devices/system/cpu/cpu0/cache here): the L3 size is the whole "
		       "package's\n");
}

static void text_cpu(const struct facts *f)
{
	printf("cpu              %s (%s family %d model %d stepping %d)\n", f->cpu.model,
	       f->cpu.vendor[0] ? f->cpu.vendor : "unknown vendor", f->cpu.family,
	       f->cpu.model_num, f->cpu.stepping);
	printf("                 %d CPUs online (%d available to this process), %d cores, "
	       "%d socket%s%s\n", f->cpu.cpus_online, f->cpu.cpus_available, f->cpu.cores,
	       f->cpu.sockets, f->cpu.sockets == 1 ? "" : "s",
	       f->cpu.hypervisor ? "; a virtual machine (cpuinfo flag \"hypervisor\")" : "");
	text_caches(f);
	printf("kernel           %s %s %s\n", f->uts.sysname, f->uts.release, f->uts.machine);
}

/* "yes", or why not, for MODIFY_ATTRIBUTES and attr.sigtrap. */
static const char *bp_feature(int r, int fires, const char *unseen)
{
	if (r == 0)
		return "yes";
	if (r == -ENODATA)
		return fires ? unseen : "accepted, but untested: no trap fires";
	return pmu_strerror(r);
}

static void text_dregs(const struct facts *f)
{
	const struct watch_probe *w = &f->watch;
	int fires = traps_fire(f);

	printf("debug registers  %d per thread: %s\n", w->regs,
	       w->why[0] ? w->why : "they open, and their traps fire");
	if (w->regs == 0)
		return;
	printf("  modify attributes (PERF_EVENT_IOC_MODIFY_ATTRIBUTES)  %s\n",
	       bp_feature(w->modify, fires, "no: the moved breakpoint did not count"));
	printf("  attr.sigtrap (synchronous SIGTRAP)                  %s\n",
	       bp_feature(w->sigtrap, fires, "no: no signal came"));
}

static void text_perf(const struct facts *f)
{
	printf("perf_event_paranoid %d: %s%s\n", f->paranoid,
	       machine_paranoid_meaning(f->paranoid),
	       f->privileged ? " (this user is privileged: not limited by it)" : "");
	if (f->pmu.cpu_pmu[0])
		printf("cpu PMU          %s: counting %s, sampling %s, max_precise %d\n",
		       f->pmu.cpu_pmu, yes_no(f->pmu.hw_count), yes_no(f->pmu.hw_sample),
		       f->pmu.max_precise);
	else
		printf("cpu PMU          none: %s\n", f->pmu.why);
	printf("precise events   PEBS %s, IBS %s, Arm SPE %s\n", has_pebs(f) ? "yes" : "no",
	       f->pmu.ibs_op < 0 ? "no" : f->pmu.ibs_swfilt ? "yes (ibs_op, swfilt)"
							 : "yes (ibs_op, no swfilt)",
	       f->pmu.arm_spe >= 0 ? "present (not implemented in sonde)" : "no");
	printf("hw source        %s: %s\n", f->hw.usable ? "yes" : "no", f->hw.why);
	text_dregs(f);
	printf("cpu-clock sampling %s\n", f->sw_clock == 0 ? "yes" : pmu_strerror(f->sw_clock));
}

static void text_tools(const struct facts *f)
{
	const char *src = sample_source(f);

	printf("\ncommands and their sample source\n");
	printf("  mem       %s%s\n", src, f->hw.usable ? "" : " (no hw: see below)");
	printf("  mem       inst on a program rebuilt with sonde-cc, by default (%s)\n",
	       f->clang[0] ? f->clang : "no clang found");
	for (size_t i = 0; i < NTOOLS; i++) {
		if (tools[i].planned || !tools[i].dregs)
			continue;
		printf("  %-9s %s; %s: %s\n", tools[i].name, src, tools[i].dregs,
		       machine_ready(f, i) ? "in hardware" : tools[i].soft);
	}
	int planned = 0;
	for (size_t i = 0; i < NTOOLS; i++) {
		if (!tools[i].planned)
			continue;
		if (!planned++)
			printf("\nplanned tools (not commands yet), and whether this machine could "
			       "run them\n");
		printf("  %-9s %s + %s: %s\n", tools[i].name, src, tools[i].dregs,
		       machine_ready(f, i) ? "yes"
		       : f->watch.regs > 0 ? "no, the debug registers do not fire here"
					   : "no, no debug registers here");
	}
}

/* ---- the last `sonde bench` verdict (cmd/verdict.h) ---- */

struct last_verdict {
	char path[PATH_MAX];
	int status;			/* 0 read, -ENOENT none, -EINVAL unreadable (why) */
	int this_machine;
	char why[PATH_MAX + 128];
	struct verdict v;
	struct verdict_debias debias;	/* what mem and comm do with the clock source */
};

static void last_verdict_read(struct last_verdict *l)
{
	l->status = verdict_path(l->path, sizeof(l->path));
	if (!l->status)
		l->status = verdict_read(l->path, &l->v, l->why, sizeof(l->why));
	l->this_machine = !l->status && verdict_is_this_machine(&l->v);
	verdict_debias("clock", 0, &l->debias);
}

static void text_verdict(const struct last_verdict *l)
{
	if (l->status == -ENOENT || (l->status && l->status != -EINVAL)) {
		printf("\nsonde bench verdict: none yet%s%s (run sonde bench)\n",
		       l->path[0] ? " in " : "", l->path);
	} else if (l->status) {
		printf("\nsonde bench verdict: %s\n", l->why);
	} else {
		printf("\nsonde bench verdict (%s)%s\n", l->path, l->this_machine ? "" :
		       ": from another machine, not used");
		if (!l->this_machine)
			printf("  measured on %s, kernel %s\n", l->v.cpu, l->v.kernel);
		for (int i = 0; i < l->v.n; i++)
			if (l->v.e[i].words[0])
				printf("  %s%s%s%s\n", l->v.e[i].words, l->v.e[i].date[0] ? " [" : "",
				       l->v.e[i].date, l->v.e[i].date[0] ? "]" : "");
	}
	printf("  clock de-biasing for mem and comm: %s\n", l->debias.note);
}

static void json_verdict(struct json *j, const struct last_verdict *l)
{
	json_begin_object(j, "bench_verdict");
	json_str(j, "path", l->path[0] ? l->path : NULL);
	json_bool(j, "present", l->status == 0);
	json_str(j, "error", l->status == -EINVAL ? l->why : NULL);
	json_bool(j, "this_machine", l->this_machine);
	json_str(j, "cpu", l->status ? NULL : l->v.cpu);
	json_str(j, "kernel", l->status ? NULL : l->v.kernel);
	json_begin_array(j, "verdicts");
	for (int i = 0; !l->status && i < l->v.n; i++) {
		const struct verdict_entry *e = &l->v.e[i];
		if (!e->words[0])
			continue;
		json_begin_object(j, NULL);
		json_str(j, "source", e->source);
		json_str(j, "interval", e->interval[0] ? e->interval : NULL);
		json_str(j, "date", e->date[0] ? e->date : NULL);
		json_str(j, "verdict", e->words);
		json_end_object(j);
	}
	json_end_array(j);
	json_int(j, "extra_steps", l->debias.steps);
	json_str(j, "extra_steps_from", l->debias.from);
	json_str(j, "extra_steps_note", l->debias.note);
	json_end_object(j);
}

static void print_text(const struct facts *f, const struct last_verdict *l)
{
	text_cpu(f);
	text_perf(f);
	text_tools(f);
	text_verdict(l);
	if (!f->nfix) {
		printf("\nnothing to fix\n");
		return;
	}
	printf("\nto fix\n");
	for (int i = 0; i < f->nfix; i++)
		printf("  - %s\n", f->fix[i]);
}

/* ---- json ---- */

static void json_cpu(struct json *j, const struct facts *f)
{
	json_begin_object(j, "cpu");
	json_str(j, "vendor", f->cpu.vendor);
	json_str(j, "model", f->cpu.model);
	json_int(j, "family", f->cpu.family);
	json_int(j, "model_number", f->cpu.model_num);
	json_int(j, "stepping", f->cpu.stepping);
	json_int(j, "cpus_online", f->cpu.cpus_online);
	json_int(j, "cpus_available", f->cpu.cpus_available);
	json_int(j, "cores", f->cpu.cores);
	json_int(j, "sockets", f->cpu.sockets);
	json_bool(j, "hypervisor", f->cpu.hypervisor);
	json_end_object(j);
	json_begin_array(j, "caches");
	for (int i = 0; i < f->ncache; i++) {
		json_begin_object(j, NULL);
		json_int(j, "level", f->cache[i].level);
		json_str(j, "type", f->cache[i].type);
		json_uint(j, "size", f->cache[i].size);
		json_int(j, "line", f->cache[i].line);
		json_int(j, "ways", f->cache[i].ways);
		json_int(j, "shared_cpus", f->cache[i].shared_cpus);
		json_str(j, "source", f->cache[i].source);
		json_end_object(j);
	}
	json_end_array(j);
	json_int(j, "cache_line", f->ncache ? f->cache[0].line : 0);
	json_begin_object(j, "kernel");
	json_str(j, "sysname", f->uts.sysname);
	json_str(j, "release", f->uts.release);
	json_str(j, "machine", f->uts.machine);
	json_end_object(j);
}

static void json_dregs(struct json *j, const struct facts *f)
{
	const struct watch_probe *w = &f->watch;

	json_int(j, "debug_registers", w->regs);
	json_str(j, "debug_registers_limit", w->regs_err ? pmu_strerror(w->regs_err) : NULL);
	json_int(j, "debug_registers_firing", w->fired);
	json_bool(j, "debug_registers_fire", traps_fire(f));
	json_str(j, "debug_registers_why", w->why[0] ? w->why : NULL);
	json_bool(j, "modify_attributes", w->modify == 0);
	json_bool(j, "sigtrap", w->sigtrap == 0);
}

static void json_perf(struct json *j, const struct facts *f)
{
	json_int(j, "perf_event_paranoid", f->paranoid);
	json_str(j, "perf_event_paranoid_meaning", machine_paranoid_meaning(f->paranoid));
	json_bool(j, "privileged", f->privileged);
	json_begin_object(j, "pmu");
	json_str(j, "cpu_pmu", f->pmu.cpu_pmu[0] ? f->pmu.cpu_pmu : NULL);
	json_int(j, "max_precise", f->pmu.max_precise);
	json_bool(j, "hw_counting", f->pmu.hw_count == 0);
	json_bool(j, "hw_sampling", f->pmu.hw_sample == 0);
	json_str(j, "why", f->pmu.why[0] ? f->pmu.why : NULL);
	json_end_object(j);
	json_begin_object(j, "precise");
	json_bool(j, "pebs", has_pebs(f));
	json_bool(j, "ibs", f->pmu.ibs_op >= 0);
	json_bool(j, "ibs_swfilt", f->pmu.ibs_swfilt);
	json_bool(j, "arm_spe", f->pmu.arm_spe >= 0);
	json_bool(j, "arm_spe_implemented", 0);
	json_end_object(j);
	json_begin_object(j, "hw_source");
	json_bool(j, "usable", f->hw.usable);
	json_str(j, "kind", kind_name(f->hw.kind));
	json_begin_array(j, "events");
	for (int i = 0; f->hw.usable && i < f->hw.nevents; i++)
		json_str(j, NULL, f->hw.ev[i].name);
	json_end_array(j);
	json_str(j, "why", f->hw.why);
	json_end_object(j);
	json_dregs(j, f);
	json_bool(j, "cpu_clock_sampling", f->sw_clock == 0);
}

static void json_tools(struct json *j, const struct facts *f)
{
	json_begin_object(j, "tools");
	for (size_t i = 0; i < NTOOLS; i++) {
		json_begin_object(j, tools[i].name);
		json_str(j, "source", sample_source(f));
		json_bool(j, "planned", tools[i].planned);
		json_bool(j, "machine_ready", machine_ready(f, i));
		json_bool(j, "available", !tools[i].planned && machine_ready(f, i));
		json_bool(j, "needs_debug_registers", tools[i].dregs != NULL);
		json_end_object(j);
	}
	json_end_object(j);
}

static void print_json(const struct facts *f, const struct last_verdict *l)
{
	struct json j;

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_cpu(&j, f);
	json_perf(&j, f);
	json_tools(&j, f);
	json_begin_object(&j, "inst");
	json_bool(&j, "needs_rebuild", 1);
	json_str(&j, "compiler", f->clang[0] ? f->clang : NULL);
	json_end_object(&j);
	json_begin_array(&j, "fixes");
	for (int i = 0; i < f->nfix; i++)
		json_str(&j, NULL, f->fix[i]);
	json_end_array(&j);
	json_verdict(&j, l);
	json_end_object(&j);
	json_finish(&j);
}

/* ---- --cache ---- */

/* "L3", "l3" or "3" -> 3; -1 if not a level. */
static int cache_level_arg(const char *s)
{
	if (*s == 'L' || *s == 'l')
		s++;
	if (*s < '1' || *s > '4' || s[1])
		return -1;
	return *s - '0';
}

static int print_cache_size(const char *arg)
{
	int level = cache_level_arg(arg);
	if (level < 0)
		return sonde_usage_error("info", "bad cache level '%s' (L1, L2, L3 or L4)", arg);
	int64_t size = machine_cache_size(level);
	if (size < 0) {
		sonde_error("the size of the L%d cache is unknown on this machine (neither "
			    "/sys/devices/system/cpu/cpu0/cache nor CPUID says)", level);
		return 1;
	}
	printf("%lld\n", (long long)size);
	return 0;
}

static void print_help(void)
{
	printf("usage: sonde info [--json]\n"
	       "       sonde info --cache LEVEL\n\n"
	       "What this machine offers for profiling, and what to fix: CPU, caches, kernel,\n"
	       "perf_event_paranoid, the PMU and its precise events (PEBS, IBS, Arm SPE), debug\n"
	       "registers (do they open, do their traps fire), the sample source each tool\n"
	       "will use, and the last 'sonde bench' verdict with the clock de-biasing setting\n"
	       "mem and comm take from it.  Opens a few perf events on itself to find out.\n"
	       "Exits 0 (it is a report, whatever it finds); 1 when --cache finds no such\n"
	       "cache, 2 on a bad option.\n\n"
	       "  --json         one JSON object with the same facts (keys: man sonde-info)\n"
	       "  --cache LEVEL  print the size in bytes of the L1/L2/L3 data or unified cache\n"
	       "                 (LEVEL: L1, L2, L3); exit 1 if this machine does not say\n"
	       "  -h, --help     this help\n");
}

int cmd_info(int argc, char **argv)
{
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--cache")) {
			if (i + 1 >= argc)
				return sonde_usage_error("info", "--cache needs a level (L1, L2, L3)");
			if (i + 2 < argc)
				return sonde_usage_error("info", "unexpected argument '%s'",
							 argv[i + 2]);
			return print_cache_size(argv[i + 1]);
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_help();
			return 0;
		} else if (argv[i][0] == '-') {
			return sonde_usage_error("info", "unknown option '%s'", argv[i]);
		} else {
			return sonde_usage_error("info", "unexpected argument '%s'", argv[i]);
		}
	}
	static struct facts f;
	static struct last_verdict l;
	gather(&f);
	last_verdict_read(&l);
	if (json)
		print_json(&f, &l);
	else
		print_text(&f, &l);
	fflush(stdout);
	return 0;
}
