# t40-comm-lib.bash - helpers for the comm tests (t400-t449), sourced after lib.sh.
# Not a test itself (tests/run.sh runs t*.sh only).

# comm_build: $T/cb-inst (sonde-cc, inst source) from tests/workloads/comm/commbench.c,
# or SKIP NAME and return 1 when clang is missing.
comm_build() {
	command -v clang >/dev/null || { skip "$1" "clang is not installed (sonde-cc needs it)"; return 1; }
	[ -x "$SONDE_BUILD/sonde-cc" ] || { fail "$1" "$SONDE_BUILD/sonde-cc missing (make build-tests)"; return 1; }
	"$SONDE_BUILD/sonde-cc" -O2 -pthread "$SONDE_TOP/tests/workloads/comm/commbench.c" \
		-o "$T/cb-inst" || { fail "$1" "sonde-cc could not build commbench"; return 1; }
}

# comm_build_gcc: $T/cb-gcc, plain gcc (clock source).
comm_build_gcc() {
	gcc -std=gnu11 -O2 -g -fno-omit-frame-pointer -pthread \
		"$SONDE_TOP/tests/workloads/comm/commbench.c" -o "$T/cb-gcc"
}

# mat_sum FILE: the sum of a matrix CSV's cells.
mat_sum() { awk -F, 'NR > 1 { for (i = 2; i <= NF; i++) s += $i } END { printf "%d\n", s }' "$1"; }

# mat_cell FILE I J: cell (I, J).
mat_cell() { awk -F, -v i="$2" -v j="$3" 'NR == i + 2 { print $(j + 2) }' "$1"; }

# mat_share FILE "i-j i-j ..." [K]: the fraction of the matrix's volume in these pairs
# (both triangles); 0 for an empty matrix.  With K, thread K's row and column left out.
mat_share() {
	awk -F, -v pairs="$2" -v skip="${3:--1}" '
		BEGIN { n = split(pairs, p, " "); for (k = 1; k <= n; k++) { split(p[k], ij, "-"); want[ij[1] "," ij[2]] = 1; want[ij[2] "," ij[1]] = 1 } }
		NR > 1 && NR - 2 != skip { for (c = 2; c <= NF; c++) if (c - 2 != skip) { s += $c; if (((NR - 2) "," (c - 2)) in want) w += $c } }
		END { printf "%.4f\n", s ? w / s : 0 }' "$1"
}

# mat_square FILE: square, header row and column 0..n-1.
mat_square() {
	awk -F, 'NR == 1 { n = NF - 1; for (i = 2; i <= NF; i++) if ($i != i - 2) bad = 1; next }
		 { if (NF != n + 1 || $1 != NR - 2) bad = 1; rows++ }
		 END { exit !(n >= 1 && rows == n && !bad) }' "$1"
}

# mat_invariants DIR UNIT: symmetric, zero diagonal, all = true + false in every cell.
mat_invariants() {
	local d=$1/comm u=$2
	mat_square "$d/matrix-all-$u.csv" && mat_square "$d/matrix-true-$u.csv" &&
	mat_square "$d/matrix-false-$u.csv" &&
	paste -d, "$d/matrix-all-$u.csv" "$d/matrix-true-$u.csv" "$d/matrix-false-$u.csv" | awk -F, '
		NR == 1 { n = NF / 3; next }
		{ i = NR - 2
		  for (j = 0; j < n - 1; j++) {
			a[i, j] = $(j + 2); t = $(n + j + 2); f = $(2 * n + j + 2)
			if (a[i, j] != t + f) bad = "all != true + false at " i "," j
			if (i == j && a[i, j] != 0) bad = "diagonal " i " is " a[i, j]
		  } }
		END { for (k in a) { split(k, ij, SUBSEP); if (a[ij[1], ij[2]] != a[ij[2], ij[1]]) bad = "asymmetric at " ij[1] "," ij[2] }
		      if (bad) { print bad; exit 1 } }'
}

# mat_cosine A B: cosine similarity of two matrices of the same threads (all cells).
mat_cosine() {
	paste -d, "$1" "$2" | awk -F, 'NR == 1 { n = NF / 2; next }
		{ for (j = 2; j <= n; j++) { x = $j; y = $(n + j); d += x * y; a += x * x; b += y * y } }
		END { printf "%.4f\n", (a && b) ? d / sqrt(a * b) : 0 }'
}

# meta DIR KEY: a value of the profile database's meta table.
comm_meta() { sqlite3 "$1/profile.db" "SELECT value FROM meta WHERE key = '$2'"; }

# ring_edges FILE: the ring's four edge cells 1-2 2-3 3-4 4-1, space-separated.
ring_edges() { echo $(mat_cell "$1" 1 2) $(mat_cell "$1" 2 3) $(mat_cell "$1" 3 4) $(mat_cell "$1" 4 1); }

# ring_even FILE LO HI: each ring edge of the matrix within [LO, HI] x the four edges'
# mean (the exact edges are 2N each: the ring is symmetric).
ring_even() {
	ring_edges "$1" | awk -v lo="$2" -v hi="$3" '
		{ m = ($1 + $2 + $3 + $4) / 4; if (m <= 0) exit 1
		  for (k = 1; k <= 4; k++) if ($k < lo * m || $k > hi * m) exit 1 }'
}

# comm_dump DIR [MATRIX]: a failed check's evidence, so that a failure seen once explains
# itself: the recording's thread matrix (DIR/comm/matrix-all-thread.csv, or MATRIX, a path
# under DIR), its pairs.csv beside that matrix, and the detector's counters.
comm_dump() {
	local d=$1 m=${2:-comm/matrix-all-thread.csv}
	echo "--- $d/$m"
	cat "$d/$m"
	echo "--- $d/$(dirname "$m")/pairs.csv"
	cat "$d/$(dirname "$m")/pairs.csv"
	echo "--- $d: $(sqlite3 "$d/profile.db" "SELECT group_concat(key || '=' || value, ' ') FROM meta
		WHERE key IN ('source', 'period', 'samples', 'stores', 'published', 'hits',
			      'arm_tries', 'arms', 'traps', 'traps_ignored', 'thinned', 'events',
			      'total_all', 'total_trap', 'sampled_total_all', 'sampled_total_trap',
			      'switches_per_s', 'watch_backend')")"
}

# comm_check "DIR..." NAME COMMAND...: check, and on failure comm_dump each DIR (a DIR
# given as DIR:MATRIX dumps that matrix).
comm_check() {
	local dirs=$1 name=$2 d
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "$*"
		for d in $dirs; do
			case $d in *:*) comm_dump "${d%%:*}" "${d#*:}" ;; *) comm_dump "$d" ;; esac
		done
	fi
}
