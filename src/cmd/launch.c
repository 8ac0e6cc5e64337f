/* SPDX-License-Identifier: MIT */
/* launch.c - run a program under libsonde.so: environment, output directory, wait. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/launch.h"
#include "cmd/verdict.h"
#include "prof/file.h"
#include "prof/profile.h"
#include "prof/tool.h"

const char launch_help[] =
	"  -o, --output DIR      where the recording goes (default sonde-<program>-<pid>;\n"
	"                        under MPI sonde-<program>-<job>, shared by the ranks)\n"
	"  -s, --source SRC      auto (default), clock, hw or inst: how samples are taken\n"
	"                        (auto: hw with a PMU, else inst for a program built with\n"
	"                        sonde-cc, else clock; -s hw without a PMU likewise;\n"
	"                        variance: clock)\n"
	"  -p, --period N        sampling period: ns of CPU time (clock: default 900000,\n"
	"                        ~1.1 kHz, unless the tool's default is given below),\n"
	"                        events (hw: default 100003), accesses (inst: default 10007;\n"
	"                        1 = every access; others over 2 taken as the next prime,\n"
	"                        which no shorter loop body divides)\n"
	"      --min-object B    heap blocks smaller than B bytes are not tracked (default\n"
	"                        1024; mem, comm and reuse: variance names no data object)\n"
	"      --max-depth N     call-path frames kept, 1-255 (default 64; a small one can\n"
	"                        leave a wrapper's objects named by the wrapper)\n"
	"      --no-follow-fork  do not profile forked children\n"
	"      --no-follow-exec  stop profiling at exec\n"
	"  -f, --force           write into a non-empty output directory (replaces its\n"
	"                        recording)\n"
	"      --seed N          seed of the random sample spreading: each thread makes the\n"
	"                        same choices in every run (timer samples still vary)\n"
	"      --debug           runtime messages on stderr\n"
	"  -q, --quiet           no summary (the recording and profile.db are still written;\n"
	"                        without -o, one line says where)\n"
	"      --top N           rows per table in the summary (default 10)\n"
	"      --html FILE       also write the profile as one HTML page into FILE\n";

void launch_opts_init(struct launch_opts *o, const char *tool)
{
	memset(o, 0, sizeof(*o));
	o->tool = tool;
	o->source = "auto";
	o->follow_exec = 1;
	o->follow_fork = 1;
	o->top = 10;
}

int launch_args(const char *cmd, int argc, char **argv, struct launch_opts *o,
		const struct option *own, const char *own_short,
		int (*own_option)(int opt, const char *arg, void *ctx), void *ctx,
		void (*usage)(FILE *f))
{
	static const struct option shared[] = { LAUNCH_LONG_OPTIONS, { 0 } };
	static const struct option help = { "help", no_argument, NULL, 'h' };
	/* the shared entries, the tool's, --help and the end: a tool has a handful */
	struct option all[sizeof(shared) / sizeof(shared[0]) + 16];
	size_t n = 0;
	char shortopts[64];
	int opt;
	for (const struct option *p = shared; p->name; p++)
		all[n++] = *p;
	for (const struct option *p = own; p && p->name && n < sizeof(all) / sizeof(all[0]) - 2;
	     p++)
		all[n++] = *p;
	all[n++] = help;
	memset(&all[n], 0, sizeof(all[n]));
	snprintf(shortopts, sizeof(shortopts), "+o:s:p:fqh%s", own_short ? own_short : "");
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shortopts, all, NULL)) != -1) {
		int r = launch_parse_option(o, opt, optarg, cmd);
		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (opt == '?' || opt == ':' || !own_option)
			return bad_option(cmd, argv);
		if ((r = own_option(opt, optarg, ctx)))
			return r;
	}
	return LAUNCH_ARGS_READ;
}

int launch_program(const char *cmd, int argc)
{
	if (optind < argc)
		return 0;
	return sonde_usage_error(cmd, "no program to run (sonde %s [options] -- program [args])",
				 cmd);
}

/* Decimal digits only: strtoul alone takes a leading space or '+', and a '-' that wraps
 * (-18446744073709551615 is 1). */
