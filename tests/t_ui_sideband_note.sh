#!/bin/sh
# t_ui_sideband_note -- the message line's sideband note names the event
# near the cursor, so it goes when a jump leaves it: a count's jump (5 0 %,
# 9 9 }) and a mark's (' b) end a key sequence, whose last key does not clear
# the line, and the note of the comm left behind stayed at 50%.  While a
# count is typed the line shows it, not the note; a command's warning
# stays until the next key.  Headless (--script) on a perf.data with one
# comm, 125 ns (at 1.2 GHz) after the trace's first TSC.
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

"$BUILD/tools/ptgen" -S 1M -s 5 -o "$tmp/g.pt" >/dev/null || exit 1
{
	echo "# ptrecord sideband v1: times in TSC ticks"
	echo "comm 100 100 $(printf '%d' 0x1078ca54d000) 1 server"
} >"$tmp/sb"
"$BUILD/tools/pt2perf" --sideband "$tmp/sb" --cpu 0 "$tmp/g.pt" -o "$tmp/g.perf" \
	>/dev/null || exit 1

# Screen N: save-screen to $tmp/N.txt.
s() { echo ":save-screen $tmp/$1.txt"; }
{
	echo wait-index
	echo ":goto 0x40"; s near
	echo 5; echo 0; s count
	echo %; s pct
	echo ":goto 0x40"; s near2
	echo 9; echo 9; echo "}"; s psb
	echo m; echo b
	echo ":goto 0x40"; echo m; echo a
	echo "'"; echo b; s markb
	echo "'"; echo a; s marka
	echo g; echo "{"; s warn
} >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x40 "$tmp/g.perf" >"$tmp/out" 2>&1 ||
	bad "exit status $? ($(cat "$tmp/out"))"

NOTE='^sideband: comm pid 100 tid 100 server at 125 ns'
last() { tail -n 1 "$tmp/$1.txt" 2>/dev/null | sed 's/ *$//'; }
for n in near near2 marka; do
	last $n | grep -q "$NOTE" || bad "$n: no note of the comm: '$(last $n)'"
done
[ "$(last count)" = 50 ] || bad "typing a count: '$(last count)', not 50"
for n in pct psb markb; do
	last $n | grep -q '^sideband' && bad "$n: the note of the place left: '$(last $n)'"
done
grep -q ' 50\.0% ' "$tmp/pct.txt" || bad "5 0 %: not at 50%"
[ "$(last warn)" = "no earlier PSB" ] || bad "{ at the start: '$(last warn)'"
[ $fail = 0 ] && echo "ok   the sideband note goes with the place it names"
exit $fail
