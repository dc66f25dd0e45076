#!/bin/sh
# t_ui_panel_quit -- q in the region summary panel, in tmux: with the
# cursor in a region the panel shows over the panes; q closes it and the
# browser stays (q quit the program: every other view closes on q, only
# the browser's q quits); it stays closed while the cursor stays in the
# region and shows again when the cursor comes back; Escape closes it too;
# m q with it shown sets mark q, :describe-key q describes q, a count
# then Escape drops the count; q from the marks list comes back to the
# panel, and a second q closes it; then q quits; Q quits from the panel.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen

tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# The browser is still there: its status line, not the shell's line.
alive() {
	sleep 0.3
	tm capture-pane -p -t ptb > "$tmp/screen" 2>/dev/null
	grep -q 'EXITED' "$tmp/screen" && fail "$1: the program quit"
	grep -Eq '^ 0x[0-9a-f]+/0x' "$tmp/screen" || fail "$1: no status line"
}

# The panel's first line: "region hot  0xFROM-0xTO" (the message after q
# says "region hot: ...").
PANEL='region hot  0x[0-9a-f]+-0x'

"$gen" --size 256KiB -o "$tmp/a.pt" > /dev/null || fail "ptgen"
opts=$(cat "$tmp/a.pt.options")

# Run the browser in a fresh tmux session.
start() {
	cat > "$tmp/run.sh" <<EOF
XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache \
	"$PTBROWSE" $opts "$tmp/a.pt"
echo "EXITED rc=\$?"
sleep 60
EOF
	tm kill-session -t ptb 2>/dev/null
	tm new-session -d -s ptb -x 120 -y 30 "TERM=screen LANG=C.UTF-8 sh $tmp/run.sh" ||
		fail "tmux did not start"
	wait_for 'F1 help'
	wait_for '^ 0x[0-9a-f]+/0x'
}

# Put the cursor in region hot, from outside it: the panel shows.
enter() {
	tm send-keys -t ptb : 'goto psb 5' Enter
	wait_gone "$PANEL"
	tm send-keys -t ptb : 'goto psb 2' Enter
	wait_for "$PANEL"
	wait_for 'bytes [0-9]+  packets [0-9]+'
}

# A session that outlives the browser's, so the server does not exit
# between runs.
tm new-session -d -s keep "sleep 300" || fail "tmux did not start"
start
tm send-keys -t ptb : 'region hot psb 1 psb 3' Enter
wait_for 'region hot: 0x'
enter

# q closes the panel; the browser stays.
tm send-keys -t ptb q
wait_for 'region hot: summary closed'
alive "q in the region panel"
grep -Eq "$PANEL" "$tmp/screen" && fail "q did not close the region panel"
# Closed while the cursor stays in the region.
tm send-keys -t ptb j
alive "j after the panel closed"
grep -Eq "$PANEL" "$tmp/screen" && fail "the panel came back with the cursor still in the region"
echo "ok   q closes the region panel, the browser stays"

# Back in the region it shows again; Escape closes it.
enter
tm send-keys -t ptb Escape
wait_for 'region hot: summary closed'
alive "Escape in the region panel"
grep -Eq "$PANEL" "$tmp/screen" && fail "Escape did not close the region panel"
echo "ok   back in the region the panel shows; Escape closes it"

# A key sequence begun goes on: m q sets mark q, the panel stays.
enter
tm send-keys -t ptb m q
wait_for 'mark q at 0x'
grep -Eq "$PANEL" "$tmp/screen" || fail "m q closed the region panel"
echo "ok   m q with the panel shown sets mark q"

# :describe-key then q describes q; a count then Escape drops the count.
tm send-keys -t ptb : describe-key Enter
wait_for 'describe-key: press a key'
tm send-keys -t ptb q
wait_for '^q: quit'
grep -Eq "$PANEL" "$tmp/screen" || fail ":describe-key q closed the region panel"
tm send-keys -t ptb 3 Escape
alive "3 Escape in the region panel"
grep -Eq "$PANEL" "$tmp/screen" || fail "3 Escape closed the region panel (it drops the count)"
echo "ok   :describe-key q and 3 Escape leave the panel"

# The marks list over it: q closes the list, then the panel, then quits.
tm send-keys -t ptb : marks Enter
wait_for 'marks and regions: '
tm send-keys -t ptb q
wait_for "$PANEL"
alive "q in the marks list"
tm send-keys -t ptb q
wait_for 'region hot: summary closed'
alive "q in the region panel after the marks list"
tm send-keys -t ptb q
wait_for 'EXITED rc=0'
echo "ok   q closes the marks list, then the panel, then quits"

# Q quits from the panel (less, tig: Q quits from anywhere).
start
enter
tm send-keys -t ptb Q
wait_for 'EXITED rc=0'
echo "ok   Q quits from the region panel"
