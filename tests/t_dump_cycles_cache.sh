#!/bin/sh
# t_dump_cycles_cache -- `dump --cycles TRACE:FROM-TO` past the first PSB
# resumes the time model from the index's carry (src/cmd_dump.c): the
# index it builds with its time pass is saved to the cache, as goto's
# and marks' are (idxcache_load_or_build()), so the next range starts at
# once (before, every call built it over the whole trace and threw it
# away: about 30 s at 4 GiB).  The output is the same from the cache, and
# `ptbrowse index --time` then finds it whole.
set -u
: "${PTBROWSE:?}"
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
bad() { echo "FAIL $*"; fail=1; }
"$BUILD/tools/ptgen" --seed 3 --size 4MiB -o "$tmp/a.pt" >/dev/null || exit 1
ci=$tmp/cache/ptbrowse/index

"$PTBROWSE" dump --cycles "$tmp/a.pt:0x200000-0x201000" >"$tmp/one" 2>"$tmp/err" ||
	bad "first dump: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && bad "first dump said: $(cat "$tmp/err")"
n=$(ls "$ci" 2>/dev/null | grep -c '\.idx$')
[ "$n" = 1 ] || bad "after dump --cycles: $n cache files ($(ls "$ci" 2>&1))"
"$PTBROWSE" dump --cycles "$tmp/a.pt:0x200000-0x201000" >"$tmp/two" 2>"$tmp/err" ||
	bad "second dump: $(cat "$tmp/err")"
cmp -s "$tmp/one" "$tmp/two" || bad "the cache's dump differs"
[ -s "$tmp/one" ] || bad "no output"
"$PTBROWSE" index --time "$tmp/a.pt" >"$tmp/out" 2>"$tmp/err" || bad "index: $(cat "$tmp/err")"
grep -q 'index hit' "$tmp/out" || bad "index --time after dump: $(grep stream: "$tmp/out")"
exit $fail
