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
IFS='|' read -r fn module < <(sqlite3 mem/profile.db "SELECT function, module FROM code
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
	# the text table and the CSV give the same name (it is short enough to stay whole)
	check t046-mem-csv-same-name grep -qF "$fn" mem/mem/code.csv
	check t046-mem-text-same-name grep -qF "$fn" mem.txt
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
