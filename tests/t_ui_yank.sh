#!/bin/sh
# t_ui_yank -- copy and pipe in a terminal (tmux): y y puts the cursor's
# row, as the packet pane shows it, on the clipboard as OSC 52 (outside
# tmux: the bytes reach the terminal); inside tmux y o puts the offset in
# tmux's buffer; a 100-row selection (v 99j) piped to wc -l prints 100,
# and the browser comes back after Enter; a mouse drag over ten packet
# rows selects them (| wc -l: 10), the selection following the pointer
# before the release; :pipe raw writes the bytes export
# writes, which decode; inside GNU screen the OSC 52 goes through its
# passthrough; F2 turns the terminal's mouse modes off and on; :export
# takes goto targets and region names, its
# file the bytes of `ptbrowse export ... -o -`, as :pipe raw's are.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
SHARED=${SHARED:-../shared}
T=$SHARED/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt

[ -r "$T" ] || { echo "no trace $T"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# The cursor row's text in the packet pane (61 columns past the gutter).
cursor_text() {
	screen | sed -n 's/^>..//p' | head -n 1 | cut -c1-61 | sed 's/ *$//'
}

# } to the first PSB after 0x0 (0x4258); again if a loaded machine lost
# the key while the browser was starting (the offset still 0x0).
to_psb() {
	for _t in 1 2 3; do
		keys '}'
		_j=0
		while [ $_j -lt 50 ]; do
			[ "$(status_off)" = 0x4258 ] && return 0
			sleep 0.1
			_j=$((_j + 1))
		done
		[ "$(status_off)" = 0x0 ] || break
	done
	fail "} did not go to 0x4258 (at $(status_off))"
}

# Wait up to 5 s for FILE to hold the fixed string STR: pipe-pane copies
# the pane's output to the file on its own time, after the screen shows it.
wait_file() {
	_j=0
	while [ $_j -lt 50 ]; do
		grep -aqF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		_j=$((_j + 1))
	done
	return 1
}

# Outside tmux (TMUX empty): the OSC 52 string on the terminal's input.
tm_start TMUX= -- "$T"
tm pipe-pane -t ptb -o "cat >> '$tmp/out'"
to_psb
keys y y
wait_for 'yanked 1 row \([0-9]+ bytes\) to the clipboard \(OSC 52\)'
row=$(cursor_text)
wait_file "$tmp/out" ']52;c;'
b64=$(grep -ao ']52;c;[A-Za-z0-9+/=]*' "$tmp/out" | tail -n 1 | cut -d';' -f3)
[ -n "$b64" ] || fail "no OSC 52 in the terminal's output"
printf '%s\n' "$row" > "$tmp/want"
printf '%s' "$b64" | base64 -d > "$tmp/got" || fail "bad base64: $b64"
cmp -s "$tmp/want" "$tmp/got" || fail "OSC 52 holds '$(cat "$tmp/got")', the row is '$row'"
echo "ok   y y writes OSC 52 with the row's text: $row"
tm_quit

# Inside tmux: tmux's buffer.
tm_start -- "$T"
to_psb
keys y o
wait_for "yanked offset 0x4258 \(6 bytes\) to tmux's buffer"
[ "$(tm show-buffer)" = 0x4258 ] || fail "tmux's buffer holds '$(tm show-buffer)'"
echo "ok   y o puts the offset in tmux's buffer"

# A 100-row selection to wc -l; Enter comes back.
keys v 9 9 j
wait_for 'VISUAL'
keys '|'
wait_for '^:pipe'
keys -l 'wc -l'
keys Enter
wait_for 'press Enter to go back'
screen | grep -q '^ *100$' || fail "wc -l of 100 rows did not print 100"
keys Enter
wait_for 'piped 100 rows \([0-9]+ bytes\) to .wc -l.: exit 0'
echo "ok   | wc -l of a 100-row selection prints 100"

# A drag from the first packet row to the tenth (screen lines 2 and 11,
# column 10): X10 reports, button and place + 32 (+ 33 for 0-based).
# The cursor waits on the second row first, so that the press is seen
# landing (on a loaded machine the two reports may come apart).
keys g
wait_off 0x0
row10=$(screen | sed -n 12p | sed -n 's/^...\(0x[0-9a-f]*\) .*/\1/p')
[ -n "$row10" ] || fail "no packet row on line 12"
keys j
wait_off "$(screen | sed -n 4p | sed -n 's/^...\(0x[0-9a-f]*\) .*/\1/p')"
keys -l "$(printf '\033[M +#')"
wait_off 0x0
keys -l "$(printf '\033[M#+,')"
wait_for "VISUAL --  rows 0x0-$(printf '0x%x' $((row10))):"
keys '|'
wait_for '^:pipe'
keys -l 'wc -l'
keys Enter
# (the first pipe's 'press Enter' may still be on the terminal's screen)
wait_for '^ *10$'
wait_for 'press Enter to go back'
screen | grep -q '^ *10$' || fail "wc -l of a 10-row drag did not print 10"
keys Enter
wait_for 'piped 10 rows'
echo "ok   a drag over ten packet rows selects them"

# The selection follows the pointer while the button is held (a motion
# report: 32 + 32 for the motion): pressed on line 3 (the second row,
# where the cursor goes) and moved to line 7, rows 1 to 5 are selected
# before any release; moved back to line 3 and released there, none is.
keys g
wait_off 0x0
row1=$(screen | sed -n 4p | sed -n 's/^...\(0x[0-9a-f]*\) .*/\1/p')
row5=$(screen | sed -n 8p | sed -n 's/^...\(0x[0-9a-f]*\) .*/\1/p')
[ -n "$row1" ] && [ -n "$row5" ] || fail "no packet rows on lines 4 and 8"
keys -l "$(printf '\033[M +$')"
wait_off "$row1"
keys -l "$(printf '\033[M@+(')"
wait_for "VISUAL --  rows $(printf '0x%x' $((row1)))-$(printf '0x%x' $((row5))):"
wait_off "$row5"
keys -l "$(printf '\033[M@+$')"
wait_for "VISUAL --  rows $(printf '0x%x-0x%x' $((row1)) $((row1))):"
keys -l "$(printf '\033[M#+$')"
wait_for 'selection cancelled'
echo "ok   a drag's selection follows the pointer before the release ($row1-$row5), and back to the start is none"

# A press whose release goes to a view opened over the browser (help, by
# F1) ends there: back in the browser, the pointer's motion with no
# button held ('C': 32 + 3 for none + 32 for the motion) selects nothing.
keys g
wait_off 0x0
keys -l "$(printf '\033[M +$')"
wait_off "$row1"
keys F1
wait_for 'keys and commands'
keys -l "$(printf '\033[M#+(')"
keys q
wait_gone 'keys and commands'
keys -l "$(printf '\033[MC+(')"
keys -l "$(printf '\033[MC+*')"
sleep 0.3
screen | grep -q VISUAL && fail "a press released over help went on selecting in the browser"
echo "ok   a press released over a view opened mid-drag selects nothing afterwards"

# The rows' bytes, as export writes them: from the PSB at 0x4258.
keys -l ':goto 0x4258'
keys Enter
wait_off 0x4258
keys -l ":pipe raw rows 100 cat > '$tmp/slice.pt'"
keys Enter
wait_for 'press Enter to go back'
keys Enter
wait_for 'piped 100 rows as a slice \([0-9]+ bytes\)'
n=$(screen | sed -n 's/.*as a slice (\([0-9]*\) bytes).*/\1/p' | head -n 1)
tail -c +$((0x4258 + 1)) "$T" | head -c "$n" > "$tmp/want.pt"
cmp -s "$tmp/slice.pt" "$tmp/want.pt" || fail "the raw slice is not the trace's bytes"
"$PTBROWSE" dump "$tmp/slice.pt" > "$tmp/dump" 2>&1 || fail "the slice does not decode"
[ "$(grep -c . "$tmp/dump")" -ge 100 ] || fail "the slice has under 100 packets"
echo "ok   :pipe raw rows 100 writes a slice that decodes ($n bytes)"
# F2 leaves the mouse to the terminal (its modes off, so a drag selects
# the screen's text) and takes it back.
mflags() { tm display -p -t ptb '#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}'; }
[ "$(mflags)" != 000 ] || fail "the mouse modes are off while the browser runs"
keys F2
wait_for 'mouse off'
[ "$(mflags)" = 000 ] || fail "after F2 the terminal's mouse modes are $(mflags), not off"
keys F2
wait_for 'mouse on'
[ "$(mflags)" != 000 ] || fail "after F2 again the mouse modes are still off"
echo "ok   F2 turns the terminal's mouse modes off and on"
tm_quit
[ "$(tm display -p -t ptb '#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}')" = 000 ] ||
	fail "the mouse modes stayed on after the browser quit"
echo "ok   the mouse modes are off after quitting"

# Inside GNU screen ($STY, no $TMUX): the OSC 52 in screen's passthrough.
tm_start TMUX= STY=1.ptb -- "$T"
tm pipe-pane -t ptb -o "cat >> '$tmp/out2'"
keys y o
wait_for 'yanked offset 0x0 \(3 bytes\) to the clipboard \(OSC 52 through screen\)'
wait_file "$tmp/out2" "$(printf '\033P\033]52;c;MHgw\a\033\\')" ||
	fail "no OSC 52 in screen's passthrough in the output"
echo "ok   inside screen, y o writes OSC 52 through its passthrough"
tm_quit

# :export with goto targets and a region, :pipe raw of the region, and
# the command line's export to standard output: the same bytes.
XDG="XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache"
cat > "$tmp/x.s" <<EOS
wait-index
:export "psb 2" "psb 4" $tmp/x1.pt
:region hot 0x4258 0x5000
:export hot $tmp/x2.pt
:pipe raw region hot cat > $tmp/x3.pt
EOS
env $XDG "$PTBROWSE" --script "$tmp/x.s" "$T" >/dev/null || fail "--script :export failed"
env $XDG "$PTBROWSE" export "$T" 'psb 2' 'psb 4' -o - 2>/dev/null > "$tmp/y1.pt"
env $XDG "$PTBROWSE" export "$T" hot -o - 2>/dev/null > "$tmp/y2.pt"
[ -s "$tmp/y1.pt" ] && cmp -s "$tmp/x1.pt" "$tmp/y1.pt" || fail ":export 'psb 2' 'psb 4' differs from export -o -"
[ -s "$tmp/y2.pt" ] && cmp -s "$tmp/x2.pt" "$tmp/y2.pt" || fail ":export hot differs from export hot -o -"
cmp -s "$tmp/x3.pt" "$tmp/y2.pt" || fail ":pipe raw region hot differs from export hot -o -"
echo "ok   :export (goto targets, a region), :pipe raw and export -o - write the same bytes"
