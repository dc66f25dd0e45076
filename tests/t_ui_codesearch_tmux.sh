#!/bin/sh
# Code searches in a real terminal (tmux), where they run in the
# background while the main loop polls them: /sym NAME lands on flow's
# first line in NAME and shows [1/N] once done; n goes on; :goto sym
# wraps round the end; &comm NAME shows only that task's packets once its
# search ends, and & alone all of them again.  On a perf.data of
# tests/progs/p_sample (make sample-code's if built, else recorded here).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
# wide: the status line's search part comes after the cursor's function,
# source line and task
TM_COLS=220
. tests/tmux_lib.sh
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
. tests/rec_lib.sh
rec_sample "$tmp/rec" || { echo "FAIL $rec_err"; exit 1; }
perf=$tmp/rec/perf.data
# the stream where is_sorted runs (threads move between recordings)
for S in cpu0 cpu1; do
	"$PTBROWSE" flow --offset --stream $S "$perf" 2>/dev/null |
		awk '$3 ~ /^is_sorted\+/ { print $1 }' | sort -u |
		while read -r o; do printf '0x%x\n' "$((0x$o))"; done >"$tmp/want"
	[ -s "$tmp/want" ] && break
done
[ -s "$tmp/want" ] || fail "is_sorted runs on no CPU"
n=$(wc -l <"$tmp/want")
comm=$(awk '$1 == "comm" && $6 == "sorter" { print $6; exit }' "$tmp/rec/trace.sideband")

tm new-session -d -s ptb -x "$TM_COLS" -y "$TM_ROWS" \
	"LANG=C.UTF-8 '$PTBROWSE' --no-state --stream $S '$perf'"
wait_for 'psb'
keys '/sym is_sorted' Enter
wait_for "/sym is_sorted \\[1/$n\\]"
[ "$(printf '0x%x' "$(($(status_off)))")" = "$(sed -n 1p "$tmp/want")" ] ||
	fail "/sym is_sorted: at $(status_off), flow's first is $(sed -n 1p "$tmp/want")"
keys n
wait_for "/sym is_sorted \\[2/$n\\]"
[ "$(printf '0x%x' "$(($(status_off)))")" = "$(sed -n 2p "$tmp/want")" ] ||
	fail "n: at $(status_off), flow's second is $(sed -n 2p "$tmp/want")"
keys G
keys ':goto sym is_sorted' Enter
wait_for "/sym is_sorted \\[1/$n\\]"
echo "ok   /sym, n and :goto sym round the end in a terminal"

if [ -n "$comm" ]; then
	"$PTBROWSE" dump --stream $S --comm "$comm" "$perf" 2>/dev/null |
		while read -r o rest; do printf '0x%x\n' "$((0x$o))"; done >"$tmp/kept"
	keys '&comm sorter' Enter
	wait_for "filter: comm sorter *\$"
	# (the filter view draws its rows once its first page is found)
	wait_for '^>.{1,2}0x[0-9a-f]+ '
	grep -qx "$(printf '0x%x' "$(($(cursor_off)))")" "$tmp/kept" ||
		fail "&comm sorter: the cursor's row $(cursor_off) is not one dump --comm keeps"
	screen | sed -n 's/^.\{1,3\}\(0x[0-9a-f]\{8\}\)  .*/\1/p' | while read -r o; do
		grep -qx "$(printf '0x%x' "$((o))")" "$tmp/kept" || echo "$o"
	done >"$tmp/stray"
	[ -s "$tmp/stray" ] && fail "&comm sorter shows rows dump does not keep: $(head -n 3 "$tmp/stray")"
	keys '&' Enter
	wait_for 'filter off'
	echo "ok   &comm sorter in a terminal"
fi
keys q

# A search that wraps says so, and the timeline's note of the sideband
# event near where it lands does not write over that (from the end the
# search wraps to the first call of add, in matmul, where the matrix
# thread's comm event is nearest; on the stream where matmul ran, which
# changes between recordings).
for A in cpu0 cpu1; do
	printf 'wait-index\n:search call add\nwait-search\n:save-screen %s\n' "$tmp/add.txt" >"$tmp/addkeys"
	"$PTBROWSE" --no-state --stream $A --script "$tmp/addkeys" --size 200x10 "$perf" >/dev/null 2>&1
	grep -q '/call add \[[0-9]' "$tmp/add.txt" 2>/dev/null && break
done
tm kill-session -t ptb 2>/dev/null
tm new-session -d -s ptb -x "$TM_COLS" -y "$TM_ROWS" \
	"LANG=C.UTF-8 '$PTBROWSE' --no-state --stream $A '$perf'"
wait_for 'psb'
keys G
keys ':search call add' Enter
wait_for '/call add \[1/'
sleep 0.5
screen | tail -n 2 | grep -q 'search hit BOTTOM' ||
	fail "the wrapped search's message is gone: $(screen | tail -n 1)"
echo "ok   a wrapped search's message stays beside the sideband's notes"
keys q
exit 0
