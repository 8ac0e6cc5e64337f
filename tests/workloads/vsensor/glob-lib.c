/* glob-lib.c - the second file of glob-main.c's program. */
#include <unistd.h>

extern int nsize, naddr, ncb, ndef;
static double v[100000];

double kern_sealed(void)
{
	double t = 0;
	for (int i = 0; i < nsize; i++)		/* GLOB-SEALED fixed: no call can change nsize */
		t += v[i % 100000] * 0.5 + i;
	return t;
}

double kern_addr(void)
{
	double t = 0;
	for (int i = 0; i < naddr; i++)		/* GLOB-ADDR its address is kept: qsort may */
		t += v[i % 100000] * 0.25 + i;
	return t;
}

double kern_cb(void)
{
	double t = 0;
	for (int i = 0; i < ncb; i++)		/* GLOB-CB cmp writes it, qsort calls cmp */
		t += v[i % 100000] * 0.125 + i;
	return t;
}

double kern_lib(void)
{
	double t = 0;
	for (int i = 0; i < 1000 * optind; i++)	/* GLOB-LIB optind: the C library's own */
		t += v[i % 100000] * 0.0625 + i;
	return t;
}

double kern_def(void)
{
	double t = 0;
	for (int i = 0; i < ndef; i++)		/* GLOB-DEF defined in a file no function uses */
		t += v[i % 100000] * 0.03125 + i;
	return t;
}
