#!/usr/bin/env bash
# t034-rt-foreign-drop-threads: the end of start-up's drop of other objects' pages
# (src/rt/libtrim.c, rt_trim_foreign_drop) loses no write of the program's.
#  1. a library whose constructor (run before sonde_init) starts a thread that makes its
#     own 1 MB of constants writable and writes them page by page, checking each write:
#     the drop read pagemap (a file page) and MADV_DONTNEEDed the run later, so a write in
#     between was lost (the review: 3 of ~87 runs under comm).  With two threads alive
#     nothing is dropped now: SONDE_DEBUG's line says "kept (other threads)", and no
#     write is lost.  Without the thread the same program's drop runs ("N dropped", N > 0:
#     start-up's stdio pages in libc, t033).
#  2. one thread: libtrim.c built into a program whose madvise writes the page being
#     dropped from inside the call (the reviewer's toctou.c: the write lands between the
#     pagemap read and the drop), in a segment the program mprotected writable before:
#     the segment is writable now (/proc/self/maps), so it is not dropped and the write
#     stays (it was lost, deterministically, before).
. "$(dirname "$0")/lib.sh"

cat >libw.c <<'EOF_C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#define SZ (1u << 20)
__attribute__((aligned(4096))) const unsigned char w_big[SZ] = { 1 };
static atomic_int w_stop, w_lost, w_passes;
static pthread_t w_thread;
static void *writer(void *a)
{
	volatile unsigned char *p = (volatile unsigned char *)w_big;
	if (mprotect((void *)w_big, SZ, PROT_READ | PROT_WRITE))
		return a;
	madvise((void *)w_big, SZ, MADV_RANDOM);	/* one page a fault */
	for (int pass = 1; !atomic_load(&w_stop); pass++) {
		for (size_t g = 0; g < SZ / 4096; g += 64) {
			for (size_t i = g; i < g + 64; i++)
				(void)p[i * 4096 + 8];	/* the file's pages, mapped */
			for (size_t i = g; i < g + 64; i++)
				p[i * 4096] = (unsigned char)(pass | 0x80);	/* written */
			for (size_t i = g; i < g + 64; i++)
				if (p[i * 4096] != (unsigned char)(pass | 0x80))
					atomic_fetch_add(&w_lost, 1);
			madvise((void *)(p + g * 4096), 64 * 4096, MADV_DONTNEED);
		}
		atomic_store(&w_passes, pass);
	}
	return a;
}
__attribute__((constructor)) static void w_init(void)
{
	if (getenv("T034_WRITER") && !pthread_create(&w_thread, NULL, writer, NULL))
		while (!atomic_load(&w_passes))	/* writing before sonde_init runs */
			usleep(100);
}
/* w_big's address in this object: the program's extern would get its own copy */
const unsigned char *w_addr(void)
{
	return w_big;
}
int w_done(void)
{
	atomic_store(&w_stop, 1);
	if (w_thread)
		pthread_join(w_thread, NULL);
	printf("passes %d, writes lost %d\n", atomic_load(&w_passes), atomic_load(&w_lost));
	return atomic_load(&w_lost) != 0;
}
EOF_C
cat >main.c <<'EOF_C'
#include <unistd.h>
int w_done(void);
int main(void)
{
	usleep(200000);
	return w_done();
}
EOF_C
gcc -shared -fPIC -O2 -pthread libw.c -o libw.so && gcc -O2 main.c -L. -lw -Wl,-rpath,"$T" -o wmain ||
	{ fail t034-build "cannot build the workload"; exit 0; }

SONDE_DEBUG=1 T034_WRITER=1 "$SONDE" comm -q -o rec1 -- ./wmain >out1 2>err1
check t034-writer-status [ $? -eq 0 ]
check t034-writer-nothing-lost grep -q 'writes lost 0$' out1
check t034-writer-kept grep -q "pages of other objects: kept (other threads)" err1
SONDE_DEBUG=1 "$SONDE" comm -q -o rec2 -- ./wmain >out2 2>err2
check t034-alone-status [ $? -eq 0 ]
n=$(sed -n "s/.*pages of other objects: \([0-9]*\) dropped/\1/p" err2 | head -1)
echo "one thread: ${n:-no} pages dropped"
check t034-alone-dropped [ "${n:-0}" -gt 0 ]

cat >toctou.c <<'EOF_C'
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "rt/libtrim.h"
const unsigned char *w_addr(void);
static volatile unsigned char *target;
static int target_hit;
/* libtrim.c's madvise: the target page written just before its run is dropped, as by
 * another thread between the pagemap read and the MADV_DONTNEED */
int madvise(void *a, size_t len, int adv)
{
	if (adv == MADV_DONTNEED && target && (void *)target >= a &&
	    (char *)target < (char *)a + len) {
		*target = 0x5a;
		target_hit = 1;
	}
	return (int)syscall(SYS_madvise, a, len, adv);
}
int main(void)
{
	unsigned char *p = (unsigned char *)w_addr() + 64 * 4096;
	mprotect((void *)w_addr(), 1 << 20, PROT_READ | PROT_WRITE);
	rt_trim_foreign_mark();			/* the page is not mapped yet */
	(void)*(volatile unsigned char *)p;	/* mapped now: the file's page */
	target = p;
	long n = rt_trim_foreign_drop(1);
	printf("dropped %ld; the written page's run %s, the page holds %#x\n", n,
	       target_hit ? "dropped" : "kept", *p);
	return target_hit && *p != 0x5a;	/* the write lost */
}
EOF_C
gcc -O2 -D_GNU_SOURCE -I"$SONDE_TOP/src" toctou.c "$SONDE_TOP/src/rt/libtrim.c" -L. -lw -Wl,-rpath,"$T" \
	-o toctou || { fail t034-toctou-build "cannot build libtrim.c into the test"; exit 0; }
./toctou >out3 2>&1
st=$?
cat out3
check t034-writable-write-kept [ $st -eq 0 ]
check t034-writable-not-dropped grep -q "run kept" out3
