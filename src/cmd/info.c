/* SPDX-License-Identifier: MIT */
/*
 * info.c - `sonde info [--json]`: what this machine offers for profiling, and what to fix.
 * Manual: doc/sonde-info.md (the JSON keys are documented there and kept stable).
 * Exit statuses: 0 (always, even when pieces are missing: it is a report), 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "rt/probe.h"
#include "ui/json.h"

#define MAX_CACHES 8
#define MAX_FIXES 8
#define MAX_DEBUG_REGS 16

struct facts {
	struct probe_cpu cpu;
	struct probe_cache cache[MAX_CACHES];
	int ncache;
	struct utsname uts;
	int paranoid;
	int privileged;
	struct probe_pmu pmu;
	struct probe_hw hw;
	int dregs, dregs_err;
	int modify, sigtrap, sw_clock;	/* 0 or -errno */
	char clang[256];		/* the compiler sonde-cc would use, "" if none */
	const char *fix[MAX_FIXES];
	char fixbuf[MAX_FIXES][PROBE_WHY + 64];
	int nfix;
};

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

static void collect_fixes(struct facts *f)
{
	if (f->paranoid > 2 && !f->privileged)
		add_fix(f, "perf_event_paranoid is %d: run 'sysctl kernel.perf_event_paranoid=2' "
			   "(or grant CAP_PERFMON)", f->paranoid);
	if (!f->hw.usable)
		add_fix(f, "hw source: %s", f->hw.why);
	if (f->dregs == 0)
		add_fix(f, "no debug registers (%s): comm, reuse and variance need them; in a VM, "
			   "a hypervisor that passes debug registers", probe_perf_strerror(f->dregs_err));
	else if (f->modify < 0)
		add_fix(f, "PERF_EVENT_IOC_MODIFY_ATTRIBUTES on breakpoints fails (%s): Linux 4.17+ "
			   "re-arms watchpoints without close/open", probe_perf_strerror(f->modify));
	if (f->dregs > 0 && f->sigtrap < 0)
		add_fix(f, "attr.sigtrap does not work (%s): Linux 5.13+ delivers traps "
			   "synchronously; sonde uses F_SETSIG signals instead",
			f->sigtrap == -ENOTSUP ? "no signal came" : probe_perf_strerror(f->sigtrap));
	if (f->sw_clock < 0)
		add_fix(f, "cpu-clock sampling refused (%s): the clock source cannot run; check "
			   "perf_event_paranoid and seccomp filters (containers)",
			probe_perf_strerror(f->sw_clock));
	if (!f->clang[0])
		add_fix(f, "no clang on PATH: the inst source needs it (tools/deps.sh installs it, "
			   "or set SONDE_CC)");
}

static void gather(struct facts *f)
{
	memset(f, 0, sizeof(*f));
	probe_cpu(&f->cpu);
	f->ncache = probe_caches(f->cache, MAX_CACHES);
	uname(&f->uts);
	f->paranoid = probe_paranoid();
	f->privileged = probe_privileged();
	probe_pmu(&f->pmu);
	probe_hw(&f->hw);
	f->dregs = probe_debug_registers(MAX_DEBUG_REGS, &f->dregs_err);
	f->modify = f->dregs > 0 ? probe_bp_modify() : -ENOSPC;
	f->sigtrap = f->dregs > 0 ? probe_bp_sigtrap() : -ENOSPC;
	f->sw_clock = probe_sw_clock();
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
	return kind >= 0 && kind <= PROBE_HW_PAGE_FAULTS ? names[kind] : "none";
}

