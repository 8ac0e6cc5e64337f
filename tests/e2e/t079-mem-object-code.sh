#!/usr/bin/env bash
# t079-mem-object-code: the objects x code view (which lines access which object) on
# tests/workloads/objcode.c built by sonde-cc, every access counted (--source inst
# --period 1).  By construction (the workload's comment): `grid` 16384 loads from sum_a's
# line (50%), 8192 stores from fill's (25%), 4096 loads each from sum_c's and sum_d's
# (12.5%); `side` 2048 loads from sum_side's (100%).  Exact counts, no tolerance.
#  - mem/object_code.csv: those rows, the hottest object first and its hottest line first,
#    each object's rows summing to its samples in objects.csv;
#  - the text: "Where the objects are accessed", each object's number and name on a row of
#    its own, then three lines and the rest summed ("(1 more line)", 12.5%); --top 1 one
#    object;
#    absent where every object is accessed from one line (the checked-in recording, t080);
#  - JSON's object_code array, the HTML page's table (in headless Chromium).
. "$(dirname "$0")/lib.sh"

command -v clang >/dev/null || { skip t079-inst "clang is not installed"; exit 0; }
src=$SONDE_TOP/tests/workloads/objcode.c
"$SONDE_BUILD/sonde-cc" -O2 "$src" -o objcode 2>cc.err ||
	{ fail t079-sonde-cc "$(head -3 cc.err)"; exit 0; }
line() { grep -n "/\* line: $1 \*/" "$src" | cut -d: -f1; }

"$SONDE" mem -q -o prof --source inst --period 1 -- ./objcode >out 2>err
check t079-exit-status [ $? -eq 0 ]
check t079-stdout [ "$(cat out)" = "$("$W/objcode")" ]
c=prof/mem/object_code.csv
[ -f $c ] || { fail t079-csv "no $c: $(tail -3 err)"; exit 0; }
check t079-csv-header [ "$(head -1 $c)" = \
	"object,function,file,line,samples,object_share,share,loads,stores" ]
# object,function,line,samples,object_share,loads,stores of each row, in order
rows=$(awk -F, 'NR > 1 { print $1, $2, $4, $5, $6, $8, $9 }' $c)
want="grid sum_a $(line sum_a) 16384 0.5000 16384 0
grid fill $(line fill) 8192 0.2500 0 8192
grid sum_c $(line sum_c) 4096 0.1250 4096 0
grid sum_d $(line sum_d) 4096 0.1250 4096 0
side sum_side $(line sum_side) 2048 1.0000 2048 0"
if [ "$rows" = "$want" ]; then pass t079-csv-rows; else fail t079-csv-rows "$(echo $rows)"; fi
check t079-csv-share [ "$(awk -F, '$2 == "sum_side" { print $7 }' $c)" = \
	"$(awk 'BEGIN { printf "%.4f", 2048 / 34816 }')" ]
for o in grid side; do
	sum=$(awk -F, -v o=$o 'NR > 1 && $1 == o { s += $5 } END { print s }' $c)
	check t079-sums-$o [ "$sum" = "$(csv_get prof/mem/objects.csv object $o samples)" ]
done

"$SONDE" report prof >rep.txt 2>&1
view=$(sed -n '/^Where the objects are accessed/,/^$/p' rep.txt)
check t079-text-title grep -q "^Where the objects are accessed (of object: the line's share" <<<"$view"
# the rows in order: a title, its lines
rows=$(grep -E '^  [0-9]  |%' <<<"$view" | sed -E 's/ +/ /g')
want=" 1 grid
 50.0% 16384 objcode.c:$(line sum_a) sum_a
 25.0% 8192 objcode.c:$(line fill) fill
 12.5% 4096 objcode.c:$(line sum_c) sum_c
 12.5% 4096 (1 more line)
 2 side
 100.0% 2048 objcode.c:$(line sum_side) sum_side"
if [ "$rows" = "$want" ]; then pass t079-text-rows; else fail t079-text-rows "$(echo $rows)"; fi
# the line rows under the columns: the shares end under "of object"
end=$(awk '/^  #  of object/ { print index($0, "of object") + 8; exit }' <<<"$view")
check t079-text-aligned awk -v e="$end" '/%/ { if (substr($0, e - 5, 6) !~ /%$/) exit 1 }' <<<"$view"
check t079-text-three-lines [ "$(grep -c 'objcode\.c:' <<<"$view")" -eq 4 ]
check t079-text-csv-named grep -q "mem/object_code.csv" <<<"$view"
"$SONDE" report prof --top 1 >top1.txt 2>&1
check t079-top-one sh -c "grep -q '^  1  grid$' top1.txt && ! grep -q '^  2  side$' top1.txt"

# every object from one line: the tables say it all
cp -r "$SONDE_TOP/tests/fixtures/profile/valid" one
"$SONDE" report one >one.txt 2>&1
check t079-one-line-silent sh -c "! grep -q 'Where the objects' one.txt"
check t079-one-line-csv [ "$(wc -l <one/mem/object_code.csv)" -eq 6 ]

"$SONDE" report prof --format json >j.json 2>&1
check t079-json python3 -c "
import json, sys
rows = json.load(open('j.json'))['object_code']
assert [(r['object'], r['function'], r['samples'], r['loads'], r['stores']) for r in rows] == [
    ('grid', 'sum_a', 16384, 16384, 0), ('grid', 'fill', 8192, 0, 8192),
    ('grid', 'sum_c', 4096, 4096, 0), ('grid', 'sum_d', 4096, 4096, 0),
    ('side', 'sum_side', 2048, 2048, 0)], rows
assert rows[0]['object_share'] == 0.5, rows[0]"

"$SONDE" report prof --html page.html >/dev/null 2>&1
chromium_find t079-chromium || exit 0
chromium "file://$T/page.html" --dump-dom >dom.html
check t079-html-rows python3 -c "
import re
d = open('dom.html').read()
t = re.search(r'<table[^>]*id=\"object-code-table\".*?</table>', d, re.S)
assert t, 'no object-code-table'
rows = re.findall(r'<tr>(.*?)</tr>', t.group(0), re.S)
cells = [re.findall(r'<td[^>]*>(.*?)</td>', r, re.S) for r in rows]
cells = [c for c in cells if c]
assert len(cells) == 5, len(cells)
assert cells[0][1] == 'grid' and 'sum_a' in cells[0][2] and cells[0][5] == '16384', cells[0]
assert cells[4][0] == '2' and cells[4][1] == 'side', cells[4]"
