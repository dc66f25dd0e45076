#!/bin/sh
# t_ui_reload_timing -- after R the browser times the new content with the
# new file's timing (its PATH.options, or none), the command line's options
# over it, as a fresh browser does: not with the timing of the file it
# showed before.  R also notices a changed options file alone.  And with
# no key pressed, an idle browser says once that the file changed, grew,
# or its options file changed on disk, until R.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# a and b: other content and other timing, each with its options file.
"$GEN" --seed 1 --size 256KiB --mtc-freq 3 -o "$tmp/a.pt" >/dev/null || fail "ptgen a"
"$GEN" --seed 2 --size 256KiB --mtc-freq 7 --nom-freq 30 -o "$tmp/b.pt" >/dev/null ||
	fail "ptgen b"
# c: b's content with a's timing; d: b's content with no options file.
cp "$tmp/b.pt" "$tmp/c.pt" && cp "$tmp/a.pt.options" "$tmp/c.pt.options" &&
	cp "$tmp/b.pt" "$tmp/d.pt" || fail "cp"

# The cursor row at 0x2000 (its time and MHz) as a fresh browser shows
# each (a script on a screen of the same size).
for f in b c d; do
	printf ':goto 0x2000\n:save-screen %s\nq\n' "$tmp/screen.$f" > "$tmp/keys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state \
		--no-index --script "$tmp/keys" --size "${TM_COLS}x$TM_ROWS" "$tmp/$f.pt" ||
		fail "script on $f"
	grep '^>' "$tmp/screen.$f" > "$tmp/row.$f"
	[ -s "$tmp/row.$f" ] || fail "no cursor row on the fresh screen of $f"
done
cmp -s "$tmp/row.b" "$tmp/row.c" && fail "the timing files make no difference: $(cat "$tmp/row.b")"
cmp -s "$tmp/row.b" "$tmp/row.d" && fail "no options file makes no difference"

# row WHICH WHAT: the browser's cursor row at 0x2000 is the fresh one's.
row() {
	keys g
	keys : 'goto 0x2000' Enter
	wait_for '^> +0x00002000 '
	screen | grep '^>' > "$tmp/row.t"
	cmp -s "$tmp/row.t" "$tmp/row.$1" ||
		fail "$2: the row at 0x2000 is
$(cat "$tmp/row.t"), a fresh browser's
$(cat "$tmp/row.$1")"
}

cp "$tmp/a.pt" "$tmp/t.pt" && cp "$tmp/a.pt.options" "$tmp/t.pt.options" || fail "cp"
tm_start -- --no-state --no-index "$tmp/t.pt"
wait_for '0x00000000'

# Replaced with mv by b and its options.
cp "$tmp/b.pt" "$tmp/n.pt" && cp "$tmp/b.pt.options" "$tmp/n.pt.options" || fail "cp"
mv "$tmp/n.pt.options" "$tmp/t.pt.options" && mv "$tmp/n.pt" "$tmp/t.pt" || fail "mv"
keys R
wait_for 'reloaded: the file was replaced'
row b "after mv of another trace and its options"

# Only the options file changed: R opens the trace afresh with it.
cp "$tmp/a.pt.options" "$tmp/t.pt.options"
keys R
wait_for 'reloaded: its options file changed'
row c "after the options file changed"

# The options file gone: the trace's own timing, none of the last file's.
rm "$tmp/t.pt.options"
keys R
wait_for 'reloaded: its options file changed'
row d "after the options file was removed"

# The options file back and the trace touched: rewritten, timed anew.
cp "$tmp/b.pt.options" "$tmp/t.pt.options"
touch -d '2001-01-01' "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was rewritten'
row b "after the options file changed and the trace was touched"
keys R
wait_for 'no change: 262144 bytes'

# Idle, the browser says what changed on disk, once, until R.
cat "$tmp/a.pt" > "$tmp/t.pt"
wait_for 't.pt changed on disk: the times and counts shown are stale; R reloads'
# Said once: another message is not replaced by it again.
keys : 'goto 0x101' Enter
wait_for '^> +0x00000101 '
wait_gone 'on disk: R reloads'
sleep 3
screen | grep -q 'on disk: R reloads' && fail "said again with nothing new on disk"
keys R
wait_for 'reloaded: the file was rewritten'
cat "$tmp/a.pt" >> "$tmp/t.pt"
wait_for 't.pt grew on disk: R reloads'
keys R
wait_for 'reloaded: 262144 new bytes'
cp "$tmp/a.pt.options" "$tmp/t.pt.options"
wait_for 't.pt.options changed on disk: R reloads'
keys R
wait_for 'reloaded: its options file changed'
# Nothing is said with nothing new on disk.
sleep 3
screen | grep -q 'on disk: R reloads' && fail "said with nothing new on disk"
# R's error over a change it cannot take up (a bad options file) stays:
# the change is not said again over it.
cat "$tmp/a.pt" >> "$tmp/t.pt"
printf -- '--mtc-freq x\n' > "$tmp/t.pt.options"
wait_for 't.pt grew on disk: R reloads'
keys R
wait_for 'reload: .*t.pt.options.*still showing'
sleep 3
screen | grep -q 'reload: .*t.pt.options.*still showing' ||
	fail "R's error was replaced"
echo "ok"
