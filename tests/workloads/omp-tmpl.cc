// SPDX-License-Identifier: MIT
/*
 * omp-tmpl - one OpenMP region in a class template's member, instantiated twice
 * (tests/e2e/t091-openmp-clang-template-regions.sh).
 *
 * usage: omp-tmpl float|double [REPS]     (default 200)
 *
 * Known answer: Grid<float>::scale and Grid<double>::scale are both compiled (both
 * instantiations are reachable), but only the one named on the command line runs: every
 * sample in the region's loop (the line marked "the region's loop") is that
 * instantiation's.  clang outlines the region of each as its own ".omp_outlined..N",
 * from the same source lines.  Prints the first element.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

template <class T> struct Grid {
	T *a;
	long n;
	explicit Grid(long len) : n(len)
	{
		a = static_cast<T *>(calloc(static_cast<size_t>(len), sizeof(T)));
	}
	~Grid() { free(a); }
	void scale(T s)
	{
		T *p = a;
		long m = n;
#pragma omp parallel for
		for (long i = 0; i < m; i++)
			p[i] = p[i] * s + static_cast<T>(1);	// the region's loop
	}
};

int main(int argc, char **argv)
{
	bool dbl = argc > 1 && !strcmp(argv[1], "double");
	int reps = argc > 2 ? atoi(argv[2]) : 200;
	long n = 1L << 21;
	if (dbl) {
		Grid<double> g(n);
		for (int r = 0; r < reps; r++)
			g.scale(0.5);
		printf("%g\n", g.a[0]);
	} else {
		Grid<float> g(n);
		for (int r = 0; r < reps; r++)
			g.scale(0.5f);
		printf("%g\n", static_cast<double>(g.a[0]));
	}
	return 0;
}
