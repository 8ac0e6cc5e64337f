#!/usr/bin/env bash
# t506-reuse-readshare: two threads read the same 1000 words 20 times after main wrote them:
# reads never invalidate.  --exact: 0 invalidations, each reader reuses every word at
# distance 999 (19 x 1000 reuses per reader in [512, 1024)); sampled: reuses, no invalidation.
# Private caches: the footprint of all threads counts the 1000 words in each of the three
# threads (main's writes, two readers: 3000 and a few of main's own), the largest thread's
# own is 1000 and those few (under 1100: rbench's main touches a handful of words besides
# the array), and the summary's "fits in L2" speaks of that one (with N words a thread at
# half of L2, it fits).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t506-build || exit 0

"$SONDE" reuse -q --exact -o ex -- "$T/rb" readshare 1000 20 2 >/dev/null 2>&1
h=ex/reuse/histogram.csv
check t506-exact-no-invalidation [ "$(csv_get $h kind invalidation count)" = 0 ]
check t506-exact-reuses [ "$(awk -F, '$1 == "reuse" && $2 == 512 { print $4 }' $h)" = 38000 ]
"$SONDE" report ex >summary 2>&1
foot=$(reuse_meta ex footprint) own=$(reuse_meta ex footprint_thread)
check t506-footprint-all [ "${foot:-0}" -ge 3000 ]
own_words() { [ "${own:-0}" -ge 1000 ] && [ "${own:-0}" -lt 1100 ]; }
check t506-footprint-thread own_words
# said as a sum over the threads, bounding the program's data, not as "all threads" (the
# trial of 2026-11-29, F5: three 1 MiB arrays read "4.50 MiB (all threads ...)")
check t506-footprint-says grep -q "summed over the threads' own data (what two threads both touch counts twice); the program's data lies between the largest thread's own, [0-9.]* [KMG]*i*B, and that sum" <(flat summary)
check t506-fits-per-thread grep -q "the data its largest thread touches" <(flat summary)
# The comparison itself: N words, half this machine's L2 a thread, 1.5 times it for the
# three threads together: the largest thread's fits, which the sum would deny.
l2=$(reuse_meta ex l2)
if [ "${l2:-0}" -ge 65536 ]; then
	n=$((l2 / 16))
	"$SONDE" reuse --exact -o big -- "$T/rb" readshare $n 2 2 >/dev/null 2>big.txt
	check t506-half-l2-fits grep -q "the data its largest thread touches .* fits in the" <(flat big.txt)
else
	skip t506-half-l2-fits "this machine's L2 size is unknown or under 64 KiB (meta l2 '$l2')"
fi
"$SONDE" reuse -q --exact --shared -o exs -- "$T/rb" readshare 1000 20 2 >/dev/null 2>&1
check t506-shared-no-thread-footprint [ "$(reuse_meta exs footprint_thread)" = 0 ]
"$SONDE" reuse -q --source inst --period 1009 -o sa -- "$T/rb" readshare 1000 50 2 >/dev/null 2>&1
check t506-sampled-reuses [ "$(reuse_meta sa outcomes)" -gt 0 ]
check t506-sampled-no-invalidation [ "$(reuse_meta sa outcomes_invalidation)" = 0 ]
