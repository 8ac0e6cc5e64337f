#!/usr/bin/env bash
# t045-mem-cxx-short-names: the summary's tables shorten long C++ names as every tool's do
# (ui/text.h, 'n' columns: template arguments and parameter lists as "<...>" and "(...)"
# past 60 characters), the CSV keeps them whole.  sonde mem printed them whole: on a
# LULESH profile its code and object columns were hundreds of characters wide while
# comm, reuse and variance cut the same names.  tests/workloads/omp-names.cc's function
# template has a demangled name of over 300 characters (a std::map's default arguments
# spelt out); it does a fifth of the program's loads, so it is in the code table.
. "$(dirname "$0")/lib.sh"
"$SONDE" mem -o rec -- "$W/omp-names" 100 >/dev/null 2>err.txt
check t045-run [ $? -eq 0 ]
# code.csv: function,file,line,... (the name is quoted: it has commas)
check t045-csv-keeps-the-whole-name \
	grep -q '^"double physics::accumulate_over_elements<.*std::map<std::__cxx11::basic_string<char' \
	rec/mem/code.csv
# the function column of the code table's row for it (after its location, omp-names.cc:N)
row=$(awk '/^Code/ { c = 1; next } /^$/ { c = 0 }
	c && /accumulate_over_elements/ { sub(/^.*omp-names\.cc:[0-9]+ +/, ""); print; exit }' err.txt)
check t045-code-table-short-name [ "$row" = "double physics::accumulate_over_elements<...>(...)" ]
check t045-no-whole-name-in-the-summary bash -c '! grep -q "std::map<" err.txt'
# an object named after a templated constructor: the mesh's field
check t045-object-short-name grep -Eq "heap +physics::Mesh<\.\.\.>::Mesh\(\.\.\.\) \(omp-names\.cc:" err.txt
