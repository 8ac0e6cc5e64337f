// SPDX-License-Identifier: MIT
/*
 * cost-omp - a small OpenMP C++ program shaped like LULESH (issue 7): a Domain whose fields
 * are std::vector<double>, temporaries from an allocation wrapper (Allocate<T>, Release),
 * parallel loops over elements that gather node fields through a connectivity list.  For
 * the overhead of `sonde mem --source clock` at 2 and 4 threads (bench/mem.sh; set
 * OMP_NUM_THREADS).
 *
 * usage: cost-omp [SCALE]    SCALE multiplies the time steps (default 1, ~1 s of CPU here)
 *
 * Known answer: each step gathers m_x, m_y, m_z (8 nodes per element) into the temporary
 * from Allocate<double>, then writes m_e per element; about 3/4 of the sampled loads are on
 * m_x, m_y, m_z (equal shares), the rest on the connectivity, the temporary and m_e.
 * Prints "cost-omp: <checksum> ok".  Deterministic for any thread count.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T> static T *Allocate(size_t n)
{
	return static_cast<T *>(malloc(sizeof(T) * n));
}

template <typename T> static void Release(T **p)
{
	free(*p);
	*p = nullptr;
}

struct Domain {
	std::vector<double> m_x, m_y, m_z;	// nodes
	std::vector<double> m_e;		// elements
	std::vector<int> m_nodelist;		// 8 nodes per element
	size_t numElem, numNode;

	explicit Domain(size_t edge)
	{
		size_t nn = edge + 1;
		numElem = edge * edge * edge;
		numNode = nn * nn * nn;
		m_x.resize(numNode);
		m_y.resize(numNode);
		m_z.resize(numNode);
		m_e.resize(numElem);
		m_nodelist.resize(8 * numElem);
		for (size_t i = 0; i < numNode; i++) {
			m_x[i] = (double)(i % nn);
			m_y[i] = (double)(i / nn % nn);
			m_z[i] = (double)(i / nn / nn);
		}
		for (size_t p = 0, e = 0; p < edge; p++)
			for (size_t r = 0; r < edge; r++)
				for (size_t c = 0; c < edge; c++, e++) {
					size_t n0 = p * nn * nn + r * nn + c;
					int *nl = &m_nodelist[8 * e];
					nl[0] = (int)n0;
					nl[1] = (int)(n0 + 1);
					nl[2] = (int)(n0 + nn + 1);
					nl[3] = (int)(n0 + nn);
					nl[4] = (int)(n0 + nn * nn);
					nl[5] = (int)(n0 + nn * nn + 1);
					nl[6] = (int)(n0 + nn * nn + nn + 1);
					nl[7] = (int)(n0 + nn * nn + nn);
				}
	}
};

static void CalcVolume(Domain &d)
{
	double *sum = Allocate<double>(d.numElem);
#pragma omp parallel for
	for (size_t e = 0; e < d.numElem; e++) {
		const int *nl = &d.m_nodelist[8 * e];
		double s = 0;
		for (int k = 0; k < 8; k++)
			s += d.m_x[nl[k]] * 0.5 + d.m_y[nl[k]] * 0.25 + d.m_z[nl[k]] * 0.125;
		sum[e] = s;
	}
#pragma omp parallel for
	for (size_t e = 0; e < d.numElem; e++)
		d.m_e[e] = d.m_e[e] * 0.5 + sum[e];
	Release(&sum);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	if (scale <= 0)
		return 1;
	Domain d(60);			// 216,000 elements, 226,981 nodes: ~14 MiB
	for (int step = 0; step < 1000 * scale; step++)
		CalcVolume(d);
	double c = 0;
	for (size_t e = 0; e < d.numElem; e++)
		c += d.m_e[e];
	printf("cost-omp: %.6e ok\n", c);
	return 0;
}
