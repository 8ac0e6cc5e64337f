/* SPDX-License-Identifier: MIT */
/*
 * u-pmu.c - the perf_event_attr the hw source builds for each precise-sampling PMU
 * (rt/pmu.c): AMD IBS, Intel PEBS, Arm SPE.  Pure: the builders take the PMU's type and
 * format fields as sysfs would give them, so every case runs on any machine.  The
 * expectations are the kernel's rules (arch/x86/events/amd/ibs.c, kernel/events/core.c,
 * drivers/perf/arm_spe_pmu.c), restated here independently of pmu.c.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "check.h"
#include "rt/pmu.h"

/* Format fields as the kernels describe them in sysfs. */
static const struct pmu_field none = { -1, -1 };
static const struct pmu_field ibs_cnt_ctl = { 0, 19 };	/* ibs_op/format/cnt_ctl: config:19 */
static const struct pmu_field ibs_swfilt = { 2, 0 };	/* ibs_op/format/swfilt: config2:0 */
static const struct pmu_field spe_ts = { 0, 0 };	/* ts_enable: config:0 */
static const struct pmu_field spe_load = { 0, 33 };	/* load_filter: config:33 */
static const struct pmu_field spe_store = { 0, 34 };	/* store_filter: config:34 */

/* Every exclude_* bit perf_event_attr has. */
static int any_exclude(const struct perf_event_attr *a)
{
	return a->exclude_user || a->exclude_kernel || a->exclude_hv || a->exclude_idle ||
	       a->exclude_host || a->exclude_guest || a->exclude_callchain_kernel ||
	       a->exclude_callchain_user;
}

/*
 * The kernel's acceptance rule for IBS, restated: before 6.14 (no swfilt) any exclude_*
 * bit is EINVAL (PERF_PMU_CAP_NO_EXCLUDE); from 6.14 exclude_idle/host/guest are EINVAL
 * always, and exclude_kernel/user/hv only without the swfilt bit in config2.
 */
static int ibs_kernel_accepts(const struct perf_event_attr *a, int kernel_has_swfilt)
{
	if (!kernel_has_swfilt)
		return !any_exclude(a);
	if (a->exclude_idle || a->exclude_host || a->exclude_guest)
		return 0;
	if (!(a->config2 & 1) && (a->exclude_kernel || a->exclude_user || a->exclude_hv))
		return 0;
	return 1;
}

TEST(ibs_without_swfilt)
{
	struct perf_event_attr a;
	memset(&a, 0xff, sizeof(a));	/* the builder must not leave anything behind */
	pmu_attr_ibs(&a, 11, ibs_cnt_ctl, none);
	pmu_hw_sampling_attr(&a, PMU_HW_IBS, 100003);
	CHECK_EQ_U64(a.size, sizeof(a));
	CHECK_EQ_U64(a.type, 11);
	CHECK_EQ_U64(a.config, 1ull << 19);	/* cnt_ctl: count ops */
	CHECK_EQ_U64(a.config1, 0);
	CHECK_EQ_U64(a.config2, 0);
	CHECK(!any_exclude(&a));		/* the whole point: EINVAL otherwise */
	CHECK(ibs_kernel_accepts(&a, 0));
	CHECK(ibs_kernel_accepts(&a, 1));	/* a newer kernel takes it too */
	CHECK_EQ_U64(a.precise_ip, 0);		/* IBS is precise by construction */
	CHECK_EQ_U64(a.sample_type, PMU_IBS_SAMPLE_TYPE);
	CHECK(a.sample_type & PERF_SAMPLE_RAW);
	CHECK(!(a.sample_type & PERF_SAMPLE_ADDR));
	CHECK_EQ_U64(a.sample_period, 100000);	/* a multiple of 16 */
	CHECK(!a.freq && a.disabled && a.wakeup_events == 1);
}

TEST(ibs_with_swfilt)
{
	struct perf_event_attr a;
	pmu_attr_ibs(&a, 11, ibs_cnt_ctl, ibs_swfilt);
	pmu_hw_sampling_attr(&a, PMU_HW_IBS, 4096);
	CHECK_EQ_U64(a.config, 1ull << 19);
	CHECK_EQ_U64(a.config2, 1);		/* swfilt */
	CHECK(a.exclude_kernel);		/* user space only, filtered by the kernel */
	CHECK(!a.exclude_user && !a.exclude_hv && !a.exclude_idle && !a.exclude_host &&
	      !a.exclude_guest);
	CHECK(ibs_kernel_accepts(&a, 1));
	CHECK_EQ_U64(a.sample_period, 4096);
	CHECK_EQ_U64(a.sample_type, PMU_IBS_SAMPLE_TYPE);
}

