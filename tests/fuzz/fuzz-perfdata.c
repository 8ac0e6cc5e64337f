/* SPDX-License-Identifier: MIT */
/*
 * fuzz-perfdata.c - libFuzzer target for the perf.data reader: any input must give records
 * or a clean -EINVAL, never a crash, a leak or a hang.  Built and run (bounded) by
 * tests/e2e/t301-analyze-fuzz.sh:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz-perfdata.c \
 *         src/analyze/perfdata.c -lzstd
 */
#include <stddef.h>
#include <stdint.h>

#include "analyze/perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int err = 0;
	char msg[256];
	struct perfdata *pd = perfdata_open_mem(data, size, &err, msg, sizeof(msg));
	if (!pd)
		return 0;
	struct pd_record r;
	uint64_t sum = 0;
	while (perfdata_next(pd, &r) > 0) {
		if (!r.has_sample)
			continue;
		/* touch every parsed array, so the sanitizer checks its bounds */
		for (size_t i = 0; i < r.s.nchain; i++)
			sum += pd_chain_at(&r.s, i);
		for (size_t i = 0; i < r.s.nbranch; i++)
			sum += pd_branch_at(&r.s, i).to;
		for (size_t i = 0; i < r.s.nread; i++)
			sum += pd_read_at(r.s.read_values, r.s.read_stride, PD_FMT_ID, i).value;
		if (r.filename)
			sum += (uint8_t)r.filename[0];
	}
	for (size_t i = 0; i < perfdata_nattrs(pd); i++)
		sum += perfdata_attr(pd, i)->nsamples;
	perfdata_free(pd);
	return (int)(sum & 0);
}
