#!/bin/sh
# t_ui_reload_start -- a trace that shrinks while the browser starts, before
# its main loop (the config, the first time, +GOTO, the first screen), is
# recovered from as in the loop: what is left is shown, with no SIGBUS.
# The file is cut at the moment under gdb (a breakpoint at each step): the
# window is too short to hit from outside.  Skipped without gdb, or where
# it may not trace.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
command -v gdb >/dev/null || { echo "skip: gdb is not installed"; exit 0; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
bad=0

"$GEN" --seed 5 --size 8MiB -o "$tmp/whole.pt" >/dev/null || { echo "FAIL ptgen"; exit 1; }
rm -f "$tmp/whole.pt.options"
printf ':save-screen %s\nq\n' "$tmp/after" > "$tmp/keys"

# gdb may not trace here (ptrace refused): a run with no cut tells.
gdb -q -batch -ex run --args "$PTBROWSE" --no-state --script "$tmp/keys" \
	"$tmp/whole.pt" >"$tmp/gdb" 2>&1
grep -q 'exited normally' "$tmp/gdb" || {
	echo "skip: gdb cannot run the browser here: $(tail -n 1 "$tmp/gdb")"
	exit 0
}

# Each step of the start-up that reads the mapping; the file is cut to
# 100 bytes when it begins.
for fn in reload_remember options_config session_find_t0 opengoto_start view_draw; do
	cp "$tmp/whole.pt" "$tmp/t.pt"
	rm -f "$tmp/after"
	gdb -q -batch -ex 'handle SIGBUS nostop noprint pass' -ex "break $fn" -ex run \
		-ex "shell truncate -s 100 $tmp/t.pt" -ex delete -ex continue \
		--args "$PTBROWSE" --no-state --script "$tmp/keys" "$tmp/t.pt" \
		>"$tmp/gdb" 2>&1
	if ! grep -Eq "^Breakpoint 1(\.[0-9]+)?, $fn " "$tmp/gdb"; then
		echo "FAIL $fn: the breakpoint was not reached: $(tail -n 3 "$tmp/gdb")"
		bad=1
	elif ! grep -q 'exited normally' "$tmp/gdb"; then
		echo "FAIL cut at $fn: $(grep -E 'signal|exited' "$tmp/gdb" | tail -n 2)"
		bad=1
	elif ! grep -q 'the file shrank from 8388608 to 100 bytes; showing what is left' \
		"$tmp/after" 2>/dev/null; then
		echo "FAIL cut at $fn: not said: $(tail -n 1 "$tmp/after" 2>&1)"
		bad=1
	else
		echo "ok   cut at $fn: what is left is shown"
	fi
done
exit $bad
