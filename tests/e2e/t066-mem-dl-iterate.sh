#!/usr/bin/env bash
# t066-mem-dl-iterate: a program that calls dl_iterate_phdr in a loop runs to its end under
# `sonde mem` (its status and output as without).  A sample that landed inside it unwound
# with libunwind, whose own dl_iterate_phdr waited on the loader's lock the program held:
# the program hung for good, SIGKILL only (3 runs of 3 at 30 million calls, and at 5
# million here; the usability review of 2026-11-27).  Such samples keep their leaf.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t066 "gcc is not installed"; exit 0; }
cat >dlit.c <<'EOC'
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
static volatile long cnt;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
	(void)s, (void)d;
	for (int k = 0; k < i->dlpi_phnum; k++)
		cnt += i->dlpi_phdr[k].p_memsz & 1;
	return 0;
}
int main(void)
{
	for (int r = 0; r < 5000000; r++)
		dl_iterate_phdr(cb, 0);
	printf("dlit %d\n", cnt > 0);
	return 0;
}
EOC
gcc -O2 -g dlit.c -o dlit || { fail t066-build "gcc could not build dlit.c"; exit 0; }
./dlit >want
"$SONDE" mem -q -o rec -- "$T/dlit" >got 2>err &
pid=$!
# about 1 s alone; 300 s is a hang, on any machine
for i in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 1; done
if kill -0 $pid 2>/dev/null; then
	pkill -9 -f "$T/dlit"
	kill -9 $pid 2>/dev/null
	fail t066-no-hang "sonde mem -- ./dlit still running after 300 s (killed)"
	exit 0
fi
wait $pid
check "t066-status-$?" [ $? -eq 0 ]
check t066-no-hang cmp -s want got
check t066-samples [ "$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'samples'")" -gt 0 ]
