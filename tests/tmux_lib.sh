# tmux_lib -- helpers for tests that drive the browser in a real terminal:
# a private tmux server, a session running ptbrowse, polling the screen.
# Source it after setting $tmp (a temporary directory) and $PTBROWSE; it
# sets a trap that kills the server and removes $tmp.
#   tm_start [ENV=VALUE...] -- ARGS...   (re)start the browser with ARGS
#   wait_for REGEX [S]  poll the screen (grep -E) for 10 (S) seconds, or fail
#   wait_gone REGEX [S] poll until REGEX is no longer on the screen (10 s)
#   status_off          the offset in the status line
#   cursor_off          the offset of the cursor row ('>' in the gutter)
#   keys KEY...         tmux send-keys to the browser
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 1; }
sock=ptbtest-$$
TM_COLS=${TM_COLS:-120}
TM_ROWS=${TM_ROWS:-40}
tm() { tmux -L "$sock" -f /dev/null "$@"; }
tm_cleanup() { tm kill-server 2>/dev/null; rm -rf "$tmp"; }
trap tm_cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*"
	echo "--- screen:"
	tm capture-pane -p -t ptb 2>/dev/null
	exit 1
}

keys() { tm send-keys -t ptb "$@"; }
screen() { tm capture-pane -p -t ptb; }

# Poll the screen for a pattern (grep -E) for up to 10 seconds, or $2.
wait_for() {
	_i=0
	while [ $_i -lt $((${2:-10} * 10)) ]; do
		screen > "$tmp/screen" 2>/dev/null
		grep -Eq -- "$1" "$tmp/screen" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "timed out waiting for '$1'"
}

wait_gone() {
	_i=0
	while [ $_i -lt $((${2:-10} * 10)) ]; do
		screen > "$tmp/screen" 2>/dev/null
		grep -Eq -- "$1" "$tmp/screen" || return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "timed out waiting for '$1' to go"
}

# The offset in the status line (second line from the bottom).
status_off() {
	screen | tail -n 2 | head -n 1 | sed -n 's/^ *\(0x[0-9a-f]*\)[/ ].*/\1/p'
}
# The offset of the cursor row ('>' in the gutter).
cursor_off() {
	screen | sed -n 's/^>.\{1,2\}\(0x[0-9a-f]*\) .*/\1/p' | head -n 1
}

# Poll until the status line's offset is $1 (any base the shell reads).
wait_off() {
	_i=0
	while [ $_i -lt 100 ]; do
		_o=$(status_off)
		[ -n "$_o" ] && [ $((_o)) -eq $(($1)) ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "the status line's offset is ${_o:-none}, not $1"
}

# Start (or restart) the browser: environment assignments, then --, then
# its arguments.  XDG directories default to $tmp/config, state and cache.
tm_start() {
	_env="XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_env="$_env $1"
		shift
	done
	[ $# -gt 0 ] && shift
	tm kill-session -t ptb 2>/dev/null
	{
		echo "before=\$(stty -g)"
		printf 'env %s "%s"' "$_env" "$PTBROWSE"
		for _a in "$@"; do printf ' "%s"' "$_a"; done
		echo
		echo "rc=\$?"
		echo "after=\$(stty -g)"
		echo "[ \"\$before\" = \"\$after\" ] && echo TERMINAL-RESTORED || echo TERMINAL-CHANGED"
		echo "echo \"EXITED rc=\$rc\""
		echo "sleep 60"
	} > "$tmp/run.sh"
	# Killing the last session ends the server; a new session started
	# while it is still exiting fails ("server exited unexpectedly").
	_i=0
	until tm new-session -d -s ptb -x "$TM_COLS" -y "$TM_ROWS" \
		"TERM=screen LANG=C.UTF-8 sh $tmp/run.sh" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -lt 20 ] || fail "tmux did not start"
		sleep 0.1
	done
	wait_for 'F1 help'
}

# Quit with 'q' and wait for the exit.
tm_quit() {
	keys q
	wait_for 'EXITED rc=0'
}

# Each pattern on the screen of :marks for the stream shown (closed after);
# each is waited for: the list's title may be drawn before its rows.
marks_has() {
	keys : marks Enter
	for _p in "$@"; do
		wait_for "$_p"
	done
	keys q
	wait_gone 'marks and regions: '
}
# Switch to stream $1 of a perf.data (the title names it; the message line
# may say what its marks lost, not the stream's size).
stream() {
	keys ":streams $1" Enter
	wait_for "^ ptbrowse [^ ]*:$1 "
}
# $1 among :messages (closed after).
messages_have() {
	keys : messages Enter
	wait_for "$1"
	keys q
	wait_gone ' [EWI] '
}
