#!/bin/sh
# t_ui_lanes_reload -- R on a perf.data replaced by another of the same
# size (other process names), then by copies of itself: the CPU lanes
# name the processes of the file read again.  (Their cache was keyed on
# the trace's address and size: a trace opened by a second R at the
# address the first one's freed, with no lanes drawn between, named the
# freed records' processes; R now drops the cache.  That interleaving is
# not made here: this guards what R must show.)
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$BUILD/tools/ptgen" -S 16K -s 1 -o "$tmp/a.bin" >/dev/null || fail "ptgen"
OPTS=$(cat "$tmp/a.bin.options")
T=$(printf '%d' 0x106d0fc71000)
cat > "$tmp/sb" <<SB
# ptrecord sideband v1: times in TSC ticks
comm 100 100 $T 1 server
switch 0 $T in 100 100 -1 -1 0
comm 200 200 $((T + 60000)) 1 client
switch 0 $((T + 80000)) out 100 100 200 200 1
switch 0 $((T + 80000)) in 200 200 100 100 0
exit 200 200 $((T + 200000))
SB
"$BUILD/tools/pt2perf" --sideband "$tmp/sb" --cpu 0 "$tmp/a.bin" --cpu 1 "$tmp/a.bin" \
	-o "$tmp/p.data" >/dev/null || fail "pt2perf"
# The same records under other names of the same lengths.
sed 's/server/waiter/; s/client/player/' "$tmp/sb" >"$tmp/sb2"
"$BUILD/tools/pt2perf" --sideband "$tmp/sb2" --cpu 0 "$tmp/a.bin" --cpu 1 "$tmp/a.bin" \
	-o "$tmp/q.data" >/dev/null || fail "pt2perf"
[ "$(wc -c <"$tmp/p.data")" = "$(wc -c <"$tmp/q.data")" ] || fail "not the same size"

# shellcheck disable=SC2086
tm_start -- --no-state $OPTS "$tmp/p.data"
wait_for 'A server 100 B client 200'
cp "$tmp/q.data" "$tmp/p.new" && mv "$tmp/p.new" "$tmp/p.data"
keys R
wait_for 'reloaded: the file was replaced'
wait_for 'A waiter 100 B player 200'
for i in 1 2 3; do
	cp "$tmp/p.data" "$tmp/p.new" && mv "$tmp/p.new" "$tmp/p.data"
	keys R
	wait_for 'reloaded: the file was replaced'
	wait_for 'A waiter 100 B player 200'
done
tm_quit
echo "ok   the lanes after R name the processes of the file read again"
