// SPDX-License-Identifier: MIT
// cxxnames.cc - a C++ template function with a long name that reuses its data beyond L2
// (300,000 elements of 16 bytes, 20 sweeps): `sonde reuse`'s "Fix first" names it (t520).
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace very_long_namespace_name { template <typename T, typename U> struct Holder { T a; U b; };
template <typename T, typename U>
__attribute__((noinline)) double sweep_the_array(std::vector<Holder<T, U>> &v, int rounds) {
	double s = 0;
	for (int r = 0; r < rounds; r++)
		for (auto &h : v) { s += h.a; h.b += 1; }
	return s;
} }
int main() {
	std::vector<very_long_namespace_name::Holder<double, long>> v(300000);
	printf("%f\n", very_long_namespace_name::sweep_the_array(v, 20));
}
