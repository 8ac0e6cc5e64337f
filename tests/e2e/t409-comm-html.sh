#!/usr/bin/env bash
# t409-comm-html: `sonde comm --html FILE` and `sonde report DIR --html FILE` on a recording
# of commbench's fs mode (true and false sharing between 4 workers, inst source): one
# self-contained page, the same from both commands; in headless Chromium it runs without
# console errors, and what it shows is what the tool wrote: every cell of the six heat maps
# (thread and core; all, true, false) is the CSV file's cell, with its row and column in
# the hover text; the split table holds the matrices' totals; the pairs and objects tables
# hold pairs.csv and objects.csv row for row.
# 2 cores: the workers time-share the CPUs; nothing here depends on what moved, only on
# the page showing the files of the same recording.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t409-build || exit 0

"$SONDE" comm --source inst --period 1009 -o rec --html comm.html -- "$T/cb-inst" fs 20000 50 \
	>out 2>summary
check t409-status [ $? -eq 0 ]
check t409-page-written test -s comm.html
"$SONDE" report rec --html page.html >report.out 2>report.err
check t409-report-exit-0 test $? = 0
check t409-report-prints-nothing test ! -s report.out
check t409-same-page cmp -s comm.html page.html
# the summary's sample source says the source, the period and its unit as the recording
# holds them (the unit read into the source's buffer showed "period 1009 inst" until
# 2026-11-28: the trial of HPCCG read "clock, period 900000 clock")
src=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'source'")
per=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'period'")
unit=$(sqlite3 rec/profile.db "SELECT value FROM meta WHERE key = 'period_unit'")
check "t409-source-line-$src-$per-$unit" grep -q ">$src, period $per $unit<" page.html
# the program as it was run, its arguments too, as the terminal's summary names it (the
# executable alone until 2026-11-27)
check t409-program-args grep -q "<th>program</th><td>[^<]*cb-inst fs 20000 50</td>" page.html
if grep -qiE '<(script|link|img)[^>]+(src|href)=' page.html; then
	fail t409-self-contained "external resources in page.html"
else
	pass t409-self-contained
fi
"$SONDE" comm --html "" -- true >/dev/null 2>err.txt
check t409-empty-name-usage test $? = 2

chromium_find t409-chromium || exit 0
chromium "file://$T/page.html" --dump-dom >dom.html
chromium "file://$T/page.html" --window-size=1100,2400 --screenshot="$T/shot.png" >/dev/null
if [ -n "$(chromium_console_errors)" ]; then
	fail t409-no-console-error "$(chromium_console_errors)"
elif [ ! -s dom.html ]; then
	fail t409-no-console-error "chromium gave no DOM: $(tail -3 chrome.log | tr '\n' ' ')"
else
	pass t409-no-console-error
fi

cat >cmp.py <<'PY'
import csv, html, re, sys
dom = open("dom.html").read()
d = "rec/comm/"

def attr(a, name):
    m = re.search(r'%s="([^"]*)"' % name, a)
    return m.group(1) if m else None

def table(tid):
    m = re.search(r'<table id="%s"[^>]*>.*?<tbody>(.*?)</tbody>' % tid, dom, re.S)
    if not m:
        return None
    return [[html.unescape(re.sub(r"<[^>]*>", "", t)) for a, t in re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S)]

bad = []
which = sys.argv[1]
if which == "maps":
    for unit in ("thread", "core"):
        for kind in ("all", "true", "false"):
            rows = list(csv.reader(open(d + "matrix-%s-%s.csv" % (kind, unit))))
            labels, cells = rows[0][1:], [r[1:] for r in rows[1:]]
            m = re.search(r'<svg[^>]*id="%s-%s".*?</svg>' % (unit, kind), dom, re.S)
            rects = re.findall(r'<rect class="cell"([^>]*)><title>(.*?)</title>', m.group(0), re.S) if m else []
            if len(rects) != len(labels) ** 2:
                bad.append("%s-%s: %d cells, want %d" % (unit, kind, len(rects), len(labels) ** 2))
                continue
            for a, title in rects:
                r, c = int(attr(a, "data-row")), int(attr(a, "data-col"))
                v = float(attr(a, "data-v"))
                # the hover names the axes and the unit (the usability review of
                # 2026-11-29 read "1 / 2: 11"): "thread 1 / thread 2: 11 <unit>"
                want = "%s %s / %s %s: " % (unit, labels[r], unit, labels[c])
                t = html.unescape(title)
                if v != float(cells[r][c]) or not t.startswith(want) or not re.search(r": [0-9]+ [a-z]", t):
                    bad.append("%s-%s cell %d,%d: page %s %r, csv %s" % (unit, kind, r, c, v, title, cells[r][c]))
