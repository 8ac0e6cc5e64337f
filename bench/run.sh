#!/usr/bin/env bash
# bench/run.sh - `make bench`: every bench/<name>.sh in turn (one per tool or area), each
# measuring side by side in one run and printing ratios.  Never fails on numbers.
#   bench/run.sh [NAME...]      (default: all of them, in name order, but those marked
#                               "# make bench: on demand", which need input of their own)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then
	list=()
	for n in "$@"; do list+=("$top/bench/$n.sh"); done
else
	list=("$top"/bench/*.sh)
fi
for s in "${list[@]}"; do
	case ${s##*/} in run.sh|lib.sh) continue ;; esac
	[ -f "$s" ] || { echo "bench: no $s" >&2; continue; }
	# scripts that read what an earlier run kept, or a program named on their command line:
	# run by hand (their header says how), not by the whole of make bench
	if [ $# -eq 0 ] && grep -q '^# make bench: on demand' "$s"; then
		echo "=== bench/${s##*/}: on demand, left out (its header says what it reads)"
		continue
	fi
	echo "=== bench/${s##*/}"
	bash "$s"
done
exit 0
