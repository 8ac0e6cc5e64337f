# Bad input gets one clear line and a documented exit status, never a crash.
. "$(dirname "$0")/lib.sh"

# expect NAME STATUS PATTERN COMMAND...: exit status and a stderr line matching PATTERN
expect() {
	local name=$1 want=$2 pat=$3; shift 3
	"$@" >out.txt 2>err.txt
	local got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name" "exit $got, wanted $want; stderr: $(head -c 300 err.txt)"
	elif [ -n "$pat" ] && ! grep -qE "$pat" err.txt; then
		fail "$name" "stderr does not match '$pat': $(head -c 300 err.txt)"
	else
		pass "$name"
	fi
}

expect unknown-command 2 "^sonde: unknown command 'frobnicate'" "$SONDE" frobnicate
# 'sonde cc' points to the two compiler wrappers (the trial of 2026-11-29)
expect cc-not-a-command 2 "^sonde: unknown command 'cc': the compiler wrapper for the inst source is sonde-cc \(one word\), the one for vsensor 'sonde vsensor cc'" "$SONDE" cc -O2 x.c
expect no-command 2 "usage: sonde" "$SONDE"
expect mem-unknown-option 2 "^sonde: unknown option '--bogus'" "$SONDE" mem --bogus -- true
# a long option without its value is named as typed (comm's --top printed a raw byte:
# getopt's optopt is the option's value, 256+ for options without a short form)
expect comm-top-no-value 2 "^sonde: option '--top' needs a value$" "$SONDE" comm --top
expect mem-period-no-value 2 "^sonde: option '--period' needs a value$" "$SONDE" mem --period
expect mem-help-value 2 "^sonde: option '--help' takes no value$" "$SONDE" mem --help=3
# analyze and record-cycles: one line as the others, not getopt's own plus "bad option"
expect analyze-unknown-option 2 "^sonde: unknown option '--bogus'$" "$SONDE" analyze --bogus
[ "$(wc -l <err.txt)" -eq 2 ] && pass analyze-unknown-one-line || fail analyze-unknown-one-line "$(cat err.txt)"
expect analyze-function-no-value 2 "^sonde: option '--function' needs a value$" "$SONDE" analyze --function
# a sonde recording (a directory) given to analyze: the error names the command that shows it
mkdir -p recdir
expect analyze-directory 1 "Is a directory.*'sonde report DIR'" "$SONDE" analyze recdir
expect record-cycles-unknown-option 2 "^sonde: unknown option '--bogus'$" "$SONDE" record-cycles --bogus -- true
expect mem-no-program 2 "^sonde: no program to run" "$SONDE" mem
# the recording tools read their command lines alike (launch_args): the same shared
# options, the same errors, each its own name in them
for t in mem comm reuse variance; do
	expect $t-no-program-alike 2 "^sonde: no program to run \(sonde $t \[options\] -- program \[args\]\)$" \
		"$SONDE" $t
	expect $t-unknown-alike 2 "^try 'sonde $t --help'$" "$SONDE" $t --bogus -- true
	expect $t-top-no-value-alike 2 "^sonde: option '--top' needs a value$" "$SONDE" $t --top
	expect $t-bad-top-alike 2 "" "$SONDE" $t --top 0 -- true
	expect $t-help-h-alike 0 "" "$SONDE" $t -h
	grep -q -- "--no-follow-exec  stop profiling at exec" out.txt && pass $t-help-shared-options ||
		fail $t-help-shared-options "$(head -c 300 out.txt)"
done
expect mem-bad-source 2 "unknown sample source 'gpu'" "$SONDE" mem --source gpu -- true
expect mem-bad-period 2 "period wants a positive number" "$SONDE" mem --period -5 -- true
# digits past 2^64 are too large, not "not a number" (the variance review of 2026-11-28)
expect mem-huge-period 2 "period 99999999999999999999 is too large" \
	"$SONDE" mem --period 99999999999999999999 -- true
expect mem-not-found 127 "^sonde: cannot run 'no-such-program-xyz': No such file or directory" \
	"$SONDE" mem -- no-such-program-xyz
printf 'not a program\n' >notexec.txt
expect mem-not-executable 126 "^sonde: cannot run '\./notexec.txt': Permission denied" \
	"$SONDE" mem -- ./notexec.txt
# the program exists, but what runs it does not (bash 5.2 also says 127): name the
# interpreter, not the script, which is there
printf '#!/no/such/interp\necho hi\n' >badinterp.sh && chmod +x badinterp.sh
expect mem-bad-interpreter 127 "^sonde: cannot run '\./badinterp.sh': bad interpreter '/no/such/interp': No such file or directory" \
	"$SONDE" mem -- ./badinterp.sh
