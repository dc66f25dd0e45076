#!/bin/sh
# Search in the browser, headless (--script), on a generated trace (default
# 4GiB, BENCH_SEARCH_SIZE; the same file as b_search): the time from a
# search's Enter to its first hit on the screen, for a rare packet (ovf)
# from the start, then from each hit to the next, and the time of a search
# that finds nothing (an IP range that never occurs: every packet decoded),
# while the index builds and after.  b_search measures the engine alone.
BUILD=${BUILD:-build}
size=${BENCH_SEARCH_SIZE:-4GiB}
ptgen=$BUILD/tools/ptgen
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
data=$BUILD/bench-data
trace=$data/ptgen-seed1-$size.pt

for f in "$ptgen" "$ptbrowse"; do
	if [ ! -x "$f" ]; then
		echo "b_search_ui: $f is missing (make BUILD=$BUILD)" >&2
		exit 1
	fi
done
mkdir -p "$data" || exit 1
if [ ! -f "$trace" ]; then
	echo "generating $trace ($size, seed 1)"
	"$ptgen" --seed 1 --size "$size" -o "$trace.tmp" && mv "$trace.tmp" "$trace" || exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
unset TERM
cat "$trace" > /dev/null

# In --script mode a search returns once its first hit is certain (or it
# ended), so each figure is "Enter to the first hit shown".
cat > "$tmp/keys" <<EOK
bench search-first-busy 1 :/ovf
bench search-next-busy 20 :/ovf
bench search-none-busy 1 :/ip 0x1-0x2
bench-index
bench search-next 20 :/ovf
bench search-none 3 :/ip 0x1-0x2
EOK
"$ptbrowse" --no-state --script "$tmp/keys" --size 120x40 $("$ptgen" --print-config) "$trace" \
	> "$tmp/ui" || exit 1
grep -v '^result' "$tmp/ui"
bytes=$(stat -c %s "$trace")
awk -v bytes="$bytes" '/^result browse-search-none-median-ms/ && $3 > 0 {
	printf "search for nothing in the browser: %.0f MiB/s (after the index)\n",
		bytes / 1048576 / ($3 / 1000) }' "$tmp/ui"
