#!/usr/bin/env bash
# t816-variance-driver: a pick drawn in a measured instance outside it is not lost (issue 9;
# tests/workloads/variance/vdrv.c, plain gcc, debug registers).  main -> drive(), which
# calls each round once_long (60 ms), mid (5 ms) 4 times and rec (1 ms, 5 deep), here 40
# rounds.  Most samples fall in a measured once_long.  When the frame drawn there was
# once_long's own, the pick took the next frame outward (drive, called once), armed at
# once: its entry could not fire, the pick waited its patience (8 samples) and counted
# as missed.  Now a frame drawn at or outside the innermost pending instance is a weak
# pick deferred to its return, which the next sample's pick of another function replaces
# (counted as yielded, not missed).
# Measured with this script's command (/tmp copy, 20 rounds) 2026-11-26 14:54 UTC, load
# 7-9, 3 runs each side by side: before, 13-18 entries of 53-76 picks, 39-59 missed
# (0.65-0.78 of the picks); after, 19-24 entries of 41-74 picks, 12-39 missed (0.29-0.53).
# What is still missed: samples in mid or rec (no instance pending) that draw drive
# (doc/sonde-variance.md, Limits: driver loops).
# Bar: missed at most 0.6 of the picks (the picks are drawn at random: at ~120-150 picks
# at 40 rounds a share is within ~+-0.04 at one standard deviation; the old build's
# lowest share seen is 0.65).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_gcc_src t816 vdrv.c vdrv -O2 -g -fno-omit-frame-pointer || exit 0

"$SONDE" variance -q -o rec -- ./vdrv 40 >out.txt 2>err.txt
check "t816-run" [ $? -eq 0 ]
meta() { sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = '$1'"; }
echo "    meta: $(sqlite3 rec/profile.db "SELECT group_concat(key || '=' || value, ' ') FROM meta
	WHERE key IN ('samples', 'picks', 'entries', 'missed', 'deferred', 'deferred_armed', 'yielded')" 2>&1)"
p=$(meta picks) e=$(meta entries) ms=$(meta missed)
check "t816-picks-${p:-none}" [ "${p:-0}" -ge 20 ]
r=$(awk -v a="${ms:-0}" -v b="${p:-0}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 99) }')
check "t816-missed-${ms:-none}-of-picks-$r" float_between "$r" 0 0.6
F=rec/variance/functions.csv
ni=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["metric"] == "cpu-time" && ($1 == "once_long" || $1 == "mid" || $1 == "rec") { n += $h["instances"] }
	END { print n + 0 }' $F)
echo "    instances: once_long $(var_col $F once_long "main > drive > once_long" cpu-time instances)" \
	"mid $(var_col $F mid "main > drive > mid" cpu-time instances) all $ni"
