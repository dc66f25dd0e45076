#!/bin/sh
# longfuncs -- list the C functions longer than a limit.
#   tools/longfuncs.sh [-n MAX] [FILE...]
# prints "FILE:LINE: NAME LINES" for each function whose body (the lines
# between its braces) is over MAX lines (default 100), longest first; with
# no FILE, every .c and .h under decoder/, src/, ui/ and tools/.
# -n 0 lists every function.  The code is kernel style (STYLE.md): a
# definition's braces are alone at column 0, its name on a line that starts
# at column 0, so no C parser is needed.  Exit status 0 (the list is the
# answer; tests/t_style.sh judges it).
set -u
max=100
if [ "${1:-}" = -n ]; then
	max=$2
	shift 2
fi
if [ $# -eq 0 ]; then
	cd "$(dirname "$0")/.." || exit 1
	set -- decoder/*.[ch] src/*.[ch] ui/*.[ch] tools/*.[ch]
fi
awk -v max="$max" '
FNR == 1 { sigline = 0; inbody = 0 }
# A line at column 0 with a "(" and no ";" at its end: the first line of a
# definition (or of a prototype: forgotten at the next such line).
!inbody && /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0; sigline = FNR }
!inbody && /^\{/ && sigline { inbody = 1; open = FNR; next }
inbody && /^\}/ {
	s = sig; sub(/\(.*/, "", s); n = split(s, w, /[ \t*]+/)
	if (FNR - open - 1 > max)
		print FILENAME ":" sigline ": " w[n] " " FNR - open - 1
	inbody = 0; sigline = 0
}' "$@" | sort -t' ' -k3,3nr
exit 0
