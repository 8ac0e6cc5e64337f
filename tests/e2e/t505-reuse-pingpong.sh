#!/usr/bin/env bash
# t505-reuse-pingpong: two threads take turns storing one word (the turn-taking itself is
# not instrumented).  Every use ends with the other thread's store: --exact counts one
# invalidation per store but the first (2N - 1) and no reuse; the sampled mode's outcomes
# are all invalidations.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t505-build || exit 0
N=2000

"$SONDE" reuse -q --exact -o ex -- "$T/rb" pingpong $N >/dev/null 2>&1
h=ex/reuse/histogram.csv
check t505-exact-invalidations [ "$(csv_get $h kind invalidation count)" = $((2 * N - 1)) ]
check t505-exact-no-reuse [ -z "$(awk -F, '$1 == "reuse" && $2 != "" && $2 > 0' $h)" ]
"$SONDE" reuse -q --source inst --period 101 -o sa -- "$T/rb" pingpong $N >/dev/null 2>&1
out=$(reuse_meta sa outcomes)
check t505-sampled-outcomes [ "$out" -gt 0 ]
check t505-sampled-all-invalidations [ "$(reuse_meta sa outcomes_invalidation)" = "$out" ]
