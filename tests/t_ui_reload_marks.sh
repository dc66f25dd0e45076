#!/bin/sh
# t_ui_reload_marks -- R keeps the marks that no file holds (--no-state,
# or a state directory that cannot be written), each on its own stream
# found by name: a perf.data that grew may number its streams anew (a new
# CPU's stream before the others), and a stream's kept marks went to
# whichever stream had its number; R on a file opened afresh dropped them.
# A file that only grew keeps them as they are; one rewritten keeps them
# with a warning, those past its new end said and not kept (on the
# message line, also when they are merged on a stream switch); one
# touched, or replaced by a copy, keeps them with no warning.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
P2P=$BUILD/tools/pt2perf
[ -x "$GEN" ] && [ -x "$P2P" ] || { echo "no $GEN or $P2P"; exit 1; }
tmp=$(mktemp -d)
# (marks a failed save could not keep go to a file in TMPDIR at exit)
export TMPDIR="$tmp"
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" -S 16K -s 1 -o "$tmp/a.bin" >/dev/null || fail "ptgen"
"$GEN" -S 16K -s 2 -o "$tmp/b.bin" >/dev/null || fail "ptgen"
"$GEN" -S 16K -s 3 -o "$tmp/c.bin" >/dev/null || fail "ptgen"
# Pipe-mode perf.data files: streams cpu0 and cpu3; the same grown by
# cpu1's AUXTRACE record (48 bytes and the data) appended; and written
# again with cpu1 among them (their records interleaved: rewritten).
"$P2P" --cpu 0 "$tmp/a.bin" --cpu 3 "$tmp/b.bin" -o "$tmp/base.data" >/dev/null || fail "pt2perf"
"$P2P" --cpu 1 "$tmp/c.bin" -o "$tmp/one.data" >/dev/null || fail "pt2perf"
tail -c $(($(wc -c <"$tmp/c.bin") + 48)) "$tmp/one.data" >"$tmp/cpu1.rec"
cat "$tmp/base.data" "$tmp/cpu1.rec" >"$tmp/grown.data"
"$P2P" --cpu 0 "$tmp/a.bin" --cpu 1 "$tmp/c.bin" --cpu 3 "$tmp/b.bin" \
	-o "$tmp/three.data" >/dev/null || fail "pt2perf"

# 1. Marks on cpu3 (left) and cpu0 (shown); the file grows with a new
# stream cpu1 before cpu3; R; each stream's marks are its own.  With
# --no-state, with a state directory that cannot be made (every save
# fails), and saved.
: >"$tmp/statefile"
for o in --no-state unsaved saved; do
	cp "$tmp/base.data" "$tmp/t.data"
	rm -rf "$tmp/state"
	if [ $o = unsaved ]; then
		tm_start XDG_STATE_HOME="$tmp/statefile" -- "$tmp/t.data"
	elif [ $o = saved ]; then
		tm_start -- "$tmp/t.data"
	else
		tm_start -- --no-state "$tmp/t.data"
	fi
	stream cpu3
	keys j m c j j m d
	stream cpu0
	keys m a
	cat "$tmp/cpu1.rec" >>"$tmp/t.data"
	keys R
	wait_for 'reloaded: [0-9]+ new bytes'
	marks_has 'marks and regions: 1 ' 'mark +a '
	stream cpu3
	marks_has 'marks and regions: 2 ' 'mark +c ' 'mark +d '
	stream cpu1
	marks_has 'marks and regions: 0 '
	# (marks not saved at the end: status 1)
	keys q
	wait_for 'EXITED rc=[01]'
done

# 2. Shown on cpu3 when the file grows with cpu1 before it: R stays on
# cpu3 (the stream numbered 1 before is cpu1 now) with its marks.
cp "$tmp/base.data" "$tmp/t.data"
tm_start -- --no-state "$tmp/t.data"
stream cpu3
keys j m c
cat "$tmp/cpu1.rec" >>"$tmp/t.data"
keys R
wait_for 'reloaded: [0-9]+ new bytes'
keys : streams Enter
wait_for 'streams of '
# (the title can be read before the rows are drawn: wait for one)
wait_for ' \(current\)'
grep -Eq 'cpu3 .*\(current\)' "$tmp/screen" || fail "after R the stream shown is not cpu3"
keys q
marks_has 'mark +c '
tm_quit

