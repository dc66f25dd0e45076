#!/bin/sh
# t_ui_packet_cut -- a packet pane row wider than the pane is cut before a
# word with "…" (ASCII ">"), never inside a number, at 120x40, 80x24,
# 40x10, 30x10 and 20x6: a tnt.64's bits end in "…+N" (the N bits left
# out), an IP is whole or left out, an error row's byte count comes first.
# Before, the pane's edge cut them silently: 38 of a tnt.64's 47 bits at
# 120x40, "fup 3: 00005555555" at 40x10, "unknown opcode: 1161" for
# 116147 bytes skipped at 80x24.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
sizes="120x40 80x24 40x10 30x10 20x6"

# shots TRACE OFFSET [OPTION...]: the screen at OFFSET, at every size
shots() {
	t=$1 at=$2
	shift 2
	{
		echo wait-index
		echo ":goto 0x$at"
		for s in $sizes; do
			echo "resize=$s"
			echo ":save-screen $tmp/s-$s.txt"
		done
		echo q
	} > "$tmp/keys"
	"$PTBROWSE" --no-state "$@" --script "$tmp/keys" --size 120x40 "$t" \
		> "$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
}
# rows SIZE: the packet pane's rows past the gutter, without the cycle pane
rows() { sed -n '2,$s/^...\(0x[0-9a-f]\{8,\}  .*\)/\1/p' "$tmp/s-$1.txt" | sed 's/ *[│|].*//'; }
# row SIZE OFFSET: the row of the packet at OFFSET
row() { rows "$1" | grep "^0x0*$2 "; }

## TNT: every bit is shown, or the bits left out are counted.
"$gen" -S 1M --mix tnt -o "$tmp/tnt.pt" > /dev/null || { echo "FAIL: ptgen"; exit 1; }
tnt=$("$PTBROWSE" dump "$tmp/tnt.pt" | awk '$2 == "tnt.64" && length($3) > 40 { print $1, $3; exit }')
[ -n "$tnt" ] || fail "no tnt.64 with more than 40 bits"
at=$(printf '%x' $((0x${tnt% *})))
bits=${tnt#* }
for ell in … '>'; do
	opt=
	[ "$ell" = '>' ] && opt=--ascii
	shots "$tmp/tnt.pt" "$at" $opt
	for s in $sizes; do
		r=$(row "$s" "$at")
		[ -n "$r" ] || { fail "$s $opt: no row at $at"; continue; }
		p=$(printf '%s\n' "$r" | sed -n 's/^0x[0-9a-f]*  *tnt\.64  *//p')
		[ -n "$p" ] || p=$r	# the type left out too
		shown=$(printf '%s\n' "$p" | sed 's/[^!.].*//')
		rest=${p#"$shown"}
		case $rest in
		'') [ "$shown" = "$bits" ] || fail "$s $opt: bits '$shown', not '$bits'" ;;
		"$ell+"*[!0-9]*) fail "$s $opt: '$r'" ;;
		"$ell+"[0-9]*)
			[ $((${#shown} + ${rest#"$ell+"})) = ${#bits} ] &&
			case $bits in "$shown"*) true ;; *) false ;; esac ||
				fail "$s $opt: '$r' for the ${#bits} bits $bits" ;;
		*) case $r in *"$ell") ;; *) fail "$s $opt: '$r' cut with no mark" ;; esac ;;
		esac
	done
	grep -q "$ell+" "$tmp/s-120x40.txt" || fail "120x40 $opt: no '$ell+' (all ${#bits} bits fit?)"
	if [ -n "$opt" ] && LC_ALL=C grep -q '[^ -~]' "$tmp"/s-*.txt; then
		fail "--ascii screens hold non-ASCII bytes"
	fi
done

## IPs: 16 hex digits, or none, at every size.
"$gen" -S 1M -o "$tmp/ip.pt" > /dev/null || fail "ptgen"
ip=$("$PTBROWSE" dump "$tmp/ip.pt" | awk '$2 == "fup" || $2 ~ /^tip/ { print $1; exit }')
shots "$tmp/ip.pt" "$(printf '%x' $((0x$ip)))"
for s in $sizes; do
	rows "$s" > "$tmp/rows"
	grep -Eq '^0x[0-9a-f]+  +(fup|tip)' "$tmp/rows" || fail "$s: no fup or tip row"
	# past the offset, a hex run (an IP or the last IP) is 16 digits
	if grep -E '^0x[0-9a-f]+  +(fup|tip)' "$tmp/rows" | sed 's/^0x[0-9a-f]*//' |
		tr ' ' '\n' | grep -Eq '^[0-9a-f?]{1,15}$|^[0-9a-f?]{17,}$'; then
		fail "$s: an IP cut: $(grep -E '(fup|tip)' "$tmp/rows" | head -n 3)"
	fi
done

## An error row: the count of bytes skipped whole, or left out.
"$gen" -S 4M --psb-period 200000 --corrupt-rate 0.000005 -s 3 -o "$tmp/bad.pt" > /dev/null ||
	fail "ptgen"
set -- $("$PTBROWSE" dump "$tmp/bad.pt" |
	awk '/^\[[0-9a-f]*: error decoding packet/ { e = substr($1, 2, length($1) - 2); next }
	     e != "" { print e, $1; exit }')
[ $# = 2 ] || fail "no error row in bad.pt"
at=$(printf '%x' $((0x$1)))
n=$((0x$2 - 0x$1))
shots "$tmp/bad.pt" "$at"
for s in $sizes; do
	r=$(row "$s" "$at")
	case $r in
	*" $n bytes"* | *" "…) ;;
	*) fail "$s: error row '$r' (the count is $n)" ;;
	esac
	# no other number: a cut one would read as the count
	printf '%s\n' "$r" | tr ' :' '\n\n' | grep -E '^[0-9]+$' | grep -vqx "$n" &&
		fail "$s: error row '$r' shows a number that is not $n"
done
grep -q " $n bytes" "$tmp/s-80x24.txt" || fail "80x24: no '$n bytes'"
[ $status = 0 ] && echo ok
exit $status
