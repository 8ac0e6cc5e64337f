/* SPDX-License-Identifier: MIT */
/*
 * record.c - what every recording tool does once its options are read: run the program
 * under the runtime, then build the profile and show it (cmds.h: record_and_report).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "ui/text.h"
#include "cmd/launch.h"
#include "cmd/verdict.h"
#include "prof/report.h"
#include "rt/watch.h"

/* Bytes of per-thread streams in dir: building the profile takes about a second per 100 MiB. */
static uint64_t raw_size(const char *dir)
{
	uint64_t total = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX + 256];
	struct stat st;
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 4, ".sdt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0)
			total += (uint64_t)st.st_size;
	}
	if (d)
		closedir(d);
	return total;
}

/*
 * The page is written after the run: a folder that is missing or cannot be written is
 * said before the program runs (a run of hours, then "cannot write" and no page).
 */
static int html_target_ok(const char *html)
{
	char tmp[PATH_MAX];
	struct stat st;
	snprintf(tmp, sizeof(tmp), "%s", html);
	const char *dir = dirname(tmp);
	/* (a parent that is a file passed access(W_OK): the page failed after the run, the
	 * usability review of 2026-11-30) */
	int e = stat(html, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR :
		access(dir, W_OK) ? errno :
		stat(dir, &st) == 0 && !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
	if (e)
		sonde_error("cannot write '%s': %s", html, strerror(e));
	return !e;
}

/* prog as execvp finds it, into buf: 1, or 0 if not found. */
static int find_program(const char *prog, char *buf, size_t len)
{
	if (strchr(prog, '/')) {
		snprintf(buf, len, "%s", prog);
		return access(buf, X_OK) == 0;
	}
	const char *path = getenv("PATH");
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(buf, len, "%.*s%s%s", (int)n, p, n ? "/" : "", prog);
		if (access(buf, X_OK) == 0)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

/* 1 if the dynamic symbol table of e's section scn (SHT_DYNSYM) names the function hooks
 * of sonde-cc --sonde-calls (-finstrument-functions: __cyg_profile_func_enter). */
static int has_call_hooks(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return 0;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		GElf_Sym sym;
		const char *n;
		if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh->sh_link, sym.st_name)) &&
		    !strcmp(n, "__cyg_profile_func_enter"))
			return 1;
	}
	return 0;
}

/* What sonde can do with the ELF file at path: *is_static 1 for an executable without a
 * PT_INTERP (a static program, static-pie too: no dynamic loader, so no LD_PRELOAD and no
 * runtime in it); *lacks_inst 1 for a dynamic one that does not link libsonde-inst.so (not
 * built by sonde-cc); *lacks_calls 1 for one that links it without the function hooks of
 * --sonde-calls.  All 0 when it cannot be told (not ELF, unreadable, not a regular file: a
 * FIFO named as the program would block the open, review). */
static void elf_facts(const char *path, int *is_static, int *lacks_inst, int *lacks_calls,
		      int *fortran)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	*is_static = *lacks_inst = *lacks_calls = *fortran = 0;
	if (fd < 0)
		return;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t nph = 0;
	if (e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && !elf_getphdrnum(e, &nph) && nph) {
		int interp = 0, dynamic = 0, inst = 0, calls = 0;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			interp |= gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP;
		}
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		while ((scn = elf_nextscn(e, scn))) {
			Elf_Data *d;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && !calls)
				calls = has_call_hooks(e, scn, &sh);
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			dynamic = 1;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Dyn dy;
				const char *n;
				if (gelf_getdyn(d, (int)i, &dy) && dy.d_tag == DT_NEEDED &&
				    (n = elf_strptr(e, sh.sh_link, dy.d_un.d_val)) &&
				    strstr(n, "libsonde-inst.so"))
					inst = 1;
				else if (gelf_getdyn(d, (int)i, &dy) && dy.d_tag == DT_NEEDED &&
					 (n = elf_strptr(e, sh.sh_link, dy.d_un.d_val)) &&
					 strstr(n, "libgfortran.so"))
					*fortran = 1;
			}
		}
		*is_static = !interp;
		*lacks_inst = dynamic && !inst;
		*lacks_calls = dynamic && inst && !calls;
	}
	if (e)
		elf_end(e);
	close(fd);
}

static void warn_note(const char *note)
{
	sonde_warn("%s", note);
}

/* A watchpoint tool on a program without sonde-cc's callbacks, where the debug registers
 * do not trap (a VM whose hypervisor does not pass them through): said before the run,
 * with what the run loses (a session's VM: variance ran to its end and then said "arm
 * failures ... no watchpoint backend", and reuse "nothing observed").  The probe is
 * `sonde info`'s (rt/watch.c), a few breakpoint events in this process; SONDE_WATCH=soft
 * fails in its own way (the runtime says it), so it is not probed. */
