#!/bin/sh
# t_style -- no function in decoder/, src/, ui/ or tools/ has a body over
# 100 lines (STYLE.md), except the ones listed below with the reason: a
# switch that is a table (one short case per packet or event kind), or a
# long function not split yet (its debt named, so the list only shrinks).
# tools/longfuncs.sh measures; a function over the limit that is not listed
# fails, and a listed one now within it is reported so its line goes.
# It first proves on a made-up file that a long function is caught.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

# FILE FUNCTION REASON
allow='
decoder/pkt.c decode_ext table: the extended opcode switch, a case per packet
decoder/flow.c i_event table: a switch over event kinds, a short case each
decoder/flow_pkt.c q_decode table: a switch over queued packet kinds
src/perfdata.c perfdata_walk_records table: a switch over perf record types
tools/ptgen.c parse_args table: the getopt switch, a case per option
'

# The measure works: a 101-line body is caught, a 100-line one is not.
{
	printf 'static int long_one(int a)\n{\n'
	i=0; while [ $i -lt 101 ]; do echo '	a++;'; i=$((i + 1)); done
	printf '}\n\nint\nshort_one(int a,\n\t  int b)\n{\n'
	i=0; while [ $i -lt 100 ]; do echo '	a++;'; i=$((i + 1)); done
	printf '}\n'
} >"$tmp/x.c"
out=$(sh tools/longfuncs.sh "$tmp/x.c")
case $out in
"$tmp/x.c:1: long_one 101") ;;
*) echo "FAIL: tools/longfuncs.sh on a made-up file said: $out"; fail=1 ;;
esac

sh tools/longfuncs.sh >"$tmp/long"
while read -r loc name n; do
	f=${loc%%:*}
	if printf '%s\n' "$allow" | grep -q "^$f $name "; then
		echo "     $loc $name: $n lines (listed)"
	else
		echo "FAIL: $loc $name: $n lines, over 100 (split it, or list a table-like switch here with why)"
		fail=1
	fi
done <"$tmp/long"
printf '%s\n' "$allow" | while read -r f name why; do
	[ -n "$f" ] || continue
	grep -q "^$f:[0-9]*: $name " "$tmp/long" ||
		echo "note: $f $name is within 100 lines now: take its line out of t_style.sh"
done
[ $fail = 0 ] && echo "ok   no unlisted function over 100 lines"
exit $fail
