#!/bin/sh
# t_ui_prompt_cols -- the prompt line in screen columns, not bytes: the
# cursor after 'é' (two bytes, one column) sits at the end of the text, and
# a line wider than the screen is scrolled from a character's start (no
# '?' for half a character) with the cursor on the screen.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
TM_COLS=80
TM_ROWS=24
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 2 --size 1MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
cursor_x() { tm display -p -t ptb '#{cursor_x}'; }

tm_start -- --no-state "$tmp/t.pt"
keys : 'mark éééé'
wait_for '^:mark éééé *$'
x=$(cursor_x)
[ "$x" = 10 ] || fail "the cursor is at column $x after ':mark éééé', not 10"
keys Escape
wait_gone '^:mark'

# 100 é: 105 columns on an 80-column screen.
e=$(printf 'é%.0s' $(seq 1 100))
keys : "mark $e"
wait_for '^:éééé'
screen | tail -n 1 > "$tmp/line"
grep -q '?' "$tmp/line" && fail "half a character drawn: $(cat "$tmp/line")"
n=$(tr -d ' \n' < "$tmp/line" | wc -m)
x=$(cursor_x)
[ "$x" = 78 ] || fail "the cursor is at column $x after 100 é, not 78"
[ "$n" = 78 ] || fail "$n characters shown, not 78 (':' and 77 é): $(cat "$tmp/line")"
keys Escape
wait_gone '^:éééé'
tm_quit
echo ok
