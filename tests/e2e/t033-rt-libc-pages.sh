#!/usr/bin/env bash
# t033-rt-libc-pages: the runtime maps no page of the program's libc that the program and
# a runtime that is off do not map (src/rt/libtrim.c, rt_trim_foreign_drop: what start-up
# alone mapped is unmapped again; the threads' stream names without snprintf; clock_gettime
# through the vDSO's entry).  commbench, which calls no stdio on its way, under `sonde comm
# --source inst` and with libsonde.so loaded and the runtime off, both under `setarch -R`:
# libc lies at the same place in both, so the same calls fill the same fault-around
# windows.  libc's resident KB at exit, from /proc/self/smaps, copied by a small preloaded
# destructor (as bench/memory.sh does).  Before the change: +256 KB (glibc's printf, scanf
# and stdio code and its constants, and its time code around clock_gettime's wrapper);
# after: +0 in the runs of 2026-11-26.  Bound: one fault-around window (64 KB), for a libc
# path that a thread's end or the process's end may take under the runtime alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t033-build || exit 0
setarch -R true 2>/dev/null || { skip t033 "setarch -R is refused here (no fixed layout)"; exit 0; }

cat >dump.c <<'EOF_C'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((destructor)) static void dump(void)
{
	char buf[65536];
	ssize_t n;
	const char *f = getenv("T033_SMAPS");
	if (!f || !strcmp(program_invocation_short_name, "sonde"))
		return;
	int in = open("/proc/self/smaps", O_RDONLY), out = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
}
EOF_C
gcc -shared -fPIC -O2 dump.c -o dump.so || { fail t033-dumper "cannot build the smaps dumper"; exit 0; }

# libc_kb SMAPS: the resident KB of libc's mappings
libc_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { c = $6 ~ /\/libc\.so/; next } c && /^Rss:/ { s += $2 }
	     END { print s + 0 }' "$1"
}

T033_SMAPS=$T/off.smaps setarch -R env LD_PRELOAD="$SONDE_BUILD/libsonde.so:$T/dump.so" \
	"$T/cb-inst" fs 3000000 50 >out-off 2>err-off
check t033-off-status [ $? -eq 0 ]
T033_SMAPS=$T/on.smaps LD_PRELOAD=$T/dump.so setarch -R \
	"$SONDE" comm --source inst -q -o rec -- "$T/cb-inst" fs 3000000 50 >out-on 2>err-on
check t033-on-status [ $? -eq 0 ]
check t033-on-stdout cmp -s out-off out-on
check t033-on-recorded ls rec/*.proc
off=$(libc_kb off.smaps) on=$(libc_kb on.smaps)
echo "libc resident at exit: runtime off $off KB, sonde comm $on KB"
check t033-libc-read [ "$off" -gt 0 ]
check t033-libc-pages [ "$on" -le $((off + 64)) ]
