# make install puts a working sonde, runtime, sonde-cc and manual pages under PREFIX.
. "$(dirname "$0")/lib.sh"
make -s -C "$SONDE_TOP" B="$SONDE_BUILD" install PREFIX="$T/prefix" >install.log 2>&1 ||
	{ fail install "$(tail -5 install.log)"; exit 0; }
P=$T/prefix
for f in bin/sonde bin/sonde-cc lib/sonde/libsonde.so lib/sonde/libsonde-inst.so \
	share/man/man1/sonde.1 share/man/man1/sonde-mem.1; do
	[ -e "$P/$f" ] && pass "installed-$f" || fail "installed-$f"
done
man -l "$P/share/man/man1/sonde-mem.1" 2>/dev/null | grep -q "min-object" &&
	pass "man-page-renders" || fail "man-page-renders"
# The installed sonde finds its installed runtime (not the build tree's).
"$P/bin/sonde" mem -q -o rec -- /bin/true && [ -n "$(ls rec/*.sdt 2>/dev/null)" ] &&
	pass "installed-sonde-records" || fail "installed-sonde-records"
grep -q "^exe=/usr/bin/true\|^exe=/bin/true" rec/*.proc && pass "installed-runtime-ran" ||
	fail "installed-runtime-ran" "$(cat rec/*.proc 2>/dev/null | head -3)"
# The installed sonde-cc links against the installed stub library.
printf 'int main(void){ static volatile int x; x = 1; return x - 1; }\n' >p.c
if command -v clang >/dev/null; then
	"$P/bin/sonde-cc" -O1 p.c -o p && ./p && ldd ./p | grep -q "$P/lib/sonde/libsonde-inst.so" &&
		pass "installed-sonde-cc" || fail "installed-sonde-cc" "$(ldd ./p 2>&1 | head -3)"
else
	skip "installed-sonde-cc" "clang is not installed"
fi
# Each tool's page carries every option --help lists (a USAGE section made from it).
for t in mem comm reuse variance vsensor analyze report info bench; do
	man -l "$P/share/man/man1/sonde-$t.1" 2>/dev/null | col -b > man-$t.txt
	missing=$("$P/bin/sonde" $t --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u |
		while read -r o; do grep -qF -- "$o" man-$t.txt || echo "$o"; done)
	nopt=$("$P/bin/sonde" $t --help 2>&1 | grep -cE -- '--[a-z]')
	[ -s man-$t.txt ] && [ "$nopt" -gt 0 ] && [ -z "$missing" ] && pass "man-$t-options" ||
		fail "man-$t-options" "not in the page: $missing"
done
# The pages each --help names ("Manual: man sonde-X (doc/sonde-X.md)") are installed, the
# Markdown too (share/doc/sonde/), with the documents the messages cite that are no man page.
for t in "" mem comm reuse variance vsensor bench; do
	page=$("$P/bin/sonde" $t --help 2>&1 | grep -oE "(Manual|More): man sonde[a-z-]*" | sed 's/.* //')
	[ -n "$page" ] && [ -s "$P/share/man/man1/$page.1" ] && [ -s "$P/share/doc/sonde/$page.md" ] &&
		pass "help-names-installed-page-${t:-sonde}" ||
		fail "help-names-installed-page-${t:-sonde}" "'$page'"
done
for d in profile-db benchmarks architecture; do
	[ -s "$P/share/doc/sonde/$d.md" ] && pass "installed-doc-$d" || fail "installed-doc-$d"
done
# Each page's NAME line is "name \- what it does", as whatis and apropos read it (the
# usability review of 2026-11-28: the bare title gave whatis nothing)
for f in "$P"/share/man/man1/sonde*.1; do
	n=$(basename "$f" .1)
	line=$(sed -n '/^\.SH NAME/{n;p;q}' "$f")
	case $line in
	"$n \\- "?*) pass "man-name-line-$n" ;;
	*) fail "man-name-line-$n" "'$line'" ;;
	esac
done
# make uninstall removes what install wrote.
make -s -C "$SONDE_TOP" B="$SONDE_BUILD" uninstall PREFIX="$P" >uninstall.log 2>&1 &&
	[ -z "$(find "$P" -type f)" ] && pass "uninstall" ||
	fail "uninstall" "$(find "$P" -type f | head -3)"
