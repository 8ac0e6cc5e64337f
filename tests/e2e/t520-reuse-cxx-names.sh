#!/usr/bin/env bash
# t520-reuse-cxx-names: the summary's "Fix first" sentence shortens C++ names as the pairs
# table does (template arguments and parameter lists to "<...>" and "(...)"; a trial's
# miniFE printed a 300-character name twice in that sentence), and the pairs CSV keeps
# the full name.
. "$(dirname "$0")/lib.sh"
command -v clang++ >/dev/null || command -v clang >/dev/null ||
	{ skip t520 "clang is not installed (sonde-cc needs it)"; exit 0; }
"$SONDE_BUILD/sonde-cc" -O2 -g "$SONDE_TOP/tests/workloads/reuse/cxxnames.cc" -o cx -lstdc++ ||
	{ fail t520-build "sonde-cc could not build cxxnames.cc"; exit 0; }
"$SONDE" reuse --exact -o rec -- ./cx >out 2>err
check t520-status [ $? -eq 0 ]
check t520-fix-first-short grep -q "Fix first: the reuse from double very_long_namespace_name::sweep_the_array<\.\.\.>(\.\.\.) (cxxnames.cc:" <(flat err)
check t520-fix-first-no-arguments bash -c '! tr "\n" " " <err | tr -s " " | grep -o "Fix first: .*reuses beyond L2" | grep -q "Holder<double"'
check t520-csv-full grep -q "sweep_the_array<double, long>" rec/reuse/pairs.csv
