#!/bin/sh
# Packet decoding speed on a generated trace (warm page cache, mmap):
# libipt's pt_pkt_next loop, our pkt_next loop, and `ptbrowse dump` to
# /dev/null; the median of BENCH_REPEAT runs (default 3) of each.  Then
# the two loops again on a trace without CYC packets (BENCH_NOCYC=0 skips
# it), the common perf setting, where tnt.8 runs dominate.
# BENCH_SIZE (default 1GiB) sets the trace size; traces are generated
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

# gen FILE [ptgen options]: generate FILE unless it is there and newer
# than ptgen.
gen() {
	out=$1
	shift
	if [ -f "$out" ] && [ -z "$(find "$ptgen" -newer "$out")" ]; then
		return 0
	fi
	echo "generating $out ($size, seed 1${*:+ $*})"
	start=$(date +%s.%N)
	if ! "$ptgen" --seed 1 --size "$size" "$@" -o "$out.tmp"; then
		rm -f "$out.tmp"
		return 1
	fi
	mv "$out.tmp" "$out" || return 1
	end=$(date +%s.%N)
	awk -v b="$(stat -c %s "$out")" -v s="$start" -v e="$end" \
		'BEGIN { printf "ptgen   %.1f MB/s writing the trace\n", b / (e - s) / 1e6 }'
}

gen "$trace" || exit 1
bytes=$(stat -c %s "$trace")
# warm the page cache for every reader below
cat "$trace" > /dev/null

out=$("$bench" --repeat "$repeat" "$trace") || exit 1
printf '%s\n' "$out" | grep -v '^result'

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

if [ "${BENCH_NOCYC:-1}" != 0 ]; then
	nocyc=$data/ptgen-seed1-nocyc-$size.pt
	gen "$nocyc" --no-cyc || exit 1
	cat "$nocyc" > /dev/null
	echo "-- without CYC packets --"
	out=$("$bench" --repeat "$repeat" "$nocyc") || exit 1
	printf '%s\n' "$out" | grep -v '^result'
fi
