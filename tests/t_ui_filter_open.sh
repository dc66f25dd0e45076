#!/bin/sh
# t_ui_filter_open -- where the filter view opens, in tmux: '&psb' typed
# at the sixth PSB puts the cursor on that PSB a third of the way down the
# packet pane with the five PSBs before it above it (the view began at the
# cursor: the matches before it were hidden above the top, as if the
# trace had none); '&psb' at the third PSB from the end fills the pane
# from above (no empty rows under the last PSB); and headless, a filter by
# sideband terms (&comm prog, its rows known once their search ends) opens
# the same way: rows of prog above the cursor.
set -u
: "${BUILD:=build}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
gen=$BUILD/tools/ptgen

tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache

# The packet pane's rows of the screen in $tmp/screen: "MARK OFFSET TYPE"
# (MARK '>' on the cursor's row, '-' elsewhere), from the heading's next
# line to the timeline's density row.
rows() {
	awk 'NR > 2 && !/0x[0-9a-f]+/ { exit }
	     NR > 2 { m = substr($0, 1, 1) == ">" ? ">" : "-"
		      match($0, /0x[0-9a-f]+/)
		      rest = substr($0, RSTART)
		      split(rest, f, " ")
		      print m, f[1], f[2] }' "$tmp/screen"
}

"$gen" --size 256KiB -o "$tmp/a.pt" > /dev/null || fail "ptgen"
opts=$(cat "$tmp/a.pt.options")
# The PSBs' offsets as the pane shows them (0x%08x), in order.
"$PTBROWSE" dump $opts "$tmp/a.pt" | awk '$2 == "psb" { print $1 }' |
	while read -r o; do printf '0x%08x\n' $((0x$o)); done > "$tmp/psb"
npsb=$(wc -l < "$tmp/psb")
[ "$npsb" -ge 30 ] || fail "ptgen's trace has $npsb PSBs, want 30 or more"

cat > "$tmp/run.sh" <<EOF
"$PTBROWSE" --no-state $opts "$tmp/a.pt"
echo "EXITED rc=\$?"
sleep 60
EOF
tm new-session -d -s ptb -x 120 -y 30 "TERM=screen LANG=C.UTF-8 sh $tmp/run.sh" ||
	fail "tmux did not start"
wait_for 'F1 help'
wait_for '^ 0x[0-9a-f]+/0x'

# 1. At the sixth PSB (psb 5 counts from 0).
p5=$(sed -n 6p "$tmp/psb")
tm send-keys -t ptb : 'goto psb 5' Enter
wait_for "^ $(printf '0x%x' "$p5")/0x"
tm send-keys -t ptb '&' psb Enter
wait_for 'filter: psb'
rows > "$tmp/rows"
[ "$(awk '$3 != "psb"' "$tmp/rows" | wc -l)" -eq 0 ] || fail "the filter view shows other packets"
h=$(wc -l < "$tmp/rows")
[ "$h" -ge 15 ] || fail "the pane shows $h rows"
cur=$(awk '$1 == ">" { print $2 }' "$tmp/rows")
[ "$cur" = "$p5" ] || fail "the cursor is on '$cur', not on the sixth PSB $p5"
# The cursor's row: a third of the way down, the five PSBs before it
# above it (the whole pane: the PSBs from the first on).
at=$(awk '$1 == ">" { print NR; exit }' "$tmp/rows")
[ "$at" -eq 6 ] || fail "the cursor is on the pane's row $at, not 6 (the five PSBs before it above it)"
awk '{ print $2 }' "$tmp/rows" > "$tmp/shown"
head -n "$h" "$tmp/psb" | cmp -s - "$tmp/shown" || fail "the rows are not the first $h PSBs"
echo "ok   &psb at the sixth PSB: the five before it are above the cursor"

# 2. Mid-trace, more PSBs before than a third of the pane: the cursor a
# third of the way down (row h/3 + 1), the PSBs before it in order above.
tm send-keys -t ptb '&' Enter
wait_for 'filter off'
k=$((npsb / 2))
pk=$(sed -n "$((k + 1))p" "$tmp/psb")
tm send-keys -t ptb : "goto psb $k" Enter
wait_for "^ $(printf '0x%x' "$pk")/0x"
tm send-keys -t ptb '&' psb Enter
wait_for 'filter: psb'
rows > "$tmp/rows"
at=$(awk '$1 == ">" { print NR; exit }' "$tmp/rows")
cur=$(awk '$1 == ">" { print $2 }' "$tmp/rows")
[ "$cur" = "$pk" ] || fail "mid-trace: the cursor is on '$cur', not on PSB $k $pk"
[ "$at" -eq $((h / 3 + 1)) ] || fail "mid-trace: the cursor is on the pane's row $at, not $((h / 3 + 1))"
awk '{ print $2 }' "$tmp/rows" > "$tmp/shown"
sed -n "$((k + 2 - at)),$((k + 1 - at + h))p" "$tmp/psb" | cmp -s - "$tmp/shown" ||
	fail "mid-trace: the rows are not the PSBs around the cursor"
