#!/usr/bin/env bash
# t080: `sonde report` on the checked-in valid recording (tests/fixtures/profile/valid,
# written by `u-profile --write-fixtures`; its construction is described in u-profile.c):
# exit status, the CSV exports' columns and values, the three formats, --top.
source "$(dirname "$0")/lib.sh"
cp -r "$SONDE_TOP/tests/fixtures/profile/valid" rec

"$SONDE" report rec >out.txt 2>err.txt
check valid_exit_0 test $? -eq 0
check valid_no_stderr test ! -s err.txt
check valid_db_written test -s rec/profile.db

# Expected by construction: site B (ctx ip 0x401200) 3 + 1 samples on thread 0 and two of
# weight 2 on thread 1 = 8; site A 6 (2 stores); main stack 2; thread 1's stack 1;
# 0x5000 unmapped 1; 18 in all.
o=rec/mem/objects.csv
check objects_header test "$(head -1 $o)" = "object,kind,samples,share,loads,stores,size,allocs,path"
check site_b_samples test "$(csv_get $o object '[unknown] (0x401200)' samples)" = 8
check site_b_share test "$(csv_get $o object '[unknown] (0x401200)' share)" = 0.4444
check site_b_allocs test "$(csv_get $o object '[unknown] (0x401200)' allocs)" = 2
check site_b_size test "$(csv_get $o object '[unknown] (0x401200)' size)" = $((8192 + 1024))
check site_a_samples test "$(csv_get $o object '[unknown] (0x401100)' samples)" = 6
check site_a_stores test "$(csv_get $o object '[unknown] (0x401100)' stores)" = 2
check stack0 test "$(csv_get $o object '[stack of thread 0]' samples)" = 2
check stack0_kind test "$(csv_get $o object '[stack of thread 0]' kind)" = stack
check stack1 test "$(csv_get $o object '[stack of thread 1]' samples)" = 1
check unknown_obj test "$(csv_get $o object '[unknown]' samples)" = 1
check objects_sorted test "$(sed -n 2p $o | cut -d, -f1)" = "[unknown] (0x401200)"
check objects_sum test "$(awk -F, 'NR > 1 { s += $3 } END { print s }' $o)" = 18

t=rec/mem/threads.csv
check threads_header test "$(head -1 $t)" = "thread,tid,rank,pid,samples,share,omp_thread,unsignalled"
check thread0 test "$(csv_get $t thread 0 samples)" = 13
check thread1 test "$(csv_get $t thread 1 samples)" = 5
check thread1_share test "$(csv_get $t thread 1 share)" = 0.2778
# no MPI rank: an empty field, not -1 (until 2026-11-28)
check thread0_rank_empty test -z "$(csv_get $t thread 0 rank)"
check code_header test "$(head -1 rec/mem/code.csv)" = "function,file,line,samples,share,loads,stores"
check ot_header test "$(head -1 rec/mem/object_threads.csv)" = "object,thread,samples,share"
check ot_split test "$(grep -c '^\[unknown\] (0x401200),[01],4,0.5000$' rec/mem/object_threads.csv)" = 2

# text: the header states source, period, samples, dropped
check text_source grep -q '^  source    clock (fallback: no PMU)$' out.txt
# a reason with the runtime's advice: the header keeps the reason, 'sonde info' the advice
cp -r rec recfix && sqlite3 recfix/profile.db "UPDATE meta SET value = 'hw: no CPU PMU (a VM); fix: enable the virtual PMU' WHERE key = 'source_why'"
"$SONDE" report recfix >fix.txt 2>&1
# (folded to 80 columns: the line's end on the next, indented)
check text_source_fix_left grep -q "^  source    clock (fallback: hw: no CPU PMU (a VM); 'sonde info' says how to fix it)$" <(sed -n '/^  source/{N;s/\n */ /;p}' fix.txt)
check text_period grep -q '^  period    1000000 ns$' out.txt
# 16 samples taken (two of weight 2 stand for 18) and 2 dropped: 2 of 18 signals
check text_samples grep -q ' samples 16 taken, counted as 18 periods of 1000000 ns (15 loads, 3 stores): each counts for the periods it stood for' <(flat out.txt)
check text_dropped grep -q '^  dropped   2 (11.1% of the 18 signals)$' out.txt
check text_scaling grep -q 'each access counted alike' <(flat out.txt)
check text_top_object grep -qE '^  1  44\.4% +8 +8 +0 +heap +\[unknown\] \(0x401200\)$' out.txt

# --top 2: two object rows and a note about the rest
"$SONDE" report rec --top 2 >top.txt
n=$(sed -n '/^Data objects/,/^$/p' top.txt | grep -cE '^ +[0-9]+ ')
check top2_rows test "$n" = 2
check top2_more grep -q '\.\.\. 3 more' top.txt

# csv: objects, a blank line, code
"$SONDE" report rec --format csv >out.csv
check csv_objects_part test "$(sed '/^$/,$d' out.csv)" = "$(cat $o)"
check csv_code_part test "$(sed '1,/^$/d' out.csv)" = "$(cat rec/mem/code.csv)"

# json: parses, with the same numbers
"$SONDE" report rec --format=json >out.json
if command -v python3 >/dev/null; then
	check json_valid python3 -c '
import json, sys
d = json.load(open("out.json"))
assert set(d) >= {"meta", "objects", "code", "threads"}, d.keys()
assert d["meta"]["samples"] == 18 and d["meta"]["source"] == "clock"
b = [o for o in d["objects"] if o["object"] == "[unknown] (0x401200)"][0]
assert b["samples"] == 8 and b["kind"] == "heap"
assert sum(t["samples"] for t in d["threads"]) == 18
# counts are numbers whatever their key (the period was a string), the version a string,
# and the argv a list beside its joined form
assert d["meta"]["period"] == 1000000, d["meta"]["period"]
assert isinstance(d["meta"]["sonde_version"], str)
m = d["meta"]
assert m["args"] == m["argv"].split("\x1f"), (m["args"], m["argv"])
'
else
	skip json_valid "no python3"
fi

# a second report reads the stored database and prints the same text
"$SONDE" report rec >again.txt
check same_again cmp -s out.txt again.txt

# The database is rebuilt when a raw file is newer than it (prof_is_raw_name), not when a
# user's file that only looks like one is: the rebuild is seen as a new inode (db_write
# renames a fresh file over it).  The raw file made newer is the fixture's own, valid
# 1234.proc (an empty one would make the rebuild fail), so the rebuilt report succeeds
# and prints what the first one did.
ino() { stat -c %i rec/profile.db; }
i0=$(ino)
echo keep >rec/notes.maps && touch -d '+1 hour' rec/notes.maps
"$SONDE" report rec >kept.txt 2>&1
check kept_for_lookalike_exit_0 test $? -eq 0
check kept_for_lookalike [ "$(ino)" = "$i0" ]
check raw_proc_not_empty test -s rec/1234.proc
touch -d '+1 hour' rec/1234.proc
"$SONDE" report rec >rebuilt.txt 2>rebuilt.err
check rebuilt_for_raw_exit_0 test $? -eq 0
check rebuilt_for_raw_no_stderr test ! -s rebuilt.err
check rebuilt_for_raw [ "$(ino)" != "$i0" ]
check rebuilt_same_report cmp -s out.txt rebuilt.txt
