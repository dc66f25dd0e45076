#!/bin/sh
# screenshots -- regenerate screenshots/*.txt: the real program, headless
# (--script), on the shared real traces and on a generated sample.
# Run by `make screenshots` with BUILD set.  Deterministic: the index is
# waited for and nothing depends on the clock.
set -eu
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
PTB=$BUILD/ptbrowse
SHARED=${SHARED:-../shared}
out=screenshots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CONFIG_HOME=$tmp/config XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
export LANG=C.UTF-8 LC_ALL=C.UTF-8
unset TERM
mkdir -p "$out"

quipper="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"
dynamorio="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"

# shot NAME SIZE "KEYS..." OPTIONS... TRACE: run KEYS, then save the screen.
shot() {
	name=$1 size=$2 keys=$3
	shift 3
	printf 'wait-index\n%s\n:save-screen %s\n' "$keys" "$out/$name.txt" > "$tmp/keys"
	"$PTB" --no-state --script "$tmp/keys" --size "$size" "$@"
	echo "   SHOT    $out/$name.txt"
}

Q=$SHARED/traces/quipper-perf-intel-pt
D=$SHARED/traces/dynamorio-drpt2trace
K=$SHARED/traces/keeper-perf-event-sample

shot quipper-cpu3-start 120x40 "" $quipper "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt"
shot quipper-cpu3-psb 120x40 "} } } j" $quipper "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt"
shot quipper-cpu3-tip 120x40 "50% / t i p Enter wait-search * wait-search" $quipper "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt"
shot quipper-cpu3-pipe 120x40 "} v 2 0 j | w c Space - l" $quipper "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt"
shot quipper-perf-data 120x40 "25%" "$Q/perf.data.intel_pt-4.14"
shot dynamorio-cyc-start 120x40 "" $dynamorio "$D/hist_2aad718d_test_simple.tracedir.pt.bin"
shot dynamorio-cyc-raw 120x40 ":set raw on
}" $dynamorio "$D/hist_2aad718d_test_simple.tracedir.pt.bin"
shot dynamorio-postprocessor-end 120x40 "G" $dynamorio "$D/hist_316e5058_drptpostprocessor.pt.bin"
shot quipper-perf-data-streams 120x40 ":streams" "$Q/perf.data.intel_pt-4.14"
shot keeper-start 120x40 "" "$K/traced_data.bin"
shot help 100x40 "F1" "$K/traced_data.bin"
shot small-40x10 40x10 "50%" $quipper "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt"
shot ascii 100x30 "}" --ascii $dynamorio "$D/hist_2aad718d_test_simple.tracedir.pt.bin"

# `make run`'s sample: p_sample recorded by ptrecord (make sample-code):
# function names, two CPU lanes, times in ns.
C=$BUILD/sample-code/perf.data
if [ -f "$C" ]; then
	shot sample-code-start 120x40 "" "$C"
	shot sample-code-funcs 120x40 ":funcs 0 0x100000" "$C"
	shot sample-code-view 120x40 "} c 2 4 j" "$C"
	shot sample-code-lanes 120x40 "50% J" "$C"
	shot sample-code-zoom 120x40 "50% z z z" "$C"
else
	echo "screenshots: $C is missing (make sample-code); skipping it" >&2
fi

# A generated sample with overflows: the timeline's markers and zoom.
if [ ! -x "$BUILD/tools/ptgen" ]; then
	echo "screenshots: $BUILD/tools/ptgen is missing; skipping the sample" >&2
	exit 0
fi
sample=$tmp/sample.pt
"$BUILD/tools/ptgen" --seed 1 --size 64MiB --ovf-rate 0.00002 -o "$sample"
gen=$("$BUILD/tools/ptgen" --print-config)
shot sample-start 120x40 "" $gen "$sample"
shot sample-ovf 120x40 "50% e" $gen "$sample"
shot sample-zoom 120x40 "50% e z z z z" $gen "$sample"
shot sample-zoom-region 120x40 ":region hot 40% 42%
:zoom hot" $gen "$sample"
shot sample-bytes 120x40 "50% e t" $gen "$sample"
shot sample-search 120x40 "50% / t i p . p g e Enter wait-search n n" $gen "$sample"
shot sample-filter 120x40 "50% & c b r Enter wait-search" $gen "$sample"
shot sample-marks 120x40 "25% m a 50% v } } } Enter h o t Enter
:marks" $gen "$sample"