static const char *sample_source(const struct facts *f)
{
	return f->hw.usable ? "hw" : f->sw_clock == 0 ? "clock" : "none";
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

static void text_cpu(const struct facts *f)
{
	printf("cpu              %s (%s family %d model %d stepping %d)\n", f->cpu.model,
	       f->cpu.vendor[0] ? f->cpu.vendor : "unknown vendor", f->cpu.family,
	       f->cpu.model_num, f->cpu.stepping);
	printf("                 %d CPUs online (%d available to this process), %d cores, "
	       "%d socket%s%s\n", f->cpu.cpus_online, f->cpu.cpus_available, f->cpu.cores,
	       f->cpu.sockets, f->cpu.sockets == 1 ? "" : "s",
	       f->cpu.hypervisor ? "; a virtual machine (cpuinfo flag \"hypervisor\")" : "");
	printf("caches           ");
	for (int i = 0; i < f->ncache; i++) {
		const struct probe_cache *c = &f->cache[i];
		char sz[32];
		size_text(c->size, sz, sizeof(sz));
		printf("%sL%d%s %s", i ? ", " : "", c->level,
		       !strcmp(c->type, "Data") ? "d" : !strcmp(c->type, "Instruction") ? "i" : "",
		       sz);
		if (c->shared_cpus > 1)
			printf(" (shared by %d CPUs)", c->shared_cpus);
	}
	if (f->ncache)
		printf("; line %d bytes\n", f->cache[0].line);
	else
		printf("unknown (no /sys/devices/system/cpu/cpu0/cache)\n");
	printf("kernel           %s %s %s\n", f->uts.sysname, f->uts.release, f->uts.machine);
}

static void text_perf(const struct facts *f)
{
	printf("perf_event_paranoid %d: %s%s\n", f->paranoid, probe_paranoid_meaning(f->paranoid),
	       f->privileged ? " (this user is privileged: not limited by it)" : "");
	if (f->pmu.cpu_pmu[0])
		printf("cpu PMU          %s: counting %s, sampling %s, max_precise %d\n",
		       f->pmu.cpu_pmu, yes_no(f->pmu.hw_count), yes_no(f->pmu.hw_sample),
		       f->pmu.max_precise);
	else
		printf("cpu PMU          none: %s\n", f->pmu.why);
	printf("precise events   PEBS %s, IBS %s, Arm SPE %s\n", has_pebs(f) ? "yes" : "no",
	       f->pmu.ibs_op >= 0 ? "yes (ibs_op)" : "no",
	       f->pmu.arm_spe ? "present (not implemented in sonde)" : "no");
	printf("hw source        %s: %s\n", f->hw.usable ? "yes" : "no", f->hw.why);
	printf("debug registers  %d per thread", f->dregs);
	if (f->dregs_err)
		printf(" (the next one: %s)", probe_perf_strerror(f->dregs_err));
	printf("\n  modify attributes (PERF_EVENT_IOC_MODIFY_ATTRIBUTES)  %s\n", yes_no(f->modify));
	printf("  attr.sigtrap (synchronous SIGTRAP)                  %s\n", yes_no(f->sigtrap));
	printf("cpu-clock sampling %s\n", f->sw_clock == 0 ? "yes" :
	       probe_perf_strerror(f->sw_clock));
}

static void text_tools(const struct facts *f)
{
	const char *src = sample_source(f);
	const char *why = f->hw.usable ? "" : " (no hw: see below)";
	int w = f->dregs > 0;

	printf("\nsample source per tool\n");
	printf("  mem       %s%s\n", src, why);
	printf("  comm      %s + watchpoints%s\n", src, w ? "" : " (unavailable: no debug registers)");
	printf("  reuse     %s + watchpoints%s\n", src, w ? "" : " (unavailable: no debug registers)");
	printf("  variance  %s + breakpoints%s\n", src, w ? "" : " (unavailable: no debug registers)");
	printf("  inst      any tool with --source inst, after a rebuild with sonde-cc (%s)\n",
	       f->clang[0] ? f->clang : "no clang found");
}

static void print_text(const struct facts *f)
{
	text_cpu(f);
	text_perf(f);
	text_tools(f);
	if (!f->nfix) {
		printf("\nnothing to fix\n");
		return;
	}
	printf("\nto fix\n");
	for (int i = 0; i < f->nfix; i++)
		printf("  - %s\n", f->fix[i]);
}

/* ---- json ---- */

static void json_err(struct json *j, const char *key, int err)
{
	json_str(j, key, err ? probe_perf_strerror(err) : NULL);
}

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

static void json_perf(struct json *j, const struct facts *f)
{
	json_int(j, "perf_event_paranoid", f->paranoid);
	json_str(j, "perf_event_paranoid_meaning", probe_paranoid_meaning(f->paranoid));
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
	json_bool(j, "arm_spe", f->pmu.arm_spe);
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
	json_int(j, "debug_registers", f->dregs);
	json_err(j, "debug_registers_limit", f->dregs_err);
	json_bool(j, "modify_attributes", f->modify == 0);
	json_bool(j, "sigtrap", f->sigtrap == 0);
	json_bool(j, "cpu_clock_sampling", f->sw_clock == 0);
}

static void json_tool(struct json *j, const char *name, const char *source, int needs_dregs,
		      const struct facts *f)
{
	json_begin_object(j, name);
	json_str(j, "source", source);
	json_bool(j, "available", !!strcmp(source, "none") && (!needs_dregs || f->dregs > 0));
	json_bool(j, "needs_debug_registers", needs_dregs);
	json_end_object(j);
}

static void print_json(const struct facts *f)
{
	struct json j;
	const char *src = sample_source(f);

	json_init(&j, stdout);
	json_begin_object(&j, NULL);
	json_cpu(&j, f);
	json_perf(&j, f);
	json_begin_object(&j, "tools");
	json_tool(&j, "mem", src, 0, f);
	json_tool(&j, "comm", src, 1, f);
	json_tool(&j, "reuse", src, 1, f);
	json_tool(&j, "variance", src, 1, f);
	json_end_object(&j);
	json_begin_object(&j, "inst");
	json_bool(&j, "needs_rebuild", 1);
	json_str(&j, "compiler", f->clang[0] ? f->clang : NULL);
	json_end_object(&j);
	json_begin_array(&j, "fixes");
	for (int i = 0; i < f->nfix; i++)
		json_str(&j, NULL, f->fix[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}

static void print_help(void)
{
	printf("usage: sonde info [--json]\n\n"
	       "What this machine offers for profiling, and what to fix: CPU, caches, kernel,\n"
	       "perf_event_paranoid, the PMU and its precise events (PEBS, IBS, Arm SPE), debug\n"
	       "registers, and the sample source each tool will use.  Opens a few perf events\n"
	       "on itself to find out.  Always exits 0 (it is a report).\n\n"
	       "  --json       one JSON object with the same facts (keys: doc/sonde-info.md)\n"
	       "  -h, --help   this help\n");
}

int cmd_info(int argc, char **argv)
{
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
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
	gather(&f);
	if (json)
		print_json(&f);
	else
		print_text(&f);
	fflush(stdout);
	return 0;
}
