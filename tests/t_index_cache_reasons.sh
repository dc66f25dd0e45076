#!/bin/sh
# t_index_cache_reasons -- what `ptbrowse index` says of a cache file it
# does not use (src/idxcache.c): a trace never indexed whose first 64 KiB
# are another's, whose cache file that name holds, is not told "trace
# changed" (nothing of it changed) but gets a file of its own; a cache
# file with bytes appended is "wrong length", not "truncated".  And a
# touched trace, checked by its whole content, has its cache file written
# again with its new mtime (so the browser, which hashes only up to
# 256 MiB, is served too: test_idxcache's test_touched_restamped).
# Indexes made with other timing options have files of their own: runs
# with either then both hit (before, each replaced the other's).
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
BUILD_ABS=$(cd "$BUILD" && pwd) || exit 1
PTBROWSE=$(cd "$(dirname "$PTBROWSE")" && pwd)/$(basename "$PTBROWSE")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL $*"; fail=1; }
cd "$tmp" || exit 1
"$BUILD_ABS/tools/ptgen" --seed 7 --size 2MiB -o n2.pt >/dev/null || exit 1
"$BUILD_ABS/tools/ptgen" --seed 7 --size 3MiB -o n3.pt >/dev/null || exit 1
ci=$tmp/cache/ptbrowse/index

"$PTBROWSE" index n2.pt >out 2>err || bad "index n2: $(cat err)"
[ -s err ] && bad "index n2 said: $(cat err)"
"$PTBROWSE" index n3.pt >out 2>err || bad "index n3: $(cat err)"
want="ptbrowse index: n3.pt: not cached (the cache file named by its first 64 KiB is another trace's, or its own before a change); indexing it into a cache file of its own"
[ "$(cat err)" = "$want" ] || bad "n3 beside n2's cache: $(cat err)"
grep -q 'index built' out || bad "n3: $(grep stream: out)"
"$PTBROWSE" index n3.pt >out 2>err || bad "index n3 again: $(cat err)"
grep -q 'index hit' out || bad "n3 again: $(grep stream: out) $(cat err)"
"$PTBROWSE" index n2.pt >out 2>err || bad "index n2 again: $(cat err)"
grep -q 'index hit' out || bad "n2 again: $(grep stream: out) $(cat err)"

# bytes appended to every cache file: "wrong length"
for f in "$ci"/*.idx; do echo xx >>"$f"; done
"$PTBROWSE" index n2.pt >out 2>err || bad "index n2 appended: $(cat err)"
[ "$(cat err)" = "ptbrowse index: n2.pt: index cache ignored (wrong length), rebuilding it" ] ||
	bad "appended: $(cat err)"

# touched: a hit by its content, and the cache file replaced (another
# inode), once: the next hit does not need the check
"$PTBROWSE" index n2.pt >out 2>err || bad "index n2 rebuilt: $(cat err)"
ino() { ls -i "$ci" | awk '$2 !~ /\.i[0-9a-f]*-/ { print $1 }'; }
i0=$(ino)
touch -d '2001-01-01' n2.pt
"$PTBROWSE" index n2.pt >out 2>err || bad "index n2 touched: $(cat err)"
grep -q 'index hit' out || bad "n2 touched: $(grep stream: out) $(cat err)"
i1=$(ino)
[ "$i0" != "$i1" ] || bad "n2 touched: the cache file was not written again"
"$PTBROWSE" index n2.pt >out 2>err || bad "index n2 touched again: $(cat err)"
grep -q 'index hit' out || bad "n2 touched again: $(grep stream: out) $(cat err)"
[ "$(ino)" = "$i1" ] || bad "n2 touched again: the cache file was written again"
# other timing options: a file of their own, each hits after (the
# default's time pass added first: indexed without --time above)
"$PTBROWSE" index --time n2.pt >out 2>err || bad "index --time: $(cat err)"
grep -q 'index extended' out || bad "--time: $(grep stream: out) $(cat err)"
"$PTBROWSE" index --time --nom-freq 10 n2.pt >out 2>err || bad "index --nom-freq: $(cat err)"
[ -s err ] && bad "index --nom-freq said: $(cat err)"
grep -q 'index built' out || bad "--nom-freq: $(grep stream: out)"
for round in 1 2; do
	for o in "" "--nom-freq 10"; do
		"$PTBROWSE" index --time $o n2.pt >out 2>err || bad "index $o: $(cat err)"
		grep -q 'index hit' out || bad "round $round, '$o': $(grep stream: out) $(cat err)"
	done
done
exit $fail