/* ibs_fetch has no cnt_ctl: nothing but the type, and no exclude bit. */
TEST(ibs_fetch_plain)
{
	struct perf_event_attr a;
	pmu_attr_ibs(&a, 12, none, none);
	CHECK_EQ_U64(a.type, 12);
	CHECK_EQ_U64(a.config | a.config1 | a.config2, 0);
	CHECK(!any_exclude(&a));
	CHECK(ibs_kernel_accepts(&a, 0));
}

/* libpfm4 is loaded on demand, not linked: here (tools/deps.sh installs it) it loads, and
 * stays loaded for the next probe. */
TEST(pfm_on_demand)
{
	CHECK(pmu_pfm_load() == 0);
	CHECK(pmu_pfm_load() == 0);	/* once: the second call reuses the first */
}

TEST(pebs)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;		/* as libpfm4 encodes MEM_INST_RETIRED:ALL_LOADS */
	a.config = 0x81d0;
	pmu_attr_pebs(&a, 3);
	pmu_hw_sampling_attr(&a, PMU_HW_PEBS, 100003);
	CHECK_EQ_U64(a.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a.config, 0x81d0);		/* the encoding is kept */
	CHECK_EQ_U64(a.precise_ip, 3);
	CHECK(a.exclude_kernel && a.exclude_hv);	/* paranoid 2 needs user space only */
	CHECK(!a.exclude_user && !a.exclude_idle && !a.exclude_host && !a.exclude_guest);
	CHECK_EQ_U64(a.sample_type, PMU_HW_SAMPLE_TYPE);
	CHECK(a.sample_type & PERF_SAMPLE_ADDR);
	CHECK(a.sample_type & PERF_SAMPLE_WEIGHT);
	CHECK(a.sample_type & PERF_SAMPLE_DATA_SRC);
	CHECK_EQ_U64(a.sample_period, 100003);	/* not rounded: only IBS counts by 16 */
	pmu_attr_pebs(&a, 1);
	CHECK_EQ_U64(a.precise_ip, 1);
	pmu_attr_pebs(&a, 7);
	CHECK_EQ_U64(a.precise_ip, 3);		/* the field has 2 bits */
}

TEST(spe)
{
	struct perf_event_attr a;
	memset(&a, 0xff, sizeof(a));
	pmu_attr_spe(&a, 9, spe_load, spe_store, spe_ts);
	pmu_hw_sampling_attr(&a, PMU_HW_SPE, 4096);
	CHECK_EQ_U64(a.type, 9);
	CHECK_EQ_U64(a.config, (1ull << 33) | (1ull << 34) | 1);
	CHECK_EQ_U64(a.config1 | a.config2, 0);
	CHECK_EQ_U64(a.precise_ip, 0);
	CHECK(a.exclude_kernel);		/* SPE filters exception levels in hardware */
	CHECK(!a.exclude_user && !a.exclude_idle);	/* exclude_idle: EOPNOTSUPP */
	CHECK(!a.freq);				/* arm_spe_pmu refuses frequency mode */
	CHECK_EQ_U64(a.sample_type, PMU_SPE_SAMPLE_TYPE);
	CHECK(!(a.sample_type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_RAW)));	/* data is in AUX */
	CHECK_EQ_U64(a.sample_period, 4096);
}

/* Fields that are absent leave the config alone. */
TEST(field_set)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	pmu_field_set(&a, none);
	CHECK_EQ_U64(a.config | a.config1 | a.config2, 0);
	struct pmu_field f1 = { 1, 63 };
	pmu_field_set(&a, f1);
	CHECK_EQ_U64(a.config1, 1ull << 63);
	struct pmu_field f;
	CHECK(pmu_field_read("no-such-pmu", "swfilt", &f) == -ENOENT);
	CHECK(f.which == -1);
}

int main(void)
{
	RUN(ibs_without_swfilt);
	RUN(ibs_with_swfilt);
	RUN(ibs_fetch_plain);
	RUN(pfm_on_demand);
	RUN(pebs);
	RUN(spe);
	RUN(field_set);
	return CHECK_DONE();
}
