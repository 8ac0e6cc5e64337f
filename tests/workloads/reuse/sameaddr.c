/* sameaddr.c - two heap blocks at one address, one after the other, for sonde reuse's
 * naming of a pair's data object (t526).  Block A (4 MiB, line "alloc a") is read 400
 * times over, then freed; block B, of the same size, is allocated next: with glibc's mmap
 * threshold under its size (MALLOC_MMAP_THRESHOLD_=1048576) it is mapped where A was.  B
 * is written once.  Prints both addresses and "same" when they are equal.
 * `sameaddr REPS`: A read REPS times (t526's --exact run: 3, every access counted). */
#include <stdio.h>
#include <stdlib.h>

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
