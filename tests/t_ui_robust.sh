#!/bin/sh
# t_ui_robust -- scripted browser runs that once crashed or trapped: a
# resize= out of bounds (SIGSEGV in ncurses at 100000x100000), a keymap
# that left no way out, huge counts, a trace that shrinks under a search or
# a command.
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

# Huge counts go by the index's packet counts: the row a count lands on
# is the one the equivalent goto gives, and past either end it is the
# end (stepping 2*10^7 rows took seconds, 10^11 forever).
GEN=${BUILD:-build}/tools/ptgen
if [ -x "$GEN" ]; then
	"$GEN" --seed 6 --size 32MiB -o "$tmp/c.pt" >/dev/null || fail "ptgen"
	cat > "$tmp/keys" <<EOF2
wait-index
g
20000000j
:save-screen $tmp/c1
:goto #20000000
:save-screen $tmp/c2
7000000k
:save-screen $tmp/c3
:goto #13000000
:save-screen $tmp/c4
99999999999j
:save-screen $tmp/c5
G
:save-screen $tmp/c6
99999999999k
:save-screen $tmp/c7
g
:save-screen $tmp/c8
99999999999 Space
:save-screen $tmp/c9
q
EOF2
	XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state --script "$tmp/keys" --size 120x20 \
		"$tmp/c.pt" > "$tmp/out" 2>&1 || fail "counts: exit status $? ($(cat "$tmp/out"))"
	st() { tail -n 2 "$tmp/$1" | head -n 1 | sed 's/^ *\(0x[0-9a-f]*\/0x[0-9a-f]*\) .*/\1/'; }
	for p in "c1 c2" "c3 c4" "c5 c6" "c7 c8" "c9 c6"; do
		a=${p% *} b=${p#* }
		[ -n "$(st "$a")" ] && [ "$(st "$a")" = "$(st "$b")" ] ||
			fail "counts: $a is at $(st "$a"), $b at $(st "$b")"
	done
	grep -q '#20000000 ' "$tmp/c1" || fail "20000000j from the start is not packet #20000000"
fi

# A trace that shrinks under the browser.  The script comes through a FIFO,
# so the file is cut between its lines.  A search's worker meets the cut
# first: the browser notices as it does for its own reads, and G goes to
# the new end (it went to the old one).  Then a prompt command reads past
# the next cut: it unwinds (SIGBUS) and its line is not leaked (the
# sanitizer build exited 1).
GEN=${BUILD:-build}/tools/ptgen
if [ -x "$GEN" ]; then
	"$GEN" --seed 5 --size 32MiB -o "$tmp/s.pt" >/dev/null || fail "ptgen"
	mkfifo "$tmp/fifo"
	# Wait (at most about 60 s) for file $1.
	wait_file() {
		_i=0
		while [ ! -f "$1" ] && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	}
	(
		exec 3>"$tmp/fifo"
		printf 'wait-index\nG\ng\n:save-screen %s\n' "$tmp/s0" >&3
		wait_file "$tmp/s0"
		truncate -s 16M "$tmp/s.pt"
		printf ':/tip 0x1234\nwait-search\n:save-screen %s\nG\n:save-screen %s\n' \
			"$tmp/s1a" "$tmp/s1" >&3
		wait_file "$tmp/s1"
		truncate -s 8M "$tmp/s.pt"
		printf 'C-l : goto Space 90%% Enter\n:save-screen %s\nq\n' "$tmp/s2" >&3
	) &
	XDG_CACHE_HOME=$tmp/cache "$PTBROWSE" --no-state --script "$tmp/fifo" --size 120x20 \
		"$tmp/s.pt" > "$tmp/out" 2>&1 || fail "shrinking trace: exit status $? ($(cat "$tmp/out"))"
	wait
	grep -q 'shrank from 33554432 to 16777216 bytes; showing what is left' "$tmp/s1a" ||
		fail "a search that met the cut did not tell: $(tail -n 1 "$tmp/s1a")"
	grep -q '^ 0xffffff/0x1000000 ' "$tmp/s1" ||
		fail "G after the search went to $(tail -n 2 "$tmp/s1" | head -n 1)"
	grep -q 'shrank from 16777216 to 8388608 bytes' "$tmp/s2" ||
		fail "a prompt command that met the cut did not tell: $(tail -n 1 "$tmp/s2")"
else
	echo "skip: no $GEN for the shrinking trace"
fi

[ $status -eq 0 ] && echo ok
exit $status
