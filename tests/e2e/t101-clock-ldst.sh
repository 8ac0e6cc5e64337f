# Load/store split and shares by construction: clock-ldst does 9 loads from `src` for each
# store to `dst`.  With a random skip over a whole 10-access period (SONDE_EXTRA_STEPS=10),
# where the timer lands no longer matters, so src must get 90 % of the samples, all loads,
# and dst 10 %, all stores.
. "$(dirname "$0")/lib.sh"

if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ] && [ "$(id -u)" -ne 0 ]; then
	skip clock-ldst "perf_event_paranoid > 2: no cpu-clock sampling for users"
	exit 0
fi

SONDE_EXTRA_STEPS=10 "$SONDE" mem -q -s clock -o ldst -- "$W/clock-ldst" 1 >out 2>err
check clock-ldst-runs grep -q '^clock-ldst: ok$' out
obj=ldst/mem/objects.csv
src=$(csv_get "$obj" object src share)
dst=$(csv_get "$obj" object dst share)
samples=$(awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' "$obj")
echo "src ${src:-none} dst ${dst:-none} of $samples samples (constructed 0.90 / 0.10)"
check clock-ldst-samples test "$samples" -ge 500
if [ -n "$src" ] && float_between "$src" 0.85 0.95; then pass clock-ldst-src-share
else fail clock-ldst-src-share "src ${src:-missing}, want 0.90 +- 0.05"; fi
if [ -n "$dst" ] && float_between "$dst" 0.05 0.15; then pass clock-ldst-dst-share
else fail clock-ldst-dst-share "dst ${dst:-missing}, want 0.10 +- 0.05"; fi
check clock-ldst-src-loads-only test "$(csv_get "$obj" object src stores)" = 0
check clock-ldst-dst-stores-only test "$(csv_get "$obj" object dst loads)" = 0
