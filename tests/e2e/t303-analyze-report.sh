#!/usr/bin/env bash
# t303: `sonde analyze -o DIR` writes CSV, JSON and one self-contained index.html; the page
# loads in headless Chromium with no console error and shows the hottest function first;
# a screenshot is kept in $SONDE_BUILD/t303-analyze-report.png.
. "$(dirname "$0")/lib.sh"
if ! command -v perf >/dev/null; then
	skip t303-analyze-report "perf is not installed"
	exit 0
fi
cat >w.c <<'C'
#include <stdio.h>
__attribute__((noinline)) double hot_loop(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s = s * 1.0000001 + (double)i;
	return s;
}
__attribute__((noinline)) double cold_loop(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.25;
	return s;
}
int main(void)
{
	printf("%f %f\n", hot_loop(150000000), cold_loop(30000000));
	return 0;
}
C
gcc -O2 -g -fno-omit-frame-pointer -o w w.c
if ! perf record -q -e cpu-clock -g -o rec.data ./w >/dev/null 2>perf.err; then
	skip t303-analyze-report "perf record failed: $(head -1 perf.err)"
	exit 0
fi
"$SONDE" analyze -o report rec.data 2>err.txt
rc=$?
check t303-report-written [ "$rc" -eq 0 ]
for f in processes.csv modules.csv functions.csv callgraph.csv summary.json index.html \
	functions/1.asm.csv functions/1.src.csv; do
	[ -s "report/$f" ] || fail t303-report-files "missing report/$f"
done
top=$(csv_get report/functions.csv rank 1 function)
check t303-csv-top-function [ "$top" = hot_loop ]
# The callchains give the edge caller -> hot_loop, the caller being the frame `perf script`
# shows under hot_loop most often.
caller=$(perf script -i rec.data -F ip,sym 2>/dev/null | awk '
	NF == 0 { n = 0; next } { n++; if (n == 1) top = $2; if (n == 2 && top == "hot_loop") c[$2]++ }
	END { for (k in c) if (c[k] > best) { best = c[k]; b = k }; print b }')
if [ -n "$caller" ] && grep -q "^$caller,hot_loop,[1-9]" report/callgraph.csv; then
	pass t303-callgraph-edge
else
	fail t303-callgraph-edge "no edge '$caller,hot_loop' in: $(head -4 report/callgraph.csv | tr '\n' ' ')"
fi
if command -v python3 >/dev/null; then
	j=$(python3 -c 'import json,sys; d=json.load(open("report/summary.json")); print(d["functions"][0]["name"])' 2>&1)
	check t303-json-valid [ "$j" = hot_loop ]
fi
# Self-contained: no external resource is loaded.
if grep -qiE '<(script|link|img)[^>]+(src|href)=' report/index.html; then
	fail t303-html-self-contained "external resources in index.html"
else
	pass t303-html-self-contained
fi

chromium_find t303-html-chromium || exit 0
chromium "file://$T/report/index.html" --dump-dom >dom.html
chromium "file://$T/report/index.html" --window-size=1280,1600 --screenshot="$T/shot.png" >/dev/null
if [ -n "$(chromium_console_errors)" ]; then
	fail t303-html-no-console-error "$(chromium_console_errors)"
elif [ ! -s dom.html ]; then
	fail t303-html-no-console-error "chromium gave no DOM: $(tail -3 chrome.log | tr '\n' ' ')"
else
	pass t303-html-no-console-error
fi
# The first row of the rendered functions table is the hottest function.
first=$(sed -n 's/.*<div id="functions">.*<tbody><tr data-id="[0-9]*"><td class="name">\([^<]*\)<.*/\1/p' dom.html | head -1)
check t303-html-hottest-first [ "$first" = hot_loop ]
# The detail pane of the hottest function is open with its assembly.
if grep -q '<h3>hot_loop</h3><h4>Assembly</h4>' dom.html; then
	pass t303-html-function-pane
else
	fail t303-html-function-pane "no assembly pane for hot_loop"
fi
if [ -s shot.png ]; then
	cp shot.png "$SONDE_BUILD/t303-analyze-report.png" && pass t303-html-screenshot
else
	fail t303-html-screenshot "no screenshot"
fi
