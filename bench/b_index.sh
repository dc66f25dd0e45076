#!/bin/sh
# Indexing on a generated trace (warm page cache): phase 1 against a plain
# memmem PSB scan and phase 1 + 2 against libipt's pt_pkt_next loop, in
# the same run (bench_index), and phases 1 + 2 + 3 (the time pass) with the
# trace's timing options; then `ptbrowse index` as a user runs it:
# peak RSS of a build, and the time to reopen with a valid cache.
# BENCH_INDEX_SIZE (default 4GiB) sets the trace size; the trace is kept
# in $BUILD/bench-data/ (shared with b_decode for the same size).
BUILD=${BUILD:-build}
size=${BENCH_INDEX_SIZE:-4GiB}
repeat=${BENCH_REPEAT:-3}
ptgen=$BUILD/tools/ptgen
bench=$BUILD/bench/bench_index
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
data=$BUILD/bench-data
trace=$data/ptgen-seed1-$size.pt

for f in "$ptgen" "$bench" "$ptbrowse"; do
	if [ ! -x "$f" ]; then
		echo "b_index: $f is missing (make BUILD=$BUILD)" >&2
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
# warm the page cache for every reader below
cat "$trace" > /dev/null

# shellcheck disable=SC2046
"$bench" --repeat "$repeat" $("$ptgen" --seed 1 --print-config) "$trace" |
	grep -v '^result' || exit 1

# ptbrowse index: a cold build (no cache), then a reopen with the cache.
cache=$(mktemp -d) || exit 1
trap 'rm -rf "$cache"' EXIT
out=$cache/out.json
if ! XDG_CACHE_HOME=$cache /usr/bin/time -f '%e %M' -o "$cache/time" \
	"$ptbrowse" index --json "$trace" > "$out"; then
	echo "b_index: ptbrowse index failed" >&2
	exit 1
fi
read -r secs rss_kib < "$cache/time"
psbs=$(sed -n 's/.*"psbs": \([0-9]*\).*/\1/p' "$out")
awk -v s="$secs" -v r="$rss_kib" -v p="$psbs" 'BEGIN {
	budget = 64 * 1024 * 1024 + 64 * p
	printf "index   ptbrowse index, no cache  %6.2f s, peak RSS %.1f MiB (budget %.1f MiB for %d PSBs: %s)\n",
		s, r / 1024, budget / 1048576, p, r * 1024 <= budget ? "ok" : "OVER"
}'
best=
i=0
while [ $i -lt "$repeat" ]; do
	XDG_CACHE_HOME=$cache "$ptbrowse" index --json "$trace" > "$out" || exit 1
	grep -q '"cache": "hit"' "$out" || { echo "b_index: the cache did not hit" >&2; exit 1; }
	t=$(sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' "$out")
	best="$best $t"
	i=$((i + 1))
done
echo "$best" | tr ' ' '\n' | grep . | sort -g | awk -v n="$repeat" '{ t[NR] = $1 }
	END { printf "reopen  open + load cached index  %6.1f ms  (median of %d; goal < 50 ms)\n",
		t[int((NR + 1) / 2)] * 1000, n }'
