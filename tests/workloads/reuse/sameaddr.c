/* sameaddr.c - two heap blocks at one address, one after the other, for sonde reuse's
 * naming of a pair's data object (t526).  Block A (4 MiB, line "alloc a") is read 400
 * times over, then freed; block B, of the same size, is allocated next: with glibc's mmap
 * threshold under its size (MALLOC_MMAP_THRESHOLD_=1048576) it is mapped where A was.  B
 * is written once.  Prints both addresses and "same" when they are equal.
 * `sameaddr REPS`: A read REPS times (t526's --exact run: 3, every access counted).
 * `sameaddr REPS raw`: after A is freed, a mapping the runtime does not track (the mmap
 * system call, not libc's) is made at A's page and read REPS times (line "read c"), as a
 * thread's stack may come where a freed block was: prints "raw" and its address when the
 * kernel put it there. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 400;
	volatile float sink = 0;
	float *a = malloc(N * sizeof(float));	/* alloc a */
	if (!a)
		return 1;
	for (int i = 0; i < N; i++)
		a[i] = (float)i;
	for (int r = 0; r < reps; r++) {
		float s = 0;
		for (int i = 0; i < N; i++)
			s += a[i];			/* read a */
		sink += s;
	}
	void *pa = a;
	free(a);
	if (argc > 2 && !strcmp(argv[2], "raw")) {
		uintptr_t pg = (uintptr_t)pa & ~(uintptr_t)4095;
		float *c = (float *)syscall(SYS_mmap, (void *)pg, N * sizeof(float) + 4096,
					    PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (c == MAP_FAILED || (uintptr_t)c != pg) {
			printf("raw mapping not at %p\n", (void *)pg);
			return 0;
		}
		for (int r = 0; r < reps; r++) {
			float s = 0;
			for (int i = 0; i < N; i++)
				s += c[i];		/* read c */
			sink += s;
		}
		printf("raw %p\n", (void *)c);
		return 0;
	}
	float *b = malloc(N * sizeof(float));	/* alloc b */
	if (!b)
		return 1;
	for (int i = 0; i < N; i++)
		b[i] = 1;
	sink += b[5];
	printf("a %p b %p%s\n", pa, (void *)b, pa == (void *)b ? " same" : "");
	free(b);
	return 0;
}
