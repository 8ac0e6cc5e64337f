#!/usr/bin/env bash
# t311: the terminal's modules table names a module by its file name, modules.csv and
# summary.json by the mmap's full path; the "# cpu:" header says "not recorded" for a file
# without a CPU description (the bundled example: the generator writes only the CPUID
# "GenuineIntel,6,42,7"), and gives perf's own cpudesc/cpuid for a file perf recorded here.
. "$(dirname "$0")/lib.sh"
fx=$SONDE_TOP/tests/fixtures/perfdata
mkdir ex && cp "$fx/example-snb" "$fx/example-snb.perf.data" ex/ && cd ex || exit 1

"$SONDE" analyze example-snb.perf.data >out.txt 2>err.txt
check t311-runs [ $? -eq 0 ]
awk '/^Hot modules/ { getline; getline; print; exit }' out.txt >mod.txt
if [ "$(awk '{ print $(NF - 1), $NF }' mod.txt)" = "example-snb [example-snb]" ] &&
	! awk '/^Hot modules/,/^$/' out.txt | grep -q /proc/self/cwd; then
	pass t311-module-basename
else
	fail t311-module-basename "$(cat mod.txt)"
fi
"$SONDE" analyze -o rep example-snb.perf.data >/dev/null 2>&1
check t311-modules-csv-full-path [ "$(csv_get rep/modules.csv rank 1 module)" = /proc/self/cwd/example-snb ]
if command -v python3 >/dev/null; then
	j=$(python3 -c 'import json; print(json.load(open("rep/summary.json"))["modules"][0]["name"])')
	check t311-json-full-path [ "$j" = /proc/self/cwd/example-snb ]
else
	skip t311-json-full-path "python3 is not installed"
fi

check t311-cpu-not-recorded grep -qx '# cpu: not recorded (cpuid GenuineIntel,6,42,7)' out.txt
if grep -q 'cpu: ?' out.txt; then fail t311-no-question-mark "$(grep 'cpu:' out.txt)"; else pass t311-no-question-mark; fi

# a real recording: the header repeats what `perf report --header-only` read from the file
command -v perf >/dev/null || { skip t311-cpu-recorded "perf is not installed"; exit 0; }
cd "$T" || exit 1
perf record -q -e cpu-clock -o p.data -- "$W/demo-hotcold" 2 5 >/dev/null 2>&1 ||
	{ skip t311-cpu-recorded "perf record failed here"; exit 0; }
perf report --header-only -i p.data 2>/dev/null >hdr.txt
desc=$(sed -n 's/^# cpudesc : //p' hdr.txt) cpuid=$(sed -n 's/^# cpuid : //p' hdr.txt)
"$SONDE" analyze p.data >p.txt 2>&1
want="# cpu: ${desc:-not recorded}${cpuid:+ (cpuid $cpuid)}"
got=$(grep '^# cpu:' p.txt)
if [ "$got" = "$want" ]; then pass t311-cpu-recorded; else fail t311-cpu-recorded "got '$got', want '$want'"; fi
