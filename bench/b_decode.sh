#!/bin/sh
# Packet decoding speed on a generated trace (warm page cache, mmap):
# libipt's pt_pkt_next loop, our pkt_next loop, and `ptbrowse dump` to
# /dev/null; the median of BENCH_REPEAT runs (default 3) of each.
# BENCH_SIZE (default 1GiB) sets the trace size; the trace is generated
# once and kept in $BUILD/bench-data/ until ptgen changes.
BUILD=${BUILD:-build}
size=${BENCH_SIZE:-1GiB}
repeat=${BENCH_REPEAT:-3}
ptgen=$BUILD/tools/ptgen
bench=$BUILD/bench/bench_decode
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
data=$BUILD/bench-data
trace=$data/ptgen-seed1-$size.pt

for f in "$ptgen" "$bench"; do
	if [ ! -x "$f" ]; then
		echo "b_decode: $f is missing (make BUILD=$BUILD $f)" >&2
		exit 1
	fi
done
mkdir -p "$data" || exit 1
if [ ! -f "$trace" ] || [ -n "$(find "$ptgen" -newer "$trace")" ]; then
	echo "generating $trace ($size, seed 1)"
	start=$(date +%s.%N)
	if ! "$ptgen" --seed 1 --size "$size" -o "$trace.tmp"; then
		rm -f "$trace.tmp"
		exit 1
	fi
	mv "$trace.tmp" "$trace" || exit 1
	end=$(date +%s.%N)
	bytes=$(stat -c %s "$trace")
	awk -v b="$bytes" -v s="$start" -v e="$end" \
		'BEGIN { printf "ptgen   %.1f MB/s writing the trace\n", b / (e - s) / 1e6 }'
fi
bytes=$(stat -c %s "$trace")
# warm the page cache for every reader below
cat "$trace" > /dev/null

"$bench" --repeat "$repeat" "$trace" | grep -v '^result' || exit 1

# ptbrowse dump, once it exists
if [ -x "$ptbrowse" ] && "$ptbrowse" dump --help > /dev/null 2>&1; then
	times=
	i=0
	while [ $i -lt "$repeat" ]; do
		start=$(date +%s.%N)
		"$ptbrowse" dump "$trace" > /dev/null 2>&1
		rc=$?
		end=$(date +%s.%N)
		if [ $rc -ne 0 ]; then
			echo "dump    ptbrowse dump failed (exit $rc)"
			exit 1
		fi
		times="$times $(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')"
		i=$((i + 1))
	done
	echo "$times" | tr ' ' '\n' | grep . | sort -g |
		awk -v b="$bytes" -v n="$repeat" '{ t[NR] = $1 }
			END { m = t[int((NR + 1) / 2)];
			      printf "dump    ptbrowse dump >/dev/null %6.1f MB/s  (median of %d, %.2f s)\n",
				b / m / 1e6, n, m }'
else
	echo "dump    skipped: $ptbrowse dump is not there yet"
fi
