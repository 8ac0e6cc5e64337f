#!/usr/bin/env bash
# t419-comm-writer-chunks: which bytes did the writer write?  The sampled detector knows one
# sampled store's bytes a publication, so a line one thread writes whole and another then
# rewrites reads as false sharing by ComDetective's byte rule (taskflow's Black-Scholes:
# 92% false sampled against 4.7% exact).  Its second reading counts as written the chunks
# the writer is seen storing to (the store instruction's offsets in its lines, the
# publisher's other publications in the line; doc/sonde-comm.md, "Which bytes did the
# writer write").  --compare 1009 on commbench (sonde-cc), both detectors in one run:
#   rewrite: lines written whole and rewritten by other workers (one store instruction
#     sweeping each line): exactly true sharing but for concurrent writers of one block
#     (0-7.9% false over runs; <= 20% asserted); the byte rule reads most of it as
#     false (>= 50%; 87-91% measured), the covered reading within 20 points of the exact
#     share (2.5-11.9% measured: the same tolerance as --compare's verdict);
#   interleave: runs of 3 words dealt round robin, every transfer false sharing exactly;
#     the line's own evidence keeps most of it false in the covered reading, the
#     code's alone said 48%: >= 35% asserted (57-65% measured; not a bound, the doc says);
#   fs: each worker at its own slot of a line: nothing to cover (<= 10% of the false
#     volume: a thread's instruction keeps to its offset);
#   bcast 300 8 (8 words a line by an unrolled loop, true sharing): the covered reading
#     within 20 points of exact, as rewrite (0-10.9% measured, 0 exact; up to 2 runs);
#   slots 200000 4 and 1: each worker's own int or char of one line, false sharing inside
#     8-byte chunks: nothing covered (the evidence is kept by byte).
# The reading is printed beside the byte rule's ("counting every byte the writers were
# seen writing"; the page's row "false, counting the writers' bytes") and in
# the JSON; a clock run (gcc build) of rewrite says both readings and that the split is
# undecided when they disagree, with the busiest lines' offsets as evidence (most likely
# true sharing where the lines agree with the writers' bytes).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t419-build || exit 0
comm_build_gcc || { fail t419-build-gcc "gcc could not build commbench"; exit 0; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", (b > 0 ? 100 * a / b : 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# share MODE: "exact bytes covered" false-sharing shares (percent) of a --compare run
share() {
	local a f sa sf sc
	a=$(comm_meta "$1" total_all) f=$(comm_meta "$1" total_false)
	sa=$(comm_meta "$1" sampled_total_all) sf=$(comm_meta "$1" sampled_total_false)
	sc=$(comm_meta "$1" sampled_total_false_covered)
	echo "$(pct "$f" "$a") $(pct "$sf" "$sa") $(pct $((sf - sc)) "$sa")"
}

# The covered reading rests on which chunks each writer happens to be sampled storing to,
# which the interleaving of 4 workers on 2 busy cores moves: a CI clone beside a make
# check read 23.7% against 3.6% exact once (2026-11-28 09:27 UTC, load 3-4).  Up to 3 runs
# until one is within the 20 points; every run's figures printed.
for try in 1 2 3; do
	rm -rf rw
	"$SONDE" comm --compare 1009 -o rw -- "$T/cb-inst" rewrite 400 >out 2>summary
	st=$?
	read -r ex by cv < <(share rw)
	echo "    rewrite (run $try): false sharing exact $ex%, sampled by bytes $by%, covered reading $cv%"
	le "$cv" "$(awk -v e="$ex" 'BEGIN { print e + 20 }')" && break
done
check t419-rewrite-status [ "$st" -eq 0 ]
check "t419-rewrite-exact-true ($ex%)" le "$ex" 20
check "t419-rewrite-bytes-biased ($by%)" le 50 "$by"
check "t419-rewrite-covered-near-exact ($cv% vs $ex%, run $try)" le "$cv" "$(awk -v e="$ex" 'BEGIN { print e + 20 }')"
check t419-rewrite-summary grep -q "^ *$cv% counting every byte the writers were seen writing" summary
"$SONDE" report rw --format json >rw.json 2>/dev/null
check t419-rewrite-json python3 -c "import json,sys; d=json.load(open('rw.json')); sys.exit(0 if d['sampled_total_false_covered'] == $(comm_meta rw sampled_total_false_covered) and 'total_false_covered' in d else 1)"

"$SONDE" comm --compare 1009 -o il -- "$T/cb-inst" interleave 400 >/dev/null 2>&1
check t419-interleave-status [ $? -eq 0 ]
read -r ex by cv < <(share il)
echo "    interleave: false sharing exact $ex%, sampled by bytes $by%, covered reading $cv%"
check "t419-interleave-exact-false ($ex%)" le 90 "$ex"
# (a share of a handful of events moves by 1/n a line: a loaded pair run read 12.5%,
# one event in 8 by its step, 2026-11-28; asserted from 30 sampled events, the summary's
# own bar for a split: COMM_FEW_EVENTS)
nev=$(comm_meta il sampled_events)
if [ "${nev:-0}" -ge 30 ]; then
	check "t419-interleave-covered-stays-false ($cv%, $nev events)" le 35 "$cv"
else
	skip t419-interleave-covered-stays-false "only ${nev:-0} sampled events (load: the workers ran in turn): the share is not a measure"
fi

"$SONDE" comm --compare 1009 -o fs -- "$T/cb-inst" fs 200000 20 >/dev/null 2>&1
check t419-fs-status [ $? -eq 0 ]
sf=$(comm_meta fs sampled_total_false) sc=$(comm_meta fs sampled_total_false_covered)
read -r ex by cv < <(share fs)
echo "    fs: false sharing exact $ex%, sampled by bytes $by%, covered reading $cv% ($sc of $sf covered)"
check "t419-fs-own-slots-not-covered ($sc of $sf)" [ $((sc * 10)) -le "$sf" ]

# 8 words a line by an unrolled loop: 8 store instructions, each at its own offset,
# covered by their block of code (by instruction alone it read 58-69% against 0 exact)
# up to 2 runs: one of 9 (2026-11-29, a make check alone) read 20.3% where the others
# read 0-6.2%: a run of 300 rounds samples few of the lines
cvs=""
for i in 1 2; do
	rm -rf bc
	"$SONDE" comm --compare 1009 -o bc -- "$T/cb-inst" bcast 300 8 >/dev/null 2>&1
	st=$?
	read -r ex by cv < <(share bc)
	echo "    bcast 8 (run $i): false sharing exact $ex%, sampled by bytes $by%, covered reading $cv%"
	cvs="$cvs${cvs:+/}$cv"
	le "$cv" "$(awk -v e="$ex" 'BEGIN { print e + 20 }')" && break
done
check t419-bcast-status [ "$st" -eq 0 ]
check "t419-bcast-unrolled-covered ($cvs% vs $ex%)" le "$cv" "$(awk -v e="$ex" 'BEGIN { print e + 20 }')"

# each worker's own slot of one line, 4 and 1 bytes wide: false sharing within 8-byte
# chunks, never covered (a chunk mask covered it: 67% left of the exact 99.5%, the
# review of 2026-11-28); <= 10% of the false volume, as fs
for w in 4 1; do
	"$SONDE" comm --compare 1009 -o sl$w -- "$T/cb-inst" slots 200000 $w >/dev/null 2>&1
	check t419-slots$w-status [ $? -eq 0 ]
	sf=$(comm_meta sl$w sampled_total_false) sc=$(comm_meta sl$w sampled_total_false_covered)
	read -r ex by cv < <(share sl$w)
	echo "    slots $w: false sharing exact $ex%, sampled by bytes $by%, covered reading $cv%"
	check "t419-slots$w-exact-false ($ex%)" le 90 "$ex"
	check "t419-slots$w-not-covered ($sc of $sf)" [ $((sc * 10)) -le "${sf:-0}" ]
done

# the clock source, debug-register watchpoints: both readings in the summary
"$SONDE" comm -o ck -- "$T/cb-gcc" rewrite 500000 >/dev/null 2>ck.txt
check t419-clock-status [ $? -eq 0 ]
ev=$(comm_meta ck events) f=$(comm_meta ck total_false) c=$(comm_meta ck total_false_covered)
a=$(comm_meta ck total_all)
echo "    clock rewrite: $ev events, false $f of $a, covered $c"
if [ "${ev:-0}" -lt 20 ]; then
	skip t419-clock-readings "only ${ev:-0} events under the clock source on this machine now"
elif awk -v f="$f" -v c="$c" -v a="$a" 'BEGIN { exit !(100 * (f - c) / a <= 100 * f / a - 10) }'; then
	flat ck.txt >ck.flat
	check t419-clock-which-bytes grep -q "True or false sharing? $(pct "$f" "$a")% false if only each sampled store.s own bytes count (ComDetective.s rule); $(pct $((f - c)) "$a")% if every byte the same code was seen writing counts" ck.flat
	# the headline gives both, not the first as the split (the trial of 2026-11-29)
	check t419-clock-headline grep -q "communication: $a between \([0-9]* of \)\?[0-9]* threads (false sharing $(pct "$f" "$a")% or $(pct $((f - c)) "$a")%: the two readings below disagree)" ck.flat
	"$SONDE" report ck --html ck.html >/dev/null 2>&1
	check t419-clock-page-row grep -q "false, counting the writers&#39; bytes\|false, counting the writers' bytes" ck.html
	# (over half false by the bytes, as the verdict's rule: a pair read 162 of 324, 50.0%,
	# "true sharing", 2026-11-29)
	if [ $((2 * f)) -gt "$a" ] && le "$(pct $((f - c)) "$a")" 50; then
		# its evidence: the top object's lines of 3 events or more with two threads,
		# counted from lines.csv: two threads at one offset, or each at its own; where 2
		# or more show one offset and none its own, the writers' bytes and the lines
		# agree: "most likely true sharing" (rewrite is true sharing only; the usability
		# review of 2026-11-29 read "undecided" with both signals one way), else
		# "undecided"
		check t419-clock-verdict-evidence python3 - <<'PY'
import csv
top = next(csv.DictReader(open("ck/comm/objects.csv")))["object"]
same = own = 0
for r in csv.DictReader(open("ck/comm/lines.csv")):
    if r["object"] != top or int(r["events"]) < 3:
        continue
    who = [tuple(w.split(":+")) for w in r["offsets"].split()]
    if len({t for t, _ in who}) < 2:
        continue
    shared = any(a[1] == b[1] and a[0] != b[0] for a in who for b in who)
    same += shared
    own += not shared
text = " ".join(open("ck.flat").read().split())
verdict = ("What to do: most likely true sharing in " if same >= 2 and not own else
           "What to do: undecided in ")
assert verdict in text, verdict
n = same + own
if n:
    want = ("Evidence: of the %d busiest cache line%s with 3 events or more and two threads or more "
            "(Top cache lines, lines.csv), %d show two threads at the same byte offset"
            % (n, "" if n == 1 else "s", same))
    assert want in text and ("; %d each thread at offsets of its own" % own) in text, want
else:
    assert "Evidence:" not in text
print("    evidence: %d lines, %d at one offset, %d each at its own: %s" % (n, same, own, verdict))
PY
	fi
else
	fail t419-clock-readings "the two readings agree within 10 points on rewrite ($f and $((f - c)) of $a)"
fi
