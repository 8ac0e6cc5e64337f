#!/usr/bin/env bash
# t046-openmp-stripped-names: Debian's libgomp is stripped to its exported symbols, and the
# functions its threads spin in (the barrier wait) are static ones.  sonde mem named that
# code after the nearest export before it, "omp_get_num_procs+0x7b (nearest exported
# symbol)", which says neither that it is libgomp's nor that it is not that function;
# sonde variance named the same code "[libgomp.so.1.0.0]+0x1cfd0" and knew it for the
# OpenMP runtime's by that name alone, so renaming one side would have kept its frames
# in the contexts.  One function (sym_code_name, src/prof/symbols.h) now names it for
# both, "[libgomp.so.1.0.0] omp_get_num_procs+0x7b (nearest exported symbol)", and
# variance knows the runtime by the frame's library file.  vomp.c's region (1 and 7 units
# in 2 threads) makes thread 0 spin in libgomp under OMP_WAIT_POLICY=active (t043).
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { skip t046 "gcc is not installed"; exit 0; }
if ! gcc -O1 -g -fno-omit-frame-pointer -fopenmp "$SONDE_TOP/tests/workloads/variance/vomp.c" \
	-o vomp 2>build.err; then
	skip t046 "gcc -fopenmp failed: $(head -c 200 build.err)"
	exit 0
fi
OMP_WAIT_POLICY=active "$SONDE" mem -o mem -- ./vomp 200 7 >/dev/null 2>mem.txt
check t046-mem-run [ $? -eq 0 ]
IFS='|' read -r cid fn module < <(sqlite3 mem/profile.db "SELECT id, function, module FROM code
	WHERE module LIKE '%/libgomp.so%' ORDER BY samples DESC LIMIT 1")
if [ -z "$module" ]; then
	fail t046-mem-libgomp-row "no sample in libgomp's code (t043 checks that it spins)"
elif readelf -S "$module" 2>/dev/null | grep -q ' \.symtab'; then
	skip t046-stripped "$module has its symbol table here: its functions have their names"
else
	lib=${module##*/}
	case $fn in
	"[$lib] "*"+0x"*" (nearest exported symbol)") pass t046-mem-names-the-library ;;
	*) fail t046-mem-names-the-library "'$fn' for code of $module" ;;
	esac
	# The name from outside sonde: the hottest sampled address of that row (a context's
	# ip), made an ELF address with the process's maps copy and the library's program
	# headers, and the exported functions `nm -D` lists: the last one starting at or
	# before it, and its size (the stretch begins where that function ends).  The CSV
	# and the text table must give it (it is short enough to stay whole).
	ip=$(sqlite3 mem/profile.db "SELECT c.ip FROM mem_samples s JOIN contexts c ON
		c.id = s.context WHERE s.code = $cid GROUP BY c.ip ORDER BY count(*) DESC LIMIT 1")
	want=$(awk -v ip="$ip" -v mod="$module" '
		function hex(h,   i, v) {
			h = tolower(h); sub(/^0x/, "", h)
			for (i = 1; i <= length(h); i++)
				v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v }
		part == "maps" && $NF == mod { split($1, r, "-")
			if (hex(r[1]) <= ip && ip < hex(r[2])) foff = ip - hex(r[1]) + hex($3) }
		part == "phdrs" && $1 == "LOAD" && foff != "" && hex($2) <= foff &&
			foff < hex($2) + hex($5) { va = foff - hex($2) + hex($3) }
		part == "nm" && NF == 4 && $3 ~ /^[TtWwi]$/ && va != "" && hex($1) <= va {
			sub(/@.*/, "", $4)
			if (n && hex($1) > best) n = 0
			if (!n || hex($1) == best) { best = hex($1); size = hex($2); names[++n] = $4 } }
		END { if (va != "" && n && va >= best + size)
			for (i = 1; i <= n; i++) printf "%s+0x%x (nearest exported symbol)\n", names[i], size }
		' part=maps mem/*.maps part=phdrs <(readelf -lW "$module") \
		part=nm <(nm -D -S --defined-only "$module"))
	lib_fn=
	while read -r w; do
		[ "$fn" = "[$lib] $w" ] && lib_fn=$fn
	done <<<"$want"
	check t046-mem-name-from-nm test -n "$lib_fn"
	check t046-mem-csv-same-name grep -qF "${lib_fn:-no name from nm}" mem/mem/code.csv
	check t046-mem-text-same-name grep -qF "${lib_fn:-no name from nm}" mem.txt
fi
# sonde variance measures vomp's region where the debug registers trap (t808): the
# runtime's frames, stripped or not, are cut from its contexts by their library
if "$SONDE" info 2>/dev/null | grep -q "their traps fire"; then
	OMP_WAIT_POLICY=active "$SONDE" variance -o var -p 1000000 -- ./vomp 200 7 >/dev/null 2>var.txt
	check t046-variance-run [ $? -eq 0 ]
	F=var/variance/functions.csv
	rows=$(awk -F, 'NR > 1 && $3 == "cpu-time" && $1 ~ /omp_fn/' "$F" | wc -l)
	check "t046-variance-one-row-for-the-region-$rows" [ "$rows" -eq 1 ]
	check t046-variance-no-runtime-frame bash -c "! grep -qE 'libgomp|nearest exported|GOMP_' $F"
else
	skip t046-variance "the debug registers do not trap here"
fi
