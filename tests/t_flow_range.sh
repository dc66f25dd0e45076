#!/bin/sh
# t_flow_range -- `ptbrowse flow TRACE:FROM-TO` prints what the packets in
# [FROM, TO) decide, decoded from the PSB at or before FROM, as `calls
# TRACE:FROM-TO`, :funcs FROM TO and the region summaries count it: its
# lines are the whole trace's flow lines decided in [FROM, TO) (with
# --offset, also for --insn-only and the full form), and `flow --summary`
# of the range totals `calls`' instructions.  It started at the first PSB
# after FROM: a range without a PSB printed nothing, a longer one lost
# what came before its first PSB.  On a kAFL trace (libxdc's test data):
# foo, PSBs at 0, 0xb50, 0x12d0, ... (from one, [enabled] where the
# whole flow says [resumed]: a PSB+ cannot tell them apart); a range
# before the first PSB prints nothing (no state to decode it with).
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
T=$L/foo_trace.pt

"$PTBROWSE" flow --offset "$raw" "$T" >"$tmp/all" 2>/dev/null
"$PTBROWSE" flow --offset --insn-only "$raw" "$T" >"$tmp/all_i" 2>/dev/null
# the lines of FILE decided in [$2, $3) (16 hex digits each)
decided() {
	awk -v a="$2" -v b="$3" '$1 "" >= a "" && $1 "" < b ""' "$1"
}
for r in 0x1000-0x1200 0x1000-0x5000 0x12d0-0x1400 0xc00-0x1300; do
	a=$(printf '%016x' "${r%-*}")
	b=$(printf '%016x' "${r#*-}")
	decided "$tmp/all" "$a" "$b" >"$tmp/want"
	decided "$tmp/all_i" "$a" "$b" >"$tmp/want_i"
	"$PTBROWSE" flow --offset "$raw" "$T:$r" >"$tmp/got" 2>"$tmp/err"
	"$PTBROWSE" flow --offset --insn-only "$raw" "$T:$r" >"$tmp/got_i" 2>>"$tmp/err"
	if [ "${r%-*}" = 0x12d0 ]; then
		# from a PSB: its PSB+ cannot tell [resumed] from [enabled]
		for f in want got want_i got_i; do
			sed -i 's/  \[resumed\]$/  [enabled]/' "$tmp/$f"
		done
	fi
	n=$(grep -vc '^[0-9a-f]*  \[' "$tmp/want")
	if [ "$n" -gt 0 ] && cmp -s "$tmp/want" "$tmp/got" && cmp -s "$tmp/want_i" "$tmp/got_i"; then
		ok "flow $r: the whole flow's $n instructions decided there, and its events"
	else
		bad "flow $r: $(wc -l <"$tmp/got") lines, the whole flow has $(wc -l <"$tmp/want") there ($(head -c 200 "$tmp/err"))"
		diff "$tmp/want" "$tmp/got" | head -n 4
	fi
	"$PTBROWSE" flow --summary "$raw" "$T:$r" >"$tmp/sum" 2>"$tmp/err"
	s=$(awk '$1 == "total" { print $2 }' "$tmp/sum")
	"$PTBROWSE" calls "$raw" "$T:$r" >"$tmp/calls" 2>>"$tmp/err"
	c=$(sed -n '1s/.*): \([0-9]*\) instructions.*/\1/p' "$tmp/calls")
	[ "$s" = "$n" ] && [ "$c" = "$n" ] && ok "flow $r --summary: $s instructions, as calls" ||
		bad "flow $r --summary: '$s' instructions, calls '$c', want $n ($(head -c 200 "$tmp/err"))"
done

# before the first PSB nothing can be decoded: nothing printed (the PSB
# after the range's end is not the range's)
{ head -c 64 /dev/zero; cat "$T"; } >"$tmp/pad.pt"
"$PTBROWSE" flow --insn-only "$raw" "$tmp/pad.pt:0x0-0x20" >"$tmp/got" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/got" ] && ok "flow before the first PSB: nothing" ||
	bad "flow pad.pt:0x0-0x20: exit $rc, $(head -c 200 "$tmp/got") $(head -c 200 "$tmp/err")"
exit $fail
