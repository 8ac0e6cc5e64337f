# Handler-reachable runtime objects (sources that include rt/sigsafe.h) must not reference
# allocation, stdio or lock functions: nm on the built objects proves it.
. "$(dirname "$0")/lib.sh"

FORBIDDEN='^(malloc|calloc|realloc|free|strdup|strndup|printf|fprintf|sprintf|snprintf|vsnprintf|vfprintf|puts|fputs|fputc|putchar|perror|fopen|fclose|fwrite|fread|fflush|pthread_mutex_lock|pthread_mutex_trylock|pthread_rwlock_rdlock|pthread_rwlock_wrlock|dlopen|dlsym|dlclose|exit|atexit|syslog|__tls_get_addr|__printf_chk|__fprintf_chk|__sprintf_chk|__snprintf_chk|__vsnprintf_chk)(@.*)?$'

# bad_symbols OBJ: the forbidden undefined symbols it references
bad_symbols() { { nm -u "$1"; nm -D --undefined-only "$1" 2>/dev/null; } | awk '{print $NF}' | grep -E "$FORBIDDEN"; }

# The check itself must be able to fail: an object calling malloc and printf is caught.
printf '#include <stdlib.h>\n#include <stdio.h>\nvoid *f(void){ printf("x"); return malloc(3); }\n' >bad.c
cc -O2 -c bad.c -o bad.o
if [ -n "$(bad_symbols bad.o)" ]; then pass "nm-check-catches-malloc"; else fail "nm-check-catches-malloc"; fi

n=0
# the runtime's machinery and each tool's runtime client (src/tools/<tool>/rt-*.c)
for src in "$SONDE_TOP"/src/rt/*.c "$SONDE_TOP"/src/tools/*/rt-*.c; do
	[ -f "$src" ] || continue
	grep -q '#include "rt/sigsafe.h"' "$src" || continue
	rel=${src#"$SONDE_TOP"/src/}
	obj=$SONDE_BUILD/obj/${rel%.c}.o
	# inst-stub.c is built straight into its own library
	[ "$(basename "$src")" = inst-stub.c ] && obj=$SONDE_BUILD/libsonde-inst.so
	name=handler-safe-${rel%.c}
	if [ ! -f "$obj" ]; then fail "$name" "object $obj not built"; continue; fi
	bad=$(bad_symbols "$obj" | tr '\n' ' ')
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "references $bad"; fi
	n=$((n + 1))
done
# The files the design names as handler-reachable must be among them.
for must in rt/core rt/out rt/arena rt/ctx rt/finish tools/mem/rt-mem; do
	grep -q '#include "rt/sigsafe.h"' "$SONDE_TOP/src/$must.c" ||
		fail "sigsafe-marked-$must" "src/$must.c does not include rt/sigsafe.h"
done
[ "$n" -ge 6 ] && pass "handler-objects-found ($n)" || fail "handler-objects-found" "only $n"
