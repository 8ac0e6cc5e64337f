# t50-reuse-lib.bash - helpers for the reuse tests (t500-t549), sourced after lib.sh.
# Not a test itself (tests/run.sh runs t*.sh only).

# reuse_build NAME: $T/rb (sonde-cc) from tests/workloads/reuse/rbench.c, or SKIP NAME and
# return 1 when clang is missing.
reuse_build() {
	command -v clang >/dev/null || { skip "$1" "clang is not installed (sonde-cc needs it)"; return 1; }
	[ -x "$SONDE_BUILD/sonde-cc" ] || { fail "$1" "$SONDE_BUILD/sonde-cc missing (make build-tests)"; return 1; }
	"$SONDE_BUILD/sonde-cc" -O2 -g -pthread "$SONDE_TOP/tests/workloads/reuse/rbench.c" \
		-o "$T/rb" || { fail "$1" "sonde-cc could not build rbench"; return 1; }
}

# reuse_rows FILE KIND: "lo,hi,count" rows of one kind of a histogram.csv.
reuse_rows() { awk -F, -v k="$2" 'NR > 1 && $1 == k { print $2 "," $3 "," $4 }' "$1"; }

# reuse_s A B: the accuracy S = 1 - sum |a_i - b_i| / 2 of two "lo,hi,count" histograms
# (each normalised to fractions over its own rows), 4 decimals.
reuse_s() {
	awk -F, 'FNR == NR { a[$1] += $3; sa += $3; k[$1] = 1; next }
		 { b[$1] += $3; sb += $3; k[$1] = 1 }
		 END { if (!sa || !sb) { print 0; exit }
		       for (x in k) d += (a[x] / sa - b[x] / sb) < 0 ? b[x] / sb - a[x] / sa : a[x] / sa - b[x] / sb
		       printf "%.4f\n", 1 - d / 2 }' "$1" "$2"
}

# reuse_meta DIR KEY: a meta value of DIR/profile.db.
reuse_meta() { sqlite3 "$1/profile.db" "SELECT value FROM meta WHERE key = '$2'"; }

# reuse_frac FILE KIND: the fraction column of the one row of KIND (invalidation, cold).
reuse_frac() { awk -F, -v k="$2" 'NR > 1 && $1 == k { print $5 }' "$1"; }

# reuse_check_seeds NAME BAR ARGS...: `rbench ARGS` under --check-sampling at period 4001
# with seeds 1-3 (one thread: the outcome depends on the seed alone), each S against BAR
# (checks NAME-check-seedN); recordings in NAME-c1 to NAME-c3, made afresh.
reuse_check_seeds() {
	local name=$1 bar=$2 seed s d
	shift 2
	for seed in 1 2 3; do
		d=$name-c$seed
		rm -rf "$d"
		"$SONDE" reuse -q --check-sampling --period 4001 --seed "$seed" -o "$d" -- \
			"$T/rb" "$@" >/dev/null 2>&1
		s=$([ -f "$d/profile.db" ] && reuse_meta "$d" check_s)
		echo "seed $seed: check S ${s:-none}, the sample alone $([ -f "$d/profile.db" ] && reuse_meta "$d" check_s_sample)"
		check "$name-check-seed$seed" float_between "$s" "$bar" 1
	done
}
