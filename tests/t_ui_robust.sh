#!/bin/sh
# t_ui_robust -- scripted browser runs that once crashed or trapped: a
# resize= out of bounds (SIGSEGV in ncurses at 100000x100000), a keymap
# that left no way out.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
status=0

fail() { echo "FAIL: $*"; status=1; }
[ -r "$T" ] || { echo "no trace $T"; exit 1; }

# resize= takes the bounds of --size and says why it refuses.
for bad in 100000x100000 0x5 5x0 80x24junk -3x4 x; do
	printf 'resize=%s\n:save-screen %s\nresize=60x20\n:save-screen %s\nq\n' \
		"$bad" "$tmp/bad.txt" "$tmp/after.txt" > "$tmp/keys"
	"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$T" > "$tmp/out" 2>&1 ||
		fail "resize=$bad: exit status $? ($(cat "$tmp/out"))"
	grep -q "resize=.*want resize=COLSxROWS, each 1 to 1000" "$tmp/bad.txt" ||
		fail "resize=$bad: no message"
	[ "$(wc -l < "$tmp/bad.txt")" -eq 30 ] || fail "resize=$bad changed the screen"
	[ "$(wc -l < "$tmp/after.txt")" -eq 20 ] || fail "resize=60x20 after resize=$bad did not resize"
done

# No keymap leaves the browser without q, : and C-c: ':unbind -a', and a
# keymap file that binds none of them.  q still quits (the screen after it
# is never saved).
printf ':unbind -a\n:save-screen %s\nq\n:save-screen %s\n' "$tmp/ua.txt" "$tmp/ua2.txt" > "$tmp/keys"
rm -f "$tmp/ua2.txt"
"$PTBROWSE" --no-state --script "$tmp/keys" --size 100x30 "$T" > "$tmp/out" 2>&1 ||
	fail "unbind -a: exit status $? ($(cat "$tmp/out"))"
grep -q 'q (quit), : (command-prompt), C-c (interrupt) bound again: no other key' \
	"$tmp/ua.txt" || fail "unbind -a: no message"
[ -f "$tmp/ua2.txt" ] && fail "q did not quit after :unbind -a"
printf 'unbind -a\nbind j cursor-down\n' > "$tmp/noexit.keys"
printf ':save-screen %s\nq\n:save-screen %s\n' "$tmp/km.txt" "$tmp/km2.txt" > "$tmp/keys"
"$PTBROWSE" --no-state --keymap "$tmp/noexit.keys" --script "$tmp/keys" --size 100x30 "$T" \
	> "$tmp/out" 2>&1 || fail "keymap file: exit status $? ($(cat "$tmp/out"))"
grep -q 'q (quit), .* bound again' "$tmp/km.txt" ||
	fail "keymap file: no message"
[ -f "$tmp/km2.txt" ] && fail "q did not quit with a keymap file that binds no quit"

[ $status -eq 0 ] && echo ok
exit $status
