#!/bin/sh
# t_ui_cancel -- long work in the browser shows progress and stops for C-c:
# a filter with no hits on a big trace (it looked a budget per turn,
# silently, for minutes), and a huge counted move with no index to jump by
# or in the filter view (it stepped row by row and ignored C-c).  A rare
# filter hit far away is found by the background look.  No times are
# asserted: only what the screen says.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

# Big enough that looking through it takes a while.
"$GEN" --seed 7 --size 256MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"

# A filter that matches nothing and cannot skip a segment: progress, then
# C-c says it stopped and the browser answers keys again.
tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
keys '&' 'cyc > 99999999999' Enter
wait_for 'filter: cyc > 99999999999 \((looking [0-9]+%, C-c stops|none below)\)' 120
grep -q 'none below' "$tmp/screen" && fail "the filter looked through 256 MiB before a screen was drawn"
keys C-c
wait_for 'filter: stopped looking for more cyc > 99999999999 rows'
wait_for 'filter: cyc > 99999999999 \(stopped\)'
keys '&' Enter
wait_for 'filter off: all packets'

# A filter whose only hits are the last TSC packets: found by the
# background look, shown as the filter view's rows.
last=$("$PTBROWSE" dump "$tmp/t.pt:0xffe0000" 2>/dev/null | sed -n 's/^\(0*[0-9a-f]*\)  *tsc  *\([0-9a-f]*\)$/\1 \2/p' | tail -n 2 | head -n 1)
off=${last% *}
tsc=${last#* }
[ -n "$off" ] && [ -n "$tsc" ] || fail "no TSC packet near the end of the trace"
keys '&' "tsc >= 0x$tsc" Enter
wait_for "0x0*$(printf '%x' $((0x$off)))  *tsc  *$tsc" 120
# A huge count in the filter view walks the matches: C-c stops it.
keys '&' tip Enter
wait_for 'filter: tip *($|\[| )'
keys 9 9 9 9 9 9 9 9 9 j
sleep 0.2
keys C-c
wait_for 'filter: move interrupted \(C-c\)'
tm_quit

# A huge count without an index steps in pieces and stops for C-c.
tm_start -- --no-state --no-index "$tmp/t.pt"
wait_for '0x00000000'
keys 9 9 9 9 9 9 9 9 9 j
sleep 0.2
keys C-c
wait_for 'interrupted after [0-9]+ rows \(C-c\)'
o=$(status_off)
[ $((o)) -lt $((0xfffffff)) ] || fail "the move was not stopped ($o)"
tm_quit
echo ok