int launch_number(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && !errno && *v >= lo && *v <= hi;
}

int launch_exact(struct launch_opts *o, const char *cmd)
{
	if (!o->exact_option)
		o->exact_option = "--exact";
	if (o->source && strcmp(o->source, "inst") && strcmp(o->source, "auto"))
		return sonde_usage_error(cmd, "%s needs the inst source (a program built "
					      "with sonde-cc), not '%s'", o->exact_option, o->source);
	if (o->period > 1)
		return sonde_usage_error(cmd, "%s sees every access: no --period",
					 o->exact_option);
	o->source = "inst";
	o->period = 1;
	o->exact = 1;
	return 0;
}

/* Decimal digits only, as launch_number: strtoull in base 0 took '+5', ' 5', hex (0x10)
 * and octal (010 was 8), so a --period could mean what the user did not write. */
static int parse_u64(const char *arg, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!arg || *arg < '0' || *arg > '9')
		return -1;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int launch_parse_option(struct launch_opts *o, int opt, const char *arg, const char *cmd)
{
	uint64_t v;
	switch (opt) {
	case 'o':
		if (!*arg) {	/* read "its parent directory does not exist" (comm review) */
			sonde_usage_error(cmd, "-o needs a directory name");
			return -1;
		}
		o->dir = arg;
		return 1;
	case 's':
		if (strcmp(arg, "auto") && strcmp(arg, "clock") && strcmp(arg, "hw") &&
		    strcmp(arg, "inst")) {
			sonde_usage_error(cmd, "unknown sample source '%s' (auto, clock, hw, inst)", arg);
			return -1;
		}
		o->source = arg;
		return 1;
	case 'p':
		/* at most 2^53: the profile keeps a period as a double, and a larger one read
		 * back another number (18446744073709551615 as ...616: the usability review
		 * of 2026-11-28); 2^53 ns is 104 days */
		if (parse_u64(arg, &v) || v == 0 || v > (1ull << 53)) {
			/* digits past 2^53: too large, not "not a number" (the review of
			 * 2026-11-28); 1e12 is no decimal number */
			int big = arg && *arg && *arg != '0' &&
				  strspn(arg, "0123456789") == strlen(arg);
			if (big)
				sonde_usage_error(cmd, "--period %s is too large (at most %llu, 2^53: "
						  "104 days in ns)", arg, 1ull << 53);
			else
				sonde_usage_error(cmd, "--period wants a positive number (decimal "
						  "digits, no 1e9), not '%s'", arg);
			return -1;
		}
		o->period = v;
		return 1;
	case 1001:
		if (parse_u64(arg, &v)) {
			sonde_usage_error(cmd, "--min-object wants a size in bytes (decimal digits), not '%s'", arg);
			return -1;
		}
		o->min_object = v ? v : 1;
		return 1;
	case 1002:
		if (parse_u64(arg, &v) || v == 0 || v > 255) {
			sonde_usage_error(cmd, "--max-depth wants 1 to 255 (decimal digits), not '%s'", arg);
			return -1;
		}
		o->max_depth = (int)v;
		return 1;
	case 1003:
		o->follow_exec = 0;
		return 1;
	case 1004:
		o->follow_fork = 0;
		return 1;
	case 'f':
		o->force = 1;
		return 1;
	case 1005:
		if (parse_u64(arg, &v)) {
			sonde_usage_error(cmd, "--seed wants a number (decimal digits), not '%s'", arg);
			return -1;
		}
		o->seed = v;
		return 1;
	case 1006:
		o->debug = 1;
		return 1;
	case 'q':
		o->quiet = 1;
		return 1;
	case 1007:
		if (parse_u64(arg, &v) || v == 0 || v > 1000000) {
			sonde_usage_error(cmd, "--top wants a positive number (decimal digits), not '%s'", arg);
			return -1;
		}
		o->top = (int)v;
		return 1;
	case 1008:
		if (!*arg) {
			sonde_usage_error(cmd, "--html wants a file name");
			return -1;
		}
		o->html = arg;
		return 1;
	}
	return 0;
}

