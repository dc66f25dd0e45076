#!/bin/sh
# t_ui_tlcols_trouble -- the timeline's '!' (OVFs, errors) in the column
# where the trouble is, not in every column its PSB segment covers: in
# --script screens of traces whose segments span many columns, one OVF
# in a 4 MiB segment made all 100 columns '!' (and the density row red),
# on both axes.  The walk goes a few ms a drawing (the rest is a '?'
# meanwhile: t_ui_tlcols_walk), so each screen here comes after 300
# redraws (j), enough to walk these traces.
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
PTGEN=${PTGEN:-$BUILD/tools/ptgen}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C.UTF-8
unset TERM	# --script needs none
export XDG_CONFIG_HOME=$tmp/xdg/config XDG_STATE_HOME=$tmp/xdg/state \
	XDG_CACHE_HOME=$tmp/xdg/cache
status=0
fail() { echo "FAIL: $*"; status=1; }

# Screen $1's marker row (the line above the axis row, which ends with
# "span ..."), every cell but '!' as '.'.
marks() {
	awk '/ span [0-9]/ { print prev; exit } { prev = $0 }' "$1" | sed 's/[^!]/./g'
}

# run TRACE NAME SCRIPT-LINES...: wait for the index, run the lines, save
# the screen (100x30) as $tmp/NAME.txt.
run() {
	tr=$1 name=$2
	shift 2
	{
		echo wait-index
		for l in "$@"; do echo "$l"; done
		i=0
		while [ $i -lt 30 ]; do
			echo j j j j j j j j j j
			i=$((i + 1))
		done
		echo ":save-screen $tmp/$name.txt"
	} >"$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$tmp/$tr" \
		>"$tmp/out" 2>&1 || fail "$name: exit $? ($(cat "$tmp/out"))"
}

# check NAME MAX COLUMNS...: at most MAX '!' on NAME's marker row, and
# one at each (0-based) column given.
check() {
	name=$1 max=$2
	shift 2
	row=$(marks "$tmp/$name.txt")
	n=$(printf '%s' "$row" | tr -cd '!' | wc -c)
	[ "$n" -ge 1 ] && [ "$n" -le "$max" ] || fail "$name: $n '!' (1 to $max): $row"
	for c in "$@"; do
		[ "$(printf '%s' "$row" | cut -c $((c + 1)))" = "!" ] ||
			fail "$name: no '!' in column $c: $row"
	done
}

# One PSB and one OVF, at 0x108710 (a quarter in).
"$PTGEN" -S 4M --psb-period 100000000 -s 5 -o "$tmp/one.pt" >/dev/null || exit 1
run one.pt one-time
check one-time 1
run one.pt one-bytes :timeline-axis
check one-bytes 1
# zoomed to 0x100000..0x200000 (above the range binned row by row): the
# walk starts at the view, and the OVF is in column 3 (0x8710 of 1 MiB)
run one.pt one-zoom :timeline-axis ":zoom 0x100000 0x200000"
check one-zoom 1 3

# One PSB, 1 MiB, ten OVFs: the first two, at 0x9738 and 0x4080d, in
# columns 3 and 25 of the byte axis; the rest may share one column.
"$PTGEN" -S 1M --psb-period 100000000 --ovf-rate 0.0001 -s 3 -o "$tmp/ten.pt" >/dev/null ||
	exit 1
run ten.pt ten-bytes :timeline-axis
check ten-bytes 10 3 25
run ten.pt ten-time
check ten-time 10

# Segments of 300000 bytes, two decode errors (0x242fb, 0x1a97b0): the
# first in column 7 of 2 MiB, the second in 83.
"$PTGEN" -S 2M --psb-period 300000 --corrupt-rate 0.000005 -s 4 -o "$tmp/err.pt" \
	>/dev/null || exit 1
run err.pt err-bytes :timeline-axis
check err-bytes 2 7 83
run err.pt err-time
check err-time 2

exit $status
