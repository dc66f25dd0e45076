#!/bin/sh
# Search on a generated trace (warm page cache): a rare packet (ovf), an IP
# that never occurs, and an IP range that never occurs (every packet
# decoded), each on all cores against the index's phase-1 PSB scan over the
# same mapping in the same run (bench_search), with the time until the
# first hit is certain.  Goal: the rare-packet search at no less than half
# the scan's speed.  BENCH_SEARCH_SIZE (default 4GiB) sets the trace size;
# the trace is kept in $BUILD/bench-data/ (shared with b_index and
# b_decode for the same size).
BUILD=${BUILD:-build}
size=${BENCH_SEARCH_SIZE:-4GiB}
repeat=${BENCH_REPEAT:-3}
ptgen=$BUILD/tools/ptgen
bench=$BUILD/bench/bench_search
data=$BUILD/bench-data
trace=$data/ptgen-seed1-$size.pt

for f in "$ptgen" "$bench"; do
	if [ ! -x "$f" ]; then
		echo "b_search: $f is missing (make BUILD=$BUILD)" >&2
		exit 1
	fi
done
mkdir -p "$data" || exit 1
if [ ! -f "$trace" ] || [ -n "$(find "$ptgen" -newer "$trace")" ]; then
	echo "generating $trace ($size, seed 1)"
	if ! "$ptgen" --seed 1 --size "$size" -o "$trace.tmp"; then
		rm -f "$trace.tmp"
		exit 1
	fi
	mv "$trace.tmp" "$trace" || exit 1
fi
# warm the page cache
cat "$trace" > /dev/null

# shellcheck disable=SC2046
"$bench" --repeat "$repeat" $("$ptgen" --seed 1 --print-config) "$trace"
