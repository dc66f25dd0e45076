#!/bin/sh
# t_ui_tlcols_index -- while the index is built, the time axis's columns
# past the segments summarised so far are unknown ('·', as on the byte
# axis), not drawn with segment 0's density and trouble: with more than
# 2048 segments (sampled columns) a time past the summaries was looked up
# as segment 0, so every column looked known from the first summary on.
# --script screens in pairs while the index runs: the time axis, then the
# byte axis; where the byte axis (drawn later, so knowing as much or
# more) still has its last column unknown, so must the time axis.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C.UTF-8
unset TERM	# --script needs none
status=0
fail() { echo "FAIL: $*"; status=1; }

# Screen $1's axis row (it ends with "span ...") and density row (two
# above it).
axis() { awk '/ span [0-9]/ { print; exit }' "$1"; }
density() { awk '/ span [0-9]/ { print p2; exit } { p2 = p1; p1 = $0 }' "$1"; }
last() { density "$1" | sed 's/.*\(.\)$/\1/'; }

# try SIZE: one run from a fresh cache over a trace of SIZE with 4 KiB
# segments; counts the pairs caught half summarised in $caught.
try() {
	rm -rf "$tmp/xdg" "$tmp"/s*.txt
	export XDG_CONFIG_HOME=$tmp/xdg/config XDG_STATE_HOME=$tmp/xdg/state \
		XDG_CACHE_HOME=$tmp/xdg/cache
	"$PTGEN" -S "$1" -s 7 -o "$tmp/t.pt" >/dev/null || exit 1
	i=0
	{
		while [ $i -lt 200 ]; do
			echo ":save-screen $tmp/s$i-t.txt"
			echo ":timeline-axis"
			echo ":save-screen $tmp/s$i-b.txt"
			echo ":timeline-axis"
			echo j
			echo k
			echo j
			echo k
			i=$((i + 1))
		done
	} >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 80x30 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
		fail "exit $? ($(cat "$tmp/out"))"
	i=0
	while [ $i -lt 200 ]; do
		t=$tmp/s$i-t.txt b=$tmp/s$i-b.txt
		i=$((i + 1))
		# the byte axis knows its start but not its end yet
		axis "$b" | grep -q '^0x0 ' || continue
		axis "$t" | grep -q '^0x' && continue
		[ "$(last "$b")" = "·" ] || continue
		[ "$(density "$b" | cut -c1)" = "·" ] && continue
		caught=$((caught + 1))
		[ "$(last "$t")" = "·" ] || {
			fail "screen $i: the time axis's last column known, the byte axis's not:"
			density "$t"
			density "$b"
		}
	done
}

caught=0
try 64M
[ "$caught" -gt 0 ] || try 256M
[ "$caught" -gt 0 ] || fail "no screen caught the index half done"
exit $status
