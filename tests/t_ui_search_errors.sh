#!/bin/sh
# t_ui_search_errors -- 'bytes' and 'x:' find bytes inside error rows, as
# the packet pane shows them: a TSC cut by the end of the file (ptgen
# --truncate), the bytes after an unknown opcode in a corrupted trace (up
# to the next PSB), in a search, n/N, the count, and the filter view.
# Before, a bytes term never matched an error row: '/bytes 19 a0' said
# [1/7] on a file holding 19 a0 8 times, the 8th in the cut TSC.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0
fail() { echo "FAIL: $*"; status=1; }

run() {	# run TRACE KEYS...: the browser with that script
	t=$1
	shift
	printf '%s\n' "$@" q > "$tmp/keys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/keys" \
		--size 140x24 "$t" >"$tmp/out" 2>&1 || fail "exit status $? ($(cat "$tmp/out"))"
}
status_line() { tail -n 2 "$tmp/$1.txt" | head -n 1; }
count() { status_line "$1" | sed -n 's/.*\[[-0-9]*\/\([0-9+]*\)\].*/\1/p'; }
off() { status_line "$1" | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'; }
# how often hex bytes $2 occur in file $1 (no pattern crosses a line)
occurs() { od -An -v -tx1 -w1 "$1" | tr -d ' \n' | grep -o "$2" | wc -l; }

## A TSC cut by the end of the file.
"$gen" -S 1M --no-mtc --truncate -s 7 -o "$tmp/trunc.pt" > /dev/null || { echo "FAIL: ptgen"; exit 1; }
cut=$("$PTBROWSE" dump "$tmp/trunc.pt" | sed -n 's/^\[\([0-9a-f]*\): error decoding packet: truncated packet\]$/\1/p')
[ -n "$cut" ] || fail "dump shows no cut packet"
[ "$(od -An -tx1 -j $((0x$cut)) -N2 "$tmp/trunc.pt" | tr -d ' ')" = 19a0 ] ||
	fail "the cut packet at $cut is not a TSC"
want=$(occurs "$tmp/trunc.pt" 19a0)
run "$tmp/trunc.pt" wait-index \
	'/ b y t e s Space 1 9 Space a 0 Enter' wait-search ":save-screen $tmp/a1.txt" \
	'g g' '/ x : 1 9 Enter' wait-search ":save-screen $tmp/a2.txt" \
	N ":save-screen $tmp/a3.txt" \
	'g g' '/ x : 1 9 Space & Space ! e r r o r Enter' wait-search ":save-screen $tmp/a4.txt"
[ "$(count a1)" = "$want" ] || fail "/bytes 19 a0: $(count a1) hits, the file holds it $want times"
[ "$(count a2)" = $(($(count a4) + 1)) ] ||
	fail "/x:19: $(count a2) hits, not one more than outside error rows ($(count a4))"
[ "$(($(off a3)))" = "$((0x$cut))" ] || fail "N from the first x:19 went to $(off a3), not $cut"
# Without the index: the same.
printf '%s\n' '/ x : 1 9 a 0 Enter' wait-search ":save-screen $tmp/b1.txt" \
	N ":save-screen $tmp/b2.txt" q > "$tmp/keys"
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --no-index --script "$tmp/keys" \
	--size 140x24 "$tmp/trunc.pt" >"$tmp/out" 2>&1 || fail "--no-index: exit status $?"
[ "$(count b1)" = "$want" ] || fail "--no-index /x:19a0: $(count b1) hits, want $want"
[ "$(($(off b2)))" = "$((0x$cut))" ] || fail "--no-index N went to $(off b2), not $cut"

## An unknown opcode (05) in the middle of a trace, then bytes seen
## nowhere else: the error row runs to the next PSB, the pattern inside.
"$gen" -S 256K -s 5 -o "$tmp/c.pt" > /dev/null || fail "ptgen"
at=$("$PTBROWSE" dump "$tmp/c.pt" | awk '$2 == "tnt.8" && $1 >= "0000000000020000" { print $1; exit }')
[ -n "$at" ] || fail "no tnt.8 past 0x20000"
at=$(printf '%x' $((0x$at)))
printf '\005\314\376\355\372\316' |
	dd of="$tmp/c.pt" bs=1 seek=$((0x$at)) conv=notrunc 2>/dev/null
"$PTBROWSE" dump "$tmp/c.pt" | grep -q "^\[$at: error decoding packet: unknown opcode\]" ||
	fail "dump shows no unknown opcode at $at"
[ "$(occurs "$tmp/c.pt" feedface)" = 1 ] || fail "feedface is not unique"
run "$tmp/c.pt" wait-index \
	'/ x : f e e d f a c e Enter' wait-search ":save-screen $tmp/c1.txt" \
	'g g' '& b y t e s Space 0 5 Space c c Enter' ":save-screen $tmp/c2.txt"
[ "$(count c1)" = 1 ] || fail "/x:feedface: $(count c1) hits, want 1"
[ "$(($(off c1)))" = "$((0x$at))" ] || fail "/x:feedface at $(off c1), not the error row $at"
grep -q " 0x0*$at  *error  *unknown opcode" "$tmp/c2.txt" ||
	fail "the filter view '&bytes 05 cc' shows no error row at $at: $(cat "$tmp/c2.txt")"
exit $status
