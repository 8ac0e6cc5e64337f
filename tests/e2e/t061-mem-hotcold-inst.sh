#!/usr/bin/env bash
# t061-mem-hotcold-inst: the inst source on demo-hotcold built by sonde-cc.  Every 10,007th
# access is sampled, deterministically, so the shares match the construction closely:
# objects 62.5 / 31.25 / 6.25 %, threads 25 / 75 % (4 threads: 6.25 / 18.75 / 31.25 /
# 43.75 %), loads = stores per object.  Tolerance 1 point: a few hundred to a few thousand
# samples of a periodic pattern, plus the one load of the `hot`/`cold` pointer per pass.
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { skip t061-inst "clang is not installed"; exit 0; }
src=$SONDE_TOP/tests/workloads/demo-hotcold.c
"$SONDE_BUILD/sonde-cc" -O2 -pthread "$src" -o hotcold 2>cc.err ||
	{ fail t061-sonde-cc "$(head -3 cc.err)"; exit 0; }

site() { awk -v f="$1" '$0 ~ "^static .*\\*" f "\\(void\\)" { in_f = 1 } in_f && /calloc/ { print NR; exit }' "$src"; }
hot="alloc_hot (demo-hotcold.c:$(site alloc_hot))"
cold="alloc_cold (demo-hotcold.c:$(site alloc_cold))"

near() { # NAME VALUE WANT TOL
	if [ -n "$2" ] && awk -v v="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(v >= w - t && v <= w + t) }'; then
		pass "$1"
	else
		fail "$1" "'${2:-missing}', want $3 +- $4"
	fi
}

"$SONDE" mem -q -o prof --source inst -- ./hotcold 2 2 >out 2>err
check t061-exit-status [ $? -eq 0 ]
check t061-stdout [ "$(cat out)" = "demo-hotcold: threads=2 rounds=2 ok" ]
check t061-source-is-inst grep -q '^source=inst$' prof/*.proc
o=prof/mem/objects.csv
check t061-hot-ranks-first [ "$(awk -F, 'NR == 2 { print $1 }' $o)" = "$hot" ]
near t061-hot-share "$(csv_get $o object "$hot" share)" 0.625 0.01
near t061-static-share "$(csv_get $o object static_table share)" 0.3125 0.01
near t061-cold-share "$(csv_get $o object "$cold" share)" 0.0625 0.01
l=$(csv_get $o object "$hot" loads) s=$(csv_get $o object "$hot" stores)
near t061-hot-loads-eq-stores "$(awk -v l="$l" -v s="$s" 'BEGIN { print (s > 0) ? l / s : 0 }')" 1 0.02
near t061-thread0 "$(csv_get prof/mem/threads.csv thread 0 share)" 0.25 0.01
near t061-thread1 "$(csv_get prof/mem/threads.csv thread 1 share)" 0.75 0.01
near t061-code-work-hot "$(csv_get prof/mem/code.csv function work_hot share)" 0.625 0.01

"$SONDE" mem -q -o prof4 --source inst -- ./hotcold 4 1 >/dev/null 2>err
check t061-4-threads-status [ $? -eq 0 ]
# Threads in creation order, which is tid order here (thread indexes follow the order in
# which the threads start running, which may differ).
i=0
for share in $(sort -t, -k2,2n <(tail -n +2 prof4/mem/threads.csv) | awk -F, -v col="$(head -1 prof4/mem/threads.csv | tr ',' '\n' | grep -n -x share | cut -d: -f1)" '{ print $col }'); do
	want=$(awk -v i=$i 'BEGIN { print (2 * i + 1) / 16 }')
	near "t061-4-threads-thread$i" "$share" "$want" 0.01
	i=$((i + 1))
done
check t061-4-threads-count [ "$i" -eq 4 ]