echo "ok   &psb mid-trace: the cursor a third of the way down, the PSBs before it above"

# 3. At the third PSB from the end: the pane is full, the last PSB last.
tm send-keys -t ptb '&' Enter
wait_for 'filter off'
k=$((npsb - 3))
pk=$(sed -n "$((k + 1))p" "$tmp/psb")
tm send-keys -t ptb : "goto psb $k" Enter
wait_for "^ $(printf '0x%x' "$pk")/0x"
tm send-keys -t ptb '&' psb Enter
wait_for 'filter: psb'
rows > "$tmp/rows"
cur=$(awk '$1 == ">" { print $2 }' "$tmp/rows")
[ "$cur" = "$pk" ] || fail "near the end: the cursor is on '$cur', not on PSB $k $pk"
[ "$(wc -l < "$tmp/rows")" -eq "$h" ] || fail "near the end: $(wc -l < "$tmp/rows") rows, not a full pane of $h"
awk '{ print $2 }' "$tmp/rows" > "$tmp/shown"
tail -n "$h" "$tmp/psb" | cmp -s - "$tmp/shown" || fail "near the end: the rows are not the last $h PSBs"
echo "ok   &psb near the end: the pane filled from above"
tm send-keys -t ptb q
wait_for 'EXITED rc=0'

# 4. Headless, a filter by sideband terms: the task 'prog' runs from about
# the middle on (a perf.data of the trace and a written sideband); at a
# packet well inside its run, &comm prog keeps the cursor there with
# prog's rows before it above it.
"$PTBROWSE" dump $opts "$tmp/a.pt" > "$tmp/dump"
t0=$((0x$(awk '$2 == "tsc" { print $3; exit }' "$tmp/dump")))
tl=$((0x$(awk '$2 == "tsc" { t = $3 } END { print t }' "$tmp/dump")))
M=$((t0 + (tl - t0) / 2))
cat > "$tmp/sb" <<EOF
# ptrecord sideband v1: times in TSC ticks
comm 100 100 $((t0 - 40000)) 1 prog
comm 200 200 $((t0 - 40000)) 1 other
switch 0 $((t0 - 40000)) in 200 200 -1 -1 0
switch 0 $M out 200 200 100 100 1
switch 0 $M in 100 100 200 200 0
EOF
"$BUILD/tools/pt2perf" --sideband "$tmp/sb" --cpu 0 "$tmp/a.pt" -o "$tmp/a.data" > /dev/null ||
	fail "pt2perf"
k=$((npsb * 3 / 4))
cat > "$tmp/c.keys" <<EOF
wait-index
:goto psb $k
:save-screen $tmp/c0.txt
:filter comm prog
:save-screen $tmp/c1.txt
EOF
LANG=C.UTF-8 LC_ALL=C.UTF-8 "$PTBROWSE" --no-state --script "$tmp/c.keys" --size 120x30 \
	$opts "$tmp/a.data" > "$tmp/out" 2>&1 || fail "--script: exit status $? ($(cat "$tmp/out"))"
cp "$tmp/c0.txt" "$tmp/screen"
before=$(rows | awk '$1 == ">" { print $2 }')
cp "$tmp/c1.txt" "$tmp/screen"
tail -n 2 "$tmp/screen" | grep -q 'filter: comm prog' || fail "&comm prog: no filter on the status line"
rows > "$tmp/rows"
cur=$(awk '$1 == ">" { print $2 }' "$tmp/rows")
at=$(awk '$1 == ">" { print NR; exit }' "$tmp/rows")
h=$(wc -l < "$tmp/rows")
[ -n "$before" ] && [ "$cur" = "$before" ] ||
	fail "&comm prog: the cursor moved from '$before' to '$cur' (both in prog's run)"
[ "$at" -eq $((h / 3 + 1)) ] ||
	fail "&comm prog: the cursor is on the pane's row $at, not $((h / 3 + 1)) (prog's rows before it above it)"
echo "ok   &comm prog: the cursor a third of the way down, prog's rows before it above"
