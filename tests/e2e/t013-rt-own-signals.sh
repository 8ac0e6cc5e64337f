# A program that installs a handler on the runtime's sampling signal neither steals the
# samples nor receives signals it never asked for; sigaction reports back what it set.
. "$(dirname "$0")/lib.sh"
"$W/stealsig" >native.txt
"$SONDE" mem -q -o rec -- "$W/stealsig" >sonde.txt 2>err.txt
st=$?
check "exit-status" [ "$st" -eq 0 ]
check "output-unchanged" cmp -s native.txt sonde.txt
n=$(sqlite3 rec/profile.db "select value from meta where key='samples'" 2>/dev/null)
check "samples-still-taken (${n:-none})" [ "${n:-0}" -ge 100 ]
