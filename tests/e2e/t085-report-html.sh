#!/usr/bin/env bash
# t085: `sonde report DIR --html FILE` (and `sonde mem --html FILE`) on a real recording of
# demo-hotcold: one self-contained page; in headless Chromium it runs without console
# errors, and its objects, threads and objects x threads views hold the numbers of the CSV
# files the tool wrote (mem/objects.csv, threads.csv, object_threads.csv).
source "$(dirname "$0")/lib.sh"
[ -x "$W/demo-hotcold" ] || { skip t085 "demo-hotcold not built"; exit 0; }

if ! "$SONDE" mem -o rec --html mem.html -- "$W/demo-hotcold" 2 60 >mem.out 2>mem.err ||
	[ ! -s rec/profile.db ]; then
	skip t085 "sonde mem did not record: $(grep -m1 sonde: mem.err)"
	exit 0
fi
"$SONDE" report rec --html page.html >report.out 2>report.err
check t085-exit-0 test $? = 0
check t085-page-written test -s page.html
check t085-prints-nothing test ! -s report.out
# where the page went, on stderr, as a recording's --html says it (silent until 2026-11-29)
check t085-says-where grep -qx "sonde: page in page.html" report.err
# the page of `sonde mem --html` is the page of the same database
check t085-mem-html-same cmp -s mem.html page.html
# the clock source's de-biasing, said in the terminal's summary, is said on the page too
"$SONDE" report rec >rep.txt 2>/dev/null
debias=$(header_value de-bias rep.txt)
if [ -n "$debias" ]; then
	check t085-html-debias grep -qF "<tr><th>de-bias</th><td>$debias</td></tr>" page.html
else
	check t085-html-no-debias sh -c "! grep -q '<th>de-bias</th>' page.html"
fi

if grep -qiE '<(script|link|img)[^>]+(src|href)=' page.html; then
	fail t085-self-contained "external resources in page.html"
else
	pass t085-self-contained
fi

# usage and input errors
"$SONDE" report rec --html >/dev/null 2>err.txt
check t085-usage-exit-2 test $? = 2
"$SONDE" report "$T/none" --html x.html >/dev/null 2>err.txt
check t085-no-recording-exit-1 test $? = 1
check t085-no-recording-no-page test ! -e x.html

chromium_find t085-chromium || exit 0
chromium "file://$T/page.html" --dump-dom >dom.html
chromium "file://$T/page.html" --window-size=1100,1500 --screenshot="$T/shot.png" >/dev/null
if [ -n "$(chromium_console_errors)" ]; then
	fail t085-no-console-error "$(chromium_console_errors)"
elif [ ! -s dom.html ]; then
	fail t085-no-console-error "chromium gave no DOM: $(tail -3 chrome.log | tr '\n' ' ')"
else
	pass t085-no-console-error
fi

cat >cmp.py <<'PY'
import csv, html, re, sys
dom = open("dom.html").read()

def table(tid):
    m = re.search(r'<table id="%s"[^>]*>.*?<tbody>(.*?)</tbody>' % tid, dom, re.S)
    if not m:
        return None
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S):
        rows.append([(a, html.unescape(t)) for a, t in re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)])
    return rows

def attr(a, name):
    m = re.search(r'%s="([^"]*)"' % name, a)
    return m.group(1) if m else None

def share_ok(cell, want):
    a, text = cell
    v, w = attr(a, "data-v"), attr(a, "style")
    return (v is not None and abs(float(v) - want) <= 5e-5
            and abs(float(text.rstrip("%")) - 100 * want) <= 0.006
            and w is not None and abs(float(re.search(r"--w:([0-9.]+)%", w).group(1)) - 100 * want) <= 0.06)

bad = []
which = sys.argv[1]
if which == "objects":
    want = list(csv.DictReader(open("rec/mem/objects.csv")))
    got = table("objects-table")
    if got is None or len(got) != len(want):
        bad.append("rows: %s in the page, %d in objects.csv" % (None if got is None else len(got), len(want)))
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            t = [c[1] for c in g]
            exp = [str(i + 1), w["object"], w["kind"], w["samples"], None, w["loads"], w["stores"], w["size"], w["allocs"]]
            for k, e in enumerate(exp):
                if e is not None and t[k] != e:
                    bad.append("row %d col %d: page %r, csv %r" % (i + 1, k, t[k], e))
            if not share_ok(g[4], float(w["share"])):
                bad.append("row %d share: page %r, csv %s" % (i + 1, g[4], w["share"]))
elif which == "threads":
    want = list(csv.DictReader(open("rec/mem/threads.csv")))
    got = table("threads-table")
    if got is None or len(got) != len(want):
        bad.append("thread rows differ")
    else:
        for g, w in zip(got, want):
            t = [c[1] for c in g]
            if t[:5] != [w["thread"], w["tid"], w["rank"], w["pid"], w["samples"]] or not share_ok(g[5], float(w["share"])):
                bad.append("thread %s: page %r, csv %r" % (w["thread"], t, w))
elif which == "heatmap":
    objs = [r["object"] for r in csv.DictReader(open("rec/mem/objects.csv")) if int(r["samples"]) > 0][:40]
    threads = [r["thread"] for r in csv.DictReader(open("rec/mem/threads.csv"))]
    cells = {}
    for r in csv.DictReader(open("rec/mem/object_threads.csv")):
        cells[(r["object"], r["thread"])] = 100 * float(r["share"])
    m = re.search(r'<svg[^>]*id="object-threads".*?</svg>', dom, re.S)
    rects = re.findall(r'<rect class="cell"([^>]*)><title>(.*?)</title>', m.group(0), re.S) if m else []
    if len(rects) != len(objs) * len(threads):
        bad.append("%d cells, want %d x %d" % (len(rects), len(objs), len(threads)))
    for a, title in rects:
        r, c = int(attr(a, "data-row")), int(attr(a, "data-col"))
        want = cells.get((objs[r], threads[c]), 0.0)
        v = float(attr(a, "data-v"))
        if abs(v - want) > 0.006 or not html.unescape(title).startswith("%s / %s: " % (objs[r], threads[c])):
            bad.append("cell %s/%s: page %s %r, csv %s" % (objs[r], threads[c], v, title, want))
print("\n".join(bad[:5]) if bad else "ok")
PY
for v in objects threads heatmap; do
	res=$(python3 cmp.py $v 2>&1)
	if [ "$res" = ok ]; then pass t085-$v-match-csv; else fail t085-$v-match-csv "$(echo "$res" | head -3 | tr '\n' ' ')"; fi
done
# the header's samples are the database's
want=$(awk -F, 'NR > 1 { s += $5 } END { print s }' rec/mem/threads.csv)
check t085-header-samples grep -q "<th>samples</th><td>$want (" dom.html

if [ -s shot.png ]; then
	cp shot.png "$SONDE_BUILD/t085-report-html.png" && pass t085-screenshot
else
	fail t085-screenshot "no screenshot"
fi
# a page that cannot be written after the run (here the output directory's own name, made
# by the run): said, and a failure status (the usability review of reuse, 2026-11-29: exit 0)
"$SONDE" mem -q -o samename --html samename -- "$W/demo-hotcold" 1 2 >/dev/null 2>same.err
check t085-html-unwritable-status [ $? -eq 1 ]
check t085-html-unwritable-said grep -q "cannot write 'samename': Is a directory" same.err
