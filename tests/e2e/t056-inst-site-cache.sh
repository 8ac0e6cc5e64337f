#!/usr/bin/env bash
# t056-inst-site-cache: the inst source finds the instruction of each access from its call
# site once per thread (a cache) and reads the code after a site with process_vm_readv
# only on a miss.  inst-sites: 1024 load sites in a loop, 200 iterations, every access
# taken (comm --exact).  With 512 direct-mapped entries nearly every access missed:
# 181,120 reads; miniFE under --exact spent a third of its time in them (2.0 million at
# -nx 20).  Bar: under 4 reads per site (one each, 1,025 here; a set of 4 ways that
# overflows adds a few), counted by strace.
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
