#!/usr/bin/env bash
# bench/variance-self.sh - is a short function's CPU time per instance right beside a load
# (doc/sonde-variance.md, "Short functions beside a load")?  vself (2 threads calling a
# leaf of US us of CPU work, default 4, that times its own body) is recorded by `sonde
# variance -p 1000000` RUNS times (default 6), alone and beside BUSY busy loops (default
# 4: `sh -c 'while :; do :; done'`), and each instance is matched to its call's own
# timing (tests/workloads/variance/vself-match.py): one line a run with the trap cost calibrated, sonde's
# median and mean, the same calls' truth, and the error's p10, median, p90 and mean, in
# us.  VARIANCE_SELF_B="ENV=VALUE" adds a second variant run in turn with each (e.g.
# SONDE_VARIANCE_STAMP=0); VSELF_KB=N gives the leaf a footprint of N KB.  Native runs,
# alone and beside the loops, give the leaf's CPU time without sonde (the body's, all
# calls).  Never fails on numbers.
#   RUNS=6 BUSY=4 VARIANCE_SELF_B=SONDE_VARIANCE_STAMP=0 bench/variance-self.sh
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
SONDE_BUILD=${SONDE_BUILD:-$top/build}
bench_scratch variance-self
gcc -O1 -g -fno-omit-frame-pointer -pthread "$top/tests/workloads/variance/vself.c" -o vself || exit 0
us=${US:-4}
per=$(./vself 0.1 "$us" | awk '$1 == "vself" { print $3 }')
clk=$(./vself 0.1 "$us" | awk '$1 == "vself" { print $5 }')
export VSELF_PER_US=$per
echo "bench: variance-self: vself 2 $us, ${RUNS:-6} runs a case, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), loop $per/us, clock read $clk ns"
native() {
	VSELF_OUT=n.calls ./vself 2 "$us" >/dev/null
	awk -v c="$clk" '{ print $3 + c }' n.calls | sort -g | awk -v w="$1" '{ v[NR] = $1; s += $1 }
		END { if (NR) printf "  native %s: calls %d, CPU time median %.2f us, mean %.2f us\n", w, NR, v[int((NR + 1) / 2)] / 1e3, s / NR / 1e3 }'
}
variants="A="
[ -n "${VARIANCE_SELF_B:-}" ] && variants="A= B=$VARIANCE_SELF_B"
for busy in 0 "${BUSY:-4}"; do
	pids=""
	for k in $(seq 1 "$busy"); do timeout 900 sh -c 'while :; do :; done' & pids="$pids $!"; done
	sleep 0.5
	native "beside $busy loops"
	for i in $(seq 1 "${RUNS:-6}"); do
		for v in $variants; do
			name=${v%%=*} envv=${v#*=}
			rm -rf rec
			env $envv VSELF_OUT=s.calls "$SONDE_BUILD/sonde" variance -q -o rec -p 1000000 -- ./vself 2 "$us" >/dev/null 2>&1 || continue
			cal=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'trap_cpu_ns'")
			python3 "$top/tests/workloads/variance/vself-match.py" rec s.calls "$clk" | awk -v b="$busy" -v n="$name" -v c="${cal:-0}" -v l="$(cut -d' ' -f1 /proc/loadavg)" '
				{ for (i = 1; i < NF; i += 2) f[$i] = $(i + 1)
				  printf "  %s beside %d loops (load %s): cost %.2f us, %d of %d instances matched, sonde median %.2f mean %.2f, truth median %.2f mean %.2f, error p10 %+.2f median %+.2f p90 %+.2f mean %+.2f\n",
					n, b, l, c / 1e3, f["matched"], f["instances"], f["sonde_median"] / 1e3, f["sonde_mean"] / 1e3,
					f["truth_median"] / 1e3, f["truth_mean"] / 1e3, f["err_p10"] / 1e3, f["err_median"] / 1e3,
					f["err_p90"] / 1e3, f["err_mean"] / 1e3 }'
		done
	done
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
done
