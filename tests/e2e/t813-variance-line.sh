#!/usr/bin/env bash
# t813-variance-line: a function whose loop shares its entry's 64-byte line, measured while
# its own instance is pending (tests/workloads/variance/vline.c, plain gcc, debug
# registers).  An execute breakpoint slows every instruction of its line (~13x here,
# doc/sonde-variance.md, Costs); re-armed on the entry during the instance, it slowed the
# instance being measured: 25 ms functions measured and run 12x slower, ~1 ms ones hit at
# times.  Each function is called alternately with a twin whose loop starts 72 bytes
# further; the workload measures each call's thread CPU time itself.
# Bounds: the measured mean of the function within 1.5x of its own clock's in a native run,
# and the program's CPU time within 1.5x of its native run.  What the fix costs is a few
# traps per instance (~2-6% of a 1 ms one); the rest is this shared VM: steal time counts
# as CPU time and the native and measured runs are not side by side (up to ~20% apart
# seen at load 9); the bug gives 11-12x on the 25 ms function (3.3x-3.8x the program).
# The ~1 ms leaf is hit only when the next sample falls in the instance just caught (a
# random phase: fill() between calls), old code 1.66x-1.79x its native mean, so for it
# also: its measured mean within 0.8-1.25x of its twin's, measured alternately in the
# same run (load slows both alike; ~50 instances of a CV up to 0.4 here give each mean
# within ~6%, 1.25x is 3 standard deviations of the ratio; 0.96x-1.02x seen fixed,
# 1.48x-1.78x old), and at most 1 of its instances above 3x the twin's mean (a hit
# instance costs up to ~13x; 0 seen fixed in 5 runs at load 6-9, 6-8 in 3 runs old, at
# 500 calls; with 300: 7, 2 and 1 in three runs).
# Long instances keep no pick: after an entry the next sample falls in that same instance
# and picks its function again; that pick now waits for the instance's return and yields to
# the next sample's pick of another function, and an entry armed at once waits its
# patience from its frame's return.  Before, the 25 ms function took nearly every pick
# (9-10 instances, its twin 0-1 of 20 calls each); now each gets 6-7 (one of the two
# functions is caught every 1.5 rounds by construction: the pick is made in the other's
# instance, or behind the gate in its own, and waits for the next call).  Bar: 4 instances
# of each (8 a second of its run time), and neither more than 3x the other.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

command -v objdump >/dev/null || { skip t813 "objdump is not installed (the layout is checked with it)"; exit 0; }
var_gcc_src t813 vline.c vline -O2 -g -fno-omit-frame-pointer || exit 0