elif which == "split":
    tot = {}
    for kind in ("all", "true", "false"):
        rows = list(csv.reader(open(d + "matrix-%s-thread.csv" % kind)))
        tot[kind] = sum(int(x) for r in rows[1:] for x in r[1:]) // 2   # both triangles
    got = table("split-table")
    want = [[k, str(tot[k])] for k in ("all", "true", "false")]
    if got is None or [g[:2] for g in got] != want:
        bad.append("split: page %r, matrices %r" % (got, want))
    elif tot["all"] and abs(float(got[2][2].rstrip("%")) - 100.0 * tot["false"] / tot["all"]) > 0.051:
        bad.append("false share %s, want %.2f%%" % (got[2][2], 100.0 * tot["false"] / tot["all"]))
elif which == "pairs":
    want = list(csv.DictReader(open(d + "pairs.csv")))
    got = table("pairs-table")
    if got is None or len(got) != len(want) or not want:
        bad.append("pairs: %s rows in the page, %d in pairs.csv" % (None if got is None else len(got), len(want)))
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            exp = [str(i + 1), w["thread_a"], w["thread_b"], w["total"], w["true_sharing"], w["false_sharing"]]
            if g[:6] != exp or g[7:] != [w["code_a"], w["code_b"]]:
                bad.append("pair row %d: page %r, csv %r" % (i + 1, g, w))
elif which == "objects":
    want = list(csv.DictReader(open(d + "objects.csv")))
    got = table("objects-table")
    if got is None or len(got) != len(want) or not want:
        bad.append("objects: %s rows in the page, %d in objects.csv" % (None if got is None else len(got), len(want)))
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            exp = [str(i + 1), w["object"], w["kind"], w["total"]]
            if g[:4] != exp or g[5:] != [w["true_sharing"], w["false_sharing"], w["events"]]:
                bad.append("object row %d: page %r, csv %r" % (i + 1, g, w))
print("\n".join(bad[:5]) if bad else "ok")
PY
for v in maps split pairs objects; do
	res=$(python3 cmp.py $v 2>&1)
	if [ "$res" = ok ]; then pass t409-$v-match-csv; else fail t409-$v-match-csv "$(echo "$res" | head -3 | tr '\n' ' ')"; fi
done
# the header's samples and traps are the summary's
s=$(sed -n 's/.*; \([0-9]*\) samples, \([0-9]*\) traps$/\1 \2/p' summary)
check t409-header-samples grep -q "<th>samples</th><td>${s% *}</td>" dom.html
check t409-header-traps grep -q "<th>traps</th><td>${s#* }</td>" dom.html

if [ -s shot.png ]; then
	cp shot.png "$SONDE_BUILD/t409-comm-html.png" && pass t409-screenshot
else
	fail t409-screenshot "no screenshot"
fi

# The JSON report: valid, the header's keys (source, period and its unit, scaling, unit,
# events; the few-events warning null from 30 events on), and its cells the thread
# matrix's (DIR/comm/matrix-all-thread.csv) cell for cell.
"$SONDE" report rec --format json >rep.json 2>json.err
check t409-json-status [ $? -eq 0 ]
check t409-json python3 - rec <<'PY'
import csv, json, sqlite3, sys
d = json.load(open("rep.json"))
meta = dict(sqlite3.connect(sys.argv[1] + "/profile.db").execute("SELECT key, value FROM meta"))
ok = d["tool"] == "comm" and d["source"] == meta["source"]
ok &= d["period"] == int(meta["period"]) and d["period_unit"] == meta["period_unit"]
ok &= d["scaling"] == meta["scaling"] and d["unit"] == meta["unit"]
ok &= d["events"] == int(meta["events"]) and d["total_all"] == int(meta["total_all"])
ok &= (d["warning"] is None) == (int(meta["events"]) >= 30 or int(meta["total_all"]) == 0)
rows = list(csv.reader(open(sys.argv[1] + "/comm/matrix-all-thread.csv")))
want = {(int(r[0]), int(rows[0][c])): int(v) for r in rows[1:] for c, v in enumerate(r[1:], 1)
        if int(v)}
got = {(i, j): v for i, j, v in d["cells"]}
ok &= got == want
print("json: events %s, warning %s, %d cells, equal %s" % (d["events"], d["warning"] is not None,
      len(got), got == want))
sys.exit(0 if ok else 1)
PY
# the run says where it wrote the page (the usability review of 2026-11-29: no line did)
"$SONDE" comm -o pg --html "$T/pg.html" -- true >/dev/null 2>pg.err
check t409-page-said grep -q "^sonde: page in $T/pg.html$" pg.err
check t409-page-written [ -s "$T/pg.html" ]
"$SONDE" comm -q -o pgq --html "$T/pgq.html" -- true >/dev/null 2>pgq.err
check t409-page-quiet-unsaid bash -c '! grep -q "page in" pgq.err'
# the true and false bars in two colours (one red for both until 2026-11-28: the comm
# review could not tell them apart without hovering)
fills=$(sed -n '/id="split-chart"/,/<\/svg>/p' page.html | grep -o '<rect class="bar"[^>]*fill="#[0-9a-f]*"' | grep -o '#[0-9a-f]*' | sort -u | wc -l)
check "t409-split-bars-two-colours-$fills" [ "$fills" -eq 2 ]
