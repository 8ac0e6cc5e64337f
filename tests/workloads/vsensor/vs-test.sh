# tests/workloads/vsensor/vs-test.sh - sourced by the vsensor MPI tests (t60x) and
# bench/vsensor.sh after tests/e2e/lib.sh.
# Gives: vs_setup NAME (or SKIP and exit), vs_build WORKLOAD (instrumented with
# 'sonde vsensor cc' into $T/WORKLOAD), vs_run ARGS (mpirun at nice -10: the other jobs
# of a shared machine must not become the variance a test measures), $VSW.
VSW=$SONDE_TOP/tests/workloads/vsensor

vs_run() {
	VS_PIN=1 nice -n -10 mpirun --allow-run-as-root --oversubscribe --bind-to none \
		--mca btl self,vader "$@"
}

vs_setup() {
	local name=$1
	if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
		skip "$name" "mpirun/mpicc not found (Debian: openmpi-bin libopenmpi-dev)"
		exit 0
	fi
	if ! mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader \
		-np 2 true >mpi-probe.log 2>&1; then
		skip "$name" "mpirun cannot start 2 local processes here"
		exit 0
	fi
	if [ ! -f "$SONDE_BUILD/libsonde-vsensor.a" ]; then
		fail "$name-built" "libsonde-vsensor.a missing (make)"
		exit 0
	fi
}

vs_build() {
	"$SONDE" vsensor cc mpicc -O2 -o "$T/$1" "$VSW/$1.c" -lm -pthread >"cc-$1.log" 2>&1
}
