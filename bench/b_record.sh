#!/bin/sh
# A large recorded trace with its code: tests/progs/p_sample at
# BENCH_RECORD_SCALE (default 16: about three million instructions, a
# minute or two of single-stepping) recorded by tools/ptrecord on two CPUs
# (tools/record.sh) once into $BUILD/bench-data/record-sN and kept.  Then,
# over each stream and its --raw images, best of 3 runs on one core:
# libipt's instruction decoder and block decoder (tools/iptflow) and, where
# it exists, `ptbrowse flow --summary`, as ratios measured in this run.
BUILD=${BUILD:-build}
scale=${BENCH_RECORD_SCALE:-16}
ptbrowse=${PTBROWSE:-$BUILD/ptbrowse}
iptflow=$BUILD/tools/iptflow
dir=$BUILD/bench-data/record-s$scale

for f in "$BUILD/tools/ptrecord" "$BUILD/tools/pt2perf" "$iptflow" "$ptbrowse" \
	 "$BUILD/progs/p_sample"; do
	if [ ! -x "$f" ]; then
		echo "b_record: $f is missing (make BUILD=$BUILD)" >&2
		exit 1
	fi
done
if [ ! -f "$dir/perf.data" ] || [ "$BUILD/tools/ptrecord" -nt "$dir/perf.data" ] ||
   [ "$BUILD/progs/p_sample" -nt "$dir/perf.data" ]; then
	echo "recording p_sample $scale into $dir (single-stepping: slow, once)"
	mkdir -p "$BUILD/bench-data" || exit 1
	t0=$(date +%s%N)
	sh tools/record.sh "$dir" "$BUILD" "$scale" || exit 1
	t1=$(date +%s%N)
	n=$(cat "$dir"/trace.cpu*.flow | wc -l)
	awk -v n="$n" -v ns=$((t1 - t0)) 'BEGIN {
		printf "ptrecord: %d instructions in %.1f s, %.0f instructions/s\n",
		       n, ns / 1e9, n / (ns / 1e9) }'
fi
opts=$(cat "$dir/trace.options" | sed "s#^--raw #--raw $dir/#" | tr '\n' ' ')

# best of 3 wall-clock nanoseconds of "$@", pinned to one core
best() {
	b=
	for i in 1 2 3; do
		t0=$(date +%s%N)
		taskset -c 0 "$@" > /dev/null 2>&1 || return 1
		t=$(( $(date +%s%N) - t0 ))
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}

have_flow=
"$ptbrowse" flow --summary $opts "$dir/trace.cpu0" > /dev/null 2>&1 && have_flow=1
for s in "$dir"/trace.cpu0 "$dir"/trace.cpu1; do
	n=$(wc -l < "$s.flow")
	insn=$(best "$iptflow" --count $opts "$s") || { echo "b_record: iptflow failed"; exit 1; }
	blk=$(best "$iptflow" --blk $opts "$s") || { echo "b_record: iptflow --blk failed"; exit 1; }
	line=$(awk -v n="$n" -v a="$insn" -v b="$blk" -v s="$(basename "$s")" 'BEGIN {
		printf "%s: %d instructions, %d bytes; libipt insn %.1f M/s, blk %.1f M/s",
		       s, n, 0, n / a * 1e3, n / b * 1e3 }')
	line=$(printf '%s\n' "$line" | sed "s/, 0 bytes/, $(wc -c < "$s") bytes/")
	if [ -n "$have_flow" ]; then
		# its own count: where it stops at an error it decodes less
		fn=$("$ptbrowse" flow --summary $opts "$s" 2>/dev/null |
		     awk '$1 == "total" { print $2 }')
		fl=$(best "$ptbrowse" flow --summary $opts "$s") || fl=
		[ -n "$fl" ] && [ -n "$fn" ] && line=$(awk -v l="$line" -v n="$fn" -v f="$fl" -v a="$insn" -v b="$blk" 'BEGIN {
			printf "%s; flow --summary %.1f M/s: %.2fx blk, %.2fx insn",
			       l, n / f * 1e3, b / f, a / f }')
		[ -n "$fn" ] && [ "$fn" != "$n" ] &&
			line="$line (flow decoded $fn instructions, not $n: the ratios compare unequal work)"
	fi
	echo "$line"
done
[ -n "$have_flow" ] || echo "(ptbrowse flow --summary is not there yet: libipt only)"
