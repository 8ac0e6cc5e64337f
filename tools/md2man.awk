# md2man.awk - turn one of sonde's Markdown manual pages into a roff man page.
# Handles what doc/*.md use: "#" title, "##"/"###" sections, paragraphs, fenced and
# indented code, "*"/"-" lists and tables (kept as preformatted text).
#   awk -v name=sonde-mem -v section=1 -f tools/md2man.awk doc/sonde-mem.md > sonde-mem.1
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/`/, "", s)
	gsub(/\*\*/, "", s)
	if (s ~ /^[.']/) s = "\\&" s
	return s
}
#   -v help=FILE puts FILE (the command's --help, if not empty) in a USAGE section before the
#   first "##": every option, where the page's own text explains some of them.
BEGIN { printf ".TH %s %s \"\" \"sonde\" \"sonde manual\"\n", toupper(name), section; pre = 0 }
/^## / && help != "" && !helped {
	helped = 1
	if ((getline line < help) > 0) {
		print ".SH USAGE"; print "What \\-\\-help prints:"; print ".RS 4"; print ".nf"
		do print esc(line); while ((getline line < help) > 0)
		print ".fi"; print ".RE"
	}
	close(help)
}
/^```/ { if (pre) { print ".fi"; print ".RE"; pre = 0 } else { print ".RS 4"; print ".nf"; pre = 1 }; next }
pre { print esc($0); next }
# NAME as whatis and apropos read it: "name \- what it does" (-v desc), else the title
/^# / { sub(/^# /, ""); print ".SH NAME"; print (desc != "" ? name " \\- " esc(desc) : esc($0)); next }
/^## / { sub(/^## /, ""); print ".SH " toupper(esc($0)); next }
/^### / { sub(/^### /, ""); print ".SS " esc($0); next }
/^\|/ { if (!tbl) { print ".RS 4"; print ".nf"; tbl = 1 }; if ($0 !~ /^\|[-| ]+\|$/) print esc($0); next }
tbl { print ".fi"; print ".RE"; tbl = 0 }
/^    / { sub(/^    /, ""); print ".RS 4"; print ".nf"; print esc($0); print ".fi"; print ".RE"; next }
/^[*-] / { sub(/^[*-] /, ""); print ".IP \\(bu 2"; print esc($0); next }
/^$/ { print ".PP"; next }
{ sub(/^ +/, ""); print esc($0) }
END { if (pre || tbl) { print ".fi"; print ".RE" } }
