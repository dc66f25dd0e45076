#!/bin/sh
# t_calls_range -- `ptbrowse calls TRACE:FROM-TO` decodes from the PSB at
# or before FROM and counts what the packets in [FROM, TO) decide:
# `flow --offset`'s instructions there.  It decoded from the first PSB
# after FROM: a range without a PSB printed "0 instructions, cycles 0",
# and a longer one lost what came before its first PSB, as exact.  A
# range nothing can be decoded in (no PSB before its end) says so, its
# cycles '?'.  On a kAFL trace (libxdc's test data): foo, PSBs at 0xb50,
# 0x12d0, ...
set -u
: "${BUILD:=build}" "${SHARED:?}"
PTBROWSE=${PTBROWSE:-$BUILD/ptbrowse}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config" \
	XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
L=$SHARED/traces/libxdc-kafl-flow
[ -f "$L/foo_trace.pt" ] || { echo "skip: $L/foo_trace.pt missing"; exit 0; }
raw="--raw=$L/foo.0x7ffff7819000.bin:0x7ffff7819000"

"$PTBROWSE" flow --offset --insn-only "$raw" "$L/foo_trace.pt" >"$tmp/flow" 2>/dev/null
# flow's instructions decided in [$1, $2) (16 hex digits each)
decided() {
	awk -v a="$1" -v b="$2" '$2 !~ /^\[/ && $1 "" >= a "" && $1 "" < b "" { n++ }
		END { print n + 0 }' "$tmp/flow"
}
for r in 0x1000-0x1200 0x1000-0x5000 0x12d0-0x1400; do
	a=$(printf '%016x' "${r%-*}")
	b=$(printf '%016x' "${r#*-}")
	want=$(decided "$a" "$b")
	"$PTBROWSE" calls "$raw" "$L/foo_trace.pt:$r" >"$tmp/calls" 2>"$tmp/err" ||
		bad "calls $r: $(cat "$tmp/err")"
	n=$(sed -n '1s/.*): \([0-9]*\) instructions.*/\1/p' "$tmp/calls")
	[ "$want" -gt 0 ] && [ "$n" = "$want" ] && ok "$r: $n instructions, as flow" ||
		bad "$r: '$n' instructions, flow decides $want: $(head -n 1 "$tmp/calls")"
done

{ head -c 64 /dev/zero; cat "$L/foo_trace.pt"; } >"$tmp/pad.pt"
"$PTBROWSE" calls "$raw" "$tmp/pad.pt:0x0-0x20" >"$tmp/calls" 2>"$tmp/err" ||
	bad "calls pad: $(cat "$tmp/err")"
case $(head -n 1 "$tmp/calls") in
*"[0x0, 0x20): no code decoded (no PSB before its end), cycles ?,"*)
	ok "no PSB before the end: no code decoded, cycles ?" ;;
*) bad "no PSB: $(head -n 1 "$tmp/calls")" ;;
esac
exit $fail