printf 'not a program\n' >noformat && chmod +x noformat
expect mem-exec-format 126 "^sonde: cannot run '\./noformat': Exec format error" \
	"$SONDE" mem -- ./noformat
# execve fails after the directory is made: it must go too (it kept launch.txt before)
[ -z "$(ls -d sonde-* 2>/dev/null)" ] && pass "no-dir-left-when-not-run" ||
	fail "no-dir-left-when-not-run" "$(ls -d sonde-*)"
expect mem-unwritable-dir 1 "^sonde: cannot create output directory '/proc/sonde-test/x'" \
	"$SONDE" mem -o /proc/sonde-test/x -- true
# a missing parent: said so (the trial of 2026-11-28 read "No such file or directory")
expect mem-dir-no-parent 1 "^sonde: cannot create output directory 'nothere/x': its parent directory does not exist" \
	"$SONDE" mem -o nothere/x -- true
# said first and alone, before a watchpoint tool's warnings about the program (the
# usability review of 2026-11-29: five lines of the debug registers' warning came first)
"$SONDE" comm -o nothere/x -- true >/dev/null 2>np.err
check comm-dir-no-parent-alone [ $? -eq 1 -a "$(wc -l <np.err)" -eq 1 ]
# a period over 2^53 (kept as a double, it read back as another number)
expect period-over-2-53 2 "^sonde: --period 18446744073709551615 is too large .at most 9007199254740992" \
	"$SONDE" reuse --period 18446744073709551615 -- true
# a parent that exists but makes no directory (/proc): not "its parent does not exist"
expect mem-dir-proc 1 "^sonde: cannot create output directory '/proc/nope': the file system of its parent makes no directory there" \
	"$SONDE" mem -o /proc/nope -- true
: >afile
expect mem-dir-is-file 1 "^sonde: output 'afile' exists and is not a directory" \
	"$SONDE" mem -o afile -- true
mkdir full && echo keep >full/mine.txt
# an empty -o is a usage error (it read "its parent directory does not exist": the comm
# review of 2026-11-29)
expect comm-o-empty 2 "^sonde: -o needs a directory name$" "$SONDE" comm -o "" -- true
expect mem-dir-not-empty 1 "is not empty \(use --force" "$SONDE" mem -o full -- true
[ "$(cat full/mine.txt)" = keep ] && pass "user-file-kept" || fail "user-file-kept"
# --force over another tool's recording: its CSV folder goes with its raw files (comm/
# stayed, a stale profile beside the new one), the user's files stay
mkdir -p other/comm && echo keep >other/mine.txt && echo 'a,b' >other/comm/pairs.csv && : >other/1.proc
expect mem-force-other-tool 0 "" "$SONDE" mem -q --force -o other -- true
[ ! -e other/comm ] && [ ! -e other/1.proc ] && pass "force-removes-other-tool" ||
	fail "force-removes-other-tool" "$(ls other other/comm 2>&1 | tr '\n' ' ')"
[ "$(cat other/mine.txt)" = keep ] && [ -d other/mem ] && pass "force-keeps-user-file" ||
	fail "force-keeps-user-file" "$(ls other | tr '\n' ' ')"
# the tool's own folders inside its CSV folder (per process, comm --compare's sampled/) go
# too: a forced run kept a forked run's comm/proc-PID/ and a --compare's comm/sampled/ until
# 2026-11-28 (stale matrices beside the new ones); a folder of the user's there stays
mkdir -p exportdirs/comm/proc-123 exportdirs/comm/sampled exportdirs/comm/mine && : >exportdirs/1.proc
echo 'a,b' >exportdirs/comm/proc-123/pairs.csv && echo 'a,b' >exportdirs/comm/sampled/matrix-all-thread.csv
echo 'a,b' >exportdirs/comm/mine/x.csv
# (and a user's folder named like one, proc-notes/: not ours, the second review)
mkdir -p exportdirs/comm/proc-notes && echo keep >exportdirs/comm/proc-notes/mydata.csv
expect mem-force-export-dirs 0 "" "$SONDE" mem -q --force -o exportdirs -- true
[ ! -e exportdirs/comm/proc-123 ] && [ ! -e exportdirs/comm/sampled ] && [ -e exportdirs/comm/mine/x.csv ] &&
	[ -e exportdirs/comm/proc-notes/mydata.csv ] &&
	pass "force-removes-export-dirs" ||
	fail "force-removes-export-dirs" "$(find exportdirs 2>&1 | tr '\n' ' ')"
