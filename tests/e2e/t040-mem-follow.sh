# fork and exec: by default every process image gets its own recording in the directory,
# named so none overwrites another; --no-follow-exec stops at exec, --no-follow-fork at
# fork; the program's output and status never change.
. "$(dirname "$0")/lib.sh"
"$W/forkexec" | sort >native

exes() { grep -h '^exe=' "$1"/*.proc | sed 's/^exe=//; s|.*/||' | sort | tr '\n' ' '; }

"$SONDE" mem -q -o all -- "$W/forkexec" | sort >out
check "follow-output" cmp -s native out
# parent + 2 fork children (before exec) + echo + the exec'd forkexec child
check "follow-all-images ($(exes all))" [ "$(exes all)" = "echo forkexec forkexec forkexec forkexec " ]
# the summary names the programs its processes ran, with how many processes each
"$SONDE" report all >all.txt 2>&1
# the two forks' lives before their exec are not two more runs of forkexec (the trial of
# 2026-11-29, F8: Open MPI's singleton start forks and execs orted, not followed, and a
# serial run read "programs xhpcg (2)"); the second exec'd /proc/self/exe, named forkexec
check "follow-programs-line" grep -q "^  programs  forkexec (2), echo (1)$" all.txt
check "follow-forks-line" grep -q "^            and 2 forks that exec'd: echo, forkexec$" all.txt
# titled by the command launched, not "mixed" (the usability review of 2026-11-29: the
# command line lost, and "mixed" read as a program of that name), in JSON too
check "follow-title-launched ($(head -1 all.txt))" [ "$(head -1 all.txt)" = "sonde mem: $W/forkexec" ]
"$SONDE" report all --format json >all.json 2>/dev/null
check follow-json-exe python3 -c 'import json, sys; d = json.load(open("all.json")); m = d.get("meta", d)
sys.exit(m["exe"] != sys.argv[1])' "$W/forkexec"
n_exec=$(grep -l '^end=exec' all/*.proc | wc -l)
check "follow-exec-ends-noted ($n_exec)" [ "$n_exec" -eq 2 ]
# the exec'd child did the memory work: its samples are in the database
child=$(grep -l '^argv=.*child' all/*.proc | head -1)
[ -n "$child" ] && pass "exec-child-recorded" || fail "exec-child-recorded" "no .proc with argv child"

"$SONDE" mem -q --no-follow-exec -o noexec -- "$W/forkexec" | sort >out
check "no-follow-exec-output" cmp -s native out
check "no-follow-exec-images ($(exes noexec))" [ "$(exes noexec)" = "forkexec forkexec forkexec " ]
"$SONDE" report noexec >noexec.txt 2>&1
check "no-follow-exec-programs-line" grep -q "^  programs  forkexec (1)$" noexec.txt
flat noexec.txt >noexec.flat
check "no-follow-exec-forks-line" grep -q " programs forkexec (1) and 2 forks that exec'd: echo (not profiled), forkexec (not profiled) " noexec.flat

"$SONDE" mem -q --no-follow-fork -o nofork -- "$W/forkexec" | sort >out
check "no-follow-fork-output" cmp -s native out
check "no-follow-fork-images ($(exes nofork))" [ "$(exes nofork)" = "forkexec " ]
"$SONDE" report nofork >rep.txt 2>&1
check "no-follow-fork-report" [ $? -eq 0 ]
# Children started without fork() in the program (a shell's, system(), posix_spawn) follow
# the same rule.
"$SONDE" mem -q --no-follow-fork -o shell -- /bin/sh -c '/bin/echo one; /bin/echo two' >out
check "no-follow-fork-shell-output" [ "$(cat out)" = "$(printf 'one\ntwo')" ]
check "no-follow-fork-shell-images ($(exes shell))" [ "$(exes shell)" = "dash " -o "$(exes shell)" = "bash " -o "$(exes shell)" = "sh " ]
"$SONDE" mem -q -o shell2 -- /bin/sh -c '/bin/echo one; /bin/echo two' >out
check "follow-shell-images ($(exes shell2))" [ "$(grep -c '^exe=.*echo' shell2/*.proc | awk -F: '{s += $2} END {print s}')" -eq 2 ]
