#!/bin/sh
# t_ui_shrink_idle -- a trace that shrinks while the browser is idle, every
# row on the screen cached, is taken up without a key, as a read past its
# end takes it up ("...; showing what is left", the marks of what is left):
# the idle look said only "changed on disk: the times and counts shown are
# stale; R reloads" (over a pending question, as t_ui_stream_names' delete
# question under a shrink found on a loaded machine), and the views went
# on showing bytes no longer there until some read faulted.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 3 --size 64KiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
tm_start -- "$tmp/t.pt"
wait_for '^ 0x0/0x10000 '
# The first rows only, decoded and cached; then the file loses its end.
sleep 1
truncate -s 16384 "$tmp/t.pt"
wait_for 'showing what is left' 5
wait_for '^ 0x0/0x4000 '
tm_quit
echo "ok   a trace shrunk while idle is taken up without a key"

# Not so a file emptied to be written again by a writer that pauses
# (the browser ended: "the file is now empty"), nor another trace being
# written over it ("showing what is left" of a file that is another):
# said, as before, until R.
"$GEN" --seed 4 --size 48KiB -o "$tmp/new.pt" >/dev/null || fail "ptgen new"
"$GEN" --seed 3 --size 64KiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
tm_start -- "$tmp/t.pt"
wait_for '^ 0x0/0x10000 '
sleep 1
sh -c "sleep 3; cat '$tmp/new.pt'" > "$tmp/t.pt" &
sleep 2
screen | grep -q 'EXITED' && fail "an emptied file ended the browser"
wait_for 't.pt changed on disk: the times and counts shown are stale; R reloads'
wait
"$GEN" --seed 3 --size 64KiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
keys R
wait_for 'reloaded'
sh -c "head -c 16384 '$tmp/new.pt'; sleep 3; tail -c +16385 '$tmp/new.pt'" > "$tmp/t.pt" &
sleep 2
screen | grep -q 'showing what is left' && fail "another trace written over it taken as what is left"
wait
tm_quit
echo "ok   a file emptied or written over by another is said, not taken up"
