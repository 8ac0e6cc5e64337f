#!/usr/bin/env bash
# t048-mem-dlclose: code and static data of a library the program dlopen'd and dlclose'd
# before it exited are named.  The exit's copy of the maps no longer holds the library,
# so its samples read [unknown] (the trial of 2026-11-27: 5.2% of PENNANT's samples under
# Open MPI, whose components are dlclose'd at MPI_Finalize); the runtime's dlclose now
# notes the library's mappings (PREFIX.maps.closed), its .bss with them (an anonymous
# mapping the kernel merges with the memory after it, which stays mapped: clipped by the
# reader).  By construction the program spends its CPU time in the plugin's loop over its
# static array: the function and the array must hold most of the samples (0.5: room for
# the start-up's and the runtime's own).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t048 "gcc is not installed"; exit 0; }
cat >plug.c <<'EOF'
#include <stdint.h>
#include <time.h>
static volatile uint64_t buf[4096];
uint64_t hot_in_plugin(double secs)
{
	struct timespec a, b;
	uint64_t s = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 4096; i++)
			s += buf[i] += (uint64_t)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return s;
}
EOF
cat >host.c <<'EOF'
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	uint64_t (*f)(double) = (uint64_t (*)(double))dlsym(h, "hot_in_plugin");
	printf("host: %d\n", f && f(0.4) ? 1 : 0);
	return dlclose(h);
}
EOF
gcc -O1 -g -shared -fPIC plug.c -o plug.so && gcc -O1 -g host.c -o host -ldl ||
	{ fail t048-build "gcc could not build the plugin or its host"; exit 0; }
"$SONDE" mem -q --source clock -o rec -- ./host "$PWD/plug.so" >out 2>err
check t048-status [ $? -eq 0 ]
check t048-output [ "$(cat out)" = "host: 1" ]
check t048-closed-noted [ -s "$(ls rec/*.maps.closed 2>/dev/null | head -1)" ]
fn=$(awk -F, '$1 == "hot_in_plugin" { s += $5 } END { print s + 0 }' rec/mem/code.csv)
check "t048-code-named-${fn}" float_between "$fn" 0.5 1.0
# (a library's variable names its library since 2026-11-28: `buf [plug.so]`)
ob=$(csv_get rec/mem/objects.csv object "buf [plug.so]" share)
check "t048-data-named-${ob:-none}" float_between "${ob:-0}" 0.5 1.0
# opened by a relative name: the loader keeps "./plug.so" as the library's name, which is
# resolved before the maps are searched for it (review: such a library was never noted)
"$SONDE" mem -q --source clock -o rel -- ./host ./plug.so >/dev/null 2>&1
fn=$(awk -F, '$1 == "hot_in_plugin" { s += $5 } END { print s + 0 }' rel/mem/code.csv)
check "t048-relative-code-named-${fn}" float_between "$fn" 0.5 1.0