static void warn_no_traps(const struct launch_opts *o, const char *exe, int built_no_calls,
			  int fortran)
{
	const char *mode = getenv("SONDE_WATCH");
	if (!o->watch_loss || (mode && !strcmp(mode, "soft")))
		return;
	struct watch_probe p;
	if (watch_probe_run(&p) == 0 && p.fired == p.regs)
		return;
	const char *what = p.regs == 0 ? "no debug register can be opened here" :
			   p.fired == 0 ? "the debug registers do not trap here" :
					  "only some of the debug registers trap here";
	if (fortran && o->needs_calls)
		/* sonde-cc builds C and C++ only, and gfortran's -finstrument-functions hooks
		 * are not the ones sonde reads (before inlining, no frame pointer): the trial
		 * of 2026-11-29 on Nekbone was told to rebuild with sonde-cc, which refuses
		 * Fortran, and gfortran's hooks gave 1 instance of 71 calls */
		sonde_warn("%s%s: %s is a Fortran program (it links libgfortran), and its "
			   "functions' instances cannot be timed here: sonde-cc builds C and C++ "
			   "only (its --sonde-calls-only hooks time the C and C++ parts linked "
			   "with it), and gfortran's -finstrument-functions hooks are not ones "
			   "sonde can use; a machine whose debug registers trap times them all "
			   "('sonde info' says what this one offers)", what,
			   p.hypervisor && p.regs ? " (the hypervisor does not pass them through)" :
						    "", exe);
	else if (built_no_calls)	/* (a sonde-cc build has software watchpoints, but variance
				 * starts and ends an instance at a call and a return) */
		sonde_warn("%s%s: in %s, which sonde-cc built without --sonde-calls (the function "
			   "hooks that time calls where no breakpoint traps), %s ('sonde info' says "
			   "what this machine offers)", what, p.hypervisor && p.regs ? " (the "
			   "hypervisor does not pass them through)" : "", exe, o->watch_loss);
	else
		sonde_warn("%s%s: in %s, which sonde-cc did not build, %s (a program it starts "
			   "that sonde-cc built has software watchpoints; 'sonde info' says what "
			   "this machine offers)", what, p.hypervisor && p.regs ? " (the hypervisor "
			   "does not pass them through)" : "", exe, o->watch_loss);
}


