#!/bin/sh
# t_ui_keyqueue -- keys typed ahead while the browser is busy: a C-c behind
# another key still stops a long walk (the key before it was put back and
# read again, so the C-c was never seen), and a C-c typed while the
# timeline places trouble in an idle turn is not lost (asking whether a
# key waits took it).
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 7 --size 256MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"

# A walk without an index steps in pieces: j then C-c typed during it.
# The C-c stops the walk; the j, typed first, runs after it.
tm_start -- --no-state --no-index "$tmp/t.pt"
wait_for '0x00000000'
keys 9 9 9 9 9 9 9 9 9 j
sleep 0.3
keys j C-c
sleep 2
o=$(status_off)
[ -n "$o" ] && [ $((o)) -lt $((0xfffffff)) ] || fail "the move was not stopped (${o:-busy})"
messages_have 'interrupted after [0-9]+ rows \(C-c\)'
tm_quit
# A paste while a walk runs arrives whole (the queue held 256 keys and
# dropped the rest): 1200 characters typed ahead at the prompt, which
# keeps the line in its history.
tm_start -- --no-index "$tmp/t.pt"
wait_for '0x00000000'
keys 9 9 9 9 9 9 9 9 9 j
sleep 0.3
long=$(printf 'ab%.0s' $(seq 1 600))
tm send-keys -t ptb -l ":search $long"
keys C-c
wait_for 'babab$'
keys Enter
wait_gone 'babab$'
tm_quit
h=$(tail -n 1 "$tmp/state/ptbrowse/history" 2>/dev/null)
[ "$h" = "search $long" ] ||
	fail "the 1208 keys typed ahead did not all arrive: ${#h} of them in the history"
# Long segments with overflows: the timeline places its trouble in idle
# turns (up to 0.15 s, 2 s after the last key).  A C-c typed then is
# answered as any other C-c.
"$GEN" --seed 3 --size 256MiB --psb-period 4000000 --ovf-rate 0.0005 \
	-o "$tmp/o.pt" >/dev/null || fail "ptgen ovf"
tm_start -- --no-state "$tmp/o.pt"
# (indexed first: a C-c would stop the index; the first segment's packet
# number shows long before the index is done, on a loaded machine)
wait_for ' 0x0/0x10000000 0.0%  psb #0 ' 120
wait_gone 'index +[0-9]+%' 120
wait_for '\?' 60
i=0
for d in 2.02 2.06 2.10 2.04 2.08 2.12 2.03 2.07 2.11 2.05 2.09 2.13; do
	i=$((i + 1))
	keys C-l
	sleep $d
	keys C-c
	# (the C-l's redraw clears the message line first)
	j=0
	until screen | tail -n 1 | grep -q 'nothing to interrupt'; do
		j=$((j + 1))
		[ $j -lt 30 ] || fail "C-c number $i (after $d s) was lost: $(screen | tail -n 1)"
		sleep 0.1
	done
done
tm_quit
echo ok
