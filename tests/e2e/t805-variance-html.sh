#!/usr/bin/env bash
# t805-variance-html: the variance page (sonde variance --html, sonde report --html) in
# headless Chromium: the ranked table holds every (context, function) of functions.csv,
# in rank order; the top function has its instance histogram, its timeline and the
# per-thread bars (4 threads of vwork threads side by side); no console error; no
# external resource.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t80-variance-lib.bash"

var_build t805-build vwork.c vwork -pthread || exit 0
"$SONDE" variance -q -o rec -p 1000000 --html v.html -- ./vwork threads 2 >/dev/null 2>&1
check t805-run [ $? -eq 0 ]
check t805-page-written test -s v.html
"$SONDE" report rec --html page.html >/dev/null 2>&1
check t805-report-same-page cmp -s v.html page.html
# the wall-time table the terminal prints is on the page too, a row per functions.csv
# time row, its means in us (the usability review of 2026-11-28: CPU time only)
check t805-wall-time-section grep -q '<h2 id="metric-time">Wall time per instance (us)</h2>' page.html
rows=$(awk -F, 'NR > 1 && $3 == "time"' rec/variance/functions.csv | wc -l)
got=$(sed -n '/<table id="metric-time"/,/<\/table>/p' page.html | grep -o '<tr>' | wc -l)
check "t805-wall-time-rows-$got-of-$rows" [ "$got" -eq $((rows + 1)) ]
if grep -qiE '<(script|link|img)[^>]+(src|href)=' page.html; then
	fail t805-self-contained "external resources in page.html"
else
	pass t805-self-contained
fi
chromium_find t805-chromium || exit 0
chromium "file://$T/page.html" --dump-dom >dom.html
if [ -n "$(chromium_console_errors)" ]; then
	fail t805-no-console-error "$(chromium_console_errors)"
elif [ ! -s dom.html ]; then
	fail t805-no-console-error "chromium gave no DOM"
else
	pass t805-no-console-error
fi
# Rows of the ranked table against functions.csv (cpu-time rows, by rank).
want=$(awk -F, 'NR > 1 && $3 == "cpu-time" { print $9 "|" $1 "|" $2 }' rec/variance/functions.csv | sort -n | cut -d'|' -f2- | tr '\n' ';')
got=$(python3 - <<'PY'
import re, html
dom = open("dom.html").read()
t = re.search(r'<table[^>]*id="functions".*?</table>', dom, re.S)
rows = re.findall(r'<tr>(.*?)</tr>', t.group(0), re.S) if t else []
out = []
for r in rows:
    cells = [html.unescape(re.sub(r'<[^>]+>', '', c)) for c in re.findall(r'<td[^>]*>(.*?)</td>', r, re.S)]
    if len(cells) >= 3:
        out.append(cells[1] + "|" + cells[2])
print(";".join(out) + (";" if out else ""))
PY
)
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	pass t805-table-rows-match-csv
else
	fail t805-table-rows-match-csv "want '$want' got '$got'"
fi
for id in hist-1 timeline-1 threads-1; do
	check "t805-svg-$id" grep -q "<svg[^>]*id=\"$id\"" dom.html
done
bars=$(python3 -c '
import re
dom = open("dom.html").read()
m = re.search(r"<svg[^>]*id=\"threads-1\".*?</svg>", dom, re.S)
print(len(re.findall(r"<rect", m.group(0))) if m else 0)')
check "t805-thread-bars-$bars" [ "$bars" -ge 4 ]
