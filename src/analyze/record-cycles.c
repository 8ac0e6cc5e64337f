/* SPDX-License-Identifier: MIT */
/*
 * record-cycles.c - `sonde record-cycles [-o FILE] [--arch NAME] [--dry-run] -- program`:
 * runs `perf record -g` with the events of this CPU's cycle-accounting template
 * (data/topdown/), so that `sonde analyze` can fill every branch.
 * Exit statuses (doc/sonde-analyze.md): perf's own status when it ran; 1 no hardware PMU
 * here, no template, or perf cannot be run; 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "analyze/topdown.h"

static void print_help(void)
{
	printf("usage: sonde record-cycles [options] -- program [args]\n\n"
	       "Run 'perf record -g' on the program with the events this CPU's cycle-accounting\n"
	       "template needs (raw codes where the template has them).  Needs a hardware PMU.\n\n"
	       "  -o, --output FILE   perf.data to write (default perf.data)\n"
	       "  --arch NAME         template to use (default: from /proc/cpuinfo)\n"
	       "  --dry-run           print the perf command line, run nothing (no PMU needed)\n"
	       "  -h, --help          this help\n\n"
	       "Exit status: perf's when it ran; 1 no PMU, no template or no perf; 2 usage.\n");
}

/* "GenuineIntel,6,85" from /proc/cpuinfo (vendor, family, model), as perf's CPUID feature. */
static void cpuid_here(char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], vendor[64] = "unknown";
	int family = 0, model = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %63s", vendor) == 1)
			continue;
		if (sscanf(line, "cpu family : %d", &family) == 1)
			continue;
		if (sscanf(line, "model : %d", &model) == 1)
			break;
	}
	if (f)
		fclose(f);
	snprintf(buf, n, "%s,%d,%d", vendor, family, model);
}

/* A core PMU in sysfs ($SONDE_EVENT_SOURCE_DIR replaces the sysfs directory, for tests). */
static int have_pmu(void)
{
	static const char *const pmus[] = { "cpu", "cpu_core", "armv8_pmuv3_0" };
	const char *dir = getenv("SONDE_EVENT_SOURCE_DIR");
	char p[512];
	struct stat st;
	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir ? dir : "/sys/bus/event_source/devices", pmus[i]);
		if (!stat(p, &st))
			return 1;
	}
	return 0;
}

/* The event for a symbol: its raw code if the template has one (stock perf knows no
 * libpfm names), else its first name. */
static const char *event_for(const struct td_symbol *s)
{
	for (size_t a = 0; a < s->nalts; a++)
		if (s->alts[a][0] == 'r' && strspn(s->alts[a] + 1, "0123456789abcdef") ==
		    strlen(s->alts[a] + 1) && s->alts[a][1])
			return s->alts[a];
	return s->alts[0];
}

static char *event_list(const struct td_model *m)
{
	size_t n = 1;
	for (size_t i = 0; i < m->nsyms; i++)
		n += strlen(event_for(&m->syms[i])) + 1;
	char *l = calloc(n, 1);
	for (size_t i = 0; l && i < m->nsyms; i++) {
		if (i)
			strcat(l, ",");
		strcat(l, event_for(&m->syms[i]));
	}
	return l;
}

int cmd_record_cycles(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "arch", required_argument, NULL, 'a' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "perf.data", *arch = NULL;
	int dry = 0, c;
	optind = 1;
	opterr = 0;	/* bad_option says it in sonde's one line */
	while ((c = getopt_long(argc, argv, "+ho:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'a': arch = optarg; break;
		case 'n': dry = 1; break;
		case 'h': print_help(); return 0;
		default: return bad_option("record-cycles", argv);
		}
	}
	if (optind >= argc)
		return sonde_usage_error("record-cycles", "no program to run (give it after --)");
	char cpuid[128], err[512];
	cpuid_here(cpuid, sizeof(cpuid));
	struct td_model *m = td_select(td_default_dir(), arch, cpuid, err, sizeof(err));
	if (!m) {
		sonde_error("%s", err);
		return 1;
	}
	if (!dry && !have_pmu()) {
		sonde_error("record-cycles needs a hardware PMU and this machine has none (a VM "
			    "without a virtual PMU?); record with 'perf record -e cpu-clock -g' and "
			    "run 'sonde analyze' on that");
		td_free(m);
		return 1;
	}
	char *events = event_list(m);
	td_free(m);
	if (!events)
		return 1;
	size_t n = (size_t)(argc - optind);
	char **av = calloc(n + 9, sizeof(char *));
	if (!av) {
		free(events);
		return 1;
	}
	int k = 0;
	av[k++] = "perf";
	av[k++] = "record";
	av[k++] = "-g";
	av[k++] = "-s";	/* per-thread enabled/running times: multiplexing is corrected */
	av[k++] = "-e";
	av[k++] = events;
	av[k++] = "-o";
	av[k++] = (char *)out;
	av[k++] = "--";
	for (size_t i = 0; i < n; i++)
		av[k++] = argv[optind + (int)i];
	if (dry) {
		for (int i = 0; i < k; i++)
			printf("%s%s", i ? " " : "", av[i]);
		putchar('\n');
		free(av);
		free(events);
		return 0;
	}
	fflush(NULL);
	execvp("perf", av);
	sonde_error("cannot run perf: %s", strerror(errno));
	free(av);
	free(events);
	return 1;
}
