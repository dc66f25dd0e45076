#!/bin/sh
# t_ui_prompt -- the readline prompt's history survives cancelled edits.
# An edited history line, an i-search left with C-g, the prompt closed with
# Escape, then the '/' prompt and another line: readline's undo list was
# left to the next prompt and freed twice (abort, exit 134).  The edited
# line is itself again afterwards and the history file is unchanged.
# With the emacs keymap, C-r on a : line is readline's history search.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt

[ -r "$T" ] || { echo "no trace $T"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# Poll the prompt line (the last line) for a pattern (grep -E).
wait_line() {
	_i=0
	while [ $_i -lt 100 ]; do
		screen | tail -n 1 > "$tmp/line" 2>/dev/null
		grep -Eq -- "$1" "$tmp/line" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "timed out waiting for the prompt line '$1' (it is '$(cat "$tmp/line")')"
}

mkdir -p "$tmp/state/ptbrowse"
printf 'streams cpu3\n/tip\ngoto 25%%\n' > "$tmp/state/ptbrowse/history"
cp "$tmp/state/ptbrowse/history" "$tmp/history.before"
tm_start -- "$T"

keys :
wait_line '^: *$'
keys Up
wait_line '^:goto 25%'
keys Up
wait_line '^/tip'
keys C-u
wait_line '^: *$'
keys C-r s t r e a m s
wait_line '^:streams cpu3'
keys C-g
wait_line '^: *$'
keys Escape
wait_line '^ *$'
keys /
wait_line '^/ *$'
keys Up
wait_line '^:goto 25%'
keys Escape
wait_line '^ *$'
# The line edited above is itself again.
keys :
wait_line '^: *$'
keys Up Up
wait_line '^/tip'
keys Escape
wait_line '^ *$'
cmp -s "$tmp/history.before" "$tmp/state/ptbrowse/history" ||
	fail "cancelled prompts changed the history file: $(cat "$tmp/state/ptbrowse/history")"
keys : g o t o Space 5 0 % Enter
wait_for ' 50\.0%'
tm_quit
grep -q 'TERMINAL-RESTORED' "$tmp/screen" || fail "terminal not restored"
tail -n 1 "$tmp/state/ptbrowse/history" | grep -qx 'goto 50%' ||
	fail "the entered line is not in the history file"

# The emacs keymap binds C-s and C-r at the prompt to searching on from a
# / or ? line; on a : line they are readline's history search still (it
# did nothing there).
tm_start -- --keymap emacs "$T"
keys :
wait_line '^: *$'
keys C-r s t r e a m s
wait_line '^:streams cpu3'
keys C-g
wait_line '^: *$'
keys Escape
wait_line '^ *$'
tm_quit
echo "ok"
