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

# What to check comes from the build (Makefile: SIGSAFE_LIST): each runtime file that
# includes rt/sigsafe.h and what holds its code in the program, under $SONDE_BUILD.
list=$SONDE_BUILD/sigsafe.list
if [ ! -s "$list" ]; then
	fail handler-list "$list missing (make)"
	exit 0
fi
n=0
while read -r src holder; do
	name=handler-safe-${src#src/}
	name=${name%.c}
	if [ "$holder" = included ]; then
		# its code is in the runtime file that includes it, whose object is checked
		base=$(basename "$src")
		inc=$(cut -d' ' -f1 "$list" | (cd "$SONDE_TOP" && xargs grep -l "^#include \".*$base\"") | head -1)
		[ -n "$inc" ] && pass "$name (in $inc)" || fail "$name" "no listed runtime file includes it"
		continue
	fi
	obj=$SONDE_BUILD/$holder
	if [ ! -f "$obj" ]; then fail "$name" "$obj not built"; continue; fi
	bad=$(bad_symbols "$obj" | tr '\n' ' ')
	if [ -z "$bad" ]; then pass "$name"; else fail "$name" "references $bad"; fi
	n=$((n + 1))
done <"$list"
# The list is the build's: it leaves out no handler-reachable file of the tree
for src in "$SONDE_TOP"/src/rt/*.c "$SONDE_TOP"/src/tools/*/rt-*.c; do
	grep -q '^#include "rt/sigsafe.h"' "$src" || continue
	rel=${src#"$SONDE_TOP"/}
	grep -q "^$rel " "$list" || fail "handler-listed-${rel#src/}" "$rel is not in $list (make)"
done
# The files the design names as handler-reachable must be among them.
for must in rt/core rt/out rt/arena rt/ctx rt/finish tools/mem/rt-mem; do
	grep -q '#include "rt/sigsafe.h"' "$SONDE_TOP/src/$must.c" ||
		fail "sigsafe-marked-$must" "src/$must.c does not include rt/sigsafe.h"
done
[ "$n" -ge 6 ] && pass "handler-objects-found ($n)" || fail "handler-objects-found" "only $n"