int record_and_report(const struct launch_opts *o, char **argv)
{
	const struct report_opts ropts = { .format = REPORT_TEXT, .top = o->top }, *ro = &ropts;
	int quiet = o->quiet;
	const char *html = o->html;
	struct launch_result res;
	if (html && launch_mpi_rank() < 0 && !html_target_ok(html))
		return 1;
	/* said before the run, not only after it (the usability review of 2026-11-28: a long
	 * static program ran to its end before sonde said it could not be profiled); it still
	 * runs, as it would without sonde, and its status is passed through */
	if (launch_dir_refused(o))
		return 1;
	char exe0[PATH_MAX];
	int is_static = 0, lacks_inst = 0, lacks_calls = 0, fortran = 0;
	if (launch_mpi_rank() <= 0 && find_program(argv[0], exe0, sizeof(exe0)))
		elf_facts(exe0, &is_static, &lacks_inst, &lacks_calls, &fortran);
	if (is_static)
		sonde_warn("%s is statically linked: sonde's runtime cannot run in it (it is a "
			   "library the dynamic loader preloads), so it runs unprofiled; link it "
			   "dynamically (without -static)", exe0);
	/* --exact on a program sonde-cc did not build records nothing from it: said before
	 * it runs (the trial of 2026-11-28: a long Fortran run, then the refusal); a wrapper
	 * (env, a script) that starts a sonde-cc program is still profiled, so not refused */
	else if (o->exact && lacks_inst)
		sonde_warn("%s was not built by sonde-cc (it does not link libsonde-inst.so): "
			   "%s records nothing from it (a program it starts that sonde-cc "
			   "built is still profiled); rebuild it with sonde-cc, or drop %s",
			   exe0, o->exact_option, o->exact_option);
	else if (lacks_inst)
		warn_no_traps(o, exe0, 0, fortran);
	else if (lacks_calls && o->needs_calls)
		warn_no_traps(o, exe0, 1, fortran);
	else if (fortran && o->needs_calls && !lacks_calls)
		warn_no_traps(o, exe0, 0, fortran);	/* gfortran's own hooks */
	int r = launch_run(o, argv, &res);
	if (!res.started)
		return r;
	if (res.rank >= 0) {
		/* The ranks share the directory and end at different times: build once, later. */
		if (res.rank == 0 && (!quiet || !o->dir))	/* (-q: where sonde named it) */
			fprintf(stderr, "sonde: rank 0 done; recording in %s (all ranks: 'sonde report "
					"%s')\n", res.dir, res.dir);
		/* no page under MPI: no rank knows when the others are done (the trial of
		 * 2026-11-28: --html was ignored, silently) */
		if (res.rank == 0 && html)
			sonde_warn("--html under MPI: the page is not written (the ranks end at "
				   "different times); after the job: sonde report --html %s %s", html,
				   res.dir);
		return launch_exit_like(res.status);
	}
	char err[512] = "";
	uint64_t raw = raw_size(res.dir);
	if (raw > (64ull << 20) && !quiet)
		fprintf(stderr, "sonde: building the profile from %llu MiB of records...\n",
			(unsigned long long)(raw >> 20));
	/* -ENOENT: no .proc file (the launcher made the directory, so it is there) */
	int rb = report_build(res.dir, err, sizeof(err)), built = rb >= 0;
	if (built) {
		report_source_note(res.dir, o->source, warn_note);
		report_notes(res.dir, warn_note);
	}
	struct stat dst;
	if (rb == -ENOENT && stat(res.dir, &dst) != 0) {
		/* moved or deleted while the program ran: the records went with it, and no
		 * profile was built here (status as below) */
		sonde_error("the output directory %s is gone (moved or removed during the run): "
			    "no profile was built (if it was moved, 'sonde report NEWDIR' builds "
			    "one)", res.dir);
		int st = launch_exit_like(res.status);
		return st ? st : 1;
	} else if (rb == -ENOENT) {
		/* The program ran unprofiled: its status when it failed, else sonde's failure
		 * (a script must not take an exit 0 for a profile: the trial of 2026-11-27);
		 * an empty directory is not left behind as "the raw recording". */
		/* the why was said before the run (elf_facts), or by the runtime: this line
		 * closes without saying it a third time (the usability review of reuse,
		 * 2026-11-28: three lines, two alike, one on static linking beside the point) */
		if (is_static)
			sonde_error("nothing was recorded: %s is statically linked (above)", exe0);
		else if (o->exact && lacks_inst)
			sonde_error("nothing was recorded: %s was not built by sonde-cc, which %s "
				    "needs (above)", exe0, o->exact_option);
		else
			sonde_error("nothing was recorded: the runtime did not start in the program "
				    "(its reason, if it gave one, is above)");
		char lf[PATH_MAX + sizeof(VERDICT_LAUNCH_FILE) + 1];
		snprintf(lf, sizeof(lf), "%s/%s", res.dir, VERDICT_LAUNCH_FILE);
		/* the launcher's own note of the run's settings; a directory the user made
		 * (an empty -o DIR given) stays */
		unlink(lf);
		if (!res.created || rmdir(res.dir) != 0)
			sonde_error("what the run left is kept in %s", res.dir);
		int st = launch_exit_like(res.status);
		return st ? st : 1;
	} else if (!built) {
		sonde_error("%s", err);
		sonde_error("the raw recording is kept in %s", res.dir);
	} else if (!quiet) {
		if (report_print(res.dir, stderr, ro, err, sizeof(err)) < 0)
			sonde_error("%s", err);
		char q[PATH_MAX * 4 + 3];
		fprintf(stderr, "sonde: profile in %s (profile.db, %s/*.csv); "
				"sonde report %s shows it again\n", res.dir, o->tool,
			text_shell_word(res.dir, q, sizeof(q)));
	} else if (!o->dir) {
		/* -q: where sonde named it (a pid in the name) is still said, in one line (the
		 * usability review of 2026-11-29: nothing, so the run's directory was a guess) */
		fprintf(stderr, "sonde: profile in %s\n", res.dir);
	}
	if (html && built && report_html(res.dir, html, err, sizeof(err)) < 0) {
		/* the page asked for is not there: a script must see it (the usability review
		 * of reuse, 2026-11-29: '-o r6 --html r6', exit 0); the program's own failure
		 * first */
		sonde_error("%s", err);
		int st = launch_exit_like(res.status);
		return st ? st : 1;
	} else if (html && built && !quiet)	/* where (the comm review of 2026-11-29: unsaid) */
		fprintf(stderr, "sonde: page in %s\n", html);
	return launch_exit_like(res.status);
}

int bad_option(const char *cmd, char **argv)
{
	const char *a = argv[optind - 1];
	/* A long option getopt knows but refused: optopt is its value, which need not be a
	 * printable character ('--top' of comm printed a raw byte), so name it as typed. */
	if (optopt && !strncmp(a, "--", 2)) {
		int n = (int)strcspn(a, "=");
		if (a[n])
			return sonde_usage_error(cmd, "option '%.*s' takes no value", n, a);
		return sonde_usage_error(cmd, "option '%s' needs a value", a);
	}
	if (optopt > ' ' && optopt < 127)
		return sonde_usage_error(cmd, "unknown or incomplete option '-%c'", optopt);
	return sonde_usage_error(cmd, "unknown option '%s'", a);
}
