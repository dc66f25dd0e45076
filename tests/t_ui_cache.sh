#!/bin/sh
# The browser saves the index it built to the cache and a second opening
# uses it: the cache file appears, and the screen after reopening is the
# same as after indexing.  Quitting right as the index is built, before
# the main loop took it in, saves it too (it was thrown away).
set -u
: "${PTBROWSE:?}" "${BUILD:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
"$BUILD/tools/ptgen" --seed 7 --size 8MiB -o "$tmp/t.pt" || exit 1
for n in 1 2; do
	printf 'wait-index\n}\n}\n:save-screen %s/s%s.txt\nq\n' "$tmp" "$n" >"$tmp/script$n"
	"$PTBROWSE" --script "$tmp/script$n" --size 100x30 "$tmp/t.pt" || {
		echo "FAIL: browser run $n"; exit 1; }
	if [ $n = 1 ]; then
		# The cache is written in the background; the browser waits for
		# it on quit.
		ls "$tmp"/cache/ptbrowse/index/*.idx >/dev/null 2>&1 || {
			echo "FAIL: no index cache after the first run"; exit 1; }
	fi
done
if ! cmp -s "$tmp/s1.txt" "$tmp/s2.txt"; then
	echo "FAIL: the screen from the cached index differs"
	diff "$tmp/s1.txt" "$tmp/s2.txt" | head -20
	exit 1
fi
rm -rf "$tmp/cache"
printf 'wait-index-built\nq\n' >"$tmp/script3"
"$PTBROWSE" --script "$tmp/script3" --size 100x30 "$tmp/t.pt" || {
	echo "FAIL: browser run 3"; exit 1; }
ls "$tmp"/cache/ptbrowse/index/*.idx >/dev/null 2>&1 || {
	echo "FAIL: no index cache after quitting as it was built"; exit 1; }
echo "ok: index cached and reused, same screen; cached on a quit as it was built"
