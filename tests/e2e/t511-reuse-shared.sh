#!/usr/bin/env bash
# t511-reuse-shared: --exact --shared models the socket's shared cache: a store by another
# thread of the same socket is a shared-cache reuse, not an invalidation.  The ping-pong
# whose every private use ends in an invalidation (t505) becomes, on a socket, reuses at
# distance 0 (nothing else is accessed between the two threads' stores) with no
# invalidation.  On a machine with several sockets the two threads may run on different
# ones: then the test is skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t511-build || exit 0
sockets=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id 2>/dev/null | sort -u | wc -l)
[ "$sockets" -le 1 ] || { skip t511 "$sockets sockets: the ping-pong may cross them"; exit 0; }
N=2000

"$SONDE" reuse --exact --shared -o rec -- "$T/rb" pingpong $N >/dev/null 2>summary
check t511-status [ $? -eq 0 ]
h=rec/reuse/histogram.csv
check t511-no-invalidation [ "$(csv_get $h kind invalidation count)" = 0 ]
# each of the 2N stores but the first reuses the word; the threads' start-up loads of the
# loop bound (pp_n) may fall between two stores: a few reuses at distance 1
short=$(awk -F, '$1 == "reuse" && ($2 == 0 || $2 == 1) { s += $4 } END { print s + 0 }' $h)
zero=$(awk -F, '$1 == "reuse" && $2 == 0 { print $4 }' $h)
check t511-reuses-short [ "$short" -ge $((2 * N - 1)) ]
check t511-reuses-at-0 [ "$zero" -ge $((2 * N - 10)) ]
check t511-says-shared grep -q "shared cache" summary
check t511-meta [ "$(reuse_meta rec cache)" = shared ]

# Sampled --shared (inst source, soft watchpoints): the same ping-pong's watched uses end
# in reuses by the other thread of the socket, never in an invalidation, where the private
# mode ends every one in an invalidation (t505).  Distances are not checked here: the
# socket's access count reads the other threads' counts as of their last sample (a period
# at a time), so short distances come out up to a period long (doc/sonde-reuse.md).
"$SONDE" reuse --shared --source inst --period 101 -o sp -- "$T/rb" pingpong 20000 >/dev/null 2>ssum
check t511-sampled-status [ $? -eq 0 ]
check t511-sampled-says-shared grep -q "shared cache" ssum
check t511-sampled-meta [ "$(reuse_meta sp cache)" = shared ]
check "t511-sampled-outcomes-$(reuse_meta sp outcomes)" [ "$(reuse_meta sp outcomes)" -ge 20 ]
check t511-sampled-no-invalidation [ "$(reuse_meta sp outcomes_invalidation)" = 0 ]
"$SONDE" reuse --source inst --period 101 -o pp -- "$T/rb" pingpong 20000 >/dev/null 2>/dev/null
check t511-private-all-invalidations [ "$(reuse_meta pp outcomes_invalidation)" = "$(reuse_meta pp outcomes)" ]
