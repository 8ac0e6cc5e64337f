#!/usr/bin/env bash
# t423-comm-exec-folders: each image of a recording of several processes has its own folder
# in DIR/comm/, an exec'd one too, though it keeps its pid: the shell's proc-PID and the
# program it execs into, proc-PID.e1 (model.c, part_folder); the Processes table names each
# folder and its program.  Before, the image after an exec wrote the same proc-PID as the
# one before it, whose files were lost (the usability review of 2026-11-29), and the table
# showed two rows of one pid with no program.  And `-f` clears such folders of a former
# run, as it does proc-PID (launch.c, part_dir), but leaves a user's own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/t40-comm-lib.bash"
comm_build t423-build || exit 0
cd "$T"
"$SONDE" comm --source inst --period 101 -o ex -- \
	sh -c './cb-inst pingpong 2000; exec ./cb-inst pingpong 2000' >out 2>err
check t423-status [ $? -eq 0 ]
q() { sqlite3 ex/profile.db "$1"; }
sh_pid=$(q "SELECT pid FROM comm_parts WHERE program IN ('sh', 'dash', 'bash') AND folder NOT LIKE '%.e%'")
check "t423-shell-folder (${sh_pid:-none})" [ -n "$sh_pid" -a -d "ex/comm/proc-$sh_pid" ]
check t423-exec-folder [ -s "ex/comm/proc-$sh_pid.e1/matrix-all-thread.csv" ]
check t423-exec-program [ "$(q "SELECT program FROM comm_parts WHERE folder = 'proc-$sh_pid.e1'")" = cb-inst ]
# the exec'd image's pingpong is in its own folder (workers 1 and 2 of its numbering)
check t423-exec-pair [ "$(sed -n 2p "ex/comm/proc-$sh_pid.e1/pairs.csv" | cut -d, -f1,2)" = 1,2 ]
check t423-table-folders grep -q "proc-$sh_pid\.e1 *cb-inst" <(flat err)
# the header names the busiest process and says there are others (the comm review of
# 2026-11-29: a wrapper script's run read as one program's)
np=$(q "SELECT value FROM meta WHERE key = 'processes'")
check "t423-header-busiest-of-$np" grep -q "^sonde comm: .* (the busiest of $np processes: all under Processes)$" err
# -f: the former run's folders go, a user's own stays
mkdir -p ex/comm/proc-notes && echo mine >ex/comm/proc-notes/n.txt
"$SONDE" comm -f --source inst --period 101 -o ex -- ./cb-inst pingpong 200 >/dev/null 2>&1
check t423-force-status [ $? -eq 0 ]
check t423-force-cleared [ ! -e "ex/comm/proc-$sh_pid.e1" ]
check t423-force-kept-user [ -s ex/comm/proc-notes/n.txt ]
# a fork that exec'd is said to be one, not another run of its program (profile_fork_exec;
# the trial of 2026-11-29, F8: Open MPI's singleton start forks and execs orted, and a
# serial run's table read as two processes of the program)
"$SONDE" comm -o fk -- "$W/forkexec" >/dev/null 2>fk.err
check t423-fork-status [ $? -eq 0 ]
flat fk.err >fk.flat
check t423-fork-echo-said grep -Eq "proc-[0-9]+ is a fork of forkexec that exec'd echo: what it ran between the fork and the exec, not another run of forkexec\." fk.flat
check t423-fork-self-said grep -Eq "proc-[0-9]+ is a fork of forkexec that exec'd forkexec:" fk.flat
check t423-fork-db [ "$(sqlite3 fk/profile.db "SELECT count(*) FROM comm_parts WHERE fork_exec != ''")" = 2 ]
