// SPDX-License-Identifier: MIT
/*
 * omp-names - C++ code whose names the reports must make readable: a function template with
 * a long name, and OpenMP parallel regions in three places clang names ".omp_outlined."
 * alike: a member function defined in its class body, a lambda, and main itself after
 * the lambda (so the last function declared before main's region is the lambda's).
 * Built by the Makefile with g++ (regions "._omp_fn.N") and by the tests with sonde-cc
 * or clang++ -fopenmp.
 *
 * usage: omp-names [ROUNDS [UNITS]]   default 20 and 4; each round calls every part once,
 *                                     each part loops UNITS x 100,000 multiply-adds
 *
 * Known answer: each of the three regions and the template do the same work per round
 * (UNITS x 100,000 loads of a 4,096-double vector), one loop at a line named below.
 * Prints "omp-names: <checksum> ok".
 */
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

namespace physics {

template <typename Real, typename Index> struct Mesh {
	std::vector<Real> field;
	explicit Mesh(size_t n) : field(n, 1.0) {}
};

struct Lagrange {};

// demangled, with the std::map's default arguments spelt out: over 300 characters
template <typename Real, typename Index, typename Tag>
NOINLINE Real accumulate_over_elements(Mesh<Real, Index> &mesh,
				       const std::map<std::string, Index> &opts, long n)
{
	Real s = 0;
	for (long k = 0; k < n; k++)
		s += mesh.field[k % mesh.field.size()] * (Real)k;	// the template's loop
	return s + (Real)opts.size();
}

class Solver {
      public:
	std::vector<double> a;
	explicit Solver(size_t n) : a(n, 2.0) {}
	// defined in the class body: clang's DWARF puts its definition after the class
	NOINLINE double step(long n)
	{
		double s = 0;
#pragma omp parallel for reduction(+ : s)
		for (long k = 0; k < n; k++)
			s += a[k % a.size()] * (double)k;	// the member function's loop
		return s;
	}
};

} // namespace physics

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	long n = (argc > 2 ? atol(argv[2]) : 4) * 100000;
	physics::Mesh<double, long> mesh(4096);
	std::map<std::string, long> opts;
	physics::Solver solver(4096);
	std::vector<double> b(4096, 3.0);
	auto sweep = [&b](long m) NOINLINE {
		double s = 0;
#pragma omp parallel for reduction(+ : s)
		for (long k = 0; k < m; k++)
			s += b[k % b.size()] * (double)k;	// the lambda's loop
		return s;
	};
	double sum = 0;
	for (int r = 0; r < rounds; r++) {
		sum += physics::accumulate_over_elements<double, long, physics::Lagrange>(mesh,
											 opts, n);
		sum += solver.step(n);
		sum += sweep(n);
		double t = 0;
#pragma omp parallel for reduction(+ : t)
		for (long k = 0; k < n; k++)
			t += b[k % b.size()] * (double)k;	// main's loop
		sum += t;
	}
	sink = sum;
	printf("omp-names: %.6g ok\n", sum);
	return 0;
}
