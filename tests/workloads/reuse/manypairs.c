/* SPDX-License-Identifier: MIT */
/*
 * manypairs.c - 64 loads in a loop, each reading the word the load after it read in the
 * previous iteration: 63 code pairs (load k uses a word, load k-1 reuses it in the next
 * iteration), each reused exactly N - 1 times, at distance 63 (the other loads' words):
 * more hot pairs than `sonde reuse --exact` once had slots for (32, direct-mapped: a
 * 424-byte record per access or two).  Built with sonde-cc by t514.
 *
 *   manypairs N      N iterations (at most 60000) of the 64 loads; prints their sum (0)
 */
#include <stdio.h>
#include <stdlib.h>

#define W 65536
/* one load per line: each has its own code location */
#define L(k) s += a[i + (k)];

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	volatile double *a = calloc(W, sizeof(double));
	double s = 0;
	if (!a || n < 1 || n > W - 64)
		return 2;
	for (long i = 0; i < n; i++) {
		L(0)
		L(1)
		L(2)
		L(3)
		L(4)
		L(5)
		L(6)
		L(7)
		L(8)
		L(9)
		L(10)
		L(11)
		L(12)
		L(13)
		L(14)
		L(15)
		L(16)
		L(17)
		L(18)
		L(19)
		L(20)
		L(21)
		L(22)
		L(23)
		L(24)
		L(25)
		L(26)
		L(27)
		L(28)
		L(29)
		L(30)
		L(31)
		L(32)
		L(33)
		L(34)
		L(35)
		L(36)
		L(37)
		L(38)
		L(39)
		L(40)
		L(41)
		L(42)
		L(43)
		L(44)
		L(45)
		L(46)
		L(47)
		L(48)
		L(49)
		L(50)
		L(51)
		L(52)
		L(53)
		L(54)
		L(55)
		L(56)
		L(57)
		L(58)
		L(59)
		L(60)
		L(61)
		L(62)
		L(63)
	}
	printf("manypairs: %.0f\n", s);
	return 0;
}
