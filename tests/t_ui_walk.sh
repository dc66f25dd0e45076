#!/bin/sh
# t_ui_walk -- a jump deep into a long PSB segment (64 MiB here, one
# segment) needs the segment decoded from its PSB: seconds.  The browser's
# thread leaves that to a job: the status line says how far it got, keys
# work meanwhile, and the jump lands by itself when it is done.  C-c stops
# the job and the cursor stays where it was; the same jump asked again
# goes on from there.  The idle turns leave a stopped segment alone, a
# stopped E does not say there is no earlier trouble, and a key other
# than a jump that waited is told to ask again.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache

"$GEN" --seed 4 --size 64MiB --psb-period 67108864 -o "$tmp/t.pt" >/dev/null || fail "ptgen"

# landed: wait until the cursor is in the last MiB
landed() {
	i=0
	while [ $(($(status_off))) -lt $((0x3f00000)) ]; do
		sleep 0.5
		i=$((i + 1))
		[ $i -lt 240 ] || fail "$1: G never landed: $(status_off)"
	done
}

tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
keys G
wait_for 'decoding the PSB segment at 0x0 \(64\.0 MiB\) from its start: [0-9]+% \(C-c stops\)'
# the browser answers meanwhile: help comes and goes
keys F1
wait_for ' help  line 1/'
keys q
wait_gone ' help  line 1/'
wait_for 'decoding the PSB segment at 0x0'
[ "$(status_off)" = 0x0 ] || fail "the cursor moved before the decode was done: $(status_off)"
landed "unasked"
echo "ok   G in a 64 MiB segment: decoded by a job with its progress shown, keys answer, G lands by itself ($(status_off))"
tm_quit

tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
keys G
wait_for 'decoding the PSB segment at 0x0 \(64\.0 MiB\) from its start: [0-9]+%'
keys C-c
wait_for 'stopped decoding the PSB segment at 0x0 at [0-9]+% \(C-c\)'
[ "$(status_off)" = 0x0 ] || fail "C-c: the cursor moved to $(status_off)"
keys j
wait_for '^ 0x10/'
sleep 1
[ "$(status_off)" = 0x10 ] || fail "a stopped jump landed: $(status_off)"
echo "ok   C-c stops it, the cursor stays, j works, the jump does not land later"
keys G
landed "asked again"
echo "ok   G asked again lands at the end ($(status_off))"
tm_quit

# The last one asked lands: G waiting for its decode, then a :goto to a
# TSC (a job of its own) deeper in: the goto lands, whichever ends first;
# and the other way round, G.
printf ':goto 0x3000000\n:save-screen %s\n' "$tmp/s3.txt" > "$tmp/k3"
"$PTBROWSE" --no-state --no-index --script "$tmp/k3" "$tmp/t.pt" >/dev/null 2>&1 ||
	fail "the script failed"
tsc=$(sed -n 's/.* tsc ~\(0x[0-9a-f]*\) .*/\1/p' "$tmp/s3.txt")
[ -n "$tsc" ] || fail "no TSC at 0x3000000"
tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
wait_gone 'index +[0-9]+%' 120
keys G
wait_for 'decoding the PSB segment at 0x0'
keys ":goto tsc $tsc" Enter
i=0
until [ $(($(status_off))) -ge $((0x2f00000)) ] && [ $(($(status_off))) -lt $((0x3100000)) ]; do
	sleep 0.5
	i=$((i + 1))
	[ $i -lt 120 ] || fail "G then :goto tsc: the goto did not land ($(status_off))"
done
sleep 2
[ $(($(status_off))) -lt $((0x3100000)) ] || fail "G landed over the later :goto ($(status_off))"
echo "ok   G, then :goto tsc before G landed: the goto lands, G does not ($(status_off))"
keys g
wait_for '^ 0x0/'
keys ":goto tsc $tsc" Enter
wait_for 'looking past|decoding the PSB'
keys G
landed "a :goto, then G"
wait_for 'not taken: (a later jump was asked|the cursor moved first)'
echo "ok   :goto tsc, then G: G lands, the goto says it was not taken"
tm_quit

# A 32 MiB segment and a last one of a few rows: G lands at once on the
# last row, the rows above it decoded after, and the view is placed again
# then (no empty rows below the last packet, no "ask again").
"$GEN" --seed 4 --size 33554510 --psb-period 33554432 -o "$tmp/e.pt" >/dev/null || fail "ptgen"
tm_start -- --no-state "$tmp/e.pt"
wait_for '0x00000000'
wait_gone 'index +[0-9]+%' 120
keys G
wait_for 'decoding the PSB segment at 0x0'
wait_gone 'decoding the PSB segment at 0x0' 120
sleep 0.5
rows=$(screen | grep -c '^.\{0,5\}0x0[0-9a-f]\{7\} ')
[ "$rows" -ge 30 ] || fail "G: the view has $rows packet rows after the decode"
screen | grep -q 'ask again' && fail "G said 'ask again'"
echo "ok   G next to a long segment: the view filled when its end is decoded"
tm_quit

# Three 32 MiB segments: at the third PSB the rows above it are the
# second segment's end.  Stopped, that decode is not started again by
# the idle turns (the prefetch of the rows before the cursor did, within
# seconds), and E stopped there says nothing of "no earlier" trouble.
"$GEN" --seed 5 --size 96MiB --psb-period 33554432 --ovf-rate 0.0001 -o "$tmp/s.pt" >/dev/null ||
	fail "ptgen"
tm_start -- --no-state "$tmp/s.pt"
wait_for '0x00000000'
wait_gone 'index +[0-9]+%' 120
keys ":goto psb 2" Enter
wait_for 'decoding the PSB segment at 0x[0-9a-f]+ \(32\.0 MiB\) from its start'
keys C-c
wait_for 'stopped decoding the PSB segment'
# k asks for the row above: the same decode, stopped again
keys k
wait_for 'decoding the PSB segment at 0x[0-9a-f]+ \(32\.0 MiB\)'
keys C-c
wait_for 'stopped decoding the PSB segment'
sleep 3
screen | grep -q 'decoding the PSB segment at 0x[0-9a-f]* ([0-9.]* MiB) from its start' && fail "the idle turns decode the stopped segment again"
echo "ok   a segment whose decode C-c stopped is left alone until a key asks"
keys E
wait_for 'decoding the PSB segment at 0x[0-9a-f]+ \(32\.0 MiB\)'
keys C-c
wait_for 'stopped decoding the PSB segment'
sleep 0.5
screen | tail -n 1 | grep -q 'no earlier' && fail "E stopped by C-c says there is no earlier trouble"
echo "ok   E stopped by C-c does not say there is no earlier trouble"
# left to finish, E is told to ask again, and then goes on
keys E
wait_for 'decoded the PSB segment at 0x[0-9a-f]+: ask again' 120
keys E
wait_gone 'decoded the PSB segment' 20
screen | tail -n 1 | grep -q 'no earlier' && fail "E: no earlier trouble"
echo "ok   E waiting for the decode is told to ask again; asked, it goes on"
tm_quit
echo ok