# The layout the test is about: each loop's backward branch goes into its entry's line for
# in_*, past it for pad_* (else the compiler moved it and the test proves nothing).
objdump -d --no-show-raw-insn vline >dis.txt
for f in in_short in_long pad_short pad_long; do
	off=$(awk -v f="<$f>:" '$2 == f { on = 1; next } on && /^$/ { exit }
		on && $2 ~ /^j/ && (i = index($4, "+0x")) { t = substr($4, i + 3); sub(/>.*/, "", t) } END { print t }' dis.txt)
	o=$((16#${off:-0}))
	case $f in
	in_*) check "t813-layout-$f-loop-at-$o-in-line" [ "$o" -gt 0 -a "$o" -lt 64 ] ;;
	*) check "t813-layout-$f-loop-at-$o-past-line" [ "$o" -ge 64 ] ;;
	esac
done

for mode in short long; do
	./vline $mode 2>nat-$mode.txt
	"$SONDE" variance -q -o rec-$mode -- ./vline $mode >out-$mode.txt 2>err-$mode.txt
	check "t813-$mode-run" [ $? -eq 0 ]
	F=rec-$mode/variance/functions.csv
	ni=$(var_col $F in_$mode "main > in_$mode" cpu-time instances)
	min=$([ $mode = short ] && echo 20 || echo 3)
	check "t813-$mode-instances-${ni:-0}" [ "${ni:-0}" -ge $min ]
	mi=$(var_col $F in_$mode "main > in_$mode" cpu-time mean)
	if [ $mode = short ]; then
		mp=$(var_col $F pad_$mode "main > pad_$mode" cpu-time mean)
		r=$(awk -v a="${mi:-0}" -v b="${mp:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')
		check "t813-$mode-mean-over-twin-$r" float_between "$r" 0.8 1.25
	fi
	# Against native runs: the first pair of runs, and where either ratio is out of its
	# bar, 2 more pairs (native, then profiled) and the median of the 3.  This VM's vCPUs
	# change speed for seconds at a time (user code 1.6x slower, 2026-11-27): a CI clone
	# beside a make check read 1.54x (mean) and 1.59x (program CPU) in one pair, both
	# ratios the same, the program's speed, not sonde's.
	rm_all="" rc_all=""
	for round in 1 2 3; do
		if [ $round -gt 1 ]; then
			./vline $mode 2>nat-$mode.txt
			"$SONDE" variance -q -o rec-$mode-$round -- ./vline $mode >/dev/null 2>err-$mode.txt
			mi=$(var_col rec-$mode-$round/variance/functions.csv in_$mode "main > in_$mode" cpu-time mean)
		fi
		mn=$(awk -v f=in_$mode '$1 == "mean" && $2 == f { print $3 * 1e6 }' nat-$mode.txt)
		cn=$(awk '/^cpu / { print $2 }' nat-$mode.txt)
		cs=$(awk '/^cpu / { print $2 }' err-$mode.txt)
		rm_all="$rm_all $(awk -v a="${mi:-0}" -v b="${mn:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')"
		rc_all="$rc_all $(awk -v a="${cs:-0}" -v b="${cn:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')"
		[ $round = 1 ] && float_between "${rm_all# }" 0.667 1.5 && float_between "${rc_all# }" 0 1.5 && break
	done
	r=$(printf '%s\n' $rm_all | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	check "t813-$mode-mean-over-native-$r-of$(echo $rm_all | tr ' ' '/' | sed 's/^/-/')" float_between "$r" 0.667 1.5
	r=$(printf '%s\n' $rc_all | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	check "t813-$mode-cpu-over-native-$r-of$(echo $rc_all | tr ' ' '/' | sed 's/^/-/')" float_between "$r" 0 1.5
	if [ $mode = short ]; then
		hit=$(awk -F, -v m="${mp:-0}" 'NR > 1 && $1 == "in_short" && $7 > 3 * m { n++ } END { print n + 0 }' \
			rec-$mode/variance/instances.csv)
		check "t813-short-slowed-$hit-of-${ni:-0}" [ "$hit" -le 1 ]
	fi
done
# the long twins: both measured, neither taking the other's picks
nl=$(var_col rec-long/variance/functions.csv in_long "main > in_long" cpu-time instances)
np=$(var_col rec-long/variance/functions.csv pad_long "main > pad_long" cpu-time instances)
check "t813-long-twin-instances-${np:-0}" [ "${np:-0}" -ge 4 ]
check "t813-long-instances-${nl:-0}-within-3x-of-twin-${np:-0}" \
	[ "${nl:-0}" -le $((3 * ${np:-0})) -a "${np:-0}" -le $((3 * ${nl:-0})) ]
# the picks made in the measured instance (self-picks), deferred to its return, and replaced
# by the twin's picks once armed (profile.db's meta, doc: the gate)
meta() { sqlite3 rec-long/profile.db "SELECT value FROM meta WHERE key = '$1'"; }
d=$(meta deferred) y=$(meta yielded)
echo "    meta: $(sqlite3 rec-long/profile.db "SELECT group_concat(key || '=' || value, ' ') FROM meta
	WHERE key IN ('samples', 'picks', 'entries', 'missed', 'gated', 'gates_fired', 'gates_expired', 'deferred', 'deferred_armed', 'deferred_expired', 'yielded')" 2>&1)"
check "t813-long-deferred-${d:-none}" [ "${d:-0}" -ge 1 ]
check "t813-long-yielded-${y:-none}" [ "${y:-0}" -ge 1 ]
# A machine where the instances are longer than the patience (the CI's, ~1.8x slower than
# this one: 45 ms instances against 32 ms of patience, 0 entries of 41 picks there): the
# same with the patience cut to 3 samples (12 ms at the default period, half the 25 ms
# instances here).  A fixed patience gave 0 entries (missed 39 of 41 picks) with this
# command; the thread's patience grows at each missed pick (doc: Costs, long instances).
SONDE_VARIANCE_PATIENCE=3 "$SONDE" variance -q -o rec-slow -- ./vline long >out-slow.txt 2>err-slow.txt
check "t813-slow-run" [ $? -eq 0 ]
nl=$(var_col rec-slow/variance/functions.csv in_long "main > in_long" cpu-time instances)
np=$(var_col rec-slow/variance/functions.csv pad_long "main > pad_long" cpu-time instances)
check "t813-slow-instances-${nl:-0}" [ "${nl:-0}" -ge 3 ]
check "t813-slow-twin-instances-${np:-0}" [ "${np:-0}" -ge 3 ]
