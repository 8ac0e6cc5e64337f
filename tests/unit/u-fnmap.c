/* u-fnmap: function starts from this test program's own ELF symbol table (rt/fnmap.c),
 * checked against the addresses the compiler gives its functions. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "rt/rt.h"

int main(void);

__attribute__((noinline)) int fnmap_probe_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int fnmap_probe_b(int x)
{
	return fnmap_probe_a(x) - 2;
}

static int data_word = 7;

TEST(starts_of_own_functions)
{
	CHECK(rt_fnmap_load() == 0);
	CHECK(rt_fnmap_load() == 0);	/* loaded once; the second call keeps it */
	uint64_t a = (uint64_t)(uintptr_t)&fnmap_probe_a, b = (uint64_t)(uintptr_t)&fnmap_probe_b;
	CHECK(rt_fn_start(a) == a);
	CHECK(rt_fn_start(a + 1) == a);
	CHECK(rt_fn_start(b + 2) == b);
	CHECK(rt_fn_start((uint64_t)(uintptr_t)&data_word) == 0);	/* data, not code */
	CHECK(rt_fn_start(0) == 0);
	CHECK(rt_fn_main() == (uint64_t)(uintptr_t)&main);
	CHECK(fnmap_probe_b(data_word) == 20);
}

TEST(imports)
{
	/* this program calls printf (through the PLT) and defines no such name */
	printf("  fnmap: imports printf %d\n", rt_exe_imports("printf"));
	CHECK(rt_exe_imports("printf") || rt_exe_imports("puts"));
	CHECK(!rt_exe_imports("sonde_no_such_symbol"));
	CHECK(!rt_exe_imports("fnmap_probe_a"));	/* defined here, not imported */
}

int main(void)
{
	RUN(starts_of_own_functions);
	RUN(imports);
	return CHECK_DONE();
}
