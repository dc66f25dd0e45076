#!/bin/sh
# t_ui_tl_zero -- on the timeline offset 0x0 is a place and the trace's
# first rows have a time (their PSB+'s TSC), and the trace's last row has
# a column: 0 meant "unknown" for both.  g after a zoom moves the view to
# the start (it stayed put, the cursor's '┃' drawn in column 0 of another
# span); z at 0x0 zooms around the cursor, not the middle; t carries a
# zoom into the first segment to the other axis and back; a mark at 0x0
# shows on the time axis; the viewport of a perf.data stream at 0x0 sits
# where its trace begins, not from column 0; at the closest zoom on the
# last row the cursor has a column; a click on the time axis before the
# index knows the times (--no-index) jumps there.  Headless (--script).
set -u
BUILD=${BUILD:-build}
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
SHARED=${SHARED:-../shared}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LC_ALL=C.UTF-8
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$BUILD/tools/ptgen" -S 4M -s 5 -o "$tmp/s.pt" >/dev/null || exit 1
"$BUILD/tools/ptgen" -S 3000 -s 5 --psb-period 100000 -o "$tmp/one.pt" >/dev/null || exit 1

s() { echo ":save-screen $tmp/$1.txt"; }
# Screen $1's axis row (the last ending "span ..."), the marker row above.
axis() { grep ' span ' "$tmp/$1.txt" | tail -n 1; }
markers() { grep -B1 ' span ' "$tmp/$1.txt" | tail -n 2 | head -n 1; }
# The axis's first label ("0 ns", "0x0").
start() { axis "$1" | awk '{ print $1 ($2 ~ /^[a-z]+$/ ? " " $2 : "") }'; }
# The column of the cursor's '┃' on the marker row, -1 if none.
col() {
	m=$(markers "$1")
	case $m in *┃*) printf '%s' "${m%%┃*}" | wc -m | tr -d ' ' ;; *) echo -1 ;; esac
}
run() {
	f=$1
	shift
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$@" "$f" >"$tmp/out" 2>&1 ||
		bad "exit status $? ($(cat "$tmp/out"))"
}
want_start() {
	[ "$(start "$1")" = "$2" ] || bad "$1: the view starts at '$(start "$1")', not $2"
}

{
	echo wait-index
	# z at 0x0 (where the browser opens): around the cursor
	echo z; echo z; echo z; s zstart
	echo ":zoom all"
	echo 50p; echo z; echo z; echo z; echo g; s gtime
	echo ":zoom all"
	echo t; echo G; echo z; echo z; echo z; echo g; s gbytes
	echo ":zoom all"
	echo z; s zbytes
	echo ":zoom all"
	echo t
	# a zoom in segment 0 carried to the byte axis and back
	echo 100j; echo z; echo z; echo z; echo z; echo t; s tbytes
	echo t; s ttime
	echo ":zoom all"
	echo g; echo m; echo a
	echo ":goto psb 700"; echo m; echo b; s marks
} >"$tmp/keys"
run "$tmp/s.pt" $(cat "$tmp/s.pt.options")
want_start zstart "0 ns"
[ "$(col zstart)" = 0 ] || bad "zstart: cursor in column $(col zstart), not 0"
want_start gtime "0 ns"
[ "$(col gtime)" = 0 ] || bad "gtime: cursor in column $(col gtime), not 0"
want_start gbytes 0x0
want_start zbytes 0x0
[ "$(col gbytes)" = 0 ] || bad "gbytes: cursor in column $(col gbytes), not 0"
case $(axis tbytes) in *" of "*) ;; *) bad "t dropped the zoom: $(axis tbytes)" ;; esac
case $(axis ttime) in *" of "*) ;; *) bad "t t dropped the zoom: $(axis ttime)" ;; esac
case $(markers marks) in a*b*) ;; *) bad "mark a at 0x0 not in column 0: '$(markers marks)'" ;; esac

# the last row at the closest zoom: the cursor in the last column
{
	echo wait-index
	echo G
	i=0
	while [ $i -lt 16 ]; do echo z; i=$((i + 1)); done
	s last
} >"$tmp/keys"
run "$tmp/one.pt" $(cat "$tmp/one.pt.options")
[ "$(col last)" = 99 ] || bad "last row at the closest zoom: cursor in column $(col last), not 99"

# no index: a click still jumps (by the rows' times)
{
	echo click=70; s noidx
} >"$tmp/keys"
run "$tmp/s.pt" --no-index $(cat "$tmp/s.pt.options")
[ "$(col noidx)" = 70 ] || bad "--no-index click=70: cursor in column $(col noidx)"

# perf.data: stream cpu0 begins late in the recording; at its 0x0 the
# viewport is that column, with the cursor (it reached from column 0)
pd=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14
if [ -f "$pd" ]; then
	{
		echo wait-index; s perf
	} >"$tmp/keys"
	run "$pd" --stream cpu0
	c=$(col perf)
	[ "$c" -gt 60 ] || bad "perf.data cpu0 at 0x0: cursor in column $c, not where its trace begins"
	case $(markers perf) in *▕*) bad "perf.data cpu0 at 0x0: a viewport from column 0: '$(markers perf)'" ;; esac
else
	echo "(no $pd: the perf.data check skipped)"
fi
[ $fail = 0 ] && echo "ok   offset 0x0 and the first and last rows have their places on the timeline"
exit $fail