int launch_mpi_rank(void)
{
	static const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
				      "MV2_COMM_WORLD_RANK", "SLURM_PROCID" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			if (i == 4 && !getenv("SLURM_STEP_ID"))
				continue;	/* a Slurm batch script, not a parallel step */
			return atoi(v);
		}
	}
	return -1;
}

/* In an MPI recording directory: the id of the job that owns it. */
#define MPI_JOB_FILE "mpi.job"

/*
 * The job's id, the same in every rank on every node, from the launcher's environment
 * (Open MPI's mpirun, a PMIx launcher, Slurm), sanitized for a file name.  *global is 0
 * when no launcher variable names the job and the parent's pid stands in: ranks started
 * by one local launcher (MPICH's hydra proxy, mpispawn) still agree, ranks on other
 * nodes do not.
 */
static const char *mpi_job(int *global)
{
	static char buf[128];
	const char *v;
	*global = 1;
	if ((v = getenv("OMPI_MCA_ess_base_jobid")) && *v) {
		snprintf(buf, sizeof(buf), "%s", v);
	} else if ((v = getenv("PMIX_NAMESPACE")) && *v) {
		snprintf(buf, sizeof(buf), "%s", v);
	} else if ((v = getenv("SLURM_JOB_ID")) && *v) {
		snprintf(buf, sizeof(buf), "%s.%s", v, getenv("SLURM_STEP_ID") ?: "0");
	} else {
		*global = 0;
		snprintf(buf, sizeof(buf), "%d", (int)getppid());
	}
	for (char *p = buf; *p; p++)
		if (*p == '/' || *p == '@' || *p == ' ' || *p == '\n')
			*p = '_';
	return buf;
}

