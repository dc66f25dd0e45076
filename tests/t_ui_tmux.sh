#!/bin/sh
# t_ui_tmux -- the browser end to end in a real terminal: tmux, started here.
# What a person would see: three panes, the cursor row's offset in the status
# line, '}' landing on a psb row, a timeline click and '50%' moving the packet
# pane, a resize to 40x10 and back without garbage, 'q' restoring the terminal.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
OPTS="--mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 --cpu 6/78/3"

[ -r "$T" ] || { echo "no trace $T"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# The first packet row of the packet pane (line 3).
first_row() {
	tm capture-pane -p -t ptb | sed -n 3p | cut -c1-40
}

# shellcheck disable=SC2086 # OPTS are several words
tm_start -- $OPTS "$T"

# The three panes: packet headings, cycle headings, the timeline axis.
wait_for 'F1 help'
wait_for 'offset +packet +payload'
wait_for 'cycles'
wait_for '(time|bytes) '
grep -q '^>' "$tmp/screen" || fail "no cursor row"

# The status line names the cursor row's offset.
tm send-keys -t ptb j j j
wait_for '^ 0x[0-9a-f]+/0x21a00'
sleep 0.3
[ $(($(status_off))) -eq $(($(cursor_off))) ] ||
	fail "status offset $(status_off) is not the cursor row's $(cursor_off)"

# '}' lands on a psb row.
tm send-keys -t ptb '}'
wait_for '^>.{1,2}0x[0-9a-f]+ +psb'
[ $(($(status_off))) -eq $(($(cursor_off))) ] || fail "status does not follow '}'"

# The readline prompt: completion, then a goto; the line lands in the
# history file.
tm send-keys -t ptb : g o t Tab
wait_for '^:goto'
tm send-keys -t ptb ' 25%' Enter
wait_for ' 2[45]\.[0-9]%'
grep -q 'goto 25%' "$tmp/state/ptbrowse/history" 2>/dev/null || fail "no history file entry"
# Escape cancels a prompt.
tm send-keys -t ptb : x y z Escape
sleep 0.3
tm capture-pane -p -t ptb | grep -q '^:xyz' && fail "Escape did not cancel the prompt"

# '50%' moves the packet pane to the middle.
before=$(first_row)
tm send-keys -t ptb 5 0 %
wait_for ' 50\.0%'
[ "$(first_row)" != "$before" ] || fail "50% did not move the packet pane"

# A click on the timeline's first column (screen row 35 of 40) jumps near
# the start: an X10 mouse report (button, column and row + 33), as the
# terminal would send it.
before=$(first_row)
tm send-keys -t ptb -l "$(printf '\033[M !D')"
tm send-keys -t ptb -l "$(printf '\033[M#!D')"
wait_for '^ 0x[0-9a-f]+/0x21a00 [0-3]\.[0-9]%'
[ "$(first_row)" != "$before" ] || fail "a timeline click did not move the packet pane"

# Over help the mouse leaves the browser hidden under it alone: a click on
# a packet row (column 16, row 18), the wheel, a drag along the timeline
# (row 35, columns 0 to 40: '@' a motion with the button held) moved its
# cursor, scrolled it and began a selection.
before=$(first_row)
off=$(status_off)
tm send-keys -t ptb F1
wait_for 'keys and commands'
tm send-keys -t ptb -l "$(printf '\033[M 13')"
tm send-keys -t ptb -l "$(printf '\033[M#13')"
tm send-keys -t ptb -l "$(printf '\033[Ma13')"
tm send-keys -t ptb -l "$(printf '\033[M !D')"
tm send-keys -t ptb -l "$(printf '\033[M@ID')"
tm send-keys -t ptb -l "$(printf '\033[M#ID')"
tm send-keys -t ptb q
wait_gone 'keys and commands'
wait_for 'F1 help'
sleep 0.3
[ "$(status_off)" = "$off" ] || fail "a click over help moved the cursor: $off to $(status_off)"
[ "$(first_row)" = "$before" ] || fail "the wheel over help scrolled the packet pane"
screen | grep -q VISUAL && fail "a drag over help began a selection"

# Resize to 40x10 and back: the small screen is sane, and the big one is
# the same as a full redraw.
tm resize-window -t ptb -x 40 -y 10
# (the status line is there before the browser redraws: tmux keeps the
# bottom rows of the old screen; the title row on top says it redrew)
i=0
until tm capture-pane -p -t ptb | head -n 1 | grep -q '^ ptbrowse' &&
      tm capture-pane -p -t ptb | grep -q '^>'; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no redraw (title and cursor row) at 40x10"
	sleep 0.1
done
# (at 40 columns the status line drops whole fields, the size first
# among these, never cutting a number)
wait_for '^ 0x[0-9a-f]+ [0-9.]+%  [a-z.0-9]+( #[0-9?]+)?  psb [0-9]+/[0-9]+'
lines=$(tm capture-pane -p -t ptb | wc -l)
[ "$lines" -eq 10 ] || fail "40x10 shows $lines lines"
tm capture-pane -p -t ptb > "$tmp/small"
while IFS= read -r l; do
	[ "$(printf '%s' "$l" | LC_ALL=C.UTF-8 wc -m)" -le 40 ] || fail "a line wider than 40: $l"
done < "$tmp/small"
tm capture-pane -p -t ptb | grep -q '^>' || fail "no cursor row at 40x10"
tm resize-window -t ptb -x 120 -y 40
wait_for 'F1 help'
sleep 0.5
tm capture-pane -p -t ptb > "$tmp/resized"
tm send-keys -t ptb C-l
sleep 0.5
tm capture-pane -p -t ptb > "$tmp/redrawn"
cmp -s "$tmp/resized" "$tmp/redrawn" || {
	diff "$tmp/resized" "$tmp/redrawn"
	fail "the screen after resizing back differs from a redraw"
}

# A tiny terminal must not crash it.
tm resize-window -t ptb -x 1 -y 1
sleep 0.3
tm resize-window -t ptb -x 120 -y 40
wait_for 'F1 help'

# 'q' quits and gives the terminal back as it was.
tm send-keys -t ptb q
wait_for 'EXITED rc=0'
grep -q TERMINAL-RESTORED "$tmp/screen" || fail "terminal settings not restored"
echo "ok"
