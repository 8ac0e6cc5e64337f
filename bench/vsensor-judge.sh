#!/usr/bin/env bash
# bench/vsensor-judge.sh - how long sonde vsensor's cross-rank analysis (judge.c: rank 0 at
# MPI_Finalize, `sonde vsensor report` on a killed job's files) takes as a job grows:
# synthetic jobs of 64 and 128 ranks x 10 sensors x 1000 slices (1000 slices: 200 s at the
# default 200 ms) and 400 x 20 x 2000 (16M records), built from this tree's sources, or
# from VS_JUDGE_SRC (another checkout's src/, say the tree before a change; a size over
# VS_JUDGE_TIMEOUT seconds, default 120, is cut and said).  Never fails on numbers.
#   bench/vsensor-judge.sh
#   VS_JUDGE_SRC=/tmp/old/src bench/vsensor-judge.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
src=$(cd "${VS_JUDGE_SRC:-$top/src}" && pwd)
bench_scratch vsensor-judge
gcc -O2 -D_GNU_SOURCE -I"$src" "$top/bench/vsensor-judge.c" "$src/tools/vsensor/judge.c" \
	"$src/tools/vsensor/model.c" "$src/tools/vsensor/rec.c" "$src/ui/csv.c" "$src/prof/file.c" \
	-lm -o vj 2>build.log || { echo "bench: vsensor-judge skipped: cannot build ($(head -c 200 build.log))"; exit 0; }
echo "bench: vsensor-judge, sources $src, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for size in "64 10 1000" "128 10 1000" "400 20 2000"; do
	mkdir -p "out" && rm -f out/*
	# shellcheck disable=SC2086
	timeout "${VS_JUDGE_TIMEOUT:-120}" ./vj $size out || echo "  ranks/sensors/slices $size: over ${VS_JUDGE_TIMEOUT:-120} s (cut)"
done
