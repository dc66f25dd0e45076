#!/bin/sh
# t_ui_stream_names -- the stream shown, and each stream's marks, go by
# the stream's name when a perf.data changes under the browser.
#  1. It shrank (a read of the lost part raised SIGBUS): the stream shown
#     is found again by name.  It was kept by number: with cpu1 gone,
#     cpu3 (numbered 2) ended the browser ("the stream is gone"), and cpu1
#     shown crashed it (the code context read the streams freed); now
#     cpu3 stays, and cpu1 gone is said and cpu0 shown, its marks kept in
#     memory until it is back.
#  2. It grew with a new CPU numbered first: the first stream's saved
#     marks were in a file that named no stream and went to the new one
#     (cpu0 showed cpu1's mark, saved it as its own; cpu1 had none).
#  3. A raw trace shrank while shown and got its tail back (R): the
#     marks saved for it whole (a) and those set while it was shorter (b,
#     saved for the shorter content) are both shown after R and after a
#     restart, each once, with no message on the second start; the
#     shorter content's file is left as it was.  After R only b showed,
#     after a restart only a (b sat unseen in the shorter one's file).
#  4. The trace shrinks under the marks list while "delete ...? (y/n)"
#     waits: the marks shown become those of what is left, and y deleted
#     whichever entry had the row asked about.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
P2P=$BUILD/tools/pt2perf
[ -x "$GEN" ] && [ -x "$P2P" ] || { echo "no $GEN or $P2P"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" -S 16K -s 1 -o "$tmp/a.bin" >/dev/null || fail "ptgen"
"$GEN" -S 16K -s 2 -o "$tmp/b.bin" >/dev/null || fail "ptgen"
"$GEN" -S 16K -s 3 -o "$tmp/c.bin" >/dev/null || fail "ptgen"
# Streams cpu0 and cpu3, and cpu1's AUXTRACE record (48 bytes and the
# data) to append; streams cpu1 and cpu3, and cpu0's record.
"$P2P" --cpu 0 "$tmp/a.bin" --cpu 3 "$tmp/b.bin" -o "$tmp/base03.data" >/dev/null || fail "pt2perf"
"$P2P" --cpu 1 "$tmp/a.bin" --cpu 3 "$tmp/b.bin" -o "$tmp/base13.data" >/dev/null || fail "pt2perf"
for c in 0 1; do
	"$P2P" --cpu $c "$tmp/c.bin" -o "$tmp/one.data" >/dev/null || fail "pt2perf"
	tail -c $(($(wc -c <"$tmp/c.bin") + 48)) "$tmp/one.data" >"$tmp/cpu$c.rec"
done

# 1a. Shown on cpu3, numbered 2; cpu1 is cut off the end.  The streams
# list reads cpu1 (its PSBs): SIGBUS.
cat "$tmp/base03.data" "$tmp/cpu1.rec" >"$tmp/t.data"
tm_start -- --no-state "$tmp/t.data"
stream cpu3
keys j m c
truncate -s "$(wc -c <"$tmp/base03.data")" "$tmp/t.data"
keys : streams Enter
wait_for 'streams of t.data: 2 |EXITED'
grep -q EXITED "$tmp/screen" && fail "the browser ended"
# (the list's title can be read before its rows are drawn)
wait_for 'cpu3 .*\(current\)|EXITED'
grep -q EXITED "$tmp/screen" && fail "the browser ended"
keys q
wait_for "^ ptbrowse [^ ]*:cpu3 "
marks_has 'mark +c '
messages_have 'the file shrank from'
tm_quit

# 1b. Shown on cpu1, which is cut off: cpu0 is shown, said; cpu1's marks
# wait in memory and are back when it is.
cat "$tmp/base03.data" "$tmp/cpu1.rec" >"$tmp/t.data"
tm_start -- --no-state "$tmp/t.data"
stream cpu1
keys j m q
truncate -s "$(wc -c <"$tmp/base03.data")" "$tmp/t.data"
keys G
wait_for "^ ptbrowse [^ ]*:cpu0 "
messages_have 'has no stream cpu1 now; showing cpu0'
messages_have 'marks kept in memory for it wait until it is back'
marks_has 'marks and regions: 0 '
cat "$tmp/cpu1.rec" >>"$tmp/t.data"
keys R
wait_for 'reloaded: [0-9]+ new bytes'
stream cpu1
marks_has 'mark +q '
tm_quit

# 2. Saved marks: cpu1 numbered first; the file grows with cpu0.
cp "$tmp/base13.data" "$tmp/t.data"
tm_start -- "$tmp/t.data"
keys m a
stream cpu3
keys m c
cat "$tmp/cpu0.rec" >>"$tmp/t.data"
keys R
wait_for 'reloaded: [0-9]+ new bytes'
stream cpu0
marks_has 'marks and regions: 0 '
stream cpu1
marks_has 'marks and regions: 1 ' 'mark +a '
keys : messages Enter
wait_for 'grew since its marks were saved'
grep -q 'changed since marks were saved' "$tmp/screen" && fail "a false warning"
keys q
tm_quit
ls "$tmp/state/ptbrowse/traces" | grep -q '^[0-9a-f-]*\.marks$' &&
	fail "a marks file named by no stream: $(ls "$tmp/state/ptbrowse/traces")"

# 3. A raw trace shrinks while shown and gets the same tail back.
rm -rf "$tmp/state"
cp "$tmp/a.bin" "$tmp/t.pt"
tm_start -- "$tmp/t.pt"
keys m a
truncate -s 8192 "$tmp/t.pt"
keys G
wait_for '^ 0x[0-9a-f]+/0x2000 '
keys m b
tail -c 8192 "$tmp/a.bin" >>"$tmp/t.pt"
cmp -s "$tmp/t.pt" "$tmp/a.bin" || fail "the tail was not put back"
keys R
wait_for 'reloaded: [0-9]+ new bytes'
marks_has 'marks and regions: 2 ' 'mark +a ' 'mark +b '
tm_quit
short=$(grep -l 'size=8192 ' "$tmp"/state/ptbrowse/traces/*.marks)
[ "$(grep -c '^mark' "$short")" = 1 ] && grep -q '^mark b ' "$short" ||
	fail "the shorter content's file: $(cat "$short")"
cp "$short" "$tmp/short.marks"
for n in 1 2; do
	tm_start -- "$tmp/t.pt"
	marks_has 'marks and regions: 2 ' 'mark +a ' 'mark +b '
	keys : messages Enter
	wait_for '^ messages  line '
	grep -Eq 'merged in|changed since|grew since' "$tmp/screen" &&
		fail "start $n: a message about the other file"
	keys q
	tm_quit
done
cmp -s "$short" "$tmp/short.marks" || fail "the shorter content's file was rewritten"

# 4. Marks a (0x0) and z (the end); the first half's content has c and d.
rm -rf "$tmp/state"
head -c 8192 "$tmp/a.bin" >"$tmp/half.pt"
printf '# ptbrowse marks v1\nmark c 0x10\nmark d 0x20\n' >"$tmp/cd.marks"
XDG_STATE_HOME="$tmp/state" "$PTBROWSE" marks --import "$tmp/cd.marks" "$tmp/half.pt" \
	>/dev/null 2>&1 || fail "import into the first half"
half=$(grep -l 'size=8192 ' "$tmp"/state/ptbrowse/traces/*.marks)
cp "$tmp/a.bin" "$tmp/t.pt"
tm_start -- "$tmp/t.pt"
keys m a G
wait_for '^ 0x3fff/0x4000 '
keys m z : marks Enter
wait_for 'marks and regions: 2 '
keys j d
wait_for 'delete mark z\? \(y/n\)'
truncate -s 8192 "$tmp/t.pt"
wait_for 'mark +d '
keys y
wait_for 'not deleted'
grep -q '^mark d ' "$half" || fail "y deleted mark d: $(cat "$half")"
keys q
wait_gone 'marks and regions: '
tm_quit

echo "ok   a perf.data shrunk or grown: the stream shown and the marks go by name"
echo "ok   a raw trace shrunk and grown back: the marks of both contents shown, once"
echo "ok   the trace shrank under a delete question: y deletes no other entry"
