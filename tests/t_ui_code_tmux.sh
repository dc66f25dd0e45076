#!/bin/sh
# t_ui_code_tmux -- the code view end to end in a real terminal (tmux): on
# a perf.data of tests/progs/p_sample, 'c' shows instructions under their
# packets with a cycle pane; j onto an instruction keeps the status line on
# the packet that decided it (flow --offset's); 'c' again shows that packet
# at the cursor; '}' in the code view lands on the next PSB's row; a click
# on an instruction row moves the cursor there; ':set view packets' leaves.
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
. tests/rec_lib.sh
rec_sample "$tmp/rec" || fail "$rec_err"
perf=$tmp/rec/perf.data

tm_start -- --no-state "$perf"
wait_for 'F1 help'
wait_for 'offset +packet +payload'
keys c
wait_for 'the code it decided'
wait_for 'insns run cycles'
wait_for '^ .{2}[0-9a-f]{16} +main\+0x0 +push rbp'

# 12 rows down: an instruction (the 3rd after the tip.pge's events)
keys 1 2 j
wait_for '^>.{2}[0-9a-f]{16} '
ip=$(screen | sed -n 's/^>..\([0-9a-f]\{16\}\) .*/\1/p')
want=$("$PTBROWSE" flow --offset --stream cpu0 "$perf:0-0x1000" 2>/dev/null |
	awk -v ip="$ip" '$2 == ip { print $1; exit }')
[ -n "$want" ] || fail "flow does not know $ip"
wait_off "0x$want"

# back to the packets: the cursor is on that packet
keys c
wait_for 'offset +packet +payload'
[ $(($(cursor_off))) -eq $((0x$want)) ] || fail "packet view cursor $(cursor_off), not 0x$want"

# '}' in the code view: the next PSB's row (about 4 KiB in: where, the
# recording's packets decide)
psb2=$("$PTBROWSE" dump --stream cpu0 "$perf" 2>/dev/null |
	awk '$2 == "psb" && ++n == 2 { sub(/^0*/, "", $1); print $1; exit }')
[ -n "$psb2" ] || fail "no second PSB in cpu0"
keys c
wait_for 'the code it decided'
keys '}'
wait_for "^>.{2}0x0*$psb2 +psb"
wait_off "0x$psb2"

# a click on a row under the heading moves the cursor there
keys g
wait_for '^>.{2}0x0+ +psb'
# (an X10 mouse press: button 1 at column 10, row 11 -- main+0x0's)
tm send-keys -t ptb -l "$(printf '\033[M +,')"
wait_for '^>.{2}[0-9a-f]{16} +main\+0x0 +push rbp'

keys : s e t ' ' v i e w ' ' p a c k e t s Enter
wait_for 'offset +packet +payload'
keys q
wait_for 'EXITED rc=0'
echo "ok   the code view in a terminal: rows, the deciding packet, back, }, a click"
