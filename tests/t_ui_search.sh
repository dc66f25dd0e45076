#!/bin/sh
# t_ui_search -- the prompt, search and filter end to end in tmux: '/tip'
# and 'n' step through the tip packets that 'ptbrowse dump' lists, '?' goes
# back, a bad expression is reported, ':filter ovf' and '&' list only OVFs,
# C-c stops a search over a large generated trace without quitting,
# ':goto 50%', '--keymap emacs' and 'M->', a broken line in a user keymap
# reported as file:line, and the prompt history across a restart.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt
PTGEN=$BUILD/tools/ptgen
BIG_SIZE=${BIG_SIZE:-256MiB}

[ -r "$T" ] || { echo "no trace $T"; exit 1; }
[ -x "$PTGEN" ] || { echo "no $PTGEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# The packet type of each row of the packet pane.
row_types() {
	screen | head -n $((TM_ROWS - 5)) | tail -n +3 |
		sed -n 's/^.\{3\}0x[0-9a-f]*  *\([a-z][a-z0-9.]*\).*/\1/p'
}
row_offs() {
	screen | head -n $((TM_ROWS - 5)) | tail -n +3 |
		sed -n 's/^.\{3\}\(0x[0-9a-f]*\)  *[a-z].*/\1/p'
}

## '/tip', 'n', '?', N and a bad expression, on a shared trace.
"$PTBROWSE" dump "$T" | awk '$2 == "tip" { print "0x" $1 }' | head -n 3 > "$tmp/tips"
[ "$(wc -l < "$tmp/tips")" -eq 3 ] || fail "dump lists fewer than 3 tip packets"
tip1=$(sed -n 1p "$tmp/tips")
tip2=$(sed -n 2p "$tmp/tips")
tip3=$(sed -n 3p "$tmp/tips")
tm_start -- "$T"
keys / t i p Enter
wait_off "$tip1"
wait_for '/tip \[1/[0-9]+'
keys n
wait_off "$tip2"
keys n
wait_off "$tip3"
wait_for '/tip \[3/[0-9]+'
[ $(($(cursor_off))) -eq $((tip3)) ] || fail "the cursor row is not the third tip"
# '?' searches backward, and then 'n' goes on backward, 'N' forward.
keys '?' t i p Enter
wait_off "$tip2"
keys n
wait_off "$tip1"
keys N
wait_off "$tip2"
# The prompt shows its lead: '/' rather than ':'.
keys / t i
wait_for '^/ti'
keys Escape
wait_gone '^/ti'
# A bad expression: the parser's message in the message line.
keys / t i p Space '=' '=' Enter
wait_for '^search: '
keys : s e a r c h Space n o p e Enter
wait_for "^search: .*nope"
# ':search -b' goes backward.
keys : s e a r c h Space - b Space t i p Enter
wait_off "$tip1"
tm_quit

## The filter view on a generated trace with OVFs.
"$PTGEN" --seed 5 --size 2MiB --ovf-rate 0.001 -o "$tmp/ovf.pt" > /dev/null || fail "ptgen"
"$PTBROWSE" dump "$tmp/ovf.pt" | awk '$2 == "ovf" { printf "0x%x\n", ("0x" $1) + 0 }' |
	head -n 10 > "$tmp/ovfs"
tm_start -- "$tmp/ovf.pt"
keys : f i l t e r Space o v f Enter
wait_for 'filter: ovf'
wait_for '^>.{1,2}0x[0-9a-f]+ +ovf'
[ "$(row_types | sort -u)" = ovf ] || fail "the filter view shows other packets: $(row_types | sort -u | tr '\n' ' ')"
[ "$(row_types | wc -l)" -ge 10 ] || fail "the filter view shows fewer than 10 rows"
row_offs | head -n 10 | while read -r o; do printf '0x%x\n' $((o)); done > "$tmp/shown"
cmp -s "$tmp/shown" "$tmp/ovfs" || fail "the filter view's rows are not dump's OVFs: $(tr '\n' ' ' < "$tmp/shown")"
# j moves to the next OVF.
keys j
wait_off "$(sed -n 2p "$tmp/ovfs")"
# '&' with an empty pattern shows everything again.
keys '&' Enter
wait_gone 'filter: ovf'
[ "$(row_types | sort -u | wc -l)" -gt 1 ] || fail "the filter is still on"
# '&' with a pattern, completed as ':filter' would.
keys '&' o v Tab
wait_for '^&ovf'
keys Enter
wait_for 'filter: ovf'
[ "$(row_types | sort -u)" = ovf ] || fail "'&ovf' shows other packets"
tm_quit

## C-c stops a search over a large trace; the browser goes on.
"$PTGEN" --seed 3 --size "$BIG_SIZE" -o "$tmp/big.pt" > /dev/null || fail "ptgen $BIG_SIZE"
tm_start -- "$tmp/big.pt"
# An IP range that never occurs: every packet is decoded.
keys / i p Space 0 x 1 - 0 x 2 Enter C-c
wait_for '^search stopped'
keys : g o t o Space 5 0 % Enter
wait_for '^ 0x[0-9a-f]+/0x[0-9a-f]+ (49\.[5-9]|50\.[0-4])%'
tm_quit
grep -q TERMINAL-RESTORED "$tmp/screen" || fail "terminal settings not restored"
rm -f "$tmp/big.pt"

## The emacs keymap: M-> goes to the end.
tm_start -- --keymap emacs "$T"
wait_for '\[emacs\]'
keys 'M->'
wait_for '^ 0x[0-9a-f]+/0x21a00 (99\.[5-9]|100\.0)%'
keys C-x C-c
wait_for 'EXITED rc=0'

## A broken line in a user keymap: reported as file:line, the rest works;
## the prompt history survives a restart.
mkdir -p "$tmp/config/ptbrowse/keymaps"
printf 'bind x page-down\nbind y no-such-action\n' > "$tmp/config/ptbrowse/keymaps/default.keys"
tm_start -- "$T"
wait_for 'keymaps/default.keys:2: '
keys x
wait_gone '^ 0x0/'
keys : g o t o Space 1 0 % Enter
wait_for '^ 0x[0-9a-f]+/0x21a00 (9\.[5-9]|10\.[0-4])%'
tm_quit
tm_start -- "$T"
keys : Up
wait_for '^:goto 10%'
keys Escape
wait_gone '^:goto 10%'
tm_quit
echo "ok"
