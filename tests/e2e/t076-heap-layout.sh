#!/usr/bin/env bash
# t076-heap-layout: under every tool the program's heap is laid out as it is alone.  The
# runtime's start-up allocations (the dlopens of its decoder and unwinder, fopen, opendir,
# dlsym's error state: ~40 blocks) came from the program's heap: the program's first
# malloc returned an address 0x50 further than alone, the next ones went into the freed
# chunks the runtime left (offsets 2f0 630 680 where alone 2a0 2c0 310), and blocks the
# program lays side by side fell into other cache lines: comm's false sharing between
# them was the profiler's.  The program below prints where its blocks fall in their page
# (the heap starts on a page, wherever ASLR puts it): in main before any thread, in main
# after threads were started (glibc allocates each new thread's DTV in the creator's heap,
# 16 bytes for each module with TLS, and libsonde.so is one more, libunwind another under
# mem: the later blocks moved 16 or 32 bytes a thread), in a thread, then in a fork child
# (the runtime restarts there).  Each tool's run must print the same lines.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t076 "gcc is not installed"; exit 0; }
cat >hl.c <<'EOC'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
static void show(const char *what, void *p)
{
	printf("%s %03lx\n", what, (unsigned long)((uintptr_t)p & 0xfff));
}
static void blocks(const char *who)
{
	char name[64];
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "%s malloc(%d)", who, 8 + 24 * i);
		void *p = malloc(8 + 24 * i);
		show(name, p);
		if (i % 3 == 1)
			free(p);
	}
	void *c = calloc(10, 12), *r = realloc(malloc(40), 400), *a;
	show("calloc", c);
	show("realloc", r);
	if (!posix_memalign(&a, 64, 100))
		show("posix_memalign", a);
	show("malloc(100000)", malloc(100000));
}
static void *worker(void *arg)
{
	if (arg)
		blocks("thread");
	return arg;
}
int main(void)
{
	blocks("main");
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	blocks("main after threads");
	pthread_create(&th[0], NULL, worker, "");
	pthread_join(th[0], NULL);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		blocks("child");
		return 0;
	}
	waitpid(pid, NULL, 0);
	return 0;
}
EOC
gcc -O1 -g -pthread -o hl hl.c
./hl >alone.txt
check t076-program-runs [ "$(wc -l <alone.txt)" -ge 60 ]
for tool in mem comm reuse variance; do
	"$SONDE" $tool -q -o out-$tool -- ./hl >$tool.txt 2>$tool.err
	check "t076-$tool-runs" [ $? -eq 0 ]
	d=$(diff alone.txt $tool.txt | grep -m1 '^>' | tr ' ()>' '_..+')
	check "t076-$tool-heap-as-alone${d:+-first-differs-$d}" cmp -s alone.txt $tool.txt
done

# A thread's DTV grown by the loader (20 libraries with TLS dlopen'd from it: more than
# the DTV's 14 spare entries): in its slot, with its stand-in resized in the program's
# heap as the program's own DTV would be.  The program reads each library's variable
# through its DTV (the sum 1 + ... + 20) and prints where its next block falls.
for i in $(seq 1 20); do
	printf '__thread long v%d = %d;\nlong *get%d(void) { return &v%d; }\n' $i $i $i $i >l$i.c
	gcc -shared -fPIC -O1 l$i.c -o libl$i.so
done
cat >dl.c <<'EOC'
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static long sum;
static void *worker(void *arg)
{
	for (int i = 1; i <= 20; i++) {
		char lib[64], fn[32];
		snprintf(lib, sizeof(lib), "./libl%d.so", i);
		snprintf(fn, sizeof(fn), "get%d", i);
		void *h = dlopen(lib, RTLD_NOW);
		if (!h)
			exit(1);
		long *(*get)(void) = (long *(*)(void))dlsym(h, fn);
		sum += *get();
	}
	return arg;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("sum %ld next %03lx\n", sum, (unsigned long)((uintptr_t)malloc(40) & 0xfff));
	return 0;
}
EOC
gcc -O1 -pthread dl.c -o dl -ldl
./dl >dl-alone.txt
check "t076-dtv-grown-alone-$(tr ' ' '_' <dl-alone.txt)" grep -q "^sum 210 " dl-alone.txt
for tool in mem comm; do
	"$SONDE" $tool -q -o dl-$tool -- ./dl >dl-$tool.txt 2>/dev/null
	check "t076-dtv-grown-$tool-$(tr ' ' '_' <dl-$tool.txt)" cmp -s dl-alone.txt dl-$tool.txt
done