/* Search PATH like execvp: 0 and the path, or the errno a shell would report. */
static int find_program(const char *name, char *out, size_t len)
{
	if (strchr(name, '/')) {
		if (access(name, F_OK))
			return errno;
		struct stat st;
		if (stat(name, &st) == 0 && S_ISDIR(st.st_mode))
			return EISDIR;
		if (access(name, X_OK))
			return errno;
		snprintf(out, len, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int found_noexec = 0;
	for (const char *p = path; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		snprintf(out, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			found_noexec = 1;
		}
		p += n + (e ? 1 : 0);
		if (!e)
			break;
	}
	return found_noexec ? EACCES : ENOENT;
}

int launch_find_program(const char *name, char *out, size_t len)
{
	return find_program(name, out, len);
}

int launch_find_lib(const char *name, char *out, size_t len)
{
	const char *env = getenv("SONDE_LIBDIR");
	char exe[PATH_MAX];
	if (env && *env) {
		snprintf(out, len, "%s/%s", env, name);
		return access(out, R_OK) ? -ENOENT : 0;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	char *dir = dirname(exe);
	snprintf(out, len, "%s/%s", dir, name);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../lib/sonde/%s", dir, name);
	if (access(out, R_OK) == 0) {
		char real[PATH_MAX];
		if (realpath(out, real))
			snprintf(out, len, "%s", real);
		return 0;
	}
	return -ENOENT;
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 1;
	struct dirent *e;
	int empty = 1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* Unlink the regular files in PATH whose name is_ours accepts (a symbolic link, a FIFO
 * or a directory of that name is the user's: left).  -1 when PATH cannot be read. */
static int dir_unlink_if(const char *path, int (*is_ours)(const char *name))
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)))
		if (is_ours(e->d_name) &&
		    !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	return 0;
}

/*
 * A file a previous recording left in its directory: profile.db, run.txt, the MPI job's
 * and the verdict's files by their names, and the runtime's raw files (prof_is_raw_name).
 * Whole names, not endings: a user's "myprofile.db" or "notes.maps" is not ours.
 */
static int is_recording_file(const char *name)
{
	static const char *names[] = { "profile.db", "run.txt", MPI_JOB_FILE, VERDICT_LAUNCH_FILE };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return prof_is_raw_name(name);
}

/* A CSV file a tool exported (x.csv, not a file named only ".csv"). */
static int is_export_file(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && !strcmp(name + n - 4, ".csv");
}

/* "proc-" or "rank-" and digits, then ".e" and digits for an exec'd image (comm's
 * part_folder) or nothing: a user's proc-notes/ is not ours (review) */
static int part_dir(const char *name)
{
	if (strncmp(name, "proc-", 5) && strncmp(name, "rank-", 5))
		return 0;
	size_t n = strspn(name + 5, "0123456789");
	const char *e = name + 5 + n;
	return n && (!*e || (e[0] == '.' && e[1] == 'e' && e[2] &&
			     strspn(e + 2, "0123456789") == strlen(e + 2)));
}

/* A folder comm's export makes in PATH/comm/: one per process or rank (proc-PID,
 * rank-R), and --compare's sampled/. */
static int is_export_dir(const char *name)
{
	return part_dir(name) || !strcmp(name, "sampled");
}

/* The CSV files of PATH's export folders, and each folder if nothing else is in it. */
static void export_dirs_clear(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	struct stat st;
	char sub[PATH_MAX + 320];
	while ((e = readdir(d))) {
		if (!is_export_dir(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		dir_unlink_if(sub, is_export_file);
		rmdir(sub);
	}
	closedir(d);
}

/*
 * Remove what a previous recording left (only sonde's own files): its files in PATH, and
 * the CSV files a tool exported into PATH/<tool>/ and its folders there (per process,
 * comm's sampled/), and those folders if nothing else is in them: after 'sonde comm -o d',
 * 'sonde mem --force -o d' kept the CSV files of d/comm, a comm profile beside the new mem
 * recording that nothing marked as stale; and a comm run forced over a forked or
 * --compare run kept d/comm/proc-PID/ and d/comm/sampled/ until 2026-11-28 (the
 * usability review: a 5-thread run beside a 3-thread sampled matrix).
 */
static void dir_clear(const char *path)
{
	char sub[PATH_MAX + 64];
	struct stat st;
	if (dir_unlink_if(path, is_recording_file))
		return;
	for (int i = 0; tools[i]; i++) {
		if (!tools[i]->export)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, tools[i]->name);
		/* a symbolic link there leads to the user's folder: not ours to empty */
		if (lstat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (!strcmp(tools[i]->name, "comm"))	/* the only tool with such folders */
			export_dirs_clear(sub);
		dir_unlink_if(sub, is_export_file);
		rmdir(sub);	/* fails, as it should, if the user put files there */
	}
}

/* Anything in PATH but MPI_JOB_FILE (a job whose program could not start leaves just it). */
static int mpi_dir_has_files(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *e;
	int found = 0;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			strcmp(e->d_name, MPI_JOB_FILE);
	closedir(d);
	return found;
}

/* 0 if PATH/MPI_JOB_FILE names JOB. */
static int mpi_job_is(const char *path, const char *job)
{
	char p[PATH_MAX + 32], buf[160];
	snprintf(p, sizeof(p), "%s/%s", path, MPI_JOB_FILE);
	int err;
	FILE *f = file_fopen_regular(p, &err);	/* not a FIFO: the launch would wait for ever */
	if (!f)
		return -1;
	int same = fgets(buf, sizeof(buf), f) && !strcmp(strtok(buf, "\n") ?: "", job);
	fclose(f);
	return same ? 0 : -1;
}

/* Write PATH/MPI_JOB_FILE whole or not at all (a rank without the lock may read it). */
static int mpi_job_write(const char *path, const char *job)
{
	char p[PATH_MAX + 32], tmp[PATH_MAX + 64];
	snprintf(p, sizeof(p), "%s/%s", path, MPI_JOB_FILE);
	snprintf(tmp, sizeof(tmp), "%s.%d", p, (int)getpid());
	FILE *f = fopen(tmp, "we");
	if (!f)
		return -1;
	int bad = fprintf(f, "%s\n", job) < 0;
	if (fclose(f) || bad || rename(tmp, p)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * Under MPI every rank runs this for the one shared directory, in any order, and nothing
 * may be removed once a rank's program has started writing there.  The first rank of the
 * job to take the directory's lock checks that it holds no other recording (or, with
 * --force, clears it) and writes the job's id into MPI_JOB_FILE; the other ranks find
 * their id there and join.  flock is advisory and may be missing on some network file
 * systems: then the check still runs in each rank, unserialized.  Without an id that
 * all nodes share (*global 0), ranks on different nodes cannot tell each other from an
 * older job, so the directory is shared unchecked as before.
 */
static int mpi_claim_dir(const char *path, int force)
{
	int global;
	const char *job = mpi_job(&global);
	if (!global)
		return 0;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		sonde_error("cannot open output directory '%s': %s", path, strerror(errno));
		return 1;
	}
	while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
		;
	int r = 0;
	if (mpi_job_is(path, job) == 0) {
		/* another rank of this job was first */
	} else if (mpi_dir_has_files(path) && !force) {
		sonde_error("output directory '%s' holds another recording (use --force to "
			    "replace it, or -o another directory)", path);
		r = 1;
	} else {
		dir_clear(path);
		if (mpi_job_write(path, job)) {
			sonde_error("cannot write '%s/%s': %s", path, MPI_JOB_FILE, strerror(errno));
			r = 1;
		}
	}
	close(fd);	/* releases the lock */
	return r;
}

/* An existing `name` that cannot take the recording: not a directory, or not empty without
 * --force (an MPI rank's: the ranks share it, mpi_claim_dir); 1 and said, else 0. */
static int dir_refused(const char *name, int force, int rank)
{
	struct stat st;
	if (stat(name, &st) || !S_ISDIR(st.st_mode)) {
		sonde_error("output '%s' exists and is not a directory", name);
		return 1;
	}
	if (rank < 0 && !force && !dir_is_empty(name)) {
		sonde_error("output directory '%s' is not empty (use --force to replace its "
			    "recording, or -o another directory)", name);
		return 1;
	}
	return 0;
}

static void say_no_parent(const char *name)
{
	sonde_error("cannot create output directory '%s': its parent directory does not exist "
		    "(sonde makes the last level only: mkdir -p the rest first)", name);
}

int launch_dir_refused(const struct launch_opts *o)
{
	struct stat st;
	if (!o->dir)
		return 0;
	if (stat(o->dir, &st) == 0)
		return dir_refused(o->dir, o->force, launch_mpi_rank());
	/* a parent that is not there: said before the run's warnings, as prepare_dir would
	 * say it after them (the usability review of 2026-11-29: five lines of a watchpoint
	 * warning, then the one line that mattered) */
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", o->dir);
	if (errno == ENOENT && stat(dirname(parent), &st) != 0) {
		say_no_parent(o->dir);
		return 1;
	}
	return 0;
}

static int prepare_dir(const struct launch_opts *o, const char *prog, int rank,
		       struct launch_result *res, int *created)
{
	int global;
	char name[PATH_MAX];
	if (o->dir) {
		snprintf(name, sizeof(name), "%s", o->dir);
	} else {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%s", prog);
		if (rank >= 0)
			snprintf(name, sizeof(name), "sonde-%s-%s", basename(tmp), mpi_job(&global));
		else
			snprintf(name, sizeof(name), "sonde-%s-%d", basename(tmp), (int)getpid());
	}
	*created = 0;
	if (mkdir(name, 0755) == 0) {
		*created = 1;
	} else if (errno != EEXIST) {
		/* its parent missing: said so (the trial of 2026-11-28 read only "No such file
		 * or directory"); sonde makes the last level only, as mkdir does */
		int e = errno;
		char parent[PATH_MAX];
		snprintf(parent, sizeof(parent), "%s", name);
		struct stat pst;
		/* ENOENT with a parent that exists: a file system that makes no directory
		 * (/proc): not "its parent does not exist" (the usability review of
		 * 2026-11-28, -o /proc/nope) */
		int parent_there = stat(dirname(parent), &pst) == 0;
		if (e == ENOENT && !parent_there)
			say_no_parent(name);
		else if (e == ENOENT)
			sonde_error("cannot create output directory '%s': the file system of its "
				    "parent makes no directory there (No such file or directory); "
				    "give -o a directory on a disk", name);
		else
			sonde_error("cannot create output directory '%s': %s", name, strerror(e));
		return 1;
	} else {
		if (dir_refused(name, o->force, rank))
			return 1;
		if (rank < 0 && !dir_is_empty(name))
			dir_clear(name);	/* --force */
	}
	if (access(name, W_OK)) {
		sonde_error("cannot write to output directory '%s': %s", name, strerror(errno));
		if (*created)
			rmdir(name);
		return 1;
	}
	if (rank >= 0 && mpi_claim_dir(name, o->force))
		return 1;
	if (!realpath(name, res->dir)) {
		sonde_error("cannot resolve '%s': %s", name, strerror(errno));
		return 1;
	}
	return 0;
}

static void setenv_u64(const char *name, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	setenv(name, buf, 1);
}

static void child_env(const struct launch_opts *o, const char *runtime, const char *dir, int rank)
{
	const char *pre = getenv("LD_PRELOAD");
	char *lp;
	if (pre && *pre) {
		size_t n = strlen(runtime) + strlen(pre) + 2;
		lp = malloc(n);
		if (lp)
			snprintf(lp, n, "%s:%s", runtime, pre);
	} else {
		lp = strdup(runtime);
	}
	if (lp)
		setenv("LD_PRELOAD", lp, 1);
	setenv("SONDE_DIR", dir, 1);
	setenv("SONDE_TOOL", o->tool, 1);
	setenv("SONDE_SOURCE", o->source, 1);
	unsetenv("SONDE_EXEC_GEN");
	if (o->period)
		setenv_u64("SONDE_PERIOD", o->period);
	if (o->min_object)
		setenv_u64("SONDE_MIN_OBJECT", o->min_object);
	if (o->max_depth)
		setenv_u64("SONDE_MAX_DEPTH", (uint64_t)o->max_depth);
	setenv_u64("SONDE_FOLLOW_EXEC", (uint64_t)o->follow_exec);
	setenv_u64("SONDE_FOLLOW_FORK", (uint64_t)o->follow_fork);
	if (o->seed)
		setenv_u64("SONDE_SEED", o->seed);
	if (o->debug)
		setenv("SONDE_DEBUG", "1", 1);
	if (rank >= 0)
		setenv_u64("SONDE_RANK", (uint64_t)rank);
	setenv_u64("SONDE_ROOT_PID", (uint64_t)getpid());	/* we are the child, about to exec */
}

/*
 * Signals the launcher outlives while it waits for the program: ^C and ^\ as a shell does
 * for a foreground job, the program gets them from the terminal.  Under MPI also the ones
 * a launcher sends to a job (Open MPI signals each rank's process group, Slurm every
 * process of the step), so the program receives them itself and we pass its fate on.
 * Dying first would orphan the program, and Open MPI, seeing its child gone, would
 * SIGKILL the group at once, before the runtime has written the rank's profile.
 */
static const int wait_sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };
#define N_WAIT_SIGS (sizeof(wait_sigs) / sizeof(wait_sigs[0]))

/*
 * Outside MPI, SIGTERM and SIGHUP sent to the launcher alone (`kill $!` in a job script, a
 * closed terminal) are passed on to the program, as perf record and strace do: dying
 * alone would leave the program running on, orphaned, and its profile never built.  Sent
 * to the whole process group, the program gets such a signal twice.
 */
static volatile pid_t forward_pid;

static void forward_signal(int sig)
{
	int saved = errno;
	if (forward_pid > 0)
		kill(forward_pid, sig);	/* async-signal-safe */
	errno = saved;
}

static void wait_signals_ignore(int mpi, pid_t child, struct sigaction *old)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction fwd = { .sa_handler = forward_signal, .sa_flags = SA_RESTART };
	forward_pid = child;
	for (size_t i = 0; i < N_WAIT_SIGS; i++)
		if (mpi || i < 2)
			sigaction(wait_sigs[i], &ign, &old[i]);
		else if (wait_sigs[i] == SIGTERM || wait_sigs[i] == SIGHUP)
			sigaction(wait_sigs[i], &fwd, &old[i]);
}

static void wait_signals_restore(int mpi, const struct sigaction *old)
{
	for (size_t i = 0; i < N_WAIT_SIGS; i++)
		if (mpi || i < 2 || wait_sigs[i] == SIGTERM || wait_sigs[i] == SIGHUP)
			sigaction(wait_sigs[i], &old[i], NULL);
	forward_pid = 0;
}

/*
 * execv failed with ERR.  ENOENT for a file that exists means that what it names to run it
 * is missing: the "#!" line's interpreter of a script, or an ELF program's dynamic loader.
 * Say which, as "No such file or directory" alone sends the user looking for the program.
 */
static void exec_error(const char *name, const char *prog, int err)
{
	char head[256] = "";
	int fd = err == ENOENT ? open(prog, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		ssize_t n = read(fd, head, sizeof(head) - 1);
		head[n > 0 ? n : 0] = 0;
		close(fd);
	}
	if (head[0] == '#' && head[1] == '!') {
		char *interp = head + 2 + strspn(head + 2, " \t");
		interp[strcspn(interp, " \t\r\n")] = 0;
		sonde_error("cannot run '%s': bad interpreter '%s': %s", name, interp,
			    strerror(err));
	} else if (!memcmp(head, "\x7f" "ELF", 4)) {
		sonde_error("cannot run '%s': its dynamic loader (ELF interpreter) is missing: %s",
			    name, strerror(err));
	} else {
		sonde_error("cannot run '%s': %s", name, strerror(err));
	}
}

int launch_run(const struct launch_opts *o, char **argv, struct launch_result *res)
{
	char prog[PATH_MAX], runtime[PATH_MAX];
	int created;
	memset(res, 0, sizeof(*res));
	res->rank = launch_mpi_rank();
	int e = find_program(argv[0], prog, sizeof(prog));
	if (e) {
		sonde_error("cannot run '%s': %s", argv[0], strerror(e));
		return e == ENOENT ? 127 : 126;
	}
	if (launch_find_lib("libsonde.so", runtime, sizeof(runtime))) {
		sonde_error("cannot find libsonde.so next to the sonde executable or in "
			    "../lib/sonde (set SONDE_LIBDIR to its directory)");
		return 1;
	}
	if (prepare_dir(o, argv[0], res->rank, res, &created))
		return 1;
	res->created = created;
	/* clock's de-biasing: the user's, this machine's verdict's, or the default (verdict.h) */
	struct verdict_debias debias;
	int dr = verdict_debias(o->source, o->period, &debias) ?: verdict_debias_save(res->dir,
										  &debias);
	if (dr < 0 && dr != -ENOENT)
		sonde_warn("cannot write '%s/%s': %s", res->dir, VERDICT_LAUNCH_FILE,
			   strerror(-dr));

	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC)) {
		sonde_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		sonde_error("cannot fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child_env(o, runtime, res->dir, res->rank);
		if (debias.export)
			setenv_u64("SONDE_EXTRA_STEPS", (uint64_t)debias.steps);
		execv(prog, argv);
		int err = errno;
		ssize_t w = write(pipefd[1], &err, sizeof(err));
		(void)w;
		_exit(127);
	}
	close(pipefd[1]);
	/* Like a shell running a foreground job: ^C goes to the program, and we live on to
	 * write its profile. */
	struct sigaction old_sigs[N_WAIT_SIGS];
	wait_signals_ignore(res->rank >= 0, pid, old_sigs);
	int err = 0;
	ssize_t r;
	while ((r = read(pipefd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	/* wait without reaping: the pid stays the program's until the forwarding is off */
	siginfo_t si;
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
		;
	wait_signals_restore(res->rank >= 0, old_sigs);
	while (waitpid(pid, &res->status, 0) < 0 && errno == EINTR)
		;
	if (r == (ssize_t)sizeof(err)) {
		exec_error(argv[0], prog, err);
		/* leave the directory as we found it: launch.txt was written for the run that
		 * did not start (under MPI other ranks may share it: keep theirs) */
		if (res->rank < 0) {
			char p[PATH_MAX + 32];
			snprintf(p, sizeof(p), "%s/%s", res->dir, VERDICT_LAUNCH_FILE);
			unlink(p);
		}
		if (created)
			rmdir(res->dir);
		return err == ENOENT ? 127 : 126;
	}
	res->started = 1;
	return 0;
}

int launch_exit_like(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		fflush(NULL);
		signal(sig, SIG_DFL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		return 128 + sig;
	}
	return 1;
}
