#!/bin/sh
# t_ui_cmdline -- how a prompt line is read, headless (--script):
#  - trailing blanks end no word (Tab completion leaves one; a config line
#    may end in one): save-screen, set keymap, set axis, help, a config line;
#  - a count is decimal (0x: hex), never octal; a command without
#    arguments refuses more text, with its usage;
#  - counts count: 3]' goes to the third mark, :jump-forward N goes N on,
#    a huge count of l scrolls right as far as it goes (also on the
#    timeline), never back;
#  - save-screen, export-marks and export expand a leading ~/.
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
fail=0
bad() { echo "FAIL $*"; fail=1; }
# The message line (the last) of screen $1, its trailing blanks cut.
msgline() { tail -n 1 "$1" | sed 's/ *$//'; }
run() { "$PTBROWSE" --no-state --script "$1" --size 100x12 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "$1: exit status $? ($(cat "$tmp/out"))"; }

"$BUILD/tools/ptgen" --seed 2 --size 64KiB -o "$tmp/t.pt" >/dev/null || exit 1

# --- trailing blanks -----------------------------------------------------
mkdir -p "$tmp/config/ptbrowse"
printf 'set axis bytes\t\n' >"$tmp/config/ptbrowse/config"
cat >"$tmp/k1" <<EOK
:save-screen $tmp/c0.txt
:save-screen $tmp/o1.txt 
:
s e t Space k e y m a p Space e m Tab Enter
:save-screen $tmp/c1.txt
:set axis time 	
:save-screen $tmp/c2.txt
:set keymap default 
:save-screen $tmp/c3.txt
:help toggle-mouse 
:save-screen $tmp/c4.txt
EOK
run "$tmp/k1"
[ -f "$tmp/o1.txt" ] || bad "save-screen 'o1.txt ': no o1.txt ($(ls "$tmp"))"
[ -f "$tmp/o1.txt " ] && bad "save-screen 'o1.txt ' wrote a name with the blank"
m=$(msgline "$tmp/c0.txt")
[ -z "$m" ] || bad "config 'set axis bytes<TAB>': '$m'"
head -n 1 "$tmp/c1.txt" | grep -q '\[emacs\]' || bad "set keymap em<Tab>: $(msgline "$tmp/c1.txt")"
m=$(msgline "$tmp/c2.txt")
case $m in *"set axis"*) bad "set axis 'time ': '$m'" ;; esac
head -n 1 "$tmp/c3.txt" | grep -q '\[default\]' || bad "set keymap 'default ': $(msgline "$tmp/c3.txt")"
head -n 1 "$tmp/c4.txt" | grep -q ' toggle-mouse ' || bad "help 'toggle-m ': $(msgline "$tmp/c4.txt")"
[ $fail = 0 ] && echo "ok   trailing blanks end no word"

# --- counts and extra words ----------------------------------------------
cat >"$tmp/k2" <<EOK
:goto-percent 08
:save-screen $tmp/p1.txt
:goto-percent 010
:save-screen $tmp/p2.txt
:goto-offset 0x100
:save-screen $tmp/p3.txt
:cursor-up -5
:save-screen $tmp/p4.txt
:cursor-down 3x
:save-screen $tmp/p5.txt
:goto-percent 50 extra
:save-screen $tmp/p6.txt
:set-mark ab
:save-screen $tmp/p7.txt
:quit now
:save-screen $tmp/p8.txt
EOK
run "$tmp/k2"
grep -q ' 8\.0%' "$tmp/p1.txt" || bad ":goto-percent 08: $(tail -n 2 "$tmp/p1.txt" | head -n 1)"
grep -q ' 10\.0%' "$tmp/p2.txt" || bad ":goto-percent 010: $(tail -n 2 "$tmp/p2.txt" | head -n 1)"
grep -q '^ 0x100/' "$tmp/p3.txt" || bad ":goto-offset 0x100: $(tail -n 2 "$tmp/p3.txt" | head -n 1)"
want() { m=$(msgline "$1"); [ "$m" = "$2" ] || bad "$3: '$m', not '$2'"; }
want "$tmp/p4.txt" "cursor-up: bad count '-5' (usage: cursor-up [N])" ":cursor-up -5"
want "$tmp/p5.txt" "cursor-down: bad count '3x' (usage: cursor-down [N])" ":cursor-down 3x"
want "$tmp/p6.txt" "goto-percent: too many arguments (usage: goto-percent [N])" ":goto-percent 50 extra"
want "$tmp/p7.txt" "set-mark: too many arguments (usage: set-mark L)" ":set-mark ab"
want "$tmp/p8.txt" "quit: too many arguments (usage: quit)" ":quit now"
[ $fail = 0 ] && echo "ok   counts are decimal; commands without arguments take none"

