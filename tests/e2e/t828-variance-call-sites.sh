#!/usr/bin/env bash
# t828-variance-call-sites: a function called from two places is measured in the context
# the samples fall in (tests/workloads/variance/vcallsite.c: f from a, long calls, 94% of
# the time; from b, short ones, 9 calls in 10).  A pick armed f's entry and measured its
# next call, from wherever it came: mostly b's.  The build before the call sites
# (2026-11-29, 11:40 UTC): main > a > f 1 instance ("too few instances"), main > b > f 60.
# Now f, once seen entered from another call than its pick's, has its picks armed at the
# sampled frame's call first: 61 and 4 in the same run.
# Bars: a > f at least 10 instances and more than b > f's (~94% of the samples lead to it;
# a run gives ~90 samples), and its mean within 0.7-1.3 of a's own (a is f's call and
# nothing else; the band: steal time on this shared VM in a few instances); the report
# counts the picks armed at a call and those that fired.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t828 vcallsite.c vcs -O1 -g -fno-omit-frame-pointer || exit 0
"$SONDE" variance -o rec -- ./vcs 200 >out.txt 2>err.txt
check t828-run [ $? -eq 0 ]
check t828-program-output grep -q "^vcallsite 200 rounds$" out.txt
F=rec/variance/functions.csv
na=$(var_col $F f "main > a > f" cpu-time instances)
nb=$(var_col $F f "main > b > f" cpu-time instances)
check "t828-a-f-instances-${na:-0}-b-f-${nb:-0}" [ "${na:-0}" -ge 10 -a "${na:-0}" -gt "${nb:-0}" ]
ma=$(var_col $F f "main > a > f" cpu-time mean)
mo=$(var_col $F a "main > a" cpu-time mean)
r=$(awk -v x="${ma:-0}" -v y="${mo:-0}" 'BEGIN { printf "%.2f", (y > 0 ? x / y : 0) }')
check "t828-a-f-mean-over-a-$r" float_between "$r" 0.7 1.3
check t828-report-line grep -q "^  call sites: [1-9][0-9]* picks of a function called" err.txt
sited=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'sited'")
fired=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'sites_fired'")
check "t828-sites-fired-$fired-of-$sited" [ "${fired:-0}" -ge 10 -a "${fired:-0}" -le "${sited:-0}" ]
