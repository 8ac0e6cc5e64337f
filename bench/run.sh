#!/usr/bin/env bash
# bench/run.sh - `make bench`: every bench/<name>.sh in turn (one per tool or area), each
# measuring side by side in one run and printing ratios.  Never fails on numbers.
#   bench/run.sh [NAME...]      (default: all of them, in name order)
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
	echo "=== bench/${s##*/}"
	bash "$s"
done
exit 0
