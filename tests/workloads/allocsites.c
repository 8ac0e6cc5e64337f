/*
 * allocsites - allocation sites under a call-site cache.  Known answer:
 *   site_a: 1000 blocks of 4 KiB (malloc), site_b: 1000 blocks of 5 KiB (malloc), called
 *   alternately; dup_a: 500 strdup copies of a 2 KiB string, dup_b: 300 copies of a 3 KiB
 *   one (strdup's own malloc is in libc: the object is named by strdup's caller).  The
 *   sizes differ so that the compiler cannot fold the twin functions into one.  Every block is
 *   written once and freed.  Prints "allocsites: ok".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[2048], text_b[3072];
static volatile unsigned long sink;

static __attribute__((noinline)) char *site_a(void)
{
	char *p = malloc(4096);
	sink += (unsigned long)p;
	return p;
}

static __attribute__((noinline)) char *site_b(void)
{
	char *p = malloc(5120);
	sink += (unsigned long)p;
	return p;
}

static __attribute__((noinline)) char *dup_a(void)
{
	char *p = strdup(text);
	sink += (unsigned long)p;
	return p;
}

static __attribute__((noinline)) char *dup_b(void)
{
	char *p = strdup(text_b);
	sink += (unsigned long)p;
	return p;
}

static void use(char *p, size_t n)
{
	memset(p, 1, n);
	free(p);
}

int main(void)
{
	memset(text, 'x', sizeof(text) - 1);
	memset(text_b, 'y', sizeof(text_b) - 1);
	for (int i = 0; i < 1000; i++) {
		use(site_a(), 4096);
		use(site_b(), 5120);
		if (i < 500)
			use(dup_a(), 2048);
		if (i < 300)
			use(dup_b(), 3072);
	}
	puts("allocsites: ok");
	return 0;
}
