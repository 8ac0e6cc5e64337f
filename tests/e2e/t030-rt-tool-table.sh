# The runtime's tool table: SONDE_TOOL names a registered tool, an unknown name is refused
# at start with one line and the program then runs exactly as without the runtime.
. "$(dirname "$0")/lib.sh"
lib=$SONDE_BUILD/libsonde.so
"$W/stdout" >native.txt
mkdir rec
SONDE_DIR=$PWD/rec SONDE_TOOL=no-such-tool LD_PRELOAD=$lib "$W/stdout" >out.txt 2>err.txt
st=$?
check "unknown-tool-exit-status" [ "$st" -eq 0 ]
check "unknown-tool-output-unchanged" cmp -s native.txt out.txt
check "unknown-tool-one-line" [ "$(wc -l <err.txt)" -eq 1 ]
check "unknown-tool-says-why" grep -q "unknown tool 'no-such-tool'" err.txt
check "unknown-tool-records-nothing" [ -z "$(ls rec)" ]
# the registered tool records under the same environment
mkdir rec2
SONDE_DIR=$PWD/rec2 SONDE_TOOL=mem LD_PRELOAD=$lib "$W/stdout" >out2.txt 2>err2.txt
check "known-tool-records" sh -c 'ls rec2/*.sdt >/dev/null 2>&1'
check "known-tool-proc-names-it" grep -qx 'tool=mem' rec2/*.proc
check "known-tool-quiet" [ ! -s err2.txt ]
