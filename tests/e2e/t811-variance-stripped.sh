#!/usr/bin/env bash
# t811-variance-stripped: a stripped program's functions have no name, and their stretch
# of code is one name for every report's code table ("[vstrip]", sym_code_name); the
# measured function of an instance must still be told apart by its entry's address, or
# saw's, flat's and bimodal's instances (vwork mix: 1-10 units, 5, 1 or 9) are merged into
# one row whose CV means nothing.  They are named "[vstrip]+0xOFFSET" (the entry's
# offset in the file, for addr2line on the unstripped build), one row each.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"
var_gcc_build t811 vstrip || exit 0
strip vstrip
"$SONDE" variance -o st -p 1000000 -- ./vstrip mix 1 >out.txt 2>err.txt
check t811-run [ $? -eq 0 ]
F=st/variance/functions.csv
# saw, flat and bimodal are each sampled hundreds of times a second at this period: all
# three measured in a second (two at least: the bar leaves one to chance on a busy machine)
n=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /^\[vstrip\]\+0x[0-9a-f]+$/ { print $1 }' "$F" | sort -u | wc -l)
check "t811-functions-apart-$n" [ "$n" -ge 2 ]
check t811-no-merged-row [ "$(awk -F, 'NR > 1 && $1 == "[vstrip]"' "$F" | wc -l)" -eq 0 ]
# each offset is a function's entry in the unstripped build
var_gcc_build t811-unstripped vfull || exit 0
for off in $(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /^\[vstrip\]\+0x/ { sub(/^\[vstrip\]\+/, "", $1); print $1 }' "$F" | sort -u); do
	name=$(nm vfull | awk -v a="$(printf '%016x' "$off")" '$1 == a && $2 ~ /[tT]/ { print $3; exit }')
	check "t811-entry-$off-is-a-function-${name:-none}" [ -n "$name" ]
done
