#!/usr/bin/env bash
# t056-inst-site-cache: the inst source finds the instruction of each access from its call
# site once per thread (a cache) and reads the code after a site with process_vm_readv
# only on a miss.  inst-sites: 1024 load sites in a loop, 200 iterations, every access
# taken (comm --exact).  With 512 direct-mapped entries nearly every access missed:
# 181,120 reads; miniFE under --exact spent a third of its time in them (2.0 million at
# -nx 20).  Bar: under 4 reads per site (one each, 1,025 here; a set of 4 ways that
# overflows adds a few), counted by strace.
# Sampled (period 1000 or more) a thread's cache starts at 64 sets (one page: a small
# program's sites fit) and grows to the 1,024 after 256 misses.  inst-sites 20000 at
# period 1000: with 64 sets for good its 20,480 samples made 15,396 reads (2026-11-26);
# bar: under 4096 again.  commbench fs (5 threads, a few sites each) must keep 64 sets:
# the cache's size at each thread's end, from SONDE_DEBUG.
. "$(dirname "$0")/lib.sh"
command -v clang >/dev/null || { skip t056 "clang is not installed (sonde-cc needs it)"; exit 0; }
command -v strace >/dev/null || { skip t056 "strace is not installed (it counts the reads)"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O2 -g "$SONDE_TOP/tests/workloads/inst-sites.c" -o sites ||
	{ fail t056-build "sonde-cc could not build inst-sites"; exit 0; }
"$SONDE" comm -q --exact -o rec -- strace -f -c -o st.txt ./sites 200 >out 2>err
check t056-status [ $? -eq 0 ]
check t056-output grep -q "^inst-sites: 0$" out
n=$(awk '$NF == "process_vm_readv" { print $4 }' st.txt)
if [ -z "$n" ]; then
	skip t056-code-reads "strace saw no process_vm_readv (filtered here: the code is read directly)"
else
	check "t056-code-reads-$n-under-4096" [ "$n" -lt 4096 ]
fi

SONDE_DEBUG=1 "$SONDE" comm -q --source inst -p 1000 -o rec-p -- \
	strace -f -c -o st-p.txt ./sites 20000 >out-p 2>err-p
check t056-sampled-status [ $? -eq 0 ]
check t056-sampled-grew grep -q "^sonde: inst: thread [0-9]* cache 1024 sets" err-p
n=$(awk '$NF == "process_vm_readv" { print $4 }' st-p.txt)
if [ -n "$n" ]; then
	check "t056-sampled-code-reads-$n-under-4096" [ "$n" -lt 4096 ]
fi
"$SONDE_BUILD/sonde-cc" -std=gnu11 -O2 -g -pthread "$SONDE_TOP/tests/workloads/comm/commbench.c" \
	-o cb || { fail t056-build-cb "sonde-cc could not build commbench"; exit 0; }
SONDE_DEBUG=1 "$SONDE" comm -q --source inst -o rec-cb -- ./cb fs 2000000 50 >out-cb 2>err-cb
check t056-small-status [ $? -eq 0 ]
small=$(grep -c "^sonde: inst: thread [0-9]* cache 64 sets" err-cb)
grown=$(grep -c "^sonde: inst: thread [0-9]* cache 1024 sets" err-cb)
check "t056-small-stays-small-$small-threads-$grown-grown" [ "$small" -ge 5 -a "$grown" -eq 0 ]