# a user's file inside the tool's CSV folder: the CSV files go, the folder and that file stay
mkdir -p other2/comm && echo keep >other2/comm/notes.txt && echo 'a,b' >other2/comm/pairs.csv
expect mem-force-user-file-in-export 0 "" "$SONDE" mem -q --force -o other2 -- true
[ ! -e other2/comm/pairs.csv ] && [ "$(cat other2/comm/notes.txt)" = keep ] &&
	pass "force-keeps-user-file-in-export" ||
	fail "force-keeps-user-file-in-export" "$(ls other2 other2/comm 2>&1 | tr '\n' ' ')"
# names that only end like the recording's files are the user's: "myprofile.db", "notes.maps",
# "x.proc" stay (before: matched by ending, deleted), as do a symbolic link named like a
# stream and a tool folder that is a link to the user's own folder of CSV files
mkdir -p other3 mycsv && echo keep >mycsv/data.csv && ln -s ../mycsv other3/comm
for f in myprofile.db notes.maps x.proc 12a.sdt; do echo keep >"other3/$f"; done
echo keep >target.sdt && ln -s ../target.sdt other3/7-7.sdt && : >other3/7-8.sdt && : >other3/7.maps.start &&
	: >other3/r1.55.e2-56.sdt.tmp && : >other3/r0.55.proc && echo keep >other3/r.55.proc
expect mem-force-lookalikes 0 "" "$SONDE" mem -q --force -o other3 -- true
kept=1
for f in myprofile.db notes.maps x.proc 12a.sdt; do [ "$(cat "other3/$f")" = keep ] || kept=0; done
[ "$kept" = 1 ] && [ -L other3/7-7.sdt ] && [ "$(cat mycsv/data.csv)" = keep ] && [ -L other3/comm ] &&
	[ ! -e other3/7-8.sdt ] && [ ! -e other3/7.maps.start ] && [ ! -e other3/r1.55.e2-56.sdt.tmp ] &&
	[ ! -e other3/r0.55.proc ] && [ "$(cat other3/r.55.proc)" = keep ] && pass "force-keeps-lookalikes" ||
	fail "force-keeps-lookalikes" "$(ls -l other3 mycsv 2>&1 | tr '\n' ' ')"
# --html into a missing folder: said before the program runs, not after a long run
# (before: the program ran, then "cannot write", status 0, no page)
expect mem-html-missing-folder 1 "^sonde: cannot write 'nodir/p.html': No such file or directory$" \
	"$SONDE" mem -q -o html-rec --html nodir/p.html -- sh -c ': >html-ran'
[ ! -e html-ran ] && [ ! -e html-rec ] && pass "html-checked-before-run" || fail "html-checked-before-run"
# a "folder" that is a file: said before the run too (the usability review of 2026-11-30:
# the program ran to its end, then the page failed)
: >afile
expect variance-html-file-as-folder 1 "^sonde: cannot write 'afile/p.html': Not a directory$" \
	"$SONDE" variance -q -o html-rec2 --html afile/p.html -- sh -c ': >html-ran2'
[ ! -e html-ran2 ] && pass "html-file-folder-checked-before-run" || fail "html-file-folder-checked-before-run"
expect report-missing 1 "^sonde: " "$SONDE" report does-not-exist
# a recording it may not read: the path in the line (the usability review of 2026-11-29:
# "sonde: Permission denied" alone).  Root reads anything: as nobody then, where it can.
mkdir -p locked/rec noread && chmod 000 locked noread
asuser=()
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	asuser=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" -ne 0 ] || [ ${#asuser[@]} -gt 0 ]; then
	expect report-unreadable-path 1 "^sonde: cannot read '$PWD/locked/rec': Permission denied$" \
		"${asuser[@]}" "$SONDE" report "$PWD/locked/rec"
	expect report-unlistable-path 1 "^sonde: cannot (list|read) '$PWD/noread': Permission denied$" \
		"${asuser[@]}" "$SONDE" report "$PWD/noread"
else
	skip report-unreadable-path "root, and no setpriv to read as another user"
fi
chmod 700 locked noread
expect help-exit-0 0 "" "$SONDE" --help
"$SONDE" mem --help | grep -q -- "--source" && pass "mem-help-lists-options" || fail "mem-help-lists-options"

# perf_event_open refused (as in a locked-down container): the program still runs, its
# status passes through, and the message says which event, why, and what to do.
"$W/noperf" "$SONDE" mem -o refused -- /bin/sh -c 'exit 3' >out.txt 2>err.txt
st=$?
[ "$st" -eq 3 ] && pass "refused-status-passthrough" || fail "refused-status-passthrough" "exit $st"
if grep -qiE "cpu-clock|perf_event_open" err.txt && grep -qiE "seccomp|paranoid|container|permission|EACCES|refused" err.txt; then
	pass "refused-explained"
else
	fail "refused-explained" "$(head -c 600 err.txt)"
fi
