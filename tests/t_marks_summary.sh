#!/bin/sh
# `ptbrowse marks --summary`: the packet counts of a region equal those of
# `ptbrowse dump TRACE:FROM-TO` over the same range, type by type, on real
# traces.  Regions start on a PSB here: dump, like ptdump, skips to the
# first PSB at or after FROM, while a summary counts from FROM itself.
set -u
: "${PTBROWSE:?}" "${SHARED:?}"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0

# check TRACE FROM TO: one region, compared with dump
check() {
	t=$1 from=$2 to=$3
	file=$("$PTBROWSE" marks --json "$t" | sed -n 's/.*"file": "\([^"]*\)".*/\1/p')
	[ -n "$file" ] || { echo "FAIL: marks --json names no file for $t"; fail=1; return; }
	mkdir -p "$(dirname "$file")"
	printf '# ptbrowse marks v1\nregion whole %s %s\n' "$from" "$to" >"$file"
	"$PTBROWSE" marks --summary "$t" >"$tmp/sum" 2>"$tmp/err" ||
		{ echo "FAIL: summary: $(cat "$tmp/err")"; fail=1; return; }
	sed -n 's/^  type \([^ ]*\) \([0-9]*\)$/\1 \2/p' "$tmp/sum" | sort >"$tmp/ours"
	"$PTBROWSE" dump "$t:$from-$to" | grep -v '^\[' |
		awk '{ n[$2]++ } END { for (k in n) print k, n[k] }' | sort >"$tmp/dump"
	name=$(basename "$t")
	if cmp -s "$tmp/ours" "$tmp/dump"; then
		echo "ok   $name $from-$to: $(sed -n 's/^  packets //p' "$tmp/sum") packets, counts equal dump's"
	else
		echo "FAIL $name $from-$to:"; diff "$tmp/dump" "$tmp/ours" | head; fail=1
	fi
	grep -q '^  errors 0$' "$tmp/sum" || { echo "FAIL $name: errors reported"; fail=1; }
}

Q=$SHARED/traces/quipper-perf-intel-pt
check "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt" 0x8078 0x10124
check "$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt" 0 "$(wc -c <"$Q/perf.data.intel_pt-4.14.idx3.cpu3.pt")"
D=$SHARED/traces/dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin
check "$D" 0 "$(wc -c <"$D")"
# A raw trace has no wall clock; --tsc-freq gives its regions a duration.
"$PTBROWSE" marks --summary "$D" | grep -q '^  time-ns ' &&
	{ echo "FAIL: a time without a TSC frequency"; fail=1; }
"$PTBROWSE" marks --summary --tsc-freq 2GHz "$D" | grep -q '^  time-ns [0-9]' ||
	{ echo "FAIL: no time with --tsc-freq"; fail=1; }
"$PTBROWSE" marks --summary --tsc-freq bogus "$D" 2>/dev/null && { echo "FAIL: --tsc-freq bogus accepted"; fail=1; }
[ $fail = 0 ] && echo "ok   marks --summary --tsc-freq gives a raw trace's regions a time"

# Cycles across an OVF are not all counted: 'data-lost', not 'estimated'.
if [ -x "${BUILD:-build}/tools/ptgen" ]; then
	"${BUILD:-build}/tools/ptgen" --seed 1 --size 1MiB --ovf-rate 0.001 -o "$tmp/o.pt" >/dev/null &&
		printf '# ptbrowse marks v1\nregion rovf 0x21e5 0x2432\nregion rclean 0x10 0x21e0\n' >"$tmp/o.marks" &&
		"$PTBROWSE" marks --import "$tmp/o.marks" "$tmp/o.pt" >/dev/null 2>&1 || {
		echo "FAIL: the OVF trace's regions"; fail=1; }
	"$PTBROWSE" marks --summary "$tmp/o.pt" >"$tmp/os" 2>&1
	awk '$1 == "region" { r = $2 == "rovf" } r && /^  cycles /' "$tmp/os" |
		grep -q ' data-lost$' || { echo "FAIL: cycles across an OVF: $(grep -A30 'rovf' "$tmp/os" | grep cycles)"; fail=1; }
	awk '$1 == "region" { r = $2 == "rclean" } r && /^  cycles /' "$tmp/os" |
		grep -q ' data-lost$' && { echo "FAIL: cycles with no loss said data-lost"; fail=1; }
	[ $fail = 0 ] && echo "ok   marks --summary: cycles across an OVF are data-lost"
fi
exit $fail
