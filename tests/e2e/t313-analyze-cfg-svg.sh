#!/usr/bin/env bash
# t313: `sonde analyze -o DIR` draws each detailed function's control-flow graph as SVG:
# functions/N.cfg.svg is well-formed XML with one <rect> per basic block and one edge path
# per successor edge of functions/N.bb.csv (fall-through edges to the next block straight
# down), the hottest block is shaded darkest, and index.html inlines the graph in the
# function's pane and still loads in headless Chromium with no console error.
. "$(dirname "$0")/lib.sh"
fx=$SONDE_TOP/tests/fixtures/perfdata
mkdir ex && cp "$fx/example-snb" "$fx/example-snb.perf.data" ex/ && cd ex || exit 1
if ! command -v python3 >/dev/null; then
	skip t313-analyze-cfg "python3 is not installed"
	exit 0
fi

"$SONDE" analyze -o rep example-snb.perf.data >/dev/null 2>err.txt
check t313-report-written [ $? -eq 0 ]
n=$(ls rep/functions/*.bb.csv 2>/dev/null | wc -l)
check t313-some-functions [ "$n" -ge 2 ]

# The expected graph comes from bb.csv alone: blocks, edges "from to", fall-throughs
# (to the next block), and the block with the most samples of the first event.
cat >cmp.py <<'PY'
import csv, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
bad = []
for stem in sys.argv[1:]:
    rows = list(csv.DictReader(open(stem + '.bb.csv')))
    edges = sorted((int(r['bb']), int(s)) for r in rows for s in r['successors'].split())
    col = [k for k in rows[0] if k.startswith('samples:')][0] if rows else None
    try:
        root = ET.parse(stem + '.cfg.svg').getroot()
    except ET.ParseError as e:
        bad.append('%s.cfg.svg: not XML: %s' % (stem, e)); continue
    if root.tag != NS + 'svg':
        bad.append('%s: root is %s' % (stem, root.tag)); continue
    rects = root.findall('.//' + NS + 'rect')
    if len(rects) != len(rows):
        bad.append('%s: %d rects for %d blocks' % (stem, len(rects), len(rows)))
    paths = [p for p in root.iter(NS + 'path') if 'edge' in p.get('class', '').split()]
    got = sorted((int(p.get('data-from')), int(p.get('data-to'))) for p in paths)
    if got != edges:
        bad.append('%s: edges %s, want %s' % (stem, got, edges))
    for p in paths:
        a, b = int(p.get('data-from')), int(p.get('data-to'))
        d = p.get('d').replace('M', '').replace('L', ' ').split()
        if 'fall' in p.get('class') and (b != a + 1 or d[0] != d[2]):
            bad.append('%s: fall-through %d->%d not straight down: %s' % (stem, a, b, p.get('d')))
    # each block's box carries its address range; the hottest is the darkest fill
    for r, g in zip(rows, root.findall(NS + 'g')):
        text = ''.join(g.itertext())
        rng = '[%x, %x)' % (int(r['start'], 16), int(r['end'], 16))
        if rng not in text:
            bad.append('%s: block %s lacks %s: %s' % (stem, r['bb'], rng, text))
    if rows and col:
        hot = max(rows, key=lambda r: int(r[col]))
        if int(hot[col]) > 0:
            lum = lambda rc: int(rc.get('fill')[3:5], 16)
            darkest = min(range(len(rects)), key=lambda i: lum(rects[i]))
            if lum(rects[darkest]) < lum(rects[int(hot['bb'])]):
                bad.append('%s: block %s is darker than the hottest %s' % (stem, darkest, hot['bb']))
print('\n'.join(bad) if bad else 'ok')
PY
stems=$(ls rep/functions/*.bb.csv | sed 's/\.bb\.csv$//')
res=$(python3 cmp.py $stems 2>&1)
if [ "$res" = ok ]; then pass t313-svg-matches-bb; else fail t313-svg-matches-bb "$(echo "$res" | head -3 | tr '\n' ' ')"; fi

# chase (tools/make-analyze-example.c) is a loop: its block 2 jumps back to itself.
chase=$(csv_get rep/functions.csv function chase rank)
if [ -n "$chase" ] && grep -q 'class="edge back" data-from="2" data-to="2"' "rep/functions/$chase.cfg.svg"; then
	pass t313-loop-back-edge
else
	fail t313-loop-back-edge "no back edge 2->2 in chase (rank '$chase')"
fi

# The page embeds every detailed function's graph (as a JSON string in its data).
emb=$(python3 -c '
import json, re, sys
h = open("rep/index.html").read()
m = re.search(r"<script id=\"data\" type=\"application/json\">(.*?)</script>", h, re.S)
d = json.loads(m.group(1))
print(sum(1 for f in d["details"] if f.get("cfg", "").startswith("<svg")))' 2>&1)
check t313-html-embeds-cfg [ "$emb" = "$n" ]

chromium_find t313-html-chromium || exit 0
chromium "file://$T/ex/rep/index.html" --dump-dom >dom.html
if [ -n "$(chromium_console_errors)" ]; then
	fail t313-html-no-console-error "$(chromium_console_errors)"
elif [ ! -s dom.html ]; then
	fail t313-html-no-console-error "chromium gave no DOM: $(tail -3 chrome.log | tr '\n' ' ')"
else
	pass t313-html-no-console-error
fi
# The open pane (the hottest function) shows its graph: as many boxes as its blocks.
want=$(($(wc -l <rep/functions/1.bb.csv) - 1))
got=$(python3 -c '
import re, sys
h = open("dom.html").read()
m = re.search(r"<h4>Control flow</h4><div class=\"cfg\">(<svg.*?</svg>)", h, re.S)
print(len(re.findall(r"<rect ", m.group(1))) if m else "none")')
check t313-html-pane-cfg [ "$got" = "$want" ]
