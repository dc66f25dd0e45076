#!/bin/sh
# t_ui_marks_warn -- a save that finds the marks file edited meanwhile with
# a bad line sets it aside as .bad and merges its good lines; the change's
# own message says so too (it replaced the warning: the user never saw
# that a file they edited was moved).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 2 --size 256KiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
tm_start -- "$tmp/t.pt"
keys : 'mark one' Enter
wait_for 'one at 0x0'
f=$(ls "$tmp"/state/ptbrowse/traces/*.marks 2>/dev/null | head -n 1)
[ -f "$f" ] || fail "no marks file under $tmp/state"
# a hand edit while the browser is open: a good line and a bad one
sleep 1.1	# (another second: the file's time tells it changed)
printf 'bookmark handmade 0x100\nmark 7\n' >>"$f"
keys : 'mark two' Enter
wait_for 'two at 0x0; .*: line 5 bad'
messages_have 'merged \(1 added\)'
[ -f "$f.bad" ] || fail "no $f.bad"
grep -q 'handmade' "$f" || fail "the hand edit's good line was not merged: $(cat "$f")"
tm_quit
echo "ok   a save that sets a hand-edited marks file aside says so with the change's message"
