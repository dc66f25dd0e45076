#!/bin/sh
# t_ui_goto_long_tmux -- in a terminal, :goto tsc V deep in a 32 MiB PSB
# segment looks for the rest in the background: the status line shows its
# progress, C-c stops it, a key that moves the cursor drops it, and left
# alone it lands on a packet at or after V, near the end.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache

"$GEN" --seed 4 --size 32MiB --psb-period 33554432 -o "$tmp/t.pt" >/dev/null || fail "ptgen"
# The status line's TSC (without the "~" of an estimate).
status_tsc() { screen | tail -n 2 | head -n 1 | sed -n 's/.* tsc [~?]*\(0x[0-9a-f]*\) .*/\1/p'; }

tm_start -- --no-state "$tmp/t.pt"
wait_for '0x00000000'
# The target: a little before the last row's TSC (the end's, once the
# index's time pass got there).
i=0
while :; do
	keys G
	sleep 0.5
	keys g
	sleep 0.5
	keys G
	sleep 0.5
	t=$(status_tsc)
	[ -n "$t" ] && ! screen | grep -q 'psb+' && break
	i=$((i + 1))
	[ $i -lt 60 ] || fail "no TSC at the end"
done
v=$(printf '0x%x' $((t - 0x200)))
keys g
wait_for '^ 0x0/'
# (until the index's time pass is done, goto says times are being indexed)
i=0
while :; do
	keys ":goto tsc $v" Enter
	sleep 0.5
	screen >"$tmp/screen"
	grep -q 'looking past the first' "$tmp/screen" && break
	i=$((i + 1))
	[ $i -lt 120 ] || fail "goto never looked further"
done
wait_for "goto tsc $v: [0-9]+% \(C-c stops\)"
keys C-c
wait_for 'goto stopped \(C-c\)'
[ "$(status_off)" = 0x0 ] || fail "C-c: moved to $(status_off)"

# A key that moves the cursor drops it.
keys ":goto tsc $v" Enter
wait_for 'looking past the first'
keys j
sleep 0.3
screen | tail -n 2 | head -n 1 | grep -q "goto tsc" && fail "j: the goto still runs"
sleep 1
[ $(($(status_off))) -lt $((0x1000000)) ] || fail "j: it landed after all"

# Left alone, it lands, near the end, on a TSC at or after V (the exact
# row is t_ui_goto_long's).
keys g
wait_for '^ 0x0/'
keys ":goto tsc $v" Enter
wait_for 'looking past the first'
i=0
while [ "$(status_off)" = 0x0 ]; do
	sleep 0.5
	i=$((i + 1))
	[ $i -lt 240 ] || fail "goto tsc $v: it never landed"
done
o=$(status_off)
t=$(status_tsc)
[ $((o)) -gt $((0x1800000)) ] && [ $((t)) -ge $((v)) ] ||
	fail "goto tsc $v: at $o (tsc $t)"
tm_quit
echo ok
