#!/bin/sh
# t_ui_visual_count -- in visual mode the message line follows the keys:
# while a count is typed it shows the count (v 5: the selection's note hid
# it), and after the count's move it names the new selection (v 5 j kept
# "0x0-0x10 (16 bytes)" of before the 5, the cursor at 0x23: the key that
# ends a sequence did not clear the line).  A message stays until the next
# key.  Headless (--script).
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

"$BUILD/tools/ptgen" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || exit 1
s() { echo ":save-screen $tmp/$1.txt"; }
{
	echo v; echo 5; s count
	echo j; s moved
	echo 1; echo 2; s count2
	echo k; s back
	echo Escape
	echo "{"; s warn
	echo 5; s count3
} >"$tmp/keys"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 120x12 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "exit status $? ($(cat "$tmp/out"))"

last() { tail -n 1 "$tmp/$1.txt" 2>/dev/null | sed 's/ *$//'; }
[ "$(last count)" = 5 ] || bad "v 5: '$(last count)', not 5"
last moved | grep -q '^-- VISUAL -- 0x0-0x2b (43 bytes)' ||
	bad "v 5 j (cursor at 0x23): '$(last moved)'"
[ "$(last count2)" = 12 ] || bad "1 2: '$(last count2)', not 12"
last back | grep -q '^-- VISUAL -- 0x0-0x10 (16 bytes)' ||
	bad "1 2 k (cursor back at 0x0): '$(last back)'"
[ "$(last warn)" = "no earlier PSB" ] || bad "{ at the start: '$(last warn)'"
[ "$(last count3)" = 5 ] || bad "5 after a warning: '$(last count3)', not 5"
[ $fail = 0 ] && echo "ok   in visual mode the message line shows the count, then the new selection"
exit $fail
