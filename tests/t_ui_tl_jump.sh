#!/bin/sh
# t_ui_tl_jump -- a jump by the time axis lands in the column clicked:
# in a trace of one PSB (one index segment of 4 MiB) a click at column 50
# or 90, and l five times from column 0, put the cursor ('┃' on the
# marker row) in that column; zoomed into a trace with PSBs every 64 KiB,
# a click at column 90 or 10 too.  The walk from the segment's start
# stopped after 16384 rows, at ~260 us (column 0).  Headless (--script).
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" -S 4M --psb-period 100000000 -s 5 -o "$tmp/long.pt" >/dev/null || exit 1
"$BUILD/tools/ptgen" -S 8M --psb-period 65536 -s 9 -o "$tmp/p64.pt" >/dev/null || exit 1

s() { echo ":save-screen $tmp/$1.txt"; }
# The column of the cursor's '┃' on screen $1's marker row (the row above
# the axis, which ends with "span ..."), -1 if none.
col() {
	m=$(grep -B1 ' span ' "$tmp/$1.txt" | head -n 1)
	case $m in *┃*) printf '%s' "${m%%┃*}" | wc -m | tr -d ' ' ;; *) echo -1 ;; esac
}
run() {
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$1" >"$tmp/out" 2>&1 ||
		bad "exit status $? ($(cat "$tmp/out"))"
}
want() {
	[ "$(col "$1")" = "$2" ] || bad "$1: cursor in column $(col "$1"), not $2"
}

{
	echo wait-index
	echo click=50; s c50
	echo click=90; s c90
	echo click=0
	echo Tab; echo Tab
	echo l; echo l; echo l; echo l; echo l; s l5
} >"$tmp/keys"
run "$tmp/long.pt"
want c50 50
want c90 90
want l5 5

{
	echo wait-index
	echo 50p
	echo z; echo z; echo z; echo z; echo z; echo z
	echo click=90; s z90
	echo click=10; s z10
} >"$tmp/keys"
run "$tmp/p64.pt"
want z90 90
want z10 10
[ $fail = 0 ] && echo "ok   a jump by the time axis lands in the column clicked"
exit $fail
