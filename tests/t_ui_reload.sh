#!/bin/sh
# t_ui_reload -- R tells a changed trace by its identity, not its size:
# rewritten in place at the same size (also with the old mtime put back),
# replaced with mv, grown, or unchanged.  After a reload the screen is the
# one a fresh browser shows on the new content.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# The packet pane's rows (lines 3 to 20).
rows() { screen | sed -n 3,20p | cut -c1-60; }

"$GEN" --seed 1 --size 256KiB -o "$tmp/a.pt" >/dev/null || fail "ptgen"
"$GEN" --seed 2 --size 256KiB -o "$tmp/b.pt" >/dev/null || fail "ptgen"
"$GEN" --seed 3 --size 256KiB -o "$tmp/c.pt" >/dev/null || fail "ptgen"
"$GEN" --seed 4 --size 256KiB -o "$tmp/d.pt" >/dev/null || fail "ptgen"
cmp -s "$tmp/a.pt" "$tmp/b.pt" && fail "ptgen gave the same bytes for two seeds"
cp "$tmp/a.pt" "$tmp/t.pt"

# What a fresh browser shows for each content (a script on a screen of
# the same size).
for f in b c d; do
	printf ':save-screen %s\nq\n' "$tmp/screen.$f" > "$tmp/keys"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state \
		--script "$tmp/keys" --size "${TM_COLS}x$TM_ROWS" "$tmp/$f.pt" || fail "script on $f"
	sed -n 3,20p "$tmp/screen.$f" | cut -c1-60 > "$tmp/rows.$f"
done

tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
keys R
wait_for 'no change: 262144 bytes'

# Rewritten in place (same inode, same size).
cat "$tmp/b.pt" > "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was rewritten'
rows > "$tmp/rows.t"
cmp -s "$tmp/rows.t" "$tmp/rows.b" || fail "after an in-place rewrite the rows are not the new file's"

# Rewritten with the old mtime put back: the content sample tells.
touch -r "$tmp/t.pt" "$tmp/stamp"
cat "$tmp/c.pt" > "$tmp/t.pt"
touch -r "$tmp/stamp" "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was rewritten in place'
rows > "$tmp/rows.t"
cmp -s "$tmp/rows.t" "$tmp/rows.c" || fail "after a rewrite with the old mtime the rows are not the new file's"

# Replaced with mv (another inode).
cp "$tmp/d.pt" "$tmp/new.pt"
mv "$tmp/new.pt" "$tmp/t.pt"
keys R
wait_for 'reloaded: the file was replaced'
rows > "$tmp/rows.t"
cmp -s "$tmp/rows.t" "$tmp/rows.d" || fail "after mv the rows are not the new file's"
keys R
wait_for 'no change: 262144 bytes'

# Grown: the old part is kept.
cat "$tmp/a.pt" >> "$tmp/t.pt"
keys R
wait_for 'reloaded: 262144 new bytes'

# Grown, but its options file went bad: said, and the browser goes on over
# what it had (the streams it showed were freed before), its cursor moving
# and its index rebuilt over the old size.
cat "$tmp/a.pt" >> "$tmp/t.pt"
printf -- '--mtc-freq x\n' > "$tmp/t.pt.options"
keys R
wait_for 'reload: .*t.pt.options.*still showing the 524288 bytes read before'
keys G
wait_for ' 0x7ffff/0x80000 '
rm -f "$tmp/t.pt.options"
keys R
wait_for 'reloaded: 262144 new bytes'

# Emptied and written again while shown (`cat new > trace` truncates,
# then writes): a read in the moment the file is empty waits for the
# writer, and the browser shows what is there, rather than ending with
# "the file is now empty".
keys g
wait_off 0x0
: > "$tmp/t.pt"
( sleep 0.3; cat "$tmp/b.pt" > "$tmp/t.pt" ) &
keys -l ':goto 0x5a000'
keys Enter
wait_for 'showing what is left'
wait
keys R
wait_for 'reloaded|no change'
tm_quit
echo ok
