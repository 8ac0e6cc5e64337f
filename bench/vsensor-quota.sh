#!/usr/bin/env bash
# bench/vsensor-quota.sh - N fresh runs of one bundled kernel with a CPU quota on rank 2
# (5% of a CPU, 2-5 s of 8), each scored by this build's rule and, beside it, by up to two
# other sonde binaries (older rules): the case where a rule takes the other ranks' wait
# for the throttled one for a slow network.
#   VS_QUOTA_OLD=/path/sonde VS_QUOTA_MID=/path/sonde bench/vsensor-quota.sh [KERNEL [N [DIR]]]
# KERNEL: ft (default), cg or stencil; N runs (3); DIR keeps them (a temporary directory).
# Prints per run: precision/recall/fp_rate per rule and the load.  Never fails on numbers.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
SONDE_BUILD=${SONDE_BUILD:-$top/build}
SONDE=$SONDE_BUILD/sonde SONDE_TOP=$top
k=${1:-ft} n=${2:-3} T=${3:-$(mktemp -d)}
mkdir -p "$T" && cd "$T" || exit 1
. "$top/tests/workloads/vsensor/vs-test.sh"
vs_build "$k" || exit 1
export SONDE_VS_LIVE=0
sc() { "$1" vsensor score --truth compute:2:2:5 "$2" | sed 's/.*precision=\([0-9.]*\) recall=\([0-9.]*\) fp_rate=\([0-9.]*\)/\1\/\2 fp \3/'; }
echo "bench: $k, CPU quota on rank 2 (5%, 2-5 s), $(date -u '+%F %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg), runs kept in $T"
for i in $(seq "$n"); do
	d=$T/t-$k-$i
	rm -rf "$d"
	SONDE_DIR=$d vs_run -np 4 -x VS_INJECT=throttle:2:2:5:5 "./$k" 8 >/dev/null 2>&1
	echo compute:2:2:5 >"$d/truth"
	line="  run $i: this $(sc "$SONDE" "$d")"
	[ -n "${VS_QUOTA_MID:-}" ] && line="$line | mid $(sc "$VS_QUOTA_MID" "$d")"
	[ -n "${VS_QUOTA_OLD:-}" ] && line="$line | old $(sc "$VS_QUOTA_OLD" "$d")"
	echo "$line  load $(cut -d' ' -f1 /proc/loadavg)"
done
