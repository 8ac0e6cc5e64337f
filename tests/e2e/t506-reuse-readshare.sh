#!/usr/bin/env bash
# t506-reuse-readshare: two threads read the same 1000 words 20 times after main wrote them:
# reads never invalidate.  --exact: 0 invalidations, each reader reuses every word at
# distance 999 (19 x 1000 reuses per reader in [512, 1024)); sampled: reuses, no invalidation.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t506-build || exit 0

"$SONDE" reuse -q --exact -o ex -- "$T/rb" readshare 1000 20 2 >/dev/null 2>&1
h=ex/reuse/histogram.csv
check t506-exact-no-invalidation [ "$(csv_get $h kind invalidation count)" = 0 ]
check t506-exact-reuses [ "$(awk -F, '$1 == "reuse" && $2 == 512 { print $4 }' $h)" = 38000 ]
"$SONDE" reuse -q --source inst --period 1009 -o sa -- "$T/rb" readshare 1000 50 2 >/dev/null 2>&1
check t506-sampled-reuses [ "$(reuse_meta sa outcomes)" -gt 0 ]
check t506-sampled-no-invalidation [ "$(reuse_meta sa outcomes_invalidation)" = 0 ]