# --- counts count ----------------------------------------------------------
cat >"$tmp/k3" <<EOK
:goto 10%
m a
:goto 20%
m b
:goto 30%
m c
:goto 40%
m d
g
3 ] '
:save-screen $tmp/m1.txt
G
2 [ '
:save-screen $tmp/m2.txt
g
9 9 9 9 9 9 9 9 9 9 9 9 ] '
:save-screen $tmp/m3.txt
:goto 10%
:goto 20%
:goto 30%
:goto 40%
C-o C-o C-o
:jump-forward 2
:save-screen $tmp/j1.txt
:goto 30%
3 0 l
:save-screen $tmp/h1.txt
3 0 h
3 l
4 2 9 4 9 6 7 2 9 5 l
:save-screen $tmp/h2.txt
g
Tab Tab
9 2 2 3 3 7 2 0 3 6 8 5 4 7 7 5 8 0 8 l
:save-screen $tmp/t1.txt
EOK
run "$tmp/k3"
grep -q ' 30\.0%' "$tmp/m1.txt" || bad "3]': $(tail -n 2 "$tmp/m1.txt" | head -n 1)"
grep -q ' 30\.0%' "$tmp/m2.txt" || bad "2[': $(tail -n 2 "$tmp/m2.txt" | head -n 1)"
grep -q ' 40\.0%' "$tmp/m3.txt" || bad "999999999999]': $(tail -n 2 "$tmp/m3.txt" | head -n 1)"
grep -q ' 30\.0%' "$tmp/j1.txt" || bad ":jump-forward 2: $(tail -n 2 "$tmp/j1.txt" | head -n 1)"
# the packet pane scrolled right as far as it goes, as 30l does
sed -n 2,7p "$tmp/h1.txt" >"$tmp/h1.rows"
sed -n 2,7p "$tmp/h2.txt" >"$tmp/h2.rows"
cmp -s "$tmp/h1.rows" "$tmp/h2.rows" || bad "3l then 4294967295l: not scrolled to the right: $(diff "$tmp/h1.rows" "$tmp/h2.rows")"
grep -q ' 100\.0%' "$tmp/t1.txt" || bad "timeline 9223372036854775808l: not at the end: $(tail -n 2 "$tmp/t1.txt" | head -n 1)"
[ $fail = 0 ] && echo "ok   counts count"

# --- ~/ --------------------------------------------------------------------
cat >"$tmp/k4" <<EOK
:mark hot
:save-screen ~/h.txt
:export-marks ~/m.txt
:save-screen $tmp/e1.txt
EOK
HOME=$tmp "$PTBROWSE" --script "$tmp/k4" --size 100x12 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "~: exit status $? ($(cat "$tmp/out"))"
[ -f "$tmp/h.txt" ] || bad "save-screen ~/h.txt: $(msgline "$tmp/e1.txt")"
grep -q hot "$tmp/m.txt" 2>/dev/null || bad "export-marks ~/m.txt: $(msgline "$tmp/e1.txt")"
[ $fail = 0 ] && echo "ok   ~/ is \$HOME"
# --- help: a binding that does something else has its own line ----------
cat >"$tmp/k5" <<EOK
:set keymap emacs
:bind M-q timeline-zoom out
:help command-prompt
:save-screen $tmp/hp.txt
q
:help timeline-zoom
:save-screen $tmp/hz.txt
q
:help cancel
:save-screen $tmp/hc.txt
EOK
"$PTBROWSE" --no-state --script "$tmp/k5" --size 120x12 "$tmp/t.pt" >"$tmp/out" 2>&1 ||
	bad "help: exit status $? ($(cat "$tmp/out"))"
line() { sed -n "$2p" "$1" | sed 's/  */ /g; s/ *$//'; }
[ "$(line "$tmp/hp.txt" 1)" = " M-x, : command-prompt Open the command prompt (with TEXT) :[TEXT]" ] ||
	bad "help command-prompt: '$(line "$tmp/hp.txt" 1)'"
[ "$(line "$tmp/hp.txt" 2)" = " C-x r m command-prompt Set a named bookmark" ] ||
	bad "help C-x r m: '$(line "$tmp/hp.txt" 2)'"
[ "$(line "$tmp/hp.txt" 3)" = " C-x r b command-prompt Jump to a bookmark" ] ||
	bad "help C-x r b: '$(line "$tmp/hp.txt" 3)'"
grep -q '^  + .* timeline-zoom  *Zoom in$' "$tmp/hz.txt" || bad "help: + zooms in: $(cat "$tmp/hz.txt")"
grep -q '^  M-q .* timeline-zoom  *timeline-zoom out$' "$tmp/hz.txt" ||
	bad "help: M-q (no note) runs timeline-zoom out: $(cat "$tmp/hz.txt")"
[ "$(line "$tmp/hc.txt" 1)" = " C-g; C-g in prompt; C-g in visual cancel Cancel the prompt, selection or count" ] ||
	bad "help cancel: '$(line "$tmp/hc.txt" 1)'"
[ $fail = 0 ] && echo "ok   help: a key doing something else has its own line"
exit $fail
