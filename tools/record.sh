#!/bin/sh
# record.sh DIR BUILD [SCALE] -- record tests/progs/p_sample with
# tools/ptrecord on two simulated CPUs and wrap it with tools/pt2perf into
# DIR/perf.data (MMAP2, COMM, FORK, EXIT and context switch sideband).
# DIR keeps the raw streams, their instruction logs and the code images.
# Used by `make sample-code` and bench/b_record.sh.  Cycles and times in
# the trace come from ptrecord's cycle model, not from a measurement.
# An MTC every crystal clock (--mtc-freq 0, a period real parts support;
# perf's default is 3): the decoder measures the core's MHz over a whole
# MTC period, so with 100 cycles a period the first screen shows it.  The
# raw streams need --mtc-freq 0 with the rest of ptgen's timing options.
# perf's TIME_CONV is the TSC the model runs, 1.2 GHz (ptgen's CPUID.15H
# 2/100 of a 24 MHz crystal, P1 12): 2^20 / 873813 ns a tick, so times,
# the CBR's 2400 MHz and the MHz measured from them agree, as on real
# parts (pt2perf's default too; given here all the same, so that the
# sample recording does not depend on it).
set -u
dir=$1 build=$2 scale=${3:-1} mtc=0
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" || exit 1
"$build/tools/ptrecord" -q --cpus 2 --mtc-freq $mtc -o "$dir.tmp/trace" "$build/progs/p_sample" "$scale" &&
"$build/tools/pt2perf" --mtc-freq $mtc --time-shift 20 --time-mult 873813 \
	--sideband "$dir.tmp/trace.sideband" \
	--cpu 0 "$dir.tmp/trace.cpu0" --cpu 1 "$dir.tmp/trace.cpu1" \
	-o "$dir.tmp/perf.data" || { rm -rf "$dir.tmp"; exit 1; }
rm -rf "$dir" && mv "$dir.tmp" "$dir"
