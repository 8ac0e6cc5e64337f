// SPDX-License-Identifier: MIT
// vthrow.cc - ground truth for `sonde variance` and C++ exceptions: thrower(d) recurses to
// d = 0 and throws; main catches it, so no instance of thrower ever returns.  steady()
// runs between (5 units each, CV 0), and two overloads of pad() (one unit each), whose
// names shorten alike ("pad(...)").  Built by the tests with sonde-cc --sonde-calls.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

static double now()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void spin(int units)
{
	for (long i = 0; i < (long)units * 20000; i++)
		sink += (uint64_t)i;
}

NOINLINE void thrower(int d)
{
	spin(1);
	if (d == 0)
		throw std::runtime_error("down");
	thrower(d - 1);
	sink++;
}

NOINLINE void steady() { spin(5); }

NOINLINE void pad(int units) { spin(units); }
NOINLINE void pad(double units) { spin((int)units); }

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	long caught = 0;
	while (now() < end) {
		try {
			thrower(3);
		} catch (const std::exception &) {
			caught++;
		}
		steady();
		pad(1);
		pad(1.0);
	}
	std::printf("vthrow caught %ld\n", caught);
	return 0;
}
