# t60-vsensor-lib.bash - helpers for the vsensor tests (t600-t649), sourced after lib.sh.
# Not a test itself (tests/run.sh runs t*.sh only).

# vs_line MARK FILE: the line of FILE whose comment starts "/* MARK ".
vs_line() { grep -n "/\* $1 " "$2" | cut -d: -f1; }

# vs_get LIST.csv FILE:LINE COLUMN: a column of `sonde vsensor list --csv`'s row for a site.
vs_get() { python3 - "$@" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["site"] == sys.argv[2]:
        print(row[sys.argv[3]]); break
PY
}
