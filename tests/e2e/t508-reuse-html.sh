#!/usr/bin/env bash
# t508-reuse-html: `sonde reuse --html FILE` on RIBench (--exact): one self-contained page,
# the same as `sonde report DIR --html`; in headless Chromium it runs without console
# errors, draws the histogram and the miss-ratio curve (one bar per histogram.csv row, one
# point per missratio.csv row) and its pairs table holds pairs.csv's rows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t50-reuse-lib.bash"
reuse_build t508-build || exit 0

"$SONDE" reuse -q --exact --html page.html -o rec -- "$T/rb" ribench -t 2 -o 2 >/dev/null 2>err
check t508-status [ $? -eq 0 ]
check t508-page [ -s page.html ]
"$SONDE" report rec --html again.html >/dev/null 2>&1
check t508-same-page cmp -s page.html again.html
# the summary's closing paragraphs are on the page too (the clock source's caveat about
# its resolution was only in the terminal: the usability review of 2026-11-28)
"$SONDE" report rec >sum.txt 2>&1
first=$(sed -n '/^What it means:/{n;p;q}' sum.txt | sed 's/^ *//' | cut -c1-20 | tr -d "'&<>")
check t508-meaning-section grep -q '<h2 id="reuse-meaning">What it means</h2>' page.html
check "t508-meaning-words ($first)" bash -c '[ -n "$1" ] && grep -qF "<p>$1" page.html' _ "$first"
if grep -qiE '<(script|link|img)[^>]+(src|href)=' page.html; then
	fail t508-self-contained "external resources in page.html"
else
	pass t508-self-contained
fi

chromium_find t508-chromium || exit 0
chromium "file://$T/page.html" --dump-dom >dom.html
if [ -n "$(chromium_console_errors)" ]; then
	fail t508-no-console-error "$(chromium_console_errors)"
elif [ ! -s dom.html ]; then
	fail t508-no-console-error "chromium gave no DOM: $(tail -3 chrome.log | tr '\n' ' ')"
else
	pass t508-no-console-error
fi
cat >cmp.py <<'PY'
import csv, re, sys
dom = open("dom.html").read()
def svg(i):
    m = re.search(r'<svg[^>]*id="%s".*?</svg>' % i, dom, re.S)
    return m.group(0) if m else ""
hist = [r for r in csv.DictReader(open("rec/reuse/histogram.csv")) if r["kind"] in ("reuse", "invalidation", "cold")]
miss = list(csv.DictReader(open("rec/reuse/missratio.csv")))
pairs = list(csv.DictReader(open("rec/reuse/pairs.csv")))
h, m = svg("reuse-histogram"), svg("reuse-missratio")
bars = len(re.findall(r"<rect[^>]*class=\"bar", h)) or len(re.findall(r"<rect", h))
ok = True
# one bar a power-of-2 bin from the first row to the last, the empty ones between too (the
# usability review of 2026-11-29: [4, 8) stood beside [4096, 8192)), then the two kinds
import math
rs = sorted((int(r["lo"]), int(r["hi"])) for r in hist if r["kind"] == "reuse")
want = (round(math.log2(rs[-1][1] / rs[0][1])) + 1 if rs else 0) + 2
if not h or bars != want:
    print("histogram: %d bars for %d bins and kinds (%d rows)" % (bars, want, len(hist))); ok = False
# a point's hover text gives its size as the axis does, not its log 2 ("(15.5849625, 49.81)")
logs = re.findall(r"<title>[^<]*\([0-9]+\.[0-9]{3,}, ", m)
if logs:
    print("log-2 sizes in the curve's hover texts:", logs[:3]); ok = False
if not m:
    print("no miss-ratio plot"); ok = False
# the curve's y axis is labelled above its highest point (it stopped at 30 under a curve at
# 37.8%), and the machine's caches within the curve's sizes are marked on it (L1, L2, L3 as
# dashed lines: the review of 2026-11-28 found them only in a sentence below)
if miss and m:
    top = max(float(r["miss_ratio"]) for r in miss) * 100
    ticks = [float(x) for x in re.findall(r'<text[^>]*text-anchor="end"[^>]*>([0-9.]+)</text>', m)]
    if not ticks or max(ticks) < top:
        print("y ticks %s under the curve's top %.1f" % (ticks, top)); ok = False
    lo, hi = float(miss[0]["bytes"]), float(miss[-1]["bytes"])
    import sqlite3
    meta = dict(sqlite3.connect("rec/profile.db").execute("SELECT key, value FROM meta"))
    for k in ("l1", "l2", "l3"):
        size = float(meta.get(k) or 0)
        if lo <= size <= hi and ">%s</text>" % k.upper() not in m:
            print("no %s mark at %d bytes" % (k.upper(), size)); ok = False
t = re.search(r'<table id="reuse-pairs-table"[^>]*>.*?<tbody>(.*?)</tbody>', dom, re.S)
rows = re.findall(r"<tr", t.group(1)) if t else []
if len(rows) != len(pairs):
    print("pairs table: %d rows, pairs.csv %d" % (len(rows), len(pairs))); ok = False
for p in pairs:
    if p["use"].split(" (")[0] not in (t.group(1) if t else ""):
        print("pair missing:", p["use"]); ok = False
sys.exit(0 if ok else 1)
PY
check t508-dom-matches-csv python3 cmp.py