# 3. Rewritten in place with cpu1 among the streams (not only grown):
# the marks of cpu0 (shown) and cpu3 are kept, with a warning.
cp "$tmp/base.data" "$tmp/t.data"
tm_start -- --no-state "$tmp/t.data"
stream cpu3
keys j m c
stream cpu0
keys m a
cat "$tmp/three.data" >"$tmp/t.data"
keys R
wait_for 'may mark other bytes'
messages_have 'reloaded: the file was rewritten'
marks_has 'mark +a '
stream cpu3
marks_has 'mark +c '
stream cpu1
marks_has 'marks and regions: 0 '
tm_quit

# 4. A raw trace: grown in place, a mark past the old end can be set;
# replaced (mv) by a copy that grew, the marks stay (no warning);
# rewritten shorter, a mark past the new end is said and not kept.
cp "$tmp/a.bin" "$tmp/t.pt"
tm_start -- --no-state "$tmp/t.pt"
keys m a
cat "$tmp/b.bin" >>"$tmp/t.pt"
keys R
wait_for 'reloaded: [0-9]+ new bytes'
keys G
sleep 0.3
keys m z
marks_has 'marks and regions: 2 '
cat "$tmp/t.pt" "$tmp/c.bin" >"$tmp/new.pt"
mv "$tmp/new.pt" "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was replaced'
marks_has 'marks and regions: 2 '
keys : messages Enter
wait_for 'reloaded: the file was replaced'
grep -q 'may mark other bytes' "$tmp/screen" && fail "a trace that only grew: warned"
keys q
cat "$tmp/c.bin" >"$tmp/t.pt"
keys R
wait_for 'mark z at 0x[0-9a-f]+ is past the end .*not kept'
messages_have 'reloaded: the file was rewritten'
messages_have 'may mark other bytes'
marks_has 'marks and regions: 1 ' 'mark +a '
tm_quit

# 5. The marks of a stream left, merged into the file rewritten when the
# stream is shown again: what is not kept is what the message line says
# (the stream's size hid it, said only in :messages).
"$GEN" -S 8K -s 4 -o "$tmp/d.bin" >/dev/null || fail "ptgen"
"$P2P" --cpu 0 "$tmp/a.bin" --cpu 3 "$tmp/d.bin" -o "$tmp/short3.data" >/dev/null ||
	fail "pt2perf"
cp "$tmp/base.data" "$tmp/t.data"
rm -rf "$tmp/state"
tm_start -- --no-state "$tmp/t.data"
stream cpu3
keys G
wait_for '^ 0x3fff/0x4000 '
keys m z
stream cpu0
cat "$tmp/short3.data" >"$tmp/t.data"
keys R
wait_for 'reloaded: the file was rewritten'
stream cpu3
screen | tail -n 1 | grep -Eq 'mark z at 0x3fff is past the end .*not kept' ||
	fail "the marks not kept are not on the message line: $(screen | tail -n 1)"
tm_quit

# 6. A file touched, or replaced by a copy of it: the content is the same,
# the marks in memory stay with no warning that they may mark other bytes.
cp "$tmp/a.bin" "$tmp/t.pt"
tm_start -- --no-state "$tmp/t.pt"
keys m a
touch -d 2020-01-01 "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was rewritten'
cp "$tmp/t.pt" "$tmp/copy.pt"
mv "$tmp/copy.pt" "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was replaced'
marks_has 'marks and regions: 1 ' 'mark +a '
keys : messages Enter
wait_for 'reloaded: the file was replaced'
grep -q 'may mark other bytes' "$tmp/screen" && fail "the same content: warned"
keys q
tm_quit
echo "ok   R keeps each stream's unsaved marks, by name, grown or rewritten"
