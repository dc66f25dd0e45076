#!/bin/sh
# t_ui_reload_cache -- a recording appends while the browser indexes it:
# the index of the part mapped is cached all the same (it was refused,
# "index not cached: ... changed since it was indexed", since size and
# mtime cannot tell an append from a rewrite), so R and the next start
# load it as grown and index only the tail; R's index is cached in turn.
# The cache is checked with `ptbrowse index`, which says how it used it.
set -u
PTBROWSE=${PTBROWSE:-build/ptbrowse}
BUILD=${BUILD:-build}
GEN=$BUILD/tools/ptgen
[ -x "$GEN" ] || { echo "no $GEN"; exit 1; }
tmp=$(mktemp -d)
. "$(dirname "$0")/tmux_lib.sh"

"$GEN" --seed 1 --size 16MiB -o "$tmp/t.pt" >/dev/null || fail "ptgen"
"$GEN" --seed 2 --size 1MiB -o "$tmp/more.pt" >/dev/null || fail "ptgen"
size0=$(wc -c <"$tmp/t.pt")

# The recording: 4 KiB of the same kind of trace every 20 ms, from before
# the browser maps the file until well after its index is made.
(
	i=0
	while [ -d "$tmp" ] && [ ! -e "$tmp/stop" ]; do
		dd if="$tmp/more.pt" bs=4096 skip=$((i % 256)) count=1 \
			>>"$tmp/t.pt" 2>/dev/null
		i=$((i + 1))
		sleep 0.02
	done
) &
apid=$!
trap 'kill $apid 2>/dev/null; tm_cleanup' EXIT INT TERM

# :info until the index is done; prints its line.
index_done() {
	_i=0
	while [ $_i -lt 100 ]; do
		keys : info Enter
		sleep 0.1
		screen >"$tmp/screen"
		grep -q 'PSBs, done' "$tmp/screen" && {
			grep 'PSBs, done' "$tmp/screen"
			return 0
		}
		_i=$((_i + 1))
	done
	fail "the index is not done"
}

# The cache file, waited for (the browser writes it once the index is
# done, in the background).
cache_file() {
	_i=0
	while [ $_i -lt 100 ]; do
		for _f in "$tmp"/cache/ptbrowse/index/*-raw.idx; do
			[ -f "$_f" ] && return 0
		done
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "the index was not cached while the file grew"
}

# How `ptbrowse index` used the cache in $1 ("hit", "grown", ...).
cli_cache() {
	XDG_CACHE_HOME=$1 "$PTBROWSE" index --time --json "$tmp/t.pt" |
		sed -n 's/.*"cache": "\([a-z]*\)".*/\1/p'
}

tm_start -- --no-state "$tmp/t.pt"
mapped=$(keys : info Enter; sleep 0.2; screen | sed -n 's/.*t\.pt: \([0-9]*\) bytes.*/\1/p' | head -n 1)
index_done >/dev/null
cache_file
sleep 0.3	# (the file is renamed into place whole; let the saver end)
touch "$tmp/stop"
wait $apid
size1=$(wc -c <"$tmp/t.pt")
[ "$size1" -gt "${mapped:-$size0}" ] || fail "the file did not grow after it was mapped ($size1, mapped $mapped)"

# What R loads: the index of the part mapped, the tail still to do.
cp -r "$tmp/cache" "$tmp/cache2"
[ "$(cli_cache "$tmp/cache2")" = grown ] || fail "the cache did not serve the grown file as grown"

sum0=$(cksum "$tmp"/cache/ptbrowse/index/*-raw.idx)
keys R
wait_for 'reloaded: [0-9]+ new bytes'
# R's index, grown from the cache, is saved once the browser sees it done
# (when idle: no keys meanwhile).
_i=0
while [ "$(cksum "$tmp"/cache/ptbrowse/index/*-raw.idx)" = "$sum0" ]; do
	_i=$((_i + 1))
	[ $_i -lt 100 ] || fail "R's index was not cached"
	sleep 0.1
done
index_done | grep -q "t\.pt: $size1 bytes" || fail "after R the index is not over $size1 bytes"
keys : messages Enter
wait_for ' [EWI] '
screen | grep -q 'index not cached' && fail "the index was not cached"
keys q
wait_gone 'messages'
tm_quit
[ "$(cli_cache "$tmp/cache")" = hit ] || fail "R's index of the whole file was not cached"

# `ptbrowse index` on the recording, appending again: cached too (it
# refused: "warning: index not cached: ... changed since").
rm -f "$tmp/stop"
(
	while [ ! -e "$tmp/stop" ]; do
		dd if="$tmp/more.pt" bs=4096 count=1 >>"$tmp/t.pt" 2>/dev/null
		sleep 0.02
	done
) &
apid=$!
XDG_CACHE_HOME=$tmp/cache3 "$PTBROWSE" index --time "$tmp/t.pt" >/dev/null 2>"$tmp/err3"
touch "$tmp/stop"
wait $apid
grep -q 'not cached' "$tmp/err3" && fail "ptbrowse index: $(cat "$tmp/err3")"
ls "$tmp"/cache3/ptbrowse/index/*-raw.idx >/dev/null 2>&1 ||
	fail "ptbrowse index did not cache the growing file"
echo "ok   t_ui_reload_cache: cached while the file grew, grown after R, by ptbrowse index too"
