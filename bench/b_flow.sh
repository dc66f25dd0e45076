#!/bin/sh
# Instruction flow decoding speed (bench/bench_flow.c): our flow decoder,
# as `flow --summary` runs it, against libipt's block decoder (pt_blk_next)
# and instruction decoder (pt_insn_next) over the same trace and memory, in
# the same process, on one core; CPU time, the best of interleaved rounds;
# and ours as one window of the whole trace, ordinary (the code view's) and
# of block lines (the call tree's: flow_wopts.blocks).
# Traces: the kAFL traces of ../shared/traces/libxdc-kafl-flow with their
# memory, and tests/progs/p_sample recorded by tools/ptrecord (one PSB:
# ptrecord compresses returns across PSBs, which the SDM rules out and our
# decoder does not follow; kept in $BUILD/bench-data/).  BENCH_SECONDS
# (default 1) per trace and decoder.
BUILD=${BUILD:-build}
SHARED=${SHARED:-../shared}
secs=${BENCH_SECONDS:-1}
bench=$BUILD/bench/bench_flow
rec=$BUILD/tools/ptrecord
data=$BUILD/bench-data
dir=$SHARED/traces/libxdc-kafl-flow
fail=0

if [ ! -x "$bench" ]; then
	echo "b_flow: $bench is missing (make BUILD=$BUILD $bench)" >&2
	exit 1
fi
for opt in "$dir"/*.options; do
	[ -f "$opt" ] || { echo "b_flow: no kAFL traces under $dir"; break; }
	name=$(basename "$opt" .options)
	trace=$(ls "$dir/$name"*.pt | head -n 1)
	"$bench" --seconds "$secs" --options "$opt" "$trace" || fail=1
done
if [ -x "$rec" ] && [ -x "$BUILD/progs/p_sample" ]; then
	mkdir -p "$data" || exit 1
	t=$data/p_sample-flow.pt
	if [ ! -f "$t.options" ] || [ -n "$(find "$rec" "$BUILD/progs/p_sample" -newer "$t.options")" ]; then
		echo "recording p_sample with ptrecord (once)"
		"$rec" -q --psb-period 1048576 -o "$t" "$BUILD/progs/p_sample" >/dev/null ||
			{ echo "b_flow: ptrecord failed"; exit 1; }
	fi
	"$bench" --seconds "$secs" --options "$t.options" "$t" || fail=1
else
	echo "(no $rec or $BUILD/progs/p_sample: the recorded trace is skipped)"
fi
exit $fail
