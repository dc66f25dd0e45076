#!/bin/sh
# t_ui_narrow_header -- on a narrow screen the header keeps the trace's
# size (and the index's progress) whole, cutting the file's name in its
# middle instead; a message wider than the screen ends in an ellipsis
# where it is cut, never in a number cut short.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

name=a_trace_with_a_rather_long_file_name_0123456789.pt
"$GEN" --seed 2 --size 4MiB -o "$tmp/$name" >/dev/null || fail "ptgen"
tm_start -- --no-state "$tmp/$name"
wait_for "ptbrowse $name 4.0MiB"
tm resize-window -t ptb -x 40 -y 20
wait_for '^ ptbrowse a_trace_wi[a-z_]*…[0-9]*\.pt 4\.0MiB *$'
echo "ok   40 columns: the name is cut in its middle, the size whole"
tm resize-window -t ptb -x 24 -y 20
wait_for '^ a_trace[a-z_]*…[0-9]*\.pt 4\.0MiB *$'
echo "ok   24 columns: without 'ptbrowse', the size whole"

# 'goto: no such place' and the rest of a long message: cut, marked.
keys ":goto no-such-place-at-all" Enter
wait_for '…$'
last=$(screen | tail -n 1)
case $last in
goto:*…) ;;
*) fail "the message is not cut with an ellipsis: '$last'" ;;
esac
echo "ok   a message wider than the screen ends in '…' where it is cut"
tm resize-window -t ptb -x 120 -y 40
tm_quit
echo ok
