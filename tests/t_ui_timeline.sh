#!/bin/sh
# t_ui_timeline -- what the timeline's marker row shows, in --script
# screens: a perf.data stream's sideband (',' a switch) placed on the byte
# axis once the index has the times, even when the row was drawn while
# the index had its segments but not yet their times; on the time axis a
# bookmark after 70 others (only the first 64 of the set were drawn);
# zoomed in on the time axis, a search's hits in most columns (the first
# hit of 64 slices of the whole trace were drawn: a dozen dots).
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C.UTF-8
unset TERM	# --script needs none
status=0
fail() { echo "FAIL: $*"; status=1; }

# A fresh state, config and cache (no index from a run before).
fresh() {
	rm -rf "$tmp/xdg"
	export XDG_CONFIG_HOME=$tmp/xdg/config XDG_STATE_HOME=$tmp/xdg/state \
		XDG_CACHE_HOME=$tmp/xdg/cache
}

# The marker row of screen $1: the line above the axis row's.
marker_row() {
	awk '/^0x0  +\+1MiB/ { print prev; exit } { prev = $0 }' "$1"
}

# An 8 MiB trace (its index takes long enough to be drawn while it is
# built) with a comm at its start and 19 pairs of switches along it.
"$BUILD/tools/ptgen" -S 8M -s 5 -o "$tmp/big.pt" || exit 1
T=$(printf '%d' 0x1078ca54cf68)	# just before its first TSC
{
	echo "# ptrecord sideband v1: times in TSC ticks"
	echo "comm 100 100 $T 1 server"
	k=1
	while [ $k -le 19 ]; do
		t=$((T + k * 6370992))
		if [ $((k % 2)) = 1 ]; then
			echo "switch 0 $t out 100 100 200 200 1"
			echo "switch 0 $t in 200 200 100 100 0"
		else
			echo "switch 0 $t out 200 200 100 100 1"
			echo "switch 0 $t in 100 100 200 200 0"
		fi
		k=$((k + 1))
	done
} >"$tmp/sb"
"$BUILD/tools/pt2perf" --sideband "$tmp/sb" --cpu 0 "$tmp/big.pt" -o "$tmp/sb.perf" \
	>/dev/null || exit 1

# 1. Many draws while the index is built (j and k, each drawn): one of
# them came after the segments, before their times, and the sideband's
# columns were kept from it, empty, once the times were there.
{
	echo t
	i=0
	while [ $i -lt 300 ]; do
		echo j
		echo k
		i=$((i + 1))
	done
	echo wait-index
	echo ":save-screen $tmp/sb.txt"
} >"$tmp/keys"
fresh
"$PTBROWSE" --script "$tmp/keys" --size 120x40 "$tmp/sb.perf" >"$tmp/out" 2>&1 ||
	fail "sideband: exit $? ($(cat "$tmp/out"))"
n=$(marker_row "$tmp/sb.txt" | tr -cd , | wc -c)
[ "$n" -ge 15 ] || { fail "sideband: $n switches on the marker row, not 19"; cat "$tmp/sb.txt"; }

# 2. 70 bookmarks from 1% to 70%, Zed at 95%: on the time axis Zed's '*'
# is in the last tenth of the row, where the byte axis has it.
"$BUILD/tools/ptgen" -S 256K -s 3 -o "$tmp/g.pt" >/dev/null || exit 1
{
	echo wait-index
	i=1
	while [ $i -le 70 ]; do
		echo ":goto $i%"
		echo ":mark m$i"
		i=$((i + 1))
	done
	echo ":goto 95%"
	echo ":mark Zed"
	echo ":goto 0"
	echo ":timeline-axis"
	echo ":save-screen $tmp/mb.txt"
	echo ":timeline-axis"
	echo ":save-screen $tmp/mt.txt"
} >"$tmp/keys"
fresh
"$PTBROWSE" --script "$tmp/keys" --size 120x40 "$tmp/g.pt" >"$tmp/out" 2>&1 ||
	fail "marks: exit $? ($(cat "$tmp/out"))"
for a in b t; do
	awk '/^0(x0| ns) / { print prev; exit } { prev = $0 }' "$tmp/m$a.txt" |
		cut -c 100-120 | grep -q '[*]' ||
		{ fail "marks: no '*' for Zed at 95% ($a)"; tail -n 6 "$tmp/m$a.txt"; }
done

# 3. :search tip hits 2616 of g.pt's packets; zoomed three
# times on the time axis around 90%, most of the 120 columns hold one.
cat >"$tmp/keys" <<EOF
wait-index
:search tip
wait-search
:goto 90%
:timeline-zoom in
:timeline-zoom in
:timeline-zoom in
:save-screen $tmp/hits.txt
EOF
fresh
"$PTBROWSE" --script "$tmp/keys" --size 120x40 "$tmp/g.pt" >"$tmp/out" 2>&1 ||
	fail "hits: exit $? ($(cat "$tmp/out"))"
n=$(awk '/^[0-9.]+ ms / { print prev; exit } { prev = $0 }' "$tmp/hits.txt" | grep -o '·' | wc -l)
[ "$n" -ge 60 ] || { fail "hits: $n dots on the zoomed time axis"; tail -n 6 "$tmp/hits.txt"; }

exit $status
