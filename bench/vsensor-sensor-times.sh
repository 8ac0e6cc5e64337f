#!/usr/bin/env bash
# bench/vsensor-sensor-times.sh - the per-sense times of a kept vsensor run's sensors
# (doc/sonde-vsensor-history.md, "Why the network delay is not found"), from its records:
#   bench/vsensor-sensor-times.sh DIR [KIND [START END]]
# DIR is one run's directory (kept by bench/vsensor-real.sh with VS_REAL_KEEP, e.g.
# DIR/p-IS-1); KIND (network) the sensors' kind.  SONDE: the sonde that reads the records
# (default build/sonde).  Each record of rank-<r>.rec is one
# sensor in one slice: its mean sense in us (for network sensors the fastest 1-ms average,
# vsrt.c).  Prints per rank and sensor the records' count and min / median / max in us,
# inside the window of DIR/truth (START-END of "kind:ranks:START:END", as the bench wrote it
# for the scored run; or START END, in s, e.g. the delayed run's window for the clean run)
# and outside it; with neither, or truth "none", one line for the whole run.  Then the
# network cells under 0.50 in and out of the window (matrix-network.csv), and the start of
# the first slice with network data (NPB IS: its first iteration, after its key generation);
# and the network cells recomputed from the records, time-weighted and by the median.
# Reads only: never fails on numbers.
# make bench: on demand (it reads a kept run; make bench leaves it out)
set -u
dir=${1:?usage: bench/vsensor-sensor-times.sh DIR [KIND [START END]]}
kind=${2:-network}
[ -f "$dir/sensors.csv" ] || { echo "no sensors.csv in $dir" >&2; exit 1; }
SONDE=${SONDE:-$(cd "$(dirname "$0")/.." && pwd)/build/sonde}
recs=$(mktemp)
trap 'rm -f "$recs"' EXIT
slice=$(head -1 "$dir/matrix-compute.csv" | awk -F, '{ print $3 - $2 }')
ws=-1 we=-1
if [ -f "$dir/truth" ] && [ "$(cat "$dir/truth")" != none ]; then
	ws=$(awk -F: '{ print $3 }' "$dir/truth")
	we=$(awk -F: '{ print $4 }' "$dir/truth")
fi
[ $# -ge 4 ] && ws=$3 we=$4
echo "$dir: slices of $slice s; window ${ws}-${we} s (-1: none); $kind sensors, us per sense"
echo "(rank 'all': the ranks' records pooled; in/out: the slice starts in the window or not)"
# the records of every rank (sonde vsensor records: rank,slice,sensor,time_us,seconds;
# both file formats, rec.h)
"$SONDE" vsensor records "$dir" >"$recs" || exit 1
awk -F, -v kind="$kind" -v sl="$slice" -v ws="$ws" -v we="$we" -v sensors="$dir/sensors.csv" '
	BEGIN {	# each rank'\''s sensors, in the order of their index (vsrt.c, write_sensors)
		while ((getline line < sensors) > 0) {
			split(line, c, ",")
			if (c[1] == "rank")
				continue
			i = idx[c[1]]++
			name[c[1], i] = c[2]; k[c[1], i] = c[3]
		}
	}
	NR > 1 {
		r = $1; s = $3
		if (k[r, s] != kind)
			next
		t = $2 * sl
		printf "%s\t%s\t%s\t%s\n", r, name[r, s], ws < 0 ? "all" : (t >= ws && t < we ? "in" : "out"), $4
	}' "$recs" | awk -F'\t' '
	{ for (i = 0; i < 2; i++) { key = (i ? "all" : $1) "\t" $2 "\t" $3; n[key]++; v[key, n[key]] = $4 + 0 } }
	END {
		for (key in n) {
			m = n[key]
			for (j = 1; j <= m; j++) a[j] = v[key, j]
			for (x = 2; x <= m; x++) { t = a[x]; for (y = x - 1; y >= 1 && a[y] > t; y--) a[y + 1] = a[y]; a[y + 1] = t }
			split(key, f, "\t")
			printf "  rank %-3s %-30s %-3s %4d records  min %10.1f  median %10.1f  max %10.1f\n",
				f[1], f[2], f[3], m, a[1], (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2), a[m]
		}
	}' | sort -k2,2 -k3,3 -k4,4
# the network cells under 0.5 (the rule's threshold) of those with data, in and out of the window
[ "$kind" = network ] && awk -F, -v ws="$ws" -v we="$we" '
	NR == 1 { for (i = 2; i <= NF; i++) t[i] = $i; next }
	{ for (i = 2; i <= NF; i++) if ($i != "") { w = ws >= 0 && t[i] >= ws && t[i] < we ? "in" : "out"
		have[w]++; low[w] += $i < 0.5 } }
	END { for (w in have) printf "  network cells under 0.50, %s: %d of %d\n", w == "out" && ws < 0 ? "all" : w, low[w], have[w] }' \
	"$dir/matrix-network.csv" | sort
# the same network cells recomputed from the records, per rank and slice, two ways: the
# runtime's (the mean of the sensors' performance, standard / time capped at 1, weighted
# by the time spent in each) and the median of the sensors' performance: where a few
# sensors wait for a partner (PRK Stencil's first MPI_Wait of each pair) and dominate the
# time, the others (posting MPI_Irecv/MPI_Isend) still say how fast the network is.
# Standard: the 10th percentile of the sensor's records on its rank (vsrt.c, standards).
# Step 5's CPU exemption and steps 3-6 are not applied: cells under 0.50, not flags.
[ "$kind" = network ] && python3 - "$dir" "$ws" "$we" "$slice" "$recs" <<'PY'
import csv, os, sys
d, ws, we, sl = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
kinds = {}
for r in csv.DictReader(open(os.path.join(d, "sensors.csv"))):
    kinds.setdefault(r["rank"], []).append(r["kind"])
cnt = {}
byrank = {}
for row in csv.DictReader(open(sys.argv[5])):
    byrank.setdefault(row["rank"], []).append(row)
for rk, rows in byrank.items():
    k = kinds.get(rk, [])
    recs = []
    for row in rows:
        b, s, t, w = int(row["slice"]), int(row["sensor"]), float(row["time_us"]), float(row["seconds"])
        if 0 <= s < len(k) and k[s] == "network" and t > 0:
            recs.append((b, s, t, w))
    std = {}
    for s in set(x[1] for x in recs):
        v = sorted(x[2] for x in recs if x[1] == s)
        std[s] = v[len(v) // 10]
    cells = {}
    for b, s, t, w in recs:
        cells.setdefault(b, []).append((min(1.0, std[s] / t), w))
    for b, ps in cells.items():
        where = "all" if ws < 0 else ("in" if ws <= b * sl < we else "out")
        sw = sum(w for _, w in ps)
        mean = sum(p * w for p, w in ps) / sw if sw > 0 else min(p for p, _ in ps)
        v = sorted(p for p, _ in ps)
        med = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
        c = cnt.setdefault(where, [0, 0, 0])
        c[0] += 1; c[1] += mean < 0.5; c[2] += med < 0.5
for where in sorted(cnt):
    n, lm, lmed = cnt[where]
    print("  from the records, %s: %d cells, under 0.50: %d time-weighted, %d by the median of the sensors" % (where, n, lm, lmed))
PY
[ -f "$dir/matrix-network.csv" ] && awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) s[i] = $i; next }
	{ for (i = 2; i <= NF; i++) if ($i != "" && (f == "" || s[i] + 0 < f + 0)) f = s[i] }
	END { print "  first slice with network data: " (f == "" ? "none" : f " s") }' "$dir/matrix-network.csv"
exit 0
