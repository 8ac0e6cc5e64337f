#!/usr/bin/env bash
# t037-rt-launcher-daemon: an MPI program started without a launcher (a singleton) forks
# and execs the launcher's daemon (Open MPI's orted) to serve it; the runtime does not
# follow that exec (the trial of 2026-11-28 read orted's threads beside the program's, and
# a header "sonde mem: mixed").  A program forks and execs a copy of `true` named orted,
# then one named helper: no recording of orted's image (no PREFIX.e1 files of its pid),
# helper's followed as before.  With Open MPI, a real singleton run too.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t037 "gcc is not installed"; exit 0; }
tr=$(type -P true) || { skip t037 "no true program"; exit 0; }
mkdir -p bin && cp "$tr" bin/orted && cp "$tr" bin/helper
cat >fe.c <<'EOC'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static int run(const char *path)
{
	int st = 0;
	pid_t c = fork();
	if (c == 0) {
		execl(path, path, "--hnp", (char *)0);
		_exit(127);
	}
	waitpid(c, &st, 0);
	printf("%s %d %d\n", path, (int)c, WEXITSTATUS(st));
	return WEXITSTATUS(st);
}
int main(void)
{
	return run("bin/orted") | run("bin/helper");
}
EOC
gcc -O2 -g fe.c -o fe || { fail t037-build "gcc could not build fe.c"; exit 0; }
"$SONDE" mem -q -o rec -- ./fe >out 2>err
check t037-status [ $? -eq 0 ]
po=$(awk '$1 == "bin/orted" { print $2 }' out) ph=$(awk '$1 == "bin/helper" { print $2 }' out)
check "t037-daemon-ran-${po:-none}" grep -q "^bin/orted [0-9]* 0$" out
check "t037-daemon-not-followed" [ ! -e "rec/$po.e1.proc" ]
check "t037-other-followed" [ -e "rec/$ph.e1.proc" ]
if command -v mpicc >/dev/null && command -v orted >/dev/null; then
	cat >m.c <<'EOC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int r;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	printf("rank %d\n", r);
	MPI_Finalize();
	return 0;
}
EOC
	if mpicc -O2 m.c -o m 2>/dev/null; then
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			"$SONDE" mem -q -o mrec -- ./m >mout 2>merr
		check t037-singleton-status [ $? -eq 0 ]
		check t037-singleton-ran grep -q "^rank 0$" mout
		n=$(grep -l "^exe=.*/orted$" mrec/*.proc 2>/dev/null | wc -l)
		check "t037-singleton-no-orted-recording-$n" [ "$n" -eq 0 ]
		check t037-singleton-header-not-mixed grep -q "^sonde mem: ./m\$" \
			<("$SONDE" report mrec 2>&1)
	else
		skip t037-singleton "mpicc could not build an MPI program"
	fi
else
	skip t037-singleton "Open MPI (mpicc, orted) is not installed"
fi
